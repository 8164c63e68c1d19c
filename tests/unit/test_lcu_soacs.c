/*
 * test_lcu_soacs.c: unit tests for λcu's interpreter (lcu/lcu_interp.c):
 * each SOAC and segmented SOAC by its semantics (the paper's section 3.2
 * and Figures 3-4, the result layouts of lcu.h), the thunks' GPU-level
 * expressions, the library kernels, the CPU level (host statements,
 * calls, `if`, recursion) and the transcript.
 *
 * Programs are built by hand through build.c's constructors, checked with
 * lcu_check (every program a test runs must pass it: the checker and the
 * interpreter agree on the layouts), and run by the interpreter into a
 * memory stream; the tests compare the transcript, `it = VALUE : TYPE`
 * and `error: ...` lines, with what the flat interpreter prints for the
 * same operations (tests/unit/test_flat.c).
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
#include "flat/flat.h"
#include "flatten/flatten.h"
#include "frontend/frontend.h"
#include "frontend/typecheck.h"
#include "frontend/types.h"
#include "lcu/lcu.h"

/* ---- the state of one test ---- */

static TypeEnv *base_env;  /* the basis library, shared by the tests */
static TypeEnv *env;       /* the environment the interpreter prints with */
static Source *src;        /* where the statements' locations point */
static LcuProgram *P;      /* the program being built */
static LcuBlock *blk;      /* the block statements go into */
static LcuInterp *IN;      /* made at the first run */
static TopLevel *expr_src; /* a TOP_EXPR to stand for top-level expressions */
static bool check_ir;      /* run lcu_check before running */

static FILE *out_file;
static char *out_text;
static size_t out_size, out_seen;

static int setup(void **state) {
  (void)state;
  diag_reset();
  out_text = NULL;
  out_size = out_seen = 0;
  out_file = open_memstream(&out_text, &out_size);
  diag_capture_start();
  env = base_env;
  src = source_from_string("t.nesl", "line one\nline two\nline three\nline four\nline five\nline six\n");
  P = lcu_program_new();
  blk = lcu_block_new();
  IN = NULL;
  check_ir = true;
  Program *prog = parse_program(source_from_string("e.nesl", "0;\n"), false);
  tc_check_program(base_env, prog);
  expr_src = prog->tops.data[0];
  return 0;
}

static int teardown(void **state) {
  (void)state;
  fclose(out_file);
  free(out_text);
  diag_capture_stop();
  diag_reset();
  rt_set_stack(NULL, 0);
  return 0;
}

static Loc at(int line, int col) { return (Loc){.src = src, .line = line, .col = col}; }

/* ---- building: variables, atoms, expressions ---- */

#define S_INT lcu_scalar(FB_INT)
#define S_FLOAT lcu_scalar(FB_FLOAT)
#define S_BOOL lcu_scalar(FB_BOOL)
#define S_CHAR lcu_scalar(FB_CHAR)
#define V_INT lcu_vec(FB_INT)
#define V_FLOAT lcu_vec(FB_FLOAT)
#define V_BOOL lcu_vec(FB_BOOL)
#define V_CHAR lcu_vec(FB_CHAR)
#define SD lcu_segdes()

static LcuVar *var(LcuType t) { return lcu_new_var(P, t, NULL); }

static LcuAtom *A(LcuVar *v) { return lcu_atom_var(v); }
static LcuAtom *AI(int32_t i) { return lcu_atom_int(i); }
static LcuAtom *AB(bool b) { return lcu_atom_const(lcu_bool_const(b)); }

/* Thunk expressions are at 1:1, as the SOACs. */
static LcuExp *xv(LcuVar *v) { return lcu_exp_var(at(1, 1), v); }
static LcuExp *xi(int32_t i) { return lcu_exp_const(at(1, 1), lcu_int_const(i)); }
static LcuExp *xf(double f) { return lcu_exp_const(at(1, 1), lcu_float_const(f)); }
static LcuExp *xidx(LcuVar *vec, LcuExp *i) { return lcu_exp_index(at(1, 1), vec, i); }
static LcuExp *xlen(LcuVar *vec) { return lcu_exp_length(at(1, 1), vec); }

/* op(a) or op(a, b) (b NULL for a unary op) of result type 't' */
static LcuExp *xop(FlatOp op, FlatBase t, LcuExp *a, LcuExp *b) {
  return lcu_exp_op(at(1, 1), op, t, b ? 2 : 1, a, b, NULL);
}

static LcuExp *xif(LcuExp *c, LcuExp *a, LcuExp *b) { return lcu_exp_if(at(1, 1), c, a, b); }
static LcuExp *xlet(LcuVar *x, LcuExp *value, LcuExp *body) { return lcu_exp_let(at(1, 1), x, value, body); }

/* ---- building: thunks, SOACs, kernels ---- */

static LcuThunk *thunk(void) { return lcu_thunk_new(); }
static LcuVar *tparam(LcuThunk *t, FlatBase b) { return lcu_thunk_param(P, t, b, NULL); }
static void tbody(LcuThunk *t, LcuExp *e) { lcu_thunk_return(t, e); }
static void tusing(LcuThunk *t, LcuVar *v) { lcu_thunk_use(t, v); }

/* { i => body(i) using ... }: a thunk of one int parameter; 'index'
   gets the parameter */
static LcuThunk *index_thunk(LcuVar **index) {
  LcuThunk *t = thunk();
  *index = tparam(t, FB_INT);
  return t;
}

static LcuKernel *kernel(void) {
  LcuKernel *k = lcu_kernel_new();
  lcu_add_kernel(P, k);
  return k;
}

static LcuVar *kparam(LcuKernel *k, LcuType t) { return lcu_kernel_param(P, k, t); }

/* A SOAC of 'kind' at 1:1 appended to 'k', whose thunks, size and
   identities the test sets: the MAP constructor with its kind changed,
   so that one helper serves every kind a test takes as a parameter. */
static LcuSoac *soac(LcuKernel *k, LcuSoacKind kind) {
  LcuSoac *s = lcu_soac_map(at(1, 1), NULL, lcu_size_const(0));
  s->kind = kind;
  lcu_kernel_soac(k, s);
  return s;
}

/* A result of SOAC 's', also a result of its kernel. */
static LcuVar *sresult(LcuKernel *k, LcuSoac *s, LcuType t) {
  LcuVar *v = lcu_soac_result(P, s, t);
  lcu_kernel_return(k, v);
  return v;
}

static LcuSize size_of(LcuVar *v) { return v->type.kind == LT_SCALAR ? lcu_size_var(v) : lcu_size_length(v); }

static LcuSize size_n(int32_t n) { return lcu_size_const(n); }

static void identity(LcuSoac *s, FlatAtom a) {
  FlatAtom *p = NEW(FlatAtom);
  *p = a;
  vec_push(&s->identity, p);
}

static FlatAtom fa_int(int32_t i) { return lcu_int_const(i); }
static FlatAtom fa_float(double f) { return lcu_float_const(f); }

/* ---- building: CPU statements ---- */

/* Appends 's' to the current block. */
static LcuStmt *add(LcuStmt *s) {
  lcu_block_add(blk, s);
  return s;
}

static LcuAtom *result(LcuStmt *s, LcuType t) { return A(lcu_stmt_result(P, s, t)); }

/* run k (args, ending with NULL) at 'loc'; the results are new variables
   of the kernel's result types. */
static LcuStmt *run_at(Loc loc, LcuKernel *k, ...) {
  LcuStmt *s = add(lcu_stmt_run(loc, k));
  va_list ap;
  va_start(ap, k);
  for (LcuAtom *a; (a = va_arg(ap, LcuAtom *));)
    lcu_stmt_arg(s, a);
  va_end(ap);
  for (int i = 0; i < k->results.len; i++)
    result(s, ((LcuVar *)k->results.data[i])->type);
  return s;
}

#define run(k, ...) run_at(at(1, 1), k, __VA_ARGS__, NULL)
#define run0(k) run_at(at(1, 1), k, NULL)

/* Result 'i' of statement 's' as an atom. */
static LcuAtom *R(LcuStmt *s, int i) { return A(s->results.data[i]); }

/* A scalar operation at the CPU level. */
static LcuAtom *scalar_at(Loc loc, FlatOp op, LcuType t, LcuAtom *a, LcuAtom *b) {
  LcuStmt *s = add(lcu_stmt_scalar(loc, op));
  lcu_stmt_arg(s, a);
  if (b)
    lcu_stmt_arg(s, b);
  return result(s, t);
}

