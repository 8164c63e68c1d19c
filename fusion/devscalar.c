/*
 * devscalar.c: scalars that a kernel makes and only kernels read stay on
 * the device (fus_scalars_on_device).
 *
 * A REDUCE's or a ONCE's value (a sum, an element read on the host: a
 * pivot) that the host only hands on to later kernels, maybe
 * through a few scalar operations, costs a GPU a wait: the host reads it
 * back, computes, launches the next kernel with it, and the device idles
 * meanwhile (issue 39: norm2's `sqrt(sum(...))` between its two kernels).
 * This pass makes such a value a vector of one element, made and read on
 * the device:
 *
 *   let s  = run K (xs)        K:  ... let r = REDUCE ... ; return r
 *   let t  = sqrt(s)
 *   let ys = run C (xs, t)     C:  MAP { i => xs[i] / t using xs, t } (#xs)
 *
 * becomes
 *
 *   let tv = run K' (xs)       K': ... let r = REDUCE ... ;
 *                                  let tv = MAP { i => let a = sqrt(r); a using r } (1)
 *   let ys = run C' (xs, tv)   C': MAP { i => xs[i] / tv![0] using xs, tv } (#xs)
 *
 * and code generation keeps on the device the values of a REDUCE or a
 * ONCE that only later SOACs of its own kernel read (codegen/cuda.c): one launch
 * more (the MAP of one element), no read-back, no wait.  On the CPU the
 * same program costs a loop of one element more.
 *
 * It is legal where every read of the REDUCE's values, and of what the
 * operations moved make, is
 *   - a moved operation: a scalar operation after the run in its block
 *     whose other operands are constants, results of the run, or
 *     variables bound before it; or
 *   - an argument of a run whose kernel reads that parameter only inside
 *     thunks (not as a size, an `into`, a library kernel's argument or a
 *     result), which reads it as element 0 of the vector instead;
 * and nothing reads them in a nested block or the block's results.  An
 * operation that can fail now runs with the run, so it must stand in the
 * run's context (the same library call, if any, whose words its error
 * takes), with nothing that can fail or has an effect between them: its
 * error still comes in its order.  The MAP comes after the kernel's
 * other SOACs, as the operations came after the run.
 *
 * The REDUCEs and ONCEs of one run are tried together; where the values of one of
 * them cannot move, it is left out (with every other whose values an
 * operation combined with it) and the rest are tried again.  Kernels
 * are shared by runs: the producer's kernel is copied for its run, a
 * consumer's once per kernel and parameter.  It runs last in -O1
 * (driver/pipeline.c).
 */
#include "fusion.h"

/* The REDUCEs and ONCEs of a kernel that one attempt moves: bit j for
   SOAC j. */
typedef uint64_t Mask;
enum { MASK_BITS = 64 };

/* A parameter read as element 0 of a vector: a run's argument 'arg'. */
typedef struct Use {
  LcuStmt *run;
  int arg;
} Use;

/* A kernel copied with parameter 'param' a vector of one element. */
typedef struct Copied {
  const LcuKernel *from;
  int param;
  LcuKernel *to;
} Copied;

typedef struct Pass {
  LcuProgram *p;
  FusFacts *facts;
  Vec copied; /* Copied * */
  int runs;   /* producer runs rewritten */
} Pass;

/* What one attempt on run 'run' (statement 'at' of 'b') finds. */
typedef struct Attempt {
  const LcuBlock *b;
  LcuStmt *run;
  int at;
  PtrMap prov;  /* LcuVar -> (Mask) the REDUCEs its value comes from
                   (stored + 1, so that a value of no REDUCE is found) */
  Vec vars;     /* LcuVar *: the values that move, in order */
  Vec ops;      /* LcuStmt *: the scalar operations moved, in order */
  Vec uses;     /* Use *: the runs that read them */
  bool to_user; /* an operation that can fail stands in another context
                   than the run: the run moves to the user's code */
} Attempt;

/* ---- what may move ---- */

