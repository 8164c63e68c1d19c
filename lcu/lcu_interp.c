/*
 * lcu_interp.c: λcu's interpreter (`--interp=lcu`): the CPU program runs
 * statement by statement, each `run K args` runs the SOACs of kernel K in
 * order by their semantics (the paper's section 3.2 and Figures 3-4), and
 * thunks are evaluated over the index space.  It prints exactly the
 * transcript of the flat IR's interpreter, whose operations it shares
 * (flat/flat_exec.c): the element-wise operations with their errors,
 * the host statements, the library kernels, the top-level transcript and
 * the scalar functions that thunks call.
 *
 * Values are the flat IR's RtValue at both the CPU and the kernel
 * level: scalars, vectors of a base type, segment descriptors.  Values
 * are never changed in place, so that they are shared freely.
 *
 * Thunks run on all their lanes at once: a thunk applied to the indices
 * 0..n-1 gets each parameter as an n-vector, and each expression
 * evaluates to an n-vector, so that LE_OP is one whole-vector call of
 * the flat operation (its errors reported for the first failing lane, as
 * the flat interpreter reports them).  LE_IF evaluates each branch on
 * the lanes that take it only, so that an untaken branch raises no
 * error.  The operator of REDUCE and SCAN is applied one element after
 * the other, from the identity, segment after segment: the order in
 * which the flat interpreter combines, so that floating-point sums come
 * out the same; it runs on one lane with its scalars on the C stack.
 *
 * Conventions beyond the letter of the paper (lcu.h writes them down
 * above LCU_SOACS; lower.c and lcu_check.c follow them):
 *   - a pull thunk has one int parameter, the index (for the SEG_ SOACs
 *     the index of the element among all the segments' elements, 0 ..
 *     total-1); ONCE's has none.  (A pull thunk without parameters is
 *     accepted too: it ignores the index.)
 *   - PERMUTE's index thunk takes the same index and gives one int: where
 *     the element goes; SEG_PERMUTE's gives the place within the
 *     element's segment, and the result has the segments of the sd (and
 *     `into` D the sd's total length).
 *   - FILTER's and PARTITION's predicate takes the k values the pull
 *     thunk gives (k parameters) and gives one bool; SPLIT's gives one
 *     bool per class.
 *   - REDUCE's and SCAN's operator takes two tuples of k values, the
 *     accumulated one first (2k parameters: acc_1..acc_k, x_1..x_k), and
 *     gives k values; 'identity' has k constants.
 *   - results, for a pull thunk of k values (ORDER LCU RESULTS, see
 *     soac_results):
 *       MAP, SCAN, FILTER, PERMUTE: k vectors; REDUCE, ONCE: k scalars;
 *       SPLIT: k vectors, class by class (lcu.h), then with `counts`
 *         a vector of counts a class;
 *       PARTITION: the k vectors of the values for which the predicate
 *         holds, then the k vectors of the others;
 *       SEG_REDUCE: k vectors of one value per segment;
 *       SEG_SCAN, SEG_PERMUTE: k vectors;
 *       SEG_FILTER: k vectors, then the new sd (Figure 4: τ↑ × sd);
 *       SEG_PARTITION: k vectors and their sd for the values for which
 *         the predicate holds, then k vectors and their sd for the
 *         others (Figure 4: τ↑ × sd × τ↑ × sd).
 *     PERMUTE and SEG_PERMUTE `into` D have k = 1.
 * And choices of this interpreter:
 *   - an error in a thunk expression is reported at the expression's
 *     location (LcuExp.loc: the NESL expression it computes), unless
 *     that is its SOAC's own, then at the `run` statement: lower.c makes
 *     equal kernels once and runs them from several places, so that a
 *     SOAC's own location is that of the first (lcu_error_loc).  Other
 *     errors of a kernel (a negative size, a PERMUTE out of range) are
 *     reported at the `run`.
 *   - a SOAC whose size is negative stops the statement with DIST's
 *     error ("dist: negative length"): the only NESL operation that asks
 *     for a negative number of elements is dist, and lower.c lowers it
 *     to a MAP without a check of its own.
 *   - a subscript out of range in a thunk is reported as the flat
 *     interpreter reports GATHER's (ELT's under ONCE, which is how ELT is
 *     lowered): the two differ only in library code.
 *   - an error of + or * in a REDUCE's or SCAN's operator names the
 *     reduction's primitive (__reduce_add, ...), as the flat REDUCE_ADD
 *     does.
 *   - LcuTop.defines parallels FlatTop.defines (one global per entry, in
 *     the same order).
 *
 * Statistics: kernels defined, runs executed, and elements processed:
 * the index space of each SOAC run (n for the unsegmented SOACs, the
 * total number of elements for the SEG_ ones, 1 for ONCE; a library
 * kernel counts the elements of its first result: a vector's length, a
 * sd's segments, 1 for a scalar).
 */
#include <string.h>

#include "../flat/flat.h"
#include "lcu.h"

/* ---- the interpreter's state ---- */

/* The frame layout of a function, a top-level block or a kernel: each
   variable it binds has a slot.  The slots are per layout, not per
   variable: one variable may be bound in several kernels and functions
   (a kernel made once runs from many places; lcu.h, LcuVar). */
typedef struct Layout {
  int nslots;
  int cap;        /* of the table below: a power of two */
  int32_t *ids;   /* open addressing by variable id; -1: empty */
  int32_t *slots;
} Layout;

/* A running function, or the top-level block (func NULL), with the
   context of the errors raised in it. */
typedef struct Frame {
  const LcuFunc *func;
  const Layout *layout;
  RtValue **slots;
  struct Frame *parent;
  RtContext context;
} Frame;

struct LcuInterp {
  LcuProgram *p;
  FILE *out;
  LcuStats stats;
  RtValue **globals;       /* by variable id; NULL until defined */
  const char **global_names; /* by variable id: the NESL variable a global
                                is (part of), for messages */
  uint8_t *is_global;        /* by variable id */
  int var_cap;               /* the size of the tables by variable id */
  int globals_seen;          /* how many of p->globals are marked */
  PtrMap layouts;            /* LcuFunc, LcuTop, LcuKernel -> Layout */
  PtrMap constants;          /* FlatAtom (a constant's address) -> its
                                RtValue, made once */
  Frame *frame;
  LcuTop *top;               /* the statement running */
  Vec results;               /* RtValue *: a flat operation's, reused */
  PtrMap dead_after;         /* LcuStmt -> Vec * of variables whose last use
                                it is (see clear_dead) */
  PtrMap analysed;           /* LcuBlock -> non-NULL when done */
  PtrMap scalar_funcs;       /* LcuFunc, and its FlatFunc -> ScalarFunc */
  bool cost;                 /* --cost: LS_COST statements are run */
  FlatCost costs;            /* the statement's work and depth so far */
  bool quiet;                /* values are not printed (the REPL's :cost) */
};

static RtValue **run_block(LcuInterp *in, const LcuBlock *b, Loc loc);
static void scalar_call(LcuInterp *in, const LcuFunc *f, RtValue **args, Loc loc, RtValue *out);
static void analyse(LcuInterp *in, const LcuBlock *b, const Vec *params);

/* Arrays of at most SMALL values live on the C stack (which the
   collector scans); longer ones are allocated. */
enum { SMALL = 16 };

static RtValue **small_array(RtValue **buf, int n) {
  return n <= SMALL ? buf : xmalloc(sizeof(RtValue *) * (size_t)(n + 1));
}

static const char *func_source(const LcuFunc *f) { return f->source ? f->source : f->name; }

static const RtContext top_context = {0};

/* ---- variables ---- */

static void ensure_var_tables(LcuInterp *in, int id) {
  if (id < in->var_cap)
    return;
  int cap = in->var_cap ? in->var_cap : 256;
  while (cap <= id || cap < in->p->next_var)
    cap *= 2;
  uint8_t *is_global = xmalloc_atomic((size_t)cap);
  RtValue **globals = xmalloc(sizeof(RtValue *) * (size_t)cap);
  const char **names = xmalloc(sizeof(char *) * (size_t)cap);
  if (in->var_cap) { /* (memcpy must not see the first tables' NULL) */
    memcpy(is_global, in->is_global, (size_t)in->var_cap);
    memcpy(globals, in->globals, sizeof(RtValue *) * (size_t)in->var_cap);
    memcpy(names, in->global_names, sizeof(char *) * (size_t)in->var_cap);
  }
  for (int i = in->var_cap; i < cap; i++)
    is_global[i] = 0;
  in->is_global = is_global;
  in->globals = globals;
  in->global_names = names;
  in->var_cap = cap;
}

static void mark_global(LcuInterp *in, const LcuVar *v) {
  if (v->id < 0)
    die("variable %s with negative id %d", v->name, v->id);
  ensure_var_tables(in, v->id);
  in->is_global[v->id] = 1;
}

static uint32_t id_hash(int id) { return (uint32_t)id * 0x9e3779b1u; }

/* The slot of variable 'v' in 'l', or -1. */
static int slot_in(const Layout *l, const LcuVar *v) {
  if (!l->cap)
    return -1;
  uint32_t mask = (uint32_t)l->cap - 1;
  for (uint32_t i = id_hash(v->id) & mask;; i = (i + 1) & mask) {
    if (l->ids[i] == v->id)
      return l->slots[i];
    if (l->ids[i] < 0)
      return -1;
  }
}

static void layout_grow(Layout *l) {
  Layout bigger = {l->nslots, l->cap ? 2 * l->cap : 16, NULL, NULL};
  bigger.ids = xmalloc_atomic(sizeof(int32_t) * (size_t)bigger.cap);
  bigger.slots = xmalloc_atomic(sizeof(int32_t) * (size_t)bigger.cap);
  for (int i = 0; i < bigger.cap; i++)
    bigger.ids[i] = -1;
  uint32_t mask = (uint32_t)bigger.cap - 1;
  for (int i = 0; i < l->cap; i++) {
    if (l->ids[i] < 0)
      continue;
    uint32_t j = id_hash(l->ids[i]) & mask;
    while (bigger.ids[j] >= 0)
      j = (j + 1) & mask;
    bigger.ids[j] = l->ids[i];
    bigger.slots[j] = l->slots[i];
  }
  *l = bigger;
}

/* Gives 'v' a slot in 'layout' (once). */
static void assign_slot(const LcuVar *v, Layout *layout) {
  if (v->id < 0)
    die("variable %s with negative id %d", v->name, v->id);
  if (slot_in(layout, v) >= 0)
    return;
  if (2 * (layout->nslots + 1) > layout->cap)
    layout_grow(layout);
  uint32_t mask = (uint32_t)layout->cap - 1;
  uint32_t i = id_hash(v->id) & mask;
  while (layout->ids[i] >= 0)
    i = (i + 1) & mask;
  layout->ids[i] = v->id;
  layout->slots[i] = layout->nslots++;
}

static void assign_slots(const Vec *vars, Layout *layout) {
  for (int i = 0; i < vars->len; i++)
    assign_slot(vars->data[i], layout);
}

static void layout_block(const LcuBlock *b, Layout *layout) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    assign_slots(&s->results, layout);
    if (s->then)
      layout_block(s->then, layout);
    if (s->els)
      layout_block(s->els, layout);
    if (s->body)
      layout_block(s->body, layout);
  }
}

/* The layout of a function (params: its parameters) or a top-level
   block, made the first time it runs. */
