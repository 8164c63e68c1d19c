/*
 * prims.c: the C implementations of the basis library's primitives, the
 * functions that lib-nesl/builtins.nesl declares with the body `__prim`.
 * lib-nesl/README.md lists them and their contract; everything else in
 * the library is NESL built on them.
 *
 * Every primitive checks its arguments as NESL does with arg_check on and
 * stops the statement with ev_error: subscripts out of range, division by
 * zero, length mismatches, negative lengths, sqrt and ln of a negative
 * number.  Floats compute with infinities and NaN as NESL's do (the
 * scalar operations are rt/scalar.h's, which every backend shares); a
 * statement's value that holds one is an error (eval.c, run_body).
 *
 * Integer arithmetic is 32-bit two's complement and wraps (NESL.md); it is
 * done in uint32_t so that C never sees a signed overflow.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../frontend/types.h"
#include "../rt/scalar.h"
#include "eval.h"

#define ARG1(v) ((v).u.pair->fst)
#define ARG2(v) ((v).u.pair->snd.u.pair->fst)
#define ARG3(v) ((v).u.pair->snd.u.pair->snd)
/* (a, b): the second of two */
#define SND(v) ((v).u.pair->snd)

static int32_t wrap(uint32_t x) { return (int32_t)x; }

/* The message of scalar.h's error 'err' of operation 'op' on operand x:
   rt/ops.c's words (rt_scalar_fail). */
_Noreturn static void scalar_fail(Eval *ev, Loc loc, int err, const char *op, double x) {
  switch (err) {
  case RT_E_DIV_ZERO:
    ev_error(ev, loc, "%s: division by zero", op);
  case RT_E_NEG_EXPONENT:
    ev_error(ev, loc, "^: negative exponent %d", (int)x);
  case RT_E_SQRT_NEG:
    ev_error(ev, loc, "sqrt: the argument %g is negative", x);
  case RT_E_LN_NEG:
    if (strcmp(op, "expt") == 0)
      ev_error(ev, loc, "expt: the base %g is negative (expt(v, p) is exp(ln(v) * p))", x);
    ev_error(ev, loc, "ln: the argument %g is negative", x);
  default:
    die("prims: scalar error %d of %s", err, op);
  }
}

/* A float result of a scalar.h operation that may fail. */
static Value checked_float(Eval *ev, Loc loc, double r, int err, const char *op, double x) {
  if (err)
    scalar_fail(ev, loc, err, op, x);
  return val_float(r);
}

/* ---- arithmetic ---- */

/* x + y and x * y on two scalars (also the combining steps of the scans
   and reductions, which must not allocate a pair per element) */
static Value add(Eval *ev, Loc loc, Value x, Value y) {
  if (x.kind == V_INT)
    return val_int(wrap((uint32_t)x.u.i + (uint32_t)y.u.i));
  (void)ev;
  (void)loc;
  return val_float(rt_add_f(x.u.f, y.u.f));
}

static Value mul(Eval *ev, Loc loc, Value x, Value y) {
  if (x.kind == V_INT)
    return val_int(wrap((uint32_t)x.u.i * (uint32_t)y.u.i));
  (void)ev;
  (void)loc;
  return val_float(rt_mul_f(x.u.f, y.u.f));
}

static Value p_add(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  return add(ev, loc, a.u.pair->fst, SND(a));
}

static Value p_sub(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  Value x = a.u.pair->fst, y = SND(a);
  if (x.kind == V_INT)
    return val_int(wrap((uint32_t)x.u.i - (uint32_t)y.u.i));
  return val_float(rt_sub_f(x.u.f, y.u.f));
}

static Value p_mul(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  return mul(ev, loc, a.u.pair->fst, SND(a));
}

static int32_t int_div(Eval *ev, Loc loc, int32_t x, int32_t y, const char *op) {
  if (y == 0)
    ev_error(ev, loc, "%s: division by zero", op);
  if (x == INT32_MIN && y == -1)
    return INT32_MIN; /* wraps */
  return x / y;
}

static Value p_div(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Value x = a.u.pair->fst, y = SND(a);
  if (x.kind == V_INT)
    return val_int(int_div(ev, loc, x.u.i, y.u.i, "/"));
  int err = 0;
  double r = rt_div_f(x.u.f, y.u.f, &err);
  return checked_float(ev, loc, r, err, "/", 0);
}

