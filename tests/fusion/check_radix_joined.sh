# Radix sort's pass (tests/bench/radixsort.nesl), `let parts = split(xs,
# flags) in parts[0] ++ parts[1]`, after fusion: one run of one kernel,
# a joined PARTITION (fusion/join.c) whose predicate is split's negated
# (the others, the false flags, come first), and no append, length or
# size on the host: on a GPU the pass is one launch of the PARTITION
# and one of the move, with no wait for its count.
set -u
tmp=${TMPDIR:-/tmp}/nessie-radix.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh radixsort 1000 "$tmp.nesl"
dump=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl") || { echo "--dump=fused failed"; exit 1; }
body=$(printf '%s\n' "$dump" | sed -n '/^function radix_pass /,/^}/p')
lines=$(printf '%s\n' "$body" | grep -c '^  let ')
runs=$(printf '%s\n' "$body" | grep -c '= run K')
[ "$lines" -eq 1 ] && [ "$runs" -eq 1 ] || { echo "radix_pass should be one run, no more:"; printf '%s\n' "$body"; exit 1; }
k=$(printf '%s\n' "$body" | sed -n 's/.*= run \(K[0-9]*\) .*/\1/p')
kernel=$(printf '%s\n' "$dump" | sed -n "/^kernel $k /,/^}/p")
printf '%s\n' "$kernel" | grep -qE '= PARTITION .*\{ \([a-z0-9_]+, [a-z0-9_]+\) => not\(.*\) joined$' ||
  { echo "its kernel should be a joined PARTITION of the negated flags:"; printf '%s\n' "$kernel"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
