/*
 * merge.c: the runs of one cluster become one run of one kernel (section
 * 4.4 of the λcu paper, the bookkeeping step): the SOACs of the
 * members' kernels, copied with fresh variables, one after the other in
 * the order the members ran; one parameter per distinct CPU variable
 * (a result one member passes to another becomes the producing SOAC's
 * own variable); the results that statements outside the cluster read
 * returned.  rules.c then rewrites the SOACs into as few as the rules
 * allow.
 *
 * Errors.  A member's thunk expressions report their errors where they
 * did (lcu_error_loc): each expression's location is made the one it
 * reported at (its own, or its run's), and every SOAC of the new kernel
 * gets the new run's location, so that lcu_error_loc finds it again.  The
 * new run takes the place and context of a member that checks at its run
 * (FUS_FAIL_RUN: a size, a scatter, make_segdes), whose checks report at
 * the run (candidates.c lets only members that agree share a cluster);
 * else, when all members come from one inlined library call, that call's
 * context; else the user's code, and the expressions of members inlined
 * from a library call say so (LcuExp.lib_fn).
 *
 * The block is then put in an order where every cluster stands as one
 * statement: a topological order of the block's statements with each
 * cluster contracted (the schedule made it acyclic), the earliest
 * original position first, so that what can fail keeps its order.
 */
#include <string.h>

#include "fusion.h"

/* The maps of merging are one cluster's, then the next's, emptied in
   place (each grew from nothing per cluster and per member). */
typedef struct Merger {
  LcuProgram *p;
  FusRegion *r;
  PtrMap *param_of;   /* CPU variable -> the new kernel's parameter */
  PtrMap *produced;   /* CPU variable -> the new kernel's variable for it */
  LcuKernel *k;
  LcuStmt *run;
} Merger;

/* ---- locations ---- */

/* Gives every node of 'e' (of SOAC 's', run by 'member') the place it
   reported its errors at; 'mark' moves it out of a library call
   (fus_settle_thunk). */
static void settle_exp(LcuExp *e, const LcuSoac *s, const LcuStmt *member, bool mark) {
  if (e->lib_fn) { /* moved out of a library call already */
  } else if (mark) {
    e->lib_fn = member->lib_fn;
    e->loc = member->user_loc;
  } else {
    e->loc = lcu_error_loc(e, s, member->loc);
  }
  for (int i = 0; i < e->nargs; i++)
    settle_exp(e->args[i], s, member, mark);
}

void fus_settle_thunk(LcuThunk *t, const LcuSoac *s, const LcuStmt *member, bool mark) {
  if (t)
    for (int i = 0; i < lcu_thunk_nexps(t); i++)
      settle_exp(lcu_thunk_exp(t, i), s, member, mark);
}

static bool same_name(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

bool fus_same_context(const LcuStmt *a, const LcuStmt *b) {
  return same_name(a->lib_fn, b->lib_fn) && (!a->lib_fn || lcu_loc_equal(a->user_loc, b->user_loc));
}

/* The statement whose place and context the new run takes. */
static const LcuStmt *anchor_of(const Vec *members) {
  for (int i = 0; i < members->len; i++) {
    const FusNode *n = members->data[i];
    if (n->failures & FUS_FAIL_RUN)
      return n->run;
  }
  return NULL;
}

/* ---- the new kernel ---- */

static LcuSoac *copy_soac(LcuProgram *p, const LcuSoac *s, PtrMap *ren) {
  LcuSoac *c = NEW(LcuSoac);
  *c = *s;
  c->pull = lcu_copy_thunk(p, s->pull, ren);
  c->second = lcu_copy_thunk(p, s->second, ren);
  c->identity = (Vec){0};
  for (int i = 0; i < s->identity.len; i++) {
    FlatAtom *a = NEW(FlatAtom);
    *a = *(FlatAtom *)s->identity.data[i];
    vec_push(&c->identity, a);
  }
  LcuVar *r;
  c->size.var = s->size.var ? ((r = ptrmap_get(ren, s->size.var)) ? r : s->size.var) : NULL;
  c->size.length = s->size.length ? ((r = ptrmap_get(ren, s->size.length)) ? r : s->size.length) : NULL;
  c->segdes = s->segdes ? ((r = ptrmap_get(ren, s->segdes)) ? r : s->segdes) : NULL;
  c->into = s->into ? ((r = ptrmap_get(ren, s->into)) ? r : s->into) : NULL;
  c->args = (Vec){0};
  for (int i = 0; i < s->args.len; i++)
    vec_push(&c->args, (r = ptrmap_get(ren, s->args.data[i])) ? r : s->args.data[i]);
  c->results = (Vec){0};
  for (int i = 0; i < s->results.len; i++) {
    LcuVar *v = lcu_copy_var(p, s->results.data[i]);
    ptrmap_put(ren, s->results.data[i], v);
    vec_push(&c->results, v);
  }
  return c;
}

/* Appends member 'n' (a run) to the new kernel. */
static void add_member(Merger *m, const FusNode *n, const LcuStmt *fused, bool mark) {
  const LcuStmt *run = n->run;
  const LcuKernel *k = run->kernel;
  static PtrMap ren; /* k's variables -> the new kernel's */
  ptrmap_clear(&ren);
  for (int i = 0; i < k->params.len; i++) {
    LcuVar *param = k->params.data[i];
    LcuAtom *a = run->args.data[i];
    LcuVar *to = a->var ? ptrmap_get(m->produced, a->var) : NULL;
    if (!to && a->var)
      to = ptrmap_get(m->param_of, a->var);
    if (!to) {
      to = lcu_copy_var(m->p, param);
      vec_push(&m->k->params, to);
      lcu_stmt_arg(m->run, a);
      if (a->var)
        ptrmap_put(m->param_of, a->var, to);
    }
    ptrmap_put(&ren, param, to);
  }
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    LcuSoac *c = copy_soac(m->p, s, &ren);
    /* the copies have the original's locations: settle them against the
       original SOAC and run, then give the SOAC the new run's place */
    fus_settle_thunk(c->pull, s, run, mark);
    fus_settle_thunk(c->second, s, run, mark);
    c->loc = fused->loc;
    lcu_kernel_soac(m->k, c);
  }
  for (int i = 0; i < run->results.len && i < k->results.len; i++) {
    LcuVar *kr = ptrmap_get(&ren, k->results.data[i]);
    ptrmap_put(m->produced, run->results.data[i], kr ? kr : k->results.data[i]);
  }
}

