/*
 * gen_lcu.c: random well-typed λcu programs, for the differential test of
 * fusion (tests/fusion/random.sh runs each with -O0 and -O1 and compares
 * what they print).
 *
 *   gen_lcu SEED > prog.lcu
 *
 * The same seed gives the same program.  A program is a few top-level
 * statements; each starts from host vectors (empty ones too) and
 * segment descriptors made from lengths vectors (with empty segments),
 * then runs kernels of one SOAC each, as lowering makes them: every SOAC
 * and segmented SOAC (MAP, PERMUTE with and without `into`, REDUCE,
 * SCAN, FILTER, PARTITION, ONCE, SEG_PERMUTE, SEG_REDUCE, SEG_SCAN,
 * SEG_FILTER, SEG_PARTITION), FILTERs of one class side by side (a
 * SPLIT once fused) and the SEG_REDUCE that counts one (its counts),
 * and the library kernels of segment
 * descriptors, with host statements between them (lengths, scalar
 * arithmetic on reductions, an `if`), a kernel run twice on the same
 * arguments now and then, and at most one operation per statement that
 * may fail (a division by a value that may be zero, a subscript that may
 * be out of range), so that a statement stops with at most one error.
 *
 * The generator knows the length of every vector it makes (its class),
 * so that what it reads at a SOAC's own index is in range, and knows
 * which int vectors hold small non-negative values (lengths for
 * make_segdes).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- randomness: splitmix64, so that a seed is a program ---- */

static uint64_t state;

static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static int pick(int n) { return n > 0 ? (int)(next() % (uint64_t)n) : 0; }
static int chance(int percent) { return pick(100) < percent; }

/* ---- text ---- */

typedef struct Text {
  char *s;
  size_t len, cap;
} Text;

static void put(Text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[4096];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s)
      exit(2);
  }
  memcpy(t->s + t->len, buf, (size_t)n + 1);
  t->len += (size_t)n;
}

/* ---- the CPU variables of a top-level statement ---- */

enum { INT, FLOAT, BOOL };
static const char *base_name[] = {"int", "float", "bool"};

typedef enum Kind { SCALAR, VEC, SD } Kind;

typedef struct Var {
  char name[16];
  Kind kind;
  int base;
  int cls;       /* VEC: its length class; SD: its segments' class */
  int total;     /* SD: the class of its elements */
  int lengths;   /* VEC of INT: its values lie in 0..3 (make_segdes) */
  int pending;   /* a result of the kernel being made: not readable yet */
} Var;

enum { MAX_VARS = 256, MAX_CLASSES = 128 };
static Var vars[MAX_VARS];
static int nvars;
static int classes;      /* classes made so far */
static int var_ids;      /* names v1, v2, ... across the program */
static int kernel_ids;   /* K1, K2, ... */
static int risky_left;   /* operations that may fail still allowed */

static Text kernels, tops, body;
static Var *wanted[2]; /* results the statement returns (a split's counts) */
static int nwanted;

static Var *new_var(Kind kind, int base, int cls) {
  if (nvars == MAX_VARS)
    exit(2);
  Var *v = &vars[nvars++];
  memset(v, 0, sizeof *v);
  snprintf(v->name, sizeof v->name, "v%d", ++var_ids);
  v->pending = kind != SCALAR || cls >= 0;
  v->kind = kind;
  v->base = base;
  v->cls = cls;
  return v;
}

static const char *type_of(const Var *v) {
  static char buf[4][16];
  static int k;
  k = (k + 1) % 4;
  if (v->kind == SD)
    return "sd";
  if (v->kind == SCALAR)
    return base_name[v->base];
  snprintf(buf[k], sizeof buf[k], "[%s]", base_name[v->base]);
  return buf[k];
}

/* A random vector of base 'base' (-1: any) and class 'cls' (-1: any). */
static Var *find_vec(int base, int cls) {
  int cands[MAX_VARS], n = 0;
  for (int i = 0; i < nvars; i++)
    if (vars[i].kind == VEC && !vars[i].pending && (base < 0 || vars[i].base == base) && (cls < 0 || vars[i].cls == cls))
      cands[n++] = i;
  return n ? &vars[cands[pick(n)]] : NULL;
}

