/*
 * lcu.c: the facts about λcu's SOACs, library kernels, types and
 * locations that every pass shares (the constructors are build.c's).
 *
 * The names of the SOACs and library kernels come from the X-macros of
 * lcu.h, so that adding one there is the only change this file needs.
 * Everything is allocated through the collector and never freed
 * (common.h).
 */
#include <string.h>

#include "lcu.h"

/* ---- SOACs and library kernels ---- */

static const char *const soac_names[] = {
#define X(name, text) text,
    LCU_SOACS(X)
#undef X
};

static const char *const library_names[] = {
#define X(name, text) text,
    LCU_LIBRARIES(X)
#undef X
};

const char *lcu_soac_name(LcuSoacKind k) {
  if ((unsigned)k >= SOAC_COUNT)
    die("λcu SOAC %d does not exist", (int)k);
  return soac_names[k];
}

const char *lcu_library_name(LcuLibrary l) {
  if ((unsigned)l >= LIB_COUNT)
    die("λcu library kernel %d does not exist", (int)l);
  return library_names[l];
}

const char *lcu_size_name(LcuSizeKind k) {
  switch (k) {
  case SIZE_RANGE:
    return "range";
  case SIZE_APPEND:
    return "append";
  }
  die("λcu size %d does not exist", (int)k);
}

int lcu_size_lookup(const char *name) {
  for (int k = SIZE_RANGE; k <= SIZE_APPEND; k++)
    if (strcmp(lcu_size_name((LcuSizeKind)k), name) == 0)
      return k;
  return -1;
}

int lcu_size_arity(LcuSizeKind k) { return k == SIZE_RANGE ? 3 : 2; }

/* ---- types ---- */

LcuType lcu_scalar(FlatBase b) { return (LcuType){LT_SCALAR, b}; }
LcuType lcu_vec(FlatBase b) { return (LcuType){LT_VEC, b}; }
/* the base is meaningless for a sd; it is left at FB_INT so that two sd
   types compare equal field by field as well (as flat_segdes) */
LcuType lcu_segdes(void) { return (LcuType){LT_SEGDES, FB_INT}; }

bool lcu_type_equal(LcuType a, LcuType b) {
  if (a.kind != b.kind)
    return false;
  return a.kind == LT_SEGDES || a.base == b.base;
}

LcuType lcu_type_of_flat(FlatType t) {
  switch (t.kind) {
  case FT_SCALAR:
    return lcu_scalar(t.base);
  case FT_VEC:
    return lcu_vec(t.base);
  case FT_SEGDES:
    return lcu_segdes();
  }
  die("flat type kind %d does not exist", (int)t.kind);
}

FlatType lcu_flat_type(LcuType t) {
  switch (t.kind) {
  case LT_SCALAR:
    return flat_scalar(t.base);
  case LT_VEC:
    return flat_vec(t.base);
  case LT_SEGDES:
    return flat_segdes();
  }
  die("λcu type kind %d does not exist", (int)t.kind);
}

const char *lcu_type_name(LcuType t) {
  static const char *const scalars[] = {"int", "float", "bool", "char"};
  static const char *const vectors[] = {"[int]", "[float]", "[bool]", "[char]"};
  switch (t.kind) {
  case LT_SCALAR:
  case LT_VEC:
    if ((unsigned)t.base > FB_CHAR)
      die("λcu base type %d does not exist", (int)t.base);
    return t.kind == LT_SCALAR ? scalars[t.base] : vectors[t.base];
  case LT_SEGDES:
    return "sd";
  }
  die("λcu type kind %d does not exist", (int)t.kind);
}

/* ---- locations ---- */

/* Two records of inlining are one if they name one function and one call
   (each inlining makes its own record). */
static bool same_inlined(const Inlined *a, const Inlined *b) {
  if (a == b)
    return true;
  return a && b && strcmp(a->fn, b->fn) == 0 && lcu_loc_equal(a->call, b->call);
}

bool lcu_loc_equal(Loc a, Loc b) {
  return a.src == b.src && a.line == b.line && a.col == b.col && same_inlined(a.inlined, b.inlined);
}