/* Does kernel 'k' read parameter 'arg', a scalar, only inside thunks? */
static bool read_in_thunks(const LcuKernel *k, int arg) {
  const LcuVar *x = k->params.data[arg];
  if (x->type.kind != LT_SCALAR)
    return false;
  for (int i = 0; i < k->params.len; i++)
    if (i != arg && k->params.data[i] == x)
      return false;
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == x)
      return false;
  for (int i = 0; i < k->soacs.len; i++)
    if (lcu_soac_reads_outside_thunks(k->soacs.data[i], x))
      return false;
  return true;
}

/* Is 'v', a result of SOAC 'index' of 'k', read by a later SOAC of 'k'
   anywhere but in a thunk?  (Code generation keeps the SOAC's values on
   the device only where thunks alone read them.) */
static bool read_outside_thunks(const LcuKernel *k, int index, const LcuVar *v) {
  for (int i = index + 1; i < k->soacs.len; i++)
    if (lcu_soac_reads_outside_thunks(k->soacs.data[i], v))
      return true;
  return false;
}

/* Is 'x' one of REDUCE or ONCE 's''s values (not a map column)? */
static bool soac_scalar(const LcuSoac *s, const LcuVar *x) {
  for (int v = 0; v < s->results.len && v < lcu_soac_scanned(s); v++)
    if (s->results.data[v] == x)
      return true;
  return false;
}

/* The REDUCEs and ONCEs of run 's' whose values may move: returned by
   its kernel (at least one of them), read by its later SOACs only in
   thunks. */
static Mask movable_reduces(const LcuStmt *s) {
  const LcuKernel *k = s->kernel;
  Mask m = 0;
  for (int j = 0; j < k->soacs.len && j < MASK_BITS; j++) {
    const LcuSoac *r = k->soacs.data[j];
    if (r->kind != SOAC_REDUCE && r->kind != SOAC_ONCE)
      continue;
    bool returned = false, ok = true;
    for (int v = 0; v < lcu_soac_scanned(r); v++) { /* its scalars, not its map columns */
      const LcuVar *x = r->results.data[v];
      returned |= lcu_listed(&k->results, x);
      ok &= !read_outside_thunks(k, j, x);
    }
    if (returned && ok)
      m |= (Mask)1 << j;
  }
  return m;
}

/* Is 'u' a scalar operation that a thunk can compute (LE_OP, or COPY)? */
static bool thunk_op(const LcuStmt *u) {
  return u->kind == LS_SCALAR && u->results.len == 1 &&
         ((u->op >= FLAT_ADD && u->op <= FLAT_SELECT) || u->op == FLAT_COPY);
}

static bool moving(const Attempt *a, const LcuVar *v) { return ptrmap_get(&a->prov, v) != NULL; }
static Mask prov_of(const Attempt *a, const LcuVar *v) { return (Mask)(uintptr_t)ptrmap_get(&a->prov, v) - 1; }
static void add_var(Attempt *a, LcuVar *v, Mask m) {
  ptrmap_put(&a->prov, v, (void *)(uintptr_t)(m + 1));
  vec_push(&a->vars, v);
}

/* The index of the run's result bound to kernel result 'q'. */
static LcuVar *run_result(const LcuStmt *s, int q) { return s->results.data[q]; }

/* One attempt with the REDUCEs of 'want': 0 if it may move them, else
   the REDUCEs to leave out (never 0). */
