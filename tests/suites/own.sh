# own: flattening's and λcu's own cases (tests/flat, tests/lcu) and the
# syntax of NESL programs that CMU NESL 3.1 accepts (tests/syntax): every
# interpreter prints NAME.expected (IR checked); tests DIR-own/NAME.
# Then two checks of size: quicksort on 100 000 keys under the flat
# interpreter takes O(log n) host recursion and a constant number of
# vector operations per level (flat-stats/quicksort_100k), and a
# sequence literal of 100 000 elements is read in linear time, the same
# under every interpreter, each within 30 seconds (syntax-own/literal_100k).
. tests/suites/lib.sh
for f in tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  dir=$(dirname "$f")
  ok=true
  for interp in eval flat lcu; do
    # the transcript is stdout: a run-time error's source line and caret
    # go to stderr, as NESL's transcript has only the error line
    "$NESSIE" --check-ir --interp=$interp "$f" > "$OUT/$n.$interp.own" 2> "$OUT/$n.$interp.err"
    if ! d=$("$BUILD/nesl_compare" "$OUT/$n.$interp.own" "$dir/$n.expected" 2>&1); then
      ok=false; fail "$(basename "$dir")-own/$n ($interp)" "$d$(head -5 "$OUT/$n.$interp.err")"; break
    fi
  done
  $ok && pass "$(basename "$dir")-own/$n"
done

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
finish
