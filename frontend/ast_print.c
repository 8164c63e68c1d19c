/*
 * ast_print.c: prints the AST back as NESL source (`--dump=ast`).
 *
 * Each expression is printed at a context level, the binding power of
 * the place it appears in; it is parenthesized when its own level is
 * lower.  Levels are those of common/syntax.def, with tuples at 4 and `if`/`let` at
 * 0 (they extend to the right as far as they can).  The output parses back
 * to the same tree, so printing it again gives the same text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"

enum {
  LEVEL_OPEN = 0,    /* if, let: only where nothing follows, or in ( ) */
  LEVEL_GUARDED = 1, /* generator sequences, let values, filters */
  LEVEL_TUPLE = 4,
  LEVEL_ELEMENT = 5, /* a sequence element: a tuple needs ( ) */
  LEVEL_UNARY = 25,
  LEVEL_POSTFIX = 30,
  LEVEL_ATOM = 40,
};

static void print_expr(Buf *b, const Expr *e, int ctx);
static void print_pattern(Buf *b, const Pattern *p);
static void print_type(Buf *b, const TypeExpr *t, bool bare_fun);

static int level_of(const Expr *e) {
  switch (e->kind) {
  case EX_IF:
  case EX_LET:
    return LEVEL_OPEN;
  case EX_PAIR:
    return LEVEL_TUPLE;
  case EX_BINOP:
    return binop_power((BinOp)e->u.op.op);
  case EX_UNOP:
    return LEVEL_UNARY;
  case EX_EMPTY:
    /* `[] T` followed by ( or [ reads on as part of the type (a
       constructor's arguments): as a function or a subscripted sequence
       it needs parentheses, `([] i)(#t)` */
    return LEVEL_UNARY;
  case EX_INDEX:
  case EX_APP:
    return LEVEL_POSTFIX;
  default:
    return LEVEL_ATOM;
  }
}

/* Shortest text that reads back as exactly 'v' (common/ops.c). */
static void print_float(Buf *b, double v) { buf_puts(b, nesl_float_text(v)); }

static void print_string_literal(Buf *b, const char *s, size_t n) {
  buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '\\')
      buf_putc(b, '\\');
    buf_putc(b, s[i]);
  }
  buf_putc(b, '"');
}

/* The elements of a tuple, right spine flattened: (a, b, c). */
static void print_tuple_items(Buf *b, const Expr *e) {
  for (;;) {
    print_expr(b, e->u.pair.fst, LEVEL_ELEMENT);
    buf_puts(b, ", ");
    e = e->u.pair.snd;
    if (e->kind != EX_PAIR || e->parenthesized) {
      print_expr(b, e, LEVEL_TUPLE);
      return;
    }
  }
}

static void print_generator(Buf *b, const Generator *g) {
  if (g->bare) {
    buf_puts(b, g->pat->name);
    return;
  }
  print_pattern(b, g->pat);
  buf_puts(b, " in ");
  print_expr(b, g->seq, LEVEL_GUARDED);
}

