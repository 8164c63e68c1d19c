/*
 * test_divisor.c: unit tests for the division by a prepared divisor
 * (rt_divisor, rt_div_by, rt_rem_by in rt/scalar.h), which the generated
 * code uses where every element of a kernel divides by one scalar.  It
 * must give what rt_div_i and rt_rem_i give, bit for bit, errors
 * included, for every pair of 32-bit ints: here the edges (0, 1, -1,
 * powers of two, min_int, max_int), random divisors of every size against
 * random and edge dividends, and every dividend in a stride over the
 * whole range for a few divisors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt/scalar.h"

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint32_t next32(void) { /* xorshift64 */
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)(state >> 16);
}

/* rt_div_by and rt_rem_by against rt_div_i and rt_rem_i at (a, d). */
static void same_at(int32_t a, int32_t d) {
  RtDivisor v = rt_divisor(d);
  int e1 = 0, e2 = 0, e3 = 0, e4 = 0;
  int32_t q = rt_div_i(a, d, &e1), q_by = rt_div_by(a, v, &e2);
  int32_t r = rt_rem_i(a, d, &e3), r_by = rt_rem_by(a, v, &e4);
  assert_int_equal(e1, e2);
  assert_int_equal(e3, e4);
  if (!e1)
    assert_int_equal(q, q_by);
  if (!e3)
    assert_int_equal(r, r_by);
}

static const int32_t edges[] = {0,       1,         -1,        2,         -2,         3,         -3,
                                7,       10,        65536,     65537,     -65536,     46337,     1 << 30,
                                -(1 << 30), INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 6700417, 641};
enum { NEDGES = sizeof edges / sizeof *edges };

static void test_edges(void **state_) {
  (void)state_;
  for (int i = 0; i < NEDGES; i++)
    for (int j = 0; j < NEDGES; j++)
      same_at(edges[i], edges[j]);
}

static void test_zero_divisor_fails(void **state_) {
  (void)state_;
  RtDivisor v = rt_divisor(0);
  int err = 0;
  rt_rem_by(5, v, &err);
  assert_int_equal(err, RT_E_DIV_ZERO);
  err = 0;
  rt_div_by(-5, v, &err);
  assert_int_equal(err, RT_E_DIV_ZERO);
}

static void test_random_divisors(void **state_) {
  (void)state_;
  for (int k = 0; k < 20000; k++) {
    /* divisors of every magnitude: shift a random word right by 0..31 */
    int32_t d = (int32_t)(next32() >> (next32() % 32));
    if (k & 1)
      d = (int32_t)(0u - (uint32_t)d); /* (min_int stays itself) */
    for (int j = 0; j < NEDGES; j++)
      same_at(edges[j], d);
    for (int j = 0; j < 200; j++)
      same_at((int32_t)next32(), d);
  }
}

static void test_every_dividend_in_a_stride(void **state_) {
  (void)state_;
  static const int32_t few[] = {3, -7, 10000, 65537, INT32_MIN, 2147483629};
  for (int k = 0; k < (int)(sizeof few / sizeof *few); k++)
    for (int64_t a = INT32_MIN; a <= INT32_MAX; a += 4093)
      same_at((int32_t)a, few[k]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_zero_divisor_fails),
      cmocka_unit_test(test_random_divisors),
      cmocka_unit_test(test_every_dividend_in_a_stride),
  };
  return cmocka_run_group_tests_name("divisor", tests, NULL, NULL);
}
