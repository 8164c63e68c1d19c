/*
 * copyrun.c: the runs of a segment that a SEG_MAP copies (the CPU target).
 *
 * Flattening reads a nested value's segments where they lie (views: an
 * append's parts, a lifted if's merge, the pieces of a divide and
 * conquer put back; docs/flatten.md), and fusion leaves SEG_MAPs whose
 * pull reads one of a few vectors at an index that, inside a segment, is
 * an affine function of the element chosen by comparisons of such
 * functions:
 *
 *     let j = bound(start[s] + (i - off[s]) * stride[s], n) in
 *     if j < #a then a[j] else b[j - #a]
 *
 * Element by element that is a dozen operations, their checks and a
 * branch for one load and one store (a quicksort level's two such
 * SEG_MAPs and its `result[0] ++ equal ++ result[1]` took 45% of a
 * one-core sort).  Here a segment is cut into runs in which every
 * comparison that the element changes keeps its value (where each one
 * changes is computed from its difference at the run's first element and
 * at the next one), and a run whose index steps by one, whose checks hold
 * at both its ends and whose values fit 32 bits there is one memcpy:
 * inside a run each int the pull computes is affine in the element, so
 * what holds at both ends holds between them, and the elements' own
 * computation would have stored the same values and found no error.
 * Anything else (a short run, a failed check, a value out of 32 bits)
 * goes to the element loop, which computes and reports as before.
 *
 * A SEG_MAP of several results (a pair's two vectors) may copy each, and
 * results that are ints or bools affine in the element (a segment's
 * number beside its element) ride along, stored by a loop without
 * checks; a read whose index stays in a run stores its one value.
 */
#include <string.h>

#include "codegen.h"

/* What an int or bool expression of the pull is, within a segment. */
typedef enum Shape {
  SH_BAD,   /* not handled: the thunk gets no runs */
  SH_FIXED, /* the same for every element of the segment */
  SH_AFFINE /* an int affine in the element within a run (a bool: a
               function of comparisons of such ints) */
} Shape;

/* The most expression nodes the shapes of a pull may walk (a name's
   value once, a result's reads of a shared let again): a larger pull
   gets no runs, whose three evaluations would make too much code. */
enum { RUN_MOST_NODES = 400 };

/* How each evaluation reads the pull: at the run's first element
   (choosing each if's branch, noting each comparison), at the next
   element (the comparisons again, the branches as chosen, no checks
   kept), at the run's last (the branches as chosen, which must still
   be their conditions' values). */
typedef enum Mode { AT_FIRST, AT_NEXT, AT_LAST } Mode;

typedef struct Runs {
  Cg *cg;
  const LcuThunk *pull;
  CgBinding *env;
  const LcuVar *elem, *seg; /* the pull's parameters */
  const char *seg_value;    /* the segment's C value */
  Vec lets;                 /* RunLet *: the let-bound names */
  Vec choices;              /* const LcuExp *: the ifs and selects, a local each */
  Vec compares;             /* const LcuExp *: the comparisons the element changes */
  Vec scope;                /* LcuVar *, then its local: the names in scope where the code is */
  int values;               /* the locals made */
  int nodes;
  bool *reads;              /* result k a read (else an int or bool value) */
  const char *prefix; /* the locals' names: prefix + "c3" ... */
} Runs;

/* A name bound by the thunk's shared lets (a local each evaluation,
   written once in order) or by an LE_LET (written out where it is read),
   and its shape, found once. */
typedef struct RunLet {
  const LcuVar *var;
  const LcuExp *value;
  Shape shape;
  int shared; /* its place among the thunk's lets; -1: an LE_LET's */
  bool read;  /* a shared let that is a read, the value of a result */
} RunLet;

static RunLet *let_of(Runs *r, const LcuVar *v) {
  for (int i = 0; i < r->lets.len; i++)
    if (((RunLet *)r->lets.data[i])->var == v)
      return r->lets.data[i];
  return NULL;
}

static const LcuExp *let_value(Runs *r, const LcuVar *v) {
  RunLet *l = let_of(r, v);
  return l ? l->value : NULL;
}

static Shape shape(Runs *r, const LcuExp *e);

static Shape bind_let(Runs *r, const LcuVar *var, const LcuExp *value, int shared) {
  RunLet *l = let_of(r, var);
  if (l)
    return l->shape;
  l = NEW(RunLet);
  l->var = var;
  l->value = value;
  l->shared = shared;
  l->shape = shape(r, value);
  vec_push(&r->lets, l);
  return l->shape;
}

