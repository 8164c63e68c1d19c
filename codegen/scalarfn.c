/*
 * scalarfn.c: the CPU functions that thunks call (λcu's LE_CALL: the
 * scalar loops of flatten.c, `escape(c, z, k) = if done then k else
 * escape(c, f(z), k + 1)` applied to each element) as C functions of
 * scalars, which every kernel's element calls in place.  A call in tail
 * position of the function itself is the next iteration of a loop
 * around its body, so that an element iterates without a stack; other
 * calls are C calls.  Both targets share them: on CUDA they are
 * __host__ __device__, since a kernel's host version calls them too.
 *
 * A check that fails stops the function.  The thunk's fast pass passes
 * no record: the function runs its own fast pass, which tests no check
 * where it stands (as the thunk's: each check ORs its failure into one
 * flag; float arithmetic computes with infinities and NaN, as NESL's
 * does, and is not checked) but looks at them where the function returns, calls another or begins
 * its next iteration, so that a failure stops it within the iteration it
 * happened in; it then sets its caller's flag, and the element runs
 * again in the thunk's recording pass (thunk.c), which passes the kernel's
 * record, the element's index and the site of the call; the function
 * records its error there, as a thunk's own check does, and returns a
 * harmless 0.  The error's site names the function, and its 'len' the
 * call's site, so that it is reported as the interpreters report an
 * error in a called function (rt_kernel_fail).
 *
 * An element function (LcuFunc.each: a sequence loop of flatten.c, run
 * on each element of a LIBRARY loop) is written the same way, with
 * vector parameters besides: each the element's segment of a vector of
 * the loop, a pointer and a length (`const int32_t *v_ds_3, int64_t
 * v_ds_3_len`; not const where the function updates it in place).  Its
 * subscripts (LS_ELT) fail as a thunk's do, its in-place updates
 * (LS_UPDATE) as rep's, each error's 'x' the call's site; a tail call
 * keeps the vectors' pointers, whose elements the iteration updated.  It
 * has no fast pass: a second run of an element would start from the
 * state the first one left, so the loop always passes the record, and a
 * check records its error where it fails.  Its result is a scalar; or
 * several (a tuple's components: flatten.c's f.all), stored through
 * out-parameters after the others; or its vector parameter
 * 'each_result', returned in place (the C function returns 0 for
 * both).  cpu.c and cuda.c write the loop that calls it
 * (cg_each_call).
 */
#include <string.h>

#include "codegen.h"

/* The C name of scalar function 'f': sf_ and its λcu name made an
   identifier; an element function's ef_ and its name without ".each"
   (ef_count_loop). */
const char *cg_scalar_func_name(const LcuFunc *f) { return cg_func_name(f->each ? "ef_" : "sf_", f); }

typedef struct Sx {
  Cg *cg;
  const LcuFunc *f; /* the function being written */
  bool fast;        /* its fast pass (above): no record, checks looked at
                       by 'settle' */
} Sx;

static const char *atom(const LcuAtom *a) { return a->var ? cg_name(a->var) : cg_constant(a->constant); }

static FlatBase atom_base(const LcuAtom *a) { return lcu_atom_type(a).base; }

static bool is_vec(const LcuVar *v) { return v && v->type.kind == LT_VEC; }

/* The vector parameter of element function 'f' that vector 'v' of its
   body stands for: 'v' itself if it is one, else the parameter that 'f'
   returns (the vector an `if` or a call gives is that one, updated in
   place). */
static const LcuVar *vec_param(const LcuFunc *f, const LcuVar *v) {
  for (int i = 0; i < f->params.len; i++)
    if (f->params.data[i] == v)
      return v;
  if (f->each_result < 0)
    die("codegen: %s: vector %s is none of its parameters", f->name, v->name);
  return f->params.data[f->each_result];
}

/* The C name of a vector parameter's length. */
static const char *vec_len(const LcuVar *p) { return xprintf("%s_len", cg_name(p)); }

/* A failed check: recorded when the caller passes a record (an element
   function's always does), and the function stops. */
