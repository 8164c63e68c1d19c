/*
 * lcu_check.c: λcu's checker (`--check-ir`), run after lowering and after
 * every pass that rewrites λcu (fusion).
 *
 * It implements the typing rules of the paper (section 3.3): the SOAC
 * signatures of Figures 3 and 4 and the rule for thunks,
 *
 *     (Γ|ys)[x_i ↦ τ_i] ⊢ e : τ
 *     ───────────────────────────────────────────────
 *     Γ ⊢ { x_i : τ_i => e using ys } : τ_1 × ... × τ_n ⇒ τ
 *
 * which is the `using` discipline: a thunk's body reads only its
 * parameters, the names it binds with `let`, and the kernel variables it
 * lists in `using`, each a parameter of the kernel or the result of an
 * earlier SOAC.  In detail:
 *   - GPU level: every expression has the base type it claims; LE_VAR
 *     reads a scalar, LE_INDEX and LE_LENGTH a `using` vector,
 *     LE_SEG_LENGTH and LE_SEG_OFFSET a `using` sd; LE_OP is an
 *     element-wise operation of rt/ops.def (ADD ... SELECT) on operands
 *     its semantics accept; thunk binders are scalars, bound once in the
 *     thunk, and neither `using` variables nor variables of the kernel.
 *   - kernel level: each SOAC's thunks, identities, size and segment
 *     descriptor against its signature, and its results against τ↑ (the
 *     layouts are written down in lcu.h, above LCU_SOACS); the library
 *     kernels against their signatures; variables bound once per kernel;
 *     the kernel's results bound in it.
 *   - CPU level: variables bound once per function (or top-level block)
 *     before their uses and used only in the scope of their binding (the
 *     globals of LcuProgram.globals are readable everywhere, and bound
 *     only by the top-level statement that defines them); `run`s and
 *     calls agree with their kernel's or callee's parameters and results;
 *     both branches of an `if` and the body of `time` give the statement's
 *     result types; LS_LENGTH reads a vector or a sd; the host operations
 *     take and give what their flat operations do.
 * A variable may appear in several kernels and functions (a kernel made
 * once is run from many places, and lowering may use one LcuVar on both
 * sides of a `run`): scopes are per kernel, per thunk and per function,
 * and only the identity of a variable (one LcuVar per id) is global.
 *
 * The first violation is reported through diag with the location of the
 * SOAC or statement and the pass that ran last; checking stops there.
 * The CPU level's variables and scopes, its walk over blocks and the
 * report of a failure are common/ircheck.c's, which the flat IR's
 * checker shares.
 */
#include "../flat/flat.h"
#include "lcu.h"

/* Base-type classes, as bit masks over FlatBase (as in flat_check.c). */
enum {
  B_INT = 1 << FB_INT,
  B_FLOAT = 1 << FB_FLOAT,
  B_BOOL = 1 << FB_BOOL,
  B_CHAR = 1 << FB_CHAR,
  B_NUMBER = B_INT | B_FLOAT,
  B_ORDINAL = B_INT | B_FLOAT | B_CHAR,
  B_LOGICAL = B_INT | B_BOOL,
  B_ANY = B_INT | B_FLOAT | B_BOOL | B_CHAR,
};

/* λcu's checker: the bookkeeping both IRs' checkers share
   (common/ircheck.c), which checks the CPU level's variables, and the
   scopes of the kernel and thunk levels (Levels, its 'own'). */
typedef IrCheck Checker;

/* By variable id, as the shared tables; cleared after each kernel and
   thunk. */
typedef struct Levels {
  uint8_t *kbound;   /* bound in the kernel being checked */
  uint8_t *tusing;   /* in the `using` list of the thunk being checked */
  uint8_t *tbound;   /* bound somewhere in the thunk being checked */
  uint8_t *tvisible; /* a thunk binder in scope */
  Vec kvars, tvars;  /* what to clear after a kernel, a thunk */
  Map kernels;       /* name -> the program's LcuKernel */
} Levels;

static Levels *levels(Checker *c) { return c->own; }

_Noreturn __attribute__((format(printf, 3, 4))) static void fail(Checker *c, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ircheck_vfail(c, loc, fmt, ap);
}

static const char *var_name(const LcuVar *v) {
  if (!v)
    return "(missing)";
  return v->name ? v->name : xprintf("x%d", v->id);
}

static const char *base_name(FlatBase b) { return lcu_type_name(lcu_scalar(b)); }

/* "an int", "a [float]", "a sd": a type with its article, for messages */
static const char *an(LcuType t) {
  const char *name = lcu_type_name(t);
  return xprintf("%s %s", name[0] == 'i' ? "an" : "a", name);
}

static const char *an_base(FlatBase b) { return an(lcu_scalar(b)); }

static bool base_valid(FlatBase b) { return (unsigned)b <= FB_CHAR; }

static bool type_valid(LcuType t) {
  return (t.kind == LT_SCALAR || t.kind == LT_VEC) ? base_valid(t.base) : t.kind == LT_SEGDES;
}

static bool in_class(FlatBase b, int mask) { return (mask >> b) & 1; }

static void push_type(Vec *out, LcuType t) {
  LcuType *p = NEW(LcuType);
  *p = t;
  vec_push(out, p);
}

static LcuType type_at(const Vec *types, int i) { return *(LcuType *)types->data[i]; }

static int var_id(const void *v) { return ((const LcuVar *)v)->id; }
static const char *any_var_name(const void *v) { return var_name(v); }
static bool var_valid(const void *v) { return type_valid(((const LcuVar *)v)->type); }

static void check_stmt(Checker *c, const void *stmt);
static void push_atom_type(Checker *c, Loc loc, const void *a, Vec *types);

/* A global is a variable of the program's list. */
static const IrCheckDesc lcu_ir = {.name = "λcu", .definer = "its top-level statement",
    .var_id = var_id, .var_name = any_var_name, .var_valid = var_valid,
    .check_stmt = check_stmt, .push_atom_type = push_atom_type};

/* Registers 'v' as the variable of its id, which must be in range, and
   checks that its type exists. */
static void check_var_identity(Checker *c, Loc loc, const LcuVar *v) { ircheck_identity(c, loc, v); }

static void clear_marks(Vec *vars, uint8_t *marks) {
  for (int i = 0; i < vars->len; i++)
    marks[((const LcuVar *)vars->data[i])->id] = 0;
  vars->len = 0;
}

/* ---- scalar operations (thunks' LE_OP and the CPU's LS_SCALAR) ---- */

/* The result type of the element-wise operation 'op' on scalars of the
   bases 'a' (as many as flat_op_nargs says), or NULL with '*why' set. */
static bool scalar_op_type(FlatOp op, const FlatBase *a, FlatBase *result, const char **why) {
  if (rt_op_class(flat_rt_op(op)) != OPC_ELEMENTWISE) {
    *why = xprintf("%s is not an element-wise operation", flat_op_name(op));
    return false;
  }
  /* the signature of rt/ops.def, on scalars */
  FlatType args[3];
  int n = flat_op_nargs(op);
  for (int i = 0; i < n; i++)
    args[i] = flat_scalar(a[i]);
  Vec *results = flat_op_result_types(op, args, n, why);
  if (!results)
    return false;
  *result = ((FlatType *)results->data[0])->base;
  return true;
}

bool lcu_op_type(FlatOp op, const FlatBase *args, FlatBase *result, const char **why) {
  return scalar_op_type(op, args, result, why);
}

/* ---- GPU level: thunks ---- */

/* The context of a thunk: its SOAC (for the location and messages) and
   what the thunk is (the pull thunk, the predicate, ...). */
typedef struct ThunkCtx {
  const LcuSoac *s;
  const char *what; /* "MAP's pull thunk" */
} ThunkCtx;