static int index_of(const Vec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->data[i] == p)
      return i;
  return -1;
}

static bool int_or_bool(FlatBase b) { return b == FB_INT || b == FB_BOOL; }

static Shape join(Shape a, Shape b) { return a == SH_BAD || b == SH_BAD ? SH_BAD : a > b ? a : b; }

/* The shape of 'e', noting its ifs, selects and the comparisons the
   element changes. */
static Shape shape(Runs *r, const LcuExp *e) {
  if (++r->nodes > RUN_MOST_NODES || !int_or_bool(e->type))
    return SH_BAD;
  switch (e->kind) {
  case LE_CONST:
  case LE_LENGTH:
    return SH_FIXED;
  case LE_VAR: {
    if (e->var == r->elem)
      return SH_AFFINE;
    if (e->var == r->seg)
      return SH_FIXED;
    RunLet *l = let_of(r, e->var);
    return l ? l->shape : SH_FIXED; /* else a `using` scalar (an int or a bool: above) */
  }
  case LE_INDEX:
    if (!int_or_bool(e->var->type.base))
      return SH_BAD;
    /* fall through */
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    return shape(r, e->args[0]) == SH_FIXED ? SH_FIXED : SH_BAD; /* a gather is no run */
  case LE_BOUND:
    return shape(r, e->args[1]) == SH_FIXED ? shape(r, e->args[0]) : SH_BAD;
  case LE_LET:
    return join(bind_let(r, e->var, e->args[0], -1), shape(r, e->args[1]));
  case LE_IF: {
    Shape s = join(shape(r, e->args[0]), join(shape(r, e->args[1]), shape(r, e->args[2])));
    if (s != SH_BAD && index_of(&r->choices, e) < 0)
      vec_push(&r->choices, (void *)e);
    return s;
  }
  case LE_CALL:
    return SH_BAD;
  case LE_OP:
    break;
  }
  Shape s = SH_FIXED, arg[3] = {SH_FIXED, SH_FIXED, SH_FIXED};
  for (int i = 0; i < e->nargs && i < 3; i++)
    s = join(s, arg[i] = shape(r, e->args[i]));
  if (s == SH_BAD || e->nargs > 3)
    return SH_BAD;
  FlatBase base = e->nargs > 0 ? e->args[0]->type : e->type;
  if (flat_op_compares(e->op)) { /* of ints: where the element changes it, a run ends */
    if (base != FB_INT)
      return SH_BAD;
    if (s == SH_AFFINE && index_of(&r->compares, e) < 0)
      vec_push(&r->compares, (void *)e);
    return s;
  }
  switch (e->op) {
  case FLAT_ADD:
  case FLAT_SUB:
  case FLAT_NEG:
    return base == FB_INT ? s : SH_BAD;
  case FLAT_MUL: /* affine times fixed */
    return base == FB_INT && (arg[0] == SH_FIXED || arg[1] == SH_FIXED) ? s : SH_BAD;
  case FLAT_AND:
  case FLAT_OR:
  case FLAT_NOT:
    return base == FB_BOOL ? s : SH_BAD; /* an int's are bitwise: no run */
  case FLAT_SELECT:
    if (index_of(&r->choices, e) < 0)
      vec_push(&r->choices, (void *)e);
    return s;
  default:
    return SH_BAD;
  }
}

/* Is 'e', the pull's result, a read of a vector at an affine index, or a
   choice of such reads by an if? */
static bool read_shape(Runs *r, const LcuExp *e) {
  if (++r->nodes > RUN_MOST_NODES)
    return false;
  switch (e->kind) {
  case LE_INDEX:
    return e->var->type.base == e->type && shape(r, e->args[0]) != SH_BAD;
  case LE_IF:
    if (shape(r, e->args[0]) == SH_BAD || !read_shape(r, e->args[1]) || !read_shape(r, e->args[2]))
      return false;
    if (index_of(&r->choices, e) < 0)
      vec_push(&r->choices, (void *)e);
    return true;
  case LE_LET:
    return bind_let(r, e->var, e->args[0], -1) != SH_BAD && read_shape(r, e->args[1]);
  case LE_VAR: {
    const LcuExp *v = let_value(r, e->var);
    return v && read_shape(r, v);
  }
  default:
    return false;
  }
}

