/*
 * thunk.c: the thunk translator, the paper's gen_thunk (section 6, Figure
 * 8): a λcu thunk { xs => e using ys } becomes C statements, given an
 * environment from λcu variables to C expressions (CgBinding) and a
 * continuation that stores the results (CgStore).  Every target uses it:
 * a skeleton decides where the index comes from and where the results go;
 * the thunk only computes.
 *
 * Each expression becomes a local (`int32_t t5 = ...;`), so that the C
 * reads like the λcu it comes from and nvcc sees straight-line code; an
 * operation or subscript repeated in a thunk is computed once (value
 * numbering, below).  An
 * `if` evaluates only the branch it takes (an untaken branch may divide
 * by zero or subscript out of range harmlessly, as in NESL).  A check
 * never traps: a subscript out of range or a failing scalar operation
 * records the error (rt/kernel.h) for the lowest element index and
 * yields a harmless value, and the host reports the record after the
 * kernel.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

CgBinding *cg_bind(CgBinding *env, const LcuVar *var, const char *value, const char *length, const char *offsets) {
  CgBinding *b = NEW(CgBinding);
  b->var = var;
  b->value = value;
  b->length = length;
  b->offsets = offsets;
  b->next = env;
  return b;
}

CgBinding *cg_lookup(CgBinding *env, const LcuVar *var) {
  for (; env; env = env->next)
    if (env->var == var)
      return env;
  die("codegen: %s is not bound in the thunk's environment", var->name);
}

/* ---- scalar operations ---- */

static char base_letter(FlatBase b) { return b == FB_INT ? 'i' : b == FB_FLOAT ? 'f' : b == FB_BOOL ? 'b' : 'c'; }

/* The float functions of one argument (sqrt, ln, exp, the trigonometric
   and hyperbolic ones): rt_NAME_f in rt/scalar.h.  Only sqrt and ln
   check theirs (NESL's argument checks); the others compute with
   infinities and NaN. */
static bool float_function(FlatOp op) {
  switch (op) {
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
    return true;
  default:
    return false;
  }
}

const char *cg_scalar_op(FlatOp op, FlatBase base, const char **a, const char *err, bool *checked, int *operand) {
  *checked = false;
  *operand = -1;
  const char *name = flat_op_name(op);
  char l = base_letter(base);
  if (float_function(op)) {
    if (op != FLAT_SQRT && op != FLAT_LN)
      return xprintf("rt_%s_f(%s)", name, a[0]);
    *checked = true;
    *operand = 0; /* the message names the argument */
    return xprintf("rt_%s_f(%s, %s)", name, a[0], err);
  }
  switch (op) {
  case FLAT_ADD:
  case FLAT_SUB:
  case FLAT_MUL:
    return xprintf("rt_%s_%c(%s, %s)", name, l, a[0], a[1]);
  case FLAT_DIV:
  case FLAT_REM:
    *checked = true;
    return xprintf("rt_%s_%c(%s, %s, %s)", name, l, a[0], a[1], err);
  case FLAT_NEG:
    return xprintf("rt_neg_%c(%s)", l, a[0]);
  case FLAT_RECIP:
    *checked = true;
    return xprintf("rt_recip_%c(%s, %s)", l, a[0], err);
  case FLAT_POW:
    *checked = true;
    *operand = 1; /* the exponent, in the message */
    return xprintf("rt_pow_%c(%s, %s, %s)", l, a[0], a[1], err);
  case FLAT_EQ:
  case FLAT_NE:
  case FLAT_LT:
  case FLAT_GT:
  case FLAT_LE:
  case FLAT_GE:
    return xprintf("rt_%s_%c(%s, %s)", name, l, a[0], a[1]);
  case FLAT_NOT:
    return xprintf("rt_not_%c(%s)", base == FB_INT ? 'i' : 'b', a[0]);
  case FLAT_AND:
  case FLAT_OR:
  case FLAT_XOR:
    return xprintf("rt_%s_%c(%s, %s)", name, base == FB_INT ? 'i' : 'b', a[0], a[1]);
  case FLAT_LSHIFT:
  case FLAT_RSHIFT:
    return xprintf("rt_%s_i(%s, %s)", name, a[0], a[1]);
  case FLAT_TRUNC:
  case FLAT_FLOOR:
  case FLAT_CEIL:
  case FLAT_ROUND:
    return xprintf("rt_%s_f(%s)", name, a[0]);
  case FLAT_EXPT:
    *checked = true;
    *operand = 0; /* the base, in the message */
    return xprintf("rt_expt_f(%s, %s, %s)", a[0], a[1], err);
  case FLAT_TO_FLOAT:
    return xprintf("rt_to_float_i(%s)", a[0]);
  case FLAT_BTOI:
    return xprintf("rt_btoi_b(%s)", a[0]);
  case FLAT_CODE_CHAR:
    *checked = true;
    *operand = 0;
    return xprintf("rt_code_char_i(%s, %s)", a[0], err);
  case FLAT_CHAR_CODE:
    return xprintf("rt_char_code_c(%s)", a[0]);
  case FLAT_SELECT:
    return xprintf("(%s ? %s : %s)", a[0], a[1], a[2]);
  case FLAT_ZERO:
    return xprintf("((%s)0)", cg_ctype(base));
  case FLAT_COPY:
    return a[0];
  default:
    die("codegen: %s is not a scalar operation", name);
  }
}

