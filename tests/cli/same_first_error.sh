# Issue 38, item 14: the same program stops with the same error, at the
# same place and in the same words, on every engine: the evaluator, the
# flat and λcu interpreters (with fusion and without) and the CPU
# executable.  The corpus's comparisons take any error line for any other
# (CMU NESL's carry no location), so this compares the text: each
# tests/exec/NAME.nesl with a NAME.errors prints exactly those error lines
# (nessie's, checked by hand against the kind of error the oracle's
# NAME.expected reports for each statement).  The cpu suite runs the same
# programs as executables against NAME.expected.
set -u
# the C compiler's speed and the code's are not what is tested (the cpu
# suite builds the corpus at -O1)
export NESSIE_CFLAGS=-O0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for want in tests/exec/*.errors; do
  f=${want%.errors}.nesl
  n=$(basename "$f" .nesl)
  "$NESSIE" --target=cpu -o "$tmp/$n" "$f" 2> "$tmp/$n.build" || { echo "$n does not compile: $(head -3 "$tmp/$n.build")"; exit 1; }
  for run in "--interp=eval" "--interp=flat" "--interp=lcu" "--interp=lcu -O0" "cpu"; do
    if [ "$run" = cpu ]; then
      timeout 120 "$tmp/$n" > "$tmp/$n.out" 2> /dev/null
    else
      timeout 120 "$NESSIE" --check-ir $run "$f" > "$tmp/$n.out" 2> /dev/null
    fi
    grep -a '^error:' "$tmp/$n.out" > "$tmp/$n.got"
    if ! cmp -s "$tmp/$n.got" "$want"; then
      echo "$n under $run:"
      diff "$want" "$tmp/$n.got" | head -20
      status=1
    fi
  done
done
exit $status
