/*
 * store.c: the REPL's store of values, as the runtime sees it.
 *
 * Every top-level value of a REPL session lives in the evaluator (its
 * nested Values), whichever interpreter computed it.  When the flat or
 * λcu interpreter runs a statement, mono has put __global_value(k) in
 * place of each read of an earlier value and __keep_value(k, e) around a
 * binding's expression (MonoExternals); the runtime runs both through the
 * hooks of an RtStore (rt.h), which this file implements by converting
 * between a Value and its components, H(t) or V(t) of rt.h's layouts.
 * It lives in driver/ because it is the one place that knows both the
 * evaluator and the runtime.
 */
#include <string.h>

#include "driver.h"
#include "../rt/rt.h"

/* ---- Value -> components ---- */

static bool is_scalar(const RtLayout *l) { return l->kind <= RL_CHAR; }

static void vector_of(const RtLayout *l, const Value *vals, int64_t n, RtValue **out, int *at);

/* H(t) of 'v' into out[*at ...]. */
static void host_of(const RtLayout *l, Value v, RtValue **out, int *at) {
  switch (l->kind) {
  case RL_INT:
    out[(*at)++] = rt_int(v.u.i);
    return;
  case RL_FLOAT:
    out[(*at)++] = rt_float(v.u.f);
    return;
  case RL_BOOL:
    out[(*at)++] = rt_bool(v.u.b);
    return;
  case RL_CHAR:
    out[(*at)++] = rt_char(v.u.c);
    return;
  case RL_PAIR:
    host_of(l->fst, v.u.pair->fst, out, at);
    host_of(l->snd, v.u.pair->snd, out, at);
    return;
  case RL_DATA:
    host_of(l->fst, v.u.data->fields, out, at);
    return;
  case RL_SEQ: {
    Seq *s = v.u.seq;
    Value *vals = xmalloc(sizeof(Value) * (size_t)(s->len ? s->len : 1));
    for (int64_t k = 0; k < s->len; k++)
      vals[k] = seq_get(s, k);
    vector_of(l->elem, vals, s->len, out, at);
    return;
  }
  }
}

/* The part of each of the 'n' values that 'pick' selects. */
static Value *parts(const Value *vals, int64_t n, int pick) {
  Value *r = xmalloc(sizeof(Value) * (size_t)(n ? n : 1));
  for (int64_t k = 0; k < n; k++)
    r[k] = pick == 0 ? vals[k].u.pair->fst : pick == 1 ? vals[k].u.pair->snd : vals[k].u.data->fields;
  return r;
}

/* V(t) of the 'n' values 'vals' into out[*at ...]. */
static void vector_of(const RtLayout *l, const Value *vals, int64_t n, RtValue **out, int *at) {
  if (is_scalar(l)) {
    RtBase b = rt_layout_base(l->kind);
    RtValue *v = rt_value_new(rt_vec_type(b), n);
    for (int64_t k = 0; k < n; k++)
      switch (b) {
      case RT_INT:
        v->data.i[k] = vals[k].u.i;
        break;
      case RT_FLOAT:
        v->data.f[k] = vals[k].u.f;
        break;
      case RT_BOOL:
        v->data.b[k] = vals[k].u.b;
        break;
      default:
        v->data.c[k] = vals[k].u.c;
        break;
      }
    out[(*at)++] = v;
    return;
  }
  switch (l->kind) {
  case RL_PAIR:
    vector_of(l->fst, parts(vals, n, 0), n, out, at);
    vector_of(l->snd, parts(vals, n, 1), n, out, at);
    return;
  case RL_DATA:
    vector_of(l->fst, parts(vals, n, 2), n, out, at);
    return;
  default: { /* RL_SEQ: a segdes, then the elements of all the segments */
    RtValue *d = rt_value_new(rt_segdes_type(), n);
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
      d->lengths[k] = vals[k].u.seq->len;
      total += d->lengths[k];
    }
    out[(*at)++] = d;
    Value *all = xmalloc(sizeof(Value) * (size_t)(total ? total : 1));
    int64_t i = 0;
    for (int64_t k = 0; k < n; k++)
      for (int64_t j = 0; j < vals[k].u.seq->len; j++)
        all[i++] = seq_get(vals[k].u.seq, j);
    vector_of(l->elem, all, total, out, at);
    return;
  }
  }
}

/* ---- components -> Value ---- */

