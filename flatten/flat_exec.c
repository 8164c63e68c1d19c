/*
 * flat_exec.c: the operations of the flat IR on run-time values, shared
 * by the interpreters that run them: the flat IR's (flat_interp.c),
 * which runs every statement through here, and λcu's (lcu/lcu_interp.c),
 * whose thunks apply the element-wise operations to their lanes and
 * whose host statements and library kernels are flat operations.
 *
 * Every operation works on whole vectors at once, with loops in C over
 * the flat arrays of FlatValue (flat.h); nested NESL values are never
 * rebuilt to run an operation.  The one exception is HOST_PRIM, the
 * escape to the text and I/O primitives of eval/io.c: its arguments
 * become eval Values, the primitive runs once (or once per element, in
 * order, when lifted), and the result is spread back over components.
 * The semantics of each operation, errors included, are those of the
 * primitive in eval/prims.c that it implements, so that a flattened
 * program prints what the source evaluator prints.
 *
 * Errors go through the source evaluator's ev_error, after telling it
 * where the error stands (ev_set_error_context).  A FlatExec holds that
 * context: the interpreter that runs the operations works it out once
 * per call it makes (flat_call_context) and points the FlatExec at it,
 * so that reporting an error never walks the interpreter's frames.
 *
 * The transcript of a top-level statement (`name = VALUE : TYPE` and the
 * rest) is here too: the interpreters differ only in how they run a
 * block and where they keep the globals it defines.
 */
#include <math.h>
#include <string.h>

#include "flat.h"

/* ---- the state the operations need ---- */

struct FlatExec {
  Eval *ev;
  const FlatErrorContext *context; /* the running code's; NULL: the top
                                      level statement's own */
  const char *prim;                /* see flat_exec_elementwise */
  uint64_t *rand_runs;             /* by RAND site: executions so far */
  int rand_cap;
};

FlatExec *flat_exec_new(Eval *ev) {
  FlatExec *ex = NEW(FlatExec);
  ex->ev = ev;
  return ex;
}

void flat_exec_set_context(FlatExec *ex, const FlatErrorContext *c) { ex->context = c; }

const FlatErrorContext *flat_exec_context(FlatExec *ex) { return ex->context; }

/* The context the evaluator would have inside a call: the library
   function the user's code entered stays the one named, the innermost
   user function is the callee unless it is the library's, and the place
   in the statement is that of the outermost user call. */
FlatErrorContext flat_call_context(const FlatErrorContext *caller, const char *callee, bool library, Loc call) {
  static const FlatErrorContext top = {NULL, {NULL, 0, 0}, NULL, {NULL, 0, 0}};
  if (!caller)
    caller = &top;
  FlatErrorContext c = {NULL, no_loc, NULL, no_loc};
  if (caller->lib_fn) {
    c.lib_fn = caller->lib_fn;
    c.lib_call = caller->lib_call;
  } else if (library) {
    c.lib_fn = callee;
    c.lib_call = call;
  }
  c.user_fn = library ? caller->user_fn : callee;
  c.stmt_loc = caller->user_fn || library ? caller->stmt_loc : call;
  return c;
}

/* True inside library code (the context names a library function). */
static bool in_library_code(FlatExec *ex) { return ex->context && ex->context->lib_fn; }

/* Tells the evaluator where an error at 'loc' stands.  'prim' is the
   library primitive the operation implements, named as the evaluator
   names it: used when the operation is in the user's own code, where the
   evaluator would have entered that primitive (NULL: the evaluator
   reports such an error without naming a function, as it does for
   subscripts and ranges). */
static void set_error_context(FlatExec *ex, Loc loc, const char *prim) {
  const FlatErrorContext *c = ex->context;
  const char *lib_fn = NULL;
  Loc user_loc = loc;
  if (c && c->lib_fn) {
    lib_fn = c->lib_fn;
    user_loc = c->lib_call;
  } else if (prim) {
    lib_fn = prim;
  }
  ev_set_error_context(ex->ev, lib_fn, user_loc, c ? c->user_fn : NULL, c ? c->stmt_loc : no_loc);
}

static _Noreturn void vfail(FlatExec *ex, Loc loc, const char *prim, const char *fmt, va_list ap) {
  char *msg = xvprintf(fmt, ap);
  if (ex->prim && prim)
    prim = ex->prim;
  ex->prim = NULL;
  set_error_context(ex, loc, prim);
  ev_error(ex->ev, loc, "%s", msg);
}

void flat_exec_fail(FlatExec *ex, Loc loc, const char *prim, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(ex, loc, prim, fmt, ap);
}

/* Stops the statement with a run-time error at 'loc'. */
_Noreturn __attribute__((format(printf, 4, 5))) static void fail_at(FlatExec *ex, Loc loc, const char *prim,
                                                                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(ex, loc, prim, fmt, ap);
}

/* fail_at the location of statement 's' */
#define fail(ex, s, ...) fail_at((ex), (s)->loc, __VA_ARGS__)

void flat_exec_check_stack(FlatExec *ex, Loc call) {
  /* the evaluator stops deep recursion at the call, in the caller's
     context: so do the interpreters */
  if (ev_stack_exhausted())
    fail_at(ex, call, NULL, "recursion too deep: the interpreter's stack is exhausted");
}

void flat_exec_fail_undefined(FlatExec *ex, Loc loc, const char *name) {
  fail_at(ex, loc, NULL, "'%s' has no value: its definition stopped with an error", name);
}

/* The executions of the RAND at 'site' so far, counting this one. */
static uint64_t rand_execution(FlatExec *ex, int site) {
  if (site < 0)
    die("rand at site %d", site);
  if (site >= ex->rand_cap) {
    int cap = ex->rand_cap ? ex->rand_cap : 64;
    while (cap <= site)
      cap *= 2;
    uint64_t *runs = xmalloc_atomic(sizeof(uint64_t) * (size_t)cap);
    memset(runs, 0, sizeof(uint64_t) * (size_t)cap);
    if (ex->rand_cap)
      memcpy(runs, ex->rand_runs, sizeof(uint64_t) * (size_t)ex->rand_cap);
    ex->rand_runs = runs;
    ex->rand_cap = cap;
  }
  return ex->rand_runs[site]++;
}

static void rand_restart(FlatExec *ex) {
  if (ex->rand_cap)
    memset(ex->rand_runs, 0, sizeof(uint64_t) * (size_t)ex->rand_cap);
}

/* ---- helpers for the operations ---- */

static FlatValue *new_vec(FlatBase b, int64_t n) { return flat_value_new(flat_vec(b), n); }

static void need(FlatValue *v, FlatTypeKind kind, const FlatStmt *s) {
  if (v->type.kind != kind)
    die("%s: an argument is a %s", flat_op_name(s->op), flat_type_name(v->type));
}

static size_t elem_size(FlatBase b) {
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
  die("elem_size: base %d", (int)b);
}

/* Element 'k' of 'v' as a double: an exact key for ordering every base
   type (ints and chars fit a double's mantissa; chars order unsigned, as
   in prims.c). */
static double key_at(const FlatValue *v, int64_t k) {
  switch (v->type.base) {
  case FB_INT:
    return v->data.i[k];
  case FB_FLOAT:
    return v->data.f[k];
  case FB_BOOL:
    return v->data.b[k];
  case FB_CHAR:
    return (unsigned char)v->data.c[k];
  }
  die("key_at: base %d", (int)v->type.base);
}

static int32_t wrap(uint32_t x) { return (int32_t)x; }

/* 'x', or the error of a primitive whose result is not finite (NESL has
   no infinities or NaN): 'op' as prims.c's check_float names it. */
static double finite(FlatExec *ex, const FlatStmt *s, const char *prim, const char *op, double x) {
  if (!isfinite(x))
    fail(ex, s, prim, "%s: the result is not a finite number (NESL has no infinities or NaN)", op);
  return x;
}

/* ---- element-wise arithmetic ---- */

