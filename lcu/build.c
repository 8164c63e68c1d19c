/*
 * build.c: how λcu is made: one constructor per node, the kernel builder
 * that lowering uses to make a kernel of one SOAC, kernel interning, and
 * the two clean-up passes that follow lowering (dead statements, unused
 * kernels).
 *
 * Constructors take the location first, as chibicc's new_binary, and
 * set only what they are given: GC_MALLOC zeroes the rest, so that a
 * list starts empty and a pointer NULL.  Lowering (lower.c), the unit
 * tests and the reader of printed λcu (lcu_read.c) all build through
 * here, so that a field added to a node is set in one place.
 *
 * Interning makes equal kernels once: two kernels are equal when their
 * canonical texts are, which number variables by first appearance and
 * write an expression's location relative to its SOAC's.  So the two
 * `x / s` maps of the paper's norm2, made for two statements, are one
 * kernel run twice (an error in one reports at its `run`, lcu_error_loc),
 * while a kernel whose predicate comes from another NESL expression than
 * its SOAC keeps that expression's location and is equal only to kernels
 * with the same one.
 */
#include <string.h>

#include "lcu.h"

/* ---- variables and atoms ---- */

/* "hint_id", or "xid".  Written on the stack, not by printf: every new
   variable is named.  Not interned: the id makes each name new, and
   nothing compares them by address (the table of interned names grew
   to megabytes for them). */
static const char *new_var_name(const char *hint, int id) {
  char name[128];
  size_t len = hint ? strlen(hint) : 0;
  if (len > sizeof name - FORMAT_INT_SIZE - 2)
    return hint ? xprintf("%s_%d", hint, id) : xprintf("x%d", id);
  char *at = name;
  if (hint) {
    memcpy(at, hint, len);
    at += len;
    *at++ = '_';
  } else {
    *at++ = 'x';
  }
  at += format_int(at, id);
  return xstrndup(name, (size_t)(at - name));
}

LcuVar *lcu_new_var(LcuProgram *p, LcuType t, const char *hint) {
  LcuVar *v = NEW(LcuVar);
  v->id = p->next_var++;
  v->type = t;
  v->name = new_var_name(hint, v->id);
  return v;
}

LcuAtom *lcu_atom_var(LcuVar *v) {
  LcuAtom *a = NEW(LcuAtom);
  a->var = v;
  return a;
}

LcuAtom *lcu_atom_const(FlatAtom c) {
  LcuAtom *a = NEW(LcuAtom);
  a->constant = c;
  return a;
}

FlatAtom lcu_int_const(int32_t i) { return (FlatAtom){.kind = FA_INT, .u.i = i}; }
FlatAtom lcu_float_const(double f) { return (FlatAtom){.kind = FA_FLOAT, .u.f = f}; }
FlatAtom lcu_bool_const(bool b) { return (FlatAtom){.kind = FA_BOOL, .u.b = b}; }
FlatAtom lcu_char_const(char c) { return (FlatAtom){.kind = FA_CHAR, .u.c = c}; }

LcuAtom *lcu_atom_int(int32_t i) { return lcu_atom_const(lcu_int_const(i)); }

FlatBase lcu_const_base(FlatAtom c) {
  switch (c.kind) {
  case FA_FLOAT:
    return FB_FLOAT;
  case FA_BOOL:
    return FB_BOOL;
  case FA_CHAR:
    return FB_CHAR;
  default:
    return FB_INT;
  }
}

LcuType lcu_atom_type(const LcuAtom *a) { return a->var ? a->var->type : lcu_scalar(lcu_const_base(a->constant)); }

/* ---- thunk expressions ---- */

static LcuExp **args_new(int n) { return xmalloc(sizeof(LcuExp *) * (size_t)(n < 3 ? 3 : n)); }

static LcuExp *exp_new(Loc loc, LcuExpKind kind, FlatBase type) {
  LcuExp *e = NEW(LcuExp);
  e->kind = kind;
  e->loc = loc;
  e->type = type;
  e->args = args_new(3);
  return e;
}

LcuExp *lcu_exp_clone(const LcuExp *e) {
  LcuExp *c = NEW(LcuExp);
  *c = *e;
  c->args = args_new(e->nargs);
  memcpy(c->args, e->args, sizeof(LcuExp *) * (size_t)(e->nargs < 3 ? 3 : e->nargs));
  return c;
}

LcuExp *lcu_exp_call(Loc loc, struct LcuFunc *f, FlatBase type, LcuExp **args, int nargs) {
  LcuExp *e = exp_new(loc, LE_CALL, type);
  e->callee = f;
  e->nargs = nargs;
  e->args = args_new(nargs);
  memcpy(e->args, args, sizeof(LcuExp *) * (size_t)nargs);
  return e;
}

LcuExp *lcu_exp_var(Loc loc, LcuVar *v) {
  LcuExp *e = exp_new(loc, LE_VAR, v->type.base);
  e->var = v;
  return e;
}

LcuExp *lcu_exp_const(Loc loc, FlatAtom c) {
  LcuExp *e = exp_new(loc, LE_CONST, lcu_const_base(c));
  e->constant = c;
  return e;
}

