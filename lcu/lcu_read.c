/*
 * lcu_read.c: λcu from its printed form (`--dump=lcu`), so that tests of
 * the passes after lowering (fusion, code generation) can start from
 * hand-written λcu: as QBE, the dump is the syntax the reader reads, and
 * print(read(print(p))) == print(p) for every program lowering makes
 * (tests/run.sh checks it on the corpus and tests/lcu/golden).
 *
 * The grammar, by what lcu_print.c writes (docs/lcu.md has it whole):
 *
 *   program  := ['source' STRING] { kernel | function | statement }
 *   kernel   := 'kernel' NAME '(' binders ')' '->' types '{' { 'let' results '=' soac } 'return' names '}'
 *   function := 'function' NAME '(' binders ')' '->' types ['from' NAME] ['library'] [LOC] '{' block '}'
 *   statement:= 'nesl' STRING [':' ...to the end of the line] ['top' [LOC] ['->' '(' binders ')'] '{' block '}']
 *   block    := { [ 'let' results '=' ] cpu [LOC | 'from' NAME LOC] } 'return' atoms
 *   LOC      := '@' LINE ':' COL | '@' STRING ':' LINE ':' COL | '@-'
 *
 * Names carry their variable's id (xs_12, x7), which the reader keeps
 * when it can; other names (hand-written `xs`) get fresh ids.  Types are
 * written on every binder but the thunks' parameters and lets, whose
 * types follow from their SOAC and values.  A NESL statement is
 * parsed and type-checked by the front end, through the hooks the caller
 * gives (flat.h's FlatNeslReader: λcu sees no front end), which describe
 * the top-level statement, its type and its transcript; so are the NESL
 * types of the operations on whole values; a kernel, function or top reads variables in
 * scope (a function may read globals that a later top defines).
 *
 * Malformed input is reported as `file:line:col: error: ...` (diag) at
 * the first problem, and lcu_read returns NULL; it never crashes.  What
 * the reader accepts it builds through build.c; that it is well-typed is
 * lcu_check's business (`--check-ir`).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/syntax.h"
#include "../flat/flat.h"
#include "lcu.h"

/* An expression's location before the reader knows it: that of what
   encloses it (its parent, its SOAC), set when the thunk is done. */
static const Source unset_source = {.name = "(unset)", .text = ""};
static const Loc unset = {.src = &unset_source};

typedef struct Scoped {
  const char *name;
  LcuVar *var;
} Scoped;

typedef struct FuncUse {
  LcuFunc *f;
  size_t at;
} FuncUse;

/* A function's declared result types, checked against its body's once
   every top is read: a global the body returns may be defined by a
   later top (a redefinition that the function reads), its type known
   only there. */
typedef struct ResultCheck {
  LcuFunc *f;
  Vec types; /* LcuType * */
  size_t at;
} ResultCheck;

typedef struct Reader {
  const Source *src;
  const char *text;
  size_t pos;      /* the next character */
  size_t tok;      /* where the token being read starts, for messages */
  jmp_buf fail;
  LcuProgram *p;
  const FlatNeslReader *nesl; /* the front end's side */
  const Source *main;   /* what @line:col refers to */
  Map sources;          /* name -> Source * for @"name":line:col */
  Vec scope;            /* Scoped *: variables in scope, innermost last */
  Map globals;          /* name -> LcuVar *: defined, or read before */
  Map global_use;       /* name -> offset of a read before the definition */
  Map defined;          /* name -> non-NULL: a global a top has defined */
  Map kernels;          /* name -> LcuKernel * */
  Map funcs;            /* name -> LcuFunc * (called, or defined) */
  Vec func_uses;        /* FuncUse *: the first call of each function */
  Vec result_checks;    /* ResultCheck *: each function's, at the end */
  Map func_defined;
  Vec funcs_in_order;   /* LcuFunc *, as defined */
  Vec vars;             /* every LcuVar made, for the ids */
  FlatProgram flat;     /* for the globals' FlatVars */
  size_t seen;          /* loc_at's last offset, and its line and column */
  int seen_line, seen_col;
  int depth;            /* of nested expressions and blocks */
  Vec nesl_library;     /* of each `nesl` statement, parsed before the
                           rest (prescan): non-NULL for `nesl library` */
  int next_nesl;        /* the next to check */
} Reader;

/* Nesting deeper than this is refused rather than allowed to exhaust
   the stack (the printer never nests so deep). */
enum { MAX_DEPTH = 10000 };

/* ---- errors and positions ---- */

/* The line and column of 'offset', counted on from the last offset
   asked for when it is further (SOACs ask in order). */
static Loc loc_at(Reader *r, size_t offset) {
  if (offset < r->seen) {
    r->seen = 0;
    r->seen_line = r->seen_col = 1;
  }
  for (; r->seen < offset && r->text[r->seen]; r->seen++) {
    if (r->text[r->seen] == '\n') {
      r->seen_line++;
      r->seen_col = 1;
    } else {
      r->seen_col++;
    }
  }
  return (Loc){.src = r->src, .line = r->seen_line, .col = r->seen_col};
}

_Noreturn __attribute__((format(printf, 3, 4))) static void fail_at(Reader *r, size_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc_at(r, offset), fmt, ap);
  va_end(ap);
  longjmp(r->fail, 1);
}

#define fail(r, ...) fail_at(r, (r)->tok, __VA_ARGS__)

/* ---- characters and tokens ---- */

static char cur(Reader *r) { return r->text[r->pos]; }

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '^' || c == '\''; }

/* Skips blanks and comments: a comment runs from '%' to the last '%' on
   its line, or, with none after it there, to the next '%' (NESL's
   comments, and the dump's `% msg = "50% off" %`). */
static void skip(Reader *r) {
  for (;;) {
    char c = cur(r);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      r->pos++;
      continue;
    }
    if (c != '%')
      break;
    size_t start = r->pos++;
    size_t last = 0;
    for (size_t i = r->pos; r->text[i] && r->text[i] != '\n'; i++)
      if (r->text[i] == '%')
        last = i;
    if (!last) {
      const char *end = strchr(r->text + r->pos, '%');
      if (!end) {
        r->tok = start;
        fail(r, "a comment that does not end");
      }
      last = (size_t)(end - r->text);
    }
    r->pos = last + 1;
  }
  r->tok = r->pos;
}

/* The next character after blanks, not consumed. */
static char peek(Reader *r) {
  skip(r);
  return cur(r);
}

/* Consumes 'word' if it comes next (a keyword or a name must not go on
   with a name's characters). */
static bool accept(Reader *r, const char *word) {
  skip(r);
  size_t n = strlen(word);
  if (strncmp(r->text + r->pos, word, n) != 0)
    return false;
  if (ident_char(word[n - 1]) && ident_char(r->text[r->pos + n]))
    return false;
  r->pos += n;
  return true;
}

static void expect(Reader *r, const char *word) {
  if (!accept(r, word))
    fail(r, "expected '%s'", word);
}

/* A quoted string with the escapes of lcu_print.c's print_quoted. */
static char *string_literal(Reader *r, size_t *len) {
  skip(r);
  if (cur(r) != '"')
    fail(r, "expected a string");
  r->pos++;
  Buf b = {0};
  size_t n = 0;
  for (;;) {
    char c = cur(r);
    if (!c || c == '\n')
      fail(r, "a string that does not end on its line");
    r->pos++;
    if (c == '"')
      break;
    if (c == '\\') {
      char e = cur(r);
      r->pos++;
      if (e == 'n')
        c = '\n';
      else if (e == 't')
        c = '\t';
      else if (e == '"' || e == '\\')
        c = e;
      else if (e == 'x' && isxdigit((unsigned char)cur(r)) && isxdigit((unsigned char)r->text[r->pos + 1])) {
        char hex[3] = {cur(r), r->text[r->pos + 1], 0};
        c = (char)strtol(hex, NULL, 16);
        r->pos += 2;
      } else {
        fail(r, "an unknown escape in a string");
      }
    }
    buf_putc(&b, c);
    n++;
  }
  if (len)
    *len = n;
  return n ? buf_str(&b) : xstrdup("");
}

