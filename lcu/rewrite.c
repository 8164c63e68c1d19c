/*
 * rewrite.c: the toolkit that rewrites of λcu are made of (fusion first,
 * ../shared/papers/lambda-cu.txt, section 4): copies with fresh binders,
 * substitution in thunks, the composition of a producer's MAP into a
 * consumer's thunk (the MAP rules of the paper's Figure 5), `using`
 * lists and free variables, and the def-use chains and last uses of a
 * CPU-level block.
 *
 * Nothing here changes its arguments: a kernel is shared by every `run`
 * of it (lower.c makes equal kernels once), so that a rewrite copies a
 * kernel or thunk (lcu_copy_kernel, lcu_copy_thunk) and changes the copy.
 * Copies and substitutions give every binder they make a new variable,
 * so that a variable stays bound once per thunk and kernel (lcu_check)
 * and no substitution can capture one.  Expressions may be shared within
 * a thunk (lowering reuses a parameter's LE_VAR); what comes out of here
 * is a tree.
 */
#include <ctype.h>
#include <string.h>

#include "lcu.h"

/* ---- variables ---- */

/* The hint of a variable's name: "xs" for xs_12, none for x12. */
static const char *hint_of(const LcuVar *v) {
  const char *name = v->name;
  if (!name)
    return NULL;
  const char *us = strrchr(name, '_');
  if (!us || us == name || !us[1])
    return NULL;
  for (const char *c = us + 1; *c; c++)
    if (!isdigit((unsigned char)*c))
      return NULL;
  return xstrndup(name, (size_t)(us - name));
}

LcuVar *lcu_copy_var(LcuProgram *p, const LcuVar *v) {
  LcuVar *c = lcu_new_var(p, v->type, hint_of(v));
  c->shape = v->shape;
  return c;
}

void lcu_rename_atoms(Vec *atoms, const PtrMap *renaming) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    LcuVar *to = a->var ? ptrmap_get(renaming, a->var) : NULL;
    if (to)
      atoms->data[i] = lcu_atom_var(to);
  }
}

void lcu_rename_block(LcuBlock *b, const PtrMap *renaming) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    lcu_rename_atoms(&s->args, renaming);
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        lcu_rename_block(nested[k], renaming);
  }
  lcu_rename_atoms(&b->results, renaming);
}

/* 'v' renamed by 'renaming' (LcuVar -> LcuVar), or itself. */
static LcuVar *renamed(const PtrMap *renaming, LcuVar *v) {
  LcuVar *r = renaming ? ptrmap_get(renaming, v) : NULL;
  return r ? r : v;
}

/* A fresh binder for 'v', recorded in 'renaming'. */
static LcuVar *fresh(LcuProgram *p, PtrMap *renaming, const LcuVar *v) {
  LcuVar *c = lcu_copy_var(p, v);
  ptrmap_put(renaming, v, c);
  return c;
}

static void rename_vars(Vec *to, const Vec *from, const PtrMap *renaming) {
  for (int i = 0; i < from->len; i++)
    vec_push(to, renamed(renaming, from->data[i]));
}

/* ---- copies ---- */

LcuExp *lcu_copy_exp(LcuProgram *p, const LcuExp *e, PtrMap *renaming) {
  PtrMap local = {0};
  if (!renaming) /* (a let's new binder must be recorded somewhere) */
    renaming = &local;
  LcuExp *c = lcu_exp_clone(e);
  if (e->kind == LE_LET) {
    c->args[0] = lcu_copy_exp(p, e->args[0], renaming);
    c->var = fresh(p, renaming, e->var);
    c->args[1] = lcu_copy_exp(p, e->args[1], renaming);
    return c;
  }
  if (e->var)
    c->var = renamed(renaming, e->var);
  for (int i = 0; i < e->nargs; i++)
    c->args[i] = lcu_copy_exp(p, e->args[i], renaming);
  return c;
}