typedef struct Reader {
  TypeEnv *env;
  RtValue **comps;
  int at;
} Reader;

/* The constructor of datatype 'name' (the newest of that name: a layout
   keeps only the name; the constructor is used to print the fields). */
static Def *constructor(Reader *r, const char *name) {
  for (Def *d = tc_lookup(r->env, name); d; d = d->prev)
    if (d->kind == DEF_CONSTRUCTOR)
      return d;
  die("the REPL's store: no constructor for datatype %s", name);
}

static Value *values_of(Reader *r, const RtLayout *l, int64_t n);

static Value scalar_value(RtLayoutKind k, const RtValue *v, int64_t i) {
  switch (k) {
  case RL_INT:
    return val_int(v->data.i[i]);
  case RL_FLOAT:
    return val_float(v->data.f[i]);
  case RL_BOOL:
    return val_bool(v->data.b[i]);
  default:
    return val_char(v->data.c[i]);
  }
}

/* The value whose H(t) components come next. */
static Value value_of(Reader *r, const RtLayout *l) {
  if (is_scalar(l))
    return scalar_value(l->kind, r->comps[r->at++], 0);
  switch (l->kind) {
  case RL_PAIR: {
    Value a = value_of(r, l->fst);
    return val_pair(a, value_of(r, l->snd));
  }
  case RL_DATA:
    return val_data(constructor(r, l->name), value_of(r, l->fst));
  default: {
    int64_t n = r->comps[r->at]->len;
    Value *vals = values_of(r, l->elem, n);
    Value s = val_seq_new(n);
    for (int64_t k = 0; k < n; k++)
      s.u.seq->elems[k] = vals[k];
    return s;
  }
  }
}

/* The 'n' values whose V(t) components come next. */
static Value *values_of(Reader *r, const RtLayout *l, int64_t n) {
  Value *vals = xmalloc(sizeof(Value) * (size_t)(n ? n : 1));
  if (is_scalar(l)) {
    const RtValue *v = r->comps[r->at++];
    for (int64_t k = 0; k < n; k++)
      vals[k] = scalar_value(l->kind, v, k);
    return vals;
  }
  switch (l->kind) {
  case RL_PAIR: {
    Value *a = values_of(r, l->fst, n);
    Value *b = values_of(r, l->snd, n);
    for (int64_t k = 0; k < n; k++)
      vals[k] = val_pair(a[k], b[k]);
    return vals;
  }
  case RL_DATA: {
    Def *con = constructor(r, l->name);
    Value *f = values_of(r, l->fst, n);
    for (int64_t k = 0; k < n; k++)
      vals[k] = val_data(con, f[k]);
    return vals;
  }
  default: {
    RtValue *d = r->comps[r->at++];
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++)
      total += d->lengths[k];
    Value *all = values_of(r, l->elem, total);
    int64_t i = 0;
    for (int64_t k = 0; k < n; k++) {
      Value s = val_seq_new(d->lengths[k]);
      for (int64_t j = 0; j < d->lengths[k]; j++)
        s.u.seq->elems[j] = all[i++];
      vals[k] = s;
    }
    return vals;
  }
  }
}

/* ---- the hooks ---- */

typedef struct StoreCtx {
  Eval *ev;
  TypeEnv *env;
} StoreCtx;

static Loc loc_of(RtLoc l) {
  Source *src = NEW(Source);
  src->name = l.file ? l.file : "";
  src->text = "";
  return (Loc){.src = src, .line = l.line, .col = l.col};
}

static void store_get(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **out) {
  StoreCtx *c = ctx;
  Value v;
  const char *name;
  if (!ev_exported_value(c->ev, k, &v, &name))
    rt_fail(loc, NULL, "'%s' has no value: its definition stopped with an error", name);
  int at = 0;
  host_of(l, v, out, &at);
}

static void store_keep(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **comps) {
  StoreCtx *c = ctx;
  Reader r = {c->env, comps, 0};
  Value v = value_of(&r, l);
  ev_prim_keep_value(c->ev, val_pair(val_int(k), v), loc_of(loc), NULL);
}

const RtStore *store_install(Eval *ev, TypeEnv *env) {
  StoreCtx *c = NEW(StoreCtx);
  c->ev = ev;
  c->env = env;
  RtStore *s = NEW(RtStore);
  *s = (RtStore){c, store_get, store_keep};
  return rt_set_store(s);
}
