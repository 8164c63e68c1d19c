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
  b->divisor = NULL;
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
  cg_line(cg, "%s(%s, %s, %s, %d);", cg->record_fn, tx->checks->record, tx->checks->index, what, cg->check_order++);
}

static const char *gen_exp(Tx *tx, const LcuExp *e, CgBinding *env);
static const char *call_exp(Tx *tx, const LcuExp *e, CgBinding *env);

/* Local 't' of C type 'type' := 'value' where 0 <= i < n, as a
   subscript's check makes it: in the fast pass a select and the failed
   flag; else a branch that records the subscript's error (at e's site)
   and leaves 0.  For a read x[i] and for bound(i, n). */
static void checked_value(Tx *tx, const LcuExp *e, const char *type, const char *t, const char *i, const char *n,
                          const char *value) {
  Cg *cg = tx->cg;
  const CgChecks *c = tx->checks;
  if (tx->fast) {
    /* a select, not a branch: a load happens only in range; one test
       for the reads at one index of vectors of one length (x, y and z
       of a sequence of points, cg_same_length_param) */
    const char *key = xprintf("(%s < %s)", i, n);
    const char *ok = cse_find(tx, key);
    if (ok) {
      cg_line(cg, "%s %s = %s ? %s : 0;", type, t, ok, value);
      return;
    }
    const char *failed = failed_flag(tx);
    ok = cg_temp(cg);
    cse_note(tx, key, ok);
    cg_line(cg, "int %s = (uint64_t)(int64_t)%s < (uint64_t)%s;", ok, i, n);
    cg_line(cg, "%s %s = %s ? %s : 0;", type, t, ok, value);
    cg_line(cg, "%s |= !%s;", failed, ok);
    return;
  }
  cg_line(cg, "%s %s;", type, t);
  cg_line(cg, "if ((uint64_t)(int64_t)%s < (uint64_t)%s) {", i, n);
  cg_line(cg, "  %s = %s;", t, value);
  cg_line(cg, "} else {");
  cg->indent++;
  int site = cg_exp_site(cg, e, c, NULL);
  record(tx, xprintf("RT_CHECK_INDEX, %d, 0, %s, %s, %s, 0.0", site, c->index_op ? c->index_op : "RT_GATHER", i, n));
  cg_line(cg, "%s = 0;", t);
  cg->indent--;
  cg_line(cg, "}");
}

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
  bool own = c->safe_index && strcmp(i, c->safe_index) == 0;
  const char *value = own && c->stream_own ? xprintf("rtg::ld_stream(&%s[%s])", b->value, i)
                                           : xprintf("%s[%s]", b->value, i);
  /* (a read known in range, x![e], is checked all the same: on a GPU a
     check that failed before it is reported only at the next wait, and
     the values it left must not make this read leave its vector) */
  if (own && c->safe_length && strcmp(b->length, c->safe_length) == 0) {
    /* the SOAC's own index into a vector of its size: in range */
    cg_line(cg, "%s %s = %s;", cg_ctype(e->type), t, value);
    return t;
  }
  checked_value(tx, e, cg_ctype(e->type), t, i, b->length, value);
  return t;
}

/* seg_length(x, g) or seg_offset(x, g): from sd x's offsets (64 bits;
   a segment's length and offset fit an int, as the elements' count
   does), g checked as index_exp checks a subscript of a vector of x's
   number of segments, the read of seg_lengths or seg_offsets it stands
   for. */
static const char *seg_field_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  CgBinding *b = cg_lookup(env, e->var);
  const char *g = gen_exp(tx, e->args[0], env);
  bool length = e->kind == LE_SEG_LENGTH;
  const char *key = xprintf("%s(%s,%s)", length ? "seg_length" : "seg_offset", b->value, g);
  const char *known = cse_find(tx, key);
  if (known)
    return known;
  const char *t = cg_temp(cg);
  cse_note(tx, key, t);
  const char *value = length ? xprintf("(int32_t)(%s[%s + 1] - %s[%s])", b->offsets, g, b->offsets, g)
                             : xprintf("(int32_t)%s[%s]", b->offsets, g);
  checked_value(tx, e, "int32_t", t, g, b->length, value);
  return t;
}

/* bound(e, n): e, checked as index_exp checks a subscript (the read
   that fusion replaced by the element's computation). */