LcuExp *lcu_exp_index(Loc loc, LcuVar *vec, LcuExp *i) {
  LcuExp *e = exp_new(loc, LE_INDEX, vec->type.base);
  e->var = vec;
  e->args[0] = i;
  e->nargs = 1;
  return e;
}

LcuExp *lcu_exp_bound(Loc loc, LcuExp *index, LcuExp *length) {
  LcuExp *e = exp_new(loc, LE_BOUND, FB_INT);
  e->args[0] = index;
  e->args[1] = length;
  e->nargs = 2;
  return e;
}

LcuExp *lcu_exp_seg_field(Loc loc, LcuExpKind kind, LcuVar *sd, LcuExp *i) {
  LcuExp *e = exp_new(loc, kind, FB_INT);
  e->var = sd;
  e->args[0] = i;
  e->nargs = 1;
  return e;
}

LcuExp *lcu_exp_length(Loc loc, LcuVar *vec) {
  LcuExp *e = exp_new(loc, LE_LENGTH, FB_INT);
  e->var = vec;
  return e;
}

LcuExp *lcu_exp_op(Loc loc, FlatOp op, FlatBase type, int nargs, LcuExp *a, LcuExp *b, LcuExp *c) {
  LcuExp *e = exp_new(loc, LE_OP, type);
  e->op = op;
  e->nargs = nargs;
  e->args[0] = a;
  e->args[1] = b;
  e->args[2] = c;
  return e;
}

LcuExp *lcu_exp_if(Loc loc, LcuExp *cond, LcuExp *then, LcuExp *els) {
  LcuExp *e = exp_new(loc, LE_IF, then->type);
  e->args[0] = cond;
  e->args[1] = then;
  e->args[2] = els;
  e->nargs = 3;
  return e;
}

LcuExp *lcu_exp_let(Loc loc, LcuVar *x, LcuExp *value, LcuExp *body) {
  LcuExp *e = exp_new(loc, LE_LET, body->type);
  e->var = x;
  e->args[0] = value;
  e->args[1] = body;
  e->nargs = 2;
  return e;
}

/* ---- thunks ---- */

LcuThunk *lcu_thunk_new(void) { return NEW(LcuThunk); }

LcuVar *lcu_thunk_param(LcuProgram *p, LcuThunk *t, FlatBase b, const char *hint) {
  LcuVar *v = lcu_new_var(p, lcu_scalar(b), hint);
  vec_push(&t->params, v);
  return v;
}

void lcu_thunk_return(LcuThunk *t, LcuExp *e) { vec_push(&t->body, e); }

void lcu_thunk_let(LcuThunk *t, LcuVar *x, LcuExp *value) {
  LcuLet *l = NEW(LcuLet);
  l->var = x;
  l->value = value;
  vec_push(&t->lets, l);
}

void lcu_thunk_use(LcuThunk *t, LcuVar *v) {
  for (int i = 0; i < t->using.len; i++)
    if (t->using.data[i] == v)
      return;
  vec_push(&t->using, v);
}

/* ---- SOACs ---- */

LcuSize lcu_size_const(int32_t n) { return (LcuSize){NULL, NULL, n}; }
LcuSize lcu_size_var(LcuVar *n) { return (LcuSize){n, NULL, 0}; }
LcuSize lcu_size_length(LcuVar *vec) { return (LcuSize){NULL, vec, 0}; }

static LcuSoac *soac_new(Loc loc, LcuSoacKind kind, LcuThunk *pull, LcuThunk *second) {
  LcuSoac *s = NEW(LcuSoac);
  s->kind = kind;
  s->loc = loc;
  s->pull = pull;
  s->second = second;
  return s;
}

static void set_identities(LcuSoac *s, const FlatAtom *ids, int nids) {
  for (int i = 0; i < nids; i++) {
    FlatAtom *a = NEW(FlatAtom);
    *a = ids[i];
    vec_push(&s->identity, a);
  }
}

LcuSoac *lcu_soac_map(Loc loc, LcuThunk *pull, LcuSize n) {
  LcuSoac *s = soac_new(loc, SOAC_MAP, pull, NULL);
  s->size = n;
  return s;
}

LcuSoac *lcu_soac_permute(Loc loc, LcuThunk *pull, LcuThunk *index, LcuSize n, LcuVar *into) {
  LcuSoac *s = soac_new(loc, SOAC_PERMUTE, pull, index);
  s->size = n;
  s->into = into;
  return s;
}

LcuSoac *lcu_soac_reduce(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuSize n) {
  LcuSoac *s = soac_new(loc, SOAC_REDUCE, pull, op);
  set_identities(s, ids, nids);
  s->size = n;
  return s;
}

LcuSoac *lcu_soac_scan(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuSize n) {
  LcuSoac *s = lcu_soac_reduce(loc, pull, ids, nids, op, n);
  s->kind = SOAC_SCAN;
  return s;
}

LcuSoac *lcu_soac_filter(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuSize n) {
  LcuSoac *s = soac_new(loc, SOAC_FILTER, pull, pred);
  s->size = n;
  return s;
}

