/*
 * test_eval.c: unit tests for the source evaluator's values (eval/value.c)
 * and its error reports (eval/eval.c): packed and boxed sequences are
 * interchangeable (equality, hashing, printing, copying, boxing), the
 * evaluator makes packed ones, a library error names the user's call, a
 * run-time error shows its source line, Ctrl-C stops a statement, and the
 * REPL's store of values for the other engines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include <gc.h>

#include "common/common.h"
#include "eval/eval.h"
#include "frontend/frontend.h"
#include "frontend/types.h"

static int setup(void **state) {
  (void)state;
  diag_reset();
  diag_capture_start();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  diag_capture_stop();
  diag_reset();
  interrupt_clear();
  return 0;
}

/* [1, 2, 3] boxed and packed */
static Value boxed_ints(int n) {
  Value v = val_seq_new(n);
  for (int i = 0; i < n; i++)
    v.u.seq->elems[i] = val_int(i + 1);
  return v;
}

static Value packed_ints(int n) {
  Value v = val_seq_packed(V_INT, n);
  for (int i = 0; i < n; i++)
    seq_set(v.u.seq, i, val_int(i + 1));
  return v;
}

static void test_packed_and_boxed_agree(void **state) {
  (void)state;
  Value b = boxed_ints(3), p = packed_ints(3);
  assert_true(p.u.seq->packed);
  assert_false(b.u.seq->packed);
  assert_int_equal(seq_get(p.u.seq, 2).u.i, 3);
  assert_int_equal(seq_get(p.u.seq, 2).kind, V_INT);
  assert_true(val_equal(b, p));
  assert_true(val_hash(b) == val_hash(p));
  Type *ti = type_seq(type_int);
  assert_string_equal(val_to_string(p, ti, NULL), "[1, 2, 3]");
  assert_string_equal(val_to_string(b, ti, NULL), val_to_string(p, ti, NULL));
  /* every scalar kind */
  Value f = val_seq_packed(V_FLOAT, 2), c = val_seq_packed(V_CHAR, 2), t = val_seq_packed(V_BOOL, 2);
  seq_set(f.u.seq, 0, val_float(1.5));
  seq_set(f.u.seq, 1, val_float(-2.0));
  seq_set(c.u.seq, 0, val_char('h'));
  seq_set(c.u.seq, 1, val_char('i'));
  seq_set(t.u.seq, 0, val_bool(true));
  seq_set(t.u.seq, 1, val_bool(false));
  assert_string_equal(val_to_string(f, NULL, NULL), "[1.5, -2.0]");
  assert_string_equal(val_to_string(c, type_seq(type_char), NULL), "\"hi\"");
  assert_string_equal(val_string_chars(c), "hi");
  assert_true(val_equal(c, val_string("hi", 2)));
  assert_string_equal(val_to_string(t, NULL, NULL), "[T, F]");
  assert_false(val_equal(p, packed_ints(2)));
}

static void test_boxing(void **state) {
  (void)state;
  /* ([packed], (packed, boxed)) boxes all the way down */
  Value nested = val_seq_new(2);
  nested.u.seq->elems[0] = packed_ints(2);
  nested.u.seq->elems[1] = boxed_ints(1);
  Value v = val_pair(nested, val_pair(packed_ints(1), boxed_ints(1)));
  Value b = val_boxed(v);
  assert_false(b.u.pair->fst.u.seq->packed);
  assert_false(b.u.pair->fst.u.seq->elems[0].u.seq->packed);
  assert_int_equal(b.u.pair->fst.u.seq->elems[0].u.seq->elems[1].u.i, 2);
  assert_false(b.u.pair->snd.u.pair->fst.u.seq->packed);
  assert_true(val_equal(v, b));
  /* nothing packed: the same value, nothing copied */
  Value plain = val_pair(boxed_ints(2), val_int(4));
  assert_ptr_equal(val_boxed(plain).u.pair, plain.u.pair);
  /* copying between the two kinds, both ways */
  Value dst = val_seq_new(4);
  val_seq_copy(dst.u.seq, 1, packed_ints(3).u.seq, 0, 3);
  assert_int_equal(dst.u.seq->elems[3].u.i, 3);
  Value pdst = val_seq_packed(V_INT, 3);
  val_seq_copy(pdst.u.seq, 0, boxed_ints(3).u.seq, 0, 3);
  assert_true(val_equal(pdst, boxed_ints(3)));
  /* like a sample: packed for scalars only */
  assert_true(val_seq_like(val_float(1), 2).u.seq->packed);
  assert_false(val_seq_like(boxed_ints(1), 2).u.seq->packed);
}

/* ---- running programs ---- */

typedef struct Run {
  TypeEnv *env;
  Eval *ev;
  Capture out;
} Run;

static Run *run_new(void) {
  Run *r = NEW(Run);
  capture_open(&r->out);
  r->env = tc_new_env();
  r->ev = ev_new(r->env, r->out.file);
  ev_init_library(r->ev, tc_library_program(r->env));
  return r;
}

/* Checks and runs 'text' in 'r'; returns the transcript so far. */
static const char *run(Run *r, const char *text) {
  Program *p = parse_program(source_from_string("t.nesl", text), false);
  assert_int_equal(diag_count(), 0);
  for (int i = 0; i < p->tops.len; i++) {
    assert_true(tc_check_top(r->env, p->tops.data[i]));
    ev_run_top(r->ev, p->tops.data[i]);
  }
  return capture_text(&r->out);
}

