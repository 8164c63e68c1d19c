/*
 * test_lcu_check.c: unit tests for λcu's constructors, printer and
 * checker (lcu/build.c, lcu_print.c, lcu_check.c).
 *
 * Programs are built by hand: the norm2 example of the paper's section 5
 * (three kernels, REDUCE, FILTER and MAP, run five times by one CPU
 * function), one well-formed kernel per SOAC and segmented SOAC, and one
 * broken program per kind of violation, each checked for the message
 * lcu_check reports.  The printer's output is compared line by line.
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
#include "frontend/frontend.h"
#include "frontend/typecheck.h"
#include "frontend/types.h"
#include "flat/flat.h"
#include "flatten/flatten.h"
#include "lcu/lcu.h"

/* ---- the state of one test ---- */

static TypeEnv *base_env;
static Source *src;   /* where the locations point */
static LcuProgram *P; /* the program being built */

static int setup(void **state) {
  (void)state;
  diag_reset();
  diag_capture_start();
  src = source_from_string("t.nesl", "line one\nline two\nline three\n");
  P = lcu_program_new();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  diag_capture_stop();
  diag_reset();
  return 0;
}

static Loc at(int line) { return (Loc){.src = src, .line = line, .col = 1}; }

/* ---- building λcu ---- */

#define VARS(...) ((LcuVar *[]){__VA_ARGS__, NULL})
#define NOVARS ((LcuVar *[]){NULL})
#define EXPS(...) ((LcuExp *[]){__VA_ARGS__, NULL})
#define ATOMS(...) ((LcuAtom *[]){__VA_ARGS__, NULL})
#define NOATOMS ((LcuAtom *[]){NULL})

static const LcuType INT = {LT_SCALAR, FB_INT}, FLOAT = {LT_SCALAR, FB_FLOAT}, BOOL = {LT_SCALAR, FB_BOOL};
static const LcuType VINT = {LT_VEC, FB_INT}, VFLOAT = {LT_VEC, FB_FLOAT}, VBOOL = {LT_VEC, FB_BOOL};
static const LcuType VCHAR = {LT_VEC, FB_CHAR}, SD = {LT_SEGDES, FB_INT};

static LcuVar *var(LcuType t, const char *hint) { return lcu_new_var(P, t, hint); }

static void push_all(Vec *v, void **items) {
  for (; *items; items++)
    vec_push(v, *items);
}

/* Expressions are at line 2, as the SOACs; statements at line 3. */
static LcuExp *ev(LcuVar *v) { return lcu_exp_var(at(2), v); }
static LcuExp *eint(int32_t i) { return lcu_exp_const(at(2), lcu_int_const(i)); }
static LcuExp *efloat(double f) { return lcu_exp_const(at(2), lcu_float_const(f)); }
static LcuExp *ebool(bool b) { return lcu_exp_const(at(2), lcu_bool_const(b)); }

/* op(a, b, c) of type 't', with flat_op_nargs(op) operands */
static LcuExp *eop(FlatOp op, FlatBase t, LcuExp *a, LcuExp *b, LcuExp *c) {
  return lcu_exp_op(at(2), op, t, flat_op_nargs(op), a, b, c);
}

static LcuExp *ebin(FlatOp op, LcuExp *a, LcuExp *b) {
  FlatBase t = a->type;
  if (op >= FLAT_EQ && op <= FLAT_GE)
    t = FB_BOOL;
  return eop(op, t, a, b, NULL);
}

static LcuExp *eindex(LcuVar *v, LcuExp *i) { return lcu_exp_index(at(2), v, i); }
static LcuExp *elen(LcuVar *v) { return lcu_exp_length(at(2), v); }
static LcuExp *eif(LcuExp *c, LcuExp *a, LcuExp *b) { return lcu_exp_if(at(2), c, a, b); }
static LcuExp *elet(LcuVar *v, LcuExp *value, LcuExp *body) { return lcu_exp_let(at(2), v, value, body); }

/* { params => body using uses } */
static LcuThunk *thunk(LcuVar **params, LcuExp **body, LcuVar **uses) {
  LcuThunk *t = lcu_thunk_new();
  push_all(&t->params, (void **)params);
  for (; *body; body++)
    lcu_thunk_return(t, *body);
  for (; *uses; uses++)
    lcu_thunk_use(t, *uses);
  return t;
}

/* A SOAC of any kind (the checker's tests make ill-formed ones too):
   the MAP constructor, its kind then changed. */
static LcuSoac *soac(LcuSoacKind kind, LcuVar **results, LcuThunk *pull, LcuThunk *second) {
  LcuSoac *s = lcu_soac_map(at(2), pull, lcu_size_const(0));
  s->kind = kind;
  s->second = second;
  push_all(&s->results, (void **)results);
  return s;
}

static LcuSoac *sized(LcuSoac *s, LcuVar *length) {
  s->size = lcu_size_length(length);
  return s;
}

static void identity(LcuSoac *s, FlatAtom a) {
  FlatAtom *p = NEW(FlatAtom);
  *p = a;
  vec_push(&s->identity, p);
}

static LcuSoac *library(LcuLibrary lib, LcuVar **results, LcuVar **args) {
  LcuSoac *s = lcu_soac_library(at(2), lib);
  push_all(&s->results, (void **)results);
  push_all(&s->args, (void **)args);
  return s;
}

/* kernel name (params) { soacs... return results }, added to P */
static LcuKernel *kernel(const char *name, LcuVar **params, LcuVar **results, ...) {
  LcuKernel *k = lcu_kernel_new();
  push_all(&k->params, (void **)params);
  for (; *results; results++)
    lcu_kernel_return(k, *results);
  va_list ap;
  va_start(ap, results);
  for (LcuSoac *s; (s = va_arg(ap, LcuSoac *));)
    lcu_kernel_soac(k, s);
  va_end(ap);
  lcu_add_kernel(P, k);
  k->name = name;
  return k;
}

static LcuAtom *av(LcuVar *v) { return lcu_atom_var(v); }
static LcuAtom *aint(int32_t i) { return lcu_atom_int(i); }
static LcuAtom *afloat(double f) { return lcu_atom_const(lcu_float_const(f)); }
static LcuAtom *achar(char c) { return lcu_atom_const(lcu_char_const(c)); }

/* A statement of kind 'kind' at line 3 (the LS_SCALAR constructor, its
   kind then changed: the tests make ill-formed statements too). */
static LcuStmt *stmt(LcuStmtKind kind, LcuVar **results, LcuAtom **args) {
  LcuStmt *s = lcu_stmt_scalar(at(3), FLAT_ADD);
  s->kind = kind;
  for (; *results; results++)
    lcu_stmt_bind(s, *results);
  for (; *args; args++)
    lcu_stmt_arg(s, *args);
  return s;
}

static LcuStmt *run(LcuKernel *k, LcuVar **results, LcuAtom **args) {
  LcuStmt *s = stmt(LS_RUN, results, args);
  s->kernel = k;
  return s;
}

static LcuStmt *scalar(FlatOp op, LcuVar *result, LcuAtom **args) {
  LcuStmt *s = stmt(LS_SCALAR, VARS(result), args);
  s->op = op;
  return s;
}

static LcuStmt *length(LcuLengthKind kind, LcuVar *result, LcuVar *of) {
  LcuStmt *s = lcu_stmt_length(at(3), kind, av(of));
  lcu_stmt_bind(s, result);
  return s;
}

static LcuStmt *host(FlatOp op, LcuVar **results, LcuAtom **args) {
  LcuStmt *s = stmt(LS_HOST, results, args);
  FlatStmt *f = NEW(FlatStmt);
  f->kind = FS_OP;
  f->op = op;
  s->flat = f;
  return s;
}

