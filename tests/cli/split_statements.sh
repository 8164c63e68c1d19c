# Issue 40 item 3: a program of more than 1000 top-level statements has
# them in units of 1000 of their own (docs/codegen.md, "Building"),
# which name globals, host functions and kernels of the first unit, and
# its table of sites.  2500 statements (three such units) that define
# globals read in later units, call a function, run kernels, and stop
# with a run-time error in the last unit (tests/scale/gen.sh mixed): the
# CPU executable prints what the evaluator prints, and exits 1.
# cuda-build builds the same program for CUDA.  And more than 1000 host
# functions are in units of 1000 of their own: 1100 functions, each
# called by a statement (tests/scale/gen.sh functions), in two units of
# functions and three of statements.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh tests/scale/gen.sh mixed 2493 > "$tmp/many.nesl"
units=$("$NESSIE" --dump=c "$tmp/many.nesl" | grep -c '^/\* translation unit [0-9]* of [0-9]*: statements ')
[ "$units" = 3 ] || { echo "$units units of statements, expected 3"; exit 1; }
"$NESSIE" --interp=eval "$tmp/many.nesl" 2> /dev/null | grep -v ' = fn : ' > "$tmp/expected"
NESSIE_CFLAGS=-O0 "$NESSIE" --target=cpu -o "$tmp/many" "$tmp/many.nesl" || { echo "the build failed"; exit 1; }
"$tmp/many" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ "$rc" = 1 ] || { echo "the executable exited $rc, expected 1 (a run-time error)"; exit 1; }
cmp -s "$tmp/out" "$tmp/expected" || { echo "the executable prints: $(diff "$tmp/out" "$tmp/expected" | head -5)"; exit 1; }
grep -q "error: .*many.nesl:2497:" "$tmp/out" || { echo "no error at line 2497: $(grep error "$tmp/out")"; exit 1; }
sh tests/scale/gen.sh functions 1100 > "$tmp/funcs.nesl"
units=$("$NESSIE" --dump=c "$tmp/funcs.nesl" | grep -c '^/\* translation unit [0-9]* of [0-9]*: host functions ')
[ "$units" = 2 ] || { echo "$units units of host functions, expected 2"; exit 1; }
"$NESSIE" --interp=eval "$tmp/funcs.nesl" 2> /dev/null | grep -v ' = fn : ' > "$tmp/expected"
NESSIE_CFLAGS=-O0 "$NESSIE" --target=cpu -o "$tmp/funcs" "$tmp/funcs.nesl" || { echo "the build failed"; exit 1; }
"$tmp/funcs" > "$tmp/out" 2>&1 || { echo "the executable of 1100 functions failed: $(tail -3 "$tmp/out")"; exit 1; }
cmp -s "$tmp/out" "$tmp/expected" || { echo "1100 functions print: $(diff "$tmp/out" "$tmp/expected" | head -5)"; exit 1; }
exit 0
