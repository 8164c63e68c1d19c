/*
 * simplify.c: the CPU level of λcu made smaller before fusion.
 *
 * Lowering works one flat statement at a time, and the library functions
 * it inlines repeat themselves: quicksort's level computes `1 <= 0` for
 * each range check and runs `seg_lengths` of one segment descriptor three
 * times.  Fusion sees every repeated `run` as a node to schedule, so the
 * repetitions go first.  One walk over each function, repeated until
 * nothing changes:
 *
 *   - constant folding: a scalar operation on constants, by the runtime's
 *     own scalar semantics (rt/scalar.h), when it cannot fail (a division
 *     by zero stays, to fail at run time where it did); an `if` on a
 *     constant becomes the branch it takes;
 *   - algebraic identities that cannot fail: x + 0, x * 1, x / 1 (ints),
 *     b or F, b and T, select on a constant;
 *   - copy propagation: a COPY's result is its operand (constants too);
 *   - common subexpressions: the same scalar operation, length, size or `run`
 *     (of one kernel, on the same arguments) as an earlier one that
 *     dominates it (earlier in its block or an enclosing one) is replaced
 *     by that one's results.  This holds for what can fail as well: the
 *     repetition can only run if the first did not fail, and then it does
 *     not either.  Kernels that draw random numbers are never merged;
 *   - lengths: #v of a MAP's (SCAN's, PERMUTE's) result is its size, the
 *     segments of make_segdes(v) are #v, and seg_lengths(make_segdes(v))
 *     is v itself; seg_lengths and seg_offsets of range_segdes's sd are
 *     the range_segdes's own results;
 *   - dead code: a statement whose results nothing reads and that can
 *     neither fail nor have an effect (facts.c) goes, and an `if` left
 *     with nothing in its branches;
 *   - constants: a global that a top-level statement binds to a constant
 *     is read as that constant, and a kernel run with a constant scalar
 *     argument runs a copy of its kernel with the constant in its
 *     thunks (constant_params).
 *
 * Nothing that can fail or print is moved, and nothing that can fail is
 * removed unless an identical one before it guards it, so that an error
 * is reported at the same statement as before.
 */
#include <string.h>

#include "fusion.h"
#include "../rt/scalar.h"

/* The kernels simplification makes, each made once (lcu_intern_kernel). */
typedef struct Made {
  Map by_text; /* canonical text -> LcuKernel */
  LcuKernel *offsets; /* offsets_scan's, once made */
} Made;

typedef struct Simp {
  LcuProgram *p;
  FusFacts *facts; /* of the function being simplified */
  GenMap subst;    /* LcuVar -> LcuAtom *: what its reads become */
  bool changed;
  bool mutated;    /* a read was replaced (with 'changed': the body is no
                      longer what the facts were filled for) */
  struct Made *made; /* the kernels made here, made once */
  PtrMap *uses;      /* fus_note_uses of the body as the round began */
  PtrMap *escapes;   /* (offsets_stay) */
  /* the available computations (a key -> the statement that computed
     it): one map for the walk, its entries of a nested block undone when
     the block ends, each put logged with what it replaced (NULL: none;
     a key is never removed, and a NULL value reads as absent) */
  ScopedMap avail;
  Buf key;  /* the key being looked up, copied only when kept */
} Simp;

/* ---- atoms ---- */

static LcuAtom *subst_atom(Simp *s, LcuAtom *a) {
  if (!a->var)
    return a;
  LcuAtom *r = genmap_get(&s->subst, a->var);
  return r ? r : a;
}

static void subst_atoms(Simp *s, Vec *atoms) {
  for (int i = 0; i < atoms->len; i++) {
    LcuAtom *a = subst_atom(s, atoms->data[i]);
    s->mutated |= a != atoms->data[i];
    atoms->data[i] = a;
  }
}

/* Reads of 'v' become 'by' from now on. */
static void replace(Simp *s, LcuVar *v, LcuAtom *by) {
  genmap_put(&s->subst, v, by);
  s->changed = true;
}

static bool is_const(const LcuAtom *a, FlatAtomKind kind) { return !a->var && a->constant.kind == kind; }
static bool is_int(const LcuAtom *a, int32_t i) { return is_const(a, FA_INT) && a->constant.u.i == i; }
static bool is_bool(const LcuAtom *a, bool b) { return is_const(a, FA_BOOL) && a->constant.u.b == b; }

/* The text an atom contributes to a key (floats bit for bit). */
static void key_atom(Buf *b, const LcuAtom *a) {
  if (a->var) {
    buf_puts(b, " v");
    buf_put_int(b, a->var->id);
    return;
  }
  switch (a->constant.kind) {
  case FA_INT:
    buf_puts(b, " i");
    buf_put_int(b, a->constant.u.i);
    break;
  case FA_FLOAT:
    buf_printf(b, " f%a", a->constant.u.f);
    break;
  case FA_BOOL:
    buf_puts(b, " b");
    buf_put_int(b, a->constant.u.b);
    break;
  case FA_CHAR:
    buf_puts(b, " c");
    buf_put_int(b, (unsigned char)a->constant.u.c);
    break;
  default:
    buf_puts(b, " ?");
  }
}

/* The key of a statement, in s->key: 'kind', then 'name' (NULL: none,
   "(null)" if 'n' < 0 too) or 'n', then the atoms 'args' (s3 v12 i1:
   the scalar operation 3 of v12 and 1). */
static const char *key_of(Simp *s, char kind, const char *name, int n, const Vec *args) {
  Buf *b = &s->key;
  b->len = 0;
  buf_putc(b, kind);
  if (n >= 0)
    buf_put_int(b, n);
  else
    buf_puts(b, name ? name : "(null)"); /* as printf wrote it */
  for (int i = 0; i < args->len; i++)
    key_atom(b, args->data[i]);
  return buf_str(b);
}


/* ---- constant folding ---- */

/* op(a...) on constants by the runtime's semantics; false when it fails,
   or for a float operation that is not correctly rounded (exp, ln). */
static bool fold(FlatOp op, const FlatAtom *a, int n, FlatAtom *out) {
  int err = RT_OK;
  FlatAtomKind k = a[0].kind;
#define INT(x) (*out = lcu_int_const(x), true)
#define BOOL(x) (*out = lcu_bool_const((x) != 0), true)
  if (op == FLAT_COPY) {
    *out = a[0];
    return true;
  }
  if (op == FLAT_SELECT) {
    if (k != FA_BOOL || a[1].kind != a[2].kind)
      return false;
    *out = a[0].u.b ? a[1] : a[2];
    return true;
  }
  for (int i = 1; i < n; i++)
    if (a[i].kind != k)
      return false;
  if (op >= FLAT_EQ && op <= FLAT_GE) {
    int c; /* -1, 0, 1 */
    switch (k) {
    case FA_INT:
      c = (a[0].u.i > a[1].u.i) - (a[0].u.i < a[1].u.i);
      break;
    case FA_FLOAT:
      c = (a[0].u.f > a[1].u.f) - (a[0].u.f < a[1].u.f);
      break;
    case FA_BOOL:
      c = (int)a[0].u.b - (int)a[1].u.b;
      break;
    case FA_CHAR:
      c = ((unsigned char)a[0].u.c > (unsigned char)a[1].u.c) - ((unsigned char)a[0].u.c < (unsigned char)a[1].u.c);
      break;
    default:
      return false;
    }
    switch (op) {
    case FLAT_EQ:
      return BOOL(c == 0);
    case FLAT_NE:
      return BOOL(c != 0);
    case FLAT_LT:
      return BOOL(c < 0);
    case FLAT_GT:
      return BOOL(c > 0);
    case FLAT_LE:
      return BOOL(c <= 0);
    default:
      return BOOL(c >= 0);
    }
  }
  if (k == FA_BOOL) {
    switch (op) {
    case FLAT_NOT:
      return BOOL(rt_not_b(a[0].u.b));
    case FLAT_AND:
      return BOOL(rt_and_b(a[0].u.b, a[1].u.b));
    case FLAT_OR:
      return BOOL(rt_or_b(a[0].u.b, a[1].u.b));
    case FLAT_XOR:
      return BOOL(rt_xor_b(a[0].u.b, a[1].u.b));
    case FLAT_BTOI:
      return INT(rt_btoi_b(a[0].u.b));
    default:
      return false;
    }
  }
  if (k == FA_CHAR)
    return op == FLAT_CHAR_CODE && INT((unsigned char)a[0].u.c);
  if (k == FA_FLOAT) {
    /* only the operations that IEEE arithmetic rounds correctly, so that
       the constant is what every backend would compute (sqrt(2.0 * pi));
       it prints back exactly (the shortest text that reads back) */
    double u = a[0].u.f, v = n > 1 ? a[1].u.f : 0.0, f;
    switch (op) {
    case FLAT_ADD:
      f = rt_add_f(u, v);
      break;
    case FLAT_SUB:
      f = rt_sub_f(u, v);
      break;
    case FLAT_MUL:
      f = rt_mul_f(u, v);
      break;
    case FLAT_DIV:
      f = rt_div_f(u, v, &err);
      break;
    case FLAT_SQRT:
      f = rt_sqrt_f(u, &err);
      break;
    case FLAT_NEG:
      f = rt_neg_f(u);
      break;
    default:
      return false;
    }
    /* an infinity or a NaN has no constant's text: computed at run time */
    if (err != RT_OK || !isfinite(f))
      return false;
    *out = lcu_float_const(f);
    return true;
  }
  if (k != FA_INT)
    return false;
  int32_t x = a[0].u.i, y = n > 1 ? a[1].u.i : 0, r;
  switch (op) {
  case FLAT_ADD:
    return INT(rt_add_i(x, y));
  case FLAT_SUB:
    return INT(rt_sub_i(x, y));
  case FLAT_MUL:
    return INT(rt_mul_i(x, y));
  case FLAT_DIV:
    r = rt_div_i(x, y, &err);
    return err == RT_OK && INT(r);
  case FLAT_REM:
    r = rt_rem_i(x, y, &err);
    return err == RT_OK && INT(r);
  case FLAT_NEG:
    return INT(rt_neg_i(x));
  case FLAT_NOT:
    return INT(rt_not_i(x));
  case FLAT_AND:
    return INT(rt_and_i(x, y));
  case FLAT_OR:
    return INT(rt_or_i(x, y));
  case FLAT_XOR:
    return INT(rt_xor_i(x, y));
  case FLAT_LSHIFT:
    return INT(rt_lshift_i(x, y));
  case FLAT_RSHIFT:
    return INT(rt_rshift_i(x, y));
  default:
    return false;
  }
#undef INT
#undef BOOL
}

