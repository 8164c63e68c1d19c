/* tests/gpu/reducetest.cu: the commutative REDUCE's kernel (rt/gpu.cuh)
 * in variants, beside the benchmarks' hand-written reduction, at 10^7 and
 * 10^8 doubles: a sum and a sum of logs, with the operator's finiteness
 * check (as nessie made it when floats could not be infinite: now NESL's
 * infinities pass and no operator is checked; finite_least below is the
 * test it made) and without, 1, 2 or 4 loads in flight (U), 1, 2 or 4 waves of
 * blocks.  Each line: the kernel's time back to back (CUDA events over
 * 200 launches), and one call at a time with its result copied back, or
 * only waited for (the host's clock, median of 200).  Informative, not a
 * test; the numbers behind reduce_commutative's grid and codegen's
 * deferred checks are in docs/gpu-runs.md.  On a GPU machine:
 *   nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda -w -Irt -o /tmp/rt \
 *     tests/gpu/reducetest.cu BUILD/lib/nessie/libnessie_rt_cuda.a -Xcompiler -fopenmp -lm -lpthread
 */
#include "gpu.cuh"
#include "../bench/cuda/bench.cuh"
#include <algorithm>
#include <chrono>
static void setup(long) {}
static void run() {}
static int check(double *) { return 0; }
static double bytes(long) { return 0; }

struct alignas(8) V { double v0; };
// the inverted exponent bits of x's high word, the least over a thunk's
// results zero exactly when one is not finite
__device__ static uint32_t finite_least(uint32_t least, double x) {
  uint32_t b = ~(uint32_t)__double2hiint(x) & 0x7ff00000u;
  return b < least ? b : least;
}
struct PullPlain { const double *d; __device__ V operator()(int64_t i) const { return V{d[(int32_t)i]}; } };
struct PullLog {
  const double *d; RtKernelError *err;
  __device__ V operator()(int64_t i) const {
    const int32_t ix = (int32_t)i;
    uint32_t t = 0x7ff00000u;
    double x = d[ix];
    double y = log(x);
    t = finite_least(t, y);
    if (__builtin_expect(t == 0, 0)) {
      int e = 0; double z = rt_ln_f(x, &e);
      (void)z;
      if (e) rtg::record(err, RtKernelError{i, RT_CHECK_SCALAR, 0, e, RT_LN, 0, 0, x, 0});
    }
    return V{y};
  }
};
struct OpChecked {
  RtKernelError *err;
  __device__ V operator()(const V &a, const V &b) const {
    uint32_t t = 0x7ff00000u;
    double s = a.v0 + b.v0;
    t = finite_least(t, s);
    if (__builtin_expect(t == 0, 0)) {
      double z = rt_add_f(a.v0, b.v0);
      if (!isfinite(z)) rtg::record(err, RtKernelError{INT64_MAX - 1, RT_CHECK_SCALAR, 1, 1, RT_ADD, 0, 0, 0.0, 0});
    }
    return V{s};
  }
};
struct OpPlain { __device__ V operator()(const V &a, const V &b) const { return V{a.v0 + b.v0}; } };

// the kernel's structure with UNROLL loads in flight (1: a plain grid-stride loop)
template <int UNROLL, class Pull, class Op>
__global__ void __launch_bounds__(256) red(Pull pull, Op op, V id, int64_t n, V *partial, unsigned *ticket, V *out) {
  __shared__ V sh[8];
  __shared__ bool last;
  const int64_t stride = (int64_t)gridDim.x * 256;
  int64_t i = blockIdx.x * (int64_t)256 + threadIdx.x;
  V acc = id;
  if (UNROLL > 1) {
    for (; i + (UNROLL - 1) * stride < n; i += UNROLL * stride) {
      V x[UNROLL];
#pragma unroll
      for (int k = 0; k < UNROLL; k++) x[k] = pull(i + k * stride);
#pragma unroll
      for (int k = 0; k < UNROLL; k++) acc = op(acc, x[k]);
    }
  }
  for (; i < n; i += stride) acc = op(acc, pull(i));
  acc = rtg::block_combine_commutative(acc, op, id, sh);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = acc;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  V r = id;
  for (int64_t k = threadIdx.x; k < gridDim.x; k += 256) r = op(r, rtg::load_other_block(&partial[k]));
  r = rtg::block_combine_commutative(r, op, id, sh);
  if (threadIdx.x == 0) { *out = r; *ticket = 0; }
}

