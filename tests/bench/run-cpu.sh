#!/bin/sh
# tests/bench/run-cpu.sh BUILD OUTDIR [OPTIONS]: the benchmark suite on the
# CPU target (make bench-cpu), against the C with OpenMP baselines of
# tests/bench/cpu/, at the sizes of a small machine (benchmarks.conf's
# cpu_n); OUTDIR gets RESULTS.md, results.tsv, ratios.dat, harness.log and
# logs.tar.gz.  OPTIONS go to tests/bench/harness.py (see run.sh).
set -eu
[ $# -ge 2 ] || { echo "usage: sh tests/bench/run-cpu.sh BUILD OUTDIR [OPTIONS]" >&2; exit 2; }
BUILD=$1
OUT=$2
shift 2
command -v python3 > /dev/null || { echo "tests/bench/run-cpu.sh: python3 is needed" >&2; exit 2; }
# Idle OpenMP threads sleep rather than spin: on a small machine shared
# with other work, a spinning thread takes the core of the thread that
# has the work (quickhull's baseline: 270 ms spinning, 14 ms sleeping).
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY
exec python3 "$(dirname "$0")/harness.py" --target cpu --build "$BUILD" --out "$OUT" --budget 1800 "$@"
