/*
 * cpu.c: the CPU target, each SOAC a skeleton on OpenMP.
 *
 * A kernel becomes one C function `static void K(RtKernelError *err,
 * RtLoc loc, int run, params..., results...)` (run: the site of the
 * `run` statement, rt/kernel.h) that runs its SOACs one after the
 * other; each SOAC's skeleton owns the loops, the thunk translator
 * (thunk.c) writes the computation inside them.  The loops split the
 * index space into fixed chunks (RT_CHUNK elements), not into one chunk
 * per thread, so that reductions and scans combine in the same order
 * whatever the number of threads: the output of a program does not
 * depend on OMP_NUM_THREADS.
 *
 *   MAP         a parallel loop (dynamic schedule when the thunk calls a
 *               scalar loop: its elements take uneven times)
 *   REDUCE      a reduction per chunk (parallel), then of the chunks'
 *               results in order
 *   SCAN        the same, then each chunk scanned from its prefix
 *   FILTER,     flags and a count per chunk, the counts' exclusive scan,
 *   PARTITION   then each chunk written at its offset
 *   PERMUTE     a parallel scatter; `into` a copy of D, in order (a later
 *               write wins, so it runs on one thread)
 *   ONCE        the thunk, once
 *   SEG_*       a loop over the segments (parallel, dynamic schedule),
 *               each segment in order
 *   LIBRARY     the runtime's function (rt/vector.c, rt/structured.c),
 *               called as library.c's table says; a loop (LIB_LOOP): a
 *               parallel loop (dynamic schedule) calling its element
 *               function on each element's segments (scalarfn.c)
 *
 * A check in a thunk records the error of the lowest element index in
 * *err; after each SOAC the kernel returns if there is one, and the
 * `run` reports it (host.c).
 */
#include <string.h>

#include "codegen.h"

/* The state of the kernel being written. */
typedef struct Kx {
  Cg *cg;
  const LcuKernel *k;
  const LcuSoac *s;  /* the SOAC being written */
  int index;         /* its position in the kernel */
  CgBinding *env;    /* the kernel's parameters and its SOACs' results */
  Vec vectors;       /* const LcuVar *: every vector or segdes local,
                        freed at the end unless a result */
} Kx;

static bool is_vec(const LcuVar *v) { return v->type.kind == LT_VEC; }

/* ---- bindings ---- */

/* Binds vector or segdes 'v', held in RtValue 'name', with the names of
   its data, length and offsets. */
static void bind_value(Kx *x, const LcuVar *v, const char *name) {
  Cg *cg = x->cg;
  if (is_vec(v)) {
    const char *d = xprintf("%s_d", name), *n = xprintf("%s_n", name);
    cg_line(cg, "%s *%s = %s->data.%s;", cg_ctype(v->type.base), d, name, cg_member(v->type.base));
    cg_line(cg, "const int64_t %s = %s->len;", n, name);
    x->env = cg_bind(x->env, v, d, n, NULL);
  } else {
    const char *off = xprintf("%s_off", name), *n = xprintf("%s_n", name);
    cg_line(cg, "const int64_t *%s = rt_seg_offsets(%s);", off, name);
    cg_line(cg, "const int64_t %s = %s->len;", n, name);
    x->env = cg_bind(x->env, v, name, n, off);
  }
}

/* A new vector local for SOAC result 'v' of 'n' elements. */
static void new_vector(Kx *x, const LcuVar *v, const char *n) {
  const char *name = cg_name(v);
  cg_line(x->cg, "%s = rt_value_new(rt_vec_type(%s), %s);", name, cg_rtbase(v->type.base), n);
  bind_value(x, v, name);
}

/* Records an error that the kernel finds itself (cg_soac_size), as a
   thunk's check does: the lowest element index wins. */
static void record_error(Cg *cg, const char *error) {
  cg_line(cg, "%s(err, %s, %d);", cg->record_fn, error, cg->check_order++);
}

/* The C expression of the SOAC's size, checked not negative. */
static const char *soac_size(Kx *x) { return cg_soac_size(x->cg, &x->s->size, x->env, record_error); }

/* The length expression of the vectors known to have the size's length,
   for subscripts that need no check. */
static const char *safe_length(Kx *x) {
  const LcuSize *sz = &x->s->size;
  return sz->length ? cg_lookup(x->env, sz->length)->length : NULL;
}

/* The checks of a thunk at element 'index': 'ix' the same as an int32,
   the SOAC's own index into the vectors of its size (CgChecks's
   safe_index), or NULL (a segmented SOAC's). */
static CgChecks checks_at(Kx *x, const char *index, const char *ix) {
  CgChecks c = {index, "err", ix, safe_length(x), x->s->loc, "RT_GATHER", false};
  return c;
}

/* ---- continuations ---- */

/* Stores thunk results into 'dests' (C lvalue patterns with one %s for
   nothing: complete lvalues). */
typedef struct Dests {
  const char **lvalues;
  int n;
} Dests;

static void store_dests(Cg *cg, void *ctx, const char **values, int n) {
  Dests *d = ctx;
  if (n != d->n)
    die("codegen: a thunk gives %d values for %d places", n, d->n);
  for (int i = 0; i < n; i++)
    cg_line(cg, "%s = %s;", d->lvalues[i], values[i]);
}

/* Declares 'n' locals of the types of the first n of the thunk's
   values; returns their names. */
