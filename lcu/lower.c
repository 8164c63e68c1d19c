/*
 * lower.c: λcu from the flat IR, one SOAC per kernel.
 *
 * Requires: a checked FlatProgram.  Gives: an LcuProgram in which every
 * vector operation of the flat IR runs as a kernel of one SOAC (or a
 * library kernel), and scalar work, control flow and recursion stay at
 * the CPU level.  Kernels that come out equal (up to the names of their
 * parameters) are made once and run several times, as K1 and K3 of the
 * paper's norm2 example.
 *
 * The translation, by flat operation:
 *   element-wise ops on vectors, DIST, GATHER, APPEND  -> MAP over the
 *     index space, the thunk subscripting its inputs;
 *   SCATTER -> PERMUTE (into a copy of the destination);
 *   REDUCE_op / SCAN_op (and MAX_INDEX as a reduction of (value, index))
 *     -> REDUCE / SCAN, with NESL's identities;
 *   PACK -> FILTER on (value, flag) pairs, or FILTER with the flags'
 *     predicate in its own thunk when they are a comparison of the
 *     packed values (the paper's norm2), PARTITION (the split of a
 *     lifted `if`) -> PARTITION, SEG_PACK -> SEG_FILTER;  ELT -> ONCE;
 *   the segmented ops -> SEG_REDUCE / SEG_SCAN over the segdes;
 *   ranks, segment descriptors, name/eql/hash, rand -> library kernels;
 *   element-wise ops on scalars -> CPU scalar operations;
 *   text and I/O, constant vectors, errors -> host operations.
 * A vector made by DIST of a scalar is read in a thunk as that scalar
 * (`{ i => xs[i] / s using xs, s }`, as in the paper), and its own MAP is
 * dropped when nothing else uses it and its length cannot be negative.
 * Non-recursive library functions are inlined, so that the kernels of a
 * user function's library calls run in its own control region (fusion
 * works within a region); their statements keep the library function's
 * name for run-time errors.
 */
#include <string.h>

#include "lcu.h"

/* What a flat variable stands for in the function being lowered. */
typedef struct Scope {
  PtrMap vars;   /* FlatVar (by pointer) -> LcuVar * */
  PtrMap dists;  /* FlatVar (by pointer) -> Dist *: vectors made by DIST */
  PtrMap nonneg; /* FlatVar (by pointer): ints that cannot be negative */
  PtrMap predicates; /* FlatVar (by pointer) -> FlatStmt *: bool vectors made
                     by an element-wise op that cannot fail, which a
                     FILTER can compute in its predicate (see FLAT_PACK) */
} Scope;

typedef struct Dist {
  LcuAtom *value;  /* the scalar distributed */
  LcuAtom *length; /* how many copies */
  bool nonnegative; /* the length is known not to be negative */
  LcuStmt *run;    /* the run that makes the vector, dropped if unused */
} Dist;

typedef struct Lw {
  FlatProgram *fp;
  LcuProgram *lp;
  Map kernels;     /* canonical text -> LcuKernel * */
  PtrMap funcs;       /* FlatFunc (by pointer) -> LcuFunc * */
  PtrMap recursive;   /* FlatFunc (by pointer) -> non-NULL if on a call cycle */
  PtrMap globals;     /* FlatVar (by pointer) -> LcuVar * */
  Scope *scope;
  LcuBlock *block;
  Loc loc;
  const char *lib_fn; /* inlining a library function: its name */
  Loc user_loc;       /* and the user's call that led there */
  Vec pending;        /* FlatFunc * still to lower */
  PtrMap droppable;      /* LcuStmt (by pointer): runs of DIST kernels that
                         cannot fail, dropped if their vector is unused */
} Lw;

/* ---- variables and atoms ---- */

static LcuType type_of(FlatType t) {
  switch (t.kind) {
  case FT_SCALAR:
    return lcu_scalar(t.base);
  case FT_VEC:
    return lcu_vec(t.base);
  case FT_SEGDES:
    return lcu_segdes();
  }
  unreachable();
}

static LcuVar *var_of(Lw *lw, FlatVar *v) {
  if (v->global) {
    LcuVar *g = ptrmap_get(&lw->globals, v);
    if (!g) {
      g = lcu_new_var(lw->lp, type_of(v->type), v->hint);
      ptrmap_put(&lw->globals, v, g);
      vec_push(&lw->lp->globals, g);
    }
    return g;
  }
  LcuVar *x = ptrmap_get(&lw->scope->vars, v);
  if (!x) {
    x = lcu_new_var(lw->lp, type_of(v->type), v->hint);
    ptrmap_put(&lw->scope->vars, v, x);
  }
  return x;
}

static LcuAtom *atom_var(LcuVar *v) {
  LcuAtom *a = NEW(LcuAtom);
  a->var = v;
  return a;
}

static LcuAtom *atom_const(FlatAtom c) {
  LcuAtom *a = NEW(LcuAtom);
  a->constant = c;
  return a;
}

static LcuAtom *atom_of(Lw *lw, FlatAtom *a) {
  return a->kind == FA_VAR ? atom_var(var_of(lw, a->u.var)) : atom_const(*a);
}

static FlatAtom int_atom(int32_t i) { return (FlatAtom){.kind = FA_INT, .u.i = i}; }

/* ---- CPU statements ---- */

static LcuStmt *stmt(Lw *lw, LcuStmtKind kind) {
  LcuStmt *s = NEW(LcuStmt);
  s->kind = kind;
  s->loc = lw->loc;
  s->lib_fn = lw->lib_fn;
  s->user_loc = lw->user_loc;
  vec_push(&lw->block->stmts, s);
  return s;
}

static LcuVar *new_var(Lw *lw, LcuType t) { return lcu_new_var(lw->lp, t, NULL); }

/* results = op(args) on scalars, at the CPU level */
static LcuVar *scalar_op(Lw *lw, FlatOp op, FlatBase result, int nargs, ...) {
  va_list ap;
  va_start(ap, nargs);
  LcuStmt *s = stmt(lw, LS_SCALAR);
  s->op = op;
  for (int i = 0; i < nargs; i++)
    vec_push(&s->args, va_arg(ap, LcuAtom *));
  va_end(ap);
  LcuVar *r = new_var(lw, lcu_scalar(result));
  vec_push(&s->results, r);
  return r;
}

static LcuVar *length_of(Lw *lw, LcuVar *v, LcuLengthKind kind) {
  LcuStmt *s = stmt(lw, LS_LENGTH);
  s->length = kind;
  vec_push(&s->args, atom_var(v));
  LcuVar *r = new_var(lw, lcu_scalar(FB_INT));
  vec_push(&s->results, r);
  return r;
}

/* ---- thunk expressions ---- */

static LcuExp *exp_new(LcuExpKind kind, FlatBase type) {
  LcuExp *e = NEW(LcuExp);
  e->kind = kind;
  e->type = type;
  return e;
}

static LcuExp *ex_var(LcuVar *v) {
  LcuExp *e = exp_new(LE_VAR, v->type.base);
  e->var = v;
  return e;
}

static FlatBase const_base(FlatAtom c) {
  switch (c.kind) {
  case FA_FLOAT:
    return FB_FLOAT;
  case FA_BOOL:
    return FB_BOOL;
  case FA_CHAR:
    return FB_CHAR;
  default:
    return FB_INT;
  }
}

static LcuExp *ex_const(FlatAtom c) {
  LcuExp *e = exp_new(LE_CONST, const_base(c));
  e->constant = c;
  return e;
}

static LcuExp *ex_index(LcuVar *vec, LcuExp *i) {
  LcuExp *e = exp_new(LE_INDEX, vec->type.base);
  e->var = vec;
  e->args[0] = i;
  e->nargs = 1;
  return e;
}

static LcuExp *ex_length(LcuVar *vec) {
  LcuExp *e = exp_new(LE_LENGTH, FB_INT);
  e->var = vec;
  return e;
}

static LcuExp *ex_op(FlatOp op, FlatBase type, int nargs, LcuExp *a, LcuExp *b, LcuExp *c) {
  LcuExp *e = exp_new(LE_OP, type);
  e->op = op;
  e->nargs = nargs;
  e->args[0] = a;
  e->args[1] = b;
  e->args[2] = c;
  return e;
}

static LcuExp *ex_if(LcuExp *c, LcuExp *a, LcuExp *b) {
  LcuExp *e = exp_new(LE_IF, a->type);
  e->args[0] = c;
  e->args[1] = a;
  e->args[2] = b;
  e->nargs = 3;
  return e;
}

/* ---- kernels ---- */

