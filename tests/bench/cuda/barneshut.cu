// barneshut: Barnes-Hut in 2D on the GPU, with the quadtree of
// barneshut.nesl built without recursion.  The bodies are sorted by their
// Morton codes (cub's radix sort: 20 levels of (y bit, x bit), the
// quadrant order of the NESL program), so that every node of the tree is
// a run of bodies sharing a prefix of the code.  A node starts at body i
// at level l when the run of level l starts at i and its parent run holds
// two bodies or more; the number of such levels at each body, scanned,
// gives each node its place in preorder (by first body, then by level),
// and the nodes of a subtree are those starting within its run, which
// gives the skip.  Centres of mass come from scans of x m, y m and m
// (integers: exact, so equal to NESL's sums).  Each body then walks the
// tree as the NESL program does, one thread per body in Morton order.
#include "bench.cuh"
#include <cub/cub.cuh>

struct Node {
  double cx, cy, m, sz;
  long long skip;
};

static long N;
static double *bx, *by, *bm, *ax, *ay;
static double *sx, *sy, *sm, *cx, *cy, *cm;
static unsigned long long *codes, *codes_sorted;
static int *order, *order_sorted, *starts;
static Node *nodes;
static void *temp;
static size_t temp_bytes;

__device__ static inline unsigned long long morton(double x, double y) {
  unsigned long long c = 0, ix = (unsigned long long)x, iy = (unsigned long long)y;
  for (int b = 0; b < BH_LEVELS; b++) c |= ((ix >> b) & 1ull) << (2 * b) | ((iy >> b) & 1ull) << (2 * b + 1);
  return c;
}
// the levels (of 20) on which codes a and b agree
__device__ static inline int common_levels(unsigned long long a, unsigned long long b) {
  unsigned long long d = a ^ b;
  return d == 0 ? BH_LEVELS : (__clzll((long long)d) - (64 - 2 * BH_LEVELS)) / 2;
}

static size_t temp_need(size_t have, size_t need) { return need > have ? need : have; }

static void setup(long n) {
  N = n;
  double **arrays[] = {&bx, &by, &bm, &ax, &ay, &sx, &sy, &sm};
  for (int j = 0; j < 8; j++) *arrays[j] = dalloc<double>(n);
  cx = dalloc<double>(n + 1);
  cy = dalloc<double>(n + 1);
  cm = dalloc<double>(n + 1);
  codes = dalloc<unsigned long long>(n);
  codes_sorted = dalloc<unsigned long long>(n);
  order = dalloc<int>(n);
  order_sorted = dalloc<int>(n);
  starts = dalloc<int>(n + 1);
  nodes = dalloc<Node>((size_t)(BH_LEVELS + 1) * n + 1);
  double *x = bx, *y = by, *m = bm;
  for_each(n, [=] __device__(long i) { in_bhbody((int32_t)i, &x[i], &y[i], &m[i]); });
  size_t t = 0, need = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, need, codes, codes_sorted, order, order_sorted, (int)n, 0, 2 * BH_LEVELS));
  t = temp_need(t, need);
  CK(cub::DeviceScan::InclusiveSum(nullptr, need, sx, cx + 1, (int)n));
  t = temp_need(t, need);
  CK(cub::DeviceScan::InclusiveSum(nullptr, need, starts + 1, starts + 1, (int)n));
  t = temp_need(t, need);
  temp_bytes = t;
  temp = dalloc<char>(temp_bytes);
}

static void run() {
  long n = N;
  const double *x = bx, *y = by, *m = bm;
  unsigned long long *c = codes, *cs = codes_sorted;
  int *o = order, *os = order_sorted, *st = starts;
  double *px = sx, *py = sy, *pm = sm, *qx = cx, *qy = cy, *qm = cm;
  Node *nd = nodes;
  double *pax = ax, *pay = ay;
  for_each(n, [=] __device__(long i) {
    c[i] = morton(x[i], y[i]);
    o[i] = (int)i;
  });
  CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, c, cs, o, os, (int)n, 0, 2 * BH_LEVELS));
  // the bodies in Morton order, x m, y m and m for the scans, and the
  // number of nodes starting at each body
  for_each(n, [=] __device__(long i) {
    int b = os[i];
    px[i] = x[b] * m[b];
    py[i] = y[b] * m[b];
    pm[i] = m[b];
    int before = i > 0 ? common_levels(cs[i - 1], cs[i]) : -1;
    int after = i + 1 < n ? common_levels(cs[i], cs[i + 1]) : -1;
    int top = (before > after ? before : after) + 1;
    if (top > BH_LEVELS) top = BH_LEVELS;
    st[i + 1] = top >= before + 1 ? top - before : 0;
    if (i == 0) {
      st[0] = 0;
      qx[0] = qy[0] = qm[0] = 0.0;
    }
  });
  CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, px, qx + 1, (int)n));
  CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, py, qy + 1, (int)n));
  CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, pm, qm + 1, (int)n));
  CK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, st + 1, st + 1, (int)n));
  // the nodes starting at body i, levels before + 1 to top
  for_each(n, [=] __device__(long i) {
    int before = i > 0 ? common_levels(cs[i - 1], cs[i]) : -1;
    int first = st[i], count = st[i + 1] - st[i];
    for (int k = 0; k < count; k++) {
      int l = before + 1 + k;
      // the end of the run of level l: the first body past i whose code
      // has another prefix of l levels
      long e = n;
      if (l > 0) {
        unsigned long long prefix = cs[i] >> (2 * (BH_LEVELS - l));
        long lo = i + 1, hi = n;
        while (lo < hi) {
          long mid = (lo + hi) / 2;
          if ((cs[mid] >> (2 * (BH_LEVELS - l))) == prefix) lo = mid + 1;
          else hi = mid;
        }
        e = lo;
      }
      double mass = qm[e] - qm[i];
      nd[first + k] = Node{(qx[e] - qx[i]) / mass, (qy[e] - qy[i]) / mass, mass,
                           ldexp(BH_SIDE, -l), (long long)(st[e] - (first + k))};
    }
  });
  // the walks, one thread per body in Morton order
  for_each(n, [=] __device__(long i) {
    int b = os[i];
    double bxi = x[b], byi = y[b], ex = 0.0, ey = 0.0;
    long nn = st[n], k = 0;
    while (k < nn) {
      Node q = nd[k];
      double dx = q.cx - bxi, dy = q.cy - byi, d2 = dx * dx + dy * dy;
      if (q.skip == 1 || q.sz * q.sz < BH_THETA2 * d2) {
        double r2 = d2 + BH_EPS2, s = q.m / (r2 * sqrt(r2));
        ex += s * dx;
        ey += s * dy;
        k += q.skip;
      } else {
        k++;
      }
    }
    pax[b] = ex;
    pay[b] = ey;
  });
}
static int check(double *v) {
  std::vector<double> x = to_host(ax, N), y = to_host(ay, N);
  int nn = to_host(starts + N, 1)[0];
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(x[i]) + fabs(y[i]);
  v[0] = nn;
  v[1] = s;
  v[2] = x[N / 2];
  v[3] = y[N / 2];
  return 4;
}
static double bytes(long n) { return 40.0 * n; }
BENCH_MAIN(100000)