static Mask attempt(Pass *ps, Attempt *a, const LcuDefUse *du, const PtrMap *index_of, Mask want) {
  const LcuKernel *k = a->run->kernel;
  a->prov = (PtrMap){0};
  a->vars = a->ops = a->uses = (Vec){0};
  a->to_user = false;
  for (int q = 0; q < k->results.len; q++)
    for (int j = 0; j < k->soacs.len && j < MASK_BITS; j++)
      if ((want >> j & 1) && soac_scalar(k->soacs.data[j], k->results.data[q]) && !moving(a, run_result(a->run, q)))
        add_var(a, run_result(a->run, q), (Mask)1 << j);
  bool effect = false; /* something that can fail or has an effect since the run */
  for (int i = a->at + 1; i < a->b->stmts.len; i++) {
    LcuStmt *u = a->b->stmts.data[i];
    Mask m = 0;
    bool reads = false;
    for (int v = 0; v < a->vars.len; v++) {
      const Vec *readers = ptrmap_get(&du->uses, a->vars.data[v]);
      for (int r = 0; readers && r < readers->len; r++)
        if (readers->data[r] == u) {
          m |= prov_of(a, a->vars.data[v]);
          reads = true;
        }
    }
    bool effects = fus_stmt_effects(ps->facts, u);
    if (!reads) {
      effect |= effects;
      continue;
    }
    if (thunk_op(u) && u->results.len == 1) {
      for (int x = 0; x < u->args.len; x++) {
        const LcuAtom *at = u->args.data[x];
        if (!at->var || moving(a, at->var))
          continue;
        const LcuStmt *def = ptrmap_get(&du->def, at->var);
        intptr_t where = def ? (intptr_t)ptrmap_get(index_of, def) - 1 : -1;
        if (where > a->at) /* bound between the run and the operation */
          return m ? m : want;
      }
      if (effects && effect)
        return m ? m : want;
      if (effects && !fus_same_context(u, a->run)) {
        /* the run's own failures are worded in its context */
        if (fus_run_failures(ps->facts, a->run) & FUS_FAIL_RUN)
          return m ? m : want;
        a->to_user = true;
      }
      vec_push(&a->ops, u);
      add_var(a, u->results.data[0], m);
      continue;
    }
    if (u->kind != LS_RUN)
      return m ? m : want;
    for (int x = 0; x < u->args.len; x++) {
      const LcuAtom *at = u->args.data[x];
      if (!at->var || !moving(a, at->var))
        continue;
      if (!read_in_thunks(u->kernel, x))
        return prov_of(a, at->var) ? prov_of(a, at->var) : want;
      Use *use = NEW(Use);
      *use = (Use){u, x};
      vec_push(&a->uses, use);
    }
    effect |= effects;
  }
  for (int v = 0; v < a->vars.len; v++)
    if (ptrmap_get(&du->live_out, a->vars.data[v]))
      return prov_of(a, a->vars.data[v]) ? prov_of(a, a->vars.data[v]) : want;
  return a->uses.len ? 0 : want; /* nothing reads them on the device: no gain */
}

/* ---- the rewrite ---- */

/* Kernel 'k' with parameter 'arg' a vector of one element, read where
   the scalar was (one copy per kernel and parameter). */
static LcuKernel *vector_param_copy(Pass *ps, const LcuKernel *k, int arg) {
  for (int i = 0; i < ps->copied.len; i++) {
    const Copied *c = ps->copied.data[i];
    if (c->from == k && c->param == arg)
      return c->to;
  }
  LcuKernel *c = lcu_copy_kernel(ps->p, k);
  LcuVar *old = c->params.data[arg];
  LcuVar *v = lcu_new_var(ps->p, lcu_vec(old->type.base), "dev");
  c->params.data[arg] = v;
  for (int i = 0; i < c->soacs.len; i++) {
    LcuSoac *s = c->soacs.data[i];
    LcuThunk *thunks[2] = {s->pull, s->second};
    for (int t = 0; t < 2; t++) {
      LcuThunk *th = thunks[t];
      if (!th)
        continue;
      bool reads = false;
      for (int u = 0; u < th->using.len; u++)
        reads |= th->using.data[u] == old;
      if (!reads)
        continue;
      LcuExp *elt = lcu_exp_index(s->loc, v, lcu_exp_const(s->loc, lcu_int_const(0)));
      elt->in_range = true;
      for (int l = 0; l < th->lets.len; l++) {
        LcuLet *let = th->lets.data[l];
        let->value = lcu_subst_var(ps->p, let->value, old, elt);
      }
      for (int e = 0; e < th->body.len; e++)
        th->body.data[e] = lcu_subst_var(ps->p, th->body.data[e], old, elt);
      lcu_fill_using(th);
    }
  }
  lcu_add_kernel(ps->p, c);
  Copied *rec = NEW(Copied);
  *rec = (Copied){k, arg, c};
  vec_push(&ps->copied, rec);
  return c;
}

/* The thunk expression of host atom 'at' in the producer's copy: a
   constant, a value computed in the thunk or by the kernel ('in'), or a
   new parameter of the kernel given the host variable. */
