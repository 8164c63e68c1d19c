// norm2: hand-fused into two kernels: the sum of the squares of the
// positive elements (one reduction kernel), then the map dividing by its root
#include "bench.cuh"
static long N;
static double *a, *out, *ss;
static void setup(long n) {
  N = n;
  a = dalloc<double>(n);
  out = dalloc<double>(n);
  ss = dalloc<double>(1);
  double *pa = a;
  for_each(n, [=] __device__(long i) { pa[i] = in_norm2((int32_t)i); });
}
static void run() {
  const double *pa = a;
  double *po = out, *ps = ss;
  reduce_sum(N, [=] __device__(long i) { double x = pa[i]; return x > 0.0 ? x * x : 0.0; }, ss);
  for_each(N, [=] __device__(long i) { po[i] = pa[i] / sqrt(*ps); });
}
static int check(double *v) {
  std::vector<double> o = to_host(out, N);
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(o[i]);
  v[0] = s;
  v[1] = o[0];
  v[2] = o[N / 2];
  v[3] = o[N - 1];
  return 4;
}
static double bytes(long n) { return 24.0 * n; }
BENCH_MAIN(10000000)
