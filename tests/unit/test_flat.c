/*
 * test_flat.c: unit tests for the flat IR (flatten/flat*.c): its
 * constructors, layouts, printer, checker and interpreter.
 *
 * Programs are built by hand through the constructors of flat.c, checked
 * with flat_check (every program a test runs must pass it), and run by the
 * interpreter into a memory stream; the tests compare the transcript it
 * prints, `it = VALUE : TYPE` and `error: ...` lines, with what the source
 * evaluator prints for the same NESL code.  Statements that need a
 * TopLevel (bindings, definitions) take it from a tiny NESL program
 * parsed and checked here.
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
#include "rt/scalar.h"

/* ---- the state of one test ---- */

static TypeEnv *base_env; /* the basis library, shared by the tests */
static TypeEnv *env;      /* the environment the interpreter prints with */
static Source *src;       /* where the statements' locations point */
static FlatProgram *P;    /* the program being built */
static FlatBlock *blk;    /* the block statements go into */
static FlatInterp *IN;    /* made at the first run */
static TopLevel *expr_src; /* a TOP_EXPR to stand for top-level expressions */

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
  P = NEW(FlatProgram);
  P->next_var = 1;
  blk = NEW(FlatBlock);
  IN = NULL;
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

/* ---- building ---- */

static Loc at(int line, int col) { return (Loc){.src = src, .line = line, .col = col}; }

#define S_INT flat_scalar(FB_INT)
#define S_FLOAT flat_scalar(FB_FLOAT)
#define S_BOOL flat_scalar(FB_BOOL)
#define S_CHAR flat_scalar(FB_CHAR)
#define V_INT_T flat_vec(FB_INT)
#define V_FLOAT_T flat_vec(FB_FLOAT)
#define V_BOOL_T flat_vec(FB_BOOL)
#define V_CHAR_T flat_vec(FB_CHAR)
#define SEGDES flat_segdes()

static FlatAtom *I(int32_t i) { return flat_int_atom(i); }
static FlatAtom *F(double f) { return flat_float_atom(f); }
static FlatAtom *B(bool b) { return flat_bool_atom(b); }
static FlatAtom *C(char c) { return flat_char_atom(c); }

static FlatStmt *new_stmt(FlatStmtKind kind, Loc loc) {
  FlatStmt *s = NEW(FlatStmt);
  s->kind = kind;
  s->loc = loc;
  vec_push(&blk->stmts, s);
  return s;
}

static FlatAtom *result(FlatStmt *s, FlatType t) {
  FlatVar *v = flat_new_var(P, t, NULL);
  vec_push(&s->results, v);
  return flat_var_atom(v);
}

static FlatStmt *op_stmt_va(Loc loc, FlatOp o, va_list ap) {
  FlatStmt *s = new_stmt(FS_OP, loc);
  s->op = o;
  for (FlatAtom *a; (a = va_arg(ap, FlatAtom *));)
    vec_push(&s->args, a);
  return s;
}

/* An operation at 'loc' with one result of type 't'; the arguments end
   with NULL. */
static FlatAtom *op_at(Loc loc, FlatOp o, FlatType t, ...) {
  va_list ap;
  va_start(ap, t);
  FlatStmt *s = op_stmt_va(loc, o, ap);
  va_end(ap);
  return result(s, t);
}

#define op(o, t, ...) op_at(at(1, 1), o, t, __VA_ARGS__, NULL)

/* An operation with no results, or several: the caller adds them. */
static FlatStmt *op_stmt(Loc loc, FlatOp o, ...) {
  va_list ap;
  va_start(ap, o);
  FlatStmt *s = op_stmt_va(loc, o, ap);
  va_end(ap);
  return s;
}

/* A vector of 'n' ints (n may be 0). */
static FlatAtom *ivec(int n, ...) {
  if (n == 0)
    return op(FLAT_DIST, V_INT_T, I(0), I(0));
  FlatStmt *s = new_stmt(FS_OP, at(1, 1));
  s->op = FLAT_VECTOR;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, I(va_arg(ap, int)));
  va_end(ap);
  return result(s, V_INT_T);
}

static FlatAtom *fvec(int n, ...) {
  if (n == 0)
    return op(FLAT_DIST, V_FLOAT_T, F(0), I(0));
  FlatStmt *s = new_stmt(FS_OP, at(1, 1));
  s->op = FLAT_VECTOR;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, F(va_arg(ap, double)));
  va_end(ap);
  return result(s, V_FLOAT_T);
}

static FlatAtom *bvec(int n, ...) {
  if (n == 0)
    return op(FLAT_DIST, V_BOOL_T, B(false), I(0));
  FlatStmt *s = new_stmt(FS_OP, at(1, 1));
  s->op = FLAT_VECTOR;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, B(va_arg(ap, int) != 0));
  va_end(ap);
  return result(s, V_BOOL_T);
}

/* The characters of 's' as a [:char:]. */
static FlatAtom *cvec(const char *s) {
  size_t n = strlen(s);
  if (n == 0)
    return op(FLAT_DIST, V_CHAR_T, C('a'), I(0));
  FlatStmt *st = new_stmt(FS_OP, at(1, 1));
  st->op = FLAT_VECTOR;
  for (size_t i = 0; i < n; i++)
    vec_push(&st->args, C(s[i]));
  return result(st, V_CHAR_T);
}

/* A segment descriptor of the lengths of int vector 'lengths'. */
static FlatAtom *segdes(FlatAtom *lengths) { return op(FLAT_MAKE_SEGDES, SEGDES, lengths); }

static FlatFunc *new_func(const char *name, bool library) {
  FlatFunc *f = NEW(FlatFunc);
  f->name = name;
  f->source = name;
  f->library = library;
  f->loc = at(1, 1);
  f->body = NEW(FlatBlock);
  vec_push(&P->funcs, f);
  return f;
}

static FlatAtom *param(FlatFunc *f, FlatType t, const char *hint) {
  FlatVar *v = flat_new_var(P, t, hint);
  vec_push(&f->params, v);
  return flat_var_atom(v);
}

static void returns(FlatFunc *f, FlatType t) {
  FlatType *p = NEW(FlatType);
  *p = t;
  vec_push(&f->result_types, p);
}

/* Makes 'b' the block statements go into; returns the one before. */
static FlatBlock *enter(FlatBlock *b) {
  FlatBlock *saved = blk;
  blk = b;
  return saved;
}

static void block_returns(FlatBlock *b, FlatAtom *a) { vec_push(&b->results, a); }

/* A call with one result of type 't'; the arguments end with NULL. */
static FlatAtom *call_at(Loc loc, FlatFunc *f, FlatType t, ...) {
  FlatStmt *s = new_stmt(FS_CALL, loc);
  s->callee = f;
  va_list ap;
  va_start(ap, t);
  for (FlatAtom *a; (a = va_arg(ap, FlatAtom *));)
    vec_push(&s->args, a);
  va_end(ap);
  return result(s, t);
}

static FlatAtom *if_at(Loc loc, FlatAtom *cond, FlatBlock *then, FlatBlock *els, FlatType t) {
  FlatStmt *s = new_stmt(FS_IF, loc);
  vec_push(&s->args, cond);
  s->then = then;
  s->els = els;
  return result(s, t);
}

/* ---- running ---- */

static void check_program(void) {
  if (!flat_check(P, "test"))
    fail_msg("the program does not check:\n%s", diags());
}

/* What the interpreter printed since the last call. */
static const char *new_output(void) {
  fflush(out_file);
  const char *text = xstrdup(out_text ? out_text + out_seen : "");
  out_seen = out_size;
  return text;
}

static const char *run_top(FlatTop *top) {
  vec_push(&P->tops, top);
  check_program();
  if (!IN)
    IN = flat_interp_new(P, out_file);
  flat_interp_run_top(IN, top);
  return new_output();
}

/* Ends the current block as a top-level expression of type 't' whose
   value has the components 'n' atoms; runs it and returns the
   transcript.  Statements then go into a fresh block. */
static const char *run_expr(Type *t, int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&blk->results, va_arg(ap, FlatAtom *));
  va_end(ap);
  FlatTop *top = NEW(FlatTop);
  flatten_describe_top(env, expr_src, t, top);
  top->body = blk;
  blk = NEW(FlatBlock);
  return run_top(top);
}

#define assert_run(want, t, ...) assert_string_equal(run_expr(t, __VA_ARGS__), want)

static Type *seq(Type *t) { return type_seq(t); }
static Type *pair(Type *a, Type *b) { return type_pair(a, b); }

/* ---- flat.c ---- */

static void test_operations_and_types(void **state) {
  (void)state;
  assert_string_equal(flat_op_name(FLAT_ADD), "add");
  assert_string_equal(flat_op_name(FLAT_SEG_REDUCE_MAX), "seg_reduce_max");
  assert_string_equal(flat_op_name(FLAT_HOST_PRIM), "host");
  assert_int_equal(flat_op_nargs(FLAT_SELECT), 3);
  assert_int_equal(flat_op_nargs(FLAT_NAME), -1);
  assert_int_equal(flat_op_nresults(FLAT_SEG_RANGE), 2);
  assert_int_equal(flat_op_nresults(FLAT_ERROR), 0);
  assert_int_equal(flat_op_nresults(FLAT_HOST_PRIM), -1);
  assert_string_equal(flat_type_name(S_INT), "int");
  assert_string_equal(flat_type_name(S_CHAR), "char");
  assert_string_equal(flat_type_name(V_FLOAT_T), "[:float:]");
  assert_string_equal(flat_type_name(V_BOOL_T), "[:bool:]");
  assert_string_equal(flat_type_name(SEGDES), "segdes");
  assert_true(flat_type_equal(V_INT_T, (FlatType){FT_VEC, FB_INT})); /* flat_vec makes what it says */
  assert_false(flat_type_equal(V_INT_T, S_INT));
  assert_false(flat_type_equal(V_INT_T, V_FLOAT_T));
  assert_true(flat_type_equal(SEGDES, (FlatType){FT_SEGDES, FB_CHAR}));

  FlatProgram p = {0};
  FlatVar *a = flat_new_var(&p, S_INT, "a"), *b = flat_new_var(&p, SEGDES, NULL);
  assert_int_equal(a->id, 0);
  assert_int_equal(b->id, 1);
  assert_int_equal(p.next_var, 2);
  assert_string_equal(a->hint, "a");
  assert_false(a->global);
  assert_int_equal(a->shape, 0);
  assert_true(flat_type_equal(flat_atom_type(flat_var_atom(b)), SEGDES));
  assert_true(flat_type_equal(flat_atom_type(I(3)), S_INT));
  assert_true(flat_type_equal(flat_atom_type(F(3)), S_FLOAT));
  assert_true(flat_type_equal(flat_atom_type(B(true)), S_BOOL));
  assert_true(flat_type_equal(flat_atom_type(C('x')), S_CHAR));
  assert_int_equal(I(-7)->u.i, -7);
  assert_true(C('x')->u.c == 'x');
}

/* ---- flat_layout.c ---- */

static const char *layout_names(Vec *types) {
  Buf b = {0};
  for (int i = 0; i < types->len; i++)
    buf_printf(&b, "%s%s", i ? ", " : "", flat_type_name(*(FlatType *)types->data[i]));
  return buf_str(&b);
}

static const char *host_layout(Type *t) {
  Vec v = {0};
  flatten_host_layout(t, &v);
  return layout_names(&v);
}

