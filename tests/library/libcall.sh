#!/bin/sh
# tests/library/libcall.sh BUILD OUTDIR [cpu|cuda] [N]: the fixed cost of
# a call into a library (docs/library.md, "The cost of a call"):
# tests/library/libcall.nesl built with BUILD/nessie --library for the
# target (default cpu) into OUTDIR, then tests/library/libcall.c (C,
# N calls a measure, default 100000) and tests/library/libcall.py
# (Python with NumPy, N/5 calls; skipped without it), each printing µs a
# call beside a baseline in the same run; for cuda the C program again
# with NESSIE_HOST_MAX=0 (every vector on the device, none on the host
# path).  tests/gpu/libcall.sh runs it
# for cuda on a machine with a GPU.
set -u
BUILD=${1:?"usage: sh $0 BUILD OUTDIR [cpu|cuda] [N]"}
OUT=${2:?"usage: sh $0 BUILD OUTDIR [cpu|cuda] [N]"}
TARGET=${3:-cpu}
N=${4:-100000}
mkdir -p "$OUT"
dir=$(cd "$OUT" && pwd)
echo "libcall: target $TARGET, $(uname -m), $(nproc) cores, $(cc --version | head -1)"
[ "$TARGET" = cuda ] && command -v nvidia-smi >/dev/null 2>&1 &&
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
"$BUILD/nessie" --library --target="$TARGET" -o "$dir/libcall" tests/library/libcall.nesl ||
  { echo "libcall: the library did not build"; exit 1; }
cc -std=c17 -O2 -Wall -Wextra -Werror -I"$dir" -o "$dir/libcall_c" tests/library/libcall.c -L"$dir" -llibcall \
  -Wl,-rpath,"$dir" || { echo "libcall: the C program did not build"; exit 1; }
"$dir/libcall_c" "$N" || exit 1
# on the GPU, vectors of at most NESSIE_HOST_MAX (4096) elements stay on
# the host and their kernels run there: again with every one on the device
if [ "$TARGET" = cuda ]; then
  NESSIE_HOST_MAX=0 "$dir/libcall_c" "$N" || exit 1
fi
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy" 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
  "$py" tests/library/libcall.py "$dir" $((N / 5)) || exit 1
else
  echo "Python: skipped (no python3 with NumPy)"
fi
