/*
 * flatten.c: the flattening transformation (Blelloch; Keller's thesis),
 * from monomorphic NESL (mono.c) to the flat IR (flat.h).
 *
 * Requires: a MonoProgram (monomorphic types, datatypes as tuples, calls
 * resolved to instances).  Gives: a FlatProgram with no apply-to-each:
 * every value is spread over flat components (flat.h: H(t) at the host,
 * V(t) for n values at once), and every parallel operation is one flat or
 * segmented operation over whole vectors.
 *
 * An expression is translated in a context: the host, or lifted over n
 * elements (inside an apply-to-each, or in a lifted function f^).  In a
 * lifted context every variable holds V(t) for the n elements, constants
 * are distributed, scalar primitives become element-wise operations on
 * vectors, sequence primitives their segmented forms, and a call of f
 * becomes a call of f^, made on demand.  The rules, by construct:
 *  - {e : p in s | c} at the host: s gives V(t); e is translated lifted
 *    over #s elements, with p bound to V(t) and the free variables of e
 *    distributed; c packs every variable of the context first.
 *  - the same inside a lifted context: s gives (segdes, V(t)); the inner
 *    context has one element per element of all segments; the free
 *    variables are replicated per segment (gathered by segment id); the
 *    result is (segdes, V(e)).
 *  - if c then a else b, lifted: the flags of c split the context; each
 *    branch runs on the elements that take it (packed), and not at all
 *    when there are none (this is what ends a lifted recursion); the
 *    results are merged back in order.
 *  - a lifted function f^ returns empty results at once on an empty
 *    context, so recursion stays on the host and ends.
 * Sequence operations on values of any type (gather, pack, append,
 * distribute) are expanded along the type into operations on the flat
 * components (the *_values helpers).
 */
#include <math.h>
#include <string.h>

#include "flatten.h"
#include "frontend/invariant.h"

/* ---- the pass's state ---- */

typedef struct Fl {
  MonoProgram *mp;
  FlatProgram *fp;
  Map funcs;       /* "name" or "name^" -> FlatFunc * */
  Vec pending;     /* Pending *: functions whose bodies are still to make */
  PtrMap globals;  /* Def (by pointer) -> Vec * of the global FlatVars */
  FlatBlock *block; /* where statements go */
  Loc loc;         /* of the expression being translated */
  int sites;       /* numbers RAND statements */
  PtrMap loops;    /* MonoFunc -> what scalar_kind found it to be */
  PtrMap each;     /* MonoFunc -> what called_each found (EACH_*) */
  PtrMap seq_loops; /* MonoFunc -> what seq_loop found */
  PtrMap seq_loop_forms; /* MonoFunc -> its SeqLoop, where it is one */
  bool scalar_code; /* making the body of a function that may run as
                       one element's scalar code, whose ifs each give
                       one scalar (host_if) */
  MonoFunc *part_of; /* making part 'part' (1..k) of this function's tuple
                        result (get_part): its calls of itself are calls
                        of the part */
  int part;
  MonoFunc *whole_of; /* making this sequence loop's element function of
                         its whole tuple result (get_whole): its calls of
                         itself are calls of that function */
  Invariants inv;  /* which expressions are closed (frontend/invariant.h) */
  bool cost;       /* for --cost: FS_COST statements, and none of the
                      translations that compute other than the model
                      charges (if-conversion, closed scalars hoisted,
                      scalar code per element; docs/cost.md) */
  int no_cost;     /* inside code run for its errors alone: no FS_COST
                      (between an OFF and an ON, for what it calls) */
  PtrMap views;    /* FlatVar (a segdes) -> View *: whole segments of a
                      nested value, gathered (gather_values_in) */
  PtrMap appended; /* FlatVar (a segdes) -> Appended *: the segdes of two
                      nested values appended (append_values) */
  PtrMap made;     /* FlatVar (a segdes) -> its atom: made from lengths
                      here (make_segdes), not a parameter's or a result's */
  PtrMap counted;  /* FlatVar (a segdes) -> the atom of its offsets: a
                      lifted filter's segdes, made from the counts of its
                      flags, whose offsets are taken where it is made,
                      beside the filter, whose SPLIT gives them
                      (fusion's rule_split_offsets; offsets_at_hand) */
  PtrMap uniform;  /* FlatVar (a segdes) -> k (intptr_t, >= 1): each of
                      its segments has k elements (a lifted sequence of
                      k, sequence) */
  PtrMap dist_of;  /* FlatVar (an int vector) -> the FlatAtom c where the
                      vector is `dist c n` of a constant c */
  bool once;       /* the gather being made takes each element at most
                      once (a lifted subscript's): its SEG_RANGEs are
                      <segments once> */
  bool replicating; /* the gather being made copies values to many
                       elements (View.replicated) */
  FlatAtom *known_total; /* the total of the next SEG_RANGE, known
                            (combine_values), or NULL */
  bool permuting;  /* the gather being made takes every element once, in
                      another order: each SEG_RANGE's total is its
                      segdes's (FlatStmt.total) */
  bool guarded;    /* the gather being made is a lifted subscript's, by
                      indices in range or -1: its GATHERs that are not
                      of whole segments are <guarded> */
  bool library;    /* making the body of a library function, whose
                      errors are worded as the primitives' */
  bool lifted_body; /* making the body of a recursive lifted function
                       (f^): a level of divide and conquer, which runs
                       once a level */
} Fl;

/* Segments of a nested value gathered whole, so that their elements are
   also where they were (lifted_append reads them there): segment s of
   the value of 'segdes' and 'gathered' is the 'lengths'[s] elements of
   'source' from 'starts'[s] on. */
typedef struct View {
  Vec gathered;      /* FlatAtom *: the gathered elements' components */
  Vec source;        /* FlatAtom *: the components they were gathered from */
  FlatAtom *starts;  /* int vector: each segment's first element in source */
  FlatAtom *lengths; /* int vector: each segment's length (the segdes's,
                        computed before it: its readers need not make it) */
  bool replicated;   /* each segment of the source taken many times (a
                        value distributed, a free variable replicated per
                        element): a subscript reads the source (subscript) */
  FlatAtom *top;     /* a lifted subscript's by a constant: the segdes of
                        the value subscripted (its element s is segment s
                        of top), and 'index' the constant; else NULL.
                        Views of one value whose top's segments all have
                        k elements, by the indices 0 to k - 1 each once,
                        hold all of the source (lifted_append's total) */
  int index;
} View;

/* The segdes of nested values a ++ b (append_values): its segments are
   a's, then b's, so its offsets are a's, then b's moved past a's
   elements, known without the scan that making it from its lengths
   needs (segdes_offsets). */
typedef struct Appended {
  FlatAtom *a, *b; /* the two values' segdes */
  Vec a_elems;     /* V(u) of a's elements, whose number moves b's offsets */
  Type *u;
} Appended;

typedef struct Pending {
  FlatFunc *func;
  MonoFunc *mono;
  int component; /* 1..k: the function giving component k of the
                    instance's tuple result alone (get_part); 0: all */
} Pending;

/* A value being built: its components (FlatAtom *), in layout order. */
typedef Vec Vals;

/* The context: host, or lifted over 'len' elements. */
typedef struct Ctx {
  bool lifted;
  FlatAtom *len; /* lifted: the number of elements (an int scalar) */
} Ctx;

/* Local variables: name -> components. */
typedef struct Env {
  const char *name;
  Type *type;
  Vals vals;
  bool invariant; /* in a lifted context, the same value for every
                     element: 'vals' holds H(t) once, not V(t) */
  struct Env *next;
} Env;

/* ---- emitting statements ---- */

static FlatStmt *stmt(Fl *fl, FlatStmtKind kind) {
  FlatStmt *s = NEW(FlatStmt);
  s->kind = kind;
  s->loc = fl->loc;
  vec_push(&fl->block->stmts, s);
  return s;
}

/* New variables of 'types' (FlatType *) as statement 's''s results, as
   atoms. */
static Vals stmt_results(Fl *fl, FlatStmt *s, const Vec *types) {
  Vals r = {0};
  for (int i = 0; i < types->len; i++) {
    FlatVar *v = flat_new_var(fl->fp, *(FlatType *)types->data[i], NULL);
    vec_push(&s->results, v);
    vec_push(&r, flat_var_atom(v));
  }
  return r;
}

/* results = op(args...), one result of type 'rt'. */
static FlatAtom *op(Fl *fl, FlatOp o, FlatType rt, int nargs, ...) {
  FlatStmt *s = stmt(fl, FS_OP);
  s->op = o;
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++)
    vec_push(&s->args, va_arg(ap, FlatAtom *));
  va_end(ap);
  FlatVar *v = flat_new_var(fl->fp, rt, NULL);
  vec_push(&s->results, v);
  return flat_var_atom(v);
}

static FlatType ty(const FlatAtom *a) { return flat_atom_type(a); }
static FlatType vec_int(void) { return flat_vec(FB_INT); }
static FlatType vec_bool(void) { return flat_vec(FB_BOOL); }
static FlatType int_scalar(void) { return flat_scalar(FB_INT); }

static FlatAtom *int_const(int32_t i) { return flat_int_atom(i); }

/* Vector of the element type of a vector or scalar atom. */
static FlatType as_vec(FlatType t) { return flat_vec(t.base); }

static FlatAtom *length(Fl *fl, FlatAtom *v) { return op(fl, FLAT_LENGTH, int_scalar(), 1, v); }
static FlatAtom *iota(Fl *fl, FlatAtom *n) {
  return op(fl, FLAT_RANGE, vec_int(), 3, int_const(0), n, int_const(1));
}
static FlatAtom *dist(Fl *fl, FlatAtom *x, FlatAtom *n) {
  FlatAtom *d = op(fl, FLAT_DIST, as_vec(ty(x)), 2, x, n);
  if (x->kind == FA_INT)
    ptrmap_put(&fl->dist_of, d->u.var, x);
  return d;
}

/* The constant c where 'v' is `dist c n`: true and '*c' set. */
static bool dist_constant(Fl *fl, const FlatAtom *v, int32_t *c) {
  const FlatAtom *x = v->kind == FA_VAR ? ptrmap_get(&fl->dist_of, v->u.var) : NULL;
  if (!x)
    return false;
  *c = x->u.i;
  return true;
}
static FlatAtom *seg_lengths(Fl *fl, FlatAtom *d) { return op(fl, FLAT_SEG_LENGTHS, vec_int(), 1, d); }
/* The offsets of segdes 'd': those taken where a lifted filter made it
   (Fl.counted), else a seg_offsets of it. */
static FlatAtom *seg_offsets(Fl *fl, FlatAtom *d) {
  FlatAtom *known = d->kind == FA_VAR ? ptrmap_get(&fl->counted, d->u.var) : NULL;
  return known ? known : op(fl, FLAT_SEG_OFFSETS, vec_int(), 1, d);
}
static FlatAtom *make_segdes(Fl *fl, FlatAtom *lens) {
  FlatAtom *d = op(fl, FLAT_MAKE_SEGDES, flat_segdes(), 1, lens);
  ptrmap_put(&fl->made, d->u.var, d);
  return d;
}
static FlatAtom *binary(Fl *fl, FlatOp o, FlatAtom *a, FlatAtom *b) {
  FlatType t = ty(a);
  bool vec = t.kind == FT_VEC || ty(b).kind == FT_VEC;
  FlatBase base = flat_op_compares(o) ? FB_BOOL : t.base;
  return op(fl, o, vec ? flat_vec(base) : flat_scalar(base), 2, a, b);
}

/* A block to fill: makes 'fl' emit into it until restored. */
static FlatBlock *enter_block(Fl *fl, FlatBlock **saved) {
  *saved = fl->block;
  fl->block = NEW(FlatBlock);
  return fl->block;
}

/* if cond then ERROR(msg) -- for checks that the primitives cannot do */
static FlatAtom *string_vector(Fl *fl, const char *s, size_t n);

static void error_if(Fl *fl, FlatAtom *cond, const char *msg) {
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, cond);
  FlatBlock *saved;
  s->then = enter_block(fl, &saved);
  FlatAtom *text = string_vector(fl, msg, strlen(msg));
  FlatStmt *e = stmt(fl, FS_OP);
  e->op = FLAT_ERROR;
  vec_push(&e->args, text);
  s->els = NEW(FlatBlock);
  fl->block = saved;
}

/* NESL's argument check 'kind' (RtCheckKind) on the operands given,
   scalars or vectors of one length, ending with NULL: it stops the
   statement in the evaluator's words at the first position that fails. */
static void check(Fl *fl, int kind, ...) {
  FlatStmt *s = stmt(fl, FS_OP);
  s->op = FLAT_CHECK;
  s->check = kind;
  va_list ap;
  va_start(ap, kind);
  for (FlatAtom *a; (a = va_arg(ap, FlatAtom *));)
    vec_push(&s->args, a);
  va_end(ap);
}

/* a + b, two numbers of elements, as a known total (FlatStmt.total):
   checked first to fit an int, as the segdes made with that total
   checks its own, with the same words, so that a total past max_int is
   that error and never a wrapped total the GPU would size by. */
static FlatAtom *total_sum(Fl *fl, FlatAtom *a, FlatAtom *b) {
  check(fl, RT_CHECK_APPEND, a, b, NULL);
  return binary(fl, FLAT_ADD, a, b);
}

/* n segments of k elements each (1 <= k <= 8): n summed k times as a
   known total, each sum checked as total_sum's. */
static FlatAtom *uniform_total(Fl *fl, FlatAtom *n, intptr_t k) {
  FlatAtom *sum = n;
  for (intptr_t i = 1; i < k; i++)
    sum = total_sum(fl, sum, n);
  return sum;
}

/* The length k (1 to 8) of each range of a lifted [s:e:d] whose three
   bounds are constants distributed (`k in [0:4]` inside an
   apply-to-each) and pass the range's check; else 0.  Its segments then
   hold k elements each, as a lifted sequence of k does. */
static intptr_t constant_range_length(Fl *fl, FlatAtom *s, FlatAtom *e, FlatAtom *d) {
  int32_t a, b, c;
  if (!dist_constant(fl, s, &a) || !dist_constant(fl, e, &b) || !dist_constant(fl, d, &c) ||
      !rt_range_size_ok(a, b, c))
    return 0;
  int64_t k = rt_range_length(a, b, c);
  return k >= 1 && k <= 8 ? (intptr_t)k : 0;
}

/* A constant [:char:] of the 'n' characters at 's' (NUL bytes included). */
static FlatAtom *string_vector(Fl *fl, const char *s, size_t n) {
  if (n == 0)
    return op(fl, FLAT_DIST, flat_vec(FB_CHAR), 2, flat_char_atom(' '), int_const(0));
  FlatStmt *st = stmt(fl, FS_OP);
  st->op = FLAT_VECTOR;
  for (size_t i = 0; i < n; i++)
    vec_push(&st->args, flat_char_atom(s[i]));
  FlatVar *v = flat_new_var(fl->fp, flat_vec(FB_CHAR), NULL);
  vec_push(&st->results, v);
  return flat_var_atom(v);
}

/* ---- layouts ---- */

static int host_count(Type *t) {
  Vec v = {0};
  flatten_host_layout(t, &v);
  return v.len;
}

static int vector_count(Type *t) {
  Vec v = {0};
  flatten_vector_layout(t, &v);
  return v.len;
}

static Type *res(Type *t) { return type_resolve(t); }


static bool is_base(Type *t) {
  TypeKind k = res(t)->kind;
  return k == T_INT || k == T_FLOAT || k == T_BOOL || k == T_CHAR;
}

/* vals[from .. from+n) */
static Vals slice(Vals v, int from, int n) {
  Vals r = {0};
  for (int i = 0; i < n; i++)
    vec_push(&r, vec_get(&v, from + i));
  return r;
}

/* One allocation of the exact size: a value nested N deep has N + 1
   components, and each level of a literal nested N deep puts one before
   the level below's. */
static Vals concat(Vals a, Vals b) {
  Vals r = {0};
  r.len = r.cap = a.len + b.len;
  if (!r.len)
    return r;
  r.data = xmalloc(sizeof(void *) * (size_t)r.len);
  if (a.len)
    memcpy(r.data, a.data, sizeof(void *) * (size_t)a.len);
  if (b.len)
    memcpy(r.data + a.len, b.data, sizeof(void *) * (size_t)b.len);
  return r;
}

static Vals one(FlatAtom *a) {
  Vals r = {0};
  vec_push(&r, a);
  return r;
}

/* The number of values in V(t) 'v'. */
static FlatAtom *vals_length(Fl *fl, Vals v, Type *t) {
  FlatAtom *first = vec_get(&v, 0);
  if (ty(first).kind == FT_SEGDES)
    return op(fl, FLAT_SEG_COUNT, int_scalar(), 1, first);
  (void)t;
  return length(fl, first);
}

/* ---- operations on values of any type, along the type ---- */

/* The zero of base 'b' (0, 0.0, F), a char's being 'ch'. */
static FlatAtom *base_zero(FlatBase b, char ch) {
  switch (b) {
  case FB_INT:
    return int_const(0);
  case FB_FLOAT:
    return flat_float_atom(0.0);
  case FB_BOOL:
    return flat_bool_atom(false);
  default:
    return flat_char_atom(ch);
  }
}

/* V(t) of 'n' (an int atom) copies of the zero of t whose char is
   'ch', tuples field by field (datatypes are tuples here, and a function
   value is F). */
static Vals filled_values(Fl *fl, Type *t, FlatAtom *n, char ch) {
  t = res(t);
  if (is_base(t))
    return one(dist(fl, base_zero(flatten_base(t), ch), n));
  if (t->kind == T_PAIR)
    return concat(filled_values(fl, t->fst, n, ch), filled_values(fl, t->snd, n, ch));
  FlatAtom *d = make_segdes(fl, dist(fl, int_const(0), n));
  return concat(one(d), filled_values(fl, t->elem, int_const(0), ch));
}

