/*
 * rules.c: the SOAC rewrite rules (the λcu paper's Figure 5 and section
 * 4.2), applied to the SOACs of one kernel, which merge.c made from a
 * cluster, until none applies.
 *
 * Each rule keeps what the kernel returns and the errors it reports, in
 * order.  λcu's interpreter evaluates a thunk one result expression at a
 * time over all the lanes, and a `let`'s value before its body: a
 * computation moved into a `let` at the head of its consumer's first
 * expression is still done on every lane, and first.  So:
 *   - a producer that can fail may vanish into its consumers only if its
 *     work stays first and whole: its first consumer reads each of its
 *     results at its own index in its first expression, and nothing that
 *     can fail runs between them; else it stays (and its consumers may
 *     still recompute it: its errors come first, from it);
 *   - a producer with a check at its run (a size, FUS_FAIL_RUN) never
 *     vanishes: the check would go with it;
 *   - work is never done on lanes where it was not: a filtered-out value
 *     is guarded by the predicate (`if p then e else id`);
 *   - two SOACs side by side become one whose expressions are the first's
 *     then the second's; one is moved past others only if it cannot fail
 *     or they cannot.
 * (Two REDUCEs side by side interleave their operators element by
 * element: when both would fail, the second's error may come first.
 * docs/fusion.md says so.)
 */
#include <string.h>

#include "fusion.h"

typedef struct Rw {
  LcuProgram *p;
  LcuKernel *k;
  LcuStmt *run;
  FusFacts *f;
  FusKernelLens kl;
  int places; /* the kernel's SOACs when the rules began (LcuExp.origin) */
} Rw;

/* The kernel's lengths after a step (the last step's table given back:
   nothing keeps what it held). */
static void refresh(Rw *w) {
  fus_release_kernel_lens(&w->kl);
  fus_fill_kernel_lens(w->f, w->run, w->k, &w->kl);
}

static LcuSoac *soac_at(const Rw *w, int i) { return w->k->soacs.data[i]; }
static int nsoacs(const Rw *w) { return w->k->soacs.len; }

static void remove_soac(Rw *w, int i) {
  Vec *v = &w->k->soacs;
  for (int j = i; j + 1 < v->len; j++)
    v->data[j] = v->data[j + 1];
  v->len--;
}

/* Whether 's' can fail or has an effect: it must keep its order. */
static bool fails(const Rw *w, const LcuSoac *s) { return fus_soac_failures(&w->kl, s) != 0; }

static bool thunk_reads(const LcuThunk *t, const LcuVar *v) {
  if (!t)
    return false;
  /* a thunk reads only what it lists in `using` (lcu_check): most
     questions are answered there, without walking a large body */
  bool listed = false;
  for (int i = 0; i < t->using.len && !listed; i++)
    listed = t->using.data[i] == v;
  if (!listed)
    return false;
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    if (lcu_exp_reads(lcu_thunk_exp(t, i), v))
      return true;
  return false;
}

/* True if SOAC 's' reads kernel variable 'v' anywhere. */
static bool soac_reads(const LcuSoac *s, const LcuVar *v) {
  if (thunk_reads(s->pull, v) || thunk_reads(s->second, v))
    return true;
  if (s->size.var == v || s->size.length == v || s->segdes == v || s->into == v)
    return true;
  for (int i = 0; i < s->args.len; i++)
    if (s->args.data[i] == v)
      return true;
  return false;
}

static bool thunk_reads_any(const LcuThunk *t, const LcuSoac *of) {
  for (int i = 0; i < of->results.len; i++)
    if (thunk_reads(t, of->results.data[i]))
      return true;
  return false;
}

static bool reads_results_of(const LcuSoac *s, const LcuSoac *of) {
  for (int i = 0; i < of->results.len; i++)
    if (soac_reads(s, of->results.data[i]))
      return true;
  return false;
}

static bool is_result(const LcuKernel *k, const LcuVar *v) {
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == v)
      return true;
  return false;
}

/* True if 'v' is read by a SOAC from index 'from' on, or returned. */
static bool used_from(const Rw *w, int from, const LcuVar *v) {
  if (is_result(w->k, v))
    return true;
  for (int i = from; i < nsoacs(w); i++)
    if (soac_reads(soac_at(w, i), v))
      return true;
  return false;
}

/* ---- the order of a kernel's checks.  A kernel reports the failure
   of its first check in code order (rt/kernel.h): the program's order
   of the SOACs it fuses, which the rules keep between SOACs
   (any_fails_between) and must keep inside a thunk they build too.  A
   rule puts one SOAC's work before or inside another's (composition in
   place of a read, or before the expression where the read is in a
   branch; two MAPs merged; side by side), so a producer that can fail,
   composed into a consumer that already holds the work of an earlier
   SOAC that can fail, may check first: `100 / d == 100 / e` reported
   e's zero where NESL reports d's.  So each expression knows the place
   of the SOAC it came from (LcuExp.origin, set when the rules begin),
   and a thunk a rule builds is kept only if, in the order its checks
   run, no place's first check comes after a later place's, unless a
   check already made fails with it (same_report). ---- */

static void tag_exp(LcuExp *e, int origin) {
  e->origin = origin;
  for (int i = 0; i < e->nargs; i++)
    tag_exp(e->args[i], origin);
}

static void tag_thunk(LcuThunk *t, int origin) {
  for (int i = 0; t && i < lcu_thunk_nexps(t); i++)
    tag_exp(lcu_thunk_exp(t, i), origin);
}

typedef struct Order {
  const Rw *w;
  bool *seen; /* by origin */
  int last;   /* the last origin first seen */
  Vec firsts; /* LcuExp *: each origin's first check */
  bool ok;
} Order;

/* Do checks 'a' and 'b' fail together, with one message: reads at one
   place of the source, at one index, of vectors of one length (the x
   and y of a sequence of points, each gathered by its own SOAC)? */
static bool same_report(const Rw *w, const LcuExp *a, const LcuExp *b) {
  if (a->kind != b->kind || !LCU_READS_AT(a->kind) || !lcu_loc_equal(a->loc, b->loc) || a->lib_fn != b->lib_fn)
    return false;
  return fus_same_exp(a->args[0], b->args[0]) &&
         (a->var == b->var || fus_len_equal(fus_kernel_len(&w->kl, a->var), fus_kernel_len(&w->kl, b->var)));
}

static bool note_check(const LcuExp *e, void *ctx) {
  Order *o = ctx;
  if (!e->origin || o->seen[e->origin])
    return false;
  o->seen[e->origin] = true;
  if (e->origin < o->last) {
    /* an earlier place's check after a later one's: in order only where
       a check already made fails with it, in its words */
    bool made = false;
    for (int i = 0; i < o->firsts.len && !made; i++)
      made = same_report(o->w, o->firsts.data[i], e);
    o->ok &= made;
  }
  vec_push(&o->firsts, (void *)e);
  if (e->origin > o->last)
    o->last = e->origin;
  return !o->ok; /* the answer is known */
}

/* Does SOAC 's' (perhaps not yet in the kernel) make its checks in the
   order of the places they come from? */
static bool keeps_order(const Rw *w, const LcuSoac *s) {
  Order o = {w, xmalloc_atomic(sizeof(bool) * (size_t)(w->places + 1)), 0, {0}, true};
  memset(o.seen, 0, sizeof(bool) * (size_t)(w->places + 1));
  fus_thunk_failing(&w->kl, s, s->pull, note_check, &o);
  fus_thunk_failing(&w->kl, s, s->second, note_check, &o);
  return o.ok;
}

static bool any_fails_between(const Rw *w, int a, int b) {
  for (int i = a + 1; i < b; i++)
    if (fails(w, soac_at(w, i)))
      return true;
  return false;
}

static bool own_read(const LcuExp *e, const LcuVar *i, const LcuVar *vec) {
  return i && e->kind == LE_INDEX && e->var == vec && e->args[0]->kind == LE_VAR && e->args[0]->var == i;
}

static LcuVar *fresh(Rw *w, FlatBase b, const char *hint) { return lcu_new_var(w->p, lcu_scalar(b), hint); }

/* A copy of 'e' with the variables of 'from' read as those of 'to'. */
static LcuExp *copy_renamed(Rw *w, const LcuExp *e, const Vec *from, const Vec *to) {
  PtrMap ren = {0};
  for (int i = 0; i < from->len; i++)
    ptrmap_put(&ren, from->data[i], to->data[i]);
  return lcu_copy_exp(w->p, e, &ren);
}

/* Appends src's lets to 't', renamed by 'ren' (which learns each let's
   new variable). */
static void copy_lets(Rw *w, LcuThunk *t, const LcuThunk *src, PtrMap *ren) {
  for (int i = 0; i < src->lets.len; i++) {
    const LcuLet *l = src->lets.data[i];
    LcuExp *value = lcu_copy_exp(w->p, l->value, ren);
    LcuVar *v = lcu_copy_var(w->p, l->var);
    ptrmap_put(ren, l->var, v);
    lcu_thunk_let(t, v, value);
  }
}