/* A host statement running flat operation 'op' on 'args' (NULL-ended). */
static LcuStmt *host_at(Loc loc, FlatOp op, ...) {
  FlatStmt *fs = NEW(FlatStmt);
  fs->kind = FS_OP;
  fs->op = op;
  fs->loc = loc;
  LcuStmt *s = add(lcu_stmt_host(loc, fs));
  va_list ap;
  va_start(ap, op);
  for (LcuAtom *a; (a = va_arg(ap, LcuAtom *));)
    lcu_stmt_arg(s, a);
  va_end(ap);
  return s;
}

/* An empty vector of base 'b': MAP { i => 0 } (0). */
static LcuAtom *empty_vec(FlatBase b) {
  LcuKernel *k = kernel();
  LcuVar *i;
  LcuThunk *t = index_thunk(&i);
  tbody(t, lcu_exp_const(at(1, 1), b == FB_FLOAT  ? fa_float(0)
                                    : b == FB_BOOL ? lcu_bool_const(false)
                                    : b == FB_CHAR ? lcu_char_const('a')
                                                   : fa_int(0)));
  LcuSoac *s = lcu_soac_map(at(1, 1), t, size_n(0));
  lcu_kernel_soac(k, s);
  sresult(k, s, lcu_vec(b));
  return R(run0(k), 0);
}

/* A vector of 'n' ints (n may be 0): a host vector. */
static LcuAtom *ivec(int n, ...) {
  if (n == 0)
    return empty_vec(FB_INT);
  LcuStmt *s = host_at(at(1, 1), FLAT_VECTOR, NULL);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, AI(va_arg(ap, int)));
  va_end(ap);
  return result(s, V_INT);
}

static LcuAtom *fvec(int n, ...) {
  if (n == 0)
    return empty_vec(FB_FLOAT);
  LcuStmt *s = host_at(at(1, 1), FLAT_VECTOR, NULL);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    lcu_stmt_arg(s, lcu_atom_const(fa_float(va_arg(ap, double))));
  va_end(ap);
  return result(s, V_FLOAT);
}

static LcuAtom *bvec(int n, ...) {
  if (n == 0)
    return empty_vec(FB_BOOL);
  LcuStmt *s = host_at(at(1, 1), FLAT_VECTOR, NULL);
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    lcu_stmt_arg(s, AB(va_arg(ap, int) != 0));
  va_end(ap);
  return result(s, V_BOOL);
}

/* The characters of 's' as a [char] (s not empty). */
static LcuAtom *cvec(const char *text) {
  LcuStmt *s = host_at(at(1, 1), FLAT_VECTOR, NULL);
  for (const char *p = text; *p; p++)
    lcu_stmt_arg(s, lcu_atom_const(lcu_char_const(*p)));
  return result(s, V_CHAR);
}

/* A library kernel of one result at 'loc', on kernel parameters of the
   types of 'args' (NULL-ended). */
static LcuSoac *library_at(Loc loc, LcuLibrary lib, LcuType rt, LcuAtom **out, ...) {
  LcuKernel *k = kernel();
  LcuSoac *s = lcu_soac_library(at(1, 1), lib);
  lcu_kernel_soac(k, s);
  LcuStmt *r = add(lcu_stmt_run(loc, k));
  va_list ap;
  va_start(ap, out);
  for (LcuAtom *a; (a = va_arg(ap, LcuAtom *));) {
    lcu_stmt_arg(r, a);
    vec_push(&s->args, kparam(k, a->var->type));
  }
  va_end(ap);
  sresult(k, s, rt);
  *out = result(r, rt);
  return s;
}

/* A segment descriptor of the lengths of int vector 'lengths'. */
static LcuAtom *segdes(LcuAtom *lengths) {
  LcuAtom *d;
  library_at(at(1, 1), LIB_MAKE_SEGDES, SD, &d, lengths, NULL);
  return d;
}

/* ---- building: functions ---- */

static LcuFunc *func(const char *name, bool library) {
  LcuFunc *f = lcu_func_new(at(1, 1), name, name, library);
  f->body = lcu_block_new();
  vec_push(&P->funcs, f);
  return f;
}

static LcuAtom *fparam(LcuFunc *f, LcuType t) { return A(lcu_func_param(P, f, t, NULL)); }

/* Makes 'b' the block statements go into; returns the one before. */
static LcuBlock *enter(LcuBlock *b) {
  LcuBlock *saved = blk;
  blk = b;
  return saved;
}

static LcuAtom *call_at(Loc loc, LcuFunc *f, LcuType t, ...) {
  LcuStmt *s = add(lcu_stmt_call(loc, f));
  va_list ap;
  va_start(ap, t);
  for (LcuAtom *a; (a = va_arg(ap, LcuAtom *));)
    lcu_stmt_arg(s, a);
  va_end(ap);
  return result(s, t);
}

static LcuAtom *if_at(Loc loc, LcuAtom *cond, LcuBlock *then, LcuBlock *els, LcuType t) {
  return result(add(lcu_stmt_if(loc, cond, then, els)), t);
}

/* ---- running ---- */

static void check_program(void) {
  if (check_ir && !lcu_check(P, "test"))
    fail_msg("the program does not check:\n%s", diags());
}

/* What the interpreter printed since the last call. */
static const char *new_output(void) {
  fflush(out_file);
  const char *text = xstrdup(out_text ? out_text + out_seen : "");
  out_seen = out_size;
  return text;
}

static const char *run_top(LcuTop *top) {
  vec_push(&P->tops, top);
  check_program();
  if (!IN)
    IN = lcu_interp_new(P, out_file);
  lcu_interp_run_top(IN, top);
  return new_output();
}

static FlatTop *flat_top(TopLevel *source, Type *t) {
  FlatTop *ft = NEW(FlatTop);
  flatten_describe_top(env, source, t, ft);
  return ft;
}

/* Ends the current block as a top-level expression of type 't' whose
   value has the components 'n' atoms; runs it and returns the
   transcript.  Statements then go into a fresh block. */
static const char *run_expr(Type *t, int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&blk->results, va_arg(ap, LcuAtom *));
  va_end(ap);
  LcuTop *top = lcu_top_new(flat_top(expr_src, t), blk);
  blk = lcu_block_new();
  return run_top(top);
}

#define assert_run(want, t, ...) assert_string_equal(run_expr(t, __VA_ARGS__), want)

static Type *seq(Type *t) { return type_seq(t); }
static Type *pair(Type *a, Type *b) { return type_pair(a, b); }

/* ---- MAP ---- */

/* MAP { i => xs[i] * 2 using xs } (#xs) */
static LcuKernel *double_kernel(void) {
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, xop(FLAT_MUL, FB_INT, xidx(xs, xv(i)), xi(2)));
  LcuSoac *s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  return k;
}

static void test_map(void **state) {
  (void)state;
  LcuKernel *dbl = double_kernel();
  assert_run("it = [2, -4, 6] : [int]\n", seq(type_int), 1, R(run(dbl, ivec(3, 1, -2, 3)), 0));
  /* one kernel, run again, on an empty vector */
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(run(dbl, ivec(0)), 0));
  LcuStats st = lcu_interp_stats(IN);
  assert_int_equal(st.kernels, 2); /* the doubling and the empty vector's MAP */
  assert_int_equal(st.runs, 3); /* the empty vector is a run too */
  assert_int_equal(st.elements, 3);

  /* several results: { i => (i, float(i), i < n) using n } (n), a scalar size */
  LcuKernel *k = kernel();
  LcuVar *n = kparam(k, S_INT);
  LcuVar *i;
  LcuThunk *t = index_thunk(&i);
  tusing(t, n);
  tbody(t, xv(i));
  tbody(t, xop(FLAT_TO_FLOAT, FB_FLOAT, xv(i), NULL));
  tbody(t, xop(FLAT_LT, FB_BOOL, xv(i), xv(n)));
  LcuSoac *s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(n);
  sresult(k, s, V_INT);
  sresult(k, s, V_FLOAT);
  sresult(k, s, V_BOOL);
  LcuStmt *r = run(k, AI(3));
  assert_run("it = ([0, 1, 2], [0.0, 1.0, 2.0], [T, T, T]) : [int], [float], [bool]\n",
             pair(seq(type_int), pair(seq(type_float), seq(type_bool))), 3, R(r, 0), R(r, 1), R(r, 2));

  /* let, if, #: { i => let y = i * i in if y > #xs then y else 0 - y } (5) */
  k = kernel();
  LcuVar *xs = kparam(k, V_INT);
  t = index_thunk(&i);
  tusing(t, xs);
  LcuVar *y = var(S_INT);
  tbody(t, xlet(y, xop(FLAT_MUL, FB_INT, xv(i), xv(i)),
                xif(xop(FLAT_GT, FB_BOOL, xv(y), xlen(xs)), xv(y), xop(FLAT_SUB, FB_INT, xi(0), xv(y)))));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_n(5);
  sresult(k, s, V_INT);
  assert_run("it = [0, -1, -4, 9, 16] : [int]\n", seq(type_int), 1, R(run(k, ivec(4, 0, 0, 0, 0)), 0));

  /* an if reads only the lanes of its branch: append's pull
     { i => if i < #a then a[i] else b[i - #a] } (#a + #b) */
  k = kernel();
  LcuVar *a = kparam(k, V_INT), *b = kparam(k, V_INT), *m = kparam(k, S_INT);
  t = index_thunk(&i);
  tusing(t, a);
  tusing(t, b);
  tbody(t, xif(xop(FLAT_LT, FB_BOOL, xv(i), xlen(a)), xidx(a, xv(i)),
               xidx(b, xop(FLAT_SUB, FB_INT, xv(i), xlen(a)))));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(m);
  sresult(k, s, V_INT);
  assert_run("it = [1, 2, 7, 8, 9] : [int]\n", seq(type_int), 1, R(run(k, ivec(2, 1, 2), ivec(3, 7, 8, 9), AI(5)), 0));
  assert_run("it = [7] : [int]\n", seq(type_int), 1, R(run(k, ivec(0), ivec(1, 7), AI(1)), 0));
  /* the lanes of each branch interleaved: { i => if i % 2 == 0 then xs[i / 2] else 0 - i } */
  k = kernel();
  xs = kparam(k, V_INT);
  t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, xif(xop(FLAT_EQ, FB_BOOL, xop(FLAT_REM, FB_INT, xv(i), xi(2)), xi(0)),
               xidx(xs, xop(FLAT_DIV, FB_INT, xv(i), xi(2))), xop(FLAT_NEG, FB_INT, xv(i), NULL)));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_n(5);
  sresult(k, s, V_INT);
  assert_run("it = [10, -1, 20, -3, 30] : [int]\n", seq(type_int), 1, R(run(k, ivec(3, 10, 20, 30)), 0));
}

