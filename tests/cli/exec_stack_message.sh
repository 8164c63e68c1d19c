# Issue 38, item 13: an executable whose recursion is too deep says so in
# its own words.  It said "the interpreter's stack is exhausted", which
# an executable is not; the message (shared with the flat interpreter,
# rt_check_stack) now names the stack and its size.  The statement stops
# with a run-time error on its line, and the exit status is 1.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function deep(n) = if n == 0 then 0 else 1 + deep(n - 1);\ndeep(100000000);\n' > "$tmp/deep.nesl"
NESSIE_CFLAGS=-O0 "$NESSIE" --target=cpu -o "$tmp/deep" "$tmp/deep.nesl" 2> "$tmp/err" || { echo "build: exit $?: $(cat "$tmp/err")"; exit 1; }
"$tmp/deep" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ "$rc" = 1 ] || { echo "exit $rc, expected 1: $(cat "$tmp/out" "$tmp/err")"; exit 1; }
grep -q "^error: $tmp/deep.nesl:2:1: recursion too deep: the stack ([0-9]* MiB) is exhausted" "$tmp/out" ||
  { echo "the executable says: $(cat "$tmp/out")"; exit 1; }
if grep -q interpreter "$tmp/out" "$tmp/err"; then echo "an executable calls itself an interpreter: $(cat "$tmp/out")"; exit 1; fi
exit 0
