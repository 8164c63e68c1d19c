#!/bin/sh
# tests/bench/ab.sh NESSIE_A NESSIE_B OUTDIR ROUNDS NAME=N...: pairs two
# compilers (two builds of nessie, each with its runtime beside it) on the
# benchmark programs, on one machine in one run, so that a change is
# timed against its base without the machine's drift between runs.
# Each NAME=N is tests/bench/NAME.nesl at size N, built by each compiler
# for the cuda target (TARGET=cpu for the CPU's) with the harness's
# driver (harness.py): the check values, then 11 calls of run_once timed
# by NESL's `time`, the first a warm-up.  The two executables run in
# turn, ROUNDS times, bound to one CPU where taskset is found; each line
# gives a round's median of the 10 timed calls, in ms.  The check values
# of A and B must be the same (the line says when they are not).
set -u
[ $# -ge 5 ] || { echo "usage: tests/bench/ab.sh NESSIE_A NESSIE_B OUTDIR ROUNDS NAME=N..." >&2; exit 2; }
A=$1 B=$2 OUT=$3 ROUNDS=$4
shift 4
. tests/bench/abcommon.sh
bench_sources "$OUT" "$@"
bench_builds "$OUT" "$A" .A "$@"
bench_builds "$OUT" "$B" .B "$@"
wait
for spec in "$@"; do
  name=${spec%%=*} n=${spec#*=}
  ok=true
  for side in A B; do
    [ -x "$OUT/$name.$n.$side" ] || { echo "$name=$n: $side's build failed: $(head -3 "$OUT/$name.$n.$side.build")"; ok=false; }
  done
  $ok || continue
  a="" b=""
  for r in $(seq "$ROUNDS"); do
    for side in A B; do
      $BIND "$OUT/$name.$n.$side" > "$OUT/$name.$n.$side.out.$r" 2>&1
      [ "$side" = A ] && a="$a $(median "$OUT/$name.$n.A.out.$r")" || b="$b $(median "$OUT/$name.$n.B.out.$r")"
    done
  done
  if [ "$(checks "$OUT/$name.$n.A.out.1")" != "$(checks "$OUT/$name.$n.B.out.1")" ] || [ -z "$(checks "$OUT/$name.$n.A.out.1")" ]; then
    check="checks differ: A $(checks "$OUT/$name.$n.A.out.1") B $(checks "$OUT/$name.$n.B.out.1") $(grep error "$OUT/$name.$n.B.out.1" | head -1)"
  else
    check="checks equal"
  fi
  echo "$name=$n  A:$a ms  B:$b ms  ($check)"
done
