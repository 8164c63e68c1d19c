/*
 * canon.c: the text of what a FILTER's predicate tests, so that two
 * FILTERs (or PARTITIONs) that test the same thing of the same values
 * compare equal (fusion's horizontal pairs, candidates.c, and its
 * side-by-side rule, rules.c).
 *
 * The predicate's parameters become the pull's expressions, the pull's
 * index `$i`, a let of the pull the text of its value (two FILTERs whose
 * pulls compute one predicate in lets of their own, a MAP of flags
 * composed into each, test the same thing; a let that copies another,
 * the other's text, with no mark of the copy), a let inside an expression
 * the text of its value; any other variable is named by the caller (a kernel's
 * parameter by the CPU atom its run passes, or by its id).
 */
#include <string.h>

#include "fusion.h"

typedef struct Canon {
  const LcuThunk *pull, *pred;
  FusCanonVar other;
  const void *ctx;
  Vec lets;        /* LE_LET variables in scope, innermost last */
  Vec let_texts;   /* the text of each one's value, in the same order */
  Buf b;
  char **let_text; /* of the pull's lets, made once each */
  bool inline_params; /* a predicate's parameter is its pull's value's
                         text, unmarked: `f` of a pull giving not(e)
                         reads as not(f') of a pull giving e */
} Canon;

void fus_canon_atom(Buf *b, const LcuAtom *a) {
  if (a->var) {
    buf_printf(b, "v%d", a->var->id);
    return;
  }
  const FlatAtom *k = &a->constant;
  switch (k->kind) {
  case FA_INT:
    buf_printf(b, "i%d", (int)k->u.i);
    break;
  case FA_FLOAT:
    buf_printf(b, "f%a", k->u.f);
    break;
  case FA_BOOL:
    buf_printf(b, "b%d", (int)k->u.b);
    break;
  default:
    buf_printf(b, "c%d", (int)(unsigned char)k->u.c);
  }
}

static void canon_exp(Canon *c, const LcuExp *e);

static bool canon_pull_let(Canon *c, const LcuVar *v) {
  const Vec *lets = &c->pull->lets;
  for (int i = 0; i < lets->len; i++) {
    const LcuLet *l = lets->data[i];
    if (l->var != v)
      continue;
    if (!c->let_text)
      c->let_text = xmalloc(sizeof(char *) * (size_t)lets->len);
    if (!c->let_text[i]) {
      Canon sub = {c->pull, NULL, c->other, c->ctx, {0}, {0}, {0}, c->let_text, false};
      canon_exp(&sub, l->value);
      c->let_text[i] = buf_str(&sub.b);
    }
    buf_puts(&c->b, c->let_text[i]); /* a whole expression's text: no brackets, so that copies compare equal */
    return true;
  }
  return false;
}

static void canon_var(Canon *c, const LcuVar *v) {
  for (int i = c->lets.len - 1; i >= 0; i--)
    if (c->lets.data[i] == v) {
      buf_puts(&c->b, c->let_texts.data[i]);
      return;
    }
  if (canon_pull_let(c, v))
    return;
  if (c->pred)
    for (int i = 0; i < c->pred->params.len; i++)
      if (c->pred->params.data[i] == v) {
        const LcuThunk *pred = c->pred;
        c->pred = NULL; /* the pull's expressions do not see the predicate's parameters */
        buf_putc(&c->b, '<');
        canon_exp(c, c->pull->body.data[i]);
        buf_putc(&c->b, '>');
        c->pred = pred;
        return;
      }
  if (c->pull->params.len == 1 && c->pull->params.data[0] == v) {
    buf_puts(&c->b, "$i");
    return;
  }
  c->other(&c->b, v, c->ctx);
}

