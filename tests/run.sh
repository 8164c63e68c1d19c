#!/bin/sh
# tests/run.sh BUILD: runs every test of nessie against the binary in
# BUILD/nessie and prints one line per test, then `N passed, M failed`.
# Exit status 1 if any test failed.
#
#   unit        BUILD/tests/test_* (cmocka)
#   sync        tests/programs and tests/errors equal ../shared/corpus
#   types       --types on each corpus program prints the `= fn :` lines
#               of its .expected
#   ast         --dump=ast round-trips: print, parse, print again gives the
#               same text, and the reprinted program has the same types
#   errors      each corpus error program fails at compile time on the line
#               its header names (syntax, type) or type checks (runtime, none)
#   diag        tests/diagnostics/NAME.nesl gives exactly NAME.err on stderr
#   lcu-read    every corpus program's --dump=lcu reads back to the same text,
#               and that of every program of tests/flat, tests/lcu,
#               tests/syntax and examples
#   lcu-golden  tests/lcu/golden/NAME.lcu is NAME's dump, reads back, runs
#   lcu-hand    hand-written λcu (tests/lcu/read) runs or is rejected as expected
#   lcu, lcu-O0 the λcu interpreter with fusion (the default) and without
#   fusion      fused and unfused runs of random λcu programs agree
#               (tests/fusion/random.sh); tests/fusion/check_*.sh
#   examples    examples/NAME.nesl prints NAME.expected under every
#               interpreter (and as an executable: tests/exec/check.sh)
#   docs        the dumps docs/tour.md and examples/*.md quote are the
#               compiler's output (tests/docs/check.sh)
#   repl        tests/repl/NAME.in piped gives NAME.out and NAME.err;
#               tests/repl/*.sh drive it otherwise (terminal.sh: tmux)
#   cli         tests/cli/*.sh: the command line (exit statuses, limits)
set -u
BUILD=${1:-build}
NESSIE=$BUILD/nessie
OUT=$BUILD/test-out
rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
failed=0
failures=""

