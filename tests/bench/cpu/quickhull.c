/* quickhull: the convex hull of n points, as quickhull.nesl computes it
   (the same points, the same farthest point on ties: the first).  The
   filter of a large point set runs in parallel (each thread its block,
   then the blocks are concatenated in order); the recursion is
   sequential, as the sets shrink fast. */
#include "bench.h"
typedef struct { double x, y; } Pt;
static long N;
static Pt *pts;
static Pt *hull;
static long nhull;

typedef struct { Pt *v; long n, cap; } PtList;
static void push(PtList *l, Pt p) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->v = realloc(l->v, sizeof(Pt) * l->cap);
  }
  l->v[l->n++] = p;
}

/* the points of p[0..n) strictly left of (a, b), in order, into out
   (allocated); their number; the index of the farthest in *best */
static long keep_left(const Pt *p, long n, Pt a, Pt b, Pt *out, long *best) {
  long kept = 0, bi = -1;
  double bc = 0.0;
  if (n < 65536) {
    for (long i = 0; i < n; i++) {
      double c = hull_cross(p[i].x, p[i].y, a.x, a.y, b.x, b.y);
      if (c > 0.0) {
        if (c > bc) { bc = c; bi = kept; }
        out[kept++] = p[i];
      }
    }
  } else {
    /* each thread filters its block, then the blocks are concatenated */
    int maxt = omp_get_max_threads(), nt = 1;
    long counts[maxt + 1], bests[maxt];
    double bcs[maxt];
#pragma omp parallel num_threads(maxt)
    {
      int t = omp_get_thread_num();
#pragma omp single
      nt = omp_get_num_threads();
      long lo = n * t / nt, hi = n * (t + 1) / nt, c0 = 0, b0 = -1;
      double v0 = 0.0;
      for (long i = lo; i < hi; i++) {
        double c = hull_cross(p[i].x, p[i].y, a.x, a.y, b.x, b.y);
        if (c > 0.0) {
          if (c > v0) { v0 = c; b0 = c0; }
          c0++;
        }
      }
      counts[t + 1] = c0;
      bests[t] = b0;
      bcs[t] = v0;
#pragma omp barrier
#pragma omp single
      {
        counts[0] = 0;
        for (int u = 0; u < nt; u++) counts[u + 1] += counts[u];
      }
      long o = counts[t];
      for (long i = lo; i < hi; i++)
        if (hull_cross(p[i].x, p[i].y, a.x, a.y, b.x, b.y) > 0.0) out[o++] = p[i];
    }
    kept = counts[nt];
    for (int u = 0; u < nt; u++) /* the first of the farthest */
      if (bests[u] >= 0 && bcs[u] > bc) { bc = bcs[u]; bi = counts[u] + bests[u]; }
  }
  *best = bi;
  return kept;
}

/* hsplit(points, a, b) of quickhull.nesl, appended to out */
static void hsplit(const Pt *p, long n, Pt a, Pt b, PtList *out) {
  Pt *packed = bench_alloc(sizeof(Pt) * (n ? n : 1));
  long best, m = keep_left(p, n, a, b, packed, &best);
  if (m == 0) {
    push(out, a);
  } else {
    Pt pm = packed[best];
    hsplit(packed, m, a, pm, out);
    hsplit(packed, m, pm, b, out);
  }
  free(packed);
}

static void setup(long n) {
  N = n;
  pts = bench_alloc(sizeof(Pt) * n);
#pragma omp parallel for
  for (long i = 0; i < n; i++) in_hullpoint((int32_t)i, &pts[i].x, &pts[i].y);
}
static void run(void) {
  long mi = 0, ma = 0;
  for (long i = 1; i < N; i++) { /* the first of the smallest and of the largest x */
    if (pts[i].x < pts[mi].x) mi = i;
    if (pts[i].x > pts[ma].x) ma = i;
  }
  PtList h = {0};
  hsplit(pts, N, pts[ma], pts[mi], &h);
  hsplit(pts, N, pts[mi], pts[ma], &h);
  free(hull);
  hull = h.v;
  nhull = h.n;
}
static int check(double *v) {
  double sx = 0.0, sy = 0.0;
  for (long i = 0; i < nhull; i++) {
    sx += hull[i].x;
    sy += hull[i].y;
  }
  v[0] = (double)nhull;
  v[1] = sx;
  v[2] = sy;
  v[3] = hull[0].x;
  v[4] = hull[0].y;
  return 5;
}
static double bytes(long n) { return 16.0 * n; }
BENCH_MAIN(1000000)
