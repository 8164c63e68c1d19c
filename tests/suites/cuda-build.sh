# cuda-build: where the CUDA runtime was built (nvcc found: CI has it,
# without a GPU), every program of the cpu suite compiles and links for
# --target=cuda (tests cuda-build/NAME, nvcc at -O0 unless
# NESSIE_NVCCFLAGS says otherwise).  Running them is tests/gpu/run.sh's,
# on a GPU (make gpu-test).  No test without the CUDA runtime.
. tests/suites/lib.sh
if [ -f "$BUILD/lib/nessie/libnessie_rt_cuda.a" ]; then
  progs=""
  for f in tests/programs/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl tests/errors/*.nesl examples/*.nesl; do
    [ -f "$f" ] || continue
    set -- $(head -1 "$f")
    case $f in tests/errors/*) case $3 in runtime|none) ;; *) continue ;; esac ;; esac
    progs="$progs $f"
  done
  TARGET=cuda NESSIE_NVCCFLAGS=${NESSIE_NVCCFLAGS:-"-O0 -Xcompiler -O0 -Xptxas -O0"} sh tests/cpu/build_all.sh "$NESSIE" "$OUT/cuda" $progs
  for f in $progs; do
    n=$(basename "$f" .nesl)
    if [ -x "$OUT/cuda/$n" ]; then pass "cuda-build/$n"
    else fail "cuda-build/$n" "$(head -8 "$OUT/cuda/$n.build")"; fi
  done
fi
finish
