/*
 * eval.c: the source-level evaluator: a tree walk over the typed AST.
 *
 * Environments are linked lists of (name, value); globals live in the
 * type checker's Def records (Def.runtime).  Functions are called by
 * binding the parameter pattern and evaluating the body; primitives run C
 * code from prims.c.  A run-time error longjmps out of the statement (see
 * ev_error), and the transcript goes on with the next statement, as the
 * NESL REPL does.
 *
 * Function values (higher-order functions): the type of a function value
 * says which function it is (frontend/types.h), so the value itself
 * carries nothing: it is the boolean F, as in the monomorphized program
 * (flatten/mono.c), and an application `g(x)` of a function-valued `g`
 * finds the function in g's type, read in the caller's frame like any
 * type variable of a polymorphic function.
 *
 * Redefinition (NESL.md, "Reference behaviour"): when a statement defines
 * a function again with the same type, calls that were checked against
 * the old definition use the new one from then on; Def.runtime records
 * the forwarding.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../frontend/invariant.h"
#include "../frontend/types.h"
#include "../rt/rt.h"
#include "eval.h"

static RtLoc rt_loc(Loc l) { return (RtLoc){.file = l.src ? l.src->name : NULL, .line = l.line, .col = l.col}; }

/* The evaluator's side of a global definition. */
typedef struct RtDef {
  bool has_value; /* DEF_VALUE: evaluated */
  Value value;
  Def *current;   /* functions: the redefinition that replaced this one */
  const Prim *prim; /* primitives: the C implementation, once looked up */
  bool boxed_args;  /* an eval/io.c primitive: its argument is boxed */
  uint8_t cost_rule; /* primitives: its CostRule, once looked up */
} RtDef;

/* How a primitive is charged in the cost model (cost_primitive). */
typedef enum CostRule {
  COST_BY_SIZE, /* max(1, n) in one step; one step on scalars alone */
  COST_UNIT,    /* one step whatever the sizes: #s, s[i] */
  COST_SORT,    /* n lg n in lg n steps */
  COST_RESULT,  /* by the result's size alone: a gather reads as many
                   elements as it has indices */
  COST_NONE,    /* the REPL's bookkeeping */
} CostRule;

/* A run-time error found in an element of an apply-to-each, kept until
   it is known that no error comes before it (see "The first error"). */
typedef struct Pending {
  int n;         /* entries of its key */
  int *pos;      /* the positions along its path, the failing one last */
  int64_t *idx;  /* the element at each apply-to-each on the path, else -1 */
  Loc where;     /* where it is reported, and the words */
  char *words;
} Pending;

/* An apply-to-each running its elements, any of which may fail. */
typedef struct Level {
  sigjmp_buf jb;          /* where an element's error or abandonment goes */
  struct Level *parent;   /* the apply-to-each around it */
  Pending *volatile best; /* the first error of its elements so far */
  int depth;              /* its entry's index in the path */
  volatile int64_t i, out; /* the element running; the results made */
  Seq *volatile result;
} Level;

/* A call of a (possibly polymorphic) user or library function: what its
   type variables stand for is the call's instantiated type, read in the
   caller's frame.  Only primitives that need their type (scans and
   reductions of empty sequences) ever ask. */
typedef struct Frame {
  Def *def;
  Type *inst; /* the function's type at the call, in the caller's terms */
  struct Frame *parent;
} Frame;

typedef struct Env {
  const char *name;
  Value value;
  struct Env *next;
} Env;

struct Eval {
  TypeEnv *types;
  FILE *out;
  jmp_buf *stop;       /* where a run-time error goes */
  bool in_library;     /* evaluating library code called from the user's */
  Loc user_loc;        /* the user's call that entered the library */
  const char *lib_fn;  /* the library function it called */
  EvalStats stats;
  uint64_t seed, draws;
  Frame *frame;        /* the innermost call */
  const char *ctx_user_fn; /* set by ev_set_error_context: the user function
                              running, for interpreters without Frames */
  int user_depth;      /* calls of user functions under way */
  Loc stmt_call_loc;   /* the outermost of them, in the statement itself */
  bool mid_line;       /* the program's output did not end with a newline */
  Loc loc;             /* the innermost call under way, for an error that
                          has no place of its own (out of memory) */
  Invariants inv;      /* which expressions are closed (closed_parts) */
  /* the order of errors (see "The first error") */
  int *path_pos;       /* the position of each call and apply-to-each under
                          way, outermost first */
  int64_t *path_idx;   /* and each apply-to-each's element (-1: a call) */
  int depth, path_cap;
  int leaf;            /* the position of the operation under way */
  Level *level;        /* the innermost apply-to-each catching errors */
  int bests;           /* levels that hold an error: calls look at them */
  Pending *pending;    /* what a jump to a level carries (NULL: the element
                          went past the level's error, and stops) */
  /* NESL's cost model (docs/cost.md), counted always (a few additions
     per operation), printed under --cost */
  EvalCostMode cost_mode;
  uint64_t work;       /* the statement's work so far */
  uint64_t clock;      /* the statement's depth so far: each step adds its
                          depth; the elements of an apply-to-each start
                          at one clock and end at the latest */
  EvalCost last_cost;  /* of the last statement */
  PtrMap fn_costs;     /* EV_COST_FUNCTIONS: Def -> FnCost, this statement */
  Vec fn_order;        /* FnCost *, in the order of their first call */
};

/* What --cost=functions says of one user function in one statement. */
typedef struct FnCost {
  Def *def;
  uint64_t calls, work, depth; /* depth: the largest of one call */
  int active;          /* its calls under way: only the outermost one's
                          work is added, so that recursion is not counted
                          twice */
} FnCost;

static Value eval(Eval *ev, Expr *e, Env *env);
static void line_start(Eval *ev);

/* ---- the cost model (docs/cost.md) ----

   Work is a sum over the statement.  Depth is a clock: a step of depth
   d advances it by d, so that what the model runs one after the other
   (everything but the elements of an apply-to-each: the arguments of a
   call, a let's bindings, ...) adds its depths; the elements of an
   apply-to-each each start at the clock of their start, and the clock
   goes on from the latest of their ends (eval_apply). */
static inline void cost_step(Eval *ev, uint64_t work, uint64_t depth) {
  ev->work += work;
  ev->clock += depth;
}

/* ceil(log2 n), at least 1: the depth of a sort of n elements */
static uint64_t cost_log2(int64_t n) {
  uint64_t lg = 1;
  while (lg < 63 && ((int64_t)1 << lg) < n)
    lg++;
  return lg;
}

/* The largest length of a sequence at the top of 'v' or of its tuple's
   parts (-1: none). */
static int64_t top_length(Value v) {
  if (v.kind == V_SEQ)
    return v.u.seq->len;
  if (v.kind == V_PAIR) {
    int64_t a = top_length(v.u.pair->fst), b = top_length(v.u.pair->snd);
    return a > b ? a : b;
  }
  return -1;
}

