# examples: the teaching examples (examples/NAME.nesl): every
# interpreter, and λcu's without fusion, prints examples/NAME.expected
# (IR checked).  Their CPU executables are the cpu suite's.
. tests/suites/lib.sh
for f in examples/*.nesl; do
  n=$(basename "$f" .nesl)
  ok=true
  for mode in eval flat lcu lcu-O0; do
    case $mode in lcu-O0) opts="-O0 --interp=lcu" ;; *) opts="--interp=$mode" ;; esac
    # shellcheck disable=SC2086
    "$NESSIE" --check-ir $opts "$f" > "$OUT/$n.example.$mode" 2> "$OUT/$n.example.$mode.err"
    if ! d=$("$BUILD/nesl_compare" "$OUT/$n.example.$mode" "examples/$n.expected" 2>&1); then
      ok=false; fail "examples/$n ($mode)" "$d$(head -5 "$OUT/$n.example.$mode.err")"; break
    fi
  done
  $ok && pass "examples/$n"
done
finish
