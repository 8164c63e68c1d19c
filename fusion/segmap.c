/*
 * segmap.c: segment ids found where they are read (fus_segment_maps).
 *
 * Flattening spreads a per-segment value over a segment's elements by
 * reading it at each element's segment: lowering makes
 *
 *   let ids = run K (sd)              K: LIBRARY seg_ids (sd)
 *   let ys  = run K' (ids, ..., n)    K': MAP { i => ... x[ids[i]] ... } (n)
 *
 * with n the number of elements of sd.  On a GPU that is a launch that
 * searches the offsets and stores an int per element, then the MAP's
 * launch reading them back; a level of a flattened quicksort makes eight
 * such pairs (issue 36).  This pass gives K' the sd instead and makes its
 * MAP a SEG_MAP, whose thunk takes the segment as a second parameter:
 *
 *   let ys = run K'' (sd, ..., n)     K'': SEG_MAP { (i, s) => ... x[s] ... } (sd)
 *
 * so that the segment is found inside the MAP's launch (rtg::seg_map, a
 * tile's offsets searched in shared memory) and never stored, and the
 * seg_ids run goes when nothing else reads its result.
 *
 * It is legal where every read of ids is `#ids` (which becomes
 * `#elements sd`) or an argument of a run whose kernel reads the
 * parameter only inside MAPs, only at the MAP's own index, and where
 * each such MAP's size is the number of elements of sd (#ids, or a
 * parameter given `#elements sd` or `#ids`): then ids[i] is the segment
 * of element i, which is what SEG_MAP gives.  Anything else
 * (a result that leaves the block, a read at another index, #ids in a
 * thunk, a SOAC other than MAP) leaves the pair as it is, but for this:
 *
 * Where the ids have other readers too (a FILTER's predicate reading
 * the segment's pivot, ids[i] in a thunk at another index, #ids in a
 * thunk), the seg_ids run still goes if one of the runs that qualify
 * comes before every other reader (in its block, or in a block of a
 * statement after it): that run's first SEG_MAP also returns its
 * segment, s, as a vector, which is ids, and the other readers read it
 * instead.  The ids are then stored by a launch that runs anyway
 * instead of one of their own (a quicksort level's else-branch: the
 * pack of its elements gives the ids that the three filters read).
 *
 * A SEG_REDUCE or SEG_SCAN over sd that reads ids at its pull's own
 * index qualifies as such a MAP does: the skeleton walking a segment
 * knows which one it walks (the warp or block per segment, the packed
 * kernel's lane search, the balanced path's and the atomics' search of
 * each thread's first element), so its pull takes the segment as a
 * second parameter, `SEG_REDUCE { (i, s) => ... x[s] ... }`, and the
 * all-pairs n-body's 10^8 ids are neither stored nor read.  It cannot
 * give the ids to other readers (it has no result per element).  So
 * does a SPLIT that counts the classes in each segment of sd (`counts
 * sd`): its n is sd's number of elements, and the split, which finds
 * the segments whose counts it makes, finds each element's too
 * (rtg::split_kernel): a flattened filter's test of its segment's value
 * (quicksort's pivot) reads it without a seg_ids launch.
 *
 * It runs last in -O1 (driver/pipeline.c, after fus_fuse): fusion and its
 * cost model know nothing of SEG_MAP, and a MAP fused with others is
 * rewritten with them.  Kernels are shared by runs: a kernel is copied
 * (lcu_copy_kernel) once per kernel and parameter, and the copy given to
 * every run that qualifies.
 */
#include "fusion.h"

/* What the walk of one function (or top-level statement) finds. */
typedef struct Walk {
  PtrMap def;      /* LcuVar -> the LcuStmt that binds it */
  PtrMap uses;     /* LcuVar -> Vec * of FusUse (fus_note_uses) */
  PtrMap escapes;  /* LcuVar -> non-NULL: read by a block's results */
  Vec seg_ids;     /* LcuStmt *: runs of a seg_ids kernel, in order */
  Vec fields;      /* LcuStmt *: runs of a seg_lengths or seg_offsets
                      kernel, in order */
  PtrMap block_of; /* LcuStmt -> the LcuBlock holding it */
  PtrMap parent;   /* LcuBlock -> the LcuStmt holding it (none: the body) */
} Walk;