static void run_arith(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  if (x->type.base == FB_INT) {
    const int32_t *a = x->data.i, *b = y->data.i;
    int32_t *o = r->data.i;
    switch (s->op) {
    case FLAT_ADD:
      for (int64_t k = 0; k < n; k++)
        o[k] = wrap((uint32_t)a[k] + (uint32_t)b[k]);
      return;
    case FLAT_SUB:
      for (int64_t k = 0; k < n; k++)
        o[k] = wrap((uint32_t)a[k] - (uint32_t)b[k]);
      return;
    case FLAT_MUL:
      for (int64_t k = 0; k < n; k++)
        o[k] = wrap((uint32_t)a[k] * (uint32_t)b[k]);
      return;
    case FLAT_DIV:
      for (int64_t k = 0; k < n; k++) {
        if (b[k] == 0)
          fail(ex, s, "__div", "/: division by zero");
        o[k] = a[k] == INT32_MIN && b[k] == -1 ? INT32_MIN : a[k] / b[k]; /* wraps */
      }
      return;
    case FLAT_REM:
      for (int64_t k = 0; k < n; k++) {
        if (b[k] == 0)
          fail(ex, s, "rem", "rem: division by zero");
        o[k] = b[k] == -1 ? 0 : a[k] % b[k];
      }
      return;
    default:
      break;
    }
  } else if (x->type.base == FB_FLOAT) {
    const double *a = x->data.f, *b = y->data.f;
    double *o = r->data.f;
    switch (s->op) {
    case FLAT_ADD:
      for (int64_t k = 0; k < n; k++)
        o[k] = finite(ex, s, "__add", "+", a[k] + b[k]);
      return;
    case FLAT_SUB:
      for (int64_t k = 0; k < n; k++)
        o[k] = finite(ex, s, "__sub", "-", a[k] - b[k]);
      return;
    case FLAT_MUL:
      for (int64_t k = 0; k < n; k++)
        o[k] = finite(ex, s, "__mul", "*", a[k] * b[k]);
      return;
    case FLAT_DIV:
      for (int64_t k = 0; k < n; k++) {
        if (b[k] == 0.0)
          fail(ex, s, "__div", "/: division by zero");
        o[k] = finite(ex, s, "__div", "/", a[k] / b[k]);
      }
      return;
    default:
      break;
    }
  }
  die("%s on a %s", flat_op_name(s->op), flat_type_name(x->type));
}

static void run_unary_number(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *r, int64_t n) {
  if (x->type.base == FB_INT) {
    const int32_t *a = x->data.i;
    int32_t *o = r->data.i;
    for (int64_t k = 0; k < n; k++) {
      if (s->op == FLAT_NEG) {
        o[k] = wrap(0u - (uint32_t)a[k]);
      } else {
        if (a[k] == 0)
          fail(ex, s, "reciprocal", "reciprocal: division by zero");
        o[k] = 1 / a[k];
      }
    }
    return;
  }
  if (x->type.base != FB_FLOAT)
    die("%s on a %s", flat_op_name(s->op), flat_type_name(x->type));
  const double *a = x->data.f;
  double *o = r->data.f;
  for (int64_t k = 0; k < n; k++) {
    if (s->op == FLAT_NEG) {
      o[k] = -a[k];
    } else {
      if (a[k] == 0.0)
        fail(ex, s, "reciprocal", "reciprocal: division by zero");
      o[k] = finite(ex, s, "reciprocal", "reciprocal", 1.0 / a[k]);
    }
  }
}

/* x ^ n, n an int: repeated squaring for ints (wrapping), as prims.c. */
static void run_pow(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  const int32_t *e = y->data.i;
  if (x->type.base == FB_INT) {
    const int32_t *a = x->data.i;
    for (int64_t k = 0; k < n; k++) {
      if (e[k] < 0)
        fail(ex, s, "__pow", "^: negative exponent %d for an int", e[k]);
      uint32_t base = (uint32_t)a[k], acc = 1;
      for (uint32_t bits = (uint32_t)e[k]; bits; bits >>= 1) {
        if (bits & 1)
          acc *= base;
        base *= base;
      }
      r->data.i[k] = wrap(acc);
    }
    return;
  }
  for (int64_t k = 0; k < n; k++)
    r->data.f[k] = finite(ex, s, "__pow", "^", pow(x->data.f[k], (double)e[k]));
}

/* ---- comparison and logic ---- */

#define COMPARE_LOOP(T, CAST)                                                                            \
  do {                                                                                                   \
    const T *a = (const T *)x->data.any, *b = (const T *)y->data.any;                                    \
    switch (s->op) {                                                                                     \
    case FLAT_EQ:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) == (CAST b[k]);                                                               \
      return;                                                                                            \
    case FLAT_NE:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) != (CAST b[k]);                                                               \
      return;                                                                                            \
    case FLAT_LT:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) < (CAST b[k]);                                                                \
      return;                                                                                            \
    case FLAT_GT:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) > (CAST b[k]);                                                                \
      return;                                                                                            \
    case FLAT_LE:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) <= (CAST b[k]);                                                               \
      return;                                                                                            \
    case FLAT_GE:                                                                                        \
      for (int64_t k = 0; k < n; k++)                                                                    \
        o[k] = (CAST a[k]) >= (CAST b[k]);                                                               \
      return;                                                                                            \
    default:                                                                                             \
      break;                                                                                             \
    }                                                                                                    \
  } while (0)

static void run_compare(const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  uint8_t *o = r->data.b;
  switch (x->type.base) {
  case FB_INT:
    COMPARE_LOOP(int32_t, );
    break;
  case FB_FLOAT:
    COMPARE_LOOP(double, );
    break;
  case FB_BOOL:
    COMPARE_LOOP(uint8_t, );
    break;
  case FB_CHAR: /* characters order by their unsigned codes */
    COMPARE_LOOP(char, (unsigned char));
    break;
  }
  die("%s on a %s", flat_op_name(s->op), flat_type_name(x->type));
}

/* not, and, or, xor: logical on bools, bitwise on ints. */
static void run_logic(const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  if (x->type.base == FB_BOOL) {
    const uint8_t *a = x->data.b, *b = y ? y->data.b : NULL;
    uint8_t *o = r->data.b;
    for (int64_t k = 0; k < n; k++)
      switch (s->op) {
      case FLAT_NOT:
        o[k] = !a[k];
        break;
      case FLAT_AND:
        o[k] = a[k] && b[k];
        break;
      case FLAT_OR:
        o[k] = a[k] || b[k];
        break;
      default:
        o[k] = (a[k] != 0) != (b[k] != 0);
        break;
      }
    return;
  }
  if (x->type.base != FB_INT)
    die("%s on a %s", flat_op_name(s->op), flat_type_name(x->type));
  const int32_t *a = x->data.i, *b = y ? y->data.i : NULL;
  int32_t *o = r->data.i;
  for (int64_t k = 0; k < n; k++)
    switch (s->op) {
    case FLAT_NOT:
      o[k] = ~a[k];
      break;
    case FLAT_AND:
      o[k] = a[k] & b[k];
      break;
    case FLAT_OR:
      o[k] = a[k] | b[k];
      break;
    default:
      o[k] = a[k] ^ b[k];
      break;
    }
}

static void run_shift(const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  const int32_t *a = x->data.i, *b = y->data.i;
  int32_t *o = r->data.i;
  for (int64_t k = 0; k < n; k++) {
    int32_t v = a[k], sh = b[k];
    if (s->op == FLAT_LSHIFT)
      o[k] = sh < 0 || sh >= 32 ? 0 : wrap((uint32_t)v << sh);
    else if (sh < 0)
      o[k] = 0;
    else if (sh >= 32)
      o[k] = v < 0 ? -1 : 0;
    else /* arithmetic shift, defined for negative v */
      o[k] = v < 0 ? ~(~v >> sh) : v >> sh;
  }
}

/* ---- floating point and conversions ---- */

static void run_float_fn(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *y, FlatValue *r, int64_t n) {
  const double *a = x->data.f;
  double *o = r->data.f;
  double (*fn)(double) = NULL;
  const char *name = flat_op_name(s->op);
  switch (s->op) {
  case FLAT_SQRT:
    for (int64_t k = 0; k < n; k++) {
      if (a[k] < 0)
        fail(ex, s, "sqrt", "sqrt of a negative number (%g)", a[k]);
      o[k] = sqrt(a[k]);
    }
    return;
  case FLAT_LN:
    for (int64_t k = 0; k < n; k++) {
      if (a[k] <= 0)
        fail(ex, s, "ln", "ln of a number that is not positive (%g)", a[k]);
      o[k] = finite(ex, s, "ln", "ln", log(a[k]));
    }
    return;
  case FLAT_EXPT:
    for (int64_t k = 0; k < n; k++)
      o[k] = finite(ex, s, "expt", "expt", pow(a[k], y->data.f[k]));
    return;
  case FLAT_EXP:
    fn = exp;
    break;
  case FLAT_SIN:
    fn = sin;
    break;
  case FLAT_COS:
    fn = cos;
    break;
  case FLAT_TAN:
    fn = tan;
    break;
  case FLAT_ASIN:
    fn = asin;
    break;
  case FLAT_ACOS:
    fn = acos;
    break;
  case FLAT_ATAN:
    fn = atan;
    break;
  case FLAT_SINH:
    fn = sinh;
    break;
  case FLAT_COSH:
    fn = cosh;
    break;
  case FLAT_TANH:
    fn = tanh;
    break;
  default:
    die("run_float_fn: %s", name);
  }
  /* the operation's printed name is the primitive's name (flat_ops.def) */
  for (int64_t k = 0; k < n; k++)
    o[k] = finite(ex, s, name, name, fn(a[k]));
}

