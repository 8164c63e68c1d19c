/*
 * test_blocks.c: unit tests for the cache of freed memory blocks
 * (rt/blocks.c), the GPU runtime's allocator in front of cudaMallocAsync.
 *
 * The allocator behind the cache here is malloc with a budget: it fails
 * when the bytes it holds would pass the budget, as a GPU out of memory
 * does, and it records every block it handed out, so that the tests can
 * check that each block goes back exactly once and that the cache never
 * turns a request that fits into a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/blocks.h"

/* ---- malloc with a budget ---- */

enum { MOST_LIVE = 4096 };
static struct {
  void *p;
  size_t bytes;
} held[MOST_LIVE];
static int nheld;
static size_t held_bytes, budget;
static int allocs, frees;

static void *budget_alloc(size_t bytes) {
  if (held_bytes + bytes > budget || nheld == MOST_LIVE)
    return NULL;
  void *p = malloc(bytes);
  assert_non_null(p);
  memset(p, 0xab, bytes < ((size_t)1 << 20) ? bytes : 4096); /* writable: ASan checks it */
  held[nheld].p = p;
  held[nheld].bytes = bytes;
  nheld++;
  held_bytes += bytes;
  allocs++;
  return p;
}

static void budget_free(void *p) {
  for (int i = 0; i < nheld; i++)
    if (held[i].p == p) {
      held_bytes -= held[i].bytes;
      held[i] = held[--nheld];
      free(p);
      frees++;
      return;
    }
  fail_msg("a block freed that the allocator does not hold (freed twice?)");
}

/* The size the allocator gave for 'p'. */
static size_t held_size(void *p) {
  for (int i = 0; i < nheld; i++)
    if (held[i].p == p)
      return held[i].bytes;
  return 0;
}

static int setup(void **state) {
  (void)state;
  nheld = 0;
  held_bytes = 0;
  allocs = frees = 0;
  budget = (size_t)1 << 30;
  return 0;
}

/* ---- classes ---- */

static void test_classes_cover_each_request(void **state) {
  (void)state;
  int last = 0;
  for (size_t bytes = 1; bytes <= ((size_t)1 << 22); bytes += bytes < 5000 ? 1 : 997) {
    int cls = rt_block_class(bytes);
    assert_true(cls >= 0 && cls < RT_BLOCK_CLASSES);
    size_t size = rt_block_class_size(cls);
    assert_true(size >= bytes);
    /* at most a quarter of the block is slack (but the smallest class) */
    if (bytes > RT_BLOCKS_SMALLEST)
      assert_true(size - bytes < size / 4 + 1);
    /* the class below is too small: the class is the tightest */
    if (cls > 0)
      assert_true(rt_block_class_size(cls - 1) < bytes);
    assert_true(cls >= last);
    last = cls;
  }
  assert_int_equal(rt_block_class(RT_BLOCKS_LARGEST), RT_BLOCK_CLASSES - 1);
  assert_int_equal(rt_block_class_size(RT_BLOCK_CLASSES - 1), RT_BLOCKS_LARGEST);
  assert_int_equal(rt_block_class(RT_BLOCKS_LARGEST + 1), -1);
  assert_int_equal(rt_block_class_size(0), 512);
  assert_int_equal(rt_block_class(513), 1);
  assert_int_equal(rt_block_class_size(1), 640);
}

/* ---- reuse ---- */

static void test_a_freed_block_is_reused_by_its_class(void **state) {
  (void)state;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, (size_t)1 << 28);
  void *a = rt_blocks_get(&c, 1000);
  assert_non_null(a);
  assert_int_equal(held_size(a), rt_block_class_size(rt_block_class(1000)));
  rt_blocks_put(&c, a);
  assert_int_equal(frees, 0);
  /* another size of the same class: the same block, no call */
  void *b = rt_blocks_get(&c, 900);
  assert_ptr_equal(a, b);
  assert_int_equal(allocs, 1);
  assert_int_equal(c.hits, 1);
  /* a size of another class: a new block */
  void *d = rt_blocks_get(&c, 100000);
  assert_ptr_not_equal(d, b);
  assert_int_equal(allocs, 2);
  rt_blocks_put(&c, b);
  rt_blocks_put(&c, d);
  rt_blocks_destroy(&c);
  assert_int_equal(nheld, 0);
  assert_int_equal(frees, 2);
}

static void test_many_live_blocks_freed_in_any_order(void **state) {
  (void)state;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, (size_t)1 << 28);
  enum { N = 3000 };
  static void *p[N];
  static size_t want[N];
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < N; i++) {
      want[i] = (size_t)(1 + (i * 7919 + round * 13) % 20000);
      p[i] = rt_blocks_get(&c, want[i]);
      assert_non_null(p[i]);
      memset(p[i], i & 0xff, want[i]);
    }
    /* each block is its own: its bytes are as written */
    for (int i = 0; i < N; i++)
      assert_int_equal(((unsigned char *)p[i])[want[i] - 1], i & 0xff);
    /* freed in a scattered order, which exercises the table's deletion */
    for (int k = 0; k < N; k++)
      rt_blocks_put(&c, p[(k * 1103) % N]);
    assert_int_equal(c.nlive, 0);
  }
  /* the second and third rounds came mostly from the lists */
  assert_true(c.hits > (uint64_t)N);
  rt_blocks_destroy(&c);
  assert_int_equal(nheld, 0);
  assert_int_equal(c.cached, 0);
}

