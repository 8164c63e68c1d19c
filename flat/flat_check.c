/*
 * flat_check.c: the flat IR's checker (`--check-ir`), run after every pass
 * that produces or rewrites flat code.
 *
 * It checks what the interpreter and the later passes rely on without
 * checking again:
 *   - every variable is bound exactly once in the program, before its
 *     uses, and used only where its binding is in scope (a variable bound
 *     in a branch of an `if` is not visible after it); globals are bound
 *     only by the FlatTop that defines them, and top-level statements
 *     read only globals defined by earlier ones;
 *   - each operation has the numbers of arguments and results of
 *     rt/ops.def, and argument types its signature accepts; its results
 *     have the types the operation gives (element-wise operations take all
 *     scalars or all vectors, never a mix);
 *   - the kernels over structured values (NAME, EQL, HASH, HOST_PRIM)
 *     take exactly the components of their element type's layout;
 *   - calls agree with their callee's parameters and results, both
 *     branches of an `if` and the body of `time` give the statement's
 *     result types, function bodies give the declared result types, and a
 *     top-level block gives the host layout of its value.
 * The first broken invariant is reported through diag with the location
 * of the statement and the pass that ran last; checking stops there.
 *
 * The rules about variables and scopes, the walk over blocks and the way
 * a failure is reported are common/ircheck.c's, which λcu's checker
 * shares: this file checks what is the flat IR's own, each statement's
 * operation, call and types.
 */
#include "flat.h"

/* The flat IR's checker is the bookkeeping of variables and scopes both
   IRs' checkers share (common/ircheck.c), with nothing of its own. */
typedef IrCheck Checker;

_Noreturn __attribute__((format(printf, 3, 4))) static void fail(Checker *c, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ircheck_vfail(c, loc, fmt, ap);
}

static const char *var_name(const FlatVar *v) {
  return v->hint ? xprintf("%s_%d", v->hint, v->id) : xprintf("x%d", v->id);
}

static int var_id(const void *v) { return ((const FlatVar *)v)->id; }
static const char *any_var_name(const void *v) { return var_name(v); }
static bool var_global(const void *v) { return ((const FlatVar *)v)->global; }

static void check_stmt(Checker *c, const void *stmt);
static void push_atom_type(Checker *c, Loc loc, const void *a, Vec *types);

/* A global is what its flag says (the program's list must agree). */
static const IrCheckDesc flat_ir = {.name = "flat IR", .definer = "its FlatTop",
    .var_id = var_id, .var_name = any_var_name, .var_global = var_global,
    .check_stmt = check_stmt, .push_atom_type = push_atom_type};

static void check_var_identity(Checker *c, Loc loc, const FlatVar *v) { ircheck_identity(c, loc, v); }

static void close_scope(Checker *c, int mark) { ircheck_close_scope(c, mark); }

static FlatType use_atom(Checker *c, Loc loc, const FlatAtom *a) {
  if (!a)
    fail(c, loc, "a missing argument");
  if (a->kind != FA_VAR)
    return flat_atom_type(a);
  ircheck_use(c, loc, a->u.var);
  return a->u.var->type;
}

static void push_result(Vec *out, FlatType t);

/* Appends the type of a block's result atom to 'types', for
   common/ircheck.c. */
static void push_atom_type(Checker *c, Loc loc, const void *a, Vec *types) {
  push_result(types, use_atom(c, loc, a));
}

/* ---- operation types ---- */

static void push_result(Vec *out, FlatType t) {
  FlatType *p = NEW(FlatType);
  *p = t;
  vec_push(out, p);
}

/* Checks that args[from .. from + layout.len) have the types of 'layout';
   returns the index after them. */
static int match_layout(Checker *c, const FlatStmt *s, FlatType *args, int n, int from, const Vec *layout,
                        const char *what) {
  if (from + layout->len > n)
    fail(c, s->loc, "%s: %d arguments, too few for %s", flat_op_name(s->op), n, what);
  for (int i = 0; i < layout->len; i++)
    if (!flat_type_equal(args[from + i], *(FlatType *)layout->data[i]))
      fail(c, s->loc, "%s: argument %d is a %s where %s has a %s", flat_op_name(s->op), from + i + 1,
           flat_type_name(args[from + i]), what, flat_type_name(*(FlatType *)layout->data[i]));
  return from + layout->len;
}