static Value p_rem(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  int32_t x = a.u.pair->fst.u.i, y = SND(a).u.i;
  if (y == 0)
    ev_error(ev, loc, "rem: division by zero");
  if (y == -1)
    return val_int(0);
  return val_int(x % y);
}

static Value p_negate(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  if (x.kind == V_INT)
    return val_int(wrap(0u - (uint32_t)x.u.i));
  return val_float(rt_neg_f(x.u.f));
}

static Value p_reciprocal(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  if (x.kind == V_INT)
    return val_int(int_div(ev, loc, 1, x.u.i, "reciprocal"));
  int err = 0;
  double r = rt_recip_f(x.u.f, &err);
  return checked_float(ev, loc, r, err, "reciprocal", 0);
}

/* x ^ n: an int exponent, not negative; repeated squaring (ints wrap;
   floats multiply as NESL's do, rt_pow_f). */
static Value p_pow(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Value x = a.u.pair->fst;
  int32_t n = SND(a).u.i;
  if (x.kind == V_INT) {
    if (n < 0)
      ev_error(ev, loc, "^: negative exponent %d", n);
    uint32_t base = (uint32_t)x.u.i, r = 1;
    for (uint32_t e = (uint32_t)n; e; e >>= 1) {
      if (e & 1)
        r *= base;
      base *= base;
    }
    return val_int(wrap(r));
  }
  int err = 0;
  double r = rt_pow_f(x.u.f, n, &err);
  return checked_float(ev, loc, r, err, "^", n);
}

/* ---- comparison ---- */

static int compare(Value x, Value y) {
  switch (x.kind) {
  case V_INT:
    return (x.u.i > y.u.i) - (x.u.i < y.u.i);
  case V_FLOAT:
    return (x.u.f > y.u.f) - (x.u.f < y.u.f);
  case V_CHAR:
    return ((unsigned char)x.u.c > (unsigned char)y.u.c) - ((unsigned char)x.u.c < (unsigned char)y.u.c);
  case V_BOOL:
    return (x.u.b > y.u.b) - (x.u.b < y.u.b);
  default:
    die("compare on a non-scalar");
  }
}

/* Floats compare as IEEE's do: a NaN is neither less, equal nor greater
   than anything (== is F, /= is T), as in NESL; compare() would call it
   equal. */
#define COMPARISON(fname, test, ftest)                                                                   \
  static Value fname(Eval *ev, Value a, Loc loc, Type *type) {                                           \
    (void)type;                                                                                          \
    (void)ev;                                                                                            \
    (void)loc;                                                                                           \
    Value x = a.u.pair->fst, y = SND(a);                                                                 \
    if (x.kind == V_FLOAT)                                                                               \
      return val_bool(ftest(x.u.f, y.u.f));                                                              \
    int c = compare(x, y);                                                                               \
    return val_bool(test);                                                                               \
  }
COMPARISON(p_eq, c == 0, rt_eq_f)
COMPARISON(p_ne, c != 0, rt_ne_f)
COMPARISON(p_lt, c < 0, rt_lt_f)
COMPARISON(p_gt, c > 0, rt_gt_f)
COMPARISON(p_le, c <= 0, rt_le_f)
COMPARISON(p_ge, c >= 0, rt_ge_f)

/* x >= y and x <= y, a NaN false (the steps of max and min) */
static bool at_least(Value x, Value y) { return x.kind == V_FLOAT ? x.u.f >= y.u.f : compare(x, y) >= 0; }
static bool at_most(Value x, Value y) { return x.kind == V_FLOAT ? x.u.f <= y.u.f : compare(x, y) <= 0; }

/* ---- logical: bitwise on ints, boolean on bools ---- */

static Value p_not(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return x.kind == V_BOOL ? val_bool(!x.u.b) : val_int(~x.u.i);
}

#define LOGICAL(fname, sname, bop, iop)                                                                  \
  static Value sname(Value x, Value y) {                                                                 \
    if (x.kind == V_BOOL)                                                                                \
      return val_bool(x.u.b bop y.u.b);                                                                  \
    return val_int(x.u.i iop y.u.i);                                                                     \
  }                                                                                                      \
  static Value fname(Eval *ev, Value a, Loc loc, Type *type) {                                           \
    (void)type;                                                                                          \
    (void)ev;                                                                                            \
    (void)loc;                                                                                           \
    return sname(a.u.pair->fst, SND(a));                                                                 \
  }