/* A name: letters, digits, _ ^ ' (not first: a digit), or quoted. */
static const char *name(Reader *r) {
  skip(r);
  if (cur(r) == '"')
    return intern(string_literal(r, NULL));
  if (!ident_start(cur(r)))
    fail(r, "expected a name");
  size_t start = r->pos;
  while (ident_char(cur(r)))
    r->pos++;
  return intern(xstrndup(r->text + start, r->pos - start));
}

/* A name comes next (not a keyword the caller checks for itself). */
static bool at_name(Reader *r) {
  char c = peek(r);
  return ident_start(c) || c == '"';
}

static int64_t integer(Reader *r) {
  skip(r);
  if (!isdigit((unsigned char)cur(r)))
    fail(r, "expected a number");
  errno = 0;
  char *end;
  long long v = strtoll(r->text + r->pos, &end, 10);
  if (errno || v > INT32_MAX)
    fail(r, "a number out of range");
  r->pos = (size_t)(end - r->text);
  return v;
}

/* ---- locations ---- */

static const Source *source_named(Reader *r, const char *file) {
  Source *s = map_get(&r->sources, file);
  if (!s) {
    s = source_fragment(file, "");
    map_put(&r->sources, file, s);
  }
  return s;
}

/* @line:col, @"file":line:col, @- (none); after the '@'. */
static Loc location(Reader *r) {
  if (cur(r) == '-') {
    r->pos++;
    return no_loc;
  }
  const Source *s = r->main;
  if (cur(r) == '"') {
    s = source_named(r, string_literal(r, NULL));
    if (cur(r) != ':')
      fail(r, "expected ':' after the file of a location");
    r->pos++;
  }
  if (!isdigit((unsigned char)cur(r)))
    fail(r, "expected a line number after '@'");
  int line = (int)integer(r);
  if (cur(r) != ':')
    fail(r, "expected ':' between a location's line and column");
  r->pos++;
  if (!isdigit((unsigned char)cur(r)))
    fail(r, "expected a column number");
  int col = (int)integer(r);
  return (Loc){.src = s, .line = line, .col = col};
}

/* An optional ` @LOC`; 'none' if absent. */
static Loc opt_location(Reader *r, Loc none) {
  if (peek(r) != '@')
    return none;
  r->pos++;
  return location(r);
}

/* ---- types and variables ---- */

static LcuType lcu_type(Reader *r) {
  static const char *const bases[] = {"int", "float", "bool", "char"};
  if (accept(r, "sd"))
    return lcu_segdes();
  bool vec = accept(r, "[");
  for (int b = 0; b < 4; b++)
    if (accept(r, bases[b])) {
      if (vec)
        expect(r, "]");
      return vec ? lcu_vec((FlatBase)b) : lcu_scalar((FlatBase)b);
    }
  fail(r, "expected a λcu type (int, float, bool, char, [int], ..., sd)");
}

/* The id a name carries: xs_12 -> 12, x7 -> 7; -1 if none. */
static int id_of(const char *n) {
  size_t len = strlen(n), d = len;
  while (d > 0 && isdigit((unsigned char)n[d - 1]))
    d--;
  if (d == len || len - d > 9 || (d > 0 && n[d - 1] != '_' && !(d == 1 && n[0] == 'x')))
    return -1;
  return atoi(n + d);
}

/* A new variable 'n' of type 't' (its id is given at the end). */
static LcuVar *new_var(Reader *r, const char *n, LcuType t) {
  LcuVar *v = NEW(LcuVar);
  v->id = -1;
  v->name = n;
  v->type = t;
  vec_push(&r->vars, v);
  return v;
}

static void bind(Reader *r, const char *n, LcuVar *v) {
  Scoped *b = NEW(Scoped);
  b->name = n;
  b->var = v;
  vec_push(&r->scope, b);
}

static LcuVar *lookup(Reader *r, const char *n) {
  for (int i = r->scope.len - 1; i >= 0; i--) {
    Scoped *b = r->scope.data[i];
    if (b->name == n)
      return b->var;
  }
  return NULL;
}

/* A variable in scope, or (at the CPU level, 'globals') a global, maybe
   defined by a later top-level statement. */
static LcuVar *use(Reader *r, bool globals) {
  size_t at = (skip(r), r->tok);
  const char *n = name(r);
  LcuVar *v = lookup(r, n);
  if (v)
    return v;
  if (!globals) {
    r->tok = at;
    fail(r, "'%s' is not a variable in scope", n);
  }
  v = map_get(&r->globals, n);
  if (!v) {
    v = new_var(r, n, lcu_scalar(FB_INT)); /* its type: when defined */
    map_put(&r->globals, n, v);
    map_put(&r->global_use, n, (void *)(uintptr_t)(at + 1));
    vec_push(&r->p->globals, v);
  }
  return v;
}

/* NAME ':' TYPE ['#' SHAPE] ['in' SEGDES] ('in' for a function's
   parameters, 'function_param'), bound in the current scope. */
static LcuVar *binder(Reader *r, bool function_param) {
  const char *n = name(r);
  expect(r, ":");
  LcuVar *v = new_var(r, n, lcu_type(r));
  if (accept(r, "#"))
    v->shape = (int)integer(r);
  if (function_param && accept(r, "in")) {
    size_t at = (skip(r), r->tok);
    v->within = use(r, false);
    if (v->within->type.kind != LT_SEGDES) {
      r->tok = at;
      fail(r, "'%s' is not a segment descriptor", v->within->name);
    }
  }
  bind(r, n, v);
  return v;
}

/* '(' [binder {',' binder}] ')' into 'out'. */
static void binders(Reader *r, Vec *out, bool function_params) {
  expect(r, "(");
  if (!accept(r, ")")) {
    do
      vec_push(out, binder(r, function_params));
    while (accept(r, ","));
    expect(r, ")");
  }
}

/* binder or '(' binders ')' (a `let`'s results) */
static void results(Reader *r, Vec *out) {
  if (peek(r) == '(')
    binders(r, out, false);
  else
    vec_push(out, binder(r, false));
}

/* TYPE or '(' types ')': what a kernel or function returns, which its
   results determine; read and compared. */
static void result_types(Reader *r, Vec *out) {
  bool many = accept(r, "(");
  if (many && accept(r, ")"))
    return;
  do {
    LcuType *t = NEW(LcuType);
    *t = lcu_type(r);
    vec_push(out, t);
  } while (many && accept(r, ","));
  if (many)
    expect(r, ")");
}

/* ---- constants ---- */

/* An int or float literal, '-' already read when 'negative'. */
static FlatAtom number(Reader *r, bool negative) {
  skip(r);
  const char *s = r->text + r->pos;
  size_t n = 0;
  bool is_float = false;
  while (isdigit((unsigned char)s[n]))
    n++;
  if (!n)
    fail(r, "expected a number");
  if (s[n] == '.' && isdigit((unsigned char)s[n + 1])) {
    is_float = true;
    n++;
    while (isdigit((unsigned char)s[n]))
      n++;
  }
  if ((s[n] == 'e' || s[n] == 'E') &&
      (isdigit((unsigned char)s[n + 1]) || ((s[n + 1] == '-' || s[n + 1] == '+') && isdigit((unsigned char)s[n + 2])))) {
    is_float = true;
    n += 2;
    while (isdigit((unsigned char)s[n]))
      n++;
  }
  char *text = xstrndup(s, n);
  r->pos += n;
  if (is_float) {
    double f = strtod(text, NULL);
    if (!isfinite(f))
      fail(r, "a float constant out of range");
    return lcu_float_const(negative ? -f : f);
  }
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno || v > (long long)INT32_MAX + (negative ? 1 : 0))
    fail(r, "an int constant out of range");
  return lcu_int_const((int32_t)(negative ? -v : v));
}