static void run_convert(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *r, int64_t n) {
  const char *name = flat_op_name(s->op);
  switch (s->op) {
  case FLAT_TO_FLOAT:
    for (int64_t k = 0; k < n; k++)
      r->data.f[k] = (double)x->data.i[k];
    return;
  case FLAT_TRUNC:
  case FLAT_FLOOR:
  case FLAT_CEIL:
  case FLAT_ROUND:
    for (int64_t k = 0; k < n; k++) {
      double v = x->data.f[k];
      v = s->op == FLAT_TRUNC ? trunc(v) : s->op == FLAT_FLOOR ? floor(v) : s->op == FLAT_CEIL ? ceil(v)
                                                                                               : trunc(v + 0.5);
      if (!(v > -2147483649.0 && v < 2147483648.0))
        fail(ex, s, name, "%s: %g does not fit in an int", name, v);
      r->data.i[k] = (int32_t)v;
    }
    return;
  case FLAT_BTOI:
    for (int64_t k = 0; k < n; k++)
      r->data.i[k] = x->data.b[k] ? 1 : 0;
    return;
  case FLAT_CODE_CHAR:
    for (int64_t k = 0; k < n; k++) {
      int32_t c = x->data.i[k];
      if (c < 0 || c > 255)
        fail(ex, s, "code_char", "code_char: %d is not a character code (0 to 255)", c);
      r->data.c[k] = (char)(unsigned char)c;
    }
    return;
  case FLAT_CHAR_CODE:
    for (int64_t k = 0; k < n; k++)
      r->data.i[k] = (unsigned char)x->data.c[k];
    return;
  default:
    die("run_convert: %s", name);
  }
}

/* ---- random numbers (lib-nesl/README.md, "Random numbers") ---- */

/* splitmix64's finalizer, as eval.c's generator uses it */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static const uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

/* Element k of execution e of the RAND at 'site' draws
     mix64(mix64(state ^ mix64(site * gamma + e)) + (k + 1) * gamma)
   where state is the seed's state (ev_rand_state).  Numbering draws by
   site, execution and element, not by a global count, lets every
   backend draw the same numbers whatever order it computes them in. */
static void run_rand(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *r, int64_t n) {
  uint64_t e = rand_execution(ex, s->site);
  uint64_t stream = mix64(ev_rand_state(ex->ev) ^ mix64((uint64_t)s->site * golden_gamma + e));
  for (int64_t k = 0; k < n; k++) {
    uint64_t bits = mix64(stream + (uint64_t)(k + 1) * golden_gamma);
    if (x->type.base == FB_INT) {
      int32_t bound = x->data.i[k];
      r->data.i[k] = bound <= 0 ? 0 : (int32_t)(bits % (uint64_t)bound);
    } else {
      /* 53 random bits give a double in [0, 1) */
      r->data.f[k] = (double)(bits >> 11) * (1.0 / 9007199254740992.0) * x->data.f[k];
    }
  }
}

/* ---- the element-wise dispatcher ---- */

/* The type of the result of element-wise operation s->op on 'a': all
   scalars, or vectors all of one length (the flattener never mixes them:
   anything else is a bug). */
static FlatType elementwise_type(const FlatStmt *s, FlatValue **a, int nargs) {
  FlatTypeKind kind = a[0]->type.kind;
  int64_t n = a[0]->len;
  if (kind != FT_SCALAR && kind != FT_VEC)
    die("%s: element-wise on a %s", flat_op_name(s->op), flat_type_name(a[0]->type));
  for (int i = 1; i < nargs; i++)
    if (a[i]->type.kind != kind || a[i]->len != n)
      die("%s: arguments of different kinds or lengths (%s of %lld, %s of %lld)", flat_op_name(s->op),
          flat_type_name(a[0]->type), (long long)n, flat_type_name(a[i]->type), (long long)a[i]->len);
  FlatBase rb = a[0]->type.base;
  switch (s->op) {
  case FLAT_EQ:
  case FLAT_NE:
  case FLAT_LT:
  case FLAT_GT:
  case FLAT_LE:
  case FLAT_GE:
    rb = FB_BOOL;
    break;
  case FLAT_TO_FLOAT:
    rb = FB_FLOAT;
    break;
  case FLAT_TRUNC:
  case FLAT_FLOOR:
  case FLAT_CEIL:
  case FLAT_ROUND:
  case FLAT_BTOI:
  case FLAT_CHAR_CODE:
    rb = FB_INT;
    break;
  case FLAT_CODE_CHAR:
    rb = FB_CHAR;
    break;
  case FLAT_SELECT:
    rb = a[1]->type.base;
    break;
  default:
    break;
  }
  return (FlatType){kind, rb};
}

/* The element-wise operation s->op on 'a' into 'r', a value of the
   result's type (elementwise_type) and length. */
static void run_elementwise_into(FlatExec *ex, const FlatStmt *s, FlatValue **a, int nargs, FlatValue *r) {
  int64_t n = a[0]->len;
  FlatValue *x = a[0], *y = nargs > 1 ? a[1] : NULL;
  FlatBase rb = r->type.base;
  switch (s->op) {
  case FLAT_ADD:
  case FLAT_SUB:
  case FLAT_MUL:
  case FLAT_DIV:
  case FLAT_REM:
    run_arith(ex, s, x, y, r, n);
    break;
  case FLAT_NEG:
  case FLAT_RECIP:
    run_unary_number(ex, s, x, r, n);
    break;
  case FLAT_POW:
    run_pow(ex, s, x, y, r, n);
    break;
  case FLAT_EQ:
  case FLAT_NE:
  case FLAT_LT:
  case FLAT_GT:
  case FLAT_LE:
  case FLAT_GE:
    run_compare(s, x, y, r, n);
    break;
  case FLAT_NOT:
  case FLAT_AND:
  case FLAT_OR:
  case FLAT_XOR:
    run_logic(s, x, y, r, n);
    break;
  case FLAT_LSHIFT:
  case FLAT_RSHIFT:
    run_shift(s, x, y, r, n);
    break;
  case FLAT_SQRT:
  case FLAT_LN:
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
  case FLAT_EXPT:
    run_float_fn(ex, s, x, y, r, n);
    break;
  case FLAT_TO_FLOAT:
  case FLAT_TRUNC:
  case FLAT_FLOOR:
  case FLAT_CEIL:
  case FLAT_ROUND:
  case FLAT_BTOI:
  case FLAT_CODE_CHAR:
  case FLAT_CHAR_CODE:
    run_convert(ex, s, x, r, n);
    break;
  case FLAT_SELECT: {
    size_t size = elem_size(rb);
    const uint8_t *flags = x->data.b;
    const char *then = y->data.any, *els = a[2]->data.any;
    char *o = r->data.any;
    if (a[2]->type.base != rb)
      die("select: branches of different types");
    for (int64_t k = 0; k < n; k++)
      memcpy(o + (size_t)k * size, (flags[k] ? then : els) + (size_t)k * size, size);
    break;
  }
  case FLAT_ZERO:
    /* all-zero bytes are 0, 0.0, F and the character of code 0 */
    memset(r->data.any, 0, elem_size(rb) * (size_t)n);
    break;
  case FLAT_RAND:
    run_rand(ex, s, x, r, n);
    break;
  default:
    die("run_elementwise: %s", flat_op_name(s->op));
  }
}

static FlatValue *run_elementwise(FlatExec *ex, const FlatStmt *s, FlatValue **a, int nargs) {
  FlatValue *r = flat_value_new(elementwise_type(s, a, nargs), a[0]->len);
  run_elementwise_into(ex, s, a, nargs, r);
  return r;
}

/* ---- scans and reductions, plain and segmented ---- */

typedef enum Combine { C_ADD, C_MUL, C_MAX, C_MIN, C_AND, C_OR, C_XOR } Combine;

static Combine combine_of(FlatOp op) {
  switch (op) {
  case FLAT_REDUCE_ADD:
  case FLAT_SCAN_ADD:
  case FLAT_SEG_REDUCE_ADD:
  case FLAT_SEG_SCAN_ADD:
    return C_ADD;
  case FLAT_REDUCE_MUL:
  case FLAT_SCAN_MUL:
  case FLAT_SEG_REDUCE_MUL:
  case FLAT_SEG_SCAN_MUL:
    return C_MUL;
  case FLAT_REDUCE_MAX:
  case FLAT_SCAN_MAX:
  case FLAT_SEG_REDUCE_MAX:
  case FLAT_SEG_SCAN_MAX:
    return C_MAX;
  case FLAT_REDUCE_MIN:
  case FLAT_SCAN_MIN:
  case FLAT_SEG_REDUCE_MIN:
  case FLAT_SEG_SCAN_MIN:
    return C_MIN;
  case FLAT_REDUCE_AND:
  case FLAT_SCAN_AND:
  case FLAT_SEG_REDUCE_AND:
  case FLAT_SEG_SCAN_AND:
    return C_AND;
  case FLAT_REDUCE_OR:
  case FLAT_SCAN_OR:
  case FLAT_SEG_REDUCE_OR:
  case FLAT_SEG_SCAN_OR:
    return C_OR;
  default:
    return C_XOR;
  }
}