/* ---- the evaluations ----

   Each evaluation writes the pull as the thunk translator does: a local
   a node (`const int64_t t5_v3 = rt_run_add(...);`), an if's branches as
   C's, a let's name the local of its value; only the checks differ (a
   flag cleared, nothing recorded). */

static const char *local(Runs *r, const char *what, int k) { return xprintf("%s%s%d", r->prefix, what, k); }

static const char *ok_flag(Runs *r, Mode m) { return m == AT_NEXT ? local(r, "skip", 0) : local(r, "ok", 0); }

static const char *point(Runs *r, Mode m) {
  return local(r, m == AT_FIRST ? "a" : m == AT_NEXT ? "next" : "last", 0);
}

/* A new local holding 'value'. */
static const char *value_local(Runs *r, const char *value) {
  const char *v = local(r, "v", r->values++);
  cg_line(r->cg, "const int64_t %s = %s;", v, value);
  return v;
}

/* The branch an if or a select takes, given its condition's local: chosen
   at the first element; as chosen at the next (the condition computed
   for the comparisons in it); at the last, as chosen, where the
   condition must still have that value. */
static const char *choice(Runs *r, const LcuExp *e, const char *cond, Mode m) {
  const char *ch = local(r, "c", index_of(&r->choices, e));
  if (m == AT_FIRST)
    cg_line(r->cg, "%s = (int)%s;", ch, cond);
  else if (m == AT_LAST)
    cg_line(r->cg, "if (%s != %s)", cond, ch);
  if (m == AT_LAST)
    cg_line(r->cg, "  %s = 0;", ok_flag(r, m));
  return ch;
}

static const char *ev(Runs *r, const LcuExp *e, Mode m);
static const char *ev_read(Runs *r, const LcuExp *e, Mode m, const char *src, const char *len);

/* The local of let-bound 'var' where it is in scope (r->scope: LcuVar *,
   then its local), or NULL. */
static const char *scoped(Runs *r, const LcuVar *var) {
  for (int i = r->scope.len - 2; i >= 0; i -= 2)
    if (r->scope.data[i] == var)
      return r->scope.data[i + 1];
  return NULL;
}

/* Puts let-bound 'var' in scope as 'value' (computed before). */
static void bind_local(Runs *r, const LcuVar *var, const char *value) {
  vec_push(&r->scope, (void *)var);
  vec_push(&r->scope, (void *)value);
}

static const char *ev_op(Runs *r, const LcuExp *e, Mode m) {
  const char *a = e->nargs > 0 ? ev(r, e->args[0], m) : NULL;
  const char *b = e->nargs > 1 ? ev(r, e->args[1], m) : NULL;
  const char *ok = xprintf("&%s", ok_flag(r, m));
  switch (e->op) {
  case FLAT_ADD:
    return value_local(r, xprintf("rt_run_add(%s, %s, %s)", a, b, ok));
  case FLAT_SUB:
    return value_local(r, xprintf("rt_run_sub(%s, %s, %s)", a, b, ok));
  case FLAT_MUL:
    return value_local(r, xprintf("rt_run_mul(%s, %s, %s)", a, b, ok));
  case FLAT_NEG:
    return value_local(r, xprintf("rt_run_neg(%s, %s)", a, ok));
  case FLAT_AND:
    return value_local(r, xprintf("%s & %s", a, b));
  case FLAT_OR:
    return value_local(r, xprintf("%s | %s", a, b));
  case FLAT_NOT:
    return value_local(r, xprintf("!%s", a));
  case FLAT_SELECT: { /* both values computed, and checked, as the element's are */
    const char *c = ev(r, e->args[2], m);
    return value_local(r, xprintf("%s ? %s : %s", choice(r, e, a, m), b, c));
  }
  default: { /* a comparison */
    int k = index_of(&r->compares, e);
    const char *d = k < 0 || m == AT_LAST ? local(r, "scratch", 0) : local(r, m == AT_FIRST ? "d" : "dn", k);
    const char *seen = k >= 0 && m == AT_FIRST ? local(r, "seen", k) : local(r, "scratch_seen", 0);
    return value_local(r, xprintf("rt_run_cmp(%s, %s, %s, &%s, &%s)", cg_rtop(e->op), a, b, d, seen));
  }
  }
}

