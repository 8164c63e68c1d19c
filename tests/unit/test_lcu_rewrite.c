/*
 * test_lcu_rewrite.c: unit tests for lcu/rewrite.c, the toolkit fusion is
 * made of: copies (fresh binders, equal up to names), substitution of an
 * expression for a variable and for A[i] (the paper's Figure 5 notation),
 * composing a MAP into a MAP, a REDUCE and a FILTER (each run before and
 * after through λcu's interpreter: the same values), `using` and free
 * variables, def-use chains and last uses on nested blocks.
 */
#include <ctype.h>
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
#include "frontend/frontend.h"
#include "frontend/typecheck.h"
#include "frontend/types.h"
#include "flat/flat.h"
#include "flatten/flatten.h"
#include "lcu/lcu.h"

static TypeEnv *env;
static Source *src;
static LcuProgram *P;
static TopLevel *expr_src; /* stands for the top-level expressions */

static int setup(void **state) {
  (void)state;
  diag_reset();
  diag_capture_start();
  src = source_from_string("t.nesl", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
  P = lcu_program_new();
  Program *prog = parse_program(source_from_string("e.nesl", "0;\n"), false);
  tc_check_program(env, prog);
  expr_src = prog->tops.data[0];
  return 0;
}

static int teardown(void **state) {
  (void)state;
  diag_capture_stop();
  diag_reset();
  rt_set_stack(NULL, 0);
  return 0;
}

static Loc at(int line, int col) { return (Loc){.src = src, .line = line, .col = col}; }

#define L at(1, 1)

static LcuExp *v(LcuVar *x) { return lcu_exp_var(L, x); }
static LcuExp *k(int32_t i) { return lcu_exp_const(L, lcu_int_const(i)); }
static LcuExp *op(FlatOp o, FlatBase t, LcuExp *a, LcuExp *b) { return lcu_exp_op(L, o, t, b ? 2 : 1, a, b, NULL); }
static LcuExp *idx(LcuVar *vec, LcuExp *i) { return lcu_exp_index(L, vec, i); }

/* ---- printing ---- */

/* The program's text (lcu_print_program). */
static char *printed(LcuProgram *p) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  lcu_print_program(f, p);
  fclose(f);
  char *copy = xstrdup(text);
  free(text);
  return copy;
}

/* 'text' with every variable name (a letter, letters or '_', then
   digits: xs_12, x7) replaced by v1, v2, ... in order of first
   appearance: two printings equal up to the names of variables. */
static char *names_numbered(const char *text) {
  Buf b = {0};
  Map seen = {0};
  int n = 0;
  for (const char *p = text; *p;) {
    if (!((*p >= 'a' && *p <= 'z') || *p == '_') || (p > text && (p[-1] == '_' || isalnum((unsigned char)p[-1])))) {
      buf_putc(&b, *p++);
      continue;
    }
    const char *q = p;
    while ((*q >= 'a' && *q <= 'z') || *q == '_')
      q++;
    const char *d = q;
    while (*d >= '0' && *d <= '9')
      d++;
    if (d == q || isalnum((unsigned char)*d) || *d == '_') {
      /* not a variable: a word (MAP, using, let), copied as it is */
      while (p < d)
        buf_putc(&b, *p++);
      continue;
    }
    char *name = xstrndup(p, (size_t)(d - p));
    void *num = map_get(&seen, name);
    if (!num)
      map_put(&seen, name, num = (void *)(intptr_t)++n);
    buf_printf(&b, "v%d", (int)(intptr_t)num);
    p = d;
  }
  return buf_str(&b);
}

/* A program of the kernels given (NULL-ended), for printing. */
static LcuProgram *with_kernels(LcuKernel *first, ...) {
  LcuProgram *p = lcu_program_new();
  va_list ap;
  va_start(ap, first);
  for (LcuKernel *x = first; x; x = va_arg(ap, LcuKernel *))
    vec_push(&p->kernels, x);
  va_end(ap);
  return p;
}