static Var *find(Kind kind, int base) {
  int cands[MAX_VARS], n = 0;
  for (int i = 0; i < nvars; i++)
    if (vars[i].kind == kind && !vars[i].pending && (base < 0 || vars[i].base == base))
      cands[n++] = i;
  return n ? &vars[cands[pick(n)]] : NULL;
}

/* ---- kernels ----
   A kernel's parameters stand for CPU variables; a thunk reads them at
   its own index (in range: the SOAC's size is the length of their
   class) or as scalars. */

typedef struct Kernel {
  Var *args[32];     /* the CPU variables passed */
  int nargs;
  Text thunk_using;  /* the `using` list of the thunk being made */
  int used[32];      /* parameter k is in that list */
} Kernel;

static Kernel kx;

static void kernel_start(void) { memset(&kx, 0, sizeof kx); }

/* The parameter standing for CPU variable 'v' (made once): "pN". */
static int param(Var *v) {
  for (int i = 0; i < kx.nargs; i++)
    if (kx.args[i] == v)
      return i;
  if (kx.nargs == 32)
    exit(2);
  kx.args[kx.nargs] = v;
  return kx.nargs++;
}

/* A read in the thunk being made: listed in its `using`. */
static int use(Var *v) {
  int p = param(v);
  if (!kx.used[p]) {
    kx.used[p] = 1;
    put(&kx.thunk_using, "%sp%d", kx.thunk_using.len ? ", " : "", p);
  }
  return p;
}

static void thunk_start(void) {
  free(kx.thunk_using.s);
  memset(&kx.thunk_using, 0, sizeof kx.thunk_using);
  memset(kx.used, 0, sizeof kx.used);
}

/* " using ..." of the thunk being made, or "". */
static char *thunk_using(void) {
  static char buf[1024];
  snprintf(buf, sizeof buf, "%s%s", kx.thunk_using.len ? " using " : "", kx.thunk_using.len ? kx.thunk_using.s : "");
  return buf;
}

/* ---- thunk expressions ---- */

static int cls_now;        /* the class the SOAC's index runs over (-1: none) */
static const char *index_now; /* its index parameter's name, or NULL */
static int lets;           /* let-bound names so far in the expression */

static void gen(Text *t, int type, int depth);

static void gen_int(Text *t, int depth) {
  int c = depth > 2 ? pick(3) : pick(11);
  Var *v;
  switch (c) {
  case 0:
    put(t, "%d", pick(9) - 3);
    return;
  case 1:
    if (index_now) {
      put(t, "%s", index_now);
      return;
    }
    put(t, "%d", pick(5));
    return;
  case 2:
    if (index_now && (v = find_vec(INT, cls_now))) {
      put(t, "p%d[%s]", use(v), index_now);
      return;
    }
    if ((v = find(SCALAR, INT))) {
      put(t, "p%d", use(v));
      return;
    }
    put(t, "%d", pick(7));
    return;
  case 3:
  case 4:
    put(t, "(");
    gen_int(t, depth + 1);
    put(t, " %s ", c == 3 ? "+" : "-");
    gen_int(t, depth + 1);
    put(t, ")");
    return;
  case 5:
    put(t, "(");
    gen_int(t, depth + 1);
    put(t, " * ");
    gen_int(t, depth + 1);
    put(t, ")");
    return;
  case 6:
    put(t, "rem(");
    gen_int(t, depth + 1);
    put(t, ", %d)", 1 + pick(4));
    return;
  case 7:
    put(t, "btoi(");
    gen(t, BOOL, depth + 1);
    put(t, ")");
    return;
  case 8:
    put(t, "(if ");
    gen(t, BOOL, depth + 1);
    put(t, " then ");
    gen_int(t, depth + 1);
    put(t, " else ");
    gen_int(t, depth + 1);
    put(t, ")");
    return;
  case 9: {
    int l = ++lets;
    put(t, "(let l%d = ", l);
    gen_int(t, depth + 1);
    put(t, " in (l%d + l%d))", l, l);
    return;
  }
  default:
    if (risky_left > 0 && chance(30)) { /* may divide by zero */
      risky_left--;
      put(t, "(");
      gen_int(t, depth + 1);
      put(t, " / ");
      gen_int(t, depth + 1);
      put(t, ")");
      return;
    }
    if (index_now && (v = find_vec(INT, cls_now)) && risky_left > 0 && chance(30)) {
      /* may read past the end */
      risky_left--;
      put(t, "p%d[(%s + 1)]", use(v), index_now);
      return;
    }
    put(t, "%d", pick(4));
  }
}

