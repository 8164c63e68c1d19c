// tests/bench/cuda/host/thrust/iterator/counting_iterator.h: thrust's
// counting_iterator as far as host/cub/cub.cuh reads one (it[i]), for the
// host emulation of the baselines (host/cuda_runtime.h).
#ifndef BENCH_HOST_COUNTING_ITERATOR_H
#define BENCH_HOST_COUNTING_ITERATOR_H
namespace thrust {
template <class T> struct counting_iterator {
  T first;
  explicit counting_iterator(T v) : first(v) {}
  T operator[](long i) const { return first + (T)i; }
};
} // namespace thrust
#endif
