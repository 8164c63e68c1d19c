/*
 * invariant.c: closed, pure expressions (invariant.h says why).
 *
 * Both evaluators of lifted code ask the same question of the same
 * expressions (eval of the checked program, flatten of its
 * monomorphized copy), so the answer depends only on what both see
 * alike: local variables, function values (an EX_APP here, an EX_CALL
 * marked from_value there) and the definitions that calls name.
 */
#include "frontend/invariant.h"

#include <string.h>

#include "frontend/typecheck.h"
#include "frontend/types.h"

enum { CLOSED_YES = 1, CLOSED_NO };
enum { PURE_YES = 1, PURE_NO, PURE_VISITING };

/* ---- free local variables ---- */

/* A name no variable has: what an application of a function value reads
   (the function may be a local variable, or made from one). */
static const char FUNCTION_VALUE[] = "<function value>";

typedef struct Names {
  Vec names; /* const char * (interned), no repeats */
} Names;

static bool has(const Names *n, const char *s) {
  for (int i = 0; i < n->names.len; i++)
    if (n->names.data[i] == s)
      return true;
  return false;
}

static void add(Names *n, const char *s) {
  if (!has(n, s))
    vec_push(&n->names, (void *)s);
}

/* Adds to 'out' the names of 'from' that 'bound' does not hold. */
static void add_unbound(Names *out, const Names *from, const Names *bound) {
  for (int i = 0; i < from->names.len; i++)
    if (!bound || !has(bound, from->names.data[i]))
      add(out, from->names.data[i]);
}

static const Names *free_locals(Invariants *m, Expr *e);

typedef struct Union {
  Invariants *m;
  Names *out;
} Union;

static void union_child(void *ctx, Expr *child) {
  Union *u = ctx;
  add_unbound(u->out, free_locals(u->m, child), NULL);
}

/* The local variables 'e' reads that it does not bind itself (once per
   expression: free_locals keeps them in m->free). */
static const Names *free_locals_uncached(Invariants *m, Expr *e) {
  Names *out = NEW(Names);
  switch (e->kind) {
  case EX_VAR:
    if (!e->u.ref.def)
      add(out, e->u.ref.name);
    return out;
  case EX_APP:
    add(out, FUNCTION_VALUE);
    ast_expr_children(e, union_child, NULL, &(Union){m, out});
    return out;
  case EX_CALL:
    if (e->from_value)
      add(out, FUNCTION_VALUE);
    add_unbound(out, free_locals(m, e->u.ref.arg), NULL);
    return out;
  case EX_LET: { /* each binding sees those before it */
    Names bound = {0};
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i];
      add_unbound(out, free_locals(m, b->value), &bound);
      ast_pattern_names(b->pat, &bound.names);
    }
    add_unbound(out, free_locals(m, e->u.let.body), &bound);
    return out;
  }
  case EX_APPLY: { /* the generators' sequences see none of their names */
    Names bound = {0};
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      Generator *g = e->u.apply.gens.data[i];
      add_unbound(out, free_locals(m, g->seq), NULL);
      ast_pattern_names(g->pat, &bound.names);
    }
    if (e->u.apply.filter)
      add_unbound(out, free_locals(m, e->u.apply.filter), &bound);
    add_unbound(out, free_locals(m, e->u.apply.body), &bound);
    return out;
  }
  default:
    ast_expr_children(e, union_child, NULL, &(Union){m, out});
    return out;
  }
}

static const Names *free_locals(Invariants *m, Expr *e) {
  const Names *n = ptrmap_get(&m->free, e);
  if (!n) {
    n = free_locals_uncached(m, e);
    ptrmap_put(&m->free, e, (void *)n);
  }
  return n;
}

/* ---- purity ---- */

/* The primitives whose result is not a function of their arguments, or
   that act on the world: computed once, they would act once. */
