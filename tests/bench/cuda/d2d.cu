// d2d: the device-to-device copy bandwidth of this GPU: cudaMemcpyAsync of
// SIZE MiB (default 1024) between two buffers, counted as read plus
// written, the median of 10 after a warm-up.  Prints `d2d_GBps: X`.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char **argv) {
  size_t size = (size_t)(argc > 1 ? atol(argv[1]) : 1024) << 20;
  void *a, *b;
  if (cudaMalloc(&a, size) != cudaSuccess || cudaMalloc(&b, size) != cudaSuccess) {
    fprintf(stderr, "d2d: cannot allocate 2 x %zu bytes\n", size);
    return 3;
  }
  cudaMemset(a, 1, size);
  cudaMemset(b, 0, size);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int r = 0; r < 11; r++) {
    cudaEventRecord(start);
    cudaMemcpyAsync(b, a, size, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t;
    cudaEventElapsedTime(&t, start, stop);
    if (r > 0) ms.push_back(t);
  }
  if (cudaGetLastError() != cudaSuccess) return 3;
  std::sort(ms.begin(), ms.end());
  double med = (ms[4] + ms[5]) / 2;
  printf("d2d_GBps: %.2f\n", 2.0 * size / (med * 1e-3) / 1e9);
  return 0;
}