/* ---- MAP into any SOAC: MAP-MAP, MAP-REDUCE, MAP-PERMUTE of Figure 5,
   and MAP into any consumer's index thunks:
       A = MAP { i => e1 using xs } n  (+)  B = SOAC { i => e2 using ys } ... n
       ------------------------------------------------------------------
       B = SOAC { i => let a = e1 in [A[i]/a]e2 using xs u (ys \ {A}) } ... n
   (lcu_compose_pull).  The consumer reads A only at its own index, in
   range (its index space is A's), or as #A. ---- */

static bool composable(const Rw *w, const LcuSoac *P, const LcuSoac *C);

static bool exp_composable(const Rw *w, const LcuSoac *C, const LcuThunk *t, const LcuExp *e, const LcuVar *a) {
  for (int k = 0; k < e->nargs; k++)
    if (!exp_composable(w, C, t, e->args[k], a))
      return false;
  if (e->var != a || e->kind == LE_LET || e->kind == LE_LENGTH)
    return true;
  return e->kind == LE_INDEX && own_read(e, fus_index_param(C, t), a) &&
         fus_len_equal(fus_kernel_len(&w->kl, a), fus_soac_space(&w->kl, C));
}

/* Composition copies the producer's values into its consumer's thunks:
   once, into lets, where several of the consumer's expressions read one
   (lcu_compose_shares), and else into each expression that reads them.
   A consumer's thunks are still bounded: a composition that would make
   them larger than this many expression nodes is not made (the MAP
   stays in the kernel, before its consumer, and writes its vector).
   Before the lets, thunks shared nothing between their results, and
   Black-Scholes's DAG of MAPs grew as the tree it unfolds to: 16 MB of
   CUDA that nvcc took more than 10 minutes on. */
#define COMPOSED_NODES_LIMIT 4000

static int exp_nodes(const LcuExp *e) {
  int n = 1;
  for (int k = 0; k < e->nargs; k++)
    n += exp_nodes(e->args[k]);
  return n;
}

static long thunk_nodes(const LcuThunk *t) {
  long n = 0;
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    n += exp_nodes(lcu_thunk_exp(t, i));
  return n;
}

/* The nodes of one of C's thunks once P is composed into it. */
static long composed_thunk_nodes(const LcuSoac *P, const LcuThunk *t) {
  if (!thunk_reads_any(t, P))
    return thunk_nodes(t);
  if (lcu_compose_shares(P, t))
    return thunk_nodes(t) + thunk_nodes(P->pull);
  /* each result expression gains the values of P it reads */
  long n = 0;
  for (int b = 0; b < t->body.len; b++) {
    const LcuExp *e = t->body.data[b];
    n += exp_nodes(e);
    for (int j = 0; j < P->results.len; j++)
      if (lcu_exp_reads(e, P->results.data[j]))
        n += exp_nodes(P->pull->body.data[j]);
  }
  return n;
}

static long composed_nodes(const LcuSoac *P, const LcuSoac *C) {
  long n = 0;
  if (C->pull)
    n += composed_thunk_nodes(P, C->pull);
  if (C->second)
    n += composed_thunk_nodes(P, C->second);
  return n;
}

static bool composable(const Rw *w, const LcuSoac *P, const LcuSoac *C) {
  if (C->kind == SOAC_LIBRARY)
    return false;
  if (composed_nodes(P, C) > COMPOSED_NODES_LIMIT)
    return false;
  for (int j = 0; j < P->results.len; j++) {
    const LcuVar *a = P->results.data[j];
    if (C->size.var == a || C->segdes == a || C->into == a)
      return false;
    const LcuThunk *ts[2] = {C->pull, C->second};
    for (int t = 0; t < 2; t++)
      if (ts[t])
        for (int b = 0; b < lcu_thunk_nexps(ts[t]); b++)
          if (!exp_composable(w, C, ts[t], lcu_thunk_exp(ts[t], b), a))
            return false;
  }
  return true;
}

/* Its first consumer does P's work first: it reads every result of P at
   its own index in its first expression, or anywhere where composition
   shares P's values (they are then its first lets). */
static bool reads_all_first(const LcuSoac *P, const LcuSoac *C) {
  const LcuVar *i = fus_index_param(C, C->pull);
  if (!i || !C->pull->body.len)
    return false;
  /* (not shared: C has no lets, and its first expression is its first
     result) */
  int last = lcu_compose_shares(P, C->pull) ? lcu_thunk_nexps(C->pull) : 1;
  for (int j = 0; j < P->results.len; j++) {
    bool read = false;
    for (int e = 0; e < last && !read; e++)
      read = lcu_exp_reads_at(lcu_thunk_exp(C->pull, e), P->results.data[j], i);
    if (!read)
      return false;
  }
  return true;
}

static void compose_into(Rw *w, const LcuSoac *P, LcuSoac *C, bool in_place);

/* C with P composed into it so that C's checks keep the program's
   order: C itself where only one of them can fail (composed then with
   the let form, compose_into); else a copy of C composed, with P's
   values let-bound before the expressions that read them (the paper's
   form) or, where that would check out of order, in place of the reads;
   NULL where neither keeps the order.  The let form first: spmv's
   `let a = x[cols[i]] in vals[i] * a` loads the dependent gather first,
   and ran 7% faster than `vals[i] * x[cols[i]]` on the H200. */
static LcuSoac *composed_in_order(Rw *w, const LcuSoac *P, LcuSoac *C) {
  if (!(fus_soac_failures(&w->kl, P) & FUS_FAIL_THUNK) || !(fus_soac_failures(&w->kl, C) & FUS_FAIL_THUNK))
    return C;
  for (int in_place = 0; in_place <= 1; in_place++) {
    LcuSoac *c = NEW(LcuSoac);
    *c = *C;
    compose_into(w, P, c, in_place);
    if (keeps_order(w, c))
      return c;
  }
  return NULL;
}

static void compose_into(Rw *w, const LcuSoac *P, LcuSoac *C, bool in_place) {
  bool pull = false, second = false;
  for (int j = 0; j < P->results.len; j++) {
    pull |= thunk_reads(C->pull, P->results.data[j]);
    second |= thunk_reads(C->second, P->results.data[j]);
    if (C->size.length == P->results.data[j])
      C->size = P->size;
  }
  if (pull)
    C->pull = lcu_compose_pull(w->p, P, C->pull, in_place);
  if (second)
    C->second = lcu_compose_pull(w->p, P, C->second, in_place);
}

/* ---- MAP into MAP, once for all its consumers: a MAP read by several
   SOACs (or returned), the first of them a MAP over its space,
       A = MAP { i => e1 } n  (+)  B = MAP { i => e2 } n
       ---------------------------------------------------------------
       (A', B) = MAP { i => let a = e1; ([a/A[i]]e2 ... ) } n
   (lcu_merge_maps; A' the results of A still read or returned).  Composed
   into each consumer instead, its work would be done once per consumer,
   and a DAG of MAPs (Black-Scholes's) unfolds into a tree.  A moves to
   B's place: nothing between reads it, nor fails when it can; where
   something does, A merges with the MAP just after it, side by side,
   which need not read it. ---- */

static bool merge_maps(Rw *w, int pi, int c0) {
  LcuSoac *P = soac_at(w, pi), *C = soac_at(w, c0);
  if (C->kind != SOAC_MAP || !fus_index_param(C, C->pull) || (reads_results_of(C, P) && !composable(w, P, C)))
    return false;
  if (!fus_len_equal(fus_soac_space(&w->kl, P), fus_soac_space(&w->kl, C)))
    return false;
  if (thunk_nodes(P->pull) + thunk_nodes(C->pull) > COMPOSED_NODES_LIMIT)
    return false;
  for (int i = pi + 1; i < c0; i++)
    if (reads_results_of(soac_at(w, i), P))
      return false;
  int pf = fus_soac_failures(&w->kl, P);
  if (pf && any_fails_between(w, pi, c0))
    return false;
  if ((pf & FUS_FAIL_RUN) && !(P->size.var && C->size.var == P->size.var))
    return false; /* the check of P's size would go */
  int k = P->results.len;
  bool *keep = xmalloc_atomic(sizeof(bool) * (size_t)(k + 1));
  LcuSoac *m = NEW(LcuSoac);
  *m = *C;
  m->results = (Vec){0};
  for (int j = 0; j < k; j++) {
    keep[j] = used_from(w, c0 + 1, P->results.data[j]);
    if (keep[j])
      vec_push(&m->results, P->results.data[j]);
    if (C->size.length == P->results.data[j])
      m->size = P->size;
  }
  for (int j = 0; j < C->results.len; j++)
    vec_push(&m->results, C->results.data[j]);
  m->pull = lcu_merge_maps(w->p, P, C, keep);
  if (pf && !keeps_order(w, m))
    return false;
  w->k->soacs.data[c0] = m;
  remove_soac(w, pi);
  return true;
}

