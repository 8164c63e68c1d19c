/* tests/bench/common.h: what every hand-written baseline (cpu/NAME.c, C
   with OpenMP; cuda/NAME.cu) shares: NESL's int semantics, the inputs of
   the benchmark programs (tests/bench/NAME.nesl), element by element, and
   the check values each program prints.  Plain C that nvcc also compiles
   (BENCH_HD marks what device code calls). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define BENCH_HD __host__ __device__ static inline
#else
#define BENCH_HD static inline
#endif

/* NESL ints are 32-bit and wrap (`max_int + 1 = min_int`): products and
   sums go through unsigned arithmetic, where C defines the wrap. */
BENCH_HD int32_t nesl_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
BENCH_HD int32_t nesl_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
/* mod is floored: mod(-7, 2) = 1 */
BENCH_HD int32_t nesl_mod(int32_t a, int32_t b) {
  int32_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* i * a + b, mod m: the pseudo-random pattern of the inputs */
BENCH_HD int32_t lin_mod(int32_t i, int32_t a, int32_t b, int32_t m) {
  return nesl_mod(nesl_add(nesl_mul(i, a), b), m);
}

/* sum, norm2: float(mod(i * 7919, 1000)) * 0.001 (norm2: - 0.5) */
BENCH_HD double in_sum(int32_t i) { return (double)lin_mod(i, 7919, 0, 1000) * 0.001; }
BENCH_HD double in_norm2(int32_t i) { return (double)lin_mod(i, 7919, 0, 1000) * 0.001 - 0.5; }
/* dotp: the second vector */
BENCH_HD double in_dotp_b(int32_t i) { return (double)lin_mod(i, 104729, 0, 997) * 0.002; }
/* muladd: fvec(n, s) */
BENCH_HD double in_fvec(int32_t i, int32_t s) { return (double)lin_mod(i, 29, s, 61) * 0.25 - 7.5; }
/* sumlogs */
BENCH_HD double in_sumlogs(int32_t i) { return 1.0 + (double)lin_mod(i, 7919, 0, 1000) * 0.5; }
/* blackscholes: the option i */
BENCH_HD void in_option(int32_t i, double *s, double *k, double *r, double *v, double *tm) {
  *s = 20.0 + (double)lin_mod(i, 37, 0, 81);
  *k = 25.0 + (double)lin_mod(i, 53, 0, 71);
  *r = 0.01 + 0.001 * (double)nesl_mod(i, 50);
  *v = 0.1 + 0.01 * (double)lin_mod(i, 7, 0, 40);
  *tm = 0.25 + 0.25 * (double)lin_mod(i, 3, 0, 8);
}
BENCH_HD double bs_cnd(double x) {
  double l = fabs(x);
  double k = 1.0 / (1.0 + 0.2316419 * l);
  double poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  double w = 1.0 - exp(-0.5 * l * l) / sqrt(2.0 * 3.141592653589793) * poly;
  return x < 0.0 ? 1.0 - w : w;
}
BENCH_HD void black_scholes(double s, double k, double r, double v, double tm, double *call, double *put) {
  double sqt = sqrt(tm);
  double d1 = (log(s / k) + (r + 0.5 * v * v) * tm) / (v * sqt);
  double d2 = d1 - v * sqt;
  double disc = k * exp(-r * tm);
  *call = s * bs_cnd(d1) - disc * bs_cnd(d2);
  *put = disc * bs_cnd(-d2) - s * bs_cnd(-d1);
}
/* spmv: row i has rowlen(i) entries (base + 61 k, value) */
BENCH_HD int32_t spmv_rowlen(int32_t i) { return nesl_mod(lin_mod(i, 7919, 0, 65521), 17); }
BENCH_HD int32_t spmv_col(int32_t i, int32_t k, int32_t n) { return lin_mod(i, 104729, 7, n - 1000) + 61 * k; }
BENCH_HD double spmv_val(int32_t i, int32_t k) { return (double)(nesl_mod(i + 3 * k, 10) - 4) * 0.5; }
BENCH_HD double spmv_x(int32_t j) { return (double)lin_mod(j, 5, 0, 7) - 1.0; }
/* quicksort, radixsort */
BENCH_HD int32_t in_sortkey(int32_t i) { return nesl_add(nesl_mul(lin_mod(i, 7919, 13, 1000003), 17), nesl_mod(i, 17)); }
/* quickhull: the point i, moved halfway in when outside the disc */
BENCH_HD void in_hullpoint(int32_t i, double *x, double *y) {
  double px = (double)(lin_mod(i, 7919, 13, 1000003) - 500001);
  double py = (double)(lin_mod(i, 104729, 7, 999983) - 499991);
  if (px * px + py * py > 250000000000.0) { px = 0.5 * px; py = 0.5 * py; }
  *x = px;
  *y = py;
}
BENCH_HD double hull_cross(double ox, double oy, double x1, double y1, double x2, double y2) {
  return (x1 - ox) * (y2 - oy) - (y1 - oy) * (x2 - ox);
}
/* mandelbrot: a 2h by h grid, h = isqrt(n / 2), at most 256 iterations */
#define MANDEL_MAXIT 256
static inline int32_t mandel_h(int64_t n) {
  int64_t h = (int64_t)sqrt((double)(n / 2));
  while (h * h > n / 2) h--;
  while ((h + 1) * (h + 1) <= n / 2) h++;
  return (int32_t)h;
}
BENCH_HD int32_t mandel_escape(double cr, double ci) {
  double zr = 0.0, zi = 0.0;
  int32_t k = 0;
  while (!(k >= MANDEL_MAXIT || zr * zr + zi * zi > 4.0)) {
    double nr = zr * zr - zi * zi + cr;
    double ni = 2.0 * zr * zi + ci;
    zr = nr;
    zi = ni;
    k++;
  }
  return k;
}
BENCH_HD int32_t mandel_pixel(int32_t i, int32_t w, int32_t h) {
  double dx = 3.0 / (double)w, dy = 2.25 / (double)h;
  return mandel_escape(-2.25 + dx * (double)(i % w), -1.125 + dy * (double)(i / w));
}
/* nbody: 3D positions and masses; softening 0.01 */
#define NBODY_EPS2 0.01
BENCH_HD void in_body(int32_t i, double *x, double *y, double *z, double *m) {
  *x = (double)lin_mod(i, 37, 0, 101) * 0.1 - 5.0;
  *y = (double)lin_mod(i, 53, 7, 103) * 0.1 - 5.0;
  *z = (double)lin_mod(i, 71, 3, 107) * 0.1 - 5.0;
  *m = 1.0 + (double)nesl_mod(i, 3);
}
/* barneshut: 2D integer positions below 2^20, masses 1 to 3 */
#define BH_SIDE 1048576.0
#define BH_LEVELS 20
#define BH_THETA2 0.25
#define BH_EPS2 1.0
BENCH_HD void in_bhbody(int32_t i, double *x, double *y, double *m) {
  *x = (double)lin_mod(i, 7919, 13, 1000003);
  *y = (double)lin_mod(i, 104729, 7, 999983);
  *m = (double)(1 + nesl_mod(i, 3));
}

/* ---- check values: what NAME.nesl's check(r) prints ---- */
#define CHECK_MAX 8

/* quicksort and radixsort: the length, three elements, the descents and
   the sum of the keys mod 1000 */
static inline int sort_check(const int32_t *a, long n, double *v) {
  long descents = 0;
  double s = 0.0;
  for (long i = 0; i < n; i++) {
    if (i + 1 < n && a[i] > a[i + 1]) descents++;
    s += (double)nesl_mod(a[i], 1000);
  }
  v[0] = (double)n;
  v[1] = a[0];
  v[2] = a[n / 2];
  v[3] = a[n - 1];
  v[4] = (double)descents;
  v[5] = s;
  return 6;
}
#endif
