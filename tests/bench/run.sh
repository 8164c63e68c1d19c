#!/bin/sh
# tests/bench/run.sh BUILD OUTDIR [OPTIONS]: the GPU benchmark suite (make
# bench), on a machine with an NVIDIA GPU, nvcc (with cuBLAS, cuSPARSE, CUB
# and thrust), python3 and, for the peers, JAX and CuPy.  BUILD holds
# nessie and its runtime (BUILD/lib/nessie; tools/gpu-bundle.sh packs them
# with their shared libraries for a machine without nessie's build
# dependencies: then LD_LIBRARY_PATH=$PWD/.gpu/lib sh tests/bench/run.sh
# .gpu/build OUTDIR).  OUTDIR gets RESULTS.md, results.tsv, ratios.dat,
# ratios.png (where gnuplot is found), harness.log and logs.tar.gz; set
# BENCH_COMMIT to the commit measured where the tree has no .git, and
# BENCH_PYTHON to the python that has JAX and CuPy if python3 has not (the
# executables are built for the GPU's architecture, or BENCH_ARCH).  OPTIONS
# go to tests/bench/harness.py (--only NAMES, --size NAME=N, --scale F,
# --runs N, --no-peers, --no-O0, --budget S, --jobs N, --pin CPU; --help).
set -eu
[ $# -ge 2 ] || { echo "usage: sh tests/bench/run.sh BUILD OUTDIR [OPTIONS]" >&2; exit 2; }
BUILD=$1
OUT=$2
shift 2
command -v python3 > /dev/null || { echo "tests/bench/run.sh: python3 is needed" >&2; exit 2; }
command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "tests/bench/run.sh: nvcc is needed" >&2; exit 2; }
command -v nvcc > /dev/null || PATH=/usr/local/cuda/bin:$PATH
export PATH
exec python3 "$(dirname "$0")/harness.py" --target cuda --build "$BUILD" --out "$OUT" "$@"
