// sumlogs: the sum of the logarithms of n doubles: one reduction kernel
#include "bench.cuh"
static long N;
static double *a, *result;
static void setup(long n) {
  N = n;
  a = dalloc<double>(n);
  result = dalloc<double>(1);
  double *pa = a;
  for_each(n, [=] __device__(long i) { pa[i] = in_sumlogs((int32_t)i); });
}
static void run() {
  const double *pa = a;
  reduce_sum(N, [=] __device__(long i) { return log(pa[i]); }, result);
}
static int check(double *v) { v[0] = to_host(result, 1)[0]; return 1; }
static double bytes(long n) { return 8.0 * n; }
BENCH_MAIN(10000000)