/* A constant if one comes next: 12, -1.5, T, F, `c, code_char(10). */
static bool constant(Reader *r, FlatAtom *out) {
  char c = peek(r);
  if (isdigit((unsigned char)c)) {
    *out = number(r, false);
    return true;
  }
  if (c == '-' && isdigit((unsigned char)r->text[r->pos + 1])) {
    size_t save = r->pos++;
    *out = number(r, true);
    if (out->kind == FA_INT && out->u.i == 0) { /* -0: the negation of 0, not a constant */
      r->pos = save;
      return false;
    }
    return true;
  }
  if (c == '`') {
    if (!r->text[r->pos + 1] || r->text[r->pos + 1] == '\n')
      fail(r, "a character constant without its character");
    *out = lcu_char_const(r->text[r->pos + 1]);
    r->pos += 2;
    return true;
  }
  if (accept(r, "T") || accept(r, "F")) {
    *out = lcu_bool_const(r->text[r->pos - 1] == 'T');
    return true;
  }
  /* code_char(10): a character the printer does not show as `c (one
     it does is code_char applied to a constant) */
  if (strncmp(r->text + r->pos, "code_char(", 10) == 0 && isdigit((unsigned char)r->text[r->pos + 10])) {
    size_t save = r->pos;
    r->pos += 10;
    int64_t code = integer(r);
    if (code > 255 || isprint((int)code) || !accept(r, ")")) {
      r->pos = save;
      return false;
    }
    *out = lcu_char_const((char)code);
    return true;
  }
  return false;
}

/* ---- thunk expressions ---- */

/* The flat operation named 'n' among the element-wise ones, or -1. */
static int elementwise_op(const char *n) {
  for (int op = 0; op <= FLAT_COPY; op++)
    if (strcmp(flat_op_name((FlatOp)op), n) == 0)
      return op;
  return -1;
}

/* The binary operator spelled next, if any: its flat op and power. */
typedef struct Infix {
  const char *text;
  FlatOp op;
} Infix;

static const Infix infixes[] = {
    /* longest first where one spelling begins another */
    {"==", FLAT_EQ}, {"/=", FLAT_NE}, {"<=", FLAT_LE}, {">=", FLAT_GE}, {"<", FLAT_LT},   {">", FLAT_GT},
    {"+", FLAT_ADD}, {"-", FLAT_SUB}, {"*", FLAT_MUL},  {"/", FLAT_DIV},  {"^", FLAT_POW}, {"and", FLAT_AND},
    {"or", FLAT_OR}, {"xor", FLAT_XOR},
};

static BinOp binop_of(FlatOp op) {
  switch (op) {
  case FLAT_EQ: return BIN_EQ;
  case FLAT_NE: return BIN_NE;
  case FLAT_LE: return BIN_LE;
  case FLAT_GE: return BIN_GE;
  case FLAT_LT: return BIN_LT;
  case FLAT_GT: return BIN_GT;
  case FLAT_ADD: return BIN_ADD;
  case FLAT_SUB: return BIN_SUB;
  case FLAT_MUL: return BIN_MUL;
  case FLAT_DIV: return BIN_DIV;
  case FLAT_POW: return BIN_POW;
  case FLAT_AND: return BIN_AND;
  case FLAT_OR: return BIN_OR;
  default: return BIN_XOR;
  }
}

static const Infix *peek_infix(Reader *r) {
  skip(r);
  for (size_t i = 0; i < sizeof infixes / sizeof *infixes; i++) {
    const char *t = infixes[i].text;
    size_t n = strlen(t);
    if (strncmp(r->text + r->pos, t, n) != 0)
      continue;
    if (isalpha((unsigned char)t[0]) && ident_char(r->text[r->pos + n]))
      continue;
    /* '-' before a digit right after it is a negative constant, never a
       subtraction the printer writes (it puts spaces around operators) */
    return &infixes[i];
  }
  return NULL;
}

/* The base of 'op' applied to 'args', or an error at 'at'. */
static FlatBase op_type(Reader *r, size_t at, FlatOp op, LcuExp **args, int n) {
  FlatBase bases[3];
  for (int i = 0; i < n; i++)
    bases[i] = args[i]->type;
  FlatBase result;
  const char *why = NULL;
  if (!lcu_op_type(op, bases, &result, &why))
    fail_at(r, at, "%s", why);
  return result;
}

static LcuExp *exp_at(Reader *r, int power);
static LcuFunc *function_named(Reader *r, const char *n, size_t at);

/* op(args) in a thunk, 'n' its name (at 'at'), read */
static LcuExp *op_call(Reader *r, const char *n, size_t at) {
  bool length = strcmp(n, "seg_length") == 0;
  if (length || strcmp(n, "seg_offset") == 0) { /* seg_length(sd, e), seg_offset(sd, e) */
    const char *sd_name = name(r);
    size_t sd_at = r->tok; /* (name() skips to it) */
    LcuVar *sd = lookup(r, sd_name);
    if (!sd || sd->type.kind != LT_SEGDES) {
      r->tok = sd_at;
      fail(r, sd ? "%s is not a segdes" : "'%s' is not a variable in scope", sd_name);
    }
    expect(r, ",");
    LcuExp *index = exp_at(r, 0);
    expect(r, ")");
    if (index->type != FB_INT) {
      r->tok = at;
      fail(r, "%s at %s, not at an int", n, lcu_type_name(lcu_scalar(index->type)));
    }
    return lcu_exp_seg_field(unset, length ? LE_SEG_LENGTH : LE_SEG_OFFSET, sd, index);
  }
  if (strcmp(n, "bound") == 0) { /* bound(e, n): not an operation of rt/ops.def */
    LcuExp *index = exp_at(r, 0);
    expect(r, ",");
    LcuExp *length = exp_at(r, 0);
    expect(r, ")");
    if (index->type != FB_INT || length->type != FB_INT) {
      r->tok = at;
      fail(r, "bound of %s and %s, not of two ints", lcu_type_name(lcu_scalar(index->type)),
           lcu_type_name(lcu_scalar(length->type)));
    }
    return lcu_exp_bound(unset, index, length);
  }
  int op = elementwise_op(n);
  if (op < 0 || op == FLAT_RAND)
    fail(r, "'%s' is not an element-wise operation", n);
  int want = flat_op_nargs((FlatOp)op);
  LcuExp *args[3] = {0};
  int got = 0;
  if (!accept(r, ")")) {
    do {
      if (got == 3)
        fail(r, "too many operands");
      args[got++] = exp_at(r, 0);
    } while (accept(r, ","));
    expect(r, ")");
  }
  if (got != want)
    fail(r, "%s takes %d operand%s, not %d", n, want, want == 1 ? "" : "s", got);
  if (op == FLAT_ZERO) /* the zero of the operand's type: a constant */
    return lcu_exp_op(unset, FLAT_ZERO, args[0]->type, 1, args[0], NULL, NULL);
  return lcu_exp_op(unset, (FlatOp)op, op_type(r, at, (FlatOp)op, args, got), got, args[0], args[1], args[2]);
}

/* `in e` after `let n = value`: the let expression. */
static LcuExp *let_body(Reader *r, const char *n, LcuExp *value) {
  expect(r, "in");
  LcuVar *x = new_var(r, n, lcu_scalar(value->type));
  int mark = r->scope.len;
  bind(r, n, x);
  LcuExp *body = exp_at(r, 0);
  r->scope.len = mark;
  return lcu_exp_let(unset, x, value, body);
}

/* A primary expression and its location: x, c, x[e], #x, op(e, ...),
   (e), -x, if, let; then '@LOC'. */
