/*
 * lcu_print.c: λcu as text (`--dump=lcu`), in the concrete syntax of the
 * paper (section 3, Figure 1, and the norm2 example of section 5), one
 * binding per line and stable from run to run (variables print by their
 * names, which carry their ids; kernels in the program's order).
 *
 *   kernel K1 (xs_3 : [float]) -> float {
 *     let z_5 = REDUCE { i_4 => xs_3[i_4] using xs_3 } (0.0) { (x_6, y_7) => x_6 + y_7 } (#xs_3)
 *     return z_5
 *   }
 *
 *   function norm2 (xs_3 : [float]) -> ([float], [float]) {
 *     let sum1_7 : float = run K1 (xs_3)
 *     ...
 *     return (res1_9, res2_10)
 *   }
 *
 * Kernels come first, then the CPU functions, then the top-level
 * statements, each under a NESL comment `% source : type %` (the
 * library's own statements are left out, as in flat_print.c).
 *
 * Thunk bodies print as NESL expressions: the operators NESL writes infix
 * (+ - * / ^ == /= < > <= >= and or xor, prefix -) with NESL's binding
 * powers (common/syntax.def) and parentheses only where those require
 * them; every other operation in function-call syntax under its flat
 * name (sqrt(x), float(x), rem(x, y), not(b), select(b, x, y)).  A thunk
 * of several results prints its body as a tuple, one without parameters
 * as `{ () => ... }`; an empty `using` list is left out.  SOAC sizes are
 * parenthesized as in the paper, `(#xs)`, `(n)`, `(10)`; the SEG_ SOACs
 * print their segment descriptor there.
 *
 * Bindings at the CPU level show their types (`let n : int = #xs`), and
 * the kernel level does not, as in the paper.  Constants, and the nested
 * blocks of `if` and `time`, print as in the flat IR's dump
 * (flat_print_const, flat_print_braced).  Host operations print as
 * `host OP (args)`; an argument that a `host vector "..."` made earlier
 * in the same function gets its text in a trailing comment, so that an
 * error's message is readable where it is raised.
 *
 * The printer must not crash on ill-formed IR (it is what one looks at
 * when lcu_check fails): a missing piece prints as `?`.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/syntax.h"
#include "../flat/flat.h"
#include "lcu.h"

/* Binding levels of thunk expressions (higher binds tighter); binary
   operators use NESL's binding powers (common/syntax.def), which lie
   between LEVEL_GUARDED and LEVEL_UNARY. */
enum {
  LEVEL_OPEN = 0,    /* if, let: only where nothing follows, or in ( ) */
  LEVEL_GUARDED = 1, /* tuple items and call arguments but the last,
                        let values, if's condition and then branch */
  LEVEL_NEGATIVE = 2, /* a negative constant: in ( ) as any operand of an
                         operator, `x - (-3)` */
  LEVEL_UNARY = 25,  /* -x, #x */
  LEVEL_ATOM = 40,   /* variables, constants, calls, x[e] */
};

typedef struct Printer {
  FILE *out;
  Map strings; /* variable name -> the quoted text a `host vector` gave it */
  const Source *main; /* the program's file: its locations print as @L:C */
  Loc context;        /* the location of what encloses the expression being
                         printed (its parent, or its SOAC): an expression
                         elsewhere shows its own */
  const char *context_fn; /* and its LcuExp.lib_fn */
} Printer;

static const char *var_name(const LcuVar *v) {
  if (!v)
    return "?";
  return v->name ? v->name : xprintf("x%d", v->id);
}

static void indent_to(FILE *out, int indent) { fprintf(out, "%*s", indent, ""); }