static Layout *block_layout(LcuInterp *in, const void *owner, const Vec *params, const LcuBlock *body) {
  void **slot = ptrmap_slot(&in->layouts, owner, true);
  if (!*slot) {
    Layout *layout = NEW(Layout);
    if (params)
      assign_slots(params, layout);
    layout_block(body, layout);
    *slot = layout;
  }
  return *slot;
}

/* A kernel's: its parameters and the results of its SOACs. */
static Layout *kernel_layout(LcuInterp *in, const LcuKernel *k) {
  void **slot = ptrmap_slot(&in->layouts, k, true);
  if (!*slot) {
    Layout *layout = NEW(Layout);
    assign_slots(&k->params, layout);
    for (int i = 0; i < k->soacs.len; i++)
      assign_slots(&((const LcuSoac *)k->soacs.data[i])->results, layout);
    *slot = layout;
  }
  return *slot;
}

static RtKind kind_of(LcuTypeKind k) {
  switch (k) {
  case LT_SCALAR:
    return RT_SCALAR;
  case LT_VEC:
    return RT_VEC;
  case LT_SEGDES:
    return RT_SEGDES;
  }
  die("λcu type kind %d", (int)k);
}

static bool type_fits(LcuType t, const RtValue *v) {
  return kind_of(t.kind) == v->type.kind && (t.kind == LT_SEGDES || flat_rt_base(t.base) == v->type.base);
}

static const char *type_name(LcuType t) { return rt_type_name((RtType){kind_of(t.kind), flat_rt_base(t.base)}); }

static void check_fits(const LcuVar *v, const RtValue *value) {
  if (!type_fits(v->type, value))
    die("%s : %s gets a %s", v->name, type_name(v->type), rt_type_name(value->type));
}

/* Binds 'v' (of the function or top-level block running, or a global)
   to 'value'. */
static void bind(LcuInterp *in, const LcuVar *v, RtValue *value) {
  check_fits(v, value);
  ensure_var_tables(in, v->id);
  if (in->is_global[v->id]) {
    in->globals[v->id] = value;
    return;
  }
  int slot = in->frame ? slot_in(in->frame->layout, v) : -1;
  if (slot < 0)
    die("%s has no slot in this frame", v->name);
  in->frame->slots[slot] = value;
}

static void bind_all(LcuInterp *in, const Vec *vars, RtValue **values, int n, const char *what) {
  if (n != vars->len)
    die("%s gives %d values for %d results", what, n, vars->len);
  for (int i = 0; i < n; i++)
    bind(in, vars->data[i], values[i]);
}

/* The value of constant 'c', made the first time (values are never
   changed in place, so that one can be shared). */
static RtValue *constant(LcuInterp *in, const FlatAtom *c) {
  void **slot = ptrmap_slot(&in->constants, c, true);
  if (!*slot)
    *slot = flat_exec_constant(c);
  return *slot;
}

/* The value of CPU-level atom 'a'; 'loc' is where a failed global's
   error is reported. */
static RtValue *atom_value(LcuInterp *in, const LcuAtom *a, Loc loc) {
  if (!a->var)
    return constant(in, &a->constant);
  const LcuVar *v = a->var;
  ensure_var_tables(in, v->id);
  if (in->is_global[v->id]) {
    RtValue *g = in->globals[v->id];
    if (!g)
      rt_undefined_error(flat_rt_loc(loc), in->global_names[v->id] ? in->global_names[v->id] : v->name);
    return g;
  }
  int slot = in->frame ? slot_in(in->frame->layout, v) : -1;
  RtValue *x = slot >= 0 ? in->frame->slots[slot] : NULL;
  if (!x)
    die("%s is used before it is bound", v->name);
  return x;
}

/* The values of 'atoms', in 'buf' if they fit (see SMALL), else in a
   new array; NULL 'buf': always a new array. */
static RtValue **atom_values(LcuInterp *in, const Vec *atoms, Loc loc, RtValue **buf) {
  RtValue **values = buf ? small_array(buf, atoms->len) : xmalloc(sizeof(RtValue *) * (size_t)(atoms->len + 1));
  for (int i = 0; i < atoms->len; i++)
    values[i] = atom_value(in, atoms->data[i], loc);
  return values;
}

/* ---- vectors ---- */


/* One element of 'size' bytes (1, 4 or 8): a copy the compiler inlines,
   where memcpy of a variable size is a call per element. */
static inline void copy_elem(void *to, const void *from, size_t size) {
  switch (size) {
  case 1:
    memcpy(to, from, 1);
    return;
  case 4:
    memcpy(to, from, 4);
    return;
  default:
    memcpy(to, from, 8);
    return;
  }
}

static RtValue *new_vec(FlatBase b, int64_t n) { return rt_value_new(rt_vec_type(flat_rt_base(b)), n); }

static char *elem_at(const RtValue *v, int64_t k) { return (char *)v->data.any + (size_t)k * rt_base_size(v->type.base); }

/* 'n' copies of the element of base 'b' at 'elem' */
static RtValue *fill(FlatBase b, const void *elem, int64_t n) {
  RtValue *r = new_vec(b, n);
  size_t size = rt_base_size(b);
  for (int64_t k = 0; k < n; k++)
    copy_elem((char *)r->data.any + (size_t)k * size, elem, size);
  return r;
}

/* 'n' copies of scalar 'x' */
static RtValue *broadcast(const RtValue *x, int64_t n) { return fill(x->type.base, x->data.any, n); }

/* v[sel[0]], ..., v[sel[n-1]] */
static RtValue *select_lanes(const RtValue *v, const int64_t *sel, int64_t n) {
  RtValue *r = new_vec(v->type.base, n);
  size_t size = rt_base_size(v->type.base);
  for (int64_t k = 0; k < n; k++)
    copy_elem((char *)r->data.any + (size_t)k * size, elem_at(v, sel[k]), size);
  return r;
}

/* Element 'k' of vector 'v' as a scalar. */
static RtValue *scalar_at(const RtValue *v, int64_t k) {
  RtValue *r = rt_value_new(rt_scalar_type(v->type.base), 1);
  copy_elem(r->data.any, elem_at(v, k), rt_base_size(v->type.base));
  return r;
}

/* The elements of 'v' whose flag is set (flags[k] == want). */
static RtValue *pack(const RtValue *v, const RtValue *flags, bool want, int64_t count) {
  RtValue *r = new_vec(v->type.base, count);
  size_t size = rt_base_size(v->type.base);
  int64_t at = 0;
  for (int64_t k = 0; k < v->len; k++)
    if ((flags->data.b[k] != 0) == want)
      copy_elem((char *)r->data.any + (size_t)(at++) * size, elem_at(v, k), size);
  return r;
}

/* ---- GPU level: thunks ----
   A thunk runs on n lanes at once: its parameters, its lets and every
   expression hold n-vectors.  Only its parameters, its lets and its
   `using` variables (read in the kernel's frame) may be read.

   The index parameter of a pull thunk is kept as "lane j holds base + j"
   until something needs its values, so that xs[i] over the lanes
   0..#xs-1, the most common pull, is xs itself, with neither the
   indices nor the copy made (values are never changed in place). */

typedef struct Local {
  const LcuVar *var;
  RtValue *value;   /* an n-vector, or NULL for an index not yet made */
  bool index;         /* lane j holds base + j */
  int64_t base;
  struct Local *next;
} Local;

/* What evaluating the thunks of one SOAC needs. */
typedef struct Kernel {
  LcuInterp *in;
  const LcuSoac *soac;
  Loc loc;                 /* the run's: where errors outside thunks are
                              reported, and those of the expressions made
                              for the run's own statement (lcu_error_loc) */
  const Layout *layout;    /* the kernel's */
  RtValue **slots;       /* the kernel's frame */
  const LcuThunk *thunk;   /* the thunk running */
  const char *(*prim)(FlatOp op, bool scan); /* the operator of a REDUCE
                              or SCAN: the primitive its errors name */
  bool scan;
  int64_t space;           /* the SOAC's index space, for the traffic */
  Vec own;                 /* the vectors read at the SOAC's own index so
                              far: counted once (a loop loads x[i] once) */
} Kernel;

static RtValue *kernel_var(Kernel *k, const LcuVar *v) {
  int slot = slot_in(k->layout, v);
  RtValue *x = slot >= 0 ? k->slots[slot] : NULL;
  if (!x)
    die("kernel variable %s is used before it is bound", v->name);
  return x;
}

/* The value of `using` variable 'v' of the running thunk. */
static RtValue *using_var(Kernel *k, const LcuVar *v) {
  const Vec *using = &k->thunk->using;
  for (int i = 0; i < using->len; i++)
    if (using->data[i] == v)
      return kernel_var(k, v);
  die("a thunk of %s reads %s, which is not in its using list", lcu_soac_name(k->soac->kind), v->name);
}

/* The values of 'l' on its n lanes. */
static RtValue *local_value(Local *l, int64_t n) {
  if (!l->value) {
    RtValue *r = new_vec(FB_INT, n);
    for (int64_t j = 0; j < n; j++)
      r->data.i[j] = (int32_t)(l->base + j);
    l->value = r;
  }
  return l->value;
}

static Local *lookup(Local *env, const LcuVar *v) {
  for (Local *l = env; l; l = l->next)
    if (l->var == v)
      return l;
  return NULL;
}

static RtValue *eval(Kernel *k, const LcuExp *e, Local *env, int64_t n);

/* A subset of the lanes: 'n' of them, the lanes idx[0..n) (increasing)
   or, with 'idx' NULL, the range first .. first+n-1. */
typedef struct Sel {
  int64_t n;
  const int64_t *idx;
  int64_t first;
} Sel;

/* The lanes 'sel' of vector 'v'. */
static RtValue *sel_values(const RtValue *v, const Sel *sel) {
  if (!sel->idx) {
    RtValue *r = new_vec(v->type.base, sel->n);
    memcpy(r->data.any, elem_at(v, sel->first), rt_base_size(v->type.base) * (size_t)sel->n);
    return r;
  }
  return select_lanes(v, sel->idx, sel->n);
}

/* 'env' on the lanes 'sel' of its n. */
static Local *restrict_env(Local *env, const Sel *sel, int64_t n) {
  Local *first = NULL, **tail = &first;
  for (Local *b = env; b; b = b->next) {
    Local *c = NEW(Local);
    c->var = b->var;
    if (b->index && !sel->idx) {
      c->index = true;
      c->base = b->base + sel->first;
    } else {
      c->value = sel_values(local_value(b, n), sel);
    }
    *tail = c;
    tail = &c->next;
  }
  return first;
}

/* Writes 'part' (sel->n values) into the lanes 'sel' of 'r'. */
static void sel_merge(RtValue *r, const Sel *sel, const RtValue *part) {
  size_t size = rt_base_size(r->type.base);
  if (!sel->idx) {
    memcpy(elem_at(r, sel->first), part->data.any, size * (size_t)sel->n);
    return;
  }
  for (int64_t j = 0; j < sel->n; j++)
    copy_elem(elem_at(r, sel->idx[j]), elem_at(part, j), size);
}

/* if c then a else b: each branch on its own lanes.  When the lanes
   that take one branch come first (as in an append's pull), both sets
   are ranges, and neither the index nor the vectors sliced with it are
   copied lane by lane. */