/* V(t) with no values (its char, never read, the space, as it always
   was: the dumps keep their kernels). */
static Vals empty_values(Fl *fl, Type *t) { return filled_values(fl, t, int_const(0), ' '); }

/* V(t) of 'n' copies of what NESL's unpack puts where a flag is F
   (lib-nesl's __zeros): the zero of t, as identity's (0, 0.0, F, the
   character of code 0, the empty sequence, field by field). */
static Vals zero_values(Fl *fl, Type *t, FlatAtom *n) { return filled_values(fl, t, n, 0); }

/* Begins `if cond then (the values 'then' makes) else ...`: 'then' is
   called in the then block; returns the statement with its else block
   entered, '*saved' the block to go back to after it. */
static FlatStmt *begin_if_then(Fl *fl, FlatAtom *cond, Vals (*then)(Fl *, void *), void *arg, FlatBlock **saved) {
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, cond);
  s->then = enter_block(fl, saved);
  Vals r = then(fl, arg);
  for (int i = 0; i < r.len; i++)
    vec_push(&fl->block->results, r.data[i]);
  s->els = NEW(FlatBlock);
  fl->block = s->els;
  return s;
}

static Vals empty_of(Fl *fl, void *t) { return empty_values(fl, t); }

/* Values made already: 'then' of begin_if_then. */
static Vals these_values(Fl *fl, void *v) {
  (void)fl;
  return *(Vals *)v;
}

/* Begins `if n == 0 then (the empty values of 't') else ...`, where a
   context of 'n' elements may be empty: returns the statement with its
   else block entered, '*saved' the block to go back to after it. */
static FlatStmt *begin_unless_empty(Fl *fl, FlatAtom *n, Type *t, FlatBlock **saved) {
  return begin_if_then(fl, binary(fl, FLAT_EQ, n, int_const(0)), empty_of, t, saved);
}

/* The statement just emitted. */
static FlatStmt *last_stmt(Fl *fl) { return vec_last(&fl->block->stmts); }

/* x at 'idx'; 'whole': idx is known in range (FlatStmt.segments). */
static FlatAtom *gather(Fl *fl, FlatAtom *x, FlatAtom *idx, bool whole) {
  FlatAtom *r = op(fl, FLAT_GATHER, as_vec(ty(x)), 2, x, idx);
  last_stmt(fl)->segments = whole;
  last_stmt(fl)->guarded = fl->guarded && !whole;
  return r;
}

/* V(t) of the values of V(t) 'v' at 'idx' (an int vector); 'whole': the
   indices are known in range, as the elements of whole segments of the
   nested value whose values 'v' are (the inner gathers below). */
static FlatAtom *segdes_offsets(Fl *fl, FlatAtom *d);

static Vals gather_values_in(Fl *fl, Vals v, Type *t, FlatAtom *idx, bool whole) {
  t = res(t);
  if (is_base(t))
    return one(gather(fl, vec_get(&v, 0), idx, whole));
  if (t->kind == T_PAIR) {
    int n = vector_count(t->fst);
    return concat(gather_values_in(fl, slice(v, 0, n), t->fst, idx, whole),
                  gather_values_in(fl, slice(v, n, v.len - n), t->snd, idx, whole));
  }
  /* [u]: whole segments */
  FlatAtom *d = vec_get(&v, 0);
  FlatAtom *lens = gather(fl, seg_lengths(fl, d), idx, whole);
  FlatAtom *starts = gather(fl, segdes_offsets(fl, d), idx, whole);
  /* (the arguments first: a statement's arguments are emitted before it) */
  FlatAtom *ends = binary(fl, FLAT_ADD, starts, lens);
  FlatAtom *ones = dist(fl, int_const(1), length(fl, idx));
  /* every segment once: the elements are all of d's, which the host knows */
  Vals source = slice(v, 1, v.len - 1);
  FlatAtom *total = fl->permuting ? vals_length(fl, source, t->elem) : fl->known_total;
  fl->known_total = NULL; /* the top level's alone */
  FlatStmt *s = stmt(fl, FS_OP);
  s->op = FLAT_SEG_RANGE;
  s->segments = true; /* d's own offsets and lengths: nothing to check */
  s->once = fl->once;
  s->total = total;
  vec_push(&s->args, starts);
  vec_push(&s->args, ends);
  vec_push(&s->args, ones);
  FlatVar *nd = flat_new_var(fl->fp, flat_segdes(), NULL);
  FlatVar *inner = flat_new_var(fl->fp, vec_int(), NULL);
  vec_push(&s->results, nd);
  vec_push(&s->results, inner);
  /* the elements of d's segments, from the vectors d describes */
  Vals elems = gather_values_in(fl, source, t->elem, flat_var_atom(inner), true);
  View *view = NEW(View);
  *view = (View){elems, source, starts, lens, fl->replicating, NULL, 0};
  ptrmap_put(&fl->views, nd, view);
  return concat(one(flat_var_atom(nd)), elems);
}

/* The components of V(t) 'v' are those of 'w', variable for variable
   (or constant for constant). */
static bool same_vals(Vals v, Vals w) {
  if (v.len != w.len)
    return false;
  for (int i = 0; i < v.len; i++) {
    const FlatAtom *a = v.data[i], *b = w.data[i];
    if (a->kind != b->kind || (a->kind == FA_VAR && a->u.var != b->u.var) || (a->kind != FA_VAR && a != b))
      return false;
  }
  return true;
}

/* The view of nested V([u]) 'v' (its segments' elements in place in a
   vector they were gathered from), or NULL where v is not one. */
static const View *view_of(Fl *fl, Vals v) {
  const FlatAtom *d = vec_get(&v, 0);
  if (d->kind != FA_VAR)
    return NULL;
  const View *view = ptrmap_get(&fl->views, d->u.var);
  return view && same_vals(slice(v, 1, v.len - 1), view->gathered) ? view : NULL;
}

/* The lengths of the segments of nested V([u]) 'v': a view's, known
   before its segdes was made (so that a lifted append of views needs
   neither their segdes nor their elements), or its segdes's. */
static FlatAtom *part_lengths(Fl *fl, Vals v) {
  const View *view = view_of(fl, v);
  return view ? view->lengths : seg_lengths(fl, vec_get(&v, 0));
}

static Vals gather_values(Fl *fl, Vals v, Type *t, FlatAtom *idx) { return gather_values_in(fl, v, t, idx, false); }

/* A number no segment of nested V([u]) 'v' (elements of type 't') can
   pass, known on the host: a view's source's elements (a view's segment
   is one of its source's), else v's own elements. */
static FlatAtom *part_bound(Fl *fl, Vals v, Type *t) {
  const View *view = view_of(fl, v);
  return vals_length(fl, view ? view->source : slice(v, 1, v.len - 1), t);
}

/* A lifted `++`'s check that each segment's a[s] + b[s] fits an int
   (RT_CHECK_APPEND, the evaluator's out-of-memory at the first segment
   that passes max_int), made only where it can fail.  '*bound' bounds
   every a[s] on the host (the sum of its parts' bounds, part_bound) and
   'b_bound' every b[s]; the sums are nonnegative, so where the bounds'
   sum and every sum of bounds before it (in '*fits') fit, no segment's
   sum can pass max_int, and the check, a pass over the segments and a
   value the host reads, is left out by a host `if` (ints wrap: a sum of
   two ints in [0, max_int] passed it where it is negative).  On return
   '*bound' bounds a[s] + b[s].  Under the cost model, the check alone. */
static void append_check(Fl *fl, FlatAtom *a, FlatAtom *b, FlatAtom **bound, FlatAtom *b_bound, FlatAtom **fits) {
  if (fl->cost) {
    check(fl, RT_CHECK_APPEND, a, b, NULL);
    return;
  }
  FlatAtom *sum = binary(fl, FLAT_ADD, *bound, b_bound);
  FlatAtom *ok = binary(fl, FLAT_GE, sum, int_const(0));
  *fits = *fits ? binary(fl, FLAT_AND, *fits, ok) : ok;
  *bound = sum;
  FlatAtom *overflows = op(fl, FLAT_NOT, flat_scalar(FB_BOOL), 1, *fits);
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, overflows);
  FlatBlock *saved;
  s->then = enter_block(fl, &saved);
  check(fl, RT_CHECK_APPEND, a, b, NULL);
  s->els = NEW(FlatBlock);
  fl->block = saved;
}

/* V(t) of 'a' then 'b'. */
static Vals append_values(Fl *fl, Vals a, Vals b, Type *t) {
  t = res(t);
  if (is_base(t)) {
    FlatAtom *x = vec_get(&a, 0);
    return one(op(fl, FLAT_APPEND, ty(x), 2, x, vec_get(&b, 0)));
  }
  if (t->kind == T_PAIR) {
    int n = vector_count(t->fst);
    return concat(append_values(fl, slice(a, 0, n), slice(b, 0, n), t->fst),
                  append_values(fl, slice(a, n, a.len - n), slice(b, n, b.len - n), t->snd));
  }
  FlatAtom *da = vec_get(&a, 0), *db = vec_get(&b, 0);
  FlatAtom *lens = op(fl, FLAT_APPEND, vec_int(), 2, seg_lengths(fl, da), seg_lengths(fl, db));
  Vals elems_a = slice(a, 1, a.len - 1);
  Vals elems = append_values(fl, elems_a, slice(b, 1, b.len - 1), t->elem);
  FlatAtom *d = make_segdes(fl, lens);
  Appended *app = NEW(Appended);
  *app = (Appended){da, db, elems_a, t->elem};
  ptrmap_put(&fl->appended, d->u.var, app);
  return concat(one(d), elems);
}

/* Are the offsets of every segdes that 'd' appends (itself where it
   appends none) there without a scan: none made from lengths here by
   make_segdes, whose offsets are a scan of their own where nothing else
   needs the segdes?  A lifted filter's segdes is made from its counts,
   but fusion gives the scan of those counts to the SPLIT that counts
   them (rule_split_offsets), in the pass that packs the elements. */
static bool offsets_at_hand(Fl *fl, FlatAtom *d) {
  if (d->kind != FA_VAR)
    return true;
  const Appended *app = ptrmap_get(&fl->appended, d->u.var);
  if (app)
    return offsets_at_hand(fl, app->a) && offsets_at_hand(fl, app->b);
  return !ptrmap_get(&fl->made, d->u.var) || ptrmap_get(&fl->counted, d->u.var);
}

/* The offsets of segdes 'd': those of the two it appends where it is an
   append's (Appended) and theirs are at hand, so that a lifted if's
   merge, which gathers the segments of its branches' results appended
   (quicksort's: the context's segdes, a parameter, and the else
   branch's result), scans no lengths.  Not where one of the appended
   was made from lengths here: quicksort's [lesser, greater], whose
   segdes are made from the filters' counts, would scan each count
   alone where one scan of the counts appended does, and alg_bfs's
   `if ... then e ++ [x] else e` had its appended lengths fused into
   the scan that the made segdes needed anyway, and lost that. */
static FlatAtom *segdes_offsets(Fl *fl, FlatAtom *d) {
  const Appended *app = d->kind == FA_VAR ? ptrmap_get(&fl->appended, d->u.var) : NULL;
  if (!app || !offsets_at_hand(fl, d))
    return seg_offsets(fl, d);
  FlatAtom *of_b = segdes_offsets(fl, app->b);
  FlatAtom *a_total = vals_length(fl, app->a_elems, app->u);
  FlatAtom *moved = binary(fl, FLAT_ADD, of_b, dist(fl, a_total, length(fl, of_b)));
  return op(fl, FLAT_APPEND, vec_int(), 2, segdes_offsets(fl, app->a), moved);
}

/* gather_values with flag 'what' of 'fl' (fl->once or fl->replicating)
   set while it runs. */
static Vals gather_values_with(Fl *fl, bool *what, Vals v, Type *t, FlatAtom *idx) {
  bool outer = *what;
  *what = true;
  Vals r = gather_values(fl, v, t, idx);
  *what = outer;
  return r;
}

/* gather_values where 'idx' takes each segment at most once (the
   indices a PACK or PARTITION keeps of an iota, a lifted subscript's one
   element per segment): the new segments' total cannot pass the old
   segdes's, so their seg_ranges are `<segments once>` (FlatStmt.once). */
static Vals gather_values_once(Fl *fl, Vals v, Type *t, FlatAtom *idx) {
  return gather_values_with(fl, &fl->once, v, t, idx);
}

/* gather_values where 'idx' is a permutation of v's elements (a lifted
   sequence's, a merge's of two branches packed): each new segdes holds
   all the elements of the one it takes from, so its total is known on
   the host (FlatStmt.total), and the GPU need not wait to read it. */
static Vals permute_values(Fl *fl, Vals v, Type *t, FlatAtom *idx) {
  return gather_values_with(fl, &fl->permuting, v, t, idx);
}

/* gather_values where 'idx' takes values many times over (a value
   distributed, a free variable replicated per element): the views it
   makes are View.replicated. */
static Vals replicate_values(Fl *fl, Vals v, Type *t, FlatAtom *idx) {
  return gather_values_with(fl, &fl->replicating, v, t, idx);
}

/* V(t) holding the values of V(t) 'v' whose flag is true. */
static Vals pack_values(Fl *fl, Vals v, Type *t, FlatAtom *flags) {
  if (is_base(t)) {
    FlatAtom *x = vec_get(&v, 0);
    return one(op(fl, FLAT_PACK, ty(x), 2, x, flags));
  }
  FlatAtom *idx = op(fl, FLAT_PACK, vec_int(), 2, iota(fl, length(fl, flags)), flags);
  return gather_values_once(fl, v, t, idx);
}

/* V(t) of n copies of the host value H(t) 'x'. */
static Vals dist_values(Fl *fl, Vals x, Type *t, FlatAtom *n) {
  t = res(t);
  if (is_base(t))
    return one(dist(fl, vec_get(&x, 0), n));
  if (t->kind == T_PAIR) {
    int k = host_count(t->fst);
    return concat(dist_values(fl, slice(x, 0, k), t->fst, n), dist_values(fl, slice(x, k, x.len - k), t->snd, n));
  }
  /* [u]: H([u]) = V(u) of length L; n segments of L, data repeated */
  FlatAtom *l = vals_length(fl, x, t->elem);
  FlatAtom *d = make_segdes(fl, dist(fl, l, n));
  FlatAtom *total = op(fl, FLAT_SEG_TOTAL, int_scalar(), 1, d);
  FlatAtom *idx = binary(fl, FLAT_REM, iota(fl, total), dist(fl, l, total));
  /* the total is l * n: no element, no remainder, where l is 0 */
  last_stmt(fl)->segments = true;
  return concat(one(d), replicate_values(fl, x, t->elem, idx));
}

/* V(t) of the V(t)s parts[0 .. k) end to end, k >= 1.  Appended as a
   balanced tree, so that each element is copied log k times, not up to k
   times as appending one part after another would. */
static Vals append_all(Fl *fl, Vals *parts, int k, Type *t) {
  if (k == 1)
    return parts[0];
  int h = k / 2;
  Vals a = append_all(fl, parts, h, t);
  return append_values(fl, a, append_all(fl, parts + h, k - h, t), t);
}

/* V(t) of the k host values H(t) elems[0 .. k), in order (a literal's
   elements), k >= 1.  A sequence's element stays as it is, H([u]) being
   V(u): the result's top level is one segment per element, of its
   length, and the levels below are the elements' own, end to end.  (Each
   element made a value of one first, which gathered every level below it
   again: a literal nested N deep, which wraps values of every depth up to
   N, took N^2 operations.) */
static Vals host_values(Fl *fl, Vals *elems, int k, Type *t) {
  t = res(t);
  if (is_base(t)) {
    FlatStmt *s = stmt(fl, FS_OP);
    s->op = FLAT_VECTOR;
    for (int i = 0; i < k; i++)
      vec_push(&s->args, vec_get(&elems[i], 0));
    FlatVar *v = flat_new_var(fl->fp, flat_vec(flatten_base(t)), NULL);
    vec_push(&s->results, v);
    return one(flat_var_atom(v));
  }
  if (t->kind == T_PAIR) {
    int n = host_count(t->fst);
    Vals *fst = xmalloc(sizeof(Vals) * (size_t)k), *snd = xmalloc(sizeof(Vals) * (size_t)k);
    for (int i = 0; i < k; i++) {
      fst[i] = slice(elems[i], 0, n);
      snd[i] = slice(elems[i], n, elems[i].len - n);
    }
    Vals a = host_values(fl, fst, k, t->fst);
    return concat(a, host_values(fl, snd, k, t->snd));
  }
  FlatAtom **lens = xmalloc(sizeof(FlatAtom *) * (size_t)k);
  for (int i = 0; i < k; i++)
    lens[i] = vals_length(fl, elems[i], t->elem);
  FlatStmt *s = stmt(fl, FS_OP);
  s->op = FLAT_VECTOR;
  for (int i = 0; i < k; i++)
    vec_push(&s->args, lens[i]);
  FlatVar *v = flat_new_var(fl->fp, vec_int(), NULL);
  vec_push(&s->results, v);
  FlatAtom *d = make_segdes(fl, flat_var_atom(v));
  return concat(one(d), append_all(fl, elems, k, t->elem));
}

/* V(t) merging 'a' (the elements whose flag is true, in order) and 'b'
   (the others) back into the order of 'flags'.  A branch whose result is
   a value of the context as it was (`if #a < 2 then a else ...`: its
   elements are that value's where their flags say) is given as 'same_a'
   or 'same_b' instead (NULL: none): the merge reads that value where it
   is, element s at s, rather than its packed copy, which nothing then
   reads.  'rest_a' (or 'rest_b'), where not NULL, is the part of that
   value that the other branch took (the other side of the PARTITION
   that split it between the branches): the merge's total is then
   known (merged_total). */
static FlatAtom *merged_total(Fl *fl, Vals same, const Vals *rest, Vals other, Type *t);

