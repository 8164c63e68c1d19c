/*
 * test_typecheck.c: unit tests for the NESL type checker
 * (frontend/typecheck.c) and the types it works with (frontend/types.c).
 *
 * Programs are parsed from strings and checked in a fresh environment
 * holding the basis library; the inferred types are compared in NESL's
 * notation, as the REPL prints them (`sqr = fn : a -> a :: (a in
 * number)`).  Errors are checked through the diagnostics, which go to a
 * memory stream instead of stderr.
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

/* ---- diagnostics captured in memory ---- */


/* each test's diagnostics captured (capture.h) */
static int setup(void **state) { return capture_diag_setup(state); }
static int teardown(void **state) { return capture_diag_teardown(state); }

/* Fails unless the diagnostics so far contain 'want'. */
static void assert_diag(const char *want) {
  const char *d = diags();
  if (!strstr(d, want))
    fail_msg("expected a diagnostic containing <<%s>>, got:\n%s", want, d);
}

/* ---- checking programs ---- */

typedef struct Checked {
  TypeEnv *env;
  Program *prog;
  int failed; /* statements that failed to check */
} Checked;

/* Parses 'text' (which must parse) and checks it in a fresh environment. */
static Checked check(const char *text) {
  Checked c;
  c.env = tc_new_env();
  assert_int_equal(diag_count(), 0); /* the library checks */
  c.prog = parse_program(source_from_string("t.nesl", text), false);
  if (diag_count() != 0)
    fail_msg("syntax error in <<%s>>:\n%s", text, diags());
  c.failed = tc_check_program(c.env, c.prog);
  return c;
}

/* Checks a program that must have no error. */
static Checked check_ok(const char *text) {
  Checked c = check(text);
  if (diag_count() != 0 || c.failed != 0)
    fail_msg("unexpected type error in <<%s>>:\n%s", text, diags());
  return c;
}

/* Checks a program that must give exactly 'errors' diagnostics, one of
   which contains 'want'. */
static Checked check_error(const char *text, int errors, const char *want) {
  Checked c = check(text);
  if (diag_count() != errors)
    fail_msg("<<%s>>: %d errors, expected %d:\n%s", text, diag_count(), errors, diags());
  assert_diag(want);
  return c;
}

static TopLevel *top(const Checked *c, int i) {
  assert_true(i < c->prog->tops.len);
  return c->prog->tops.data[i];
}

/* The REPL's line for the newest definition of 'name'. */
static char *sig(const Checked *c, const char *name) {
  Def *d = tc_lookup(c->env, name);
  if (!d)
    fail_msg("'%s' is not defined", name);
  return tc_def_signature_line(d);
}

static void assert_sig(const char *text, const char *name, const char *want) {
  Checked c = check_ok(text);
  char *got = sig(&c, name);
  if (strcmp(got, want) != 0)
    fail_msg("<<%s>>:\n got: %s\nwant: %s", text, got, want);
  diag_reset();
}

/* The type of the last statement of 'text' (an expression or binding). */
static void assert_value_type(const char *text, const char *want) {
  Checked c = check_ok(text);
  TopLevel *t = top(&c, c.prog->tops.len - 1);
  assert_non_null(t->type);
  char *got = type_value_to_string(t->type);
  if (strcmp(got, want) != 0)
    fail_msg("<<%s>>: type %s, expected %s", text, got, want);
  diag_reset();
}

/* ---- inferred function types ---- */

/* Higher-order functions: parameters of function type, their types as
   CMU NESL prints them (its names: each function-typed argument's own
   variable first, unseen; these are the oracle's lines), functions as
   arguments, in tuples and sequences. */
static void test_higher_order(void **state) {
  (void)state;
  assert_sig("function apply(g, x) = g(x);", "apply", "apply = fn : (c -> b, c) -> b :: (a in any; b in any; c in any)");
  assert_sig("function twice(g, x) = g(g(x));", "twice", "twice = fn : (b -> b, b) -> b :: (a in any; b in any)");
  assert_sig("function compose(g, h, x) = g(h(x));", "compose",
             "compose = fn : (d -> b, e -> d, e) -> b :: (a in any; b in any; c in any; d in any; e in any)");
  /* juxtaposition is left-associative: g h x is (g h) x */
  assert_sig("function gh(g, h, x) = g h x;", "gh",
             "gh = fn : (d -> e -> c, d, e) -> c :: (a in any; b in any; c in any; d in any; e in any)");
  assert_sig("function mapf(g, s) = {g(x) : x in s};", "mapf",
             "mapf = fn : (c -> b, [c]) -> [b] :: (a in any; b in any; c in any)");
  /* a function taking a function: the inner one in parentheses */
  assert_sig("function at1(k) = k(sqrt);", "at1", "at1 = fn : ((float -> float) -> b) -> b :: (a in any; b in any)");
  /* returning a function */
  assert_sig("function pick(b) = if b then sqrt else sqrt;", "pick", "pick = fn : bool -> float -> float");
  /* signatures with function types */
  assert_sig("function ap(g, x) : (int -> int, int) -> int = g(x);", "ap", "ap = fn : (int -> int, int) -> int :: (a in any)");
  assert_sig("function ap2(g, x) : (a -> a, a) -> a :: (a in number) = g(x);", "ap2",
             "ap2 = fn : (b -> b, b) -> b :: (a in any; b in number)");
  /* functions as arguments, in tuples and sequences, by juxtaposition */
  assert_value_type("function apply(g, x) = g(x);\napply(sqrt, 4.0);", "float");
  assert_value_type("function apply(g, x) = g(x);\nfunction inc(x) = x + 1;\napply(inc, 4);", "int");
  assert_value_type("function app2(p) = let (g, x) = p in g x;\napp2((sqrt, 2.0));", "float");
  assert_value_type("{g(x) : g in [sqrt, sqrt]; x in [1.0, 4.0]};", "[float]");
  assert_value_type("let g = sqrt in g 9.0;", "float");
  assert_value_type("{g(2.0) : g in dist(ln, 3)};", "[float]");
  /* a polymorphic function as an argument, at the type it is used */
  assert_value_type("function apply(g, x) = g(x);\n(apply(abs, -2), apply(abs, -2.5));", "int, float");
  /* a constructor is a function too */
  assert_value_type("datatype pt(int, int);\nfunction apply(g, x) = g(x);\napply(pt, (1, 2));", "pt");
}

