/*
 * value.c: the evaluator's values and their printing in NESL's format.
 *
 * Scalars are held unboxed in a 16-byte Value; sequences, pairs and
 * datatype values point to GC-allocated blocks.  A sequence of scalars
 * made by the evaluator is packed: its elements unboxed in a block the
 * collector does not scan (eval.h, Seq), which is what makes
 * `sum({1 : i in [0:100000000]})` fit in a few hundred megabytes.  Printing is directed by
 * the static type where it matters ([char] prints as a string), and uses
 * rt/print.c for scalars so that every backend prints alike.
 */
#include <string.h>

#include "../frontend/types.h"
#include "../rt/rt.h"
#include "../rt/scalar.h"
#include "eval.h"

Value val_int(int32_t i) { return (Value){.kind = V_INT, .u.i = i}; }
Value val_float(double f) { return (Value){.kind = V_FLOAT, .u.f = f}; }
Value val_bool(bool b) { return (Value){.kind = V_BOOL, .u.b = b}; }
Value val_char(char c) { return (Value){.kind = V_CHAR, .u.c = c}; }

Value val_pair(Value a, Value b) {
  Pair *p = NEW(Pair);
  p->fst = a;
  p->snd = b;
  return (Value){.kind = V_PAIR, .u.pair = p};
}

Value val_data(Def *con, Value fields) {
  Data *d = NEW(Data);
  d->name = con->name;
  d->con = con;
  d->fields = fields;
  return (Value){.kind = V_DATA, .u.data = d};
}

/* Bytes per element of a sequence: packed of kind 'elem', or boxed. */
static size_t elem_size(bool packed, ValueKind elem) {
  if (!packed)
    return sizeof(Value);
  switch (elem) {
  case V_INT:
    return sizeof(int32_t);
  case V_FLOAT:
    return sizeof(double);
  case V_BOOL:
    return sizeof(bool);
  case V_CHAR:
    return sizeof(char);
  default:
    die("a packed sequence of a non-scalar kind %d", (int)elem);
  }
}

/* 'len' elements of 'size' bytes after the header, or a request too big
   for size_t (which the allocator reports as out of memory). */
static size_t seq_bytes(int64_t len, size_t size) {
  if (len < 0 || (uint64_t)len > (SIZE_MAX - sizeof(Seq)) / size)
    return SIZE_MAX;
  return sizeof(Seq) + size * (size_t)len;
}

Value val_seq_new(int64_t len) {
  Seq *s = xmalloc(seq_bytes(len, sizeof(Value)));
  s->len = len;
  return (Value){.kind = V_SEQ, .u.seq = s};
}

Value val_seq_packed(ValueKind elem, int64_t len) {
  /* atomic: the collector neither scans nor zeroes it */
  Seq *s = xmalloc_atomic(seq_bytes(len, elem_size(true, elem)));
  s->len = len;
  s->packed = true;
  s->elem = elem;
  return (Value){.kind = V_SEQ, .u.seq = s};
}

static bool is_scalar(ValueKind k) { return k == V_INT || k == V_FLOAT || k == V_BOOL || k == V_CHAR; }

Value val_seq_like(Value sample, int64_t len) {
  return is_scalar(sample.kind) ? val_seq_packed(sample.kind, len) : val_seq_new(len);
}

void val_seq_copy(Seq *dst, int64_t at, const Seq *src, int64_t from, int64_t n) {
  if (n <= 0)
    return;
  if (dst->packed == src->packed && (!dst->packed || dst->elem == src->elem)) {
    size_t size = elem_size(dst->packed, dst->elem);
    memmove((char *)dst->elems + (size_t)at * size, (const char *)src->elems + (size_t)from * size, (size_t)n * size);
    return;
  }
  for (int64_t i = 0; i < n; i++)
    seq_set(dst, at + i, seq_get(src, from + i));
}

/* 'b' is 'a' itself: the same scalar kind, or the same block. */
static bool same(Value a, Value b) {
  switch (a.kind) {
  case V_SEQ:
    return b.kind == V_SEQ && a.u.seq == b.u.seq;
  case V_PAIR:
    return b.kind == V_PAIR && a.u.pair == b.u.pair;
  case V_DATA:
    return b.kind == V_DATA && a.u.data == b.u.data;
  default:
    return a.kind == b.kind;
  }
}