static LcuExp *primary(Reader *r) {
  LcuExp *e;
  FlatAtom c;
  skip(r);
  size_t at = r->tok;
  if (constant(r, &c)) {
    e = lcu_exp_const(unset, c);
  } else if (accept(r, "(")) {
    e = exp_at(r, 0);
    expect(r, ")");
  } else if (accept(r, "-")) {
    if (++r->depth > MAX_DEPTH) /* - - - ... x */
      fail(r, "an expression nested too deeply");
    e = primary(r);
    r->depth--;
    LcuExp *args[1] = {e};
    e = lcu_exp_op(unset, FLAT_NEG, op_type(r, at, FLAT_NEG, args, 1), 1, e, NULL, NULL);
  } else if (accept(r, "#")) {
    LcuVar *v = use(r, false);
    e = lcu_exp_length(unset, v);
  } else if (accept(r, "if")) {
    LcuExp *cond = exp_at(r, 0);
    expect(r, "then");
    LcuExp *then = exp_at(r, 0);
    expect(r, "else");
    LcuExp *els = exp_at(r, 0);
    if (cond->type != FB_BOOL || then->type != els->type) {
      r->tok = at;
      fail(r, "an if of a %s condition and branches of types %s and %s", lcu_type_name(lcu_scalar(cond->type)),
           lcu_type_name(lcu_scalar(then->type)), lcu_type_name(lcu_scalar(els->type)));
    }
    e = lcu_exp_if(unset, cond, then, els);
  } else if (accept(r, "let")) {
    const char *n = name(r);
    expect(r, "=");
    LcuExp *value = exp_at(r, 0);
    e = let_body(r, n, value);
  } else if (accept(r, "call")) {
    /* call f(args) : type; lcu_check matches them with f's definition */
    skip(r);
    size_t fat = r->tok;
    LcuFunc *f = function_named(r, name(r), fat);
    expect(r, "(");
    Vec args = {0};
    if (!accept(r, ")")) {
      do
        vec_push(&args, exp_at(r, 0));
      while (accept(r, ","));
      expect(r, ")");
    }
    expect(r, ":");
    LcuType t = lcu_type(r);
    if (t.kind != LT_SCALAR) {
      r->tok = at;
      fail(r, "a call in a thunk of a %s result", lcu_type_name(t));
    }
    e = lcu_exp_call(unset, f, t.base, (LcuExp **)args.data, args.len);
  } else {
    const char *n = name(r);
    bool nonzero = strcmp(n, "rem") == 0 && cur(r) == '!' && r->text[r->pos + 1] == '('; /* rem!(a, n) */
    if (nonzero)
      r->pos++;
    if (cur(r) == '(') { /* an operation: no blank before its '(' */
      r->pos++;
      e = op_call(r, n, at);
      e->in_range = nonzero;
    } else {
      LcuVar *v = lookup(r, n);
      if (!v) {
        r->tok = at;
        fail(r, "'%s' is not a variable in scope", n);
      }
      bool in_range = cur(r) == '!' && r->text[r->pos + 1] == '['; /* x![e]: known in range */
      if (in_range)
        r->pos++;
      if (accept(r, "[")) {
        LcuExp *i = exp_at(r, 0);
        expect(r, "]");
        if (v->type.kind != LT_VEC) {
          r->tok = at;
          fail(r, "%s is not a vector", n);
        }
        e = lcu_exp_index(unset, v, i);
        e->in_range = in_range;
      } else {
        if (v->type.kind != LT_SCALAR) {
          r->tok = at;
          fail(r, "%s is a %s, read in a thunk as a scalar", n, lcu_type_name(v->type));
        }
        e = lcu_exp_var(unset, v);
      }
    }
  }
  if (cur(r) == '@') { /* right after it: its own location */
    r->pos++;
    if (cur(r) == '{') { /* @{f}@LOC: moved out of library function f's call at LOC */
      r->pos++;
      e->lib_fn = name(r);
      if (cur(r) != '}' || r->text[r->pos + 1] != '@')
        fail(r, "expected '}@' and a location after the library function of an expression");
      r->pos += 2;
    }
    e->loc = location(r);
  }
  return e;
}

/* An expression whose operators bind at least as tightly as 'power'
   (binary operators are left-associative, common/syntax.def). */
static LcuExp *exp_at(Reader *r, int power) {
  if (++r->depth > MAX_DEPTH)
    fail(r, "an expression nested too deeply");
  LcuExp *left = primary(r);
  for (;;) {
    const Infix *in = peek_infix(r);
    if (!in) {
      r->depth--;
      return left;
    }
    int p = binop_power(binop_of(in->op));
    if (p < power) {
      r->depth--;
      return left;
    }
    size_t at = r->tok;
    r->pos += strlen(in->text);
    LcuExp *args[2] = {left, exp_at(r, p + 1)};
    left = lcu_exp_op(unset, in->op, op_type(r, at, in->op, args, 2), 2, args[0], args[1], NULL);
  }
}

/* Gives the expressions whose location is unset that of what encloses
   them. */
static void settle(LcuExp *e, Loc enclosing, const char *enclosing_fn) {
  if (e->loc.src == &unset_source) {
    e->loc = enclosing;
    e->lib_fn = enclosing_fn;
  }
  for (int i = 0; i < e->nargs; i++)
    settle(e->args[i], e->loc, e->lib_fn);
}

/* { params => body using names }: the parameters of bases 'types' ('n'
   of them, or any number of ints if 'n' < 0 is not given: see callers). */
static LcuThunk *thunk(Reader *r, const FlatBase *types, int n, Loc soac) {
  expect(r, "{");
  LcuThunk *t = lcu_thunk_new();
  int mark = r->scope.len;
  Vec names = {0};
  if (accept(r, "(")) {
    if (!accept(r, ")")) {
      do
        vec_push(&names, (void *)name(r));
      while (accept(r, ","));
      expect(r, ")");
    }
  } else {
    vec_push(&names, (void *)name(r));
  }
  if (names.len != n)
    fail(r, "a thunk of %d parameter%s where %d %s wanted", names.len, names.len == 1 ? "" : "s", n, n == 1 ? "is" : "are");
  for (int i = 0; i < names.len; i++) {
    LcuVar *v = new_var(r, names.data[i], lcu_scalar(types[i]));
    vec_push(&t->params, v);
    bind(r, names.data[i], v);
  }
  expect(r, "=>");
  /* shared lets, `let x = e;`, or one expression `let x = e in e` */
  LcuExp *whole = NULL;
  while (!whole && accept(r, "let")) {
    const char *n = name(r);
    expect(r, "=");
    LcuExp *value = exp_at(r, 0);
    if (accept(r, ";")) {
      LcuVar *x = new_var(r, n, lcu_scalar(value->type));
      lcu_thunk_let(t, x, value);
      bind(r, n, x);
      continue;
    }
    whole = let_body(r, n, value);
  }
  if (whole) {
    lcu_thunk_return(t, whole);
  } else if (peek(r) == '(') {
    /* a tuple of results, or one expression (which may begin with '(') */
    size_t start = r->pos;
    int nvars = r->vars.len;
    r->pos++;
    LcuExp *first = exp_at(r, 0);
    if (accept(r, ",")) {
      lcu_thunk_return(t, first);
      do
        lcu_thunk_return(t, exp_at(r, 0));
      while (accept(r, ","));
      expect(r, ")");
    } else {
      r->pos = start; /* one expression: read it again whole */
      r->scope.len = mark + names.len + t->lets.len;
      r->vars.len = nvars;
      lcu_thunk_return(t, exp_at(r, 0));
    }
  } else {
    lcu_thunk_return(t, exp_at(r, 0));
  }
  r->scope.len = mark;
  if (accept(r, "using")) {
    do
      vec_push(&t->using, use(r, false));
    while (accept(r, ","));
  }
  expect(r, "}");
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    settle(lcu_thunk_exp(t, i), soac, NULL);
  return t;
}

/* The bases of a thunk's results. */
static FlatBase *body_types(LcuThunk *t, int times) {
  FlatBase *b = xmalloc_atomic(sizeof(FlatBase) * (size_t)(times * t->body.len + 1));
  for (int k = 0; k < times; k++)
    for (int i = 0; i < t->body.len; i++)
      b[k * t->body.len + i] = ((LcuExp *)t->body.data[i])->type;
  return b;
}

/* The types of the first 'k' values of 't''s body, twice: the
   parameters of an operator that combines k values. */
static FlatBase *scanned_types(LcuThunk *t, int k) {
  FlatBase *b = xmalloc_atomic(sizeof(FlatBase) * (size_t)(2 * k + 1));
  for (int i = 0; i < k; i++)
    b[i] = b[k + i] = ((LcuExp *)t->body.data[i])->type;
  return b;
}

