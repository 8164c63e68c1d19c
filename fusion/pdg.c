/*
 * pdg.c: the program-dependence graph of one control region, section 4.1
 * of the λcu paper: the region is a CPU-level block, its nodes are the
 * block's `run`s, its edges the data dependencies between them.
 *
 * The block's other statements are not nodes, but they bound fusion: a
 * run whose result the host reads (a scalar operation on a REDUCE's
 * result, an `if` on it, a length of a FILTER's result) must finish
 * before the host statement, and a run that depends on the host's answer
 * must wait for it.  So a path from run u to run v through a host
 * statement is a preventing edge: u and v can never share a kernel.
 * Statements that can fail or have effects (facts.c) keep their order:
 * each is joined to the next such statement in the block, so that two
 * runs that can fail are ordered (an order edge: one kernel may hold
 * both, in order), and a run that can fail never crosses a host error
 * check or a print (a preventing edge through it).
 *
 * Each data edge is fusible when one of the vertical rules applies to
 * the producer's and the consumer's SOACs (rules.c rewrites them):
 *   MAP -> any SOAC reading the MAP's results at its own index, where the
 *          read is in range (the consumer's index space is the MAP's);
 *          or anywhere, where the MAP is cheap and cannot fail
 *          (MAP-gather: rules.c computes it where it is read);
 *   FILTER -> REDUCE, FILTER -> FILTER and their SEG_ forms, where the
 *          consumer reads the filtered values at its own index and
 *          nothing else at that index;
 *   REDUCE -> ONCE (the ONCE runs after the reduction, in its kernel).
 * Any other data edge is preventing: the consumer needs the whole result
 * first (a REDUCE's value, a FILTER's positions, a gather of a MAP that
 * can fail or costs more than a read, a library kernel).
 */
#include "fusion.h"

/* ---- statements ---- */

static void push_int(Vec *v, int i) { vec_push(v, (void *)(intptr_t)i); }
static int int_at(const Vec *v, int k) { return (int)(intptr_t)v->data[k]; }

static void atom_reads(Vec *reads, const Vec *atoms) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (a->var)
      vec_push(reads, a->var);
  }
}

/* Every variable statement 's' reads, its nested blocks included. */
static void stmt_reads(Vec *reads, const LcuStmt *s);

static void block_reads(Vec *reads, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++)
    stmt_reads(reads, b->stmts.data[i]);
  atom_reads(reads, &b->results);
}

static void stmt_reads(Vec *reads, const LcuStmt *s) {
  atom_reads(reads, &s->args);
  const LcuBlock *nested[3] = {s->then, s->els, s->body};
  for (int k = 0; k < 3; k++)
    if (nested[k])
      block_reads(reads, nested[k]);
}

/* ---- how a consumer uses a kernel parameter ---- */

enum {
  USE_OWN = 1,      /* q[i] at the SOAC's own index, in range */
  USE_OTHER = 2,    /* q[e] elsewhere (a gather), or out of range */
  USE_LENGTH = 4,   /* #q in a thunk, or the SOAC's size #q */
  USE_SCALAR = 8,   /* q read as a scalar in a thunk */
  USE_WHOLE = 16,   /* q as a sd, `into`, a library argument, a size var */
};

static bool own_read(const LcuExp *e, const LcuVar *i) {
  return i && e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && e->args[0]->var == i;
}

static int exp_uses(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e, const LcuVar *q) {
  int u = 0;
  for (int k = 0; k < e->nargs; k++)
    u |= exp_uses(kl, s, t, e->args[k], q);
  if (e->var != q || e->kind == LE_LET)
    return u;
  switch (e->kind) {
  case LE_INDEX:
    if (own_read(e, fus_index_param(s, t)) && fus_len_equal(fus_kernel_len(kl, q), fus_soac_space(kl, s)))
      return u | USE_OWN;
    return u | USE_OTHER;
  case LE_LENGTH:
    return u | (q->type.kind == LT_SEGDES ? USE_WHOLE : USE_LENGTH);
  case LE_SEG_LENGTH: /* q a sd, its offsets read */
  case LE_SEG_OFFSET:
    return u | USE_WHOLE;
  default:
    return u | USE_SCALAR;
  }
}

