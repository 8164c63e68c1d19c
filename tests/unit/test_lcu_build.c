/*
 * test_lcu_build.c: unit tests for lcu/build.c: the constructors, the
 * kernel builder (parameters standing for CPU variables, `using` kept
 * up to date), kernel interning (equal kernels made once; an
 * expression's location relative to its SOAC's is part of a kernel),
 * and the two passes after lowering (dead statements, unused kernels).
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
#include "lcu/lcu.h"

static Source *src;
static LcuProgram *P;

static int setup(void **state) {
  (void)state;
  diag_reset();
  diag_capture_start();
  src = source_from_string("t.nesl", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  P = lcu_program_new();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  diag_capture_stop();
  diag_reset();
  return 0;
}

static Loc at(int line, int col) { return (Loc){.src = src, .line = line, .col = col}; }

static void assert_loc(Loc got, int line, int col) {
  assert_ptr_equal(got.src, src);
  assert_int_equal(got.line, line);
  assert_int_equal(got.col, col);
}

/* ---- constructors ---- */

static void test_expressions(void **state) {
  (void)state;
  LcuVar *x = lcu_new_var(P, lcu_scalar(FB_FLOAT), "x");
  LcuVar *xs = lcu_new_var(P, lcu_vec(FB_CHAR), NULL);
  assert_string_equal(x->name, "x_1");
  assert_string_equal(xs->name, "x2");
  assert_int_equal(P->next_var, 3);
  assert_int_equal(x->shape, 0);

  LcuExp *v = lcu_exp_var(at(1, 2), x);
  assert_int_equal(v->kind, LE_VAR);
  assert_int_equal(v->type, FB_FLOAT);
  assert_loc(v->loc, 1, 2);
  LcuExp *c = lcu_exp_const(at(1, 3), lcu_bool_const(true));
  assert_int_equal(c->type, FB_BOOL);
  assert_true(c->constant.u.b);
  LcuExp *i = lcu_exp_const(at(1, 4), lcu_int_const(7));
  LcuExp *ix = lcu_exp_index(at(2, 1), xs, i);
  assert_int_equal(ix->type, FB_CHAR); /* the vector's base */
  assert_ptr_equal(ix->args[0], i);
  assert_int_equal(ix->nargs, 1);
  LcuExp *n = lcu_exp_length(at(2, 2), xs);
  assert_int_equal(n->type, FB_INT);
  LcuExp *sum = lcu_exp_op(at(3, 5), FLAT_ADD, FB_FLOAT, 2, v, v, NULL);
  assert_int_equal(sum->kind, LE_OP);
  assert_int_equal(sum->op, FLAT_ADD);
  assert_int_equal(sum->nargs, 2);
  assert_null(sum->args[2]);
  assert_loc(sum->loc, 3, 5);
  LcuExp *cond = lcu_exp_if(at(4, 1), c, sum, v);
  assert_int_equal(cond->type, FB_FLOAT); /* the branches' */
  assert_int_equal(cond->nargs, 3);
  LcuVar *y = lcu_new_var(P, lcu_scalar(FB_INT), "y");
  LcuExp *let = lcu_exp_let(at(5, 1), y, i, n);
  assert_ptr_equal(let->var, y);
  assert_int_equal(let->type, FB_INT); /* the body's */
  assert_ptr_equal(let->args[0], i);
  assert_ptr_equal(let->args[1], n);
}

