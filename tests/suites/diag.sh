# diag: the diagnostics golden files: `nessie --types NAME.nesl` in
# tests/diagnostics exits 1 and prints exactly NAME.err on stderr.
. tests/suites/lib.sh
# the messages name the file as given: run there, with absolute paths
nessie=$(cd "$(dirname "$NESSIE")" && pwd)/$(basename "$NESSIE")
out=$(cd "$OUT" && pwd)
for f in tests/diagnostics/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  (cd tests/diagnostics && "$nessie" --types "$n.nesl" > /dev/null 2> "$out/$n.diag")
  rc=$?
  if [ $rc -ne 1 ]; then fail "diag/$n" "exit status $rc, expected 1"
  elif cmp -s "$OUT/$n.diag" "tests/diagnostics/$n.err"; then pass "diag/$n"
  else fail "diag/$n" "$(diff "tests/diagnostics/$n.err" "$OUT/$n.diag")"; fi
done
finish