static const char **declare_first(Kx *x, const LcuThunk *t, const char *prefix, int n) {
  const char **names = xmalloc(sizeof(char *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    names[i] = xprintf("%s%d", prefix, i);
    cg_line(x->cg, "%s %s;", cg_ctype(((LcuExp *)t->body.data[i])->type), names[i]);
  }
  return names;
}

/* The same for all of the thunk's values. */
static const char **declare_values(Kx *x, const LcuThunk *t, const char *prefix) {
  return declare_first(x, t, prefix, t->body.len);
}

/* Runs thunk 't' on 'args', its values into the lvalues 'dests'. */
static void thunk_into(Kx *x, const LcuThunk *t, const char **args, const CgChecks *c, const char **dests) {
  Dests d = {dests, t->body.len};
  cg_thunk(x->cg, t, args, x->env, c, store_dests, &d);
}

static int nvalues(const LcuSoac *s) { return s->pull->body.len; }

static FlatBase value_base(const LcuSoac *s, int i) { return ((LcuExp *)s->pull->body.data[i])->type; }

/* The identity of value 'i' of a REDUCE or SCAN. */
static const char *identity(const LcuSoac *s, int i) { return cg_constant(*(FlatAtom *)s->identity.data[i]); }

/* The SOAC's results, as they are bound (the names of their locals). */
static const char *result_name(const LcuSoac *s, int i) { return cg_name(s->results.data[i]); }

/* The loop header of a parallel loop over [0, n) with index 'i', chunked. */
static void chunk_loop(Cg *cg, const char *c, const char *nch) {
  cg_line(cg, "RT_PARALLEL_FOR_IF(%s > 1)", nch);
  cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", c, c, nch, c);
}

/* The loop over the elements of chunk 'c' of [0, n), or of segment 'c'
   of the SOAC's sd where 'n' is NULL (in order), opened: index 'i', and
   'ix' the same as an int32. */
static void open_elements(Kx *x, const char *c, const char *i, const char *ix, const char *n, const LcuThunk *t) {
  Cg *cg = x->cg;
  const CgBinding *sd = n ? NULL : cg_lookup(x->env, x->s->segdes);
  const char *first = n ? xprintf("%s * RT_CHUNK", c) : xprintf("%s[%s]", sd->offsets, c);
  /* the element's quotients and remainders that 't', the thunk applied
     next, divides it by, stepped with it (cg_thunk_inductions) */
  const char *step = t ? cg_thunk_inductions(cg, t, ix, x->env, first) : NULL;
  step = step ? xprintf(", %s", step) : "";
  if (n) {
    cg_line(cg, "const int64_t %s_end = (%s + 1) * RT_CHUNK < %s ? (%s + 1) * RT_CHUNK : %s;", c, c, n, c, n);
    cg_line(cg, "for (int64_t %s = %s; %s < %s_end; %s++%s) {", i, first, i, c, i, step);
  } else {
    cg_line(cg, "for (int64_t %s = %s; %s < %s[%s + 1]; %s++%s) {", i, first, i, sd->offsets, c, i, step);
  }
  cg->indent++;
  cg_line(cg, "const int32_t %s = (int32_t)%s;", ix, i);
}

/* ---- MAP ---- */

static void gen_map(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const char *n = soac_size(x);
  int nv = nvalues(s);
  const char **dests = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  bool *dead = xmalloc_atomic(sizeof(bool) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++) {
    dead[v] = cg_dead_result(x->k, x->index, s->results.data[v]);
    if (!dead[v])
      new_vector(x, s->results.data[v], n);
  }
  const char *i = cg_temp(cg), *ix = cg_temp(cg);
  for (int v = 0; v < nv; v++)
    dests[v] = dead[v] ? cg_temp(cg) : xprintf("%s[%s]", cg_lookup(x->env, s->results.data[v])->value, i);
  /* a pull that divides the element by a value fixed in the loop runs
     over chunks, each with the quotient and remainder at its start,
     stepped (cg_thunk_inductions); else over the elements */
  bool chunks = !lcu_thunk_calls(s->pull) && cg_thunk_divides_element(cg, s->pull, x->env);
  const char *c = chunks ? cg_temp(cg) : NULL;
  if (chunks) {
    const char *nch = cg_temp(cg);
    cg_line(cg, "const int64_t %s = (%s + RT_CHUNK - 1) / RT_CHUNK;", nch, n);
    cg_line(cg, "RT_PARALLEL_FOR_IF(%s > 1)", nch);
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", c, c, nch, c);
    cg->indent++;
    open_elements(x, c, i, ix, n, s->pull);
  } else {
    if (lcu_thunk_calls(s->pull)) /* a scalar loop: elements of uneven cost */
      cg_line(cg, "RT_PARALLEL_FOR_UNEVEN_IF(%s > 1)", n);
    else
      cg_line(cg, "RT_PARALLEL_FOR_IF(%s >= RT_PARALLEL_MIN)", n);
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", i, i, n, i);
    cg->indent++;
    cg_line(cg, "const int32_t %s = (int32_t)%s;", ix, i);
  }
  /* a dead result (cg_dead_result) into a local: computed for its
     checks, stored nowhere */
  for (int v = 0; v < nv; v++)
    if (dead[v])
      cg_line(cg, "%s %s; /* %s: read by nothing */", cg_ctype(((const LcuVar *)s->results.data[v])->type.base),
              dests[v], cg_name(s->results.data[v]));
  CgChecks ck = checks_at(x, i, ix);
  thunk_into(x, s->pull, (const char *[]){ix}, &ck, dests);
  for (int v = 0; v < nv; v++)
    if (dead[v])
      cg_line(cg, "(void)%s;", dests[v]);
  cg->indent--;
  cg_line(cg, "}");
  if (chunks) {
    cg->indent--;
    cg_line(cg, "}");
  }
}

/* ---- REDUCE and SCAN ---- */

/* acc = op(acc, vals): the operator thunk on the accumulators and the
   values, into the accumulators. */
static void combine_into(Kx *x, const char **acc, const char **vals, const CgChecks *c) {
  int nv = lcu_soac_scanned(x->s);
  const char **args = xmalloc(sizeof(char *) * (size_t)(2 * nv + 1));
  for (int v = 0; v < nv; v++) {
    args[v] = acc[v];
    args[nv + v] = vals[v];
  }
  thunk_into(x, x->s->second, args, c, acc);
}

/* A REDUCE or SCAN: each chunk reduced, the chunks' results combined in
   order, and (SCAN) each chunk scanned again from its prefix.  A SCAN's
   map columns (lcu.h) are written in pass 1, which makes every check of
   the pull; pass 2 computes the scanned values alone. */
static void gen_reduce_or_scan(Kx *x, bool scan) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = lcu_soac_scanned(s), all = nvalues(s);
  const char *n = soac_size(x);
  const char *nch = cg_temp(cg);
  cg_line(cg, "const int64_t %s = %s > 0 ? (%s + RT_CHUNK - 1) / RT_CHUNK : 1;", nch, n, n);
  /* the chunks' results */
  const char **part = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++) {
    part[v] = cg_temp(cg);
    cg_line(cg, "%s *%s = (%s *)rt_alloc_atomic(sizeof(%s) * (size_t)%s);", cg_ctype(value_base(s, v)), part[v],
            cg_ctype(value_base(s, v)), cg_ctype(value_base(s, v)), nch);
  }
  /* the map columns, written in pass 1 */
  const char **col = xmalloc(sizeof(char *) * (size_t)(all + 1));
  for (int v = nv; v < all; v++) {
    new_vector(x, s->results.data[v], n);
    col[v] = cg_lookup(x->env, s->results.data[v])->value;
  }
  const char *c = cg_temp(cg), *i = cg_temp(cg), *ix = cg_temp(cg);
  /* pass 1: each chunk from the identity */
  chunk_loop(cg, c, nch);
  cg->indent++;
  const char **acc = declare_first(x, s->pull, xprintf("%sa", c), nv);
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s = %s;", acc[v], identity(s, v));
  open_elements(x, c, i, ix, n, s->pull);
  CgChecks ck = checks_at(x, i, ix), op = checks_at(x, i, ix);
  const char **val = declare_values(x, s->pull, xprintf("%sx", c));
  thunk_into(x, s->pull, (const char *[]){ix}, &ck, val);
  for (int v = nv; v < all; v++)
    cg_line(cg, "%s[%s] = %s; /* a map column */", col[v], i, val[v]);
  combine_into(x, acc, val, &op);
  cg->indent--;
  cg_line(cg, "}");
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s[%s] = %s;", part[v], c, acc[v]);
  cg->indent--;
  cg_line(cg, "}");
  /* the chunks' results in order: the reduction, or each chunk's prefix */
  const char **total = declare_first(x, s->pull, xprintf("%st", c), nv);
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s = %s;", total[v], identity(s, v));
  cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", c, c, nch, c);
  cg->indent++;
  const char **chunk_val = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++) {
    chunk_val[v] = cg_temp(cg);
    cg_line(cg, "const %s %s = %s[%s];", cg_ctype(value_base(s, v)), chunk_val[v], part[v], c);
    if (scan)
      cg_line(cg, "%s[%s] = %s;", part[v], c, total[v]);
  }
  CgChecks last = checks_at(x, n, NULL);
  combine_into(x, total, chunk_val, &last);
  cg->indent--;
  cg_line(cg, "}");
  if (!scan) {
    for (int v = 0; v < nv; v++) {
      cg_line(cg, "%s = %s;", result_name(s, v), total[v]);
      x->env = cg_bind(x->env, s->results.data[v], result_name(s, v), NULL, NULL);
      cg_line(cg, "rt_free(%s);", part[v]);
    }
    return;
  }
  /* pass 2: each chunk scanned from its prefix */
  const char **dst = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++)
    new_vector(x, s->results.data[v], n);
  for (int v = 0; v < nv; v++)
    dst[v] = cg_lookup(x->env, s->results.data[v])->value;
  chunk_loop(cg, c, nch);
  cg->indent++;
  const char **acc2 = declare_first(x, s->pull, xprintf("%sp", c), nv);
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s = %s[%s];", acc2[v], part[v], c);
  /* pass 1 made every check of the whole pull at every element */
  const LcuThunk *scanned = lcu_thunk_values(s->pull, 0, nv);
  open_elements(x, c, i, ix, n, scanned);
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s[%s] = %s;", dst[v], i, acc2[v]);
  const char **val2 = declare_values(x, scanned, xprintf("%sy", c));
  thunk_into(x, scanned, (const char *[]){ix}, &ck, val2);
  combine_into(x, acc2, val2, &op);
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "}");
  for (int v = 0; v < nv; v++)
    cg_line(cg, "rt_free(%s);", part[v]);
}

/* ---- FILTER and PARTITION ---- */

/* After a filter's first pass: where an element failed, its scratch
   'flags' and 'counts' are freed and the kernel fails. */
static void fail_after_flags(Cg *cg, const char *flags, const char *counts) {
  cg_line(cg, "if (err->index != INT64_MAX) {");
  cg_line(cg, "  rt_free(%s);", flags);
  cg_line(cg, "  rt_free(%s);", counts);
  cg_line(cg, "  goto fail;");
  cg_line(cg, "}");
}

