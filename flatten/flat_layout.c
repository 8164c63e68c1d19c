/*
 * flat_layout.c: how a NESL value is spread over flat components (flat.h:
 * H(t) at the host, V(t) for a sequence of values), and the conversions
 * between those components and the source evaluator's Values.
 *
 * The conversions work column by column, never element by element over
 * the type: V((a, b)) for n values converts the n a's and the n b's and
 * pairs them, V([t]) converts the one inner V(t) of all the segments'
 * elements and cuts it into sequences.  The type is walked once per
 * conversion, however long the vectors are, and every element is touched
 * a constant number of times per level of the type.
 *
 * Datatypes: the flat IR has none (a datatype is its fields, DESIGN.md
 * "Values"), but a primitive such as write_string reads a stream as a
 * datatype value, and the transcript prints `point(1, 2)`.  The
 * conversions therefore take the NESL type, find each datatype's fields
 * through its constructor (as value.c does to print them), and wrap or
 * unwrap with val_data.
 */
#include <string.h>

#include "flat.h"

/* ---- layouts ---- */

static FlatBase base_of(Type *t) {
  switch (t->kind) {
  case T_INT:
    return FB_INT;
  case T_FLOAT:
    return FB_FLOAT;
  case T_BOOL:
    return FB_BOOL;
  case T_CHAR:
    return FB_CHAR;
  default:
    die("base_of: %s is not a base type", type_value_to_string(t));
  }
}

static void push_type(Vec *out, FlatType t) {
  FlatType *p = NEW(FlatType);
  *p = t;
  vec_push(out, p);
}

/* The flattener only lays out monomorphic types whose datatypes mono.c
   has replaced: anything else reaching here is a bug. */
_Noreturn static void not_flat(const char *fn, Type *t) {
  die("%s: %s is not a monomorphic type without datatypes or functions", fn, type_value_to_string(t));
}

void flat_vector_layout(Type *t, Vec *out) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    push_type(out, flat_vec(base_of(t)));
    return;
  case T_PAIR:
    flat_vector_layout(t->fst, out);
    flat_vector_layout(t->snd, out);
    return;
  case T_SEQ:
    push_type(out, flat_segdes());
    flat_vector_layout(t->elem, out);
    return;
  case T_DATA:
  case T_VAR:
  case T_FUN:
    break;
  }
  not_flat("flat_vector_layout", t);
}

void flat_host_layout(Type *t, Vec *out) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    push_type(out, flat_scalar(base_of(t)));
    return;
  case T_PAIR:
    flat_host_layout(t->fst, out);
    flat_host_layout(t->snd, out);
    return;
  case T_SEQ:
    flat_vector_layout(t->elem, out);
    return;
  case T_DATA:
  case T_VAR:
  case T_FUN:
    break;
  }
  not_flat("flat_host_layout", t);
}

/* ---- values ---- */

static size_t base_size(FlatBase b) {
  switch (b) {
  case FB_INT:
    return sizeof(int32_t);
  case FB_FLOAT:
    return sizeof(double);
  case FB_BOOL:
    return sizeof(uint8_t);
  case FB_CHAR:
    return sizeof(char);
  }
  die("base_size: base %d", (int)b);
}

FlatValue *flat_value_new(FlatType t, int64_t len) {
  if (len < 0)
    die("flat_value_new: negative length %lld", (long long)len);
  FlatValue *v = NEW(FlatValue);
  v->type = t;
  switch (t.kind) {
  case FT_SCALAR:
    v->len = 1;
    v->data.any = &v->scalar;
    break;
  case FT_VEC:
    v->len = len;
    /* +1: a zero-byte block would be a valid but useless allocation */
    v->data.any = xmalloc_atomic(base_size(t.base) * (size_t)len + 1);
    break;
  case FT_SEGDES:
    v->len = len;
    v->lengths = xmalloc_atomic(sizeof(int64_t) * (size_t)(len + 1));
    break;
  }
  return v;
}

