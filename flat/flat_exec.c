/*
 * flat_exec.c: what the two interpreters (the flat IR's, flat_interp.c,
 * and λcu's, lcu/lcu_interp.c) share: a flat operation run on values by
 * the runtime (rt/), the transcript of a top-level statement, `if` and
 * `time`, and the scalar functions run on scalars in place (the flat
 * IR's statement language, which is λcu's CPU level too).
 *
 * The semantics of every operation, errors included, live in rt/, which
 * the executables link too: here a statement's operation is only mapped
 * to the runtime's call, with the location and the layouts the compiler
 * worked out.  The values are the runtime's RtValue, allocated through
 * the collector (flat_exec_use_gc), so that an interpreter may drop them
 * anywhere.
 */
#include <gc.h>
#include <string.h>
#include <time.h>

#include "flat.h"

/* ---- the runtime's memory ---- */

static void *gc_alloc(size_t size) { return GC_MALLOC(size); }
static void *gc_alloc_atomic(size_t size) { return GC_MALLOC_ATOMIC(size); }
/* the collector frees; an early GC_FREE would race with values still
   shared between frames */
static void gc_free(void *p) { (void)p; }

void flat_exec_use_gc(void) {
  static const RtAllocator gc = {gc_alloc, gc_alloc_atomic, gc_free};
  rt_set_allocator(&gc);
}

/* ---- errors ---- */

RtContext flat_call_context(const RtContext *caller, const char *callee, bool library, Loc call) {
  return rt_call_context(caller, callee, library, flat_rt_loc(call));
}

/* ---- operations ---- */

static void need(RtValue *v, RtKind kind, const FlatStmt *s) {
  if (v->type.kind != kind)
    die("%s: an argument is a %s", flat_op_name(s->op), rt_type_name(v->type));
}

RtValue *flat_exec_constant(const FlatAtom *a) {
  switch (a->kind) {
  case FA_INT:
    return rt_int(a->u.i);
  case FA_FLOAT:
    return rt_float(a->u.f);
  case FA_BOOL:
    return rt_bool(a->u.b);
  case FA_CHAR:
    return rt_char(a->u.c);
  case FA_VAR:
    break;
  }
  die("flat_exec_constant: a variable");
}

/* The results of a host primitive: the components of its result. */
static void host_prim(const FlatStmt *s, RtValue **a, int n, Vec *results) {
  if (!s->layout || !s->result_layout || s->host == RT_HOST_COUNT)
    die("host %s without its layouts", s->prim ? s->prim : "?");
  int want = rt_layout_count(s->layout, !s->lifted);
  if (n != want)
    die("host %s: %d arguments for %d components", s->prim, n, want);
  int nresults = rt_layout_count(s->result_layout, !s->lifted);
  RtValue **r = xmalloc(sizeof(RtValue *) * (size_t)(nresults + 1));
  rt_host_call(s->host, flat_rt_loc(s->loc), s->layout, s->result_layout, s->lifted, a, r);
  for (int i = 0; i < nresults; i++)
    vec_push(results, r[i]);
}