/* A thunk's slice of a vector: xs[i + 1] over #xs - 1 lanes, and xs[i]
   over fewer lanes than #xs. */
static void test_map_slices(void **state) {
  (void)state;
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT), *n = kparam(k, S_INT);
  LcuVar *i;
  LcuThunk *t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, xidx(xs, xop(FLAT_ADD, FB_INT, xv(i), xi(1))));
  tbody(t, xidx(xs, xv(i)));
  LcuSoac *s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(n);
  sresult(k, s, V_INT);
  sresult(k, s, V_INT);
  LcuStmt *r = run(k, ivec(4, 5, 6, 7, 8), AI(3));
  assert_run("it = ([6, 7, 8], [5, 6, 7]) : [int], [int]\n", pair(seq(type_int), seq(type_int)), 2, R(r, 0), R(r, 1));
  /* one lane too many: the subscript error of the first bad lane */
  r = run_at(at(2, 3), k, ivec(4, 5, 6, 7, 8), AI(4), NULL);
  assert_run("error: t.nesl:2:3: subscript 4 is out of range for a sequence of length 4\n",
             pair(seq(type_int), seq(type_int)), 2, R(r, 0), R(r, 1));
}

static void test_thunk_errors(void **state) {
  (void)state;
  /* { i => 12 / xs[i] using xs } (#xs): the error of the flat DIV */
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, xop(FLAT_DIV, FB_INT, xi(12), xidx(xs, xv(i))));
  LcuSoac *s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  assert_run("it = [6, -4] : [int]\n", seq(type_int), 1, R(run(k, ivec(2, 2, -3)), 0));
  /* the error is reported where the kernel is run */
  assert_run("error: t.nesl:2:5: /: division by zero\n", seq(type_int), 1,
             R(run_at(at(2, 5), k, ivec(3, 1, 0, 1), NULL), 0));
  assert_run("error: t.nesl:4:1: /: division by zero\n", seq(type_int), 1,
             R(run_at(at(4, 1), k, ivec(1, 0), NULL), 0));
  /* an expression of another NESL expression than its SOAC's (as after
     fusion) is reported at its own location, wherever the run is */
  k = kernel();
  xs = kparam(k, V_INT);
  t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, lcu_exp_op(at(5, 7), FLAT_DIV, FB_INT, 2, xi(12), xidx(xs, xv(i)), NULL));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  assert_run("error: t.nesl:5:7: /: division by zero\n", seq(type_int), 1,
             R(run_at(at(4, 1), k, ivec(1, 0), NULL), 0));
  /* a subscript out of range */
  k = kernel();
  xs = kparam(k, V_INT);
  LcuVar *idx = kparam(k, V_INT);
  t = index_thunk(&i);
  tusing(t, xs);
  tusing(t, idx);
  tbody(t, xidx(xs, xidx(idx, xv(i))));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(idx);
  sresult(k, s, V_INT);
  assert_run("it = [30, 10] : [int]\n", seq(type_int), 1, R(run(k, ivec(3, 10, 20, 30), ivec(2, 2, 0)), 0));
  assert_run("error: t.nesl:3:4: subscript 3 is out of range for a sequence of length 3\n", seq(type_int), 1,
             R(run_at(at(3, 4), k, ivec(3, 10, 20, 30), ivec(2, 0, 3), NULL), 0));
  assert_run("error: t.nesl:3:4: subscript -1 is out of range for a sequence of length 0\n", seq(type_int), 1,
             R(run_at(at(3, 4), k, ivec(0), ivec(1, -1), NULL), 0));
  /* floats: an overflow is an infinity (an error only in the value), sqrt
     of a negative number an error where it happens */
  k = kernel();
  LcuVar *fs = kparam(k, V_FLOAT);
  t = index_thunk(&i);
  tusing(t, fs);
  tbody(t, xop(FLAT_MUL, FB_FLOAT, xidx(fs, xv(i)), xf(1e300)));
  tbody(t, xop(FLAT_SQRT, FB_FLOAT, xidx(fs, xv(i)), NULL));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(fs);
  sresult(k, s, V_FLOAT);
  sresult(k, s, V_FLOAT);
  LcuStmt *r = run_at(at(3, 3), k, fvec(2, 1.0, 1e10), NULL);
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n",
             pair(seq(type_float), seq(type_float)), 2, R(r, 0), R(r, 1));
  r = run_at(at(3, 3), k, fvec(2, 4.0, -1.0), NULL);
  assert_run("error: t.nesl:3:3: sqrt: the argument -1 is negative\n", pair(seq(type_float), seq(type_float)), 2,
             R(r, 0), R(r, 1));
  /* an error in a branch no lane takes is no error */
  k = kernel();
  xs = kparam(k, V_INT);
  t = index_thunk(&i);
  tusing(t, xs);
  tbody(t, xif(xop(FLAT_EQ, FB_BOOL, xidx(xs, xv(i)), xi(0)), xi(0), xop(FLAT_DIV, FB_INT, xi(1), xidx(xs, xv(i)))));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  assert_run("it = [1, 0, 0] : [int]\n", seq(type_int), 1, R(run(k, ivec(3, 1, 0, 5)), 0));
  /* a negative size is dist's error */
  k = kernel();
  LcuVar *n = kparam(k, S_INT);
  t = index_thunk(&i);
  tbody(t, xi(7));
  s = soac(k, SOAC_MAP);
  s->pull = t;
  s->size = size_of(n);
  sresult(k, s, V_INT);
  assert_run("error: t.nesl:2:2: dist: negative length -1\n", seq(type_int), 1, R(run_at(at(2, 2), k, AI(-1), NULL), 0));
  assert_run("it = [7, 7] : [int]\n", seq(type_int), 1, R(run(k, AI(2)), 0));
}

/* ---- PERMUTE ---- */

/* PERMUTE { i => vals[i] } { i => idx[i] } (#idx) [into dst] */
static LcuKernel *permute_kernel(bool into) {
  LcuKernel *k = kernel();
  LcuVar *vals = kparam(k, V_INT), *idx = kparam(k, V_INT);
  LcuVar *dst = into ? kparam(k, V_INT) : NULL;
  LcuVar *i, *j;
  LcuThunk *a = index_thunk(&i);
  tusing(a, vals);
  tbody(a, xidx(vals, xv(i)));
  LcuThunk *ix = index_thunk(&j);
  tusing(ix, idx);
  tbody(ix, xidx(idx, xv(j)));
  LcuSoac *s = soac(k, SOAC_PERMUTE);
  s->pull = a;
  s->second = ix;
  s->size = size_of(idx);
  s->into = dst;
  sresult(k, s, V_INT);
  return k;
}

