/* tests/library/test_two.c: two libraries in one program, each running
   its own code (their runtimes' names hidden inside each: nothing of one
   binds the other's), both exporting an add1. */
#include <stdio.h>

#include "kernels.h"
#include "other.h"

int main(void) {
  kernels_context *k = kernels_context_new(NULL);
  other_context *o = other_context_new(NULL);
  int32_t a = 0, b = 0, t = 0, xs[] = {1, 2, 3};
  other_seq_int *s;
  int ok = kernels_add1(k, 1, &a) == 0 && other_add1(o, 1, &b) == 0 && other_seq_int_new(o, 3, xs, &s) == 0 &&
           other_total(o, s, &t) == 0 && a == 2 && b == 101 && t == 6;
  printf("[%s] c two libraries in one program (add1: %d and %d)\n", ok ? "PASS" : "FAIL", a, b);
  other_seq_int_free(s);
  kernels_context_free(k);
  other_context_free(o);
  return !ok;
}
