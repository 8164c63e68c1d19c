/*
 * test_cg_thunk.c: unit tests for the thunk translator (codegen/thunk.c,
 * cg_thunk, the paper's gen_thunk).  Small kernels are read from λcu text
 * (lcu_read), as tests/lcu/read's are, and one thunk of a kernel's SOAC is
 * translated alone, for the CPU and for the CUDA target, in the setting
 * cpu.c gives a MAP's pull: the index `ix` (element `i`), each vector
 * parameter V bound to its data `V_d` and length `V_n`, each scalar to its
 * own name, and a continuation that stores result k as `outK = VALUE;`.
 *
 * The C it writes is compared line by line, in order, with the statements
 * it must contain: a subscript at the SOAC's own index (plain) and
 * elsewhere (checked: a select in the fast pass, a recorded error in the
 * recording pass), int and float arithmetic (unchecked: floats overflow
 * to infinities, as NESL's do), int and float division (checked), lets and repeated operations computed once, an `if`
 * that runs only the branch it takes, a check's site, a REDUCE's
 * operator, the fused multiply-add that neither target makes, and the
 * streamed loads of own-index reads where CUDA asks for them.
 * Temporaries are numbered from t1 in each translation, so the lines are
 * exact: a change to the numbering or the form of a statement shows here
 * first, where it is small.
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

#include "codegen/codegen.h"
#include "common/common.h"
#include "lcu/lcu.h"

/* ---- reading λcu ---- */

/* The kernels every test translates, one thunk each; no function or
   top-level statement is needed for lcu_read and lcu_check. */
static const char *const KERNELS =
    "kernel K1 (xs : [int]) -> [int] {\n"
    "  let ys : [int] = MAP { i => xs[i] * 2 + 1 using xs } (#xs)\n"
    "  return ys\n"
    "}\n"
    "kernel K2 (xs : [int], js : [int]) -> [int] {\n"
    "  let ys : [int] = MAP { i => xs[js[i]] using xs, js } (#js)\n"
    "  return ys\n"
    "}\n"
    "kernel K3 (xs : [int]) -> ([int], [int]) {\n"
    "  let (ys : [int], zs : [int]) = MAP { i => let a = xs[i] * 2; (a + 1, a - 1) using xs } (#xs)\n"
    "  return (ys, zs)\n"
    "}\n"
    "kernel K4 (xs : [int], d : int) -> [int] {\n"
    "  let ys : [int] = MAP { i => if xs[i] > 0 then xs[i] / d else 0 using xs, d } (#xs)\n"
    "  return ys\n"
    "}\n"
    "kernel K5 (xs : [float]) -> [float] {\n"
    "  let ys : [float] = MAP { i => xs[i] * xs[i] using xs } (#xs)\n"
    "  return ys\n"
    "}\n"
    "kernel K6 (xs : [int]) -> [float] {\n"
    "  let ys : [float] = MAP { i => float(xs[i]) * 0.5 + 1.0 using xs } (#xs)\n"
    "  return ys\n"
    "}\n"
    "kernel K7 (xs : [int]) -> ([int], [int]) {\n"
    "  let (ys : [int], zs : [int]) = MAP { i => (xs[i] * 3, let a = xs[i] + 1 in a * a) using xs } (#xs)\n"
    "  return (ys, zs)\n"
    "}\n"
    "kernel K8 (xs : [int], c : bool) -> ([int], [int]) {\n"
    "  let (ys : [int], zs : [int]) = MAP { i => (if c then xs[i] * 3 else 0, xs[i] * 3) using xs, c } (#xs)\n"
    "  return (ys, zs)\n"
    "}\n"
    "kernel K9 (xs : [int], js : [int]) -> [int] {\n"
    "  let ys : [int] = MAP { i => (xs[js[i]])@30:7 using xs, js } (#js)\n"
    "  return ys\n"
    "}\n"
    "kernel K10 (xs : [float]) -> float {\n"
    "  let s : float = REDUCE { i => xs[i] using xs } (0.0) { (a, b) => a + b } (#xs)\n"
    "  return s\n"
    "}\n"
    "kernel K11 (xs : [float]) -> [float] {\n"
    "  let ys : [float] = MAP { i => 1.0 / xs[i] using xs } (#xs)\n"
    "  return ys\n"
    "}\n";

static LcuProgram *P;

/* each test's diagnostics captured (capture.h) */
static int setup(void **state) { return capture_diag_setup(state); }
static int teardown(void **state) { return capture_diag_teardown(state); }