/* A kernel being built: its parameters stand for CPU variables. */
typedef struct KB {
  Lw *lw;
  LcuKernel *k;
  Vec outer;   /* LcuAtom *: the run's arguments, one per parameter */
  PtrMap params;  /* outer LcuVar (by pointer) -> parameter */
  LcuThunk *thunk; /* the thunk being built: its `using` list grows */
} KB;

static KB *kernel_begin(Lw *lw) {
  KB *kb = NEW(KB);
  kb->lw = lw;
  kb->k = NEW(LcuKernel);
  return kb;
}

/* The kernel parameter standing for CPU variable 'v' (and listed in the
   current thunk's `using`). */
static LcuVar *param(KB *kb, LcuVar *v) {
  LcuVar *p = ptrmap_get(&kb->params, v);
  if (!p) {
    p = lcu_new_var(kb->lw->lp, v->type, NULL);
    ptrmap_put(&kb->params, v, p);
    vec_push(&kb->k->params, p);
    vec_push(&kb->outer, atom_var(v));
  }
  if (kb->thunk) {
    bool listed = false;
    for (int i = 0; i < kb->thunk->using.len; i++)
      listed |= kb->thunk->using.data[i] == p;
    if (!listed)
      vec_push(&kb->thunk->using, p);
  }
  return p;
}

static LcuThunk *thunk_begin(KB *kb, int nparams, FlatBase *types) {
  LcuThunk *t = NEW(LcuThunk);
  for (int i = 0; i < nparams; i++)
    vec_push(&t->params, lcu_new_var(kb->lw->lp, lcu_scalar(types[i]), i == 0 && nparams == 1 ? "i" : NULL));
  kb->thunk = t;
  return t;
}

static LcuThunk *index_thunk(KB *kb) {
  FlatBase b = FB_INT;
  return thunk_begin(kb, 1, &b);
}

static LcuVar *thunk_param(LcuThunk *t, int i) { return t->params.data[i]; }

/* A CPU atom inside a thunk: a constant, or a scalar parameter. */
static LcuExp *scalar_exp(KB *kb, LcuAtom *a) {
  if (!a->var)
    return ex_const(a->constant);
  return ex_var(param(kb, a->var));
}

static LcuSize size_const(int32_t n) { return (LcuSize){NULL, NULL, n}; }

static LcuSize size_of_atom(KB *kb, LcuAtom *a) {
  LcuThunk *saved = kb->thunk;
  kb->thunk = NULL; /* a size is not read by the thunk */
  LcuSize s = a->var ? (LcuSize){param(kb, a->var), NULL, 0} : size_const(a->constant.u.i);
  kb->thunk = saved;
  return s;
}

static LcuSize size_of_vector(KB *kb, LcuVar *v) {
  LcuThunk *saved = kb->thunk;
  kb->thunk = NULL;
  LcuSize s = {NULL, param(kb, v), 0};
  kb->thunk = saved;
  return s;
}

/* A kernel parameter that no thunk reads (a size, a segdes, a library
   kernel's argument). */
static LcuVar *plain_param(KB *kb, LcuVar *sd) {
  LcuThunk *saved = kb->thunk;
  kb->thunk = NULL;
  LcuVar *p = param(kb, sd);
  kb->thunk = saved;
  return p;
}

/* The canonical text of a kernel: its structure with variables numbered
   by first appearance, so that equal kernels compare equal. */
typedef struct Canon {
  Buf b;
  Vec seen; /* LcuVar * in order of first appearance */
} Canon;

static void canon_var(Canon *c, LcuVar *v) {
  int i;
  for (i = 0; i < c->seen.len; i++)
    if (c->seen.data[i] == v)
      break;
  if (i == c->seen.len)
    vec_push(&c->seen, v);
  buf_printf(&c->b, "v%d:%s ", i, lcu_type_name(v->type));
}

