/*
 * structured.c: name, eql and hash over values of any type, given by
 * their components and layout: a Column views the components of values
 * of one type (V(t), or H(t) as one value) as a tree that follows the
 * layout, so that the k-th value can be hashed and compared without
 * building it.  name's table hashes as the source evaluator's (eval/value.c,
 * val_hash) does; the user's hash(a, l) is CMU NESL 3.1's
 * (column_nesl_hash, the evaluator's val_nesl_hash), the same numbers on
 * every backend.
 */
#include <string.h>

#include "rt.h"
#include "scalar.h"

typedef struct Column {
  RtLayoutKind kind;  /* RL_INT .. RL_CHAR, RL_SEQ, RL_PAIR */
  int data_wraps;     /* datatypes around this node: each mixes the hash
                         once more, as val_hash does for V_DATA */
  RtValue *vec;       /* base types: the values */
  const int64_t *off; /* RL_SEQ: where each value's elements start */
  struct Column *fst, *snd, *elem;
} Column;

/* The column of layout 'l' over comps[*at ...] ('host': H(t) of one
   value; otherwise V(t)). */
static Column *build(const RtLayout *l, RtValue **comps, int *at, bool host) {
  int wraps = 0;
  while (l->kind == RL_DATA) {
    l = l->fst;
    wraps++;
  }
  Column *c = rt_alloc(sizeof(Column));
  c->kind = l->kind;
  c->data_wraps = wraps;
  switch (l->kind) {
  case RL_PAIR:
    c->fst = build(l->fst, comps, at, host);
    c->snd = build(l->snd, comps, at, host);
    return c;
  case RL_SEQ:
    if (host) {
      /* H([t]) has no segdes: the one sequence is all of V(t), whose
         first component counts its values */
      int64_t *off = rt_alloc_atomic(2 * sizeof(int64_t));
      off[0] = 0;
      off[1] = comps[*at]->len;
      c->off = off;
    } else {
      c->off = rt_seg_offsets(comps[(*at)++]);
    }
    c->elem = build(l->elem, comps, at, false);
    return c;
  default:
    /* a scalar's data is an array of one element */
    c->vec = comps[(*at)++];
    return c;
  }
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/* val_hash of value k of column 'c' */
static uint64_t column_hash(const Column *c, int64_t k) {
  uint64_t h = 0;
  switch (c->kind) {
  case RL_INT:
    h = mix(1, (uint32_t)c->vec->data.i[k]);
    break;
  case RL_FLOAT: {
    double f = c->vec->data.f[k] == 0.0 ? 0.0 : c->vec->data.f[k]; /* -0.0 equals 0.0 */
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    h = mix(2, bits);
    break;
  }
  case RL_BOOL:
    h = mix(3, c->vec->data.b[k] != 0);
    break;
  case RL_CHAR:
    h = mix(4, (unsigned char)c->vec->data.c[k]);
    break;
  case RL_SEQ:
    h = mix(5, (uint64_t)(c->off[k + 1] - c->off[k]));
    for (int64_t j = c->off[k]; j < c->off[k + 1]; j++)
      h = mix(h, column_hash(c->elem, j));
    break;
  case RL_PAIR:
    h = mix(mix(6, column_hash(c->fst, k)), column_hash(c->snd, k));
    break;
  case RL_DATA:
    break;
  }
  for (int i = 0; i < c->data_wraps; i++)
    h = mix(7, h);
  return h;
}

/* val_equal of value i of 'a' and value j of 'b' (columns of one type) */
static bool column_equal(const Column *a, int64_t i, const Column *b, int64_t j) {
  switch (a->kind) {
  case RL_INT:
    return a->vec->data.i[i] == b->vec->data.i[j];
  case RL_FLOAT:
    return a->vec->data.f[i] == b->vec->data.f[j];
  case RL_BOOL:
    return (a->vec->data.b[i] != 0) == (b->vec->data.b[j] != 0);
  case RL_CHAR:
    return a->vec->data.c[i] == b->vec->data.c[j];
  case RL_SEQ: {
    int64_t len = a->off[i + 1] - a->off[i];
    if (len != b->off[j + 1] - b->off[j])
      return false;
    for (int64_t p = 0; p < len; p++)
      if (!column_equal(a->elem, a->off[i] + p, b->elem, b->off[j] + p))
        return false;
    return true;
  }
  case RL_PAIR:
    return column_equal(a->fst, i, b->fst, j) && column_equal(a->snd, i, b->snd, j);
  case RL_DATA:
    break;
  }
  return false;
}

/* The number of values that V(t) holds: a vector's length, or a
   segdes's segments, of its first component. */
static int64_t values_of(RtValue **comps) { return comps[0]->len; }

RtValue *rt_name(const RtLayout *l, RtValue *seg, RtValue **comps) {
  int at = 0;
  Column *c = build(l, comps, &at, false);
  int64_t count = values_of(comps);
  int64_t one[2] = {0, count};
  const int64_t *off = seg ? rt_seg_offsets(seg) : one;
  int64_t nseg = seg ? seg->len : 1;
  int32_t *ids = NULL;
  if (seg) {
    ids = rt_alloc_atomic(sizeof(int32_t) * (size_t)(count + 1));
    for (int64_t k = 0; k < nseg; k++)
      for (int64_t j = off[k]; j < off[k + 1]; j++)
        ids[j] = (int32_t)k;
  }
  /* a hash table keyed by value, filled from the end, so that the first
     time a value is seen is its last occurrence: O(n) */
  int64_t cap = 16;
  while (cap < 2 * count)
    cap *= 2;
  int64_t *table = rt_alloc_atomic(sizeof(int64_t) * (size_t)cap);
  for (int64_t i = 0; i < cap; i++)
    table[i] = -1;
  RtValue *r = rt_value_new(rt_vec_type(RT_INT), count);
  for (int64_t i = count - 1; i >= 0; i--) {
    uint64_t h = column_hash(c, i);
    if (seg)
      h = mix(h, (uint64_t)ids[i]);
    /* val_hash keeps runs of ints in runs of hashes: scrambled, values
       that differ by multiples of the table's size do not collide */
    h = rt_mix64(h) & (uint64_t)(cap - 1);
    while (table[h] >= 0 && !((!seg || ids[table[h]] == ids[i]) && column_equal(c, table[h], c, i)))
      h = (h + 1) & (uint64_t)(cap - 1);
    if (table[h] < 0)
      table[h] = i;
    r->data.i[i] = (int32_t)(table[h] - (seg ? off[ids[i]] : 0));
  }
  rt_free(table);
  rt_free(ids);
  return r;
}

RtValue *rt_eql(const RtLayout *l, bool host, RtValue **a, RtValue **b) {
  int at_a = 0, at_b = 0;
  Column *x = build(l, a, &at_a, host);
  Column *y = build(l, b, &at_b, host);
  if (host)
    return rt_bool(column_equal(x, 0, y, 0));
  int64_t count = values_of(a);
  RtValue *r = rt_value_new(rt_vec_type(RT_BOOL), count);
  for (int64_t k = 0; k < count; k++)
    r->data.b[k] = column_equal(x, k, y, k);
  return r;
}

/* NESL's hash of value k of column 'c' (rt/scalar.h's pieces; the
   evaluator's val_nesl_hash): what the user's hash(a, l) gives.  A
   datatype is its fields. */
static int32_t column_nesl_hash(const Column *c, int64_t k) {
  switch (c->kind) {
  case RL_INT:
    return c->vec->data.i[k];
  case RL_FLOAT:
    return rt_nesl_hash_float(c->vec->data.f[k]);
  case RL_BOOL:
    return c->vec->data.b[k] != 0;
  case RL_CHAR:
    return (unsigned char)c->vec->data.c[k];
  case RL_SEQ: {
    uint32_t h = 0;
    for (int64_t j = c->off[k]; j < c->off[k + 1]; j++)
      h += (uint32_t)column_nesl_hash(c->elem, j) * rt_nesl_hash_weight(j - c->off[k]);
    return (int32_t)h;
  }
  case RL_PAIR:
    return rt_nesl_hash_pair(column_nesl_hash(c->fst, k), column_nesl_hash(c->snd, k));
  case RL_DATA:
    break;
  }
  return 0;
}

RtValue *rt_hash(RtLoc loc, const RtLayout *l, bool host, RtValue **comps, RtValue *range) {
  int at = 0;
  Column *c = build(l, comps, &at, host);
  int64_t count = host ? 1 : values_of(comps);
  RtValue *r = rt_value_new((RtType){host ? RT_SCALAR : RT_VEC, RT_INT}, count);
  for (int64_t k = 0; k < count; k++) {
    int32_t bound = range->data.i[k];
    if (bound <= 0)
      rt_fail(loc, "hash", "hash: the range %d is not positive", bound);
    r->data.i[k] = rt_nesl_hash_in(column_nesl_hash(c, k), bound);
  }
  return r;
}