void flat_exec_op(const FlatStmt *s, RtValue **a, int n, Vec *results) {
  if (s->kind != FS_OP)
    die("flat_exec_op: a statement of kind %d", (int)s->kind);
  int want = flat_op_nargs(s->op);
  if (want >= 0 && n != want)
    die("%s with %d arguments", flat_op_name(s->op), n);
  RtLoc loc = flat_rt_loc(s->loc);
  RtOp op = flat_rt_op(s->op);
  RtValue *r = NULL, *r2 = NULL;
  switch (rt_op_class(op)) {
  case OPC_ELEMENTWISE:
    r = op == RT_RAND ? rt_rand(s->site, a[0]) : rt_elementwise(op, loc, NULL, a, n);
    break;
  case OPC_REDUCE:
    r = rt_reduce(op, loc, a[0]);
    break;
  case OPC_SCAN:
    r = rt_scan(op, loc, a[0]);
    break;
  case OPC_SEG_REDUCE:
    r = rt_seg_reduce(op, loc, a[0], a[1]);
    break;
  case OPC_SEG_SCAN:
    r = rt_seg_scan(op, loc, a[0], a[1]);
    break;
  case OPC_STRUCTURED:
    if (!s->layout)
      die("%s without its layout", flat_op_name(s->op));
    if (op == RT_NAME) {
      /* the segmented form has a segdes before the values' components */
      bool seg = n == rt_layout_count(s->layout, false) + 1 && a[0]->type.kind == RT_SEGDES;
      r = rt_name(s->layout, seg ? a[0] : NULL, seg ? a + 1 : a);
    }
    else if (op == RT_EQL)
      r = rt_eql(s->layout, !s->lifted, a, a + n / 2);
    else
      r = rt_hash(loc, s->layout, !s->lifted, a, a[n - 1]);
    break;
  case OPC_HOST:
    host_prim(s, a, n, results);
    return;
  case OPC_ERROR:
    if (op == RT_CHECK) {
      rt_check_all(s->check, loc, a, n);
      return;
    }
    if (op == RT_ERROR) {
      need(a[0], RT_VEC, s);
      rt_fail(loc, NULL, "%.*s", (int)a[0]->len, a[0]->data.c);
    }
    need(a[0], RT_SEGDES, s);
    if (a[0]->len > 0) {
      /* the first segment's message */
      const int64_t *off = rt_seg_offsets(a[0]);
      rt_fail(loc, NULL, "%.*s", (int)(off[1] - off[0]), a[1]->data.c + off[0]);
    }
    return;
  default:
    switch (op) {
    case RT_VECTOR:
      r = rt_vector(a, n);
      break;
    case RT_DIST:
      need(a[1], RT_SCALAR, s);
      r = rt_dist(loc, a[0], a[1]->scalar.i);
      break;
    case RT_LENGTH:
      need(a[0], RT_VEC, s);
      r = rt_int((int32_t)a[0]->len);
      break;
    case RT_RANGE:
      r = rt_range(loc, a[0]->scalar.i, a[1]->scalar.i, a[2]->scalar.i);
      break;
    case RT_GATHER:
      r = s->guarded ? rt_gather_guarded(loc, a[0], a[1]) : rt_gather(loc, a[0], a[1]);
      break;
    case RT_ELT:
      need(a[0], RT_VEC, s);
      r = rt_elt(loc, a[0], a[1]->scalar.i);
      break;
    case RT_SCATTER:
      r = rt_scatter(loc, a[0], a[1], a[2]);
      break;
    case RT_PACK:
      r = rt_pack(loc, a[0], a[1], true);
      break;
    case RT_PARTITION:
      r = rt_pack(loc, a[0], a[1], true);
      r2 = rt_pack(loc, a[0], a[1], false);
      break;
    case RT_APPEND:
      r = rt_append(a[0], a[1]);
      break;
    case RT_MAX_INDEX:
    case RT_MIN_INDEX:
      r = rt_int(rt_extreme_index(a[0], op == RT_MAX_INDEX ? 1 : -1));
      break;
    case RT_RANK:
    case RT_RANK_DOWN:
      r = rt_rank(a[0], op == RT_RANK_DOWN);
      break;
    case RT_MAKE_SEGDES:
      r = rt_make_segdes(loc, a[0]);
      break;
    case RT_SEG_LENGTHS:
      r = rt_seg_lengths(a[0]);
      break;
    case RT_SEG_COUNT:
      r = rt_int((int32_t)a[0]->len);
      break;
    case RT_SEG_TOTAL:
      r = rt_int((int32_t)rt_seg_total(a[0]));
      break;
    case RT_SEG_IDS:
      r = rt_seg_ids(a[0]);
      break;
    case RT_SEG_OFFSETS:
      r = rt_seg_starts(a[0]);
      break;
    case RT_SEG_MAX_INDEX:
    case RT_SEG_MIN_INDEX:
      r = rt_seg_extreme_index(a[0], a[1], op == RT_SEG_MAX_INDEX ? 1 : -1);
      break;
    case RT_SEG_RANK:
    case RT_SEG_RANK_DOWN:
      r = rt_seg_rank(a[0], a[1], op == RT_SEG_RANK_DOWN);
      break;
    case RT_SEG_PACK:
      need(a[0], RT_SEGDES, s);
      rt_seg_pack(loc, a[0], a[1], a[2], &r, &r2);
      break;
    case RT_SEG_RANGE:
      rt_seg_range(loc, a[0], a[1], a[2], &r, &r2);
      break;
    default:
      die("flat_exec_op: %s", flat_op_name(s->op));
    }
  }
  vec_push(results, r);
  if (r2)
    vec_push(results, r2);
}

