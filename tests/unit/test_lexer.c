/*
 * test_lexer.c: unit tests for the NESL lexer (frontend/lexer.re).
 *
 * Each test lexes a string with lexer_next() until the end of the file and
 * checks the tokens, their values and their positions; errors are checked
 * through the diagnostics, which go to a memory stream instead of stderr.
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

int lexer_next(Lexer *lx, YYSTYPE *val, YYLTYPE *loc);

/* ---- diagnostics captured in memory ---- */


/* each test's diagnostics captured (capture.h) */
static int setup(void **state) { return capture_diag_setup(state); }
static int teardown(void **state) { return capture_diag_teardown(state); }

/* Everything reported so far. */
/* ---- lexing a whole string ---- */

typedef struct Tok {
  int kind;
  YYSTYPE val;
  int line, col;
} Tok;

enum { MAX_TOKS = 64 };

typedef struct Lexed {
  Tok toks[MAX_TOKS];
  int n;      /* tokens, the final TOK_EOF included */
  int errors; /* lx.errors at the end */
} Lexed;

/* Lexes 'text' up to TOK_EOF, remembering the previous token as the
   parser's yylex() does (the lexer reads it for `-2147483648`). */
static void lex_src(Lexed *out, const char *name, const char *text, bool library) {
  Source *src = source_from_string(name, text);
  Lexer lx;
  lexer_init(&lx, src, library);
  out->n = 0;
  for (;;) {
    assert_true(out->n < MAX_TOKS);
    Tok *t = &out->toks[out->n++];
    YYLTYPE loc = {0, 0, 0, 0};
    t->kind = lexer_next(&lx, &t->val, &loc);
    lx.last_token = t->kind;
    t->line = loc.first_line;
    t->col = loc.first_column;
    if (t->kind == TOK_EOF)
      break;
  }
  out->errors = lx.errors;
}

static void lex(Lexed *out, const char *text) { lex_src(out, "t.nesl", text, false); }

static void assert_kinds(const Lexed *l, const int *kinds, int n) {
  for (int i = 0; i < n && i < l->n; i++) {
    if (l->toks[i].kind != kinds[i])
      fail_msg("token %d: kind %d (%s), expected %d (%s)", i, l->toks[i].kind,
               parser_token_name(l->toks[i].kind), kinds[i], parser_token_name(kinds[i]));
  }
  assert_int_equal(l->n, n);
}

#define KINDS(l, ...)                                                       \
  do {                                                                      \
    static const int k_[] = {__VA_ARGS__};                                  \
    assert_kinds((l), k_, (int)(sizeof k_ / sizeof k_[0]));                 \
  } while (0)

static void assert_name(const Tok *t, const char *name) {
  assert_int_equal(t->kind, TOK_NAME);
  assert_string_equal(t->val.name, name);
}

static void assert_pos(const Tok *t, int line, int col) {
  assert_int_equal(t->line, line);
  assert_int_equal(t->col, col);
}

/* ---- names, keywords, booleans ---- */

static void test_names_are_case_folded(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "Foo FOO foo fOo_Bar9 x _y a_1_B");
  KINDS(&l, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_EOF);
  assert_name(&l.toks[0], "foo");
  assert_name(&l.toks[1], "foo");
  assert_name(&l.toks[2], "foo");
  assert_name(&l.toks[3], "foo_bar9");
  assert_name(&l.toks[4], "x");
  assert_name(&l.toks[5], "_y");
  assert_name(&l.toks[6], "a_1_b");
  assert_int_equal(diag_count(), 0);
}

static void test_keywords_in_any_case(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "LET let Let FUNCTION datatype DataType In IF then THEN Else TIME "
          "AND or Xor NAND nor");
  KINDS(&l, TOK_LET, TOK_LET, TOK_LET, TOK_FUNCTION, TOK_DATATYPE, TOK_DATATYPE, TOK_IN, TOK_IF,
        TOK_THEN, TOK_THEN, TOK_ELSE, TOK_TIME, TOK_AND, TOK_OR, TOK_XOR, TOK_NAND, TOK_NOR, TOK_EOF);
  assert_int_equal(diag_count(), 0);
}