/* The one line of thunk 't' printed as a MAP's pull thunk. */
static char *thunk_text(LcuThunk *t) {
  LcuKernel *kk = lcu_kernel_new();
  kk->name = "T";
  LcuSoac *s = lcu_soac_map(L, t, lcu_size_const(0));
  lcu_kernel_soac(kk, s);
  char *text = printed(with_kernels(kk, NULL));
  char *line = strstr(text, "MAP ");
  assert_non_null(line);
  line += 4;
  char *end = strstr(line, " (0)");
  assert_non_null(end);
  return xstrndup(line, (size_t)(end - line));
}

/* ---- running ---- */

/* Runs top-level block 'b' of value type 't' in a program of the
   kernels of P; returns the transcript. */
static const char *run_block(LcuBlock *b, Type *t) {
  FlatTop *ft = NEW(FlatTop);
  flatten_describe_top(env, expr_src, t, ft);
  LcuTop *top = lcu_top_new(ft, b);
  vec_push(&P->tops, top);
  if (!lcu_check(P, "test"))
    fail_msg("the program does not check:\n%s", diags());
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  LcuInterp *in = lcu_interp_new(P, out);
  lcu_interp_run_top(in, top);
  fclose(out);
  P->tops.len--;
  char *copy = xstrdup(text);
  free(text);
  return copy;
}

/* let x : [int] = host vector (values...) */
static LcuVar *int_vector(LcuBlock *b, int n, const int *values) {
  FlatStmt *fs = NEW(FlatStmt);
  fs->kind = FS_OP;
  fs->op = FLAT_VECTOR;
  LcuStmt *s = lcu_stmt_host(L, fs);
  for (int i = 0; i < n; i++)
    lcu_stmt_arg(s, lcu_atom_int(values[i]));
  lcu_block_add(b, s);
  return lcu_stmt_result(P, s, lcu_vec(FB_INT));
}

/* let r : t = run k (arg) at 'loc' */
static LcuVar *run(LcuBlock *b, Loc loc, LcuKernel *kk, LcuVar *arg) {
  LcuStmt *s = lcu_stmt_run(loc, kk);
  lcu_stmt_arg(s, lcu_atom_var(arg));
  LcuVar *r = lcu_stmt_result(P, s, ((LcuVar *)kk->results.data[0])->type);
  lcu_block_add(b, s);
  return r;
}

/* ---- a producer and its consumers ---- */

/* A = MAP { i => 100 / xs[i] using xs } (#xs) at 'loc' (its SOAC and
   its division, as lowering makes it), in kernel 'kk' whose parameter
   is xs. */
static LcuSoac *producer(LcuKernel *kk, Loc loc) {
  LcuVar *xs = kk->params.data[0];
  LcuThunk *t = lcu_thunk_new();
  LcuVar *i = lcu_thunk_param(P, t, FB_INT, "i");
  lcu_thunk_return(t, lcu_exp_op(loc, FLAT_DIV, FB_INT, 2, k(100), idx(xs, v(i)), NULL));
  lcu_fill_using(t);
  LcuSoac *a = lcu_soac_map(loc, t, lcu_size_length(xs));
  lcu_soac_result(P, a, lcu_vec(FB_INT));
  return a;
}

/* The consumers' pull thunk: { j => A[j] + A[#A - 1 - j] using A }, a
   read at the index, one at another index, and the length. */
static LcuThunk *consumer_pull(LcuVar *a) {
  LcuThunk *t = lcu_thunk_new();
  LcuVar *j = lcu_thunk_param(P, t, FB_INT, "j");
  LcuExp *mirror = op(FLAT_SUB, FB_INT, op(FLAT_SUB, FB_INT, lcu_exp_length(L, a), k(1)), v(j));
  lcu_thunk_return(t, op(FLAT_ADD, FB_INT, idx(a, v(j)), idx(a, mirror)));
  lcu_fill_using(t);
  return t;
}

