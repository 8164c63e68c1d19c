/*
 * ops.c: the element-wise operations on whole vectors (or scalars), and
 * the reductions and scans, plain and segmented, for the interpreters.
 * Each position is computed by scalar.h's function for the operation, the
 * one that generated code inlines, so that every backend computes the
 * same values and stops on the same errors.
 *
 * Reductions and scans combine in order, one element after the other
 * from the identity, segment after segment: the order of the source
 * evaluator, so that floating-point sums come out the same.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "scalar.h"

/* ---- the table of ops.def ---- */

typedef struct OpInfo {
  const char *name;
  RtOpClass klass;
  const char *args, *results;
  RtCombine combine;
} OpInfo;

static const OpInfo ops[] = {
#define FLAT_OP(name, text, class, args, results, combine) {text, OPC_##class, args, results, RC_##combine},
#include "ops.def"
};

const char *rt_op_name(RtOp op) { return (unsigned)op < RT_OP_COUNT ? ops[op].name : "?"; }
RtOpClass rt_op_class(RtOp op) { return ops[op].klass; }
const char *rt_op_args(RtOp op) { return ops[op].args; }
const char *rt_op_results(RtOp op) { return ops[op].results; }
RtCombine rt_op_combine(RtOp op) { return ops[op].combine; }

/* The words of a signature: -1 when one repeats ('+') or the signature
   is a layout's. */
static int words(const char *sig) {
  if (!sig || strchr(sig, '+'))
    return -1;
  int n = 0;
  for (const char *p = sig; *p; p++)
    n += (p == sig || p[-1] == ' ') && *p != ' ';
  return n;
}

int rt_op_nargs(RtOp op) { return words(ops[op].args); }
int rt_op_nresults(RtOp op) { return words(ops[op].results); }

/* ---- errors ---- */

/* The library primitive an element-wise operation implements, as the
   evaluator names it, and the name its messages use. */
static const char *op_prim(RtOp op) {
  switch (op) {
  case RT_ADD:
    return "__add";
  case RT_SUB:
    return "__sub";
  case RT_MUL:
    return "__mul";
  case RT_DIV:
    return "__div";
  case RT_RECIP:
    return "reciprocal";
  case RT_POW:
    return "__pow";
  default:
    return rt_op_name(op); /* rem, sqrt, ln, exp, ..., trunc, code_char */
  }
}

static const char *op_text(RtOp op) {
  switch (op) {
  case RT_ADD:
    return "+";
  case RT_SUB:
    return "-";
  case RT_MUL:
    return "*";
  case RT_DIV:
    return "/";
  case RT_RECIP:
    return "reciprocal";
  case RT_POW:
    return "^";
  default:
    return rt_op_name(op);
  }
}

void rt_scalar_fail(RtOp op, int err, double x, RtLoc loc, const char *prim) {
  /* a caller's primitive (a reduction's) stands for the operation's own */
  const char *p = prim ? prim : op_prim(op);
  const char *text = op_text(op);
  switch (err) {
  case RT_E_DIV_ZERO:
    rt_fail(loc, p, "%s: division by zero", text);
  case RT_E_NEG_EXPONENT:
    rt_fail(loc, p, "^: negative exponent %d", (int)x);
  case RT_E_SQRT_NEG:
    rt_fail(loc, p, "sqrt: the argument %g is negative", x);
  case RT_E_LN_NEG:
    if (op == RT_EXPT)
      rt_fail(loc, p, "expt: the base %g is negative (expt(v, p) is exp(ln(v) * p))", x);
    rt_fail(loc, p, "ln: the argument %g is negative", x);
  default: /* RT_E_NOT_CHAR */
    rt_fail(loc, p, "code_char: %d is not a character code (0 to 255)", (int)x);
  }
}

static _Noreturn void bug(const char *what, RtOp op, RtType t) {
  fprintf(stderr, "nessie: internal error: %s: %s on a %s\n", what, rt_op_name(op), rt_type_name(t));
  abort();
}

/* ---- element-wise ---- */

