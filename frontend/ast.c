/*
 * ast.c: constructors for AST nodes.  Every node gets its location first,
 * as chibicc's constructors do; GC_MALLOC zeroes the rest.
 */
#include <string.h>

#include "ast.h"

Expr *ast_expr(ExprKind kind, Loc loc) {
  Expr *e = NEW(Expr);
  e->kind = kind;
  e->loc = loc;
  e->depth = 1;
  return e;
}

static int deeper(const Expr *a, const Expr *b) {
  int d = a->depth;
  if (b && b->depth > d)
    d = b->depth;
  return d + 1;
}

Expr *ast_int(Loc loc, int32_t v) {
  Expr *e = ast_expr(EX_INT, loc);
  e->u.ival = v;
  return e;
}

Expr *ast_float(Loc loc, double v) {
  Expr *e = ast_expr(EX_FLOAT, loc);
  e->u.fval = v;
  return e;
}

Expr *ast_bool(Loc loc, bool v) {
  Expr *e = ast_expr(EX_BOOL, loc);
  e->u.bval = v;
  return e;
}

Expr *ast_char(Loc loc, char c) {
  Expr *e = ast_expr(EX_CHAR, loc);
  e->u.cval = c;
  return e;
}

Expr *ast_string(Loc loc, const char *chars, size_t len) {
  Expr *e = ast_expr(EX_STRING, loc);
  e->u.str.chars = chars;
  e->u.str.len = len;
  return e;
}

Expr *ast_var(Loc loc, const char *name) {
  Expr *e = ast_expr(EX_VAR, loc);
  e->u.ref.name = intern(name);
  return e;
}

Expr *ast_call(Loc loc, const char *name, Expr *arg) {
  Expr *e = ast_expr(EX_CALL, loc);
  e->u.ref.name = intern(name);
  e->u.ref.arg = arg;
  e->depth = deeper(arg, NULL);
  return e;
}

Expr *ast_app(Loc loc, Expr *fn, Expr *arg) {
  Expr *e = ast_expr(EX_APP, loc);
  e->u.app.fn = fn;
  e->u.app.arg = arg;
  e->depth = deeper(fn, arg);
  return e;
}

Expr *ast_binop(Loc loc, BinOp op, Expr *lhs, Expr *rhs) {
  Expr *e = ast_expr(EX_BINOP, loc);
  e->u.op.op = (int)op;
  e->u.op.lhs = lhs;
  e->u.op.rhs = rhs;
  e->depth = deeper(lhs, rhs);
  return e;
}

Expr *ast_unop(Loc loc, UnOp op, Expr *arg) {
  Expr *e = ast_expr(EX_UNOP, loc);
  e->u.op.op = (int)op;
  e->u.op.lhs = arg;
  e->depth = deeper(arg, NULL);
  return e;
}

Expr *ast_pair(Loc loc, Expr *fst, Expr *snd) {
  Expr *e = ast_expr(EX_PAIR, loc);
  e->u.pair.fst = fst;
  e->u.pair.snd = snd;
  e->depth = deeper(fst, snd);
  return e;
}

Expr *ast_if(Loc loc, Expr *cond, Expr *then, Expr *els) {
  Expr *e = ast_expr(EX_IF, loc);
  e->u.ifx.cond = cond;
  e->u.ifx.then = then;
  e->u.ifx.els = els;
  e->depth = deeper(cond, then) > deeper(els, NULL) ? deeper(cond, then) : deeper(els, NULL);
  return e;
}

Expr *ast_index(Loc loc, Expr *seq, Expr *index) {
  Expr *e = ast_expr(EX_INDEX, loc);
  e->u.index.seq = seq;
  e->u.index.index = index;
  e->depth = deeper(seq, index);
  return e;
}

Expr *ast_time(Loc loc, Expr *timed) {
  Expr *e = ast_expr(EX_TIME, loc);
  e->u.timed = timed;
  return e;
}

Expr *ast_pattern_to_expr(Pattern *p) {
  switch (p->kind) {
  case PAT_VAR:
    return ast_var(p->loc, p->name);
  case PAT_WILD:
    return NULL;
  case PAT_PAIR: {
    Expr *a = ast_pattern_to_expr(p->fst);
    Expr *b = ast_pattern_to_expr(p->snd);
    return a && b ? ast_pair(p->loc, a, b) : NULL;
  }
  case PAT_CON: {
    Expr *a = ast_pattern_to_expr(p->arg);
    return a ? ast_call(p->loc, p->name, a) : NULL;
  }
  }
  return NULL;
}

static Pattern *pattern(PatKind kind, Loc loc) {
  Pattern *p = NEW(Pattern);
  p->kind = kind;
  p->loc = loc;
  return p;
}

Pattern *ast_pat_var(Loc loc, const char *name) {
  Pattern *p = pattern(PAT_VAR, loc);
  p->name = intern(name);
  return p;
}

Pattern *ast_pat_wild(Loc loc) { return pattern(PAT_WILD, loc); }

