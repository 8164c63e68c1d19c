/*
 * segtest.cu: the GPU runtime's segment descriptors and segmented
 * skeletons (rt/gpu.cu, rt/gpu.cuh) against a CPU reference, on random
 * segment layouts: empty segments (leading, trailing, runs of them), one
 * huge segment, skewed lengths, 1 to 40000 segments, 0 to 3 000 000
 * elements.  On a machine with an NVIDIA GPU, from the repository root,
 * after `make`:
 *
 *   make gpu-segtest
 *
 * It checks
 *   - the offsets (rtg_seg_offsets) of 0 to 20 000 segments, in one tile
 *     and in many (the look-back), and the segdes rtg_make_segdes makes
 *     from int32 lengths (its int64 lengths, offsets and total);
 *   - the segment ids (rtg_seg_ids_raw, cached on the segdes, and
 *     rtg_seg_ids, a copy the caller owns), also after a move to the host
 *     and back (which must drop the cache);
 *   - rtg::segmented, SEG_REDUCE and SEG_SCAN, each by the balanced path,
 *     the block/warp kernels, a warp per 32 segments and the runtime's
 *     own choice, with + on int32
 *     (bit-exact) and on double (to 1e-9 relative: the balanced path
 *     groups the additions differently), the composition of affine maps on
 *     uint32 (not commutative: an order error shows; bit-exact), a 24-byte
 *     value (affine maps on uint64 and a count: fewer items per thread),
 *     and an 80-byte value (too large for the balanced path: the other
 *     kernels must take it whatever the path asked for).  A guard after
 *     each result catches stores out of range, a fill pattern missed ones;
 *   - rtg::segmented_sum (a SEG_REDUCE of int sums by atomics) on one and
 *     three int32s, the total known and not (its fallback);
 *   - both with a pull that takes each element's segment (rtg::pull_at):
 *     int32 + and the affine maps on every path, three int32s by atomics,
 *     each element checked against its segment;
 *   - rtg::reduce and rtg::scan (unsegmented, in order; the scan in three
 *     passes and, where V fits 8 bytes, in one), 0 to 3 000 017
 *     values of the same five kinds;
 *   - rtg::split_launch (SPLIT: several FILTERs' classes in one pass);
 *   - rtg::filter and rtg::partition (FILTER and PARTITION in one pass,
 *     a decoupled look-back), 0 to 10^7 elements of 4, 40 and 80 bytes,
 *     kept by seven patterns: the count, the kept values and a
 *     PARTITION's others in order, nothing stored past them.
 * It calls the templates as generated code does (pull, op and store
 * functors), prints one line per case and ends with `N passed, M failed`,
 * exiting 1 on any failure.  A timing section at the end (not a test)
 * compares the paths on the first levels of a quicksort's recursion,
 * times the single-pass kernels (FILTER, the one-pass SCAN) and the
 * segment ids against the kernel they replaced (--timing: that alone).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "gpu.cuh"

static int passed, failed;

static void result(bool ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("[%s] ", ok ? "PASS" : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
  if (ok)
    passed++;
  else
    failed++;
}

/* Stops the test on a CUDA error (every later case would fail too). */
static void cuda_check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    printf("[FAIL] CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    printf("%d passed, %d failed\n", passed, failed + 1);
    exit(1);
  }
}

static void wait_device(const char *what) {
  cuda_check(cudaStreamSynchronize(rtg_stream()), what);
  cuda_check(cudaGetLastError(), what);
}

/* ---- random numbers (splitmix64: the same layouts on every run) ---- */

static uint64_t rng = 0x5e9d7e57ull;