RtType rt_elementwise_type(RtOp op, RtValue **a, int nargs) {
  RtKind kind = a[0]->type.kind;
  int64_t n = a[0]->len;
  if (kind != RT_SCALAR && kind != RT_VEC)
    bug("element-wise on a segdes", op, a[0]->type);
  for (int i = 1; i < nargs; i++)
    if (a[i]->type.kind != kind || a[i]->len != n)
      bug("arguments of different kinds or lengths", op, a[i]->type);
  RtBase rb = a[0]->type.base;
  const char *r = ops[op].results;
  switch (r[1]) {
  case 'i':
    rb = RT_INT;
    break;
  case 'f':
    rb = RT_FLOAT;
    break;
  case 'b':
    rb = RT_BOOL;
    break;
  case 'c':
    rb = RT_CHAR;
    break;
  case '1':
  case '2':
  case '3':
    rb = a[r[1] - '1']->type.base;
    break;
  default:
    break;
  }
  return (RtType){kind, rb};
}

/* Loops of one shape: F applied at each position; the E forms check the
   error F reports and stop with the message of 'op' on operand X. */
#define MAP1(TO, TA, F)                                                                                          \
  do {                                                                                                           \
    const TA *a = (const TA *)x->data.any;                                                                       \
    TO *o = (TO *)r->data.any;                                                                                   \
    for (int64_t k = 0; k < n; k++)                                                                              \
      o[k] = F(a[k]);                                                                                            \
  } while (0)
#define MAP2(TO, TA, TB, F)                                                                                      \
  do {                                                                                                           \
    const TA *a = (const TA *)x->data.any;                                                                       \
    const TB *b = (const TB *)y->data.any;                                                                       \
    TO *o = (TO *)r->data.any;                                                                                   \
    for (int64_t k = 0; k < n; k++)                                                                              \
      o[k] = F(a[k], b[k]);                                                                                      \
  } while (0)
#define MAP1E(TO, TA, F)                                                                                         \
  do {                                                                                                           \
    const TA *a = (const TA *)x->data.any;                                                                       \
    TO *o = (TO *)r->data.any;                                                                                   \
    int err = 0;                                                                                                 \
    for (int64_t k = 0; k < n; k++) {                                                                            \
      o[k] = F(a[k], &err);                                                                                      \
      if (err)                                                                                                   \
        rt_scalar_fail(op, err, (double)a[k], loc, prim);                                                        \
    }                                                                                                            \
  } while (0)
#define MAP2E(TO, TA, TB, F, X)                                                                                  \
  do {                                                                                                           \
    const TA *a = (const TA *)x->data.any;                                                                       \
    const TB *b = (const TB *)y->data.any;                                                                       \
    TO *o = (TO *)r->data.any;                                                                                   \
    int err = 0;                                                                                                 \
    for (int64_t k = 0; k < n; k++) {                                                                            \
      o[k] = F(a[k], b[k], &err);                                                                                \
      if (err)                                                                                                   \
        rt_scalar_fail(op, err, (double)(X), loc, prim);                                                         \
    }                                                                                                            \
  } while (0)