static LcuBlock *block(LcuAtom **results, ...) {
  LcuBlock *b = lcu_block_new();
  for (; *results; results++)
    lcu_block_return(b, *results);
  va_list ap;
  va_start(ap, results);
  for (LcuStmt *s; (s = va_arg(ap, LcuStmt *));)
    lcu_block_add(b, s);
  va_end(ap);
  return b;
}

static LcuFunc *func(const char *name, LcuVar **params, LcuBlock *body) {
  LcuFunc *f = lcu_func_new(at(1), name, name, false);
  push_all(&f->params, (void **)params);
  f->body = body;
  vec_push(&P->funcs, f);
  return f;
}

/* ---- checking and printing ---- */

static bool check(void) { return lcu_check(P, "test"); }

/* lcu_check fails, and its one message contains 'want'. */
static void assert_fails(const char *want) {
  assert_false(check());
  const char *d = diags();
  if (!strstr(d, want) || !strstr(d, "λcu check failed after test: ")) {
    print_error("expected a message with \"%s\", got:\n%s\n", want, d);
    fail();
  }
  assert_int_equal(diag_count(), 1);
}

static void assert_passes(void) {
  bool ok = check();
  if (!ok) {
    print_error("%s", diags());
    fail();
  }
  assert_int_equal(diag_count(), 0);
}

static char *printed(void) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  lcu_print_program(f, P);
  fclose(f);
  char *copy = xstrdup(text);
  free(text);
  if (getenv("LCU_TEST_DUMP")) /* to look at what the tests print */
    fputs(copy, stderr);
  return copy;
}

/* 'text' has 'line' as one of its lines, whole. */
static void assert_has_line(const char *text, const char *line) {
  size_t n = strlen(line);
  for (const char *p = text; p && *p;) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, line, n) == 0)
      return;
    p = end ? end + 1 : NULL;
  }
  print_error("no line\n  %s\nin\n%s", line, text);
  fail();
}

/* ---- the paper's norm2 (section 5) ---- */

typedef struct Norm2 {
  LcuKernel *k1, *k2, *k3;
  LcuFunc *f;
  LcuVar *xs, *i, *x, *y, *z, *ys, *s, *zs, *sum1, *gts, *sum2, *res1, *res2;
} Norm2;

/* The λcu the paper's flattening gives for norm2, with floats.  One
   variable xs is the parameter of the three kernels and of the CPU
   function, and one i the index of every pull thunk, as a kernel made
   once may be run from many places. */
static Norm2 build_norm2(void) {
  Norm2 n;
  n.xs = var(VFLOAT, "xs");
  n.i = var(INT, "i");
  n.x = var(FLOAT, "x");
  n.y = var(FLOAT, "y");
  n.z = var(FLOAT, "z");
  LcuSoac *reduce = soac(SOAC_REDUCE, VARS(n.z), thunk(VARS(n.i), EXPS(eindex(n.xs, ev(n.i))), VARS(n.xs)),
                         thunk(VARS(n.x, n.y), EXPS(ebin(FLAT_ADD, ev(n.x), ev(n.y))), NOVARS));
  identity(reduce, (FlatAtom){.kind = FA_FLOAT, .u.f = 0.0});
  n.k1 = kernel("K1", VARS(n.xs), VARS(n.z), sized(reduce, n.xs), NULL);
  n.ys = var(VFLOAT, "ys");
  LcuSoac *filter = soac(SOAC_FILTER, VARS(n.ys), thunk(VARS(n.i), EXPS(eindex(n.xs, ev(n.i))), VARS(n.xs)),
                         thunk(VARS(n.x), EXPS(ebin(FLAT_GT, ev(n.x), efloat(0.0))), NOVARS));
  n.k2 = kernel("K2", VARS(n.xs), VARS(n.ys), sized(filter, n.xs), NULL);
  n.s = var(FLOAT, "s");
  n.zs = var(VFLOAT, "zs");
  LcuSoac *map = soac(SOAC_MAP, VARS(n.zs),
                      thunk(VARS(n.i), EXPS(ebin(FLAT_DIV, eindex(n.xs, ev(n.i)), ev(n.s))), VARS(n.xs, n.s)), NULL);
  n.k3 = kernel("K3", VARS(n.xs, n.s), VARS(n.zs), sized(map, n.xs), NULL);
  n.sum1 = var(FLOAT, "sum1");
  n.gts = var(VFLOAT, "gts");
  n.sum2 = var(FLOAT, "sum2");
  n.res1 = var(VFLOAT, "res1");
  n.res2 = var(VFLOAT, "res2");
  n.f = func("norm2", VARS(n.xs),
             block(ATOMS(av(n.res1), av(n.res2)), run(n.k1, VARS(n.sum1), ATOMS(av(n.xs))),
                   run(n.k2, VARS(n.gts), ATOMS(av(n.xs))), run(n.k1, VARS(n.sum2), ATOMS(av(n.gts))),
                   run(n.k3, VARS(n.res1), ATOMS(av(n.xs), av(n.sum1))),
                   run(n.k3, VARS(n.res2), ATOMS(av(n.xs), av(n.sum2))), NULL));
  return n;
}

static void test_types_and_names(void **state) {
  (void)state;
  assert_string_equal(lcu_type_name(INT), "int");
  assert_string_equal(lcu_type_name(lcu_scalar(FB_CHAR)), "char");
  assert_string_equal(lcu_type_name(lcu_vec(FB_FLOAT)), "[float]");
  assert_string_equal(lcu_type_name(lcu_vec(FB_BOOL)), "[bool]");
  assert_string_equal(lcu_type_name(lcu_segdes()), "sd");
  assert_true(lcu_type_equal(lcu_vec(FB_INT), VINT));
  assert_false(lcu_type_equal(VINT, INT));
  assert_false(lcu_type_equal(VINT, VFLOAT));
  assert_true(lcu_type_equal(SD, (LcuType){LT_SEGDES, FB_CHAR}));
  assert_string_equal(lcu_soac_name(SOAC_MAP), "MAP");
  assert_string_equal(lcu_soac_name(SOAC_SEG_PARTITION), "SEG_PARTITION");
  assert_string_equal(lcu_soac_name(SOAC_LIBRARY), "LIBRARY");
  assert_string_equal(lcu_library_name(LIB_RANK), "rank");
  assert_string_equal(lcu_library_name(LIB_SEG_RANK_DOWN), "seg_rank_down");
  assert_string_equal(lcu_library_name(LIB_RAND), "rand");

  LcuVar *a = var(VINT, "xs"), *b = var(SD, NULL);
  assert_int_equal(a->id, 1);
  assert_int_equal(b->id, 2);
  assert_int_equal(P->next_var, 3);
  assert_string_equal(a->name, "xs_1");
  assert_string_equal(b->name, "x2");
  assert_true(lcu_type_equal(b->type, SD));
}

static void test_norm2_checks(void **state) {
  (void)state;
  build_norm2();
  assert_passes();
}

