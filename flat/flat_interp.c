/*
 * flat_interp.c: the flat IR's interpreter (`--interp=flat`), the
 * reference semantics of flattened code against which the later stages
 * are tested.
 *
 * Every operation works on whole vectors at once: its statement's
 * arguments are looked up and handed to flat_exec.c, which runs the
 * operations for this interpreter and λcu's (and their scalar functions,
 * a `call each`'s here).  Nested NESL values are never rebuilt to run an
 * operation.
 *
 * Control stays on the host: an `if` runs one branch, a call runs its
 * callee's block in a new frame (an array of values indexed by a slot
 * number each variable gets once per function), and NESL recursion is C
 * recursion, stopped with a run-time error before the stack runs out.
 *
 * Errors go through the runtime's rt_fail (rt/error.c): each
 * frame works out, as it is pushed, the error context of the code it
 * runs (the library function the user's code entered, the innermost
 * user function and the outermost user call of the statement), so that
 * a message reads exactly as the evaluator's would.
 */
#include <string.h>

#include "flat.h"

/* ---- the interpreter's state ---- */

/* A function's (or a top-level block's) frame layout: each variable it
   binds has a slot. */
typedef struct FrameLayout {
  int nslots;
} FrameLayout;

/* One running function, or the top-level block (func NULL), with the
   context of the errors raised in it. */
typedef struct Frame {
  const FlatFunc *func;
  RtValue **slots;
  struct Frame *parent;
  RtContext context;
} Frame;

struct FlatInterp {
  FlatProgram *p;
  FILE *out;
  FlatStats stats;
  RtValue **globals;        /* by variable id; NULL until defined */
  const char **global_names;  /* by variable id: the NESL variable a
                                 global is (part of), for messages */
  int *slot_of;               /* by variable id: its slot in its frame */
  int var_cap;                /* the size of the tables by variable id */
  PtrMap layouts;             /* FlatFunc or FlatTop -> FrameLayout */
  Frame *frame;
  FlatTop *top;               /* the statement running */
  PtrMap dead_after;          /* FlatStmt -> Vec * of the slots of the
                                 variables whose last use it is */
  PtrMap block_done;          /* FlatBlock -> non-NULL once analysed */
  Vec results;                /* RtValue *: an operation's, reused */
  int depth;
  FlatScalarEnv scalar_env;   /* for flat_scalar_call: 'layouts', 'stats' */
  bool cost;                  /* --cost: FS_COST statements are run */
  FlatCost costs;             /* the statement's work and depth so far */
  bool quiet;                 /* values are not printed (the REPL's :cost) */
};

static RtValue **run_block(FlatInterp *in, const FlatBlock *b, Loc loc);
static void analyse_params(FlatInterp *in, const FlatFunc *f);

static const char *func_source(const FlatFunc *f) { return f->source ? f->source : f->name; }

/* ---- variables ---- */

static void ensure_var_tables(FlatInterp *in, int id) {
  if (id < in->var_cap)
    return;
  int cap = in->var_cap ? in->var_cap : 256;
  while (cap <= id || cap < in->p->next_var)
    cap *= 2;
  int *slots = xmalloc_atomic(sizeof(int) * (size_t)cap);
  RtValue **globals = xmalloc(sizeof(RtValue *) * (size_t)cap);
  const char **names = xmalloc(sizeof(char *) * (size_t)cap);
  if (in->var_cap) { /* (memcpy must not see the first tables' NULL) */
    memcpy(slots, in->slot_of, sizeof(int) * (size_t)in->var_cap);
    memcpy(globals, in->globals, sizeof(RtValue *) * (size_t)in->var_cap);
    memcpy(names, in->global_names, sizeof(char *) * (size_t)in->var_cap);
  }
  for (int i = in->var_cap; i < cap; i++)
    slots[i] = -1;
  in->slot_of = slots;
  in->globals = globals;
  in->global_names = names;
  in->var_cap = cap;
}

static void assign_slot(FlatInterp *in, const FlatVar *v, FrameLayout *layout) {
  if (v->id < 0)
    die("variable with negative id %d", v->id);
  ensure_var_tables(in, v->id);
  in->slot_of[v->id] = layout->nslots++;
}