/* ---- expressions ---- */

/* Value numbering: a thunk carries no sharing between its results, and
   fusion composes a value that several results (or several branches of
   a tree of compositions) read into each of them, so that one thunk may
   repeat a computation many times over (Black-Scholes's: a DAG of MAPs
   unfolded to a tree).  Each operation and subscript is computed once per
   thunk: its key is the operation and the C names of its operands, and a
   later one with the same key reads the first's local.  A local made in a
   branch of an `if` is forgotten when the branch ends.  An operation that
   fails fails at its first occurrence, with the same operands: the error
   recorded is the same. */
typedef struct Cse {
  const char *name; /* the local holding the value; NULL once out of scope */
} Cse;

/* The keys seen in the pass being made: one table for every pass (a
   pass at a time), emptied by a new generation; a table per pass,
   grown from nothing, was a sixth of what code generation allocated. */
typedef struct Seen {
  const char *key; /* NULL: an empty slot, as is one of another generation */
  uint64_t hash;
  Cse *cse;
  uint32_t generation;
} Seen;

static struct {
  Seen *slots;
  int cap, used;
  uint32_t generation;
} seen;

static uint64_t key_hash(const char *s) {
  uint64_t h = 14695981039346656037ULL; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* The slot of 'key' (hash 'h'), or the empty one where it would go. */
static Seen *seen_slot(const char *key, uint64_t h) {
  uint64_t mask = (uint64_t)seen.cap - 1;
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    Seen *e = &seen.slots[i];
    if (!e->key || e->generation != seen.generation || (e->hash == h && strcmp(e->key, key) == 0))
      return e;
  }
}

static void seen_grow(void) {
  Seen *old = seen.slots;
  int old_cap = seen.cap;
  seen.cap = old_cap ? 2 * old_cap : 64;
  seen.slots = xmalloc(sizeof(Seen) * (size_t)seen.cap);
  for (int i = 0; i < old_cap; i++)
    if (old[i].key && old[i].generation == seen.generation)
      *seen_slot(old[i].key, old[i].hash) = old[i];
}

/* The table emptied, for a new pass. */
static void seen_clear(void) {
  seen.used = 0;
  if (++seen.generation == 0) { /* after 2^32 passes: cleared once */
    if (seen.cap)
      memset(seen.slots, 0, sizeof(Seen) * (size_t)seen.cap);
    seen.generation = 1;
  }
}