static int thunk_uses(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuVar *q) {
  int u = 0;
  if (t)
    for (int i = 0; i < lcu_thunk_nexps(t); i++)
      u |= exp_uses(kl, s, t, lcu_thunk_exp(t, i), q);
  return u;
}

/* How SOAC 's' uses kernel variable 'q'. */
static int soac_uses(const FusKernelLens *kl, const LcuSoac *s, const LcuVar *q) {
  int u = thunk_uses(kl, s, s->pull, q) | thunk_uses(kl, s, s->second, q);
  if (s->size.length == q)
    u |= USE_LENGTH;
  if (s->size.var == q || s->segdes == q || s->into == q)
    u |= USE_WHOLE;
  for (int i = 0; i < s->args.len; i++)
    if (s->args.data[i] == q)
      u |= USE_WHOLE;
  return u;
}

/* True if the pull thunk of 's' reads its index only in own-index reads
   of the parameters in 'qs' (a FILTER's results passed to it). */
static bool index_only_in(const LcuExp *e, const LcuVar *i, const Vec *qs) {
  if (e->kind == LE_INDEX && e->args[0]->kind == LE_VAR && e->args[0]->var == i) {
    for (int k = 0; k < qs->len; k++)
      if (qs->data[k] == e->var)
        return true;
    return false;
  }
  if (e->kind == LE_VAR && e->var == i)
    return false;
  for (int k = 0; k < e->nargs; k++)
    if (!index_only_in(e->args[k], i, qs))
      return false;
  return true;
}

static bool pull_index_only_in(const LcuSoac *s, const Vec *qs) {
  const LcuVar *i = fus_index_param(s, s->pull);
  if (!i || s->pull->lets.len)
    return false;
  for (int k = 0; k < s->pull->body.len; k++)
    if (!index_only_in(s->pull->body.data[k], i, qs))
      return false;
  return true;
}

/* True if the pull of 's' is exactly (qs[0][i], ..., qs[k-1][i]). */
static bool pull_is_identity(const LcuSoac *s, const Vec *qs) {
  const LcuVar *i = fus_index_param(s, s->pull);
  if (!i || s->pull->body.len != qs->len || s->pull->lets.len)
    return false;
  for (int k = 0; k < qs->len; k++) {
    const LcuExp *e = s->pull->body.data[k];
    if (!own_read(e, i) || e->var != qs->data[k])
      return false;
  }
  return true;
}

/* ---- edges ---- */

/* The edge between two nodes, looked up by the pair (from, to): a hash
   table of the edges there are, not an n x n matrix of the pairs there
   could be (a literal nested 100 deep made a region of 50 000 runs: the
   matrix asked for 10 GB, and its index overflowed an int).  Kept from
   region to region and emptied by a new generation, as GenMap is; it
   holds no pointers. */
typedef struct EdgeSlot {
  uint64_t key; /* from << 32 | to */
  int edge;     /* the edge's index in the region + 1 */
  uint32_t generation;
} EdgeSlot;

typedef struct EdgeIndex {
  EdgeSlot *slots;
  int64_t cap, used;
  uint32_t generation;
} EdgeIndex;

static uint64_t edge_key(int from, int to) { return (uint64_t)(uint32_t)from << 32 | (uint32_t)to; }

static void edge_index_clear(EdgeIndex *x) {
  x->used = 0;
  if (++x->generation == 0) { /* after 2^32 regions: clear once */
    for (int64_t i = 0; i < x->cap; i++)
      x->slots[i].generation = 0;
    x->generation = 1;
  }
}

