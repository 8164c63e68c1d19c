/* tests/bench/cuda/host/cuda_runtime.h: the part of the CUDA runtime the
   baselines call, on the host, so that a baseline's logic can run where
   there is no GPU (tests/suites/bench.sh compiles cuda/quickhull.cu with
   a C++ compiler and -DBENCH_HOST -Itests/bench/cuda/host, and compares
   its check values with nessie's).  "Device" memory is host memory; every
   call is synchronous.  What a real GPU would add (threads that run at
   once, races between them) this cannot show: bench.cuh's for_each at
   least visits the indices in a scrambled order, so that a kernel that
   depends on its threads' order fails here too. */
#ifndef BENCH_HOST_CUDA_RUNTIME_H
#define BENCH_HOST_CUDA_RUNTIME_H
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>

/* device-code markers mean nothing on the host: a __device__ lambda is a
   plain lambda */
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline

enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
typedef struct bench_host_stream *cudaStream_t;

static inline const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "out of memory";
}
static inline cudaError_t cudaGetLastError() { return cudaSuccess; }

/* cudaMalloc's memory is not cleared: fill it with a pattern (doubles
   near -3e-106, ints -1515870811) so that a read of what no kernel wrote
   gives a wrong answer here rather than a lucky zero */
static inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return cudaErrorMemoryAllocation;
  memset(*p, 0xA5, bytes);
  return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
static inline cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int v, size_t bytes) {
  memset(p, v, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, cudaMemcpyKind) {
  memmove(to, from, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t bytes, cudaMemcpyKind k,
                                          cudaStream_t = nullptr) {
  return cudaMemcpy(to, from, bytes, k);
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

/* an event is the host's clock when it was recorded: BENCH_MAIN's times
   are then the host's, and mean nothing beside a GPU's */
struct bench_host_event {
  std::chrono::steady_clock::time_point at;
};
typedef bench_host_event *cudaEvent_t;
/* BENCH_MAIN never destroys its two events: they come from a pool that
   is never freed, not the heap, so that a leak checker stays quiet */
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  static bench_host_event pool[8];
  static int used = 0;
  if (used == 8) return cudaErrorMemoryAllocation;
  *e = &pool[used++];
  return cudaSuccess;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  e->at = std::chrono::steady_clock::now();
  return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
  return cudaSuccess;
}
#endif