typedef struct Tx {
  Cg *cg;
  const CgChecks *checks;
  Vec made;  /* Cse *, in the order made: a branch forgets its own */
  /* The fast pass (see cg_thunk): every check ORs its failure into one
     local, 'failed' (named at the first check), with no branch; in the
     recording pass each check records its own error. */
  bool fast;
  const char *failed;
  /* what each operation's temporary is (ranges, below), by temporary
     number from facts_base on */
  int facts_base;
  Vec facts; /* Fact *, or NULL */
} Tx;

/* The fast pass's flag, named when the first check needs it (a thunk
   without checks keeps its numbering). */
static const char *failed_flag(Tx *tx) {
  if (!tx->failed)
    tx->failed = cg_temp(tx->cg);
  return tx->failed;
}

static const char *cse_find(Tx *tx, const char *key) {
  (void)tx;
  if (!seen.cap)
    return NULL;
  Seen *e = seen_slot(key, key_hash(key));
  return e->key && e->generation == seen.generation ? e->cse->name : NULL;
}

static void cse_note(Tx *tx, const char *key, const char *name) {
  if (2 * (seen.used + 1) > seen.cap)
    seen_grow();
  uint64_t h = key_hash(key);
  Seen *e = seen_slot(key, h);
  if (!e->key || e->generation != seen.generation) {
    *e = (Seen){key, h, NEW(Cse), seen.generation};
    seen.used++;
  }
  e->cse->name = name;
  vec_push(&tx->made, e->cse);
}

/* Forgets the locals made since 'mark' (a branch's, going out of scope). */
static void cse_forget(Tx *tx, int mark) {
  while (tx->made.len > mark)
    ((Cse *)tx->made.data[--tx->made.len])->name = NULL;
}

/* The record of error 'what' at the check's element. */
static void record(Tx *tx, const char *what) {
  Cg *cg = tx->cg;
  cg_line(cg, "%s(%s, %s, %s);", cg->record_fn, tx->checks->record, tx->checks->index, what);
}

/* Temporary 'name''s number, or -1 for another C expression. */
static int temp_number(const char *name) {
  if (name[0] != 't' || !name[1])
    return -1;
  int n = 0;
  for (const char *c = name + 1; *c; c++) {
    if (*c < '0' || *c > '9' || n > 100000000)
      return -1;
    n = 10 * n + (*c - '0');
  }
  return n;
}

/* ---- ranges: the multiply-adds that round alike ----

   A float product and the sum it feeds are one fused multiply-add on the
   device where that changes no decision: where both are *safe*, finite
   whenever their operands are, the multiply-add (one rounding) and the
   two operations (two roundings) differ in the last bits only, and are
   infinite or NaN alike when an operand is (multiply_add).  A product
   that could overflow where the sum takes it back into range would not
   be: NESL's is infinite there.  Each operation's temporary gets a range
   [lo, hi] that holds when its operands are finite, by interval
   arithmetic on their ranges (a value of unknown range is any finite
   double), each bound widened by 2^-40 of itself, far more than a
   correctly rounded operation or the device's exp and ln (an ulp or two)
   may err; the operation is safe when the widened bounds are finite and
   its operands are in its domain (a divisor's range excludes zero,
   sqrt's is not negative, ln's is positive).  An operand that is not
   finite makes a result that is not finite, or the limit of finite ones
   (1 / inf is 0, exp(-inf) 0), inside the range's closure: the bounds
   still hold for the products that a multiply-add takes. */
typedef struct Range {
  double lo, hi;
} Range;

typedef struct Fact {
  FlatOp op;
  const char *a, *b;     /* the first two operands' C names */
  Range range;           /* float results */
  bool safe;             /* finite when its operands are */
} Fact;

static const Range any_float = {-DBL_MAX, DBL_MAX};

static Fact *fact_of(const Tx *tx, const char *name) {
  int n = temp_number(name);
  if (n < tx->facts_base || n - tx->facts_base >= tx->facts.len)
    return NULL;
  return tx->facts.data[n - tx->facts_base];
}

/* The range of float operand 'name': a constant's own value, a
   temporary's range, or any finite double. */