static bool is_scan(FlatOp op) {
  return (op >= FLAT_SCAN_ADD && op <= FLAT_SCAN_XOR) || (op >= FLAT_SEG_SCAN_ADD && op <= FLAT_SEG_SCAN_XOR);
}

/* The evaluator's name of the primitive, for errors in user code. */
static const char *combine_prim(Combine c, bool scan) {
  static const char *const reduce_names[] = {"__reduce_add", "__reduce_mul", "__reduce_max", "__reduce_min",
                                             "__reduce_and", "__reduce_or", "__reduce_xor"};
  static const char *const scan_names[] = {"__scan_add", "__scan_mul", "__scan_max", "__scan_min",
                                           "__scan_and", "__scan_or", "__scan_xor"};
  return scan ? scan_names[c] : reduce_names[c];
}

/* (float)1e36, NESL's float extreme (prims.c, identity) */
static const double float_extreme = 9.99999961690316e35;

static int32_t combine_int(Combine c, int32_t acc, int32_t x) {
  switch (c) {
  case C_ADD:
    return wrap((uint32_t)acc + (uint32_t)x);
  case C_MUL:
    return wrap((uint32_t)acc * (uint32_t)x);
  case C_MAX:
    return acc >= x ? acc : x;
  case C_MIN:
    return acc <= x ? acc : x;
  case C_AND:
    return acc & x;
  case C_OR:
    return acc | x;
  case C_XOR:
    return acc ^ x;
  }
  unreachable();
}

static int32_t identity_int(Combine c) {
  switch (c) {
  case C_MUL:
    return 1;
  case C_MAX:
    return INT32_MIN;
  case C_MIN:
    return INT32_MAX;
  case C_AND:
    return -1;
  default:
    return 0;
  }
}

/* Reduces each segment [off[k], off[k + 1]) of 'v' into out[k], or, for a
   scan, writes each element's exclusive prefix into out at its place:
   the combining steps and identities of prims.c, applied in order. */
static void combine_segments(FlatExec *ex, const FlatStmt *s, FlatValue *v, const int64_t *off, int64_t nseg,
                             FlatValue *out) {
  Combine c = combine_of(s->op);
  bool scan = is_scan(s->op);
  const char *prim = combine_prim(c, scan);
  switch (v->type.base) {
  case FB_INT:
    for (int64_t k = 0; k < nseg; k++) {
      int32_t acc = identity_int(c);
      for (int64_t j = off[k]; j < off[k + 1]; j++) {
        if (scan)
          out->data.i[j] = acc;
        acc = combine_int(c, acc, v->data.i[j]);
      }
      if (!scan)
        out->data.i[k] = acc;
    }
    return;
  case FB_FLOAT: {
    double id = c == C_ADD ? 0.0 : c == C_MUL ? 1.0 : c == C_MAX ? -float_extreme : float_extreme;
    if (c != C_ADD && c != C_MUL && c != C_MAX && c != C_MIN)
      break;
    for (int64_t k = 0; k < nseg; k++) {
      double acc = id;
      for (int64_t j = off[k]; j < off[k + 1]; j++) {
        double x = v->data.f[j];
        if (scan)
          out->data.f[j] = acc;
        switch (c) {
        case C_ADD:
          acc = finite(ex, s, prim, "+", acc + x);
          break;
        case C_MUL:
          acc = finite(ex, s, prim, "*", acc * x);
          break;
        case C_MAX:
          acc = acc >= x ? acc : x;
          break;
        default:
          acc = acc <= x ? acc : x;
          break;
        }
      }
      if (!scan)
        out->data.f[k] = acc;
    }
    return;
  }
  case FB_BOOL:
    if (c != C_AND && c != C_OR && c != C_XOR)
      break;
    for (int64_t k = 0; k < nseg; k++) {
      bool acc = c == C_AND;
      for (int64_t j = off[k]; j < off[k + 1]; j++) {
        bool x = v->data.b[j];
        if (scan)
          out->data.b[j] = acc;
        acc = c == C_AND ? acc && x : c == C_OR ? acc || x : acc != x;
      }
      if (!scan)
        out->data.b[k] = acc;
    }
    return;
  case FB_CHAR:
    if (c != C_MAX && c != C_MIN)
      break;
    for (int64_t k = 0; k < nseg; k++) {
      unsigned char acc = c == C_MAX ? 0 : 255;
      for (int64_t j = off[k]; j < off[k + 1]; j++) {
        unsigned char x = (unsigned char)v->data.c[j];
        if (scan)
          out->data.c[j] = (char)acc;
        acc = c == C_MAX ? (acc >= x ? acc : x) : (acc <= x ? acc : x);
      }
      if (!scan)
        out->data.c[k] = (char)acc;
    }
    return;
  }
  die("%s on a %s", flat_op_name(s->op), flat_type_name(v->type));
}

/* The whole of 'v' as one segment. */
static const int64_t *one_segment(int64_t n) {
  int64_t *off = xmalloc_atomic(2 * sizeof(int64_t));
  off[0] = 0;
  off[1] = n;
  return off;
}

/* For each segment, the index within it of the first greatest ('sign' 1)
   or least (-1) element; max_int for an empty segment. */
static void extreme_indices(FlatValue *v, const int64_t *off, int64_t nseg, int sign, int32_t *out) {
  for (int64_t k = 0; k < nseg; k++) {
    if (off[k] == off[k + 1]) {
      out[k] = INT32_MAX;
      continue;
    }
    int64_t best = off[k];
    double best_key = key_at(v, best);
    for (int64_t j = off[k] + 1; j < off[k + 1]; j++) {
      double key = key_at(v, j);
      if (sign > 0 ? key > best_key : key < best_key) {
        best = j;
        best_key = key;
      }
    }
    out[k] = (int32_t)(best - off[k]);
  }
}

/* Sorts idx[0 .. n) by keys[idx[.]], stably (a bottom-up merge sort). */
static void stable_sort(const double *keys, int64_t *idx, int64_t *tmp, int64_t n) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        tmp[o++] = keys[idx[j]] < keys[idx[i]] ? idx[j++] : idx[i++];
      while (i < mid)
        tmp[o++] = idx[i++];
      while (j < hi)
        tmp[o++] = idx[j++];
    }
    memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
  }
}

/* rank: where each element goes in the stable sort of its segment,
   ascending ('down' false) or descending. */
static void ranks(FlatValue *v, const int64_t *off, int64_t nseg, bool down, int32_t *out) {
  int64_t n = off[nseg];
  double *keys = xmalloc_atomic(sizeof(double) * (size_t)(n + 1));
  for (int64_t j = 0; j < n; j++)
    keys[j] = down ? -key_at(v, j) : key_at(v, j); /* -0.0 == 0.0: ties stay ties */
  int64_t *idx = xmalloc_atomic(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *tmp = xmalloc_atomic(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t j = 0; j < n; j++)
    idx[j] = j;
  for (int64_t k = 0; k < nseg; k++) {
    int64_t len = off[k + 1] - off[k];
    stable_sort(keys, idx + off[k], tmp + off[k], len);
    for (int64_t p = 0; p < len; p++)
      out[idx[off[k] + p]] = (int32_t)p;
  }
}

/* The number of components of H(t) (resp. V(t)), datatypes included. */
static int component_count(FlatExec *ex, Type *t, bool host) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    return 1;
  case T_PAIR:
    return component_count(ex, t->fst, host) + component_count(ex, t->snd, host);
  case T_SEQ:
    return (host ? 0 : 1) + component_count(ex, t->elem, false);
  case T_DATA:
    return component_count(ex, flat_data_fields(ex->ev, t), host);
  default:
    die("component_count: %s", type_value_to_string(t));
  }
}

/* ---- values of structured types: NAME, EQL, HASH ----
   A Column views the components of values of one NESL type (V(t), or
   H(t) as one value) as a tree that follows the type, so that the k-th
   value can be hashed and compared without building it. */

typedef struct Column {
  TypeKind kind;       /* T_INT .. T_CHAR, T_SEQ, T_PAIR */
  int data_wraps;      /* datatypes around this node: each one is a
                          V_DATA level for val_hash */
  FlatValue *vec;      /* base types: the values */
  const int64_t *off;  /* T_SEQ: where each value's elements start */
  struct Column *fst, *snd, *elem;
} Column;

typedef struct ColumnCursor {
  FlatValue **comps;
  int n, next;
} ColumnCursor;

static FlatValue *column_take(ColumnCursor *c) {
  if (c->next >= c->n)
    die("too few components for the element type");
  return c->comps[c->next++];
}