static const char *bound_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  const char *i = gen_exp(tx, e->args[0], env);
  const char *n = gen_exp(tx, e->args[1], env);
  const char *key = xprintf("bound(%s,%s)", i, n);
  const char *known = cse_find(tx, key);
  if (known)
    return known;
  const char *t = cg_temp(cg);
  cse_note(tx, key, t);
  checked_value(tx, e, "int32_t", t, i, n, i);
  return t;
}

/* The value numbering key of operation 'op' on 'nargs' operands 'args'
   whose first has base 'base', giving 'type'. */
static const char *op_key(FlatOp op, FlatBase base, FlatBase type, int nargs, const char **args) {
  return xprintf("%d:%d:%d(%s,%s,%s)", (int)op, (int)base, (int)type, nargs > 0 ? args[0] : "",
                 nargs > 1 ? args[1] : "", nargs > 2 ? args[2] : "");
}

static const char *op_exp(Tx *tx, const LcuExp *e, CgBinding *env) {
  Cg *cg = tx->cg;
  const char *args[3];
  for (int i = 0; i < e->nargs; i++)
    args[i] = gen_exp(tx, e->args[i], env);
  FlatBase base = e->nargs > 0 ? e->args[0]->type : e->type;
  const char *key = op_key(e->op, base, e->type, e->nargs, args);
  const char *known = cse_find(tx, key);
  if (known)
    return known;
  bool checked;
  int operand;
  /* the fast pass hands the operation the shared flag: an operation
     writes its error code only when it fails */
  const char *err = cg_temp(cg); /* unused in the fast pass, where it keeps the numbering of a thunk without checks */
  const char *call = cg_scalar_op(e->op, base, args, xprintf("&%s", err), &checked, &operand);
  /* an int division by a divisor the kernel prepared (cg_divides_by) */
  const char *divisor = NULL;
  if ((e->op == FLAT_DIV || e->op == FLAT_REM) && base == FB_INT && e->args[1]->kind == LE_VAR)
    divisor = cg_lookup(env, e->args[1]->var)->divisor;
  const char *by = e->op == FLAT_DIV ? "div" : "rem";
  if (divisor)
    call = xprintf("rt_%s_by(%s, %s, &%s)", by, args[0], divisor, err);
  const char *t = cg_temp(cg);
  cse_note(tx, key, t);
  if (checked && tx->fast)
    call = divisor ? xprintf("rt_%s_by(%s, %s, &%s)", by, args[0], divisor, failed_flag(tx))
                   : cg_scalar_op(e->op, base, args, xprintf("&%s", failed_flag(tx)), &checked, &operand);
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
  case LE_SEG_LENGTH:
  case LE_SEG_OFFSET:
    return seg_field_exp(tx, e, env);
  case LE_BOUND:
    return bound_exp(tx, e, env);
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
  if (cg->one_pass) {
    /* the recording pass alone: the same values, each check's error
       recorded where it fails */
    Tx slow = {cg, checks, {0}, false, NULL};
    seen_clear();
    store(cg, ctx, gen_thunk(&slow, t, args, env), t->body.len);
    return;
  }
  Tx fast = {cg, checks, {0}, true, NULL};
  /* after cg_thunk_invariants: its values stay known (no new
     generation), and a failure among them fails every element */
  const char *before = cg->invariants;
  cg->invariants = NULL;
  if (!before)
    seen_clear();
  else if (*before)
    fast.failed = cg_temp(cg);
  /* the fast pass goes to a buffer: the flag is declared before it only
     if some check needs it */
  static CgText text; /* every thunk's fast pass in turn, its room kept */
  CgText *out = cg->out;
  text.len = 0;
  cg->out = &text;
  const char **values = gen_thunk(&fast, t, args, env);
  cg->out = out;
  if (fast.failed)
    cg_line(cg, "int %s = %s; /* nonzero: a check below failed */", fast.failed, before && *before ? before : "0");
  cg_text_write(cg->out, text.data, text.len);
  if (fast.failed && cg->record_out) { /* (this is not one_pass: above) */
    /* the CPU target: the kernel's recording version, compiled apart
       without optimization, runs the kernel again (cpu.c); most of a
       kernel's code was its recording passes, which run only where an
       element fails */
    cg_line(cg, "if (__builtin_expect(%s != 0, 0))", fast.failed);
    cg_line(cg, "  rt_kernel_again(%s); /* the recording version finds the error */", checks->record);
    cg->record_used = true;
  } else if (fast.failed) {
    cg_line(cg, "if (__builtin_expect(%s != 0, 0)) { /* again, recording the error */", fast.failed);
    cg->indent++;
    Tx slow = {cg, checks, {0}, false, NULL};
    seen_clear();
    gen_thunk(&slow, t, args, env);
    cg->indent--;
    cg_line(cg, "}");
  }
  store(cg, ctx, values, t->body.len);
}