pass() { passed=$((passed + 1)); echo "[PASS] $1"; }
fail() {
  failed=$((failed + 1)); echo "[FAIL] $1"
  failures="$failures $1"
  [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /' | head -20
  return 0
}

# ---- unit tests ----
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  name=unit/$(basename "$t")
  if "$t" > "$OUT/$(basename "$t").log" 2>&1; then pass "$name"
  else fail "$name" "$(tail -20 "$OUT/$(basename "$t").log")"; fi
done

# ---- the corpus copy is in sync with ../shared/corpus ----
if [ -d ../shared/corpus ]; then
  if d=$(diff -r -q ../shared/corpus tests/programs 2>&1 | grep -v '^Only in tests/programs' | grep -v "^Only in ../shared/corpus: errors"); [ -z "$d" ] &&
     d2=$(diff -r -q ../shared/corpus/errors tests/errors 2>&1) && [ -z "$d2" ]; then
    pass sync/corpus
  else
    fail sync/corpus "$d ${d2:-} (run 'make sync-corpus')"
  fi
fi

# ---- --types on the corpus ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  grep '= fn :' "tests/programs/$n.expected" > "$OUT/$n.types.expected"
  if "$NESSIE" --types "$f" > "$OUT/$n.types" 2> "$OUT/$n.types.err" &&
     cmp -s "$OUT/$n.types" "$OUT/$n.types.expected"; then
    pass "types/$n"
  else
    fail "types/$n" "$(diff "$OUT/$n.types.expected" "$OUT/$n.types"; cat "$OUT/$n.types.err")"
  fi
done

# ---- --dump=ast round trip ----
for f in tests/programs/*.nesl tests/ast/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  a1=$OUT/$n.ast1.nesl; a2=$OUT/$n.ast2.nesl
  if ! "$NESSIE" --dump=ast "$f" > "$a1" 2> "$OUT/$n.ast.err"; then
    fail "ast/$n" "$(cat "$OUT/$n.ast.err")"; continue
  fi
  if ! "$NESSIE" --dump=ast "$a1" > "$a2" 2> "$OUT/$n.ast.err"; then
    fail "ast/$n" "reprinted program does not parse: $(cat "$OUT/$n.ast.err")"; continue
  fi
  if ! cmp -s "$a1" "$a2"; then
    fail "ast/$n" "$(diff "$a1" "$a2")"; continue
  fi
  "$NESSIE" --types "$f" > "$OUT/$n.t1" 2>&1; "$NESSIE" --types "$a1" > "$OUT/$n.t2" 2>&1
  if sed "s|$a1|$f|" "$OUT/$n.t2" | cmp -s "$OUT/$n.t1" -; then pass "ast/$n"
  else fail "ast/$n" "types differ after printing: $(diff "$OUT/$n.t1" "$OUT/$n.t2")"; fi
done

# ---- the evaluator reproduces the reference output ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  if "$NESSIE" --interp=eval "$f" > "$OUT/$n.eval" 2> "$OUT/$n.eval.err" &&
     d=$("$BUILD/nesl_compare" "$OUT/$n.eval" "tests/programs/$n.expected" 2>&1); then
    pass "eval/$n"
  else
    fail "eval/$n" "${d:-}$(head -5 "$OUT/$n.eval.err")"
  fi
done

# ---- the flat interpreter reproduces the reference output (IR checked) ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  if "$NESSIE" --check-ir --interp=flat "$f" > "$OUT/$n.flat" 2> "$OUT/$n.flat.err" &&
     d=$("$BUILD/nesl_compare" "$OUT/$n.flat" "tests/programs/$n.expected" 2>&1); then
    pass "flat/$n"
  else
    fail "flat/$n" "${d:-}$(head -5 "$OUT/$n.flat.err")"
  fi
done

# ---- the λcu interpreter reproduces the reference output (IR checked) ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  if "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.lcu" 2> "$OUT/$n.lcu.err" &&
     d=$("$BUILD/nesl_compare" "$OUT/$n.lcu" "tests/programs/$n.expected" 2>&1); then
    pass "lcu/$n"
  else
    fail "lcu/$n" "${d:-}$(head -5 "$OUT/$n.lcu.err")"
  fi
done

# ---- ... and without fusion (-O0): the IR as lowering makes it ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  if "$NESSIE" -O0 --check-ir --interp=lcu "$f" > "$OUT/$n.lcu0" 2> "$OUT/$n.lcu0.err" &&
     d=$("$BUILD/nesl_compare" "$OUT/$n.lcu0" "tests/programs/$n.expected" 2>&1); then
    pass "lcu-O0/$n"
  else
    fail "lcu-O0/$n" "${d:-}$(head -5 "$OUT/$n.lcu0.err")"
  fi
done

# ---- fusion: random λcu programs run with fusion and without print the
# same (tests/fusion/gen_lcu.c writes them; `make random-fusion` runs
# thousands), and the shapes and counts fusion must reach ----
if d=$(sh tests/fusion/random.sh "$NESSIE" "$BUILD/gen_lcu" "$OUT/random" 300 2>&1); then
  pass "fusion/random ($(printf '%s' "$d" | tail -1))"
else
  fail "fusion/random" "$d"
fi
for t in tests/fusion/check_*.sh; do
  [ -f "$t" ] || continue
  n=$(basename "$t" .sh)
  if o=$(NESSIE="$NESSIE" sh "$t" 2>&1); then pass "fusion/$n"; else fail "fusion/$n" "$o"; fi
done

# ---- flattening's and λcu's own cases, and the syntax of NESL programs
# that CMU NESL 3.1 accepts (tests/syntax): every interpreter ----
for f in tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  dir=$(dirname "$f")
  ok=true
  for interp in eval flat lcu; do
    "$NESSIE" --check-ir --interp=$interp "$f" > "$OUT/$n.$interp.own" 2>&1
    if ! d=$("$BUILD/nesl_compare" "$OUT/$n.$interp.own" "$dir/$n.expected" 2>&1); then
      ok=false; fail "$(basename "$dir")-own/$n ($interp)" "$d"; break
    fi
  done
  $ok && pass "$(basename "$dir")-own/$n"
done
# ---- the teaching examples (examples/NAME.nesl): every interpreter, and
# λcu's without fusion, prints examples/NAME.expected (IR checked); the
# CPU executables are tests/exec/check.sh's ----
for f in examples/*.nesl; do
  n=$(basename "$f" .nesl)
  ok=true
  for mode in eval flat lcu lcu-O0; do
    case $mode in lcu-O0) opts="-O0 --interp=lcu" ;; *) opts="--interp=$mode" ;; esac
    # shellcheck disable=SC2086
    "$NESSIE" --check-ir $opts "$f" > "$OUT/$n.example.$mode" 2> "$OUT/$n.example.$mode.err"
    if ! d=$("$BUILD/nesl_compare" "$OUT/$n.example.$mode" "examples/$n.expected" 2>&1); then
      ok=false; fail "examples/$n ($mode)" "$d$(head -5 "$OUT/$n.example.$mode.err")"; break
    fi
  done
  $ok && pass "examples/$n"
done

# ---- the dumps the documentation quotes (docs/tour.md, examples/*.md)
# are what the compiler prints (tests/docs/check.sh) ----
sh tests/docs/check.sh "$BUILD" docs/tour.md examples/*.md > "$OUT/docs.log" 2>&1
grep -v '^\[PASS\]' "$OUT/docs.log"
for n in $(sed -n 's/^\[PASS\] \([^ ]*\).*/\1/p' "$OUT/docs.log"); do pass "$n"; done
for n in $(sed -n 's/^\[FAIL\] \([^ ]*\).*/\1/p' "$OUT/docs.log"); do failed=$((failed + 1)); failures="$failures $n"; done

# quicksort on 100 000 keys: O(log n) host recursion, a constant number of
# vector operations per level
stats=$("$NESSIE" --interp=flat --stats tests/flat/quicksort_100k.nesl 2>&1 >/dev/null)
depth=$(printf '%s' "$stats" | sed -n 's/.*recursion depth \([0-9]*\).*/\1/p')
ops=$(printf '%s' "$stats" | sed -n 's/.* \([0-9]*\) vector operations.*/\1/p')
if [ -n "$depth" ] && [ "$depth" -le 68 ] && [ -n "$ops" ] && [ $((ops / depth)) -le 400 ]; then
  pass "flat-stats/quicksort_100k ($stats)"
else
  fail "flat-stats/quicksort_100k" "expected depth <= 68 (4 log2 n) and <= 400 operations per level: $stats"
fi

# a sequence literal of 100 000 elements: read in linear time, the same
# under every interpreter, each within 30 seconds
awk 'BEGIN { printf "xs = ["; for (i = 0; i < 100000; i++) printf "%s%d", (i ? ", " : ""), (i * 7919) % 2001 - 1000;
             print "];"; print "#xs;"; print "sum(xs);"; print "xs[99999];" }' > "$OUT/literal_100k.nesl"
