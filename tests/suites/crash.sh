# crash: inputs that once crashed or hung the front end
# (tests/fuzz/crashes/*): every mode exits with 0 or 1 within 60 seconds,
# and what --dump=ast prints of them round-trips.
. tests/suites/lib.sh
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
finish