LcuSoac *lcu_soac_partition(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuSize n) {
  LcuSoac *s = lcu_soac_filter(loc, pull, pred, n);
  s->kind = SOAC_PARTITION;
  return s;
}

LcuSoac *lcu_soac_split(Loc loc, LcuThunk *pull, LcuThunk *pred, int classes, const int *widths, LcuSize n) {
  LcuSoac *s = lcu_soac_filter(loc, pull, pred, n);
  s->kind = SOAC_SPLIT;
  int *w = xmalloc_atomic(sizeof(int) * (size_t)(classes > 0 ? classes : 1));
  for (int c = 0; c < classes; c++)
    w[c] = widths[c];
  s->classes = classes;
  s->widths = w;
  return s;
}

int lcu_split_start(const LcuSoac *s, int c) {
  int j = 0;
  for (int i = 0; i < c && i < s->classes; i++)
    j += s->widths[i];
  return j;
}

int lcu_segdes_args(const LcuSoac *s) {
  if (s->kind != SOAC_LIBRARY)
    return -1;
  return s->library == LIB_MAKE_SEGDES ? 1 : s->library == LIB_RANGE_SEGDES ? 3 : -1;
}

bool lcu_known_total(const LcuSoac *s) {
  int n = lcu_segdes_args(s);
  return n >= 0 && s->args.len == n + 1;
}

int lcu_split_class(const LcuSoac *s, int j) {
  int c = 0;
  while (c + 1 < s->classes && j >= s->widths[c]) {
    j -= s->widths[c];
    c++;
  }
  return c;
}

LcuSoac *lcu_soac_once(Loc loc, LcuThunk *thunk) { return soac_new(loc, SOAC_ONCE, thunk, NULL); }

LcuSoac *lcu_soac_seg_map(Loc loc, LcuThunk *pull, LcuVar *sd) {
  LcuSoac *s = soac_new(loc, SOAC_SEG_MAP, pull, NULL);
  s->segdes = sd;
  return s;
}

LcuSoac *lcu_soac_seg_permute(Loc loc, LcuThunk *pull, LcuThunk *index, LcuVar *sd, LcuVar *into) {
  LcuSoac *s = soac_new(loc, SOAC_SEG_PERMUTE, pull, index);
  s->segdes = sd;
  s->into = into;
  return s;
}

LcuSoac *lcu_soac_seg_reduce(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuVar *sd) {
  LcuSoac *s = soac_new(loc, SOAC_SEG_REDUCE, pull, op);
  set_identities(s, ids, nids);
  s->segdes = sd;
  return s;
}

LcuSoac *lcu_soac_seg_scan(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuVar *sd) {
  LcuSoac *s = lcu_soac_seg_reduce(loc, pull, ids, nids, op, sd);
  s->kind = SOAC_SEG_SCAN;
  return s;
}

LcuSoac *lcu_soac_seg_filter(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuVar *sd) {
  LcuSoac *s = soac_new(loc, SOAC_SEG_FILTER, pull, pred);
  s->segdes = sd;
  return s;
}

LcuSoac *lcu_soac_seg_partition(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuVar *sd) {
  LcuSoac *s = lcu_soac_seg_filter(loc, pull, pred, sd);
  s->kind = SOAC_SEG_PARTITION;
  return s;
}

LcuSoac *lcu_soac_library(Loc loc, LcuLibrary lib) {
  LcuSoac *s = soac_new(loc, SOAC_LIBRARY, NULL, NULL);
  s->library = lib;
  return s;
}

LcuVar *lcu_soac_result(LcuProgram *p, LcuSoac *s, LcuType t) {
  LcuVar *v = lcu_new_var(p, t, NULL);
  vec_push(&s->results, v);
  return v;
}

/* ---- kernels ---- */

LcuKernel *lcu_kernel_new(void) { return NEW(LcuKernel); }

LcuVar *lcu_kernel_param(LcuProgram *p, LcuKernel *k, LcuType t) {
  LcuVar *v = lcu_new_var(p, t, NULL);
  vec_push(&k->params, v);
  return v;
}

void lcu_kernel_soac(LcuKernel *k, LcuSoac *s) { vec_push(&k->soacs, s); }

void lcu_kernel_return(LcuKernel *k, LcuVar *v) { vec_push(&k->results, v); }

void lcu_add_kernel(LcuProgram *p, LcuKernel *k) {
  k->name = xprintf("K%d", p->kernels.len + 1);
  vec_push(&p->kernels, k);
}

/* ---- CPU statements, blocks, functions ---- */

static LcuStmt *stmt_new(Loc loc, LcuStmtKind kind) {
  LcuStmt *s = NEW(LcuStmt);
  s->kind = kind;
  s->loc = loc;
  return s;
}

LcuStmt *lcu_stmt_scalar(Loc loc, FlatOp op) {
  LcuStmt *s = stmt_new(loc, LS_SCALAR);
  s->op = op;
  return s;
}

LcuStmt *lcu_stmt_run(Loc loc, LcuKernel *k) {
  LcuStmt *s = stmt_new(loc, LS_RUN);
  s->kernel = k;
  return s;
}

LcuStmt *lcu_stmt_call(Loc loc, LcuFunc *callee) {
  LcuStmt *s = stmt_new(loc, LS_CALL);
  s->callee = callee;
  return s;
}