/* A kernel copied for the runs that give parameter 'param' of 'from' a
   seg_ids result. */
typedef struct Rewritten {
  const LcuKernel *from;
  int param;
  bool gives_ids; /* the copy also returns the segments (its last result) */
  LcuExpKind field; /* fus_segment_fields: what the copy reads of the sd
                       (LE_VAR: a copy of fus_segment_maps') */
  LcuKernel *to;
} Rewritten;

typedef struct Pass {
  LcuProgram *p;
  Vec rewritten; /* Rewritten * */
  Vec dropped;   /* LcuKernel *: the kernels of the seg_ids runs removed */
  int runs;      /* runs given a SEG_MAP kernel */
  int removed;   /* seg_ids runs removed */
  PtrMap counted; /* fus_segment_fields: a copy -> its last parameter, the
                     sd's number of segments, where a SOAC of it was
                     sized by the lengths' or offsets' length */
} Pass;

/* Is 'k' the kernel of one LIBRARY seg_ids of its parameter, whose
   result it returns? */
static bool is_seg_ids_kernel(const LcuKernel *k) {
  if (k->soacs.len != 1 || k->params.len != 1 || k->results.len != 1)
    return false;
  const LcuSoac *s = k->soacs.data[0];
  return s->kind == SOAC_LIBRARY && s->library == LIB_SEG_IDS && s->args.len == 1 &&
         s->args.data[0] == k->params.data[0] && s->results.len == 1 && s->results.data[0] == k->results.data[0];
}

/* LE_SEG_LENGTH or LE_SEG_OFFSET where 'k' is the kernel of one LIBRARY
   seg_lengths or seg_offsets of its sd parameter, whose result it
   returns; LE_VAR otherwise. */
static LcuExpKind field_of_kernel(const LcuKernel *k) {
  if (k->soacs.len != 1 || k->params.len != 1 || k->results.len != 1)
    return LE_VAR;
  const LcuSoac *s = k->soacs.data[0];
  if (s->kind != SOAC_LIBRARY || (s->library != LIB_SEG_LENGTHS && s->library != LIB_SEG_OFFSETS) ||
      s->args.len != 1 || s->args.data[0] != k->params.data[0] || s->results.len != 1 ||
      s->results.data[0] != k->results.data[0])
    return LE_VAR;
  return s->library == LIB_SEG_LENGTHS ? LE_SEG_LENGTH : LE_SEG_OFFSET;
}

static void add_use(PtrMap *uses, LcuVar *v, LcuStmt *s, int arg) {
  Vec *of_v = ptrmap_get(uses, v);
  if (!of_v) {
    of_v = NEW(Vec);
    ptrmap_put(uses, v, of_v);
  }
  FusUse *u = NEW(FusUse);
  *u = (FusUse){s, arg};
  vec_push(of_v, u);
}

void fus_note_uses(LcuBlock *b, PtrMap *uses, PtrMap *escapes) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    for (int a = 0; a < s->args.len; a++) {
      const LcuAtom *at = s->args.data[a];
      if (at->var)
        add_use(uses, at->var, s, a);
    }
    LcuBlock *inner[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (inner[k])
        fus_note_uses(inner[k], uses, escapes);
  }
  for (int i = 0; i < b->results.len; i++) {
    const LcuAtom *at = b->results.data[i];
    if (at->var)
      ptrmap_put(escapes, at->var, (void *)1);
  }
}

static void walk_block(Walk *w, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    ptrmap_put(&w->block_of, s, b);
    for (int r = 0; r < s->results.len; r++)
      ptrmap_put(&w->def, s->results.data[r], s);
    if (s->kind == LS_RUN && s->results.len == 1 && s->args.len == 1 && ((const LcuAtom *)s->args.data[0])->var) {
      if (is_seg_ids_kernel(s->kernel))
        vec_push(&w->seg_ids, s);
      else if (field_of_kernel(s->kernel) != LE_VAR)
        vec_push(&w->fields, s);
    }
    LcuBlock *inner[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (inner[k]) {
        ptrmap_put(&w->parent, inner[k], s);
        walk_block(w, inner[k]);
      }
  }
}