static void fail(Sx *x, const char *what) {
  Cg *cg = x->cg;
  if (x->f->each) {
    cg_line(cg, "NESSIE_FN_RECORD(rec, index, %s, run, order);", what);
  } else {
    cg_line(cg, "if (rec)");
    cg_line(cg, "  NESSIE_FN_RECORD(rec, index, %s, run, order);", what);
  }
  cg_line(cg, "*failed = 1;");
  cg_line(cg, "return 0;");
}

/* The site of a check of statement 's' of function 'x->f': its own
   location, or its library function's call when it was inlined from one
   (LcuStmt.lib_fn). */
static int site_of(Sx *x, const LcuStmt *s) {
  const char *fn = x->f->source ? x->f->source : x->f->name;
  return cg_fn_site(x->cg, s->lib_fn ? s->user_loc : s->loc, s->lib_fn, fn);
}

/* The fast pass's checks so far, before the function goes on where they
   matter: any failure stops it. */
static void settle(Sx *x) {
  if (!x->fast)
    return;
  cg_line(x->cg, "if (bad) {");
  cg_line(x->cg, "  *failed = 1;");
  cg_line(x->cg, "  return 0;");
  cg_line(x->cg, "}");
}

static void scalar_stmt(Sx *x, const LcuStmt *s) {
  Cg *cg = x->cg;
  const LcuVar *r = s->results.data[0];
  const char *args[3] = {0};
  for (int i = 0; i < s->args.len && i < 3; i++)
    args[i] = atom(s->args.data[i]);
  bool checked;
  int operand;
  FlatBase base = atom_base(s->args.data[0]);
  if (x->fast) {
    const char *call = cg_scalar_op(s->op, base, args, "&bad", &checked, &operand);
    cg_line(cg, "%s %s = %s;", cg_ctype(r->type.base), cg_name(r), call);
    return;
  }
  const char *err = cg_temp(cg);
  const char *call = cg_scalar_op(s->op, base, args, xprintf("&%s", err), &checked, &operand);
  if (!checked) {
    cg_line(cg, "%s %s = %s;", cg_ctype(r->type.base), cg_name(r), call);
    return;
  }
  cg_line(cg, "int %s = 0;", err);
  cg_line(cg, "%s %s = %s;", cg_ctype(r->type.base), cg_name(r), call);
  cg_line(cg, "if (%s) {", err);
  cg->indent++;
  fail(x, xprintf("RT_CHECK_SCALAR, %d, %s, %s, 0, call, %s", site_of(x, s), err, cg_rtop(s->op),
                  operand >= 0 ? xprintf("(double)%s", args[operand]) : "0.0"));
  cg->indent--;
  cg_line(cg, "}");
}

/* sf_g(args, rec, index, run, call, order, failed), for a call statement or a
   thunk. */
static const char *call_text(const LcuFunc *g, const char **args, int n, const char *rest) {
  Buf b = {0};
  buf_printf(&b, "%s(", cg_scalar_func_name(g));
  for (int i = 0; i < n; i++)
    buf_printf(&b, "%s, ", args[i]);
  buf_puts(&b, rest);
  buf_putc(&b, ')');
  return buf_str(&b);
}

static const char **atoms(const Vec *v) {
  const char **a = xmalloc(sizeof(char *) * (size_t)(v->len + 1));
  for (int i = 0; i < v->len; i++)
    a[i] = atom(v->data[i]);
  return a;
}

static void block(Sx *x, const LcuBlock *b, bool tail, const char **dests);

/* Is 's', the last statement of a block in tail position, one whose
   results are the block's?  (In an element function every vector is the
   parameter it returns.) */
static bool gives_block_result(const LcuStmt *s, const LcuBlock *b) {
  if (b->results.len == 0 || s->results.len != b->results.len)
    return false;
  for (int i = 0; i < b->results.len; i++) {
    const LcuAtom *r = b->results.data[i];
    const LcuVar *v = s->results.data[i];
    if (!r->var || !(v == r->var || (is_vec(v) && is_vec(r->var))))
      return false;
  }
  return true;
}

