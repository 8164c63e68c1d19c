/*
 * gpu.cuh: the GPU target's skeletons, one template per SOAC, written once
 * and instantiated by each generated program with the functors its thunks
 * become (the λcu paper's section 6: the skeleton owns data access,
 * iteration and synchronization, the thunk gives the computation).
 *
 *   a pull functor     V operator()(int64_t i) const: the values at index i
 *                      (a SEG_MAP's, and a SEG_REDUCE's or SEG_SCAN's that
 *                      says `static constexpr bool segment = true`:
 *                      V operator()(int64_t i, int64_t s) const, s the
 *                      segment that holds element i; pull_at)
 *   an operator        V operator()(V a, V b) const: a REDUCE's or SCAN's
 *   a predicate        bool operator()(int64_t i, V v) const: i for the
 *                      errors it records
 *   an index functor   int32_t operator()(int64_t i) const: a PERMUTE's
 *   a store functor    void operator()(int64_t i, V v) const: writes the
 *                      results at position i
 *
 * V is the struct of a thunk's values.  Reductions and scans combine in
 * the order of the elements (the operator need not be commutative: the
 * first extreme of max_index is not), tile by tile: a block loads a tile
 * of THREADS * ITEMS values coalesced, each thread combines ITEMS
 * consecutive ones, and the threads' results are combined in order.
 * Their results therefore do not depend on timing; a float sum differs
 * from the CPU's only by the order of its additions.
 */
#ifndef NESSIE_RT_GPU_CUH
#define NESSIE_RT_GPU_CUH

#include <algorithm>
#include <climits>
#include <type_traits>

#include "gpu.h"

namespace rtg {

constexpr int THREADS = 256;

/* Values per thread in a tile: fewer for bigger values, so that a tile
   stays within a block's shared memory. */
template <class V> constexpr int ITEMS = sizeof(V) <= 16 ? 4 : sizeof(V) <= 48 ? 2 : 1;

/* ---- the error record ---- */

/* The device's record: the error that comes first (rt_kernel_error_before:
   by operation, then by element; a lock guards the rare write).
   'raised', in host memory that the device writes through (mapped),
   becomes 1 with the first error: after a wait the host reads the record
   itself only when it is set, so that a wait after kernels that recorded
   nothing copies nothing back.  'key' is the record's (order, index) in
   one word, which a thread reads without the lock to skip the lock when
   its error comes later: an order below 2^23 and an index below 2^40
   keep the words in the pairs' order (lengths are ints). */
struct ErrorSlot {
  RtKernelError e;
  int lock;
  int *raised;
  long long key;
};

__device__ inline long long error_key(const RtKernelError &e) {
  return ((long long)e.order << 40) + (e.index & ((1ll << 40) - 1));
}

__device__ inline void record(RtKernelError *r, RtKernelError e) {
  ErrorSlot *slot = reinterpret_cast<ErrorSlot *>(r);
  if (error_key(e) >= *(volatile long long *)&slot->key)
    return;
  while (atomicCAS(&slot->lock, 0, 1) != 0)
    ;
  if (rt_kernel_error_before(&e, (const RtKernelError *)&slot->e)) {
    /* the record first, the key last: a thread that sees the key skips
       only what comes after the record (after the kernel, the host reads
       it all) */
    slot->e = e;
    __threadfence();
    *(volatile long long *)&slot->key = error_key(e);
    *(volatile int *)slot->raised = 1;
  }
  __threadfence();
  atomicExch(&slot->lock, 0);
}

/* An argument check made on the device (check_result, below): recorded
   only where nothing was recorded before it, which came first, and with
   index -1, so that no element's error recorded after it takes its
   place.  The order of errors is then the host check's that it stands
   for: before it, the errors of the kernels launched before it; after
   it, none. */
__device__ inline void record_first(RtKernelError *r, RtKernelError e) {
  ErrorSlot *slot = reinterpret_cast<ErrorSlot *>(r);
  while (atomicCAS(&slot->lock, 0, 1) != 0)
    ;
  if (*(volatile int64_t *)&slot->e.index == INT64_MAX) {
    e.index = -1;
    e.order = INT32_MIN;
    slot->e = e;
    __threadfence();
    *(volatile long long *)&slot->key = LLONG_MIN;
    *(volatile int *)slot->raised = 1;
  }
  __threadfence();
  atomicExch(&slot->lock, 0);
}

/* A load that streams: evict-first in the caches (ld.global.cs), for a
   value read once where the kernel's other reads gather and are better
   kept (codegen/cuda.c, pull_gathers).  T: a vector's element type
   (int32_t, double, uint8_t, char), each one of __ldcs's. */
template <class T> __device__ __forceinline__ T ld_stream(const T *p) { return __ldcs(p); }

/* ---- grids ---- */

/* Blocks of THREADS for n elements, 'per_thread' each, at most 'most'. */
inline int grid_for(int64_t n, int per_thread, int most) {
  int64_t b = (n + (int64_t)THREADS * per_thread - 1) / ((int64_t)THREADS * per_thread);
  return (int)(b < 1 ? 1 : b > most ? most : b);
}

/* A grid that fills the device (8 blocks an SM at the most). */
inline int blocks_for(int64_t n, int per_thread) { return grid_for(n, per_thread, rtg_max_blocks()); }

/* The most blocks of a grid-stride kernel (MAP, commutative REDUCE):
   WAVES times as many as the GPU holds at once (occupancy), where
   blocks_for's 8 an SM ignores the kernel's registers.  A whole number
   of waves: Black-Scholes's MAP
   (46 registers a thread) fits 5 blocks of 256 threads on an SM, and the
   8 an SM that blocks_for gives ran a second wave 60% full.  More than
   one wave: blocks that finish early are replaced, where one wave leaves
   their SM slots empty until the kernel ends (ncu on the sum of logs: 70%
   achieved occupancy with one wave).  Measured on the H100 with 1, 2, 4
   and 8 waves (docs/gpu-runs.md): the sum of logs 0.50, 0.45, 0.44,
   0.45 ms; Black-Scholes 1.84, 1.75, 1.68, 1.65; sum, dot product and
   norm2, memory-bound, within 3% throughout. */
constexpr int WAVES = 4;

/* WAVES times the blocks of 'kernel' (THREADS threads, static shared
   memory) that the GPU holds at once.  Each caller keeps the answer in a
   static: one query per kernel. */
template <class Kernel> int wave_blocks(Kernel kernel) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0) != cudaSuccess || per_sm < 1)
    per_sm = 1;
  return per_sm * rtg_sm_count() * WAVES;
}

/* ---- MAP ---- */

/* At most 40 registers a thread, so that 6 blocks of THREADS fit on an
   SM: Black-Scholes's MAP, left to take 64, ran 4 blocks and took 1.30
   times the hand-written kernel's time, 1.21 at 48 registers (5 blocks)
   and 1.18 at 40, with 20 bytes spilled (H100, docs/gpu-runs.md). */
constexpr int MAP_BLOCKS = 6;

template <class Pull, class Store>
__global__ void __launch_bounds__(THREADS, MAP_BLOCKS) map_kernel(Pull pull, Store store, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    store(i, pull(i));
}

template <class Pull, class Store> void map(const char *name, RtLoc loc, Pull pull, Store store, int64_t n) {
  if (n <= 0)
    return;
  static const int most = wave_blocks(map_kernel<Pull, Store>);
  rtg_launching("map");
  map_kernel<<<grid_for(n, 4, most), THREADS, 0, rtg_stream()>>>(pull, store, n);
  rtg_launched(name, loc);
}

/* A MAP whose elements take very different times (a thunk that calls a
   scalar loop: mandelbrot's pixels run from 1 to 256 iterations): one
   element a thread and a block per THREADS elements, so that the hardware
   hands the blocks to the SMs as they free up.  map's grid of one wave,
   each block striding over a fixed share, waits for its slowest share. */
template <class Pull, class Store> void map_uneven(const char *name, RtLoc loc, Pull pull, Store store, int64_t n) {
  if (n <= 0)
    return;
  rtg_launching("map");
  map_kernel<<<grid_for(n, 1, 1 << 30), THREADS, 0, rtg_stream()>>>(pull, store, n);
  rtg_launched(name, loc);
}

/* ---- combination within a warp and a block ---- */

/* V moved between the lanes of a warp a word at a time, each word by
   'shuffle' (one of the __shfl_*_sync, every lane taking part). */
template <class V, class Shuffle> __device__ V shfl_words(V v, Shuffle shuffle) {
  static_assert(sizeof(V) % 4 == 0, "V is a whole number of words");
  int w[sizeof(V) / 4];
  memcpy(w, &v, sizeof(V));
  for (int k = 0; k < (int)(sizeof(V) / 4); k++)
    w[k] = shuffle(w[k]);
  memcpy(&v, w, sizeof(V));
  return v;
}

/* V from the lane 'mask' away (lane ^ mask), 'd' lanes below, or of lane 'lane'. */
template <class V> __device__ V shfl_xor(V v, int mask) {
  return shfl_words(v, [mask](int x) { return __shfl_xor_sync(0xffffffffu, x, mask); });
}
template <class V> __device__ V shfl_up(V v, int d) {
  return shfl_words(v, [d](int x) { return __shfl_up_sync(0xffffffffu, x, d); });
}
template <class V> __device__ V shfl_down(V v, int d) {
  return shfl_words(v, [d](int x) { return __shfl_down_sync(0xffffffffu, x, d); });
}
template <class V> __device__ V shfl_from(V v, int lane) {
  return shfl_words(v, [lane](int x) { return __shfl_sync(0xffffffffu, x, lane); });
}

/* The combination of every thread's 'v' by a commutative 'op', for
   thread 0: each warp's by shuffles (a butterfly, the same pairs every
   time, so the result does not depend on timing), then the warps' in
   'sh' (THREADS / 32 of them) by the first warp.  Two barriers, where
   an ordered tree in shared memory takes one a level: at 10^7 doubles a block
   has few elements each, and the tree made the sum's kernel a quarter
   slower than the hand-written one (docs/gpu-runs.md). */
template <class V, class Op> __device__ V block_combine_commutative(V v, Op op, V id, V *sh) {
  constexpr int WARPS = THREADS / 32;
  for (int m = 16; m > 0; m /= 2)
    v = op(v, shfl_xor(v, m));
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  __syncthreads(); /* sh free: a caller may have read it */
  if (lane == 0)
    sh[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < WARPS ? sh[lane] : id;
    for (int m = WARPS / 2; m > 0; m /= 2)
      v = op(v, shfl_xor(v, m));
  }
  return v;
}

/* The tile of IT * THREADS values at 'base' (those before 'to'), loaded
   coalesced: position k by thread k % THREADS. */
template <int IT, class V, class Pull> __device__ void load_tile(V *tile, Pull &pull, int64_t base, int64_t to) {
  for (int k = threadIdx.x; k < THREADS * IT; k += THREADS)
    if (base + k < to)
      tile[k] = pull(base + k);
}

/* The inclusive scan of the warp's values in lane order (Hillis-Steele
   by shuffles; op need not be commutative). */
template <class V, class Op> __device__ V warp_inclusive_scan(V v, Op &op, int lane) {
  for (int d = 1; d < 32; d *= 2) {
    V left = shfl_up(v, d);
    if (lane >= d)
      v = op(left, v);
  }
  return v;
}

/* The exclusive scan of the threads' values in thread order: the
   combination of the values of the threads before this one (id for thread
   0), and in *total the block's.  Each warp scans by shuffles, the warps'
   totals meet in 'sh' (THREADS / 32 values): two barriers, where a
   Hillis-Steele scan in shared memory takes two a level (sixteen). */
template <class V, class Op> __device__ V block_exclusive_scan(V v, Op &op, V id, V *sh, V *total) {
  constexpr int WARPS = THREADS / 32;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  V inc = warp_inclusive_scan(v, op, lane);
  V before = shfl_up(inc, 1);
  if (lane == 31)
    sh[w] = inc;
  __syncthreads();
  V prefix = id;
  for (int k = 0; k < w; k++)
    prefix = op(prefix, sh[k]);
  V all = prefix;
  for (int k = w; k < WARPS; k++)
    all = op(all, sh[k]);
  *total = all;
  __syncthreads(); /* sh read by every thread: free again */
  return lane == 0 ? prefix : op(prefix, before);
}

/* Combines the values of [from, to) in order, for thread 0 (the others
   get an unspecified value).  Each warp takes one contiguous slice, in
   order, and walks it 32 * ITEMS<V> values at a time: each lane combines
   its ITEMS<V> consecutive values, then the warp its lanes' by a tree of
   shuffles (lane l with lane l + d: the order is kept); the warps'
   combinations meet in 'sh' (THREADS / 32 values) once at the end.  The
   tile in shared memory that this replaced took a barrier per level of
   an ordered tree for every tile: 8 barriers per 1024 values, and a
   subscript check's REDUCE over 8*10^7 ints took 840 µs (H100). */
template <class V, class Pull, class Op> __device__ V combine_range(Pull pull, Op op, V id, int64_t from, int64_t to, V *sh) {
  constexpr int IT = ITEMS<V>, WARPS = THREADS / 32, CHUNK = 32 * IT;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  int64_t n = to > from ? to - from : 0;
  int64_t per = ((n + WARPS - 1) / WARPS + CHUNK - 1) / CHUNK * CHUNK;
  int64_t lo = from + w * per < to ? from + w * per : to;
  int64_t hi = lo + per < to ? lo + per : to;
  V acc = id;
  for (int64_t base = lo; base < hi; base += CHUNK) {
    V mine = id;
    for (int k = 0; k < IT; k++) {
      int64_t j = base + lane * IT + k;
      if (j < hi)
        mine = op(mine, pull(j));
    }
    for (int d = 1; d < 32; d *= 2) {
      V right = shfl_down(mine, d);
      if ((lane & (2 * d - 1)) == 0)
        mine = op(mine, right);
    }
    acc = op(acc, mine); /* lane 0's is the slice's so far */
  }
  if (lane == 0)
    sh[w] = acc;
  __syncthreads();
  V r = id;
  if (threadIdx.x == 0)
    for (int k = 0; k < WARPS; k++)
      r = op(r, sh[k]);
  return r;
}

/* ---- REDUCE ----

   One launch: block b combines its contiguous part of [0, n) into
   partial[b], and the last block to finish (a ticket, as in
   reduce_commutative_kernel below) combines the partials in order and
   writes the result.  The parts and the order of combination are those
   of the two launches this replaced (the parts, then one block over the
   partials), so the result is the same, bit for bit; the ticket takes the
   second launch out (quicksort of 10^6 keys made 2796 of them in 13
   sorts). */

/* Block-wide: thread 0's 'mine' to partial[blockIdx.x], counted by the
   ticket; true, in every thread, in the last block to finish, which then
   sees every block's partial (the fences: the partial is visible before
   the ticket counts it, and the last block reads after its count). */
template <class V> __device__ bool last_to_finish(V *partial, const V &mine, unsigned *ticket) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = mine;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last)
    __threadfence();
  return last;
}

/* Reads partial[i], written by another block (load_other_block, below) */
template <class V> struct FromOtherBlocks {
  const V *a;
  __device__ V operator()(int64_t i) const;
};

template <class V, class Pull, class Op>
__global__ void reduce_kernel(Pull pull, Op op, V id, int64_t n, int64_t part, V *partial, unsigned *ticket, V *out) {
  __shared__ V sh[THREADS / 32];
  int64_t from = blockIdx.x * part, to = from + part < n ? from + part : n;
  V r = combine_range(pull, op, id, from, to, sh);
  if (!last_to_finish(partial, r, ticket))
    return;
  r = combine_range(FromOtherBlocks<V>{partial}, op, id, 0, (int64_t)gridDim.x, sh);
  if (threadIdx.x == 0) {
    *out = r;
    *ticket = 0; /* for the next reduction on the stream */
  }
}

/* The slot a skeleton writes its one value into, for the host to read
   (rtg_result_slot: host memory that the device writes through). */
template <class V> V *result_slot() { return (V *)rtg_result_slot(sizeof(V)); }

/* The reduction of pull(0 .. n > 0) by op from id into 'out' (device
   memory), without a wait. */
template <class V, class Pull, class Op>
void launch_reduce(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n, V *out) {
  int blocks = blocks_for(n, ITEMS<V>);
  int64_t part = (n + blocks - 1) / blocks;
  if (part < 1)
    part = 1;
  V *partial = (V *)rtg_partials(sizeof(V) * (size_t)blocks);
  rtg_launching("reduce");
  reduce_kernel<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, n, part, partial, rtg_ticket(), out);
  rtg_launched(name, loc);
}

/* ---- REDUCE of a commutative operator ----
   When every result of the operator is the sum, product, and, or, xor,
   minimum or maximum of its two arguments' components (cuda.c,
   op_commutative), the order of the elements matters only to a float
   sum's rounding.  Then each thread combines a grid-stride sequence
   (coalesced loads, four in flight), the block combines its threads'
   (block_combine_commutative: warp shuffles), and
   the last block to finish combines the blocks' results: one launch, no
   tiles in shared memory.  The grid depends only on n and the device, so
   the result does not depend on timing. */

/* partial[k], read past the L1 cache (__ldcg: cached in L2 only):
   another block wrote it.  A word at a time where V is made of 8-byte
   words (codegen's V is alignas(8)), else a byte at a time: the last
   block reads every block's partial, and byte loads made that tail 8
   times longer (a sum of 10^7 doubles: 4224 partials). */
template <class V> __device__ V load_other_block(const V *p) {
  V x;
  if constexpr (sizeof(V) % 8 == 0 && alignof(V) >= 8) {
    const unsigned long long *src = reinterpret_cast<const unsigned long long *>(p);
    unsigned long long w[sizeof(V) / 8];
    for (size_t k = 0; k < sizeof(V) / 8; k++)
      w[k] = __ldcg(src + k);
    memcpy(&x, w, sizeof(V));
  } else {
    const unsigned char *src = reinterpret_cast<const unsigned char *>(p);
    unsigned char b[sizeof(V)];
    for (size_t k = 0; k < sizeof(V); k++)
      b[k] = __ldcg(src + k);
    memcpy(&x, b, sizeof(V));
  }
  return x;
}