FlatValue *flat_value_int(int32_t i) {
  FlatValue *v = flat_value_new(flat_scalar(FB_INT), 1);
  v->scalar.i = i;
  return v;
}

FlatValue *flat_value_float(double f) {
  FlatValue *v = flat_value_new(flat_scalar(FB_FLOAT), 1);
  v->scalar.f = f;
  return v;
}

FlatValue *flat_value_bool(bool b) {
  FlatValue *v = flat_value_new(flat_scalar(FB_BOOL), 1);
  v->scalar.b = b;
  return v;
}

FlatValue *flat_value_char(char c) {
  FlatValue *v = flat_value_new(flat_scalar(FB_CHAR), 1);
  v->scalar.c = c;
  return v;
}

const int64_t *flat_seg_offsets(FlatValue *d) {
  if (d->type.kind != FT_SEGDES)
    die("flat_seg_offsets: a %s is not a segdes", flat_type_name(d->type));
  if (!d->offsets) {
    int64_t *off = xmalloc_atomic(sizeof(int64_t) * (size_t)(d->len + 1));
    off[0] = 0;
    for (int64_t k = 0; k < d->len; k++)
      off[k + 1] = off[k] + d->lengths[k];
    d->offsets = off;
  }
  return d->offsets;
}

/* ---- datatypes ---- */

Type *flat_data_fields(Eval *ev, Type *t) {
  t = type_resolve(t);
  Def *con = ev_constructor(ev, t);
  Type *ft = type_instantiate(con->type, 0);
  if (!type_unify(ft->snd, t))
    die("flat_data_fields: %s does not match its constructor", type_value_to_string(t));
  return ft->fst;
}

/* 'mono' must have the shape of 't' (a non-datatype node): checked as we
   walk, because a flattener that got the two apart would spread values
   over the wrong components. */
static Type *check_mono(Type *t, Type *mono) {
  if (!mono)
    return NULL;
  mono = type_resolve(mono);
  if (mono->kind != t->kind)
    die("the monomorphic type %s does not match %s", type_value_to_string(mono), type_value_to_string(t));
  return mono;
}

static Type *mono_part(Type *mono, int which) {
  if (!mono)
    return NULL;
  return which == 0 ? mono->fst : which == 1 ? mono->snd : mono->elem;
}

/* ---- components -> Values ---- */

typedef struct Cursor {
  FlatValue **comps;
  int n, next;
} Cursor;

static FlatValue *take(Cursor *c, FlatType want) {
  if (c->next >= c->n)
    die("too few components for the type: %d", c->n);
  FlatValue *v = c->comps[c->next++];
  if (!flat_type_equal(v->type, want))
    die("component %d is a %s where the layout has a %s", c->next - 1, flat_type_name(v->type),
        flat_type_name(want));
  return v;
}

static Value scalar_value(FlatValue *v, int64_t k) {
  switch (v->type.base) {
  case FB_INT:
    return val_int(v->data.i[k]);
  case FB_FLOAT:
    return val_float(v->data.f[k]);
  case FB_BOOL:
    return val_bool(v->data.b[k] != 0);
  case FB_CHAR:
    return val_char(v->data.c[k]);
  }
  die("scalar_value: base %d", (int)v->type.base);
}