/* Does 'f' give its results through out-parameters (several scalars: a
   tuple's components, flatten.c's f.all, of an element function or of
   a function of scalars that one calls)? */
static bool gives_tuple(const LcuFunc *f) { return f->each_result < 0 && f->body->results.len > 1; }

/* r = p[i] (LS_ELT): a subscript out of range fails as a thunk's does. */
static void elt_stmt(Sx *x, const LcuStmt *s) {
  Cg *cg = x->cg;
  const LcuVar *r = s->results.data[0];
  const LcuVar *p = vec_param(x->f, ((const LcuAtom *)s->args.data[0])->var);
  const char *i = atom(s->args.data[1]);
  cg_line(cg, "if ((uint64_t)(int64_t)%s >= (uint64_t)%s) {", i, vec_len(p));
  cg->indent++;
  fail(x, xprintf("RT_CHECK_INDEX, %d, 0, RT_ELT, %s, %s, call", site_of(x, s), i, vec_len(p)));
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "%s %s = %s[%s];", cg_ctype(r->type.base), cg_name(r), cg_name(p), i);
}

/* p[i] = v in place (LS_UPDATE: NESL's rep whose old vector is dead): an
   index out of range fails in rep's words. */
static void update_stmt(Sx *x, const LcuStmt *s) {
  Cg *cg = x->cg;
  const LcuVar *p = vec_param(x->f, ((const LcuAtom *)s->args.data[0])->var);
  const char *i = atom(s->args.data[1]);
  cg_line(cg, "if ((uint64_t)(int64_t)%s >= (uint64_t)%s) {", i, vec_len(p));
  cg->indent++;
  fail(x, xprintf("RT_CHECK_ARGUMENT, %d, RT_CHECK_REP, 0, %s, %s, call", site_of(x, s), i, vec_len(p)));
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "%s[%s] = %s; /* rep, in place */", cg_name(p), i, atom(s->args.data[2]));
}

static void stmt(Sx *x, const LcuStmt *s, bool tail) {
  Cg *cg = x->cg;
  switch (s->kind) {
  case LS_SCALAR:
    scalar_stmt(x, s);
    return;
  case LS_IF: {
    /* a vector result is the parameter the branches update: no local */
    const char **dests = NULL;
    if (!tail && s->results.len && !is_vec(s->results.data[0])) {
      dests = xmalloc(sizeof(char *) * (size_t)s->results.len);
      for (int i = 0; i < s->results.len; i++) {
        const LcuVar *r = s->results.data[i];
        dests[i] = cg_name(r);
        cg_line(cg, "%s %s;", cg_ctype(r->type.base), dests[i]);
      }
    }
    cg_line(cg, "if (%s) {", atom(s->args.data[0]));
    cg->indent++;
    block(x, s->then, tail, dests);
    cg->indent--;
    cg_line(cg, "} else {");
    cg->indent++;
    block(x, s->els, tail, dests);
    cg->indent--;
    cg_line(cg, "}");
    return;
  }
  case LS_CALL: {
    const char **args = atoms(&s->args);
    settle(x);
    if (tail && s->callee == x->f) {
      /* the next iteration: the arguments first, then the parameters; a
         vector parameter keeps its pointer (the iteration updated its
         elements in place) */
      const char **next = xmalloc(sizeof(char *) * (size_t)(s->args.len + 1));
      for (int i = 0; i < s->args.len; i++) {
        if (is_vec(x->f->params.data[i]))
          continue;
        next[i] = cg_temp(cg);
        cg_line(cg, "%s %s = %s;", cg_ctype(atom_base(s->args.data[i])), next[i], args[i]);
      }
      for (int i = 0; i < s->args.len; i++)
        if (!is_vec(x->f->params.data[i]))
          cg_line(cg, "%s = %s;", cg_name(x->f->params.data[i]), next[i]);
      cg_line(cg, "continue; /* %s's tail call */", x->f->source ? x->f->source : x->f->name);
      return;
    }
    if (s->callee->each)
      die("codegen: %s calls element function %s other than as its own next iteration", x->f->name,
          s->callee->name);
    if (gives_tuple(s->callee)) {
      /* several results, through the callee's out-parameters */
      Buf rest = {0};
      for (int i = 0; i < s->results.len; i++) {
        const LcuVar *r = s->results.data[i];
        cg_line(cg, "%s %s;", cg_ctype(r->type.base), cg_name(r));
        buf_printf(&rest, "&%s, ", cg_name(r));
      }
      buf_puts(&rest, "rec, index, run, call, order, failed");
      cg_line(cg, "(void)%s;", call_text(s->callee, args, s->args.len, buf_str(&rest)));
      cg_line(cg, "if (*failed)");
      cg_line(cg, "  return 0;");
      if (tail) {
        for (int i = 0; i < s->results.len; i++)
          cg_line(cg, "*out%d = %s;", i, cg_name(s->results.data[i]));
        cg_line(cg, "return 0;");
      }
      return;
    }
    const LcuVar *r = s->results.data[0];
    cg_line(cg, "%s %s = %s;", cg_ctype(r->type.base), cg_name(r),
            call_text(s->callee, args, s->args.len, "rec, index, run, call, order, failed"));
    cg_line(cg, "if (*failed)");
    cg_line(cg, "  return 0;");
    if (tail)
      cg_line(cg, "return %s;", cg_name(r));
    return;
  }
  case LS_LENGTH: /* an element function's: its vector parameter's */
    if (!x->f->each || s->length != LEN_VECTOR)
      break;
    cg_line(cg, "int32_t %s = (int32_t)%s;", cg_name(s->results.data[0]),
            vec_len(vec_param(x->f, ((const LcuAtom *)s->args.data[0])->var)));
    return;
  case LS_ELT:
    if (!x->f->each)
      break;
    elt_stmt(x, s);
    return;
  case LS_UPDATE:
    if (!x->f->each)
      break;
    update_stmt(x, s);
    return;
  default:
    break;
  }
  die("codegen: %s, called from a kernel, holds a statement of kind %d", x->f->name, (int)s->kind);
}

