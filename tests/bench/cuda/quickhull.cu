// quickhull: the convex hull of n points on the GPU, every edge of one
// level of the recursion at once, as quickhull.nesl's flattened program
// works, but by hand.  The points still in play (x, y, the slot of the
// edge they are strictly left of, and their cross product with it) are
// kept grouped: each slot's points are one run, in the input's order, and
// the runs are in hull order.  The hull so far is a list of vertices in
// hull order, each with the slot of the edge leaving it, or none (a hull
// edge).  The first of the smallest and of the largest x come from one
// CUB reduction; the first level is one slot, the edge (maxx, maxx) whose
// farthest point is minx, so that it splits into NESL's
// hsplit(points, maxx, minx) ++ hsplit(points, minx, maxx).  Per level:
//  - each slot's farthest point, the first with the largest cross
//    product (NESL's max_index: the positions keep the input's order):
//    cub::DeviceReduce::ReduceByKey keyed by slot, the maximum of the
//    cross products, then the least position holding it.  Two passes over
//    primitive types, which CUB has tunings for: over a struct it takes
//    two or three items a thread, and one pass over (counts, both arg-maxes) took
//    six times as long as these two on an H200.  ReduceByKey balances the
//    load whatever the slots' sizes (a segmented reduce gives a segment
//    one block: at the top levels, two or four segments of millions of
//    points), and there are no atomics.
//  - each point goes to the new edge (a, f) or (f, b) it is strictly left
//    of, or is dropped: a scan of (left, right) counts packed in 64 bits
//    (cub::DeviceScan), then one scatter, a stable segmented partition:
//    each slot's left points, then its right points, each in order.
//    (DeviceSelect and DevicePartition are stable but not segmented: a
//    selection would interleave a slot's two new runs, and a three-way
//    partition puts them in two arrays, the second at an offset that
//    only the device knows.)
//  - a scan over the vertices (cub::DeviceScan) places the two new edges
//    of each split edge after it, an edge with no point being final
//    (NESL's [p1]), and numbers the new slots in hull order; the scan of
//    the points at the slots' ends gives their counts and new offsets.
//  - the counts the host needs to size the next level (points, slots,
//    vertices) stay on the device until the level is enqueued: one read
//    back of 16 bytes a level, which also says when to stop.
// The hull stays on the device (check copies it back).
#include "bench.cuh"
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <algorithm>
#include <cfloat>
#include <climits>
#if CUB_VERSION >= 200800
#include <cuda/functional>
using MaxOp = cuda::maximum<>;
using MinOp = cuda::minimum<>;
#else
using MaxOp = cub::Max;
using MinOp = cub::Min;
#endif

// the points in play, a structure of arrays: c is the cross product with
// the edge of the slot
struct Pts {
  double *x, *y, *c;
  int *slot;
};
// the edge (a, b) of a slot
struct Edge {
  double ax, ay, bx, by;
};
// a hull vertex and the slot of the edge leaving it (-1: a hull edge)
struct Vtx {
  double x, y;
  int slot;
};
// where an old slot's points go: the new slot and the base of each side
struct Move {
  int lslot, rslot, lbase, rbase;
};
// what the host reads back once a level (runs: this level's, a check)
struct Counts {
  int m, slots, verts, runs;
};
// the first of the smallest x and the first of the largest
struct Ext {
  double lo;
  int ilo;
  double hi;
  int ihi;
};
// what one level reads: the points, each slot's edge and farthest point
// (its position in p)
struct Level {
  Pts p;
  const Edge *edge;
  const int *far;
};

