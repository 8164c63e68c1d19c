# repl: the REPL driven through a pipe (tests/repl/NAME.in gives exactly
# NAME.out and NAME.err), and scripted sessions (tests/repl/NAME.sh, each
# one test; terminal.sh types at it on a terminal through tmux).
. tests/suites/lib.sh
for f in tests/repl/*.in; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .in)
  "$NESSIE" < "$f" > "$OUT/$n.repl.out" 2> "$OUT/$n.repl.err"
  if cmp -s "$OUT/$n.repl.out" "tests/repl/$n.out" && cmp -s "$OUT/$n.repl.err" "tests/repl/$n.err"; then
    pass "repl/$n"
  else
    fail "repl/$n" "$(diff "tests/repl/$n.out" "$OUT/$n.repl.out"; diff "tests/repl/$n.err" "$OUT/$n.repl.err")"
  fi
done
for t in tests/repl/*.sh; do
  [ -f "$t" ] || continue
  n=$(basename "$t" .sh)
  if o=$(NESSIE="$NESSIE" sh "$t" 2>&1); then pass "repl/$n"; else fail "repl/$n" "$o"; fi
done
finish