/* A binder of the thunk: a parameter or a `let`. */
static void thunk_bind(Checker *c, const ThunkCtx *t, const LcuVar *v) {
  Levels *lv = levels(c);
  Loc loc = t->s->loc;
  check_var_identity(c, loc, v);
  if (v->type.kind != LT_SCALAR)
    fail(c, loc, "%s binds %s, %s; thunk variables are scalars", t->what, var_name(v), an(v->type));
  if (lv->tusing[v->id])
    fail(c, loc, "%s binds %s, which is also in its `using` list", t->what, var_name(v));
  if (lv->kbound[v->id])
    fail(c, loc, "%s binds %s, a variable of the kernel", t->what, var_name(v));
  if (lv->tbound[v->id])
    fail(c, loc, "%s binds %s twice", t->what, var_name(v));
  lv->tbound[v->id] = 1;
  lv->tvisible[v->id] = 1;
  vec_push(&lv->tvars, (void *)v);
}

/* Checks 'e' and returns its base type, which must be the one it claims. */
static FlatBase check_exp(Checker *c, const ThunkCtx *t, const LcuExp *e) {
  Levels *lv = levels(c);
  Loc loc = t->s->loc;
  if (!e)
    fail(c, loc, "%s: a missing expression", t->what);
  if (!base_valid(e->type))
    fail(c, loc, "%s: an expression of type %d", t->what, (int)e->type);
  FlatBase got;
  switch (e->kind) {
  case LE_VAR: {
    const LcuVar *v = e->var;
    check_var_identity(c, loc, v);
    if (!lv->tvisible[v->id]) {
      if (!lv->tusing[v->id])
        fail(c, loc, "%s reads %s, which is %s", t->what, var_name(v),
             lv->tbound[v->id] ? "used outside the scope of its `let`"
             : lv->kbound[v->id] ? "not in its `using` list"
                                : "neither its parameter nor a variable of the kernel");
      if (v->type.kind != LT_SCALAR)
        fail(c, loc, "%s reads the %s %s as a value; a thunk reads vectors only as x[e] and #x", t->what,
             lcu_type_name(v->type), var_name(v));
    }
    got = v->type.base;
    break;
  }
  case LE_CONST:
    switch (e->constant.kind) {
    case FA_INT:
      got = FB_INT;
      break;
    case FA_FLOAT:
      got = FB_FLOAT;
      break;
    case FA_BOOL:
      got = FB_BOOL;
      break;
    case FA_CHAR:
      got = FB_CHAR;
      break;
    default:
      fail(c, loc, "%s: a constant that is not a base value", t->what);
    }
    break;
  case LE_INDEX:
  case LE_LENGTH:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET: {
    bool seg = e->kind == LE_SEG_LENGTH || e->kind == LE_SEG_OFFSET;
    const char *form = e->kind == LE_INDEX ? "x[e]" : e->kind == LE_LENGTH ? "#x"
                       : e->kind == LE_SEG_LENGTH ? "seg_length(x, e)" : "seg_offset(x, e)";
    const LcuVar *v = e->var;
    check_var_identity(c, loc, v);
    if (lv->tvisible[v->id])
      fail(c, loc, "%s: %s of %s, a scalar of the thunk", t->what, form, var_name(v));
    if (!lv->tusing[v->id])
      fail(c, loc, "%s: %s of %s, which is not in its `using` list", t->what, form, var_name(v));
    if (seg) {
      if (v->type.kind != LT_SEGDES)
        fail(c, loc, "%s: %s of %s, %s, not a segdes", t->what, form, var_name(v), an(v->type));
      if (e->nargs != 1 || check_exp(c, t, e->args[0]) != FB_INT)
        fail(c, loc, "%s: %s of %s not at one int", t->what, form, var_name(v));
      got = FB_INT;
      break;
    }
    if (e->kind == LE_LENGTH && v->type.kind == LT_SEGDES) { /* its number of segments */
      got = FB_INT;
      break;
    }
    if (v->type.kind != LT_VEC)
      fail(c, loc, "%s: %s of %s, %s, not a vector", t->what, form, var_name(v), an(v->type));
    if (e->kind == LE_LENGTH) {
      got = FB_INT;
      break;
    }
    FlatBase index = check_exp(c, t, e->args[0]);
    if (index != FB_INT)
      fail(c, loc, "%s: the index of %s[e] is %s", t->what, var_name(v), an_base(index));
    got = v->type.base;
    break;
  }
  case LE_OP: {
    if ((unsigned)e->op >= FLAT_OP_COUNT)
      fail(c, loc, "%s: operation %d does not exist", t->what, (int)e->op);
    /* the element-wise operations of rt/ops.def, ADD ... SELECT */
    if (e->op > FLAT_SELECT)
      fail(c, loc, "%s: %s is not an operation of thunks", t->what, flat_op_name(e->op));
    int n = flat_op_nargs(e->op);
    if (e->nargs != n)
      fail(c, loc, "%s: %s takes %d operands, not %d", t->what, flat_op_name(e->op), n, e->nargs);
    FlatBase args[3];
    for (int i = 0; i < n; i++)
      args[i] = check_exp(c, t, e->args[i]);
    const char *why = NULL;
    if (!scalar_op_type(e->op, args, &got, &why))
      fail(c, loc, "%s: %s", t->what, why);
    break;
  }
  case LE_BOUND: {
    if (e->nargs != 2)
      fail(c, loc, "%s: bound with %d operands, not 2", t->what, e->nargs);
    FlatBase index = check_exp(c, t, e->args[0]), length = check_exp(c, t, e->args[1]);
    if (index != FB_INT || length != FB_INT)
      fail(c, loc, "%s: bound of %s and %s, not of two ints", t->what, an_base(index), an_base(length));
    got = FB_INT;
    break;
  }
  case LE_IF: {
    FlatBase cond = check_exp(c, t, e->args[0]);
    if (cond != FB_BOOL)
      fail(c, loc, "%s: the condition of an if is %s", t->what, an_base(cond));
    FlatBase then = check_exp(c, t, e->args[1]), els = check_exp(c, t, e->args[2]);
    if (then != els)
      fail(c, loc, "%s: the branches of an if are %s and %s", t->what, an_base(then), an_base(els));
    got = then;
    break;
  }
  case LE_LET: {
    const LcuVar *v = e->var;
    FlatBase value = check_exp(c, t, e->args[0]);
    thunk_bind(c, t, v);
    if (v->type.base != value)
      fail(c, loc, "%s: let %s : %s is bound to %s", t->what, var_name(v), lcu_type_name(v->type),
           an_base(value));
    got = check_exp(c, t, e->args[1]);
    lv->tvisible[v->id] = 0;
    break;
  }
  case LE_CALL: {
    const LcuFunc *f = e->callee;
    if (!f || !ircheck_has_func(c, f->name, f))
      fail(c, loc, "%s: a call of %s, which is not a function of the program", t->what,
           f && f->name ? f->name : "nothing");
    const char *why = lcu_scalar_func(f);
    if (why)
      fail(c, loc, "%s: a call of %s, which a thunk may not call: %s", t->what, f->name, why);
    if (e->nargs != f->params.len)
      fail(c, loc, "%s: a call of %s with %d arguments; it has %d parameters", t->what, f->name, e->nargs,
           f->params.len);
    for (int i = 0; i < e->nargs; i++) {
      FlatBase a = check_exp(c, t, e->args[i]);
      FlatBase want = ((const LcuVar *)f->params.data[i])->type.base;
      if (a != want)
        fail(c, loc, "%s: argument %d of %s is %s, the parameter %s", t->what, i + 1, f->name, an_base(a),
             an_base(want));
    }
    got = lcu_atom_type(f->body->results.data[0]).base;
    break;
  }
  default:
    fail(c, loc, "%s: expression kind %d does not exist", t->what, (int)e->kind);
  }
  if (got != e->type)
    fail(c, loc, "%s: an expression of type %s claims to be %s", t->what, base_name(got), an_base(e->type));
  return got;
}