static uint64_t next_u64(void) {
  uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double next_unit(void) { return (double)(next_u64() >> 11) * 0x1.0p-53; }

static int64_t below(int64_t n) { return n > 0 ? (int64_t)(next_u64() % (uint64_t)n) : 0; }

/* ---- segment layouts ---- */

enum Kind { UNIFORM, EMPTIES, ONE_HUGE, SKEWED, EMPTY_EDGES, NKINDS };
static const char *const kind_names[NKINDS] = {"uniform", "empties", "one-huge", "skewed", "empty-edges"};

/* 'nseg' lengths that sum to 'total' (total > 0 needs nseg > 0), shaped
   by 'kind': weights, then each segment its share of the total, the
   remainder spread over the segments of nonzero weight. */
static std::vector<int64_t> make_lengths(int64_t nseg, int64_t total, Kind kind) {
  std::vector<double> w((size_t)nseg);
  for (int64_t s = 0; s < nseg; s++) {
    switch (kind) {
    case UNIFORM:
      w[s] = 0.5 + next_unit();
      break;
    case EMPTIES: /* most segments empty, in runs */
      w[s] = next_unit() < 0.6 ? 0.0 : 0.5 + next_unit();
      break;
    case ONE_HUGE:
      w[s] = next_unit() < 0.3 ? 0.0 : next_unit();
      break;
    case SKEWED: /* five orders of magnitude */
      w[s] = exp(12.0 * next_unit());
      break;
    default: /* EMPTY_EDGES: the first and last quarters empty */
      w[s] = s < nseg / 4 || s >= nseg - nseg / 4 ? 0.0 : 0.5 + next_unit();
      break;
    }
  }
  if (kind == ONE_HUGE && nseg > 0)
    w[below(nseg)] = 1000.0 * (double)nseg + 1.0;
  double sum = 0;
  for (double x : w)
    sum += x;
  if (sum == 0 && nseg > 0) {
    w[nseg / 2] = 1.0;
    sum = 1.0;
  }
  std::vector<int64_t> len((size_t)nseg, 0);
  std::vector<int64_t> nonzero;
  int64_t given = 0;
  for (int64_t s = 0; s < nseg; s++) {
    len[s] = (int64_t)floor((double)total * (w[s] / sum));
    given += len[s];
    if (w[s] > 0)
      nonzero.push_back(s);
  }
  if (given > total) { /* rounding: take back from the largest */
    int64_t big = 0;
    for (int64_t s = 1; s < nseg; s++)
      if (len[s] > len[big])
        big = s;
    len[big] -= given - total;
    given = total;
  }
  for (int64_t k = below((int64_t)nonzero.size()); given < total; k++, given++)
    len[nonzero[(size_t)k % nonzero.size()]]++;
  return len;
}

static std::vector<int64_t> offsets_of(const std::vector<int64_t> &len) {
  std::vector<int64_t> off(len.size() + 1, 0);
  for (size_t s = 0; s < len.size(); s++)
    off[s + 1] = off[s] + len[s];
  return off;
}

/* A device segdes of these lengths; its total known to the host or not
   (-1: as a segdes made by make_segdes is, until something reads it). */
static RtValue *device_segdes(const std::vector<int64_t> &len, bool total_known) {
  RtValue *d = rtg_segdes_new((int64_t)len.size());
  if (!len.empty())
    cuda_check(cudaMemcpyAsync(d->lengths, len.data(), sizeof(int64_t) * len.size(), cudaMemcpyHostToDevice,
                               rtg_stream()),
               "a copy of lengths");
  wait_device("a copy of lengths");
  int64_t total = 0;
  for (int64_t l : len)
    total += l;
  d->total = total_known ? total : -1;
  return d;
}

template <class T> static std::vector<T> read_back(const T *dev, size_t n) {
  std::vector<T> h(n);
  if (n)
    cuda_check(cudaMemcpyAsync(h.data(), dev, sizeof(T) * n, cudaMemcpyDeviceToHost, rtg_stream()), "a copy back");
  wait_device("a copy back");
  return h;
}

/* ---- B: offsets ---- */

static void test_offsets(int64_t nseg, int64_t max_len, const char *what) {
  std::vector<int64_t> len((size_t)nseg);
  for (int64_t s = 0; s < nseg; s++)
    len[s] = next_unit() < 0.3 ? 0 : below(max_len + 1);
  std::vector<int64_t> ref = offsets_of(len);
  RtValue *d = device_segdes(len, false);
  const int64_t *off = rtg_seg_offsets(d);
  std::vector<int64_t> got = read_back(off, (size_t)nseg + 1);
  int64_t bad = -1;
  for (int64_t s = 0; s <= nseg && bad < 0; s++)
    if (got[s] != ref[s])
      bad = s;
  bool cached = rtg_seg_offsets(d) == off;
  int64_t total = rtg_seg_total(d);
  bool ok = bad < 0 && cached && total == ref[nseg];
  if (bad >= 0)
    result(false, "offsets nseg=%lld %s: off[%lld] = %lld, expected %lld", (long long)nseg, what, (long long)bad,
           (long long)got[bad], (long long)ref[bad]);
  else
    result(ok, "offsets nseg=%lld %s (%s)%s%s", (long long)nseg, what, nseg <= 2048 ? "one tile" : "tiles",
           cached ? "" : ": not cached", total == ref[nseg] ? "" : ": wrong total");
  rt_value_free(d);
  wait_device("a free");
}

/* rtg_make_segdes: int32 lengths (up to 2^31 - 1, so that the offsets
   pass 2^32 and more) to the segdes's int64 lengths and its offsets, in
   one launch. */
static void test_make_segdes(int64_t nseg, int32_t max_len) {
  std::vector<int64_t> len((size_t)nseg);
  std::vector<int32_t> len32((size_t)nseg);
  for (int64_t s = 0; s < nseg; s++) {
    len32[s] = next_unit() < 0.3 ? 0 : (int32_t)below((int64_t)max_len + 1);
    len[s] = len32[s];
  }
  std::vector<int64_t> ref = offsets_of(len);
  RtValue *v = rtg_vec_new(RT_INT, nseg);
  if (nseg)
    cuda_check(cudaMemcpyAsync(v->data.i, len32.data(), sizeof(int32_t) * (size_t)nseg, cudaMemcpyHostToDevice,
                               rtg_stream()),
               "a copy");
  RtValue *d = rtg_make_segdes(RT_LOC(NULL, 0, 0), 0, v);
  std::vector<int64_t> got_len = read_back(d->lengths, (size_t)nseg);
  std::vector<int64_t> got_off = read_back(rtg_seg_offsets(d), (size_t)nseg + 1);
  bool ok = got_len == len && got_off == ref && rtg_seg_total(d) == ref[nseg];
  result(ok, "make_segdes nseg=%lld lengths 0..%d%s", (long long)nseg, (int)max_len,
         ok ? "" : ": wrong lengths, offsets or total");
  rt_value_free(d);
  rt_value_free(v);
  wait_device("a free");
}

/* rtg::make_segdes and rtg::range_segdes with a MAP riding on their
   launch (codegen/cuda.c: a MAP that makes a segdes's arguments in its
   kernel): the ride writes segment j's length, or range, just before the
   offsets kernel reads it, in the same thread.  The lengths are a hash
   of j, computed on the host too; a range is [j, j + len * 3) by 3. */
__host__ __device__ static int32_t ride_length(int64_t j) {
  uint32_t h = (uint32_t)j * 2654435761u;
  return (h >> 7) % 5 == 0 ? 0 : (int32_t)((h >> 11) % 1000);
}

struct LengthsRide {
  int32_t *lengths;
  __device__ void operator()(int64_t j) const { lengths[j] = ride_length(j); }
};

struct RangesRide {
  int32_t *starts, *ends, *strides;
  __device__ void operator()(int64_t j) const {
    starts[j] = (int32_t)j;
    ends[j] = (int32_t)j + 3 * ride_length(j);
    strides[j] = 3;
  }
};

static void test_segdes_riding(int64_t nseg) {
  std::vector<int64_t> len((size_t)nseg);
  std::vector<int32_t> len32((size_t)nseg);
  for (int64_t s = 0; s < nseg; s++) {
    len32[s] = ride_length(s);
    len[s] = len32[s];
  }
  std::vector<int64_t> ref = offsets_of(len);
  std::vector<int32_t> ref_off32((size_t)nseg);
  for (int64_t s = 0; s < nseg; s++)
    ref_off32[s] = (int32_t)ref[s];
  RtValue *v = rtg_vec_new(RT_INT, nseg);
  RtValue *d = rtg::make_segdes(RT_LOC(NULL, 0, 0), 0, v, LengthsRide{v->data.i});
  std::vector<int32_t> got_v = read_back(v->data.i, (size_t)nseg);
  std::vector<int64_t> got_len = read_back(d->lengths, (size_t)nseg);
  std::vector<int64_t> got_off = read_back(rtg_seg_offsets(d), (size_t)nseg + 1);
  bool ok = got_v == len32 && got_len == len && got_off == ref && rtg_seg_total(d) == ref[nseg];
  result(ok, "make_segdes with a MAP riding nseg=%lld%s", (long long)nseg, ok ? "" : ": wrong lengths, offsets or total");
  rt_value_free(d);
  rt_value_free(v);
  RtValue *a = rtg_vec_new(RT_INT, nseg), *e = rtg_vec_new(RT_INT, nseg), *st = rtg_vec_new(RT_INT, nseg);
  RtValue *lengths = NULL, *offsets = NULL;
  d = rtg::range_segdes(RT_LOC(NULL, 0, 0), 0, a, e, st, &lengths, &offsets,
                        RangesRide{a->data.i, e->data.i, st->data.i});
  std::vector<int32_t> got_l32 = read_back(lengths->data.i, (size_t)nseg);
  std::vector<int32_t> got_o32 = read_back(offsets->data.i, (size_t)nseg);
  got_len = read_back(d->lengths, (size_t)nseg);
  got_off = read_back(rtg_seg_offsets(d), (size_t)nseg + 1);
  ok = got_l32 == len32 && got_o32 == ref_off32 && got_len == len && got_off == ref && rtg_seg_total(d) == ref[nseg];
  result(ok, "range_segdes with a MAP riding nseg=%lld%s", (long long)nseg,
         ok ? "" : ": wrong lengths, offsets or total");
  rt_value_free(d);
  rt_value_free(lengths);
  rt_value_free(offsets);
  rt_value_free(a);
  rt_value_free(e);
  rt_value_free(st);
  wait_device("a free");
}

/* A range_segdes whose ride gathers, as a lifted if's pack of segments
   does (quicksort's): range j is the whole segment idx[j] of a sd, its
   start and length read through idx, one segment a thread.  Timed at
   each count of segments (informative, not a test). */
struct PackRide {
  const int32_t *idx;
  const int64_t *off, *len;
  int32_t *starts, *ends, *strides;
  __device__ void operator()(int64_t j) const {
    int32_t k = idx[j];
    int32_t a = (int32_t)off[k];
    starts[j] = a;
    ends[j] = a + (int32_t)len[k];
    strides[j] = 1;
  }
};

static void timing_segdes_ride(void) {
  printf("timing: range_segdes with a ride that gathers (µs per call, mean of 20; not a test)\n");
  static const int64_t nsegs[] = {1000, 10000, 100000, 1000000, 4000000};
  for (int64_t nseg : nsegs) {
    int64_t nsrc = 2 * nseg;
    std::vector<int64_t> len((size_t)nsrc);
    for (int64_t s = 0; s < nsrc; s++)
      len[s] = s % 7;
    RtValue *src = device_segdes(len, true);
    const int64_t *off = rtg_seg_offsets(src);
    std::vector<int32_t> idx((size_t)nseg);
    for (int64_t j = 0; j < nseg; j++)
      idx[j] = (int32_t)((j * 2654435761u) % (uint64_t)nsrc);
    int32_t *didx = (int32_t *)rtg_alloc(sizeof(int32_t) * (size_t)nseg);
    cuda_check(cudaMemcpyAsync(didx, idx.data(), sizeof(int32_t) * (size_t)nseg, cudaMemcpyHostToDevice, rtg_stream()),
               "a copy of indices");
    RtValue *a = rtg_vec_new(RT_INT, nseg), *e = rtg_vec_new(RT_INT, nseg), *st = rtg_vec_new(RT_INT, nseg);
    const int runs = 20;
    std::vector<RtValue *> made;
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    wait_device("timing");
    cudaEventRecord(t0, rtg_stream());
    for (int r = 0; r < runs; r++) {
      RtValue *lengths = NULL, *offsets = NULL;
      made.push_back(rtg::range_segdes(RT_LOC(NULL, 0, 0), 0, a, e, st, &lengths, &offsets,
                                       PackRide{didx, off, src->lengths, a->data.i, e->data.i, st->data.i}));
      made.push_back(lengths);
      made.push_back(offsets);
    }
    cudaEventRecord(t1, rtg_stream());
    wait_device("timing");
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    printf("  nseg %8lld: %8.1f\n", (long long)nseg, 1000.0 * ms / runs);
    for (RtValue *v : made)
      rt_value_free(v);
    rt_value_free(a);
    rt_value_free(e);
    rt_value_free(st);
    rt_value_free(src);
    rtg_free(didx);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    wait_device("a free");
  }
}

/* ---- A: ids ---- */

static std::vector<int32_t> ids_of(const std::vector<int64_t> &len) {
  std::vector<int32_t> ids;
  for (size_t s = 0; s < len.size(); s++)
    for (int64_t k = 0; k < len[s]; k++)
      ids.push_back((int32_t)s);
  return ids;
}

static int64_t first_difference(const std::vector<int32_t> &a, const std::vector<int32_t> &b) {
  if (a.size() != b.size())
    return (int64_t)(a.size() < b.size() ? a.size() : b.size());
  for (size_t i = 0; i < a.size(); i++)
    if (a[i] != b[i])
      return (int64_t)i;
  return -1;
}

static void test_ids(const std::vector<int64_t> &len, const char *layout) {
  std::vector<int32_t> ref = ids_of(len);
  int64_t n = (int64_t)ref.size();
  RtValue *d = device_segdes(len, false);
  char why[200] = "";
  /* the vector the caller owns first, on a segdes without ids yet */
  RtValue *v = rtg_seg_ids(d);
  const int32_t *cache = rtg_seg_ids_raw(d);
  if (v->len != n)
    snprintf(why, sizeof why, "rtg_seg_ids has %lld elements", (long long)v->len);
  else if (d->ids != cache || rtg_seg_ids_raw(d) != cache)
    snprintf(why, sizeof why, "the ids are not cached on the segdes");
  else if (n > 0 && v->data.i == cache)
    snprintf(why, sizeof why, "rtg_seg_ids hands out the cached ids");
  if (!why[0]) {
    int64_t bad = first_difference(read_back(v->data.i, (size_t)n), ref);
    if (bad >= 0)
      snprintf(why, sizeof why, "rtg_seg_ids differs at %lld", (long long)bad);
  }
  rt_value_free(v); /* the copy: the cache must survive it */
  if (!why[0]) {
    int64_t bad = first_difference(read_back(cache, (size_t)n), ref);
    if (bad >= 0)
      snprintf(why, sizeof why, "the cached ids differ at %lld (after freeing the copy)", (long long)bad);
  }
  /* a second segdes: the cache made first, then the copy */
  if (!why[0]) {
    RtValue *e = device_segdes(len, true);
    const int32_t *c = rtg_seg_ids_raw(e);
    RtValue *w = rtg_seg_ids(e);
    int64_t bad = first_difference(read_back(w->data.i, (size_t)n), ref);
    if (bad < 0)
      bad = first_difference(read_back(c, (size_t)n), ref);
    if (bad >= 0)
      snprintf(why, sizeof why, "ids made before the copy differ at %lld", (long long)bad);
    rt_value_free(w);
    rt_value_free(e);
  }
  result(!why[0], "ids %s%s%s", layout, why[0] ? ": " : "", why);
  rt_value_free(d);
  wait_device("a free");
}

/* ---- A': SEG_MAP (rtg::seg_map), each element with its segment ---- */

/* The pull and store of a SEG_MAP as generated code has them: the value
   names both the element and the segment, so that a wrong segment or an
   element stored twice or not at all shows. */
struct SegMapPull {
  __device__ int64_t operator()(int64_t i, int64_t s) const { return s * 4000000011ll + i; }
};
struct SegMapStore {
  int64_t *y;
  __device__ void operator()(int64_t i, const int64_t &v) const { y[i] = v; }
};

static void test_seg_map(const std::vector<int64_t> &len, const char *layout) {
  std::vector<int32_t> ids = ids_of(len);
  int64_t n = (int64_t)ids.size();
  char why[200] = "";
  /* without the segdes's ids (the search in the launch), then with them */
  for (int cached = 0; cached < 2 && !why[0]; cached++) {
    RtValue *d = device_segdes(len, true);
    if (cached)
      rtg_seg_ids_raw(d);
    int64_t *y = (int64_t *)rtg_alloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (n > 0)
      cuda_check(cudaMemsetAsync(y, 0xA5, sizeof(int64_t) * (size_t)n, rtg_stream()), "a fill");
    rtg::seg_map("segtest", RT_LOC(NULL, 0, 0), SegMapPull{}, SegMapStore{y}, d, n);
    std::vector<int64_t> got = read_back(y, (size_t)n);
    for (int64_t i = 0; i < n; i++)
      if (got[i] != (int64_t)ids[i] * 4000000011ll + i) {
        snprintf(why, sizeof why, "%s: element %lld has %lld, not segment %d's", cached ? "with ids" : "searched",
                 (long long)i, (long long)got[i], ids[i]);
        break;
      }
    rtg_free(y);
    rt_value_free(d);
    wait_device("a free");
  }
  result(!why[0], "seg_map %s%s%s", layout, why[0] ? ": " : "", why);
}

/* The layouts issue 36 names, and tiles that span more segments than
   shared memory holds (runs of empty segments). */
static void test_seg_maps(bool quick) {
  test_seg_map(std::vector<int64_t>(1000000, 1), "10^6 segments of one element");
  if (!quick)
    test_seg_map(std::vector<int64_t>(1, 10000000), "one segment of 10^7");
  test_seg_map(std::vector<int64_t>(1, 1000000), "one segment of 10^6");
  test_seg_map(std::vector<int64_t>(5, 0), "five empty segments");
  std::vector<int64_t> sparse;
  for (int k = 0; k < 40; k++) {
    sparse.push_back(3);
    sparse.insert(sparse.end(), 3000, 0); /* a tile spans 3000 empty segments */
  }
  test_seg_map(sparse, "3 elements, then 3000 empty segments, 40 times");
  std::vector<int64_t> leading(5000, 0);
  leading.push_back(70000);
  leading.insert(leading.end(), 5000, 0);
  test_seg_map(leading, "5000 empty segments around one of 70000");
}

/* A small segdes moved to the host (rtg_choose_host) drops its ids; moved
   back, it makes them again, right. */
static void test_ids_move(void) {
  std::vector<int64_t> len = make_lengths(50, 3000, EMPTIES);
  std::vector<int32_t> ref = ids_of(len);
  RtValue *d = device_segdes(len, true);
  rtg_seg_ids_raw(d);
  RtgHostSite site = {}; /* a launch site of its own: nothing learned yet */
  bool host = rtg_choose_host(&d, 1, NULL, 0, &site);
  bool dropped = host && !d->device && d->ids == NULL && d->offsets == NULL;
  rtg_to_device_all(&d, 1);
  int64_t bad = first_difference(read_back(rtg_seg_ids_raw(d), ref.size()), ref);
  result(dropped && bad < 0, "ids after a move to the host and back%s%s", dropped ? "" : ": the cache was kept",
         bad < 0 ? "" : ": wrong ids");
  rt_value_free(d);
  wait_device("a free");
}

/* ---- C: the segmented skeletons ---- */

/* The functors as generated code has them: a pull, an operator, a store.
   The operators are __host__ too, for the reference. */
template <class V> struct Pull {
  const V *x;
  __device__ V operator()(int64_t i) const { return x[i]; }
};

/* A pull that takes the segment of its element (a SEG_REDUCE's whose
   thunk read its sd's ids, fusion/segmap.c; rtg::takes_segment): the
   value, and a count of the elements given a segment that is not theirs
   ('ids', each element's nonempty segment). */
template <class V> struct SegmentPull {
  const V *x;
  const int32_t *ids;
  unsigned *wrong;
  static constexpr bool segment = true;
  __device__ V operator()(int64_t i, int64_t s) const {
    if ((int64_t)ids[i] != s)
      atomicAdd(wrong, 1u);
    return x[i];
  }
};

template <class V> struct Store {
  V *y;
  __device__ void operator()(int64_t i, const V &v) const { y[i] = v; }
};

/* An int vector on the device of these values, of room 'room' (its
   memory of that many, cut as rtg_vec_fit cuts a FILTER's). */
static RtValue *device_ints(const std::vector<int32_t> &x, int64_t room) {
  RtValue *v = rtg_vec_new(RT_INT, room);
  if (!x.empty())
    cuda_check(cudaMemcpyAsync(v->data.i, x.data(), sizeof(int32_t) * x.size(), cudaMemcpyHostToDevice,
                               rtg_stream()),
               "a copy of ints");
  wait_device("a copy of ints");
  return rtg_vec_fit(v, (int64_t)x.size());
}

/* An append in place (rtg_append_fits, rtg_append_into): b's elements
   after a's in a's memory where a has the room, one reference and no
   mirror; refused otherwise. */
static void test_append_into(int64_t na, int64_t nb, int64_t room) {
  std::vector<int32_t> a(na), b(nb), ab;
  for (int64_t i = 0; i < na; i++)
    a[i] = (int32_t)(i * 7 + 1);
  for (int64_t i = 0; i < nb; i++)
    b[i] = (int32_t)(-i * 3 - 2);
  ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  RtValue *va = device_ints(a, room), *vb = device_ints(b, nb);
  bool fits = room >= na + nb; /* room: at least na (the memory of a vector of na) */
  bool said = rtg_append_fits(va, vb, na + nb);
  bool ok = said == fits;
  if (said) {
    RtValue *r = rtg_append_into(va, vb, na + nb);
    ok = ok && r == va && r->len == na + nb && r->refs == 2;
    rt_release(va);
    ok = ok && first_difference(read_back(r->data.i, ab.size()), ab) < 0;
    /* held twice, it may not be written again */
    rt_retain(r);
    ok = ok && !rtg_append_fits(r, vb, r->len + nb);
    rt_release(r);
    rt_value_free(r);
  } else {
    rt_value_free(va);
  }
  rt_value_free(vb);
  wait_device("a free");
  result(ok, "append in place: %lld after %lld, room %lld (%s)", (long long)nb, (long long)na, (long long)room,
         fits ? "in place" : "refused");
}

/* A MAP of ints (rtg::map) at sizes around its grid's strides. */
static void test_map_ints(int64_t n) {
  std::vector<int32_t> x(n), want(n);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (int32_t)(i * 2654435761u);
    want[i] = x[i];
  }
  RtValue *vx = device_ints(x, n), *vy = rtg_vec_new(RT_INT, n);
  rtg::map("map", RtLoc{}, Pull<int32_t>{vx->data.i}, Store<int32_t>{vy->data.i}, n);
  int64_t bad = first_difference(read_back(vy->data.i, (size_t)n), want);
  result(bad < 0, "MAP of %lld ints%s", (long long)n, bad < 0 ? "" : ": wrong elements");
  rt_value_free(vx);
  rt_value_free(vy);
  wait_device("a free");
}

