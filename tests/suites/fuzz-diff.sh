# fuzz-diff: 200 random NESL programs (tests/fuzz/gen_nesl.py, seeds 1 to
# 200: the same programs every run) through flat, lcu and lcu -O0, each
# transcript compared with eval's (tests/fuzz/diff.sh; CI has no CMU
# NESL, so eval is the reference here; `make fuzz-diff` compares with
# CMU NESL and runs the executables too).  One test a failing seed
# (fuzz-diff/SEED), and fuzz-diff/programs for the count.
. tests/suites/lib.sh
REF=eval JOBS=$JOBS sh tests/fuzz/diff.sh "$BUILD" "$OUT/programs" 1 200 flat lcu lcu-O0 > "$OUT/diff.log" 2>&1
sed -n 's/^fail \([0-9]*\):\(.*\)/\1 \2/p' "$OUT/programs/results" | sort -n | while read -r seed why; do
  fail "fuzz-diff/$seed" "$why (the program: $OUT/programs/$seed.nesl; reduce it with tests/fuzz/reduce.py)"
done
# subscripts under conditions on lengths (tests/fuzz/gen_bounds.py, seeds
# 1 to 30): flatten/bounds.c leaves out the checks of those the
# conditions keep in range, and one it took wrongly would read a zero
# where eval fails
for seed in $(seq 1 30); do
  python3 tests/fuzz/gen_bounds.py "$seed" > "$OUT/bounds$seed.nesl"
  r=$(REF=eval sh tests/fuzz/one.sh "$BUILD" "$OUT" "$OUT/bounds$seed.nesl" eval flat lcu 2>&1)
  case $r in
  "pass bounds$seed") pass "fuzz-diff/bounds$seed" ;;
  *) fail "fuzz-diff/bounds$seed" "$r" ;;
  esac
done
# seed 21041 once called a fuel loop with the largest int (found on the
# GPU, sixteenth session): every call to a loop now bounds its fuel, and
# a reference that runs out of time makes a reject, not a difference
r=$(REF=eval sh tests/fuzz/one.sh "$BUILD" "$OUT" 21041 eval lcu 2>&1)
case $r in
"pass 21041") pass "fuzz-diff/fuel-bounded" ;;
*) fail "fuzz-diff/fuel-bounded" "$r" ;;
esac
# 4*10^8 products: seconds of eval, where the limit is one (a recursion
# without end is no test: eval stops it with an error once its stack is
# spent, about 2 s in)
printf 'sum({sum({i * j : j in [0:20000]}) : i in [0:20000]});\n' > "$OUT/slow.nesl"
r=$(FUZZ_TIMEOUT=1 sh tests/fuzz/one.sh "$BUILD" "$OUT" "$OUT/slow.nesl" eval lcu 2>&1)
case $r in
"reject slow: eval: ran out of time (1 s)") pass "fuzz-diff/reference-out-of-time" ;;
*) fail "fuzz-diff/reference-out-of-time" "$r" ;;
esac
summary=$(tail -1 "$OUT/diff.log")
case $summary in
*" 0 failed"*) pass "fuzz-diff/programs ($summary)" ;;
*) fail "fuzz-diff/programs" "$summary" ;;
esac
finish