static RtValue *eval_if(Kernel *k, const LcuExp *e, Local *env, int64_t n) {
  RtValue *c = eval(k, e->args[0], env, n);
  int64_t yes = 0, changes = 0;
  for (int64_t j = 0; j < n; j++) {
    yes += c->data.b[j] != 0;
    changes += j > 0 && (c->data.b[j] != 0) != (c->data.b[j - 1] != 0);
  }
  if (yes == n)
    return eval(k, e->args[1], env, n);
  if (yes == 0)
    return eval(k, e->args[2], env, n);
  Sel sel_yes = {yes, NULL, 0}, sel_no = {n - yes, NULL, 0};
  if (changes == 1) {
    bool yes_first = c->data.b[0] != 0;
    sel_yes.first = yes_first ? 0 : n - yes;
    sel_no.first = yes_first ? yes : 0;
  } else {
    int64_t *iy = xmalloc_atomic(sizeof(int64_t) * (size_t)yes);
    int64_t *in_ = xmalloc_atomic(sizeof(int64_t) * (size_t)(n - yes));
    int64_t a = 0, b = 0;
    for (int64_t j = 0; j < n; j++) {
      if (c->data.b[j])
        iy[a++] = j;
      else
        in_[b++] = j;
    }
    sel_yes.idx = iy;
    sel_no.idx = in_;
  }
  RtValue *then = eval(k, e->args[1], restrict_env(env, &sel_yes, n), yes);
  RtValue *els = eval(k, e->args[2], restrict_env(env, &sel_no, n), n - yes);
  if (then->type.base != e->type || els->type.base != e->type)
    die("if: branches of types %s and %s for %s", rt_type_name(then->type), rt_type_name(els->type),
        rt_type_name(rt_scalar_type((RtBase)e->type)));
  RtValue *r = new_vec(e->type, n);
  sel_merge(r, &sel_yes, then);
  sel_merge(r, &sel_no, els);
  return r;
}

/* The value of int expression 'e' if it is the same on every lane (a
   constant, a `using` scalar, a `using` vector's length). */
static bool invariant_int(Kernel *k, const LcuExp *e, Local *env, int64_t *value) {
  switch (e->kind) {
  case LE_CONST:
    if (e->constant.kind != FA_INT)
      return false;
    *value = e->constant.u.i;
    return true;
  case LE_LENGTH: { /* a vector's length, a sd's number of segments */
    RtValue *x = using_var(k, e->var);
    if (x->type.kind != FT_VEC && x->type.kind != FT_SEGDES)
      return false;
    *value = x->len;
    return true;
  }
  case LE_VAR: {
    if (lookup(env, e->var))
      return false;
    RtValue *x = using_var(k, e->var);
    if (!rt_type_equal(x->type, rt_scalar_type(RT_INT)))
      return false;
    *value = x->data.i[0];
    return true;
  }
  default:
    return false;
  }
}

/* True if int expression 'e' holds base + j on lane j, for some *base
   worked out exactly (in 64 bits): the index, plus or minus values the
   same on every lane. */
static bool affine_index(Kernel *k, const LcuExp *e, Local *env, int64_t *base) {
  if (e->kind == LE_VAR) {
    Local *l = lookup(env, e->var);
    if (!l || !l->index)
      return false;
    *base = l->base;
    return true;
  }
  if (e->kind != LE_OP || (e->op != FLAT_ADD && e->op != FLAT_SUB) || e->type != FB_INT || e->nargs != 2)
    return false;
  int64_t b, c;
  if (affine_index(k, e->args[0], env, &b) && invariant_int(k, e->args[1], env, &c)) {
    *base = e->op == FLAT_ADD ? b + c : b - c;
    return true;
  }
  if (e->op == FLAT_ADD && invariant_int(k, e->args[0], env, &c) && affine_index(k, e->args[1], env, &b)) {
    *base = b + c;
    return true;
  }
  return false;
}

/* ---- traffic: the bytes a SOAC reads and writes (LcuStats.bytes) ---- */

static uint64_t value_bytes(const RtValue *v) {
  switch (v->type.kind) {
  case FT_SCALAR:
    return rt_base_size(v->type.base);
  case FT_VEC:
    return (uint64_t)v->len * rt_base_size(v->type.base);
  default:
    return (uint64_t)v->len * sizeof(int64_t);
  }
}

/* Counts the read of vector 'v' by 'e' on n lanes: at the SOAC's own
   index, once per SOAC for its whole index space. */
static void count_read(Kernel *k, const LcuExp *e, const RtValue *v, int64_t n) {
  const LcuThunk *t = k->thunk;
  const LcuExp *i = e->args[0];
  bool own = i->kind == LE_VAR && t && t->params.len == 1 && i->var == t->params.data[0] &&
             (t == k->soac->pull || (t == k->soac->second && (k->soac->kind == SOAC_PERMUTE ||
                                                              k->soac->kind == SOAC_SEG_PERMUTE)));
  size_t size = rt_base_size(v->type.base);
  if (!own) {
    k->in->stats.bytes += (uint64_t)n * size;
    return;
  }
  for (int j = 0; j < k->own.len; j++)
    if (k->own.data[j] == e->var)
      return;
  vec_push(&k->own, (void *)e->var);
  k->in->stats.bytes += (uint64_t)k->space * size;
}

/* seg_length(x, g) or seg_offset(x, g) of sd 'x' (e's kind): a segment g
   that x does not have is the error of a read g of a vector of x's
   number of segments, as the read of seg_lengths or seg_offsets it
   stands for reported it. */
static int32_t seg_field(Kernel *k, const LcuExp *e, RtValue *x, int32_t g) {
  if (x->type.kind != FT_SEGDES)
    die("%s(%s, ...) on a %s", e->kind == LE_SEG_LENGTH ? "seg_length" : "seg_offset", e->var->name,
        rt_type_name(x->type));
  if (g < 0 || g >= x->len)
    rt_index_error(flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), k->soac->kind == SOAC_ONCE ? RT_ELT : RT_GATHER, g,
                   x->len);
  const int64_t *off = rt_seg_offsets(x);
  k->in->stats.bytes += e->kind == LE_SEG_LENGTH ? 2 * sizeof(int64_t) : sizeof(int64_t);
  return (int32_t)(e->kind == LE_SEG_LENGTH ? off[g + 1] - off[g] : off[g]);
}

/* x[i] for each lane: an index out of range is the flat GATHER's (or
   ELT's, under ONCE) error.  Lanes that read a slice of x read x itself
   (all of it) or one copy of the slice. */
static RtValue *eval_index(Kernel *k, const LcuExp *e, Local *env, int64_t n) {
  RtValue *v = using_var(k, e->var);
  if (v->type.kind != FT_VEC)
    die("%s[...] on a %s", e->var->name, rt_type_name(v->type));
  count_read(k, e, v, n);
  size_t size = rt_base_size(v->type.base);
  int64_t base;
  if (affine_index(k, e->args[0], env, &base) && base >= 0 && base + n <= v->len) {
    if (base == 0 && n == v->len)
      return v;
    RtValue *r = new_vec(v->type.base, n);
    memcpy(r->data.any, elem_at(v, base), size * (size_t)n);
    return r;
  }
  RtValue *idx = eval(k, e->args[0], env, n);
  if (idx->type.base != FB_INT)
    die("%s[...] with a %s index", e->var->name, rt_type_name(idx->type));
  RtValue *r = new_vec(v->type.base, n);
  for (int64_t j = 0; j < n; j++) {
    int32_t i = idx->data.i[j];
    if (i < 0 || i >= v->len)
      rt_index_error(flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), k->soac->kind == SOAC_ONCE ? RT_ELT : RT_GATHER,
                     i, v->len);
    copy_elem((char *)r->data.any + (size_t)j * size, elem_at(v, i), size);
  }
  return r;
}

static RtValue *eval_here(Kernel *k, const LcuExp *e, Local *env, int64_t n);

/* An expression that fusion moved out of a statement inlined from a
   library function into a run of other code (LcuExp.lib_fn) reports its
   errors as that statement would have: in the function, called at
   e->loc.  The context is the running frame's with the library call. */
static const RtContext *enter_library(const LcuExp *e, RtContext *moved) {
  const RtContext *ctx = rt_context();
  RtLoc call = flat_rt_loc(e->loc);
  *moved = rt_inlined_context(ctx, call.via); /* a call in an inlined user function */
  moved->lib_fn = e->lib_fn;
  moved->lib_call = call;
  rt_set_context(moved);
  return ctx;
}

/* Expression 'e' on n lanes, its parameters and lets in 'env'. */
static RtValue *eval(Kernel *k, const LcuExp *e, Local *env, int64_t n) {
  if (!e->lib_fn || (!LCU_READS_AT(e->kind) && e->kind != LE_BOUND && e->kind != LE_OP))
    return eval_here(k, e, env, n);
  RtContext moved;
  const RtContext *saved = enter_library(e, &moved);
  RtValue *r = eval_here(k, e, env, n);
  rt_set_context(saved);
  return r;
}

static RtValue *eval_here(Kernel *k, const LcuExp *e, Local *env, int64_t n) {
  switch (e->kind) {
  case LE_VAR: {
    Local *l = lookup(env, e->var);
    if (l)
      return local_value(l, n);
    RtValue *x = using_var(k, e->var);
    if (x->type.kind != FT_SCALAR)
      die("thunk variable %s is a %s", e->var->name, rt_type_name(x->type));
    return broadcast(x, n);
  }
  case LE_CONST:
    return broadcast(constant(k->in, &e->constant), n);
  case LE_INDEX:
    return eval_index(k, e, env, n);
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET: {
    RtValue *x = using_var(k, e->var);
    RtValue *g = eval(k, e->args[0], env, n);
    RtValue *r = new_vec(FB_INT, n);
    for (int64_t j = 0; j < n; j++)
      r->data.i[j] = seg_field(k, e, x, g->data.i[j]);
    return r;
  }
  case LE_LENGTH: {
    RtValue *x = using_var(k, e->var);
    if (x->type.kind != FT_VEC && x->type.kind != FT_SEGDES)
      die("#%s on a %s", e->var->name, rt_type_name(x->type));
    int32_t len = (int32_t)x->len;
    return fill(FB_INT, &len, n);
  }
  case LE_OP: {
    if (e->nargs < 1 || e->nargs > 3)
      die("%s with %d operands in a thunk", flat_op_name(e->op), e->nargs);
    RtValue *args[3];
    for (int i = 0; i < e->nargs; i++)
      args[i] = eval(k, e->args[i], env, n);
    const char *prim = k->prim ? k->prim(e->op, k->scan) : NULL;
    return rt_elementwise(flat_rt_op(e->op), flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), prim, args, e->nargs);
  }
  case LE_BOUND: {
    /* what is left of a read x[e] once fusion computes x's element: its
       check, in eval_index's words */
    RtValue *idx = eval(k, e->args[0], env, n);
    RtValue *len = eval(k, e->args[1], env, n);
    for (int64_t j = 0; j < n; j++)
      if (idx->data.i[j] < 0 || idx->data.i[j] >= len->data.i[j])
        rt_index_error(flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)),
                       k->soac->kind == SOAC_ONCE ? RT_ELT : RT_GATHER, idx->data.i[j], len->data.i[j]);
    return idx;
  }
  case LE_IF:
    return eval_if(k, e, env, n);
  case LE_LET: {
    Local bound = {e->var, eval(k, e->args[0], env, n), false, 0, env};
    return eval(k, e->args[1], &bound, n);
  }
  case LE_CALL: {
    /* the CPU function on each lane in turn: its errors are those of
       the first failing lane */
    RtValue **vals = xmalloc(sizeof(RtValue *) * (size_t)(e->nargs + 1));
    RtValue **one = xmalloc(sizeof(RtValue *) * (size_t)(e->nargs + 1));
    RtValue *lane = xmalloc(sizeof(RtValue) * (size_t)(e->nargs + 1)); /* lane j's arguments, in place */
    for (int i = 0; i < e->nargs; i++) {
      vals[i] = eval(k, e->args[i], env, n);
      one[i] = &lane[i];
    }
    RtValue *r = new_vec(e->type, n);
    size_t size = rt_base_size(flat_rt_base(e->type));
    Loc at = lcu_error_loc(e, k->soac, k->loc);
    for (int64_t j = 0; j < n; j++) {
      for (int i = 0; i < e->nargs; i++)
        flat_scalar_elem(&lane[i], vals[i], j);
      RtValue x;
      scalar_call(k->in, e->callee, one, at, &x);
      if (x.type.base != e->type)
        die("call of %s gives a %s", e->callee->name, rt_type_name(x.type));
      copy_elem((char *)r->data.any + (size_t)j * size, x.data.any, size);
    }
    return r;
  }
  }
  die("thunk expression kind %d", (int)e->kind);
}