/* Which results of the runs of clusters of several runs are read
   outside their cluster: by a statement of the block that is not a run
   of that cluster (a read in a nested block counts as its statement's),
   or by the block's results.  One walk over the block, asking only of
   those results (a map of every variable the block reads, each with the
   list of its readers, cost more than all the rest of merging). */
typedef struct Outside {
  GenMap cluster; /* a result of a member run -> its cluster + 1 */
  GenMap read;    /* such a result -> non-NULL: read outside its cluster */
} Outside;

static void note_reads(Outside *o, const Vec *atoms, int cluster) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (!a->var)
      continue;
    intptr_t c = (intptr_t)genmap_get(&o->cluster, a->var);
    if (c && c - 1 != cluster)
      genmap_put(&o->read, a->var, (void *)1);
  }
}

static void note_block_reads(Outside *o, const LcuBlock *b, int cluster) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *n = b->stmts.data[i];
    note_reads(o, &n->args, cluster);
    const LcuBlock *nested[3] = {n->then, n->els, n->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_block_reads(o, nested[k], cluster);
  }
  note_reads(o, &b->results, cluster);
}

static void fill_outside(Outside *o, const FusRegion *r, const Vec *members) {
  for (int c = 0; c < r->nclusters; c++) {
    if (members[c].len < 2)
      continue;
    for (int i = 0; i < members[c].len; i++) {
      const LcuStmt *run = ((const FusNode *)members[c].data[i])->run;
      for (int k = 0; k < run->results.len; k++)
        genmap_put(&o->cluster, run->results.data[k], (void *)(intptr_t)(c + 1));
    }
  }
  const LcuBlock *b = r->block;
  for (int j = 0; j < r->nstmts; j++) {
    const LcuStmt *s = b->stmts.data[j];
    int node = r->node_of[j];
    int c = node >= 0 ? ((const FusNode *)r->nodes.data[node])->cluster : -1;
    if (c >= 0 && members[c].len < 2)
      c = -1; /* a run alone: outside every cluster of several */
    note_reads(o, &s->args, c);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_block_reads(o, nested[k], c);
  }
  note_reads(o, &b->results, -1);
}

/* The run of cluster 'members' (nodes, in order). */
static LcuStmt *merge_cluster(LcuProgram *p, FusRegion *r, const Vec *members, const Outside *outside) {
  const LcuStmt *first = ((FusNode *)members->data[0])->run;
  const LcuStmt *anchor = anchor_of(members);
  bool one_context = true;
  for (int i = 1; i < members->len; i++)
    one_context &= fus_same_context(first, ((FusNode *)members->data[i])->run);
  /* where the new run stands, and in what context */
  const LcuStmt *place = anchor ? anchor : first;
  LcuStmt *run = lcu_stmt_run(place->loc, NULL);
  if (anchor || one_context) {
    run->lib_fn = place->lib_fn;
    run->user_loc = place->user_loc;
  } else if (place->lib_fn) {
    run->loc = place->user_loc; /* the user's code, at the call */
  }
  static PtrMap param_of, produced;
  ptrmap_clear(&param_of);
  ptrmap_clear(&produced);
  Merger m = {p, r, &param_of, &produced, lcu_kernel_new(), run};
  for (int i = 0; i < members->len; i++) {
    const FusNode *n = members->data[i];
    bool mark = n->run->lib_fn && !fus_same_context(n->run, run);
    add_member(&m, n, run, mark);
  }
  for (int i = 0; i < members->len; i++) {
    const LcuStmt *s = ((FusNode *)members->data[i])->run;
    for (int k = 0; k < s->results.len; k++) {
      LcuVar *y = s->results.data[k];
      if (!genmap_get(&outside->read, y))
        continue;
      lcu_kernel_return(m.k, ptrmap_get(m.produced, y));
      lcu_stmt_bind(run, y);
    }
  }
  lcu_add_kernel(p, m.k);
  run->kernel = m.k;
  return run;
}

