# A `check lengths` of a zip of a sequence with one made element for
# element from it (quickhull's `p in points; c in cr`, cr made from
# points): lowering checks the lengths of each generator's segments, two
# runs of seg_lengths that simplification makes one, so the REDUCE
# compares a vector with itself and cannot fail (fusion/simplify.c,
# equal_components).  Simplified, hsplit^'s level keeps none of the
# check, its REDUCE or the seg_lengths run; its answer is unfused's.
set -u
tmp=${TMPDIR:-/tmp}/nessie-lenself.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh quickhull 1000 "$tmp.nesl"
before=$("$NESSIE" --dump=lcu "$tmp.nesl" | sed -n '/^function hsplit\^/,/^}/p')
after=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^function hsplit\^/,/^}/p')
printf '%s\n' "$before" | grep -q 'check lengths' ||
  { echo "the lowered level should check the zip's lengths (the test's premise)"; exit 1; }
printf '%s\n' "$after" | grep -q 'check lengths' &&
  { echo "simplified, hsplit^ still checks lengths: $(printf '%s\n' "$after" | grep 'check lengths')"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