/* Thunk 't' on n lanes: 'args' holds one n-vector per parameter, NULL
   for the index (lane j holds j); 'values' gets one n-vector per
   expression of its body. */
static void run_thunk(Kernel *k, const LcuThunk *t, RtValue **args, int nargs, int64_t n, RtValue **values) {
  if (!t)
    die("%s without a thunk it needs", lcu_soac_name(k->soac->kind));
  if (t->params.len != nargs)
    die("a thunk of %s with %d parameters for %d arguments", lcu_soac_name(k->soac->kind), t->params.len, nargs);
  Local *env = NULL;
  Local buf[SMALL];
  Local *locals = nargs <= SMALL ? buf : xmalloc(sizeof(Local) * (size_t)nargs);
  for (int i = 0; i < nargs; i++) {
    const LcuVar *p = t->params.data[i];
    RtValue *a = args[i];
    if (p->type.kind != LT_SCALAR || (a ? a->type.kind != FT_VEC || a->type.base != p->type.base || a->len != n
                                        : p->type.base != FB_INT))
      die("thunk parameter %s : %s gets a %s of %lld", p->name, type_name(p->type),
          a ? rt_type_name(a->type) : "index", a ? (long long)a->len : (long long)n);
    locals[i] = (Local){p, a, !a, 0, env};
    env = &locals[i];
  }
  const LcuThunk *saved = k->thunk;
  k->thunk = t;
  /* the shared lets, each over all the lanes before what follows */
  Local *lets = t->lets.len ? xmalloc(sizeof(Local) * (size_t)t->lets.len) : NULL;
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    lets[i] = (Local){l->var, eval(k, l->value, env, n), false, 0, env};
    env = &lets[i];
  }
  for (int i = 0; i < t->body.len; i++) {
    const LcuExp *e = t->body.data[i];
    values[i] = eval(k, e, env, n);
    if (values[i]->type.base != e->type)
      die("a thunk expression of type %s gives a %s", rt_type_name(rt_scalar_type((RtBase)e->type)),
          rt_type_name(values[i]->type));
  }
  k->thunk = saved;
}

/* A thunk on the indices 0 .. n-1 (its one parameter; a pull thunk may
   have none) into 'values'. */
static void on_indices(Kernel *k, const LcuThunk *t, int64_t n, RtValue **values) {
  if (!t)
    die("%s without a thunk it needs", lcu_soac_name(k->soac->kind));
  RtValue *index = NULL;
  run_thunk(k, t, &index, t->params.len == 0 && t == k->soac->pull ? 0 : 1, n, values);
}

static void pull(Kernel *k, int64_t n, RtValue **values) { on_indices(k, k->soac->pull, n, values); }

/* The pull over the n elements of sd 'd', given each element's segment
   (the ids a MAP over the elements would read from seg_ids) where it
   takes it (lcu_pull_takes_segment: SEG_MAP's, and a SEG_REDUCE's,
   SEG_SCAN's or counted SPLIT's that fusion/segmap.c gave it). */
static void pull_in_segments(Kernel *k, RtValue *d, int64_t n, RtValue **values) {
  if (!lcu_pull_takes_segment(k->soac)) {
    pull(k, n, values);
    return;
  }
  RtValue *args[2] = {NULL, rt_seg_ids(d)};
  run_thunk(k, k->soac->pull, args, 2, n, values);
}

/* The predicate of FILTER or PARTITION on the k pulled n-vectors. */
static RtValue *predicate(Kernel *k, RtValue **values, int nvalues, int64_t n) {
  const LcuThunk *t = k->soac->second;
  if (!t || t->body.len != 1)
    die("%s without a predicate of one result", lcu_soac_name(k->soac->kind));
  RtValue *r;
  run_thunk(k, t, values, nvalues, n, &r);
  if (r->type.base != FB_BOOL)
    die("a predicate of type %s", rt_type_name(r->type));
  return r;
}

/* ---- GPU level: a thunk on one lane ----
   REDUCE's and SCAN's operator runs once per element, in order, and
   ONCE's thunk once: on one lane, with scalars on the C stack, so that
   nothing is allocated per element. */

typedef struct One {
  const LcuVar *var;
  RtValue *value; /* a scalar */
  struct One *next;
} One;

/* Makes '*v' a scalar of base 'b' (its data is its own 'scalar'). */
static void scalar_init(RtValue *v, FlatBase b) {
  v->type = rt_scalar_type(flat_rt_base(b));
  v->len = 1;
  v->data.any = &v->scalar;
  v->lengths = v->offsets = NULL;
}

static void scalar_copy(RtValue *to, const RtValue *from) {
  if (from->type.kind != FT_SCALAR || from->type.base != to->type.base)
    die("a %s where a %s is wanted", rt_type_name(from->type), rt_type_name(to->type));
  copy_elem(to->data.any, from->data.any, rt_base_size(to->type.base));
}

static void eval1_here(Kernel *k, const LcuExp *e, One *env, RtValue *out);
static void eval1(Kernel *k, const LcuExp *e, One *env, RtValue *out);

/* Thunk t's shared lets on one lane, after 'env': their values into
   'vals', their bindings into 'ones' (t->lets.len of each); returns the
   environment of its results. */
static One *lets1(Kernel *k, const LcuThunk *t, One *env, RtValue *vals, One *ones) {
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    eval1(k, l->value, env, &vals[i]);
    ones[i] = (One){l->var, &vals[i], env};
    env = &ones[i];
  }
  return env;
}

/* Expression 'e' on one lane into '*out' (a RtValue the caller owns). */
static void eval1(Kernel *k, const LcuExp *e, One *env, RtValue *out) {
  if (!e->lib_fn || (!LCU_READS_AT(e->kind) && e->kind != LE_BOUND && e->kind != LE_OP)) {
    eval1_here(k, e, env, out);
    return;
  }
  RtContext moved;
  const RtContext *saved = enter_library(e, &moved);
  eval1_here(k, e, env, out);
  rt_set_context(saved);
}

static void eval1_here(Kernel *k, const LcuExp *e, One *env, RtValue *out) {
  scalar_init(out, e->type);
  switch (e->kind) {
  case LE_VAR: {
    for (One *o = env; o; o = o->next)
      if (o->var == e->var) {
        scalar_copy(out, o->value);
        return;
      }
    scalar_copy(out, using_var(k, e->var));
    return;
  }
  case LE_CONST: {
    const FlatAtom *c = &e->constant;
    switch (c->kind) {
    case FA_INT:
      out->scalar.i = c->u.i;
      break;
    case FA_FLOAT:
      out->scalar.f = c->u.f;
      break;
    case FA_BOOL:
      out->scalar.b = c->u.b;
      break;
    case FA_CHAR:
      out->scalar.c = c->u.c;
      break;
    case FA_VAR:
      die("a λcu constant that is a variable");
    }
    if (constant(k->in, c)->type.base != e->type)
      die("a constant of another type than its expression");
    return;
  }
  case LE_INDEX: {
    RtValue *v = using_var(k, e->var);
    if (v->type.kind != FT_VEC || v->type.base != e->type)
      die("%s[...] on a %s", e->var->name, rt_type_name(v->type));
    RtValue i;
    eval1(k, e->args[0], env, &i);
    if (i.type.base != FB_INT)
      die("%s[...] with a %s index", e->var->name, rt_type_name(i.type));
    if (i.scalar.i < 0 || i.scalar.i >= v->len)
      rt_index_error(flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), k->soac->kind == SOAC_ONCE ? RT_ELT : RT_GATHER,
                            i.scalar.i, v->len);
    k->in->stats.bytes += rt_base_size(v->type.base);
    copy_elem(out->data.any, elem_at(v, i.scalar.i), rt_base_size(v->type.base));
    return;
  }
  case LE_LENGTH: {
    RtValue *v = using_var(k, e->var);
    if (v->type.kind != FT_VEC && v->type.kind != FT_SEGDES)
      die("#%s on a %s", e->var->name, rt_type_name(v->type));
    out->scalar.i = (int32_t)v->len;
    return;
  }
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET: {
    RtValue g;
    eval1(k, e->args[0], env, &g);
    out->scalar.i = seg_field(k, e, using_var(k, e->var), g.scalar.i);
    return;
  }
  case LE_BOUND: {
    RtValue len;
    eval1(k, e->args[0], env, out);
    eval1(k, e->args[1], env, &len);
    if (out->scalar.i < 0 || out->scalar.i >= len.scalar.i)
      rt_index_error(flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), k->soac->kind == SOAC_ONCE ? RT_ELT : RT_GATHER,
                     out->scalar.i, len.scalar.i);
    return;
  }
  case LE_OP: {
    if (e->nargs < 1 || e->nargs > 3)
      die("%s with %d operands in a thunk", flat_op_name(e->op), e->nargs);
    RtValue a[3];
    RtValue *args[3];
    for (int i = 0; i < e->nargs; i++) {
      eval1(k, e->args[i], env, &a[i]);
      args[i] = &a[i];
    }
    const char *prim = k->prim ? k->prim(e->op, k->scan) : NULL;
    rt_elementwise_into(flat_rt_op(e->op), flat_rt_loc(lcu_error_loc(e, k->soac, k->loc)), prim, args, e->nargs,
                        out);
    return;
  }
  case LE_IF: {
    RtValue c;
    eval1(k, e->args[0], env, &c);
    if (c.type.base != FB_BOOL)
      die("if on a %s", rt_type_name(c.type));
    eval1(k, e->args[c.scalar.b ? 1 : 2], env, out);
    if (out->type.base != e->type)
      die("if: a branch of another type than the if");
    return;
  }
  case LE_LET: {
    RtValue v;
    eval1(k, e->args[0], env, &v);
    One bound = {e->var, &v, env};
    eval1(k, e->args[1], &bound, out);
    return;
  }
  case LE_CALL: {
    RtValue *a = xmalloc(sizeof(RtValue) * (size_t)(e->nargs + 1));
    RtValue **args = xmalloc(sizeof(RtValue *) * (size_t)(e->nargs + 1));
    for (int i = 0; i < e->nargs; i++) {
      eval1(k, e->args[i], env, &a[i]);
      args[i] = &a[i];
    }
    RtValue x;
    scalar_call(k->in, e->callee, args, lcu_error_loc(e, k->soac, k->loc), &x);
    scalar_copy(out, &x);
    return;
  }
  }
  die("thunk expression kind %d", (int)e->kind);
}

