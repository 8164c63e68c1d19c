/* muladd: x * y + z over three vectors of n doubles */
#include "bench.h"
static long N;
static double *a, *b, *c, *out;
static void setup(long n) {
  N = n;
  a = bench_alloc(sizeof(double) * n);
  b = bench_alloc(sizeof(double) * n);
  c = bench_alloc(sizeof(double) * n);
  out = bench_alloc(sizeof(double) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    a[i] = in_fvec((int32_t)i, 1);
    b[i] = in_fvec((int32_t)i, 2);
    c[i] = in_fvec((int32_t)i, 3);
  }
}
static void run(void) {
#pragma omp parallel for
  for (long i = 0; i < N; i++) out[i] = a[i] * b[i] + c[i];
}
static int check(double *v) {
  double s = 0.0;
  for (long i = 0; i < N; i++) s += out[i];
  v[0] = s;
  v[1] = out[0];
  v[2] = out[N / 2];
  v[3] = out[N - 1];
  return 4;
}
static double bytes(long n) { return 32.0 * n; }
BENCH_MAIN(10000000)