/* Where a lifted if's branches go back (combine_values): the index of
   each element in a ++ b, a and b the merge's parts (a branch's result,
   or the context's value it is: 'same'). */
typedef struct Merge {
  Vals a, b;
  FlatAtom *flags, *n, *count_a, *at_a, *at_b; /* the index's parts (merge_gather) */
} Merge;

static Merge merge_index(Fl *fl, FlatAtom *flags, Vals a, Vals b, FlatAtom *count_a, const Vals *same_a,
                         const Vals *same_b) {
  FlatAtom *n = length(fl, flags);
  FlatAtom *at_a = NULL, *at_b = NULL; /* NULL: the place itself (iota, made by merge_gather) */
  if (same_a) {
    a = *same_a;
    count_a = n;
  } else {
    at_a = op(fl, FLAT_SCAN_ADD, vec_int(), 1, op(fl, FLAT_BTOI, vec_int(), 1, flags));
  }
  if (same_b) {
    b = *same_b;
  } else {
    FlatAtom *not_flags = op(fl, FLAT_NOT, vec_bool(), 1, flags);
    at_b = op(fl, FLAT_SCAN_ADD, vec_int(), 1, op(fl, FLAT_BTOI, vec_int(), 1, not_flags));
  }
  return (Merge){a, b, flags, n, count_a, at_a, at_b};
}

/* The merge itself: the elements of m.a ++ m.b at the index m's parts
   give (select(flags, at_a, count_a + at_b)). */
static Vals merge_gather(Fl *fl, Merge m, Type *t, const Vals *same_a, const Vals *same_b, const Vals *rest_a,
                         const Vals *rest_b) {
  Vals a = m.a, b = m.b;
  FlatAtom *at_a = m.at_a ? m.at_a : iota(fl, m.n), *at_b = m.at_b ? m.at_b : iota(fl, m.n);
  FlatAtom *idx = op(fl, FLAT_SELECT, vec_int(), 3, m.flags, at_a, binary(fl, FLAT_ADD, at_b, dist(fl, m.count_a, m.n)));
  /* without a same branch, idx is a permutation of a ++ b: a's elements
     at their ranks among the flags, b's after them */
  Vals both = append_values(fl, a, b, t);
  if (!same_a && !same_b)
    return permute_values(fl, both, t, idx);
  if (same_a && same_b)
    return gather_values(fl, both, t, idx);
  fl->known_total = same_a ? merged_total(fl, a, rest_a, b, t) : merged_total(fl, b, rest_b, a, t);
  Vals r = gather_values(fl, both, t, idx);
  fl->known_total = NULL;
  return r;
}

static Vals combine_values(Fl *fl, FlatAtom *flags, Vals a, Vals b, Type *t, FlatAtom *count_a, const Vals *same_a,
                           const Vals *same_b, const Vals *rest_a, const Vals *rest_b) {
  return merge_gather(fl, merge_index(fl, flags, a, b, count_a, same_a, same_b), t, same_a, same_b, rest_a, rest_b);
}

/* The merge's total where one branch is the context's value 'same' and
   the other branch took 'rest' of it: the elements of the segments of
   'same' that the merge keeps, its elements less those of 'rest', and
   those of the other branch's result 'other'; for a value nested once
   ([u] of u not a sequence: one seg_range), else NULL.  It reads rest's
   total, which the other branch read to run on it. */
static FlatAtom *merged_total(Fl *fl, Vals same, const Vals *rest, Vals other, Type *t) {
  t = res(t);
  if (!rest || t->kind != T_SEQ)
    return NULL;
  for (int i = 1; i < same.len; i++)
    if (ty(vec_get(&same, i)).kind == FT_SEGDES)
      return NULL;
  FlatAtom *kept = binary(fl, FLAT_SUB, vals_length(fl, slice(same, 1, same.len - 1), t->elem),
                          op(fl, FLAT_SEG_TOTAL, int_scalar(), 1, vec_get(rest, 0)));
  return total_sum(fl, kept, vals_length(fl, slice(other, 1, other.len - 1), t->elem));
}

/* Values to stand for the result of a call that stopped with an error
   (never used: the statement stops). */
static Vals dummy_values(Fl *fl, Ctx *ctx, Type *t) {
  if (!ctx->lifted) {
    t = res(t);
    if (is_base(t)) {
      switch (flatten_base(t)) {
      case FB_INT:
        return one(int_const(0));
      case FB_FLOAT:
        return one(flat_float_atom(0.0));
      case FB_BOOL:
        return one(flat_bool_atom(false));
      default:
        return one(flat_char_atom(' '));
      }
    }
    if (t->kind == T_PAIR)
      return concat(dummy_values(fl, ctx, t->fst), dummy_values(fl, ctx, t->snd));
    return empty_values(fl, t->elem);
  }
  Ctx host = {false, NULL};
  return dist_values(fl, dummy_values(fl, &host, t), t, ctx->len);
}

/* ---- environments and patterns ---- */

static Env *bind(Env *env, const char *name, Type *t, Vals v) {
  Env *e = NEW(Env);
  e->name = name;
  e->type = t;
  e->vals = v;
  e->next = env;
  return e;
}

static Env *bind_invariant(Env *env, const char *name, Type *t, Vals v) {
  env = bind(env, name, t, v);
  env->invariant = true;
  return env;
}

static Env *lookup(Env *env, const char *name) {
  for (; env; env = env->next)
    if (env->name == name)
      return env;
  return NULL;
}

/* Binds the variables of 'p' (of type 'p->type') to their parts of 'v'
   (H or V layout, as 'lifted' says). */
static Env *match(Env *env, Pattern *p, Vals v, bool lifted) {
  switch (p->kind) {
  case PAT_WILD:
    return env;
  case PAT_VAR:
    return bind(env, p->name, p->type, v);
  case PAT_PAIR: {
    int n = lifted ? vector_count(p->fst->type) : host_count(p->fst->type);
    env = match(env, p->fst, slice(v, 0, n), lifted);
    return match(env, p->snd, slice(v, n, v.len - n), lifted);
  }
  case PAT_CON:
    return match(env, p->arg, v, lifted);
  }
  unreachable();
}

/* ---- free variables ---- */

typedef struct Names {
  Vec names; /* const char * (interned) */
} Names;

static bool names_has(const Names *n, const char *s) {
  for (int i = 0; i < n->names.len; i++)
    if (n->names.data[i] == s)
      return true;
  return false;
}

static void pattern_names(Pattern *p, Names *out) { ast_pattern_names(p, &out->names); }

/* Adds the local variables 'e' uses and 'bound' does not bind to 'out'. */
static void free_vars(Expr *e, Names *bound, Names *out);

typedef struct FreeWalk {
  Names *bound, *out;
} FreeWalk;

static void free_child(void *ctx, Expr *e) {
  FreeWalk *w = ctx;
  free_vars(e, w->bound, w->out);
}

static void free_bind(void *ctx, Pattern *p) { pattern_names(p, ((FreeWalk *)ctx)->bound); }

static void free_vars(Expr *e, Names *bound, Names *out) {
  switch (e->kind) {
  case EX_VAR:
    if (!e->u.ref.def && !names_has(bound, e->u.ref.name) && !names_has(out, e->u.ref.name))
      vec_push(&out->names, (void *)e->u.ref.name);
    return;
  case EX_LET: { /* each binding sees those before it */
    Names inner = *bound;
    inner.names = (Vec){0};
    for (int i = 0; i < bound->names.len; i++)
      vec_push(&inner.names, bound->names.data[i]);
    ast_expr_children(e, free_child, free_bind, &(FreeWalk){&inner, out});
    return;
  }
  case EX_APPLY: { /* the generators' sequences see none of their names */
    Names inner = {0};
    for (int i = 0; i < bound->names.len; i++)
      vec_push(&inner.names, bound->names.data[i]);
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      Generator *g = e->u.apply.gens.data[i];
      free_vars(g->seq, bound, out);
      pattern_names(g->pat, &inner);
    }
    if (e->u.apply.filter)
      free_vars(e->u.apply.filter, &inner, out);
    free_vars(e->u.apply.body, &inner, out);
    return;
  }
  default:
    ast_expr_children(e, free_child, NULL, &(FreeWalk){bound, out});
    return;
  }
}

/* ---- translation ---- */

static Vals tr(Fl *fl, Ctx *ctx, Env *env, Expr *e);
static Vals tr_inner(Fl *fl, Ctx *ctx, Env *env, Expr *e);
static void closed_parts(Fl *fl, Expr *e, PtrMap *seen);
static Env *let_bindings(Fl *fl, Ctx *ctx, Env *env, Expr *e);
static FlatFunc *get_func(Fl *fl, MonoFunc *mf, bool lifted);
static FlatFunc *get_part(Fl *fl, MonoFunc *mf, int component);
static FlatFunc *get_whole(Fl *fl, MonoFunc *mf);

/* ---- NESL's cost model (docs/cost.md) ----

   Under --cost each construct the model charges gets one FS_COST
   statement, made where the construct is translated, with the sizes it
   is charged by; what flattening adds (segment descriptors, the splits
   and merges of a lifted if, distributions, checks) gets none.  Depth is
   per element: where the elements of a lifted context change (an
   apply-to-each's begin and end, a lifted if's branches, a filter's
   kept elements), FS_COST statements of their own hand each element's
   clock to the elements of the new context and back (cost_mark), so
   that an element is as deep as the branches it took. */

/* FS_COST of 'rule' in context 'ctx' by the sizes 'sizes' (flat.h). */
static void charge(Fl *fl, Ctx *ctx, FlatCostRule rule, Vals sizes) {
  if (!fl->cost || fl->no_cost)
    return;
  FlatStmt *s = stmt(fl, FS_COST);
  s->cost_rule = rule;
  s->lifted = ctx->lifted;
  if (ctx->lifted)
    vec_push(&s->args, ctx->len);
  for (int i = 0; i < sizes.len; i++)
    vec_push(&s->args, sizes.data[i]);
}

/* FS_COST of 'rule' (EACH, DONE, SPLIT, JOIN: flat.h), 'lifted' or
   not, of the 'n' arguments given: what hands the elements' clocks
   from one context to another, so that the depth of each element is its
   own (docs/cost.md, "Flat and λcu"). */
static void cost_mark(Fl *fl, FlatCostRule rule, bool lifted, int n, ...) {
  if (!fl->cost || fl->no_cost)
    return;
  FlatStmt *s = stmt(fl, FS_COST);
  s->cost_rule = rule;
  s->lifted = lifted;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    vec_push(&s->args, va_arg(ap, FlatAtom *));
  va_end(ap);
}

/* The cost statements around code that runs for its errors alone (over
   no elements): OFF before it, ON after it (flat.h).  Made wherever such
   code is, already inside some or not: they nest. */
static void cost_switch(Fl *fl, FlatCostRule rule) {
  if (!fl->cost)
    return;
  FlatStmt *s = stmt(fl, FS_COST);
  s->cost_rule = rule;
}

/* Adds to 'out' the component of 'v' (of type 't', components from
   '*pos' on, H(t) or, 'lifted', V(t)) that gives the top-level length of
   each sequence in t or in its tuple's parts: a sequence's first
   component, as eval's top_length reads them. */
static void seq_sizes(Type *t, Vals v, int *pos, bool lifted, Vals *out) {
  t = res(t);
  if (t->kind == T_PAIR) {
    seq_sizes(t->fst, v, pos, lifted, out);
    seq_sizes(t->snd, v, pos, lifted, out);
    return;
  }
  if (t->kind == T_SEQ && *pos < v.len)
    vec_push(out, v.data[*pos]);
  *pos += lifted ? vector_count(t) : host_count(t);
}

/* The components of a literal scalar, distributed when lifted. */
static Vals scalar(Fl *fl, Ctx *ctx, FlatAtom *a) {
  return one(ctx->lifted ? dist(fl, a, ctx->len) : a);
}

static Vals call_function(Fl *fl, Ctx *ctx, MonoFunc *mf, Vals args, Type *result) {
  FlatFunc *f = get_func(fl, mf, ctx->lifted);
  FlatStmt *s = stmt(fl, FS_CALL);
  s->callee = f;
  for (int i = 0; i < args.len; i++)
    vec_push(&s->args, args.data[i]);
  Vec types = {0};
  if (ctx->lifted)
    flatten_vector_layout(result, &types);
  else
    flatten_host_layout(result, &types);
  Vals r = {0};
  for (int i = 0; i < types.len; i++) {
    FlatVar *v = flat_new_var(fl->fp, *(FlatType *)types.data[i], NULL);
    vec_push(&s->results, v);
    vec_push(&r, flat_var_atom(v));
  }
  return r;
}

static Vals primitive(Fl *fl, Ctx *ctx, MonoFunc *mf, Vals args);
static Vals lifted_append(Fl *fl, Vals *parts, FlatAtom **lens, int k, Type *t);
static bool called_each(Fl *fl, MonoFunc *mf);
static bool seq_loop(Fl *fl, MonoFunc *mf, int *result);
static Vals call_each_seq(Fl *fl, MonoFunc *mf, Vals args);
static Vals *seq_loop_args(Fl *fl, Ctx *ctx, Env *env, MonoFunc *mf, Expr *arg);

/* Scalar function f (of one result) applied to each element of 'args'
   (FS_CALL with 'each'): its one vector of results. */
static FlatAtom *call_each_of(Fl *fl, FlatFunc *f, Vals args) {
  FlatStmt *s = stmt(fl, FS_CALL);
  s->callee = f;
  s->each = true;
  for (int i = 0; i < args.len; i++)
    vec_push(&s->args, args.data[i]);
  FlatVar *v = flat_new_var(fl->fp, as_vec(*(FlatType *)f->result_types.data[0]), NULL);
  vec_push(&s->results, v);
  return flat_var_atom(v);
}

/* A call of f in a lifted context where f runs per element (called_each):
   f itself applied to each element, or, for a tuple result, one function
   per component (get_part) applied to each. */
static Vals call_each(Fl *fl, MonoFunc *mf, Vals args) {
  Type *rt = res(mf->type)->snd;
  if (is_base(rt))
    return one(call_each_of(fl, get_func(fl, mf, false), args));
  Vals r = {0};
  for (int i = 0; i < host_count(rt); i++)
    vec_push(&r, call_each_of(fl, get_part(fl, mf, i + 1), args));
  return r;
}

static Vals call_parts(Fl *fl, MonoFunc *mf, Vals args);
static bool scalar_tuple(Type *t);
/* What scalar_kind found a function to be. */
enum { LOOP_NOT = 1, LOOP_PLAIN, LOOP_YES, LOOP_VISITING };
static intptr_t scalar_kind(Fl *fl, MonoFunc *mf);

static Vals call(Fl *fl, Ctx *ctx, MonoFunc *mf, Vals args) {
  if (mf->primitive)
    return primitive(fl, ctx, mf, args);
  if (!ctx->lifted && fl->scalar_code && !fl->cost && mf->body && host_count(res(mf->type)->snd) > 1 &&
      scalar_tuple(res(mf->type)->snd))
    return call_parts(fl, mf, args);
  if (ctx->lifted && called_each(fl, mf))
    return call_each(fl, mf, args);
  if (ctx->lifted && seq_loop(fl, mf, NULL))
    return call_each_seq(fl, mf, args);
  return call_function(fl, ctx, mf, args, res(mf->type)->snd);
}

/* A call at the host, in scalar code, of 'mf' whose result is a tuple of
   scalars: one call of each part (get_part, one result each), since the
   interpreters' and codegen's scalar functions give one result.  Inside
   part k of 'mf' itself (a loop's recursive call, in tail position) the
   call is of part k alone, and the other components, which part k never
   returns, are zeros (placeholders never read): the part is then a loop
   of its own. */
static Vals call_parts(Fl *fl, MonoFunc *mf, Vals args) {
  Vec types = {0};
  flatten_host_layout(res(mf->type)->snd, &types);
  Vals r = {0};
  if (fl->whole_of == mf || (fl->whole_of && scalar_kind(fl, mf) != LOOP_NOT)) {
    /* the next iteration of the loop's element function of the whole
       tuple: one call, every component.  So is, in that function, a call
       of another function of scalars (f.all): its body computes once
       what each of its parts would compute again (Barnes-Hut's walk
       step `advance`: one square root and division a step, not three) */
    FlatStmt *s = stmt(fl, FS_CALL);
    s->callee = get_whole(fl, mf);
    for (int j = 0; j < args.len; j++)
      vec_push(&s->args, args.data[j]);
    return stmt_results(fl, s, &types);
  }
  for (int i = 0; i < types.len; i++) {
    bool self = fl->part_of == mf;
    if (self && i != fl->part - 1) {
      vec_push(&r, base_zero(((FlatType *)types.data[i])->base, 0));
      continue;
    }
    FlatStmt *s = stmt(fl, FS_CALL);
    s->callee = get_part(fl, mf, i + 1);
    for (int j = 0; j < args.len; j++)
      vec_push(&s->args, args.data[j]);
    FlatVar *v = flat_new_var(fl->fp, *(FlatType *)types.data[i], NULL);
    vec_push(&s->results, v);
    vec_push(&r, flat_var_atom(v));
  }
  return r;
}

