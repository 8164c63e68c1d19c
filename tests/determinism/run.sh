#!/bin/sh
# tests/determinism/run.sh NESSIE OUTDIR [RUNS]: compiles every corpus,
# error, flattening, λcu and syntax test program to every dump stage RUNS
# times (default 5), the last two runs with the collector forced to run
# very often, and prints the
# programs whose dumps differ between runs, one line each
# ("NAME STAGE").  Prints nothing when every dump is byte-identical.
#
# Why: Boehm GC reuses the addresses of collected objects, so any map
# keyed by a formatted pointer, or any order taken from addresses, makes
# two compilations of one program differ (and can change its meaning).
set -u
NESSIE=$1
OUT=$2
RUNS=${3:-5}
STAGES=${STAGES:-"ast typed mono flat lcu pdg fused c cuda"}
mkdir -p "$OUT"
for f in tests/programs/*.nesl tests/errors/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .nesl)
  for stage in $STAGES; do
    ref=$OUT/$n.$stage.1
    "$NESSIE" --dump=$stage "$f" > "$ref" 2>&1
    r=2
    while [ $r -le "$RUNS" ]; do
      # the last two runs: a collection after every 1/200 of the heap
      # is allocated (GC_FREE_SPACE_DIVISOR)
      if [ $r -ge $((RUNS - 1)) ]; then
        GC_FREE_SPACE_DIVISOR=200 "$NESSIE" --dump=$stage "$f" > "$OUT/$n.$stage.$r" 2>&1
      else
        "$NESSIE" --dump=$stage "$f" > "$OUT/$n.$stage.$r" 2>&1
      fi
      if ! cmp -s "$ref" "$OUT/$n.$stage.$r"; then
        echo "$n $stage (run $r differs from run 1)"
        break
      fi
      r=$((r + 1))
    done
  done
done
