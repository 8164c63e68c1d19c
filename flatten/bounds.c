/*
 * bounds.c: subscripts that the conditions around them keep in range
 * (bounds.h).
 *
 * The walk carries what is known of the lengths of local variables: a
 * list of facts `#name >= min`, the innermost first.  An `if`'s
 * condition adds to each branch what it says there (`#a < 2` false:
 * #a >= 2; `#a == 0` false: #a >= 1; `and` in the then branch, `or` in
 * the else branch, `not`); an apply-to-each's filter adds nothing
 * (below).  A let that binds an int to `#a`, `#a / c`, `#a - c` or a
 * constant makes it an alias, read through where a condition or an
 * index names it.  A pattern that binds a name again hides what was
 * known of it, and the aliases that read it.
 */
#include "flatten/bounds.h"

#include <string.h>

#include "frontend/typecheck.h"

/* What a record of the list says of its name: a lower bound on its
   length, that it was bound again (nothing known of it from here on,
   nor of an alias that reads it), or that it is a local int bound to
   an expression of lengths (`let m = #a / 2`), read through it. */
typedef enum FactKind { FACT_MIN, FACT_HIDE, FACT_ALIAS } FactKind;

typedef struct Fact {
  FactKind kind;
  const char *name;
  int64_t min;        /* FACT_MIN: #name >= min */
  const Expr *value;  /* FACT_ALIAS */
  const struct Fact *next;
} Fact;

static const Fact *add(const Fact *f, FactKind kind, const char *name, int64_t min, const Expr *value) {
  Fact *n = NEW(Fact);
  *n = (Fact){kind, name, min, value, f};
  return n;
}

static const Fact *add_fact(const Fact *f, const char *name, int64_t min) {
  return add(f, FACT_MIN, name, min, NULL);
}

/* The least length known of local 'name', 0 where nothing is known. */
static int64_t min_length(const Fact *f, const char *name) {
  int64_t best = 0;
  for (; f; f = f->next)
    if (strcmp(f->name, name) == 0) {
      if (f->kind == FACT_HIDE)
        break;
      if (f->kind == FACT_MIN && f->min > best)
        best = f->min;
    }
  return best;
}

static const Fact *hide(const Fact *f, const Pattern *p) {
  Vec names = {0};
  ast_pattern_names(p, &names);
  for (int i = 0; i < names.len; i++)
    f = add(f, FACT_HIDE, names.data[i], 0, NULL);
  return f;
}

static bool is_local(const Expr *e) { return e->kind == EX_VAR && !e->u.ref.def; }

/* The expression local 'name' was bound to (FACT_ALIAS), where neither
   it nor a variable that expression reads has been bound again since;
   else NULL. */
static const Expr *alias_of(const Fact *f, const char *name) {
  Vec hidden = {0};
  for (; f; f = f->next) {
    if (f->kind == FACT_HIDE && strcmp(f->name, name) != 0) {
      vec_push(&hidden, (void *)f->name);
      continue;
    }
    if (strcmp(f->name, name) != 0 || f->kind == FACT_MIN)
      continue;
    if (f->kind == FACT_HIDE)
      return NULL;
    /* the variable its `#x` reads, if any, is the same binding */
    const Expr *v = f->value;
    const Expr *len = v->kind == EX_BINOP ? v->u.op.lhs : v;
    const Expr *x = len->kind == EX_UNOP ? len->u.op.lhs : len;
    if (is_local(x))
      for (int i = 0; i < hidden.len; i++)
        if (strcmp(hidden.data[i], x->u.ref.name) == 0)
          return NULL;
    return v;
  }
  return NULL;
}

/* `#x` of a local variable x, or a local bound to one: x's name, else
   NULL. */
static const char *length_of_local(const Expr *e, const Fact *f) {
  if (is_local(e)) {
    const Expr *v = alias_of(f, e->u.ref.name);
    return v && v->kind == EX_UNOP ? length_of_local(v, NULL) : NULL;
  }
  if (e->kind != EX_UNOP || e->u.op.op != UN_LENGTH)
    return NULL;
  const Expr *x = e->u.op.lhs;
  return is_local(x) ? x->u.ref.name : NULL;
}

/* An expression a local may stand for: `#x`, `#x / c`, `#x - c` (c a
   constant, #x perhaps through a local bound to it) or a constant. */
static bool aliasable(const Expr *v, const Fact *f) {
  if (v->kind == EX_INT || length_of_local(v, NULL))
    return true;
  return v->kind == EX_BINOP && (v->u.op.op == BIN_DIV || v->u.op.op == BIN_SUB) &&
         v->u.op.rhs->kind == EX_INT && length_of_local(v->u.op.lhs, f);
}

static BinOp flipped(BinOp op) { /* k op #x as #x op' k */
  switch (op) {
  case BIN_LT:
    return BIN_GT;
  case BIN_GT:
    return BIN_LT;
  case BIN_LE:
    return BIN_GE;
  case BIN_GE:
    return BIN_LE;
  default:
    return op;
  }
}

static BinOp negated(BinOp op) {
  switch (op) {
  case BIN_LT:
    return BIN_GE;
  case BIN_GE:
    return BIN_LT;
  case BIN_LE:
    return BIN_GT;
  case BIN_GT:
    return BIN_LE;
  case BIN_EQ:
    return BIN_NE;
  case BIN_NE:
    return BIN_EQ;
  default:
    return op;
  }
}