/* The chunks' counts 'counts' (from [first * nch], where 'first' is not
   NULL) to their offsets, in place, loop variable 'c'; their sum into a
   new local 'total'. */
static void chunk_offsets(Cg *cg, const char *counts, const char *first, const char *nch, const char *c,
                          const char *total) {
  const char *at = first ? xprintf("%s * %s + %s", first, nch, c) : c;
  cg_line(cg, "int64_t %s = 0;", total);
  cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", c, c, nch, c);
  cg_line(cg, "  const int64_t k = %s[%s];", counts, at);
  cg_line(cg, "  %s[%s] = %s;", counts, at, total);
  cg_line(cg, "  %s += k;", total);
  cg_line(cg, "}");
}

/* Pass 1 of a FILTER or PARTITION over chunk 'c' of [0, n), or of a
   SEG_FILTER or SEG_PARTITION ('n' NULL) over segment 'c': the
   predicate of each element's values (the element 'i', 'ix' as an
   int32), into its flag, and the count `kept` of those set; returns the
   elements' checks, which pass 2 makes again. */
static CgChecks flag_elements(Kx *x, const char *c, const char *i, const char *ix, const char *n, const char *flags) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  cg_line(cg, "int64_t kept = 0;");
  open_elements(x, c, i, ix, n, s->pull);
  CgChecks ck = checks_at(x, i, n ? ix : NULL);
  const char **val = declare_values(x, s->pull, xprintf("%sx", c));
  thunk_into(x, s->pull, (const char *[]){ix}, &ck, val);
  const char *keep = cg_temp(cg);
  cg_line(cg, "uint8_t %s;", keep);
  thunk_into(x, s->second, val, &ck, (const char *[]){keep});
  cg_line(cg, "%s[%s] = %s != 0;", flags, i, keep);
  cg_line(cg, "kept += %s != 0;", keep);
  cg->indent--;
  cg_line(cg, "}");
  return ck;
}

/* Pass 2 over chunk or segment 'c' (as flag_elements): each element's
   values, pulled again, written at `at` if its flag is set, else a
   PARTITION's at `at_not` into its results from 'others' on (a FILTER's
   'others' is -1: it skips the element; a joined PARTITION's is 0, its
   others going to the same vectors as its kept). */
static void write_elements(Kx *x, const char *c, const char *i, const char *ix, const char *n, const CgChecks *ck,
                           const char *flags, int others) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  open_elements(x, c, i, ix, n, s->pull);
  if (others < 0) {
    cg_line(cg, "if (!%s[%s])", flags, i);
    cg_line(cg, "  continue;");
  }
  const char **val = declare_values(x, s->pull, xprintf("%sy", c));
  thunk_into(x, s->pull, (const char *[]){ix}, ck, val);
  /* a column read by nothing (cg_dead_result) was not allocated */
  if (others != 0) { /* a FILTER, or a PARTITION into two vectors */
    cg_line(cg, "if (%s[%s]) {", flags, i);
    for (int v = 0; v < nv; v++)
      if (!cg_dead_result(x->k, x->index, s->results.data[v]))
        cg_line(cg, "  %s[at] = %s;", cg_lookup(x->env, s->results.data[v])->value, val[v]);
    cg_line(cg, "  at++;");
    if (others > 0) {
      cg_line(cg, "} else {");
      for (int v = 0; v < nv; v++)
        if (!cg_dead_result(x->k, x->index, s->results.data[others + v]))
          cg_line(cg, "  %s[at_not] = %s;", cg_lookup(x->env, s->results.data[others + v])->value, val[v]);
      cg_line(cg, "  at_not++;");
    }
    cg_line(cg, "}");
  } else {
    /* a joined PARTITION (lcu.md) stores every element in its one
       vector, the kept at 'at' and the others at 'at_not': the place
       chosen by the flag, not a branch on it, which a predicate as
       random as a radix sort's bit mispredicts at every other element
       (its sort of 10^6 keys on one core: 38.8 -> 29.0 ms).  A
       PARTITION into two vectors keeps the branch: a lifted if's test,
       usually the same for long runs of segments, made quicksort 2%
       slower chosen by the flag */
    const char *kept = cg_temp(cg);
    cg_line(cg, "const int64_t %s = %s[%s]; /* 0 or 1 */", kept, flags, i);
    for (int v = 0; v < nv; v++)
      if (!cg_dead_result(x->k, x->index, s->results.data[v]))
        cg_line(cg, "%s[%s ? at : at_not] = %s;", cg_lookup(x->env, s->results.data[v])->value, kept, val[v]);
    cg_line(cg, "at += %s;", kept);
    cg_line(cg, "at_not += 1 - %s;", kept);
  }
  cg->indent--;
  cg_line(cg, "}");
}

static void gen_filter(Kx *x, bool partition) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  const char *n = soac_size(x);
  const char *nch = cg_temp(cg), *flags = cg_temp(cg), *count = cg_temp(cg);
  cg_line(cg, "const int64_t %s = %s > 0 ? (%s + RT_CHUNK - 1) / RT_CHUNK : 1;", nch, n, n);
  cg_line(cg, "uint8_t *%s = (uint8_t *)rt_alloc_atomic((size_t)%s + 1);", flags, n);
  cg_line(cg, "int64_t *%s = (int64_t *)rt_alloc_atomic(sizeof(int64_t) * (size_t)(%s + 1));", count, nch);
  const char *c = cg_temp(cg), *i = cg_temp(cg), *ix = cg_temp(cg);
  /* pass 1: the flags, and each chunk's count */
  chunk_loop(cg, c, nch);
  cg->indent++;
  CgChecks ck = flag_elements(x, c, i, ix, n, flags);
  cg_line(cg, "%s[%s] = kept;", count, c);
  cg->indent--;
  cg_line(cg, "}");
  fail_after_flags(cg, flags, count);
  /* the offsets */
  const char *total = cg_temp(cg);
  chunk_offsets(cg, count, NULL, nch, c, total);
  /* a joined PARTITION: one vector of n a value, the others after the
     kept values (at_not from 'total' on) */
  bool joined = partition && s->joined;
  for (int v = 0; v < nv; v++)
    if (!cg_dead_result(x->k, x->index, s->results.data[v]))
      new_vector(x, s->results.data[v], joined ? n : total);
  if (partition && !joined)
    for (int v = 0; v < nv; v++)
      if (!cg_dead_result(x->k, x->index, s->results.data[nv + v]))
        new_vector(x, s->results.data[nv + v], xprintf("(%s - %s)", n, total));
  /* pass 2: each chunk at its offsets */
  chunk_loop(cg, c, nch);
  cg->indent++;
  cg_line(cg, "int64_t at = %s[%s];", count, c);
  if (partition)
    cg_line(cg, "int64_t at_not = %s%s * RT_CHUNK - %s[%s];", joined ? xprintf("%s + ", total) : "", c, count, c);
  write_elements(x, c, i, ix, n, &ck, flags, joined ? 0 : partition ? nv : -1);
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "rt_free(%s);", flags);
  cg_line(cg, "rt_free(%s);", count);
}

/* A pull that takes the segment (SEG_MAP's, a SPLIT's: fusion/segmap.c)
   over chunks of elements: 'g', the segment of chunk c's first element,
   by a search of sd 'seg''s offsets (rt_segment_search)... */
static void segment_of_chunk(Cg *cg, const CgBinding *seg, const char *g, const char *c) {
  cg_line(cg, "int64_t %s = rt_segment_search(%s, 0, %s, %s * RT_CHUNK);", g, seg->offsets, seg->length, c);
}

/* A SEG_MAP whose runs are copies (copyrun.c): the plan, each result's
   data and base. */
typedef struct CgCopy {
  CgRuns *plan;
  const char **dests; /* each result's data; NULL: read by nothing */
  FlatBase *bases;
} CgCopy;

