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

static void delay_block(FusFacts *f, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        delay_block(f, nested[k]);
  }
  /* last first: a statement moves to just before its first reader, after
     that reader's own move */
  for (int i = b->stmts.len - 2; i >= 0; i--) {
    LcuStmt *s = b->stmts.data[i];
    if (!movable(f, s))
      continue;
    int j = i + 1;
    while (j < b->stmts.len && !reads_result(b->stmts.data[j], s))
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
    delay_body(((LcuFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++)
    delay_body(((LcuTop *)p->tops.data[i])->body);
}