/* The rule of primitive 'name' (docs/cost.md, the primitives' rows). */
static CostRule cost_rule(const char *name) {
  if (strcmp(name, "__global_value") == 0 || strcmp(name, "__keep_value") == 0)
    return COST_NONE;
  if (strcmp(name, "__length") == 0 || strcmp(name, "__elt") == 0)
    return COST_UNIT;
  if (strcmp(name, "rank") == 0 || strcmp(name, "rank_down") == 0 || strcmp(name, "name") == 0)
    return COST_SORT;
  if (strcmp(name, "__gather") == 0)
    return COST_RESULT;
  return COST_BY_SIZE;
}

/* The cost of a primitive of rule 'rule' given 'arg' and giving
   'result': a scalar operation is one step; an operation on sequences
   of at most n elements (arguments and result) does max(1, n) work in
   one step; the sorts n lg n in lg n steps. */
static void cost_primitive(Eval *ev, CostRule rule, Value arg, Value result) {
  if (rule == COST_NONE)
    return;
  int64_t n = -1;
  if (rule != COST_UNIT) {
    int64_t a = rule == COST_RESULT ? -1 : top_length(arg), r = top_length(result);
    n = a > r ? a : r;
  }
  if (n < 0) {
    cost_step(ev, 1, 1);
    return;
  }
  if (n < 1)
    n = 1;
  if (rule == COST_SORT) {
    uint64_t lg = cost_log2(n);
    cost_step(ev, (uint64_t)n * lg, lg);
    return;
  }
  cost_step(ev, (uint64_t)n, 1);
}

static FnCost *fn_cost(Eval *ev, Def *d) {
  FnCost *c = ptrmap_get(&ev->fn_costs, d);
  if (!c) {
    c = NEW(FnCost);
    c->def = d;
    ptrmap_put(&ev->fn_costs, d, c);
    vec_push(&ev->fn_order, c);
  }
  return c;
}

void ev_set_cost(Eval *ev, EvalCostMode mode) { ev->cost_mode = mode; }

EvalCost ev_last_cost(Eval *ev) { return ev->last_cost; }

static void cost_begin_statement(Eval *ev) {
  ev->work = 0;
  ev->clock = 0;
  ptrmap_clear(&ev->fn_costs);
  ev->fn_order.len = 0;
}

/* The cost lines of a statement that ran to its end. */
static void cost_print(Eval *ev) {
  ev->last_cost = (EvalCost){ev->work, ev->clock};
  if (ev->cost_mode == EV_COST_OFF)
    return;
  line_start(ev);
  fprintf(ev->out, "cost: work %llu, depth %llu\n", (unsigned long long)ev->work, (unsigned long long)ev->clock);
  for (int i = 0; i < ev->fn_order.len; i++) {
    FnCost *c = ev->fn_order.data[i];
    fprintf(ev->out, "cost: %s: %llu call%s, work %llu, largest depth %llu\n", c->def->name,
            (unsigned long long)c->calls, c->calls == 1 ? "" : "s", (unsigned long long)c->work,
            (unsigned long long)c->depth);
  }
}

static RtDef *rt(Def *d) {
  if (!d->runtime)
    d->runtime = NEW(RtDef);
  return d->runtime;
}

FILE *ev_out(Eval *ev) { return ev->out; }

void ev_write(Eval *ev, const char *s, size_t n) {
  if (n == 0)
    return;
  fwrite(s, 1, n, ev->out);
  ev->mid_line = s[n - 1] != '\n';
}

/* Starts a transcript line at the beginning of a line. */
static void line_start(Eval *ev) {
  if (ev->mid_line)
    fputc('\n', ev->out);
  ev->mid_line = false;
}

Def *ev_constructor(Eval *ev, Type *t) {
  /* the newest definition of the name may be a later datatype of the same
     name: follow 'prev' to the one the type was made from */
  for (Def *d = tc_lookup(ev->types, t->name); d; d = d->prev)
    if (d->kind == DEF_CONSTRUCTOR && d->data_id == t->data_id)
      return d;
  die("no constructor for datatype %s", t->name);
}

Def *ev_stream_constructor(Eval *ev) {
  Def *d = tc_lookup(ev->types, "stream");
  if (!d || d->kind != DEF_CONSTRUCTOR || !d->library)
    die("the basis library has no stream datatype");
  return d;
}
EvalStats ev_stats(Eval *ev) { return ev->stats; }

/* ---- errors ---- */

/* The innermost user (not library) function being run, or NULL. */
static Def *innermost_user_function(Eval *ev) {
  for (Frame *f = ev->frame; f; f = f->parent)
    if (!f->def->library)
      return f->def;
  return NULL;
}

/* Reports 'msg' at 'loc' as a run-time error of the statement and stops
   it.  A run-time error is reported at the place in the failing
   statement where it arose: the statement's own code, or the call in it
   that led to the error.  The message says where inside a user function
   it happened, and (when 'name_library') which library function the
   user called, by its operator's spelling for operators. */
/* Prints error 'p' and stops the statement. */
static _Noreturn void report(Eval *ev, Pending *p) {
  line_start(ev);
  diag_runtime_error(ev->out, p->where, p->words);
  if (!ev->stop)
    die("run-time error outside a statement: %s", p->words);
  longjmp(*ev->stop, 1);
}

_Noreturn static void stop(Eval *ev, Loc loc, char *msg, bool name_library, bool at_once) {
  /* the runtime's words (rt/error.c), from what the evaluator knows of
     the calls under way: every engine words its errors alike */
  Def *fn = ev->user_depth > 0 ? innermost_user_function(ev) : NULL;
  RtLoc none = {0};
  RtContext c = {name_library && ev->in_library ? ev->lib_fn : NULL,
                 name_library && ev->in_library ? rt_loc(ev->user_loc) : none, fn ? fn->name : ev->ctx_user_fn,
                 rt_loc(ev->stmt_call_loc)};
  const char *words = rt_error_message(&c, rt_loc(loc), NULL, msg, NULL);
  /* where: the same place rt_error_message chose, as a Loc with its
     source, for the line and the caret */
  Loc where = c.user_fn ? ev->stmt_call_loc : c.lib_fn ? ev->user_loc : loc;
  Pending *p = NEW(Pending);
  p->where = where;
  p->words = xstrdup(words);
  if (ev->level && !at_once) {
    /* an element of an apply-to-each: its key, for the first error */
    p->n = ev->depth + 1;
    p->pos = xmalloc_atomic(sizeof(int) * (size_t)p->n);
    p->idx = xmalloc_atomic(sizeof(int64_t) * (size_t)p->n);
    memcpy(p->pos, ev->path_pos, sizeof(int) * (size_t)ev->depth);
    memcpy(p->idx, ev->path_idx, sizeof(int64_t) * (size_t)ev->depth);
    p->pos[ev->depth] = ev->leaf;
    p->idx[ev->depth] = -1;
    ev->pending = p;
    siglongjmp(ev->level->jb, 1);
  }
  report(ev, p); /* at once: Ctrl-C, out of memory, or outside every apply-to-each */
}