Value val_boxed(Value v) {
  switch (v.kind) {
  case V_SEQ: {
    Seq *s = v.u.seq;
    if (s->packed) {
      Value r = val_seq_new(s->len);
      for (int64_t i = 0; i < s->len; i++)
        r.u.seq->elems[i] = seq_get(s, i);
      return r;
    }
    if (s->len == 0 || is_scalar(s->elems[0].kind))
      return v;
    Value r = v; /* copied when the first element changes */
    for (int64_t i = 0; i < s->len; i++) {
      Value e = val_boxed(s->elems[i]);
      if (same(e, s->elems[i]))
        continue;
      if (r.u.seq == s) {
        r = val_seq_new(s->len);
        memcpy(r.u.seq->elems, s->elems, sizeof(Value) * (size_t)s->len);
      }
      r.u.seq->elems[i] = e;
    }
    return r;
  }
  case V_PAIR: {
    Value a = val_boxed(v.u.pair->fst), b = val_boxed(v.u.pair->snd);
    if (same(a, v.u.pair->fst) && same(b, v.u.pair->snd))
      return v;
    return val_pair(a, b);
  }
  case V_DATA: {
    Value f = val_boxed(v.u.data->fields);
    return same(f, v.u.data->fields) ? v : val_data(v.u.data->con, f);
  }
  default:
    return v;
  }
}

Value val_string(const char *s, size_t n) {
  Value v = val_seq_new((int64_t)n);
  for (size_t i = 0; i < n; i++)
    v.u.seq->elems[i] = val_char(s[i]);
  return v;
}

char *val_string_chars(Value v) {
  Seq *s = v.u.seq;
  char *r = xmalloc_atomic((size_t)s->len + 1);
  if (s->packed)
    memcpy(r, s->elems, (size_t)s->len);
  else
    for (int64_t i = 0; i < s->len; i++)
      r[i] = s->elems[i].u.c;
  r[s->len] = '\0';
  return r;
}

bool val_equal(Value a, Value b) {
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case V_INT:
    return a.u.i == b.u.i;
  case V_FLOAT:
    return a.u.f == b.u.f;
  case V_BOOL:
    return a.u.b == b.u.b;
  case V_CHAR:
    return a.u.c == b.u.c;
  case V_SEQ:
    if (a.u.seq->len != b.u.seq->len)
      return false;
    for (int64_t i = 0; i < a.u.seq->len; i++)
      if (!val_equal(seq_get(a.u.seq, i), seq_get(b.u.seq, i)))
        return false;
    return true;
  case V_PAIR:
    return val_equal(a.u.pair->fst, b.u.pair->fst) && val_equal(a.u.pair->snd, b.u.pair->snd);
  case V_DATA:
    return strcmp(a.u.data->name, b.u.data->name) == 0 && val_equal(a.u.data->fields, b.u.data->fields);
  }
  return false;
}

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

uint64_t val_hash(Value v) {
  switch (v.kind) {
  case V_INT:
    return mix(1, (uint32_t)v.u.i);
  case V_FLOAT: {
    double f = v.u.f == 0.0 ? 0.0 : v.u.f; /* -0.0 equals 0.0 */
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    return mix(2, bits);
  }
  case V_BOOL:
    return mix(3, v.u.b);
  case V_CHAR:
    return mix(4, (unsigned char)v.u.c);
  case V_SEQ: {
    uint64_t h = mix(5, (uint64_t)v.u.seq->len);
    for (int64_t i = 0; i < v.u.seq->len; i++)
      h = mix(h, val_hash(seq_get(v.u.seq, i)));
    return h;
  }
  case V_PAIR:
    return mix(mix(6, val_hash(v.u.pair->fst)), val_hash(v.u.pair->snd));
  case V_DATA:
    return mix(7, val_hash(v.u.data->fields));
  }
  return 0;
}

/* NESL's own hash of a value (rt/scalar.h: rt_nesl_hash_*), which the
   user's hash(a, l) gives; val_hash above is the evaluator's for its
   tables. */
int32_t val_nesl_hash(Value v) {
  switch (v.kind) {
  case V_INT:
    return v.u.i;
  case V_FLOAT:
    return rt_nesl_hash_float(v.u.f);
  case V_BOOL:
    return v.u.b ? 1 : 0;
  case V_CHAR:
    return (unsigned char)v.u.c;
  case V_SEQ: {
    uint32_t h = 0;
    for (int64_t i = 0; i < v.u.seq->len; i++)
      h += (uint32_t)val_nesl_hash(seq_get(v.u.seq, i)) * rt_nesl_hash_weight(i);
    return (int32_t)h;
  }
  case V_PAIR:
    return rt_nesl_hash_pair(val_nesl_hash(v.u.pair->fst), val_nesl_hash(v.u.pair->snd));
  case V_DATA:
    return val_nesl_hash(v.u.data->fields);
  }
  return 0;
}

