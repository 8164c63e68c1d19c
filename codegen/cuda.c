/*
 * cuda.c: the GPU target, each SOAC a skeleton of rt/gpu.cuh.
 *
 * A kernel K becomes, at file scope,
 *
 *   struct K_A        what its thunks read: its parameters and the results
 *                     of its SOACs (a vector as its device data K_A.x_d and
 *                     length x_n, a segdes as its offsets x_off and count,
 *                     a scalar as itself), the device's error record and
 *                     the launch's number (gpu.h, rtg_launch);
 *   struct K_<s>_V    the values SOAC s pulls (alignas(8), so that a warp
 *                     can shuffle it word by word);
 *   functors          K_<s>_pull (index -> V), _op (V, V -> V), _pred
 *                     (index, V -> bool), _index (index -> int32_t), _store
 *                     (index, V: the writes), each holding a copy of K_A;
 *
 * a host function `static void K_gpu(RtKernelError *err, RtLoc loc, int
 * run, params..., results...)`, the CPU target's signature, that fills a
 * K_A and launches the skeletons one SOAC after the other on the runtime's
 * one stream; K_host, the CPU target's function for the same kernel; and
 * K, which runs K_host when every vector and size is small (rt/gpu.h,
 * rtg_choose_host: a launch and a read-back cost more than the work), else
 * K_gpu, each with its vectors moved to its side first.  It does not wait: a check in a thunk records its error on
 * the device (rtg::record, the lowest element index wins), and the host
 * finds it where it synchronizes anyway (a scalar result, a size, the end
 * of the statement) and reports it in the context of the `run` that
 * launched it.  The thunk translator (thunk.c) writes the functors'
 * bodies, as it writes the CPU target's loops.
 *
 *   MAP         rtg::map: a grid-stride loop (rtg::map_uneven, one element
 *               a thread, when the thunk calls a scalar loop)
 *   REDUCE      rtg::reduce_launch: ordered, by tiles, one launch (the
 *               last block combines the blocks'), or in a grid for a
 *               commutative operator; the result read back with the
 *               kernel's counts (flush_filters)
 *   SCAN        rtg::scan: exclusive, ordered; one pass (a decoupled
 *               look-back) where no value is a float, else three
 *   FILTER,     rtg::partition_launch: one pass (a decoupled look-back)
 *   PARTITION   into vectors of the SOAC's size, cut to the count read back
 *               (one wait for a kernel's independent ones); with SCANs
 *               and REDUCEs of its size, rtg::parts_launch
 *   PERMUTE     rtg::permute; `into` a copy of D, the highest index
 *               writing a place winning it
 *   ONCE        rtg::once_launch: one thread; the values read back with
 *               the kernel's counts
 *   SEG_REDUCE, rtg::segmented: a warp per segment (rtg::segmented_sum,
 *   SEG_SCAN    atomics, for a SEG_REDUCE of int sums)
 *   SEG_FILTER, the unsegmented select over all the elements, then the
 *   SEG_PART.   new segment lengths (rtg_seg_counts)
 *   SEG_PERMUTE rtg::seg_permute
 *   LIBRARY     the runtime's device functions (rt/gpu.cu), called as
 *               library.c's table says; a loop (LIB_LOOP): rtg::map_uneven,
 *               whose pull calls the element function (scalarfn.c) on one
 *               element's segments, a thread each
 */
#include <string.h>

#include "codegen.h"

/* The state of the kernel being written. */
typedef struct Gx {
  Cg *cg;
  const LcuKernel *k;
  const LcuSoac *s; /* the SOAC being written */
  int index;        /* its position in the kernel */
  CgBinding *dev;   /* the device's view: K_A's fields (A.x_d, ...) */
  CgBinding *host;  /* the host's view: the RtValue * locals and scalars */
  Vec vectors;      /* const LcuVar *: every vector or segdes local of
                       the host function, freed at the end unless a
                       result */
  const char *slot; /* a FILTER's or PARTITION's: the local its count's
                       slot goes to, and the one its size goes to (both
                       declared before its block: flush_filters reads
                       them after it) */
  const char *slot_n;
  Vec pending;      /* PendingFilter *: FILTERs launched, their counts
                       not read yet */
  const LcuSoac *fields_of; /* the SOAC whose V fields 'fields' gives (v_field) */
  int *fields;
  Vec a_fields;     /* AField *: K_A's fields, in its order */
  Map reads;        /* a functor's name -> the bool of each of a_fields
                       that it reads (open_functor, close_functor) */
  const char *open; /* the functor being written, or NULL */
  CgText *saved_out; /* the output its text goes to when closed */
  CgText body;      /* its text, until its fields are known */
} Gx;

/* A field of K_A: its name and its declaration. */
typedef struct AField {
  const char *name;
  const char *decl;
} AField;

/* A FILTER whose count is read after the independent SOACs that follow
   it are launched too (flush_filters): one wait for all.  A REDUCE or
   ONCE whose values the host reads joins them the same way (its slot,
   the identity a REDUCE of no elements gives). */
typedef struct PendingFilter {
  const LcuSoac *s;
  int index; /* of 's' in the kernel */
  const char *slot;
  const char *n;        /* its size: a PARTITION's others are n less the kept */
  const char *identity; /* a REDUCE's, or NULL */
} PendingFilter;

static void pend_read(Gx *x, const char *id);

static bool is_vec(const LcuVar *v) { return v->type.kind == LT_VEC; }
static bool is_sd(const LcuVar *v) { return v->type.kind == LT_SEGDES; }

/* The variables K_A holds: the kernel's parameters and every SOAC's
   results, each once. */
static void a_vars(const LcuKernel *k, Vec *out) {
  PtrMap seen = {0};
  for (int i = 0; i < k->params.len; i++)
    if (!ptrmap_get(&seen, k->params.data[i])) {
      ptrmap_put(&seen, k->params.data[i], (void *)1);
      vec_push(out, k->params.data[i]);
    }
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    for (int r = 0; r < s->results.len; r++)
      if (!ptrmap_get(&seen, s->results.data[r])) {
        ptrmap_put(&seen, s->results.data[r], (void *)1);
        vec_push(out, s->results.data[r]);
      }
  }
}

/* Do the values of REDUCE or ONCE 'index' of 'k' stay on the device for
   the kernel's later SOACs, which read them only in thunks?  None of
   them a result of the kernel (fusion/devscalar.c makes such kernels: a
   MAP of one element after the REDUCE or ONCE computes what later
   kernels read), none a size, an `into` or a library kernel's argument,
   none checked on the device (devcheck.c). */
static bool value_inside(const Cg *cg, const LcuKernel *k, int index) {
  const LcuSoac *s = k->soacs.data[index];
  if ((s->kind != SOAC_REDUCE && s->kind != SOAC_ONCE) || cg_reduce_on_device(cg, k, index))
    return false;
  bool read = false;
  for (int v = 0; v < s->results.len; v++) {
    const LcuVar *r = s->results.data[v];
    if (cg_kernel_result(k, r))
      return false;
    for (int j = index + 1; j < k->soacs.len; j++) {
      const LcuSoac *t = k->soacs.data[j];
      if (lcu_soac_reads_outside_thunks(t, r))
        return false;
      read |= lcu_soac_reads(t, r);
    }
  }
  return read;
}

/* The REDUCE (its index) of 'k' whose value 'v' stays on the device
   (value_inside), and which of its values, in '*value'; -1 if none. */
static int inside_value(const Cg *cg, const LcuKernel *k, const LcuVar *v, int *value) {
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    for (int r = 0; r < s->results.len; r++)
      if (s->results.data[r] == v && value_inside(cg, k, i)) {
        *value = r;
        return i;
      }
  }
  return -1;
}

/* The device's binding of 'v' of kernel 'k': K_A's fields as 'a' names
   them ("A"). */
static CgBinding *bind_device(Cg *cg, CgBinding *env, const LcuKernel *k, const LcuVar *v, const char *a) {
  const char *n = cg_name(v);
  if (is_vec(v)) { /* checked against a parameter of one length with it, where one is before it */
    const LcuVar *same = cg_same_length_param(cg, k, v);
    return cg_bind(env, v, xprintf("%s.%s_d", a, n), xprintf("%s.%s_n", a, same ? cg_name(same) : n), NULL);
  }
  if (is_sd(v))
    return cg_bind(env, v, xprintf("%s.%s", a, n), xprintf("%s.%s_n", a, n), xprintf("%s.%s_off", a, n));
  env = cg_bind(env, v, xprintf("%s.%s", a, n), NULL, NULL);
  if (cg_divides_by(k, v))
    env->divisor = xprintf("%s.%s_dv", a, n);
  return env;
}

/* Sets K_A's fields of vector or segdes 'v' (an RtValue * named by its
   λcu name) on the host, and binds its host view. */
static void fill_a(Gx *x, const LcuVar *v) {
  Cg *cg = x->cg;
  const char *n = cg_name(v);
  if (is_vec(v)) {
    cg_line(cg, "A.%s_d = %s->data.%s;", n, n, cg_member(v->type.base));
    cg_line(cg, "A.%s_n = %s->len;", n, n);
    x->host = cg_bind(x->host, v, n, xprintf("%s->len", n), NULL);
  } else if (is_sd(v)) {
    cg_line(cg, "A.%s_off = rtg_seg_offsets(%s);", n, n);
    cg_line(cg, "A.%s_n = %s->len;", n, n);
    x->host = cg_bind(x->host, v, n, xprintf("%s->len", n), xprintf("A.%s_off", n));
  } else {
    cg_line(cg, "A.%s = %s;", n, n);
    if (cg_divides_by(x->k, v)) /* prepared once for every element's division */
      cg_line(cg, "A.%s_dv = rt_divisor(%s);", n, n);
    x->host = cg_bind(x->host, v, n, NULL, NULL);
  }
}

/* ---- the structs ---- */

static const char *kname(Gx *x, const char *what) { return xprintf("%s_%d_%s", x->k->name, x->index, what); }

static int nvalues(const LcuSoac *s) { return s->pull ? s->pull->body.len : 0; }
static FlatBase value_base(const LcuSoac *s, int i) { return ((LcuExp *)s->pull->body.data[i])->type; }

/* Adds field 'name' of K_A, declared by 'decl', to x->a_fields, and
   returns 'decl' for the caller's line. */
static const char *add_field(Gx *x, const char *name, const char *decl) {
  AField *f = xmalloc(sizeof *f);
  *f = (AField){name, decl};
  vec_push(&x->a_fields, f);
  return decl;
}

/* K_A: every vector, segdes and scalar the kernel's SOACs read or
   write, as the host fills it (fill_a).  A functor holds only the
   fields its code reads (close_functor): a launch's argument block is
   the sum of its functors', and a fused kernel's several functors each
   held the whole K_A before. */
static void gen_a_struct(Gx *x, const Vec *vars) {
  Cg *cg = x->cg;
  const LcuKernel *k = x->k;
  for (int i = 0; i < k->soacs.len; i++)
    if (value_inside(cg, k, i))
      cg_line(cg, "struct %s_%d_V;", k->name, i);
  cg_line(cg, "struct %s_A {", k->name);
  cg->indent++;
  cg_line(cg, "%s", add_field(x, "err", "RtKernelError *err;"));
  cg_line(cg, "%s", add_field(x, "run", "int run;"));
  for (int i = 0; i < k->soacs.len; i++)
    if (value_inside(cg, k, i))
      cg_line(cg, "%s /* the SOAC's values, on the device */",
              add_field(x, xprintf("%s_%d_dev", k->name, i),
                        xprintf("const %s_%d_V *%s_%d_dev;", k->name, i, k->name, i)));
  for (int i = 0; i < vars->len; i++) {
    const LcuVar *v = vars->data[i];
    const char *n = cg_name(v);
    int value;
    if (inside_value(cg, k, v, &value) >= 0)
      continue;
    if (is_vec(v) || is_sd(v)) { /* the data and the length on one line */
      const char *data = is_vec(v) ? add_field(x, xprintf("%s_d", n), xprintf("%s *%s_d;", cg_ctype(v->type.base), n))
                                   : add_field(x, xprintf("%s_off", n), xprintf("const int64_t *%s_off;", n));
      const char *len = add_field(x, xprintf("%s_n", n), xprintf("int64_t %s_n;", n));
      cg_line(cg, "%s %s", data, len);
    } else
      cg_line(cg, "%s", add_field(x, n, xprintf("%s %s;", cg_ctype(v->type.base), n)));
    if (cg_divides_by(k, v))
      cg_line(cg, "%s /* %s, prepared to divide by */", add_field(x, xprintf("%s_dv", n), xprintf("RtDivisor %s_dv;", n)), n);
  }
  cg->indent--;
  cg_line(cg, "};");
}