/* { (x, y) => x + y } */
static LcuThunk *plus(void) {
  LcuThunk *t = lcu_thunk_new();
  LcuVar *x = lcu_thunk_param(P, t, FB_INT, "x"), *y = lcu_thunk_param(P, t, FB_INT, "y");
  lcu_thunk_return(t, op(FLAT_ADD, FB_INT, v(x), v(y)));
  return t;
}

/* { x => x > 40 } */
static LcuThunk *over_40(void) {
  LcuThunk *t = lcu_thunk_new();
  LcuVar *x = lcu_thunk_param(P, t, FB_INT, "x");
  lcu_thunk_return(t, op(FLAT_GT, FB_BOOL, v(x), k(40)));
  return t;
}

/* The consumer SOAC of 'kind' with pull thunk 'pull' over 'n'. */
static LcuSoac *consumer(LcuSoacKind kind, LcuThunk *pull, LcuSize n, Loc loc) {
  FlatAtom zero = lcu_int_const(0);
  LcuSoac *s = kind == SOAC_REDUCE   ? lcu_soac_reduce(loc, pull, &zero, 1, plus(), n)
               : kind == SOAC_FILTER ? lcu_soac_filter(loc, pull, over_40(), n)
                                     : lcu_soac_map(loc, pull, n);
  lcu_soac_result(P, s, kind == SOAC_REDUCE ? lcu_scalar(FB_INT) : lcu_vec(FB_INT));
  return s;
}

/* Two kernels over xs: the producer then the consumer of 'kind' (as
   lowering makes them, the consumer reading A), and the consumer with
   the producer composed into its pull thunk.  Runs both on 'xs', at
   6:1, and checks that they give 'want' ('want_fused' for the fused one,
   if not NULL). */
static void compose_and_run(LcuSoacKind kind, const int *xs, int n, Type *t, const char *want,
                            const char *want_fused) {
  /* unfused: kernel (xs) { A = MAP ...; B = SOAC {... A ...} (#A); return B } */
  LcuKernel *two = lcu_kernel_new();
  LcuVar *p = lcu_kernel_param(P, two, lcu_vec(FB_INT));
  LcuSoac *a = producer(two, at(5, 7));
  lcu_kernel_soac(two, a);
  LcuVar *av = a->results.data[0];
  LcuSoac *b = consumer(kind, consumer_pull(av), lcu_size_length(av), at(6, 1));
  lcu_kernel_soac(two, b);
  lcu_kernel_return(two, b->results.data[0]);
  lcu_add_kernel(P, two);
  /* fused: kernel (xs) { B = SOAC { let a = 100 / xs[j] in ... } (#xs) } */
  LcuKernel *one = lcu_kernel_new();
  vec_push(&one->params, p);
  LcuThunk *composed = lcu_compose_pull(P, a, b->pull, false);
  LcuSoac *fused = consumer(kind, composed, a->size, at(6, 1));
  if (kind != SOAC_MAP)
    fused->second = lcu_copy_thunk(P, b->second, NULL);
  lcu_kernel_soac(one, fused);
  lcu_kernel_return(one, fused->results.data[0]);
  lcu_add_kernel(P, one);
  /* the composed thunk reads xs, not A */
  assert_int_equal(composed->using.len, 1);
  assert_ptr_equal(composed->using.data[0], p);
  assert_false(lcu_exp_reads(composed->body.data[0], av));

  LcuBlock *blk = lcu_block_new();
  LcuVar *x = int_vector(blk, n, xs);
  lcu_block_return(blk, lcu_atom_var(run(blk, at(6, 1), two, x)));
  assert_string_equal(run_block(blk, t), want);
  blk = lcu_block_new();
  x = int_vector(blk, n, xs);
  lcu_block_return(blk, lcu_atom_var(run(blk, at(6, 1), one, x)));
  assert_string_equal(run_block(blk, t), want_fused ? want_fused : want);
}

/* ---- copies ---- */