/* + on int32 (wrapping, as the generated rt_add_i) */
struct alignas(8) VInt {
  int32_t x;
};
struct OpInt {
  __host__ __device__ VInt operator()(const VInt &a, const VInt &b) const {
    return VInt{(int32_t)((uint32_t)a.x + (uint32_t)b.x)};
  }
};
struct TInt {
  typedef VInt V;
  typedef OpInt Op;
  static constexpr bool commutative = true;
  static const char *name() { return "int32 +"; }
  static V id() { return V{0}; }
  static V random() { return V{(int32_t)(next_u64() >> 32)}; }
  static bool same(const V &a, const V &b) { return a.x == b.x; }
  static void show(char *buf, size_t n, const V &v) { snprintf(buf, n, "%d", v.x); }
};

/* + on double: rounding may differ by the grouping */
struct alignas(8) VDouble {
  double x;
};
struct OpDouble {
  __host__ __device__ VDouble operator()(const VDouble &a, const VDouble &b) const { return VDouble{a.x + b.x}; }
};
struct TDouble {
  typedef VDouble V;
  typedef OpDouble Op;
  static constexpr bool commutative = true;
  static const char *name() { return "double +"; }
  static V id() { return V{0.0}; }
  static V random() { return V{next_unit()}; }
  static bool same(const V &a, const V &b) {
    double scale = fabs(b.x) > 1.0 ? fabs(b.x) : 1.0;
    return fabs(a.x - b.x) <= 1e-9 * scale;
  }
  static void show(char *buf, size_t n, const V &v) { snprintf(buf, n, "%.17g", v.x); }
};

/* affine maps x -> a x + b on uint32, composed in order (first a, then
   b): not commutative */
struct alignas(8) VAffine {
  uint32_t a, b;
};
struct OpAffine {
  __host__ __device__ VAffine operator()(const VAffine &f, const VAffine &g) const {
    return VAffine{g.a * f.a, g.a * f.b + g.b};
  }
};
struct TAffine {
  typedef VAffine V;
  typedef OpAffine Op;
  static constexpr bool commutative = false;
  static const char *name() { return "affine32 (non-commutative)"; }
  static V id() { return V{1u, 0u}; }
  /* odd slopes: the products stay units, never collapse to 0 */
  static V random() { return V{(uint32_t)next_u64() | 1u, (uint32_t)next_u64()}; }
  static bool same(const V &p, const V &q) { return p.a == q.a && p.b == q.b; }
  static void show(char *buf, size_t n, const V &v) { snprintf(buf, n, "(%u, %u)", v.a, v.b); }
};

/* 24 bytes (ITEMS 2): affine maps on uint64 and a count */
struct alignas(8) VAffine64 {
  uint64_t a, b;
  int64_t count;
};
struct OpAffine64 {
  __host__ __device__ VAffine64 operator()(const VAffine64 &f, const VAffine64 &g) const {
    return VAffine64{g.a * f.a, g.a * f.b + g.b, f.count + g.count};
  }
};
struct TAffine64 {
  typedef VAffine64 V;
  typedef OpAffine64 Op;
  static constexpr bool commutative = false;
  static const char *name() { return "affine64+count (24 bytes)"; }
  static V id() { return V{1u, 0u, 0}; }
  static V random() { return V{next_u64() | 1u, next_u64(), 1}; }
  static bool same(const V &p, const V &q) { return p.a == q.a && p.b == q.b && p.count == q.count; }
  static void show(char *buf, size_t n, const V &v) {
    snprintf(buf, n, "(%llu, %llu, %lld)", (unsigned long long)v.a, (unsigned long long)v.b, (long long)v.count);
  }
};

/* 80 bytes: larger than SEG_BALANCED_MAX_V, so the block/warp kernels
   whatever the path: five affine maps on uint64, composed side by side */
struct alignas(8) VWide {
  uint64_t k[10]; /* k[2i] x + k[2i+1] */
};
struct OpWide {
  __host__ __device__ VWide operator()(const VWide &f, const VWide &g) const {
    VWide r;
    for (int i = 0; i < 10; i += 2) {
      r.k[i] = g.k[i] * f.k[i];
      r.k[i + 1] = g.k[i] * f.k[i + 1] + g.k[i + 1];
    }
    return r;
  }
};
struct TWide {
  typedef VWide V;
  typedef OpWide Op;
  static constexpr bool commutative = false;
  static const char *name() { return "wide (80 bytes)"; }
  static V id() {
    V v;
    for (int i = 0; i < 10; i += 2) {
      v.k[i] = 1;
      v.k[i + 1] = 0;
    }
    return v;
  }
  static V random() {
    V v;
    for (int i = 0; i < 10; i++)
      v.k[i] = next_u64() | (i % 2 == 0 ? 1u : 0u);
    return v;
  }
  static bool same(const V &p, const V &q) { return memcmp(p.k, q.k, sizeof p.k) == 0; }
  static void show(char *buf, size_t n, const V &v) {
    snprintf(buf, n, "(%llu, %llu, ...)", (unsigned long long)v.k[0], (unsigned long long)v.k[1]);
  }
};

/* The CPU's: each segment's combination (reduce) or each element's
   exclusive prefix in its segment (scan), in order. */
template <class T>
static std::vector<typename T::V> reference(const std::vector<int64_t> &len, const std::vector<typename T::V> &x,
                                            bool scan) {
  typedef typename T::V V;
  typename T::Op op;
  std::vector<V> r(scan ? x.size() : len.size());
  int64_t j = 0;
  for (size_t s = 0; s < len.size(); s++) {
    V acc = T::id();
    for (int64_t k = 0; k < len[s]; k++, j++) {
      if (scan)
        r[j] = acc;
      acc = op(acc, x[j]);
    }
    if (!scan)
      r[s] = acc;
  }
  return r;
}

enum { GUARD = 64 };          /* elements after each result, which no store may touch */
static const int FILL = 0xA5; /* the bytes of a result before the stores */

static bool untouched(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < bytes; i++)
    if (c[i] != FILL)
      return false;
  return true;
}

/* "" where 'got' (read back with its GUARD values after) holds 'ref',
   else what differs first: value i ('what' i), or a store past the end. */
template <class T>
static std::string compared(const std::vector<typename T::V> &got, const std::vector<typename T::V> &ref,
                            const char *what) {
  typedef typename T::V V;
  size_t n = ref.size();
  for (size_t i = 0; i < n; i++)
    if (!T::same(got[i], ref[i])) {
      char g[120], e[120], buf[300];
      if (untouched(&got[i], sizeof(V)))
        snprintf(g, sizeof g, "nothing stored");
      else
        T::show(g, sizeof g, got[i]);
      T::show(e, sizeof e, ref[i]);
      snprintf(buf, sizeof buf, "%s %zu: %s, expected %s", what, i, g, e);
      return buf;
    }
  if (!untouched(&got[n], sizeof(V) * GUARD))
    return "a store past the end";
  return "";
}

/* Each element's segment on the device, and a zeroed count of wrong
   segments, for SegmentPull (freed by the caller). */
struct SegmentCheck {
  int32_t *ids;
  unsigned *wrong;
};

static SegmentCheck segment_check(const std::vector<int64_t> &len) {
  std::vector<int32_t> ids = ids_of(len);
  SegmentCheck c;
  c.ids = (int32_t *)rtg_alloc(sizeof(int32_t) * (ids.size() + 1));
  c.wrong = (unsigned *)rtg_alloc(sizeof(unsigned));
  if (!ids.empty())
    cuda_check(cudaMemcpyAsync(c.ids, ids.data(), sizeof(int32_t) * ids.size(), cudaMemcpyHostToDevice,
                               rtg_stream()),
               "a copy of ids");
  cuda_check(cudaMemsetAsync(c.wrong, 0, sizeof(unsigned), rtg_stream()), "a memset");
  return c;
}

/* "" where no element was given a wrong segment, else how many were
   (the count zeroed again). */
