# Issue 38, item 8: running out of memory while a statement's value is
# printed is that statement's run-time error, at the statement, and the
# rest runs; the names it bound keep their values (the value was made).
# Under the evaluator it ended the whole run with status 4.  A string of
# 10^8 characters and its text do not fit in NESSIE_MEMORY=250M; under
# the evaluator a dist of a dist is shared, and only its text, 2 GB,
# does not fit.  `ulimit -v` is the safety net (not under make
# test-asan, whose AddressSanitizer needs far more address space).
set -u
[ -z "${ASAN_OPTIONS:-}" ] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# runs "$@" with the limits; 'out' is its first 4000 bytes, 'status' its
# exit status (before the fix the whole value was printed)
run() {
  out=$( (ulimit -v 4000000; NESSIE_MEMORY=250M timeout 60 "$@"; echo $? > "$tmp/status") 2> /dev/null | head -c 4000)
  status=$(cat "$tmp/status")
}
# 'out' is the error at 'where', then 'expect'
check() { # what [where]
  what=$1 where=${2:-:1:1:}
  [ "$status" -eq 1 ] || { echo "$what: exit status $status, expected 1"; printf '%s\n' "$out" | head -c 300; exit 1; }
  printf '%s\n' "$out" | head -1 | grep -q "^error: .*$where out of memory (could not allocate [0-9]* bytes)$" &&
    [ "$(printf '%s\n' "$out" | sed 1d)" = "$expect" ] ||
    { echo "$what printed:"; printf '%s\n' "$out" | head -c 300; exit 1; }
}

printf 'v = dist(`a, 100000000);\n"after";\n#v;\n' > "$tmp/string.nesl"
expect='it = "after" : [char]
it = 100000000 : int'
for e in eval flat lcu; do
  run "$NESSIE" --interp=$e "$tmp/string.nesl"
  check "--interp=$e"
done
"$NESSIE" --target=cpu -o "$tmp/string" "$tmp/string.nesl" || { echo "string.nesl does not compile"; exit 1; }
run "$tmp/string"
check "the CPU executable"

printf 'v = dist(dist(`a, 50000), 40000);\n"after";\n#v;\n' > "$tmp/shared.nesl"
expect='it = "after" : [char]
it = 40000 : int'
run "$NESSIE" --interp=eval "$tmp/shared.nesl"
check "a dist of a dist"
# the REPL: the statement's error, no longer "the input was abandoned"
run "$NESSIE" < "$tmp/shared.nesl"
[ "$status" -eq 0 ] || { echo "the REPL: exit status $status, expected 0"; exit 1; }
status=1
check "the REPL" '<stdin>:1:1:'
exit 0
