# cuda-build: where the CUDA runtime was built (nvcc found: CI has it,
# without a GPU), every program of the cpu suite compiles and links for
# --target=cuda (tests cuda-build/NAME).  Running them is tests/gpu/run.sh's,
# on a GPU (make gpu-test).  No test without the CUDA runtime.
#
# The flags (NESSIE_NVCCFLAGS unless set) make the check cheap without
# skipping a step (the test cuda-build/flags-reach-ptxas keeps it so):
# every unit still goes through cudafe++, cicc (the device code to PTX),
# ptxas (PTX to sm_90 machine code, where an undefined device function
# or a kernel's shared memory over the limit is an error: the examples
# only, below), fatbinary, the host compiler and the link.  The host compiler runs at -O0; -Ofc
# max (--Ofast-compile, nvcc 12.8 and later) tells cicc and ptxas to
# skip their costly optimizations: a kernel unit's cicc and ptxas take
# 2.7 s of processor time instead of 4.4 (cicc at its default -O3, ptxas
# at -O0: the flags before), the whole unit 4.8 s instead of 6.6.  An
# older nvcc gets the flags before.
. tests/suites/lib.sh
if [ -f "$BUILD/lib/nessie/libnessie_rt_cuda.a" ]; then
  progs=""
  for f in tests/programs/*.nesl tests/flat/*.nesl tests/lcu/*.nesl tests/syntax/*.nesl tests/errors/*.nesl examples/*.nesl; do
    [ -f "$f" ] || continue
    set -- $(head -1 "$f")
    case $f in tests/errors/*) case $3 in runtime|none) ;; *) continue ;; esac ;; esac
    progs="$progs $f"
  done
  flags="-O0 -Xcompiler -O0 -Xptxas -O0"
  nvcc=${NESSIE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  "$nvcc" --help 2>/dev/null | grep -q -- --Ofast-compile && flags="-O0 -Xcompiler -O0 -Ofc max"
  flags=${NESSIE_NVCCFLAGS:-$flags}
  # The examples (what a user builds first) assemble for the GPU that
  # nessie targets by default (sm_90: through ptxas, as a GPU machine's
  # build does); the other programs for the virtual architecture
  # compute_90, PTX that the driver would assemble as it loads it: every
  # step above but ptxas, 28% less processor time (tests/syntax: 151.5 ->
  # 108.4 s user, 2026-12-07), where `make test` must stay within 20
  # minutes on CI.  What only ptxas finds (a device function declared
  # and never defined, a kernel's shared memory over the limit) is then
  # found for those programs by `make gpu-test`, which builds every one
  # for sm_90 and runs it.
  examples="" others=""
  for f in $progs; do
    case $f in examples/*) examples="$examples $f" ;; *) others="$others $f" ;; esac
  done
  TARGET=cuda NESSIE_NVCCFLAGS=$flags sh tests/cpu/build_all.sh "$NESSIE" "$OUT/cuda" $examples
  TARGET=cuda ARCH=compute_90 NESSIE_NVCCFLAGS=$flags sh tests/cpu/build_all.sh "$NESSIE" "$OUT/cuda" $others
  for f in $progs; do
    n=$(basename "$f" .nesl)
    if [ -x "$OUT/cuda/$n" ]; then pass "cuda-build/$n"
    else fail "cuda-build/$n" "$(head -8 "$OUT/cuda/$n.build")"; fi
  done
  # a program whose statements are in units of their own (more than
  # 1000: tests/cli/split_statements.sh runs it on the CPU): extern
  # globals, functions, kernels and table of sites, as C++ reads them
  sh tests/scale/gen.sh mixed 2493 > "$OUT/split_statements.nesl"
  if NESSIE_NVCCFLAGS=$flags "$NESSIE" --target=cuda --keep -o "$OUT/split_statements" "$OUT/split_statements.nesl" \
       > "$OUT/split_statements.log" 2>&1; then pass "cuda-build/split_statements"
  else fail "cuda-build/split_statements" "$(head -8 "$OUT/split_statements.log")"; fi
  # its units of host code only (the host functions and main, the
  # statements) are C++ for the host's compiler, .cpp, with the runtime's
  # host interface and not the device's templates; its kernels .cu
  host_units=$(ls "$OUT"/split_statements*.cpp 2>/dev/null | wc -l)
  if [ "$host_units" = 4 ] && [ -f "$OUT/split_statements_5.cu" ] &&
     ! grep -l 'gpu\.cuh\|__device__\|__global__' "$OUT"/split_statements*.cpp > /dev/null &&
     grep -q '^#include "gpu.cuh"' "$OUT/split_statements_5.cu"; then pass "cuda-build/host-units-cpp"
  else fail "cuda-build/host-units-cpp" "kept: $(cd "$OUT" && ls split_statements*.c*)"; fi
  # the runtime's self-test (make gpu-segtest) and the GPU machine's
  # measuring tools (api_cost, reducetest), run on a GPU only, still
  # compile against the runtime's headers: a change of a skeleton's
  # signature once left segtest broken for four sessions
  for tool in segtest api_cost reducetest; do
    extra=
    [ "$tool" = reducetest ] && extra=--extended-lambda
    # shellcheck disable=SC2086
    if "$nvcc" $flags $extra -std=c++17 -arch=compute_90 -Irt -c -o "$OUT/$tool.o" "tests/gpu/$tool.cu" \
         > "$OUT/$tool.log" 2>&1; then pass "cuda-build/$tool"
    else fail "cuda-build/$tool" "$(grep -m 3 error "$OUT/$tool.log")"; fi
  done
  # the build cache on the CUDA path: the second build of a program runs
  # no nvcc -c, only the link (tests/cli/build_cache.sh tests the rest)
  for i in 1 2; do
    NESSIE_NVCCFLAGS=$flags "$NESSIE" -v --target=cuda -o "$OUT/sqr_cached" examples/sqr.nesl > "$OUT/sqr_cached.$i" 2>&1
  done
  if [ -x "$OUT/sqr_cached" ] && ! grep -q ' -c ' "$OUT/sqr_cached.2" && grep -q 'from the cache' "$OUT/sqr_cached.2"; then
    pass "cuda-build/cache"
  else fail "cuda-build/cache" "$(cat "$OUT/sqr_cached.2")"; fi
  # the flags still assemble for a real GPU (nessie's default sm_90): a
  # device function declared and never defined fails the build, as only
  # ptxas for a real architecture finds it (with a virtual one, compute_90,
  # the build would pass and the GPU's loader would fail)
  printf '%s\n' '__device__ int never_defined(int);' \
    '__global__ void k(int *o) { o[0] = never_defined(o[1]); }' \
    'int main() { k<<<1, 1>>>((int *)0); return 0; }' > "$OUT/undefined.cu"
  # shellcheck disable=SC2086
  if "$nvcc" $flags -arch=sm_90 -o "$OUT/undefined" "$OUT/undefined.cu" > "$OUT/undefined.log" 2>&1; then
    fail "cuda-build/flags-reach-ptxas" "nvcc $flags -arch=sm_90 built a kernel that calls an undefined device function"
  elif grep -q "Unresolved extern function" "$OUT/undefined.log"; then pass "cuda-build/flags-reach-ptxas"
  else fail "cuda-build/flags-reach-ptxas" "$(head -5 "$OUT/undefined.log")"; fi
fi
finish