static std::string segment_errors(const SegmentCheck &c) {
  unsigned wrong = read_back(c.wrong, 1)[0];
  cuda_check(cudaMemsetAsync(c.wrong, 0, sizeof(unsigned), rtg_stream()), "a memset");
  return wrong ? std::to_string(wrong) + " elements given a segment not theirs" : "";
}

static void free_segment_check(const SegmentCheck &c) {
  rtg_free(c.ids);
  rtg_free(c.wrong);
}

/* rtg::segmented of the kind that 'scan' says (its template arguments,
   which codegen writes); a commutative operator's is a REDUCE's. */
template <bool Commutative, class V, class Pull, class Op, class Store>
static void segmented_kind(bool scan, Pull pull, Op op, V id, RtValue *d, Store store, int path) {
  const RtLoc here = RT_LOC(NULL, 0, 0);
  if constexpr (Commutative) {
    if (scan) {
      fprintf(stderr, "segtest: a commutative SEG_SCAN asked for\n");
      exit(2);
    }
    rtg::segmented<true, false>("segtest", here, pull, op, id, d, store, path);
  } else if (scan) {
    rtg::segmented<false, true>("segtest", here, pull, op, id, d, store, path);
  } else {
    rtg::segmented<false, false>("segtest", here, pull, op, id, d, store, path);
  }
}

/* One run of rtg::segmented by 'path' (1 balanced, 0 the block/warp
   kernels, -1 the runtime's choice); "" or what went wrong.  With 'seg',
   a pull that takes the segment (SegmentPull), checked. */
template <class T, bool Commutative = false>
static std::string run_path(RtValue *d, int64_t total_known, const typename T::V *dx, const std::vector<typename T::V> &ref,
                            bool scan, int path, const SegmentCheck *seg = NULL) {
  typedef typename T::V V;
  size_t n = ref.size();
  V *dy = (V *)rtg_alloc(sizeof(V) * (n + GUARD));
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(V) * (n + GUARD), rtg_stream()), "a memset");
  d->total = total_known; /* the choice sees what the host would know */
  if (seg)
    segmented_kind<Commutative>(scan, SegmentPull<V>{dx, seg->ids, seg->wrong}, typename T::Op{}, T::id(), d,
                                Store<V>{dy}, path);
  else
    segmented_kind<Commutative>(scan, Pull<V>{dx}, typename T::Op{}, T::id(), d, Store<V>{dy}, path);
  std::vector<V> got = read_back(dy, n + GUARD);
  rtg_free(dy);
  std::string why = compared<T>(got, ref, scan ? "element" : "segment");
  return why.empty() && seg ? segment_errors(*seg) : why;
}

/* Random values of T, one for each element of the segments of 'len', in
   '*x' and on the device (the pointer returned; at least one value's room). */
template <class T>
static typename T::V *random_values(const std::vector<int64_t> &len, std::vector<typename T::V> *x) {
  typedef typename T::V V;
  int64_t total = 0;
  for (int64_t l : len)
    total += l;
  x->resize((size_t)total);
  for (auto &v : *x)
    v = T::random();
  V *dx = (V *)rtg_alloc(sizeof(V) * (size_t)(total > 0 ? total : 1));
  if (total > 0)
    cuda_check(cudaMemcpyAsync(dx, x->data(), sizeof(V) * (size_t)total, cudaMemcpyHostToDevice, rtg_stream()),
               "a copy of values");
  return dx;
}

/* rtg::segmented on every path, reduce and scan (and the commutative
   kernels where T is); with 'segment', by a pull that takes the
   segment (SegmentPull), each element's checked. */
template <class T>
static void test_segmented(const std::vector<int64_t> &len, const char *layout, bool total_known,
                           bool segment = false) {
  typedef typename T::V V;
  std::vector<V> x;
  V *dx = random_values<T>(len, &x);
  int64_t total = (int64_t)x.size();
  RtValue *d = device_segdes(len, total_known);
  int64_t known = total_known ? total : -1;
  SegmentCheck c = segment_check(len);
  const SegmentCheck *seg = segment ? &c : NULL;
  bool fits = sizeof(V) <= rtg::SEG_BALANCED_MAX_V;
  const char *chosen = fits && rtg::seg_use_balanced((int64_t)len.size(), known) ? "balanced"
                       : rtg::seg_use_packed((int64_t)len.size(), known)               ? "packed"
                                                                                         : "blocks";
  for (int scan = 0; scan < 2; scan++) {
    std::vector<V> ref = reference<T>(len, x, scan != 0);
    std::string why;
    static const int paths[4] = {1, 0, 2, -1};
    static const char *const path_names[4] = {"balanced", "blocks", "packed", "auto"};
    for (int p = 0; p < 4 && why.empty(); p++) {
      std::string w = run_path<T>(d, known, dx, ref, scan != 0, paths[p], seg);
      if (!w.empty())
        why = std::string(path_names[p]) + ": " + w;
    }
    /* a commutative operator's REDUCE: the block/warp kernels combine
       each lane's elements first (rtg::segmented<true, false>) */
    if constexpr (T::commutative) {
      for (int p = 0; p < 4 && why.empty() && !scan; p++) {
        std::string w = run_path<T, true>(d, known, dx, ref, false, paths[p], seg);
        if (!w.empty())
          why = std::string(path_names[p]) + " (commutative): " + w;
      }
    }
    result(why.empty(), "%s %s%s %s total %s, auto=%s%s%s", scan ? "scan  " : "reduce", T::name(),
           segment ? " (pull takes the segment)" : "", layout, total_known ? "known" : "unknown", chosen,
           why.empty() ? "" : ": ", why.c_str());
  }
  free_segment_check(c);
  rtg_free(dx);
  rt_value_free(d);
  wait_device("a free");
}

/* rtg::segmented_sum: a SEG_REDUCE of int sums made by atomics (where
   the total is known on the host; the other paths where it is not), on
   one int32 and on three (a filter's three counts, as quicksort's level
   has them), against the reference.  The add functor adds component by
   component, as generated code's K_s_add; the zero functor clears the
   results first, as K_s_zero. */
struct alignas(8) VInt3 {
  int32_t a, b, c;
};
struct OpInt3 {
  __host__ __device__ VInt3 operator()(const VInt3 &x, const VInt3 &y) const {
    return VInt3{(int32_t)((uint32_t)x.a + (uint32_t)y.a), (int32_t)((uint32_t)x.b + (uint32_t)y.b),
                 (int32_t)((uint32_t)x.c + (uint32_t)y.c)};
  }
};
struct TInt3 {
  typedef VInt3 V;
  typedef OpInt3 Op;
  static constexpr bool commutative = false;
  static const char *name() { return "3 x int32 +"; }
  static V id() { return V{0, 0, 0}; }
  static V random() {
    uint64_t r = next_u64();
    return V{(int32_t)(r >> 40), (int32_t)(r & 1), (int32_t)(next_u64() >> 32)};
  }
  static bool same(const V &x, const V &y) { return x.a == y.a && x.b == y.b && x.c == y.c; }
  static void show(char *buf, size_t n, const V &v) { snprintf(buf, n, "(%d, %d, %d)", v.a, v.b, v.c); }
};
struct AddInt {
  VInt *y;
  __device__ void operator()(int64_t s, const VInt &v) const { atomicAdd(&y[s].x, v.x); }
};
struct AddInt3 {
  VInt3 *y;
  __device__ void operator()(int64_t s, const VInt3 &v) const {
    atomicAdd(&y[s].a, v.a);
    atomicAdd(&y[s].b, v.b);
    atomicAdd(&y[s].c, v.c);
  }
};
template <class V> struct ZeroOf {
  V *y;
  void operator()(int64_t n) const { rtg_zero(y, sizeof(V) * (size_t)n); }
};

/* With 'segment', a pull that takes the segment (SegmentPull). */
template <class T, class Add>
static void test_segmented_sum(const std::vector<int64_t> &len, const char *layout, bool total_known,
                               bool segment = false) {
  typedef typename T::V V;
  std::vector<V> x;
  V *dx = random_values<T>(len, &x);
  int64_t total = (int64_t)x.size();
  RtValue *d = device_segdes(len, total_known);
  d->total = total_known ? total : -1;
  std::vector<V> ref = reference<T>(len, x, false);
  size_t n = ref.size();
  V *dy = (V *)rtg_alloc(sizeof(V) * (n + GUARD));
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(V) * (n + GUARD), rtg_stream()), "a memset");
  SegmentCheck c = segment_check(len);
  if (segment)
    rtg::segmented_sum("segtest", RT_LOC(NULL, 0, 0), SegmentPull<V>{dx, c.ids, c.wrong}, typename T::Op{}, T::id(),
                       d, Store<V>{dy}, Add{dy}, ZeroOf<V>{dy});
  else
    rtg::segmented_sum("segtest", RT_LOC(NULL, 0, 0), Pull<V>{dx}, typename T::Op{}, T::id(), d, Store<V>{dy},
                       Add{dy}, ZeroOf<V>{dy});
  std::string why = compared<T>(read_back(dy, n + GUARD), ref, "segment");
  if (why.empty())
    why = segment_errors(c);
  result(why.empty(), "segmented_sum %s%s %s total %s%s%s", T::name(), segment ? " (pull takes the segment)" : "",
         layout, total_known ? "known" : "unknown", why.empty() ? "" : ": ", why.c_str());
  free_segment_check(c);
  rtg_free(dy);
  rtg_free(dx);
  rt_value_free(d);
  wait_device("a free");
}

/* ---- timing (informative, not a test) ---- */

/* The mean time of 20 calls of 'call' on the stream (CUDA events), in
   µs, after one call to warm up (and make the segdes's offsets). */
template <class F> static double time_calls(F call) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const int runs = 20;
  call();
  cudaEventRecord(a, rtg_stream());
  for (int r = 0; r < runs; r++)
    call();
  cudaEventRecord(b, rtg_stream());
  wait_device("timing");
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 1000.0 * ms / runs;
}

template <class T> static double time_segmented(RtValue *d, const typename T::V *dx, typename T::V *dy, bool scan,
                                                int path) {
  return time_calls([&] {
    segmented_kind<false>(scan, Pull<typename T::V>{dx}, typename T::Op{}, T::id(), d, Store<typename T::V>{dy},
                          path);
  });
}

/* rtg::segmented_sum's time (its memset included). */
static double time_segmented_sum(RtValue *d, const VInt *dx, VInt *dy) {
  return time_calls([&] {
    rtg::segmented_sum("segtest", RT_LOC(NULL, 0, 0), Pull<VInt>{dx}, OpInt{}, VInt{0}, d, Store<VInt>{dy},
                       AddInt{dy}, ZeroOf<VInt>{dy});
  });
}