static void test_soacs_and_statements(void **state) {
  (void)state;
  LcuThunk *pull = lcu_thunk_new();
  LcuVar *i = lcu_thunk_param(P, pull, FB_INT, "i");
  lcu_thunk_return(pull, lcu_exp_var(at(1, 1), i));
  LcuVar *n = lcu_new_var(P, lcu_scalar(FB_INT), "n");
  lcu_thunk_use(pull, n);
  lcu_thunk_use(pull, n);
  assert_int_equal(pull->using.len, 1); /* listed once */

  FlatAtom ids[2] = {lcu_int_const(0), lcu_float_const(1.5)};
  LcuSoac *r = lcu_soac_reduce(at(2, 2), pull, ids, 2, NULL, lcu_size_var(n));
  ids[0] = lcu_int_const(99); /* the SOAC has its own copies */
  assert_int_equal(r->kind, SOAC_REDUCE);
  assert_int_equal(r->identity.len, 2);
  assert_int_equal(((FlatAtom *)r->identity.data[0])->u.i, 0);
  assert_ptr_equal(r->size.var, n);
  assert_null(r->size.length);
  assert_int_equal(lcu_soac_scan(at(1, 1), pull, ids, 1, NULL, lcu_size_const(3))->kind, SOAC_SCAN);
  LcuVar *sd = lcu_new_var(P, lcu_segdes(), NULL), *d = lcu_new_var(P, lcu_vec(FB_INT), NULL);
  LcuSoac *sp = lcu_soac_seg_permute(at(1, 1), pull, pull, sd, d);
  assert_ptr_equal(sp->segdes, sd);
  assert_ptr_equal(sp->into, d);
  assert_int_equal(lcu_soac_seg_partition(at(1, 1), pull, pull, sd)->kind, SOAC_SEG_PARTITION);
  assert_ptr_equal(lcu_soac_partition(at(1, 1), pull, pull, lcu_size_length(d))->size.length, d);
  LcuSoac *lib = lcu_soac_library(at(7, 7), LIB_SEG_IDS);
  assert_int_equal(lib->library, LIB_SEG_IDS);
  assert_null(lib->pull);
  LcuVar *res = lcu_soac_result(P, r, lcu_scalar(FB_INT));
  assert_ptr_equal(r->results.data[0], res);

  LcuKernel *k = lcu_kernel_new();
  lcu_kernel_soac(k, r);
  lcu_kernel_return(k, res);
  lcu_add_kernel(P, k);
  assert_string_equal(k->name, "K1");
  assert_ptr_equal(P->kernels.data[0], k);

  LcuBlock *b = lcu_block_new();
  LcuStmt *run = lcu_stmt_run(at(3, 3), k);
  lcu_stmt_arg(run, lcu_atom_int(4));
  LcuVar *out = lcu_stmt_result(P, run, lcu_scalar(FB_INT));
  lcu_block_add(b, run);
  LcuStmt *len = lcu_stmt_length(at(3, 4), LEN_TOTAL, lcu_atom_var(sd));
  assert_int_equal(len->length, LEN_TOTAL);
  assert_int_equal(len->args.len, 1);
  LcuStmt *cond = lcu_stmt_if(at(4, 4), lcu_atom_const(lcu_bool_const(true)), lcu_block_new(), lcu_block_new());
  assert_int_equal(cond->args.len, 1); /* the condition */
  assert_non_null(cond->then);
  assert_ptr_equal(lcu_stmt_time(at(1, 1), b)->body, b);
  lcu_block_return(b, lcu_atom_var(out));
  assert_int_equal(b->stmts.len, 1);
  assert_loc(run->loc, 3, 3);
  assert_int_equal(lcu_atom_type(run->args.data[0]).base, FB_INT);
  LcuFunc *f = lcu_func_new(at(9, 1), "f_1", "f", true);
  assert_true(f->library);
  assert_string_equal(f->source, "f");
  LcuVar *fp = lcu_func_param(P, f, lcu_vec(FB_FLOAT), "xs");
  assert_ptr_equal(f->params.data[0], fp);
}

/* ---- the kernel builder ---- */

