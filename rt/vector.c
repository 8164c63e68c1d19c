/*
 * vector.c: the vector operations of the flat IR other than the
 * element-wise ones and the reductions: dist, ranges, gathers and
 * scatters, packs, appends, segment descriptors, extreme indices and
 * ranks (the stable sort behind NESL's sorting functions).  The
 * interpreters run them; the CPU target's library kernels call the
 * ranks.
 *
 * Their errors are those of the primitives they implement, in the
 * evaluator's words (rt_fail names the primitive).
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static RtValue *new_vec(RtBase b, int64_t n) { return rt_value_new(rt_vec_type(b), n); }

RtValue *rt_dist(RtLoc loc, RtValue *x, int64_t n) {
  if (n < 0)
    rt_fail(loc, "dist", "dist: negative length %lld", (long long)n);
  RtValue *r = new_vec(x->type.base, n);
  size_t size = rt_base_size(x->type.base);
  for (int64_t k = 0; k < n; k++)
    memcpy(r->data.c + (size_t)k * size, x->data.any, size);
  return r;
}

void rt_check_range(RtLoc loc, int32_t start, int32_t end, int32_t stride) {
  if (end < start || stride <= 0)
    rt_fail(loc, NULL, "bad range [%d:%d:%d]: the end must be >= the start and the stride positive", start, end,
            stride);
}

int64_t rt_range_length(int32_t start, int32_t end, int32_t stride) {
  /* stride 1, nearly every range (a segment's own elements among them),
     without the 64-bit division: range_segdes of 10^5 ranges spent 9%
     of the count-by-rep radix sort's time in it (perf, --target=cpu) */
  if (stride == 1)
    return (int64_t)end - start;
  return ((int64_t)end - start + stride - 1) / stride;
}

static void check_total(RtLoc loc, int64_t total);

int32_t rt_range_size(RtLoc loc, int32_t start, int32_t end, int32_t stride) {
  rt_check_range(loc, start, end, stride);
  int64_t n = rt_range_length(start, end, stride);
  check_total(loc, n);
  return (int32_t)n;
}

int32_t rt_append_size(RtLoc loc, int64_t a, int64_t b) {
  check_total(loc, a + b);
  return (int32_t)(a + b);
}

RtValue *rt_range(RtLoc loc, int32_t start, int32_t end, int32_t stride) {
  rt_check_range(loc, start, end, stride);
  int64_t n = rt_range_length(start, end, stride);
  check_total(loc, n); /* [min_int:max_int] */
  RtValue *r = new_vec(RT_INT, n);
  for (int64_t k = 0; k < n; k++)
    r->data.i[k] = (int32_t)(start + k * stride);
  return r;
}

/* A segdes of more elements than an int counts would describe a vector
   that cannot be made (its length, and the offsets kernels compute in
   int, would wrap): out of memory, as the vector's allocation would be.
   The places that choose a segdes's lengths (make_segdes, seg_range and
   λcu's range_segdes) ask, and those that make a vector of a length they
   compute (range, append, and λcu's `size` statements, which compute it
   before the kernel that makes the vector); a segdes made from another's
   segments is no larger.  The evaluator says the same at the same places
   (eval/prims.c, "lengths"). */
static void check_total(RtLoc loc, int64_t total) {
  if (total > INT32_MAX)
    rt_fail(loc, NULL, "out of memory (could not allocate a vector of %lld elements)", (long long)total);
}

/* Each range's length in 64 bits, into the segdes: a range of more
   elements than an int counts is no negative length (its int32
   arithmetic would wrap), and the total says how many the values
   would be. */
static RtValue *range_segdes(RtLoc loc, RtValue *starts, RtValue *ends, RtValue *strides, int64_t *total) {
  int64_t n = starts->len, sum = 0;
  RtValue *d = rt_value_new(rt_segdes_type(), n);
  const int32_t *a = starts->data.i, *e = ends->data.i, *s = strides->data.i;
  int64_t *lengths = d->lengths;
  for (int64_t k = 0; k < n; k++) {
    /* the check's call (its location copied) only where it fails: a
       call a range was a fifth of the count-by-rep radix sort's time */
    if (e[k] < a[k] || s[k] <= 0)
      rt_check_range(loc, a[k], e[k], s[k]);
    lengths[k] = rt_range_length(a[k], e[k], s[k]);
    sum += lengths[k];
  }
  *total = sum;
  check_total(loc, sum);
  return d;
}