/* Block 'b': in tail position its results are returned (or its last
   statement gives them; an element function of several results stores
   them through its out-parameters), else stored into 'dests'. */
static void block(Sx *x, const LcuBlock *b, bool tail, const char **dests) {
  int n = b->stmts.len;
  const LcuStmt *last = n ? b->stmts.data[n - 1] : NULL;
  bool last_gives = tail && last && (last->kind == LS_IF || last->kind == LS_CALL) && gives_block_result(last, b);
  for (int i = 0; i < n; i++)
    stmt(x, b->stmts.data[i], last_gives && i == n - 1);
  if (last_gives)
    return;
  const LcuAtom *result = b->results.len ? b->results.data[0] : NULL;
  if (!result || is_vec(result->var)) {
    /* an element function's vector parameter, updated in place */
    if (tail) {
      settle(x);
      cg_line(x->cg, "return 0;");
    }
    return;
  }
  if (tail && gives_tuple(x->f)) {
    settle(x);
    for (int i = 0; i < b->results.len; i++)
      cg_line(x->cg, "*out%d = %s;", i, atom(b->results.data[i]));
    cg_line(x->cg, "return 0;");
    return;
  }
  if (tail) {
    settle(x);
    cg_line(x->cg, "return %s;", atom(result));
  } else if (dests)
    for (int i = 0; i < b->results.len; i++)
      cg_line(x->cg, "%s = %s;", dests[i], atom(b->results.data[i]));
}

static bool inlined(const LcuFunc *f);