/* ---- the transcript of a top-level statement ---- */

/* Gives top->defines the components 'comps' of the value (or, with
   'comps' NULL, just their names, so that a binding that fails still
   names its variables in later errors).  top->defines holds either one
   global per component of the value (in layout order, a wildcard's
   included) or one per component of the pattern's variables only. */
static void define_globals(FlatTop *top, const FlatTopHooks *hooks, RtValue **comps) {
  int ncomps = rt_layout_count(top->layout, true);
  bool all = top->defines.len == ncomps;
  if (!top->component_vars)
    die("a binding without its pattern's variables");
  int next = 0;
  for (int i = 0; i < ncomps; i++) {
    const char *var = top->component_vars[i];
    if (!var && !all)
      continue;
    if (next >= top->defines.len)
      die("the binding defines fewer globals than its value has components");
    int g = next++;
    hooks->define(hooks->ctx, g, var, comps ? comps[i] : NULL);
  }
  if (next != top->defines.len)
    die("the binding's pattern does not account for its value's components or globals");
}

const char **flat_top_define_names(FlatTop *top) {
  int ncomps = rt_layout_count(top->layout, true);
  bool all = top->defines.len == ncomps;
  const char **names = xmalloc(sizeof(char *) * (size_t)(top->defines.len + 1));
  int next = 0;
  for (int i = 0; top->component_vars && i < ncomps; i++) {
    const char *var = top->component_vars[i];
    if ((var || all) && next < top->defines.len)
      names[next++] = var;
  }
  return names;
}

/* The compiler's allocator ran out while a statement ran (the runtime's
   own allocations report through rt_alloc): that statement stops, the
   next one runs, as under the evaluator. */
static void out_of_memory(void *ctx, size_t size) {
  (void)ctx;
  alloc_set_oom_handler(NULL, NULL);
  rt_fail((RtLoc){0}, NULL, "out of memory (could not allocate %zu bytes)", size);
}

/* A run-time error as the evaluator reports it: the line on the
   transcript, the source line and a caret on stderr, counted
   (diag_runtime_errors). */
static void report(RtLoc where, const char *words) {
  Loc loc = {.line = where.line, .col = where.col};
  /* (here, not in the block below: diag_runtime_error reads it after
     that block has ended) */
  Source unread = {.name = where.file, .text = ""};
  if (where.file) {
    loc.src = source_find(where.file, where.line);
    if (!loc.src) /* not a file nessie read: no line to show */
      loc.src = &unread;
  }
  diag_runtime_error(rt_output(), loc, words);
}

/* What runs under a statement's guard: the statement's block, then the
   printing of its value. */
typedef struct Guarded {
  const FlatTopHooks *hooks;
  FlatTop *top;
  RtValue **comps; /* the value, once run */
  int n;
} Guarded;

static void run_block(Guarded *g) {
  g->comps = g->hooks->run(g->hooks->ctx, &g->n);
  /* NESL's REPL rejects a value holding an infinity or a NaN; a binding
     so stopped binds nothing */
  rt_set_context(NULL);
  rt_check_value(flat_rt_loc(g->top->loc), g->top->layout, g->comps);
}

/* The text of a large value may not fit in memory: that is the
   statement's run-time error, at the statement (where the evaluator
   reports it), and the names it bound keep their values. */