/* Adds to 'read' every variable 'e' reads (not the ones it binds). */
static void note_reads(const LcuExp *e, PtrMap *read) {
  if (e->var && e->kind != LE_LET)
    ptrmap_put(read, e->var, (void *)e->var);
  for (int k = 0; k < e->nargs; k++)
    note_reads(e->args[k], read);
}

void lcu_thunk_needed_lets(const LcuThunk *t, int from, int to, bool (*keep)(const LcuLet *, void *), void *ctx,
                           bool *needed) {
  PtrMap read = {0};
  for (int b = from; b < to; b++)
    note_reads(t->body.data[b], &read);
  for (int l = t->lets.len - 1; l >= 0; l--) {
    const LcuLet *let = t->lets.data[l];
    needed[l] = ptrmap_get(&read, let->var) || (keep && keep(let, ctx));
    if (needed[l])
      note_reads(let->value, &read);
  }
}

LcuThunk *lcu_thunk_values(const LcuThunk *t, int from, int to) {
  LcuThunk *c = lcu_thunk_new();
  c->params = t->params;
  for (int i = from; i < to; i++)
    vec_push(&c->body, t->body.data[i]);
  bool *needed = xmalloc_atomic(sizeof(bool) * (size_t)(t->lets.len + 1));
  lcu_thunk_needed_lets(t, from, to, NULL, NULL, needed);
  for (int l = 0; l < t->lets.len; l++)
    if (needed[l])
      vec_push(&c->lets, t->lets.data[l]);
  lcu_fill_using(c);
  return c;
}

LcuThunk *lcu_copy_thunk(LcuProgram *p, const LcuThunk *t, PtrMap *renaming) {
  if (!t)
    return NULL;
  PtrMap local = {0};
  if (!renaming)
    renaming = &local;
  LcuThunk *c = lcu_thunk_new();
  for (int i = 0; i < t->params.len; i++)
    vec_push(&c->params, fresh(p, renaming, t->params.data[i]));
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    LcuExp *value = lcu_copy_exp(p, l->value, renaming);
    lcu_thunk_let(c, fresh(p, renaming, l->var), value);
  }
  for (int i = 0; i < t->body.len; i++)
    lcu_thunk_return(c, lcu_copy_exp(p, t->body.data[i], renaming));
  rename_vars(&c->using, &t->using, renaming);
  return c;
}

static LcuSoac *copy_soac(LcuProgram *p, const LcuSoac *s, PtrMap *renaming) {
  LcuSoac *c = NEW(LcuSoac);
  *c = *s;
  c->pull = lcu_copy_thunk(p, s->pull, renaming);
  c->second = lcu_copy_thunk(p, s->second, renaming);
  c->identity = (Vec){0};
  for (int i = 0; i < s->identity.len; i++) {
    FlatAtom *a = NEW(FlatAtom);
    *a = *(FlatAtom *)s->identity.data[i];
    vec_push(&c->identity, a);
  }
  c->size.var = s->size.var ? renamed(renaming, s->size.var) : NULL;
  c->size.length = s->size.length ? renamed(renaming, s->size.length) : NULL;
  c->segdes = s->segdes ? renamed(renaming, s->segdes) : NULL;
  c->into = s->into ? renamed(renaming, s->into) : NULL;
  c->args = (Vec){0};
  rename_vars(&c->args, &s->args, renaming);
  /* the results last: a SOAC's thunks cannot read its own results */
  c->results = (Vec){0};
  for (int i = 0; i < s->results.len; i++)
    vec_push(&c->results, fresh(p, renaming, s->results.data[i]));
  return c;
}

LcuKernel *lcu_copy_kernel(LcuProgram *p, const LcuKernel *k) {
  PtrMap renaming = {0};
  LcuKernel *c = lcu_kernel_new();
  c->name = k->name;
  for (int i = 0; i < k->params.len; i++)
    vec_push(&c->params, fresh(p, &renaming, k->params.data[i]));
  for (int i = 0; i < k->soacs.len; i++)
    lcu_kernel_soac(c, copy_soac(p, k->soacs.data[i], &renaming));
  rename_vars(&c->results, &k->results, &renaming);
  return c;
}