/* A chunk's elements, as open_elements opens them, and where 'seg' is
   given, segment by segment: 'g' the segment of the chunk's first
   element (segment_of_chunk), a loop over the segments from it ('gx'
   for the pull) around a loop over the chunk's elements of each (i and
   ix), which close_segment_elements closes.  A segment that ends at or before the
   next element (an empty one) has none there.  Stepping 'g' at each
   element instead (a load and a test of the next offset, and 'gx' not
   invariant in the element loop) took 0.28 s of a one-core quicksort
   of 3·10^5 keys where this takes 0.20 (its SEG_MAP gathers;
   docs/codegen.md, forty-third session).  Where 'seg' is given, 'pull'
   is the thunk the loop applies to (ix, gx): what of it does not depend
   on the element is computed once a segment that has elements in the
   chunk (cg_thunk_invariants), before its loop, with the checks 'ck'.
   With 'copy', the loop over the elements stands in a loop over the
   segment's runs, each copied where it can be (cg_copy_runs); the
   element's divisions are stepped from where the elements' loop starts
   (cg_thunk_inductions).  'piece', where given, is a line written
   before the loop over a segment's elements in the chunk. */
static void open_segment_elements(Kx *x, const char *c, const char *i, const char *ix, const char *n,
                                  const CgBinding *seg, const char *g, const char *gx, const LcuThunk *pull,
                                  const CgChecks *ck, const CgCopy *copy, const char *piece) {
  Cg *cg = x->cg;
  if (!seg) { /* a pull that takes no segment */
    open_elements(x, c, i, ix, n, pull);
    return;
  }
  segment_of_chunk(cg, seg, g, c);
  cg_line(cg, "const int64_t %s_end = (%s + 1) * RT_CHUNK < %s ? (%s + 1) * RT_CHUNK : %s;", c, c, n, c, n);
  cg_line(cg, "for (int64_t %s = %s * RT_CHUNK; %s < %s_end; %s++) {", i, c, i, c, g);
  cg->indent++;
  cg_line(cg, "const int64_t %s_end = %s[%s + 1] < %s_end ? %s[%s + 1] : %s_end;", g, seg->offsets, g, c,
          seg->offsets, g, c);
  cg_line(cg, "const int32_t %s = (int32_t)%s;", gx, g);
  cg_line(cg, "if (%s >= %s_end)", i, g);
  cg_line(cg, "  continue; /* none of the chunk's elements */");
  cg_thunk_invariants(cg, pull, (const char *[]){ix, gx}, x->env, ck);
  if (piece)
    cg_line(cg, "%s", piece);
  if (copy) {
    /* runs that are copies, each a memcpy, and the elements' loop for the
       others (copyrun.c) */
    const char *stop = xprintf("%s_stop", i);
    cg_line(cg, "while (%s < %s_end) {", i, g);
    cg->indent++;
    cg_line(cg, "int64_t %s = %s_end;", stop, g);
    cg_copy_runs(cg, copy->plan, x->env, gx, i, xprintf("%s_end", g), stop, copy->dests, copy->bases);
    const char *step = cg_thunk_inductions(cg, pull, ix, x->env, i);
    cg_line(cg, "for (; %s < %s; %s++%s) {", i, stop, i, step ? xprintf(", %s", step) : "");
  } else {
    const char *step = cg_thunk_inductions(cg, pull, ix, x->env, i);
    cg_line(cg, "for (; %s < %s_end; %s++%s) {", i, g, i, step ? xprintf(", %s", step) : "");
  }
  cg->indent++;
  cg_line(cg, "const int32_t %s = (int32_t)%s;", ix, i);
}

/* Closes the loop over a segment's elements (none without 'seg'), and
   with 'copy' the loop over its runs; the caller's close of the element
   loop closes the loop over the segments. */
static void close_segment_elements(Cg *cg, const CgBinding *seg, const CgCopy *copy) {
  if (!seg)
    return;
  cg->indent--;
  cg_line(cg, "}");
  if (copy) {
    cg->indent--;
    cg_line(cg, "}");
  }
}

/* ---- SPLIT ----
   A FILTER of several classes (lcu.h), in the FILTER's two passes: the
   first keeps each element's flags as the bits of one byte and counts
   each class per chunk; the second pulls the element again where a flag
   is set and writes the columns of each class it is in at the class's
   offset. */
static void gen_split(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nc = s->classes;
  const char *n = soac_size(x);
  const char *nch = cg_temp(cg), *flags = cg_temp(cg), *count = cg_temp(cg);
  cg_line(cg, "const int64_t %s = %s > 0 ? (%s + RT_CHUNK - 1) / RT_CHUNK : 1;", nch, n, n);
  cg_line(cg, "uint8_t *%s = (uint8_t *)rt_alloc_atomic((size_t)%s + 1);", flags, n);
  cg_line(cg, "int64_t *%s = (int64_t *)rt_alloc_atomic(sizeof(int64_t) * (size_t)(%d * %s + 1)); /* class c, "
              "chunk k: [c * chunks + k] */",
          count, nc, nch);
  const char *c = cg_temp(cg), *i = cg_temp(cg), *ix = cg_temp(cg);
  /* a pull that takes the segment (fusion/segmap.c): as SEG_MAP's, the
     segment of a chunk's first element searched, then stepped */
  const CgBinding *seg = lcu_pull_takes_segment(s) ? cg_lookup(x->env, s->segdes) : NULL;
  const char *g = cg_temp(cg), *gx = cg_temp(cg);
  const char **pull_args = seg ? (const char *[]){ix, gx} : (const char *[]){ix};
  /* `counts sd` where the pull takes the segment: each class counted in
     each segment in pass 1, a chunk's piece of a segment at a time; a
     segment that lies in one chunk is one piece, stored, and the pieces
     of one that crosses a chunk's edge are added atomically (the chunks
     run in parallel).  A pass of its own over the flags, segment by
     segment, was a tenth of a one-core quicksort. */
  int nv = nvalues(s);
  const CgBinding *sd = s->segdes ? cg_lookup(x->env, s->segdes) : NULL;
  bool counted = sd && seg;
  if (counted)
    for (int k = 0; k < nc; k++) {
      const LcuVar *r = s->results.data[nv + k];
      new_vector(x, r, sd->length);
      cg_line(cg, "memset(%s, 0, sizeof(int32_t) * (size_t)%s);", cg_lookup(x->env, r)->value, sd->length);
    }
  /* pass 1: the flags, and each chunk's count of each class */
  chunk_loop(cg, c, nch);
  cg->indent++;
  cg_line(cg, "int64_t kept[%d] = {0};", nc);
  CgChecks ck = checks_at(x, i, ix);
  Buf before = {0}; /* the chunk's counts before the segment's piece */
  if (counted) {
    buf_printf(&before, "const int64_t before[%d] = {", nc);
    for (int k = 0; k < nc; k++)
      buf_printf(&before, "%skept[%d]", k ? ", " : "", k);
    buf_puts(&before, "}; /* the segment's piece: what it adds to kept */");
  }
  open_segment_elements(x, c, i, ix, n, seg, g, gx, s->pull, &ck, NULL, counted ? buf_str(&before) : NULL);
  const char **val = declare_values(x, s->pull, xprintf("%sx", c));
  thunk_into(x, s->pull, pull_args, &ck, val);
  const char **keep = xmalloc(sizeof(char *) * (size_t)nc);
  for (int k = 0; k < nc; k++) {
    keep[k] = cg_temp(cg);
    cg_line(cg, "uint8_t %s;", keep[k]);
  }
  thunk_into(x, s->second, val, &ck, keep);
  Buf mask = {0};
  for (int k = 0; k < nc; k++) {
    buf_printf(&mask, "%s(%s != 0) << %d", k ? " | " : "", keep[k], k);
    cg_line(cg, "kept[%d] += %s != 0;", k, keep[k]);
  }
  cg_line(cg, "%s[%s] = (uint8_t)(%s);", flags, i, buf_str(&mask));
  close_segment_elements(cg, seg, NULL);
  if (counted) {
    cg_line(cg, "if (%s[%s] >= %s * RT_CHUNK && %s[%s + 1] <= %s_end) { /* the whole segment */", sd->offsets, g, c,
            sd->offsets, g, c);
    for (int k = 0; k < nc; k++)
      cg_line(cg, "  %s[%s] = (int32_t)(kept[%d] - before[%d]);", cg_lookup(x->env, s->results.data[nv + k])->value, g,
              k, k);
    cg_line(cg, "} else {");
    for (int k = 0; k < nc; k++)
      cg_line(cg, "  __atomic_fetch_add(&%s[%s], (int32_t)(kept[%d] - before[%d]), __ATOMIC_RELAXED);",
              cg_lookup(x->env, s->results.data[nv + k])->value, g, k, k);
    cg_line(cg, "}");
  }
  cg->indent--;
  cg_line(cg, "}");
  for (int k = 0; k < nc; k++)
    cg_line(cg, "%s[%d * %s + %s] = kept[%d];", count, k, nch, c, k);
  cg->indent--;
  cg_line(cg, "}");
  fail_after_flags(cg, flags, count);
  /* each class's offsets, and its vectors */
  const char **total = xmalloc(sizeof(char *) * (size_t)nc);
  for (int k = 0; k < nc; k++) {
    total[k] = cg_temp(cg);
    chunk_offsets(cg, count, xprintf("%d", k), nch, c, total[k]);
    for (int v = lcu_split_start(s, k); v < lcu_split_start(s, k + 1); v++)
      if (!cg_dead_result(x->k, x->index, s->results.data[v]))
        new_vector(x, s->results.data[v], total[k]);
  }
  if (sd && !counted) {
    /* `counts sd`: each class's flags counted in each segment */
    for (int k = 0; k < nc; k++)
      new_vector(x, s->results.data[nv + k], sd->length);
    const char *g = cg_temp(cg), *j = cg_temp(cg);
    cg_line(cg, "RT_PARALLEL_FOR_IF(%s > RT_CHUNK)", sd->length);
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", g, g, sd->length, g);
    cg->indent++;
    cg_line(cg, "int32_t in[%d] = {0};", nc);
    cg_line(cg, "for (int64_t %s = %s[%s]; %s < %s[%s + 1]; %s++) {", j, sd->offsets, g, j, sd->offsets, g, j);
    cg->indent++;
    for (int k = 0; k < nc; k++)
      cg_line(cg, "in[%d] += %s[%s] >> %d & 1;", k, flags, j, k);
    cg->indent--;
    cg_line(cg, "}");
    for (int k = 0; k < nc; k++)
      cg_line(cg, "%s[%s] = in[%d];", cg_lookup(x->env, s->results.data[nv + k])->value, g, k);
    cg->indent--;
    cg_line(cg, "}");
  }
  if (sd) {
    const char *g = cg_temp(cg);
    if (s->offsets) {
      /* `offsets`: each class's counts summed before each segment (the
         sums fit an int: they count the class's values) */
      for (int k = 0; k < nc; k++) {
        const LcuVar *r = s->results.data[nv + nc + k];
        new_vector(x, r, sd->length);
        const char *sum = cg_temp(cg);
        cg_line(cg, "for (int64_t %s = 0, %s = 0; %s < %s; %s++) {", g, sum, g, sd->length, g);
        cg_line(cg, "  %s[%s] = (int32_t)%s;", cg_lookup(x->env, r)->value, g, sum);
        cg_line(cg, "  %s += %s[%s];", sum, cg_lookup(x->env, s->results.data[nv + k])->value, g);
        cg_line(cg, "}");
      }
    }
  }
  /* pass 2: each chunk at its offsets */
  chunk_loop(cg, c, nch);
  cg->indent++;
  cg_line(cg, "int64_t at[%d];", nc);
  for (int k = 0; k < nc; k++)
    cg_line(cg, "at[%d] = %s[%d * %s + %s];", k, count, k, nch, c);
  open_segment_elements(x, c, i, ix, n, seg, g, gx, s->pull, &ck, NULL, NULL);
  cg_line(cg, "if (!%s[%s])", flags, i);
  cg_line(cg, "  continue;");
  const char **val2 = declare_values(x, s->pull, xprintf("%sy", c));
  thunk_into(x, s->pull, pull_args, &ck, val2);
  for (int k = 0; k < nc; k++) {
    cg_line(cg, "if (%s[%s] >> %d & 1) {", flags, i, k);
    /* a column read by nothing (cg_dead_result) was not allocated */
    for (int v = lcu_split_start(s, k); v < lcu_split_start(s, k + 1); v++)
      if (!cg_dead_result(x->k, x->index, s->results.data[v]))
        cg_line(cg, "  %s[at[%d]] = %s;", cg_lookup(x->env, s->results.data[v])->value, k, val2[v]);
    cg_line(cg, "  at[%d]++;", k);
    cg_line(cg, "}");
  }
  close_segment_elements(cg, seg, NULL);
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "rt_free(%s);", flags);
  cg_line(cg, "rt_free(%s);", count);
}

