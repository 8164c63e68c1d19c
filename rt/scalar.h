/*
 * scalar.h: the semantics of NESL's scalar operations, one inline function
 * per operation and base type, for every backend: the interpreters' loops
 * (rt/ops.c), the generated C of the CPU target and the generated CUDA of
 * the GPU target include this file, so that all of them compute the same
 * values and detect the same errors.
 *
 * An operation that can fail takes 'int *err' and, on failure, stores an
 * RtScalarError there (and returns some value, which the caller must not
 * use): it never traps, so that a GPU thread can record the error and go
 * on.  Ints are 32-bit two's complement and wrap.  Floats are IEEE
 * doubles and compute as CMU NESL 3.1's do: an overflow is an infinity,
 * inf - inf a NaN, and only NESL's own argument checks fail (a zero
 * divisor, sqrt or ln of a negative number, a negative exponent); a
 * conversion to int of a float out of range, infinite or NaN gives
 * min_int, as x86's does under NESL.  That a statement's value must be
 * finite is checked where it is printed (rt_check_value, eval.c), as
 * NESL checks its REPL's results.  Booleans are 0 or 1 in a uint8_t;
 * characters order by their unsigned codes.
 */
#ifndef NESSIE_RT_SCALAR_H
#define NESSIE_RT_SCALAR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define RT_FN static __host__ __device__ __forceinline__
#else
#define RT_FN static inline
#endif

/* The errors of scalar operations: with the operation and the operand
   they make the message (rt_scalar_error_text in ops.c). */
typedef enum RtScalarError {
  RT_OK,
  RT_E_DIV_ZERO,     /* a zero divisor */
  RT_E_NEG_EXPONENT, /* x ^ n with n < 0 */
  RT_E_SQRT_NEG,     /* sqrt of a negative number */
  RT_E_LN_NEG,       /* ln of a negative number (expt's too) */
  RT_E_NOT_CHAR,     /* code_char: not a code from 0 to 255 */
} RtScalarError;

RT_FN int32_t rt_wrap(uint32_t x) { return (int32_t)x; }

/* A float product that is never contracted into a multiply-add with the
   sum it feeds (__dmul_rn on the device; the generated C and the host's
   C++ are compiled with -ffp-contract=off): a product that overflows is
   then infinite in the sum, as it is in NESL, and a kernel computes the
   values that the interpreters do. */
RT_FN double rt_mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

/* ---- arithmetic ---- */

RT_FN int32_t rt_add_i(int32_t a, int32_t b) { return rt_wrap((uint32_t)a + (uint32_t)b); }
RT_FN int32_t rt_sub_i(int32_t a, int32_t b) { return rt_wrap((uint32_t)a - (uint32_t)b); }
RT_FN int32_t rt_mul_i(int32_t a, int32_t b) { return rt_wrap((uint32_t)a * (uint32_t)b); }
RT_FN int32_t rt_div_i(int32_t a, int32_t b, int *err) {
  if (b == 0) {
    *err = RT_E_DIV_ZERO;
    return 0;
  }
  return a == INT32_MIN && b == -1 ? INT32_MIN : a / b; /* wraps */
}
/* the sign of the dividend */
RT_FN int32_t rt_rem_i(int32_t a, int32_t b, int *err) {
  if (b == 0) {
    *err = RT_E_DIV_ZERO;
    return 0;
  }
  return b == -1 ? 0 : a % b;
}
/* A divisor that stays the same over a kernel's elements (a scalar
   parameter of the kernel: the n of `rem(i, n)` that reads a distributed
   vector in place), prepared once, before the elements, so that each
   element's quotient or remainder is a few multiplications where a
   hardware division takes tens of instructions (the all-pairs n-body's
   two remainders a pair took two fifths of its time on the H200).  With
   m = ceil(2^64 / d) for the magnitude d >= 2 of the divisor and any
   32-bit magnitude a of the dividend, m d = 2^64 + e with 0 <= e < d, so

     m a / 2^64 = a / d + e a / (d 2^64),   the error below 2^-32 <= 1/d:

   floor(m a / 2^64) is a / d's quotient q; and (m a mod 2^64) d / 2^64
   is exactly r + e a / 2^64 with e a < 2^62, whose floor is the
   remainder r (Lemire, Kaser and Kurz, "Faster remainder by direct
   computation", 2019).  Magnitude 1 (m would be 2^64) is its own case;
   the signs are C's (a quotient truncated towards zero, a remainder of
   the dividend's sign), as rt_div_i's and rt_rem_i's. */