static Range range_of(const Tx *tx, const char *name) {
  const Fact *f = fact_of(tx, name);
  if (f)
    return f->range;
  const char *p = name[0] == '(' ? name + 1 : name;
  char *end;
  double v = strtod(p, &end);
  if (end != p && strcmp(end, name[0] == '(' ? ")" : "") == 0 && isfinite(v))
    return (Range){v, v};
  return any_float;
}

static double widen_down(double x) { return x - (fabs(x) * 0x1p-40 + 0x1p-1060); }
static double widen_up(double x) { return x + (fabs(x) * 0x1p-40 + 0x1p-1060); }

/* The range of bounds lo .. hi (the exact ones or a rounding off):
   widened, safe if finite; for the operation's users, within the finite
   doubles. */
static Range bounded(double lo, double hi, bool *safe) {
  lo = widen_down(lo);
  hi = widen_up(hi);
  *safe = isfinite(lo) && isfinite(hi);
  return (Range){isfinite(lo) ? lo : -DBL_MAX, isfinite(hi) ? hi : DBL_MAX};
}

static double min4(double a, double b, double c, double d) { return fmin(fmin(a, b), fmin(c, d)); }
static double max4(double a, double b, double c, double d) { return fmax(fmax(a, b), fmax(c, d)); }

/* select(c, -x, x) where c is x < 0 (abs, as the library writes it), or
   select(c, x, -x) where c is x > 0: not negative. */
static bool is_abs(const Tx *tx, const char **args) {
  const Fact *c = fact_of(tx, args[0]);
  if (!c || !c->b)
    return false;
  Range zero = range_of(tx, c->b);
  if (zero.lo != 0.0 || zero.hi != 0.0)
    return false;
  bool below = c->op == FLAT_LT || c->op == FLAT_LE, above = c->op == FLAT_GT || c->op == FLAT_GE;
  const char *neg = below ? args[1] : above ? args[2] : NULL, *same = below ? args[2] : args[1];
  const Fact *n = neg ? fact_of(tx, neg) : NULL;
  return n && n->op == FLAT_NEG && strcmp(n->a, c->a) == 0 && strcmp(same, c->a) == 0;
}

/* The range of float operation 'op' on 'args' and whether it is safe. */
static Range op_range(const Tx *tx, FlatOp op, const char **args, int nargs, bool *safe) {
  Range x = nargs > 0 ? range_of(tx, args[0]) : any_float, y = nargs > 1 ? range_of(tx, args[1]) : any_float;
  *safe = false;
  switch (op) {
  case FLAT_ADD:
    return bounded(x.lo + y.lo, x.hi + y.hi, safe);
  case FLAT_SUB:
    return bounded(x.lo - y.hi, x.hi - y.lo, safe);
  case FLAT_MUL:
    return bounded(min4(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi),
                   max4(x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi), safe);
  case FLAT_RECIP:
    y = x;
    x = (Range){1.0, 1.0};
    /* fall through */
  case FLAT_DIV:
    if (!(y.lo > 0.0 || y.hi < 0.0))
      return any_float;
    return bounded(min4(x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi),
                   max4(x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi), safe);
  case FLAT_NEG:
    *safe = true;
    return (Range){-x.hi, -x.lo};
  case FLAT_SQRT:
    if (!(x.lo >= 0.0))
      return any_float;
    return bounded(sqrt(x.lo), sqrt(x.hi), safe);
  case FLAT_LN:
    if (!(x.lo > 0.0))
      return any_float;
    return bounded(log(x.lo), log(x.hi), safe);
  case FLAT_EXP: {
    Range r = bounded(exp(x.lo), exp(x.hi), safe);
    r.lo = fmax(r.lo, 0.0);
    return r;
  }
  case FLAT_SIN:
  case FLAT_COS:
  case FLAT_TANH:
    *safe = true;
    return (Range){-1.0, 1.0};
  case FLAT_SELECT: {
    *safe = true;
    Range a = range_of(tx, args[1]), b = range_of(tx, args[2]);
    if (is_abs(tx, args)) {
      Range v = range_of(tx, fact_of(tx, args[0])->a);
      return (Range){0.0, fmax(fabs(v.lo), fabs(v.hi))};
    }
    return (Range){fmin(a.lo, b.lo), fmax(a.hi, b.hi)};
  }
  case FLAT_TO_FLOAT:
    *safe = true;
    return (Range){(double)INT32_MIN, (double)INT32_MAX};
  case FLAT_COPY:
    *safe = true;
    return x;
  default:
    return any_float;
  }
}