static void test_norm2_prints(void **state) {
  (void)state;
  build_norm2();
  const char *want = "source \"t.nesl\"\n"
                     "\n"
                     "kernel K1 (xs_1 : [float]) -> float {\n"
                     "  let z_5 : float = REDUCE { i_2 => xs_1[i_2] using xs_1 } (0.0) { (x_3, y_4) => x_3 + y_4 } (#xs_1)\n"
                     "  return z_5\n"
                     "}\n"
                     "\n"
                     "kernel K2 (xs_1 : [float]) -> [float] {\n"
                     "  let ys_6 : [float] = FILTER { i_2 => xs_1[i_2] using xs_1 } { x_3 => x_3 > 0.0 } (#xs_1)\n"
                     "  return ys_6\n"
                     "}\n"
                     "\n"
                     "kernel K3 (xs_1 : [float], s_7 : float) -> [float] {\n"
                     "  let zs_8 : [float] = MAP { i_2 => xs_1[i_2] / s_7 using xs_1, s_7 } (#xs_1)\n"
                     "  return zs_8\n"
                     "}\n"
                     "\n"
                     "function norm2 (xs_1 : [float]) -> ([float], [float]) @1:1 {\n"
                     "  let sum1_9 : float = run K1 (xs_1) @3:1\n"
                     "  let gts_10 : [float] = run K2 (xs_1) @3:1\n"
                     "  let sum2_11 : float = run K1 (gts_10) @3:1\n"
                     "  let res1_12 : [float] = run K3 (xs_1, sum1_9) @3:1\n"
                     "  let res2_13 : [float] = run K3 (xs_1, sum2_11) @3:1\n"
                     "  return (res1_12, res2_13)\n"
                     "}\n"
                     "\n";
  char *text = printed();
  /* line by line first, for a readable failure */
  char *lines = xstrdup(want);
  for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n"))
    assert_has_line(text, line);
  assert_string_equal(text, want);
  /* printing is deterministic */
  assert_string_equal(printed(), text);
}

/* ---- one well-formed kernel per SOAC ---- */

static void test_map_permute_once(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *n = var(INT, "n"), *i = var(INT, "i"), *j = var(INT, "j");
  LcuVar *a = var(VINT, "a"), *b = var(VFLOAT, "b"), *t = var(INT, "t");
  /* a tuple of two results, a let, an if, float(), a size variable */
  LcuSoac *map = soac(SOAC_MAP, VARS(a, b),
                      thunk(VARS(i),
                            EXPS(elet(t, eindex(xs, ev(i)), eif(ebin(FLAT_LT, ev(t), eint(0)), eop(FLAT_NEG, FB_INT, ev(t), NULL, NULL), ev(t))),
                                 eop(FLAT_TO_FLOAT, FB_FLOAT, ev(i), NULL, NULL)),
                            VARS(xs)),
                      NULL);
  map->size.var = n;
  /* the reverse of a: PERMUTE with an index thunk, then into xs */
  LcuVar *r = var(VINT, "r"), *q = var(VINT, "q");
  LcuSoac *perm = sized(soac(SOAC_PERMUTE, VARS(r), thunk(VARS(i), EXPS(eindex(a, ev(i))), VARS(a)),
                             thunk(VARS(j), EXPS(ebin(FLAT_SUB, ebin(FLAT_SUB, elen(a), ev(j)), eint(1))), VARS(a))),
                        a);
  LcuSoac *into = sized(soac(SOAC_PERMUTE, VARS(q), thunk(VARS(i), EXPS(eint(7)), NOVARS),
                             thunk(VARS(i), EXPS(eint(0)), NOVARS)),
                        xs);
  into->into = xs;
  /* ONCE: the last element, on one thread */
  LcuVar *last = var(INT, "last"), *flag = var(BOOL, "flag");
  LcuSoac *once = soac(SOAC_ONCE, VARS(last, flag),
                       thunk(NOVARS, EXPS(eindex(r, ebin(FLAT_SUB, elen(r), eint(1))), ebool(true)), VARS(r)), NULL);
  kernel("K1", VARS(xs, n), VARS(b, r, q, last, flag), map, perm, into, once, NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "kernel K1 (xs_1 : [int], n_2 : int) -> ([float], [int], [int], int, bool) {");
  assert_has_line(text, "  let (a_5 : [int], b_6 : [float]) = MAP { i_3 => ((let t_7 = xs_1[i_3] in if t_7 < 0 then -t_7 else t_7), "
                        "float(i_3)) using xs_1 } (n_2)");
  assert_has_line(text, "  let r_8 : [int] = PERMUTE { i_3 => a_5[i_3] using a_5 } { j_4 => #a_5 - j_4 - 1 using a_5 } (#a_5)");
  assert_has_line(text, "  let q_9 : [int] = PERMUTE { i_3 => 7 } { i_3 => 0 } (#xs_1) into xs_1");
  assert_has_line(text, "  let (last_10 : int, flag_11 : bool) = ONCE { () => (r_8[#r_8 - 1], T) using r_8 }");
  assert_has_line(text, "  return (b_6, r_8, q_9, last_10, flag_11)");
}

static void test_reduce_scan(void **state) {
  (void)state;
  /* a reduction of (value, index) pairs keeping the first greatest, as
     max_index lowers, and a scan of sums */
  LcuVar *xs = var(VFLOAT, "xs"), *i = var(INT, "i");
  LcuVar *x = var(FLOAT, "x"), *xi = var(INT, "xi"), *y = var(FLOAT, "y"), *yi = var(INT, "yi");
  LcuVar *m = var(FLOAT, "m"), *mi = var(INT, "mi"), *keep = var(BOOL, "keep");
  LcuExp *k = ev(keep);
  LcuThunk *op = thunk(VARS(x, xi, y, yi),
                       EXPS(elet(keep, ebin(FLAT_GE, ev(x), ev(y)), eif(k, ev(x), ev(y))),
                            eif(ebin(FLAT_GE, ev(x), ev(y)), ev(xi), ev(yi))),
                       NOVARS);
  LcuSoac *red = sized(soac(SOAC_REDUCE, VARS(m, mi), thunk(VARS(i), EXPS(eindex(xs, ev(i)), ev(i)), VARS(xs)), op), xs);
  identity(red, (FlatAtom){.kind = FA_FLOAT, .u.f = -1e300});
  identity(red, (FlatAtom){.kind = FA_INT, .u.i = INT32_MAX});
  LcuVar *sc = var(VFLOAT, "sc"), *a = var(FLOAT, "a"), *b = var(FLOAT, "b");
  LcuSoac *scan = sized(soac(SOAC_SCAN, VARS(sc), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                             thunk(VARS(a, b), EXPS(ebin(FLAT_ADD, ev(a), ev(b))), NOVARS)),
                        xs);
  identity(scan, (FlatAtom){.kind = FA_FLOAT, .u.f = 0.0});
  kernel("K1", VARS(xs), VARS(m, mi, sc), red, scan, NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let (m_7 : float, mi_8 : int) = REDUCE { i_2 => (xs_1[i_2], i_2) using xs_1 } (-1.0e300, 2147483647) "
                        "{ (x_3, xi_4, y_5, yi_6) => ((let keep_9 = x_3 >= y_5 in if keep_9 then x_3 else y_5), "
                        "if x_3 >= y_5 then xi_4 else yi_6) } (#xs_1)");
  assert_has_line(text, "  let sc_10 : [float] = SCAN { i_2 => xs_1[i_2] using xs_1 } (0.0) { (a_11, b_12) => a_11 + b_12 } (#xs_1)");
}

static void test_filter_partition(void **state) {
  (void)state;
  /* pack as lowering makes it: (value, flag) pairs, kept by the flag */
  LcuVar *vs = var(VCHAR, "vs"), *fs = var(VBOOL, "fs"), *i = var(INT, "i");
  LcuVar *c = var(lcu_scalar(FB_CHAR), "c"), *f = var(BOOL, "f");
  LcuVar *kept = var(VCHAR, "kept"), *flags = var(VBOOL, "flags");
  LcuSoac *filter = sized(soac(SOAC_FILTER, VARS(kept, flags),
                               thunk(VARS(i), EXPS(eindex(vs, ev(i)), eindex(fs, ev(i))), VARS(vs, fs)),
                               thunk(VARS(c, f), EXPS(ev(f)), NOVARS)),
                          vs);
  LcuVar *n = var(INT, "n"), *yes = var(VINT, "yes"), *no = var(VINT, "no"), *x = var(INT, "x");
  LcuSoac *part = soac(SOAC_PARTITION, VARS(yes, no), thunk(VARS(i), EXPS(ebin(FLAT_MUL, ev(i), ev(i))), NOVARS),
                       thunk(VARS(x), EXPS(ebin(FLAT_EQ, eop(FLAT_REM, FB_INT, ev(x), eint(2), NULL), eint(0))), NOVARS));
  part->size.value = 10;
  kernel("K1", VARS(vs, fs, n), VARS(kept, yes, no), filter, part, NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let (kept_6 : [char], flags_7 : [bool]) = FILTER { i_3 => (vs_1[i_3], fs_2[i_3]) using vs_1, fs_2 } "
                        "{ (c_4, f_5) => f_5 } (#vs_1)");
  assert_has_line(text, "  let (yes_9 : [int], no_10 : [int]) = PARTITION { i_3 => i_3 * i_3 } { x_11 => rem(x_11, 2) == 0 } (10)");
}