typedef struct RtDivisor {
  int32_t d;    /* the divisor itself (0: each use fails) */
  uint32_t mag; /* its magnitude */
  uint64_t m;   /* ceil(2^64 / mag) where mag >= 2, else 0 */
} RtDivisor;

RT_FN RtDivisor rt_divisor(int32_t d) {
  uint32_t mag = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
  RtDivisor v = {d, mag, mag >= 2 ? UINT64_MAX / mag + 1 : 0};
  return v;
}

/* floor(x y / 2^64), in 64-bit halves */
RT_FN uint64_t rt_mulhi_64_32(uint64_t x, uint32_t y) {
  uint64_t lo = (x & 0xffffffffu) * y, hi = (x >> 32) * y;
  return (hi + (lo >> 32)) >> 32;
}

/* rt_div_i(a, v.d, err) */
RT_FN int32_t rt_div_by(int32_t a, RtDivisor v, int *err) {
  if (v.d == 0) {
    *err = RT_E_DIV_ZERO;
    return 0;
  }
  uint32_t ua = a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
  uint32_t q = v.mag == 1 ? ua : (uint32_t)rt_mulhi_64_32(v.m, ua);
  return (a < 0) != (v.d < 0) ? rt_wrap(0u - q) : rt_wrap(q); /* min_int / -1 wraps */
}

/* rt_rem_i(a, v.d, err) */
RT_FN int32_t rt_rem_by(int32_t a, RtDivisor v, int *err) {
  if (v.d == 0) {
    *err = RT_E_DIV_ZERO;
    return 0;
  }
  uint32_t ua = a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
  uint32_t r = v.mag == 1 ? 0u : (uint32_t)rt_mulhi_64_32(v.m * ua, v.mag);
  return a < 0 ? rt_wrap(0u - r) : rt_wrap(r);
}

RT_FN int32_t rt_neg_i(int32_t a) { return rt_wrap(0u - (uint32_t)a); }
RT_FN int32_t rt_recip_i(int32_t a, int *err) {
  if (a == 0) {
    *err = RT_E_DIV_ZERO;
    return 0;
  }
  return 1 / a;
}
/* x ^ n by repeated squaring, wrapping */
RT_FN int32_t rt_pow_i(int32_t x, int32_t n, int *err) {
  if (n < 0) {
    *err = RT_E_NEG_EXPONENT;
    return 0;
  }
  uint32_t base = (uint32_t)x, acc = 1;
  for (uint32_t bits = (uint32_t)n; bits; bits >>= 1) {
    if (bits & 1)
      acc *= base;
    base *= base;
  }
  return rt_wrap(acc);
}

RT_FN double rt_add_f(double a, double b) { return a + b; }
RT_FN double rt_sub_f(double a, double b) { return a - b; }
RT_FN double rt_mul_f(double a, double b) { return rt_mul_rn(a, b); }
/* NESL's check is zerop(d): a NaN divisor divides */
RT_FN double rt_div_f(double a, double b, int *err) {
  if (b == 0.0) {
    *err = RT_E_DIV_ZERO;
    return 0.0;
  }
  return a / b;
}
RT_FN double rt_neg_f(double a) { return -a; }
RT_FN double rt_recip_f(double a, int *err) {
  if (a == 0.0) {
    *err = RT_E_DIV_ZERO;
    return 0.0;
  }
  return 1.0 / a;
}
/* x ^ n as NESL's power-internal computes it, so that the products round
   as its do: x ^ n = v * v, or x * (v * v) for an odd n, v = x ^ (n / 2);
   here from the exponent's highest bit down */
