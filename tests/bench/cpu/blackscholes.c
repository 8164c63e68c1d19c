/* blackscholes: the prices of n European calls and puts */
#include "bench.h"
static long N;
static double *s, *k, *r, *vol, *tm, *call, *put;
static void setup(long n) {
  N = n;
  double **arrays[] = {&s, &k, &r, &vol, &tm, &call, &put};
  for (int j = 0; j < 7; j++) *arrays[j] = bench_alloc(sizeof(double) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) in_option((int32_t)i, &s[i], &k[i], &r[i], &vol[i], &tm[i]);
}
static void run(void) {
#pragma omp parallel for
  for (long i = 0; i < N; i++) black_scholes(s[i], k[i], r[i], vol[i], tm[i], &call[i], &put[i]);
}
static int check(double *v) {
  double sc = 0.0, sp = 0.0;
  for (long i = 0; i < N; i++) {
    sc += call[i];
    sp += put[i];
  }
  v[0] = sc;
  v[1] = sp;
  v[2] = call[N / 2];
  v[3] = put[N / 2];
  return 4;
}
static double bytes(long n) { return 56.0 * n; }
BENCH_MAIN(10000000)
