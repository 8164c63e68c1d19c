/*
 * host.c: the CPU level of λcu as C, for every target: each λcu function
 * a C function, each top-level statement a function that main runs under
 * a guard (a run-time error stops that statement and the next one runs,
 * as in NESL's REPL), the globals static variables.
 *
 * Values: a scalar is a C scalar; a vector or a segdes an RtValue * with
 * a reference count.  A block owns the vectors it binds (a function body
 * also its parameters): it releases each right after the statement that
 * reads it last (or after the one that binds it, if nothing reads it).
 * What outlives its statement takes a reference of its own: a call's
 * arguments (the callee owns its parameters), a block's results, a
 * global's value.  A `run` only borrows its arguments.
 *
 * Errors: the context the runtime words errors with (rt_set_context) is
 * kept as the interpreters keep it: a call enters its callee's context,
 * statements inlined from lib-nesl enter their library function's (once
 * for a run of them from one call); a kernel's recorded error is
 * reported at its `run` (rt_kernel_fail).
 */
#include <stdlib.h>
#include <string.h>

#include "../flat/flat.h"
#include "codegen.h"

/* ---- names ---- */

/* The λcu name of 'f' made an identifier, without a prefix or what
   cg_name_funcs adds; an element function's without its .each. */
static void mangle(Buf *b, const LcuFunc *f) {
  size_t n = strlen(f->name);
  const char *end = f->each && n > 5 && strcmp(f->name + n - 5, ".each") == 0 ? f->name + n - 5 : f->name + n;
  for (const char *p = f->name; p < end; p++) {
    unsigned char c = (unsigned char)*p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
      buf_putc(b, (char)c);
    else if (c == '^')
      buf_puts(b, "_lifted");
    else if (c == '.' && end - p == 4 && strncmp(p + 1, "all", 3) == 0) {
      buf_puts(b, "_all"); /* f.all: every component of f's result (flatten.c) */
      break;
    } else if (c == '.')
      buf_puts(b, "_part"); /* f.k: component k of f's result (flatten.c) */
    else
      buf_printf(b, "_%02x", c);
  }
}

/* LcuFunc -> the number cg_name_funcs gives it (intptr_t), where the
   identifier of its name alone is another function's too */
static PtrMap name_numbers;

void cg_name_funcs(const LcuProgram *p) {
  name_numbers = (PtrMap){0};
  Map seen = {0}; /* identifiers given so far (element functions apart:
                     ef_, without .each) */
  for (int i = 0; i < p->funcs.len; i++) {
    const LcuFunc *f = p->funcs.data[i];
    Buf b = {0};
    buf_puts(&b, f->each ? "e:" : "f:");
    mangle(&b, f);
    const char *id = buf_str(&b);
    /* an uppercase X never comes of a name: NESL folds names to lower case */
    for (int k = 2; map_get(&seen, id); k++) {
      id = xprintf("%s_X%d", buf_str(&b), k);
      ptrmap_put(&name_numbers, f, (void *)(intptr_t)k);
    }
    map_put(&seen, id, (void *)1);
  }
}

const char *cg_func_name(const char *prefix, const LcuFunc *f) {
  Buf b = {0};
  buf_puts(&b, prefix);
  mangle(&b, f);
  intptr_t k = (intptr_t)ptrmap_get(&name_numbers, f);
  if (k)
    buf_printf(&b, "_X%d", (int)k);
  return buf_str(&b);
}

/* The C name of function 'f': fn_ and its λcu name made an identifier. */
static const char *func_name(const LcuFunc *f) { return cg_func_name("fn_", f); }

static bool is_vector(const LcuVar *v) { return v->type.kind != LT_SCALAR; }

static const char *var_type(const LcuVar *v) { return is_vector(v) ? "RtValue *" : cg_ctype(v->type.base); }

/* ---- the state ---- */

typedef struct Hx {
  Cg *cg;
  const LcuProgram *p;
  PtrMap globals;  /* LcuVar -> its NESL name (for "has no value"), or a
                      placeholder: the globals */
  PtrMap live;     /* LcuBlock -> LiveBlock *: lcu_live_block's memo (a
                      block's nested blocks are generated after it) */
  bool in_library; /* the code being written is in a library function's
                      context (gen_block): a statement nested in it (in
                      an `if`) needs none of its own */
  const Vec *dying; /* LcuVar *: what the block lets go after the
                       statement being written (gen_block) */
} Hx;

static bool is_global(Hx *h, const LcuVar *v) { return ptrmap_get(&h->globals, v) != NULL; }

static const char *global_name(const LcuVar *v) { return xprintf("g_%s", cg_name(v) + 2); }

static const char *var_ref(Hx *h, const LcuVar *v) {
  if (!is_global(h, v))
    return cg_name(v);
  cg_use(h->cg, v);
  return global_name(v);
}

/* An atom's C expression; a global's read is checked defined. */
static const char *atom(Hx *h, const LcuAtom *a, Loc loc) {
  if (!a->var)
    return cg_constant(a->constant);
  if (is_global(h, a->var)) {
    const char *name = ptrmap_get(&h->globals, a->var);
    cg_use(h->cg, a->var);
    cg_line(h->cg, "NESSIE_DEFINED(%s, %s, %s);", global_name(a->var), cg_loc(loc), cg_string(name, strlen(name)));
  }
  return var_ref(h, a->var);
}

/* ---- statements ---- */

static void gen_block(Hx *h, const LcuBlock *b, const Vec *params, const char **dests);

/* The C declaration of a local named 'name' for values of 'v''s type. */
static void declare_as(Hx *h, const LcuVar *v, const char *name) {
  if (is_vector(v))
    cg_line(h->cg, "RtValue *%s = NULL;", name);
  else
    cg_line(h->cg, "%s %s = 0;", cg_ctype(v->type.base), name);
}

/* The declaration of statement result 'v', where it is bound. */
static void declare(Hx *h, const LcuVar *v) { declare_as(h, v, cg_name(v)); }

/* The enum names of the host primitives (rt/host.def). */
static const char *host_enum(RtHost host) {
  static const char *const names[] = {
#define HOST_PRIM(name, text) "RT_HOST_" #name,
#include "../rt/host.def"
  };
  return names[host];
}

static void gen_scalar(Hx *h, const LcuStmt *s) {
  Cg *cg = h->cg;
  const LcuVar *r = s->results.data[0];
  const char *args[3];
  for (int i = 0; i < s->args.len; i++)
    args[i] = atom(h, s->args.data[i], s->loc);
  FlatBase base = FB_INT;
  const LcuAtom *a0 = s->args.data[0];
  base = a0->var ? a0->var->type.base : flat_atom_type(&a0->constant).base;
  bool checked;
  int operand;
  const char *call = cg_scalar_op(s->op, base, args, "&err", &checked, &operand);
  if (!checked) {
    cg_line(cg, "%s = %s;", cg_name(r), call);
    return;
  }
  cg_line(cg, "{");
  cg_line(cg, "  int err = 0;");
  cg_line(cg, "  %s = %s;", cg_name(r), call);
  cg_line(cg, "  if (err)");
  cg_line(cg, "    NESSIE_FAIL(rt_scalar_fail(%s, err, %s, %s, NULL));", cg_rtop(s->op),
          operand >= 0 ? xprintf("(double)%s", args[operand]) : "0.0", cg_loc(s->loc));
  cg_line(cg, "}");
}

static bool dies_here(const Hx *h, const LcuVar *v) {
  for (int i = 0; h->dying && i < h->dying->len; i++)
    if (h->dying->data[i] == v)
      return true;
  return false;
}

/* A run of an append kernel whose first parts go after it (GPU target):
   where the runtime finds each part has room for the second and nothing
   else holds it, the second parts are copied after the first, with no
   launch (rtg_append_into; a split's parts appended back: its first part
   is the PARTITION's vector of n elements cut to its count); otherwise
   the kernel runs.  Writes the test and its branch, and leaves the
   `else` open for the run; false where it does not apply.  'args': the
   run's arguments as the call names them. */
static bool append_in_place(Hx *h, const LcuStmt *s, const char **args) {
  Cg *cg = h->cg;
  if (cg->target->kind != CG_CUDA)
    return false;
  const LcuKernel *k = s->kernel;
  int first[8], second[8], size;
  int cols = lcu_append_kernel(k, first, second, &size, 8);
  if (!cols)
    return false;
  for (int c = 0; c < cols; c++) {
    const LcuAtom *a = s->args.data[first[c]], *b = s->args.data[second[c]];
    if (!a->var || !b->var || a->var == b->var || is_global(h, a->var) || !dies_here(h, a->var))
      return false;
    /* a first part written into is no other column's part */
    for (int d = 0; d < cols; d++) {
      const LcuAtom *a2 = s->args.data[first[d]], *b2 = s->args.data[second[d]];
      if ((d != c && a2->var == a->var) || b2->var == a->var)
        return false;
    }
  }
  const char *n = args[size];
  static Buf test;
  test.len = 0;
  for (int c = 0; c < cols; c++)
    buf_printf(&test, "%srtg_append_fits(%s, %s, %s)", c ? " && " : "", args[first[c]], args[second[c]], n);
  cg_line(cg, "if (%s) {", buf_str(&test));
  for (int c = 0; c < cols; c++)
    cg_line(cg, "  %s = rtg_append_into(%s, %s, %s);", cg_name(s->results.data[c]), args[first[c]], args[second[c]], n);
  cg_line(cg, "} else {");
  return true;
}