/* Which function a function value is, is part of its type: a choice
   between two functions at run time is an error. */
static void test_error_functions_chosen_at_run_time(void **state) {
  (void)state;
  check_error("function h(b, x) = (if b then sqrt else ln)(x);", 1,
              "t.nesl:1:21: error: the then branch and the else branch of this if hold two different functions "
              "(sqrt and ln): which function a function value is must be known when compiling, as in CMU NESL, so "
              "a program cannot choose between functions at run time; apply each function where it is chosen "
              "instead");
  diag_reset();
  check_error("{g(1.0) : g in [sqrt, ln, sqrt]};", 1,
              "t.nesl:1:23: error: element 2 of this sequence and the elements before it hold two different "
              "functions (sqrt and ln)");
  diag_reset();
  check_error("function apply2(g, x, y) = (g(x), g(y));\napply2(sqrt, 1.0, 2.0);\nfunction k(g) = apply2(g, 1, 2);", 0,
              "");
  diag_reset();
  /* a recursion passes its own function parameter: here it fixes it */
  check_error("function it(g, x, n) = if n == 0 then x else it(ln, g(x), n - 1);\nit(sqrt, 1.0, 2);", 1,
              "t.nesl:2:4: error: in 'it(sqrt, 1.0, 2)', the argument and the parameters of it hold two different "
              "functions (ln and sqrt)");
}

/* A function called before its statement by a function before it
   (mutual recursion without a declaration), and declarations. */
static void test_mutual_recursion_and_declarations(void **state) {
  (void)state;
  const char *text = "function is_even(n) = if n == 0 then t else is_odd(n - 1);\n"
                     "function is_odd(n) = if n == 0 then f else is_even(n - 1);\n"
                     "is_even(10);\n";
  Checked c = check_ok(text);
  assert_string_equal(sig(&c, "is_even"), "is_even = fn : int -> bool");
  assert_string_equal(sig(&c, "is_odd"), "is_odd = fn : int -> bool");
  /* one check: the second statement was checked with the first */
  assert_ptr_equal(top(&c, 1)->def, tc_lookup(c.env, "is_odd"));
  diag_reset();
  /* a group of three, polymorphic once checked */
  assert_sig("function a(x, n) = if n == 0 then x else b(x, n - 1);\n"
             "function b(x, n) = c(x, n);\n"
             "function c(x, n) = a(x, n);\n", "a", "a = fn : (a, int) -> a :: (a in any)");
  /* with a signature, the later function is polymorphic at once */
  assert_sig("function u(x) = (idp(x), idp(1.5));\nfunction idp(y) : a -> a :: (a in any) = y;", "u",
             "u = fn : a -> (a, float) :: (a in any)");
  /* a declaration, then the definition, which takes its signature */
  c = check_ok("function dec(x) : int -> int \"one less\";\nfunction dec2(x) = dec(dec(x));\n"
               "function dec(x) = x - 1;\ndec2(5);\n");
  assert_string_equal(sig(&c, "dec"), "dec = fn : int -> int");
  assert_ptr_equal(tc_current(top(&c, 0)->def), top(&c, 2)->def);
  assert_string_equal(tc_doc(c.env, "dec"), "one less");
  assert_string_equal(tc_doc(c.env, "dec2"), "");
  assert_null(tc_doc(c.env, "nothing"));
  diag_reset();
  /* running a declared function before its definition */
  check_error("function g(x) : int -> int;\nfunction h(x) = g(x) + 1;\nh(1);\nfunction g(x) = x;", 1,
              "t.nesl:3:1: error: this statement runs 'g' (through 'h'), which is only declared (line 1): its "
              "definition must come before a statement that runs it");
  diag_reset();
  check_error("function g(x) : int -> int;\ng(1);", 1, "t.nesl:2:1: error: this statement runs 'g', which is only "
              "declared (line 1)");
  diag_reset();
  /* a statement may not run a function whose statement comes later, even
     if a function before it called it */
  check_error("function u(x) = idq(x);\nu(3);\nfunction idq(y) = y;\n", 1,
              "t.nesl:2:1: error: this statement runs 'idq' (through 'u'), which is defined by a later statement "
              "(line 3)");
  diag_reset();
  check_error("function u(x) = idp(x);\nu(3);\nfunction idp(y) : a -> a :: (a in any) = y;\n", 1,
              "t.nesl:2:1: error: this statement runs 'idp' (through 'u'), which is defined by a later statement "
              "(line 3)");
  diag_reset();
  /* a call before a later declaration: the declaration gives the type */
  c = check_ok("function h(x) = g(x) + 1;\nfunction g(x) : int -> int;\nfunction g(x) = x * 10;\nh(2);\n");
  assert_string_equal(sig(&c, "h"), "h = fn : int -> int");
  assert_ptr_equal(tc_current(top(&c, 1)->def), top(&c, 2)->def);
  diag_reset();
  check_error("function h(x) = g(x) + 1;\nfunction g(x) : int -> int;\nh(1);\n", 1,
              "t.nesl:3:1: error: this statement runs 'g' (through 'h'), which is only declared (line 2)");
  diag_reset();
  /* an error in the later function is reported once, at its place */
  check_error("function p(x) = q(x);\nfunction q(x) = x + `a;\np(1);", 1, "t.nesl:2:19: error: type error in "
              "'x + `a'");
}