static bool nonneg(Simp *s, const LcuAtom *a) { return fus_int_nonneg(s->facts, a); }

/* The operand a scalar operation reduces to by an identity that cannot
   fail, or NULL.  A length is never negative: `#v < 0` is F (the range
   checks of lowering ask it). */
static LcuAtom *identity(Simp *s, const LcuStmt *st) {
  LcuAtom *a = st->args.data[0];
  LcuAtom *b = st->args.len > 1 ? st->args.data[1] : NULL;
  FlatBase t = lcu_atom_type(a).base;
  /* a value compared with itself (not a float: NaN): the library's
     `split` tests #v /= #flags, which the caller's one vector makes
     `#v /= #v`, and its error branch split the block in two */
  if (st->op >= FLAT_EQ && st->op <= FLAT_GE && b && a->var && a->var == b->var && t != FB_FLOAT)
    return lcu_atom_const(lcu_bool_const(st->op == FLAT_EQ || st->op == FLAT_LE || st->op == FLAT_GE));
  switch (st->op) {
  case FLAT_COPY:
    return a;
  case FLAT_ZERO: /* the zero of the operand's type */
    switch (t) {
    case FB_FLOAT:
      return lcu_atom_const(lcu_float_const(0.0));
    case FB_BOOL:
      return lcu_atom_const(lcu_bool_const(false));
    case FB_CHAR:
      return lcu_atom_const(lcu_char_const(0));
    default:
      return lcu_atom_int(0);
    }
  case FLAT_ADD:
    if (t != FB_INT)
      return NULL;
    return is_int(b, 0) ? a : is_int(a, 0) ? b : NULL;
  case FLAT_SUB:
    return t == FB_INT && is_int(b, 0) ? a : NULL;
  case FLAT_MUL:
    if (t != FB_INT)
      return NULL;
    return is_int(b, 1) ? a : is_int(a, 1) ? b : NULL;
  case FLAT_DIV:
    return t == FB_INT && is_int(b, 1) ? a : NULL;
  case FLAT_OR:
    if (t != FB_BOOL)
      return NULL;
    return is_bool(b, false) ? a : is_bool(a, false) ? b : is_bool(a, true) ? a : is_bool(b, true) ? b : NULL;
  case FLAT_AND:
    if (t != FB_BOOL)
      return NULL;
    return is_bool(b, true) ? a : is_bool(a, true) ? b : is_bool(a, false) ? a : is_bool(b, false) ? b : NULL;
  case FLAT_LT:
  case FLAT_GE:
    if (t == FB_INT && is_int(b, 0) && nonneg(s, a))
      return lcu_atom_const(lcu_bool_const(st->op == FLAT_GE));
    return NULL;
  case FLAT_GT:
  case FLAT_LE:
    if (t == FB_INT && is_int(a, 0) && nonneg(s, b))
      return lcu_atom_const(lcu_bool_const(st->op == FLAT_LE));
    return NULL;
  case FLAT_SELECT: {
    LcuAtom *c = st->args.data[2];
    if (is_bool(a, true))
      return b;
    if (is_bool(a, false))
      return c;
    return NULL;
  }
  default:
    return NULL;
  }
}

/* ---- the kernels a rule recognizes ---- */

/* The library kernel of a kernel of one library SOAC, or -1. */
static int library_of(const LcuKernel *k) {
  if (k->soacs.len != 1)
    return -1;
  const LcuSoac *s = k->soacs.data[0];
  return s->kind == SOAC_LIBRARY ? (int)s->library : -1;
}

static bool draws_random(const LcuKernel *k) {
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (s->kind == SOAC_LIBRARY && s->library == LIB_RAND)
      return true;
  }
  return false;
}

/* The run that binds 'v', if a run binds it. */
static const LcuStmt *run_of(Simp *s, const LcuVar *v) {
  const LcuStmt *d = v ? genmap_get(&s->facts->def, v) : NULL;
  return d && d->kind == LS_RUN ? d : NULL;
}

/* Result 'k' of the range_segdes that binds 'sd' (its lengths, 1, or
   its offsets, 2), or NULL if no run of one alone binds it. */
static LcuAtom *range_segdes_result(Simp *s, const LcuVar *sd, int k) {
  const LcuStmt *d = run_of(s, sd);
  if (!d || library_of(d->kernel) != LIB_RANGE_SEGDES || d->results.len != 3 || d->results.data[0] != sd)
    return NULL;
  return lcu_atom_var(d->results.data[k]);
}

/* make_segdes's argument, when 'sd' is its result. */
static LcuAtom *segdes_lengths(Simp *s, const LcuVar *sd) {
  const LcuStmt *d = run_of(s, sd);
  if (!d || library_of(d->kernel) != LIB_MAKE_SEGDES ||
      d->args.len != 1 + lcu_known_total(d->kernel->soacs.data[0])) /* (and a known total) */
    return NULL;
  return subst_atom(s, d->args.data[0]);
}

/* #v as an atom when v is the result of a run whose SOAC's size gives
   it: a constant or the run's argument for a size parameter; or as
   another vector whose length it is ('*same'); or a host vector of
   lengths' number of elements (fus_host_lengths). */
static LcuAtom *known_length(Simp *s, const LcuVar *v, LcuVar **same) {
  *same = NULL;
  if (fus_host_lengths(s->facts, v, false)) /* its elements' number */
    return lcu_atom_int(((const LcuStmt *)genmap_get(&s->facts->def, v))->args.len);
  const LcuStmt *d = run_of(s, v);
  if (!d)
    return NULL;
  const LcuKernel *k = d->kernel;
  int at = -1;
  for (int i = 0; i < d->results.len; i++)
    if (d->results.data[i] == v)
      at = i;
  if (at < 0 || at >= k->results.len)
    return NULL;
  const LcuVar *kr = k->results.data[at];
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *so = k->soacs.data[i];
    bool mine = false;
    for (int r = 0; r < so->results.len; r++)
      mine |= so->results.data[r] == kr;
    if (!mine)
      continue;
    bool sized = so->kind == SOAC_MAP || so->kind == SOAC_SCAN || (so->kind == SOAC_PERMUTE && !so->into);
    if (!sized)
      return NULL;
    const LcuVar *param = so->size.var ? so->size.var : so->size.length;
    if (!param)
      return lcu_atom_int(so->size.value);
    for (int p = 0; p < k->params.len; p++) {
      if (k->params.data[p] != param)
        continue;
      LcuAtom *arg = subst_atom(s, d->args.data[p]);
      if (so->size.var)
        return arg;
      *same = arg->var;
      return NULL;
    }
    return NULL;
  }
  return NULL;
}

/* ---- thunks ----
   Kernels are shared by their runs, so what holds for every run is
   simplified in place: constant operations folded (as on the CPU), the
   same identities, an `if` on a constant. */

static bool exp_const(const LcuExp *e, FlatAtomKind k) { return e->kind == LE_CONST && e->constant.kind == k; }
static bool exp_int(const LcuExp *e, int32_t i) { return exp_const(e, FA_INT) && e->constant.u.i == i; }
static bool exp_bool(const LcuExp *e, bool b) { return exp_const(e, FA_BOOL) && e->constant.u.b == b; }

/* 'e' simplified (its operands first); 'changed' is set if it changed. */
static LcuExp *simp_exp(LcuExp *e, bool *changed) {
  for (int i = 0; i < e->nargs; i++)
    e->args[i] = simp_exp(e->args[i], changed);
  if (e->kind == LE_IF && e->args[0]->kind == LE_CONST) {
    *changed = true;
    return e->args[0]->constant.u.b ? e->args[1] : e->args[2];
  }
  if (e->kind != LE_OP)
    return e;
  LcuExp *a = e->args[0], *b = e->nargs > 1 ? e->args[1] : NULL;
  bool constant = true;
  FlatAtom c[3];
  for (int i = 0; i < e->nargs; i++) {
    constant &= e->args[i]->kind == LE_CONST;
    c[i] = e->args[i]->constant;
  }
  FlatAtom folded;
  if (constant && fold(e->op, c, e->nargs, &folded) && lcu_const_base(folded) == e->type) {
    *changed = true;
    return lcu_exp_const(e->loc, folded);
  }
  LcuExp *same = NULL;
  FlatBase t = a->type;
  switch (e->op) {
  case FLAT_COPY:
    same = a;
    break;
  case FLAT_ADD:
    same = t != FB_INT ? NULL : exp_int(b, 0) ? a : exp_int(a, 0) ? b : NULL;
    break;
  case FLAT_SUB:
    same = t == FB_INT && exp_int(b, 0) ? a : NULL;
    break;
  case FLAT_MUL:
    same = t != FB_INT ? NULL : exp_int(b, 1) ? a : exp_int(a, 1) ? b : NULL;
    break;
  case FLAT_DIV:
    same = t == FB_INT && exp_int(b, 1) ? a : NULL;
    break;
  case FLAT_OR:
    same = t != FB_BOOL ? NULL : exp_bool(b, false) ? a : exp_bool(a, false) ? b : NULL;
    break;
  case FLAT_AND:
    same = t != FB_BOOL ? NULL : exp_bool(b, true) ? a : exp_bool(a, true) ? b : NULL;
    break;
  default:
    break;
  }
  if (same && same->type == e->type) {
    *changed = true;
    return same;
  }
  return e;
}