static void test_segmented(void **state) {
  (void)state;
  LcuVar *sd = var(SD, "sd"), *xs = var(VINT, "xs"), *i = var(INT, "i"), *a = var(INT, "a"), *b = var(INT, "b");
  LcuThunk *pull = thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs));
  LcuThunk *plus = thunk(VARS(a, b), EXPS(ebin(FLAT_ADD, ev(a), ev(b))), NOVARS);
  LcuThunk *positive = thunk(VARS(a), EXPS(ebin(FLAT_GT, ev(a), eint(0))), NOVARS);
  LcuVar *sums = var(VINT, "sums"), *pre = var(VINT, "pre"), *perm = var(VINT, "perm");
  LcuVar *kept = var(VINT, "kept"), *ksd = var(SD, "ksd");
  LcuVar *yes = var(VINT, "yes"), *ysd = var(SD, "ysd"), *no = var(VINT, "no"), *nsd = var(SD, "nsd");
  LcuSoac *red = soac(SOAC_SEG_REDUCE, VARS(sums), pull, plus);
  identity(red, (FlatAtom){.kind = FA_INT, .u.i = 0});
  red->segdes = sd;
  LcuSoac *scan = soac(SOAC_SEG_SCAN, VARS(pre), pull, plus);
  identity(scan, (FlatAtom){.kind = FA_INT, .u.i = 0});
  scan->segdes = sd;
  LcuSoac *sperm = soac(SOAC_SEG_PERMUTE, VARS(perm), pull, thunk(VARS(i), EXPS(eint(0)), NOVARS));
  sperm->segdes = sd;
  LcuSoac *filter = soac(SOAC_SEG_FILTER, VARS(kept, ksd), pull, positive);
  filter->segdes = sd;
  LcuSoac *part = soac(SOAC_SEG_PARTITION, VARS(yes, ysd, no, nsd), pull, positive);
  part->segdes = sd;
  kernel("K1", VARS(sd, xs), VARS(sums, pre, perm, kept, ksd, yes, ysd, no, nsd), red, scan, sperm, filter, part, NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let sums_6 : [int] = SEG_REDUCE { i_3 => xs_2[i_3] using xs_2 } (0) { (a_4, b_5) => a_4 + b_5 } (sd_1)");
  assert_has_line(text, "  let pre_7 : [int] = SEG_SCAN { i_3 => xs_2[i_3] using xs_2 } (0) { (a_4, b_5) => a_4 + b_5 } (sd_1)");
  assert_has_line(text, "  let perm_8 : [int] = SEG_PERMUTE { i_3 => xs_2[i_3] using xs_2 } { i_3 => 0 } (sd_1)");
  assert_has_line(text, "  let (kept_9 : [int], ksd_10 : sd) = SEG_FILTER { i_3 => xs_2[i_3] using xs_2 } { a_4 => a_4 > 0 } (sd_1)");
  assert_has_line(text, "  let (yes_11 : [int], ysd_12 : sd, no_13 : [int], nsd_14 : sd) = SEG_PARTITION { i_3 => xs_2[i_3] using xs_2 } "
                        "{ a_4 => a_4 > 0 } (sd_1)");
}

