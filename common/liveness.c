/*
 * liveness.c: last reads within a block, the one analysis behind freeing
 * values after their last use: the flat IR's interpreter and λcu's use it
 * to clear a frame's slots, λcu's rewrite toolkit to tell which results a
 * kernel need not keep, and code generation will use it to free device
 * vectors.
 *
 * It sees a block as the IRs that call it describe one (LiveBlock): a
 * sequence of statements, each reading some variables itself and
 * perhaps holding nested blocks (an `if`'s branches, a timed body), whose
 * reads count as the statement's, and each binding some variables.  A
 * variable is any pointer that identifies one (a FlatVar, an LcuVar).
 * The describing IR leaves out what never dies (globals).
 *
 * For each statement i the answer lists the variables that die after it:
 * those the block binds or gets as parameters whose last read in the
 * block is statement i, and those that statement i binds and nothing
 * reads (they die at once).  A variable the block's results read lives
 * to the block's end and is in no list; so is a parameter of a block
 * without statements.
 */
#include "common.h"

/* Notes in 'last' that statement 'at' reads what 'b' reads, nested
   blocks included (the later read wins: statements are visited in
   order). */
static void note_reads(GenMap *last, const Vec *vars, int at) {
  for (int i = 0; i < vars->len; i++)
    *genmap_slot(last, vars->data[i], true) = (void *)(intptr_t)(at + 1);
}

static void note_block(GenMap *last, const LiveBlock *b, int at) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LiveStmt *s = b->stmts.data[i];
    note_reads(last, &s->reads, at);
    for (int k = 0; k < s->blocks.len; k++)
      note_block(last, s->blocks.data[k], at);
  }
  note_reads(last, &b->reads, at);
}

/* 'v' dies after the statement of its last read, or of 'first' if that
   is later (where it is bound; never read: at once). */
static void add_dead(Vec *dead, const GenMap *last, int nstmts, const void *v, int first) {
  void *p = genmap_get(last, v);
  int at = p ? (int)(intptr_t)p - 1 : first;
  if (at < first)
    at = first;
  if (at < nstmts)
    vec_push(&dead[at], (void *)v);
}

Vec *live_last_reads(const LiveBlock *b, const Vec *params) {
  int n = b->stmts.len;
  Vec *dead = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  /* one map for every block, emptied at once: code generation asks of
     every block of a program */
  static GenMap last;
  genmap_clear(&last);
  for (int i = 0; i < n; i++) {
    const LiveStmt *s = b->stmts.data[i];
    note_reads(&last, &s->reads, i);
    for (int k = 0; k < s->blocks.len; k++)
      note_block(&last, s->blocks.data[k], i);
  }
  note_reads(&last, &b->reads, n); /* live to the end */
  for (int i = 0; params && n > 0 && i < params->len; i++)
    add_dead(dead, &last, n, params->data[i], 0);
  for (int i = 0; i < n; i++) {
    const LiveStmt *s = b->stmts.data[i];
    for (int k = 0; k < s->binds.len; k++)
      add_dead(dead, &last, n, s->binds.data[k], i);
  }
  return dead;
}