// 1: point i is strictly left of (a, f); 2: strictly left of (f, b); 0:
// neither.  *c: its cross product with that edge.  The coordinates are
// integers or halves below 2^20, so the cross products are exact,
// whatever the contraction into multiply-adds.
__host__ __device__ static inline int side(const Level &lv, int i, double *c) {
  int s = lv.p.slot[i], f = lv.far[s];
  Edge e = lv.edge[s];
  double x = lv.p.x[i], y = lv.p.y[i], fx = lv.p.x[f], fy = lv.p.y[f];
  double l = hull_cross(x, y, e.ax, e.ay, fx, fy);
  if (l > 0.0) {
    *c = l;
    return 1;
  }
  double r = hull_cross(x, y, fx, fy, e.bx, e.by);
  *c = r;
  return r > 0.0 ? 2 : 0;
}
// the halves of a packed pair of counts, (left, right) points or
// (vertices, slots): the first in the high 32 bits
__host__ __device__ static inline int hi32(unsigned long long v) { return (int)(v >> 32); }
__host__ __device__ static inline int lo32(unsigned long long v) { return (int)(v & 0xffffffffu); }

struct ExtOf {
  const double *x;
  __host__ __device__ Ext operator()(int i) const { return {x[i], i, x[i], i}; }
};
struct ExtOp {
  __host__ __device__ Ext operator()(const Ext &a, const Ext &b) const {
    bool lo = b.lo < a.lo || (b.lo == a.lo && b.ilo < a.ilo);
    bool hi = b.hi > a.hi || (b.hi == a.hi && b.ihi < a.ihi);
    return {lo ? b.lo : a.lo, lo ? b.ilo : a.ilo, hi ? b.hi : a.hi, hi ? b.ihi : a.ihi};
  }
};
// i where the cross product is its slot's largest, else INT_MAX
struct TieOf {
  Pts p;
  const double *best;
  __host__ __device__ int operator()(int i) const { return p.c[i] == best[p.slot[i]] ? i : INT_MAX; }
};
// point i's (left, right) count; 0 at i = m, where the scan ends
struct SideOf {
  Level lv;
  int m;
  __host__ __device__ unsigned long long operator()(int i) const {
    double c;
    int d = i < m ? side(lv, i, &c) : 0;
    return d == 1 ? 1ull << 32 : d == 2 ? 1ull : 0ull;
  }
};
// vertex e's share of the next level: (vertices, slots)
struct VtxOf {
  const Vtx *v;
  const int *off;
  const unsigned long long *pre;
  __host__ __device__ unsigned long long operator()(int e) const {
    int s = v[e].slot;
    if (s < 0) return 1ull << 32;
    unsigned long long p0 = pre[off[s]], p1 = pre[off[s + 1]];
    return 2ull << 32 | (unsigned)((hi32(p1) > hi32(p0)) + (lo32(p1) > lo32(p0)));
  }
};

static long N;
static Pts in, buf[2];
static Edge *edges[2];
static int *offs[2];
static Vtx *verts[2];
static double *best;
static int *far, *run_keys, *nruns;
static unsigned long long *pt_pre, *vtx_pre;
static Move *moves;
static Ext *ext;
static Counts *counts, *counts_host;
static void *temp;
static size_t temp_bytes;
static const Vtx *hull;
static int hull_n;

// f(0), f(1), ... as an iterator
template <class F> static auto over(F f) {
  return thrust::make_transform_iterator(thrust::counting_iterator<int>(0), f);
}
// the CUB calls of run(), given their temp storage (nullptr: only the
// size is asked)
static cudaError_t find_ext(void *t, size_t &b, int n) {
  return cub::DeviceReduce::Reduce(t, b, over(ExtOf{in.x}), ext, n, ExtOp(), Ext{DBL_MAX, INT_MAX, -DBL_MAX, INT_MAX});
}
static cudaError_t find_best(void *t, size_t &b, Pts p, int m) {
  return cub::DeviceReduce::ReduceByKey(t, b, p.slot, run_keys, p.c, best, nruns, MaxOp(), m);
}
static cudaError_t find_far(void *t, size_t &b, Pts p, int m) {
  return cub::DeviceReduce::ReduceByKey(t, b, p.slot, run_keys, over(TieOf{p, best}), far, nruns, MinOp(), m);
}
static cudaError_t rank_points(void *t, size_t &b, Level lv, int m) {
  return cub::DeviceScan::ExclusiveSum(t, b, over(SideOf{lv, m}), pt_pre, m + 1);
}
static cudaError_t place_verts(void *t, size_t &b, const Vtx *v, const int *off, int nv) {
  return cub::DeviceScan::ExclusiveSum(t, b, over(VtxOf{v, off, pt_pre}), vtx_pre, nv);
}
// runs one of them in the temp storage of setup, which must hold it
template <class F> static void with_temp(F f) {
  size_t need = 0;
  CK(f(nullptr, need));
  if (need > temp_bytes) {
    fprintf(stderr, "quickhull: CUB needs %zu bytes of temp storage, setup gave %zu\n", need, temp_bytes);
    exit(3);
  }
  CK(f(temp, need));
}

