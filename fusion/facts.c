/*
 * facts.c: what fusion must know of the runs of a function: the lengths
 * of their kernels' vectors, and what can fail.
 *
 * Lengths.  Shape analysis (LcuVar.shape) says which CPU vectors have one
 * length; sizes say the rest: a MAP's results have its size, a `#v` the
 * length of v, a SEG_SCAN's results the number of elements of its sd.  A
 * FusLen names a length by what is known of it, so that two lengths are
 * known equal when their names are (a shape class, a variable, a
 * constant, the elements of a sd).  One more fact joins the two: a vector
 * of shape k made with the length of the elements of sd S (S's seg_ids, a
 * SEG_SCAN over S) says that class k is S's elements, which is how a
 * segmented SOAC's index space meets the vectors it reads.
 *
 * Failures.  Fusion moves computations between runs and SOACs, and
 * removes runs; it must know what can fail, so that an error is still
 * reported, first, and at the same place.  A thunk expression can fail if
 * its operation can (division, float arithmetic, which NESL checks for
 * infinities) or if it subscripts a vector at an index not known to be in
 * range: x[i] at the SOAC's own index i is safe when x's length is the
 * SOAC's index space.  A SOAC can fail at its run when its size is a
 * variable that may be negative, when it scatters (PERMUTE), or when a
 * library kernel checks its input (make_segdes, range_segdes, hash).  Random numbers
 * are drawn from a counter: a `rand` neither fails nor may be moved.
 */
#include <string.h>

#include "fusion.h"
#include "../flat/flat.h" /* a host statement's operation (LS_HOST) */

/* ---- lengths ---- */

static FusLen unknown(void) { return (FusLen){FL_UNKNOWN, 0, NULL}; }
static FusLen len_const(int32_t c) { return (FusLen){FL_CONST, c, NULL}; }
static FusLen len_shape(int shape) { return (FusLen){FL_SHAPE, shape, NULL}; }
static FusLen len_var(const LcuVar *v) { return (FusLen){FL_VAR, 0, v}; }
static FusLen nonneg(void) { return (FusLen){FL_NONNEG, 0, NULL}; }

/* Both ranges, as one: the same bound, or where both are known, >= 0. */
static FusLen range_join(FusLen a, FusLen b) {
  if (fus_len_equal(a, b))
    return a;
  return a.kind != FL_UNKNOWN && b.kind != FL_UNKNOWN ? nonneg() : unknown();
}

bool fus_len_equal(FusLen a, FusLen b) {
  if (a.kind == FL_UNKNOWN || a.kind != b.kind)
    return false;
  switch (a.kind) {
  case FL_CONST:
  case FL_SHAPE:
  case FL_STRICT:
    return a.value == b.value;
  case FL_VAR:
  case FL_TOTAL:
    return a.of == b.of;
  default:
    return false;
  }
}

bool fus_len_nonneg(FusLen a) {
  switch (a.kind) {
  case FL_CONST:
    return a.value >= 0;
  case FL_SHAPE:
  case FL_STRICT:
  case FL_TOTAL:
    return true;
  case FL_VAR:
    return a.of->type.kind != LT_SCALAR; /* a length, not an int's value */
  default:
    return false;
  }
}

/* ---- maps from variables to lengths ---- */

/* The entry of 'key' in 'm', or NULL when absent.  An entry of an
   older generation is an empty slot: within a generation nothing is
   removed, so a probe for a key of this one never passes such a slot. */
static FusLen *len_get(const FusLenMap *m, const LcuVar *key) {
  if (!m->cap)
    return NULL;
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    FusLenEntry *e = &m->entries[i];
    if (!e->key || e->generation != m->generation)
      return NULL;
    if (e->key == key)
      return &e->len;
  }
}

static void len_put(FusLenMap *m, const LcuVar *key, FusLen l);

static void len_grow(FusLenMap *m) {
  int64_t cap = m->cap ? 2 * m->cap : 64;
  FusLenMap bigger = {xmalloc(sizeof(FusLenEntry) * (size_t)cap), cap, 0, m->generation};
  for (int64_t i = 0; i < m->cap; i++)
    if (m->entries[i].key && m->entries[i].generation == m->generation)
      len_put(&bigger, m->entries[i].key, m->entries[i].len);
  *m = bigger;
}

static void len_put(FusLenMap *m, const LcuVar *key, FusLen l) {
  if (2 * (m->used + 1) > m->cap)
    len_grow(m);
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    FusLenEntry *e = &m->entries[i];
    if (!e->key || e->generation != m->generation) {
      *e = (FusLenEntry){key, l, m->generation};
      m->used++;
      return;
    }
    if (e->key == key) {
      e->len = l;
      return;
    }
  }
}

/* 'm' emptied, its room kept: the memos are forgotten and filled again
   to about the size they had. */
static void len_clear(FusLenMap *m) {
  if (!m->used)
    return;
  m->used = 0;
  if (++m->generation == 0) { /* after 2^32 generations: clear once */
    memset(m->entries, 0, sizeof(FusLenEntry) * (size_t)m->cap);
    m->generation = 1;
  }
}

/* ---- shape classes a check makes one ---- */

static bool hidden_class(const FusFacts *f, int shape) {
  for (int i = 0; i < f->hidden.len; i++)
    if ((intptr_t)f->hidden.data[i] == shape)
      return true;
  return false;
}

/* True if 'l' is the length of a shape class hidden from the run being
   worked out: not to be assumed there. */
static bool hidden_len(const FusFacts *f, FusLen l) { return l.kind == FL_SHAPE && hidden_class(f, l.value); }

static void note_length_check(FusFacts *f, const LcuStmt *s) {
  if (s->kind == LS_CHECK && (s->check == RT_CHECK_LENGTHS || s->check == RT_CHECK_COUNTS) &&
      !genmap_get(&f->length_listed, s)) {
    genmap_put(&f->length_listed, s, (void *)1);
    vec_push(&f->length_checks, (void *)s);
  }
}

/* The shape class whose lengths check 'c' compares (both operands of
   one class), or 0.  Worked out with nothing hidden. */
static int check_class(FusFacts *f, const LcuStmt *c) {
  void **memo = genmap_slot(&f->check_class, c, true);
  if (*memo)
    return (int)((intptr_t)*memo - 1);
  *memo = (void *)1; /* none, while working it out: no cycle */
  int k = 0;
  if (c->args.len >= 2) {
    FusLen a = fus_atom_len(f, c->args.data[0]), b = fus_atom_len(f, c->args.data[1]);
    if (a.kind == FL_SHAPE && fus_len_equal(a, b))
      k = a.value;
  }
  /* the slot again: the map may have grown while the lengths were
     worked out */
  *genmap_slot(&f->check_class, c, true) = (void *)(intptr_t)(k + 1);
  return k;
}

/* Fills f->hidden for 'run' (f->hidden empty): the classes that a check
   after it in its block makes one, unless one before it did. */
static void hide_for(FusFacts *f, const LcuStmt *run) {
  intptr_t r = (intptr_t)genmap_get(&f->order, run);
  const void *block = genmap_get(&f->block, run);
  if (!r || !block || !f->length_checks.len)
    return;
  Vec later = {0}, earlier = {0};
  for (int i = 0; i < f->length_checks.len; i++) {
    const LcuStmt *c = f->length_checks.data[i];
    if (genmap_get(&f->block, c) != block)
      continue;
    int k = check_class(f, c);
    if (k > 0)
      vec_push((intptr_t)genmap_get(&f->order, c) > r ? &later : &earlier, (void *)(intptr_t)k);
  }
  for (int i = 0; i < later.len; i++) {
    bool before = false;
    for (int j = 0; j < earlier.len && !before; j++)
      before = earlier.data[j] == later.data[i];
    if (!before)
      vec_push(&f->hidden, later.data[i]);
  }
}