static void canon_exp(Canon *c, LcuExp *e) {
  buf_printf(&c->b, "(%d/%d ", e->kind, e->type);
  switch (e->kind) {
  case LE_VAR:
  case LE_LENGTH:
    canon_var(c, e->var);
    break;
  case LE_CONST:
    if (e->constant.kind == FA_FLOAT)
      buf_printf(&c->b, "f%a", e->constant.u.f);
    else
      buf_printf(&c->b, "k%d/%d", e->constant.kind,
                 e->constant.kind == FA_INT ? e->constant.u.i
                 : e->constant.kind == FA_BOOL ? e->constant.u.b
                                               : (unsigned char)e->constant.u.c);
    break;
  case LE_INDEX:
    canon_var(c, e->var);
    break;
  case LE_OP:
    buf_printf(&c->b, "op%d ", e->op);
    break;
  case LE_LET:
    canon_var(c, e->var);
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    canon_exp(c, e->args[i]);
  buf_putc(&c->b, ')');
}

static void canon_thunk(Canon *c, LcuThunk *t) {
  if (!t) {
    buf_puts(&c->b, "{}");
    return;
  }
  buf_putc(&c->b, '{');
  for (int i = 0; i < t->params.len; i++)
    canon_var(c, t->params.data[i]);
  buf_puts(&c->b, "=>");
  for (int i = 0; i < t->body.len; i++)
    canon_exp(c, t->body.data[i]);
  buf_puts(&c->b, "using ");
  for (int i = 0; i < t->using.len; i++)
    canon_var(c, t->using.data[i]);
  buf_putc(&c->b, '}');
}

/* A layout as text: kernels over datatypes of equal fields but other
   names hash differently, so they are not equal. */
static void canon_layout(Canon *c, const RtLayout *l) {
  buf_printf(&c->b, "L%d", (int)l->kind);
  if (l->name)
    buf_printf(&c->b, "%s", l->name);
  buf_putc(&c->b, '(');
  if (l->fst)
    canon_layout(c, l->fst);
  if (l->snd)
    canon_layout(c, l->snd);
  if (l->elem)
    canon_layout(c, l->elem);
  buf_putc(&c->b, ')');
}

static char *canonical(LcuKernel *k) {
  Canon c = {0};
  for (int i = 0; i < k->params.len; i++)
    canon_var(&c, k->params.data[i]);
  for (int i = 0; i < k->soacs.len; i++) {
    LcuSoac *s = k->soacs.data[i];
    buf_printf(&c.b, "|%d lib%d site%d lifted%d ", s->kind, s->library, s->site, s->lifted);
    if (s->elem_type) {
      TypeNamer nm = {0};
      buf_puts(&c.b, type_to_string(&nm, s->elem_type));
    }
    if (s->layout)
      canon_layout(&c, s->layout);
    for (int r = 0; r < s->results.len; r++)
      canon_var(&c, s->results.data[r]);
    canon_thunk(&c, s->pull);
    canon_thunk(&c, s->second);
    for (int r = 0; r < s->identity.len; r++) {
      FlatAtom *a = s->identity.data[r];
      buf_printf(&c.b, "id%d/%a/%d ", a->kind, a->kind == FA_FLOAT ? a->u.f : 0.0, a->kind == FA_INT ? a->u.i : 0);
    }
    if (s->size.var)
      canon_var(&c, s->size.var);
    else if (s->size.length) {
      buf_putc(&c.b, '#');
      canon_var(&c, s->size.length);
    } else {
      buf_printf(&c.b, "n%d ", s->size.value);
    }
    if (s->segdes)
      canon_var(&c, s->segdes);
    if (s->into)
      canon_var(&c, s->into);
    for (int a = 0; a < s->args.len; a++)
      canon_var(&c, s->args.data[a]);
  }
  buf_puts(&c.b, "->");
  for (int i = 0; i < k->results.len; i++)
    canon_var(&c, k->results.data[i]);
  return buf_str(&c.b);
}

/* Finishes the kernel of one SOAC and runs it; the results are new CPU
   variables of the SOAC results' types.  An equal kernel made before is
   run instead. */
static LcuStmt *kernel_run(KB *kb, LcuSoac *soac, Vec *outer_results) {
  Lw *lw = kb->lw;
  soac->loc = lw->loc;
  vec_push(&kb->k->soacs, soac);
  for (int i = 0; i < soac->results.len; i++)
    vec_push(&kb->k->results, soac->results.data[i]);
  char *key = canonical(kb->k);
  LcuKernel *k = map_get(&lw->kernels, key);
  if (!k) {
    k = kb->k;
    k->name = xprintf("K%d", lw->lp->kernels.len + 1);
    map_put(&lw->kernels, key, k);
    vec_push(&lw->lp->kernels, k);
  }
  LcuStmt *s = stmt(lw, LS_RUN);
  s->kernel = k;
  s->args = kb->outer;
  *outer_results = (Vec){0};
  for (int i = 0; i < soac->results.len; i++) {
    LcuVar *r = new_var(lw, ((LcuVar *)soac->results.data[i])->type);
    vec_push(&s->results, r);
    vec_push(outer_results, r);
  }
  return s;
}

static LcuSoac *soac_new(LcuSoacKind kind) {
  LcuSoac *s = NEW(LcuSoac);
  s->kind = kind;
  return s;
}

static void soac_result(KB *kb, LcuSoac *s, LcuType t) { vec_push(&s->results, lcu_new_var(kb->lw->lp, t, NULL)); }

/* Binds the flat results of 'fs' to the CPU variables 'outer'. */
static void bind_results(Lw *lw, FlatStmt *fs, Vec *outer) {
  for (int i = 0; i < fs->results.len; i++)
    ptrmap_put(&lw->scope->vars, fs->results.data[i], outer->data[i]);
}

/* ---- element-wise operations ---- */

static bool is_elementwise(FlatOp op) {
  return op <= FLAT_COPY; /* ORDER FLAT_OP: the element-wise ops come first */
}

/* The thunk operand for flat argument 'a' at index 'i': a constant, a
   scalar, a DIST's scalar, or the vector subscripted. */
static LcuExp *operand(KB *kb, FlatAtom *a, LcuExp *i) {
  Lw *lw = kb->lw;
  if (a->kind != FA_VAR)
    return ex_const(*a);
  Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
  if (d)
    return scalar_exp(kb, d->value);
  LcuVar *v = var_of(lw, a->u.var);
  if (v->type.kind == LT_SCALAR)
    return ex_var(param(kb, v));
  return ex_index(param(kb, v), i);
}

/* The scalar form of an element-wise op in a thunk. */
static LcuExp *elementwise_exp(FlatOp op, FlatBase type, int n, LcuExp **args) {
  if (op == FLAT_COPY)
    return args[0];
  if (op == FLAT_ZERO)
    return ex_const(type == FB_FLOAT ? (FlatAtom){.kind = FA_FLOAT, .u.f = 0.0}
                    : type == FB_BOOL ? (FlatAtom){.kind = FA_BOOL, .u.b = false}
                    : type == FB_CHAR ? (FlatAtom){.kind = FA_CHAR, .u.c = 0}
                                      : int_atom(0));
  return ex_op(op, type, n, args[0], n > 1 ? args[1] : NULL, n > 2 ? args[2] : NULL);
}

/* Element-wise ops that give a bool and cannot fail: a FILTER's
   predicate may compute them from the pulled value. */
static bool predicate_op(FlatOp op) {
  switch (op) {
  case FLAT_EQ: case FLAT_NE: case FLAT_LT: case FLAT_GT: case FLAT_LE: case FLAT_GE:
  case FLAT_NOT: case FLAT_AND: case FLAT_OR: case FLAT_XOR:
    return true;
  default:
    return false;
  }
}

static void lower_elementwise(Lw *lw, FlatStmt *fs) {
  FlatVar *r = fs->results.data[0];
  if (r->type.kind == FT_SCALAR && fs->op != FLAT_RAND) {
    LcuStmt *s = stmt(lw, LS_SCALAR);
    s->op = fs->op;
    for (int i = 0; i < fs->args.len; i++)
      vec_push(&s->args, atom_of(lw, fs->args.data[i]));
    vec_push(&s->results, var_of(lw, r));
    return;
  }
  if (fs->op == FLAT_RAND) {
    /* a library kernel: the generator's state lives with the runtime */
    KB *kb = kernel_begin(lw);
    LcuSoac *s = soac_new(SOAC_LIBRARY);
    s->library = LIB_RAND;
    s->site = fs->site;
    LcuAtom *a = atom_of(lw, fs->args.data[0]);
    if (a->var)
      vec_push(&s->args, plain_param(kb, a->var));
    else
      vec_push(&s->args, param(kb, scalar_op(lw, FLAT_COPY, const_base(a->constant), 1, a)));
    soac_result(kb, s, type_of(r->type));
    Vec out;
    kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  if (fs->op == FLAT_COPY) {
    /* a vector copy is the same vector: no kernel */
    FlatAtom *a = fs->args.data[0];
    ptrmap_put(&lw->scope->vars, r, var_of(lw, a->u.var));
    Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
    if (d)
      ptrmap_put(&lw->scope->dists, r, d);
    return;
  }
  KB *kb = kernel_begin(lw);
  LcuThunk *t = index_thunk(kb);
  LcuExp *i = ex_var(thunk_param(t, 0));
  LcuExp *args[3] = {0};
  LcuSize size = {0};
  bool sized = false;
  for (int k = 0; k < fs->args.len; k++) {
    args[k] = operand(kb, fs->args.data[k], i);
    FlatAtom *a = fs->args.data[k];
    if (!sized && a->kind == FA_VAR && a->u.var->type.kind == FT_VEC && !ptrmap_get(&lw->scope->dists, a->u.var)) {
      size = size_of_vector(kb, var_of(lw, a->u.var));
      sized = true;
    }
  }
  if (!sized) {
    /* every vector argument is a DIST: their length */
    for (int k = 0; k < fs->args.len && !sized; k++) {
      FlatAtom *a = fs->args.data[k];
      Dist *d = a->kind == FA_VAR ? ptrmap_get(&lw->scope->dists, a->u.var) : NULL;
      if (d) {
        size = size_of_atom(kb, d->length);
        sized = true;
      }
    }
  }
  vec_push(&t->body, elementwise_exp(fs->op, r->type.base, fs->args.len, args));
  LcuSoac *s = soac_new(SOAC_MAP);
  s->pull = t;
  s->size = size;
  soac_result(kb, s, type_of(r->type));
  Vec out;
  LcuStmt *run = kernel_run(kb, s, &out);
  bind_results(lw, fs, &out);
  if (r->type.base == FB_BOOL && predicate_op(fs->op)) {
    /* a FILTER may compute these flags itself; then this run is dead */
    ptrmap_put(&lw->scope->predicates, r, fs);
    ptrmap_put(&lw->droppable, run, (void *)1);
  }
}

/* ---- the other operations ---- */

static LcuThunk *pull_vector(KB *kb, LcuVar *v) {
  LcuThunk *t = index_thunk(kb);
  vec_push(&t->body, ex_index(param(kb, v), ex_var(thunk_param(t, 0))));
  return t;
}

/* NESL's identity of a reduction (lib-nesl/README.md, "Identities"). */
static FlatAtom identity_of(FlatOp op, FlatBase b) {
  static const double float_extreme = 9.99999961690316e35;
  FlatAtom a = {0};
  a.kind = b == FB_FLOAT ? FA_FLOAT : b == FB_BOOL ? FA_BOOL : b == FB_CHAR ? FA_CHAR : FA_INT;
  switch (op) {
  case FLAT_ADD:
    break;
  case FLAT_MUL:
    a.u.i = 1;
    if (b == FB_FLOAT)
      a.u.f = 1.0;
    break;
  case FLAT_GE: /* max */
    if (b == FB_FLOAT)
      a.u.f = -float_extreme;
    else if (b == FB_INT)
      a.u.i = INT32_MIN;
    break;
  case FLAT_LE: /* min */
    if (b == FB_FLOAT)
      a.u.f = float_extreme;
    else if (b == FB_INT)
      a.u.i = INT32_MAX;
    else if (b == FB_CHAR)
      a.u.c = (char)255;
    break;
  case FLAT_AND:
    if (b == FB_BOOL)
      a.u.b = true;
    else
      a.u.i = -1;
    break;
  default:
    break;
  }
  return a;
}

/* The combining operator of a reduction, as the flat op that combines
   two values (max and min as GE and LE: keep x if it compares so). */
static FlatOp combiner(FlatOp op) {
  switch (op) {
  case FLAT_REDUCE_ADD: case FLAT_SCAN_ADD: case FLAT_SEG_REDUCE_ADD: case FLAT_SEG_SCAN_ADD:
    return FLAT_ADD;
  case FLAT_REDUCE_MUL: case FLAT_SCAN_MUL: case FLAT_SEG_REDUCE_MUL: case FLAT_SEG_SCAN_MUL:
    return FLAT_MUL;
  case FLAT_REDUCE_MAX: case FLAT_SCAN_MAX: case FLAT_SEG_REDUCE_MAX: case FLAT_SEG_SCAN_MAX:
    return FLAT_GE;
  case FLAT_REDUCE_MIN: case FLAT_SCAN_MIN: case FLAT_SEG_REDUCE_MIN: case FLAT_SEG_SCAN_MIN:
    return FLAT_LE;
  case FLAT_REDUCE_AND: case FLAT_SCAN_AND: case FLAT_SEG_REDUCE_AND: case FLAT_SEG_SCAN_AND:
    return FLAT_AND;
  case FLAT_REDUCE_OR: case FLAT_SCAN_OR: case FLAT_SEG_REDUCE_OR: case FLAT_SEG_SCAN_OR:
    return FLAT_OR;
  default:
    return FLAT_XOR;
  }
}

/* { (x, y) => x op y } */
static LcuThunk *operator_thunk(KB *kb, FlatOp comb, FlatBase b) {
  FlatBase types[2] = {b, b};
  LcuThunk *t = thunk_begin(kb, 2, types);
  LcuExp *x = ex_var(thunk_param(t, 0)), *y = ex_var(thunk_param(t, 1));
  if (comb == FLAT_GE || comb == FLAT_LE)
    vec_push(&t->body, ex_if(ex_op(comb, FB_BOOL, 2, x, y, NULL), x, y));
  else
    vec_push(&t->body, ex_op(comb, b, 2, x, y, NULL));
  kb->thunk = NULL;
  return t;
}

static void lower_reduction(Lw *lw, FlatStmt *fs, bool segmented, bool scan) {
  KB *kb = kernel_begin(lw);
  FlatAtom *va = fs->args.data[segmented ? 1 : 0];
  LcuVar *v = var_of(lw, va->u.var);
  FlatBase b = v->type.base;
  LcuSoac *s = soac_new(segmented ? (scan ? SOAC_SEG_SCAN : SOAC_SEG_REDUCE) : (scan ? SOAC_SCAN : SOAC_REDUCE));
  s->pull = pull_vector(kb, v);
  kb->thunk = NULL;
  FlatOp comb = combiner(fs->op);
  s->second = operator_thunk(kb, comb, b);
  FlatAtom *id = NEW(FlatAtom);
  *id = identity_of(comb, b);
  vec_push(&s->identity, id);
  if (segmented)
    s->segdes = plain_param(kb, var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var));
  else
    s->size = size_of_vector(kb, v);
  soac_result(kb, s, type_of(((FlatVar *)fs->results.data[0])->type));
  Vec out;
  kernel_run(kb, s, &out);
  bind_results(lw, fs, &out);
}

/* MAX_INDEX, MIN_INDEX (and their segmented forms): a reduction of
   (value, index) pairs keeping the first extreme; the index within the
   segment for the segmented form. */
static void lower_extreme_index(Lw *lw, FlatStmt *fs, bool segmented, bool max) {
  LcuVar *offsets = NULL, *ids = NULL;
  LcuVar *sd = segmented ? var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var) : NULL;
  if (segmented) {
    for (int k = 0; k < 2; k++) {
      KB *lb = kernel_begin(lw);
      LcuSoac *ls = soac_new(SOAC_LIBRARY);
      ls->library = k == 0 ? LIB_SEG_OFFSETS : LIB_SEG_IDS;
      vec_push(&ls->args, plain_param(lb, sd));
      soac_result(lb, ls, lcu_vec(FB_INT));
      Vec out;
      kernel_run(lb, ls, &out);
      if (k == 0)
        offsets = out.data[0];
      else
        ids = out.data[0];
    }
  }
  KB *kb = kernel_begin(lw);
  LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[segmented ? 1 : 0])->u.var);
  FlatBase b = v->type.base;
  LcuThunk *pull = index_thunk(kb);
  LcuExp *i = ex_var(thunk_param(pull, 0));
  vec_push(&pull->body, ex_index(param(kb, v), i));
  if (segmented)
    vec_push(&pull->body, ex_op(FLAT_SUB, FB_INT, 2, i,
                                ex_index(param(kb, offsets), ex_index(param(kb, ids), i)), NULL));
  else
    vec_push(&pull->body, i);
  kb->thunk = NULL;
  FlatBase types[4] = {b, FB_INT, b, FB_INT};
  LcuThunk *op = thunk_begin(kb, 4, types);
  LcuExp *x = ex_var(thunk_param(op, 0)), *xi = ex_var(thunk_param(op, 1));
  LcuExp *y = ex_var(thunk_param(op, 2)), *yi = ex_var(thunk_param(op, 3));
  /* keep (x, xi) if x is strictly more extreme, or equal with xi <= yi */
  LcuExp *strict = ex_op(max ? FLAT_GT : FLAT_LT, FB_BOOL, 2, x, y, NULL);
  LcuExp *tie = ex_op(FLAT_AND, FB_BOOL, 2, ex_op(FLAT_EQ, FB_BOOL, 2, x, y, NULL),
                      ex_op(FLAT_LE, FB_BOOL, 2, xi, yi, NULL), NULL);
  LcuExp *keep = ex_op(FLAT_OR, FB_BOOL, 2, strict, tie, NULL);
  vec_push(&op->body, ex_if(keep, x, y));
  vec_push(&op->body, ex_if(keep, xi, yi));
  kb->thunk = NULL;
  LcuSoac *s = soac_new(segmented ? SOAC_SEG_REDUCE : SOAC_REDUCE);
  s->pull = pull;
  s->second = op;
  FlatAtom *id0 = NEW(FlatAtom), *id1 = NEW(FlatAtom);
  *id0 = identity_of(max ? FLAT_GE : FLAT_LE, b);
  *id1 = int_atom(INT32_MAX);
  vec_push(&s->identity, id0);
  vec_push(&s->identity, id1);
  if (segmented)
    s->segdes = plain_param(kb, sd);
  else
    s->size = size_of_vector(kb, v);
  soac_result(kb, s, segmented ? lcu_vec(b) : lcu_scalar(b));
  soac_result(kb, s, segmented ? lcu_vec(FB_INT) : lcu_scalar(FB_INT));
  Vec out;
  kernel_run(kb, s, &out);
  ptrmap_put(&lw->scope->vars, fs->results.data[0], out.data[1]);
}

