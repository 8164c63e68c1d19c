/*
 * test_parser.c: unit tests for the NESL parser (frontend/parser.y) and
 * the AST printer (frontend/ast_print.c).
 *
 * Programs are parsed from strings.  The shape of an expression is checked
 * through a fully parenthesized prefix form written here (sx()), which
 * does not depend on the printer's choice of parentheses: `1 + 2 * 3` is
 * "(+ 1 (* 2 3))".  Syntax errors are checked through the diagnostics,
 * which go to a memory stream instead of stderr.
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
#include "parser.h"

/* ---- diagnostics captured in memory ---- */


/* each test's diagnostics captured (capture.h) */
static int setup(void **state) { return capture_diag_setup(state); }
static int teardown(void **state) { return capture_diag_teardown(state); }

/* ---- parsing ---- */

static Program *parse_with_errors(const char *text) {
  return parse_program(source_from_string("t.nesl", text), false);
}

/* Parses a program that must have no syntax error. */
static Program *parse_ok(const char *text) {
  Program *p = parse_with_errors(text);
  if (diag_count() != 0)
    fail_msg("unexpected syntax error in <<%s>>:\n%s", text, diags());
  return p;
}

static TopLevel *top(Program *p, int i) {
  assert_true(i < p->tops.len);
  return p->tops.data[i];
}

/* The expression of a program that is one expression statement. */
static Expr *parse_expr(const char *text) {
  Program *p = parse_ok(text);
  assert_int_equal(p->tops.len, 1);
  TopLevel *t = top(p, 0);
  assert_int_equal(t->kind, TOP_EXPR);
  return t->body;
}

/* ---- a fully parenthesized prefix form of the AST ---- */

static void sx_expr(Buf *b, const Expr *e);

static void sx_pat(Buf *b, const Pattern *p) {
  switch (p->kind) {
  case PAT_VAR:
    buf_puts(b, p->name);
    break;
  case PAT_WILD:
    buf_puts(b, "_");
    break;
  case PAT_PAIR:
    buf_puts(b, "(, ");
    sx_pat(b, p->fst);
    buf_putc(b, ' ');
    sx_pat(b, p->snd);
    buf_putc(b, ')');
    break;
  case PAT_CON:
    buf_printf(b, "(con %s ", p->name);
    sx_pat(b, p->arg);
    buf_putc(b, ')');
    break;
  }
}

static void sx_type(Buf *b, const TypeExpr *t) {
  switch (t->kind) {
  case TX_NAME:
    buf_puts(b, t->name);
    if (t->args.len) {
      buf_putc(b, '(');
      for (int i = 0; i < t->args.len; i++) {
        if (i)
          buf_putc(b, ' ');
        sx_type(b, t->args.data[i]);
      }
      buf_putc(b, ')');
    }
    break;
  case TX_SEQ:
    buf_putc(b, '[');
    sx_type(b, t->elem);
    buf_putc(b, ']');
    break;
  case TX_PAIR:
    buf_puts(b, "(, ");
    sx_type(b, t->fst);
    buf_putc(b, ' ');
    sx_type(b, t->snd);
    buf_putc(b, ')');
    break;
  case TX_FUN:
    buf_puts(b, "(-> ");
    sx_type(b, t->fst);
    buf_putc(b, ' ');
    sx_type(b, t->snd);
    buf_putc(b, ')');
    break;
  }
}

static void sx_gen(Buf *b, const Generator *g) {
  buf_puts(b, g->bare ? "(bare " : "(in ");
  sx_pat(b, g->pat);
  buf_putc(b, ' ');
  sx_expr(b, g->seq);
  buf_putc(b, ')');
}

static void sx_expr(Buf *b, const Expr *e) {
  switch (e->kind) {
  case EX_INT:
    buf_printf(b, "%d", e->u.ival);
    break;
  case EX_FLOAT:
    buf_printf(b, "%gf", e->u.fval);
    break;
  case EX_BOOL:
    buf_puts(b, e->u.bval ? "#t" : "#f");
    break;
  case EX_CHAR:
    buf_printf(b, "`%c", e->u.cval);
    break;
  case EX_STRING:
    buf_putc(b, '"');
    for (size_t i = 0; i < e->u.str.len; i++)
      buf_putc(b, e->u.str.chars[i]);
    buf_putc(b, '"');
    break;
  case EX_VAR:
    buf_puts(b, e->u.ref.name);
    break;
  case EX_CALL:
    /* `f x` shows as (jcall f x), `f(x)` as (call f x) */
    buf_printf(b, "(%scall %s ", e->juxtaposed ? "j" : "", e->u.ref.name);
    sx_expr(b, e->u.ref.arg);
    buf_putc(b, ')');
    break;
  case EX_APP:
    buf_printf(b, "(%sapp ", e->juxtaposed ? "j" : "");
    sx_expr(b, e->u.app.fn);
    buf_putc(b, ' ');
    sx_expr(b, e->u.app.arg);
    buf_putc(b, ')');
    break;
  case EX_BINOP:
    buf_printf(b, "(%s ", binop_text((BinOp)e->u.op.op));
    sx_expr(b, e->u.op.lhs);
    buf_putc(b, ' ');
    sx_expr(b, e->u.op.rhs);
    buf_putc(b, ')');
    break;
  case EX_UNOP:
    buf_printf(b, "(u%s ", unop_text((UnOp)e->u.op.op));
    sx_expr(b, e->u.op.lhs);
    buf_putc(b, ')');
    break;
  case EX_PAIR:
    buf_puts(b, "(, ");
    sx_expr(b, e->u.pair.fst);
    buf_putc(b, ' ');
    sx_expr(b, e->u.pair.snd);
    buf_putc(b, ')');
    break;
  case EX_SEQ:
    buf_putc(b, '[');
    for (int i = 0; i < e->u.elems.len; i++) {
      if (i)
        buf_putc(b, ' ');
      sx_expr(b, e->u.elems.data[i]);
    }
    buf_putc(b, ']');
    break;
  case EX_EMPTY:
    buf_puts(b, "(empty ");
    sx_type(b, e->u.elem_type);
    buf_putc(b, ')');
    break;
  case EX_RANGE:
    buf_puts(b, "(range ");
    sx_expr(b, e->u.range.start);
    buf_putc(b, ' ');
    sx_expr(b, e->u.range.end);
    if (e->u.range.stride) {
      buf_putc(b, ' ');
      sx_expr(b, e->u.range.stride);
    }
    buf_putc(b, ')');
    break;
  case EX_INDEX:
    buf_puts(b, "(idx ");
    sx_expr(b, e->u.index.seq);
    buf_putc(b, ' ');
    sx_expr(b, e->u.index.index);
    buf_putc(b, ')');
    break;
  case EX_IF:
    buf_puts(b, "(if ");
    sx_expr(b, e->u.ifx.cond);
    buf_putc(b, ' ');
    sx_expr(b, e->u.ifx.then);
    buf_putc(b, ' ');
    sx_expr(b, e->u.ifx.els);
    buf_putc(b, ')');
    break;
  case EX_LET:
    buf_puts(b, "(let (");
    for (int i = 0; i < e->u.let.binds.len; i++) {
      const Binding *bd = e->u.let.binds.data[i];
      if (i)
        buf_putc(b, ' ');
      buf_putc(b, '(');
      sx_pat(b, bd->pat);
      buf_putc(b, ' ');
      sx_expr(b, bd->value);
      buf_putc(b, ')');
    }
    buf_puts(b, ") ");
    sx_expr(b, e->u.let.body);
    buf_putc(b, ')');
    break;
  case EX_APPLY:
    buf_puts(b, e->u.apply.filter_only ? "(filter " : "(apply ");
    sx_expr(b, e->u.apply.body);
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      buf_putc(b, ' ');
      sx_gen(b, e->u.apply.gens.data[i]);
    }
    if (e->u.apply.filter) {
      buf_puts(b, " | ");
      sx_expr(b, e->u.apply.filter);
    }
    buf_putc(b, ')');
    break;
  case EX_TIME:
    buf_puts(b, "(time ");
    sx_expr(b, e->u.timed);
    buf_putc(b, ')');
    break;
  }
}