/* ---- legality ---- */

/* Does 'e' read vector 'p' other than as p[i]? */
static bool reads_elsewhere(const LcuExp *e, const LcuVar *p, const LcuVar *i) {
  if (e->kind == LE_INDEX && e->var == p)
    return !(e->args[0]->kind == LE_VAR && e->args[0]->var == i);
  if (e->var == p && e->kind != LE_LET)
    return true; /* #p, or p where a scalar is read */
  for (int k = 0; k < e->nargs; k++)
    if (reads_elsewhere(e->args[k], p, i))
      return true;
  return false;
}

static bool thunk_uses(const LcuThunk *t, const LcuVar *v) {
  if (!t)
    return false;
  for (int i = 0; i < t->using.len; i++)
    if (t->using.data[i] == v)
      return true;
  return false;
}

/* Does the MAP or SOAC 's' involve parameter 'p' (its thunks or its
   size)? */
static bool involves(const LcuSoac *s, const LcuVar *p) {
  if (thunk_uses(s->pull, p) || thunk_uses(s->second, p) || s->size.length == p || s->size.var == p ||
      s->segdes == p || s->into == p)
    return true;
  for (int a = 0; a < s->args.len; a++)
    if (s->args.data[a] == p)
      return true;
  return false;
}

/* Is 's' `#v` of a vector (read of the ids that becomes `#elements sd`)? */
static bool is_length_of(const LcuStmt *s) { return s->kind == LS_LENGTH && s->length == LEN_VECTOR; }

/* Is kernel size variable 'q', given atom 'arg' by the run, the number
   of elements of 'sd' (`#elements sd`, or #ids)? */
static bool is_total_of(Walk *w, const LcuAtom *arg, const LcuVar *sd, const LcuVar *ids) {
  if (!arg->var)
    return false;
  const LcuStmt *d = ptrmap_get(&w->def, arg->var);
  if (!d || d->kind != LS_LENGTH || d->args.len != 1)
    return false;
  const LcuAtom *of = d->args.data[0];
  return (d->length == LEN_TOTAL && of->var == sd) || (d->length == LEN_VECTOR && of->var == ids);
}

/* The parameter of run 'r''s kernel that argument 'arg', vector 'v',
   gives, where a pass may change it: 'r' a run, v given once (one
   parameter at a time is enough), the parameter not a result; NULL
   otherwise. */
static const LcuVar *run_param(const LcuStmt *r, int arg, const LcuVar *v) {
  if (r->kind != LS_RUN)
    return NULL;
  const LcuKernel *k = r->kernel;
  if (arg >= k->params.len || r->args.len != k->params.len)
    return NULL;
  for (int a = 0; a < r->args.len; a++)
    if (a != arg && ((const LcuAtom *)r->args.data[a])->var == v)
      return NULL;
  const LcuVar *p = k->params.data[arg];
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == p)
      return NULL;
  return p;
}

/* The index of kernel parameter 'v' of 'k', or -1. */
static int param_index(const LcuKernel *k, const LcuVar *v) {
  for (int j = 0; j < k->params.len; j++)
    if (k->params.data[j] == v)
      return j;
  return -1;
}

/* Does segmented SOAC 's' of run 'r''s kernel read parameter 'p' (the
   seg_ids of 'sd') only in its pull thunk, at the pull's own index, and
   is its own sd the run's 'sd'?  Then p[i] is the segment that the
   skeleton walks, which the pull may take as a second parameter.  A
   SPLIT that counts sd's segments qualifies too: its n is sd's number
   of elements (it checks so), and the split finds the segments it
   counts, so the segment of each element as well (a flattened filter
   reading its segment's value, quicksort's pivot). */
