# A FILTER whose pull shares values in lets (composition leaves them when
# the MAP it reads is also returned: rules.c, merge_maps) still fuses into
# the REDUCE of what it keeps (rules.c, filter_reduce, copies the lets):
# one REDUCE, no FILTER, the returned squares the REDUCE's map column
# (rule_map_scan: the MAP beside it, in the same pass), and the answer
# of the unfused program.
set -u
tmp=${TMPDIR:-/tmp}/nessie-frl.$$
trap 'rm -f "$tmp".*' EXIT
cat > "$tmp.nesl" <<'NESL'
function squares_and_sum(xs) =
  let ys = {x * x : x in xs};
      zs = {y + 1.0 : y in ys}
  in (sum({z : z in zs | z > 2.0}), ys);
squares_and_sum([1.0, 2.0, 3.0, -0.5]);
NESL
body=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^kernel /,/^}/p')
for soac in FILTER MAP REDUCE; do
  n=$(printf '%s\n' "$body" | grep -c "= $soac ")
  want=0; [ $soac = REDUCE ] && want=1
  [ "$n" -eq "$want" ] || { echo "$n ${soac}s, expected $want:"; printf '%s\n' "$body"; exit 1; }
done
printf '%s\n' "$body" | grep -q "= REDUCE .* maps 1$" ||
  { echo "the REDUCE carries no map column:"; printf '%s\n' "$body"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