static char *sx(const Expr *e) {
  Buf b = {0};
  sx_expr(&b, e);
  return buf_str(&b);
}

static char *sxp(const Pattern *p) {
  Buf b = {0};
  sx_pat(&b, p);
  return buf_str(&b);
}

static char *sxt(const TypeExpr *t) {
  Buf b = {0};
  sx_type(&b, t);
  return buf_str(&b);
}

/* Parses 'text' (one expression statement) and compares its shape. */
static void check_shape(const char *text, const char *want) {
  Expr *e = parse_expr(text);
  char *got = sx(e);
  if (strcmp(got, want) != 0)
    fail_msg("<<%s>> parsed as %s, expected %s", text, got, want);
}

/* The program printed back as NESL. */
static char *print_program(const Program *p) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  assert_non_null(f);
  ast_print_program(f, p);
  fclose(f);
  char *s = xstrdup(text);
  free(text);
  return s;
}

/* ---- precedence and associativity ---- */

/* The comma: right-associative, below every other operator, above if and
   let bodies; a, b, c is (a, (b, c)). */
static void test_comma_operator(void **state) {
  (void)state;
  check_shape("a, b, c;", "(, a (, b c))");
  check_shape("(a, b), c;", "(, (, a b) c)");
  check_shape("x + 1, y * 2;", "(, (+ x 1) (* y 2))");
  check_shape("a == b, c or d;", "(, (== a b) (or c d))");
  check_shape("if c then 1, 2 else 3, 4;", "(if c (, 1 2) (, 3 4))");
  check_shape("let x = 1 in x, x;", "(let ((x 1)) (, x x))");
}

/* Patterns are expressions converted, so tuple patterns need no ( ). */
static void test_patterns_without_parentheses(void **state) {
  (void)state;
  check_shape("let ids, vals = unzip(a) in ids;", "(let (((, ids vals) (call unzip a))) ids)");
  check_shape("let a, (b, c) = x; d = a in d;", "(let (((, a (, b c)) x) (d a)) d)");
  check_shape("{i : i, x, y in packed};", "(apply i (in (, i (, x y)) packed))");
  check_shape("{v, w : fl, nk, v in table};", "(apply (, v w) (in (, fl (, nk v)) table))");
  check_shape("{x + y : x, _ in a; y in b};", "(apply (+ x y) (in (, x _) a) (in y b))");
  check_shape("{x, y in pairs | x < y};", "(filter (, x y) (in (, x y) pairs) | (< x y))");
  check_shape("let point(x, y) = p in x;", "(let (((con point (, x y)) p)) x)");
  Program *p = parse_ok("q, r = (7, 2);\nfunction h(x, y) = x + 1, y;");
  assert_int_equal(top(p, 0)->kind, TOP_BIND);
  assert_string_equal(sxp(top(p, 0)->pat), "(, q r)");
  assert_string_equal(sx(top(p, 1)->body), "(, (+ x 1) y)");
}

/* Juxtaposition: a primary after an expression applies it, at the
   binding power of calls and subscripts, left to right. */
static void test_juxtaposition(void **state) {
  (void)state;
  check_shape("sqrt 4.0;", "(jcall sqrt 4f)");
  check_shape("(float) n;", "(jcall float n)");
  check_shape("exp((float) n);", "(call exp (jcall float n))");
  check_shape("g x y;", "(japp (jcall g x) y)");
  check_shape("-g x;", "(u- (jcall g x))");
  check_shape("a + g x * 2;", "(+ a (* (jcall g x) 2))");
  check_shape("g x[i];", "(idx (jcall g x) i)");
  check_shape("g #a + 1;", "(+ (jcall g (u# a)) 1)");
  check_shape("sum {x : x in s};", "(jcall sum (apply x (in x s)))");
  check_shape("g \"s\";", "(jcall g \"s\")");
  /* ( and [ after an expression call and subscript; - subtracts */
  check_shape("g (x);", "(call g x)");
  check_shape("g -1;", "(- g 1)");
  check_shape("g(x)(y);", "(app (call g x) y)");
  check_shape("(g x)(y);", "(app (jcall g x) y)");
  check_shape("1 2;", "(japp 1 2)");
}

/* Function types in signatures and empty sequences. */
static void test_function_types(void **state) {
  (void)state;
  Program *p = parse_ok("function apply(g, x) : (a -> b, a) -> b = g(x);\n"
                        "function k(x) : int -> int -> int = inc;\n"
                        "function c(g) : ((int -> int) -> int) -> int = g(inc);\n"
                        "x = [] (int -> [int]);\n"
                        "function s(v) : [float -> float] -> int = #v;\n");
  assert_string_equal(sxt(top(p, 0)->sig->arg), "(, (-> a b) a)");
  assert_string_equal(sxt(top(p, 0)->sig->result), "b");
  assert_string_equal(sxt(top(p, 1)->sig->result), "(-> int int)");
  assert_string_equal(sxt(top(p, 2)->sig->arg), "(-> (-> int int) int)");
  assert_string_equal(sx(top(p, 3)->body), "(empty (-> int [int]))");
  assert_string_equal(sxt(top(p, 4)->sig->arg), "[(-> float float)]");
  /* printed back so that it parses to the same types */
  assert_string_equal(print_program(p),
                      "function apply(g, x) : (a -> b, a) -> b = g(x);\n"
                      "function k(x) : int -> int -> int = inc;\n"
                      "function c(g) : ((int -> int) -> int) -> int = g(inc);\n"
                      "x = [] (int -> [int]);\n"
                      "function s(v) : [float -> float] -> int = #v;\n");
}