ok=true
for interp in eval flat lcu; do
  if ! timeout 30 "$NESSIE" --interp=$interp "$OUT/literal_100k.nesl" > "$OUT/literal_100k.$interp" 2>&1; then
    ok=false; fail "syntax-own/literal_100k ($interp)" "$(tail -3 "$OUT/literal_100k.$interp")"; break
  fi
done
if $ok && cmp -s "$OUT/literal_100k.eval" "$OUT/literal_100k.flat" && cmp -s "$OUT/literal_100k.eval" "$OUT/literal_100k.lcu" &&
   tail -3 "$OUT/literal_100k.eval" | tr '\n' ' ' | grep -q "^it = 100000 : int it = 1655 : int it = -667 : int $"; then
  pass "syntax-own/literal_100k"
elif $ok; then fail "syntax-own/literal_100k" "$(tail -3 "$OUT/literal_100k.eval")"; fi

# ---- our own evaluator tests: expected output, and the same output twice ----
for f in tests/eval/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  "$NESSIE" --interp=eval "$f" > "$OUT/$n.own1" 2>&1
  "$NESSIE" --interp=eval "$f" > "$OUT/$n.own2" 2>&1
  if ! cmp -s "$OUT/$n.own1" "$OUT/$n.own2"; then fail "eval-own/$n" "two runs print different output"
  elif d=$("$BUILD/nesl_compare" "$OUT/$n.own1" "tests/eval/$n.expected" 2>&1); then pass "eval-own/$n"
  else fail "eval-own/$n" "$d"; fi
done