static void simp_thunk(LcuThunk *t, bool *changed) {
  if (!t)
    return;
  bool mine = false;
  for (int i = 0; i < t->lets.len; i++) {
    LcuLet *l = t->lets.data[i];
    l->value = simp_exp(l->value, &mine);
  }
  for (int i = 0; i < t->body.len; i++)
    t->body.data[i] = simp_exp(t->body.data[i], &mine);
  if (mine)
    lcu_fill_using(t); /* a folded read is no longer used */
  *changed |= mine;
}

static bool simp_kernels(LcuProgram *p) {
  bool changed = false;
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    for (int j = 0; j < k->soacs.len; j++) {
      LcuSoac *so = k->soacs.data[j];
      simp_thunk(so->pull, &changed);
      simp_thunk(so->second, &changed);
    }
  }
  return changed;
}

/* Kernel 'k', or the one made before with its text. */
static LcuKernel *intern_kernel(Simp *s, LcuKernel *k) {
  if (!s->made->by_text.cap)
    for (int i = 0; i < s->p->kernels.len; i++) {
      LcuKernel *old = s->p->kernels.data[i];
      const char *text = lcu_kernel_key(old);
      if (!map_get(&s->made->by_text, text))
        map_put(&s->made->by_text, xstrdup(text), old);
    }
  const char *text = lcu_kernel_key(k);
  LcuKernel *old = map_get(&s->made->by_text, text);
  if (old)
    return old;
  map_put(&s->made->by_text, xstrdup(text), k);
  lcu_add_kernel(s->p, k);
  return k;
}

/* ---- invariant vectors ----
   A MAP whose value does not depend on the index (dist of a constant or
   of a scalar: MAP { i => 1 }, MAP { i => x using x }) gives the same
   value everywhere: a consumer that reads it at its own index, in range,
   reads that value.  The consumer's kernel is copied for the run, with
   the MAP's expression in place of the read (and the MAP's scalars as
   new parameters); the MAP's run stays if it can fail (dist of a
   negative length), to fail where it did. */

static bool invariant(const LcuExp *e, const LcuVar *index) {
  if (LCU_READS_AT(e->kind) || e->kind == LE_LENGTH || (e->kind == LE_VAR && e->var == index))
    return false;
  for (int i = 0; i < e->nargs; i++)
    if (!invariant(e->args[i], index))
      return false;
  return true;
}

/* The SOAC of run 'g''s kernel that makes its result 'v', and which of
   that SOAC's results it is ('*column'); NULL if none does. */
static const LcuSoac *soac_making(const LcuStmt *g, const LcuVar *v, int *column) {
  const LcuKernel *k = g->kernel;
  for (int i = 0; i < g->results.len && i < k->results.len; i++) {
    if (g->results.data[i] != v)
      continue;
    for (int s = 0; s < k->soacs.len; s++) {
      const LcuSoac *so = k->soacs.data[s];
      for (int j = 0; j < so->results.len; j++)
        if (so->results.data[j] == k->results.data[i]) {
          *column = j;
          return so;
        }
    }
  }
  return NULL;
}

/* The expression the MAP of run 'g' gives for its result 'v', if the
   same at every index; NULL otherwise. */
static const LcuExp *invariant_value(const LcuStmt *g, const LcuVar *v, const LcuSoac **map) {
  const LcuKernel *k = g->kernel;
  if (k->soacs.len != 1)
    return NULL;
  const LcuSoac *m = k->soacs.data[0];
  int j;
  if (m->kind != SOAC_MAP || m->pull->lets.len || soac_making(g, v, &j) != m)
    return NULL;
  const LcuExp *e = m->pull->body.data[j];
  *map = m;
  return invariant(e, m->pull->params.len ? m->pull->params.data[0] : NULL) ? e : NULL;
}

/* True if SOAC 's' reads kernel variable 'q' only at its own index, in
   range, or as #q. */
static bool reads_own_only(const FusKernelLens *kl, const LcuSoac *s, const LcuVar *q);

static bool exp_reads_own_only(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                               const LcuVar *q) {
  for (int i = 0; i < e->nargs; i++)
    if (!exp_reads_own_only(kl, s, t, e->args[i], q))
      return false;
  if (e->var != q || e->kind == LE_LET || e->kind == LE_LENGTH)
    return true;
  const LcuVar *i = fus_index_param(s, t);
  return e->kind == LE_INDEX && i && e->args[0]->kind == LE_VAR && e->args[0]->var == i &&
         fus_len_equal(fus_kernel_len(kl, q), fus_soac_space(kl, s));
}

static bool reads_own_only(const FusKernelLens *kl, const LcuSoac *s, const LcuVar *q) {
  if (s->size.var == q || s->segdes == q || s->into == q)
    return false;
  for (int i = 0; i < s->args.len; i++)
    if (s->args.data[i] == q)
      return false;
  const LcuThunk *ts[2] = {s->pull, s->second};
  for (int t = 0; t < 2; t++)
    if (ts[t])
      for (int b = 0; b < lcu_thunk_nexps(ts[t]); b++)
        if (!exp_reads_own_only(kl, s, ts[t], lcu_thunk_exp(ts[t], b), q))
          return false;
  return true;
}

static bool thunk_reads_var(const LcuThunk *t, const LcuVar *v) {
  if (t)
    for (int i = 0; i < lcu_thunk_nexps(t); i++)
      if (lcu_exp_reads(lcu_thunk_exp(t, i), v))
        return true;
  return false;
}

/* Run 'st' with the invariant vectors it reads replaced by their value;
   true if it changed. */
/* True if run 'st' reads a vector that a MAP gives the same value
   everywhere. */
static bool reads_invariant(Simp *s, const LcuStmt *st) {
  const LcuKernel *k = st->kernel;
  for (int a = 0; a < k->params.len; a++) {
    const LcuAtom *atom = st->args.data[a];
    const LcuVar *q = k->params.data[a];
    const LcuStmt *g = run_of(s, atom->var);
    const LcuSoac *m = NULL;
    if (g && q->type.kind == LT_VEC && invariant_value(g, atom->var, &m))
      return true;
  }
  return false;
}

static void run_copy(Simp *s, LcuStmt *st, LcuKernel *copy);

/* ---- scans of a constant ----
   The exclusive int sum of a value that does not depend on the index,
   SCAN { i => c } (0) (+) (n), is i * c at every i (ints wrap: the
   product is the repeated sum, mod 2^32): a MAP, which fuses with the
   SOACs that read it at their own index, where a SCAN must finish
   first.  Lifted code makes them: the offsets of segments that all
   have one length (a pair [a, b] on each element: 2, 4, 6, ...). */
static bool scan_of_constant(Simp *s, LcuStmt *st) {
  const LcuKernel *k = st->kernel;
  if (k->soacs.len != 1)
    return false;
  const LcuSoac *so = k->soacs.data[0];
  if (so->kind != SOAC_SCAN || !so->pull || so->pull->params.len != 1 || so->pull->lets.len ||
      so->pull->body.len != 1 || !fus_int_sum_from_zero(so, 0))
    return false;
  const LcuExp *e = so->pull->body.data[0];
  if (e->type != FB_INT || !invariant(e, so->pull->params.data[0]))
    return false;
  LcuKernel *copy = lcu_copy_kernel(s->p, k);
  copy->name = NULL;
  LcuSoac *m = copy->soacs.data[0];
  LcuVar *i = m->pull->params.data[0];
  LcuExp *c = m->pull->body.data[0];
  m->pull->body.data[0] = lcu_exp_op(c->loc, FLAT_MUL, FB_INT, 2, lcu_exp_var(c->loc, i), c, NULL);
  m->kind = SOAC_MAP;
  m->second = NULL;
  m->identity = (Vec){0};
  run_copy(s, st, copy);
  return true;
}