template <class V> __device__ V FromOtherBlocks<V>::operator()(int64_t i) const { return load_other_block(&a[i]); }

template <class V, class Pull, class Op>
__global__ void reduce_commutative_kernel(Pull pull, Op op, V id, int64_t n, V *partial, unsigned *ticket, V *out) {
  __shared__ V sh[THREADS / 32];
  const int64_t stride = (int64_t)gridDim.x * THREADS;
  int64_t i = blockIdx.x * (int64_t)THREADS + threadIdx.x;
  V acc = id;
  for (; i + 3 * stride < n; i += 4 * stride) {
    V a = pull(i), b = pull(i + stride), c = pull(i + 2 * stride), d = pull(i + 3 * stride);
    acc = op(acc, op(op(a, b), op(c, d)));
  }
  for (; i < n; i += stride)
    acc = op(acc, pull(i));
  acc = block_combine_commutative(acc, op, id, sh);
  if (!last_to_finish(partial, acc, ticket))
    return;
  V r = id;
  for (int64_t k = threadIdx.x; k < gridDim.x; k += THREADS)
    r = op(r, load_other_block(&partial[k]));
  r = block_combine_commutative(r, op, id, sh);
  if (threadIdx.x == 0) {
    *out = r;
    *ticket = 0; /* for the next reduction on the stream */
  }
}

/* The reduction of pull(0 .. n-1) by commutative op from id, read back
   (a sync). */
/* Its grid: whole waves, one more for each REDUCE_PER_THREAD elements a
   thread would have in the waves before, up to WAVES.  Measured on the
   H100 (tests/gpu/reducetest.cu; kernel µs back to back, 1 / 2 / 4
   waves): a sum of 10^7 doubles 32.3 / 35.5 / 38.0 with the operator's
   checks, 31.1 / 32.9 / 33.5 without (codegen's deferred checks), the
   hand-written kernel 36.0; of 10^8 264 / 265 / 268; a sum of logs of
   10^7 51.9 / 47.0 / 47.0 without the checks, of 10^8 453 / 400 / 374.
   Memory-bound and small, more blocks only add to the last block's
   combination and the tail; compute-bound and large, they keep the SMs
   busy as blocks end.  16 a thread gives 10^7 two waves, 10^8 four. */
constexpr int64_t REDUCE_PER_THREAD = 16;

template <class V, class Pull, class Op>
void launch_reduce_commutative(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n, V *out) {
  static const int most = wave_blocks(reduce_commutative_kernel<V, Pull, Op>);
  const int wave = most / WAVES;
  int64_t waves = n / ((int64_t)wave * THREADS * REDUCE_PER_THREAD);
  waves = waves < 1 ? 1 : waves > WAVES ? WAVES : waves;
  int blocks = grid_for(n, 4, wave * (int)waves);
  V *partial = (V *)rtg_partials(sizeof(V) * (size_t)blocks);
  rtg_launching("reduce");
  reduce_commutative_kernel<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, n, partial, rtg_ticket(), out);
  rtg_launched(name, loc);
}

/* The reduction into a result slot, without a wait (NULL for no
   elements): the kernel's code reads it with the counts of the FILTERs
   launched around it (codegen/cuda.c, flush_filters), so that a
   kernel's values and counts cost the host one wait.  The same launch
   as reduce's and reduce_commutative's, so the same value, bit for bit. */
template <bool COMMUTATIVE, class V, class Pull, class Op>
V *reduce_launch(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n) {
  if (n <= 0)
    return NULL;
  V *out = result_slot<V>();
  if constexpr (COMMUTATIVE)
    launch_reduce_commutative(name, loc, pull, op, id, n, out);
  else
    launch_reduce(name, loc, pull, op, id, n, out);
  return out;
}

/* reduce_launch's value: a wait, unless one since the launch read the
   slot's room already; 'id' where there were no elements. */
template <class V> V reduce_read(V *slot, V id) {
  if (!slot)
    return id;
  V r;
  rtg_read_result(&r, slot, sizeof(V));
  return r;
}

/* The two at once: the reduction of pull(0 .. n-1) by op from id, read
   back (a sync; none for no elements), ordered or (reduce_commutative)
   in reduce_commutative_kernel's grid (the self-tests call them). */
template <class V, class Pull, class Op> V reduce(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n) {
  return reduce_read(reduce_launch<false>(name, loc, pull, op, id, n), id);
}

template <class V, class Pull, class Op>
V reduce_commutative(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n) {
  return reduce_read(reduce_launch<true>(name, loc, pull, op, id, n), id);
}

/* ---- a REDUCE that only argument checks read ----
   Lowering tests a lifted argument check (a subscript, a range: NESL's
   `check`) by a REDUCE that finds the first element that fails it and
   gives its operands, and a `check` after the `run` tests them on the
   host: a wait for the device, whose pipeline then drains (quicksort
   made eight a level of its recursion).  Where nothing else reads the
   REDUCE's values (codegen/devcheck.c), they stay on the device
   (reduce_to_device), and after the kernel's last SOAC one thread tests
   them (check_result): its error, recorded first (record_first), is
   found where the host waits next, as every kernel's is. */

/* The reduction into device memory, no wait; NULL where there are no
   elements (the value is then id, which check_result tests on the
   host).  COMMUTATIVE: reduce_commutative's grid and order; a template
   argument, so that only the kernel launched is instantiated. */
template <bool COMMUTATIVE, class V, class Pull, class Op>
V *reduce_to_device(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n) {
  if (n <= 0)
    return NULL;
  V *out = (V *)rtg_alloc(sizeof(V));
  if constexpr (COMMUTATIVE)
    launch_reduce_commutative(name, loc, pull, op, id, n, out);
  else
    launch_reduce(name, loc, pull, op, id, n, out);
  return out;
}

template <class V> __global__ void set_value_kernel(V *out, V value) { *out = value; }

/* The reduction into device memory, no wait, for later SOACs of the
   kernel to read there (codegen/cuda.c, reduce_inside): never NULL, the
   identity where there are no elements.  The same launch as the
   reduction read back, so the same value, bit for bit. */
template <bool COMMUTATIVE, class V, class Pull, class Op>
V *reduce_value_on_device(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n) {
  if (n > 0)
    return reduce_to_device<COMMUTATIVE>(name, loc, pull, op, id, n);
  V *out = (V *)rtg_alloc(sizeof(V));
  rtg_launching("reduce");
  set_value_kernel<<<1, 1, 0, rtg_stream()>>>(out, id);
  rtg_launched(name, loc);
  return out;
}

/* check(value, &error, launch) is false, with the error, where one of
   the checks fails (the first, in the order of the host's checks). */
template <class V, class Check> __global__ void check_kernel(const V *value, Check check, RtKernelError *err, int launch) {
  RtKernelError e;
  if (!check(*value, &e, launch))
    record_first(err, e);
}

/* The checks of REDUCE result 'value' (reduce_to_device's): on the device
   after the kernels before it, one thread; or, where it is NULL, of id on
   the host, false with the error in 'host_err' if one fails ('run': the
   `run`'s site, where the host reports it). */
template <class V, class Check>
bool check_result(const char *name, RtLoc loc, V *value, Check check, V id, RtKernelError *host_err, int launch,
                  int run) {
  if (!value)
    return check(id, host_err, run);
  rtg_launching("argument checks");
  check_kernel<<<1, 1, 0, rtg_stream()>>>(value, check, rtg_error(), launch);
  rtg_launched(name, loc);
  rtg_free(value); /* stream-ordered: after the check */
  return true;
}

/* ---- single-pass prefixes: the decoupled look-back ----

   A kernel whose tiles each need the sum of the tiles before them (a
   FILTER's kept values, a segdes's offsets, a SCAN's carry) gets it in the same launch by
   a decoupled look-back (Merrill and Garland, "Single-pass Parallel
   Prefix Scan with Decoupled Look-back", 2016): each tile publishes its
   own sum as soon as it has it, and its inclusive prefix once it has
   that; a tile adds its predecessors' back to the first inclusive one.
   Tile t is block t: blocks start in the order of their index (as CUB's
   single-pass scans also assume), so that every predecessor a tile
   waits for is running or done.  A tile's state is one 16-byte word,
   its value (the sum, then the inclusive prefix) beside its status (the
   kind, and the epoch of the launch that wrote it), stored and loaded
   whole by relaxed GPU-scope accesses (st/ld.relaxed.gpu.v2.u64, as
   CUB's tile states for 8-byte values have them: the .cg accesses tried
   first are not ordered, and saw stale words), so that a reader never
   sees a value without its kind.  (Two arrays, the values written
   before the status word with a fence between, made quicksort's FILTER
   2.6 times slower: the fences sit on the look-back's critical path.)
   The epochs (rtg_tile_state: a new one each launch) mean that the
   words are never cleared between launches. */
constexpr unsigned long long TILE_SUM = 1, TILE_PREFIX = 2;

/* the predecessors' words a lane of the look-back reads at once (a window
   of 32 times as many tiles): to measure the look-back's reach against
   its loads */
#ifndef NESSIE_LOOKBACK_WORDS
#define NESSIE_LOOKBACK_WORDS 1
#endif

__device__ inline void tile_store(RtgTileWord *w, long long value, unsigned long long status) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"(value), "l"(status) : "memory");
}

__device__ inline void tile_load(const RtgTileWord *w, long long *value, unsigned long long *status) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(*value), "=l"(*status) : "l"(w) : "memory");
}

/* A value of at most 8 bytes as a tile word's value, and back. */
template <class V> __device__ inline long long word_of(const V &v) {
  long long w = 0;
  memcpy(&w, &v, sizeof(V));
  return w;
}

template <class V> __device__ inline V value_of(long long w) {
  V v;
  memcpy(&v, &w, sizeof(V));
  return v;
}

/* For the tile's first warp, all 32 lanes together: the combination by
   'op' of the tiles before tile 'tile', in order ('none', op's identity,
   for tile 0), its own combination 'sum' (at most 8 bytes, the same in
   every lane) published on the way; every lane gets the result.  The
   warp reads the 32 predecessors before it at once, lane k tile
   tile - 1 - k (as CUB's look-back does): it waits until each holds at
   least a sum, combines the window's values back to the nearest inclusive
   prefix among them (in tile order: op need not be commutative), and
   goes on 32 tiles back only where the window held none.  One thread
   reading one tile at a time took a round trip to the L2 cache for every
   predecessor still without its prefix: the FILTER of 10^6 4-byte
   values took 16.1 µs, 7.7 now, of 10^7 108 µs, 42 now (H100,
   tests/gpu/segtest.cu's timing, docs/gpu-runs.md). */
template <class V, class Op> __device__ V tile_lookback_value(RtgTileState st, int64_t tile, V sum, Op &op, V none) {
  const unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const unsigned long long mine = (unsigned long long)st.epoch << 2;
  if (tile == 0) {
    if (lane == 0)
      tile_store(&st.words[0], word_of(sum), mine | TILE_PREFIX);
    return none;
  }
  if (lane == 0)
    tile_store(&st.words[tile], word_of(sum), mine | TILE_SUM);
  /* a window of 32 * M tiles: lane k reads tiles last - k * M - m, m = 0
     .. M - 1 (the nearest M to lane 0) */
  constexpr int M = NESSIE_LOOKBACK_WORDS;
  V before = none; /* the windows read so far, nearest first */
  for (int64_t last = tile - 1;; last -= 32 * M) {
    long long value[M];
    unsigned long long status[M];
    /* every word not yet of this launch loaded again, all M issued
       before any is waited for */
#pragma unroll
    for (int m = 0; m < M; m++) {
      value[m] = 0;
      /* before tile 0: nothing to wait for; else not yet read */
      status[m] = last - (int64_t)lane * M - m < 0 ? mine | TILE_PREFIX : ~mine;
    }
    for (bool waiting = true; waiting;) {
#pragma unroll
      for (int m = 0; m < M; m++)
        if ((status[m] & ~3ull) != mine)
          tile_load(&st.words[last - (int64_t)lane * M - m], &value[m], &status[m]);
      waiting = false;
#pragma unroll
      for (int m = 0; m < M; m++)
        waiting |= (status[m] & ~3ull) != mine;
    }
    int first = M; /* the lane's nearest inclusive prefix, M for none */
#pragma unroll
    for (int m = M - 1; m >= 0; m--)
      if ((status[m] & 3) == TILE_PREFIX)
        first = m;
    unsigned prefixes = __ballot_sync(all, first < M);
    int nearest = prefixes ? __ffs(prefixes) - 1 : 31; /* the window's lanes 0 .. nearest count */
    /* the lane's tiles in order, earliest first, back to its prefix */
    V x = none;
#pragma unroll
    for (int m = M - 1; m >= 0; m--)
      if (lane <= nearest && m <= first && last - (int64_t)lane * M - m >= 0)
        x = op(x, value_of<V>(value[m]));
    /* lane 0 gets op over lanes nearest .. 0, in that (tile) order: at
       each step a lane takes the partial of the lanes above it, which
       are earlier tiles */
    for (int d = 1; d < 32; d *= 2) {
      V earlier = shfl_down(x, d);
      if ((lane & (2 * d - 1)) == 0)
        x = op(earlier, x);
    }
    before = op(shfl_from(x, 0), before);
    if (prefixes)
      break;
  }
  if (lane == 0)
    tile_store(&st.words[tile], word_of(op(before, sum)), mine | TILE_PREFIX);
  return before;
}

/* The same for int64 sums (a FILTER's kept values, a segdes's offsets):
   the exclusive prefix of tile 'tile' whose own sum is 'sum'. */
__device__ inline int64_t tile_lookback(RtgTileState st, int64_t tile, int64_t sum) {
  auto plus = [](int64_t a, int64_t b) { return a + b; };
  return tile_lookback_value(st, tile, sum, plus, (int64_t)0);
}

/* The first warp's exclusive sum of a tile's N warp counts (at most 128;
   int counts of a FILTER's kept, int64 sums of a segdes's lengths), in
   place, in element order (row r of warp k at r * WARPS + k); each lane
   takes N / 32 consecutive ones.  Every lane gets their total. */
template <int N, class T> __device__ inline T tile_counts_scan(T *counts) {
  constexpr int PER = (N + 31) / 32;
  static_assert(PER <= 4, "at most 128 counts");
  const int lane = threadIdx.x & 31;
  T c[PER], sum = 0;
  for (int k = 0; k < PER; k++) {
    int i = lane * PER + k;
    c[k] = i < N ? counts[i] : 0;
    sum += c[k];
  }
  T inc = sum;
  for (int d = 1; d < 32; d *= 2) {
    T left = __shfl_up_sync(0xffffffffu, inc, d);
    if (lane >= d)
      inc += left;
  }
  T before = inc - sum;
  for (int k = 0; k < PER; k++) {
    int i = lane * PER + k;
    if (i < N)
      counts[i] = before;
    before += c[k];
  }
  return __shfl_sync(0xffffffffu, inc, 31);
}

/* ---- segment descriptors: a segdes's offsets in one launch ----

   Each block scans a tile of OFFSETS_ITEMS lengths a thread (striped:
   offsets_kernel), and gets the tile's start from the tiles before it by
   the look-back (tile_lookback).  This took the place of a one-block kernel (up to
   8192 segments) and, above that, a memset and CUB's scan (two kernels
   and a temporary allocation, 11-13 µs however few the lengths);
   quicksort makes a few segdes at every level of its recursion.  From
   int32 lengths (make_segdes, FROM_NARROW) it also checks them, records
   a negative one's error (as zero), and stores the int64 lengths: a
   segdes in one launch.  From seg_range's ranges (range_segdes,
   FROM_RANGES) it computes each length in 64 bits, as rt_range_length
   does, so that a range of more elements than an int counts is too many
   elements, not a length that wrapped, and writes the [int] lengths and
   offsets that seg_lengths and seg_offsets give, which a lifted range's
   values and its users ask for at once.  Either checks the total.
   FROM_WIDE scans a segdes's int64 lengths (rt/gpu.cu,
   rtg_seg_offsets).  off[0] is written here.

   The MAPs that make a make_segdes's or range_segdes's arguments ride on
   its launch (codegen/cuda.c): 'ride' computes and stores the MAPs'
   element j, in the thread that then reads what it stored.  NoRide is
   the launch without them.

   A thread takes OFFSETS_ITEMS segments, or one where a MAP rides on
   the launch (offsets_items): a ride's reads of a segment (gathers, a
   lifted if's pack of segment offsets) wait one after another in a
   thread, its stores between them, so that eight a thread made a
   quicksort level's range_segdes of a few thousand segments, in a few
   blocks, 17 µs a launch, 9.5 with one (H100, docs/gpu-runs.md,
   fortieth session; eight were 6% faster only at 4·10^6 segments, and
   a kernel of each size for each ride costs a program's build more). */
enum { OFFSETS_ITEMS = 8 };

enum OffsetsFrom { FROM_WIDE, FROM_NARROW, FROM_RANGES };

/* seg_range's starts, ends and strides, one range a segment; where the
   [int] lengths and offsets go */
struct RangesIn {
  const int32_t *start, *end, *stride;
  int32_t *lengths, *offsets;
};

struct NoRide {
  __device__ void operator()(int64_t) const {}
};

template <class Ride> constexpr int offsets_items = std::is_same<Ride, NoRide>::value ? OFFSETS_ITEMS : 1;

/* Segment j's length, read (and, from NARROW or RANGES, checked and
   stored) as the FROM says. */
template <int FROM>
__device__ __forceinline__ int64_t offsets_length(const void *in, const RangesIn &ranges, int64_t *lengths,
                                                  RtKernelError *err, int run, int64_t j) {
  if (FROM == FROM_NARROW) {
    int32_t l = ((const int32_t *)in)[j];
    if (l < 0)
      record(err, RtKernelError{j, RT_CHECK_NEGATIVE_LENGTH, 0, 0, 0, l, 0, 0.0, run, 0});
    int64_t len = l < 0 ? 0 : l;
    lengths[j] = len;
    return len;
  } else if (FROM == FROM_RANGES) {
    int32_t a = ranges.start[j], e = ranges.end[j], d = ranges.stride[j];
    /* a bad range has none: the range check before it reports it */
    int64_t len = e >= a && d > 0 ? ((int64_t)e - a + d - 1) / d : 0;
    lengths[j] = len;
    ranges.lengths[j] = (int32_t)len; /* wrapped only where the total fails */
    return len;
  } else {
    return ((const int64_t *)in)[j];
  }
}