static const char *vector_layout(Type *t) {
  Vec v = {0};
  flatten_vector_layout(t, &v);
  return layout_names(&v);
}

static void test_layouts(void **state) {
  (void)state;
  assert_string_equal(host_layout(type_int), "int");
  assert_string_equal(vector_layout(type_int), "[:int:]");
  assert_string_equal(host_layout(seq(seq(pair(type_int, type_float)))), "segdes, [:int:], [:float:]");
  assert_string_equal(vector_layout(seq(seq(pair(type_int, type_float)))),
                      "segdes, segdes, [:int:], [:float:]");
  assert_string_equal(host_layout(pair(type_bool, pair(seq(type_char), type_float))), "bool, [:char:], float");
  assert_string_equal(vector_layout(pair(type_bool, seq(type_char))), "[:bool:], segdes, [:char:]");
}

/* The runtime reads values through the compiler's layouts: nested
   sequences (with empty ones), tuples and datatypes print as the REPL
   prints them, and a value cut out of V(t) and gathered back is the
   same. */
static void test_layout_values(void **state) {
  (void)state;
  TypeEnv *e = tc_new_env();
  Program *prog = parse_program(source_from_string("d.nesl", "datatype pt(int, float);\n"), false);
  tc_check_program(e, prog);
  Type *pt = ((TopLevel *)prog->tops.data[0])->def->type->snd;

  /* H([[(int, [char])]]) = segdes, [:int:], segdes, [:char:] */
  Type *t = seq(seq(pair(type_int, seq(type_char))));
  const RtLayout *l = flatten_rt_layout(e, t);
  assert_int_equal(rt_layout_count(l, true), 4);
  assert_int_equal(rt_layout_count(l, false), 5);
  RtValue *outer = rt_value_new(rt_segdes_type(), 3);
  outer->lengths[0] = 2, outer->lengths[1] = 0, outer->lengths[2] = 1;
  RtValue *ints = rt_value_new(rt_vec_type(RT_INT), 3);
  ints->data.i[0] = 1, ints->data.i[1] = 2, ints->data.i[2] = 3;
  RtValue *strs = rt_value_new(rt_segdes_type(), 3);
  strs->lengths[0] = 2, strs->lengths[1] = 0, strs->lengths[2] = 1;
  RtValue *chars = rt_chars("abc", 3);
  RtValue *comps[] = {outer, ints, strs, chars};
  assert_string_equal(rt_value_text(l, comps, NULL), "[[(1, \"ab\"), (2, \"\")], [], [(3, \"c\")]]");
  assert_string_equal(rt_to_string(l, comps, NULL), "[[(1, [`a, `b]), (2, [])], [], [(3, [`c])]]");

  /* V([(int, [char])]) of three values: each cut out and gathered back */
  const RtLayout *el = l->elem;
  RtValue *one[3][4];
  RtValue **each[3] = {one[0], one[1], one[2]};
  for (int k = 0; k < 3; k++)
    rt_vector_element(el, comps, k, one[k]);
  assert_string_equal(rt_value_text(el, one[0], NULL), "[(1, \"ab\"), (2, \"\")]");
  assert_string_equal(rt_value_text(el, one[1], NULL), "[]");
  RtValue *back[4];
  rt_vector_of(el, each, 3, back);
  assert_string_equal(rt_value_text(l, back, NULL), rt_value_text(l, comps, NULL));

  /* a datatype is its fields, printed with its name */
  Type *dt = seq(pair(pt, type_bool));
  const RtLayout *dl = flatten_rt_layout(e, dt);
  assert_int_equal(dl->elem->fst->kind, RL_DATA);
  RtValue *xs = rt_value_new(rt_vec_type(RT_INT), 2), *fs = rt_value_new(rt_vec_type(RT_FLOAT), 2);
  RtValue *bs = rt_value_new(rt_vec_type(RT_BOOL), 2);
  xs->data.i[0] = 1, xs->data.i[1] = -3, fs->data.f[0] = 2.5, fs->data.f[1] = 0, bs->data.b[0] = 1, bs->data.b[1] = 0;
  RtValue *dcomps[] = {xs, fs, bs};
  assert_string_equal(rt_value_text(dl, dcomps, NULL), "[(pt(1, 2.5), T), (pt(-3, 0.0), F)]");
}

/* ---- element-wise operations ---- */

static void test_arithmetic(void **state) {
  (void)state;
#define VA ivec(4, 7, -7, 2147483647, 0)
#define VB ivec(4, 2, 2, 1, 5)
#define VX fvec(3, 1.0, -2.5, 0.5)
#define VY fvec(3, 4.0, 0.5, 0.25)
  assert_run("it = [9, -5, -2147483648, 5] : [int]\n", seq(type_int), 1, op(FLAT_ADD, V_INT_T, VA, VB));
  assert_run("it = [3, -3, 2147483647, 0] : [int]\n", seq(type_int), 1, op(FLAT_DIV, V_INT_T, VA, VB));
  assert_run("it = [1, -1, 0, 0] : [int]\n", seq(type_int), 1, op(FLAT_REM, V_INT_T, VA, VB));
  assert_run("it = [14, -14, 2147483647, 0] : [int]\n", seq(type_int), 1, op(FLAT_MUL, V_INT_T, VA, VB));
  assert_run("it = [-7, 7, -2147483647, 0] : [int]\n", seq(type_int), 1, op(FLAT_NEG, V_INT_T, VA));
  assert_run("it = [49, 49, 1, 0] : [int]\n", seq(type_int), 1, op(FLAT_POW, V_INT_T, VA, ivec(4, 2, 2, 0, 3)));
  assert_run("it = -2147483648 : int\n", type_int, 1, op(FLAT_DIV, S_INT, I(INT32_MIN), I(-1)));
  assert_run("it = 0 : int\n", type_int, 1, op(FLAT_REM, S_INT, I(INT32_MIN), I(-1)));
  assert_run("it = 5 : int\n", type_int, 1, op(FLAT_SUB, S_INT, I(7), I(2)));
  assert_run("it = 0 : int\n", type_int, 1, op(FLAT_RECIP, S_INT, I(2)));
  assert_run("it = [0.25, -5.0, 2.0] : [float]\n", seq(type_float), 1, op(FLAT_DIV, V_FLOAT_T, VX, VY));
  assert_run("it = [-3.0, -3.0, 0.25] : [float]\n", seq(type_float), 1, op(FLAT_SUB, V_FLOAT_T, VX, VY));
  assert_run("it = [1.0, -0.4, 2.0] : [float]\n", seq(type_float), 1, op(FLAT_RECIP, V_FLOAT_T, VX));
  assert_run("it = [1.0, 6.25, 0.125] : [float]\n", seq(type_float), 1,
             op(FLAT_POW, V_FLOAT_T, VX, ivec(3, 5, 2, 3)));
  /* empty vectors */
  assert_run("it = [] : [int]\n", seq(type_int), 1, op(FLAT_ADD, V_INT_T, ivec(0), ivec(0)));
#undef VA
#undef VB
#undef VX
#undef VY
}

static void test_arithmetic_errors(void **state) {
  (void)state;
  assert_run("error: t.nesl:2:5: /: division by zero\n", seq(type_int), 1,
             op_at(at(2, 5), FLAT_DIV, V_INT_T, ivec(3, 1, 2, 3), ivec(3, 1, 0, 1), NULL));
  assert_run("error: t.nesl:2:5: /: division by zero\n", type_float, 1,
             op_at(at(2, 5), FLAT_DIV, S_FLOAT, F(1), F(0), NULL));
  assert_run("error: t.nesl:1:2: rem: division by zero\n", type_int, 1,
             op_at(at(1, 2), FLAT_REM, S_INT, I(1), I(0), NULL));
  assert_run("error: t.nesl:1:2: reciprocal: division by zero\n", type_int, 1,
             op_at(at(1, 2), FLAT_RECIP, S_INT, I(0), NULL));
  assert_run("error: t.nesl:1:2: ^: negative exponent -1\n", type_int, 1,
             op_at(at(1, 2), FLAT_POW, S_INT, I(2), I(-1), NULL));
  assert_run("error: t.nesl:1:2: ^: negative exponent -3\n", type_float, 1,
             op_at(at(1, 2), FLAT_POW, S_FLOAT, F(2), I(-3), NULL));
  /* a float overflow is an infinity, as in NESL: only a statement's value
     that holds one is an error, at the statement */
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n",
             seq(type_float), 1, op_at(at(3, 3), FLAT_MUL, V_FLOAT_T, fvec(1, 1.5e300), fvec(1, 1e10), NULL));
  assert_run("error: e.nesl:1:1: returning -INF: infinity and not-a-number (NaN) are not supported\n",
             type_float, 1, op_at(at(3, 3), FLAT_ADD, S_FLOAT, F(-1e308), F(-1e308), NULL));
}

static void test_comparison_and_logic(void **state) {
  (void)state;
#define VA ivec(3, 1, 2, 3)
#define VB ivec(3, 2, 2, 2)
#define VP bvec(4, 1, 1, 0, 0)
#define VQ bvec(4, 1, 0, 1, 0)
#define VV ivec(4, -8, 1, 5, -1)
#define VN ivec(4, 1, 31, 32, 40)
  assert_run("it = [T, F, F] : [bool]\n", seq(type_bool), 1, op(FLAT_LT, V_BOOL_T, VA, VB));
  assert_run("it = [F, T, F] : [bool]\n", seq(type_bool), 1, op(FLAT_EQ, V_BOOL_T, VA, VB));
  assert_run("it = [T, F, T] : [bool]\n", seq(type_bool), 1, op(FLAT_NE, V_BOOL_T, VA, VB));
  assert_run("it = [F, T, T] : [bool]\n", seq(type_bool), 1, op(FLAT_GE, V_BOOL_T, VA, VB));
  assert_run("it = [T, T, F] : [bool]\n", seq(type_bool), 1, op(FLAT_LE, V_BOOL_T, VA, VB));
  assert_run("it = [F, F, T] : [bool]\n", seq(type_bool), 1, op(FLAT_GT, V_BOOL_T, VA, VB));
  /* characters compare by their unsigned codes */
  assert_run("it = T : bool\n", type_bool, 1, op(FLAT_GT, S_BOOL, C((char)200), C('a')));
  assert_run("it = F : bool\n", type_bool, 1, op(FLAT_LT, S_BOOL, F(2.5), F(-1)));
  assert_run("it = T : bool\n", type_bool, 1, op(FLAT_LT, S_BOOL, B(false), B(true)));
  assert_run("it = [T, F, F, F] : [bool]\n", seq(type_bool), 1, op(FLAT_AND, V_BOOL_T, VP, VQ));
  assert_run("it = [T, T, T, F] : [bool]\n", seq(type_bool), 1, op(FLAT_OR, V_BOOL_T, VP, VQ));
  assert_run("it = [F, T, T, F] : [bool]\n", seq(type_bool), 1, op(FLAT_XOR, V_BOOL_T, VP, VQ));
  assert_run("it = [F, F, T, T] : [bool]\n", seq(type_bool), 1, op(FLAT_NOT, V_BOOL_T, VP));
  assert_run("it = -13 : int\n", type_int, 1, op(FLAT_NOT, S_INT, I(12)));
  assert_run("it = 8 : int\n", type_int, 1, op(FLAT_AND, S_INT, I(12), I(10)));
  assert_run("it = 14 : int\n", type_int, 1, op(FLAT_OR, S_INT, I(12), I(10)));
  assert_run("it = 6 : int\n", type_int, 1, op(FLAT_XOR, S_INT, I(12), I(10)));
  assert_run("it = [-16, -2147483648, 0, 0] : [int]\n", seq(type_int), 1, op(FLAT_LSHIFT, V_INT_T, VV, VN));
  assert_run("it = [-4, 0, 0, -1] : [int]\n", seq(type_int), 1, op(FLAT_RSHIFT, V_INT_T, VV, VN));
  assert_run("it = 0 : int\n", type_int, 1, op(FLAT_RSHIFT, S_INT, I(5), I(-1)));
#undef VA
#undef VB
#undef VP
#undef VQ
#undef VV
#undef VN
}