/* The number of elements of CPU sd 'sd': a shape class when a vector of
   that class was made with that length, else the sd's own. */
static FusLen total_of(FusFacts *f, const LcuVar *sd) {
  FusLen *alias = len_get(&f->totals, sd);
  return alias && !hidden_len(f, *alias) ? *alias : (FusLen){FL_TOTAL, 0, sd};
}

/* `check range (c, v, s)` with constants c >= 0 and s > 0: its v, which
   every statement after it in its block knows to be >= 0 (`[0:n]`
   checks n before the MAP of size n). */
static const LcuVar *range_checked_var(const LcuStmt *s) {
  if (s->kind != LS_CHECK || s->check != RT_CHECK_RANGE || s->args.len != 3)
    return NULL;
  const LcuAtom *c = s->args.data[0], *v = s->args.data[1], *st = s->args.data[2];
  if (c->var || c->constant.kind != FA_INT || c->constant.u.i < 0 || st->var || st->constant.kind != FA_INT ||
      st->constant.u.i <= 0 || !v->var || v->var->type.kind != LT_SCALAR)
    return NULL;
  return v->var;
}

/* 'deep': in nested blocks too */
static void note_defs(FusFacts *f, const LcuBlock *b, bool deep) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    genmap_put(&f->block, s, (void *)b);
    genmap_put(&f->order, s, (void *)(intptr_t)++f->next_order);
    note_length_check(f, s);
    const LcuVar *checked = range_checked_var(s);
    if (checked && !genmap_get(&f->checked, checked))
      genmap_put(&f->checked, checked, (void *)s);
    for (int k = 0; k < s->results.len; k++)
      genmap_put(&f->def, s->results.data[k], (void *)s);
    if (!deep)
      continue;
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_defs(f, nested[k], true);
  }
}

static FusLen run_result_len(FusFacts *f, const LcuStmt *s, const LcuVar *v);

/* The length of 'v' from its definition, without its shape. */
static FusLen defined_len(FusFacts *f, const LcuVar *v) {
  const LcuStmt *s = genmap_get(&f->def, v);
  if (!s)
    return len_var(v);
  switch (s->kind) {
  case LS_LENGTH: {
    const LcuAtom *a = s->args.data[0];
    if (!a->var)
      return unknown();
    if (s->length == LEN_TOTAL)
      return total_of(f, a->var);
    return fus_var_len(f, a->var);
  }
  case LS_SCALAR:
    if (s->op == FLAT_COPY)
      return fus_atom_len(f, s->args.data[0]);
    return len_var(v);
  case LS_RUN:
    return run_result_len(f, s, v);
  default:
    return len_var(v);
  }
}

FusLen fus_var_len(FusFacts *f, const LcuVar *v) {
  if (!v)
    return unknown();
  if (v->type.kind != LT_SCALAR && v->shape > 0) {
    if (hidden_class(f, v->shape)) /* before the check that makes the class one */
      return v->strict > 0 ? (FusLen){FL_STRICT, v->strict, NULL} : len_var(v);
    return len_shape(v->shape);
  }
  if (v->type.kind == LT_SCALAR && v->type.base != FB_INT)
    return unknown();
  /* the memo holds what is known with nothing hidden: only a hidden
     class's length is worked out again, and nothing found while some
     class is hidden is kept */
  FusLen *memo = len_get(&f->lens, v);
  if (memo && !hidden_len(f, *memo))
    return *memo;
  FusLen *alias = v->type.kind == LT_SCALAR ? len_get(&f->sizes, v) : NULL;
  if (alias && hidden_len(f, *alias))
    alias = NULL;
  FusLen l = alias ? *alias : defined_len(f, v);
  if (!f->hidden.len)
    len_put(&f->lens, v, l);
  return l;
}

static bool run_counts(FusFacts *f, const LcuStmt *s, const LcuVar *v);

bool fus_host_vector(const LcuStmt *s) { return s && s->kind == LS_HOST && s->flat && s->flat->op == FLAT_VECTOR; }

bool fus_host_lengths(FusFacts *f, const LcuVar *v, bool zeros) {
  const LcuStmt *h = v ? genmap_get(&f->def, v) : NULL;
  if (!fus_host_vector(h) || h->results.len != 1)
    return false;
  bool some = false;
  for (int i = 0; i < h->args.len; i++) {
    const LcuAtom *a = h->args.data[i];
    const LcuStmt *d = a->var ? genmap_get(&f->def, a->var) : NULL;
    if (a->var ? !d || (d->kind != LS_LENGTH && d->kind != LS_SIZE)
               : a->constant.kind != FA_INT || (zeros && a->constant.u.i != 0))
      return false;
    some |= a->var != NULL;
  }
  return some || (zeros && h->args.len > 0);
}

bool fus_int_nonneg(FusFacts *f, const LcuAtom *a) {
  if (!a->var)
    return a->constant.kind == FA_INT && a->constant.u.i >= 0;
  const LcuStmt *s = genmap_get(&f->def, a->var);
  if (!s)
    return false;
  if (s->kind == LS_LENGTH || s->kind == LS_SIZE) /* a size that would be negative fails */
    return true;
  if (s->kind == LS_RUN && a->var->type.kind == LT_SCALAR && run_counts(f, s, a->var))
    return true;
  return s->kind == LS_SCALAR && s->op == FLAT_COPY && fus_int_nonneg(f, s->args.data[0]);
}

FusLen fus_atom_len(FusFacts *f, const LcuAtom *a) {
  if (a->var)
    return fus_var_len(f, a->var);
  if (a->constant.kind == FA_INT)
    return len_const(a->constant.u.i);
  return unknown();
}

/* The index slot of kernel variable 'v' in 'kl': the number of its
   facts + 1, or 0 where they would go; NULL for no variable. */
static int32_t *kernel_slot(const FusKernelLens *kl, const LcuVar *v) {
  if (!v || !kl->cap)
    return NULL;
  uint64_t mask = (uint64_t)kl->cap - 1;
  for (uint64_t i = ptr_hash(v) & mask;; i = (i + 1) & mask) {
    int32_t *slot = &kl->index[i];
    if (!*slot || kl->vars[*slot - 1].var == v)
      return slot;
  }
}

/* The facts of 'v' in 'kl', or NULL. */
static const FusVarFacts *kernel_var(const FusKernelLens *kl, const LcuVar *v) {
  const int32_t *slot = kernel_slot(kl, v);
  return slot && *slot ? &kl->vars[*slot - 1] : NULL;
}

/* The facts of 'v' in 'kl', added if absent. */
static FusVarFacts *kernel_var_add(FusKernelLens *kl, const LcuVar *v) {
  int32_t *slot = kernel_slot(kl, v);
  if (!*slot) {
    if (kl->used == kl->room) /* sized for all the kernel's variables */
      die("fusion: %s is not a variable of the kernel", v->name);
    kl->vars[kl->used] = (FusVarFacts){.var = v};
    *slot = ++kl->used;
  }
  return &kl->vars[*slot - 1];
}