/* The tile's segments are striped (row r of the tile is segments base +
   r * THREADS .. + THREADS - 1, one a thread), so that every load and
   store of a warp is one run of 32 consecutive segments.  Each thread
   had taken OFFSETS_ITEMS consecutive segments: a warp's stores of the
   int64 offsets were 32 addresses 64 bytes apart, eight times over, and
   a segdes of 10^5 segments took 14.4 µs (tests/gpu/segtest.cu's
   timing, H200).  A row's prefix within a warp comes from a shuffle
   scan, and the rows' and warps' sums, in segment order, from the first
   warp's scan of them (tile_counts_scan). */
template <int FROM, int K, class Ride>
__global__ void __launch_bounds__(THREADS)
    offsets_kernel(const void *in, RangesIn ranges, int64_t nseg, int64_t *lengths, int64_t *off, RtgTileState st,
                   RtKernelError *err, int run, Ride ride) {
  constexpr int WARPS = THREADS / 32;
  __shared__ int64_t row_sums[K][WARPS];
  __shared__ int64_t tile_start;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int64_t tile = blockIdx.x, base = tile * (int64_t)(THREADS * K);
  auto plus = [](int64_t a, int64_t b) { return a + b; };
  int64_t len[K], inc[K];
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    len[r] = 0;
    if (j < nseg) {
      ride(j);
      len[r] = offsets_length<FROM>(in, ranges, lengths, err, run, j);
    }
    inc[r] = warp_inclusive_scan(len[r], plus, lane);
    if (lane == 31)
      row_sums[r][w] = inc[r];
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    int64_t total = tile_counts_scan<K * WARPS>(&row_sums[0][0]);
    int64_t start = tile_lookback(st, tile, total);
    if (threadIdx.x == 0)
      tile_start = start;
  }
  __syncthreads();
  if (tile == 0 && threadIdx.x == 0)
    off[0] = 0;
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    if (j < nseg) {
      int64_t end = tile_start + row_sums[r][w] + inc[r];
      if (FROM == FROM_RANGES)
        ranges.offsets[j] = (int32_t)(end - len[r]);
      off[j + 1] = end;
      /* more elements than an int counts (rt_make_segdes): after any
         negative length, whose index is lower */
      if (FROM != FROM_WIDE && j == nseg - 1 && end > INT32_MAX)
        record(err, RtKernelError{nseg, RT_CHECK_TOO_MANY, 0, 0, 0, 0, end, 0.0, run, 0});
    }
  }
}

/* Segdes 'd''s offsets from 'in' (int32 lengths to check and store,
   FROM_NARROW; d->lengths, FROM_WIDE) or from 'ranges' (FROM_RANGES), in
   one launch, with 'ride' on it. */
template <int FROM, class Ride>
int64_t *make_offsets(RtValue *d, const void *in, RangesIn ranges, RtLoc loc, int run, Ride ride) {
  int64_t *off = (int64_t *)rtg_alloc(sizeof(int64_t) * (size_t)(d->len + 1));
  if (d->len <= 0) { /* the single offset 0, without a launch */
    rtg_check(cudaMemsetAsync(off, 0, sizeof(int64_t), rtg_stream()), "a segdes's offsets");
    return off;
  }
  constexpr int K = offsets_items<Ride>;
  const int64_t per_tile = (int64_t)THREADS * K;
  int64_t tiles = (d->len + per_tile - 1) / per_tile;
  RtgTileState st = rtg_tile_state(tiles);
  rtg_launching(FROM == FROM_NARROW ? "lengths and offsets" : FROM == FROM_RANGES ? "range lengths and offsets" : "offsets");
  offsets_kernel<FROM, K><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(
      in, ranges, d->len, FROM == FROM_WIDE ? NULL : d->lengths, off, st, FROM == FROM_WIDE ? NULL : rtg_error(),
      FROM == FROM_WIDE ? 0 : run, ride);
  rtg_launched(FROM == FROM_NARROW ? "make_segdes" : FROM == FROM_RANGES ? "range_segdes" : "seg_offsets", loc);
  return off;
}

/* A segdes from int32 lengths: checked, stored and scanned in one launch
   (make_offsets), with 'ride' on it (rtg_make_segdes: NoRide). */
template <class Ride> RtValue *make_segdes(RtLoc loc, int run_site, RtValue *lengths, Ride ride) {
  RtValue *d = rtg_segdes_new(lengths->len);
  if (lengths->len > 0)
    d->offsets = make_offsets<FROM_NARROW>(d, lengths->data.i, RangesIn{}, loc, run_site, ride);
  /* values never change: seg_lengths of d is this vector, with no launch
     (a recursion level of quicksort asks for it about five times) */
  rt_retain(lengths);
  d->lengths_vec = lengths;
  return d;
}

/* seg_range's segdes: each range's length in 64 bits, stored, scanned
   and the total checked in one launch (make_offsets), as rt_range_segdes
   on the host, with 'ride' on it (rtg_range_segdes: NoRide). */
template <class Ride>
RtValue *range_segdes(RtLoc loc, int run_site, RtValue *starts, RtValue *ends, RtValue *strides, RtValue **lengths,
                      RtValue **offsets, Ride ride) {
  RtValue *d = rtg_segdes_new(starts->len);
  /* held by the segdes too: seg_lengths and seg_offsets of it give them
     again, with no launch of their own */
  d->lengths_vec = rtg_vec_new(RT_INT, d->len);
  d->offsets_vec = rtg_vec_new(RT_INT, d->len);
  if (starts->len > 0) {
    RangesIn in = {starts->data.i, ends->data.i, strides->data.i, d->lengths_vec->data.i, d->offsets_vec->data.i};
    d->offsets = make_offsets<FROM_RANGES>(d, NULL, in, loc, run_site, ride);
  }
  rt_retain(d->lengths_vec);
  rt_retain(d->offsets_vec);
  *lengths = d->lengths_vec;
  *offsets = d->offsets_vec;
  return d;
}

/* ---- SCAN (exclusive) ---- */

/* In three launches: each block's part combined (scan_totals), then the
   parts' exclusive prefixes (one block), then each part scanned from its
   prefix, tile by tile: each thread scans its ITEMS values after the
   combination of the threads before it (block_exclusive_scan keeps the
   order). */
template <class V, class Pull, class Op>
__global__ void scan_totals(Pull pull, Op op, V id, int64_t n, int64_t part, V *partial) {
  __shared__ V sh[THREADS / 32];
  int64_t from = blockIdx.x * part, to = from + part < n ? from + part : n;
  V r = combine_range(pull, op, id, from, to, sh);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = r;
}

template <class V, class Op> __global__ void scan_prefixes(V *partial, int64_t nparts, Op op, V id) {
  __shared__ V sh[THREADS / 32];
  V carry = id;
  for (int64_t base = 0; base < nparts; base += THREADS) {
    int64_t i = base + threadIdx.x;
    V x = i < nparts ? partial[i] : id, total;
    V before = block_exclusive_scan(x, op, id, sh, &total);
    if (i < nparts)
      partial[i] = threadIdx.x == 0 ? carry : op(carry, before);
    carry = op(carry, total);
  }
}

/* The exclusive scan of the thread's ITEMS values of the tile at 'base'
   (those before 'to'), starting from acc, in place in the tile; then,
   after a barrier (every thread of the block calls this), the tile
   stored coalesced, position k by thread k % THREADS as load_tile loads
   it.  Each thread storing its own consecutive values made a warp's
   stores strided: the one-pass scan of 10^7 int32s took 181 µs (H100,
   tests/gpu/segtest.cu's timing). */
template <int IT, class V, class Op, class Store>
__device__ void store_scanned(V *tile, Op &op, int64_t base, int64_t to, V acc, Store &store) {
  for (int k = 0; k < IT; k++) {
    int at = threadIdx.x * IT + k;
    if (base + at < to) {
      V x = tile[at];
      tile[at] = acc;
      acc = op(acc, x);
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < THREADS * IT; k += THREADS)
    if (base + k < to)
      store(base + k, tile[k]);
}

/* The thread's ITEMS values of the tile at 'base' combined, in order. */
template <int IT, class V, class Op> __device__ V thread_items(const V *tile, Op &op, V id, int64_t base, int64_t to) {
  V mine = id;
  for (int k = 0; k < IT; k++) {
    int64_t at = (int64_t)threadIdx.x * IT + k;
    if (base + at < to)
      mine = op(mine, tile[at]);
  }
  return mine;
}

template <class V, class Pull, class Op, class Store>
__global__ void scan_parts(Pull pull, Op op, V id, int64_t n, int64_t part, const V *prefix, Store store) {
  constexpr int IT = ITEMS<V>;
  __shared__ V tile[THREADS * IT];
  __shared__ V sh[THREADS / 32];
  int64_t from = blockIdx.x * part, to = from + part < n ? from + part : n;
  V carry = prefix[blockIdx.x];
  for (int64_t base = from; base < to; base += (int64_t)THREADS * IT) {
    load_tile<IT>(tile, pull, base, to);
    __syncthreads();
    V total;
    V before = block_exclusive_scan(thread_items<IT>(tile, op, id, base, to), op, id, sh, &total);
    store_scanned<IT>(tile, op, base, to, threadIdx.x == 0 ? carry : op(carry, before), store);
    carry = op(carry, total);
    __syncthreads(); /* the tile read */
  }
}

/* ---- SCAN in one pass ----

   Where the values fit in 8 bytes and the operator is exact (no float
   component: cuda.c says so), one launch instead of three: tile t is
   block t, and its carry, the combination of the tiles before it, comes
   from the decoupled look-back of the 8-byte value by the operator
   (tile_lookback_value, above), each element pulled once.  The look-back
   groups the tiles' combinations as the tiles happen to finish, so a
   float sum would round differently from run to run; an exact operator
   (int arithmetic wraps) gives the same result whatever the grouping.
   Quicksort of 10^6 keys made 3828 scans in 13 sorts, 11484 launches. */
#ifndef NESSIE_SCAN_ITEMS4
#define NESSIE_SCAN_ITEMS4 8
#endif
#ifndef NESSIE_SCAN_ITEMS8
#define NESSIE_SCAN_ITEMS8 8
#endif
/* The one-pass scan's values a thread: NESSIE_SCAN_ITEMS4 for 4-byte
   values, NESSIE_SCAN_ITEMS8 for 8 (-D at the CUDA compiler, to measure
   them).  ITEMS gave 4: 10^7 int32s took 86 µs where a PARTITION moving
   as many bytes took 57; 8 a thread, padded, 67 µs, and 16 no faster
   (tests/gpu/segtest.cu --timing, H100, docs/gpu-runs.md, thirty-eighth
   session): bigger tiles make the look-back a smaller part of a tile's
   time. */
template <class V>
constexpr int SCAN_ITEMS = sizeof(V) <= 4 ? NESSIE_SCAN_ITEMS4 : sizeof(V) <= 8 ? NESSIE_SCAN_ITEMS8 : ITEMS<V>;

/* A tile's place k in shared memory, one word of padding every 32
   places: each thread reads and writes its SCAN_ITEMS consecutive
   places, and without the padding lanes IT places apart share a bank
   (IT-way conflicts); the coalesced loads and stores stay
   conflict-free. */
__device__ __forceinline__ int scan_pad(int k) { return k + (k >> 5); }

/* Tile t of the one-pass scan (block t of scan_one_pass_kernel, or of
   a launch of several SOACs: parts_launch). */
template <class V, class Pull, class Op, class Store>
__device__ __forceinline__ void scan_tile(int64_t t, const Pull &pull, const Op &op_, V id, int64_t n,
                                          RtgTileState st, const Store &store) {
  constexpr int IT = SCAN_ITEMS<V>, PER_TILE = THREADS * IT;
  __shared__ V tile[PER_TILE + PER_TILE / 32];
  __shared__ V sh[THREADS / 32];
  __shared__ V carry;
  Op op = op_;
  const int64_t base = t * (int64_t)PER_TILE;
  const int in_tile = (int)(n - base < PER_TILE ? n - base : PER_TILE);
  for (int k = threadIdx.x; k < in_tile; k += THREADS)
    tile[scan_pad(k)] = pull(base + k);
  __syncthreads();
  V mine = id;
  for (int k = 0; k < IT; k++) {
    int at = threadIdx.x * IT + k;
    if (at < in_tile)
      mine = op(mine, tile[scan_pad(at)]);
  }
  V total;
  V before = block_exclusive_scan(mine, op, id, sh, &total);
  if (threadIdx.x < 32) {
    V c = tile_lookback_value(st, t, total, op, id);
    if (threadIdx.x == 0)
      carry = c;
  }
  __syncthreads();
  V acc = threadIdx.x == 0 ? carry : op(carry, before);
  for (int k = 0; k < IT; k++) {
    int at = threadIdx.x * IT + k;
    if (at < in_tile) {
      V x = tile[scan_pad(at)];
      tile[scan_pad(at)] = acc;
      acc = op(acc, x);
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < in_tile; k += THREADS)
    store(base + k, tile[scan_pad(k)]);
}

template <class V, class Pull, class Op, class Store>
__global__ void __launch_bounds__(THREADS)
    scan_one_pass_kernel(Pull pull, Op op, V id, int64_t n, RtgTileState st, Store store) {
  scan_tile<V>(blockIdx.x, pull, op, id, n, st, store);
}

/* The exclusive scan of pull(0 .. n-1) by op from id into store(0 ..
   n-1).  EXACT: op's result does not depend on how the combinations are
   grouped (cuda.c: no float component), so that, where V fits a tile
   word, the scan takes one pass. */
template <bool EXACT = false, class V, class Pull, class Op, class Store>
void scan(const char *name, RtLoc loc, Pull pull, Op op, V id, int64_t n, Store store) {
  if (n <= 0)
    return;
  if constexpr (EXACT && sizeof(V) <= sizeof(long long)) {
    constexpr int per_tile = THREADS * SCAN_ITEMS<V>;
    int64_t tiles = (n + per_tile - 1) / per_tile;
    RtgTileState st = rtg_tile_state(tiles);
    rtg_launching("scan");
    scan_one_pass_kernel<<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, op, id, n, st, store);
    rtg_launched(name, loc);
  } else {
    /* in the else: a one-pass scan does not instantiate (and ptxas
       compile) the three kernels it never launches */
    int blocks = blocks_for(n, ITEMS<V>);
    int64_t part = (n + blocks - 1) / blocks;
    V *partial = (V *)rtg_partials(sizeof(V) * (size_t)blocks);
    rtg_launching("scan (parts)");
    scan_totals<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, n, part, partial);
    rtg_launched(name, loc);
    rtg_launching("scan (prefixes)");
    scan_prefixes<<<1, THREADS, 0, rtg_stream()>>>(partial, (int64_t)blocks, op, id);
    rtg_launched(name, loc);
    rtg_launching("scan (write)");
    scan_parts<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, n, part, partial, store);
    rtg_launched(name, loc);
  }
}

/* ---- FILTER and PARTITION ---- */

/* The predicate gets the element's index too, for the errors it records. */
template <class Pull, class Pred> __global__ void flags_kernel(Pull pull, Pred pred, int64_t n, uint8_t *flags) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    flags[i] = pred(i, pull(i)) ? 1 : 0;
}

/* The kept values to store_kept at their offsets; with 'partition' the
   others to store_other after them (at i - offset). */
template <class Pull, class Store, class Other>
__global__ void select_kernel(Pull pull, int64_t n, const uint8_t *flags, const int64_t *offsets, Store store_kept,
                              Other store_other, bool partition) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    if (flags[i])
      store_kept(offsets[i], pull(i));
    else if (partition)
      store_other(i - offsets[i], pull(i));
  }
}

/* The flags and their offsets; returns the number kept (a sync). */
template <class Pull, class Pred>
int64_t select_count(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, uint8_t **flags,
                     int64_t **offsets) {
  *flags = (uint8_t *)rtg_alloc((size_t)n + 1);
  *offsets = (int64_t *)rtg_alloc(sizeof(int64_t) * ((size_t)n + 1));
  if (n <= 0)
    return 0;
  rtg_launching("flags");
  flags_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, pred, n, *flags);
  rtg_launched(name, loc);
  return rtg_flag_offsets(name, loc, *flags, *offsets, n);
}

template <class Pull, class Store, class Other>
void select_write(const char *name, RtLoc loc, Pull pull, int64_t n, uint8_t *flags, int64_t *offsets, Store kept,
                  Other other, bool partition) {
  if (n > 0) {
    rtg_launching("select");
    select_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, n, flags, offsets, kept, other, partition);
    rtg_launched(name, loc);
  }
  rtg_free(flags);
  rtg_free(offsets);
}

/* ---- FILTER in one pass ----

   rtg::partition_launch (FILTER and PARTITION): one launch and one read
   back, where select_count and select_write take four launches (the
   flags, CUB's scan of them in two, the select), two temporary arrays,
   and each element's pull twice.  Each block takes one tile of THREADS *
   K elements (K = filter_items<V, Store>), computes each element's value and
   predicate once, keeping them in registers, and counts its kept ones
   (warp ballots, in element order); the tile's start among the kept
   comes from the look-back.  The kept values go to 'store' in order, at
   most n of them: the caller allocates n and shrinks to the count
   (rtg_vec_fit).  The last tile writes the count.  A PARTITION is the
   same pass, each other value to 'other' at its index less the kept
   values before it.

   The values leave through shared memory where a tile's fit
   (FILTER_STAGE_BYTES): each goes to its place among the tile's kept (or
   others), and the block then stores the tile's kept values, and its
   others, as runs of consecutive indices, a thread a value, so that a
   warp's stores are one run of 32 indices.  Stored straight from the
   registers, a warp's kept values of a row are a run of however many it
   kept (16 of 32 where half are), at any alignment: a PARTITION of 10^7
   ints moved its 80 MB at 1.2 TB/s (radix sort's pass, docs/gpu-runs.md,
   thirty-sixth session).  Bigger tiles (K 16 for 4-byte values, 8 for
   8-byte ones, where ITEMS gives 4) make the look-back's wait a smaller
   part of a tile's time.  NESSIE_FILTER_ITEMS4 and NESSIE_FILTER_ITEMS8
   (-D at the CUDA compiler) set the two, NESSIE_FILTER_STAGE=0 turns the
   staging off: to measure them (docs/codegen.md). */