/* Notes what operation 'e' made temporary 't' from; returns the fact. */
static Fact *fact_note(Tx *tx, const LcuExp *e, const char **args, const char *t) {
  Fact *f = NEW(Fact);
  *f = (Fact){e->op, e->nargs > 0 ? args[0] : NULL, e->nargs > 1 ? args[1] : NULL, any_float, false};
  if (e->type == FB_FLOAT)
    f->range = op_range(tx, e->op, args, e->nargs, &f->safe);
  int k = temp_number(t) - tx->facts_base;
  while (tx->facts.len <= k)
    vec_push(&tx->facts, NULL);
  tx->facts.data[k] = f;
  return f;
}

/* A safe sum or difference with a safe product, as one fused
   multiply-add on the device (the product, if nothing else reads it,
   goes): both are safe, so that the multiply-add is finite where the two
   operations are, and both passes compute it alike.  NULL if 'op' on
   'args' is not one. */
static const char *multiply_add(const Tx *tx, FlatOp op, const char **args) {
  if (tx->cg->target->kind != CG_CUDA || (op != FLAT_ADD && op != FLAT_SUB))
    return NULL;
  for (int k = 0; k < 2; k++) {
    const Fact *p = fact_of(tx, args[k]);
    if (!p || p->op != FLAT_MUL || !p->safe || !p->b)
      continue;
    const char *other = args[1 - k];
    if (op == FLAT_ADD)
      return xprintf("fma(%s, %s, %s)", p->a, p->b, other);
    return k == 0 ? xprintf("fma(%s, %s, -%s)", p->a, p->b, other) : xprintf("fma(-%s, %s, %s)", p->a, p->b, other);
  }
  return NULL;
}

static const char *gen_exp(Tx *tx, const LcuExp *e, CgBinding *env);
static const char *call_exp(Tx *tx, const LcuExp *e, CgBinding *env);

static const char *index_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  CgBinding *b = cg_lookup(env, e->var);
  const char *i = gen_exp(tx, e->args[0], env);
  const char *key = xprintf("%s[%s]", b->value, i);
  const char *known = cse_find(tx, key);
  if (known)
    return known;
  const char *t = cg_temp(cg);
  cse_note(tx, key, t);
  const CgChecks *c = tx->checks;
  if (c->safe_index && strcmp(i, c->safe_index) == 0 && c->safe_length && strcmp(b->length, c->safe_length) == 0) {
    /* the SOAC's own index into a vector of its size: in range */
    cg_line(cg, "%s %s = %s[%s];", cg_ctype(e->type), t, b->value, i);
    return t;
  }
  if (tx->fast) {
    /* a select, not a branch: the load happens only in range */
    const char *failed = failed_flag(tx);
    const char *ok = cg_temp(cg);
    cg_line(cg, "int %s = (uint64_t)(int64_t)%s < (uint64_t)%s;", ok, i, b->length);
    cg_line(cg, "%s %s = %s ? %s[%s] : 0;", cg_ctype(e->type), t, ok, b->value, i);
    cg_line(cg, "%s |= !%s;", failed, ok);
    return t;
  }
  cg_line(cg, "%s %s;", cg_ctype(e->type), t);
  cg_line(cg, "if ((uint64_t)(int64_t)%s < (uint64_t)%s) {", i, b->length);
  cg_line(cg, "  %s = %s[%s];", t, b->value, i);
  cg_line(cg, "} else {");
  cg->indent++;
  int site = cg_exp_site(cg, e, c, NULL);
  record(tx, xprintf("RT_CHECK_INDEX, %d, 0, %s, %s, %s, 0.0", site, c->index_op ? c->index_op : "RT_GATHER", i,
                     b->length));
  cg_line(cg, "%s = 0;", t);
  cg->indent--;
  cg_line(cg, "}");
  return t;
}

