# The simplification before fusion on quicksort's level (the function
# quicksort^ of tests/flat/quicksort_100k.nesl): lowering runs seg_lengths
# of its sd parameter three times and computes constants such as `1 - 1`
# for each range; simplified, the level runs it once and computes no
# constant.
set -u
before=$("$NESSIE" --dump=lcu tests/flat/quicksort_100k.nesl | sed -n '/^function quicksort\^/,/^}/p')
after=$("$NESSIE" -O1 --check-ir --dump=fused tests/flat/quicksort_100k.nesl | sed -n '/^function quicksort\^/,/^}/p')
sd=$(printf '%s\n' "$before" | sed -n 's/^function quicksort\^ (\([a-z0-9_]*\) : sd.*/\1/p')
[ -n "$sd" ] || { echo "no sd parameter in quicksort^"; exit 1; }
lengths=$(printf '%s\n' "$before" | grep -c "= LIBRARY seg_lengths\|= run K[0-9]* ($sd)")
[ "$lengths" -ge 3 ] || { echo "the lowered level should repeat runs on $sd (the test's premise)"; exit 1; }
# (lowering computed `1 <= 0` for each range check before main's checks
# came in with the merge c1cb647; now it computes `1 - 1`)
printf '%s\n' "$before" | grep -qE ' = -?[0-9]+ (<|<=|>|>=|==|/=|\+|-|\*) -?[0-9]+ ' ||
  { echo "the lowered level should compute a constant such as 1 - 1 (the premise)"; exit 1; }
again=$(printf '%s\n' "$after" | grep "= run K[0-9]* ($sd)" | sed 's/.*= run //' | sort | uniq -d)
[ -z "$again" ] || { echo "simplified, the level still repeats: $again"; exit 1; }
printf '%s\n' "$after" | grep -qE ' = -?[0-9]+ (<|<=|>|>=|==|/=|\+|-|\*) -?[0-9]+ ' &&
  { echo "simplified, the level still computes a constant: $(printf '%s\n' "$after" | grep -E ' = -?[0-9]+ (<|<=) -?[0-9]+ ' | head -2)"; exit 1; }
exit 0