static bool rule_compose(Rw *w) {
  for (int pi = 0; pi < nsoacs(w); pi++) {
    LcuSoac *P = soac_at(w, pi);
    if (P->kind != SOAC_MAP)
      continue;
    Vec consumers = {0}, composed = {0}; /* composed: composed_in_order's */
    bool needed = false;
    for (int ci = pi + 1; ci < nsoacs(w); ci++) {
      LcuSoac *C = soac_at(w, ci);
      if (!reads_results_of(C, P))
        continue;
      LcuSoac *c = composable(w, P, C) ? composed_in_order(w, P, C) : NULL;
      if (c) {
        vec_push(&consumers, (void *)(intptr_t)ci);
        vec_push(&composed, c);
      } else
        needed = true;
    }
    if (!consumers.len)
      continue;
    for (int j = 0; j < P->results.len; j++)
      needed |= is_result(w->k, P->results.data[j]);
    int pf = fus_soac_failures(&w->kl, P);
    int c0 = (int)(intptr_t)consumers.data[0];
    /* several consumers: P's work once, with its first consumer or with
       the MAP after it (which may not read it) */
    if ((consumers.len > 1 || needed) && (merge_maps(w, pi, c0) || (pi + 1 < c0 && merge_maps(w, pi, pi + 1))))
      return true;
    bool vanish = !needed && !(pf & FUS_EFFECT);
    /* a MAP's check at its run is of its size: its first consumer makes
       the same check first when its size is the same variable */
    if (vanish && (pf & FUS_FAIL_RUN))
      vanish = P->size.var && soac_at(w, c0)->size.var == P->size.var && !any_fails_between(w, pi, c0);
    if (vanish && (pf & FUS_FAIL_THUNK))
      vanish = reads_all_first(P, soac_at(w, c0)) && !any_fails_between(w, pi, c0);
    for (int c = 0; c < consumers.len; c++) {
      LcuSoac *C = soac_at(w, (int)(intptr_t)consumers.data[c]), *made = composed.data[c];
      if (made == C)
        compose_into(w, P, C, false);
      else
        *C = *made;
    }
    if (vanish)
      remove_soac(w, pi);
    return true;
  }
  return false;
}

/* ---- MAP-gather: a MAP read at other indices than its consumer's own
   (a gather), cheap and unable to fail, computed where it is read:
       A = MAP { i => e } n  (+)  B = SOAC { ... A[e'] ... }
       -----------------------------------------------------
       B = SOAC { ... let x = bound(e', n) in [x/i]e ... }
   (lcu_compose_gather).  bound keeps the read's check, at its place and
   in its words, so B reports what it did; A did not fail, so nothing it
   reported is lost.  Every SOAC of the kernel that reads A is rewritten
   so, and A goes: its vector is neither written nor read.  The append
   `if i < #a then a[i] else b[i - #a]` that a lifted `++` makes, read
   by the gather that builds the next level's segments, is the case
   that matters (quicksort's level had four). ---- */

/* At most this many expression nodes in the MAP's thunk: about a read. */
#define GATHER_NODES 24

bool fus_gatherable(const LcuSoac *s, int failures) {
  if (s->kind != SOAC_MAP || failures || !s->pull || s->pull->params.len != 1)
    return false;
  return thunk_nodes(s->pull) <= GATHER_NODES && !lcu_thunk_calls(s->pull);
}

/* Whether C can take P's values where it reads them: it reads P's
   results only in its thunks (x[e], #x), and stays bounded. */
static bool gather_consumer(const LcuSoac *P, const LcuSoac *C) {
  if (C->kind == SOAC_LIBRARY || composed_nodes(P, C) > COMPOSED_NODES_LIMIT)
    return false;
  for (int j = 0; j < P->results.len; j++) {
    const LcuVar *a = P->results.data[j];
    if (C->size.var == a || C->segdes == a || C->into == a)
      return false;
  }
  return true;
}

/* The reads of thunk 't' of C at its own index are in range of P's
   results (C's index space is P's). */
static bool own_in_range(const Rw *w, const LcuSoac *P, const LcuSoac *C, const LcuThunk *t) {
  if (!fus_index_param(C, t))
    return false;
  return fus_len_equal(fus_soac_space(&w->kl, P), fus_soac_space(&w->kl, C));
}

/* The last gathered MAP first: a MAP gathered from another (an append
   of an extraction) is composed into its consumer while it is still
   small enough to be (fus_gatherable); the other then follows it. */
static bool rule_compose_gather(Rw *w) {
  for (int pi = nsoacs(w) - 1; pi >= 0; pi--) {
    LcuSoac *P = soac_at(w, pi);
    if (!fus_gatherable(P, fus_soac_failures(&w->kl, P)))
      continue;
    bool ok = true, any = false;
    for (int j = 0; j < P->results.len && ok; j++)
      ok = !is_result(w->k, P->results.data[j]);
    for (int ci = pi + 1; ci < nsoacs(w) && ok; ci++) {
      const LcuSoac *C = soac_at(w, ci);
      if (reads_results_of(C, P)) {
        any = true;
        ok = gather_consumer(P, C);
      }
    }
    if (!ok || !any)
      continue;
    for (int ci = pi + 1; ci < nsoacs(w); ci++) {
      LcuSoac *C = soac_at(w, ci);
      if (!reads_results_of(C, P))
        continue;
      for (int j = 0; j < P->results.len; j++)
        if (C->size.length == P->results.data[j])
          C->size = P->size;
      if (thunk_reads_any(C->pull, P))
        C->pull = lcu_compose_gather(w->p, P, C->pull, own_in_range(w, P, C, C->pull));
      if (thunk_reads_any(C->second, P))
        C->second = lcu_compose_gather(w->p, P, C->second, own_in_range(w, P, C, C->second));
    }
    remove_soac(w, pi);
    return true;
  }
  return false;
}

/* ---- FILTER-REDUCE (Figure 5), and SEG_FILTER-SEG_REDUCE:
       A = FILTER { i => e1 } { w => p } n  (+)  b = REDUCE { i => e2 } id op (#A)
       ----------------------------------------------------------------------
       b = REDUCE { i => let a = e1 in if [a/w]p then [A[i]/a]e2 else id } id op n
   The consumer reads A's values at its own index and nothing else there;
   the segmented form reduces over the SEG_FILTER's new sd, whose
   segments are the old sd's. ---- */

/* The values of FILTER 'F' (its first k results). */
static Vec filter_values(const LcuSoac *F) {
  Vec v = {0};
  for (int i = 0; i < F->pull->body.len; i++)
    vec_push(&v, F->results.data[i]);
  return v;
}

/* True if thunk 't' of 'C' reads its index only in own-index reads of
   'vals'. */
static bool index_only_in(const LcuExp *e, const LcuVar *i, const Vec *vals) {
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && e->args[0]->var == i) {
    for (int k = 0; k < vals->len; k++)
      if (vals->data[k] == e->var)
        return true;
    return false;
  }
  if (e->kind == LE_VAR && e->var == i)
    return false;
  for (int k = 0; k < e->nargs; k++)
    if (!index_only_in(e->args[k], i, vals))
      return false;
  return true;
}

static bool pull_index_only_in(const LcuSoac *C, const Vec *vals) {
  const LcuVar *i = fus_index_param(C, C->pull);
  if (!i || C->pull->lets.len)
    return false;
  for (int k = 0; k < C->pull->body.len; k++)
    if (!index_only_in(C->pull->body.data[k], i, vals))
      return false;
  return true;
}

/* The one later SOAC that reads F's results, if none other does and F
   returns none; -1 otherwise. */
static int only_consumer(const Rw *w, int fi) {
  const LcuSoac *F = soac_at(w, fi);
  int found = -1;
  for (int j = 0; j < F->results.len; j++)
    if (is_result(w->k, F->results.data[j]))
      return -1;
  for (int ci = fi + 1; ci < nsoacs(w); ci++)
    if (reads_results_of(soac_at(w, ci), F)) {
      if (found >= 0)
        return -1;
      found = ci;
    }
  return found;
}

/* The filter's space and the consumer's agree: the consumer iterates over
   the kept values (or over the new sd). */
static bool over_kept(const Rw *w, const LcuSoac *F, const LcuSoac *C) {
  int nv = F->pull->body.len;
  if (F->kind == SOAC_SEG_FILTER)
    return C->segdes == F->results.data[nv];
  return fus_len_equal(fus_soac_space(&w->kl, C), fus_kernel_len(&w->kl, F->results.data[0]));
}

/* The filter's predicate on let-bound values 'ws', as an expression. */
static LcuExp *predicate_on(Rw *w, const LcuSoac *F, const Vec *ws) {
  return copy_renamed(w, F->second->body.data[0], &F->second->params, ws);
}

/* let w_1 = e1_1 in ... let w_k = e1_k in body, the filter's pull values
   with its variables renamed by 'ren' (its index, its lets). */
static LcuExp *let_values(Rw *w, const LcuSoac *F, const Vec *ws, PtrMap *ren, LcuExp *body) {
  for (int m = ws->len - 1; m >= 0; m--) {
    const LcuExp *e = F->pull->body.data[m];
    body = lcu_exp_let(e->loc, ws->data[m], lcu_copy_exp(w->p, e, ren), body);
  }
  return body;
}

