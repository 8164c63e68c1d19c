#!/bin/sh
# tests/fusion/random.sh NESSIE GEN OUTDIR COUNT [FIRST]: the differential
# test of fusion.  For the seeds FIRST .. FIRST+COUNT-1 (FIRST is 1 by
# default), GEN (tests/fusion/gen_lcu) writes a random well-typed λcu
# program, and nessie runs it with fusion (the default, -O1) and without
# (-O0), each under --check-ir: both must run and print the same, and
# exit with the same status (0, or 1 after a run-time error).  Prints
# one line per program that does not, and "N programs, M differ" last;
# exits 1 if any differs.
set -u
NESSIE=$1
GEN=$2
OUT=$3
COUNT=$4
FIRST=${5:-1}
mkdir -p "$OUT"
bad=0
seed=$FIRST
last=$((FIRST + COUNT - 1))
while [ "$seed" -le "$last" ]; do
  f=$OUT/random_$seed.lcu
  "$GEN" "$seed" > "$f"
  "$NESSIE" --check-ir -O0 --interp=lcu "$f" > "$OUT/random_$seed.O0" 2>&1
  rc0=$?
  "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/random_$seed.O1" 2>&1
  rc1=$?
  # 1 is a run-time error the program reports (the generator may write
  # one operation per statement that fails): it must be the same error
  if [ $rc0 -gt 1 ] || [ $rc0 -ne $rc1 ] || ! cmp -s "$OUT/random_$seed.O0" "$OUT/random_$seed.O1"; then
    bad=$((bad + 1))
    echo "seed $seed: exit $rc0 without fusion, $rc1 with; $(diff "$OUT/random_$seed.O0" "$OUT/random_$seed.O1" | head -3 | tr '\n' ' ')"
  else
    rm -f "$f" "$OUT/random_$seed.O0" "$OUT/random_$seed.O1"
  fi
  seed=$((seed + 1))
done
echo "$COUNT programs, $bad differ"
[ $bad -eq 0 ]