static bool propagate_invariants(Simp *s, LcuStmt *st) {
  LcuKernel *k = st->kernel;
  /* the kernel's lengths only for a run that reads an invariant vector
     (most read none), but the facts of its arguments learnt as a fill
     would */
  fus_note_arg_facts(s->facts, st, k);
  if (!reads_invariant(s, st))
    return false;
  FusKernelLens kl;
  fus_fill_kernel_lens(s->facts, st, k, &kl);
  LcuKernel *copy = NULL;
  int nargs = k->params.len; /* (the copy's new parameters come after) */
  for (int a = 0; a < nargs; a++) {
    LcuAtom *atom = st->args.data[a];
    LcuVar *q = k->params.data[a];
    const LcuStmt *g = run_of(s, atom->var);
    const LcuSoac *m = NULL;
    const LcuExp *e = g && q->type.kind == LT_VEC ? invariant_value(g, atom->var, &m) : NULL;
    if (!e)
      continue;
    bool ok = true, read = false;
    for (int j = 0; j < k->soacs.len && ok; j++) {
      const LcuSoac *so = k->soacs.data[j];
      ok = reads_own_only(&kl, so, q);
      read |= thunk_reads_var(so->pull, q) || thunk_reads_var(so->second, q);
    }
    if (!ok || !read)
      continue;
    if (!copy) {
      copy = lcu_copy_kernel(s->p, k);
      copy->name = NULL;
    }
    /* the MAP's scalars become parameters of the copy */
    PtrMap ren = {0};
    const LcuKernel *gk = g->kernel;
    for (int i = 0; i < gk->params.len; i++) {
      LcuVar *gp = gk->params.data[i];
      if (!lcu_exp_reads(e, gp))
        continue;
      LcuVar *np = lcu_copy_var(s->p, gp);
      vec_push(&copy->params, np);
      lcu_stmt_arg(st, g->args.data[i]);
      ptrmap_put(&ren, gp, np);
    }
    LcuExp *value = lcu_copy_exp(s->p, e, &ren);
    LcuVar *cq = copy->params.data[a];
    for (int j = 0; j < copy->soacs.len; j++) {
      LcuSoac *so = copy->soacs.data[j];
      LcuThunk *ts[2] = {so->pull, so->second};
      for (int t = 0; t < 2; t++) {
        const LcuVar *i = fus_index_param(so, ts[t]);
        if (!i || !thunk_reads_var(ts[t], cq))
          continue;
        for (int b = 0; b < ts[t]->lets.len; b++) {
          LcuLet *l = ts[t]->lets.data[b];
          l->value = lcu_subst_index(s->p, l->value, cq, i, value);
        }
        for (int b = 0; b < ts[t]->body.len; b++)
          ts[t]->body.data[b] = lcu_subst_index(s->p, ts[t]->body.data[b], cq, i, value);
        lcu_fill_using(ts[t]);
      }
    }
  }
  fus_release_kernel_lens(&kl);
  if (!copy)
    return false;
  run_copy(s, st, copy);
  return true;
}

/* Run 'st' of 'copy', a kernel copied from its own with parameters
   added or replaced: the parameters nothing reads go, with their
   arguments. */
static void run_copy(Simp *s, LcuStmt *st, LcuKernel *copy) {
  int out = 0;
  for (int i = 0; i < copy->params.len; i++) {
    LcuVar *q = copy->params.data[i];
    bool read = false;
    for (int j = 0; j < copy->soacs.len && !read; j++) {
      const LcuSoac *so = copy->soacs.data[j];
      read = thunk_reads_var(so->pull, q) || thunk_reads_var(so->second, q) || so->size.var == q ||
             so->size.length == q || so->segdes == q || so->into == q;
      for (int x = 0; x < so->args.len && !read; x++)
        read = so->args.data[x] == q;
    }
    for (int x = 0; x < copy->results.len && !read; x++)
      read = copy->results.data[x] == q;
    if (!read)
      continue;
    copy->params.data[out] = q;
    st->args.data[out] = st->args.data[i];
    out++;
  }
  copy->params.len = out;
  st->args.len = out;
  st->kernel = intern_kernel(s, copy);
}

/* True if kernel 'k' reads its parameter 'q' only in thunks, if at all. */
static bool only_thunks_read(const LcuKernel *k, const LcuVar *q) {
  for (int j = 0; j < k->soacs.len; j++) {
    const LcuSoac *so = k->soacs.data[j];
    if (so->size.var == q || so->size.length == q || so->segdes == q || so->into == q)
      return false;
    for (int x = 0; x < so->args.len; x++)
      if (so->args.data[x] == q)
        return false;
  }
  for (int x = 0; x < k->results.len; x++)
    if (k->results.data[x] == q)
      return false;
  return true;
}

/* Run 'st' with its constant scalar arguments in the thunks of a copy of
   its kernel, in place of their parameters: `sqrt(2.0 * pi)` of a MAP
   then folds, and code generation sees the constants (the ranges that
   spare finiteness tests, codegen/thunk.c).  Each constant makes a
   kernel of its own, interned by its text; true if it changed. */
static bool constant_params(Simp *s, LcuStmt *st) {
  const LcuKernel *k = st->kernel;
  LcuKernel *copy = NULL;
  for (int a = 0; a < k->params.len; a++) {
    const LcuAtom *atom = st->args.data[a];
    const LcuVar *q = k->params.data[a];
    if (atom->var || q->type.kind != LT_SCALAR || !only_thunks_read(k, q))
      continue;
    bool read = false;
    for (int j = 0; j < k->soacs.len && !read; j++) {
      const LcuSoac *so = k->soacs.data[j];
      read = thunk_reads_var(so->pull, q) || thunk_reads_var(so->second, q);
    }
    if (!read)
      continue;
    if (!copy) {
      copy = lcu_copy_kernel(s->p, k);
      copy->name = NULL;
    }
    const LcuVar *cq = copy->params.data[a];
    LcuExp *value = lcu_exp_const(st->loc, atom->constant);
    for (int j = 0; j < copy->soacs.len; j++) {
      LcuSoac *so = copy->soacs.data[j];
      LcuThunk *ts[2] = {so->pull, so->second};
      for (int t = 0; t < 2; t++) {
        if (!thunk_reads_var(ts[t], cq))
          continue;
        for (int b = 0; b < ts[t]->lets.len; b++) {
          LcuLet *l = ts[t]->lets.data[b];
          l->value = lcu_subst_var(s->p, l->value, cq, value);
        }
        for (int b = 0; b < ts[t]->body.len; b++)
          ts[t]->body.data[b] = lcu_subst_var(s->p, ts[t]->body.data[b], cq, value);
        lcu_fill_using(ts[t]);
      }
    }
  }
  if (!copy)
    return false;
  run_copy(s, st, copy);
  return true;
}

/* ---- reads of a vector of one element ----
   x[0] in a MAP, of a vector the run passes that holds one element
   (one_element), cannot fail: marked in range (LcuExp.in_range, which
   code generation checks all the same), so that fusion may compose the
   MAP where its values are read.  (Not in a ONCE: the ONCEs that read
   scalars for the host, which cannot fail then, are moved each to its
   reader, apart, where failing ones stay together in one kernel: more
   runs.)  A subscript of a nested sequence
   outside an apply-to-each reads its one range's start, length and
   stride so. */
static bool one_element(Simp *s, const LcuVar *v);

static bool marks_zero_reads(LcuExp *e, const LcuVar *q, bool mark) {
  bool found = false;
  if (e->kind == LE_INDEX && e->var == q && !e->in_range && e->args[0]->kind == LE_CONST &&
      e->args[0]->constant.kind == FA_INT && e->args[0]->constant.u.i == 0) {
    if (mark)
      e->in_range = true;
    found = true;
  }
  for (int i = 0; i < e->nargs; i++)
    found |= marks_zero_reads(e->args[i], q, mark);
  return found;
}

static bool thunk_zero_reads(LcuThunk *t, const LcuVar *q, bool mark) {
  bool found = false;
  if (!t || !thunk_reads_var(t, q))
    return false;
  for (int b = 0; b < t->lets.len; b++)
    found |= marks_zero_reads(((LcuLet *)t->lets.data[b])->value, q, mark);
  for (int b = 0; b < t->body.len; b++)
    found |= marks_zero_reads(t->body.data[b], q, mark);
  return found;
}

static bool one_element_reads(Simp *s, LcuStmt *st) {
  const LcuKernel *k = st->kernel;
  LcuKernel *copy = NULL;
  for (int a = 0; a < k->params.len; a++) {
    const LcuAtom *atom = st->args.data[a];
    const LcuVar *q = k->params.data[a];
    if (!atom->var || q->type.kind != LT_VEC)
      continue;
    bool read = false;
    for (int j = 0; j < k->soacs.len && !read; j++) {
      LcuSoac *so = k->soacs.data[j];
      read = so->kind == SOAC_MAP && thunk_zero_reads(so->pull, q, false);
    }
    if (!read || !one_element(s, atom->var))
      continue;
    if (!copy) {
      copy = lcu_copy_kernel(s->p, k);
      copy->name = NULL;
    }
    const LcuVar *cq = copy->params.data[a];
    for (int j = 0; j < copy->soacs.len; j++) {
      LcuSoac *so = copy->soacs.data[j];
      if (so->kind == SOAC_MAP)
        thunk_zero_reads(so->pull, cq, true);
    }
  }
  if (!copy)
    return false;
  run_copy(s, st, copy);
  return true;
}

/* Is run 'r' of a kernel that is one LIBRARY 'lib' of its argument? */
static bool run_of_library(const LcuStmt *r, int lib) {
  return r && r->kind == LS_RUN && r->args.len == 1 && library_of(r->kernel) == lib;
}

/* Should seg_offsets 'st' of sd 'sd', made from lengths, stay a read of
   sd's own offsets rather than become a SCAN of the lengths?  Where sd
   is needed anyway (read by more than its seg_offsets, seg_lengths and
   totals: a lifted `++`'s result, whose elements a SEG_MAP over it
   places) and every reader of the offsets reads them at indices in its
   thunks, fus_segment_fields reads seg_offset(sd, e) there instead, so
   that the offsets cost nothing; the SCAN was a pass of its own, or a
   column of another pass, and a vector. */