/* The slot of (from, to): its edge + 1, 0 if none; added if 'insert'. */
static int *edge_slot(EdgeIndex *x, int from, int to, bool insert) {
  if (insert && 2 * (x->used + 1) > x->cap) {
    EdgeIndex bigger = {NULL, x->cap ? 2 * x->cap : 64, 0, 1};
    bigger.slots = xmalloc_atomic(sizeof(EdgeSlot) * (size_t)bigger.cap);
    for (int64_t i = 0; i < bigger.cap; i++)
      bigger.slots[i].generation = 0;
    for (int64_t i = 0; i < x->cap; i++) {
      const EdgeSlot *e = &x->slots[i];
      if (e->generation == x->generation)
        *edge_slot(&bigger, (int)(e->key >> 32), (int)(uint32_t)e->key, true) = e->edge;
    }
    *x = bigger;
  }
  static int none;
  none = 0;
  if (!x->cap)
    return &none;
  uint64_t key = edge_key(from, to), mask = (uint64_t)x->cap - 1;
  for (uint64_t i = ptr_hash((const void *)(uintptr_t)key) & mask;; i = (i + 1) & mask) {
    EdgeSlot *e = &x->slots[i];
    if (e->generation != x->generation) {
      if (!insert)
        return &none;
      *e = (EdgeSlot){key, 0, x->generation};
      x->used++;
      return &e->edge;
    }
    if (e->key == key)
      return &e->edge;
  }
}

typedef struct Builder {
  FusRegion *r;
  EdgeIndex *edge_at;
} Builder;

static FusEdge *add_edge(Builder *b, int from, int to, FusEdgeKind kind, const char *why, LcuVar *var) {
  int *slot = edge_slot(b->edge_at, from, to, false);
  if (*slot) {
    FusEdge *e = b->r->edges.data[*slot - 1];
    /* a preventing reason wins over a fusible or order one */
    if (kind == FE_PREVENTING && e->kind != FE_PREVENTING) {
      e->kind = kind;
      e->why = why;
      if (var)
        e->var = var;
    } else if (kind == FE_FUSIBLE && e->kind == FE_ORDER) {
      e->kind = kind;
      e->why = why;
      e->var = var;
    }
    return e;
  }
  FusEdge *e = NEW(FusEdge);
  *e = (FusEdge){from, to, kind, why, var, -1};
  vec_push(&b->r->edges, e);
  *edge_slot(b->edge_at, from, to, true) = b->r->edges.len;
  return e;
}

/* The consumer's parameters that the run passes 'y' to. */
static Vec params_of(const FusNode *v, const LcuVar *y) {
  Vec qs = {0};
  const LcuKernel *k = v->run->kernel;
  for (int i = 0; i < v->run->args.len; i++) {
    const LcuAtom *a = v->run->args.data[i];
    if (a->var == y)
      vec_push(&qs, k->params.data[i]);
  }
  return qs;
}

/* The consumer's parameters that take any result of 'u', in the order
   of u's results (NULL where a result is not passed). */
static Vec result_params(const FusNode *u, const FusNode *v) {
  Vec out = {0};
  for (int i = 0; i < u->run->results.len; i++) {
    Vec qs = params_of(v, u->run->results.data[i]);
    vec_push(&out, qs.len ? qs.data[0] : NULL);
  }
  return out;
}

bool fus_segdes_library(const LcuSoac *s) {
  return s->kind == SOAC_LIBRARY && (s->library == LIB_MAKE_SEGDES || s->library == LIB_RANGE_SEGDES);
}

