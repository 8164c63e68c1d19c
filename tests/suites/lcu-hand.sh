# lcu-hand: hand-written λcu (tests/lcu/read/NAME.lcu) runs (IR checked)
# to NAME.expected, exit status 1 after a run-time error, and prints what
# reads back to the same text; or, with a NAME.err, is rejected (exit 1)
# with exactly those diagnostics.
. tests/suites/lib.sh
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
finish
