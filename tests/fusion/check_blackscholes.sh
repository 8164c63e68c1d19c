# Black-Scholes (tests/bench/blackscholes.nesl at n = 1000): the apply-to-each
# of run_once is one kernel.  Three things make it so, each checked here by
# what breaks without it: abs and the cumulative normal's `if x < 0.0 then
# 1.0 - w else w` become SELECTs (flatten.c, if-conversion), the lifted
# black_scholes^ and cnd^ are inlined (lower.c), and the pairs across two
# ILP windows of the region are fused (schedule.c, the seams); and its
# MAPs, a DAG, merge into one whose thunk shares its values in lets.  An `if`
# whose untaken branch could fail still packs each branch's elements.
set -u
tmp=${TMPDIR:-/tmp}/nessie-bs.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh blackscholes 1000 "$tmp.nesl"
body=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^function run_once /,/^}/p')
runs=$(printf '%s\n' "$body" | grep -c '= run K[0-9]* (x')
[ "$runs" -eq 1 ] || { echo "run_once runs $runs kernels on its elements, expected 1:"; printf '%s\n' "$body"; exit 1; }
printf '%s\n' "$body" | grep -q '= [a-z_]*\^ (' && { echo "run_once still calls a lifted function:"; printf '%s\n' "$body"; exit 1; }
# ... and that kernel is one MAP: the DAG of MAPs merged with shared lets
# (rules.c, merge_maps), no MAP left writing a vector for the next
kernel=$(printf '%s\n' "$body" | sed -n 's/.*= run \(K[0-9]*\) (x.*/\1/p')
soacs=$("$NESSIE" --dump=fused "$tmp.nesl" | sed -n "/^kernel $kernel /,/^}/p" | grep -c ' = [A-Z_]* {')
[ "$soacs" -eq 1 ] || { echo "run_once's kernel $kernel has $soacs SOACs, expected one MAP"; exit 1; }
cat > "$tmp.div.nesl" <<'NESL'
{if x == 0 then 0 else 10 / x : x in [0, 1, 2]};
{abs(x) : x in [-3, 0, 4]};
NESL
flat=$("$NESSIE" --dump=flat "$tmp.div.nesl")
packs=$(printf '%s\n' "$flat" | grep -c ' = pack \| = partition ')
[ "$packs" -ge 1 ] || { echo "the division's if was converted to a select: it may divide by zero"; exit 1; }
[ "$packs" -le 1 ] || { echo "abs was not converted to a select: $packs packs"; exit 1; }
exit 0