LcuStmt *lcu_stmt_if(Loc loc, LcuAtom *cond, LcuBlock *then, LcuBlock *els) {
  LcuStmt *s = stmt_new(loc, LS_IF);
  vec_push(&s->args, cond);
  s->then = then;
  s->els = els;
  return s;
}

LcuStmt *lcu_stmt_time(Loc loc, LcuBlock *body) {
  LcuStmt *s = stmt_new(loc, LS_TIME);
  s->body = body;
  return s;
}

LcuStmt *lcu_stmt_length(Loc loc, LcuLengthKind kind, LcuAtom *of) {
  LcuStmt *s = stmt_new(loc, LS_LENGTH);
  s->length = kind;
  vec_push(&s->args, of);
  return s;
}

LcuStmt *lcu_stmt_elt(Loc loc, LcuAtom *v, LcuAtom *i) {
  LcuStmt *s = stmt_new(loc, LS_ELT);
  vec_push(&s->args, v);
  vec_push(&s->args, i);
  return s;
}

LcuStmt *lcu_stmt_update(Loc loc, LcuAtom *v, LcuAtom *i, LcuAtom *x) {
  LcuStmt *s = stmt_new(loc, LS_UPDATE);
  vec_push(&s->args, v);
  vec_push(&s->args, i);
  vec_push(&s->args, x);
  return s;
}

LcuStmt *lcu_stmt_host(Loc loc, FlatStmt *flat) {
  LcuStmt *s = stmt_new(loc, LS_HOST);
  s->flat = flat;
  return s;
}

LcuStmt *lcu_stmt_check(Loc loc, int check) {
  LcuStmt *s = stmt_new(loc, LS_CHECK);
  s->check = check;
  return s;
}

LcuStmt *lcu_stmt_size(Loc loc, LcuSizeKind kind) {
  LcuStmt *s = stmt_new(loc, LS_SIZE);
  s->size = kind;
  return s;
}

LcuStmt *lcu_stmt_cost(Loc loc, int rule, bool lifted) {
  LcuStmt *s = stmt_new(loc, LS_COST);
  s->cost_rule = rule;
  s->lifted = lifted;
  return s;
}

void lcu_stmt_arg(LcuStmt *s, LcuAtom *a) { vec_push(&s->args, a); }

LcuVar *lcu_stmt_result(LcuProgram *p, LcuStmt *s, LcuType t) {
  LcuVar *v = lcu_new_var(p, t, NULL);
  vec_push(&s->results, v);
  return v;
}

void lcu_stmt_bind(LcuStmt *s, LcuVar *v) { vec_push(&s->results, v); }

LcuBlock *lcu_block_new(void) { return NEW(LcuBlock); }

void lcu_block_add(LcuBlock *b, LcuStmt *s) { vec_push(&b->stmts, s); }

void lcu_block_return(LcuBlock *b, LcuAtom *a) { vec_push(&b->results, a); }

LcuFunc *lcu_func_new(Loc loc, const char *name, const char *source, bool library) {
  LcuFunc *f = NEW(LcuFunc);
  f->loc = loc;
  f->name = name;
  f->source = source;
  f->library = library;
  f->each_result = -1;
  return f;
}

LcuVar *lcu_func_param(LcuProgram *p, LcuFunc *f, LcuType t, const char *hint) {
  LcuVar *v = lcu_new_var(p, t, hint);
  vec_push(&f->params, v);
  return v;
}

LcuTop *lcu_top_new(FlatTop *flat, LcuBlock *body) {
  LcuTop *t = NEW(LcuTop);
  t->flat = flat;
  t->body = body;
  return t;
}

LcuProgram *lcu_program_new(void) {
  LcuProgram *p = NEW(LcuProgram);
  p->next_var = 1;
  return p;
}

/* ---- the kernel builder ---- */

LcuKernelBuilder *lcu_kb_new(LcuProgram *p, Loc loc) {
  LcuKernelBuilder *kb = NEW(LcuKernelBuilder);
  kb->p = p;
  kb->loc = loc;
  kb->k = lcu_kernel_new();
  return kb;
}

LcuVar *lcu_kb_param(LcuKernelBuilder *kb, LcuVar *v) {
  LcuVar *p = ptrmap_get(&kb->params, v);
  if (!p) {
    p = lcu_kernel_param(kb->p, kb->k, v->type);
    ptrmap_put(&kb->params, v, p);
    vec_push(&kb->outer, lcu_atom_var(v));
  }
  if (kb->thunk)
    lcu_thunk_use(kb->thunk, p);
  return p;
}

LcuVar *lcu_kb_plain_param(LcuKernelBuilder *kb, LcuVar *v) {
  LcuThunk *saved = kb->thunk;
  kb->thunk = NULL;
  LcuVar *p = lcu_kb_param(kb, v);
  kb->thunk = saved;
  return p;
}

LcuThunk *lcu_kb_thunk(LcuKernelBuilder *kb, int n, const FlatBase *types) {
  LcuThunk *t = lcu_thunk_new();
  for (int i = 0; i < n; i++)
    lcu_thunk_param(kb->p, t, types[i], i == 0 && n == 1 ? "i" : NULL);
  kb->thunk = t;
  return t;
}