void ev_error(Eval *ev, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *msg = xvprintf(fmt, ap);
  va_end(ap);
  stop(ev, loc, msg, true, false);
}

void ev_interrupted(Eval *ev, Loc loc) {
  if (isatty(fileno(ev->out)))
    fputc('\n', ev->out); /* after the ^C the terminal echoed */
  stop(ev, loc, xstrdup("interrupted (Ctrl-C)"), false, true);
}

void ev_too_many(Eval *ev, Loc loc, int64_t n) {
  stop(ev, loc, xprintf("out of memory (could not allocate a vector of %lld elements)", (long long)n), false, false);
}

/* The statement's allocation failed: stop it, at the call under way. */
static void out_of_memory(void *ctx, size_t size) {
  Eval *ev = ctx;
  stop(ev, ev->loc, xprintf("out of memory (could not allocate %zu bytes)", size), false, true);
}

/* Ctrl-C: one load of a volatile flag at every call and element. */
static inline void check_interrupt(Eval *ev, Loc loc) {
  if (interrupt_pending())
    ev_interrupted(ev, loc);
}

/* ---- patterns ---- */

/* ---- the first error ----
   The evaluator runs an apply-to-each element by element; NESL runs the
   flattened program, each step of the body for every element before the
   next step (the flat and λcu interpreters and the executables do so
   too).  Where several elements fail, the error reported is the one the
   flattened program meets first: the first failing operation in the
   order the steps run (let bindings in order, arguments left to right,
   the then-branch of a lifted `if`, recursion included, before its
   else-branch), and among the elements failing there, the lowest
   (docs/nesl.md, "Errors").

   So every expression has a position, its place in its function body's
   order of evaluation (number_expr), and the evaluator keeps the path of
   positions of the calls and apply-to-eachs under way, with each
   apply-to-each's element.  An error's key is that path, its own
   position last, then the elements: keys compare by positions, then by
   elements.  Each apply-to-each catches its elements' errors and keeps
   the first (Level); when its elements are done it passes that error
   on, to the apply-to-each around it or to the statement, which prints
   it.  An element that calls a function at a position past an error
   found already stops there (check_passed): whatever it would do next
   comes later, and it may never end (the flattened program would have
   stopped).  Ctrl-C and running out of memory stop the statement at
   once. */

/* Numbers 'e' and what it holds in the order eval runs them, from
   '*next': the operands before the operation; an apply-to-each's own
   check (the generators' lengths) after its generators and before its
   filter and body. */
static void number_expr(Expr *e, int *next) {
  if (!e)
    return;
  switch (e->kind) {
  case EX_CALL:
  case EX_VAR:
    number_expr(e->u.ref.arg, next);
    break;
  case EX_APP:
    number_expr(e->u.app.fn, next);
    number_expr(e->u.app.arg, next);
    break;
  case EX_BINOP:
  case EX_UNOP:
    number_expr(e->u.op.lhs, next);
    number_expr(e->u.op.rhs, next);
    break;
  case EX_PAIR:
    number_expr(e->u.pair.fst, next);
    number_expr(e->u.pair.snd, next);
    break;
  case EX_SEQ:
    for (int i = 0; i < e->u.elems.len; i++)
      number_expr(e->u.elems.data[i], next);
    break;
  case EX_RANGE:
    number_expr(e->u.range.start, next);
    number_expr(e->u.range.end, next);
    number_expr(e->u.range.stride, next);
    break;
  case EX_INDEX:
    number_expr(e->u.index.seq, next);
    number_expr(e->u.index.index, next);
    break;
  case EX_IF:
    number_expr(e->u.ifx.cond, next);
    number_expr(e->u.ifx.then, next);
    number_expr(e->u.ifx.els, next);
    break;
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      number_expr(((Binding *)e->u.let.binds.data[i])->value, next);
    number_expr(e->u.let.body, next);
    break;
  case EX_APPLY:
    for (int g = 0; g < e->u.apply.gens.len; g++)
      number_expr(((Generator *)e->u.apply.gens.data[g])->seq, next);
    e->pos = ++*next;
    number_expr(e->u.apply.filter, next);
    number_expr(e->u.apply.body, next);
    return;
  case EX_TIME:
    number_expr(e->u.timed, next);
    break;
  default:
    break;
  }
  e->pos = ++*next;
}

static void path_grow(Eval *ev) {
  int cap = ev->path_cap ? 2 * ev->path_cap : 256;
  int *p = xmalloc_atomic(sizeof(int) * (size_t)cap);
  int64_t *x = xmalloc_atomic(sizeof(int64_t) * (size_t)cap);
  if (ev->depth) {
    memcpy(p, ev->path_pos, sizeof(int) * (size_t)ev->depth);
    memcpy(x, ev->path_idx, sizeof(int64_t) * (size_t)ev->depth);
  }
  ev->path_pos = p;
  ev->path_idx = x;
  ev->path_cap = cap;
}

static inline void path_push(Eval *ev, int pos, int64_t idx) {
  if (__builtin_expect(ev->depth == ev->path_cap, 0))
    path_grow(ev);
  ev->path_pos[ev->depth] = pos;
  ev->path_idx[ev->depth] = idx;
  ev->depth++;
}

/* <0, 0, >0: error 'a' comes before 'b', is 'b', comes after it. */
static int key_compare(const Pending *a, const Pending *b) {
  int n = a->n < b->n ? a->n : b->n;
  for (int k = 0; k < n; k++)
    if (a->pos[k] != b->pos[k])
      return a->pos[k] < b->pos[k] ? -1 : 1;
  if (a->n != b->n) /* a call on the other's path: the call begins first */
    return a->n < b->n ? -1 : 1;
  for (int k = 0; k < n; k++)
    if (a->idx[k] != b->idx[k])
      return a->idx[k] < b->idx[k] ? -1 : 1;
  return 0;
}

/* Whether what an element does from a call at position 'pos' on comes
   after error 'p': the positions of the path under way with 'pos', cut
   after index 'cut' where an apply-to-each inside the element has its
   entry (-1: none), since that one's later elements start its body again,
   come after p's.  The same positions as p's come after it: an error a
   level holds is from an element before the one running. */
static bool passed(Eval *ev, int pos, int cut, const Pending *p) {
  int len = cut >= 0 ? cut + 1 : ev->depth + 1;
  int n = len < p->n ? len : p->n;
  for (int k = 0; k < n; k++) {
    int here = k < ev->depth ? ev->path_pos[k] : pos;
    if (here != p->pos[k])
      return here > p->pos[k];
  }
  return len >= p->n;
}

/* A call at position 'pos': an element of an apply-to-each whose work
   from here on comes after that apply-to-each's error stops, back to the
   outermost such one, with the first error the levels inside it hold
   (from the element stopped, they may come before). */
static void check_passed(Eval *ev, int pos) {
  Level *target = NULL;
  int cut = -1;
  for (Level *l = ev->level; l; l = l->parent) {
    if (l->best && passed(ev, pos, cut, l->best))
      target = l;
    cut = l->depth;
  }
  if (!target)
    return;
  Pending *first = NULL;
  for (Level *l = ev->level; l != target; l = l->parent)
    if (l->best && (!first || key_compare(l->best, first) < 0))
      first = l->best;
  ev->pending = first;
  siglongjmp(target->jb, 1);
}

