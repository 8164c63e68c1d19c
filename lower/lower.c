/*
 * lower.c: λcu from the flat IR, one SOAC per kernel.
 *
 * Requires: a checked FlatProgram.  Gives: an LcuProgram in which every
 * vector operation of the flat IR runs as a kernel of one SOAC (or a
 * library kernel), and scalar work, control flow and recursion stay at
 * the CPU level.  Kernels that come out equal (up to the names of their
 * variables, and with their expressions where their SOACs are: build.c,
 * lcu_intern_kernel) are made once and run several times, as K1 and K3
 * of the paper's norm2 example.  Then dead statements and unused
 * kernels go (lcu_drop_dead, lcu_prune_kernels).  Every expression has
 * the location of the flat statement it comes from; CPU vectors get the
 * shape classes of shape analysis (see "shapes" below).
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
 * name for run-time errors.  So are small non-recursive lifted user
 * functions (the function an apply-to-each calls), with their own
 * locations, each marked with the function and the call it was inlined
 * from (Loc.inlined), so that a run-time error in it names the function
 * as the flat interpreter's call does (`(in function f, ...)`): the mark
 * is part of the location, which fusion carries wherever the expression
 * goes.
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* What a flat variable stands for in the function being lowered. */
typedef struct Scope {
  PtrMap vars;   /* FlatVar (by pointer) -> LcuVar * */
  PtrMap dists;  /* FlatVar (by pointer) -> Dist *: vectors made by DIST */
  PtrMap nonneg; /* FlatVar (by pointer): ints that cannot be negative */
  PtrMap predicates; /* FlatVar (by pointer) -> FlatStmt *: bool vectors made
                     by an element-wise op that cannot fail, which a
                     FILTER can compute in its predicate (see FLAT_PACK) */
  PtrMap shapes; /* FlatVar.shape (as a pointer-sized integer) -> the
                    shape class of this scope's LcuVars (idem) */
  PtrMap stricts; /* the same for FlatVar.strict and LcuVar.strict */
} Scope;

/* Classes of LcuVars of one length (see bind_shape): union-find over
   class numbers. */
typedef struct Classes {
  int *parent;
  int n, cap;
  Vec members; /* LcuVar * with a class, in creation order */
} Classes;

typedef struct Dist {
  LcuAtom *value;  /* the scalar distributed */
  LcuAtom *length; /* how many copies */
  bool nonnegative; /* the length is known not to be negative */
  LcuStmt *run;    /* the run that makes the vector, dropped if unused */
} Dist;

typedef struct Lw {
  FlatProgram *fp;
  LcuProgram *lp;
  LcuKernelTable kernels; /* each distinct kernel, made once */
  PtrMap funcs;       /* FlatFunc (by pointer) -> LcuFunc * */
  PtrMap recursive;   /* FlatFunc (by pointer) -> non-NULL if on a call cycle */
  PtrMap globals;     /* FlatVar (by pointer) -> LcuVar * */
  Scope *scope;
  LcuBlock *block;
  Loc loc;
  const char *lib_fn; /* inlining a library function: its name */
  Loc user_loc;       /* and the user's call that led there */
  const Inlined *inlined; /* inlining a user function: the record every
                         location made meanwhile carries (Loc.inlined) */
  Vec pending;        /* FlatFunc * still to lower */
  PtrMap each_funcs;  /* FlatFunc (by pointer) -> its element function */
  Vec pending_each;   /* FlatFunc * whose element function is still to lower */
  PtrMap droppable;      /* LcuStmt (by pointer): runs of DIST kernels that
                         cannot fail, dropped if their vector is unused */
  Classes shapes;     /* LcuVar.shape's classes */
  Classes stricts;    /* LcuVar.strict's */
  /* kernels known before they are built (known.c): the description of
     the kernel about to be made, and what it needs when it is new */
  LcuKnownKernels known;
  LcuPlan plan;
  bool plan_pending;             /* the next kernel begun is the plan's */
  LcuKernelBuilder *planned;     /* that kernel's builder */
  int plan_next_var;             /* the program's next variable id before it */
  const LcuKnownKernel *checked; /* NESSIE_CHECK_PLANS: what it should come out as */
  bool check_plans;
} Lw;

/* ---- variables and atoms ---- */

/* ---- shapes ----
   FlatVar.shape numbers classes of flat variables of one length, within
   a function's body; lowering inlines library functions, so that the
   variables of one flat function stand for several expansions, whose
   lengths differ.  So each scope (a function's or top-level block, an
   inlined call) maps flat shapes to classes of its own, and a class
   meets another only where one value is both: a call's argument and the
   callee's parameter, the inlined body's result and the caller's
   variable, a global and its uses.  The classes are merged by
   union-find, and numbered 1, 2, ... at the end (lower_program), those of
   one variable left at 0. */

static int class_new(Classes *cl) {
  if (cl->n + 1 >= cl->cap) {
    cl->cap = cl->cap ? 2 * cl->cap : 256;
    cl->parent = xrealloc(cl->parent, sizeof(int) * (size_t)cl->cap);
  }
  int c = ++cl->n; /* 0 stays "unknown" */
  cl->parent[c] = c;
  return c;
}

/* LcuVar 'x', whose class in 'cl' is '*mine' (0: none yet), joins class
   'c'. */
static void class_join(Classes *cl, int *mine, LcuVar *x, int c) {
  if (!*mine) {
    *mine = c;
    vec_push(&cl->members, x);
  } else {
    uf_unite(cl->parent, *mine, c);
  }
}

/* LcuVar 'x', whose class in 'cl' is '*mine', holds the value of a flat
   variable of class 'flat' (FlatVar.shape or .strict) in the current
   scope, whose classes of that kind are 'scoped'. */
static void bind_class(Classes *cl, PtrMap *scoped, int flat, int *mine, LcuVar *x) {
  if (!flat)
    return;
  void **slot = ptrmap_slot(scoped, (void *)(intptr_t)flat, true);
  if (!*slot)
    *slot = (void *)(intptr_t)(*mine ? *mine : class_new(cl));
  class_join(cl, mine, x, (int)(intptr_t)*slot);
}

/* LcuVar 'x' holds the value of flat variable 'v' in the current scope. */
static void bind_shape(Lw *lw, FlatVar *v, LcuVar *x) {
  if (x->type.kind == LT_SCALAR)
    return;
  bind_class(&lw->shapes, &lw->scope->shapes, v->shape, &x->shape, x);
  bind_class(&lw->stricts, &lw->scope->stricts, v->strict, &x->strict, x);
}

/* Variables 'vars' (NULL: none) in one class of 'cl' where their layout
   groups 'groups' (flatten_layout_groups's numbers) are one nonzero
   group. */
static void unite_groups(Classes *cl, const Vec *groups, LcuVar **vars, int n, bool strict) {
  if (groups->len != n)
    return;
  for (int i = 0; i < n; i++) {
    intptr_t g = (intptr_t)groups->data[i];
    LcuVar *x = vars[i];
    if (!g || !x || x->type.kind == LT_SCALAR)
      continue;
    for (int j = 0; j < i; j++) {
      LcuVar *y = vars[j];
      if ((intptr_t)groups->data[j] != g || !y || y->type.kind == LT_SCALAR)
        continue;
      int *ys = strict ? &y->strict : &y->shape;
      if (!*ys)
        class_join(cl, ys, y, class_new(cl));
      class_join(cl, strict ? &x->strict : &x->shape, x, *ys);
      break;
    }
  }
}

/* The results of call 'fs', lowered to a call (not inlined: they are
   new variables, none an argument the callee returns): those that its
   layout gives one length (FlatFunc.result_groups) in one strict class,
   which they have whenever they exist. */
static void unite_call_results(Lw *lw, FlatStmt *fs) {
  LcuVar **vars = xmalloc(sizeof(LcuVar *) * (size_t)(fs->results.len + 1));
  for (int i = 0; i < fs->results.len; i++)
    vars[i] = ptrmap_get(&lw->scope->vars, fs->results.data[i]);
  unite_groups(&lw->stricts, &fs->callee->result_groups, vars, fs->results.len, true);
}

/* The parameters of function 'f', lowered to a function of its own (not
   inlined): those that its layout gives one length (FlatFunc.param_groups:
   the components of one vector of tuples, a lifted function's vectors of
   its elements) in one class and one strict class.  Whenever the body
   runs they have one length, as its caller built them as one value after
   its checks; an inlined call's arguments, the caller's own variables,
   are not joined (shape.c). */
static void unite_params(Lw *lw, const FlatFunc *f, const LcuFunc *lf) {
  unite_groups(&lw->shapes, &f->param_groups, (LcuVar **)lf->params.data, lf->params.len, false);
  unite_groups(&lw->stricts, &f->param_groups, (LcuVar **)lf->params.data, lf->params.len, true);
}

/* Each variable's class by its root, numbered in order of first
   appearance; classes of one variable are unknown (0).  'strict': the
   classes of LcuVar.strict, else of .shape. */
static void number_classes(Classes *cl, bool strict) {
  int *members = xmalloc_atomic(sizeof(int) * (size_t)(cl->n + 1));
  int *number = xmalloc_atomic(sizeof(int) * (size_t)(cl->n + 1));
  for (int c = 0; c <= cl->n; c++)
    members[c] = number[c] = 0;
  for (int i = 0; i < cl->members.len; i++) {
    LcuVar *x = cl->members.data[i];
    int *mine = strict ? &x->strict : &x->shape;
    *mine = uf_find(cl->parent, *mine);
    members[*mine]++;
  }
  int next = 0;
  for (int i = 0; i < cl->members.len; i++) {
    LcuVar *x = cl->members.data[i];
    int *mine = strict ? &x->strict : &x->shape;
    if (members[*mine] < 2) {
      *mine = 0;
      continue;
    }
    if (!number[*mine])
      number[*mine] = ++next;
    *mine = number[*mine];
  }
}

/* Flat variable 'v' is 'x' in the current scope. */
static void bind_var(Lw *lw, FlatVar *v, LcuVar *x) {
  ptrmap_put(&lw->scope->vars, v, x);
  bind_shape(lw, v, x);
}

static LcuVar *var_of(Lw *lw, FlatVar *v) {
  if (v->global) {
    LcuVar *g = ptrmap_get(&lw->globals, v);
    if (!g) {
      g = lcu_new_var(lw->lp, lcu_type_of_flat(v->type), v->hint);
      ptrmap_put(&lw->globals, v, g);
      vec_push(&lw->lp->globals, g);
    }
    bind_shape(lw, v, g);
    return g;
  }
  LcuVar *x = ptrmap_get(&lw->scope->vars, v);
  if (!x) {
    x = lcu_new_var(lw->lp, lcu_type_of_flat(v->type), v->hint);
    bind_var(lw, v, x);
  }
  return x;
}