static Vec let_vars(Rw *w, const LcuSoac *F) {
  Vec ws = {0};
  for (int m = 0; m < F->pull->body.len; m++)
    vec_push(&ws, fresh(w, ((LcuExp *)F->pull->body.data[m])->type, "w"));
  return ws;
}

static void move_size(LcuSoac *to, const LcuSoac *from) {
  to->size = from->size;
  to->segdes = from->segdes;
}

static LcuSoac *filter_reduce(Rw *w, const LcuSoac *F, const LcuSoac *R) {
  Vec vals = filter_values(F);
  const LcuVar *ir = R->pull->params.data[0];
  LcuThunk *pull = lcu_thunk_new();
  LcuVar *i = fresh(w, FB_INT, "i");
  vec_push(&pull->params, i);
  /* F's lets become the new pull's, at the new index: every element
     evaluates them, as F's pull did */
  PtrMap ren = {0};
  ptrmap_put(&ren, F->pull->params.data[0], i);
  copy_lets(w, pull, F->pull, &ren);
  for (int j = 0; j < R->pull->body.len; j++) {
    const LcuExp *e2 = R->pull->body.data[j];
    Vec ws = let_vars(w, F);
    LcuExp *val = lcu_copy_exp(w->p, e2, NULL);
    for (int m = 0; m < vals.len; m++)
      val = lcu_subst_index(w->p, val, vals.data[m], ir, lcu_exp_var(e2->loc, ws.data[m]));
    LcuExp *id = lcu_exp_const(e2->loc, *(FlatAtom *)R->identity.data[j]);
    LcuExp *body = lcu_exp_if(e2->loc, predicate_on(w, F, &ws), val, id);
    lcu_thunk_return(pull, let_values(w, F, &ws, &ren, body));
  }
  lcu_fill_using(pull);
  LcuSoac *r = NEW(LcuSoac);
  *r = *R;
  r->pull = pull;
  move_size(r, F);
  return r;
}

static bool rule_filter_reduce(Rw *w) {
  for (int fi = 0; fi < nsoacs(w); fi++) {
    const LcuSoac *F = soac_at(w, fi);
    if (F->kind != SOAC_FILTER && F->kind != SOAC_SEG_FILTER)
      continue;
    int ri = only_consumer(w, fi);
    if (ri < 0)
      continue;
    const LcuSoac *R = soac_at(w, ri);
    LcuSoacKind want = F->kind == SOAC_FILTER ? SOAC_REDUCE : SOAC_SEG_REDUCE;
    Vec vals = filter_values(F);
    /* (the rule writes R's expressions inside a test of F's predicate:
       R's lets could not come before it) */
    if (R->pull->lets.len || R->maps)
      continue;
    if (R->kind != want || !over_kept(w, F, R) || !pull_index_only_in(R, &vals) || thunk_reads_any(R->second, F))
      continue;
    if (fails(w, F) && any_fails_between(w, fi, ri))
      continue;
    LcuSoac *r = filter_reduce(w, F, R);
    if (fails(w, F) && !keeps_order(w, r))
      continue;
    w->k->soacs.data[ri] = r;
    remove_soac(w, fi);
    return true;
  }
  return false;
}

/* ---- FILTER-FILTER (Figure 5), and SEG_FILTER-SEG_FILTER, when the
   second filters the first's values themselves:
       A = FILTER { i => e1 } { w => p1 } n  (+)  B = FILTER { i => A[i] } { w => p2 } (#A)
       ---------------------------------------------------------------------------
       B = FILTER { i => e1 } { w => if p1 then p2 else F } n
   (p2 only where p1 holds, as before: it may fail elsewhere). ---- */

static bool pull_is_identity(const LcuSoac *C, const Vec *vals) {
  const LcuVar *i = fus_index_param(C, C->pull);
  if (!i || C->pull->body.len != vals->len || C->pull->lets.len)
    return false;
  for (int k = 0; k < vals->len; k++)
    if (!own_read(C->pull->body.data[k], i, vals->data[k]))
      return false;
  return true;
}

static LcuSoac *filter_filter(Rw *w, const LcuSoac *A, const LcuSoac *B) {
  LcuThunk *pred = lcu_thunk_new();
  Vec ws = {0};
  for (int m = 0; m < A->second->params.len; m++) {
    LcuVar *v = lcu_copy_var(w->p, A->second->params.data[m]);
    vec_push(&ws, v);
    vec_push(&pred->params, v);
  }
  const LcuExp *p1 = A->second->body.data[0], *p2 = B->second->body.data[0];
  LcuExp *no = lcu_exp_const(p2->loc, lcu_bool_const(false));
  lcu_thunk_return(pred, lcu_exp_if(p2->loc, copy_renamed(w, p1, &A->second->params, &ws),
                                    copy_renamed(w, p2, &B->second->params, &ws), no));
  lcu_fill_using(pred);
  LcuSoac *r = NEW(LcuSoac);
  *r = *B;
  r->pull = A->pull;
  r->second = pred;
  move_size(r, A);
  return r;
}

static bool rule_filter_filter(Rw *w) {
  for (int fi = 0; fi < nsoacs(w); fi++) {
    const LcuSoac *A = soac_at(w, fi);
    if (A->kind != SOAC_FILTER && A->kind != SOAC_SEG_FILTER)
      continue;
    int bi = only_consumer(w, fi);
    if (bi < 0)
      continue;
    const LcuSoac *B = soac_at(w, bi);
    Vec vals = filter_values(A);
    if (B->kind != A->kind || !over_kept(w, A, B) || !pull_is_identity(B, &vals) || thunk_reads_any(B->second, A))
      continue;
    if (fails(w, A) && any_fails_between(w, fi, bi))
      continue;
    LcuSoac *r = filter_filter(w, A, B);
    if (fails(w, A) && !keeps_order(w, r))
      continue;
    w->k->soacs.data[bi] = r;
    remove_soac(w, fi);
    return true;
  }
  return false;
}

/* ---- side by side: two SOACs of one kind over one index space become
   one over tuples (section 4.2, horizontal fusion):
       A = MAP { i => e1 } n  (+)  B = MAP { i => e2 } n
       --------------------------------------------------
       (A, B) = MAP { i => (e1, [i/i']e2) } n
   and so for REDUCE and SCAN (the operators side by side, the identities
   too), SEG_REDUCE and SEG_SCAN over one sd, ONCE, and FILTER, PARTITION
   and SEG_FILTER that test the same predicate of the same values (then
   one predicate serves both). ---- */

/* A kernel variable of a predicate outside its pull, by its id: the two
   FILTERs are in one kernel (canon.c). */
static void name_by_id(Buf *b, const LcuVar *v, const void *ctx) {
  (void)ctx;
  buf_printf(b, "v%d", v->id);
}

static char *predicate_text(const LcuSoac *s) { return fus_predicate_text(s, name_by_id, NULL); }

static bool side_by_side(const Rw *w, const LcuSoac *a, const LcuSoac *b) {
  if (a->kind != b->kind || a->into || b->into || a->maps || b->maps || a->joined || b->joined)
    return false;
  switch (a->kind) {
  case SOAC_MAP:
  case SOAC_REDUCE:
  case SOAC_SCAN:
    return fus_len_equal(fus_soac_space(&w->kl, a), fus_soac_space(&w->kl, b));
  case SOAC_ONCE:
    return true;
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN:
    return a->segdes == b->segdes;
  case SOAC_FILTER:
  case SOAC_PARTITION:
  case SOAC_SEG_FILTER: {
    bool space = a->kind == SOAC_SEG_FILTER ? a->segdes == b->segdes
                                            : fus_len_equal(fus_soac_space(&w->kl, a), fus_soac_space(&w->kl, b));
    return space && strcmp(predicate_text(a), predicate_text(b)) == 0;
  }
  default:
    return false;
  }
}

/* Appends thunk 'src' to 't', its parameters read as 'to': its lets, and
   its results, as lets too where 'as_lets' (so that they come before
   lets appended after them, as their evaluation did). */
static void append_thunk(Rw *w, LcuThunk *t, const LcuThunk *src, const Vec *to, bool as_lets) {
  PtrMap ren = {0};
  for (int i = 0; i < src->params.len; i++)
    ptrmap_put(&ren, src->params.data[i], to->data[i]);
  copy_lets(w, t, src, &ren);
  for (int i = 0; i < src->body.len; i++) {
    const LcuExp *e = src->body.data[i];
    LcuExp *c = lcu_copy_exp(w->p, e, &ren);
    if (as_lets) {
      LcuVar *v = fresh(w, e->type, "r");
      lcu_thunk_let(t, v, c);
      c = lcu_exp_var(e->loc, v);
    }
    lcu_thunk_return(t, c);
  }
}

/* Thunks 'a' then 'b' as one: a's work all before b's. */
static void append_pair(Rw *w, LcuThunk *t, const LcuThunk *a, const Vec *ato, const LcuThunk *b, const Vec *bto) {
  append_thunk(w, t, a, ato, b->lets.len > 0);
  append_thunk(w, t, b, bto, false);
}

/* The pull of 'a' then of 'b', on one new index; a's values as lets
   too where 'a_as_lets' (so that its work stays first whatever order
   the values are listed in after). */