FusLen fus_kernel_len(const FusKernelLens *kl, const LcuVar *v) {
  const FusVarFacts *e = kernel_var(kl, v);
  return e ? e->len : unknown();
}

const LcuAtom *fus_kernel_arg(const FusKernelLens *kl, const LcuVar *v) {
  const FusVarFacts *e = kernel_var(kl, v);
  return e ? e->cpu : NULL;
}

static FusLen size_len(const FusKernelLens *kl, const LcuSize *z) {
  if (z->var)
    return fus_kernel_len(kl, z->var);
  if (z->length)
    return fus_kernel_len(kl, z->length);
  return len_const(z->value);
}

static bool is_segmented(LcuSoacKind k) { return k >= SOAC_SEG_MAP && k <= SOAC_SEG_PARTITION; }

/* The number of elements of kernel sd 'sd'. */
static FusLen kernel_total(const FusKernelLens *kl, const LcuVar *sd) {
  const FusVarFacts *e = kernel_var(kl, sd);
  return e ? e->total : unknown();
}

static FusLen kernel_range(const FusKernelLens *kl, const LcuVar *v) {
  const FusVarFacts *e = kernel_var(kl, v);
  return e ? e->range : unknown();
}

FusLen fus_soac_space(const FusKernelLens *kl, const LcuSoac *s) {
  if (s->kind == SOAC_ONCE)
    return len_const(1);
  if (s->kind == SOAC_LIBRARY)
    return unknown();
  if (is_segmented(s->kind))
    return kernel_total(kl, s->segdes);
  return size_len(kl, &s->size);
}

static void set_len(FusKernelLens *kl, const LcuVar *v, FusLen l) { kernel_var_add(kl, v)->len = l; }

/* The lengths of the results of SOAC 's' (ORDER LCU RESULTS, lcu.h);
   what is known only as itself is the result's own. */
static void soac_result_lens(FusKernelLens *kl, const LcuSoac *s) {
  FusLen space = fus_soac_space(kl, s);
  for (int i = 0; i < s->results.len; i++) {
    const LcuVar *r = s->results.data[i];
    FusLen l = unknown();
    switch (s->kind) {
    case SOAC_MAP:
    case SOAC_SEG_MAP:
    case SOAC_SCAN:
    case SOAC_SEG_SCAN:
      l = space;
      break;
    case SOAC_REDUCE: /* its map columns */
      if (i >= lcu_soac_scanned(s))
        l = space;
      break;
    case SOAC_PERMUTE:
    case SOAC_SEG_PERMUTE:
      l = s->into ? fus_kernel_len(kl, s->into) : space;
      break;
    case SOAC_SEG_REDUCE:
      l = fus_kernel_len(kl, s->segdes);
      break;
    case SOAC_LIBRARY: {
      const LcuVar *a0 = s->args.len > 0 ? s->args.data[0] : NULL;
      switch (s->library) {
      case LIB_SEG_LENGTHS:
      case LIB_SEG_OFFSETS:
      case LIB_MAKE_SEGDES:
      case LIB_RANGE_SEGDES:
      case LIB_RANK:
      case LIB_RANK_DOWN:
        l = fus_kernel_len(kl, a0);
        break;
      case LIB_SEG_IDS:
        l = kernel_total(kl, a0);
        break;
      case LIB_SEG_RANK:
      case LIB_SEG_RANK_DOWN:
        l = fus_kernel_len(kl, s->args.len > 1 ? s->args.data[1] : NULL);
        break;
      case LIB_RAND:
        if (a0 && a0->type.kind == LT_VEC)
          l = fus_kernel_len(kl, a0);
        break;
      case LIB_LOOP: {
        /* the state's copy, as long as its argument; else one result an
           element, as many as the first argument has */
        int p = s->callee ? s->callee->each_result : -1;
        const LcuVar *from = NULL;
        if (p >= 0) {
          int at = lcu_loop_arg(s, p, NULL);
          from = at >= 0 && at + 1 < s->args.len ? s->args.data[at + 1] : NULL;
        } else {
          /* the first argument that is not a shared vector */
          for (int k = 0; s->callee && k < s->callee->params.len && !from; k++) {
            bool shared;
            int at = lcu_loop_arg(s, k, &shared);
            if (at >= 0 && !shared)
              from = s->args.data[at];
          }
        }
        l = fus_kernel_len(kl, from);
        break;
      }
      default:
        break;
      }
      break;
    }
    case SOAC_SPLIT: /* a class's values have one length, that of its first;
                        its counts, one a segment */
      if (s->pull && i >= s->pull->body.len)
        l = fus_kernel_len(kl, s->segdes);
      else
        l = len_var(s->results.data[lcu_split_start(s, lcu_split_class(s, i))]);
      break;
    case SOAC_FILTER:
    case SOAC_PARTITION:
    case SOAC_SEG_FILTER:
    case SOAC_SEG_PARTITION:
      /* the new sds have the segments of the old; the values of one
         group have one length, that of its first; a joined
         PARTITION's, every element */
      if (s->joined) {
        l = space;
      } else if (r->type.kind == LT_SEGDES) {
        l = fus_kernel_len(kl, s->segdes);
      } else {
        int nv = s->pull ? s->pull->body.len : 1;
        int group = s->kind == SOAC_SEG_FILTER || s->kind == SOAC_SEG_PARTITION ? nv + 1 : nv;
        l = len_var(s->results.data[i - i % group]);
      }
      break;
    default:
      break; /* REDUCE, ONCE: known only as themselves */
    }
    if (l.kind == FL_UNKNOWN)
      l = len_var(r);
    set_len(kl, r, l);
    if (r->type.kind == LT_SEGDES)
      kernel_var_add(kl, r)->total = (FusLen){FL_TOTAL, 0, r};
  }
}

/* ---- value ranges ---- */

/* What is known of a thunk variable in scope: a let's value lies in
   [0, bound); or, in an append's branches (`if i < #a then a[i] else
   b[i - #a]`), the index lies in [0, #a), or at or above #a ('above'). */
typedef struct LetRange {
  const LcuVar *var;
  FusLen bound;
  const LcuVar *above; /* the index is at least #above, or NULL */
  const struct LetRange *next;
} LetRange;

/* The SOAC's index space less #a, when its size is a CPU sum of #a and
   another length (the size of an append): that other length. */
static FusLen space_less(const FusKernelLens *kl, const LcuSoac *s, const LcuVar *a) {
  const FusLen *sum = s->size.var ? ptrmap_get(&kl->sums, s->size.var) : NULL;
  FusLen la = fus_kernel_len(kl, a);
  if (!sum)
    return unknown();
  if (fus_len_equal(sum[0], la))
    return sum[1];
  if (fus_len_equal(sum[1], la))
    return sum[0];
  return unknown();
}

/* 'c' is `i < #a` for the thunk's index i: 'a', else NULL. */
static const LcuVar *below_length(const LcuExp *c, const LcuVar *i) {
  if (c->kind != LE_OP || c->op != FLAT_LT || !i)
    return NULL;
  const LcuExp *x = c->args[0], *y = c->args[1];
  return x->kind == LE_VAR && x->var == i && y->kind == LE_LENGTH ? y->var : NULL;
}

/* The length that the length operand of a bound(e, n) stands for: a
   vector's (#x), a size's (a kernel's int scalar), a constant. */