static LcuAtom *atom_of(Lw *lw, FlatAtom *a) {
  return a->kind == FA_VAR ? lcu_atom_var(var_of(lw, a->u.var)) : lcu_atom_const(*a);
}

/* ---- CPU statements ---- */

/* Appends 's' to the block being lowered; a statement inlined from the
   library keeps the library function's name for its errors. */
static LcuStmt *emit(Lw *lw, LcuStmt *s) {
  s->lib_fn = lw->lib_fn;
  s->user_loc = lw->user_loc;
  lcu_block_add(lw->block, s);
  return s;
}

/* results = op(args) on scalars, at the CPU level */
static LcuVar *scalar_op(Lw *lw, FlatOp op, FlatBase result, int nargs, ...) {
  va_list ap;
  va_start(ap, nargs);
  LcuStmt *s = emit(lw, lcu_stmt_scalar(lw->loc, op));
  for (int i = 0; i < nargs; i++)
    lcu_stmt_arg(s, va_arg(ap, LcuAtom *));
  va_end(ap);
  return lcu_stmt_result(lw->lp, s, lcu_scalar(result));
}

static LcuVar *length_of(Lw *lw, LcuVar *v, LcuLengthKind kind) {
  LcuStmt *s = emit(lw, lcu_stmt_length(lw->loc, kind, lcu_atom_var(v)));
  return lcu_stmt_result(lw->lp, s, lcu_scalar(FB_INT));
}

static LcuAtom *av(LcuVar *v) { return lcu_atom_var(v); }

/* ---- kernels ---- */

static LcuKernelBuilder *kernel_begin(Lw *lw) {
  LcuKernelBuilder *kb = lcu_kb_new(lw->lp, lw->loc);
  if (lw->plan_pending && !lw->planned)
    lw->planned = kb;
  return kb;
}

static LcuVar *thunk_param(LcuThunk *t, int i) { return t->params.data[i]; }

/* Finishes the kernel of SOAC 'soac' and runs it; the results are new
   CPU variables of the SOAC results' types.  An equal kernel made
   before is run instead. */
static void remember_plan(Lw *lw, LcuStmt *run);

static LcuStmt *kernel_run(Lw *lw, LcuKernelBuilder *kb, LcuSoac *soac, Vec *outer_results) {
  LcuKernel *k = lcu_intern_kernel(&lw->kernels, lw->lp, lcu_kb_finish(kb, soac));
  LcuStmt *s = emit(lw, lcu_stmt_run(lw->loc, k));
  s->args = kb->outer;
  if (lw->plan_pending && lw->planned == kb)
    remember_plan(lw, s);
  *outer_results = (Vec){0};
  for (int i = 0; i < soac->results.len; i++)
    vec_push(outer_results, lcu_stmt_result(lw->lp, s, ((LcuVar *)soac->results.data[i])->type));
  return s;
}

/* Binds the flat results of 'fs' to the CPU variables 'outer'. */
static void bind_results(Lw *lw, FlatStmt *fs, Vec *outer) {
  for (int i = 0; i < fs->results.len; i++)
    bind_var(lw, fs->results.data[i], outer->data[i]);
}

/* ---- kernels known before they are built (known.c) ----
   A lowering of a common form describes its kernel first (describe_*,
   in 'lw->plan', before it begins the kernel); when a kernel was made
   for that description before, it is run again without being built, and
   else it is built and the description remembers it.  A description
   reads the lowering's state and changes nothing: it gives up (false)
   where building would make a CPU variable. */

/* The CPU variable of flat variable 'v' where var_of would find it made
   without side effects (a local of the scope), else NULL. */
static LcuVar *known_var(Lw *lw, FlatVar *v) { return v->global ? NULL : ptrmap_get(&lw->scope->vars, v); }

static LcuPlan *plan_begin(Lw *lw, char form) {
  lcu_plan_begin(&lw->plan, form);
  lw->plan_next_var = lw->lp->next_var;
  return &lw->plan;
}

/* The run of the kernel the plan names, made as kernel_run would have
   made it ('outer_results' its new results), or NULL when there is none
   yet: then the next kernel begun is the plan's. */
static LcuStmt *known_run(Lw *lw, Vec *outer_results) {
  const LcuKnownKernel *known = lcu_known_kernel(&lw->known, &lw->plan);
  if (!known || lw->check_plans) {
    lw->plan_pending = true;
    lw->planned = NULL;
    lw->checked = known;
    return NULL;
  }
  lw->lp->next_var += known->kernel_vars;
  LcuStmt *s = emit(lw, lcu_stmt_run(lw->loc, known->k));
  for (int j = 0; j < known->nparams; j++)
    lcu_stmt_arg(s, lcu_atom_var(lw->plan.vars.data[known->param_var[j]]));
  *outer_results = (Vec){0};
  for (int i = 0; i < known->k->results.len; i++)
    vec_push(outer_results, lcu_stmt_result(lw->lp, s, ((LcuVar *)known->k->results.data[i])->type));
  return s;
}

/* The plan's kernel was built, and is run by 'run' (its results not yet
   made). */
static void remember_plan(Lw *lw, LcuStmt *run) {
  lw->plan_pending = false;
  lw->planned = NULL;
  int made = lw->lp->next_var - lw->plan_next_var;
  const LcuKnownKernel *want = lw->checked;
  lw->checked = NULL;
  if (want) { /* NESSIE_CHECK_PLANS */
    bool same = want->k == run->kernel && want->kernel_vars == made && want->nparams == run->args.len;
    for (int j = 0; same && j < run->args.len; j++)
      same = ((LcuAtom *)run->args.data[j])->var == lw->plan.vars.data[want->param_var[j]];
    if (!same)
      die("lowering: kernel %s was described as %s, which made %s", run->kernel->name, buf_str(&lw->plan.text),
          want->k->name);
    return;
  }
  if (!lcu_know_kernel(&lw->known, &lw->plan, run->kernel, &run->args, made) && lw->check_plans)
    die("lowering: the description %s does not name every parameter of %s", buf_str(&lw->plan.text),
        run->kernel->name);
}

/* ---- element-wise operations ---- */

static bool is_elementwise(FlatOp op) {
  return op <= FLAT_COPY; /* ORDER FLAT_OP: the element-wise ops come first */
}

/* The thunk operand for flat argument 'a' at index 'i': a constant, a
   scalar, a DIST's scalar, or the vector subscripted. */
static LcuExp *operand(Lw *lw, LcuKernelBuilder *kb, FlatAtom *a, LcuExp *i) {
  if (a->kind != FA_VAR)
    return lcu_exp_const(kb->loc, *a);
  Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
  if (d)
    return lcu_kb_scalar(kb, d->value);
  LcuVar *v = var_of(lw, a->u.var);
  if (v->type.kind == LT_SCALAR)
    return lcu_exp_var(kb->loc, lcu_kb_param(kb, v));
  return lcu_exp_index(kb->loc, lcu_kb_param(kb, v), i);
}

/* The scalar form of an element-wise op in a thunk. */
static LcuExp *elementwise_exp(Loc loc, FlatOp op, FlatBase type, int n, LcuExp **args) {
  if (op == FLAT_COPY)
    return args[0];
  if (op == FLAT_ZERO)
    return lcu_exp_const(loc, type == FB_FLOAT  ? lcu_float_const(0.0)
                              : type == FB_BOOL ? lcu_bool_const(false)
                              : type == FB_CHAR ? lcu_char_const(0)
                                                : lcu_int_const(0));
  return lcu_exp_op(loc, op, type, n, args[0], n > 1 ? args[1] : NULL, n > 2 ? args[2] : NULL);
}

/* A <guarded> gather's read (FlatStmt.guarded), x![e]: `let j = e in if
   j >= 0 then x![j] else 0`, the zero of the type where the lifted
   subscript's check failed (-1), so that the read cannot fail wherever
   fusion computes it. */