static Pts dalloc_pts(long n) { return {dalloc<double>(n), dalloc<double>(n), dalloc<double>(n), dalloc<int>(n)}; }

static void setup(long n) {
  N = n;
  in = dalloc_pts(n);
  buf[0] = dalloc_pts(n);
  buf[1] = dalloc_pts(n);
  // each slot has a point in play; the vertices are distinct points (or
  // maxx twice, when every x is the same)
  for (int k = 0; k < 2; k++) {
    edges[k] = dalloc<Edge>(n + 1);
    offs[k] = dalloc<int>(n + 2);
    verts[k] = dalloc<Vtx>(n + 2);
  }
  best = dalloc<double>(n + 1);
  far = dalloc<int>(n + 1);
  run_keys = dalloc<int>(n + 1);
  nruns = dalloc<int>(1);
  pt_pre = dalloc<unsigned long long>(n + 1);
  vtx_pre = dalloc<unsigned long long>(n + 2);
  moves = dalloc<Move>(n + 1);
  ext = dalloc<Ext>(1);
  counts = dalloc<Counts>(1);
  CK(cudaMallocHost(&counts_host, sizeof(Counts)));
  Pts p = in;
  for_each(n, [=] __device__(long i) {
    in_hullpoint((int32_t)i, &p.x[i], &p.y[i]);
    p.c[i] = 0.0;
    p.slot[i] = 0;
  });
  // the temp storage of the largest level: n points, n + 2 vertices
  Level lv = {in, edges[0], far};
  size_t b[5] = {0, 0, 0, 0, 0};
  CK(find_ext(nullptr, b[0], (int)n));
  CK(find_best(nullptr, b[1], in, (int)n));
  CK(find_far(nullptr, b[2], in, (int)n));
  CK(rank_points(nullptr, b[3], lv, (int)n));
  CK(place_verts(nullptr, b[4], verts[0], offs[0], (int)n + 2));
  temp_bytes = *std::max_element(b, b + 5);
  temp = dalloc<char>(temp_bytes);
}