LOGICAL(p_and, and2, &&, &)
LOGICAL(p_or, or2, ||, |)
LOGICAL(p_xor, xor2, !=, ^)

static Value p_lshift(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  int32_t x = a.u.pair->fst.u.i, n = SND(a).u.i;
  if (n < 0 || n >= 32)
    return val_int(0);
  return val_int(wrap((uint32_t)x << n));
}

static Value p_rshift(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  int32_t x = a.u.pair->fst.u.i, n = SND(a).u.i;
  if (n < 0)
    return val_int(0);
  if (n >= 32)
    return val_int(x < 0 ? -1 : 0);
  /* arithmetic shift, written so that it is defined for negative x */
  return val_int(x < 0 ? ~(~x >> n) : x >> n);
}

/* ---- floating point ---- */

static Value p_sqrt(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  int err = 0;
  double r = rt_sqrt_f(x.u.f, &err);
  return checked_float(ev, loc, r, err, "sqrt", x.u.f);
}

static Value p_ln(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  int err = 0;
  double r = rt_ln_f(x.u.f, &err);
  return checked_float(ev, loc, r, err, "ln", x.u.f);
}

#define FLOAT_FN(fname, rfn)                                                                             \
  static Value fname(Eval *ev, Value x, Loc loc, Type *type) {                                          \
    (void)ev;                                                                                            \
    (void)loc;                                                                                           \
    (void)type;                                                                                          \
    return val_float(rfn(x.u.f));                                                                        \
  }
FLOAT_FN(p_exp, rt_exp_f)
FLOAT_FN(p_sin, rt_sin_f)
FLOAT_FN(p_cos, rt_cos_f)
FLOAT_FN(p_tan, rt_tan_f)
FLOAT_FN(p_asin, rt_asin_f)
FLOAT_FN(p_acos, rt_acos_f)
FLOAT_FN(p_atan, rt_atan_f)
FLOAT_FN(p_sinh, rt_sinh_f)
FLOAT_FN(p_cosh, rt_cosh_f)
FLOAT_FN(p_tanh, rt_tanh_f)

static Value p_expt(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  int err = 0;
  double x = a.u.pair->fst.u.f, r = rt_expt_f(x, SND(a).u.f, &err);
  return checked_float(ev, loc, r, err, "expt", x);
}

/* ---- conversions ---- */

static Value p_float(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return val_float((double)x.u.i);
}

/* float to int: min_int out of range, as under NESL (rt_to_int) */
#define TO_INT(fname, rfn)                                                                               \
  static Value fname(Eval *ev, Value x, Loc loc, Type *type) {                                          \
    (void)ev;                                                                                            \
    (void)loc;                                                                                           \
    (void)type;                                                                                          \
    return val_int(rfn(x.u.f));                                                                          \
  }
TO_INT(p_trunc, rt_trunc_f)
TO_INT(p_floor, rt_floor_f)
TO_INT(p_ceil, rt_ceil_f)
TO_INT(p_round, rt_round_f)

static Value p_btoi(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return val_int(x.u.b ? 1 : 0);
}

static Value p_code_char(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  if (x.u.i < 0 || x.u.i > 255)
    ev_error(ev, loc, "code_char: %d is not a character code (0 to 255)", x.u.i);
  return val_char((char)(unsigned char)x.u.i);
}

static Value p_char_code(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return val_int((unsigned char)x.u.c);
}

/* ---- random numbers ---- */

static Value p_rand(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)loc;
  uint64_t r = ev_rand_next(ev);
  if (x.kind == V_INT) {
    if (x.u.i <= 0)
      return val_int(0);
    return val_int((int32_t)(r % (uint64_t)x.u.i));
  }
  /* 53 random bits give a double in [0, 1) */
  double unit = (double)(r >> 11) * (1.0 / 9007199254740992.0);
  return val_float(unit * x.u.f);
}

static Value p_rand_seed(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)loc;
  ev_rand_seed(ev, x.u.i);
  return val_bool(true);
}

/* ---- errors raised by library code ---- */

static Value p_error(Eval *ev, Value msg, Loc loc, Type *type) {
  (void)type; ev_error(ev, loc, "%s", val_string_chars(msg)); }

/* ---- sequences ---- */

static Seq *seq(Value v) { return v.u.seq; }

/* A result of 'len' elements represented like those of 's' (packed
   scalars stay packed, a boxed sequence of scalars is packed too). */