static void test_copy_kernel(void **state) {
  (void)state;
  LcuKernel *kk = lcu_kernel_new();
  LcuVar *xs = lcu_kernel_param(P, kk, lcu_vec(FB_INT));
  LcuSoac *a = producer(kk, L);
  lcu_kernel_soac(kk, a);
  /* b = REDUCE { j => let t = A[j] in t * t using A } (0) { (x, y) => x + y } (#A) */
  LcuVar *av = a->results.data[0];
  LcuThunk *pull = lcu_thunk_new();
  LcuVar *j = lcu_thunk_param(P, pull, FB_INT, "j");
  LcuVar *t = lcu_new_var(P, lcu_scalar(FB_INT), "t");
  lcu_thunk_return(pull, lcu_exp_let(L, t, idx(av, v(j)), op(FLAT_MUL, FB_INT, v(t), v(t))));
  lcu_fill_using(pull);
  LcuSoac *b = consumer(SOAC_REDUCE, pull, lcu_size_length(av), L);
  lcu_kernel_soac(kk, b);
  lcu_kernel_return(kk, b->results.data[0]);
  lcu_add_kernel(P, kk);
  int before = P->next_var;

  LcuKernel *c = lcu_copy_kernel(P, kk);
  /* equal up to the names of variables */
  assert_string_equal(lcu_kernel_canonical(c), lcu_kernel_canonical(kk));
  char *text_k = printed(with_kernels(kk, NULL)), *text_c = printed(with_kernels(c, NULL));
  assert_string_not_equal(text_k, text_c);
  assert_string_equal(names_numbered(text_k), names_numbered(text_c));
  /* every binder is new: parameters, SOAC results, thunk parameters, lets */
  LcuSoac *ca = c->soacs.data[0], *cb = c->soacs.data[1];
  LcuVar *binders[] = {c->params.data[0], ca->results.data[0], cb->results.data[0], ca->pull->params.data[0],
                       cb->pull->params.data[0], ((LcuExp *)cb->pull->body.data[0])->var,
                       cb->second->params.data[0], cb->second->params.data[1]};
  for (size_t i = 0; i < sizeof binders / sizeof *binders; i++)
    assert_true(binders[i]->id >= before);
  /* and the copy reads its own: the REDUCE's thunk reads the copy's A */
  assert_ptr_equal(cb->pull->using.data[0], ca->results.data[0]);
  assert_ptr_equal(cb->size.length, ca->results.data[0]);
  assert_ptr_equal(ca->size.length, c->params.data[0]);
  assert_ptr_not_equal(ca->size.length, xs);
  /* the copy is a kernel of its own: both check, named apart */
  lcu_add_kernel(P, c);
  assert_string_equal(c->name, "K2");
  assert_true(lcu_check(P, "test"));
  /* changing the copy leaves the original */
  ((LcuExp *)ca->pull->body.data[0])->op = FLAT_MUL;
  assert_int_equal(((LcuExp *)a->pull->body.data[0])->op, FLAT_DIV);
}

static void test_copy_thunk_renaming(void **state) {
  (void)state;
  LcuVar *xs = lcu_new_var(P, lcu_vec(FB_INT), "xs"), *ys = lcu_new_var(P, lcu_vec(FB_INT), "ys");
  LcuThunk *t = lcu_thunk_new();
  LcuVar *i = lcu_thunk_param(P, t, FB_INT, "i");
  lcu_thunk_return(t, idx(xs, v(i)));
  lcu_fill_using(t);
  PtrMap renaming = {0};
  ptrmap_put(&renaming, xs, ys);
  LcuThunk *c = lcu_copy_thunk(P, t, &renaming);
  assert_ptr_not_equal(c->params.data[0], i);
  assert_ptr_equal(c->using.data[0], ys);
  assert_ptr_equal(((LcuExp *)c->body.data[0])->var, ys);
  assert_string_equal(thunk_text(c), xprintf("{ i_%d => ys_2[i_%d] using ys_2 }", ((LcuVar *)c->params.data[0])->id,
                                              ((LcuVar *)c->params.data[0])->id));
}