/* Passes error 'p' of a finished apply-to-each on: to the one around it,
   or to the statement. */
static _Noreturn void raise_pending(Eval *ev, Pending *p) {
  if (ev->level) {
    ev->pending = p;
    siglongjmp(ev->level->jb, 1);
  }
  report(ev, p);
}

static Env *bind(Env *env, const char *name, Value v) {
  Env *e = NEW(Env);
  e->name = name;
  e->value = v;
  e->next = env;
  return e;
}

/* Binds the variables of 'p' to the parts of 'v' (which the type checker
   has made fit). */
static Env *match(Env *env, Pattern *p, Value v) {
  switch (p->kind) {
  case PAT_WILD:
    return env;
  case PAT_VAR:
    return bind(env, p->name, v);
  case PAT_PAIR:
    env = match(env, p->fst, v.u.pair->fst);
    return match(env, p->snd, v.u.pair->snd);
  case PAT_CON:
    return match(env, p->arg, v.u.data->fields);
  }
  unreachable();
}

/* Names are interned (ast.c), so they compare by address. */
static bool lookup(Env *env, const char *name, Value *out) {
  for (; env; env = env->next)
    if (env->name == name) {
      *out = env->value;
      return true;
    }
  return false;
}

/* ---- calls ---- */

/* The definition a call checked against 'd' runs now. */
static Def *current(Def *d) {
  while (d->runtime && ((RtDef *)d->runtime)->current)
    d = ((RtDef *)d->runtime)->current;
  return d;
}

/* Finds what generic variable 'var' of 'scheme' corresponds to in 'inst'
   (the same shape); NULL if it does not occur. */
static Type *match_var(Type *scheme, Type *inst, Type *var) {
  scheme = type_resolve(scheme);
  inst = type_resolve(inst);
  if (scheme == var)
    return inst;
  if (scheme->kind != inst->kind)
    return NULL;
  switch (scheme->kind) {
  case T_SEQ:
    return match_var(scheme->elem, inst->elem, var);
  case T_PAIR: {
    Type *t = match_var(scheme->fst, inst->fst, var);
    return t ? t : match_var(scheme->snd, inst->snd, var);
  }
  case T_FUN: {
    Type *t = scheme->ident && inst->ident ? match_var(scheme->ident, inst->ident, var) : NULL;
    t = t ? t : match_var(scheme->fst, inst->fst, var);
    return t ? t : match_var(scheme->snd, inst->snd, var);
  }
  case T_DATA:
    for (int i = 0; i < scheme->args.len && i < inst->args.len; i++) {
      Type *t = match_var(scheme->args.data[i], inst->args.data[i], var);
      if (t)
        return t;
    }
    return NULL;
  default:
    return NULL;
  }
}

/* 't' with every generic variable replaced by the type it stands for in
   'frame' and the frames above it. */
static Type *runtime_type(Frame *frame, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR: {
    if (t->def)
      return t; /* a known function */
    for (Frame *f = frame; f; f = f->parent) {
      Type *u = match_var(f->def->type, f->inst, t);
      if (u)
        return runtime_type(f->parent, u);
    }
    return t;
  }
  case T_SEQ:
    return type_seq(runtime_type(frame, t->elem));
  case T_PAIR:
    return type_pair(runtime_type(frame, t->fst), runtime_type(frame, t->snd));
  case T_FUN:
    return type_fun_id(runtime_type(frame, t->fst), runtime_type(frame, t->snd),
                       t->ident ? runtime_type(frame, t->ident) : NULL);
  case T_DATA: {
    Vec args = {0};
    for (int i = 0; i < t->args.len; i++)
      vec_push(&args, runtime_type(frame, t->args.data[i]));
    return type_data(t->name, t->data_id, args);
  }
  default:
    return t;
  }
}

/* The stack limit is the runtime's (rt/error.c), which the other
   interpreters and the executables share. */
static size_t stack_size;

void ev_set_stack(const void *base, size_t size) {
  stack_size = size;
  rt_set_stack(base, size);
}

bool ev_stack_exhausted(void) { return rt_stack_exhausted(); }

/* Stops a recursion that would exhaust the stack. */
static void check_stack(Eval *ev, Loc loc) {
  if (ev_stack_exhausted())
    ev_error(ev, loc, "recursion too deep: the evaluator's stack (%zu MiB) is exhausted", stack_size >> 20);
}

/* Runs the body of user or library function 'd' with its parameters
   bound in 'env'. */
/* What a call of 'd' changes in 'ev': its frame, and the library and
   user context that errors name; leave_function undoes it.  A body is
   numbered for the order of errors (Expr.pos) the first time it runs. */
typedef struct Entered {
  Frame frame;
  bool library, user;
} Entered;

static void enter_function(Eval *ev, Def *d, Type *inst, Loc loc, Entered *en) {
  en->library = !ev->in_library && d->library;
  if (en->library) {
    ev->in_library = true;
    ev->user_loc = loc;
    ev->lib_fn = d->name;
  }
  en->frame = (Frame){d, inst, ev->frame};
  en->user = !d->library;
  if (en->user && ev->user_depth++ == 0)
    ev->stmt_call_loc = loc;
  ev->frame = &en->frame;
  if (__builtin_expect(!d->top->body->pos, 0)) { /* its first call */
    int next = 0;
    number_expr(d->top->body, &next);
  }
}

static void leave_function(Eval *ev, Entered *en) {
  ev->frame = en->frame.parent;
  if (en->user)
    ev->user_depth--;
  if (en->library)
    ev->in_library = false;
}

static Value run_function(Eval *ev, Def *d, Type *inst, Env *env, Loc loc, int pos) {
  ev->leaf = pos; /* the call's own errors */
  if (ev->bests)
    check_passed(ev, pos);
  check_stack(ev, loc);
  if (!d->top->body) /* the checker rejects a statement that would get here */
    ev_error(ev, loc, "'%s' is declared but not defined", d->name);
  check_interrupt(ev, loc);
  ev->loc = loc;
  ev->stats.calls++;
  FnCost *fc = ev->cost_mode == EV_COST_FUNCTIONS && !d->library ? fn_cost(ev, d) : NULL;
  uint64_t work0 = ev->work, clock0 = ev->clock;
  if (fc) {
    fc->calls++;
    fc->active++;
  }
  Entered en;
  enter_function(ev, d, inst, loc, &en);
  path_push(ev, pos, -1);
  Value result = eval(ev, d->top->body, env);
  ev->depth--;
  leave_function(ev, &en);
  if (fc) {
    if (--fc->active == 0)
      fc->work += ev->work - work0;
    if (ev->clock - clock0 > fc->depth)
      fc->depth = ev->clock - clock0;
  }
  return result;
}