/* ---- a SPLIT's values computed once ----

   A SPLIT made of FILTERs of one input (quicksort's lesser, equal and
   greater) has each class's copy of the element among its pull's
   values: V held the int three times beside the three flags, 24 bytes
   where 8 do, and the tile's size follows V's (rtg::SPLIT_ITEMS: two
   elements a thread where 8 bytes take eight).  Columns that compute
   the same value share one field of V.  The pull's code is as before
   (its checks, at their own locations, stay): only what it returns,
   and where the predicate and the stores read, change. */

/* The thunk-level let of thunk 't' that binds 'v', or NULL. */
static const LcuExp *let_value(const LcuThunk *t, const LcuVar *v) {
  for (int i = 0; i < t->lets.len; i++)
    if (((const LcuLet *)t->lets.data[i])->var == v)
      return ((const LcuLet *)t->lets.data[i])->value;
  return NULL;
}

typedef struct SameValue {
  const LcuThunk *t;
  Vec bound;  /* LcuVar *, in pairs: names LE_LETs of a and b bind, each for the other */
  int budget; /* comparisons left: a thunk whose lets read each other
                 twice over would take exponential time; past it, "no" */
} SameValue;

/* Do 'a' and 'b' (of thunk sv->t) compute the same value?  The same
   operations on the same operands, a name a thunk-level let binds
   standing for its value; their locations may differ.  "No" when
   unsure. */
static bool same_value(SameValue *sv, const LcuExp *a, const LcuExp *b) {
  if (--sv->budget < 0)
    return false;
  if (a == b)
    return true;
  const LcuExp *la = a->kind == LE_VAR ? let_value(sv->t, a->var) : NULL;
  const LcuExp *lb = b->kind == LE_VAR ? let_value(sv->t, b->var) : NULL;
  if (la || lb)
    return same_value(sv, la ? la : a, lb ? lb : b);
  if (a->kind != b->kind || a->type != b->type || a->op != b->op || a->nargs != b->nargs ||
      a->in_range != b->in_range || a->callee != b->callee)
    return false;
  if (a->kind == LE_CONST) {
    if (a->constant.kind != b->constant.kind)
      return false;
    switch (a->constant.kind) {
    case FA_INT:
      return a->constant.u.i == b->constant.u.i;
    case FA_FLOAT: /* the same bits: -0.0 is not 0.0, a NaN is itself */
      return memcmp(&a->constant.u.f, &b->constant.u.f, sizeof(double)) == 0;
    case FA_BOOL:
      return a->constant.u.b == b->constant.u.b;
    case FA_CHAR:
      return a->constant.u.c == b->constant.u.c;
    default:
      return false;
    }
  }
  if (a->kind == LE_LET) {
    if (!same_value(sv, a->args[0], b->args[0]))
      return false;
    vec_push(&sv->bound, a->var);
    vec_push(&sv->bound, b->var);
    bool same = same_value(sv, a->args[1], b->args[1]);
    sv->bound.len -= 2;
    return same;
  }
  if (a->var != b->var) {
    bool paired = false; /* the names two LE_LETs bind, innermost first */
    for (int i = sv->bound.len - 2; i >= 0 && !paired; i -= 2) {
      if (sv->bound.data[i] == a->var || sv->bound.data[i + 1] == b->var) {
        if (sv->bound.data[i] != a->var || sv->bound.data[i + 1] != b->var)
          return false;
        paired = true;
      }
    }
    if (!paired)
      return false;
  }
  for (int i = 0; i < a->nargs; i++)
    if (!same_value(sv, a->args[i], b->args[i]))
      return false;
  return true;
}

/* The field of V that holds the SOAC's value i: v<field>.  A SPLIT's
   value equal to an earlier one of the same type shares the first one's
   field; every other SOAC's value i is field i.  Found once a SOAC. */
static int v_field(Gx *x, int i) {
  if (x->s->kind != SOAC_SPLIT)
    return i;
  if (x->fields_of != x->s) {
    const LcuThunk *t = x->s->pull;
    int n = nvalues(x->s);
    x->fields = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
    for (int v = 0; v < n; v++) {
      x->fields[v] = v;
      for (int j = 0; j < v; j++) {
        SameValue sv = {t, {0}, 10000};
        if (x->fields[j] == j && value_base(x->s, j) == value_base(x->s, v) &&
            same_value(&sv, t->body.data[j], t->body.data[v])) {
          x->fields[v] = j;
          break;
        }
      }
    }
    x->fields_of = x->s;
  }
  return x->fields[i];
}

static void gen_v_struct(Gx *x) {
  Cg *cg = x->cg;
  cg_line(cg, "struct alignas(8) %s {", kname(x, "V"));
  for (int i = 0; i < nvalues(x->s); i++)
    if (v_field(x, i) == i)
      cg_line(cg, "  %s v%d;", cg_ctype(value_base(x->s, i)), i);
    else
      cg_line(cg, "  /* v%d: v%d, the same value */", i, v_field(x, i));
  cg_line(cg, "};");
}

/* ---- functors ---- */

/* The checks of a thunk in a functor: errors at element 'index' go to
   A.err. */
static CgChecks device_checks(Gx *x, const char *index, const char *ix) {
  const LcuSize *sz = &x->s->size;
  const char *safe = sz->length ? cg_lookup(x->dev, sz->length)->length : NULL;
  CgChecks c = {index, "A.err", ix, safe, x->s->loc, x->s->kind == SOAC_ONCE ? "RT_ELT" : "RT_GATHER", false};
  return c;
}

/* Stores a thunk's values as `return V{...};`. */
static void return_v(Cg *cg, void *ctx, const char **values, int n) {
  const char *vname = ctx;
  Buf b = {0};
  for (int i = 0; i < n; i++)
    buf_printf(&b, "%s%s", i ? ", " : "", values[i]);
  cg_line(cg, "return %s{%s};", vname, buf_str(&b));
}

/* Stores a pull's values as `return V{...};`, each field once (v_field). */
static void return_v_fields(Cg *cg, void *ctx, const char **values, int n) {
  Gx *x = ctx;
  Buf b = {0};
  for (int i = 0; i < n; i++)
    if (v_field(x, i) == i)
      buf_printf(&b, "%s%s", b.len ? ", " : "", values[i]);
  cg_line(cg, "return %s{%s};", kname(x, "V"), buf_str(&b));
}

/* Stores one value as `return (T)value;`. */
static void return_one(Cg *cg, void *ctx, const char **values, int n) {
  if (n != 1)
    die("codegen: a predicate or index thunk gives %d values", n);
  cg_line(cg, "return (%s)%s;", (const char *)ctx, values[0]);
}

/* Begins functor 'name' (K_s_what): its text, from the line after its
   `struct name {` on, goes to x->body until close_functor, which writes
   the struct with the fields of K_A that the text reads. */
static void begin_functor(Gx *x, const char *name) {
  Cg *cg = x->cg;
  if (x->open)
    die("codegen: functor %s begun inside %s", name, x->open);
  x->open = name;
  x->saved_out = cg->out;
  x->body = (CgText){0};
  cg->out = &x->body;
  cg->indent++;
}

/* Opens functor K_s_'what' (begin_functor), with 'member' where not
   NULL, and the body of its device operator(), whose declaration is
   'signature'. */
static void open_functor_with(Gx *x, const char *what, const char *signature, const char *member) {
  Cg *cg = x->cg;
  begin_functor(x, kname(x, what));
  for (const char *m = member; m && *m;) { /* a line of the member's each */
    const char *end = strchr(m, '\n');
    int len = end ? (int)(end - m) : (int)strlen(m);
    cg_line(cg, "%.*s", len, m);
    m = end ? end + 1 : m + len;
  }
  cg_line(cg, "__device__ %s {", signature);
  cg->indent++;
}

static void open_functor(Gx *x, const char *what, const char *signature) { open_functor_with(x, what, signature, NULL); }

static int a_field_index(const Gx *x, const char *name, size_t len) {
  for (int i = 0; i < x->a_fields.len; i++) {
    const char *f = ((const AField *)x->a_fields.data[i])->name;
    if (strlen(f) == len && memcmp(f, name, len) == 0)
      return i;
  }
  return -1;
}

/* Marks in 'reads' the fields of K_A that 'text' reads: `A.field`, the
   run number that NESSIE_DEVICE_RECORD reads (A.run), and the fields of
   every functor written before that it makes from its own A
   (`K_s_store{A}`, a ride's). */
static void mark_reads(const Gx *x, const char *text, size_t n, bool *reads) {
  for (size_t i = 0; i + 2 < n; i++) {
    if (i > 0 && (cg_ident_char(text[i - 1]) || text[i - 1] == '.'))
      continue;
    if (text[i] == 'A' && text[i + 1] == '.') {
      size_t e = i + 2;
      while (e < n && cg_ident_char(text[e]))
        e++;
      int f = a_field_index(x, text + i + 2, e - i - 2);
      if (f >= 0)
        reads[f] = true;
      i = e - 1;
      continue;
    }
    if (!cg_ident_char(text[i]))
      continue;
    size_t e = i;
    while (e < n && cg_ident_char(text[e]))
      e++;
    const char *word = xstrndup(text + i, e - i);
    if (strcmp(word, "NESSIE_DEVICE_RECORD") == 0) {
      int f = a_field_index(x, "run", 3);
      if (f >= 0)
        reads[f] = true;
    } else if (e + 2 <= n && text[e] == '{' && text[e + 1] == 'A') {
      const bool *made = map_get(&x->reads, word);
      if (made)
        for (int f = 0; f < x->a_fields.len; f++)
          reads[f] |= made[f];
    }
    i = e - 1;
  }
}

/* Closes the functor that open_functor opened (its operator() and its
   struct), and writes it: `struct K_s_what {`, its A (K_A's fields that
   it reads, made from K_A, or from the A of a functor that holds them
   all), then its text. */
static void close_functor(Gx *x) {
  Cg *cg = x->cg;
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "};");
  bool *reads = xmalloc(sizeof(bool) * (size_t)(x->a_fields.len + 1));
  memset(reads, 0, sizeof(bool) * (size_t)(x->a_fields.len + 1));
  mark_reads(x, x->body.data, x->body.len, reads);
  map_put(&x->reads, x->open, reads);
  cg->out = x->saved_out;
  cg_line(cg, "struct %s {", x->open);
  cg->indent++;
  Buf decls = {0}, init = {0};
  for (int f = 0; f < x->a_fields.len; f++)
    if (reads[f]) {
      const AField *a = x->a_fields.data[f];
      buf_printf(&decls, "%s%s", decls.len ? " " : "", a->decl);
      buf_printf(&init, "%s%s(a.%s)", init.len ? ", " : "", a->name, a->name);
    }
  cg_line(cg, "struct Args { %s%s/* what it reads of %s_A */", buf_str(&decls), decls.len ? " " : "", x->k->name);
  cg_line(cg, "  template <class T> __host__ __device__ Args(const T &a)%s%s {%s} } A;", init.len ? " : " : "",
          buf_str(&init), init.len ? "" : " (void)a; ");
  cg->indent--;
  cg_text_write(cg->out, x->body.data, x->body.len);
  cg_text_free(&x->body);
  x->open = NULL;
}

/* Does expression 'e' read a vector at an index other than 'own' and
   not constant (a gather, or a SEG_ SOAC's read of a segment's value;
   not a value kept on the device, read at 0 by every element)? */
static bool exp_gathers(const LcuExp *e, const LcuVar *own) {
  const LcuExp *i = e->kind == LE_INDEX ? e->args[0] : NULL;
  if (i && i->kind != LE_CONST && !(i->kind == LE_VAR && i->var == own))
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (exp_gathers(e->args[i], own))
      return true;
  return false;
}

/* Where a pull gathers, its reads at its own index (each element read
   once, in order) are loaded as streamed, evict-first in the L2 cache,
   which is left to the gathered vector: spmv's x, read at each column,
   missed the cache less and ran 1.517 -> 1.463 ms (3.5%; cuSPARSE
   1.258; docs/gpu-runs.md, twenty-seventh session). */
static bool pull_gathers(const LcuThunk *t) {
  const LcuVar *own = t->params.len ? t->params.data[0] : NULL;
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    if (exp_gathers(lcu_thunk_exp(t, i), own))
      return true;
  return false;
}

/* K_s_pull: index -> V, the pull thunk at (int32_t)i; one that takes
   the segment (SEG_MAP's, lcu_pull_takes_segment): (index, segment) ->
   V, at ((int32_t)i, (int32_t)s), the skeleton finding s, and
   `segment` says so to rtg::pull_at. */