/* ---- kernel level: SOACs ---- */

/* The result vectors of a SOAC must be as many as its results. */
static int nvalues_of(Kernel *k, const LcuThunk *t) {
  if (!t)
    die("%s without a pull thunk", lcu_soac_name(k->soac->kind));
  return t->body.len;
}

/* The SOAC's size: a scalar, a vector's length, or a constant; a
   negative one is dist's error (see the top of the file). */
static int64_t soac_size(Kernel *k) {
  const LcuSize *s = &k->soac->size;
  int64_t n;
  if (s->var) {
    RtValue *v = kernel_var(k, s->var);
    if (!rt_type_equal(v->type, rt_scalar_type(RT_INT)))
      die("a SOAC size of type %s", rt_type_name(v->type));
    n = v->data.i[0];
  } else if (s->length) {
    RtValue *v = kernel_var(k, s->length);
    if (v->type.kind == FT_SCALAR)
      die("#%s on a scalar", s->length->name);
    n = v->len;
  } else {
    n = s->value;
  }
  if (n < 0)
    rt_fail(flat_rt_loc(k->loc), "dist", "dist: negative length %lld", (long long)n);
  return n;
}

static RtValue *soac_segdes(Kernel *k) {
  if (!k->soac->segdes)
    die("%s without a segment descriptor", lcu_soac_name(k->soac->kind));
  RtValue *d = kernel_var(k, k->soac->segdes);
  if (d->type.kind != FT_SEGDES)
    die("%s over a %s", lcu_soac_name(k->soac->kind), rt_type_name(d->type));
  return d;
}

/* PERMUTE and SEG_PERMUTE: Y[place(i)] = A(i) in order, Y a copy of
   'into' or fresh (zeroed) vectors of 'len'; 'off' (SEG_PERMUTE) gives
   the segments, within which the index thunk's places are local. */
static void permute(Kernel *k, int64_t n, const int64_t *off, int64_t nseg, int64_t len, RtValue **y) {
  const LcuSoac *s = k->soac;
  int nv = nvalues_of(k, s->pull);
  RtValue *xbuf[SMALL];
  RtValue **x = small_array(xbuf, nv);
  pull(k, n, x);
  if (!s->second || s->second->body.len != 1)
    die("%s without an index thunk of one result", lcu_soac_name(s->kind));
  RtValue *place[1];
  on_indices(k, s->second, n, place);
  if (place[0]->type.base != FB_INT)
    die("a PERMUTE index thunk of type %s", rt_type_name(place[0]->type));
  for (int v = 0; v < nv; v++) {
    y[v] = new_vec(x[v]->type.base, len);
    memset(y[v]->data.any, 0, rt_base_size(x[v]->type.base) * (size_t)len);
  }
  if (s->into) {
    RtValue *d = kernel_var(k, s->into);
    if (nv != 1 || d->type.kind != FT_VEC || d->type.base != x[0]->type.base || d->len != len)
      die("PERMUTE of %d values into a %s of %lld", nv, rt_type_name(d->type), (long long)d->len);
    memcpy(y[0]->data.any, d->data.any, rt_base_size(d->type.base) * (size_t)len);
  }
  int64_t seg = 0;
  for (int64_t j = 0; j < n; j++) {
    int64_t base = 0, room = len;
    if (off) {
      while (seg < nseg && off[seg + 1] <= j)
        seg++;
      base = off[seg];
      room = off[seg + 1] - off[seg];
    }
    int32_t to = place[0]->data.i[j];
    if (to < 0 || to >= room)
      rt_index_error(flat_rt_loc(k->loc), RT_SCATTER, to, room);
    for (int v = 0; v < nv; v++) {
      size_t size = rt_base_size(x[v]->type.base);
      copy_elem(elem_at(y[v], base + to), elem_at(x[v], j), size);
    }
  }
}

/* REDUCE, SCAN and their SEG_ forms: the operator folds the values
   'x' (nv vectors of off[nseg] elements) of each segment [off[g],
   off[g+1]) in order from the identity, as the flat interpreter's
   reductions do.  A reduction gives nv vectors of nseg values, a scan
   the nv vectors of each element's exclusive prefix. */
/* The primitive whose errors a + or * of a REDUCE's or SCAN's operator
   reports, as the flat REDUCE_ADD does (NULL for other operations). */
static const char *combine_prim(FlatOp op, bool scan) {
  if (op != FLAT_ADD && op != FLAT_MUL)
    return NULL;
  return rt_combine_prim(op == FLAT_ADD ? RC_ADD : RC_MUL, scan);
}

static void combine(Kernel *k, RtValue **x, int nv, const int64_t *off, int64_t nseg, bool scan, RtValue **out) {
  const LcuSoac *s = k->soac;
  const LcuThunk *op = s->second;
  if (!op)
    die("%s without an operator", lcu_soac_name(s->kind));
  if (s->identity.len != nv || op->params.len != 2 * nv || op->body.len != nv)
    die("%s of %d values with %d identities and an operator of %d parameters and %d results", lcu_soac_name(s->kind),
        nv, s->identity.len, op->params.len, op->body.len);
  RtValue *ids = xmalloc(sizeof(RtValue) * (size_t)(nv + 1));
  RtValue *acc = xmalloc(sizeof(RtValue) * (size_t)(nv + 1));
  RtValue *cur = xmalloc(sizeof(RtValue) * (size_t)(nv + 1));
  RtValue *next = xmalloc(sizeof(RtValue) * (size_t)(nv + 1));
  One *env = xmalloc(sizeof(One) * (size_t)(2 * nv + 1));
  RtValue *let_vals = xmalloc(sizeof(RtValue) * (size_t)(op->lets.len + 1));
  One *let_ones = xmalloc(sizeof(One) * (size_t)(op->lets.len + 1));
  for (int v = 0; v < nv; v++) {
    FlatBase b = x[v]->type.base;
    out[v] = new_vec(b, scan ? off[nseg] : nseg);
    scalar_init(&ids[v], b);
    scalar_copy(&ids[v], constant(k->in, s->identity.data[v]));
    scalar_init(&acc[v], b);
    scalar_init(&cur[v], b);
  }
  for (int p = 0; p < 2 * nv; p++) {
    const LcuVar *param = op->params.data[p];
    if (param->type.kind != LT_SCALAR || param->type.base != x[p % nv]->type.base)
      die("operator parameter %s : %s for values of type %s", param->name, type_name(param->type),
          rt_type_name(x[p % nv]->type));
    env[p] = (One){param, p < nv ? &acc[p] : &cur[p - nv], p + 1 < 2 * nv ? &env[p + 1] : NULL};
  }
  const LcuThunk *saved = k->thunk;
  k->thunk = op;
  k->prim = combine_prim;
  k->scan = scan;
  for (int64_t g = 0; g < nseg; g++) {
    for (int v = 0; v < nv; v++)
      scalar_copy(&acc[v], &ids[v]);
    for (int64_t j = off[g]; j < off[g + 1]; j++) {
      /* an element takes a hundred nanoseconds: Ctrl-C waited 11 s
         for sum({i * i : i in [0:100000000]}) (issue 38) */
      flat_exec_interrupted(k->loc);
      for (int v = 0; v < nv; v++) {
        size_t size = rt_base_size(acc[v].type.base);
        copy_elem(cur[v].data.any, elem_at(x[v], j), size);
        if (scan)
          copy_elem(elem_at(out[v], j), acc[v].data.any, size);
      }
      One *with = lets1(k, op, env, let_vals, let_ones);
      for (int v = 0; v < nv; v++)
        eval1(k, op->body.data[v], with, &next[v]);
      for (int v = 0; v < nv; v++)
        scalar_copy(&acc[v], &next[v]);
    }
    if (!scan)
      for (int v = 0; v < nv; v++)
        copy_elem(elem_at(out[v], g), acc[v].data.any, rt_base_size(acc[v].type.base));
  }
  k->thunk = saved;
  k->prim = NULL;
}

/* How many of flags[from .. to) are 'want'. */
static int64_t flags_in(const RtValue *flags, int64_t from, int64_t to, bool want) {
  int64_t c = 0;
  for (int64_t j = from; j < to; j++)
    c += (flags->data.b[j] != 0) == want;
  return c;
}

/* FILTER and PARTITION (and their SEG_ forms, with 'd' the sd): the
   values for which the predicate holds, then (PARTITION) the others;
   with a sd, each group is followed by its new sd.  A `joined`
   PARTITION gives each value's two groups appended. */
static void filter(Kernel *k, int64_t n, RtValue *d, bool partition, RtValue **out) {
  int nv = nvalues_of(k, k->soac->pull);
  RtValue *xbuf[SMALL];
  RtValue **x = small_array(xbuf, nv);
  pull(k, n, x);
  RtValue *flags = predicate(k, x, nv, n);
  int64_t yes = flags_in(flags, 0, n, true);
  if (partition && k->soac->joined) { /* each value's kept, then its others, in one */
    for (int v = 0; v < nv; v++) {
      RtValue *r = new_vec(x[v]->type.base, n);
      size_t size = rt_base_size(x[v]->type.base);
      int64_t at[2] = {yes, 0}; /* the others' place, the kept's */
      for (int64_t e = 0; e < n; e++) {
        int64_t *to = &at[flags->data.b[e] != 0];
        copy_elem((char *)r->data.any + (size_t)(*to)++ * size, elem_at(x[v], e), size);
      }
      out[v] = r;
    }
    return;
  }
  int at = 0;
  for (int pass = 0; pass < (partition ? 2 : 1); pass++) {
    bool want = pass == 0;
    for (int v = 0; v < nv; v++)
      out[at++] = pack(x[v], flags, want, want ? yes : n - yes);
    if (d) {
      const int64_t *off = rt_seg_offsets(d);
      RtValue *nd = rt_value_new(rt_segdes_type(), d->len);
      for (int64_t g = 0; g < d->len; g++)
        nd->lengths[g] = flags_in(flags, off[g], off[g + 1], want);
      out[at++] = nd;
    }
  }
}

/* SPLIT: each class's values where its flag holds (lcu.h), one pull of
   every element for all the classes. */
static void split(Kernel *k, int64_t n, RtValue **out) {
  const LcuSoac *s = k->soac;
  int nv = nvalues_of(k, s->pull);
  RtValue *xbuf[SMALL];
  RtValue **x = small_array(xbuf, nv);
  RtValue *d = s->segdes ? kernel_var(k, s->segdes) : NULL;
  const int64_t *off = d ? rt_seg_offsets(d) : NULL;
  if (d && off[d->len] != n)
    die("SPLIT of %lld elements counts a sd of %lld", (long long)n, (long long)off[d->len]);
  pull_in_segments(k, d, n, x);
  const LcuThunk *t = s->second;
  if (!t || t->body.len != s->classes)
    die("SPLIT of %d classes without a predicate of as many results", s->classes);
  RtValue *fbuf[SMALL];
  RtValue **flags = small_array(fbuf, s->classes);
  run_thunk(k, t, x, nv, n, flags);
  for (int c = 0, at = 0; c < s->classes; c++) {
    int64_t yes = flags_in(flags[c], 0, n, true);
    for (int v = 0; v < s->widths[c]; v++, at++)
      out[at] = pack(x[at], flags[c], true, yes);
  }
  if (!d)
    return;
  /* `counts sd`: each class's count in each segment */
  for (int c = 0; c < s->classes; c++) {
    RtValue *counts = rt_value_new(rt_vec_type(RT_INT), d->len);
    for (int64_t g = 0; g < d->len; g++)
      counts->data.i[g] = (int32_t)flags_in(flags[c], off[g], off[g + 1], true);
    out[nv + c] = counts;
    if (!s->offsets)
      continue;
    /* `offsets`: the counts' exclusive sum (their sum is the class's
       number of values, an int) */
    RtValue *offs = rt_value_new(rt_vec_type(RT_INT), d->len);
    int64_t sum = 0;
    for (int64_t g = 0; g < d->len; g++) {
      offs->data.i[g] = (int32_t)sum;
      sum += counts->data.i[g];
    }
    out[nv + s->classes + c] = offs;
  }
}

