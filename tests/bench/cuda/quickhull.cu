// quickhull: the convex hull of n points on the GPU, every edge of one
// level of the recursion at once, as quickhull.nesl's flattened program
// works, but by hand.  The points still in play carry the slot of their
// edge, and are those strictly left of it.  Per level: the cross products
// and each slot's largest (atomicMax on the bits of a positive double),
// the first point with it (atomicMin on the position: the points keep
// their order, so this is NESL's max_index), then each point goes to the
// one new edge it is strictly left of, or is dropped (cub's
// DeviceSelect::Flagged, stable).  The host keeps the edges in hull order:
// an edge whose slot has no point left gives its first end to the hull.
#include "bench.cuh"
#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>

struct Pt {
  double x, y;
  int seg;
};
struct Seg {
  double ax, ay, bx, by;
};
struct Far {
  double x, y;
  int found;
};
struct Edge {
  double ax, ay, bx, by;
  int slot; // -1: final
};

static long N;
static Pt *pts, *cur, *tmp;
static unsigned char *flags;
static double *cr;
static unsigned long long *best;
static int *bestpos, *remap, *count;
static Seg *segs, *segs_next;
static Far *far;
static void *temp;
static size_t temp_bytes;
static std::vector<Edge> hull_edges;

static void setup(long n) {
  N = n;
  pts = dalloc<Pt>(n);
  cur = dalloc<Pt>(n);
  tmp = dalloc<Pt>(n);
  flags = dalloc<unsigned char>(n);
  cr = dalloc<double>(n);
  // at most n points are in play, so at most 2n slots
  best = dalloc<unsigned long long>(2 * n + 2);
  bestpos = dalloc<int>(2 * n + 2);
  remap = dalloc<int>(2 * n + 2);
  segs = dalloc<Seg>(2 * n + 2);
  segs_next = dalloc<Seg>(2 * n + 2);
  far = dalloc<Far>(2 * n + 2);
  count = dalloc<int>(1);
  Pt *p = pts;
  for_each(n, [=] __device__(long i) {
    in_hullpoint((int32_t)i, &p[i].x, &p[i].y);
    p[i].seg = 0;
  });
  CK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, tmp, flags, cur, count, (int)n));
  temp = dalloc<char>(temp_bytes);
}

// keeps the flagged points of tmp in cur, in order; their number
static int select_flagged(int m) {
  CK(cub::DeviceSelect::Flagged(temp, temp_bytes, tmp, flags, cur, count, m));
  int kept;
  CK(cudaMemcpy(&kept, count, sizeof kept, cudaMemcpyDeviceToHost));
  return kept;
}

struct LessX {
  __device__ bool operator()(const Pt &a, const Pt &b) const { return a.x < b.x; }
};