static const LcuKernel *kernel(const char *name) {
  for (int k = 0; k < P->kernels.len; k++) {
    const LcuKernel *K = P->kernels.data[k];
    if (strcmp(K->name, name) == 0)
      return K;
  }
  fail_msg("no kernel %s", name);
  return NULL;
}

/* ---- translating one thunk ---- */

/* The continuation: result k stored as `outK = VALUE;`. */
static void store(Cg *cg, void *ctx, const char **values, int n) {
  (void)ctx;
  for (int k = 0; k < n; k++)
    cg_line(cg, "out%d = %s;", k, values[k]);
}

/* The sites the last translation made (cg_site): where its checks stand. */
static Vec sites;

/* The C of the pull thunk (or, with 'second', the other thunk: a
   REDUCE's operator) of kernel 'name''s first SOAC for 'target', on the
   arguments 'args'; 'checks' as cpu.c's for a MAP's pull unless given
   (then its index, record, safe index and length are filled in). */
static char *translate_with(const CgTarget *target, const char *name, bool second, const char **args,
                            const CgChecks *given) {
  const LcuKernel *K = kernel(name);
  const LcuSoac *s = K->soacs.data[0];
  CgBinding *env = NULL;
  for (int k = 0; k < K->params.len; k++) {
    const LcuVar *v = K->params.data[k];
    if (v->type.kind == LT_VEC)
      env = cg_bind(env, v, xprintf("%s_d", v->name), xprintf("%s_n", v->name), NULL);
    else
      env = cg_bind(env, v, v->name, NULL, NULL);
  }
  CgChecks c = given ? *given : (CgChecks){.index_op = "RT_GATHER"};
  c.index = "i";
  c.record = "err";
  c.safe_index = "ix";
  c.safe_length = s->size.length ? cg_lookup(env, s->size.length)->length : NULL;
  c.loc = s->loc;
  CgText text = {0};
  cg_forget_names();
  Cg cg = {.out = &text, .p = P, .target = target, .record_fn = "NESSIE_RECORD"};
  cg_thunk(&cg, second ? s->second : s->pull, args, env, &c, store, NULL);
  char *out = xstrndup(text.data ? text.data : "", text.len);
  cg_text_free(&text);
  sites = cg.sites;
  return out;
}

static const char *IX[] = {"ix"};

static char *translate(const CgTarget *target, const char *name) {
  return translate_with(target, name, false, IX, NULL);
}

/* ---- comparing ---- */

/* True if 'text' holds each of the NULL-terminated 'lines', in order, as
   whole lines (indentation aside): other lines may come between. */
static bool has_lines(const char *text, const char *const *lines) {
  const char *at = text;
  for (; *lines; lines++) {
    size_t n = strlen(*lines);
    bool found = false;
    while (*at && !found) {
      const char *start = at;
      while (*start == ' ')
        start++;
      const char *end = strchr(start, '\n');
      if (!end)
        end = start + strlen(start);
      found = (size_t)(end - start) == n && strncmp(start, *lines, n) == 0;
      at = *end ? end + 1 : end;
    }
    if (!found)
      return false;
  }
  return true;
}

#define LINES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define assert_lines(text, ...)                                                                                        \
  do {                                                                                                                 \
    const char *t_ = (text);                                                                                           \
    if (!has_lines(t_, LINES(__VA_ARGS__)))                                                                            \
      fail_msg("the thunk's C lacks the expected lines, in order; it is:\n%s", t_);                                   \
  } while (0)

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

/* ---- the tests ---- */

/* A subscript at the SOAC's own index into a vector of its size is in
   range: a plain load.  Int + and * cannot fail: no check, no second
   pass.  Both targets write the same. */
static void test_own_index_and_int_ops(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K1");
  assert_string_equal(cpu, "int32_t t1 = xs_d[ix];\n"
                           "int32_t t3 = rt_mul_i(t1, 2);\n"
                           "int32_t t5 = rt_add_i(t3, 1);\n"
                           "out0 = t5;\n");
  assert_string_equal(translate(&cg_cuda_target, "K1"), cpu);
}

/* A gather, xs[js[i]]: js[i] is in range, xs[...] is checked.  The fast
   pass loads through a select and ORs the failure into one flag; an
   element whose flag is set runs the thunk again, recording the index
   error (RT_CHECK_INDEX of RT_GATHER) with the index and the length. */