LcuThunk *lcu_kb_index_thunk(LcuKernelBuilder *kb) {
  FlatBase b = FB_INT;
  return lcu_kb_thunk(kb, 1, &b);
}

void lcu_kb_end_thunk(LcuKernelBuilder *kb) { kb->thunk = NULL; }

LcuExp *lcu_kb_scalar(LcuKernelBuilder *kb, LcuAtom *a) {
  if (!a->var)
    return lcu_exp_const(kb->loc, a->constant);
  return lcu_exp_var(kb->loc, lcu_kb_param(kb, a->var));
}

LcuSize lcu_kb_size_atom(LcuKernelBuilder *kb, LcuAtom *n) {
  return n->var ? lcu_size_var(lcu_kb_plain_param(kb, n->var)) : lcu_size_const(n->constant.u.i);
}

LcuSize lcu_kb_size_length(LcuKernelBuilder *kb, LcuVar *v) { return lcu_size_length(lcu_kb_plain_param(kb, v)); }

LcuKernel *lcu_kb_finish(LcuKernelBuilder *kb, LcuSoac *s) {
  kb->thunk = NULL;
  lcu_kernel_soac(kb->k, s);
  for (int i = 0; i < s->results.len; i++)
    lcu_kernel_return(kb->k, s->results.data[i]);
  return kb->k;
}

/* ---- interning ---- */

/* The numbers of a text's variables, by first appearance: a table kept
   from text to text, its entries of older texts ignored (their 'text'
   is not the current one), so that starting a text clears nothing.
   Linear probing stays sound: a current entry was placed past current
   entries only. */
typedef struct VarNumber {
  const LcuVar *var;
  int number; /* from 1 */
  unsigned text;
} VarNumber;

typedef struct Canon {
  Buf *b;
  VarNumber *numbers;
  int cap, nseen;
  unsigned text; /* the current text's number */
  Loc soac;      /* the location of the SOAC being written */
} Canon;

/* One writer, its buffer and table reused by every text: kernels are
   interned thousands of times a compilation, and most are repeats,
   whose text is only looked up. */
static Buf canon_text;
static Canon canon = {&canon_text, NULL, 0, 0, 0, {0}};

/* The number of 'v' in the current text, given at its first appearance. */
static int var_number(Canon *c, const LcuVar *v) {
  if (2 * (c->nseen + 1) > c->cap) {
    VarNumber *old = c->numbers;
    int old_cap = c->cap;
    c->cap = old_cap ? 2 * old_cap : 64;
    c->numbers = xmalloc(sizeof(VarNumber) * (size_t)c->cap);
    for (int i = 0; i < old_cap; i++)
      if (old[i].var && old[i].text == c->text) {
        uint64_t mask = (uint64_t)c->cap - 1, j = ptr_hash(old[i].var) & mask;
        while (c->numbers[j].var)
          j = (j + 1) & mask;
        c->numbers[j] = old[i];
      }
  }
  uint64_t mask = (uint64_t)c->cap - 1;
  for (uint64_t i = ptr_hash(v) & mask;; i = (i + 1) & mask) {
    VarNumber *e = &c->numbers[i];
    if (e->text != c->text || !e->var) {
      *e = (VarNumber){v, ++c->nseen, c->text};
      return e->number;
    }
    if (e->var == v)
      return e->number;
  }
}

/* Room for 'n' more bytes at the end of the text: where they go. */
static inline char *canon_room(Canon *c, size_t n) {
  Buf *b = c->b;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *data = xmalloc_atomic(cap);
    if (b->len) /* an empty Buf has no data: memcpy's source must not be NULL */
      memcpy(data, b->data, b->len);
    b->data = data;
    b->cap = cap;
  }
  return b->data + b->len;
}

/* Appends 'n' bytes of 's'. */
static inline void canon_put(Canon *c, const char *s, size_t n) {
  memcpy(canon_room(c, n), s, n);
  c->b->len += n;
}

static inline void canon_puts(Canon *c, const char *s) { canon_put(c, s, strlen(s)); }
static inline void canon_putc(Canon *c, char ch) { canon_put(c, &ch, 1); }

/* 'before', the number, 'after', in one step: the text is written
   without printf (but for floats), since kernels are interned by it
   thousands of times a compilation. */
static inline void canon_int(Canon *c, const char *before, int64_t i, const char *after) {
  size_t nb = strlen(before), na = strlen(after);
  char *start = canon_room(c, nb + FORMAT_INT_SIZE + na), *at = start;
  memcpy(at, before, nb);
  at += nb;
  at += format_int(at, i);
  memcpy(at, after, na);
  at += na;
  c->b->len += (size_t)(at - start);
}

static void canon_var(Canon *c, const LcuVar *v) {
  canon_int(c, "v", var_number(c, v) - 1, ":");
  canon_puts(c, lcu_type_name(v->type));
  canon_putc(c, ' ');
}