/* The value of global 'name' as the evaluator holds it. */
static Value global(Run *r, const char *name) {
  Def *d = tc_lookup(r->env, intern(name));
  assert_non_null(d);
  int k = ev_export_global(d);
  return ev_prim_global_value(r->ev, val_int(k), no_loc, NULL);
}

static void test_evaluator_packs(void **state) {
  (void)state;
  Run *r = run_new();
  run(r, "a = [0:5];\n"
         "b = {float(x) * 2.5 : x in a | x > 1};\n"
         "c = \"text\";\n"
         "d = dist(`z, 3);\n"
         "e = {[x, x] : x in a};\n"
         "fl = flatten(e);\n"
         "g = partition(a, [2, 3]);\n"
         "h = a ++ [7];\n"
         "k = plus_scan(a);\n"
         "m = {x == 2 : x in a};\n");
  const char *packed[] = {"a", "b", "c", "d", "fl", "h", "k", "m"};
  for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++)
    assert_true(global(r, packed[i]).u.seq->packed);
  assert_false(global(r, "e").u.seq->packed); /* a sequence of sequences */
  assert_true(global(r, "e").u.seq->elems[0].u.seq->packed);
  assert_true(global(r, "g").u.seq->elems[1].u.seq->packed);
  const char *t = capture_text(&r->out);
  assert_non_null(strstr(t, "b = [5.0, 7.5, 10.0] : [float]\n"));
  assert_non_null(strstr(t, "c = \"text\" : [char]\n"));
  assert_non_null(strstr(t, "d = \"zzz\" : [char]\n"));
  assert_non_null(strstr(t, "fl = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4] : [int]\n"));
  assert_non_null(strstr(t, "g = [[0, 1], [2, 3, 4]] : [[int]]\n"));
  assert_non_null(strstr(t, "m = [F, F, T, F, F] : [bool]\n"));
  /* a filter that keeps nothing, an empty literal */
  run(r, "{x : x in [1, 2] | x > 5};\n[] int;\n");
  assert_non_null(strstr(capture_text(&r->out), "it = [] : [int]\nit = [] : [int]\n"));
  capture_close(&r->out);
}

static void test_library_error_names_user_call(void **state) {
  (void)state;
  Run *r = run_new();
  const char *t = run(r, "mod(5, 0);\nrem(5, 0);\nelt([1], 3);\nsqrt(-4.0);\n7 / 0;\n");
  assert_non_null(strstr(t, "error: t.nesl:1:1: mod: division by zero\n"));
  assert_non_null(strstr(t, "error: t.nesl:2:1: rem: division by zero\n"));
  assert_non_null(strstr(t, "error: t.nesl:3:1: elt: index 3 is out of range for a sequence of length 1\n"));
  assert_non_null(strstr(t, "error: t.nesl:4:1: sqrt: the argument -4 is negative\n"));
  assert_non_null(strstr(t, "error: t.nesl:5:3: /: division by zero\n"));
  /* the source line and the caret go to the diagnostics */
  assert_non_null(strstr(diags(), "  mod(5, 0);\n  ^\n"));
  assert_non_null(strstr(diags(), "  7 / 0;\n    ^\n"));
  capture_close(&r->out);
}

static void test_interrupt_stops_statement(void **state) {
  (void)state;
  Run *r = run_new();
  interrupt_request();
  const char *t = run(r, "function down(n) = if n == 0 then 0 else down(n - 1);\ndown(10);\n");
  assert_non_null(strstr(t, "error: t.nesl:2:1: interrupted (Ctrl-C)"));
  interrupt_clear();
  t = run(r, "down(3);\n{x : x in [1, 2]};\n");
  assert_non_null(strstr(t, "it = 0 : int\nit = [1, 2] : [int]\n"));
  /* an apply-to-each with no call polls too */
  interrupt_request();
  t = run(r, "sum({1 : i in [0:1000]});\n");
  assert_non_null(strstr(t, "interrupted (Ctrl-C)\n"));
  interrupt_clear();
  capture_close(&r->out);
}

/* The REPL's store: __keep_value hands a value back, ev_define_top binds
   it, __global_value reads it (and says when it has none). */
static void test_repl_store(void **state) {
  (void)state;
  Run *r = run_new();
  Program *p = parse_program(source_from_string("t.nesl", "(q, w) = (1, [2.5]);\n"), false);
  TopLevel *top = p->tops.data[0];
  assert_true(tc_check_top(r->env, top));
  int slot = ev_keep_slot();
  Value v;
  assert_false(ev_take_kept(slot, &v));
  Value kept = ev_prim_keep_value(r->ev, val_pair(val_int(slot), val_pair(val_int(1), packed_ints(2))), no_loc, NULL);
  assert_int_equal(kept.kind, V_PAIR);
  assert_true(ev_take_kept(slot, &v));
  assert_false(ev_take_kept(slot, &v)); /* taken once */
  ev_define_top(top, v);
  assert_int_equal(global(r, "q").u.i, 1);
  assert_true(val_equal(global(r, "w"), boxed_ints(2)));
  /* one slot per definition */
  Def *q = tc_lookup(r->env, intern("q"));
  assert_int_equal(ev_export_global(q), ev_export_global(q));
  capture_close(&r->out);
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_packed_and_boxed_agree), T(test_boxing), T(test_evaluator_packs), T(test_library_error_names_user_call),
      T(test_interrupt_stops_statement), T(test_repl_store),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