#ifndef NESSIE_FILTER_ITEMS4
#define NESSIE_FILTER_ITEMS4 16
#endif
#ifndef NESSIE_FILTER_ITEMS8
#define NESSIE_FILTER_ITEMS8 8
#endif
#ifndef NESSIE_FILTER_STAGE
#define NESSIE_FILTER_STAGE 1
#endif
/* a joined PARTITION's tiles take their starts from the count pass's
   tile counts (1) or from the look-back (0, the default until the two
   are measured on a GPU: docs/gpu-runs.md, fifty-second session) */
#ifndef NESSIE_JOINED_COUNTS
#define NESSIE_JOINED_COUNTS 0
#endif
/* the blocks of filter_kernel that ptxas must fit on a multiprocessor
   (its registers a thread bounded so): to measure occupancy against
   spills */
#ifdef NESSIE_FILTER_MIN_BLOCKS
#define NESSIE_FILTER_BOUNDS __launch_bounds__(THREADS, NESSIE_FILTER_MIN_BLOCKS)
#else
#define NESSIE_FILTER_BOUNDS __launch_bounds__(THREADS)
#endif
template <class V>
constexpr int FILTER_ITEMS = sizeof(V) <= 4 ? NESSIE_FILTER_ITEMS4 : sizeof(V) <= 8 ? NESSIE_FILTER_ITEMS8 : ITEMS<V>;
#ifndef NESSIE_FILTER_STAGE_BYTES
#define NESSIE_FILTER_STAGE_BYTES 16384
#endif
constexpr int FILTER_STAGE_BYTES = NESSIE_FILTER_STAGE_BYTES;
static_assert(NESSIE_FILTER_ITEMS4 >= 1 && NESSIE_FILTER_ITEMS4 <= 16 && NESSIE_FILTER_ITEMS8 >= 1 &&
                  NESSIE_FILTER_ITEMS8 <= 16,
              "a tile's warp counts fit the first warp's four a lane");

/* What a FILTER's tile stages of each value: the whole V, or where the
   store functor says so (its `staged` type and `stage` function,
   codegen/cuda.c), the part of V it stores.  A predicate's flag computed
   by the pull is part of V but is stored by nothing: radix sort's pass
   staged 8 bytes a value (its int and its flag) in tiles of 8 a thread,
   and moved its 80 MB at 1.5 TB/s where a FILTER of 4-byte values, 16 a
   thread, moved 60 MB at 2.2 (docs/gpu-runs.md, thirty-seventh
   session).  The tile's size follows the staged type. */
template <class V, class Store, class = void> struct Staged {
  typedef V type;
  __device__ static const V &of(const V &v) { return v; }
};
template <class V, class Store> struct Staged<V, Store, std::void_t<typename Store::staged>> {
  typedef typename Store::staged type;
  __device__ static type of(const V &v) { return Store::stage(v); }
};
template <class V, class Store> constexpr int filter_items = FILTER_ITEMS<typename Staged<V, Store>::type>;

/* The shared memory that a block's FILTERs stage their values in: one
   buffer for every FILTER of a launch (a block of filters_kernel runs
   one of its parts), whatever their types. */
__device__ __forceinline__ char *filter_stage() {
  __shared__ alignas(16) char stage[FILTER_STAGE_BYTES];
  return stage;
}

/* One tile of a FILTER or PARTITION.  'others_after', where not NULL, is
   a joined PARTITION's kept count on the device: each other value goes
   to its index among the others plus it (read once a tile).
   With COUNTS, 'tile_counts' holds the kept count of every tile of
   the launch (a joined PARTITION's count pass wrote them): the tile's
   start among the kept is then their sum over the tiles before it,
   summed by the whole block, and not the look-back's (partition_joined,
   NESSIE_JOINED_COUNTS). */
template <int K, class V, bool COUNTS = false, class Pull, class Pred, class Store, class Other>
__device__ __forceinline__ void filter_tile(const Pull &pull, const Pred &pred, int64_t n, const Store &store,
                                            const Other &other, bool partition, RtgTileState st, int64_t *count,
                                            int64_t tile, const int64_t *others_after = nullptr,
                                            const int *tile_counts = nullptr) {
  constexpr int WARPS = THREADS / 32, PER_TILE = THREADS * K;
  typedef Staged<V, Store> St;
  typedef typename St::type S;
  constexpr bool STAGED = NESSIE_FILTER_STAGE && sizeof(S) * PER_TILE <= FILTER_STAGE_BYTES;
  __shared__ int warp_counts[K][WARPS];
  __shared__ int64_t tile_start, tile_others;
  __shared__ int tile_kept;
  __shared__ int64_t warp_before[COUNTS ? WARPS : 1]; /* with tile_counts: each warp's part of their sum */
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int64_t base = tile * (int64_t)PER_TILE;
  V v[K];
  unsigned mask[K];
  /* a joined PARTITION's count, loaded before the pulls so that its
     round trip overlaps theirs (it is needed after the look-back) */
  const int64_t after = others_after && threadIdx.x == 0 ? *others_after : 0;
  /* every element's pull first, then the predicates and ballots: a
     ballot after each pull waited for that pull's loads before the next
     began (one load in flight a thread, as the offsets kernel had) */
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    if (j < n)
      v[r] = pull(j);
  }
  if constexpr (COUNTS) {
    /* the kept counts of the tiles before this one, a thread a stride
       of them, loaded while the pulls' loads are in flight */
    int mine = 0; /* at most the kept count, which is at most n: an int */
    for (int t = threadIdx.x; t < (int)tile; t += THREADS)
      mine += tile_counts[t];
    for (int d = 16; d > 0; d /= 2)
      mine += __shfl_down_sync(0xffffffffu, mine, d);
    if (lane == 0)
      warp_before[w] = mine;
  }
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    bool keep = j < n && pred(j, v[r]);
    mask[r] = __ballot_sync(0xffffffffu, keep);
    if (lane == 0)
      warp_counts[r][w] = __popc(mask[r]);
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    /* the warps' counts to their exclusive prefixes, in element order, by
       the first warp; then the tile's start */
    int total = tile_counts_scan<K * WARPS>(&warp_counts[0][0]);
    int64_t before = 0;
    if constexpr (COUNTS)
      for (int k = 0; k < WARPS; k++)
        before += warp_before[k];
    else
      before = tile_lookback(st, tile, total);
    if (lane == 0) {
      tile_start = before;
      tile_others = base - before + after; /* the tile's first other's index (lane 0: thread 0) */
      tile_kept = total;
      if (base + PER_TILE >= n) /* the last tile (a launch of parts may have more blocks) */
        *count = before + total;
    }
  }
  __syncthreads();
  const unsigned below = (1u << lane) - 1;
  if constexpr (STAGED) {
    /* each value to its place in the tile: the kept in order, then (a
       PARTITION's) the others in order */
    S *stage = reinterpret_cast<S *>(filter_stage());
    const int kept = tile_kept;
    for (int r = 0; r < K; r++) {
      int at = r * THREADS + threadIdx.x; /* the element's place in the tile */
      int kept_before = warp_counts[r][w] + __popc(mask[r] & below);
      if (mask[r] >> lane & 1)
        stage[kept_before] = St::of(v[r]);
      else if (partition && base + at < n)
        stage[kept + at - kept_before] = St::of(v[r]);
    }
    __syncthreads();
    const int64_t start = tile_start, others = tile_others;
    const int in_tile = (int)(n - base < PER_TILE ? n - base : PER_TILE);
    const int last = partition ? in_tile : kept;
    for (int k = threadIdx.x; k < last; k += THREADS) {
      if (k < kept)
        store(start + k, stage[k]);
      else
        other(others + (k - kept), stage[k]);
    }
    __syncthreads(); /* the stage is free for the launch's next FILTER */
  } else {
    for (int r = 0; r < K; r++) {
      /* the kept elements before this one: its place among the kept, and
         (a PARTITION's other element) j less it among the others */
      int in_tile = warp_counts[r][w] + __popc(mask[r] & below);
      int at = r * THREADS + threadIdx.x;
      if (mask[r] >> lane & 1)
        store(tile_start + in_tile, St::of(v[r]));
      else if (partition && base + at < n)
        other(tile_others + (at - in_tile), St::of(v[r]));
    }
  }
}

template <int K, class V, bool COUNTS = false, class Pull, class Pred, class Store, class Other>
__global__ void NESSIE_FILTER_BOUNDS
    filter_kernel(Pull pull, Pred pred, int64_t n, Store store, Other other, bool partition, RtgTileState st,
                  int64_t *count, const int64_t *others_after = nullptr, const int *tile_counts = nullptr) {
  filter_tile<K, V, COUNTS>(pull, pred, n, store, other, partition, st, count, blockIdx.x, others_after,
                            tile_counts);
}

/* Several FILTERs and PARTITIONs of a kernel over the same n elements,
   in one launch (filters_launch): of P parts, block b takes tile b / P
   of part b % P, each part with its own tile states (a run of the
   launch's words) and count.  Blocks start in order, so the look-back of
   a part's tile t waits only for blocks before it, as in one FILTER's
   launch.  A
   quicksort level's three filters of one input (lesser, equal, greater)
   took three launches.  The parts' tiles are one size: the smallest
   of their ITEMS (filter_items of their staged types). */
template <class V_, class Pull, class Pred, class Store, class Other> struct FilterPart {
  typedef V_ V;
  static constexpr int ITEMS = filter_items<V_, Store>;
  Pull pull;
  Pred pred;
  Store store;
  Other other;
  bool partition;
  RtgTileState st;
  int64_t *count;
  template <int K> __device__ void run(int64_t tile, int64_t n) const {
    filter_tile<K, V>(pull, pred, n, store, other, partition, st, count, tile);
  }
};

template <class V, class Pull, class Pred, class Store, class Other>
FilterPart<V, Pull, Pred, Store, Other> filter_part(Pull pull, Pred pred, Store store, Other other, bool partition) {
  return FilterPart<V, Pull, Pred, Store, Other>{pull, pred, store, other, partition, RtgTileState{}, nullptr};
}

/* ---- SOACs of one size in one launch ----

   A kernel's FILTERs, PARTITIONs, exact one-pass SCANs and exact
   commutative REDUCEs over the same n elements, none reading another's
   results, take one launch (parts_launch; codegen/cuda.c, tile_group):
   of P parts, block b takes tile b / P of part b % P (none where the
   part has fewer tiles), each part with its own tile size and its own
   tile states, so that each does what its own launch would, and its
   look-back waits only for blocks before it (blocks start in order).  A lifted if's
   test (a PARTITION of the segments by the condition, the REDUCE of the
   elements that go to one branch, the SCAN of the flags) took three
   launches in a row, each a few µs of latency at a recursion's every
   level.  A REDUCE part combines its tile by the block
   (block_combine_commutative) and the tiles before it by the look-back,
   as a one-pass SCAN does; its last tile writes the result to a slot,
   as reduce_launch does: an exact operator gives the same value in any
   grouping. */
template <class V_, class Pull, class Pred, class Store, class Other> struct TiledFilter {
  static constexpr int PER_TILE = THREADS * filter_items<V_, Store>;
  FilterPart<V_, Pull, Pred, Store, Other> f;
  int64_t **count_out; /* where the launch puts the count's slot */
  int64_t tiles;
  __device__ void run_tile(int64_t tile, int64_t n) const {
    if (tile < tiles)
      f.template run<filter_items<V_, Store>>(tile, n);
  }
  void prepare(RtgTileState st) {
    f.st = st;
    f.count = result_slot<int64_t>();
    *count_out = f.count;
  }
  void none() { *count_out = NULL; }
};

template <class V, class Pull, class Pred, class Store, class Other>
TiledFilter<V, Pull, Pred, Store, Other> filter_tiles(Pull pull, Pred pred, Store store, Other other, bool partition,
                                                      int64_t **count_out) {
  return TiledFilter<V, Pull, Pred, Store, Other>{filter_part<V>(pull, pred, store, other, partition), count_out, 0};
}

template <class V, class Pull, class Op, class Store> struct TiledScan {
  static_assert(sizeof(V) <= sizeof(long long), "a one-pass scan's value fits a tile word");
  static constexpr int PER_TILE = THREADS * SCAN_ITEMS<V>;
  Pull pull;
  Op op;
  V id;
  Store store;
  RtgTileState st;
  int64_t tiles;
  __device__ void run_tile(int64_t tile, int64_t n) const {
    if (tile < tiles)
      scan_tile<V>(tile, pull, op, id, n, st, store);
  }
  void prepare(RtgTileState s) { st = s; }
  void none() {}
};

template <class V, class Pull, class Op, class Store>
TiledScan<V, Pull, Op, Store> scan_tiles(Pull pull, Op op, V id, Store store) {
  return TiledScan<V, Pull, Op, Store>{pull, op, id, store, RtgTileState{}, 0};
}

enum { REDUCE_TILE_ITEMS = 8 };

template <class V, class Pull, class Op> struct TiledReduce {
  static_assert(sizeof(V) <= sizeof(long long), "a one-pass reduction's value fits a tile word");
  static constexpr int PER_TILE = THREADS * REDUCE_TILE_ITEMS;
  Pull pull; /* a REDUCE's riders computed and stored with each element */
  Op op;
  V id;
  V **slot_out; /* where the launch puts the result's slot */
  V *out;
  RtgTileState st;
  int64_t tiles;
  __device__ void run_tile(int64_t tile, int64_t n) const {
    __shared__ V sh[THREADS / 32];
    if (tile >= tiles)
      return;
    Op o = op;
    const int64_t base = tile * PER_TILE;
    V mine = id;
    for (int r = 0; r < REDUCE_TILE_ITEMS; r++) {
      int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
      if (j < n)
        mine = o(mine, pull(j));
    }
    V total = block_combine_commutative(mine, o, id, sh);
    if (threadIdx.x < 32) {
      total = shfl_from(total, 0); /* thread 0's: the block's */
      V before = tile_lookback_value(st, tile, total, o, id);
      if (threadIdx.x == 0 && tile == tiles - 1)
        *out = o(before, total);
    }
  }
  void prepare(RtgTileState s) {
    st = s;
    out = result_slot<V>();
    *slot_out = out;
  }
  void none() { *slot_out = NULL; }
};

template <class V, class Pull, class Op> TiledReduce<V, Pull, Op> reduce_tiles(Pull pull, Op op, V id, V **slot_out) {
  return TiledReduce<V, Pull, Op>{pull, op, id, slot_out, nullptr, RtgTileState{}, 0};
}

/* Block b takes tile b / P of part b % P (P parts), so that the parts'
   tiles run side by side: when block t took tile t of every part one
   after another, a launch took the sum of its parts' latencies (a lifted
   if's test, three parts, 16.0 µs a quicksort level on an H100,
   docs/gpu-runs.md, forty-fourth session).  A part's tile t waits in its
   look-back only for its tiles before t, in blocks before b, which start
   first.  The part is chosen by the block alone: no thread diverges. */
template <class... Parts> __global__ void __launch_bounds__(THREADS) parts_kernel(int64_t n, Parts... parts) {
  constexpr unsigned P = sizeof...(Parts);
  const unsigned part = blockIdx.x % P;
  const int64_t tile = blockIdx.x / P;
  unsigned k = 0;
  ((k++ == part ? parts.run_tile(tile, n) : void()), ...);
}

/* The parts in one launch: each part's slots (counts, a REDUCE's value)
   put where it says, NULL for n 0 (nothing launched), each read after
   the launch as their own launch's are (filter_count, reduce_read). */
template <class... Parts> void parts_launch(const char *name, RtLoc loc, int64_t n, Parts... parts) {
  if (n <= 0) {
    (parts.none(), ...);
    return;
  }
  int64_t total = 0, grid = 0;
  auto count = [&](auto &p) {
    p.tiles = (n + p.PER_TILE - 1) / p.PER_TILE;
    total += p.tiles;
    grid = p.tiles > grid ? p.tiles : grid;
  };
  (count(parts), ...);
  RtgTileState st = rtg_tile_state(total);
  int64_t at = 0;
  auto prepare = [&](auto &p) {
    p.prepare(RtgTileState{st.words + at, st.epoch});
    at += p.tiles;
  };
  (prepare(parts), ...);
  rtg_launching("parts");
  parts_kernel<<<(unsigned)(grid * (int64_t)sizeof...(Parts)), THREADS, 0, rtg_stream()>>>(n, parts...);
  rtg_launched(name, loc);
}

/* Block b takes tile b / P of part b % P, as parts_kernel. */
template <int K, class... Parts> __global__ void __launch_bounds__(THREADS) filters_kernel(int64_t n, Parts... parts) {
  constexpr unsigned P = sizeof...(Parts);
  const unsigned part = blockIdx.x % P;
  const int64_t tile = blockIdx.x / P;
  unsigned k = 0;
  ((k++ == part ? parts.template run<K>(tile, n) : void()), ...);
}

/* The parts' counts' slots into counts[0 ..] (NULL for n 0), as
   partition_launch's: each read by filter_count, after the launch. */