/* The flat operation of library kernel 'l'. */
static FlatOp library_op(LcuLibrary l) {
  switch (l) {
  case LIB_RANK:
    return FLAT_RANK;
  case LIB_RANK_DOWN:
    return FLAT_RANK_DOWN;
  case LIB_SEG_RANK:
    return FLAT_SEG_RANK;
  case LIB_SEG_RANK_DOWN:
    return FLAT_SEG_RANK_DOWN;
  case LIB_MAKE_SEGDES:
    return FLAT_MAKE_SEGDES;
  case LIB_SEG_LENGTHS:
    return FLAT_SEG_LENGTHS;
  case LIB_SEG_OFFSETS:
    return FLAT_SEG_OFFSETS;
  case LIB_SEG_IDS:
    return FLAT_SEG_IDS;
  case LIB_NAME:
    return FLAT_NAME;
  case LIB_EQL:
    return FLAT_EQL;
  case LIB_HASH:
    return FLAT_HASH;
  case LIB_RAND:
    return FLAT_RAND;
  case LIB_RANGE_SEGDES: /* run_library runs them */
  case LIB_LOOP:
  case LIB_COUNT:
    break;
  }
  die("λcu library kernel %d", (int)l);
}

static RtValue **call_func(LcuInterp *in, const LcuFunc *f, RtValue **args, Loc loc);

/* Segment j of vector 'v' as a vector of its own, in place: what an
   element function reads, and where it updates. */
static RtValue *segment_view(RtValue *v, int64_t off, int64_t len) {
  RtValue *view = NEW(RtValue);
  *view = *v;
  view->len = len;
  view->data.any = (char *)v->data.any + (size_t)off * rt_base_size(v->type.base);
  return view;
}

/* LIBRARY loop (lcu.h): the element function called on each element in
   turn, on its scalars and its segments, the vectors it updates copied
   first; the lowest element that fails stops the kernel. */
static void run_loop(Kernel *k, RtValue **args, RtValue **out) {
  const LcuSoac *s = k->soac;
  const LcuFunc *f = s->callee;
  int np = f->params.len;
  RtValue **vectors = xmalloc(sizeof(RtValue *) * (size_t)(np + 1)); /* a vector parameter's values, or NULL */
  RtValue **firsts = xmalloc(sizeof(RtValue *) * (size_t)(np + 1));  /* its sd, or a scalar's vector */
  bool *shared = xmalloc(sizeof(bool) * (size_t)(np + 1));
  int first = -1; /* a parameter that is not shared: the elements are its */
  for (int i = 0; i < np; i++) {
    const LcuVar *p = f->params.data[i];
    int a = lcu_loop_arg(s, i, &shared[i]);
    firsts[i] = args[a];
    vectors[i] = NULL;
    if (shared[i]) /* read whole by every element */
      continue;
    if (first < 0)
      first = i;
    if (p->type.kind == LT_VEC) {
      RtValue *v = args[a + 1];
      if (lcu_func_updates(f, p) || i == f->each_result) { /* the loop's own copy */
        RtValue *copy = rt_value_new(v->type, v->len);
        if (v->len)
          memcpy(copy->data.any, v->data.any, (size_t)v->len * rt_base_size(v->type.base));
        v = copy;
      }
      vectors[i] = v;
      rt_seg_offsets(firsts[i]);
      k->in->stats.bytes += value_bytes(v);
    }
  }
  int64_t n = first >= 0 ? firsts[first]->len : 0;
  /* the updated vector, or a vector of each scalar the function gives */
  int nr = f->each_result >= 0 ? 1 : f->body->results.len;
  for (int r = 0; r < nr; r++) {
    LcuType rt = lcu_atom_type(f->body->results.data[r]);
    out[r] = f->each_result >= 0 ? vectors[f->each_result] : rt_value_new(rt_vec_type(flat_rt_base(rt.base)), n);
  }
  RtValue **call = xmalloc(sizeof(RtValue *) * (size_t)(np + 1));
  for (int64_t j = 0; j < n; j++) {
    for (int i = 0; i < np; i++)
      call[i] = shared[i]   ? firsts[i]
                : vectors[i] ? segment_view(vectors[i], rt_seg_offsets(firsts[i])[j], firsts[i]->lengths[j])
                             : rt_scalar_at(firsts[i], j);
    RtValue **r = call_func(k->in, f, call, k->loc);
    for (int q = 0; f->each_result < 0 && q < nr; q++) {
      size_t size = rt_base_size(out[q]->type.base);
      memcpy((char *)out[q]->data.any + (size_t)j * size, r[q]->data.any, size);
    }
  }
  k->in->stats.elements += (uint64_t)out[0]->len;
}

/* A library kernel: the flat operation of the same name on its
   arguments, as the flat interpreter runs it. */
static void run_library(Kernel *k, RtValue **out) {
  const LcuSoac *s = k->soac;
  RtValue *buf[SMALL];
  RtValue **args = small_array(buf, s->args.len);
  for (int i = 0; i < s->args.len; i++)
    args[i] = kernel_var(k, s->args.data[i]);
  if (s->library == LIB_LOOP) {
    run_loop(k, args, out);
    return;
  }
  /* a segdes's last argument may be the total the compiler knows: the
     segdes made is checked against it */
  int nargs = s->args.len;
  RtValue *known_total = lcu_known_total(s) ? args[--nargs] : NULL;
  if (s->library == LIB_RANGE_SEGDES) { /* no flat operation of its own: seg_range's first half */
    if (nargs != 3 || s->results.len != 3)
      die("range_segdes of %d arguments and %d results", s->args.len, s->results.len);
    for (int i = 0; i < 3; i++)
      k->in->stats.bytes += value_bytes(args[i]);
    out[0] = rt_range_segdes(flat_rt_loc(k->loc), args[0], args[1], args[2], &out[1], &out[2]);
    if (known_total)
      rt_seg_known_total(out[0], known_total->scalar.i);
    k->in->stats.elements += (uint64_t)out[0]->len;
    return;
  }
  FlatStmt fs = {.kind = FS_OP,
                 .loc = k->loc,
                 .op = library_op(s->library),
                 .lifted = s->lifted,
                 .elem_name = s->elem_name,
                 .layout = s->layout,
                 .site = s->site};
  Vec *r = &k->in->results;
  r->len = 0;
  for (int i = 0; i < nargs; i++)
    k->in->stats.bytes += value_bytes(args[i]);
  flat_exec_op(&fs, args, nargs, r);
  if (known_total && r->len)
    rt_seg_known_total(r->data[0], known_total->scalar.i);
  if (r->len != s->results.len)
    die("library kernel %s gives %d values for %d results", lcu_library_name(s->library), r->len, s->results.len);
  if (r->len > 0) {
    RtValue *first = r->data[0];
    k->in->stats.elements += first->type.kind == FT_SCALAR ? 1 : (uint64_t)first->len;
  }
  for (int i = 0; i < r->len; i++)
    out[i] = r->data[i];
}

/* The number of results SOAC 's' gives for a pull thunk of 'nv' values
   (ORDER LCU RESULTS, at the top of the file). */
static int soac_results(const LcuSoac *s, int nv) {
  switch (s->kind) {
  case SOAC_PARTITION:
    return s->joined ? nv : 2 * nv;
  case SOAC_SEG_FILTER:
    return nv + 1;
  case SOAC_SEG_PARTITION:
    return 2 * nv + 2;
  case SOAC_SPLIT:
    return s->segdes ? nv + (s->offsets ? 2 : 1) * s->classes : nv;
  default:
    return nv;
  }
}

/* Runs SOAC 's' of a kernel whose frame is 'slots'; 'out' gets the
   values of its results. */
static void run_soac(LcuInterp *in, const LcuSoac *s, const Layout *layout, RtValue **slots, Loc loc,
                     RtValue **out) {
  Kernel k = {in, s, loc, layout, slots, NULL, NULL, false, 0, {0}};
  if (s->kind == SOAC_LIBRARY) {
    run_library(&k, out);
    return;
  }
  int nv = nvalues_of(&k, s->pull);
  if (soac_results(s, nv) != s->results.len)
    die("%s of %d values with %d results", lcu_soac_name(s->kind), nv, s->results.len);
  RtValue *xbuf[SMALL];
  RtValue **x = small_array(xbuf, nv);
  switch (s->kind) {
  case SOAC_MAP: {
    int64_t n = soac_size(&k);
    k.space = n;
    in->stats.elements += (uint64_t)n;
    pull(&k, n, out);
    return;
  }
  case SOAC_PERMUTE: {
    int64_t n = soac_size(&k);
    k.space = n;
    in->stats.elements += (uint64_t)n;
    permute(&k, n, NULL, 0, s->into ? kernel_var(&k, s->into)->len : n, out);
    return;
  }
  case SOAC_REDUCE:
  case SOAC_SCAN: {
    int64_t n = soac_size(&k);
    k.space = n;
    in->stats.elements += (uint64_t)n;
    int64_t off[2] = {0, n};
    pull(&k, n, x);
    /* the map columns are the last values, written as pulled */
    int scanned = nv - s->maps;
    combine(&k, x, scanned, off, 1, s->kind == SOAC_SCAN, out);
    for (int v = scanned; v < nv; v++)
      out[v] = x[v];
    if (s->kind == SOAC_REDUCE)
      for (int v = 0; v < scanned; v++)
        out[v] = scalar_at(out[v], 0);
    return;
  }
  case SOAC_FILTER:
  case SOAC_PARTITION: {
    int64_t n = soac_size(&k);
    k.space = n;
    in->stats.elements += (uint64_t)n;
    filter(&k, n, NULL, s->kind == SOAC_PARTITION, out);
    return;
  }
  case SOAC_SPLIT: {
    int64_t n = soac_size(&k);
    k.space = n;
    in->stats.elements += (uint64_t)n;
    split(&k, n, out);
    return;
  }
  case SOAC_ONCE: {
    in->stats.elements += 1;
    const LcuThunk *t = s->pull;
    if (t->params.len != 0)
      die("ONCE with a thunk of %d parameters", t->params.len);
    k.thunk = t;
    RtValue *let_vals = xmalloc(sizeof(RtValue) * (size_t)(t->lets.len + 1));
    One *let_ones = xmalloc(sizeof(One) * (size_t)(t->lets.len + 1));
    One *env = lets1(&k, t, NULL, let_vals, let_ones);
    for (int v = 0; v < nv; v++) {
      const LcuExp *e = t->body.data[v];
      out[v] = rt_value_new(rt_scalar_type(flat_rt_base(e->type)), 1);
      eval1(&k, e, env, out[v]);
    }
    return;
  }
  case SOAC_SEG_MAP: {
    RtValue *d = soac_segdes(&k);
    int64_t n = rt_seg_offsets(d)[d->len];
    k.space = n;
    in->stats.elements += (uint64_t)n;
    pull_in_segments(&k, d, n, out);
    return;
  }
  case SOAC_SEG_PERMUTE: {
    RtValue *d = soac_segdes(&k);
    const int64_t *off = rt_seg_offsets(d);
    int64_t n = off[d->len];
    k.space = n;
    in->stats.elements += (uint64_t)n;
    permute(&k, n, off, d->len, n, out);
    return;
  }
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN: {
    RtValue *d = soac_segdes(&k);
    const int64_t *off = rt_seg_offsets(d);
    int64_t n = off[d->len];
    k.space = n;
    in->stats.elements += (uint64_t)n;
    pull_in_segments(&k, d, n, x);
    combine(&k, x, nv, off, d->len, s->kind == SOAC_SEG_SCAN, out);
    return;
  }
  case SOAC_SEG_FILTER:
  case SOAC_SEG_PARTITION: {
    RtValue *d = soac_segdes(&k);
    int64_t n = rt_seg_offsets(d)[d->len];
    k.space = n;
    in->stats.elements += (uint64_t)n;
    filter(&k, n, d, s->kind == SOAC_SEG_PARTITION, out);
    return;
  }
  case SOAC_LIBRARY:
  case SOAC_COUNT:
    break;
  }
  die("SOAC kind %d", (int)s->kind);
}