static void gen_float(Text *t, int depth) {
  int c = depth > 2 ? pick(3) : pick(7);
  Var *v;
  switch (c) {
  case 0:
    put(t, "%d.%d", pick(5) - 2, pick(10));
    return;
  case 1:
    if (index_now && (v = find_vec(FLOAT, cls_now))) {
      put(t, "p%d[%s]", use(v), index_now);
      return;
    }
    if ((v = find(SCALAR, FLOAT))) {
      put(t, "p%d", use(v));
      return;
    }
    put(t, "0.5");
    return;
  case 2:
    put(t, "float(");
    gen_int(t, depth + 1);
    put(t, ")");
    return;
  case 3:
  case 4:
    put(t, "(");
    gen_float(t, depth + 1);
    put(t, " %s ", c == 3 ? "+" : "*");
    gen_float(t, depth + 1);
    put(t, ")");
    return;
  case 5:
    put(t, "(if ");
    gen(t, BOOL, depth + 1);
    put(t, " then ");
    gen_float(t, depth + 1);
    put(t, " else ");
    gen_float(t, depth + 1);
    put(t, ")");
    return;
  default:
    if (risky_left > 0 && chance(25)) {
      risky_left--;
      put(t, "(");
      gen_float(t, depth + 1);
      put(t, " / ");
      gen_float(t, depth + 1);
      put(t, ")");
      return;
    }
    put(t, "-1.5");
  }
}

static void gen_bool(Text *t, int depth) {
  int c = depth > 2 ? pick(2) : pick(6);
  Var *v;
  switch (c) {
  case 0:
    if (index_now && (v = find_vec(BOOL, cls_now))) {
      put(t, "p%d[%s]", use(v), index_now);
      return;
    }
    put(t, "%s", chance(50) ? "T" : "F");
    return;
  case 1:
  case 2:
    put(t, "(");
    gen_int(t, depth + 1);
    put(t, " %s ", (const char *[]){"<", ">", "==", "<=", ">=", "/="}[pick(6)]);
    gen_int(t, depth + 1);
    put(t, ")");
    return;
  case 3:
    put(t, "(");
    gen_float(t, depth + 1);
    put(t, " < ");
    gen_float(t, depth + 1);
    put(t, ")");
    return;
  case 4:
    put(t, "(");
    gen_bool(t, depth + 1);
    put(t, " %s ", chance(50) ? "and" : "or");
    gen_bool(t, depth + 1);
    put(t, ")");
    return;
  default:
    put(t, "not(");
    gen_bool(t, depth + 1);
    put(t, ")");
  }
}

static void gen(Text *t, int type, int depth) {
  if (type == INT)
    gen_int(t, depth);
  else if (type == FLOAT)
    gen_float(t, depth);
  else
    gen_bool(t, depth);
}

/* ---- statements ---- */

/* Writes `kernel Kn (params) -> results { soac return ... }` and the run
   binding 'results' (their Var). 'soac' is the SOAC's text with its
   results named r0, r1, ...; 'rtypes' their types. */
static void finish_kernel(const char *soac, Var **results, int nres, int twice) {
  int k = ++kernel_ids;
  for (int i = 0; i < nres; i++)
    results[i]->pending = 0;
  put(&kernels, "kernel K%d (", k);
  for (int i = 0; i < kx.nargs; i++)
    put(&kernels, "%sp%d : %s", i ? ", " : "", i, type_of(kx.args[i]));
  put(&kernels, ") -> ");
  if (nres != 1)
    put(&kernels, "(");
  for (int i = 0; i < nres; i++)
    put(&kernels, "%s%s", i ? ", " : "", type_of(results[i]));
  if (nres != 1)
    put(&kernels, ")");
  put(&kernels, " {\n  %s\n  return ", soac);
  if (nres != 1)
    put(&kernels, "(");
  for (int i = 0; i < nres; i++)
    put(&kernels, "%sr%d", i ? ", " : "", i);
  if (nres != 1)
    put(&kernels, ")");
  put(&kernels, "\n}\n\n");
  for (int time = 0; time < (twice ? 2 : 1); time++) {
    put(&body, "  let ");
    if (nres != 1)
      put(&body, "(");
    for (int i = 0; i < nres; i++) {
      if (time) /* the same run again: new names for its results */
        snprintf(results[i]->name, sizeof results[i]->name, "v%d", ++var_ids);
      put(&body, "%s%s : %s", i ? ", " : "", results[i]->name, type_of(results[i]));
    }
    if (nres != 1)
      put(&body, ")");
    put(&body, " = run K%d (", k);
    for (int i = 0; i < kx.nargs; i++)
      put(&body, "%s%s", i ? ", " : "", kx.args[i]->name);
    put(&body, ")\n");
  }
}