/* An operation on whole values needs the layout of their type (and the
   type's name, for the dumps and these messages). */
static void need_layout(Checker *c, const FlatStmt *s, const RtLayout *l, const char *name, const char *field) {
  if (!l || !name)
    fail(c, s->loc, "%s has no %s", flat_op_name(s->op), field);
}

/* NAME, EQL, HASH: their arguments are the components of values of the
   type s->layout lays out (rt/ops.def). */
static void structured_signature(Checker *c, const FlatStmt *s, FlatType *args, int n, Vec *results) {
  need_layout(c, s, s->layout, s->elem_name, "element type");
  Vec layout = {0};
  flat_layout_types(s->layout, !(s->op == FLAT_NAME || s->lifted), &layout);
  const char *what = s->elem_name;
  switch (s->op) {
  case FLAT_NAME: {
    /* V(t), or segdes ++ V(t): the segmented name of each segment */
    int from = n == layout.len + 1 && args[0].kind == FT_SEGDES ? 1 : 0;
    if (match_layout(c, s, args, n, from, &layout, what) != n)
      fail(c, s->loc, "name: %d arguments, too many for %s", n, what);
    push_result(results, flat_vec(FB_INT));
    return;
  }
  case FLAT_EQL: {
    int mid = match_layout(c, s, args, n, 0, &layout, what);
    if (match_layout(c, s, args, n, mid, &layout, what) != n)
      fail(c, s->loc, "eql: %d arguments, too many for two values of %s", n, what);
    push_result(results, s->lifted ? flat_vec(FB_BOOL) : flat_scalar(FB_BOOL));
    return;
  }
  case FLAT_HASH: {
    FlatType range = s->lifted ? flat_vec(FB_INT) : flat_scalar(FB_INT);
    int at = match_layout(c, s, args, n, 0, &layout, what);
    if (at != n - 1 || !flat_type_equal(args[at], range))
      fail(c, s->loc, "hash: the arguments are not the components of %s and a %s", what, flat_type_name(range));
    push_result(results, range);
    return;
  }
  default:
    unreachable();
  }
}

static void host_signature(Checker *c, const FlatStmt *s, FlatType *args, int n, Vec *results) {
  if (!s->prim || !(s->host != RT_HOST_COUNT && rt_host_lookup(s->prim) == s->host))
    fail(c, s->loc, "host: '%s' is not a primitive", s->prim ? s->prim : "(none)");
  need_layout(c, s, s->layout, s->elem_name, "argument type");
  need_layout(c, s, s->result_layout, s->result_name, "result type");
  Vec layout = {0};
  flat_layout_types(s->layout, !s->lifted, &layout);
  if (match_layout(c, s, args, n, 0, &layout, s->elem_name) != n)
    fail(c, s->loc, "host %s: %d arguments, too many for %s", s->prim, n, s->elem_name);
  flat_layout_types(s->result_layout, !s->lifted, results);
}

/* The types of s's results, given its arguments' types; fails if the
   arguments do not fit the operation. */
static void op_signature(Checker *c, const FlatStmt *s, FlatType *args, int n, Vec *results) {
  switch (rt_op_class(flat_rt_op(s->op))) {
  case OPC_STRUCTURED:
    structured_signature(c, s, args, n, results);
    return;
  case OPC_HOST:
    host_signature(c, s, args, n, results);
    return;
  default: {
    const char *why = NULL;
    Vec *types = flat_op_result_types(s->op, args, n, &why);
    if (!types)
      fail(c, s->loc, "%s", why);
    *results = *types;
    return;
  }
  }
}

/* ---- statements and blocks ---- */

/* Checks that the variables 'results' have the types 'types' (FlatType *). */
static void check_result_types(Checker *c, Loc loc, const char *what, const Vec *results, const Vec *types) {
  if (results->len != types->len)
    fail(c, loc, "%s: %d results where %d are given", what, results->len, types->len);
  for (int i = 0; i < results->len; i++) {
    const FlatVar *v = results->data[i];
    if (!v)
      fail(c, loc, "%s: result %d is missing", what, i + 1);
    FlatType t = *(FlatType *)types->data[i];
    if (!flat_type_equal(v->type, t))
      fail(c, loc, "%s: result %s is a %s, but the %s gives a %s", what, var_name(v), flat_type_name(v->type),
           what, flat_type_name(t));
  }
}