static bool impure_primitive(const char *name) {
  static const char *const prefixes[] = {"rand", "print_", "write_", "append_", "read_", "open_", "close_",
                                         "get_environment", "__global_value", "__keep_value"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return true;
  return false;
}

static bool pure_expr(Invariants *m, Expr *e);

/* A definition is pure when it is a constructor or value, a pure
   primitive, or a function whose body (and that of every later
   definition of its name, which calls may reach) is pure.  A function
   met again while its body is being looked at counts as pure: the
   others decide. */
static bool pure_def(Invariants *m, Def *d) {
  for (; d; d = d->replaced_by) {
    intptr_t state = (intptr_t)ptrmap_get(&m->pure, d);
    if (state == PURE_NO)
      return false;
    if (state)
      continue;
    if (d->kind != DEF_FUNCTION)
      continue;
    if (d->primitive) {
      bool ok = !impure_primitive(d->name);
      ptrmap_put(&m->pure, d, (void *)(intptr_t)(ok ? PURE_YES : PURE_NO));
      if (!ok)
        return false;
      continue;
    }
    if (!d->top || !d->top->body) /* declared, not yet defined */
      return false;
    ptrmap_put(&m->pure, d, (void *)(intptr_t)PURE_VISITING);
    bool ok = pure_expr(m, d->top->body);
    ptrmap_put(&m->pure, d, (void *)(intptr_t)(ok ? PURE_YES : PURE_NO));
    if (!ok)
      return false;
  }
  return true;
}

typedef struct PureWalk {
  Invariants *m;
  bool pure;
} PureWalk;

static void pure_child(void *ctx, Expr *child) {
  PureWalk *w = ctx;
  if (w->pure && !pure_expr(w->m, child))
    w->pure = false;
}

static bool pure_expr(Invariants *m, Expr *e) {
  switch (e->kind) {
  case EX_TIME:
  case EX_APP:
    return false;
  case EX_CALL:
    if (e->u.ref.def && !pure_def(m, e->u.ref.def))
      return false;
    break;
  case EX_BINOP:
  case EX_UNOP:
    if (e->u.op.def && !pure_def(m, e->u.op.def))
      return false;
    break;
  default:
    break;
  }
  PureWalk w = {m, true};
  ast_expr_children(e, pure_child, NULL, &w);
  return w.pure;
}

/* ---- work ---- */

typedef struct WorkWalk {
  bool work;
} WorkWalk;

static bool does_work(Expr *e);

static void work_child(void *ctx, Expr *child) {
  WorkWalk *w = ctx;
  if (!w->work && does_work(child))
    w->work = true;
}

static bool does_work(Expr *e) {
  switch (e->kind) {
  case EX_CALL:
  case EX_UNOP:
  case EX_BINOP:
  case EX_INDEX:
  case EX_RANGE:
  case EX_APPLY:
  case EX_LET:
  case EX_IF:
    return true;
  default: {
    WorkWalk w = {false};
    ast_expr_children(e, work_child, NULL, &w);
    return w.work;
  }
  }
}

bool inv_hoistable(Invariants *m, Expr *e) {
  intptr_t known = (intptr_t)ptrmap_get(&m->closed, e);
  if (known)
    return known == CLOSED_YES;
  Type *t = e->type ? type_resolve(e->type) : NULL;
  bool yes = t && t->kind != T_FUN && free_locals(m, e)->names.len == 0 && does_work(e) && pure_expr(m, e);
  ptrmap_put(&m->closed, e, (void *)(intptr_t)(yes ? CLOSED_YES : CLOSED_NO));
  return yes;
}

/* ---- the walk over no elements ---- */

typedef struct ClosedWalk {
  Invariants *m;
  void (*closed)(void *ctx, Expr *e);
  void (*call)(void *ctx, Expr *e);
  void *ctx;
} ClosedWalk;

static void walk(ClosedWalk *w, Expr *e);

static void walk_child(void *ctx, Expr *child) { walk(ctx, child); }

static void walk(ClosedWalk *w, Expr *e) {
  if (inv_hoistable(w->m, e)) {
    w->closed(w->ctx, e);
    return;
  }
  if (e->kind == EX_IF) {
    walk(w, e->u.ifx.cond);
    return;
  }
  ast_expr_children(e, walk_child, NULL, w);
  if (e->kind == EX_CALL || e->kind == EX_BINOP || e->kind == EX_UNOP || e->kind == EX_APP)
    w->call(w->ctx, e);
}

void inv_walk_closed(Invariants *m, Expr *e, void (*closed)(void *ctx, Expr *e), void (*call)(void *ctx, Expr *e),
                     void *ctx) {
  ClosedWalk w = {m, closed, call, ctx};
  walk(&w, e);
}
