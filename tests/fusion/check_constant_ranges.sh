# A range of constant bounds inside an apply-to-each (Barnes-Hut's
# `k in [0:4]` for every node of a level of build^) has the same bounds
# at every element: lowering checks them once as it compiles
# (lower.c, passes_everywhere) and makes no REDUCE of the segments'
# checks, whose result the host read back (a launch and a wait a level
# on the GPU).  A bad constant range is still checked where it runs
# (tests/flat/const_ranges.nesl), and the answer is unfused's.
set -u
tmp=${TMPDIR:-/tmp}/nessie-constrange.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh barneshut 300 "$tmp.nesl"
lowered=$("$NESSIE" --check-ir --dump=lcu "$tmp.nesl" | sed -n '/^function build\^/,/^}/p')
[ -n "$lowered" ] || { echo "no build^ in the lowered program (the test's premise)"; exit 1; }
printf '%s\n' "$lowered" | grep -q 'range_segdes\|run K' || { echo "build^ makes no range (the test's premise)"; exit 1; }
# (a check of the segments' bounds checks what their REDUCE found: three
# variables; a range of the host's checks its own bounds)
segs='check range (x[0-9]*, x[0-9]*, x[0-9]*)'
printf '%s\n' "$lowered" | grep -q "$segs" &&
  { echo "build^ still checks its segments' ranges: $(printf '%s\n' "$lowered" | grep "$segs")"; exit 1; }
bad=$("$NESSIE" --check-ir --dump=lcu tests/flat/const_ranges.nesl | grep -c "$segs")
[ "$bad" -ge 5 ] || { echo "const_ranges.nesl: $bad checks of segments' ranges, where its five bad ranges need one each"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