static FusLen bound_length(const FusKernelLens *kl, const LcuExp *n) {
  switch (n->kind) {
  case LE_LENGTH:
  case LE_VAR: /* (unknown for a thunk's own names) */
    return fus_kernel_len(kl, n->var);
  case LE_CONST:
    return n->constant.kind == FA_INT && n->constant.u.i >= 0 ? len_const(n->constant.u.i) : unknown();
  default:
    return unknown();
  }
}

/* A bound on the values of int expression 'e' of thunk 't' of 's': they
   lie in [0, bound) whenever 'e' is computed without an error. */
static FusLen exp_range(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                        const LetRange *lets) {
  if (e->type != FB_INT)
    return unknown();
  switch (e->kind) {
  case LE_VAR:
    for (const LetRange *l = lets; l; l = l->next)
      if (l->var == e->var && !l->above)
        return l->bound;
    if (e->var == fus_index_param(s, t))
      return fus_soac_space(kl, s);
    /* the segment a pull takes (SEG_MAP's): one of its sd's segments */
    if (lcu_pull_takes_segment(s) && t == s->pull && t->params.len == 2 && e->var == t->params.data[1])
      return fus_kernel_len(kl, s->segdes);
    return unknown();
  case LE_INDEX: /* whatever the index, a value of the vector */
    return kernel_range(kl, e->var);
  case LE_CONST:
    return e->constant.u.i >= 0 && e->constant.u.i < INT32_MAX ? len_const(e->constant.u.i + 1) : unknown();
  case LE_OP: {
    const LcuExp *a = e->args[0], *b = e->nargs > 1 ? e->args[1] : NULL;
    bool zero_b = b && b->kind == LE_CONST && b->constant.kind == FA_INT && b->constant.u.i == 0;
    bool zero_a = a->kind == LE_CONST && a->constant.kind == FA_INT && a->constant.u.i == 0;
    bool one_b = b && b->kind == LE_CONST && b->constant.kind == FA_INT && b->constant.u.i == 1;
    bool one_a = a->kind == LE_CONST && a->constant.kind == FA_INT && a->constant.u.i == 1;
    if ((e->op == FLAT_ADD && zero_b) || (e->op == FLAT_MUL && one_b) || (e->op == FLAT_SUB && zero_b))
      return exp_range(kl, s, t, a, lets);
    if ((e->op == FLAT_ADD && zero_a) || (e->op == FLAT_MUL && one_a))
      return exp_range(kl, s, t, b, lets);
    if (e->op == FLAT_BTOI)
      return len_const(2);
    if (e->op == FLAT_SELECT)
      return range_join(exp_range(kl, s, t, b, lets), exp_range(kl, s, t, e->args[2], lets));
    /* rem(a, n) with a >= 0 lies in [0, |n|) (C's remainder takes the
       sign of a); n named as a length is one (a vector that long exists)
       or the bound is never compared with one.  This is the replication
       of a free vector, x[rem(i, #x)] (flatten's distribution), whose
       subscript then cannot fail. */
    if (e->op == FLAT_REM && exp_range(kl, s, t, a, lets).kind != FL_UNKNOWN) {
      FusLen n = bound_length(kl, b);
      return n.kind != FL_UNKNOWN && !(n.kind == FL_CONST && n.value == 0) ? n : nonneg();
    }
    /* i - #a where i >= #a: below the space less #a */
    if (e->op == FLAT_SUB && a->kind == LE_VAR && b->kind == LE_LENGTH)
      for (const LetRange *l = lets; l; l = l->next)
        if (l->var == a->var && l->above == b->var)
          return space_less(kl, s, b->var);
    return unknown();
  }
  case LE_IF:
    return range_join(exp_range(kl, s, t, e->args[1], lets), exp_range(kl, s, t, e->args[2], lets));
  case LE_LENGTH:
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    return nonneg();
  case LE_BOUND: /* checked: below its length */
    return bound_length(kl, e->args[1]);
  case LE_LET: {
    LetRange l = {e->var, exp_range(kl, s, t, e->args[0], lets), NULL, lets};
    return exp_range(kl, s, t, e->args[1], &l);
  }
  default:
    return unknown();
  }
}

/* The ranges of the first 'n' shared lets of thunk 't' of 's', as a
   chain (in 'chain', n entries), or NULL for none. */
static const LetRange *thunk_let_ranges(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, int n,
                                        LetRange *chain) {
  const LetRange *in = NULL;
  for (int i = 0; i < n; i++) {
    const LcuLet *l = t->lets.data[i];
    chain[i] = (LetRange){l->var, exp_range(kl, s, t, l->value, in), NULL, in};
    in = &chain[i];
  }
  return in;
}

/* Room for the chain of a thunk's let ranges: on the stack for the
   usual few lets (a range is worked out per SOAC result and per
   expression that may fail), else allocated. */
enum { FEW_LETS = 16 };

static LetRange *let_room(const LcuThunk *t, LetRange few[FEW_LETS]) {
  return t->lets.len <= FEW_LETS ? few : xmalloc(sizeof(LetRange) * (size_t)t->lets.len + 1);
}

/* The ranges of the lets in scope of expression 'e' of thunk 't': those
   before it, if it is a let's value, else all; in 'few' or allocated. */
static const LetRange *scope_ranges(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                                    LetRange few[FEW_LETS]) {
  if (!t || !t->lets.len)
    return NULL;
  int n = t->lets.len;
  for (int i = 0; i < t->lets.len; i++)
    if (((const LcuLet *)t->lets.data[i])->value == e)
      n = i;
  return thunk_let_ranges(kl, s, t, n, let_room(t, few));
}

/* True if result 'i' of reduction or scan 's' counts: a sum, from 0,
   of values that are 0 or 1 (btoi of flags), so >= 0 (no int32 sum of
   as many ones as a vector holds can wrap). */
bool fus_int_sum_from_zero(const LcuSoac *s, int i) {
  const LcuThunk *op = s->second;
  int k = s->pull ? lcu_soac_scanned(s) : 0; /* the map columns are not summed */
  if (!op || !s->pull || i >= k || i >= s->identity.len || op->params.len != 2 * k || op->body.len != k ||
      op->lets.len)
    return false;
  const FlatAtom *id = s->identity.data[i];
  if (id->kind != FA_INT || id->u.i != 0)
    return false;
  const LcuExp *sum = op->body.data[i];
  const LcuVar *x = op->params.data[i], *y = op->params.data[k + i];
  if (sum->kind != LE_OP || sum->op != FLAT_ADD || sum->type != FB_INT || sum->args[0]->kind != LE_VAR ||
      sum->args[1]->kind != LE_VAR)
    return false;
  const LcuVar *a = sum->args[0]->var, *b = sum->args[1]->var;
  return (a == x && b == y) || (a == y && b == x);
}

static bool counts(FusKernelLens *kl, const LcuSoac *s, int i) {
  if (!fus_int_sum_from_zero(s, i))
    return false;
  LetRange few[FEW_LETS];
  const LcuExp *e = s->pull->body.data[i];
  FusLen r = exp_range(kl, s, s->pull, e, scope_ranges(kl, s, s->pull, e, few));
  return r.kind == FL_CONST && r.value <= 2;
}

static bool run_kernel_lens(FusFacts *f, const LcuStmt *s, FusKernelLens *kl);
static void release_kernel_lens(FusKernelLens *kl);
static int run_result_index(const LcuStmt *s, const LcuVar *v);

