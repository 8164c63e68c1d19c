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
  bool ok;
} Fuser;

/* ---- renaming a CPU variable through a function ---- */

static void rename_atoms(Vec *atoms, const LcuVar *from, LcuVar *to) {
  for (int i = 0; i < atoms->len; i++) {
    LcuAtom *a = atoms->data[i];
    if (a->var == from)
      atoms->data[i] = lcu_atom_var(to);
  }
}

static void rename_block(LcuBlock *b, const LcuVar *from, LcuVar *to) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    rename_atoms(&s->args, from, to);
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        rename_block(nested[k], from, to);
  }
  rename_atoms(&b->results, from, to);
}

/* A kernel result returned twice: the run binds it once. */
static void dedupe_results(Fuser *fz, LcuStmt *run) {
  LcuKernel *k = run->kernel;
  for (int j = 0; j < k->results.len; j++)
    for (int i = 0; i < j; i++) {
      if (k->results.data[i] != k->results.data[j])
        continue;
      rename_block(fz->body, run->results.data[j], run->results.data[i]);
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

static void fuse_block(Fuser *fz, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
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
  FusFacts facts;
  fus_fill_facts(fz->body, &facts);
  FusRegion *r = fus_fill_pdg(fz->p, b, &facts);
  r->index = ++fz->regions;
  r->where = fz->blocks > 1 ? xprintf("%s, block %d", fz->owner, fz->blocks) : fz->owner;
  fus_fill_candidates(r);
  fus_schedule(r, &fz->o->schedule);
  if (fz->o->pdg_out)
    fus_print_pdg(fz->o->pdg_out, r);
  Vec fused = fus_merge(fz->p, r);
  for (int i = 0; i < fused.len; i++) {
    LcuStmt *run = fused.data[i];
    fus_fill_facts(fz->body, &facts);
    fus_rewrite(fz->p, run, &facts);
    dedupe_results(fz, run);
  }
  FusRegionStats *rs = NEW(FusRegionStats);
  *rs = (FusRegionStats){r->where, r->nodes.len, r->nclusters, r->solve_ms, r->method, r->bytes_before, r->bytes_after};
  vec_push(&fz->st->regions, rs);
  if (fz->o->check_ir && fused.len && !lcu_check(fz->p, xprintf("fusion of %s", r->where)))
    fz->ok = false;
}

static void fuse_body(Fuser *fz, LcuBlock *body, const char *owner) {
  fz->owner = owner;
  fz->blocks = 0;
  fz->body = body;
  fuse_block(fz, body);
}

bool fus_fuse(LcuProgram *p, const FusOptions *o, FusStats *st) {
  *st = (FusStats){0};
  st->kernels_before = p->kernels.len;
  Fuser fz = {p, o, st, 0, NULL, 0, NULL, true};
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
  lcu_prune_kernels(p);
  st->kernels_after = p->kernels.len;
  return fz.ok;
}
