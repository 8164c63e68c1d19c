/*
 * layout.c: layout descriptors (rt.h), which say how a NESL value is
 * spread over flat components, and the two conversions between one
 * value's components and a sequence's that the host primitives need when
 * they run inside an apply-to-each: cutting value k out of V(t), and
 * gathering n values into V(t).
 *
 * Components are walked with a cursor in layout order; a sequence's
 * elements are a range of the inner components, found through the
 * segdes's offsets, so that nothing is rebuilt element by element.
 */
#include <string.h>

#include "rt.h"

int rt_layout_count(const RtLayout *l, bool host) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR:
    return 1;
  case RL_PAIR:
    return rt_layout_count(l->fst, host) + rt_layout_count(l->snd, host);
  case RL_DATA:
    return rt_layout_count(l->fst, host);
  case RL_SEQ:
    return (host ? 0 : 1) + rt_layout_count(l->elem, false);
  }
  return 0;
}

RtBase rt_layout_base(RtLayoutKind k) {
  return k == RL_INT ? RT_INT : k == RL_FLOAT ? RT_FLOAT : k == RL_BOOL ? RT_BOOL : RT_CHAR;
}

static int types(const RtLayout *l, bool host, RtType *out) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR:
    out[0] = (RtType){host ? RT_SCALAR : RT_VEC, rt_layout_base(l->kind)};
    return 1;
  case RL_PAIR: {
    int n = types(l->fst, host, out);
    return n + types(l->snd, host, out + n);
  }
  case RL_DATA:
    return types(l->fst, host, out);
  case RL_SEQ: {
    int n = 0;
    if (!host)
      out[n++] = rt_segdes_type();
    return n + types(l->elem, false, out + n);
  }
  }
  return 0;
}

void rt_layout_types(const RtLayout *l, bool host, RtType *out) { types(l, host, out); }

const RtLayout *rt_string_layout(void) {
  static const RtLayout chars = {RL_CHAR, NULL, NULL, NULL, NULL};
  static const RtLayout string = {RL_SEQ, NULL, NULL, &chars, NULL};
  return &string;
}

/* ---- cutting values out of V(t) ---- */

/* The values [from, to) of V(t) (its components from comps[*at] on) as
   V(t) of to - from values, into out[*o ...]. */
static void slice(const RtLayout *l, RtValue **comps, int *at, int64_t from, int64_t to, RtValue **out, int *o) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR: {
    RtValue *v = comps[(*at)++];
    size_t size = rt_base_size(v->type.base);
    RtValue *r = rt_value_new(v->type, to - from);
    memcpy(r->data.any, v->data.c + (size_t)from * size, size * (size_t)(to - from));
    out[(*o)++] = r;
    return;
  }
  case RL_PAIR:
    slice(l->fst, comps, at, from, to, out, o);
    slice(l->snd, comps, at, from, to, out, o);
    return;
  case RL_DATA:
    slice(l->fst, comps, at, from, to, out, o);
    return;
  case RL_SEQ: {
    RtValue *d = comps[(*at)++];
    const int64_t *off = rt_seg_offsets(d);
    RtValue *nd = rt_value_new(rt_segdes_type(), to - from);
    memcpy(nd->lengths, d->lengths + from, sizeof(int64_t) * (size_t)(to - from));
    out[(*o)++] = nd;
    slice(l->elem, comps, at, off[from], off[to], out, o);
    return;
  }
  }
}

/* Value k of V(t) as H(t), into out[*o ...], reading comps[*at ...]. */
static void element(const RtLayout *l, RtValue **comps, int *at, int64_t k, RtValue **out, int *o) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR:
    out[(*o)++] = rt_scalar_at(comps[(*at)++], k);
    return;
  case RL_PAIR:
    element(l->fst, comps, at, k, out, o);
    element(l->snd, comps, at, k, out, o);
    return;
  case RL_DATA:
    element(l->fst, comps, at, k, out, o);
    return;
  case RL_SEQ: {
    /* H([t]) = V(t): the segment's range of the inner components */
    const int64_t *off = rt_seg_offsets(comps[(*at)++]);
    slice(l->elem, comps, at, off[k], off[k + 1], out, o);
    return;
  }
  }
}

void rt_vector_element(const RtLayout *l, RtValue **comps, int64_t k, RtValue **out) {
  int at = 0, o = 0;
  element(l, comps, &at, k, out, &o);
}

/* ---- gathering values into V(t) ---- */

/* The number of values that V(t) at comps[0 ...] holds. */
static int64_t count_values(const RtLayout *l, RtValue **comps) {
  switch (l->kind) {
  case RL_PAIR:
  case RL_DATA:
    return count_values(l->fst, comps);
  default:
    return comps[0]->len; /* a vector's length, a segdes's segments */
  }
}

/* V(t) of the n values whose H(t) components are elems[k][base ...],
   into out[*o ...]; 'base' is where this part of the layout starts in
   each value's H(t). */
static void gather(const RtLayout *l, RtValue ***elems, int64_t n, int base, RtValue **out, int *o) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR: {
    RtBase b = rt_layout_base(l->kind);
    size_t size = rt_base_size(b);
    RtValue *r = rt_value_new(rt_vec_type(b), n);
    for (int64_t k = 0; k < n; k++)
      memcpy(r->data.c + (size_t)k * size, elems[k][base]->data.any, size);
    out[(*o)++] = r;
    return;
  }
  case RL_PAIR:
    gather(l->fst, elems, n, base, out, o);
    gather(l->snd, elems, n, base + rt_layout_count(l->fst, true), out, o);
    return;
  case RL_DATA:
    gather(l->fst, elems, n, base, out, o);
    return;
  case RL_SEQ: {
    /* each value's H([t]) is a V(t): a segment each, then the inner
       components appended one after the other */
    RtValue *d = rt_value_new(rt_segdes_type(), n);
    for (int64_t k = 0; k < n; k++)
      d->lengths[k] = count_values(l->elem, elems[k] + base);
    out[(*o)++] = d;
    int ncomps = rt_layout_count(l->elem, false);
    RtType *ts = rt_alloc_atomic(sizeof(RtType) * (size_t)ncomps);
    rt_layout_types(l->elem, false, ts);
    for (int c = 0; c < ncomps; c++) {
      RtType t = ts[c];
      int64_t total = 0;
      for (int64_t k = 0; k < n; k++)
        total += elems[k][base + c]->len;
      RtValue *r = rt_value_new(t, total);
      int64_t at = 0;
      for (int64_t k = 0; k < n; k++) {
        RtValue *part = elems[k][base + c];
        if (t.kind == RT_SEGDES)
          memcpy(r->lengths + at, part->lengths, sizeof(int64_t) * (size_t)part->len);
        else
          memcpy(r->data.c + (size_t)at * rt_base_size(t.base), part->data.any,
                 rt_base_size(t.base) * (size_t)part->len);
        at += part->len;
      }
      out[(*o)++] = r;
    }
    rt_free(ts);
    return;
  }
  }
}

void rt_vector_of(const RtLayout *l, RtValue ***elems, int64_t n, RtValue **out) {
  int o = 0;
  gather(l, elems, n, 0, out, &o);
}