static void test_library(void **state) {
  (void)state;
  LcuVar *xs = var(VFLOAT, "xs"), *lens = var(VINT, "lens"), *lim = var(INT, "lim");
  LcuVar *r = var(VINT, "r"), *sd = var(SD, "sd"), *off = var(VINT, "off"), *sr = var(VINT, "sr");
  LcuVar *e = var(VBOOL, "e"), *h = var(INT, "h"), *rn = var(INT, "rn");
  LcuSoac *eql = library(LIB_EQL, VARS(e), VARS(lens, xs, lens, xs));
  eql->elem_name = type_value_to_string(type_pair(type_int, type_float));
  eql->layout = flatten_rt_layout(base_env, type_pair(type_int, type_float));
  eql->lifted = true;
  LcuSoac *hash = library(LIB_HASH, VARS(h), VARS(lim, lim));
  hash->elem_name = type_value_to_string(type_int);
  hash->layout = flatten_rt_layout(base_env, type_int);
  LcuSoac *rand = library(LIB_RAND, VARS(rn), VARS(lim));
  rand->site = 4;
  kernel("K1", VARS(xs, lens, lim), VARS(r, sd, off, sr, e, h, rn), library(LIB_RANK, VARS(r), VARS(xs)),
         library(LIB_MAKE_SEGDES, VARS(sd), VARS(lens)), library(LIB_SEG_OFFSETS, VARS(off), VARS(sd)),
         library(LIB_SEG_RANK, VARS(sr), VARS(sd, xs)), eql, hash, rand, NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let r_4 : [int] = LIBRARY rank (xs_1)");
  assert_has_line(text, "  let sr_7 : [int] = LIBRARY seg_rank (sd_5, xs_1)");
  assert_has_line(text, "  let e_8 : [bool] = LIBRARY eql^ <int, float> (lens_2, xs_1, lens_2, xs_1)");
  assert_has_line(text, "  let rn_10 : int = LIBRARY rand <site 4> (lim_3)");
}

/* ---- the CPU level ---- */

static void test_cpu_statements(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *sd = var(SD, "sd"), *i = var(INT, "i");
  LcuVar *ys = var(VINT, "ys"), *p = var(INT, "p");
  LcuKernel *k = kernel("K1", VARS(xs, p), VARS(ys),
                        sized(soac(SOAC_MAP, VARS(ys), thunk(VARS(i), EXPS(ebin(FLAT_ADD, eindex(xs, ev(i)), ev(p))), VARS(xs, p)), NULL), xs),
                        NULL);
  LcuVar *n = var(INT, "n"), *segs = var(INT, "segs"), *tot = var(INT, "tot"), *m = var(INT, "m");
  LcuVar *big = var(BOOL, "big"), *r = var(VINT, "r"), *t = var(FLOAT, "t"), *msg = var(VCHAR, "msg");
  LcuVar *r1 = var(VINT, "r1"), *r2 = var(VINT, "r2"), *neg = var(INT, "neg"), *root = var(FLOAT, "root");
  LcuVar *c = var(INT, "c");
  LcuStmt *iff = stmt(LS_IF, VARS(r), ATOMS(av(big)));
  iff->then = block(ATOMS(av(r1)), run(k, VARS(r1), ATOMS(av(xs), aint(5))), NULL);
  iff->els = block(ATOMS(av(r2)), host(FLAT_VECTOR, VARS(msg), ATOMS(achar('n'), achar('o'))),
                   host(FLAT_ERROR, NOVARS, ATOMS(av(msg))), run(k, VARS(r2), ATOMS(av(xs), av(m))), NULL);
  LcuStmt *tm = stmt(LS_TIME, VARS(c, t), NOATOMS);
  tm->body = block(ATOMS(aint(1)), NULL);
  LcuVar *ok = var(BOOL, "ok");
  LcuStmt *print = host(FLAT_HOST_PRIM, VARS(ok), ATOMS(av(msg)));
  print->flat->prim = "print_string";
  print->flat->host = RT_HOST_PRINT_STRING;
  print->flat->elem_name = type_value_to_string(type_seq(type_char));
  print->flat->result_name = type_value_to_string(type_bool);
  print->flat->layout = flatten_rt_layout(base_env, type_seq(type_char));
  print->flat->result_layout = flatten_rt_layout(base_env, type_bool);
  iff->els = block(ATOMS(av(r2)), host(FLAT_VECTOR, VARS(msg), ATOMS(achar('n'), achar('o'))), print,
                   host(FLAT_ERROR, NOVARS, ATOMS(av(msg))), run(k, VARS(r2), ATOMS(av(xs), av(m))), NULL);
  func("f", VARS(xs, sd),
       block(ATOMS(av(r), av(root)), length(LEN_VECTOR, n, xs), length(LEN_SEGMENTS, segs, sd),
             length(LEN_TOTAL, tot, sd), scalar(FLAT_ADD, m, ATOMS(av(n), aint(1))),
             scalar(FLAT_GT, big, ATOMS(av(m), av(tot))), iff, tm,
             scalar(FLAT_SUB, neg, ATOMS(av(m), aint(-3))), scalar(FLAT_SQRT, root, ATOMS(afloat(2.0))), NULL));
  assert_passes();
  char *text = printed();
  assert_has_line(text, "function f (xs_1 : [int], sd_2 : sd) -> ([int], float) @1:1 {");
  assert_has_line(text, "  let n_6 : int = #xs_1 @3:1");
  assert_has_line(text, "  let segs_7 : int = #segments sd_2 @3:1");
  assert_has_line(text, "  let tot_8 : int = #elements sd_2 @3:1");
  assert_has_line(text, "  let m_9 : int = n_6 + 1 @3:1");
  assert_has_line(text, "  let big_10 : bool = m_9 > tot_8 @3:1");
  assert_has_line(text, "  let r_11 : [int] = if big_10 then {");
  assert_has_line(text, "    let r1_14 : [int] = run K1 (xs_1, 5) @3:1");
  assert_has_line(text, "    return r1_14");
  assert_has_line(text, "  } else {");
  assert_has_line(text, "    let msg_13 : [char] = host vector \"no\" @3:1");
  assert_has_line(text, "    let ok_19 : bool = host print_string <[char] -> bool> (msg_13) @3:1  % msg_13 = \"no\" %");
  assert_has_line(text, "    host error (msg_13) @3:1  % msg_13 = \"no\" %");
  assert_has_line(text, "  } @3:1");
  assert_has_line(text, "  let (c_18 : int, t_12 : float) = time {");
  assert_has_line(text, "    return 1");
  assert_has_line(text, "  let neg_16 : int = m_9 - (-3) @3:1");
  assert_has_line(text, "  let root_17 : float = sqrt(2.0) @3:1");
  assert_has_line(text, "  return (r_11, root_17)");
}

static void test_calls_and_globals(void **state) {
  (void)state;
  /* a recursive function, a call, a global read in a function */
  LcuVar *g = var(INT, "g"), *x = var(INT, "x"), *y = var(INT, "y"), *z = var(INT, "z"), *w = var(INT, "w");
  vec_push(&P->globals, g);
  LcuFunc *f = func("f", VARS(x), NULL);
  f->body = block(ATOMS(av(y)), scalar(FLAT_ADD, z, ATOMS(av(x), av(g))),
                  stmt(LS_CALL, VARS(y), ATOMS(av(z))), NULL);
  ((LcuStmt *)f->body->stmts.data[1])->callee = f;
  LcuStmt *call = stmt(LS_CALL, VARS(w), ATOMS(aint(3)));
  call->callee = f;
  func("main", NOVARS, block(ATOMS(av(w)), call, NULL));
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let z_4 : int = x_2 + g_1 @3:1");
  assert_has_line(text, "  let y_3 : int = f (z_4) @3:1");
  assert_has_line(text, "  let w_5 : int = f (3) @3:1");
  assert_has_line(text, "function main () -> int @1:1 {");
}

/* ---- the printer's expressions ---- */

static void test_print_expressions(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *a = var(INT, "a"), *b = var(INT, "b"), *c = var(INT, "c");
  LcuVar *f = var(FLOAT, "f"), *p = var(BOOL, "p"), *q = var(BOOL, "q"), *t = var(INT, "t");
  LcuVar *r = var(VINT, "r"), *r2 = var(VFLOAT, "r2"), *r3 = var(VBOOL, "r3"), *r4 = var(VINT, "r4");
  LcuVar *r5 = var(VINT, "r5"), *r6 = var(VINT, "r6"), *r7 = var(VFLOAT, "r7"), *r8 = var(VINT, "r8");
  LcuVar *cs = var(VCHAR, "cs");
  LcuVar *uses[] = {xs, a, b, c, f, p, q, NULL};
  LcuExp *e1 = ebin(FLAT_MUL, ebin(FLAT_ADD, ev(a), ev(b)), ev(c));                       /* (a + b) * c */
  LcuExp *e2 = ebin(FLAT_SUB, ev(a), ebin(FLAT_SUB, ev(b), ev(c)));                       /* a - (b - c) */
  LcuExp *e3 = ebin(FLAT_SUB, ebin(FLAT_SUB, ev(a), ev(b)), eint(-3));                    /* a - b - (-3) */
  LcuExp *e4 = eop(FLAT_NEG, FB_INT, eop(FLAT_NEG, FB_INT, ev(a), NULL, NULL), NULL, NULL); /* -(-a) */
  LcuExp *e5 = ebin(FLAT_ADD, eif(ev(p), ev(a), ev(b)), eint(1));                          /* (if ...) + 1 */
  LcuExp *e6 = eop(FLAT_SELECT, FB_FLOAT, ebin(FLAT_AND, ev(p), eop(FLAT_NOT, FB_BOOL, ev(q), NULL, NULL)),
                   eop(FLAT_SQRT, FB_FLOAT, ev(f), NULL, NULL), efloat(1.5));
  LcuExp *e7 = ebin(FLAT_OR, ebin(FLAT_LT, ev(a), ev(b)), ebin(FLAT_AND, ev(p), ebin(FLAT_NE, ev(b), ev(c))));
  LcuExp *e8 = eop(FLAT_POW, FB_INT, ebin(FLAT_MUL, ev(a), ev(b)), eindex(xs, ebin(FLAT_ADD, ev(i), eint(1))), NULL);
  LcuExp *e9 = elet(t, ebin(FLAT_ADD, ev(a), elen(xs)), eop(FLAT_NEG, FB_INT, elen(xs), NULL, NULL));
  LcuExp *e10 = ebin(FLAT_DIV, ev(a), ebin(FLAT_MUL, ev(b), ev(c)));                      /* a / (b * c) */
  LcuExp *e11 = eop(FLAT_TO_FLOAT, FB_FLOAT, eop(FLAT_CHAR_CODE, FB_INT, eindex(cs, ev(i)), NULL, NULL), NULL, NULL);
  LcuVar *uses2[] = {xs, a, b, c, f, p, q, cs, NULL};
  kernel("K1", VARS(xs, a, b, c, f, p, q, cs), VARS(r, r2, r3, r4, r5, r6, r7, r8),
         sized(soac(SOAC_MAP, VARS(r, r2, r3, r4), thunk(VARS(i), EXPS(e1, e6, e7, e2), uses), NULL), xs),
         sized(soac(SOAC_MAP, VARS(r5, r6, r7, r8), thunk(VARS(i), EXPS(e3, e4, e11, e5), uses2), NULL), xs),
         NULL);
  LcuVar *s1 = var(VINT, "s1"), *s2 = var(VINT, "s2"), *s3 = var(VINT, "s3");
  kernel("K2", VARS(xs, a, b, c, f, p, q), VARS(s1, s2, s3),
         sized(soac(SOAC_MAP, VARS(s1), thunk(VARS(i), EXPS(e8), uses), NULL), xs),
         sized(soac(SOAC_MAP, VARS(s2), thunk(VARS(i), EXPS(e9), uses), NULL), xs),
         sized(soac(SOAC_MAP, VARS(s3), thunk(VARS(i), EXPS(e10), uses), NULL), xs), NULL);
  assert_passes();
  char *text = printed();
  assert_has_line(text, "  let (r_10 : [int], r2_11 : [float], r3_12 : [bool], r4_13 : [int]) = MAP { i_2 => ((a_3 + b_4) * c_5, "
                        "select(p_7 and not(q_8), sqrt(f_6), 1.5), a_3 < b_4 or p_7 and b_4 /= c_5, "
                        "a_3 - (b_4 - c_5)) using xs_1, a_3, b_4, c_5, f_6, p_7, q_8 } (#xs_1)");
  assert_has_line(text, "  let (r5_14 : [int], r6_15 : [int], r7_16 : [float], r8_17 : [int]) = MAP { i_2 => (a_3 - b_4 - (-3), -(-a_3), "
                        "float(char_code(cs_18[i_2])), (if p_7 then a_3 else b_4) + 1) "
                        "using xs_1, a_3, b_4, c_5, f_6, p_7, q_8, cs_18 } (#xs_1)");
  assert_has_line(text, "  let s1_19 : [int] = MAP { i_2 => (a_3 * b_4) ^ xs_1[i_2 + 1] using xs_1, a_3, b_4, c_5, f_6, "
                        "p_7, q_8 } (#xs_1)");
  assert_has_line(text, "  let s2_20 : [int] = MAP { i_2 => let t_9 = a_3 + #xs_1 in -(#xs_1) using xs_1, a_3, b_4, c_5, "
                        "f_6, p_7, q_8 } (#xs_1)");
  assert_has_line(text, "  let s3_21 : [int] = MAP { i_2 => a_3 / (b_4 * c_5) using xs_1, a_3, b_4, c_5, f_6, p_7, q_8 } (#xs_1)");
}

/* The comment above a top-level statement, and the library's left out. */
static void test_print_tops(void **state) {
  (void)state;
  Program *prog = parse_program(source_from_string("p.nesl", "x = 5;\n6;\n"), false);
  assert_int_equal(tc_check_program(base_env, prog), 0);
  FlatProgram fp = {0};
  FlatVar *fg = flat_new_var(&fp, flat_scalar(FB_INT), "x");
  fg->global = true;
  LcuVar *g = var(INT, "x"), *y = var(INT, "y");
  vec_push(&P->globals, g);
  FlatTop *ft = NEW(FlatTop);
  flatten_describe_top(base_env, prog->tops.data[0], type_int, ft);
  vec_push(&ft->defines, fg);
  LcuTop *t = lcu_top_new(ft, block(ATOMS(aint(5)), NULL));
  vec_push(&t->defines, g);
  vec_push(&P->tops, t);
  /* a library top, then one that reads the global */
  FlatTop *lib_ft = NEW(FlatTop);
  flatten_describe_top(base_env, prog->tops.data[1], type_int, lib_ft);
  LcuTop *lib = lcu_top_new(lib_ft, block(ATOMS(aint(6)), NULL));
  vec_push(&P->tops, lib);
  FlatTop *ft2 = NEW(FlatTop);
  flatten_describe_top(base_env, prog->tops.data[1], type_int, ft2);
  LcuTop *t2 = lcu_top_new(ft2, block(ATOMS(av(y)), scalar(FLAT_MUL, y, ATOMS(av(g), aint(2))), NULL));
  vec_push(&P->tops, t2);
  assert_passes();
  /* the library flag on a copy of the source, so that the last top
     prints */
  lib_ft->library = true;
  char *text = printed();
  assert_string_equal(text, "source \"p.nesl\"\n"
                            "\n"
                            "nesl \"x = 5;\" : int\n"
                            "top @1:1 -> (x_1 : int) {\n"
                            "  return 5\n"
                            "}\n"
                            "nesl \"6;\" : int\n"
                            "top @2:1 {\n"
                            "  let y_2 : int = x_1 * 2 @\"t.nesl\":3:1\n"
                            "  return y_2\n"
                            "}\n");
}

/* ---- violations: the using discipline ---- */

/* K1 (xs : [int], s : int) { let ys = MAP { i => BODY using USES } (#xs) } */
static LcuSoac *one_map(LcuVar *xs, LcuVar *s, LcuVar *i, LcuExp *body, LcuVar **uses) {
  LcuVar *ys = var(lcu_vec(body->type), "ys");
  LcuSoac *m = sized(soac(SOAC_MAP, VARS(ys), thunk(VARS(i), EXPS(body), uses), NULL), xs);
  kernel("K1", VARS(xs, s), VARS(ys), m, NULL);
  return m;
}

static void test_reads_outside_using(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, ebin(FLAT_ADD, eindex(xs, ev(i)), ev(s)), VARS(xs));
  assert_fails("kernel K1: MAP's pull thunk reads s_2, which is not in its `using` list");
}