/* One operation over all four base types: the comparisons. */
#define COMPARE(F)                                                                                               \
  switch (base) {                                                                                                \
  case RT_INT:                                                                                                   \
    MAP2(uint8_t, int32_t, int32_t, F##_i);                                                                      \
    return;                                                                                                      \
  case RT_FLOAT:                                                                                                 \
    MAP2(uint8_t, double, double, F##_f);                                                                        \
    return;                                                                                                      \
  case RT_BOOL:                                                                                                  \
    MAP2(uint8_t, uint8_t, uint8_t, F##_b);                                                                      \
    return;                                                                                                      \
  case RT_CHAR:                                                                                                  \
    MAP2(uint8_t, char, char, F##_c);                                                                            \
    return;                                                                                                      \
  }                                                                                                              \
  break

/* Element-wise 'op' on 'a' into 'r' (of the result's type and length). */
static void elementwise_into(RtOp op, RtLoc loc, const char *prim, RtValue **a, int nargs, RtValue *r) {
  int64_t n = a[0]->len;
  RtValue *x = a[0], *y = nargs > 1 ? a[1] : NULL;
  RtBase base = x->type.base;
  bool ints = base == RT_INT;
  switch (op) {
  case RT_ADD:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_add_i);
    else
      MAP2(double, double, double, rt_add_f);
    return;
  case RT_SUB:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_sub_i);
    else
      MAP2(double, double, double, rt_sub_f);
    return;
  case RT_MUL:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_mul_i);
    else
      MAP2(double, double, double, rt_mul_f);
    return;
  case RT_DIV:
    if (ints)
      MAP2E(int32_t, int32_t, int32_t, rt_div_i, 0);
    else
      MAP2E(double, double, double, rt_div_f, 0);
    return;
  case RT_REM:
    MAP2E(int32_t, int32_t, int32_t, rt_rem_i, 0);
    return;
  case RT_NEG:
    if (ints)
      MAP1(int32_t, int32_t, rt_neg_i);
    else
      MAP1(double, double, rt_neg_f);
    return;
  case RT_RECIP:
    if (ints)
      MAP1E(int32_t, int32_t, rt_recip_i);
    else
      MAP1E(double, double, rt_recip_f);
    return;
  case RT_POW:
    if (ints)
      MAP2E(int32_t, int32_t, int32_t, rt_pow_i, b[k]);
    else
      MAP2E(double, double, int32_t, rt_pow_f, b[k]);
    return;
  case RT_EQ:
    COMPARE(rt_eq);
  case RT_NE:
    COMPARE(rt_ne);
  case RT_LT:
    COMPARE(rt_lt);
  case RT_GT:
    COMPARE(rt_gt);
  case RT_LE:
    COMPARE(rt_le);
  case RT_GE:
    COMPARE(rt_ge);
  case RT_NOT:
    if (ints)
      MAP1(int32_t, int32_t, rt_not_i);
    else
      MAP1(uint8_t, uint8_t, rt_not_b);
    return;
  case RT_AND:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_and_i);
    else
      MAP2(uint8_t, uint8_t, uint8_t, rt_and_b);
    return;
  case RT_OR:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_or_i);
    else
      MAP2(uint8_t, uint8_t, uint8_t, rt_or_b);
    return;
  case RT_XOR:
    if (ints)
      MAP2(int32_t, int32_t, int32_t, rt_xor_i);
    else
      MAP2(uint8_t, uint8_t, uint8_t, rt_xor_b);
    return;
  case RT_LSHIFT:
    MAP2(int32_t, int32_t, int32_t, rt_lshift_i);
    return;
  case RT_RSHIFT:
    MAP2(int32_t, int32_t, int32_t, rt_rshift_i);
    return;
  case RT_SQRT:
    MAP1E(double, double, rt_sqrt_f);
    return;
  case RT_LN:
    MAP1E(double, double, rt_ln_f);
    return;
  case RT_EXP:
    MAP1(double, double, rt_exp_f);
    return;
  case RT_SIN:
    MAP1(double, double, rt_sin_f);
    return;
  case RT_COS:
    MAP1(double, double, rt_cos_f);
    return;
  case RT_TAN:
    MAP1(double, double, rt_tan_f);
    return;
  case RT_ASIN:
    MAP1(double, double, rt_asin_f);
    return;
  case RT_ACOS:
    MAP1(double, double, rt_acos_f);
    return;
  case RT_ATAN:
    MAP1(double, double, rt_atan_f);
    return;
  case RT_SINH:
    MAP1(double, double, rt_sinh_f);
    return;
  case RT_COSH:
    MAP1(double, double, rt_cosh_f);
    return;
  case RT_TANH:
    MAP1(double, double, rt_tanh_f);
    return;
  case RT_EXPT:
    MAP2E(double, double, double, rt_expt_f, a[k]);
    return;
  case RT_TO_FLOAT:
    MAP1(double, int32_t, rt_to_float_i);
    return;
  case RT_TRUNC:
    MAP1(int32_t, double, rt_trunc_f);
    return;
  case RT_FLOOR:
    MAP1(int32_t, double, rt_floor_f);
    return;
  case RT_CEIL:
    MAP1(int32_t, double, rt_ceil_f);
    return;
  case RT_ROUND:
    MAP1(int32_t, double, rt_round_f);
    return;
  case RT_BTOI:
    MAP1(int32_t, uint8_t, rt_btoi_b);
    return;
  case RT_CODE_CHAR:
    MAP1E(char, int32_t, rt_code_char_i);
    return;
  case RT_CHAR_CODE:
    MAP1(int32_t, char, rt_char_code_c);
    return;
  case RT_SELECT: {
    RtBase rb = r->type.base;
    size_t size = rt_base_size(rb);
    const uint8_t *flags = x->data.b;
    const char *then = y->data.any, *els = a[2]->data.any;
    char *o = r->data.any;
    if (a[2]->type.base != rb || y->type.base != rb)
      bug("select: branches of different types", op, a[2]->type);
    for (int64_t k = 0; k < n; k++)
      memcpy(o + (size_t)k * size, (flags[k] ? then : els) + (size_t)k * size, size);
    return;
  }
  case RT_ZERO:
    /* all-zero bytes are 0, 0.0, F and the character of code 0 */
    memset(r->data.any, 0, rt_base_size(r->type.base) * (size_t)n);
    return;
  case RT_COPY:
    memcpy(r->data.any, x->data.any, rt_base_size(r->type.base) * (size_t)n);
    return;
  default:
    break;
  }
  bug("not an element-wise operation on this type", op, x->type);
}

