// spmv: cuSPARSE's cusparseSpMV on the CSR matrix (32-bit indices, doubles)
#include "bench.cuh"
#include <cusparse.h>
#include <cub/cub.cuh>

#define CS(call)                                                                  \
  do {                                                                            \
    cusparseStatus_t st_ = (call);                                                \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorString(st_)); \
      exit(3);                                                                    \
    }                                                                             \
  } while (0)

static long N, NNZ;
static int32_t *rowptr, *cols;
static double *vals, *x, *y;
static cusparseHandle_t handle;
static cusparseSpMatDescr_t mat;
static cusparseDnVecDescr_t vx, vy;
static void *buffer;

static void setup(long n) {
  N = n;
  rowptr = dalloc<int32_t>(n + 1);
  x = dalloc<double>(n);
  y = dalloc<double>(n);
  int32_t *rp = rowptr;
  double *px = x;
  // the row lengths, then their exclusive scan into the row offsets
  CK(cudaMemset(rp, 0, sizeof(int32_t)));
  for_each(n, [=] __device__(long i) {
    rp[i + 1] = spmv_rowlen((int32_t)i);
    px[i] = spmv_x((int32_t)i);
  });
  size_t temp = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, temp, rp + 1, rp + 1, (int)n));
  void *dtemp = dalloc<char>(temp);
  CK(cub::DeviceScan::InclusiveSum(dtemp, temp, rp + 1, rp + 1, (int)n));
  CK(cudaFree(dtemp));
  int32_t nnz;
  CK(cudaMemcpy(&nnz, rp + n, sizeof nnz, cudaMemcpyDeviceToHost));
  NNZ = nnz;
  cols = dalloc<int32_t>(NNZ);
  vals = dalloc<double>(NNZ);
  int32_t *pc = cols;
  double *pv = vals;
  for_each(n, [=] __device__(long i) {
    for (int32_t k = 0; k < rp[i + 1] - rp[i]; k++) {
      pc[rp[i] + k] = spmv_col((int32_t)i, k, (int32_t)n);
      pv[rp[i] + k] = spmv_val((int32_t)i, k);
    }
  });
  CS(cusparseCreate(&handle));
  CS(cusparseCreateCsr(&mat, n, n, NNZ, rowptr, cols, vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CS(cusparseCreateDnVec(&vx, n, x, CUDA_R_64F));
  CS(cusparseCreateDnVec(&vy, n, y, CUDA_R_64F));
  double alpha = 1.0, beta = 0.0;
  size_t size = 0;
  CS(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F,
                             CUSPARSE_SPMV_ALG_DEFAULT, &size));
  buffer = dalloc<char>(size);
}
static void run() {
  double alpha = 1.0, beta = 0.0;
  CS(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_64F,
                  CUSPARSE_SPMV_ALG_DEFAULT, buffer));
}
static int check(double *v) {
  std::vector<double> o = to_host(y, N);
  double s = 0.0;
  for (long i = 0; i < N; i++) s += o[i];
  v[0] = s;
  v[1] = o[0];
  v[2] = o[N / 2];
  v[3] = o[N - 1];
  return 4;
}
static double bytes(long n) { return 12.0 * NNZ + 4.0 * (n + 1) + 16.0 * n; }
BENCH_MAIN(10000000)