/* ---- the kernel level ---- */

static const FlatBase index_type[1] = {FB_INT};
static const FlatBase index_segment_types[2] = {FB_INT, FB_INT}; /* SEG_MAP's (i, s) and others' */

/* A pull thunk of SOAC kind 'k': one int parameter, the index (ONCE:
   none; SEG_MAP: the index and the segment; SEG_REDUCE and SEG_SCAN:
   the index, or the index and the segment). */
static LcuThunk *pull_thunk(Reader *r, LcuSoacKind k, Loc loc) {
  size_t at = (skip(r), r->tok);
  /* how many parameters: look ahead at the thunk's parameter list */
  size_t save = r->pos;
  expect(r, "{");
  int n = 1;
  if (accept(r, "(")) {
    if (accept(r, ")")) {
      n = 0;
    } else {
      name(r);
      n = accept(r, ",") ? 2 : 1;
    }
  }
  r->pos = save;
  r->tok = at;
  if (k == SOAC_ONCE && n != 0)
    fail(r, "ONCE's thunk takes no parameters: { () => ... }");
  if (k == SOAC_SEG_MAP || (n == 2 && (k == SOAC_SEG_REDUCE || k == SOAC_SEG_SCAN || k == SOAC_SPLIT)))
    return thunk(r, index_segment_types, 2, loc);
  return thunk(r, index_type, k == SOAC_ONCE ? 0 : 1, loc);
}

/* (#x), (n), (10) */
static LcuSize size(Reader *r) {
  expect(r, "(");
  LcuSize s;
  FlatAtom c;
  if (accept(r, "#"))
    s = lcu_size_length(use(r, false));
  else if (constant(r, &c)) {
    if (c.kind != FA_INT || c.u.i < 0)
      fail(r, "a SOAC's size must be an int that is not negative");
    s = lcu_size_const(c.u.i);
  } else
    s = lcu_size_var(use(r, false));
  expect(r, ")");
  return s;
}

static LcuVar *segdes(Reader *r) {
  expect(r, "(");
  LcuVar *v = use(r, false);
  expect(r, ")");
  return v;
}

/* (c1, c2, ...) */
static void identities(Reader *r, Vec *out) {
  expect(r, "(");
  do {
    FlatAtom c;
    if (!constant(r, &c))
      fail(r, "expected a constant identity");
    FlatAtom *a = NEW(FlatAtom);
    *a = c;
    vec_push(out, a);
  } while (accept(r, ","));
  expect(r, ")");
}

static const RtLayout *nesl_type(Reader *r, bool arrow, const char **name);

static LcuSoac *library_kernel(Reader *r) {
  const char *n = name(r);
  size_t len = strlen(n);
  bool lifted = len > 1 && n[len - 1] == '^';
  const char *base = lifted ? intern(xstrndup(n, len - 1)) : n;
  int lib = -1;
  for (int l = 0; l < LIB_COUNT; l++)
    if (strcmp(lcu_library_name((LcuLibrary)l), base) == 0)
      lib = l;
  if (lib < 0)
    fail(r, "'%s' is not a library kernel", base);
  LcuSoac *s = lcu_soac_library(no_loc, (LcuLibrary)lib);
  s->lifted = lifted;
  if (lib == LIB_NAME || lib == LIB_EQL || lib == LIB_HASH) {
    if (accept(r, "<")) {
      /* the dump gives the element type with its datatypes as tuples:
         read λcu hashes a datatype value as its fields' tuple */
      s->layout = nesl_type(r, false, &s->elem_name);
      expect(r, ">");
    }
  } else if (lifted) {
    fail(r, "only name, eql and hash have lifted forms");
  }
  if (lib == LIB_RAND) {
    expect(r, "<");
    expect(r, "site");
    s->site = (int)integer(r);
    expect(r, ">");
  }
  if (lib == LIB_LOOP) { /* its element function */
    size_t at = (skip(r), r->tok);
    s->callee = function_named(r, name(r), at);
  }
  if (lib == LIB_RANGE_SEGDES && accept(r, "<")) {
    expect(r, "once");
    expect(r, ">");
    s->once = true;
  }
  expect(r, "(");
  if (!accept(r, ")")) {
    do
      vec_push(&s->args, use(r, false));
    while (accept(r, ","));
    expect(r, ")");
  }
  return s;
}

/* The right side of `let xs = SOAC ...`.  Its location is where it is
   in the file (the dump does not show a SOAC's): lcu_check reports
   there, and its thunks' expressions without one of their own get it. */
static LcuSoac *soac_at(Reader *r, Loc loc);

static LcuSoac *soac(Reader *r) {
  size_t at = (skip(r), r->tok);
  LcuSoac *s = soac_at(r, loc_at(r, at));
  s->loc = loc_at(r, at);
  return s;
}

static LcuSoac *soac_at(Reader *r, Loc loc) {
  if (accept(r, "LIBRARY"))
    return library_kernel(r);
  size_t at = (skip(r), r->tok);
  const char *kind = name(r);
  int k = -1;
  for (int i = 0; i < SOAC_LIBRARY; i++)
    if (strcmp(lcu_soac_name((LcuSoacKind)i), kind) == 0)
      k = i;
  if (k < 0) {
    r->tok = at;
    fail(r, "'%s' is not a SOAC", kind);
  }
  LcuThunk *pull = pull_thunk(r, (LcuSoacKind)k, loc);
  int npull = pull->body.len;
  LcuThunk *second;
  Vec ids = {0};
  switch ((LcuSoacKind)k) {
  case SOAC_MAP:
    return lcu_soac_map(no_loc, pull, size(r));
  case SOAC_ONCE:
    return lcu_soac_once(no_loc, pull);
  case SOAC_SEG_MAP:
    return lcu_soac_seg_map(no_loc, pull, segdes(r));
  case SOAC_PERMUTE:
  case SOAC_SEG_PERMUTE: {
    second = thunk(r, index_type, 1, loc);
    LcuSize n = k == SOAC_PERMUTE ? size(r) : (LcuSize){0};
    LcuVar *sd = k == SOAC_SEG_PERMUTE ? segdes(r) : NULL;
    LcuVar *into = accept(r, "into") ? use(r, false) : NULL;
    return k == SOAC_PERMUTE ? lcu_soac_permute(no_loc, pull, second, n, into)
                             : lcu_soac_seg_permute(no_loc, pull, second, sd, into);
  }
  case SOAC_REDUCE:
  case SOAC_SCAN:
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN: {
    /* the operator combines as many values as there are identities: a
       SCAN's others are its map columns, `maps m` after its size */
    identities(r, &ids);
    int combined = ids.len < npull ? ids.len : npull;
    second = thunk(r, scanned_types(pull, combined), 2 * combined, loc);
    LcuSoac *s = k == SOAC_REDUCE || k == SOAC_SCAN ? lcu_soac_reduce(no_loc, pull, NULL, 0, second, size(r))
                                                    : lcu_soac_seg_reduce(no_loc, pull, NULL, 0, second, segdes(r));
    s->identity = ids;
    s->kind = (LcuSoacKind)k;
    if ((k == SOAC_SCAN || k == SOAC_REDUCE) && accept(r, "maps")) {
      int64_t m = integer(r);
      if (m < 1 || m != npull - ids.len)
        fail(r, "%s maps %lld, but its pull gives %d values for %d identit%s", lcu_soac_name((LcuSoacKind)k),
             (long long)m, npull, ids.len, ids.len == 1 ? "y" : "ies");
      s->maps = (int)m;
    }
    return s;
  }
  case SOAC_FILTER:
    second = thunk(r, body_types(pull, 1), npull, loc);
    return lcu_soac_filter(no_loc, pull, second, size(r));
  case SOAC_PARTITION: {
    second = thunk(r, body_types(pull, 1), npull, loc);
    LcuSoac *s = lcu_soac_partition(no_loc, pull, second, size(r));
    s->joined = accept(r, "joined");
    return s;
  }
  case SOAC_SPLIT: {
    /* the predicate, then the classes' widths: [w1, ..., wc] (the
       checker tests them against the pull) */
    second = thunk(r, body_types(pull, 1), npull, loc);
    int widths[LCU_SPLIT_MAX], classes = 0;
    expect(r, "[");
    do {
      if (classes == LCU_SPLIT_MAX)
        fail(r, "a SPLIT has at most %d classes", LCU_SPLIT_MAX);
      int64_t w = integer(r);
      if (w < 1 || w > npull)
        fail(r, "a SPLIT class keeps 1 to %d values, not %lld", npull, (long long)w);
      widths[classes++] = (int)w;
    } while (accept(r, ","));
    expect(r, "]");
    LcuSoac *s = lcu_soac_split(no_loc, pull, second, classes, widths, size(r));
    if (accept(r, "counts")) {
      s->segdes = use(r, false);
      s->offsets = accept(r, "offsets");
    }
    return s;
  }
  case SOAC_SEG_FILTER:
  case SOAC_SEG_PARTITION:
    second = thunk(r, body_types(pull, 1), npull, loc);
    return (k == SOAC_SEG_FILTER ? lcu_soac_seg_filter : lcu_soac_seg_partition)(no_loc, pull, second, segdes(r));
  default:
    break;
  }
  fail(r, "'%s' is not a SOAC", kind);
}