RtValue *rt_range_segdes(RtLoc loc, RtValue *starts, RtValue *ends, RtValue *strides, RtValue **lengths,
                         RtValue **offsets) {
  int64_t total;
  RtValue *d = range_segdes(loc, starts, ends, strides, &total);
  *lengths = rt_seg_lengths(d);
  *offsets = rt_seg_starts(d);
  return d;
}

void rt_seg_range(RtLoc loc, RtValue *starts, RtValue *ends, RtValue *strides, RtValue **segdes, RtValue **values) {
  int64_t n = starts->len, total;
  RtValue *d = range_segdes(loc, starts, ends, strides, &total);
  RtValue *v = new_vec(RT_INT, total);
  int64_t at = 0;
  for (int64_t k = 0; k < n; k++)
    for (int64_t j = 0; j < d->lengths[k]; j++)
      v->data.i[at++] = (int32_t)(starts->data.i[k] + j * strides->data.i[k]);
  *segdes = d;
  *values = v;
}

/* v[idx[k]] for each k; where 'guarded', a negative index gives zero. */
static RtValue *gather(RtLoc loc, RtValue *v, RtValue *idx, bool guarded) {
  RtValue *r = new_vec(v->type.base, idx->len);
  size_t size = rt_base_size(v->type.base);
  for (int64_t k = 0; k < idx->len; k++) {
    int32_t i = idx->data.i[k];
    if (guarded && i < 0) {
      memset(r->data.c + (size_t)k * size, 0, size);
      continue;
    }
    if (i < 0 || i >= v->len)
      rt_index_error(loc, RT_GATHER, i, v->len);
    memcpy(r->data.c + (size_t)k * size, v->data.c + (size_t)i * size, size);
  }
  return r;
}

RtValue *rt_gather(RtLoc loc, RtValue *v, RtValue *idx) { return gather(loc, v, idx, false); }

RtValue *rt_gather_guarded(RtLoc loc, RtValue *v, RtValue *idx) { return gather(loc, v, idx, true); }

RtValue *rt_elt(RtLoc loc, RtValue *v, int32_t i) {
  if (i < 0 || i >= v->len)
    rt_index_error(loc, RT_ELT, i, v->len);
  return rt_scalar_at(v, i);
}

RtValue *rt_scatter(RtLoc loc, RtValue *dst, RtValue *idx, RtValue *vals) {
  if (idx->len != vals->len)
    rt_fail(loc, "__write", "<-: %lld indices but %lld values", (long long)idx->len, (long long)vals->len);
  size_t size = rt_base_size(dst->type.base);
  RtValue *r = new_vec(dst->type.base, dst->len);
  memcpy(r->data.any, dst->data.any, size * (size_t)dst->len);
  for (int64_t k = 0; k < idx->len; k++) { /* in order: a later write wins */
    int32_t i = idx->data.i[k];
    if (i < 0 || i >= dst->len)
      rt_index_error(loc, RT_SCATTER, i, dst->len);
    memcpy(r->data.c + (size_t)i * size, vals->data.c + (size_t)k * size, size);
  }
  return r;
}

RtValue *rt_pack(RtLoc loc, RtValue *v, RtValue *flags, bool want) {
  if (v->len != flags->len)
    rt_fail(loc, "pack", "pack: %lld values but %lld flags", (long long)v->len, (long long)flags->len);
  int64_t n = 0;
  for (int64_t k = 0; k < v->len; k++)
    n += (flags->data.b[k] != 0) == want;
  RtValue *r = new_vec(v->type.base, n);
  size_t size = rt_base_size(v->type.base);
  int64_t at = 0;
  for (int64_t k = 0; k < v->len; k++)
    if ((flags->data.b[k] != 0) == want)
      memcpy(r->data.c + (size_t)(at++) * size, v->data.c + (size_t)k * size, size);
  return r;
}