/* Documentation strings and declarations without a body. */
static void test_doc_strings_and_declarations(void **state) {
  (void)state;
  Program *p = parse_ok("function kth(s, k) \"Returns the kth \\\"smallest\\\"\" = s[k];\n"
                        "function g(x) : int -> int \"doc\" = x;\n"
                        "function d(x) : int -> bool;\n"
                        "function e(x) : int -> bool \"declared\";\n");
  assert_int_equal(p->tops.len, 4);
  assert_string_equal(top(p, 0)->doc, "Returns the kth \"smallest\"");
  assert_string_equal(top(p, 1)->doc, "doc");
  assert_null(top(p, 2)->body);
  assert_null(top(p, 2)->doc);
  assert_null(top(p, 3)->body);
  assert_string_equal(top(p, 3)->doc, "declared");
  assert_string_equal(print_program(p), "function kth(s, k) \"Returns the kth \\\"smallest\\\"\" = s[k];\n"
                                        "function g(x) : int -> int \"doc\" = x;\n"
                                        "function d(x) : int -> bool;\n"
                                        "function e(x) : int -> bool \"declared\";\n");
  diag_reset();
  /* a declaration needs a signature */
  parse_with_errors("function h(x);\n");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:14: error: syntax error: unexpected ';', expected"));
}

/* Sequence literals of any length, in linear time. */
static void test_long_sequence_literal(void **state) {
  (void)state;
  Buf b = {0};
  buf_puts(&b, "x = [");
  for (int i = 0; i < 200000; i++)
    buf_printf(&b, i ? ", %d" : "%d", i);
  buf_puts(&b, "];");
  Program *p = parse_ok(buf_str(&b));
  Expr *s = top(p, 0)->body;
  assert_int_equal(s->kind, EX_SEQ);
  assert_int_equal(s->u.elems.len, 200000);
  assert_int_equal(((Expr *)s->u.elems.data[199999])->u.ival, 199999);
}

static void test_arithmetic_precedence(void **state) {
  (void)state;
  check_shape("1 + 2 * 3;", "(+ 1 (* 2 3))");
  check_shape("1 * 2 + 3;", "(+ (* 1 2) 3)");
  check_shape("1 - 2 - 3;", "(- (- 1 2) 3)");
  check_shape("8 / 4 / 2;", "(/ (/ 8 4) 2)");
  check_shape("a * b ^ 2;", "(* a (^ b 2))");
  check_shape("(1 + 2) * 3;", "(* (+ 1 2) 3)");
  check_shape("a ++ b ++ c;", "(++ (++ a b) c)");
  check_shape("s || 3 + n;", "(+ (|| s 3) n)");
}

static void test_power_and_unary_minus(void **state) {
  (void)state;
  /* prefix - binds tighter than ^: -2^2 is (-2)^2 = 4 */
  check_shape("-2 ^ 2;", "(^ (u- 2) 2)");
  /* ^ is left-associative: 2^3^2 is (2^3)^2 = 64 */
  check_shape("2 ^ 3 ^ 2;", "(^ (^ 2 3) 2)");
  check_shape("- -x;", "(u- (u- x))");
  check_shape("a - -b;", "(- a (u- b))");
  check_shape("-a * b;", "(* (u- a) b)");
  check_shape("-2147483648;", "(u- -2147483648)");
}

static void test_subscript_binds_tighter_than_prefix(void **state) {
  (void)state;
  check_shape("#[[1,2],[3]][0];", "(u# (idx [[1 2] [3]] 0))");
  check_shape("(#[[1,2],[3]])[0];", "(idx (u# [[1 2] [3]]) 0)");
  check_shape("-a[i];", "(u- (idx a i))");
  check_shape("@x ++ y;", "(++ (u@ x) y)");
  check_shape("#a + 1;", "(+ (u# a) 1)");
  check_shape("a[1][2];", "(idx (idx a 1) 2)");
  check_shape("g(x)[i + 1];", "(idx (call g x) (+ i 1))");
}

static void test_read_and_write(void **state) {
  (void)state;
  /* -> binds tighter than ++: x ++ (v -> i) */
  check_shape("x ++ v -> i;", "(++ x (-> v i))");
  check_shape("a -> b -> c;", "(-> a (-> b c))");
  check_shape("a <- b <- c;", "(<- (<- a b) c)");
  check_shape("d <- v -> i;", "(<- d (-> v i))");
  check_shape("a ^ b <- c;", "(^ a (<- b c))");
}

static void test_logical_and_comparison(void **state) {
  (void)state;
  check_shape("a or b and c;", "(or a (and b c))");
  check_shape("a and b or c;", "(or (and a b) c)");
  check_shape("a nand b nor c xor d;", "(xor (nor (nand a b) c) d)");
  check_shape("x + 1 == y * 2;", "(== (+ x 1) (* y 2))");
  check_shape("a < b or c >= d;", "(or (< a b) (>= c d))");
  check_shape("a /= b and c <= d;", "(and (/= a b) (<= c d))");
  check_shape("a == b == c;", "(== (== a b) c)");
  check_shape("not(a) and b;", "(and (call not a) b)");
}

static void test_tuples_nest_right(void **state) {
  (void)state;
  check_shape("1, 2, 3;", "(, 1 (, 2 3))");
  check_shape("(1, 2, 3);", "(, 1 (, 2 3))");
  check_shape("(1, 2), 3;", "(, (, 1 2) 3)");
  check_shape("1, (2, 3);", "(, 1 (, 2 3))");
  check_shape("1 + 2, 3 * 4;", "(, (+ 1 2) (* 3 4))");
  check_shape("g(a, b, c);", "(call g (, a (, b c)))");
  check_shape("g((a, b), c);", "(call g (, (, a b) c))");
  /* the parentheses are remembered: they make one element in [ ] */
  Expr *e = parse_expr("(1, 2), 3;");
  assert_true(e->u.pair.fst->parenthesized);
  assert_false(e->parenthesized);
}

static void test_if_extends_right(void **state) {
  (void)state;
  check_shape("if a then b else c + 1;", "(if a b (+ c 1))");
  check_shape("if c then 1 else 2, 3;", "(if c 1 (, 2 3))");
  check_shape("if c then 1, 2 else 3;", "(if c (, 1 2) 3)");
  check_shape("1 + (if c then 2 else 3);", "(+ 1 (if c 2 3))");
  check_shape("1 + if c then 2 else 3 * 4;", "(+ 1 (if c 2 (* 3 4)))");
  check_shape("if a then if b then 1 else 2 else 3;", "(if a (if b 1 2) 3)");
  check_shape("g(if c then 1 else 2, 3);", "(call g (if c 1 (, 2 3)))");
}

static void test_literals(void **state) {
  (void)state;
  check_shape("(1, 2.5, t, F, `a, \"Hi\", x);", "(, 1 (, 2.5f (, #t (, #f (, `a (, \"Hi\" x))))))");
  check_shape("time(g(x));", "(time (call g x))");
  check_shape("_;", "_");
}

/* ---- sequences ---- */