static void key_int(Buf *b, const char *before, int64_t i, char after) {
  char digits[FORMAT_INT_SIZE];
  buf_puts(b, before);
  buf_put(b, digits, (size_t)format_int(digits, i));
  buf_putc(b, after);
}

void lcu_loc_key(Buf *b, Loc loc) {
  buf_putc(b, '@');
  buf_puts(b, loc.src ? loc.src->name : "");
  key_int(b, ":", loc.line, ':');
  key_int(b, "", loc.col, ' ');
  if (loc.inlined) { /* and the call it was inlined from, which its errors name */
    buf_puts(b, "in ");
    buf_puts(b, loc.inlined->fn);
    buf_putc(b, '@');
    buf_puts(b, loc.inlined->call.src ? loc.inlined->call.src->name : "");
    key_int(b, ":", loc.inlined->call.line, ':');
    key_int(b, "", loc.inlined->call.col, ' ');
  }
}

Loc lcu_error_loc(const LcuExp *e, const LcuSoac *s, Loc run) {
  if (!e->loc.src || lcu_loc_equal(e->loc, s->loc))
    return run;
  return e->loc;
}

/* ---- scalar functions: what a thunk may call (LE_CALL) ---- */

static const char *func_block(const LcuBlock *b, PtrMap *seen, const LcuFunc *each, bool several);

/* Why 'f' may not be called from a thunk, or NULL: its parameters and
   its one result are scalars, and its body holds only scalar operations
   (RAND excepted), ifs and calls of such functions.  'seen' holds the
   functions already looked at (recursion is allowed).  'several': 'f'
   is called from an element function's statements, directly or not,
   and may give several scalars (flatten.c's f.all of a function of
   scalars), as may what it calls: a thunk's call gives one value, and
   the interpreters run those functions on one element each
   (flat_exec.c's flat_scalar_call), whose ifs and calls give one. */
static const char *scalar_func(const LcuFunc *f, PtrMap *seen, bool several) {
  if (ptrmap_get(seen, f))
    return NULL;
  ptrmap_put(seen, f, (void *)1);
  if (!f->body)
    return xprintf("%s has no body", f->name);
  for (int i = 0; i < f->params.len; i++)
    if (((const LcuVar *)f->params.data[i])->type.kind != LT_SCALAR)
      return xprintf("%s has a parameter that is not a scalar", f->name);
  if (f->body->results.len < 1 || (!several && f->body->results.len != 1))
    return xprintf("%s does not give one scalar", f->name);
  for (int i = 0; i < f->body->results.len; i++)
    if (lcu_atom_type(f->body->results.data[i]).kind != LT_SCALAR)
      return xprintf("%s gives what is not a scalar", f->name);
  return func_block(f->body, seen, NULL, several);
}

const char *lcu_scalar_func(const LcuFunc *f) {
  PtrMap seen = {0};
  return scalar_func(f, &seen, false);
}

/* ---- element functions: what LIBRARY loop calls ---- */

static bool updates_in(const LcuBlock *b, const LcuVar *param) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_UPDATE && ((const LcuAtom *)s->args.data[0])->var == param)
      return true;
    if (s->kind == LS_IF && (updates_in(s->then, param) || updates_in(s->els, param)))
      return true;
  }
  return false;
}

bool lcu_func_updates(const LcuFunc *f, const LcuVar *param) { return f->body && updates_in(f->body, param); }

static bool is_param(const LcuFunc *f, const LcuVar *v) {
  for (int i = 0; i < f->params.len; i++)
    if (f->params.data[i] == v)
      return true;
  return false;
}

/* A vector parameter of 'f', as an atom. */
static bool vector_param(const LcuFunc *f, const LcuAtom *a) {
  return a->var && a->var->type.kind == LT_VEC && is_param(f, a->var);
}

/* Why block 'b' of a scalar function (each NULL) or of element function
   'each' holds what it may not, or NULL: scalar operations (RAND
   excepted), ifs and calls of scalar functions ('seen': those looked at
   already); an element function also lengths, elements and updates of
   its vector parameters, its own tail calls with each vector in its own
   place, and vectors returned that are its parameter each_result.
   'several': its calls may give several scalars (scalar_func). */