static void layout_block(FlatInterp *in, const FlatBlock *b, FrameLayout *layout) {
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    for (int r = 0; r < s->results.len; r++)
      assign_slot(in, s->results.data[r], layout);
    if (s->then)
      layout_block(in, s->then, layout);
    if (s->els)
      layout_block(in, s->els, layout);
    if (s->body)
      layout_block(in, s->body, layout);
  }
}

/* The frame layout of function 'f' (params: its parameters) or of a
   top-level block, made the first time it runs. */
static FrameLayout *frame_layout(FlatInterp *in, const void *owner, const Vec *params, const FlatBlock *body) {
  void **slot = ptrmap_slot(&in->layouts, owner, true);
  if (!*slot) {
    FrameLayout *layout = NEW(FrameLayout);
    if (params)
      for (int i = 0; i < params->len; i++)
        assign_slot(in, params->data[i], layout);
    layout_block(in, body, layout);
    *slot = layout;
  }
  return *slot;
}

static const char *var_name(const FlatVar *v) {
  return v->hint ? xprintf("%s_%d", v->hint, v->id) : xprintf("x%d", v->id);
}

static void bind(FlatInterp *in, const FlatVar *v, RtValue *value) {
  if (!rt_type_equal(flat_rt_type(v->type), value->type))
    die("%s : %s gets a %s", var_name(v), flat_type_name(v->type), rt_type_name(value->type));
  ensure_var_tables(in, v->id);
  if (v->global) {
    in->globals[v->id] = value;
    return;
  }
  int slot = in->slot_of[v->id];
  if (slot < 0)
    die("%s has no slot in this frame", var_name(v));
  in->frame->slots[slot] = value;
}

static RtValue *atom_value(FlatInterp *in, const FlatAtom *a, Loc loc) {
  if (a->kind != FA_VAR)
    return flat_exec_constant(a);
  const FlatVar *v = a->u.var;
  ensure_var_tables(in, v->id);
  if (v->global) {
    RtValue *g = in->globals[v->id];
    if (!g) {
      const char *name = in->global_names[v->id] ? in->global_names[v->id] : v->hint ? v->hint : var_name(v);
      rt_undefined_error(flat_rt_loc(loc), name);
    }
    return g;
  }
  int slot = in->slot_of[v->id];
  RtValue *x = slot >= 0 ? in->frame->slots[slot] : NULL;
  if (!x)
    die("%s is used before it is bound", var_name(v));
  return x;
}

/* ---- operations ---- */

static void count_elements(FlatInterp *in, RtValue *v) {
  if (v->type.kind == RT_VEC)
    in->stats.elements += (uint64_t)v->len;
}

static void bind_results(FlatInterp *in, const FlatStmt *s, RtValue **values, int n) {
  if (n != s->results.len)
    die("%s gives %d values for %d results", s->kind == FS_OP ? flat_op_name(s->op) : "a statement", n,
        s->results.len);
  for (int i = 0; i < n; i++)
    bind(in, s->results.data[i], values[i]);
}