Pattern *ast_pat_pair(Loc loc, Pattern *fst, Pattern *snd) {
  Pattern *p = pattern(PAT_PAIR, loc);
  p->fst = fst;
  p->snd = snd;
  return p;
}

Pattern *ast_pat_con(Loc loc, const char *name, Pattern *arg) {
  Pattern *p = pattern(PAT_CON, loc);
  p->name = intern(name);
  p->arg = arg;
  return p;
}

static TypeExpr *type_expr(TypeExprKind kind, Loc loc) {
  TypeExpr *t = NEW(TypeExpr);
  t->kind = kind;
  t->loc = loc;
  return t;
}

TypeExpr *ast_type_name(Loc loc, const char *name) {
  TypeExpr *t = type_expr(TX_NAME, loc);
  t->name = name;
  return t;
}

TypeExpr *ast_type_seq(Loc loc, TypeExpr *elem) {
  TypeExpr *t = type_expr(TX_SEQ, loc);
  t->elem = elem;
  return t;
}

TypeExpr *ast_type_pair(Loc loc, TypeExpr *fst, TypeExpr *snd) {
  TypeExpr *t = type_expr(TX_PAIR, loc);
  t->fst = fst;
  t->snd = snd;
  return t;
}

TypeExpr *ast_type_fun(Loc loc, TypeExpr *arg, TypeExpr *result) {
  TypeExpr *t = type_expr(TX_FUN, loc);
  t->fst = arg;
  t->snd = result;
  return t;
}

TopLevel *ast_top(TopKind kind, Loc loc) {
  TopLevel *t = NEW(TopLevel);
  t->kind = kind;
  t->loc = loc;
  return t;
}

void ast_expr_children(Expr *e, void (*expr)(void *ctx, Expr *child), void (*pat)(void *ctx, Pattern *p), void *ctx) {
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
  case EX_STRING:
  case EX_VAR:
  case EX_EMPTY:
    return;
  case EX_CALL:
    expr(ctx, e->u.ref.arg);
    return;
  case EX_APP:
    expr(ctx, e->u.app.fn);
    expr(ctx, e->u.app.arg);
    return;
  case EX_BINOP:
  case EX_UNOP:
    expr(ctx, e->u.op.lhs);
    if (e->kind == EX_BINOP)
      expr(ctx, e->u.op.rhs);
    return;
  case EX_PAIR:
    expr(ctx, e->u.pair.fst);
    expr(ctx, e->u.pair.snd);
    return;
  case EX_SEQ:
    for (int i = 0; i < e->u.elems.len; i++)
      expr(ctx, e->u.elems.data[i]);
    return;
  case EX_RANGE:
    expr(ctx, e->u.range.start);
    expr(ctx, e->u.range.end);
    if (e->u.range.stride)
      expr(ctx, e->u.range.stride);
    return;
  case EX_INDEX:
    expr(ctx, e->u.index.seq);
    expr(ctx, e->u.index.index);
    return;
  case EX_IF:
    expr(ctx, e->u.ifx.cond);
    expr(ctx, e->u.ifx.then);
    expr(ctx, e->u.ifx.els);
    return;
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i];
      expr(ctx, b->value);
      if (pat)
        pat(ctx, b->pat);
    }
    expr(ctx, e->u.let.body);
    return;
  case EX_APPLY:
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      Generator *g = e->u.apply.gens.data[i];
      expr(ctx, g->seq);
      if (pat)
        pat(ctx, g->pat);
    }
    if (e->u.apply.filter)
      expr(ctx, e->u.apply.filter);
    expr(ctx, e->u.apply.body);
    return;
  case EX_TIME:
    expr(ctx, e->u.timed);
    return;
  }
}

void ast_pattern_names(const Pattern *p, Vec *out) {
  switch (p->kind) {
  case PAT_VAR:
    vec_push(out, (void *)p->name);
    return;
  case PAT_PAIR:
    ast_pattern_names(p->fst, out);
    ast_pattern_names(p->snd, out);
    return;
  case PAT_CON:
    ast_pattern_names(p->arg, out);
    return;
  case PAT_WILD:
    return;
  }
}

bool ast_bind_it(TopLevel *top) {
  if (top->kind != TOP_EXPR)
    return false;
  top->kind = TOP_BIND;
  top->pat = ast_pat_var(top->loc, "it");
  return true;
}

static void find_it(void *ctx, Expr *e) {
  bool *found = ctx;
  if (*found)
    return;
  if (e->kind == EX_VAR && strcmp(e->u.ref.name, "it") == 0) {
    *found = true;
    return;
  }
  ast_expr_children(e, find_it, NULL, ctx);
}

bool ast_program_reads_it(const Program *prog) {
  bool found = false;
  for (int i = 0; i < prog->tops.len && !found; i++) {
    TopLevel *top = prog->tops.data[i];
    if (top->body)
      find_it(&found, top->body);
  }
  return found;
}