static Value like(const Seq *s, int64_t len) {
  if (s->packed)
    return val_seq_packed(s->elem, len);
  return s->len ? val_seq_like(s->elems[0], len) : val_seq_new(len);
}

/* The same from whichever of 'a' and 'b' has an element. */
static Value like2(const Seq *a, const Seq *b, int64_t len) { return like(a->len || !b->len ? a : b, len); }

/* Ctrl-C in a long loop of a primitive: polled every 2^16 elements. */
static void poll_interrupt(Eval *ev, Loc loc, int64_t i) {
  if ((i & 0xffff) == 0 && interrupt_pending())
    ev_interrupted(ev, loc);
}

static Value p_length(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return val_int((int32_t)seq(v)->len);
}

/* ---- lengths ----
   A sequence has at most max_int elements: its length is an int.  The
   flattened engines hold a nested value as flat vectors, one per
   component, and a vector of more elements than an int counts cannot be
   made (rt/vector.c, check_total); so that every engine stops at the same
   place with the same words, a length is checked where it is computed
   here too: flatten, ++ and ranges sum or subtract, and dist of a value
   with sequences in it repeats their elements (shared here, copied in a
   flat vector there). */

static void check_length(Eval *ev, Loc loc, int64_t n) {
  if (n > INT32_MAX)
    ev_too_many(ev, loc, n);
}

/* The most elements of one flat vector of the 'n' values 'vs' (of one
   type): a sequence's component holds all their elements, so their
   lengths are summed, then the same for the elements' own components.
   The values are gathered a level at a time; a level of scalars ends it. */
static int64_t widest(Value *vs, int64_t n) {
  if (n == 0)
    return 0;
  switch (vs[0].kind) {
  case V_SEQ: {
    int64_t total = 0;
    bool deeper = false;
    for (int64_t i = 0; i < n; i++) {
      Seq *s = vs[i].u.seq;
      total += s->len;
      deeper = deeper || (!s->packed && s->len && (s->elems[0].kind == V_SEQ || s->elems[0].kind == V_PAIR ||
                                                   s->elems[0].kind == V_DATA));
    }
    if (!deeper || total > INT32_MAX)
      return total;
    Value *elems = xmalloc(sizeof(Value) * (size_t)total);
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
      Seq *s = vs[i].u.seq;
      memcpy(elems + at, s->elems, sizeof(Value) * (size_t)s->len);
      at += s->len;
    }
    int64_t below = widest(elems, total);
    return below > total ? below : total;
  }
  case V_PAIR: {
    Value *fst = xmalloc(sizeof(Value) * (size_t)n), *snd = xmalloc(sizeof(Value) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      fst[i] = vs[i].u.pair->fst;
      snd[i] = vs[i].u.pair->snd;
    }
    int64_t a = widest(fst, n), b = widest(snd, n);
    return a > b ? a : b;
  }
  case V_DATA: {
    Value *fields = xmalloc(sizeof(Value) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
      fields[i] = vs[i].u.data->fields;
    return widest(fields, n);
  }
  default:
    return 0;
  }
}

static Value p_dist(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Value x = a.u.pair->fst;
  int32_t n = SND(a).u.i;
  if (n < 0)
    ev_error(ev, loc, "dist: negative length %d", n);
  if (x.kind == V_SEQ || x.kind == V_PAIR || x.kind == V_DATA) {
    int64_t w = widest(&x, 1);
    if (w > 0)
      check_length(ev, loc, (int64_t)n * w);
  }
  Value r = val_seq_like(x, n);
  for (int32_t i = 0; i < n; i++) {
    seq_set(r.u.seq, i, x);
    poll_interrupt(ev, loc, i);
  }
  return r;
}

/* [s:e:d] */
static Value p_range(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  int32_t s = ARG1(a).u.i, e = ARG2(a).u.i, d = ARG3(a).u.i;
  if (e < s || d <= 0)
    ev_error(ev, loc, "bad range [%d:%d:%d]: the end must be >= the start and the stride positive", s, e, d);
  int64_t len = ((int64_t)e - s + d - 1) / d;
  check_length(ev, loc, len);
  Value r = val_seq_packed(V_INT, len);
  for (int64_t i = 0; i < len; i++) {
    seq_set(r.u.seq, i, val_int((int32_t)(s + i * d)));
    poll_interrupt(ev, loc, i);
  }
  return r;
}

static void check_index(Eval *ev, Loc loc, int64_t i, int64_t len, const char *op) {
  if (i < 0 || i >= len)
    ev_error(ev, loc, "%s: index %lld is out of range for a sequence of length %lld", op, (long long)i,
             (long long)len);
}