static void test_sequence_literals(void **state) {
  (void)state;
  Expr *e = parse_expr("[1, 2, 3];");
  assert_int_equal(e->kind, EX_SEQ);
  assert_int_equal(e->u.elems.len, 3);

  e = parse_expr("[(1, 2), 3];");
  assert_int_equal(e->kind, EX_SEQ);
  assert_int_equal(e->u.elems.len, 2);
  assert_string_equal(sx(e->u.elems.data[0]), "(, 1 2)");

  e = parse_expr("[1, (2, 3)];");
  assert_int_equal(e->u.elems.len, 2);
  assert_string_equal(sx(e->u.elems.data[1]), "(, 2 3)");

  e = parse_expr("[(1, 2, 3)];");
  assert_int_equal(e->u.elems.len, 1);

  e = parse_expr("[(1, 2), (3, 4)];");
  assert_int_equal(e->u.elems.len, 2);

  e = parse_expr("[x];");
  assert_int_equal(e->u.elems.len, 1);

  check_shape("[[1, 2], [3]];", "[[1 2] [3]]");
  check_shape("[1 + 2, g(3, 4)];", "[(+ 1 2) (call g (, 3 4))]");
}

static void test_if_inside_sequence_takes_the_rest(void **state) {
  (void)state;
  /* as NESL reads it: the else branch is the tuple 3, 4 */
  Expr *e = parse_expr("[1, if c then 2 else 3, 4];");
  assert_int_equal(e->u.elems.len, 2);
  assert_string_equal(sx(e->u.elems.data[1]), "(if c 2 (, 3 4))");
}

static void test_typed_empty_sequences(void **state) {
  (void)state;
  Expr *e = parse_expr("[] int;");
  assert_int_equal(e->kind, EX_EMPTY);
  assert_int_equal(e->u.elem_type->kind, TX_NAME);
  assert_string_equal(e->u.elem_type->name, "int");
  check_shape("[] [Float];", "(empty [float])");
  check_shape("[] (int, bool);", "(empty (, int bool))");
  check_shape("[] (int, bool, char);", "(empty (, int (, bool char)))");
  check_shape("[] point;", "(empty point)");
  check_shape("[] twin(int);", "(empty twin(int))");
  check_shape("[] int ++ [1];", "(++ (empty int) [1])");
}

static void test_ranges(void **state) {
  (void)state;
  Expr *e = parse_expr("[1:10];");
  assert_int_equal(e->kind, EX_RANGE);
  assert_null(e->u.range.stride);
  assert_string_equal(sx(e), "(range 1 10)");
  e = parse_expr("[0 : n : 2];");
  assert_non_null(e->u.range.stride);
  assert_string_equal(sx(e), "(range 0 n 2)");
  check_shape("[a + 1 : #s * 2];", "(range (+ a 1) (* (u# s) 2))");
  check_shape("[0:n][i];", "(idx (range 0 n) i)");
}

/* ---- apply-to-each ---- */

static void test_apply_to_each(void **state) {
  (void)state;
  Expr *e = parse_expr("{x + y : x in a; y in b};");
  assert_int_equal(e->kind, EX_APPLY);
  assert_false(e->u.apply.filter_only);
  assert_int_equal(e->u.apply.gens.len, 2);
  assert_null(e->u.apply.filter);
  assert_string_equal(sx(e), "(apply (+ x y) (in x a) (in y b))");

  check_shape("{x : x in a | x > 0};", "(apply x (in x a) | (> x 0))");
  check_shape("{i * x : (i, x) in zip(a, b)};", "(apply (* i x) (in (, i x) (call zip (, a b))))");
  check_shape("{x, y : x in a; y in b; z in c | p(z)};",
              "(apply (, x y) (in x a) (in y b) (in z c) | (call p z))");
  check_shape("{1 : _ in a};", "(apply 1 (in _ a))");
  check_shape("{g(x) : point(x, y) in ps};", "(apply (call g x) (in (con point (, x y)) ps))");
  check_shape("{{y : y in x} : x in xs};", "(apply (apply y (in y x)) (in x xs))");
}

static void test_bare_name_generators(void **state) {
  (void)state;
  Expr *e = parse_expr("{x * 2 : x};");
  assert_int_equal(e->u.apply.gens.len, 1);
  Generator *g = e->u.apply.gens.data[0];
  assert_true(g->bare);
  assert_int_equal(g->pat->kind, PAT_VAR);
  assert_string_equal(g->pat->name, "x");
  assert_int_equal(g->seq->kind, EX_VAR);
  assert_string_equal(g->seq->u.ref.name, "x");
  check_shape("{a + b : a; b in c | a > 0};", "(apply (+ a b) (bare a a) (in b c) | (> a 0))");
}

static void test_filter_only(void **state) {
  (void)state;
  Expr *e = parse_expr("{x in xs | x > 0};");
  assert_int_equal(e->kind, EX_APPLY);
  assert_true(e->u.apply.filter_only);
  assert_int_equal(e->u.apply.gens.len, 1);
  assert_non_null(e->u.apply.filter);
  assert_string_equal(sx(e), "(filter x (in x xs) | (> x 0))");

  check_shape("{(x, y) in ps | x < y};", "(filter (, x y) (in (, x y) ps) | (< x y))");
  check_shape("{x in xs};", "(filter x (in x xs))");
  check_shape("{point(x, y) in ps | x > 0.0};",
              "(filter (call point (, x y)) (in (con point (, x y)) ps) | (> x 0f))");
}

static void test_filter_only_several_generators(void **state) {
  (void)state;
  Expr *e = parse_expr("{x in xs; y in ys | x < y};");
  assert_true(e->u.apply.filter_only);
  assert_int_equal(e->u.apply.gens.len, 2);
  /* the result is the first pattern */
  assert_string_equal(sx(e), "(filter x (in x xs) (in y ys) | (< x y))");
  check_shape("{x in xs; ys; z in zs | z};", "(filter x (in x xs) (bare ys ys) (in z zs) | z)");
}

static void test_filter_only_rejects_wildcard(void **state) {
  (void)state;
  Program *p = parse_with_errors("{_ in xs | t};\n{(a, _) in xs | t};\n");
  assert_int_equal(p->tops.len, 0);
  assert_int_equal(diag_count(), 2);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:1:2: error: the pattern of a filter-only apply-to-each {p in e | c} "
                            "cannot contain '_'"));
  assert_non_null(strstr(d, "t.nesl:2:"));
}

/* ---- let ---- */

static void test_let(void **state) {
  (void)state;
  Expr *e = parse_expr("let a = 1; b = a + 1 in a * b;");
  assert_int_equal(e->kind, EX_LET);
  assert_int_equal(e->u.let.binds.len, 2);
  assert_string_equal(sx(e), "(let ((a 1) (b (+ a 1))) (* a b))");
  /* a trailing ';' before 'in' */
  e = parse_expr("let a = 1; b = 2; in a;");
  assert_int_equal(e->u.let.binds.len, 2);
  assert_string_equal(sx(e), "(let ((a 1) (b 2)) a)");
  check_shape("let (a, b) = (1, 2) in a;", "(let (((, a b) (, 1 2))) a)");
  check_shape("let (a, _, c) = tr in c;", "(let (((, a (, _ c)) tr)) c)");
  check_shape("let p = 1, 2 in p;", "(let ((p (, 1 2))) p)");
  /* the body extends right, across commas */
  check_shape("let a = 1 in a, 2;", "(let ((a 1)) (, a 2))");
  check_shape("1 + (let a = 1 in a);", "(+ 1 (let ((a 1)) a))");
  check_shape("let point(x, y) = p in x;", "(let (((con point (, x y)) p)) x)");
}

