# The shape of norm2 in λcu (the paper's section 5): kernels of one SOAC
# each: a REDUCE, a FILTER and MAPs; the CPU function norm2 runs the
# REDUCE twice (sum1, sum2), the FILTER once, the division MAP twice, and
# the predicate's MAP once (fusion, later, folds it into the FILTER).
set -u
dump=$("$NESSIE" --check-ir --dump=lcu tests/lcu/norm2.nesl) || { echo "--dump=lcu failed"; exit 1; }
kernels=$(printf '%s\n' "$dump" | grep -c '^kernel ')
reduce=$(printf '%s\n' "$dump" | grep -c '= REDUCE {')
filter=$(printf '%s\n' "$dump" | grep -c '= FILTER {')
maps=$(printf '%s\n' "$dump" | grep -c '= MAP {')
body=$(printf '%s\n' "$dump" | sed -n '/^function norm2/,/^}/p')
runs=$(printf '%s\n' "$body" | grep -c '= run K')
[ "$kernels" -eq 4 ] || { echo "expected 4 kernels, got $kernels"; printf '%s\n' "$dump"; exit 1; }
[ "$reduce" -eq 1 ] && [ "$filter" -eq 1 ] && [ "$maps" -eq 2 ] ||
  { echo "expected 1 REDUCE, 1 FILTER, 2 MAP kernels; got $reduce, $filter, $maps"; exit 1; }
[ "$runs" -eq 6 ] || { echo "expected norm2 to run 6 kernels, got $runs"; printf '%s\n' "$body"; exit 1; }
reduce_runs=$(printf '%s\n' "$body" | grep '= run K' | sed 's/.*run \(K[0-9]*\).*/\1/' | sort | uniq -c | sort -rn | head -1)
printf '%s\n' "$reduce_runs" | grep -q '^ *2 ' || { echo "a kernel should run twice: $reduce_runs"; exit 1; }
exit 0