static void test_keyword_prefixes_are_names(void **state) {
  (void)state;
  Lexed l;
  /* the longest match wins: these are names, not keywords and a name */
  lex(&l, "lets inx iff thenx elsewhere functions ta f1 tt");
  KINDS(&l, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME,
        TOK_EOF);
  assert_name(&l.toks[0], "lets");
  assert_name(&l.toks[1], "inx");
  assert_name(&l.toks[6], "ta");
  assert_name(&l.toks[7], "f1");
  assert_name(&l.toks[8], "tt");
}

static void test_class_names_are_plain_names(void **state) {
  (void)state;
  Lexed l;
  /* `a in number`: the class names are names to the lexer */
  lex(&l, "Number ordinal LOGICAL any int");
  KINDS(&l, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_EOF);
  assert_name(&l.toks[0], "number");
  assert_name(&l.toks[2], "logical");
}

static void test_booleans(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "t T f F");
  KINDS(&l, TOK_BOOL, TOK_BOOL, TOK_BOOL, TOK_BOOL, TOK_EOF);
  assert_true(l.toks[0].val.bval);
  assert_true(l.toks[1].val.bval);
  assert_false(l.toks[2].val.bval);
  assert_false(l.toks[3].val.bval);
}

static void test_underscore(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "_ _a a_");
  KINDS(&l, TOK_UNDERSCORE, TOK_NAME, TOK_NAME, TOK_EOF);
  assert_name(&l.toks[1], "_a");
  assert_name(&l.toks[2], "a_");
}

static void test_double_underscore_reserved(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x __add y");
  KINDS(&l, TOK_NAME, TOK_LEXERROR, TOK_NAME, TOK_EOF);
  assert_int_equal(l.errors, 1);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:3: error: '__add': names beginning with '__' are reserved for "
                                  "the basis library"));
}

static void test_double_underscore_in_library(void **state) {
  (void)state;
  Lexed l;
  lex_src(&l, "lib.nesl", "__Add __prim", true);
  KINDS(&l, TOK_NAME, TOK_NAME, TOK_EOF);
  assert_name(&l.toks[0], "__add");
  assert_name(&l.toks[1], "__prim");
  assert_int_equal(diag_count(), 0);
}

/* ---- numbers ---- */

static void test_ints(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "0 7 42 007 2147483647");
  KINDS(&l, TOK_INT, TOK_INT, TOK_INT, TOK_INT, TOK_INT, TOK_EOF);
  assert_int_equal(l.toks[0].val.ival, 0);
  assert_int_equal(l.toks[1].val.ival, 7);
  assert_int_equal(l.toks[2].val.ival, 42);
  assert_int_equal(l.toks[3].val.ival, 7);
  assert_int_equal(l.toks[4].val.ival, INT32_MAX);
  assert_int_equal(diag_count(), 0);
}

static void test_floats_in_every_form(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "1.5 .5 1. 1.5e3 1.5E-3 2.e2 .25e+1 0.0 3.14159");
  KINDS(&l, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT,
        TOK_FLOAT, TOK_EOF);
  assert_float_equal(l.toks[0].val.fval, 1.5, 0);
  assert_float_equal(l.toks[1].val.fval, 0.5, 0);
  assert_float_equal(l.toks[2].val.fval, 1.0, 0);
  assert_float_equal(l.toks[3].val.fval, 1500.0, 0);
  assert_float_equal(l.toks[4].val.fval, 1.5e-3, 0);
  assert_float_equal(l.toks[5].val.fval, 200.0, 0);
  assert_float_equal(l.toks[6].val.fval, 2.5, 0);
  assert_float_equal(l.toks[7].val.fval, 0.0, 0);
  assert_float_equal(l.toks[8].val.fval, 3.14159, 0);
  assert_int_equal(diag_count(), 0);
}

