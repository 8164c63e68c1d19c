# The shape of norm2 in λcu (the paper's section 5, before fusion): three
# kernels of one SOAC each, a REDUCE, a FILTER (with the predicate
# x > 0.0 in its own thunk) and a MAP; the CPU function norm2 runs them
# five times: the REDUCE twice (sum1, sum2), the FILTER once, the MAP
# twice.  Shape analysis reaches λcu: both MAPs' results have the shape
# of the input (one shape class, printed `#N` after the type), and the
# FILTER's result has none.
set -u
dump=$("$NESSIE" --check-ir --dump=lcu tests/lcu/norm2.nesl) || { echo "--dump=lcu failed"; exit 1; }
kernels=$(printf '%s\n' "$dump" | grep -c '^kernel ')
reduce=$(printf '%s\n' "$dump" | grep -c '= REDUCE {')
filter=$(printf '%s\n' "$dump" | grep -c '= FILTER {')
maps=$(printf '%s\n' "$dump" | grep -c '= MAP {')
body=$(printf '%s\n' "$dump" | sed -n '/^function norm2/,/^}/p')
runs=$(printf '%s\n' "$body" | grep -c '= run K')
[ "$kernels" -eq 3 ] || { echo "expected 3 kernels, got $kernels"; printf '%s\n' "$dump"; exit 1; }
[ "$reduce" -eq 1 ] && [ "$filter" -eq 1 ] && [ "$maps" -eq 1 ] ||
  { echo "expected 1 REDUCE, 1 FILTER, 1 MAP kernel; got $reduce, $filter, $maps"; exit 1; }
printf '%s\n' "$dump" | grep -qE '= FILTER \{ i_[0-9]+ => [a-z0-9_]+\[i_[0-9]+\] using [a-z0-9_]+ \} \{ x_[0-9]+ => \(?x_[0-9]+ > 0\.0\)?(@[0-9]+:[0-9]+)? \}' ||
  { echo "the FILTER should test x > 0.0 in its predicate"; printf '%s\n' "$dump"; exit 1; }
[ "$runs" -eq 5 ] || { echo "expected norm2 to run 5 kernels, got $runs"; printf '%s\n' "$body"; exit 1; }
twice=$(printf '%s\n' "$body" | grep '= run K' | sed 's/.*run \(K[0-9]*\).*/\1/' | sort | uniq -c | grep -c '^ *2 ')
[ "$twice" -eq 2 ] || { echo "the REDUCE and the MAP should each run twice"; printf '%s\n' "$body"; exit 1; }
shape=$(printf '%s\n' "$body" | sed -n 's/^function norm2 ([a-z0-9_]* : \[float\] #\([0-9]*\)).*/\1/p')
[ -n "$shape" ] || { echo "norm2's parameter should have a shape"; printf '%s\n' "$body"; exit 1; }
maps=$(printf '%s\n' "$body" | grep -c " : \[float\] #$shape = run K")
[ "$maps" -eq 2 ] || { echo "both MAPs' results should have shape #$shape"; printf '%s\n' "$body"; exit 1; }
printf '%s\n' "$body" | grep -q ' : \[float\] = run K' ||
  { echo "the FILTER's result should have no shape"; printf '%s\n' "$body"; exit 1; }
exit 0