/* The 'n' values of 'type' whose components V(type) are next at 'c'. */
static Value *values_from_vector(Eval *ev, Type *type, Type *mono, Cursor *c, int64_t n) {
  Type *t = type_resolve(type);
  Value *vals = xmalloc(sizeof(Value) * (size_t)(n + 1));
  if (t->kind == T_DATA) {
    Def *con = ev_constructor(ev, t);
    Value *fields = values_from_vector(ev, flat_data_fields(ev, t), mono, c, n);
    for (int64_t k = 0; k < n; k++)
      vals[k] = val_data(con, fields[k]);
    return vals;
  }
  mono = check_mono(t, mono);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR: {
    FlatValue *v = take(c, flat_vec(base_of(t)));
    if (v->len != n)
      die("a vector of %lld elements where %lld are expected", (long long)v->len, (long long)n);
    for (int64_t k = 0; k < n; k++)
      vals[k] = scalar_value(v, k);
    return vals;
  }
  case T_PAIR: {
    Value *a = values_from_vector(ev, t->fst, mono_part(mono, 0), c, n);
    Value *b = values_from_vector(ev, t->snd, mono_part(mono, 1), c, n);
    for (int64_t k = 0; k < n; k++)
      vals[k] = val_pair(a[k], b[k]);
    return vals;
  }
  case T_SEQ: {
    FlatValue *d = take(c, flat_segdes());
    if (d->len != n)
      die("a segdes of %lld segments where %lld are expected", (long long)d->len, (long long)n);
    const int64_t *off = flat_seg_offsets(d);
    Value *elems = values_from_vector(ev, t->elem, mono_part(mono, 2), c, off[n]);
    for (int64_t k = 0; k < n; k++) {
      vals[k] = val_seq_new(d->lengths[k]);
      memcpy(vals[k].u.seq->elems, elems + off[k], sizeof(Value) * (size_t)d->lengths[k]);
    }
    return vals;
  }
  default:
    not_flat("values_from_vector", t);
  }
}

/* The number of values whose V(t) starts at 'c'. */
static int64_t vector_count(Cursor *c) {
  if (c->next >= c->n)
    die("too few components for the type: %d", c->n);
  FlatValue *first = c->comps[c->next];
  if (first->type.kind == FT_SCALAR)
    die("a scalar where a vector or segdes starts a sequence's components");
  return first->len;
}

static Value value_from_host(Eval *ev, Type *type, Type *mono, Cursor *c) {
  Type *t = type_resolve(type);
  if (t->kind == T_DATA)
    return val_data(ev_constructor(ev, t), value_from_host(ev, flat_data_fields(ev, t), mono, c));
  mono = check_mono(t, mono);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    return scalar_value(take(c, flat_scalar(base_of(t))), 0);
  case T_PAIR: {
    Value a = value_from_host(ev, t->fst, mono_part(mono, 0), c);
    return val_pair(a, value_from_host(ev, t->snd, mono_part(mono, 1), c));
  }
  case T_SEQ: {
    int64_t n = vector_count(c);
    Value *elems = values_from_vector(ev, t->elem, mono_part(mono, 2), c, n);
    Value s = val_seq_new(n);
    memcpy(s.u.seq->elems, elems, sizeof(Value) * (size_t)n);
    return s;
  }
  default:
    not_flat("value_from_host", t);
  }
}

static void check_all_taken(Cursor *c) {
  if (c->next != c->n)
    die("%d components where the type has %d", c->n, c->next);
}

Value flat_host_to_value(Eval *ev, Type *type, Type *mono, FlatValue **comps, int ncomps) {
  Cursor c = {comps, ncomps, 0};
  Value v = value_from_host(ev, type, mono, &c);
  check_all_taken(&c);
  return v;
}

Value flat_vector_to_value(Eval *ev, Type *type, Type *mono, FlatValue **comps, int ncomps) {
  Cursor c = {comps, ncomps, 0};
  int64_t n = vector_count(&c);
  Value *elems = values_from_vector(ev, type, mono, &c, n);
  check_all_taken(&c);
  Value s = val_seq_new(n);
  memcpy(s.u.seq->elems, elems, sizeof(Value) * (size_t)n);
  return s;
}

/* ---- Values -> components ---- */

static void check_kind(Value v, ValueKind kind) {
  if (v.kind != kind)
    die("a value of kind %d where the type wants kind %d", (int)v.kind, (int)kind);
}

static ValueKind value_kind_of(FlatBase b) {
  switch (b) {
  case FB_INT:
    return V_INT;
  case FB_FLOAT:
    return V_FLOAT;
  case FB_BOOL:
    return V_BOOL;
  case FB_CHAR:
    return V_CHAR;
  }
  die("value_kind_of: base %d", (int)b);
}

