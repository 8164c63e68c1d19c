# ast: --dump=ast round-trips on every corpus program and tests/ast:
# print, parse the print, print again gives the same text, and the
# reprinted program has the same types.
. tests/suites/lib.sh
for f in tests/programs/*.nesl tests/ast/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  a1=$OUT/$n.ast1.nesl; a2=$OUT/$n.ast2.nesl
  if ! "$NESSIE" --dump=ast "$f" > "$a1" 2> "$OUT/$n.ast.err"; then
    fail "ast/$n" "$(cat "$OUT/$n.ast.err")"; continue
  fi
  if ! "$NESSIE" --dump=ast "$a1" > "$a2" 2> "$OUT/$n.ast.err"; then
    fail "ast/$n" "reprinted program does not parse: $(cat "$OUT/$n.ast.err")"; continue
  fi
  if ! cmp -s "$a1" "$a2"; then
    fail "ast/$n" "$(diff "$a1" "$a2")"; continue
  fi
  "$NESSIE" --types "$f" > "$OUT/$n.t1" 2>&1; "$NESSIE" --types "$a1" > "$OUT/$n.t2" 2>&1
  if sed "s|$a1|$f|" "$OUT/$n.t2" | cmp -s "$OUT/$n.t1" -; then pass "ast/$n"
  else fail "ast/$n" "types differ after printing: $(diff "$OUT/$n.t1" "$OUT/$n.t2")"; fi
done
finish
