/*
 * fuse.c: the fusion pass, section 4 of the λcu paper, over every control
 * region of the program: each CPU-level block of each function and
 * top-level statement (nested blocks are regions of their own).  For a
 * region: its PDG (pdg.c), the candidate pairs and their weights
 * (candidates.c), the clusters (schedule.c, GLPK), each cluster merged
 * into one run of one kernel (merge.c) and that kernel's SOACs rewritten
 * (rules.c).  Kernels no run runs any more are pruned at the end.
 *
 * A rewrite may make one kernel return one variable twice (two SEG_FILTERs
 * side by side share their new sd): the run then binds the second CPU
 * variable no more, and its readers read the first.
 */
#include "fusion.h"

typedef struct Fuser {
  LcuProgram *p;
  const FusOptions *o;
  FusStats *st;
  int regions;       /* numbered in program order */
  const char *owner; /* "function f", "top-level statement 3" */
  int blocks;        /* within the owner */
  LcuBlock *body;    /* the owner's */
  FusFacts facts;    /* the owner body's, kept up to date region by region */
  bool ok;
} Fuser;

/* A kernel result returned twice: the run binds it once. */
static void dedupe_results(Fuser *fz, LcuStmt *run) {
  LcuKernel *k = run->kernel;
  for (int j = 0; j < k->results.len; j++)
    for (int i = 0; i < j; i++) {
      if (k->results.data[i] != k->results.data[j])
        continue;
      PtrMap renaming = {0};
      ptrmap_put(&renaming, run->results.data[j], run->results.data[i]);
      lcu_rename_block(fz->body, &renaming);
      for (int t = j; t + 1 < k->results.len; t++) {
        k->results.data[t] = k->results.data[t + 1];
        run->results.data[t] = run->results.data[t + 1];
      }
      k->results.len--;
      run->results.len--;
      j--;
      break;
    }
}

/* ---- regions ---- */

/* The most runs a region holds.  Within a region the graph can be
   quadratic (from each run, a path through host statements to each
   later run: a literal nested N deep, a host vector and a run a level,
   made N^2 / 2 edges), and so can what is worked out from it; a block of
   more runs is cut, in statement order, into windows of this many runs,
   each a region of its own, so that fusion stays linear in the size of
   a block.  The largest region of the corpus and the examples has 381
   runs: ordinary programs are fused as before. */
enum { REGION_RUNS = 512 };

/* The graph, candidates, schedule and merge of region 'b' (a block, or a
   window of one); its new runs appended to 'fused'. */
static void fuse_region(Fuser *fz, LcuBlock *b, const char *where, Vec *fused) {
  FusRegion *r = fus_fill_pdg(fz->p, b, &fz->facts);
  r->index = ++fz->regions;
  r->where = where;
  fus_fill_candidates(r);
  fus_schedule(r, &fz->o->schedule);
  if (fz->o->pdg_out)
    fus_print_pdg(fz->o->pdg_out, r);
  Vec merged = fus_merge(fz->p, r);
  for (int i = 0; i < merged.len; i++)
    vec_push(fused, merged.data[i]);
  /* the nodes' kernel lengths given back: only the graph needed them */
  for (int i = 0; i < r->nodes.len; i++)
    fus_release_kernel_lens(&((FusNode *)r->nodes.data[i])->lens);
  FusRegionStats *rs = NEW(FusRegionStats);
  *rs = (FusRegionStats){r->where, r->nodes.len, r->nclusters, r->solve_ms, r->method, r->bytes_before, r->bytes_after};
  vec_push(&fz->st->regions, rs);
}

static void note_last_reads(GenMap *last, const Vec *atoms, int pos) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (a->var)
      genmap_put(last, a->var, (void *)(intptr_t)(pos + 1));
  }
}

static void note_block_last_reads(GenMap *last, const LcuBlock *b, int pos) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    note_last_reads(last, &s->args, pos);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_block_last_reads(last, nested[k], pos);
  }
  note_last_reads(last, &b->results, pos);
}