/* A library kernel on the flat statement's arguments and results. */
static void lower_library(Lw *lw, FlatStmt *fs, LcuLibrary lib) {
  KB *kb = kernel_begin(lw);
  LcuSoac *s = soac_new(SOAC_LIBRARY);
  s->library = lib;
  s->elem_type = fs->elem_type;
  s->layout = fs->layout;
  s->lifted = fs->lifted;
  s->site = fs->site;
  for (int i = 0; i < fs->args.len; i++) {
    LcuAtom *a = atom_of(lw, fs->args.data[i]);
    LcuVar *v = a->var ? a->var : scalar_op(lw, FLAT_COPY, const_base(a->constant), 1, a);
    vec_push(&s->args, plain_param(kb, v));
  }
  for (int i = 0; i < fs->results.len; i++)
    soac_result(kb, s, type_of(((FlatVar *)fs->results.data[i])->type));
  Vec out;
  kernel_run(kb, s, &out);
  bind_results(lw, fs, &out);
}

/* A host operation: the flat statement runs on the host. */
static void lower_host(Lw *lw, FlatStmt *fs) {
  LcuStmt *s = stmt(lw, LS_HOST);
  s->flat = fs;
  for (int i = 0; i < fs->args.len; i++)
    vec_push(&s->args, atom_of(lw, fs->args.data[i]));
  for (int i = 0; i < fs->results.len; i++)
    vec_push(&s->results, var_of(lw, fs->results.data[i]));
}

/* if cond then error(msg) */
static FlatStmt *error_stmt(const char *msg, Loc loc) {
  FlatStmt *text = NEW(FlatStmt);
  text->kind = FS_OP;
  text->op = FLAT_VECTOR;
  text->loc = loc;
  for (const char *p = msg; *p; p++)
    vec_push(&text->args, flat_char_atom(*p));
  return text;
}

static void error_if(Lw *lw, LcuVar *cond, const char *msg) {
  LcuStmt *s = stmt(lw, LS_IF);
  vec_push(&s->args, atom_var(cond));
  LcuBlock *saved = lw->block;
  s->then = lw->block = NEW(LcuBlock);
  LcuStmt *text = stmt(lw, LS_HOST);
  text->flat = error_stmt(msg, lw->loc);
  for (int i = 0; i < text->flat->args.len; i++)
    vec_push(&text->args, atom_const(*(FlatAtom *)text->flat->args.data[i]));
  LcuVar *t = new_var(lw, lcu_vec(FB_CHAR));
  vec_push(&text->results, t);
  FlatStmt *err = NEW(FlatStmt);
  err->kind = FS_OP;
  err->op = FLAT_ERROR;
  err->loc = lw->loc;
  LcuStmt *e = stmt(lw, LS_HOST);
  e->flat = err;
  vec_push(&e->args, atom_var(t));
  s->els = NEW(LcuBlock);
  lw->block = saved;
}

static LcuAtom *av(LcuVar *v) { return atom_var(v); }

