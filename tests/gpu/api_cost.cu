/*
 * api_cost.cu: the host's cost of the CUDA runtime calls that a nessie
 * executable makes around each kernel launch (rt/gpu.cu, rt/gpu.cuh), on
 * the machine it runs on.  A recursion level of quicksort makes about a
 * hundred launches; the profile (NESSIE_PROFILE) shows the host busy
 * about 10 µs a launch outside its waits, and this says which calls that
 * time can be spent in.
 *
 *   nvcc -O2 -o api_cost tests/gpu/api_cost.cu && ./api_cost
 *
 * Each row: the mean host time of one call (or one group of calls), over
 * N repetitions after a warm-up, with the stream as the runtime makes it
 * (non-blocking) and the pool as rtg_init sets it up (release threshold
 * at the maximum, so freed memory stays in the pool).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "api_cost: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

__global__ void empty_kernel(void) {}

/* A kernel's argument block as the generated code passes it: a struct of
   pointers and lengths (K22_A has 5 vectors, a scalar and the output). */
struct Args {
  void *err;
  int run;
  int *d[8];
  long long n[8];
  int scalar;
};
__global__ void args_kernel(Args a, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && a.d[0])
    a.d[0][i] = a.scalar;
}

/* An argument block of B bytes: a fused kernel's skeleton takes a copy
   of the kernel's struct of vectors (K_A, 100 to 300 bytes) in each of
   its functors, and a launch of several parts takes every part's (nine
   copies in Barnes-Hut's K45, about 2.4 KB). */
template <int B> struct Block {
  int *d;
  char pad[B - sizeof(int *)];
};
template <int B> __global__ void block_kernel(Block<B> a, long long n) {
  if (n > 0 && a.d)
    a.d[0] = a.pad[B / 2];
}

enum { N = 20000, WARM = 2000 };

static void row(const char *what, double seconds, int n) {
  printf("  %-58s %8.2f µs\n", what, 1e6 * seconds / n);
}

/* a launch of a B-byte argument block, 10 blocks of 256 threads, n = 0 */
template <int B> static void param_row(cudaStream_t s, int *buf) {
  Block<B> a = {};
  a.d = buf;
  for (int i = 0; i < WARM; i++)
    block_kernel<B><<<10, 256, 0, s>>>(a, 0);
  check(cudaStreamSynchronize(s), "sync");
  double t = now();
  for (int i = 0; i < N; i++)
    block_kernel<B><<<10, 256, 0, s>>>(a, 0);
  double took = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  char what[80];
  snprintf(what, sizeof what, "launch with a %d-byte argument block, 10 blocks", B);
  row(what, took, N);
}


int main(void) {
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, 0), "pool");
  unsigned long long threshold = ~0ull;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), "pool threshold");
  cudaDeviceProp p;
  check(cudaGetDeviceProperties(&p, 0), "properties");
  printf("api_cost: %s, %d SMs; mean host time per call over %d calls\n", p.name, p.multiProcessorCount, N);

  /* warm-up: the module loaded, the pool grown */
  for (int i = 0; i < WARM; i++) {
    empty_kernel<<<1, 32, 0, s>>>();
    void *q;
    check(cudaMallocAsync(&q, 4 << 20, s), "warm alloc");
    check(cudaFreeAsync(q, s), "warm free");
  }
  check(cudaStreamSynchronize(s), "sync");

  double t = now();
  for (int i = 0; i < N; i++)
    empty_kernel<<<1, 32, 0, s>>>();
  double launch = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("launch of an empty kernel, 1 block", launch, N);

  int *buf;
  check(cudaMalloc((void **)&buf, (size_t)1 << 24), "buffer");
  Args a = {};
  a.d[0] = buf;
  a.scalar = 1;
  t = now();
  for (int i = 0; i < N; i++)
    args_kernel<<<1024, 256, 0, s>>>(a, 0);
  double args = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("launch with a 140-byte argument struct, 1024 blocks", args, N);

  param_row<64>(s, buf);
  param_row<256>(s, buf);
  param_row<1024>(s, buf);
  param_row<2048>(s, buf);
  param_row<4096>(s, buf);

  t = now();
  for (int i = 0; i < N; i++) {
    empty_kernel<<<1, 32, 0, s>>>();
    (void)cudaGetLastError();
  }
  double last = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("launch + cudaGetLastError", last, N);

  t = now();
  for (int i = 0; i < N; i++) {
    void *q;
    check(cudaMallocAsync(&q, 4 << 20, s), "alloc");
    check(cudaFreeAsync(q, s), "free");
  }
  double pair = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("cudaMallocAsync (4 MB) + cudaFreeAsync", pair, N);

  /* the runtime's pattern: several live vectors, freed in another order */
  enum { LIVE = 16 };
  void *live[LIVE] = {0};
  t = now();
  for (int i = 0; i < N; i++) {
    int k = (i * 7) % LIVE;
    if (live[k])
      check(cudaFreeAsync(live[k], s), "free");
    check(cudaMallocAsync(&live[k], (size_t)(64 + (i % 13) * 100000) * 4, s), "alloc");
  }
  double mixed = now() - t;
  for (int k = 0; k < LIVE; k++)
    if (live[k])
      check(cudaFreeAsync(live[k], s), "free");
  check(cudaStreamSynchronize(s), "sync");
  row("cudaMallocAsync + cudaFreeAsync, 16 live, sizes varying", mixed, N);

  cudaEvent_t ev;
  check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "event");
  t = now();
  for (int i = 0; i < N; i++)
    check(cudaEventRecord(ev, s), "record");
  double record = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("cudaEventRecord (timing off)", record, N);

  t = now();
  for (int i = 0; i < N; i++)
    check(cudaMemsetAsync(buf, 0, 64, s), "memset");
  double memset = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("cudaMemsetAsync of 64 bytes", memset, N);

  long long *pinned;
  check(cudaHostAlloc((void **)&pinned, 64, cudaHostAllocDefault), "pinned");
  t = now();
  for (int i = 0; i < N; i++)
    check(cudaMemcpyAsync(buf, pinned, 8, cudaMemcpyHostToDevice, s), "copy in");
  double copy_in = now() - t;
  check(cudaStreamSynchronize(s), "sync");
  row("cudaMemcpyAsync of 8 bytes to the device (pinned)", copy_in, N);

  enum { TRIPS = 5000 };
  t = now();
  for (int i = 0; i < TRIPS; i++) {
    empty_kernel<<<1, 32, 0, s>>>();
    check(cudaMemcpyAsync(pinned, buf, 8, cudaMemcpyDeviceToHost, s), "copy out");
    check(cudaStreamSynchronize(s), "sync");
  }
  double trip = now() - t;
  row("launch, 8 bytes back, cudaStreamSynchronize (a round trip)", trip, TRIPS);

  t = now();
  for (int i = 0; i < TRIPS; i++) {
    empty_kernel<<<1, 32, 0, s>>>();
    check(cudaStreamSynchronize(s), "sync");
  }
  double sync = now() - t;
  row("launch, cudaStreamSynchronize", sync, TRIPS);

  /* ten launches between two waits, as a recursion level runs */
  t = now();
  for (int i = 0; i < TRIPS; i++) {
    for (int k = 0; k < 10; k++)
      args_kernel<<<1024, 256, 0, s>>>(a, 0);
    check(cudaMemcpyAsync(pinned, buf, 8, cudaMemcpyDeviceToHost, s), "copy out");
    check(cudaStreamSynchronize(s), "sync");
  }
  double batch = now() - t;
  row("10 launches then a round trip (per launch)", batch, TRIPS * 10);
  return 0;
}