/* ---- substitution ---- */

static void test_subst_var(void **state) {
  (void)state;
  LcuVar *x = lcu_new_var(P, lcu_scalar(FB_INT), "x"), *z = lcu_new_var(P, lcu_scalar(FB_INT), "z");
  LcuVar *y = lcu_new_var(P, lcu_scalar(FB_INT), "y");
  /* [z * 2 / x](let y = x + 1 in y * x) = let y' = z * 2 + 1 in y' * (z * 2) */
  LcuExp *e = lcu_exp_let(L, y, op(FLAT_ADD, FB_INT, v(x), k(1)), op(FLAT_MUL, FB_INT, v(y), v(x)));
  LcuExp *by = op(FLAT_MUL, FB_INT, v(z), k(2));
  LcuExp *r = lcu_subst_var(P, e, x, by);
  assert_false(lcu_exp_reads(r, x));
  assert_true(lcu_exp_reads(r, z));
  assert_ptr_not_equal(r->var, y); /* a new binder */
  LcuThunk *t = lcu_thunk_new();
  lcu_thunk_return(t, r);
  lcu_fill_using(t);
  int y2 = r->var->id;
  assert_string_equal(thunk_text(t), xprintf("{ () => let y_%d = z_2 * 2 + 1 in y_%d * (z_2 * 2) using z_2 }", y2, y2));
  /* 'e' is unchanged, and the copies of 'by' are copies */
  assert_true(lcu_exp_reads(e, x));
  assert_ptr_not_equal(r->args[0]->args[0], by);
}

static void test_subst_index(void **state) {
  (void)state;
  LcuVar *a = lcu_new_var(P, lcu_vec(FB_INT), "A"), *i = lcu_new_var(P, lcu_scalar(FB_INT), "i");
  LcuVar *av = lcu_new_var(P, lcu_scalar(FB_INT), "a");
  /* [A[i]/a](A[i] * A[i + 1]) = a * A[i + 1] */
  LcuExp *e = op(FLAT_MUL, FB_INT, idx(a, v(i)), idx(a, op(FLAT_ADD, FB_INT, v(i), k(1))));
  LcuExp *r = lcu_subst_index(P, e, a, i, v(av));
  assert_int_equal(r->args[0]->kind, LE_VAR);
  assert_ptr_equal(r->args[0]->var, av);
  assert_int_equal(r->args[1]->kind, LE_INDEX); /* at another index: stays */
  assert_true(lcu_exp_reads(r, a));
  LcuThunk *t = lcu_thunk_new();
  vec_push(&t->params, i);
  lcu_thunk_return(t, r);
  lcu_fill_using(t);
  assert_string_equal(thunk_text(t), "{ i_2 => a_3 * A_1[i_2 + 1] using a_3, A_1 }");
}

/* ---- composition ---- */

static void test_compose_text(void **state) {
  (void)state;
  LcuKernel *kk = lcu_kernel_new();
  lcu_kernel_param(P, kk, lcu_vec(FB_INT));
  LcuSoac *a = producer(kk, L);
  LcuThunk *c = lcu_compose_pull(P, a, consumer_pull(a->results.data[0]), false);
  /* let a = 100 / xs[j] in a + 100 / xs[#xs - 1 - j]: the producer's
     value at the index let-bound once, at the other index computed
     there, and #A the producer's size */
  LcuExp *body = c->body.data[0];
  assert_int_equal(body->kind, LE_LET);
  char *text = names_numbered(thunk_text(c));
  assert_string_equal(text, "{ v1 => let v2 = 100 / v3[v1] in v2 + 100 / v3[#v3 - 1 - v1] using v3 }");
  /* in place: the value where the read stood, its check after nothing */
  LcuThunk *in = lcu_compose_pull(P, a, consumer_pull(a->results.data[0]), true);
  assert_string_equal(names_numbered(thunk_text(in)), "{ v1 => 100 / v2[v1] + 100 / v2[#v2 - 1 - v1] using v2 }");
}