/* ---- free variables and `using` ---- */

bool lcu_listed(const Vec *vars, const LcuVar *v) {
  for (int i = 0; i < vars->len; i++)
    if (vars->data[i] == v)
      return true;
  return false;
}

/* Adds to 'out' the variables 'e' reads and does not bind ('bound': the
   binders in scope), in order of first appearance. */
static void free_in(const LcuExp *e, Vec *bound, Vec *out) {
  switch (e->kind) {
  case LE_VAR:
  case LE_INDEX:
  case LE_LENGTH:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    if (!lcu_listed(bound, e->var) && !lcu_listed(out, e->var))
      vec_push(out, e->var);
    break;
  case LE_LET:
    free_in(e->args[0], bound, out);
    vec_push(bound, e->var);
    free_in(e->args[1], bound, out);
    bound->len--;
    return;
  default:
    break;
  }
  for (int i = 0; i < e->nargs; i++)
    free_in(e->args[i], bound, out);
}

Vec lcu_free_vars(const LcuThunk *t) {
  Vec bound = {0}, out = {0};
  for (int i = 0; i < t->params.len; i++)
    vec_push(&bound, t->params.data[i]);
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    free_in(l->value, &bound, &out);
    vec_push(&bound, l->var);
  }
  for (int i = 0; i < t->body.len; i++)
    free_in(t->body.data[i], &bound, &out);
  return out;
}

void lcu_fill_using(LcuThunk *t) { t->using = lcu_free_vars(t); }

bool lcu_atoms_read_results(const Vec *atoms, const LcuStmt *s) {
  for (int a = 0; a < atoms->len; a++) {
    const LcuVar *v = ((const LcuAtom *)atoms->data[a])->var;
    for (int r = 0; v && r < s->results.len; r++)
      if (s->results.data[r] == v)
        return true;
  }
  return false;
}

bool lcu_exp_reads(const LcuExp *e, const LcuVar *v) {
  if (e->var == v && e->kind != LE_LET)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (lcu_exp_reads(e->args[i], v))
      return true;
  return false;
}

/* ---- substitution ---- */

/* A copy of 'e' in which 'replace' gives the replacement of each node it
   returns non-NULL for (a copy is made of it); binders are fresh. */
typedef LcuExp *Replace(const LcuExp *e, void *ctx);

static LcuExp *subst(LcuProgram *p, const LcuExp *e, PtrMap *renaming, Replace *replace, void *ctx) {
  const LcuExp *by = replace(e, ctx);
  if (by)
    return lcu_copy_exp(p, by, NULL);
  LcuExp *c = lcu_exp_clone(e);
  if (e->kind == LE_LET) {
    c->args[0] = subst(p, e->args[0], renaming, replace, ctx);
    c->var = fresh(p, renaming, e->var);
    c->args[1] = subst(p, e->args[1], renaming, replace, ctx);
    return c;
  }
  if (e->var)
    c->var = renamed(renaming, e->var);
  for (int i = 0; i < e->nargs; i++)
    c->args[i] = subst(p, e->args[i], renaming, replace, ctx);
  return c;
}

typedef struct VarSubst {
  const LcuVar *x;
  const LcuExp *by;
} VarSubst;

static LcuExp *replace_var(const LcuExp *e, void *ctx) {
  VarSubst *s = ctx;
  return e->kind == LE_VAR && e->var == s->x ? (LcuExp *)s->by : NULL;
}

LcuExp *lcu_subst_var(LcuProgram *p, const LcuExp *e, const LcuVar *x, const LcuExp *by) {
  PtrMap renaming = {0};
  VarSubst s = {x, by};
  return subst(p, e, &renaming, replace_var, &s);
}

typedef struct IndexSubst {
  const LcuVar *vec, *index;
  const LcuExp *by;
} IndexSubst;