static Value run_primitive(Eval *ev, Def *d, Type *inst, Value arg, Loc loc, int pos) {
  if (ev->bests)
    check_passed(ev, pos);
  ev->leaf = pos; /* the primitive's errors are its call's */
  ev->stats.calls++;
  ev->stats.prim_calls++;
  ev->loc = loc;
  RtDef *r = rt(d);
  if (!r->prim) {
    r->prim = prim_lookup(d->name);
    if (!r->prim)
      die("primitive %s has no implementation", d->name);
    r->boxed_args = r->prim == prim_lookup_io(d->name);
    r->cost_rule = (uint8_t)cost_rule(d->name);
  }
  if (r->boxed_args)
    arg = val_boxed(arg); /* io.c indexes Seq.elems */
  bool entered = !ev->in_library;
  if (entered) {
    ev->in_library = true;
    ev->user_loc = loc;
    ev->lib_fn = d->name;
  }
  Type *type = r->prim->needs_type ? runtime_type(ev->frame, inst) : NULL;
  Value result = r->prim->fn(ev, arg, loc, type);
  if (entered)
    ev->in_library = false;
  cost_primitive(ev, (CostRule)r->cost_rule, arg, result);
  return result;
}

/* Calls 'd' (as checked at type 'inst') on the value 'arg'. */
static Value call(Eval *ev, Def *d, Type *inst, Value arg, Loc loc, int pos) {
  d = current(d);
  if (d->kind == DEF_CONSTRUCTOR)
    return val_data(d, arg);
  if (d->primitive)
    return run_primitive(ev, d, inst, arg, loc, pos);
  return run_function(ev, d, inst, match(NULL, d->top->param, arg), loc, pos);
}

/* Binds pattern 'p' to the value of 'arg' (evaluated in 'caller'),
   adding to 'callee'.  A tuple argument written out against a tuple
   pattern is bound part by part, without building the tuple: most calls
   are f(a, b, ...) against function f(x, y, ...). */
static Env *bind_argument(Eval *ev, Env *callee, Pattern *p, Expr *arg, Env *caller) {
  if (p->kind == PAT_PAIR && arg->kind == EX_PAIR) {
    callee = bind_argument(ev, callee, p->fst, arg->u.pair.fst, caller);
    return bind_argument(ev, callee, p->snd, arg->u.pair.snd, caller);
  }
  return match(callee, p, eval(ev, arg, caller));
}

/* f(arg): a call written in the program. */
static Value call_expr(Eval *ev, Expr *e, Env *env) {
  Def *d = current(e->u.ref.def);
  if (d->kind == DEF_CONSTRUCTOR || d->primitive)
    return call(ev, d, e->u.ref.inst, eval(ev, e->u.ref.arg, env), e->loc, e->pos);
  Env *params = bind_argument(ev, NULL, d->top->param, e->u.ref.arg, env);
  return run_function(ev, d, e->u.ref.inst, params, e->loc, e->pos);
}

/* fn(arg) where fn's value is a function: its type says which. */
static Value call_value(Eval *ev, Expr *e, Env *env) {
  eval(ev, e->u.app.fn, env); /* for its errors: the value is F */
  Value arg = eval(ev, e->u.app.arg, env);
  Type *ft = runtime_type(ev->frame, e->u.app.fn->type);
  Type *id = ft->kind == T_FUN && ft->ident ? type_resolve(ft->ident) : NULL;
  if (!id || !id->def) {
    ev->leaf = e->pos;
    ev_error(ev, e->loc, "which function '%s' is was not known when the program was compiled",
             ast_expr_to_string(e->u.app.fn));
  }
  return call(ev, id->def, ft, arg, e->loc, e->pos);
}

static Value global_value(Eval *ev, Def *d, Loc loc, int pos) {
  d = current(d); /* a variable defined again with an equivalent type */
  RtDef *r = rt(d);
  ev->leaf = pos;
  if (!r->has_value)
    ev_error(ev, loc, "'%s' has no value: its definition stopped with an error", d->name);
  return r->value;
}

/* ---- expressions ---- */

/* {body : p1 in s1; ... | filter}.  A generator whose pattern is a
   name binds it in one environment node that each element overwrites: no
   value keeps an environment, so nothing can see the node after its
   element is done, and an apply-to-each over 10^8 elements allocates no
   node per element.  The result is packed when its elements are
   scalars. */
/* Evaluates, for their errors alone, the closed expressions
   (frontend/invariant.h) that NESL's lifted code for 'e' computes over
   no elements: those outside the branches of its ifs, in its
   apply-to-each, and in the bodies of the functions it calls, each
   function walked once ('seen'), in its frame, as a call would run it.
   flatten's closed_parts walks the same. */
static void closed_parts(Eval *ev, Expr *e, PtrMap *seen);

typedef struct ClosedParts {
  Eval *ev;
  PtrMap *seen;
} ClosedParts;

static void closed_value(void *ctx, Expr *e) { (void)eval(((ClosedParts *)ctx)->ev, e, NULL); }

static void closed_call(void *ctx, Expr *e) {
  Eval *ev = ((ClosedParts *)ctx)->ev;
  PtrMap *seen = ((ClosedParts *)ctx)->seen;
  Def *d = NULL;
  Type *inst = NULL;
  if (e->kind == EX_CALL && e->u.ref.def) {
    d = current(e->u.ref.def);
    inst = e->u.ref.inst;
  } else if ((e->kind == EX_BINOP || e->kind == EX_UNOP) && e->u.op.def) {
    d = current(e->u.op.def);
    inst = e->u.op.inst;
  } else if (e->kind == EX_APP) {
    /* a function value: its type says which (call_value) */
    Type *ft = runtime_type(ev->frame, e->u.app.fn->type);
    Type *id = ft->kind == T_FUN && ft->ident ? type_resolve(ft->ident) : NULL;
    if (id && id->def) {
      d = current(id->def);
      inst = ft;
    }
  }
  if (!d || d->kind != DEF_FUNCTION || d->primitive || !d->top || !d->top->body || ptrmap_get(seen, d))
    return;
  ptrmap_put(seen, d, d);
  /* the frame and context a call would have, so that an error names the
     function as it does when the function runs */
  check_stack(ev, e->loc);
  Entered en;
  enter_function(ev, d, runtime_type(ev->frame, inst), e->loc, &en);
  closed_parts(ev, d->top->body, seen);
  leave_function(ev, &en);
}

static void closed_parts(Eval *ev, Expr *e, PtrMap *seen) {
  /* run for their errors only: the model gives an apply-to-each over no
     elements the cost of its generators alone (docs/cost.md) */
  uint64_t work = ev->work, clock = ev->clock;
  EvalCostMode mode = ev->cost_mode;
  if (mode == EV_COST_FUNCTIONS)
    ev->cost_mode = EV_COST_STATEMENTS;
  inv_walk_closed(&ev->inv, e, closed_value, closed_call, &(ClosedParts){ev, seen});
  ev->cost_mode = mode;
  ev->work = work;
  ev->clock = clock;
}

