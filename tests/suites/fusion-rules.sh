# fusion-rules: one small hand-written λcu program per fusion rule of
# docs/fusion.md (MAP into each SOAC, FILTER-REDUCE, FILTER-FILTER,
# REDUCE-ONCE, their segmented forms, horizontal pairs) and per pair it
# must not fuse (PERMUTE-PERMUTE, FILTER-SCAN, preventing edges):
# `nessie --check-ir --dump=fused tests/fusion/rules/NAME.lcu` prints
# exactly NAME.fused, and the program prints the same with fusion and
# without (-O0).  Tests fusion-rules/NAME.  tests/fusion/rules/update.sh
# (or `make golden`) writes the .fused files again: read the diff.
. tests/suites/lib.sh
for f in tests/fusion/rules/*.lcu; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .lcu)
  want=${f%.lcu}.fused
  if ! "$NESSIE" --check-ir --dump=fused "$f" > "$OUT/$n.fused" 2> "$OUT/$n.err"; then
    fail "fusion-rules/$n" "--dump=fused failed: $(head -5 "$OUT/$n.err")"
  elif [ ! -f "$want" ]; then
    fail "fusion-rules/$n" "no $want (tests/fusion/rules/update.sh writes it)"
  elif ! cmp -s "$OUT/$n.fused" "$want"; then
    fail "fusion-rules/$n" "$(diff "$want" "$OUT/$n.fused")"
  else
    "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.O1" 2>&1
    rc1=$?
    "$NESSIE" --check-ir -O0 --interp=lcu "$f" > "$OUT/$n.O0" 2>&1
    rc0=$?
    if [ $rc0 -ne $rc1 ] || ! cmp -s "$OUT/$n.O0" "$OUT/$n.O1"; then
      fail "fusion-rules/$n" "fused, it prints otherwise (exit $rc1; -O0: $rc0): $(diff "$OUT/$n.O0" "$OUT/$n.O1")"
    else pass "fusion-rules/$n"; fi
  fi
done
finish