static void print_expr_inner(Buf *b, const Expr *e) {
  switch (e->kind) {
  case EX_INT:
    /* INT32_MIN only comes from `-2147483648` (lexer.re) */
    if (e->u.ival == INT32_MIN)
      buf_puts(b, "2147483648");
    else
      buf_printf(b, "%d", e->u.ival);
    break;
  case EX_FLOAT:
    print_float(b, e->u.fval);
    break;
  case EX_BOOL:
    buf_puts(b, e->u.bval ? "t" : "f");
    break;
  case EX_CHAR:
    buf_putc(b, '`');
    buf_putc(b, e->u.cval);
    break;
  case EX_STRING:
    print_string_literal(b, e->u.str.chars, e->u.str.len);
    break;
  case EX_VAR:
    buf_puts(b, e->u.ref.name);
    break;
  case EX_CALL:
    /* a juxtaposition `f x` prints as the call f(x) it means */
    buf_printf(b, "%s(", e->u.ref.name);
    print_expr(b, e->u.ref.arg, LEVEL_OPEN);
    buf_putc(b, ')');
    break;
  case EX_APP:
    print_expr(b, e->u.app.fn, LEVEL_POSTFIX);
    buf_putc(b, '(');
    print_expr(b, e->u.app.arg, LEVEL_OPEN);
    buf_putc(b, ')');
    break;
  case EX_BINOP: {
    BinOp op = (BinOp)e->u.op.op;
    int power = binop_power(op);
    bool right_assoc = op == BIN_READ;
    print_expr(b, e->u.op.lhs, right_assoc ? power + 1 : power);
    buf_printf(b, " %s ", binop_text(op));
    print_expr(b, e->u.op.rhs, right_assoc ? power : power + 1);
    break;
  }
  case EX_UNOP:
    buf_puts(b, unop_text((UnOp)e->u.op.op));
    print_expr(b, e->u.op.lhs, LEVEL_UNARY);
    break;
  case EX_PAIR:
    print_tuple_items(b, e);
    break;
  case EX_SEQ:
    buf_putc(b, '[');
    for (int i = 0; i < e->u.elems.len; i++) {
      if (i)
        buf_puts(b, ", ");
      print_expr(b, e->u.elems.data[i], LEVEL_ELEMENT);
    }
    buf_putc(b, ']');
    break;
  case EX_EMPTY:
    buf_puts(b, "[] ");
    print_type(b, e->u.elem_type, false);
    break;
  case EX_RANGE:
    buf_putc(b, '[');
    print_expr(b, e->u.range.start, LEVEL_GUARDED);
    buf_puts(b, " : ");
    print_expr(b, e->u.range.end, LEVEL_GUARDED);
    if (e->u.range.stride) {
      buf_puts(b, " : ");
      print_expr(b, e->u.range.stride, LEVEL_GUARDED);
    }
    buf_putc(b, ']');
    break;
  case EX_INDEX:
    print_expr(b, e->u.index.seq, LEVEL_POSTFIX);
    buf_putc(b, '[');
    print_expr(b, e->u.index.index, LEVEL_OPEN);
    buf_putc(b, ']');
    break;
  case EX_IF:
    buf_puts(b, "if ");
    print_expr(b, e->u.ifx.cond, LEVEL_OPEN);
    buf_puts(b, " then ");
    print_expr(b, e->u.ifx.then, LEVEL_OPEN);
    buf_puts(b, " else ");
    print_expr(b, e->u.ifx.els, LEVEL_OPEN);
    break;
  case EX_LET:
    buf_puts(b, "let ");
    for (int i = 0; i < e->u.let.binds.len; i++) {
      const Binding *bd = e->u.let.binds.data[i];
      if (i)
        buf_puts(b, "; ");
      print_pattern(b, bd->pat);
      buf_puts(b, " = ");
      print_expr(b, bd->value, LEVEL_GUARDED);
    }
    buf_puts(b, " in ");
    print_expr(b, e->u.let.body, LEVEL_OPEN);
    break;
  case EX_APPLY:
    buf_putc(b, '{');
    if (e->u.apply.filter_only) {
      for (int i = 0; i < e->u.apply.gens.len; i++) {
        if (i)
          buf_puts(b, "; ");
        print_generator(b, e->u.apply.gens.data[i]);
      }
    } else {
      print_expr(b, e->u.apply.body, LEVEL_OPEN);
      buf_puts(b, " : ");
      for (int i = 0; i < e->u.apply.gens.len; i++) {
        if (i)
          buf_puts(b, "; ");
        print_generator(b, e->u.apply.gens.data[i]);
      }
    }
    if (e->u.apply.filter) {
      buf_puts(b, " | ");
      print_expr(b, e->u.apply.filter, LEVEL_GUARDED);
    }
    buf_putc(b, '}');
    break;
  case EX_TIME:
    buf_puts(b, "time(");
    print_expr(b, e->u.timed, LEVEL_OPEN);
    buf_putc(b, ')');
    break;
  }
}

static void print_expr(Buf *b, const Expr *e, int ctx) {
  /* A parenthesized tuple keeps its parentheses: inside [ ] they make
     it one element. */
  bool parens = level_of(e) < ctx || (e->kind == EX_PAIR && e->parenthesized);
  if (parens)
    buf_putc(b, '(');
  print_expr_inner(b, e);
  if (parens)
    buf_putc(b, ')');
}

/* Pattern tuples print with parentheses, right spine flattened. */
static void print_pattern_items(Buf *b, const Pattern *p) {
  while (p->kind == PAT_PAIR) {
    print_pattern(b, p->fst);
    buf_puts(b, ", ");
    p = p->snd;
  }
  print_pattern(b, p);
}

static void print_pattern(Buf *b, const Pattern *p) {
  switch (p->kind) {
  case PAT_VAR:
    buf_puts(b, p->name);
    break;
  case PAT_WILD:
    buf_putc(b, '_');
    break;
  case PAT_PAIR:
    buf_putc(b, '(');
    print_pattern_items(b, p);
    buf_putc(b, ')');
    break;
  case PAT_CON:
    buf_printf(b, "%s(", p->name);
    print_pattern_items(b, p->arg);
    buf_putc(b, ')');
    break;
  }
}