/* 'host': the components are H(t) of one value, not V(t). */
static Column *build_column(FlatExec *ex, Type *type, ColumnCursor *cur, bool host) {
  Type *t = type_resolve(type);
  int wraps = 0;
  while (t->kind == T_DATA) {
    t = type_resolve(flat_data_fields(ex->ev, t));
    wraps++;
  }
  Column *c = NEW(Column);
  c->kind = t->kind;
  c->data_wraps = wraps;
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    /* a scalar's data is an array of one element */
    c->vec = column_take(cur);
    if (c->vec->type.kind == FT_SEGDES || (c->vec->type.kind == FT_SCALAR) != host)
      die("a %s where the element type has a base type", flat_type_name(c->vec->type));
    return c;
  case T_PAIR:
    c->fst = build_column(ex, t->fst, cur, host);
    c->snd = build_column(ex, t->snd, cur, host);
    return c;
  case T_SEQ:
    if (host) {
      /* H([t]) has no segdes: the one sequence is all of V(t) */
      if (cur->next >= cur->n)
        die("too few components for the element type");
      c->off = one_segment(cur->comps[cur->next]->len);
    } else {
      FlatValue *d = column_take(cur);
      if (d->type.kind != FT_SEGDES)
        die("a %s where the element type has a sequence", flat_type_name(d->type));
      c->off = flat_seg_offsets(d);
    }
    c->elem = build_column(ex, t->elem, cur, false);
    return c;
  default:
    die("build_column: %s", type_value_to_string(t));
  }
}

static Column *columns_of(FlatExec *ex, Type *type, FlatValue **comps, int n, int *used, bool host) {
  ColumnCursor cur = {comps, n, 0};
  Column *c = build_column(ex, type, &cur, host);
  *used = cur.next;
  return c;
}

/* val_hash's mixing step (eval/value.c), so that hash agrees with the
   evaluator */
static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/* val_hash of value k of column 'c' */
static uint64_t column_hash(const Column *c, int64_t k) {
  uint64_t h = 0;
  switch (c->kind) {
  case T_INT:
    h = mix(1, (uint32_t)c->vec->data.i[k]);
    break;
  case T_FLOAT: {
    double f = c->vec->data.f[k] == 0.0 ? 0.0 : c->vec->data.f[k]; /* -0.0 equals 0.0 */
    uint64_t bits;
    memcpy(&bits, &f, sizeof bits);
    h = mix(2, bits);
    break;
  }
  case T_BOOL:
    h = mix(3, c->vec->data.b[k] != 0);
    break;
  case T_CHAR:
    h = mix(4, (unsigned char)c->vec->data.c[k]);
    break;
  case T_SEQ:
    h = mix(5, (uint64_t)(c->off[k + 1] - c->off[k]));
    for (int64_t j = c->off[k]; j < c->off[k + 1]; j++)
      h = mix(h, column_hash(c->elem, j));
    break;
  case T_PAIR:
    h = mix(mix(6, column_hash(c->fst, k)), column_hash(c->snd, k));
    break;
  default:
    unreachable();
  }
  for (int i = 0; i < c->data_wraps; i++)
    h = mix(7, h);
  return h;
}

/* val_equal of value i of 'a' and value j of 'b' (columns of one type) */
static bool column_equal(const Column *a, int64_t i, const Column *b, int64_t j) {
  switch (a->kind) {
  case T_INT:
    return a->vec->data.i[i] == b->vec->data.i[j];
  case T_FLOAT:
    return a->vec->data.f[i] == b->vec->data.f[j];
  case T_BOOL:
    return (a->vec->data.b[i] != 0) == (b->vec->data.b[j] != 0);
  case T_CHAR:
    return a->vec->data.c[i] == b->vec->data.c[j];
  case T_SEQ: {
    int64_t len = a->off[i + 1] - a->off[i];
    if (len != b->off[j + 1] - b->off[j])
      return false;
    for (int64_t p = 0; p < len; p++)
      if (!column_equal(a->elem, a->off[i] + p, b->elem, b->off[j] + p))
        return false;
    return true;
  }
  case T_PAIR:
    return column_equal(a->fst, i, b->fst, j) && column_equal(a->snd, i, b->snd, j);
  default:
    unreachable();
  }
}

/* The number of values a column of V(t) holds: its first component's. */
static int64_t column_count(FlatValue **comps, int n) {
  if (n == 0)
    die("no components");
  return comps[0]->len;
}

/* name: for each value, the index of the last occurrence of its value (in
   its segment, when 'seg' is given: the index within the segment).  A
   hash table keyed by value, filled from the end so that the first time
   a value is seen is its last occurrence (prims.c, p_name): O(n). */
static FlatValue *run_name(FlatExec *ex, const FlatStmt *s, FlatValue **a, int n) {
  /* the segmented form has one argument more than V(t), a segdes */
  int ncomps = component_count(ex, s->elem_type, false);
  FlatValue *seg = NULL;
  int first = 0;
  if (n == ncomps + 1 && a[0]->type.kind == FT_SEGDES) {
    seg = a[0];
    first = 1;
  } else if (n != ncomps) {
    die("name: %d arguments for the %d components of %s", n, ncomps, type_value_to_string(s->elem_type));
  }
  int used;
  Column *c = columns_of(ex, s->elem_type, a + first, n - first, &used, false);
  if (used != n - first)
    die("name: %d arguments for %d components", n, used + first);
  int64_t count = column_count(a + first, n - first);
  const int64_t *off = seg ? flat_seg_offsets(seg) : one_segment(count);
  int64_t nseg = seg ? seg->len : 1;
  if (off[nseg] != count)
    die("name: a segdes of %lld elements over %lld values", (long long)off[nseg], (long long)count);
  int32_t *ids = NULL;
  if (seg) {
    ids = xmalloc_atomic(sizeof(int32_t) * (size_t)(count + 1));
    for (int64_t k = 0; k < nseg; k++)
      for (int64_t j = off[k]; j < off[k + 1]; j++)
        ids[j] = (int32_t)k;
  }
  int64_t cap = 16;
  while (cap < 2 * count)
    cap *= 2;
  int64_t *table = xmalloc_atomic(sizeof(int64_t) * (size_t)cap);
  for (int64_t i = 0; i < cap; i++)
    table[i] = -1;
  FlatValue *r = new_vec(FB_INT, count);
  for (int64_t i = count - 1; i >= 0; i--) {
    uint64_t h = column_hash(c, i);
    if (seg)
      h = mix(h, (uint64_t)ids[i]);
    /* val_hash keeps runs of ints in runs of hashes: scrambled, values
       that differ by multiples of the table's size do not collide */
    h = mix64(h) & (uint64_t)(cap - 1);
    while (table[h] >= 0 && !((!seg || ids[table[h]] == ids[i]) && column_equal(c, table[h], c, i)))
      h = (h + 1) & (uint64_t)(cap - 1);
    if (table[h] < 0)
      table[h] = i;
    r->data.i[i] = (int32_t)(table[h] - (seg ? off[ids[i]] : 0));
  }
  return r;
}

static FlatValue *run_eql(FlatExec *ex, const FlatStmt *s, FlatValue **a, int n) {
  int used_a, used_b;
  bool host = !s->lifted;
  Column *x = columns_of(ex, s->elem_type, a, n, &used_a, host);
  Column *y = columns_of(ex, s->elem_type, a + used_a, n - used_a, &used_b, host);
  if (used_a + used_b != n)
    die("eql: %d arguments for 2 x %d components", n, used_a);
  if (host)
    return flat_value_bool(column_equal(x, 0, y, 0));
  int64_t count = column_count(a, used_a);
  if (column_count(a + used_a, used_b) != count)
    die("eql^: values of different lengths");
  FlatValue *r = new_vec(FB_BOOL, count);
  for (int64_t k = 0; k < count; k++)
    r->data.b[k] = column_equal(x, k, y, k);
  return r;
}

static FlatValue *run_hash(FlatExec *ex, const FlatStmt *s, FlatValue **a, int n) {
  int used;
  bool host = !s->lifted;
  Column *c = columns_of(ex, s->elem_type, a, n - 1, &used, host);
  FlatValue *range = a[n - 1];
  if (used != n - 1 || range->type.base != FB_INT || (range->type.kind == FT_SCALAR) != host)
    die("hash: arguments do not fit the element type");
  int64_t count = host ? 1 : column_count(a, used);
  if (range->len != count)
    die("hash^: %lld values but %lld ranges", (long long)count, (long long)range->len);
  FlatValue *r = flat_value_new((FlatType){host ? FT_SCALAR : FT_VEC, FB_INT}, count);
  for (int64_t k = 0; k < count; k++) {
    int32_t l = range->data.i[k];
    if (l <= 0)
      fail(ex, s, "hash", "hash: the range %d is not positive", l);
    r->data.i[k] = (int32_t)(column_hash(c, k) % (uint64_t)l);
  }
  return r;
}

/* ---- host primitives ---- */

/* Runs primitive s->prim of eval/io.c (or prims.c) on the value the
   arguments hold, or on each value of the vectors the arguments hold,
   in order; returns the components of the result(s). */