RT_FN double rt_pow_f(double x, int32_t n, int *err) {
  if (n < 0) {
    *err = RT_E_NEG_EXPONENT;
    return 0.0;
  }
  if (n == 0)
    return 1.0;
  int top = 30;
  while (!((n >> top) & 1))
    top--;
  double r = x;
  for (int bit = top - 1; bit >= 0; bit--) {
    r = rt_mul_rn(r, r);
    if ((n >> bit) & 1)
      r = rt_mul_rn(x, r);
  }
  return r;
}

/* ---- comparisons: characters by their unsigned codes ---- */

#define RT_COMPARE(name, op)                                                                                     \
  RT_FN uint8_t rt_##name##_i(int32_t a, int32_t b) { return a op b; }                                         \
  RT_FN uint8_t rt_##name##_f(double a, double b) { return a op b; }                                           \
  RT_FN uint8_t rt_##name##_b(uint8_t a, uint8_t b) { return a op b; }                                         \
  RT_FN uint8_t rt_##name##_c(char a, char b) { return (unsigned char)a op(unsigned char) b; }
RT_COMPARE(eq, ==)
RT_COMPARE(ne, !=)
RT_COMPARE(lt, <)
RT_COMPARE(gt, >)
RT_COMPARE(le, <=)
RT_COMPARE(ge, >=)
#undef RT_COMPARE

/* ---- logic: logical on bools, bitwise on ints ---- */

RT_FN uint8_t rt_not_b(uint8_t a) { return !a; }
RT_FN uint8_t rt_and_b(uint8_t a, uint8_t b) { return a && b; }
RT_FN uint8_t rt_or_b(uint8_t a, uint8_t b) { return a || b; }
RT_FN uint8_t rt_xor_b(uint8_t a, uint8_t b) { return (a != 0) != (b != 0); }
RT_FN int32_t rt_not_i(int32_t a) { return ~a; }
RT_FN int32_t rt_and_i(int32_t a, int32_t b) { return a & b; }
RT_FN int32_t rt_or_i(int32_t a, int32_t b) { return a | b; }
RT_FN int32_t rt_xor_i(int32_t a, int32_t b) { return a ^ b; }
/* shifts by 32 or more give 0 (or -1, right, for a negative x); by a
   negative amount 0 */
RT_FN int32_t rt_lshift_i(int32_t x, int32_t n) { return n < 0 || n >= 32 ? 0 : rt_wrap((uint32_t)x << n); }
RT_FN int32_t rt_rshift_i(int32_t x, int32_t n) {
  if (n < 0)
    return 0;
  if (n >= 32)
    return x < 0 ? -1 : 0;
  return x < 0 ? ~(~x >> n) : x >> n; /* arithmetic, defined for negative x */
}

/* ---- floating point ---- */

/* NESL's checks are minusp(x): a NaN, -0.0 and, for ln, 0 pass (ln 0 is
   -infinity) */
RT_FN double rt_sqrt_f(double x, int *err) {
  if (x < 0) {
    *err = RT_E_SQRT_NEG;
    return 0.0;
  }
  return sqrt(x);
}
RT_FN double rt_ln_f(double x, int *err) {
  if (x < 0) {
    *err = RT_E_LN_NEG;
    return 0.0;
  }
  return log(x);
}
RT_FN double rt_exp_f(double x) { return exp(x); }
RT_FN double rt_sin_f(double x) { return sin(x); }
RT_FN double rt_cos_f(double x) { return cos(x); }
RT_FN double rt_tan_f(double x) { return tan(x); }
RT_FN double rt_asin_f(double x) { return asin(x); }
RT_FN double rt_acos_f(double x) { return acos(x); }
RT_FN double rt_atan_f(double x) { return atan(x); }
RT_FN double rt_sinh_f(double x) { return sinh(x); }
RT_FN double rt_cosh_f(double x) { return cosh(x); }
RT_FN double rt_tanh_f(double x) { return tanh(x); }
/* NESL's expt(v, p) is exp(ln(v) * p), ln's check included: expt(0.0,
   0.0) is NaN, expt(-8.0, 1.0) fails */