/* Blocks are checked by common/ircheck.c, which calls back check_stmt
   and push_atom_type. */

static void check_block(Checker *c, const FlatBlock *b, Loc loc) { ircheck_stmts(c, b ? &b->stmts : NULL, loc); }

/* The types of a block's result atoms, after checking the block. */
static Vec block_result_types(Checker *c, const FlatBlock *b, Loc loc) { return ircheck_results(c, &b->results, loc); }

/* Checks 'b' in a scope of its own; returns its results' types. */
static Vec check_nested_block(Checker *c, const FlatBlock *b, Loc loc, const char *what) {
  return ircheck_nested(c, b ? &b->stmts : NULL, b ? &b->results : NULL, loc, what);
}

static void check_stmt(Checker *c, const void *stmt) {
  const FlatStmt *s = stmt;
  if (!s)
    fail(c, no_loc, "a missing statement");
  int n = s->args.len;
  FlatType *args = xmalloc_atomic(sizeof(FlatType) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    args[i] = use_atom(c, s->loc, s->args.data[i]);
  switch (s->kind) {
  case FS_OP: {
    if ((unsigned)s->op >= FLAT_OP_COUNT)
      fail(c, s->loc, "operation %d does not exist", (int)s->op);
    const char *name = flat_op_name(s->op);
    int want_args = flat_op_nargs(s->op), want_results = flat_op_nresults(s->op);
    if (want_args >= 0 && n != want_args)
      fail(c, s->loc, "%s takes %d arguments, not %d", name, want_args, n);
    if (want_args < 0 && n == 0)
      fail(c, s->loc, "%s has no arguments", name);
    if (want_results >= 0 && s->results.len != want_results)
      fail(c, s->loc, "%s gives %d results, not %d", name, want_results, s->results.len);
    if (s->lifted && s->op != FLAT_NAME && s->op != FLAT_EQL && s->op != FLAT_HASH && s->op != FLAT_HOST_PRIM)
      fail(c, s->loc, "%s has no lifted form", name);
    if (s->guarded && (s->op != FLAT_GATHER || s->segments))
      fail(c, s->loc, "%s <guarded>: only a gather not of whole segments is", name);
    if (s->total) {
      if (s->op != FLAT_SEG_RANGE && s->op != FLAT_MAKE_SEGDES)
        fail(c, s->loc, "%s <total>: only make_segdes and seg_range have one", name);
      FlatType tt = use_atom(c, s->loc, s->total);
      if (!flat_type_equal(tt, flat_scalar(FB_INT)))
        fail(c, s->loc, "%s <total>: an int, not a %s", name, flat_type_name(tt));
    }
    Vec types = {0};
    op_signature(c, s, args, n, &types);
    check_result_types(c, s->loc, name, &s->results, &types);
    break;
  }
  case FS_CALL: {
    const FlatFunc *f = s->callee;
    if (!f)
      fail(c, s->loc, "a call without a callee");
    if (!ircheck_has_func(c, f->name, f))
      fail(c, s->loc, "call of %s, which is not in the program", f->name);
    if (n != f->params.len && !s->each)
      fail(c, s->loc, "call of %s with %d arguments; it has %d parameters", f->name, n, f->params.len);
    if (s->each) {
      /* the function on each element: a scalar loop's scalars come as
         vectors; a sequence loop's sequences (flatten.c) as a segdes and
         its values, one segment an element.  A sequence loop may give
         several scalars (f.all: a tuple's components) */
      bool scalars = f->result_types.len >= 1;
      for (int i = 0; i < f->result_types.len; i++)
        scalars &= ((FlatType *)f->result_types.data[i])->kind == FT_SCALAR;
      if (f->lifted || !(f->result_types.len == 1 || (scalars && flat_func_takes_vectors(f))) ||
          ((FlatType *)f->result_types.data[0])->kind == FT_SEGDES)
        fail(c, s->loc, "call of %s on each element: it must be a function of one scalar or vector result, or a sequence loop of scalar results", f->name);
      int k = 0;
      for (int i = 0; i < f->params.len; i++) {
        FlatType pt = ((FlatVar *)f->params.data[i])->type;
        if (pt.kind == FT_VEC) {
          /* one vector: the same for every element (shared, read only) */
          if (k < s->args.len && flat_type_equal(args[k], pt)) {
            k++;
            continue;
          }
          if (k + 1 >= s->args.len || args[k].kind != FT_SEGDES || !flat_type_equal(args[k + 1], pt))
            fail(c, s->loc, "call of %s on each element: parameter %d, a %s, needs a segdes and a %s, or one %s",
                 f->name, i + 1, flat_type_name(pt), flat_type_name(pt), flat_type_name(pt));
          k += 2;
          continue;
        }
        if (pt.kind != FT_SCALAR || k >= s->args.len || !flat_type_equal(args[k], flat_vec(pt.base)))
          fail(c, s->loc, "call of %s on each element: argument %d is a %s, the parameter a %s", f->name, k + 1,
               k < s->args.len ? flat_type_name(args[k]) : "missing", flat_type_name(pt));
        k++;
      }
      if (k != s->args.len)
        fail(c, s->loc, "call of %s on each element with %d arguments; it needs %d", f->name, s->args.len, k);
      Vec types = {0};
      FlatType rt = *(FlatType *)f->result_types.data[0];
      if (rt.kind == FT_VEC) {
        FlatType *d = NEW(FlatType);
        *d = flat_segdes();
        vec_push(&types, d);
      }
      for (int i = 0; i < f->result_types.len; i++) {
        FlatType *r = NEW(FlatType);
        *r = flat_vec(((FlatType *)f->result_types.data[i])->base);
        vec_push(&types, r);
      }
      check_result_types(c, s->loc, xprintf("call of %s on each element", f->name), &s->results, &types);
      break;
    }
    for (int i = 0; i < n; i++) {
      FlatType pt = ((FlatVar *)f->params.data[i])->type;
      if (!flat_type_equal(args[i], pt))
        fail(c, s->loc, "call of %s: argument %d is a %s, the parameter a %s", f->name, i + 1,
             flat_type_name(args[i]), flat_type_name(pt));
    }
    check_result_types(c, s->loc, xprintf("call of %s", f->name), &s->results, &f->result_types);
    break;
  }
  case FS_IF: {
    if (n != 1 || !flat_type_equal(args[0], flat_scalar(FB_BOOL)))
      fail(c, s->loc, "if: the condition must be one bool scalar");
    Vec then_types = check_nested_block(c, s->then, s->loc, "if's then branch");
    Vec else_types = check_nested_block(c, s->els, s->loc, "if's else branch");
    check_result_types(c, s->loc, "then branch", &s->results, &then_types);
    check_result_types(c, s->loc, "else branch", &s->results, &else_types);
    break;
  }
  case FS_TIME: {
    if (n != 0)
      fail(c, s->loc, "time takes no arguments");
    Vec types = check_nested_block(c, s->body, s->loc, "time");
    push_result(&types, flat_scalar(FB_FLOAT));
    check_result_types(c, s->loc, "time", &s->results, &types);
    break;
  }
  case FS_COST: {
    const char *why = s->results.len ? "it has no results" : flat_cost_check(s->cost_rule, s->lifted, args, n);
    if (why)
      fail(c, s->loc, "cost %s%s: %s", flat_cost_rule_name(s->cost_rule), s->lifted ? "^" : "", why);
    break;
  }
  default:
    fail(c, s->loc, "statement kind %d does not exist", (int)s->kind);
  }
  for (int i = 0; i < s->results.len; i++)
    ircheck_bind(c, s->loc, s->results.data[i]);
}

static void check_func(Checker *c, const FlatFunc *f) {
  c->in_top = false;
  int mark = c->scope.len;
  for (int i = 0; i < f->params.len; i++)
    ircheck_bind(c, f->loc, f->params.data[i]);
  if (!f->body)
    fail(c, f->loc, "function %s has no body", f->name);
  check_block(c, f->body, f->loc);
  Vec types = block_result_types(c, f->body, f->loc);
  if (types.len != f->result_types.len)
    fail(c, f->loc, "function %s returns %d values but declares %d", f->name, types.len, f->result_types.len);
  for (int i = 0; i < types.len; i++) {
    FlatType want_t = *(FlatType *)f->result_types.data[i], got = *(FlatType *)types.data[i];
    if (!flat_type_equal(want_t, got))
      fail(c, f->loc, "function %s: result %d is a %s but declared a %s", f->name, i + 1, flat_type_name(got),
           flat_type_name(want_t));
  }
  close_scope(c, mark);
}

static void check_top(Checker *c, const FlatTop *t) {
  Loc loc = t->loc;
  if (!t->body) {
    if (t->defines.len)
      fail(c, loc, "a top-level statement without a block defines globals");
    return;
  }
  if (!t->layout || !t->type_name)
    fail(c, loc, "a top-level block without its value's type");
  c->in_top = true;
  int mark = c->scope.len;
  check_block(c, t->body, loc);
  Vec types = block_result_types(c, t->body, loc);
  Vec layout = {0};
  flat_layout_types(t->layout, true, &layout);
  if (types.len != layout.len)
    fail(c, loc, "the top-level block returns %d components; %s has %d", types.len, t->type_name, layout.len);
  for (int i = 0; i < types.len; i++)
    if (!flat_type_equal(*(FlatType *)types.data[i], *(FlatType *)layout.data[i]))
      fail(c, loc, "the top-level block's result %d is a %s; %s has a %s", i + 1,
           flat_type_name(*(FlatType *)types.data[i]), t->type_name, flat_type_name(*(FlatType *)layout.data[i]));
  close_scope(c, mark);
  if (t->defines.len) {
    if (t->kind != FLAT_TOP_BIND)
      fail(c, loc, "only a binding defines globals");
    if (!t->component_vars)
      fail(c, loc, "a binding without its pattern's variables");
    /* one global per component of the value (a wildcard's too), or one
       per component of the pattern's variables */
    Vec comps = {0};
    for (int i = 0; i < layout.len; i++)
      if (t->component_vars[i])
        vec_push(&comps, layout.data[i]);
    if (t->defines.len == layout.len)
      comps = layout;
    else if (comps.len != t->defines.len)
      fail(c, loc, "%d globals are defined; the value has %d components, the pattern's variables %d",
           t->defines.len, layout.len, comps.len);
    for (int i = 0; i < t->defines.len; i++) {
      const FlatVar *g = t->defines.data[i];
      check_var_identity(c, loc, g);
      if (!g->global || !c->is_global[g->id])
        fail(c, loc, "%s is defined at top level but is not a global", var_name(g));
      if (c->defined[g->id])
        fail(c, loc, "global %s is defined twice", var_name(g));
      if (!flat_type_equal(g->type, *(FlatType *)comps.data[i]))
        fail(c, loc, "global %s is a %s where the value has a %s", var_name(g), flat_type_name(g->type),
             flat_type_name(*(FlatType *)comps.data[i]));
      c->defined[g->id] = 1;
      c->bound[g->id] = 1;
    }
    if (t->replaced.len && t->replaced.len != t->defines.len)
      fail(c, loc, "%d globals kept on an error for %d defined", t->replaced.len, t->defines.len);
    for (int i = 0; i < t->replaced.len; i++) {
      const FlatVar *old = t->replaced.data[i], *g = t->defines.data[i];
      if (!old)
        continue;
      check_var_identity(c, loc, old);
      if (!old->global || !c->is_global[old->id] || !c->defined[old->id] || old == g)
        fail(c, loc, "%s, kept on an error, is not an earlier global", var_name(old));
      if (!flat_type_equal(old->type, g->type))
        fail(c, loc, "%s, kept on an error, is a %s where %s is a %s", var_name(old), flat_type_name(old->type),
             var_name(g), flat_type_name(g->type));
    }
  }
}

bool flat_check(const FlatProgram *p, const char *after) {
  Checker *c = NEW(Checker);
  ircheck_init(c, &flat_ir, p->next_var, after);
  if (setjmp(c->fail))
    return false;
  for (int i = 0; i < p->globals.len; i++) {
    const FlatVar *g = p->globals.data[i];
    ircheck_add_global(c, g);
    if (!g->global)
      fail(c, no_loc, "%s is in the program's globals but not marked global", var_name(g));
  }
  for (int i = 0; i < p->funcs.len; i++) {
    const FlatFunc *f = p->funcs.data[i];
    ircheck_add_func(c, f ? f->loc : no_loc, f ? f->name : NULL, f);
  }
  for (int i = 0; i < p->funcs.len; i++)
    check_func(c, p->funcs.data[i]);
  for (int i = 0; i < p->tops.len; i++)
    check_top(c, p->tops.data[i]);
  return true;
}
