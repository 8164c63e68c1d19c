/* nbody: the accelerations of n bodies in 3D, all pairs, softened */
#include "bench.h"
static long N;
static double *px, *py, *pz, *pm, *ax, *ay, *az;
static void setup(long n) {
  N = n;
  double **arrays[] = {&px, &py, &pz, &pm, &ax, &ay, &az};
  for (int j = 0; j < 7; j++) *arrays[j] = bench_alloc(sizeof(double) * n);
  for (long i = 0; i < n; i++) in_body((int32_t)i, &px[i], &py[i], &pz[i], &pm[i]);
}
static void run(void) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < N; i++) {
    double sx = 0.0, sy = 0.0, sz = 0.0;
    for (long j = 0; j < N; j++) {
      double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
      double r2 = dx * dx + dy * dy + dz * dz + NBODY_EPS2;
      double s = pm[j] / (r2 * sqrt(r2));
      sx += s * dx;
      sy += s * dy;
      sz += s * dz;
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
  }
}
static int check(double *v) {
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(ax[i]) + fabs(ay[i]) + fabs(az[i]);
  v[0] = s;
  v[1] = ax[N / 2];
  v[2] = ay[N / 2];
  v[3] = az[N / 2];
  return 4;
}
static double bytes(long n) { return 56.0 * n; }
BENCH_MAIN(10000)