static LcuThunk *pull_pair_as(Rw *w, const LcuSoac *a, const LcuSoac *b, bool a_as_lets) {
  LcuThunk *t = lcu_thunk_new();
  Vec to = {0};
  if (a->kind != SOAC_ONCE) {
    LcuVar *i = fresh(w, FB_INT, "i");
    vec_push(&t->params, i);
    vec_push(&to, i);
  }
  append_thunk(w, t, a->pull, &to, a_as_lets || b->pull->lets.len > 0);
  append_thunk(w, t, b->pull, &to, false);
  lcu_fill_using(t);
  return t;
}

static LcuThunk *pull_pair(Rw *w, const LcuSoac *a, const LcuSoac *b) { return pull_pair_as(w, a, b, false); }

/* REDUCE's and SCAN's operators side by side: the accumulators of 'a',
   then of 'b', then the values of 'a', then of 'b'. */
static LcuThunk *operator_pair(Rw *w, const LcuSoac *a, const LcuSoac *b) {
  LcuThunk *t = lcu_thunk_new();
  int ka = a->pull->body.len, kb = b->pull->body.len;
  Vec na = {0}, nb = {0}; /* the new parameters, in the order of each old operator's */
  for (int i = 0; i < 2 * ka; i++)
    vec_push(&na, lcu_copy_var(w->p, a->second->params.data[i]));
  for (int i = 0; i < 2 * kb; i++)
    vec_push(&nb, lcu_copy_var(w->p, b->second->params.data[i]));
  for (int i = 0; i < ka; i++)
    vec_push(&t->params, na.data[i]);
  for (int i = 0; i < kb; i++)
    vec_push(&t->params, nb.data[i]);
  for (int i = 0; i < ka; i++)
    vec_push(&t->params, na.data[ka + i]);
  for (int i = 0; i < kb; i++)
    vec_push(&t->params, nb.data[kb + i]);
  append_pair(w, t, a->second, &na, b->second, &nb);
  lcu_fill_using(t);
  return t;
}

/* One predicate for both: 'a's, on the first of the values. */
static LcuThunk *predicate_pair(Rw *w, const LcuSoac *a, const LcuSoac *b) {
  LcuThunk *t = lcu_thunk_new();
  Vec na = {0};
  for (int i = 0; i < a->second->params.len; i++) {
    LcuVar *v = lcu_copy_var(w->p, a->second->params.data[i]);
    vec_push(&na, v);
    vec_push(&t->params, v);
  }
  for (int i = 0; i < b->second->params.len; i++)
    vec_push(&t->params, lcu_copy_var(w->p, b->second->params.data[i]));
  append_thunk(w, t, a->second, &na, false);
  lcu_fill_using(t);
  return t;
}

static void rename_in_kernel(Rw *w, const LcuVar *from, LcuVar *to) {
  for (int i = 0; i < nsoacs(w); i++) {
    LcuSoac *s = soac_at(w, i);
    if (s->segdes == from)
      s->segdes = to;
    for (int a = 0; a < s->args.len; a++)
      if (s->args.data[a] == from)
        s->args.data[a] = to;
  }
  for (int i = 0; i < w->k->results.len; i++)
    if (w->k->results.data[i] == from)
      w->k->results.data[i] = to;
}

/* The results of 'a', then of 'b', as the results of 's'. */
static void results_of_pair(LcuSoac *s, const LcuSoac *a, const LcuSoac *b) {
  s->results = (Vec){0};
  for (int i = 0; i < a->results.len; i++)
    vec_push(&s->results, a->results.data[i]);
  for (int i = 0; i < b->results.len; i++)
    vec_push(&s->results, b->results.data[i]);
}

static LcuSoac *combine(Rw *w, const LcuSoac *a, const LcuSoac *b) {
  LcuSoac *s = NEW(LcuSoac);
  *s = *a;
  s->pull = pull_pair(w, a, b);
  s->results = (Vec){0};
  s->identity = (Vec){0};
  int ka = a->pull->body.len, kb = b->pull->body.len;
  switch (a->kind) {
  case SOAC_REDUCE:
  case SOAC_SCAN:
  case SOAC_SEG_REDUCE:
  case SOAC_SEG_SCAN:
    s->second = operator_pair(w, a, b);
    for (int i = 0; i < ka; i++)
      vec_push(&s->identity, a->identity.data[i]);
    for (int i = 0; i < kb; i++)
      vec_push(&s->identity, b->identity.data[i]);
    break;
  case SOAC_FILTER:
  case SOAC_PARTITION:
  case SOAC_SEG_FILTER:
    s->second = predicate_pair(w, a, b);
    break;
  default:
    s->second = NULL;
  }
  /* the results, in the layout of lcu.h (ORDER LCU RESULTS) */
  if (a->kind == SOAC_PARTITION) {
    for (int g = 0; g < 2; g++) {
      for (int i = 0; i < ka; i++)
        vec_push(&s->results, a->results.data[g * ka + i]);
      for (int i = 0; i < kb; i++)
        vec_push(&s->results, b->results.data[g * kb + i]);
    }
  } else if (a->kind == SOAC_SEG_FILTER) {
    for (int i = 0; i < ka; i++)
      vec_push(&s->results, a->results.data[i]);
    for (int i = 0; i < kb; i++)
      vec_push(&s->results, b->results.data[i]);
    vec_push(&s->results, a->results.data[ka]);
  } else {
    results_of_pair(s, a, b);
  }
  return s;
}

/* Where SOACs a < b may become one: at b (*at_b: nothing from a to b
   reads a's results, transitively) or at a (b reads nothing between
   them), neither moving past a SOAC that can fail where the work moved
   can fail ('a_fails', 'b_fails': whether a's or b's work, as the one
   SOAC does it, can fail).  False if b depends on a or neither place
   holds.  'dep': room for the SOACs up to b. */
static bool pair_place(const Rw *w, int a, int b, bool a_fails, bool b_fails, bool *dep, bool *at_b) {
  for (int i = a; i <= b; i++) {
    dep[i] = i == a;
    for (int j = a; j < i && !dep[i]; j++)
      dep[i] = dep[j] && reads_results_of(soac_at(w, i), soac_at(w, j));
  }
  if (dep[b])
    return false;
  const LcuSoac *B = soac_at(w, b);
  bool to_b = true, to_a = true;
  for (int i = a + 1; i < b; i++) {
    const LcuSoac *s = soac_at(w, i);
    to_b &= !dep[i] && !(a_fails && fails(w, s));
    to_a &= !reads_results_of(B, s) && !(b_fails && fails(w, s));
  }
  *at_b = to_b;
  return to_a || to_b;
}

/* SOAC 's', the one made of a < b, in the place pair_place chose. */
static void put_pair(Rw *w, int a, int b, bool at_b, LcuSoac *s) {
  if (at_b) {
    w->k->soacs.data[b] = s;
    remove_soac(w, a);
  } else {
    w->k->soacs.data[a] = s;
    remove_soac(w, b);
  }
}

static bool rule_side_by_side(Rw *w) {
  int n = nsoacs(w);
  bool *dep = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int a = 0; a < n; a++) {
    const LcuSoac *A = soac_at(w, a);
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *B = soac_at(w, b);
      bool at_b;
      if (!side_by_side(w, A, B) || !pair_place(w, a, b, fails(w, A), fails(w, B), dep, &at_b))
        continue;
      LcuSoac *s = combine(w, A, B);
      if (fails(w, A) && fails(w, B) && !keeps_order(w, s))
        continue;
      if (A->kind == SOAC_SEG_FILTER)
        rename_in_kernel(w, B->results.data[B->pull->body.len], A->results.data[A->pull->body.len]);
      put_pair(w, a, b, at_b, s);
      return true;
    }
  }
  return false;
}

/* ---- a MAP beside a SCAN or REDUCE (rule_map_scan, the last rule
   tried): a MAP and a SCAN (REDUCE) of one index space, neither reading
   the other, become one SCAN (REDUCE) whose map columns (lcu.h) are the
   MAP's values:
       A = MAP { i => e } n  (+)  S = SCAN { i => f } id op n
       ------------------------------------------------------
       (S, A) = SCAN { i => (f, e) } id op n maps #e
   One pass over the elements where there were two: a lifted `++`
   writes its parts' lengths and scans them (the offsets of the
   result's segments), a lifted `if` writes the flags it scans, a
   subscript's check reduces the indices it also writes.  The
   new pull does the work of the one that came first first (its values
   as lets, the SCAN's then listed first).  At most one of the two may
   fail: the SOAC then reports what that one reported (the lowest
   element's error), and so does the CUDA target, which runs the two
   apart again (lcu_scan_maps_apart), each its own part of the pull, the
   MAP first.  Both may where the MAP came first and makes every check
   of the SCAN (checks_made_by): the SCAN fails only where the MAP does,
   and the MAP's error comes first everywhere.  A MAP whose thunk calls
   a scalar loop is left alone (the GPU gives such a MAP a grid of its
   own, codegen/cuda.c).  Last, so that a MAP its readers can take
   (composition, the gathers) goes to them first. ---- */

