#!/bin/sh
# tests/fusion/random.sh NESSIE GEN OUTDIR COUNT [FIRST]: the differential
# test of fusion.  For the seeds FIRST .. FIRST+COUNT-1 (FIRST is 1 by
# default), GEN (tests/fusion/gen_lcu) writes a random well-typed λcu
# program, and nessie runs it with fusion (the default, -O1) and without
# (-O0), each under --check-ir: both must print the same and exit with
# the same status (1 when a statement stopped with a run-time error).  Prints
# one line per program that does not, and "N programs, M differ" last;
# exits 1 if any differs.
#
# The seeds are checked one a processor at a time (each nessie uses one
# core), each by `random.sh --one NESSIE GEN OUTDIR SEED`, which leaves
# OUTDIR/random_SEED.bad holding its line when the seed's program
# differs; the lines are printed afterwards in the seeds' order.
set -u
if [ "${1:-}" = --one ]; then
  NESSIE=$2
  GEN=$3
  OUT=$4
  seed=$5
  f=$OUT/random_$seed.lcu
  rm -f "$OUT/random_$seed.bad" "$OUT/random_$seed.ok"
  "$GEN" "$seed" > "$f"
  "$NESSIE" --check-ir -O0 --interp=lcu "$f" > "$OUT/random_$seed.O0" 2>&1
  rc0=$?
  "$NESSIE" --check-ir --interp=lcu "$f" > "$OUT/random_$seed.O1" 2>&1
  rc1=$?
  if [ $rc0 -gt 1 ] || [ $rc0 -ne $rc1 ] || ! cmp -s "$OUT/random_$seed.O0" "$OUT/random_$seed.O1"; then
    echo "seed $seed: exit $rc0 without fusion, $rc1 with; $(diff "$OUT/random_$seed.O0" "$OUT/random_$seed.O1" | head -3 | tr '\n' ' ')" > "$OUT/random_$seed.bad"
  else
    rm -f "$f" "$OUT/random_$seed.O0" "$OUT/random_$seed.O1"
    : > "$OUT/random_$seed.ok"
  fi
  exit 0
fi
NESSIE=$1
GEN=$2
OUT=$3
COUNT=$4
FIRST=${5:-1}
[ -x "$GEN" ] || { echo "no generator $GEN"; exit 1; }
mkdir -p "$OUT"
last=$((FIRST + COUNT - 1))
awk -v a="$FIRST" -v b="$last" 'BEGIN { for (i = a; i <= b; i++) print i }' | xargs -n 1 -P "$(nproc 2>/dev/null || echo 2)" sh "$0" --one "$NESSIE" "$GEN" "$OUT"
bad=0
seed=$FIRST
while [ "$seed" -le "$last" ]; do
  if [ -f "$OUT/random_$seed.ok" ]; then
    rm -f "$OUT/random_$seed.ok"
  else
    bad=$((bad + 1))
    if [ -f "$OUT/random_$seed.bad" ]; then cat "$OUT/random_$seed.bad"
    else echo "seed $seed: not checked"; fi
  fi
  seed=$((seed + 1))
done
echo "$COUNT programs, $bad differ"
[ $bad -eq 0 ]