/* [e1, ..., ek] */
static Vals sequence(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  Type *t = res(e->type)->elem;
  int k = e->u.elems.len;
  Vals *elems = xmalloc(sizeof(Vals) * (size_t)k);
  for (int i = 0; i < k; i++)
    elems[i] = tr(fl, ctx, env, e->u.elems.data[i]);
  charge(fl, ctx, FLAT_COST_SIZE, one(int_const(k))); /* a step over k, per element */
  if (!ctx->lifted)
    return host_values(fl, elems, k, t);
  /* lifted: m segments of k; element j of segment i is elems[j][i].  One
     element a segment is elems[0] as it is. */
  if (k == 1) {
    FlatAtom *d1 = make_segdes(fl, dist(fl, int_const(1), ctx->len));
    last_stmt(fl)->total = ctx->len; /* a segment an element: the GPU need not read it back */
    ptrmap_put(&fl->uniform, d1->u.var, (void *)(intptr_t)1);
    return concat(one(d1), elems[0]);
  }
  Vals all = append_all(fl, elems, k, t);
  FlatAtom *m = ctx->len;
  /* up to 8 a segment, the total checked as it is summed (uniform_total) */
  FlatAtom *total = k <= 8 ? uniform_total(fl, m, k) : binary(fl, FLAT_MUL, m, int_const(k));
  FlatAtom *p = iota(fl, total);
  FlatAtom *seg = binary(fl, FLAT_DIV, p, dist(fl, int_const(k), total));
  FlatAtom *pos = binary(fl, FLAT_REM, p, dist(fl, int_const(k), total));
  FlatAtom *idx = binary(fl, FLAT_ADD, binary(fl, FLAT_MUL, pos, dist(fl, m, total)), seg);
  FlatAtom *d = make_segdes(fl, dist(fl, int_const(k), m));
  if (k <= 8)
    last_stmt(fl)->total = total;
  ptrmap_put(&fl->uniform, d->u.var, (void *)(intptr_t)k);
  return concat(one(d), permute_values(fl, all, t, idx));
}

/* The elements of nested V([u]) 'v' replicated once per element of the
   segments of 'segdes' (a free variable of an apply-to-each), where
   each of those segments holds k elements (a lifted sequence of k,
   Fl.uniform: quickhull's `{hsplit(packed, a, b) : a in [p1, pm]; b in
   [pm, p2]}`): k times v's, summed as a known total (total_sum); else
   NULL. */
static FlatAtom *replicated_total(Fl *fl, Vals v, Type *t, FlatAtom *segdes) {
  intptr_t k = segdes && segdes->kind == FA_VAR ? (intptr_t)ptrmap_get(&fl->uniform, segdes->u.var) : 0;
  if (k < 1 || k > 8 || res(t)->kind != T_SEQ)
    return NULL;
  return uniform_total(fl, vals_length(fl, slice(v, 1, v.len - 1), res(t)->elem), k);
}

/* {body : p1 in s1; ... | filter} */
static Vals apply_to_each(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  int k = e->u.apply.gens.len;
  Vals *seqs = xmalloc(sizeof(Vals) * (size_t)k);
  for (int i = 0; i < k; i++) {
    Generator *g = e->u.apply.gens.data[i];
    seqs[i] = tr(fl, ctx, env, g->seq);
  }
  Generator *g0 = e->u.apply.gens.data[0];
  Type *t0 = res(g0->seq->type)->elem;
  Ctx inner = {true, NULL};
  FlatAtom *segdes = NULL; /* lifted: the generators' segments */
  Vals *elems = xmalloc(sizeof(Vals) * (size_t)k);
  Vals elements; /* the sizes the apply-to-each and its filter are charged by */
  if (!ctx->lifted) {
    inner.len = vals_length(fl, seqs[0], t0);
    for (int i = 0; i < k; i++) {
      elems[i] = seqs[i];
      if (i > 0) {
        Generator *g = e->u.apply.gens.data[i];
        FlatAtom *n = vals_length(fl, seqs[i], res(g->seq->type)->elem);
        fl->loc = g->seq->loc;
        check(fl, RT_CHECK_LENGTHS, inner.len, n, NULL);
      }
    }
  } else {
    segdes = vec_get(&seqs[0], 0);
    inner.len = op(fl, FLAT_SEG_TOTAL, int_scalar(), 1, segdes);
    FlatAtom *lens0 = NULL;
    for (int i = 0; i < k; i++) {
      elems[i] = slice(seqs[i], 1, seqs[i].len - 1);
      if (i > 0) {
        Generator *g = e->u.apply.gens.data[i];
        if (!lens0)
          lens0 = seg_lengths(fl, segdes);
        FlatAtom *lens = seg_lengths(fl, vec_get(&seqs[i], 0));
        fl->loc = g->seq->loc;
        check(fl, RT_CHECK_LENGTHS, lens0, lens, NULL);
      }
    }
  }
  elements = one(ctx->lifted ? segdes : inner.len);
  charge(fl, ctx, FLAT_COST_SIZE, elements);
  /* the elements start, each at its own clock */
  FlatAtom *all = inner.len;
  if (ctx->lifted)
    cost_mark(fl, FLAT_COST_EACH, true, 2, ctx->len, segdes);
  else
    cost_mark(fl, FLAT_COST_EACH, false, 1, all);
  /* the body's environment: the generators' patterns, and the free
     variables distributed (host) or replicated per segment (lifted) */
  Names bound = {0}, free = {0};
  for (int i = 0; i < k; i++)
    pattern_names(((Generator *)e->u.apply.gens.data[i])->pat, &bound);
  free_vars(e->u.apply.body, &bound, &free);
  if (e->u.apply.filter)
    free_vars(e->u.apply.filter, &bound, &free);
  Env *ienv = NULL;
  FlatAtom *ids = NULL;
  for (int i = 0; i < free.names.len; i++) {
    Env *x = lookup(env, free.names.data[i]);
    if (!x)
      die("flatten: unbound variable %s", (const char *)free.names.data[i]);
    /* a value from the host is the same for every element: it stays a
       host value, and is distributed only where an operation needs it
       as a vector (see invariant_arg); one that varies with the outer
       elements is replicated per segment */
    if (!ctx->lifted || x->invariant) {
      ienv = bind_invariant(ienv, x->name, x->type, x->vals);
      continue;
    }
    if (!ids)
      ids = op(fl, FLAT_SEG_IDS, vec_int(), 1, segdes);
    fl->known_total = replicated_total(fl, x->vals, x->type, segdes);
    ienv = bind(ienv, x->name, x->type, replicate_values(fl, x->vals, x->type, ids));
    fl->known_total = NULL;
  }
  for (int i = 0; i < k; i++)
    ienv = match(ienv, ((Generator *)e->u.apply.gens.data[i])->pat, elems[i], true);
  FlatAtom *result_segdes = segdes;
  FlatAtom *flags = NULL;
  if (e->u.apply.filter) {
    Vals fv = tr(fl, &inner, ienv, e->u.apply.filter);
    flags = vec_get(&fv, 0);
    cost_mark(fl, FLAT_COST_SPLIT, true, 2, all, flags); /* the kept elements go on */
    Env *packed = NULL;
    for (Env *x = ienv; x; x = x->next)
      packed = x->invariant ? bind_invariant(packed, x->name, x->type, x->vals)
                            : bind(packed, x->name, x->type, pack_values(fl, x->vals, x->type, flags));
    ienv = packed;
    if (ctx->lifted) {
      result_segdes = make_segdes(fl, op(fl, FLAT_SEG_REDUCE_ADD, vec_int(), 2, segdes,
                                         op(fl, FLAT_BTOI, vec_int(), 1, flags)));
      /* its offsets here, in the filter's region, whatever reads them
         later (dead code where nothing does) */
      ptrmap_put(&fl->counted, result_segdes->u.var, seg_offsets(fl, result_segdes));
    }
    /* the number of elements left: the length of a packed variable, or
       the count of the flags when every variable is invariant */
    Env *packed_var = ienv;
    while (packed_var && packed_var->invariant)
      packed_var = packed_var->next;
    inner.len = packed_var ? vals_length(fl, packed_var->vals, packed_var->type)
                           : op(fl, FLAT_REDUCE_ADD, int_scalar(), 1, op(fl, FLAT_BTOI, vec_int(), 1, flags));
  }
  Vals body = tr(fl, &inner, ienv, e->u.apply.body);
  fl->loc = e->loc;
  if (flags)
    cost_mark(fl, FLAT_COST_JOIN, true, 2, all, flags);
  if (ctx->lifted)
    cost_mark(fl, FLAT_COST_DONE, true, 2, ctx->len, segdes);
  else
    cost_mark(fl, FLAT_COST_DONE, false, 1, all);
  if (flags) /* the pack of the kept elements, once the elements are done */
    charge(fl, ctx, FLAT_COST_SIZE, elements);
  if (!ctx->lifted)
    return body;
  return concat(one(result_segdes), body);
}

/* The values of V(t) 'v' whose flag is true, and those whose flag is
   false: one PARTITION for a base type, the indices partitioned and
   gathered otherwise.  Where 'counts' is given and counts[0] is still
   NULL, it gets the lengths of the two sides (the elements whose flag
   is true, and the others). */
/* The elements of the segments of nested V([u]) 'v' whose flag is false:
   a sum over the segments, which fusion computes in the kernel that
   makes the flags, so that the host reads it with the PARTITION's
   counts, in one wait, and the packs' segdes take it and the rest of
   v's elements as their totals (FlatStmt.total) instead of a wait each;
   NULL for another type (a pair's components are packed one by one).
   One sum for both sides: each is a REDUCE more in its region's ILP
   (lib_collect's largest took 23 ms of GLPK, 67 with two a variable). */
static FlatAtom *unflagged_total(Fl *fl, Vals v, Type *t, FlatAtom *flags) {
  if (res(t)->kind != T_SEQ)
    return NULL;
  FlatAtom *lens = seg_lengths(fl, vec_get(&v, 0));
  FlatAtom *none = dist(fl, int_const(0), length(fl, flags));
  return op(fl, FLAT_REDUCE_ADD, int_scalar(), 1, op(fl, FLAT_SELECT, vec_int(), 3, flags, none, lens));
}

static void partition_values(Fl *fl, Vals v, Type *t, FlatAtom *flags, Vals *yes, Vals *no, FlatAtom **counts,
                             bool totals) {
  FlatAtom *src = is_base(t) ? vec_get(&v, 0) : iota(fl, length(fl, flags));
  FlatStmt *s = stmt(fl, FS_OP);
  s->op = FLAT_PARTITION;
  vec_push(&s->args, src);
  vec_push(&s->args, flags);
  FlatVar *a = flat_new_var(fl->fp, ty(src), NULL), *b = flat_new_var(fl->fp, ty(src), NULL);
  vec_push(&s->results, a);
  vec_push(&s->results, b);
  if (counts && !counts[0]) { /* the first partition's counts serve them all */
    counts[0] = length(fl, flat_var_atom(a));
    counts[1] = length(fl, flat_var_atom(b));
  }
  if (is_base(t)) {
    *yes = one(flat_var_atom(a));
    *no = one(flat_var_atom(b));
    return;
  }
  FlatAtom *no_total = totals ? unflagged_total(fl, v, t, flags) : NULL;
  fl->known_total = no_total ? binary(fl, FLAT_SUB, vals_length(fl, slice(v, 1, v.len - 1), res(t)->elem), no_total)
                             : NULL;
  *yes = gather_values_once(fl, v, t, flat_var_atom(a));
  fl->known_total = no_total;
  *no = gather_values_once(fl, v, t, flat_var_atom(b));
  fl->known_total = NULL;
}

/* ---- if-conversion ----

   A lifted `if` whose branches are a few scalar operations that cannot
   fail is computed as both branches on every element and a SELECT
   between them: one element-wise operation that fusion composes with its
   neighbours, where the general rule (below) partitions the context,
   runs each branch packed and merges the results back, a dozen
   operations and a host read per `if`.  `abs(x)` and the `if x < 0.0
   then 1.0 - w else w` of a cumulative normal are such ifs.  The
   untaken branch must not be able to stop the program with an error it
   would not have raised, and must cost little: */

/* Operation nodes, over both branches and the bodies of the functions
   they call, that an if-conversion may compute for nothing. */
#define SELECT_BUDGET 48

/* A scalar or a tuple of scalars: values without a segment descriptor. */
static bool scalar_tuple(Type *t) {
  t = res(t);
  if (t->kind == T_PAIR)
    return scalar_tuple(t->fst) && scalar_tuple(t->snd);
  return is_base(t);
}

/* True if primitive 'name' never fails, on values of result type 't'.
   Int arithmetic wraps; float arithmetic, exp and the trigonometric
   functions compute with infinities and NaN, as NESL's do, and the
   conversions to int give min_int out of range (rt/scalar.h): only
   NESL's argument checks fail (division, sqrt, ln, expt, ^, code_char). */
static bool safe_primitive(const char *name, Type *t) {
  static const char *always[] = {"__negate", "__eq",  "__ne",  "__lt",   "__gt",  "__le",  "__ge",  "not",
                                 "__and",    "__or",  "__xor", "float",  "btoi",  "char_code", "identity",
                                 "exp",      "sin",   "cos",   "tan",    "asin",  "acos",  "atan",  "sinh",
                                 "cosh",     "tanh",  "trunc", "floor",  "ceil",  "round"};
  for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
    if (strcmp(name, always[i]) == 0)
      return true;
  bool arith = strcmp(name, "__add") == 0 || strcmp(name, "__sub") == 0 || strcmp(name, "__mul") == 0;
  return arith && (res(t)->kind == T_INT || res(t)->kind == T_FLOAT);
}

/* True if evaluating 'e' on an element that does not take its branch
   cannot fail, loop or cost more than '*budget' operations (spent).
   'calling' holds the functions being looked into: recursion is not
   cheap. */
static bool select_safe(Expr *e, int *budget, PtrMap *calling) {
  if (--*budget < 0 || !scalar_tuple(e->type))
    return false;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
    return true;
  case EX_VAR:
    return true;
  case EX_PAIR:
    return select_safe(e->u.pair.fst, budget, calling) && select_safe(e->u.pair.snd, budget, calling);
  case EX_IF:
    return select_safe(e->u.ifx.cond, budget, calling) && select_safe(e->u.ifx.then, budget, calling) &&
           select_safe(e->u.ifx.els, budget, calling);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      if (!select_safe(((Binding *)e->u.let.binds.data[i])->value, budget, calling))
        return false;
    return select_safe(e->u.let.body, budget, calling);
  case EX_CALL:
  case EX_BINOP:
  case EX_UNOP: {
    MonoFunc *mf = e->callee;
    Expr *lhs = e->kind == EX_CALL ? e->u.ref.arg : e->u.op.lhs;
    Expr *rhs = e->kind == EX_BINOP ? e->u.op.rhs : NULL;
    if (e->kind == EX_CALL && lhs->kind == EX_PAIR && lhs->u.pair.snd->kind != EX_PAIR) {
      rhs = lhs->u.pair.snd; /* f(a, b): two arguments */
      lhs = lhs->u.pair.fst;
    }
    if (!mf || !select_safe(lhs, budget, calling) || (rhs && !select_safe(rhs, budget, calling)))
      return false;
    if (mf->primitive)
      return safe_primitive(mf->def->name, e->type);
    if (!mf->body || ptrmap_get(calling, mf))
      return false;
    ptrmap_put(calling, mf, mf);
    bool ok = select_safe(mf->body, budget, calling);
    ptrmap_put(calling, mf, NULL);
    return ok;
  }
  default:
    return false; /* subscripts, sequences, strings, apply-to-each, time */
  }
}

/* if c then a else b, lifted, when both branches are select_safe: both
   computed on every element, then SELECT by the flags of c. */
static bool select_convertible(Expr *e) {
  int budget = SELECT_BUDGET;
  PtrMap calling = {0};
  return scalar_tuple(e->type) && select_safe(e->u.ifx.then, &budget, &calling) &&
         select_safe(e->u.ifx.els, &budget, &calling);
}

static Vals selected_if(Fl *fl, Ctx *ctx, Env *env, Expr *e, FlatAtom *flags) {
  Vals a = tr(fl, ctx, env, e->u.ifx.then);
  Vals b = tr(fl, ctx, env, e->u.ifx.els);
  fl->loc = e->loc;
  Vals r = {0};
  for (int i = 0; i < a.len; i++) {
    FlatAtom *x = vec_get(&a, i);
    vec_push(&r, op(fl, FLAT_SELECT, ty(x), 3, flags, x, vec_get(&b, i)));
  }
  return r;
}

/* if c then a else b, lifted: each branch on the elements that take it.
   The variables both branches read are split once by PARTITION; those
   only one reads are packed for it alone. */