/* NAME or '(' [NAME {',' NAME}] ')', variables in scope */
static void names_in_scope(Reader *r, Vec *out) {
  bool many = accept(r, "(");
  if (many && accept(r, ")"))
    return;
  do
    vec_push(out, use(r, false));
  while (many && accept(r, ","));
  if (many)
    expect(r, ")");
}

static void compare_types(Reader *r, size_t at, const Vec *declared, const Vec *vars, const char *what) {
  bool same = declared->len == vars->len;
  for (int i = 0; same && i < vars->len; i++)
    same = lcu_type_equal(*(LcuType *)declared->data[i], ((LcuVar *)vars->data[i])->type);
  if (!same) {
    r->tok = at;
    fail(r, "the %s's result types are not those of its results", what);
  }
}

static void kernel(Reader *r) {
  const char *n = name(r);
  if (map_get(&r->kernels, n))
    fail(r, "a second kernel named %s", n);
  LcuKernel *k = lcu_kernel_new();
  k->name = n;
  int mark = r->scope.len;
  binders(r, &k->params, false);
  expect(r, "->");
  size_t at = (skip(r), r->tok);
  Vec types = {0};
  result_types(r, &types);
  expect(r, "{");
  while (accept(r, "let")) {
    Vec res = {0};
    results(r, &res);
    expect(r, "=");
    LcuSoac *s = soac(r);
    s->results = res;
    lcu_kernel_soac(k, s);
  }
  expect(r, "return");
  names_in_scope(r, &k->results);
  expect(r, "}");
  compare_types(r, at, &types, &k->results, "kernel");
  r->scope.len = mark;
  map_put(&r->kernels, n, k);
  vec_push(&r->p->kernels, k);
}

/* ---- the CPU level ---- */

/* x, 12, -1.5, T, `c, (-3) */
static LcuAtom *atom(Reader *r) {
  FlatAtom c;
  if (peek(r) == '(' && r->text[r->pos + 1] == '-') {
    r->pos++;
    if (!constant(r, &c))
      fail(r, "expected a negative constant");
    expect(r, ")");
    return lcu_atom_const(c);
  }
  if (constant(r, &c))
    return lcu_atom_const(c);
  return lcu_atom_var(use(r, true));
}

/* '(' [atom {',' atom}] ')' */
static void atoms(Reader *r, Vec *out) {
  expect(r, "(");
  if (!accept(r, ")")) {
    do
      vec_push(out, atom(r));
    while (accept(r, ","));
    expect(r, ")");
  }
}

static LcuFunc *function_named(Reader *r, const char *n, size_t at) {
  LcuFunc *f = map_get(&r->funcs, n);
  if (!f) {
    f = lcu_func_new(no_loc, n, n, false);
    map_put(&r->funcs, n, f);
    FuncUse *u = NEW(FuncUse);
    u->f = f;
    u->at = at;
    vec_push(&r->func_uses, u);
  }
  return f;
}

static LcuBlock *block(Reader *r);

/* `host^ name <arg -> result> (args)`, `host vector "text"`, `host op (args)` */
static LcuStmt *host(Reader *r, bool lifted) {
  FlatStmt *fs = NEW(FlatStmt);
  fs->kind = FS_OP;
  fs->lifted = lifted;
  LcuStmt *s = lcu_stmt_host(no_loc, fs);
  size_t at = (skip(r), r->tok);
  const char *n = name(r);
  int op = -1;
  for (int i = 0; i < FLAT_OP_COUNT; i++)
    if (i != FLAT_HOST_PRIM && strcmp(flat_op_name((FlatOp)i), n) == 0)
      op = i;
  if (op == FLAT_VECTOR && peek(r) == '"') {
    size_t len;
    char *text = string_literal(r, &len);
    for (size_t i = 0; i < len; i++)
      lcu_stmt_arg(s, lcu_atom_const(lcu_char_const(text[i])));
    fs->op = FLAT_VECTOR;
    return s;
  }
  if (op == FLAT_VECTOR || op == FLAT_ERROR || op == FLAT_ERROR_ANY || op == FLAT_RANGE || op == FLAT_SEG_RANGE) {
    fs->op = (FlatOp)op;
  } else if (peek(r) == '<') {
    /* a host primitive (rt/host.def), with its argument and result types */
    r->pos++;
    fs->op = FLAT_HOST_PRIM;
    fs->prim = n;
    fs->host = rt_host_lookup(n);
    if (fs->host == RT_HOST_COUNT)
      fail_at(r, at, "host %s: not a host primitive of the runtime", n);
    fs->layout = nesl_type(r, true, &fs->elem_name);
    expect(r, "->");
    fs->result_layout = nesl_type(r, false, &fs->result_name);
    expect(r, ">");
  } else {
    fail_at(r, at,
            "host %s: not an operation that runs on the host (vector, error, error_any, range, seg_range, or a "
            "primitive with its <argument -> result> types)",
            n);
  }
  atoms(r, &s->args);
  return s;
}

/* Is a call `f (args)` ahead, of a function whose name is a word of the
   statements' syntax (a NESL function may be called check, run, host,
   time, size)?  The statements themselves have no '(' after the word. */
static bool call_ahead(Reader *r) {
  size_t save = (skip(r), r->pos);
  bool call = false;
  if (at_name(r)) {
    name(r);
    call = cur(r) != '(' && peek(r) == '(';
  }
  r->pos = save;
  return call;
}

