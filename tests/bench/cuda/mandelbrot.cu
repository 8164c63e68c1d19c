// mandelbrot: one thread per pixel, escape counts as ints
#include "bench.cuh"
static int32_t W, H;
static int32_t *out;
static void setup(long n) {
  H = mandel_h(n);
  W = 2 * H;
  out = dalloc<int32_t>((size_t)W * H);
}
__global__ void mandel_kernel(int32_t w, int32_t h, int32_t *out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < (long)w * h) out[i] = mandel_pixel((int32_t)i, w, h);
}
static void run() {
  long pixels = (long)W * H;
  mandel_kernel<<<(unsigned)((pixels + 255) / 256), 256>>>(W, H, out);
  CK(cudaGetLastError());
}
static int check(double *v) {
  long pixels = (long)W * H, inside = 0;
  std::vector<int32_t> o = to_host(out, pixels);
  double s = 0.0;
  for (long i = 0; i < pixels; i++) {
    s += o[i];
    inside += o[i] == MANDEL_MAXIT;
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
