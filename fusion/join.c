/*
 * join.c: a PARTITION's parts appended back, made one vector
 * (fus_join_partitions).
 *
 * `let parts = split(xs, flags) in parts[0] ++ parts[1]`, radix sort's
 * pass, is after flattening (flatten.c, whole_append) and fusion a run
 * of a kernel whose PARTITION gives the kept elements a and the others
 * b, the host's reads #a and #b and their sum, and a run of an append
 * kernel of a and b.  On a GPU the host waited for the PARTITION's
 * count to cut a and b, and then copied b after a.  Where nothing else
 * reads a, b or those lengths, the PARTITION is made `joined` (lcu.h):
 * its one vector a value is a ++ b, of the PARTITION's size, which the
 * host knows; the append, the sum and the lengths go.  codegen/cuda.c
 * moves the others after the kept on the device, by the count the
 * launch leaves there (rtg::partition_joined), so that the host need
 * not wait; the CPU target writes them there in its second pass.
 *
 * The kernel is copied before it changes: a kernel may be run from
 * several places, and only this run's results are appended.
 *
 * It runs after fusion (driver/pipeline.c, after_fusion), on the
 * kernels fusion made: the rules know a PARTITION's two groups of
 * results only, and candidates.c leaves a joined one alone.
 */
#include "fusion.h"

/* The most columns of an append kernel looked at (as codegen's append
   in place). */
enum { MOST_COLUMNS = 8 };

typedef struct Join {
  LcuProgram *p;
  PtrMap uses;    /* LcuVar -> Vec * of FusUse: the body's statements that
                     read it (fus_note_uses) */
  PtrMap escapes; /* LcuVar -> non-NULL where a block returns it */
  int joined;
} Join;

/* Does every read of 'v' in the body stand in statement 's' (none where
   'v' is read nowhere), and no block return it? */
static bool read_only_by(const Join *j, const LcuVar *v, const LcuStmt *s) {
  if (ptrmap_get(&j->escapes, v))
    return false;
  const Vec *uses = ptrmap_get(&j->uses, v);
  for (int i = 0; uses && i < uses->len; i++)
    if (((const FusUse *)uses->data[i])->stmt != s)
      return false;
  return true;
}

static int index_of(const Vec *vars, const LcuVar *v) {
  for (int i = 0; i < vars->len; i++)
    if (vars->data[i] == v)
      return i;
  return -1;
}

/* The statement of block 'b' before 'before' that binds 'v', or -1. */
static int binder(const LcuBlock *b, int before, const LcuVar *v) {
  for (int i = 0; i < before; i++)
    if (index_of(&((const LcuStmt *)b->stmts.data[i])->results, v) >= 0)
      return i;
  return -1;
}

/* Is 'v' read by a SOAC of 'k' after its 'at'th, or more or less than
   once among k's results ('once'; where not 'once': at all)? */
static bool read_in_kernel(const LcuKernel *k, int at, const LcuVar *v, bool once) {
  for (int i = at + 1; i < k->soacs.len; i++)
    if (lcu_soac_reads(k->soacs.data[i], v))
      return true;
  int n = 0;
  for (int i = 0; i < k->results.len; i++)
    n += k->results.data[i] == v;
  return once ? n != 1 : n != 0;
}

/* The host's reads of the appended parts go with the append: each
   part is read only by the append 'R' and by lengths #v in block 'b'
   whose only reader is R's size 'Z'.  Marks those lengths in 'gone'. */
static bool only_appended(const Join *j, const LcuBlock *b, const LcuStmt *R, const LcuStmt *Z,
                          const LcuVar *const *parts, int nparts, bool *gone) {
  for (int i = 0; i < nparts; i++) {
    if (ptrmap_get(&j->escapes, parts[i]))
      return false;
    const Vec *uses = ptrmap_get(&j->uses, parts[i]);
    for (int u = 0; uses && u < uses->len; u++) {
      const LcuStmt *L = ((const FusUse *)uses->data[u])->stmt;
      if (L == R)
        continue;
      int at = -1;
      for (int s = 0; s < b->stmts.len && at < 0; s++)
        if (b->stmts.data[s] == L)
          at = s;
      if (at < 0 || L->kind != LS_LENGTH || L->length != LEN_VECTOR || !read_only_by(j, L->results.data[0], Z))
        return false;
      gone[at] = true;
    }
  }
  return true;
}