static Vals lifted_if(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  Type *t = e->type;
  Vals cv = tr(fl, ctx, env, e->u.ifx.cond);
  FlatAtom *flags = vec_get(&cv, 0);
  if (!fl->cost && select_convertible(e)) /* it computes both branches */
    return selected_if(fl, ctx, env, e, flags);
  FlatAtom *not_flags = op(fl, FLAT_NOT, vec_bool(), 1, flags);
  Names none = {0}, free[2] = {{{0}}, {{0}}};
  free_vars(e->u.ifx.then, &none, &free[0]);
  free_vars(e->u.ifx.els, &none, &free[1]);
  /* the shared variables, split before the branches */
  Env *split[2] = {NULL, NULL};
  FlatAtom *split_counts[2] = {NULL, NULL};
  /* the packs of one shared nested variable get their totals from a sum
     (partition_values), in a recursive lifted function's body, a level
     of divide and conquer: there a wait saved is saved at every level.
     Each sum is a REDUCE more in fusion's ILP: a top-level statement of
     many lifted ifs (lib_collect's, of the library's functions, which
     lowering inlines) took three times as long to solve with them, 23
     -> 67 ms, for a wait it makes once. */
  bool totals = fl->lifted_body;
  for (int i = 0; i < free[0].names.len; i++) {
    Env *x = lookup(env, free[0].names.data[i]);
    if (!x)
      die("flatten: unbound variable %s", (const char *)free[0].names.data[i]);
    if (x->invariant || !names_has(&free[1], x->name))
      continue;
    Vals yes, no;
    partition_values(fl, x->vals, x->type, flags, &yes, &no, fl->cost ? NULL : split_counts, totals);
    split[0] = bind(split[0], x->name, x->type, yes);
    split[1] = bind(split[1], x->name, x->type, no);
  }
  Vals branch[2];
  FlatAtom *counts[2];
  for (int b = 0; b < 2; b++) {
    Expr *arm = b == 0 ? e->u.ifx.then : e->u.ifx.els;
    FlatAtom *fb = b == 0 ? flags : not_flags;
    /* the branch's count: the length of a side of the PARTITION that
       split the shared variables (it counted them: a read of a length,
       not a reduction of the flags of its own), else the flags' sum.
       The cost model charges the sum, as NESL's if does. */
    FlatAtom *n = split_counts[b] ? split_counts[b]
                                  : op(fl, FLAT_REDUCE_ADD, int_scalar(), 1, op(fl, FLAT_BTOI, vec_int(), 1, fb));
    counts[b] = n;
    /* if n == 0 then empty else the arm on the packed context, whose
       elements keep their clocks */
    cost_mark(fl, FLAT_COST_SPLIT, true, 2, ctx->len, fb);
    FlatBlock *saved;
    FlatStmt *s = begin_unless_empty(fl, n, t, &saved);
    Env *packed = NULL;
    for (int i = 0; i < free[b].names.len; i++) {
      const char *name = free[b].names.data[i];
      Env *x = lookup(env, name), *sx = lookup(split[b], name);
      if (sx)
        packed = bind(packed, sx->name, sx->type, sx->vals);
      else if (x->invariant)
        packed = bind_invariant(packed, x->name, x->type, x->vals);
      else
        packed = bind(packed, x->name, x->type, pack_values(fl, x->vals, x->type, fb));
    }
    Ctx sub = {true, n};
    Vals r = tr(fl, &sub, packed, arm);
    for (int i = 0; i < r.len; i++)
      vec_push(&fl->block->results, r.data[i]);
    fl->block = saved;
    Vec types = {0};
    flatten_vector_layout(t, &types);
    branch[b] = stmt_results(fl, s, &types);
    cost_mark(fl, FLAT_COST_JOIN, true, 2, ctx->len, fb);
  }
  /* a branch that is a variable of the context, as it was (not a value
     from the host, which every element shares) */
  const Vals *same[2] = {NULL, NULL}, *rest[2] = {NULL, NULL};
  for (int b = 0; b < 2 && !fl->cost; b++) {
    Expr *arm = b == 0 ? e->u.ifx.then : e->u.ifx.els;
    Env *x = arm->kind == EX_VAR && !arm->u.ref.def ? lookup(env, arm->u.ref.name) : NULL;
    if (x && !x->invariant) {
      same[b] = &x->vals;
      /* the part of it the other branch took, where the PARTITION split it */
      Env *other = lookup(split[1 - b], x->name);
      rest[b] = other ? &other->vals : NULL;
    }
  }
  if (fl->cost) /* the model charges the merge, as NESL's if does */
    return combine_values(fl, flags, branch[0], branch[1], t, counts[0], same[0], same[1], rest[0], rest[1]);
  /* where one branch took every element its result is the if's, in
     order, and the merge would only copy it: the top levels of a divide
     and conquer, where no piece is small yet.  The merge's index is
     made out here (fusion computes it with the if's test), the merge in
     the branch that needs it. */
  Merge m = merge_index(fl, flags, branch[0], branch[1], counts[0], same[0], same[1]);
  Vec types = {0};
  flatten_vector_layout(t, &types);
  FlatBlock *saved, *outer;
  FlatStmt *all_b = begin_if_then(fl, binary(fl, FLAT_EQ, counts[0], int_const(0)), these_values, &m.b, &saved);
  FlatStmt *all_a = begin_if_then(fl, binary(fl, FLAT_EQ, counts[1], int_const(0)), these_values, &m.a, &outer);
  Vals merged = merge_gather(fl, m, t, same[0], same[1], rest[0], rest[1]);
  for (int i = 0; i < merged.len; i++)
    vec_push(&fl->block->results, merged.data[i]);
  fl->block = outer;
  Vals from_a = stmt_results(fl, all_a, &types);
  for (int i = 0; i < from_a.len; i++)
    vec_push(&fl->block->results, from_a.data[i]);
  fl->block = saved;
  return stmt_results(fl, all_b, &types);
}

static FlatAtom *tr_component(Fl *fl, Ctx *ctx, Env *env, Expr *e, int i);

/* Component i of host `if c then a else b` (a scalar tuple), c's value
   'cond' given: an if of one scalar, each branch giving its component i
   alone (tr_component). */
static FlatAtom *component_if(Fl *fl, Ctx *ctx, Env *env, Expr *e, FlatAtom *cond, int i) {
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, cond);
  FlatBlock *saved;
  s->then = enter_block(fl, &saved);
  vec_push(&fl->block->results, tr_component(fl, ctx, env, e->u.ifx.then, i));
  s->els = NEW(FlatBlock);
  fl->block = s->els;
  vec_push(&fl->block->results, tr_component(fl, ctx, env, e->u.ifx.els, i));
  fl->block = saved;
  Vec types = {0};
  flatten_host_layout(e->type, &types);
  FlatVar *v = flat_new_var(fl->fp, *(FlatType *)types.data[i], NULL);
  vec_push(&s->results, v);
  return flat_var_atom(v);
}

/* Is 'e' the recursive call of the loop whose part is being made
   (Fl.part_of), after the bindings of lets? */
static bool self_tail(Fl *fl, Expr *e) {
  while (e->kind == EX_LET)
    e = e->u.let.body;
  return e->kind == EX_CALL && e->callee == fl->part_of;
}

/* Does a path of 'e' through its ifs and lets end in the recursive call
   of the loop whose part (or whole element function) is being made? */
static bool reaches_self(Fl *fl, Expr *e) {
  switch (e->kind) {
  case EX_LET:
    return reaches_self(fl, e->u.let.body);
  case EX_IF:
    return reaches_self(fl, e->u.ifx.then) || reaches_self(fl, e->u.ifx.els);
  case EX_CALL:
    return e->callee == (fl->part_of ? fl->part_of : fl->whole_of);
  default:
    return false;
  }
}

/* Component i of the host value of scalar tuple 'e' (host layout order),
   without making the others where e is built of pairs, ifs and lets. */
static FlatAtom *tr_component(Fl *fl, Ctx *ctx, Env *env, Expr *e, int i) {
  Loc saved = fl->loc;
  fl->loc = e->loc;
  FlatAtom *r;
  switch (e->kind) {
  case EX_PAIR: {
    int n = host_count(e->u.pair.fst->type);
    r = i < n ? tr_component(fl, ctx, env, e->u.pair.fst, i) : tr_component(fl, ctx, env, e->u.pair.snd, i - n);
    break;
  }
  case EX_IF: {
    Vals cv = tr(fl, ctx, env, e->u.ifx.cond);
    fl->loc = e->loc;
    r = component_if(fl, ctx, env, e, vec_get(&cv, 0), i);
    break;
  }
  case EX_LET:
  case EX_CALL:
    if (fl->part_of && i != fl->part - 1 && self_tail(fl, e)) {
      /* another component of a part's own loop (call_parts), on a path
         that ends in the loop's next iteration: never returned, and the
         call would be a recursion out of tail position.  The part's own
         component takes the same branch and computes the same bindings
         and arguments, with the same errors. */
      Vec types = {0};
      flatten_host_layout(e->type, &types);
      r = base_zero(((FlatType *)types.data[i])->base, 0);
      break;
    }
    if (e->kind == EX_LET) {
      r = tr_component(fl, ctx, let_bindings(fl, ctx, env, e), e->u.let.body, i);
      break;
    }
    /* fall through */
  default: {
    Vals v = tr(fl, ctx, env, e);
    r = vec_get(&v, i);
  }
  }
  fl->loc = saved;
  return r;
}

/* if c then a else b at the host.  In scalar code (Fl.scalar_code) an if
   of a tuple is one if per component: a thunk's call of a function
   gives one scalar, so such a function is one part a component
   (call_parts).  But in a function of a whole tuple (Fl.whole_of: a
   sequence loop's element function, and the functions of scalars it
   calls), which only statements call, an if of a tuple stays one if of
   k results: its branches compute once what they share, and where a
   path leads to the loop's next iteration, that one call ends it. */
static Vals host_if(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  Vals cv = tr(fl, ctx, env, e->u.ifx.cond);
  int k = host_count(e->type);
  if (fl->scalar_code && !fl->cost && k > 1 && scalar_tuple(e->type) && !fl->whole_of) {
    fl->loc = e->loc;
    /* in part p of a loop (call_parts), the if that holds its tail call
       puts component p's if last: that call must end the part's body */
    int last = fl->part_of && fl->part <= k && reaches_self(fl, e) ? fl->part - 1 : k - 1;
    FlatAtom **parts = xmalloc(sizeof(FlatAtom *) * (size_t)k);
    for (int i = 0; i < k; i++)
      if (i != last)
        parts[i] = component_if(fl, ctx, env, e, vec_get(&cv, 0), i);
    parts[last] = component_if(fl, ctx, env, e, vec_get(&cv, 0), last);
    Vals r = {0};
    for (int i = 0; i < k; i++)
      vec_push(&r, parts[i]);
    return r;
  }
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, vec_get(&cv, 0));
  FlatBlock *saved;
  s->then = enter_block(fl, &saved);
  Vals a = tr(fl, ctx, env, e->u.ifx.then);
  for (int i = 0; i < a.len; i++)
    vec_push(&fl->block->results, a.data[i]);
  s->els = NEW(FlatBlock);
  fl->block = s->els;
  Vals b = tr(fl, ctx, env, e->u.ifx.els);
  for (int i = 0; i < b.len; i++)
    vec_push(&fl->block->results, b.data[i]);
  fl->block = saved;
  Vec types = {0};
  flatten_host_layout(e->type, &types);
  Vals r = {0};
  for (int i = 0; i < types.len; i++) {
    FlatVar *v = flat_new_var(fl->fp, *(FlatType *)types.data[i], NULL);
    vec_push(&s->results, v);
    vec_push(&r, flat_var_atom(v));
  }
  return r;
}

/* A lifted subscript's positions: starts + i (i where 'starts' is NULL)
   where its check passes (0 <= i < lens), else -1, which a <guarded>
   GATHER reads as the zero of the type (FlatStmt.guarded).  The check
   before it reports a bad subscript; the gather, in range or guarded,
   can never fail, so fusion may compute it anywhere, with or before the
   check's REDUCE. */
static FlatAtom *guarded_position(Fl *fl, FlatAtom *i, FlatAtom *lens, FlatAtom *starts) {
  FlatAtom *n = length(fl, i);
  FlatAtom *valid = binary(fl, FLAT_AND, binary(fl, FLAT_GE, i, dist(fl, int_const(0), n)),
                           binary(fl, FLAT_LT, i, lens));
  FlatAtom *pos = starts ? binary(fl, FLAT_ADD, starts, i) : i;
  return op(fl, FLAT_SELECT, vec_int(), 3, valid, pos, dist(fl, int_const(-1), n));
}

/* s[i]; 'in_range': the conditions around it keep i in range
   (flatten/bounds.h), so that a lifted one needs no check */
static Vals subscript(Fl *fl, Ctx *ctx, Vals s, Type *t, FlatAtom *i, bool in_range) {
  t = res(t);
  if (!ctx->lifted) {
    if (is_base(t)) {
      FlatAtom *v = vec_get(&s, 0);
      return one(op(fl, FLAT_ELT, flat_scalar(ty(v).base), 2, v, i));
    }
    if (fl->scalar_code && scalar_tuple(t)) {
      /* a tuple of scalars in scalar code (a sequence loop's parameter):
         its components' vectors read at i, each read checked as one
         subscript, which the first reports */
      Vals r = {0};
      for (int j = 0; j < s.len; j++) {
        FlatAtom *v = vec_get(&s, j);
        vec_push(&r, op(fl, FLAT_ELT, flat_scalar(ty(v).base), 2, v, i));
      }
      return r;
    }
    /* any type: gather the one element, then read it as a host value */
    FlatAtom *n = vals_length(fl, s, t);
    check(fl, RT_CHECK_SUBSCRIPT, i, n, NULL);
    Vals one_elem = gather_values(fl, s, t, dist(fl, i, int_const(1)));
    /* V(t) of one value -> H(t) */
    if (t->kind == T_PAIR) {
      int k = vector_count(t->fst);
      return concat(subscript(fl, ctx, slice(one_elem, 0, k), t->fst, int_const(0), true),
                    subscript(fl, ctx, slice(one_elem, k, one_elem.len - k), t->snd, int_const(0), true));
    }
    /* [u]: H([u]) = V(u): the one segment's data */
    return slice(one_elem, 1, one_elem.len - 1);
  }
  /* lifted: s = (d, V(t)), i a vector */
  const View *view = view_of(fl, s);
  if (view) {
    /* segments gathered from another vector (a view): read the element
       where its segment came from, so that the copy, if nothing else
       reads it, is never made.  Replicated segments (a sequence the
       same for every element, distributed; a free variable copied to
       each element): the transpose {c[j] : c in m} inside {... : j in
       ...}, m the same for every j, copied all of m for each j.  A
       pack's (a lifted `if`'s branch, a filter's kept segments): the
       subscript no longer reads the copy, which is then read only
       element by element, at its own index, where fusion computes it
       (quicksort's pivot `a[#a / 2]` read the else branch's copy of
       `a`, which the filters could then not compute where they read
       it).  The gather is by guarded_position's indices: in range
       where the check passes, and -1, read as 0, where it fails, so
       that wherever fusion computes it (before the check, or in the
       reader of the subscript, where the pivot's gather is now), it
       cannot fail: the check reports the error. */
    if (!in_range)
      check(fl, RT_CHECK_SUBSCRIPT, i, view->lengths, NULL);
    FlatAtom *pos = guarded_position(fl, i, view->lengths, view->starts);
    return gather_values_with(fl, &fl->guarded, view->source, t, pos);
  }
  FlatAtom *d = vec_get(&s, 0);
  FlatAtom *lens = seg_lengths(fl, d);
  if (!in_range)
    check(fl, RT_CHECK_SUBSCRIPT, i, lens, NULL);
  FlatAtom *pos = guarded_position(fl, i, lens, seg_offsets(fl, d));
  /* one element of each segment of d, each its own: taken once */
  bool outer = fl->guarded;
  fl->guarded = true;
  Vals r = gather_values_once(fl, slice(s, 1, s.len - 1), t, pos);
  fl->guarded = outer;
  /* by a constant: which element of each segment of d the view holds */
  int32_t c;
  const FlatAtom *rd = vec_get(&r, 0);
  View *view_made = rd->kind == FA_VAR ? ptrmap_get(&fl->views, rd->u.var) : NULL;
  if (view_made && d->kind == FA_VAR && dist_constant(fl, i, &c)) {
    view_made->top = d;
    view_made->index = c;
  }
  return r;
}

/* In a lifted context: is 'e' a variable whose value is the same for
   every element (a value from the host, or a top-level binding)?  Then
   '*out' gets its host value H(t). */
static bool invariant_arg(Fl *fl, Ctx *ctx, Env *env, Expr *e, Vals *out) {
  if (!ctx->lifted || e->kind != EX_VAR)
    return false;
  if (e->u.ref.def) {
    Vec *g = ptrmap_get(&fl->globals, e->u.ref.def);
    if (!g)
      return false;
    *out = (Vals){0};
    for (int i = 0; i < g->len; i++)
      vec_push(out, flat_var_atom(g->data[i]));
    return true;
  }
  Env *x = lookup(env, e->u.ref.name);
  if (!x || !x->invariant)
    return false;
  *out = x->vals;
  return true;
}

/* Lifted s[i] (or __gather(s, i)) where s is the same sequence, H([t]), for
   every element: index the one copy instead of distributing it.  The
   first statement gather_values makes is a gather by 'idx' of a vector
   of s's length (s's, its first component's, or its segments' lengths),
   and in the user's code a gather's error has the subscript check's
   words, location and first failing element: so there the gather is
   the check (spmv's `x[j]` read its column indices twice, once for a
   REDUCE that found the first one out of range).  In the library a
   gather's error names the primitive (`->`), so the check stays. */
static Vals index_invariant(Fl *fl, Ctx *ctx, Vals s, Type *t, FlatAtom *idx, FlatAtom *idx_segdes) {
  Vals r;
  if (fl->library) {
    FlatAtom *n = dist(fl, vals_length(fl, s, t), length(fl, idx));
    check(fl, RT_CHECK_SUBSCRIPT, idx, n, NULL);
    /* after the check, guarded as a lifted subscript's (subscript) */
    FlatAtom *pos = guarded_position(fl, idx, n, NULL);
    r = gather_values_with(fl, &fl->guarded, s, t, pos);
  } else {
    r = gather_values(fl, s, t, idx);
  }
  (void)ctx;
  return idx_segdes ? concat(one(idx_segdes), r) : r;
}

/* The primitives that read a sequence argument without needing a copy
   per element, when that argument is invariant. */
static bool invariant_primitive(Fl *fl, Ctx *ctx, Env *env, Expr *e, Vals *out) {
  if (!ctx->lifted || !e->callee || !e->callee->primitive)
    return false;
  const char *name = e->callee->def->name;
  Expr *arg = e->kind == EX_CALL ? e->u.ref.arg : e->u.op.lhs;
  Expr *first = arg->kind == EX_PAIR ? arg->u.pair.fst : arg;
  Vals s;
  if (strcmp(name, "__length") == 0 && invariant_arg(fl, ctx, env, arg, &s)) {
    *out = one(dist(fl, vals_length(fl, s, res(arg->type)->elem), ctx->len));
    charge(fl, ctx, FLAT_COST_UNIT, (Vals){0}); /* one step per element */
    return true;
  }
  bool elt = strcmp(name, "__elt") == 0, gather = strcmp(name, "__gather") == 0;
  if ((elt || gather) && arg->kind == EX_PAIR && invariant_arg(fl, ctx, env, first, &s)) {
    Vals iv = tr(fl, ctx, env, arg->u.pair.snd);
    fl->loc = e->loc;
    Type *t = res(first->type)->elem;
    if (elt)
      *out = index_invariant(fl, ctx, s, t, vec_get(&iv, 0), NULL);
    else
      *out = index_invariant(fl, ctx, s, t, vec_get(&iv, 1), vec_get(&iv, 0));
    /* per element, as primitive() charges it: one step, or a step over
       the element's indices */
    charge(fl, ctx, elt ? FLAT_COST_UNIT : FLAT_COST_SIZE, elt ? (Vals){0} : one(vec_get(&iv, 0)));
    return true;
  }
  return false;
}

