# tests/cost/quicksort.awk: W and D of `quicksort([0:N])` with
# examples/quicksort.nesl's quicksort, derived by hand from the rules of
# docs/cost.md.  A call on n <= 1 elements: `#s <= 1`, 2 and 2.  On
# n >= 2 (distinct keys, pivot s[n/2], so l = floor(n/2) below it and
# g = n - l - 1 above):
#   #s <= 1                          2, 2
#   pivot = s[#s / 2]                3, 3
#   three filters over n             3n each: a step, the comparisons,
#                                    the pack; depth 3 each, in a row
#   [lesser, greater]                2, 1
#   {quicksort(part) : ...}          a step over 2, depth 1, then the two
#                                    calls in parallel (the elements)
#   sorted[0] ++ equal ++ sorted[1]  1 + (l + 1) + 1 + n, depth 4
# so W(n) = 10n + l + 12 + W(l) + W(g) and D(n) = 20 + max(D(l), D(g)),
# and C(n), the calls, 1 + C(l) + C(g).  The statement adds the range
# [0:N]: a step over N.
# Usage: awk -v N=n -f tests/cost/quicksort.awk prints the statement's
# cost line, then the function's as --cost=functions prints it.
function mx(a, b) { return a > b ? a : b }
function w(n,  l, g) { if (n <= 1) return 2; l = int(n / 2); g = n - l - 1; return 10 * n + l + 12 + w(l) + w(g) }
function d(n,  l, g) { if (n <= 1) return 2; l = int(n / 2); g = n - l - 1; return 20 + mx(d(l), d(g)) }
function c(n,  l, g) { if (n <= 1) return 1; l = int(n / 2); g = n - l - 1; return 1 + c(l) + c(g) }
BEGIN {
  print "cost: work " (mx(1, N) + w(N)) ", depth " (1 + d(N))
  print "cost: quicksort: " c(N) " call" (c(N) == 1 ? "" : "s") ", work " w(N) ", largest depth " d(N)
}