static bool seg_soac_qualifies(const LcuStmt *r, const LcuSoac *s, const LcuVar *p, const LcuVar *sd) {
  bool split = s->kind == SOAC_SPLIT && s->segdes && s->size.var != p && s->size.length != p;
  if ((s->kind != SOAC_SEG_REDUCE && s->kind != SOAC_SEG_SCAN && !split) || s->pull->params.len != 1 ||
      s->segdes == p || thunk_uses(s->second, p))
    return false;
  for (int a = 0; a < s->args.len; a++)
    if (s->args.data[a] == p)
      return false;
  int q = param_index(r->kernel, s->segdes);
  if (q < 0 || ((const LcuAtom *)r->args.data[q])->var != sd)
    return false;
  const LcuVar *index = s->pull->params.data[0];
  for (int e = 0; e < lcu_thunk_nexps(s->pull); e++)
    if (reads_elsewhere(lcu_thunk_exp(s->pull, e), p, index))
      return false;
  return true;
}

/* Can run 'r', which gives 'ids' (the seg_ids of 'sd') as argument
   'arg', be given a kernel that finds the segments instead: its MAPs
   SEG_MAPs over sd, its SEG_REDUCEs and SEG_SCANs over sd pulls that
   take the segment?  '*maps' (where not NULL): how many MAPs (a run
   with none cannot give the ids to other readers). */
static bool run_qualifies_counting(Walk *w, const LcuStmt *r, int arg, const LcuVar *sd, const LcuVar *ids,
                                   int *maps_out) {
  const LcuVar *p = run_param(r, arg, ids);
  if (!p)
    return false;
  const LcuKernel *k = r->kernel;
  int maps = 0, segmented = 0;
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (!involves(s, p))
      continue;
    if (seg_soac_qualifies(r, s, p, sd)) {
      segmented++;
      continue;
    }
    if (s->kind != SOAC_MAP || s->size.var == p || thunk_uses(s->second, p) || s->pull->params.len != 1)
      return false;
    const LcuVar *index = s->pull->params.data[0];
    for (int e = 0; e < lcu_thunk_nexps(s->pull); e++)
      if (reads_elsewhere(lcu_thunk_exp(s->pull, e), p, index))
        return false;
    /* the MAP's space is sd's elements */
    if (s->size.length != p) {
      if (!s->size.var)
        return false;
      int q = param_index(k, s->size.var);
      if (q < 0 || !is_total_of(w, r->args.data[q], sd, ids))
        return false;
    }
    maps++;
  }
  if (maps_out)
    *maps_out = maps;
  return maps + segmented > 0;
}

static bool run_qualifies(Walk *w, const LcuStmt *r, int arg, const LcuVar *sd, const LcuVar *ids) {
  return run_qualifies_counting(w, r, arg, sd, ids, NULL);
}

static int position_in(const LcuBlock *b, const LcuStmt *s) {
  for (int i = 0; i < b->stmts.len; i++)
    if (b->stmts.data[i] == s)
      return i;
  return -1;
}

/* Does statement 'x' run only after 'h' has: later in h's block, or in
   a block of a statement later there (at any depth)? */
static bool comes_after(Walk *w, const LcuStmt *h, const LcuStmt *x) {
  const LcuBlock *bh = ptrmap_get(&w->block_of, h);
  for (const LcuStmt *cur = x; cur;) {
    const LcuBlock *b = ptrmap_get(&w->block_of, cur);
    if (!b)
      return false;
    if (b == bh)
      return position_in(b, cur) > position_in(b, h);
    cur = ptrmap_get(&w->parent, b);
  }
  return false;
}

/* The run among 'uses' of 'ids' that can give the ids to the others:
   the first that qualifies and comes before every use that does not
   (#ids aside, which needs no ids); NULL where none does. */
static const FusUse *ids_giver(Walk *w, const Vec *uses, const LcuVar *sd, const LcuVar *ids) {
  for (int g = 0; g < uses->len; g++) {
    const FusUse *giver = uses->data[g];
    int maps = 0;
    if (!run_qualifies_counting(w, giver->stmt, giver->arg, sd, ids, &maps) || maps == 0)
      continue;
    bool before_all = true;
    for (int u = 0; u < uses->len && before_all; u++) {
      const FusUse *use = uses->data[u];
      if (use->stmt == giver->stmt || is_length_of(use->stmt) || run_qualifies(w, use->stmt, use->arg, sd, ids))
        continue;
      before_all = comes_after(w, giver->stmt, use->stmt);
    }
    if (before_all)
      return giver;
  }
  return NULL;
}