/* [s:e:d]: the check and the length on the CPU, the values by a MAP */
static void lower_range(Lw *lw, FlatStmt *fs) {
  LcuAtom *s = atom_of(lw, fs->args.data[0]), *e = atom_of(lw, fs->args.data[1]), *d = atom_of(lw, fs->args.data[2]);
  LcuVar *bad = scalar_op(lw, FLAT_OR, FB_BOOL, 2, av(scalar_op(lw, FLAT_LT, FB_BOOL, 2, e, s)),
                          av(scalar_op(lw, FLAT_LE, FB_BOOL, 2, d, atom_const(int_atom(0)))));
  error_if(lw, bad, "bad range: the end must be >= the start and the stride positive");
  LcuVar *span = scalar_op(lw, FLAT_ADD, FB_INT, 2, av(scalar_op(lw, FLAT_SUB, FB_INT, 2, e, s)),
                           av(scalar_op(lw, FLAT_SUB, FB_INT, 2, d, atom_const(int_atom(1)))));
  LcuVar *n = scalar_op(lw, FLAT_DIV, FB_INT, 2, av(span), d);
  KB *kb = kernel_begin(lw);
  LcuThunk *t = index_thunk(kb);
  LcuExp *i = ex_var(thunk_param(t, 0));
  vec_push(&t->body, ex_op(FLAT_ADD, FB_INT, 2, scalar_exp(kb, s),
                           ex_op(FLAT_MUL, FB_INT, 2, i, scalar_exp(kb, d), NULL), NULL));
  kb->thunk = NULL;
  LcuSoac *so = soac_new(SOAC_MAP);
  so->pull = t;
  so->size = size_of_atom(kb, av(n));
  soac_result(kb, so, lcu_vec(FB_INT));
  Vec out;
  kernel_run(kb, so, &out);
  bind_results(lw, fs, &out);
}

/* seg_range(starts, ends, strides): lengths and checks by kernels, the
   segdes by the library, the values by a MAP over all elements */
static void lower_seg_range(Lw *lw, FlatStmt *fs) {
  LcuVar *sv = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
  LcuVar *ev = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
  LcuVar *dv = var_of(lw, ((FlatAtom *)fs->args.data[2])->u.var);
  /* any bad range? */
  KB *kb = kernel_begin(lw);
  LcuThunk *t = index_thunk(kb);
  LcuExp *i = ex_var(thunk_param(t, 0));
  LcuExp *s = ex_index(param(kb, sv), i), *e = ex_index(param(kb, ev), i), *d = ex_index(param(kb, dv), i);
  vec_push(&t->body, ex_op(FLAT_OR, FB_BOOL, 2, ex_op(FLAT_LT, FB_BOOL, 2, e, s, NULL),
                           ex_op(FLAT_LE, FB_BOOL, 2, d, ex_const(int_atom(0)), NULL), NULL));
  kb->thunk = NULL;
  LcuSoac *r = soac_new(SOAC_REDUCE);
  r->pull = t;
  r->second = operator_thunk(kb, FLAT_OR, FB_BOOL);
  FlatAtom *f = NEW(FlatAtom);
  *f = (FlatAtom){.kind = FA_BOOL, .u.b = false};
  vec_push(&r->identity, f);
  r->size = size_of_vector(kb, sv);
  soac_result(kb, r, lcu_scalar(FB_BOOL));
  Vec out;
  kernel_run(kb, r, &out);
  error_if(lw, out.data[0], "bad range: the end must be >= the start and the stride positive");
  /* the lengths */
  kb = kernel_begin(lw);
  t = index_thunk(kb);
  i = ex_var(thunk_param(t, 0));
  s = ex_index(param(kb, sv), i);
  e = ex_index(param(kb, ev), i);
  d = ex_index(param(kb, dv), i);
  vec_push(&t->body, ex_op(FLAT_DIV, FB_INT, 2,
                           ex_op(FLAT_ADD, FB_INT, 2, ex_op(FLAT_SUB, FB_INT, 2, e, s, NULL),
                                 ex_op(FLAT_SUB, FB_INT, 2, d, ex_const(int_atom(1)), NULL), NULL),
                           d, NULL));
  kb->thunk = NULL;
  LcuSoac *m = soac_new(SOAC_MAP);
  m->pull = t;
  m->size = size_of_vector(kb, sv);
  soac_result(kb, m, lcu_vec(FB_INT));
  kernel_run(kb, m, &out);
  LcuVar *lens = out.data[0];
  LcuVar *vars[3];
  LcuLibrary libs[3] = {LIB_MAKE_SEGDES, LIB_SEG_IDS, LIB_SEG_OFFSETS};
  for (int k = 0; k < 3; k++) {
    KB *lb = kernel_begin(lw);
    LcuSoac *ls = soac_new(SOAC_LIBRARY);
    ls->library = libs[k];
    vec_push(&ls->args, plain_param(lb, k == 0 ? lens : vars[0]));
    soac_result(lb, ls, k == 0 ? lcu_segdes() : lcu_vec(FB_INT));
    kernel_run(lb, ls, &out);
    vars[k] = out.data[0];
  }
  LcuVar *total = length_of(lw, vars[0], LEN_TOTAL);
  kb = kernel_begin(lw);
  t = index_thunk(kb);
  i = ex_var(thunk_param(t, 0));
  LcuExp *seg = ex_index(param(kb, vars[1]), i);
  LcuExp *local = ex_op(FLAT_SUB, FB_INT, 2, i, ex_index(param(kb, vars[2]), seg), NULL);
  vec_push(&t->body, ex_op(FLAT_ADD, FB_INT, 2, ex_index(param(kb, sv), seg),
                           ex_op(FLAT_MUL, FB_INT, 2, local, ex_index(param(kb, dv), seg), NULL), NULL));
  kb->thunk = NULL;
  m = soac_new(SOAC_MAP);
  m->pull = t;
  m->size = size_of_atom(kb, av(total));
  soac_result(kb, m, lcu_vec(FB_INT));
  kernel_run(kb, m, &out);
  ptrmap_put(&lw->scope->vars, fs->results.data[0], vars[0]);
  ptrmap_put(&lw->scope->vars, fs->results.data[1], out.data[0]);
}

/* A FILTER-like kernel over (v[i], flags[i]) pairs whose predicate is the
   flag: FILTER, PARTITION or SEG_FILTER (with 'sd').  Its results are,
   in the order lcu.h gives, the kept values and flags (then the others'
   for PARTITION, or the new sd for SEG_FILTER). */
/* FILTER { i => v[i] } { x => p(x) } n when the flags are an element-wise
   predicate of v's elements (and constants, scalars, distributed
   scalars): the paper's FILTER, without a MAP for the flags.  Its only
   result is the kept values.  NULL if the flags are not such. */
static Vec *predicate_filter(Lw *lw, FlatAtom *va, FlatAtom *fa) {
  FlatStmt *pred = ptrmap_get(&lw->scope->predicates, fa->u.var);
  if (!pred)
    return NULL;
  for (int k = 0; k < pred->args.len; k++) {
    FlatAtom *a = pred->args.data[k];
    bool ok = a->kind != FA_VAR || a->u.var == va->u.var || a->u.var->type.kind == FT_SCALAR ||
              ptrmap_get(&lw->scope->dists, a->u.var);
    if (!ok)
      return NULL;
  }
  LcuVar *v = var_of(lw, va->u.var);
  KB *kb = kernel_begin(lw);
  LcuThunk *t = index_thunk(kb);
  vec_push(&t->body, ex_index(param(kb, v), ex_var(thunk_param(t, 0))));
  kb->thunk = NULL;
  FlatBase base = v->type.base;
  LcuThunk *p = thunk_begin(kb, 1, &base);
  LcuVar *xv = thunk_param(p, 0);
  xv->name = intern(xprintf("x_%d", xv->id)); /* a value, not an index */
  LcuExp *x = ex_var(xv);
  LcuExp *args[3] = {0};
  for (int k = 0; k < pred->args.len; k++) {
    FlatAtom *a = pred->args.data[k];
    args[k] = a->kind == FA_VAR && a->u.var == va->u.var ? x : operand(kb, a, NULL);
  }
  vec_push(&p->body, elementwise_exp(pred->op, FB_BOOL, pred->args.len, args));
  kb->thunk = NULL;
  LcuSoac *s = soac_new(SOAC_FILTER);
  s->pull = t;
  s->second = p;
  s->size = size_of_vector(kb, v);
  soac_result(kb, s, v->type);
  Vec *out = NEW(Vec);
  kernel_run(kb, s, out);
  return out;
}