static void test_exponent_without_a_point(void **state) {
  (void)state;
  Lexed l;
  /* CMU NESL reads an e after digits as an exponent when a digit or a
     signed digit follows: 1e3, 2E5, 1e-3 and 3e+2 are floats */
  lex(&l, "1e3 2E5 1e-3 3e+2");
  KINDS(&l, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_FLOAT, TOK_EOF);
  assert_float_equal(l.toks[0].val.fval, 1000.0, 0);
  assert_float_equal(l.toks[1].val.fval, 200000.0, 0);
  assert_float_equal(l.toks[2].val.fval, 1e-3, 0);
  assert_float_equal(l.toks[3].val.fval, 300.0, 0);
  assert_pos(&l.toks[2], 1, 9);
  assert_int_equal(diag_count(), 0);
}

static void test_e_without_digits_is_a_name(void **state) {
  (void)state;
  Lexed l;
  /* no digit after the e: the int, then a name (2e, 1e-x, 4else) */
  lex(&l, "2e 1e-x 4else");
  KINDS(&l, TOK_INT, TOK_NAME, TOK_INT, TOK_NAME, '-', TOK_NAME, TOK_INT, TOK_ELSE, TOK_EOF);
  assert_int_equal(l.toks[0].val.ival, 2);
  assert_name(&l.toks[1], "e");
  assert_name(&l.toks[3], "e");
  assert_int_equal(diag_count(), 0);
}

static void test_incomplete_exponent(void **state) {
  (void)state;
  Lexed l;
  /* `1.5e` is the float 1.5 and the name e; `1.5e+` leaves a '+' */
  lex(&l, "1.5e 2.0e+");
  KINDS(&l, TOK_FLOAT, TOK_NAME, TOK_FLOAT, TOK_NAME, '+', TOK_EOF);
  assert_float_equal(l.toks[0].val.fval, 1.5, 0);
  assert_name(&l.toks[1], "e");
  assert_float_equal(l.toks[2].val.fval, 2.0, 0);
}

static void test_numbers_next_to_operators(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "[1:10:2] a[0] 1.5+2 x-1");
  KINDS(&l, '[', TOK_INT, ':', TOK_INT, ':', TOK_INT, ']', TOK_NAME, '[', TOK_INT, ']', TOK_FLOAT, '+',
        TOK_INT, TOK_NAME, '-', TOK_INT, TOK_EOF);
  assert_int_equal(l.toks[3].val.ival, 10);
  assert_float_equal(l.toks[11].val.fval, 1.5, 0);
}

static void test_int_too_large(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x = 2147483648;");
  KINDS(&l, TOK_NAME, '=', TOK_LEXERROR, ';', TOK_EOF);
  assert_int_equal(l.errors, 1);
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:1:5: error: integer literal 2147483648 is too large for a 32-bit int "
                               "(max_int is 2147483647)\n"
                               "  x = 2147483648;\n"
                               "      ^\n");
}

static void test_int_far_too_large(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "99999999999999999999999 1");
  KINDS(&l, TOK_LEXERROR, TOK_INT, TOK_EOF);
  assert_int_equal(l.toks[1].val.ival, 1);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:1: error: integer literal 99999999999999999999999 is too large"));
}

static void test_min_int_after_minus(void **state) {
  (void)state;
  Lexed l;
  /* 2147483648 is accepted right after '-', as INT32_MIN */
  lex(&l, "-2147483648 - 2147483648");
  KINDS(&l, '-', TOK_INT, '-', TOK_INT, TOK_EOF);
  assert_int_equal(l.toks[1].val.ival, INT32_MIN);
  assert_int_equal(l.toks[3].val.ival, INT32_MIN);
  assert_int_equal(diag_count(), 0);
  /* but nothing larger */
  Lexed m;
  lex(&m, "-2147483649");
  KINDS(&m, '-', TOK_LEXERROR, TOK_EOF);
  assert_int_equal(diag_count(), 1);
}