/* ---- top level ---- */

static void test_function_definitions(void **state) {
  (void)state;
  Program *p = parse_ok("function add(a, b) : (int, int) -> int = a + b;\n"
                        "function Sq(X) : a -> a :: (a in number) = x * x;\n"
                        "function g x = x;\n"
                        "function h(a, b) : a, b -> (b, a) :: (a in any; b in ordinal) = (b, a);\n"
                        "function k(u) : [a] -> b :: (a in any, b in logical) = u;\n");
  assert_int_equal(p->tops.len, 5);

  TopLevel *t = top(p, 0);
  assert_int_equal(t->kind, TOP_FUNCTION);
  assert_string_equal(t->name, "add");
  assert_string_equal(sxp(t->param), "(, a b)");
  assert_non_null(t->sig);
  assert_string_equal(sxt(t->sig->arg), "(, int int)");
  assert_string_equal(sxt(t->sig->result), "int");
  assert_int_equal(t->sig->context.len, 0);
  assert_string_equal(sx(t->body), "(+ a b)");
  assert_false(t->is_primitive);
  assert_int_equal(t->loc.line, 1);
  assert_int_equal(t->loc.col, 1);

  t = top(p, 1);
  assert_string_equal(t->name, "sq");
  assert_string_equal(sxp(t->param), "x");
  assert_int_equal(t->sig->context.len, 1);
  ContextItem *c = t->sig->context.data[0];
  assert_string_equal(c->var, "a");
  assert_string_equal(c->klass, "number");
  assert_int_equal(t->loc.line, 2);

  t = top(p, 2);
  assert_null(t->sig);
  assert_string_equal(sxp(t->param), "x");

  t = top(p, 3);
  assert_string_equal(sxt(t->sig->arg), "(, a b)");
  assert_string_equal(sxt(t->sig->result), "(, b a)");
  assert_int_equal(t->sig->context.len, 2);
  c = t->sig->context.data[1];
  assert_string_equal(c->var, "b");
  assert_string_equal(c->klass, "ordinal");

  t = top(p, 4);
  assert_string_equal(sxt(t->sig->arg), "[a]");
  assert_int_equal(t->sig->context.len, 2);
  c = t->sig->context.data[1];
  assert_string_equal(c->klass, "logical");
}

static void test_function_patterns(void **state) {
  (void)state;
  Program *p = parse_ok("function f1((a, b), c) = a;\n"
                        "function f2(point(x, y)) = x;\n"
                        "function f3(_, y) = y;\n");
  assert_string_equal(sxp(top(p, 0)->param), "(, (, a b) c)");
  assert_string_equal(sxp(top(p, 1)->param), "(con point (, x y))");
  assert_string_equal(sxp(top(p, 2)->param), "(, _ y)");
}

static void test_datatypes(void **state) {
  (void)state;
  Program *p = parse_ok("datatype point(float, float);\n"
                        "datatype twin(a, a) :: (a in any);\n"
                        "datatype box(a);\n"
                        "datatype tree(int, [tree]);\n"
                        "datatype pp(twin(int), (a, b)) :: (a in number; b in any);\n");
  assert_int_equal(p->tops.len, 5);
  TopLevel *t = top(p, 0);
  assert_int_equal(t->kind, TOP_DATATYPE);
  assert_string_equal(t->name, "point");
  assert_string_equal(sxt(t->fields), "(, float float)");
  assert_int_equal(t->context.len, 0);

  t = top(p, 1);
  assert_string_equal(t->name, "twin");
  assert_string_equal(sxt(t->fields), "(, a a)");
  assert_int_equal(t->context.len, 1);
  assert_string_equal(((ContextItem *)t->context.data[0])->klass, "any");

  assert_string_equal(sxt(top(p, 2)->fields), "a");
  assert_string_equal(sxt(top(p, 3)->fields), "(, int [tree])");
  t = top(p, 4);
  assert_string_equal(sxt(t->fields), "(, twin(int) (, a b))");
  assert_int_equal(t->context.len, 2);
}

static void test_top_level_bindings(void **state) {
  (void)state;
  Program *p = parse_ok("(a, b) = (1, 2);\n"
                        "x = 5;\n"
                        "point(u, v) = point(1.0, 2.0);\n"
                        "_ = 3;\n"
                        "c, d = 1, 2;\n"
                        "x == 5;\n");
  assert_int_equal(p->tops.len, 6);
  TopLevel *t = top(p, 0);
  assert_int_equal(t->kind, TOP_BIND);
  assert_int_equal(t->pat->kind, PAT_PAIR);
  assert_string_equal(sxp(t->pat), "(, a b)");
  assert_string_equal(sx(t->body), "(, 1 2)");

  t = top(p, 1);
  assert_int_equal(t->kind, TOP_BIND);
  assert_string_equal(sxp(t->pat), "x");

  t = top(p, 2);
  assert_int_equal(t->pat->kind, PAT_CON);
  assert_string_equal(sxp(t->pat), "(con point (, u v))");

  assert_int_equal(top(p, 3)->pat->kind, PAT_WILD);
  assert_string_equal(sxp(top(p, 4)->pat), "(, c d)");

  /* == is a comparison, not a binding */
  t = top(p, 5);
  assert_int_equal(t->kind, TOP_EXPR);
  assert_string_equal(sx(t->body), "(== x 5)");
}

static void test_terminators(void **state) {
  (void)state;
  Program *p = parse_ok("1 $ 2; 3 $\nx = 4 $");
  assert_int_equal(p->tops.len, 4);
  assert_string_equal(sx(top(p, 0)->body), "1");
  assert_string_equal(sx(top(p, 2)->body), "3");
  assert_int_equal(top(p, 3)->kind, TOP_BIND);
}

static void test_empty_programs(void **state) {
  (void)state;
  assert_int_equal(parse_ok("")->tops.len, 0);
  assert_int_equal(parse_ok("  \n\t\n")->tops.len, 0);
  assert_int_equal(parse_ok("% just a\ncomment %\n")->tops.len, 0);
}

static void test_case_insensitive_program(void **state) {
  (void)state;
  Program *p = parse_ok("FUNCTION Foo(X) = IF X THEN 1 ELSE 2;\nLet A = Foo(T) IN A;");
  assert_int_equal(p->tops.len, 2);
  assert_string_equal(top(p, 0)->name, "foo");
  assert_string_equal(sx(top(p, 0)->body), "(if x 1 2)");
  assert_string_equal(sx(top(p, 1)->body), "(let ((a (call foo #t))) a)");
}