/* ---- PERMUTE ---- */

/* A PERMUTE's or SEG_PERMUTE's result `into` D: a copy of D, which the
   writes then change; returns its length. */
static const char *copy_into(Kx *x) {
  CgBinding *d = cg_lookup(x->env, x->s->into);
  const LcuVar *r = x->s->results.data[0];
  new_vector(x, r, d->length);
  cg_line(x->cg, "memcpy(%s, %s, sizeof(%s) * (size_t)%s);", cg_lookup(x->env, r)->value, d->value,
          cg_ctype(r->type.base), d->length);
  return d->length;
}

/* The body of a PERMUTE's or SEG_PERMUTE's loop at element 'i' ('ix'
   as an int32) of chunk or segment 'c': its values and its place 'to',
   which must be in [0, room) (else an error at 'i', and the element is
   skipped), then the values written at 'base' + 'to' (or at 'to' where
   'base' is NULL). */
static void scatter_element(Kx *x, const char *c, const char *i, const char *ix, const CgChecks *ck, const char *to,
                            const char *room, const char *base) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const char **val = declare_values(x, s->pull, xprintf("%sx", c));
  thunk_into(x, s->pull, (const char *[]){ix}, ck, val);
  cg_line(cg, "int32_t %s;", to);
  thunk_into(x, s->second, (const char *[]){ix}, ck, (const char *[]){to});
  int site = cg_site(cg, no_loc, "__write", NULL);
  cg_line(cg, "if ((uint64_t)(int64_t)%s >= (uint64_t)%s) {", to, room);
  cg_line(cg, "  %s(err, %s, RT_CHECK_INDEX, %d, 0, RT_SCATTER, %s, %s, 0.0, %d);", cg->record_fn, i, site, to, room,
          cg->check_order++);
  cg_line(cg, "  continue;");
  cg_line(cg, "}");
  const char *at = base ? xprintf("%s + %s", base, to) : to;
  for (int v = 0; v < nvalues(s); v++)
    cg_line(cg, "%s[%s] = %s;", cg_lookup(x->env, s->results.data[v])->value, at, val[v]);
}

static void gen_permute(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  const char *n = soac_size(x);
  const char *i = cg_temp(cg), *ix = cg_temp(cg), *to = cg_temp(cg);
  const char *room;
  if (s->into) {
    /* written in order: a later write wins */
    room = copy_into(x);
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", i, i, n, i);
  } else {
    for (int v = 0; v < nv; v++)
      new_vector(x, s->results.data[v], n);
    room = n;
    cg_line(cg, "RT_PARALLEL_FOR_IF(%s >= RT_PARALLEL_MIN)", n);
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", i, i, n, i);
  }
  cg->indent++;
  cg_line(cg, "const int32_t %s = (int32_t)%s;", ix, i);
  CgChecks ck = checks_at(x, i, ix);
  scatter_element(x, i, i, ix, &ck, to, room, NULL);
  cg->indent--;
  cg_line(cg, "}");
}

/* ---- ONCE ---- */

static void gen_once(Kx *x) {
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  const char **dests = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++)
    dests[v] = result_name(s, v);
  CgChecks ck = {"0", "err", NULL, NULL, s->loc, "RT_ELT", false};
  thunk_into(x, s->pull, NULL, &ck, dests);
  for (int v = 0; v < nv; v++)
    x->env = cg_bind(x->env, s->results.data[v], dests[v], NULL, NULL);
}

/* ---- the segmented SOACs ---- */

/* A loop over the segments of the SOAC's sd, parallel; 'seg' the segment
   and 'j' the element, each segment in order. */
static CgBinding *seg_loop(Kx *x, const char *seg) {
  Cg *cg = x->cg;
  CgBinding *sd = cg_lookup(x->env, x->s->segdes);
  cg_line(cg, "RT_PARALLEL_FOR_SEGMENTS_IF(%s >= 64)", sd->length);
  cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", seg, seg, sd->length, seg);
  return sd;
}