static void test_sqr_and_dup(void **state) {
  (void)state;
  assert_sig("function sqr(x) = x*x;", "sqr", "sqr = fn : a -> a :: (a in number)");
  assert_sig("function dup(x) = (x, x);", "dup", "dup = fn : a -> (a, a) :: (a in any)");
}

static void test_function_types(void **state) {
  (void)state;
  assert_sig("function add(a, b) = a + b;", "add", "add = fn : (a, a) -> a :: (a in number)");
  assert_sig("function swap(a, b) = (b, a);", "swap", "swap = fn : (a, b) -> (b, a) :: (a in any; b in any)");
  assert_sig("function fst2(a, b) = a;", "fst2", "fst2 = fn : (a, b) -> a :: (a in any; b in any)");
  assert_sig("function mx(a, b) = if a < b then b else a;", "mx", "mx = fn : (a, a) -> a :: (a in ordinal)");
  assert_sig("function inc(x) = x + 1;", "inc", "inc = fn : int -> int");
  assert_sig("function half(x) = x / 2.0;", "half", "half = fn : float -> float");
  assert_sig("function neg(b) = not(b) or b;", "neg", "neg = fn : a -> a :: (a in logical)");
  assert_sig("function lens(s) = {#x : x in s};", "lens", "lens = fn : [[a]] -> [int] :: (a in any)");
  assert_sig("function tot(s) = sum(s) / float(#s);", "tot", "tot = fn : [float] -> float");
  assert_sig("function pairs(a, b) = {(x, y) : x in a; y in b};", "pairs",
             "pairs = fn : ([a], [b]) -> [(a, b)] :: (a in any; b in any)");
  assert_sig("function nest(x) = ((x, 1), [x]);", "nest", "nest = fn : a -> ((a, int), [a]) :: (a in any)");
  assert_sig("function pos(s) = {x in s | x > 0};", "pos", "pos = fn : [int] -> [int]");
  assert_sig("function str(x) = @x ++ \"!\";", "str", "str = fn : a -> [char] :: (a in any)");
  assert_sig("function tm(x) = time(x + 1.0);", "tm", "tm = fn : float -> (float, float)");
}

static void test_class_intersection(void **state) {
  (void)state;
  /* number and logical have only int in common */
  assert_sig("function h(x) = (x + x, x or x);", "h", "h = fn : int -> (int, int)");
  /* ordinal and logical: int */
  assert_sig("function o(x) = (x < x, not(x));", "o", "o = fn : int -> (bool, int)");
  /* number and ordinal: number */
  assert_sig("function k(x) = (x + x, x < x);", "k", "k = fn : a -> (a, bool) :: (a in number)");
  /* a sequence is in no class but any */
  check_error("function m(x) = (x + x, x ++ x);", 1, "t.nesl:1:27: error: type error in 'x ++ x'");
}

static void test_recursion(void **state) {
  (void)state;
  assert_sig("function fact(n) = if n == 0 then 1 else n * fact(n - 1);", "fact", "fact = fn : int -> int");
  assert_sig("function len(s) = if #s == 0 then 0 else 1 + len(drop(s, 1));", "len",
             "len = fn : [a] -> int :: (a in any)");
}

static void test_recursion_is_monomorphic(void **state) {
  (void)state;
  /* inside its body the function's own type is not generalized */
  assert_sig("function m(x) = if t then x else m(1);", "m", "m = fn : int -> int");
  Checked c = check_error("function pr(x) = let a = pr(1) in pr(t);", 1,
                          "t.nesl:1:38: error: type error in 'pr(t)': the argument of pr has type bool, but pr "
                          "takes int");
  assert_true(tc_lookup(c.env, "pr")->broken);
}

static void test_let_polymorphism(void **state) {
  (void)state;
  /* a top-level function is polymorphic: one program uses it at int and
     at float */
  assert_value_type("function sqr(x) = x*x;\n(sqr(2), sqr(1.5));", "int, float");
  assert_value_type("function id(x) = x;\n(id(1), id(1.0), id(\"s\"), id([t]));", "int, float, [char], [bool]");
  Checked c = check_ok("function id(x) = x;\na = id(1);\nb = id(2.5);\n");
  assert_string_equal(type_value_to_string(tc_lookup(c.env, "a")->type), "int");
  assert_string_equal(type_value_to_string(tc_lookup(c.env, "b")->type), "float");
  /* and its own type stays general */
  assert_string_equal(sig(&c, "id"), "id = fn : a -> a :: (a in any)");
}

/* ---- signatures ---- */

static void test_signature_less_general(void **state) {
  (void)state;
  assert_sig("function id2(x) : int -> int = x;", "id2", "id2 = fn : int -> int");
  assert_sig("function p(a, b) : (int, float) -> int = a;", "p", "p = fn : (int, float) -> int");
  assert_sig("function s(x) : a -> a :: (a in number) = x;", "s", "s = fn : a -> a :: (a in number)");
  assert_sig("function d(x) : b -> (b, b) :: (b in ordinal) = (x, x);", "d",
             "d = fn : a -> (a, a) :: (a in ordinal)");
  assert_sig("function q(x) : [float] -> [float] = {y : y in x};", "q", "q = fn : [float] -> [float]");
  /* the narrower type is the one callers see */
  check_error("function id2(x) : int -> int = x;\nid2(1.5);", 1,
              "t.nesl:2:5: error: type error in 'id2(1.5)': the argument of id2 has type float, but id2 takes "
              "int");
}

static void test_signature_equal_to_inferred(void **state) {
  (void)state;
  assert_sig("function sq(x) : a -> a :: (a in number) = x * x;", "sq", "sq = fn : a -> a :: (a in number)");
  assert_sig("function ap(a, b) : ([c], [c]) -> [c] = a ++ b;", "ap", "ap = fn : ([a], [a]) -> [a] :: (a in any)");
}

