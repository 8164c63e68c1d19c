/*
 * guard.c: what a check's branch reads, computed again inside it
 * (fus_copy_into_guards).
 *
 * Flattening guards a check that can fail only in a rare case with a
 * host `if` (flatten.c, append_check: a lifted `++`'s per-segment check
 * that sums of lengths fit an int runs only where the host's bound on
 * them does not fit).  The branch reads vectors the block computes
 * before it, and so ties them there: fusion may not move their runs
 * past the `if`, nor join them with runs after it that can fail, which
 * must stay after the check.  Quicksort's append computed its parts'
 * lengths before its two guards and made their segdes after them, two
 * runs a level where one does (docs/fusion.md, "Checks' branches
 * compute their own inputs").
 *
 * So each branch of an `if` without results that holds a check gets a
 * copy of the statements that compute what it reads from its block:
 * the runs of MAPs (and of a segdes's lengths or offsets) that cannot
 * fail or have an effect, the lengths and the scalar operations that
 * cannot fail, back to what is not such a statement (a parameter, a
 * call's result, a reduction, a run that can fail), whose results the
 * copies read where they are.  The copies bind new variables, and the
 * branch reads those.  The branch runs only when a check is needed,
 * and then computes again what it needs; the originals, read by the
 * branch no more, are free to move, or dead where nothing else reads
 * them (dropped).  A branch that would need more than COPY_LIMIT
 * statements keeps reading the originals.  Fusion leaves such a branch
 * as it is (fuse.c): it runs in the rare case only, and its runs are of
 * kernels the program has anyway, where fusing them made a kernel of
 * code for each guard (tests/programs/lib_lifted.nesl: 102,016 lines of
 * CUDA before, 111,517 with the copies fused, 104,252 unfused).
 *
 * Runs before fusion (driver/pipeline.c, after fus_simplify).
 */
#include "fusion.h"

/* More statements than this to copy into one branch, and the branch is
   left alone: the copies are host code that runs in a rare case. */
enum { COPY_LIMIT = 48 };

/* Is 's' a run of MAPs, or of a segdes's lengths or offsets: work of
   one pass over its elements, which fuses into one kernel with the
   others?  A reduction, a scan, a filter or a permutation is not
   copied: it stays where it was, and the copies read its results. */
static bool elementwise(const LcuStmt *s) {
  const LcuKernel *k = s->kernel;
  if (!k->soacs.len)
    return false;
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *x = k->soacs.data[i];
    if (!(x->kind == SOAC_MAP ||
          (x->kind == SOAC_LIBRARY && (x->library == LIB_SEG_LENGTHS || x->library == LIB_SEG_OFFSETS))))
      return false;
  }
  return true;
}

/* May 's' be computed again in a branch: it computes values and nothing
   more, cannot fail, and is cheap (elementwise, a length, a scalar
   operation). */
static bool copyable(FusFacts *f, const LcuStmt *s) {
  if (!s->results.len)
    return false;
  if (s->kind != LS_RUN && s->kind != LS_LENGTH && s->kind != LS_SCALAR)
    return false;
  if (s->kind == LS_RUN && !elementwise(s))
    return false;
  return !fus_stmt_effects(f, s);
}

bool fus_guard_branch(const LcuStmt *s, const LcuBlock *b) {
  if (s->kind != LS_IF || s->results.len || !b || (b != s->then && b != s->els))
    return false;
  for (int i = 0; i < b->stmts.len; i++)
    if (((const LcuStmt *)b->stmts.data[i])->kind == LS_CHECK)
      return true;
  return false;
}

/* A copy of statement 's' (copyable) binding new variables, recorded in
   'renaming'; its arguments renamed by it. */
static LcuStmt *copy_stmt(LcuProgram *p, const LcuStmt *s, PtrMap *renaming) {
  LcuStmt *c = NEW(LcuStmt);
  *c = *s;
  c->args = (Vec){0};
  c->results = (Vec){0};
  for (int a = 0; a < s->args.len; a++)
    vec_push(&c->args, s->args.data[a]);
  lcu_rename_atoms(&c->args, renaming);
  for (int r = 0; r < s->results.len; r++) {
    LcuVar *v = s->results.data[r];
    LcuVar *n = lcu_copy_var(p, v);
    ptrmap_put(renaming, v, n);
    vec_push(&c->results, n);
  }
  return c;
}

/* Branch 'br' of the `if` at index 'at' of 'b': the statements before it
   that compute what br reads, copied into it.  'def' maps each variable
   a copyable statement of b before 'at' binds to that statement.  The
   statements copied from are added to 'copied'. */
static void copy_into(LcuProgram *p, LcuBlock *b, int at, LcuBlock *br, const PtrMap *def, PtrMap *copied) {
  PtrMap read = {0}, escapes = {0}; /* what br reads, then what the copies read too */
  fus_note_uses(br, &read, &escapes);
  bool *need = xmalloc(sizeof(bool) * (size_t)(at + 1)); /* zeroed */
  int count = 0;
  /* last first: a needed statement's arguments are bound before it */
  for (int k = at - 1; k >= 0; k--) {
    const LcuStmt *s = b->stmts.data[k];
    bool needed = false;
    for (int r = 0; r < s->results.len && !needed; r++)
      needed = ptrmap_get(&read, s->results.data[r]) || ptrmap_get(&escapes, s->results.data[r]);
    if (!needed || !ptrmap_get(def, s->results.data[0]))
      continue;
    need[k] = true;
    if (++count > COPY_LIMIT)
      return;
    for (int a = 0; a < s->args.len; a++) {
      LcuVar *v = ((LcuAtom *)s->args.data[a])->var;
      if (v)
        ptrmap_put(&escapes, v, v);
    }
  }
  if (!count)
    return;
  PtrMap renaming = {0};
  Vec stmts = {0};
  for (int k = 0; k < at; k++)
    if (need[k]) {
      vec_push(&stmts, copy_stmt(p, b->stmts.data[k], &renaming));
      ptrmap_put(copied, b->stmts.data[k], b->stmts.data[k]);
    }
  lcu_rename_block(br, &renaming);
  for (int i = 0; i < br->stmts.len; i++)
    vec_push(&stmts, br->stmts.data[i]);
  br->stmts = stmts;
}

static void copy_block(LcuProgram *p, FusFacts *f, LcuBlock *b, PtrMap *copied) {
  PtrMap def = {0}; /* variable -> the copyable statement that binds it */
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        copy_block(p, f, nested[k], copied);
    LcuBlock *branch[2] = {s->then, s->els};
    for (int k = 0; k < 2; k++)
      if (fus_guard_branch(s, branch[k]))
        copy_into(p, b, i, branch[k], &def, copied);
    if (copyable(f, s))
      for (int r = 0; r < s->results.len; r++)
        ptrmap_put(&def, s->results.data[r], s);
  }
}

void fus_copy_into_guards(LcuProgram *p) {
  PtrMap copied = {0}; /* the statements copied from: dead where nothing else reads them */
  for (int i = 0; i < p->funcs.len; i++) {
    LcuFunc *fn = p->funcs.data[i];
    if (fn->each) /* an element function runs no kernel */
      continue;
    FusFacts f = {0};
    fus_fill_facts(fn->body, &f);
    copy_block(p, &f, fn->body, &copied);
    fus_release_facts(&f);
  }
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (!t->body)
      continue;
    FusFacts f = {0};
    fus_fill_facts(t->body, &f);
    copy_block(p, &f, t->body, &copied);
    fus_release_facts(&f);
  }
  lcu_drop_dead(p, &copied, true);
}
