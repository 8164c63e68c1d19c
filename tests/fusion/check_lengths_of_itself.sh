# A `check lengths` of a zip of a sequence with one made element for
# element from it (quickhull's `p in points; c in cr`, cr made from
# points): the lengths of each generator's segments are one value, so
# the check compares a vector with itself and cannot fail.  Value
# numbering on the flat IR (flatten/share.c) finds the two seg_lengths
# one and drops the check before lowering, where simplification
# (fusion/simplify.c, equal_components) used to find it: neither
# hsplit^'s lowered level nor its fused one checks lengths, and its
# answer is unfused's.
set -u
tmp=${TMPDIR:-/tmp}/nessie-lenself.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh quickhull 1000 "$tmp.nesl"
before=$("$NESSIE" --dump=lcu "$tmp.nesl" | sed -n '/^function hsplit\^/,/^}/p')
after=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^function hsplit\^/,/^}/p')
[ -n "$before" ] || { echo "no hsplit^ in the lowered program (the test's premise)"; exit 1; }
printf '%s\n' "$before" | grep -q 'check lengths' &&
  { echo "lowered, hsplit^ still checks lengths: $(printf '%s\n' "$before" | grep 'check lengths')"; exit 1; }
printf '%s\n' "$after" | grep -q 'check lengths' &&
  { echo "fused, hsplit^ still checks lengths: $(printf '%s\n' "$after" | grep 'check lengths')"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