/* The right side of a CPU statement, or NULL at `return`. */
static LcuStmt *cpu(Reader *r) {
  size_t at = (skip(r), r->tok);
  if (call_ahead(r)) {
    const char *n = name(r);
    LcuStmt *s = lcu_stmt_call(no_loc, function_named(r, n, at));
    atoms(r, &s->args);
    return s;
  }
  if (accept(r, "run")) {
    const char *n = name(r);
    LcuKernel *k = map_get(&r->kernels, n);
    if (!k) {
      r->tok = at;
      fail(r, "run %s: no kernel of that name before it", n);
    }
    LcuStmt *s = lcu_stmt_run(no_loc, k);
    atoms(r, &s->args);
    return s;
  }
  if (accept(r, "if")) {
    LcuAtom *c = atom(r);
    expect(r, "then");
    LcuBlock *then = block(r);
    expect(r, "else");
    return lcu_stmt_if(no_loc, c, then, block(r));
  }
  if (accept(r, "time"))
    return lcu_stmt_time(no_loc, block(r));
  if (accept(r, "#segments"))
    return lcu_stmt_length(no_loc, LEN_SEGMENTS, atom(r));
  if (accept(r, "#elements"))
    return lcu_stmt_length(no_loc, LEN_TOTAL, atom(r));
  if (accept(r, "#"))
    return lcu_stmt_length(no_loc, LEN_VECTOR, atom(r));
  if (accept(r, "check")) {
    const char *kind = name(r);
    int k = rt_check_lookup(kind);
    if (k < 0) {
      r->tok = at;
      fail(r, "check %s: not a check (subscript, lengths, range, counts, append or dist)", kind);
    }
    LcuStmt *s = lcu_stmt_check(no_loc, k);
    atoms(r, &s->args);
    return s;
  }
  if (accept(r, "size")) {
    const char *kind = name(r);
    int k = lcu_size_lookup(kind);
    if (k < 0) {
      r->tok = at;
      fail(r, "size %s: not a size (range or append)", kind);
    }
    LcuStmt *s = lcu_stmt_size(no_loc, (LcuSizeKind)k);
    atoms(r, &s->args);
    return s;
  }
  if (accept(r, "cost")) {
    /* `cost rule (args)`, `cost rule^ (args)` */
    const char *rule = name(r); /* with its ^, a character of names */
    size_t len = strlen(rule);
    bool lifted = len > 1 && rule[len - 1] == '^';
    if (lifted)
      rule = xstrndup(rule, len - 1);
    int k = flat_cost_rule_lookup(rule);
    if (k < 0) {
      r->tok = at;
      fail(r, "cost %s: not a cost rule (size, unit, sort, each, done, split, join, off or on)", rule);
    }
    LcuStmt *s = lcu_stmt_cost(no_loc, k, lifted);
    atoms(r, &s->args);
    return s;
  }
  if (accept(r, "host"))
    return host(r, false);
  if (accept(r, "host^"))
    return host(r, true);
  FlatAtom c;
  size_t save = (skip(r), r->pos);
  bool is_constant = constant(r, &c);
  r->pos = save;
  if (!is_constant && cur(r) == '-') { /* -x (and -0); -3 is a constant */
    r->pos++;
    LcuStmt *s = lcu_stmt_scalar(no_loc, FLAT_NEG);
    lcu_stmt_arg(s, atom(r));
    return s;
  }
  if (!is_constant && at_name(r)) {
    const char *n = name(r);
    if (cur(r) == '(') { /* op(args): no blank before '(' */
      int op = elementwise_op(n);
      if (op < 0)
        fail(r, "'%s' is not an element-wise operation", n);
      LcuStmt *s = lcu_stmt_scalar(no_loc, (FlatOp)op);
      atoms(r, &s->args);
      return s;
    }
    if (peek(r) == '(') { /* f (args): a call */
      LcuStmt *s = lcu_stmt_call(no_loc, function_named(r, n, at));
      atoms(r, &s->args);
      return s;
    }
    r->pos = save;
  }
  /* an atom, or a binary operation on two */
  LcuAtom *a = atom(r);
  if (accept(r, "[")) { /* v[i], v[i] := x: an element function's */
    LcuAtom *i = atom(r);
    expect(r, "]");
    if (accept(r, ":="))
      return lcu_stmt_update(no_loc, a, i, atom(r));
    return lcu_stmt_elt(no_loc, a, i);
  }
  const Infix *in = peek_infix(r);
  LcuStmt *s = lcu_stmt_scalar(no_loc, in ? in->op : FLAT_COPY);
  lcu_stmt_arg(s, a);
  if (in) {
    r->pos += strlen(in->text);
    lcu_stmt_arg(s, atom(r));
  }
  return s;
}

/* { statements return atoms } in a scope of its own */
static LcuBlock *block(Reader *r) {
  if (++r->depth > MAX_DEPTH)
    fail(r, "blocks nested too deeply");
  expect(r, "{");
  int mark = r->scope.len;
  LcuBlock *b = lcu_block_new();
  for (;;) {
    if (accept(r, "return"))
      break;
    Vec res = {0};
    if (accept(r, "let")) {
      results(r, &res);
      expect(r, "=");
    }
    if (!peek(r))
      fail(r, "a block that does not end");
    LcuStmt *s = cpu(r);
    /* its results are in scope after it, not in its own blocks */
    for (int i = 0; i < res.len; i++)
      lcu_stmt_bind(s, res.data[i]);
    if (accept(r, "from")) {
      s->lib_fn = name(r);
      expect(r, "@");
      s->user_loc = s->loc = location(r);
    } else {
      s->loc = opt_location(r, no_loc);
    }
    if (s->kind == LS_HOST)
      s->flat->loc = s->loc;
    lcu_block_add(b, s);
  }
  if (peek(r) == '(') {
    atoms(r, &b->results);
  } else {
    lcu_block_return(b, atom(r));
  }
  expect(r, "}");
  r->scope.len = mark;
  r->depth--;
  return b;
}

/* What a block gives: its results' types (functions print them). */
static void block_types(const LcuBlock *b, Vec *out) {
  for (int i = 0; i < b->results.len; i++) {
    LcuType *t = NEW(LcuType);
    *t = lcu_atom_type(b->results.data[i]);
    vec_push(out, t);
  }
}

static void function(Reader *r) {
  size_t at = (skip(r), r->tok);
  const char *n = name(r);
  if (map_get(&r->func_defined, n)) {
    r->tok = at;
    fail(r, "a second function named %s", n);
  }
  LcuFunc *f = function_named(r, n, at);
  map_put(&r->func_defined, n, f);
  vec_push(&r->funcs_in_order, f);
  int mark = r->scope.len;
  binders(r, &f->params, true);
  expect(r, "->");
  size_t types_at = (skip(r), r->tok);
  Vec types = {0};
  result_types(r, &types);
  if (accept(r, "from"))
    f->source = name(r);
  f->library = accept(r, "library");
  int each_at = -1; /* `each x`: the parameter an element function returns */
  if (accept(r, "each")) {
    f->each = true;
    if (at_name(r)) {
      size_t pat = (skip(r), r->tok);
      const char *p = name(r);
      for (int i = 0; i < f->params.len; i++)
        if (strcmp(((LcuVar *)f->params.data[i])->name, p) == 0)
          each_at = i;
      if (each_at < 0) {
        r->tok = pat;
        fail(r, "each %s: not a parameter of %s", p, f->name);
      }
    }
  }
  f->each_result = each_at;
  f->loc = opt_location(r, no_loc);
  f->body = block(r);
  r->scope.len = mark;
  ResultCheck *c = NEW(ResultCheck);
  *c = (ResultCheck){f, types, types_at};
  vec_push(&r->result_checks, c);
}

/* ---- NESL types (of host primitives and library kernels) ---- */

/* The NESL type that comes next, up to the '>' that closes it or (with
   'arrow') the `->` after it at the top level of its brackets: its
   runtime layout, as the front end makes it, and its name in '*name'. */
static const RtLayout *nesl_type(Reader *r, bool arrow, const char **name) {
  size_t at = (skip(r), r->pos);
  int depth = 0;
  size_t end = at;
  for (;; end++) {
    char c = r->text[end];
    if (!c || c == '\n')
      break;
    if (c == '(' || c == '[')
      depth++;
    else if (c == ')' || c == ']')
      depth--;
    else if (depth == 0 && c == '-' && r->text[end + 1] == '>') {
      if (arrow)
        break;
    } else if (depth == 0 && c == '>' && (end == at || r->text[end - 1] != '-')) {
      break;
    }
  }
  if (!r->nesl)
    fail_at(r, at, "a NESL type, but no front end to read it (kernels alone need none)");
  const char *why = NULL;
  const RtLayout *l = r->nesl->type(r->nesl->ctx, xstrndup(r->text + at, end - at), name, &why);
  if (!l)
    fail_at(r, at, "%s", why);
  r->pos = end;
  return l;
}

/* ---- top-level statements ---- */

/* Parses the NESL of every `nesl` statement (a line that begins with
   `nesl`) into one program, in order, before anything is checked: the
   type checker then sees the statements after the one it checks, as the
   front end does, so that a function may call one defined later (two
   that call each other). */