/* "let (r0 : T0, ...) = " for results of types 'types' */
static void let_results(Text *t, const char **types, int n) {
  put(t, "let ");
  if (n != 1)
    put(t, "(");
  for (int i = 0; i < n; i++)
    put(t, "%sr%d : %s", i ? ", " : "", i, types[i]);
  if (n != 1)
    put(t, ")");
  put(t, " = ");
}

/* A pull thunk over class 'cls' of 'n' values of the given bases: the
   text "{ i => (e, ...) using ... }". */
static void pull(Text *t, int cls, const int *bases, int n) {
  thunk_start();
  cls_now = cls;
  index_now = "i";
  Text b = {0};
  if (n > 1)
    put(&b, "(");
  for (int i = 0; i < n; i++) {
    if (i)
      put(&b, ", ");
    Var *v = find_vec(bases[i], cls);
    if (v && chance(50))
      put(&b, "p%d[i]", use(v));
    else
      gen(&b, bases[i], 0);
  }
  if (n > 1)
    put(&b, ")");
  put(t, "{ i => %s%s }", b.s, thunk_using());
  free(b.s);
  index_now = NULL;
}

/* The size of a SOAC over class 'cls': #p of a vector of the class. */
static int size_param(int cls) {
  Var *v = find_vec(-1, cls);
  return v ? param(v) : -1;
}

static int random_class(void) {
  Var *v = find_vec(-1, -1);
  return v ? v->cls : -1;
}

static void stmt_map(void) {
  int cls = random_class();
  if (cls < 0)
    return;
  kernel_start();
  int sp = size_param(cls);
  int n = 1 + pick(2), bases[2] = {pick(3), pick(3)};
  Text s = {0};
  const char *types[2];
  Var *res[2];
  for (int i = 0; i < n; i++) {
    res[i] = new_var(VEC, bases[i], cls);
    types[i] = type_of(res[i]);
  }
  let_results(&s, types, n);
  put(&s, "MAP ");
  pull(&s, cls, bases, n);
  put(&s, " (#p%d)", sp);
  finish_kernel(s.s, res, n, chance(15));
  free(s.s);
}

/* A REDUCE or SCAN (or their SEG_ forms over 'sd'): sums of ints or
   floats, ands and ors of bools. */
static void stmt_combine(int scan, Var *sd) {
  int cls = sd ? sd->total : random_class();
  if (cls < 0)
    return;
  kernel_start();
  int sp = sd ? param(sd) : size_param(cls);
  int n = 1 + pick(2), bases[2] = {pick(3), pick(3)};
  Var *res[2];
  const char *types[2];
  for (int i = 0; i < n; i++) {
    res[i] = new_var(sd && !scan ? VEC : scan ? VEC : SCALAR, bases[i], sd ? (scan ? sd->total : sd->cls) : cls);
    types[i] = type_of(res[i]);
  }
  Text s = {0};
  let_results(&s, types, n);
  put(&s, "%s%s ", sd ? "SEG_" : "", scan ? "SCAN" : "REDUCE");
  pull(&s, cls, bases, n);
  put(&s, " (");
  for (int i = 0; i < n; i++)
    put(&s, "%s%s", i ? ", " : "", bases[i] == INT ? "0" : bases[i] == FLOAT ? "0.0" : "T");
  put(&s, ") { (");
  for (int i = 0; i < 2 * n; i++)
    put(&s, "%sa%d", i ? ", " : "", i);
  put(&s, ") => ");
  if (n > 1)
    put(&s, "(");
  for (int i = 0; i < n; i++)
    put(&s, "%sa%d %s a%d", i ? ", " : "", i, bases[i] == BOOL ? "and" : "+", n + i);
  if (n > 1)
    put(&s, ")");
  put(&s, " } (%sp%d)", sd ? "" : "#", sp);
  finish_kernel(s.s, res, n, 0);
  free(s.s);
}

