# Issue 38, item 13: `nessie < prog.nesl` names the lines as a compiler
# does.  Its messages once said `<input 2>:1:1` (the second statement,
# its first line) where `nessie --interp prog.nesl` says prog.nesl:4:7;
# with no file name, they now say `<stdin>:4:7`, as gcc does, and show
# the same source line: the same messages but for the name, a compile
# error's and run-time errors' (in a function, in a statement over
# several lines), under each interpreter.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'x = [1, 2];\n\n%% a comment %%\ny = 1 +\n  T;\n' > "$tmp/type.nesl"
"$NESSIE" --interp "$tmp/type.nesl" 2>&1 >/dev/null | sed "s|^$tmp/type.nesl:|<stdin>:|" > "$tmp/want"
"$NESSIE" < "$tmp/type.nesl" 2> "$tmp/got" > /dev/null
grep -q '^<stdin>:4:7: error: ' "$tmp/got" && cmp -s "$tmp/want" "$tmp/got" ||
  { echo "a type error through a pipe:"; diff "$tmp/want" "$tmp/got"; exit 1; }
# a first line left blank for the `:set interp` line of the pipe
printf '\nx = [1, 2];\nfunction g(a) =\n  a[5];\n\ng(x);\nlet b = x\n in b[7];\n' > "$tmp/rt.nesl"
for e in eval flat lcu; do
  "$NESSIE" --interp=$e "$tmp/rt.nesl" > "$tmp/want" 2>&1
  sed -i "s|$tmp/rt.nesl:|<stdin>:|" "$tmp/want"
  { echo ":set interp $e"; sed 1d "$tmp/rt.nesl"; } | "$NESSIE" 2>&1 | sed 1d > "$tmp/got"
  grep -q '^error: <stdin>:8:6: subscript 7' "$tmp/got" && cmp -s "$tmp/want" "$tmp/got" ||
    { echo "run-time errors through a pipe under $e:"; diff "$tmp/want" "$tmp/got"; exit 1; }
done
exit 0