static void test_kernel_builder(void **state) {
  (void)state;
  LcuVar *xs = lcu_new_var(P, lcu_vec(FB_INT), "xs"), *s = lcu_new_var(P, lcu_scalar(FB_INT), "s");
  LcuVar *n = lcu_new_var(P, lcu_scalar(FB_INT), "n");
  LcuKernelBuilder *kb = lcu_kb_new(P, at(6, 2));
  LcuThunk *t = lcu_kb_index_thunk(kb);
  LcuVar *i = t->params.data[0];
  assert_string_equal(i->name, xprintf("i_%d", i->id));
  LcuVar *pxs = lcu_kb_param(kb, xs);
  assert_ptr_equal(lcu_kb_param(kb, xs), pxs); /* one parameter per CPU variable */
  LcuExp *e = lcu_exp_op(kb->loc, FLAT_ADD, FB_INT, 2, lcu_exp_index(kb->loc, pxs, lcu_exp_var(kb->loc, i)),
                         lcu_kb_scalar(kb, lcu_atom_var(s)), NULL);
  LcuExp *k3 = lcu_kb_scalar(kb, lcu_atom_int(3));
  assert_int_equal(k3->kind, LE_CONST); /* a constant needs no parameter */
  lcu_thunk_return(t, e);
  lcu_kb_end_thunk(kb);
  LcuSize size = lcu_kb_size_atom(kb, lcu_atom_var(n));
  LcuSoac *map = lcu_soac_map(kb->loc, t, size);
  LcuVar *r = lcu_soac_result(P, map, lcu_vec(FB_INT));
  LcuKernel *k = lcu_kb_finish(kb, map);
  /* parameters in order of first use; the run's arguments parallel */
  assert_int_equal(k->params.len, 3);
  assert_int_equal(kb->outer.len, 3);
  assert_ptr_equal(((LcuAtom *)kb->outer.data[0])->var, xs);
  assert_ptr_equal(((LcuAtom *)kb->outer.data[1])->var, s);
  assert_ptr_equal(((LcuAtom *)kb->outer.data[2])->var, n);
  /* the thunk lists what it reads, not the size */
  assert_int_equal(t->using.len, 2);
  assert_ptr_equal(t->using.data[0], pxs);
  assert_ptr_equal(t->using.data[1], k->params.data[1]);
  assert_ptr_equal(map->size.var, k->params.data[2]);
  assert_int_equal(k->results.len, 1);
  assert_ptr_equal(k->results.data[0], r);
  assert_loc(e->loc, 6, 2);
}

/* ---- interning ---- */

/* MAP { i => xs[i] / s using xs, s } (#xs) with its SOAC at 'soac_at' and
   the division at 'div_at'. */
static LcuKernel *divide(Loc soac_at, Loc div_at) {
  LcuKernelBuilder *kb = lcu_kb_new(P, soac_at);
  LcuThunk *t = lcu_kb_index_thunk(kb);
  LcuVar *xs = lcu_kb_param(kb, lcu_new_var(P, lcu_vec(FB_FLOAT), NULL));
  LcuVar *s = lcu_kb_param(kb, lcu_new_var(P, lcu_scalar(FB_FLOAT), NULL));
  LcuExp *x = lcu_exp_index(soac_at, xs, lcu_exp_var(soac_at, t->params.data[0]));
  lcu_thunk_return(t, lcu_exp_op(div_at, FLAT_DIV, FB_FLOAT, 2, x, lcu_exp_var(soac_at, s), NULL));
  lcu_kb_end_thunk(kb);
  LcuSoac *map = lcu_soac_map(soac_at, t, lcu_size_length(xs));
  lcu_soac_result(P, map, lcu_vec(FB_FLOAT));
  return lcu_kb_finish(kb, map);
}

static void test_intern(void **state) {
  (void)state;
  LcuKernelTable table = {0};
  /* made for two statements, each expression at its statement: one kernel */
  LcuKernel *a = lcu_intern_kernel(&table, P, divide(at(1, 1), at(1, 1)));
  LcuKernel *b = lcu_intern_kernel(&table, P, divide(at(2, 5), at(2, 5)));
  assert_ptr_equal(a, b);
  assert_int_equal(P->kernels.len, 1);
  assert_string_equal(a->name, "K1");
  /* the division from another NESL expression than the MAP's: another kernel */
  LcuKernel *c = lcu_intern_kernel(&table, P, divide(at(3, 1), at(8, 8)));
  assert_ptr_not_equal(c, a);
  assert_string_equal(c->name, "K2");
  /* ... equal to one whose division is at that same place */
  assert_ptr_equal(lcu_intern_kernel(&table, P, divide(at(4, 1), at(8, 8))), c);
  /* ... and not to one whose division is elsewhere */
  assert_ptr_not_equal(lcu_intern_kernel(&table, P, divide(at(5, 1), at(9, 9))), c);
  assert_int_equal(P->kernels.len, 3);
  /* the canonical text names no variable: equal texts, other variables */
  LcuKernel *d = divide(at(1, 1), at(1, 1)), *e = divide(at(6, 6), at(6, 6));
  assert_string_equal(lcu_kernel_canonical(d), lcu_kernel_canonical(e));
  assert_ptr_not_equal(d->params.data[0], e->params.data[0]);
  assert_string_not_equal(lcu_kernel_canonical(d), lcu_kernel_canonical(divide(at(6, 6), at(6, 7))));
}

