# tests/bench/abcommon.sh: what ab.sh, envab.sh and flagsab.sh share, sourced by
# each (run from the repository's root).

# BIND: bind a run to one CPU (AB_CPU, default 2) where taskset is found
# and can bind to it (a 2-core machine has no CPU 2: every run failed)
BIND=""
command -v taskset > /dev/null && taskset -c "${AB_CPU:-2}" true 2> /dev/null && BIND="taskset -c ${AB_CPU:-2}"

# the median of the timed calls of output $1, in ms
median() {
  sed -n 's/^it = \[\(.*\)\] : \[float\]$/\1/p' "$1" | tail -1 | tr ',' '\n' | tr -d ' ' | tail -n +2 | sort -g |
    awk '{ t[NR] = $1 * 1000 } END { if (NR == 0) print "none"; else printf "%.2f", NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}

# check(...)'s line of output $1, before the times
checks() { grep '^it = \[.*\] : \[float\]$' "$1" | head -1; }

# whether output $1's check values are those of output $2, the first
# setting's: a phrase for the setting's line
same_check() {
  if [ -z "$(checks "$1")" ] || [ "$(checks "$1")" != "$(checks "$2")" ]; then
    echo "check differs: $(checks "$1") $(grep error "$1" | head -1)"
  else
    echo "check as the first's"
  fi
}

# bench_sources OUT NAME=N...: tests/bench/NAME.nesl at size N with the
# harness's statements (the check values, then 11 calls of run_once
# timed by NESL's `time`, the first a warm-up), into OUT/NAME.N.nesl
# (OUT made if need be)
bench_sources() {
  out=$1
  shift
  mkdir -p "$out"
  for spec in "$@"; do
    src=$out/${spec%%=*}.${spec#*=}.nesl
    sed "s/^n = [0-9]*;/n = ${spec#*=};/" "tests/bench/${spec%%=*}.nesl" > "$src"
    cat >> "$src" << 'EOF2'
check(run_once(input(n)));
function bench_reps(k, data) =
  if k == 0 then [] float
  else let (r, tm) = time(run_once(data)) in [tm] ++ bench_reps(k - 1, data);
let data = input(n) in bench_reps(11, data);
EOF2
  done
}

# bench_builds OUT NESSIE SUFFIX NAME=N...: each OUT/NAME.N.nesl built by
# NESSIE (for TARGET, default cuda) into OUT/NAME.NSUFFIX, its messages
# in OUT/NAME.NSUFFIX.build; in the background (the caller waits: nvcc
# takes most of the time)
bench_builds() {
  out=$1 nessie=$2 suffix=$3
  shift 3
  for spec in "$@"; do
    exe=$out/${spec%%=*}.${spec#*=}$suffix
    "$nessie" --target="${TARGET:-cuda}" "$out/${spec%%=*}.${spec#*=}.nesl" -o "$exe" > "$exe.build" 2>&1 &
  done
}