static void test_signature_more_general_than_body(void **state) {
  (void)state;
  Checked c = check_error("function bad(x) : a -> a :: (a in any) = x + x;", 1,
                          "t.nesl:1:44: error: type error in 'x + x': the operands of + have types");
  assert_true(tc_lookup(c.env, "bad")->broken);
  diag_reset();
  check_error("function bad2(x) : a -> b = x;", 1,
              "t.nesl:1:29: error: the body of 'bad2' has type a :: (a in any), but its signature says the "
              "result is b :: (b in any)");
  diag_reset();
  check_error("function bad3(x) : a -> a :: (a in number) = x + 1;", 1, "type error in 'x + 1'");
  diag_reset();
  check_error("function bad4(x) : a -> int = x;", 1, "the body of 'bad4' has type");
  diag_reset();
  check_error("function bad5(x, y) : a -> a = x;", 1, "a tuple pattern cannot match a value of type a");
}

static void test_signature_context_errors(void **state) {
  (void)state;
  check_error("function g(x) : int -> int :: (b in number) = x;", 1,
              "t.nesl:1:32: error: the context names 'b', which does not appear in the type");
  diag_reset();
  check_error("function g(x) : int(a) -> int = x;", 1, "t.nesl:1:17: error: the type int takes no arguments");
  diag_reset();
  check_error("function g(x) : foo(int) -> int = 1;", 1, "t.nesl:1:17: error: unknown datatype 'foo'");
}

/* ---- datatypes ---- */

static void test_datatypes(void **state) {
  (void)state;
  assert_sig("datatype twin(a, a) :: (a in any);", "twin", "twin = fn : (a, a) -> twin(a) :: (a in any)");
  assert_sig("datatype point(float, float);", "point", "point = fn : (float, float) -> point");
  assert_sig("datatype pr(a, b);", "pr", "pr = fn : (a, b) -> pr(a, b) :: (a in any; b in any)");
  assert_sig("datatype nb(a) :: (a in number);", "nb", "nb = fn : a -> nb(a) :: (a in number)");
  assert_sig("datatype tree(int, [tree]);", "tree", "tree = fn : (int, [tree]) -> tree");
  Checked c = check_ok("datatype twin(a, a) :: (a in any);");
  Def *d = tc_lookup(c.env, "twin");
  assert_int_equal(d->kind, DEF_CONSTRUCTOR);
  assert_int_equal(d->params.len, 1);
  assert_false(d->library);
}

static void test_datatype_values(void **state) {
  (void)state;
  assert_value_type("datatype twin(a, a) :: (a in any);\ntwin(1, 2);", "twin(int)");
  assert_value_type("datatype twin(a, a) :: (a in any);\n[twin(1.0, 2.0)];", "[twin(float)]");
  assert_value_type("datatype point(float, float);\npoint(1.0, 2.0);", "point");
  assert_value_type("datatype box(a);\n[] box(int);", "[box(int)]");
  assert_sig("datatype box(a);\nfunction unbox(box(x)) = x;", "unbox", "unbox = fn : box(a) -> a :: (a in any)");
  assert_sig("datatype point(float, float);\nfunction px(point(x, _)) = x;", "px", "px = fn : point -> float");
  assert_value_type("datatype point(float, float);\npoint(x, y) = point(1.0, 2.0);\n(y, x);", "float, float");
  assert_value_type("datatype tree(int, [tree]);\ntree(1, [tree(2, [] tree)]);", "tree");
}

static void test_datatype_errors(void **state) {
  (void)state;
  check_error("datatype twin(a, a) :: (a in any);\ntwin(1, 2.0);", 1,
              "t.nesl:2:6: error: type error in 'twin(1, 2.0)': the argument of twin has type int, float, but "
              "twin takes (a, a) :: (a in any)");
  diag_reset();
  check_error("datatype nb(a) :: (a in number);\nnb(t);", 1, "the argument of nb has type bool");
  diag_reset();
  check_error("datatype box(a);\n[] box;", 1, "t.nesl:2:4: error: the datatype box takes 1 type argument, not 0");
  diag_reset();
  check_error("datatype int(float);", 1, "t.nesl:1:1: error: 'int' is a base type and cannot be redefined");
  diag_reset();
  check_error("function g(foo(x)) = x;", 1,
              "t.nesl:1:12: error: 'foo' is not a datatype constructor, so it cannot be used in a pattern");
  diag_reset();
  check_error("datatype p(foo(int));", 1, "unknown datatype 'foo'");
  diag_reset();
  check_error("datatype b1(int);\ndatatype b2(int);\nfunction g(b1(x)) : b2 -> int = x;", 1,
              "t.nesl:3:12: error: this pattern matches values of type b1, but here it must match b2");
}

/* ---- other expressions ---- */

static void test_expression_types(void **state) {
  (void)state;
  assert_value_type("1, 2.0, t, `a;", "int, float, bool, char");
  assert_value_type("((1, 2), 3, 4);", "(int, int), int, int");
  assert_value_type("\"abc\" ++ \"d\";", "[char]");
  assert_value_type("[(1, t)];", "[(int, bool)]");
  assert_value_type("[] [int];", "[[int]]");
  assert_value_type("[1:10:2];", "[int]");
  assert_value_type("[[1], [2, 3]][1][0];", "int");
  assert_value_type("{x * 2 : x in [1, 2, 3]};", "[int]");
  assert_value_type("{x in \"abc\" | x == `a};", "[char]");
  assert_value_type("{(a, b) : a in [1]; b in \"x\"};", "[(int, char)]");
  assert_value_type("let (a, b) = (1, t) in (b, a);", "bool, int");
  assert_value_type("let a = 1; b = a + 1; in [a, b];", "[int]");
  assert_value_type("time(1 + 1);", "int, float");
  assert_value_type("x = 16;", "int");
  assert_value_type("(a, b) = (1, 2.0);\n(b, a);", "float, int");
  assert_value_type("pi * 2.0;", "float");
  assert_value_type("max_int + 1;", "int");
  assert_value_type("#[1, 2] - 1;", "int");
  assert_value_type("zip([1], \"a\");", "[(int, char)]");
  assert_value_type("[1, 2] -> [0];", "[int]");
  assert_value_type("-2 ^ 2;", "int");
  assert_value_type("@1.5;", "[char]");
}

