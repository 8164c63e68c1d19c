# errors: each corpus error program (tests/errors/NAME.nesl, headed
# `% expect: KIND LINE %`, tests/errors/README.md) is judged by its KIND:
# syntax and type errors fail to compile (exit 1), their first error on
# LINE and nothing printed; runtime and none programs type check, and
# every interpreter (eval, flat, lcu, lcu -O0; IR checked) prints
# NAME.expected, a runtime error on LINE with exit status 1.
. tests/suites/lib.sh
for f in tests/errors/*.nesl; do
  n=$(basename "$f" .nesl)
  set -- $(head -1 "$f")
  kind=$3; line=$4
  "$NESSIE" --types "$f" > "$OUT/$n.out" 2> "$OUT/$n.err"
  rc=$?
  first=$(grep -m1 ': error: ' "$OUT/$n.err")
  got=$(printf '%s' "$first" | sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: error: .*/\1/p')
  case $kind in
  syntax|type)
    if [ $rc -ne 1 ]; then fail "errors/$n" "exit status $rc, expected 1"
    elif [ "$got" != "$line" ]; then fail "errors/$n" "first error on line '$got', expected $line: $first"
    elif [ -s "$OUT/$n.out" ]; then fail "errors/$n" "printed output: $(cat "$OUT/$n.out")"
    elif [ "$kind" = type ] && [ "$n" != type_t_as_variable ] &&
         printf '%s' "$first" | grep -q 'syntax error'; then fail "errors/$n" "a type error reported as a syntax error: $first"
    else pass "errors/$n"; fi ;;
  runtime|none)
    if [ $rc -ne 0 ]; then fail "errors/$n" "does not type check: $(cat "$OUT/$n.err")"; continue; fi
    # --interp exits 1 after a statement stopped with a run-time error
    want=0; [ "$kind" = runtime ] && want=1
    "$NESSIE" --interp=eval "$f" > "$OUT/$n.eval" 2> "$OUT/$n.eval.err"
    rc=$?
    if [ $rc -ne $want ]; then fail "errors/$n" "--interp=eval exit $rc, expected $want: $(head -5 "$OUT/$n.eval.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.eval" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "$d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.eval" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "the error is not reported on line $line: $(tail -1 "$OUT/$n.eval")"
    elif "$NESSIE" --check-ir --interp=flat "$f" > "$OUT/$n.flat" 2> "$OUT/$n.flat.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=flat: $(head -5 "$OUT/$n.flat.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.flat" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "flat: $d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.flat" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "flat: the error is not reported on line $line: $(tail -1 "$OUT/$n.flat")"
    elif "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/$n.lcu" 2> "$OUT/$n.lcu.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=lcu: $(head -5 "$OUT/$n.lcu.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.lcu" "tests/errors/$n.expected" 2>&1); then fail "errors/$n" "lcu: $d"
    elif [ "$kind" = runtime ] && ! tail -1 "$OUT/$n.lcu" | grep -q "^error: [^:]*:$line:"; then
      fail "errors/$n" "lcu: the error is not reported on line $line: $(tail -1 "$OUT/$n.lcu")"
    elif "$NESSIE" -O0 --check-ir --interp=lcu "$f" > "$OUT/$n.lcu0" 2> "$OUT/$n.lcu0.err"; [ $? -ne $want ]; then
      fail "errors/$n" "--interp=lcu -O0: $(head -5 "$OUT/$n.lcu0.err")"
    elif ! d=$("$BUILD/nesl_compare" "$OUT/$n.lcu0" "tests/errors/$n.expected" 2>&1); then
      fail "errors/$n" "lcu -O0: $d"
    else pass "errors/$n"; fi ;;
  *) fail "errors/$n" "bad header: $kind" ;;
  esac
done
finish
