# fusion: random λcu programs (tests/fusion/gen_lcu.c; 300 here, `make
# random-fusion` runs thousands) print the same with fusion and without
# (tests/fusion/random.sh), and the shapes and counts fusion must reach
# (tests/fusion/check_*.sh, each one test).
. tests/suites/lib.sh
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
finish