static void timing(void) {
  printf("timing (µs per call, mean of 20; not a test): int32 +, 1000000 elements, uniform\n");
  const int64_t n = 1000000;
  VInt *dx = (VInt *)rtg_alloc(sizeof(VInt) * n); /* a VInt is 8 bytes (alignas) */
  VInt *dy = (VInt *)rtg_alloc(sizeof(VInt) * n);
  cuda_check(cudaMemsetAsync(dx, 1, sizeof(VInt) * n, rtg_stream()), "a memset");
  static const int64_t nsegs[] = {1, 2, 4, 16, 64, 263, 1024, 100000};
  for (int64_t nseg : nsegs) {
    RtValue *d = device_segdes(make_lengths(nseg, n, UNIFORM), true);
    double rb = time_segmented<TInt>(d, dx, dy, false, 1);
    double ro = time_segmented<TInt>(d, dx, dy, false, 0);
    double sb = time_segmented<TInt>(d, dx, dy, true, 1);
    double so = time_segmented<TInt>(d, dx, dy, true, 0);
    double ra = time_segmented_sum(d, dx, dy);
    printf("  nseg %6lld: reduce balanced %8.1f blocks %8.1f atomics %8.1f | scan balanced %8.1f blocks %8.1f | auto: %s\n",
           (long long)nseg, rb, ro, ra, sb, so, rtg::seg_use_balanced(nseg, n) ? "balanced" : "blocks");
    rt_value_free(d);
  }
  /* many segments, where the choice is between a warp per segment and the
     balanced path (with and without the segdes's cached ids): skewed
     like quicksort's deep levels, and short like spmv's rows */
  printf("timing: many segments, int32 + reduce (µs per call): balanced, balanced with cached ids, warp per segment, "
         "warp per 32 segments, atomics (segmented_sum)\n");
  struct Many {
    int64_t nseg, n;
    Kind kind;
  };
  static const Many many[] = {{1024, 1000000, SKEWED},   {8000, 1000000, SKEWED},   {30000, 1000000, SKEWED},
                              {100000, 1000000, SKEWED}, {100000, 1000000, UNIFORM}, {1000000, 8000000, UNIFORM},
                              {10000000, 80000000, UNIFORM}, {10000000, 80000000, EMPTIES},
                              {1000000, 4000000, SKEWED},    {100000, 1500000, UNIFORM}};
  VInt *mx = (VInt *)rtg_alloc(sizeof(VInt) * 80000000);
  VInt *my = (VInt *)rtg_alloc(sizeof(VInt) * 10000000);
  cuda_check(cudaMemsetAsync(mx, 1, sizeof(VInt) * 80000000, rtg_stream()), "a memset");
  for (const Many &m : many) {
    RtValue *d = device_segdes(make_lengths(m.nseg, m.n, m.kind), true);
    double plain = time_segmented<TInt>(d, mx, my, false, 1);
    rtg_seg_ids_raw(d);
    double with_ids = time_segmented<TInt>(d, mx, my, false, 1);
    double warp = time_segmented<TInt>(d, mx, my, false, 0);
    double packed = time_segmented<TInt>(d, mx, my, false, 2);
    double atomics = time_segmented_sum(d, mx, my);
    printf("  nseg %8lld, %9lld elements, %s: %8.1f %8.1f %8.1f %8.1f %8.1f | auto: %s\n", (long long)m.nseg,
           (long long)m.n, kind_names[m.kind], plain, with_ids, warp, packed, atomics,
           rtg::seg_use_balanced(m.nseg, m.n) ? "balanced"
           : rtg::seg_use_packed(m.nseg, m.n) ? "packed"
                                              : "warp");
    rt_value_free(d);
  }
  rtg_free(mx);
  rtg_free(my);
  /* offsets and ids of fresh segdes (an allocation each) */
  static const int64_t osegs[] = {4, 1000, 8192, 8193, 100000, 500000, 1000000};
  for (int64_t nseg : osegs) {
    std::vector<int64_t> len = make_lengths(nseg, n, SKEWED);
    const int runs = 20;
    std::vector<RtValue *> ds;
    for (int r = 0; r < runs; r++)
      ds.push_back(device_segdes(len, true));
    cudaEvent_t a, b, c;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventCreate(&c);
    cudaEventRecord(a, rtg_stream());
    for (RtValue *d : ds)
      rtg_seg_offsets(d);
    cudaEventRecord(b, rtg_stream());
    for (RtValue *d : ds)
      rtg_seg_ids_raw(d);
    cudaEventRecord(c, rtg_stream());
    wait_device("timing");
    float ms_off = 0, ms_ids = 0;
    cudaEventElapsedTime(&ms_off, a, b);
    cudaEventElapsedTime(&ms_ids, b, c);
    printf("  nseg %6lld: offsets %8.1f (%s) | ids of 1000000 elements %8.1f\n", (long long)nseg,
           1000.0 * ms_off / runs, nseg <= 2048 ? "one tile" : "tiles", 1000.0 * ms_ids / runs);
    for (RtValue *d : ds)
      rt_value_free(d);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaEventDestroy(c);
  }
  rtg_free(dx);
  rtg_free(dy);
  wait_device("timing");
}

/* ---- D: rtg::filter (FILTER in one pass) ----

   Values of 4, 40 and 80 bytes (4, 2 and 1 per thread in a tile): each
   element's value is a function of its index, the predicate keeps it by
   one of several patterns, and the result must be the kept values in
   order, their count, and nothing stored past the count (a guard). */
template <int BYTES> struct alignas(4) FValue {
  int32_t w[BYTES / 4];
};

template <int BYTES> struct FPull {
  __device__ FValue<BYTES> operator()(int64_t i) const {
    FValue<BYTES> v;
    for (int k = 0; k < BYTES / 4; k++)
      v.w[k] = (int32_t)(i * 2654435761u + k);
    return v;
  }
};

/* patterns: 0 none, 1 all, 2 every third, 3 a pseudo-random half,
   4 one in a thousand, 5 the first half, 6 the last element only */
__host__ __device__ inline bool filter_keeps(int pattern, int64_t i, int64_t n) {
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  switch (pattern) {
  case 0: return false;
  case 1: return true;
  case 2: return i % 3 == 0;
  case 3: return (h & 1) != 0;
  case 4: return h % 1000 == 7;
  case 5: return i < n / 2;
  default: return i == n - 1;
  }
}

template <int BYTES> struct FPred {
  int pattern;
  int64_t n;
  __device__ bool operator()(int64_t i, const FValue<BYTES> &v) const {
    return v.w[0] == (int32_t)(i * 2654435761u) && filter_keeps(pattern, i, n);
  }
};

template <int BYTES> struct FStore {
  FValue<BYTES> *y;
  __device__ void operator()(int64_t i, const FValue<BYTES> &v) const { y[i] = v; }
};

static const char *const filter_patterns[] = {"none", "all", "every third", "random half", "one in 1000",
                                              "first half", "last only"};

template <int BYTES> static std::string check_values(const std::vector<FValue<BYTES>> &got,
                                                      const std::vector<int64_t> &want, int64_t room,
                                                      const char *which) {
  char buf[200];
  for (size_t k = 0; k < want.size(); k++)
    for (int w = 0; w < BYTES / 4; w++)
      if (got[k].w[w] != (int32_t)(want[k] * 2654435761u + w)) {
        snprintf(buf, sizeof buf, "%s value %zu is not element %lld's", which, k, (long long)want[k]);
        return buf;
      }
  if (!untouched(&got[want.size()], sizeof(FValue<BYTES>) * (size_t)(room - (int64_t)want.size()))) {
    snprintf(buf, sizeof buf, "a store past the %s values", which);
    return buf;
  }
  return "";
}

/* ---- REDUCE and SCAN, unsegmented (rtg::reduce, rtg::scan): the
   ordered skeletons, which must keep the order of a non-commutative op ---- */

template <class T> static void test_flat(int64_t n) {
  typedef typename T::V V;
  std::vector<V> x((size_t)n);
  for (auto &v : x)
    v = T::random();
  V *dx = (V *)rtg_alloc(sizeof(V) * (size_t)(n > 0 ? n : 1));
  V *dy = (V *)rtg_alloc(sizeof(V) * (size_t)(n + GUARD));
  if (n > 0)
    cuda_check(cudaMemcpyAsync(dx, x.data(), sizeof(V) * (size_t)n, cudaMemcpyHostToDevice, rtg_stream()),
               "a copy of values");
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(V) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  std::vector<int64_t> one(1, n);
  std::vector<V> red = reference<T>(one, x, false), pre = reference<T>(one, x, true);
  V got = rtg::reduce("segtest", RT_LOC(NULL, 0, 0), Pull<V>{dx}, typename T::Op{}, T::id(), n);
  char g[120], e[120], why[300] = "";
  if (!T::same(got, red[0])) {
    T::show(g, sizeof g, got);
    T::show(e, sizeof e, red[0]);
    snprintf(why, sizeof why, "reduce: %s, expected %s", g, e);
  }
  /* the scan's result in dy against the reference, as 'which' */
  auto check_scan = [&](const char *which) {
    std::vector<V> sc = read_back(dy, (size_t)n + GUARD);
    for (int64_t i = 0; i < n && !why[0]; i++)
      if (!T::same(sc[i], pre[i])) {
        T::show(g, sizeof g, sc[i]);
        T::show(e, sizeof e, pre[i]);
        snprintf(why, sizeof why, "%s element %lld: %s, expected %s", which, (long long)i, g, e);
      }
    if (!why[0] && !untouched(&sc[n], sizeof(V) * GUARD))
      snprintf(why, sizeof why, "%s: a store past the end", which);
  };
  rtg::scan("segtest", RT_LOC(NULL, 0, 0), Pull<V>{dx}, typename T::Op{}, T::id(), n, Store<V>{dy});
  check_scan("scan");
  /* the one-pass scan (an exact operator's, where V fits a tile word;
     the three passes again where it does not) */
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(V) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  rtg::scan<true>("segtest", RT_LOC(NULL, 0, 0), Pull<V>{dx}, typename T::Op{}, T::id(), n, Store<V>{dy});
  check_scan("one-pass scan");
  result(!why[0], "flat reduce and scan %s n=%lld%s%s", T::name(), (long long)n, why[0] ? ": " : "", why);
  rtg_free(dx);
  rtg_free(dy);
  wait_device("a free");
}

static void test_flats(void) {
  static const int64_t ns[] = {0, 1, 2, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 4097, 100003, 1000000, 3000017};
  for (int64_t n : ns) {
    test_flat<TInt>(n);
    test_flat<TDouble>(n);
    test_flat<TAffine>(n);
    test_flat<TAffine64>(n);
    if (n <= 100003)
      test_flat<TWide>(n);
  }
}

/* A store that stages only the first word of a BYTES-byte value
   (rtg::Staged), as codegen's store of a FILTER whose V holds the
   predicate's flag: the tile holds 4-byte values and so 16 a thread. */
template <int BYTES> struct StagedFStore {
  typedef FValue<4> staged;
  __device__ static FValue<4> stage(const FValue<BYTES> &v) { return FValue<4>{{v.w[0]}}; }
  FValue<4> *y;
  __device__ void operator()(int64_t i, const FValue<4> &v) const { y[i] = v; }
};

/* rtg::filter, or with 'partition' rtg::partition (the others too, to a
   second vector, in order), of BYTES-byte values; with SBYTES 4 (less
   than BYTES) through stores that stage their first word alone
   (StagedFStore), and the first words are checked. */