static void test_permute(void **state) {
  (void)state;
  LcuKernel *perm = permute_kernel(false);
  assert_run("it = [30, 10, 20] : [int]\n", seq(type_int), 1,
             R(run(perm, ivec(3, 10, 20, 30), ivec(3, 1, 2, 0)), 0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(run(perm, ivec(0), ivec(0)), 0));
  LcuKernel *into = permute_kernel(true);
  assert_run("it = [8, 0, 0, 0, 7] : [int]\n", seq(type_int), 1,
             R(run(into, ivec(2, 7, 8), ivec(2, 4, 0), ivec(5, 0, 0, 0, 0, 0)), 0));
  /* in order: a later write wins */
  assert_run("it = [1, 6, 3] : [int]\n", seq(type_int), 1,
             R(run(into, ivec(2, 5, 6), ivec(2, 1, 1), ivec(3, 1, 2, 3)), 0));
  /* nothing written: the copy of the destination */
  assert_run("it = [1, 2] : [int]\n", seq(type_int), 1, R(run(into, ivec(0), ivec(0), ivec(2, 1, 2)), 0));
  /* an index out of range: the flat SCATTER's error */
  assert_run("error: t.nesl:3:4: <-: index 5 is out of range for a sequence of length 3\n", seq(type_int), 1,
             R(run_at(at(3, 4), into, ivec(1, 1), ivec(1, 5), ivec(3, 10, 20, 30), NULL), 0));
  assert_run("error: t.nesl:3:4: <-: index -1 is out of range for a sequence of length 2\n", seq(type_int), 1,
             R(run_at(at(3, 4), perm, ivec(2, 1, 2), ivec(2, 0, -1), NULL), 0));
  /* several values: a permutation of pairs */
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT), *fs = kparam(k, V_FLOAT);
  LcuVar *i, *j;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tusing(a, fs);
  tbody(a, xidx(xs, xv(i)));
  tbody(a, xidx(fs, xv(i)));
  LcuThunk *ix = index_thunk(&j);
  tusing(ix, xs);
  tbody(ix, xop(FLAT_SUB, FB_INT, xop(FLAT_SUB, FB_INT, xlen(xs), xi(1)), xv(j)));
  LcuSoac *s = soac(k, SOAC_PERMUTE);
  s->pull = a;
  s->second = ix;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  sresult(k, s, V_FLOAT);
  LcuStmt *r = run(k, ivec(3, 1, 2, 3), fvec(3, 0.5, 1.5, 2.5));
  assert_run("it = ([3, 2, 1], [2.5, 1.5, 0.5]) : [int], [float]\n", pair(seq(type_int), seq(type_float)), 2,
             R(r, 0), R(r, 1));
}

/* ---- REDUCE and SCAN ---- */

/* REDUCE (or SCAN) { i => xs[i] } (id) { (x, y) => x op y } (#xs) */
static LcuKernel *fold_kernel(LcuSoacKind kind, FlatBase b, FlatOp op, FlatAtom id) {
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, lcu_vec(b));
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xidx(xs, xv(i)));
  LcuThunk *o = thunk();
  LcuVar *x = tparam(o, b), *y = tparam(o, b);
  tbody(o, xop(op, b, xv(x), xv(y)));
  LcuSoac *s = soac(k, kind);
  s->pull = a;
  s->second = o;
  identity(s, id);
  s->size = size_of(xs);
  sresult(k, s, kind == SOAC_REDUCE ? lcu_scalar(b) : lcu_vec(b));
  return k;
}

static void test_reduce_and_scan(void **state) {
  (void)state;
  LcuKernel *sum = fold_kernel(SOAC_REDUCE, FB_INT, FLAT_ADD, fa_int(0));
  LcuKernel *scan = fold_kernel(SOAC_SCAN, FB_INT, FLAT_ADD, fa_int(0));
  assert_run("it = (8, [0, 3, 2, 6]) : int, [int]\n", pair(type_int, seq(type_int)), 2,
             R(run(sum, ivec(4, 3, -1, 4, 2)), 0), R(run(scan, ivec(4, 3, -1, 4, 2)), 0));
  /* empty: the identity; an empty scan */
  assert_run("it = (0, []) : int, [int]\n", pair(type_int, seq(type_int)), 2, R(run(sum, ivec(0)), 0),
             R(run(scan, ivec(0)), 0));
  /* a non-zero identity is where the fold starts: (100 - 1) - 2 ... */
  LcuKernel *sub = fold_kernel(SOAC_REDUCE, FB_INT, FLAT_SUB, fa_int(100));
  LcuKernel *subscan = fold_kernel(SOAC_SCAN, FB_INT, FLAT_SUB, fa_int(100));
  assert_run("it = (94, [100, 99, 97]) : int, [int]\n", pair(type_int, seq(type_int)), 2,
             R(run(sub, ivec(3, 1, 2, 3)), 0), R(run(subscan, ivec(3, 1, 2, 3)), 0));
  assert_run("it = 100 : int\n", type_int, 1, R(run(sub, ivec(0)), 0));
  /* floats: in order from the identity, as the flat interpreter adds
     them: ((0 + 1) + 1e100) - 1e100 is 0 */
  LcuKernel *fsum = fold_kernel(SOAC_REDUCE, FB_FLOAT, FLAT_ADD, fa_float(0.0));
  assert_run("it = 0.0 : float\n", type_float, 1, R(run(fsum, fvec(3, 1.0, 1e100, -1e100)), 0));
  /* an overflow is an infinity, as the flat REDUCE_ADD's */
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n", type_float, 1,
             R(run(fsum, fvec(2, 1e308, 1e308)), 0));
  LcuKernel *fscan = fold_kernel(SOAC_SCAN, FB_FLOAT, FLAT_MUL, fa_float(1.0));
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n",
             seq(type_float), 1, R(run(fscan, fvec(3, 1e300, 1e300, 2.0)), 0));
  assert_run("it = [1.0, 2.0, 1.0] : [float]\n", seq(type_float), 1, R(run(fscan, fvec(3, 2.0, 0.5, 4.0)), 0));
  /* the operator's other errors name its own primitive */
  LcuKernel *quot = fold_kernel(SOAC_REDUCE, FB_INT, FLAT_DIV, fa_int(1000));
  assert_run("it = 50 : int\n", type_int, 1, R(run(quot, ivec(2, 4, 5)), 0));
  assert_run("error: t.nesl:1:1: /: division by zero\n", type_int, 1, R(run(quot, ivec(2, 4, 0)), 0));
}

/* A reduction of (value, index) pairs: max_index as lower.c makes it,
   two values and two identities, and an `if` in the operator. */
static void test_reduce_tuples(void **state) {
  (void)state;
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xidx(xs, xv(i)));
  tbody(a, xv(i));
  LcuThunk *o = thunk();
  LcuVar *x = tparam(o, FB_INT), *xi_ = tparam(o, FB_INT), *y = tparam(o, FB_INT), *yi = tparam(o, FB_INT);
  LcuExp *keep = xop(FLAT_OR, FB_BOOL, xop(FLAT_GT, FB_BOOL, xv(x), xv(y)),
                     xop(FLAT_AND, FB_BOOL, xop(FLAT_EQ, FB_BOOL, xv(x), xv(y)), xop(FLAT_LE, FB_BOOL, xv(xi_), xv(yi))));
  tbody(o, xif(keep, xv(x), xv(y)));
  tbody(o, xif(keep, xv(xi_), xv(yi)));
  LcuSoac *s = soac(k, SOAC_REDUCE);
  s->pull = a;
  s->second = o;
  identity(s, fa_int(INT32_MIN));
  identity(s, fa_int(INT32_MAX));
  s->size = size_of(xs);
  sresult(k, s, S_INT);
  sresult(k, s, S_INT);
  LcuStmt *r = run(k, ivec(5, 2, 7, 1, 7, 1));
  assert_run("it = (7, 1) : int, int\n", pair(type_int, type_int), 2, R(r, 0), R(r, 1));
  r = run(k, ivec(0));
  assert_run("it = (-2147483648, 2147483647) : int, int\n", pair(type_int, type_int), 2, R(r, 0), R(r, 1));
  /* the same as a SCAN: each element's exclusive prefix, in both vectors */
  LcuKernel *scan = kernel();
  LcuVar *sx = kparam(scan, V_INT);
  LcuThunk *sa = index_thunk(&i);
  tusing(sa, sx);
  tbody(sa, xidx(sx, xv(i)));
  tbody(sa, xv(i));
  LcuSoac *ss = soac(scan, SOAC_SCAN);
  ss->pull = sa;
  ss->second = o;
  ss->identity = s->identity;
  ss->size = size_of(sx);
  sresult(scan, ss, V_INT);
  sresult(scan, ss, V_INT);
  r = run(scan, ivec(4, 3, 9, 9, 1));
  assert_run("it = ([-2147483648, 3, 9, 9], [2147483647, 0, 1, 1]) : [int], [int]\n",
             pair(seq(type_int), seq(type_int)), 2, R(r, 0), R(r, 1));
}