static Vec run_host_prim(FlatExec *ex, const FlatStmt *s, FlatValue **a, int n) {
  Type *arg_type = s->elem_type, *result_type = s->result_type;
  /* the primitive's instantiated type, for those that need it
     (write_object_to_file, read_object_from_file) */
  Type *fun = type_fun(arg_type, result_type);
  set_error_context(ex, s->loc, s->prim);
  Vec comps = {0};
  if (!s->lifted) {
    Value arg = flat_host_to_value(ex->ev, arg_type, NULL, a, n);
    Value r = ev_call_prim(ex->ev, s->prim, arg, s->loc, fun);
    flat_value_to_host(ex->ev, r, result_type, NULL, &comps);
  } else {
    Value args = flat_vector_to_value(ex->ev, arg_type, NULL, a, n);
    Value rs = val_seq_new(args.u.seq->len);
    for (int64_t k = 0; k < args.u.seq->len; k++)
      rs.u.seq->elems[k] = ev_call_prim(ex->ev, s->prim, args.u.seq->elems[k], s->loc, fun);
    flat_value_to_vector(ex->ev, rs, result_type, NULL, &comps);
  }
  /* a new seed starts the draws again (see run_rand): the same seed then
     gives the same numbers, as in the evaluator */
  if (strcmp(s->prim, "rand_seed") == 0)
    rand_restart(ex);
  return comps;
}

/* ---- vector operations ---- */

/* A subscript 'i' out of range for 'len' elements, in operation 'op'
   (GATHER, ELT or SCATTER). */
void flat_exec_index_error(FlatExec *ex, Loc loc, FlatOp op, int32_t i, int64_t len) {
  /* in the user's code a subscript is reported as the evaluator reports
     s[i] (eval.c, EX_INDEX); in the library as the primitive does */
  if (!in_library_code(ex) && (op == FLAT_ELT || op == FLAT_GATHER))
    fail_at(ex, loc, NULL, "subscript %d is out of range for a sequence of length %lld", i, (long long)len);
  const char *lib_op = op == FLAT_ELT ? "subscript" : op == FLAT_GATHER ? "->" : "<-";
  const char *prim = op == FLAT_ELT ? "__elt" : op == FLAT_GATHER ? "__read" : "__write";
  fail_at(ex, loc, prim, "%s: index %d is out of range for a sequence of length %lld", lib_op, i, (long long)len);
}

static void check_index(FlatExec *ex, const FlatStmt *s, int32_t i, int64_t len) {
  if (i < 0 || i >= len)
    flat_exec_index_error(ex, s->loc, s->op, i, len);
}

static FlatValue *run_dist(FlatExec *ex, const FlatStmt *s, FlatValue *x, FlatValue *count) {
  int32_t n = count->data.i[0];
  if (n < 0)
    fail(ex, s, "dist", "dist: negative length %d", n);
  FlatValue *r = new_vec(x->type.base, n);
  size_t size = elem_size(x->type.base);
  for (int32_t k = 0; k < n; k++)
    memcpy(r->data.c + (size_t)k * size, x->data.any, size);
  return r;
}

static void check_range(FlatExec *ex, const FlatStmt *s, int32_t start, int32_t end, int32_t stride) {
  if (end < start || stride <= 0)
    fail(ex, s, NULL, "bad range [%d:%d:%d]: the end must be >= the start and the stride positive", start, end,
         stride);
}

static int64_t range_length(int32_t start, int32_t end, int32_t stride) {
  return ((int64_t)end - start + stride - 1) / stride;
}

static FlatValue *run_range(FlatExec *ex, const FlatStmt *s, FlatValue **a) {
  int32_t start = a[0]->data.i[0], end = a[1]->data.i[0], stride = a[2]->data.i[0];
  check_range(ex, s, start, end, stride);
  int64_t n = range_length(start, end, stride);
  FlatValue *r = new_vec(FB_INT, n);
  for (int64_t k = 0; k < n; k++)
    r->data.i[k] = (int32_t)(start + k * stride);
  return r;
}

static Vec run_seg_range(FlatExec *ex, const FlatStmt *s, FlatValue **a) {
  int64_t n = a[0]->len;
  if (a[1]->len != n || a[2]->len != n)
    die("seg_range: vectors of different lengths");
  FlatValue *d = flat_value_new(flat_segdes(), n);
  int64_t total = 0;
  for (int64_t k = 0; k < n; k++) {
    check_range(ex, s, a[0]->data.i[k], a[1]->data.i[k], a[2]->data.i[k]);
    d->lengths[k] = range_length(a[0]->data.i[k], a[1]->data.i[k], a[2]->data.i[k]);
    total += d->lengths[k];
  }
  FlatValue *v = new_vec(FB_INT, total);
  int64_t at = 0;
  for (int64_t k = 0; k < n; k++)
    for (int64_t j = 0; j < d->lengths[k]; j++)
      v->data.i[at++] = (int32_t)(a[0]->data.i[k] + j * a[2]->data.i[k]);
  Vec results = {0};
  vec_push(&results, d);
  vec_push(&results, v);
  return results;
}

static FlatValue *run_gather(FlatExec *ex, const FlatStmt *s, FlatValue *v, FlatValue *idx) {
  FlatValue *r = new_vec(v->type.base, idx->len);
  size_t size = elem_size(v->type.base);
  for (int64_t k = 0; k < idx->len; k++) {
    int32_t i = idx->data.i[k];
    check_index(ex, s, i, v->len);
    memcpy(r->data.c + (size_t)k * size, v->data.c + (size_t)i * size, size);
  }
  return r;
}

static FlatValue *run_elt(FlatExec *ex, const FlatStmt *s, FlatValue *v, FlatValue *index) {
  int32_t i = index->data.i[0];
  check_index(ex, s, i, v->len);
  FlatValue *r = flat_value_new(flat_scalar(v->type.base), 1);
  size_t size = elem_size(v->type.base);
  memcpy(r->data.any, v->data.c + (size_t)i * size, size);
  return r;
}

static FlatValue *run_scatter(FlatExec *ex, const FlatStmt *s, FlatValue *dst, FlatValue *idx, FlatValue *vals) {
  if (idx->len != vals->len)
    fail(ex, s, "__write", "<-: %lld indices but %lld values", (long long)idx->len, (long long)vals->len);
  if (dst->type.base != vals->type.base)
    die("scatter: values of another type than the destination");
  size_t size = elem_size(dst->type.base);
  FlatValue *r = new_vec(dst->type.base, dst->len);
  memcpy(r->data.any, dst->data.any, size * (size_t)dst->len);
  for (int64_t k = 0; k < idx->len; k++) { /* in order: a later write wins */
    int32_t i = idx->data.i[k];
    check_index(ex, s, i, dst->len);
    memcpy(r->data.c + (size_t)i * size, vals->data.c + (size_t)k * size, size);
  }
  return r;
}

static FlatValue *run_pack(FlatExec *ex, const FlatStmt *s, FlatValue *v, FlatValue *flags) {
  if (v->len != flags->len)
    fail(ex, s, "pack", "pack: %lld values but %lld flags", (long long)v->len, (long long)flags->len);
  int64_t n = 0;
  for (int64_t k = 0; k < v->len; k++)
    n += flags->data.b[k] != 0;
  FlatValue *r = new_vec(v->type.base, n);
  size_t size = elem_size(v->type.base);
  int64_t at = 0;
  for (int64_t k = 0; k < v->len; k++)
    if (flags->data.b[k])
      memcpy(r->data.c + (size_t)(at++) * size, v->data.c + (size_t)k * size, size);
  return r;
}

/* [s1, ..., sk] from k scalars of one base type */
static FlatValue *run_vector(FlatValue **a, int n) {
  if (n < 1)
    die("vector of no elements");
  FlatBase b = a[0]->type.base;
  size_t size = elem_size(b);
  FlatValue *r = new_vec(b, n);
  for (int k = 0; k < n; k++) {
    if (!flat_type_equal(a[k]->type, flat_scalar(b)))
      die("vector: a %s among %s scalars", flat_type_name(a[k]->type), flat_type_name(flat_scalar(b)));
    memcpy(r->data.c + (size_t)k * size, a[k]->data.any, size);
  }
  return r;
}

static FlatValue *run_append(FlatValue *x, FlatValue *y) {
  if (x->type.base != y->type.base)
    die("append: vectors of different types");
  size_t size = elem_size(x->type.base);
  FlatValue *r = new_vec(x->type.base, x->len + y->len);
  memcpy(r->data.any, x->data.any, size * (size_t)x->len);
  memcpy(r->data.c + size * (size_t)x->len, y->data.any, size * (size_t)y->len);
  return r;
}

/* ---- segment descriptors ---- */

static FlatValue *run_make_segdes(FlatExec *ex, const FlatStmt *s, FlatValue *lengths) {
  FlatValue *d = flat_value_new(flat_segdes(), lengths->len);
  for (int64_t k = 0; k < lengths->len; k++) {
    if (lengths->data.i[k] < 0)
      fail(ex, s, NULL, "negative length %d", lengths->data.i[k]);
    d->lengths[k] = lengths->data.i[k];
  }
  return d;
}

