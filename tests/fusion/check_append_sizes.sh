# Barnes-Hut's `walks` (tests/bench/barneshut_steps.nesl) ends in `done ++
# walks(...)`, an append of vectors of (int, float, float): one append of
# each component, each sized by a `size append` of the same two lengths.
# Simplification keeps one `size` of those operands (fusion/simplify.c),
# so that fusion sees one size and puts the three appends in one kernel;
# with a `size` each, they ran three kernels at every step of the walk
# (3647 launches a call on the H200, 3456 before the sizes came).  The
# walk's recursive block then runs three kernels, the empty branch two:
# 5 in all (the block ran four before the tree's subscripts became
# their gathers' own checks, docs/flatten.md, index_invariant).
set -u
tmp=${TMPDIR:-/tmp}/nessie-appsz.$$
trap 'rm -f "$tmp".*' EXIT
sh tests/fusion/bench_program.sh barneshut_steps 1000 "$tmp.nesl"
body=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl" | sed -n '/^function walks /,/^}/p')
sizes=$(printf '%s\n' "$body" | grep -c '= size append')
[ "$sizes" -eq 1 ] || { echo "walks computes $sizes sizes of its append, expected 1:"; printf '%s\n' "$body"; exit 1; }
runs=$(printf '%s\n' "$body" | grep -c 'run K')
[ "$runs" -eq 5 ] || { echo "walks runs $runs kernels, expected 5:"; printf '%s\n' "$body"; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
