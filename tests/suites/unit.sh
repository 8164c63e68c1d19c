# unit: the cmocka unit tests (tests/unit/test_*.c, built by the
# Makefile as BUILD/tests/test_*), each one test: unit/test_NAME.
. tests/suites/lib.sh
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  name=unit/$(basename "$t")
  if "$t" > "$OUT/$(basename "$t").log" 2>&1; then pass "$name"
  else fail "$name" "$(tail -20 "$OUT/$(basename "$t").log")"; fi
done
finish