/* What the data edge u -> v is: a rule's name (fusible) or why not. */
static FusEdgeKind classify(const FusNode *u, const FusNode *v, const char **why) {
  const LcuSoac *P = u->soac, *C = v->soac;
  if (!P || !C) {
    *why = "a kernel of several SOACs";
    return FE_PREVENTING;
  }
  if (P->kind == SOAC_MAP && fus_segdes_library(C)) {
    /* the MAP that computes a segdes's lengths or ranges shares its
       kernel, ahead of it (docs/fusion.md, "A segdes beside its MAP") */
    if (fus_soac_failures(&u->lens, P) & FUS_EFFECT) {
      *why = "a MAP with an effect";
      return FE_PREVENTING;
    }
    *why = xprintf("MAP beside %s", lcu_library_name(C->library));
    return FE_FUSIBLE;
  }
  if (P->kind == SOAC_LIBRARY || C->kind == SOAC_LIBRARY) {
    *why = "a library kernel";
    return FE_PREVENTING;
  }
  Vec rp = result_params(u, v);
  Vec qs = {0}; /* the parameters taking u's results */
  int uses = 0;
  for (int i = 0; i < rp.len; i++) {
    if (!rp.data[i])
      continue;
    for (int k = 0; k < v->run->args.len; k++) {
      const LcuAtom *a = v->run->args.data[k];
      if (a->var == u->run->results.data[i]) {
        const LcuVar *q = v->run->kernel->params.data[k];
        vec_push(&qs, (void *)q);
        uses |= soac_uses(&v->lens, C, q);
      }
    }
  }
  const char *c = lcu_soac_name(C->kind);
  if (P->kind == SOAC_MAP) {
    if (uses & (USE_WHOLE | USE_SCALAR)) {
      *why = "the MAP's result read whole";
      return FE_PREVENTING;
    }
    if (uses & USE_OTHER) {
      if (fus_gatherable(P, u->failures)) {
        *why = "MAP-gather";
        return FE_FUSIBLE;
      }
      *why = "a gather of the MAP's results";
      return FE_PREVENTING;
    }
    *why = xprintf("MAP-%s", c);
    return FE_FUSIBLE;
  }
  if ((P->kind == SOAC_FILTER && (C->kind == SOAC_REDUCE || C->kind == SOAC_FILTER)) ||
      (P->kind == SOAC_SEG_FILTER && (C->kind == SOAC_SEG_REDUCE || C->kind == SOAC_SEG_FILTER))) {
    bool seg = P->kind == SOAC_SEG_FILTER;
    int nv = P->pull->body.len;
    /* the values, in order (the SEG_FILTER's sd is C's sd) */
    Vec values = {0};
    bool all = true;
    for (int i = 0; i < nv; i++) {
      vec_push(&values, rp.data[i]);
      all &= rp.data[i] != NULL;
    }
    bool sized;
    if (seg) {
      const LcuVar *sdq = rp.len > nv ? rp.data[nv] : NULL;
      sized = sdq && C->segdes == sdq;
    } else {
      sized = rp.data[0] && fus_len_equal(fus_soac_space(&v->lens, C), fus_kernel_len(&v->lens, rp.data[0]));
      for (int i = 0; i < nv && sized; i++)
        sized = rp.data[i] && fus_len_equal(fus_soac_space(&v->lens, C), fus_kernel_len(&v->lens, rp.data[i]));
    }
    bool reduce = C->kind == SOAC_REDUCE || C->kind == SOAC_SEG_REDUCE;
    if (sized && reduce && pull_index_only_in(C, &values) && !(uses & (USE_OTHER | USE_SCALAR))) {
      *why = seg ? "SEG_FILTER-SEG_REDUCE" : "FILTER-REDUCE";
      return FE_FUSIBLE;
    }
    if (sized && !reduce && all && pull_is_identity(C, &values)) {
      *why = seg ? "SEG_FILTER-SEG_FILTER" : "FILTER-FILTER";
      return FE_FUSIBLE;
    }
    *why = xprintf("%s reads the %s's positions", c, lcu_soac_name(P->kind));
    return FE_PREVENTING;
  }
  if (P->kind == SOAC_REDUCE && C->kind == SOAC_ONCE && !(uses & ~USE_SCALAR)) {
    *why = "REDUCE-ONCE";
    return FE_FUSIBLE;
  }
  *why = xprintf("%s needs the whole %s first", c, lcu_soac_name(P->kind));
  return FE_PREVENTING;
}

/* A FILTER whose kept values a MAP reads, at its own index, for a
   REDUCE alone: `sum({x * x : x in xs | x > 0.0})`.  A MAP cannot read a
   FILTER's results in one kernel by itself (classify), but once the MAP
   is composed into the REDUCE (MAP-REDUCE), FILTER-REDUCE applies: the
   three are one REDUCE, and the edge FILTER -> MAP is fusible.  Called
   once the data edges are made. */