/* The append run at r of block 'b' (its columns 'cols', their parts at
   'first' and 'second' among its arguments, its size at 'size'): joined
   into the PARTITION that made the parts, where that may be.  True if
   the block changed. */
static bool join_append(Join *j, LcuBlock *b, int r, int cols, const int *first, const int *second, int size) {
  LcuStmt *R = b->stmts.data[r];
  const LcuAtom *n = R->args.data[size];
  if (!n->var || !read_only_by(j, n->var, R))
    return false;
  int z = binder(b, r, n->var);
  if (z < 0)
    return false;
  const LcuStmt *Z = b->stmts.data[z];
  if (Z->kind != LS_SIZE || Z->size != SIZE_APPEND)
    return false;
  /* the run that made the first column's first part, and its PARTITION */
  const LcuVar *a0 = ((const LcuAtom *)R->args.data[first[0]])->var;
  int pi = a0 ? binder(b, r, a0) : -1;
  if (pi < 0)
    return false;
  LcuStmt *P = b->stmts.data[pi];
  if (P->kind != LS_RUN)
    return false;
  const LcuKernel *K = P->kernel;
  const LcuVar *ka0 = K->results.data[index_of(&P->results, a0)];
  int si = -1;
  for (int i = 0; i < K->soacs.len && si < 0; i++) {
    const LcuSoac *s = K->soacs.data[i];
    if (s->kind == SOAC_PARTITION && !s->joined && index_of(&s->results, ka0) >= 0)
      si = i;
  }
  if (si < 0)
    return false;
  const LcuSoac *S = K->soacs.data[si];
  int nv = S->pull->body.len;
  /* each column the kept and the others of one value, every column in
     the same order: kept first, or (split's, whose PARTITION keeps the
     true flags) the others first, for which the predicate is negated */
  int *column = xmalloc_atomic(sizeof(int) * (size_t)nv);
  for (int v = 0; v < nv; v++)
    column[v] = -1;
  const LcuVar *parts[2 * MOST_COLUMNS];
  int flipped = -1;
  for (int c = 0; c < cols; c++) {
    const LcuVar *a = ((const LcuAtom *)R->args.data[first[c]])->var;
    const LcuVar *o = ((const LcuAtom *)R->args.data[second[c]])->var;
    int ra = a ? index_of(&P->results, a) : -1, ro = o ? index_of(&P->results, o) : -1;
    if (ra < 0 || ro < 0 || a == o)
      return false;
    int at = index_of(&S->results, K->results.data[ra]), to = index_of(&S->results, K->results.data[ro]);
    bool flip = at >= nv;
    int v = flip ? to : at;
    if (at < 0 || to < 0 || (flipped >= 0 && flip != flipped) || v < 0 || v >= nv || column[v] >= 0 ||
        (flip ? at : to) != nv + v)
      return false;
    flipped = flip;
    column[v] = c;
    parts[2 * c] = a;
    parts[2 * c + 1] = o;
  }
  /* a value not appended is read by nothing; an appended one's two
     parts are the kernel's results once each, and read by no SOAC after */
  for (int v = 0; v < nv; v++)
    for (int g = 0; g < 2; g++)
      if (read_in_kernel(K, si, S->results.data[g * nv + v], column[v] >= 0))
        return false;
  bool *gone = xmalloc_atomic(sizeof(bool) * (size_t)b->stmts.len);
  for (int i = 0; i < b->stmts.len; i++)
    gone[i] = false;
  if (!only_appended(j, b, R, Z, parts, 2 * cols, gone))
    return false;
  /* the size is the sum of one column's lengths: n, the PARTITION's size */
  bool sum = false;
  for (int c = 0; c < cols && !sum; c++) {
    int l0 = 0, l1 = 0;
    for (int a = 0; a < 2; a++) {
      const LcuVar *len = ((const LcuAtom *)Z->args.data[a])->var;
      int at = len ? binder(b, z, len) : -1;
      const LcuStmt *L = at >= 0 ? b->stmts.data[at] : NULL;
      if (!L || L->kind != LS_LENGTH || L->length != LEN_VECTOR)
        break;
      const LcuVar *of = ((const LcuAtom *)L->args.data[0])->var;
      l0 += of == parts[2 * c];
      l1 += of == parts[2 * c + 1];
    }
    sum = l0 == 1 && l1 == 1;
  }
  if (!sum)
    return false;

  /* a copy of the kernel, its PARTITION joined, the others' results gone */
  LcuKernel *J = lcu_copy_kernel(j->p, K);
  LcuSoac *SJ = J->soacs.data[si];
  Vec others = {0};
  for (int v = 0; v < nv; v++)
    vec_push(&others, SJ->results.data[nv + v]);
  SJ->joined = true;
  SJ->results.len = nv;
  if (flipped) { /* the others kept: those for which the predicate fails */
    LcuExp *p = SJ->second->body.data[0];
    SJ->second->body.data[0] = lcu_exp_op(p->loc, FLAT_NOT, FB_BOOL, 1, p, NULL, NULL);
  }
  Vec kresults = {0}, presults = {0};
  for (int i = 0; i < J->results.len; i++) {
    const LcuVar *kr = J->results.data[i];
    if (index_of(&others, kr) >= 0)
      continue;
    vec_push(&kresults, (void *)kr);
    int v = index_of(&SJ->results, kr);
    vec_push(&presults, v >= 0 && column[v] >= 0 ? R->results.data[column[v]] : P->results.data[i]);
  }
  J->results = kresults;
  P->results = presults;
  P->kernel = J;
  lcu_add_kernel(j->p, J);
  /* the append, its size and the lengths it read go */
  gone[r] = gone[z] = true;
  int to = 0;
  for (int i = 0; i < b->stmts.len; i++)
    if (!gone[i])
      b->stmts.data[to++] = b->stmts.data[i];
  b->stmts.len = to;
  j->joined++;
  return true;
}

