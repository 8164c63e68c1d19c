/*
 * ircheck.c: what the checkers of the two CPU-level IRs share, the flat
 * IR's (flat/flat_check.c) and λcu's (lcu/lcu_check.c): the bookkeeping of
 * variables and scopes, the walk over blocks, and how a failed check is
 * reported.
 *
 * Both IRs write their host code in one statement language (operations,
 * calls, `if`, `time` over atoms), whose variables obey one discipline:
 * each variable has a unique id, is bound once (in the program for the
 * flat IR, in each function for λcu) before its uses, and is read only in
 * the scope of its binding, a branch's bindings ending with the branch;
 * the program's globals are bound only by the top-level statement that
 * defines them.  The checker of each IR checks its own statements and asks
 * this file about every binding and read, so that the discipline and its
 * messages are written once; this file walks the blocks, each nested one
 * (a branch, a timed body) in a scope of its own, and calls back the
 * IR's statement check.
 *
 * It knows variables only as pointers with an id and a printed name,
 * which the IR's IrCheckDesc reads, so that it depends on neither IR.  A
 * check that fails reports `IR check failed after PASS: WHERE: message`
 * through diag, at the location of what it was checking, and longjmps to
 * the checker's setjmp on 'fail': the first broken invariant ends the
 * check.
 */
#include "common.h"

void ircheck_init(IrCheck *c, const IrCheckDesc *ir, int nvars, const char *after) {
  size_t n = (size_t)(nvars > 0 ? nvars : 1);
  c->ir = ir;
  c->after = after ? after : "(unknown pass)";
  c->nvars = nvars;
  c->by_id = xmalloc(sizeof(void *) * n);
  c->bound = xmalloc(n);
  c->visible = xmalloc(n);
  c->is_global = xmalloc(n);
  c->defined = xmalloc(n);
}

static _Noreturn void report(IrCheck *c, Loc loc, const char *msg) {
  if (c->where)
    diag_error(loc, "%s check failed after %s: %s: %s", c->ir->name, c->after, c->where, msg);
  else
    diag_error(loc, "%s check failed after %s: %s", c->ir->name, c->after, msg);
  longjmp(c->fail, 1);
}

_Noreturn void ircheck_vfail(IrCheck *c, Loc loc, const char *fmt, va_list ap) { report(c, loc, xvprintf(fmt, ap)); }

_Noreturn void ircheck_fail(IrCheck *c, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvprintf(fmt, ap);
  va_end(ap);
  report(c, loc, msg);
}

static const char *name_of(const IrCheck *c, const void *v) { return c->ir->var_name(v); }

void ircheck_identity(IrCheck *c, Loc loc, const void *v) {
  if (!v)
    ircheck_fail(c, loc, "a missing variable");
  int id = c->ir->var_id(v);
  if (id < 0 || id >= c->nvars)
    ircheck_fail(c, loc, "%s has id %d, outside [0, next_var = %d)", name_of(c, v), id, c->nvars);
  if (c->by_id[id] && c->by_id[id] != v)
    ircheck_fail(c, loc, "two different variables have id %d", id);
  c->by_id[id] = v;
  if (c->ir->var_valid && !c->ir->var_valid(v))
    ircheck_fail(c, loc, "%s has no valid type", name_of(c, v));
}

/* Whether 'v' (whose identity is checked) is a global: by the IR's own
   mark where it has one, else by the program's list. */
static bool is_global(const IrCheck *c, const void *v, int id) {
  return c->ir->var_global ? c->ir->var_global(v) : c->is_global[id];
}

void ircheck_bind(IrCheck *c, Loc loc, const void *v) {
  ircheck_identity(c, loc, v);
  int id = c->ir->var_id(v);
  if (is_global(c, v, id))
    ircheck_fail(c, loc, "global %s is bound by a statement; only %s defines it", name_of(c, v), c->ir->definer);
  if (c->bound[id])
    ircheck_fail(c, loc, "%s is bound twice", name_of(c, v));
  c->bound[id] = 1;
  c->visible[id] = 1;
  vec_push(&c->scope, (void *)v);
  vec_push(&c->bound_vars, (void *)v);
}

void ircheck_use(IrCheck *c, Loc loc, const void *v) {
  ircheck_identity(c, loc, v);
  int id = c->ir->var_id(v);
  if (is_global(c, v, id)) {
    if (!c->is_global[id])
      ircheck_fail(c, loc, "%s is marked global but is not in the program's globals", name_of(c, v));
    if (c->in_top && !c->defined[id])
      ircheck_fail(c, loc, "global %s is used before a top-level statement defines it", name_of(c, v));
  } else if (!c->visible[id]) {
    ircheck_fail(c, loc, "%s is used %s", name_of(c, v),
                 c->bound[id] ? "outside the scope of its binding" : "before it is bound");
  }
}

void ircheck_close_scope(IrCheck *c, int mark) {
  while (c->scope.len > mark) {
    const void *v = c->scope.data[--c->scope.len];
    c->visible[c->ir->var_id(v)] = 0;
  }
}

void ircheck_end_function(IrCheck *c) {
  ircheck_close_scope(c, 0);
  for (int i = 0; i < c->bound_vars.len; i++)
    c->bound[c->ir->var_id(c->bound_vars.data[i])] = 0;
  c->bound_vars.len = 0;
}

void ircheck_stmts(IrCheck *c, const Vec *stmts, Loc loc) {
  if (!stmts)
    ircheck_fail(c, loc, "a missing block");
  for (int i = 0; i < stmts->len; i++)
    c->ir->check_stmt(c, stmts->data[i]);
}

Vec ircheck_results(IrCheck *c, const Vec *results, Loc loc) {
  Vec types = {0};
  for (int i = 0; i < results->len; i++)
    c->ir->push_atom_type(c, loc, results->data[i], &types);
  return types;
}

Vec ircheck_nested(IrCheck *c, const Vec *stmts, const Vec *results, Loc loc, const char *what) {
  if (!stmts)
    ircheck_fail(c, loc, "%s has no block", what);
  int mark = c->scope.len;
  ircheck_stmts(c, stmts, loc);
  Vec types = ircheck_results(c, results, loc);
  ircheck_close_scope(c, mark);
  return types;
}

void ircheck_add_global(IrCheck *c, const void *v) {
  ircheck_identity(c, no_loc, v);
  c->is_global[c->ir->var_id(v)] = 1;
}

void ircheck_add_func(IrCheck *c, Loc loc, const char *name, const void *f) {
  if (!name)
    ircheck_fail(c, loc, "a function without a name");
  if (map_get(&c->funcs, name))
    ircheck_fail(c, loc, "two functions are named %s", name);
  map_put(&c->funcs, name, (void *)f);
}

bool ircheck_has_func(const IrCheck *c, const char *name, const void *f) {
  return name && map_get(&c->funcs, name) == f;
}