/* ---- the rewrite ---- */

/* The copy of kernel 'k' made for parameter 'arg' and what the copy is
   for (gives_ids, field), if one was made: '*made' true; else a new
   copy whose parameter 'arg' is a new sd, '*p' the parameter it
   replaces there (placed and named by place_kernels, beside the
   original).  Kernels are shared by runs: one copy serves every run
   that needs the same. */
static LcuKernel *copy_for(Pass *ps, const LcuKernel *k, int arg, bool gives_ids, LcuExpKind field, bool *made,
                           LcuVar **p) {
  for (int i = 0; i < ps->rewritten.len; i++) {
    const Rewritten *rw = ps->rewritten.data[i];
    if (rw->from == k && rw->param == arg && rw->gives_ids == gives_ids && rw->field == field) {
      *made = true;
      return rw->to;
    }
  }
  LcuKernel *c = lcu_copy_kernel(ps->p, k);
  *p = c->params.data[arg];
  c->params.data[arg] = lcu_new_var(ps->p, lcu_segdes(), "sd");
  Rewritten *rw = NEW(Rewritten);
  *rw = (Rewritten){k, arg, gives_ids, field, c};
  vec_push(&ps->rewritten, rw);
  *made = false;
  return c;
}

/* Kernel 'k' with parameter 'arg' a sd, and each MAP that reads it (or
   is sized by it) a SEG_MAP over that sd reading the segment where it
   read the parameter at its index; each SEG_REDUCE or SEG_SCAN that
   reads it (over that sd already, run_qualifies) the same, its pull
   given the segment as a second parameter. */
static LcuKernel *seg_map_kernel(Pass *ps, const LcuKernel *k, int arg, bool gives_ids) {
  bool made;
  LcuVar *p;
  LcuKernel *c = copy_for(ps, k, arg, gives_ids, LE_VAR, &made, &p);
  if (made)
    return c;
  LcuVar *sd = c->params.data[arg];
  bool ids_given = false;
  for (int i = 0; i < c->soacs.len; i++) {
    LcuSoac *s = c->soacs.data[i];
    if (!involves(s, p))
      continue;
    LcuThunk *t = s->pull;
    const LcuVar *index = t->params.data[0];
    LcuVar *seg = lcu_thunk_param(ps->p, t, FB_INT, "s");
    for (int l = 0; l < t->lets.len; l++) {
      LcuLet *let = t->lets.data[l];
      let->value = lcu_subst_index(ps->p, let->value, p, index, lcu_exp_var(let->value->loc, seg));
    }
    for (int e = 0; e < t->body.len; e++) {
      LcuExp *x = t->body.data[e];
      t->body.data[e] = lcu_subst_index(ps->p, x, p, index, lcu_exp_var(x->loc, seg));
    }
    lcu_fill_using(t);
    if (s->kind == SOAC_SEG_REDUCE || s->kind == SOAC_SEG_SCAN || s->kind == SOAC_SPLIT)
      continue; /* its own sd, and a pull that now takes the segment */
    if (gives_ids && !ids_given) {
      /* the segment of each element, which is what seg_ids gave */
      vec_push(&t->body, lcu_exp_var(s->loc, seg));
      LcuVar *ids = lcu_new_var(ps->p, lcu_vec(FB_INT), "ids");
      vec_push(&s->results, ids);
      vec_push(&c->results, ids);
      ids_given = true;
    }
    s->kind = SOAC_SEG_MAP;
    s->segdes = sd;
    s->size = (LcuSize){0};
  }
  return c;
}

static void remove_stmt(LcuBlock *b, const LcuStmt *s) {
  int to = 0;
  for (int i = 0; i < b->stmts.len; i++)
    if (b->stmts.data[i] != s)
      b->stmts.data[to++] = b->stmts.data[i];
  b->stmts.len = to;
}