static void test_float_too_large(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "1.0e400 2.5");
  KINDS(&l, TOK_LEXERROR, TOK_FLOAT, TOK_EOF);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:1: error: float literal 1.0e400 is too large"));
}

/* ---- characters and strings ---- */

static void test_chars(void **state) {
  (void)state;
  Lexed l;
  /* `a, `A (case kept), `  (a space), `` (a backquote), `% (not a comment),
     `" (not a string) */
  lex(&l, "`a `A ` `` `% `\"");
  KINDS(&l, TOK_CHAR, TOK_CHAR, TOK_CHAR, TOK_CHAR, TOK_CHAR, TOK_CHAR, TOK_EOF);
  assert_int_equal(l.toks[0].val.cval, 'a');
  assert_int_equal(l.toks[1].val.cval, 'A');
  assert_int_equal(l.toks[2].val.cval, ' ');
  assert_int_equal(l.toks[3].val.cval, '`');
  assert_int_equal(l.toks[4].val.cval, '%');
  assert_int_equal(l.toks[5].val.cval, '"');
  assert_pos(&l.toks[2], 1, 7);
  assert_pos(&l.toks[3], 1, 9);
  assert_int_equal(diag_count(), 0);
}

static void test_chars_adjacent(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "[`a,`b]");
  KINDS(&l, '[', TOK_CHAR, ',', TOK_CHAR, ']', TOK_EOF);
  assert_int_equal(l.toks[1].val.cval, 'a');
  assert_int_equal(l.toks[3].val.cval, 'b');
}

static void test_char_newline_counts_a_line(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "`\nx");
  KINDS(&l, TOK_CHAR, TOK_NAME, TOK_EOF);
  assert_int_equal(l.toks[0].val.cval, '\n');
  assert_pos(&l.toks[1], 2, 1);
}

static void test_backquote_at_end_of_file(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x `");
  KINDS(&l, TOK_NAME, TOK_LEXERROR, TOK_EOF);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:3: error: a character literal needs a character after '`'"));
}

static void test_strings(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "\"hello\" \"\" \"AbC\" \"a%b\"");
  KINDS(&l, TOK_STRING, TOK_STRING, TOK_STRING, TOK_STRING, TOK_EOF);
  assert_string_equal(l.toks[0].val.str.chars, "hello");
  assert_int_equal(l.toks[0].val.str.len, 5);
  assert_string_equal(l.toks[1].val.str.chars, "");
  assert_int_equal(l.toks[1].val.str.len, 0);
  assert_string_equal(l.toks[2].val.str.chars, "AbC");
  assert_string_equal(l.toks[3].val.str.chars, "a%b");
  assert_pos(&l.toks[1], 1, 9);
  assert_pos(&l.toks[3], 1, 18);
}

static void test_string_escapes(void **state) {
  (void)state;
  Lexed l;
  /* "a\"b"  "c\\d"  "e\nf" (\n is no escape: a backslash takes the
     next character as it is, as CMU NESL's reader does: "enf")  "\\\"" */
  lex(&l, "\"a\\\"b\" \"c\\\\d\" \"e\\nf\" \"\\\\\\\"\"");
  KINDS(&l, TOK_STRING, TOK_STRING, TOK_STRING, TOK_STRING, TOK_EOF);
  assert_string_equal(l.toks[0].val.str.chars, "a\"b");
  assert_int_equal(l.toks[0].val.str.len, 3);
  assert_string_equal(l.toks[1].val.str.chars, "c\\d");
  assert_int_equal(l.toks[1].val.str.len, 3);
  assert_string_equal(l.toks[2].val.str.chars, "enf");
  assert_int_equal(l.toks[2].val.str.len, 3);
  assert_string_equal(l.toks[3].val.str.chars, "\\\"");
  assert_int_equal(l.toks[3].val.str.len, 2);
  assert_int_equal(diag_count(), 0);
}