static const char *signature(const LcuFunc *f) {
  Buf b = {0};
  /* an element function that returns its vector parameter, or gives
     several scalars through out-parameters, returns 0 */
  const char *rt = (f->each && f->each_result >= 0) || gives_tuple(f)
                       ? "int"
                       : cg_ctype(lcu_atom_type(f->body->results.data[0]).base);
  buf_printf(&b, "%s %s %s(", inlined(f) ? "NESSIE_FN_INLINE" : "NESSIE_FN", rt, cg_scalar_func_name(f));
  for (int i = 0; i < f->params.len; i++) {
    const LcuVar *p = f->params.data[i];
    if (is_vec(p))
      buf_printf(&b, "%s%s *%s, int64_t %s, ", lcu_func_updates(f, p) ? "" : "const ", cg_ctype(p->type.base),
                 cg_name(p), vec_len(p));
    else
      buf_printf(&b, "%s %s, ", cg_ctype(p->type.base), cg_name(p));
  }
  for (int i = 0; gives_tuple(f) && i < f->body->results.len; i++)
    buf_printf(&b, "%s *out%d, ", cg_ctype(lcu_atom_type(f->body->results.data[i]).base), i);
  buf_puts(&b, "RtKernelError *rec, int64_t index, int32_t run, int32_t call, int32_t order, int *failed)");
  return buf_str(&b);
}

/* The function's body in a `for (;;)`, whose tail calls continue it, in
   x's pass. */
static void body_loop(Sx *x) {
  Cg *cg = x->cg;
  cg_line(cg, "for (;;) {");
  cg->indent++;
  block(x, x->f->body, true, NULL);
  cg->indent--;
  cg_line(cg, "}");
}

/* An element function: the recording pass alone (the file's header says
   why). */
static void gen_each(Cg *cg, const LcuFunc *f) {
  Sx x = {.cg = cg, .f = f, .fast = false};
  cg_line(cg, "/* %s on one element of a LIBRARY loop, its vectors the element's segments: %s */",
          f->source ? f->source : f->name, cg_where(f->loc));
  cg_line(cg, "%s {", signature(f));
  cg->indent++;
  cg_line(cg, "(void)index;");
  cg_line(cg, "(void)run;");
  cg_line(cg, "(void)call;");
  for (int i = 0; i < f->params.len; i++)
    if (is_vec(f->params.data[i]))
      cg_line(cg, "(void)%s;", vec_len(f->params.data[i]));
  cg_line(cg, "/* one pass, recording: a second would start from the state this one updated */");
  body_loop(&x);
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

static void gen_func(Cg *cg, const LcuFunc *f) {
  if (f->each) {
    gen_each(cg, f);
    return;
  }
  Sx x = {.cg = cg, .f = f, .fast = true};
  const char *part = f->source ? strchr(f->name, '.') : NULL; /* f.k: component k alone (flatten.c) */
  if (part && strcmp(part, ".all") == 0)
    cg_line(cg, "/* %s, every component of its result, on one element: %s */", f->source, cg_where(f->loc));
  else if (part)
    cg_line(cg, "/* %s, component %s of its result, on one element: %s */", f->source, part + 1, cg_where(f->loc));
  else
    cg_line(cg, "/* %s, on one element: %s */", f->source ? f->source : f->name, cg_where(f->loc));
  cg_line(cg, "%s {", signature(f));
  cg->indent++;
  cg_line(cg, "(void)index;");
  cg_line(cg, "(void)run;");
  cg_line(cg, "(void)call;");
  cg_line(cg, "if (!rec) { /* the fast pass: no record, no branch per check */");
  cg->indent++;
  cg_line(cg, "int bad = 0; /* nonzero: a check failed */");
  cg_line(cg, "(void)bad;");
  body_loop(&x);
  cg->indent--;
  cg_line(cg, "}");
  cg_line(cg, "/* the recording pass: each check records its error */");
  x.fast = false;
  body_loop(&x);
  cg->indent--;
  cg_line(cg, "}");
  cg_blank(cg);
}

/* ---- which functions ---- */

static void mark_func(PtrMap *used, const LcuFunc *f);

static void mark_block(PtrMap *used, const LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_CALL)
      mark_func(used, s->callee);
    if (s->then)
      mark_block(used, s->then);
    if (s->els)
      mark_block(used, s->els);
  }
}

static void mark_func(PtrMap *used, const LcuFunc *f) {
  if (ptrmap_get(used, f))
    return;
  ptrmap_put(used, f, (void *)1);
  mark_block(used, f->body);
}