static LcuExp *guarded_read(Lw *lw, LcuKernelBuilder *kb, LcuExp *read) {
  Loc loc = kb->loc;
  LcuVar *j = lcu_new_var(lw->lp, lcu_scalar(FB_INT), "j");
  LcuExp *index = read->args[0];
  read->args[0] = lcu_exp_var(loc, j);
  LcuExp *ok = lcu_exp_op(loc, FLAT_GE, FB_BOOL, 2, lcu_exp_var(loc, j), lcu_exp_const(loc, lcu_int_const(0)), NULL);
  LcuExp *zero = elementwise_exp(loc, FLAT_ZERO, read->type, 0, NULL);
  return lcu_exp_let(loc, j, index, lcu_exp_if(loc, ok, read, zero));
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

/* The description of the MAP below (lower_elementwise), in the order
   it reads its operands. */
static bool describe_elementwise(Lw *lw, FlatStmt *fs) {
  FlatVar *r = fs->results.data[0];
  LcuPlan *pl = plan_begin(lw, 'E');
  lcu_plan_int(pl, fs->op);
  lcu_plan_int(pl, r->type.base);
  lcu_plan_int(pl, fs->args.len);
  lcu_plan_type(pl, lcu_type_of_flat(r->type));
  bool sized = false;
  for (int k = 0; k < fs->args.len; k++) {
    FlatAtom *a = fs->args.data[k];
    Dist *d = a->kind == FA_VAR ? ptrmap_get(&lw->scope->dists, a->u.var) : NULL;
    LcuVar *v = a->kind == FA_VAR && !d ? known_var(lw, a->u.var) : NULL;
    if (a->kind != FA_VAR)
      lcu_plan_const(pl, *a);
    else if (d && d->value->var)
      lcu_plan_var(pl, 's', d->value->var);
    else if (d)
      lcu_plan_const(pl, d->value->constant);
    else if (!v)
      return false;
    else
      lcu_plan_var(pl, v->type.kind == LT_SCALAR ? 's' : 'x', v);
    if (!sized && v && a->u.var->type.kind == FT_VEC) {
      lcu_plan_var(pl, 'L', v);
      sized = true;
    }
  }
  for (int k = 0; k < fs->args.len && !sized; k++) {
    FlatAtom *a = fs->args.data[k];
    Dist *d = a->kind == FA_VAR ? ptrmap_get(&lw->scope->dists, a->u.var) : NULL;
    if (d && d->length->var)
      lcu_plan_var(pl, 'N', d->length->var);
    else if (d)
      lcu_plan_int(pl, d->length->constant.u.i);
    sized = d != NULL;
  }
  return true;
}

static LcuStmt *build_elementwise(Lw *lw, FlatStmt *fs, Vec *out);

static void lower_elementwise(Lw *lw, FlatStmt *fs) {
  FlatVar *r = fs->results.data[0];
  if (r->type.kind == FT_SCALAR && fs->op != FLAT_RAND) {
    LcuStmt *s = emit(lw, lcu_stmt_scalar(lw->loc, fs->op));
    for (int i = 0; i < fs->args.len; i++)
      lcu_stmt_arg(s, atom_of(lw, fs->args.data[i]));
    lcu_stmt_bind(s, var_of(lw, r));
    return;
  }
  if (fs->op == FLAT_RAND) {
    /* a library kernel: the generator's state lives with the runtime */
    LcuKernelBuilder *kb = kernel_begin(lw);
    LcuSoac *s = lcu_soac_library(lw->loc, LIB_RAND);
    s->site = fs->site;
    LcuAtom *a = atom_of(lw, fs->args.data[0]);
    if (a->var)
      vec_push(&s->args, lcu_kb_plain_param(kb, a->var));
    else
      vec_push(&s->args, lcu_kb_param(kb, scalar_op(lw, FLAT_COPY, lcu_const_base(a->constant), 1, a)));
    lcu_soac_result(lw->lp, s, lcu_type_of_flat(r->type));
    Vec out;
    kernel_run(lw, kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  if (fs->op == FLAT_COPY) {
    /* a vector copy is the same vector: no kernel */
    FlatAtom *a = fs->args.data[0];
    bind_var(lw, r, var_of(lw, a->u.var));
    Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
    if (d)
      ptrmap_put(&lw->scope->dists, r, d);
    return;
  }
  Vec out;
  LcuStmt *run = describe_elementwise(lw, fs) ? known_run(lw, &out) : NULL;
  if (!run)
    run = build_elementwise(lw, fs, &out);
  bind_results(lw, fs, &out);
  if (r->type.base == FB_BOOL && predicate_op(fs->op)) {
    /* a FILTER may compute these flags itself; then this run is dead */
    ptrmap_put(&lw->scope->predicates, r, fs);
    ptrmap_put(&lw->droppable, run, (void *)1);
  }
}

/* The size of the MAP of element-wise statement 'fs': the length of its
   first vector argument that is not a DIST, else that of a DIST. */
static LcuSize elementwise_size(Lw *lw, LcuKernelBuilder *kb, FlatStmt *fs) {
  for (int k = 0; k < fs->args.len; k++) {
    FlatAtom *a = fs->args.data[k];
    if (a->kind == FA_VAR && a->u.var->type.kind == FT_VEC && !ptrmap_get(&lw->scope->dists, a->u.var))
      return lcu_kb_size_length(kb, var_of(lw, a->u.var));
  }
  for (int k = 0; k < fs->args.len; k++) {
    FlatAtom *a = fs->args.data[k];
    Dist *d = a->kind == FA_VAR ? ptrmap_get(&lw->scope->dists, a->u.var) : NULL;
    if (d)
      return lcu_kb_size_atom(kb, d->length);
  }
  return (LcuSize){0};
}

static LcuFunc *func_of(Lw *lw, FlatFunc *f);

/* The MAP { i => e(a1[i], ..., an[i]) } of element-wise statement 'fs':
   e its operation, or, for a call on each element (FS_CALL with 'each'),
   the call of its scalar loop, which fuses as any MAP. */
static LcuStmt *build_elementwise(Lw *lw, FlatStmt *fs, Vec *out) {
  FlatVar *r = fs->results.data[0];
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuThunk *t = lcu_kb_index_thunk(kb);
  LcuExp *i = lcu_exp_var(kb->loc, thunk_param(t, 0));
  int n = fs->args.len;
  LcuExp **args = xmalloc(sizeof(LcuExp *) * (size_t)(n < 3 ? 3 : n)); /* elementwise_exp reads three */
  for (int k = 0; k < n; k++)
    args[k] = operand(lw, kb, fs->args.data[k], i);
  LcuSize size = elementwise_size(lw, kb, fs);
  LcuExp *e = fs->kind == FS_CALL ? lcu_exp_call(kb->loc, func_of(lw, fs->callee), r->type.base, args, n)
                                  : elementwise_exp(kb->loc, fs->op, r->type.base, n, args);
  if (fs->kind == FS_OP && fs->op == FLAT_REM && fs->segments)
    e->in_range = true; /* a divisor not 0 by construction (FlatStmt.segments) */
  lcu_thunk_return(t, e);
  LcuSoac *s = lcu_soac_map(lw->loc, t, size);
  lcu_soac_result(lw->lp, s, lcu_type_of_flat(r->type));
  return kernel_run(lw, kb, s, out);
}

/* ---- the other operations ---- */

/* A scalar operand of a thunk, as lcu_kb_scalar reads it. */
static void describe_scalar(LcuPlan *pl, const LcuAtom *a) {
  if (a->var)
    lcu_plan_var(pl, 's', a->var);
  else
    lcu_plan_const(pl, a->constant);
}

/* A SOAC's size, as lcu_kb_size_atom takes it. */
static void describe_size(LcuPlan *pl, const LcuAtom *n) {
  if (n->var)
    lcu_plan_var(pl, 'N', n->var);
  else
    lcu_plan_int(pl, n->constant.u.i);
}

/* The description of DIST's MAP { i => x } n (lower_op). */
static bool describe_dist(Lw *lw, FlatStmt *fs, const LcuAtom *x, const LcuAtom *n) {
  for (int k = 0; k < 2; k++) {
    FlatAtom *a = fs->args.data[k];
    if (a->kind == FA_VAR && !known_var(lw, a->u.var))
      return false;
  }
  LcuPlan *pl = plan_begin(lw, 'D');
  lcu_plan_type(pl, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
  describe_scalar(pl, x);
  describe_size(pl, n);
  return true;
}

/* The description of GATHER's MAP { i => v[idx] } (lower_op), 'v' the
   gathered vector. */
static bool describe_gather(Lw *lw, FlatStmt *fs, LcuVar *v) {
  FlatAtom *idx = fs->args.data[1];
  Dist *d = idx->kind == FA_VAR ? ptrmap_get(&lw->scope->dists, idx->u.var) : NULL;
  LcuVar *iv = idx->kind == FA_VAR && !d ? known_var(lw, idx->u.var) : NULL;
  if (((FlatAtom *)fs->args.data[0])->u.var->global || (idx->kind == FA_VAR && !d && !iv))
    return false;
  /* W: read known in range; U: guarded (a -1 reads 0) */
  LcuPlan *pl = plan_begin(lw, fs->segments ? 'W' : fs->guarded ? 'U' : 'G');
  lcu_plan_type(pl, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
  lcu_plan_var(pl, 'x', v);
  if (idx->kind != FA_VAR)
    lcu_plan_const(pl, *idx);
  else if (d)
    describe_scalar(pl, d->value);
  else
    lcu_plan_var(pl, iv->type.kind == LT_SCALAR ? 's' : 'x', iv);
  if (d)
    describe_size(pl, d->length);
  else if (iv)
    lcu_plan_var(pl, 'L', iv);
  else
    return false; /* a constant index: never a vector's length */
  return true;
}

/* The description of a library kernel on variables (lower_library);
   false for one on constants (each a new variable) or on values whose
   layouts it names. */
/* The total a MAKE_SEGDES or SEG_RANGE is known to make (FlatStmt.total)
   as a variable, or NULL: the library kernel's last argument. */
static LcuVar *known_total_of(Lw *lw, const FlatStmt *fs) {
  const FlatAtom *t = fs->total;
  return t && t->kind == FA_VAR ? var_of(lw, t->u.var) : NULL;
}

static bool describe_library(Lw *lw, FlatStmt *fs, LcuLibrary lib) {
  if (fs->elem_name || fs->layout)
    return false;
  for (int i = 0; i < fs->args.len; i++) {
    FlatAtom *a = fs->args.data[i];
    if (a->kind != FA_VAR || !known_var(lw, a->u.var))
      return false;
  }
  LcuPlan *pl = plan_begin(lw, 'B');
  lcu_plan_int(pl, lib);
  lcu_plan_int(pl, fs->site);
  lcu_plan_int(pl, fs->lifted);
  for (int i = 0; i < fs->args.len; i++)
    lcu_plan_var(pl, 'a', known_var(lw, ((FlatAtom *)fs->args.data[i])->u.var));
  LcuVar *total = known_total_of(lw, fs);
  if (total)
    lcu_plan_var(pl, 'a', total);
  for (int i = 0; i < fs->results.len; i++)
    lcu_plan_type(pl, lcu_type_of_flat(((FlatVar *)fs->results.data[i])->type));
  return true;
}

static LcuThunk *pull_vector(LcuKernelBuilder *kb, LcuVar *v) {
  LcuThunk *t = lcu_kb_index_thunk(kb);
  lcu_thunk_return(t, lcu_exp_index(kb->loc, lcu_kb_param(kb, v), lcu_exp_var(kb->loc, thunk_param(t, 0))));
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
static LcuThunk *operator_thunk(LcuKernelBuilder *kb, FlatOp comb, FlatBase b) {
  FlatBase types[2] = {b, b};
  LcuThunk *t = lcu_kb_thunk(kb, 2, types);
  LcuExp *x = lcu_exp_var(kb->loc, thunk_param(t, 0)), *y = lcu_exp_var(kb->loc, thunk_param(t, 1));
  if (comb == FLAT_GE || comb == FLAT_LE)
    lcu_thunk_return(t, lcu_exp_if(kb->loc, lcu_exp_op(kb->loc, comb, FB_BOOL, 2, x, y, NULL), x, y));
  else
    lcu_thunk_return(t, lcu_exp_op(kb->loc, comb, b, 2, x, y, NULL));
  lcu_kb_end_thunk(kb);
  return t;
}

/* The description of a reduction's or scan's kernel (lower_reduction). */
static bool describe_reduction(Lw *lw, FlatStmt *fs, bool segmented, bool scan) {
  LcuVar *v = known_var(lw, ((FlatAtom *)fs->args.data[segmented ? 1 : 0])->u.var);
  LcuVar *sd = segmented ? known_var(lw, ((FlatAtom *)fs->args.data[0])->u.var) : NULL;
  if (!v || (segmented && !sd))
    return false;
  LcuPlan *pl = plan_begin(lw, 'R');
  lcu_plan_int(pl, fs->op);
  lcu_plan_int(pl, segmented);
  lcu_plan_int(pl, scan);
  lcu_plan_type(pl, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
  lcu_plan_var(pl, 'x', v);
  lcu_plan_var(pl, segmented ? 'd' : 'L', segmented ? sd : v);
  return true;
}

static void lower_reduction(Lw *lw, FlatStmt *fs, bool segmented, bool scan) {
  Vec out;
  if (describe_reduction(lw, fs, segmented, scan) && known_run(lw, &out)) {
    bind_results(lw, fs, &out);
    return;
  }
  LcuKernelBuilder *kb = kernel_begin(lw);
  FlatAtom *va = fs->args.data[segmented ? 1 : 0];
  LcuVar *v = var_of(lw, va->u.var);
  FlatBase b = v->type.base;
  LcuThunk *pull = pull_vector(kb, v);
  lcu_kb_end_thunk(kb);
  FlatOp comb = combiner(fs->op);
  LcuThunk *op = operator_thunk(kb, comb, b);
  FlatAtom id = identity_of(comb, b);
  LcuSoac *s;
  if (segmented) {
    LcuVar *sd = lcu_kb_plain_param(kb, var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var));
    s = (scan ? lcu_soac_seg_scan : lcu_soac_seg_reduce)(lw->loc, pull, &id, 1, op, sd);
  } else {
    s = (scan ? lcu_soac_scan : lcu_soac_reduce)(lw->loc, pull, &id, 1, op, lcu_kb_size_length(kb, v));
  }
  lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
  kernel_run(lw, kb, s, &out);
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
      LcuKernelBuilder *lb = kernel_begin(lw);
      LcuSoac *ls = lcu_soac_library(lw->loc, k == 0 ? LIB_SEG_OFFSETS : LIB_SEG_IDS);
      vec_push(&ls->args, lcu_kb_plain_param(lb, sd));
      lcu_soac_result(lw->lp, ls, lcu_vec(FB_INT));
      Vec out;
      kernel_run(lw, lb, ls, &out);
      if (k == 0)
        offsets = out.data[0];
      else
        ids = out.data[0];
    }
  }
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[segmented ? 1 : 0])->u.var);
  FlatBase b = v->type.base;
  LcuThunk *pull = lcu_kb_index_thunk(kb);
  LcuExp *i = lcu_exp_var(kb->loc, thunk_param(pull, 0));
  lcu_thunk_return(pull, lcu_exp_index(kb->loc, lcu_kb_param(kb, v), i));
  if (segmented)
    lcu_thunk_return(pull, lcu_exp_op(kb->loc, FLAT_SUB, FB_INT, 2, i,
                                lcu_exp_index(kb->loc, lcu_kb_param(kb, offsets), lcu_exp_index(kb->loc, lcu_kb_param(kb, ids), i)), NULL));
  else
    lcu_thunk_return(pull, i);
  lcu_kb_end_thunk(kb);
  FlatBase types[4] = {b, FB_INT, b, FB_INT};
  LcuThunk *op = lcu_kb_thunk(kb, 4, types);
  LcuExp *x = lcu_exp_var(kb->loc, thunk_param(op, 0)), *xi = lcu_exp_var(kb->loc, thunk_param(op, 1));
  LcuExp *y = lcu_exp_var(kb->loc, thunk_param(op, 2)), *yi = lcu_exp_var(kb->loc, thunk_param(op, 3));
  /* keep (x, xi) if x is strictly more extreme, or equal with xi <= yi */
  LcuExp *strict = lcu_exp_op(kb->loc, max ? FLAT_GT : FLAT_LT, FB_BOOL, 2, x, y, NULL);
  LcuExp *tie = lcu_exp_op(kb->loc, FLAT_AND, FB_BOOL, 2, lcu_exp_op(kb->loc, FLAT_EQ, FB_BOOL, 2, x, y, NULL),
                      lcu_exp_op(kb->loc, FLAT_LE, FB_BOOL, 2, xi, yi, NULL), NULL);
  LcuExp *keep = lcu_exp_op(kb->loc, FLAT_OR, FB_BOOL, 2, strict, tie, NULL);
  lcu_thunk_return(op, lcu_exp_if(kb->loc, keep, x, y));
  lcu_thunk_return(op, lcu_exp_if(kb->loc, keep, xi, yi));
  lcu_kb_end_thunk(kb);
  FlatAtom identities[2] = {identity_of(max ? FLAT_GE : FLAT_LE, b), lcu_int_const(INT32_MAX)};
  LcuSoac *s = segmented ? lcu_soac_seg_reduce(lw->loc, pull, identities, 2, op, lcu_kb_plain_param(kb, sd))
                         : lcu_soac_reduce(lw->loc, pull, identities, 2, op, lcu_kb_size_length(kb, v));
  lcu_soac_result(lw->lp, s, segmented ? lcu_vec(b) : lcu_scalar(b));
  lcu_soac_result(lw->lp, s, segmented ? lcu_vec(FB_INT) : lcu_scalar(FB_INT));
  Vec out;
  kernel_run(lw, kb, s, &out);
  bind_var(lw, fs->results.data[0], out.data[1]);
}

/* A library kernel on the flat statement's arguments and results. */
static void lower_library(Lw *lw, FlatStmt *fs, LcuLibrary lib) {
  Vec out;
  if (describe_library(lw, fs, lib) && known_run(lw, &out)) {
    bind_results(lw, fs, &out);
    return;
  }
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuSoac *s = lcu_soac_library(lw->loc, lib);
  s->elem_name = fs->elem_name;
  s->layout = fs->layout;
  s->lifted = fs->lifted;
  s->site = fs->site;
  for (int i = 0; i < fs->args.len; i++) {
    LcuAtom *a = atom_of(lw, fs->args.data[i]);
    LcuVar *v = a->var ? a->var : scalar_op(lw, FLAT_COPY, lcu_const_base(a->constant), 1, a);
    vec_push(&s->args, lcu_kb_plain_param(kb, v));
  }
  LcuVar *total = known_total_of(lw, fs); /* make_segdes's, where the host knows it */
  if (total)
    vec_push(&s->args, lcu_kb_plain_param(kb, total));
  for (int i = 0; i < fs->results.len; i++)
    lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[i])->type));
  kernel_run(lw, kb, s, &out);
  bind_results(lw, fs, &out);
}