static LcuExp *replace_index(const LcuExp *e, void *ctx) {
  IndexSubst *s = ctx;
  bool hit = e->kind == LE_INDEX && e->var == s->vec && e->args[0]->kind == LE_VAR && e->args[0]->var == s->index;
  return hit ? (LcuExp *)s->by : NULL;
}

LcuExp *lcu_subst_index(LcuProgram *p, const LcuExp *e, const LcuVar *vec, const LcuVar *index, const LcuExp *by) {
  PtrMap renaming = {0};
  IndexSubst s = {vec, index, by};
  return subst(p, e, &renaming, replace_index, &s);
}

/* ---- composition: MAP into a consumer ---- */

/* The j-th value of the producer's pull thunk at index 'at' (its index
   parameter replaced by a copy of 'at'). */
static LcuExp *produce(LcuProgram *p, const LcuSoac *producer, int j, const LcuExp *at) {
  const LcuThunk *pull = producer->pull;
  LcuExp *e = pull->body.data[j];
  /* its shared lets, as lets of this one expression */
  for (int l = pull->lets.len - 1; l >= 0; l--) {
    const LcuLet *let = pull->lets.data[l];
    e = lcu_exp_let(e->loc, let->var, let->value, e);
  }
  if (pull->params.len == 0)
    return lcu_copy_exp(p, e, NULL);
  return lcu_subst_var(p, e, pull->params.data[0], at);
}

/* The producer's size as a thunk expression at 'loc'. */
static LcuExp *size_exp(const LcuSoac *producer, Loc loc) {
  if (producer->size.var)
    return lcu_exp_var(loc, producer->size.var);
  if (producer->size.length)
    return lcu_exp_length(loc, producer->size.length);
  return lcu_exp_const(loc, lcu_int_const(producer->size.value));
}

/* The consumer's index: its first parameter, an int; or NULL. */
static const LcuVar *index_param(const LcuThunk *consumer) {
  const LcuVar *first = consumer->params.len ? consumer->params.data[0] : NULL;
  return first && lcu_type_equal(first->type, lcu_scalar(FB_INT)) ? first : NULL;
}

bool lcu_exp_reads_at(const LcuExp *e, const LcuVar *vec, const LcuVar *i) {
  if (e->kind == LE_INDEX && e->var == vec && e->args[0]->kind == LE_VAR && e->args[0]->var == i)
    return true;
  for (int k = 0; k < e->nargs; k++)
    if (lcu_exp_reads_at(e->args[k], vec, i))
      return true;
  return false;
}

typedef struct Compose {
  LcuProgram *p;
  const LcuSoac *producer;
  const LcuVar *index;  /* the consumer's index parameter, or NULL */
  const LcuVar *own;    /* the index whose reads A_j[own] are in range
                           (the consumer's, or NULL where every read is
                           checked) */
  bool checked;         /* reads at other indices keep their check
                           (lcu_compose_gather) */
  LcuVar **bound;       /* per producer result: the let-bound variable
                           standing for Aj[index] in the expression being
                           rewritten, made when first needed */
  bool in_place;        /* compose_apart: a read Aj[index] evaluated for
                           every element becomes the producer's value
                           there, in place */
  int branches;         /* how many `if` branches hold the expression
                           being rewritten */
  PtrMap renaming;
} Compose;

static int producer_result(const Compose *c, const LcuVar *v) {
  for (int j = 0; j < c->producer->results.len; j++)
    if (c->producer->results.data[j] == v)
      return j;
  return -1;
}

/* The new thunk's index: the consumer's, renamed. */
static LcuVar *fresh_index(Compose *c) { return renamed(&c->renaming, (LcuVar *)c->index); }