/* ---- dead statements and unused kernels ---- */

static LcuStmt *scalar(LcuBlock *b, FlatOp op, FlatBase t, LcuAtom *x, LcuAtom *y, LcuVar **out) {
  LcuStmt *s = lcu_stmt_scalar(at(1, 1), op);
  lcu_stmt_arg(s, x);
  if (y)
    lcu_stmt_arg(s, y);
  *out = lcu_stmt_result(P, s, lcu_scalar(t));
  lcu_block_add(b, s);
  return s;
}

static LcuStmt *run(LcuBlock *b, LcuKernel *k, LcuVar **out) {
  LcuStmt *s = lcu_stmt_run(at(1, 1), k);
  *out = lcu_stmt_result(P, s, lcu_vec(FB_FLOAT));
  lcu_block_add(b, s);
  return s;
}

static void test_drop_dead(void **state) {
  (void)state;
  LcuKernelTable table = {0};
  LcuKernel *k = lcu_intern_kernel(&table, P, divide(at(1, 1), at(1, 1)));
  LcuBlock *b = lcu_block_new();
  LcuVar *x = lcu_new_var(P, lcu_scalar(FB_INT), "x"), *f = lcu_new_var(P, lcu_scalar(FB_FLOAT), "f");
  LcuVar *a, *c, *q, *kept, *v1, *v2, *n;
  scalar(b, FLAT_ADD, FB_INT, lcu_atom_var(x), lcu_atom_int(1), &a);            /* read only by c: dead */
  scalar(b, FLAT_MUL, FB_INT, lcu_atom_var(a), lcu_atom_int(2), &c);            /* unread: dead */
  scalar(b, FLAT_DIV, FB_FLOAT, lcu_atom_var(f), lcu_atom_const(lcu_float_const(0)), &q); /* can fail: kept */
  scalar(b, FLAT_SUB, FB_INT, lcu_atom_var(x), lcu_atom_int(1), &kept);          /* the result: kept */
  LcuStmt *pure = run(b, k, &v1);                                                /* droppable, unread */
  run(b, k, &v2);                                                                /* not droppable: kept */
  LcuStmt *len = lcu_stmt_length(at(1, 1), LEN_VECTOR, lcu_atom_var(v1));        /* unread: dead */
  n = lcu_stmt_result(P, len, lcu_scalar(FB_INT));
  lcu_block_add(b, len);
  LcuBlock *then = lcu_block_new(), *els = lcu_block_new();
  LcuVar *inner;
  scalar(then, FLAT_NEG, FB_INT, lcu_atom_var(x), NULL, &inner); /* dead in a branch */
  lcu_block_add(b, lcu_stmt_if(at(1, 1), lcu_atom_const(lcu_bool_const(true)), then, els));
  lcu_block_return(b, lcu_atom_var(kept));
  LcuFunc *fn = lcu_func_new(at(1, 1), "g", "g", false);
  fn->body = b;
  vec_push(&P->funcs, fn);
  PtrMap droppable = {0};
  ptrmap_put(&droppable, pure, (void *)1);
  lcu_drop_dead(P, &droppable, false);
  /* q's division, kept, the second run, the if */
  assert_int_equal(b->stmts.len, 4);
  assert_ptr_equal(((LcuStmt *)b->stmts.data[0])->results.data[0], q);
  assert_ptr_equal(((LcuStmt *)b->stmts.data[1])->results.data[0], kept);
  assert_ptr_equal(((LcuStmt *)b->stmts.data[2])->results.data[0], v2);
  assert_int_equal(((LcuStmt *)b->stmts.data[3])->kind, LS_IF);
  assert_int_equal(then->stmts.len, 0);
  (void)c;
  (void)n;
}