/* A host operation: the flat statement runs on the host. */
static void lower_host(Lw *lw, FlatStmt *fs) {
  if (lw->inlined) { /* the operation reports at its statement's location */
    FlatStmt *copy = NEW(FlatStmt);
    *copy = *fs;
    copy->loc = lw->loc;
    fs = copy;
  }
  LcuStmt *s = emit(lw, lcu_stmt_host(lw->loc, fs));
  for (int i = 0; i < fs->args.len; i++)
    lcu_stmt_arg(s, atom_of(lw, fs->args.data[i]));
  for (int i = 0; i < fs->results.len; i++)
    lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
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
  LcuStmt *s = emit(lw, lcu_stmt_if(lw->loc, lcu_atom_var(cond), lcu_block_new(), lcu_block_new()));
  LcuBlock *saved = lw->block;
  lw->block = s->then;
  LcuStmt *text = emit(lw, lcu_stmt_host(lw->loc, error_stmt(msg, lw->loc)));
  for (int i = 0; i < text->flat->args.len; i++)
    lcu_stmt_arg(text, lcu_atom_const(*(FlatAtom *)text->flat->args.data[i]));
  LcuVar *t = lcu_stmt_result(lw->lp, text, lcu_vec(FB_CHAR));
  FlatStmt *err = NEW(FlatStmt);
  err->kind = FS_OP;
  err->op = FLAT_ERROR;
  err->loc = lw->loc;
  LcuStmt *e = emit(lw, lcu_stmt_host(lw->loc, err));
  lcu_stmt_arg(e, lcu_atom_var(t));
  lw->block = saved;
}

/* NESL's argument check 'kind' on scalar operands. */
static void check_scalars(Lw *lw, int kind, LcuAtom **ops, int nops) {
  LcuStmt *s = emit(lw, lcu_stmt_check(lw->loc, kind));
  for (int i = 0; i < nops; i++)
    lcu_stmt_arg(s, ops[i]);
}

/* The condition under which check 'kind' passes on operands 'x'
   (rt_check_ok, as λcu). */
static LcuExp *check_passes(Loc loc, int kind, LcuExp **x) {
  switch (kind) {
  case RT_CHECK_SUBSCRIPT:
  case RT_CHECK_REP:
  case RT_CHECK_READ:
  case RT_CHECK_WRITE:
    return lcu_exp_op(loc, FLAT_AND, FB_BOOL, 2,
                      lcu_exp_op(loc, FLAT_GE, FB_BOOL, 2, x[0], lcu_exp_const(loc, lcu_int_const(0)), NULL),
                      lcu_exp_op(loc, FLAT_LT, FB_BOOL, 2, x[0], x[1], NULL), NULL);
  case RT_CHECK_RANGE:
    return lcu_exp_op(loc, FLAT_AND, FB_BOOL, 2, lcu_exp_op(loc, FLAT_LE, FB_BOOL, 2, x[0], x[1], NULL),
                      lcu_exp_op(loc, FLAT_GT, FB_BOOL, 2, x[2], lcu_exp_const(loc, lcu_int_const(0)), NULL), NULL);
  case RT_CHECK_APPEND:
    /* a + b <= max_int without the int32 sum, which wraps: the operands
       are lengths, so max_int - b cannot */
    return lcu_exp_op(loc, FLAT_LE, FB_BOOL, 2, x[0],
                      lcu_exp_op(loc, FLAT_SUB, FB_INT, 2, lcu_exp_const(loc, lcu_int_const(INT32_MAX)), x[1], NULL),
                      NULL);
  case RT_CHECK_DIST:
    return lcu_exp_op(loc, FLAT_GE, FB_BOOL, 2, x[0], lcu_exp_const(loc, lcu_int_const(0)), NULL);
  default:
    return lcu_exp_op(loc, FLAT_EQ, FB_BOOL, 2, x[0], x[1], NULL);
  }
}

/* NESL's argument check 'kind' at every position of the vectors 'ops':
   a REDUCE finds the first position that fails, with its operands (the
   lowest index wins; the identity is no index and operands that pass),
   and the check runs on those (LS_CHECK).  So the report names the first
   failing position, as the evaluator's does, and a GPU never reads a
   value back to check it. */
static void build_check(Lw *lw, int kind, LcuVar **ops, int nops, Vec *out);

static void check_vectors(Lw *lw, int kind, LcuVar **ops, int nops) {
  LcuPlan *pl = plan_begin(lw, 'C');
  lcu_plan_int(pl, kind);
  lcu_plan_int(pl, nops);
  for (int k = 0; k < nops; k++)
    lcu_plan_var(pl, 'x', ops[k]);
  Vec out;
  if (!known_run(lw, &out))
    build_check(lw, kind, ops, nops, &out);
  LcuAtom *found[3];
  for (int k = 0; k < nops; k++)
    found[k] = lcu_atom_var(out.data[k + 1]);
  check_scalars(lw, kind, found, nops);
}