/* An if: its condition, then the branch chosen, into a local (a
   result's 'read': its branches by ev_read). */
static const char *ev_if(Runs *r, const LcuExp *e, Mode m, bool read, const char *src, const char *len) {
  const char *ch = choice(r, e, ev(r, e->args[0], m), m);
  const char *v = local(r, "v", r->values++);
  cg_line(r->cg, "int64_t %s;", v);
  for (int side = 1; side <= 2; side++) {
    cg_line(r->cg, side == 1 ? "if (%s) {" : "} else {", ch);
    r->cg->indent++;
    int mark = r->scope.len;
    cg_line(r->cg, "%s = %s;", v, read ? ev_read(r, e->args[side], m, src, len) : ev(r, e->args[side], m));
    r->scope.len = mark;
    r->cg->indent--;
  }
  cg_line(r->cg, "}");
  return v;
}

static const char *ev(Runs *r, const LcuExp *e, Mode m) {
  const char *ok = xprintf("&%s", ok_flag(r, m));
  switch (e->kind) {
  case LE_CONST:
    return xprintf("(int64_t)%s", cg_constant(e->constant));
  case LE_LENGTH:
    return xprintf("(int64_t)%s", cg_lookup(r->env, e->var)->length);
  case LE_VAR: {
    if (e->var == r->elem) /* the element's index, as an int, must fit too */
      return value_local(r, xprintf("rt_run_int(%s, %s)", point(r, m), ok));
    if (e->var == r->seg)
      return xprintf("(int64_t)%s", r->seg_value);
    const char *l = scoped(r, e->var);
    return l ? l : xprintf("(int64_t)%s", cg_lookup(r->env, e->var)->value);
  }
  case LE_INDEX: {
    CgBinding *b = cg_lookup(r->env, e->var);
    const char *i = ev(r, e->args[0], m);
    return value_local(r, xprintf("rt_run_get_%c(%s, %s, %s, %s)", e->var->type.base == FB_INT ? 'i' : 'b', b->value,
                                  b->length, i, ok));
  }
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET: {
    CgBinding *b = cg_lookup(r->env, e->var);
    const char *i = ev(r, e->args[0], m);
    return value_local(r, xprintf("rt_run_seg(%s, %s, %s, %d, %s)", b->offsets, b->length, i,
                                  e->kind == LE_SEG_LENGTH, ok));
  }
  case LE_BOUND: { /* checked at the run's ends; the next element may lie past it */
    const char *i = ev(r, e->args[0], m), *n = ev(r, e->args[1], m);
    return value_local(r, xprintf("rt_run_bound(%s, %s, %s)", i, n, ok));
  }
  case LE_LET: /* the value computed for its checks, even where nothing reads it */
    bind_local(r, e->var, ev(r, e->args[0], m));
    return ev(r, e->args[1], m);
  case LE_IF:
    return ev_if(r, e, m, false, NULL, NULL);
  case LE_OP:
    return ev_op(r, e, m);
  case LE_CALL:
    break;
  }
  unreachable();
}

/* A result that is a read, at the mode's element: its index, with the
   vector it reads and that vector's length put in 'src' and 'len' (where
   not NULL: at the next element only the comparisons are wanted). */
static const char *ev_read(Runs *r, const LcuExp *e, Mode m, const char *src, const char *len) {
  switch (e->kind) {
  case LE_INDEX: {
    const char *i = ev(r, e->args[0], m);
    if (src) {
      CgBinding *b = cg_lookup(r->env, e->var);
      cg_line(r->cg, "%s = %s;", src, b->value);
      cg_line(r->cg, "%s = %s;", len, b->length);
    }
    return i;
  }
  case LE_IF:
    return ev_if(r, e, m, true, src, len);
  case LE_LET:
    bind_local(r, e->var, ev(r, e->args[0], m));
    return ev_read(r, e->args[1], m, src, len);
  case LE_VAR: /* a shared let's value (the only reads they hold are the result's) */
    return ev_read(r, let_value(r, e->var), m, src, len);
  default:
    unreachable();
  }
}

/* The thunk's shared lets in order, a local each (every one computed,
   for its checks, as the element's are; a read is computed as the
   result it is). */