template <int BYTES, int SBYTES = BYTES> static void test_filter(int64_t n, int pattern, bool partition) {
  typedef FValue<BYTES> V;
  typedef FValue<SBYTES> S;
  typedef typename std::conditional<SBYTES == BYTES, FStore<BYTES>, StagedFStore<BYTES>>::type St;
  static_assert(rtg::filter_items<V, St> == rtg::FILTER_ITEMS<S>, "tiles of the staged type");
  std::vector<int64_t> want, others;
  for (int64_t i = 0; i < n; i++)
    (filter_keeps(pattern, i, n) ? want : others).push_back(i);
  S *dy = (S *)rtg_alloc(sizeof(S) * (size_t)(n + GUARD));
  S *dz = (S *)rtg_alloc(sizeof(S) * (size_t)(n + GUARD));
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(S) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  cuda_check(cudaMemsetAsync(dz, FILL, sizeof(S) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  int64_t kept = partition ? rtg::partition<V>("segtest", RT_LOC(NULL, 0, 0), FPull<BYTES>{}, FPred<BYTES>{pattern, n},
                                              n, St{dy}, St{dz})
                           : rtg::filter<V>("segtest", RT_LOC(NULL, 0, 0), FPull<BYTES>{}, FPred<BYTES>{pattern, n}, n,
                                            St{dy});
  std::vector<S> got = read_back(dy, (size_t)(n + GUARD));
  std::vector<S> got_other = read_back(dz, (size_t)(n + GUARD));
  rtg_free(dy);
  rtg_free(dz);
  std::string wrong;
  char buf[200];
  if (kept != (int64_t)want.size()) {
    snprintf(buf, sizeof buf, "counted %lld, expected %lld", (long long)kept, (long long)want.size());
    wrong = buf;
  }
  if (wrong.empty())
    wrong = check_values<SBYTES>(got, want, n + GUARD, "kept");
  if (wrong.empty())
    wrong = check_values<SBYTES>(got_other, partition ? others : std::vector<int64_t>(), n + GUARD, "other");
  result(wrong.empty(), "%s: %d-byte values%s, n=%lld, keep %s%s%s", partition ? "partition" : "filter", BYTES,
         SBYTES < BYTES ? " staged as 4" : "", (long long)n, filter_patterns[pattern], wrong.empty() ? "" : ": ",
         wrong.c_str());
}

/* Three of them in one launch (rtg::filters_launch, as a kernel's FILTERs
   of one input are generated): a FILTER, a PARTITION and a FILTER with
   patterns p, p + 1 and p + 2, each checked as test_filter checks one. */
static void test_filters_together(int64_t n, int pattern) {
  typedef FValue<4> V;
  const int pat[3] = {pattern % 7, (pattern + 1) % 7, (pattern + 2) % 7};
  const bool partition[3] = {false, true, false};
  V *dy[3], *dz[3];
  for (int k = 0; k < 3; k++) {
    dy[k] = (V *)rtg_alloc(sizeof(V) * (size_t)(n + GUARD));
    dz[k] = (V *)rtg_alloc(sizeof(V) * (size_t)(n + GUARD));
    cuda_check(cudaMemsetAsync(dy[k], FILL, sizeof(V) * (size_t)(n + GUARD), rtg_stream()), "a memset");
    cuda_check(cudaMemsetAsync(dz[k], FILL, sizeof(V) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  }
  int64_t *slots[3];
  rtg::filters_launch("segtest", RT_LOC(NULL, 0, 0), n, slots,
                      rtg::filter_part<V>(FPull<4>{}, FPred<4>{pat[0], n}, FStore<4>{dy[0]}, FStore<4>{dz[0]}, false),
                      rtg::filter_part<V>(FPull<4>{}, FPred<4>{pat[1], n}, FStore<4>{dy[1]}, FStore<4>{dz[1]}, true),
                      rtg::filter_part<V>(FPull<4>{}, FPred<4>{pat[2], n}, FStore<4>{dy[2]}, FStore<4>{dz[2]}, false));
  int64_t kept[3];
  for (int k = 0; k < 3; k++)
    kept[k] = rtg::filter_count(slots[k]);
  std::string wrong;
  for (int k = 0; k < 3 && wrong.empty(); k++) {
    std::vector<int64_t> want, others;
    for (int64_t i = 0; i < n; i++)
      (filter_keeps(pat[k], i, n) ? want : others).push_back(i);
    std::vector<V> got = read_back(dy[k], (size_t)(n + GUARD));
    std::vector<V> got_other = read_back(dz[k], (size_t)(n + GUARD));
    char buf[200];
    if (kept[k] != (int64_t)want.size()) {
      snprintf(buf, sizeof buf, "part %d counted %lld, expected %lld", k, (long long)kept[k], (long long)want.size());
      wrong = buf;
    }
    if (wrong.empty())
      wrong = check_values<4>(got, want, n + GUARD, "kept");
    if (wrong.empty())
      wrong = check_values<4>(got_other, partition[k] ? others : std::vector<int64_t>(), n + GUARD, "other");
  }
  for (int k = 0; k < 3; k++) {
    rtg_free(dy[k]);
    rtg_free(dz[k]);
  }
  result(wrong.empty(), "three filters in one launch: n=%lld, keep %s, %s, %s%s%s", (long long)n,
         filter_patterns[pat[0]], filter_patterns[pat[1]], filter_patterns[pat[2]], wrong.empty() ? "" : ": ",
         wrong.c_str());
}

/* rtg::parts_launch: a PARTITION, a REDUCE of one int with a MAP riding
   on it and a SCAN of two ints over the same n elements in one launch,
   as a lifted if's test is generated (codegen/cuda.c, tile_group), each
   checked against the host: the PARTITION as test_filter checks one,
   the sum (int32, wrapping), the rider's every element, the exclusive
   scan's every pair; n 0 launches nothing and gives no slots. */
struct alignas(8) PInt {
  int32_t v0;
};
struct alignas(8) PPair {
  int32_t v0, v1;
};
__host__ __device__ inline int32_t part_value(int64_t i) { return (int32_t)((uint32_t)(i * 2654435761u) >> 7) - 9000000; }
struct PRide { /* the REDUCE's pull, storing the riding MAP's element */
  int32_t *rider;
  __device__ PInt operator()(int64_t i) const {
    rider[i] = part_value(i) ^ 5;
    return PInt{part_value(i)};
  }
};
struct PAdd {
  __device__ PInt operator()(const PInt &a, const PInt &b) const { return PInt{(int32_t)((uint32_t)a.v0 + (uint32_t)b.v0)}; }
};
struct PPairPull {
  __device__ PPair operator()(int64_t i) const { return PPair{(int32_t)(i % 3), part_value(i) & 1}; }
};
struct PPairAdd {
  __device__ PPair operator()(const PPair &a, const PPair &b) const { return PPair{a.v0 + b.v0, a.v1 + b.v1}; }
};
struct PPairStore {
  int32_t *a, *b;
  __device__ void operator()(int64_t i, const PPair &v) const {
    a[i] = v.v0;
    b[i] = v.v1;
  }
};

static void test_parts(int64_t n, int pattern) {
  typedef FValue<4> V;
  size_t room = (size_t)(n + GUARD);
  V *dy = (V *)rtg_alloc(sizeof(V) * room), *dz = (V *)rtg_alloc(sizeof(V) * room);
  int32_t *rider = (int32_t *)rtg_alloc(sizeof(int32_t) * room);
  int32_t *sa = (int32_t *)rtg_alloc(sizeof(int32_t) * room), *sb = (int32_t *)rtg_alloc(sizeof(int32_t) * room);
  cuda_check(cudaMemsetAsync(dy, FILL, sizeof(V) * room, rtg_stream()), "a memset");
  cuda_check(cudaMemsetAsync(dz, FILL, sizeof(V) * room, rtg_stream()), "a memset");
  int64_t *count_slot = (int64_t *)&dy; /* overwritten by the launch */
  PInt *sum_slot = (PInt *)&dz;
  rtg::parts_launch("segtest", RT_LOC(NULL, 0, 0), n,
                    rtg::filter_tiles<V>(FPull<4>{}, FPred<4>{pattern, n}, FStore<4>{dy}, FStore<4>{dz}, true,
                                         &count_slot),
                    rtg::reduce_tiles<PInt>(PRide{rider}, PAdd{}, PInt{0}, &sum_slot),
                    rtg::scan_tiles<PPair>(PPairPull{}, PPairAdd{}, PPair{0, 0}, PPairStore{sa, sb}));
  std::string wrong;
  char buf[200];
  if (n <= 0 && (count_slot || sum_slot))
    wrong = "slots given for no elements";
  int64_t kept = rtg::filter_count(count_slot);
  PInt sum = rtg::reduce_read(sum_slot, PInt{0});
  std::vector<int64_t> want, others;
  uint32_t want_sum = 0;
  for (int64_t i = 0; i < n; i++) {
    (filter_keeps(pattern, i, n) ? want : others).push_back(i);
    want_sum += (uint32_t)part_value(i);
  }
  if (wrong.empty() && kept != (int64_t)want.size()) {
    snprintf(buf, sizeof buf, "counted %lld, expected %lld", (long long)kept, (long long)want.size());
    wrong = buf;
  }
  if (wrong.empty() && (uint32_t)sum.v0 != want_sum) {
    snprintf(buf, sizeof buf, "sum %d, expected %d", sum.v0, (int32_t)want_sum);
    wrong = buf;
  }
  if (wrong.empty())
    wrong = check_values<4>(read_back(dy, room), want, n + GUARD, "kept");
  if (wrong.empty())
    wrong = check_values<4>(read_back(dz, room), others, n + GUARD, "other");
  if (wrong.empty() && n > 0) {
    std::vector<int32_t> r = read_back(rider, (size_t)n), a = read_back(sa, (size_t)n), b = read_back(sb, (size_t)n);
    int32_t ca = 0, cb = 0;
    for (int64_t i = 0; i < n && wrong.empty(); i++) {
      if (r[i] != (part_value(i) ^ 5))
        snprintf(buf, sizeof buf, "rider element %lld: %d", (long long)i, r[i]), wrong = buf;
      else if (a[i] != ca || b[i] != cb)
        snprintf(buf, sizeof buf, "scan element %lld: (%d, %d), expected (%d, %d)", (long long)i, a[i], b[i], ca, cb),
            wrong = buf;
      ca += (int32_t)(i % 3);
      cb += part_value(i) & 1;
    }
  }
  rtg_free(dy);
  rtg_free(dz);
  rtg_free(rider);
  rtg_free(sa);
  rtg_free(sb);
  result(wrong.empty(), "partition, reduce and scan in one launch: n=%lld, keep %s%s%s", (long long)n,
         filter_patterns[pattern], wrong.empty() ? "" : ": ", wrong.c_str());
}

/* rtg::split_launch (SPLIT): C classes of one pass, class c keeping by
   pattern p + c (so that classes overlap, and some elements are in
   none), each class checked as test_filter checks a FILTER. */
template <int C> struct SPred {
  int pattern;
  int64_t n;
  __device__ unsigned operator()(int64_t i, const FValue<4> &v) const {
    unsigned bits = 0;
    for (int c = 0; c < C; c++)
      bits |= (unsigned)(v.w[0] == (int32_t)(i * 2654435761u) && filter_keeps((pattern + c) % 7, i, n)) << c;
    return bits;
  }
};

template <int C> struct SStore {
  FValue<4> *y[C];
  __device__ void operator()(int c, int64_t i, const FValue<4> &v) const { y[c][i] = v; }
};

template <int C> static void test_split(int64_t n, int pattern) {
  typedef FValue<4> V;
  SStore<C> store;
  for (int c = 0; c < C; c++) {
    store.y[c] = (V *)rtg_alloc(sizeof(V) * (size_t)(n + GUARD));
    cuda_check(cudaMemsetAsync(store.y[c], FILL, sizeof(V) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  }
  rtg::SplitCounts slots =
      rtg::split_launch<V, C>("segtest", RT_LOC(NULL, 0, 0), FPull<4>{}, SPred<C>{pattern, n}, n, store);
  int64_t kept[C];
  for (int c = 0; c < C; c++)
    kept[c] = rtg::filter_count(slots.at[c]);
  std::string wrong;
  for (int c = 0; c < C && wrong.empty(); c++) {
    std::vector<int64_t> want;
    for (int64_t i = 0; i < n; i++)
      if (filter_keeps((pattern + c) % 7, i, n))
        want.push_back(i);
    std::vector<V> got = read_back(store.y[c], (size_t)(n + GUARD));
    char buf[200];
    if (kept[c] != (int64_t)want.size()) {
      snprintf(buf, sizeof buf, "class %d counted %lld, expected %lld", c, (long long)kept[c],
               (long long)want.size());
      wrong = buf;
    }
    if (wrong.empty())
      wrong = check_values<4>(got, want, n + GUARD, "kept");
  }
  for (int c = 0; c < C; c++)
    rtg_free(store.y[c]);
  result(wrong.empty(), "split of %d classes: n=%lld, keep %s and on%s%s", C, (long long)n, filter_patterns[pattern],
         wrong.empty() ? "" : ": ", wrong.c_str());
}

/* rtg::split_launch with segments (SPLIT's `counts sd`): three classes
   as test_split's, over every element of a segdes of 'nseg' segments
   and 'total' elements laid out by 'kind', each class's count in each
   segment against the reference, and the classes' values as before;
   with 'offsets' (SPLIT's `offsets`) each class's offset in each
   segment too, into vectors filled with -1 first (every one written,
   with no elements too). */
/* FPull<4>'s values from a pull that takes the segment (a counted SPLIT
   whose thunk read its sd's ids, fusion/segmap.c): a value whose segment
   is wrong is changed, so that SPred keeps it in no class and the
   counts and the kept values come out wrong. */
struct SegPull {
  static constexpr bool segment = true;
  const int64_t *off;
  __device__ FValue<4> operator()(int64_t i, int64_t s) const {
    FValue<4> v = FPull<4>{}(i);
    if (!(off[s] <= i && i < off[s + 1]))
      v.w[0] ^= 1;
    return v;
  }
};

static void test_split_counted(int64_t nseg, int64_t total, Kind kind, int pattern, bool seg_pull, bool offsets) {
  typedef FValue<4> V;
  const int C = 3;
  std::vector<int64_t> len = make_lengths(nseg, total, kind), off = offsets_of(len);
  RtValue *sd = device_segdes(len, true);
  SStore<C> store;
  RtValue *counts[C], *offs[C];
  for (int c = 0; c < C; c++) {
    store.y[c] = (V *)rtg_alloc(sizeof(V) * (size_t)(total + GUARD));
    counts[c] = rtg_vec_new(RT_INT, nseg);
    offs[c] = rtg_vec_new(RT_INT, nseg);
    if (nseg > 0)
      cudaMemset(offs[c]->data.i, 0xff, sizeof(int32_t) * (size_t)nseg);
  }
  RtValue *const *with = offsets ? offs : NULL;
  rtg::SplitCounts slots =
      seg_pull ? rtg::split_launch<V, C>("segtest", RT_LOC(NULL, 0, 0), SegPull{rtg_seg_offsets(sd)},
                                         SPred<C>{pattern, total}, total, store, sd, counts, with)
               : rtg::split_launch<V, C>("segtest", RT_LOC(NULL, 0, 0), FPull<4>{}, SPred<C>{pattern, total}, total,
                                         store, sd, counts, with);
  std::string wrong;
  char buf[200];
  for (int c = 0; c < C && wrong.empty(); c++) {
    int64_t kept = rtg::filter_count(slots.at[c]);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < total; i++)
      if (filter_keeps((pattern + c) % 7, i, total))
        want.push_back(i);
    if (kept != (int64_t)want.size()) {
      snprintf(buf, sizeof buf, "class %d counted %lld, expected %lld", c, (long long)kept, (long long)want.size());
      wrong = buf;
    }
    std::vector<V> got = read_back(store.y[c], (size_t)(total + GUARD));
    if (wrong.empty())
      wrong = check_values<4>(got, want, (int64_t)want.size(), "kept");
    std::vector<int32_t> per = read_back(counts[c]->data.i, (size_t)nseg);
    std::vector<int32_t> at = read_back(offs[c]->data.i, (size_t)nseg);
    int32_t before = 0;
    for (int64_t s = 0; s < nseg && wrong.empty(); s++) {
      int32_t m = 0;
      for (int64_t i = off[s]; i < off[s + 1]; i++)
        m += filter_keeps((pattern + c) % 7, i, total);
      if (per[s] != m) {
        snprintf(buf, sizeof buf, "class %d, segment %lld of %lld elements: counted %d, expected %d", c, (long long)s,
                 (long long)len[s], per[s], m);
        wrong = buf;
      } else if (offsets && at[s] != before) {
        snprintf(buf, sizeof buf, "class %d, segment %lld of %lld elements: offset %d, expected %d", c, (long long)s,
                 (long long)len[s], at[s], before);
        wrong = buf;
      }
      before += m;
    }
  }
  for (int c = 0; c < C; c++) {
    rtg_free(store.y[c]);
    rt_value_free(counts[c]);
    rt_value_free(offs[c]);
  }
  rt_value_free(sd);
  result(wrong.empty(), "split counted by segment%s%s: %lld segments (%s), %lld elements, keep %s and on%s%s",
         seg_pull ? ", each pull given its segment" : "", offsets ? ", with offsets" : "", (long long)nseg,
         kind_names[kind], (long long)total,
         filter_patterns[pattern], wrong.empty() ? "" : ": ", wrong.c_str());
}

static void test_splits_counted(bool quick) {
  static const int64_t shapes[][2] = {{1, 0},       {5, 0},      {1, 1},       {1, 1000},   {3, 2047},
                                      {1000, 4096}, {7, 100003}, {1000000, 1000000}, {100000, 1000000},
                                      {1, 10000000}, {1000, 10000000}};
  for (const auto &sh : shapes)
    for (int kind = 0; kind < NKINDS; kind++)
      for (int pattern = 0; pattern < 7; pattern += quick ? 3 : 1) {
        if (sh[1] >= 10000000 && pattern != 3)
          continue;
        test_split_counted(sh[0], sh[1], (Kind)kind, pattern, false, true);
        test_split_counted(sh[0], sh[1], (Kind)kind, pattern, true, false);
      }
}

/* A joined PARTITION (rtg::partition_joined, codegen's for a PARTITION
   whose parts are appended back): vectors of n elements, the kept
   values stored from 0 and the others, by the same store, from the
   kept count on, which the skeleton counts on the device first; the
   result is the kept in order, then the others in order.  Values of
   1, 4 and 8 bytes beside ints, two vectors of one launch. */
template <class T> struct alignas(8) JValue {
  T a;
  int32_t b;
};
template <class T> struct JPull {
  __device__ JValue<T> operator()(int64_t i) const { return JValue<T>{(T)(i * 2654435761u + 1), (int32_t)i}; }
};
struct JPred {
  int pattern;
  int64_t n;
  template <class V> __device__ bool operator()(int64_t i, const V &) const { return filter_keeps(pattern, i, n); }
};
template <class T> struct JStore {
  T *a;
  int32_t *b;
  __device__ void operator()(int64_t i, const JValue<T> &v) const {
    a[i] = v.a;
    b[i] = v.b;
  }
};
template <class T> static void test_partition_joined(int64_t n, int pattern) {
  T *a = (T *)rtg_alloc(sizeof(T) * (size_t)(n + GUARD));
  int32_t *b = (int32_t *)rtg_alloc(sizeof(int32_t) * (size_t)(n + GUARD));
  cuda_check(cudaMemsetAsync(a, FILL, sizeof(T) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  cuda_check(cudaMemsetAsync(b, FILL, sizeof(int32_t) * (size_t)(n + GUARD), rtg_stream()), "a memset");
  rtg::partition_joined<JValue<T>>("segtest", RT_LOC(NULL, 0, 0), JPull<T>{}, JPred{pattern, n}, n,
                                   JStore<T>{a, b});
  std::vector<int64_t> order;
  for (int pass = 0; pass < 2; pass++)
    for (int64_t i = 0; i < n; i++)
      if (filter_keeps(pattern, i, n) == (pass == 0))
        order.push_back(i);
  std::vector<T> got_a = read_back(a, (size_t)(n + GUARD));
  std::vector<int32_t> got_b = read_back(b, (size_t)(n + GUARD));
  int64_t bad = -1;
  for (int64_t k = 0; k < n && bad < 0; k++)
    if (got_a[k] != (T)(order[k] * 2654435761u + 1) || got_b[k] != (int32_t)order[k])
      bad = k;
  bool guard = untouched(&got_a[n], sizeof(T) * GUARD) && untouched(&got_b[n], sizeof(int32_t) * GUARD);
  result(bad < 0 && guard, "partition joined: %zu-byte values and ints, n=%lld, keep %s%s", sizeof(T), (long long)n,
         filter_patterns[pattern], bad >= 0 ? ": wrong elements" : guard ? "" : ": a store past the end");
  rtg_free(a);
  rtg_free(b);
  wait_device("a free");
}

static void test_filters(bool quick) {
  static const int64_t sizes[] = {0, 1, 2, 31, 33, 1023, 1024, 1025, 4096, 65537, 1000003, 10000000};
  for (int64_t n : sizes)
    for (int pattern = 0; pattern < 7; pattern++) {
      if (quick && n >= 10000000 && pattern != 3)
        continue;
      test_filter<4>(n, pattern, false);
      if (n <= 1000003) {
        test_filter<40>(n, pattern, false);
        test_filter<80>(n, pattern, false);
      }
      if (n <= 1000003 || pattern == 3) {
        test_filter<4>(n, pattern, true);
        test_filter<8, 4>(n, pattern, true);
        if (n <= 65537) {
          test_filter<80>(n, pattern, true);
          test_filter<8, 4>(n, pattern, false);
          test_filter<40, 4>(n, pattern, true);
        }
      }
      if (n <= 1000003 || pattern == 3) {
        test_partition_joined<uint8_t>(n, pattern);
        test_partition_joined<int32_t>(n, pattern);
        test_partition_joined<double>(n, pattern);
        test_filters_together(n, pattern);
        test_parts(n, pattern);
        test_split<3>(n, pattern);
      }
      if (n <= 65537) {
        test_split<1>(n, pattern);
        test_split<8>(n, pattern);
      }
    }
}

/* The segment ids by four consecutive elements a thread, one search of
   all the offsets for the first (rt/gpu.cu's seg_ids_kernel, which made
   every segdes's ids before 2026-11-26), timed beside the runtime's
   choice (seg_ids_few, a search an element, where the segments are few). */
__global__ void ids_consecutive(const int64_t *off, int64_t nseg, int64_t n, int32_t *ids) {
  for (int64_t g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; 4 * g < n; g += (int64_t)gridDim.x * blockDim.x)
    rtg::segment_run<4>(off, nseg, NULL, 4 * g, n, [&](int, int64_t j, int64_t s) { ids[j] = (int32_t)s; });
}

static void timing_ids(void) {
  printf("timing: segment ids of 1000000 elements (µs per call, mean of 20; not a test): four consecutive a "
         "thread, the runtime's\n");
  const int64_t n = 1000000;
  static const int64_t nsegs[] = {2, 16, 32, 33, 1000, 100000, 500000};
  int32_t *a = (int32_t *)rtg_alloc(sizeof(int32_t) * n);
  for (int64_t nseg : nsegs) {
    RtValue *d = device_segdes(make_lengths(nseg, n, SKEWED), true); /* the total known: no wait below */
    const int64_t *off = rtg_seg_offsets(d);
    const int runs = 20;
    cudaEvent_t e[3];
    for (auto &x : e)
      cudaEventCreate(&x);
    wait_device("timing");
    cudaEventRecord(e[0], rtg_stream());
    for (int r = 0; r < runs; r++)
      ids_consecutive<<<rtg::blocks_for(n, 4), rtg::THREADS, 0, rtg_stream()>>>(off, d->len, n, a);
    cudaEventRecord(e[1], rtg_stream());
    for (int r = 0; r < runs; r++) { /* the segdes's ids made again each time */
      if (d->ids)
        rtg_free((void *)d->ids);
      d->ids = NULL;
      rtg_seg_ids_raw(d);
    }
    cudaEventRecord(e[2], rtg_stream());
    wait_device("timing");
    float t[2];
    for (int k = 0; k < 2; k++)
      cudaEventElapsedTime(&t[k], e[k], e[k + 1]);
    std::vector<int32_t> want = read_back(d->ids, (size_t)n), got = read_back(a, (size_t)n);
    printf("  nseg %6lld: %8.1f %8.1f\n", (long long)nseg, 1000.0 * t[0] / runs, 1000.0 * t[1] / runs);
    if (want != got) /* the timing's one check: the two kernels agree */
      result(false, "segment ids of %lld skewed segments: the runtime's differ from four consecutive a thread's",
             (long long)nseg);
    for (auto &x : e)
      cudaEventDestroy(x);
    rt_value_free(d);
  }
  rtg_free(a);
}

/* A PARTITION's functors as a radix sort's pass has them (tests/bench/
   radixsort.nesl): an int read, the value with its flag (8 bytes, as
   codegen's), a pseudo-random half kept, the int stored. */
struct BitPull {
  const int32_t *x;
  __device__ VInt operator()(int64_t i) const { return VInt{x[i] ^ (int32_t)(i * 2654435761u)}; }
};
struct BitPred {
  __device__ bool operator()(int64_t, const VInt &v) const { return v.x >> 7 & 1; }
};
struct IntStore {
  int32_t *y;
  __device__ void operator()(int64_t i, const VInt &v) const { y[i] = v.x; }
};
/* The same, staging the int alone (rtg::Staged), as codegen's store of
   a PARTITION whose V holds the flag does since session 40. */
struct StagedIntStore {
  typedef int32_t staged;
  __device__ static int32_t stage(const VInt &v) { return v.x; }
  int32_t *y;
  __device__ void operator()(int64_t i, int32_t v) const { y[i] = v; }
};

/* The single-pass kernels' timing (informative, not a test): FILTER of
   4-byte values, half kept at random, the one-pass SCAN of int32 +, each
   a look-back across its tiles, a PARTITION of ints read from memory,
   half kept (radix sort's pass), and a SPLIT of three classes counted in
   each of n / 10 segments (a quicksort level's). */
static void timing_single_pass(void) {
  printf("timing: single-pass kernels (µs per call, mean of 20; not a test)\n");
  static const int64_t ns[] = {100000, 1000000, 10000000};
  for (int64_t n : ns) {
    typedef FValue<4> V;
    V *dy = (V *)rtg_alloc(sizeof(V) * (size_t)n);
    VInt *dx = (VInt *)rtg_alloc(sizeof(VInt) * (size_t)n);
    VInt *ds = (VInt *)rtg_alloc(sizeof(VInt) * (size_t)n);
    cuda_check(cudaMemsetAsync(dx, 1, sizeof(VInt) * (size_t)n, rtg_stream()), "a memset");
    const int runs = 20;
    cudaEvent_t a, b, c, d;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventCreate(&c);
    cudaEventCreate(&d);
    /* the filters' counts are read after the last: each launch's own read
       would time the round trip too */
    std::vector<int64_t *> slots;
    rtg::filter<V>("segtest", RT_LOC(NULL, 0, 0), FPull<4>{}, FPred<4>{3, n}, n, FStore<4>{dy}); /* warm-up */
    cudaEventRecord(a, rtg_stream());
    for (int r = 0; r < runs; r++) {
      slots.push_back(rtg::partition_launch<V>("segtest", RT_LOC(NULL, 0, 0), FPull<4>{}, FPred<4>{3, n}, n,
                                               FStore<4>{dy}, FStore<4>{dy}, false));
    }
    cudaEventRecord(b, rtg_stream());
    for (int r = 0; r < runs; r++)
      rtg::scan<true>("segtest", RT_LOC(NULL, 0, 0), Pull<VInt>{dx}, OpInt{}, VInt{0}, n, Store<VInt>{ds});
    cudaEventRecord(c, rtg_stream());
    int32_t *px = (int32_t *)dx, *py = (int32_t *)dy, *pz = (int32_t *)ds;
    for (int r = 0; r < runs; r++)
      slots.push_back(rtg::partition_launch<VInt>("segtest", RT_LOC(NULL, 0, 0), BitPull{px}, BitPred{}, n,
                                                  IntStore{py}, IntStore{pz}, true));
    cudaEventRecord(d, rtg_stream());
    for (int r = 0; r < runs; r++)
      slots.push_back(rtg::partition_launch<VInt>("segtest", RT_LOC(NULL, 0, 0), BitPull{px}, BitPred{}, n,
                                                  StagedIntStore{py}, StagedIntStore{pz}, true));
    cudaEvent_t e;
    cudaEventCreate(&e);
    cudaEventRecord(e, rtg_stream());
    wait_device("timing");
    for (int64_t *slot : slots)
      rtg::filter_count(slot);
    float ms_filter = 0, ms_scan = 0, ms_partition = 0, ms_staged = 0;
    cudaEventElapsedTime(&ms_filter, a, b);
    cudaEventElapsedTime(&ms_scan, b, c);
    cudaEventElapsedTime(&ms_partition, c, d);
    cudaEventElapsedTime(&ms_staged, d, e);
    cudaEventDestroy(e);
    /* a quicksort level's SPLIT: three classes counted in each of n / 10
       segments, each pull given its segment, with the offsets */
    const int64_t nseg = n / 10;
    RtValue *sd = device_segdes(make_lengths(nseg, n, UNIFORM), true);
    SStore<3> sstore;
    RtValue *scounts[3], *soffs[3];
    for (int c = 0; c < 3; c++) {
      sstore.y[c] = (V *)rtg_alloc(sizeof(V) * (size_t)n);
      scounts[c] = rtg_vec_new(RT_INT, nseg);
      soffs[c] = rtg_vec_new(RT_INT, nseg);
    }
    const int64_t *soff = rtg_seg_offsets(sd);
    wait_device("timing");
    cudaEventRecord(a, rtg_stream());
    std::vector<rtg::SplitCounts> sslots;
    for (int r = 0; r < runs; r++)
      sslots.push_back(rtg::split_launch<V, 3>("segtest", RT_LOC(NULL, 0, 0), SegPull{soff}, SPred<3>{3, n}, n, sstore,
                                               sd, scounts, soffs));
    cudaEventRecord(b, rtg_stream());
    wait_device("timing");
    for (auto &sl : sslots)
      for (int c = 0; c < 3; c++)
        rtg::filter_count(sl.at[c]);
    float ms_split = 0;
    cudaEventElapsedTime(&ms_split, a, b);
    for (int c = 0; c < 3; c++) {
      rtg_free(sstore.y[c]);
      rt_value_free(scounts[c]);
      rt_value_free(soffs[c]);
    }
    rt_value_free(sd);
    printf("  n %9lld: filter %8.1f | one-pass scan %8.1f | partition of ints %8.1f | the same, the int staged "
           "%8.1f | split counted %8.1f\n",
           (long long)n, 1000.0 * ms_filter / runs, 1000.0 * ms_scan / runs, 1000.0 * ms_partition / runs,
           1000.0 * ms_staged / runs, 1000.0 * ms_split / runs);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaEventDestroy(c);
    cudaEventDestroy(d);
    rtg_free(dx);
    rtg_free(ds);
    rtg_free(dy);
    wait_device("a free");
  }
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;   /* fewer layouts, no timing */
  bool only_timing = argc > 1 && strcmp(argv[1], "--timing") == 0;
  /* --filters: part D alone (FILTER, PARTITION, joined PARTITION, SPLIT),
     its quick layouts: a short device call that changed only those */
  bool only_filters = argc > 1 && strcmp(argv[1], "--filters") == 0;
  rtg_init(NULL);
  cudaDeviceProp prop;
  cuda_check(cudaGetDeviceProperties(&prop, 0), "the device's properties");
  printf("device: %s, %d SMs; the balanced path below %lld segments and from %lld elements (or the total "
         "unknown)\n",
         prop.name, rtg_sm_count(), 2 * (long long)rtg_sm_count(), (long long)rtg::SEG_BALANCED_MIN);

  if (only_filters) {
    test_filters(true);
    test_splits_counted(true);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }
  if (only_timing) {
    timing_segdes_ride();
    timing();
    timing_single_pass();
    timing_ids();
    return 0;
  }

  /* B: offsets, in one tile and in many; make_segdes */
  static const int64_t onsegs[] = {0, 1, 2, 5, 100, 1000, 1023, 1024, 1025, 4095, 4096, 8191, 8192, 8193, 10000,
                                   16384, 20000};
  for (int64_t nseg : onsegs)
    test_offsets(nseg, 1000, "lengths 0..1000");
  test_offsets(5000, (int64_t)1 << 40, "lengths 0..2^40");
  test_offsets(20000, (int64_t)1 << 40, "lengths 0..2^40");
  test_offsets(2000000, 1000, "lengths 0..1000");
  static const int64_t mnsegs[] = {0, 1, 7, 2047, 2048, 2049, 100000, 1000000, 2000000};
  for (int64_t nseg : mnsegs) {
    test_make_segdes(nseg, 1000);
    test_make_segdes(nseg, INT32_MAX);
    test_segdes_riding(nseg);
  }

  /* appends in place, and MAPs */
  static const int64_t app[][3] = {{0, 0, 0}, {0, 5, 5}, {5, 0, 5}, {3, 4, 7}, {3, 4, 6}, {1000, 999, 1999},
                                   {1000, 1000, 1999}, {1 << 20, 1 << 20, 1 << 21}, {5000000, 5000000, 10000000}};
  for (const auto &t : app)
    test_append_into(t[0], t[1], t[2]);
  static const int64_t mapn[] = {1, 255, 256, 1023, 1024, 1025, 100000, 3000000, 10000001};
  for (int64_t n : mapn)
    test_map_ints(n);

  /* D: FILTER in one pass */
  test_filters(quick);
  test_splits_counted(quick);

  /* E: REDUCE and SCAN, unsegmented */
  test_flats();

  /* A and C on each layout */
  test_ids_move();
  test_seg_maps(quick);
  static const int64_t nsegs[] = {1, 2, 3, 7, 64, 263, 264, 1000, 1024, 1025, 5000, 40000};
  /* 4300000: 1025 and more segments of 4096 or more on average, a block
     each where the total is known (seg_use_blocks) */
  static const int64_t totals[] = {0, 1, 100, 4097, 65535, 65536, 300000, 1000000, 3000000, 4300000};
  int layout_no = 0;
  for (int64_t total : totals) {
    for (size_t i = 0; i < sizeof nsegs / sizeof *nsegs; i++) {
      int64_t nseg = nsegs[i];
      for (int k = 0; k < NKINDS; k++) {
        /* the largest totals: one kind per segment count */
        if (total >= 1000000 && k != (int)(i % NKINDS))
          continue;
        if (quick && k != (int)(i % NKINDS))
          continue;
        std::vector<int64_t> len = make_lengths(nseg, total, (Kind)k);
        char layout[120];
        snprintf(layout, sizeof layout, "nseg=%lld total=%lld %s", (long long)nseg, (long long)total,
                 kind_names[k]);
        bool known = layout_no % 2 == 0;
        test_ids(len, layout);
        test_seg_map(len, layout);
        test_segmented<TInt>(len, layout, known);
        test_segmented_sum<TInt, AddInt>(len, layout, true);
        test_segmented_sum<TInt3, AddInt3>(len, layout, layout_no % 4 != 1);
        test_segmented<TDouble>(len, layout, !known);
        test_segmented<TAffine>(len, layout, known);
        test_segmented<TAffine64>(len, layout, !known);
        if (layout_no % 5 == 0)
          test_segmented<TWide>(len, layout, known);
        /* pulls that take the segment: every path of one commutative and
           one ordered operator, the atomics' sum */
        test_segmented<TInt>(len, layout, !known, true);
        test_segmented<TAffine>(len, layout, known, true);
        test_segmented_sum<TInt3, AddInt3>(len, layout, layout_no % 3 != 1, true);
        layout_no++;
      }
    }
  }
  if (!quick) {
    timing_segdes_ride();
    timing();
    timing_single_pass();
    timing_ids();
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