static LcuExp *operand(Pass *ps, const Attempt *a, LcuKernel *c, PtrMap *in, const LcuAtom *at, Loc loc) {
  if (!at->var)
    return lcu_exp_const(loc, at->constant);
  LcuExp *e = ptrmap_get(in, at->var);
  if (e)
    return lcu_copy_exp(ps->p, e, NULL);
  for (int x = 0; x < a->run->args.len; x++) { /* an argument of the run already */
    const LcuAtom *arg = a->run->args.data[x];
    if (arg->var == at->var && ((const LcuVar *)c->params.data[x])->type.kind == LT_SCALAR) {
      e = lcu_exp_var(loc, c->params.data[x]);
      ptrmap_put(in, at->var, e);
      return lcu_copy_exp(ps->p, e, NULL);
    }
  }
  LcuVar *param = lcu_new_var(ps->p, at->var->type, "host");
  vec_push(&c->params, param);
  lcu_stmt_arg(a->run, lcu_atom_var(at->var));
  e = lcu_exp_var(loc, param);
  ptrmap_put(in, at->var, e);
  return lcu_copy_exp(ps->p, e, NULL);
}

static void rewrite(Pass *ps, Attempt *a, LcuBlock *b) {
  LcuProgram *p = ps->p;
  LcuStmt *run = a->run;
  const LcuKernel *k = run->kernel;
  LcuKernel *c = lcu_copy_kernel(p, k);
  if (a->to_user) {
    /* the kernel's expressions keep the words of the run's library call
       (if any), and the run stands in the user's code, where the
       operations were */
    for (int j = 0; j < c->soacs.len; j++) {
      LcuSoac *s = c->soacs.data[j];
      fus_settle_thunk(s->pull, s, run, run->lib_fn != NULL);
      fus_settle_thunk(s->second, s, run, run->lib_fn != NULL);
    }
    if (run->lib_fn) {
      run->loc = run->user_loc;
      run->lib_fn = NULL;
    }
    for (int j = 0; j < c->soacs.len; j++)
      ((LcuSoac *)c->soacs.data[j])->loc = run->loc;
  }
  /* the host's values as the copy's thunk reads them: the run's results
     as the copy's own variables */
  PtrMap in = {0};
  for (int q = 0; q < k->results.len; q++)
    if (((const LcuVar *)c->results.data[q])->type.kind == LT_SCALAR)
      ptrmap_put(&in, run_result(run, q), lcu_exp_var(run->loc, c->results.data[q]));
  LcuThunk *t = lcu_thunk_new();
  lcu_thunk_param(p, t, FB_INT, "i");
  for (int i = 0; i < a->ops.len; i++) {
    const LcuStmt *u = a->ops.data[i];
    LcuExp *args[3] = {NULL, NULL, NULL};
    for (int x = 0; x < u->args.len && x < 3; x++)
      args[x] = operand(ps, a, c, &in, u->args.data[x], u->loc);
    LcuVar *r = u->results.data[0];
    if (u->op == FLAT_COPY) {
      ptrmap_put(&in, r, args[0]);
      continue;
    }
    LcuVar *x = lcu_copy_var(p, r);
    x->shape = 0;
    LcuExp *e = lcu_exp_op(u->loc, u->op, r->type.base, u->args.len, args[0], args[1], args[2]);
    if (u->lib_fn && !fus_same_context(u, run)) { /* worded as in its library call */
      e->lib_fn = u->lib_fn;
      e->loc = u->user_loc;
    }
    lcu_thunk_let(t, x, e);
    ptrmap_put(&in, r, lcu_exp_var(u->loc, x));
  }
  /* the values the runs after it read, each once, in order */
  Vec outs = {0};
  for (int v = 0; v < a->vars.len; v++) {
    LcuVar *x = a->vars.data[v];
    bool read = false;
    for (int u = 0; u < a->uses.len && !read; u++) {
      const Use *use = a->uses.data[u];
      read = ((const LcuAtom *)use->run->args.data[use->arg])->var == x;
    }
    if (read) {
      vec_push(&outs, x);
      lcu_thunk_return(t, lcu_copy_exp(p, ptrmap_get(&in, x), NULL));
    }
  }
  lcu_fill_using(t);
  LcuSoac *map = lcu_soac_map(run->loc, t, (LcuSize){NULL, NULL, 1});
  PtrMap host_vec = {0}; /* a value -> the host's vector of it */
  Vec vec_results = {0};
  for (int v = 0; v < outs.len; v++) {
    const LcuVar *x = outs.data[v];
    vec_push(&vec_results, lcu_soac_result(p, map, lcu_vec(x->type.base)));
    LcuVar *hv = lcu_new_var(p, lcu_vec(x->type.base), "dev");
    ptrmap_put(&host_vec, x, hv);
  }
  lcu_kernel_soac(c, map);
  /* the kernel's and the run's results: the moved values out, the
     vectors in */
  Vec kres = {0}, rres = {0};
  for (int q = 0; q < c->results.len; q++)
    if (!moving(a, run_result(run, q))) {
      vec_push(&kres, c->results.data[q]);
      vec_push(&rres, run_result(run, q));
    }
  for (int v = 0; v < outs.len; v++) {
    vec_push(&kres, vec_results.data[v]);
    vec_push(&rres, ptrmap_get(&host_vec, outs.data[v]));
  }
  c->results = kres;
  run->results = rres;
  lcu_add_kernel(p, c);
  run->kernel = c;
  /* the readers: a vector argument, their kernels copied to read it */
  for (int u = 0; u < a->uses.len; u++) {
    const Use *use = a->uses.data[u];
    LcuVar *x = ((const LcuAtom *)use->run->args.data[use->arg])->var;
    use->run->kernel = vector_param_copy(ps, use->run->kernel, use->arg);
    use->run->args.data[use->arg] = lcu_atom_var(ptrmap_get(&host_vec, x));
  }
  /* the operations moved leave the block */
  Vec kept = {0};
  for (int i = 0; i < b->stmts.len; i++) {
    bool moved = false;
    for (int o = 0; o < a->ops.len && !moved; o++)
      moved = a->ops.data[o] == b->stmts.data[i];
    if (!moved)
      vec_push(&kept, b->stmts.data[i]);
  }
  b->stmts = kept;
  ps->runs++;
}

