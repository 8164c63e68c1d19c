/* barneshut: the accelerations of n bodies in 2D by Barnes-Hut, as
   barneshut.nesl computes them: the same quadtree (a recursion over the
   quadrants, in preorder, with the number of nodes of each subtree), the
   same stackless walk (theta 0.5, softening 1); the walks in parallel */
#include "bench.h"
typedef struct { double cx, cy, m, sz; long skip; } Node;
static long N, NN, CAP;
static double *bx, *by, *bm, *ax, *ay;
static int32_t *idx, *scratch;
static Node *nodes;

/* the subtree of the bodies idx[0..n) in the square (x0, y0, sz) */
static void build(int32_t *ix, long n, double x0, double y0, double sz) {
  long me = NN++;
  double sx = 0.0, sy = 0.0, sm = 0.0;
  for (long i = 0; i < n; i++) {
    sx += bx[ix[i]] * bm[ix[i]];
    sy += by[ix[i]] * bm[ix[i]];
    sm += bm[ix[i]];
  }
  nodes[me] = (Node){sx / sm, sy / sm, sm, sz, 1};
  if (n == 1 || sz <= 1.0) return;
  double h = 0.5 * sz;
  long counts[4] = {0, 0, 0, 0};
  for (long i = 0; i < n; i++)
    counts[2 * (by[ix[i]] >= y0 + h) + (bx[ix[i]] >= x0 + h)]++;
  /* a stable partition into the four quadrants, through the scratch array */
  long start[4] = {0, counts[0], counts[0] + counts[1], counts[0] + counts[1] + counts[2]}, at[4];
  memcpy(at, start, sizeof at);
  int32_t *tmp = scratch + (ix - idx);
  for (long i = 0; i < n; i++) tmp[at[2 * (by[ix[i]] >= y0 + h) + (bx[ix[i]] >= x0 + h)]++] = ix[i];
  memcpy(ix, tmp, sizeof(int32_t) * n);
  for (int k = 0; k < 4; k++)
    if (counts[k] > 0) build(ix + start[k], counts[k], x0 + h * (k % 2), y0 + h * (k / 2), h);
  nodes[me].skip = NN - me;
}
static void setup(long n) {
  N = n;
  double **arrays[] = {&bx, &by, &bm, &ax, &ay};
  for (int j = 0; j < 5; j++) *arrays[j] = bench_alloc(sizeof(double) * n);
  idx = bench_alloc(sizeof(int32_t) * n);
  scratch = bench_alloc(sizeof(int32_t) * n);
  CAP = (BH_LEVELS + 2) * n;
  nodes = bench_alloc(sizeof(Node) * CAP);
#pragma omp parallel for
  for (long i = 0; i < n; i++) in_bhbody((int32_t)i, &bx[i], &by[i], &bm[i]);
}
static void run(void) {
  for (long i = 0; i < N; i++) idx[i] = (int32_t)i;
  NN = 0;
  build(idx, N, 0.0, 0.0, BH_SIDE);
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < N; i++) {
    double px = bx[i], py = by[i], sx = 0.0, sy = 0.0;
    long k = 0;
    while (k < NN) {
      const Node *q = &nodes[k];
      double dx = q->cx - px, dy = q->cy - py, d2 = dx * dx + dy * dy;
      if (q->skip == 1 || q->sz * q->sz < BH_THETA2 * d2) {
        double r2 = d2 + BH_EPS2, s = q->m / (r2 * sqrt(r2));
        sx += s * dx;
        sy += s * dy;
        k += q->skip;
      } else {
        k++;
      }
    }
    ax[i] = sx;
    ay[i] = sy;
  }
}
static int check(double *v) {
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(ax[i]) + fabs(ay[i]);
  v[0] = (double)NN;
  v[1] = s;
  v[2] = ax[N / 2];
  v[3] = ay[N / 2];
  return 4;
}
static double bytes(long n) { return 40.0 * n; }
BENCH_MAIN(100000)
