# types: `nessie --types` on each corpus program (tests/programs) prints
# exactly the `= fn :` lines of its .expected (the NESL REPL's types).
. tests/suites/lib.sh
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
finish
