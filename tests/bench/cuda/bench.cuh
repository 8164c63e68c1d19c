/* tests/bench/cuda/bench.cuh: the frame of a GPU baseline (CUDA C++17).
   A baseline defines setup(n) (makes the input on the device, not timed),
   run() (one call, enqueued on the default stream and timed with CUDA
   events), check(v) (the values NAME.nesl's check prints, from the last
   call's result; returns how many) and bytes(n) (the bytes that must
   move), then BENCH_MAIN.  `NAME [N [RUNS]]` prints
     check: V...
     bytes: B
     times_ms: T... (RUNS calls after one warm-up, each between two events)
   which tests/bench/harness.py reads.  Built by the harness with
   nvcc -std=c++17 -O3 --extended-lambda -arch=sm_XX.  With -DBENCH_HOST
   and -Itests/bench/cuda/host, a C++ compiler builds a baseline that uses
   no more than for_each and the calls host/ emulates for the host, where
   no GPU is (tests/suites/bench.sh: quickhull). */
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H
#include "../common.h"
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(3);                                                                          \
    }                                                                                   \
  } while (0)

static void setup(long n);
static void run();
static int check(double *v);
static double bytes(long n);

template <class T> static T *dalloc(size_t count) {
  void *p = nullptr;
  CK(cudaMalloc(&p, sizeof(T) * (count ? count : 1)));
  return (T *)p;
}
template <class T> static std::vector<T> to_host(const T *d, size_t count) {
  std::vector<T> h(count);
  CK(cudaMemcpy(h.data(), d, sizeof(T) * count, cudaMemcpyDeviceToHost));
  return h;
}

#ifndef BENCH_HOST
/* grid-stride loops: at most 32 blocks of 256 per SM */
static int bench_grid(long n, int block = 256) {
  static int sms = 0;
  if (!sms) CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  long g = (n + block - 1) / block;
  long cap = 32L * sms;
  return (int)(g < 1 ? 1 : g > cap ? cap : g);
}
template <class F> __global__ void for_each_kernel(long n, F f) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) f(i);
}
/* f(i) for every i < n, on the default stream */
template <class F> static void for_each(long n, F f) {
  for_each_kernel<<<bench_grid(n), 256>>>(n, f);
  CK(cudaGetLastError());
}

/* the sum over a block of 256 threads; every thread gets it */
__device__ static inline double block_sum(double v) {
  __shared__ double warp_sums[8];
  __shared__ double total;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < 8 ? warp_sums[threadIdx.x] : 0.0;
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) total = v;
  }
  __syncthreads();
  v = total;
  __syncthreads();
  return v;
}
/* the sum of f(i) over i < n in one launch: each block sums its part, and
   the last block to finish sums the blocks' sums into *out */
struct ReduceScratch {
  double *partials;
  unsigned *done;
};
template <class F> __global__ void __launch_bounds__(256) reduce_kernel(long n, F f, ReduceScratch sc, double *out) {
  __shared__ bool last;
  double s = 0.0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) s += f(i);
  s = block_sum(s);
  if (threadIdx.x == 0) {
    sc.partials[blockIdx.x] = s;
    __threadfence();
    last = atomicAdd(sc.done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    double t = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += ((volatile double *)sc.partials)[b];
    t = block_sum(t);
    if (threadIdx.x == 0) {
      *out = t;
      *sc.done = 0;
    }
  }
}
static ReduceScratch reduce_scratch() {
  static ReduceScratch sc = {nullptr, nullptr};
  if (!sc.partials) {
    sc.partials = dalloc<double>(65536);
    sc.done = dalloc<unsigned>(1);
    CK(cudaMemset(sc.done, 0, sizeof(unsigned)));
  }
  return sc;
}
template <class F> static void reduce_sum(long n, F f, double *out) {
  reduce_kernel<<<bench_grid(n), 256>>>(n, f, reduce_scratch(), out);
  CK(cudaGetLastError());
}
#else
/* the host emulation (host/cuda_runtime.h): f(i) for every i < n, one
   after the other.  A GPU's threads keep no order, so the indices come
   scrambled, i = n - 1 - (j * s mod n) for j = 0, 1, ... with s near
   0.618 n and prime to n: a kernel that counts on some thread running
   before another is likely to give a wrong answer here too. */
static long bench_host_gcd(long a, long b) { return b ? bench_host_gcd(b, a % b) : a; }
template <class F> static void for_each(long n, F f) {
  long s = (long)(0.618 * (double)n);
  while (n > 1 && bench_host_gcd(s, n) != 1) s++;
  for (long j = 0; j < n; j++) f(n - 1 - j * s % n);
}
#endif

#define BENCH_MAIN(default_n)                                                           \
  int main(int argc, char **argv) {                                                     \
    long n = argc > 1 ? atol(argv[1]) : (default_n);                                    \
    int runs = argc > 2 ? atoi(argv[2]) : 10;                                           \
    CK(cudaFree(0));                                                                    \
    setup(n);                                                                           \
    CK(cudaDeviceSynchronize());                                                        \
    run(); /* the warm-up */                                                            \
    CK(cudaDeviceSynchronize());                                                        \
    cudaEvent_t start, stop;                                                            \
    CK(cudaEventCreate(&start));                                                        \
    CK(cudaEventCreate(&stop));                                                         \
    std::vector<float> ms(runs > 0 ? runs : 1);                                         \
    for (int r = 0; r < runs; r++) {                                                    \
      CK(cudaEventRecord(start));                                                       \
      run();                                                                            \
      CK(cudaEventRecord(stop));                                                        \
      CK(cudaEventSynchronize(stop));                                                   \
      CK(cudaEventElapsedTime(&ms[r], start, stop));                                    \
    }                                                                                   \
    CK(cudaDeviceSynchronize());                                                        \
    double v[CHECK_MAX];                                                                \
    int k = check(v);                                                                   \
    printf("check:");                                                                   \
    for (int i = 0; i < k; i++) printf(" %.17g", v[i]);                                 \
    printf("\nbytes: %.0f\ntimes_ms:", bytes(n));                                       \
    for (int r = 0; r < runs; r++) printf(" %.6f", ms[r]);                              \
    printf("\n");                                                                       \
    return 0;                                                                           \
  }
#endif
