/* dotp: the dot product of two vectors of n doubles */
#include "bench.h"
static long N;
static double *a, *b, result;
static void setup(long n) {
  N = n;
  a = bench_alloc(sizeof(double) * n);
  b = bench_alloc(sizeof(double) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    a[i] = in_sum((int32_t)i);
    b[i] = in_dotp_b((int32_t)i);
  }
}
static void run(void) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++) s += a[i] * b[i];
  result = s;
}
static int check(double *v) { v[0] = result; return 1; }
static double bytes(long n) { return 16.0 * n; }
BENCH_MAIN(10000000)