static void ev_lets(Runs *r, Mode m) {
  r->scope.len = 0;
  for (int i = 0; i < r->pull->lets.len; i++) {
    const LcuLet *l = r->pull->lets.data[i];
    if (!let_of(r, l->var)->read)
      bind_local(r, l->var, ev(r, l->value, m));
  }
}

CgRuns *cg_copy_runs_plan(const LcuThunk *pull) {
  if (pull->params.len != 2)
    return NULL;
  Runs *r = NEW(Runs);
  r->pull = pull;
  r->elem = pull->params.data[0];
  r->seg = pull->params.data[1];
  for (int i = 0; i < pull->lets.len; i++) {
    const LcuLet *l = pull->lets.data[i];
    if (bind_let(r, l->var, l->value, i) != SH_BAD)
      continue;
    /* a read, if it is a result's whole value (below) */
    if (!read_shape(r, l->value))
      return NULL;
    let_of(r, l->var)->read = true;
  }
  r->reads = xmalloc_atomic(sizeof(bool) * (size_t)pull->body.len);
  bool any_read = false;
  for (int k = 0; k < pull->body.len; k++) {
    const LcuExp *e = pull->body.data[k];
    r->reads[k] = read_shape(r, e);
    if (!r->reads[k] && shape(r, e) == SH_BAD)
      return NULL;
    any_read |= r->reads[k];
  }
  /* a shared read that no result is would be computed, and checked,
     nowhere */
  for (int i = 0; i < pull->lets.len; i++) {
    const LcuLet *l = pull->lets.data[i];
    bool used = false;
    for (int k = 0; k < pull->body.len; k++) {
      const LcuExp *e = pull->body.data[k];
      used |= e->kind == LE_VAR && e->var == l->var;
    }
    if (let_of(r, l->var)->read && !used)
      return NULL;
  }
  return any_read ? (CgRuns *)r : NULL; /* values alone: the elements' loop is as good */
}

