#!/bin/sh
# tests/bench/envab.sh NESSIE OUTDIR ROUNDS SETTINGS NAME=N...: pairs
# run-time settings of one executable (a policy of the runtime that an
# environment variable picks), as ab.sh pairs two compilers.  SETTINGS
# is a list of settings separated by '/', each one or more VAR=VALUE
# separated by ',' (`NESSIE_HOST_COPY=always/NESSIE_HOST_COPY=never`;
# `-` for none).  Each NAME=N is tests/bench/NAME.nesl at size N, built
# once by NESSIE (for the cuda target, TARGET=cpu for the CPU's) with
# ab.sh's harness statements: the check values, then 11 calls of
# run_once timed by NESL's `time`, the first a warm-up.  Each round runs
# the executable under every setting in turn, bound to one CPU where
# taskset is found; a setting's line gives each round's median of the
# 10 timed calls, in ms, and NESSIE_STATS's launches and waits of the
# first round (the whole run: the check and the 11 calls).  The check
# values of every setting must be the same (the line says when not).
set -u
[ $# -ge 5 ] || { echo "usage: tests/bench/envab.sh NESSIE OUTDIR ROUNDS SETTINGS NAME=N..." >&2; exit 2; }
NESSIE=$1 OUT=$2 ROUNDS=$3 SETTINGS=$4
shift 4
. tests/bench/abcommon.sh
bench_sources "$OUT" "$@"
bench_builds "$OUT" "$NESSIE" "" "$@"
wait
for spec in "$@"; do
  name=${spec%%=*} n=${spec#*=}
  exe=$OUT/$name.$n
  [ -x "$exe" ] || { echo "$name=$n: the build failed: $(head -3 "$exe.build")"; continue; }
  i=0
  for r in $(seq "$ROUNDS"); do
    i=0
    for setting in $(echo "$SETTINGS" | tr '/' ' '); do
      i=$((i + 1))
      vars=""
      [ "$setting" = - ] || vars=$(echo "$setting" | tr ',' ' ')
      # the first round counts launches and waits (NESSIE_STATS's line)
      if [ "$r" = 1 ]; then
        env $vars NESSIE_STATS=1 $BIND "$exe" > "$exe.$i.out.$r" 2>&1
      else
        env $vars $BIND "$exe" > "$exe.$i.out.$r" 2>&1
      fi
      eval "t$i=\"\${t$i:-} \$(median \"\$exe.\$i.out.\$r\")\""
    done
  done
  i=0
  for setting in $(echo "$SETTINGS" | tr '/' ' '); do
    i=$((i + 1))
    stats=$(sed -n 's/^stats: \([0-9]*\) kernel launches, \([0-9]*\) host synchronizations.*/\1 launches, \2 waits/p' "$exe.$i.out.1")
    check=$(same_check "$exe.$i.out.1" "$exe.1.out.1")
    eval "times=\$t$i"
    echo "$name=$n  $setting:$times ms  ($stats; $check)"
    eval "t$i="
  done
done