/* A segdes's total that nothing reads goes, but with keep_totals (the
   host reads it with its block's other totals); a length goes always. */
static void test_drop_dead_totals(void **state) {
  (void)state;
  for (int keep = 0; keep < 2; keep++) {
    LcuBlock *b = lcu_block_new();
    LcuVar *sd = lcu_new_var(P, lcu_segdes(), "sd");
    LcuStmt *total = lcu_stmt_length(at(1, 1), LEN_TOTAL, lcu_atom_var(sd));
    lcu_stmt_result(P, total, lcu_scalar(FB_INT));
    lcu_block_add(b, total);
    LcuStmt *segments = lcu_stmt_length(at(1, 1), LEN_SEGMENTS, lcu_atom_var(sd));
    lcu_stmt_result(P, segments, lcu_scalar(FB_INT));
    lcu_block_add(b, segments);
    LcuFunc *fn = lcu_func_new(at(1, 1), "h", "h", false);
    fn->body = b;
    P->funcs = (Vec){0};
    vec_push(&P->funcs, fn);
    lcu_drop_dead(P, &(PtrMap){0}, keep);
    assert_int_equal(b->stmts.len, keep ? 1 : 0);
    if (keep)
      assert_ptr_equal(b->stmts.data[0], total);
  }
}

/* A parameter that nothing in its kernel reads goes, and so does the
   argument of every run of the kernel. */
static void test_drop_unused_params(void **state) {
  (void)state;
  LcuKernelTable table = {0};
  LcuKernel *k = lcu_intern_kernel(&table, P, divide(at(1, 1), at(1, 1)));
  LcuVar *unused = lcu_new_var(P, lcu_scalar(FB_INT), "unused");
  vec_push(&k->params, unused);
  LcuBlock *b = lcu_block_new();
  LcuVar *xs = lcu_new_var(P, lcu_vec(FB_FLOAT), "xs"), *v;
  for (int i = 0; i < 2; i++) {
    LcuStmt *r = run(b, k, &v);
    lcu_stmt_arg(r, lcu_atom_var(xs));
    lcu_stmt_arg(r, lcu_atom_const(lcu_float_const(2.0)));
    lcu_stmt_arg(r, lcu_atom_int(7));
  }
  lcu_block_return(b, lcu_atom_var(v));
  LcuFunc *fn = lcu_func_new(at(1, 1), "u", "u", false);
  fn->body = b;
  P->funcs = (Vec){0};
  vec_push(&P->funcs, fn);
  lcu_drop_unused_params(P);
  assert_int_equal(k->params.len, 2);
  for (int i = 0; i < 2; i++) {
    const LcuStmt *r = b->stmts.data[i];
    assert_int_equal(r->args.len, 2);
    assert_ptr_equal(((const LcuAtom *)r->args.data[0])->var, xs);
  }
}

static void test_prune_kernels(void **state) {
  (void)state;
  LcuKernelTable table = {0};
  lcu_intern_kernel(&table, P, divide(at(1, 1), at(2, 2)));
  LcuKernel *used = lcu_intern_kernel(&table, P, divide(at(1, 1), at(3, 3)));
  lcu_intern_kernel(&table, P, divide(at(1, 1), at(4, 4)));
  assert_string_equal(used->name, "K2");
  LcuBlock *b = lcu_block_new();
  LcuVar *v;
  run(b, used, &v);
  lcu_block_return(b, lcu_atom_var(v));
  vec_push(&P->tops, lcu_top_new(NULL, b));
  lcu_prune_kernels(P);
  assert_int_equal(P->kernels.len, 1);
  assert_ptr_equal(P->kernels.data[0], used);
  assert_string_equal(used->name, "K1");
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_expressions),
      T(test_soacs_and_statements),
      T(test_kernel_builder),
      T(test_intern),
      T(test_drop_dead),
      T(test_drop_dead_totals),
      T(test_drop_unused_params),
      T(test_prune_kernels),
#undef T
  };
  return cmocka_run_group_tests_name("lcu_build", tests, NULL, NULL);
}