static void test_bounds_check(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K2");
  assert_lines(cpu, "int t3 = 0; /* nonzero: a check below failed */", "int32_t t1 = js_d[ix];",
               "int t4 = (uint64_t)(int64_t)t1 < (uint64_t)xs_n;", "int32_t t2 = t4 ? xs_d[t1] : 0;", "t3 |= !t4;",
               "if (__builtin_expect(t3 != 0, 0)) { /* again, recording the error */", "int32_t t5 = js_d[ix];",
               "if ((uint64_t)(int64_t)t5 < (uint64_t)xs_n) {", "t6 = xs_d[t5];", "} else {",
               "NESSIE_RECORD(err, i, RT_CHECK_INDEX, 0, 0, RT_GATHER, t5, xs_n, 0.0, 0);", "t6 = 0;", "out0 = t2;");
  /* the store follows both passes, with the fast pass's value */
  assert_true(strstr(cpu, "out0 = t2;") > strstr(cpu, "NESSIE_RECORD"));
  assert_string_equal(translate(&cg_cuda_target, "K2"), cpu);
}

/* A check's site: an expression at its SOAC's own location reports at
   the run (the site has no location, lcu_error_loc); one with a location
   of its own (`(xs[js[i]])@30:7`) reports there. */
static void test_check_sites(void **state) {
  (void)state;
  translate(&cg_cpu_target, "K2");
  assert_int_equal(sites.len, 1);
  assert_null(((CgSite *)sites.data[0])->loc.src);
  char *own = translate(&cg_cpu_target, "K9");
  assert_lines(own, "NESSIE_RECORD(err, i, RT_CHECK_INDEX, 0, 0, RT_GATHER, t5, xs_n, 0.0, 0);");
  assert_int_equal(sites.len, 1);
  const CgSite *site = sites.data[0];
  assert_non_null(site->loc.src);
  assert_int_equal(site->loc.line, 30);
  assert_int_equal(site->loc.col, 7);
}

/* A thunk's shared let is computed once, and both results read its
   local; a `let ... in` expression names its value's local too. */
static void test_lets(void **state) {
  (void)state;
  char *shared = translate(&cg_cpu_target, "K3");
  assert_string_equal(shared, "int32_t t1 = xs_d[ix];\n"
                              "int32_t t3 = rt_mul_i(t1, 2);\n"
                              "int32_t t5 = rt_add_i(t3, 1);\n"
                              "int32_t t7 = rt_sub_i(t3, 1);\n"
                              "out0 = t5;\n"
                              "out1 = t7;\n");
  char *in = translate(&cg_cpu_target, "K7");
  assert_lines(in, "int32_t t1 = xs_d[ix];", "int32_t t3 = rt_mul_i(t1, 3);", "int32_t t5 = rt_add_i(t1, 1);",
               "int32_t t7 = rt_mul_i(t5, t5);", "out0 = t3;", "out1 = t7;");
  assert_int_equal(count(in, "xs_d[ix]"), 1); /* the subscript once (value numbering) */
  assert_string_equal(translate(&cg_cuda_target, "K7"), in);
}

/* An `if` computes only the branch it takes: the division, which can
   fail, stands inside the then-branch, in both passes; the recording
   pass records RT_DIV's error. */
static void test_if(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K4");
  assert_lines(cpu, "int t7 = 0; /* nonzero: a check below failed */", "int32_t t1 = xs_d[ix];",
               "uint8_t t3 = rt_gt_i(t1, 0);", "int32_t t4;", "if (t3) {", "int32_t t6 = rt_div_i(t1, d, &t7);",
               "t4 = t6;", "} else {", "t4 = 0;", "}", "if (__builtin_expect(t7 != 0, 0)) { /* again, recording the error */",
               "if (t10) {", "int t12 = 0;", "int32_t t13 = rt_div_i(t8, d, &t12);", "if (t12) {",
               "NESSIE_RECORD(err, i, RT_CHECK_SCALAR, 0, t12, RT_DIV, 0, 0, 0.0, 0);", "out0 = t4;");
  assert_string_equal(translate(&cg_cuda_target, "K4"), cpu);
}

/* Value numbering does not reach out of a branch: xs[i] * 3 computed in
   the then-branch is computed again after the `if`, where the branch may
   not have run. */
static void test_branch_scope(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K8");
  assert_int_equal(count(cpu, "rt_mul_i("), 2);
  assert_lines(cpu, "int32_t t1;", "if (c) {", "int32_t t2 = xs_d[ix];", "int32_t t4 = rt_mul_i(t2, 3);", "t1 = t4;",
               "} else {", "t1 = 0;", "}", "int32_t t5 = xs_d[ix];", "int32_t t7 = rt_mul_i(t5, 3);", "out0 = t1;",
               "out1 = t7;");
}