static void gen_pull(Gx *x) {
  Cg *cg = x->cg;
  const char *v = kname(x, "V");
  bool seg = lcu_pull_takes_segment(x->s);
  open_functor_with(x, "pull", xprintf("%s operator()(int64_t i%s) const", v, seg ? ", int64_t s" : ""),
                    seg ? "static constexpr bool segment = true; /* operator() takes the segment too */" : NULL);
  cg_line(cg, "const int32_t ix = (int32_t)i;");
  cg_line(cg, "(void)ix;");
  if (seg) {
    cg_line(cg, "const int32_t sx = (int32_t)s;");
    cg_line(cg, "(void)sx;");
  }
  CgChecks c = device_checks(x, "i", "ix");
  c.stream_own = pull_gathers(x->s->pull);
  const char **args = seg ? (const char *[]){"ix", "sx"} : (const char *[]){"ix"};
  cg_thunk(cg, x->s->pull, x->s->pull->params.len ? args : NULL, x->dev, &c, return_v_fields, x);
  close_functor(x);
}

/* The arguments 'a.v0', ... of a thunk over the values of V 'a'. */
static const char **v_fields(const char *a, int n) {
  const char **r = xmalloc(sizeof(char *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    r[i] = xprintf("%s.v%d", a, i);
  return r;
}

/* The same for the SOAC's own V, each value where it lies (v_field). */
static const char **soac_v_fields(Gx *x, const char *a) {
  int n = nvalues(x->s);
  const char **r = xmalloc(sizeof(char *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    r[i] = xprintf("%s.v%d", a, v_field(x, i));
  return r;
}


/* K_s_op: (V, V) -> V, a REDUCE's or SCAN's operator.  None of its
   operations fails (a float sum that overflows is infinite, as NESL's
   is); a check in it would know no element, and would be recorded after
   every element's, at the index INT64_MAX - 1. */
static void gen_op(Gx *x) {
  Cg *cg = x->cg;
  const char *v = kname(x, "V");
  int nv = nvalues(x->s);
  open_functor(x, "op", xprintf("%s operator()(const %s &a, const %s &b) const", v, v, v));
  const char **args = xmalloc(sizeof(char *) * (size_t)(2 * nv + 1));
  const char **fa = v_fields("a", nv), **fb = v_fields("b", nv);
  for (int i = 0; i < nv; i++) {
    args[i] = fa[i];
    args[nv + i] = fb[i];
  }
  CgChecks c = device_checks(x, "(INT64_MAX - 1)", NULL);
  cg_thunk(cg, x->s->second, args, x->dev, &c, return_v, (void *)v);
  close_functor(x);
}

/* K_s_pred: (index, V) -> bool, a FILTER's or PARTITION's predicate. */
static void gen_pred(Gx *x) {
  Cg *cg = x->cg;
  open_functor(x, "pred", xprintf("bool operator()(int64_t i, const %s &v) const", kname(x, "V")));
  CgChecks c = device_checks(x, "i", NULL);
  cg_thunk(cg, x->s->second, v_fields("v", nvalues(x->s)), x->dev, &c, return_one, (void *)"bool");
  close_functor(x);
}

/* K_s_pred of a SPLIT: (index, V) -> the bits of the element's classes
   (bit c: class c), rtg::split_launch's predicate. */
static void return_bits(Cg *cg, void *ctx, const char **values, int n) {
  (void)ctx;
  Buf b = {0};
  for (int c = 0; c < n; c++)
    buf_printf(&b, "%s((unsigned)((%s) != 0) << %d)", c ? " | " : "", values[c], c);
  cg_line(cg, "return %s;", buf_str(&b));
}

static void gen_split_pred(Gx *x) {
  Cg *cg = x->cg;
  open_functor(x, "pred", xprintf("unsigned operator()(int64_t i, const %s &v) const", kname(x, "V")));
  CgChecks c = device_checks(x, "i", NULL);
  cg_thunk(cg, x->s->second, soac_v_fields(x, "v"), x->dev, &c, return_bits, NULL);
  close_functor(x);
}

/* K_s_store of a SPLIT: class c's values of V (its columns) to its
   results at position i; a column read by nothing is not stored. */
static void gen_split_store(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  open_functor(x, "store", xprintf("void operator()(int c, int64_t i, const %s &v) const", kname(x, "V")));
  cg_line(cg, "switch (c) {");
  for (int c = 0; c < s->classes; c++) {
    cg_line(cg, "case %d:", c);
    cg->indent++;
    for (int v = lcu_split_start(s, c); v < lcu_split_start(s, c + 1); v++) {
      const LcuVar *r = s->results.data[v];
      if (!cg_dead_result(x->k, x->index, r))
        cg_line(cg, "A.%s_d[i] = v.v%d;", cg_name(r), v_field(x, v));
      else
        cg_line(cg, "/* v.v%d: %s, read by nothing */", v, cg_name(r));
    }
    cg_line(cg, "break;");
    cg->indent--;
  }
  cg_line(cg, "}");
  close_functor(x);
}

/* K_s_index: index -> int32_t, a PERMUTE's index thunk. */
static void gen_index(Gx *x) {
  Cg *cg = x->cg;
  open_functor(x, "index", "int32_t operator()(int64_t i) const");
  cg_line(cg, "const int32_t ix = (int32_t)i;");
  CgChecks c = device_checks(x, "i", "ix");
  cg_thunk(cg, x->s->second, (const char *[]){"ix"}, x->dev, &c, return_one, (void *)"int32_t");
  close_functor(x);
}

static bool dead_result(const Gx *x, const LcuVar *v) { return cg_dead_result(x->k, x->index, v); }

/* The stores of a store functor's operator(): V's values to the results
   'first' .. of the SOAC, at position i; the dead results of a MAP, a
   FILTER or a PARTITION not (dead_result).  A joined PARTITION's
   others go through the same functor, at their index past the kept
   count (rtg::partition_joined adds it). */
static void store_lines(Gx *x, int first) {
  Cg *cg = x->cg;
  for (int i = 0; i < nvalues(x->s); i++)
    if (!dead_result(x, x->s->results.data[first + i]))
      cg_line(cg, "A.%s_d[i] = v.v%d;", cg_name(x->s->results.data[first + i]), i);
    else
      cg_line(cg, "/* v.v%d: %s, read by nothing (its checks are the pull's) */", i,
              cg_name(x->s->results.data[first + i]));
}

/* A store functor 'name': writes V's values to the results 'first' ..
   of the SOAC, at position i. */
static void gen_store(Gx *x, const char *name, int first) {
  open_functor(x, name, xprintf("void operator()(int64_t i, const %s &v) const", kname(x, "V")));
  store_lines(x, first);
  close_functor(x);
}

/* Is value i of a FILTER's or PARTITION's V stored (as a kept value, or
   a PARTITION's other)? */
static bool filter_value_stored(Gx *x, int i) {
  int nv = nvalues(x->s);
  return !dead_result(x, x->s->results.data[i]) ||
         (x->s->kind == SOAC_PARTITION && !x->s->joined && !dead_result(x, x->s->results.data[nv + i]));
}

/* Does a FILTER's or PARTITION's tile stage less than V: some of V's
   values stored and some not (the predicate's flag, which the pull
   computes and nothing stores)?  Then K_s_S holds the stored ones and
   the store functors say so (rtg::Staged). */
static bool filter_stages_part(Gx *x) {
  if (x->s->kind != SOAC_FILTER && x->s->kind != SOAC_PARTITION)
    return false;
  int stored = 0, nv = nvalues(x->s);
  for (int i = 0; i < nv; i++)
    stored += filter_value_stored(x, i);
  return stored > 0 && stored < nv;
}

/* K_s_S: the values of V that a FILTER's or PARTITION's stores write,
   under V's names. */
static void gen_staged_struct(Gx *x) {
  Cg *cg = x->cg;
  cg_line(cg, "struct %s { /* what a tile stages of %s: the values stored */", kname(x, "S"), kname(x, "V"));
  for (int i = 0; i < nvalues(x->s); i++)
    if (filter_value_stored(x, i))
      cg_line(cg, "  %s v%d;", cg_ctype(value_base(x->s, i)), i);
  cg_line(cg, "};");
}

/* A FILTER's or PARTITION's store functor 'name' where the tile stages
   K_s_S (filter_stages_part): V to S, and S's values to the results
   'first' .. */
static void gen_staged_store(Gx *x, const char *name, int first) {
  const char *v = kname(x, "V"), *st = kname(x, "S");
  Buf b = {0};
  for (int i = 0; i < nvalues(x->s); i++)
    if (filter_value_stored(x, i))
      buf_printf(&b, "%sv.v%d", b.len ? ", " : "", i);
  open_functor_with(x, name, xprintf("void operator()(int64_t i, const %s &v) const", st),
                    xprintf("typedef %s staged;\n__device__ static %s stage(const %s &v) { return %s{%s}; }", st,
                            st, v, st, buf_str(&b)));
  store_lines(x, first);
  close_functor(x);
}

/* A SEG_REDUCE of int sums (cg_op_int_sum), made by atomics
   (rtg::segmented_sum): K_s_add adds V's values to segment i's results,
   K_s_zero sets the first n of each result to 0 before, on the host. */
static void gen_sum_functors(Gx *x) {
  Cg *cg = x->cg;
  int nv = nvalues(x->s);
  open_functor(x, "add", xprintf("void operator()(int64_t i, const %s &v) const", kname(x, "V")));
  for (int i = 0; i < nv; i++)
    cg_line(cg, "atomicAdd(&A.%s_d[i], v.v%d);", cg_name(x->s->results.data[i]), i);
  close_functor(x);
  begin_functor(x, kname(x, "zero"));
  cg_line(cg, "void operator()(int64_t n) const {");
  cg->indent++;
  for (int i = 0; i < nv; i++) {
    const char *r = cg_name(x->s->results.data[i]);
    cg_line(cg, "rtg_zero(A.%s_d, sizeof *A.%s_d * (size_t)n);", r, r);
  }
  close_functor(x);
}

/* The argument checks of the REDUCE at x->index that the kernel makes on
   the device (devcheck.c), in the host's order: K_s_check, holding their
   sites (the runs pass them), gives false and the first failing one's
   error; on the device (rtg::check_result) and on the host (gen_dispatch,
   after K_host). */
static void gen_check(Gx *x) {
  Cg *cg = x->cg;
  const Vec *d = cg_device_checks(cg, x->k);
  int n = 0;
  for (int i = 0; i < d->len; i++)
    n += ((const CgDevCheck *)d->data[i])->soac == x->index;
  cg_line(cg, "struct %s {", kname(x, "check"));
  cg->indent++;
  cg_line(cg, "int site[%d];", n);
  cg_line(cg, "__host__ __device__ bool operator()(const %s &v, RtKernelError *e, int run) const {", kname(x, "V"));
  cg->indent++;
  for (int i = 0, j = 0; i < d->len; i++) {
    const CgDevCheck *c = d->data[i];
    if (c->soac != x->index)
      continue;
    const char *op[3];
    for (int o = 0; o < 3; o++)
      op[o] = c->value[o] >= 0 ? xprintf("(int64_t)v.v%d", c->value[o]) : xprintf("(int64_t)%lld", (long long)c->constant[o]);
    cg_line(cg, "if (!rt_check_ok(%d /* %s */, %s, %s, %s)) {", c->kind, rt_check_name(c->kind), op[0], op[1], op[2]);
    cg_line(cg, "  *e = NESSIE_ERROR(0, RT_CHECK_ARGUMENT, site[%d], %d, 0, %s, %s, %s, run, 0);", j, c->kind, op[0], op[1],
            op[2]);
    cg_line(cg, "  return false;");
    cg_line(cg, "}");
    j++;
  }
  cg_line(cg, "return true;");
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "};");
}

/* The check functor of REDUCE x->index, made of the sites the kernel's
   entry point was given. */
static const char *check_functor(Gx *x) {
  const Vec *d = cg_device_checks(x->cg, x->k);
  Buf b = {0};
  buf_printf(&b, "%s{{", kname(x, "check"));
  for (int i = 0, j = 0; i < d->len; i++)
    if (((const CgDevCheck *)d->data[i])->soac == x->index)
      buf_printf(&b, "%scheck_site_%d", j++ ? ", " : "", i);
  buf_puts(&b, "}}");
  return buf_str(&b);
}

/* ---- MAPs that ride on another SOAC's launch ----

   A kernel's SOACs are launched one after the other.  A MAP of the same
   size as a later SCAN or REDUCE of the kernel, which nothing between
   them reads, is computed in that SOAC's launch instead of its own: the
   SCAN's store, or the REDUCE's pull, which each skeleton calls once for
   every element, also pulls and stores the MAP's element.  The MAP's
   vectors are made where it stands; its checks record their errors as
   before (for the lowest element index: the order of launches does not
   choose among them).  Fusion leaves such pairs apart because a MAP and
   a SCAN are not one SOAC (quicksort's level had a dozen: `[lesser,
   greater]`'s lengths beside their offsets, an append's values beside
   its scan). */

static bool reads_results_of(const LcuSoac *s, const LcuSoac *of);

static bool same_size(const LcuSize *a, const LcuSize *b) {
  return a->var == b->var && a->length == b->length && (a->var || a->length || a->value == b->value);
}

/* Is 's' a make_segdes or range_segdes whose first argument (and so
   its number of segments) is a result of MAP 'm': one that 'm' may ride
   on, each segment's element of the MAP computed just before the
   segdes reads it, in the same thread (rtg::make_offsets)?  Fusion puts
   such a MAP and segdes in one kernel (docs/fusion.md, "A segdes beside
   its MAP"). */
static bool segdes_of_map(const LcuSoac *s, const LcuSoac *m) {
  if (s->kind != SOAC_LIBRARY || (s->library != LIB_MAKE_SEGDES && s->library != LIB_RANGE_SEGDES) || !s->args.len)
    return false;
  for (int r = 0; r < m->results.len; r++)
    if (s->args.data[0] == m->results.data[r])
      return true;
  return false;
}

/* The SOAC that MAP 'i' of 'k' rides on, or -1: the first later SCAN or
   REDUCE of its size, or make_segdes or range_segdes of its results,
   before anything else that reads them.  A MAP whose thunk calls a
   scalar loop keeps its own launch (rtg::map_uneven's grid).  A segdes
   carries riders only in a kernel that a function runs: each carries an
   instance of the offsets kernel of its own, which nvcc compiles (about
   a quarter of a second each), for a launch fewer per run; a top-level
   statement's kernel runs once (tests/programs/lib_lifted.nesl had 37
   such kernels of 40). */
static int ride_host(Cg *cg, const LcuKernel *k, int i) {
  const LcuSoac *m = k->soacs.data[i];
  if (m->kind != SOAC_MAP || lcu_thunk_calls(m->pull))
    return -1;
  for (int h = i + 1; h < k->soacs.len; h++) {
    const LcuSoac *s = k->soacs.data[h];
    if (segdes_of_map(s, m))
      return cg_kernel_in_function(cg, k) ? h : -1;
    if (reads_results_of(s, m))
      return -1;
    if ((s->kind == SOAC_SCAN || s->kind == SOAC_REDUCE) && same_size(&s->size, &m->size))
      return h;
  }
  return -1;
}

static bool has_riders(Cg *cg, const LcuKernel *k, int h) {
  for (int i = 0; i < h; i++)
    if (ride_host(cg, k, i) == h)
      return true;
  return false;
}

/* K_h_ride: the SCAN's store or the REDUCE's pull of SOAC h, which also
   computes and stores the element of each MAP riding on it; for a
   segdes, only the MAPs' elements (rtg::make_offsets calls it for each
   segment before it reads the segment's length or range). */
static void gen_ride(Gx *x) {
  Cg *cg = x->cg;
  const LcuKernel *k = x->k;
  bool scan = x->s->kind == SOAC_SCAN, segdes = x->s->kind == SOAC_LIBRARY;
  begin_functor(x, kname(x, "ride"));
  if (scan)
    cg_line(cg, "__device__ void operator()(int64_t i, const %s &v) const {", kname(x, "V"));
  else if (segdes)
    cg_line(cg, "__device__ void operator()(int64_t i) const {");
  else
    cg_line(cg, "__device__ %s operator()(int64_t i) const {", kname(x, "V"));
  cg->indent++;
  for (int i = 0; i < x->index; i++)
    if (ride_host(cg, k, i) == x->index)
      cg_line(cg, "%s_%d_store{A}(i, %s_%d_pull{A}(i)); /* MAP %d rides here */", k->name, i, k->name, i, i);
  if (scan)
    cg_line(cg, "%s{A}(i, v);", kname(x, "store"));
  else if (!segdes)
    cg_line(cg, "return %s{A}(i);", kname(x, "pull"));
  close_functor(x);
}

/* A LIBRARY loop's functors, for rtg::map_uneven (one element a thread,
   as a MAP whose thunk calls a scalar loop: the elements' loops take
   uneven times).  K_s_pull calls the element function on element i's
   scalars and segments, its checks recording their errors for element
   i (always: scalarfn.c); the copies it updates are the SOAC's result,
   in K_A, and the scratch ones, members of the pull after A.  K_s_store
   writes a scalar result; a vector result was updated in place, and its
   V holds only the function's 0. */
static void gen_loop_functors(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const LcuFunc *f = s->callee;
  const CgLoopArg *a = cg_loop_args(s);
  const LcuVar *res = s->results.data[0];
  bool scalar = f->each_result < 0;
  bool tuple = cg_each_gives_tuple(s); /* several scalars: v0, v1, ... */
  cg_line(cg, "struct alignas(8) %s {", kname(x, "V"));
  for (int r = 0; r < s->results.len; r++)
    cg_line(cg, "  %s v%d;", scalar ? cg_ctype(((const LcuVar *)s->results.data[r])->type.base) : "int", r);
  cg_line(cg, "};");
  begin_functor(x, kname(x, "pull"));
  for (int j = 0; j < f->params.len; j++)
    if (a[j].copy && !a[j].result)
      cg_line(cg, "%s *scratch%d; /* a copy of %s, which %s updates */", cg_ctype(a[j].values->type.base), j,
              cg_name(a[j].values), f->source ? f->source : f->name);
  cg_line(cg, "__device__ %s operator()(int64_t i) const {", kname(x, "V"));
  cg->indent++;
  const char **args = xmalloc(sizeof(char *) * (size_t)f->params.len);
  for (int j = 0; j < f->params.len; j++) {
    const CgBinding *v = cg_lookup(x->dev, a[j].values);
    if (a[j].shared) { /* the whole vector, for every element */
      args[j] = xprintf("%s, %s", v->value, v->length);
      continue;
    }
    if (!a[j].sd) {
      args[j] = xprintf("%s[i]", v->value);
      continue;
    }
    const char *data = a[j].result ? cg_lookup(x->dev, res)->value
                       : a[j].copy ? xprintf("scratch%d", j)
                                   : cg_lookup(x->dev, a[j].values)->value;
    const char *off = cg_lookup(x->dev, a[j].sd)->offsets;
    args[j] = xprintf("%s + %s[i], %s[i + 1] - %s[i]", data, off, off, off);
  }
  cg_line(cg, "int failed = 0; /* set when a check fails: recorded already */");
  if (tuple) {
    /* the components, from one walk of the element's loop */
    const char **outs = cg_each_outs(cg, s);
    Buf fields = {0};
    for (int r = 0; r < s->results.len; r++)
      buf_printf(&fields, "%s%s", r ? ", " : "", outs[r]);
    cg_line(cg, "(void)%s;", cg_each_call(cg, s, args, outs, "A.err", "i", "failed"));
    cg_line(cg, "const %s v = {%s};", kname(x, "V"), buf_str(&fields));
  } else
    cg_line(cg, "const %s v = {%s};", kname(x, "V"), cg_each_call(cg, s, args, NULL, "A.err", "i", "failed"));
  cg_line(cg, "(void)failed;");
  cg_line(cg, "return v;");
  close_functor(x);
  open_functor(x, "store", xprintf("void operator()(int64_t i, const %s &v) const", kname(x, "V")));
  if (scalar)
    for (int r = 0; r < s->results.len; r++)
      cg_line(cg, "A.%s_d[i] = v.v%d;", cg_name(s->results.data[r]), r);
  else {
    cg_line(cg, "/* %s: updated in place */", cg_name(res));
    cg_line(cg, "(void)i;");
    cg_line(cg, "(void)v;");
  }
  close_functor(x);
}

/* The structs of SOAC x->s. */
static void gen_functors(Gx *x) {
  const LcuSoac *s = x->s;
  if (s->kind == SOAC_LIBRARY) {
    if (s->library == LIB_LOOP)
      gen_loop_functors(x);
    if (has_riders(x->cg, x->k, x->index))
      gen_ride(x);
    return;
  }
  gen_v_struct(x);
  gen_pull(x);
  int nv = nvalues(s);
  switch (s->kind) {
  case SOAC_MAP:
  case SOAC_SEG_MAP:
  case SOAC_SEG_SCAN:
  case SOAC_SEG_REDUCE:
  case SOAC_SCAN:
    gen_store(x, "store", 0);
    break;
  case SOAC_PERMUTE:
  case SOAC_SEG_PERMUTE:
    gen_store(x, "store", 0);
    gen_index(x);
    break;
  case SOAC_SPLIT:
    gen_split_store(x);
    gen_split_pred(x);
    break;
  case SOAC_FILTER:
  case SOAC_PARTITION:
    if (filter_stages_part(x)) {
      gen_staged_struct(x);
      gen_staged_store(x, "store", 0);
      if (s->kind == SOAC_PARTITION && !s->joined) /* joined: the store writes both */
        gen_staged_store(x, "other", nv);
      gen_pred(x);
      break;
    }
    /* fall through */
  case SOAC_SEG_FILTER:
  case SOAC_SEG_PARTITION:
    gen_store(x, "store", 0);
    gen_pred(x);
    if (s->kind == SOAC_PARTITION && !s->joined) /* joined: the store writes both */
      gen_store(x, "other", nv);
    if (s->kind == SOAC_SEG_PARTITION) /* the others after the kept values' sd */
      gen_store(x, "other", nv + 1);
    break;
  default:
    break;
  }
  if (s->kind == SOAC_REDUCE || s->kind == SOAC_SCAN || s->kind == SOAC_SEG_REDUCE || s->kind == SOAC_SEG_SCAN)
    gen_op(x);
  if (s->kind == SOAC_SEG_REDUCE && cg_op_int_sum(s))
    gen_sum_functors(x);
  if (cg_reduce_on_device(x->cg, x->k, x->index))
    gen_check(x);
  if (has_riders(x->cg, x->k, x->index))
    gen_ride(x);
}

/* ---- the host function ---- */

/* A new device vector for SOAC result 'v' of 'n' elements. */
static void new_vector(Gx *x, const LcuVar *v, const char *n) {
  cg_line(x->cg, "%s = rtg_vec_new(%s, %s);", cg_name(v), cg_rtbase(v->type.base), n);
  fill_a(x, v);
}

/* Sets the error that K_gpu finds on the host (cg_soac_size) in the
   host's record, with the kernel's `run`. */
static void set_error(Cg *cg, const char *error) {
  cg_line(cg, "*err = RtKernelError{%s, run, %d};", error, cg->check_order++);
}

/* The SOAC's size, checked not negative. */
static const char *soac_size(Gx *x) { return cg_soac_size(x->cg, &x->s->size, x->host, set_error); }

/* The identity of a REDUCE or SCAN as a V. */
static const char *identity(Gx *x) {
  Buf b = {0};
  buf_printf(&b, "%s{", kname(x, "V"));
  for (int i = 0; i < x->s->identity.len; i++)
    buf_printf(&b, "%s%s", i ? ", " : "", cg_constant(*(FlatAtom *)x->s->identity.data[i]));
  buf_puts(&b, "}");
  return buf_str(&b);
}

/* The functor 'what' of this SOAC, made from A as it is now. */
static const char *functor(Gx *x, const char *what) { return xprintf("%s{A}", kname(x, what)); }

static const char *kernel_string(Gx *x) { return cg_string(x->k->name, strlen(x->k->name)); }

/* Scalar results from a V read back: bound on the host and in K_A. */
static void scalar_results(Gx *x, const char *r) {
  for (int v = 0; v < nvalues(x->s); v++) {
    const LcuVar *res = x->s->results.data[v];
    cg_line(x->cg, "%s = %s.v%d;", cg_name(res), r, v);
    fill_a(x, res);
  }
}

static void host_map(Gx *x) {
  Cg *cg = x->cg;
  const char *n = soac_size(x);
  for (int v = 0; v < nvalues(x->s); v++)
    if (!dead_result(x, x->s->results.data[v]))
      new_vector(x, x->s->results.data[v], n);
  int host = ride_host(x->cg, x->k, x->index);
  if (host >= 0) {
    cg_line(cg, "/* computed in the launch of SOAC %d (%s_%d_ride) */", host, x->k->name, host);
    return;
  }
  /* a thunk that calls a scalar loop: elements of uneven cost */
  cg_line(cg, "rtg::%s(%s, loc, %s, %s, %s);", lcu_thunk_calls(x->s->pull) ? "map_uneven" : "map", kernel_string(x),
          functor(x, "pull"), functor(x, "store"), n);
}


static void host_reduce_or_scan(Gx *x, bool scan) {
  Cg *cg = x->cg;
  const char *n = soac_size(x);
  bool riders = has_riders(x->cg, x->k, x->index);
  const char *pull = functor(x, riders && !scan ? "ride" : "pull");
  const char *store = functor(x, riders && scan ? "ride" : "store");
  if (!scan && cg_reduce_on_device(cg, x->k, x->index)) {
    /* only argument checks read the values: they stay on the device,
       checked there after the kernel's last SOAC (devcheck.c) */
    const char *r = cg_temp(cg);
    cg_line(cg, "%s *%s = rtg::reduce_to_device<%s>(%s, loc, %s, %s, %s, %s);", kname(x, "V"), r,
            cg_op_commutative(x->s) ? "true" : "false", kernel_string(x), pull, functor(x, "op"), identity(x), n);
    cg_line(cg, "%s = %s;", kname(x, "value"), r);
    return;
  }
  if (!scan && value_inside(cg, x->k, x->index)) {
    /* only later SOACs of this kernel read the values: they stay on the
       device, read there through K_A (value_inside) */
    cg_line(cg, "%s = rtg::reduce_value_on_device<%s>(%s, loc, %s, %s, %s, %s);", kname(x, "value"),
            cg_op_commutative(x->s) ? "true" : "false", kernel_string(x), pull, functor(x, "op"), identity(x), n);
    cg_line(cg, "A.%s = %s;", kname(x, "dev"), kname(x, "value"));
    return;
  }
  if (!scan) {
    /* launched now, read where the kernel's pending counts are read
       (flush_filters): one wait for the FILTERs before it and the SOACs
       after it that do not read its values */
    cg_line(cg, "%s = rtg::reduce_launch<%s>(%s, loc, %s, %s, %s, %s);", x->slot,
            cg_op_commutative(x->s) ? "true" : "false", kernel_string(x), pull, functor(x, "op"), identity(x), n);
    pend_read(x, identity(x));
    return;
  }
  /* without a float, the operator's result does not depend on how the
     runtime groups the combinations: rtg::scan may take one pass */
  bool exact = true;
  for (int v = 0; v < nvalues(x->s); v++) {
    new_vector(x, x->s->results.data[v], n);
    exact = exact && value_base(x->s, v) != FB_FLOAT;
  }
  cg_line(cg, "rtg::scan%s(%s, loc, %s, %s, %s, %s, %s);", exact ? "<true>" : "", kernel_string(x), pull,
          functor(x, "op"), identity(x), n, store);
}

/* ---- FILTERs launched together ----
   Consecutive FILTERs and PARTITIONs of a kernel over the same elements
   (the same size, values of the same types, none reading another's
   results) take one launch, rtg::filters_launch, each part its own
   count (quicksort's lesser, equal and greater: three launches). */

static bool same_values(const LcuSoac *a, const LcuSoac *b) {
  if (nvalues(a) != nvalues(b))
    return false;
  for (int v = 0; v < nvalues(a); v++)
    if (value_base(a, v) != value_base(b, v))
      return false;
  return true;
}

/* The number of FILTERs and PARTITIONs from SOAC 'i' on that go in one
   launch (1: it alone, or not a FILTER). */
static int filter_group(const LcuKernel *k, int i) {
  const LcuSoac *first = k->soacs.data[i];
  if ((first->kind != SOAC_FILTER && first->kind != SOAC_PARTITION) || first->joined)
    return 1;
  int n = 1;
  for (int j = i + 1; j < k->soacs.len; j++, n++) {
    const LcuSoac *s = k->soacs.data[j];
    if ((s->kind != SOAC_FILTER && s->kind != SOAC_PARTITION) || s->joined || !same_size(&s->size, &first->size) ||
        !same_values(s, first))
      break;
    bool independent = true;
    for (int m = i; m < j && independent; m++)
      independent = !reads_results_of(s, k->soacs.data[m]);
    if (!independent)
      break;
  }
  return n;
}

/* FILTER and PARTITION in one pass (rtg::partition_launch) into vectors
   of the SOAC's size, cut to the count when it is read (flush_filters):
   the kept values, then a PARTITION's others. */
/* A FILTER's vectors (n each, cut to the count later) and its size's
   local; returns the size. */
static const char *filter_vectors(Gx *x, bool partition) {
  int nv = nvalues(x->s);
  const char *n = soac_size(x);
  for (int v = 0; v < (partition ? 2 * nv : nv); v++)
    if (!dead_result(x, x->s->results.data[v])) /* a flag only the predicate reads: not stored (gen_store) */
      new_vector(x, x->s->results.data[v], n);
  cg_line(x->cg, "%s = %s;", x->slot_n, n);
  return n;
}

static void pend_filter(Gx *x) {
  PendingFilter *p = NEW(PendingFilter);
  *p = (PendingFilter){x->s, x->index, x->slot, x->slot_n, NULL};
  vec_push(&x->pending, p);
}

/* A REDUCE's (with its identity) or ONCE's values, launched into the
   slot x->slot, to be read by flush_filters. */
static void pend_read(Gx *x, const char *id) {
  PendingFilter *p = NEW(PendingFilter);
  *p = (PendingFilter){x->s, x->index, x->slot, NULL, id};
  vec_push(&x->pending, p);
}

/* Does SOAC 's' give the host values to read, by a slot that
   flush_filters reads (host_reduce_or_scan, host_once)? */
static bool reads_values(const Cg *cg, const LcuKernel *k, int i) {
  const LcuSoac *s = k->soacs.data[i];
  if (s->kind == SOAC_ONCE)
    return !value_inside(cg, k, i);
  return s->kind == SOAC_REDUCE && !cg_reduce_on_device(cg, k, i) && !value_inside(cg, k, i);
}

static void host_filter(Gx *x, bool partition) {
  Cg *cg = x->cg;
  const char *n = filter_vectors(x, partition);
  cg_line(cg, "%s = rtg::partition_launch<%s>(%s, loc, %s, %s, %s, %s, %s, %s);", x->slot, kname(x, "V"),
          kernel_string(x), functor(x, "pull"), functor(x, "pred"), n, functor(x, "store"),
          functor(x, partition ? "other" : "store"), partition ? "true" : "false");
  pend_filter(x);
}

/* A joined PARTITION (fus_join_partitions): each stored value's vector
   of n, the kept values stored from 0 and the others, by the same store
   functor, from the kept count on, which rtg::partition_joined finds on
   the device first: nothing read back, no wait. */
static void host_joined(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const char *n = soac_size(x);
  for (int v = 0; v < nvalues(s); v++)
    if (!dead_result(x, s->results.data[v]))
      new_vector(x, s->results.data[v], n);
  cg_line(cg, "rtg::partition_joined<%s>(%s, loc, %s, %s, %s, %s);", kname(x, "V"), kernel_string(x),
          functor(x, "pull"), functor(x, "pred"), n, functor(x, "store"));
}

/* SPLIT: each class's vectors of n (cut to its count when the counts
   are read: flush_filters), one launch. */
static void host_split(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const char *n = filter_vectors(x, false);
  Buf counted = {0}; /* `counts sd`: the sd, and each class's counts */
  if (s->segdes) {
    CgBinding *sd = cg_lookup(x->host, s->segdes);
    int nv = nvalues(s);
    const char *all = cg_temp(cg);
    for (int c = 0; c < s->classes; c++)
      new_vector(x, s->results.data[nv + c], sd->length);
    cg_line(cg, "RtValue *const %s[%d] = {", all, s->classes);
    for (int c = 0; c < s->classes; c++)
      cg_line(cg, "  %s,", cg_name(s->results.data[nv + c]));
    cg_line(cg, "};");
    buf_printf(&counted, ", %s, %s", sd->value, all);
    if (s->offsets) { /* and each class's offsets */
      const char *offs = cg_temp(cg);
      for (int c = 0; c < s->classes; c++)
        new_vector(x, s->results.data[nv + s->classes + c], sd->length);
      cg_line(cg, "RtValue *const %s[%d] = {", offs, s->classes);
      for (int c = 0; c < s->classes; c++)
        cg_line(cg, "  %s,", cg_name(s->results.data[nv + s->classes + c]));
      cg_line(cg, "};");
      buf_printf(&counted, ", %s", offs);
    }
  }
  cg_line(cg, "%s = rtg::split_launch<%s, %d>(%s, loc, %s, %s, %s, %s%s);", x->slot, kname(x, "V"), s->classes,
          kernel_string(x), functor(x, "pull"), functor(x, "pred"), n, functor(x, "store"), buf_str(&counted));
  pend_filter(x);
}

/* ---- SOACs of one size in one launch ----
   Consecutive FILTERs, PARTITIONs, exact one-pass SCANs and REDUCEs
   whose values the host reads, of the same size and none reading
   another's results (the MAPs between them riding on them), take one
   launch, rtg::parts_launch, where there is a SCAN or a REDUCE among
   them (FILTERs alone: filters_launch).  Each part keeps its own tile
   size; the REDUCE's value and the FILTERs' counts are read as their
   own launches' are (flush_filters).  A SCAN or REDUCE part combines
   its tiles by the look-back, in some grouping: it takes an exact
   operator (no float) whose values fit a tile word, and a REDUCE's is
   commutative too (its threads take their elements strided). */

/* Values without a float that fit one tile word (rtg::tile_lookback_value:
   8 bytes; none is more than 4 bytes but a float's). */
static bool exact_word(const LcuSoac *s) {
  if (nvalues(s) < 1 || nvalues(s) > 2)
    return false;
  for (int v = 0; v < nvalues(s); v++)
    if (value_base(s, v) == FB_FLOAT)
      return false;
  return true;
}

static bool may_be_part(Cg *cg, const LcuKernel *k, int j) {
  const LcuSoac *s = k->soacs.data[j];
  switch (s->kind) {
  case SOAC_FILTER:
  case SOAC_PARTITION: /* a joined one moves its others after its launch */
    return !s->joined;
  case SOAC_SCAN:
    return exact_word(s);
  case SOAC_REDUCE:
    return reads_values(cg, k, j) && cg_op_commutative(s) && exact_word(s);
  default:
    return false;
  }
}

/* The number of SOACs from 'i' on in one launch of parts (1: none). */
static int tile_group(Cg *cg, const LcuKernel *k, int i) {
  if (!may_be_part(cg, k, i))
    return 1;
  const LcuSoac *first = k->soacs.data[i];
  int last = i;
  for (int j = i + 1; j < k->soacs.len; j++) {
    const LcuSoac *s = k->soacs.data[j];
    bool independent = true;
    for (int m = i; m < j && independent; m++)
      independent = !reads_results_of(s, k->soacs.data[m]);
    if (!independent)
      break;
    if (s->kind == SOAC_MAP && ride_host(cg, k, j) > j)
      continue; /* in the launch of the part it rides on, if that is one */
    if (!may_be_part(cg, k, j) || !same_size(&s->size, &first->size))
      break;
    last = j;
  }
  /* a MAP in the group rides on a part of it */
  for (int j = i + 1; j <= last; j++)
    if (((const LcuSoac *)k->soacs.data[j])->kind == SOAC_MAP && ride_host(cg, k, j) > last) {
      last = j - 1;
      j = i; /* again: a MAP before the new end may ride past it */
    }
  while (last > i && ((const LcuSoac *)k->soacs.data[last])->kind == SOAC_MAP)
    last--;
  bool mixed = false;
  for (int j = i; j <= last; j++) {
    LcuSoacKind kind = ((const LcuSoac *)k->soacs.data[j])->kind;
    mixed = mixed || kind == SOAC_SCAN || kind == SOAC_REDUCE;
  }
  return mixed && last > i ? last - i + 1 : 1;
}

/* The 'count' SOACs from x->index on (tile_group) in one launch; the
   FILTERs' and REDUCEs' slots in slots[g], the FILTERs' sizes in
   sizes[g], declared before the block. */
static void host_parts(Gx *x, int count, const char **slots, const char **sizes) {
  Cg *cg = x->cg;
  int first = x->index;
  const char *n = NULL;
  Buf b = {0};
  for (int g = 0; g < count; g++) {
    x->index = first + g;
    x->s = x->k->soacs.data[x->index];
    bool riders = has_riders(cg, x->k, x->index);
    switch (x->s->kind) {
    case SOAC_FILTER:
    case SOAC_PARTITION: {
      bool partition = x->s->kind == SOAC_PARTITION;
      x->slot = slots[g];
      x->slot_n = sizes[g];
      n = filter_vectors(x, partition);
      buf_printf(&b, ", rtg::filter_tiles<%s>(%s, %s, %s, %s, %s, &%s)", kname(x, "V"), functor(x, "pull"),
                 functor(x, "pred"), functor(x, "store"), functor(x, partition ? "other" : "store"),
                 partition ? "true" : "false", slots[g]);
      break;
    }
    case SOAC_MAP:
      host_map(x); /* its vectors; it rides on a part */
      break;
    case SOAC_SCAN:
      n = soac_size(x);
      for (int v = 0; v < nvalues(x->s); v++)
        new_vector(x, x->s->results.data[v], n);
      buf_printf(&b, ", rtg::scan_tiles<%s>(%s, %s, %s, %s)", kname(x, "V"), functor(x, "pull"), functor(x, "op"),
                 identity(x), functor(x, riders ? "ride" : "store"));
      break;
    case SOAC_REDUCE:
      n = soac_size(x);
      buf_printf(&b, ", rtg::reduce_tiles<%s>(%s, %s, %s, &%s)", kname(x, "V"), functor(x, riders ? "ride" : "pull"),
                 functor(x, "op"), identity(x), slots[g]);
      break;
    default:
      unreachable();
    }
  }
  cg_line(cg, "rtg::parts_launch(%s, loc, %s%s);", kernel_string(x), n, buf_str(&b));
  for (int g = 0; g < count; g++) {
    x->index = first + g;
    x->s = x->k->soacs.data[x->index];
    x->slot = slots[g];
    x->slot_n = sizes[g];
    if (x->s->kind == SOAC_FILTER || x->s->kind == SOAC_PARTITION)
      pend_filter(x);
    else if (x->s->kind == SOAC_REDUCE)
      pend_read(x, identity(x));
  }
}

static void host_filters(Gx *x, int count, const char **slots, const char **sizes);

/* The 'count' SOACs from x->index on in one launch: a launch of parts
   (tile_group, host_parts) or of FILTERs alone (filter_group,
   host_filters); the slots of their counts and values, and the
   FILTERs' sizes, declared before its block, for flush_filters. */
static void host_group(Gx *x, int count, bool parts) {
  Cg *cg = x->cg;
  int i = x->index;
  const char **slots = xmalloc(sizeof(char *) * (size_t)count);
  const char **sizes = xmalloc(sizeof(char *) * (size_t)count);
  cg_line(cg, "/* SOACs %d to %d: %sin one launch */", i, i + count - 1, parts ? "" : "FILTERs ");
  for (int g = 0; g < count; g++) {
    const LcuSoac *s = x->k->soacs.data[i + g];
    slots[g] = sizes[g] = NULL;
    if (s->kind == SOAC_FILTER || s->kind == SOAC_PARTITION) {
      slots[g] = cg_temp(cg);
      sizes[g] = cg_temp(cg);
      cg_line(cg, "int64_t *%s, %s; /* the slot of SOAC %d's count, its size */", slots[g], sizes[g], i + g);
    } else if (s->kind == SOAC_REDUCE) {
      slots[g] = cg_temp(cg);
      cg_line(cg, "%s_%d_V *%s; /* the slot of SOAC %d's values */", x->k->name, i + g, slots[g], i + g);
    }
  }
  cg_line(cg, "{");
  cg->indent++;
  if (parts)
    host_parts(x, count, slots, sizes);
  else
    host_filters(x, count, slots, sizes);
  cg->indent--;
  cg_line(cg, "}");
}

/* The 'count' FILTERs and PARTITIONs from SOAC x->index on
   (filter_group), their slots 'slots' and sizes 'sizes', in one
   launch. */
static void host_filters(Gx *x, int count, const char **slots, const char **sizes) {
  Cg *cg = x->cg;
  int first = x->index;
  const char *n = NULL;
  for (int g = 0; g < count; g++) {
    x->index = first + g;
    x->s = x->k->soacs.data[x->index];
    x->slot = slots[g];
    x->slot_n = sizes[g];
    n = filter_vectors(x, x->s->kind == SOAC_PARTITION);
  }
  const char *counts = cg_temp(cg);
  cg_line(cg, "int64_t *%s[%d];", counts, count);
  Buf b = {0};
  for (int g = 0; g < count; g++) {
    x->index = first + g;
    x->s = x->k->soacs.data[x->index];
    bool partition = x->s->kind == SOAC_PARTITION;
    buf_printf(&b, ", rtg::filter_part<%s>(%s, %s, %s, %s, %s)", kname(x, "V"), functor(x, "pull"),
               functor(x, "pred"), functor(x, "store"), functor(x, partition ? "other" : "store"),
               partition ? "true" : "false");
  }
  cg_line(cg, "rtg::filters_launch(%s, loc, %s, %s%s);", kernel_string(x), n, counts, buf_str(&b));
  for (int g = 0; g < count; g++) {
    x->index = first + g;
    x->s = x->k->soacs.data[x->index];
    x->slot = slots[g];
    x->slot_n = sizes[g];
    cg_line(cg, "%s = %s[%d];", slots[g], counts, g);
    pend_filter(x);
  }
}

/* A PERMUTE's or SEG_PERMUTE's result `into` D: a copy of D on the
   device, which the writes then change; returns its length. */
static const char *copy_into(Gx *x) {
  CgBinding *d = cg_lookup(x->host, x->s->into);
  const LcuVar *r = x->s->results.data[0];
  new_vector(x, r, d->length);
  cg_line(x->cg,
          "cudaMemcpyAsync(%s->data.any, %s->data.any, sizeof(%s) * (size_t)%s, cudaMemcpyDeviceToDevice, "
          "rtg_stream());",
          cg_name(r), d->value, cg_ctype(r->type.base), d->length);
  return d->length;
}

static void host_permute(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const char *n = soac_size(x);
  const char *room = n;
  if (s->into) {
    room = copy_into(x);
  } else {
    for (int v = 0; v < nvalues(s); v++)
      new_vector(x, s->results.data[v], n);
  }
  int site = cg_site(cg, no_loc, "__write", NULL);
  cg_line(cg, "rtg::permute(%s, loc, %s, %s, %s, %s, %s, %s, A.run, %d);", kernel_string(x), functor(x, "pull"),
          functor(x, "index"), n, room, s->into ? "true" : "false", functor(x, "store"), site);
}

static void host_once(Gx *x) {
  Cg *cg = x->cg;
  if (value_inside(cg, x->k, x->index)) {
    /* only later SOACs of this kernel read the values: they stay on the
       device, read there through K_A */
    cg_line(cg, "%s = rtg::once_on_device<%s>(%s, loc, %s);", kname(x, "value"), kname(x, "V"), kernel_string(x),
            functor(x, "pull"));
    cg_line(cg, "A.%s = %s;", kname(x, "dev"), kname(x, "value"));
    return;
  }
  cg_line(cg, "%s = rtg::once_launch<%s>(%s, loc, %s);", x->slot, kname(x, "V"), kernel_string(x),
          functor(x, "pull"));
  pend_read(x, NULL);
}

static void host_seg_reduce_or_scan(Gx *x, bool scan) {
  Cg *cg = x->cg;
  CgBinding *sd = cg_lookup(x->host, x->s->segdes);
  const char *n = scan ? xprintf("rtg_seg_total(%s)", sd->value) : sd->length;
  const char *len = cg_temp(cg);
  cg_line(cg, "const int64_t %s = %s;", len, n);
  for (int v = 0; v < nvalues(x->s); v++)
    new_vector(x, x->s->results.data[v], len);
  if (!scan && cg_op_int_sum(x->s)) {
    cg_line(cg, "rtg::segmented_sum(%s, loc, %s, %s, %s, %s, %s, %s, %s);", kernel_string(x), functor(x, "pull"),
            functor(x, "op"), identity(x), sd->value, functor(x, "store"), functor(x, "add"), functor(x, "zero"));
    return;
  }
  /* a commutative REDUCE's lanes combine their own elements first */
  cg_line(cg, "rtg::segmented<%s, %s>(%s, loc, %s, %s, %s, %s, %s);",
          !scan && cg_op_commutative(x->s) ? "true" : "false", scan ? "true" : "false", kernel_string(x),
          functor(x, "pull"), functor(x, "op"), identity(x), sd->value, functor(x, "store"));
}

/* SEG_FILTER (the kept values, then their sd) and SEG_PARTITION (the
   kept values and their sd, then the others and theirs): the select over
   all the elements keeps their order, so each segment's kept values land
   together; the new lengths count them per segment. */
static void host_seg_filter(Gx *x, bool partition) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  CgBinding *sd = cg_lookup(x->host, s->segdes);
  const char *n = cg_temp(cg), *flags = cg_temp(cg), *offs = cg_temp(cg), *kept = cg_temp(cg);
  cg_line(cg, "const int64_t %s = rtg_seg_total(%s);", n, sd->value);
  cg_line(cg, "uint8_t *%s;", flags);
  cg_line(cg, "int64_t *%s;", offs);
  cg_line(cg, "const int64_t %s = rtg::select_count(%s, loc, %s, %s, %s, &%s, &%s);", kept, kernel_string(x),
          functor(x, "pull"), functor(x, "pred"), n, flags, offs);
  const LcuVar *kept_sd = s->results.data[nv];
  const LcuVar *other_sd = partition ? s->results.data[2 * nv + 1] : NULL;
  cg_line(cg, "%s = rtg_segdes_new(%s->len);", cg_name(kept_sd), sd->value);
  cg_line(cg, "%s->total = %s;", cg_name(kept_sd), kept);
  if (partition) {
    cg_line(cg, "%s = rtg_segdes_new(%s->len);", cg_name(other_sd), sd->value);
    cg_line(cg, "%s->total = %s - %s;", cg_name(other_sd), n, kept);
  }
  cg_line(cg, "rtg_seg_counts(%s, %s, %s, %s, %s);", sd->value, offs, kept, cg_name(kept_sd),
          partition ? cg_name(other_sd) : "NULL");
  fill_a(x, kept_sd);
  if (partition)
    fill_a(x, other_sd);
  for (int v = 0; v < nv; v++)
    new_vector(x, s->results.data[v], kept);
  if (partition)
    for (int v = 0; v < nv; v++)
      new_vector(x, s->results.data[nv + 1 + v], xprintf("(%s - %s)", n, kept));
  cg_line(cg, "rtg::select_write(%s, loc, %s, %s, %s, %s, %s, %s, %s);", kernel_string(x), functor(x, "pull"), n,
          flags, offs, functor(x, "store"), functor(x, partition ? "other" : "store"), partition ? "true" : "false");
}

/* SEG_MAP: each element's segment found in the launch (rtg::seg_map),
   not read from a seg_ids vector made by a launch of its own. */
static void host_seg_map(Gx *x) {
  Cg *cg = x->cg;
  CgBinding *sd = cg_lookup(x->host, x->s->segdes);
  const char *n = cg_temp(cg);
  cg_line(cg, "const int64_t %s = rtg_seg_total(%s);", n, sd->value);
  for (int v = 0; v < nvalues(x->s); v++)
    if (!dead_result(x, x->s->results.data[v]))
      new_vector(x, x->s->results.data[v], n);
  cg_line(cg, "rtg::seg_map(%s, loc, %s, %s, %s, %s);", kernel_string(x), functor(x, "pull"), functor(x, "store"),
          sd->value, n);
}

static void host_seg_permute(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  CgBinding *sd = cg_lookup(x->host, s->segdes);
  if (s->into) {
    copy_into(x);
  } else {
    const char *total = cg_temp(cg);
    cg_line(cg, "const int64_t %s = rtg_seg_total(%s);", total, sd->value);
    for (int v = 0; v < nvalues(s); v++)
      new_vector(x, s->results.data[v], total);
  }
  int site = cg_site(cg, no_loc, "__write", NULL);
  cg_line(cg, "rtg::seg_permute(%s, loc, %s, %s, %s, %s, %s, A.run, %d);", kernel_string(x), functor(x, "pull"),
          functor(x, "index"), sd->value, s->into ? "true" : "false", functor(x, "store"), site);
}

/* LIBRARY loop: the copies its elements update, made on the device
   (the result, and the scratch ones, freed after the launch: stream-
   ordered), and one launch (gen_loop_functors). */
static void host_loop(Gx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const LcuFunc *f = s->callee;
  const CgLoopArg *a = cg_loop_args(s);
  const LcuVar *res = s->results.data[0];
  const char *fn = f->source ? f->source : f->name;
  const char *n = cg_temp(cg);
  cg_line(cg, "/* %s on each element, its own segments, a thread each */", fn);
  cg_line(cg, "const int64_t %s = %s; /* the elements */", n, cg_lookup(x->host, cg_loop_count(s, a))->length);
  Buf pull = {0};
  buf_printf(&pull, "%s{A", kname(x, "pull"));
  Vec scratch = {0};
  for (int j = 0; j < f->params.len; j++) {
    if (!a[j].copy)
      continue;
    const CgBinding *v = cg_lookup(x->host, a[j].values);
    const char *copy;
    if (a[j].result) {
      copy = cg_name(res);
      cg_line(cg, "%s = rtg_vec_new(%s, %s);", copy, cg_rtbase(res->type.base), v->length);
    } else {
      copy = cg_temp(cg);
      cg_line(cg, "RtValue *%s = rtg_vec_new(%s, %s); /* scratch: a copy of %s, which %s updates */",
              copy, cg_rtbase(a[j].values->type.base), v->length, cg_name(a[j].values), fn);
      vec_push(&scratch, (void *)copy);
    }
    cg_line(cg,
            "cudaMemcpyAsync(%s->data.any, %s->data.any, sizeof(%s) * (size_t)%s, cudaMemcpyDeviceToDevice, "
            "rtg_stream());",
            copy, v->value, cg_ctype(a[j].values->type.base), v->length);
    if (a[j].result)
      fill_a(x, res);
    else
      buf_printf(&pull, ", %s->data.%s", copy, cg_member(a[j].values->type.base));
  }
  buf_puts(&pull, "}");
  for (int r = 0; f->each_result < 0 && r < x->s->results.len; r++)
    new_vector(x, x->s->results.data[r], n);
  cg_line(cg, "rtg::map_uneven(%s, loc, %s, %s, %s);", kernel_string(x), buf_str(&pull), functor(x, "store"), n);
  for (int j = 0; j < scratch.len; j++)
    cg_line(cg, "rt_value_free(%s);", (const char *)scratch.data[j]);
}

/* The GPU runtime's function (library.c), its result in K_A. */
static void host_library(Gx *x) {
  if (x->s->library == LIB_LOOP) {
    host_loop(x);
    return;
  }
  const char *ride = has_riders(x->cg, x->k, x->index) ? functor(x, "ride") : NULL;
  cg_library(x->cg, x->s, x->host, CG_CUDA, ride);
  fill_a(x, x->s->results.data[0]);
}

static void host_soac(Gx *x) {
  switch (x->s->kind) {
  case SOAC_MAP:
    host_map(x);
    return;
  case SOAC_REDUCE:
    host_reduce_or_scan(x, false);
    return;
  case SOAC_SCAN:
    host_reduce_or_scan(x, true);
    return;
  case SOAC_FILTER:
    host_filter(x, false);
    return;
  case SOAC_PARTITION:
    if (x->s->joined)
      host_joined(x);
    else
      host_filter(x, true);
    return;
  case SOAC_SPLIT:
    host_split(x);
    return;
  case SOAC_PERMUTE:
    host_permute(x);
    return;
  case SOAC_ONCE:
    host_once(x);
    return;
  case SOAC_SEG_MAP:
    host_seg_map(x);
    return;
  case SOAC_SEG_PERMUTE:
    host_seg_permute(x);
    return;
  case SOAC_SEG_REDUCE:
    host_seg_reduce_or_scan(x, false);
    return;
  case SOAC_SEG_SCAN:
    host_seg_reduce_or_scan(x, true);
    return;
  case SOAC_SEG_FILTER:
    host_seg_filter(x, false);
    return;
  case SOAC_SEG_PARTITION:
    host_seg_filter(x, true);
    return;
  case SOAC_LIBRARY:
    host_library(x);
    return;
  case SOAC_COUNT:
    break;
  }
  unreachable();
}

/* Does SOAC 's' read a result of SOAC 'of'? */
static bool reads_results_of(const LcuSoac *s, const LcuSoac *of) {
  for (int r = 0; r < of->results.len; r++)
    if (lcu_soac_reads(s, of->results.data[r]))
      return true;
  return false;
}

/* May SOAC 'next' be launched before the pending counts and values are
   read?  Only one that reads none of their results and neither waits
   for the device nor takes a result slot but to be read with them: a
   wait frees the room of the slots taken before it (finish_reads), so a
   slot taken after a wait could overwrite a pending one.  A FILTER,
   PARTITION or SPLIT, a REDUCE or ONCE (read with them, or kept on the
   device), a MAP or a SCAN; not the segmented SOACs and the library's
   operations, which may read a segment total or a count. */
static bool joins_pending(const Gx *x, const LcuSoac *next) {
  if (next->joined) /* it moves its others by a count of its own, on the device */
    return false;
  switch (next->kind) {
  case SOAC_FILTER:
  case SOAC_PARTITION:
  case SOAC_SPLIT:
  case SOAC_REDUCE:
  case SOAC_ONCE:
  case SOAC_MAP:
  case SOAC_SCAN:
    break;
  default:
    return false;
  }
  for (int i = 0; i < x->pending.len; i++)
    if (reads_results_of(next, ((const PendingFilter *)x->pending.data[i])->s))
      return false;
  return true;
}

/* The pending FILTERs' counts read (one wait), their vectors cut. */
static void flush_filters(Gx *x) {
  Cg *cg = x->cg;
  for (int i = 0; i < x->pending.len; i++) {
    const PendingFilter *p = x->pending.data[i];
    if (p->s->kind == SOAC_REDUCE || p->s->kind == SOAC_ONCE) {
      /* its values: the first read waits, the others copy */
      const LcuSoac *s = x->s;
      int index = x->index;
      x->s = p->s;
      x->index = p->index;
      const char *r = cg_temp(cg);
      cg_line(cg, "{"); /* a block: a later `goto fail` may not jump past its initialization */
      cg->indent++;
      if (p->identity)
        cg_line(cg, "const %s %s = rtg::reduce_read(%s, %s);", kname(x, "V"), r, p->slot, p->identity);
      else
        cg_line(cg, "const %s %s = rtg::once_read(%s);", kname(x, "V"), r, p->slot);
      scalar_results(x, r);
      cg->indent--;
      cg_line(cg, "}");
      x->s = s;
      x->index = index;
      continue;
    }
    const char *kept = cg_temp(cg);
    cg_line(cg, "{"); /* a block: a later `goto fail` may not jump past its initialization */
    cg->indent++;
    bool split = p->s->kind == SOAC_SPLIT;
    if (split) /* a count a class */
      cg_line(cg, "int64_t %s[%d];", kept, p->s->classes);
    for (int c = 0; split && c < p->s->classes; c++)
      cg_line(cg, "%s[%d] = rtg::filter_count(%s.at[%d]);", kept, c, p->slot, c);
    if (!split)
      cg_line(cg, "const int64_t %s = rtg::filter_count(%s);", kept, p->slot);
    int nv = nvalues(p->s);
    for (int v = 0; v < p->s->results.len; v++) {
      const LcuVar *r = p->s->results.data[v];
      if (cg_dead_result(x->k, p->index, r)) /* never allocated (filter_vectors) */
        continue;
      if (split && v >= nv) /* a SPLIT's counts a segment: made whole */
        continue;
      const char *count = split    ? xprintf("%s[%d]", kept, lcu_split_class(p->s, v))
                          : v < nv ? kept
                                   : xprintf("%s - %s", p->n, kept);
      cg_line(cg, "%s = rtg_vec_fit(%s, %s);", cg_name(r), cg_name(r), count);
      fill_a(x, r);
    }
    cg->indent--;
    cg_line(cg, "}");
  }
  x->pending.len = 0;
}


/* ---- the choice between host and device ---- */

static bool in_vec(const Vec *v, const void *x) {
  for (int i = 0; i < v->len; i++)
    if (v->data[i] == x)
      return true;
  return false;
}

/* Can kernel 'k' run on the host when its vector parameters are small?
   Only if every SOAC's size is bounded by them: a size that is a scalar
   parameter or a constant is checked at run time (pushed on 'sizes', as
   C expressions), the length of a bounded vector is bounded, and a
   SOAC's results are bounded when its size is (a segdes made inside the
   kernel from lengths is not: its total may be anything).  Not a kernel
   that calls a scalar loop (or runs a sequence loop on each element, a
   LIBRARY loop): a few elements may iterate for long, which the device
   does side by side. */
static bool host_possible(const LcuKernel *k, Vec *sizes) {
  Vec bounded = {0};
  for (int i = 0; i < k->params.len; i++)
    vec_push(&bounded, k->params.data[i]);
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (lcu_thunk_calls(s->pull) || lcu_thunk_calls(s->second))
      return false;
    bool ok;
    if (s->kind == SOAC_LIBRARY && s->library == LIB_LOOP) {
      return false; /* as a scalar loop's MAP */
    } else if (s->kind == SOAC_LIBRARY) {
      ok = true;
      for (int a = 0; a < s->args.len; a++)
        if (((LcuVar *)s->args.data[a])->type.kind != LT_SCALAR && !in_vec(&bounded, s->args.data[a]))
          ok = false;
      /* make_segdes (and range_segdes) may run on the host when its
         lengths are few, but the segments' total may be anything: what
         iterates over them in this kernel is not bounded (its result is
         not pushed below) */
      if (ok && (s->library == LIB_MAKE_SEGDES || s->library == LIB_RANGE_SEGDES))
        continue;
    } else if (s->segdes) {
      ok = in_vec(&bounded, s->segdes);
    } else if (s->kind == SOAC_ONCE) {
      ok = true;
    } else if (s->size.var) {
      ok = in_vec(&k->params, s->size.var);
      if (ok)
        vec_push(sizes, (void *)cg_name(s->size.var));
    } else if (s->size.length) {
      ok = in_vec(&bounded, s->size.length);
    } else {
      ok = true;
      vec_push(sizes, (void *)xprintf("%d", (int)s->size.value));
    }
    if (!ok)
      return false;
    for (int r = 0; r < s->results.len; r++)
      vec_push(&bounded, s->results.data[r]);
  }
  return true;
}

/* The REDUCEs whose values stay on the device for their checks, in the
   order of their first checks (devcheck.c keeps each one's together):
   their indices in the kernel, into 'out'; returns how many. */
static int checked_reduces(const Cg *cg, const LcuKernel *k, int *out) {
  const Vec *d = cg_device_checks(cg, k);
  int n = 0;
  for (int i = 0; d && i < d->len; i++) {
    int j = ((const CgDevCheck *)d->data[i])->soac;
    if (n == 0 || out[n - 1] != j)
      out[n++] = j;
  }
  return n;
}

/* After the kernel's last SOAC: the checks of the REDUCEs whose values
   stayed on the device (rtg::check_result). */
static void gen_device_checks(Gx *x) {
  Cg *cg = x->cg;
  int *order = xmalloc_atomic(sizeof(int) * (size_t)(x->k->soacs.len + 1));
  int n = checked_reduces(cg, x->k, order);
  for (int i = 0; i < n; i++) {
    x->s = x->k->soacs.data[order[i]];
    x->index = order[i];
    cg_line(cg, "if (!rtg::check_result(%s, loc, %s, %s, %s, err, A.run, run))", kernel_string(x), kname(x, "value"),
            check_functor(x), identity(x));
    cg_line(cg, "  goto fail;");
    cg_line(cg, "%s = NULL; /* freed by check_result, after the check */", kname(x, "value"));
  }
}

/* At `fail:`, the values still on the device of the REDUCEs before it. */
static void free_device_values(Gx *x) {
  for (int i = 0; i < x->k->soacs.len; i++)
    if (cg_reduce_on_device(x->cg, x->k, i) || value_inside(x->cg, x->k, i))
      cg_line(x->cg, "rtg_free(%s_%d_value);", x->k->name, i);
}

/* The same checks after K_host, on the values it gives. */
static void gen_host_checks(Cg *cg, const LcuKernel *k) {
  int *order = xmalloc_atomic(sizeof(int) * (size_t)(k->soacs.len + 1));
  int n = checked_reduces(cg, k, order);
  Gx x = {.cg = cg, .k = k};
  for (int i = 0; i < n; i++) {
    x.s = k->soacs.data[order[i]];
    x.index = order[i];
    const char *v = cg_temp(cg);
    cg_line(cg, "if (err->index == INT64_MAX) {");
    cg->indent++;
    cg_line(cg, "%s %s;", kname(&x, "V"), v);
    cg_line(cg, "memset(&%s, 0, sizeof %s);", v, v);
    for (int c = 0; c < x.s->results.len; c++) {
      const LcuVar *r = x.s->results.data[c];
      if (cg_kernel_result(k, r))
        cg_line(cg, "%s.v%d = *out_%s;", v, c, cg_name(r));
    }
    cg_line(cg, "(void)%s(%s, err, run);", check_functor(&x), v);
    cg->indent--;
    cg_line(cg, "}");
  }
}

/* K itself: the host's kernel (K_host) when the data is small, else the
   device's (K_gpu); either way with every vector on its side first. */
static void gen_dispatch(Cg *cg, const LcuKernel *k) {
  Vec sizes = {0};
  bool host = host_possible(k, &sizes);
  const char *sig = cg_kernel_signature(cg, k, k->name, true);
  cg_line(cg, "%s {", sig);
  cg->indent++;
  Buf args = {0};
  buf_puts(&args, "err, loc, run");
  Vec vals = {0};
  for (int i = 0; i < k->params.len; i++) {
    const LcuVar *v = k->params.data[i];
    buf_printf(&args, ", %s", cg_name(v));
    if (v->type.kind != LT_SCALAR)
      vec_push(&vals, (void *)cg_name(v));
  }
  for (int i = 0; i < k->results.len; i++)
    buf_printf(&args, ", out_%s", cg_name(k->results.data[i]));
  Buf vb = {0}, sb = {0};
  for (int i = 0; i < vals.len; i++)
    buf_printf(&vb, "%s%s", i ? ", " : "", (const char *)vals.data[i]);
  for (int i = 0; i < sizes.len; i++)
    buf_printf(&sb, "%s(int64_t)%s", i ? ", " : "", (const char *)sizes.data[i]);
  cg_line(cg, "RtValue *vals[] = {%s%s};", buf_str(&vb), vals.len ? "" : "NULL");
  cg_line(cg, "const int64_t sizes[] = {%s%s};", buf_str(&sb), sizes.len ? "" : "0");
  const Vec *checks = cg_device_checks(cg, k);
  Buf gpu_args = {0};
  buf_puts(&gpu_args, buf_str(&args));
  for (int i = 0; checks && i < checks->len; i++)
    buf_printf(&gpu_args, ", check_site_%d", i);
  if (host && !checks) {
    cg_line(cg, "static RtgHostSite site; /* what the host path learned of this kernel */");
    cg_line(cg, "if (rtg_choose_host(vals, %d, sizes, %d, &site)) {", vals.len, sizes.len);
    cg_line(cg, "  %s_host(%s);", k->name, buf_str(&args));
    cg_line(cg, "  rtg_host_ran();");
    cg_line(cg, "} else {");
    cg_line(cg, "  %s_gpu(%s);", k->name, buf_str(&args));
    cg_line(cg, "}");
  } else if (host) {
    cg_line(cg, "static RtgHostSite site; /* what the host path learned of this kernel */");
    cg_line(cg, "if (rtg_choose_host(vals, %d, sizes, %d, &site)) {", vals.len, sizes.len);
    cg->indent++;
    cg_line(cg, "%s_host(%s);", k->name, buf_str(&args));
    gen_host_checks(cg, k);
    cg_line(cg, "rtg_host_ran();");
    cg->indent--;
    cg_line(cg, "} else {");
    cg_line(cg, "  %s_gpu(%s);", k->name, buf_str(&gpu_args));
    cg_line(cg, "}");
  } else {
    cg_line(cg, "/* always the device: a size made inside the kernel may be large, or a scalar loop long */");
    cg_line(cg, "rtg_to_device_all(vals, %d);", vals.len);
    cg_line(cg, "%s_gpu(%s);", k->name, buf_str(&gpu_args));
  }
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

static void cuda_kernel(Cg *cg, const LcuKernel *k) {
  /* the host's version: the CPU target's, on one thread, its thunks in
     one pass */
  cg->one_pass = true;
  cg_cpu_kernel(cg, k, xprintf("%s_host", k->name));
  cg->one_pass = false;
  const char *record = cg->record_fn;
  cg->record_fn = "NESSIE_DEVICE_RECORD";
  cg->check_order = 0;
  Gx x = {.cg = cg, .k = k};
  cg_kernel_comment(cg, k);
  /* the device's view: K_A, then each SOAC's structs */
  Vec vars = {0};
  a_vars(k, &vars);
  gen_a_struct(&x, &vars);
  for (int i = 0; i < vars.len; i++) {
    int value, at = inside_value(cg, k, vars.data[i], &value);
    if (at >= 0)
      x.dev = cg_bind(x.dev, vars.data[i], xprintf("A.%s_%d_dev->v%d", k->name, at, value), NULL, NULL);
    else
      x.dev = bind_device(cg, x.dev, k, vars.data[i], "A");
  }
  for (int i = 0; i < k->soacs.len; i++) {
    x.s = k->soacs.data[i];
    x.index = i;
    gen_functors(&x);
  }
  /* the device's version */
  cg_line(cg, "%s {", cg_kernel_signature(cg, k, xprintf("%s_gpu", k->name), true));
  cg->indent++;
  cg_line(cg, "(void)loc;");
  cg_line(cg, "(void)err;");
  cg_line(cg, "%s_A A;", k->name);
  cg_line(cg, "memset(&A, 0, sizeof A);");
  cg_line(cg, "A.err = rtg_error();");
  cg_line(cg, "A.run = rtg_launch(run);");
  for (int i = 0; i < k->params.len; i++)
    fill_a(&x, k->params.data[i]);
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (cg_reduce_on_device(cg, k, i) || value_inside(cg, k, i))
      cg_line(cg, "%s_%d_V *%s_%d_value = NULL; /* the SOAC's values, on the device */", k->name, i, k->name, i);
    for (int r = 0; r < s->results.len && !value_inside(cg, k, i); r++)
      cg_declare_result(cg, s->results.data[r], &x.vectors);
  }
  for (int i = 0; i < k->soacs.len; i++) {
    x.s = k->soacs.data[i];
    x.index = i;
    int parts = tile_group(cg, k, i), group = parts > 1 ? parts : filter_group(k, i);
    if (group > 1) {
      host_group(&x, group, parts > 1);
      i += group - 1;
      if (x.pending.len && !(i + 1 < k->soacs.len && joins_pending(&x, k->soacs.data[i + 1])))
        flush_filters(&x);
      continue;
    }
    cg_line(cg, "/* %s%s */", lcu_soac_name(x.s->kind), x.s->joined ? " (joined: the kept, then the others)" : "");
    if ((x.s->kind == SOAC_FILTER || x.s->kind == SOAC_PARTITION) && !x.s->joined) {
      x.slot = cg_temp(cg);
      x.slot_n = cg_temp(cg);
      cg_line(cg, "int64_t *%s, %s; /* the slot of its count, its size */", x.slot, x.slot_n);
    }
    if (x.s->kind == SOAC_SPLIT) {
      x.slot = cg_temp(cg);
      x.slot_n = cg_temp(cg);
      cg_line(cg, "rtg::SplitCounts %s; /* the slots of its classes' counts */", x.slot);
      cg_line(cg, "int64_t %s; /* its size */", x.slot_n);
    }
    if (reads_values(cg, k, i)) {
      x.slot = cg_temp(cg);
      cg_line(cg, "%s_%d_V *%s; /* the slot of its values */", k->name, i, x.slot);
    }
    cg_line(cg, "{");
    cg->indent++;
    host_soac(&x);
    cg->indent--;
    cg_line(cg, "}");
    if (x.pending.len && !(i + 1 < k->soacs.len && joins_pending(&x, k->soacs.data[i + 1])))
      flush_filters(&x);
  }
  gen_device_checks(&x);
  for (int i = 0; i < k->soacs.len; i++)
    if (value_inside(cg, k, i)) { /* stream-ordered: after the SOACs that read it */
      cg_line(cg, "rtg_free(%s_%d_value);", k->name, i);
      cg_line(cg, "%s_%d_value = NULL;", k->name, i);
    }
  cg_kernel_exits(cg, k, &x.vectors);
  free_device_values(&x);
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
  cg->record_fn = record;
  gen_dispatch(cg, k);
}

/* The prelude of a unit with kernels ('kernels') includes the device's
   templates (gpu.cuh) and is compiled by nvcc; that of a unit of host
   code only includes the runtime's host interface (gpu.h) and is C++ for
   the host's compiler alone (build.c): nvcc's own passes over a unit
   (cudafe++, cicc, ptxas, fatbinary) cost a second even when it holds
   no device code, and its split of the host's code 1.5 times g++'s. */
static void cuda_prelude(Cg *cg, bool kernels) {
  cg_line(cg, "#include <stdint.h>");
  cg_line(cg, "#include <string.h>");
  cg_line(cg, kernels ? "#include \"gpu.cuh\"" : "#include \"gpu.h\"");
  cg_blank(cg);
  if (kernels) {
    cg_line(cg, "/* the host's kernels (for small vectors): the CPU target's loops, on one thread */");
    cg_cpu_loops(cg, false);
  }
  cg_line(cg, "/* the host's view of values: a vector lives on the device, or on the host");
  cg_line(cg, "   when it is small (rt/gpu.h) */");
  cg_line(cg, "#define NESSIE_INIT(sites) rtg_init(sites)");
  cg_line(cg, "#define NESSIE_SYNC() rtg_statement_end()");
  cg_line(cg, "/* an error found on the host comes after the device's, which were first */");
  cg_line(cg, "#define NESSIE_FAIL(call) (rtg_sync(), call)");
  cg_line(cg, "#define NESSIE_COUNT_RUN() ((void)0)");
  cg_line(cg, "#define NESSIE_TO_HOST(v) rtg_to_host(v)");
  cg_line(cg, "#define NESSIE_HOST_DONE(h, v) ((h) != (v) ? rt_value_free(h) : (void)0)");
  cg_line(cg, "#define NESSIE_TO_DEVICE(h) rtg_place(h)");
  cg_line(cg, "#define NESSIE_SEG_TOTAL(d) rtg_seg_total(d)");
  cg_line(cg, "#define NESSIE_SEG_TOTALS(n, ds) rtg_seg_totals((n), (ds))");
  cg_line(cg, "#define NESSIE_NOW() rtg_now()");
  cg_line(cg, "#define NESSIE_CHECK(kind, loc, a, b, c) \\");
  cg_line(cg, "  (rt_check_ok((kind), (a), (b), (c)) ? (void)0 : (rtg_sync(), rt_check((kind), (loc), (a), (b), (c))))");
  cg_line(cg, "/* a vector's length in 64 bits: one that fails waits for the device first */");
  cg_line(cg, "#define NESSIE_RANGE_SIZE(loc, a, e, d) \\");
  cg_line(cg, "  (rt_range_size_ok((a), (e), (d)) ? rt_range_size((loc), (a), (e), (d)) \\");
  cg_line(cg, "                                   : (rtg_sync(), rt_range_size((loc), (a), (e), (d))))");
  cg_line(cg, "#define NESSIE_APPEND_SIZE(loc, a, b) \\");
  cg_line(cg, "  (rt_append_size_ok((a), (b)) ? rt_append_size((loc), (a), (b)) \\");
  cg_line(cg, "                               : (rtg_sync(), rt_append_size((loc), (a), (b))))");
  cg_line(cg, "#define NESSIE_HOST_CALL(h, loc, la, lr, lifted, args, nargs, results, nresults) \\");
  cg_line(cg, "  rtg_host_call((h), (loc), (la), (lr), (lifted), (args), (nargs), (results), (nresults))");
  if (kernels) {
    cg_line(cg, "/* a check's error, the first operation's (ord), for the lowest element index: in");
    cg_line(cg, "   the host's kernels, and on the device, with the launch's number (A.run) */");
    cg_line(cg, "#define NESSIE_ERROR(idx, chk, site, code, op, i, len, x, run, ord) \\");
    cg_line(cg, "  RtKernelError{(int64_t)(idx), (int32_t)(chk), (int32_t)(site), (int32_t)(code), (int32_t)(op), \\");
    cg_line(cg, "                (int32_t)(i), (int64_t)(len), (double)(x), (run), (int32_t)(ord)}");
    cg_line(cg, "#define NESSIE_RECORD(r, idx, chk, site, code, op, i, len, x, ord) \\");
    cg_line(cg, "  rt_kernel_record((r), NESSIE_ERROR(idx, chk, site, code, op, i, len, x, run, ord))");
    cg_line(cg, "#define NESSIE_DEVICE_RECORD(r, idx, chk, site, code, op, i, len, x, ord) \\");
    cg_line(cg, "  rtg::record((r), NESSIE_ERROR(idx, chk, site, code, op, i, len, x, A.run, ord))");
  }
  cg_blank(cg);
}

const CgTarget cg_cuda_target = {CG_CUDA, "cuda", ".cu", ".cpp", cuda_prelude, cuda_kernel};