static void test_string_across_lines(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "\"ab\ncd\" x");
  KINDS(&l, TOK_STRING, TOK_NAME, TOK_EOF);
  assert_string_equal(l.toks[0].val.str.chars, "ab\ncd");
  assert_pos(&l.toks[0], 1, 1);
  assert_pos(&l.toks[1], 2, 5);
}

static void test_unterminated_string(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x = 1;\ns = \"abc\ndef");
  KINDS(&l, TOK_NAME, '=', TOK_INT, ';', TOK_NAME, '=', TOK_LEXERROR, TOK_EOF);
  assert_pos(&l.toks[6], 2, 5);
  assert_int_equal(l.errors, 1);
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:2:5: error: unterminated string literal: no closing '\"' before the "
                               "end of the file\n"
                               "  s = \"abc\n"
                               "      ^\n");
}

static void test_string_ending_in_backslash_quote(void **state) {
  (void)state;
  Lexed l;
  /* "ab\" : the quote is escaped, so the string never ends */
  lex(&l, "\"ab\\\"");
  KINDS(&l, TOK_LEXERROR, TOK_EOF);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:1: error: unterminated string literal"));
}

/* ---- comments and white space ---- */

static void test_comments(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "1 % a comment % 2 %% 3");
  KINDS(&l, TOK_INT, TOK_INT, TOK_INT, TOK_EOF);
  assert_int_equal(l.toks[1].val.ival, 2);
  assert_pos(&l.toks[1], 1, 17);
  assert_int_equal(l.toks[2].val.ival, 3);
  assert_pos(&l.toks[2], 1, 22);
}

static void test_comment_spanning_lines(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "a % first line\nsecond line\n  third % b\n  c");
  KINDS(&l, TOK_NAME, TOK_NAME, TOK_NAME, TOK_EOF);
  assert_name(&l.toks[0], "a");
  assert_pos(&l.toks[0], 1, 1);
  assert_name(&l.toks[1], "b");
  assert_pos(&l.toks[1], 3, 11);
  assert_name(&l.toks[2], "c");
  assert_pos(&l.toks[2], 4, 3);
  assert_int_equal(diag_count(), 0);
}

static void test_comment_hides_tokens(void **state) {
  (void)state;
  Lexed l;
  /* nothing inside a comment is lexed: no error for '?', no string */
  lex(&l, "x % ? \" ` %");
  KINDS(&l, TOK_NAME, TOK_EOF);
  assert_int_equal(diag_count(), 0);
}

static void test_unterminated_comment(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x = 1;\n  y % no end\nz;");
  KINDS(&l, TOK_NAME, '=', TOK_INT, ';', TOK_NAME, TOK_LEXERROR, TOK_EOF);
  assert_pos(&l.toks[5], 2, 5);
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:2:5: error: unterminated comment: no closing '%' before the end of "
                               "the file\n"
                               "    y % no end\n"
                               "      ^\n");
}

static void test_empty_and_blank_inputs(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "");
  KINDS(&l, TOK_EOF);
  lex(&l, " \t\r\n\f\v ");
  KINDS(&l, TOK_EOF);
  lex(&l, "% only a comment %\n");
  KINDS(&l, TOK_EOF);
  assert_int_equal(diag_count(), 0);
}

static void test_eof_is_sticky(void **state) {
  (void)state;
  Source *src = source_from_string("t.nesl", "x");
  Lexer lx;
  lexer_init(&lx, src, false);
  YYSTYPE v;
  YYLTYPE loc;
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_NAME);
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_EOF);
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_EOF);
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_EOF);
}

/* ---- operators and punctuation ---- */