RT_FN double rt_expt_f(double x, double y, int *err) {
  if (x < 0) {
    *err = RT_E_LN_NEG;
    return 0.0;
  }
  return exp(rt_mul_rn(log(x), y));
}

/* ---- conversions ---- */

RT_FN double rt_to_float_i(int32_t x) { return (double)x; }
/* A float as an int (trunc, floor, ceil, round): C's conversion where
   it is defined; out of the int range, infinite or NaN it is min_int,
   what x86's conversion gives CMU NESL (the device's would saturate) */
RT_FN int32_t rt_to_int(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0))
    return INT32_MIN;
  return (int32_t)v;
}
RT_FN int32_t rt_trunc_f(double x) { return rt_to_int(trunc(x)); }
RT_FN int32_t rt_floor_f(double x) { return rt_to_int(floor(x)); }
RT_FN int32_t rt_ceil_f(double x) { return rt_to_int(ceil(x)); }
/* NESL's round is (int)(x + 0.5): toward zero */
RT_FN int32_t rt_round_f(double x) { return rt_to_int(trunc(x + 0.5)); }
RT_FN int32_t rt_btoi_b(uint8_t b) { return b ? 1 : 0; }
RT_FN char rt_code_char_i(int32_t c, int *err) {
  if (c < 0 || c > 255) {
    *err = RT_E_NOT_CHAR;
    return 0;
  }
  return (char)(unsigned char)c;
}
RT_FN int32_t rt_char_code_c(char c) { return (unsigned char)c; }

/* ---- the checks of flattening and lowering ----
   A check stands for NESL's own argument check (a subscript in range,
   generators of equal lengths, a good range, partition counts that add
   up, a lifted dist's length not negative) or for a length that must fit
   an int (a lifted append's segments): its operands say whether it fails
   and what the message says.  One
   definition for every backend, so that each stops on the same inputs. */
typedef enum RtCheckKind {
  RT_CHECK_SUBSCRIPT, /* (i, len): 0 <= i < len */
  RT_CHECK_LENGTHS,   /* (a, b): a == b, an apply-to-each's generators */
  RT_CHECK_RANGE,     /* (start, end, stride): start <= end, stride > 0 */
  RT_CHECK_COUNTS,    /* (total, len): partition's counts add up */
  RT_CHECK_APPEND,    /* (a, b), two lengths: a + b, the length of a
                         lifted append's segment, fits an int; added in
                         64 bits, as rt_append_size does for one append */
  RT_CHECK_DIST,      /* (n): n >= 0, a lifted dist's length */
  RT_CHECK_REP,       /* (i, len): 0 <= i < len, rep(v, x, i) in place in a
                         sequence loop (flatten.c), in rep's words */
  RT_CHECK_READ,      /* (i, len): 0 <= i < len, an index of a lifted `->`
                         (s -> i inside an apply-to-each), in its words */
  RT_CHECK_WRITE,     /* (i, len): the same for a lifted `<-` */
  RT_CHECK_KINDS
} RtCheckKind;

/* Does check 'kind' pass on operands a, b, c? */
RT_FN int rt_check_ok(int kind, int64_t a, int64_t b, int64_t c) {
  switch (kind) {
  case RT_CHECK_SUBSCRIPT:
  case RT_CHECK_REP:
  case RT_CHECK_READ:
  case RT_CHECK_WRITE:
    return a >= 0 && a < b;
  case RT_CHECK_RANGE:
    return a <= b && c > 0;
  case RT_CHECK_APPEND:
    return a + b <= INT32_MAX;
  case RT_CHECK_DIST:
    return a >= 0;
  default: /* RT_CHECK_LENGTHS, RT_CHECK_COUNTS */
    return a == b;
  }
}

/* Does the vector whose length λcu's `size` statement computes fit an
   int (rt_range_size, rt_append_size: more elements are out of memory,
   a bad range is its own error)?  Computed in 64 bits.  The GPU
   target's host code asks first, so that only a size that fails waits
   for the device, whose errors come first. */
