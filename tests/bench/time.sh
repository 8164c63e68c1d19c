#!/bin/sh
# tests/bench/time.sh NESSIE TARGET OUTDIR [RUNS] NAME...: times
# tests/bench/NAME.nesl as an executable of TARGET (cpu or cuda).  A
# benchmark program binds its size `n`, and defines `input(n)` (the data,
# made once, not timed) and `run_once(data)` (what is timed).  The runner
# appends a recursive driver that times RUNS+1 calls with NESL's `time`
# (the host's clock on both targets, the GPU synchronized at both ends; the first call is a
# warm-up) and prints, per program, the median and the range of the other
# RUNS times, and per call the kernel launches, host synchronizations and
# bytes allocated (NESSIE_STATS of the program minus that of the same
# program making its input only, divided by RUNS+1), and nessie's compile
# time.  Extra compiler options in NESSIE_FLAGS (e.g. -O0).
set -u
NESSIE=$1
TARGET=$2
OUT=$3
shift 3
RUNS=10
case ${1:-} in [0-9]*) RUNS=$1; shift ;; esac
mkdir -p "$OUT"
printf '%-10s %-5s %12s %10s %10s %10s %10s %12s %8s\n' program target median_ms min_ms max_ms launches syncs MB_alloc compile_s
for name in "$@"; do
  src=tests/bench/$name.nesl
  driver='function bench_reps(k, data) =
  if k == 0 then [] float
  else let (r, tm) = time(run_once(data)) in [tm] ++ bench_reps(k - 1, data);'
  { cat "$src"; echo "$driver"; echo "let data = input(n) in bench_reps($((RUNS + 1)), data);"; } > "$OUT/$name.nesl"
  { cat "$src"; echo "$driver"; echo "let data = input(n) in #bench_reps(0, data);"; } > "$OUT/${name}_setup.nesl"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  "$NESSIE" ${NESSIE_FLAGS:-} --target="$TARGET" "$OUT/$name.nesl" -o "$OUT/$name" > "$OUT/$name.build" 2>&1 ||
    { echo "$name: the build failed"; head -5 "$OUT/$name.build"; continue; }
  t1=$(date +%s%N)
  "$NESSIE" ${NESSIE_FLAGS:-} --target="$TARGET" "$OUT/${name}_setup.nesl" -o "$OUT/${name}_setup" > /dev/null 2>&1
  NESSIE_STATS=1 "$OUT/$name" > "$OUT/$name.out" 2> "$OUT/$name.stats" ||
    { echo "$name: the run failed"; head -5 "$OUT/$name.out" "$OUT/$name.stats"; continue; }
  NESSIE_STATS=1 "$OUT/${name}_setup" > /dev/null 2> "$OUT/${name}_setup.stats"
  # the driver prints `it = [SECONDS, ...] : [float]`; the first is the warm-up
  sed -n 's/^it = \[\(.*\)\] : \[float\]$/\1/p' "$OUT/$name.out" | tr ',' '\n' | tr -d ' ' | tail -n +2 | sort -g \
    > "$OUT/$name.times"
  stat() { sed -n "s/.* \([0-9][0-9]*\) $2.*/\1/p" "$1" | head -1; }
  per_run() { echo "$(( ( $(stat "$OUT/$name.stats" "$1") - $(stat "$OUT/${name}_setup.stats" "$1") ) / (RUNS + 1) ))"; }
  awk -v name="$name" -v target="$TARGET" -v l="$(per_run 'kernel launch')" -v s="$(per_run 'host sync')" \
      -v b="$(per_run 'bytes')" -v c="$(( (t1 - t0) / 1000000 ))" '
    { t[NR] = $1 * 1000 }
    END { if (NR == 0) { print name ": no times"; exit }
          m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
          printf "%-10s %-5s %12.3f %10.3f %10.3f %10d %10d %12.1f %8.1f\n", name, target, m, t[1], t[NR], l, s, b / 1e6, c / 1000 }' \
    "$OUT/$name.times"
done