# ---- error programs ----
for f in tests/errors/*.nesl; do
  n=$(basename "$f" .nesl)
  set -- $(head -1 "$f")
  kind=$3; line=$4
  "$NESSIE" --types "$f" > "$OUT/$n.out" 2> "$OUT/$n.err"
  rc=$?
  first=$(grep -m1 ': error: ' "$OUT/$n.err")
  got=$(printf '%s' "$first" | sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: error: .*/\1/p')
  case $kind in
  syntax|type)
    if [ $rc -ne 1 ]; then fail "errors/$n" "exit status $rc, expected 1"
    elif [ "$got" != "$line" ]; then fail "errors/$n" "first error on line '$got', expected $line: $first"
    elif [ -s "$OUT/$n.out" ]; then fail "errors/$n" "printed output: $(cat "$OUT/$n.out")"
    elif [ "$kind" = type ] && [ "$n" != type_t_as_variable ] &&
         printf '%s' "$first" | grep -q 'syntax error'; then fail "errors/$n" "a type error reported as a syntax error: $first"
    else pass "errors/$n"; fi ;;
  runtime|none)
    if [ $rc -ne 0 ]; then fail "errors/$n" "does not type check: $(cat "$OUT/$n.err")"; continue; fi
    # --interp exits 1 after a statement stopped with a run-time error
    want=0; [ "$kind" = runtime ] && want=1
    "$NESSIE" --interp=eval "$f" > "$OUT/$n.eval" 2> "$OUT/$n.eval.err"
    rc=$?
    if [ $rc -ne $want ]; then fail "errors/$n" "--interp=eval exit $rc, expected $want: $(head -5 "$OUT/$n.eval.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.eval" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "$d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.eval" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "the error is not reported on line $line: $(tail -1 "$OUT/$n.eval")"
    elif "$NESSIE" --check-ir --interp=flat "$f" > "$OUT/$n.flat" 2> "$OUT/$n.flat.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=flat: $(head -5 "$OUT/$n.flat.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.flat" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "flat: $d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.flat" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "flat: the error is not reported on line $line: $(tail -1 "$OUT/$n.flat")"
    elif "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.lcu" 2> "$OUT/$n.lcu.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=lcu: $(head -5 "$OUT/$n.lcu.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.lcu" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "lcu: $d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.lcu" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "lcu: the error is not reported on line $line: $(tail -1 "$OUT/$n.lcu")"
    elif "$NESSIE" -O0 --check-ir --interp=lcu "$f" > "$OUT/$n.lcu0" 2> "$OUT/$n.lcu0.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=lcu -O0: $(head -5 "$OUT/$n.lcu0.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.lcu0" "tests/errors/$n.expected" 2>&1); then
      fail "errors/$n" "lcu -O0: $d"
    else pass "errors/$n"; fi ;;
  *) fail "errors/$n" "bad header: $kind" ;;
  esac
done

# ---- diagnostics golden files ----
for f in tests/diagnostics/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  (cd tests/diagnostics && "../../$NESSIE" --types "$n.nesl" > /dev/null 2> "../../$OUT/$n.diag")
  rc=$?
  if [ $rc -ne 1 ]; then fail "diag/$n" "exit status $rc, expected 1"
  elif cmp -s "$OUT/$n.diag" "tests/diagnostics/$n.err"; then pass "diag/$n"
  else fail "diag/$n" "$(diff "tests/diagnostics/$n.err" "$OUT/$n.diag")"; fi
done

