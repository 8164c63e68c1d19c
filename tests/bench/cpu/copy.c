/* copy: the memory bandwidth probe of the CPU target: a parallel copy of
   256 MiB, counted as read plus written, the best of 10 after a warm-up.
   Prints `copy_GBps: X`. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  size_t size = (argc > 1 ? (size_t)atol(argv[1]) : 256) << 20;
  char *a = malloc(size), *b = malloc(size);
  if (!a || !b) return 2;
  double best = 1e30;
#pragma omp parallel
  {
    int nt = omp_get_num_threads(), t = omp_get_thread_num();
    size_t lo = size / nt * t, hi = t == nt - 1 ? size : size / nt * (t + 1);
    memset(a + lo, 1, hi - lo);
    memset(b + lo, 0, hi - lo);
  }
  for (int r = 0; r < 11; r++) {
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
      int nt = omp_get_num_threads(), t = omp_get_thread_num();
      size_t lo = size / nt * t, hi = t == nt - 1 ? size : size / nt * (t + 1);
      memcpy(b + lo, a + lo, hi - lo);
    }
    double s = omp_get_wtime() - t0;
    if (r > 0 && s < best) best = s;
  }
  printf("copy_GBps: %.2f\n", 2.0 * size / best / 1e9);
  return 0;
}
