// nbody: all pairs in 3D, the bodies staged through shared memory 256 at
// a time
#include "bench.cuh"
static long N;
static double *px, *py, *pz, *pm, *ax, *ay, *az;
static void setup(long n) {
  N = n;
  double **arrays[] = {&px, &py, &pz, &pm, &ax, &ay, &az};
  for (int j = 0; j < 7; j++) *arrays[j] = dalloc<double>(n);
  double *x = px, *y = py, *z = pz, *m = pm;
  for_each(n, [=] __device__(long i) { in_body((int32_t)i, &x[i], &y[i], &z[i], &m[i]); });
}
struct __align__(16) Body {
  double x, y, z, w;
};
// 32 bodies a block of 256 threads: 8 threads a body, each over every
// 8th body of each tile of 256 staged in shared memory; the 8 partial
// sums are added with shuffles
#define NB_PARTS 8
#define NB_BODIES (256 / NB_PARTS)
__global__ void __launch_bounds__(256) nbody_kernel(int n, const double *px, const double *py, const double *pz,
                                                    const double *pm, double *ax, double *ay, double *az) {
  __shared__ Body tile[256];
  int part = threadIdx.x % NB_PARTS;
  int i = blockIdx.x * NB_BODIES + threadIdx.x / NB_PARTS;
  double xi = i < n ? px[i] : 0.0, yi = i < n ? py[i] : 0.0, zi = i < n ? pz[i] : 0.0;
  double sx = 0.0, sy = 0.0, sz = 0.0;
  for (int base = 0; base < n; base += 256) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? Body{px[j], py[j], pz[j], pm[j]} : Body{0.0, 0.0, 0.0, 0.0};
    __syncthreads();
    int count = n - base < 256 ? n - base : 256;
    for (int k = part; k < count; k += NB_PARTS) {
      Body q = tile[k];
      double dx = q.x - xi, dy = q.y - yi, dz = q.z - zi;
      double r2 = dx * dx + dy * dy + dz * dz + NBODY_EPS2;
      double s = q.w / (r2 * sqrt(r2));
      sx += s * dx;
      sy += s * dy;
      sz += s * dz;
    }
    __syncthreads();
  }
  for (int o = NB_PARTS / 2; o > 0; o >>= 1) {
    sx += __shfl_down_sync(0xffffffffu, sx, o, NB_PARTS);
    sy += __shfl_down_sync(0xffffffffu, sy, o, NB_PARTS);
    sz += __shfl_down_sync(0xffffffffu, sz, o, NB_PARTS);
  }
  if (part == 0 && i < n) {
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
  }
}
static void run() {
  nbody_kernel<<<(unsigned)((N + NB_BODIES - 1) / NB_BODIES), 256>>>((int)N, px, py, pz, pm, ax, ay, az);
  CK(cudaGetLastError());
}
static int check(double *v) {
  std::vector<double> x = to_host(ax, N), y = to_host(ay, N), z = to_host(az, N);
  double s = 0.0;
  for (long i = 0; i < N; i++) s += fabs(x[i]) + fabs(y[i]) + fabs(z[i]);
  v[0] = s;
  v[1] = x[N / 2];
  v[2] = y[N / 2];
  v[3] = z[N / 2];
  return 4;
}
static double bytes(long n) { return 56.0 * n; }
BENCH_MAIN(10000)
