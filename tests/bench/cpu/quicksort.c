/* quicksort: n ints sorted by a three-way quicksort, the halves in
   parallel as OpenMP tasks (below 2^14 elements, sequentially) */
#include "bench.h"
static long N;
static int32_t *in, *a;
static void setup(long n) {
  N = n;
  in = bench_alloc(sizeof(int32_t) * n);
  a = bench_alloc(sizeof(int32_t) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) in[i] = in_sortkey((int32_t)i);
}
static void swap(int32_t *p, int32_t *q) {
  int32_t t = *p;
  *p = *q;
  *q = t;
}
static void qsort3(int32_t *v, long len) {
  while (len > 16) {
    int32_t pivot = v[len / 2];
    /* Dijkstra's three-way partition: [< pivot | == pivot | > pivot] */
    long lt = 0, i = 0, gt = len;
    while (i < gt) {
      if (v[i] < pivot) swap(&v[lt++], &v[i++]);
      else if (v[i] > pivot) swap(&v[i], &v[--gt]);
      else i++;
    }
    if (lt > (1 << 14)) {
#pragma omp task
      qsort3(v, lt);
    } else {
      qsort3(v, lt);
    }
    v += gt;
    len -= gt;
  }
  for (long i = 1; i < len; i++) /* insertion sort */
    for (long j = i; j > 0 && v[j - 1] > v[j]; j--) swap(&v[j - 1], &v[j]);
}
static void run(void) {
  memcpy(a, in, sizeof(int32_t) * N);
#pragma omp parallel
#pragma omp single
  qsort3(a, N);
}
static int check(double *v) { return sort_check(a, N, v); }
static double bytes(long n) { return 8.0 * n; }
BENCH_MAIN(1000000)
