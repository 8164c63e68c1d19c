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
#
# The programs are checked one a processor at a time (each nessie uses
# one core), each by `run.sh --one NESSIE OUTDIR RUNS FILE`, which writes
# its lines to OUTDIR/DIR_NAME.differ; they are printed afterwards in the
# programs' order, as they were when the programs ran one after another.
set -u
if [ "${1:-}" = --one ]; then
  NESSIE=$2
  OUT=$3
  RUNS=$4
  f=$5
  n=$(basename "$f" .nesl)
  # the files of a program are named after its path: two programs of one
  # name in different directories run side by side
  k=$(printf '%s' "${f%.nesl}" | tr / _)
  : > "$OUT/$k.differ"
  stages=${STAGES:-ast typed mono flat lcu pdg fused c cuda}
  for stage in $stages; do
    ref=$OUT/$k.$stage.1
    "$NESSIE" --dump=$stage "$f" > "$ref" 2>&1
    r=2
    while [ $r -le "$RUNS" ]; do
      # the last two runs: a collection after every 1/200 of the heap
      # is allocated (GC_FREE_SPACE_DIVISOR)
      if [ $r -ge $((RUNS - 1)) ]; then
        GC_FREE_SPACE_DIVISOR=200 "$NESSIE" --dump=$stage "$f" > "$OUT/$k.$stage.$r" 2>&1
      else
        "$NESSIE" --dump=$stage "$f" > "$OUT/$k.$stage.$r" 2>&1
      fi
      if ! cmp -s "$ref" "$OUT/$k.$stage.$r"; then
        echo "$n $stage (run $r differs from run 1)" >> "$OUT/$k.differ"
        break
      fi
      r=$((r + 1))
    done
  done
  exit 0
fi
NESSIE=$1
OUT=$2
RUNS=${3:-5}
mkdir -p "$OUT"
files=""
for f in tests/programs/*.nesl tests/errors/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl; do
  [ -f "$f" ] && files="$files $f"
done
# shellcheck disable=SC2086
printf '%s\n' $files | xargs -n 1 -P "$(nproc 2>/dev/null || echo 2)" sh "$0" --one "$NESSIE" "$OUT" "$RUNS"
for f in $files; do
  k=$(printf '%s' "${f%.nesl}" | tr / _)
  if [ -f "$OUT/$k.differ" ]; then cat "$OUT/$k.differ"
  else echo "$(basename "$f" .nesl) (not checked)"; fi
done