/* Is 'e' a call of the primitive `++`? */
static bool is_append(const Expr *e) {
  return e->kind == EX_BINOP && e->callee && e->callee->primitive && strcmp(e->callee->def->name, "__append") == 0;
}

/* A lifted chain a ++ b ++ ... ++ z of three parts or more (`++` takes
   its left first, so the chain is the left spine of 'e'): one append of
   all the parts (lifted_append), each part flattened and each `++`'s
   check of its lengths made in NESL's order, where appending one part
   at a time gathered the elements of the parts before it again at each
   `++` (quicksort's result[0] ++ equal ++ result[1]: a make_segdes, a
   check and a gather of those elements a level).  Not under the cost
   model, which charges each `++` for the values it makes. */
static bool append_chain(Fl *fl, Ctx *ctx, Env *env, Expr *e, Vals *out) {
  if (!ctx->lifted || fl->cost || !is_append(e) || !is_append(e->u.op.lhs))
    return false;
  int n = 0; /* the `++`s */
  for (Expr *x = e; is_append(x); x = x->u.op.lhs)
    n++;
  Expr **spine = xmalloc(sizeof(Expr *) * (size_t)n); /* the innermost first */
  int at = n;
  for (Expr *x = e; is_append(x); x = x->u.op.lhs)
    spine[--at] = x;
  int k = n + 1;
  Type *t = res(e->type)->elem;
  Vals *parts = xmalloc(sizeof(Vals) * (size_t)k);
  FlatAtom **lens = xmalloc(sizeof(FlatAtom *) * (size_t)k);
  parts[0] = tr(fl, ctx, env, spine[0]->u.op.lhs);
  lens[0] = part_lengths(fl, parts[0]);
  FlatAtom *sum = lens[0];
  FlatAtom *bound = part_bound(fl, parts[0], t), *fits = NULL;
  for (int q = 1; q < k; q++) {
    Expr *op_q = spine[q - 1];
    parts[q] = tr(fl, ctx, env, op_q->u.op.rhs);
    fl->loc = op_q->loc;
    lens[q] = part_lengths(fl, parts[q]);
    /* as the `++` itself checks (primitive_ops): the sum of the lengths
       before it, checked in turn, and this part's */
    append_check(fl, sum, lens[q], &bound, part_bound(fl, parts[q], t), &fits);
    if (q < k - 1)
      sum = binary(fl, FLAT_ADD, sum, lens[q]);
  }
  fl->loc = e->loc;
  *out = lifted_append(fl, parts, lens, k, t);
  return true;
}

/* New variables of the types of 'v', the results of 's' (an `if` or a
   timed block whose blocks give 'v'), as atoms. */
static Vals fresh_results(Fl *fl, FlatStmt *s, Vals v) {
  Vals r = {0};
  for (int i = 0; i < v.len; i++) {
    FlatVar *x = flat_new_var(fl->fp, ty(v.data[i]), NULL);
    vec_push(&s->results, x);
    vec_push(&r, flat_var_atom(x));
  }
  return r;
}

/* Is 'e' the subscript v[q] of variable v by the integer literal q? */
static bool var_at(const Expr *e, const Expr *v, int q) {
  if (e->kind != EX_INDEX || e->u.index.seq->kind != EX_VAR || e->u.index.index->kind != EX_INT ||
      e->u.index.index->u.ival != q)
    return false;
  const Expr *w = e->u.index.seq;
  return w == v || (w->u.ref.def == v->u.ref.def && strcmp(w->u.ref.name, v->u.ref.name) == 0);
}

/* v[0] ++ v[1] ++ ... ++ v[k-1] at the host, v a variable of k segments
   or more: where v has exactly k it is flatten(v), v's elements as they
   lie, with no copy; otherwise the parts are appended as NESL says
   (their subscripts' errors included).  A split's result appended back
   (`let parts = split(xs, flags) in parts[0] ++ parts[1]`, radix sort's
   pass) extracted each part, a segdes, a gather and a read of its length
   each, and then gathered both into a third vector.  The parts name one
   variable in one expression, with no binding between them, so they read
   the same value.  Not lifted (a lifted if would split the elements by
   the test: lifted_append's views read the parts in place there), nor
   under the cost model, which charges each subscript and `++`. */
static bool whole_append(Fl *fl, Ctx *ctx, Env *env, Expr *e, Vals *out) {
  if (ctx->lifted || fl->cost || !is_append(e))
    return false;
  int k = 1;
  const Expr *x = e;
  for (; is_append(x); x = x->u.op.lhs)
    k++;
  if (x->kind != EX_INDEX || x->u.index.seq->kind != EX_VAR)
    return false;
  const Expr *v = x->u.index.seq;
  int q = k - 1;
  for (x = e; is_append(x); x = x->u.op.lhs)
    if (!var_at(x->u.op.rhs, v, q--))
      return false;
  if (!var_at(x, v, 0))
    return false;
  Vals whole = tr(fl, ctx, env, (Expr *)v);
  fl->loc = e->loc;
  FlatAtom *segments = op(fl, FLAT_SEG_COUNT, int_scalar(), 1, vec_get(&whole, 0));
  FlatAtom *exact = binary(fl, FLAT_EQ, segments, int_const(k));
  FlatStmt *s = stmt(fl, FS_IF);
  vec_push(&s->args, exact);
  FlatBlock *saved;
  s->then = enter_block(fl, &saved);
  for (int i = 1; i < whole.len; i++)
    vec_push(&fl->block->results, whole.data[i]);
  s->els = NEW(FlatBlock);
  fl->block = s->els;
  Vals a = tr(fl, ctx, env, e->u.op.lhs);
  Vals b = tr(fl, ctx, env, e->u.op.rhs);
  fl->loc = e->loc;
  Vals r = call(fl, ctx, e->callee, concat(a, b));
  for (int i = 0; i < r.len; i++)
    vec_push(&fl->block->results, r.data[i]);
  fl->block = saved;
  *out = fresh_results(fl, s, r);
  return true;
}

/* The literal a top-level binding gives global 'd' (`limit = 100;`,
   `lo = -5;`), or NULL.  Scalar code reads it as that constant: an
   element function (a loop run per element) cannot read a global of the
   host, and a function that read one ran lifted, one host step per
   iteration. */
static Expr *constant_global(Fl *fl, Def *d) {
  TopLevel *top = d ? ptrmap_get(&fl->mp->defined, d) : NULL;
  if (!top || top->kind != TOP_BIND || top->pat->kind != PAT_VAR || !top->body)
    return NULL;
  Expr *e = top->body;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
    return e;
  case EX_UNOP: { /* a negative number: the parser's negation of a literal */
    Expr *x = e->u.op.lhs;
    if (e->u.op.op != UN_NEG || (x->kind != EX_INT && x->kind != EX_FLOAT))
      return NULL;
    Expr *n = NEW(Expr);
    *n = *x;
    if (x->kind == EX_INT)
      n->u.ival = (int32_t)(0u - (uint32_t)x->u.ival); /* NESL's ints wrap */
    else
      n->u.fval = -x->u.fval;
    return n;
  }
  default:
    return NULL;
  }
}

static Vals tr_inner(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  switch (e->kind) {
  case EX_INT:
    return scalar(fl, ctx, int_const(e->u.ival));
  case EX_FLOAT:
    return scalar(fl, ctx, flat_float_atom(e->u.fval));
  case EX_BOOL:
    return scalar(fl, ctx, flat_bool_atom(e->u.bval));
  case EX_CHAR:
    return scalar(fl, ctx, flat_char_atom(e->u.cval));
  case EX_STRING: {
    Vals s = one(string_vector(fl, e->u.str.chars, e->u.str.len));
    return ctx->lifted ? dist_values(fl, s, e->type, ctx->len) : s;
  }
  case EX_VAR: {
    Expr *lit = fl->scalar_code ? constant_global(fl, e->u.ref.def) : NULL;
    if (lit) {
      Expr c = *lit;
      c.type = e->type;
      c.loc = e->loc;
      return tr_inner(fl, ctx, env, &c);
    }
    if (e->u.ref.def) {
      Vec *g = ptrmap_get(&fl->globals, e->u.ref.def);
      if (!g)
        die("flatten: global %s has no value", e->u.ref.name);
      Vals v = {0};
      for (int i = 0; i < g->len; i++)
        vec_push(&v, flat_var_atom(g->data[i]));
      return ctx->lifted ? dist_values(fl, v, e->type, ctx->len) : v;
    }
    Env *x = lookup(env, e->u.ref.name);
    if (!x)
      die("flatten: unbound variable %s", e->u.ref.name);
    if (x->invariant && ctx->lifted)
      return dist_values(fl, x->vals, x->type, ctx->len);
    return x->vals;
  }
  case EX_CALL:
  case EX_UNOP: {
    Vals fast;
    if (invariant_primitive(fl, ctx, env, e, &fast))
      return fast;
    Vals *shared = e->kind == EX_CALL && ctx->lifted && e->callee && !e->callee->primitive &&
                           !called_each(fl, e->callee) && seq_loop(fl, e->callee, NULL)
                       ? seq_loop_args(fl, ctx, env, e->callee, e->u.ref.arg)
                       : NULL;
    if (shared) {
      fl->loc = e->loc;
      return call_each_seq(fl, e->callee, *shared);
    }
    Vals a = tr(fl, ctx, env, e->kind == EX_CALL ? e->u.ref.arg : e->u.op.lhs);
    fl->loc = e->loc;
    return call(fl, ctx, e->callee, a);
  }
  case EX_BINOP: {
    Vals chain;
    if (append_chain(fl, ctx, env, e, &chain) || whole_append(fl, ctx, env, e, &chain))
      return chain;
    Vals a = tr(fl, ctx, env, e->u.op.lhs);
    Vals b = tr(fl, ctx, env, e->u.op.rhs);
    fl->loc = e->loc;
    return call(fl, ctx, e->callee, concat(a, b));
  }
  case EX_PAIR: {
    Vals a = tr(fl, ctx, env, e->u.pair.fst);
    return concat(a, tr(fl, ctx, env, e->u.pair.snd));
  }
  case EX_SEQ:
    return sequence(fl, ctx, env, e);
  case EX_EMPTY: {
    Type *t = res(e->type)->elem;
    if (!ctx->lifted)
      return empty_values(fl, t);
    return concat(one(make_segdes(fl, dist(fl, int_const(0), ctx->len))), empty_values(fl, t));
  }
  case EX_RANGE: {
    Vals s = tr(fl, ctx, env, e->u.range.start);
    Vals en = tr(fl, ctx, env, e->u.range.end);
    Vals d = e->u.range.stride ? tr(fl, ctx, env, e->u.range.stride) : scalar(fl, ctx, int_const(1));
    fl->loc = e->loc;
    if (!ctx->lifted) {
      FlatAtom *r = op(fl, FLAT_RANGE, vec_int(), 3, vec_get(&s, 0), vec_get(&en, 0), vec_get(&d, 0));
      charge(fl, ctx, FLAT_COST_SIZE, one(r));
      return one(r);
    }
    intptr_t k = constant_range_length(fl, vec_get(&s, 0), vec_get(&en, 0), vec_get(&d, 0));
    FlatAtom *total = k > 0 ? uniform_total(fl, ctx->len, k) : NULL;
    FlatStmt *st = stmt(fl, FS_OP);
    st->op = FLAT_SEG_RANGE;
    st->total = total;
    vec_push(&st->args, vec_get(&s, 0));
    vec_push(&st->args, vec_get(&en, 0));
    vec_push(&st->args, vec_get(&d, 0));
    FlatVar *sd = flat_new_var(fl->fp, flat_segdes(), NULL), *data = flat_new_var(fl->fp, vec_int(), NULL);
    if (k > 0)
      ptrmap_put(&fl->uniform, sd, (void *)k);
    vec_push(&st->results, sd);
    vec_push(&st->results, data);
    charge(fl, ctx, FLAT_COST_SIZE, one(flat_var_atom(sd)));
    return concat(one(flat_var_atom(sd)), one(flat_var_atom(data)));
  }
  case EX_INDEX: {
    Vals inv;
    if (invariant_arg(fl, ctx, env, e->u.index.seq, &inv)) {
      Vals i = tr(fl, ctx, env, e->u.index.index);
      fl->loc = e->loc;
      Vals r = index_invariant(fl, ctx, inv, e->type, vec_get(&i, 0), NULL);
      charge(fl, ctx, FLAT_COST_UNIT, (Vals){0});
      return r;
    }
    Vals s = tr(fl, ctx, env, e->u.index.seq);
    Vals i = tr(fl, ctx, env, e->u.index.index);
    fl->loc = e->loc;
    Vals r = subscript(fl, ctx, s, e->type, vec_get(&i, 0), e->u.index.in_range);
    charge(fl, ctx, FLAT_COST_UNIT, (Vals){0});
    return r;
  }
  case EX_IF:
    return ctx->lifted ? lifted_if(fl, ctx, env, e) : host_if(fl, ctx, env, e);
  case EX_LET:
    return tr(fl, ctx, let_bindings(fl, ctx, env, e), e->u.let.body);
  case EX_APPLY:
    return apply_to_each(fl, ctx, env, e);
  case EX_APP:
    die("flatten: an application of a function value is left after monomorphization");
  case EX_TIME: {
    FlatStmt *s = stmt(fl, FS_TIME);
    FlatBlock *saved;
    s->body = enter_block(fl, &saved);
    Vals v = tr(fl, ctx, env, e->u.timed);
    for (int i = 0; i < v.len; i++)
      vec_push(&fl->block->results, v.data[i]);
    fl->block = saved;
    Vals r = fresh_results(fl, s, v);
    FlatVar *secs = flat_new_var(fl->fp, flat_scalar(FB_FLOAT), "seconds");
    vec_push(&s->results, secs);
    return concat(r, scalar(fl, ctx, flat_var_atom(secs)));
  }
  }
  unreachable();
}

/* 'env' with the bindings of let 'e' (not its body) added. */
/* A closed expression's value (frontend/invariant.h) computed at the
   host, whatever the context: it reads no local variable. */
static Vals at_host(Fl *fl, Expr *e) {
  Loc saved = fl->loc;
  fl->loc = e->loc;
  Ctx host = {false, NULL};
  Vals v = tr_inner(fl, &host, NULL, e);
  fl->loc = saved;
  return v;
}

static Env *let_bindings(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  for (int i = 0; i < e->u.let.binds.len; i++) {
    Binding *b = e->u.let.binds.data[i];
    if (ctx->lifted && !fl->cost && inv_hoistable(&fl->inv, b->value)) {
      /* a closed value in lifted code: computed once (see tr), and its
         variables bound to the host value, the same for every element,
         as an apply-to-each binds what it reads from the host */
      Env *before = env;
      env = match(env, b->pat, at_host(fl, b->value), false);
      for (Env *x = env; x != before; x = x->next)
        x->invariant = true;
      continue;
    }
    Vals v = tr(fl, ctx, env, b->value);
    env = match(env, b->pat, v, ctx->lifted);
  }
  return env;
}

/* In lifted code, a closed expression (frontend/invariant.h) is
   computed once at the host, where it stands: NESL's evaluation, whose
   errors it keeps even over no elements.  A scalar (or a tuple of them)
   is then distributed, one computation where each element made its
   own.  A sequence would be copied per element by the distribution, no
   cheaper than computing it lifted, so it is computed lifted as before,
   and at the host for its errors only where there are no elements; a
   `let` binds a closed sequence once (let_bindings). */
static Vals tr(Fl *fl, Ctx *ctx, Env *env, Expr *e) {
  Loc saved = fl->loc;
  fl->loc = e->loc;
  Vals v;
  if (ctx->lifted && inv_hoistable(&fl->inv, e)) {
    if (scalar_tuple(e->type) && !fl->cost) { /* the model charges each element */
      v = dist_values(fl, at_host(fl, e), e->type, ctx->len);
    } else {
      /* if there are no elements, the host computation for its errors
         (with elements, the lifted one meets the same) */
      FlatAtom *none = binary(fl, FLAT_EQ, ctx->len, int_const(0));
      FlatStmt *s = stmt(fl, FS_IF);
      vec_push(&s->args, none);
      FlatBlock *saved;
      s->then = enter_block(fl, &saved);
      cost_switch(fl, FLAT_COST_OFF);
      fl->no_cost++; /* for its errors alone */
      (void)at_host(fl, e);
      fl->no_cost--;
      cost_switch(fl, FLAT_COST_ON);
      s->els = NEW(FlatBlock);
      fl->block = saved;
      v = tr_inner(fl, ctx, env, e);
    }
  } else {
    v = tr_inner(fl, ctx, env, e);
  }
  fl->loc = saved;
  return v;
}

#include "flatten_prims.inc"

/* ---- scalar loops ----

   A function whose parameters and result are scalars (a tuple of them),
   whose body only computes with scalars (constants, its parameters,
   globals bound to literals (constant_global), let, if, the element-wise
   primitives but rand, calls of such functions) and
   that calls itself, only in tail position, is a loop: `escape(c, z, k)
   = if done then k else escape(c, f(z), k + 1)`.  Inside an
   apply-to-each each element runs its own iterations, as a thunk's call
   (λcu's LE_CALL) that codegen makes a C loop.  A tuple result is one
   loop per component (get_part, call_parts): each runs the whole
   iteration, so that it fails where the function does, and returns its
   component.  Lifted instead, f^ would take one host step per iteration
   over the elements still running, packing every argument and merging
   the results back (mandelbrot: 256 steps).  Functions that call each other are not
   loops, nor are recursive calls whose result is used further (their
   depth would be the stack's): they stay lifted. */