static Value p_elt(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *s = seq(a.u.pair->fst);
  int32_t i = SND(a).u.i;
  check_index(ev, loc, i, s->len, "subscript");
  return seq_get(s, i);
}

/* values -> indices */
static Value p_gather(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *s = seq(a.u.pair->fst), *idx = seq(SND(a));
  Value r = like(s, idx->len);
  for (int64_t k = 0; k < idx->len; k++) {
    int32_t i = seq_get(idx, k).u.i;
    check_index(ev, loc, i, s->len, "->");
    val_seq_copy(r.u.seq, k, s, i, 1);
  }
  return r;
}

/* a copy of d with vals[k] written at idx[k], in order (a later write to
   the same place wins) */
static Value p_scatter(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *d = seq(ARG1(a)), *idx = seq(ARG2(a)), *vals = seq(ARG3(a));
  if (idx->len != vals->len)
    ev_error(ev, loc, "<-: %lld indices but %lld values", (long long)idx->len, (long long)vals->len);
  Value r = like2(d, vals, d->len);
  val_seq_copy(r.u.seq, 0, d, 0, d->len);
  for (int64_t k = 0; k < idx->len; k++) {
    int32_t i = seq_get(idx, k).u.i;
    check_index(ev, loc, i, d->len, "<-");
    val_seq_copy(r.u.seq, i, vals, k, 1);
  }
  return r;
}

static Value p_pack(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *s = seq(a.u.pair->fst), *flags = seq(SND(a));
  if (s->len != flags->len)
    ev_error(ev, loc, "pack: %lld values but %lld flags", (long long)s->len, (long long)flags->len);
  Value r = like(s, s->len);
  int64_t n = 0;
  for (int64_t i = 0; i < s->len; i++)
    if (seq_get(flags, i).u.b)
      val_seq_copy(r.u.seq, n++, s, i, 1);
  r.u.seq->len = n;
  return r;
}

static Value p_append(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *x = seq(a.u.pair->fst), *y = seq(SND(a));
  check_length(ev, loc, x->len + y->len);
  Value r = like2(x, y, x->len + y->len);
  val_seq_copy(r.u.seq, 0, x, 0, x->len);
  val_seq_copy(r.u.seq, x->len, y, 0, y->len);
  return r;
}

/* ---- scans and reductions ---- */

typedef enum Combine { C_ADD, C_MUL, C_MAX, C_MIN, C_AND, C_OR, C_XOR } Combine;

/* The identity of 'op' on elements of kind 'kind' (NESL.md, "Identities"). */
static Value identity(Combine op, ValueKind kind) {
  static const double float_extreme = 9.99999961690316e35; /* (float)1e36, as NESL */
  switch (op) {
  case C_ADD:
    return kind == V_FLOAT ? val_float(0.0) : val_int(0);
  case C_MUL:
    return kind == V_FLOAT ? val_float(1.0) : val_int(1);
  case C_MAX:
    return kind == V_FLOAT ? val_float(-float_extreme) : kind == V_CHAR ? val_char(0) : val_int(INT32_MIN);
  case C_MIN:
    return kind == V_FLOAT ? val_float(float_extreme) : kind == V_CHAR ? val_char((char)255) : val_int(INT32_MAX);
  case C_AND:
    return kind == V_BOOL ? val_bool(true) : val_int(-1);
  case C_OR:
  case C_XOR:
    return kind == V_BOOL ? val_bool(false) : val_int(0);
  }
  unreachable();
}

static Value combine(Eval *ev, Loc loc, Combine op, Value x, Value y) {
  switch (op) {
  case C_ADD:
    return add(ev, loc, x, y);
  case C_MUL:
    return mul(ev, loc, x, y);
  case C_MAX: /* NESL's steps: a NaN, as either, gives the new element */
    return at_least(x, y) ? x : y;
  case C_MIN:
    return at_most(x, y) ? x : y;
  case C_AND:
    return and2(x, y);
  case C_OR:
    return or2(x, y);
  case C_XOR:
    return xor2(x, y);
  }
  unreachable();
}

/* The element kind of the sequence argument, from the primitive's
   instantiated type ([a] -> ...): needed for the identity when the
   sequence is empty. */