/* A `run`: one line, NESSIE_RUN (host_macros). */
static void gen_run(Hx *h, const LcuStmt *s) {
  Cg *cg = h->cg;
  const LcuKernel *k = s->kernel;
  const LcuKernel *alias = ptrmap_get(&cg->kernel_alias, k);
  if (alias) /* an equal kernel's code, emitted once (dedupe_kernels) */
    k = alias;
  cg_use(cg, k);
  static Buf call; /* each run's in turn */
  call.len = 0;
  buf_printf(&call, "%s, %s, %d", cg_loc(s->loc), k->name, cg_site(cg, s->loc, NULL, NULL));
  const char **args = xmalloc(sizeof(char *) * (size_t)(s->args.len + 1));
  for (int i = 0; i < s->args.len; i++) {
    args[i] = atom(h, s->args.data[i], s->loc);
    buf_printf(&call, ", %s", args[i]);
  }
  for (int i = 0; i < s->results.len; i++)
    buf_printf(&call, ", &%s", cg_name(s->results.data[i]));
  /* the checks after the run that its kernel makes on the device: where
     each stands, for its error */
  const Vec *checks = cg_run_device_checks(cg, s);
  for (int i = 0; checks && i < checks->len; i++)
    buf_printf(&call, ", %d", cg_site(cg, ((const LcuStmt *)checks->data[i])->loc, NULL, NULL));
  if (append_in_place(h, s, args)) {
    cg_line(cg, "  NESSIE_RUN(%s);", buf_str(&call));
    cg_line(cg, "}");
    return;
  }
  cg_line(cg, "NESSIE_RUN(%s);", buf_str(&call));
}

static void gen_call(Hx *h, const LcuStmt *s) {
  Cg *cg = h->cg;
  const LcuFunc *f = s->callee;
  cg_use(cg, f);
  const char *loc = cg_loc(s->loc);
  static Buf call; /* each call's in turn */
  call.len = 0;
  buf_printf(&call, "%s(", func_name(f));
  const char **args = xmalloc(sizeof(char *) * (size_t)(s->args.len + 1));
  for (int i = 0; i < s->args.len; i++)
    args[i] = atom(h, s->args.data[i], s->loc);
  for (int i = 0; i < s->args.len; i++)
    buf_printf(&call, "%s%s", i ? ", " : "", args[i]);
  for (int i = 0; i < s->results.len; i++)
    buf_printf(&call, "%s&%s", s->args.len || i ? ", " : "", cg_name(s->results.data[i]));
  buf_puts(&call, ")");
  const char *name = f->source ? f->source : f->name;
  for (int i = 0; i < s->args.len; i++) {
    const LcuAtom *a = s->args.data[i];
    if (a->var && is_vector(a->var))
      cg_line(cg, "rt_retain(%s);", args[i]); /* the callee owns its parameters */
  }
  cg_line(cg, "NESSIE_CALL(%s, %s, %d, %s);", loc, cg_string(name, strlen(name)), f->library, buf_str(&call));
}

static void gen_length(Hx *h, const LcuStmt *s) {
  const char *v = atom(h, s->args.data[0], s->loc);
  const char *r = cg_name(s->results.data[0]);
  switch (s->length) {
  case LEN_VECTOR:
  case LEN_SEGMENTS:
    cg_line(h->cg, "%s = (int32_t)%s->len;", r, v);
    return;
  case LEN_TOTAL:
    cg_line(h->cg, "%s = (int32_t)NESSIE_SEG_TOTAL(%s);", r, v);
    return;
  }
}

/* An atom as an RtValue * for the runtime (a scalar boxed; 'boxes'
   collects what to free). */
static const char *boxed(Hx *h, const LcuAtom *a, Loc loc, Vec *boxes) {
  const char *v = atom(h, a, loc);
  FlatType t = a->var ? (FlatType){(FlatTypeKind)(a->var->type.kind == LT_SCALAR   ? FT_SCALAR
                                                  : a->var->type.kind == LT_VEC ? FT_VEC
                                                                                : FT_SEGDES),
                                   a->var->type.base}
                      : flat_atom_type(&a->constant);
  if (t.kind != FT_SCALAR)
    return v;
  const char *b = cg_temp(h->cg);
  cg_line(h->cg, "RtValue *%s = rt_value_new(rt_scalar_type(%s), 1);", b, cg_rtbase(t.base));
  cg_line(h->cg, "%s->scalar.%s = %s;", b, cg_member(t.base), v);
  vec_push(boxes, (void *)b);
  return b;
}

/* A host operation: constant vectors, errors, range checks, text and I/O. */
static void gen_host(Hx *h, const LcuStmt *s) {
  Cg *cg = h->cg;
  cg_line(cg, "rt_here = %s;", cg_loc(s->loc));
  const FlatStmt *fs = s->flat;
  const char *loc = xprintf("%s", cg_loc(s->loc));
  switch (fs->op) {
  case FLAT_VECTOR: {
    const LcuVar *r = s->results.data[0];
    FlatBase b = r->type.base;
    bool constant_chars = b == FB_CHAR;
    for (int i = 0; i < s->args.len; i++)
      constant_chars &= ((LcuAtom *)s->args.data[i])->var == NULL;
    if (constant_chars) {
      Buf text = {0};
      for (int i = 0; i < s->args.len; i++)
        buf_putc(&text, ((LcuAtom *)s->args.data[i])->constant.u.c);
      cg_line(cg, "%s = NESSIE_TO_DEVICE(rt_chars(%s, %d));", cg_name(r), cg_string(text.data, text.len),
              s->args.len);
      return;
    }
    const char *v = cg_temp(cg);
    cg_line(cg, "RtValue *%s = rt_value_new(rt_vec_type(%s), %d);", v, cg_rtbase(b), s->args.len);
    for (int i = 0; i < s->args.len; i++)
      cg_line(cg, "%s->data.%s[%d] = %s;", v, cg_member(b), i, atom(h, s->args.data[i], s->loc));
    cg_line(cg, "%s = NESSIE_TO_DEVICE(%s);", cg_name(r), v);
    return;
  }
  case FLAT_ERROR: {
    const char *m = atom(h, s->args.data[0], s->loc);
    cg_line(cg, "{");
    cg_line(cg, "  RtValue *m = NESSIE_TO_HOST(%s);", m);
    cg_line(cg, "  NESSIE_FAIL(rt_fail(%s, NULL, \"%%.*s\", (int)m->len, m->data.c));", loc);
    cg_line(cg, "}");
    return;
  }
  case FLAT_ERROR_ANY: {
    const char *d = atom(h, s->args.data[0], s->loc), *m = atom(h, s->args.data[1], s->loc);
    cg_line(cg, "if (%s->len > 0) {", d);
    cg_line(cg, "  RtValue *d = NESSIE_TO_HOST(%s), *m = NESSIE_TO_HOST(%s);", d, m);
    cg_line(cg, "  NESSIE_FAIL(rt_fail(%s, NULL, \"%%.*s\", (int)rt_seg_offsets(d)[1], m->data.c));", loc);
    cg_line(cg, "}");
    return;
  }
  case FLAT_RANGE: {
    const char *a = atom(h, s->args.data[0], s->loc), *e = atom(h, s->args.data[1], s->loc),
               *d = atom(h, s->args.data[2], s->loc);
    cg_line(cg, "NESSIE_CHECK(RT_CHECK_RANGE, %s, %s, %s, %s);", loc, a, e, d);
    if (s->results.len)
      cg_line(cg, "%s = NESSIE_TO_DEVICE(rt_range(%s, %s, %s, %s));", cg_name(s->results.data[0]), loc, a, e, d);
    return;
  }
  case FLAT_SEG_RANGE: {
    const char *a = atom(h, s->args.data[0], s->loc), *e = atom(h, s->args.data[1], s->loc),
               *d = atom(h, s->args.data[2], s->loc);
    /* on the host: read λcu only (lowering makes kernels of ranges) */
    cg_line(cg, "{");
    cg->indent++;
    cg_line(cg, "RtValue *a = NESSIE_TO_HOST(%s), *e = NESSIE_TO_HOST(%s), *d = NESSIE_TO_HOST(%s);", a, e, d);
    if (s->results.len == 2) {
      cg_line(cg, "RtValue *sd, *v;");
      cg_line(cg, "rt_seg_range(%s, a, e, d, &sd, &v);", loc);
      cg_line(cg, "%s = NESSIE_TO_DEVICE(sd);", cg_name(s->results.data[0]));
      cg_line(cg, "%s = NESSIE_TO_DEVICE(v);", cg_name(s->results.data[1]));
    } else {
      cg_line(cg, "for (int64_t k = 0; k < a->len; k++)");
      cg_line(cg, "  rt_check_range(%s, a->data.i[k], e->data.i[k], d->data.i[k]);", loc);
    }
    cg->indent--;
    cg_line(cg, "}");
    return;
  }
  case FLAT_HOST_PRIM: {
    Vec boxes = {0};
    cg_line(cg, "{");
    cg->indent++;
    cg_line(cg, "RtValue *args[%d], *results[%d];", s->args.len + 1, s->results.len + 1);
    for (int i = 0; i < s->args.len; i++)
      cg_line(cg, "args[%d] = %s;", i, boxed(h, s->args.data[i], s->loc, &boxes));
    cg_line(cg, "NESSIE_HOST_CALL(%s, %s, &%s, &%s, %d, args, %d, results, %d);", host_enum(fs->host), loc,
            cg_layout(cg, fs->layout), cg_layout(cg, fs->result_layout), fs->lifted, s->args.len, s->results.len);
    for (int i = 0; i < boxes.len; i++)
      cg_line(cg, "rt_value_free(%s);", (const char *)boxes.data[i]);
    for (int i = 0; i < s->results.len; i++) {
      const LcuVar *r = s->results.data[i];
      if (is_vector(r)) {
        cg_line(cg, "%s = results[%d];", cg_name(r), i);
      } else {
        cg_line(cg, "%s = results[%d]->scalar.%s;", cg_name(r), i, cg_member(r->type.base));
        cg_line(cg, "rt_value_free(results[%d]);", i);
      }
    }
    cg->indent--;
    cg_line(cg, "}");
    return;
  }
  default:
    die("codegen: host %s", flat_op_name(fs->op));
  }
}

