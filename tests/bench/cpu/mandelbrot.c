/* mandelbrot: the escape count of each pixel of a 2h by h grid */
#include "bench.h"
static int32_t W, H;
static int32_t *out;
static void setup(long n) {
  H = mandel_h(n);
  W = 2 * H;
  out = bench_alloc(sizeof(int32_t) * (size_t)W * H);
}
static void run(void) {
#pragma omp parallel for schedule(dynamic, 1)
  for (int32_t y = 0; y < H; y++)
    for (int32_t x = 0; x < W; x++) out[y * W + x] = mandel_pixel(y * W + x, W, H);
}
static int check(double *v) {
  long pixels = (long)W * H, inside = 0;
  double s = 0.0;
  for (long i = 0; i < pixels; i++) {
    s += out[i];
    inside += out[i] == MANDEL_MAXIT;
  }
  v[0] = (double)pixels;
  v[1] = s;
  v[2] = (double)inside;
  return 3;
}
static double bytes(long n) {
  (void)n;
  return 4.0 * W * H;
}
BENCH_MAIN(4000000)