static ValueKind elem_kind(Type *fun) {
  Type *arg = fun ? type_resolve(type_resolve(fun)->fst) : NULL;
  Type *elem = arg && arg->kind == T_SEQ ? type_resolve(arg->elem) : NULL;
  switch (elem ? elem->kind : T_INT) {
  case T_FLOAT:
    return V_FLOAT;
  case T_CHAR:
    return V_CHAR;
  case T_BOOL:
    return V_BOOL;
  default:
    return V_INT;
  }
}

static Value scan(Eval *ev, Value v, Loc loc, Type *type, Combine op) {
  Seq *s = seq(v);
  Value acc = identity(op, s->len ? seq_get(s, 0).kind : elem_kind(type));
  Value r = val_seq_packed(acc.kind, s->len);
  for (int64_t i = 0; i < s->len; i++) {
    seq_set(r.u.seq, i, acc);
    acc = combine(ev, loc, op, acc, seq_get(s, i));
    poll_interrupt(ev, loc, i);
  }
  return r;
}

static Value reduce(Eval *ev, Value v, Loc loc, Type *type, Combine op) {
  Seq *s = seq(v);
  Value acc = identity(op, s->len ? seq_get(s, 0).kind : elem_kind(type));
  for (int64_t i = 0; i < s->len; i++) {
    acc = combine(ev, loc, op, acc, seq_get(s, i));
    poll_interrupt(ev, loc, i);
  }
  return acc;
}

#define SCAN_REDUCE(name, op)                                                                            \
  static Value p_scan_##name(Eval *ev, Value a, Loc loc, Type *t) { return scan(ev, a, loc, t, op); }    \
  static Value p_reduce_##name(Eval *ev, Value a, Loc loc, Type *t) { return reduce(ev, a, loc, t, op); }
SCAN_REDUCE(add, C_ADD)
SCAN_REDUCE(mul, C_MUL)
SCAN_REDUCE(max, C_MAX)
SCAN_REDUCE(min, C_MIN)
SCAN_REDUCE(and, C_AND)
SCAN_REDUCE(or, C_OR)
SCAN_REDUCE(xor, C_XOR)

/* The index of the first greatest (least) element; max_int when empty.
   An element replaces the best so far unless the best is at least (at
   most) it, as NESL's reduction steps do: a NaN, as either, makes the
   newer one the best. */
static Value extreme_index(Value v, int sign) {
  Seq *s = seq(v);
  if (s->len == 0)
    return val_int(INT32_MAX);
  int64_t best = 0;
  for (int64_t i = 1; i < s->len; i++) {
    Value b = seq_get(s, best), x = seq_get(s, i);
    if (!(sign > 0 ? at_least(b, x) : at_most(b, x)))
      best = i;
  }
  return val_int((int32_t)best);
}

static Value p_max_index(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return extreme_index(v, 1);
}

static Value p_min_index(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return extreme_index(v, -1);
}

/* ---- nesting: the one place a primitive makes or removes a level ---- */

static Value p_partition(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  Seq *s = seq(a.u.pair->fst), *counts = seq(SND(a));
  int64_t total = 0;
  for (int64_t i = 0; i < counts->len; i++) {
    int32_t n = seq_get(counts, i).u.i;
    if (n < 0)
      ev_error(ev, loc, "partition: negative count %d", n);
    total += n;
  }
  if (total != s->len)
    ev_error(ev, loc, "partition: the counts add up to %lld, but the sequence has length %lld", (long long)total,
             (long long)s->len);
  Value r = val_seq_new(counts->len);
  int64_t at = 0;
  for (int64_t i = 0; i < counts->len; i++) {
    int32_t n = seq_get(counts, i).u.i;
    Value part = like(s, n);
    val_seq_copy(part.u.seq, 0, s, at, n);
    at += n;
    r.u.seq->elems[i] = part;
  }
  return r;
}

static Value p_flatten(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  Seq *s = seq(v);
  int64_t total = 0;
  Seq *sample = NULL; /* a part with elements, for the representation */
  for (int64_t i = 0; i < s->len; i++) {
    Seq *part = seq(seq_get(s, i));
    total += part->len;
    if (!sample && part->len)
      sample = part;
  }
  check_length(ev, loc, total);
  Value r = sample ? like(sample, total) : val_seq_new(0);
  int64_t at = 0;
  for (int64_t i = 0; i < s->len; i++) {
    Seq *part = seq(seq_get(s, i));
    val_seq_copy(r.u.seq, at, part, 0, part->len);
    at += part->len;
  }
  return r;
}