/* Each run of 'b' whose REDUCEs' values may stay on the device; the
   blocks inside first. */
static void rewrite_block(Pass *ps, LcuBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    LcuBlock *nested[3] = {s->then, s->els, s->body};
    for (int n = 0; n < 3; n++)
      if (nested[n])
        rewrite_block(ps, nested[n]);
  }
  for (int i = 0; i < b->stmts.len; i++) {
    LcuStmt *s = b->stmts.data[i];
    if (s->kind != LS_RUN)
      continue;
    Mask want = movable_reduces(s);
    if (!want)
      continue;
    LcuDefUse du;
    lcu_fill_def_use(b, &du);
    PtrMap index_of = {0};
    for (int j = 0; j < b->stmts.len; j++)
      ptrmap_put(&index_of, b->stmts.data[j], (void *)(intptr_t)(j + 1));
    while (want) {
      Attempt a = {.b = b, .run = s, .at = i};
      Mask bad = attempt(ps, &a, &du, &index_of, want);
      if (!bad) {
        rewrite(ps, &a, b);
        break;
      }
      want &= ~bad;
    }
  }
}

int fus_scalars_on_device(LcuProgram *p) {
  Pass ps = {.p = p};
  for (int i = 0; i < p->funcs.len + p->tops.len; i++) {
    LcuBlock *body = i < p->funcs.len ? ((LcuFunc *)p->funcs.data[i])->body
                                      : ((LcuTop *)p->tops.data[i - p->funcs.len])->body;
    if (!body || (i < p->funcs.len && ((LcuFunc *)p->funcs.data[i])->each))
      continue;
    FusFacts f = {0};
    fus_fill_facts(body, &f);
    ps.facts = &f;
    rewrite_block(&ps, body);
    fus_release_facts(&f);
  }
  if (ps.runs)
    lcu_prune_kernels(p);
  return ps.runs;
}