static void test_index_outside_using(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, ebin(FLAT_ADD, eindex(xs, ev(i)), ev(s)), VARS(s));
  assert_fails("MAP's pull thunk: x[e] of xs_1, which is not in its `using` list");
}

static void test_index_of_scalar(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, eindex(s, ev(i)), VARS(xs, s));
  assert_fails("MAP's pull thunk: x[e] of s_2, an int, not a vector");
}

static void test_index_of_parameter(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, eindex(i, eint(0)), VARS(xs));
  assert_fails("MAP's pull thunk: x[e] of i_3, a scalar of the thunk");
}

static void test_length_of_scalar(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, elen(s), VARS(s));
  assert_fails("MAP's pull thunk: #x of s_2, an int, not a vector");
}

static void test_vector_read_whole(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, ev(xs), VARS(xs));
  assert_fails("reads the [int] xs_1 as a value");
}

static void test_using_later_result(void **state) {
  (void)state;
  /* the first MAP lists the second's result */
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *a = var(VINT, "a"), *b = var(VINT, "b");
  kernel("K1", VARS(xs), VARS(b),
         sized(soac(SOAC_MAP, VARS(a), thunk(VARS(i), EXPS(eindex(b, ev(i))), VARS(b)), NULL), xs),
         sized(soac(SOAC_MAP, VARS(b), thunk(VARS(i), EXPS(eindex(a, ev(i))), VARS(a)), NULL), xs), NULL);
  assert_fails("MAP's pull thunk uses b_4, which is neither a parameter of the kernel nor an earlier result");
}

static void test_let_scope(void **state) {
  (void)state;
  /* (let t = 1 in t) + t */
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i"), *t = var(INT, "t");
  one_map(xs, s, i, ebin(FLAT_ADD, elet(t, eint(1), ev(t)), ev(t)), VARS(xs));
  assert_fails("reads t_4, which is used outside the scope of its `let`");
}

static void test_using_not_of_kernel(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, ev(i), VARS(xs, i));
  assert_fails("MAP's pull thunk uses i_3, which is neither a parameter of the kernel nor an earlier result");
}

static void test_binder_in_using(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s");
  one_map(xs, s, s, ev(s), VARS(xs, s));
  assert_fails("MAP's pull thunk binds s_2, which is also in its `using` list");
}

static void test_binder_of_kernel(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s");
  one_map(xs, s, s, ev(s), VARS(xs));
  assert_fails("MAP's pull thunk binds s_2, a variable of the kernel");
}

/* ---- violations: SOAC signatures ---- */