static bool checks_made_by(const Rw *w, int d, int c);

/* Does MAP 'm' read a parameter that the run gives the result of a
   seg_ids run?  After fusion, segmap.c makes such a MAP a SEG_MAP that
   finds the segments itself, and the seg_ids run goes: a map column
   would keep it. */
static bool reads_seg_ids(const Rw *w, const LcuSoac *m) {
  for (int x = 0; x < w->k->params.len && x < w->run->args.len; x++) {
    const LcuAtom *arg = w->run->args.data[x];
    if (!arg->var || !lcu_listed(&m->pull->using, w->k->params.data[x]))
      continue;
    const LcuStmt *def = genmap_get(&w->f->def, arg->var);
    if (!def || def->kind != LS_RUN || def->kernel->soacs.len != 1)
      continue;
    const LcuSoac *d = def->kernel->soacs.data[0];
    if (d->kind == SOAC_LIBRARY && d->library == LIB_SEG_IDS)
      return true;
  }
  return false;
}

static bool scan_may_carry(const Rw *w, const LcuSoac *m, const LcuSoac *s) {
  return m->kind == SOAC_MAP && (s->kind == SOAC_SCAN || s->kind == SOAC_REDUCE) && !m->into && !s->into &&
         !lcu_thunk_calls(m->pull) && !reads_seg_ids(w, m) &&
         fus_len_equal(fus_soac_space(&w->kl, m), fus_soac_space(&w->kl, s));
}

/* The pull of 'first' then of 'second' (a MAP and a SCAN, either way
   round), on one new index, the SCAN's values listed before the MAP's. */
static LcuThunk *scan_map_pull(Rw *w, const LcuSoac *first, const LcuSoac *second) {
  bool map_first = first->kind == SOAC_MAP;
  LcuThunk *t = pull_pair_as(w, first, second, map_first);
  if (map_first) { /* the MAP's values (lets now) after the SCAN's */
    int nm = first->pull->body.len;
    Vec body = {0};
    for (int j = nm; j < t->body.len; j++)
      vec_push(&body, t->body.data[j]);
    for (int j = 0; j < nm; j++)
      vec_push(&body, t->body.data[j]);
    t->body = body;
  }
  return t;
}

static bool rule_map_scan(Rw *w) {
  int n = nsoacs(w);
  bool *dep = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int a = 0; a < n; a++) {
    const LcuSoac *A = soac_at(w, a);
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *B = soac_at(w, b);
      bool map_first = scan_may_carry(w, A, B);
      if (!map_first && !scan_may_carry(w, B, A))
        continue;
      const LcuSoac *M = map_first ? A : B, *S = map_first ? B : A;
      bool at_b;
      if (fails(w, A) && fails(w, B) && !(map_first && checks_made_by(w, b, a)))
        continue;
      if (!pair_place(w, a, b, fails(w, A), fails(w, B), dep, &at_b))
        continue;
      LcuSoac *s = NEW(LcuSoac);
      *s = *S;
      s->pull = scan_map_pull(w, A, B);
      results_of_pair(s, S, M);
      s->maps = S->maps + M->pull->body.len;
      put_pair(w, a, b, at_b, s);
      return true;
    }
  }
  return false;
}

/* ---- complementary FILTERs: two FILTERs of one index space, one
   testing not(...) of what the other tests, are a PARTITION (the split
   of the library's `split`, [__pack(v, {not(f) : f in flags}),
   __pack(v, flags)], and of a user's pair of filters):
       A = FILTER { i => e } { w => p } n  (+)  B = FILTER { i => e' } { w => not(p) } n
       -------------------------------------------------------------------------------
       (A, B) = PARTITION { i => e } { w => p } n
   One pass where the two FILTERs each pulled every element, tested it
   and counted their own tiles.  The values B kept are those A's pull
   gives where p fails: each component of e' computes the same as e's
   (the same text, canon.c), or B's result of it is read nowhere (a
   flag the predicate tests: the PARTITION's others hold not-p's values,
   which no one reads).  B's pull goes, so B must not fail. ---- */

/* The FILTER whose predicate the other's negates, at 'a' or 'b' (-1: neither). */
static int positive_of(const Rw *w, int a, int b) {
  const LcuSoac *A = soac_at(w, a), *B = soac_at(w, b);
  if (fus_predicate_negates(A, NULL, B, NULL, name_by_id))
    return a;
  if (fus_predicate_negates(B, NULL, A, NULL, name_by_id))
    return b;
  return -1;
}

/* Whether Q's kept values may come from P's pull (above). */
static bool same_values(const Rw *w, const LcuSoac *P, const LcuSoac *Q) {
  if (P->pull->body.len != Q->pull->body.len)
    return false;
  for (int j = 0; j < P->pull->body.len; j++) {
    const LcuExp *e = P->pull->body.data[j], *f = Q->pull->body.data[j];
    if (e->type != f->type)
      return false;
    if (!used_from(w, 0, Q->results.data[j]))
      continue;
    if (strcmp(fus_pull_text(P, j, name_by_id, NULL), fus_pull_text(Q, j, name_by_id, NULL)) != 0)
      return false;
  }
  return true;
}

static LcuSoac *partition_of(const LcuSoac *P, const LcuSoac *Q) {
  LcuSoac *s = NEW(LcuSoac);
  *s = *P;
  s->kind = SOAC_PARTITION;
  results_of_pair(s, P, Q);
  return s;
}

static bool rule_complement(Rw *w) {
  int n = nsoacs(w);
  bool *dep = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int a = 0; a < n; a++) {
    const LcuSoac *A = soac_at(w, a);
    if (A->kind != SOAC_FILTER || A->into)
      continue;
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *B = soac_at(w, b);
      if (B->kind != SOAC_FILTER || B->into ||
          !fus_len_equal(fus_soac_space(&w->kl, A), fus_soac_space(&w->kl, B)))
        continue;
      int p = positive_of(w, a, b);
      if (p < 0)
        continue;
      const LcuSoac *P = soac_at(w, p), *Q = p == a ? B : A;
      if (fails(w, Q) || !same_values(w, P, Q))
        continue;
      /* only P's pull is evaluated: its checks move with it */
      bool at_b;
      if (!pair_place(w, a, b, p == a && fails(w, A), p == b && fails(w, B), dep, &at_b))
        continue;
      put_pair(w, a, b, at_b, partition_of(P, Q));
      return true;
    }
  }
  return false;
}

/* ---- FILTERs side by side: FILTERs (and SPLITs) of one index space,
   none reading another's results, are one SPLIT, each FILTER a class of
   it (lcu.h):
       A = FILTER { i => e } { w => p } n  (+)  B = FILTER { i => f } { u => q } n
       ---------------------------------------------------------------------------
       (A, B) = SPLIT { i => (e, f) } { (w, u) => (p, q) } [#e, #f] n
   One pass that pulls each element once and counts every class, where
   the FILTERs each pulled every element and counted their own tiles
   (quicksort's lesser, equal and greater; a FILTER and its complement
   are a PARTITION first, two FILTERs of one predicate one FILTER, by the
   rules above, which come first).  As for the SOACs side by side, the
   pair must not change the order of the checks that can fail. ---- */

/* A FILTER, or a SPLIT without counts (rule_split_counts, after this
   rule, adds them). */
static bool splittable(const LcuSoac *s) {
  return (s->kind == SOAC_FILTER || s->kind == SOAC_SPLIT) && !s->into && !s->segdes;
}

static int split_classes(const LcuSoac *s) { return s->kind == SOAC_SPLIT ? s->classes : 1; }

/* The predicates of 'a' then of 'b' as one, a's parameters first. */
static LcuThunk *split_predicate(Rw *w, const LcuSoac *a, const LcuSoac *b) {
  LcuThunk *t = lcu_thunk_new();
  Vec na = {0}, nb = {0};
  for (int i = 0; i < a->second->params.len; i++)
    vec_push(&na, lcu_copy_var(w->p, a->second->params.data[i]));
  for (int i = 0; i < b->second->params.len; i++)
    vec_push(&nb, lcu_copy_var(w->p, b->second->params.data[i]));
  for (int i = 0; i < na.len; i++)
    vec_push(&t->params, na.data[i]);
  for (int i = 0; i < nb.len; i++)
    vec_push(&t->params, nb.data[i]);
  append_pair(w, t, a->second, &na, b->second, &nb);
  lcu_fill_using(t);
  return t;
}

static LcuSoac *split_of(Rw *w, const LcuSoac *a, const LcuSoac *b) {
  int ca = split_classes(a), cb = split_classes(b);
  int widths[LCU_SPLIT_MAX];
  for (int c = 0; c < ca; c++)
    widths[c] = a->kind == SOAC_SPLIT ? a->widths[c] : a->pull->body.len;
  for (int c = 0; c < cb; c++)
    widths[ca + c] = b->kind == SOAC_SPLIT ? b->widths[c] : b->pull->body.len;
  LcuSoac *s = lcu_soac_split(a->loc, pull_pair(w, a, b), split_predicate(w, a, b), ca + cb, widths, a->size);
  results_of_pair(s, a, b);
  return s;
}