static void run_op(FlatInterp *in, const FlatStmt *s) {
  int n = s->args.len;
  RtValue **a = xmalloc(sizeof(RtValue *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    a[i] = atom_value(in, s->args.data[i], s->loc);
  in->stats.ops++;
  Vec *results = &in->results;
  results->len = 0;
  flat_exec_op(s, a, n, results);
  if (s->total)
    rt_seg_known_total(results->data[0], atom_value(in, s->total, s->loc)->scalar.i);
  bind_results(in, s, (RtValue **)results->data, results->len);
  for (int i = 0; i < results->len; i++)
    count_elements(in, results->data[i]);
}

/* ---- statements ---- */

/* Calls 'f' at statement 's' with 'args' (one value per parameter);
   returns its body's results. */
static RtValue **call_func(FlatInterp *in, const FlatStmt *s, const FlatFunc *f, RtValue **args) {
  FrameLayout *layout = frame_layout(in, f, &f->params, f->body);
  analyse_params(in, f);
  RtValue **slots = xmalloc(sizeof(RtValue *) * (size_t)(layout->nslots + 1));
  for (int i = 0; i < f->params.len; i++) {
    const FlatVar *param = f->params.data[i];
    RtValue *v = args[i];
    if (!rt_type_equal(flat_rt_type(param->type), v->type))
      die("call of %s: parameter %s gets a %s", f->name, var_name(param), rt_type_name(v->type));
    slots[in->slot_of[param->id]] = v;
  }
  rt_check_stack(flat_rt_loc(s->loc));
  in->stats.host_calls++;
  Frame *parent = in->frame;
  Frame frame = {f, slots, parent, flat_call_context(&parent->context, func_source(f), f->library, s->loc)};
  in->frame = &frame;
  rt_set_context(&frame.context);
  if (++in->depth > in->stats.max_depth)
    in->stats.max_depth = in->depth;
  RtValue **results = run_block(in, f->body, f->loc);
  in->depth--;
  in->frame = parent;
  rt_set_context(&parent->context);
  return results;
}

/* ---- scalar functions on each element ----
   flat_exec.c runs them (flat_scalar_call), with the slots of this
   interpreter's frame layouts. */

static int scalar_layout(void *ctx, const FlatFunc *f, const int **slot_of) {
  FlatInterp *in = ctx;
  FrameLayout *layout = frame_layout(in, f, &f->params, f->body);
  *slot_of = in->slot_of;
  return layout->nslots;
}

/* A call with 'each' (flat.h): the scalar function on each element of
   its vector arguments, in order, into one vector. */
static RtValue **call_each(FlatInterp *in, const FlatStmt *s, const FlatFunc *f, RtValue **vectors) {
  int n = f->params.len;
  int64_t len = n ? vectors[0]->len : 0;
  FlatType rt = *(FlatType *)f->result_types.data[0];
  RtValue *out = rt_value_new(rt_vec_type(flat_rt_base(rt.base)), len);
  size_t size = rt_base_size(flat_rt_base(rt.base));
  RtValue **args = xmalloc(sizeof(RtValue *) * (size_t)(n + 1));
  RtValue *element = xmalloc(sizeof(RtValue) * (size_t)(n + 1)); /* element j's arguments, in place */
  for (int i = 0; i < n; i++) {
    if (vectors[i]->type.kind != RT_VEC || vectors[i]->len != len)
      die("call of each %s: argument %d is a %s of %lld, not a vector of %lld", f->name, i + 1,
          rt_type_name(vectors[i]->type), (long long)vectors[i]->len, (long long)len);
    args[i] = &element[i];
  }
  for (int64_t j = 0; j < len; j++) {
    for (int i = 0; i < n; i++)
      flat_scalar_elem(&element[i], vectors[i], j);
    RtValue r;
    flat_scalar_call(&in->scalar_env, f, args, s->loc, &r);
    memcpy((char *)out->data.any + (size_t)j * size, r.data.any, size);
  }
  RtValue **results = xmalloc(sizeof(RtValue *));
  results[0] = out;
  return results;
}

/* Does 'f' take a sequence (a sequence loop of flatten.c, called on each
   element)? */
/* A sequence loop on each element: the host function called once per
   element, in order, on its scalars and its segments (copies: the host
   function makes new vectors where the executables update in place);
   the results gathered into one vector, with their segdes where they
   are sequences. */
static RtValue **call_each_seq(FlatInterp *in, const FlatStmt *s, const FlatFunc *f, RtValue **vectors) {
  int np = f->params.len;
  RtValue **args = xmalloc(sizeof(RtValue *) * (size_t)(np + 1));
  int *at = xmalloc(sizeof(int) * (size_t)(np + 1)); /* where each parameter's arguments begin */
  bool *shared = xmalloc(sizeof(bool) * (size_t)(np + 1));
  int64_t n = -1; /* the elements: a segdes's segments, a scalar's vector's length */
  for (int i = 0; i < np; i++) {
    at[i] = flat_each_arg(s, i, &shared[i]);
    if (!shared[i] && n < 0)
      n = vectors[at[i]]->len;
  }
  if (n < 0)
    die("call of each %s: every argument shared", f->name);
  FlatType rt = *(FlatType *)f->result_types.data[0];
  RtType rbase = rt_vec_type(flat_rt_base(rt.base));
  size_t size = rt_base_size(flat_rt_base(rt.base));
  RtValue *out = rt_value_new(rbase, rt.kind == FT_VEC ? 0 : n);
  /* a tuple of scalars (f.all): a vector a component, 'out' the first */
  int nr = rt.kind == FT_VEC ? 1 : f->result_types.len;
  RtValue **outs = xmalloc(sizeof(RtValue *) * (size_t)(nr + 1));
  outs[0] = out;
  for (int k = 1; k < nr; k++)
    outs[k] = rt_value_new(rt_vec_type(flat_rt_base(((FlatType *)f->result_types.data[k])->base)), n);
  RtValue *lengths = rt_value_new(rt_vec_type(RT_INT), rt.kind == FT_VEC ? n : 0);
  RtValue **parts = rt.kind == FT_VEC ? xmalloc(sizeof(RtValue *) * (size_t)(n + 1)) : NULL;
  int64_t total = 0;
  for (int i = 0; i < np; i++) {
    RtValue *v = vectors[at[i]];
    if (shared[i])
      continue;
    if (v->len != n || (v->type.kind != RT_VEC && v->type.kind != RT_SEGDES))
      die("call of each %s: argument %d has %lld elements, not %lld", f->name, at[i] + 1, (long long)v->len,
          (long long)n);
    if (v->type.kind == RT_SEGDES)
      rt_seg_offsets(v);
  }
  for (int64_t j = 0; j < n; j++) {
    for (int i = 0; i < np; i++) {
      const FlatVar *p = f->params.data[i];
      RtValue *v = vectors[at[i]];
      if (p->type.kind != FT_VEC) {
        args[i] = rt_scalar_at(v, j);
        continue;
      }
      if (shared[i]) { /* read only: the function makes new vectors where it would change one */
        args[i] = v;
        continue;
      }
      RtValue *values = vectors[at[i] + 1];
      int64_t len = v->lengths[j], off = rt_seg_offsets(v)[j];
      size_t es = rt_base_size(values->type.base);
      RtValue *seg = rt_value_new(values->type, len);
      if (len)
        memcpy(seg->data.any, (char *)values->data.any + (size_t)off * es, (size_t)len * es);
      args[i] = seg;
    }
    RtValue **r = call_func(in, s, f, args);
    if (rt.kind == FT_VEC) {
      parts[j] = r[0];
      lengths->data.i[j] = (int32_t)r[0]->len;
      total += r[0]->len;
    } else
      for (int k = 0; k < nr; k++)
        memcpy((char *)outs[k]->data.any + (size_t)j * rt_base_size(outs[k]->type.base), r[k]->data.any,
               rt_base_size(outs[k]->type.base));
  }
  if (rt.kind != FT_VEC)
    return outs;
  RtValue **results = xmalloc(sizeof(RtValue *) * 2);
  if (rt.kind == FT_VEC) {
    /* the elements' sequences end to end, copied once */
    out = rt_value_new(rbase, total);
    for (int64_t j = 0, o = 0; j < n; o += parts[j]->len, j++)
      if (parts[j]->len)
        memcpy((char *)out->data.any + (size_t)o * size, parts[j]->data.any, (size_t)parts[j]->len * size);
    results[0] = rt_make_segdes(flat_rt_loc(s->loc), lengths);
    results[1] = out;
  } else
    results[0] = out;
  return results;
}

static void run_call(FlatInterp *in, const FlatStmt *s) {
  const FlatFunc *f = s->callee;
  if (!f)
    die("a call without a callee");
  if (s->args.len != f->params.len && !s->each)
    die("call of %s with %d arguments for %d parameters", f->name, s->args.len, f->params.len);
  RtValue **args = xmalloc(sizeof(RtValue *) * (size_t)(s->args.len + 1));
  for (int i = 0; i < s->args.len; i++)
    args[i] = atom_value(in, s->args.data[i], s->loc);
  bool seq = s->each && flat_func_takes_vectors(f);
  RtValue **results = seq ? call_each_seq(in, s, f, args) : s->each ? call_each(in, s, f, args) : call_func(in, s, f, args);
  bind_results(in, s, results, s->each ? s->results.len : f->body->results.len);
  if (s->each)
    count_elements(in, results[s->results.len - 1]);
}

/* NESL's cost model (docs/cost.md): flat_exec.c counts it. */
static void run_cost(FlatInterp *in, const FlatStmt *s) {
  int n = s->args.len;
  RtValue **a = xmalloc(sizeof(RtValue *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    a[i] = atom_value(in, s->args.data[i], s->loc);
  flat_cost_run(&in->costs, (FlatCostRule)s->cost_rule, s->lifted, a, n, s->loc);
}

static void run_stmt(FlatInterp *in, const FlatStmt *s) {
  flat_exec_poll(s->loc);
  switch (s->kind) {
  case FS_OP:
    run_op(in, s);
    return;
  case FS_CALL:
    run_call(in, s);
    return;
  case FS_IF: {
    const FlatBlock *b = flat_exec_cond(atom_value(in, s->args.data[0], s->loc)) ? s->then : s->els;
    bind_results(in, s, run_block(in, b, s->loc), b->results.len);
    return;
  }
  case FS_TIME: {
    double start = flat_exec_clock();
    RtValue **values = run_block(in, s->body, s->loc);
    bind_results(in, s, flat_exec_timed(values, s->body->results.len, start), s->body->results.len + 1);
    return;
  }
  case FS_COST:
    if (in->cost)
      run_cost(in, s);
    return;
  }
  die("statement kind %d", (int)s->kind);
}

/* ---- freeing values after their last use ----
   A frame would otherwise keep every vector it computed until it
   returns, and a deep host recursion (a lifted recursive function) would
   keep all of its levels' vectors at once.  For each block, the variables
   it binds are cleared from the frame after the statement that reads them
   last (a read anywhere inside a statement's nested blocks counts as the
   statement's), or at once if nothing reads them; the collector then
   takes them.  common/liveness.c works out which (the same analysis as
   λcu's interpreter's). */

/* The block as common/liveness.c sees it; globals never die. */

static void describe_reads(Vec *reads, const Vec *atoms) {
  for (int i = 0; i < atoms->len; i++) {
    const FlatAtom *a = atoms->data[i];
    if (a->kind == FA_VAR && !a->u.var->global)
      vec_push(reads, a->u.var);
  }
}

static LiveBlock *describe_block(const FlatBlock *b) {
  LiveBlock *lb = NEW(LiveBlock);
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    LiveStmt *ls = NEW(LiveStmt);
    describe_reads(&ls->reads, &s->args);
    if (s->total)
      describe_reads(&ls->reads, &(Vec){.data = (void **)&s->total, .len = 1});
    const FlatBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        vec_push(&ls->blocks, describe_block(nested[k]));
    for (int k = 0; k < s->results.len; k++)
      if (!((const FlatVar *)s->results.data[k])->global)
        vec_push(&ls->binds, s->results.data[k]);
    vec_push(&lb->stmts, ls);
  }
  describe_reads(&lb->reads, &b->results);
  return lb;
}

static void add_dead(FlatInterp *in, const FlatStmt *s, int slot) {
  void **p = ptrmap_slot(&in->dead_after, s, true);
  if (!*p)
    *p = NEW(Vec);
  vec_push(*p, (void *)(intptr_t)slot);
}

/* Works out, once per block, which of the variables it binds (and of
   'params', for a function's body) die after which of its statements. */
static void analyse(FlatInterp *in, const FlatBlock *b, const Vec *params) {
  void **done = ptrmap_slot(&in->block_done, b, true);
  if (*done)
    return;
  *done = (void *)1;
  Vec *dead = live_last_reads(describe_block(b), params);
  for (int i = 0; i < b->stmts.len; i++)
    for (int k = 0; k < dead[i].len; k++)
      add_dead(in, b->stmts.data[i], in->slot_of[((const FlatVar *)dead[i].data[k])->id]);
}

static void analyse_block(FlatInterp *in, const FlatBlock *b) { analyse(in, b, NULL); }

/* A function's parameters die after the statement of its body that reads
   them last (they are bound by its call, not by a statement of the
   body): its body is analysed with them, before it first runs. */
static void analyse_params(FlatInterp *in, const FlatFunc *f) { analyse(in, f->body, &f->params); }

static void clear_dead(FlatInterp *in, const FlatStmt *s) {
  void **p = ptrmap_slot(&in->dead_after, s, false);
  if (!p || !*p)
    return;
  Vec *slots = *p;
  for (int i = 0; i < slots->len; i++)
    in->frame->slots[(intptr_t)slots->data[i]] = NULL;
}

/* Runs 'b' in the current frame; returns its results' values.  'loc' is
   that of the statement, function or top-level statement that owns it. */
static RtValue **run_block(FlatInterp *in, const FlatBlock *b, Loc loc) {
  analyse_block(in, b);
  for (int i = 0; i < b->stmts.len; i++) {
    run_stmt(in, b->stmts.data[i]);
    clear_dead(in, b->stmts.data[i]);
  }
  RtValue **results = xmalloc(sizeof(RtValue *) * (size_t)(b->results.len + 1));
  for (int i = 0; i < b->results.len; i++)
    results[i] = atom_value(in, b->results.data[i], loc);
  return results;
}

/* ---- the top level ---- */

FlatInterp *flat_interp_new(FlatProgram *p, FILE *out) {
  FlatInterp *in = NEW(FlatInterp);
  in->p = p;
  in->out = out;
  in->scalar_env = (FlatScalarEnv){in, scalar_layout, &in->stats.ops, &in->stats.host_calls};
  flat_exec_use_gc();
  rt_set_output(out);
  return in;
}

FlatStats flat_interp_stats(FlatInterp *in) { return in->stats; }

void flat_interp_set_cost(FlatInterp *in, bool on) { in->cost = on; }

void flat_interp_set_quiet(FlatInterp *in, bool on) { in->quiet = on; }

/* Runs the block of the statement running, on a frame of its own, and
   returns the components of its value. */
static RtValue **run_top_block(void *ctx, int *n) {
  FlatInterp *in = ctx;
  FlatTop *top = in->top;
  if (!top->body)
    die("a top-level %s without a block", top->kind == FLAT_TOP_BIND ? "binding" : "expression");
  FrameLayout *layout = frame_layout(in, top, NULL, top->body);
  Frame frame = {NULL, xmalloc(sizeof(RtValue *) * (size_t)(layout->nslots + 1)), NULL, {0}};
  in->frame = &frame;
  in->depth = 0;
  rt_set_context(NULL);
  RtValue **results = run_block(in, top->body, top->loc);
  in->frame = NULL;
  *n = top->body->results.len;
  return results;
}

static void top_stopped(void *ctx) {
  FlatInterp *in = ctx;
  in->frame = NULL;
  in->depth = 0;
}

/* Global 'index' of the running statement's defines: its name, and its
   value unless NULL. */
static void define_global(void *ctx, int index, const char *name, RtValue *value) {
  FlatInterp *in = ctx;
  FlatVar *g = in->top->defines.data[index];
  ensure_var_tables(in, g->id);
  if (name)
    in->global_names[g->id] = name;
  if (!value)
    return;
  if (!rt_type_equal(flat_rt_type(g->type), value->type))
    die("global %s gets a %s", var_name(g), rt_type_name(value->type));
  in->globals[g->id] = value;
}

/* The running binding stopped: its globals keep the values of those they
   replace (FlatTop.replaced). */
static void keep_replaced(void *ctx) {
  FlatInterp *in = ctx;
  for (int i = 0; i < in->top->replaced.len; i++) {
    const FlatVar *old = in->top->replaced.data[i], *g = in->top->defines.data[i];
    if (!old)
      continue;
    ensure_var_tables(in, old->id);
    ensure_var_tables(in, g->id);
    if (in->globals[old->id] && !in->globals[g->id])
      in->globals[g->id] = in->globals[old->id];
  }
}

bool flat_interp_run_top(FlatInterp *in, FlatTop *top) {
  FlatTopHooks hooks = {in, run_top_block, top_stopped, define_global, keep_replaced, in->quiet};
  in->top = top;
  flat_cost_begin(&in->costs);
  bool ok = flat_exec_run_top(top, &hooks);
  in->top = NULL;
  if (ok && in->cost && !top->library && (top->kind == FLAT_TOP_BIND || top->kind == FLAT_TOP_EXPR)) {
    fprintf(rt_output(), "cost: work %llu, depth %llu\n", (unsigned long long)in->costs.work,
            (unsigned long long)in->costs.clock);
    fflush(rt_output());
  }
  return ok;
}