static void test_locations(void **state) {
  (void)state;
  Program *p = parse_ok("x = 1;\n"
                        "  y +\n"
                        "    2 * z;\n");
  Expr *e = top(p, 1)->body;
  /* an operator's node is at the operator */
  assert_int_equal(e->kind, EX_BINOP);
  assert_int_equal(e->loc.line, 2);
  assert_int_equal(e->loc.col, 5);
  assert_int_equal(e->u.op.lhs->loc.line, 2);
  assert_int_equal(e->u.op.lhs->loc.col, 3);
  Expr *m = e->u.op.rhs;
  assert_int_equal(m->loc.line, 3);
  assert_int_equal(m->loc.col, 7);
  assert_int_equal(m->u.op.rhs->loc.col, 9);
  assert_string_equal(m->loc.src->name, "t.nesl");
}

/* ---- printing and round trips ---- */

static void test_print_expressions(void **state) {
  (void)state;
  static const struct {
    const char *in, *out;
  } cases[] = {
      {"1+2*3;", "1 + 2 * 3"},
      {"(1+2)*3;", "(1 + 2) * 3"},
      {"-2^2;", "-2 ^ 2"},
      {"-(2^2);", "-(2 ^ 2)"},
      {"2^(3^2);", "2 ^ (3 ^ 2)"},
      {"a-(b-c);", "a - (b - c)"},
      {"(a->b)->c;", "(a -> b) -> c"},
      {"x++v->i;", "x ++ v -> i"},
      {"(x++v)->i;", "(x ++ v) -> i"},
      {"#[[1,2],[3]][0];", "#[[1, 2], [3]][0]"},
      {"(#a)[0];", "(#a)[0]"},
      {"g(x,y);", "g(x, y)"},
      {"[(1,2),3];", "[(1, 2), 3]"},
      {"((1,2),3);", "((1, 2), 3)"},
      {"1+(if c then 2 else 3);", "1 + (if c then 2 else 3)"},
      {"[] (int,[bool]);", "[] (int, [bool])"},
      {"{x+1:x in a|x>0};", "{x + 1 : x in a | x > 0}"},
      {"{x in a|x>0};", "{x in a | x > 0}"},
      {"{x:x};", "{x : x}"},
      {"let a=1;b=2; in a+b;", "let a = 1; b = 2 in a + b"},
      {"\"a\\\"b\\\\c\";", "\"a\\\"b\\\\c\""},
      {"`a;", "`a"},
      {"1.5e3;", "1.5e3"},
      {"123456.0;", "123456.0"},
      {"1.;", "1.0"},
      {"1.5e-30;", "1.5e-30"},
      {"1.0e20;", "1.0e20"},
      {"T;", "t"},
      {"-2147483648;", "-2147483648"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    Expr *e = parse_expr(cases[i].in);
    char *s = ast_expr_to_string(e);
    if (strcmp(s, cases[i].out) != 0)
      fail_msg("<<%s>> printed as <<%s>>, expected <<%s>>", cases[i].in, s, cases[i].out);
  }
}

static void test_print_program(void **state) {
  (void)state;
  Program *p = parse_ok("FUNCTION sq(x) : a -> a :: (a in number) = x*x;\n"
                        "datatype twin(a,a) :: (a in any);\n"
                        "(a,b) = (1,2) $\n"
                        "function g x = x;\n"
                        "sq(3);\n");
  assert_string_equal(print_program(p), "function sq(x) : a -> a :: (a in number) = x * x;\n"
                                        "datatype twin(a, a) :: (a in any);\n"
                                        "(a, b) = (1, 2);\n"
                                        "function g(x) = x;\n"
                                        "sq(3);\n");
}

/* print, parse, print again: the same text, and the same tree */
static void check_round_trip(const char *text) {
  Program *p1 = parse_ok(text);
  char *s1 = print_program(p1);
  Program *p2 = parse_with_errors(s1);
  if (diag_count() != 0)
    fail_msg("the printed form of <<%s>> does not parse:\n%s\n%s", text, s1, diags());
  char *s2 = print_program(p2);
  if (strcmp(s1, s2) != 0)
    fail_msg("round trip of <<%s>>:\nfirst:  %s\nsecond: %s", text, s1, s2);
  assert_int_equal(p1->tops.len, p2->tops.len);
  for (int i = 0; i < p1->tops.len; i++) {
    TopLevel *a = p1->tops.data[i], *b = p2->tops.data[i];
    assert_int_equal(a->kind, b->kind);
    if (a->kind == TOP_EXPR || a->kind == TOP_BIND || a->kind == TOP_FUNCTION) {
      char *ta = sx(a->body), *tb = sx(b->body);
      if (strcmp(ta, tb) != 0)
        fail_msg("round trip of <<%s>> changed the tree:\n%s\n%s", text, ta, tb);
    }
  }
}

static void test_round_trip(void **state) {
  (void)state;
  static const char *programs[] = {
      "1 + 2 * 3 - 4 / 5;",
      "-2 ^ 2; (-2) ^ 2; -(2 ^ 2); 2 ^ 3 ^ 2; 2 ^ (3 ^ 2);",
      "#[[1, 2], [3]][0]; (#[[1, 2], [3]])[0]; #a + #b;",
      "x ++ v -> i; (x ++ v) -> i; a -> b -> c; (a -> b) -> c; a <- b <- c; a <- (b <- c);",
      "a - (b - c); a - b - c; a - -b; - -a; -a[0]; (-a)[0];",
      "a or b and c; (a or b) and c; not(a or b); a nand (b nor c);",
      "(1, 2, 3); ((1, 2), 3); (1, (2, 3)); 1, 2, 3; g((a, b), c);",
      "[(1, 2), 3]; [1, (2, 3)]; [(1, 2, 3)]; [[1], [2, 3]]; [] int; [] (int, [bool]);",
      "[1, if c then 2 else 3, 4]; [(if c then 2 else 3), 4];",
      "if a then b else c, d; (if a then b else c), d; 1 + (if a then 2 else 3);",
      "if if a then b else c then 1 else 2; if a then let x = 1 in x else 2;",
      "let a = 1; b = 2; in a + b; let (a, b) = (1, 2) in let c = a in c, b;",
      "let a = if c then 1 else 2; b = 3 in a; (let a = 1 in a) + 1;",
      "{x + y : x in a; y in b | x > y}; {x : x}; {a, b : a; b in c};",
      "{x in xs | x > 0}; {(x, y) in ps | x < y}; {x in xs; y in ys | x < y}; {x in xs};",
      "{{y : y in x} : x in xs}; {x : x in if c then a else b};",
      "[1 : 10]; [0 : n : 2]; [a, b : c]; [0 : n][i];",
      "\"a\\\"b\\\\c\\n\"; `a; ` ; `\"; `%; \"%\";",
      "1.5; .5; 1.; 1.5e3; 1.5E-3; 1.0e20; 1.0e-20; 0.1; 123456789.0; 2.5e300;",
      "-2147483648; x - 2147483648; 2147483647;",
      "time(g(x)); @x; @(x ++ y);",
      "function f1(x) = x * x; function f2(a, b) : (int, int) -> int = a + b;",
      "function f3(a, b) : (a, b) -> (b, a) :: (a in number; b in any) = b, a;",
      "function f4(point(x, y)) = if x > y then x else y; function f5 x = x;",
      "function f6((a, b), c) = a; function f7(_, _) = 0;",
      "datatype point(float, float); datatype twin(a, a) :: (a in any); datatype p3((int, int), int);",
      "datatype p4(int, (int, int)); datatype tree(int, [tree]);",
      "(a, b) = (1, 2); point(x, y) = p; c, d = 1, 2; _ = 5;",
      "x == 5; y = 6 $ z $",
  };
  for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
    diag_reset();
    check_round_trip(programs[i]);
  }
}

