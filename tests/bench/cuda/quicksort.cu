// quicksort: thrust::sort of a copy of the n ints (the input stays, as in
// NESL)
#include "bench.cuh"
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
static long N;
static int32_t *in, *a;
static void setup(long n) {
  N = n;
  in = dalloc<int32_t>(n);
  a = dalloc<int32_t>(n);
  int32_t *p = in;
  for_each(n, [=] __device__(long i) { p[i] = in_sortkey((int32_t)i); });
}
static void run() {
  CK(cudaMemcpyAsync(a, in, sizeof(int32_t) * N, cudaMemcpyDeviceToDevice));
  thrust::sort(thrust::device, a, a + N);
}
static int check(double *v) { return sort_check(to_host(a, N).data(), N, v); }
static double bytes(long n) { return 8.0 * n; }
BENCH_MAIN(1000000)
