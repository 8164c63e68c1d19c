/* tests/library/test_nogpu.c: kernels.nesl's library of the CUDA target
   on a machine without a GPU (tests/suites/library.sh): the context is
   made in an error state, which every call reports, and the process
   goes on.  Prints one [PASS]/[FAIL] line per check, or [SKIP] where a
   GPU is found. */
#include <stdio.h>
#include <string.h>

#include "kernels.h"

static int failed;

static void check(const char *name, int ok) {
  printf("[%s] cuda without a GPU: %s\n", ok ? "PASS" : "FAIL", name);
  failed += !ok;
}

int main(void) {
  kernels_context *ctx = kernels_context_new(NULL);
  if (ctx && kernels_context_status(ctx) == 0) {
    printf("[SKIP] cuda without a GPU: a CUDA device is present\n");
    kernels_context_free(ctx);
    return 0;
  }
  check("a context, in an error state", ctx != NULL && kernels_context_status(ctx) == 4);
  check("its error says why", strstr(kernels_context_error(ctx), "no CUDA device") != NULL);
  printf("    %s\n", kernels_context_error(ctx));
  int32_t r = 0, values[] = {1, 2, 3};
  kernels_seq_int *s = (kernels_seq_int *)ctx; /* set to NULL by _new */
  check("a call returns 4", kernels_add1(ctx, 1, &r) == 4 && r == 0);
  check("_new returns 4", kernels_seq_int_new(ctx, 3, values, &s) == 4 && s == NULL);
  check("the error stays", strstr(kernels_context_error(ctx), "no CUDA device") != NULL);
  kernels_context *again = kernels_context_new(NULL);
  check("a second context, too", again != NULL && kernels_context_status(again) == 4);
  kernels_context_free(again);
  kernels_context_free(ctx);
  return failed != 0;
}