/* The REDUCE of check_vectors. */
static void build_check(Lw *lw, int kind, LcuVar **ops, int nops, Vec *out) {
  LcuKernelBuilder *kb = kernel_begin(lw);
  Loc loc = kb->loc;
  LcuThunk *t = lcu_kb_index_thunk(kb);
  LcuExp *i = lcu_exp_var(loc, thunk_param(t, 0));
  LcuExp *x[3];
  for (int k = 0; k < nops; k++)
    x[k] = lcu_exp_index(loc, lcu_kb_param(kb, ops[k]), i);
  LcuExp *none = lcu_exp_const(loc, lcu_int_const(INT32_MAX));
  lcu_thunk_return(t, lcu_exp_if(loc, check_passes(loc, kind, x), none, lcu_exp_var(loc, thunk_param(t, 0))));
  for (int k = 0; k < nops; k++)
    lcu_thunk_return(t, lcu_exp_index(loc, lcu_kb_param(kb, ops[k]), lcu_exp_var(loc, thunk_param(t, 0))));
  lcu_kb_end_thunk(kb);
  /* { (i1, a1, ..., i2, a2, ...) => the tuple of the lower index } */
  int w = nops + 1;
  FlatBase types[8];
  for (int k = 0; k < 2 * w; k++)
    types[k] = FB_INT;
  LcuThunk *op = lcu_kb_thunk(kb, 2 * w, types);
  for (int k = 0; k < w; k++) {
    LcuExp *first = lcu_exp_op(loc, FLAT_LE, FB_BOOL, 2, lcu_exp_var(loc, thunk_param(op, 0)),
                               lcu_exp_var(loc, thunk_param(op, w)), NULL);
    lcu_thunk_return(op, lcu_exp_if(loc, first, lcu_exp_var(loc, thunk_param(op, k)),
                                    lcu_exp_var(loc, thunk_param(op, w + k))));
  }
  lcu_kb_end_thunk(kb);
  int64_t pass[3];
  rt_check_passing(kind, pass);
  FlatAtom ids[4] = {lcu_int_const(INT32_MAX)};
  for (int k = 0; k < nops; k++)
    ids[k + 1] = lcu_int_const((int32_t)pass[k]);
  LcuSoac *r = lcu_soac_reduce(lw->loc, t, ids, w, op, lcu_kb_size_length(kb, ops[0]));
  for (int k = 0; k < w; k++)
    lcu_soac_result(lw->lp, r, lcu_scalar(FB_INT));
  kernel_run(lw, kb, r, out);
}

/* Does check 'kind' of flat arguments 'args' pass at every position,
   each a constant int or a vector that a DIST made of one?  A lifted
   range of constant bounds (Barnes-Hut's `k in [0:4]` for every node of
   a level) checked its segments by a REDUCE whose result the host read
   back: a launch and a wait for a check that cannot fail.  Where a
   value is not a constant, the check stays (of no elements, it must
   not fail). */
static bool passes_everywhere(Lw *lw, int kind, void **args, int n) {
  int64_t c[3] = {0, 0, 0};
  for (int k = 0; k < n; k++) {
    const FlatAtom *a = args[k];
    if (a->kind == FA_VAR) {
      Dist *d = ptrmap_get(&lw->scope->dists, a->u.var);
      if (!d || d->value->var)
        return false;
      a = &d->value->constant;
    }
    if (a->kind != FA_INT)
      return false;
    c[k] = a->u.i;
  }
  return rt_check_ok(kind, c[0], c[1], c[2]);
}

/* A flat CHECK: on scalars, or on vectors (a scalar among vectors is
   the same at every position). */
static void lower_check(Lw *lw, FlatStmt *fs) {
  int n = fs->args.len;
  bool vectors = false;
  for (int k = 0; k < n; k++) {
    FlatAtom *a = fs->args.data[k];
    vectors |= a->kind == FA_VAR && a->u.var->type.kind == FT_VEC;
  }
  if (!vectors) {
    LcuAtom *ops[3];
    for (int k = 0; k < n; k++)
      ops[k] = atom_of(lw, fs->args.data[k]);
    check_scalars(lw, fs->check, ops, n);
    return;
  }
  if (passes_everywhere(lw, fs->check, fs->args.data, n))
    return;
  LcuVar *ops[3];
  for (int k = 0; k < n; k++)
    ops[k] = var_of(lw, ((FlatAtom *)fs->args.data[k])->u.var);
  check_vectors(lw, fs->check, ops, n);
}

/* Begins a kernel of one MAP over an index thunk `{ i => ... }`;
   '*i' is the index. */
static LcuThunk *index_map_begin(Lw *lw, LcuKernelBuilder **kb, LcuExp **i) {
  *kb = kernel_begin(lw);
  LcuThunk *t = lcu_kb_index_thunk(*kb);
  *i = lcu_exp_var((*kb)->loc, thunk_param(t, 0));
  return t;
}

/* Ends it: the thunk gives 'value', the MAP runs over 'n' indices, or
   over as many as 'like' has elements (one of the two is NULL), and
   gives one [int]; the run's results go to 'out'. */
static LcuStmt *index_map_end(Lw *lw, LcuKernelBuilder *kb, LcuThunk *t, LcuExp *value, LcuAtom *n, LcuVar *like,
                              Vec *out) {
  lcu_thunk_return(t, value);
  lcu_kb_end_thunk(kb);
  LcuSoac *m = lcu_soac_map(lw->loc, t, n ? lcu_kb_size_atom(kb, n) : lcu_kb_size_length(kb, like));
  lcu_soac_result(lw->lp, m, lcu_vec(FB_INT));
  return kernel_run(lw, kb, m, out);
}

/* The length of a vector about to be made, computed from int operands
   in 64 bits on the CPU (LS_SIZE): more elements than an int counts is
   out of memory there, as the flat IR's range and append say, before
   the kernel that would make the vector. */
static LcuVar *size_of(Lw *lw, LcuSizeKind kind, LcuAtom **ops) {
  LcuStmt *st = emit(lw, lcu_stmt_size(lw->loc, kind));
  for (int k = 0; k < lcu_size_arity(kind); k++)
    lcu_stmt_arg(st, ops[k]);
  return lcu_stmt_result(lw->lp, st, lcu_scalar(FB_INT));
}

/* [s:e:d]: the check and the length on the CPU, the values by a MAP.
   The length is (e - s + d - 1) / d, whose int32 arithmetic wraps
   where e - s passes max_int ([min_int:max_int] would be -1 long, and
   [min_int:max_int:4] empty): it is computed in 64 bits (`size range`),
   but where s is a constant >= 0 and d is 1, as in the [0:n] of
   index(n), so common that the operations fusion simplifies to n stay
   (then e - s cannot wrap). */
static void lower_range(Lw *lw, FlatStmt *fs) {
  LcuAtom *s = atom_of(lw, fs->args.data[0]), *e = atom_of(lw, fs->args.data[1]), *d = atom_of(lw, fs->args.data[2]);
  check_scalars(lw, RT_CHECK_RANGE, (LcuAtom *[]){s, e, d}, 3);
  bool cannot_wrap = !s->var && s->constant.kind == FA_INT && s->constant.u.i >= 0 && !d->var &&
                     d->constant.kind == FA_INT && d->constant.u.i == 1;
  LcuVar *n;
  if (cannot_wrap) {
    LcuVar *span = scalar_op(lw, FLAT_ADD, FB_INT, 2, av(scalar_op(lw, FLAT_SUB, FB_INT, 2, e, s)),
                             av(scalar_op(lw, FLAT_SUB, FB_INT, 2, d, lcu_atom_const(lcu_int_const(1)))));
    n = scalar_op(lw, FLAT_DIV, FB_INT, 2, av(span), d);
  } else {
    n = size_of(lw, SIZE_RANGE, (LcuAtom *[]){s, e, d});
  }
  LcuPlan *pl = plan_begin(lw, 'r');
  describe_scalar(pl, s);
  describe_scalar(pl, d);
  lcu_plan_var(pl, 'N', n);
  Vec out;
  if (known_run(lw, &out)) {
    bind_results(lw, fs, &out);
    return;
  }
  LcuKernelBuilder *kb;
  LcuExp *i;
  LcuThunk *t = index_map_begin(lw, &kb, &i);
  LcuExp *value = lcu_exp_op(kb->loc, FLAT_ADD, FB_INT, 2, lcu_kb_scalar(kb, s),
                             lcu_exp_op(kb->loc, FLAT_MUL, FB_INT, 2, i, lcu_kb_scalar(kb, d), NULL), NULL);
  index_map_end(lw, kb, t, value, av(n), NULL, &out);
  bind_results(lw, fs, &out);
}

/* The segdes of seg_range's ranges, by the library (range_segdes): each
   length in 64 bits, so that a range of more elements than an int
   counts makes the total too large (out of memory, at this statement,
   with the flat IR's total) instead of a length that wrapped, which a
   MAP's int32 { i => (e[i] - s[i] + d[i] - 1) / d[i] } made.  Its
   results: the sd, its lengths and its offsets (fusion gives seg_lengths
   and seg_offsets of the sd as these). */
static void range_segdes(Lw *lw, LcuVar *sv, LcuVar *ev, LcuVar *dv, LcuVar *total, bool once, Vec *out) {
  LcuPlan *pl = plan_begin(lw, 'S');
  lcu_plan_var(pl, 'a', sv);
  lcu_plan_var(pl, 'a', ev);
  lcu_plan_var(pl, 'a', dv);
  if (total)
    lcu_plan_var(pl, 'a', total);
  lcu_plan_int(pl, once); /* a kernel of its own: it cannot fail */
  if (!known_run(lw, out)) {
    LcuKernelBuilder *lb = kernel_begin(lw);
    LcuSoac *ls = lcu_soac_library(lw->loc, LIB_RANGE_SEGDES);
    ls->once = once;
    vec_push(&ls->args, lcu_kb_plain_param(lb, sv));
    vec_push(&ls->args, lcu_kb_plain_param(lb, ev));
    vec_push(&ls->args, lcu_kb_plain_param(lb, dv));
    if (total) /* the total the host knows (FlatStmt.total) */
      vec_push(&ls->args, lcu_kb_plain_param(lb, total));
    lcu_soac_result(lw->lp, ls, lcu_segdes());
    lcu_soac_result(lw->lp, ls, lcu_vec(FB_INT)); /* the lengths */
    lcu_soac_result(lw->lp, ls, lcu_vec(FB_INT)); /* the offsets */
    kernel_run(lw, lb, ls, out);
  }
}

/* Library kernel 'lib' on one variable, of one result of type 't'. */
static LcuVar *library_of_one(Lw *lw, LcuLibrary lib, LcuVar *arg, LcuType t) {
  LcuPlan *pl = plan_begin(lw, 'b');
  lcu_plan_int(pl, lib);
  lcu_plan_var(pl, 'a', arg);
  lcu_plan_type(pl, t);
  Vec out;
  if (!known_run(lw, &out)) {
    LcuKernelBuilder *lb = kernel_begin(lw);
    LcuSoac *ls = lcu_soac_library(lw->loc, lib);
    vec_push(&ls->args, lcu_kb_plain_param(lb, arg));
    lcu_soac_result(lw->lp, ls, t);
    kernel_run(lw, lb, ls, &out);
  }
  return out.data[0];
}

