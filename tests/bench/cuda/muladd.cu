// muladd: x * y + z over three vectors of n doubles: one map kernel
#include "bench.cuh"
static long N;
static double *a, *b, *c, *out;
static void setup(long n) {
  N = n;
  a = dalloc<double>(n);
  b = dalloc<double>(n);
  c = dalloc<double>(n);
  out = dalloc<double>(n);
  double *pa = a, *pb = b, *pc = c;
  for_each(n, [=] __device__(long i) {
    pa[i] = in_fvec((int32_t)i, 1);
    pb[i] = in_fvec((int32_t)i, 2);
    pc[i] = in_fvec((int32_t)i, 3);
  });
}
static void run() {
  const double *pa = a, *pb = b, *pc = c;
  double *po = out;
  for_each(N, [=] __device__(long i) { po[i] = pa[i] * pb[i] + pc[i]; });
}
static int check(double *v) {
  std::vector<double> o = to_host(out, N);
  double s = 0.0;
  for (long i = 0; i < N; i++) s += o[i];
  v[0] = s;
  v[1] = o[0];
  v[2] = o[N / 2];
  v[3] = o[N - 1];
  return 4;
}
static double bytes(long n) { return 32.0 * n; }
BENCH_MAIN(10000000)