static bool offsets_stay(Simp *s, const LcuStmt *st, const LcuVar *sd) {
  const LcuVar *offsets = st->results.data[0];
  const Vec *of_sd = ptrmap_get(s->uses, sd), *of_offsets = ptrmap_get(s->uses, offsets);
  if (!of_offsets || ptrmap_get(s->escapes, offsets))
    return false;
  bool needed = ptrmap_get(s->escapes, sd) != NULL;
  for (int i = 0; of_sd && i < of_sd->len && !needed; i++) {
    const FusUse *u = of_sd->data[i];
    needed = !(run_of_library(u->stmt, LIB_SEG_OFFSETS) || run_of_library(u->stmt, LIB_SEG_LENGTHS) ||
               u->stmt->kind == LS_LENGTH);
  }
  for (int i = 0; i < of_offsets->len && needed; i++) {
    const FusUse *u = of_offsets->data[i];
    needed = fus_field_run_qualifies(u->stmt, u->arg, offsets);
  }
  return needed;
}

/* seg_offsets(make_segdes(v)) is the exclusive sum scan of v: a SCAN,
   which fusion can put beside the MAP that makes v (unless
   offsets_stay).  Every such kernel has one canonical text (its
   expressions are all at its SOAC's location), so that it is built
   once: after that, the kernel interned then is the answer, and the ids
   building it again would take are taken (later variables keep their
   names). */
enum { OFFSETS_SCAN_VARS = 5 }; /* v, i, x, y and the result */

static LcuKernel *offsets_scan(Simp *s, Loc loc) {
  if (s->made->offsets) {
    s->p->next_var += OFFSETS_SCAN_VARS;
    return s->made->offsets;
  }
  int first = s->p->next_var;
  LcuKernel *k = lcu_kernel_new();
  LcuVar *v = lcu_kernel_param(s->p, k, lcu_vec(FB_INT));
  LcuThunk *pull = lcu_thunk_new();
  LcuVar *i = lcu_thunk_param(s->p, pull, FB_INT, "i");
  lcu_thunk_return(pull, lcu_exp_index(loc, v, lcu_exp_var(loc, i)));
  lcu_thunk_use(pull, v);
  LcuThunk *op = lcu_thunk_new();
  LcuVar *x = lcu_thunk_param(s->p, op, FB_INT, NULL), *y = lcu_thunk_param(s->p, op, FB_INT, NULL);
  lcu_thunk_return(op, lcu_exp_op(loc, FLAT_ADD, FB_INT, 2, lcu_exp_var(loc, x), lcu_exp_var(loc, y), NULL));
  FlatAtom zero = lcu_int_const(0);
  LcuSoac *scan = lcu_soac_scan(loc, pull, &zero, 1, op, lcu_size_length(v));
  lcu_kernel_soac(k, scan);
  lcu_kernel_return(k, lcu_soac_result(s->p, scan, lcu_vec(FB_INT)));
  if (s->p->next_var - first != OFFSETS_SCAN_VARS)
    die("simplify: offsets_scan made %d variables", s->p->next_var - first);
  s->made->offsets = intern_kernel(s, k);
  return s->made->offsets;
}

/* ---- the segment ids of one segment ----
   seg_ids of a sd of one segment are all 0: a MAP { i => 0 } of its
   elements.  A subscript of a nested sequence outside an apply-to-each
   (`parts[0]`, `result[1]`) makes such a sd, range_segdes of one range,
   and a MAP that reads its ids to place each element in the source.
   seg_ids, a library kernel, stays a kernel of its own and its MAP
   materializes the indices; the MAP of zeros is read as 0 where it is
   read (propagate_invariants), and the gather of the segment's elements
   then composes into the reader of the subscript.  Radix sort's
   `parts[0] ++ parts[1]` wrote and read an index vector of each part. */
static bool simp_length(Simp *s, LcuStmt *st);

static bool one_segment(Simp *s, const LcuVar *sd);

/* Does 'v' hold one element: the result of a run of a SOAC of the
   constant size 1, or the lengths or offsets of a sd of one segment?
   (Its length is its shape class's, which the facts know only as a
   class.) */
static bool one_element(Simp *s, const LcuVar *v) {
  const LcuStmt *d = run_of(s, v);
  if (!d)
    return false;
  const LcuKernel *k = d->kernel;
  int lib = library_of(k);
  if (lib == LIB_RANGE_SEGDES && d->results.len == 3 && d->results.data[0] != v) {
    const LcuAtom *a0 = d->args.data[0];
    return a0->var && one_element(s, a0->var);
  }
  if ((lib == LIB_SEG_LENGTHS || lib == LIB_SEG_OFFSETS) && d->args.len == 1) {
    const LcuAtom *a0 = d->args.data[0];
    return a0->var && one_segment(s, a0->var);
  }
  int column;
  const LcuSoac *so = soac_making(d, v, &column);
  return so && (so->kind == SOAC_MAP || so->kind == SOAC_SCAN) && !so->size.var && !so->size.length &&
         so->size.value == 1;
}

/* Is 'sd' of one segment: made by make_segdes or range_segdes of one
   element? */
static bool one_segment(Simp *s, const LcuVar *sd) {
  const LcuStmt *d = run_of(s, sd);
  int lib = d ? library_of(d->kernel) : -1;
  if ((lib != LIB_RANGE_SEGDES && lib != LIB_MAKE_SEGDES) || !d->results.len || d->results.data[0] != sd ||
      !d->args.len)
    return false;
  const LcuAtom *a0 = d->args.data[0];
  return a0->var && one_element(s, a0->var);
}

static bool one_segment_ids(Simp *s, LcuStmt *st, Vec *out) {
  if (library_of(st->kernel) != LIB_SEG_IDS || st->args.len != 1 || st->results.len != 1)
    return false;
  LcuAtom *a = st->args.data[0];
  if (!a->var)
    return false;
  FusLen segments = fus_var_len(s->facts, a->var);
  if (!(segments.kind == FL_CONST && segments.value == 1) && !one_segment(s, a->var))
    return false;
  LcuStmt *total = lcu_stmt_length(st->loc, LEN_TOTAL, a);
  LcuVar *t = lcu_stmt_result(s->p, total, lcu_scalar(FB_INT));
  if (!simp_length(s, total))
    vec_push(out, total);
  LcuKernel *k = lcu_kernel_new();
  LcuVar *n = lcu_kernel_param(s->p, k, lcu_scalar(FB_INT));
  LcuThunk *pull = lcu_thunk_new();
  lcu_thunk_param(s->p, pull, FB_INT, "i");
  lcu_thunk_return(pull, lcu_exp_const(st->loc, lcu_int_const(0)));
  LcuSoac *map = lcu_soac_map(st->loc, pull, lcu_size_var(n));
  lcu_kernel_soac(k, map);
  lcu_kernel_return(k, lcu_soac_result(s->p, map, lcu_vec(FB_INT)));
  st->kernel = intern_kernel(s, k);
  st->args.data[0] = subst_atom(s, lcu_atom_var(t));
  s->changed = true;
  return true;
}

/* ---- the walk ---- */

static void simp_stmts(Simp *s, const Vec *in, Vec *out);

/* Looks up 'key'; if an earlier statement computed it, the results of
   'st' become that one's and true is returned; else 'st' is recorded. */
static bool common(Simp *s, const char *key, LcuStmt *st) {
  LcuStmt *old = scoped_get(&s->avail, key); /* computed before, in scope */
  if (old && old->results.len == st->results.len) {
    for (int i = 0; i < st->results.len; i++) {
      LcuVar *was = st->results.data[i], *by = old->results.data[i];
      /* the same computation has the same length: where the earlier
         result has no class, it takes the one the later had (a dist of
         a lifted if's count, joined by shape analysis to the vectors it
         meets, would leave that class with the repetition, and the
         facts that join those vectors to it) */
      if (!by->shape && was->shape)
        by->shape = was->shape;
      if (!by->strict && was->strict)
        by->strict = was->strict;
      replace(s, was, lcu_atom_var(by));
    }
    return true;
  }
  scoped_put(&s->avail, key, st);
  return false;
}

/* Simplifies scalar statement 'st'; true if it goes. */
static bool simp_scalar(Simp *s, LcuStmt *st) {
  LcuVar *r = st->results.data[0];
  FlatAtom c[3];
  bool constant = st->args.len > 0;
  for (int i = 0; i < st->args.len; i++) {
    LcuAtom *a = st->args.data[i];
    constant &= !a->var;
    if (!a->var)
      c[i] = a->constant;
  }
  FlatAtom folded;
  if (constant && fold(st->op, c, st->args.len, &folded) && lcu_const_base(folded) == r->type.base) {
    replace(s, r, lcu_atom_const(folded));
    return true;
  }
  LcuAtom *same = identity(s, st);
  if (same && lcu_type_equal(lcu_atom_type(same), r->type)) {
    replace(s, r, same);
    return true;
  }
  return common(s, key_of(s, 's', NULL, (int)st->op, &st->args), st);
}


/* What a check's operand may be: a constant, or component j of a REDUCE
   whose pull gives it as the int constant c and whose operator gives
   each component as a choice between the operands' same component (`if
   ... then x_j else y_j`, as lowering's first-failure reductions are):
   then it is c or the identity's component id, whatever the elements and
   their number.  Where every component is chosen by one condition, the
   components go together ('together': the REDUCE's tuple is the pull's
   constants or the identity, never a mixture). */
typedef struct Operand {
  const LcuSoac *reduce; /* NULL: the constant c */
  int j;
  int64_t c, id;
  bool together;
} Operand;