static void gen_stmt(Hx *h, const LcuStmt *s) {
  Cg *cg = h->cg;
  switch (s->kind) {
  case LS_SCALAR:
    gen_scalar(h, s);
    return;
  case LS_RUN:
    gen_run(h, s);
    return;
  case LS_CALL:
    gen_call(h, s);
    return;
  case LS_IF: {
    const char *c = atom(h, s->args.data[0], s->loc);
    const char **dests = xmalloc(sizeof(char *) * (size_t)(s->results.len + 1));
    for (int i = 0; i < s->results.len; i++)
      dests[i] = cg_name(s->results.data[i]);
    cg_line(cg, "if (%s) {", c);
    cg->indent++;
    gen_block(h, s->then, NULL, dests);
    cg->indent--;
    cg_line(cg, "} else {");
    cg->indent++;
    gen_block(h, s->els, NULL, dests);
    cg->indent--;
    cg_line(cg, "}");
    return;
  }
  case LS_TIME: {
    int n = s->body->results.len;
    const char **dests = xmalloc(sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
      dests[i] = cg_name(s->results.data[i]);
    const char *t0 = cg_temp(cg);
    cg_line(cg, "const double %s = NESSIE_NOW();", t0);
    cg_line(cg, "{");
    cg->indent++;
    gen_block(h, s->body, NULL, dests);
    cg->indent--;
    cg_line(cg, "}");
    cg_line(cg, "%s = NESSIE_NOW() - %s;", cg_name(s->results.data[n]), t0);
    return;
  }
  case LS_LENGTH:
    gen_length(h, s);
    return;
  case LS_HOST:
    gen_host(h, s);
    return;
  case LS_SIZE: {
    /* in 64 bits on the host, before the kernel that makes the vector
       allocates it (rt/vector.c); the operands are host scalars */
    const char *ops[3] = {"0", "0", "0"};
    for (int i = 0; i < s->args.len && i < 3; i++)
      ops[i] = atom(h, s->args.data[i], s->loc);
    if (s->size == SIZE_RANGE)
      cg_line(cg, "%s = NESSIE_RANGE_SIZE(%s, %s, %s, %s);", cg_name(s->results.data[0]), cg_loc(s->loc), ops[0],
              ops[1], ops[2]);
    else
      cg_line(cg, "%s = NESSIE_APPEND_SIZE(%s, %s, %s);", cg_name(s->results.data[0]), cg_loc(s->loc), ops[0],
              ops[1]);
    return;
  }
  case LS_COST: /* NESL's cost model: the interpreters' (docs/cost.md) */
    cg_line(cg, "/* cost %s%s: measured by the interpreters alone */", flat_cost_rule_name((FlatCostRule)s->cost_rule),
            s->lifted ? "^" : "");
    return;
  case LS_CHECK: {
    if (cg_check_on_device(cg, s)) {
      cg_line(cg, "/* check %s: made on the device by the run before it */", rt_check_name(s->check));
      return;
    }
    const char *ops[3] = {"0", "0", "0"};
    for (int i = 0; i < s->args.len && i < 3; i++)
      ops[i] = atom(h, s->args.data[i], s->loc);
    cg_line(cg, "NESSIE_CHECK(%d /* %s */, %s, %s, %s, %s);", s->check, rt_check_name(s->check), cg_loc(s->loc),
            ops[0], ops[1], ops[2]);
    return;
  }
  case LS_ELT:
  case LS_UPDATE: /* only in element functions, which scalarfn.c writes */
    break;
  }
  unreachable();
}

/* Before the total of a segdes that statement 'at' of 'b' reads (a wait
   for it on a GPU): the totals that b reads after it, of segdes already
   made, asked for with it, so that one wait brings them all
   (rtg_seg_totals) where each took its own. */
static void totals_together(Hx *h, const LcuBlock *b, int at) {
  const LcuStmt *s = b->stmts.data[at];
  if (s->kind != LS_LENGTH || s->length != LEN_TOTAL)
    return;
  Vec sds = {0}, names = {0}; /* the segdes, and each one's C name (a global's is not cg_name's) */
  for (int i = at; i < b->stmts.len; i++) {
    const LcuStmt *t = b->stmts.data[i];
    const LcuVar *d = t->kind == LS_LENGTH && t->length == LEN_TOTAL ? ((const LcuAtom *)t->args.data[0])->var : NULL;
    if (!d)
      continue;
    bool made = true; /* before 'at': not bound at or after it in b */
    for (int j = at; j < b->stmts.len && made; j++) {
      const LcuStmt *u = b->stmts.data[j];
      for (int r = 0; r < u->results.len && made; r++)
        made = u->results.data[r] != d;
    }
    bool listed = false;
    for (int k = 0; k < sds.len; k++)
      listed |= sds.data[k] == d;
    if (made && !listed) {
      vec_push(&sds, (void *)d);
      vec_push(&names, (void *)atom(h, t->args.data[0], t->loc));
    }
  }
  if (sds.len < 2)
    return;
  Buf list = {0};
  for (int k = 0; k < names.len; k++)
    buf_printf(&list, "%s%s", k ? ", " : "", (const char *)names.data[k]);
  cg_line(h->cg, "{ RtValue *const totals[] = {%s}; NESSIE_SEG_TOTALS(%d, totals); }", buf_str(&list), sds.len);
}

/* Do statements 'a' and 'b' come from one call of one library function
   (inlined from lib-nesl)? */
static bool same_library_call(const LcuStmt *a, const LcuStmt *b) {
  return a->lib_fn && b->lib_fn && strcmp(a->lib_fn, b->lib_fn) == 0 && a->user_loc.src == b->user_loc.src &&
         a->user_loc.line == b->user_loc.line && a->user_loc.col == b->user_loc.col;
}

/* The end of the run of statements of 'b' from 'first' on that come from
   one library call: they share one context (rt_enter_library keeps the
   library context it finds, so that entering it once for them all is
   entering it for each), where each entered its own. */
static int library_run_end(const LcuBlock *b, int first) {
  const LcuStmt *s = b->stmts.data[first];
  int end = first + 1;
  if (s->lib_fn)
    while (end < b->stmts.len && same_library_call(s, b->stmts.data[end]))
      end++;
  return end;
}

/* The statements of 'b' and its results into the lvalues 'dests' (each
   vector result with a reference of its own); 'params' are the
   function's parameters, owned by its body.  The block owns what it binds
   and its parameters: each is released after the statement that reads it
   last (lcu_last_uses, the one liveness analysis of λcu), or moved into a
   result. */
static void gen_block(Hx *h, const LcuBlock *b, const Vec *params, const char **dests) {
  Cg *cg = h->cg;
  Vec *dying = lcu_last_uses(b, params, &h->live);
  for (int first = 0; first < b->stmts.len;) {
    /* statements inlined from one library call in its context, their
       results declared before it */
    int end = library_run_end(b, first);
    const LcuStmt *head = b->stmts.data[first];
    for (int i = first; i < end; i++) {
      const LcuStmt *s = b->stmts.data[i];
      for (int r = 0; r < s->results.len; r++)
        declare(h, s->results.data[r]);
    }
    /* rt_enter_library keeps a library context it is in */
    bool enter = head->lib_fn && !h->in_library;
    if (enter) {
      h->in_library = true;
      cg_line(cg, "{");
      cg->indent++;
      cg_line(cg, "RtContext lib;");
      cg_line(cg, "const RtContext *saved = rt_enter_library(&lib, %s, %s);", cg_literal(head->lib_fn),
              cg_loc(head->user_loc));
    }
    for (int i = first; i < end; i++) {
      totals_together(h, b, i);
      h->dying = &dying[i];
      gen_stmt(h, b->stmts.data[i]);
      h->dying = NULL;
      for (int d = 0; d < dying[i].len; d++) {
        const LcuVar *v = dying[i].data[d];
        if (is_vector(v))
          cg_line(cg, "rt_release(%s);", cg_name(v));
      }
    }
    if (enter) {
      h->in_library = false;
      cg_line(cg, "rt_set_context(saved);");
      cg->indent--;
      cg_line(cg, "}");
    }
    first = end;
  }
  /* the results: an owned vector (a parameter, a statement's result)
     moves into its first result, anything else takes a reference of its
     own.  (The maps are every block's in turn: nothing below nests.) */
  static GenMap owned, moved;
  genmap_clear(&owned);
  genmap_clear(&moved);
  if (params)
    for (int i = 0; i < params->len; i++)
      genmap_put(&owned, params->data[i], (void *)1);
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    for (int r = 0; r < s->results.len; r++)
      genmap_put(&owned, s->results.data[r], (void *)1);
  }
  for (int i = 0; i < b->results.len; i++) {
    const LcuAtom *a = b->results.data[i];
    const char *v = atom(h, a, no_loc);
    cg_line(cg, "%s = %s;", dests[i], v);
    if (!a->var || !is_vector(a->var))
      continue;
    if (genmap_get(&owned, a->var) && !genmap_get(&moved, a->var))
      genmap_put(&moved, a->var, (void *)1);
    else
      cg_line(cg, "rt_retain(%s);", v);
  }
  /* parameters of a block without statements that no result reads */
  if (params && b->stmts.len == 0)
    for (int i = 0; i < params->len; i++) {
      const LcuVar *p = params->data[i];
      if (is_vector(p) && !genmap_get(&moved, p))
        cg_line(cg, "rt_release(%s);", cg_name(p));
    }
}

