/*
 * delay.c: runs delayed to their first reader (fus_delay_runs).
 *
 * On a GPU the host waits wherever it reads a value the device makes:
 * a segdes's total (the size of what is made from it), a count.  Two
 * such reads in a row cost one wait when the second value is made
 * before the first is asked for (codegen/host.c asks for them together,
 * rtg_seg_totals).  Fusion's merge puts each cluster where its inputs
 * are ready, so a run that nothing reads for a while stands between the
 * sds of one level: a lifted `if` makes the sds of both branches, and
 * the `then` branch's pack, with the first total it needs, stood
 * between them (quicksort's level asked for the two totals in two
 * waits).  This pass moves each run that cannot fail or have an effect,
 * and each host read of a length, down its block to just before the
 * first statement that reads what it makes: the values are the same,
 * and the reads that wait come after what the device can make first.
 * A run that makes a segdes whose total the block reads later moves up
 * instead, to before the first read of a total after it (hoist_block),
 * and down no further than the next one, so that the totals are asked
 * for together.
 *
 * It runs last in -O1 (driver/pipeline.c, after fus_segment_maps).
 */
#include <string.h>

#include "fusion.h"

/* Does statement 's' (its arguments, its nested blocks) read a result of
   'of'? */
static bool reads_block(const LcuBlock *b, const LcuStmt *of);

static bool reads_result(const LcuStmt *s, const LcuStmt *of) {
  if (lcu_atoms_read_results(&s->args, of))
    return true;
  const LcuBlock *nested[3] = {s->then, s->els, s->body};
  for (int k = 0; k < 3; k++)
    if (nested[k] && reads_block(nested[k], of))
      return true;
  return false;
}

static bool reads_block(const LcuBlock *b, const LcuStmt *of) {
  for (int i = 0; i < b->stmts.len; i++)
    if (reads_result(b->stmts.data[i], of))
      return true;
  return lcu_atoms_read_results(&b->results, of);
}

/* May 's' move later in its block?  Only what computes a value and
   nothing more: a run that cannot fail or have an effect, a length. */
static bool movable(FusFacts *f, const LcuStmt *s) {
  if (!s->results.len)
    return false;
  if (s->kind == LS_LENGTH)
    return true;
  return s->kind == LS_RUN && !fus_stmt_effects(f, s);
}

/* Does run 's' make a segdes? */
static bool makes_segdes(const LcuStmt *s) {
  for (int r = 0; r < s->results.len; r++)
    if (((const LcuVar *)s->results.data[r])->type.kind == LT_SEGDES)
      return true;
  return false;
}

/* Is 's' a host read of a segdes's total (a wait on a GPU)? */
static bool reads_total(const LcuStmt *s) { return s->kind == LS_LENGTH && s->length == LEN_TOTAL; }

/* Does a statement of 'b' after index 'q' read the total of a segdes
   that run 's' makes? */
static bool total_read_after(const LcuBlock *b, int q, const LcuStmt *s) {
  for (int j = q + 1; j < b->stmts.len; j++)
    if (reads_total(b->stmts.data[j]) && reads_result(b->stmts.data[j], s))
      return true;
  return false;
}

/* Before each read of a total in 'b', a run after it that makes a segdes
   whose total b reads later moves up to just before it, with the runs
   between that make its arguments, when all of them can move (cannot
   fail or have an effect): codegen asks for the totals of the sds made
   by then in one wait (totals_together).  Fusion's merge may leave such
   a run after the first read (a lifted if's else-branch sd, after the
   then-branch's pack: quicksort's level waited twice where it had
   waited once). */
static void hoist_block(FusFacts *f, LcuBlock *b) {
  for (int p = 0; p < b->stmts.len; p++) {
    if (!reads_total(b->stmts.data[p]))
      continue;
    for (int q = p + 1; q < b->stmts.len; q++) {
      LcuStmt *s = b->stmts.data[q];
      if (s->kind != LS_RUN || !makes_segdes(s) || !movable(f, s) || !total_read_after(b, q, s))
        continue;
      /* what s needs among the statements after p: each must move too */
      bool *need = xmalloc(sizeof(bool) * (size_t)(q + 1)); /* zeroed */
      need[q] = true;
      bool ok = true;
      for (int k = q - 1; k >= p && ok; k--) {
        const LcuStmt *t = b->stmts.data[k];
        bool needed = false;
        for (int m = k + 1; m <= q && !needed; m++)
          needed = need[m] && reads_result(b->stmts.data[m], t);
        if (!needed)
          continue;
        if (k == p || !movable(f, t))
          ok = false;
        else
          need[k] = true;
      }
      if (ok) { /* the needed ones, in order, just before p */
        Vec moved = {0}, rest = {0};
        for (int k = p; k <= q; k++)
          vec_push(need[k] ? &moved : &rest, b->stmts.data[k]);
        for (int k = 0; k < moved.len; k++)
          b->stmts.data[p + k] = moved.data[k];
        for (int k = 0; k < rest.len; k++)
          b->stmts.data[p + moved.len + k] = rest.data[k];
        p += moved.len; /* the read, moved down with the others */
      }
    }
  }
}

static void delay_block(FusFacts *f, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        delay_block(f, nested[k]);
  }
  hoist_block(f, b);
  /* last first: a statement moves to just before its first reader, after
     that reader's own move */
  for (int i = b->stmts.len - 2; i >= 0; i--) {
    LcuStmt *s = b->stmts.data[i];
    if (!movable(f, s))
      continue;
    /* a run that makes a segdes stops before the first read of a total
       too: codegen asks for the totals of the sds made by then together
       (totals_together), and one made after it waits on its own (a
       lifted if's two branch sds, once their range_segdes could not
       fail: quicksort 10^6, 3,015 -> 3,267 host waits in 13 sorts on
       the H200, docs/gpu-runs.md, twenty-first session, call 4) */
    bool sd = makes_segdes(s);
    int j = i + 1;
    while (j < b->stmts.len && !reads_result(b->stmts.data[j], s) && !(sd && reads_total(b->stmts.data[j])))
      j++;
    /* j: its first reader, or the end (the block's results) */
    if (j == i + 1)
      continue;
    memmove(b->stmts.data + i, b->stmts.data + i + 1, sizeof(void *) * (size_t)(j - 1 - i));
    b->stmts.data[j - 1] = s;
  }
}

static void delay_body(LcuBlock *body) {
  if (!body)
    return;
  FusFacts f = {0};
  fus_fill_facts(body, &f);
  delay_block(&f, body);
  fus_release_facts(&f);
}

void fus_delay_runs(LcuProgram *p) {
  for (int i = 0; i < p->funcs.len; i++)
    if (!((LcuFunc *)p->funcs.data[i])->each) /* an element function runs no kernel */
      delay_body(((LcuFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++)
    delay_body(((LcuTop *)p->tops.data[i])->body);
}
