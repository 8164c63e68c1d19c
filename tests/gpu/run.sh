#!/bin/sh
# tests/gpu/run.sh BUILD OUTDIR [SANITIZE]: the GPU target on a machine
# with an NVIDIA GPU (`make gpu-test`).  Prints the machine (GPU, driver,
# nvcc), then builds every program of tests/exec/check.sh for CUDA with
# BUILD/nessie and compares what each executable prints with its
# .expected, as the CPU target is compared.  With SANITIZE (a list of
# compute-sanitizer tools: memcheck racecheck initcheck synccheck), runs
# each executable under each tool, several at once, and fails a program
# on any report; there the runtime's cache of freed device blocks is off
# (NESSIE_ALLOC_CACHE=0, unless SANITIZER_ALLOC_CACHE says otherwise), so
# that the tool sees each vector's exact bounds and its free.  Ends with
# `N passed, M failed`; logs under OUTDIR.  Then the libraries of the
# CUDA target (tests/gpu/library.sh).
set -u
BUILD=$1
OUT=$2
SANITIZE=${3:-}
mkdir -p "$OUT"
echo "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -1)," \
     "$(uname -r), $(nvcc --version | tail -1)"
sh tests/exec/check.sh cuda "$BUILD" "$OUT/cuda" | tee "$OUT/check.log"
passed=$(sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' "$OUT/check.log")
failed=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$OUT/check.log")
[ -n "$passed" ] || { echo "tests/exec/check.sh did not finish"; exit 1; }
jobs=${SANITIZER_JOBS:-8}
export SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-600}
export NESSIE_ALLOC_CACHE=${SANITIZER_ALLOC_CACHE:-0}
for tool in $SANITIZE; do
  # every program, $jobs at once; a report (or a crash) fails it
  ls "$OUT/cuda" | grep -v '\.' | while read -r n; do echo "$n"; done |
    xargs -P "$jobs" -I{} sh -c 'timeout "${SANITIZER_TIMEOUT:-600}" compute-sanitizer --tool "$0" --error-exitcode 99 \
        --print-limit 20 "$1/cuda/{}" > "$1/{}.$0.out" 2> "$1/{}.$0.log"; echo $? > "$1/{}.$0.rc"' \
      "$tool" "$OUT"
  for rcf in "$OUT"/*."$tool".rc; do
    n=$(basename "$rcf" ".$tool.rc")
    rc=$(cat "$rcf")
    # 99: the tool reported something; 1 is a NESL run-time error the
    # program reports (checked above)
    if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
      passed=$((passed + 1))
      echo "[PASS] $tool/$n"
    else
      failed=$((failed + 1))
      echo "[FAIL] $tool/$n (exit $rc)"
      [ "$rc" = 124 ] && echo "    stopped after ${SANITIZER_TIMEOUT:-600} s"
      # compute-sanitizer prints its reports on the program's stdout
      grep -h '=========' "$OUT/$n.$tool.out" "$OUT/$n.$tool.log" | head -12 | sed 's/^/    /'
    fi
  done
done
# libraries (nessie --library --target=cuda): C, NumPy, CuPy and DLPack
sh tests/gpu/library.sh "$BUILD" "$OUT/library" | tee "$OUT/library.log"
passed=$((passed + $(grep -c '^\[PASS\]' "$OUT/library.log")))
failed=$((failed + $(grep -c '^\[FAIL\]' "$OUT/library.log")))
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