/* The MAP of seg_range's values, over all elements: { i => s[g] +
   (i - offsets[g]) * d[g] } where g is i's segment. */
static LcuStmt *seg_range_values(Lw *lw, LcuVar *ids, LcuVar *offsets, LcuVar *sv, LcuVar *dv, LcuVar *total,
                                 Vec *out) {
  LcuPlan *pl = plan_begin(lw, 'V');
  lcu_plan_var(pl, 'x', ids);
  lcu_plan_var(pl, 'x', offsets);
  lcu_plan_var(pl, 'x', sv);
  lcu_plan_var(pl, 'x', dv);
  lcu_plan_var(pl, 'N', total);
  LcuStmt *run = known_run(lw, out);
  if (run)
    return run;
  LcuKernelBuilder *kb;
  LcuExp *i;
  LcuThunk *t = index_map_begin(lw, &kb, &i);
  LcuExp *seg = lcu_exp_index(kb->loc, lcu_kb_param(kb, ids), i);
  LcuExp *local = lcu_exp_op(kb->loc, FLAT_SUB, FB_INT, 2, i, lcu_exp_index(kb->loc, lcu_kb_param(kb, offsets), seg), NULL);
  LcuExp *value = lcu_exp_op(kb->loc, FLAT_ADD, FB_INT, 2, lcu_exp_index(kb->loc, lcu_kb_param(kb, sv), seg),
                             lcu_exp_op(kb->loc, FLAT_MUL, FB_INT, 2, local, lcu_exp_index(kb->loc, lcu_kb_param(kb, dv), seg), NULL),
                             NULL);
  return index_map_end(lw, kb, t, value, av(total), NULL, out);
}

/* seg_range(starts, ends, strides): the checks by a kernel, the segdes
   by the library, the values by a MAP over all elements */
static void lower_seg_range(Lw *lw, FlatStmt *fs) {
  LcuVar *sv = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
  LcuVar *ev = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
  LcuVar *dv = var_of(lw, ((FlatAtom *)fs->args.data[2])->u.var);
  /* every range good?  (Whole segments of a segdes are.) */
  if (!fs->segments && !passes_everywhere(lw, RT_CHECK_RANGE, fs->args.data, 3))
    check_vectors(lw, RT_CHECK_RANGE, (LcuVar *[]){sv, ev, dv}, 3);
  Vec made, out;
  /* a total the host knows goes with the segdes (the GPU's runtime then
     never reads it back); what is made from the segdes is still sized by
     `#elements segdes`, a length the facts know as the segdes's, so that
     fusion sees its elements' space (its seg_ids and the positions read
     at them are one SEG_MAP) */
  LcuVar *known_total = known_total_of(lw, fs);
  range_segdes(lw, sv, ev, dv, known_total, fs->segments && fs->once, &made);
  LcuVar *segdes = made.data[0], *offsets = made.data[2];
  LcuVar *ids = library_of_one(lw, LIB_SEG_IDS, segdes, lcu_vec(FB_INT));
  LcuVar *total = length_of(lw, segdes, LEN_TOTAL);
  seg_range_values(lw, ids, offsets, sv, dv, total, &out);
  bind_var(lw, fs->results.data[0], segdes);
  bind_var(lw, fs->results.data[1], out.data[0]);
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
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuThunk *t = lcu_kb_index_thunk(kb);
  lcu_thunk_return(t, lcu_exp_index(kb->loc, lcu_kb_param(kb, v), lcu_exp_var(kb->loc, thunk_param(t, 0))));
  lcu_kb_end_thunk(kb);
  FlatBase base = v->type.base;
  kb->loc = pred->loc; /* the predicate is the comparison's expression */
  LcuThunk *p = lcu_kb_thunk(kb, 1, &base);
  LcuVar *xv = thunk_param(p, 0);
  xv->name = intern(xprintf("x_%d", xv->id)); /* a value, not an index */
  LcuExp *x = lcu_exp_var(kb->loc, xv);
  LcuExp *args[3] = {0};
  for (int k = 0; k < pred->args.len; k++) {
    FlatAtom *a = pred->args.data[k];
    args[k] = a->kind == FA_VAR && a->u.var == va->u.var ? x : operand(lw, kb, a, NULL);
  }
  lcu_thunk_return(p, elementwise_exp(kb->loc, pred->op, FB_BOOL, pred->args.len, args));
  lcu_kb_end_thunk(kb);
  kb->loc = lw->loc;
  LcuSoac *s = lcu_soac_filter(lw->loc, t, p, lcu_kb_size_length(kb, v));
  lcu_soac_result(lw->lp, s, v->type);
  Vec *out = NEW(Vec);
  kernel_run(lw, kb, s, out);
  return out;
}

static Vec flag_filter(Lw *lw, LcuSoacKind kind, LcuVar *v, FlatAtom *flags, LcuVar *sd) {
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuThunk *t = lcu_kb_index_thunk(kb);
  LcuExp *i = lcu_exp_var(kb->loc, thunk_param(t, 0));
  lcu_thunk_return(t, lcu_exp_index(kb->loc, lcu_kb_param(kb, v), i));
  lcu_thunk_return(t, operand(lw, kb, flags, i));
  lcu_kb_end_thunk(kb);
  FlatBase types[2] = {v->type.base, FB_BOOL};
  LcuThunk *p = lcu_kb_thunk(kb, 2, types);
  lcu_thunk_return(p, lcu_exp_var(kb->loc, thunk_param(p, 1)));
  lcu_kb_end_thunk(kb);
  LcuSoac *s = kind == SOAC_SEG_FILTER ? lcu_soac_seg_filter(lw->loc, t, p, lcu_kb_plain_param(kb, sd))
               : kind == SOAC_PARTITION ? lcu_soac_partition(lw->loc, t, p, lcu_kb_size_length(kb, v))
                                        : lcu_soac_filter(lw->loc, t, p, lcu_kb_size_length(kb, v));
  for (int k = 0; k < (kind == SOAC_PARTITION ? 2 : 1); k++) {
    lcu_soac_result(lw->lp, s, v->type);
    lcu_soac_result(lw->lp, s, lcu_vec(FB_BOOL));
  }
  if (kind == SOAC_SEG_FILTER)
    lcu_soac_result(lw->lp, s, lcu_segdes());
  Vec out;
  kernel_run(lw, kb, s, &out);
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
    LcuStmt *run = describe_dist(lw, fs, x, n) ? known_run(lw, &out) : NULL;
    if (!run) {
      LcuKernelBuilder *kb = kernel_begin(lw);
      LcuThunk *t = lcu_kb_index_thunk(kb);
      lcu_thunk_return(t, lcu_kb_scalar(kb, x));
      lcu_kb_end_thunk(kb);
      LcuSoac *s = lcu_soac_map(lw->loc, t, lcu_kb_size_atom(kb, n));
      lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
      run = kernel_run(lw, kb, s, &out);
    }
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
      LcuStmt *s = emit(lw, lcu_stmt_scalar(lw->loc, FLAT_COPY));
      lcu_stmt_arg(s, d->length);
      lcu_stmt_bind(s, var_of(lw, fs->results.data[0]));
      return;
    }
    LcuStmt *s = emit(lw, lcu_stmt_length(lw->loc, LEN_VECTOR, atom_of(lw, a)));
    lcu_stmt_bind(s, var_of(lw, fs->results.data[0]));
    return;
  }
  case FLAT_SEG_COUNT:
  case FLAT_SEG_TOTAL: {
    mark_nonnegative(lw, fs->results.data[0]);
    LcuStmt *s = emit(lw, lcu_stmt_length(lw->loc, op == FLAT_SEG_COUNT ? LEN_SEGMENTS : LEN_TOTAL,
                                          atom_of(lw, fs->args.data[0])));
    lcu_stmt_bind(s, var_of(lw, fs->results.data[0]));
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
    if (describe_gather(lw, fs, v) && known_run(lw, &out)) {
      bind_results(lw, fs, &out);
      return;
    }
    LcuKernelBuilder *kb = kernel_begin(lw);
    LcuThunk *t = lcu_kb_index_thunk(kb);
    LcuExp *i = lcu_exp_var(kb->loc, thunk_param(t, 0));
    LcuExp *read = lcu_exp_index(kb->loc, lcu_kb_param(kb, v), operand(lw, kb, idx, i));
    read->in_range = fs->segments || fs->guarded; /* whole segments, or guarded below: cannot fail */
    if (fs->guarded)
      read = guarded_read(lw, kb, read);
    lcu_thunk_return(t, read);
    lcu_kb_end_thunk(kb);
    Dist *d = ptrmap_get(&lw->scope->dists, idx->u.var);
    LcuSoac *s = lcu_soac_map(lw->loc, t, d ? lcu_kb_size_atom(kb, d->length)
                                            : lcu_kb_size_length(kb, var_of(lw, idx->u.var)));
    lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
    kernel_run(lw, kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_ELT: {
    LcuVar *v = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuAtom *i = atom_of(lw, fs->args.data[1]);
    LcuKernelBuilder *kb = kernel_begin(lw);
    LcuThunk *t = lcu_kb_thunk(kb, 0, NULL);
    lcu_thunk_return(t, lcu_exp_index(kb->loc, lcu_kb_param(kb, v), lcu_kb_scalar(kb, i)));
    lcu_kb_end_thunk(kb);
    LcuSoac *s = lcu_soac_once(lw->loc, t);
    lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[0])->type));
    kernel_run(lw, kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_SCATTER: {
    LcuVar *dst = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuVar *idx = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
    FlatAtom *vals = fs->args.data[2];
    check_lengths(lw, fs->args.data[1], vals, "<-: the numbers of indices and values differ");
    LcuKernelBuilder *kb = kernel_begin(lw);
    LcuThunk *t = lcu_kb_index_thunk(kb);
    lcu_thunk_return(t, operand(lw, kb, vals, lcu_exp_var(kb->loc, thunk_param(t, 0))));
    lcu_kb_end_thunk(kb);
    LcuThunk *it = lcu_kb_index_thunk(kb);
    lcu_thunk_return(it, lcu_exp_index(kb->loc, lcu_kb_param(kb, idx), lcu_exp_var(kb->loc, thunk_param(it, 0))));
    lcu_kb_end_thunk(kb);
    LcuSoac *s = lcu_soac_permute(lw->loc, t, it, lcu_kb_size_length(kb, idx), lcu_kb_plain_param(kb, dst));
    lcu_soac_result(lw->lp, s, dst->type);
    kernel_run(lw, kb, s, &out);
    bind_results(lw, fs, &out);
    return;
  }
  case FLAT_PACK: {
    FlatAtom *va = fs->args.data[0], *fa = fs->args.data[1];
    check_lengths(lw, va, fa, "pack: the numbers of values and flags differ");
    Vec *kept = predicate_filter(lw, va, fa);
    if (kept) {
      bind_var(lw, fs->results.data[0], kept->data[0]);
      return;
    }
    out = flag_filter(lw, SOAC_FILTER, var_of(lw, va->u.var), fa, NULL);
    bind_var(lw, fs->results.data[0], out.data[0]);
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
    bind_var(lw, fs->results.data[0], out.data[2]);
    bind_var(lw, fs->results.data[1], out.data[0]);
    return;
  }
  case FLAT_PARTITION: {
    /* PARTITION { i => (v[i], flags[i]) } { (x, f) => f } n */
    FlatAtom *va = fs->args.data[0], *fa = fs->args.data[1];
    check_lengths(lw, va, fa, "partition: the numbers of values and flags differ");
    out = flag_filter(lw, SOAC_PARTITION, var_of(lw, va->u.var), fa, NULL);
    bind_var(lw, fs->results.data[0], out.data[0]);
    bind_var(lw, fs->results.data[1], out.data[2]);
    return;
  }
  case FLAT_APPEND: {
    LcuVar *a = var_of(lw, ((FlatAtom *)fs->args.data[0])->u.var);
    LcuVar *b = var_of(lw, ((FlatAtom *)fs->args.data[1])->u.var);
    /* #a + #b in 64 bits: a sum past max_int is out of memory here */
    LcuVar *n = size_of(lw, SIZE_APPEND,
                        (LcuAtom *[]){av(length_of(lw, a, LEN_VECTOR)), av(length_of(lw, b, LEN_VECTOR))});
    LcuPlan *pl = plan_begin(lw, 'A');
    lcu_plan_var(pl, 'x', a);
    lcu_plan_var(pl, 'x', b);
    lcu_plan_var(pl, 'N', n);
    if (known_run(lw, &out)) {
      bind_results(lw, fs, &out);
      return;
    }
    LcuKernelBuilder *kb = kernel_begin(lw);
    LcuThunk *t = lcu_kb_index_thunk(kb);
    LcuExp *i = lcu_exp_var(kb->loc, thunk_param(t, 0));
    LcuVar *pa = lcu_kb_param(kb, a), *pb = lcu_kb_param(kb, b);
    lcu_thunk_return(t, lcu_exp_if(kb->loc, lcu_exp_op(kb->loc, FLAT_LT, FB_BOOL, 2, i, lcu_exp_length(kb->loc, pa), NULL), lcu_exp_index(kb->loc, pa, i),
                             lcu_exp_index(kb->loc, pb, lcu_exp_op(kb->loc, FLAT_SUB, FB_INT, 2, i, lcu_exp_length(kb->loc, pa), NULL))));
    lcu_kb_end_thunk(kb);
    LcuSoac *s = lcu_soac_map(lw->loc, t, lcu_kb_size_atom(kb, av(n)));
    lcu_soac_result(lw->lp, s, a->type);
    kernel_run(lw, kb, s, &out);
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
  case FLAT_CHECK:
    lower_check(lw, fs);
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

static void lower_block_into(Lw *lw, FlatBlock *b, LcuBlock *out);

/* The record of inlining user function 'f' at 'call' (lw->loc), within
   what lw->inlined says is being inlined already: the place an error is
   reported at stays the outermost call, and the function named is 'f'
   (as rt_call_context has it for calls). */
static const Inlined *inlined_record(Lw *lw, const FlatFunc *f, Loc call) {
  Inlined *r = NEW(Inlined);
  r->fn = f->source ? f->source : f->name;
  r->call = lw->inlined ? lw->inlined->call : call;
  r->call.inlined = NULL;
  RtInlined *rt = NEW(RtInlined);
  rt->fn = r->fn;
  rt->call = flat_rt_loc(r->call);
  r->rt = rt;
  return r;
}

/* Flat location 'loc' in the code being lowered: inlined from a user
   function, it says so. */
static Loc located(Lw *lw, Loc loc) {
  loc.inlined = lw->inlined;
  return loc;
}

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
      bind_var(lw, p, a->var); /* lw->scope is the callee's */
      FlatVar *fa = ((FlatAtom *)fs->args.data[i])->u.var;
      Dist *d = ptrmap_get(&caller->dists, fa);
      if (d)
        ptrmap_put(&callee->dists, p, d);
      if (ptrmap_get(&caller->nonneg, fa))
        ptrmap_put(&callee->nonneg, p, (void *)1);
    } else {
      LcuStmt *s = emit(lw, lcu_stmt_scalar(lw->loc, FLAT_COPY));
      lcu_stmt_arg(s, a);
      lcu_stmt_bind(s, var_of(lw, p));
    }
  }
  const char *saved_fn = lw->lib_fn;
  Loc saved_user = lw->user_loc, saved_loc = lw->loc;
  const Inlined *saved_inlined = lw->inlined;
  if (!lw->lib_fn && f->library) {
    lw->lib_fn = f->source;
    lw->user_loc = lw->loc; /* fs->loc, with what it was inlined from */
  } else if (!f->library) {
    /* a lifted user function: its statements keep their own locations,
       and their errors name it as a call of it would */
    lw->inlined = inlined_record(lw, f, lw->loc);
  }
  LcuBlock tmp = {0};
  LcuBlock *saved_block = lw->block;
  lower_block_into(lw, f->body, &tmp);
  lw->block = saved_block;
  for (int i = 0; i < tmp.stmts.len; i++)
    lcu_block_add(lw->block, tmp.stmts.data[i]);
  Vec results = tmp.results;
  lw->lib_fn = saved_fn;
  lw->user_loc = saved_user;
  lw->loc = saved_loc;
  lw->inlined = saved_inlined;
  lw->scope = caller;
  for (int i = 0; i < fs->results.len; i++) {
    LcuAtom *r = results.data[i];
    if (r->var) {
      bind_var(lw, fs->results.data[i], r->var); /* lw->scope is the caller's */
    } else {
      LcuStmt *s = emit(lw, lcu_stmt_scalar(lw->loc, FLAT_COPY));
      lcu_stmt_arg(s, r);
      lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
    }
  }
}