static void test_multi_char_operators(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "== /= <= >= <- -> ++ || ::");
  KINDS(&l, TOK_EQ, TOK_NE, TOK_LE, TOK_GE, TOK_LARROW, TOK_RARROW, TOK_APPEND, TOK_PAD, TOK_DCOLON,
        TOK_EOF);
  assert_pos(&l.toks[8], 1, 25);
}

static void test_single_char_tokens(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "< > + - * / ^ # @ = , ; $ : | ( ) [ ] { }");
  KINDS(&l, '<', '>', '+', '-', '*', '/', '^', '#', '@', '=', ',', ';', '$', ':', '|', '(', ')', '[', ']',
        '{', '}', TOK_EOF);
  assert_int_equal(diag_count(), 0);
}

static void test_operators_without_spaces(void **state) {
  (void)state;
  Lexed l;
  /* maximal munch: a<-b, a<=b, a< -b, x->i, v++w, :::, ===, a+-b */
  lex(&l, "a<-b a<=b a< -b x->i v++w ::: === a+-b");
  KINDS(&l, TOK_NAME, TOK_LARROW, TOK_NAME,       /* a<-b */
        TOK_NAME, TOK_LE, TOK_NAME,               /* a<=b */
        TOK_NAME, '<', '-', TOK_NAME,             /* a< -b */
        TOK_NAME, TOK_RARROW, TOK_NAME,           /* x->i */
        TOK_NAME, TOK_APPEND, TOK_NAME,           /* v++w */
        TOK_DCOLON, ':',                          /* ::: */
        TOK_EQ, '=',                              /* === */
        TOK_NAME, '+', '-', TOK_NAME,             /* a+-b */
        TOK_EOF);
}

/* ---- positions ---- */

static void test_line_and_column_tracking(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "function f1(x) =\n"
          "  x + 1;\n"
          "\n"
          "\ty == 2.5 $\n");
  KINDS(&l, TOK_FUNCTION, TOK_NAME, '(', TOK_NAME, ')', '=', TOK_NAME, '+', TOK_INT, ';', TOK_NAME, TOK_EQ,
        TOK_FLOAT, '$', TOK_EOF);
  assert_pos(&l.toks[0], 1, 1);
  assert_pos(&l.toks[1], 1, 10);
  assert_pos(&l.toks[2], 1, 12);
  assert_pos(&l.toks[5], 1, 16);
  assert_pos(&l.toks[6], 2, 3);
  assert_pos(&l.toks[7], 2, 5);
  assert_pos(&l.toks[8], 2, 7);
  assert_pos(&l.toks[9], 2, 8);
  /* a tab is one column */
  assert_pos(&l.toks[10], 4, 2);
  assert_pos(&l.toks[11], 4, 4);
  assert_pos(&l.toks[12], 4, 7);
  assert_pos(&l.toks[13], 4, 11);
}

static void test_crlf_line_endings(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "a;\r\nb;\r\n  c");
  KINDS(&l, TOK_NAME, ';', TOK_NAME, ';', TOK_NAME, TOK_EOF);
  assert_pos(&l.toks[2], 2, 1);
  assert_pos(&l.toks[4], 3, 3);
}

/* ---- errors ---- */

static void test_bad_character(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "a ? b");
  KINDS(&l, TOK_NAME, TOK_LEXERROR, TOK_NAME, TOK_EOF);
  assert_pos(&l.toks[1], 1, 3);
  assert_name(&l.toks[2], "b");
  assert_int_equal(l.errors, 1);
  assert_int_equal(diag_count(), 1);
  assert_string_equal(diags(), "t.nesl:1:3: error: '?' is not a NESL token\n"
                               "  a ? b\n"
                               "    ^\n");
}