/* `run K args` at 'loc': binds K's parameters, runs its SOACs in order,
   and binds 'results' (of the code running K) to the values of K's
   results.  Errors are reported at 'loc': kernels that come out equal
   are made once and shared by their runs (lower.c), so that a SOAC's
   own location is that of the first. */
static void run_kernel(LcuInterp *in, const LcuKernel *k, RtValue **args, int nargs, Loc loc, const Vec *results) {
  if (nargs != k->params.len)
    die("run %s with %d arguments for %d parameters", k->name, nargs, k->params.len);
  if (results->len != k->results.len)
    die("run %s with %d results for %d", k->name, results->len, k->results.len);
  Layout *layout = kernel_layout(in, k);
  RtValue *buf[4 * SMALL];
  RtValue **slots =
      layout->nslots <= 4 * SMALL ? buf : xmalloc(sizeof(RtValue *) * (size_t)(layout->nslots + 1));
  memset(slots, 0, sizeof(RtValue *) * (size_t)layout->nslots);
  for (int i = 0; i < nargs; i++) {
    const LcuVar *p = k->params.data[i];
    check_fits(p, args[i]);
    slots[slot_in(layout, p)] = args[i];
  }
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    RtValue *outbuf[SMALL];
    RtValue **out = small_array(outbuf, s->results.len);
    run_soac(in, s, layout, slots, loc, out);
    for (int r = 0; r < s->results.len; r++) {
      const LcuVar *v = s->results.data[r];
      check_fits(v, out[r]);
      in->stats.bytes += value_bytes(out[r]);
      slots[slot_in(layout, v)] = out[r];
    }
  }
  for (int i = 0; i < k->results.len; i++) {
    const LcuVar *v = k->results.data[i];
    int slot = slot_in(layout, v);
    RtValue *x = slot >= 0 ? slots[slot] : NULL;
    if (!x)
      die("%s returns %s, which it does not bind", k->name, v->name);
    bind(in, results->data[i], x);
  }
}

/* ---- CPU level: statements ---- */

/* Calls 'f' with 'args' (one value per parameter) from 'loc': a call
   statement's, or a thunk's call (LE_CALL); returns its body's results. */
static RtValue **call_func(LcuInterp *in, const LcuFunc *f, RtValue **args, Loc loc) {
  if (!f || !f->body)
    die("a call without a callee");
  Layout *layout = block_layout(in, f, &f->params, f->body);
  analyse(in, f->body, &f->params);
  RtValue **slots = xmalloc(sizeof(RtValue *) * (size_t)(layout->nslots + 1));
  for (int i = 0; i < f->params.len; i++) {
    const LcuVar *param = f->params.data[i];
    check_fits(param, args[i]);
    slots[slot_in(layout, param)] = args[i];
  }
  rt_check_stack(flat_rt_loc(loc));
  const RtContext *caller = rt_context();
  Frame *parent = in->frame;
  Frame frame = {f, layout, slots, parent, flat_call_context(caller, func_source(f), f->library, loc)};
  in->frame = &frame;
  rt_set_context(&frame.context);
  RtValue **results = run_block(in, f->body, f->loc);
  in->frame = parent;
  rt_set_context(caller);
  return results;
}

/* ---- scalar functions on one lane ----
   A thunk's call (LE_CALL) runs its scalar function once per lane, on
   scalars in place, by flat_exec.c's flat_scalar_call, which runs the
   flat interpreter's `call each` too: λcu's CPU level is the flat IR's
   statement language, so a scalar function goes to it as the flat
   function it reads as, made the first time it is called.  Its
   variables are numbered from 0 in the order they are bound, and the
   numbers are their slots. */

typedef struct ScalarFunc {
  FlatFunc *flat;
  int nslots;
  int *slot_of; /* the identity: a variable's number is its slot */
} ScalarFunc;

/* A scalar function being made: its variables so far. */
typedef struct ScalarMaker {
  LcuInterp *in;
  const LcuFunc *f;
  PtrMap vars; /* LcuVar -> its FlatVar */
  int n;
} ScalarMaker;

static ScalarFunc *scalar_func(LcuInterp *in, const LcuFunc *f);

static FlatVar *scalar_bind(ScalarMaker *m, const LcuVar *v) {
  FlatVar *fv = NEW(FlatVar);
  fv->id = m->n++;
  fv->hint = v->name;
  fv->type = lcu_flat_type(v->type);
  ptrmap_put(&m->vars, v, fv);
  return fv;
}

static FlatAtom *scalar_read(ScalarMaker *m, const LcuAtom *a) {
  if (!a->var) {
    FlatAtom *c = NEW(FlatAtom);
    *c = a->constant;
    return c;
  }
  FlatVar *v = ptrmap_get(&m->vars, a->var);
  if (!v)
    die("scalar function %s reads %s, which it does not bind", m->f->name, a->var->name);
  return flat_var_atom(v);
}

/* Block 'b' of a scalar function as a flat block: LS_SCALAR is FS_OP,
   LS_IF FS_IF, LS_CALL FS_CALL of the callee's flat function. */
static FlatBlock *scalar_block(ScalarMaker *m, const LcuBlock *b) {
  FlatBlock *fb = NEW(FlatBlock);
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    FlatStmt *fs = NEW(FlatStmt);
    fs->loc = s->loc;
    for (int k = 0; k < s->args.len; k++)
      vec_push(&fs->args, scalar_read(m, s->args.data[k]));
    switch (s->kind) {
    case LS_SCALAR:
      fs->kind = FS_OP;
      fs->op = s->op;
      break;
    case LS_IF:
      fs->kind = FS_IF;
      fs->then = scalar_block(m, s->then);
      fs->els = scalar_block(m, s->els);
      break;
    case LS_CALL:
      fs->kind = FS_CALL;
      fs->callee = scalar_func(m->in, s->callee)->flat;
      break;
    default:
      die("scalar function %s has a statement of kind %d", m->f->name, (int)s->kind);
    }
    for (int k = 0; k < s->results.len; k++)
      vec_push(&fs->results, scalar_bind(m, s->results.data[k]));
    vec_push(&fb->stmts, fs);
  }
  for (int i = 0; i < b->results.len; i++)
    vec_push(&fb->results, scalar_read(m, b->results.data[i]));
  return fb;
}

/* The flat function scalar function 'f' reads as, made once (before its
   body, which may call it).  in->scalar_funcs has it under 'f' and under
   its flat function. */
static ScalarFunc *scalar_func(LcuInterp *in, const LcuFunc *f) {
  void **slot = ptrmap_slot(&in->scalar_funcs, f, true);
  if (*slot)
    return *slot;
  if (!f->body)
    die("a call without a callee");
  ScalarFunc *sf = NEW(ScalarFunc);
  *slot = sf;
  FlatFunc *ff = NEW(FlatFunc);
  ff->name = f->name;
  ff->loc = f->loc;
  ff->library = f->library;
  ff->source = f->source;
  sf->flat = ff;
  ptrmap_put(&in->scalar_funcs, ff, sf);
  ScalarMaker m = {in, f, {0}, 0};
  for (int i = 0; i < f->params.len; i++)
    vec_push(&ff->params, scalar_bind(&m, f->params.data[i]));
  ff->body = scalar_block(&m, f->body);
  sf->nslots = m.n;
  sf->slot_of = xmalloc_atomic(sizeof(int) * (size_t)(m.n + 1));
  for (int i = 0; i < m.n; i++)
    sf->slot_of[i] = i;
  return sf;
}

static int scalar_layout(void *ctx, const FlatFunc *f, const int **slot_of) {
  ScalarFunc *sf = ptrmap_get(&((LcuInterp *)ctx)->scalar_funcs, f);
  if (!sf)
    die("scalar function %s was not made", f->name);
  *slot_of = sf->slot_of;
  return sf->nslots;
}

/* Scalar function 'f' on the scalars 'args', called at 'loc', into
   '*out'. */
static void scalar_call(LcuInterp *in, const LcuFunc *f, RtValue **args, Loc loc, RtValue *out) {
  FlatScalarEnv env = {in, scalar_layout, NULL, NULL};
  flat_scalar_call(&env, scalar_func(in, f)->flat, args, loc, out);
}

static void run_call(LcuInterp *in, const LcuStmt *s) {
  const LcuFunc *f = s->callee;
  if (!f || !f->body)
    die("a call without a callee");
  if (s->args.len != f->params.len)
    die("call of %s with %d arguments for %d parameters", f->name, s->args.len, f->params.len);
  RtValue **results = call_func(in, f, atom_values(in, &s->args, s->loc, NULL), s->loc);
  bind_all(in, &s->results, results, f->body->results.len, f->name);
}

/* A host statement: the operation of its flat statement (with the
   details that statement gives: its prim, types, lifted flag) on the
   statement's own arguments.  A statement without results only checks
   (RANGE's). */
__attribute__((noinline)) static void run_host(LcuInterp *in, const LcuStmt *s) {
  const FlatStmt *fs = s->flat;
  if (!fs || fs->kind != FS_OP)
    die("a host statement without its flat operation");
  RtValue *buf[SMALL];
  Vec *r = &in->results;
  r->len = 0;
  flat_exec_op(fs, atom_values(in, &s->args, s->loc, buf), s->args.len, r);
  if (s->results.len == 0)
    return;
  bind_all(in, &s->results, (RtValue **)r->data, r->len, flat_op_name(fs->op));
}

static void run_length(LcuInterp *in, const LcuStmt *s) {
  if (s->args.len != 1)
    die("a length of %d arguments", s->args.len);
  RtValue *v = atom_value(in, s->args.data[0], s->loc);
  int64_t n;
  switch (s->length) {
  case LEN_VECTOR:
    if (v->type.kind != FT_VEC)
      die("the length of a %s", rt_type_name(v->type));
    n = v->len;
    break;
  case LEN_SEGMENTS:
  case LEN_TOTAL:
    if (v->type.kind != FT_SEGDES)
      die("the segments of a %s", rt_type_name(v->type));
    n = s->length == LEN_SEGMENTS ? v->len : rt_seg_offsets(v)[v->len];
    break;
  default:
    die("length kind %d", (int)s->length);
  }
  RtValue *r = rt_int((int32_t)n);
  bind_all(in, &s->results, &r, 1, "a length");
}