static void print_value(Guarded *g) {
  rt_here = flat_rt_loc(g->top->loc);
  rt_print_binding(g->top->pattern, g->top->layout, g->comps, g->top->type_name);
}

/* 'step(g)' under the statement's guard: false if a run-time error
   stopped it (its line printed). */
static bool guarded(void (*step)(Guarded *), Guarded *g) {
  jmp_buf stop;
  jmp_buf *outer = rt_set_stop(&stop);
  RtReporter outer_reporter = rt_set_reporter(report);
  alloc_set_oom_handler(out_of_memory, NULL);
  bool ok = true;
  if (setjmp(stop)) {
    ok = false;
  } else {
    step(g);
  }
  alloc_set_oom_handler(NULL, NULL);
  rt_set_reporter(outer_reporter);
  rt_set_stop(outer);
  rt_set_context(NULL);
  if (!ok && step == run_block && g->hooks->stopped)
    g->hooks->stopped(g->hooks->ctx);
  return ok;
}

bool flat_exec_run_top(FlatTop *top, const FlatTopHooks *hooks) {
  rt_begin_line();
  FILE *out = rt_output();
  bool ok = true;
  switch (top->kind) {
  case FLAT_TOP_FUNCTION:
  case FLAT_TOP_DATATYPE:
    if (!top->library && top->signature)
      fprintf(out, "%s\n", top->signature);
    break;
  case FLAT_TOP_BIND:
  case FLAT_TOP_EXPR: {
    if (top->kind == FLAT_TOP_BIND)
      define_globals(top, hooks, NULL);
    rt_set_context(NULL);
    Guarded g = {hooks, top, NULL, 0};
    if (!guarded(run_block, &g)) {
      if (top->kind == FLAT_TOP_BIND && hooks->keep_replaced)
        hooks->keep_replaced(hooks->ctx);
      ok = false;
      break;
    }
    if (top->kind == FLAT_TOP_BIND)
      define_globals(top, hooks, g.comps);
    if (!top->library && !hooks->quiet)
      ok = guarded(print_value, &g);
    break;
  }
  }
  fflush(out);
  return ok;
}

/* ---- scalars in place (the interpreters' scalar loops) ---- */

void flat_scalar_init(RtValue *to, RtBase b) {
  to->type = rt_scalar_type(b);
  to->len = 1;
  to->data.any = &to->scalar;
  to->lengths = to->offsets = NULL;
}

void flat_scalar_set(RtValue *to, const RtValue *from) {
  flat_scalar_init(to, from->type.base);
  switch (from->type.base) {
  case RT_INT:
    to->scalar.i = *from->data.i;
    break;
  case RT_FLOAT:
    to->scalar.f = *from->data.f;
    break;
  case RT_BOOL:
    to->scalar.b = *from->data.b;
    break;
  case RT_CHAR:
    to->scalar.c = *from->data.c;
    break;
  }
}

void flat_scalar_const(RtValue *to, const FlatAtom *a) {
  to->len = 1;
  to->data.any = &to->scalar;
  to->lengths = to->offsets = NULL;
  switch (a->kind) {
  case FA_INT:
    to->type = rt_scalar_type(RT_INT);
    to->scalar.i = a->u.i;
    return;
  case FA_FLOAT:
    to->type = rt_scalar_type(RT_FLOAT);
    to->scalar.f = a->u.f;
    return;
  case FA_BOOL:
    to->type = rt_scalar_type(RT_BOOL);
    to->scalar.b = a->u.b;
    return;
  case FA_CHAR:
    to->type = rt_scalar_type(RT_CHAR);
    to->scalar.c = a->u.c;
    return;
  case FA_VAR:
    break;
  }
  die("a variable where a constant is wanted");
}


void flat_scalar_elem(RtValue *to, const RtValue *v, int64_t j) {
  size_t size = rt_base_size(v->type.base);
  flat_scalar_init(to, v->type.base);
  memcpy(&to->scalar, (const char *)v->data.any + (size_t)j * size, size);
}