/* FILTER, PARTITION and their SEG_ forms: values of a class, a
   predicate on them; new classes for what they keep. */
static void stmt_filter(int partition, Var *sd) {
  int cls = sd ? sd->total : random_class();
  if (cls < 0)
    return;
  kernel_start();
  int sp = sd ? param(sd) : size_param(cls);
  int n = 1 + pick(2), bases[2] = {pick(3), pick(3)};
  Var *res[8];
  const char *types[8];
  int nres = 0;
  for (int g = 0; g < (partition ? 2 : 1); g++) {
    int kept = classes++;
    for (int i = 0; i < n; i++) {
      res[nres] = new_var(VEC, bases[i], kept);
      types[nres] = type_of(res[nres]);
      nres++;
    }
    if (sd) {
      Var *nsd = new_var(SD, 0, sd->cls);
      nsd->total = kept;
      res[nres] = nsd;
      types[nres++] = "sd";
    }
  }
  Text s = {0};
  let_results(&s, types, nres);
  put(&s, "%s%s ", sd ? "SEG_" : "", partition ? "PARTITION" : "FILTER");
  pull(&s, cls, bases, n);
  /* the predicate, on the values */
  thunk_start();
  Text pred = {0};
  int b0 = bases[0];
  if (b0 == BOOL)
    put(&pred, "w0");
  else if (b0 == INT)
    put(&pred, "(w0 %s %d)", chance(50) ? ">" : "<=", pick(5) - 1);
  else
    put(&pred, "(w0 > %d.5)", pick(3) - 1);
  put(&s, " { (");
  for (int i = 0; i < n; i++)
    put(&s, "%sw%d", i ? ", " : "", i);
  put(&s, ") => %s } (%sp%d)", pred.s, sd ? "" : "#", sp);
  finish_kernel(s.s, res, nres, 0);
  free(pred.s);
  free(s.s);
}

/* A test of a value of base 'base', with %s where the value goes; an
   int's may divide by it (the statement's one operation that may fail),
   so that the SPLIT's order of checks is tested too. */
static const char *random_test(int base) {
  static char buf[64];
  if (base == BOOL)
    snprintf(buf, sizeof buf, "%s", chance(50) ? "%s" : "not(%s)");
  else if (base == INT && risky_left > 0 && chance(30)) { /* may divide by zero */
    risky_left--;
    snprintf(buf, sizeof buf, "((7 / %%s) %s %d)", chance(50) ? ">" : "<=", pick(5) - 1);
  } else if (base == INT)
    snprintf(buf, sizeof buf, "(%%s %s %d)", chance(50) ? ">" : "<=", pick(5) - 1);
  else
    snprintf(buf, sizeof buf, "(%%s > %d.5)", pick(3) - 1);
  return buf;
}

static Var *library(const char *lib, Var *arg, Kind kind, int base, int cls);

/* What a filter of stmt_split and its count read at element i, in the
   thunk being built: x[i], or with 'ids' x[i] + q[ids[i]] (its
   segment's value too).  Returns x's parameter. */
static int split_read(char *out, size_t size, Var *x, Var *q, Var *ids) {
  int px = use(x);
  if (ids) {
    int pq = use(q), pi = use(ids);
    snprintf(out, size, x->base == INT ? "(p%d[i] + p%d[p%d[i]])" : "(p%d[i] + float(p%d[p%d[i]]))", px, pq, pi);
  } else {
    snprintf(out, size, "p%d[i]", px);
  }
  return px;
}

/* Two or three FILTERs of one class, each of one vector's values by a
   test of its own (fusion makes them one SPLIT); with a sd of the class,
   now and then the SEG_REDUCE that counts the first one's kept values
   in each segment, as a flattened filter's lengths (the SPLIT's counts),
   or counts another test (which stays a SEG_REDUCE). */