static bool rule_split(Rw *w) {
  int n = nsoacs(w);
  bool *dep = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int a = 0; a < n; a++) {
    const LcuSoac *A = soac_at(w, a);
    if (!splittable(A))
      continue;
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *B = soac_at(w, b);
      if (!splittable(B) || split_classes(A) + split_classes(B) > LCU_SPLIT_MAX ||
          !fus_len_equal(fus_soac_space(&w->kl, A), fus_soac_space(&w->kl, B)))
        continue;
      bool at_b;
      if (!pair_place(w, a, b, fails(w, A), fails(w, B), dep, &at_b))
        continue;
      LcuSoac *s = split_of(w, A, B);
      if (fails(w, A) && fails(w, B) && !keeps_order(w, s))
        continue;
      put_pair(w, a, b, at_b, s);
      return true;
    }
  }
  return false;
}

/* ---- a SPLIT's counts: a SEG_REDUCE that sums, over a sd of the
   FILTER's or SPLIT's elements, btoi of its classes' flags (a flattened
   filter's lengths, one a segment), becomes the SPLIT's counts:
       S = SPLIT { i => e } { w => (p1, ..., pc) } ws n
       R = SEG_REDUCE { i => (btoi(p_a), ..., btoi(p_b)) } (0, ..., 0) { + ... } sd
       ------------------------------------------------------------------
       (S, counts1, ..., countsc) = SPLIT { i => e } { w => (p1, ..., pc) } ws n counts sd
   R's results are the counts of its classes; the counts of the others
   are read by nothing.  A FILTER is a SPLIT of one class here.  One
   pass where R pulled and tested every element again.  Legality: each
   of R's components has the text of btoi of a class's flag (canon.c,
   the predicate's parameters read as the pull's values), each class at
   most once; R's space is S's (sd's total is n); the pair goes to S's
   place or R's as side by side's pairs go (pair_place), R's work as
   unable to fail: it computes what S's predicate computes, at the same
   elements, so that it fails only where S fails.  Where R came first,
   its own error would have come first: there R must not fail. ---- */

static bool rule_split_counts(Rw *w) {
  int n = nsoacs(w);
  bool *dep = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *A = soac_at(w, a), *B = soac_at(w, b);
      int class_of[LCU_SPLIT_MAX];
      bool s_first = fus_counted_classes(A, NULL, B, NULL, name_by_id, class_of);
      if (!s_first && !fus_counted_classes(B, NULL, A, NULL, name_by_id, class_of))
        continue;
      const LcuSoac *S = s_first ? A : B, *R = s_first ? B : A;
      if (!fus_len_equal(fus_soac_space(&w->kl, R), fus_soac_space(&w->kl, S)))
        continue;
      /* R's work goes; before S, it must not fail (its error came first) */
      if (!s_first && fails(w, R))
        continue;
      bool at_b;
      if (!pair_place(w, a, b, s_first && fails(w, S), !s_first && fails(w, S), dep, &at_b))
        continue;
      int nc = split_classes(S), one = S->pull->body.len;
      LcuSoac *t = lcu_soac_split(S->loc, S->pull, S->second, nc, S->kind == SOAC_SPLIT ? S->widths : &one, S->size);
      t->segdes = R->segdes;
      LcuVar *counts[LCU_SPLIT_MAX] = {NULL};
      for (int j = 0; j < R->results.len; j++)
        counts[class_of[j]] = R->results.data[j];
      for (int i = 0; i < S->results.len; i++)
        vec_push(&t->results, S->results.data[i]);
      for (int c = 0; c < nc; c++)
        vec_push(&t->results, counts[c] ? counts[c] : lcu_new_var(w->p, lcu_vec(FB_INT), "counts"));
      put_pair(w, a, b, at_b, t);
      return true;
    }
  return false;
}

/* ---- a SPLIT's offsets: a SCAN that sums, at its own index, counts of
   a SPLIT with counts (the offsets of a flattened filter's segdes,
   which the filter's lifted `[lesser, greater]` or `++` reads) becomes
   the SPLIT's offsets:
       (S, n1, ..., nc) = SPLIT { i => e } { w => p } ws n counts sd
       O = SCAN { j => (n_a[j], ..., n_b[j]) } (0, ..., 0) { + ... } #n_a
       ------------------------------------------------------------------
       (S, n1, ..., nc, o1, ..., oc) = SPLIT { i => e } { w => p } ws n counts sd offsets
   O's results are the offsets of its classes; the others are read by
   nothing.  The split finds each class's offset in each segment to
   place its elements (rtg::split_kernel's E_c(s)); a SCAN of the counts
   was a launch of its own, and a pass of the interpreter.  Legality:
   O has no map columns, each component reads a count of a distinct
   class at O's index and nothing else, O's space is the segments of
   sd; O cannot fail, so the SPLIT, at S's place, gives its results
   before the SOACs between S and O as well. ---- */

/* The class of the count of SPLIT 's' (with counts) that SCAN 'o''s
   component j reads at o's index, and nothing else; -1 if it reads
   anything else. */
static int count_read(const LcuSoac *s, const LcuSoac *o, int j) {
  const LcuVar *i = fus_index_param(o, o->pull);
  const LcuExp *e = o->pull->body.data[j];
  int nv = s->pull->body.len;
  for (int c = 0; c < s->classes; c++)
    if (own_read(e, i, s->results.data[nv + c]))
      return c;
  return -1;
}

static bool rule_split_offsets(Rw *w) {
  int n = nsoacs(w);
  for (int a = 0; a < n; a++) {
    const LcuSoac *S = soac_at(w, a);
    if (S->kind != SOAC_SPLIT || !S->segdes || S->offsets)
      continue;
    for (int b = a + 1; b < n; b++) {
      const LcuSoac *O = soac_at(w, b);
      if (O->kind != SOAC_SCAN || O->maps || O->pull->lets.len || lcu_pull_takes_segment(O) || !fus_int_sums(O) ||
          !fus_len_equal(fus_soac_space(&w->kl, O), fus_kernel_len(&w->kl, S->segdes)))
        continue;
      int k = O->pull->body.len, nc = S->classes, nv = S->pull->body.len;
      LcuVar *offsets[LCU_SPLIT_MAX] = {NULL};
      bool all = true;
      for (int j = 0; j < k && all; j++) {
        int c = count_read(S, O, j);
        all = c >= 0 && !offsets[c];
        if (all)
          offsets[c] = O->results.data[j];
      }
      if (!all)
        continue;
      LcuSoac *t = NEW(LcuSoac);
      *t = *S;
      t->offsets = true;
      t->results = (Vec){0};
      for (int i = 0; i < nv + nc; i++)
        vec_push(&t->results, S->results.data[i]);
      for (int c = 0; c < nc; c++)
        vec_push(&t->results, offsets[c] ? offsets[c] : lcu_new_var(w->p, lcu_vec(FB_INT), "offsets"));
      w->k->soacs.data[a] = t;
      remove_soac(w, b);
      return true;
    }
  }
  return false;
}

/* ---- dead results: a SOAC nothing reads goes when it cannot fail, and
   so does a MAP's result column that nothing reads.  A MAP whose only
   check is of its size goes too when another SOAC of the kernel makes
   the same check, before it or with nothing that can fail between
   (dist's error, at the same run). ---- */

static bool checked_elsewhere(const Rw *w, int i) {
  const LcuSoac *s = soac_at(w, i);
  if (s->kind != SOAC_MAP || !s->size.var || (fus_soac_failures(&w->kl, s) & ~FUS_FAIL_RUN))
    return false;
  for (int j = 0; j < nsoacs(w); j++) {
    if (j == i || soac_at(w, j)->size.var != s->size.var)
      continue;
    if (j < i || !any_fails_between(w, i, j))
      return true;
  }
  return false;
}

/* A dead MAP goes too where another SOAC of the kernel over its index
   space computes each of its operations that can fail, at every index and
   not under an `if`, with nothing that can fail between them: whichever
   runs first, an element that fails in the MAP fails there too, at the
   same operation and location.  (Where the other also fails elsewhere,
   first, the statement has two errors: the caveat below.)  n-body's
   sums of the three components of a force left the MAP of the last
   one for its checks: a second pass over n^2 elements.

   Operations are compared by value numbers: the two index parameters are
   one value, and so are equal operations (with their locations, which
   their errors name) of equal operands. */
typedef struct Numbering {
  Map keys;     /* an expression's key text -> its number */
  PtrMap names; /* a thunk parameter or let-bound name -> its value's number */
  PtrMap exps;  /* an expression -> its number */
  Buf key;
  intptr_t next;
} Numbering;