/* ---- sorting: rank(v)[i] is where v[i] goes in the stable sort ---- */

typedef struct RankItem {
  Value v;
  int64_t index;
} RankItem;

static int rank_sign;

static int rank_compare(const void *pa, const void *pb) {
  const RankItem *a = pa, *b = pb;
  int c = compare(a->v, b->v) * rank_sign;
  if (c)
    return c;
  return (a->index > b->index) - (a->index < b->index); /* stable */
}

static Value rank(Value v, int sign) {
  Seq *s = seq(v);
  RankItem *items = xmalloc(sizeof(RankItem) * (size_t)(s->len ? s->len : 1));
  for (int64_t i = 0; i < s->len; i++)
    items[i] = (RankItem){seq_get(s, i), i};
  rank_sign = sign;
  qsort(items, (size_t)s->len, sizeof(RankItem), rank_compare);
  Value r = val_seq_packed(V_INT, s->len);
  for (int64_t k = 0; k < s->len; k++)
    seq_set(r.u.seq, items[k].index, val_int((int32_t)k));
  return r;
}

static Value p_rank(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return rank(v, 1);
}

static Value p_rank_down(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return rank(v, -1);
}

/* name(s)[i]: the index of the last occurrence of s[i]'s value in s.  A
   hash table keyed by value (val_hash, val_equal) makes it linear. */
static Value p_name(Eval *ev, Value v, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  Seq *s = seq(v);
  int64_t cap = 16;
  while (cap < 2 * s->len)
    cap *= 2;
  int64_t *table = xmalloc_atomic(sizeof(int64_t) * (size_t)cap);
  for (int64_t i = 0; i < cap; i++)
    table[i] = -1;
  Value r = val_seq_packed(V_INT, s->len);
  /* from the end: the first time a value is seen is its last occurrence */
  for (int64_t i = s->len - 1; i >= 0; i--) {
    Value x = seq_get(s, i);
    uint64_t h = val_hash(x) & (uint64_t)(cap - 1);
    while (table[h] >= 0 && !val_equal(seq_get(s, table[h]), x))
      h = (h + 1) & (uint64_t)(cap - 1);
    if (table[h] < 0)
      table[h] = i;
    seq_set(r.u.seq, i, val_int((int32_t)table[h]));
  }
  return r;
}

/* ---- any type ---- */

static Value p_eql(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return val_bool(val_equal(a.u.pair->fst, SND(a)));
}

static Value p_hash(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  int32_t l = SND(a).u.i;
  if (l <= 0)
    ev_error(ev, loc, "hash: the range %d is not positive", l);
  return val_int(rt_nesl_hash_in(val_nesl_hash(a.u.pair->fst), l));
}

/* identity(x): the zero of x's type, built from x's shape (so it needs
   no type): 0, 0.0, F, the character of code 0, the empty sequence;
   tuples and datatype values field by field. */
static Value zero_like(Value x) {
  switch (x.kind) {
  case V_INT:
    return val_int(0);
  case V_FLOAT:
    return val_float(0.0);
  case V_BOOL:
    return val_bool(false);
  case V_CHAR:
    return val_char(0);
  case V_SEQ:
    return val_seq_new(0);
  case V_PAIR:
    return val_pair(zero_like(x.u.pair->fst), zero_like(x.u.pair->snd));
  case V_DATA:
    return val_data(x.u.data->con, zero_like(x.u.data->fields));
  }
  unreachable();
}

static Value p_identity(Eval *ev, Value x, Loc loc, Type *type) {
  (void)type;
  (void)ev;
  (void)loc;
  return zero_like(x);
}

/* What NESL's unpack puts where a flag is F (its len-put): the zero of
   the type, as identity's (0, 0.0, F, the character of code 0, the
   empty sequence; tuples and datatype values field by field; a function
   value is F, as every one is here: eval.c), but made from the type,
   since unpack's values may be none. */
static Value unpack_zero(Eval *ev, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
    return val_int(0);
  case T_FLOAT:
    return val_float(0.0);
  case T_BOOL:
    return val_bool(false);
  case T_CHAR:
    return val_char(0);
  case T_SEQ:
    return val_seq_new(0);
  case T_PAIR:
    return val_pair(unpack_zero(ev, t->fst), unpack_zero(ev, t->snd));
  case T_DATA: {
    /* the constructor's argument type at the datatype's parameters */
    Def *con = ev_constructor(ev, t);
    Type *ft = type_resolve(type_instantiate(con->type, 0));
    if (!type_unify(ft->snd, t))
      die("__zeros: %s does not match its constructor", type_value_to_string(t));
    return val_data(con, unpack_zero(ev, ft->fst));
  }
  case T_FUN:
    return val_bool(false);
  case T_VAR:
    if (t->def) /* a known function */
      return val_bool(false);
    break;
  }
  die("__zeros: no zero of the type %s", type_value_to_string(t));
}