/* ---- FILTER and PARTITION ---- */

/* FILTER (or PARTITION) { i => (xs[i], flags[i]) } { (x, f) => f } (#xs),
   as lower.c makes PACK */
static LcuKernel *pack_kernel(LcuSoacKind kind) {
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT), *flags = kparam(k, V_BOOL);
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tusing(a, flags);
  tbody(a, xidx(xs, xv(i)));
  tbody(a, xidx(flags, xv(i)));
  LcuThunk *p = thunk();
  tparam(p, FB_INT);
  LcuVar *f = tparam(p, FB_BOOL);
  tbody(p, xv(f));
  LcuSoac *s = soac(k, kind);
  s->pull = a;
  s->second = p;
  s->size = size_of(xs);
  for (int pass = 0; pass < (kind == SOAC_PARTITION ? 2 : 1); pass++) {
    sresult(k, s, V_INT);
    sresult(k, s, V_BOOL);
  }
  return k;
}

static void test_filter_and_partition(void **state) {
  (void)state;
  LcuKernel *filter = pack_kernel(SOAC_FILTER);
  LcuStmt *r = run(filter, ivec(5, 1, 2, 3, 4, 5), bvec(5, 1, 0, 0, 1, 1));
  assert_run("it = ([1, 4, 5], [T, T, T]) : [int], [bool]\n", pair(seq(type_int), seq(type_bool)), 2, R(r, 0), R(r, 1));
  r = run(filter, ivec(0), bvec(0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(r, 0));
  r = run(filter, ivec(2, 1, 2), bvec(2, 0, 0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(r, 0));
  LcuKernel *part = pack_kernel(SOAC_PARTITION);
  r = run(part, ivec(5, 1, 2, 3, 4, 5), bvec(5, 1, 0, 0, 1, 1));
  assert_run("it = ([1, 4, 5], [T, T, T], [2, 3], [F, F]) : [int], [bool], [int], [bool]\n",
             pair(seq(type_int), pair(seq(type_bool), pair(seq(type_int), seq(type_bool)))), 4, R(r, 0), R(r, 1),
             R(r, 2), R(r, 3));
  /* a predicate over a computed value: { i => xs[i] * xs[i] } { x => x > 4 } */
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xop(FLAT_MUL, FB_INT, xidx(xs, xv(i)), xidx(xs, xv(i))));
  LcuThunk *p = thunk();
  LcuVar *x = tparam(p, FB_INT);
  tbody(p, xop(FLAT_GT, FB_BOOL, xv(x), xi(4)));
  LcuSoac *s = soac(k, SOAC_FILTER);
  s->pull = a;
  s->second = p;
  s->size = size_of(xs);
  sresult(k, s, V_INT);
  assert_run("it = [9, 16] : [int]\n", seq(type_int), 1, R(run(k, ivec(4, 1, 3, -2, 4)), 0));
  LcuStats st = lcu_interp_stats(IN);
  assert_int_equal(st.elements, 5 + 0 + 2 + 5 + 4);
}

/* ---- ONCE ---- */

static void test_once(void **state) {
  (void)state;
  /* { () => (xs[j], xs[j] * 10) using xs, j }, as lower.c makes ELT */
  LcuKernel *k = kernel();
  LcuVar *xs = kparam(k, V_INT), *j = kparam(k, S_INT);
  LcuThunk *t = thunk();
  tusing(t, xs);
  tusing(t, j);
  tbody(t, xidx(xs, xv(j)));
  tbody(t, xop(FLAT_MUL, FB_INT, xidx(xs, xv(j)), xi(10)));
  LcuSoac *s = soac(k, SOAC_ONCE);
  s->pull = t;
  sresult(k, s, S_INT);
  sresult(k, s, S_INT);
  LcuStmt *r = run(k, ivec(3, 4, 5, 6), AI(2));
  assert_run("it = (6, 60) : int, int\n", pair(type_int, type_int), 2, R(r, 0), R(r, 1));
  LcuStats st = lcu_interp_stats(IN);
  assert_int_equal(st.elements, 1);
  r = run_at(at(3, 4), k, ivec(0), AI(-1), NULL);
  assert_run("error: t.nesl:3:4: subscript -1 is out of range for a sequence of length 0\n",
             pair(type_int, type_int), 2, R(r, 0), R(r, 1));
  /* in library code, as the flat ELT reports it (a statement inlined
     from the library's `get`, called at 5:6) */
  r = run_at(at(3, 4), k, ivec(2, 1, 2), AI(2), NULL);
  r->lib_fn = "get";
  r->user_loc = at(5, 6);
  assert_run("error: t.nesl:5:6: get: index 2 is out of range for a sequence of length 2\n",
             pair(type_int, type_int), 2, R(r, 0), R(r, 1));
  /* and a MAP's subscript as the flat GATHER */
  k = kernel();
  xs = kparam(k, V_INT);
  LcuVar *idx = kparam(k, V_INT);
  LcuVar *i;
  t = index_thunk(&i);
  tusing(t, xs);
  tusing(t, idx);
  tbody(t, xidx(xs, xidx(idx, xv(i))));
  LcuSoac *m = soac(k, SOAC_MAP);
  m->pull = t;
  m->size = size_of(idx);
  sresult(k, m, V_INT);
  LcuStmt *g = run_at(at(3, 4), k, ivec(2, 1, 2), ivec(2, 0, 2), NULL);
  g->lib_fn = "get";
  g->user_loc = at(4, 4);
  assert_run("error: t.nesl:4:4: get: index 2 is out of range for a sequence of length 2\n", seq(type_int), 1,
             R(g, 0));
}

/* ---- segmented SOACs ---- */

/* SEG_REDUCE (or SEG_SCAN) { i => xs[i] } (id) { (x, y) => x op y } sd */
static LcuKernel *seg_fold_kernel(LcuSoacKind kind, FlatBase b, FlatOp op, FlatAtom id) {
  LcuKernel *k = kernel();
  LcuVar *d = kparam(k, SD), *xs = kparam(k, lcu_vec(b));
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xidx(xs, xv(i)));
  LcuThunk *o = thunk();
  LcuVar *x = tparam(o, b), *y = tparam(o, b);
  tbody(o, xop(op, b, xv(x), xv(y)));
  LcuSoac *s = soac(k, kind);
  s->pull = a;
  s->second = o;
  identity(s, id);
  s->segdes = d;
  sresult(k, s, lcu_vec(b));
  return k;
}

static void test_seg_reduce_and_scan(void **state) {
  (void)state;
  LcuKernel *sum = seg_fold_kernel(SOAC_SEG_REDUCE, FB_INT, FLAT_ADD, fa_int(0));
  LcuKernel *scan = seg_fold_kernel(SOAC_SEG_SCAN, FB_INT, FLAT_ADD, fa_int(0));
  LcuKernel *sub = seg_fold_kernel(SOAC_SEG_REDUCE, FB_INT, FLAT_SUB, fa_int(10));
  LcuAtom *d = segdes(ivec(4, 2, 0, 3, 0));
  LcuAtom *v = ivec(5, 1, 2, 3, 4, 5);
  /* empty segments: the identity */
  assert_run("it = ([3, 0, 12, 0], [0, 1, 0, 3, 7], [7, 10, -2, 10]) : [int], [int], [int]\n",
             pair(seq(type_int), pair(seq(type_int), seq(type_int))), 3, R(run(sum, d, v), 0), R(run(scan, d, v), 0),
             R(run(sub, d, v), 0));
  /* a sd without segments */
  LcuAtom *none = segdes(ivec(0));
  assert_run("it = ([], []) : [int], [int]\n", pair(seq(type_int), seq(type_int)), 2, R(run(sum, none, ivec(0)), 0),
             R(run(scan, none, ivec(0)), 0));
  LcuStats st = lcu_interp_stats(IN);
  assert_true(st.elements >= 15);
  /* floats within each segment in order; an overflow in one segment */
  LcuKernel *fsum = seg_fold_kernel(SOAC_SEG_REDUCE, FB_FLOAT, FLAT_ADD, fa_float(0.0));
  assert_run("it = [0.0, 0.0, 5.0] : [float]\n", seq(type_float), 1,
             R(run(fsum, segdes(ivec(3, 3, 0, 1)), fvec(4, 1.0, 1e100, -1e100, 5.0)), 0));
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n",
             seq(type_float), 1, R(run(fsum, segdes(ivec(2, 1, 2)), fvec(3, 1.0, 1e308, 1e308)), 0));
}

