# Two simplifications lifted code needs (fusion/simplify.c, facts.c), on
# quicksort's level (quicksort^ of tests/flat/quicksort_100k.nesl): the
# offsets of the pairs [lesser, greater], an int SCAN of the constant 2
# once the invariant dist(2, n) is read through, become the MAP i * 2,
# which fuses; and dist(2, n), n a count of the branch's segments (a
# REDUCE of btoi from 0, never negative), cannot fail, so once nothing
# reads it, it goes.
set -u
fused=$("$NESSIE" -O1 --check-ir --dump=fused tests/flat/quicksort_100k.nesl) || { echo "no fused dump"; exit 1; }
if printf '%s\n' "$fused" | grep -qE 'SCAN \{ i_[0-9]+ => -?[0-9]+(@[0-9:]+)? \}'; then
  echo "a SCAN of a constant is left: $(printf '%s\n' "$fused" | grep -E 'SCAN \{ i_[0-9]+ => -?[0-9]+' | head -1 | cut -c1-120)"
  exit 1
fi
printf '%s\n' "$fused" | grep -qE '\(i_[0-9]+ \* 2\)' || { echo "no MAP i * 2 where the offsets of the pairs were"; exit 1; }
# the kernels that are a MAP of a constant, and the runs of them in the
# level whose result nothing after reads
consts=$(printf '%s\n' "$fused" | awk '/^kernel K[0-9]+ / { k = $2 } /= MAP \{ i_[0-9]+ => -?[0-9]+(@[0-9:]+)? \} \(/ { print k }' | sort -u)
level=$(printf '%s\n' "$fused" | sed -n '/^function quicksort\^/,/^}/p')
for k in $consts; do
  for v in $(printf '%s\n' "$level" | sed -n "s/^ *let \(x[0-9]*\) : \[int\][^=]*= run $k (.*/\1/p"); do
    uses=$(printf '%s\n' "$level" | grep -c "[(, ]$v[,)]")
    [ "$uses" -gt 0 ] || { echo "quicksort^ still makes $v by $k, which nothing reads"; exit 1; }
  done
done
exit 0