/* [A[i]/a] and the other reads of the producer's results, bottom-up. */
static LcuExp *compose_exp(Compose *c, const LcuExp *e) {
  int j = e->var && e->kind != LE_LET ? producer_result(c, e->var) : -1;
  if (j >= 0 && e->kind == LE_INDEX) {
    const LcuExp *at = e->args[0];
    if (c->own && at->kind == LE_VAR && at->var == c->own) {
      /* Aj[i], not in a branch: the value in place, so that its
         checks run where the read stood, after those of what the
         consumer computes before it, as the program ran them (a value
         read twice is computed twice: codegen numbers the copies as
         one) */
      if (c->in_place && !c->branches)
        return produce(c->p, c->producer, j, lcu_exp_var(e->loc, fresh_index(c)));
      /* else the let-bound aj */
      if (!c->bound[j])
        c->bound[j] = lcu_new_var(c->p, lcu_scalar(e->type), "a");
      return lcu_exp_var(e->loc, c->bound[j]);
    }
    /* Aj[e'] at another index: the producer's value there */
    if (!c->checked)
      return produce(c->p, c->producer, j, compose_exp(c, at));
    /* let x = bound(e', n) in the value at x: the read's check stays */
    LcuExp *b = lcu_exp_bound(e->loc, compose_exp(c, at), size_exp(c->producer, e->loc));
    b->lib_fn = e->lib_fn;
    b->origin = e->origin; /* the read's check, at the read's place */
    LcuVar *x = lcu_new_var(c->p, lcu_scalar(FB_INT), "j");
    return lcu_exp_let(e->loc, x, b, produce(c->p, c->producer, j, lcu_exp_var(e->loc, x)));
  }
  if (j >= 0 && e->kind == LE_LENGTH)
    return size_exp(c->producer, e->loc);
  if (j >= 0)
    die("a thunk reads vector %s as a scalar", e->var->name);
  LcuExp *r = lcu_exp_clone(e);
  if (e->kind == LE_LET) {
    r->args[0] = compose_exp(c, e->args[0]);
    r->var = fresh(c->p, &c->renaming, e->var);
    r->args[1] = compose_exp(c, e->args[1]);
    return r;
  }
  if (e->var)
    r->var = renamed(&c->renaming, e->var);
  for (int i = 0; i < e->nargs; i++) {
    int branch = e->kind == LE_IF && i > 0;
    c->branches += branch;
    r->args[i] = compose_exp(c, e->args[i]);
    c->branches -= branch;
  }
  return r;
}

/* How many expressions of 'consumer' read A_j[i] at its index 'i'. */
static int own_reads(const LcuThunk *consumer, const LcuVar *i, const LcuVar *a) {
  int n = 0;
  for (int e = 0; e < lcu_thunk_nexps(consumer); e++)
    n += lcu_exp_reads_at(lcu_thunk_exp(consumer, e), a, i);
  return n;
}

bool lcu_compose_shares(const LcuSoac *producer, const LcuThunk *consumer) {
  const LcuVar *i = index_param(consumer);
  if (!i)
    return false;
  if (producer->pull->lets.len || consumer->lets.len)
    return true;
  for (int j = 0; j < producer->results.len; j++)
    if (own_reads(consumer, i, producer->results.data[j]) > 1)
      return true;
  return false;
}

/* The consumer's expressions with the producer's values read, each
   result expression under lets of the values it reads (the form of the
   paper's Figure 5); where 'in_place', a value read where every element
   evaluates the read goes in place of it, so that its checks run there,
   after those of what the consumer computes first (a value read in a
   branch of an `if` is still let-bound: every element computes it, as
   the producer did). */
static void compose_apart(Compose *c, const LcuThunk *consumer, LcuThunk *t, bool in_place) {
  int k = c->producer->results.len;
  c->in_place = in_place;
  for (int b = 0; b < consumer->body.len; b++) {
    for (int j = 0; j < k; j++)
      c->bound[j] = NULL;
    const LcuExp *e = consumer->body.data[b];
    LcuExp *r = compose_exp(c, e);
    /* let a_j = e1_j in ...: the producer's values at the index, each
       computed once for this result (outermost first, in j order) */
    for (int j = k - 1; j >= 0; j--) {
      if (!c->bound[j])
        continue;
      LcuExp *at = lcu_exp_var(e->loc, renamed(&c->renaming, (LcuVar *)c->index));
      r = lcu_exp_let(e->loc, c->bound[j], produce(c->p, c->producer, j, at), r);
    }
    lcu_thunk_return(t, r);
  }
}

