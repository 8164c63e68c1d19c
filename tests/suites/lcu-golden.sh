# lcu-golden: the golden λcu dumps (tests/lcu/golden/NAME.lcu, written by
# tests/lcu/golden/update.sh or `make golden`): NAME's --dump=lcu is the
# golden file, which reads back to itself and runs (--interp=lcu, IR
# checked) to the program's expected output.
. tests/suites/lib.sh
for g in tests/lcu/golden/*.lcu; do
  [ -f "$g" ] || continue
  n=$(basename "$g" .lcu)
  d=
  src=tests/programs/$n.nesl
  [ -f "$src" ] || src=tests/lcu/$n.nesl
  if ! "$NESSIE" --dump=lcu "$src" > "$OUT/$n.golden.lcu" 2>&1 || ! cmp -s "$OUT/$n.golden.lcu" "$g"; then
    fail "lcu-golden/$n" "the dump differs (tests/lcu/golden/update.sh regenerates): $(diff "$g" "$OUT/$n.golden.lcu" | head -10)"
  elif ! "$NESSIE" --dump=lcu "$g" > "$OUT/$n.golden2.lcu" 2>&1 || ! cmp -s "$OUT/$n.golden2.lcu" "$g"; then
    fail "lcu-golden/$n" "read back, it prints otherwise: $(diff "$g" "$OUT/$n.golden2.lcu" | head -10)"
  elif ! "$NESSIE" --check-ir --interp=lcu "$g" > "$OUT/$n.golden.out" 2>&1 ||
       ! d=$("$BUILD/nesl_compare" "$OUT/$n.golden.out" "${src%.nesl}.expected" 2>&1); then
    fail "lcu-golden/$n" "run: $d$(head -5 "$OUT/$n.golden.out")"
  else pass "lcu-golden/$n"; fi
done
finish