/* Is scalar 'v', a result of run 's', a count (a REDUCE's result that
   counts: at most the number of elements, never negative)? */
static bool run_counts(FusFacts *f, const LcuStmt *s, const LcuVar *v) {
  const LcuKernel *k = s->kernel;
  int at = run_result_index(s, v);
  const LcuVar *kv = at >= 0 ? k->results.data[at] : NULL;
  for (int j = 0; kv && j < k->soacs.len; j++) {
    const LcuSoac *so = k->soacs.data[j];
    for (int c = 0; c < so->results.len; c++) {
      if (so->results.data[c] != kv)
        continue;
      if (so->kind != SOAC_REDUCE)
        return false;
      FusKernelLens kl;
      bool fresh = run_kernel_lens(f, s, &kl);
      bool yes = counts(&kl, so, c);
      if (fresh)
        release_kernel_lens(&kl);
      return yes;
    }
  }
  return false;
}

/* The value ranges of the results of SOAC 's': what a MAP or a filter
   pulls, the segments of seg_ids, lengths and offsets, counts. */
static void soac_result_ranges(FusKernelLens *kl, const LcuSoac *s) {
  int nv = s->pull ? s->pull->body.len : 0;
  for (int i = 0; i < s->results.len; i++) {
    const LcuVar *r = s->results.data[i];
    if (r->type.kind != LT_VEC || r->type.base != FB_INT)
      continue;
    FusLen b = unknown();
    switch (s->kind) {
    case SOAC_SPLIT: /* result i is pull value i, as a FILTER's; then counts */
      if (i >= nv) {
        b = nonneg();
        break;
      }
      /* fall through */
    case SOAC_MAP:
    case SOAC_FILTER:
    case SOAC_PARTITION:
    case SOAC_SEG_FILTER:
    case SOAC_SEG_PARTITION: {
      int group = s->kind == SOAC_SEG_FILTER || s->kind == SOAC_SEG_PARTITION ? nv + 1 : nv;
      int j = nv ? i % group : 0;
      if (j < nv) {
        const LcuExp *e = s->pull->body.data[j];
        LetRange few[FEW_LETS];
        b = exp_range(kl, s, s->pull, e, scope_ranges(kl, s, s->pull, e, few));
      }
      break;
    }
    case SOAC_LIBRARY:
      if (s->library == LIB_SEG_IDS && s->args.len == 1)
        b = fus_kernel_len(kl, s->args.data[0]);
      if (s->library == LIB_SEG_LENGTHS || s->library == LIB_SEG_OFFSETS)
        b = nonneg();
      break;
    case SOAC_REDUCE:
    case SOAC_SCAN:
    case SOAC_SEG_REDUCE:
    case SOAC_SEG_SCAN:
      if (i >= lcu_soac_scanned(s)) { /* a map column: what it pulls, as a MAP's */
        const LcuExp *e = s->pull->body.data[i];
        LetRange few[FEW_LETS];
        b = exp_range(kl, s, s->pull, e, scope_ranges(kl, s, s->pull, e, few));
      } else if (counts(kl, s, i))
        b = nonneg();
      break;
    default:
      break;
    }
    if (b.kind != FL_UNKNOWN)
      kernel_var_add(kl, r)->range = b;
  }
}

static bool is_int_vec(const LcuVar *v) { return v->type.kind == LT_VEC && v->type.base == FB_INT; }

/* Tables of kernel facts that nothing holds any more, by the log2 of
   their index's size: most fills are asked one question and dropped
   (a run's result's length, a range), tens of thousands of tables a
   compilation; taken again, they spare the collector as many new
   ones (and the kernel as many fresh pages).  A table of index 'cap'
   has room for cap / 2 variables: any kernel whose index is that size. */
enum { SPARE_SIZES = 32 };
static Vec spare[SPARE_SIZES];

static int size_class(int cap) {
  int c = 0;
  while ((1 << c) < cap)
    c++;
  return c;
}

static size_t table_bytes(int cap) { return sizeof(FusVarFacts) * (size_t)(cap / 2) + sizeof(int32_t) * (size_t)cap; }

/* kl empty, with room for the facts of all of k's variables: their
   facts in one array, the index of their hashes after it, in one
   allocation (or a spare table). */
static void empty_kernel_lens(const LcuKernel *k, FusKernelLens *kl) {
  int vars = k->params.len;
  for (int i = 0; i < k->soacs.len; i++)
    vars += ((const LcuSoac *)k->soacs.data[i])->results.len;
  int cap = 4;
  while (cap < 2 * vars)
    cap *= 2;
  Vec *free = &spare[size_class(cap)];
  FusVarFacts *facts;
  if (free->len) {
    /* its index emptied; a fact is set whole when added */
    facts = free->data[--free->len];
    memset(facts + cap / 2, 0, sizeof(int32_t) * (size_t)cap);
  } else {
    facts = xmalloc(table_bytes(cap));
  }
  *kl = (FusKernelLens){facts, (int32_t *)(facts + cap / 2), cap, 0, cap / 2, {0}};
}

/* kl's table spare: nothing may read it any more. */
static void release_kernel_lens(FusKernelLens *kl) {
  if (kl->vars)
    vec_push(&spare[size_class(kl->cap)], kl->vars);
  kl->vars = NULL;
  kl->index = NULL;
  kl->cap = kl->used = kl->room = 0;
}

void fus_release_kernel_lens(FusKernelLens *kl) { release_kernel_lens(kl); }

/* The facts of k's parameters from the run's arguments 'args', into
   'kl'; with 'kl' NULL only asked of 'f', which memoizes what it works
   out (fus_note_arg_facts): one loop, so that filling and noting ask 'f'
   the same questions in the same order. */
/* Is 'v' >= 0 at 'run' by a range check before it in its block? */
static bool checked_before(FusFacts *f, const LcuStmt *run, const LcuVar *v) {
  const LcuStmt *check = genmap_get(&f->checked, v);
  if (!check)
    return false;
  intptr_t c = (intptr_t)genmap_get(&f->order, check), r = (intptr_t)genmap_get(&f->order, run);
  return c && r && genmap_get(&f->block, check) == genmap_get(&f->block, run) && c < r;
}

static void arg_facts(FusFacts *f, const LcuStmt *run, const LcuKernel *k, FusKernelLens *kl) {
  const Vec *args = &run->args;
  for (int i = 0; i < k->params.len && i < args->len; i++) {
    const LcuVar *p = k->params.data[i];
    const LcuAtom *a = args->data[i];
    FusLen l = fus_atom_len(f, a);
    if (kl) {
      FusVarFacts *e = kernel_var_add(kl, p);
      e->cpu = a;
      e->len = l.kind == FL_UNKNOWN ? len_var(p) : l;
      if (p->type.kind == LT_SEGDES)
        e->total = a->var ? total_of(f, a->var) : unknown();
      if (p->type.kind == LT_SCALAR && p->type.base == FB_INT && fus_int_nonneg(f, a))
        e->nonneg = true;
      if (p->type.kind == LT_SCALAR && a->var && checked_before(f, run, a->var))
        e->checked = true;
    }
    const LcuStmt *d = a->var && p->type.kind == LT_SCALAR ? genmap_get(&f->def, a->var) : NULL;
    /* a sum of two lengths: an addition, or the size of an append (the
       same sum, checked on the host not to pass max_int) */
    if (d && ((d->kind == LS_SCALAR && d->op == FLAT_ADD) || (d->kind == LS_SIZE && d->size == SIZE_APPEND))) {
      FusLen x = fus_atom_len(f, d->args.data[0]), y = fus_atom_len(f, d->args.data[1]);
      if (kl) {
        FusLen *sum = xmalloc(sizeof(FusLen) * 2); /* holds variables: scanned */
        sum[0] = x;
        sum[1] = y;
        ptrmap_put(&kl->sums, p, sum);
      }
    }
    if (a->var && is_int_vec(p)) {
      FusLen b = fus_var_range(f, a->var);
      if (kl && b.kind != FL_UNKNOWN)
        kernel_var_add(kl, p)->range = b;
    }
  }
}

