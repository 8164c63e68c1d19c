# scale: programs that grow the compiler rather than the data (issue 38,
# items 5 and 6), each made by tests/scale/gen.sh and compiled under a
# memory and a time limit that the quadratic paths this suite guards
# against went far past.  Each program runs under the evaluator (the
# reference: the oracle is too slow on them), the flat and the λcu
# interpreters, which must print the same; `--dump=c` and `--dump=cuda`
# must succeed; the literal nested 1000 deep is also built for the CPU
# target and run.  Tests scale/KIND_N:
#   literal_1000   `[[...[1]...]]` nested 1000 deep (before: `--dump=c` of
#                  100 deep crashed after 10.9 s and 9.6 GB, 1000 deep did
#                  not finish `--interp=lcu` in 60 s)
#   branching_1000 two elements a level for ten levels, then one, to 1000
#   tuple_1000, let_1000, if_1000   a tuple, a `let` chain, an `if` 1000 deep
#   statements_20000  20 000 top-level statements `I + 2;`
#   functions_20000   20 000 function definitions, each called
#                  (before: 12.6 s to flatten, 29 s and 570 MB for λcu)
#   literal_cpu    the literal nested 1000 deep as a CPU executable,
#                  compiled at -O0 (gcc's own time on one function of
#                  25 000 lines is what the test would otherwise measure)
#   sums_size      2000 statements `vI = sum({x * 1 : x in [0:1]});`:
#                  `--dump=c` at most 3 MB, and 4000 at most twice
#                  that (issue 40: 13.9 MB, every unit repeating all
#                  the layouts; then 5.6 MB, each statement with a
#                  layout and a kernel of its own, equal to the others';
#                  now 1.5 MB, one layout a unit and one kernel)
#   statements_cpu the 20 000 statements as a CPU executable, at the
#                  default flags, without the build cache, under
#                  STATEMENTS_CPU_LIMIT_S (issue 38 item 6, issue 40 item
#                  3: one unit of 8.4 MB took gcc -O2 60 s of processor
#                  time, and the build had not finished at 300 s; now 21
#                  units, the statements' at -O0: 20 s on this 2-core
#                  machine under a load of 4, 17 s of processor time)
. tests/suites/lib.sh
LIMIT_KB=1000000 # the address space of one compilation (each took at
                 # most 270 MB; before, 20 000 functions took 570 MB)
LIMIT_S=10       # its seconds: each took under 2 s on this 2-core
                 # machine, where 20 000 functions took 29 s before
CPU_LIMIT_S=60   # the CPU build's (cc: 4 s of processor time)
STATEMENTS_CPU_LIMIT_S=120 # the 20 000 statements' CPU build

# AddressSanitizer reserves terabytes of address space: under make
# test-asan only the time is limited
grep -q __asan_init "$NESSIE" && LIMIT_KB=unlimited

# run NAME SECONDS COMMAND...: COMMAND under the limits, output in $OUT/NAME
run() {
  name=$1
  seconds=$2
  shift 2
  (ulimit -v $LIMIT_KB; timeout "$seconds" "$@" > "$OUT/$name" 2>&1)
}

for t in literal:1000 branching:1000 tuple:1000 let:1000 if:1000 statements:20000 functions:20000; do
  kind=${t%:*}
  n=${t#*:}
  test=${kind}_$n
  src=$OUT/$test.nesl
  sh tests/scale/gen.sh "$kind" "$n" > "$src"
  ok=true
  for stage in --interp=eval --interp=flat --interp=lcu --dump=c --dump=cuda; do
    out=$test.$(echo "$stage" | tr -d '=-')
    run "$out" $LIMIT_S "$NESSIE" "$stage" "$src"
    rc=$?
    if [ $rc -ne 0 ]; then
      ok=false
      fail "scale/$test" "$stage failed (status $rc; limits: $LIMIT_KB KB, $LIMIT_S s): $(tail -c 300 "$OUT/$out")"
      break
    fi
  done
  $ok || continue
  for interp in flat lcu; do
    if ! cmp -s "$OUT/$test.interpeval" "$OUT/$test.interp$interp"; then
      ok=false
      fail "scale/$test" "--interp=$interp differs from --interp=eval: $(cmp "$OUT/$test.interpeval" "$OUT/$test.interp$interp")"
      break
    fi
  done
  $ok && pass "scale/$test"
done

# the generated C grows with the program, linearly
sh tests/scale/gen.sh sums 2000 > "$OUT/sums_2000.nesl"
sh tests/scale/gen.sh sums 4000 > "$OUT/sums_4000.nesl"
if run sums_2000.c $LIMIT_S "$NESSIE" --dump=c "$OUT/sums_2000.nesl" &&
   run sums_4000.c $LIMIT_S "$NESSIE" --dump=c "$OUT/sums_4000.nesl"; then
  s2=$(wc -c < "$OUT/sums_2000.c")
  s4=$(wc -c < "$OUT/sums_4000.c")
  if [ "$s2" -le 3000000 ] && [ "$s4" -le $((2 * s2 + 100000)) ]; then pass "scale/sums_size"
  else fail "scale/sums_size" "--dump=c: 2000 statements $s2 bytes (at most 3000000), 4000 $s4 (at most twice)"; fi
else
  fail "scale/sums_size" "$(tail -c 300 "$OUT/sums_2000.c" "$OUT/sums_4000.c")"
fi

# the literal nested 1000 deep as an executable (the make test-asan flags
# kept, -O0 after them)
src=$OUT/literal_1000.nesl
if (NESSIE_CFLAGS="${NESSIE_CFLAGS:-} -O0" && export NESSIE_CFLAGS &&
    run literal_cpu.build $CPU_LIMIT_S "$NESSIE" -v --target=cpu -o "$OUT/literal_cpu" "$src") &&
   run literal_cpu.out $LIMIT_S "$OUT/literal_cpu" &&
   cmp -s "$OUT/literal_cpu.out" "$OUT/literal_1000.interpeval"; then
  pass "scale/literal_cpu"
else
  fail "scale/literal_cpu" "$(tail -c 300 "$OUT/literal_cpu.build" "$OUT/literal_cpu.out" 2>&1)"
fi

# the 20 000 statements as an executable, every unit compiled
src=$OUT/statements_20000.nesl
if run statements_cpu.build $STATEMENTS_CPU_LIMIT_S "$NESSIE" --no-cache --target=cpu -o "$OUT/statements_cpu" "$src" &&
   run statements_cpu.out $LIMIT_S "$OUT/statements_cpu" &&
   cmp -s "$OUT/statements_cpu.out" "$OUT/statements_20000.interpeval"; then
  pass "scale/statements_cpu"
else
  fail "scale/statements_cpu" "$(tail -c 300 "$OUT/statements_cpu.build" "$OUT/statements_cpu.out" 2>&1)"
fi
finish