void cg_copy_runs(Cg *cg, CgRuns *plan, CgBinding *env, const char *seg_value, const char *i, const char *end,
                  const char *stop, const char **dests, const FlatBase *bases) {
  Runs *r = (Runs *)plan;
  r->cg = cg;
  r->env = env;
  r->seg_value = seg_value;
  r->prefix = xprintf("%s_", cg_temp(cg));
  r->values = 0;
  int nres = r->pull->body.len;
  const char *a = point(r, AT_FIRST), *next = point(r, AT_NEXT), *last = point(r, AT_LAST);
  const char *ok = ok_flag(r, AT_FIRST), *skip = ok_flag(r, AT_NEXT);
  const char *run_end = local(r, "end", 0);
  const char **first = xmalloc(sizeof(char *) * (size_t)nres), **at_last = xmalloc(sizeof(char *) * (size_t)nres);
  cg_line(cg, "if (%s - %s >= RT_RUN_MIN) { /* a run of copies from %s (codegen/copyrun.c) */", end, i, i);
  cg->indent++;
  cg_line(cg, "int %s = 1, %s = 1;", ok, skip);
  cg_line(cg, "const int64_t %s = %s;", a, i);
  for (int k = 0; k < r->choices.len; k++)
    cg_line(cg, "int %s = 0;", local(r, "c", k));
  for (int k = 0; k < r->compares.len; k++) {
    cg_line(cg, "int64_t %s = 0, %s = 0;", local(r, "d", k), local(r, "dn", k));
    cg_line(cg, "int %s = 0;", local(r, "seen", k));
  }
  cg_line(cg, "int64_t %s = 0;", local(r, "scratch", 0));
  cg_line(cg, "int %s = 0;", local(r, "scratch_seen", 0));
  for (int k = 0; k < nres; k++)
    if (r->reads[k]) {
      cg_line(cg, "const %s *%s = NULL;", cg_ctype(bases[k]), local(r, "src", k));
      cg_line(cg, "int64_t %s = 0;", local(r, "len", k));
    }
  /* the first element: its branches chosen, its comparisons noted */
  cg_line(cg, "/* at the run's first element */");
  ev_lets(r, AT_FIRST);
  for (int k = 0; k < nres; k++) {
    const LcuExp *e = r->pull->body.data[k];
    first[k] = r->reads[k] ? ev_read(r, e, AT_FIRST, local(r, "src", k), local(r, "len", k)) : ev(r, e, AT_FIRST);
  }
  /* the run ends where the first comparison changes */
  cg_line(cg, "int64_t %s = %s;", run_end, end);
  if (r->compares.len) {
    cg_line(cg, "{ /* at the next: where each comparison changes */");
    cg->indent++;
    cg_line(cg, "const int64_t %s = %s + 1;", next, a);
    ev_lets(r, AT_NEXT);
    for (int k = 0; k < nres; k++) {
      const LcuExp *e = r->pull->body.data[k];
      cg_line(cg, "(void)%s;", r->reads[k] ? ev_read(r, e, AT_NEXT, NULL, NULL) : ev(r, e, AT_NEXT));
    }
    for (int k = 0; k < r->compares.len; k++) {
      const LcuExp *c = r->compares.data[k];
      cg_line(cg, "if (%s) {", local(r, "seen", k));
      cg_line(cg, "  int64_t k = rt_run_flip(%s, %s, %s - %s);", cg_rtop(c->op), local(r, "d", k),
              local(r, "dn", k), local(r, "d", k));
      cg_line(cg, "  if (k < %s - %s)", run_end, a);
      cg_line(cg, "    %s = %s + k;", run_end, a);
      cg_line(cg, "}");
    }
    cg->indent--;
    cg_line(cg, "}");
  }
  cg_line(cg, "(void)%s;", skip);
  /* the last element: the same branches, every check and value again */
  for (int k = 0; k < nres; k++)
    if (r->reads[k])
      cg_line(cg, "const %s *%s = %s;", cg_ctype(bases[k]), local(r, "first_src", k), local(r, "src", k));
  cg_line(cg, "const int64_t %s = %s - 1;", last, run_end);
  cg_line(cg, "/* at the run's last element */");
  ev_lets(r, AT_LAST);
  for (int k = 0; k < nres; k++) {
    const LcuExp *e = r->pull->body.data[k];
    at_last[k] = r->reads[k] ? ev_read(r, e, AT_LAST, local(r, "src", k), local(r, "len", k)) : ev(r, e, AT_LAST);
  }
  /* each result's step: a read's index by one (a copy) or none (a value
     repeated), a value's its difference over the run */
  Buf cond = {0};
  buf_printf(&cond, "%s", ok);
  for (int k = 0; k < nres; k++) {
    const char *step = local(r, "step", k);
    if (r->reads[k]) {
      cg_line(cg, "const int64_t %s = %s == %s ? 0 : 1;", step, at_last[k], first[k]);
      buf_printf(&cond, " && %s == %s && %s - %s == %s * (%s - %s) && %s >= 0 && %s < %s", local(r, "src", k),
                 local(r, "first_src", k), at_last[k], first[k], step, last, a, first[k], at_last[k],
                 local(r, "len", k));
    } else {
      cg_line(cg, "const int64_t %s = %s > %s ? (%s - %s) / (%s - %s) : 0;", step, last, a, at_last[k], first[k],
              last, a);
      buf_printf(&cond, " && %s + %s * (%s - %s) == %s", first[k], step, last, a, at_last[k]);
    }
  }
  cg_line(cg, "if (%s) {", buf_str(&cond));
  cg->indent++;
  cg_line(cg, "if (%s - %s >= RT_RUN_MIN) {", run_end, a);
  cg->indent++;
  for (int k = 0; k < nres; k++) {
    if (!dests[k])
      continue; /* read by nothing: its checks were made */
    const char *type = cg_ctype(bases[k]), *step = local(r, "step", k);
    if (r->reads[k]) {
      cg_line(cg, "if (%s)", step);
      cg_line(cg, "  memcpy(%s + %s, %s + %s, sizeof(%s) * (size_t)(%s - %s));", dests[k], a, local(r, "src", k),
              first[k], type, run_end, a);
      cg_line(cg, "else");
      cg_line(cg, "  for (int64_t k = %s; k < %s; k++)", a, run_end);
      cg_line(cg, "    %s[k] = %s[%s];", dests[k], local(r, "src", k), first[k]);
    } else {
      cg_line(cg, "for (int64_t k = %s; k < %s; k++)", a, run_end);
      cg_line(cg, "  %s[k] = (%s)(%s + (k - %s) * %s);", dests[k], type, first[k], a, step);
    }
  }
  cg_line(cg, "%s = %s;", i, run_end);
  cg_line(cg, "continue;");
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "%s = %s; /* a short run: the elements' loop */", stop, run_end);
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "}");
}
