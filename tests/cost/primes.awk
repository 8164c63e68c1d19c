# tests/cost/primes.awk: W and D of examples/primes.nesl's primes(n),
# derived by hand from the rules of docs/cost.md, one term a construct:
#   n <= 2                     1, 1 (the comparison; [] int costs nothing)
#   isqrt(n - 1) + 1           5, 5 (-, float, sqrt, floor, +)
#   primes(m)                  the recursion, m = isqrt(n - 1) + 1
#   {[p*p : n : p] : p in small}   a step over k, each element p * p then
#                              its range of len_p: 1 + max(1, len_p), depth 2
#                              (the elements in parallel)
#   flatten(...)               a step over max(k, M), M = sum of len_p
#   dist(T, n) <- {(m, F) : m in multiples}   dist (n), the
#                              apply-to-each (M), then __write's unzip (two
#                              apply-to-eachs over M) and __scatter
#                              (max(n, M)): depth 5, one step each
#   {i : i in [2:n]; flag in drop(is_prime, 2) | flag}   the range (n - 2,
#                              depth 1), drop (2n + 2: #, its check's 4,
#                              n >= 0, the range and the gather of n - 2;
#                              depth 8), the
#                              apply-to-each (n - 2), the filter's pack
#                              (n - 2)
# Usage: awk -v N=n -f tests/cost/primes.awk prints the cost line.
function mx(a, b) { return a > b ? a : b }
function isprime(x,  d) { if (x < 2) return 0; for (d = 2; d * d <= x; d++) if (x % d == 0) return 0; return 1 }
function cost(n,   m, k, M, p, len, w, d, sw) {
  if (n <= 2) { W = 1; D = 1; return }
  m = int(sqrt(n - 1)) + 1
  cost(m); w = W; d = D
  k = 0; M = 0; sw = 0
  for (p = 2; p < m; p++) if (isprime(p)) { k++; len = int((n - p * p + p - 1) / p); M += len; sw += 1 + mx(1, len) }
  W = 1 + 5 + w + mx(1, k) + sw + mx(mx(1, k), M) + mx(1, n) + 3 * mx(1, M) + mx(mx(1, n), M) \
      + 3 * mx(1, n - 2) + 2 * n + 2
  D = 1 + 5 + d + 1 + (k > 0 ? 2 : 0) + 1 + 5 + 9 + 1 + 1
}
BEGIN { cost(N); print "cost: work " W ", depth " D }