static void print_type_items(Buf *b, const TypeExpr *t, bool bare_fun) {
  while (t->kind == TX_PAIR) {
    print_type(b, t->fst, bare_fun);
    buf_puts(b, ", ");
    t = t->snd;
  }
  print_type(b, t, bare_fun);
}

/* 'bare_fun': a function type may stand here without parentheses (inside
   ( ) or [ ], and as a signature's result); elsewhere it needs them. */
static void print_type(Buf *b, const TypeExpr *t, bool bare_fun) {
  switch (t->kind) {
  case TX_NAME:
    buf_puts(b, t->name);
    if (t->args.len) {
      buf_putc(b, '(');
      for (int i = 0; i < t->args.len; i++) {
        if (i)
          buf_puts(b, ", ");
        print_type(b, t->args.data[i], false);
      }
      buf_putc(b, ')');
    }
    break;
  case TX_SEQ:
    buf_putc(b, '[');
    print_type(b, t->elem, true);
    buf_putc(b, ']');
    break;
  case TX_PAIR:
    buf_putc(b, '(');
    print_type_items(b, t, true);
    buf_putc(b, ')');
    break;
  case TX_FUN:
    if (!bare_fun)
      buf_putc(b, '(');
    print_type(b, t->fst, false);
    buf_puts(b, " -> ");
    print_type(b, t->snd, true);
    if (!bare_fun)
      buf_putc(b, ')');
    break;
  }
}

static void print_context(Buf *b, const Vec *ctx) {
  if (!ctx->len)
    return;
  buf_puts(b, " :: (");
  for (int i = 0; i < ctx->len; i++) {
    const ContextItem *c = ctx->data[i];
    if (i)
      buf_puts(b, "; ");
    buf_printf(b, "%s in %s", c->var, c->klass);
  }
  buf_putc(b, ')');
}

static void print_top(Buf *b, const TopLevel *t) {
  switch (t->kind) {
  case TOP_FUNCTION:
    buf_printf(b, "function %s", t->name);
    if (t->param->kind == PAT_PAIR) {
      print_pattern(b, t->param);
    } else {
      buf_putc(b, '(');
      print_pattern(b, t->param);
      buf_putc(b, ')');
    }
    if (t->sig) {
      buf_puts(b, " : ");
      print_type(b, t->sig->arg, false);
      buf_puts(b, " -> ");
      print_type(b, t->sig->result, true);
      print_context(b, &t->sig->context);
    }
    if (t->doc) {
      buf_putc(b, ' ');
      print_string_literal(b, t->doc, t->doc_len);
    }
    if (t->body) {
      buf_puts(b, " = ");
      print_expr(b, t->body, LEVEL_OPEN);
    }
    break;
  case TOP_DATATYPE:
    buf_printf(b, "datatype %s(", t->name);
    print_type_items(b, t->fields, false);
    buf_putc(b, ')');
    print_context(b, &t->context);
    break;
  case TOP_BIND:
    print_pattern(b, t->pat);
    buf_puts(b, " = ");
    print_expr(b, t->body, LEVEL_OPEN);
    break;
  case TOP_EXPR:
    print_expr(b, t->body, LEVEL_OPEN);
    break;
  }
  buf_putc(b, ';');
}

char *ast_expr_to_string(const Expr *e) {
  Buf b = {0};
  print_expr(&b, e, LEVEL_OPEN);
  return buf_str(&b);
}

/* fwrite, not fputs: a string or character literal may hold a NUL byte */
static void put_buf(FILE *out, Buf *b) { fwrite(buf_str(b), 1, b->len, out); }

void ast_print_expr(FILE *out, const Expr *e) {
  Buf b = {0};
  print_expr(&b, e, LEVEL_OPEN);
  put_buf(out, &b);
}

char *ast_pattern_to_string(const Pattern *p) {
  Buf b = {0};
  print_pattern(&b, p);
  return buf_str(&b);
}

void ast_print_pattern(FILE *out, const Pattern *p) {
  Buf b = {0};
  print_pattern(&b, p);
  put_buf(out, &b);
}

void ast_print_type_expr(FILE *out, const TypeExpr *t) {
  Buf b = {0};
  print_type(&b, t, false);
  put_buf(out, &b);
}

void ast_print_top(FILE *out, const TopLevel *t) {
  Buf b = {0};
  print_top(&b, t);
  put_buf(out, &b);
}

void ast_print_program(FILE *out, const Program *prog) {
  for (int i = 0; i < prog->tops.len; i++) {
    ast_print_top(out, prog->tops.data[i]);
    fputc('\n', out);
  }
}