template <class First, class... Parts>
void filters_launch(const char *name, RtLoc loc, int64_t n, int64_t **counts, First first, Parts... parts) {
  constexpr int K = std::min({First::ITEMS, Parts::ITEMS...});
  constexpr int per_tile = THREADS * K;
  if (n <= 0) {
    for (size_t i = 0; i < 1 + sizeof...(Parts); i++)
      counts[i] = NULL;
    return;
  }
  int64_t tiles = (n + per_tile - 1) / per_tile;
  RtgTileState st = rtg_tile_state(tiles * (int64_t)(1 + sizeof...(Parts)));
  int k = 0;
  auto prepare = [&](auto &p) {
    p.st = RtgTileState{st.words + (size_t)k * (size_t)tiles, st.epoch};
    p.count = result_slot<int64_t>();
    counts[k++] = p.count;
  };
  prepare(first);
  (prepare(parts), ...);
  rtg_launching("filters");
  filters_kernel<K><<<(unsigned)(tiles * (int64_t)(1 + sizeof...(Parts))), THREADS, 0, rtg_stream()>>>(n, first, parts...);
  rtg_launched(name, loc);
}

/* FILTER (with 'partition' false) and PARTITION: the values of
   pull(0 .. n-1) that pred keeps to store(0 ..), in order, at most n (the
   caller's vectors hold n), and a PARTITION's others to other(0 ..), n
   less the kept.  Returns the slot the count comes back in (NULL: none
   kept, for n 0); filter_count reads it (a sync, the first of several
   reads together: a kernel's independent FILTERs wait once).  No other
   slot may be taken between the launch and the read after a sync in
   between: finish_reads (rt/gpu.cu) reuses their room. */
template <class V, class Pull, class Pred, class Store, class Other>
int64_t *partition_launch(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, Store store, Other other,
                          bool partition) {
  if (n <= 0)
    return NULL;
  constexpr int K = filter_items<V, Store>, per_tile = THREADS * K;
  int64_t tiles = (n + per_tile - 1) / per_tile;
  RtgTileState st = rtg_tile_state(tiles);
  int64_t *count = result_slot<int64_t>();
  rtg_launching(partition ? "partition" : "filter");
  filter_kernel<K, V><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, pred, n, store, other, partition, st,
                                                                      count);
  rtg_launched(name, loc);
  return count;
}

/* The number of elements of pull(0 .. n-1) that pred keeps, added to
   *count (device memory, zeroed before), and each block's count to
   tile_counts[block] where that is not NULL: a block a tile of THREADS * K
   elements, as filter_kernel's, every pull before the predicates, the
   block's sum added once.  A grid-stride loop of four pulls a thread
   and an atomic a warp took 24.6 µs for radix sort's 10^7 keys (H100,
   docs/gpu-runs.md, forty-third session). */
template <int K, class V, class Pull, class Pred>
__global__ void __launch_bounds__(THREADS) count_kept_kernel(Pull pull, Pred pred, int64_t n,
                                                             unsigned long long *count, int *tile_counts) {
  __shared__ int warp_sums[THREADS / 32];
  const int64_t base = (int64_t)blockIdx.x * THREADS * K;
  V v[K];
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    if (j < n)
      v[r] = pull(j);
  }
  int mine = 0;
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    mine += j < n && pred(j, v[r]) ? 1 : 0;
  }
  auto plus = [](int a, int b) { return a + b; };
  int sum = block_combine_commutative(mine, plus, 0, warp_sums);
  if (threadIdx.x == 0) {
    if (tile_counts)
      tile_counts[blockIdx.x] = sum;
    if (sum)
      atomicAdd(count, (unsigned long long)sum);
  }
}

/* A joined PARTITION (fus_join_partitions): its kept values to 'store'
   from 0 and its others to 'store' too, from the kept count on: the
   vectors of n hold the kept, then the others.  The count is found
   first, on the device, by a pass of its own over the elements
   (count_kept_kernel: the pull and the predicate once more, a read of
   the input where the pull reads one), and the PARTITION's tiles read
   it there (filter_tile's others_after): its pass then writes every
   element at its place.  Nothing is read back and the host does not
   wait; radix sort's pass was a PARTITION, a wait for its count and a
   copy of its second part.  Moving the others after the PARTITION by
   the count it leaves (a launch that reads and writes them again)
   measured slower (docs/gpu-runs.md, forty-second session).

   The count pass also leaves each tile's count, so that with
   NESSIE_JOINED_COUNTS the PARTITION's tiles sum their starts from them
   and need no look-back.  Under ncu the PARTITION of radix sort's 10^7
   keys took 53.8 µs (1.16 TB/s), its blocks waiting at their barriers
   39% of their cycles while the first warp looked back, and doubling
   the blocks an SM gained nothing (docs/gpu-runs.md, fifty-second
   session).  That fits a look-back that passes 32 tiles a round trip
   to the L2 cache bounding the tiles a launch finishes per
   microsecond, however many are in flight (NESSIE_LOOKBACK_WORDS
   widens the window), a guess until measured: the switch stays off
   until the two are timed on a GPU. */
template <class V, class Pull, class Pred, class Store>
void partition_joined(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, Store store) {
  if (n <= 0)
    return;
  constexpr int K = filter_items<V, Store>, per_tile = THREADS * K;
  int64_t tiles = (n + per_tile - 1) / per_tile;
  /* [0]: the count the first pass finds; [1]: the one the PARTITION's
     last tile writes, as every PARTITION's (read by nothing); then, with
     NESSIE_JOINED_COUNTS, each tile's kept count, an int (at most
     THREADS * K), from the first pass */
  const size_t room = NESSIE_JOINED_COUNTS ? (size_t)tiles * sizeof(int) : 0;
  int64_t *counts = (int64_t *)rtg_alloc(2 * sizeof(int64_t) + room);
  int *tile_counts = room ? (int *)(counts + 2) : nullptr;
  rtg_zero(counts, sizeof(int64_t));
  rtg_launching("partition (joined): count");
  count_kept_kernel<K, V><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, pred, n,
                                                                         (unsigned long long *)counts, tile_counts);
  rtg_launched(name, loc);
  RtgTileState st = rtg_tile_state(tiles);
  rtg_launching("partition (joined)");
  filter_kernel<K, V, NESSIE_JOINED_COUNTS != 0><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(
      pull, pred, n, store, store, true, st, counts + 1, counts, tile_counts);
  rtg_launched(name, loc);
  rtg_free(counts); /* in stream order: the launches have read it */
}

inline int64_t filter_count(int64_t *slot) {
  int64_t kept = 0;
  if (slot)
    rtg_read_result(&kept, slot, sizeof kept);
  return kept;
}

/* The two in one call each (the self-test's, tests/gpu/segtest.cu). */
template <class V, class Pull, class Pred, class Store>
int64_t filter(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, Store store) {
  return filter_count(partition_launch<V>(name, loc, pull, pred, n, store, store, false));
}

template <class V, class Pull, class Pred, class Store, class Other>
int64_t partition(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, Store store, Other other) {
  return filter_count(partition_launch<V>(name, loc, pull, pred, n, store, other, true));
}

/* ---- pulls that take the segment ---- */

/* Does pull functor P take the segment of its element as well (a
   SEG_REDUCE's, SEG_SCAN's or counted SPLIT's whose thunk read its own
   sd's seg_ids at its index, fusion/segmap.c)?  Its `segment` member
   says so. */
template <class P, class = void> struct takes_segment {
  static constexpr bool value = false;
};
template <class P> struct takes_segment<P, decltype((void)P::segment)> {
  static constexpr bool value = P::segment;
};

/* pull(j), or pull(j, s) where it takes the segment s that holds j. */
template <class Pull> __device__ auto pull_at(const Pull &pull, int64_t j, int64_t s) {
  if constexpr (takes_segment<Pull>::value) {
    return pull(j, s);
  } else {
    (void)s;
    return pull(j);
  }
}

/* ---- SPLIT ----

   C FILTERs of the same n elements in one pass (λcu's SPLIT, lcu.h):
   each block takes one tile, pulls each element once, and pred gives
   the bits of the classes it goes to (bit c: class c).  Each class is
   counted as filter_tile counts its kept elements (a ballot a row, the
   first warp's scan of the warps' counts), its tile's start coming from
   a look-back of its own (C runs of tile words); the element goes to
   store(c, place, value) for each class c of its bits.  Class c's count
   goes to slot counts.at[c] (the last tile writes it); the caller's
   vectors of a class hold n and are cut to its count (rtg_vec_fit).  A
   quicksort level's lesser, equal and greater took three pulls and
   three tiles' counts of one input (filters_launch).

   With segments (SPLIT's `counts sd`, COUNTED): each class's count in
   each segment of the sd, into segs.at[c] (zeroed before the launch).
   E_c(s), the class's elements before segment s's first (its offset),
   is known to the tile that holds that offset: its start and the
   counts within the tile before it.  The tile adds E_c(s) to segment
   s - 1's count and takes it from segment s's: each count gets its end
   once and its start once, whichever tiles finish first (int adds:
   the same result in any order).  The offsets equal to n (the last
   segments' ends, empty segments at the end) are the last tile's.
   With SPLIT's `offsets`, E_c(s) is also stored as it is: the offsets
   of the class's segments, where a scan of the counts took a launch of
   its own. */
__device__ inline int64_t warp_segment_of(const int64_t *off, int64_t nseg, int64_t j);

/* A pull that takes the segment (takes_segment) gets each element's,
   with `counts sd` only (the sd's elements are the SPLIT's): the
   segments of the tile's first and last element are found by a warp
   each (warp_segment_of); each segment between them starts at a place
   in the tile, where a count in shared memory goes up by one (empty
   segments there add one each), and a scan of the counts over the tile
   gives each place its segment, the first's plus the starts at or
   before it.  A binary search of the tile's offsets for each element
   (as SEG_MAP's kernel does) took 9 steps where a tile holds 512
   segments: Barnes-Hut of 10^5 bodies, whose quadrants' split holds
   four elements a segment, was 4.3% slower than with a launch that
   stored the ids; by the heads, 2% faster than by the search (H200,
   docs/gpu-runs.md, thirtieth session). */
struct SplitCounts {
  int64_t *at[8]; /* a result slot for each class (NULL: none kept, for n 0) */
};

struct SplitSegments {
  const int64_t *off; /* the sd's offsets, nseg + 1 of them */
  int64_t nseg;
  int32_t *at[8];   /* each class's counts, nseg of them */
  int32_t *offs[8]; /* SPLIT's `offsets`: each class's E_c(s), or NULL */
};

/* A SPLIT's elements a thread: NESSIE_SPLIT_ITEMS4 for values of 4 bytes
   or less, NESSIE_SPLIT_ITEMS8 for 8 (-D at the CUDA compiler, to
   measure them: docs/codegen.md), ITEMS for larger ones.  A quicksort
   level's SPLIT (three classes counted in each of n / 10 segments) at
   ITEMS' 4 a thread, 8 and 16, µs: 31.5, 27.9, 29.0 at 10^6 elements,
   188, 155, 154 at 10^7 (tests/gpu/segtest.cu --timing, H100). */
#ifndef NESSIE_SPLIT_ITEMS4
#define NESSIE_SPLIT_ITEMS4 8
#endif
#ifndef NESSIE_SPLIT_ITEMS8
#define NESSIE_SPLIT_ITEMS8 8
#endif
static_assert(NESSIE_SPLIT_ITEMS4 >= 1 && NESSIE_SPLIT_ITEMS4 <= 16 && NESSIE_SPLIT_ITEMS8 >= 1 &&
                  NESSIE_SPLIT_ITEMS8 <= 16,
              "a tile's warp counts fit a warp's scan of four a lane");
template <class V>
constexpr int SPLIT_ITEMS = sizeof(V) <= 4 ? NESSIE_SPLIT_ITEMS4 : sizeof(V) <= 8 ? NESSIE_SPLIT_ITEMS8 : ITEMS<V>;

/* In place, the inclusive sum of the K * THREADS ints of a tile in shared
   memory, in order; every thread of the block calls it.  Striped (row r
   is places r * THREADS .. + THREADS - 1, a thread a place), so that no
   two lanes of a warp read one bank. */
template <int K> __device__ void tile_inclusive_sum(int *a) {
  constexpr int WARPS = THREADS / 32;
  __shared__ int row_sums[K][WARPS];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  auto plus = [](int x, int y) { return x + y; };
  int inc[K];
  for (int r = 0; r < K; r++) {
    inc[r] = warp_inclusive_scan(a[r * THREADS + threadIdx.x], plus, lane);
    if (lane == 31)
      row_sums[r][w] = inc[r];
  }
  __syncthreads();
  if (threadIdx.x < 32)
    tile_counts_scan<K * WARPS>(&row_sums[0][0]);
  __syncthreads();
  for (int r = 0; r < K; r++)
    a[r * THREADS + threadIdx.x] = row_sums[r][w] + inc[r];
  __syncthreads();
}

template <class V, int C, bool COUNTED, class Pull, class Pred, class Store>
__global__ void __launch_bounds__(THREADS)
    split_kernel(Pull pull, Pred pred, int64_t n, Store store, RtgTileState st, int64_t tiles, SplitCounts counts,
                 SplitSegments segs) {
  constexpr int K = SPLIT_ITEMS<V>, WARPS = THREADS / 32;
  static_assert(K * WARPS <= 128, "a tile's warp counts fit a warp's scan of four a lane");
  static_assert(C >= 1 && C <= WARPS, "a SPLIT's classes fit a byte, a warp a class");
  __shared__ int warp_counts[C][K][WARPS];
  __shared__ unsigned masks[COUNTED ? C : 1][K][WARPS];
  __shared__ int64_t tile_start[C], tile_total[C], first_seg, end_seg;
  constexpr bool SEG = takes_segment<Pull>::value;
  static_assert(!SEG || COUNTED, "a pull takes the segment of the sd it counts");
  constexpr int TILE = THREADS * K;
  __shared__ int64_t pull_segs[2];
  __shared__ int seg_at[SEG ? TILE : 1];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int64_t tile = blockIdx.x, base = tile * (int64_t)(THREADS * K);
  int64_t seg_first = 0;
  if constexpr (SEG) {
    const int64_t last = (base + TILE < n ? base + TILE : n) - 1;
    if (w < 2) {
      int64_t s = warp_segment_of(segs.off, segs.nseg, w == 0 ? base : last);
      if (lane == 0)
        pull_segs[w] = s;
    }
    for (int p = threadIdx.x; p < TILE; p += THREADS)
      seg_at[p] = 0;
    __syncthreads();
    seg_first = pull_segs[0];
    /* off[first] <= base < off[first + 1]; the segments after it up to
       the last element's start at places 1 .. last - base */
    for (int64_t k = seg_first + 1 + threadIdx.x; k <= pull_segs[1]; k += THREADS)
      atomicAdd(&seg_at[segs.off[k] - base], 1);
    __syncthreads();
    tile_inclusive_sum<K>(seg_at);
  }
  V v[K];
  unsigned bits[K];
  /* every element's pull first, then the flags and ballots (filter_tile) */
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    if (j < n) {
      int64_t s = 0;
      if constexpr (SEG)
        s = seg_first + seg_at[r * THREADS + threadIdx.x];
      v[r] = pull_at(pull, j, s);
    }
  }
#pragma unroll
  for (int r = 0; r < K; r++) {
    int64_t j = base + (int64_t)r * THREADS + threadIdx.x;
    bits[r] = j < n ? pred(j, v[r]) : 0;
    for (int c = 0; c < C; c++) {
      unsigned mask = __ballot_sync(0xffffffffu, bits[r] >> c & 1);
      if (lane == 0) {
        warp_counts[c][r][w] = __popc(mask);
        if constexpr (COUNTED)
          masks[c][r][w] = mask;
      }
    }
  }
  __syncthreads();
  if (w < C) {
    /* class w's warp counts to their exclusive prefixes, in element order
       (lane r * WARPS + k: row r of warp k), then its tile's start, by
       warp w: the classes' look-backs wait side by side (one warp took
       them one after another) */
    const int c = w;
    int total = tile_counts_scan<K * WARPS>(&warp_counts[c][0][0]);
    RtgTileState own = {st.words + (size_t)c * (size_t)tiles, st.epoch};
    int64_t before = tile_lookback(own, tile, total);
    if (lane == 0) {
      tile_start[c] = before;
      tile_total[c] = total;
      if (tile == gridDim.x - 1)
        *counts.at[c] = before + total;
    }
  }
  if (w == WARPS - 1) {
    if constexpr (COUNTED) {
      /* the segments whose offsets the tile holds: [first_seg, end_seg) */
      int64_t end = base + THREADS * K < n ? base + THREADS * K : n;
      int64_t lo = base == 0 ? 0 : warp_segment_of(segs.off, segs.nseg, base - 1) + 1;
      int64_t hi = end == n ? segs.nseg + 1 : warp_segment_of(segs.off, segs.nseg, end - 1) + 1;
      if (lane == 0) {
        first_seg = lo;
        end_seg = hi;
      }
    }
  }
  __syncthreads();
  const unsigned below = (1u << lane) - 1;
  for (int r = 0; r < K; r++)
    for (int c = 0; c < C; c++) {
      unsigned mask = __ballot_sync(0xffffffffu, bits[r] >> c & 1);
      if (mask >> lane & 1)
        store(c, tile_start[c] + warp_counts[c][r][w] + __popc(mask & below), v[r]);
    }
  if constexpr (COUNTED) {
    for (int64_t s = first_seg + threadIdx.x; s < end_seg; s += THREADS) {
      int64_t p = segs.off[s] - base; /* its place in the tile, or the tile's end */
      int r = (int)(p / THREADS), t = (int)(p % THREADS);
      for (int c = 0; c < C; c++) {
        int64_t e = tile_start[c] + (r < K ? warp_counts[c][r][t >> 5] + __popc(masks[c][r][t >> 5] &
                                                                                ((1u << (t & 31)) - 1))
                                           : tile_total[c]);
        if (s > 0)
          atomicAdd(&segs.at[c][s - 1], (int32_t)e);
        if (s < segs.nseg) {
          atomicAdd(&segs.at[c][s], -(int32_t)e);
          if (segs.offs[c])
            segs.offs[c][s] = (int32_t)e;
        }
      }
    }
  }
}