static Value eval_apply(Eval *ev, Expr *e, Env *env) {
  int n = e->u.apply.gens.len;
  Value *seqs = xmalloc(sizeof(Value) * (size_t)n);
  int64_t len = 0;
  for (int g = 0; g < n; g++) {
    Generator *gen = e->u.apply.gens.data[g];
    seqs[g] = eval(ev, gen->seq, env);
    int64_t l = seqs[g].u.seq->len;
    ev->leaf = e->pos;
    if (g > 0 && l != len)
      ev_error(ev, gen->seq->loc, "length mismatch in an apply-to-each: the generators have lengths %lld and %lld",
               (long long)len, (long long)l);
    len = l;
  }
  /* the apply-to-each itself: one step over its n elements (it gives
     each element its values and collects the results) */
  cost_step(ev, len > 1 ? (uint64_t)len : 1, 1);
  /* the elements in parallel, each from the generators' end (volatile:
     an element's error comes back by a longjmp) */
  volatile uint64_t elems_start = ev->clock, elems_end = elems_start;
  /* when every generator binds a name: one reusable node each, the last
     generator's first, as match() would chain them */
  bool all_names = true;
  for (int g = 0; g < n; g++)
    all_names &= ((Generator *)e->u.apply.gens.data[g])->pat->kind == PAT_VAR;
  Env *reused = env;
  for (int g = 0; all_names && g < n; g++)
    reused = bind(reused, ((Generator *)e->u.apply.gens.data[g])->pat->name, val_int(0));
  /* each element's error comes here (see "The first error"), with the
     state of the element's start */
  Level lv;
  lv.parent = ev->level;
  lv.best = NULL;
  lv.depth = ev->depth;
  lv.i = 0;
  lv.out = 0;
  lv.result = NULL;
  Frame *frame = ev->frame;
  bool in_library = ev->in_library;
  Loc user_loc = ev->user_loc, stmt_call_loc = ev->stmt_call_loc, loc = ev->loc;
  const char *lib_fn = ev->lib_fn;
  int user_depth = ev->user_depth, depth = ev->depth;
  path_push(ev, e->pos, 0);
  ev->level = &lv;
  if (sigsetjmp(lv.jb, 0)) {
    ev->frame = frame;
    ev->in_library = in_library;
    ev->user_loc = user_loc;
    ev->stmt_call_loc = stmt_call_loc;
    ev->loc = loc;
    ev->lib_fn = lib_fn;
    ev->user_depth = user_depth;
    ev->depth = depth + 1;
    ev->level = &lv;
    ev->clock = elems_start;
    Pending *p = ev->pending;
    if (p && (!lv.best || key_compare(p, lv.best) < 0)) {
      lv.best = p;
      /* the levels holding an error, inner ones left by the jump */
      ev->bests = 0;
      for (Level *l = &lv; l; l = l->parent)
        ev->bests += l->best != NULL;
    }
    lv.i++;
  }
  for (; lv.i < len; lv.i++) {
    int64_t i = lv.i;
    if (ev->clock > elems_end)
      elems_end = ev->clock;
    ev->clock = elems_start;
    ev->path_idx[depth] = i;
    check_interrupt(ev, e->loc);
    Env *inner = reused;
    if (all_names) {
      Env *node = reused;
      for (int g = n - 1; g >= 0; g--, node = node->next)
        node->value = seq_get(seqs[g].u.seq, i);
    } else {
      inner = env;
      for (int g = 0; g < n; g++) {
        Generator *gen = e->u.apply.gens.data[g];
        inner = match(inner, gen->pat, seq_get(seqs[g].u.seq, i));
      }
    }
    if (e->u.apply.filter && !eval(ev, e->u.apply.filter, inner).u.b)
      continue;
    Value v = eval(ev, e->u.apply.body, inner);
    if (!lv.result)
      lv.result = val_seq_like(v, len - i).u.seq;
    seq_set(lv.result, lv.out++, v);
  }
  if (ev->clock < elems_end)
    ev->clock = elems_end;
  /* a filter packs the kept elements: one step over the n elements */
  if (e->u.apply.filter)
    cost_step(ev, len > 1 ? (uint64_t)len : 1, 1);
  ev->level = lv.parent;
  ev->depth = depth;
  if (lv.best) {
    ev->bests--;
    raise_pending(ev, lv.best);
  }
  /* over no elements (none at all, or none the filter kept), the body's
     closed expressions, and the filter's when it saw none, are still
     computed, as NESL's flattened code computes them */
  if (lv.out == 0) {
    PtrMap seen = {0};
    if (len == 0 && e->u.apply.filter)
      closed_parts(ev, e->u.apply.filter, &seen);
    closed_parts(ev, e->u.apply.body, &seen);
  }
  Value result = lv.result ? (Value){.kind = V_SEQ, .u.seq = lv.result} : val_seq_new(0);
  result.u.seq->len = lv.out;
  return result;
}