static bool check_operand(Simp *s, const LcuAtom *a, Operand *o) {
  *o = (Operand){0};
  if (!a->var) {
    o->c = a->constant.u.i;
    return a->constant.kind == FA_INT;
  }
  const LcuStmt *run = run_of(s, a->var);
  if (!run)
    return false;
  const LcuVar *kv = NULL;
  for (int i = 0; i < run->results.len && i < run->kernel->results.len; i++)
    if (run->results.data[i] == a->var)
      kv = run->kernel->results.data[i];
  for (int i = 0; kv && i < run->kernel->soacs.len; i++) {
    const LcuSoac *r = run->kernel->soacs.data[i];
    int k = r->results.len, j = -1;
    for (int c = 0; c < k; c++)
      if (r->results.data[c] == kv)
        j = c;
    if (j < 0)
      continue;
    if (r->kind != SOAC_REDUCE || r->identity.len != k || r->pull->body.len != k || r->second->lets.len ||
        r->second->body.len != k || r->second->params.len != 2 * k)
      return false;
    o->together = true;
    for (int c = 0; c < k; c++) { /* every component a choice: no operation makes a new value */
      const LcuExp *e = r->second->body.data[c];
      if (e->kind != LE_IF || e->args[1]->kind != LE_VAR || e->args[2]->kind != LE_VAR ||
          e->args[1]->var != r->second->params.data[c] || e->args[2]->var != r->second->params.data[k + c])
        return false;
      const LcuExp *first = ((const LcuExp *)r->second->body.data[0])->args[0];
      o->together = o->together && fus_same_exp(e->args[0], first);
    }
    const LcuExp *pulled = r->pull->body.data[j];
    const FlatAtom *id = r->identity.data[j];
    if (!exp_const(pulled, FA_INT) || id->kind != FA_INT)
      return false;
    o->reduce = r;
    o->j = j;
    o->c = pulled->constant.u.i;
    o->id = id->u.i;
    return true;
  }
  return false;
}

/* The REDUCE of 'run' whose result is its kernel's result that 'v' gets,
   and v's component there ('*j'), where its operator chooses every
   component by one condition (`if c then x_j else y_j`, c the same for
   each: lowering's first-failure reductions), so that its value is the
   pull's tuple at one element, or the identity; NULL otherwise. */
static const LcuSoac *choosing_reduce(const LcuStmt *run, const LcuVar *v, int *j) {
  const LcuVar *kv = NULL;
  for (int i = 0; i < run->results.len && i < run->kernel->results.len; i++)
    if (run->results.data[i] == v)
      kv = run->kernel->results.data[i];
  for (int i = 0; kv && i < run->kernel->soacs.len; i++) {
    const LcuSoac *r = run->kernel->soacs.data[i];
    int k = r->results.len;
    *j = -1;
    for (int c = 0; c < k; c++)
      if (r->results.data[c] == kv)
        *j = c;
    if (*j < 0)
      continue;
    if (r->kind != SOAC_REDUCE || r->identity.len != k || r->pull->body.len != k || r->pull->lets.len ||
        r->second->lets.len || r->second->body.len != k || r->second->params.len != 2 * k)
      return NULL;
    const LcuExp *first = ((const LcuExp *)r->second->body.data[0])->args[0];
    for (int c = 0; c < k; c++) {
      const LcuExp *e = r->second->body.data[c];
      if (e->kind != LE_IF || e->args[1]->kind != LE_VAR || e->args[2]->kind != LE_VAR ||
          e->args[1]->var != r->second->params.data[c] || e->args[2]->var != r->second->params.data[k + c] ||
          !fus_same_exp(e->args[0], first))
        return NULL;
    }
    return r;
  }
  return NULL;
}

/* The atom that 'run' gives kernel parameter 'p', or NULL. */
static const LcuAtom *run_arg(const LcuStmt *run, const LcuVar *p) {
  for (int i = 0; i < run->kernel->params.len && i < run->args.len; i++)
    if (run->kernel->params.data[i] == p)
      return run->args.data[i];
  return NULL;
}

/* Do pull expressions 'a' and 'b' of a kernel that 'run' runs read one
   value: the same vector (or two parameters the run gives one variable)
   at the same index? */
static bool same_read(const LcuStmt *run, const LcuExp *a, const LcuExp *b) {
  if (a->kind != LE_INDEX || b->kind != LE_INDEX || !fus_same_exp(a->args[0], b->args[0]))
    return false;
  if (a->var == b->var)
    return true;
  const LcuAtom *x = run_arg(run, a->var), *y = run_arg(run, b->var);
  return x && y && x->var && x->var == y->var;
}

/* Are 'a' and 'b' always equal: two components of one choosing REDUCE
   (choosing_reduce) whose pull reads one value for both and whose
   identity is the same for both?  (`check lengths` of a sequence's
   lengths with themselves: quickhull's zip of its points with the cross
   products made from them, the two lengths one variable once
   simplification found their runs equal.) */
static bool equal_components(Simp *s, const LcuAtom *a, const LcuAtom *b) {
  const LcuStmt *run = a->var ? run_of(s, a->var) : NULL;
  if (!run || !b->var || run_of(s, b->var) != run)
    return false;
  int ja, jb;
  const LcuSoac *r = choosing_reduce(run, a->var, &ja), *r2 = choosing_reduce(run, b->var, &jb);
  if (!r || r != r2)
    return false;
  const FlatAtom *ia = r->identity.data[ja], *ib = r->identity.data[jb];
  if (ia->kind != FA_INT || ib->kind != FA_INT || ia->u.i != ib->u.i)
    return false;
  return ja == jb || same_read(run, r->pull->body.data[ja], r->pull->body.data[jb]);
}

/* A check that passes whatever values check_operand allows its operands
   (lowering's test of `result[0]` where every segment of `result` is
   known to hold two: the REDUCE gives (no failure, 0, 2), its pull's
   constants, or its identity (no failure, 0, 1), and 0 < 2, 0 < 1).
   Each operand from a REDUCE is its c or its id, chosen together with
   the other operands of the same REDUCE where its components go
   together: at most 2^3 cases. */
static bool passes_all_choices(Simp *s, const LcuStmt *st, int n) {
  Operand o[3];
  for (int i = 0; i < n; i++)
    if (!check_operand(s, st->args.data[i], &o[i]))
      return false;
  int choice[3]; /* the bit of the case that chooses operand i's value, or -1 */
  int bits = 0;
  for (int i = 0; i < n; i++) {
    choice[i] = -1;
    if (!o[i].reduce)
      continue;
    for (int p = 0; p < i && choice[i] < 0; p++)
      if (o[p].reduce == o[i].reduce && o[i].together)
        choice[i] = choice[p];
    if (choice[i] < 0)
      choice[i] = bits++;
  }
  for (int m = 0; m < 1 << bits; m++) {
    int64_t v[3] = {0, 0, 0};
    for (int i = 0; i < n; i++)
      v[i] = choice[i] < 0 ? o[i].c : (m >> choice[i]) & 1 ? o[i].id : o[i].c;
    if (!rt_check_ok(st->check, v[0], v[1], v[2]))
      return false;
  }
  return true;
}

/* A check that cannot fail goes: its operands constants that pass, two
   lengths of one variable, a range from 0 to a length by a positive
   stride (`[0:#v]`), a subscript 0 or 1 of a pair of rows (`split`'s
   parts[0], parts[1]).  True if it goes. */
static bool simp_check(Simp *s, LcuStmt *st) {
  int64_t v[3] = {0, 0, 0};
  bool known[3] = {false, false, false};
  int n = st->args.len < 3 ? st->args.len : 3;
  for (int i = 0; i < n; i++) {
    const LcuAtom *a = st->args.data[i];
    if (a->var && a->var->type.kind != LT_SCALAR)
      return false; /* a lifted check, one per element */
    if (!a->var && a->constant.kind == FA_INT) {
      v[i] = a->constant.u.i;
      known[i] = true;
    }
  }
  bool all = known[0] && (n < 2 || known[1]) && (n < 3 || known[2]);
  if (all && rt_check_ok(st->check, v[0], v[1], v[2])) {
    s->changed = true;
    return true;
  }
  if (passes_all_choices(s, st, n)) {
    s->changed = true;
    return true;
  }
  const LcuAtom *a = st->args.data[0], *b = n > 1 ? st->args.data[1] : NULL;
  bool passes = false;
  switch (st->check) {
  case RT_CHECK_LENGTHS:
  case RT_CHECK_COUNTS:
    passes = b && a->var && (a->var == b->var || equal_components(s, a, b));
    break;
  case RT_CHECK_RANGE:
    passes = n == 3 && known[0] && known[2] && v[2] > 0 && (known[1] ? v[0] <= v[1] : v[0] <= 0 && nonneg(s, b));
    break;
  default:
    break;
  }
  if (passes)
    s->changed = true;
  return passes;
}