void rt_seg_pack(RtLoc loc, RtValue *d, RtValue *v, RtValue *flags, RtValue **segdes, RtValue **values) {
  int64_t total = rt_seg_total(d);
  if (total != v->len || total != flags->len)
    rt_fail(loc, "pack", "pack: the segments hold %lld elements, but there are %lld values and %lld flags",
            (long long)total, (long long)v->len, (long long)flags->len);
  RtValue *nd = rt_value_new(rt_segdes_type(), d->len);
  int64_t at = 0;
  for (int64_t k = 0; k < d->len; k++) {
    int64_t kept = 0;
    for (int64_t j = 0; j < d->lengths[k]; j++)
      kept += flags->data.b[at + j] != 0;
    nd->lengths[k] = kept;
    at += d->lengths[k];
  }
  *segdes = nd;
  *values = rt_pack(loc, v, flags, true);
}

RtValue *rt_vector(RtValue **scalars, int n) {
  RtBase b = scalars[0]->type.base;
  size_t size = rt_base_size(b);
  RtValue *r = new_vec(b, n);
  for (int k = 0; k < n; k++)
    memcpy(r->data.c + (size_t)k * size, scalars[k]->data.any, size);
  return r;
}

RtValue *rt_append(RtValue *x, RtValue *y) {
  check_total(rt_here, x->len + y->len); /* at the statement running */
  size_t size = rt_base_size(x->type.base);
  RtValue *r = new_vec(x->type.base, x->len + y->len);
  memcpy(r->data.any, x->data.any, size * (size_t)x->len);
  memcpy(r->data.c + size * (size_t)x->len, y->data.any, size * (size_t)y->len);
  return r;
}

/* ---- segment descriptors ---- */

/* A negative length fails first, then too many elements (check_total). */
RtValue *rt_make_segdes(RtLoc loc, RtValue *lengths) {
  RtValue *d = rt_value_new(rt_segdes_type(), lengths->len);
  int64_t total = 0;
  for (int64_t k = 0; k < lengths->len; k++) {
    if (lengths->data.i[k] < 0)
      rt_fail(loc, NULL, "negative length %d", lengths->data.i[k]);
    d->lengths[k] = lengths->data.i[k];
    total += lengths->data.i[k];
  }
  check_total(loc, total);
  return d;
}

RtValue *rt_seg_lengths(RtValue *d) {
  RtValue *r = new_vec(RT_INT, d->len);
  for (int64_t k = 0; k < d->len; k++)
    r->data.i[k] = (int32_t)d->lengths[k];
  return r;
}

RtValue *rt_seg_ids(RtValue *d) {
  const int64_t *off = rt_seg_offsets(d);
  RtValue *r = new_vec(RT_INT, off[d->len]);
  for (int64_t k = 0; k < d->len; k++)
    for (int64_t j = off[k]; j < off[k + 1]; j++)
      r->data.i[j] = (int32_t)k;
  return r;
}

RtValue *rt_seg_starts(RtValue *d) {
  const int64_t *off = rt_seg_offsets(d);
  RtValue *r = new_vec(RT_INT, d->len);
  for (int64_t k = 0; k < d->len; k++)
    r->data.i[k] = (int32_t)off[k];
  return r;
}

/* ---- extreme indices and ranks ---- */

/* Element 'k' of 'v' (not floats) as an integer key: chars order
   unsigned. */
static int64_t int_key_at(const RtValue *v, int64_t k) {
  switch (v->type.base) {
  case RT_INT:
    return v->data.i[k];
  case RT_BOOL:
    return v->data.b[k];
  case RT_CHAR:
    return (unsigned char)v->data.c[k];
  case RT_FLOAT:
    break;
  }
  return 0;
}

/* Element 'k' of 'v' as a double: an exact key for ordering every base
   type (ints and chars fit a double's mantissa). */
static double key_at(const RtValue *v, int64_t k) {
  return v->type.base == RT_FLOAT ? v->data.f[k] : (double)int_key_at(v, k);
}