static void run() {
  // the first level: one slot, the edge (maxx, maxx), farthest point minx
  with_temp([&](void *t, size_t &b) { return find_ext(t, b, (int)N); });
  {
    const double *x = in.x, *y = in.y;
    const Ext *e = ext;
    Edge *ed = edges[0];
    Vtx *v = verts[0];
    int *off = offs[0], *fa = far, n = (int)N;
    for_each(1, [=] __device__(long) {
      double hx = x[e->ihi], hy = y[e->ihi];
      ed[0] = {hx, hy, hx, hy};
      fa[0] = e->ilo;
      off[0] = 0;
      off[1] = n;
      v[0] = {hx, hy, 0};
    });
  }
  int m = (int)N, ns = 1, nv = 1, k = 0;
  Level lv = {in, edges[0], far};
  for (bool first = true; ns > 0; first = false) {
    Pts p = lv.p, q = buf[k];
    const Vtx *v = verts[k];
    const int *off = offs[k];
    Vtx *v_next = verts[k ^ 1];
    Edge *e_next = edges[k ^ 1];
    int *off_next = offs[k ^ 1];
    // each slot's farthest point (the first level's is minx)
    if (!first) {
      with_temp([&](void *t, size_t &b) { return find_best(t, b, p, m); });
      with_temp([&](void *t, size_t &b) { return find_far(t, b, p, m); });
    }
    // the points before each on either side
    with_temp([&](void *t, size_t &b) { return rank_points(t, b, lv, m); });
    // the new vertices, edges and slots in hull order
    with_temp([&](void *t, size_t &b) { return place_verts(t, b, v, off, nv); });
    {
      const Edge *ed = lv.edge;
      const int *fa = far, *runs = nruns;
      const unsigned long long *ppre = pt_pre, *vpre = vtx_pre;
      Move *mv = moves;
      Counts *cn = counts;
      int last = nv - 1, ns_now = ns, mm = m;
      bool checked = !first;
      for_each(nv, [=] __device__(long e) {
        Vtx u = v[e];
        unsigned long long at = vpre[e];
        int vb = hi32(at), sb = lo32(at);
        if (u.slot < 0) {
          v_next[vb] = u;
        } else {
          int s = u.slot;
          Edge g = ed[s];
          double fx = p.x[fa[s]], fy = p.y[fa[s]];
          unsigned long long p0 = ppre[off[s]], p1 = ppre[off[s + 1]];
          int nl = hi32(p1) - hi32(p0), nr = lo32(p1) - lo32(p0), base = hi32(p0) + lo32(p0);
          int ls = nl > 0 ? sb : -1, rs = nr > 0 ? sb + (nl > 0) : -1;
          v_next[vb] = {u.x, u.y, ls};
          v_next[vb + 1] = {fx, fy, rs};
          if (ls >= 0) {
            e_next[ls] = {g.ax, g.ay, fx, fy};
            off_next[ls] = base;
          }
          if (rs >= 0) {
            e_next[rs] = {fx, fy, g.bx, g.by};
            off_next[rs] = base + nl;
          }
          // a left point's place: the right points of the slots before,
          // plus its rank among all left points; a right point's: the
          // left points up to this slot's end, plus its rank among the
          // right points
          mv[s] = {ls, rs, lo32(p0), hi32(p1)};
          at += 2ull << 32 | (unsigned)((nl > 0) + (nr > 0));
        }
        if (e == last) {
          if (u.slot < 0) at += 1ull << 32;
          int m_next = hi32(ppre[mm]) + lo32(ppre[mm]);
          off_next[lo32(at)] = m_next;
          *cn = {m_next, lo32(at), hi32(at), checked ? *runs : ns_now};
        }
      });
    }
    // the stable segmented partition of the points
    {
      const unsigned long long *ppre = pt_pre;
      const Move *mv = moves;
      Level l = lv;
      for_each(m, [=] __device__(long i) {
        double c;
        int d = side(l, (int)i, &c);
        if (d == 0) return;
        Move w = mv[l.p.slot[i]];
        unsigned long long at = ppre[i];
        int j = d == 1 ? w.lbase + hi32(at) : w.rbase + lo32(at);
        q.x[j] = l.p.x[i];
        q.y[j] = l.p.y[i];
        q.c[j] = c;
        q.slot[j] = d == 1 ? w.lslot : w.rslot;
      });
    }
    // the one read back of the level
    CK(cudaMemcpyAsync(counts_host, counts, sizeof(Counts), cudaMemcpyDeviceToHost));
    CK(cudaStreamSynchronize(0));
    if (counts_host->runs != ns) {
      fprintf(stderr, "quickhull: %d runs of points for %d slots\n", counts_host->runs, ns);
      exit(3);
    }
    m = counts_host->m;
    ns = counts_host->slots;
    nv = counts_host->verts;
    k ^= 1;
    lv = {q, edges[k], far};
  }
  hull = verts[k];
  hull_n = nv;
}
static int check(double *v) {
  std::vector<Vtx> h = to_host(hull, hull_n);
  double sx = 0.0, sy = 0.0;
  for (const Vtx &u : h) {
    sx += u.x;
    sy += u.y;
  }
  v[0] = (double)h.size();
  v[1] = sx;
  v[2] = sy;
  v[3] = h[0].x;
  v[4] = h[0].y;
  return 5;
}
static double bytes(long n) { return 16.0 * n; }
BENCH_MAIN(1000000)