/* Simplifies length statement 'st'; true if it goes. */
static bool simp_length(Simp *s, LcuStmt *st) {
  LcuVar *r = st->results.data[0];
  for (;;) {
    LcuAtom *a = st->args.data[0];
    if (!a->var)
      break;
    if (st->length == LEN_SEGMENTS) { /* the segments of make_segdes(v): #v */
      LcuAtom *lengths = segdes_lengths(s, a->var);
      if (lengths && lengths->var) {
        st->length = LEN_VECTOR;
        st->args.data[0] = lengths;
        s->changed = true;
        continue;
      }
      break;
    }
    if (st->length != LEN_VECTOR)
      break;
    LcuVar *other;
    LcuAtom *n = known_length(s, a->var, &other);
    if (n) {
      replace(s, r, n);
      return true;
    }
    if (other && other != a->var) {
      st->args.data[0] = lcu_atom_var(other);
      s->changed = true;
      continue;
    }
    break;
  }
  /* vectors (sds) of one strict class have one length (number of
     segments) wherever they exist (LcuVar.strict): an earlier length of
     any of them serves.  Not the shape classes: those also join vectors
     that an element-wise operation meets after a `check lengths`, whose
     lengths are one only once it has passed. */
  LcuAtom *a = st->args.data[0];
  if (a->var && a->var->strict &&
      ((st->length == LEN_VECTOR && a->var->type.kind != LT_SEGDES) || st->length == LEN_SEGMENTS)) {
    Vec none = {0};
    return common(s, key_of(s, 'S', NULL, a->var->strict, &none), st);
  }
  return common(s, key_of(s, 'l', NULL, (int)st->length, &st->args), st);
}

/* Simplifies run 'st'; true if it goes. */
static bool simp_run(Simp *s, LcuStmt *st) {
  const LcuKernel *k = st->kernel;
  /* seg_lengths(make_segdes(v)) is v: make_segdes checked that the
     lengths are not negative, and the sd keeps them as they were */
  if (library_of(k) == LIB_SEG_LENGTHS && st->args.len == 1 && st->results.len == 1) {
    LcuAtom *a = st->args.data[0];
    LcuAtom *lengths = a->var ? segdes_lengths(s, a->var) : NULL;
    if (lengths && lengths->var && lcu_type_equal(lengths->var->type, ((LcuVar *)st->results.data[0])->type)) {
      replace(s, st->results.data[0], lengths);
      return true;
    }
  }
  /* seg_lengths and seg_offsets of range_segdes's sd are its results */
  if ((library_of(k) == LIB_SEG_LENGTHS || library_of(k) == LIB_SEG_OFFSETS) && st->args.len == 1 &&
      st->results.len == 1) {
    LcuAtom *a = st->args.data[0];
    LcuAtom *made = a->var ? range_segdes_result(s, a->var, library_of(k) == LIB_SEG_LENGTHS ? 1 : 2) : NULL;
    if (made) {
      replace(s, st->results.data[0], made);
      return true;
    }
  }
  if (library_of(k) == LIB_SEG_OFFSETS && st->args.len == 1 && st->results.len == 1) {
    LcuAtom *a = st->args.data[0];
    LcuAtom *lengths = a->var ? segdes_lengths(s, a->var) : NULL;
    if (lengths && lengths->var && !offsets_stay(s, st, a->var)) {
      st->kernel = offsets_scan(s, st->loc);
      st->args.data[0] = lengths;
      s->changed = true;
      k = st->kernel;
    }
  }
  if (propagate_invariants(s, st)) {
    s->changed = true;
    k = st->kernel;
  }
  if (constant_params(s, st)) {
    s->changed = true;
    k = st->kernel;
  }
  if (scan_of_constant(s, st)) {
    s->changed = true;
    k = st->kernel;
  }
  if (one_element_reads(s, st)) {
    s->changed = true;
    k = st->kernel;
  }
  if (draws_random(k))
    return false;
  return common(s, key_of(s, 'r', k->name, -1, &st->args), st);
}

static void simp_block(Simp *s, LcuBlock *b) {
  Vec out = {0};
  simp_stmts(s, &b->stmts, &out);
  b->stmts = out;
  subst_atoms(s, &b->results);
}

/* True if block 'b' does nothing: no statements. */
static bool empty(const LcuBlock *b) { return b->stmts.len == 0; }

/* Simplifies `if` 'st' into 'out'; its nested blocks see the expressions
   available before it. */
static void simp_if(Simp *s, LcuStmt *st, Vec *out) {
  LcuAtom *c = st->args.data[0];
  if (!c->var && c->constant.kind == FA_BOOL) {
    /* the branch it takes, in its place */
    LcuBlock *taken = c->constant.u.b ? st->then : st->els;
    simp_stmts(s, &taken->stmts, out);
    subst_atoms(s, &taken->results);
    for (int i = 0; i < st->results.len; i++)
      replace(s, st->results.data[i], taken->results.data[i]);
    s->changed = true;
    return;
  }
  /* inside a branch the condition is known: an `if` on it there (an
     inlined function's test for an empty context, repeated) folds */
  int mark = scoped_mark(&s->avail);
  genmap_put(&s->subst, c->var, lcu_atom_const(*flat_bool_atom(true)));
  simp_block(s, st->then);
  scoped_undo(&s->avail, mark);
  genmap_put(&s->subst, c->var, lcu_atom_const(*flat_bool_atom(false)));
  simp_block(s, st->els);
  scoped_undo(&s->avail, mark);
  genmap_put(&s->subst, c->var, NULL);
  if (empty(st->then) && empty(st->els)) {
    /* both branches give the same atoms: so does the if */
    bool same = true;
    for (int i = 0; i < st->results.len; i++) {
      LcuAtom *x = st->then->results.data[i], *y = st->els->results.data[i];
      same &= x->var ? x->var == y->var : !y->var && memcmp(&x->constant, &y->constant, sizeof x->constant) == 0;
    }
    if (same) {
      for (int i = 0; i < st->results.len; i++)
        replace(s, st->results.data[i], st->then->results.data[i]);
      s->changed = true;
      return;
    }
  }
  vec_push(out, st);
}

static void simp_stmts(Simp *s, const Vec *in, Vec *out) {
  for (int i = 0; i < in->len; i++) {
    LcuStmt *st = in->data[i];
    subst_atoms(s, &st->args);
    bool gone = false;
    switch (st->kind) {
    case LS_SCALAR:
      gone = simp_scalar(s, st);
      break;
    case LS_LENGTH:
      gone = simp_length(s, st);
      break;
    case LS_CHECK:
      gone = simp_check(s, st);
      break;
    case LS_SIZE:
      /* the same size of the same operands again (the components of an
         append of tuples): the first one's value, or its error before
         this one is reached; one size lets fusion put the MAPs of that
         size in one kernel */
      gone = common(s, key_of(s, 'z', NULL, (int)st->size, &st->args), st);
      break;
    case LS_RUN:
      one_segment_ids(s, st, out);
      gone = simp_run(s, st);
      break;
    case LS_IF:
      simp_if(s, st, out);
      continue;
    case LS_TIME: {
      int mark = scoped_mark(&s->avail);
      simp_block(s, st->body);
      scoped_undo(&s->avail, mark);
      break;
    }
    default:
      break;
    }
    if (!gone)
      vec_push(out, st);
  }
}

/* ---- dead code ---- */

/* Adds 'by' to the count of each variable of 'atoms' in 'uses'. */
static void count_atoms(const Vec *atoms, GenMap *uses, intptr_t by) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (a->var) {
      void **n = genmap_slot(uses, a->var, true);
      *n = (void *)((intptr_t)*n + by);
    }
  }
}

/* The reads of 'b' and of its nested blocks, counted ('by' 1) or taken
   off (-1, for a statement that goes). */
static void count_uses(const LcuBlock *b, GenMap *uses, intptr_t by) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *st = b->stmts.data[i];
    count_atoms(&st->args, uses, by);
    const LcuBlock *nested[3] = {st->then, st->els, st->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        count_uses(nested[k], uses, by);
  }
  count_atoms(&b->results, uses, by);
}

/* True if statement 'st' could go when its results are unused (and it
   has no effect: fus_stmt_effects): a call, a check and a host operation
   other than a host vector never do.  sweep and has_unused both ask
   this. */
static bool may_go(const LcuStmt *st) {
  switch (st->kind) {
  case LS_SCALAR:
  case LS_RUN:
  case LS_IF:
  case LS_TIME:
  case LS_LENGTH:
    return true;
  case LS_HOST: /* a vector the host puts together, nothing else */
    return fus_host_vector(st);
  default:
    return false;
  }
}

/* True if none of 'st''s results is used. */
static bool results_unused(const LcuStmt *st, const GenMap *uses) {
  for (int k = 0; k < st->results.len; k++)
    if (genmap_get(uses, st->results.data[k]))
      return false;
  return true;
}

/* Drops the dead statements of 'b' (and of its nested blocks), last
   first: every read of a variable comes after its statement, so by the
   time a statement is reached, what reads its results has been decided,
   and a statement that goes takes its reads off 'uses'.  One sweep
   drops what sweeping again until nothing goes would (there are no
   cycles; whether a statement has an effect does not change as others
   without one go); true if any went. */
static bool sweep(Simp *s, LcuBlock *b, GenMap *uses) {
  bool changed = false;
  int out = b->stmts.len;
  for (int i = b->stmts.len - 1; i >= 0; i--) {
    LcuStmt *st = b->stmts.data[i];
    LcuBlock *nested[3] = {st->body, st->els, st->then};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        changed |= sweep(s, nested[k], uses);
    if (may_go(st) && results_unused(st, uses) && !fus_stmt_effects(s->facts, st)) {
      count_atoms(&st->args, uses, -1);
      for (int k = 0; k < 3; k++)
        if (nested[k])
          count_uses(nested[k], uses, -1);
      changed = true;
      continue;
    }
    b->stmts.data[--out] = st;
  }
  /* the statements kept, moved down to the start, in order */
  int kept = b->stmts.len - out;
  if (kept) /* an empty block has no array: memmove's must not be NULL */
    memmove(b->stmts.data, b->stmts.data + out, sizeof(void *) * (size_t)kept);
  b->stmts.len = kept;
  return changed;
}