static unsigned *tk;
static V *part, *outd, *outh_mapped, *outd_mapped;
static double *base_out;

template <class F> static void report(const char *name, long n, F launch) {
  launch(); CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  const int R = 200;
  cudaEventRecord(a);
  for (int r = 0; r < R; r++) launch();
  cudaEventRecord(b); CK(cudaEventSynchronize(b));
  float ms; cudaEventElapsedTime(&ms, a, b);
  // one call at a time, as nessie's time sees it: launch, then the result on the host
  std::vector<double> t;
  V host;
  for (int r = 0; r < R; r++) {
    auto t0 = std::chrono::steady_clock::now();
    launch();
    CK(cudaMemcpyAsync(&host, outd, sizeof host, cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(t.begin(), t.end());
  std::vector<double> t2;
  for (int r = 0; r < R; r++) {
    auto t0 = std::chrono::steady_clock::now();
    launch();
    CK(cudaStreamSynchronize(0));
    auto t1 = std::chrono::steady_clock::now();
    t2.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(t2.begin(), t2.end());
  printf("n=%ld %-34s back-to-back %7.2f us | one call + copy back %7.2f | one call + sync %7.2f\n", n, name,
         1000.0 * ms / R, t[R / 2], t2[R / 2]);
}

template <int U, class Pull, class Op> static void variant(const char *name, long n, Pull p, Op o, int blocks) {
  report(name, n, [=] { red<U><<<blocks, 256>>>(p, o, V{0.0}, n, part, tk, outd); });
}

int main() {
  rtg_init(NULL);
  const long N = 100000000;
  double *x = dalloc<double>(N);
  for_each(N, [=] __device__(long i) { x[i] = 1.0 + (double)((i * 7919) % 1000) * 0.5; });
  CK(cudaMalloc(&tk, 4)); CK(cudaMemset(tk, 0, 4));
  CK(cudaMalloc(&part, sizeof(V) * 65536)); CK(cudaMalloc(&outd, sizeof(V)));
  base_out = dalloc<double>(1);
  RtKernelError *err = rtg_error();
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, red<4, PullPlain, OpChecked>, 256, 0);
  int sms = rtg_sm_count();
  printf("per SM %d, SMs %d\n", per_sm, sms);
  for (long n : {10000000L, 100000000L}) {
    PullPlain pp{x};
    PullLog pl{x, err};
    OpChecked oc{err};
    OpPlain op;
    report("baseline reduce_kernel (sum)", n, [=] { reduce_sum(n, [=] __device__(long i) { return x[i]; }, base_out); });
    report("baseline reduce_kernel (log)", n, [=] { reduce_sum(n, [=] __device__(long i) { return log(x[i]); }, base_out); });
    for (int w : {1, 2, 4}) {
      int blocks = per_sm * sms * w;
      char nm[80];
      snprintf(nm, sizeof nm, "sum U4 checked, %d waves", w); variant<4>(nm, n, pp, oc, blocks);
      snprintf(nm, sizeof nm, "sum U1 checked, %d waves", w); variant<1>(nm, n, pp, oc, blocks);
      snprintf(nm, sizeof nm, "sum U8 checked, %d waves", w); variant<8>(nm, n, pp, oc, blocks);
      snprintf(nm, sizeof nm, "sum U4 plain op, %d waves", w); variant<4>(nm, n, pp, op, blocks);
      snprintf(nm, sizeof nm, "log U4 checked, %d waves", w); variant<4>(nm, n, pl, oc, blocks);
      snprintf(nm, sizeof nm, "log U1 checked, %d waves", w); variant<1>(nm, n, pl, oc, blocks);
      snprintf(nm, sizeof nm, "log U2 checked, %d waves", w); variant<2>(nm, n, pl, oc, blocks);
      snprintf(nm, sizeof nm, "log U4 plain op, %d waves", w); variant<4>(nm, n, pl, op, blocks);
    }
    // the runtime's own entry point, as generated code calls it (its read back included)
    report("rtg::reduce_commutative (sum)", n, [=] { rtg::reduce_commutative("T", RT_LOC(NULL, 0, 0), pp, oc, V{0.0}, n); });
  }
  return 0;
}