/* ---- scalar functions on one element ----
   A scalar function (flatten.c's called_each: scalars in, one scalar
   out, a body of scalar operations, ifs and calls of such functions) is
   run once per element by the flat IR's `call each` and once per lane by
   a λcu thunk's call, and a loop of many iterations per element is
   common (mandelbrot): so it runs here on scalars in C structs, without a
   frame of allocated values, an allocation per operation or C recursion
   for its tail calls, which continue the loop.  The context of its errors
   is that of a called function, as an interpreter's calls have.  λcu's
   CPU level is the flat IR's statement language, so both interpreters
   run their scalar functions here: λcu's as the flat functions they read
   as (lcu_interp.c makes them). */

typedef struct ScalarFrame {
  const FlatScalarEnv *env;
  const FlatFunc *f;
  const int *slot_of; /* by variable id: its slot in 'vals' */
  RtValue *vals;
  RtContext context;
} ScalarFrame;

static RtValue *scalar_var(ScalarFrame *fr, const FlatVar *v) { return &fr->vals[fr->slot_of[v->id]]; }

/* The value of 'a' in the frame, a constant in 'buf'. */
static RtValue *scalar_atom(ScalarFrame *fr, const FlatAtom *a, RtValue *buf) {
  if (a->kind != FA_VAR) {
    flat_scalar_const(buf, a);
    return buf;
  }
  if (a->u.var->global)
    die("a scalar function reads global %d", a->u.var->id);
  return scalar_var(fr, a->u.var);
}

/* Runs 'b' of the frame's function; returns its result, or NULL after
   its tail call of the function itself, whose arguments are then in
   'next' (tail: 'b' gives the function's result). */
static RtValue *scalar_block(ScalarFrame *fr, const FlatBlock *b, bool tail, RtValue *next) {
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    bool last = tail && i == b->stmts.len - 1 && s->results.len == 1 && b->results.len == 1 &&
                ((const FlatAtom *)b->results.data[0])->kind == FA_VAR &&
                ((const FlatAtom *)b->results.data[0])->u.var == s->results.data[0];
    const FlatVar *rv = s->results.len == 1 ? s->results.data[0] : NULL;
    RtValue *r = rv ? scalar_var(fr, rv) : NULL;
    RtValue buf[3], *a[3];
    switch (s->kind) {
    case FS_OP:
      if (s->args.len > 3 || !r)
        die("a scalar function's %s", flat_op_name(s->op));
      for (int k = 0; k < s->args.len; k++)
        a[k] = scalar_atom(fr, s->args.data[k], &buf[k]);
      if (fr->env->ops)
        (*fr->env->ops)++;
      flat_scalar_init(r, flat_rt_base(rv->type.base)); /* the checker checked the types */
      rt_scalar_into(flat_rt_op(s->op), flat_rt_loc(s->loc), NULL, a, s->args.len, r);
      break;
    case FS_IF: {
      RtValue *c = scalar_atom(fr, s->args.data[0], &buf[0]);
      RtValue *v = scalar_block(fr, c->scalar.b ? s->then : s->els, last, next);
      if (!v)
        return NULL;
      flat_scalar_set(r, v);
      break;
    }
    case FS_CALL: {
      enum { FEW = 16 };
      RtValue *few[FEW], fewbuf[FEW];
      RtValue **cargs = s->args.len < FEW ? few : xmalloc(sizeof(RtValue *) * (size_t)(s->args.len + 1));
      RtValue *cbuf = s->args.len < FEW ? fewbuf : xmalloc(sizeof(RtValue) * (size_t)(s->args.len + 1));
      for (int k = 0; k < s->args.len; k++)
        cargs[k] = scalar_atom(fr, s->args.data[k], &cbuf[k]);
      if (last && s->callee == fr->f) {
        for (int k = 0; k < s->args.len; k++)
          flat_scalar_set(&next[k], cargs[k]);
        return NULL;
      }
      rt_check_stack(flat_rt_loc(s->loc));
      flat_scalar_call(fr->env, s->callee, cargs, s->loc, r);
      rt_set_context(&fr->context);
      break;
    }
    default:
      die("a scalar function's statement of kind %d", (int)s->kind);
    }
  }
  RtValue buf;
  RtValue *v = scalar_atom(fr, b->results.data[0], &buf);
  return v == &buf ? (flat_scalar_set(&next[0], v), &next[0]) : v;
}