static bool exp_reads_segments(const LcuExp *e, const LcuVar *sd) {
  if ((e->kind == LE_SEG_LENGTH || e->kind == LE_SEG_OFFSET || e->kind == LE_LENGTH) && e->var == sd)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (e->args[i] && exp_reads_segments(e->args[i], sd))
      return true;
  return false;
}

/* Does thunk 'th' read sd 'sd' (seg_length, seg_offset, or #sd: its
   number of segments), the ways a thunk reads a sd? */
static bool reads_segments(const LcuThunk *th, const LcuVar *sd) {
  for (int i = 0; i < lcu_thunk_nexps(th); i++)
    if (exp_reads_segments(lcu_thunk_exp(th, i), sd))
      return true;
  return false;
}

/* Checks thunk 'th' of SOAC 't->s', whose parameters must have the base
   types 'params' (n of them); returns the types of its results. */
static Vec check_thunk(Checker *c, const ThunkCtx *t, const LcuThunk *th, const FlatBase *params, int n) {
  Levels *lv = levels(c);
  Loc loc = t->s->loc;
  if (!th)
    fail(c, loc, "%s is missing", t->what);
  for (int i = 0; i < th->using.len; i++) {
    const LcuVar *v = th->using.data[i];
    check_var_identity(c, loc, v);
    if (!lv->kbound[v->id])
      fail(c, loc, "%s uses %s, which is neither a parameter of the kernel nor an earlier result", t->what,
           var_name(v));
    if (v->type.kind == LT_SEGDES && !reads_segments(th, v))
      fail(c, loc, "%s uses %s, a sd, but reads neither its segments' lengths and offsets nor their number", t->what,
           var_name(v));
    if (!lv->tusing[v->id])
      vec_push(&lv->tvars, (void *)v);
    lv->tusing[v->id] = 1;
  }
  if (th->params.len != n)
    fail(c, loc, "%s takes %d parameter%s, not %d", t->what, n, n == 1 ? "" : "s", th->params.len);
  for (int i = 0; i < n; i++) {
    const LcuVar *v = th->params.data[i];
    thunk_bind(c, t, v);
    if (v->type.base != params[i])
      fail(c, loc, "%s: parameter %s is %s where %s is passed", t->what, var_name(v), an_base(v->type.base),
           an_base(params[i]));
  }
  if (th->body.len == 0)
    fail(c, loc, "%s gives no values", t->what);
  /* its shared lets, each in scope after it */
  for (int i = 0; i < th->lets.len; i++) {
    const LcuLet *l = th->lets.data[i];
    const LcuVar *v = l->var;
    if (!v || !l->value)
      fail(c, loc, "%s: a let without a variable or a value", t->what);
    FlatBase value = check_exp(c, t, l->value);
    thunk_bind(c, t, v);
    if (v->type.kind != LT_SCALAR || v->type.base != value)
      fail(c, loc, "%s: let %s : %s is bound to %s", t->what, var_name(v), lcu_type_name(v->type), an_base(value));
  }
  Vec types = {0};
  for (int i = 0; i < th->body.len; i++)
    push_type(&types, lcu_scalar(check_exp(c, t, th->body.data[i])));
  /* the thunk's scope ends: nothing of it is visible from the next */
  for (int i = 0; i < lv->tvars.len; i++) {
    int id = ((const LcuVar *)lv->tvars.data[i])->id;
    lv->tusing[id] = lv->tbound[id] = lv->tvisible[id] = 0;
  }
  lv->tvars.len = 0;
  return types;
}

/* ---- kernel level ---- */

static void kernel_bind(Checker *c, Loc loc, const LcuVar *v) {
  Levels *lv = levels(c);
  check_var_identity(c, loc, v);
  if (lv->kbound[v->id])
    fail(c, loc, "%s is bound twice in the kernel", var_name(v));
  lv->kbound[v->id] = 1;
  vec_push(&lv->kvars, (void *)v);
}

/* A kernel variable read by the SOAC 's' (size, sd, into, library
   argument): bound in the kernel before 's'. */
static LcuType kernel_use(Checker *c, const LcuSoac *s, const LcuVar *v, const char *what) {
  Levels *lv = levels(c);
  check_var_identity(c, s->loc, v);
  if (!lv->kbound[v->id])
    fail(c, s->loc, "%s: %s %s is neither a parameter of the kernel nor an earlier result", lcu_soac_name(s->kind),
         what, var_name(v));
  return v->type;
}

static bool is_segmented(LcuSoacKind k) { return k >= SOAC_SEG_MAP && k <= SOAC_SEG_PARTITION; }

/* The size of an unsegmented SOAC: an int variable, #vector, or a
   non-negative constant. */
static void check_size(Checker *c, const LcuSoac *s) {
  const char *name = lcu_soac_name(s->kind);
  const LcuSize *z = &s->size;
  if (z->var && z->length)
    fail(c, s->loc, "%s: the size is both %s and #%s", name, var_name(z->var), var_name(z->length));
  if (z->var) {
    LcuType t = kernel_use(c, s, z->var, "the size");
    if (!lcu_type_equal(t, lcu_scalar(FB_INT)))
      fail(c, s->loc, "%s: the size %s is %s, not an int", name, var_name(z->var), an(t));
  } else if (z->length) {
    LcuType t = kernel_use(c, s, z->length, "the size's vector");
    if (t.kind != LT_VEC)
      fail(c, s->loc, "%s: the size #%s of %s, not a vector", name, var_name(z->length), an(t));
  } else if (z->value < 0) {
    fail(c, s->loc, "%s: the size is %d", name, (int)z->value);
  }
}

/* The λcu types of the components of H(t) or V(t), for the type 'l'
   lays out (a datatype's are its fields'). */
static Vec layout_of(const RtLayout *l, bool vector) {
  Vec flat = {0}, out = {0};
  flat_layout_types(l, !vector, &flat);
  for (int i = 0; i < flat.len; i++)
    push_type(&out, lcu_type_of_flat(*(FlatType *)flat.data[i]));
  return out;
}

/* Checks that types[from ...] begin with 'layout'; returns the index
   after it. */
static int match_layout(Checker *c, const LcuSoac *s, const LcuType *types, int n, int from, const Vec *layout,
                        const char *what) {
  const char *name = lcu_library_name(s->library);
  if (from + layout->len > n)
    fail(c, s->loc, "LIBRARY %s: %d arguments, too few for %s", name, n, what);
  for (int i = 0; i < layout->len; i++)
    if (!lcu_type_equal(types[from + i], type_at(layout, i)))
      fail(c, s->loc, "LIBRARY %s: argument %d is %s where %s has %s", name, from + i + 1, an(types[from + i]), what,
           an(type_at(layout, i)));
  return from + layout->len;
}

/* The library kernel 's': its arguments against its signature (lcu.h,
   LCU_LIBRARIES; rt/ops.def for the flat operations they come from);
   its results' types go to 'results'. */