static Vec flag_filter(Lw *lw, LcuSoacKind kind, LcuVar *v, FlatAtom *flags, LcuVar *sd) {
  KB *kb = kernel_begin(lw);
  LcuThunk *t = index_thunk(kb);
  LcuExp *i = ex_var(thunk_param(t, 0));
  vec_push(&t->body, ex_index(param(kb, v), i));
  vec_push(&t->body, operand(kb, flags, i));
  kb->thunk = NULL;
  FlatBase types[2] = {v->type.base, FB_BOOL};
  LcuThunk *p = thunk_begin(kb, 2, types);
  vec_push(&p->body, ex_var(thunk_param(p, 1)));
  kb->thunk = NULL;
  LcuSoac *s = soac_new(kind);
  s->pull = t;
  s->second = p;
  if (sd)
    s->segdes = plain_param(kb, sd);
  else
    s->size = size_of_vector(kb, v);
  for (int k = 0; k < (kind == SOAC_PARTITION ? 2 : 1); k++) {
    soac_result(kb, s, v->type);
    soac_result(kb, s, lcu_vec(FB_BOOL));
  }
  if (kind == SOAC_SEG_FILTER)
    soac_result(kb, s, lcu_segdes());
  Vec out;
  kernel_run(kb, s, &out);
  return out;
}

/* Errors unless vectors 'a' and 'b' (flat atoms) have one length; shape
   analysis often knows they do. */
static void check_lengths(Lw *lw, FlatAtom *a, FlatAtom *b, const char *msg) {
  if (a->u.var->shape && a->u.var->shape == b->u.var->shape)
    return;
  LcuVar *na = length_of(lw, var_of(lw, a->u.var), LEN_VECTOR);
  LcuVar *nb = length_of(lw, var_of(lw, b->u.var), LEN_VECTOR);
  error_if(lw, scalar_op(lw, FLAT_NE, FB_BOOL, 2, av(na), av(nb)), msg);
}

static bool nonnegative(Lw *lw, FlatAtom *a);
static void mark_nonnegative(Lw *lw, FlatVar *v);

