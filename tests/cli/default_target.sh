# Issue 38, item 11: the target when none is asked for.  It was CUDA
# wherever nvcc is found, so README's first session built ./sqr on a
# machine with nvcc and no GPU, and ./sqr said "no CUDA device".  Now it
# is CUDA where nvcc and an NVIDIA GPU are found, else the CPU; where
# only the GPU is missing a note on stderr says so, and the executable
# runs here.  --target=cuda still builds for a GPU (the cuda-build suite
# does so on CI, which has nvcc and no GPU), without a note.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function sqr(x) = x * x;\nsqr(7);\n' > "$tmp/sqr.nesl"
# what nessie looks at (codegen/build.c, gpu_present)
if ls /proc/driver/nvidia/gpus/* /dev/dxg > /dev/null 2>&1 || ls /dev | grep -q '^nvidia[0-9]'; then
  echo "a GPU is here: the default is CUDA, which the GPU tests run" >&2
  exit 0
fi
"$NESSIE" -o "$tmp/sqr" "$tmp/sqr.nesl" 2> "$tmp/err" || { echo "the default build: exit $?: $(cat "$tmp/err")"; exit 1; }
[ "$("$tmp/sqr" 2>&1)" = "it = 49 : int" ] || { echo "the default executable prints: $("$tmp/sqr" 2>&1)"; exit 1; }
if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  grep -q '^nessie: note: no NVIDIA GPU on this machine: building for the CPU' "$tmp/err" ||
    { echo "no note that the executable is a CPU one: $(cat "$tmp/err")"; exit 1; }
  NESSIE_NVCCFLAGS=-O0 "$NESSIE" --target=cuda -o "$tmp/cu" "$tmp/sqr.nesl" 2> "$tmp/err" ||
    { echo "--target=cuda: exit $?: $(cat "$tmp/err")"; exit 1; }
  [ ! -s "$tmp/err" ] || { echo "--target=cuda says: $(cat "$tmp/err")"; exit 1; }
  # a CUDA executable: it names the CUDA runtime
  grep -q -a cudaGetDeviceCount "$tmp/cu" || { echo "--target=cuda did not build a CUDA executable"; exit 1; }
else
  [ ! -s "$tmp/err" ] || { echo "without nvcc the default build says: $(cat "$tmp/err")"; exit 1; }
fi
exit 0
