// radixsort: CUB's DeviceRadixSort::SortKeys of the n ints, out of place,
// over all 32 bits, its temporary storage allocated once
#include "bench.cuh"
#include <cub/cub.cuh>
static long N;
static int32_t *in, *a;
static void *temp;
static size_t temp_bytes;
static void setup(long n) {
  N = n;
  in = dalloc<int32_t>(n);
  a = dalloc<int32_t>(n);
  int32_t *p = in;
  for_each(n, [=] __device__(long i) { p[i] = in_sortkey((int32_t)i); });
  CK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, a, (int)n));
  temp = dalloc<char>(temp_bytes);
}
static void run() { CK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, a, (int)N)); }
static int check(double *v) { return sort_check(to_host(a, N).data(), N, v); }
static double bytes(long n) { return 8.0 * n; }
BENCH_MAIN(10000000)