static void rewrite_body(Pass *ps, LcuBlock *body) {
  if (!body)
    return;
  Walk w = {0};
  walk_block(&w, body);
  fus_note_uses(body, &w.uses, &w.escapes);
  for (int i = 0; i < w.seg_ids.len; i++) {
    LcuStmt *def = w.seg_ids.data[i];
    LcuVar *ids = def->results.data[0];
    LcuVar *sd = ((const LcuAtom *)def->args.data[0])->var;
    const Vec *uses = ptrmap_get(&w.uses, ids);
    if (!uses || ptrmap_get(&w.escapes, ids))
      continue;
    bool all = true;
    for (int u = 0; u < uses->len && all; u++) {
      const FusUse *use = uses->data[u];
      all = is_length_of(use->stmt) || run_qualifies(&w, use->stmt, use->arg, sd, ids);
    }
    const FusUse *giver = all ? NULL : ids_giver(&w, uses, sd, ids);
    if (!all && !giver)
      continue;
    /* the ids the readers that do not qualify read: the giver's new
       result */
    LcuVar *given = giver ? lcu_new_var(ps->p, lcu_vec(FB_INT), "ids") : NULL;
    for (int u = 0; u < uses->len; u++) {
      const FusUse *use = uses->data[u];
      if (is_length_of(use->stmt)) { /* #ids: the number of elements of sd */
        use->stmt->length = LEN_TOTAL;
        use->stmt->args.data[0] = lcu_atom_var(sd);
        continue;
      }
      if (giver && use->stmt != giver->stmt && !run_qualifies(&w, use->stmt, use->arg, sd, ids)) {
        use->stmt->args.data[use->arg] = lcu_atom_var(given);
        continue;
      }
      bool gives = giver && use->stmt == giver->stmt;
      use->stmt->kernel = seg_map_kernel(ps, use->stmt->kernel, use->arg, gives);
      use->stmt->args.data[use->arg] = lcu_atom_var(sd);
      if (gives)
        vec_push(&use->stmt->results, given);
      ps->runs++;
    }
    remove_stmt(ptrmap_get(&w.block_of, def), def);
    vec_push(&ps->dropped, def->kernel);
    ps->removed++;
  }
}

/* ---- segment lengths and offsets read in place ---- */

/* Does 'e' read 'p' other than at an index (p[e']) or as #p? */
static bool read_not_at(const LcuExp *e, const LcuVar *p) {
  if (e->var == p && e->kind != LE_INDEX && e->kind != LE_LENGTH && e->kind != LE_LET)
    return true; /* p where a scalar is read */
  for (int k = 0; k < e->nargs; k++)
    if (read_not_at(e->args[k], p))
      return true;
  return false;
}

static bool thunk_reads_not_at(const LcuThunk *t, const LcuVar *p) {
  for (int e = 0; t && e < lcu_thunk_nexps(t); e++)
    if (read_not_at(lcu_thunk_exp(t, e), p))
      return true;
  return false;
}

/* Can run 'r', which gives 'v' (a sd's lengths or offsets) as argument
   'arg', read the sd instead: does its kernel read that parameter only
   at indices in thunks? */
bool fus_field_run_qualifies(const LcuStmt *r, int arg, const LcuVar *v) {
  const LcuVar *p = run_param(r, arg, v);
  if (!p)
    return false;
  const LcuKernel *k = r->kernel;
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (!involves(s, p))
      continue;
    /* a size #p is the sd's number of segments, which the run passes */
    if (s->kind == SOAC_LIBRARY || s->size.var == p || s->segdes == p || s->into == p ||
        thunk_reads_not_at(s->pull, p) || thunk_reads_not_at(s->second, p))
      return false;
  }
  return true;
}

/* Every read p[e] in 'e' made 'field'(sd, e), and #p #sd (its number of
   segments, p's length), in place (in a copy). */
static void read_field(LcuExp *e, const LcuVar *p, LcuVar *sd, LcuExpKind field) {
  for (int k = 0; k < e->nargs; k++)
    read_field(e->args[k], p, sd, field);
  if (e->kind == LE_INDEX && e->var == p) {
    e->kind = field;
    e->var = sd;
    e->in_range = false;
  } else if (e->kind == LE_LENGTH && e->var == p) {
    e->var = sd;
  }
}

