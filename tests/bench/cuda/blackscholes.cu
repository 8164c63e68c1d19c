// blackscholes: the prices of n European calls and puts: one map kernel
#include "bench.cuh"
static long N;
static double *s, *k, *r, *vol, *tm, *call, *put;
static void setup(long n) {
  N = n;
  double **arrays[] = {&s, &k, &r, &vol, &tm, &call, &put};
  for (int j = 0; j < 7; j++) *arrays[j] = dalloc<double>(n);
  double *ps = s, *pk = k, *pr = r, *pv = vol, *pt = tm;
  for_each(n, [=] __device__(long i) { in_option((int32_t)i, &ps[i], &pk[i], &pr[i], &pv[i], &pt[i]); });
}
static void run() {
  const double *ps = s, *pk = k, *pr = r, *pv = vol, *pt = tm;
  double *pc = call, *pp = put;
  for_each(N, [=] __device__(long i) { black_scholes(ps[i], pk[i], pr[i], pv[i], pt[i], &pc[i], &pp[i]); });
}
static int check(double *v) {
  std::vector<double> c = to_host(call, N), p = to_host(put, N);
  double sc = 0.0, sp = 0.0;
  for (long i = 0; i < N; i++) {
    sc += c[i];
    sp += p[i];
  }
  v[0] = sc;
  v[1] = sp;
  v[2] = c[N / 2];
  v[3] = p[N / 2];
  return 4;
}
static double bytes(long n) { return 56.0 * n; }
BENCH_MAIN(10000000)