static void canon_exp(Canon *c, const LcuExp *e) {
  /* a read of a pull's let is the text of its value, whatever the chain
     of lets that copy it: a FILTER merged side by side names its flag
     anew (r = a), and must still compare equal to the next FILTER that
     tests a itself */
  if (e->kind == LE_VAR && canon_pull_let(c, e->var))
    return;
  if (e->kind == LE_VAR) /* an in-expression let's variable: its value's text, bare as a pull let's */
    for (int i = c->lets.len - 1; i >= 0; i--)
      if (c->lets.data[i] == e->var) {
        buf_puts(&c->b, c->let_texts.data[i]);
        return;
      }
  if (e->kind == LE_VAR && c->inline_params && c->pred)
    for (int i = 0; i < c->pred->params.len; i++)
      if (c->pred->params.data[i] == e->var) {
        const LcuThunk *pred = c->pred;
        c->pred = NULL;
        canon_exp(c, c->pull->body.data[i]);
        c->pred = pred;
        return;
      }
  if (e->kind == LE_LET) {
    /* `let x = e in body` is body with x read as e's text: the let only
       shares e (a pull composed into two SOACs may bind a value in one
       and not in the other) */
    Buf outer = c->b;
    c->b = (Buf){0};
    canon_exp(c, e->args[0]);
    const char *value = buf_str(&c->b);
    c->b = outer;
    vec_push(&c->lets, e->var);
    vec_push(&c->let_texts, (void *)value);
    canon_exp(c, e->args[1]);
    c->lets.len--;
    c->let_texts.len--;
    return;
  }
  buf_printf(&c->b, "(%d:%d%s ", e->kind, e->type, e->in_range ? "!" : "");
  switch (e->kind) {
  case LE_VAR:
  case LE_INDEX:
  case LE_LENGTH:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    canon_var(c, e->var);
    break;
  case LE_CONST:
    fus_canon_atom(&c->b, &(LcuAtom){NULL, e->constant});
    break;
  case LE_OP:
    buf_printf(&c->b, "op%d", (int)e->op);
    break;
  case LE_CALL:
    buf_printf(&c->b, "call %s", e->callee->name);
    break;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    canon_exp(c, e->args[i]);
  buf_putc(&c->b, ')');
}

char *fus_predicate_text(const LcuSoac *s, FusCanonVar other, const void *ctx) {
  Canon c = {s->pull, s->second, other, ctx, {0}, {0}, {0}, NULL, false};
  for (int i = 0; i < c.pred->body.len; i++)
    canon_exp(&c, c.pred->body.data[i]);
  return buf_str(&c.b);
}

bool fus_int_sums(const LcuSoac *s) {
  int k = s->pull ? lcu_soac_scanned(s) : 0;
  const LcuThunk *op = s->second;
  if (!k || s->identity.len != k || !op || op->lets.len || op->body.len != k || op->params.len != 2 * k)
    return false;
  for (int j = 0; j < k; j++) {
    const FlatAtom *id = s->identity.data[j];
    const LcuExp *e = op->body.data[j];
    if (id->kind != FA_INT || id->u.i != 0 || e->type != FB_INT || e->kind != LE_OP || e->op != FLAT_ADD ||
        e->nargs != 2)
      return false;
    const LcuExp *a = e->args[0], *b = e->args[1];
    if (a->kind != LE_VAR || b->kind != LE_VAR)
      return false;
    const LcuVar *acc = op->params.data[j], *x = op->params.data[k + j];
    if (!((a->var == acc && b->var == x) || (a->var == x && b->var == acc)))
      return false;
  }
  return true;
}

/* canon_exp's text of op(x), of base 'type', is this, then x's, then ')'. */
static void op_head(Buf *b, FlatBase type, FlatOp op) { buf_printf(b, "(%d:%d op%d", LE_OP, type, (int)op); }

/* The text of btoi of the flag of class c of FILTER or SPLIT 's' (a
   FILTER's one class is 0), its predicate's parameters read as the
   texts of the pull's values: what fus_pull_text gives of a pull
   component that counts that class. */
static char *count_text(const LcuSoac *s, int c, FusCanonVar other, const void *ctx) {
  Canon k = {s->pull, s->second, other, ctx, {0}, {0}, {0}, NULL, true};
  op_head(&k.b, FB_INT, FLAT_BTOI);
  canon_exp(&k, s->second->body.data[c]);
  buf_putc(&k.b, ')');
  return buf_str(&k.b);
}

bool fus_counted_classes(const LcuSoac *S, const void *sctx, const LcuSoac *R, const void *rctx, FusCanonVar other,
                         int *class_of) {
  if (!(S->kind == SOAC_FILTER || S->kind == SOAC_SPLIT) || S->into || S->segdes || R->kind != SOAC_SEG_REDUCE ||
      lcu_pull_takes_segment(R) || !fus_int_sums(R))
    return false;
  int nc = S->kind == SOAC_SPLIT ? S->classes : 1, k = R->pull->body.len;
  if (k > nc)
    return false;
  const char *texts[LCU_SPLIT_MAX];
  bool taken[LCU_SPLIT_MAX] = {false};
  for (int c = 0; c < nc; c++)
    texts[c] = count_text(S, c, other, sctx);
  for (int j = 0; j < k; j++) {
    const char *t = fus_pull_text(R, j, other, rctx);
    int c = 0;
    while (c < nc && strcmp(t, texts[c]) != 0)
      c++;
    if (c == nc || taken[c])
      return false;
    taken[c] = true;
    if (class_of)
      class_of[j] = c;
  }
  return true;
}

char *fus_pull_text(const LcuSoac *s, int j, FusCanonVar other, const void *ctx) {
  Canon c = {s->pull, NULL, other, ctx, {0}, {0}, {0}, NULL, false};
  canon_exp(&c, s->pull->body.data[j]);
  return buf_str(&c.b);
}

bool fus_predicate_negates(const LcuSoac *a, const void *actx, const LcuSoac *b, const void *bctx, FusCanonVar other) {
  if (a->second->body.len != 1 || b->second->body.len != 1)
    return false;
  Canon ca = {a->pull, a->second, other, actx, {0}, {0}, {0}, NULL, true};
  canon_exp(&ca, a->second->body.data[0]);
  Canon cb = {b->pull, b->second, other, bctx, {0}, {0}, {0}, NULL, true};
  canon_exp(&cb, b->second->body.data[0]);
  const char *ta = buf_str(&ca.b), *tb = buf_str(&cb.b);
  Buf head = {0};
  op_head(&head, FB_BOOL, FLAT_NOT);
  const char *h = buf_str(&head);
  size_t nh = strlen(h), na = strlen(ta), nb = strlen(tb);
  return nb == nh + na + 1 && strncmp(tb, h, nh) == 0 && strncmp(tb + nh, ta, na) == 0 && tb[nb - 1] == ')';
}