/* Block 'b' of more than REGION_RUNS runs, window after window: each
   window's statements are a block whose results are the variables that a
   later statement of 'b', or its results, read. */
static void fuse_windows(Fuser *fz, LcuBlock *b, const char *where, Vec *fused) {
  int m = b->stmts.len;
  /* the position of the last statement reading each variable (m: the
     block's results) */
  static GenMap last;
  genmap_clear(&last);
  for (int j = 0; j < m; j++) {
    const LcuStmt *s = b->stmts.data[j];
    note_last_reads(&last, &s->args, j);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_block_last_reads(&last, nested[k], j);
  }
  note_last_reads(&last, &b->results, m);
  Vec stmts = {0};
  int windows = 0;
  for (int lo = 0; lo < m;) {
    int hi = lo, runs = 0;
    while (hi < m && runs < REGION_RUNS)
      runs += ((LcuStmt *)b->stmts.data[hi++])->kind == LS_RUN;
    while (hi < m && ((LcuStmt *)b->stmts.data[hi])->kind != LS_RUN)
      hi++; /* the statements up to the next run */
    LcuBlock *w = lcu_block_new();
    for (int j = lo; j < hi; j++) {
      LcuStmt *s = b->stmts.data[j];
      vec_push(&w->stmts, s);
      for (int k = 0; k < s->results.len; k++) {
        LcuVar *v = s->results.data[k];
        if ((intptr_t)genmap_get(&last, v) - 1 >= hi)
          vec_push(&w->results, lcu_atom_var(v));
      }
    }
    windows++;
    if (runs >= 2)
      fuse_region(fz, w, xprintf("%s, window %d", where, windows), fused);
    for (int j = 0; j < w->stmts.len; j++)
      vec_push(&stmts, w->stmts.data[j]);
    lo = hi;
  }
  b->stmts = stmts;
}

static void fuse_block(Fuser *fz, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k] && !fus_guard_branch(s, nested[k])) /* a rare case's check: as it is (guard.c) */
        fuse_block(fz, nested[k]);
  }
  if (!fz->ok)
    return;
  int runs = 0;
  for (int i = 0; i < b->stmts.len; i++)
    runs += ((LcuStmt *)b->stmts.data[i])->kind == LS_RUN;
  fz->blocks++;
  if (runs < 2)
    return;
  const char *where = fz->blocks > 1 ? xprintf("%s, block %d", fz->owner, fz->blocks) : fz->owner;
  Vec fused = {0};
  if (runs > REGION_RUNS)
    fuse_windows(fz, b, where, &fused);
  else
    fuse_region(fz, b, where, &fused);
  /* Facts are refreshed for the block only, not the whole body: filling
     them anew per region and per run made the pass quadratic in the
     size of a body (lib_lifted's top level took seconds). */
  if (fused.len)
    fus_refill_facts(b, &fz->facts);
  for (int i = 0; i < fused.len; i++) {
    LcuStmt *run = fused.data[i];
    fus_rewrite(fz->p, run, &fz->facts);
    dedupe_results(fz, run);
  }
  if (fused.len)
    fus_refill_facts(b, &fz->facts);
  if (fz->o->check_ir && fused.len && !lcu_check(fz->p, xprintf("fusion of %s", where)))
    fz->ok = false;
}

static void fuse_body(Fuser *fz, LcuBlock *body, const char *owner) {
  fz->owner = owner;
  fz->blocks = 0;
  fz->body = body;
  fus_fill_facts(body, &fz->facts);
  fuse_block(fz, body);
}

/* Every `run` of a kernel equal to an earlier one (lcu_kernel_canonical:
   the same text up to its variables' names) runs the earlier one
   ('first': kernel -> the first kernel of its text). */