void flat_scalar_call(const FlatScalarEnv *env, const FlatFunc *f, RtValue **args, Loc call, RtValue *out) {
  const int *slot_of = NULL;
  int nslots = env->layout(env->ctx, f, &slot_of);
  int n = f->params.len;
  enum { ON_STACK = 64 }; /* a scalar function's slots: a few dozen */
  RtValue stack_vals[ON_STACK], stack_next[ON_STACK];
  RtValue *vals = nslots < ON_STACK ? stack_vals : xmalloc(sizeof(RtValue) * (size_t)(nslots + 1));
  RtValue *next = n < ON_STACK ? stack_next : xmalloc(sizeof(RtValue) * (size_t)(n + 1));
  const RtContext *caller = rt_context();
  const char *source = f->source ? f->source : f->name;
  ScalarFrame fr = {env, f, slot_of, vals, flat_call_context(caller, source, f->library, call)};
  rt_set_context(&fr.context);
  for (int i = 0; i < n; i++)
    flat_scalar_set(scalar_var(&fr, f->params.data[i]), args[i]);
  for (;;) {
    if (env->calls)
      (*env->calls)++;
    /* a loop of a billion iterations per element made Ctrl-C wait for
       all of them */
    flat_exec_interrupted(call);
    RtValue *v = scalar_block(&fr, f->body, true, next);
    if (v) {
      flat_scalar_set(out, v);
      break;
    }
    for (int i = 0; i < n; i++) /* the tail call: the next iteration */
      flat_scalar_set(scalar_var(&fr, f->params.data[i]), &next[i]);
  }
  rt_set_context(caller);
}

/* ---- if and time ---- */

bool flat_exec_cond(const RtValue *c) {
  if (!rt_type_equal(c->type, rt_scalar_type(RT_BOOL)))
    die("if on a %s", rt_type_name(c->type));
  return c->data.b[0];
}

double flat_exec_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

RtValue **flat_exec_timed(RtValue **values, int n, double start) {
  double seconds = flat_exec_clock() - start;
  RtValue **all = xmalloc(sizeof(RtValue *) * (size_t)(n + 1));
  memcpy(all, values, sizeof(RtValue *) * (size_t)n);
  all[n] = rt_float(seconds);
  return all;
}

/* ---- NESL's cost model (docs/cost.md) ----
   A step adds its work and advances a clock by its depth: the host's, or
   in a lifted context each element's own by its own depth.  An
   apply-to-each's elements start at the clock of the element (or host)
   they belong to, and when they end, it takes the latest of their
   clocks: parts in parallel take the largest depth.  A lifted if's
   branch is a context of the elements that take it, which rejoin the
   others after it with their clocks: per element, the depth of the
   branch it takes, as the evaluator, which runs one element after the
   other, counts it. */

/* Cost statements that do not follow the elements as flattening makes
   them (λcu written by hand may be anything that type checks): the
   statement stops with an error at 'c->loc', the compiler does not. */
__attribute__((format(printf, 2, 3))) RT_NORETURN static void out_of_step(const FlatCost *c, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  rt_fail(c->loc, NULL, "the cost statements are out of step: %s", what);
}

/* A lifted context: a clock per element. */
typedef struct CostContext {
  int64_t n;
  uint64_t *clock;
} CostContext;

void flat_cost_begin(FlatCost *c) {
  c->work = c->clock = 0;
  c->contexts.len = 0;
  c->off = 0;
}