/* "text" with \" \\ \n \t and \xHH escapes (lcu_read reads them). */
static void print_quoted(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else if (*p < 32 || *p == 127)
      fprintf(out, "\\x%02x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

/* A name as it is if lcu_read reads it as one (letters, digits, _ ^ '),
   else quoted. */
static void print_name(FILE *out, const char *name) {
  bool plain = name && (isalpha((unsigned char)name[0]) || name[0] == '_');
  for (const char *p = name; plain && *p; p++)
    plain = isalnum((unsigned char)*p) || *p == '_' || *p == '^' || *p == '\'';
  if (plain)
    fputs(name, out);
  else
    print_quoted(out, name ? name : "?");
}

/* @line:col in the program's file, @"file":line:col in another (the
   library's), @- for none. */
static void print_loc(Printer *pr, Loc loc) {
  FILE *out = pr->out;
  fputc('@', out);
  if (!loc.src) {
    fputc('-', out);
    return;
  }
  if (loc.src != pr->main) {
    print_quoted(out, loc.src->name ? loc.src->name : "");
    fputc(':', out);
  }
  fprintf(out, "%d:%d", loc.line, loc.col);
}

/* ---- constants ---- */

static bool is_negative(const FlatAtom *a) {
  return (a->kind == FA_INT && a->u.i < 0) || (a->kind == FA_FLOAT && signbit(a->u.f));
}

/* A base constant as a NESL literal, as the flat IR prints it; floats
   always with a point. */
static void print_constant(FILE *out, const FlatAtom *a) {
  if (!a || a->kind == FA_VAR)
    fputc('?', out);
  else
    flat_print_const(out, a);
}

/* A constant where binding level 'need' is required. */
static void print_constant_at(FILE *out, const FlatAtom *a, int need) {
  bool parens = a && is_negative(a) && need > LEVEL_NEGATIVE;
  if (parens)
    fputc('(', out);
  print_constant(out, a);
  if (parens)
    fputc(')', out);
}

/* ---- operations, shared by thunks and LS_SCALAR ---- */

/* The NESL operator that spells 'op' infix, or -1. */
static int infix_of(FlatOp op) {
  switch (op) {
  case FLAT_ADD:
    return BIN_ADD;
  case FLAT_SUB:
    return BIN_SUB;
  case FLAT_MUL:
    return BIN_MUL;
  case FLAT_DIV:
    return BIN_DIV;
  case FLAT_POW:
    return BIN_POW;
  case FLAT_EQ:
    return BIN_EQ;
  case FLAT_NE:
    return BIN_NE;
  case FLAT_LT:
    return BIN_LT;
  case FLAT_GT:
    return BIN_GT;
  case FLAT_LE:
    return BIN_LE;
  case FLAT_GE:
    return BIN_GE;
  case FLAT_AND:
    return BIN_AND;
  case FLAT_OR:
    return BIN_OR;
  case FLAT_XOR:
    return BIN_XOR;
  default:
    return -1;
  }
}

static bool op_known(FlatOp op) { return (unsigned)op < FLAT_OP_COUNT; }

/* The binding level of an application of 'op' to 'nargs' operands. */
static int op_level(FlatOp op, int nargs) {
  int bin = infix_of(op);
  if (bin >= 0 && nargs == 2)
    return binop_power((BinOp)bin);
  if (op == FLAT_NEG && nargs == 1)
    return LEVEL_UNARY;
  if (op == FLAT_COPY && nargs == 1)
    return -1; /* the operand's own level: see print_op */
  return LEVEL_ATOM;
}

/* Prints operand 'i' of 'ctx' at binding level 'need'. */
typedef void PrintOperand(Printer *pr, const void *ctx, int i, int need);

/* op(operand 0, ..., operand nargs-1), without parentheses around it:
   the caller compares op_level with what it needs. */
/* 'mark' follows a named operation's name: "!" for rem! (LcuExp.in_range). */
static void print_op(Printer *pr, FlatOp op, const char *mark, int nargs, PrintOperand *operand, const void *ctx) {
  int bin = op_known(op) ? infix_of(op) : -1;
  if (bin >= 0 && nargs == 2) {
    /* binary operators are left-associative (ops.def) */
    int power = binop_power((BinOp)bin);
    operand(pr, ctx, 0, power);
    fprintf(pr->out, " %s ", binop_text((BinOp)bin));
    operand(pr, ctx, 1, power + 1);
    return;
  }
  if (op == FLAT_NEG && nargs == 1) {
    fputc('-', pr->out);
    operand(pr, ctx, 0, LEVEL_ATOM);
    return;
  }
  fprintf(pr->out, "%s%s(", op_known(op) ? flat_op_name(op) : "?", mark);
  for (int i = 0; i < nargs; i++) {
    if (i)
      fputs(", ", pr->out);
    operand(pr, ctx, i, i == nargs - 1 ? LEVEL_OPEN : LEVEL_GUARDED);
  }
  fputc(')', pr->out);
}

/* ---- GPU level: thunk expressions ---- */

static void print_exp(Printer *pr, const LcuExp *e, int need);

static int exp_level(const LcuExp *e) {
  switch (e->kind) {
  case LE_IF:
  case LE_LET:
    return LEVEL_OPEN;
  case LE_LENGTH:
    return LEVEL_UNARY;
  case LE_CONST:
    return is_negative(&e->constant) ? LEVEL_NEGATIVE : LEVEL_ATOM;
  case LE_OP:
    return op_known(e->op) ? op_level(e->op, e->nargs) : LEVEL_ATOM;
  default:
    return LEVEL_ATOM;
  }
}

static void print_exp_operand(Printer *pr, const void *ctx, int i, int need) {
  print_exp(pr, ((const LcuExp *const *)ctx)[i], need);
}

static void print_exp_inner(Printer *pr, const LcuExp *e) {
  FILE *out = pr->out;
  switch (e->kind) {
  case LE_VAR:
    fputs(var_name(e->var), out);
    return;
  case LE_CONST:
    print_constant(out, &e->constant);
    return;
  case LE_INDEX:
    fprintf(out, e->in_range ? "%s![" : "%s[", var_name(e->var));
    print_exp(pr, e->args[0], LEVEL_OPEN);
    fputc(']', out);
    return;
  case LE_LENGTH:
    fprintf(out, "#%s", var_name(e->var));
    return;
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    fprintf(out, "%s(%s, ", e->kind == LE_SEG_LENGTH ? "seg_length" : "seg_offset", var_name(e->var));
    print_exp(pr, e->args[0], LEVEL_OPEN);
    fputc(')', out);
    return;
  case LE_BOUND:
    fputs("bound(", out);
    print_exp(pr, e->args[0], LEVEL_OPEN);
    fputs(", ", out);
    print_exp(pr, e->args[1], LEVEL_OPEN);
    fputc(')', out);
    return;
  case LE_OP: {
    int n = e->nargs < 0 ? 0 : e->nargs > 3 ? 3 : e->nargs;
    /* rem!: a divisor known not 0 (rem is never infix) */
    print_op(pr, e->op, e->in_range && e->op == FLAT_REM ? "!" : "", n, print_exp_operand, e->args);
    return;
  }
  case LE_IF:
    fputs("if ", out);
    print_exp(pr, e->args[0], LEVEL_GUARDED);
    fputs(" then ", out);
    print_exp(pr, e->args[1], LEVEL_GUARDED);
    fputs(" else ", out);
    print_exp(pr, e->args[2], LEVEL_OPEN);
    return;
  case LE_LET:
    fprintf(out, "let %s = ", var_name(e->var));
    print_exp(pr, e->args[0], LEVEL_GUARDED);
    fputs(" in ", out);
    print_exp(pr, e->args[1], LEVEL_OPEN);
    return;
  case LE_CALL:
    /* call f(args) : type: the reader meets calls before their callees */
    fputs("call ", out);
    print_name(out, e->callee && e->callee->name ? e->callee->name : "?");
    fputc('(', out);
    for (int i = 0; i < e->nargs; i++) {
      if (i)
        fputs(", ", out);
      print_exp(pr, e->args[i], LEVEL_OPEN);
    }
    fprintf(out, ") : %s", lcu_type_name(lcu_scalar(e->type)));
    return;
  }
  fputc('?', out);
}

/* 'e' where binding level 'need' is required: in parentheses if it binds
   more loosely.  An expression at another location than what encloses
   it is followed by its own, as an atom: `(x > 0.0)@7:26`. */
static void print_exp(Printer *pr, const LcuExp *e, int need) {
  if (!e) {
    fputc('?', pr->out);
    return;
  }
  Loc enclosing = pr->context;
  const char *enclosing_fn = pr->context_fn;
  bool located = !lcu_loc_equal(e->loc, enclosing) || e->lib_fn != enclosing_fn;
  if (located)
    need = LEVEL_ATOM;
  pr->context = e->loc;
  pr->context_fn = e->lib_fn;
  int level = exp_level(e);
  if (e->kind == LE_OP && level < 0) { /* COPY: as its operand */
    print_exp(pr, e->args[0], need);
  } else {
    bool parens = level < need;
    if (parens)
      fputc('(', pr->out);
    print_exp_inner(pr, e);
    if (parens)
      fputc(')', pr->out);
  }
  pr->context = enclosing;
  pr->context_fn = enclosing_fn;
  if (located && e->lib_fn) { /* moved out of an inlined library call */
    fputs("@{", pr->out);
    print_name(pr->out, e->lib_fn);
    fputc('}', pr->out);
    print_loc(pr, e->loc);
  } else if (located) {
    print_loc(pr, e->loc);
  }
}

/* x, or (x, y, ...) unless there is exactly one. */
static void print_var_tuple(FILE *out, const Vec *vars) {
  if (vars->len != 1)
    fputc('(', out);
  for (int i = 0; i < vars->len; i++) {
    if (i)
      fputs(", ", out);
    fputs(var_name(vars->data[i]), out);
  }
  if (vars->len != 1)
    fputc(')', out);
}

/* { xs => e using ys }, { (x, y) => (e1, e2) }, { () => e using ys },
   { i => let a = e1; let b = e2; (e3, e4) using ys } */
static void print_thunk(Printer *pr, const LcuThunk *t) {
  FILE *out = pr->out;
  if (!t) {
    fputc('?', out);
    return;
  }
  fputs("{ ", out);
  print_var_tuple(out, &t->params);
  fputs(" => ", out);
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    fprintf(out, "let %s = ", var_name(l->var));
    print_exp(pr, l->value, LEVEL_GUARDED);
    fputs("; ", out);
  }
  if (t->body.len == 1) {
    print_exp(pr, t->body.data[0], LEVEL_OPEN);
  } else {
    fputc('(', out);
    for (int i = 0; i < t->body.len; i++) {
      if (i)
        fputs(", ", out);
      print_exp(pr, t->body.data[i], i == t->body.len - 1 ? LEVEL_OPEN : LEVEL_GUARDED);
    }
    fputc(')', out);
  }
  if (t->using.len > 0) {
    fputs(" using ", out);
    for (int i = 0; i < t->using.len; i++) {
      if (i)
        fputs(", ", out);
      fputs(var_name(t->using.data[i]), out);
    }
  }
  fputs(" }", out);
}

/* ---- kernel level ---- */

static bool is_segmented(LcuSoacKind k) { return k >= SOAC_SEG_MAP && k <= SOAC_SEG_PARTITION; }

/* (#xs), (n), (10); a SEG_ SOAC's (sd) */
static void print_size(Printer *pr, const LcuSoac *s) {
  FILE *out = pr->out;
  if (is_segmented(s->kind))
    fprintf(out, "(%s)", var_name(s->segdes));
  else if (s->size.length)
    fprintf(out, "(#%s)", var_name(s->size.length));
  else if (s->size.var)
    fprintf(out, "(%s)", var_name(s->size.var));
  else
    fprintf(out, "(%d)", (int)s->size.value);
}

static void print_identity(Printer *pr, const Vec *ids) {
  fputc('(', pr->out);
  for (int i = 0; i < ids->len; i++) {
    if (i)
      fputs(", ", pr->out);
    print_constant(pr->out, ids->data[i]);
  }
  fputc(')', pr->out);
}

/* LIBRARY eql^ <(int, [char])> (a, b, c, d) */
static void print_library(Printer *pr, const LcuSoac *s) {
  FILE *out = pr->out;
  bool known = (unsigned)s->library < LIB_COUNT;
  fprintf(out, "LIBRARY %s", known ? lcu_library_name(s->library) : "?");
  if (known && (s->library == LIB_NAME || s->library == LIB_EQL || s->library == LIB_HASH)) {
    if (s->lifted)
      fputc('^', out);
    if (s->elem_name)
      fprintf(out, " <%s>", s->elem_name);
  }
  if (known && s->library == LIB_RAND)
    fprintf(out, " <site %d>", s->site);
  if (known && s->library == LIB_RANGE_SEGDES && s->once)
    fputs(" <once>", out);
  if (known && s->library == LIB_LOOP) {
    fputc(' ', out);
    print_name(out, s->callee && s->callee->name ? s->callee->name : "?");
  }
  fputc(' ', out);
  fputc('(', out);
  for (int i = 0; i < s->args.len; i++) {
    if (i)
      fputs(", ", out);
    fputs(var_name(s->args.data[i]), out);
  }
  fputc(')', out);
}

static void print_let(FILE *out, const Vec *results);

/* let xs = SOAC args */
static void print_soac(Printer *pr, const LcuSoac *s) {
  FILE *out = pr->out;
  indent_to(out, 2);
  if (!s) {
    fputs("?\n", out);
    return;
  }
  print_let(out, &s->results);
  pr->context = s->loc;
  pr->context_fn = NULL;
  if ((unsigned)s->kind >= SOAC_COUNT) {
    fputs("?\n", out);
    return;
  }
  if (s->kind == SOAC_LIBRARY) {
    print_library(pr, s);
    fputc('\n', out);
    return;
  }
  fprintf(out, "%s ", lcu_soac_name(s->kind));
  print_thunk(pr, s->pull);
  switch (s->kind) {
  case SOAC_ONCE:
    fputc('\n', out);
    return;
  case SOAC_MAP:
  case SOAC_SEG_MAP:
    break;
  case SOAC_REDUCE:
  case SOAC_SCAN:
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN:
    fputc(' ', out);
    print_identity(pr, &s->identity);
    fputc(' ', out);
    print_thunk(pr, s->second);
    break;
  case SOAC_SPLIT: /* the classes' widths: [2, 1, 2] */
    fputc(' ', out);
    print_thunk(pr, s->second);
    fputs(" [", out);
    for (int c = 0; c < s->classes; c++)
      fprintf(out, c ? ", %d" : "%d", s->widths ? s->widths[c] : 0);
    fputc(']', out);
    break;
  default: /* PERMUTE, FILTER, PARTITION and their SEG_ forms */
    fputc(' ', out);
    print_thunk(pr, s->second);
    break;
  }
  fputc(' ', out);
  print_size(pr, s);
  if (s->kind == SOAC_SPLIT && s->segdes)
    fprintf(out, " counts %s%s", var_name(s->segdes), s->offsets ? " offsets" : "");
  if (s->maps)
    fprintf(out, " maps %d", s->maps);
  if (s->joined)
    fputs(" joined", out);
  if (s->into)
    fprintf(out, " into %s", var_name(s->into));
  fputc('\n', out);
}

/* `x : [int]`, with the shape when known: `x : [int] #2` */
static void print_binder(FILE *out, const LcuVar *v) {
  fprintf(out, "%s : %s", var_name(v), v ? lcu_type_name(v->type) : "?");
  if (v && v->shape)
    fprintf(out, " #%d", v->shape);
  if (v && v->within)
    fprintf(out, " in %s", var_name(v->within));
}

/* `(a : int, b : [float])` as a parameter list */
static void print_params(FILE *out, const Vec *params) {
  fputc('(', out);
  for (int i = 0; i < params->len; i++) {
    if (i)
      fputs(", ", out);
    print_binder(out, params->data[i]);
  }
  fputc(')', out);
}

/* t, or (t1, t2, ...) unless there is exactly one. */
static void print_type_tuple(FILE *out, const LcuType *types, int n) {
  if (n != 1)
    fputc('(', out);
  for (int i = 0; i < n; i++) {
    if (i)
      fputs(", ", out);
    fputs(lcu_type_name(types[i]), out);
  }
  if (n != 1)
    fputc(')', out);
}

static void print_kernel(Printer *pr, const LcuKernel *k) {
  FILE *out = pr->out;
  fprintf(out, "kernel %s ", k->name ? k->name : "?");
  print_params(out, &k->params);
  fputs(" -> ", out);
  LcuType *types = xmalloc_atomic(sizeof(LcuType) * (size_t)(k->results.len + 1));
  for (int i = 0; i < k->results.len; i++) {
    const LcuVar *v = k->results.data[i];
    types[i] = v ? v->type : lcu_scalar(FB_INT);
  }
  print_type_tuple(out, types, k->results.len);
  fputs(" {\n", out);
  for (int i = 0; i < k->soacs.len; i++)
    print_soac(pr, k->soacs.data[i]);
  indent_to(out, 2);
  fputs("return ", out);
  print_var_tuple(out, &k->results);
  fputc('\n', out);
  fputs("}\n", out);
}

/* ---- CPU level ---- */

static void print_atom_at(Printer *pr, const LcuAtom *a, int need) {
  if (!a)
    fputc('?', pr->out);
  else if (a->var)
    fputs(var_name(a->var), pr->out);
  else
    print_constant_at(pr->out, &a->constant, need);
}

static void print_atom_operand(Printer *pr, const void *ctx, int i, int need) {
  print_atom_at(pr, vec_get(ctx, i), need);
}

/* (a, 5, x) */
static void print_atom_tuple(Printer *pr, const Vec *atoms) {
  fputc('(', pr->out);
  for (int i = 0; i < atoms->len; i++) {
    if (i)
      fputs(", ", pr->out);
    print_atom_at(pr, atoms->data[i], LEVEL_OPEN);
  }
  fputc(')', pr->out);
}

static void print_block(Printer *pr, const LcuBlock *b, int indent);

/* print_block as flat_print_braced calls it. */
static void print_nested(void *pr, const void *b, int indent) { print_block(pr, b, indent); }

/* `let x : int = `, `let (a : int, b : [int]) = `, or nothing for a
   statement without results. */
static void print_let(FILE *out, const Vec *results) {
  if (results->len == 0)
    return;
  fputs("let ", out);
  if (results->len != 1)
    fputc('(', out);
  for (int i = 0; i < results->len; i++) {
    if (i)
      fputs(", ", out);
    print_binder(out, results->data[i]);
  }
  if (results->len != 1)
    fputc(')', out);
  fputs(" = ", out);
}

/* True if the LS_HOST 's' builds a vector of printable character
   constants: a string, which prints as one. */
static bool is_string_vector(const LcuStmt *s) {
  if (!s->flat || s->flat->op != FLAT_VECTOR || s->args.len == 0)
    return false;
  for (int i = 0; i < s->args.len; i++) {
    const LcuAtom *a = s->args.data[i];
    if (!a || a->var || a->constant.kind != FA_CHAR || !isprint((unsigned char)a->constant.u.c))
      return false;
  }
  return true;
}

static char *string_text(const LcuStmt *s) {
  Buf b = {0};
  buf_putc(&b, '"');
  for (int i = 0; i < s->args.len; i++) {
    char c = ((const LcuAtom *)s->args.data[i])->constant.u.c;
    if (c == '"' || c == '\\')
      buf_putc(&b, '\\');
    buf_putc(&b, c);
  }
  buf_putc(&b, '"');
  return buf_str(&b);
}

/* host vector "abc", host print_string (s), host^ print_string (s, ss),
   host error (msg) */
static void print_host(Printer *pr, const LcuStmt *s) {
  FILE *out = pr->out;
  const FlatStmt *f = s->flat;
  if (!f || f->kind != FS_OP || !op_known(f->op)) {
    fputs("host ? ", out);
    print_atom_tuple(pr, &s->args);
    return;
  }
  if (is_string_vector(s)) {
    char *text = string_text(s);
    fprintf(out, "host vector %s", text);
    if (s->results.len == 1 && s->results.data[0])
      map_put(&pr->strings, var_name(s->results.data[0]), text);
    return;
  }
  fputs("host", out);
  if (f->lifted)
    fputc('^', out);
  /* a primitive with its argument and result types, which say how its
     components make NESL values */
  if (f->op == FLAT_HOST_PRIM) {
    fputc(' ', out);
    print_name(out, f->prim ? f->prim : "?");
    fprintf(out, " <%s -> %s>", f->elem_name ? f->elem_name : "?", f->result_name ? f->result_name : "?");
  } else {
    fprintf(out, " %s", flat_op_name(f->op));
  }
  fputc(' ', out);
  print_atom_tuple(pr, &s->args);
}

/* `  % msg = "text" %`: the text of a host statement's arguments that
   are constant strings. */
static void print_string_args(Printer *pr, const LcuStmt *s) {
  FILE *out = pr->out;
  bool first = true;
  for (int i = 0; i < s->args.len; i++) {
    const LcuAtom *a = s->args.data[i];
    const char *text = a && a->var ? map_get(&pr->strings, var_name(a->var)) : NULL;
    if (!text)
      continue;
    fprintf(out, first ? "  %% %s = %s" : ", %s = %s", var_name(a->var), text);
    first = false;
  }
  if (!first)
    fputs(" %", out);
}

/* ` @line:col` after a statement; a statement inlined from a library
   function shows where the user's code called it instead, ` from f
   @line:col`: its errors are reported there (lcu_interp.c). */
static void print_stmt_loc(Printer *pr, const LcuStmt *s) {
  FILE *out = pr->out;
  if (s->lib_fn) {
    fputs(" from ", out);
    print_name(out, s->lib_fn);
    fputc(' ', out);
    print_loc(pr, s->user_loc);
  } else if (s->loc.src) {
    fputc(' ', out);
    print_loc(pr, s->loc);
  }
}

static void print_stmt(Printer *pr, const LcuStmt *s, int indent) {
  FILE *out = pr->out;
  indent_to(out, indent);
  if (!s) {
    fputs("?\n", out);
    return;
  }
  print_let(out, &s->results);
  switch (s->kind) {
  case LS_SCALAR: {
    int n = s->args.len;
    if (op_known(s->op) && s->op == FLAT_COPY && n == 1)
      print_atom_at(pr, s->args.data[0], LEVEL_OPEN);
    else
      print_op(pr, s->op, "", n, print_atom_operand, &s->args);
    break;
  }
  case LS_RUN:
    fputs("run ", out);
    print_name(out, s->kernel && s->kernel->name ? s->kernel->name : "?");
    fputc(' ', out);
    print_atom_tuple(pr, &s->args);
    break;
  case LS_CALL:
    print_name(out, s->callee && s->callee->name ? s->callee->name : "?");
    fputc(' ', out);
    print_atom_tuple(pr, &s->args);
    break;
  case LS_IF:
    fputs("if ", out);
    print_atom_at(pr, s->args.len > 0 ? s->args.data[0] : NULL, LEVEL_OPEN);
    fputs(" then ", out);
    flat_print_braced(out, indent, print_nested, pr, s->then);
    fputs(" else ", out);
    flat_print_braced(out, indent, print_nested, pr, s->els);
    break;
  case LS_TIME:
    fputs("time ", out);
    flat_print_braced(out, indent, print_nested, pr, s->body);
    break;
  case LS_LENGTH:
    fputs(s->length == LEN_SEGMENTS ? "#segments " : s->length == LEN_TOTAL ? "#elements " : "#", out);
    print_atom_at(pr, s->args.len > 0 ? s->args.data[0] : NULL, LEVEL_ATOM);
    break;
  case LS_ELT: /* v[i] */
  case LS_UPDATE: /* v[i] := x */
    print_atom_at(pr, s->args.len > 0 ? s->args.data[0] : NULL, LEVEL_ATOM);
    fputc('[', out);
    print_atom_at(pr, s->args.len > 1 ? s->args.data[1] : NULL, LEVEL_OPEN);
    fputc(']', out);
    if (s->kind == LS_UPDATE) {
      fputs(" := ", out);
      print_atom_at(pr, s->args.len > 2 ? s->args.data[2] : NULL, LEVEL_OPEN);
    }
    break;
  case LS_HOST:
    print_host(pr, s);
    break;
  case LS_CHECK:
    fprintf(out, "check %s ", rt_check_name(s->check));
    print_atom_tuple(pr, &s->args);
    break;
  case LS_SIZE:
    fprintf(out, "size %s ", (unsigned)s->size <= SIZE_APPEND ? lcu_size_name(s->size) : "?");
    print_atom_tuple(pr, &s->args);
    break;
  case LS_COST:
    fprintf(out, "cost %s%s ", flat_cost_rule_name((FlatCostRule)s->cost_rule), s->lifted ? "^" : "");
    print_atom_tuple(pr, &s->args);
    break;
  default:
    fputc('?', out);
    break;
  }
  print_stmt_loc(pr, s);
  if (s->kind == LS_HOST)
    print_string_args(pr, s);
  fputc('\n', out);
}

/* return x, return (x, y) */
static void print_return(Printer *pr, const Vec *results, int indent) {
  indent_to(pr->out, indent);
  fputs("return ", pr->out);
  if (results->len == 1)
    print_atom_at(pr, results->data[0], LEVEL_OPEN);
  else
    print_atom_tuple(pr, results);
  fputc('\n', pr->out);
}

static void print_block(Printer *pr, const LcuBlock *b, int indent) {
  if (!b) {
    indent_to(pr->out, indent);
    fputs("% no block %\n", pr->out);
    return;
  }
  for (int i = 0; i < b->stmts.len; i++)
    print_stmt(pr, b->stmts.data[i], indent);
  print_return(pr, &b->results, indent);
}

static void print_func(Printer *pr, const LcuFunc *f) {
  FILE *out = pr->out;
  pr->strings = (Map){0};
  fputs("function ", out);
  print_name(out, f->name ? f->name : "?");
  fputc(' ', out);
  print_params(out, &f->params);
  fputs(" -> ", out);
  /* the result types are those of the body's results */
  int n = f->body ? f->body->results.len : 0;
  LcuType *types = xmalloc_atomic(sizeof(LcuType) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    const LcuAtom *a = f->body->results.data[i];
    types[i] = a ? lcu_atom_type(a) : lcu_scalar(FB_INT);
  }
  print_type_tuple(out, types, n);
  /* where it comes from, when the name does not say it all */
  if (f->source && f->name && strcmp(f->source, f->name) != 0) {
    fputs(" from ", out);
    print_name(out, f->source);
  }
  if (f->library)
    fputs(" library", out);
  if (f->each) { /* an element function, and the parameter it returns */
    fputs(" each", out);
    if (f->each_result >= 0 && f->each_result < f->params.len) {
      fputc(' ', out);
      fputs(var_name(f->params.data[f->each_result]), out);
    }
  }
  if (f->loc.src) {
    fputc(' ', out);
    print_loc(pr, f->loc);
  }
  fputs(" {\n", out);
  print_block(pr, f->body, 2);
  fputs("}\n", out);
}

char *lcu_statement_types(const FlatTop *ft) {
  Buf b = {0};
  if (ft->scheme)
    buf_printf(&b, " : %s", ft->scheme);
  if (ft->type_name)
    buf_printf(&b, " : %s", ft->type_name);
  return buf_str(&b);
}

/* `nesl "x = f(3);" : int`, then the statement's block:
   `top @2:1 -> (x_1 : int) { ... }`. */
static void print_top(Printer *pr, const LcuTop *t) {
  FILE *out = pr->out;
  const FlatTop *ft = t->flat;
  pr->strings = (Map){0};
  fputs(ft && ft->library ? "nesl library " : "nesl ", out);
  print_quoted(out, ft && ft->text ? ft->text : "?");
  if (ft)
    fputs(lcu_statement_types(ft), out);
  fputc('\n', out);
  if (!t->body)
    return;
  fputs("top ", out);
  if (ft && ft->loc.src) {
    print_loc(pr, ft->loc);
    fputc(' ', out);
  }
  if (t->defines.len > 0) {
    fputs("-> ", out);
    print_params(out, &t->defines);
    fputc(' ', out);
  }
  if (t->replaced.len > 0) {
    /* on an error, each global keeps the value of the one it replaces */
    fputs("keeping (", out);
    for (int i = 0; i < t->replaced.len; i++) {
      const LcuVar *v = t->replaced.data[i];
      fprintf(out, "%s%s", i ? ", " : "", v ? var_name(v) : "_");
    }
    fputs(") ", out);
  }
  fputs("{\n", out);
  print_block(pr, t->body, 2);
  fputs("}\n", out);
}

/* The file whose locations print as @line:col: the first user
   statement's, or the first user function's. */
static const Source *main_source(const LcuProgram *p) {
  for (int i = 0; i < p->tops.len; i++) {
    const LcuTop *t = p->tops.data[i];
    if (t && t->flat && t->flat->text && !t->flat->library && t->flat->loc.src)
      return t->flat->loc.src;
  }
  for (int i = 0; i < p->funcs.len; i++) {
    const LcuFunc *f = p->funcs.data[i];
    if (f && !f->library && f->loc.src)
      return f->loc.src;
  }
  return NULL;
}

/* Notes in 'read' the variables block 'b' reads. */
static void note_reads(const LcuBlock *b, PtrMap *read) {
  if (!b)
    return;
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    for (int k = 0; s && k < s->args.len; k++) {
      const LcuAtom *a = s->args.data[k];
      if (a && a->var)
        ptrmap_put(read, a->var, (void *)1);
    }
    if (s) {
      note_reads(s->then, read);
      note_reads(s->els, read);
      note_reads(s->body, read);
    }
  }
  for (int i = 0; i < b->results.len; i++) {
    const LcuAtom *a = b->results.data[i];
    if (a && a->var)
      ptrmap_put(read, a->var, (void *)1);
  }
}

