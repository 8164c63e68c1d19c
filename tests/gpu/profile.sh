#!/bin/sh
# tests/gpu/profile.sh BUILD OUTDIR [N]: per-kernel GPU profiles
# (NESSIE_PROFILE=1, docs/codegen.md) of the recursive programs, on a
# machine with an NVIDIA GPU.  Builds with BUILD/nessie (and that machine's
# nvcc; LD_LIBRARY_PATH as tools/gpu-bundle.sh says, set by the caller):
#   quicksort  tests/bench/quicksort.nesl at n = N (default 1000000, its
#              size in benchmarks.conf), as tests/bench/harness.py builds
#              it: the check's sort, then 1 + REPS timed sorts (REPS=4)
#   level      tests/bench/level.nesl as it is (small vectors on the host)
#   level-gpu  the same executable with NESSIE_HOST_MAX=0: every kernel on
#              the GPU, the cost of a recursion level
# and runs each with NESSIE_PROFILE=1 (PROFILE_MODE=all: every site) and
# NESSIE_STATS=1.  OUTDIR gets one
# file per run, NAME.profile: what the program printed, then its profile
# (stderr); the executables stay in a temporary directory, named at the
# end.  Exit status 1 if a build or a run failed.
#   LD_LIBRARY_PATH=$PWD/.gpu/lib sh tests/gpu/profile.sh .gpu/build OUTDIR
set -u
[ $# -ge 2 ] || { echo "usage: sh tests/gpu/profile.sh BUILD OUTDIR [N]" >&2; exit 2; }
BUILD=$1
OUT=$2
N=${3:-1000000}
REPS=${REPS:-4}
command -v nvcc > /dev/null || PATH=/usr/local/cuda/bin:$PATH
export PATH
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nessie-profile.XXXXXX") || exit 1
# the GPU's architecture, as the benchmark harness picks it
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
ARCH=${PROFILE_ARCH:-sm_${cap:-90}}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "machine: ${gpu:-no nvidia-smi}; built for $ARCH"
status=0

# build NAME SOURCE: WORK/NAME from SOURCE, or a failure in OUT/NAME.profile
build() {
  if ! "$BUILD/nessie" --target=cuda --arch="$ARCH" "$2" -o "$WORK/$1" > "$WORK/$1.build" 2>&1; then
    { echo "== the build of $2 failed"; cat "$WORK/$1.build"; } > "$OUT/$1.profile"
    echo "$1: the build failed"
    status=1
    return 1
  fi
}

# run NAME EXECUTABLE [VAR=VALUE...]: OUT/NAME.profile, shown here too
run() {
  name=$1
  exe=$2
  shift 2
  env NESSIE_PROFILE="${PROFILE_MODE:-1}" NESSIE_STATS=1 "$@" "$WORK/$exe" > "$WORK/$name.out" 2> "$WORK/$name.err"
  rc=$?
  {
    echo "== $name: $exe $* (exit $rc)"
    cat "$WORK/$name.out"
    echo "== stderr"
    cat "$WORK/$name.err"
  } > "$OUT/$name.profile"
  cat "$OUT/$name.profile"
  echo
  [ "$rc" = 0 ] || status=1
}

# quicksort as the harness builds it (tests/bench/README.md): `n = ...;`
# replaced, the check and the timing driver appended
sed "s/^n = [0-9]*;/n = $N;/" tests/bench/quicksort.nesl > "$WORK/quicksort.nesl"
cat >> "$WORK/quicksort.nesl" << EOF

check(run_once(input(n)));
function bench_reps(k, data) =
  if k == 0 then [] float
  else let (r, tm) = time(run_once(data)) in [tm] ++ bench_reps(k - 1, data);
let data = input(n) in bench_reps($((REPS + 1)), data);
EOF
if build quicksort "$WORK/quicksort.nesl"; then
  run quicksort quicksort
fi
if build level tests/bench/level.nesl; then
  run level level
  run level-gpu level NESSIE_HOST_MAX=0
fi
echo "profiles in $OUT; executables in $WORK"
exit $status
