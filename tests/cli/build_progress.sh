# Issue 40 item 4: on a terminal, a build shows which unit is being
# compiled and how many are left, on one line written over with \r and
# cleared at the end; -v prints the commands instead; nothing when
# stderr is not a terminal.  The terminal is script(1)'s.
set -u
case $NESSIE in /*) ;; *) NESSIE=$PWD/$NESSIE ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v script > /dev/null || { echo "no script(1) (util-linux)"; exit 1; }
export NESSIE_CFLAGS=-O0
prog=$PWD/tests/programs/lib_permute.nesl # four units (split_build.sh)
units=$("$NESSIE" --dump=c "$prog" | grep -c '^/\* translation unit [0-9]* of ')
script -qec "'$NESSIE' --no-cache --target=cpu -o '$tmp/p' '$prog'" /dev/null < /dev/null > "$tmp/tty" 2>&1 ||
  { echo "the build on a terminal failed: $(cat "$tmp/tty")"; exit 1; }
# each state of the line, one a line
tr '\r' '\n' < "$tmp/tty" > "$tmp/lines"
grep -q "^nessie: compiling 1 of $units: the host functions and main ($units left)" "$tmp/lines" ||
  { echo "no line for the first unit: $(head -5 "$tmp/lines")"; exit 1; }
# (the last unit holds kernels, or their recording versions: codegen/cpu.c)
grep -Eq "^nessie: compiling $units of $units: (error paths of )?kernels K[0-9]+ to K[0-9]+ \(1 left\)" "$tmp/lines" ||
  { echo "no line for the last unit: $(cat "$tmp/lines")"; exit 1; }
grep -q "^nessie: linking" "$tmp/lines" || { echo "no line for the link: $(cat "$tmp/lines")"; exit 1; }
# cleared: the last state is blank, and no newline was written
[ -z "$(tail -n 1 "$tmp/lines" | tr -d ' ')" ] || { echo "the line was not cleared: $(tail -n 2 "$tmp/lines")"; exit 1; }
[ "$(wc -l < "$tmp/tty")" = 0 ] || { echo "the progress line wrote a newline: $(od -c "$tmp/tty" | tail -3)"; exit 1; }
"$tmp/p" > "$tmp/out" 2>&1
grep -v ' = fn : ' tests/programs/lib_permute.expected | cmp -s - "$tmp/out" || { echo "the executable prints something else"; exit 1; }
# -v on a terminal: the commands, no progress line
script -qec "'$NESSIE' -v --no-cache --target=cpu -o '$tmp/p' '$prog'" /dev/null < /dev/null > "$tmp/tty-v" 2>&1 ||
  { echo "the -v build on a terminal failed"; exit 1; }
! grep -q 'nessie: compiling' "$tmp/tty-v" || { echo "-v showed the progress line"; exit 1; }
[ "$(grep -c ' -c ' "$tmp/tty-v")" = "$units" ] || { echo "-v did not print the $units commands: $(cat "$tmp/tty-v")"; exit 1; }
# not a terminal: quiet
"$NESSIE" --no-cache --target=cpu -o "$tmp/p" "$prog" 2> "$tmp/err" || { echo "the build failed: $(cat "$tmp/err")"; exit 1; }
[ ! -s "$tmp/err" ] || { echo "not on a terminal, the build said: $(cat "$tmp/err")"; exit 1; }
exit 0