/* ---- functions ---- */

/* The function's C declaration: static, but where the top-level
   statements or other functions are compiled apart from it
   (Cg.split_host). */
static const char *func_signature(const Cg *cg, const LcuFunc *f) {
  Buf b = {0};
  buf_printf(&b, "%svoid %s(", cg->split_host ? "" : "static ", func_name(f));
  int n = 0;
  for (int i = 0; i < f->params.len; i++, n++) {
    const LcuVar *v = f->params.data[i];
    buf_printf(&b, "%s%s%s%s", n ? ", " : "", var_type(v), is_vector(v) ? "" : " ", cg_name(v));
  }
  /* the results' types are those of the body's results */
  for (int i = 0; i < f->body->results.len; i++, n++) {
    const LcuAtom *a = f->body->results.data[i];
    const char *type;
    if (a->var)
      type = is_vector(a->var) ? "RtValue **" : xprintf("%s *", cg_ctype(a->var->type.base));
    else
      type = xprintf("%s *", cg_ctype(flat_atom_type(&a->constant).base));
    buf_printf(&b, "%s%sout_%d", n ? ", " : "", type, i);
  }
  if (n == 0)
    buf_puts(&b, "void");
  buf_puts(&b, ")");
  return buf_str(&b);
}

static void gen_func(Hx *h, const LcuFunc *f) {
  Cg *cg = h->cg;
  cg_line(cg, "/* function %s%s%s */", f->source ? f->source : f->name, f->loc.src ? " -- " : "", cg_where(f->loc));
  cg_line(cg, "%s {", func_signature(cg, f));
  cg->indent++;
  const char **dests = xmalloc(sizeof(char *) * (size_t)(f->body->results.len + 1));
  for (int i = 0; i < f->body->results.len; i++)
    dests[i] = xprintf("*out_%d", i);
  gen_block(h, f->body, &f->params, dests);
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

/* ---- top-level statements ---- */

/* Does a value of layout 'l' hold a float? */
static bool layout_has_float(const RtLayout *l) {
  switch (l->kind) {
  case RL_FLOAT:
    return true;
  case RL_SEQ:
    return layout_has_float(l->elem);
  case RL_PAIR:
    return layout_has_float(l->fst) || layout_has_float(l->snd);
  case RL_DATA:
    return layout_has_float(l->fst);
  default:
    return false;
  }
}

/* Opens the block of a statement's value on the host, `comps` (H(t), a
   vector copied from the device), and checks that its floats are finite,
   as NESL's REPL does (rt_check_value): on an infinity or a NaN the
   statement stops, before its globals take the value. */
static void open_value(Hx *h, const LcuTop *t, const char **comps, const Vec *vars) {
  Cg *cg = h->cg;
  int n = vars->len;
  cg_line(cg, "{");
  cg->indent++;
  cg_line(cg, "RtValue *comps[%d];", n + 1);
  for (int i = 0; i < n; i++) {
    const LcuVar *v = vars->data[i];
    if (is_vector(v)) {
      cg_line(cg, "comps[%d] = NESSIE_TO_HOST(%s);", i, comps[i]);
    } else {
      cg_line(cg, "comps[%d] = rt_value_new(rt_scalar_type(%s), 1);", i, cg_rtbase(v->type.base));
      cg_line(cg, "comps[%d]->scalar.%s = %s;", i, cg_member(v->type.base), comps[i]);
    }
  }
  if (layout_has_float(t->flat->layout))
    cg_line(cg, "rt_check_value(%s, &%s, comps);", cg_loc(t->flat->loc), cg_layout(cg, t->flat->layout));
}

/* The value printed as `NAME = VALUE : TYPE`, and its block closed. */
static void print_value(Hx *h, const LcuTop *t, const char *name, const char **comps, const Vec *vars) {
  Cg *cg = h->cg;
  int n = vars->len;
  const char *type = t->flat->type_name;
  /* the text may not fit in memory: the statement's error, at it */
  cg_line(cg, "rt_here = %s;", cg_loc(t->flat->loc));
  cg_line(cg, "rt_print_binding(%s, &%s, comps, %s);", cg_string(name, strlen(name)), cg_layout(cg, t->flat->layout),
          cg_string(type, strlen(type)));
  for (int i = 0; i < n; i++)
    if (!is_vector(vars->data[i]))
      cg_line(cg, "rt_value_free(comps[%d]);", i);
    else
      cg_line(cg, "NESSIE_HOST_DONE(comps[%d], %s);", i, comps[i]);
  cg->indent--;
  cg_line(cg, "}");
}

static void gen_top(Hx *h, const LcuTop *t, int index) {
  Cg *cg = h->cg;
  const FlatTop *src = t->flat;
  cg_line(cg, "/* %s */", cg_where(src->loc));
  cg_line(cg, "static void top_%d(void) {", index);
  cg->indent++;
  int n = t->body->results.len;
  const char **comps = xmalloc(sizeof(char *) * (size_t)(n + 1));
  Vec vars = {0};
  for (int i = 0; i < n; i++) {
    comps[i] = xprintf("value_%d", i);
    /* the component's type: the global it defines, or the result's */
    const LcuAtom *a = t->body->results.data[i];
    LcuVar *v = NULL;
    if (src->kind == FLAT_TOP_BIND && i < t->defines.len)
      v = t->defines.data[i];
    else if (a->var)
      v = a->var;
    if (!v) { /* a constant result: a scalar of its type */
      v = NEW(LcuVar);
      FlatType ft = flat_atom_type(&a->constant);
      v->type = lcu_scalar(ft.base);
    }
    vec_push(&vars, v);
    declare_as(h, v, comps[i]);
  }
  /* where the statement stops with an error, each global it defines
     again keeps the value of the one it replaces (CMU NESL binds nothing
     then, and that one's readers read this one): given here, taken back
     below where the statement succeeds */
  for (int i = 0; i < t->replaced.len; i++) {
    const LcuVar *old = t->replaced.data[i], *g = t->defines.data[i];
    if (!old)
      continue;
    cg_use(cg, old);
    cg_use(cg, g);
    cg_line(cg, "if (%s_defined) {", global_name(old));
    cg_line(cg, "  %s = %s;", global_name(g), global_name(old));
    if (is_vector(g))
      cg_line(cg, "  rt_retain(%s);", global_name(g));
    cg_line(cg, "  %s_defined = 1;", global_name(g));
    cg_line(cg, "}");
  }
  gen_block(h, t->body, NULL, comps);
  /* the statement's errors surface in it (a GPU reports them at a sync) */
  cg_line(cg, "NESSIE_SYNC();");
  if (!src->library)
    open_value(h, t, comps, &vars);
  if (src->kind == FLAT_TOP_BIND) {
    /* the globals take the values (and their references) */
    for (int i = 0; i < t->defines.len && i < n; i++) {
      const LcuVar *g = t->defines.data[i];
      cg_use(cg, g);
      if (i < t->replaced.len && t->replaced.data[i] && is_vector(g)) { /* the value kept for an error */
        cg_line(cg, "if (%s_defined)", global_name(g));
        cg_line(cg, "  rt_release(%s);", global_name(g));
      }
      cg_line(cg, "%s = %s;", global_name(g), comps[i]);
      cg_line(cg, "%s_defined = 1;", global_name(g));
    }
  }
  if (!src->library) {
    print_value(h, t, src->pattern, comps, &vars);
  }
  if (src->kind != FLAT_TOP_BIND)
    for (int i = 0; i < n; i++)
      if (is_vector(vars.data[i]))
        cg_line(cg, "rt_release(%s);", comps[i]);
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

/* ---- the program ---- */

static void gen_globals(Hx *h) {
  Cg *cg = h->cg;
  const LcuProgram *p = h->p;
  /* the NESL names of the globals, for "'x' has no value" */
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (!t->body || t->flat->kind != FLAT_TOP_BIND)
      continue;
    const char **names = flat_top_define_names(t->flat);
    for (int g = 0; g < t->defines.len; g++) {
      const LcuVar *v = t->defines.data[g];
      ptrmap_put(&h->globals, v, (void *)(names[g] ? names[g] : v->name));
    }
  }
  for (int i = 0; i < p->globals.len; i++) {
    const LcuVar *v = p->globals.data[i];
    if (!ptrmap_get(&h->globals, v))
      ptrmap_put(&h->globals, v, (void *)v->name);
    /* extern where the top-level statements are compiled apart */
    const char *storage = cg->split_host ? "" : "static ";
    cg_line(cg, "%s%s%s%s;", storage, var_type(v), is_vector(v) ? "" : " ", global_name(v));
    cg_line(cg, "%sint %s_defined;", storage, global_name(v));
  }
  cg_blank(cg);
}

/* Adds NUL-terminated 's' to 't'. */
static void text_puts(CgText *t, const char *s) { cg_text_write(t, s, strlen(s)); }

/* Is 'thing' named by one of the pieces whose uses are 'uses' (a Vec of
   PtrMap *; NULL: every piece, the whole program in one unit)? */
static bool used_in(const Vec *uses, const void *thing) {
  if (!uses)
    return true;
  for (int i = 0; i < uses->len; i++)
    if (ptrmap_get(uses->data[i], thing))
      return true;
  return false;
}

/* The macros of the host code, after the target's prelude (whose
   NESSIE_FAIL and NESSIE_COUNT_RUN they use), so that a `run`, a call
   or a global's read is a line (a large program's host code has
   thousands of each). */
static void host_macros(Cg *cg) {
  cg_line(cg, "/* a `run` of a kernel at 'loc': the error that its elements recorded reported there */");
  cg_line(cg, "#define NESSIE_RUN(loc, kernel, ...) \\");
  cg_line(cg, "  do { \\");
  cg_line(cg, "    const RtLoc run_loc = (loc); \\");
  cg_line(cg, "    RtKernelError kerr = RT_NO_ERROR; \\");
  cg_line(cg, "    rt_here = run_loc; \\");
  cg_line(cg, "    NESSIE_COUNT_RUN(); \\");
  cg_line(cg, "    kernel(&kerr, run_loc, __VA_ARGS__); \\");
  cg_line(cg, "    if (kerr.index != INT64_MAX) \\");
  cg_line(cg, "      NESSIE_FAIL(rt_kernel_fail(&kerr, nessie_sites, run_loc)); \\");
  cg_line(cg, "  } while (0)");
  cg_line(cg, "/* a call of a function at 'loc': the stack checked in the caller's context, the");
  cg_line(cg, "   call made in the callee's (its errors' words) */");
  cg_line(cg, "#define NESSIE_CALL(loc, name, library, call) \\");
  cg_line(cg, "  do { \\");
  cg_line(cg, "    const RtLoc call_loc = (loc); \\");
  cg_line(cg, "    rt_check_stack(call_loc); \\");
  cg_line(cg, "    const RtContext *caller = rt_context(); \\");
  cg_line(cg, "    RtContext callee = rt_call_context(caller, (name), (library), call_loc); \\");
  cg_line(cg, "    rt_set_context(&callee); \\");
  cg_line(cg, "    call; \\");
  cg_line(cg, "    rt_set_context(caller); \\");
  cg_line(cg, "  } while (0)");
  cg_line(cg, "/* a global's read: it has a value */");
  cg_line(cg, "#define NESSIE_DEFINED(g, loc, name) \\");
  cg_line(cg, "  do { \\");
  cg_line(cg, "    if (!g##_defined) \\");
  cg_line(cg, "      NESSIE_FAIL(rt_undefined_error((loc), (name))); \\");
  cg_line(cg, "  } while (0)");
  cg_blank(cg);
}

/* The head of a translation unit: the comment that says what made it
   (and which part it is), the target's prelude (for a unit with kernels
   or for one of host code only: 'kernels'), the program's layouts
   that the unit's pieces name ('uses'; each unit its own static copies:
   nothing compares them by address), and, in the first, the table of
   sites. */
static void write_head(CgText *t, Cg *cg, const char *source_name, int unit, int units, const char *what,
                       bool kernels, bool sites, const Vec *uses) {
  Cg head = *cg;
  head.out = t;
  head.indent = 0;
  cg_line(&head, "/* generated by nessie from %s for the %s target: edit the NESL, not this */",
          source_name ? source_name : "a NESL program", cg->target->name);
  if (units > 1)
    cg_line(&head, "/* translation unit %d of %d: %s */", unit, units, what);
  cg->target->prelude(&head, kernels);
  if (!kernels || units == 1)
    host_macros(&head);
  for (int i = 0; i < cg->layout_list.len; i++)
    if (used_in(uses, cg->layout_list.data[i]))
      text_puts(t, cg_layout_definition(cg, cg->layout_list.data[i]));
  if (!sites)
    return;
  /* the records of the sites in code inlined from user functions */
  const char **via = xmalloc(sizeof(char *) * (size_t)(cg->sites.len + 1));
  PtrMap records = {0}; /* Inlined -> the name of its static copy */
  for (int i = 0; i < cg->sites.len; i++) {
    const Inlined *in = ((const CgSite *)cg->sites.data[i])->loc.inlined;
    via[i] = in ? ptrmap_get(&records, in) : "NULL";
    if (!via[i]) {
      via[i] = xprintf("&nessie_inlined_%d", i);
      ptrmap_put(&records, in, (void *)via[i]);
      text_puts(t, xprintf("static const RtInlined nessie_inlined_%d = {%s, {%s, NULL}};\n", i, cg_literal(in->fn),
                           cg_inlined_call(in)));
    }
  }
  text_puts(t, "\n/* where each check stands in the NESL source */\n");
  if (cg->split_host) /* extern: the other host units name it too (C++ makes a const static) */
    text_puts(t, "extern const RtSite nessie_sites[];\nconst RtSite nessie_sites[] = {\n");
  else
    text_puts(t, "static const RtSite nessie_sites[] = {\n");
  for (int i = 0; i < cg->sites.len; i++) {
    const CgSite *s = cg->sites.data[i];
    const char *file = s->loc.src ? cg_string(s->loc.src->name, strlen(s->loc.src->name)) : "NULL";
    text_puts(t, xprintf("  {%s, %d, %d, %s, %s, %s, %s, %s},\n", file, s->loc.line, s->loc.col,
                         s->prim ? cg_string(s->prim, strlen(s->prim)) : "NULL",
                         s->message ? cg_string(s->message, strlen(s->message)) : "NULL",
                         s->lib_fn ? cg_string(s->lib_fn, strlen(s->lib_fn)) : "NULL",
                         s->user_fn ? cg_string(s->user_fn, strlen(s->user_fn)) : "NULL", via[i]));
  }
  text_puts(t, "  {NULL, 0, 0, NULL, NULL, NULL, NULL, NULL}};\n\n");
}

/* ---- equal kernels ---- */

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* Writes to 'out' the number of the name numbered 'num' (its 'n' digits)
   in 'numbers': the names of one kind are numbered in the order they
   first appear in the kernel. */
static void canon_number(Buf *out, Map *numbers, const char *num, size_t n) {
  const char *key = xstrndup(num, n);
  void *v = map_get(numbers, key);
  if (!v) {
    v = (void *)(intptr_t)(numbers->used + 1);
    map_put(numbers, key, v);
  }
  buf_put_int(out, (intptr_t)v);
}

/* Identifier 'id' (its 'n' characters) of kernel 'name''s text in
   canonical form: the kernel's own name (K12, K12_A, K12_0_pull: not
   K123) as "@", its temporaries (t12, t12a0, t12_end) and variables
   (v_x12, out_v_x12, v_x12_d) renumbered in the order they appear; any
   other name (a scalar function, a layout, the runtime's) as it is. */
static void canon_ident(Buf *out, const char *id, size_t n, const char *name, Map *temps, Map *vars) {
  size_t k = strlen(name);
  if (n >= k && memcmp(id, name, k) == 0 && (n == k || id[k] == '_')) {
    buf_putc(out, '@');
    buf_put(out, id + k, n - k);
    return;
  }
  if (id[0] == 't' && n > 1 && digit(id[1])) {
    size_t e = 1;
    while (e < n && digit(id[e]))
      e++;
    buf_puts(out, "t@");
    canon_number(out, temps, id + 1, e - 1);
    buf_put(out, id + e, n - e);
    return;
  }
  for (size_t i = 0; i + 3 < n; i++)
    if (id[i] == 'v' && id[i + 1] == '_' && id[i + 2] == 'x' && digit(id[i + 3])) {
      size_t e = i + 3;
      while (e < n && digit(id[e]))
        e++;
      buf_put(out, id, i);
      buf_puts(out, "v_x@");
      canon_number(out, vars, id + i + 3, e - (i + 3));
      canon_ident(out, id + e, n - e, "", temps, vars); /* another in the rest */
      return;
    }
  buf_put(out, id, n);
}

/* Kernel 'name''s text 't' in a form that is the same for two kernels
   exactly when their code is the same up to their names: comments (the
   NESL line) left out, the kernel's name and its locals' names
   canonical (canon_ident), strings and everything else as they are, but
   the string of the kernel's name (its launches' name in a profile). */
static const char *kernel_canon(const CgText *t, const char *name) {
  Buf out = {0};
  Map temps = {0}, vars = {0};
  const char *s = t->data, *end = t->data + t->len;
  size_t k = strlen(name);
  while (s < end) {
    if (s + 1 < end && s[0] == '/' && s[1] == '*') {
      const char *close = s + 2;
      while (close + 1 < end && !(close[0] == '*' && close[1] == '/'))
        close++;
      s = close + 2 <= end ? close + 2 : end;
    } else if (*s == '"' || *s == '\'') {
      const char *q = s + 1;
      while (q < end && *q != *s)
        q += *q == '\\' ? 2 : 1;
      q = q < end ? q + 1 : end;
      if (*s == '"' && (size_t)(q - s) == k + 2 && memcmp(s + 1, name, k) == 0)
        buf_puts(&out, "\"@\"");
      else
        buf_put(&out, s, (size_t)(q - s));
      s = q;
    } else if (cg_ident_start(*s)) {
      const char *q = s;
      while (q < end && cg_ident_char(*q))
        q++;
      canon_ident(&out, s, (size_t)(q - s), name, &temps, &vars);
      s = q;
    } else if (digit(*s)) { /* a number, with its suffixes and exponent */
      const char *q = s;
      while (q < end && (cg_ident_char(*q) || *q == '.'))
        q++;
      buf_put(&out, s, (size_t)(q - s));
      s = q;
    } else {
      buf_putc(&out, *s++);
    }
  }
  return buf_str(&out);
}

/* Equal kernels once: after inlining, one library function's kernels
   are made again at each of its call sites, and the same statement
   twice makes the same kernels twice.  Of the kernels 'k' whose texts
   'text', with their recording versions 'records' (the CPU target's,
   else empty), are equal but for their names (kernel_canon), the first (the
   lowest number) is kept, with a comment naming the others, and every
   `run` of the others runs it (Cg.kernel_alias).  Returns the indices of
   the kernels kept, in order, in 'kept' (their number in '*nkept'); the
   others' texts and recording versions are freed. */
static int *dedupe_kernels(Cg *cg, const Vec *kernels, CgText *text, CgText *records, int *nkept) {
  int n = kernels->len;
  int *kept = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  Vec *aliases = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  Map first = {0}; /* canonical text -> 1 + the index of its first kernel */
  int m = 0;
  for (int i = 0; i < n; i++) {
    const LcuKernel *k = kernels->data[i];
    aliases[i] = (Vec){0};
    /* with its recording version, which holds the sites of its checks */
    const char *canon = kernel_canon(&text[i], k->name);
    if (records[i].len)
      canon = xprintf("%s\n%s", canon, kernel_canon(&records[i], k->name));
    intptr_t f = (intptr_t)map_get(&first, canon);
    if (!f) {
      map_put(&first, canon, (void *)(intptr_t)(i + 1));
      kept[m++] = i;
      continue;
    }
    ptrmap_put(&cg->kernel_alias, k, kernels->data[f - 1]);
    vec_push(&aliases[f - 1], (void *)k->name);
    cg_text_free(&text[i]);
    cg_text_free(&records[i]);
  }
  for (int j = 0; j < m; j++) {
    const Vec *a = &aliases[kept[j]];
    if (a->len == 0)
      continue;
    Buf b = {0};
    const LcuKernel *k = kernels->data[kept[j]];
    buf_printf(&b, "/* %s runs too for", k->name);
    for (int i = 0; i < a->len && i < 8; i++)
      buf_printf(&b, "%s %s", i == 0 ? "" : i + 1 == a->len ? " and" : ",", (const char *)a->data[i]);
    if (a->len > 8)
      buf_printf(&b, " and %d more", a->len - 8);
    buf_puts(&b, ", whose code is the same */\n");
    CgText with = {0};
    cg_text_write(&with, b.data, b.len);
    cg_text_write(&with, text[kept[j]].data, text[kept[j]].len);
    cg_text_free(&text[kept[j]]);
    text[kept[j]] = with;
  }
  *nkept = m;
  return kept;
}

/* Unit 'u' of 'f', of kind 'kind' ('what' in words): the scalar
   functions and the texts [first, last) of 'texts' (freed), which name
   what 'uses' [first, last) and 'scalar_uses' record. */
static void write_kernel_unit(CgFiles *f, int u, CgUnitKind kind, const char *what, Cg *cg, const char *source_name,
                              const CgText *scalar, PtrMap *scalar_uses, CgText *texts, PtrMap *uses, int first,
                              int last) {
  CgText *t = &f->text[u];
  *t = (CgText){0};
  f->kind[u] = kind;
  f->what[u] = what;
  Vec all = {0};
  vec_push(&all, scalar_uses);
  for (int i = first; i < last; i++)
    vec_push(&all, &uses[i]);
  write_head(t, cg, source_name, u + 1, f->n, what, true, false, &all);
  cg_text_write(t, scalar->data, scalar->len);
  for (int i = first; i < last; i++) {
    cg_text_write(t, texts[i].data, texts[i].len);
    cg_text_free(&texts[i]);
  }
}

/* Does any of kernels [first, last) have a recording version? */
static bool part_has_records(const CgText *record_text, int first, int last) {
  for (int i = first; i < last; i++)
    if (record_text[i].len > 0)
      return true;
  return false;
}

/* The parts of a split program: kernels in program order, about the
   same amount of code in each (the compiler's time goes with it). */
static int *part_starts(const CgText *kernel_text, int nk, int *nparts) {
  int n = (nk + CG_PART_KERNELS - 1) / CG_PART_KERNELS;
  size_t total = 0;
  for (int i = 0; i < nk; i++)
    total += kernel_text[i].len;
  int *start = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int part = 0;
  size_t so_far = 0;
  start[0] = 0;
  if (nk == 0) { /* the statements alone were split */
    *nparts = 0;
    return start;
  }
  for (int i = 0; i < nk && part + 1 < n; i++) {
    so_far += kernel_text[i].len;
    /* part 'part' ends after kernel i once it holds its share, leaving
       a kernel at least for each part after it */
    if (so_far * (size_t)n >= total * (size_t)(part + 1) && nk - (i + 1) >= n - (part + 1))
      start[++part] = i + 1;
  }
  *nparts = part + 1;
  start[part + 1] = nk;
  return start;
}

/* A part of the top-level statements (split_tops): their functions,
   static, and the table of them that program() runs, extern; or a part
   of the host functions (split_funcs). */
typedef struct TopPart {
  CgText text;
  PtrMap uses;
  int first, last; /* the statements' numbers (top_N), or the functions' */
} TopPart;

/* The declarations a part of the statements or of the host functions
   needs of what the other units define: the table of sites, and the
   globals, host functions and kernels its code names (and no more: a
   declaration of every global in every part would grow with the square
   of the program). */
static void write_part_declarations(CgText *t, Cg *cg, const PtrMap *uses) {
  const LcuProgram *p = cg->p;
  Cg d = *cg;
  d.out = t;
  d.indent = 0;
  d.uses = NULL;
  cg_line(&d, "extern const RtSite nessie_sites[];");
  for (int i = 0; i < p->globals.len; i++) {
    const LcuVar *v = p->globals.data[i];
    if (ptrmap_get(uses, v)) {
      cg_line(&d, "extern %s%s%s;", var_type(v), is_vector(v) ? "" : " ", global_name(v));
      cg_line(&d, "extern int %s_defined;", global_name(v));
    }
  }
  for (int i = 0; i < p->funcs.len; i++)
    if (!((const LcuFunc *)p->funcs.data[i])->each && ptrmap_get(uses, p->funcs.data[i]))
      cg_line(&d, "%s;", func_signature(cg, p->funcs.data[i]));
  for (int i = 0; i < p->kernels.len; i++) {
    const LcuKernel *k = p->kernels.data[i];
    if (ptrmap_get(uses, k))
      cg_line(&d, "%s;", cg_kernel_signature(cg, k, k->name, true));
  }
  cg_blank(&d);
}

static CgFiles program_files(const LcuProgram *p, const CgTarget *target, const char *source_name,
                             const CgLibrary *lib);

CgFiles cg_program_files(const LcuProgram *p, const CgTarget *target, const char *source_name) {
  return program_files(p, target, source_name, NULL);
}

CgFiles cg_library_files(const LcuProgram *p, const CgTarget *target, const char *source_name, const CgLibrary *lib) {
  return program_files(p, target, source_name, lib);
}

/* The program's units; for a library ('lib' not NULL), its statements in
   one table that the library's API unit (export.c, the last unit) runs,
   instead of main. */
static CgFiles program_files(const LcuProgram *p, const CgTarget *target, const char *source_name,
                             const CgLibrary *lib) {
  /* map columns run as a MAP riding on their SOAC's launch
     (cuda.c): the kernels in that form, in place (what they compute is
     the same, and the runs keep their kernels) */
  if (target->kind == CG_CUDA)
    lcu_scan_maps_apart((LcuProgram *)p);
  /* the bodies first, into memory: the tables of layouts and sites they
     fill are written before them */
  CgText body = {0};
  cg_forget_names();
  cg_name_funcs(p);
  int ntops = 0;
  for (int i = 0; i < p->tops.len; i++)
    ntops += ((LcuTop *)p->tops.data[i])->body != NULL;
  bool split_funcs = p->funcs.len > CG_SPLIT_FUNCS;
  bool split_kernels = p->kernels.len > CG_SPLIT_KERNELS;
  /* where the program is split anyway, its statements go to units of
     their own, compiled without optimization (build.c): each runs once,
     and optimizing them cost more than all the rest of a program's host
     code (lib_lifted: the host unit took 11.7 s of gcc -O2, 1.9 s -O0);
     a library's are few (lib-nesl's and one per export) and stay put */
  bool split_tops = !lib && (ntops > CG_SPLIT_TOPS || ((split_kernels || split_funcs) && ntops > 0));
  bool split = split_kernels || split_tops || split_funcs;
  /* what each piece names, where there are several units */
  PtrMap body_uses = {0}, scalar_uses = {0};
  Cg cg = {.out = &body, .p = p, .target = target, .record_fn = "NESSIE_RECORD", .split = split,
           .split_host = split_tops || split_funcs, .uses = split ? &body_uses : NULL};
  Hx h = {.cg = &cg, .p = p};
  cg_site(&cg, no_loc, NULL, NULL); /* site 0: none; a check there is reported at its run */
  if (target->kind == CG_CUDA)
    cg_plan_device_checks(&cg);
  gen_globals(&h);
  /* (an element function, LcuFunc.each, is never the host's: scalarfn.c
     writes it, for the kernels that run it on each element) */
  for (int i = 0; i < p->funcs.len; i++)
    if (!((const LcuFunc *)p->funcs.data[i])->each)
      cg_line(&cg, "%s;", func_signature(&cg, p->funcs.data[i]));
  cg_blank(&cg);
  /* split: the scalar functions and each kernel into texts of their own,
     and the kernels' entry points declared for the host functions */
  CgText scalar = {0};
  CgText *all_text = xmalloc(sizeof(CgText) * (size_t)(p->kernels.len + 1));
  PtrMap *all_uses = xmalloc(sizeof(PtrMap) * (size_t)(p->kernels.len + 1));
  /* the CPU target's kernels' recording versions (cpu.c), apart */
  bool records = target->kind == CG_CPU;
  CgText *all_records = xmalloc(sizeof(CgText) * (size_t)(p->kernels.len + 1));
  PtrMap *all_record_uses = xmalloc(sizeof(PtrMap) * (size_t)(p->kernels.len + 1));
  cg.out = split ? &scalar : &body;
  if (split)
    cg.uses = &scalar_uses;
  cg_scalar_funcs(&cg);
  for (int i = 0; i < p->kernels.len; i++) {
    all_text[i] = (CgText){0};
    all_uses[i] = (PtrMap){0};
    all_records[i] = (CgText){0};
    all_record_uses[i] = (PtrMap){0};
    cg.out = &all_text[i];
    if (split)
      cg.uses = &all_uses[i];
    cg.record_out = records ? &all_records[i] : NULL;
    cg.record_uses = &all_record_uses[i];
    target->kernel(&cg, p->kernels.data[i]);
  }
  cg.record_out = NULL;
  cg.record_uses = NULL;
  /* each kernel's code once: those kept, in order (a kernel's recording
     version goes with it: equal kernels have equal ones) */
  int nk = 0;
  int *kept = dedupe_kernels(&cg, &p->kernels, all_text, all_records, &nk);
  CgText *kernel_text = xmalloc(sizeof(CgText) * (size_t)(nk + 1));
  PtrMap *kernel_uses = xmalloc(sizeof(PtrMap) * (size_t)(nk + 1));
  CgText *record_text = xmalloc(sizeof(CgText) * (size_t)(nk + 1));
  PtrMap *record_uses = xmalloc(sizeof(PtrMap) * (size_t)(nk + 1));
  const LcuKernel **kernels = xmalloc(sizeof(LcuKernel *) * (size_t)(nk + 1));
  for (int j = 0; j < nk; j++) {
    kernel_text[j] = all_text[kept[j]];
    kernel_uses[j] = all_uses[kept[j]];
    record_text[j] = all_records[kept[j]];
    record_uses[j] = all_record_uses[kept[j]];
    kernels[j] = p->kernels.data[kept[j]];
  }
  cg.out = &body;
  if (!split) {
    for (int j = 0; j < nk; j++) {
      cg_text_write(&body, kernel_text[j].data, kernel_text[j].len);
      cg_text_free(&kernel_text[j]);
    }
    for (int j = 0; j < nk; j++) {
      cg_text_write(&body, record_text[j].data, record_text[j].len);
      cg_text_free(&record_text[j]);
    }
  }
  if (split) {
    cg.uses = &body_uses;
    cg_line(&cg, "/* the kernels, in the other translation units */");
    for (int j = 0; j < nk; j++)
      cg_line(&cg, "%s;", cg_kernel_signature(&cg, kernels[j], kernels[j]->name, true));
    cg_blank(&cg);
  }
  /* the host functions: here, or in parts of CG_PART_FUNCS of their own */
  int nfunc_parts = split_funcs ? (p->funcs.len + CG_PART_FUNCS - 1) / CG_PART_FUNCS : 0;
  TopPart *func_parts = xmalloc(sizeof(TopPart) * (size_t)(nfunc_parts + 1));
  for (int i = 0; i < p->funcs.len; i++) {
    if (split_funcs) {
      TopPart *part = &func_parts[i / CG_PART_FUNCS];
      if (i % CG_PART_FUNCS == 0)
        *part = (TopPart){.first = i};
      part->last = i;
      cg.out = &part->text;
      cg.uses = &part->uses;
    }
    if (!((const LcuFunc *)p->funcs.data[i])->each)
      gen_func(&h, p->funcs.data[i]);
  }
  cg.out = &body;
  cg.uses = split ? &body_uses : NULL;
  /* the statements: here, or in parts of CG_PART_TOPS of their own, each
     with a table of its statements' functions */
  int ntop_parts = split_tops ? (ntops + CG_PART_TOPS - 1) / CG_PART_TOPS : 0;
  TopPart *top_parts = xmalloc(sizeof(TopPart) * (size_t)(ntop_parts + 1));
  Vec tops = {0};
  for (int i = 0; i < p->tops.len; i++) {
    LcuTop *t = p->tops.data[i];
    if (!t->body)
      continue;
    if (split_tops) {
      TopPart *part = &top_parts[tops.len / CG_PART_TOPS];
      if (tops.len % CG_PART_TOPS == 0)
        *part = (TopPart){.first = tops.len};
      part->last = tops.len;
      cg.out = &part->text;
      cg.uses = &part->uses;
    }
    gen_top(&h, t, tops.len);
    vec_push(&tops, t);
  }
  cg.out = &body;
  cg.uses = split ? &body_uses : NULL;
  for (int j = 0; j < ntop_parts; j++) {
    TopPart *part = &top_parts[j];
    Cg in_part = cg;
    in_part.out = &part->text;
    cg_line(&in_part, "/* the table of this unit's statements, which program() runs */");
    cg_line(&in_part, "extern void (*const nessie_tops_%d[])(void);", j + 1);
    cg_line(&in_part, "void (*const nessie_tops_%d[])(void) = {", j + 1);
    for (int i = part->first; i <= part->last; i++)
      cg_line(&in_part, "  top_%d,", i);
    cg_line(&in_part, "  NULL};");
    cg_line(&cg, "extern void (*const nessie_tops_%d[])(void);", j + 1);
  }
  if (lib) {
    cg_line(&cg, "/* the statements, which the library's API unit runs: lib-nesl's, then one per export */");
    /* hidden: two libraries loaded together must not bind each other's */
    cg_line(&cg, "%s__attribute__((visibility(\"hidden\"))) void (*const nessie_lib_tops[])(void) = {",
            target->kind == CG_CUDA ? "extern \"C\" " : "");
    for (int i = 0; i < tops.len; i++)
      cg_line(&cg, "  top_%d,", i);
    cg_line(&cg, "  NULL};");
    /* NULL, or why the runtime could not start: a library reports it to
       the caller instead of exiting (rtg_start) */
    if (target->kind == CG_CUDA)
      cg_line(&cg, "extern \"C\" __attribute__((visibility(\"hidden\"))) const char *nessie_lib_init(int device) {\n"
                   "  return rtg_start(nessie_sites, device);\n}");
    else
      cg_line(&cg, "__attribute__((visibility(\"hidden\"))) const char *nessie_lib_init(int device) {\n"
                   "  (void)device;\n  (void)nessie_sites;\n  return NULL;\n}");
  } else {
  cg_line(&cg, "static void program(void) {");
  cg_line(&cg, "  NESSIE_INIT(nessie_sites); /* after rt_main's start (it may start the process again) */");
  if (split_tops) {
    cg_line(&cg, "  static void (*const *const parts[])(void) = {");
    for (int j = 0; j < ntop_parts; j++)
      cg_line(&cg, "    nessie_tops_%d,", j + 1);
    cg_line(&cg, "    NULL};");
    cg_line(&cg, "  for (int p = 0; parts[p]; p++)");
    cg_line(&cg, "    for (int i = 0; parts[p][i]; i++) {");
    cg_line(&cg, "      jmp_buf stop;");
    cg_line(&cg, "      rt_set_stop(&stop);");
    cg_line(&cg, "      if (setjmp(stop) == 0)");
    cg_line(&cg, "        parts[p][i]();");
    cg_line(&cg, "      rt_set_stop(NULL);");
    cg_line(&cg, "      rt_set_context(NULL);");
    cg_line(&cg, "    }");
  } else {
    cg_line(&cg, "  static void (*const tops[])(void) = {");
    for (int i = 0; i < tops.len; i++)
      cg_line(&cg, "    top_%d,", i);
    cg_line(&cg, "    NULL};");
    cg_line(&cg, "  for (int i = 0; tops[i]; i++) {");
    cg_line(&cg, "    jmp_buf stop;");
    cg_line(&cg, "    rt_set_stop(&stop);");
    cg_line(&cg, "    if (setjmp(stop) == 0)");
    cg_line(&cg, "      tops[i]();");
    cg_line(&cg, "    rt_set_stop(NULL);");
    cg_line(&cg, "    rt_set_context(NULL);");
    cg_line(&cg, "  }");
  }
  cg_line(&cg, "}");
  cg_blank(&cg);
  cg_line(&cg, "int main(int argc, char **argv) {");
  cg_line(&cg, "  (void)argc;");
  cg_line(&cg, "  return rt_main(argv, program);");
  cg_line(&cg, "}");
  }
  cg.uses = NULL;

  int nparts = 0;
  int *start = split ? part_starts(kernel_text, nk, &nparts) : NULL;
  /* each part's kernels' recording versions in a unit of their own, if
     it has any */
  int nrecord_parts = 0;
  for (int j = 0; j < nparts; j++)
    nrecord_parts += part_has_records(record_text, start[j], start[j + 1]);
  int n = 1 + nfunc_parts + ntop_parts + nparts + nrecord_parts + (lib != NULL);
  CgFiles f = {n, xmalloc(sizeof(CgText) * (size_t)n), xmalloc_atomic(sizeof(CgUnitKind) * (size_t)n),
               xmalloc(sizeof(char *) * (size_t)n)};
  f.text[0] = (CgText){0};
  f.kind[0] = n == 1 || (lib && n == 2) ? CG_UNIT_ALL : CG_UNIT_HOST;
  f.what[0] = n == 1 ? "the program" : "the host functions and main";
  Vec uses = {0};
  vec_push(&uses, &body_uses);
  bool alone = n == 1 || (lib && n == 2); /* the program in one unit (a library's API unit aside) */
  if (lib)
    f.what[0] = alone ? "the program" : "the host functions";
  write_head(&f.text[0], &cg, source_name, 1, alone ? 1 : f.n, f.what[0], alone, true, split ? &uses : NULL);
  cg_text_write(&f.text[0], body.data, body.len);
  cg_text_free(&body);
  for (int j = 0; j < nfunc_parts + ntop_parts; j++) {
    bool funcs = j < nfunc_parts;
    TopPart *part = funcs ? &func_parts[j] : &top_parts[j - nfunc_parts];
    CgText *t = &f.text[1 + j];
    *t = (CgText){0};
    f.kind[1 + j] = funcs ? CG_UNIT_HOST : CG_UNIT_STATEMENTS;
    f.what[1 + j] = funcs ? xprintf("host functions %s to %s", ((LcuFunc *)p->funcs.data[part->first])->name,
                                    ((LcuFunc *)p->funcs.data[part->last])->name)
                          : xprintf("statements %d to %d", part->first + 1, part->last + 1);
    uses.len = 0;
    vec_push(&uses, &part->uses);
    write_head(t, &cg, source_name, 2 + j, f.n, f.what[1 + j], false, false, &uses);
    write_part_declarations(t, &cg, &part->uses);
    cg_text_write(t, part->text.data, part->text.len);
    cg_text_free(&part->text);
  }
  for (int j = 0; j < nparts; j++) {
    const LcuKernel *first = kernels[start[j]], *last = kernels[start[j + 1] - 1];
    write_kernel_unit(&f, 1 + nfunc_parts + ntop_parts + j, CG_UNIT_KERNELS,
                      first == last ? xprintf("kernel %s", first->name)
                                    : xprintf("kernels %s to %s", first->name, last->name),
                      &cg, source_name, &scalar, &scalar_uses, kernel_text, kernel_uses, start[j], start[j + 1]);
  }
  for (int j = 0, u = 1 + nfunc_parts + ntop_parts + nparts; j < nparts; j++) {
    if (!part_has_records(record_text, start[j], start[j + 1]))
      continue;
    const LcuKernel *first = kernels[start[j]], *last = kernels[start[j + 1] - 1];
    /* (short: the progress line shows it) */
    write_kernel_unit(&f, u++, CG_UNIT_RECORDS,
                      first == last ? xprintf("error path of kernel %s", first->name)
                                    : xprintf("error paths of kernels %s to %s", first->name, last->name),
                      &cg, source_name, &scalar, &scalar_uses, record_text, record_uses, start[j], start[j + 1]);
  }
  cg_text_free(&scalar);
  if (lib) {
    f.text[n - 1] = (CgText){0};
    f.kind[n - 1] = CG_UNIT_HOST;
    f.what[n - 1] = "the library's C API";
    cg_library_api(&f.text[n - 1], lib, target, source_name, tops.len - lib->exports.len);
  }
  cg_forget_names();
  return f;
}

void cg_files_free(CgFiles *f) {
  for (int i = 0; i < f->n; i++)
    cg_text_free(&f->text[i]);
  f->n = 0;
}

void cg_program(FILE *out, const LcuProgram *p, const CgTarget *target, const char *source_name) {
  CgFiles f = cg_program_files(p, target, source_name);
  for (int i = 0; i < f.n; i++) {
    if (i > 0)
      fputc('\n', out);
    fwrite(f.text[i].data, 1, f.text[i].len, out);
  }
  cg_files_free(&f);
}
