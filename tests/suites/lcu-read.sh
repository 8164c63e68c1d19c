# lcu-read: the λcu dump is the syntax the reader reads: for every
# corpus program and every program of tests/flat, tests/lcu, tests/syntax
# and examples, --dump=lcu read back (checked) prints the same text.
# Tests lcu-read/NAME (corpus) and lcu-read/DIR-NAME.
. tests/suites/lib.sh
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
finish