void fus_fill_kernel_lens(FusFacts *f, const LcuStmt *run, const LcuKernel *k, FusKernelLens *kl) {
  /* the run's own view of the shape classes (a length of another run's
     result asks for that run's: what held there holds here) */
  Vec outer = f->hidden;
  f->hidden = (Vec){0};
  if (!f->noting_totals)
    hide_for(f, run);
  empty_kernel_lens(k, kl);
  arg_facts(f, run, k, kl);
  for (int i = 0; i < k->soacs.len; i++) {
    soac_result_lens(kl, k->soacs.data[i]);
    soac_result_ranges(kl, k->soacs.data[i]);
  }
  f->hidden = outer;
}

void fus_note_arg_facts(FusFacts *f, const LcuStmt *run, const LcuKernel *k) { arg_facts(f, run, k, NULL); }

/* The index of kernel variable 'v' among k's results, or -1. */
static int result_index(const LcuKernel *k, const LcuVar *v) {
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == v)
      return i;
  return -1;
}

/* True if 'v' is bound by one of k's SOACs. */
static bool soac_bound(const LcuKernel *k, const LcuVar *v) {
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    for (int r = 0; r < s->results.len; r++)
      if (s->results.data[r] == v)
        return true;
  }
  return false;
}

/* A length of run 's''s kernel in CPU terms: the parameters' are
   already; a SOAC result's own becomes the CPU variable the run binds to
   it (its own length for 'v' itself), else it is unknown outside. */
static FusLen cpu_terms(FusFacts *f, const LcuStmt *s, const LcuVar *v, FusLen l) {
  const LcuKernel *k = s->kernel;
  if ((l.kind != FL_VAR && l.kind != FL_TOTAL) || !soac_bound(k, l.of))
    return l;
  int j = result_index(k, l.of);
  if (j < 0 || j >= s->results.len)
    return unknown();
  const LcuVar *cpu = s->results.data[j];
  if (l.kind == FL_TOTAL)
    return total_of(f, cpu);
  return cpu == v ? len_var(v) : fus_var_len(f, cpu);
}

/* True if the totals of the sd arguments of run 's' are those its
   kernel lengths 'kl' were filled with. */
static bool arg_totals_unchanged(FusFacts *f, const LcuStmt *s, const FusKernelLens *kl) {
  const LcuKernel *k = s->kernel;
  for (int i = 0; i < k->params.len && i < s->args.len; i++) {
    const LcuVar *p = k->params.data[i];
    const LcuAtom *a = s->args.data[i];
    if (p->type.kind != LT_SEGDES || !a->var)
      continue;
    if (!fus_len_equal(kernel_total(kl, p), total_of(f, a->var)))
      return false;
  }
  return true;
}

/* The lengths of run 's''s kernel, memoized while the totals are worked
   out (note_totals asks for them once per result of a run, and once per
   run that defines an argument, each a fill of the whole kernel).  Only
   then: nothing changes a statement or a kernel meanwhile.  What a fill
   reads of 'f' is memoized there (the lengths and ranges of its
   arguments: set once, never changed while the totals are worked out),
   except the totals of its sd arguments, which a later run's result may
   name: a fill made earlier is what a fill now would make as long as
   those are what it found.  (Forgetting the fill whenever any total or
   size was added refilled most runs once per result of the block.)  At
   other times (fusion's rules change kernels in place) each call fills
   anew. */
/* The memos' own structs, taken again by the next fill's memos (tens of
   thousands a compilation). */
static Vec spare_memos;

static bool run_kernel_lens(FusFacts *f, const LcuStmt *s, FusKernelLens *kl) {
  if (!f->noting_totals) {
    fus_fill_kernel_lens(f, s, s->kernel, kl);
    return true;
  }
  FusKernelLens *m = genmap_get(&f->run_lens, s);
  if (!m || !arg_totals_unchanged(f, s, m)) {
    m = spare_memos.len ? spare_memos.data[--spare_memos.len] : NEW(FusKernelLens);
    fus_fill_kernel_lens(f, s, s->kernel, m);
    genmap_put(&f->run_lens, s, m);
    vec_push(&f->run_tables, m);
  }
  *kl = *m;
  return false;
}

static int run_result_index(const LcuStmt *s, const LcuVar *v) {
  for (int i = 0; i < s->results.len; i++)
    if (s->results.data[i] == v)
      return i < s->kernel->results.len ? i : -1;
  return -1;
}

/* A CPU run result's length: its kernel result's, in CPU terms. */
static FusLen run_result_len(FusFacts *f, const LcuStmt *s, const LcuVar *v) {
  int at = run_result_index(s, v);
  if (at < 0)
    return len_var(v);
  FusKernelLens kl;
  bool fresh = run_kernel_lens(f, s, &kl);
  FusLen kv = fus_kernel_len(&kl, s->kernel->results.data[at]);
  if (fresh)
    release_kernel_lens(&kl);
  FusLen l = cpu_terms(f, s, v, kv);
  return l.kind == FL_UNKNOWN ? len_var(v) : l;
}

FusLen fus_var_range(FusFacts *f, const LcuVar *v) {
  if (!v || v->type.kind != LT_VEC || v->type.base != FB_INT)
    return unknown();
  if (f->hidden.len) {
    /* worked out (and memoized) with nothing hidden; a bound that is a
       hidden class's length is not known here */
    Vec hidden = f->hidden;
    f->hidden = (Vec){0};
    FusLen b = fus_var_range(f, v);
    f->hidden = hidden;
    return hidden_len(f, b) ? unknown() : b;
  }
  FusLen *memo = len_get(&f->ranges, v);
  if (memo)
    return *memo;
  len_put(&f->ranges, v, unknown()); /* (defined before used: no cycle) */
  const LcuStmt *s = genmap_get(&f->def, v);
  FusLen b = unknown();
  int at = s && s->kind == LS_RUN ? run_result_index(s, v) : -1;
  if (at >= 0) {
    FusKernelLens kl;
    bool fresh = run_kernel_lens(f, s, &kl);
    FusLen kb = kernel_range(&kl, s->kernel->results.data[at]);
    if (fresh)
      release_kernel_lens(&kl);
    if (kb.kind != FL_UNKNOWN)
      b = cpu_terms(f, s, NULL, kb);
  } else if (fus_host_lengths(f, v, true)) {
    b = nonneg();
  }
  len_put(&f->ranges, v, b);
  return b;
}

/* A vector of shape k whose length is the number of elements of sd S:
   S's elements are class k; one whose length is int n (a MAP's size):
   n is class k's length.  Walks 'b' for them ('deep': its nested blocks
   too). */
