# eval-own: our own evaluator tests (tests/eval/NAME.nesl): the
# evaluator prints NAME.expected, and the same output on two runs.
. tests/suites/lib.sh
for f in tests/eval/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  "$NESSIE" --interp=eval "$f" > "$OUT/$n.own1" 2>&1
  "$NESSIE" --interp=eval "$f" > "$OUT/$n.own2" 2>&1
  if ! cmp -s "$OUT/$n.own1" "$OUT/$n.own2"; then fail "eval-own/$n" "two runs print different output"
  elif d=$("$BUILD/nesl_compare" "$OUT/$n.own1" "tests/eval/$n.expected" 2>&1); then pass "eval-own/$n"
  else fail "eval-own/$n" "$d"; fi
done
finish