/* A float product that overflows is an infinity, as in NESL: no check,
   no second pass, on either target. */
static void test_float_product_unchecked(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K5");
  assert_string_equal(cpu, "double t1 = xs_d[ix];\n"
                           "double t3 = rt_mul_f(t1, t1);\n"
                           "out0 = t3;\n");
  assert_string_equal(translate(&cg_cuda_target, "K5"), cpu);
}

/* A float division checks its divisor, as NESL does: the fast pass ORs
   the failure into its flag, the recording pass records RT_DIV's error. */
static void test_float_divisor_checked(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K11");
  assert_lines(cpu, "int t4 = 0; /* nonzero: a check below failed */", "double t1 = xs_d[ix];",
               "double t3 = rt_div_f(1.0, t1, &t4);", "if (__builtin_expect(t4 != 0, 0)) { /* again, recording the error */",
               "int t6 = 0;", "double t7 = rt_div_f(1.0, t5, &t6);",
               "NESSIE_RECORD(err, i, RT_CHECK_SCALAR, 0, t6, RT_DIV, 0, 0, 0.0, 0);", "out0 = t3;");
  assert_string_equal(translate(&cg_cuda_target, "K11"), cpu);
}

/* float(x) * 0.5 + 1.0: a product and the sum it feeds stay two
   roundings on every target, as in NESL (an fma would decide a
   comparison after them otherwise: issue 37). */
static void test_no_multiply_add(void **state) {
  (void)state;
  char *cpu = translate(&cg_cpu_target, "K6");
  char *cuda = translate(&cg_cuda_target, "K6");
  assert_string_equal(cpu, "int32_t t1 = xs_d[ix];\n"
                           "double t3 = rt_to_float_i(t1);\n"
                           "double t5 = rt_mul_f(t3, 0.5);\n"
                           "double t7 = rt_add_f(t5, 1.0);\n"
                           "out0 = t7;\n");
  assert_string_equal(cuda, cpu);
}

/* A REDUCE's operator on two values: its float sum is not checked (an
   overflow is an infinity, as NESL's): no site, no second pass. */
static void test_reduce_operator(void **state) {
  (void)state;
  static const char *ab[] = {"a", "b"};
  CgChecks reduce = {.index_op = "RT_GATHER"};
  assert_string_equal(translate_with(&cg_cpu_target, "K10", true, ab, &reduce), "double t2 = rt_add_f(a, b);\n"
                                                                                  "out0 = t2;\n");
  assert_int_equal(sites.len, 0);
  assert_string_equal(translate_with(&cg_cuda_target, "K10", true, ab, &reduce), "double t2 = rt_add_f(a, b);\n"
                                                                                   "out0 = t2;\n");
}

/* With stream_own (cuda.c sets it where a pull gathers), the reads at
   the SOAC's own index load through rtg::ld_stream, in both passes and
   on the plain path of a vector of the SOAC's size too; the gather it
   keeps the cache for stays a plain load. */
static void test_stream_own(void **state) {
  (void)state;
  CgChecks stream = {.index_op = "RT_GATHER", .stream_own = true};
  char *gather = translate_with(&cg_cuda_target, "K2", false, IX, &stream);
  assert_lines(gather, "int32_t t1 = rtg::ld_stream(&js_d[ix]);", "int32_t t2 = t4 ? xs_d[t1] : 0;",
               "int32_t t5 = rtg::ld_stream(&js_d[ix]);", "t6 = xs_d[t5];", "out0 = t2;");
  assert_int_equal(count(gather, "ld_stream"), 2);
  assert_lines(translate_with(&cg_cuda_target, "K1", false, IX, &stream), "int32_t t1 = rtg::ld_stream(&xs_d[ix]);",
               "out0 = t5;");
  /* without it (the CPU target's, a pull that does not gather) nothing streams */
  assert_int_equal(count(translate(&cg_cuda_target, "K2"), "ld_stream"), 0);
}

int main(void) {
  GC_INIT();
  /* no front end: kernels alone need none (lcu_read's 'nesl' NULL) */
  P = lcu_read(source_from_string("t.lcu", KERNELS), NULL);
  if (!P || !lcu_check(P, "read")) {
    fprintf(stderr, "test_cg_thunk: the kernels do not read\n");
    return 1;
  }
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_own_index_and_int_ops),
      T(test_bounds_check),
      T(test_check_sites),
      T(test_lets),
      T(test_if),
      T(test_branch_scope),
      T(test_float_product_unchecked),
      T(test_float_divisor_checked),
      T(test_no_multiply_add),
      T(test_reduce_operator),
      T(test_stream_own),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