static void canon_constant(Canon *c, const FlatAtom *a) {
  if (a->kind == FA_FLOAT)
    canon_puts(c, xprintf("f%a ", a->u.f));
  else {
    canon_int(c, "k", a->kind, "/");
    canon_int(c, "", a->kind == FA_INT ? a->u.i : a->kind == FA_BOOL ? a->u.b : (unsigned char)a->u.c, " ");
  }
}

/* Where 'e' is: "=" when at its SOAC's location, else lcu_loc_key's text. */
static void canon_loc(Canon *c, Loc loc) {
  if (lcu_loc_equal(loc, c->soac))
    canon_puts(c, "= ");
  else
    lcu_loc_key(c->b, loc);
}

static void canon_exp(Canon *c, const LcuExp *e) {
  canon_int(c, "(", e->kind, e->in_range ? "!/" : "/");
  canon_int(c, "", e->type, " ");
  canon_loc(c, e->loc);
  if (e->lib_fn) {
    canon_puts(c, "from ");
    canon_puts(c, e->lib_fn);
    canon_putc(c, ' ');
  }
  switch (e->kind) {
  case LE_VAR:
  case LE_LENGTH:
  case LE_INDEX:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
  case LE_LET:
    canon_var(c, e->var);
    break;
  case LE_CONST:
    canon_constant(c, &e->constant);
    break;
  case LE_OP:
    canon_int(c, "op", e->op, " ");
    break;
  case LE_CALL:
    canon_puts(c, "call ");
    canon_puts(c, e->callee->name);
    canon_putc(c, ' ');
    break;
  case LE_IF:
  case LE_BOUND:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    canon_exp(c, e->args[i]);
  canon_putc(c, ')');
}

static void canon_thunk(Canon *c, const LcuThunk *t) {
  if (!t) {
    canon_puts(c, "{}");
    return;
  }
  canon_putc(c, '{');
  for (int i = 0; i < t->params.len; i++)
    canon_var(c, t->params.data[i]);
  canon_puts(c, "=>");
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    canon_puts(c, "let ");
    canon_var(c, l->var);
    canon_exp(c, l->value);
  }
  for (int i = 0; i < t->body.len; i++)
    canon_exp(c, t->body.data[i]);
  canon_puts(c, "using ");
  for (int i = 0; i < t->using.len; i++)
    canon_var(c, t->using.data[i]);
  canon_putc(c, '}');
}

/* A layout as text: kernels over datatypes of equal fields but other
   names hash differently, so they are not equal. */
static void canon_layout(Canon *c, const RtLayout *l) {
  canon_int(c, "L", (int)l->kind, "");
  if (l->name)
    canon_puts(c, l->name);
  canon_putc(c, '(');
  if (l->fst)
    canon_layout(c, l->fst);
  if (l->snd)
    canon_layout(c, l->snd);
  if (l->elem)
    canon_layout(c, l->elem);
  canon_putc(c, ')');
}

static void canon_soac(Canon *c, const LcuSoac *s) {
  c->soac = s->loc;
  canon_int(c, "|", s->kind, " lib");
  canon_int(c, "", s->library, " site");
  canon_int(c, "", s->site, " lifted");
  canon_int(c, "", s->lifted, " once");
  canon_int(c, "", s->once, " ");
  if (s->elem_name)
    canon_puts(c, s->elem_name);
  if (s->callee) { /* LIBRARY loop: its element function */
    canon_puts(c, "call ");
    canon_puts(c, s->callee->name);
    canon_putc(c, ' ');
  }
  if (s->layout)
    canon_layout(c, s->layout);
  for (int r = 0; r < s->results.len; r++)
    canon_var(c, s->results.data[r]);
  canon_thunk(c, s->pull);
  canon_thunk(c, s->second);
  for (int r = 0; r < s->identity.len; r++) {
    canon_puts(c, "id ");
    canon_constant(c, s->identity.data[r]);
  }
  if (s->maps)
    canon_int(c, "maps", s->maps, " ");
  for (int w = 0; w < s->classes; w++) /* SPLIT's */
    canon_int(c, "w", s->widths[w], " ");
  if (s->size.var)
    canon_var(c, s->size.var);
  else if (s->size.length) {
    canon_putc(c, '#');
    canon_var(c, s->size.length);
  } else {
    canon_int(c, "n", s->size.value, " ");
  }
  if (s->segdes)
    canon_var(c, s->segdes);
  if (s->offsets)
    canon_puts(c, "offsets ");
  if (s->into)
    canon_var(c, s->into);
  for (int a = 0; a < s->args.len; a++)
    canon_var(c, s->args.data[a]);
}

const char *lcu_kernel_key(const LcuKernel *k) {
  Canon *c = &canon;
  c->b->len = 0;
  c->nseen = 0;
  c->text++;
  c->soac = (Loc){0};
  for (int i = 0; i < k->params.len; i++)
    canon_var(c, k->params.data[i]);
  for (int i = 0; i < k->soacs.len; i++)
    canon_soac(c, k->soacs.data[i]);
  canon_puts(c, "->");
  for (int i = 0; i < k->results.len; i++)
    canon_var(c, k->results.data[i]);
  canon_putc(c, '\0');
  return c->b->data;
}

char *lcu_kernel_canonical(const LcuKernel *k) { return xstrdup(lcu_kernel_key(k)); }