/* A segmented operation's vector must have as many elements as its
   segments hold: the flattener builds them together. */
static const int64_t *segments_over(FlatValue *d, FlatValue *v, const FlatStmt *s) {
  need(d, FT_SEGDES, s);
  need(v, FT_VEC, s);
  const int64_t *off = flat_seg_offsets(d);
  if (off[d->len] != v->len)
    die("%s: a segdes of %lld elements over a vector of %lld", flat_op_name(s->op), (long long)off[d->len],
        (long long)v->len);
  return off;
}

static FlatValue *run_segdes_op(const FlatStmt *s, FlatValue *d) {
  need(d, FT_SEGDES, s);
  const int64_t *off = flat_seg_offsets(d);
  FlatValue *r;
  switch (s->op) {
  case FLAT_SEG_LENGTHS:
    r = new_vec(FB_INT, d->len);
    for (int64_t k = 0; k < d->len; k++)
      r->data.i[k] = (int32_t)d->lengths[k];
    return r;
  case FLAT_SEG_COUNT:
    return flat_value_int((int32_t)d->len);
  case FLAT_SEG_TOTAL:
    return flat_value_int((int32_t)off[d->len]);
  case FLAT_SEG_IDS:
    r = new_vec(FB_INT, off[d->len]);
    for (int64_t k = 0; k < d->len; k++)
      for (int64_t j = off[k]; j < off[k + 1]; j++)
        r->data.i[j] = (int32_t)k;
    return r;
  case FLAT_SEG_OFFSETS:
    r = new_vec(FB_INT, d->len);
    for (int64_t k = 0; k < d->len; k++)
      r->data.i[k] = (int32_t)off[k];
    return r;
  default:
    die("run_segdes_op: %s", flat_op_name(s->op));
  }
}

/* ---- errors raised by library code ---- */

static char *chars_of(FlatValue *v, int64_t from, int64_t to) {
  return xstrndup(v->data.c + from, (size_t)(to - from));
}

static void run_error_any(FlatExec *ex, const FlatStmt *s, FlatValue *d, FlatValue *msgs) {
  const int64_t *off = segments_over(d, msgs, s);
  if (d->len > 0)
    fail(ex, s, NULL, "%s", chars_of(msgs, off[0], off[1]));
}
/* ---- operations ---- */

/* The evaluator's name of the primitive that combines by 'op' (ADD or
   MUL) in a reduction or a scan, or NULL. */
const char *flat_combine_prim(FlatOp op, bool scan) {
  if (op != FLAT_ADD && op != FLAT_MUL)
    return NULL;
  return combine_prim(op == FLAT_ADD ? C_ADD : C_MUL, scan);
}

static void check_elementwise(FlatOp op, int nargs) {
  if (op == FLAT_RAND || op > FLAT_COPY)
    die("flat_exec_elementwise: %s", flat_op_name(op));
  if (nargs != flat_op_nargs(op))
    die("%s with %d arguments", flat_op_name(op), nargs);
}

FlatValue *flat_exec_elementwise(FlatExec *ex, FlatOp op, Loc loc, const char *prim, FlatValue **args, int nargs) {
  check_elementwise(op, nargs);
  if (op == FLAT_COPY)
    return args[0];
  FlatStmt s = {.kind = FS_OP, .loc = loc, .op = op};
  ex->prim = prim;
  FlatValue *r = run_elementwise(ex, &s, args, nargs);
  ex->prim = NULL;
  return r;
}

void flat_exec_elementwise_into(FlatExec *ex, FlatOp op, Loc loc, const char *prim, FlatValue **args, int nargs,
                                FlatValue *result) {
  check_elementwise(op, nargs);
  FlatStmt s = {.kind = FS_OP, .loc = loc, .op = op};
  FlatType rt = elementwise_type(&s, args, nargs);
  if (!flat_type_equal(result->type, rt) || result->len != args[0]->len)
    die("%s: a result of type %s for %s", flat_op_name(op), flat_type_name(result->type), flat_type_name(rt));
  if (op == FLAT_COPY) {
    memcpy(result->data.any, args[0]->data.any, elem_size(result->type.base) * (size_t)result->len);
    return;
  }
  ex->prim = prim;
  run_elementwise_into(ex, &s, args, nargs, result);
  ex->prim = NULL;
}

static void push_all(Vec *out, Vec values) {
  for (int i = 0; i < values.len; i++)
    vec_push(out, values.data[i]);
}

void flat_exec_op(FlatExec *ex, const FlatStmt *s, FlatValue **a, int n, Vec *results) {
  if (s->kind != FS_OP)
    die("flat_exec_op: a statement of kind %d", (int)s->kind);
  int want = flat_op_nargs(s->op);
  if (want >= 0 && n != want)
    die("%s with %d arguments", flat_op_name(s->op), n);
  FlatValue *r = NULL;
  switch (s->op) {
  case FLAT_COPY:
    r = a[0]; /* values are never changed in place */
    break;
  case FLAT_VECTOR:
    r = run_vector(a, n);
    break;
  case FLAT_DIST:
    need(a[0], FT_SCALAR, s);
    need(a[1], FT_SCALAR, s);
    r = run_dist(ex, s, a[0], a[1]);
    break;
  case FLAT_LENGTH:
    need(a[0], FT_VEC, s);
    r = flat_value_int((int32_t)a[0]->len);
    break;
  case FLAT_RANGE:
    for (int i = 0; i < 3; i++)
      need(a[i], FT_SCALAR, s);
    r = run_range(ex, s, a);
    break;
  case FLAT_GATHER:
    need(a[0], FT_VEC, s);
    need(a[1], FT_VEC, s);
    r = run_gather(ex, s, a[0], a[1]);
    break;
  case FLAT_ELT:
    need(a[0], FT_VEC, s);
    need(a[1], FT_SCALAR, s);
    r = run_elt(ex, s, a[0], a[1]);
    break;
  case FLAT_SCATTER:
    for (int i = 0; i < 3; i++)
      need(a[i], FT_VEC, s);
    r = run_scatter(ex, s, a[0], a[1], a[2]);
    break;
  case FLAT_PACK:
    need(a[0], FT_VEC, s);
    need(a[1], FT_VEC, s);
    r = run_pack(ex, s, a[0], a[1]);
    break;
  case FLAT_PARTITION: {
    need(a[0], FT_VEC, s);
    need(a[1], FT_VEC, s);
    FlatValue *not_flags = flat_value_new(a[1]->type, a[1]->len);
    for (int64_t i = 0; i < a[1]->len; i++)
      not_flags->data.b[i] = !a[1]->data.b[i];
    vec_push(results, run_pack(ex, s, a[0], a[1]));
    vec_push(results, run_pack(ex, s, a[0], not_flags));
    return;
  }
  case FLAT_APPEND:
    need(a[0], FT_VEC, s);
    need(a[1], FT_VEC, s);
    r = run_append(a[0], a[1]);
    break;
  case FLAT_REDUCE_ADD:
  case FLAT_REDUCE_MUL:
  case FLAT_REDUCE_MAX:
  case FLAT_REDUCE_MIN:
  case FLAT_REDUCE_AND:
  case FLAT_REDUCE_OR:
  case FLAT_REDUCE_XOR:
    need(a[0], FT_VEC, s);
    r = flat_value_new(flat_scalar(a[0]->type.base), 1);
    combine_segments(ex, s, a[0], one_segment(a[0]->len), 1, r);
    break;
  case FLAT_SCAN_ADD:
  case FLAT_SCAN_MUL:
  case FLAT_SCAN_MAX:
  case FLAT_SCAN_MIN:
  case FLAT_SCAN_AND:
  case FLAT_SCAN_OR:
  case FLAT_SCAN_XOR:
    need(a[0], FT_VEC, s);
    r = new_vec(a[0]->type.base, a[0]->len);
    combine_segments(ex, s, a[0], one_segment(a[0]->len), 1, r);
    break;
  case FLAT_MAX_INDEX:
  case FLAT_MIN_INDEX:
    need(a[0], FT_VEC, s);
    r = flat_value_new(flat_scalar(FB_INT), 1);
    extreme_indices(a[0], one_segment(a[0]->len), 1, s->op == FLAT_MAX_INDEX ? 1 : -1, r->data.i);
    break;
  case FLAT_RANK:
  case FLAT_RANK_DOWN:
    need(a[0], FT_VEC, s);
    r = new_vec(FB_INT, a[0]->len);
    ranks(a[0], one_segment(a[0]->len), 1, s->op == FLAT_RANK_DOWN, r->data.i);
    break;
  case FLAT_MAKE_SEGDES:
    need(a[0], FT_VEC, s);
    r = run_make_segdes(ex, s, a[0]);
    break;
  case FLAT_SEG_LENGTHS:
  case FLAT_SEG_COUNT:
  case FLAT_SEG_TOTAL:
  case FLAT_SEG_IDS:
  case FLAT_SEG_OFFSETS:
    r = run_segdes_op(s, a[0]);
    break;
  case FLAT_SEG_REDUCE_ADD:
  case FLAT_SEG_REDUCE_MUL:
  case FLAT_SEG_REDUCE_MAX:
  case FLAT_SEG_REDUCE_MIN:
  case FLAT_SEG_REDUCE_AND:
  case FLAT_SEG_REDUCE_OR:
  case FLAT_SEG_REDUCE_XOR: {
    const int64_t *off = segments_over(a[0], a[1], s);
    r = new_vec(a[1]->type.base, a[0]->len);
    combine_segments(ex, s, a[1], off, a[0]->len, r);
    break;
  }
  case FLAT_SEG_SCAN_ADD:
  case FLAT_SEG_SCAN_MUL:
  case FLAT_SEG_SCAN_MAX:
  case FLAT_SEG_SCAN_MIN:
  case FLAT_SEG_SCAN_AND:
  case FLAT_SEG_SCAN_OR:
  case FLAT_SEG_SCAN_XOR: {
    const int64_t *off = segments_over(a[0], a[1], s);
    r = new_vec(a[1]->type.base, a[1]->len);
    combine_segments(ex, s, a[1], off, a[0]->len, r);
    break;
  }
  case FLAT_SEG_MAX_INDEX:
  case FLAT_SEG_MIN_INDEX: {
    const int64_t *off = segments_over(a[0], a[1], s);
    r = new_vec(FB_INT, a[0]->len);
    extreme_indices(a[1], off, a[0]->len, s->op == FLAT_SEG_MAX_INDEX ? 1 : -1, r->data.i);
    break;
  }
  case FLAT_SEG_RANK:
  case FLAT_SEG_RANK_DOWN: {
    const int64_t *off = segments_over(a[0], a[1], s);
    r = new_vec(FB_INT, a[1]->len);
    ranks(a[1], off, a[0]->len, s->op == FLAT_SEG_RANK_DOWN, r->data.i);
    break;
  }
  case FLAT_SEG_PACK: {
    need(a[0], FT_SEGDES, s);
    need(a[1], FT_VEC, s);
    need(a[2], FT_VEC, s);
    FlatValue *d = a[0], *flags = a[2];
    int64_t total = 0;
    for (int64_t k = 0; k < d->len; k++)
      total += d->lengths[k];
    if (total != a[1]->len || total != flags->len)
      fail(ex, s, "pack", "pack: the segments hold %lld elements, but there are %lld values and %lld flags",
           (long long)total, (long long)a[1]->len, (long long)flags->len);
    FlatValue *nd = flat_value_new(flat_segdes(), d->len);
    int64_t at = 0;
    for (int64_t k = 0; k < d->len; k++) {
      int64_t kept = 0;
      for (int64_t j = 0; j < d->lengths[k]; j++)
        kept += flags->data.b[at + j] != 0;
      nd->lengths[k] = kept;
      at += d->lengths[k];
    }
    vec_push(results, nd);
    vec_push(results, run_pack(ex, s, a[1], flags));
    return;
  }
  case FLAT_SEG_RANGE:
    for (int i = 0; i < 3; i++)
      need(a[i], FT_VEC, s);
    push_all(results, run_seg_range(ex, s, a));
    return;
  case FLAT_NAME:
    r = run_name(ex, s, a, n);
    break;
  case FLAT_EQL:
    r = run_eql(ex, s, a, n);
    break;
  case FLAT_HASH:
    r = run_hash(ex, s, a, n);
    break;
  case FLAT_HOST_PRIM:
    push_all(results, run_host_prim(ex, s, a, n));
    return;
  case FLAT_ERROR:
    need(a[0], FT_VEC, s);
    fail(ex, s, NULL, "%s", chars_of(a[0], 0, a[0]->len));
  case FLAT_ERROR_ANY:
    run_error_any(ex, s, a[0], a[1]);
    return;
  case FLAT_OP_COUNT:
    die("flat_exec_op: no operation");
  default:
    r = run_elementwise(ex, s, a, n);
    break;
  }
  vec_push(results, r);
}