/* __zeros(n): n of them, the element type read from the result type
   ([a], the primitive's instance in the caller's frame). */
static Value p_zeros(Eval *ev, Value a, Loc loc, Type *type) {
  int32_t n = a.u.i;
  if (n < 0) /* unpack's #flags: never */
    ev_error(ev, loc, "dist: negative length %d", n);
  Value x = unpack_zero(ev, type_resolve(type_resolve(type)->snd)->elem);
  Value r = val_seq_like(x, n);
  for (int32_t i = 0; i < n; i++) {
    seq_set(r.u.seq, i, x);
    poll_interrupt(ev, loc, i);
  }
  return r;
}

/* ---- the table ---- */

static const Prim prims[] = {
    {"__add", p_add, false}, {"__sub", p_sub, false}, {"__mul", p_mul, false}, {"__div", p_div, false}, {"rem", p_rem, false},
    {"__negate", p_negate, false}, {"reciprocal", p_reciprocal, false}, {"__pow", p_pow, false},
    {"__eq", p_eq, false}, {"__ne", p_ne, false}, {"__lt", p_lt, false}, {"__gt", p_gt, false}, {"__le", p_le, false}, {"__ge", p_ge, false},
    {"not", p_not, false}, {"__and", p_and, false}, {"__or", p_or, false}, {"__xor", p_xor, false},
    {"lshift", p_lshift, false}, {"rshift", p_rshift, false},
    {"sqrt", p_sqrt, false}, {"ln", p_ln, false}, {"exp", p_exp, false}, {"sin", p_sin, false}, {"cos", p_cos, false}, {"tan", p_tan, false},
    {"asin", p_asin, false}, {"acos", p_acos, false}, {"atan", p_atan, false}, {"sinh", p_sinh, false}, {"cosh", p_cosh, false},
    {"tanh", p_tanh, false}, {"expt", p_expt, false},
    {"float", p_float, false}, {"trunc", p_trunc, false}, {"floor", p_floor, false}, {"ceil", p_ceil, false}, {"round", p_round, false},
    {"btoi", p_btoi, false}, {"code_char", p_code_char, false}, {"char_code", p_char_code, false},
    {"rand", p_rand, false}, {"rand_seed", p_rand_seed, false}, {"__error", p_error, false},
    {"__length", p_length, false}, {"dist", p_dist, false}, {"__range", p_range, false}, {"__elt", p_elt, false},
    {"__gather", p_gather, false}, {"__scatter", p_scatter, false}, {"__pack", p_pack, false}, {"__append", p_append, false},
    {"__zeros", p_zeros, true},
    {"__scan_add", p_scan_add, true}, {"__scan_mul", p_scan_mul, true}, {"__scan_max", p_scan_max, true},
    {"__scan_min", p_scan_min, true}, {"__scan_and", p_scan_and, true}, {"__scan_or", p_scan_or, true},
    {"__scan_xor", p_scan_xor, true},
    {"__reduce_add", p_reduce_add, true}, {"__reduce_mul", p_reduce_mul, true}, {"__reduce_max", p_reduce_max, true},
    {"__reduce_min", p_reduce_min, true}, {"__reduce_and", p_reduce_and, true}, {"__reduce_or", p_reduce_or, true},
    {"__reduce_xor", p_reduce_xor, true},
    {"max_index", p_max_index, false}, {"min_index", p_min_index, false},
    {"partition", p_partition, false}, {"flatten", p_flatten, false},
    {"rank", p_rank, false}, {"rank_down", p_rank_down, false}, {"name", p_name, false},
    {"eql", p_eql, false}, {"hash", p_hash, false}, {"identity", p_identity, false},
    {"__global_value", ev_prim_global_value, false}, {"__keep_value", ev_prim_keep_value, false},
};

const Prim *prim_lookup(const char *name) {
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (strcmp(prims[i].name, name) == 0)
      return &prims[i];
  return prim_lookup_io(name);
}
