/* radixsort: n non-negative ints sorted by a parallel LSD radix sort, 8
   bits a pass, as many passes as the largest key needs: per-thread
   histograms, a scan, a stable scatter */
#include "bench.h"
static long N;
static int32_t *in, *a, *tmp;
static long (*hist)[256];
static void setup(long n) {
  N = n;
  in = bench_alloc(sizeof(int32_t) * n);
  a = bench_alloc(sizeof(int32_t) * n);
  tmp = bench_alloc(sizeof(int32_t) * n);
  hist = bench_alloc(sizeof(long[256]) * omp_get_max_threads());
#pragma omp parallel for
  for (long i = 0; i < n; i++) in[i] = in_sortkey((int32_t)i);
}
static void run(void) {
  int32_t mx = 0;
#pragma omp parallel for reduction(max : mx)
  for (long i = 0; i < N; i++) mx = in[i] > mx ? in[i] : mx;
  int passes = 0;
  while (passes < 4 && (mx >> (8 * passes)) != 0) passes++;
  const int32_t *src = in;
  int32_t *dst = passes % 2 ? a : tmp;
  for (int p = 0; p < passes; p++) {
    int shift = 8 * p;
#pragma omp parallel
    {
      int nt = omp_get_num_threads(), t = omp_get_thread_num();
      long lo = N * t / nt, hi = N * (t + 1) / nt;
      long *h = hist[t];
      memset(h, 0, sizeof(long[256]));
      for (long i = lo; i < hi; i++) h[(src[i] >> shift) & 255]++;
#pragma omp barrier
#pragma omp single
      {
        long off = 0;
        for (int d = 0; d < 256; d++)
          for (int u = 0; u < nt; u++) {
            long c = hist[u][d];
            hist[u][d] = off;
            off += c;
          }
      }
      for (long i = lo; i < hi; i++) dst[h[(src[i] >> shift) & 255]++] = src[i];
    }
    src = dst;
    dst = dst == a ? tmp : a;
  }
  if (passes == 0) memcpy(a, in, sizeof(int32_t) * N);
}
static int check(double *v) { return sort_check(a, N, v); }
static double bytes(long n) { return 8.0 * n; }
BENCH_MAIN(1000000)