/* SEG_FILTER (or SEG_PARTITION) { i => xs[i] } { x => x > 2 } sd */
static LcuKernel *seg_filter_kernel(LcuSoacKind kind) {
  LcuKernel *k = kernel();
  LcuVar *d = kparam(k, SD), *xs = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xidx(xs, xv(i)));
  LcuThunk *p = thunk();
  LcuVar *x = tparam(p, FB_INT);
  tbody(p, xop(FLAT_GT, FB_BOOL, xv(x), xi(2)));
  LcuSoac *s = soac(k, kind);
  s->pull = a;
  s->second = p;
  s->segdes = d;
  sresult(k, s, V_INT);
  sresult(k, s, SD);
  if (kind == SOAC_SEG_PARTITION) {
    sresult(k, s, V_INT);
    sresult(k, s, SD);
  }
  return k;
}

static void test_seg_filter_and_partition(void **state) {
  (void)state;
  LcuKernel *filter = seg_filter_kernel(SOAC_SEG_FILTER);
  LcuStmt *r = run(filter, segdes(ivec(4, 2, 0, 3, 1)), ivec(6, 1, 5, 3, 0, 4, 2));
  /* [[1, 5], [], [3, 0, 4], [2]] -> [[5], [], [3, 4], []] */
  assert_run("it = [[5], [], [3, 4], []] : [[int]]\n", seq(seq(type_int)), 2, R(r, 1), R(r, 0));
  r = run(filter, segdes(ivec(0)), ivec(0));
  assert_run("it = [] : [[int]]\n", seq(seq(type_int)), 2, R(r, 1), R(r, 0));
  LcuKernel *part = seg_filter_kernel(SOAC_SEG_PARTITION);
  r = run(part, segdes(ivec(4, 2, 0, 3, 1)), ivec(6, 1, 5, 3, 0, 4, 2));
  assert_run("it = ([[5], [], [3, 4], []], [[1], [], [0], [2]]) : [[int]], [[int]]\n",
             pair(seq(seq(type_int)), seq(seq(type_int))), 4, R(r, 1), R(r, 0), R(r, 3), R(r, 2));
}

/* SEG_PERMUTE { i => xs[i] } { i => idx[i] } sd [into dst]: places local
   to each segment */
static LcuKernel *seg_permute_kernel(bool into) {
  LcuKernel *k = kernel();
  LcuVar *d = kparam(k, SD), *xs = kparam(k, V_INT), *idx = kparam(k, V_INT);
  LcuVar *dst = into ? kparam(k, V_INT) : NULL;
  LcuVar *i, *j;
  LcuThunk *a = index_thunk(&i);
  tusing(a, xs);
  tbody(a, xidx(xs, xv(i)));
  LcuThunk *ix = index_thunk(&j);
  tusing(ix, idx);
  tbody(ix, xidx(idx, xv(j)));
  LcuSoac *s = soac(k, SOAC_SEG_PERMUTE);
  s->pull = a;
  s->second = ix;
  s->segdes = d;
  s->into = dst;
  sresult(k, s, V_INT);
  return k;
}

