# Run-time errors of a program read back from its λcu text (`--dump=lcu`,
# then `--interp=lcu FILE.lcu`): each statement's error names the NESL
# file, line and column, as the program run from its NESL does, and no
# source line is shown (the text holds each statement alone, numbered
# from 1: showing its line 1 for the file's line 3 would be wrong).
# Before, every error after the first named its own message as the file
# (flat/flat_exec.c kept a Source past its block), and the caret stood
# under another statement's text.  Found by the differential test's
# lcu-text backend (tests/fuzz/one.sh).
set -u
case $NESSIE in /*) ;; *) NESSIE=$PWD/$NESSIE ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/p.nesl" <<'NESL'
{x + [1, 2, 3][#[1, 2, 3] + 3] : x in [1, 2]};
[1, 2][5];
"between";
{[1, 2][i] : i in [0, 5]};
{10 / (i - 1) : i in [0, 1, 2]};
NESL
"$NESSIE" --dump=lcu "$tmp/p.nesl" > "$tmp/p.lcu" || { echo "--dump=lcu failed"; exit 1; }
"$NESSIE" --interp=lcu "$tmp/p.nesl" > "$tmp/want" 2> "$tmp/want.err"
"$NESSIE" --interp=lcu "$tmp/p.lcu" > "$tmp/got" 2> "$tmp/got.err"
[ "$(grep -c '^error: .*p\.nesl:[0-9]*:[0-9]*: ' "$tmp/want")" = 4 ] ||
  { echo "the NESL run does not report four errors:"; cat "$tmp/want"; exit 1; }
cmp -s "$tmp/want" "$tmp/got" ||
  { echo "the λcu text's run differs:"; diff "$tmp/want" "$tmp/got"; exit 1; }
[ -s "$tmp/got.err" ] && { echo "source lines shown for λcu text:"; cat "$tmp/got.err"; exit 1; }
exit 0