/* The statements that call nothing keep their arrays on the stack, in
   frames of their own (noinline): the frames of the recursion (run_stmt,
   run_call, run_block) stay small, and hold no stale pointers for the
   collector to mistake for live ones. */

__attribute__((noinline)) static void run_scalar(LcuInterp *in, const LcuStmt *s) {
  FlatStmt fs = {.kind = FS_OP, .loc = s->loc, .op = s->op};
  const FlatStmt *op = s->flat && s->flat->op == s->op ? s->flat : &fs;
  if (s->op == FLAT_RAND && op == &fs)
    die("a scalar rand without its flat statement (its site)");
  if (s->op > FLAT_COPY)
    die("%s is not a scalar operation", flat_op_name(s->op));
  RtValue *buf[SMALL];
  Vec *r = &in->results;
  r->len = 0;
  flat_exec_op(op, atom_values(in, &s->args, s->loc, buf), s->args.len, r);
  bind_all(in, &s->results, (RtValue **)r->data, r->len, flat_op_name(s->op));
}

__attribute__((noinline)) static void run_run(LcuInterp *in, const LcuStmt *s) {
  if (!s->kernel)
    die("a run without a kernel");
  in->stats.runs++;
  RtValue *buf[SMALL];
  run_kernel(in, s->kernel, atom_values(in, &s->args, s->loc, buf), s->args.len, s->loc, &s->results);
}

/* NESL's argument check on scalars (rt/error.c words it). */
static void run_check(LcuInterp *in, const LcuStmt *s) {
  int64_t ops[3] = {0, 0, 0};
  for (int i = 0; i < s->args.len && i < 3; i++)
    ops[i] = atom_value(in, s->args.data[i], s->loc)->scalar.i;
  rt_check(s->check, flat_rt_loc(s->loc), ops[0], ops[1], ops[2]);
}

/* The length of a vector about to be made, in 64 bits (rt/vector.c
   checks it as the flat interpreter's range and append do). */
static void run_size(LcuInterp *in, const LcuStmt *s) {
  int64_t ops[3] = {0, 0, 0};
  for (int i = 0; i < s->args.len && i < 3; i++)
    ops[i] = atom_value(in, s->args.data[i], s->loc)->scalar.i;
  RtLoc loc = flat_rt_loc(s->loc);
  int32_t n = s->size == SIZE_RANGE ? rt_range_size(loc, (int32_t)ops[0], (int32_t)ops[1], (int32_t)ops[2])
                                    : rt_append_size(loc, ops[0], ops[1]);
  RtValue *r = rt_int(n);
  bind_all(in, &s->results, &r, 1, "a size");
}

/* NESL's cost model (docs/cost.md): flat_exec.c counts it, as for the
   flat interpreter. */
__attribute__((noinline)) static void run_cost(LcuInterp *in, const LcuStmt *s) {
  RtValue *buf[SMALL];
  flat_cost_run(&in->costs, (FlatCostRule)s->cost_rule, s->lifted, atom_values(in, &s->args, s->loc, buf), s->args.len,
                s->loc);
}

static void run_stmt_here(LcuInterp *in, const LcuStmt *s) {
  switch (s->kind) {
  case LS_CHECK:
    run_check(in, s);
    return;
  case LS_SIZE:
    run_size(in, s);
    return;
  case LS_SCALAR:
    run_scalar(in, s);
    return;
  case LS_RUN:
    run_run(in, s);
    return;
  case LS_CALL:
    run_call(in, s);
    return;
  case LS_IF: {
    const LcuBlock *b = flat_exec_cond(atom_value(in, s->args.data[0], s->loc)) ? s->then : s->els;
    bind_all(in, &s->results, run_block(in, b, s->loc), b->results.len, "if");
    return;
  }
  case LS_TIME: {
    double start = flat_exec_clock();
    int n = s->body->results.len;
    bind_all(in, &s->results, flat_exec_timed(run_block(in, s->body, s->loc), n, start), n + 1, "time");
    return;
  }
  case LS_LENGTH:
    run_length(in, s);
    return;
  case LS_ELT:
  case LS_UPDATE: { /* an element function's: in place, in its own vector */
    RtValue *v = atom_value(in, s->args.data[0], s->loc);
    RtValue *i = atom_value(in, s->args.data[1], s->loc);
    int64_t at = i->scalar.i;
    rt_check(s->kind == LS_ELT ? RT_CHECK_SUBSCRIPT : RT_CHECK_REP, flat_rt_loc(s->loc), at, v->len, 0);
    size_t size = rt_base_size(v->type.base);
    char *place = (char *)v->data.any + (size_t)at * size;
    if (s->kind == LS_UPDATE) {
      memcpy(place, &atom_value(in, s->args.data[2], s->loc)->scalar, size);
      return;
    }
    RtValue *x = rt_value_new(rt_scalar_type(v->type.base), 1);
    memcpy(&x->scalar, place, size);
    bind(in, s->results.data[0], x);
    return;
  }
  case LS_HOST:
    run_host(in, s);
    return;
  case LS_COST:
    if (in->cost)
      run_cost(in, s);
    return;
  }
  die("statement kind %d", (int)s->kind);
}

/* A statement inlined from a library function (lcu.h, LcuStmt.lib_fn)
   reports its errors as in that function, called at s->user_loc, unless
   the code running is the library's already. */
static void run_stmt(LcuInterp *in, const LcuStmt *s) {
  flat_exec_poll(s->loc);
  const RtContext *ctx = rt_context();
  if (!s->lib_fn || (ctx && ctx->lib_fn)) {
    run_stmt_here(in, s);
    return;
  }
  RtContext inlined;
  rt_enter_library(&inlined, s->lib_fn, flat_rt_loc(s->user_loc));
  run_stmt_here(in, s);
  rt_set_context(ctx);
}

/* ---- freeing values after their last use ----
   As in flat_interp.c: the variables a block binds (and a function's
   parameters) are cleared from the frame after the statement that reads
   them last, so that a deep host recursion does not keep every level's
   vectors alive. */

/* Works out, once per block, which of the variables it binds (and of
   'params', for a function's body) die after which of its statements
   (lcu_last_uses); globals never do. */
static void analyse(LcuInterp *in, const LcuBlock *b, const Vec *params) {
  void **done = ptrmap_slot(&in->analysed, b, true);
  if (*done)
    return;
  *done = (void *)1;
  Vec *dead = lcu_last_uses(b, params, NULL);
  for (int i = 0; i < b->stmts.len; i++) {
    for (int k = 0; k < dead[i].len; k++) {
      const LcuVar *v = dead[i].data[k];
      ensure_var_tables(in, v->id);
      if (in->is_global[v->id])
        continue;
      void **d = ptrmap_slot(&in->dead_after, b->stmts.data[i], true);
      if (!*d)
        *d = NEW(Vec);
      vec_push(*d, (void *)v);
    }
  }
}

static void clear_dead(LcuInterp *in, const LcuStmt *s) {
  void **p = ptrmap_slot(&in->dead_after, s, false);
  if (!p || !*p || !in->frame)
    return;
  Vec *vars = *p;
  for (int i = 0; i < vars->len; i++) {
    int slot = slot_in(in->frame->layout, vars->data[i]);
    if (slot >= 0)
      in->frame->slots[slot] = NULL;
  }
}

/* Runs 'b' in the current frame; returns its results' values.  'loc' is
   that of the statement, function or top-level statement that owns it. */
static RtValue **run_block(LcuInterp *in, const LcuBlock *b, Loc loc) {
  if (!b)
    die("a missing block");
  analyse(in, b, NULL);
  for (int i = 0; i < b->stmts.len; i++) {
    run_stmt(in, b->stmts.data[i]);
    clear_dead(in, b->stmts.data[i]);
  }
  return atom_values(in, &b->results, loc, NULL);
}

/* ---- the top level ---- */

LcuInterp *lcu_interp_new(LcuProgram *p, FILE *out) {
  LcuInterp *in = NEW(LcuInterp);
  in->p = p;
  in->out = out;
  flat_exec_use_gc();
  rt_set_output(out);
  return in;
}

void lcu_interp_set_cost(LcuInterp *in, bool on) { in->cost = on; }

void lcu_interp_set_quiet(LcuInterp *in, bool on) { in->quiet = on; }

LcuStats lcu_interp_stats(LcuInterp *in) {
  LcuStats st = in->stats;
  st.kernels = in->p->kernels.len;
  return st;
}

/* Runs the block of the statement running, on a frame of its own, and
   returns the components of its value. */
static RtValue **run_top_block(void *ctx, int *n) {
  LcuInterp *in = ctx;
  LcuTop *top = in->top;
  if (!top->body)
    die("a top-level binding or expression without a block");
  Layout *layout = block_layout(in, top, NULL, top->body);
  Frame frame = {NULL, layout, xmalloc(sizeof(RtValue *) * (size_t)(layout->nslots + 1)), NULL, top_context};
  in->frame = &frame;
  rt_set_context(NULL);
  RtValue **results = run_block(in, top->body, top->flat->loc);
  in->frame = NULL;
  *n = top->body->results.len;
  return results;
}

static void top_stopped(void *ctx) {
  LcuInterp *in = ctx;
  in->frame = NULL;
}

/* Global 'index' of the running statement's defines: its name, and its
   value unless NULL. */
static void define_global(void *ctx, int index, const char *name, RtValue *value) {
  LcuInterp *in = ctx;
  const LcuVar *g = in->top->defines.data[index];
  mark_global(in, g);
  if (name)
    in->global_names[g->id] = name;
  if (!value)
    return;
  check_fits(g, value);
  in->globals[g->id] = value;
}

/* The running binding stopped: its globals keep the values of those they
   replace (LcuTop.replaced). */
static void keep_replaced(void *ctx) {
  LcuInterp *in = ctx;
  for (int i = 0; i < in->top->replaced.len; i++) {
    const LcuVar *old = in->top->replaced.data[i], *g = in->top->defines.data[i];
    if (!old)
      continue;
    mark_global(in, old);
    if (in->globals[old->id] && !in->globals[g->id])
      in->globals[g->id] = in->globals[old->id];
  }
}

bool lcu_interp_run_top(LcuInterp *in, LcuTop *top) {
  if (!top->flat)
    die("a λcu top-level statement without its flat one");
  if (top->flat->kind == FLAT_TOP_BIND && top->defines.len != top->flat->defines.len)
    die("a binding of %d globals for the flat IR's %d", top->defines.len, top->flat->defines.len);
  /* globals are readable from every function: mark those lowered since */
  for (; in->globals_seen < in->p->globals.len; in->globals_seen++)
    mark_global(in, in->p->globals.data[in->globals_seen]);
  for (int i = 0; i < top->defines.len; i++)
    mark_global(in, top->defines.data[i]);
  FlatTopHooks hooks = {in, run_top_block, top_stopped, define_global, keep_replaced, in->quiet};
  in->top = top;
  flat_cost_begin(&in->costs);
  bool ok = flat_exec_run_top(top->flat, &hooks);
  in->top = NULL;
  FlatTopKind kind = top->flat->kind;
  if (ok && in->cost && !top->flat->library && (kind == FLAT_TOP_BIND || kind == FLAT_TOP_EXPR)) {
    fprintf(rt_output(), "cost: work %llu, depth %llu\n", (unsigned long long)in->costs.work,
            (unsigned long long)in->costs.clock);
    fflush(rt_output());
  }
  return ok;
}