static void test_annotations(void **state) {
  (void)state;
  Checked c = check_ok("function g(x) = x + 1;\ny = g(2);\n");
  TopLevel *f = top(&c, 0);
  Def *g = tc_lookup(c.env, "g");
  assert_ptr_equal(f->def, g);
  assert_int_equal(g->kind, DEF_FUNCTION);
  assert_ptr_equal(g->top, f);
  assert_false(g->broken);
  /* every expression has its type; operators name their library function */
  Expr *body = f->body;
  assert_int_equal(body->kind, EX_BINOP);
  assert_string_equal(type_value_to_string(body->type), "int");
  assert_string_equal(type_value_to_string(body->u.op.lhs->type), "int");
  assert_non_null(body->u.op.def);
  assert_string_equal(body->u.op.def->name, "__add");
  assert_true(body->u.op.def->library);
  assert_true(body->u.op.def->primitive);
  assert_string_equal(type_fun_to_string(&(TypeNamer){0}, body->u.op.inst), "(int, int) -> int");
  /* a call names its definition and the instance of its type */
  Expr *call = top(&c, 1)->body;
  assert_int_equal(call->kind, EX_CALL);
  assert_ptr_equal(call->u.ref.def, g);
  assert_string_equal(type_fun_to_string(&(TypeNamer){0}, call->u.ref.inst), "int -> int");
  assert_int_equal(type_resolve(top(&c, 1)->pat->type)->kind, T_INT);
  /* a local variable has no definition */
  assert_null(body->u.op.lhs->u.ref.def);
  assert_string_equal(type_value_to_string(f->param->type), "int");
}

static void test_library(void **state) {
  (void)state;
  Checked c = check_ok("");
  assert_string_equal(sig(&c, "zip"), "zip = fn : ([a], [b]) -> [(a, b)] :: (a in any; b in any)");
  assert_string_equal(sig(&c, "sort"), "sort = fn : [a] -> [a] :: (a in number)");
  assert_string_equal(sig(&c, "not"), "not = fn : a -> a :: (a in logical)");
  Def *zip = tc_lookup(c.env, "zip");
  assert_true(zip->library);
  assert_false(zip->primitive); /* NESL over the primitives */
  Def *gather = tc_lookup(c.env, "__gather");
  assert_true(gather->library);
  assert_true(gather->primitive);
  Def *pi = tc_lookup(c.env, "pi");
  assert_non_null(pi);
  assert_int_equal(pi->kind, DEF_VALUE);
  assert_string_equal(type_value_to_string(pi->type), "float");
  assert_null(tc_lookup(c.env, "no_such_function"));
}

static void test_environments_are_separate(void **state) {
  (void)state;
  Checked a = check_ok("function only_here(x) = x;");
  Checked b = check_ok("x = 1;");
  assert_non_null(tc_lookup(a.env, "only_here"));
  assert_null(tc_lookup(b.env, "only_here"));
  assert_null(tc_lookup(a.env, "x"));
}

/* ---- redefinition ---- */

static void test_redefinition(void **state) {
  (void)state;
  Checked c = check_ok("function g(x) = x + 1;\n"
                       "a = g(1);\n"
                       "function g(x) = x or x;\n"
                       "b = g(t);\n");
  Def *g2 = tc_lookup(c.env, "g");
  assert_int_equal(g2->version, 2);
  assert_non_null(g2->prev);
  Def *g1 = g2->prev;
  assert_int_equal(g1->version, 1);
  assert_null(g1->prev);
  assert_string_equal(tc_def_signature_line(g1), "g = fn : int -> int");
  assert_string_equal(tc_def_signature_line(g2), "g = fn : a -> a :: (a in logical)");
  assert_ptr_equal(top(&c, 0)->def, g1);
  assert_ptr_equal(top(&c, 2)->def, g2);
  /* a caller keeps the definition it was checked against */
  assert_ptr_equal(top(&c, 1)->body->u.ref.def, g1);
  assert_ptr_equal(top(&c, 3)->body->u.ref.def, g2);
  assert_string_equal(type_value_to_string(tc_lookup(c.env, "a")->type), "int");
  assert_string_equal(type_value_to_string(tc_lookup(c.env, "b")->type), "bool");
}

static void test_redefinition_of_values_and_library(void **state) {
  (void)state;
  Checked c = check_ok("x = 1;\nx = t;\nfunction sum(v) = 0;\n");
  Def *x = tc_lookup(c.env, "x");
  assert_int_equal(x->kind, DEF_VALUE);
  assert_int_equal(x->version, 2);
  assert_string_equal(type_value_to_string(x->type), "bool");
  assert_string_equal(type_value_to_string(x->prev->type), "int");
  Def *sum = tc_lookup(c.env, "sum");
  assert_false(sum->library);
  assert_non_null(sum->prev);
  assert_true(sum->prev->library);
  assert_int_equal(sum->version, sum->prev->version + 1);
  assert_string_equal(tc_def_signature_line(sum), "sum = fn : a -> int :: (a in any)");
}

/* ---- errors ---- */