static const char *func_block(const LcuBlock *b, PtrMap *seen, const LcuFunc *each, bool several) {
  PtrMap given = {0}; /* vectors the block's ifs and calls give: each's result */
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    const char *why = NULL;
    switch (s->kind) {
    case LS_SCALAR:
      if (s->op == FLAT_RAND)
        why = "rand";
      break;
    case LS_IF:
      why = func_block(s->then, seen, each, several);
      if (!why)
        why = func_block(s->els, seen, each, several);
      break;
    case LS_CALL:
      if (!s->callee)
        why = "a call without a callee";
      else if (!each || s->callee != each)
        why = scalar_func(s->callee, seen, several || each);
      else
        for (int k = 0; k < s->args.len && !why; k++) {
          const LcuAtom *a = s->args.data[k];
          if (lcu_atom_type(a).kind == LT_VEC && a->var != each->params.data[k])
            why = "a recursive call that passes another vector in a vector parameter's place";
        }
      break;
    case LS_LENGTH:
      if (each && (s->length != LEN_VECTOR || !vector_param(each, s->args.data[0])))
        why = "a length of what is not a vector parameter";
      break;
    case LS_ELT:
    case LS_UPDATE:
      if (each && !vector_param(each, s->args.data[0]))
        why = "an element of what is not a vector parameter";
      break;
    default:
      break;
    }
    bool vector_stmt = s->kind == LS_LENGTH || s->kind == LS_ELT || s->kind == LS_UPDATE;
    if (!(s->kind == LS_SCALAR || s->kind == LS_IF || s->kind == LS_CALL || (each && vector_stmt)))
      why = each ? "a statement that is not a scalar operation, a length, an element, an update, an if or a call"
                 : "a statement that is not a scalar operation, an if or a call";
    if (why)
      return why;
    for (int k = 0; k < s->results.len; k++)
      if (((const LcuVar *)s->results.data[k])->type.kind == LT_VEC)
        ptrmap_put(&given, s->results.data[k], (void *)1);
  }
  for (int i = 0; each && i < b->results.len; i++) {
    const LcuAtom *a = b->results.data[i];
    if (lcu_atom_type(a).kind != LT_VEC)
      continue;
    if (each->each_result < 0 || (a->var != each->params.data[each->each_result] && !ptrmap_get(&given, a->var)))
      return "a vector result that is not its parameter each_result";
  }
  return NULL;
}

const char *lcu_element_func(const LcuFunc *f) {
  if (!f->each)
    return xprintf("%s is not an element function", f->name);
  if (!f->body)
    return xprintf("%s has no body", f->name);
  for (int i = 0; i < f->params.len; i++)
    if (((const LcuVar *)f->params.data[i])->type.kind == LT_SEGDES)
      return xprintf("%s has a sd parameter", f->name);
  if (f->body->results.len < 1)
    return xprintf("%s gives no result", f->name);
  /* one result: a scalar, or its vector parameter each_result; several:
     scalars (a tuple's components) */
  for (int i = 0; i < f->body->results.len; i++) {
    LcuType rt = lcu_atom_type(f->body->results.data[i]);
    if ((rt.kind == LT_VEC) != (f->each_result >= 0))
      return xprintf("%s gives a %s, its each_result is %d", f->name, lcu_type_name(rt), f->each_result);
  }
  if (f->each_result >= 0 && f->body->results.len != 1)
    return xprintf("%s gives its vector parameter and more", f->name);
  if (f->each_result >= f->params.len ||
      (f->each_result >= 0 && ((const LcuVar *)f->params.data[f->each_result])->type.kind != LT_VEC))
    return xprintf("%s's each_result is not a vector parameter", f->name);
  PtrMap seen = {0};
  const char *why = func_block(f->body, &seen, f, true);
  return why ? xprintf("%s: %s", f->name, why) : NULL;
}