static void gen_seg_reduce_or_scan(Kx *x, bool scan) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  CgBinding *sd = cg_lookup(x->env, s->segdes);
  for (int v = 0; v < nv; v++)
    new_vector(x, s->results.data[v], scan ? xprintf("%s[%s]", sd->offsets, sd->length) : sd->length);
  const char *g = cg_temp(cg), *j = cg_temp(cg), *ix = cg_temp(cg);
  seg_loop(x, g);
  cg->indent++;
  const char **acc = declare_values(x, s->pull, xprintf("%sa", g));
  for (int v = 0; v < nv; v++)
    cg_line(cg, "%s = %s;", acc[v], identity(s, v));
  CgChecks ck = checks_at(x, j, NULL);
  CgChecks op = checks_at(x, j, NULL);
  /* a pull that takes the segment too (fusion/segmap.c): what it reads
     at the segment alone computed once, where the segment has elements
     (cg_thunk_invariants, as open_segment_elements does) */
  bool takes_segment = lcu_pull_takes_segment(s);
  const char *gx = takes_segment ? cg_temp(cg) : NULL;
  if (takes_segment) {
    cg_line(cg, "if (%s[%s] < %s[%s + 1]) {", sd->offsets, g, sd->offsets, g);
    cg->indent++;
    cg_line(cg, "const int32_t %s = (int32_t)%s;", gx, g);
    cg_thunk_invariants(cg, s->pull, (const char *[]){ix, gx}, x->env, &ck);
  }
  open_elements(x, g, j, ix, NULL, s->pull);
  if (scan)
    for (int v = 0; v < nv; v++)
      cg_line(cg, "%s[%s] = %s;", cg_lookup(x->env, s->results.data[v])->value, j, acc[v]);
  const char **val = declare_values(x, s->pull, xprintf("%sx", g));
  thunk_into(x, s->pull, takes_segment ? (const char *[]){ix, gx} : (const char *[]){ix}, &ck, val);
  combine_into(x, acc, val, &op);
  cg->indent--;
  cg_line(cg, "}");
  if (takes_segment) {
    cg->indent--;
    cg_line(cg, "}");
  }
  if (!scan)
    for (int v = 0; v < nv; v++)
      cg_line(cg, "%s[%s] = %s;", cg_lookup(x->env, s->results.data[v])->value, g, acc[v]);
  cg->indent--;
  cg_line(cg, "}");
}

/* SEG_FILTER (the kept values, then their sd) and SEG_PARTITION (the
   kept values and their sd, then the others and theirs). */
static void gen_seg_filter(Kx *x, bool partition) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  CgBinding *sd = cg_lookup(x->env, s->segdes);
  const char *total = xprintf("%s[%s]", sd->offsets, sd->length);
  const char *flags = cg_temp(cg), *g = cg_temp(cg), *j = cg_temp(cg), *ix = cg_temp(cg);
  /* the new sds: the kept (and the others') count per segment */
  const LcuVar *kept_sd = s->results.data[nv];
  const LcuVar *other_sd = partition ? s->results.data[2 * nv + 1] : NULL;
  cg_line(cg, "%s = rt_value_new(rt_segdes_type(), %s);", cg_name(kept_sd), sd->length);
  if (partition)
    cg_line(cg, "%s = rt_value_new(rt_segdes_type(), %s);", cg_name(other_sd), sd->length);
  cg_line(cg, "uint8_t *%s = (uint8_t *)rt_alloc_atomic((size_t)%s + 1);", flags, total);
  seg_loop(x, g);
  cg->indent++;
  CgChecks ck = flag_elements(x, g, j, ix, NULL, flags);
  cg_line(cg, "%s->lengths[%s] = kept;", cg_name(kept_sd), g);
  if (partition)
    cg_line(cg, "%s->lengths[%s] = %s[%s + 1] - %s[%s] - kept;", cg_name(other_sd), g, sd->offsets, g, sd->offsets,
            g);
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "if (err->index != INT64_MAX) {");
  cg_line(cg, "  rt_free(%s);", flags);
  cg_line(cg, "  goto fail;");
  cg_line(cg, "}");
  bind_value(x, kept_sd, cg_name(kept_sd));
  CgBinding *ks = cg_lookup(x->env, kept_sd);
  CgBinding *os = NULL;
  if (partition) {
    bind_value(x, other_sd, cg_name(other_sd));
    os = cg_lookup(x->env, other_sd);
  }
  for (int v = 0; v < nv; v++)
    new_vector(x, s->results.data[v], xprintf("%s[%s]", ks->offsets, ks->length));
  if (partition)
    for (int v = 0; v < nv; v++)
      new_vector(x, s->results.data[nv + 1 + v], xprintf("%s[%s]", os->offsets, os->length));
  seg_loop(x, g);
  cg->indent++;
  cg_line(cg, "int64_t at = %s[%s];", ks->offsets, g);
  if (partition)
    cg_line(cg, "int64_t at_not = %s[%s];", os->offsets, g);
  write_elements(x, g, j, ix, NULL, &ck, flags, partition ? nv + 1 : -1);
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "rt_free(%s);", flags);
}

/* SEG_MAP: a MAP over the sd's elements whose thunk also takes each
   element's segment.  Chunks of elements, as a MAP's, so that one long
   segment is spread over the threads: the segment of a chunk's first
   element found by a search of the offsets (rt_segment_search), and each
   next one by stepping past the segments that end at or before it. */
static void gen_seg_map(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  CgBinding *sd = cg_lookup(x->env, s->segdes);
  const char *n = cg_temp(cg), *nch = cg_temp(cg);
  cg_line(cg, "const int64_t %s = %s[%s];", n, sd->offsets, sd->length);
  bool *dead = xmalloc_atomic(sizeof(bool) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++) {
    dead[v] = cg_dead_result(x->k, x->index, s->results.data[v]);
    if (!dead[v])
      new_vector(x, s->results.data[v], n);
  }
  cg_line(cg, "const int64_t %s = (%s + RT_CHUNK - 1) / RT_CHUNK;", nch, n);
  const char *c = cg_temp(cg), *i = cg_temp(cg), *ix = cg_temp(cg), *g = cg_temp(cg), *gx = cg_temp(cg);
  chunk_loop(cg, c, nch);
  cg->indent++;
  CgChecks ck = checks_at(x, i, ix);
  /* results read from other vectors in runs: copies (copyrun.c) */
  CgRuns *plan = !cg->one_pass ? cg_copy_runs_plan(s->pull) : NULL;
  CgCopy copy = {plan, xmalloc(sizeof(char *) * (size_t)nv), xmalloc_atomic(sizeof(FlatBase) * (size_t)nv)};
  for (int v = 0; v < nv; v++) {
    const LcuVar *result = s->results.data[v];
    copy.dests[v] = dead[v] ? NULL : cg_lookup(x->env, result)->value;
    copy.bases[v] = result->type.base;
  }
  open_segment_elements(x, c, i, ix, n, sd, g, gx, s->pull, &ck, plan ? &copy : NULL, NULL);
  /* a dead result (cg_dead_result) into a local, as MAP's */
  const char **dests = xmalloc(sizeof(char *) * (size_t)(nv + 1));
  for (int v = 0; v < nv; v++) {
    dests[v] = dead[v] ? cg_temp(cg) : xprintf("%s[%s]", cg_lookup(x->env, s->results.data[v])->value, i);
    if (dead[v])
      cg_line(cg, "%s %s; /* %s: read by nothing */", cg_ctype(((const LcuVar *)s->results.data[v])->type.base),
              dests[v], cg_name(s->results.data[v]));
  }
  thunk_into(x, s->pull, (const char *[]){ix, gx}, &ck, dests);
  for (int v = 0; v < nv; v++)
    if (dead[v])
      cg_line(cg, "(void)%s;", dests[v]);
  close_segment_elements(cg, sd, plan ? &copy : NULL);
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "}");
}

/* SEG_PERMUTE: within each segment, the index thunk gives the place in
   the segment; `into` D, a copy of D written in order. */