/* Flat statements in 'b', nested blocks included. */
static int block_size(const FlatBlock *b) {
  int n = 0;
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    n++;
    const FlatBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        n += block_size(nested[k]);
  }
  return n;
}

/* A lifted user function at most this big (flat statements) is inlined. */
#define INLINE_LIFTED_SIZE 120

/* Calls of 'f' are inlined: every non-recursive library function, and a
   small non-recursive lifted user function (f^, the body of an
   apply-to-each), whose kernels then fuse with its caller's.  A user
   function keeps its own statements' locations, as if called. */
static bool inlined(Lw *lw, FlatFunc *f) {
  if (ptrmap_get(&lw->recursive, f))
    return false;
  return f->library || (f->lifted && block_size(f->body) <= INLINE_LIFTED_SIZE);
}

static void lower_each_loop(Lw *lw, FlatStmt *fs);

static void lower_stmt(Lw *lw, FlatStmt *fs) {
  lw->loc = located(lw, fs->loc);
  switch (fs->kind) {
  case FS_OP:
    lower_op(lw, fs);
    return;
  case FS_CALL:
    if (fs->each && flat_func_takes_vectors(fs->callee)) { /* a sequence loop */
      lower_each_loop(lw, fs);
      return;
    }
    if (fs->each) { /* a scalar loop on each element: a MAP */
      Vec out;
      build_elementwise(lw, fs, &out);
      bind_results(lw, fs, &out);
      return;
    }
    if (inlined(lw, fs->callee)) {
      inline_call(lw, fs);
      return;
    } else {
      LcuStmt *s = emit(lw, lcu_stmt_call(lw->loc, func_of(lw, fs->callee)));
      for (int i = 0; i < fs->args.len; i++)
        lcu_stmt_arg(s, atom_of(lw, fs->args.data[i]));
      for (int i = 0; i < fs->results.len; i++)
        lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
      unite_call_results(lw, fs);
    }
    return;
  case FS_IF: {
    LcuStmt *s = emit(lw, lcu_stmt_if(lw->loc, atom_of(lw, fs->args.data[0]), lcu_block_new(), lcu_block_new()));
    LcuBlock *saved = lw->block;
    lower_block_into(lw, fs->then, s->then);
    lower_block_into(lw, fs->els, s->els);
    lw->block = saved;
    for (int i = 0; i < fs->results.len; i++)
      lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
    return;
  }
  case FS_COST: { /* as it is: λcu's interpreter counts it as flat's does */
    LcuStmt *s = emit(lw, lcu_stmt_cost(lw->loc, fs->cost_rule, fs->lifted));
    for (int i = 0; i < fs->args.len; i++)
      lcu_stmt_arg(s, atom_of(lw, fs->args.data[i]));
    return;
  }
  case FS_TIME: {
    LcuStmt *s = emit(lw, lcu_stmt_time(lw->loc, lcu_block_new()));
    LcuBlock *saved = lw->block;
    lower_block_into(lw, fs->body, s->body);
    lw->block = saved;
    for (int i = 0; i < fs->results.len; i++)
      lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
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
    lcu_block_return(out, atom_of(lw, b->results.data[i]));
}

/* ---- sequence loops on each element (flatten.c) ---- */

/* The index of the vector parameter of 'f' that block 'b' or a block
   inside it returns, or -1. */
static int returned_param(const FlatFunc *f, const FlatBlock *b) {
  for (int i = 0; i < b->results.len; i++) {
    const FlatAtom *a = b->results.data[i];
    for (int k = 0; a->kind == FA_VAR && k < f->params.len; k++)
      if (a->u.var == f->params.data[k] && a->u.var->type.kind == FT_VEC)
        return k;
  }
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    int k = s->kind == FS_IF ? returned_param(f, s->then) : -1;
    if (k < 0 && s->kind == FS_IF)
      k = returned_param(f, s->els);
    if (k >= 0)
      return k;
  }
  return -1;
}

/* The element function of sequence loop 'f' (LcuFunc.each), made when
   first asked for, its body later (lower_program). */
static LcuFunc *each_func_of(Lw *lw, FlatFunc *f) {
  LcuFunc *lf = ptrmap_get(&lw->each_funcs, f);
  if (lf)
    return lf;
  lf = lcu_func_new(f->loc, xprintf("%s.each", f->name), f->source, f->library);
  lf->flat = f;
  lf->each = true;
  lf->each_result =
      ((FlatType *)f->result_types.data[0])->kind == FT_VEC ? returned_param(f, f->body) : -1;
  if (((FlatType *)f->result_types.data[0])->kind == FT_VEC && lf->each_result < 0)
    die("lower: sequence loop %s returns none of its vector parameters", f->name);
  ptrmap_put(&lw->each_funcs, f, lf);
  vec_push(&lw->lp->funcs, lf);
  vec_push(&lw->pending_each, f);
  return lf;
}

/* `call each f` of a sequence loop: LIBRARY loop f.each on the lifted
   arguments.  Its result where f returns a vector is the state's values;
   their segdes is the state argument's.  Where f gives several scalars
   (flatten.c's f.all), the loop gives a vector of each. */
static void lower_each_loop(Lw *lw, FlatStmt *fs) {
  LcuFunc *lf = each_func_of(lw, fs->callee);
  LcuKernelBuilder *kb = kernel_begin(lw);
  LcuSoac *s = lcu_soac_library(lw->loc, LIB_LOOP);
  s->callee = lf;
  for (int i = 0; i < fs->args.len; i++) {
    LcuAtom *a = atom_of(lw, fs->args.data[i]);
    LcuVar *v = a->var ? a->var : scalar_op(lw, FLAT_COPY, lcu_const_base(a->constant), 1, a);
    vec_push(&s->args, lcu_kb_plain_param(kb, v));
  }
  int first = lf->each_result >= 0 ? fs->results.len - 1 : 0; /* the values' results */
  for (int i = first; i < fs->results.len; i++)
    lcu_soac_result(lw->lp, s, lcu_type_of_flat(((FlatVar *)fs->results.data[i])->type));
  Vec out;
  kernel_run(lw, kb, s, &out);
  if (lf->each_result >= 0 && fs->results.len == 2) /* the state's segdes: its argument's (never shared) */
    bind_var(lw, fs->results.data[0], var_of(lw, ((FlatAtom *)fs->args.data[flat_each_arg(fs, lf->each_result, NULL)])->u.var));
  for (int i = first; i < fs->results.len; i++)
    bind_var(lw, fs->results.data[i], out.data[i - first]);
}

static void lower_element_block(Lw *lw, FlatFunc *f, FlatBlock *b, LcuBlock *out);

/* A statement of sequence loop 'f''s body, in its element function: an
   element read, rep in place, the recursive call of the element
   function; scalar operations, lengths and calls of scalar functions as
   at the host. */
static void lower_element_stmt(Lw *lw, FlatFunc *f, FlatStmt *fs) {
  lw->loc = located(lw, fs->loc);
  if (fs->kind == FS_OP && fs->op == FLAT_ELT) {
    LcuStmt *s = emit(lw, lcu_stmt_elt(lw->loc, atom_of(lw, fs->args.data[0]), atom_of(lw, fs->args.data[1])));
    lcu_stmt_bind(s, var_of(lw, fs->results.data[0]));
    return;
  }
  if (fs->kind == FS_CALL && fs->callee == f) {
    LcuStmt *s = emit(lw, lcu_stmt_call(lw->loc, each_func_of(lw, f)));
    for (int i = 0; i < fs->args.len; i++)
      lcu_stmt_arg(s, atom_of(lw, fs->args.data[i]));
    for (int i = 0; i < fs->results.len; i++)
      lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
    return;
  }
  if (fs->kind == FS_CALL && fs->callee->library && fs->callee->source && strcmp(fs->callee->source, "rep") == 0) {
    /* rep(v, x, i) whose old v is dead (flatten.c): v updated in place,
       and the result is v */
    LcuAtom *v = atom_of(lw, fs->args.data[0]);
    emit(lw, lcu_stmt_update(lw->loc, v, atom_of(lw, fs->args.data[2]), atom_of(lw, fs->args.data[1])));
    bind_var(lw, fs->results.data[0], v->var);
    return;
  }
  if (fs->kind == FS_IF) {
    LcuStmt *s = emit(lw, lcu_stmt_if(lw->loc, atom_of(lw, fs->args.data[0]), lcu_block_new(), lcu_block_new()));
    LcuBlock *saved = lw->block;
    lower_element_block(lw, f, fs->then, s->then);
    lower_element_block(lw, f, fs->els, s->els);
    lw->block = saved;
    for (int i = 0; i < fs->results.len; i++)
      lcu_stmt_bind(s, var_of(lw, fs->results.data[i]));
    return;
  }
  if (fs->kind == FS_OP && fs->op != FLAT_LENGTH && !is_elementwise(fs->op))
    die("lower: %s, a sequence loop, holds a %s", f->name, flat_op_name(fs->op));
  lower_stmt(lw, fs);
}

static void lower_element_block(Lw *lw, FlatFunc *f, FlatBlock *b, LcuBlock *out) {
  lw->block = out;
  for (int i = 0; i < b->stmts.len; i++)
    lower_element_stmt(lw, f, b->stmts.data[i]);
  lw->block = out;
  for (int i = 0; i < b->results.len; i++)
    lcu_block_return(out, atom_of(lw, b->results.data[i]));
}

static LcuFunc *func_of(Lw *lw, FlatFunc *f) {
  LcuFunc *lf = ptrmap_get(&lw->funcs, f);
  if (lf)
    return lf;
  lf = lcu_func_new(f->loc, f->name, f->source, f->library);
  lf->flat = f;
  ptrmap_put(&lw->funcs, f, lf);
  vec_push(&lw->lp->funcs, lf);
  vec_push(&lw->pending, f);
  return lf;
}

/* ---- programs ---- */

/* Marks the functions on a cycle of the call graph: those in a strongly
   connected component of several, or calling themselves (Tarjan's
   algorithm, without recursion: a chain of calls may be as long as the
   program).  A transitive closure of the calls, as this first was, took
   n^2 bytes and n^3 steps: a program of 20 000 functions spent seconds
   here. */
static void find_recursion(Lw *lw) {
  FlatProgram *fp = lw->fp;
  int n = fp->funcs.len;
  PtrMap index = {0};
  for (int i = 0; i < n; i++)
    ptrmap_put(&index, fp->funcs.data[i], (void *)(intptr_t)(i + 1));
  /* the calls of each function, by index */
  Vec *calls = xmalloc(sizeof(Vec) * (size_t)(n + 1));
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
          if (j == i + 1)
            ptrmap_put(&lw->recursive, f, (void *)1);
          if (j)
            vec_push(&calls[i], (void *)(j - 1));
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
  /* order[i]: when i was reached (0: not yet); low[i]: the earliest
     reached that i's subtree leads to, while i's component is open */
  int *order = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *low = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *next = xmalloc_atomic(sizeof(int) * (size_t)(n + 1)); /* the next call to follow */
  bool *open = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    order[i] = 0;
    open[i] = false;
  }
  int *path = xmalloc_atomic(sizeof(int) * (size_t)(n + 1)); /* the search's */
  int *comp = xmalloc_atomic(sizeof(int) * (size_t)(n + 1)); /* Tarjan's stack */
  int clock = 0, ncomp = 0;
  for (int root = 0; root < n; root++) {
    if (order[root])
      continue;
    int depth = 0;
    path[depth++] = root;
    order[root] = low[root] = ++clock;
    next[root] = 0;
    comp[ncomp++] = root;
    open[root] = true;
    while (depth) {
      int v = path[depth - 1];
      if (next[v] < calls[v].len) {
        int w = (int)(intptr_t)calls[v].data[next[v]++];
        if (!order[w]) {
          order[w] = low[w] = ++clock;
          next[w] = 0;
          comp[ncomp++] = w;
          open[w] = true;
          path[depth++] = w;
        } else if (open[w] && order[w] < low[v]) {
          low[v] = order[w];
        }
        continue;
      }
      depth--;
      if (depth && low[v] < low[path[depth - 1]])
        low[path[depth - 1]] = low[v];
      if (low[v] != order[v])
        continue;
      /* v's component: the stack down to v */
      int size = 0;
      for (int k = ncomp - 1; k >= 0; k--) {
        size++;
        if (comp[k] == v)
          break;
      }
      for (int k = ncomp - size; k < ncomp; k++) {
        open[comp[k]] = false;
        if (size > 1)
          ptrmap_put(&lw->recursive, fp->funcs.data[comp[k]], (void *)1);
      }
      ncomp -= size;
    }
  }
}