/* The same with the producer's values shared: its lets, then a let per
   value the consumer reads at its index (every value, where 'all'), then
   the consumer's lets and results.  A value that is a variable (a let of
   the producer, the index) is read as that variable. */
static void compose_shared(Compose *c, const LcuThunk *consumer, LcuThunk *t, bool all) {
  const LcuSoac *P = c->producer;
  int k = P->results.len;
  bool any = false;
  bool *wanted = xmalloc_atomic(sizeof(bool) * (size_t)(k + 1));
  for (int j = 0; j < k; j++) {
    wanted[j] = all || own_reads(consumer, c->own, P->results.data[j]) > 0;
    any |= wanted[j];
    c->bound[j] = NULL;
  }
  if (any) {
    /* the producer at the consumer's index: its parameter renamed */
    PtrMap at = {0};
    ptrmap_put(&at, P->pull->params.data[0], fresh_index(c));
    for (int l = 0; l < P->pull->lets.len; l++) {
      const LcuLet *let = P->pull->lets.data[l];
      LcuExp *value = lcu_copy_exp(c->p, let->value, &at);
      lcu_thunk_let(t, fresh(c->p, &at, let->var), value);
    }
    for (int j = 0; j < k; j++) {
      if (!wanted[j])
        continue;
      LcuExp *value = lcu_copy_exp(c->p, P->pull->body.data[j], &at);
      if (value->kind == LE_VAR) {
        c->bound[j] = value->var;
        continue;
      }
      c->bound[j] = lcu_new_var(c->p, lcu_scalar(value->type), "a");
      lcu_thunk_let(t, c->bound[j], value);
    }
  }
  for (int l = 0; l < consumer->lets.len; l++) {
    const LcuLet *let = consumer->lets.data[l];
    LcuExp *value = compose_exp(c, let->value);
    lcu_thunk_let(t, fresh(c->p, &c->renaming, let->var), value);
  }
  for (int b = 0; b < consumer->body.len; b++)
    lcu_thunk_return(t, compose_exp(c, consumer->body.data[b]));
}

/* The composed thunk begun: the consumer's parameters, renamed. */
static LcuThunk *begin(Compose *c, LcuProgram *p, const LcuSoac *producer, const LcuThunk *consumer) {
  *c = (Compose){.p = p, .producer = producer, .index = index_param(consumer)};
  c->own = c->index;
  c->bound = xmalloc(sizeof(LcuVar *) * (size_t)(producer->results.len + 1));
  LcuThunk *t = lcu_thunk_new();
  for (int i = 0; i < consumer->params.len; i++)
    vec_push(&t->params, fresh(p, &c->renaming, consumer->params.data[i]));
  return t;
}

LcuThunk *lcu_compose_pull(LcuProgram *p, const LcuSoac *producer, const LcuThunk *consumer, bool in_place) {
  if (producer->kind != SOAC_MAP || !producer->pull)
    die("lcu_compose_pull: the producer is a %s, not a MAP", lcu_soac_name(producer->kind));
  Compose c;
  LcuThunk *t = begin(&c, p, producer, consumer);
  if (lcu_compose_shares(producer, consumer))
    compose_shared(&c, consumer, t, false);
  else
    compose_apart(&c, consumer, t, in_place);
  lcu_fill_using(t);
  return t;
}