static void gen_seg_permute(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  int nv = nvalues(s);
  CgBinding *sd = cg_lookup(x->env, s->segdes);
  const char *total = xprintf("%s[%s]", sd->offsets, sd->length);
  if (s->into) {
    copy_into(x);
  } else {
    for (int v = 0; v < nv; v++)
      new_vector(x, s->results.data[v], total);
  }
  const char *g = cg_temp(cg), *j = cg_temp(cg), *ix = cg_temp(cg), *to = cg_temp(cg);
  if (s->into)
    cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", g, g, sd->length, g);
  else
    seg_loop(x, g);
  cg->indent++;
  cg_line(cg, "const int64_t len = %s[%s + 1] - %s[%s];", sd->offsets, g, sd->offsets, g);
  open_elements(x, g, j, ix, NULL, NULL);
  CgChecks ck = checks_at(x, j, NULL);
  scatter_element(x, g, j, ix, &ck, to, "len", xprintf("%s[%s]", sd->offsets, g));
  cg->indent--;
  cg_line(cg, "}");
  cg->indent--;
  cg_line(cg, "}");
}

/* ---- library kernels ---- */

/* LIBRARY loop: the element function on each of the n elements, in
   parallel (a dynamic schedule: the loops take uneven times).  Element i
   gets the scalars at i and, of each vector, segment i: of a copy where
   the function updates it in place (the SOAC's result where it returns
   it, else scratch, freed after), of the argument where it only reads
   it.  Its checks record for element i, always (scalarfn.c: an element
   never runs twice). */
static void gen_loop(Kx *x) {
  Cg *cg = x->cg;
  const LcuSoac *s = x->s;
  const LcuFunc *f = s->callee;
  const CgLoopArg *a = cg_loop_args(s);
  const LcuVar *res = s->results.data[0];
  const char *fn = f->source ? f->source : f->name;
  const char *n = cg_temp(cg);
  cg_line(cg, "/* %s on each element, its own segments */", fn);
  cg_line(cg, "const int64_t %s = %s; /* the elements */", n, cg_lookup(x->env, cg_loop_count(s, a))->length);
  /* each vector's values, as the elements see them */
  const char **data = xmalloc(sizeof(char *) * (size_t)f->params.len);
  Vec scratch = {0};
  for (int j = 0; j < f->params.len; j++) {
    if (!a[j].sd)
      continue;
    const CgBinding *v = cg_lookup(x->env, a[j].values);
    data[j] = v->value;
    if (!a[j].copy)
      continue;
    const char *type = cg_ctype(a[j].values->type.base);
    if (a[j].result) {
      new_vector(x, res, v->length);
      data[j] = cg_lookup(x->env, res)->value;
    } else {
      const char *t = cg_temp(cg);
      cg_line(cg, "RtValue *%s = rt_value_new(rt_vec_type(%s), %s); /* scratch: a copy of %s, which %s updates */",
              t, cg_rtbase(a[j].values->type.base), v->length, cg_name(a[j].values), fn);
      data[j] = xprintf("%s_d", t);
      cg_line(cg, "%s *%s = %s->data.%s;", type, data[j], t, cg_member(a[j].values->type.base));
      vec_push(&scratch, (void *)t);
    }
    cg_line(cg, "memcpy(%s, %s, sizeof(%s) * (size_t)%s);", data[j], v->value, type, v->length);
  }
  bool tuple = cg_each_gives_tuple(s); /* several scalars: a vector each (a loop gives one vector else) */
  for (int r = 0; f->each_result < 0 && r < s->results.len; r++)
    new_vector(x, s->results.data[r], n);
  const char *i = cg_temp(cg), *failed = cg_temp(cg);
  cg_line(cg, "RT_PARALLEL_FOR_UNEVEN_IF(%s > 1)", n);
  cg_line(cg, "for (int64_t %s = 0; %s < %s; %s++) {", i, i, n, i);
  cg->indent++;
  const char **args = xmalloc(sizeof(char *) * (size_t)f->params.len);
  for (int j = 0; j < f->params.len; j++) {
    const CgBinding *v = cg_lookup(x->env, a[j].values);
    if (a[j].shared) { /* the whole vector, for every element */
      args[j] = xprintf("%s, %s", v->value, v->length);
      continue;
    }
    if (!a[j].sd) {
      args[j] = xprintf("%s[%s]", v->value, i);
      continue;
    }
    const char *off = cg_lookup(x->env, a[j].sd)->offsets;
    args[j] = xprintf("%s + %s[%s], %s[%s + 1] - %s[%s]", data[j], off, i, off, i, off, i);
  }
  cg_line(cg, "int %s = 0; /* set when a check fails: recorded already */", failed);
  const char **outs = tuple ? cg_each_outs(cg, s) : NULL;
  const char *call = cg_each_call(cg, s, args, outs, "err", i, failed);
  if (tuple) {
    cg_line(cg, "(void)%s; /* %s's components, from one walk */", call, fn);
    for (int r = 0; r < s->results.len; r++)
      cg_line(cg, "%s[%s] = %s;", cg_lookup(x->env, s->results.data[r])->value, i, outs[r]);
  } else if (f->each_result < 0)
    cg_line(cg, "%s[%s] = %s;", cg_lookup(x->env, res)->value, i, call);
  else
    cg_line(cg, "(void)%s;", call);
  cg_line(cg, "(void)%s;", failed);
  cg->indent--;
  cg_line(cg, "}");
  for (int j = 0; j < scratch.len; j++)
    cg_line(cg, "rt_value_free(%s);", (const char *)scratch.data[j]);
}

/* The runtime's function (library.c), its result bound for the SOACs
   after it. */
static void gen_library(Kx *x) {
  if (x->s->library == LIB_LOOP) {
    gen_loop(x);
    return;
  }
  cg_library(x->cg, x->s, x->env, CG_CPU, NULL);
  const LcuVar *res = x->s->results.data[0];
  if (res->type.kind == LT_SCALAR)
    x->env = cg_bind(x->env, res, cg_name(res), NULL, NULL);
  else
    bind_value(x, res, cg_name(res));
}

/* ---- kernels ---- */

static void gen_soac(Kx *x) {
  switch (x->s->kind) {
  case SOAC_MAP:
    gen_map(x);
    return;
  case SOAC_REDUCE:
    gen_reduce_or_scan(x, false);
    return;
  case SOAC_SCAN:
    gen_reduce_or_scan(x, true);
    return;
  case SOAC_FILTER:
    gen_filter(x, false);
    return;
  case SOAC_PARTITION:
    gen_filter(x, true);
    return;
  case SOAC_SPLIT:
    gen_split(x);
    return;
  case SOAC_PERMUTE:
    gen_permute(x);
    return;
  case SOAC_ONCE:
    gen_once(x);
    return;
  case SOAC_SEG_MAP:
    gen_seg_map(x);
    return;
  case SOAC_SEG_PERMUTE:
    gen_seg_permute(x);
    return;
  case SOAC_SEG_REDUCE:
    gen_seg_reduce_or_scan(x, false);
    return;
  case SOAC_SEG_SCAN:
    gen_seg_reduce_or_scan(x, true);
    return;
  case SOAC_SEG_FILTER:
    gen_seg_filter(x, false);
    return;
  case SOAC_SEG_PARTITION:
    gen_seg_filter(x, true);
    return;
  case SOAC_LIBRARY:
    gen_library(x);
    return;
  case SOAC_COUNT:
    break;
  }
  unreachable();
}