/* SPLIT: launches the pass over n elements; returns the slots of the C
   counts, each read by filter_count after the launch, as
   partition_launch's (NULL slots for n 0: nothing kept).  With 'sd'
   (SPLIT's `counts sd`, whose total is n), each class's counts in each
   segment too, into the int vectors 'seg_counts' (sd's segments each),
   and with 'seg_offsets' (`offsets`) each class's offsets there. */
template <class V, int C, class Pull, class Pred, class Store>
SplitCounts split_launch(const char *name, RtLoc loc, Pull pull, Pred pred, int64_t n, Store store,
                         RtValue *sd = NULL, RtValue *const *seg_counts = NULL,
                         RtValue *const *seg_offsets = NULL) {
  SplitCounts counts = {};
  SplitSegments segs = {};
  if (sd) {
    segs.nseg = sd->len;
    for (int c = 0; c < C && segs.nseg > 0; c++) {
      segs.at[c] = seg_counts[c]->data.i;
      rtg_zero(segs.at[c], sizeof(int32_t) * (size_t)segs.nseg);
      if (seg_offsets) { /* n > 0 writes each; with n 0 all are 0 */
        segs.offs[c] = seg_offsets[c]->data.i;
        if (n <= 0)
          rtg_zero(segs.offs[c], sizeof(int32_t) * (size_t)segs.nseg);
      }
    }
    if (n > 0)
      segs.off = rtg_seg_offsets(sd); /* before the mark: it may launch a scan */
  }
  if (n <= 0)
    return counts;
  constexpr int per_tile = THREADS * SPLIT_ITEMS<V>;
  int64_t tiles = (n + per_tile - 1) / per_tile;
  RtgTileState st = rtg_tile_state(tiles * C);
  for (int c = 0; c < C; c++)
    counts.at[c] = result_slot<int64_t>();
  rtg_launching(sd ? "split (counted)" : "split");
  if constexpr (takes_segment<Pull>::value) { /* always counted */
    split_kernel<V, C, true><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, pred, n, store, st, tiles, counts,
                                                                            segs);
  } else {
    if (sd)
      split_kernel<V, C, true><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, pred, n, store, st, tiles,
                                                                              counts, segs);
    else
      split_kernel<V, C, false><<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, pred, n, store, st, tiles,
                                                                               counts, segs);
  }
  rtg_launched(name, loc);
  return counts;
}

/* ---- PERMUTE ---- */

/* Without `into`: Y[I(i)] = A(i), the indices a permutation of [0, n). */
template <class Pull, class Index, class Store>
__global__ void permute_kernel(Pull pull, Index index, int64_t n, int64_t room, Store store, RtKernelError *err,
                               int run, int site) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int32_t to = index(i);
    if ((uint64_t)(int64_t)to >= (uint64_t)room) {
      record(err, RtKernelError{i, RT_CHECK_INDEX, site, 0, RT_SCATTER, to, room, 0.0, run, 0});
      continue;
    }
    store(to, pull(i));
  }
}

/* `into` D: a later write wins, so each place takes the value of the
   highest index that writes it: the winners first (an atomic max), then
   the writes. */
template <class Index>
__global__ void winners_kernel(Index index, int64_t n, int64_t room, unsigned long long *win, RtKernelError *err,
                               int run, int site) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int32_t to = index(i);
    if ((uint64_t)(int64_t)to >= (uint64_t)room) {
      record(err, RtKernelError{i, RT_CHECK_INDEX, site, 0, RT_SCATTER, to, room, 0.0, run, 0});
      continue;
    }
    atomicMax(&win[to], (unsigned long long)i + 1);
  }
}

template <class Pull, class Index, class Store>
__global__ void winners_write(Pull pull, Index index, int64_t n, int64_t room, const unsigned long long *win,
                              Store store) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int32_t to = index(i);
    if ((uint64_t)(int64_t)to < (uint64_t)room && win[to] == (unsigned long long)i + 1)
      store(to, pull(i));
  }
}

template <class Pull, class Index, class Store>
void permute(const char *name, RtLoc loc, Pull pull, Index index, int64_t n, int64_t room, bool into, Store store,
             int run, int site) {
  if (n <= 0)
    return;
  if (!into) {
    rtg_launching("permute");
    permute_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, index, n, room, store, rtg_error(), run,
                                                                     site);
    rtg_launched(name, loc);
    return;
  }
  unsigned long long *win = (unsigned long long *)rtg_alloc(sizeof(unsigned long long) * ((size_t)room + 1));
  cudaMemsetAsync(win, 0, sizeof(unsigned long long) * ((size_t)room + 1), rtg_stream());
  rtg_launching("permute (winners)");
  winners_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(index, n, room, win, rtg_error(), run, site);
  rtg_launched(name, loc);
  rtg_launching("permute (write)");
  winners_write<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, index, n, room, win, store);
  rtg_launched(name, loc);
  rtg_free(win);
}

/* ---- ONCE ---- */

template <class V, class Pull> __global__ void once_kernel(Pull pull, V *out) { *out = pull(0); }

/* The values into device memory, no wait, for later SOACs of the kernel
   to read there (codegen/cuda.c, value_inside). */
template <class V, class Pull> V *once_on_device(const char *name, RtLoc loc, Pull pull) {
  V *out = (V *)rtg_alloc(sizeof(V));
  rtg_launching("once");
  once_kernel<<<1, 1, 0, rtg_stream()>>>(pull, out);
  rtg_launched(name, loc);
  return out;
}

/* ONCE into a result slot, without a wait, read by once_read with the
   kernel's other pending values (as reduce_launch's). */
template <class V, class Pull> V *once_launch(const char *name, RtLoc loc, Pull pull) {
  V *out = result_slot<V>();
  rtg_launching("once");
  once_kernel<<<1, 1, 0, rtg_stream()>>>(pull, out);
  rtg_launched(name, loc);
  return out;
}

template <class V> V once_read(V *slot) {
  V r;
  rtg_read_result(&r, slot, sizeof(V));
  return r;
}

/* ---- the segmented SOACs: a warp per segment ---- */

/* A pull at the elements of segment s, for the kernels that walk one
   segment at a time: pull(j) for a pull that does not take the segment,
   so that it compiles to what it was. */
template <class Pull> struct InSegment {
  const Pull &pull;
  int64_t s;
  __device__ auto operator()(int64_t j) const { return pull_at(pull, j, s); }
};

/* One warp over elements [lo, hi) of a segment, starting from 'carry':
   in chunks of 32, each lane one element (coalesced), the chunk's
   inclusive scan across the lanes (in order), carried from chunk to
   chunk.  With 'scan', each element's exclusive prefix is stored.
   Returns the combination of 'carry' and the elements. */
template <class V, class Pull, class Op, class Store>
__device__ V warp_segment(Pull &pull, Op &op, V id, int64_t lo, int64_t hi, int lane, bool scan, Store &store,
                          V carry) {
  for (int64_t base = lo; base < hi; base += 32) {
    int64_t j = base + lane;
    bool in = j < hi;
    V x = in ? pull(j) : id;
    V inc = x;
    for (int d = 1; d < 32; d *= 2) {
      V left = shfl_up(inc, d);
      if (lane >= d)
        inc = op(left, inc);
    }
    V before = shfl_up(inc, 1);
    if (scan && in)
      store(j, lane == 0 ? carry : op(carry, before));
    carry = op(carry, shfl_from(inc, 31));
  }
  return carry;
}

/* One warp's REDUCE of a commutative operator over elements [lo, hi):
   each lane combines the elements lane, lane + 32, ... (coalesced), and
   the lanes combine once at the end by shuffles; lane 0's is the whole.
   warp_segment's scan of every chunk of 32 is not needed where the
   order of the elements matters only to a float sum's rounding (as in
   rtg::reduce_commutative): the all-pairs n-body's segments of 10^4
   forces spent as long in those shuffles as in the forces. */
template <class V, class Pull, class Op>
__device__ V warp_reduce_commutative(Pull &pull, Op &op, V id, int64_t lo, int64_t hi, int lane) {
  V mine = id;
  for (int64_t j = lo + lane; j < hi; j += 32)
    mine = op(mine, pull(j));
  for (int d = 1; d < 32; d *= 2) {
    V right = shfl_down(mine, d);
    if ((lane & (2 * d - 1)) == 0)
      mine = op(mine, right);
  }
  return mine;
}

/* Each warp one segment at a time.  A REDUCE stores the segment's
   combination, a SCAN ('Scan') each element's exclusive prefix.  'Comm':
   the operator is commutative (a REDUCE's only: warp_reduce_commutative). */
template <bool Comm, bool Scan, class V, class Pull, class Op, class Store>
__global__ void seg_kernel(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, Store store) {
  int lane = threadIdx.x & 31;
  int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t s = warp; s < nseg; s += warps) {
    InSegment<Pull> at{pull, s};
    V carry = Comm && !Scan ? warp_reduce_commutative(at, op, id, off[s], off[s + 1], lane)
                            : warp_segment(at, op, id, off[s], off[s + 1], lane, Scan, store, id);
    if (!Scan && lane == 0)
      store(s, carry);
  }
}

/* Each warp 32 consecutive segments at a time, for many short ones (a
   sparse matrix's rows: a warp per segment of 8 elements leaves 3 lanes
   in 4 idle, and makes a round of loads and shuffles per segment).  The
   32 segments' elements are contiguous: the warp walks them 32 at a time,
   as it walks one segment, and each lane finds its element's segment
   among the 32 ends that the lanes hold (a binary search by shuffles:
   the ends never decrease, empty segments included).  The chunk's
   inclusive scan combines a lane with the one d below only within one
   segment: segments are contiguous, so the lane d below is in the same
   segment exactly when every lane between is, and the order is kept (op
   need not be commutative).  The carry is the combination so far of the
   segment that the last lane reached.  A long segment takes the warp as
   long as a warp per segment would: the host chooses this kernel only
   where the segments are short on average (seg_use_packed).  The offsets
   are loaded as streamed (__ldcs, evict first): each is read once, and
   the L2 cache is better left to what a pull gathers (spmv's x). */
/* seg_packed_kernel pulls this many chunks of 32 before combining them:
   spmv's pull gathers x at each column, one load in flight per lane at a
   time took 2.79 ms for 10^7 rows, four 2.26 (cuSPARSE 1.72); a plain
   coalesced pull lost a little (10^7 segments of 8 int32s 618 -> 693 µs).
   H100, docs/gpu-runs.md.  Eight, with the kernel's indices in 32 bits
   (62 registers, four blocks an SM, as four chunks had with 64-bit
   indices): spmv 1.462 -> 1.442 ms and 1.473 -> 1.449 ms on two H200s
   (docs/gpu-runs.md, twenty-seventh session).  More warps did not help:
   spmv's gather of x misses the L2 cache 70% of the time, and with 40
   registers (six blocks an SM) the misses rose from 3.7 to 4.7 GB and
   the time to 1.93 ms; sixteen chunks (94 registers) took 1.79. */
constexpr int PACKED_AHEAD = 8;

/* The packed kernel counts elements and segments in 32 bits: where both
   stay this far below INT32_MAX, so that no index it forms (up to
   PACKED_AHEAD chunks past the last element, a grid's warps past the
   last segment) wraps.  A segdes holds at most INT32_MAX elements
   (make_segdes's check), so this leaves out only the last million. */
constexpr int64_t PACKED_INDEX_ROOM = (int64_t)1 << 20;

template <bool Scan, class V, class Pull, class Op, class Store>
__global__ void seg_packed_kernel(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, Store store) {
  const unsigned all = 0xffffffffu;
  int lane = threadIdx.x & 31;
  int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  int warps = (int)((gridDim.x * blockDim.x) >> 5);
  const int nseg32 = (int)nseg; /* seg_use_packed: it fits */
  for (int first = warp * 32; first < nseg32; first += warps * 32) {
    /* lane k holds segment first + k; lanes past the last one an empty
       segment at the end */
    int s = first + lane;
    int start = (int)__ldcs(&off[s < nseg32 ? s : nseg32]), end = (int)__ldcs(&off[s < nseg32 ? s + 1 : nseg32]);
    if (!Scan && s < nseg32 && start == end)
      store(s, id);
    int lo = __shfl_sync(all, start, 0), hi = __shfl_sync(all, end, 31);
    V carry = id;
    int carry_seg = -1;
    /* the segment (of the 32) of element base + lane: how many of the 32
       end at or before it */
    auto segment_in_chunk = [&](int base) {
      int rel = (int)(end - base < 0 ? 0 : end - base < 33 ? end - base : 33);
      int seg = 0;
      for (int step = 16; step > 0; step /= 2)
        if (__shfl_sync(all, rel, seg + step - 1) <= lane)
          seg += step;
      return seg;
    };
    for (int group = lo; group < hi; group += 32 * PACKED_AHEAD) {
      /* the pulls of PACKED_AHEAD chunks first: their loads in flight
         together (a gather's latency, once per group of chunks); a pull
         that takes the segment finds it first */
      V pulled[PACKED_AHEAD];
      int segs[PACKED_AHEAD];
#pragma unroll
      for (int u = 0; u < PACKED_AHEAD; u++) {
        int j = group + u * 32 + lane;
        if constexpr (takes_segment<Pull>::value) {
          segs[u] = segment_in_chunk(group + u * 32);
          pulled[u] = j < hi ? pull(j, first + segs[u]) : id;
        } else {
          pulled[u] = j < hi ? pull(j) : id;
        }
      }
#pragma unroll
      for (int u = 0; u < PACKED_AHEAD; u++) {
        int base = group + u * 32;
        if (base >= hi)
          break; /* the warp's together: base and hi are the warp's */
        int j = base + lane;
        bool in = j < hi;
        int seg;
        if constexpr (takes_segment<Pull>::value)
          seg = segs[u];
        else
          seg = segment_in_chunk(base);
        V inc = pulled[u];
        for (int d = 1; d < 32; d *= 2) {
          V left = shfl_up(inc, d);
          int left_seg = __shfl_up_sync(all, seg, d);
          if (lane >= d && left_seg == seg)
            inc = op(left, inc);
        }
        bool continued = seg == carry_seg; /* the segment began in an earlier chunk */
        if constexpr (Scan) {
          V before = shfl_up(inc, 1);
          int before_seg = __shfl_up_sync(all, seg, 1);
          bool after = lane > 0 && before_seg == seg;
          if (in)
            store(j, after ? (continued ? op(carry, before) : before) : (continued ? carry : id));
        }
        V so_far = continued ? op(carry, inc) : inc;
        int seg_end = __shfl_sync(all, end, seg);
        if (!Scan && in && j + 1 == seg_end)
          store(first + seg, so_far); /* j is the last of its segment */
        carry = shfl_from(so_far, 31);
        carry_seg = __shfl_sync(all, seg, 31);
      }
    }
  }
}

/* Each block one segment at a time, for a few long segments (the first
   levels of a quicksort: one segment of all the keys, which a single warp
   walked alone): the segment in one contiguous slice per warp, in order;
   the slices' combinations meet in shared memory, in order.  A SCAN
   reads its slice twice: once for the slice's total, then to store each
   prefix from the totals of the slices before it. */
template <bool Comm, bool Scan, class V, class Pull, class Op, class Store>
__global__ void seg_block_kernel(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, Store store) {
  __shared__ alignas(16) unsigned char room[(THREADS / 32) * sizeof(V)];
  V *totals = reinterpret_cast<V *>(room);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int64_t s = blockIdx.x; s < nseg; s += gridDim.x) {
    int64_t b = off[s], e = off[s + 1];
    int64_t per = ((e - b + nw - 1) / nw + 31) / 32 * 32;
    int64_t lo = b + w * per < e ? b + w * per : e;
    int64_t hi = lo + per < e ? lo + per : e;
    InSegment<Pull> at{pull, s};
    V total = Comm && !Scan ? warp_reduce_commutative(at, op, id, lo, hi, lane)
                            : warp_segment(at, op, id, lo, hi, lane, false, store, id);
    if (lane == 0)
      totals[w] = total;
    __syncthreads();
    if constexpr (Scan) {
      V start = id;
      for (int k = 0; k < w; k++)
        start = op(start, totals[k]);
      warp_segment(at, op, id, lo, hi, lane, true, store, start);
    } else if (threadIdx.x == 0) {
      V all = id;
      for (int k = 0; k < nw; k++)
        all = op(all, totals[k]);
      store(s, all);
    }
    __syncthreads();
  }
}

/* ---- the segmented SOACs, load-balanced: a flat scan of pairs ----

   One block per segment leaves most of the GPU idle when the segments are
   few and long (the first levels of a quicksort: 1, 2, 4 ... segments of
   all the keys), and a warp per segment is slow when one segment holds
   most of the elements.  Here the elements are cut into equal parts, one
   per block, whatever the segments: a segmented reduction or scan is a
   flat one of pairs (head, value), where 'head' says that a segment
   starts at the element, under

     (h1, v1) + (h2, v2) = (h1 | h2, h2 ? v2 : op(v1, v2))

   which is associative when op is (and keeps op's order: op need not be
   commutative), with identity (0, id).  The flat scan's three phases
   (scan_totals, scan_prefixes, scan_parts) then do it: each block's
   pair (seg_lb_parts), the blocks' exclusive prefixes (seg_lb_prefixes),
   and each part scanned again from its prefix (seg_lb_write).  An
   element's exclusive pair prefix holds the combination of the elements
   since the last head before it: for an element that is not a head, the
   elements of its segment before it (a SCAN stores that; at a head, id);
   the inclusive one at a segment's last element is the segment's
   combination (a REDUCE stores it at the segment's index, and id at each
   empty segment's, which has no elements; a REDUCE needs no third phase:
   segmented_balanced).  Heads come from the offsets:
   each thread's first element's segment from the segdes's ids where they
   are cached already, else by a search (segment_of), so that nothing
   else need be made (no ids, and no total on the host: the kernels read
   it at off[nseg]); the next elements' by a step at a time. */

/* The segment that holds element j: the largest s in [lo, hi) with
   off[s] <= j, given off[lo] <= j < off[hi].  An empty segment shares its
   offset with the next, so that the largest is the nonempty one that
   holds j (off[s] <= j < off[s + 1]). */