static void thunk_read_field(LcuThunk *t, const LcuVar *p, LcuVar *sd, LcuExpKind field) {
  if (!t)
    return;
  for (int e = 0; e < lcu_thunk_nexps(t); e++)
    read_field(lcu_thunk_exp(t, e), p, sd, field);
  lcu_fill_using(t);
}

/* Kernel 'k' with parameter 'arg' a sd whose lengths or offsets
   ('field') its thunks read where they read the parameter. */
static LcuKernel *field_kernel(Pass *ps, const LcuKernel *k, int arg, LcuExpKind field) {
  bool made;
  LcuVar *p;
  LcuKernel *c = copy_for(ps, k, arg, false, field, &made, &p);
  if (made)
    return c;
  LcuVar *sd = c->params.data[arg];
  LcuVar *count = NULL;
  for (int i = 0; i < c->soacs.len; i++) {
    LcuSoac *s = c->soacs.data[i];
    if (!involves(s, p))
      continue;
    thunk_read_field(s->pull, p, sd, field);
    thunk_read_field(s->second, p, sd, field);
    if (s->size.length == p) { /* #p: the number of segments, a parameter */
      if (!count) {
        count = lcu_new_var(ps->p, lcu_scalar(FB_INT), "segments");
        vec_push(&c->params, count);
        ptrmap_put(&ps->counted, c, count);
      }
      s->size = (LcuSize){count, NULL, 0};
    }
  }
  return c;
}

/* A `#segments sd` bound before statement 's', in its block or one
   around it, or NULL. */
static LcuVar *segments_before(Walk *w, const LcuStmt *s, const LcuVar *sd) {
  for (const LcuStmt *cur = s; cur;) {
    const LcuBlock *b = ptrmap_get(&w->block_of, cur);
    for (int i = 0; i < b->stmts.len && b->stmts.data[i] != cur; i++) {
      const LcuStmt *t = b->stmts.data[i];
      if (t->kind == LS_LENGTH && t->length == LEN_SEGMENTS && ((const LcuAtom *)t->args.data[0])->var == sd)
        return t->results.data[0];
    }
    cur = ptrmap_get(&w->parent, b);
  }
  return NULL;
}

/* Gives run 'r' of block 'b' the number of segments of 'sd' as its last
   argument (a copy that field_kernel gave a count parameter): a `let n =
   #segments sd` bound before it, or a new one just before it. */
static void pass_count(Pass *ps, Walk *w, LcuBlock *b, LcuStmt *r, LcuVar *sd) {
  LcuVar *known = segments_before(w, r, sd);
  if (known) {
    lcu_stmt_arg(r, lcu_atom_var(known));
    return;
  }
  LcuStmt *len = lcu_stmt_length(r->loc, LEN_SEGMENTS, lcu_atom_var(sd));
  len->lib_fn = r->lib_fn; /* in the run's context, as where it stands */
  len->user_loc = r->user_loc;
  LcuVar *n = lcu_stmt_result(ps->p, len, lcu_scalar(FB_INT));
  lcu_stmt_arg(r, lcu_atom_var(n));
  vec_push(&b->stmts, NULL);
  int at = b->stmts.len - 1;
  while (at > 0 && b->stmts.data[at - 1] != r) {
    b->stmts.data[at] = b->stmts.data[at - 1];
    at--;
  }
  /* at: just after r; r moves one down, the length takes its place */
  b->stmts.data[at] = r;
  b->stmts.data[at - 1] = len;
}