static intptr_t number_exp(Numbering *nb, const LcuExp *e) {
  intptr_t known = (intptr_t)ptrmap_get(&nb->exps, e);
  if (known)
    return known;
  if (e->kind == LE_LET) {
    ptrmap_put(&nb->names, e->var, (void *)number_exp(nb, e->args[0]));
    intptr_t n = number_exp(nb, e->args[1]);
    ptrmap_put(&nb->exps, e, (void *)n);
    return n;
  }
  if (e->kind == LE_VAR && ptrmap_get(&nb->names, e->var)) {
    intptr_t n = (intptr_t)ptrmap_get(&nb->names, e->var);
    ptrmap_put(&nb->exps, e, (void *)n);
    return n;
  }
  intptr_t args[8];
  int nargs = e->nargs < 0 ? 0 : e->nargs;
  if (nargs > 8)
    return ++nb->next; /* (a call of many arguments: a value of its own) */
  for (int k = 0; k < nargs; k++)
    args[k] = number_exp(nb, e->args[k]);
  Buf *b = &nb->key;
  b->len = 0;
  buf_printf(b, "%d/%d/%d/%d/%d", e->kind, e->type, e->op, e->in_range, e->var ? e->var->id : -1);
  if (e->kind == LE_CONST)
    fus_canon_atom(b, &(LcuAtom){NULL, e->constant});
  if (e->kind == LE_CALL)
    buf_printf(b, "/%s", e->callee->name);
  lcu_loc_key(b, e->loc);
  buf_printf(b, "/%s(", e->lib_fn ? e->lib_fn : "");
  for (int k = 0; k < nargs; k++)
    buf_printf(b, "%ld,", (long)args[k]);
  intptr_t n = (intptr_t)map_get(&nb->keys, b->data);
  if (!n) {
    n = ++nb->next;
    map_put(&nb->keys, xstrdup(b->data), (void *)n);
  }
  ptrmap_put(&nb->exps, e, (void *)n);
  return n;
}

static void number_thunk(Numbering *nb, const LcuSoac *s, const LcuThunk *t) {
  const LcuVar *i = fus_index_param(s, t);
  for (int p = 0; p < t->params.len; p++) /* the index is one value; the others each their own */
    ptrmap_put(&nb->names, t->params.data[p], (void *)(t->params.data[p] == i ? (intptr_t)1 : ++nb->next));
  for (int k = 0; k < t->lets.len; k++) {
    const LcuLet *l = t->lets.data[k];
    ptrmap_put(&nb->names, l->var, (void *)number_exp(nb, l->value));
  }
  for (int k = 0; k < t->body.len; k++)
    number_exp(nb, t->body.data[k]);
}

/* Can expression 'e''s own operation fail, whatever its operands? */
static bool may_fail_itself(const LcuExp *e) {
  switch (e->kind) {
  case LE_INDEX:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
  case LE_BOUND:
  case LE_CALL:
    return true;
  case LE_OP:
    return !fus_exp_op_safe(e);
  default:
    return false;
  }
}

/* Adds to 'out' the numbers of the operations of 'e' that can fail
   ('all': wherever they stand; else only those computed whatever the
   `if`s decide). */
static void note_failing(Numbering *nb, const LcuExp *e, bool all, PtrMap *out) {
  if (may_fail_itself(e))
    ptrmap_put(out, (void *)number_exp(nb, e), (void *)1);
  int n = e->kind == LE_IF && !all ? 1 : e->nargs < 0 ? 0 : e->nargs;
  for (int k = 0; k < n; k++)
    note_failing(nb, e->args[k], all, out);
}

static void note_thunk_failing(Numbering *nb, const LcuThunk *t, bool all, PtrMap *out) {
  for (int k = 0; k < lcu_thunk_nexps(t); k++)
    note_failing(nb, lcu_thunk_exp(t, k), all, out);
}

static bool checks_made_by(const Rw *w, int d, int c) {
  const LcuSoac *D = soac_at(w, d), *C = soac_at(w, c);
  if (!C->pull || !fus_index_param(C, C->pull) || C->kind == SOAC_ONCE ||
      !fus_len_equal(fus_soac_space(&w->kl, D), fus_soac_space(&w->kl, C)))
    return false;
  if ((fus_soac_failures(&w->kl, D) & FUS_FAIL_RUN) && (!D->size.var || C->size.var != D->size.var))
    return false;
  if (c > d && any_fails_between(w, d, c))
    return false;
  Numbering nb = {0};
  nb.next = 1;
  number_thunk(&nb, D, D->pull);
  number_thunk(&nb, C, C->pull);
  PtrMap mine = {0}, theirs = {0};
  note_thunk_failing(&nb, D->pull, true, &mine);
  note_thunk_failing(&nb, C->pull, false, &theirs);
  for (int64_t k = 0; k < mine.cap; k++)
    if (mine.entries[k].key && !ptrmap_get(&theirs, mine.entries[k].key))
      return false;
  return true;
}

static bool checked_by_another(const Rw *w, int i) {
  const LcuSoac *s = soac_at(w, i);
  if (s->kind != SOAC_MAP || !s->pull || (fus_soac_failures(&w->kl, s) & ~(FUS_FAIL_THUNK | FUS_FAIL_RUN)))
    return false;
  for (int j = 0; j < nsoacs(w); j++)
    if (j != i && checks_made_by(w, i, j))
      return true;
  return false;
}

static bool rule_dead(Rw *w) {
  for (int i = nsoacs(w) - 1; i >= 0; i--) {
    LcuSoac *s = soac_at(w, i);
    bool used = false;
    for (int r = 0; r < s->results.len; r++)
      used |= used_from(w, i + 1, s->results.data[r]);
    if (!used && (!fails(w, s) || checked_elsewhere(w, i) || checked_by_another(w, i))) {
      remove_soac(w, i);
      return true;
    }
    if (s->kind != SOAC_MAP || s->results.len < 2)
      continue;
    for (int r = 0; r < s->results.len; r++) {
      if (used_from(w, i + 1, s->results.data[r]) || fus_exp_may_fail(&w->kl, s, s->pull, s->pull->body.data[r]))
        continue;
      LcuSoac *c = NEW(LcuSoac);
      *c = *s;
      c->results = (Vec){0};
      LcuThunk *t = lcu_thunk_new();
      t->params = s->pull->params;
      t->lets = s->pull->lets;
      for (int k = 0; k < s->results.len; k++)
        if (k != r) {
          vec_push(&c->results, s->results.data[k]);
          lcu_thunk_return(t, s->pull->body.data[k]);
        }
      lcu_fill_using(t);
      c->pull = t;
      w->k->soacs.data[i] = c;
      return true;
    }
  }
  return false;
}

/* ---- the kernel's parameters: those nothing reads go, with their
   arguments; every thunk's `using` is what it reads; a thunk's lets
   that nothing reads go when they cannot fail. ---- */

typedef struct LetCtx {
  const Rw *w;
  const LcuSoac *s;
  const LcuThunk *t;
} LetCtx;

static bool let_may_fail(const LcuLet *l, void *ctx) {
  const LetCtx *c = ctx;
  return fus_exp_may_fail(&c->w->kl, c->s, c->t, l->value);
}

static void drop_dead_lets(Rw *w, const LcuSoac *s, LcuThunk *t) {
  if (!t || !t->lets.len)
    return;
  bool *needed = xmalloc_atomic(sizeof(bool) * (size_t)t->lets.len);
  LetCtx c = {w, s, t};
  lcu_thunk_needed_lets(t, 0, t->body.len, let_may_fail, &c, needed);
  int out = 0;
  for (int i = 0; i < t->lets.len; i++)
    if (needed[i])
      t->lets.data[out++] = t->lets.data[i];
  t->lets.len = out;
}

static void finish(Rw *w) {
  for (int i = 0; i < nsoacs(w); i++) {
    LcuSoac *s = soac_at(w, i);
    drop_dead_lets(w, s, s->pull);
    drop_dead_lets(w, s, s->second);
    if (s->pull)
      lcu_fill_using(s->pull);
    if (s->second)
      lcu_fill_using(s->second);
  }
  int out = 0;
  for (int i = 0; i < w->k->params.len; i++) {
    LcuVar *q = w->k->params.data[i];
    bool read = is_result(w->k, q);
    for (int j = 0; j < nsoacs(w) && !read; j++)
      read = soac_reads(soac_at(w, j), q);
    if (!read)
      continue;
    w->k->params.data[out] = q;
    w->run->args.data[out] = w->run->args.data[i];
    out++;
  }
  w->k->params.len = out;
  w->run->args.len = out;
}

void fus_rewrite(LcuProgram *p, LcuStmt *run, FusFacts *f) {
  Rw w = {.p = p, .k = run->kernel, .run = run, .f = f, .places = run->kernel->soacs.len};
  for (int i = 0; i < nsoacs(&w); i++) {
    tag_thunk(soac_at(&w, i)->pull, i + 1);
    tag_thunk(soac_at(&w, i)->second, i + 1);
  }
  for (int step = 0; step < 10000; step++) {
    refresh(&w);
    if (!rule_dead(&w) && !rule_compose(&w) && !rule_compose_gather(&w) && !rule_filter_reduce(&w) &&
        !rule_filter_filter(&w) && !rule_complement(&w) && !rule_side_by_side(&w) && !rule_split(&w) &&
        !rule_split_counts(&w) && !rule_split_offsets(&w) && !rule_map_scan(&w))
      break;
  }
  finish(&w);
  fus_release_kernel_lens(&w.kl);
}