typedef struct SeqLoop SeqLoop;
static bool loop_body(Fl *fl, MonoFunc *self, Expr *e, bool tail, bool *recursive, SeqLoop *L);
static bool seq_result(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e, bool tail);
static bool seq_tail_call(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e);
static int seq_param(SeqLoop *L, Expr *e);
static bool hides_seq_param(SeqLoop *L, Pattern *p);
static bool base_seq(Type *t);
static bool read_seq(Type *t);

/* LOOP_NOT, LOOP_PLAIN (computes with scalars alone, without recursion)
   or LOOP_YES (a scalar loop); LOOP_VISITING while its body is walked,
   so that functions calling each other are LOOP_NOT. */
static intptr_t scalar_kind(Fl *fl, MonoFunc *mf) {
  intptr_t known = (intptr_t)ptrmap_get(&fl->loops, mf);
  if (known)
    return known == LOOP_VISITING ? LOOP_NOT : known;
  Type *ft = res(mf->type);
  intptr_t kind = LOOP_NOT;
  if (mf->body && scalar_tuple(ft->fst) && scalar_tuple(ft->snd)) {
    ptrmap_put(&fl->loops, mf, (void *)(intptr_t)LOOP_VISITING);
    bool rec = false;
    if (loop_body(fl, mf, mf->body, true, &rec, NULL))
      kind = rec ? LOOP_YES : LOOP_PLAIN;
  }
  ptrmap_put(&fl->loops, mf, (void *)kind);
  return kind;
}

/* May the body of loop 'self' call 'mf', giving a value of type 't'
   (in tail position if 'tail')? */
static bool loop_callee(Fl *fl, MonoFunc *self, MonoFunc *mf, Type *t, bool tail, bool *recursive) {
  if (!mf)
    return false; /* a constructor */
  if (mf->primitive) {
    if (!is_base(t) || strcmp(mf->def->name, "rand") == 0)
      return false;
    if (strcmp(mf->def->name, "identity") == 0) /* a zero of a base type (abs, plusp) */
      return true;
    for (size_t i = 0; i < sizeof elementwise / sizeof elementwise[0]; i++)
      if (strcmp(mf->def->name, elementwise[i].prim) == 0)
        return true;
    return false;
  }
  if (mf == self) {
    *recursive = true;
    return tail;
  }
  return scalar_kind(fl, mf) != LOOP_NOT; /* a loop of its own runs as one */
}

/* Is 'e' (in tail position if 'tail') the body of scalar loop 'self',
   or, with 'L', of sequence loop 'self' (its sequences then read by #
   and subscripts, passed on by seq_tail_call, and returned by
   seq_result)? */
static bool loop_body(Fl *fl, MonoFunc *self, Expr *e, bool tail, bool *recursive, SeqLoop *L) {
  if (L && read_seq(e->type))
    return seq_result(fl, L, self, e, tail);
  if (!scalar_tuple(e->type))
    return false;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
    return true;
  case EX_VAR: /* a local, or a global bound to a literal (constant_global) */
    return !e->u.ref.def || constant_global(fl, e->u.ref.def);
  case EX_PAIR:
    return loop_body(fl, self, e->u.pair.fst, false, recursive, L) &&
           loop_body(fl, self, e->u.pair.snd, false, recursive, L);
  case EX_INDEX: /* a sequence loop's element of a sequence parameter */
    return L && seq_param(L, e->u.index.seq) >= 0 && loop_body(fl, self, e->u.index.index, false, recursive, L);
  case EX_IF:
    return loop_body(fl, self, e->u.ifx.cond, false, recursive, L) &&
           loop_body(fl, self, e->u.ifx.then, tail, recursive, L) &&
           loop_body(fl, self, e->u.ifx.els, tail, recursive, L);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i];
      if (!loop_body(fl, self, b->value, false, recursive, L))
        return false;
      if (L && hides_seq_param(L, b->pat))
        return false;
    }
    return loop_body(fl, self, e->u.let.body, tail, recursive, L);
  case EX_CALL:
  case EX_UNOP: {
    Expr *arg = e->kind == EX_CALL ? e->u.ref.arg : e->u.op.lhs;
    MonoFunc *mf = e->callee;
    if (L && mf && mf->primitive && strcmp(mf->def->name, "__length") == 0)
      return seq_param(L, arg) >= 0;
    if (L && mf == self)
      return tail && seq_tail_call(fl, L, self, e);
    return loop_body(fl, self, arg, false, recursive, L) && loop_callee(fl, self, mf, e->type, tail, recursive);
  }
  case EX_BINOP:
    return loop_body(fl, self, e->u.op.lhs, false, recursive, L) &&
           loop_body(fl, self, e->u.op.rhs, false, recursive, L) &&
           loop_callee(fl, self, e->callee, e->type, tail, recursive);
  default:
    return false; /* sequences, strings, apply-to-each, time; a scalar loop's subscripts */
  }
}

/* Does scalar code 'e' hold an if that a lifted context would split
   (select_convertible refuses it), itself or in a function it calls? */
static bool has_split_if(Expr *e, PtrMap *seen) {
  if (!e)
    return false;
  switch (e->kind) {
  case EX_PAIR:
    return has_split_if(e->u.pair.fst, seen) || has_split_if(e->u.pair.snd, seen);
  case EX_IF:
    return !select_convertible(e) || has_split_if(e->u.ifx.cond, seen) || has_split_if(e->u.ifx.then, seen) ||
           has_split_if(e->u.ifx.els, seen);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      if (has_split_if(((Binding *)e->u.let.binds.data[i])->value, seen))
        return true;
    return has_split_if(e->u.let.body, seen);
  case EX_CALL:
  case EX_BINOP:
  case EX_UNOP: {
    Expr *arg = e->kind == EX_CALL ? e->u.ref.arg : e->u.op.lhs;
    if (has_split_if(arg, seen) || (e->kind == EX_BINOP && has_split_if(e->u.op.rhs, seen)))
      return true;
    MonoFunc *mf = e->callee;
    if (!mf || mf->primitive || !mf->body || ptrmap_get(seen, mf))
      return false;
    ptrmap_put(seen, mf, mf);
    return has_split_if(mf->body, seen);
  }
  default:
    return false;
  }
}

/* What called_each found a function to be. */
enum { EACH_NO = 1, EACH_YES };

/* Does a lifted call of 'mf' run it per element (call_each) rather than
   lifted?  A scalar loop does (above).  So does a plain scalar function
   (scalars in, scalars or a tuple of them out, no recursion) whose body
   holds an if that a lifted context would split: lifted, each such if
   counts its branches' elements on the host, packs them, runs each
   branch and merges the results back, a dozen launches and a host wait
   where one MAP of the function does.  The answer is kept. */
static bool called_each(Fl *fl, MonoFunc *mf) {
  if (fl->cost) /* f^ runs over the elements; scalar code per element would
                   run a tuple's function once per component */
    return false;
  intptr_t known = (intptr_t)ptrmap_get(&fl->each, mf);
  if (known)
    return known == EACH_YES;
  bool yes = false;
  intptr_t kind = scalar_kind(fl, mf);
  if (kind == LOOP_YES)
    yes = true;
  else if (kind == LOOP_PLAIN) {
    PtrMap seen = {0};
    yes = has_split_if(mf->body, &seen);
  }
  ptrmap_put(&fl->each, mf, (void *)(intptr_t)(yes ? EACH_YES : EACH_NO));
  return yes;
}

/* ---- sequence loops ----

   A loop as above whose parameters may also be flat sequences of base
   values, and whose result is a scalar or one of those sequences:

     function count_loop(ds, buckets, i) =
       if i == #ds then buckets
       else count_loop(ds, rep(buckets, buckets[ds[i]] + 1, ds[i]), i + 1);

   Inside an apply-to-each each element runs its own iterations on its
   own segments (λcu's LIBRARY loop), its sequence state updated in place:
   lifted, count_loop^ takes one host step per iteration over all the
   elements still running, each step packing the state vectors and
   rep^ copying them (NESL/GPU's radix sort: 2000 steps a sort).  What
   makes the update in place legal is the shape the body must have:

   - a sequence parameter is read only as #s and s[i], and passed on
     only to the recursive call, in its own position, as itself or as
     rep(s, x, i) (NESL's copy with one element replaced), whose old
     value is then dead: the call is in tail position, and no other
     argument of that call reads s (they are computed first, as the
     element function computes them in order);
   - where the result is a sequence, every base case returns the same
     sequence parameter, which the loop's state copy then holds;
   - everything else is scalar code, as in a scalar loop: no let binds a
     sequence, no apply-to-each, no other sequence operation.

   A sequence the loop only reads and does not return, the same for
   every element (a variable bound outside the apply-to-each, a global),
   is passed once, shared by the elements (seq_loop_args), not copied to
   each.  The function stays a host function as well (its calls outside
   any apply-to-each); only its calls inside one run per element. */

struct SeqLoop {
  Vec names;   /* const char *: the parameters' names, in layout order */
  Vec types;   /* Type *: theirs */
  int result;  /* the sequence parameter returned, -1 for none yet */
  bool recursive;
  bool updated[64]; /* which of the first 64 parameters a call passes
                       rep(s, x, i) (the rest are never shared) */
};

/* A flat sequence of base values? */
static bool base_seq(Type *t) {
  t = res(t);
  return t->kind == T_SEQ && is_base(t->elem);
}

/* A flat sequence of scalars or of tuples of scalars: what a sequence
   loop may take and read (# and s[i]); only one of base values may be
   updated (rep) or returned. */
static bool read_seq(Type *t) {
  t = res(t);
  return t->kind == T_SEQ && scalar_tuple(t->elem);
}

/* The parameters of pattern 'p', in layout order: false if one is not a
   scalar or a flat sequence of scalars or of tuples of them (read_seq). */
static bool seq_params(Pattern *p, SeqLoop *L) {
  if (p->kind == PAT_PAIR)
    return seq_params(p->fst, L) && seq_params(p->snd, L);
  if (p->kind != PAT_VAR || !(is_base(p->type) || read_seq(p->type)))
    return false;
  vec_push(&L->names, (void *)p->name);
  vec_push(&L->types, p->type);
  return true;
}

/* The index of sequence parameter 'e' (a variable naming one), or -1. */
static int seq_param(SeqLoop *L, Expr *e) {
  if (e->kind != EX_VAR || e->u.ref.def || !read_seq(e->type))
    return -1;
  for (int i = L->names.len - 1; i >= 0; i--)
    if (strcmp(L->names.data[i], e->u.ref.name) == 0)
      return read_seq(L->types.data[i]) ? i : -1;
  return -1;
}

/* Does 'e' mention the variable 'name' anywhere? */
static bool mentions(Expr *e, const char *name) {
  if (!e)
    return false;
  switch (e->kind) {
  case EX_VAR:
    return !e->u.ref.def && strcmp(e->u.ref.name, name) == 0;
  case EX_CALL:
    return mentions(e->u.ref.arg, name);
  case EX_BINOP:
    return mentions(e->u.op.lhs, name) || mentions(e->u.op.rhs, name);
  case EX_UNOP:
    return mentions(e->u.op.lhs, name);
  case EX_PAIR:
    return mentions(e->u.pair.fst, name) || mentions(e->u.pair.snd, name);
  case EX_INDEX:
    return mentions(e->u.index.seq, name) || mentions(e->u.index.index, name);
  case EX_IF:
    return mentions(e->u.ifx.cond, name) || mentions(e->u.ifx.then, name) || mentions(e->u.ifx.els, name);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      if (mentions(((Binding *)e->u.let.binds.data[i])->value, name))
        return true;
    return mentions(e->u.let.body, name);
  default:
    return false; /* constants; the rest is refused by seq_body anyway */
  }
}

/* Does pattern 'p' bind 'name'? */
static bool pattern_binds(Pattern *p, const char *name) {
  if (!p)
    return false;
  if (p->kind == PAT_VAR)
    return strcmp(p->name, name) == 0;
  return pattern_binds(p->fst, name) || pattern_binds(p->snd, name) || pattern_binds(p->arg, name);
}

/* Does pattern 'p' (of a let in sequence loop 'L') bind the name of one
   of its sequence parameters?  Reads of the name would then no longer be
   reads of the parameter. */
static bool hides_seq_param(SeqLoop *L, Pattern *p) {
  for (int k = 0; k < L->names.len; k++)
    if (read_seq(L->types.data[k]) && pattern_binds(p, L->names.data[k]))
      return true;
  return false;
}

/* The arguments of a call, split along the parameters' pattern 'p'. */
static bool split_args(Pattern *p, Expr *e, Vec *out) {
  if (p->kind == PAT_VAR) {
    vec_push(out, e);
    return true;
  }
  return p->kind == PAT_PAIR && e->kind == EX_PAIR && split_args(p->fst, e->u.pair.fst, out) &&
         split_args(p->snd, e->u.pair.snd, out);
}

static bool seq_body(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e, bool tail);

/* Is rep(s, x, i) 'e', with s sequence parameter 'k'? */
static bool is_rep_of(SeqLoop *L, Expr *e, int k, Vec *parts) {
  if (e->kind != EX_CALL || !e->callee || !e->callee->library || strcmp(e->callee->def->name, "rep") != 0)
    return false;
  Expr *a = e->u.ref.arg;
  if (a->kind != EX_PAIR || a->u.pair.snd->kind != EX_PAIR)
    return false;
  parts->len = 0;
  vec_push(parts, a->u.pair.fst);
  vec_push(parts, a->u.pair.snd->u.pair.fst);
  vec_push(parts, a->u.pair.snd->u.pair.snd);
  return seq_param(L, parts->data[0]) == k && is_base(((Expr *)parts->data[1])->type);
}

/* The recursive call 'e' of 'self', in tail position. */
static bool seq_tail_call(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e) {
  Vec args = {0};
  if (!split_args(self->param, e->u.ref.arg, &args) || args.len != L->names.len)
    return false;
  L->recursive = true;
  for (int k = 0; k < args.len; k++) {
    Expr *a = args.data[k];
    if (!read_seq(L->types.data[k])) {
      if (!seq_body(fl, L, self, a, false))
        return false;
      continue;
    }
    if (seq_param(L, a) == k)
      continue; /* passed on as it is */
    Vec parts = {0};
    if (!is_rep_of(L, a, k, &parts) || !seq_body(fl, L, self, parts.data[1], false) ||
        !seq_body(fl, L, self, parts.data[2], false))
      return false;
    if (k < 64)
      L->updated[k] = true;
    /* updated in place: no other argument may read the old value */
    const char *name = L->names.data[k];
    for (int j = 0; j < args.len; j++)
      if (j != k && mentions(args.data[j], name))
        return false;
  }
  return true;
}

/* A sequence expression of sequence loop 'self' in tail position 'e':
   a sequence parameter returned (always the same one), or an if, a let
   or the tail call that gives one. */
static bool seq_result(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e, bool tail) {
  if (!tail)
    return false;
  int k = seq_param(L, e);
  if (k >= 0) {
    if ((L->result >= 0 && L->result != k) || !base_seq(L->types.data[k]))
      return false;
    L->result = k;
    return true;
  }
  switch (e->kind) {
  case EX_IF:
    return seq_body(fl, L, self, e->u.ifx.cond, false) && seq_body(fl, L, self, e->u.ifx.then, true) &&
           seq_body(fl, L, self, e->u.ifx.els, true);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      if (!seq_body(fl, L, self, ((Binding *)e->u.let.binds.data[i])->value, false))
        return false;
    return seq_body(fl, L, self, e->u.let.body, true);
  case EX_CALL:
    return e->callee == self && seq_tail_call(fl, L, self, e);
  default:
    return false;
  }
}

/* Is 'e' (in tail position if 'tail') the body of sequence loop 'self'? */
static bool seq_body(Fl *fl, SeqLoop *L, MonoFunc *self, Expr *e, bool tail) {
  return loop_body(fl, self, e, tail, &L->recursive, L);
}

/* Is 'mf' a sequence loop (above)?  '*result' gets the index of the
   sequence parameter it returns, or -1 (a scalar result).  The answer is
   kept in fl->seq_loops: 1 for no, else 3 + that index (2: a scalar
   result); the loop's form (SeqLoop) in fl->seq_loop_forms. */
static bool seq_loop(Fl *fl, MonoFunc *mf, int *result) {
  intptr_t known = (intptr_t)ptrmap_get(&fl->seq_loops, mf);
  if (!known) {
    known = 1;
    Type *ft = res(mf->type);
    SeqLoop *L = NEW(SeqLoop);
    L->result = -1;
    if (mf->body && !mf->primitive && !fl->cost && seq_params(mf->param, L) &&
        (scalar_tuple(ft->snd) || base_seq(ft->snd))) {
      bool any = false;
      for (int k = 0; k < L->types.len; k++)
        any |= read_seq(L->types.data[k]);
      if (any && seq_body(fl, L, mf, mf->body, true) && L->recursive && (L->result >= 0) == base_seq(ft->snd)) {
        known = 3 + L->result; /* 2 for a scalar result (-1) */
        ptrmap_put(&fl->seq_loop_forms, mf, L);
      }
    }
    ptrmap_put(&fl->seq_loops, mf, (void *)known);
  }
  if (result)
    *result = (int)known - 3;
  return known != 1;
}

/* The arguments of a lifted call of sequence loop 'mf' (its argument
   expression 'arg'): each translated as usual, but for a sequence that
   the loop only reads and that is the same for every element (a
   variable bound outside the apply-to-each, a global): then its one
   host vector, which every element reads (shared), not a copy of it for
   each element.  NULL where the argument is not a tuple written out. */