static void note_totals(FusFacts *f, const LcuBlock *b, bool deep) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3 && deep; k++)
      if (nested[k])
        note_totals(f, nested[k], true);
    if (s->kind != LS_RUN)
      continue;
    for (int k = 0; k < s->results.len; k++) {
      const LcuVar *v = s->results.data[k];
      if (v->type.kind != LT_VEC || v->shape <= 0)
        continue;
      FusLen l = run_result_len(f, s, v);
      if (l.kind == FL_TOTAL && !len_get(&f->totals, l.of))
        len_put(&f->totals, l.of, len_shape(v->shape));
      /* a MAP of size n whose result is of class k: n is that length */
      if (l.kind == FL_VAR && l.of->type.kind == LT_SCALAR && !len_get(&f->sizes, l.of))
        len_put(&f->sizes, l.of, len_shape(v->shape));
    }
  }
}

/* A function's parameter that lies in the elements of a segdes
   parameter (LcuVar.within: `m` of `{sum(row) : row in m}` is the segdes
   and the vectors of its values): the segdes's elements have the
   vector's length.  Walks 'b' and its nested blocks for their uses. */
static void note_within(FusFacts *f, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    for (int k = 0; k < s->args.len; k++) {
      const LcuVar *v = ((const LcuAtom *)s->args.data[k])->var;
      if (v && v->within && !len_get(&f->totals, v->within))
        len_put(&f->totals, v->within, v->shape > 0 ? len_shape(v->shape) : len_var(v));
    }
    const LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int k = 0; k < 3; k++)
      if (nested[k])
        note_within(f, nested[k]);
  }
}

/* note_totals with the lengths of runs memoized (run_kernel_lens). */
static void note_totals_memoized(FusFacts *f, const LcuBlock *b, bool deep) {
  f->noting_totals = true;
  note_totals(f, b, deep);
  f->noting_totals = false;
  genmap_clear(&f->run_lens);
  for (int i = 0; i < f->run_tables.len; i++) {
    release_kernel_lens(f->run_tables.data[i]);
    vec_push(&spare_memos, f->run_tables.data[i]);
  }
  f->run_tables.len = 0;
}

/* The maps of facts given back (fus_release_facts), for the next facts
   filled from nothing to take: simplification's, grown to the largest
   body, are fusion's. */
static FusFacts spare_facts;
static bool have_spare_facts;

void fus_release_facts(FusFacts *f) {
  spare_facts = *f;
  have_spare_facts = true;
  *f = (FusFacts){0};
}

void fus_fill_facts(const LcuBlock *body, FusFacts *f) {
  if (!f->def.cap && have_spare_facts) {
    *f = spare_facts;
    spare_facts = (FusFacts){0};
    have_spare_facts = false;
  }
  /* emptied in place: filled again to about the size it had (the maps
     of a large body grew from nothing once per fill) */
  genmap_clear(&f->def);
  genmap_clear(&f->block);
  genmap_clear(&f->order);
  genmap_clear(&f->checked);
  f->next_order = 0;
  f->length_checks.len = 0;
  genmap_clear(&f->length_listed);
  genmap_clear(&f->check_class);
  f->hidden.len = 0;
  len_clear(&f->lens);
  len_clear(&f->totals);
  len_clear(&f->sizes);
  genmap_clear(&f->failures);
  len_clear(&f->ranges);
  genmap_clear(&f->run_lens);
  f->noting_totals = false;
  note_defs(f, body, true);
  note_within(f, body);
  note_totals_memoized(f, body, true);
  /* the lengths memoized while looking were worked out without all the
     totals: forget them */
  len_clear(&f->lens);
  len_clear(&f->ranges);
}

void fus_forget_memos(FusFacts *f) {
  len_clear(&f->lens);
  len_clear(&f->ranges);
  genmap_clear(&f->failures);
  genmap_clear(&f->run_lens);
}

void fus_refill_facts(const LcuBlock *changed, FusFacts *f) {
  note_defs(f, changed, false);
  genmap_clear(&f->check_class);
  len_clear(&f->lens);
  len_clear(&f->ranges);
  genmap_clear(&f->failures);
  note_totals_memoized(f, changed, false);
  len_clear(&f->lens);
  len_clear(&f->ranges);
}

/* ---- failures ---- */

bool fus_op_safe(FlatOp op, FlatBase b, const FlatAtom *divisor) {
  (void)b; /* ints and floats alike: only NESL's argument checks fail */
  if (flat_op_compares(op))
    return true;
  switch (op) {
  case FLAT_ADD:
  case FLAT_SUB:
  case FLAT_MUL:
    return true; /* ints wrap; floats overflow to infinities, as NESL's */
  case FLAT_DIV:
  case FLAT_REM:
    return divisor && ((divisor->kind == FA_INT && divisor->u.i != 0) ||
                       (divisor->kind == FA_FLOAT && divisor->u.f != 0.0));
  case FLAT_EXP:
  case FLAT_SIN:
  case FLAT_COS:
  case FLAT_TAN:
  case FLAT_ASIN:
  case FLAT_ACOS:
  case FLAT_ATAN:
  case FLAT_SINH:
  case FLAT_COSH:
  case FLAT_TANH:
  case FLAT_TRUNC: /* out of range: min_int, as NESL's */
  case FLAT_FLOOR:
  case FLAT_CEIL:
  case FLAT_ROUND:
  case FLAT_NEG:
  case FLAT_NOT:
  case FLAT_AND:
  case FLAT_OR:
  case FLAT_XOR:
  case FLAT_LSHIFT:
  case FLAT_RSHIFT:
  case FLAT_TO_FLOAT:
  case FLAT_BTOI:
  case FLAT_CHAR_CODE:
  case FLAT_SELECT:
  case FLAT_COPY:
  case FLAT_ZERO:
    return true;
  default:
    return false;
  }
}

bool fus_same_exp(const LcuExp *a, const LcuExp *b) {
  if (a->kind != b->kind || a->type != b->type)
    return false;
  switch (a->kind) {
  case LE_VAR:
    return a->var == b->var;
  case LE_CONST: /* ints and bools: what a condition compares */
    if (a->constant.kind != b->constant.kind)
      return false;
    return a->constant.kind == FA_INT    ? a->constant.u.i == b->constant.u.i
           : a->constant.kind == FA_BOOL ? a->constant.u.b == b->constant.u.b
           : a->constant.kind == FA_CHAR ? a->constant.u.c == b->constant.u.c
                                         : false;
  case LE_OP:
    if (a->op != b->op || a->nargs != b->nargs)
      return false;
    for (int i = 0; i < a->nargs; i++)
      if (!fus_same_exp(a->args[i], b->args[i]))
        return false;
    return true;
  case LE_INDEX: /* one vector at one index: one value in one thunk */
    return a->var == b->var && fus_same_exp(a->args[0], b->args[0]);
  default:
    return false;
  }
}

bool fus_exp_op_safe(const LcuExp *e) {
  if (e->in_range && e->op == FLAT_REM) /* rem!: a divisor not 0 by construction */
    return true;
  const LcuExp *d = e->nargs > 1 ? e->args[1] : NULL;
  return fus_op_safe(e->op, e->args[0]->type, d && d->kind == LE_CONST ? &d->constant : NULL);
}

const LcuVar *fus_index_param(const LcuSoac *s, const LcuThunk *t) {
  if (!t || t->params.len != 1 || s->kind == SOAC_ONCE || s->kind == SOAC_LIBRARY)
    return NULL;
  if (t == s->pull || (t == s->second && (s->kind == SOAC_PERMUTE || s->kind == SOAC_SEG_PERMUTE)))
    return t->params.data[0];
  return NULL;
}