LcuKernel *lcu_intern_kernel(LcuKernelTable *t, LcuProgram *p, LcuKernel *k) {
  const char *key = lcu_kernel_key(k);
  LcuKernel *old = map_get(&t->by_text, key);
  if (old)
    return old;
  map_put(&t->by_text, xstrdup(key), k);
  lcu_add_kernel(p, k);
  return k;
}

/* ---- dead statements ---- */

static void count_uses(const LcuBlock *b, GenMap *uses);

static void use_atom(const LcuAtom *a, GenMap *uses) {
  if (a->var) {
    void **n = genmap_slot(uses, a->var, true);
    *n = (void *)((intptr_t)*n + 1);
  }
}

static void count_uses(const LcuBlock *b, GenMap *uses) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    for (int k = 0; k < s->args.len; k++)
      use_atom(s->args.data[k], uses);
    if (s->then)
      count_uses(s->then, uses);
    if (s->els)
      count_uses(s->els, uses);
    if (s->body)
      count_uses(s->body, uses);
  }
  for (int i = 0; i < b->results.len; i++)
    use_atom(b->results.data[i], uses);
}

/* A CPU scalar operation that cannot stop with an error (float
   arithmetic can: NESL has no infinities). */
static bool safe_scalar(const LcuStmt *s) {
  bool ints = ((LcuVar *)s->results.data[0])->type.base != FB_FLOAT;
  switch (s->op) {
  case FLAT_ADD: case FLAT_SUB: case FLAT_MUL: case FLAT_NEG:
    return ints;
  case FLAT_EQ: case FLAT_NE: case FLAT_LT: case FLAT_GT: case FLAT_LE: case FLAT_GE:
  case FLAT_NOT: case FLAT_AND: case FLAT_OR: case FLAT_XOR: case FLAT_LSHIFT: case FLAT_RSHIFT:
  case FLAT_COPY: case FLAT_SELECT: case FLAT_BTOI: case FLAT_TO_FLOAT: case FLAT_CHAR_CODE: case FLAT_ZERO:
    return true;
  default:
    return false;
  }
}

/* Drops the dead statements of 'b' and its nested blocks, last first:
   every read of a variable comes after its statement, so by the time a
   statement is reached, what reads its results has been decided, and a
   statement that goes takes its reads off 'uses'.  One sweep gives what
   sweeping to a fixpoint gives (the statements that go are those no
   statement that stays depends on; there are no cycles), without
   counting the uses again for each sweep. */
static void unuse_atom(const LcuAtom *a, GenMap *uses) {
  if (a->var) {
    void **n = genmap_slot(uses, a->var, true);
    *n = (void *)((intptr_t)*n - 1);
  }
}

static void drop_dead_block(LcuBlock *b, GenMap *uses, const PtrMap *droppable, bool keep_totals) {
  int out = b->stmts.len;
  for (int i = b->stmts.len - 1; i >= 0; i--) {
    LcuStmt *s = b->stmts.data[i];
    if (s->body)
      drop_dead_block(s->body, uses, droppable, keep_totals);
    if (s->els)
      drop_dead_block(s->els, uses, droppable, keep_totals);
    if (s->then)
      drop_dead_block(s->then, uses, droppable, keep_totals);
    bool unused = s->results.len > 0;
    for (int k = 0; k < s->results.len; k++)
      unused &= !genmap_get(uses, s->results.data[k]);
    bool total = s->kind == LS_LENGTH && s->length == LEN_TOTAL;
    /* an if whose branches only return atoms (what was in them dead):
       a loop's part made one for each component it does not return
       (flatten.c, call_parts) */
    bool empty_if = s->kind == LS_IF && s->then && s->els && !s->then->stmts.len && !s->els->stmts.len;
    bool pure = (s->kind == LS_LENGTH && !(total && keep_totals)) || (s->kind == LS_SCALAR && safe_scalar(s)) ||
                (s->kind == LS_RUN && ptrmap_get(droppable, s)) || empty_if;
    if (unused && pure) {
      for (int k = 0; k < s->args.len; k++)
        unuse_atom(s->args.data[k], uses);
      for (int k = 0; empty_if && k < s->then->results.len; k++)
        unuse_atom(s->then->results.data[k], uses);
      for (int k = 0; empty_if && k < s->els->results.len; k++)
        unuse_atom(s->els->results.data[k], uses);
      continue;
    }
    b->stmts.data[--out] = s;
  }
  /* the statements kept, moved down to the start, in order */
  int kept = b->stmts.len - out;
  if (kept) /* an empty block has no array: memmove's must not be NULL */
    memmove(b->stmts.data, b->stmts.data + out, sizeof(void *) * (size_t)kept);
  b->stmts.len = kept;
}

/* The uses are counted per function (or top-level block): a CPU
   variable is bound and read within one. */
static void drop_dead_body(LcuBlock *b, const PtrMap *droppable, bool keep_totals, GenMap *uses) {
  genmap_clear(uses); /* one map for every body, emptied in place */
  count_uses(b, uses);
  drop_dead_block(b, uses, droppable, keep_totals);
}