static void test_bad_characters_each_reported(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "x\n  ! y . z \x01");
  KINDS(&l, TOK_NAME, TOK_LEXERROR, TOK_NAME, TOK_LEXERROR, TOK_NAME, TOK_LEXERROR, TOK_EOF);
  assert_int_equal(l.errors, 3);
  assert_int_equal(diag_count(), 3);
  const char *d = diags();
  assert_non_null(strstr(d, "t.nesl:2:3: error: '!' is not a NESL token\n"));
  assert_non_null(strstr(d, "t.nesl:2:7: error: '.' is not a NESL token\n"));
  assert_non_null(strstr(d, "t.nesl:2:11: error: byte 0x01 is not a NESL token\n"));
}

static void test_nul_byte_inside_the_source(void **state) {
  (void)state;
  /* a NUL before the end is a bad byte, not the end of the file */
  static const char text[] = "a\0b";
  Source src = {.name = "t.nesl", .text = text, .len = 3};
  Lexer lx;
  lexer_init(&lx, &src, false);
  YYSTYPE v;
  YYLTYPE loc;
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_NAME);
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_LEXERROR);
  assert_int_equal(loc.first_column, 2);
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_NAME);
  assert_string_equal(v.name, "b");
  assert_int_equal(lexer_next(&lx, &v, &loc), TOK_EOF);
  assert_int_equal(diag_count(), 1);
  assert_non_null(strstr(diags(), "t.nesl:1:2: error: byte 0x00 is not a NESL token"));
}

static void test_caret_follows_tabs(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "\tx\t?");
  KINDS(&l, TOK_NAME, TOK_LEXERROR, TOK_EOF);
  assert_pos(&l.toks[1], 1, 4);
  /* the tabs before the column are copied, so the caret lines up */
  assert_string_equal(diags(), "t.nesl:1:4: error: '?' is not a NESL token\n"
                               "  \tx\t?\n"
                               "  \t \t^\n");
}

static void test_diag_reset_between_sources(void **state) {
  (void)state;
  Lexed l;
  lex(&l, "?");
  assert_int_equal(diag_count(), 1);
  diag_reset();
  assert_int_equal(diag_count(), 0);
  lex(&l, "ok");
  assert_int_equal(diag_count(), 0);
  assert_int_equal(l.errors, 0);
}

int main(void) {
  GC_INIT();
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_names_are_case_folded),
      T(test_keywords_in_any_case),
      T(test_keyword_prefixes_are_names),
      T(test_class_names_are_plain_names),
      T(test_booleans),
      T(test_underscore),
      T(test_double_underscore_reserved),
      T(test_double_underscore_in_library),
      T(test_ints),
      T(test_floats_in_every_form),
      T(test_exponent_without_a_point),
      T(test_e_without_digits_is_a_name),
      T(test_incomplete_exponent),
      T(test_numbers_next_to_operators),
      T(test_int_too_large),
      T(test_int_far_too_large),
      T(test_min_int_after_minus),
      T(test_float_too_large),
      T(test_chars),
      T(test_chars_adjacent),
      T(test_char_newline_counts_a_line),
      T(test_backquote_at_end_of_file),
      T(test_strings),
      T(test_string_escapes),
      T(test_string_across_lines),
      T(test_unterminated_string),
      T(test_string_ending_in_backslash_quote),
      T(test_comments),
      T(test_comment_spanning_lines),
      T(test_comment_hides_tokens),
      T(test_unterminated_comment),
      T(test_empty_and_blank_inputs),
      T(test_eof_is_sticky),
      T(test_multi_char_operators),
      T(test_single_char_tokens),
      T(test_operators_without_spaces),
      T(test_line_and_column_tracking),
      T(test_crlf_line_endings),
      T(test_bad_character),
      T(test_bad_characters_each_reported),
      T(test_nul_byte_inside_the_source),
      T(test_caret_follows_tabs),
      T(test_diag_reset_between_sources),
#undef T
  };
  return cmocka_run_group_tests_name("lexer", tests, NULL, NULL);
}