/* Joins the first append of block 'b' (or of a block nested in it) that
   may be; true if one was. */
static bool join_block(Join *j, LcuBlock *b) {
  for (int r = 0; r < b->stmts.len; r++) {
    const LcuStmt *s = b->stmts.data[r];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k] && join_block(j, nested[k]))
        return true;
    if (s->kind != LS_RUN)
      continue;
    int first[MOST_COLUMNS], second[MOST_COLUMNS], size;
    int cols = lcu_append_kernel(s->kernel, first, second, &size, MOST_COLUMNS);
    if (cols && join_append(j, b, r, cols, first, second, size))
      return true;
  }
  return false;
}

/* Every append of the body that may be joined, one at a time, its reads
   noted again after each (statements went). */
static void join_body(Join *j, LcuBlock *body) {
  if (!body)
    return;
  do {
    ptrmap_clear(&j->uses);
    ptrmap_clear(&j->escapes);
    fus_note_uses(body, &j->uses, &j->escapes);
  } while (join_block(j, body));
}

int fus_join_partitions(LcuProgram *p) {
  Join j = {p, {0}, {0}, 0};
  for (int i = 0; i < p->funcs.len; i++)
    if (!((LcuFunc *)p->funcs.data[i])->each) /* an element function runs no kernel */
      join_body(&j, ((LcuFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++)
    join_body(&j, ((LcuTop *)p->tops.data[i])->body);
  if (j.joined) /* the kernels copied from may run nowhere now */
    lcu_prune_kernels(p);
  return j.joined;
}