static void mark_exp(PtrMap *used, const LcuExp *e) {
  if (e->kind == LE_CALL)
    mark_func(used, e->callee);
  for (int i = 0; i < e->nargs; i++)
    mark_exp(used, e->args[i]);
}

/* Is scalar function 'f' inlined into its callers (NESSIE_FN_INLINE)?
   One that is not an element function and calls itself by no path, not
   even in tail position (a loop stays a function).  A tuple result is
   one function a component, each computing the whole body for its
   checks (flatten.c, call_parts): Barnes-Hut's walk step `advance` is
   three, each with the step's square root and division, called one
   after another; inlined, the C compiler computes the shared work once.
   (docs/codegen.md has the figures.)  On CUDA NESSIE_FN_INLINE is
   NESSIE_FN: nvcc's own inlining decides there. */
static bool inlined(const LcuFunc *f) {
  if (f->each)
    return false;
  PtrMap called = {0}; /* every function f's body calls, and those they call */
  mark_block(&called, f->body);
  return !ptrmap_get(&called, f);
}

static void mark_thunk(PtrMap *used, const LcuThunk *t) {
  if (!t)
    return;
  for (int i = 0; i < lcu_thunk_nexps(t); i++)
    mark_exp(used, lcu_thunk_exp(t, i));
}

void cg_scalar_funcs(Cg *cg) {
  const LcuProgram *p = cg->p;
  PtrMap used = {0};
  for (int i = 0; i < p->kernels.len; i++) {
    const LcuKernel *k = p->kernels.data[i];
    for (int j = 0; j < k->soacs.len; j++) {
      const LcuSoac *s = k->soacs.data[j];
      mark_thunk(&used, s->pull);
      mark_thunk(&used, s->second);
      if (s->kind == SOAC_LIBRARY && s->library == LIB_LOOP)
        mark_func(&used, s->callee);
    }
  }
  /* in the program's order: the same text every run */
  Vec funcs = {0};
  for (int i = 0; i < p->funcs.len; i++)
    if (ptrmap_get(&used, p->funcs.data[i]))
      vec_push(&funcs, p->funcs.data[i]);
  if (!funcs.len)
    return;
  cg_line(cg, "/* the functions that kernels call on each element (scalar loops) */");
  if (cg->target->kind == CG_CUDA) {
    cg_line(cg, "#define NESSIE_FN static __host__ __device__");
    cg_line(cg, "#define NESSIE_FN_INLINE static __host__ __device__");
    cg_line(cg, "#ifdef __CUDA_ARCH__");
    cg_line(cg, "#define NESSIE_FN_RECORD(r, idx, chk, site, code, op, i, len, x, run, ord) \\");
    cg_line(cg, "  rtg::record((r), NESSIE_ERROR(idx, chk, site, code, op, i, len, x, run, ord))");
    cg_line(cg, "#else");
    cg_line(cg, "#define NESSIE_FN_RECORD(r, idx, chk, site, code, op, i, len, x, run, ord) \\");
    cg_line(cg, "  rt_kernel_record((r), NESSIE_ERROR(idx, chk, site, code, op, i, len, x, run, ord))");
    cg_line(cg, "#endif");
  } else {
    cg_line(cg, "#define NESSIE_FN static");
    cg_line(cg, "/* a function whose callers compute its work with theirs (inlined) */");
    cg_line(cg, "#define NESSIE_FN_INLINE static inline __attribute__((always_inline))");
    cg_line(cg, "#define NESSIE_FN_RECORD(r, idx, chk, site, code, op, i, len, x, run, ord) \\");
    cg_line(cg, "  rt_kernel_record((r), (RtKernelError){(idx), (chk), (site), (code), (op), (i), (len), (x), (run), (ord)})");
  }
  for (int i = 0; i < funcs.len; i++)
    cg_line(cg, "%s;", signature(funcs.data[i]));
  cg_blank(cg);
  for (int i = 0; i < funcs.len; i++)
    gen_func(cg, funcs.data[i]);
}

