// tests/bench/cuda/host/cub/cub.cuh: the CUB device-wide calls that
// cuda/quickhull.cu makes, one after the other on the host, with CUB's
// contracts (host/cuda_runtime.h says what the host emulation is for):
// called with no temp storage, a call only sets the bytes it needs, which
// grow with the items as CUB's do, so that a baseline that sizes its temp
// storage once for its largest call is checked (quickhull's with_temp
// fails where a later call needs more); called with it, a call writes its
// output as CUB would.
#ifndef BENCH_HOST_CUB_CUH
#define BENCH_HOST_CUB_CUH
#include <cstddef>
#include <type_traits>
#include <cuda_runtime.h>

#define CUB_VERSION 300000 // as CUDA 13's: the operators of <cuda/functional>

namespace cub {
static inline size_t host_temp_bytes(long items, size_t item_bytes) { return 256 + (size_t)items * item_bytes; }

struct DeviceReduce {
  // *out = init op in[0] op in[1] ... op in[n-1]
  template <class In, class Out, class Op, class T>
  static cudaError_t Reduce(void *temp, size_t &bytes, In in, Out out, int n, Op op, T init,
                            cudaStream_t = nullptr) {
    if (!temp) {
      bytes = host_temp_bytes(n, sizeof(T));
      return cudaSuccess;
    }
    T acc = init;
    for (int i = 0; i < n; i++) acc = op(acc, in[i]);
    *out = acc;
    return cudaSuccess;
  }
  // each run of equal consecutive keys: its key, the reduction of its
  // values, and *runs the count of runs
  template <class KIn, class KOut, class VIn, class VOut, class NOut, class Op>
  static cudaError_t ReduceByKey(void *temp, size_t &bytes, KIn keys, KOut unique, VIn vals, VOut aggs,
                                 NOut runs, Op op, int n, cudaStream_t = nullptr) {
    using V = std::decay_t<decltype(vals[0])>;
    if (!temp) {
      bytes = host_temp_bytes(n, sizeof(V) + sizeof(keys[0]));
      return cudaSuccess;
    }
    int r = 0;
    for (int i = 0; i < n;) {
      auto k = keys[i];
      V acc = vals[i];
      int j = i + 1;
      for (; j < n && keys[j] == k; j++) acc = op(acc, vals[j]);
      unique[r] = k;
      aggs[r] = acc;
      r++;
      i = j;
    }
    *runs = r;
    return cudaSuccess;
  }
};

struct DeviceScan {
  // out[i] = in[0] + ... + in[i-1], out[0] = 0 (in and out may be one)
  template <class In, class Out>
  static cudaError_t ExclusiveSum(void *temp, size_t &bytes, In in, Out out, int n, cudaStream_t = nullptr) {
    using T = std::decay_t<decltype(in[0])>;
    if (!temp) {
      bytes = host_temp_bytes(n, sizeof(T));
      return cudaSuccess;
    }
    T acc = T();
    for (int i = 0; i < n; i++) {
      T v = in[i];
      out[i] = acc;
      acc = acc + v;
    }
    return cudaSuccess;
  }
};
} // namespace cub
#endif