static void test_seg_permute(void **state) {
  (void)state;
  LcuKernel *perm = seg_permute_kernel(false);
  LcuAtom *d = segdes(ivec(3, 2, 0, 3));
  assert_run("it = [2, 1, 5, 3, 4] : [int]\n", seq(type_int), 1,
             R(run(perm, d, ivec(5, 1, 2, 3, 4, 5), ivec(5, 1, 0, 1, 2, 0)), 0));
  LcuKernel *into = seg_permute_kernel(true);
  /* into a copy: later writes win, unwritten places keep their values */
  assert_run("it = [2, 9, 9, 5, 9] : [int]\n", seq(type_int), 1,
             R(run(into, segdes(ivec(2, 2, 3)), ivec(5, 1, 2, 3, 4, 5), ivec(5, 0, 0, 1, 1, 1), ivec(5, 9, 9, 9, 9, 9)),
               0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(run(perm, segdes(ivec(0)), ivec(0), ivec(0)), 0));
  /* a place outside its segment */
  assert_run("error: t.nesl:2:2: <-: index 2 is out of range for a sequence of length 2\n", seq(type_int), 1,
             R(run_at(at(2, 2), perm, segdes(ivec(3, 2, 0, 3)), ivec(5, 1, 2, 3, 4, 5), ivec(5, 2, 0, 1, 2, 0), NULL),
               0));
}

/* SEG_MAP { (i, s) => vals[s] * 10 + i using vals } sd: each element
   with its segment, the nonempty one where empty segments share its
   offset */
static LcuKernel *seg_map_kernel(void) {
  LcuKernel *k = kernel();
  LcuVar *d = kparam(k, SD), *vals = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *a = index_thunk(&i);
  LcuVar *g = tparam(a, FB_INT);
  tusing(a, vals);
  tbody(a, xop(FLAT_ADD, FB_INT, xop(FLAT_MUL, FB_INT, xidx(vals, xv(g)), xi(10)), xv(i)));
  LcuSoac *s = soac(k, SOAC_SEG_MAP);
  s->pull = a;
  s->segdes = d;
  sresult(k, s, V_INT);
  return k;
}

static void test_seg_map(void **state) {
  (void)state;
  LcuKernel *m = seg_map_kernel();
  /* segments [2, 0, 3, 0, 1]: elements 0 1 | | 2 3 4 | | 5 */
  assert_run("it = [10, 11, 32, 33, 34, 55] : [int]\n", seq(type_int), 1,
             R(run(m, segdes(ivec(5, 2, 0, 3, 0, 1)), ivec(5, 1, 2, 3, 4, 5)), 0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(run(m, segdes(ivec(2, 0, 0)), ivec(2, 1, 2)), 0));
  assert_run("it = [] : [int]\n", seq(type_int), 1, R(run(m, segdes(ivec(0)), ivec(0)), 0));
  /* a read out of range is the thunk's error, at its element */
  assert_run("error: t.nesl:1:1: subscript 2 is out of range for a sequence of length 2\n", seq(type_int), 1,
             R(run(m, segdes(ivec(3, 1, 1, 1)), ivec(2, 1, 2)), 0));
}

/* ---- library kernels ---- */

static void test_library_kernels(void **state) {
  (void)state;
  LcuAtom *d = segdes(ivec(4, 2, 0, 3, 0));
  LcuAtom *lengths, *offsets, *ids, *rank, *down, *srank;
  library_at(at(1, 1), LIB_SEG_LENGTHS, V_INT, &lengths, d, NULL);
  library_at(at(1, 1), LIB_SEG_OFFSETS, V_INT, &offsets, d, NULL);
  library_at(at(1, 1), LIB_SEG_IDS, V_INT, &ids, d, NULL);
  assert_run("it = ([2, 0, 3, 0], [0, 2, 2, 5], [0, 0, 2, 2, 2]) : [int], [int], [int]\n",
             pair(seq(type_int), pair(seq(type_int), seq(type_int))), 3, lengths, offsets, ids);
  LcuAtom *v = ivec(4, 3, 1, 3, 0);
  library_at(at(1, 1), LIB_RANK, V_INT, &rank, v, NULL);
  library_at(at(1, 1), LIB_RANK_DOWN, V_INT, &down, v, NULL);
  library_at(at(1, 1), LIB_SEG_RANK, V_INT, &srank, segdes(ivec(2, 2, 2)), v, NULL);
  assert_run("it = ([2, 1, 3, 0], [0, 2, 1, 3], [1, 0, 1, 0]) : [int], [int], [int]\n",
             pair(seq(type_int), pair(seq(type_int), seq(type_int))), 3, rank, down, srank);
  /* a negative length */
  LcuAtom *bad;
  library_at(at(4, 3), LIB_MAKE_SEGDES, SD, &bad, ivec(2, 1, -2), NULL);
  assert_run("error: t.nesl:4:3: negative length -2\n", seq(seq(type_int)), 2, bad, ivec(0));
  /* name, eql, hash on (int, [char]) values */
  LcuAtom *names;
  LcuSoac *name =
      library_at(at(1, 1), LIB_NAME, V_INT, &names, ivec(3, 1, 2, 1), segdes(ivec(3, 1, 0, 1)), cvec("aa"), NULL);
  name->elem_name = type_value_to_string(pair(type_int, seq(type_char)));
  name->layout = flatten_rt_layout(env, pair(type_int, seq(type_char)));
  assert_run("it = [2, 1, 2] : [int]\n", seq(type_int), 1, names);
  LcuAtom *same;
  LcuSoac *eql = library_at(at(1, 1), LIB_EQL, V_BOOL, &same, ivec(2, 1, 2), ivec(2, 1, 3), NULL);
  eql->elem_name = type_value_to_string(type_int);
  eql->layout = flatten_rt_layout(env, type_int);
  eql->lifted = true;
  assert_run("it = [T, F] : [bool]\n", seq(type_bool), 1, same);
  LcuAtom *h;
  LcuSoac *hash = library_at(at(2, 2), LIB_HASH, V_INT, &h, ivec(1, 5), ivec(1, 0), NULL);
  hash->elem_name = type_value_to_string(type_int);
  hash->layout = flatten_rt_layout(env, type_int);
  hash->lifted = true;
  assert_run("error: t.nesl:2:2: hash: the range 0 is not positive\n", seq(type_int), 1, h);
  LcuStats st = lcu_interp_stats(IN);
  assert_int_equal(st.kernels, 14); /* 10 library kernels, 3 segment descriptors, 1 empty vector */
}

/* RAND as a library kernel: the flat formula (site, execution, element),
   and a scalar limit. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t draw(uint64_t state, int site, uint64_t execution, int64_t k) {
  const uint64_t gamma = 0x9e3779b97f4a7c15ULL;
  return mix64(mix64(state ^ mix64((uint64_t)site * gamma + execution)) + (uint64_t)(k + 1) * gamma);
}

static void test_rand(void **state) {
  (void)state;
  rt_rand_seed(0);
  uint64_t s0 = rt_rand_state(); /* seed 0 */
  LcuKernel *k = kernel();
  LcuVar *limits = kparam(k, V_INT);
  LcuSoac *s = soac(k, SOAC_LIBRARY);
  s->library = LIB_RAND;
  s->site = 7;
  vec_push(&s->args, limits);
  sresult(k, s, V_INT);
  LcuAtom *b = ivec(3, 100, 0, 1000);
  LcuAtom *r0 = R(run(k, b), 0), *r1 = R(run(k, b), 0);
  LcuAtom *one;
  LcuSoac *sc = library_at(at(1, 1), LIB_RAND, S_INT, &one, scalar_at(at(1, 1), FLAT_COPY, S_INT, AI(50), NULL), NULL);
  sc->site = 9;
  char want[256];
  snprintf(want, sizeof want, "it = ([%d, 0, %d], [%d, 0, %d], %d) : [int], [int], int\n",
           (int)(draw(s0, 7, 0, 0) % 100), (int)(draw(s0, 7, 0, 2) % 1000), (int)(draw(s0, 7, 1, 0) % 100),
           (int)(draw(s0, 7, 1, 2) % 1000), (int)(draw(s0, 9, 0, 0) % 50));
  assert_run(want, pair(seq(type_int), pair(seq(type_int), type_int)), 3, r0, r1, one);
}

/* ---- the CPU level ---- */

static void test_scalar_length_time(void **state) {
  (void)state;
  LcuAtom *x = scalar_at(at(1, 1), FLAT_ADD, S_INT, AI(2), AI(3));
  LcuAtom *y = scalar_at(at(1, 1), FLAT_SELECT, S_INT, AB(false), x);
  LcuStmt *sel = blk->stmts.data[blk->stmts.len - 1];
  vec_push(&sel->args, AI(9));
  LcuAtom *v = ivec(3, 1, 2, 3);
  LcuAtom *n = result(add(lcu_stmt_length(at(1, 1), LEN_VECTOR, v)), S_INT);
  LcuAtom *d = segdes(ivec(3, 2, 0, 4));
  LcuStmt *segs = add(lcu_stmt_length(at(1, 1), LEN_SEGMENTS, d));
  LcuStmt *total = add(lcu_stmt_length(at(1, 1), LEN_TOTAL, d));
  assert_run("it = (5, 9, 3, 3, 6) : int, int, int, int, int\n",
             pair(type_int, pair(type_int, pair(type_int, pair(type_int, type_int)))), 5, x, y, n,
             result(segs, S_INT), result(total, S_INT));
  /* time: the body's results and the seconds it took */
  LcuStmt *tm = add(lcu_stmt_time(at(1, 1), lcu_block_new()));
  LcuBlock *saved = enter(tm->body);
  lcu_block_return(tm->body, scalar_at(at(1, 1), FLAT_MUL, S_INT, AI(6), AI(7)));
  enter(saved);
  LcuAtom *product = result(tm, S_INT), *seconds = result(tm, S_FLOAT);
  LcuAtom *zero = lcu_atom_const(fa_float(0.0));
  assert_run("it = (42, T) : int, bool\n", pair(type_int, type_bool), 2, product,
             scalar_at(at(1, 1), FLAT_GE, S_BOOL, seconds, zero));
  /* a scalar operation's error */
  assert_run("error: t.nesl:2:5: rem: division by zero\n", type_int, 1,
             scalar_at(at(2, 5), FLAT_REM, S_INT, AI(1), AI(0)));
}

static void test_host_statements(void **state) {
  (void)state;
  /* print_string: the program's own output, then the transcript */
  LcuStmt *p = host_at(at(1, 1), FLAT_HOST_PRIM, cvec("no newline"), NULL);
  p->flat->prim = "print_string";
  p->flat->host = RT_HOST_PRINT_STRING;
  p->flat->elem_name = type_value_to_string(seq(type_char));
  p->flat->result_name = type_value_to_string(type_bool);
  p->flat->layout = flatten_rt_layout(env, seq(type_char));
  p->flat->result_layout = flatten_rt_layout(env, type_bool);
  assert_run("no newline\nit = T : bool\n", type_bool, 1, result(p, S_BOOL));
  /* error and error_any */
  host_at(at(2, 3), FLAT_ERROR, cvec("oops"), NULL);
  assert_run("error: t.nesl:2:3: oops\n", type_int, 1, AI(1));
  host_at(at(2, 4), FLAT_ERROR_ANY, segdes(ivec(2, 2, 1)), cvec("abc"), NULL);
  assert_run("error: t.nesl:2:4: ab\n", type_int, 1, AI(1));
  host_at(at(2, 4), FLAT_ERROR_ANY, segdes(ivec(0)), empty_vec(FB_CHAR), NULL);
  assert_run("it = 1 : int\n", type_int, 1, AI(1));
  /* inlined from a library function: reported as in it */
  LcuStmt *e = host_at(at(2, 3), FLAT_ERROR, cvec("take: bounds"), NULL);
  e->lib_fn = "take";
  e->user_loc = at(5, 1);
  assert_run("error: t.nesl:5:1: take: bounds\n", type_int, 1, AI(1));
}

/* fact(n) = if n == 0 then 1 else n * fact(n - 1), with the product in
   a kernel: REDUCE over the vector [n, fact(n - 1)] */
static LcuFunc *make_fact(void) {
  LcuFunc *f = func("fact", false);
  LcuAtom *n = fparam(f, S_INT);
  LcuBlock *saved = enter(f->body);
  LcuAtom *zero = scalar_at(at(4, 2), FLAT_EQ, S_BOOL, n, AI(0));
  LcuBlock *then = lcu_block_new(), *els = lcu_block_new();
  vec_push(&then->results, AI(1));
  enter(els);
  LcuAtom *rec = call_at(at(4, 8), f, S_INT, scalar_at(at(4, 9), FLAT_SUB, S_INT, n, AI(1)), NULL);
  LcuStmt *pair_v = host_at(at(4, 6), FLAT_VECTOR, n, rec, NULL);
  LcuAtom *v = result(pair_v, V_INT);
  LcuKernel *prod = fold_kernel(SOAC_REDUCE, FB_INT, FLAT_MUL, fa_int(1));
  vec_push(&els->results, R(run_at(at(4, 6), prod, v, NULL), 0));
  enter(f->body);
  vec_push(&f->body->results, if_at(at(4, 1), zero, then, els, S_INT));
  enter(saved);
  return f;
}

static void test_call_if_recursion(void **state) {
  (void)state;
  LcuFunc *fact = make_fact();
  assert_run("it = 3628800 : int\n", type_int, 1, call_at(at(1, 1), fact, S_INT, AI(10), NULL));
  LcuStats st = lcu_interp_stats(IN);
  assert_int_equal(st.runs, 10);
  assert_int_equal(st.elements, 20);
  assert_run("it = 1 : int\n", type_int, 1, call_at(at(1, 1), fact, S_INT, AI(0), NULL));
  /* an if with vector results, both branches */
  LcuAtom *r[2];
  for (int i = 0; i < 2; i++) {
    LcuBlock *t = lcu_block_new(), *e = lcu_block_new();
    LcuBlock *saved = enter(t);
    vec_push(&t->results, ivec(2, 1, 2));
    enter(e);
    vec_push(&e->results, ivec(0));
    enter(saved);
    r[i] = if_at(at(1, 1), AB(i == 0), t, e, V_INT);
  }
  LcuAtom *a = r[0], *b = r[1];
  assert_run("it = ([1, 2], []) : [int], [int]\n", pair(seq(type_int), seq(type_int)), 2, a, b);
}

static void test_error_context(void **state) {
  (void)state;
  /* div(x) = kernel 100 / x, called through outer(y) = div(y) */
  LcuFunc *dv = func("div", false);
  LcuAtom *x = fparam(dv, S_INT);
  LcuBlock *saved = enter(dv->body);
  LcuAtom *xs = result(host_at(at(5, 7), FLAT_VECTOR, x, NULL), V_INT);
  LcuKernel *k = kernel();
  LcuVar *kx = kparam(k, V_INT);
  LcuVar *i;
  LcuThunk *th = index_thunk(&i);
  tusing(th, kx);
  tbody(th, xop(FLAT_DIV, FB_INT, xi(100), xidx(kx, xv(i))));
  LcuSoac *s = soac(k, SOAC_MAP);
  s->pull = th;
  s->size = size_of(kx);
  sresult(k, s, V_INT);
  vec_push(&dv->body->results, R(run_at(at(5, 7), k, xs, NULL), 0));
  LcuFunc *outer = func("outer", false);
  LcuAtom *y = fparam(outer, S_INT);
  enter(outer->body);
  vec_push(&outer->body->results, call_at(at(6, 2), dv, V_INT, y, NULL));
  enter(saved);
  assert_run("error: t.nesl:2:1: /: division by zero (in function div, line 5, column 7)\n", seq(type_int), 1,
             call_at(at(2, 1), outer, V_INT, AI(0), NULL));
  /* a library function (not inlined) called by the user's: its name */
  LcuFunc *lib = func("take", true);
  LcuAtom *n = fparam(lib, S_INT);
  saved = enter(lib->body);
  LcuAtom *ns = result(host_at(at(1, 1), FLAT_VECTOR, n, NULL), V_INT);
  vec_push(&lib->body->results, R(run_at(at(1, 1), k, ns, NULL), 0));
  LcuFunc *user = func("user", false);
  LcuAtom *un = fparam(user, S_INT);
  enter(user->body);
  vec_push(&user->body->results, call_at(at(3, 9), lib, V_INT, un, NULL));
  enter(saved);
  assert_run("error: t.nesl:3:1: take: division by zero\n", seq(type_int), 1,
             call_at(at(3, 1), lib, V_INT, AI(0), NULL));
  assert_run("error: t.nesl:2:2: take: division by zero (in function user, line 3, column 9)\n",
             seq(type_int), 1, call_at(at(2, 2), user, V_INT, AI(0), NULL));
  /* the next statement runs as if nothing happened */
  assert_run("it = [50] : [int]\n", seq(type_int), 1, call_at(at(1, 1), outer, V_INT, AI(2), NULL));
}

static void test_deep_recursion(void **state) {
  (void)state;
  /* loop(n) = loop(n + 1), on a stack of 1 MiB */
  LcuFunc *loop = func("loop", false);
  LcuAtom *n = fparam(loop, S_INT);
  LcuBlock *saved = enter(loop->body);
  vec_push(&loop->body->results,
           call_at(at(6, 3), loop, S_INT, scalar_at(at(6, 8), FLAT_ADD, S_INT, n, AI(1)), NULL));
  enter(saved);
  char base = 0;
  rt_set_stack(&base, 1 << 20);
  const char *got = run_expr(type_int, 1, call_at(at(1, 2), loop, S_INT, AI(0), NULL));
  rt_set_stack(NULL, 0);
  assert_non_null(strstr(got, "error: t.nesl:1:2: recursion too deep"));
  assert_non_null(strstr(got, "(in function loop, line 6, column 3)"));
  assert_run("it = 2 : int\n", type_int, 1, scalar_at(at(1, 1), FLAT_ADD, S_INT, AI(1), AI(1)));
}

/* ---- the top level ---- */

static Program *parse_and_check(const char *text) {
  env = tc_new_env();
  Program *prog = parse_program(source_from_string("p.nesl", text), false);
  assert_int_equal(tc_check_program(env, prog), 0);
  return prog;
}

static LcuTop *top_of(Program *prog, int i) {
  TopLevel *source = prog->tops.data[i];
  return lcu_top_new(flat_top(source, source->type), NULL);
}

/* One global of 'top' (flat and λcu), of type 't'. */
static LcuVar *define(LcuTop *top, LcuType t) {
  LcuVar *g = var(t);
  vec_push(&top->defines, g);
  vec_push(&P->globals, g);
  FlatVar *fg = NEW(FlatVar);
  fg->id = g->id;
  fg->type = (FlatType){t.kind == LT_SCALAR ? FT_SCALAR : t.kind == LT_VEC ? FT_VEC : FT_SEGDES, t.base};
  fg->global = true;
  vec_push(&top->flat->defines, fg);
  return g;
}

static void test_top_level(void **state) {
  (void)state;
  Program *prog = parse_and_check("function sq(x) = x * x;\n"
                                  "(a, _, b) = (1, [2, 3], [4.5]);\n"
                                  "a + 1;\n"
                                  "c = 1 / 0;\n"
                                  "c + 1;\n"
                                  "d = 5;\n");
  assert_string_equal(run_top(top_of(prog, 0)), "sq = fn : a -> a :: (a in number)\n");
  /* (a, _, b): one global per component, the wildcard's too */
  LcuTop *bind = top_of(prog, 1);
  bind->body = blk;
  vec_push(&blk->results, AI(1));
  vec_push(&blk->results, ivec(2, 2, 3));
  vec_push(&blk->results, fvec(1, 4.5));
  LcuVar *ga = define(bind, S_INT);
  define(bind, V_INT);
  define(bind, V_FLOAT);
  blk = lcu_block_new();
  assert_string_equal(run_top(bind), "(a, _, b) = (1, [2, 3], [4.5]) : int, [int], [float]\n");
  /* read by a later statement, and from a function */
  LcuFunc *f = func("get_a", false);
  LcuBlock *saved = enter(f->body);
  vec_push(&f->body->results, scalar_at(at(1, 1), FLAT_ADD, S_INT, A(ga), AI(10)));
  enter(saved);
  LcuTop *use = top_of(prog, 2);
  use->body = blk;
  vec_push(&blk->results, scalar_at(at(1, 1), FLAT_ADD, S_INT, A(ga), call_at(at(1, 1), f, S_INT, NULL)));
  blk = lcu_block_new();
  assert_string_equal(run_top(use), "it = 12 : int\n");
  /* a binding that fails leaves its variable without a value */
  LcuTop *cbind = top_of(prog, 3);
  cbind->body = blk;
  vec_push(&blk->results, scalar_at(at(5, 7), FLAT_DIV, S_INT, AI(1), AI(0)));
  LcuVar *gc = define(cbind, S_INT);
  blk = lcu_block_new();
  assert_string_equal(run_top(cbind), "error: t.nesl:5:7: /: division by zero\n");
  LcuTop *cuse = top_of(prog, 4);
  cuse->body = blk;
  vec_push(&blk->results, scalar_at(at(6, 1), FLAT_ADD, S_INT, A(gc), AI(1)));
  blk = lcu_block_new();
  assert_string_equal(run_top(cuse), "error: t.nesl:6:1: 'c' has no value: its definition stopped with an error\n");
  /* a library binding is silent, and defines its variable */
  LcuTop *lib = top_of(prog, 5);
  lib->flat->library = true;
  lib->body = blk;
  vec_push(&blk->results, AI(5));
  LcuVar *gd = define(lib, S_INT);
  blk = lcu_block_new();
  assert_string_equal(run_top(lib), "");
  assert_run("it = 6 : int\n", type_int, 1, scalar_at(at(1, 1), FLAT_ADD, S_INT, A(gd), AI(1)));
}

int main(void) {
  GC_INIT();
  base_env = tc_new_env();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_map),
      T(test_map_slices),
      T(test_thunk_errors),
      T(test_permute),
      T(test_reduce_and_scan),
      T(test_reduce_tuples),
      T(test_filter_and_partition),
      T(test_once),
      T(test_seg_reduce_and_scan),
      T(test_seg_filter_and_partition),
      T(test_seg_permute),
      T(test_seg_map),
      T(test_library_kernels),
      T(test_rand),
      T(test_scalar_length_time),
      T(test_host_statements),
      T(test_call_if_recursion),
      T(test_error_context),
      T(test_deep_recursion),
      T(test_top_level),
#undef T
  };
  return cmocka_run_group_tests_name("lcu_soacs", tests, NULL, NULL);
}