# ---- the REPL, driven through a pipe ----
for f in tests/repl/*.in; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .in)
  "$NESSIE" < "$f" > "$OUT/$n.repl.out" 2> "$OUT/$n.repl.err"
  if cmp -s "$OUT/$n.repl.out" "tests/repl/$n.out" && cmp -s "$OUT/$n.repl.err" "tests/repl/$n.err"; then
    pass "repl/$n"
  else
    fail "repl/$n" "$(diff "tests/repl/$n.out" "$OUT/$n.repl.out"; diff "tests/repl/$n.err" "$OUT/$n.repl.err")"
  fi
done

# ---- the REPL on a terminal (tmux) and other scripted sessions ----
for t in tests/repl/*.sh; do
  [ -f "$t" ] || continue
  n=$(basename "$t" .sh)
  if o=$(NESSIE="$NESSIE" sh "$t" 2>&1); then pass "repl/$n"; else fail "repl/$n" "$o"; fi
done

# ---- inputs that once crashed or hung the front end (tests/fuzz/crashes) ----
for f in tests/fuzz/crashes/*; do
  [ -f "$f" ] || continue
  n=$(basename "$f")
  ok=true
  for mode in --types --dump=ast --interp --interp=flat --interp=lcu; do
    timeout 60 "$NESSIE" $mode "$f" > /dev/null 2>&1
    rc=$?
    [ $rc -le 1 ] || { ok=false; fail "crash/$n" "$mode: exit status $rc"; break; }
  done
  if $ok && "$NESSIE" --dump=ast "$f" > "$OUT/$n.ast1" 2>/dev/null; then
    cp "$OUT/$n.ast1" "$OUT/$n.ast1.nesl"
    "$NESSIE" --dump=ast "$OUT/$n.ast1.nesl" > "$OUT/$n.ast2" 2>/dev/null
    cmp -s "$OUT/$n.ast1" "$OUT/$n.ast2" || { ok=false; fail "crash/$n" "--dump=ast does not round-trip"; }
  fi
  $ok && pass "crash/$n"
done

# ---- λcu read back: the dump is the syntax the reader reads ----
# every corpus program: print, read, print again gives the same text
for f in tests/programs/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl examples/*.nesl; do
  n=$(basename "$f" .nesl)
  case $f in tests/programs/*) ;; *) n=$(basename "$(dirname "$f")")-$n ;; esac
  if ! "$NESSIE" --dump=lcu "$f" > "$OUT/$n.rt1.lcu" 2> "$OUT/$n.rt.err"; then
    fail "lcu-read/$n" "$(head -5 "$OUT/$n.rt.err")"
  elif ! "$NESSIE" --check-ir --dump=lcu "$OUT/$n.rt1.lcu" > "$OUT/$n.rt2.lcu" 2> "$OUT/$n.rt.err"; then
    fail "lcu-read/$n" "the dump does not read back: $(head -5 "$OUT/$n.rt.err")"
  elif ! cmp -s "$OUT/$n.rt1.lcu" "$OUT/$n.rt2.lcu"; then
    fail "lcu-read/$n" "$(diff "$OUT/$n.rt1.lcu" "$OUT/$n.rt2.lcu" | head -10)"
  else pass "lcu-read/$n"; fi
done
# golden dumps (tests/lcu/golden/update.sh writes them): the dump is the
# golden file, which reads back to itself and runs to the program's output
for g in tests/lcu/golden/*.lcu; do
  [ -f "$g" ] || continue
  n=$(basename "$g" .lcu)
  src=tests/programs/$n.nesl
  [ -f "$src" ] || src=tests/lcu/$n.nesl
  if ! "$NESSIE" --dump=lcu "$src" > "$OUT/$n.golden.lcu" 2>&1 || ! cmp -s "$OUT/$n.golden.lcu" "$g"; then
    fail "lcu-golden/$n" "the dump differs (tests/lcu/golden/update.sh regenerates): $(diff "$g" "$OUT/$n.golden.lcu" | head -10)"
  elif ! "$NESSIE" --dump=lcu "$g" > "$OUT/$n.golden2.lcu" 2>&1 || ! cmp -s "$OUT/$n.golden2.lcu" "$g"; then
    fail "lcu-golden/$n" "read back, it prints otherwise: $(diff "$g" "$OUT/$n.golden2.lcu" | head -10)"
  elif ! "$NESSIE" --check-ir --interp=lcu "$g" > "$OUT/$n.golden.out" 2>&1 ||
       ! d=$("$BUILD/nesl_compare" "$OUT/$n.golden.out" "${src%.nesl}.expected" 2>&1); then
    fail "lcu-golden/$n" "run: ${d:-}$(head -5 "$OUT/$n.golden.out")"
  else pass "lcu-golden/$n"; fi
done
# hand-written λcu (tests/lcu/read): NAME.lcu runs to NAME.expected and
# prints what reads back to the same text, or is rejected with exactly
# the diagnostics of NAME.err
for f in tests/lcu/read/*.lcu; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .lcu)
  d=tests/lcu/read
  if [ -f "$d/$n.err" ]; then
    "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.read.out" 2> "$OUT/$n.read.err"
    rc=$?
    if [ $rc -ne 1 ]; then fail "lcu-hand/$n" "exit status $rc, expected 1"
    elif cmp -s "$OUT/$n.read.err" "$d/$n.err"; then pass "lcu-hand/$n"
    else fail "lcu-hand/$n" "$(diff "$d/$n.err" "$OUT/$n.read.err")"; fi
  elif "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.read.out" 2> "$OUT/$n.read.stderr"; rc=$?
       ! cmp -s "$OUT/$n.read.out" "$d/$n.expected"; then
    fail "lcu-hand/$n" "$(diff "$d/$n.expected" "$OUT/$n.read.out"; head -5 "$OUT/$n.read.stderr")"
  elif [ $rc -ne "$(grep -q '^error:' "$d/$n.expected" && echo 1 || echo 0)" ]; then
    fail "lcu-hand/$n" "exit status $rc (1 is for a run-time error, 0 for none)"
  elif ! "$NESSIE" --dump=lcu "$f" > "$OUT/$n.read1.lcu" 2>&1 ||
       ! "$NESSIE" --dump=lcu "$OUT/$n.read1.lcu" > "$OUT/$n.read2.lcu" 2>&1 ||
       ! cmp -s "$OUT/$n.read1.lcu" "$OUT/$n.read2.lcu"; then
    fail "lcu-hand/$n" "printed, it does not read back to the same text: $(diff "$OUT/$n.read1.lcu" "$OUT/$n.read2.lcu" | head -10)"
  else pass "lcu-hand/$n"; fi
done

# ---- command line, and λcu's shape checks ----
for t in tests/cli/*.sh tests/lcu/*.sh; do
  [ -f "$t" ] || continue
  n=$(basename "$t" .sh)
  if o=$(NESSIE="$NESSIE" sh "$t" 2>&1); then pass "cli/$n"; else fail "cli/$n" "$o"; fi
done

# ---- executables of the CPU target: the corpus, the runtime-error
# programs and our own cases, built in parallel, run, compared as the
# interpreters' transcripts are (tests/exec/check.sh) ----
sh tests/exec/check.sh cpu "$BUILD" "$OUT/cpu" > "$OUT/cpu.log" 2>&1
grep -v '^[0-9]* passed, [0-9]* failed$' "$OUT/cpu.log"
for n in $(sed -n 's/^\[PASS\] \([^ ]*\).*/\1/p' "$OUT/cpu.log"); do passed=$((passed + 1)); done
for n in $(sed -n 's/^\[FAIL\] //p' "$OUT/cpu.log"); do failed=$((failed + 1)); failures="$failures $n"; done