/* ---- syntax errors ---- */

static void test_error_expected_expression(void **state) {
  (void)state;
  Program *p = parse_with_errors("x = 1 + ;");
  assert_int_equal(p->tops.len, 0);
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:1:9: error: syntax error: unexpected ';', expected an expression\n"
                               "  x = 1 + ;\n"
                               "          ^\n");
}

static void test_error_mismatched_bracket(void **state) {
  (void)state;
  Program *p = parse_with_errors("y = 0;\nx = (1,\n  2];");
  assert_int_equal(p->tops.len, 1);
  assert_int_equal(diag_count(), 1);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:3:4: error: syntax error: unexpected ']', expected ')'\n"));
  /* a note at the bracket that is still open */
  assert_non_null(strstr(d, "t.nesl:2:5: note: to match this '('\n"));
}

static void test_error_unclosed_bracket(void **state) {
  (void)state;
  parse_with_errors("[1, 2;");
  assert_int_equal(diag_count(), 1);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:1:6: error: syntax error: unexpected ';', expected ']' or ':'\n"));
  assert_non_null(strstr(d, "t.nesl:1:1: note: to match this '['\n"));
}

static void test_error_unexpected_end_of_file(void **state) {
  (void)state;
  Program *p = parse_with_errors("x = 1;\ny = 1 + 2");
  assert_int_equal(p->tops.len, 1);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:2:10: error: syntax error: unexpected end of file, expected '$' or "
                                  "';'\n"));
}

static void test_error_boolean_as_name(void **state) {
  (void)state;
  parse_with_errors("function f(x) = x;");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:10: error: syntax error: unexpected boolean, expected name "
                                  "(t and f are the booleans true and false in NESL, not names)\n"));
}

static void test_error_boolean_in_pattern(void **state) {
  (void)state;
  Program *p = parse_with_errors("t = 1;\nlet f = 2 in f;\n(a, T) = (1, 2);\n");
  assert_int_equal(p->tops.len, 0);
  assert_int_equal(diag_count(), 3);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:1:1: error: 't' is the constant true and cannot be used as a variable\n"));
  assert_non_null(strstr(d, "t.nesl:2:5: error: 'f' is the constant false and cannot be used as a "
                            "variable\n"));
  assert_non_null(strstr(d, "t.nesl:3:5: error: 't' is the constant true"));
}

static void test_error_not_a_pattern(void **state) {
  (void)state;
  Program *p = parse_with_errors("3 = 4;\n(a, b + 1) = (1, 2);\n");
  assert_int_equal(p->tops.len, 0);
  assert_int_equal(diag_count(), 2);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:1:1: error: expected a pattern (a name, '_', a tuple of patterns or a "
                            "constructor pattern), not '3'\n"));
  assert_non_null(strstr(d, "t.nesl:2:7: error: expected a pattern"));
}

static void test_error_unknown_type_class(void **state) {
  (void)state;
  Program *p = parse_with_errors("function g(x) : a -> a :: (a in numbr) = x;\nx = 1;\n");
  assert_int_equal(p->tops.len, 1);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:33: error: unknown type class 'numbr' (expected number, ordinal, "
                                  "logical or any)\n"));
}

static void test_error_keyword_as_name(void **state) {
  (void)state;
  parse_with_errors("let = 3;");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:5: error: syntax error: unexpected '='"));
}

static void test_error_missing_in(void **state) {
  (void)state;
  /* `1 a` reads as a juxtaposition; the error comes at the end, and a
     note shows where `in` was probably meant */
  parse_with_errors("let a = 1\n  a + 1;");
  assert_int_equal(diag_count(), 1);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:2:9: error: syntax error: unexpected end of file, expected 'in'"));
  assert_non_null(strstr(d, "t.nesl:2:3: note: this was read as an argument applied by juxtaposition to what "
                            "precedes it; is 'in' missing before it?"));
  diag_reset();
  /* in a generator */
  parse_with_errors("{x + 1 : x xs};");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:12: error: syntax error: a generator is 'pattern in sequence', and "
                                  "'in' is missing before 'xs' ('x xs' reads as applying x to xs by "
                                  "juxtaposition)"));
}

static void test_error_bar_without_generator(void **state) {
  (void)state;
  parse_with_errors("{x + 1 | x > 0};");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:8: error: syntax error: unexpected '|', expected ':' or 'in'"));
}

static void test_lexical_error_reported_once(void **state) {
  (void)state;
  /* the lexer reports it; the parser adds no syntax error */
  Program *p = parse_with_errors("x = 1 ? 2;\ny = 3;");
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:1:7: error: '?' is not a NESL token\n"
                               "  x = 1 ? 2;\n"
                               "        ^\n");
  assert_int_equal(p->tops.len, 1);
  assert_string_equal(sxp(top(p, 0)->pat), "y");
}

static void test_unterminated_string_in_program(void **state) {
  (void)state;
  Program *p = parse_with_errors("x = 1;\ny = \"abc;\nz = 2;\n");
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:2:5: error: unterminated string literal"));
  assert_int_equal(p->tops.len, 1);
}

static void test_recovery_two_independent_errors(void **state) {
  (void)state;
  Program *p = parse_with_errors("a = 1;\n"
                                 "b = 1 + * 2;\n"
                                 "c = 3;\n"
                                 "d = (4, ;\n"
                                 "e = 5 $\n");
  assert_int_equal(diag_count(), 2);
  const char *d = diags();
  const char *first = strstr(d, "t.nesl:2:9: error: syntax error: unexpected '*', expected an expression\n");
  const char *second = strstr(d, "t.nesl:4:9: error: syntax error: unexpected ';', expected an expression\n");
  assert_non_null(first);
  assert_non_null(second);
  assert_true(first < second);
  /* the statements with errors are left out, the others kept */
  assert_int_equal(p->tops.len, 3);
  assert_string_equal(sxp(top(p, 0)->pat), "a");
  assert_string_equal(sxp(top(p, 1)->pat), "c");
  assert_string_equal(sxp(top(p, 2)->pat), "e");
}

static void test_recovery_after_error_at_dollar(void **state) {
  (void)state;
  Program *p = parse_with_errors("1 + $ 2 $ ) $ 3;");
  assert_int_equal(diag_count(), 2);
  assert_int_equal(p->tops.len, 2);
  assert_string_equal(sx(top(p, 0)->body), "2");
  assert_string_equal(sx(top(p, 1)->body), "3");
}

static void test_token_names(void **state) {
  (void)state;
  /* as the parser's messages show them */
  assert_string_equal(parser_token_name('+'), "'+'");
  assert_string_equal(parser_token_name(';'), "';'");
  assert_string_equal(parser_token_name(TOK_NAME), "name");
  assert_string_equal(parser_token_name(TOK_INT), "integer");
  assert_string_equal(parser_token_name(TOK_FUNCTION), "'function'");
  assert_string_equal(parser_token_name(TOK_EQ), "'=='");
  assert_string_equal(parser_token_name(TOK_EOF), "end of file");
}