RT_FN int rt_range_size_ok(int32_t start, int32_t end, int32_t stride) {
  return start <= end && stride > 0 && ((int64_t)end - start + stride - 1) / stride <= INT32_MAX;
}
RT_FN int rt_append_size_ok(int64_t a, int64_t b) { return a + b <= INT32_MAX; }

/* How many operands check 'kind' takes. */
RT_FN int rt_check_arity(int kind) {
  switch (kind) {
  case RT_CHECK_RANGE:
    return 3;
  case RT_CHECK_DIST:
    return 1;
  default:
    return 2;
  }
}

/* ---- random numbers (lib-nesl/README.md, "Random numbers") ---- */

/* splitmix64's finalizer */
RT_FN uint64_t rt_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define RT_GOLDEN_GAMMA 0x9e3779b97f4a7c15ULL

/* The stream of execution 'e' of the RAND at 'site' after a seed whose
   state is 'state': element k then draws rt_rand_draw(stream, k). */
RT_FN uint64_t rt_rand_stream(uint64_t state, int site, uint64_t e) {
  return rt_mix64(state ^ rt_mix64((uint64_t)site * RT_GOLDEN_GAMMA + e));
}
RT_FN uint64_t rt_rand_draw(uint64_t stream, int64_t k) {
  return rt_mix64(stream + (uint64_t)(k + 1) * RT_GOLDEN_GAMMA);
}
/* in [0, bound), 0 for a bound <= 0 */
RT_FN int32_t rt_rand_below_i(uint64_t bits, int32_t bound) {
  return bound <= 0 ? 0 : (int32_t)(bits % (uint64_t)bound);
}
/* 53 random bits give a double in [0, 1) */
RT_FN double rt_rand_below_f(uint64_t bits, double bound) {
  return (double)(bits >> 11) * (1.0 / 9007199254740992.0) * bound;
}

/* NESL's hash(a, l), the numbers CMU NESL 3.1 gives (issue 37): an int
   is itself, a bool 0 or 1, a char its code, a float rt_nesl_hash_float;
   a sequence the int32 sum of its elements' hashes times j^3, j = i +
   991892313 for element i; a pair h(a) + 991892311 * h(b); a datatype
   value its fields'.  All arithmetic wraps as NESL's 32-bit ints do;
   hash(a, l) is the hash's low 31 bits modulo l.  These are the pieces;
   eval/value.c and rt/structured.c walk the values with them. */
static const uint32_t RT_NESL_HASH_ELEM = 991892313u, RT_NESL_HASH_PAIR = 991892311u;

/* A float's: 0 for 0, else |a| scaled to 30 bits less its binary
   exponent, computed as NESL's library does, with its log(a, 2.0) =
   ln a / ln 2 and 2.0 ^ x = exp(x ln 2), both truncated toward zero (so
   hash(1.0, l) is 2^30 - 1 modulo l, not 2^30).  Not finite: 0. */
RT_FN int32_t rt_nesl_hash_float(double a) {
  if (a == 0.0 || !isfinite(a))
    return 0;
  a = fabs(a);
  double lg = trunc(log(a) / log(2.0));
  double sig = trunc(a / exp((lg - 30.0) * log(2.0)));
  return (int32_t)((uint32_t)(int64_t)sig - (uint32_t)(int64_t)lg);
}
/* element i's weight in a sequence's hash: j^3, j = i + 991892313 */
RT_FN uint32_t rt_nesl_hash_weight(int64_t i) {
  uint32_t j = (uint32_t)i + RT_NESL_HASH_ELEM;
  return j * j * j;
}
RT_FN int32_t rt_nesl_hash_pair(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + RT_NESL_HASH_PAIR * (uint32_t)b);
}
/* hash(a, l) of a's hash h, for l > 0 */
RT_FN int32_t rt_nesl_hash_in(int32_t h, int32_t l) { return (int32_t)(((uint32_t)h & 0x7fffffffu) % (uint32_t)l); }

#endif
