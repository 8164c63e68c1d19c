/* tests/library/libcall.c: the fixed cost of calling a tiny exported
   function (tests/library/libcall.nesl) from C, beside plain C doing the
   same in the same run (tests/library/libcall.sh builds and runs it;
   docs/library.md, "The cost of a call").

   usage: libcall [N]: N calls a measure (default 100000; N/100 for the
   sequence of LONG ints), the best of 5 measures; prints microseconds a
   call.  The baselines go through a
   function pointer the compiler cannot see through, so that they are
   calls too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcall.h"

#define LEN 8       /* the short sequence's length */
#define LONG 100000 /* a long one's: on the CUDA target above NESSIE_HOST_MAX
                       (4096), so that it goes to the device */
#define RUNS 5

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the baselines, called through volatile pointers */
__attribute__((noinline)) static int plain_inc(int32_t x, int32_t *r) {
  *r = x + 1;
  return 0;
}
__attribute__((noinline)) static void plain_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
__attribute__((noinline)) static void plain_inc_all(const int32_t *xs, int32_t *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = xs[i] + 1;
}
static int (*volatile inc_ptr)(int32_t, int32_t *) = plain_inc;
static void (*volatile copy_ptr)(void *, const void *, size_t) = plain_copy;
static void (*volatile inc_all_ptr)(const int32_t *, int32_t *, int) = plain_inc_all;

static libcall_context *ctx;
static libcall_seq_int *handle, *long_handle;
static int32_t in[LEN], out[LEN], sink, long_in[LONG], long_out[LONG];
static int bad;

/* each case: n calls of one thing */
static void nesl_inc(long n) {
  int32_t r = 0;
  for (long i = 0; i < n; i++) {
    bad += libcall_inc(ctx, (int32_t)i, &r) != 0;
    sink += r;
  }
}
static void c_inc(long n) {
  int32_t r = 0;
  for (long i = 0; i < n; i++) {
    inc_ptr((int32_t)i, &r);
    sink += r;
  }
}
/* the argument's handle made once; the result's made and freed */
static void nesl_inc_all(long n) {
  for (long i = 0; i < n; i++) {
    libcall_seq_int *r;
    bad += libcall_inc_all(ctx, handle, &r) != 0;
    libcall_seq_int_free(r);
  }
}
/* from the caller's buffer to the caller's buffer: _new, the call, _read */
static void nesl_round_trip(long n) {
  for (long i = 0; i < n; i++) {
    libcall_seq_int *a, *r;
    in[0] = (int32_t)i;
    bad += libcall_seq_int_new(ctx, LEN, in, &a) != 0;
    bad += libcall_inc_all(ctx, a, &r) != 0;
    bad += libcall_seq_int_read(ctx, r, out) != 0;
    sink += out[0];
    libcall_seq_int_free(a);
    libcall_seq_int_free(r);
  }
}
static void c_memcpy(long n) {
  for (long i = 0; i < n; i++) {
    in[0] = (int32_t)i;
    copy_ptr(out, in, sizeof in);
    sink += out[0];
  }
}
static void c_inc_all(long n) {
  for (long i = 0; i < n; i++) {
    in[0] = (int32_t)i;
    inc_all_ptr(in, out, LEN);
    sink += out[0];
  }
}

/* the same with LONG ints */
static void nesl_long(long n) {
  for (long i = 0; i < n; i++) {
    libcall_seq_int *r;
    bad += libcall_inc_all(ctx, long_handle, &r) != 0;
    libcall_seq_int_free(r);
  }
}
static void nesl_long_round_trip(long n) {
  for (long i = 0; i < n; i++) {
    libcall_seq_int *a, *r;
    long_in[0] = (int32_t)i;
    bad += libcall_seq_int_new(ctx, LONG, long_in, &a) != 0;
    bad += libcall_inc_all(ctx, a, &r) != 0;
    bad += libcall_seq_int_read(ctx, r, long_out) != 0;
    sink += long_out[0];
    libcall_seq_int_free(a);
    libcall_seq_int_free(r);
  }
}
static void c_long_memcpy(long n) {
  for (long i = 0; i < n; i++) {
    long_in[0] = (int32_t)i;
    copy_ptr(long_out, long_in, sizeof long_in);
    sink += long_out[0];
  }
}
static void c_long_inc_all(long n) {
  for (long i = 0; i < n; i++) {
    long_in[0] = (int32_t)i;
    inc_all_ptr(long_in, long_out, LONG);
    sink += long_out[0];
  }
}

/* The best of RUNS measures of 'n' calls of 'f', in µs a call. */
static double best(void (*f)(long), long n) {
  f(n / 10 + 1); /* warm: the first calls start things */
  double b = 1e30;
  for (int k = 0; k < RUNS; k++) {
    double t0 = now();
    f(n);
    double us = 1e6 * (now() - t0) / (double)n;
    b = us < b ? us : b;
  }
  return b;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  if (n < 1)
    n = 1;
  ctx = libcall_context_new(NULL);
  if (!ctx || libcall_context_status(ctx) != 0) {
    fprintf(stderr, "libcall: %s\n", ctx ? libcall_context_error(ctx) : "out of memory");
    return 1;
  }
  for (int i = 0; i < LEN; i++)
    in[i] = i;
  for (int i = 0; i < LONG; i++)
    long_in[i] = i;
  if (libcall_seq_int_new(ctx, LEN, in, &handle) != 0 || libcall_seq_int_new(ctx, LONG, long_in, &long_handle) != 0) {
    fprintf(stderr, "libcall: %s\n", libcall_context_error(ctx));
    return 1;
  }
  const char *host_max = getenv("NESSIE_HOST_MAX");
  printf("C: µs a call, best of %d runs of %ld calls%s%s\n", RUNS, n, host_max ? ", NESSIE_HOST_MAX=" : "",
         host_max ? host_max : "");
  printf("  %-54s %9.3f\n", "inc(x) : int -> int", best(nesl_inc, n));
  printf("  %-54s %9.3f\n", "  baseline: a C function through a pointer", best(c_inc, n));
  printf("  %-54s %9.3f\n", "inc_all(xs), 8 ints, the argument's handle made once", best(nesl_inc_all, n));
  printf("  %-54s %9.3f\n", "inc_all(xs), 8 ints, _new + call + _read + 2 _free", best(nesl_round_trip, n));
  printf("  %-54s %9.3f\n", "  baseline: memcpy of the 32 bytes through a pointer", best(c_memcpy, n));
  printf("  %-54s %9.3f\n", "  baseline: a C loop of x + 1 over 8 ints, a pointer", best(c_inc_all, n));
  long m = n / 100 > 10 ? n / 100 : 10;
  printf("C: µs a call, best of %d runs of %ld calls, %d ints\n", RUNS, m, LONG);
  printf("  %-54s %9.3f\n", "inc_all(xs), the argument's handle made once", best(nesl_long, m));
  printf("  %-54s %9.3f\n", "inc_all(xs), _new + call + _read + 2 _free", best(nesl_long_round_trip, m));
  printf("  %-54s %9.3f\n", "  baseline: memcpy of the 400 000 bytes", best(c_long_memcpy, m));
  printf("  %-54s %9.3f\n", "  baseline: a C loop of x + 1", best(c_long_inc_all, m));
  libcall_seq_int_free(handle);
  libcall_seq_int_free(long_handle);
  libcall_context_free(ctx);
  if (bad) {
    fprintf(stderr, "libcall: %d calls failed\n", bad);
    return 1;
  }
  return sink == 42 ? 2 : 0; /* keeps 'sink' */
}