const char *cg_scalar_call(Cg *cg, const LcuExp *e, const char **args, const CgChecks *checks, const char *failed) {
  const char *run = strcmp(cg->record_fn, "NESSIE_DEVICE_RECORD") == 0 ? "A.run" : "run";
  /* the call's own site: where its errors are reported (in function ...) */
  /* its checks are the call's, in the kernel's order of operations: the
     function runs element by element, as the interpreters run it */
  const char *rest = checks ? xprintf("%s, %s, %s, %d, %d, &%s", checks->record, checks->index, run,
                                      cg_exp_site(cg, e, checks, NULL), cg->check_order++, failed)
                            : xprintf("(RtKernelError *)0, 0, 0, 0, 0, &%s", failed);
  return call_text(e->callee, args, e->nargs, rest);
}

CgLoopArg *cg_loop_args(const LcuSoac *s) {
  const LcuFunc *f = s->callee;
  if (!f || !f->each || f->params.len == 0)
    die("codegen: a LIBRARY loop of %s, which is no element function with parameters", f ? f->name : "nothing");
  CgLoopArg *a = xmalloc(sizeof(CgLoopArg) * (size_t)f->params.len);
  int k = 0;
  for (int j = 0; j < f->params.len; j++) {
    const LcuVar *p = f->params.data[j];
    bool shared = false;
    if (lcu_loop_arg(s, j, &shared) != k)
      die("codegen: a LIBRARY loop of %s with too few arguments", f->name);
    /* a vector's sd and values, or one shared vector; a scalar's values */
    int take = is_vec(p) && !shared ? 2 : 1;
    if (k + take > s->args.len)
      die("codegen: a LIBRARY loop of %s with too few arguments", f->name);
    a[j] = (CgLoopArg){.param = p, .shared = shared};
    if (is_vec(p) && !shared) {
      a[j].sd = s->args.data[k];
      a[j].result = j == f->each_result;
      a[j].copy = a[j].result || lcu_func_updates(f, p);
    }
    a[j].values = s->args.data[k + take - 1];
    k += take;
  }
  if (k != s->args.len)
    die("codegen: a LIBRARY loop of %s with %d arguments for %d", f->name, s->args.len, k);
  return a;
}

const LcuVar *cg_loop_count(const LcuSoac *s, const CgLoopArg *a) {
  for (int j = 0; j < s->callee->params.len; j++)
    if (!a[j].shared)
      return a[j].sd ? a[j].sd : a[j].values;
  die("codegen: a LIBRARY loop of %s whose every argument is shared", s->callee->name);
}

bool cg_each_gives_tuple(const LcuSoac *s) { return gives_tuple(s->callee); }

const char **cg_each_outs(Cg *cg, const LcuSoac *s) {
  const char **outs = xmalloc(sizeof(char *) * (size_t)(s->results.len + 1));
  for (int r = 0; r < s->results.len; r++) {
    const LcuVar *v = s->results.data[r];
    outs[r] = cg_temp(cg);
    cg_line(cg, "%s %s = 0;", cg_ctype(v->type.base), outs[r]);
  }
  return outs;
}

const char *cg_each_call(Cg *cg, const LcuSoac *s, const char **args, const char **outs, const char *record,
                         const char *index, const char *failed) {
  const char *run = strcmp(cg->record_fn, "NESSIE_DEVICE_RECORD") == 0 ? "A.run" : "run";
  /* the call stands at the SOAC's own place, so its errors are reported
     at the run's (as cg_exp_site has it for such an expression): site 0;
     its checks are one operation of the kernel, in the kernel's order */
  int call = cg_site(cg, no_loc, NULL, NULL);
  const char *rest = xprintf("%s, %s, %s, %d, %d, &%s", record, index, run, call, cg->check_order++, failed);
  int n = s->callee->params.len;
  if (!gives_tuple(s->callee))
    return call_text(s->callee, args, n, rest);
  int k = s->callee->body->results.len;
  const char **all = xmalloc(sizeof(char *) * (size_t)(n + k));
  for (int i = 0; i < n; i++)
    all[i] = args[i];
  for (int i = 0; i < k; i++)
    all[n + i] = xprintf("&%s", outs[i]);
  return call_text(s->callee, all, n + k, rest);
}