/* ---- the transcript of a top-level statement ---- */

/* Walks pattern 'p' (of type 't') along the components of its value,
   H(t) from component *at on: for each component, 'on_component' gets
   its index and the pattern variable it belongs to (NULL for a
   wildcard's). */
static void walk_pattern(FlatExec *ex, Pattern *p, Type *t, int *at,
                         void (*on_component)(void *, int, const char *), void *ctx) {
  t = type_resolve(t);
  switch (p->kind) {
  case PAT_WILD:
  case PAT_VAR: {
    int n = component_count(ex, t, true);
    for (int i = 0; i < n; i++)
      on_component(ctx, (*at)++, p->kind == PAT_VAR ? p->name : NULL);
    return;
  }
  case PAT_PAIR:
    if (t->kind != T_PAIR)
      die("a tuple pattern against %s", type_value_to_string(t));
    walk_pattern(ex, p->fst, t->fst, at, on_component, ctx);
    walk_pattern(ex, p->snd, t->snd, at, on_component, ctx);
    return;
  case PAT_CON:
    if (t->kind != T_DATA)
      die("a constructor pattern against %s", type_value_to_string(t));
    walk_pattern(ex, p->arg, flat_data_fields(ex->ev, t), at, on_component, ctx);
    return;
  }
}

/* top->defines holds either one global per component of the value (in
   layout order, a wildcard's included) or one per component of the
   pattern's variables only: 'DefineWalk' maps components to globals in
   both cases. */
typedef struct DefineWalk {
  FlatTop *top;
  const FlatTopHooks *hooks;
  FlatValue **comps; /* NULL: only name the globals */
  bool all;          /* one global per component of the value */
  int next;          /* the next global of top->defines */
} DefineWalk;

static void define_component(void *ctx, int index, const char *var) {
  DefineWalk *w = ctx;
  if (!var && !w->all)
    return;
  if (w->next >= w->top->defines.len)
    die("the binding defines fewer globals than its value has components");
  int g = w->next++;
  w->hooks->define(w->hooks->ctx, g, var, w->comps ? w->comps[index] : NULL);
}

/* Gives top->defines the components 'comps' of the value (or, with
   'comps' NULL, just their names, so that a binding that fails still
   names its variables in later errors). */
static void define_globals(FlatExec *ex, FlatTop *top, const FlatTopHooks *hooks, FlatValue **comps) {
  TopLevel *src = top->source;
  int ncomps = component_count(ex, top->type, true);
  DefineWalk w = {top, hooks, comps, top->defines.len == ncomps, 0};
  int at = 0;
  walk_pattern(ex, src->pat, top->type, &at, define_component, &w);
  if (at != ncomps || w.next != top->defines.len)
    die("the binding's pattern does not account for its value's components or globals");
}

/* The components of the value of 'top' as hooks->run computes them, or
   NULL if a run-time error stopped it (its line printed). */
static FlatValue **run_guarded(FlatExec *ex, const FlatTopHooks *hooks, int *n) {
  jmp_buf stop;
  if (setjmp(stop)) {
    ev_set_stop(ex->ev, NULL);
    ex->context = NULL;
    ex->prim = NULL;
    if (hooks->stopped)
      hooks->stopped(hooks->ctx);
    return NULL;
  }
  ev_set_stop(ex->ev, &stop);
  FlatValue **comps = hooks->run(hooks->ctx, n);
  ev_set_stop(ex->ev, NULL);
  ex->context = NULL;
  return comps;
}

void flat_exec_run_top(FlatExec *ex, FILE *out, FlatTop *top, const FlatTopHooks *hooks) {
  TopLevel *src = top->source;
  if (!src)
    die("a top-level statement without its source");
  ev_begin_line(ex->ev);
  switch (src->kind) {
  case TOP_FUNCTION:
  case TOP_DATATYPE:
    if (!src->library)
      fprintf(out, "%s\n", tc_def_signature_line(src->def));
    break;
  case TOP_BIND:
  case TOP_EXPR: {
    if (src->kind == TOP_BIND)
      define_globals(ex, top, hooks, NULL);
    ex->context = NULL;
    int n = 0;
    FlatValue **comps = run_guarded(ex, hooks, &n);
    if (!comps)
      break;
    if (src->kind == TOP_BIND)
      define_globals(ex, top, hooks, comps);
    if (src->library)
      break;
    Value v = flat_host_to_value(ex->ev, top->type, top->mono_type, comps, n);
    ev_begin_line(ex->ev);
    const char *name = src->kind == TOP_BIND ? ast_pattern_to_string(src->pat) : "it";
    fprintf(out, "%s = %s : %s\n", name, val_to_string(v, top->type), type_value_to_string(top->type));
    break;
  }
  }
  fflush(out);
}