static void check_elementwise(RtOp op, int nargs) {
  if (rt_op_class(op) != OPC_ELEMENTWISE || op == RT_RAND)
    bug("not an element-wise operation", op, rt_scalar_type(RT_INT));
  if (nargs != rt_op_nargs(op))
    bug("wrong number of arguments", op, rt_scalar_type(RT_INT));
}

RtValue *rt_elementwise(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs) {
  check_elementwise(op, nargs);
  if (op == RT_COPY)
    return args[0]; /* values are never changed in place */
  RtValue *r = rt_value_new(rt_elementwise_type(op, args, nargs), args[0]->len);
  elementwise_into(op, loc, prim, args, nargs, r);
  return r;
}

void rt_elementwise_into(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs, RtValue *result) {
  check_elementwise(op, nargs);
  RtType t = rt_elementwise_type(op, args, nargs);
  if (!rt_type_equal(result->type, t) || result->len != args[0]->len)
    bug("a result of another type or length", op, result->type);
  elementwise_into(op, loc, prim, args, nargs, result);
}

void rt_scalar_into(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs, RtValue *result) {
  elementwise_into(op, loc, prim, args, nargs, result);
}

/* ---- random numbers ---- */

RtValue *rt_rand(int site, RtValue *x) {
  RtValue *r = rt_value_new(x->type, x->len);
  uint64_t stream = rt_rand_stream(rt_rand_state(), site, rt_rand_execution(site));
  for (int64_t k = 0; k < x->len; k++) {
    uint64_t bits = rt_rand_draw(stream, k);
    if (x->type.base == RT_INT)
      r->data.i[k] = rt_rand_below_i(bits, x->data.i[k]);
    else
      r->data.f[k] = rt_rand_below_f(bits, x->data.f[k]);
  }
  return r;
}

/* ---- reductions and scans ---- */

const char *rt_combine_prim(RtCombine c, bool scan) {
  static const char *const reduce_names[] = {NULL, "__reduce_add", "__reduce_mul", "__reduce_max", "__reduce_min",
                                             "__reduce_and", "__reduce_or", "__reduce_xor"};
  static const char *const scan_names[] = {NULL, "__scan_add", "__scan_mul", "__scan_max", "__scan_min",
                                           "__scan_and", "__scan_or", "__scan_xor"};
  return scan ? scan_names[c] : reduce_names[c];
}

/* (float)1e36, NESL's float extreme */
static const double float_extreme = 9.99999961690316e35;

void rt_combine_identity(RtCombine c, RtBase base, void *out) {
  switch (base) {
  case RT_INT: {
    int32_t v = c == RC_MUL ? 1 : c == RC_MAX ? INT32_MIN : c == RC_MIN ? INT32_MAX : c == RC_AND ? -1 : 0;
    memcpy(out, &v, sizeof v);
    return;
  }
  case RT_FLOAT: {
    double v = c == RC_MUL ? 1.0 : c == RC_MAX ? -float_extreme : c == RC_MIN ? float_extreme : 0.0;
    memcpy(out, &v, sizeof v);
    return;
  }
  case RT_BOOL:
    *(uint8_t *)out = c == RC_AND;
    return;
  case RT_CHAR:
    *(char *)out = (char)(c == RC_MIN ? 255 : 0);
    return;
  }
}

/* Reduces each segment [off[k], off[k + 1]) of 'v' into out[k], or, for
   a scan, writes each element's exclusive prefix into out at its place. */
