/* norm2: each element divided by the norm of the positive ones: a
   reduction, then a map */
#include "bench.h"
static long N;
static double *a, *out;
static void setup(long n) {
  N = n;
  a = bench_alloc(sizeof(double) * n);
  out = bench_alloc(sizeof(double) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) a[i] = in_norm2((int32_t)i);
}
static void run(void) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (long i = 0; i < N; i++)
    if (a[i] > 0.0) s += a[i] * a[i];
  s = sqrt(s);
#pragma omp parallel for
  for (long i = 0; i < N; i++) out[i] = a[i] / s;
}
static int check(double *v) {
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(out[i]);
  v[0] = s;
  v[1] = out[0];
  v[2] = out[N / 2];
  v[3] = out[N - 1];
  return 4;
}
static double bytes(long n) { return 24.0 * n; }
BENCH_MAIN(10000000)