/* True if a statement of 'b' (or of its nested blocks) has no result
   that is used and might go: what sweep would look at. */
static bool has_unused(const LcuBlock *b, const GenMap *uses) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *st = b->stmts.data[i];
    const LcuBlock *nested[3] = {st->then, st->els, st->body};
    for (int k = 0; k < 3; k++)
      if (nested[k] && has_unused(nested[k], uses))
        return true;
    if (may_go(st) && results_unused(st, uses))
      return true;
  }
  return false;
}

/* The facts of 'body' as it is now: filled, or, when they are already
   ('*current': nothing changed the body or a kernel since they were
   filled), their memos forgotten, which leaves them as a fill would.
   Filling the facts of a whole body is what a round costs most. */
static void facts_of(FusFacts *f, const LcuBlock *body, bool *current) {
  if (*current)
    fus_forget_memos(f);
  else
    fus_fill_facts(body, f);
  *current = true;
}

/* Drops the dead statements of 'body', with the facts of 'body' as it is
   now, made only when a statement is unused: most rounds' bodies have
   none.  '*current' as facts_of, and false if a statement went. */
static void drop_dead(Simp *s, LcuBlock *body, GenMap *uses, bool *current) {
  genmap_clear(uses);
  count_uses(body, uses, 1);
  if (!has_unused(body, uses))
    return;
  facts_of(s->facts, body, current);
  if (sweep(s, body, uses)) {
    s->changed = true;
    *current = false;
  }
}

/* ---- runs moved into the branch that reads them ----

   A MAP whose results only one branch of a later `if` of its block
   reads (every read of them is there, a run of the branch among them)
   goes to the start of that branch: it runs only when the branch is
   taken, and fusion may put it in the branch's kernels.  A lifted `if`
   packs each branch's elements before its test of the counts: the pack
   of quicksort's `else` branch fused with nothing outside, and in the
   branch its pivot's gather and three FILTERs read it.  Only a run that
   cannot fail or have an effect moves (what it would report stays as it
   was); only MAPs (a FILTER fused beside the REDUCE that counts it, as
   quickselect's, would leave that kernel); and not a MAP that another
   run of the block could be fused beside (a SOAC over the same size:
   the sieve's flags and range, one kernel outside, two apart). */

/* How many reads of 'st''s results 'b' holds (its nested blocks too). */
static intptr_t reads_in(const LcuBlock *b, const LcuStmt *st) {
  GenMap local = {0};
  count_uses(b, &local, 1);
  intptr_t n = 0;
  for (int k = 0; k < st->results.len; k++)
    n += (intptr_t)genmap_get(&local, st->results.data[k]);
  return n;
}

/* Does a run of 'b' itself (not a nested block, not b's results) read a
   result of 'st'? */
static bool run_reads(const LcuBlock *b, const LcuStmt *st) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *r = b->stmts.data[i];
    if (r->kind == LS_RUN && lcu_atoms_read_results(&r->args, st))
      return true;
  }
  return false;
}

/* The CPU atom a run's SOAC 'z' is sized by: the variable given for its
   size parameter, or the vector whose length it is ('*length'); NULL
   for a constant. */
static const LcuVar *size_atom(const LcuStmt *run, const LcuSoac *z, bool *length) {
  const LcuVar *p = z->size.var ? z->size.var : z->size.length;
  *length = !z->size.var;
  for (int a = 0; p && a < run->kernel->params.len && a < run->args.len; a++)
    if (run->kernel->params.data[a] == p)
      return ((const LcuAtom *)run->args.data[a])->var;
  return NULL;
}

/* Does another run of 'b' have a SOAC over the space of one of 'st''s
   MAPs: a partner fusion could put beside it, which it would lose? */
static bool has_partner(const LcuBlock *b, const LcuStmt *st) {
  for (int k = 0; k < st->kernel->soacs.len; k++) {
    bool len;
    const LcuVar *mine = size_atom(st, st->kernel->soacs.data[k], &len);
    if (!mine)
      continue;
    for (int i = 0; i < b->stmts.len; i++) {
      const LcuStmt *r = b->stmts.data[i];
      if (r == st || r->kind != LS_RUN)
        continue;
      for (int m = 0; m < r->kernel->soacs.len; m++) {
        bool rlen;
        if (size_atom(r, r->kernel->soacs.data[m], &rlen) == mine && rlen == len)
          return true;
      }
    }
  }
  return false;
}

/* Moves the runs of 'b' (and of its nested blocks) that one branch alone
   reads into it; true if any moved. */
static bool sink_block(Simp *s, LcuBlock *b, const GenMap *uses) {
  bool moved = false;
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *st = b->stmts.data[i];
    LcuBlock *nested[3] = {st->then, st->els, st->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        moved |= sink_block(s, nested[k], uses);
    if (st->kind != LS_RUN || !st->results.len || fus_stmt_effects(s->facts, st))
      continue;
    bool maps = true;
    for (int k = 0; k < st->kernel->soacs.len; k++)
      maps &= ((const LcuSoac *)st->kernel->soacs.data[k])->kind == SOAC_MAP;
    if (!maps || has_partner(b, st))
      continue;
    intptr_t total = 0;
    for (int k = 0; k < st->results.len; k++)
      total += (intptr_t)genmap_get(uses, st->results.data[k]);
    if (!total)
      continue;
    LcuBlock *to = NULL;
    for (int j = i + 1; j < b->stmts.len && !to; j++) {
      const LcuStmt *at = b->stmts.data[j];
      if (at->kind != LS_IF)
        continue;
      if (at->then && reads_in(at->then, st) == total)
        to = at->then;
      else if (at->els && reads_in(at->els, st) == total)
        to = at->els;
      if (to && !run_reads(to, st))
        to = NULL; /* only returned, or read deeper: it would fuse with nothing more there */
    }
    if (!to)
      continue;
    vec_push(&to->stmts, NULL);
    memmove(to->stmts.data + 1, to->stmts.data, sizeof(void *) * (size_t)(to->stmts.len - 1));
    to->stmts.data[0] = st;
    memmove(b->stmts.data + i, b->stmts.data + i + 1, sizeof(void *) * (size_t)(b->stmts.len - i - 1));
    b->stmts.len--;
    i--;
    moved = true;
  }
  return moved;
}

/* The same for 'body', with its facts as it is now; '*current' as
   facts_of, and false if a run moved. */
static void sink_runs(Simp *s, LcuBlock *body, GenMap *uses, bool *current) {
  genmap_clear(uses);
  count_uses(body, uses, 1);
  facts_of(s->facts, body, current);
  if (sink_block(s, body, uses)) {
    s->changed = true;
    *current = false;
  }
}

/* ---- the pass ---- */

/* What each round of each body fills anew, emptied in place for the
   next: these maps grew from nothing once per round, a fifth of what
   simplification allocated. */
typedef struct Rounds {
  FusFacts facts;
  ScopedMap avail;
  GenMap subst;
  GenMap uses; /* each variable's count of reads (drop_dead) */
  Buf key;
  Vec consts; /* pairs: a global whose value is a constant, the LcuAtom */
} Rounds;

static void simplify_body(LcuProgram *p, LcuBlock *body, Made *made, Rounds *r) {
  bool current = false; /* r->facts are the body's as it is */
  for (int round = 0; round < 64; round++) {
    facts_of(&r->facts, body, &current);
    scoped_clear(&r->avail);
    genmap_clear(&r->subst);
    for (int i = 0; i + 1 < r->consts.len; i += 2)
      genmap_put(&r->subst, r->consts.data[i], r->consts.data[i + 1]);
    PtrMap uses = {0}, escapes = {0};
    fus_note_uses(body, &uses, &escapes);
    Simp s = {.p = p, .facts = &r->facts, .made = made, .avail = r->avail, .subst = r->subst,
              .key = r->key, .uses = &uses, .escapes = &escapes};
    s.changed = simp_kernels(p);
    simp_block(&s, body);
    current = !s.changed && !s.mutated;
    drop_dead(&s, body, &r->uses, &current);
    if (!s.changed)
      sink_runs(&s, body, &r->uses, &current);
    /* (the maps may have grown) */
    r->avail = s.avail;
    r->subst = s.subst;
    r->key = s.key;
    if (!s.changed)
      return;
  }
}

/* The globals of top-level statement 't' whose values are constants
   (`pi = 3.141592653589793;`), to 'consts': a global is bound once, by
   its statement, so that every read of it, in functions and later
   statements, may read the constant instead. */
static void constant_globals(const LcuTop *t, Vec *consts) {
  if (!t->body || t->body->stmts.len || t->body->results.len != t->defines.len)
    return;
  for (int i = 0; i < t->defines.len; i++) {
    LcuAtom *a = t->body->results.data[i];
    if (!a->var) {
      vec_push(consts, t->defines.data[i]);
      vec_push(consts, a);
    }
  }
}

void fus_simplify(LcuProgram *p) {
  Made made = {0};
  Rounds r = {0};
  for (int i = 0; i < p->tops.len; i++)
    constant_globals(p->tops.data[i], &r.consts);
  for (int i = 0; i < p->funcs.len; i++)
    if (!((LcuFunc *)p->funcs.data[i])->each) /* an element function runs no kernel, and updates in place */
      simplify_body(p, ((LcuFunc *)p->funcs.data[i])->body, &made, &r);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body) {
      simplify_body(p, t->body, &made, &r);
      constant_globals(t, &r.consts); /* for the statements after it */
    }
  }
  fus_release_facts(&r.facts);
  lcu_prune_kernels(p);
}