/* ---- printing ---- */

static void print(Buf *b, Value v, Type *t);

static Type *resolved(Type *t) { return t ? type_resolve(t) : NULL; }

/* Tuple items, right spine flattened: 1, (2, 3), 4. */
static void print_items(Buf *b, Value v, Type *t) {
  for (;;) {
    t = resolved(t);
    Type *ft = t && t->kind == T_PAIR ? t->fst : NULL;
    Type *st = t && t->kind == T_PAIR ? t->snd : NULL;
    print(b, v.u.pair->fst, ft);
    buf_puts(b, ", ");
    v = v.u.pair->snd;
    if (v.kind != V_PAIR) {
      print(b, v, st);
      return;
    }
    t = st;
  }
}

/* The type of the fields of datatype value 'v' of type 't': the
   constructor's argument type at t's type arguments. */
static Type *data_field_type(Value v, Type *t) {
  Type *ft = type_instantiate(v.u.data->con->type, 0);
  if (t && t->kind == T_DATA && !type_unify(ft->snd, t))
    return NULL;
  return ft->fst;
}

bool val_nonfinite(Value v, double *bad) {
  switch (v.kind) {
  case V_FLOAT:
    *bad = v.u.f;
    return !isfinite(v.u.f);
  case V_SEQ:
    if (v.u.seq->packed && v.u.seq->elem != V_FLOAT)
      return false;
    for (int64_t i = 0; i < v.u.seq->len; i++)
      if (val_nonfinite(seq_get(v.u.seq, i), bad))
        return true;
    return false;
  case V_PAIR:
    return val_nonfinite(v.u.pair->fst, bad) || val_nonfinite(v.u.pair->snd, bad);
  case V_DATA:
    return val_nonfinite(v.u.data->fields, bad);
  default:
    return false;
  }
}

static void print(Buf *b, Value v, Type *t) {
  t = resolved(t);
  char fbuf[RT_FLOAT_BUF];
  switch (v.kind) {
  case V_INT:
    buf_printf(b, "%d", (int)v.u.i);
    return;
  case V_FLOAT:
    rt_format_float(fbuf, v.u.f);
    buf_puts(b, fbuf);
    return;
  case V_BOOL:
    if (t && t->kind == T_FUN) { /* a function value, only F here: NESL's transcript writes fn */
      buf_puts(b, "fn");
      return;
    }
    buf_putc(b, v.u.b ? 'T' : 'F');
    return;
  case V_CHAR:
    buf_putc(b, '`');
    buf_putc(b, v.u.c);
    return;
  case V_SEQ: {
    Seq *s = v.u.seq;
    Type *et = t && t->kind == T_SEQ ? resolved(t->elem) : NULL;
    bool is_string = et ? et->kind == T_CHAR : (s->len > 0 && seq_get(s, 0).kind == V_CHAR);
    if (is_string) {
      buf_putc(b, '"');
      for (int64_t i = 0; i < s->len; i++) {
        char c = seq_get(s, i).u.c;
        if (c == '"' || c == '\\')
          buf_putc(b, '\\'); /* as NESL prints them: "quote \" inside" */
        buf_putc(b, c);
      }
      buf_putc(b, '"');
      return;
    }
    buf_putc(b, '[');
    for (int64_t i = 0; i < s->len; i++) {
      if (i)
        buf_puts(b, ", ");
      print(b, seq_get(s, i), et);
    }
    buf_putc(b, ']');
    return;
  }
  case V_PAIR:
    buf_putc(b, '(');
    print_items(b, v, t);
    buf_putc(b, ')');
    return;
  case V_DATA:
    buf_printf(b, "%s(", v.u.data->name);
    Type *ft = data_field_type(v, t);
    if (v.u.data->fields.kind == V_PAIR)
      print_items(b, v.u.data->fields, ft);
    else
      print(b, v.u.data->fields, ft);
    buf_putc(b, ')');
    return;
  }
}

char *val_to_string(Value v, Type *type, size_t *len) {
  Buf b = {0};
  print(&b, v, type);
  if (len)
    *len = b.len;
  return buf_str(&b);
}

void val_print(FILE *out, Value v, Type *type) {
  size_t n;
  char *s = val_to_string(v, type, &n);
  fwrite(s, 1, n, out);
}