/* A top-level statement the dump shows: the program's, and those of the
   library's (pi, newline, ...) whose globals the program reads. */
static bool shown(const LcuTop *t, const PtrMap *read) {
  if (!t)
    return false;
  if (!(t->flat && t->flat->library))
    return true;
  for (int i = 0; i < t->defines.len; i++)
    if (ptrmap_get(read, t->defines.data[i]))
      return true;
  return false;
}

void lcu_print_program(FILE *out, const LcuProgram *p) {
  Printer pr = {.out = out, .main = main_source(p)};
  if (pr.main) {
    fputs("source ", out);
    print_quoted(out, pr.main->name ? pr.main->name : "");
    fputs("\n\n", out);
  }
  for (int i = 0; i < p->kernels.len; i++) {
    const LcuKernel *k = p->kernels.data[i];
    if (!k)
      continue;
    print_kernel(&pr, k);
    fputc('\n', out);
  }
  for (int i = 0; i < p->funcs.len; i++) {
    const LcuFunc *f = p->funcs.data[i];
    if (!f)
      continue;
    print_func(&pr, f);
    fputc('\n', out);
  }
  /* the library's constants (pi, max_int, ...) run first but are not
     the program's: only those the program reads are shown */
  PtrMap read = {0};
  for (int i = 0; i < p->funcs.len; i++)
    if (p->funcs.data[i])
      note_reads(((const LcuFunc *)p->funcs.data[i])->body, &read);
  for (int i = 0; i < p->tops.len; i++)
    if (p->tops.data[i])
      note_reads(((const LcuTop *)p->tops.data[i])->body, &read);
  for (int i = 0; i < p->tops.len; i++)
    if (shown(p->tops.data[i], &read))
      print_top(&pr, p->tops.data[i]);
}