/* The index within [from, to) of the first greatest ('sign' 1) or least
   (-1) element, counted from 'from'; max_int when empty.  An element
   replaces the best so far unless the best is at least (at most) it, as
   NESL's reduction steps do: a NaN, as either, makes the newer one the
   best. */
static int32_t extreme_in(const RtValue *v, int64_t from, int64_t to, int sign) {
  if (from == to)
    return INT32_MAX;
  int64_t best = from;
  double best_key = key_at(v, best);
  for (int64_t j = from + 1; j < to; j++) {
    double key = key_at(v, j);
    if (!(sign > 0 ? best_key >= key : best_key <= key)) {
      best = j;
      best_key = key;
    }
  }
  return (int32_t)(best - from);
}

int32_t rt_extreme_index(RtValue *v, int sign) { return extreme_in(v, 0, v->len, sign); }

RtValue *rt_seg_extreme_index(RtValue *d, RtValue *v, int sign) {
  const int64_t *off = rt_seg_offsets(d);
  RtValue *r = new_vec(RT_INT, d->len);
  for (int64_t k = 0; k < d->len; k++)
    r->data.i[k] = extreme_in(v, off[k], off[k + 1], sign);
  return r;
}

/* Merges the sorted runs idx[lo, mid) and idx[mid, hi) into tmp[lo, hi),
   stably (ties from the left run first). */
static void merge_runs(const double *keys, const int64_t *idx, int64_t *tmp, int64_t lo, int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, o = lo;
  while (i < mid && j < hi)
    tmp[o++] = keys[idx[j]] < keys[idx[i]] ? idx[j++] : idx[i++];
  while (i < mid)
    tmp[o++] = idx[i++];
  while (j < hi)
    tmp[o++] = idx[j++];
}

/* Sorts idx[0 .. n) by keys[idx[.]], stably (a bottom-up merge sort). */
static void stable_sort(const double *keys, int64_t *idx, int64_t *tmp, int64_t n) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      merge_runs(keys, idx, tmp, lo, mid, hi);
    }
    memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
  }
}

#ifdef _OPENMP
#include <omp.h>
#define RT_PRAGMA(x) _Pragma(#x)
#else
#define RT_PRAGMA(x)
#endif

/* The same on all processors (the executables link the runtime built
   with OpenMP): runs of n/T sorted each on its own, then merged pairwise.
   A stable sort has one result, so the ranks do not depend on T. */
static void stable_sort_parallel(const double *keys, int64_t *idx, int64_t *tmp, int64_t n) {
  int runs = 1;
#ifdef _OPENMP
  if (n >= 1 << 16)
    runs = omp_get_max_threads();
#endif
  if (runs <= 1) {
    stable_sort(keys, idx, tmp, n);
    return;
  }
  int64_t width = (n + runs - 1) / runs;
  RT_PRAGMA(omp parallel for schedule(static))
  for (int r = 0; r < runs; r++) {
    int64_t lo = (int64_t)r * width, hi = lo + width < n ? lo + width : n;
    if (lo < hi)
      stable_sort(keys, idx + lo, tmp + lo, hi - lo);
  }
  for (; width < n; width *= 2) {
    int64_t pairs = (n + 2 * width - 1) / (2 * width);
    RT_PRAGMA(omp parallel for schedule(static))
    for (int64_t p = 0; p < pairs; p++) {
      int64_t lo = p * 2 * width, mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      merge_runs(keys, idx, tmp, lo, mid, hi);
    }
    memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
  }
}

/* ---- ranks by counting ----

   A segment of ints, chars or bools whose keys span few values (radix
   sort's digits, a histogram's buckets) is ranked by counting them: the
   keys' range found, each value counted, the counts' exclusive sums the
   first place of each value, and each element, in order, takes the next
   place of its value (stable, as the merge sort is, so the ranks are the
   same).  Time and memory follow the segment and its range, not
   len * log len: the count-by-rep radix sort (tests/bench/radixloop.nesl)
   ranked its blocks' digits, 1000 keys in 256 values a block, by the
   merge sort in half of its time on the CPU target.  A segment is
   counted where it holds at least COUNT_MIN elements and its range is
   at most twice its length and at most COUNT_RANGE values. */