static void test_pull_arity(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *j = var(INT, "j"), *ys = var(VINT, "ys");
  kernel("K1", VARS(xs), VARS(ys),
         sized(soac(SOAC_MAP, VARS(ys), thunk(VARS(i, j), EXPS(ev(i)), NOVARS), NULL), xs), NULL);
  assert_fails("MAP's pull thunk takes 1 parameter, not 2");
}

static void test_pull_index_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *f = var(FLOAT, "f"), *ys = var(VFLOAT, "ys");
  kernel("K1", VARS(xs), VARS(ys),
         sized(soac(SOAC_MAP, VARS(ys), thunk(VARS(f), EXPS(ev(f)), NOVARS), NULL), xs), NULL);
  assert_fails("MAP's pull thunk: parameter f_2 is a float where an int is passed");
}

static void test_operator_arity(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *z = var(INT, "z");
  LcuSoac *r = sized(soac(SOAC_REDUCE, VARS(z), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                          thunk(VARS(x), EXPS(ev(x)), NOVARS)),
                     xs);
  identity(r, (FlatAtom){.kind = FA_INT, .u.i = 0});
  kernel("K1", VARS(xs), VARS(z), r, NULL);
  assert_fails("REDUCE's operator takes 2 parameters, not 1");
}

static void test_identity_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *y = var(INT, "y"), *z = var(VINT, "z");
  LcuSoac *r = sized(soac(SOAC_SCAN, VARS(z), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                          thunk(VARS(x, y), EXPS(ebin(FLAT_ADD, ev(x), ev(y))), NOVARS)),
                     xs);
  identity(r, (FlatAtom){.kind = FA_FLOAT, .u.f = 0.0});
  kernel("K1", VARS(xs), VARS(z), r, NULL);
  assert_fails("SCAN: identity 1 is a float where the value is an int");
}

static void test_predicate_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *ys = var(VINT, "ys");
  kernel("K1", VARS(xs), VARS(ys),
         sized(soac(SOAC_FILTER, VARS(ys), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                    thunk(VARS(x), EXPS(ev(x)), NOVARS)),
               xs),
         NULL);
  assert_fails("FILTER's predicate gives an int; it must give one bool");
}

static void test_permute_index_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *ys = var(VINT, "ys");
  kernel("K1", VARS(xs), VARS(ys),
         sized(soac(SOAC_PERMUTE, VARS(ys), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                    thunk(VARS(i), EXPS(ebool(true)), NOVARS)),
               xs),
         NULL);
  assert_fails("PERMUTE's index thunk gives a bool; it must give one int");
}

static void test_once_with_parameter(void **state) {
  (void)state;
  LcuVar *i = var(INT, "i"), *z = var(INT, "z");
  kernel("K1", NOVARS, VARS(z), soac(SOAC_ONCE, VARS(z), thunk(VARS(i), EXPS(ev(i)), NOVARS), NULL), NULL);
  assert_fails("ONCE's thunk takes 0 parameters, not 1");
}

static void test_result_count(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *a = var(VINT, "a"), *b = var(VINT, "b");
  kernel("K1", VARS(xs), VARS(a),
         sized(soac(SOAC_MAP, VARS(a, b), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)), NULL), xs), NULL);
  assert_fails("MAP gives 1 result, not 2");
}

static void test_partition_result_count(void **state) {
  (void)state;
  /* PARTITION gives two vectors per value */
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *a = var(VINT, "a");
  kernel("K1", VARS(xs), VARS(a),
         sized(soac(SOAC_PARTITION, VARS(a), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                    thunk(VARS(x), EXPS(ebin(FLAT_GT, ev(x), eint(0))), NOVARS)),
               xs),
         NULL);
  assert_fails("PARTITION gives 2 results, not 1");
}

static void test_result_type(void **state) {
  (void)state;
  /* REDUCE gives scalars, not vectors */
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *y = var(INT, "y"), *z = var(VINT, "z");
  LcuSoac *r = sized(soac(SOAC_REDUCE, VARS(z), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                          thunk(VARS(x, y), EXPS(ebin(FLAT_ADD, ev(x), ev(y))), NOVARS)),
                     xs);
  identity(r, (FlatAtom){.kind = FA_INT, .u.i = 0});
  kernel("K1", VARS(xs), VARS(z), r, NULL);
  assert_fails("REDUCE: result z_5 is a [int], but it gives an int");
}

static void test_seg_filter_needs_sd(void **state) {
  (void)state;
  /* SEG_FILTER over a vector, and its results without the new sd */
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *a = var(VINT, "a");
  LcuSoac *s = soac(SOAC_SEG_FILTER, VARS(a), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                    thunk(VARS(x), EXPS(ebin(FLAT_GT, ev(x), eint(0))), NOVARS));
  s->segdes = xs;
  kernel("K1", VARS(xs), VARS(a), s, NULL);
  assert_fails("SEG_FILTER over xs_1, a [int], not a sd");
}

static void test_seg_filter_results(void **state) {
  (void)state;
  LcuVar *sd = var(SD, "sd"), *xs = var(VINT, "xs"), *i = var(INT, "i"), *x = var(INT, "x"), *a = var(VINT, "a");
  LcuSoac *s = soac(SOAC_SEG_FILTER, VARS(a), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                    thunk(VARS(x), EXPS(ebin(FLAT_GT, ev(x), eint(0))), NOVARS));
  s->segdes = sd;
  kernel("K1", VARS(sd, xs), VARS(a), s, NULL);
  assert_fails("SEG_FILTER gives 2 results, not 1");
}

static void test_size_type(void **state) {
  (void)state;
  LcuVar *f = var(FLOAT, "f"), *i = var(INT, "i"), *a = var(VINT, "a");
  LcuSoac *m = soac(SOAC_MAP, VARS(a), thunk(VARS(i), EXPS(ev(i)), NOVARS), NULL);
  m->size.var = f;
  kernel("K1", VARS(f), VARS(a), m, NULL);
  assert_fails("MAP: the size f_1 is a float, not an int");
}

static void test_expression_types(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  /* int + float */
  one_map(xs, s, i, eop(FLAT_ADD, FB_INT, ev(i), efloat(1.0), NULL), NOVARS);
  assert_fails("add: arguments 1 and 2 are an int and a float");
}

static void test_expression_claims_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, eop(FLAT_LT, FB_INT, ev(i), eint(1), NULL), NOVARS);
  assert_fails("an expression of type bool claims to be an int");
}

static void test_no_zero_in_thunks(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *s = var(INT, "s"), *i = var(INT, "i");
  one_map(xs, s, i, eop(FLAT_ZERO, FB_INT, ev(i), NULL, NULL), NOVARS);
  assert_fails("zero is not an operation of thunks");
}

static void test_kernel_result_unbound(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i"), *a = var(VINT, "a"), *b = var(VINT, "b");
  kernel("K1", VARS(xs), VARS(b),
         sized(soac(SOAC_MAP, VARS(a), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)), NULL), xs), NULL);
  assert_fails("kernel K1: result b_4 is not bound in the kernel");
}

static void test_bound_twice_in_kernel(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *i = var(INT, "i");
  kernel("K1", VARS(xs), VARS(xs),
         sized(soac(SOAC_MAP, VARS(xs), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)), NULL), xs), NULL);
  assert_fails("xs_1 is bound twice in the kernel");
}

static void test_library_signature(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *sd = var(SD, "sd");
  kernel("K1", VARS(xs), VARS(sd), library(LIB_SEG_LENGTHS, VARS(sd), VARS(xs)), NULL);
  assert_fails("LIBRARY seg_lengths: argument 1 is a [int]");
}