static void prescan(Reader *r) {
  const char *file = r->main ? r->main->name : r->src->name;
  for (size_t line = 0; r->text[line]; line++) {
    if ((line == 0 || r->text[line - 1] == '\n') && strncmp(r->text + line, "nesl ", 5) == 0) {
      r->pos = line + 4;
      bool library = accept(r, "library");
      size_t at = (skip(r), r->tok);
      if (!r->nesl) {
        r->tok = at;
        fail(r, "NESL text, but no front end to check it (kernels alone need none)");
      }
      if (!r->nesl->parse(r->nesl->ctx, file, string_literal(r, NULL), library)) {
        r->tok = at;
        fail(r, "the NESL text is not one statement");
      }
      vec_push(&r->nesl_library, library ? (void *)1 : NULL);
    }
  }
  r->pos = 0;
}

/* The next statement's NESL (prescan), type checked and described by the
   front end ('library': one of lib-nesl's, with its names). */
static FlatTop *nesl_statement(Reader *r, size_t at, bool library) {
  if (r->next_nesl >= r->nesl_library.len || (r->nesl_library.data[r->next_nesl] != NULL) != library) {
    r->tok = at;
    fail(r, "a `nesl` statement that does not begin its line");
  }
  r->next_nesl++;
  FlatTop *ft = r->nesl->check_next(r->nesl->ctx);
  if (!ft) {
    r->tok = at;
    fail(r, "the NESL statement does not type check");
  }
  return ft;
}

static void statement(Reader *r) {
  bool library = accept(r, "library");
  size_t at = (skip(r), r->tok);
  string_literal(r, NULL); /* parsed by prescan */
  FlatTop *ft = nesl_statement(r, at, library);
  bool has_value = ft->kind == FLAT_TOP_BIND || ft->kind == FLAT_TOP_EXPR;
  /* ` : TYPE`: what the dump says its types are, which must be so */
  while (cur(r) == ' ' || cur(r) == '\t')
    r->pos++;
  if (cur(r) == ':') {
    const char *end = strchr(r->text + r->pos, '\n');
    size_t n = end ? (size_t)(end - (r->text + r->pos)) : strlen(r->text + r->pos);
    char *claimed = xstrndup(r->text + r->pos, n);
    while (n && isspace((unsigned char)claimed[n - 1]))
      claimed[--n] = '\0';
    char *types = lcu_statement_types(ft);
    if (strcmp(claimed, *types ? types + 1 : types) != 0) {
      r->tok = r->pos;
      fail(r, "the statement's types are '%s', not '%s'", *types ? types + 1 : types, claimed);
    }
    r->pos += n;
  }
  LcuTop *t = lcu_top_new(ft, NULL);
  vec_push(&r->p->tops, t);
  /* where the statement is: what `top @LOC` says (its runs report errors
     there), not in the text it was parsed from */
  ft->loc = no_loc;
  if (!accept(r, "top")) {
    if (has_value)
      fail(r, "expected 'top' and the block of the statement");
    return;
  }
  if (!has_value)
    fail(r, "a definition has no block");
  ft->loc = opt_location(r, no_loc);
  if (accept(r, "->")) {
    size_t defines_at = (skip(r), r->tok);
    int mark = r->scope.len;
    binders(r, &t->defines, false);
    r->scope.len = mark;
    for (int i = 0; i < t->defines.len; i++) {
      LcuVar *g = t->defines.data[i];
      if (map_get(&r->defined, g->name)) {
        r->tok = defines_at;
        fail(r, "global %s is defined twice", g->name);
      }
      LcuVar *before = map_get(&r->globals, g->name);
      if (before) { /* read before: the same variable */
        before->type = g->type;
        before->shape = g->shape;
        t->defines.data[i] = g = before;
      } else {
        map_put(&r->globals, g->name, g);
        vec_push(&r->p->globals, g);
      }
      map_put(&r->defined, g->name, g);
      FlatVar *fv = flat_new_var(&r->flat, lcu_flat_type(g->type), NULL);
      fv->global = true;
      vec_push(&ft->defines, fv);
    }
    /* `keeping (x, _)`: the globals whose values these keep where the
       statement stops with an error, each defined before (the checker
       compares the types) */
    if (accept(r, "keeping")) {
      expect(r, "(");
      do {
        size_t at = (skip(r), r->tok);
        if (accept(r, "_")) {
          vec_push(&t->replaced, NULL);
          continue;
        }
        const char *n = name(r);
        LcuVar *old = map_get(&r->defined, n);
        if (!old || lcu_listed(&t->defines, old)) {
          r->tok = at;
          fail(r, "'%s' is not a global an earlier statement defines", n);
        }
        vec_push(&t->replaced, old);
      } while (accept(r, ","));
      expect(r, ")");
      if (t->replaced.len != t->defines.len)
        fail(r, "%d globals kept for %d defined", t->replaced.len, t->defines.len);
    }
  }
  t->body = block(r);
}

/* ---- the program ---- */

/* Gives each variable its name's id if no other has it, then fresh ids
   to the others. */
static void number_vars(Reader *r) {
  PtrMap taken = {0};
  int next = 1;
  /* ids index the checker's and interpreter's tables: one far beyond
     the variables' number (a hand-written x999999999) is not kept */
  int most = 8 * r->vars.len + 100000;
  for (int i = 0; i < r->vars.len; i++) {
    LcuVar *v = r->vars.data[i];
    int id = id_of(v->name);
    if (id >= 0 && id <= most && !ptrmap_get(&taken, (void *)(intptr_t)(id + 1))) {
      v->id = id;
      ptrmap_put(&taken, (void *)(intptr_t)(id + 1), v);
      if (id >= next)
        next = id + 1;
    }
  }
  for (int i = 0; i < r->vars.len; i++) {
    LcuVar *v = r->vars.data[i];
    if (v->id < 0)
      v->id = next++;
  }
  r->p->next_var = next;
}

/* What was used before it was defined must have been defined. */
static void check_forward(Reader *r) {
  for (int i = 0; i < r->p->globals.len; i++) {
    LcuVar *g = r->p->globals.data[i];
    if (!map_get(&r->defined, g->name))
      fail_at(r, (size_t)(uintptr_t)map_get(&r->global_use, g->name) - 1, "'%s' is not a variable in scope", g->name);
  }
  for (int i = 0; i < r->func_uses.len; i++) {
    FuncUse *u = r->func_uses.data[i];
    if (!map_get(&r->func_defined, u->f->name))
      fail_at(r, u->at, "no function %s", u->f->name);
  }
  for (int i = 0; i < r->result_checks.len; i++) {
    ResultCheck *c = r->result_checks.data[i];
    Vec got = {0};
    block_types(c->f->body, &got);
    bool same = got.len == c->types.len;
    for (int k = 0; same && k < got.len; k++)
      same = lcu_type_equal(*(LcuType *)got.data[k], *(LcuType *)c->types.data[k]);
    if (!same)
      fail_at(r, c->at, "the function's result types are not those of its body's results");
  }
  for (int i = 0; i < r->funcs_in_order.len; i++)
    vec_push(&r->p->funcs, r->funcs_in_order.data[i]);
}

LcuProgram *lcu_read(const Source *src, const FlatNeslReader *nesl) {
  Reader *r = NEW(Reader);
  r->src = src;
  r->text = src->text;
  r->nesl = nesl;
  r->p = lcu_program_new();
  r->main = src;
  r->seen_line = r->seen_col = 1;
  if (setjmp(r->fail))
    return NULL;
  if (accept(r, "source")) {
    size_t at = r->tok;
    const char *file = string_literal(r, NULL);
    if (!*file) {
      r->tok = at;
      fail(r, "a source without a file name");
    }
    r->main = source_named(r, file);
  }
  size_t body = r->pos;
  prescan(r);
  r->pos = body;
  for (;;) {
    if (!peek(r))
      break;
    if (accept(r, "kernel"))
      kernel(r);
    else if (accept(r, "function"))
      function(r);
    else if (accept(r, "nesl"))
      statement(r);
    else
      fail(r, "expected 'kernel', 'function' or 'nesl'");
  }
  check_forward(r);
  number_vars(r);
  return r->p;
}