static void filter_map_reduce(FusRegion *r) {
  for (int i = 0; i < r->edges.len; i++) {
    FusEdge *e = r->edges.data[i];
    if (e->kind != FE_PREVENTING || !e->var)
      continue;
    const FusNode *f = r->nodes.data[e->from], *m = r->nodes.data[e->to];
    if (!f->soac || f->soac->kind != SOAC_FILTER || !m->soac || m->soac->kind != SOAC_MAP || m->live_out)
      continue;
    /* the MAP reads the kept values at its own index, over as many */
    Vec rp = result_params(f, m);
    int nv = f->soac->pull->body.len, uses = 0;
    bool sized = true;
    for (int k = 0; k < rp.len; k++) {
      const LcuVar *q = rp.data[k];
      if (!q)
        continue;
      if (k >= nv) {
        sized = false; /* a FILTER result other than its values */
        break;
      }
      uses |= soac_uses(&m->lens, m->soac, q);
      sized &= fus_len_equal(fus_soac_space(&m->lens, m->soac), fus_kernel_len(&m->lens, q));
    }
    if (!sized || (uses & ~(USE_OWN | USE_LENGTH)))
      continue;
    /* ... and its results go to one REDUCE, by MAP-REDUCE */
    int to = -1;
    bool alone = true;
    for (int k = 0; k < r->edges.len && alone; k++) {
      const FusEdge *o = r->edges.data[k];
      if (o->from != m->id || !o->var)
        continue;
      const FusNode *c = r->nodes.data[o->to];
      alone = o->kind == FE_FUSIBLE && c->soac && c->soac->kind == SOAC_REDUCE && (to < 0 || to == o->to);
      to = o->to;
    }
    if (!alone || to < 0)
      continue;
    e->kind = FE_FUSIBLE;
    e->why = "FILTER-MAP-REDUCE";
  }
}

/* A SCAN that sums, at its own index, the counts that a SEG_REDUCE
   makes of a FILTER's flags (a flattened filter's segdes's offsets): a
   SCAN cannot read a SEG_REDUCE's results in one kernel by itself
   (classify), but once the FILTER and the SEG_REDUCE are a SPLIT with
   counts (rules.c, rule_split_counts), the SPLIT gives the scan too
   (rule_split_offsets), so the edge SEG_REDUCE -> SCAN is fusible where
   a FILTER or SPLIT of the region has the SEG_REDUCE's space.  Whether
   the SEG_REDUCE counts its flags shows only once their MAPs are
   composed into both (rules.c); a kernel that holds the SEG_REDUCE and
   the SCAN without such a FILTER runs them one after the other, as it
   runs any SOAC that reads another's results whole.  Called once the
   data edges are made. */
static void scan_of_counts(FusRegion *r) {
  for (int i = 0; i < r->edges.len; i++) {
    FusEdge *e = r->edges.data[i];
    if (e->kind != FE_PREVENTING || !e->var)
      continue;
    const FusNode *f = r->nodes.data[e->from], *o = r->nodes.data[e->to];
    const LcuSoac *R = f->soac, *O = o->soac;
    if (!R || R->kind != SOAC_SEG_REDUCE || !O || O->kind != SOAC_SCAN || O->maps || O->pull->lets.len ||
        !fus_int_sums(O) || !fus_int_sums(R))
      continue;
    /* each component of O is a count at O's own index, over as many */
    Vec rp = result_params(f, o);
    const LcuVar *idx = fus_index_param(O, O->pull);
    bool counts = idx != NULL;
    for (int j = 0; j < O->pull->body.len && counts; j++) {
      const LcuExp *x = O->pull->body.data[j];
      counts = own_read(x, idx);
      bool given = false;
      for (int k = 0; counts && k < rp.len; k++)
        given |= rp.data[k] == x->var;
      counts = counts && given;
    }
    for (int k = 0; counts && k < rp.len; k++)
      if (rp.data[k])
        counts = !(soac_uses(&o->lens, O, rp.data[k]) & ~(USE_OWN | USE_LENGTH)) &&
                 fus_len_equal(o->space, fus_kernel_len(&o->lens, rp.data[k]));
    if (!counts)
      continue;
    bool filter = false;
    for (int k = 0; k < r->nodes.len && !filter; k++) {
      const FusNode *s = r->nodes.data[k];
      filter = s->soac && (s->soac->kind == SOAC_FILTER || s->soac->kind == SOAC_SPLIT) && !s->soac->into &&
               !s->soac->segdes && fus_len_equal(s->space, f->space);
    }
    if (!filter)
      continue;
    e->kind = FE_FUSIBLE;
    e->why = "SEG_REDUCE-SCAN (a SPLIT's offsets)";
  }
}