static void test_error_undefined(void **state) {
  (void)state;
  check_error("foo(1);", 1, "t.nesl:1:1: error: 'foo' is undefined\n  foo(1);\n  ^\n");
  diag_reset();
  check_error("x = 1;\ny + x;", 1, "t.nesl:2:1: error: 'y' is undefined");
  diag_reset();
  /* a statement runs before the ones after it: it cannot call a function
     defined later (a function body can: mutual recursion) */
  check_error("a2(1);\nfunction a2(x) = x;", 1,
              "t.nesl:1:1: error: 'a2' is undefined here: it is defined by a later statement (line 2), and a "
              "statement runs before the statements that follow it");
}

static void test_error_wrong_arity(void **state) {
  (void)state;
  check_error("function g(a, b) = a + b;\ng(1);", 1,
              "t.nesl:2:3: error: type error in 'g(1)': the argument of g has type int, but g takes (a, a) :: (a "
              "in number)");
  diag_reset();
  check_error("function g(a, b) = a + b;\ng(1, 2, 3);", 1,
              "the argument of g has type int, int, int, but g takes (a, a) :: (a in number)");
  diag_reset();
  check_error("zip([1]);", 1, "the argument of zip has type [int], but zip takes ([a], [b])");
}

static void test_error_if(void **state) {
  (void)state;
  check_error("if t then 1 else 1.0;", 1,
              "t.nesl:1:1: error: the two branches of an if must have one type, but the then branch has type int "
              "and the else branch float");
  diag_reset();
  check_error("if 1 then 2 else 3;", 1, "t.nesl:1:4: error: the condition of an if must be bool, but '1' has type int");
}

static void test_error_bool_equality(void **state) {
  (void)state;
  check_error("t == f;", 1,
              "t.nesl:1:3: error: type error in 't == f': the operands of == have types bool, bool, but == takes "
              "(a, a) :: (a in ordinal)");
  diag_reset();
  check_error("\"a\" < \"b\";", 1, "the operands of < have types [char], [char]");
}

static void test_error_sort_chars(void **state) {
  (void)state;
  check_error("sort(\"abc\");", 1,
              "t.nesl:1:6: error: type error in 'sort(\"abc\")': the argument of sort has type [char], but sort "
              "takes [a] :: (a in number)");
}

static void test_error_underscore_as_expression(void **state) {
  (void)state;
  check_error("function g(x) = _;", 1, "t.nesl:1:17: error: '_' may only appear in a pattern");
  diag_reset();
  check_error("1 + _;", 1, "'_' may only appear in a pattern");
}

static void test_error_pattern_binds_twice(void **state) {
  (void)state;
  check_error("function g(x, x) = x;", 1, "t.nesl:1:15: error: 'x' is bound twice in one pattern");
  diag_reset();
  check_error("let (a, a) = (1, 2) in a;", 1, "t.nesl:1:9: error: 'a' is bound twice in one pattern");
  diag_reset();
  check_error("{x : x in [1]; x in [2]};", 1, "t.nesl:1:16: error: 'x' is bound twice in one pattern");
  diag_reset();
  check_error("(u, (v, u)) = (1, 2, 3);", 1, "'u' is bound twice in one pattern");
  diag_reset();
  /* one name in two bindings of a let is shadowing, not an error */
  assert_value_type("let a = 1; a = a > 0 in a;", "bool");
  assert_value_type("let a = 1; a = [a] in a;", "[int]");
}

static void test_error_calling_a_variable(void **state) {
  (void)state;
  /* a parameter may be a function, but not one that is also a number */
  check_error("function g(x) = let y = x + 1 in x(y);", 1,
              "t.nesl:1:34: error: 'x' is a variable of type int, not a function, so it cannot be called");
  diag_reset();
  check_error("y = 1;\ny(2);", 1, "t.nesl:2:1: error: 'y' is a value of type int, not a function, so it cannot be "
              "called");
  diag_reset();
  /* juxtaposition that is really a missing operator */
  check_error("function g(n) = n + 1 n;", 1,
              "t.nesl:1:23: error: '1' is a value of type int, not a function, but '1 n' applies it to 'n' by "
              "juxtaposition; is an operator missing before 'n'?");
  diag_reset();
  check_error("y = 1;\n2 * y y;", 1, "t.nesl:2:7: error: 'y' is a value of type int, not a function, but 'y y' "
              "applies it to 'y' by juxtaposition");
}

static void test_error_function_as_statement_value(void **state) {
  (void)state;
  /* a statement's value may hold a function, but not a polymorphic one:
     it has one type here (CMU NESL prints `a -> a :: (a in any)`) */
  check_error("function i(x) = x;\ni;", 1,
              "t.nesl:2:1: error: the value of a top-level statement cannot be a polymorphic function or hold one "
              "(this one has type a -> a :: (a in any))");
  diag_reset();
  check_error("function i(x) = x;\ndist(i, 3);", 1, "t.nesl:2:1: error: the value of a top-level statement cannot "
              "be a polymorphic function or hold one (this one has type [a -> a] :: (a in any))");
  diag_reset();
  check_error("x = sum;", 1, "t.nesl:1:5: error: the value of a top-level statement cannot be a polymorphic function");
  diag_reset();
  /* monomorphic ones are values like others (`g = inc;` prints `g = fn : int -> int`) */
  check_ok("datatype point(float, float);\npoint;\nfunction inc(x) = x + 1;\ng = inc;\ng(4);\n(inc, [inc]);");
}