enum { COUNT_MIN = 32, COUNT_RANGE = 1 << 16 };

static bool int_keys(const RtValue *v) { return v->type.base != RT_FLOAT; }

/* The ranks of segment [lo, hi) of 'v' (int keys) into out[lo ..], by
   counting into 'count' (room for COUNT_RANGE values); false, with
   nothing written, where the segment is not one to count. */
static bool counting_ranks(const RtValue *v, int64_t lo, int64_t hi, bool down, int64_t *count, int32_t *out) {
  int64_t len = hi - lo;
  if (len < COUNT_MIN)
    return false;
  int64_t least = int_key_at(v, lo), most = least;
  for (int64_t j = lo + 1; j < hi; j++) {
    int64_t key = int_key_at(v, j);
    least = key < least ? key : least;
    most = key > most ? key : most;
  }
  int64_t range = most - least + 1;
  if (range > 2 * len || range > COUNT_RANGE)
    return false;
  memset(count, 0, sizeof(int64_t) * (size_t)range);
  /* descending: the key's distance below the largest, ascending */
  for (int64_t j = lo; j < hi; j++)
    count[down ? most - int_key_at(v, j) : int_key_at(v, j) - least]++;
  int64_t place = 0;
  for (int64_t c = 0; c < range; c++) {
    int64_t here = count[c];
    count[c] = place;
    place += here;
  }
  for (int64_t j = lo; j < hi; j++)
    out[j] = (int32_t)count[down ? most - int_key_at(v, j) : int_key_at(v, j) - least]++;
  return true;
}

/* Where each element goes in the stable sort of its segment
   [off[k], off[k + 1]), ascending or ('down') descending: by counting
   where the keys allow it (counting_ranks), else by a merge sort of the
   element indices by their keys as doubles.  Segments are ranked in
   parallel, each by one thread (a single segment's merge sort is itself
   parallel); a segment's ranks do not depend on which thread made
   them. */
static RtValue *ranks(RtValue *v, const int64_t *off, int64_t nseg, bool down) {
  int64_t n = off[nseg];
  RtValue *r = new_vec(RT_INT, n);
  double *keys = rt_alloc_atomic(sizeof(double) * (size_t)(n + 1));
  int64_t *idx = rt_alloc_atomic(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *tmp = rt_alloc_atomic(sizeof(int64_t) * (size_t)(n + 1));
  int threads = 1;
#ifdef _OPENMP
  if (nseg > 1 && n >= 1 << 14)
    threads = omp_get_max_threads();
#endif
  /* each thread's counts, where any segment may be counted */
  int64_t *counts = NULL;
  if (int_keys(v) && n >= COUNT_MIN)
    counts = rt_alloc_atomic(sizeof(int64_t) * (size_t)COUNT_RANGE * (size_t)threads);
  RT_PRAGMA(omp parallel for schedule(dynamic, 16) num_threads(threads) if (threads > 1))
  for (int64_t k = 0; k < nseg; k++) {
    int64_t lo = off[k], hi = off[k + 1], len = hi - lo;
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num();
#endif
    if (counts && counting_ranks(v, lo, hi, down, counts + (size_t)t * COUNT_RANGE, r->data.i))
      continue;
    for (int64_t j = lo; j < hi; j++) {
      keys[j] = down ? -key_at(v, j) : key_at(v, j); /* -0.0 == 0.0: ties stay ties */
      idx[j] = j;
    }
    if (nseg == 1)
      stable_sort_parallel(keys, idx, tmp, len);
    else
      stable_sort(keys, idx + lo, tmp + lo, len);
    for (int64_t p = 0; p < len; p++)
      r->data.i[idx[lo + p]] = (int32_t)p;
  }
  rt_free(counts);
  rt_free(keys);
  rt_free(idx);
  rt_free(tmp);
  return r;
}

RtValue *rt_rank(RtValue *v, bool down) {
  int64_t off[2] = {0, v->len};
  return ranks(v, off, 1, down);
}

RtValue *rt_seg_rank(RtValue *d, RtValue *v, bool down) { return ranks(v, rt_seg_offsets(d), d->len, down); }
