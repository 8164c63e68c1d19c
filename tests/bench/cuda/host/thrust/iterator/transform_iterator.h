// tests/bench/cuda/host/thrust/iterator/transform_iterator.h: thrust's
// transform_iterator as far as host/cub/cub.cuh reads one (it[i] is
// f(base[i])), for the host emulation of the baselines
// (host/cuda_runtime.h).
#ifndef BENCH_HOST_TRANSFORM_ITERATOR_H
#define BENCH_HOST_TRANSFORM_ITERATOR_H
namespace thrust {
template <class It, class F> struct transform_iterator {
  It base;
  F f;
  auto operator[](long i) const { return f(base[i]); }
};
template <class It, class F> transform_iterator<It, F> make_transform_iterator(It base, F f) {
  return {base, f};
}
} // namespace thrust
#endif