__device__ inline int64_t segment_search(const int64_t *off, int64_t lo, int64_t hi, int64_t j) {
  return rt_segment_search(off, lo, hi, j);
}

/* The segment of element j, 0 <= j < off[nseg] (so nseg >= 1). */
__device__ inline int64_t segment_of(const int64_t *off, int64_t nseg, int64_t j) {
  return segment_search(off, 0, nseg, j);
}

/* segment_of by a whole warp, every lane calling it with the same j:
   a 32-way search, each step the lanes reading 32 offsets spread over
   the interval at once, so that 10^6 segments take 4 dependent reads
   where a binary search takes 20 (each a round trip to the L2 cache).
   The same segment as segment_of: the last offset at or below j. */
__device__ inline int64_t warp_segment_of(const int64_t *off, int64_t nseg, int64_t j) {
  const int lane = threadIdx.x & 31;
  int64_t lo = 0, hi = nseg; /* off[lo] <= j < off[hi] */
  while (hi - lo > 1) {
    int64_t step = (hi - lo + 31) / 32;
    int64_t p = lo + lane * step;
    bool at_or_below = p < hi && off[p] <= j; /* true for lane 0, then false from some lane on */
    unsigned below = __ballot_sync(0xffffffffu, at_or_below);
    int k = 31 - __clz(below);
    lo += k * step;
    hi = lo + step < hi ? lo + step : hi;
  }
  return lo;
}

/* The segment of element j given segment s of an element at or before it
   (off[s] <= j < off[nseg]): s itself at the cost of one comparison, or
   one of the next few segments, a comparison each (many short segments:
   a search for every segment crossed doubled spmv's segmented reduce),
   or else a search of the segments after those (past empty ones).  Since
   off[nseg] > j, off[s + 1] <= j means s + 1 < nseg. */
__device__ inline int64_t segment_after(const int64_t *off, int64_t nseg, int64_t s, int64_t j) {
  for (int step = 0; step < 4 && off[s + 1] <= j; step++)
    s++;
  return off[s + 1] > j ? s : segment_search(off, s + 1, nseg, j);
}

/* A value and whether a segment starts within it (int, not bool: V's
   size stays a whole number of words). */
template <class V> struct SegPair {
  V v;
  int head;
};

/* The segmented operator on pairs (above). */
template <class V, class Op> struct SegOp {
  Op op;
  __device__ SegPair<V> operator()(const SegPair<V> &a, const SegPair<V> &b) const {
    return b.head ? b : SegPair<V>{op(a.v, b.v), a.head};
  }
};

/* This block's elements [*from, *to): equal parts of off[nseg] elements,
   one per block (the same in seg_lb_parts and seg_lb_write, which run on
   the same grid). */
__device__ inline void seg_lb_part(const int64_t *off, int64_t nseg, int64_t *from, int64_t *to) {
  int64_t n = off[nseg];
  int64_t part = (n + gridDim.x - 1) / gridDim.x;
  int64_t f = blockIdx.x * part;
  *from = f < n ? f : n;
  *to = *from + part < n ? *from + part : n;
}

/* visit(k, j, s) for the IT consecutive elements j = first + k before
   'to', s the segment that holds j (one search, or the segdes's cached
   ids where it has them, then a step at a time). */
template <int IT, class Visit>
__device__ void segment_run(const int64_t *off, int64_t nseg, const int32_t *ids, int64_t first, int64_t to,
                            Visit visit) {
  if (first >= to)
    return;
  int64_t s = ids ? (int64_t)ids[first] : segment_of(off, nseg, first);
  for (int k = 0; k < IT && first + k < to; k++) {
    int64_t j = first + k;
    s = segment_after(off, nseg, s, j);
    visit(k, j, s);
  }
}

/* This thread's pair of the tile at 'base' (its ITEMS<V> consecutive
   elements before 'to', in 'tile' at threadIdx.x * ITEMS<V>), each a head
   where its segment starts. */
template <class V, class Op>
__device__ SegPair<V> seg_thread_pair(const V *tile, SegOp<V, Op> sop, V id, const int64_t *off, int64_t nseg,
                                      const int32_t *ids, int64_t base, int64_t to) {
  constexpr int IT = ITEMS<V>;
  SegPair<V> mine{id, 0};
  segment_run<IT>(off, nseg, ids, base + (int64_t)threadIdx.x * IT, to, [&](int k, int64_t j, int64_t s) {
    mine = sop(mine, SegPair<V>{tile[threadIdx.x * IT + k], off[s] == j ? 1 : 0});
  });
  return mine;
}

/* The tile of IT * THREADS values at 'base' (those before 'to'), as
   load_tile, for a pull that may take the segment of its element: each
   thread first finds the segments of its IT consecutive elements
   (segment_run) into shared memory, then the tile is pulled coalesced.
   The caller synchronizes after, as after load_tile, and before the
   next tile, as its loops do (every thread has read the segments). */
template <int IT, class V, class Pull>
__device__ void load_segment_tile(V *tile, Pull &pull, int64_t base, int64_t to, const int64_t *off, int64_t nseg,
                                  const int32_t *ids) {
  if constexpr (takes_segment<Pull>::value) {
    __shared__ int64_t segs[THREADS * IT];
    segment_run<IT>(off, nseg, ids, base + (int64_t)threadIdx.x * IT, to, [&](int k, int64_t j, int64_t s) {
      (void)j;
      segs[threadIdx.x * IT + k] = s;
    });
    __syncthreads();
    for (int k = threadIdx.x; k < THREADS * IT; k += THREADS)
      if (base + k < to)
        tile[k] = pull(base + k, segs[k]);
  } else {
    (void)off;
    (void)nseg;
    (void)ids;
    load_tile<IT>(tile, pull, base, to);
  }
}

/* Phase 1: block b's pair of its part into partial[b], tile by tile:
   each thread's pair of its elements (their heads found by each thread),
   the block's by block_exclusive_scan (warp shuffles, two barriers; the
   ordered tree in shared memory took a barrier a level, and made the
   three phases 65 µs on quicksort's 10^6 keys, ncu on an H100). */
template <class V, class Pull, class Op>
__global__ void seg_lb_parts(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, const int32_t *ids,
                             SegPair<V> *partial) {
  constexpr int IT = ITEMS<V>;
  __shared__ V tile[THREADS * IT];
  __shared__ SegPair<V> sh[THREADS / 32];
  SegOp<V, Op> sop{op};
  const SegPair<V> none{id, 0};
  int64_t from, to;
  seg_lb_part(off, nseg, &from, &to);
  SegPair<V> acc = none;
  for (int64_t base = from; base < to; base += (int64_t)THREADS * IT) {
    load_segment_tile<IT>(tile, pull, base, to, off, nseg, ids);
    __syncthreads();
    SegPair<V> mine = seg_thread_pair(tile, sop, id, off, nseg, ids, base, to), total;
    block_exclusive_scan(mine, sop, none, sh, &total); /* its barriers: every thread has read the tile */
    acc = sop(acc, total);
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = acc;
}

/* The parts' exclusive prefixes, by one block: THREADS at a time
   (block_exclusive_scan), carried from chunk to chunk (every thread keeps
   the carry); each(i, prefix) for part i, after every thread has read
   its part of the chunk. */
template <class V, class Op, class Each>
__device__ void part_prefixes(const SegPair<V> *partial, int64_t nparts, SegOp<V, Op> sop, V id, Each each) {
  __shared__ SegPair<V> sh[THREADS / 32];
  const SegPair<V> none{id, 0};
  SegPair<V> carry = none;
  for (int64_t base = 0; base < nparts; base += THREADS) {
    int64_t i = base + threadIdx.x;
    SegPair<V> total, before = block_exclusive_scan(i < nparts ? partial[i] : none, sop, none, sh, &total);
    if (i < nparts)
      each(i, threadIdx.x == 0 ? carry : sop(carry, before));
    carry = sop(carry, total);
  }
}

/* Phase 2: the exclusive prefixes of partial[0 .. nparts-1] in place. */
template <class V, class Op> __global__ void seg_lb_prefixes(SegPair<V> *partial, int64_t nparts, Op op, V id) {
  part_prefixes(partial, nparts, SegOp<V, Op>{op}, id, [&](int64_t i, SegPair<V> prefix) { partial[i] = prefix; });
}

/* This block's part again, tile by tile, from pair 'carry', each element
   j of segment s given to visit(acc, x, j, s): x its pair (its value,
   and whether s begins at j), acc the combination of the part's elements
   before it from 'carry', which visit combines with x.  Returns the
   part's combination from 'carry'.  Every thread keeps the carry. */
template <class V, class Pull, class Op, class Visit>
__device__ SegPair<V> walk_part(Pull &pull, SegOp<V, Op> sop, V id, const int64_t *off, int64_t nseg,
                                const int32_t *ids, SegPair<V> carry, Visit visit) {
  constexpr int IT = ITEMS<V>;
  __shared__ V tile[THREADS * IT];
  __shared__ SegPair<V> sh[THREADS / 32];
  const SegPair<V> none{id, 0};
  int64_t from, to;
  seg_lb_part(off, nseg, &from, &to);
  for (int64_t base = from; base < to; base += (int64_t)THREADS * IT) {
    load_segment_tile<IT>(tile, pull, base, to, off, nseg, ids);
    __syncthreads(); /* the tile */
    SegPair<V> mine = seg_thread_pair(tile, sop, id, off, nseg, ids, base, to), total;
    SegPair<V> before = block_exclusive_scan(mine, sop, none, sh, &total);
    SegPair<V> acc = threadIdx.x == 0 ? carry : sop(carry, before);
    segment_run<IT>(off, nseg, ids, base + (int64_t)threadIdx.x * IT, to, [&](int k, int64_t j, int64_t s) {
      visit(acc, SegPair<V>{tile[threadIdx.x * IT + k], off[s] == j ? 1 : 0}, j, s);
    });
    carry = sop(carry, total);
    __syncthreads(); /* every thread has read the tile */
  }
  return carry;
}

/* Phase 3 of a SCAN: each part again, from its prefix, as scan_parts:
   each element's exclusive prefix within its segment (id at a head). */
template <class V, class Pull, class Op, class Store>
__global__ void seg_lb_write(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, const int32_t *ids,
                             const SegPair<V> *prefix, Store store) {
  SegOp<V, Op> sop{op};
  walk_part(pull, sop, id, off, nseg, ids, prefix[blockIdx.x], [&](SegPair<V> &acc, SegPair<V> x, int64_t j, int64_t) {
    store(j, x.head ? id : acc.v);
    acc = sop(acc, x);
  });
}

/* A REDUCE in one pass over the elements (seg_lb_reduce_parts, then
   seg_lb_reduce_rest): each block stores the combination of every
   segment that both begins and ends in its part, and its part's pair;
   of its first segment, where that began in an earlier part and ends in
   this one, the combination of this part's elements of it (BlockHead).
   That segment's whole is the blocks' exclusive prefix there (the
   combination since its head, in the parts before) combined with this
   part's elements, which one block computes for every part after the
   prefixes.  A segment's elements are thus combined in order, as the
   three phases combine them, and each pull is evaluated once where the
   third phase evaluated it again: quickhull's segmented arg-max of 10^7
   points spent 1.2 ms of a call's 9 in that second evaluation (H200,
   NESSIE_PROFILE; docs/gpu-runs.md, twenty-seventh session). */
template <class V> struct BlockHead {
  V v;
  int64_t s; /* the segment; -1: none to finish (the part's first segment
                begins in it, or does not end in it, or the part is empty) */
};

/* Phase 1 of the one-pass REDUCE: as seg_lb_write from no prefix, each
   segment's combination stored at its last element where its head is in
   this part, else kept in head[b]; the part's pair in partial[b]; id at
   each empty segment (a grid-stride loop). */
template <class V, class Pull, class Op, class Store>
__global__ void seg_lb_reduce_parts(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, const int32_t *ids,
                                    SegPair<V> *partial, BlockHead<V> *head, Store store) {
  SegOp<V, Op> sop{op};
  if (threadIdx.x == 0) /* before walk_part's first barrier, after which a thread may set it */
    head[blockIdx.x] = BlockHead<V>{id, -1};
  SegPair<V> part =
      walk_part(pull, sop, id, off, nseg, ids, SegPair<V>{id, 0}, [&](SegPair<V> &acc, SegPair<V> x, int64_t j, int64_t s) {
        acc = sop(acc, x);
        if (off[s + 1] == j + 1) { /* j is the last of segment s */
          if (acc.head)
            store(s, acc.v);
          else /* the part's first segment, begun before it: at most one thread */
            head[blockIdx.x] = BlockHead<V>{acc.v, s};
        }
      });
  if (threadIdx.x == 0)
    partial[blockIdx.x] = part;
  for (int64_t s = blockIdx.x * (int64_t)THREADS + threadIdx.x; s < nseg; s += (int64_t)gridDim.x * THREADS)
    if (off[s] == off[s + 1])
      store(s, id);
}

/* Phase 2 of the one-pass REDUCE, one block: the parts' exclusive
   prefixes (part_prefixes), and each part's first segment finished from
   its prefix. */
template <class V, class Op, class Store>
__global__ void seg_lb_reduce_rest(const SegPair<V> *partial, const BlockHead<V> *head, int64_t nparts, Op op, V id,
                                   Store store) {
  part_prefixes(partial, nparts, SegOp<V, Op>{op}, id, [&](int64_t i, SegPair<V> prefix) {
    if (head[i].s >= 0)
      store(head[i].s, op(prefix.v, head[i].v));
  });
}

/* The three phases on a grid for 'total' elements (-1: not known on the
   host, a grid that fills the device; blocks past the elements have
   empty parts); a REDUCE in the two of its one pass. */
template <bool Scan, class V, class Pull, class Op, class Store>
void segmented_balanced(const char *name, RtLoc loc, Pull pull, Op op, V id, const int64_t *off, int64_t nseg,
                        const int32_t *ids, int64_t total, Store store) {
  int blocks = total >= 0 ? blocks_for(total, ITEMS<V>) : rtg_max_blocks();
  size_t pairs = sizeof(SegPair<V>) * (size_t)blocks;
  pairs = (pairs + 15) / 16 * 16; /* the heads after them, aligned */
  char *room = (char *)rtg_partials(pairs + (Scan ? 0 : sizeof(BlockHead<V>) * (size_t)blocks));
  SegPair<V> *partial = (SegPair<V> *)room;
  if constexpr (!Scan) {
    BlockHead<V> *head = (BlockHead<V> *)(room + pairs);
    rtg_launching("segmented reduce, balanced (parts)");
    seg_lb_reduce_parts<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, off, nseg, ids, partial, head, store);
    rtg_launched(name, loc);
    rtg_launching("segmented reduce, balanced (prefixes)");
    seg_lb_reduce_rest<<<1, THREADS, 0, rtg_stream()>>>(partial, head, (int64_t)blocks, op, id, store);
    rtg_launched(name, loc);
  } else {
    rtg_launching("segmented scan, balanced (parts)");
    seg_lb_parts<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, off, nseg, ids, partial);
    rtg_launched(name, loc);
    rtg_launching("segmented scan, balanced (prefixes)");
    seg_lb_prefixes<<<1, THREADS, 0, rtg_stream()>>>(partial, (int64_t)blocks, op, id);
    rtg_launched(name, loc);
    rtg_launching("segmented scan, balanced (write)");
    seg_lb_write<<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, off, nseg, ids, partial, store);
    rtg_launched(name, loc);
  }
}

/* ---- the choice of a segmented skeleton ----
   Measured on an H100 (132 SMs; tests/gpu/segtest.cu's timing, + on
   int32, 10^6 elements in equal segments), µs per call (the balanced
   rows with its block scans by warp shuffles, 2026-11-26; they were 40
   to 63 with ordered trees in shared memory):

     segments              1     2     4    16    64   263  1024
     block per segment  1162   774   327   108    31    10     8  (reduce)
     balanced             28    29    30    32    33    35    37  (reduce)
     block per segment  2447  1626   687   225    60    16    12  (scan)
     balanced             32    32    33    35    36    38    40  (scan)

   A block per segment takes as long as its longest segment takes one
   block: about 1 ns an element for a coalesced int32 (2 in a scan), and
   several times that for a pull that gathers (a block has only 8 warps'
   loads in flight).  The balanced path costs 30-40 µs whatever the layout
   (three launches, each about one wave of blocks), more with many
   segments (each thread searches the offsets).  So the balanced path
   where the segments are fewer than twice the SMs (a block per segment
   would leave most SMs idle) and the elements at least SEG_BALANCED_MIN
   (below that no segment is long enough for its block to take longer
   than the balanced path's extra launches); else a block per segment
   where they are few (SEG_BLOCKS or fewer: each then has the work of a
   block, and a long one is not left to one warp), a warp per segment
   where they are many.  The total is used only where the host knows it
   already (reading it is a synchronization); unknown, the kernel runs on
   the GPU because something is larger than NESSIE_HOST_MAX, and with few
   segments that is most likely the elements: the balanced path, whose
   wrong guess costs some 40 µs, where the other's costs a ms or more per
   million elements in the longest segment.  (Alternatives tried on
   quicksort of 10^6 keys, quickhull of 10^7 points, Barnes-Hut of 10^5
   bodies, one run each: a rule on the segments' average length was no
   better; the balanced path up to 1024 segments sped quicksort up more
   but slowed the other two; for any number of segments it sped all
   three up (quicksort's deep levels hold thousands of skewed segments,
   235 µs a warp per segment) but doubled spmv, 10^6 rows, by its
   searches of the offsets.)

   Where the host knows the total, the balanced path also wherever the
   segments hold SEG_BALANCED_AVG to SEG_BALANCED_AVG_MOST elements on
   average: a warp or block per segment is then at the mercy of the
   longest, which the host cannot see.  Not above: the balanced path's
   REDUCE then evaluated each element's pull twice (its parts, then the
   write), which doubled the all-pairs n-body's time (10^4 segments of
   10^4 bodies, each pull a force: 7.1 -> 14.1 ms), where segments that
   long give each warp work enough.  (A REDUCE evaluates it once since
   the twenty-seventh session; the bound was not measured again.)  Quicksort of 10^6 keys (tests/bench/quicksort.nesl,
   whose splits are uneven) has 2048 to 47000 segments from its 11th
   level on, averaging 487 down to 16 elements, the longest 10126 down
   to 374; there ncu timed the warp per segment of its filters' counts
   at 2.2 ms down to 0.2 ms a level (the SMs busy 6% of that time).
   With the rule, the median of five runs of each build, interleaved:
   quicksort 53.5 -> 49.3 ms, spmv (10^7 rows of 8 on average) 5.61 -> 5.62;
   quickhull and Barnes-Hut within their noise; the balanced path for
   any average (1 and up) made spmv 5.61 -> 6.58 (docs/gpu-runs.md).

   The balanced path keeps pairs of V in shared memory beside a tile of
   V: a V larger than SEG_BALANCED_MAX_V bytes takes the other kernels
   (as it did before), so that no program that built before fails to. */