static void lower_op(Lw *lw, FlatStmt *fs) {
  FlatOp op = fs->op;
  if (is_elementwise(op)) {
    lower_elementwise(lw, fs);
    return;
  }
  Vec out;
  switch (op) {
  case FLAT_DIST: {
    LcuAtom *x = atom_of(lw, fs->args.data[0]), *n = atom_of(lw, fs->args.data[1]);
    KB *kb = kernel_begin(lw);
    LcuThunk *t = index_thunk(kb);
    vec_push(&t->body, scalar_exp(kb, x));
    kb->thunk = NULL;
    LcuSoac *s = soac_new(SOAC_MAP);
    s->pull = t;
    s->size = size_of_atom(kb, n);
    soac_result(kb, s, type_of(((FlatVar *)fs->results.data[0])->type));
    LcuStmt *run = kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    Dist *d = NEW(Dist);
    d->value = x;
    d->length = n;
    d->nonnegative = nonnegative(lw, fs->args.data[1]);
    d->run = run;
    if (d->nonnegative)
      ptrmap_put(&lw->droppable, run, (void *)1);
    ptrmap_put(&lw->scope->dists, fs->results.data[0], d);
    return;
  }
  case FLAT_LENGTH: {
    FlatAtom *a = fs->args.data[0];
    mark_nonnegative(lw, fs->results.data[0]);
    Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
    if (d && d->nonnegative) {
      LcuStmt *s = stmt(lw, LS_SCALAR);
      s->op = FLAT_COPY;
      vec_push(&s->args, d->length);
      vec_push(&s->results, var_of(lw, fs->results.data[0]));
      return;
    }
    LcuStmt *s = stmt(lw, LS_LENGTH);
    s->length = LEN_VECTOR;
    vec_push(&s->args, atom_of(lw, a));
    vec_push(&s->results, var_of(lw, fs->results.data[0]));
    return;
  }
  case FLAT_SEG_COUNT:
  case FLAT_SEG_TOTAL: {
    mark_nonnegative(lw, fs->results.data[0]);
    LcuStmt *s = stmt(lw, LS_LENGTH);
    s->length = op == FLAT_SEG_COUNT ? LEN_SEGMENTS : LEN_TOTAL;
    vec_push(&s->args, atom_of(lw, fs->args.data[0]));
    vec_push(&s->results, var_of(lw, fs->results.data[0]));
    return;
  }
  case FLAT_RANGE:
    lower_range(lw, fs);
    return;
  case FLAT_SEG_RANGE:
    lower_seg_range(lw, fs);
    return;
  case FLAT_GATHER: {
    LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    FlatAtom *idx = fs->args.data[1];
    KB *kb = kernel_begin(lw);
    LcuThunk *t = index_thunk(kb);
    LcuExp *i = ex_var(thunk_param(t, 0));
    vec_push(&t->body, ex_index(param(kb, v), operand(kb, idx, i)));
    kb->thunk = NULL;
    LcuSoac *s = soac_new(SOAC_MAP);
    s->pull = t;
    Dist *d = ptrmap_get(&lw->scope->dists, idx->u.var);
    s->size = d ? size_of_atom(kb, d->length) : size_of_vector(kb, var_of(lw, idx->u.var));
    soac_result(kb, s, type_of(((FlatVar *)fs->results.data[0])->type));
    kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_ELT: {
    LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuAtom *i = atom_of(lw, fs->args.data[1]);
    KB *kb = kernel_begin(lw);
    LcuThunk *t = thunk_begin(kb, 0, NULL);
    vec_push(&t->body, ex_index(param(kb, v), scalar_exp(kb, i)));
    kb->thunk = NULL;
    LcuSoac *s = soac_new(SOAC_ONCE);
    s->pull = t;
    soac_result(kb, s, type_of(((FlatVar *)fs->results.data[0])->type));
    kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_SCATTER: {
    LcuVar *dst = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuVar *idx = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
    FlatAtom *vals = fs->args.data[2];
    check_lengths(lw, fs->args.data[1], vals, "<-: the numbers of indices and values differ");
    KB *kb = kernel_begin(lw);
    LcuThunk *t = index_thunk(kb);
    vec_push(&t->body, operand(kb, vals, ex_var(thunk_param(t, 0))));
    kb->thunk = NULL;
    LcuThunk *it = index_thunk(kb);
    vec_push(&it->body, ex_index(param(kb, idx), ex_var(thunk_param(it, 0))));
    kb->thunk = NULL;
    LcuSoac *s = soac_new(SOAC_PERMUTE);
    s->pull = t;
    s->second = it;
    s->size = size_of_vector(kb, idx);
    s->into = plain_param(kb, dst);
    soac_result(kb, s, dst->type);
    kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_PACK: {
    FlatAtom *va = fs->args.data[0], *fa = fs->args.data[1];
    check_lengths(lw, va, fa, "pack: the numbers of values and flags differ");
    Vec *kept = predicate_filter(lw, va, fa);
    if (kept) {
      ptrmap_put(&lw->scope->vars, fs->results.data[0], kept->data[0]);
      return;
    }
    out = flag_filter(lw, SOAC_FILTER, var_of(lw, va->u.var), fa, NULL);
    ptrmap_put(&lw->scope->vars, fs->results.data[0], out.data[0]);
    return;
  }
  case FLAT_SEG_PACK: {
    /* SEG_FILTER { i => (v[i], flags[i]) } { (x, f) => f } sd */
    LcuVar *sd = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
    FlatAtom *fa = fs->args.data[2];
    LcuVar *total = length_of(lw, sd, LEN_TOTAL);
    LcuVar *nv = length_of(lw, v, LEN_VECTOR);
    LcuVar *nf = length_of(lw, var_of(lw, fa->u.var), LEN_VECTOR);
    LcuVar *bad = scalar_op(lw, FLAT_OR, FB_BOOL, 2, av(scalar_op(lw, FLAT_NE, FB_BOOL, 2, av(total), av(nv))),
                            av(scalar_op(lw, FLAT_NE, FB_BOOL, 2, av(total), av(nf))));
    error_if(lw, bad, "pack: the numbers of values and flags differ");
    out = flag_filter(lw, SOAC_SEG_FILTER, v, fa, sd);
    ptrmap_put(&lw->scope->vars, fs->results.data[0], out.data[2]);
    ptrmap_put(&lw->scope->vars, fs->results.data[1], out.data[0]);
    return;
  }
  case FLAT_PARTITION: {
    /* PARTITION { i => (v[i], flags[i]) } { (x, f) => f } n */
    FlatAtom *va = fs->args.data[0], *fa = fs->args.data[1];
    check_lengths(lw, va, fa, "partition: the numbers of values and flags differ");
    out = flag_filter(lw, SOAC_PARTITION, var_of(lw, va->u.var), fa, NULL);
    ptrmap_put(&lw->scope->vars, fs->results.data[0], out.data[0]);
    ptrmap_put(&lw->scope->vars, fs->results.data[1], out.data[2]);
    return;
  }
  case FLAT_APPEND: {
    LcuVar *a = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuVar *b = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
    LcuVar *n = scalar_op(lw, FLAT_ADD, FB_INT, 2, av(length_of(lw, a, LEN_VECTOR)), av(length_of(lw, b, LEN_VECTOR)));
    KB *kb = kernel_begin(lw);
    LcuThunk *t = index_thunk(kb);
    LcuExp *i = ex_var(thunk_param(t, 0));
    LcuVar *pa = param(kb, a), *pb = param(kb, b);
    vec_push(&t->body, ex_if(ex_op(FLAT_LT, FB_BOOL, 2, i, ex_length(pa), NULL), ex_index(pa, i),
                             ex_index(pb, ex_op(FLAT_SUB, FB_INT, 2, i, ex_length(pa), NULL))));
    kb->thunk = NULL;
    LcuSoac *s = soac_new(SOAC_MAP);
    s->pull = t;
    s->size = size_of_atom(kb, av(n));
    soac_result(kb, s, a->type);
    kernel_run(kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_REDUCE_ADD: case FLAT_REDUCE_MUL: case FLAT_REDUCE_MAX: case FLAT_REDUCE_MIN:
  case FLAT_REDUCE_AND: case FLAT_REDUCE_OR: case FLAT_REDUCE_XOR:
    lower_reduction(lw, fs, false, false);
    return;
  case FLAT_SCAN_ADD: case FLAT_SCAN_MUL: case FLAT_SCAN_MAX: case FLAT_SCAN_MIN:
  case FLAT_SCAN_AND: case FLAT_SCAN_OR: case FLAT_SCAN_XOR:
    lower_reduction(lw, fs, false, true);
    return;
  case FLAT_SEG_REDUCE_ADD: case FLAT_SEG_REDUCE_MUL: case FLAT_SEG_REDUCE_MAX: case FLAT_SEG_REDUCE_MIN:
  case FLAT_SEG_REDUCE_AND: case FLAT_SEG_REDUCE_OR: case FLAT_SEG_REDUCE_XOR:
    lower_reduction(lw, fs, true, false);
    return;
  case FLAT_SEG_SCAN_ADD: case FLAT_SEG_SCAN_MUL: case FLAT_SEG_SCAN_MAX: case FLAT_SEG_SCAN_MIN:
  case FLAT_SEG_SCAN_AND: case FLAT_SEG_SCAN_OR: case FLAT_SEG_SCAN_XOR:
    lower_reduction(lw, fs, true, true);
    return;
  case FLAT_MAX_INDEX:
  case FLAT_MIN_INDEX:
    lower_extreme_index(lw, fs, false, op == FLAT_MAX_INDEX);
    return;
  case FLAT_SEG_MAX_INDEX:
  case FLAT_SEG_MIN_INDEX:
    lower_extreme_index(lw, fs, true, op == FLAT_SEG_MAX_INDEX);
    return;
  case FLAT_RANK:
    lower_library(lw, fs, LIB_RANK);
    return;
  case FLAT_RANK_DOWN:
    lower_library(lw, fs, LIB_RANK_DOWN);
    return;
  case FLAT_SEG_RANK:
    lower_library(lw, fs, LIB_SEG_RANK);
    return;
  case FLAT_SEG_RANK_DOWN:
    lower_library(lw, fs, LIB_SEG_RANK_DOWN);
    return;
  case FLAT_MAKE_SEGDES:
    lower_library(lw, fs, LIB_MAKE_SEGDES);
    return;
  case FLAT_SEG_LENGTHS:
    lower_library(lw, fs, LIB_SEG_LENGTHS);
    return;
  case FLAT_SEG_OFFSETS:
    lower_library(lw, fs, LIB_SEG_OFFSETS);
    return;
  case FLAT_SEG_IDS:
    lower_library(lw, fs, LIB_SEG_IDS);
    return;
  case FLAT_NAME:
    lower_library(lw, fs, LIB_NAME);
    return;
  case FLAT_EQL:
    lower_library(lw, fs, LIB_EQL);
    return;
  case FLAT_HASH:
    lower_library(lw, fs, LIB_HASH);
    return;
  case FLAT_VECTOR:
  case FLAT_HOST_PRIM:
  case FLAT_ERROR:
  case FLAT_ERROR_ANY:
    lower_host(lw, fs);
    return;
  default:
    die("lcu: no lowering for flat op %s", flat_op_name(op));
  }
}

/* A length that cannot be negative: a constant, or made by LENGTH or a
   segdes count. */
static bool nonnegative(Lw *lw, FlatAtom *a) {
  if (a->kind == FA_INT)
    return a->u.i >= 0;
  return a->kind == FA_VAR && ptrmap_get(&lw->scope->nonneg, a->u.var);
}

static void mark_nonnegative(Lw *lw, FlatVar *v) { ptrmap_put(&lw->scope->nonneg, v, (void *)1); }

/* ---- blocks, calls, inlining ---- */

static LcuFunc *func_of(Lw *lw, FlatFunc *f);
static void lower_block_into(Lw *lw, FlatBlock *b, LcuBlock *out);

static void inline_call(Lw *lw, FlatStmt *fs) {
  FlatFunc *f = fs->callee;
  Scope *caller = lw->scope;
  Scope *callee = NEW(Scope);
  /* parameters: the caller's atoms */
  Vec args = {0};
  for (int i = 0; i < fs->args.len; i++)
    vec_push(&args, atom_of(lw, fs->args.data[i]));
  lw->scope = callee;
  for (int i = 0; i < f->params.len; i++) {
    LcuAtom *a = args.data[i];
    FlatVar *p = f->params.data[i];
    if (a->var) {
      ptrmap_put(&callee->vars, p, a->var);
      FlatVar *fa = ((FlatAtom *)fs->args.data[i])->u.var;
      Dist *d = ptrmap_get(&caller->dists, fa);
      if (d)
        ptrmap_put(&callee->dists, p, d);
      if (ptrmap_get(&caller->nonneg, fa))
        ptrmap_put(&callee->nonneg, p, (void *)1);
    } else {
      LcuStmt *s = stmt(lw, LS_SCALAR);
      s->op = FLAT_COPY;
      vec_push(&s->args, a);
      vec_push(&s->results, var_of(lw, p));
    }
  }
  const char *saved_fn = lw->lib_fn;
  Loc saved_user = lw->user_loc, saved_loc = lw->loc;
  if (!lw->lib_fn) {
    lw->lib_fn = f->source;
    lw->user_loc = fs->loc;
  }
  LcuBlock tmp = {0};
  LcuBlock *saved_block = lw->block;
  lower_block_into(lw, f->body, &tmp);
  lw->block = saved_block;
  for (int i = 0; i < tmp.stmts.len; i++)
    vec_push(&lw->block->stmts, tmp.stmts.data[i]);
  Vec results = tmp.results;
  lw->lib_fn = saved_fn;
  lw->user_loc = saved_user;
  lw->loc = saved_loc;
  lw->scope = caller;
  for (int i = 0; i < fs->results.len; i++) {
    LcuAtom *r = results.data[i];
    if (r->var) {
      ptrmap_put(&caller->vars, fs->results.data[i], r->var);
    } else {
      LcuStmt *s = stmt(lw, LS_SCALAR);
      s->op = FLAT_COPY;
      vec_push(&s->args, r);
      vec_push(&s->results, var_of(lw, fs->results.data[i]));
    }
  }
}

static void lower_stmt(Lw *lw, FlatStmt *fs) {
  lw->loc = fs->loc;
  switch (fs->kind) {
  case FS_OP:
    lower_op(lw, fs);
    return;
  case FS_CALL:
    if (fs->callee->library && !ptrmap_get(&lw->recursive, fs->callee)) {
      inline_call(lw, fs);
      return;
    } else {
      LcuStmt *s = stmt(lw, LS_CALL);
      s->callee = func_of(lw, fs->callee);
      for (int i = 0; i < fs->args.len; i++)
        vec_push(&s->args, atom_of(lw, fs->args.data[i]));
      for (int i = 0; i < fs->results.len; i++)
        vec_push(&s->results, var_of(lw, fs->results.data[i]));
    }
    return;
  case FS_IF: {
    LcuStmt *s = stmt(lw, LS_IF);
    vec_push(&s->args, atom_of(lw, fs->args.data[0]));
    s->then = NEW(LcuBlock);
    s->els = NEW(LcuBlock);
    LcuBlock *saved = lw->block;
    lower_block_into(lw, fs->then, s->then);
    lower_block_into(lw, fs->els, s->els);
    lw->block = saved;
    for (int i = 0; i < fs->results.len; i++)
      vec_push(&s->results, var_of(lw, fs->results.data[i]));
    return;
  }
  case FS_TIME: {
    LcuStmt *s = stmt(lw, LS_TIME);
    s->body = NEW(LcuBlock);
    LcuBlock *saved = lw->block;
    lower_block_into(lw, fs->body, s->body);
    lw->block = saved;
    for (int i = 0; i < fs->results.len; i++)
      vec_push(&s->results, var_of(lw, fs->results.data[i]));
    return;
  }
  }
}

static void lower_block_into(Lw *lw, FlatBlock *b, LcuBlock *out) {
  lw->block = out;
  for (int i = 0; i < b->stmts.len; i++)
    lower_stmt(lw, b->stmts.data[i]);
  lw->block = out;
  for (int i = 0; i < b->results.len; i++)
    vec_push(&out->results, atom_of(lw, b->results.data[i]));
}

static LcuFunc *func_of(Lw *lw, FlatFunc *f) {
  LcuFunc *lf = ptrmap_get(&lw->funcs, f);
  if (lf)
    return lf;
  lf = NEW(LcuFunc);
  lf->name = f->name;
  lf->loc = f->loc;
  lf->library = f->library;
  lf->source = f->source;
  lf->flat = f;
  ptrmap_put(&lw->funcs, f, lf);
  vec_push(&lw->lp->funcs, lf);
  vec_push(&lw->pending, f);
  return lf;
}

/* ---- dead runs ---- */

static void count_uses(LcuBlock *b, PtrMap *uses);

static void use_atom(LcuAtom *a, PtrMap *uses) {
  if (a->var) {
    intptr_t n = (intptr_t)ptrmap_get(uses, a->var);
    ptrmap_put(uses, a->var, (void *)(n + 1));
  }
}

static void count_uses(LcuBlock *b, PtrMap *uses) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    for (int k = 0; k < s->args.len; k++)
      use_atom(s->args.data[k], uses);
    if (s->then)
      count_uses(s->then, uses);
    if (s->els)
      count_uses(s->els, uses);
    if (s->body)
      count_uses(s->body, uses);
  }
  for (int i = 0; i < b->results.len; i++)
    use_atom(b->results.data[i], uses);
}

/* A CPU scalar operation that cannot stop with an error (float
   arithmetic can: NESL has no infinities). */
static bool safe_scalar(LcuStmt *s) {
  bool ints = ((LcuVar *)s->results.data[0])->type.base != FB_FLOAT;
  switch (s->op) {
  case FLAT_ADD: case FLAT_SUB: case FLAT_MUL: case FLAT_NEG:
    return ints;
  case FLAT_EQ: case FLAT_NE: case FLAT_LT: case FLAT_GT: case FLAT_LE: case FLAT_GE:
  case FLAT_NOT: case FLAT_AND: case FLAT_OR: case FLAT_XOR: case FLAT_LSHIFT: case FLAT_RSHIFT:
  case FLAT_COPY: case FLAT_SELECT: case FLAT_BTOI: case FLAT_TO_FLOAT: case FLAT_CHAR_CODE: case FLAT_ZERO:
    return true;
  default:
    return false;
  }
}

/* Dead code: statements whose results nothing reads and that cannot fail
   or print: lengths, safe scalar operations, and the runs of DIST
   kernels made unnecessary by reading their scalar in thunks.  Returns
   whether anything was dropped. */
static bool drop_dead(LcuBlock *b, PtrMap *uses, PtrMap *droppable) {
  bool changed = false;
  int out = 0;
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    if (s->then)
      changed |= drop_dead(s->then, uses, droppable);
    if (s->els)
      changed |= drop_dead(s->els, uses, droppable);
    if (s->body)
      changed |= drop_dead(s->body, uses, droppable);
    bool unused = s->results.len > 0;
    for (int k = 0; k < s->results.len; k++)
      unused &= !ptrmap_get(uses, s->results.data[k]);
    bool pure = s->kind == LS_LENGTH || (s->kind == LS_SCALAR && safe_scalar(s)) ||
                (s->kind == LS_RUN && ptrmap_get(droppable, s));
    if (unused && pure)
      changed = true;
    else
      b->stmts.data[out++] = s;
  }
  b->stmts.len = out;
  return changed;
}

/* ---- programs ---- */

/* Marks the functions on a cycle of the call graph. */
static void find_recursion(Lw *lw) {
  FlatProgram *fp = lw->fp;
  int n = fp->funcs.len;
  PtrMap index = {0};
  for (int i = 0; i < n; i++)
    ptrmap_put(&index, fp->funcs.data[i], (void *)(intptr_t)(i + 1));
  /* reach[i][j]: i calls j, transitively (n is small) */
  char *reach = xmalloc_atomic((size_t)n * (size_t)n + 1);
  memset(reach, 0, (size_t)n * (size_t)n + 1);
  for (int i = 0; i < n; i++) {
    FlatFunc *f = fp->funcs.data[i];
    Vec stack = {0};
    vec_push(&stack, f->body);
    while (stack.len) {
      FlatBlock *b = stack.data[--stack.len];
      for (int k = 0; k < b->stmts.len; k++) {
        FlatStmt *s = b->stmts.data[k];
        if (s->kind == FS_CALL) {
          intptr_t j = (intptr_t)ptrmap_get(&index, s->callee);
          if (j)
            reach[(size_t)i * (size_t)n + (size_t)(j - 1)] = 1;
        }
        if (s->then)
          vec_push(&stack, s->then);
        if (s->els)
          vec_push(&stack, s->els);
        if (s->body)
          vec_push(&stack, s->body);
      }
    }
  }
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      if (reach[(size_t)i * (size_t)n + (size_t)k])
        for (int j = 0; j < n; j++)
          if (reach[(size_t)k * (size_t)n + (size_t)j])
            reach[(size_t)i * (size_t)n + (size_t)j] = 1;
  for (int i = 0; i < n; i++)
    if (reach[(size_t)i * (size_t)n + (size_t)i])
      ptrmap_put(&lw->recursive, fp->funcs.data[i], (void *)1);
}

static void finish_block(Lw *lw, LcuBlock *b) {
  for (;;) {
    PtrMap uses = {0};
    count_uses(b, &uses);
    if (!drop_dead(b, &uses, &lw->droppable))
      return;
  }
}

static void mark_run_kernels(LcuBlock *b, PtrMap *run) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN)
      ptrmap_put(run, s->kernel, (void *)1);
    if (s->then)
      mark_run_kernels(s->then, run);
    if (s->els)
      mark_run_kernels(s->els, run);
    if (s->body)
      mark_run_kernels(s->body, run);
  }
}