static void test_compose_map(void **state) {
  (void)state;
  /* A = [100/1, 100/2, 100/5, 100/10] = [100, 50, 20, 10]; B[j] = A[j] + A[3 - j] */
  int xs[] = {1, 2, 5, 10};
  compose_and_run(SOAC_MAP, xs, 4, type_seq(type_int), "it = [110, 70, 70, 110] : [int]\n", NULL);
}

static void test_compose_reduce(void **state) {
  (void)state;
  int xs[] = {1, 2, 5, 10};
  compose_and_run(SOAC_REDUCE, xs, 4, type_int, "it = 360 : int\n", NULL);
}

static void test_compose_filter(void **state) {
  (void)state;
  int xs[] = {1, 2, 5, 10};
  compose_and_run(SOAC_FILTER, xs, 4, type_seq(type_int), "it = [110, 70, 70, 110] : [int]\n", NULL);
  int ys[] = {4, 50, 100};
  /* A = [25, 2, 1]; B = [26, 4, 26]; over 40: none */
  compose_and_run(SOAC_FILTER, ys, 3, type_seq(type_int), "it = [] : [int]\n", NULL);
}

/* A division by zero in the producer: unfused, its expression is its
   own SOAC's and the error names the run (6:1); fused into the
   consumer's SOAC, it names the producer's NESL expression (5:7). */
static void test_compose_error_location(void **state) {
  (void)state;
  int xs[] = {1, 0};
  compose_and_run(SOAC_MAP, xs, 2, type_seq(type_int), "error: t.nesl:6:1: /: division by zero\n",
                  "error: t.nesl:5:7: /: division by zero\n");
}

/* ---- using, free variables ---- */

static void test_using(void **state) {
  (void)state;
  LcuVar *xs = lcu_new_var(P, lcu_vec(FB_INT), "xs"), *s = lcu_new_var(P, lcu_scalar(FB_INT), "s");
  LcuVar *ys = lcu_new_var(P, lcu_vec(FB_INT), "ys"), *stale = lcu_new_var(P, lcu_vec(FB_INT), "stale");
  LcuThunk *t = lcu_thunk_new();
  LcuVar *i = lcu_thunk_param(P, t, FB_INT, "i");
  LcuVar *y = lcu_new_var(P, lcu_scalar(FB_INT), "y");
  /* { i => let y = xs[i] + s in y * #ys + s using stale } */
  lcu_thunk_return(t, lcu_exp_let(L, y, op(FLAT_ADD, FB_INT, idx(xs, v(i)), v(s)),
                                  op(FLAT_ADD, FB_INT, op(FLAT_MUL, FB_INT, v(y), lcu_exp_length(L, ys)), v(s))));
  lcu_thunk_use(t, stale);
  Vec free = lcu_free_vars(t);
  assert_int_equal(free.len, 3); /* not i, y, nor the stale entry */
  assert_ptr_equal(free.data[0], xs);
  assert_ptr_equal(free.data[1], s);
  assert_ptr_equal(free.data[2], ys);
  lcu_fill_using(t);
  assert_int_equal(t->using.len, 3);
  assert_ptr_equal(t->using.data[2], ys);
}

/* ---- def-use and last uses ---- */

static LcuStmt *scalar(LcuBlock *b, FlatOp o, LcuAtom *x, LcuAtom *y, LcuVar **out) {
  LcuStmt *s = lcu_stmt_scalar(L, o);
  lcu_stmt_arg(s, x);
  if (y)
    lcu_stmt_arg(s, y);
  *out = lcu_stmt_result(P, s, lcu_scalar(FB_INT));
  lcu_block_add(b, s);
  return s;
}

static bool has(const Vec *v, const void *x) {
  for (int i = 0; i < v->len; i++)
    if (v->data[i] == x)
      return true;
  return false;
}