static void test_error_other_expressions(void **state) {
  (void)state;
  check_error("[1, 2.0];", 1,
              "t.nesl:1:5: error: the elements of a sequence must have one type, but element 2 ('2.0') has type "
              "float and the elements before it int");
  diag_reset();
  check_error("[1.0:2.0];", 1, "t.nesl:1:2: error: the start of a range must be int, but '1.0' has type float");
  diag_reset();
  check_error("[1:2:t];", 1, "the stride of a range must be int");
  diag_reset();
  check_error("1[0];", 1, "t.nesl:1:2: error: only a sequence can be subscripted, but '1' has type int");
  diag_reset();
  check_error("[1][0.0];", 1, "t.nesl:1:5: error: a subscript must be int, but '0.0' has type float");
  diag_reset();
  check_error("{x : x in 5};", 1,
              "t.nesl:1:11: error: in the generator '... in 5' the right-hand side must be a sequence, but it has "
              "type int");
  diag_reset();
  check_error("{x : x in [1] | 1};", 1, "t.nesl:1:17: error: the condition after '|' must be bool, but '1' has type int");
  diag_reset();
  check_error("[] foo;", 1, "t.nesl:1:4: error: unknown type 'foo'");
  diag_reset();
  check_error("1 + t;", 1, "the operands of + have types int, bool");
  diag_reset();
  check_error("let (a, b) = 1 in a;", 1,
              "the pattern '(a, b)' has 2 components, but the value it matches, of type int, has 1");
  diag_reset();
  check_error("-t;", 1, "the argument of prefix - has type bool");
  diag_reset();
  check_error("2 ^ 0.5;", 1, "the operands of ^ have types int, float");
}

/* ---- recovery ---- */

static void test_checking_goes_on_after_an_error(void **state) {
  (void)state;
  TypeEnv *env = tc_new_env();
  Program *p = parse_program(source_from_string("t.nesl", "x = foo(1);\n"            /* error */
                                                          "y = 2;\n"                 /* ok */
                                                          "z = x + 1;\n"             /* x is broken */
                                                          "function g(a) = a + t;\n" /* error */
                                                          "w = g(1);\n"              /* g is broken */
                                                          "1 + g(2);\n"              /* g is broken */
                                                          "v = y + 1;\n"             /* ok */
                                                          "`a + 1;\n"),              /* error */
                             false);
  assert_int_equal(diag_count(), 0);
  static const bool want[] = {false, true, false, false, false, false, true, false};
  assert_int_equal(p->tops.len, 8);
  for (int i = 0; i < p->tops.len; i++)
    if (tc_check_top(env, p->tops.data[i]) != want[i])
      fail_msg("statement %d: checked %s", i + 1, want[i] ? "with an error" : "without error");
  /* one message per mistake: uses of x and g say nothing */
  assert_int_equal(diag_count(), 3);
  assert_diag("t.nesl:1:5: error: 'foo' is undefined");
  assert_diag("t.nesl:4:19: error: type error in 'a + t'");
  assert_diag("t.nesl:8:4: error: type error in '`a + 1'");
  assert_true(tc_lookup(env, "x")->broken);
  assert_true(tc_lookup(env, "z")->broken);
  assert_true(tc_lookup(env, "g")->broken);
  assert_true(tc_lookup(env, "w")->broken);
  assert_false(tc_lookup(env, "y")->broken);
  assert_string_equal(type_value_to_string(tc_lookup(env, "v")->type), "int");
}

static void test_check_program_reports_every_statement(void **state) {
  (void)state;
  Checked c = check("1 + t;\n2 + 2;\n\"a\" + 1;\nfunction g(p, p) = p;\nh(1);\n");
  assert_int_equal(diag_count(), 4);
  assert_int_equal(c.failed, 4);
  assert_diag("t.nesl:1:3: error:");
  assert_diag("t.nesl:3:5: error:");
  assert_diag("t.nesl:4:15: error:");
  assert_diag("t.nesl:5:1: error: 'h' is undefined");
  assert_string_equal(type_value_to_string(top(&c, 1)->type), "int");
}

static void test_broken_pattern_binding(void **state) {
  (void)state;
  Checked c = check("(a, b) = 1;\nc = a + b;\nd = 1;\n");
  assert_int_equal(diag_count(), 1);
  /* a tuple's location is that of its first item */
  assert_diag("t.nesl:1:2: error: the pattern '(a, b)' has 2 components, but the value it matches, of type int, "
              "has 1");
  assert_true(tc_lookup(c.env, "a")->broken);
  assert_true(tc_lookup(c.env, "b")->broken);
  assert_true(tc_lookup(c.env, "c")->broken);
  assert_false(tc_lookup(c.env, "d")->broken);
}

/* ---- types.c ---- */

static void test_unify_classes(void **state) {
  (void)state;
  Type *n = type_var(CLASS_NUMBER, 0);
  assert_false(type_unify(n, type_bool));
  assert_null(n->link); /* undone */
  assert_true(type_unify(n, type_float));
  assert_ptr_equal(type_resolve(n), type_float);

  Type *a = type_var(CLASS_NUMBER, 0), *b = type_var(CLASS_LOGICAL, 0);
  assert_true(type_unify(a, b));
  assert_ptr_equal(type_resolve(a), type_int);
  assert_ptr_equal(type_resolve(b), type_int);

  Type *o = type_var(CLASS_ORDINAL, 0), *m = type_var(CLASS_NUMBER, 0);
  assert_true(type_unify(o, m));
  assert_int_equal(type_resolve(o)->kind, T_VAR);
  assert_int_equal(type_resolve(o)->klass, CLASS_NUMBER);

  Type *any = type_var(CLASS_ANY, 0);
  assert_true(type_unify(any, type_seq(type_char)));
  Type *num = type_var(CLASS_NUMBER, 0);
  assert_false(type_unify(num, type_seq(type_int)));
}

static void test_unify_failure_is_undone(void **state) {
  (void)state;
  Type *v = type_var(CLASS_ANY, 0);
  /* (v, int) against (int, bool): v is bound first, then the failure
     must undo it */
  assert_false(type_unify(type_pair(v, type_int), type_pair(type_int, type_bool)));
  assert_null(v->link);
  assert_true(type_unify(v, type_char));
  /* occurs check */
  Type *w = type_var(CLASS_ANY, 0);
  assert_false(type_unify(w, type_seq(w)));
  assert_null(w->link);
}