static Value eval_range(Eval *ev, Expr *e, Env *env) {
  int32_t s = eval(ev, e->u.range.start, env).u.i;
  int32_t end = eval(ev, e->u.range.end, env).u.i;
  int32_t d = e->u.range.stride ? eval(ev, e->u.range.stride, env).u.i : 1;
  ev->leaf = e->pos;
  if (end < s || d <= 0)
    ev_error(ev, e->loc, "bad range [%d:%d:%d]: the end must be >= the start and the stride positive", s, end, d);
  int64_t len = ((int64_t)end - s + d - 1) / d;
  if (len > INT32_MAX) /* [min_int:max_int] */
    ev_too_many(ev, e->loc, len);
  cost_step(ev, len > 1 ? (uint64_t)len : 1, 1);
  Value v = val_seq_packed(V_INT, len);
  for (int64_t i = 0; i < len; i++) {
    seq_set(v.u.seq, i, val_int((int32_t)(s + i * d)));
    if ((i & 0xffff) == 0)
      check_interrupt(ev, e->loc);
  }
  return v;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static Value eval(Eval *ev, Expr *e, Env *env) {
  switch (e->kind) {
  case EX_INT:
    return val_int(e->u.ival);
  case EX_FLOAT:
    return val_float(e->u.fval);
  case EX_BOOL:
    return val_bool(e->u.bval);
  case EX_CHAR:
    return val_char(e->u.cval);
  case EX_STRING: {
    Value v = val_seq_packed(V_CHAR, (int64_t)e->u.str.len);
    memcpy(v.u.seq->elems, e->u.str.chars, e->u.str.len);
    return v;
  }
  case EX_VAR: {
    Value v;
    if (!e->u.ref.def && lookup(env, e->u.ref.name, &v))
      return v;
    if (e->u.ref.def->kind != DEF_VALUE)
      return val_bool(false); /* a function: its type says which */
    return global_value(ev, e->u.ref.def, e->loc, e->pos);
  }
  case EX_CALL:
    return call_expr(ev, e, env);
  case EX_APP:
    return call_value(ev, e, env);
  case EX_BINOP: {
    Value a = eval(ev, e->u.op.lhs, env);
    Value b = eval(ev, e->u.op.rhs, env);
    if (current(e->u.op.def)->primitive) {
      /* a primitive reads its argument and keeps no pointer to it, so the
         pair can live on the stack: most operators are primitives, and
         this saves an allocation per operation */
      Pair args = {a, b};
      return call(ev, e->u.op.def, e->u.op.inst, (Value){.kind = V_PAIR, .u.pair = &args}, e->loc, e->pos);
    }
    return call(ev, e->u.op.def, e->u.op.inst, val_pair(a, b), e->loc, e->pos);
  }
  case EX_UNOP:
    return call(ev, e->u.op.def, e->u.op.inst, eval(ev, e->u.op.lhs, env), e->loc, e->pos);
  case EX_PAIR: {
    Value a = eval(ev, e->u.pair.fst, env);
    return val_pair(a, eval(ev, e->u.pair.snd, env));
  }
  case EX_SEQ: {
    Value v = {.kind = V_SEQ, .u.seq = NULL};
    for (int i = 0; i < e->u.elems.len; i++) {
      Value x = eval(ev, e->u.elems.data[i], env);
      if (!v.u.seq)
        v = val_seq_like(x, e->u.elems.len);
      seq_set(v.u.seq, i, x);
    }
    /* making the sequence: one step over its elements */
    cost_step(ev, e->u.elems.len > 1 ? (uint64_t)e->u.elems.len : 1, 1);
    return v.u.seq ? v : val_seq_new(0);
  }
  case EX_EMPTY:
    return val_seq_new(0);
  case EX_RANGE:
    return eval_range(ev, e, env);
  case EX_INDEX: {
    Value s = eval(ev, e->u.index.seq, env);
    int32_t i = eval(ev, e->u.index.index, env).u.i;
    cost_step(ev, 1, 1);
    if (i < 0 || i >= s.u.seq->len) {
      ev->leaf = e->pos;
      ev_error(ev, e->loc, "subscript %d is out of range for a sequence of length %lld", i,
               (long long)s.u.seq->len);
    }
    return seq_get(s.u.seq, i);
  }
  case EX_IF:
    if (eval(ev, e->u.ifx.cond, env).u.b)
      return eval(ev, e->u.ifx.then, env);
    return eval(ev, e->u.ifx.els, env);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i];
      env = match(env, b->pat, eval(ev, b->value, env));
    }
    return eval(ev, e->u.let.body, env);
  case EX_APPLY:
    return eval_apply(ev, e, env);
  case EX_TIME: {
    double start = now_seconds();
    Value v = eval(ev, e->u.timed, env);
    return val_pair(v, val_float(now_seconds() - start));
  }
  }
  unreachable();
}

/* ---- top level ---- */

Eval *ev_new(TypeEnv *types, FILE *out) {
  Eval *ev = NEW(Eval);
  ev->types = types;
  ev->out = out;
  ev_rand_seed(ev, 0);
  return ev;
}

/* Gives the variables of 'p', in order, the parts of 'v': the Defs the
   checker made for them are in 'defs' in the same order. */
static void define_values(Pattern *p, Value v, Vec *defs, int *next) {
  switch (p->kind) {
  case PAT_WILD:
    return;
  case PAT_VAR: {
    RtDef *r = rt(vec_get(defs, (*next)++));
    r->value = v;
    r->has_value = true;
    return;
  }
  case PAT_PAIR:
    define_values(p->fst, v.u.pair->fst, defs, next);
    define_values(p->snd, v.u.pair->snd, defs, next);
    return;
  case PAT_CON:
    define_values(p->arg, v.u.data->fields, defs, next);
    return;
  }
}

/* Records 'd' as the replacement of the definition it replaces
   (tc_replaced_def).  A library function is never replaced: the
   library's own calls must not see a user's definition. */
static void forward_redefinition(Def *d) {
  Def *old = tc_replaced_def(d);
  if (old)
    rt(old)->current = d;
}

/* The same for each variable a binding defines: a function that reads
   a global reads its value when it runs, as CMU NESL's do, so that `k =
   10;` after `k = 3;` changes what a function reading k computes from
   then on (NESL.md, redefinition).  The forwarding is made whether the
   binding's statement succeeds or not, as the compiled program's (mono.c
   resolves it before the program runs): where it fails, the variable
   takes the old one's value (keep_replaced), as CMU NESL binds nothing
   then.  `it` too: a function that reads it reads the last value of its type
   when it runs (`3 + 4; function h(x) = x + it; 10; h(1);` is 11 in CMU
   NESL, and `h(1)` again 12). */
static void forward_bound(TopLevel *top) {
  for (int i = 0; i < top->bound.len; i++)
    forward_redefinition(top->bound.data[i]);
}

/* After binding statement 'top' stopped with an error: CMU NESL then
   binds nothing, so each variable it defines again keeps the value of
   the definition it replaces (`3; 1 / 0; it;` prints 3), which is what
   that definition's readers, now forwarded to the new one, read. */
static void keep_replaced(TopLevel *top) {
  for (int i = 0; i < top->bound.len; i++) {
    Def *d = top->bound.data[i], *old = tc_replaced_def(d);
    if (old && rt(old)->has_value && !rt(d)->has_value) {
      rt(d)->value = rt(old)->value;
      rt(d)->has_value = true;
    }
  }
}

/* Evaluates the statement's expression; on a run-time error (reported),
   '*ok' is false.  Running out of memory is such an error: the statement
   stops and the next one runs (alloc_set_oom_handler). */
static Value run_body(Eval *ev, TopLevel *top, bool *ok) {
  jmp_buf jb;
  jmp_buf *saved = ev->stop;
  ev->stop = &jb;
  ev->in_library = false;
  ev->loc = top->loc;
  if (setjmp(jb)) {
    alloc_set_oom_handler(NULL, NULL);
    ev->stop = saved;
    ev->in_library = false;
    ev->frame = NULL;
    ev->user_depth = 0;
    ev->depth = 0;
    ev->level = NULL;
    ev->bests = 0;
    *ok = false;
    return val_int(0);
  }
  alloc_set_oom_handler(out_of_memory, ev);
  if (!top->body->pos) {
    int next = 0;
    number_expr(top->body, &next);
  }
  cost_begin_statement(ev);
  Value v = eval(ev, top->body, NULL);
  /* NESL's REPL rejects a value holding an infinity or a NaN, whatever
     the statement computed on the way (rt_check_value); a binding so
     stopped binds nothing */
  double bad;
  if (val_nonfinite(v, &bad))
    ev_error(ev, top->loc, "returning %s: infinity and not-a-number (NaN) are not supported",
             rt_nonfinite_name(bad));
  alloc_set_oom_handler(NULL, NULL);
  ev->stop = saved;
  *ok = true;
  return v;
}

/* Prints `NAME = VALUE : TYPE` for 'top', whose value is 'v'.  The text
   of a large value may not fit in memory (a dist of a dist is shared
   here, but printed in full): that is the statement's run-time error,
   reported at the statement, and the next statement runs; the names
   the statement bound keep their values.  False after such an error. */