/* Was a bug: recovery resynchronized at any ';', including the ';' that
   separates the bindings of a let or the generators of an apply-to-each,
   so one mistake there gave a second, spurious error ("unexpected 'in',
   expected ';' or '$'" at 1:21 below). */
static void test_bug_recovery_inside_let(void **state) {
  (void)state;
  Program *p = parse_with_errors("x = let a = ; b = 2 in a;\ny = 3;\n");
  assert_int_equal(diag_count(), 1);
  assert_int_equal(p->tops.len, 1);
  diag_reset();
  parse_with_errors("{x : x in ; y in b};\n");
  assert_int_equal(diag_count(), 1);
}

/* parse_input_incomplete: the REPL reads another line when the input
   ends inside a statement, and only then. */
static bool incomplete(const char *text) {
  return parse_input_incomplete(source_from_string("<input 1>", text));
}

static void test_input_incomplete(void **state) {
  (void)state;
  /* inside a let's bindings, a function's body, brackets, if */
  assert_true(incomplete("function f2(n) =\n  let a = n + 1;"));
  assert_true(incomplete("function f2(n) =\n  let a = n + 1;\n      b = a * 2"));
  assert_true(incomplete("function g(x) ="));
  assert_true(incomplete("[1, 2,"));
  assert_true(incomplete("if x > 1 then 2"));
  assert_true(incomplete("x = 1; y ="));
  assert_true(incomplete("1 + 2"));
  /* inside a string, a comment, after a backquote */
  assert_true(incomplete("s = \"abc;"));
  assert_true(incomplete("% a comment; still open"));
  assert_true(incomplete("c = `"));
  /* whole statements, or nothing */
  assert_false(incomplete("function f2(n) =\n  let a = n + 1;\n      b = a * 2\n  in a + b;"));
  assert_false(incomplete("1 + 2;"));
  assert_false(incomplete("x = 1; y = 2 $"));
  assert_false(incomplete(""));
  assert_false(incomplete("% only a comment %"));
  /* an error before the end: complete (the REPL reports it) */
  assert_false(incomplete("1 + ) ;"));
  assert_false(incomplete("let a = in;"));
  assert_false(incomplete("x = 1 +; y ="));
  assert_false(incomplete("x = \x01; y ="));
  /* nothing was reported, and the count is as it was */
  assert_int_equal(diag_count(), 0);
  assert_string_equal(diags(), "");
  diag_error(no_loc, "one");
  assert_false(incomplete("1 + ) ;"));
  assert_true(incomplete("1 +"));
  assert_int_equal(diag_count(), 1);
}

/* Deeper than the parser's stack: its limit, not "memory exhausted". */
static void test_nesting_limit(void **state) {
  (void)state;
  Buf b = {0};
  buf_puts(&b, "x = ");
  for (int i = 0; i <= PARSER_MAX_DEPTH; i++)
    buf_putc(&b, '(');
  buf_putc(&b, '1');
  for (int i = 0; i <= PARSER_MAX_DEPTH; i++)
    buf_putc(&b, ')');
  buf_puts(&b, ";");
  parse_with_errors(buf_str(&b));
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "error: expression nested too deeply (limit 100000)\n"));
  assert_null(strstr(diags(), "memory exhausted"));
}

/* After 20 errors the lexer ends the input: the rest is not read. */
static void test_stops_after_too_many_errors(void **state) {
  (void)state;
  Buf b = {0};
  for (int i = 0; i < 1000; i++)
    buf_puts(&b, "x = ) ;\n");
  parse_with_errors(buf_str(&b));
  assert_int_equal(diag_count(), 21);
  assert_non_null(strstr(diags(), "t.nesl:20:5: error"));
  assert_null(strstr(diags(), "t.nesl:21:5: error"));
  assert_non_null(strstr(diags(), "too many errors"));
}

/* Tokens in messages are escaped and cut. */
static void test_tokens_quoted(void **state) {
  (void)state;
  Buf b = {0};
  buf_puts(&b, "x = ");
  for (int i = 0; i < 5000; i++)
    buf_putc(&b, '7');
  buf_puts(&b, ";\ny = __");
  for (int i = 0; i < 5000; i++)
    buf_putc(&b, 'a');
  buf_puts(&b, ";\n");
  parse_with_errors(buf_str(&b));
  assert_int_equal(diag_count(), 2);
  assert_non_null(strstr(diags(), "integer literal 7777777777777777777777777777777777777777... is too large"));
  assert_non_null(strstr(diags(), "'__aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': names beginning with '__' are reserved"));
  for (const char *line = diags(); *line;) {
    size_t n = strcspn(line, "\n");
    assert_true(n < 300);
    line += n + (line[n] != '\0');
  }
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_comma_operator),
      T(test_patterns_without_parentheses),
      T(test_juxtaposition),
      T(test_function_types),
      T(test_doc_strings_and_declarations),
      T(test_long_sequence_literal),
      T(test_input_incomplete),
      T(test_nesting_limit),
      T(test_stops_after_too_many_errors),
      T(test_tokens_quoted),
      T(test_arithmetic_precedence),
      T(test_power_and_unary_minus),
      T(test_subscript_binds_tighter_than_prefix),
      T(test_read_and_write),
      T(test_logical_and_comparison),
      T(test_tuples_nest_right),
      T(test_if_extends_right),
      T(test_literals),
      T(test_sequence_literals),
      T(test_if_inside_sequence_takes_the_rest),
      T(test_typed_empty_sequences),
      T(test_ranges),
      T(test_apply_to_each),
      T(test_bare_name_generators),
      T(test_filter_only),
      T(test_filter_only_several_generators),
      T(test_filter_only_rejects_wildcard),
      T(test_let),
      T(test_function_definitions),
      T(test_function_patterns),
      T(test_datatypes),
      T(test_top_level_bindings),
      T(test_terminators),
      T(test_empty_programs),
      T(test_case_insensitive_program),
      T(test_locations),
      T(test_print_expressions),
      T(test_print_program),
      T(test_round_trip),
      T(test_error_expected_expression),
      T(test_error_mismatched_bracket),
      T(test_error_unclosed_bracket),
      T(test_error_unexpected_end_of_file),
      T(test_error_boolean_as_name),
      T(test_error_boolean_in_pattern),
      T(test_error_not_a_pattern),
      T(test_error_unknown_type_class),
      T(test_error_keyword_as_name),
      T(test_error_missing_in),
      T(test_error_bar_without_generator),
      T(test_lexical_error_reported_once),
      T(test_unterminated_string_in_program),
      T(test_recovery_two_independent_errors),
      T(test_recovery_after_error_at_dollar),
      T(test_token_names),
      T(test_bug_recovery_inside_let),
#undef T
  };
  return cmocka_run_group_tests_name("parser", tests, NULL, NULL);
}