/* ceil(log2 n), at least 1 (eval's cost_log2) */
static uint64_t cost_log2(int64_t n) {
  uint64_t lg = 1;
  while (lg < 63 && ((int64_t)1 << lg) < n)
    lg++;
  return lg;
}

/* The work of a step of 'rule' by size 'n' (-1: no sizes), its depth in
   '*depth'. */
static uint64_t cost_of(FlatCostRule rule, int64_t n, uint64_t *depth) {
  *depth = 1;
  if (rule == FLAT_COST_UNIT || n < 0)
    return 1;
  if (n < 1)
    n = 1;
  if (rule == FLAT_COST_SORT) {
    *depth = cost_log2(n);
    return (uint64_t)n * *depth;
  }
  return (uint64_t)n;
}

static int64_t int_arg(RtValue *v) {
  if (v->type.kind != RT_SCALAR || v->type.base != RT_INT)
    die("cost: a %s for an int", rt_type_name(v->type));
  return v->scalar.i;
}

/* The innermost context, which must have 'm' elements. */
static CostContext *cost_top(FlatCost *c, int64_t m, FlatCostRule rule) {
  if (!c->contexts.len)
    out_of_step(c, "cost %s^ outside a lifted context", flat_cost_rule_name(rule));
  CostContext *x = c->contexts.data[c->contexts.len - 1];
  if (x->n != m)
    out_of_step(c, "cost %s^ over %lld elements in a context of %lld", flat_cost_rule_name(rule), (long long)m,
                (long long)x->n);
  return x;
}

static CostContext *cost_push(FlatCost *c, int64_t n) {
  CostContext *x = NEW(CostContext);
  x->n = n;
  x->clock = xmalloc_atomic(sizeof(uint64_t) * (size_t)(n + 1));
  vec_push(&c->contexts, x);
  return x;
}

/* The innermost context, of 'n' elements, closed. */
static CostContext *cost_pop(FlatCost *c, int64_t n, FlatCostRule rule) {
  if (!c->contexts.len)
    out_of_step(c, "cost %s without a context to close", flat_cost_rule_name(rule));
  CostContext *x = c->contexts.data[--c->contexts.len];
  if (x->n != n)
    out_of_step(c, "cost %s closes a context of %lld elements as one of %lld", flat_cost_rule_name(rule),
                (long long)x->n, (long long)n);
  return x;
}

/* A step: at the host, by the largest of its sizes; lifted, for each
   element by the largest of its own. */
static void cost_step(FlatCost *c, FlatCostRule rule, bool lifted, RtValue **a, int n) {
  uint64_t depth;
  if (!lifted) {
    if (c->contexts.len)
      out_of_step(c, "cost %s at the host inside a lifted context", flat_cost_rule_name(rule));
    int64_t size = -1;
    for (int i = 0; i < n; i++) {
      int64_t k = a[i]->type.kind == RT_SCALAR ? a[i]->scalar.i : a[i]->len;
      size = k > size ? k : size;
    }
    c->work += cost_of(rule, size, &depth);
    c->clock += depth;
    return;
  }
  CostContext *x = cost_top(c, int_arg(a[0]), rule);
  for (int i = 1; i < n; i++)
    if (a[i]->type.kind == RT_SEGDES && a[i]->len != x->n)
      out_of_step(c, "cost %s^: sizes of %lld elements in a context of %lld", flat_cost_rule_name(rule),
                  (long long)a[i]->len, (long long)x->n);
  for (int64_t e = 0; e < x->n; e++) {
    int64_t size = -1;
    for (int i = 1; i < n; i++) {
      int64_t k = a[i]->type.kind == RT_SEGDES ? a[i]->lengths[e] : a[i]->scalar.i;
      size = k > size ? k : size;
    }
    c->work += cost_of(rule, size, &depth);
    x->clock[e] += depth;
  }
}