static void run() {
  const Pt *minp = thrust::min_element(thrust::device, pts, pts + N, LessX());
  const Pt *maxp = thrust::max_element(thrust::device, pts, pts + N, LessX());
  Pt lo, hi;
  CK(cudaMemcpy(&lo, minp, sizeof lo, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hi, maxp, sizeof hi, cudaMemcpyDeviceToHost));
  // hsplit(points, maxx, minx) ++ hsplit(points, minx, maxx)
  std::vector<Edge> edges = {{hi.x, hi.y, lo.x, lo.y, 0}, {lo.x, lo.y, hi.x, hi.y, 1}};
  std::vector<Seg> table = {{hi.x, hi.y, lo.x, lo.y}, {lo.x, lo.y, hi.x, hi.y}};
  CK(cudaMemcpyAsync(segs, table.data(), sizeof(Seg) * 2, cudaMemcpyHostToDevice));
  {
    const Pt *p = pts;
    Pt *t = tmp;
    unsigned char *fl = flags;
    const Seg *sg = segs;
    for_each(N, [=] __device__(long i) {
      Pt q = p[i];
      bool up = hull_cross(q.x, q.y, sg[0].ax, sg[0].ay, sg[0].bx, sg[0].by) > 0.0;
      bool down = hull_cross(q.x, q.y, sg[1].ax, sg[1].ay, sg[1].bx, sg[1].by) > 0.0;
      q.seg = up ? 0 : 1;
      t[i] = q;
      fl[i] = up || down;
    });
  }
  int m = select_flagged((int)N);
  int slots = 2;
  std::vector<int> host_remap;
  std::vector<Far> host_far;
  while (m > 0) {
    CK(cudaMemsetAsync(best, 0, sizeof(unsigned long long) * slots));
    CK(cudaMemsetAsync(bestpos, 0x7f, sizeof(int) * slots));
    const Pt *c = cur;
    const Seg *sg = segs;
    double *pcr = cr;
    unsigned long long *pb = best;
    int *pbp = bestpos;
    Far *pf = far;
    for_each(m, [=] __device__(long i) {
      Pt q = c[i];
      Seg s = sg[q.seg];
      double v = hull_cross(q.x, q.y, s.ax, s.ay, s.bx, s.by);
      pcr[i] = v;
      atomicMax(&pb[q.seg], (unsigned long long)__double_as_longlong(v));
    });
    for_each(m, [=] __device__(long i) {
      int s = c[i].seg;
      if ((unsigned long long)__double_as_longlong(pcr[i]) == pb[s]) atomicMin(&pbp[s], (int)i);
    });
    for_each(slots, [=] __device__(long s) {
      int at = pbp[s];
      pf[s] = at < 0x7f7f7f7f ? Far{c[at].x, c[at].y, 1} : Far{0.0, 0.0, 0};
    });
    host_far.resize(slots);
    CK(cudaMemcpy(host_far.data(), far, sizeof(Far) * slots, cudaMemcpyDeviceToHost));
    // the next level's edges, in hull order
    std::vector<Edge> next;
    table.clear();
    host_remap.assign(slots, -1);
    for (const Edge &e : edges) {
      if (e.slot < 0 || !host_far[e.slot].found) {
        next.push_back({e.ax, e.ay, e.bx, e.by, -1});
        continue;
      }
      const Far &f = host_far[e.slot];
      int r = (int)table.size() / 2;
      host_remap[e.slot] = r;
      next.push_back({e.ax, e.ay, f.x, f.y, 2 * r});
      next.push_back({f.x, f.y, e.bx, e.by, 2 * r + 1});
      table.push_back({e.ax, e.ay, f.x, f.y});
      table.push_back({f.x, f.y, e.bx, e.by});
    }
    edges.swap(next);
    int old_slots = slots;
    slots = (int)table.size();
    // the points of slot s go to one of the two edges of s, or are dropped
    CK(cudaMemcpyAsync(segs_next, table.data(), sizeof(Seg) * slots, cudaMemcpyHostToDevice));
    CK(cudaMemcpyAsync(remap, host_remap.data(), sizeof(int) * old_slots, cudaMemcpyHostToDevice));
    Pt *t = tmp;
    unsigned char *fl = flags;
    const int *rm = remap;
    for_each(m, [=] __device__(long i) {
      Pt q = c[i];
      Seg s = sg[q.seg];
      Far f = pf[q.seg];
      int r = rm[q.seg];
      bool left = hull_cross(q.x, q.y, s.ax, s.ay, f.x, f.y) > 0.0;
      bool right = hull_cross(q.x, q.y, f.x, f.y, s.bx, s.by) > 0.0;
      q.seg = left ? 2 * r : 2 * r + 1;
      t[i] = q;
      fl[i] = left || right;
    });
    m = select_flagged(m);
    std::swap(segs, segs_next);
  }
  hull_edges.swap(edges);
}
static int check(double *v) {
  double sx = 0.0, sy = 0.0;
  for (const Edge &e : hull_edges) {
    sx += e.ax;
    sy += e.ay;
  }
  v[0] = (double)hull_edges.size();
  v[1] = sx;
  v[2] = sy;
  v[3] = hull_edges[0].ax;
  v[4] = hull_edges[0].ay;
  return 5;
}
static double bytes(long n) { return 16.0 * n; }
BENCH_MAIN(1000000)
