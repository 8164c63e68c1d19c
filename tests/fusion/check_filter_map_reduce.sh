# `sum({x * x : x in xs | x > 0.0})` (tests/bench/norm2.nesl): a FILTER, a
# MAP over what it keeps and a REDUCE of the MAP are one REDUCE (pdg.c,
# filter_map_reduce: MAP-REDUCE, then FILTER-REDUCE), so that norm2 runs
# two kernels, the fewest its sqrt between them allows.
set -u
tmp=${TMPDIR:-/tmp}/nessie-fmr.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh norm2 1000 "$tmp.nesl"
body=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^function norm2 /,/^}/p')
runs=$(printf '%s\n' "$body" | grep -c '= run K')
[ "$runs" -eq 2 ] || { echo "norm2 runs $runs kernels, expected 2:"; printf '%s\n' "$body"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
