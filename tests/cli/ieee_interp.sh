# Floats as CMU NESL 3.1 computes them (IEEE infinities and NaN, errors
# only where NESL has them) under every interpreter: the programs of
# tests/exec about them, which the cpu suite runs as executables, print
# their .expected (the oracle's) under --interp=eval, flat, lcu and lcu
# -O0, exit 1 after a run-time error and report one on the line their
# header names (tests/errors/README.md's format).
set -u
BUILD=$(dirname "$NESSIE")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in tests/exec/rt_ieee_errors.nesl tests/exec/rt_float_carried.nesl tests/exec/rt_float_uncarried.nesl \
         tests/exec/rt_float_fma.nesl tests/exec/rt_loop_overflow.nesl tests/exec/rt_sum_overflow.nesl; do
  n=$(basename "$f" .nesl)
  set -- $(head -1 "$f")
  kind=$3; line=$4
  want=0; [ "$kind" = runtime ] && want=1
  for interp in eval flat lcu lcu-O0; do
    case $interp in lcu-O0) opts="-O0 --interp=lcu" ;; *) opts="--interp=$interp" ;; esac
    "$NESSIE" --check-ir $opts "$f" > "$tmp/$n.$interp" 2> "$tmp/$n.$interp.err"
    rc=$?
    [ $rc = $want ] || { echo "$n ($interp): exit $rc, expected $want: $(head -3 "$tmp/$n.$interp.err")"; exit 1; }
    "$BUILD/nesl_compare" "$tmp/$n.$interp" "tests/exec/$n.expected" || { echo "$n ($interp): differs"; exit 1; }
    if [ "$kind" = runtime ] && ! grep -q "^error: [^:]*:$line:" "$tmp/$n.$interp"; then
      echo "$n ($interp): no error on line $line: $(grep '^error:' "$tmp/$n.$interp" | head -1)"; exit 1
    fi
  done
done
