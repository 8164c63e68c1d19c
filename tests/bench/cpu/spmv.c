/* spmv: a CSR sparse matrix (n by n, 0 to 16 entries a row) times a dense
   vector */
#include "bench.h"
static long N, NNZ;
static long *rowptr;
static int32_t *cols;
static double *vals, *x, *y;
static void setup(long n) {
  N = n;
  rowptr = bench_alloc(sizeof(long) * (n + 1));
  rowptr[0] = 0;
  for (long i = 0; i < n; i++) rowptr[i + 1] = rowptr[i] + spmv_rowlen((int32_t)i);
  NNZ = rowptr[n];
  cols = bench_alloc(sizeof(int32_t) * NNZ);
  vals = bench_alloc(sizeof(double) * NNZ);
  x = bench_alloc(sizeof(double) * n);
  y = bench_alloc(sizeof(double) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) {
    for (long k = 0; k < rowptr[i + 1] - rowptr[i]; k++) {
      cols[rowptr[i] + k] = spmv_col((int32_t)i, (int32_t)k, (int32_t)n);
      vals[rowptr[i] + k] = spmv_val((int32_t)i, (int32_t)k);
    }
    x[i] = spmv_x((int32_t)i);
  }
}
static void run(void) {
#pragma omp parallel for schedule(dynamic, 4096)
  for (long i = 0; i < N; i++) {
    double s = 0.0;
    for (long e = rowptr[i]; e < rowptr[i + 1]; e++) s += vals[e] * x[cols[e]];
    y[i] = s;
  }
}
static int check(double *v) {
  double s = 0.0;
  for (long i = 0; i < N; i++) s += y[i];
  v[0] = s;
  v[1] = y[0];
  v[2] = y[N / 2];
  v[3] = y[N - 1];
  return 4;
}
/* the CSR matrix (32-bit columns and row offsets), x and y, once each */
static double bytes(long n) { return 12.0 * NNZ + 4.0 * (n + 1) + 16.0 * n; }
BENCH_MAIN(10000000)