static void check_library(Checker *c, const LcuSoac *s, Vec *results) {
  if ((unsigned)s->library >= LIB_COUNT)
    fail(c, s->loc, "library kernel %d does not exist", (int)s->library);
  const char *name = lcu_library_name(s->library);
  if (s->pull || s->second || s->identity.len || s->segdes || s->into)
    fail(c, s->loc, "LIBRARY %s has thunks, identities, a sd or `into`; its arguments are kernel variables",
         name);
  if (s->lifted && s->library != LIB_NAME && s->library != LIB_EQL && s->library != LIB_HASH)
    fail(c, s->loc, "LIBRARY %s has no lifted form", name);
  int n = s->args.len;
  LcuType *a = xmalloc_atomic(sizeof(LcuType) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    a[i] = kernel_use(c, s, s->args.data[i], xprintf("argument %d", i + 1));
  /* fixed signatures: the arguments' kinds and base classes */
  int want = -1;
  LcuTypeKind kinds[4];
  int masks[4] = {0, 0, 0, 0};
  switch (s->library) {
  case LIB_RANK:
  case LIB_RANK_DOWN:
    want = 1, kinds[0] = LT_VEC, masks[0] = B_ORDINAL;
    push_type(results, lcu_vec(FB_INT));
    break;
  case LIB_SEG_RANK:
  case LIB_SEG_RANK_DOWN:
    want = 2, kinds[0] = LT_SEGDES, kinds[1] = LT_VEC, masks[1] = B_ORDINAL;
    push_type(results, lcu_vec(FB_INT));
    break;
  case LIB_MAKE_SEGDES:
    /* the lengths; and the total where the host knows it */
    want = lcu_known_total(s) ? 2 : 1, kinds[0] = LT_VEC, masks[0] = B_INT;
    kinds[1] = LT_SCALAR, masks[1] = B_INT;
    push_type(results, lcu_segdes());
    break;
  case LIB_RANGE_SEGDES:
    /* starts, ends, strides; and the total where the host knows it
       (FlatStmt.total) */
    want = lcu_known_total(s) ? 4 : 3;
    for (int i = 0; i < 3; i++)
      kinds[i] = LT_VEC, masks[i] = B_INT;
    kinds[3] = LT_SCALAR, masks[3] = B_INT;
    push_type(results, lcu_segdes());
    push_type(results, lcu_vec(FB_INT));
    push_type(results, lcu_vec(FB_INT));
    break;
  case LIB_SEG_LENGTHS:
  case LIB_SEG_OFFSETS:
  case LIB_SEG_IDS:
    want = 1, kinds[0] = LT_SEGDES;
    push_type(results, lcu_vec(FB_INT));
    break;
  case LIB_LOOP: {
    /* the element function's parameters lifted: a vector of n scalars,
       or a sd of n segments and its values */
    const LcuFunc *f = s->callee;
    if (!f || !f->each)
      fail(c, s->loc, "LIBRARY loop without an element function");
    if (!ircheck_has_func(c, f->name, f))
      fail(c, s->loc, "LIBRARY loop %s, which is not in the program", f->name);
    int k = 0;
    bool unshared = false;
    for (int i = 0; i < f->params.len; i++) {
      const LcuVar *p = f->params.data[i];
      LcuType pt = p->type;
      if (pt.kind == LT_VEC && k < n && lcu_type_equal(a[k], pt)) {
        /* shared: one vector every element reads whole */
        if (lcu_func_updates(f, p) || i == f->each_result)
          fail(c, s->loc, "LIBRARY loop %s: parameter %d, which it updates or returns, has one vector for all", f->name,
               i + 1);
        k++;
        continue;
      }
      unshared = true;
      if (pt.kind == LT_VEC && (k + 1 >= n || a[k].kind != LT_SEGDES || !lcu_type_equal(a[k + 1], pt)))
        fail(c, s->loc, "LIBRARY loop %s: parameter %d, %s, needs a sd and %s, or one %s", f->name, i + 1, an(pt),
             an(pt), an(pt));
      if (pt.kind != LT_VEC && (k >= n || !lcu_type_equal(a[k], lcu_vec(pt.base))))
        fail(c, s->loc, "LIBRARY loop %s: argument %d is %s, for a parameter that is %s", f->name, k + 1,
             k < n ? an(a[k]) : "missing", an(pt));
      k += pt.kind == LT_VEC ? 2 : 1;
    }
    if (!unshared)
      fail(c, s->loc, "LIBRARY loop %s: every argument shared: how many elements?", f->name);
    if (k != n)
      fail(c, s->loc, "LIBRARY loop %s takes %d arguments, not %d", f->name, k, n);
    if (!f->body || f->body->results.len < 1 || (f->each_result >= 0 && f->body->results.len != 1))
      fail(c, s->loc, "LIBRARY loop %s: its function gives neither one result nor scalars", f->name);
    /* a vector of each scalar it gives (a tuple's components), or the
       vector it updates */
    for (int i = 0; i < f->body->results.len; i++)
      push_type(results, lcu_vec(lcu_atom_type(f->body->results.data[i]).base));
    return;
  }
  case LIB_RAND:
    /* a number below each limit: one limit (a scalar) or a vector */
    want = 1, kinds[0] = n == 1 && a[0].kind == LT_SCALAR ? LT_SCALAR : LT_VEC, masks[0] = B_NUMBER;
    if (n == 1)
      push_type(results, a[0]);
    break;
  default:
    break;
  }
  if (want >= 0) {
    if (n != want)
      fail(c, s->loc, "LIBRARY %s takes %d argument%s, not %d", name, want, want == 1 ? "" : "s", n);
    for (int i = 0; i < n; i++)
      if (a[i].kind != kinds[i] || (kinds[i] != LT_SEGDES && !in_class(a[i].base, masks[i])))
        fail(c, s->loc, "LIBRARY %s: argument %d is %s", name, i + 1, an(a[i]));
    return;
  }
  /* the kernels over structured values: the components of one or two
     values of the type 'layout' lays out, as FlatStmt's NAME, EQL and
     HASH */
  if (!s->elem_name || !s->layout)
    fail(c, s->loc, "LIBRARY %s without its element type", name);
  const char *what = s->elem_name;
  switch (s->library) {
  case LIB_NAME: {
    /* V(t), or sd ++ V(t): the segmented name of each segment */
    Vec layout = layout_of(s->layout, true);
    int from = n == layout.len + 1 && a[0].kind == LT_SEGDES ? 1 : 0;
    if (match_layout(c, s, a, n, from, &layout, what) != n)
      fail(c, s->loc, "LIBRARY name: %d arguments, too many for %s", n, what);
    push_type(results, lcu_vec(FB_INT));
    return;
  }
  case LIB_EQL: {
    Vec layout = layout_of(s->layout, s->lifted);
    int mid = match_layout(c, s, a, n, 0, &layout, what);
    if (match_layout(c, s, a, n, mid, &layout, what) != n)
      fail(c, s->loc, "LIBRARY eql: %d arguments, too many for two values of %s", n, what);
    push_type(results, s->lifted ? lcu_vec(FB_BOOL) : lcu_scalar(FB_BOOL));
    return;
  }
  case LIB_HASH: {
    LcuType range = s->lifted ? lcu_vec(FB_INT) : lcu_scalar(FB_INT);
    Vec layout = layout_of(s->layout, s->lifted);
    int at = match_layout(c, s, a, n, 0, &layout, what);
    if (at != n - 1 || !lcu_type_equal(a[at], range))
      fail(c, s->loc, "LIBRARY hash: the arguments are not the components of %s and %s", what, an(range));
    push_type(results, range);
    return;
  }
  default:
    unreachable();
  }
}

/* Checks that the variables 'results' have the types 'types'. */
static void check_results(Checker *c, Loc loc, const char *what, const Vec *results, const Vec *types) {
  if (results->len != types->len)
    fail(c, loc, "%s gives %d result%s, not %d", what, types->len, types->len == 1 ? "" : "s", results->len);
  for (int i = 0; i < results->len; i++) {
    const LcuVar *v = results->data[i];
    check_var_identity(c, loc, v);
    LcuType t = type_at(types, i);
    if (!lcu_type_equal(v->type, t))
      fail(c, loc, "%s: result %s is %s, but it gives %s", what, var_name(v), an(v->type), an(t));
  }
}

/* τ↑ of the values 'tau' (scalars): one vector per value, appended to
   'out'. */
static void push_lifted(Vec *out, const Vec *tau) {
  for (int i = 0; i < tau->len; i++)
    push_type(out, lcu_vec(type_at(tau, i).base));
}

/* The SOAC 's' against its signature (Figures 3 and 4); binds its
   results. */
static void check_soac(Checker *c, const LcuSoac *s) {
  if (!s)
    fail(c, no_loc, "a missing SOAC");
  if ((unsigned)s->kind >= SOAC_COUNT)
    fail(c, s->loc, "SOAC %d does not exist", (int)s->kind);
  const char *name = lcu_soac_name(s->kind);
  Vec results = {0};
  if (s->kind == SOAC_LIBRARY) {
    check_library(c, s, &results);
    check_results(c, s->loc, xprintf("LIBRARY %s", lcu_library_name(s->library)), &s->results, &results);
    for (int i = 0; i < s->results.len; i++)
      kernel_bind(c, s->loc, s->results.data[i]);
    return;
  }
  if (s->args.len)
    fail(c, s->loc, "%s has library arguments", name);

  /* the pull thunk: int => τ (ONCE: unit => τ) */
  bool once = s->kind == SOAC_ONCE;
  FlatBase index = FB_INT, index_segment[2] = {FB_INT, FB_INT};
  ThunkCtx pull = {s, xprintf("%s's %s", name, once ? "thunk" : "pull thunk")};
  if (s->kind == SOAC_SPLIT && !s->segdes && s->pull && s->pull->params.len == 2)
    fail(c, s->loc, "SPLIT's pull thunk takes the segment, but the SPLIT counts no sd (`counts sd`) to take it from");
  Vec tau = lcu_pull_takes_segment(s) ? check_thunk(c, &pull, s->pull, index_segment, 2)
                                      : check_thunk(c, &pull, s->pull, &index, once ? 0 : 1);
  int k = tau.len;
  FlatBase *tb = xmalloc_atomic(sizeof(FlatBase) * (size_t)(2 * k));
  for (int i = 0; i < k; i++)
    tb[i] = tb[k + i] = type_at(&tau, i).base;
  if (s->joined && s->kind != SOAC_PARTITION)
    fail(c, s->loc, "%s is `joined`; only a PARTITION is", name);
  /* the map columns: the last 'maps' values, not combined */
  if (s->maps && s->kind != SOAC_SCAN && s->kind != SOAC_REDUCE)
    fail(c, s->loc, "%s has map columns (`maps %d`); only a SCAN or a REDUCE has", name, s->maps);
  if (s->maps && (s->maps < 0 || s->maps >= k))
    fail(c, s->loc, "%s maps %d of its %d values; at least one is combined", name, s->maps, k);
  Vec all = tau;
  if (s->maps) {
    k -= s->maps;
    tau = (Vec){0};
    for (int i = 0; i < k; i++) {
      tb[k + i] = tb[i];
      vec_push(&tau, all.data[i]);
    }
  }

  /* the second thunk and the identity */
  bool has_second = s->kind != SOAC_MAP && s->kind != SOAC_SEG_MAP && !once;
  bool monoid = s->kind == SOAC_REDUCE || s->kind == SOAC_SCAN || s->kind == SOAC_SEG_REDUCE ||
                s->kind == SOAC_SEG_SCAN;
  bool permute = s->kind == SOAC_PERMUTE || s->kind == SOAC_SEG_PERMUTE;
  if (!has_second && s->second)
    fail(c, s->loc, "%s has a second thunk", name);
  if (!monoid && s->identity.len)
    fail(c, s->loc, "%s has an identity", name);
  if (!permute && s->into)
    fail(c, s->loc, "%s has `into`", name);
  if (permute) {
    /* int => int: where each value goes */
    ThunkCtx idx = {s, xprintf("%s's index thunk", name)};
    Vec it = check_thunk(c, &idx, s->second, &index, 1);
    if (it.len != 1 || type_at(&it, 0).base != FB_INT)
      fail(c, s->loc, "%s's index thunk gives %s; it must give one int", name,
           it.len == 1 ? an(type_at(&it, 0)) : xprintf("%d values", it.len));
    if (s->into) {
      LcuType d = kernel_use(c, s, s->into, "the `into` vector");
      if (k != 1)
        fail(c, s->loc, "%s into %s, but the pull thunk gives %d values; `into` takes one", name, var_name(s->into), k);
      if (!lcu_type_equal(d, lcu_vec(tb[0])))
        fail(c, s->loc, "%s into %s, %s, but the values are %ss", name, var_name(s->into), an(d),
             base_name(tb[0]));
    }
  } else if (monoid) {
    /* τ, and τ × τ => τ */
    if (s->identity.len != k)
      fail(c, s->loc, "%s: %d identit%s for %d value%s", name, s->identity.len, s->identity.len == 1 ? "y" : "ies",
           k, k == 1 ? "" : "s");
    for (int i = 0; i < k; i++) {
      const FlatAtom *id = s->identity.data[i];
      FlatBase b;
      if (!id)
        fail(c, s->loc, "%s: identity %d is missing", name, i + 1);
      switch (id->kind) {
      case FA_INT:
        b = FB_INT;
        break;
      case FA_FLOAT:
        b = FB_FLOAT;
        break;
      case FA_BOOL:
        b = FB_BOOL;
        break;
      case FA_CHAR:
        b = FB_CHAR;
        break;
      default:
        fail(c, s->loc, "%s: identity %d is not a constant", name, i + 1);
      }
      if (b != tb[i])
        fail(c, s->loc, "%s: identity %d is %s where the value is %s", name, i + 1, an_base(b), an_base(tb[i]));
    }
    ThunkCtx op = {s, xprintf("%s's operator", name)};
    Vec ot = check_thunk(c, &op, s->second, tb, 2 * k);
    if (ot.len != k)
      fail(c, s->loc, "%s's operator gives %d value%s for %d", name, ot.len, ot.len == 1 ? "" : "s", k);
    for (int i = 0; i < k; i++)
      if (type_at(&ot, i).base != tb[i])
        fail(c, s->loc, "%s's operator gives %s where the value is %s", name, an(type_at(&ot, i)), an_base(tb[i]));
  } else if (s->kind == SOAC_SPLIT) {
    /* τ => bool^c, the classes' columns covering τ */
    if (s->classes < 1 || s->classes > LCU_SPLIT_MAX || !s->widths)
      fail(c, s->loc, "SPLIT of %d classes; it takes 1 to %d", s->classes, LCU_SPLIT_MAX);
    int sum = 0;
    for (int i = 0; i < s->classes; i++) {
      if (s->widths[i] < 1)
        fail(c, s->loc, "SPLIT's class %d keeps %d values; each keeps at least one", i + 1, s->widths[i]);
      sum += s->widths[i];
    }
    if (sum != k)
      fail(c, s->loc, "SPLIT's classes keep %d values, but the pull thunk gives %d", sum, k);
    ThunkCtx pred = {s, "SPLIT's predicate"};
    Vec pt = check_thunk(c, &pred, s->second, tb, k);
    if (pt.len != s->classes)
      fail(c, s->loc, "SPLIT's predicate gives %d value%s; it must give %d bools, one a class", pt.len,
           pt.len == 1 ? "" : "s", s->classes);
    for (int i = 0; i < pt.len; i++)
      if (type_at(&pt, i).base != FB_BOOL)
        fail(c, s->loc, "SPLIT's predicate gives %s for class %d; a class's flag is a bool", an(type_at(&pt, i)),
             i + 1);
  } else if (has_second) {
    /* FILTER, PARTITION: τ => bool */
    ThunkCtx pred = {s, xprintf("%s's predicate", name)};
    Vec pt = check_thunk(c, &pred, s->second, tb, k);
    if (pt.len != 1 || type_at(&pt, 0).base != FB_BOOL)
      fail(c, s->loc, "%s's predicate gives %s; it must give one bool", name,
           pt.len == 1 ? an(type_at(&pt, 0)) : xprintf("%d values", pt.len));
  }
  if (s->kind != SOAC_SPLIT && (s->classes || s->widths))
    fail(c, s->loc, "%s has classes", name);
  if (s->offsets && (s->kind != SOAC_SPLIT || !s->segdes))
    fail(c, s->loc, "%s gives offsets without counts", name);

  /* the index space: n, a sd, or none */
  if (is_segmented(s->kind)) {
    if (s->size.var || s->size.length)
      fail(c, s->loc, "%s has a size; its sd gives the index space", name);
    if (!s->segdes)
      fail(c, s->loc, "%s without its sd", name);
    LcuType d = kernel_use(c, s, s->segdes, "the sd");
    if (d.kind != LT_SEGDES)
      fail(c, s->loc, "%s over %s, %s, not a sd", name, var_name(s->segdes), an(d));
  } else {
    if (s->segdes && s->kind != SOAC_SPLIT)
      fail(c, s->loc, "%s has a sd", name);
    if (s->segdes) { /* SPLIT's counts: one a class, a segment of this sd */
      LcuType d = kernel_use(c, s, s->segdes, "the counts' sd");
      if (d.kind != LT_SEGDES)
        fail(c, s->loc, "SPLIT counts %s, %s, not a sd", var_name(s->segdes), an(d));
    }
    if (!once)
      check_size(c, s);
    else if (s->size.var || s->size.length)
      fail(c, s->loc, "ONCE has a size");
  }

  /* the results: τ↑ and its variations (lcu.h, above LCU_SOACS) */
  switch (s->kind) {
  case SOAC_REDUCE: /* its scalars, then its map columns */
  case SOAC_ONCE:
    results = tau;
    for (int i = k; i < all.len; i++)
      push_type(&results, lcu_vec(type_at(&all, i).base));
    break;
  case SOAC_MAP:
  case SOAC_PERMUTE:
  case SOAC_SCAN:
  case SOAC_SPLIT:
    push_lifted(&results, &all); /* a SCAN's scans, then its map columns */
    for (int i = 0; s->segdes && i < (s->offsets ? 2 : 1) * s->classes; i++)
      push_type(&results, lcu_vec(FB_INT)); /* counts, then offsets */
    break;
  case SOAC_FILTER:
  case SOAC_SEG_MAP:
  case SOAC_SEG_PERMUTE:
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN:
    push_lifted(&results, &tau);
    break;
  case SOAC_PARTITION:
    push_lifted(&results, &tau);
    if (!s->joined) /* joined: the others after the kept values, in one */
      push_lifted(&results, &tau);
    break;
  case SOAC_SEG_FILTER:
    push_lifted(&results, &tau);
    push_type(&results, lcu_segdes());
    break;
  case SOAC_SEG_PARTITION:
    push_lifted(&results, &tau);
    push_type(&results, lcu_segdes());
    push_lifted(&results, &tau);
    push_type(&results, lcu_segdes());
    break;
  default:
    unreachable();
  }
  check_results(c, s->loc, name, &s->results, &results);
  for (int i = 0; i < s->results.len; i++)
    kernel_bind(c, s->loc, s->results.data[i]);
}

static void check_kernel(Checker *c, const LcuKernel *k) {
  Levels *lv = levels(c);
  c->where = NULL;
  if (!k || !k->name)
    fail(c, no_loc, "a kernel without a name");
  c->where = xprintf("kernel %s", k->name);
  /* a kernel has no location of its own: its first SOAC's stands for it */
  Loc loc = k->soacs.len > 0 && k->soacs.data[0] ? ((LcuSoac *)k->soacs.data[0])->loc : no_loc;
  for (int i = 0; i < k->params.len; i++)
    kernel_bind(c, loc, k->params.data[i]);
  for (int i = 0; i < k->soacs.len; i++)
    check_soac(c, k->soacs.data[i]);
  for (int i = 0; i < k->results.len; i++) {
    const LcuVar *v = k->results.data[i];
    check_var_identity(c, loc, v);
    if (!lv->kbound[v->id])
      fail(c, loc, "result %s is not bound in the kernel", var_name(v));
  }
  clear_marks(&lv->kvars, lv->kbound);
}

/* ---- CPU level ---- */

static LcuType constant_type(const FlatAtom *a) {
  switch (a->kind) {
  case FA_FLOAT:
    return lcu_scalar(FB_FLOAT);
  case FA_BOOL:
    return lcu_scalar(FB_BOOL);
  case FA_CHAR:
    return lcu_scalar(FB_CHAR);
  default:
    return lcu_scalar(FB_INT);
  }
}

/* The types of f's results: those of its body's result atoms. */
static Vec func_result_types(Checker *c, const LcuFunc *f, Loc loc) {
  if (!f->body)
    fail(c, loc, "function %s has no body", f->name);
  Vec types = {0};
  for (int i = 0; i < f->body->results.len; i++) {
    const LcuAtom *a = f->body->results.data[i];
    if (!a)
      fail(c, loc, "function %s: result %d is missing", f->name, i + 1);
    push_type(&types, a->var ? a->var->type : constant_type(&a->constant));
  }
  return types;
}

static LcuType use_atom(Checker *c, Loc loc, const LcuAtom *a) {
  if (!a)
    fail(c, loc, "a missing argument");
  if (!a->var) {
    if (a->constant.kind == FA_VAR)
      fail(c, loc, "a variable argument without its variable");
    if ((unsigned)a->constant.kind > FA_CHAR)
      fail(c, loc, "a constant of kind %d", (int)a->constant.kind);
    return constant_type(&a->constant);
  }
  ircheck_use(c, loc, a->var);
  return a->var->type;
}

/* Appends the type of a block's result atom to 'types', for
   common/ircheck.c. */
static void push_atom_type(Checker *c, Loc loc, const void *a, Vec *types) {
  push_type(types, use_atom(c, loc, a));
}

/* Blocks are checked by common/ircheck.c, which calls back check_stmt
   and push_atom_type. */

static void check_block(Checker *c, const LcuBlock *b, Loc loc) { ircheck_stmts(c, b ? &b->stmts : NULL, loc); }

/* The types of a block's result atoms, after checking the block. */
static Vec block_result_types(Checker *c, const LcuBlock *b, Loc loc) { return ircheck_results(c, &b->results, loc); }

/* Checks 'b' in a scope of its own; returns its results' types. */
static Vec check_nested_block(Checker *c, const LcuBlock *b, Loc loc, const char *what) {
  return ircheck_nested(c, b ? &b->stmts : NULL, b ? &b->results : NULL, loc, what);
}

/* The arguments 'args' (types) against the parameters 'params'. */
static void check_args(Checker *c, Loc loc, const char *what, const LcuType *args, int n, const Vec *params) {
  if (n != params->len)
    fail(c, loc, "%s with %d argument%s; it has %d parameter%s", what, n, n == 1 ? "" : "s", params->len,
         params->len == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    const LcuVar *p = params->data[i];
    if (!p)
      fail(c, loc, "%s: parameter %d is missing", what, i + 1);
    if (!lcu_type_equal(args[i], p->type))
      fail(c, loc, "%s: argument %d is %s, the parameter %s %s", what, i + 1, an(args[i]), var_name(p),
           an(p->type));
  }
}

/* An LS_HOST statement: what its flat operation takes and gives, with
   the vectors on the host.  Its results' types go to 'results'. */
static void check_host(Checker *c, const LcuStmt *s, const LcuType *a, int n, Vec *results) {
  const FlatStmt *f = s->flat;
  if (!f || f->kind != FS_OP || (unsigned)f->op >= FLAT_OP_COUNT)
    fail(c, s->loc, "host: without the flat operation it runs");
  const char *name = flat_op_name(f->op);
  switch (f->op) {
  case FLAT_VECTOR:
    if (n == 0)
      fail(c, s->loc, "host vector of no elements");
    for (int i = 0; i < n; i++)
      if (a[i].kind != LT_SCALAR || a[i].base != a[0].base)
        fail(c, s->loc, "host vector: element %d is %s among %ss", i + 1, an(a[i]),
             lcu_type_name(a[0]));
    push_type(results, lcu_vec(a[0].base));
    return;
  case FLAT_ERROR:
    if (n != 1 || !lcu_type_equal(a[0], lcu_vec(FB_CHAR)))
      fail(c, s->loc, "host error takes one [char], the message");
    return;
  case FLAT_ERROR_ANY:
    if (n != 2 || a[0].kind != LT_SEGDES || !lcu_type_equal(a[1], lcu_vec(FB_CHAR)))
      fail(c, s->loc, "host error_any takes a sd and a [char], the messages");
    return;
  case FLAT_RANGE:
  case FLAT_SEG_RANGE: {
    /* the checks alone (no results), or the whole operation */
    LcuType want = f->op == FLAT_RANGE ? lcu_scalar(FB_INT) : lcu_vec(FB_INT);
    if (n != 3)
      fail(c, s->loc, "host %s takes 3 arguments, not %d", name, n);
    for (int i = 0; i < 3; i++)
      if (!lcu_type_equal(a[i], want))
        fail(c, s->loc, "host %s: argument %d is %s", name, i + 1, an(a[i]));
    if (s->results.len > 0) {
      if (f->op == FLAT_SEG_RANGE)
        push_type(results, lcu_segdes());
      push_type(results, lcu_vec(FB_INT));
    }
    return;
  }
  case FLAT_HOST_PRIM: {
    if (!f->prim || !(f->host != RT_HOST_COUNT && rt_host_lookup(f->prim) == f->host))
      fail(c, s->loc, "host: '%s' is not a primitive", f->prim ? f->prim : "(none)");
    if (!f->elem_name || !f->result_name || !f->layout || !f->result_layout)
      fail(c, s->loc, "host %s without its argument and result types", f->prim);
    Vec layout = layout_of(f->layout, f->lifted);
    const char *what = f->elem_name;
    if (n != layout.len)
      fail(c, s->loc, "host %s: %d arguments for the %d components of %s", f->prim, n, layout.len, what);
    for (int i = 0; i < n; i++)
      if (!lcu_type_equal(a[i], type_at(&layout, i)))
        fail(c, s->loc, "host %s: argument %d is %s where %s has %s", f->prim, i + 1, an(a[i]), what,
             an(type_at(&layout, i)));
    Vec result = layout_of(f->result_layout, f->lifted);
    for (int i = 0; i < result.len; i++)
      push_type(results, type_at(&result, i));
    return;
  }
  default:
    fail(c, s->loc, "host: %s does not run on the host", name);
  }
}


static bool kernel_in_program(Checker *c, const LcuKernel *k) {
  return k->name && map_get(&levels(c)->kernels, k->name) == k;
}

static void check_stmt(Checker *c, const void *stmt) {
  const LcuStmt *s = stmt;
  if (!s)
    fail(c, no_loc, "a missing statement");
  int n = s->args.len;
  LcuType *a = xmalloc_atomic(sizeof(LcuType) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    a[i] = use_atom(c, s->loc, s->args.data[i]);
  Vec results = {0};
  const char *what = "";
  switch (s->kind) {
  case LS_SCALAR: {
    if ((unsigned)s->op >= FLAT_OP_COUNT)
      fail(c, s->loc, "operation %d does not exist", (int)s->op);
    what = flat_op_name(s->op);
    /* the element-wise operations, ZERO and COPY (ADD ... COPY); RAND
       is the library kernel rand, which has the site */
    if (s->op > FLAT_COPY)
      fail(c, s->loc, "%s is not a scalar operation", what);
    if (s->op == FLAT_RAND)
      fail(c, s->loc, "rand is a library kernel, not a scalar operation");
    int want = flat_op_nargs(s->op);
    if (n != want)
      fail(c, s->loc, "%s takes %d argument%s, not %d", what, want, want == 1 ? "" : "s", n);
    FlatBase bases[3];
    for (int i = 0; i < n; i++) {
      if (a[i].kind != LT_SCALAR)
        fail(c, s->loc, "%s: argument %d is %s, not a scalar", what, i + 1, an(a[i]));
      bases[i] = a[i].base;
    }
    FlatBase r;
    const char *why = NULL;
    if (!scalar_op_type(s->op, bases, &r, &why))
      fail(c, s->loc, "%s", why);
    push_type(&results, lcu_scalar(r));
    break;
  }
  case LS_RUN: {
    const LcuKernel *k = s->kernel;
    if (!k)
      fail(c, s->loc, "run without a kernel");
    if (!kernel_in_program(c, k))
      fail(c, s->loc, "run %s, which is not a kernel of the program", k->name ? k->name : "(unnamed)");
    what = xprintf("run %s", k->name);
    check_args(c, s->loc, what, a, n, &k->params);
    for (int i = 0; i < k->results.len; i++) {
      const LcuVar *v = k->results.data[i];
      push_type(&results, v->type);
    }
    break;
  }
  case LS_CALL: {
    const LcuFunc *f = s->callee;
    if (!f)
      fail(c, s->loc, "a call without a callee");
    if (!ircheck_has_func(c, f->name, f))
      fail(c, s->loc, "call of %s, which is not in the program", f->name ? f->name : "(unnamed)");
    what = xprintf("call of %s", f->name);
    check_args(c, s->loc, what, a, n, &f->params);
    results = func_result_types(c, f, s->loc);
    break;
  }
  case LS_IF: {
    if (n != 1 || !lcu_type_equal(a[0], lcu_scalar(FB_BOOL)))
      fail(c, s->loc, "if: the condition must be one bool scalar");
    Vec then_types = check_nested_block(c, s->then, s->loc, "if's then branch");
    Vec else_types = check_nested_block(c, s->els, s->loc, "if's else branch");
    check_results(c, s->loc, "if's then branch", &s->results, &then_types);
    what = "if's else branch";
    results = else_types;
    break;
  }
  case LS_TIME:
    if (n != 0)
      fail(c, s->loc, "time takes no arguments");
    results = check_nested_block(c, s->body, s->loc, "time");
    push_type(&results, lcu_scalar(FB_FLOAT));
    what = "time";
    break;
  case LS_LENGTH: {
    if (n != 1 || !((LcuAtom *)s->args.data[0])->var)
      fail(c, s->loc, "# takes one variable");
    const char *arg = var_name(((LcuAtom *)s->args.data[0])->var);
    switch (s->length) {
    case LEN_VECTOR:
      if (a[0].kind != LT_VEC)
        fail(c, s->loc, "#%s of %s, not a vector", arg, an(a[0]));
      what = "#";
      break;
    case LEN_SEGMENTS:
    case LEN_TOTAL:
      what = s->length == LEN_SEGMENTS ? "#segments" : "#elements";
      if (a[0].kind != LT_SEGDES)
        fail(c, s->loc, "%s %s of %s, not a sd", what, arg, an(a[0]));
      break;
    default:
      fail(c, s->loc, "length kind %d does not exist", (int)s->length);
    }
    push_type(&results, lcu_scalar(FB_INT));
    break;
  }
  case LS_CHECK:
    if (s->check < 0 || s->check >= RT_CHECK_KINDS)
      fail(c, s->loc, "check kind %d does not exist", s->check);
    if (n != rt_check_arity(s->check))
      fail(c, s->loc, "check %s takes %d operands, not %d", rt_check_name(s->check), rt_check_arity(s->check), n);
    for (int i = 0; i < n; i++)
      if (a[i].kind != LT_SCALAR || a[i].base != FB_INT)
        fail(c, s->loc, "check %s: operand %d is %s, not an int", rt_check_name(s->check), i + 1, an(a[i]));
    what = xprintf("check %s", rt_check_name(s->check));
    break;
  case LS_SIZE: {
    if ((unsigned)s->size > SIZE_APPEND)
      fail(c, s->loc, "size kind %d does not exist", (int)s->size);
    const char *kind = lcu_size_name(s->size);
    if (n != lcu_size_arity(s->size))
      fail(c, s->loc, "size %s takes %d operands, not %d", kind, lcu_size_arity(s->size), n);
    for (int i = 0; i < n; i++)
      if (a[i].kind != LT_SCALAR || a[i].base != FB_INT)
        fail(c, s->loc, "size %s: operand %d is %s, not an int", kind, i + 1, an(a[i]));
    what = xprintf("size %s", kind);
    push_type(&results, lcu_scalar(FB_INT));
    break;
  }
  case LS_COST: {
    FlatType *types = xmalloc_atomic(sizeof(FlatType) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
      types[i] = lcu_flat_type(a[i]);
    const char *why = (unsigned)s->cost_rule < FLAT_COST_COUNT
                          ? flat_cost_check((FlatCostRule)s->cost_rule, s->lifted, types, n)
                          : "no such rule";
    what = xprintf("cost %s%s", flat_cost_rule_name((FlatCostRule)s->cost_rule), s->lifted ? "^" : "");
    if (why)
      fail(c, s->loc, "%s: %s", what, why);
    break;
  }
  case LS_ELT:
  case LS_UPDATE: {
    what = s->kind == LS_ELT ? "an element" : "an update";
    if (n != (s->kind == LS_ELT ? 2 : 3) || a[0].kind != LT_VEC || !lcu_type_equal(a[1], lcu_scalar(FB_INT)))
      fail(c, s->loc, "%s takes a vector and an int index%s", what, s->kind == LS_UPDATE ? ", then a value" : "");
    if (s->kind == LS_UPDATE && !lcu_type_equal(a[2], lcu_scalar(a[0].base)))
      fail(c, s->loc, "an update of %s with %s", an(a[0]), an(a[2]));
    if (s->kind == LS_ELT)
      push_type(&results, lcu_scalar(a[0].base));
    break;
  }
  case LS_HOST:
    check_host(c, s, a, n, &results);
    what = s->flat->op == FLAT_HOST_PRIM ? xprintf("host %s", s->flat->prim) : xprintf("host %s", flat_op_name(s->flat->op));
    break;
  default:
    fail(c, s->loc, "statement kind %d does not exist", (int)s->kind);
  }
  check_results(c, s->loc, what, &s->results, &results);
  for (int i = 0; i < s->results.len; i++)
    ircheck_bind(c, s->loc, s->results.data[i]);
}

static void end_function(Checker *c) { ircheck_end_function(c); }

/* Why block 'b' of function 'f', not an element function, may not hold
   what it holds: an element read or update, or a call of an element
   function (LIBRARY loop alone calls one); or NULL. */
static const char *host_func_only(const LcuFunc *f, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_ELT || s->kind == LS_UPDATE)
      return xprintf("%s is not an element function, but it reads or updates a vector's element", f->name);
    if (s->kind == LS_CALL && s->callee && s->callee->each)
      return xprintf("%s calls element function %s", f->name, s->callee->name);
    const char *why = NULL;
    if (s->then && !why)
      why = host_func_only(f, s->then);
    if (s->els && !why)
      why = host_func_only(f, s->els);
    if (s->body && !why)
      why = host_func_only(f, s->body);
    if (why)
      return why;
  }
  return NULL;
}

static void check_func(Checker *c, const LcuFunc *f) {
  c->where = xprintf("function %s", f->name);
  for (int i = 0; i < f->params.len; i++) {
    const LcuVar *v = f->params.data[i];
    /* 'within' names an earlier parameter, a segdes */
    bool earlier = false;
    for (int k = 0; k < i && v->within; k++)
      earlier |= f->params.data[k] == v->within;
    if (v->within && (!earlier || v->within->type.kind != LT_SEGDES))
      fail(c, f->loc, "parameter %s lies in %s, which is not an earlier segdes parameter", v->name,
           v->within->name);
    ircheck_bind(c, f->loc, f->params.data[i]);
  }
  if (!f->body)
    fail(c, f->loc, "no body");
  check_block(c, f->body, f->loc);
  block_result_types(c, f->body, f->loc);
  /* the statements only element functions hold, and where they may be
     called from */
  const char *why = f->each ? lcu_element_func(f) : host_func_only(f, f->body);
  if (why)
    fail(c, f->loc, "%s", why);
  end_function(c);
}

static void check_top(Checker *c, const LcuTop *t) {
  c->where = "top-level statement";
  if (!t)
    fail(c, no_loc, "a missing top-level statement");
  const FlatTop *ft = t->flat;
  Loc loc = ft ? ft->loc : no_loc;
  if (!t->body) {
    if (t->defines.len)
      fail(c, loc, "a top-level statement without a block defines globals");
    return;
  }
  check_block(c, t->body, loc);
  Vec types = block_result_types(c, t->body, loc);
  end_function(c);
  /* the block gives the components of its value, H(t) */
  if (ft && ft->layout) {
    Vec layout = layout_of(ft->layout, false);
    const char *what = ft->type_name ? ft->type_name : "its type";
    if (types.len != layout.len)
      fail(c, loc, "the block gives %d components; %s has %d", types.len, what, layout.len);
    for (int i = 0; i < types.len; i++)
      if (!lcu_type_equal(type_at(&types, i), type_at(&layout, i)))
        fail(c, loc, "the block's result %d is %s; %s has %s", i + 1, an(type_at(&types, i)), what,
             an(type_at(&layout, i)));
  }
  /* the globals it defines: those of the flat statement, one for one */
  if (ft && t->defines.len != ft->defines.len)
    fail(c, loc, "%d globals are defined where the flat statement defines %d", t->defines.len, ft->defines.len);
  if (t->replaced.len && t->replaced.len != t->defines.len)
    fail(c, loc, "%d globals kept on an error for %d defined", t->replaced.len, t->defines.len);
  for (int i = 0; i < t->defines.len; i++) {
    const LcuVar *g = t->defines.data[i];
    check_var_identity(c, loc, g);
    if (!c->is_global[g->id])
      fail(c, loc, "%s is defined at top level but is not in the program's globals", var_name(g));
    if (c->defined[g->id])
      fail(c, loc, "global %s is defined twice", var_name(g));
    c->defined[g->id] = 1;
    const LcuVar *old = i < t->replaced.len ? t->replaced.data[i] : NULL;
    if (old) {
      check_var_identity(c, loc, old);
      if (!c->is_global[old->id] || !c->defined[old->id] || old == g)
        fail(c, loc, "%s, kept on an error, is not an earlier global", var_name(old));
      if (!lcu_type_equal(old->type, g->type))
        fail(c, loc, "%s, kept on an error, is %s where %s is %s", var_name(old), an(old->type), var_name(g),
             an(g->type));
    }
    if (ft) {
      const FlatVar *fv = ft->defines.data[i];
      if (fv && !lcu_type_equal(g->type, lcu_type_of_flat(fv->type)))
        fail(c, loc, "global %s is %s where the flat statement's is %s", var_name(g), an(g->type),
             an(lcu_type_of_flat(fv->type)));
    }
  }
}

bool lcu_check(const LcuProgram *p, const char *after) {
  Checker *c = NEW(Checker);
  ircheck_init(c, &lcu_ir, p->next_var, after);
  Levels *lv = NEW(Levels);
  size_t n = (size_t)(p->next_var > 0 ? p->next_var : 1);
  lv->kbound = xmalloc(n);
  lv->tusing = xmalloc(n);
  lv->tbound = xmalloc(n);
  lv->tvisible = xmalloc(n);
  c->own = lv;
  if (setjmp(c->fail))
    return false;
  for (int i = 0; i < p->globals.len; i++)
    ircheck_add_global(c, p->globals.data[i]);
  for (int i = 0; i < p->kernels.len; i++) {
    const LcuKernel *k = p->kernels.data[i];
    if (!k || !k->name)
      fail(c, no_loc, "a kernel without a name");
    if (map_get(&lv->kernels, k->name))
      fail(c, no_loc, "two kernels are named %s", k->name);
    map_put(&lv->kernels, k->name, (void *)k);
  }
  for (int i = 0; i < p->funcs.len; i++) {
    const LcuFunc *f = p->funcs.data[i];
    ircheck_add_func(c, f ? f->loc : no_loc, f ? f->name : NULL, f);
  }
  for (int i = 0; i < p->kernels.len; i++)
    check_kernel(c, p->kernels.data[i]);
  for (int i = 0; i < p->funcs.len; i++)
    check_func(c, p->funcs.data[i]);
  for (int i = 0; i < p->tops.len; i++)
    check_top(c, p->tops.data[i]);
  return true;
}