static const char *op_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  const char *args[3];
  for (int i = 0; i < e->nargs; i++)
    args[i] = gen_exp(tx, e->args[i], env);
  FlatBase base = e->nargs > 0 ? e->args[0]->type : e->type;
  const char *key = xprintf("%d:%d:%d(%s,%s,%s)", (int)e->op, (int)base, (int)e->type, e->nargs > 0 ? args[0] : "",
                            e->nargs > 1 ? args[1] : "", e->nargs > 2 ? args[2] : "");
  const char *known = cse_find(tx, key);
  if (known)
    return known;
  bool checked;
  int operand;
  /* the fast pass hands the operation the shared flag: an operation
     writes its error code only when it fails */
  const char *err = cg_temp(cg); /* unused in the fast pass, where it keeps the numbering of a thunk without checks */
  const char *call = cg_scalar_op(e->op, base, args, xprintf("&%s", err), &checked, &operand);
  const char *t = cg_temp(cg);
  cse_note(tx, key, t);
  const Fact *fact = fact_note(tx, e, args, t);
  const char *fused = fact->safe && base == FB_FLOAT && e->type == FB_FLOAT ? multiply_add(tx, e->op, args) : NULL;
  if (fused) {
    cg_line(cg, "double %s = %s;", t, fused);
    return t;
  }
  if (checked && tx->fast)
    call = cg_scalar_op(e->op, base, args, xprintf("&%s", failed_flag(tx)), &checked, &operand);
  if (!checked || tx->fast) {
    cg_line(cg, "%s %s = %s;", cg_ctype(e->type), t, call);
    return t;
  }
  cg_line(cg, "int %s = 0;", err);
  cg_line(cg, "%s %s = %s;", cg_ctype(e->type), t, call);
  int site = cg_exp_site(cg, e, tx->checks, NULL);
  cg_line(cg, "if (%s) {", err);
  cg->indent++;
  record(tx, xprintf("RT_CHECK_SCALAR, %d, %s, %s, 0, 0, %s", site, err, cg_rtop(e->op),
                     operand >= 0 ? xprintf("(double)%s", args[operand]) : "0.0"));
  cg->indent--;
  cg_line(cg, "}");
  return t;
}

/* A scalar function's call (scalarfn.c): in the fast pass it sets the
   flag when a check in it fails; in the recording pass it records. */
static const char *call_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  const char **args = xmalloc(sizeof(char *) * (size_t)(e->nargs + 1));
  Buf key = {0};
  buf_printf(&key, "call %s(", e->callee->name);
  for (int i = 0; i < e->nargs; i++) {
    args[i] = gen_exp(tx, e->args[i], env);
    buf_printf(&key, "%s,", args[i]);
  }
  const char *known = cse_find(tx, buf_str(&key));
  if (known)
    return known;
  const char *t = cg_temp(cg);
  cse_note(tx, buf_str(&key), t);
  if (tx->fast) {
    cg_line(cg, "%s %s = %s;", cg_ctype(e->type), t, cg_scalar_call(cg, e, args, NULL, failed_flag(tx)));
    return t;
  }
  const char *failed = cg_temp(cg);
  cg_line(cg, "int %s = 0;", failed);
  cg_line(cg, "%s %s = %s;", cg_ctype(e->type), t,
          cg_scalar_call(cg, e, args, tx->checks, failed));
  return t;
}