static void test_last_uses(void **state) {
  (void)state;
  /*   (p, q) params
     0: a = p + 1
     1: b = a * 2          (never read)
     2: c = if T then { d = a - q; return d } else { return a }
     3: e = c + 1          (the block's result)
     return e                                                     */
  LcuVar *p = lcu_new_var(P, lcu_scalar(FB_INT), "p"), *q = lcu_new_var(P, lcu_scalar(FB_INT), "q");
  LcuVar *unread = lcu_new_var(P, lcu_scalar(FB_INT), "u");
  Vec params = {0};
  vec_push(&params, p);
  vec_push(&params, q);
  vec_push(&params, unread);
  LcuBlock *b = lcu_block_new();
  LcuVar *a, *bb, *d, *e;
  LcuStmt *s0 = scalar(b, FLAT_ADD, lcu_atom_var(p), lcu_atom_int(1), &a);
  LcuStmt *s1 = scalar(b, FLAT_MUL, lcu_atom_var(a), lcu_atom_int(2), &bb);
  LcuBlock *then = lcu_block_new(), *els = lcu_block_new();
  scalar(then, FLAT_SUB, lcu_atom_var(a), lcu_atom_var(q), &d);
  lcu_block_return(then, lcu_atom_var(d));
  lcu_block_return(els, lcu_atom_var(a));
  LcuStmt *s2 = lcu_stmt_if(L, lcu_atom_const(lcu_bool_const(true)), then, els);
  LcuVar *c = lcu_stmt_result(P, s2, lcu_scalar(FB_INT));
  lcu_block_add(b, s2);
  LcuStmt *s3 = scalar(b, FLAT_ADD, lcu_atom_var(c), lcu_atom_int(1), &e);
  lcu_block_return(b, lcu_atom_var(e));

  Vec *dead = lcu_last_uses(b, &params, NULL);
  /* after 0: p (read last there) and the unread parameter */
  assert_int_equal(dead[0].len, 2);
  assert_ptr_equal(dead[0].data[0], p);
  assert_ptr_equal(dead[0].data[1], unread);
  /* after 1: b, bound and never read */
  assert_int_equal(dead[1].len, 1);
  assert_ptr_equal(dead[1].data[0], bb);
  /* after 2: q and a, read last inside the if's branches */
  assert_int_equal(dead[2].len, 2);
  assert_true(has(&dead[2], q) && has(&dead[2], a));
  /* after 3: c; e lives to the end; d is the branch's own */
  assert_int_equal(dead[3].len, 1);
  assert_ptr_equal(dead[3].data[0], c);
  /* the branch, analysed on its own: d is its result, a and q are not its own */
  Vec *inner = lcu_last_uses(then, NULL, NULL);
  assert_int_equal(inner[0].len, 0);

  LcuDefUse du;
  lcu_fill_def_use(b, &du);
  assert_ptr_equal(ptrmap_get(&du.def, a), s0);
  assert_ptr_equal(ptrmap_get(&du.def, c), s2);
  assert_null(ptrmap_get(&du.def, p)); /* a parameter */
  Vec *uses = ptrmap_get(&du.uses, a);
  assert_int_equal(uses->len, 2); /* s1, and s2 (through both branches, once) */
  assert_ptr_equal(uses->data[0], s1);
  assert_ptr_equal(uses->data[1], s2);
  assert_null(ptrmap_get(&du.uses, bb));
  assert_ptr_equal(((Vec *)ptrmap_get(&du.uses, c))->data[0], s3);
  assert_non_null(ptrmap_get(&du.live_out, e));
  assert_null(ptrmap_get(&du.live_out, c));
}

int main(void) {
  GC_INIT();
  env = tc_new_env();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_copy_kernel),
      T(test_copy_thunk_renaming),
      T(test_subst_var),
      T(test_subst_index),
      T(test_compose_text),
      T(test_compose_map),
      T(test_compose_reduce),
      T(test_compose_filter),
      T(test_compose_error_location),
      T(test_using),
      T(test_last_uses),
#undef T
  };
  return cmocka_run_group_tests_name("lcu_rewrite", tests, NULL, NULL);
}