int lcu_loop_arg(const LcuSoac *s, int param, bool *shared) {
  const LcuFunc *f = s->callee;
  int k = 0;
  for (int i = 0; f && i < f->params.len && k < s->args.len; i++) {
    bool vec = ((const LcuVar *)f->params.data[i])->type.kind == LT_VEC;
    bool one = vec && ((const LcuVar *)s->args.data[k])->type.kind == LT_VEC;
    if (i == param) {
      if (shared)
        *shared = one;
      return k;
    }
    k += vec && !one ? 2 : 1;
  }
  return -1;
}

static bool exp_calls(const LcuExp *e) {
  if (e->kind == LE_CALL)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (exp_calls(e->args[i]))
      return true;
  return false;
}

bool lcu_thunk_calls(const LcuThunk *t) {
  for (int i = 0; t && i < lcu_thunk_nexps(t); i++)
    if (exp_calls(lcu_thunk_exp(t, i)))
      return true;
  return false;
}

bool lcu_soac_reads(const LcuSoac *s, const LcuVar *v) {
  return (s->pull && lcu_listed(&s->pull->using, v)) || (s->second && lcu_listed(&s->second->using, v)) ||
         lcu_soac_reads_outside_thunks(s, v);
}

bool lcu_soac_reads_outside_thunks(const LcuSoac *s, const LcuVar *v) {
  if (s->size.var == v || s->size.length == v || s->segdes == v || s->into == v)
    return true;
  for (int a = 0; a < s->args.len; a++)
    if (s->args.data[a] == v)
      return true;
  return false;
}

int lcu_soac_scanned(const LcuSoac *s) { return (s->pull ? s->pull->body.len : 0) - s->maps; }

static bool is_var(const LcuExp *e, const LcuVar *v) { return e->kind == LE_VAR && e->var == v; }

bool lcu_append_element(const LcuExp *e, const LcuVar *i, const LcuVar **a, const LcuVar **b) {
  if (e->kind != LE_IF)
    return false;
  const LcuExp *c = e->args[0], *t = e->args[1], *f = e->args[2];
  if (c->kind != LE_OP || c->op != FLAT_LT || !is_var(c->args[0], i) || c->args[1]->kind != LE_LENGTH)
    return false;
  *a = c->args[1]->var;
  if (t->kind != LE_INDEX || t->var != *a || !is_var(t->args[0], i) || f->kind != LE_INDEX || f->var == *a)
    return false;
  const LcuExp *j = f->args[0];
  *b = f->var;
  return j->kind == LE_OP && j->op == FLAT_SUB && is_var(j->args[0], i) && j->args[1]->kind == LE_LENGTH &&
         j->args[1]->var == *a;
}

bool lcu_pull_takes_segment(const LcuSoac *s) {
  if (s->kind == SOAC_SEG_MAP)
    return true;
  if (s->kind == SOAC_SPLIT) /* counted: the segment of its counts' sd */
    return s->segdes && s->pull && s->pull->params.len == 2;
  return (s->kind == SOAC_SEG_REDUCE || s->kind == SOAC_SEG_SCAN) && s->pull && s->pull->params.len == 2;
}

int lcu_append_kernel(const LcuKernel *k, int *first, int *second, int *size, int most) {
  if (k->soacs.len != 1)
    return 0;
  const LcuSoac *m = k->soacs.data[0];
  if (m->kind != SOAC_MAP || !m->size.var || m->pull->lets.len || m->pull->params.len != 1 ||
      m->results.len != m->pull->body.len || k->results.len != m->results.len || m->results.len > most)
    return 0;
  const LcuVar *i = m->pull->params.data[0];
  for (int c = 0; c < m->results.len; c++) {
    const LcuVar *a, *b;
    if (k->results.data[c] != m->results.data[c] || !lcu_append_element(m->pull->body.data[c], i, &a, &b))
      return 0;
    first[c] = second[c] = -1;
    for (int p = 0; p < k->params.len; p++) {
      if (k->params.data[p] == a)
        first[c] = p;
      if (k->params.data[p] == b)
        second[c] = p;
    }
    if (first[c] < 0 || second[c] < 0)
      return 0;
  }
  *size = -1;
  for (int p = 0; p < k->params.len; p++)
    if (k->params.data[p] == m->size.var)
      *size = p;
  return *size < 0 ? 0 : m->results.len;
}