/* What condition 'c' says of lengths where its value is 'truth'. */
static const Fact *facts_of(const Expr *c, bool truth, const Fact *f) {
  if (c->kind == EX_CALL && c->u.ref.def && c->u.ref.def->library && strcmp(c->u.ref.name, "not") == 0)
    return facts_of(c->u.ref.arg, !truth, f);
  if (c->kind != EX_BINOP)
    return f;
  BinOp op = c->u.op.op;
  const Expr *l = c->u.op.lhs, *r = c->u.op.rhs;
  switch (op) {
  case BIN_AND: /* both hold where it is true */
    return truth ? facts_of(r, true, facts_of(l, true, f)) : f;
  case BIN_OR: /* neither holds where it is false */
    return truth ? f : facts_of(r, false, facts_of(l, false, f));
  case BIN_NOR:
    return truth ? facts_of(r, false, facts_of(l, false, f)) : f;
  case BIN_NAND:
    return truth ? f : facts_of(r, true, facts_of(l, true, f));
  case BIN_LT:
  case BIN_GT:
  case BIN_LE:
  case BIN_GE:
  case BIN_EQ:
  case BIN_NE:
    break;
  default:
    return f;
  }
  const char *name = length_of_local(l, f);
  const Expr *k = r;
  if (!name) {
    name = length_of_local(r, f);
    k = l;
    op = flipped(op);
  }
  if (!name || k->kind != EX_INT)
    return f;
  if (!truth)
    op = negated(op);
  int64_t v = k->u.ival, min = 0;
  switch (op) {
  case BIN_GT:
    min = v + 1;
    break;
  case BIN_GE:
  case BIN_EQ:
    min = v;
    break;
  case BIN_NE: /* #x >= v known before: #x >= v + 1 */
    min = v == min_length(f, name) ? v + 1 : 0;
    break;
  default: /* an upper bound: not kept */
    break;
  }
  return min > 0 ? add_fact(f, name, min) : f;
}

/* Is 'i' an index into local 'name', at least 'n' long, that cannot be
   out of range ('f': the locals i may be read through)? */
static bool index_in_range(const Expr *i, const char *name, int64_t n, const Fact *f) {
  if (is_local(i)) {
    const Expr *v = alias_of(f, i->u.ref.name);
    return v && index_in_range(v, name, n, f);
  }
  if (i->kind == EX_INT)
    return i->u.ival >= 0 && i->u.ival < n;
  if (i->kind != EX_BINOP || i->u.op.rhs->kind != EX_INT)
    return false;
  const char *of = length_of_local(i->u.op.lhs, f);
  if (!of || strcmp(of, name) != 0)
    return false;
  int64_t c = i->u.op.rhs->u.ival;
  if (i->u.op.op == BIN_DIV) /* 0 <= #a / c <= #a / 2 < #a where #a >= 1 */
    return c >= 2 && n >= 1;
  if (i->u.op.op == BIN_SUB) /* 0 <= #a - c < #a where 1 <= c <= #a */
    return c >= 1 && c <= n;
  return false;
}

typedef struct Walk {
  const Fact *facts;
} Walk;

static void walk(Expr *e, const Fact *f);

static void walk_child(void *ctx, Expr *child) { walk(child, ((Walk *)ctx)->facts); }

static void walk(Expr *e, const Fact *f) {
  switch (e->kind) {
  case EX_INDEX: {
    walk(e->u.index.seq, f);
    walk(e->u.index.index, f);
    const Expr *s = e->u.index.seq;
    if (s->kind == EX_VAR && !s->u.ref.def &&
        index_in_range(e->u.index.index, s->u.ref.name, min_length(f, s->u.ref.name), f))
      e->u.index.in_range = true;
    return;
  }
  case EX_IF:
    walk(e->u.ifx.cond, f);
    walk(e->u.ifx.then, facts_of(e->u.ifx.cond, true, f));
    walk(e->u.ifx.els, facts_of(e->u.ifx.cond, false, f));
    return;
  case EX_LET: /* each binding sees those before it */
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i];
      walk(b->value, f);
      const Fact *before = f;
      f = hide(f, b->pat);
      if (b->pat->kind == PAT_VAR && aliasable(b->value, before))
        f = add(f, FACT_ALIAS, b->pat->name, 0, b->value);
    }
    walk(e->u.let.body, f);
    return;
  case EX_APPLY: { /* the generators' sequences see none of their names */
    const Fact *inner = f;
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      Generator *g = e->u.apply.gens.data[i];
      walk(g->seq, f);
      inner = hide(inner, g->pat);
    }
    /* not the filter's facts: nessie computes the body only where the
       filter holds, but CMU NESL 3.1 computes it for every element
       (`{a[0] : a in [[1], [] int] | #a > 0}` is an out-of-bounds error
       there; docs/nesl.md), and this pass leaves the choice alone */
    if (e->u.apply.filter)
      walk(e->u.apply.filter, inner);
    walk(e->u.apply.body, inner);
    return;
  }
  default:
    ast_expr_children(e, walk_child, NULL, &(Walk){f});
    return;
  }
}

void bounds_mark_subscripts(Expr *e) {
  if (e)
    walk(e, NULL);
}
