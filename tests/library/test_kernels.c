/* tests/library/test_kernels.c: a C program linked against the library
   of kernels.nesl (tests/suites/library.sh).  Prints one [PASS]/[FAIL]
   line per check. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "kernels.h"

static int failed;

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/* One thread's calls, on its own context: the header says calls from
   several threads are serialized inside, each with its results. */
static void *thread_calls(void *arg) {
  int32_t k = (int32_t)(long)arg, *wrong = malloc(sizeof *wrong);
  *wrong = 0;
  kernels_context *ctx = kernels_context_new(NULL);
  int32_t values[] = {k, 2 * k, 3 * k}, r = 0;
  for (int i = 0; i < 500; i++) {
    kernels_seq_int *s;
    *wrong += kernels_seq_int_new(ctx, 3, values, &s) != 0 || kernels_at(ctx, s, i % 3, &r) != 0 ||
              r != (i % 3 + 1) * k;
    kernels_seq_int_free(s);
  }
  kernels_context_free(ctx);
  return wrong;
}

static void check(const char *name, int ok) {
  printf("[%s] c %s\n", ok ? "PASS" : "FAIL", name);
  failed += !ok;
}

int main(void) {
  kernels_context *ctx = kernels_context_new(NULL);
  check("a context, ready", ctx != NULL && kernels_context_status(ctx) == 0 && !*kernels_context_error(ctx));
  double a[] = {1, 2, 3}, b[] = {4, 5, 6}, r = 0;
  kernels_seq_float *xs, *ys;
  check("make [float]", kernels_seq_float_new(ctx, 3, a, &xs) == 0 && kernels_seq_float_new(ctx, 3, b, &ys) == 0);
  check("dotp", kernels_dotp(ctx, xs, ys, &r) == 0 && r == 32.0);
  /* [[int]] [[1, 2], [], [3]] */
  int64_t lengths[] = {2, 0, 1};
  int32_t values[] = {1, 2, 3};
  kernels_seq_seq_int *rows;
  kernels_seq_int *sums;
  check("make [[int]]", kernels_seq_seq_int_new(ctx, 3, lengths, values, &rows) == 0);
  int32_t got[3] = {0};
  int64_t size = 0;
  check("row_sums", kernels_row_sums(ctx, rows, &sums) == 0 && kernels_seq_int_length(sums) == 3);
  kernels_seq_int_sizes(sums, &size);
  check("row_sums read", size == 3 && kernels_seq_int_read(ctx, sums, got) == 0 && got[0] == 3 && got[1] == 0 &&
                             got[2] == 3);
  /* deep: [[[1, 2], []], [], [[3]]] times 10 */
  int64_t l1[] = {2, 0, 1}, l2[] = {2, 0, 1};
  kernels_seq_seq_seq_int *deep, *deep10;
  check("deep", kernels_seq_seq_seq_int_new(ctx, 3, l1, l2, values, &deep) == 0 &&
                    kernels_deep(ctx, deep, &deep10) == 0);
  int64_t sizes[3];
  kernels_seq_seq_seq_int_sizes(deep10, sizes);
  int64_t g1[3], g2[3];
  int32_t g3[3];
  check("deep read", sizes[0] == 3 && sizes[1] == 3 && sizes[2] == 3 &&
                         kernels_seq_seq_seq_int_read(ctx, deep10, g1, g2, g3) == 0 && g3[0] == 10 && g3[2] == 30 &&
                         g1[0] == 2 && g2[0] == 2);
  int32_t at = 0;
  kernels_seq_int *three;
  kernels_seq_int_new(ctx, 3, values, &three);
  int rc = kernels_at(ctx, three, 7, &at);
  check("error code", rc == 1);
  check("error message", strstr(kernels_context_error(ctx), "subscript 7 is out of range") != NULL);
  check("error location", strstr(kernels_context_error_location(ctx), "kernels.nesl:") != NULL);
  check("after an error", kernels_at(ctx, three, 2, &at) == 0 && at == 3);
  /* two instances of one polymorphic function, declared (kernels.nesl) */
  int32_t pi_in[] = {1, 2}, pi_out[2] = {0};
  double pf_in[] = {0.25, 1.5}, pf_out[2] = {0};
  kernels_seq_int *pi, *pi2;
  kernels_seq_float *pf, *pf2;
  check("instance poly_int", kernels_seq_int_new(ctx, 2, pi_in, &pi) == 0 && kernels_poly_int(ctx, pi, &pi2) == 0 &&
                                 kernels_seq_int_read(ctx, pi2, pi_out) == 0 && pi_out[0] == 2 && pi_out[1] == 4);
  check("instance poly_float", kernels_seq_float_new(ctx, 2, pf_in, &pf) == 0 &&
                                   kernels_poly_float(ctx, pf, &pf2) == 0 && kernels_seq_float_read(ctx, pf2, pf_out) == 0 &&
                                   pf_out[0] == 0.5 && pf_out[1] == 3.0);
  kernels_seq_int_free(pi);
  kernels_seq_int_free(pi2);
  kernels_seq_float_free(pf);
  kernels_seq_float_free(pf2);
  /* an empty sequence */
  kernels_seq_float *none;
  check("empty", kernels_seq_float_new(ctx, 0, NULL, &none) == 0 && kernels_dotp(ctx, none, none, &r) == 0 &&
                     r == 0.0);
  /* many calls: the handles freed, memory flat */
  int bad = 0;
  for (int i = 0; i < 100; i++) {
    kernels_seq_int *s;
    bad += kernels_row_sums(ctx, rows, &s) != 0;
    kernels_seq_int_free(s);
  }
  long before = max_rss_kb();
  for (int i = 0; i < 10000; i++) {
    kernels_seq_int *s;
    bad += kernels_row_sums(ctx, rows, &s) != 0;
    kernels_seq_int_free(s);
    bad += kernels_at(ctx, three, 5, &at) != 1; /* an error each time, too */
  }
  long after = max_rss_kb();
  check("10000 calls", bad == 0);
  printf("    max RSS %ld KB -> %ld KB\n", before, after);
#ifdef __SANITIZE_ADDRESS__
  /* ASan keeps what is freed in its quarantine: RSS grows by design */
  printf("[PASS] c memory over 10000 calls (not measured under AddressSanitizer)\n");
#else
  check("memory flat over 10000 calls", after - before < 1024);
#endif
  /* threads */
  pthread_t threads[4];
  for (long t = 0; t < 4; t++)
    pthread_create(&threads[t], NULL, thread_calls, (void *)(t + 1));
  int wrong = 0;
  for (int t = 0; t < 4; t++) {
    void *w;
    pthread_join(threads[t], &w);
    wrong += *(int32_t *)w;
    free(w);
  }
  check("4 threads, 500 calls each", wrong == 0);
  kernels_seq_float_free(xs);
  kernels_seq_float_free(ys);
  kernels_seq_float_free(none);
  kernels_seq_seq_int_free(rows);
  kernels_seq_int_free(sums);
  kernels_seq_int_free(three);
  kernels_seq_seq_seq_int_free(deep);
  kernels_seq_seq_seq_int_free(deep10);
  kernels_context_free(ctx);
  return failed != 0;
}