static void test_type_printing(void **state) {
  (void)state;
  Type *a = type_var(CLASS_ANY, GENERIC_LEVEL), *n = type_var(CLASS_NUMBER, GENERIC_LEVEL);
  TypeNamer nm = {0};
  assert_string_equal(type_to_string(&nm, type_pair(type_pair(type_int, type_int), type_pair(type_int, type_int))),
                      "(int, int), int, int");
  assert_string_equal(type_value_to_string(type_seq(type_pair(type_int, type_bool))), "[(int, bool)]");
  assert_string_equal(type_value_to_string(type_pair(n, a)), "a, b :: (a in number; b in any)");
  assert_string_equal(type_scheme_to_string(type_fun(type_pair(a, a), type_seq(a))),
                      "(a, a) -> [a] :: (a in any)");
  assert_string_equal(type_scheme_to_string(type_fun(type_int, type_pair(type_bool, type_char))),
                      "int -> (bool, char)");
  Vec args = {0};
  vec_push(&args, n);
  assert_string_equal(type_value_to_string(type_data("twin", 1, args)), "twin(a) :: (a in number)");
  assert_int_equal(class_from_name("ordinal"), CLASS_ORDINAL);
  assert_int_equal(class_from_name("other"), 0);
  assert_string_equal(class_name(CLASS_LOGICAL), "logical");
  assert_null(class_name(CLASS_INT));
}

static void test_instantiate_and_generalize(void **state) {
  (void)state;
  Type *a = type_var(CLASS_NUMBER, 1);
  Type *f = type_fun(type_pair(a, a), a);
  type_generalize(f, 0);
  assert_int_equal(type_resolve(a)->level, GENERIC_LEVEL);
  Type *i1 = type_instantiate(f, 0), *i2 = type_instantiate(f, 0);
  /* fresh variables, shared within one instance */
  assert_ptr_not_equal(type_resolve(i1->snd), a);
  assert_ptr_equal(type_resolve(i1->fst->fst), type_resolve(i1->snd));
  assert_true(type_unify(i1->snd, type_int));
  assert_true(type_unify(i2->snd, type_float));
  assert_string_equal(type_scheme_to_string(i1), "(int, int) -> int");
  assert_string_equal(type_scheme_to_string(f), "(a, a) -> a :: (a in number)");
  assert_true(type_equivalent(f, type_instantiate(f, GENERIC_LEVEL)));
  assert_false(type_equivalent(f, i1));
  assert_true(type_is_ground(i1));
  assert_false(type_is_ground(f));
}

/* ---- regressions: bugs these tests found, fixed ---- */

/* Was a bug: a signature's rigid variable unified with a top-level value's
   monomorphic type variable is generalized afterwards, which makes the
   value polymorphic and accepts a signature that the body does not
   satisfy.  Expected: an error for g; actual: no error, and x is then
   used both as int and as bool. */
static void test_bug_signature_variable_escapes(void **state) {
  (void)state;
  Checked c = check("function z(n) = z(n);\n"
                    "x = z(1);\n"
                    "function g(y) : c -> c = x;\n"
                    "x + 1;\n"
                    "x or t;\n");
  assert_int_not_equal(diag_count(), 0);
  (void)c;
}

/* Was a bug: an error found in a function's signature (or in a datatype's name)
   before the definition is entered leaves the name undefined, so a later
   use reports a second error ("'g' is undefined") instead of stopping
   silently as for other broken definitions. */
static void test_bug_broken_signature_gives_second_error(void **state) {
  (void)state;
  check_error("function g(x) : int -> int :: (b in number) = x;\ng(1);", 1, "the context names 'b'");
  diag_reset();
  check_error("datatype int(float);\nint(1.0);", 1, "'int' is a base type");
}

/* Was a bug: datatypes were compared by name only, so after a datatype is
   redefined with other fields, a value built by the old constructor is
   accepted where the new type is expected: g(x) below type checks
   (result float) although x holds an int field.  Expected: a type error
   at g(x) (or the redefinition refused). */
static void test_bug_redefined_datatype_confused_with_old(void **state) {
  (void)state;
  check_error("datatype p(int);\n"
              "x = p(1);\n"
              "datatype p(float);\n"
              "function g(p(y)) = y + 1.5;\n"
              "g(x);\n",
              1, "t.nesl:5:");
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_sqr_and_dup),
      T(test_higher_order),
      T(test_error_functions_chosen_at_run_time),
      T(test_mutual_recursion_and_declarations),
      T(test_function_types),
      T(test_class_intersection),
      T(test_recursion),
      T(test_recursion_is_monomorphic),
      T(test_let_polymorphism),
      T(test_signature_less_general),
      T(test_signature_equal_to_inferred),
      T(test_signature_more_general_than_body),
      T(test_signature_context_errors),
      T(test_datatypes),
      T(test_datatype_values),
      T(test_datatype_errors),
      T(test_expression_types),
      T(test_annotations),
      T(test_library),
      T(test_environments_are_separate),
      T(test_redefinition),
      T(test_redefinition_of_values_and_library),
      T(test_bug_signature_variable_escapes),
      T(test_bug_broken_signature_gives_second_error),
      T(test_bug_redefined_datatype_confused_with_old),
      T(test_error_undefined),
      T(test_error_wrong_arity),
      T(test_error_if),
      T(test_error_bool_equality),
      T(test_error_sort_chars),
      T(test_error_underscore_as_expression),
      T(test_error_pattern_binds_twice),
      T(test_error_calling_a_variable),
      T(test_error_function_as_statement_value),
      T(test_error_other_expressions),
      T(test_checking_goes_on_after_an_error),
      T(test_check_program_reports_every_statement),
      T(test_broken_pattern_binding),
      T(test_unify_classes),
      T(test_unify_failure_is_undone),
      T(test_type_printing),
      T(test_instantiate_and_generalize),
#undef T
  };
  return cmocka_run_group_tests_name("typecheck", tests, NULL, NULL);
}