static void stmt_split(Var *sd) {
  int cls = sd ? sd->total : random_class();
  if (cls < 0)
    return;
  Var *x = find_vec(-1, cls);
  if (!x)
    return;
  char first[64] = "";
  Var *first_result = NULL;
  /* over a sd, the filters may read each element's segment's value too
     (q[ids[i]], a flattened filter's pivot): the counted SPLIT's pull
     then takes the segment (fusion/segmap.c) */
  Var *ids = NULL, *q = NULL;
  if (sd && (x->base == INT || x->base == FLOAT) && chance(50) && (q = find_vec(INT, sd->cls)))
    ids = library("seg_ids", sd, VEC, INT, sd->total);
  int nf = 2 + pick(2);
  for (int f = 0; f < nf; f++) {
    kernel_start();
    thunk_start();
    char value[96];
    int px = split_read(value, sizeof value, x, q, ids);
    char test[64], pred[80];
    snprintf(test, sizeof test, "%s", random_test(x->base));
    if (!f)
      snprintf(first, sizeof first, "%s", test);
    snprintf(pred, sizeof pred, test, "w0");
    Var *res = new_var(VEC, x->base, classes++);
    if (!f)
      first_result = res;
    const char *type = type_of(res);
    Text s = {0};
    let_results(&s, &type, 1);
    put(&s, "FILTER { i => %s%s } { w0 => %s } (#p%d)", value, thunk_using(), pred, px);
    finish_kernel(s.s, &res, 1, 0);
    free(s.s);
  }
  if (!sd || chance(10))
    return;
  kernel_start();
  thunk_start();
  char read[96], count[160];
  split_read(read, sizeof read, x, q, ids);
  snprintf(count, sizeof count, chance(75) ? first : random_test(x->base), read);
  char using[1024];
  snprintf(using, sizeof using, "%s", thunk_using());
  int psd = param(sd);
  Var *res = new_var(VEC, INT, sd->cls);
  const char *type = type_of(res);
  Text s = {0};
  let_results(&s, &type, 1);
  put(&s, "SEG_REDUCE { i => btoi(%s)%s } (0) { (a0, a1) => a0 + a1 } (p%d)", count, using, psd);
  finish_kernel(s.s, &res, 1, 0);
  free(s.s);
  /* returned, and the first FILTER's values, so that neither is dead */
  if (nwanted == 0) {
    wanted[nwanted++] = res;
    wanted[nwanted++] = first_result;
  }
}

/* PERMUTE: the reverse permutation, or a copy of `into` written at the
   indices (reversed or not). */
static void stmt_permute(void) {
  int cls = random_class();
  if (cls < 0)
    return;
  kernel_start();
  int sp = size_param(cls);
  int base = pick(3);
  Var *into = chance(40) ? find_vec(base, cls) : NULL;
  Var *res = new_var(VEC, base, cls);
  const char *type = type_of(res);
  Text s = {0};
  let_results(&s, &type, 1);
  put(&s, "PERMUTE ");
  pull(&s, cls, &base, 1);
  if (into && chance(50))
    put(&s, " { j => j } (#p%d) into p%d", sp, param(into));
  else if (into)
    put(&s, " { j => ((#p%d - 1) - j) using p%d } (#p%d) into p%d", sp, sp, sp, param(into));
  else
    put(&s, " { j => ((#p%d - 1) - j) using p%d } (#p%d)", sp, sp, sp);
  finish_kernel(s.s, &res, 1, 0);
  free(s.s);
}

/* SEG_PERMUTE over sd: each segment reversed, by the place of each
   element in its segment (a SEG_SCAN of ones) and its segment's length
   (seg_lengths, gathered by seg_ids). */
static Var *library(const char *lib, Var *arg, Kind kind, int base, int cls);

static void stmt_seg_permute(Var *sd) {
  /* places in the segments */
  kernel_start();
  int sp = param(sd);
  Var *place = new_var(VEC, INT, sd->total);
  char soac[256];
  snprintf(soac, sizeof soac, "let r0 : [int] = SEG_SCAN { i => 1 } (0) { (a0, a1) => a0 + a1 } (p%d)", sp);
  finish_kernel(soac, &place, 1, 0);
  Var *lens = library("seg_lengths", sd, VEC, INT, sd->cls);
  Var *ids = library("seg_ids", sd, VEC, INT, sd->total);
  kernel_start();
  sp = param(sd);
  int base = pick(3);
  Var *res = new_var(VEC, base, sd->total);
  const char *type = type_of(res);
  Text s = {0};
  let_results(&s, &type, 1);
  put(&s, "SEG_PERMUTE ");
  pull(&s, sd->total, &base, 1);
  thunk_start();
  int pp = use(place), pi = use(ids), pl = use(lens);
  if (chance(50))
    put(&s, " { j => p%d[j] using p%d } (p%d)", pp, pp, sp);
  else
    put(&s, " { j => ((p%d[p%d[j]] - 1) - p%d[j]) using p%d, p%d, p%d } (p%d)", pl, pi, pp, pl, pi, pp, sp);
  finish_kernel(s.s, &res, 1, 0);
  free(s.s);
}