static bool fails_itself(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                         const LetRange *lets);

/* Calls 'visit' on each expression of 'e' that may fail itself, in the
   order the generated code evaluates them (operands first), until it
   returns true; true if it did. */
static bool walk_failing(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                         const LetRange *lets, FusVisitFailing visit, void *ctx) {
  const LcuVar *i = fus_index_param(s, t);
  const LcuVar *a = e->kind == LE_IF ? below_length(e->args[0], i) : NULL;
  if (a) { /* an append: each branch knows where the index is */
    LetRange below = {i, fus_kernel_len(kl, a), NULL, lets}, above = {i, unknown(), a, lets};
    return walk_failing(kl, s, t, e->args[0], lets, visit, ctx) ||
           walk_failing(kl, s, t, e->args[1], &below, visit, ctx) ||
           walk_failing(kl, s, t, e->args[2], &above, visit, ctx);
  }
  if (e->kind == LE_LET) {
    if (walk_failing(kl, s, t, e->args[0], lets, visit, ctx))
      return true;
    LetRange l = {e->var, exp_range(kl, s, t, e->args[0], lets), NULL, lets};
    return walk_failing(kl, s, t, e->args[1], &l, visit, ctx);
  }
  for (int k = 0; k < e->nargs; k++)
    if (walk_failing(kl, s, t, e->args[k], lets, visit, ctx))
      return true;
  return fails_itself(kl, s, t, e, lets) && visit(e, ctx);
}

/* The same over thunk 't': its lets, then its results (fusion.h). */
bool fus_thunk_failing(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, FusVisitFailing visit,
                       void *ctx) {
  if (!t)
    return false;
  LetRange few[FEW_LETS];
  LetRange *chain = let_room(t, few);
  const LetRange *in = NULL;
  for (int k = 0; k < t->lets.len; k++) {
    const LcuLet *l = t->lets.data[k];
    if (walk_failing(kl, s, t, l->value, in, visit, ctx))
      return true;
    chain[k] = (LetRange){l->var, exp_range(kl, s, t, l->value, in), NULL, in};
    in = &chain[k];
  }
  for (int k = 0; k < t->body.len; k++)
    if (walk_failing(kl, s, t, t->body.data[k], in, visit, ctx))
      return true;
  return false;
}

static bool stop_at_first(const LcuExp *e, void *ctx) {
  (void)e, (void)ctx;
  return true;
}

static bool may_fail(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                     const LetRange *lets) {
  return walk_failing(kl, s, t, e, lets, stop_at_first, NULL);
}

/* Whether expression 'e' itself, not its operands, may fail. */
static bool fails_itself(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e,
                         const LetRange *lets) {
  switch (e->kind) {
  case LE_INDEX: /* in range when the index's values are below the length */
    return !e->in_range && !fus_len_equal(fus_kernel_len(kl, e->var), exp_range(kl, s, t, e->args[0], lets));
  case LE_SEG_LENGTH: /* in range below the number of segments */
  case LE_SEG_OFFSET:
    return !fus_len_equal(fus_kernel_len(kl, e->var), exp_range(kl, s, t, e->args[0], lets));
  case LE_BOUND:
    return !fus_len_equal(bound_length(kl, e->args[1]), exp_range(kl, s, t, e->args[0], lets));
  case LE_OP:
    return !fus_exp_op_safe(e);
  case LE_CALL: /* a scalar loop: its checks, and it may not end */
    return true;
  default:
    return false;
  }
}

bool fus_exp_may_fail(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e) {
  LetRange few[FEW_LETS];
  return may_fail(kl, s, t, e, scope_ranges(kl, s, t, e, few));
}

static bool thunk_may_fail(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t) {
  return fus_thunk_failing(kl, s, t, stop_at_first, NULL);
}

int fus_soac_failures(const FusKernelLens *kl, const LcuSoac *s) {
  int f = 0;
  if (s->kind == SOAC_LIBRARY) {
    /* make_segdes checks for a negative length, which a vector of
       lengths or counts does not have */
    const LcuVar *a0 = s->args.len ? s->args.data[0] : NULL;
    if (s->library == LIB_MAKE_SEGDES && !(a0 && kernel_range(kl, a0).kind != FL_UNKNOWN))
      f |= FUS_FAIL_RUN;
    if (s->library == LIB_HASH || (s->library == LIB_RANGE_SEGDES && !s->once)) /* range_segdes: too many elements */
      f |= FUS_FAIL_RUN;
    if (s->library == LIB_RAND)
      f |= FUS_EFFECT;
    if (s->library == LIB_LOOP) /* the element function's checks, and a loop that may not end */
      f |= FUS_FAIL_RUN;
    return f;
  }
  if (thunk_may_fail(kl, s, s->pull) || thunk_may_fail(kl, s, s->second))
    f |= FUS_FAIL_THUNK;
  const FusVarFacts *size = s->size.var ? kernel_var(kl, s->size.var) : NULL;
  if (s->size.var && !(size && (size->nonneg || size->checked)))
    f |= FUS_FAIL_RUN; /* dist's negative length */
  if (s->kind == SOAC_PERMUTE || s->kind == SOAC_SEG_PERMUTE)
    f |= FUS_FAIL_RUN; /* a scatter out of range */
  return f;
}


int fus_run_failures(FusFacts *f, const LcuStmt *run) {
  void **memo = genmap_slot(&f->failures, run, true);
  if (*memo)
    return (int)((intptr_t)*memo - 1);
  FusKernelLens kl;
  fus_fill_kernel_lens(f, run, run->kernel, &kl);
  int bits = 0;
  for (int i = 0; i < run->kernel->soacs.len; i++)
    bits |= fus_soac_failures(&kl, run->kernel->soacs.data[i]);
  release_kernel_lens(&kl);
  *memo = (void *)(intptr_t)(bits + 1);
  return bits;
}

int fus_run_failures_by(FusFacts *f, const LcuStmt *run, const FusKernelLens *kl) {
  void **memo = genmap_slot(&f->failures, run, true);
  if (*memo)
    return (int)((intptr_t)*memo - 1);
  int bits = 0;
  for (int i = 0; i < run->kernel->soacs.len; i++)
    bits |= fus_soac_failures(kl, run->kernel->soacs.data[i]);
  *memo = (void *)(intptr_t)(bits + 1);
  return bits;
}

static bool block_effects(FusFacts *f, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++)
    if (fus_stmt_effects(f, b->stmts.data[i]))
      return true;
  return false;
}

bool fus_stmt_effects(FusFacts *f, const LcuStmt *s) {
  switch (s->kind) {
  case LS_RUN:
    return fus_run_failures(f, s) != 0;
  case LS_SCALAR: {
    const LcuAtom *a0 = s->args.len > 0 ? s->args.data[0] : NULL;
    const LcuAtom *a1 = s->args.len > 1 ? s->args.data[1] : NULL;
    FlatBase b = a0 ? lcu_atom_type(a0).base : FB_INT;
    return !fus_op_safe(s->op, b, a1 && !a1->var ? &a1->constant : NULL);
  }
  case LS_LENGTH:
    return false;
  case LS_HOST:
    return !fus_host_vector(s);
  case LS_IF:
    return block_effects(f, s->then) || block_effects(f, s->els);
  case LS_TIME:
    return block_effects(f, s->body);
  default:
    return true; /* host operations, calls */
  }
}