LcuThunk *lcu_compose_gather(LcuProgram *p, const LcuSoac *producer, const LcuThunk *consumer, bool own_in_range) {
  if (producer->kind != SOAC_MAP || !producer->pull)
    die("lcu_compose_gather: the producer is a %s, not a MAP", lcu_soac_name(producer->kind));
  Compose c;
  LcuThunk *t = begin(&c, p, producer, consumer);
  c.checked = true;
  if (!own_in_range)
    c.own = NULL;
  compose_shared(&c, consumer, t, false);
  lcu_fill_using(t);
  return t;
}

LcuThunk *lcu_merge_maps(LcuProgram *p, const LcuSoac *producer, const LcuSoac *consumer, const bool *keep) {
  if (producer->kind != SOAC_MAP || consumer->kind != SOAC_MAP || !index_param(consumer->pull))
    die("lcu_merge_maps: a %s into a %s", lcu_soac_name(producer->kind), lcu_soac_name(consumer->kind));
  Compose c;
  LcuThunk *t = begin(&c, p, producer, consumer->pull);
  compose_shared(&c, consumer->pull, t, true);
  /* the producer's kept values first */
  Vec body = t->body;
  t->body = (Vec){0};
  for (int j = 0; j < producer->results.len; j++)
    if (keep[j])
      lcu_thunk_return(t, lcu_exp_var(((LcuExp *)producer->pull->body.data[j])->loc, c.bound[j]));
  for (int b = 0; b < body.len; b++)
    lcu_thunk_return(t, body.data[b]);
  lcu_fill_using(t);
  return t;
}

/* ---- CPU level: def-use chains and last uses ---- */

static void atom_reads(Vec *reads, const Vec *atoms) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (a->var)
      vec_push(reads, a->var);
  }
}

LiveBlock *lcu_live_block(const LcuBlock *b, PtrMap *memo) {
  void **known = memo ? ptrmap_slot(memo, b, true) : NULL;
  if (known && *known)
    return *known;
  LiveBlock *lb = NEW(LiveBlock);
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    LiveStmt *ls = NEW(LiveStmt);
    atom_reads(&ls->reads, &s->args);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        vec_push(&ls->blocks, lcu_live_block(nested[k], memo));
    ls->binds = s->results;
    vec_push(&lb->stmts, ls);
  }
  atom_reads(&lb->reads, &b->results);
  if (memo)
    *ptrmap_slot(memo, b, true) = lb; /* (the slot may have moved) */
  return lb;
}

Vec *lcu_last_uses(const LcuBlock *b, const Vec *params, PtrMap *memo) {
  return live_last_reads(lcu_live_block(b, memo), params);
}

/* Records that statement 's' (of the block analysed) reads 'atoms'. */
static void add_uses(LcuDefUse *du, const LcuStmt *s, const Vec *atoms) {
  for (int i = 0; i < atoms->len; i++) {
    const LcuAtom *a = atoms->data[i];
    if (!a->var)
      continue;
    void **uses = ptrmap_slot(&du->uses, a->var, true);
    if (!*uses)
      *uses = NEW(Vec);
    Vec *v = *uses;
    if (!v->len || v->data[v->len - 1] != s)
      vec_push(v, (void *)s);
  }
}

/* ... and what its nested block 'b' reads, results included. */
static void add_block_uses(LcuDefUse *du, const LcuStmt *s, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *n = b->stmts.data[i];
    add_uses(du, s, &n->args);
    const LcuBlock *nested[3] = {n->then, n->els, n->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        add_block_uses(du, s, nested[k]);
  }
  add_uses(du, s, &b->results);
}

void lcu_fill_def_use(const LcuBlock *b, LcuDefUse *du) {
  *du = (LcuDefUse){0};
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    for (int k = 0; k < s->results.len; k++)
      ptrmap_put(&du->def, s->results.data[k], (void *)s);
    add_uses(du, s, &s->args);
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        add_block_uses(du, s, nested[k]);
  }
  for (int i = 0; i < b->results.len; i++) {
    const LcuAtom *a = b->results.data[i];
    if (a->var)
      ptrmap_put(&du->live_out, a->var, (void *)1);
  }
}
