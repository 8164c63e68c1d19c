// dotp: cuBLAS's cublasDdot, the result left on the device
#include "bench.cuh"
#include <cublas_v2.h>
static long N;
static double *a, *b, *result;
static cublasHandle_t handle;
static void setup(long n) {
  N = n;
  a = dalloc<double>(n);
  b = dalloc<double>(n);
  result = dalloc<double>(1);
  double *pa = a, *pb = b;
  for_each(n, [=] __device__(long i) {
    pa[i] = in_sum((int32_t)i);
    pb[i] = in_dotp_b((int32_t)i);
  });
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS || cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cuBLAS: cannot start\n");
    exit(3);
  }
}
static void run() {
  if (cublasDdot(handle, (int)N, a, 1, b, 1, result) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cublasDdot failed\n");
    exit(3);
  }
}
static int check(double *v) { v[0] = to_host(result, 1)[0]; return 1; }
static double bytes(long n) { return 16.0 * n; }
BENCH_MAIN(10000000)