static void store_scalar(FlatValue *v, int64_t k, Value x) {
  check_kind(x, value_kind_of(v->type.base));
  switch (v->type.base) {
  case FB_INT:
    v->data.i[k] = x.u.i;
    return;
  case FB_FLOAT:
    v->data.f[k] = x.u.f;
    return;
  case FB_BOOL:
    v->data.b[k] = x.u.b;
    return;
  case FB_CHAR:
    v->data.c[k] = x.u.c;
    return;
  }
}

/* Appends V(type) of the 'n' values 'vals' to 'out'. */
static void vector_from_values(Eval *ev, Type *type, Type *mono, Value *vals, int64_t n, Vec *out) {
  Type *t = type_resolve(type);
  if (t->kind == T_DATA) {
    Value *fields = xmalloc(sizeof(Value) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++) {
      check_kind(vals[k], V_DATA);
      fields[k] = vals[k].u.data->fields;
    }
    vector_from_values(ev, flat_data_fields(ev, t), mono, fields, n, out);
    return;
  }
  mono = check_mono(t, mono);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR: {
    FlatValue *v = flat_value_new(flat_vec(base_of(t)), n);
    for (int64_t k = 0; k < n; k++)
      store_scalar(v, k, vals[k]);
    vec_push(out, v);
    return;
  }
  case T_PAIR: {
    Value *a = xmalloc(sizeof(Value) * (size_t)(n + 1));
    Value *b = xmalloc(sizeof(Value) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++) {
      check_kind(vals[k], V_PAIR);
      a[k] = vals[k].u.pair->fst;
      b[k] = vals[k].u.pair->snd;
    }
    vector_from_values(ev, t->fst, mono_part(mono, 0), a, n, out);
    vector_from_values(ev, t->snd, mono_part(mono, 1), b, n, out);
    return;
  }
  case T_SEQ: {
    FlatValue *d = flat_value_new(flat_segdes(), n);
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
      check_kind(vals[k], V_SEQ);
      d->lengths[k] = vals[k].u.seq->len;
      total += d->lengths[k];
    }
    Value *elems = xmalloc(sizeof(Value) * (size_t)(total + 1));
    int64_t at = 0;
    for (int64_t k = 0; k < n; k++) {
      memcpy(elems + at, vals[k].u.seq->elems, sizeof(Value) * (size_t)d->lengths[k]);
      at += d->lengths[k];
    }
    vec_push(out, d);
    vector_from_values(ev, t->elem, mono_part(mono, 2), elems, total, out);
    return;
  }
  default:
    not_flat("vector_from_values", t);
  }
}

static void host_from_value(Eval *ev, Type *type, Type *mono, Value v, Vec *out) {
  Type *t = type_resolve(type);
  if (t->kind == T_DATA) {
    check_kind(v, V_DATA);
    host_from_value(ev, flat_data_fields(ev, t), mono, v.u.data->fields, out);
    return;
  }
  mono = check_mono(t, mono);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR: {
    FlatValue *s = flat_value_new(flat_scalar(base_of(t)), 1);
    store_scalar(s, 0, v);
    vec_push(out, s);
    return;
  }
  case T_PAIR:
    check_kind(v, V_PAIR);
    host_from_value(ev, t->fst, mono_part(mono, 0), v.u.pair->fst, out);
    host_from_value(ev, t->snd, mono_part(mono, 1), v.u.pair->snd, out);
    return;
  case T_SEQ:
    check_kind(v, V_SEQ);
    vector_from_values(ev, t->elem, mono_part(mono, 2), v.u.seq->elems, v.u.seq->len, out);
    return;
  default:
    not_flat("host_from_value", t);
  }
}

void flat_value_to_host(Eval *ev, Value v, Type *type, Type *mono, Vec *out) {
  host_from_value(ev, type, mono, v, out);
}

void flat_value_to_vector(Eval *ev, Value seq, Type *type, Type *mono, Vec *out) {
  check_kind(seq, V_SEQ);
  vector_from_values(ev, type, mono, seq.u.seq->elems, seq.u.seq->len, out);
}