/* ---- values shared by a segment's elements (cg_thunk_invariants) ---- */

/* The names that depend on the element (the thunk's first parameter,
   and the lets of what reads it: LcuVar -> itself), and what 'varies'
   found of each expression asked about (LcuExp -> 1 or 2), so that a
   deep expression is walked once, not once a level.  A name joins
   'names' before any expression that reads it is asked about. */
typedef struct Varying {
  PtrMap names;
  PtrMap known;
} Varying;

/* Does 'e' read the element, directly or through a name? */
static bool varies(const LcuExp *e, Varying *v) {
  if (e->kind == LE_VAR)
    return ptrmap_get(&v->names, e->var) != NULL;
  intptr_t k = (intptr_t)ptrmap_get(&v->known, e);
  if (k)
    return k == 2;
  /* (a let whose value varies is computed per element, whether or not
     its body reads the name) */
  bool r = false;
  for (int i = 0; i < e->nargs && !r; i++)
    r = varies(e->args[i], v);
  ptrmap_put(&v->known, e, (void *)(intptr_t)(r ? 2 : 1));
  return r;
}

static void gen_invariant(Tx *tx, const LcuExp *e, CgBinding **env, Varying *varying);

/* A let of 'var' to 'value' (an LE_LET's or the thunk's own): written
   and bound where the value does not vary, else its invariant parts
   written and the name marked as varying. */
static void invariant_let(Tx *tx, const LcuVar *var, const LcuExp *value, CgBinding **env, Varying *varying) {
  if (!varies(value, varying)) {
    *env = cg_bind(*env, var, gen_exp(tx, value, *env), NULL, NULL);
  } else {
    gen_invariant(tx, value, env, varying);
    ptrmap_put(&varying->names, var, (void *)var);
  }
}

/* Writes the invariant parts of 'e' that its every evaluation computes:
   'e' itself where it does not vary and is more than a name or a
   constant, else its operands outside an if's branches. */
static void gen_invariant(Tx *tx, const LcuExp *e, CgBinding **env, Varying *varying) {
  switch (e->kind) {
  case LE_VAR:
  case LE_CONST:
  case LE_LENGTH:
    return;
  case LE_LET:
    invariant_let(tx, e->var, e->args[0], env, varying);
    gen_invariant(tx, e->args[1], env, varying);
    return;
  case LE_IF:
    gen_invariant(tx, e->args[0], env, varying);
    return;
  default:
    break;
  }
  if (!varies(e, varying)) {
    (void)gen_exp(tx, e, *env);
    return;
  }
  for (int i = 0; i < e->nargs; i++)
    gen_invariant(tx, e->args[i], env, varying);
}

void cg_thunk_invariants(Cg *cg, const LcuThunk *t, const char **args, CgBinding *env, const CgChecks *checks) {
  if (cg->one_pass || t->params.len < 2)
    return;
  Tx pro = {cg, checks, {0}, true, NULL};
  seen_clear();
  Varying varying = {0};
  ptrmap_put(&varying.names, t->params.data[0], t->params.data[0]);
  for (int i = 1; i < t->params.len; i++)
    env = cg_bind(env, t->params.data[i], args[i], NULL, NULL);
  static CgText text;
  CgText *out = cg->out;
  text.len = 0;
  cg->out = &text;
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    invariant_let(&pro, l->var, l->value, &env, &varying);
  }
  for (int i = 0; i < t->body.len; i++)
    gen_invariant(&pro, t->body.data[i], &env, &varying);
  cg->out = out;
  if (pro.failed)
    cg_line(cg, "int %s = 0; /* nonzero: a check of the segment's values failed */", pro.failed);
  cg_text_write(cg->out, text.data, text.len);
  cg->invariants = pro.failed ? pro.failed : "";
}

/* ---- the element's quotient and remainder, stepped (cg_thunk_inductions) ---- */

/* The names that stand for the element itself (the thunk's first
   parameter, and lets of it: LcuVar -> itself). */
static bool is_element(const LcuExp *e, PtrMap *names) { return e->kind == LE_VAR && ptrmap_get(names, e->var); }

/* The binding of 'var' in 'env', or NULL (cg_lookup dies instead). */
static CgBinding *find_binding(CgBinding *env, const LcuVar *var) {
  for (; env; env = env->next)
    if (env->var == var)
      return env;
  return NULL;
}