/* Leaves out the kernels no statement runs (those of dropped runs), and
   numbers the others K1, K2, ... in order. */
static void prune_kernels(LcuProgram *p) {
  PtrMap run = {0};
  for (int i = 0; i < p->funcs.len; i++)
    mark_run_kernels(((LcuFunc *)p->funcs.data[i])->body, &run);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      mark_run_kernels(t->body, &run);
  }
  int out = 0;
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    if (ptrmap_get(&run, k)) {
      k->name = xprintf("K%d", out + 1);
      p->kernels.data[out++] = k;
    }
  }
  p->kernels.len = out;
}

LcuProgram *lcu_lower(FlatProgram *fp) {
  Lw *lw = NEW(Lw);
  lw->fp = fp;
  lw->lp = NEW(LcuProgram);
  lw->lp->next_var = 1;
  find_recursion(lw);
  for (int i = 0; i < fp->tops.len; i++) {
    FlatTop *ft = fp->tops.data[i];
    LcuTop *t = NEW(LcuTop);
    t->flat = ft;
    if (ft->body) {
      lw->scope = NEW(Scope);
      lw->lib_fn = NULL;
      t->body = NEW(LcuBlock);
      lower_block_into(lw, ft->body, t->body);
      finish_block(lw, t->body);
      for (int k = 0; k < ft->defines.len; k++)
        vec_push(&t->defines, var_of(lw, ft->defines.data[k]));
    }
    vec_push(&lw->lp->tops, t);
    while (lw->pending.len) {
      FlatFunc *f = lw->pending.data[--lw->pending.len];
      LcuFunc *lf = func_of(lw, f);
      lw->scope = NEW(Scope);
      lw->lib_fn = NULL;
      for (int k = 0; k < f->params.len; k++)
        vec_push(&lf->params, var_of(lw, f->params.data[k]));
      lf->body = NEW(LcuBlock);
      lower_block_into(lw, f->body, lf->body);
      finish_block(lw, lf->body);
    }
  }
  prune_kernels(lw->lp);
  return lw->lp;
}