static void test_permute_into_type(void **state) {
  (void)state;
  LcuVar *xs = var(VINT, "xs"), *d = var(VFLOAT, "d"), *i = var(INT, "i"), *ys = var(VINT, "ys");
  LcuSoac *p = sized(soac(SOAC_PERMUTE, VARS(ys), thunk(VARS(i), EXPS(eindex(xs, ev(i))), VARS(xs)),
                          thunk(VARS(i), EXPS(ev(i)), NOVARS)),
                     xs);
  p->into = d;
  kernel("K1", VARS(xs, d), VARS(ys), p, NULL);
  assert_fails("PERMUTE into d_2, a [float], but the values are ints");
}

/* ---- violations: the CPU level ---- */

static void test_unbound_cpu_variable(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x"), *y = var(INT, "y"), *z = var(INT, "z");
  func("f", VARS(x), block(ATOMS(av(z)), scalar(FLAT_ADD, z, ATOMS(av(x), av(y))), NULL));
  assert_fails("function f: y_2 is used before it is bound");
}

static void test_branch_scope(void **state) {
  (void)state;
  /* a variable bound in a branch is not visible after the if */
  LcuVar *c = var(BOOL, "c"), *r = var(INT, "r"), *t = var(INT, "t");
  LcuStmt *iff = stmt(LS_IF, VARS(r), ATOMS(av(c)));
  iff->then = block(ATOMS(av(t)), scalar(FLAT_COPY, t, ATOMS(aint(1))), NULL);
  iff->els = block(ATOMS(aint(2)), NULL);
  func("f", VARS(c), block(ATOMS(av(t)), iff, NULL));
  assert_fails("t_3 is used outside the scope of its binding");
}

static void test_run_argument_types(void **state) {
  (void)state;
  Norm2 n = build_norm2();
  /* run K3 (xs, gts): a [float] where the scale is a float */
  ((LcuStmt *)n.f->body->stmts.data[3])->args.data[1] = av(n.gts);
  assert_fails("function norm2: run K3: argument 2 is a [float], the parameter s_7 a float");
}

static void test_run_argument_count(void **state) {
  (void)state;
  Norm2 n = build_norm2();
  vec_push(&((LcuStmt *)n.f->body->stmts.data[0])->args, aint(1));
  assert_fails("run K1 with 2 arguments; it has 1 parameter");
}

static void test_run_results(void **state) {
  (void)state;
  Norm2 n = build_norm2();
  /* let sum1 : float = run K2 (xs): K2 gives a [float] */
  ((LcuStmt *)n.f->body->stmts.data[0])->kernel = n.k2;
  assert_fails("run K2: result sum1_9 is a float, but it gives a [float]");
}

static void test_run_foreign_kernel(void **state) {
  (void)state;
  Norm2 n = build_norm2();
  LcuKernel *copy = NEW(LcuKernel);
  *copy = *n.k1;
  ((LcuStmt *)n.f->body->stmts.data[0])->kernel = copy;
  assert_fails("run K1, which is not a kernel of the program");
}

static void test_call_mismatch(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x"), *y = var(FLOAT, "y");
  LcuFunc *f = func("f", VARS(x), block(ATOMS(av(x)), NULL));
  LcuStmt *call = stmt(LS_CALL, VARS(y), ATOMS(aint(1)));
  call->callee = f;
  func("g", NOVARS, block(ATOMS(av(y)), call, NULL));
  assert_fails("function g: call of f: result y_2 is a float, but it gives an int");
}

static void test_if_branch_types(void **state) {
  (void)state;
  LcuVar *c = var(BOOL, "c"), *r = var(INT, "r");
  LcuStmt *iff = stmt(LS_IF, VARS(r), ATOMS(av(c)));
  iff->then = block(ATOMS(aint(1)), NULL);
  iff->els = block(ATOMS(afloat(2.0)), NULL);
  func("f", VARS(c), block(ATOMS(av(r)), iff, NULL));
  assert_fails("if's else branch: result r_2 is an int, but it gives a float");
}

static void test_length_of_scalar_cpu(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x"), *n = var(INT, "n");
  func("f", VARS(x), block(ATOMS(av(n)), length(LEN_VECTOR, n, x), NULL));
  assert_fails("#x_1 of an int, not a vector");
}

static void test_segments_of_vector_cpu(void **state) {
  (void)state;
  LcuVar *x = var(VINT, "x"), *m = var(INT, "m");
  func("f", VARS(x), block(ATOMS(av(m)), length(LEN_SEGMENTS, m, x), NULL));
  assert_fails("#segments x_1 of a [int], not a sd");
}

static void test_scalar_op_on_vector(void **state) {
  (void)state;
  LcuVar *x = var(VINT, "x"), *y = var(INT, "y");
  func("f", VARS(x), block(ATOMS(av(y)), scalar(FLAT_NEG, y, ATOMS(av(x))), NULL));
  assert_fails("neg: argument 1 is a [int], not a scalar");
}

static void test_cpu_bound_twice(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x");
  func("f", VARS(x), block(ATOMS(av(x)), scalar(FLAT_ADD, x, ATOMS(av(x), aint(1))), NULL));
  assert_fails("x_1 is bound twice");
}

static void test_host_error_argument(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x");
  func("f", VARS(x), block(ATOMS(av(x)), host(FLAT_ERROR, NOVARS, ATOMS(av(x))), NULL));
  assert_fails("host error takes one [char], the message");
}

static void test_global_bound_by_statement(void **state) {
  (void)state;
  LcuVar *g = var(INT, "g");
  vec_push(&P->globals, g);
  func("f", NOVARS, block(ATOMS(av(g)), scalar(FLAT_COPY, g, ATOMS(aint(1))), NULL));
  assert_fails("global g_1 is bound by a statement");
}

static void test_id_out_of_range(void **state) {
  (void)state;
  LcuVar *x = var(INT, "x");
  x->id = 99;
  func("f", VARS(x), block(ATOMS(av(x)), NULL));
  assert_fails("x_1 has id 99, outside [0, next_var = 2)");
}

int main(void) {
  GC_INIT();
  base_env = tc_new_env();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_types_and_names),
      T(test_norm2_checks),
      T(test_norm2_prints),
      T(test_map_permute_once),
      T(test_reduce_scan),
      T(test_filter_partition),
      T(test_segmented),
      T(test_library),
      T(test_cpu_statements),
      T(test_calls_and_globals),
      T(test_print_expressions),
      T(test_print_tops),
      T(test_reads_outside_using),
      T(test_index_outside_using),
      T(test_index_of_scalar),
      T(test_index_of_parameter),
      T(test_length_of_scalar),
      T(test_vector_read_whole),
      T(test_using_later_result),
      T(test_let_scope),
      T(test_using_not_of_kernel),
      T(test_binder_in_using),
      T(test_binder_of_kernel),
      T(test_pull_arity),
      T(test_pull_index_type),
      T(test_operator_arity),
      T(test_identity_type),
      T(test_predicate_type),
      T(test_permute_index_type),
      T(test_once_with_parameter),
      T(test_result_count),
      T(test_partition_result_count),
      T(test_result_type),
      T(test_seg_filter_needs_sd),
      T(test_seg_filter_results),
      T(test_size_type),
      T(test_expression_types),
      T(test_expression_claims_type),
      T(test_no_zero_in_thunks),
      T(test_kernel_result_unbound),
      T(test_bound_twice_in_kernel),
      T(test_library_signature),
      T(test_permute_into_type),
      T(test_unbound_cpu_variable),
      T(test_branch_scope),
      T(test_run_argument_types),
      T(test_run_argument_count),
      T(test_run_results),
      T(test_run_foreign_kernel),
      T(test_call_mismatch),
      T(test_if_branch_types),
      T(test_length_of_scalar_cpu),
      T(test_segments_of_vector_cpu),
      T(test_scalar_op_on_vector),
      T(test_cpu_bound_twice),
      T(test_host_error_argument),
      T(test_global_bound_by_statement),
      T(test_id_out_of_range),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
