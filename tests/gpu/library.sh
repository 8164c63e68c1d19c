#!/bin/sh
# tests/gpu/library.sh BUILD OUTDIR: `nessie --library --target=cuda` on
# a machine with an NVIDIA GPU (make gpu-test runs it through
# tests/gpu/run.sh): tests/library/kernels.nesl built for CUDA, the C
# program and the NumPy tests of the CPU suite (tests/suites/library.sh)
# against it, then CuPy and DLPack arrays (tests/library/test_device.py,
# skipped without CuPy).  Prints [PASS]/[FAIL] lines.
set -u
BUILD=$1
OUT=$2
dir=$OUT/lib
mkdir -p "$dir"
if "$BUILD/nessie" --library --target=cuda -o "$dir/kernels" tests/library/kernels.nesl >"$OUT/build.log" 2>&1; then
  echo "[PASS] library/build"
else
  echo "[FAIL] library/build"; sed 's/^/    /' "$OUT/build.log" | head -20; exit 0
fi
if cc -std=c17 -Wall -I"$dir" -o "$dir/test_kernels" tests/library/test_kernels.c -L"$dir" -lkernels -pthread \
     -Wl,-rpath,"$(cd "$dir" && pwd)" 2>"$OUT/c.log"; then
  "$dir/test_kernels" | sed 's/^\[\(PASS\|FAIL\)\] c /[\1] library\/c /'
else
  echo "[FAIL] library/c link"; sed 's/^/    /' "$OUT/c.log" | head -20
fi
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "[FAIL] library/python: no python3 with NumPy (make setup)"; exit 0; }
"$py" tests/library/test_kernels.py "$dir" 2>&1 | sed 's/^\[\(PASS\|FAIL\)\] python /[\1] library\/python /'
"$py" tests/library/test_device.py "$dir" 2>&1 | sed 's/^\[\(PASS\|FAIL\)\] device /[\1] library\/device /'