constexpr int64_t SEG_BLOCKS = 1024;
constexpr int64_t SEG_BALANCED_MIN = (int64_t)1 << 16;
constexpr int64_t SEG_BALANCED_AVG = 16, SEG_BALANCED_AVG_MOST = 4096;
constexpr size_t SEG_BALANCED_MAX_V = 64;

/* Which path: the balanced one?  'total' -1: not known on the host.  (A
   function of its own for the self-test, tests/gpu/segtest.cu.) */
inline bool seg_use_balanced(int64_t nseg, int64_t total) {
  if (total >= SEG_BALANCED_MIN && total >= SEG_BALANCED_AVG * nseg && total < SEG_BALANCED_AVG_MOST * nseg)
    return true;
  return nseg < 2 * (int64_t)rtg_sm_count() && (total < 0 || total >= SEG_BALANCED_MIN);
}

/* A warp per 32 segments (seg_packed_kernel) where the host knows that
   the segments hold fewer than SEG_PACKED_AVG elements on average and
   they are too many for a block each; at 16 and more the warp per
   segment is full enough (or the balanced path takes them).  Measured on
   the H100 (tests/gpu/segtest.cu's timing, int32 +, 10^7 segments of 8
   elements, docs/gpu-runs.md): see SEG_PACKED_AVG's note there. */
constexpr int64_t SEG_PACKED_AVG = 16;

inline bool seg_use_packed(int64_t nseg, int64_t total) {
  return nseg > SEG_BLOCKS && total >= 0 && total < SEG_PACKED_AVG * nseg &&
         nseg <= INT32_MAX - PACKED_INDEX_ROOM && total <= INT32_MAX - PACKED_INDEX_ROOM;
}

/* A block per segment, however many, where the host knows that they
   hold SEG_BALANCED_AVG_MOST elements or more on average (each of a
   block's warps then has 512 or more): the GPU hands out a block as one
   finishes, in pieces of an eighth of a warp per segment's.  A warp per
   segment, a whole number of segments per warp, left most warps idle at
   the end: the all-pairs n-body's 10^4 segments of 10^4 forces ran on
   8448 warps, a fifth of them two segments each (ncu on the H200: 1.54
   ms, 40% occupancy achieved of 50%, docs/gpu-runs.md). */
inline bool seg_use_blocks(int64_t nseg, int64_t total) {
  return total >= 0 && total >= SEG_BALANCED_AVG_MOST * nseg;
}

/* 'path': -1 chooses (seg_use_balanced, seg_use_packed); 0 forces the
   block/warp kernels, 1 the balanced path, 2 a warp per 32 segments (for
   the self-test).  'Commutative': a REDUCE whose operator is (codegen's
   cg_op_commutative): the block/warp kernels combine a lane's elements
   first (warp_reduce_commutative).  'Scan': a SEG_SCAN, else a
   SEG_REDUCE; a template argument, which codegen knows, so that only one
   kind's kernels are instantiated (a REDUCE had the balanced SCAN's three
   kernels beside its own two, and every kernel both kinds' code). */
template <bool Commutative, bool Scan, class V, class Pull, class Op, class Store>
void segmented(const char *name, RtLoc loc, Pull pull, Op op, V id, RtValue *sd, Store store, int path = -1) {
  static_assert(!(Commutative && Scan), "a SEG_SCAN keeps its order");
  if (sd->len <= 0)
    return;
  const int64_t *off = rtg_seg_offsets(sd);
  if constexpr (sizeof(V) <= SEG_BALANCED_MAX_V) {
    if (path == 1 || (path < 0 && seg_use_balanced(sd->len, sd->total))) {
      segmented_balanced<Scan>(name, loc, pull, op, id, off, sd->len, sd->ids, sd->total, store);
      return;
    }
  }
  if (path == 2 || (path < 0 && seg_use_packed(sd->len, sd->total))) {
    rtg_launching(Scan ? "segmented scan, 32 segments a warp" : "segmented reduce, 32 segments a warp");
    seg_packed_kernel<Scan><<<blocks_for((sd->len + 31) / 32 * 32, 1), THREADS, 0, rtg_stream()>>>(pull, op, id, off,
                                                                                                   sd->len, store);
    rtg_launched(name, loc);
    return;
  }
  rtg_launching(Scan ? "segmented scan" : "segmented reduce");
  if (sd->len <= SEG_BLOCKS || seg_use_blocks(sd->len, sd->total)) {
    int blocks = (int)(sd->len < (1 << 30) ? sd->len : (1 << 30)); /* (a grid-stride loop over the segments) */
    seg_block_kernel<Commutative, Scan><<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, off, sd->len, store);
  } else {
    int blocks = blocks_for(sd->len * 32, 1);
    seg_kernel<Commutative, Scan><<<blocks, THREADS, 0, rtg_stream()>>>(pull, op, id, off, sd->len, store);
  }
  rtg_launched(name, loc);
}

/* ---- SEG_REDUCE of int sums, by atomics ----

   A SEG_REDUCE whose operator adds ints component by component, from 0
   (cg_op_int_sum, codegen/emit.c: a flattened filter's counts per segment,
   a lifted sum), may add its partial sums in any grouping and order: int
   addition wraps, and every grouping gives the same bits.  So each
   segment's sum is made by atomicAdd into its results, zeroed first,
   in one launch over the elements, whatever the segments' lengths: a
   tile of THREADS * ITEMS<V> elements per block, loaded coalesced; each
   thread walks its ITEMS consecutive elements by segment (segment_run),
   adding each run that ends inside them; each warp then combines its
   threads' last runs segment by segment (a suffix scan by shuffles: the
   lanes of one segment are consecutive) and adds each run's total once,
   but the run that holds lane 0, which the block's first warp combines
   with the other warps' the same way before adding.  A segment inside
   one block costs one atomic; one of 10^6 elements one a block.  The
   block/warp kernels, the 32-segments-a-warp kernel and the balanced
   path each had a shape they were slow on (quicksort's level: three
   counts per segment, 48-61 µs a launch at 10^6 elements on the H200,
   docs/gpu-runs.md, twenty-first session). */
template <class V, class Pull, class Op, class Add>
__global__ void __launch_bounds__(THREADS)
    seg_sum_kernel(Pull pull, Op op, V id, const int64_t *off, int64_t nseg, const int32_t *ids, int64_t n, Add add) {
  constexpr int IT = ITEMS<V>, WARPS = THREADS / 32;
  __shared__ V tile[THREADS * IT];
  __shared__ V first_v[WARPS];
  __shared__ int64_t first_s[WARPS];
  const unsigned all = 0xffffffffu;
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int64_t base = blockIdx.x * (int64_t)(THREADS * IT);
  const int64_t to = base + THREADS * IT < n ? base + THREADS * IT : n;
  load_segment_tile<IT>(tile, pull, base, to, off, nseg, ids);
  __syncthreads();
  V acc = id;
  int64_t cur = -1; /* the segment of acc; -1: no element */
  segment_run<IT>(off, nseg, ids, base + (int64_t)threadIdx.x * IT, to, [&](int k, int64_t j, int64_t s) {
    (void)j;
    if (s != cur) {
      if (cur >= 0)
        add(cur, acc); /* a run that ended among this thread's elements */
      cur = s;
      acc = id;
    }
    acc = op(acc, tile[threadIdx.x * IT + k]);
  });
  /* each lane's last run with the same segment's lanes after it */
  for (int d = 1; d < 32; d *= 2) {
    V other = shfl_down(acc, d);
    int64_t other_seg = __shfl_down_sync(all, cur, d);
    if (lane + d < 32 && other_seg == cur)
      acc = op(acc, other);
  }
  int64_t before = __shfl_up_sync(all, cur, 1);
  if (lane == 0) {
    first_s[warp] = cur;
    first_v[warp] = acc;
  } else if (cur >= 0 && before != cur) {
    add(cur, acc);
  }
  __syncthreads();
  if (warp == 0) {
    int64_t s = lane < WARPS ? first_s[lane] : -1;
    V v = lane < WARPS ? first_v[lane] : id;
    for (int d = 1; d < WARPS; d *= 2) {
      V other = shfl_down(v, d);
      int64_t other_seg = __shfl_down_sync(all, s, d);
      if (lane + d < WARPS && other_seg == s)
        v = op(v, other);
    }
    int64_t prev = __shfl_up_sync(all, s, 1);
    if (lane < WARPS && s >= 0 && (lane == 0 || prev != s))
      add(s, v);
  }
}

/* SEG_REDUCE of int sums (above): 'zero(nseg)' sets the results to 0,
   'add(s, v)' adds v to segment s's results atomically.  Where the
   number of elements is not known on the host, the other paths
   (segmented), which need not know it. */
template <class V, class Pull, class Op, class Store, class Add, class Zero>
void segmented_sum(const char *name, RtLoc loc, Pull pull, Op op, V id, RtValue *sd, Store store, Add add,
                   Zero zero) {
  if (sd->len <= 0)
    return;
  if (sd->total < 0) {
    segmented<false, false>(name, loc, pull, op, id, sd, store);
    return;
  }
  zero(sd->len);
  if (sd->total == 0)
    return;
  const int64_t *off = rtg_seg_offsets(sd); /* before the mark: it may launch a scan */
  const int64_t per_tile = (int64_t)THREADS * ITEMS<V>;
  int64_t tiles = (sd->total + per_tile - 1) / per_tile;
  rtg_launching("segmented sum (atomics)");
  seg_sum_kernel<<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, op, id, off, sd->len, sd->ids, sd->total, add);
  rtg_launched(name, loc);
}

/* SEG_PERMUTE: each element's segment from its id. */
template <class Pull, class Index, class Store>
__global__ void seg_permute_kernel(Pull pull, Index index, int64_t n, const int32_t *ids, const int64_t *off,
                                   Store store, RtKernelError *err, int run, int site) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x) {
    int32_t s = ids[j];
    int64_t len = off[s + 1] - off[s];
    int32_t to = index(j);
    if ((uint64_t)(int64_t)to >= (uint64_t)len) {
      record(err, RtKernelError{j, RT_CHECK_INDEX, site, 0, RT_SCATTER, to, len, 0.0, run, 0});
      continue;
    }
    store(off[s] + to, pull(j));
  }
}

/* SEG_PERMUTE `into` D: as permute's, the winners by global place. */
template <class Index>
__global__ void seg_winners_kernel(Index index, int64_t n, const int32_t *ids, const int64_t *off,
                                   unsigned long long *win, RtKernelError *err, int run, int site) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x) {
    int32_t s = ids[j];
    int64_t len = off[s + 1] - off[s];
    int32_t to = index(j);
    if ((uint64_t)(int64_t)to >= (uint64_t)len) {
      record(err, RtKernelError{j, RT_CHECK_INDEX, site, 0, RT_SCATTER, to, len, 0.0, run, 0});
      continue;
    }
    atomicMax(&win[off[s] + to], (unsigned long long)j + 1);
  }
}

template <class Pull, class Index, class Store>
__global__ void seg_winners_write(Pull pull, Index index, int64_t n, const int32_t *ids, const int64_t *off,
                                  const unsigned long long *win, Store store) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x) {
    int32_t s = ids[j];
    int32_t to = index(j);
    if ((uint64_t)(int64_t)to < (uint64_t)(off[s + 1] - off[s]) && win[off[s] + to] == (unsigned long long)j + 1)
      store(off[s] + to, pull(j));
  }
}

/* Within each segment of 'sd', value j goes to the segment's start plus
   index(j); `into` a copy of D (a later write wins). */
template <class Pull, class Index, class Store>
void seg_permute(const char *name, RtLoc loc, Pull pull, Index index, RtValue *sd, bool into, Store store, int run,
                 int site) {
  int64_t n = rtg_seg_total(sd);
  if (n <= 0)
    return;
  const int64_t *off = rtg_seg_offsets(sd);
  const int32_t *ids = rtg_seg_ids_raw(sd); /* the segdes's: not freed here */
  if (!into) {
    rtg_launching("segmented permute");
    seg_permute_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, index, n, ids, off, store, rtg_error(),
                                                                        run, site);
    rtg_launched(name, loc);
  } else {
    unsigned long long *win = (unsigned long long *)rtg_alloc(sizeof(unsigned long long) * ((size_t)n + 1));
    cudaMemsetAsync(win, 0, sizeof(unsigned long long) * ((size_t)n + 1), rtg_stream());
    rtg_launching("segmented permute (winners)");
    seg_winners_kernel<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(index, n, ids, off, win, rtg_error(), run,
                                                                        site);
    rtg_launched(name, loc);
    rtg_launching("segmented permute (write)");
    seg_winners_write<<<blocks_for(n, 4), THREADS, 0, rtg_stream()>>>(pull, index, n, ids, off, win, store);
    rtg_launched(name, loc);
    rtg_free(win);
  }
}

/* ---- SEG_MAP ---- */

/* SEG_MAP: store(j, pull(j, s)) for every element j of a segdes, s the
   segment that holds it, found here rather than read from a seg_ids
   vector that a launch of its own made (fusion/segmap.c): a flattened
   level of a divide-and-conquer program gathers or spreads per-segment
   values over the elements several times, each time a seg_ids launch
   and a MAP.  A block's tile of SEG_MAP_ITEMS * THREADS elements: the
   segments of its first and last element found by a warp each
   (warp_segment_of), the offsets between them read into shared memory,
   and each element searched there, element k * THREADS + t of the tile
   thread t's (coalesced loads and stores, as a MAP's).  A tile that
   spans more than SEG_MAP_SHARED segments (runs of empty ones) searches
   the offsets in global memory between the same two segments. */
constexpr int SEG_MAP_ITEMS = 4, SEG_MAP_SHARED = 1024;

template <class Pull, class Store>
__global__ void __launch_bounds__(THREADS)
    seg_map_kernel(Pull pull, Store store, const int64_t *off, int64_t nseg, int64_t n) {
  __shared__ int64_t ends[2];
  __shared__ int64_t tile_off[SEG_MAP_SHARED + 1];
  const int64_t base = blockIdx.x * (int64_t)(SEG_MAP_ITEMS * THREADS);
  const int64_t end = base + SEG_MAP_ITEMS * THREADS < n ? base + SEG_MAP_ITEMS * THREADS : n;
  const int warp = threadIdx.x / 32;
  if (warp < 2) {
    int64_t s = warp_segment_of(off, nseg, warp == 0 ? base : end - 1);
    if ((threadIdx.x & 31) == 0)
      ends[warp] = s;
  }
  __syncthreads();
  const int64_t first = ends[0], count = ends[1] - ends[0] + 1; /* off[first] <= base, end <= off[first + count] */
  const bool shared = count <= SEG_MAP_SHARED;                   /* the same in every thread */
  if (shared)
    for (int64_t k = threadIdx.x; k <= count; k += THREADS)
      tile_off[k] = off[first + k];
  __syncthreads();
  /* every element's pull before any store: a store may alias what a
     later pull reads, as far as the compiler knows, so each pull's loads
     waited for the store before it (one element in flight a thread) */
  typedef std::decay_t<decltype(pull(int64_t(0), int64_t(0)))> V;
  V v[SEG_MAP_ITEMS];
#pragma unroll
  for (int k = 0; k < SEG_MAP_ITEMS; k++) {
    int64_t j = base + (int64_t)k * THREADS + threadIdx.x;
    if (j < end) {
      int64_t s = shared ? first + segment_search(tile_off, 0, count, j) : segment_search(off, first, first + count, j);
      v[k] = pull(j, s);
    }
  }
#pragma unroll
  for (int k = 0; k < SEG_MAP_ITEMS; k++) {
    int64_t j = base + (int64_t)k * THREADS + threadIdx.x;
    if (j < end)
      store(j, v[k]);
  }
}

/* With the segdes's ids already made (rtg_seg_ids_raw cached them for
   another SOAC), a read each instead of a search. */
template <class Pull, class Store>
__global__ void __launch_bounds__(THREADS, MAP_BLOCKS)
    seg_map_ids_kernel(Pull pull, Store store, const int32_t *ids, int64_t n) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x)
    store(j, pull(j, (int64_t)ids[j]));
}

/* The 'n' elements of 'sd' (its total, which the caller has read). */
template <class Pull, class Store>
void seg_map(const char *name, RtLoc loc, Pull pull, Store store, RtValue *sd, int64_t n) {
  if (n <= 0)
    return;
  if (sd->ids) {
    static const int most = wave_blocks(seg_map_ids_kernel<Pull, Store>);
    rtg_launching("segmented map (ids)");
    seg_map_ids_kernel<<<grid_for(n, 4, most), THREADS, 0, rtg_stream()>>>(pull, store, sd->ids, n);
    rtg_launched(name, loc);
    return;
  }
  const int64_t *off = rtg_seg_offsets(sd); /* before the mark: it may launch a scan */
  int64_t tiles = (n + SEG_MAP_ITEMS * THREADS - 1) / (SEG_MAP_ITEMS * THREADS);
  rtg_launching("segmented map");
  seg_map_kernel<<<(unsigned)tiles, THREADS, 0, rtg_stream()>>>(pull, store, off, sd->len, n);
  rtg_launched(name, loc);
}

} /* namespace rtg */

#endif