void cg_cpu_kernel(Cg *cg, const LcuKernel *k, const char *name) {
  Kx x = {cg, k, NULL, 0, NULL, {0}};
  cg->check_order = 0;
  cg_kernel_comment(cg, k);
  cg_line(cg, "%s {", cg_kernel_signature(cg, k, name, false));
  cg->indent++;
  cg_line(cg, "(void)loc;");
  cg_line(cg, "(void)run;");
  for (int i = 0; i < k->params.len; i++) {
    const LcuVar *v = k->params.data[i];
    if (v->type.kind == LT_SCALAR) {
      x.env = cg_bind(x.env, v, cg_name(v), NULL, NULL);
      if (cg_divides_by(k, v)) { /* prepared once for every element's division */
        cg_line(cg, "const RtDivisor %s_dv = rt_divisor(%s);", cg_name(v), cg_name(v));
        x.env->divisor = xprintf("%s_dv", cg_name(v));
      }
    } else {
      bind_value(&x, v, cg_name(v));
      const LcuVar *same = cg_same_length_param(cg, k, v);
      if (same) { /* checked against a parameter of one length with it */
        cg_line(cg, "(void)%s; /* %s's length is %s's */", x.env->length, cg_name(v), cg_name(same));
        x.env->length = cg_lookup(x.env, same)->length;
      }
    }
  }
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    for (int r = 0; r < s->results.len; r++)
      cg_declare_result(cg, s->results.data[r], &x.vectors);
  }
  int nested = 0;
  for (int i = 0; i < k->soacs.len; i++) {
    x.s = k->soacs.data[i];
    x.index = i;
    cg_line(cg, "/* %s */", lcu_soac_name(x.s->kind));
    cg_line(cg, "{");
    cg->indent++;
    CgBinding *outer = x.env;
    gen_soac(&x);
    cg->indent--;
    cg_line(cg, "}");
    cg_line(cg, "if (err->index != INT64_MAX)");
    cg_line(cg, "  goto fail;");
    /* the SOAC's results stay bound for the SOACs after it: their data
       and length names were declared inside the block, so bind them again
       outside */
    x.env = outer;
    /* ... in a block of their own, which the `goto fail`s above do not
       enter (C++, for the CUDA target's host kernels, forbids jumping
       past an initialization into its scope) */
    if (i + 1 < k->soacs.len) {
      cg_line(cg, "{");
      cg->indent++;
      nested++;
    }
    for (int r = 0; r < x.s->results.len; r++) {
      const LcuVar *v = x.s->results.data[r];
      if (v->type.kind == LT_SCALAR)
        x.env = cg_bind(x.env, v, cg_name(v), NULL, NULL);
      else if (i + 1 < k->soacs.len && !cg_dead_result(k, i, v)) /* read by the SOACs after it */
        bind_value(&x, v, cg_name(v));
    }
  }
  for (; nested > 0; nested--) {
    cg->indent--;
    cg_line(cg, "}");
  }
  cg_kernel_exits(cg, k, &x.vectors);
  if (cg->record_out && !cg->one_pass && cg->record_used) {
    /* an element failed a check in a fast pass: the kernel again, in
       its recording version (cpu_kernel), from its parameters, which
       it only reads */
    Buf call = {0};
    buf_printf(&call, "%s(err, loc, run", cg_record_name(k));
    for (int i = 0; i < k->params.len; i++)
      buf_printf(&call, ", %s", cg_name(k->params.data[i]));
    for (int i = 0; i < k->results.len; i++)
      buf_printf(&call, ", out_%s", cg_name(k->results.data[i]));
    buf_puts(&call, ");");
    cg_line(cg, "if (err->order == RT_KERNEL_AGAIN) { /* an element failed: again, recording the error */");
    cg_line(cg, "  *err = (RtKernelError)RT_NO_ERROR;");
    cg_line(cg, "  %s", buf_str(&call));
    cg_line(cg, "}");
  }
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

void cg_cpu_loops(Cg *cg, bool parallel) {
  cg_line(cg, "enum { RT_CHUNK = 16384, RT_PARALLEL_MIN = 8192 };");
  if (parallel)
    cg_line(cg, "#ifdef _OPENMP");
  else
    cg_line(cg, "#if 0 /* the host's kernels here run on small vectors, on one thread */");
  cg_line(cg, "#define RT_PRAGMA(x) _Pragma(#x)");
  cg_line(cg, "#define RT_PARALLEL_FOR_IF(c) RT_PRAGMA(omp parallel for schedule(static) if (c))");
  cg_line(cg, "#define RT_PARALLEL_FOR_SEGMENTS_IF(c) RT_PRAGMA(omp parallel for schedule(dynamic, 64) if (c))");
  cg_line(cg, "#define RT_PARALLEL_FOR_UNEVEN_IF(c) RT_PRAGMA(omp parallel for schedule(dynamic, 16) if (c))");
  cg_line(cg, "#else");
  cg_line(cg, "#define RT_PARALLEL_FOR_IF(c)");
  cg_line(cg, "#define RT_PARALLEL_FOR_SEGMENTS_IF(c)");
  cg_line(cg, "#define RT_PARALLEL_FOR_UNEVEN_IF(c)");
  cg_line(cg, "#endif");
}

/* One prelude for every unit: the C compiler takes a kernel unit's
   includes as cheaply as a host unit's. */
static void cpu_prelude(Cg *cg, bool kernels) {
  (void)kernels;
  cg_line(cg, "#include <stdint.h>");
  cg_line(cg, "#include <string.h>");
  cg_line(cg, "#include \"rt.h\"");
  cg_line(cg, "#include \"scalar.h\"");
  cg_line(cg, "#include \"kernel.h\"");
  cg_blank(cg);
  cg_line(cg, "/* the CPU target: loops in fixed chunks, parallel with OpenMP */");
  cg_cpu_loops(cg, true);
  cg_line(cg, "/* the host's view of values: on the CPU, values are the host's */");
  cg_line(cg, "#define NESSIE_INIT(sites) ((void)(sites))");
  cg_line(cg, "#define NESSIE_SYNC() ((void)0)");
  cg_line(cg, "#define NESSIE_FAIL(call) call");
  cg_line(cg, "#define NESSIE_COUNT_RUN() (rt_stats.kernels++)");
  cg_line(cg, "#define NESSIE_TO_HOST(v) (v)");
  cg_line(cg, "#define NESSIE_HOST_DONE(h, v) ((void)0)");
  cg_line(cg, "#define NESSIE_TO_DEVICE(h) (h)");
  cg_line(cg, "#define NESSIE_SEG_TOTAL(d) rt_seg_total(d)");
  cg_line(cg, "#define NESSIE_SEG_TOTALS(n, ds) ((void)(n), (void)(ds))");
  cg_line(cg, "#define NESSIE_NOW() rt_now()");
  cg_line(cg, "#define NESSIE_CHECK(kind, loc, a, b, c) rt_check((kind), (loc), (a), (b), (c))");
  cg_line(cg, "#define NESSIE_RANGE_SIZE(loc, a, e, d) rt_range_size((loc), (a), (e), (d))");
  cg_line(cg, "#define NESSIE_APPEND_SIZE(loc, a, b) rt_append_size((loc), (a), (b))");
  cg_line(cg, "#define NESSIE_HOST_CALL(h, loc, la, lr, lifted, args, nargs, results, nresults) \\");
  cg_line(cg, "  rt_host_call((h), (loc), (la), (lr), (lifted), (args), (results))");
  cg_line(cg, "/* a check's error: the first operation's (ord), for the lowest element index */");
  cg_line(cg, "#define NESSIE_RECORD(r, idx, chk, site, code, op, i, len, x, ord) \\");
  cg_line(cg, "  rt_kernel_record((r), (RtKernelError){(idx), (chk), (site), (code), (op), (i), (len), (x), run, (ord)})");
  cg_blank(cg);
}

/* The CPU target's kernel 'k': where cg->record_out is set, its thunks'
   fast passes alone, and, if one of them can fail, its recording
   version (all its thunks in one pass, the recording one, as the GPU
   target's host kernels) to cg->record_out, which the kernel runs from
   the start where an element failed.  Most of a kernel's code was its
   recording passes, which run only where an element fails; written
   apart, they are compiled without optimization where the program is
   split (build.c), and cold where it is not.  A kernel reads its
   parameters and writes only its own results, so running it again from
   its parameters gives what one pass would have: the same error, or
   (where a fast pass marks an element whose checks do not fail in the
   end, such as a zero divisor of an element's quotient in a branch not
   taken) the same results. */
static void cpu_kernel(Cg *cg, const LcuKernel *k) {
  if (!cg->record_out) {
    cg_cpu_kernel(cg, k, k->name);
    return;
  }
  CgText fast = {0};
  CgText *out = cg->out;
  cg->out = &fast;
  cg->record_used = false;
  cg_cpu_kernel(cg, k, k->name);
  cg->out = out;
  if (cg->record_used)
    cg_line(cg, "%s;", cg_kernel_signature(cg, k, cg_record_name(k), false));
  cg_text_write(out, fast.data, fast.len);
  cg_text_free(&fast);
  if (!cg->record_used)
    return;
  PtrMap *uses = cg->uses;
  if (uses)
    cg->uses = cg->record_uses;
  cg->out = cg->record_out;
  cg->one_pass = true;
  cg_cpu_kernel(cg, k, cg_record_name(k));
  cg->one_pass = false;
  cg->out = out;
  cg->uses = uses;
}

const CgTarget cg_cpu_target = {CG_CPU, "cpu", ".c", ".c", cpu_prelude, cpu_kernel};