/* ---- the order of the block ---- */

/* A binary heap of units, the least 'key' on top (keys are distinct). */
static void heap_push(int *heap, int *n, const int *key, int u) {
  int i = (*n)++;
  while (i > 0 && key[heap[(i - 1) / 2]] > key[u]) {
    heap[i] = heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  heap[i] = u;
}

static int heap_pop(int *heap, int *n, const int *key) {
  int top = heap[0], last = heap[--*n], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && key[heap[c + 1]] < key[heap[c]])
      c++;
    if (key[heap[c]] >= key[last])
      break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = last;
  return top;
}

Vec fus_merge(LcuProgram *p, FusRegion *r) {
  int n = r->nodes.len, m = r->nstmts;
  Vec fused = {0};
  if (r->nclusters == n)
    return fused; /* nothing fused */
  LcuBlock *b = r->block;
  /* the members of each cluster, in order */
  Vec *members = xmalloc(sizeof(Vec) * (size_t)(r->nclusters + 1));
  for (int u = 0; u < n; u++) {
    FusNode *node = r->nodes.data[u];
    vec_push(&members[node->cluster], node);
  }
  static Outside outside; /* every region's in turn */
  genmap_clear(&outside.cluster);
  genmap_clear(&outside.read);
  fill_outside(&outside, r, members);
  /* units: a cluster of several runs is one, any other statement one */
  int *unit = xmalloc_atomic(sizeof(int) * (size_t)(m + 1));
  int nunits = 0;
  int *cluster_unit = xmalloc_atomic(sizeof(int) * (size_t)(r->nclusters + 1));
  for (int c = 0; c < r->nclusters; c++)
    cluster_unit[c] = -1;
  Vec unit_stmt = {0}; /* unit -> its statement */
  for (int j = 0; j < m; j++) {
    int node = r->node_of[j];
    int c = node >= 0 ? ((FusNode *)r->nodes.data[node])->cluster : -1;
    if (c >= 0 && members[c].len > 1) {
      if (cluster_unit[c] < 0) {
        cluster_unit[c] = nunits++;
        LcuStmt *run = merge_cluster(p, r, &members[c], &outside);
        vec_push(&unit_stmt, run);
        vec_push(&fused, run);
      }
      unit[j] = cluster_unit[c];
    } else {
      unit[j] = nunits++;
      vec_push(&unit_stmt, b->stmts.data[j]);
    }
  }
  /* the units' edges, and a topological order by earliest position */
  Vec *out = xmalloc(sizeof(Vec) * (size_t)(nunits + 1));
  int *indeg = xmalloc_atomic(sizeof(int) * (size_t)(nunits + 1));
  int *first = xmalloc_atomic(sizeof(int) * (size_t)(nunits + 1));
  for (int u = 0; u < nunits; u++) {
    indeg[u] = 0;
    first[u] = -1;
  }
  for (int j = 0; j < m; j++) {
    if (first[unit[j]] < 0)
      first[unit[j]] = j;
    for (int k = 0; k < r->succ[j].len; k++) {
      int t = (int)(intptr_t)r->succ[j].data[k];
      if (unit[t] == unit[j])
        continue;
      vec_push(&out[unit[j]], (void *)(intptr_t)unit[t]);
      indeg[unit[t]]++;
    }
  }
  /* the ready units in a heap by earliest position (a scan of every unit
     for each one placed was quadratic in the block: 20 000 statements) */
  int *heap = xmalloc_atomic(sizeof(int) * (size_t)(nunits + 1));
  int nheap = 0;
  for (int u = 0; u < nunits; u++)
    if (!indeg[u])
      heap_push(heap, &nheap, first, u);
  Vec order = {0};
  for (int placed = 0; placed < nunits; placed++) {
    if (!nheap)
      die("fusion: the clusters of %s form a cycle", r->where);
    int best = heap_pop(heap, &nheap, first);
    vec_push(&order, unit_stmt.data[best]);
    for (int k = 0; k < out[best].len; k++) {
      int t = (int)(intptr_t)out[best].data[k];
      if (--indeg[t] == 0)
        heap_push(heap, &nheap, first, t);
    }
  }
  b->stmts = order;
  return fused;
}
