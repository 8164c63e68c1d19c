#!/bin/sh
# tests/bench/flagsab.sh NESSIE OUTDIR ROUNDS FLAGSETS NAME=N...: pairs
# builds of one compiler under several CUDA compiler flags (the
# runtime's compile-time settings, `-DNESSIE_FILTER_ITEMS4=8`), as
# envab.sh pairs run-time settings.  FLAGSETS is a list of
# NESSIE_NVCCFLAGS values separated by '/', the words of each separated
# by ',' (`-O3/-O3,-DNESSIE_FILTER_ITEMS4=8`).  Each NAME=N is
# tests/bench/NAME.nesl at size N with ab.sh's harness statements, built
# once under each flag set; each round runs the executables in turn,
# bound to one CPU where taskset is found; a flag set's line gives each
# round's median of the 10 timed calls, in ms.  The check values of
# every flag set must be the first's (the line says when not).
set -u
[ $# -ge 5 ] || { echo "usage: tests/bench/flagsab.sh NESSIE OUTDIR ROUNDS FLAGSETS NAME=N..." >&2; exit 2; }
NESSIE=$1 OUT=$2 ROUNDS=$3 FLAGSETS=$4
shift 4
. tests/bench/abcommon.sh
bench_sources "$OUT" "$@"
sets=$(echo "$FLAGSETS" | tr '/' ' ')
i=0
for flags in $sets; do
  i=$((i + 1))
  NESSIE_NVCCFLAGS=$(echo "$flags" | tr ',' ' ') bench_builds "$OUT" "$NESSIE" ".f$i" "$@"
done
wait
for spec in "$@"; do
  name=${spec%%=*} n=${spec#*=}
  for r in $(seq "$ROUNDS"); do
    i=0
    for flags in $sets; do
      i=$((i + 1))
      exe=$OUT/$name.$n.f$i
      [ -x "$exe" ] || continue
      $BIND "$exe" > "$exe.out.$r" 2>&1
      eval "t$i=\"\${t$i:-} \$(median \"\$exe.out.\$r\")\""
    done
  done
  i=0
  for flags in $sets; do
    i=$((i + 1))
    exe=$OUT/$name.$n.f$i
    if [ ! -x "$exe" ]; then
      echo "$name=$n  $flags: the build failed: $(head -3 "$exe.build")"
      continue
    fi
    check=$(same_check "$exe.out.1" "$OUT/$name.$n.f1.out.1")
    eval "times=\$t$i"
    echo "$name=$n  $flags:$times ms  ($check)"
    eval "t$i="
  done
done