static void rewrite_fields(Pass *ps, LcuBlock *body) {
  if (!body)
    return;
  Walk w = {0};
  walk_block(&w, body);
  fus_note_uses(body, &w.uses, &w.escapes);
  for (int i = 0; i < w.fields.len; i++) {
    LcuStmt *def = w.fields.data[i];
    LcuVar *v = def->results.data[0];
    LcuVar *sd = ((const LcuAtom *)def->args.data[0])->var;
    LcuExpKind field = field_of_kernel(def->kernel);
    const Vec *uses = ptrmap_get(&w.uses, v);
    if (ptrmap_get(&w.escapes, v))
      continue;
    bool all = true;
    for (int u = 0; uses && u < uses->len && all; u++) {
      const FusUse *use = uses->data[u];
      all = is_length_of(use->stmt) || fus_field_run_qualifies(use->stmt, use->arg, v);
    }
    if (!all)
      continue;
    for (int u = 0; uses && u < uses->len; u++) {
      const FusUse *use = uses->data[u];
      if (is_length_of(use->stmt)) { /* #v: the number of segments of sd */
        use->stmt->length = LEN_SEGMENTS;
        use->stmt->args.data[0] = lcu_atom_var(sd);
        continue;
      }
      use->stmt->kernel = field_kernel(ps, use->stmt->kernel, use->arg, field);
      use->stmt->args.data[use->arg] = lcu_atom_var(sd);
      if (ptrmap_get(&ps->counted, use->stmt->kernel))
        pass_count(ps, &w, ptrmap_get(&w.block_of, use->stmt), use->stmt, sd);
      ps->runs++;
    }
    remove_stmt(ptrmap_get(&w.block_of, def), def);
    vec_push(&ps->dropped, def->kernel);
    ps->removed++;
  }
}

/* Marks in 'run' every kernel a run of 'b' runs. */
static void mark_runs(const LcuBlock *b, PtrMap *run) {
  if (!b)
    return;
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN)
      ptrmap_put(run, s->kernel, (void *)1);
    mark_runs(s->then, run);
    mark_runs(s->els, run);
    mark_runs(s->body, run);
  }
}

/* Appends 'k' to 'out' unless it is 'gone' and not run, and after it
   the copies made of it (and of them). */
static void place_kernel(Pass *ps, LcuKernel *k, const PtrMap *run, const PtrMap *gone, Vec *out) {
  if (!ptrmap_get(gone, k) || ptrmap_get(run, k))
    vec_push(out, k);
  for (int i = 0; i < ps->rewritten.len; i++) {
    const Rewritten *rw = ps->rewritten.data[i];
    if (rw->from == k)
      place_kernel(ps, rw->to, run, gone, out);
  }
}

/* The copies take the places of their originals, which are dropped
   where no run is left to them, as are the seg_ids kernels without a
   run, so that code generation does not emit them; the kernels are
   named K1, K2, ... again in order (a kernel keeps its number where
   nothing before it went). */
static void place_kernels(Pass *ps) {
  LcuProgram *p = ps->p;
  PtrMap run = {0}, gone = {0};
  for (int i = 0; i < p->funcs.len; i++)
    mark_runs(((LcuFunc *)p->funcs.data[i])->body, &run);
  for (int i = 0; i < p->tops.len; i++)
    mark_runs(((LcuTop *)p->tops.data[i])->body, &run);
  for (int i = 0; i < ps->rewritten.len; i++)
    ptrmap_put(&gone, ((Rewritten *)ps->rewritten.data[i])->from, (void *)1);
  for (int i = 0; i < ps->dropped.len; i++)
    ptrmap_put(&gone, ps->dropped.data[i], (void *)1);
  Vec placed = {0};
  for (int i = 0; i < p->kernels.len; i++)
    place_kernel(ps, p->kernels.data[i], &run, &gone, &placed);
  for (int i = 0; i < placed.len; i++)
    ((LcuKernel *)placed.data[i])->name = xprintf("K%d", i + 1);
  p->kernels = placed;
}

/* 'rewrite' on the body of every function and top-level statement of
   'p', then the kernels placed where any changed. */
static Pass each_body(LcuProgram *p, void (*rewrite)(Pass *, LcuBlock *)) {
  Pass ps = {p, {0}, {0}, 0, 0, {0}};
  for (int i = 0; i < p->funcs.len; i++)
    rewrite(&ps, ((LcuFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++)
    rewrite(&ps, ((LcuTop *)p->tops.data[i])->body);
  if (ps.runs || ps.removed)
    place_kernels(&ps);
  return ps;
}

int fus_segment_fields(LcuProgram *p) { return each_body(p, rewrite_fields).removed; }

int fus_segment_maps(LcuProgram *p) { return each_body(p, rewrite_body).runs; }