/* ---- the graph ---- */

FusRegion *fus_fill_pdg(LcuProgram *p, LcuBlock *b, FusFacts *f) {
  (void)p;
  FusRegion *r = NEW(FusRegion);
  r->block = b;
  r->facts = f;
  r->method = "none";
  int m = b->stmts.len;
  /* the statements' successors: data, and the chain of effects.  The
     maps are the previous region's, emptied: regions are many, and
     each grew its maps from nothing. */
  static GenMap def_at; /* LcuVar -> statement index + 1 */
  static GenMap read_outside;
  static Vec reads; /* a statement's, one after the other */
  genmap_clear(&def_at);
  genmap_clear(&read_outside);
  Vec *succ = xmalloc(sizeof(Vec) * (size_t)(m + 1));
  int *node_of = xmalloc_atomic(sizeof(int) * (size_t)(m + 1));
  int last_effect = -1, last_check = -1;
  for (int j = 0; j < m; j++) {
    LcuStmt *s = b->stmts.data[j];
    node_of[j] = -1;
    succ[j] = (Vec){0};
    reads.len = 0;
    stmt_reads(&reads, s);
    for (int k = 0; k < reads.len; k++) {
      int i = (int)(intptr_t)genmap_get(&def_at, reads.data[k]) - 1;
      if (i >= 0 && (!succ[i].len || int_at(&succ[i], succ[i].len - 1) != j))
        push_int(&succ[i], j);
    }
    FusNode *n = NULL;
    if (s->kind == LS_RUN) {
      /* its kernel's lengths, filled once: its failures are worked out
         from them (fus_run_failures would fill them again) */
      n = NEW(FusNode);
      n->id = r->nodes.len;
      n->pos = j;
      n->run = s;
      n->soac = s->kernel->soacs.len == 1 ? s->kernel->soacs.data[0] : NULL;
      fus_fill_kernel_lens(f, s, s->kernel, &n->lens);
      n->failures = fus_run_failures_by(f, s, &n->lens);
      if (n->soac)
        n->space = fus_soac_space(&n->lens, n->soac);
      n->cluster = n->id;
      node_of[j] = n->id;
      vec_push(&r->nodes, n);
    }
    if (n ? n->failures != 0 : fus_stmt_effects(f, s)) {
      if (last_effect >= 0 && (!succ[last_effect].len || int_at(&succ[last_effect], succ[last_effect].len - 1) != j))
        push_int(&succ[last_effect], j);
      last_effect = j;
    }
    /* a run after a check of lengths runs only where the check passed,
       and may rely on it: an apply-to-each's generators (a partition's
       values and counts) are one shape class once `check lengths`
       (`check counts`) has compared them (flatten/shape.c), so that a
       MAP over one of them reads the others "in range".  Each run
       follows the last such check before it (the checks are chained
       above), so that no cluster holding it runs before the check: a
       run that fed the check and one after it share no kernel (a path
       through a host statement), and merge.c puts the check first.
       The other checks join no shapes: what they guard can fail, and
       keeps its order by the chain. */
    if (n && last_check >= 0 && (!succ[last_check].len || int_at(&succ[last_check], succ[last_check].len - 1) != j))
      push_int(&succ[last_check], j);
    if (s->kind == LS_CHECK && (s->check == RT_CHECK_LENGTHS || s->check == RT_CHECK_COUNTS))
      last_check = j;
    for (int k = 0; k < s->results.len; k++)
      genmap_put(&def_at, s->results.data[k], (void *)(intptr_t)(j + 1));
  }
  r->nstmts = m;
  r->succ = succ;
  r->node_of = node_of;
  int n = r->nodes.len;
  static EdgeIndex edge_at;
  edge_index_clear(&edge_at);
  Builder bl = {r, &edge_at};
  /* live out: read by a statement that is not a run, or by the block */
  for (int j = 0; j < m; j++) {
    const LcuStmt *s = b->stmts.data[j];
    if (s->kind == LS_RUN)
      continue;
    reads.len = 0;
    stmt_reads(&reads, s);
    for (int k = 0; k < reads.len; k++)
      genmap_put(&read_outside, reads.data[k], (void *)1);
  }
  for (int k = 0; k < b->results.len; k++) {
    const LcuAtom *a = b->results.data[k];
    if (a->var)
      genmap_put(&read_outside, a->var, (void *)1);
  }
  for (int v = 0; v < n; v++) {
    FusNode *node = r->nodes.data[v];
    for (int k = 0; k < node->run->results.len; k++)
      node->live_out |= genmap_get(&read_outside, node->run->results.data[k]) != NULL;
  }
  /* data edges between runs, fusible or not */
  for (int v = 0; v < n; v++) {
    FusNode *cons = r->nodes.data[v];
    for (int k = 0; k < cons->run->args.len; k++) {
      const LcuAtom *a = cons->run->args.data[k];
      int i = a->var ? (int)(intptr_t)genmap_get(&def_at, a->var) - 1 : -1;
      if (i < 0 || node_of[i] < 0)
        continue;
      FusNode *prod = r->nodes.data[node_of[i]];
      const char *why;
      FusEdgeKind kind = classify(prod, cons, &why);
      add_edge(&bl, prod->id, v, kind, why, a->var);
    }
  }
  filter_map_reduce(r);
  scan_of_counts(r);
  /* order edges: a run that fails or has effects, then the next such
     statement when it is a run */
  for (int i = 0; i < m; i++)
    for (int k = 0; k < succ[i].len; k++) {
      int j = int_at(&succ[i], k);
      if (node_of[i] >= 0 && node_of[j] >= 0 && !*edge_slot(&edge_at, node_of[i], node_of[j], false))
        add_edge(&bl, node_of[i], node_of[j], FE_ORDER, "both fail or have effects", NULL);
    }
  /* paths through host statements: from each run, the runs reached
     through at least one statement that is not a run */
  int *seen = xmalloc_atomic(sizeof(int) * (size_t)(m + 1));
  for (int i = 0; i < m; i++)
    seen[i] = -1;
  Vec stack = {0};
  for (int u = 0; u < n; u++) {
    int from = ((FusNode *)r->nodes.data[u])->pos;
    stack.len = 0;
    for (int k = 0; k < succ[from].len; k++) {
      int j = int_at(&succ[from], k);
      if (node_of[j] < 0 && seen[j] != u) {
        seen[j] = u;
        push_int(&stack, j);
      }
    }
    while (stack.len) {
      int h = int_at(&stack, --stack.len);
      for (int k = 0; k < succ[h].len; k++) {
        int j = int_at(&succ[h], k);
        if (seen[j] == u)
          continue;
        seen[j] = u;
        if (node_of[j] >= 0) {
          const LcuStmt *host = b->stmts.data[h];
          const char *why = host->kind == LS_IF       ? "an if between them"
                            : host->kind == LS_CALL   ? "a call between them"
                            : host->kind == LS_HOST   ? "a host operation between them"
                            : host->kind == LS_LENGTH ? "a length the host reads between them"
                                                      : "a host computation between them";
          add_edge(&bl, u, node_of[j], FE_PREVENTING, why, NULL);
        } else {
          push_int(&stack, j);
        }
      }
    }
  }
  return r;
}