static Vals *seq_loop_args(Fl *fl, Ctx *ctx, Env *env, MonoFunc *mf, Expr *arg) {
  SeqLoop *L = ptrmap_get(&fl->seq_loop_forms, mf);
  Vec parts = {0};
  if (!L || !split_args(mf->param, arg, &parts) || parts.len != L->names.len)
    return NULL;
  Vals *out = NEW(Vals);
  int unshared = 0; /* a parameter that is not shared: the loop's elements are its */
  for (int k = 0; k < parts.len; k++) {
    Vals v;
    bool shared = read_seq(L->types.data[k]) && k < 64 && !L->updated[k] && k != L->result &&
                  invariant_arg(fl, ctx, env, parts.data[k], &v);
    if (!shared) {
      v = tr(fl, ctx, env, parts.data[k]);
      unshared++;
    }
    for (int i = 0; i < v.len; i++)
      vec_push(out, v.data[i]);
  }
  return unshared ? out : NULL;
}

/* The arguments of a sequence loop's `call each`, one or two atoms a
   parameter of its host function (flat_each_arg): a scalar's vector; a
   sequence's segdes and values, or its one shared vector.  A sequence of
   tuples is k vectors at the host, and lifted one segdes and k values:
   here each component gets the segdes before its values. */
static Vals each_seq_args(Fl *fl, MonoFunc *mf, Vals args) {
  const SeqLoop *L = ptrmap_get(&fl->seq_loop_forms, mf); /* its parameters' types, in layout order */
  const Vec types = L->types;
  Vals out = {0};
  int at = 0;
  for (int i = 0; i < types.len && at < args.len; i++) {
    int k = host_count(types.data[i]);
    FlatAtom *a = args.data[at];
    if (!read_seq(types.data[i]) || flat_atom_type(a).kind != FT_SEGDES) {
      for (int j = 0; j < k; j++)
        vec_push(&out, vec_get(&args, at + j));
      at += k;
      continue;
    }
    for (int j = 0; j < k; j++) {
      vec_push(&out, a);
      vec_push(&out, vec_get(&args, at + 1 + j));
    }
    at += 1 + k;
  }
  return out;
}

/* A sequence loop applied to each element of lifted 'args' (FS_CALL
   with 'each'): its lifted result.  A scalar, as a scalar function's
   (call_each); a tuple of scalars, a vector a component, from one
   element function of the whole tuple (get_whole), which walks each
   element's loop once; the sequence it returns as the segdes of that
   state (the argument's) and its values. */
static Vals call_each_seq(Fl *fl, MonoFunc *mf, Vals args) {
  Vals a = each_seq_args(fl, mf, args);
  Type *rt = res(mf->type)->snd;
  if (is_base(rt))
    return call_each(fl, mf, a);
  FlatStmt *s = stmt(fl, FS_CALL);
  s->callee = scalar_tuple(rt) ? get_whole(fl, mf) : get_func(fl, mf, false);
  s->each = true;
  for (int i = 0; i < a.len; i++)
    vec_push(&s->args, a.data[i]);
  Vec types = {0};
  flatten_vector_layout(rt, &types);
  return stmt_results(fl, s, &types);
}

/* ---- functions ---- */

/* The flat function of instance 'mf': at the host, or lifted; made
   when first asked for, its body later (make_pending).  'component'
   (1..k) asks for the host function giving component k of the tuple
   result alone, named f.k; COMPONENT_ALL for a sequence loop's element
   function giving every component of its tuple result, named f.all. */
enum { COMPONENT_ALL = -1 };
static FlatFunc *func_of(Fl *fl, MonoFunc *mf, bool lifted, int component) {
  const char *key = component > 0 ? xprintf("%s.%d", mf->name, component)
                    : component ? xprintf("%s.all", mf->name)
                                : xprintf("%s%s", mf->name, lifted ? "^" : "");
  FlatFunc *f = map_get(&fl->funcs, key);
  if (f)
    return f;
  f = NEW(FlatFunc);
  f->name = intern(key);
  f->loc = mf->def->loc;
  f->lifted = lifted;
  f->library = mf->library;
  f->source = mf->def->name;
  Type *ft = res(mf->type);
  Vec pt = {0}, rt = {0};
  if (lifted) {
    flatten_vector_layout(ft->fst, &pt);
    flatten_vector_layout(ft->snd, &rt);
  } else {
    flatten_host_layout(ft->fst, &pt);
    flatten_host_layout(ft->snd, &rt);
  }
  for (int i = 0; i < pt.len; i++)
    vec_push(&f->params, flat_new_var(fl->fp, *(FlatType *)pt.data[i], NULL));
  /* which parameters lie in the elements of which: fusion reads it (a
     segmented sum over a nested parameter's rows meets the vector of its
     values) */
  Vec within = {0};
  flatten_layout_within(ft->fst, !lifted, &within);
  for (int i = 0; i < f->params.len; i++) {
    intptr_t k = (intptr_t)within.data[i];
    ((FlatVar *)f->params.data[i])->within = k ? f->params.data[k - 1] : NULL;
  }
  /* the results' lengths that their layout makes one: a lifted
     function's elements (group 1); each sequence's components */
  int next = lifted ? 1 : 0;
  flatten_layout_groups(ft->snd, !lifted, lifted ? 1 : 0, &next, &f->result_groups);
  int next_param = lifted ? 1 : 0;
  flatten_layout_groups(ft->fst, !lifted, lifted ? 1 : 0, &next_param, &f->param_groups);
  if (component > 0) {
    FlatType *part = rt.data[component - 1];
    rt = (Vec){0};
    vec_push(&rt, part);
    f->result_groups = (Vec){0};
    vec_push(&f->result_groups, (void *)0); /* a scalar */
  } else if (component) {
    f->result_groups = (Vec){0};
    for (int i = 0; i < rt.len; i++)
      vec_push(&f->result_groups, (void *)0); /* scalars */
  }
  f->result_types = rt;
  map_put(&fl->funcs, f->name, f);
  vec_push(&fl->fp->funcs, f);
  Pending *p = NEW(Pending);
  p->func = f;
  p->mono = mf;
  p->component = component;
  vec_push(&fl->pending, p);
  return f;
}

static FlatFunc *get_func(Fl *fl, MonoFunc *mf, bool lifted) { return func_of(fl, mf, lifted, 0); }

static FlatFunc *get_part(Fl *fl, MonoFunc *mf, int component) { return func_of(fl, mf, false, component); }

static FlatFunc *get_whole(Fl *fl, MonoFunc *mf) { return func_of(fl, mf, false, COMPONENT_ALL); }

/* Computes, at the host and for their errors alone, the closed
   expressions (frontend/invariant.h) that lifted code for 'e' computes
   over no elements: those outside the branches of its ifs, in its
   apply-to-each, and in the bodies of the functions it calls ('seen':
   the functions already walked, so that a recursion is walked once).
   eval's closed_parts walks the same. */
typedef struct ClosedParts {
  Fl *fl;
  PtrMap *seen;
} ClosedParts;

static void closed_value(void *ctx, Expr *e) { (void)at_host(((ClosedParts *)ctx)->fl, e); }

/* (an application of a function value too: mono made it a call of the
   function its type names, which eval finds the same way) */
static void closed_call(void *ctx, Expr *e) {
  ClosedParts *c = ctx;
  if (!e->callee || !e->callee->body || ptrmap_get(c->seen, e->callee))
    return;
  ptrmap_put(c->seen, e->callee, e->callee);
  closed_parts(c->fl, e->callee->body, c->seen);
}

static void closed_parts(Fl *fl, Expr *e, PtrMap *seen) {
  fl->no_cost++; /* run for their errors alone: the model charges nothing */
  inv_walk_closed(&fl->inv, e, closed_value, closed_call, &(ClosedParts){fl, seen});
  fl->no_cost--;
}

/* Makes the body of 'f': the instance's body at the host, or lifted over
   the length of its first parameter, returning at once when that is 0;
   or one component of the result alone (Pending.component). */
/* Does 'e' call 'target', itself or through the functions it calls
   ('seen': those already walked)? */
typedef struct CallWalk {
  const MonoFunc *target;
  PtrMap *seen;
  bool found;
} CallWalk;

static void call_child(void *ctx, Expr *e) {
  CallWalk *w = ctx;
  if (w->found || !e)
    return;
  MonoFunc *mf = e->kind == EX_CALL || e->kind == EX_BINOP || e->kind == EX_UNOP ? e->callee : NULL;
  if (mf == w->target) {
    w->found = true;
    return;
  }
  if (mf && !mf->primitive && mf->body && !ptrmap_get(w->seen, mf)) {
    ptrmap_put(w->seen, mf, mf);
    call_child(ctx, mf->body);
  }
  ast_expr_children(e, call_child, NULL, ctx);
}

/* Is 'mf' recursive: does its body call it, directly or not? */
static bool recursive(const MonoFunc *mf) {
  PtrMap seen = {0};
  CallWalk w = {mf, &seen, false};
  call_child(&w, mf->body);
  return w.found;
}

static void make_body_in(Fl *fl, FlatFunc *f, MonoFunc *mf, int component);

static void make_body(Fl *fl, FlatFunc *f, MonoFunc *mf, int component) {
  bool outer = fl->lifted_body;
  fl->lifted_body = f->lifted && !fl->cost && recursive(mf);
  make_body_in(fl, f, mf, component);
  fl->lifted_body = outer;
}

static void make_body_in(Fl *fl, FlatFunc *f, MonoFunc *mf, int component) {
  fl->block = f->body = NEW(FlatBlock);
  fl->library = f->library;
  fl->loc = mf->body->loc;
  Vals params = {0};
  for (int i = 0; i < f->params.len; i++)
    vec_push(&params, flat_var_atom(f->params.data[i]));
  Env *env = match(NULL, mf->param, params, f->lifted);
  Type *rt = res(mf->type)->snd;
  if (!f->lifted) {
    Ctx host = {false, NULL};
    /* (a function of a tuple result runs as scalar code in parts alone:
       at the host it is an ordinary function) */
    fl->scalar_code = !fl->cost && (component || (host_count(rt) == 1 && (scalar_kind(fl, mf) != LOOP_NOT ||
                                                                          seq_loop(fl, mf, NULL))));
    MonoFunc *saved_part_of = fl->part_of, *saved_whole_of = fl->whole_of;
    int saved_part = fl->part;
    /* a loop's part is a loop of its own (call_parts); a plain
       function's computes as the function does */
    fl->part_of = component > 0 && (scalar_kind(fl, mf) == LOOP_YES || seq_loop(fl, mf, NULL)) ? mf : NULL;
    fl->part = component;
    fl->whole_of = component < 0 ? mf : NULL;
    Vals r = tr(fl, &host, env, mf->body);
    fl->part_of = saved_part_of;
    fl->whole_of = saved_whole_of;
    fl->part = saved_part;
    /* f.k computes every component, returns the kth: what the others
       need alone and cannot fail is dropped later as dead code, what can
       fail stays, so that each f.k fails where f fails, with f's error,
       and the first failing element is the first one of f */
    for (int i = 0; i < r.len; i++)
      if (component <= 0 || i == component - 1)
        vec_push(&f->body->results, r.data[i]);
    fl->scalar_code = false;
    return;
  }
  FlatAtom *first = flat_var_atom(f->params.data[0]);
  FlatAtom *n = ty(first).kind == FT_SEGDES ? op(fl, FLAT_SEG_COUNT, int_scalar(), 1, first) : length(fl, first);
  FlatBlock *outer;
  FlatStmt *s = begin_unless_empty(fl, n, rt, &outer);
  /* over no elements f^ returns at once (so that a recursion through
     apply-to-each ends), but first computes the closed expressions its
     body and what it calls would compute: NESL's lifted code runs them
     over no elements too, and so reports their errors */
  FlatBlock *body = fl->block;
  fl->block = s->then;
  cost_switch(fl, FLAT_COST_OFF);
  PtrMap seen = {0};
  ptrmap_put(&seen, mf, mf);
  closed_parts(fl, mf->body, &seen);
  cost_switch(fl, FLAT_COST_ON);
  fl->block = body;
  Ctx lifted = {true, n};
  Vals r = tr(fl, &lifted, env, mf->body);
  for (int i = 0; i < r.len; i++)
    vec_push(&fl->block->results, r.data[i]);
  fl->block = outer;
  for (int i = 0; i < f->result_types.len; i++) {
    FlatVar *v = flat_new_var(fl->fp, *(FlatType *)f->result_types.data[i], NULL);
    vec_push(&s->results, v);
    vec_push(&f->body->results, flat_var_atom(v));
  }
}

static void make_pending(Fl *fl) {
  while (fl->pending.len) {
    Pending *p = fl->pending.data[--fl->pending.len];
    FlatBlock *saved = fl->block;
    make_body(fl, p->func, p->mono, p->component);
    fl->block = saved;
  }
  fl->library = false; /* the top level's statements are the user's */
}

/* ---- top level ---- */

/* Records in t->replaced, for each global of a variable ('comps'), the
   global of the definition the variable replaces ('old', its components
   in the same order; NULL where it is not this program's: a REPL's
   earlier statement, whose value the REPL keeps itself). */
static void replaced_globals(FlatTop *t, Vec *comps, Vec *old) {
  if (!old || old->len != comps->len)
    return;
  while (t->replaced.len < t->defines.len)
    vec_push(&t->replaced, NULL);
  for (int k = 0; k < comps->len; k++)
    for (int i = 0; i < t->defines.len; i++)
      if (t->defines.data[i] == comps->data[k])
        t->replaced.data[i] = old->data[k];
}

static FlatTop *flatten_top(Fl *fl, MonoTop *mt) {
  FlatTop *t = NEW(FlatTop);
  flatten_describe_top(fl->mp->env, mt->source, mt->body ? mt->nesl_type : NULL, t);
  if (!mt->body)
    return t;
  fl->block = t->body = NEW(FlatBlock);
  Ctx host = {false, NULL};
  Vals v = tr(fl, &host, NULL, mt->body);
  for (int i = 0; i < v.len; i++)
    vec_push(&t->body->results, v.data[i]);
  if (mt->source->kind == TOP_BIND) {
    /* one global per component; each pattern variable gets its slice */
    for (int i = 0; i < v.len; i++) {
      FlatVar *g = flat_new_var(fl->fp, ty(v.data[i]), NULL);
      g->global = true;
      vec_push(&t->defines, g);
      vec_push(&fl->fp->globals, g);
    }
    Vals gv = {0};
    for (int i = 0; i < t->defines.len; i++)
      vec_push(&gv, flat_var_atom(t->defines.data[i]));
    Env *env = match(NULL, mt->pat, gv, false);
    int next = 0;
    /* the checker's Defs for the pattern's variables, in order */
    for (int i = 0; i < mt->source->bound.len; i++) {
      Def *d = mt->source->bound.data[i];
      Env *x = lookup(env, d->name);
      (void)next;
      Vec *comps = NEW(Vec);
      for (int k = 0; x && k < x->vals.len; k++)
        vec_push(comps, ((FlatAtom *)x->vals.data[k])->u.var);
      ptrmap_put(&fl->globals, d, comps);
      Def *old = tc_replaced_def(d);
      if (old)
        replaced_globals(t, comps, ptrmap_get(&fl->globals, old));
    }
  }
  return t;
}

/* ---- empty contexts ----

   make_body gives each lifted function a test of its context: with no
   segments, it returns empty values at once.  A recursive function needs
   it, for its recursion ends when its context is empty.  The body of a
   function that no chain of calls leads back to does nothing observable
   in an empty context without it: every vector it makes is empty, and no
   element fails.  There the test only splits the function in two blocks,
   and fusion, which combines the kernels of one block, cannot put the
   body's first kernel beside what the caller computed: spmv's
   `{sum({v * x[j] : (j, v) in row}) : row in m}` made its products in one
   kernel and summed them, inside sum^'s test, in another.  Such
   functions lose the test. */

/* Does a call in block 'b', or in a function it calls, call 'target'?
   'seen' holds the functions already walked. */
static bool calls_reach(const FlatBlock *b, const FlatFunc *target, PtrMap *seen) {
  for (int i = 0; i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    if (s->kind == FS_CALL) {
      if (s->callee == target)
        return true;
      if (!ptrmap_get(seen, s->callee) && s->callee->body) {
        ptrmap_put(seen, s->callee, (void *)1);
        if (calls_reach(s->callee->body, target, seen))
          return true;
      }
    }
    if ((s->then && calls_reach(s->then, target, seen)) || (s->els && calls_reach(s->els, target, seen)) ||
        (s->body && calls_reach(s->body, target, seen)))
      return true;
  }
  return false;
}

static void drop_context_tests(FlatProgram *fp) {
  for (int i = 0; i < fp->funcs.len; i++) {
    FlatFunc *f = fp->funcs.data[i];
    FlatBlock *b = f->body;
    if (!f->lifted || !b || !b->stmts.len)
      continue;
    FlatStmt *test = b->stmts.data[b->stmts.len - 1];
    if (test->kind != FS_IF || test->results.len != b->results.len)
      continue;
    PtrMap seen = {0};
    if (calls_reach(b, f, &seen))
      continue;
    /* the statements before the test (the context's count, which the
       body reads), then the body's */
    b->stmts.len--;
    for (int k = 0; k < test->els->stmts.len; k++)
      vec_push(&b->stmts, test->els->stmts.data[k]);
    b->results = test->els->results;
  }
}

FlatProgram *flatten_program(MonoProgram *mp, bool cost) {
  Fl *fl = NEW(Fl);
  fl->mp = mp;
  fl->cost = cost;
  fl->fp = NEW(FlatProgram);
  for (int i = 0; i < mp->tops.len; i++) {
    vec_push(&fl->fp->tops, flatten_top(fl, mp->tops.data[i]));
    make_pending(fl);
  }
  drop_context_tests(fl->fp);
  return fl->fp;
}
