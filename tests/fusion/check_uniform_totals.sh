# Segments of k elements each have a total the host knows (flatten.c,
# uniform_total), so that the GPU's runtime never reads it back: a level
# of Barnes-Hut's build^ made the segments of `k in [0:4]` for every
# node and the quadrant groups' copies of xs, ys, ms and the quadrants
# (four per node) and waited twice to learn totals of 4 x nodes and 4 x
# bodies.  The flat IR carries them (`<total x>`); the CPU's runtime and
# the interpreters check every known total against the segdes's own
# (tests/flat/uniform_totals.nesl runs on each), and the answer is
# unfused's.
set -u
tmp=${TMPDIR:-/tmp}/nessie-uniform.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh barneshut 300 "$tmp.nesl"
flat=$("$NESSIE" --check-ir --dump=flat "$tmp.nesl" | sed -n '/^function build\^/,/^}/p')
[ -n "$flat" ] || { echo "no build^ in the flat program (the test's premise)"; exit 1; }
# the quadrants' range: ranges of the host's constants, its total known
quads=$(printf '%s\n' "$flat" | grep -c '= seg_range <total x[0-9]*> ')
[ "$quads" -ge 1 ] || { echo "build^'s range k in [0:4] has no known total"; exit 1; }
# the groups' copies of a node's values, each replicated four times
copies=$(printf '%s\n' "$flat" | grep -c '= seg_range <segments> <total x[0-9]*> ')
[ "$copies" -ge 4 ] || { echo "build^ replicates $copies of xs, ys, ms and qs with a known total, not 4"; exit 1; }
# a lifted [x] (the node before its children's nodes): one a segment
single=$(printf '%s\n' "$flat" | grep -c '= make_segdes <total x[0-9]*> ')
[ "$single" -ge 1 ] || { echo "build^'s [node] has no known total"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
