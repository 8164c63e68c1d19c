#!/bin/sh
# tests/bench/targets.sh BUILD OUTDIR: issue 15's targets, measured in one
# run on a machine with an NVIDIA GPU (`make bench-targets`), at the
# issue's sizes (the suite's own sizes are larger: benchmarks.conf):
#   - the flat programs (sum, dotp, sum of logs, muladd, norm2,
#     Black-Scholes) at 10^7 doubles, against their baselines, JAX and CuPy,
#     with fusion and without (norm2's -O0 over -O1);
#   - quicksort of 10^6 keys, quickhull of 5*10^6 points, a Barnes-Hut
#     step of 5*10^4 bodies;
#   - the fixed cost of a quicksort level (tests/bench/level.nesl: the
#     default, small vectors on the host, and NESSIE_HOST_MAX=0, every
#     level on the GPU);
#   - the floor of quicksort's kernels: one sort of 10^6 keys under ncu
#     (gpu__time_duration of every kernel, caches and clocks as found),
#     where ncu is there and allowed.
# TARGETS_RUNS: the timed calls a program (10), TARGETS_BUDGET: the
# harness's seconds (300), NCU_TIMEOUT: ncu's (300), LEVEL_SIZES: the
# other sizes of level.nesl (32 64 128 256; its own is 512).
# OUTDIR gets suite/ (the harness's RESULTS.md, results.tsv, logs),
# level.out, level-gpu.out, level-sizes.out, ncu.csv, and targets.md:
# one line a target, the figure, the target and met or missed.
# LD_LIBRARY_PATH as tools/gpu-bundle.sh says, set by the caller:
#   LD_LIBRARY_PATH=$PWD/.gpu/lib sh tests/bench/targets.sh .gpu/build OUT
set -u
[ $# -ge 2 ] || { echo "usage: sh tests/bench/targets.sh BUILD OUTDIR" >&2; exit 2; }
BUILD=$1
OUT=$2
command -v nvcc > /dev/null || PATH=/usr/local/cuda/bin:$PATH
export PATH
mkdir -p "$OUT"
WORK=$(mktemp -d) || exit 1
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
ARCH=sm_${cap:-90}
FLAT="sum dotp sumlogs muladd norm2 blackscholes"
status=0

# the level's cost and quicksort's single sort, built while nothing is timed
"$BUILD/nessie" --arch="$ARCH" tests/bench/level.nesl -o "$WORK/level" > "$WORK/level.build" 2>&1 ||
  { echo "level.nesl: the build failed"; cat "$WORK/level.build"; status=1; }
sed 's/^n = [0-9]*;/n = 1000000;/' tests/bench/quicksort.nesl > "$WORK/sort1.nesl"
echo 'check(run_once(input(n)));' >> "$WORK/sort1.nesl"
"$BUILD/nessie" --arch="$ARCH" "$WORK/sort1.nesl" -o "$WORK/sort1" > "$WORK/sort1.build" 2>&1 ||
  { echo "quicksort: the build failed"; cat "$WORK/sort1.build"; status=1; }

sizes=""
for b in $FLAT; do sizes="$sizes --size $b=10000000"; done
# shellcheck disable=SC2086
python3 tests/bench/harness.py --target cuda --build "$BUILD" --out "$OUT/suite" --pin 2 --budget "${TARGETS_BUDGET:-300}" --runs "${TARGETS_RUNS:-10}" \
  --only "$(echo $FLAT | tr ' ' ,),quicksort,quickhull,barneshut" $sizes \
  --size quicksort=1000000 --size quickhull=5000000 --size barneshut=50000 > "$OUT/suite.log" 2>&1 ||
  { echo "the harness failed: $OUT/suite.log"; status=1; }

# level.nesl bound to one CPU, as the harness binds the programs; at its
# own size (512 keys, the target's figure) and, in level-sizes.out, at
# smaller ones, where the host's work per element weighs less
BIND=""
command -v taskset > /dev/null && BIND="taskset -c 2"
if [ -x "$WORK/level" ]; then
  NESSIE_STATS=1 $BIND "$WORK/level" > "$OUT/level.out" 2>&1 || status=1
  NESSIE_STATS=1 NESSIE_HOST_MAX=0 $BIND "$WORK/level" > "$OUT/level-gpu.out" 2>&1 || status=1
  : > "$OUT/level-sizes.out"
  for n in ${LEVEL_SIZES:-32 64 128 256}; do
    sed "s/^n = [0-9]*;/n = $n;/" tests/bench/level.nesl > "$WORK/level$n.nesl"
    if "$BUILD/nessie" --arch="$ARCH" "$WORK/level$n.nesl" -o "$WORK/level$n" > /dev/null 2>&1; then
      echo "n = $n: $($BIND "$WORK/level$n" | grep '^it = ')" >> "$OUT/level-sizes.out"
    else
      echo "n = $n: the build failed" >> "$OUT/level-sizes.out"
    fi
  done
fi
ncu_note="not run"
if [ -x "$WORK/sort1" ] && command -v ncu > /dev/null; then
  if timeout "${NCU_TIMEOUT:-300}" ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum \
       --csv "$WORK/sort1" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"; then
    ncu_note=$(awk -F'","' '$0 ~ /gpu__time_duration.sum/ {
        v = $NF; gsub(/[",]/, "", v); u = $(NF - 1); gsub(/"/, "", u)
        s = (u == "usecond") ? v * 1000 : (u == "msecond") ? v * 1e6 : v
        ns += s; k++ }
      END { if (k) printf "%d kernels, %.2f ms of kernel time", k, ns / 1e6; else print "no kernel measured" }' "$OUT/ncu.csv")
  else
    ncu_note="ncu failed or was refused (ncu.err)"
  fi
fi

# targets.md from the harness's results.tsv
tsv=$OUT/suite/results.tsv
field() { # field NAME COLUMN: COLUMN of NAME's row of results.tsv
  awk -F'\t' -v n="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == n { print $col[c] }' "$tsv" 2> /dev/null
}
per_level_us() { # level.nesl's seconds a level (its third value) in FILE, in µs
  sed -n 's/^it = ([0-9]*, [0-9.eE+-]*, \([0-9.eE+-]*\)) .*/\1/p' "$1" 2> /dev/null |
    awk '{ printf "%.1f", $1 * 1e6 }'
}
verdict() { awk -v a="$1" -v b="$2" -v op="$3" 'BEGIN {
  if (a == "") { print "not measured"; exit }
  ok = op == "<=" ? a + 0 <= b + 0 : a + 0 >= b + 0; print ok ? "met" : "missed" }'; }
{
  echo "# issue 15's targets, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); built for $ARCH"
  echo
  echo "| target | figure | goal | verdict |"
  echo "|---|---|---|---|"
  for b in $FLAT; do
    pct=$(field "$b" pct_copy) xb=$(field "$b" x_baseline) xp=$(field "$b" x_best_peer)
    echo "| $b 10^7: % of copy bandwidth | $pct | >= 80 | $(verdict "$pct" 80 '>=') |"
    echo "| $b 10^7: x baseline | $xb | <= 1.2 | $(verdict "$xb" 1.2 '<=') |"
    echo "| $b 10^7: x best peer (JAX, CuPy) | $xp | < 1 | $(verdict "$xp" 0.9999 '<=') |"
  done
  o1=$(field norm2 nessie_ms) o0=$(field norm2 O0_ms)
  gain=$(awk -v a="$o1" -v b="$o0" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", b / a }')
  echo "| norm2 10^7: -O0 over -O1 | $gain | >= 2 | $(verdict "$gain" 2 '>=') |"
  xq=$(field quicksort x_baseline)
  echo "| quicksort 10^6: x library sort | $xq ($(field quicksort nessie_ms) ms) | <= 30 | $(verdict "$xq" 30 '<=') |"
  qh=$(field quickhull nessie_ms)
  echo "| quickhull 5*10^6: ms | $qh | < 10 | $(verdict "$qh" 10 '<=') |"
  bh=$(field barneshut nessie_ms)
  echo "| Barnes-Hut 5*10^4: ms a step | $bh | < 50 | $(verdict "$bh" 50 '<=') |"
  us=$(per_level_us "$OUT/level.out")
  echo "| a quicksort level (level.nesl): µs | $us | <= 30 | $(verdict "$us" 30 '<=') |"
  echo "| a level forced onto the GPU (NESSIE_HOST_MAX=0): µs | $(per_level_us "$OUT/level-gpu.out") | (none) | |"
  echo
  echo "A level at other sizes (depth, median seconds a sort, seconds a level):"
  echo
  sed 's/^/    /' "$OUT/level-sizes.out" 2> /dev/null
  echo
  echo "quicksort's kernels under ncu (one sort of 10^6 keys with its input and check): $ncu_note"
} > "$OUT/targets.md"
cat "$OUT/targets.md"
rm -rf "$WORK"
exit $status