static void combine_segments(RtOp op, RtLoc loc, RtValue *v, const int64_t *off, int64_t nseg, RtValue *out) {
  (void)loc; /* no step fails: a float sum that overflows is infinite, as NESL's is */
  RtCombine c = rt_op_combine(op);
  RtOpClass k = rt_op_class(op);
  bool scan = k == OPC_SCAN || k == OPC_SEG_SCAN;
  switch (v->type.base) {
  case RT_INT: {
    for (int64_t s = 0; s < nseg; s++) {
      int32_t acc;
      rt_combine_identity(c, RT_INT, &acc);
      for (int64_t j = off[s]; j < off[s + 1]; j++) {
        int32_t x = v->data.i[j];
        if (scan)
          out->data.i[j] = acc;
        switch (c) {
        case RC_ADD:
          acc = rt_add_i(acc, x);
          break;
        case RC_MUL:
          acc = rt_mul_i(acc, x);
          break;
        case RC_MAX:
          acc = acc >= x ? acc : x;
          break;
        case RC_MIN:
          acc = acc <= x ? acc : x;
          break;
        case RC_AND:
          acc &= x;
          break;
        case RC_OR:
          acc |= x;
          break;
        default:
          acc ^= x;
          break;
        }
      }
      if (!scan)
        out->data.i[s] = acc;
    }
    return;
  }
  case RT_FLOAT:
    if (c != RC_ADD && c != RC_MUL && c != RC_MAX && c != RC_MIN)
      break;
    for (int64_t s = 0; s < nseg; s++) {
      double acc;
      rt_combine_identity(c, RT_FLOAT, &acc);
      for (int64_t j = off[s]; j < off[s + 1]; j++) {
        double x = v->data.f[j];
        if (scan)
          out->data.f[j] = acc;
        switch (c) {
        case RC_ADD:
          acc = rt_add_f(acc, x);
          break;
        case RC_MUL:
          acc = rt_mul_f(acc, x);
          break;
        case RC_MAX:
          acc = acc >= x ? acc : x;
          break;
        default:
          acc = acc <= x ? acc : x;
          break;
        }
      }
      if (!scan)
        out->data.f[s] = acc;
    }
    return;
  case RT_BOOL:
    if (c != RC_AND && c != RC_OR && c != RC_XOR)
      break;
    for (int64_t s = 0; s < nseg; s++) {
      bool acc = c == RC_AND;
      for (int64_t j = off[s]; j < off[s + 1]; j++) {
        bool x = v->data.b[j];
        if (scan)
          out->data.b[j] = acc;
        acc = c == RC_AND ? acc && x : c == RC_OR ? acc || x : acc != x;
      }
      if (!scan)
        out->data.b[s] = acc;
    }
    return;
  case RT_CHAR:
    if (c != RC_MAX && c != RC_MIN)
      break;
    for (int64_t s = 0; s < nseg; s++) {
      unsigned char acc = c == RC_MAX ? 0 : 255;
      for (int64_t j = off[s]; j < off[s + 1]; j++) {
        unsigned char x = (unsigned char)v->data.c[j];
        if (scan)
          out->data.c[j] = (char)acc;
        acc = c == RC_MAX ? (acc >= x ? acc : x) : (acc <= x ? acc : x);
      }
      if (!scan)
        out->data.c[s] = (char)acc;
    }
    return;
  }
  bug("a reduction or scan of this type", op, v->type);
}

static void need_vector(RtOp op, RtValue *v) {
  if (v->type.kind != RT_VEC)
    bug("an argument that is not a vector", op, v->type);
}

/* A segmented operation's vector has as many elements as its segments
   hold: the flattener builds them together. */
static const int64_t *segments_over(RtOp op, RtValue *d, RtValue *v) {
  if (d->type.kind != RT_SEGDES)
    bug("a segmented operation without a segdes", op, d->type);
  need_vector(op, v);
  const int64_t *off = rt_seg_offsets(d);
  if (off[d->len] != v->len)
    bug("a segdes over a vector of another length", op, v->type);
  return off;
}

RtValue *rt_reduce(RtOp op, RtLoc loc, RtValue *v) {
  need_vector(op, v);
  RtValue *r = rt_value_new(rt_scalar_type(v->type.base), 1);
  int64_t off[2] = {0, v->len};
  combine_segments(op, loc, v, off, 1, r);
  return r;
}

RtValue *rt_scan(RtOp op, RtLoc loc, RtValue *v) {
  need_vector(op, v);
  RtValue *r = rt_value_new(v->type, v->len);
  int64_t off[2] = {0, v->len};
  combine_segments(op, loc, v, off, 1, r);
  return r;
}

RtValue *rt_seg_reduce(RtOp op, RtLoc loc, RtValue *d, RtValue *v) {
  const int64_t *off = segments_over(op, d, v);
  RtValue *r = rt_value_new(v->type, d->len);
  combine_segments(op, loc, v, off, d->len, r);
  return r;
}

RtValue *rt_seg_scan(RtOp op, RtLoc loc, RtValue *d, RtValue *v) {
  const int64_t *off = segments_over(op, d, v);
  RtValue *r = rt_value_new(v->type, v->len);
  combine_segments(op, loc, v, off, d->len, r);
  return r;
}