/* EACH and DONE at the host, over 'n' elements. */
static void cost_each_host(FlatCost *c, FlatCostRule rule, int64_t n) {
  if (rule == FLAT_COST_EACH) {
    if (c->contexts.len)
      out_of_step(c, "cost each at the host inside a lifted context");
    CostContext *x = cost_push(c, n);
    for (int64_t j = 0; j < n; j++)
      x->clock[j] = c->clock;
    return;
  }
  CostContext *x = cost_pop(c, n, rule);
  if (c->contexts.len)
    out_of_step(c, "cost done at the host inside a lifted context");
  for (int64_t j = 0; j < n; j++)
    c->clock = x->clock[j] > c->clock ? x->clock[j] : c->clock;
}

/* EACH and DONE lifted: the elements of segment i of 'sd' belong to
   element i of the context. */
static void cost_each_lifted(FlatCost *c, FlatCostRule rule, int64_t m, RtValue *sd) {
  if (sd->type.kind != RT_SEGDES || sd->len != m)
    out_of_step(c, "cost %s^: a %s for the %lld elements of the context", flat_cost_rule_name(rule),
                rt_type_name(sd->type), (long long)m);
  int64_t total = rt_seg_offsets(sd)[m];
  if (rule == FLAT_COST_EACH) {
    CostContext *outer = cost_top(c, m, rule);
    CostContext *x = cost_push(c, total);
    int64_t j = 0;
    for (int64_t i = 0; i < m; i++)
      for (int64_t k = 0; k < sd->lengths[i]; k++)
        x->clock[j++] = outer->clock[i];
    return;
  }
  CostContext *x = cost_pop(c, total, rule);
  CostContext *outer = cost_top(c, m, rule);
  int64_t j = 0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t k = 0; k < sd->lengths[i]; k++, j++)
      if (x->clock[j] > outer->clock[i])
        outer->clock[i] = x->clock[j];
}

/* SPLIT and JOIN: the elements of the context whose flag is set. */
static void cost_split(FlatCost *c, FlatCostRule rule, int64_t m, RtValue *flags) {
  if (flags->type.kind != RT_VEC || flags->type.base != RT_BOOL || flags->len != m)
    out_of_step(c, "cost %s^: a %s of %lld for the %lld elements of the context", flat_cost_rule_name(rule),
                rt_type_name(flags->type), (long long)flags->len, (long long)m);
  int64_t kept = 0;
  for (int64_t i = 0; i < m; i++)
    kept += flags->data.b[i] != 0;
  if (rule == FLAT_COST_SPLIT) {
    CostContext *outer = cost_top(c, m, rule);
    CostContext *x = cost_push(c, kept);
    for (int64_t i = 0, j = 0; i < m; i++)
      if (flags->data.b[i])
        x->clock[j++] = outer->clock[i];
    return;
  }
  CostContext *x = cost_pop(c, kept, rule);
  CostContext *outer = cost_top(c, m, rule);
  for (int64_t i = 0, j = 0; i < m; i++)
    if (flags->data.b[i])
      outer->clock[i] = x->clock[j++];
}

void flat_cost_run(FlatCost *c, FlatCostRule rule, bool lifted, RtValue **a, int n, Loc loc) {
  c->loc = flat_rt_loc(loc);
  if (rule == FLAT_COST_OFF || rule == FLAT_COST_ON) {
    c->off += rule == FLAT_COST_OFF ? 1 : -1;
    if (c->off < 0)
      out_of_step(c, "cost on without its off");
    return;
  }
  if (c->off)
    return;
  switch (rule) {
  case FLAT_COST_SIZE:
  case FLAT_COST_UNIT:
  case FLAT_COST_SORT:
    cost_step(c, rule, lifted, a, n);
    return;
  case FLAT_COST_EACH:
  case FLAT_COST_DONE:
    if (lifted)
      cost_each_lifted(c, rule, int_arg(a[0]), a[1]);
    else
      cost_each_host(c, rule, int_arg(a[0]));
    return;
  case FLAT_COST_SPLIT:
  case FLAT_COST_JOIN:
    cost_split(c, rule, int_arg(a[0]), a[1]);
    return;
  default:
    die("cost rule %d", (int)rule);
  }
}