void lcu_drop_dead(LcuProgram *p, const PtrMap *droppable, bool keep_totals) {
  GenMap uses = {0};
  for (int i = 0; i < p->funcs.len; i++)
    drop_dead_body(((LcuFunc *)p->funcs.data[i])->body, droppable, keep_totals, &uses);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      drop_dead_body(t->body, droppable, keep_totals, &uses);
  }
}

/* ---- unused kernels ---- */

static void mark_run_kernels(const LcuBlock *b, PtrMap *run) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN)
      ptrmap_put(run, s->kernel, (void *)1);
    if (s->then)
      mark_run_kernels(s->then, run);
    if (s->els)
      mark_run_kernels(s->els, run);
    if (s->body)
      mark_run_kernels(s->body, run);
  }
}

void lcu_prune_kernels(LcuProgram *p) {
  PtrMap run = {0};
  for (int i = 0; i < p->funcs.len; i++)
    mark_run_kernels(((LcuFunc *)p->funcs.data[i])->body, &run);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      mark_run_kernels(t->body, &run);
  }
  int out = 0;
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    if (ptrmap_get(&run, k)) {
      k->name = xprintf("K%d", out + 1);
      p->kernels.data[out++] = k;
    }
  }
  p->kernels.len = out;
}

/* ---- unused parameters ---- */

/* Does kernel 'k' read its parameter 'v' anywhere (a SOAC, a result)?
   A `using` that names it counts as a read. */
static bool kernel_reads(const LcuKernel *k, const LcuVar *v) {
  if (lcu_listed(&k->results, v))
    return true;
  for (int i = 0; i < k->soacs.len; i++)
    if (lcu_soac_reads(k->soacs.data[i], v))
      return true;
  return false;
}

/* Each run of 'b' (and its nested blocks) without the arguments its
   kernel no longer takes ('dropped': kernel -> a bool a parameter it
   had, true where that one went). */
static void drop_run_args(LcuBlock *b, const PtrMap *dropped) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    if (s->then)
      drop_run_args(s->then, dropped);
    if (s->els)
      drop_run_args(s->els, dropped);
    if (s->body)
      drop_run_args(s->body, dropped);
    const bool *gone = s->kind == LS_RUN ? ptrmap_get(dropped, s->kernel) : NULL;
    if (!gone)
      continue;
    int out = 0;
    for (int a = 0; a < s->args.len; a++)
      if (!gone[a])
        s->args.data[out++] = s->args.data[a];
    s->args.len = out;
  }
}

void lcu_drop_unused_params(LcuProgram *p) {
  PtrMap dropped = {0};
  bool any = false;
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    bool *gone = NULL;
    int out = 0;
    for (int a = 0; a < k->params.len; a++) {
      LcuVar *v = k->params.data[a];
      if (kernel_reads(k, v)) {
        k->params.data[out++] = v;
        continue;
      }
      if (!gone) {
        gone = xmalloc_atomic(sizeof(bool) * (size_t)k->params.len);
        memset(gone, 0, sizeof(bool) * (size_t)k->params.len);
      }
      gone[a] = true;
    }
    if (gone) {
      ptrmap_put(&dropped, k, gone);
      k->params.len = out;
      any = true;
    }
  }
  if (!any)
    return;
  for (int i = 0; i < p->funcs.len; i++)
    drop_run_args(((LcuFunc *)p->funcs.data[i])->body, &dropped);
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (t->body)
      drop_run_args(t->body, &dropped);
  }
}

/* The part of pull thunk 't' that gives its values from..to-1, and
   only the lets they read: a copy.  Fusion made the pull of a MAP's and
   a SCAN's (REDUCE's) thunks, at most one of which can fail, so each
   part is what that SOAC computed and checked before, and the two
   report what the one SOAC does. */
static LcuThunk *pull_part(LcuProgram *p, const LcuThunk *t, int from, int to) {
  return lcu_thunk_values(lcu_copy_thunk(p, t, NULL), from, to);
}

void lcu_scan_maps_apart(LcuProgram *p) {
  for (int i = 0; i < p->kernels.len; i++) {
    LcuKernel *k = p->kernels.data[i];
    bool any = false;
    for (int j = 0; j < k->soacs.len; j++)
      any |= ((const LcuSoac *)k->soacs.data[j])->maps > 0;
    if (!any)
      continue;
    Vec soacs = {0};
    for (int j = 0; j < k->soacs.len; j++) {
      LcuSoac *s = k->soacs.data[j];
      if (!s->maps) {
        vec_push(&soacs, s);
        continue;
      }
      int scanned = lcu_soac_scanned(s), all = s->pull->body.len;
      LcuSoac *m = lcu_soac_map(s->loc, pull_part(p, s->pull, scanned, all), s->size);
      LcuSoac *c = NEW(LcuSoac);
      *c = *s;
      c->pull = pull_part(p, s->pull, 0, scanned);
      c->maps = 0;
      c->results = (Vec){0};
      for (int r = 0; r < all; r++)
        vec_push(r < scanned ? &c->results : &m->results, s->results.data[r]);
      vec_push(&soacs, m);
      vec_push(&soacs, c);
    }
    k->soacs = soacs;
  }
}