/* ---- limits ---- */

static void test_no_cache_calls_the_allocator_each_time(void **state) {
  (void)state;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, 0);
  void *a = rt_blocks_get(&c, 1000);
  assert_int_equal(held_size(a), 1000); /* the exact size */
  rt_blocks_put(&c, a);
  assert_int_equal(frees, 1);
  void *b = rt_blocks_get(&c, 0);
  assert_int_equal(held_size(b), 1);
  rt_blocks_put(&c, b);
  assert_int_equal(nheld, 0);
  rt_blocks_destroy(&c);
}

static void test_the_cache_holds_at_most_its_bytes(void **state) {
  (void)state;
  RtBlocks c;
  size_t size = rt_block_class_size(rt_block_class(4096));
  rt_blocks_init(&c, budget_alloc, budget_free, 2 * size);
  void *p[4];
  for (int i = 0; i < 4; i++)
    p[i] = rt_blocks_get(&c, 4096);
  for (int i = 0; i < 4; i++)
    rt_blocks_put(&c, p[i]);
  assert_int_equal(c.cached, 2 * size);
  assert_int_equal(frees, 2);
  assert_int_equal(nheld, 2);
  rt_blocks_destroy(&c);
  assert_int_equal(nheld, 0);
}

/* 'a', a block of 'want' bytes that the cache does not keep: the
   allocator gave it at its exact size, and a put gives it back at once. */
static void assert_exact_and_not_cached(RtBlocks *c, void *a, size_t want) {
  assert_non_null(a);
  assert_int_equal(held_size(a), want);
  int before = frees;
  rt_blocks_put(c, a);
  assert_int_equal(frees, before + 1);
  assert_int_equal(c->cached, 0);
}

static void test_large_requests_are_not_cached(void **state) {
  (void)state;
  budget = (size_t)4 << 30;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, (size_t)4 << 30);
  size_t large = RT_BLOCKS_LARGEST + 4096;
  assert_exact_and_not_cached(&c, rt_blocks_get(&c, large), large);
  rt_blocks_destroy(&c);
}

/* A request that fits the allocator's memory must not fail because the
   cache holds blocks of other classes, nor because of its class's
   rounding. */
static void test_out_of_memory_flushes_then_tries_the_exact_size(void **state) {
  (void)state;
  budget = 100000;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, (size_t)1 << 20);
  /* 60000 bytes cached in small blocks */
  void *p[6];
  for (int i = 0; i < 6; i++)
    p[i] = rt_blocks_get(&c, 10000);
  for (int i = 0; i < 6; i++)
    rt_blocks_put(&c, p[i]);
  assert_true(c.cached > 0);
  /* 90000 (its class: 98304 bytes) fits the budget only once the cache
     is given back */
  void *big = rt_blocks_get(&c, 90000);
  assert_non_null(big);
  assert_int_equal(c.cached, 0);
  assert_true(held_size(big) >= 90000);
  /* more than the budget: NULL, and nothing leaks */
  void *none = rt_blocks_get(&c, 20000);
  assert_null(none);
  rt_blocks_put(&c, big);
  rt_blocks_destroy(&c);
  assert_int_equal(nheld, 0);
}

static void test_rounding_that_does_not_fit_falls_back_to_exact(void **state) {
  (void)state;
  budget = 81920 + 100; /* room for 81921 bytes, not for their class */
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, (size_t)1 << 20);
  size_t want = 81920 + 1; /* class 98304: over the budget */
  assert_true(rt_block_class_size(rt_block_class(want)) > budget);
  assert_exact_and_not_cached(&c, rt_blocks_get(&c, want), want);
  assert_int_equal(nheld, 0);
  rt_blocks_destroy(&c);
}

static void test_putting_null_does_nothing(void **state) {
  (void)state;
  RtBlocks c;
  rt_blocks_init(&c, budget_alloc, budget_free, 1 << 20);
  rt_blocks_put(&c, NULL);
  assert_int_equal(frees, 0);
  rt_blocks_destroy(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, setup)
      T(test_classes_cover_each_request),
      T(test_a_freed_block_is_reused_by_its_class),
      T(test_many_live_blocks_freed_in_any_order),
      T(test_no_cache_calls_the_allocator_each_time),
      T(test_the_cache_holds_at_most_its_bytes),
      T(test_large_requests_are_not_cached),
      T(test_out_of_memory_flushes_then_tries_the_exact_size),
      T(test_rounding_that_does_not_fit_falls_back_to_exact),
      T(test_putting_null_does_nothing),
#undef T
  };
  return cmocka_run_group_tests_name("blocks", tests, NULL, NULL);
}
