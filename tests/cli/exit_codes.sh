# Exit statuses, README.md's table: 0 success; 1 the program has errors
# (compile errors, or under --interp a statement that stopped with a
# run-time error); 2 bad usage; 3 the input file cannot be read; 4 out of
# memory while compiling.
set -u
check() { # expected-status description command...
  want=$1; what=$2; shift 2
  "$@" > /dev/null 2>&1; got=$?
  [ "$got" = "$want" ] || { echo "$what: exit $got, expected $want ($*)"; exit 1; }
}
# the message on stderr of a command that must fail with 'want'
message() { # expected-status description pattern command...
  want=$1; what=$2; pattern=$3; shift 3
  err=$("$@" 2>&1 >/dev/null < /dev/null); got=$?
  [ "$got" = "$want" ] || { echo "$what: exit $got, expected $want ($*)"; exit 1; }
  printf '%s' "$err" | grep -q -- "$pattern" || { echo "$what: no '$pattern' in: $err"; exit 1; }
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/ok.nesl"
printf 'x = 1 +;\n' > "$tmp/bad.nesl"
check 0 "--help" "$NESSIE" --help
check 0 "--version" "$NESSIE" --version
check 0 "--types" "$NESSIE" --types "$tmp/ok.nesl"
check 0 "--dump=ast" "$NESSIE" --dump=ast "$tmp/ok.nesl"
check 0 "--dump=typed" "$NESSIE" --dump=typed "$tmp/ok.nesl"
check 1 "syntax error" "$NESSIE" --types "$tmp/bad.nesl"
check 2 "unknown option" "$NESSIE" --frobnicate "$tmp/ok.nesl"
check 2 "unknown stage" "$NESSIE" --dump=nothing "$tmp/ok.nesl"
check 2 "missing --dump argument" "$NESSIE" "$tmp/ok.nesl" --dump
check 2 "two files" "$NESSIE" --types "$tmp/ok.nesl" "$tmp/ok.nesl"
# compiling (the default mode) makes an executable that runs the program
check 0 "compiling to an executable" "$NESSIE" --target=cpu -o "$tmp/ok" "$tmp/ok.nesl"
[ "$("$tmp/ok")" = "it = 9 : int" ] || { echo "the executable prints: $("$tmp/ok" 2>&1)"; exit 1; }
check 1 "compiling a program with errors" "$NESSIE" -o "$tmp/bad" "$tmp/bad.nesl"
message 2 "a build option with another mode" "-o is for compiling" "$NESSIE" -o "$tmp/x" --types "$tmp/ok.nesl"
message 2 "a build option in the REPL" "--keep is for compiling" "$NESSIE" --keep
message 2 "a build option with -i" "-v is for compiling" "$NESSIE" -v -i "$tmp/ok.nesl"
message 2 "an unknown target" "unknown target 'gpu'" "$NESSIE" --target=gpu "$tmp/ok.nesl"

# a file that cannot be read: 3, with the reason
message 3 "missing file" "cannot read '$tmp/none.nesl': No such file or directory" "$NESSIE" --types "$tmp/none.nesl"
message 3 "a directory" "cannot read '$tmp': Is a directory" "$NESSIE" --interp "$tmp"
message 3 "a directory, no mode" "Is a directory" "$NESSIE" "$tmp"

# a mode that reads a program needs a FILE; '-' is standard input
message 2 "--types without a file" "--types needs a FILE" "$NESSIE" --types
message 2 "--dump without a file" "--dump needs a FILE" "$NESSIE" --dump=ast
message 2 "--interp=lcu without a file" "--interp needs a FILE" "$NESSIE" --interp=lcu
message 2 "--interp=lcu --stats without a file" "--interp needs a FILE" "$NESSIE" --interp=lcu --stats
out=$("$NESSIE" --interp=lcu --stats - < "$tmp/ok.nesl" 2> "$tmp/stats") ||
  { echo "--interp=lcu --stats -: exit $?"; exit 1; }
[ "$out" = "$(printf 'sqr = fn : a -> a :: (a in number)\nit = 9 : int')" ] || { echo "--interp=lcu -: $out"; exit 1; }
grep -q '^stats: [0-9]* kernels, [0-9]* runs, [0-9]* elements, [0-9]* bytes$' "$tmp/stats" ||
  { echo "--interp=lcu --stats - prints the wrong stats: $(cat "$tmp/stats")"; exit 1; }
"$NESSIE" --interp=flat --stats - < "$tmp/ok.nesl" 2>&1 >/dev/null | grep -q '^stats: [0-9]* host calls' ||
  { echo "--interp=flat --stats - prints the wrong stats"; exit 1; }
"$NESSIE" --types - < "$tmp/ok.nesl" | grep -q '^sqr = fn' || { echo "--types -"; exit 1; }
message 2 "--stats without an interpreter" "--stats counts what an interpreter runs" "$NESSIE" --stats "$tmp/ok.nesl"

# -i: one file, and it needs it
message 2 "-i without a file" "-i needs a FILE" "$NESSIE" -i
message 2 "-i followed by an option" "-i needs a FILE" "$NESSIE" -i --types
message 2 "-i with two files" "one too many" "$NESSIE" -i "$tmp/ok.nesl" "$tmp/ok.nesl"

# modes do not combine
message 2 "--types --interp" "--types and --interp cannot be used together" "$NESSIE" --types --interp "$tmp/ok.nesl"
message 2 "two --dump" "--dump given twice" "$NESSIE" --dump=ast --dump=flat "$tmp/ok.nesl"
message 2 "--dump --interp" "--dump and --interp cannot be used together" "$NESSIE" --dump=ast --interp=flat "$tmp/ok.nesl"
message 2 "-i --types" "-i and --types cannot be used together" "$NESSIE" -i "$tmp/ok.nesl" --types
message 2 "two --interp" "--interp given twice" "$NESSIE" --interp --interp=flat "$tmp/ok.nesl"

# --interp: 1 at the end when a statement stopped with a run-time error;
# the transcript is the same, the later statements still run
printf 'x = [1, 2];\nx[5];\nx[0];\n' > "$tmp/rt.nesl"
for e in eval flat lcu; do
  check 1 "--interp=$e with a run-time error" "$NESSIE" --interp=$e "$tmp/rt.nesl"
  out=$("$NESSIE" --interp=$e "$tmp/rt.nesl" 2>/dev/null)
  [ "$(printf '%s\n' "$out" | sed -n 2p | cut -c1-7)" = "error: " ] &&
    [ "$(printf '%s\n' "$out" | sed -n 3p)" = "it = 1 : int" ] || { echo "--interp=$e transcript: $out"; exit 1; }
done
check 0 "--interp without errors" "$NESSIE" --interp "$tmp/ok.nesl"
printf 'y = 1 + t;\n' > "$tmp/bad.nesl"
check 1 "--interp with a type error" "$NESSIE" --interp "$tmp/bad.nesl"
check 2 "unknown interpreter" "$NESSIE" --interp=nothing "$tmp/rt.nesl"
check 0 "-i FILE with no input" sh -c "'$NESSIE' -i '$tmp/rt.nesl' < /dev/null"
"$NESSIE" --interp "$tmp/rt.nesl" 2>/dev/null | grep -q '^error: .*rt.nesl:2:' || { echo "run-time error line"; exit 1; }
rm -rf "$tmp"
# FILE.lcu: λcu read back; it can only be printed or run
tmp=$(mktemp -d)
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/ok.nesl"
"$NESSIE" --dump=lcu "$tmp/ok.nesl" > "$tmp/ok.lcu"
printf 'kernel K1 (\n' > "$tmp/bad.lcu"
check 0 "--dump=lcu FILE.lcu" "$NESSIE" --dump=lcu "$tmp/ok.lcu"
check 0 "--interp=lcu FILE.lcu" "$NESSIE" --check-ir --interp=lcu "$tmp/ok.lcu"
check 1 "a malformed .lcu" "$NESSIE" --dump=lcu "$tmp/bad.lcu"
check 2 "--interp=flat FILE.lcu" "$NESSIE" --interp=flat "$tmp/ok.lcu"
check 2 "--dump=flat FILE.lcu" "$NESSIE" --dump=flat "$tmp/ok.lcu"
check 2 "FILE.lcu alone" "$NESSIE" "$tmp/ok.lcu"
"$NESSIE" --interp=lcu "$tmp/ok.lcu" | grep -q '^it = 9 : int$' || { echo "--interp=lcu FILE.lcu: the transcript"; exit 1; }
rm -rf "$tmp"
exit 0