/* Lowers the functions asked for so far, and those they ask for: an
   element function may ask for the scalar functions it calls, a host
   function for element functions. */
static void lower_pending(Lw *lw) {
  while (lw->pending.len || lw->pending_each.len) {
    while (lw->pending.len) {
      FlatFunc *f = lw->pending.data[--lw->pending.len];
      LcuFunc *lf = func_of(lw, f);
      lw->scope = NEW(Scope);
      lw->lib_fn = NULL;
      lw->inlined = NULL;
      for (int k = 0; k < f->params.len; k++) {
        FlatVar *p = f->params.data[k];
        LcuVar *x = var_of(lw, p);
        if (p->within)
          x->within = var_of(lw, p->within);
        vec_push(&lf->params, x);
      }
      unite_params(lw, f, lf);
      lf->body = lcu_block_new();
      lower_block_into(lw, f->body, lf->body);
    }
    while (lw->pending_each.len) {
      FlatFunc *f = lw->pending_each.data[--lw->pending_each.len];
      LcuFunc *lf = each_func_of(lw, f);
      lw->scope = NEW(Scope);
      lw->lib_fn = NULL;
      lw->inlined = NULL;
      for (int k = 0; k < f->params.len; k++)
        vec_push(&lf->params, var_of(lw, f->params.data[k]));
      lf->body = lcu_block_new();
      lower_element_block(lw, f, f->body, lf->body);
    }
  }
  /* the form LIBRARY loop relies on, once what they call has a body */
  for (int i = 0; i < lw->lp->funcs.len; i++) {
    LcuFunc *lf = lw->lp->funcs.data[i];
    const char *why = lf->each ? lcu_element_func(lf) : NULL;
    if (why)
      die("lower: %s", why);
  }
}

LcuProgram *lower_program(FlatProgram *fp) {
  Lw *lw = NEW(Lw);
  lw->fp = fp;
  lw->lp = lcu_program_new();
  lw->check_plans = getenv("NESSIE_CHECK_PLANS") != NULL;
  find_recursion(lw);
  for (int i = 0; i < fp->tops.len; i++) {
    FlatTop *ft = fp->tops.data[i];
    LcuTop *t = lcu_top_new(ft, ft->body ? lcu_block_new() : NULL);
    if (ft->body) {
      lw->scope = NEW(Scope);
      lw->lib_fn = NULL;
      lw->inlined = NULL;
      lower_block_into(lw, ft->body, t->body);
      for (int k = 0; k < ft->defines.len; k++)
        vec_push(&t->defines, var_of(lw, ft->defines.data[k]));
      for (int k = 0; k < ft->replaced.len; k++)
        vec_push(&t->replaced, ft->replaced.data[k] ? var_of(lw, ft->replaced.data[k]) : NULL);
    }
    vec_push(&lw->lp->tops, t);
    lower_pending(lw);
  }
  lcu_drop_dead(lw->lp, &lw->droppable, false);
  lcu_prune_kernels(lw->lp);
  number_classes(&lw->shapes, false);
  number_classes(&lw->stricts, true);
  return lw->lp;
}