static void test_float_functions_and_conversions(void **state) {
  (void)state;
#define VX fvec(4, 2.5, -2.5, 2.7, -0.2)
  assert_run("it = [2.0, 0.0] : [float]\n", seq(type_float), 1, op(FLAT_SQRT, V_FLOAT_T, fvec(2, 4.0, 0.0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_LN, S_FLOAT, F(1)));
  assert_run("it = 1.0 : float\n", type_float, 1, op(FLAT_EXP, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_SIN, S_FLOAT, F(0)));
  assert_run("it = 1.0 : float\n", type_float, 1, op(FLAT_COS, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_TAN, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_ASIN, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_ACOS, S_FLOAT, F(1)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_ATAN, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_SINH, S_FLOAT, F(0)));
  assert_run("it = 1.0 : float\n", type_float, 1, op(FLAT_COSH, S_FLOAT, F(0)));
  assert_run("it = 0.0 : float\n", type_float, 1, op(FLAT_TANH, S_FLOAT, F(0)));
  assert_run("it = 8.0 : float\n", type_float, 1, op(FLAT_EXPT, S_FLOAT, F(2), F(3)));
  assert_run("it = [3.0, -1.0] : [float]\n", seq(type_float), 1, op(FLAT_TO_FLOAT, V_FLOAT_T, ivec(2, 3, -1)));
  assert_run("it = [2, -2, 2, 0] : [int]\n", seq(type_int), 1, op(FLAT_TRUNC, V_INT_T, VX));
  assert_run("it = [2, -3, 2, -1] : [int]\n", seq(type_int), 1, op(FLAT_FLOOR, V_INT_T, VX));
  assert_run("it = [3, -2, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_CEIL, V_INT_T, VX));
  assert_run("it = [3, -2, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_ROUND, V_INT_T, VX));
  assert_run("it = [1, 0] : [int]\n", seq(type_int), 1, op(FLAT_BTOI, V_INT_T, bvec(2, 1, 0)));
  assert_run("it = \"AB\" : [char]\n", seq(type_char), 1, op(FLAT_CODE_CHAR, V_CHAR_T, ivec(2, 65, 66)));
  assert_run("it = [97, 200] : [int]\n", seq(type_int), 1, op(FLAT_CHAR_CODE, V_INT_T, cvec("a\310")));
  /* errors, worded as the evaluator words them */
  assert_run("error: t.nesl:2:1: sqrt: the argument -4 is negative\n", seq(type_float), 1,
             op_at(at(2, 1), FLAT_SQRT, V_FLOAT_T, fvec(2, 1.0, -4.0), NULL));
  assert_run("error: t.nesl:2:1: ln: the argument -1 is negative\n", type_float, 1,
             op_at(at(2, 1), FLAT_LN, S_FLOAT, F(-1), NULL));
  assert_run("error: t.nesl:2:1: expt: the base -8 is negative (expt(v, p) is exp(ln(v) * p))\n", type_float, 1,
             op_at(at(2, 1), FLAT_EXPT, S_FLOAT, F(-8), F(1), NULL));
  /* ln(0) is -infinity, asin(2) NaN, exp(1000) infinity, as in NESL: an
     error only as the statement's value */
  assert_run("error: e.nesl:1:1: returning -INF: infinity and not-a-number (NaN) are not supported\n", type_float, 1,
             op_at(at(2, 1), FLAT_LN, S_FLOAT, F(0), NULL));
  assert_run("error: e.nesl:1:1: returning NAN: infinity and not-a-number (NaN) are not supported\n", type_float, 1,
             op_at(at(2, 1), FLAT_ASIN, S_FLOAT, F(2), NULL));
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n", type_float, 1,
             op_at(at(2, 1), FLAT_EXP, S_FLOAT, F(1000), NULL));
  /* out of the int range: min_int, what CMU NESL gives on x86 */
  assert_run("it = -2147483648 : int\n", type_int, 1, op_at(at(2, 1), FLAT_TRUNC, S_INT, F(1e10), NULL));
  assert_run("error: t.nesl:2:1: code_char: 300 is not a character code (0 to 255)\n", seq(type_char), 1,
             op_at(at(2, 1), FLAT_CODE_CHAR, V_CHAR_T, ivec(2, 65, 300), NULL));
#undef VX
}

static void test_select_zero_copy_vector(void **state) {
  (void)state;
#define VFLAGS bvec(3, 1, 0, 1)
  assert_run("it = [1, 20, 3] : [int]\n", seq(type_int), 1,
             op(FLAT_SELECT, V_INT_T, VFLAGS, ivec(3, 1, 2, 3), ivec(3, 10, 20, 30)));
  assert_run("it = \"ayc\" : [char]\n", seq(type_char), 1, op(FLAT_SELECT, V_CHAR_T, VFLAGS, cvec("abc"), cvec("xyz")));
  assert_run("it = 2.5 : float\n", type_float, 1, op(FLAT_SELECT, S_FLOAT, B(false), F(1), F(2.5)));
  assert_run("it = [0, 0] : [int]\n", seq(type_int), 1, op(FLAT_ZERO, V_INT_T, ivec(2, 5, 6)));
  assert_run("it = [0.0] : [float]\n", seq(type_float), 1, op(FLAT_ZERO, V_FLOAT_T, fvec(1, -3.0)));
  assert_run("it = F : bool\n", type_bool, 1, op(FLAT_ZERO, S_BOOL, B(true)));
  assert_run("it = 0 : int\n", type_int, 1, op(FLAT_CHAR_CODE, S_INT, op(FLAT_ZERO, S_CHAR, C('q'))));
  assert_run("it = 42 : int\n", type_int, 1, op(FLAT_COPY, S_INT, I(42)));
  FlatAtom *d = segdes(ivec(2, 1, 0));
  assert_run("it = [[7], []] : [[int]]\n", seq(seq(type_int)), 2, op(FLAT_COPY, SEGDES, d), ivec(1, 7));
  assert_run("it = [T, F, T] : [bool]\n", seq(type_bool), 1, bvec(3, 1, 0, 1));
  assert_run("it = [1.5] : [float]\n", seq(type_float), 1, fvec(1, 1.5));
#undef VFLAGS
}

/* ---- random numbers ---- */

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* lib-nesl/README.md's formula, written out again */
static uint64_t draw(uint64_t state, int site, uint64_t execution, int64_t k) {
  const uint64_t gamma = 0x9e3779b97f4a7c15ULL;
  return mix64(mix64(state ^ mix64((uint64_t)site * gamma + execution)) + (uint64_t)(k + 1) * gamma);
}

static void test_rand(void **state) {
  (void)state;
  rt_rand_seed(0);
  uint64_t s0 = rt_rand_state(); /* seed 0, as at start */
  FlatAtom *bounds = ivec(4, 100, 1000, 0, -5);
  FlatStmt *r = op_stmt(at(1, 1), FLAT_RAND, bounds, NULL);
  r->site = 7;
  FlatAtom *rv = result(r, V_INT_T);
  /* the same statement run twice: executions 0 and 1 */
  FlatFunc *f = new_func("draw", false);
  FlatAtom *fb = param(f, V_INT_T, "b");
  returns(f, V_INT_T);
  FlatBlock *saved = enter(f->body);
  FlatStmt *fr = op_stmt(at(1, 1), FLAT_RAND, fb, NULL);
  fr->site = 3;
  block_returns(f->body, result(fr, V_INT_T));
  enter(saved);
  FlatAtom *c1 = call_at(at(1, 1), f, V_INT_T, bounds, NULL);
  FlatAtom *c2 = call_at(at(1, 1), f, V_INT_T, bounds, NULL);
  FlatStmt *fs = op_stmt(at(1, 1), FLAT_RAND, F(2.0), NULL);
  fs->site = 9;
  FlatAtom *fv = result(fs, S_FLOAT);
  FlatAtom *out = op(FLAT_APPEND, V_INT_T, rv, op(FLAT_APPEND, V_INT_T, c1, c2));
  char want[512];
  snprintf(want, sizeof want, "it = ([%d, %d, 0, 0, %d, %d, 0, 0, %d, %d, 0, 0], %s) : [int], bool\n",
           (int)(draw(s0, 7, 0, 0) % 100), (int)(draw(s0, 7, 0, 1) % 1000), (int)(draw(s0, 3, 0, 0) % 100),
           (int)(draw(s0, 3, 0, 1) % 1000), (int)(draw(s0, 3, 1, 0) % 100), (int)(draw(s0, 3, 1, 1) % 1000),
           "T");
  double unit = (double)(draw(s0, 9, 0, 0) >> 11) * (1.0 / 9007199254740992.0) * 2.0;
  FlatAtom *ok = op(FLAT_EQ, S_BOOL, fv, F(unit));
  assert_run(want, pair(seq(type_int), type_bool), 2, out, ok);

  /* rand_seed starts the executions again: the same seed, the same draws */
  rt_rand_seed(5);
  uint64_t s5 = rt_rand_state();
  rt_rand_seed(0);
  FlatStmt *seed = op_stmt(at(1, 1), FLAT_HOST_PRIM, I(5), NULL);
  seed->prim = "rand_seed";
  seed->host = RT_HOST_RAND_SEED;
  seed->elem_name = type_value_to_string(type_int);
  seed->layout = flatten_rt_layout(env, type_int);
  seed->result_name = type_value_to_string(type_bool);
  seed->result_layout = flatten_rt_layout(env, type_bool);
  result(seed, S_BOOL);
  FlatAtom *c3 = call_at(at(1, 1), f, V_INT_T, ivec(1, 1000000), NULL);
  snprintf(want, sizeof want, "it = [%d] : [int]\n", (int)(draw(s5, 3, 0, 0) % 1000000));
  assert_run(want, seq(type_int), 1, c3);
}

/* ---- vector operations ---- */

static void test_vector_operations(void **state) {
  (void)state;
#define VV ivec(4, 10, 20, 30, 40)
  assert_run("it = [7, 7, 7] : [int]\n", seq(type_int), 1, op(FLAT_DIST, V_INT_T, I(7), I(3)));
  assert_run("it = \"\" : [char]\n", seq(type_char), 1, op(FLAT_DIST, V_CHAR_T, C('x'), I(0)));
  assert_run("it = 3 : int\n", type_int, 1, op(FLAT_LENGTH, S_INT, ivec(3, 1, 2, 3)));
  assert_run("it = 0 : int\n", type_int, 1, op(FLAT_LENGTH, S_INT, ivec(0)));
  assert_run("it = [2, 5, 8] : [int]\n", seq(type_int), 1, op(FLAT_RANGE, V_INT_T, I(2), I(10), I(3)));
  assert_run("it = [] : [int]\n", seq(type_int), 1, op(FLAT_RANGE, V_INT_T, I(4), I(4), I(1)));
  assert_run("it = [40, 10, 10] : [int]\n", seq(type_int), 1, op(FLAT_GATHER, V_INT_T, VV, ivec(3, 3, 0, 0)));
  assert_run("it = [] : [int]\n", seq(type_int), 1, op(FLAT_GATHER, V_INT_T, VV, ivec(0)));
  assert_run("it = 30 : int\n", type_int, 1, op(FLAT_ELT, S_INT, VV, I(2)));
  assert_run("it = [10, 1, 30, 3] : [int]\n", seq(type_int), 1,
             op(FLAT_SCATTER, V_INT_T, VV, ivec(3, 1, 3, 3 - 2 + 2), ivec(3, 1, 2, 3)));
  assert_run("it = [10, 20, 30, 40] : [int]\n", seq(type_int), 1, op(FLAT_SCATTER, V_INT_T, VV, ivec(0), ivec(0)));
  assert_run("it = [20, 40] : [int]\n", seq(type_int), 1, op(FLAT_PACK, V_INT_T, VV, bvec(4, 0, 1, 0, 1)));
  assert_run("it = [] : [float]\n", seq(type_float), 1, op(FLAT_PACK, V_FLOAT_T, fvec(0), bvec(0)));
  assert_run("it = \"abcd\" : [char]\n", seq(type_char), 1, op(FLAT_APPEND, V_CHAR_T, cvec("ab"), cvec("cd")));
  assert_run("it = \"ab\" : [char]\n", seq(type_char), 1, op(FLAT_APPEND, V_CHAR_T, cvec(""), cvec("ab")));
#undef VV
}

static void test_vector_errors(void **state) {
  (void)state;
#define VV ivec(3, 10, 20, 30)
  assert_run("error: t.nesl:2:2: dist: negative length -1\n", seq(type_int), 1,
             op_at(at(2, 2), FLAT_DIST, V_INT_T, I(1), I(-1), NULL));
  assert_run("error: t.nesl:2:2: bad range [5:4:1]: the end must be >= the start and the stride positive\n",
             seq(type_int), 1, op_at(at(2, 2), FLAT_RANGE, V_INT_T, I(5), I(4), I(1), NULL));
  assert_run("error: t.nesl:2:2: bad range [0:4:0]: the end must be >= the start and the stride positive\n",
             seq(type_int), 1, op_at(at(2, 2), FLAT_RANGE, V_INT_T, I(0), I(4), I(0), NULL));
  /* in the user's code, as the evaluator reports s[i] */
  assert_run("error: t.nesl:3:4: subscript 3 is out of range for a sequence of length 3\n", seq(type_int), 1,
             op_at(at(3, 4), FLAT_GATHER, V_INT_T, VV, ivec(2, 0, 3), NULL));
  assert_run("error: t.nesl:3:4: subscript -1 is out of range for a sequence of length 0\n", type_int, 1,
             op_at(at(3, 4), FLAT_ELT, S_INT, ivec(0), I(-1), NULL));
  assert_run("error: t.nesl:3:4: <-: 1 indices but 2 values\n", seq(type_int), 1,
             op_at(at(3, 4), FLAT_SCATTER, V_INT_T, VV, ivec(1, 0), ivec(2, 1, 2), NULL));
  assert_run("error: t.nesl:3:4: <-: index 5 is out of range for a sequence of length 3\n", seq(type_int), 1,
             op_at(at(3, 4), FLAT_SCATTER, V_INT_T, VV, ivec(1, 5), ivec(1, 1), NULL));
  assert_run("error: t.nesl:3:4: pack: 3 values but 2 flags\n", seq(type_int), 1,
             op_at(at(3, 4), FLAT_PACK, V_INT_T, VV, bvec(2, 1, 1), NULL));
#undef VV
}

static void test_reductions_and_scans(void **state) {
  (void)state;
#define VV ivec(4, 3, -1, 4, 2)
  FlatAtom *r[7], *re[7];
  FlatOp reduce[7] = {FLAT_REDUCE_ADD, FLAT_REDUCE_MUL, FLAT_REDUCE_MAX, FLAT_REDUCE_MIN,
                      FLAT_REDUCE_AND, FLAT_REDUCE_OR, FLAT_REDUCE_XOR};
  FlatAtom *v = VV;
  for (int i = 0; i < 7; i++)
    r[i] = op(reduce[i], S_INT, v);
  Type *t7 = pair(type_int, pair(type_int, pair(type_int, pair(type_int, pair(type_int, pair(type_int, type_int))))));
  assert_run("it = (8, -24, 4, -1, 0, -1, -6) : int, int, int, int, int, int, int\n", t7, 7, r[0], r[1], r[2], r[3],
             r[4], r[5], r[6]);
  /* NESL's identities on empty input */
  FlatAtom *e = ivec(0);
  for (int i = 0; i < 7; i++)
    re[i] = op(reduce[i], S_INT, e);
  assert_run("it = (0, 1, -2147483648, 2147483647, -1, 0, 0) : int, int, int, int, int, int, int\n", t7, 7, re[0],
             re[1], re[2], re[3], re[4], re[5], re[6]);
  FlatAtom *f = fvec(0);
  assert_run("it = (0.0, 1.0, -9.99999961690316E35, 9.99999961690316E35) : float, float, float, float\n",
             pair(type_float, pair(type_float, pair(type_float, type_float))), 4, op(FLAT_REDUCE_ADD, S_FLOAT, f),
             op(FLAT_REDUCE_MUL, S_FLOAT, f), op(FLAT_REDUCE_MAX, S_FLOAT, f), op(FLAT_REDUCE_MIN, S_FLOAT, f));
  FlatAtom *b = bvec(0);
  assert_run("it = (T, F, F) : bool, bool, bool\n", pair(type_bool, pair(type_bool, type_bool)), 3,
             op(FLAT_REDUCE_AND, S_BOOL, b), op(FLAT_REDUCE_OR, S_BOOL, b), op(FLAT_REDUCE_XOR, S_BOOL, b));
  assert_run("it = (F, T, T) : bool, bool, bool\n", pair(type_bool, pair(type_bool, type_bool)), 3,
             op(FLAT_REDUCE_AND, S_BOOL, bvec(3, 1, 0, 0)), op(FLAT_REDUCE_OR, S_BOOL, bvec(3, 1, 0, 0)),
             op(FLAT_REDUCE_XOR, S_BOOL, bvec(3, 1, 0, 0)));
  assert_run("it = `z : char\n", type_char, 1, op(FLAT_REDUCE_MAX, S_CHAR, cvec("azb")));
  assert_run("it = 5.5 : float\n", type_float, 1, op(FLAT_REDUCE_ADD, S_FLOAT, fvec(2, 2.5, 3.0)));
  /* exclusive scans */
  assert_run("it = [0, 3, 2, 6] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_ADD, V_INT_T, VV));
  assert_run("it = [1, 3, -3, -12] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_MUL, V_INT_T, VV));
  assert_run("it = [-2147483648, 3, 3, 4] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_MAX, V_INT_T, VV));
  assert_run("it = [2147483647, 3, -1, -1] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_MIN, V_INT_T, VV));
  assert_run("it = [-1, 3, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_AND, V_INT_T, VV));
  assert_run("it = [0, 3, -1, -1] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_OR, V_INT_T, VV));
  assert_run("it = [0, 3, -4, -8] : [int]\n", seq(type_int), 1, op(FLAT_SCAN_XOR, V_INT_T, VV));
  assert_run("it = [F, T, F] : [bool]\n", seq(type_bool), 1, op(FLAT_SCAN_XOR, V_BOOL_T, bvec(3, 1, 1, 0)));
  assert_run("it = [] : [float]\n", seq(type_float), 1, op(FLAT_SCAN_ADD, V_FLOAT_T, fvec(0)));
  /* extremes: the first one; max_int when empty */
  FlatAtom *w = ivec(5, 2, 7, 1, 7, 1);
  assert_run("it = (1, 2, 2147483647) : int, int, int\n", pair(type_int, pair(type_int, type_int)), 3,
             op(FLAT_MAX_INDEX, S_INT, w), op(FLAT_MIN_INDEX, S_INT, w), op(FLAT_MAX_INDEX, S_INT, ivec(0)));
  /* ranks are stable */
  assert_run("it = [2, 1, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_RANK, V_INT_T, ivec(4, 3, 1, 3, 0)));
  assert_run("it = [0, 2, 1, 3] : [int]\n", seq(type_int), 1, op(FLAT_RANK_DOWN, V_INT_T, ivec(4, 3, 1, 3, 0)));
  assert_run("it = [1, 0, 2] : [int]\n", seq(type_int), 1, op(FLAT_RANK, V_INT_T, fvec(3, 0.5, -2.0, 9.0)));
  assert_run("it = [] : [int]\n", seq(type_int), 1, op(FLAT_RANK, V_INT_T, ivec(0)));
  /* a float overflow in a reduction: an infinity, an error as the value */
  assert_run("error: e.nesl:1:1: returning INF: infinity and not-a-number (NaN) are not supported\n", type_float, 1,
             op(FLAT_REDUCE_ADD, S_FLOAT, fvec(2, 1e308, 1e308)));
#undef VV
}

/* ---- segment descriptors ---- */

static void test_segment_descriptors(void **state) {
  (void)state;
#define VD segdes(ivec(4, 2, 0, 3, 0))
#define VNONE segdes(ivec(0))
#define VV ivec(5, 1, 2, 3, 4, 5)
#define VF fvec(5, 1.0, 2.0, 0.5, 0.5, 4.0)
#define VBF bvec(5, 1, 1, 0, 1, 1)
#define VW ivec(5, 4, 9, 7, 1, 7)
  assert_run("it = [2, 0, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_SEG_LENGTHS, V_INT_T, VD));
  assert_run("it = (4, 5) : int, int\n", pair(type_int, type_int), 2, op(FLAT_SEG_COUNT, S_INT, VD),
             op(FLAT_SEG_TOTAL, S_INT, VD));
  assert_run("it = [0, 0, 2, 2, 2] : [int]\n", seq(type_int), 1, op(FLAT_SEG_IDS, V_INT_T, VD));
  assert_run("it = [0, 2, 2, 5] : [int]\n", seq(type_int), 1, op(FLAT_SEG_OFFSETS, V_INT_T, VD));
  assert_run("it = (0, 0, [], []) : int, int, [int], [int]\n",
             pair(type_int, pair(type_int, pair(seq(type_int), seq(type_int)))), 4, op(FLAT_SEG_COUNT, S_INT, VNONE),
             op(FLAT_SEG_TOTAL, S_INT, VNONE), op(FLAT_SEG_IDS, V_INT_T, VNONE), op(FLAT_SEG_LENGTHS, V_INT_T, VNONE));
  assert_run("it = [[1, 2], [], [3, 4, 5], []] : [[int]]\n", seq(seq(type_int)), 2, VD, VV);
  assert_run("it = [3, 0, 12, 0] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_ADD, V_INT_T, VD, VV));
  assert_run("it = [2, 1, 60, 1] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_MUL, V_INT_T, VD, VV));
  assert_run("it = [2, -2147483648, 5, -2147483648] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_REDUCE_MAX, V_INT_T, VD, VV));
  assert_run("it = [1, 2147483647, 3, 2147483647] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_REDUCE_MIN, V_INT_T, VD, VV));
  assert_run("it = [0, -1, 0, -1] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_AND, V_INT_T, VD, VV));
  assert_run("it = [3, 0, 7, 0] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_OR, V_INT_T, VD, VV));
  assert_run("it = [3, 0, 2, 0] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_XOR, V_INT_T, VD, VV));
  assert_run("it = [0, 1, 0, 3, 7] : [int]\n", seq(type_int), 1, op(FLAT_SEG_SCAN_ADD, V_INT_T, VD, VV));
  assert_run("it = [1, 1, 1, 3, 12] : [int]\n", seq(type_int), 1, op(FLAT_SEG_SCAN_MUL, V_INT_T, VD, VV));
  assert_run("it = [-2147483648, 1, -2147483648, 3, 4] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_SCAN_MAX, V_INT_T, VD, VV));
  assert_run("it = [2147483647, 1, 2147483647, 3, 3] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_SCAN_MIN, V_INT_T, VD, VV));
  assert_run("it = [-1, 1, -1, 3, 0] : [int]\n", seq(type_int), 1, op(FLAT_SEG_SCAN_AND, V_INT_T, VD, VV));
  assert_run("it = [0, 1, 0, 3, 7] : [int]\n", seq(type_int), 1, op(FLAT_SEG_SCAN_OR, V_INT_T, VD, VV));
  assert_run("it = [0, 1, 0, 3, 7] : [int]\n", seq(type_int), 1, op(FLAT_SEG_SCAN_XOR, V_INT_T, VD, VV));
  assert_run("it = [3.0, 0.0, 5.0, 0.0] : [float]\n", seq(type_float), 1, op(FLAT_SEG_REDUCE_ADD, V_FLOAT_T, VD, VF));
  assert_run("it = [2.0, -9.99999961690316E35, 4.0, -9.99999961690316E35] : [float]\n", seq(type_float), 1,
             op(FLAT_SEG_REDUCE_MAX, V_FLOAT_T, VD, VF));
  assert_run("it = [T, T, F, T] : [bool]\n", seq(type_bool), 1, op(FLAT_SEG_REDUCE_AND, V_BOOL_T, VD, VBF));
  assert_run("it = [F, T, F, F, T] : [bool]\n", seq(type_bool), 1, op(FLAT_SEG_SCAN_OR, V_BOOL_T, VD, VBF));
  assert_run("it = [1, 2147483647, 0, 2147483647] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_MAX_INDEX, V_INT_T, VD, VW));
  assert_run("it = [0, 2147483647, 1, 2147483647] : [int]\n", seq(type_int), 1,
             op(FLAT_SEG_MIN_INDEX, V_INT_T, VD, VW));
  assert_run("it = [0, 1, 1, 0, 2] : [int]\n", seq(type_int), 1, op(FLAT_SEG_RANK, V_INT_T, VD, VW));
  assert_run("it = [1, 0, 0, 2, 1] : [int]\n", seq(type_int), 1, op(FLAT_SEG_RANK_DOWN, V_INT_T, VD, VW));
  /* a segmented operation over no segments at all */
  assert_run("it = [] : [int]\n", seq(type_int), 1, op(FLAT_SEG_REDUCE_ADD, V_INT_T, VNONE, ivec(0)));
#undef VD
#undef VNONE
#undef VV
#undef VF
#undef VBF
#undef VW
}

static void test_seg_range_and_errors(void **state) {
  (void)state;
  FlatStmt *s = op_stmt(at(1, 1), FLAT_SEG_RANGE, ivec(3, 0, 5, 2), ivec(3, 3, 5, 9), ivec(3, 1, 1, 3), NULL);
  FlatAtom *d = result(s, SEGDES), *v = result(s, V_INT_T);
  assert_run("it = [[0, 1, 2], [], [2, 5, 8]] : [[int]]\n", seq(seq(type_int)), 2, d, v);
  FlatStmt *bad = op_stmt(at(4, 2), FLAT_SEG_RANGE, ivec(2, 0, 5), ivec(2, 3, 4), ivec(2, 1, 1), NULL);
  FlatAtom *bd = result(bad, SEGDES), *bv = result(bad, V_INT_T);
  assert_run("error: t.nesl:4:2: bad range [5:4:1]: the end must be >= the start and the stride positive\n",
             seq(seq(type_int)), 2, bd, bv);
  assert_run("error: t.nesl:4:3: negative length -2\n", seq(seq(type_int)), 2,
             op_at(at(4, 3), FLAT_MAKE_SEGDES, SEGDES, ivec(2, 1, -2), NULL), ivec(0));
}

/* ---- structured values: name, eql, hash ---- */

static void test_name(void **state) {
  (void)state;
  FlatStmt *plain = op_stmt(at(1, 1), FLAT_NAME, ivec(5, 5, 3, 5, 1, 3), NULL);
  plain->elem_name = type_value_to_string(type_int);
  plain->layout = flatten_rt_layout(env, type_int);
  assert_run("it = [2, 4, 2, 3, 4] : [int]\n", seq(type_int), 1, result(plain, V_INT_T));
  /* tuples (int, [char]): V is [:int:], segdes, [:char:] */
  FlatAtom *ints = ivec(4, 1, 1, 2, 1);
  FlatAtom *d = segdes(ivec(4, 2, 2, 2, 1));
  FlatAtom *chars = cvec("abababx");
  FlatStmt *s = op_stmt(at(1, 1), FLAT_NAME, ints, d, chars, NULL);
  s->elem_name = type_value_to_string(pair(type_int, seq(type_char)));
  s->layout = flatten_rt_layout(env, pair(type_int, seq(type_char)));
  assert_run("it = [1, 1, 2, 3] : [int]\n", seq(type_int), 1, result(s, V_INT_T));
  /* nested sequences [[int]], with empty ones */
  FlatAtom *outer = segdes(ivec(4, 1, 0, 1, 0));
  FlatAtom *inner = segdes(ivec(2, 0, 0));
  FlatStmt *n = op_stmt(at(1, 1), FLAT_NAME, outer, inner, ivec(0), NULL);
  n->elem_name = type_value_to_string(seq(seq(type_int)));
  n->layout = flatten_rt_layout(env, seq(seq(type_int)));
  assert_run("it = [2, 3, 2, 3] : [int]\n", seq(type_int), 1, result(n, V_INT_T));
  /* floats: 0.0 and -0.0 are one value */
  FlatStmt *z = op_stmt(at(1, 1), FLAT_NAME, fvec(3, 0.0, -0.0, 1.0), NULL);
  z->elem_name = type_value_to_string(type_float);
  z->layout = flatten_rt_layout(env, type_float);
  assert_run("it = [1, 1, 2] : [int]\n", seq(type_int), 1, result(z, V_INT_T));
  /* the segmented form: indices within each segment */
  FlatStmt *sg = op_stmt(at(1, 1), FLAT_NAME, segdes(ivec(2, 3, 2)), ivec(5, 4, 5, 4, 4, 4), NULL);
  sg->elem_name = type_value_to_string(type_int);
  sg->layout = flatten_rt_layout(env, type_int);
  assert_run("it = [2, 1, 2, 1, 1] : [int]\n", seq(type_int), 1, result(sg, V_INT_T));
  /* nothing to name */
  FlatStmt *e = op_stmt(at(1, 1), FLAT_NAME, ivec(0), NULL);
  e->elem_name = type_value_to_string(type_int);
  e->layout = flatten_rt_layout(env, type_int);
  assert_run("it = [] : [int]\n", seq(type_int), 1, result(e, V_INT_T));
}

/* A large input runs in linear time: the hash table, not pairwise
   comparisons (this would take minutes if it were quadratic). */
static void test_name_is_linear(void **state) {
  (void)state;
  FlatAtom *big = op(FLAT_RANGE, V_INT_T, I(0), I(400000), I(1));
  FlatAtom *mod = op(FLAT_REM, V_INT_T, big, op(FLAT_DIST, V_INT_T, I(1000), I(400000)));
  FlatStmt *s = op_stmt(at(1, 1), FLAT_NAME, mod, NULL);
  s->elem_name = type_value_to_string(type_int);
  s->layout = flatten_rt_layout(env, type_int);
  FlatAtom *names = result(s, V_INT_T);
  assert_run("it = (399000, 399999) : int, int\n", pair(type_int, type_int), 2, op(FLAT_ELT, S_INT, names, I(0)),
             op(FLAT_ELT, S_INT, names, I(399999)));
  /* distinct values whose hashes agree in their low bits */
  FlatAtom *spread = op(FLAT_MUL, V_INT_T, op(FLAT_RANGE, V_INT_T, I(0), I(60000), I(1)),
                        op(FLAT_DIST, V_INT_T, I(65536), I(60000)));
  FlatStmt *d = op_stmt(at(1, 1), FLAT_NAME, spread, NULL);
  d->elem_name = type_value_to_string(type_int);
  d->layout = flatten_rt_layout(env, type_int);
  assert_run("it = 59999 : int\n", type_int, 1, op(FLAT_ELT, S_INT, result(d, V_INT_T), I(59999)));
}

static FlatAtom *structured(FlatOp o, bool lifted, Type *t, FlatType rt, int n, FlatAtom **args) {
  FlatStmt *s = new_stmt(FS_OP, at(1, 1));
  s->op = o;
  s->lifted = lifted;
  s->elem_name = type_value_to_string(t);
  s->layout = flatten_rt_layout(env, t);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, args[i]);
  return result(s, rt);
}

static void test_eql_and_hash(void **state) {
  (void)state;
  /* host: H((int, [char])) = int, [:char:] */
  Type *t = pair(type_int, seq(type_char));
  FlatAtom *same[] = {I(1), cvec("ab"), I(1), cvec("ab")};
  FlatAtom *other[] = {I(1), cvec("ab"), I(1), cvec("abc")};
  assert_run("it = (T, F) : bool, bool\n", pair(type_bool, type_bool), 2,
             structured(FLAT_EQL, false, t, S_BOOL, 4, same), structured(FLAT_EQL, false, t, S_BOOL, 4, other));
  /* lifted over nested sequences: V([int]) = segdes, [:int:] */
  FlatAtom *xs[] = {segdes(ivec(3, 2, 0, 1)), ivec(3, 1, 2, 3), segdes(ivec(3, 2, 0, 1)), ivec(3, 1, 2, 4)};
  assert_run("it = [T, T, F] : [bool]\n", seq(type_bool), 1,
             structured(FLAT_EQL, true, seq(type_int), V_BOOL_T, 4, xs));
  FlatAtom *ys[] = {segdes(ivec(2, 1, 1)), ivec(2, 1, 2), segdes(ivec(2, 2, 0)), ivec(2, 1, 2)};
  assert_run("it = [F, F] : [bool]\n", seq(type_bool), 1, structured(FLAT_EQL, true, seq(type_int), V_BOOL_T, 4, ys));
  FlatAtom *empty[] = {ivec(0), ivec(0)};
  assert_run("it = [] : [bool]\n", seq(type_bool), 1, structured(FLAT_EQL, true, type_int, V_BOOL_T, 2, empty));

  /* hash agrees with the evaluator's (NESL's: val_nesl_hash) */
  Value v = val_pair(val_int(1), val_string("ab", 2));
  char want[128];
  snprintf(want, sizeof want, "it = %d : int\n", rt_nesl_hash_in(val_nesl_hash(v), 100));
  FlatAtom *h[] = {I(1), cvec("ab"), I(100)};
  assert_run(want, type_int, 1, structured(FLAT_HASH, false, t, S_INT, 3, h));
  Value w0 = val_seq_new(0), w1 = val_seq_new(2);
  w1.u.seq->elems[0] = val_float(-0.0);
  w1.u.seq->elems[1] = val_float(2.5);
  snprintf(want, sizeof want, "it = [%d, %d] : [int]\n", rt_nesl_hash_in(val_nesl_hash(w0), 7),
           rt_nesl_hash_in(val_nesl_hash(w1), 1000));
  FlatAtom *hl[] = {segdes(ivec(2, 0, 2)), fvec(2, 0.0, 2.5), ivec(2, 7, 1000)};
  assert_run(want, seq(type_int), 1, structured(FLAT_HASH, true, seq(type_float), V_INT_T, 3, hl));
  FlatAtom *bad[] = {I(3), I(0)};
  FlatStmt *hs = new_stmt(FS_OP, at(5, 6));
  hs->op = FLAT_HASH;
  hs->elem_name = type_value_to_string(type_int);
  hs->layout = flatten_rt_layout(env, type_int);
  vec_push(&hs->args, bad[0]);
  vec_push(&hs->args, bad[1]);
  assert_run("error: t.nesl:5:6: hash: the range 0 is not positive\n", type_int, 1, result(hs, S_INT));
}

/* ---- errors raised by library code ---- */

static void test_error_ops(void **state) {
  (void)state;
  op_stmt(at(2, 3), FLAT_ERROR, cvec("something failed"), NULL);
  assert_run("error: t.nesl:2:3: something failed\n", type_int, 1, I(0));
  /* no segments: no error */
  op_stmt(at(2, 3), FLAT_ERROR_ANY, segdes(ivec(0)), cvec(""), NULL);
  assert_run("it = 1 : int\n", type_int, 1, I(1));
  op_stmt(at(2, 4), FLAT_ERROR_ANY, segdes(ivec(2, 5, 4)), cvec("firstlast"), NULL);
  assert_run("error: t.nesl:2:4: first\n", type_int, 1, I(2));
}

/* ---- control: if, calls, recursion, time ---- */

/* fact(n) = if n == 0 then 1 else n * fact(n - 1), with its call at 'call_loc' */
static FlatFunc *make_fact(void) {
  FlatFunc *f = new_func("fact", false);
  FlatAtom *n = param(f, S_INT, "n");
  returns(f, S_INT);
  FlatBlock *saved = enter(f->body);
  FlatAtom *zero = op(FLAT_EQ, S_BOOL, n, I(0));
  FlatBlock *then = NEW(FlatBlock), *els = NEW(FlatBlock);
  block_returns(then, I(1));
  enter(els);
  FlatAtom *rec = call_at(at(4, 8), f, S_INT, op(FLAT_SUB, S_INT, n, I(1)), NULL);
  block_returns(els, op_at(at(4, 6), FLAT_MUL, S_INT, n, rec, NULL));
  enter(f->body);
  block_returns(f->body, if_at(at(4, 1), zero, then, els, S_INT));
  enter(saved);
  return f;
}

static void test_if_call_recursion(void **state) {
  (void)state;
  FlatFunc *fact = make_fact();
  assert_run("it = 3628800 : int\n", type_int, 1, call_at(at(1, 1), fact, S_INT, I(10), NULL));
  FlatStats st = flat_interp_stats(IN);
  assert_int_equal(st.host_calls, 11);
  assert_int_equal(st.max_depth, 11);
  assert_true(st.ops > 30);
  assert_run("it = 1 : int\n", type_int, 1, call_at(at(1, 1), fact, S_INT, I(0), NULL));
  /* an if with vector results, both branches */
  FlatAtom *a = NULL, *b = NULL;
  for (int i = 0; i < 2; i++) {
    FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
    FlatBlock *saved = enter(t);
    block_returns(t, ivec(1, 1));
    enter(e);
    block_returns(e, ivec(2, 2, 3));
    enter(saved);
    *(i == 0 ? &a : &b) = if_at(at(1, 1), B(i == 0), t, e, V_INT_T);
  }
  assert_run("it = [1, 2, 3] : [int]\n", seq(type_int), 1, op(FLAT_APPEND, V_INT_T, a, b));
}

static void test_time(void **state) {
  (void)state;
  FlatStmt *s = new_stmt(FS_TIME, at(1, 1));
  s->body = NEW(FlatBlock);
  FlatBlock *saved = enter(s->body);
  block_returns(s->body, op(FLAT_REDUCE_ADD, S_INT, op(FLAT_RANGE, V_INT_T, I(0), I(1000), I(1))));
  enter(saved);
  FlatAtom *value = result(s, S_INT), *seconds = result(s, S_FLOAT);
  assert_run("it = (499500, T) : int, bool\n", pair(type_int, type_bool), 2, value,
             op(FLAT_GE, S_BOOL, seconds, F(0)));
}

/* An error inside a user function is reported at the statement's
   outermost call, with the function and the place inside it; inside a
   library function, at the user's call into the library, named by the
   library function's NESL name. */
static void test_error_context(void **state) {
  (void)state;
  FlatFunc *fact = make_fact();
  /* div(x) = 100 / x, called through outer(x) = div(x) */
  FlatFunc *dv = new_func("div_1", false);
  dv->source = "div";
  FlatAtom *x = param(dv, S_INT, "x");
  returns(dv, S_INT);
  FlatBlock *saved = enter(dv->body);
  block_returns(dv->body, op_at(at(5, 7), FLAT_DIV, S_INT, I(100), x, NULL));
  FlatFunc *outer = new_func("outer", false);
  FlatAtom *y = param(outer, S_INT, "y");
  returns(outer, S_INT);
  enter(outer->body);
  block_returns(outer->body, call_at(at(6, 2), dv, S_INT, y, NULL));
  enter(saved);
  assert_run("error: t.nesl:2:1: /: division by zero (in function div, line 5, column 7)\n", type_int, 1,
             call_at(at(2, 1), outer, S_INT, I(0), NULL));
  saved = blk;
  /* the library: take(v, n) errors; a library helper inside it */
  FlatFunc *helper = new_func("__check_9", true);
  helper->source = "__check";
  FlatAtom *hn = param(helper, S_INT, "n");
  returns(helper, S_INT);
  enter(helper->body);
  FlatAtom *bad = op(FLAT_GT, S_BOOL, hn, I(3));
  FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
  enter(t);
  op_stmt(at(1, 1), FLAT_ERROR, cvec("take: bounds error"), NULL);
  block_returns(t, I(0));
  block_returns(e, hn);
  enter(helper->body);
  block_returns(helper->body, if_at(at(1, 1), bad, t, e, S_INT));
  FlatFunc *take = new_func("take_2", true);
  take->source = "take";
  FlatAtom *tn = param(take, S_INT, "n");
  returns(take, S_INT);
  enter(take->body);
  block_returns(take->body, call_at(at(1, 1), helper, S_INT, tn, NULL));
  /* a lifted subscript in library code */
  FlatFunc *lib_get = new_func("get_1", true);
  lib_get->source = "get";
  FlatAtom *gi = param(lib_get, V_INT_T, "i");
  returns(lib_get, V_INT_T);
  enter(lib_get->body);
  block_returns(lib_get->body, op(FLAT_GATHER, V_INT_T, ivec(2, 1, 2), gi));
  /* user(n) = take(n) */
  FlatFunc *user = new_func("user", false);
  FlatAtom *un = param(user, S_INT, "n");
  returns(user, S_INT);
  enter(user->body);
  block_returns(user->body, call_at(at(3, 9), take, S_INT, un, NULL));
  enter(saved);
  assert_run("error: t.nesl:3:1: take: bounds error\n", type_int, 1, call_at(at(3, 1), take, S_INT, I(4), NULL));
  assert_run("error: t.nesl:2:2: take: bounds error (in function user, line 3, column 9)\n", type_int, 1,
             call_at(at(2, 2), user, S_INT, I(5), NULL));
  assert_run("error: t.nesl:4:4: get: index 2 is out of range for a sequence of length 2\n", seq(type_int), 1,
             call_at(at(4, 4), lib_get, V_INT_T, ivec(2, 0, 2), NULL));
  /* the next statement runs as if nothing happened */
  assert_run("it = 6 : int\n", type_int, 1, call_at(at(1, 1), fact, S_INT, I(3), NULL));
}

static void test_deep_recursion(void **state) {
  (void)state;
  /* loop(n) = loop(n + 1), on a stack of 1 MiB */
  FlatFunc *loop = new_func("loop", false);
  FlatAtom *n = param(loop, S_INT, "n");
  returns(loop, S_INT);
  FlatBlock *saved = enter(loop->body);
  block_returns(loop->body, call_at(at(6, 3), loop, S_INT, op(FLAT_ADD, S_INT, n, I(1)), NULL));
  enter(saved);
  char base = 0;
  rt_set_stack(&base, 1 << 20);
  const char *got = run_expr(type_int, 1, call_at(at(1, 2), loop, S_INT, I(0), NULL));
  rt_set_stack(NULL, 0);
  assert_non_null(strstr(got, "error: t.nesl:1:2: recursion too deep"));
  assert_non_null(strstr(got, "(in function loop, line 6, column 3)"));
  assert_true(flat_interp_stats(IN).max_depth > 100);
  /* and the interpreter goes on */
  assert_run("it = 2 : int\n", type_int, 1, op(FLAT_ADD, S_INT, I(1), I(1)));
}

/* ---- host primitives ---- */

/* A host primitive; its arguments (made before it) end with NULL. */
static FlatStmt *host(const char *prim, bool lifted, Type *arg, Type *res, ...) {
  va_list ap;
  va_start(ap, res);
  FlatStmt *s = op_stmt_va(at(1, 1), FLAT_HOST_PRIM, ap);
  va_end(ap);
  s->prim = prim;
  s->host = rt_host_lookup(prim);
  s->lifted = lifted;
  s->elem_name = type_value_to_string(arg);
  s->layout = flatten_rt_layout(env, arg);
  s->result_name = type_value_to_string(res);
  s->result_layout = flatten_rt_layout(env, res);
  return s;
}

static void test_host_primitives(void **state) {
  (void)state;
  FlatAtom *hello = cvec("hello ");
  FlatAtom *ok = result(host("print_string", false, seq(type_char), type_bool, hello, NULL), S_BOOL);
  /* lifted: once per element, in order */
  FlatAtom *strings = segdes(ivec(3, 2, 0, 2)), *chars = cvec("abcd");
  FlatAtom *oks = result(host("print_string", true, seq(type_char), type_bool, strings, chars, NULL), V_BOOL_T);
  assert_run("hello abcd\nit = (T, [T, T, T]) : bool, [bool]\n", pair(type_bool, seq(type_bool)), 2, ok, oks);
  /* @ of a tuple with a sequence, result [char] */
  FlatAtom *floats = fvec(2, 1.5, 2.0);
  FlatStmt *ts = host("__to_string", false, pair(type_int, seq(type_float)), seq(type_char), I(3), floats, NULL);
  assert_run("it = \"(3, [1.5, 2.0])\" : [char]\n", seq(type_char), 1, result(ts, V_CHAR_T));
  /* lifted with a tuple result: parse_int on each string */
  FlatAtom *texts = segdes(ivec(3, 2, 1, 0)), *text_chars = cvec("12x");
  FlatStmt *pi = host("parse_int", true, seq(type_char), pair(type_int, type_bool), texts, text_chars, NULL);
  FlatAtom *nums = result(pi, V_INT_T), *parsed = result(pi, V_BOOL_T);
  assert_run("it = ([12, 0, 0], [T, F, F]) : [int], [bool]\n", pair(seq(type_int), seq(type_bool)), 2, nums,
             parsed);
  /* an error inside the primitive */
  FlatAtom *path = cvec("/nonexistent/nessie-test");
  FlatStmt *rf = host("read_string_from_file", false, seq(type_char), seq(type_char), path, NULL);
  rf->loc = at(3, 3);
  assert_run("error: t.nesl:3:3: read_string_from_file: cannot open '/nonexistent/nessie-test': No such file or "
             "directory\n",
             seq(type_char), 1, result(rf, V_CHAR_T));
}

/* Datatypes in a primitive's type: a stream is a datatype over an int. */
static void test_host_primitive_datatypes(void **state) {
  (void)state;
  Type *stream = tc_lookup(env, "stream")->type->snd;
  Type *answer = pair(type_bool, seq(type_char));
  FlatAtom *text = cvec("to stdout");
  FlatStmt *w = host("write_string", false, pair(seq(type_char), stream), answer, text, I(1), NULL);
  FlatAtom *ok = result(w, S_BOOL), *msg = result(w, V_CHAR_T);
  assert_run("to stdout\nit = (T, \"\") : bool, [char]\n", answer, 2, ok, msg);
  /* a stream returned: open_in_file of a file that is not there */
  FlatAtom *path = cvec("/nonexistent/x");
  FlatStmt *o = host("open_in_file", false, seq(type_char), pair(stream, answer), path, NULL);
  FlatAtom *s = result(o, S_INT), *opened = result(o, S_BOOL);
  result(o, V_CHAR_T);
  assert_run("it = (-1, F) : int, bool\n", pair(type_int, type_bool), 2, s, opened);
}

/* ---- the top level: definitions, bindings, globals ---- */

static Program *parse_and_check(const char *text) {
  env = tc_new_env();
  Program *prog = parse_program(source_from_string("p.nesl", text), false);
  assert_int_equal(tc_check_program(env, prog), 0);
  return prog;
}

static FlatTop *top_of(Program *prog, int i) {
  FlatTop *t = NEW(FlatTop);
  TopLevel *src = prog->tops.data[i];
  flatten_describe_top(env, src, src->kind == TOP_BIND || src->kind == TOP_EXPR ? src->type : NULL, t);
  return t;
}

static void test_top_level(void **state) {
  (void)state;
  Program *prog = parse_and_check("function sq(x) = x * x;\n"
                                  "datatype pt(int, int);\n"
                                  "(a, _, b) = (1, [2, 3], [4.5]);\n"
                                  "a + 1;\n"
                                  "c = 1 / 0;\n"
                                  "c + 1;\n"
                                  "p = pt(3, 4);\n"
                                  "pt(u, v) = p;\n");
  assert_string_equal(run_top(top_of(prog, 0)), "sq = fn : a -> a :: (a in number)\n");
  assert_string_equal(run_top(top_of(prog, 1)), "pt = fn : (int, int) -> pt\n");
  /* (a, _, b): one global per component of the value, the wildcard's too */
  FlatTop *bind = top_of(prog, 2);
  bind->body = blk;
  FlatAtom *ca = I(1), *cw = ivec(2, 2, 3), *cb = fvec(1, 4.5);
  vec_push(&blk->results, ca);
  vec_push(&blk->results, cw);
  vec_push(&blk->results, cb);
  FlatVar *ga = flat_new_var(P, S_INT, NULL), *gw = flat_new_var(P, V_INT_T, NULL),
          *gb = flat_new_var(P, V_FLOAT_T, NULL);
  FlatVar *globals[] = {ga, gw, gb};
  for (int i = 0; i < 3; i++) {
    globals[i]->global = true;
    vec_push(&bind->defines, globals[i]);
    vec_push(&P->globals, globals[i]);
  }
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(bind), "(a, _, b) = (1, [2, 3], [4.5]) : int, [int], [float]\n");
  /* a later statement reads them */
  FlatTop *use = top_of(prog, 3);
  use->body = blk;
  vec_push(&blk->results, op(FLAT_ADD, S_INT, flat_var_atom(ga), I(1)));
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(use), "it = 2 : int\n");
  /* a binding that fails leaves its variable without a value: pattern
     variables only, here */
  FlatTop *cbind = top_of(prog, 4);
  cbind->body = blk;
  vec_push(&blk->results, op_at(at(5, 7), FLAT_DIV, S_INT, I(1), I(0), NULL));
  FlatVar *gc = flat_new_var(P, S_INT, NULL);
  gc->global = true;
  vec_push(&cbind->defines, gc);
  vec_push(&P->globals, gc);
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(cbind), "error: t.nesl:5:7: /: division by zero\n");
  FlatTop *cuse = top_of(prog, 5);
  cuse->body = blk;
  vec_push(&blk->results, op_at(at(6, 1), FLAT_ADD, S_INT, flat_var_atom(gc), I(1), NULL));
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(cuse), "error: t.nesl:6:1: 'c' has no value: its definition stopped with an error\n");
  /* a datatype value prints as one; a constructor pattern binds its fields */
  FlatTop *pbind = top_of(prog, 6);
  pbind->body = blk;
  vec_push(&blk->results, I(3));
  vec_push(&blk->results, I(4));
  FlatVar *gp1 = flat_new_var(P, S_INT, NULL), *gp2 = flat_new_var(P, S_INT, NULL);
  gp1->global = gp2->global = true;
  vec_push(&pbind->defines, gp1);
  vec_push(&pbind->defines, gp2);
  vec_push(&P->globals, gp1);
  vec_push(&P->globals, gp2);
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(pbind), "p = pt(3, 4) : pt\n");
  FlatTop *ubind = top_of(prog, 7);
  ubind->body = blk;
  vec_push(&blk->results, flat_var_atom(gp1));
  vec_push(&blk->results, flat_var_atom(gp2));
  FlatVar *gu = flat_new_var(P, S_INT, NULL), *gv = flat_new_var(P, S_INT, NULL);
  gu->global = gv->global = true;
  vec_push(&ubind->defines, gu);
  vec_push(&ubind->defines, gv);
  vec_push(&P->globals, gu);
  vec_push(&P->globals, gv);
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(ubind), "pt(u, v) = pt(3, 4) : pt\n");
  FlatTop *sum = NEW(FlatTop);
  *sum = *use;
  sum->body = blk;
  blk->results = (Vec){0};
  vec_push(&blk->results, op(FLAT_ADD, S_INT, flat_var_atom(gu), flat_var_atom(gv)));
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(sum), "it = 7 : int\n");
}

/* Output that leaves a line open: the transcript line starts a new one;
   library statements print nothing. */
static void test_transcript_lines(void **state) {
  (void)state;
  Program *prog = parse_and_check("x = 5;\n");
  FlatAtom *text = cvec("no newline");
  FlatStmt *p = host("print_string", false, seq(type_char), type_bool, text, NULL);
  assert_run("no newline\nit = T : bool\n", type_bool, 1, result(p, S_BOOL));
  TopLevel *lib_like = prog->tops.data[0];
  lib_like->library = true;
  FlatTop *t = top_of(prog, 0);
  t->body = blk;
  vec_push(&blk->results, I(5));
  FlatVar *g = flat_new_var(P, S_INT, NULL);
  g->global = true;
  vec_push(&t->defines, g);
  vec_push(&P->globals, g);
  blk = NEW(FlatBlock);
  assert_string_equal(run_top(t), "");
  assert_run("it = 6 : int\n", type_int, 1, op(FLAT_ADD, S_INT, flat_var_atom(g), I(1)));
}

/* ---- flat_print.c ---- */

static void test_printer(void **state) {
  (void)state;
  FlatFunc *f = new_func("qsort^", false);
  f->lifted = true;
  f->source = "qsort";
  FlatAtom *d = param(f, SEGDES, NULL);
  FlatAtom *v = param(f, V_INT_T, "v");
  v->u.var->shape = 5;
  returns(f, SEGDES);
  returns(f, V_INT_T);
  FlatBlock *saved = enter(f->body);
  FlatAtom *n = op(FLAT_SEG_COUNT, S_INT, d);
  FlatStmt *c = new_stmt(FS_CALL, at(1, 1));
  c->callee = f;
  vec_push(&c->args, d);
  vec_push(&c->args, v);
  result(c, SEGDES);
  FlatAtom *r = result(c, V_INT_T);
  FlatAtom *empty = op(FLAT_EQ, S_BOOL, n, I(0));
  FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
  block_returns(t, v);
  enter(e);
  FlatStmt *nm = op_stmt(at(1, 1), FLAT_NAME, r, NULL);
  nm->elem_name = type_value_to_string(type_int);
  nm->layout = flatten_rt_layout(env, type_int);
  FlatAtom *names = result(nm, V_INT_T);
  FlatStmt *h = op_stmt(at(1, 1), FLAT_HOST_PRIM, d, names, NULL);
  h->prim = "print_string";
  h->lifted = true;
  h->elem_name = type_value_to_string(seq(type_char));
  h->layout = flatten_rt_layout(env, seq(type_char));
  h->result_name = type_value_to_string(type_bool);
  result(h, V_BOOL_T);
  block_returns(e, names);
  enter(f->body);
  FlatAtom *x = if_at(at(1, 1), empty, t, e, V_INT_T);
  (void)x;
  FlatAtom *pieces = op(FLAT_SELECT, S_FLOAT, B(true), F(1.5), F(-2));
  (void)pieces;
  FlatAtom *ch = op(FLAT_CHAR_CODE, S_INT, C('\n'));
  (void)ch;
  cvec("say \"hi\"");
  block_returns(f->body, d);
  block_returns(f->body, x);
  enter(saved);
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  flat_print_func(mem, f);
  fclose(mem);
  assert_string_equal(text, "function qsort^ (x1 : segdes, v_2 : [:int:] #5) -> (segdes, [:int:]) { % qsort, lifted %\n"
                            "  x3 : int = seg_count x1\n"
                            "  (x4 : segdes, x5 : [:int:]) = call qsort^ (x1, v_2)\n"
                            "  x6 : bool = eq x3 0\n"
                            "  (x9 : [:int:]) = if x6 then {\n"
                            "    return (v_2)\n"
                            "  } else {\n"
                            "    x7 : [:int:] = name <int> x5\n"
                            "    x8 : [:bool:] = host^ print_string <[char] -> bool> x1 x7\n"
                            "    return (x7)\n"
                            "  }\n"
                            "  x10 : float = select T 1.5 -2.0\n"
                            "  x11 : int = char_code code_char(10)\n"
                            "  x12 : [:char:] = vector \"say \\\"hi\\\"\"\n"
                            "  return (x1, x9)\n"
                            "}\n");
  free(text);
}

static void test_print_program(void **state) {
  (void)state;
  Program *prog = parse_and_check("function one(x) = 1;\ny = 2;\n");
  FlatTop *def = top_of(prog, 0);
  vec_push(&P->tops, def);
  FlatTop *bind = top_of(prog, 1);
  bind->body = blk;
  FlatAtom *two = op(FLAT_COPY, S_INT, I(2));
  vec_push(&blk->results, two);
  FlatVar *g = flat_new_var(P, S_INT, "y");
  g->global = true;
  vec_push(&bind->defines, g);
  vec_push(&P->globals, g);
  vec_push(&P->tops, bind);
  FlatFunc *f = new_func("one_1", false);
  f->source = "one";
  param(f, S_INT, "x");
  returns(f, S_INT);
  block_returns(f->body, I(1));
  check_program();
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  flat_print_program(mem, P);
  fclose(mem);
  assert_string_equal(text, "function one_1 (x_3 : int) -> (int) { % one %\n"
                            "  return (1)\n"
                            "}\n"
                            "\n"
                            "% function one(x) = 1; : a -> int :: (a in any) %\n"
                            "% y = 2; : int %\n"
                            "top -> (y_2 : int) {\n"
                            "  x1 : int = copy 2\n"
                            "  return (x1)\n"
                            "}\n");
  free(text);
}

/* ---- flat_check.c: each kind of broken program is refused ---- */

/* Checks P, which must fail with a message containing 'want'. */
static void assert_check_fails(const char *want) {
  if (flat_check(P, "testpass"))
    fail_msg("the checker accepted a program that breaks: %s", want);
  const char *d = diags();
  if (!strstr(d, want))
    fail_msg("expected a check failure containing <<%s>>, got:\n%s", want, d);
  if (!strstr(d, "error: flat IR check failed after testpass: "))
    fail_msg("the failure does not name the pass:\n%s", d);
}

/* Wraps the current block as a top-level expression of type 't'. */
static void as_top(Type *t, FlatAtom *r) {
  vec_push(&blk->results, r);
  FlatTop *top = NEW(FlatTop);
  flatten_describe_top(env, expr_src, t, top);
  top->body = blk;
  vec_push(&P->tops, top);
  blk = NEW(FlatBlock);
}

static void test_check_accepts(void **state) {
  (void)state;
  make_fact();
  as_top(type_int, I(1));
  assert_true(flat_check(P, "testpass"));
  assert_string_equal(diags(), "");
}

static void test_check_use_before_binding(void **state) {
  (void)state;
  FlatVar *later = flat_new_var(P, S_INT, "later");
  FlatAtom *x = op_at(at(2, 4), FLAT_ADD, S_INT, flat_var_atom(later), I(1), NULL);
  FlatStmt *s = new_stmt(FS_OP, at(1, 1));
  s->op = FLAT_COPY;
  vec_push(&s->args, I(1));
  vec_push(&s->results, later);
  as_top(type_int, x);
  assert_check_fails("t.nesl:2:4: error: flat IR check failed after testpass: later_1 is used before it is bound");
}

static void test_check_bound_twice(void **state) {
  (void)state;
  FlatAtom *x = op(FLAT_COPY, S_INT, I(1));
  FlatStmt *s = new_stmt(FS_OP, at(3, 1));
  s->op = FLAT_COPY;
  vec_push(&s->args, I(2));
  vec_push(&s->results, x->u.var);
  as_top(type_int, x);
  assert_check_fails("t.nesl:3:1: error: flat IR check failed after testpass: x1 is bound twice");
}

static void test_check_scope_of_branches(void **state) {
  (void)state;
  FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
  FlatBlock *saved = enter(t);
  FlatAtom *inside = op(FLAT_COPY, S_INT, I(1));
  block_returns(t, inside);
  block_returns(e, I(2));
  enter(saved);
  if_at(at(1, 1), B(true), t, e, S_INT);
  as_top(type_int, op_at(at(4, 2), FLAT_COPY, S_INT, inside, NULL));
  assert_check_fails(
      "t.nesl:4:2: error: flat IR check failed after testpass: x1 is used outside the scope of its binding");
}

static void test_check_operation_types(void **state) {
  (void)state;
  as_top(type_int, op_at(at(1, 2), FLAT_ADD, S_INT, I(1), F(2), NULL));
  assert_check_fails("add: arguments 1 and 2 are an int and a float");
}

static void test_check_arity(void **state) {
  (void)state;
  as_top(type_int, op_at(at(1, 2), FLAT_NEG, S_INT, I(1), I(2), NULL));
  assert_check_fails("neg takes 1 arguments, not 2");
}

static void test_check_mixed_elementwise(void **state) {
  (void)state;
  as_top(seq(type_int), op(FLAT_ADD, V_INT_T, ivec(1, 1), I(2)));
  assert_check_fails("add: mixes a [:int:] and an int");
}

static void test_check_result_type(void **state) {
  (void)state;
  as_top(type_float, op(FLAT_ADD, S_FLOAT, I(1), I(2)));
  assert_check_fails("add: result x1 is a float, but the add gives a int");
}

static void test_check_calls(void **state) {
  (void)state;
  FlatFunc *fact = make_fact();
  as_top(type_int, call_at(at(2, 2), fact, S_INT, F(1), NULL));
  assert_check_fails("t.nesl:2:2: error: flat IR check failed after testpass: call of fact: argument 1 is a float, "
                     "the parameter a int");
}

static void test_check_call_results(void **state) {
  (void)state;
  FlatFunc *fact = make_fact();
  as_top(seq(type_int), call_at(at(2, 2), fact, V_INT_T, I(1), NULL));
  assert_check_fails("call of fact: result x");
}

static void test_check_call_outside_program(void **state) {
  (void)state;
  FlatFunc *stray = NEW(FlatFunc);
  stray->name = "stray";
  stray->body = NEW(FlatBlock);
  as_top(type_int, call_at(at(2, 2), stray, S_INT, NULL));
  assert_check_fails("call of stray, which is not in the program");
}

static void test_check_if(void **state) {
  (void)state;
  FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
  block_returns(t, I(1));
  block_returns(e, F(2));
  as_top(type_int, if_at(at(2, 2), B(true), t, e, S_INT));
  assert_check_fails("else branch: result x1 is a int, but the else branch gives a float");
}

static void test_check_if_condition(void **state) {
  (void)state;
  FlatBlock *t = NEW(FlatBlock), *e = NEW(FlatBlock);
  block_returns(t, I(1));
  block_returns(e, I(2));
  as_top(type_int, if_at(at(2, 2), I(1), t, e, S_INT));
  assert_check_fails("if: the condition must be one bool scalar");
}

static void test_check_time(void **state) {
  (void)state;
  FlatStmt *s = new_stmt(FS_TIME, at(1, 1));
  s->body = NEW(FlatBlock);
  block_returns(s->body, I(1));
  FlatAtom *r = result(s, S_INT);
  result(s, S_INT);
  as_top(type_int, r);
  assert_check_fails("time: result x2 is a int, but the time gives a float");
}

static void test_check_function_results(void **state) {
  (void)state;
  FlatFunc *f = new_func("bad", false);
  param(f, S_INT, NULL);
  returns(f, S_FLOAT);
  block_returns(f->body, I(0));
  assert_check_fails("function bad: result 1 is a int but declared a float");
}

static void test_check_top_layout(void **state) {
  (void)state;
  as_top(seq(type_int), I(1));
  assert_check_fails("the top-level block's result 1 is a int; [int] has a [:int:]");
}

static void test_check_globals(void **state) {
  (void)state;
  FlatVar *g = flat_new_var(P, S_INT, "g");
  g->global = true;
  vec_push(&P->globals, g);
  as_top(type_int, op(FLAT_COPY, S_INT, flat_var_atom(g)));
  assert_check_fails("global g_1 is used before a top-level statement defines it");
}

static void test_check_global_not_listed(void **state) {
  (void)state;
  FlatVar *g = flat_new_var(P, S_INT, "g");
  g->global = true;
  as_top(type_int, op(FLAT_COPY, S_INT, flat_var_atom(g)));
  assert_check_fails("g_1 is marked global but is not in the program's globals");
}

static void test_check_structured_layout(void **state) {
  (void)state;
  FlatStmt *s = op_stmt(at(1, 1), FLAT_NAME, ivec(1, 1), NULL);
  s->elem_name = type_value_to_string(pair(type_int, type_int));
  s->layout = flatten_rt_layout(env, pair(type_int, type_int));
  as_top(seq(type_int), result(s, V_INT_T));
  assert_check_fails("name: 1 arguments, too few for int, int");
}

static void test_check_host_primitive(void **state) {
  (void)state;
  FlatStmt *s = host("no_such_primitive", false, type_int, type_int, I(1), NULL);
  as_top(type_int, result(s, S_INT));
  assert_check_fails("host: 'no_such_primitive' is not a primitive");
}

static void test_check_lifted_flag(void **state) {
  (void)state;
  FlatStmt *s = op_stmt(at(1, 1), FLAT_ADD, I(1), I(2), NULL);
  s->lifted = true;
  as_top(type_int, result(s, S_INT));
  assert_check_fails("add has no lifted form");
}

static void test_check_variable_ids(void **state) {
  (void)state;
  FlatAtom *x = op(FLAT_COPY, S_INT, I(1));
  x->u.var->id = P->next_var + 5;
  as_top(type_int, x);
  assert_check_fails("has id");
}

static void test_check_function_names(void **state) {
  (void)state;
  make_fact();
  make_fact();
  assert_check_fails("two functions are named fact");
}

static void test_check_defines(void **state) {
  (void)state;
  Program *prog = parse_and_check("(a, b) = (1, 2);\n");
  FlatTop *bind = top_of(prog, 0);
  bind->body = blk;
  vec_push(&blk->results, I(1));
  vec_push(&blk->results, I(2));
  FlatVar *g = flat_new_var(P, S_INT, NULL);
  g->global = true;
  vec_push(&bind->defines, g);
  vec_push(&P->globals, g);
  vec_push(&P->tops, bind);
  assert_check_fails("1 globals are defined; the value has 2 components, the pattern's variables 2");
}

int main(void) {
  GC_INIT();
  base_env = tc_new_env();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_operations_and_types),
      T(test_layouts),
      T(test_layout_values),
      T(test_arithmetic),
      T(test_arithmetic_errors),
      T(test_comparison_and_logic),
      T(test_float_functions_and_conversions),
      T(test_select_zero_copy_vector),
      T(test_rand),
      T(test_vector_operations),
      T(test_vector_errors),
      T(test_reductions_and_scans),
      T(test_segment_descriptors),
      T(test_seg_range_and_errors),
      T(test_name),
      T(test_name_is_linear),
      T(test_eql_and_hash),
      T(test_error_ops),
      T(test_if_call_recursion),
      T(test_time),
      T(test_error_context),
      T(test_deep_recursion),
      T(test_host_primitives),
      T(test_host_primitive_datatypes),
      T(test_top_level),
      T(test_transcript_lines),
      T(test_printer),
      T(test_print_program),
      T(test_check_accepts),
      T(test_check_use_before_binding),
      T(test_check_bound_twice),
      T(test_check_scope_of_branches),
      T(test_check_operation_types),
      T(test_check_arity),
      T(test_check_mixed_elementwise),
      T(test_check_result_type),
      T(test_check_calls),
      T(test_check_call_results),
      T(test_check_call_outside_program),
      T(test_check_if),
      T(test_check_if_condition),
      T(test_check_time),
      T(test_check_function_results),
      T(test_check_top_layout),
      T(test_check_globals),
      T(test_check_global_not_listed),
      T(test_check_structured_layout),
      T(test_check_host_primitive),
      T(test_check_lifted_flag),
      T(test_check_variable_ids),
      T(test_check_function_names),
      T(test_check_defines),
#undef T
  };
  return cmocka_run_group_tests_name("flat", tests, NULL, NULL);
}
