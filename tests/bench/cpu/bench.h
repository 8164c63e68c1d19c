/* tests/bench/cpu/bench.h: the frame of a CPU baseline (C with OpenMP).
   A baseline defines setup(n) (makes the input, not timed), run() (one
   call, timed), check(v) (the values NAME.nesl's check prints; returns
   how many) and bytes(n) (the bytes that must move), then BENCH_MAIN.
   `NAME [N [RUNS]]` prints
     check: V...
     bytes: B
     times_ms: T... (RUNS calls after one warm-up, in order)
   which tests/bench/harness.py reads. */
#ifndef BENCH_CPU_H
#define BENCH_CPU_H
#include "../common.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(long n);
static void run(void);
static int check(double *v);
static double bytes(long n);

static void *bench_alloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", size);
    exit(2);
  }
  return p;
}

#define BENCH_MAIN(default_n)                                                         \
  int main(int argc, char **argv) {                                                   \
    long n = argc > 1 ? atol(argv[1]) : (default_n);                                  \
    int runs = argc > 2 ? atoi(argv[2]) : 10;                                         \
    setup(n);                                                                         \
    run(); /* the warm-up */                                                          \
    double *ms = bench_alloc(sizeof(double) * (size_t)(runs > 0 ? runs : 1));         \
    for (int r = 0; r < runs; r++) {                                                  \
      double t0 = omp_get_wtime();                                                    \
      run();                                                                          \
      ms[r] = (omp_get_wtime() - t0) * 1e3;                                           \
    }                                                                                 \
    double v[CHECK_MAX];                                                              \
    int k = check(v);                                                                 \
    printf("check:");                                                                 \
    for (int i = 0; i < k; i++) printf(" %.17g", v[i]);                               \
    printf("\nbytes: %.0f\ntimes_ms:", bytes(n));                                     \
    for (int r = 0; r < runs; r++) printf(" %.6f", ms[r]);                            \
    printf("\nthreads: %d\n", omp_get_max_threads());                                 \
    return 0;                                                                         \
  }
#endif