static const char *gen_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  switch (e->kind) {
  case LE_VAR:
    return cg_lookup(env, e->var)->value;
  case LE_CONST:
    return cg_constant(e->constant);
  case LE_LENGTH:
    return xprintf("(int32_t)%s", cg_lookup(env, e->var)->length);
  case LE_INDEX:
    return index_exp(tx, e, env);
  case LE_OP:
    return op_exp(tx, e, env);
  case LE_IF: {
    const char *c = gen_exp(tx, e->args[0], env);
    const char *t = cg_temp(cg);
    cg_line(cg, "%s %s;", cg_ctype(e->type), t);
    cg_line(cg, "if (%s) {", c);
    cg->indent++;
    int mark = tx->made.len;
    cg_line(cg, "%s = %s;", t, gen_exp(tx, e->args[1], env));
    cse_forget(tx, mark);
    cg->indent--;
    cg_line(cg, "} else {");
    cg->indent++;
    cg_line(cg, "%s = %s;", t, gen_exp(tx, e->args[2], env));
    cse_forget(tx, mark);
    cg->indent--;
    cg_line(cg, "}");
    return t;
  }
  case LE_LET: {
    /* the bound name reads the value's own local: two copies of one
       computation under different names number as one */
    const char *v = gen_exp(tx, e->args[0], env);
    return gen_exp(tx, e->args[1], cg_bind(env, e->var, v, NULL, NULL));
  }
  case LE_CALL:
    return call_exp(tx, e, env);
  }
  unreachable();
}

/* The thunk's lets and results, in 'tx''s pass; returns the results. */
static const char **gen_thunk(Tx *tx, const LcuThunk *t, const char **args, CgBinding *env) {
  for (int i = 0; i < t->params.len; i++)
    env = cg_bind(env, t->params.data[i], args[i], NULL, NULL);
  /* a shared let names its value's local, as an LE_LET does */
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    env = cg_bind(env, l->var, gen_exp(tx, l->value, env), NULL, NULL);
  }
  const char **values = xmalloc(sizeof(char *) * (size_t)(t->body.len + 1));
  for (int i = 0; i < t->body.len; i++)
    values[i] = gen_exp(tx, t->body.data[i], env);
  return values;
}

/* Two passes, so that checks cost no branches where nothing fails.  With
   a branch around each error record the SASS of a thunk of many checks
   had more branch bookkeeping and stores than arithmetic.  The fast pass
   computes the values with no branch per check: a subscript or a
   scalar check (a zero divisor, sqrt of a negative number, ...) ORs its
   failure into one flag; only an element whose flag is set runs the
   thunk again in the recording pass, where each check records its own
   error exactly as it would have in one pass (the same operands: the
   passes compute the same values).  Float arithmetic is not checked:
   it computes with infinities and NaN, as NESL's does.  A thunk without
   checks has only the fast pass. */
void cg_thunk(Cg *cg, const LcuThunk *t, const char **args, CgBinding *env, const CgChecks *checks, CgStore store,
              void *ctx) {
  Tx fast = {cg, checks, {0}, true, NULL, cg->temps + 1, {0}};
  seen_clear();
  /* the fast pass goes to a buffer: the flag is declared before it only
     if some check needs it */
  static CgText text; /* every thunk's fast pass in turn, its room kept */
  CgText *out = cg->out;
  text.len = 0;
  cg->out = &text;
  const char **values = gen_thunk(&fast, t, args, env);
  cg->out = out;
  if (fast.failed)
    cg_line(cg, "int %s = 0; /* nonzero: a check below failed */", fast.failed);
  cg_text_write(cg->out, text.data, text.len);
  if (fast.failed) {
    cg_line(cg, "if (__builtin_expect(%s != 0, 0)) { /* again, recording the error */", fast.failed);
    cg->indent++;
    Tx slow = {cg, checks, {0}, false, NULL, cg->temps + 1, {0}};
    seen_clear();
    gen_thunk(&slow, t, args, env);
    cg->indent--;
    cg_line(cg, "}");
  }
  store(cg, ctx, values, t->body.len);
}