/* A library kernel of one argument. */
static Var *library(const char *lib, Var *arg, Kind kind, int base, int cls) {
  kernel_start();
  int p = param(arg);
  Var *res = new_var(kind, base, cls);
  char soac[256];
  snprintf(soac, sizeof soac, "let r0 : %s = LIBRARY %s (p%d)", type_of(res), lib, p);
  finish_kernel(soac, &res, 1, chance(20));
  return res;
}

/* A lengths vector (values 0 to 3) of a class, and its sd. */
static Var *make_sd(void) {
  int cls = random_class();
  if (cls < 0)
    return NULL;
  kernel_start();
  int sp = size_param(cls);
  Var *lens = new_var(VEC, INT, cls);
  lens->lengths = 1;
  char soac[256];
  snprintf(soac, sizeof soac, "let r0 : [int] = MAP { i => rem((i + %d) * %d, 4) } (#p%d)", pick(4), 1 + pick(3), sp);
  finish_kernel(soac, &lens, 1, 0);
  Var *sd = library("make_segdes", lens, SD, 0, cls);
  sd->total = classes++;
  /* a data vector of its elements: MAP over #elements sd */
  Var *n = new_var(SCALAR, INT, -1);
  put(&body, "  let %s : int = #elements %s\n", n->name, sd->name);
  kernel_start();
  int np = param(n);
  Var *data = new_var(VEC, pick(2) ? INT : FLOAT, sd->total);
  snprintf(soac, sizeof soac, "let r0 : %s = MAP { i => %s } (p%d)", type_of(data),
           data->base == INT ? "((i * 7) - 5)" : "(float(i) * 0.5)", np);
  finish_kernel(soac, &data, 1, 0);
  return sd;
}

/* ONCE: the first element, guarded, of a vector that may be empty. */
static void stmt_once(void) {
  Var *v = find_vec(INT, -1);
  if (!v)
    return;
  kernel_start();
  thunk_start();
  int p = use(v);
  Var *res = new_var(SCALAR, INT, -1);
  char soac[256];
  snprintf(soac, sizeof soac, "let r0 : int = ONCE { () => if 0 < #p%d then p%d[0] else -1 using p%d }", p, p, p);
  finish_kernel(soac, &res, 1, 0);
}

/* Host work: a length, arithmetic on a reduction's value, an if. */
static void stmt_host(void) {
  Var *x = find(SCALAR, INT), *v = find_vec(-1, -1);
  switch (pick(3)) {
  case 0:
    if (v) {
      Var *n = new_var(SCALAR, INT, -1);
      put(&body, "  let %s : int = #%s\n", n->name, v->name);
    }
    return;
  case 1:
    if (x) {
      Var *y = new_var(SCALAR, INT, -1);
      put(&body, "  let %s : int = %s * %d\n", y->name, x->name, pick(4) - 1);
    }
    return;
  default:
    if (x) {
      Var *c = new_var(SCALAR, BOOL, -1), *r = new_var(SCALAR, INT, -1);
      put(&body, "  let %s : bool = %s > 2\n", c->name, x->name);
      put(&body, "  let %s : int = if %s then {\n    return %s\n  } else {\n    return 7\n  }\n", r->name, c->name,
          x->name);
    }
  }
}

static void host_vector(int base, int cls, int len) {
  if (!len) { /* an empty vector: a MAP of no elements */
    kernel_start();
    Var *v = new_var(VEC, base, cls);
    char soac[128];
    snprintf(soac, sizeof soac, "let r0 : %s = MAP { i => %s } (0)", type_of(v),
             base == INT ? "3" : base == FLOAT ? "1.5" : "T");
    finish_kernel(soac, &v, 1, 0);
    return;
  }
  Var *v = new_var(VEC, base, cls);
  v->pending = 0;
  put(&body, "  let %s : %s = host vector (", v->name, type_of(v));
  for (int i = 0; i < len; i++) {
    if (base == INT)
      put(&body, "%s%d", i ? ", " : "", pick(11) - 4);
    else if (base == FLOAT)
      put(&body, "%s%d.%d", i ? ", " : "", pick(9) - 4, pick(10));
    else
      put(&body, "%s%s", i ? ", " : "", chance(50) ? "T" : "F");
  }
  put(&body, ")\n");
}