static void share_in_block(LcuBlock *b, const PtrMap *first) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN) {
      LcuKernel *k = ptrmap_get(first, s->kernel);
      if (k)
        s->kernel = k;
    }
    if (s->then)
      share_in_block(s->then, first);
    if (s->els)
      share_in_block(s->els, first);
    if (s->body)
      share_in_block(s->body, first);
  }
}

/* A number that a kernel's canonical text determines: kernels of one
   text have one shape (kernels of one shape may differ). */
static uint64_t kernel_shape(const LcuKernel *k) {
  uint64_t h = 14695981039346656037ULL;
#define MIX(x) (h = (h ^ (uint64_t)(int64_t)(x)) * 1099511628211ULL)
  MIX(k->params.len);
  MIX(k->soacs.len);
  MIX(k->results.len);
  for (int i = 0; i < k->params.len; i++) {
    const LcuVar *v = k->params.data[i];
    MIX(v->type.kind);
    MIX(v->type.base);
  }
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    MIX(s->kind);
    MIX(s->results.len);
    MIX(s->pull ? s->pull->body.len : -1);
    MIX(s->second ? s->second->body.len : -1);
  }
#undef MIX
  return h;
}

static void mark_run_shapes(const LcuBlock *b, GenMap *shapes) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN)
      genmap_put(shapes, (void *)(uintptr_t)(kernel_shape(s->kernel) | 1), (void *)1);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        mark_run_shapes(nested[k], shapes);
  }
}

/* Merging makes a kernel per cluster, and copies a kernel before a rule
   changes it: many fused kernels are equal (the same region in several
   specializations of a function, the same library code inlined in
   several places).  One of each keeps the generated code small: a run
   runs the first kernel of its kernel's text.  Each kernel's text is
   written once, here, and only if a kernel some run runs has its shape:
   most kernels no run runs any more (their runs were merged), and
   writing texts was what sharing cost.  The runs look their kernels up
   by address. */
static void share_kernels(LcuProgram *p) {
  Map by_text = {0};
  PtrMap first = {0};
  GenMap run_shapes = {0}; /* shape | 1 (never NULL) -> non-NULL */
  for (int i = 0; i < p->funcs.len; i++)
    mark_run_shapes(((LcuFunc *)p->funcs.data[i])->body, &run_shapes);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      mark_run_shapes(t->body, &run_shapes);
  }
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    if (!genmap_get(&run_shapes, (void *)(uintptr_t)(kernel_shape(k) | 1)))
      continue; /* no run's kernel has its text */
    const char *key = lcu_kernel_key(k);
    LcuKernel *earlier = map_get(&by_text, key);
    if (!earlier) {
      map_put(&by_text, xstrdup(key), k);
      earlier = k;
    }
    ptrmap_put(&first, k, earlier);
  }
  for (int i = 0; i < p->funcs.len; i++)
    share_in_block(((LcuFunc *)p->funcs.data[i])->body, &first);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      share_in_block(t->body, &first);
  }
}

bool fus_fuse(LcuProgram *p, const FusOptions *o, FusStats *st) {
  *st = (FusStats){0};
  st->kernels_before = p->kernels.len;
  Fuser fz = {.p = p, .o = o, .st = st, .ok = true};
  if (o->pdg_out)
    fprintf(o->pdg_out, "digraph pdg {\n  compound=true;\n  node [shape=box, fontname=\"Helvetica\"];\n");
  for (int i = 0; i < p->funcs.len && fz.ok; i++) {
    LcuFunc *f = p->funcs.data[i];
    fuse_body(&fz, f->body, xprintf("function %s", f->name));
  }
  for (int i = 0; i < p->tops.len && fz.ok; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      fuse_body(&fz, t->body, xprintf("top-level statement %d", i + 1));
  }
  if (o->pdg_out)
    fprintf(o->pdg_out, "}\n");
  share_kernels(p);
  lcu_prune_kernels(p);
  st->kernels_after = p->kernels.len;
  return fz.ok;
}
