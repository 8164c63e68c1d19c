#!/bin/sh
# tests/fuzz/diff.sh BUILD OUTDIR FIRST LAST [BACKEND...]: the differential
# test of issue 41 over the seeds FIRST to LAST, JOBS programs at a time
# (default: one a processor), each by tests/fuzz/one.sh: a random NESL
# program (tests/fuzz/gen_nesl.py) run by the reference REF and by each
# BACKEND (default: eval flat lcu lcu-O0 lcu-text; also cpu, cpu1, cuda), their
# transcripts compared.  REF is the oracle (CMU NESL 3.1,
# ../shared/oracle/run.sh) where it is built, else eval (CI has no
# oracle).  With FUZZ_SECONDS=N it stops starting programs after N
# seconds, whatever LAST says.  Failing programs are kept in OUTDIR
# (tests/fuzz/reduce.py with tests/fuzz/interesting.sh makes them small).
# Prints one line per failure and ends with
#   N programs: P passed, F failed (C crashes), R rejected
# exit status 1 when any failed.
set -u
BUILD=$1
OUT=$2
FIRST=$3
LAST=$4
shift 4
BACKENDS=${*:-eval flat lcu lcu-O0 lcu-text}
ORACLE=${ORACLE:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/oracle/run.sh}
if [ -z "${REF:-}" ]; then
  REF=eval
  [ -f "$ORACLE" ] && [ -d /tmp/nesl-oracle ] && REF=oracle
fi
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$OUT"
log=$OUT/results
: > "$log"
start=$(date +%s)
seed=$FIRST
# the seeds in batches of JOBS, so that FUZZ_SECONDS is looked at often
while [ "$seed" -le "$LAST" ]; do
  if [ -n "${FUZZ_SECONDS:-}" ] && [ $(($(date +%s) - start)) -ge "$FUZZ_SECONDS" ]; then break; fi
  end=$((seed + JOBS * 4 - 1))
  [ $end -gt "$LAST" ] && end=$LAST
  seq "$seed" "$end" | xargs -P "$JOBS" -I{} sh tests/fuzz/one.sh "$BUILD" "$OUT" {} "$REF" $BACKENDS >> "$log"
  seed=$((end + 1))
done
grep '^fail' "$log" | sort -k2 -n
passed=$(grep -c '^pass' "$log")
failed=$(grep -c '^fail' "$log")
crashes=$(grep '^fail' "$log" | grep -c 'crash)')
rejected=$(grep -c '^reject' "$log")
echo "$((passed + failed + rejected)) programs: $passed passed, $failed failed ($crashes crashes), $rejected rejected (reference: $REF)"
[ "$failed" -eq 0 ]