/* The NESL text standing for a value of this type (its type is all that
   matters: the interpreter prints the λcu values). */
static const char *dummy(const Var *v) {
  static const char *scalar[] = {"0", "0.0", "f"}, *vec[] = {"[] int", "[] float", "[] bool"};
  return v->kind == SCALAR ? scalar[v->base] : vec[v->base];
}

static void top_statement(void) {
  nvars = 0;
  body.len = 0;
  if (body.s)
    body.s[0] = '\0';
  risky_left = chance(30) ? 1 : 0;
  nwanted = 0;
  /* the inputs: one or two classes of host vectors, empty ones too */
  int ninputs = 1 + pick(2);
  for (int c = 0; c < ninputs; c++) {
    int cls = classes++, len = chance(15) ? 0 : 1 + pick(6);
    int nv = 1 + pick(3);
    for (int i = 0; i < nv; i++)
      host_vector(pick(3), cls, len);
  }
  Var *sds[8];
  int nsds = 0;
  int nstmts = 3 + pick(10);
  for (int i = 0; i < nstmts; i++) {
    int what = pick(18);
    Var *sd = nsds ? sds[pick(nsds)] : NULL;
    switch (what) {
    case 0:
    case 1:
    case 2:
      stmt_map();
      break;
    case 3:
      stmt_combine(0, NULL);
      break;
    case 4:
      stmt_combine(1, NULL);
      break;
    case 5:
      stmt_filter(0, NULL);
      break;
    case 6:
      stmt_filter(1, NULL);
      break;
    case 7:
      stmt_permute();
      break;
    case 8:
      stmt_once();
      break;
    case 9:
      if (nsds < 8 && (sd = make_sd()))
        sds[nsds++] = sd;
      break;
    case 10:
      if (sd)
        stmt_combine(pick(2), sd);
      break;
    case 11:
      if (sd)
        stmt_filter(pick(2), sd);
      break;
    case 12:
      if (sd)
        stmt_seg_permute(sd);
      break;
    case 13:
      if (sd)
        library(chance(50) ? "seg_offsets" : "seg_lengths", sd, VEC, INT, sd->cls);
      break;
    case 14:
      stmt_split(NULL);
      break;
    case 15:
      if (!sd && nsds < 8 && (sd = make_sd()))
        sds[nsds++] = sd;
      if (sd)
        stmt_split(sd);
      break;
    default:
      stmt_host();
    }
  }
  /* the results: a few vectors and scalars */
  Var *out[4];
  int nout = 0;
  for (int k = 0; k < nwanted; k++)
    out[nout++] = wanted[k];
  for (int tries = 0; tries < 12 && nout < 4; tries++) {
    Var *v = &vars[nvars - 1 - pick(nvars < 10 ? nvars : 10)];
    if (v->kind == SD)
      continue;
    int dup = 0;
    for (int k = 0; k < nout; k++)
      dup |= out[k] == v;
    if (!dup)
      out[nout++] = v;
  }
  if (!nout)
    out[nout++] = &vars[0];
  put(&tops, "nesl \"");
  if (nout > 1)
    put(&tops, "(");
  for (int i = 0; i < nout; i++)
    put(&tops, "%s%s", i ? ", " : "", dummy(out[i]));
  if (nout > 1)
    put(&tops, ")");
  put(&tops, ";\" : ");
  for (int i = 0; i < nout; i++)
    put(&tops, "%s%s", i ? ", " : "", type_of(out[i]));
  put(&tops, "\ntop {\n%s  return ", body.s);
  if (nout > 1)
    put(&tops, "(");
  for (int i = 0; i < nout; i++)
    put(&tops, "%s%s", i ? ", " : "", out[i]->name);
  if (nout > 1)
    put(&tops, ")");
  put(&tops, "\n}\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_lcu SEED\n");
    return 2;
  }
  state = strtoull(argv[1], NULL, 10) * 0x2545f4914f6cdd1dULL + 1;
  put(&body, "");
  int ntops = 1 + pick(3);
  for (int i = 0; i < ntops; i++)
    top_statement();
  printf("%% generated by tests/fusion/gen_lcu %s %%\n%s%s", argv[1], kernels.s ? kernels.s : "", tops.s);
  return 0;
}
