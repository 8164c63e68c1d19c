# A MAP that only MAPs over its space read, all in one kernel, joins
# them (fusion/schedule.c, join_shared_producers): the filter of a
# sequence of tuples of sequences (Barnes-Hut's `nonempty`) packs their
# segments, and one MAP says where each element of the pack comes from
# (its segment's source offset plus its place in it) for the three MAPs
# that gather x, y and m by it.  The model counted the MAP's reads once
# for each of the three, as if each recomputed it, and left it a kernel
# of its own writing its int vector; it is now one SEG_MAP with the
# gathers, the place computed once, and the answer is unfused's.
set -u
tmp=${TMPDIR:-/tmp}/nessie-sharedprod.$$
trap 'rm -f "$tmp".*' EXIT
cat > "$tmp.nesl" <<'NESL'
function nonempty(groups) = {(gx, gy, gm, k) in groups | #gx > 0};
function groups(xs, ys, ms) =
  nonempty({({x : x in xs; q in xs | q > float(k)}, {y : y in ys; q in xs | q > float(k)},
             {w : w in ms; q in xs | q > float(k)}, k) : k in [0:4]});
{groups(a, {x + 1.0 : x in a}, {x * 2.0 : x in a}) : a in [[1.0, 2.0, 3.0], [0.5], [] float, [2.5, 0.25]]};
NESL
fused=$("$NESSIE" --check-ir --dump=fused "$tmp.nesl") || { echo "--dump=fused failed"; exit 1; }
printf '%s\n' "$fused" | grep -q 'SEG_MAP { (i_[0-9]*, s_[0-9]*) => let a_[0-9]* = x[0-9]*\[s_[0-9]*\] + (i_[0-9]* - x[0-9]*\[s_[0-9]*\]) \* x[0-9]*\[s_[0-9]*\]; .*!\[a_[0-9]*\].*!\[a_[0-9]*\].*!\[a_[0-9]*\]' ||
  { echo "no kernel computes the pack's places and gathers the three sequences by them:"; printf '%s\n' "$fused" | grep -E 'SEG_MAP|MAP' | cut -c1-200; exit 1; }
want=$("$NESSIE" -O0 --interp=lcu "$tmp.nesl" | tail -1)
got=$("$NESSIE" --interp=lcu "$tmp.nesl" | tail -1)
[ "$got" = "$want" ] || { echo "fused: $got, unfused: $want"; exit 1; }
exit 0