static bool print_top(Eval *ev, TopLevel *top, const char *name, Value v) {
  jmp_buf jb;
  jmp_buf *saved = ev->stop;
  ev->stop = &jb;
  ev->loc = top->loc;
  if (setjmp(jb)) {
    alloc_set_oom_handler(NULL, NULL);
    ev->stop = saved;
    return false;
  }
  alloc_set_oom_handler(out_of_memory, ev);
  size_t len;
  char *text = val_to_string(v, top->type, &len);
  char *type = type_value_to_string(top->type);
  alloc_set_oom_handler(NULL, NULL);
  ev->stop = saved;
  line_start(ev);
  /* by its length: a character of code 0 in the value is printed */
  fprintf(ev->out, "%s = ", name);
  fwrite(text, 1, len, ev->out);
  fprintf(ev->out, " : %s\n", type);
  return true;
}

bool ev_run_top(Eval *ev, TopLevel *top) {
  bool ok = true;
  line_start(ev);
  switch (top->kind) {
  case TOP_FUNCTION:
  case TOP_DATATYPE:
    forward_redefinition(top->def);
    if (!top->def->library) {
      line_start(ev);
      fprintf(ev->out, "%s%s\n", tc_redefinition_notice(top), tc_def_signature_line(top->def));
    }
    break;
  case TOP_BIND: {
    Value v = run_body(ev, top, &ok);
    forward_bound(top);
    if (!ok) {
      keep_replaced(top);
    } else {
      int next = 0;
      define_values(top->pat, v, &top->bound, &next);
      if (!top->library) {
        ok = print_top(ev, top, xprintf("%s%s", tc_redefinition_notice(top), ast_pattern_to_string(top->pat)), v);
        if (ok)
          cost_print(ev);
      }
    }
    break;
  }
  case TOP_EXPR: {
    Value v = run_body(ev, top, &ok);
    if (ok)
      ok = print_top(ev, top, "it", v);
    if (ok)
      cost_print(ev);
    break;
  }
  }
  fflush(ev->out);
  return ok;
}

bool ev_cost_of(Eval *ev, TopLevel *top, EvalCost *cost) {
  bool ok = true;
  line_start(ev);
  run_body(ev, top, &ok);
  *cost = (EvalCost){ev->work, ev->clock};
  fflush(ev->out);
  return ok;
}

void ev_init_library(Eval *ev, Program *lib) {
  for (int i = 0; i < lib->tops.len; i++) {
    TopLevel *top = lib->tops.data[i];
    if (top->kind == TOP_BIND && !ev_run_top(ev, top))
      die("the basis library's binding on line %d fails", top->loc.line);
  }
}

/* ---- random numbers ----
   A counter-based generator: draw k after seed s is splitmix64(s, k).
   The same program and seed give the same numbers on every run.  The
   flattened backends number their draws by call site and element instead
   (lib-nesl/README.md); this evaluator visits elements in another order
   and may draw other numbers. */

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* The seed is mixed first, so that nearby seeds give unrelated streams. */
void ev_rand_seed(Eval *ev, int32_t seed) {
  ev->seed = mix64((uint64_t)(uint32_t)seed ^ 0x632be59bd9b4e019ULL);
  ev->draws = 0;
}

uint64_t ev_rand_next(Eval *ev) { return mix64(ev->seed + ++ev->draws * 0x9e3779b97f4a7c15ULL); }

/* ---- for other interpreters ---- */

void ev_set_stop(Eval *ev, jmp_buf *stop) { ev->stop = stop; }

void ev_set_error_context(Eval *ev, const char *lib_fn, Loc user_loc, const char *user_fn, Loc stmt_loc) {
  ev->in_library = lib_fn != NULL;
  ev->lib_fn = lib_fn;
  ev->user_loc = user_loc;
  ev->ctx_user_fn = user_fn;
  ev->stmt_call_loc = stmt_loc;
  ev->user_depth = 0;
  ev->frame = NULL;
}

Value ev_call_prim(Eval *ev, const char *name, Value arg, Loc loc, Type *type) {
  const Prim *p = prim_lookup(name);
  if (!p)
    die("primitive %s has no implementation", name);
  /* the callers (flat_layout.c) index Seq.elems */
  return val_boxed(p->fn(ev, arg, loc, type));
}

/* ---- the REPL's values, for the other engines ----
   The REPL keeps every top-level value in the Defs' RtDef, whichever
   engine computed it.  The flat and λcu engines reach them through two
   primitives (lib-nesl: __global_value, __keep_value) that mono puts in
   place of the reads (MonoExternals) and around a binding's value; both
   tables are the process's, as the REPL is. */

static Vec exported;        /* Def * by slot */
static PtrMap export_slots; /* Def -> slot + 1 */
static Vec kept;            /* Value * by slot, NULL until kept */

int ev_export_global(Def *d) {
  intptr_t slot = (intptr_t)ptrmap_get(&export_slots, d);
  if (slot)
    return (int)slot - 1;
  vec_push(&exported, d);
  ptrmap_put(&export_slots, d, (void *)(intptr_t)exported.len);
  return exported.len - 1;
}

int ev_keep_slot(void) {
  vec_push(&kept, NULL);
  return kept.len - 1;
}

bool ev_take_kept(int slot, Value *out) {
  Value *v = vec_get(&kept, slot);
  if (!v)
    return false;
  *out = *v;
  kept.data[slot] = NULL;
  return true;
}

/* __global_value(k): the value of exported global k */
Value ev_prim_global_value(Eval *ev, Value k, Loc loc, Type *type) {
  (void)type;
  Def *d = vec_get(&exported, k.u.i);
  return global_value(ev, d, loc, ev->leaf); /* the primitive's call */
}

bool ev_exported_value(Eval *ev, int k, Value *out, const char **name) {
  Def *d = vec_get(&exported, k);
  RtDef *r = rt(d);
  (void)ev;
  *name = d->name;
  if (!r->has_value)
    return false;
  *out = r->value;
  return true;
}

/* __keep_value(k, v): v, kept in slot k */
Value ev_prim_keep_value(Eval *ev, Value a, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  int k = a.u.pair->fst.u.i;
  if (k < 0 || k >= kept.len)
    die("__keep_value: no slot %d", k);
  Value *v = NEW(Value);
  *v = a.u.pair->snd;
  kept.data[k] = v;
  return *v;
}

void ev_define_top(TopLevel *top, Value v) {
  int next = 0;
  define_values(top->pat, v, &top->bound, &next);
}

void ev_note_definition(TopLevel *top) {
  if (top->kind == TOP_FUNCTION || top->kind == TOP_DATATYPE)
    forward_redefinition(top->def);
}

void ev_note_binding(TopLevel *top) {
  if (top->kind == TOP_BIND)
    forward_bound(top);
}

void ev_keep_replaced(TopLevel *top) {
  if (top->kind == TOP_BIND)
    keep_replaced(top);
}

Def *ev_current_def(Def *d) { return current(d); }

void ev_begin_line(Eval *ev) { line_start(ev); }

uint64_t ev_rand_state(Eval *ev) { return ev->seed; }