# ---- the CPU executables print the same on one thread as on two: the
# reductions and scans cut the work into fixed chunks, not per thread ----
for f in tests/programs/*.nesl; do
  n=$(basename "$f" .nesl)
  [ -x "$OUT/cpu/$n" ] || continue
  OMP_NUM_THREADS=1 timeout 300 "$OUT/cpu/$n" > "$OUT/cpu/$n.omp1" 2>&1
  OMP_NUM_THREADS=2 timeout 300 "$OUT/cpu/$n" > "$OUT/cpu/$n.omp2" 2>&1
  if cmp -s "$OUT/cpu/$n.omp1" "$OUT/cpu/$n.omp2"; then pass "omp-threads/$n"
  else fail "omp-threads/$n" "$(diff "$OUT/cpu/$n.omp1" "$OUT/cpu/$n.omp2" | head -6)"; fi
done

# ---- the CUDA target, where nvcc is found (CI has it, without a GPU):
# every program of the CPU section compiles and links with nvcc; running
# them is tests/gpu/run.sh's, on a GPU (make gpu-test) ----
if [ -f "$BUILD/lib/nessie/libnessie_rt_cuda.a" ]; then
  progs=""
  for f in tests/programs/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl tests/errors/*.nesl examples/*.nesl; do
    [ -f "$f" ] || continue
    set -- $(head -1 "$f")
    case $f in tests/errors/*) case $3 in runtime|none) ;; *) continue ;; esac ;; esac
    progs="$progs $f"
  done
  TARGET=cuda NESSIE_NVCCFLAGS=${NESSIE_NVCCFLAGS:-"-O0 -Xcompiler -O0 -Xptxas -O0"} sh tests/cpu/build_all.sh "$NESSIE" "$OUT/cuda" $progs
  for f in $progs; do
    n=$(basename "$f" .nesl)
    if [ -x "$OUT/cuda/$n" ]; then pass "cuda-build/$n"
    else fail "cuda-build/$n" "$(head -8 "$OUT/cuda/$n.build")"; fi
  done
fi

# ---- compilation is deterministic: every dump stage of every program,
# five runs, the last two with the collector forced to run often ----
d=$(sh tests/determinism/run.sh "$NESSIE" "$OUT/determinism" 5)
if [ -z "$d" ]; then pass "determinism/every-stage (5 runs, 2 under forced collections)"
else fail "determinism/every-stage" "$d"; fi

# ---- no sanitizer report anywhere (make test-asan) ----
reports=$(grep -l -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$OUT"/* 2>/dev/null)
if [ -n "$reports" ]; then fail "sanitizers" "reports in: $reports"; fi

echo
[ $failed -gt 0 ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