typedef struct Induction {
  const char *divisor; /* its C text, as the fast pass names it */
  const char *rem, *quot, *dabs, *dsign;
} Induction;

/* Each int REM or DIV of the element by a value fixed in the loop (a
   constant, a `using` scalar, a shared let the invariants wrote) in
   'e': its divisor's text added to 'out' once. */
static void find_divisions(const LcuExp *e, PtrMap *names, CgBinding *env, Vec *out) {
  if (e->kind == LE_LET && is_element(e->args[0], names))
    ptrmap_put(names, e->var, (void *)e->var);
  for (int i = 0; i < e->nargs; i++)
    find_divisions(e->args[i], names, env, out);
  if (e->kind != LE_OP || (e->op != FLAT_REM && e->op != FLAT_DIV) || e->type != FB_INT ||
      !is_element(e->args[0], names))
    return;
  const LcuExp *d = e->args[1];
  const char *text = NULL;
  if (d->kind == LE_CONST)
    text = cg_constant(d->constant);
  else if (d->kind == LE_VAR && !ptrmap_get(names, d->var) && find_binding(env, d->var) &&
           find_binding(env, d->var)->value)
    text = find_binding(env, d->var)->value;
  if (!text)
    return;
  for (int i = 0; i < out->len; i++)
    if (!strcmp(out->data[i], text))
      return;
  vec_push(out, (void *)text);
}

/* The divisors (their C text) of the element in thunk 't'. */
static Vec element_divisors(const LcuThunk *t, CgBinding *env) {
  PtrMap names = {0};
  ptrmap_put(&names, t->params.data[0], t->params.data[0]);
  for (int i = 0; i < t->lets.len; i++) {
    const LcuLet *l = t->lets.data[i];
    if (is_element(l->value, &names))
      ptrmap_put(&names, l->var, (void *)l->var);
  }
  Vec divisors = {0};
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    find_divisions(lcu_thunk_exp(t, i), &names, env, &divisors);
  return divisors;
}

bool cg_thunk_divides_element(Cg *cg, const LcuThunk *t, CgBinding *env) {
  return !cg->one_pass && t->params.len > 0 && element_divisors(t, env).len > 0;
}

const char *cg_thunk_inductions(Cg *cg, const LcuThunk *t, const char *element, CgBinding *env, const char *first) {
  if (cg->one_pass || t->params.len == 0)
    return NULL;
  Vec divisors = element_divisors(t, env);
  if (!divisors.len)
    return NULL;
  /* keep the invariants' values, or start the numbering the fast pass
     will go on with */
  if (!cg->invariants) {
    seen_clear();
    cg->invariants = "";
  }
  Tx pro = {cg, NULL, {0}, true, NULL};
  Buf step = {0};
  cg_line(cg, "/* the element's quotient and remainder by each divisor, stepped with it */");
  for (int k = 0; k < divisors.len; k++) {
    const char *d = divisors.data[k];
    const char *rem = cg_temp(cg), *quot = xprintf("%s_q", rem), *dabs = xprintf("%s_d", rem),
               *dsign = xprintf("%s_s", rem);
    cg_line(cg, "const int64_t %s = (int64_t)%s < 0 ? -(int64_t)%s : (int64_t)%s;", dabs, d, d, d);
    cg_line(cg, "const int32_t %s = (int64_t)%s < 0 ? -1 : 1;", dsign, d);
    cg_line(cg, "int32_t %s = %s ? (int32_t)((int64_t)(int32_t)(%s) %% %s) : 0;", rem, dabs, first, dabs);
    cg_line(cg, "int32_t %s = %s ? (int32_t)((int64_t)(int32_t)(%s) / %s * %s) : 0;", quot, dabs, first, dabs,
            dsign);
    /* a zero divisor fails every element: the recording pass reports it
       where an element divides */
    const char *flag = cg->invariants;
    if (!*flag) {
      cg->invariants = flag = cg_temp(cg);
      cg_line(cg, "int %s = 0;", flag);
    }
    cg_line(cg, "%s |= %s == 0;", flag, dabs);
    const char *operands[] = {element, d};
    cse_note(&pro, op_key(FLAT_REM, FB_INT, FB_INT, 2, operands), rem);
    cse_note(&pro, op_key(FLAT_DIV, FB_INT, FB_INT, 2, operands), quot);
    buf_printf(&step, "%s(++%s == %s ? (%s = 0, %s += %s) : 0)", k ? ", " : "", rem, dabs, rem, quot, dsign);
  }
  return buf_str(&step);
}
