/*
 * devcheck.c: the argument checks that the GPU target makes on the device.
 *
 * Lowering tests a lifted argument check (NESL's `check`: a subscript, a
 * range, generators of equal lengths) by a REDUCE that finds the first
 * element failing it and gives that element's operands, and a `check`
 * statement after the `run` tests them on the host.  On the GPU that is a
 * read of the REDUCE's value: a wait, after which the device idles until
 * the host launches again (quicksort's recursion made eight a level).
 * Where nothing but such checks reads the values, the kernel keeps them
 * on the device and tests them there after its last SOAC (cuda.c; rt/
 * gpu.cuh, check_result), and the `check` statements generate nothing.
 *
 * The error is then found where the host waits next, as a kernel's
 * recorded error is, and it must be the one the host's check would have
 * reported: the errors of everything launched before the check come
 * first (the device records the check's only if none is recorded yet),
 * and nothing after it may stop the statement first.  So a check moves
 * to the device only where it stands right after its `run`, with only
 * such checks between them; in the context of the `run` (the same
 * library function inlined, if any), which the launch records; and the
 * checks of one REDUCE come together, so that testing them a REDUCE at
 * a time keeps their order.  A kernel is generated once for all its
 * runs, so it makes its checks on the device only if every run of it
 * has the same checks after it (each run passes the checks' sites).
 */
#include <string.h>

#include "codegen.h"

/* ---- one run's checks ---- */

typedef struct Planner {
  Cg *cg;
  PtrMap globals; /* LcuVar -> itself: readable by other statements */
  PtrMap runs;    /* LcuStmt (a run) -> Vec * of its checks (LcuStmt *) */
  PtrMap found;   /* LcuKernel -> Vec * of CgDevCheck *: the first run's
                     template, or the kernel itself where runs disagree */
} Planner;

/* May the values of REDUCE 'index' of 'k' stay on the device: none a
   float (its sum's grouping would change), none read by a later SOAC? */
static bool reduce_may_stay(const LcuKernel *k, int index) {
  const LcuSoac *s = k->soacs.data[index];
  if (s->kind != SOAC_REDUCE)
    return false;
  for (int v = 0; v < s->results.len; v++) {
    const LcuVar *r = s->results.data[v];
    if (r->type.kind != LT_SCALAR || r->type.base == FB_FLOAT)
      return false;
    for (int j = index + 1; j < k->soacs.len; j++)
      if (lcu_soac_reads(k->soacs.data[j], r))
        return false;
  }
  return true;
}

/* Run 's''s variable bound to value 'v' of SOAC 'index' of its kernel, or
   NULL if the kernel does not return it. */
static const LcuVar *run_var(const LcuStmt *s, int index, int v) {
  const LcuKernel *k = s->kernel;
  const LcuVar *r = ((const LcuSoac *)k->soacs.data[index])->results.data[v];
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == r)
      return s->results.data[i];
  return NULL;
}

/* Check 'c' as a CgDevCheck of run 's', or NULL if it cannot be made on
   the device: an operand neither a constant int nor a value of a REDUCE
   of 's' that may stay there, or values of two REDUCEs, or a context not
   the run's. */
static CgDevCheck *as_device_check(const Planner *pl, const LcuStmt *s, const LcuStmt *c) {
  if (c->args.len > 3 || !lcu_loc_equal(c->user_loc, s->user_loc) ||
      (c->lib_fn != s->lib_fn && (!c->lib_fn || !s->lib_fn || strcmp(c->lib_fn, s->lib_fn) != 0)))
    return NULL;
  const LcuKernel *k = s->kernel;
  CgDevCheck *d = xmalloc(sizeof *d);
  d->kind = c->check;
  d->soac = -1;
  for (int a = 0; a < 3; a++) {
    d->value[a] = -1;
    d->constant[a] = 0;
  }
  for (int a = 0; a < c->args.len; a++) {
    const LcuAtom *x = c->args.data[a];
    if (!x->var) {
      if (x->constant.kind != FA_INT)
        return NULL;
      d->constant[a] = x->constant.u.i;
      continue;
    }
    if (ptrmap_get(&pl->globals, x->var))
      return NULL;
    bool found = false;
    for (int j = 0; j < k->soacs.len && !found; j++) {
      const LcuSoac *r = k->soacs.data[j];
      if (r->kind != SOAC_REDUCE)
        continue;
      for (int v = 0; v < r->results.len && !found; v++)
        if (run_var(s, j, v) == x->var) {
          if ((d->soac >= 0 && d->soac != j) || !reduce_may_stay(k, j))
            return NULL;
          d->soac = j;
          d->value[a] = v;
          found = true;
        }
    }
    if (!found)
      return NULL;
  }
  return d->soac >= 0 ? d : NULL;
}

/* Does every read of a value of REDUCE 'index' of run 's' come from
   'checks'?  'du': the def-use chains of the run's block, whose
   statements are all that can read what the run binds (a read in a
   nested block counts as its statement's). */
static bool only_checks_read(const LcuDefUse *du, const LcuStmt *s, int index, const Vec *checks) {
  const LcuSoac *r = ((const LcuKernel *)s->kernel)->soacs.data[index];
  for (int v = 0; v < r->results.len; v++) {
    const LcuVar *x = run_var(s, index, v);
    if (!x)
      continue;
    if (ptrmap_get(&du->live_out, x))
      return false;
    const Vec *readers = ptrmap_get(&du->uses, x);
    for (int i = 0; readers && i < readers->len; i++) {
      bool checked = false;
      for (int c = 0; c < checks->len && !checked; c++)
        checked = checks->data[c] == readers->data[i];
      if (!checked)
        return false;
    }
  }
  return true;
}

/* The checks run 's' (statement 'at' of 'b') may make on the device: the
   longest run of checks right after it that can (as_device_check), each
   REDUCE's together, cut where a REDUCE's values are read by anything
   else (then its checks stay on the host, and so must every check after
   the first of them). */
static Vec *plan_run(const Planner *pl, const LcuBlock *b, int at, Vec *templ) {
  const LcuStmt *s = b->stmts.data[at];
  Vec *checks = xmalloc(sizeof *checks);
  *checks = (Vec){0};
  *templ = (Vec){0};
  for (int i = at + 1; i < b->stmts.len; i++) {
    const LcuStmt *c = b->stmts.data[i];
    if (c->kind != LS_CHECK)
      break;
    CgDevCheck *d = as_device_check(pl, s, c);
    if (!d)
      break;
    /* back to a REDUCE whose checks came before another's: stop */
    bool apart = false;
    for (int j = 0; j + 1 < templ->len; j++)
      if (((CgDevCheck *)templ->data[j])->soac == d->soac && ((CgDevCheck *)templ->data[templ->len - 1])->soac != d->soac)
        apart = true;
    if (apart)
      break;
    vec_push(checks, (void *)c);
    vec_push(templ, d);
  }
  /* cut at the first check of a REDUCE read elsewhere, until none is */
  LcuDefUse du;
  if (templ->len)
    lcu_fill_def_use(b, &du);
  for (bool cut = templ->len > 0; cut;) {
    cut = false;
    for (int i = 0; i < templ->len && !cut; i++) {
      int index = ((CgDevCheck *)templ->data[i])->soac;
      if (!only_checks_read(&du, s, index, checks)) {
        int first = 0;
        while (((CgDevCheck *)templ->data[first])->soac != index)
          first++;
        checks->len = templ->len = first;
        cut = true;
      }
    }
  }
  return checks;
}

static bool same_checks(const Vec *a, const Vec *b) {
  if (a->len != b->len)
    return false;
  for (int i = 0; i < a->len; i++) {
    const CgDevCheck *x = a->data[i], *y = b->data[i];
    if (x->kind != y->kind || x->soac != y->soac)
      return false;
    for (int o = 0; o < 3; o++)
      if (x->value[o] != y->value[o] || x->constant[o] != y->constant[o])
        return false;
  }
  return true;
}

/* visit(pl, b, i) for each run, statement i of block b, in 'b' and the
   blocks inside it, inner blocks first. */
typedef void RunVisit(Planner *pl, const LcuBlock *b, int at);

static void each_run(Planner *pl, const LcuBlock *b, RunVisit *visit) {
  for (int i = 0; i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->then)
      each_run(pl, s->then, visit);
    if (s->els)
      each_run(pl, s->els, visit);
    if (s->body)
      each_run(pl, s->body, visit);
    if (s->kind == LS_RUN)
      visit(pl, b, i);
  }
}

/* A run's checks, and its kernel's template: the first run's, or the
   kernel itself where its runs disagree. */
static void plan_one(Planner *pl, const LcuBlock *b, int at) {
  const LcuStmt *s = b->stmts.data[at];
  Vec *templ = xmalloc(sizeof *templ);
  Vec *checks = plan_run(pl, b, at, templ);
  ptrmap_put(&pl->runs, s, checks);
  void **slot = ptrmap_slot(&pl->found, s->kernel, true);
  if (!*slot)
    *slot = templ;
  else if (*slot != s->kernel && !same_checks(*slot, templ))
    *slot = s->kernel; /* runs that disagree: none on the device */
}

/* Keeps a run's checks if its kernel's runs all agree (and have one). */
static void keep_agreed(Planner *pl, const LcuBlock *b, int at) {
  const LcuStmt *s = b->stmts.data[at];
  Vec *templ = ptrmap_get(&pl->found, s->kernel);
  const Vec *checks = ptrmap_get(&pl->runs, s);
  if (templ == (const void *)s->kernel || templ->len == 0)
    return;
  ptrmap_put(&pl->cg->dev_checks, s->kernel, templ);
  ptrmap_put(&pl->cg->dev_runs, s, (void *)checks);
  for (int c = 0; c < checks->len; c++)
    ptrmap_put(&pl->cg->dev_checked, checks->data[c], checks->data[c]);
}

/* each_run over every function's body and every top-level statement's. */
static void each_program_run(Planner *pl, RunVisit *visit) {
  const LcuProgram *p = pl->cg->p;
  for (int i = 0; i < p->funcs.len; i++)
    if (!((const LcuFunc *)p->funcs.data[i])->each) /* an element function runs no kernel */
      each_run(pl, ((const LcuFunc *)p->funcs.data[i])->body, visit);
  for (int i = 0; i < p->tops.len; i++) {
    const LcuTop *t = p->tops.data[i];
    if (t->body)
      each_run(pl, t->body, visit);
  }
}

void cg_plan_device_checks(Cg *cg) {
  const LcuProgram *p = cg->p;
  Planner pl = {.cg = cg};
  for (int i = 0; i < p->globals.len; i++)
    ptrmap_put(&pl.globals, p->globals.data[i], p->globals.data[i]);
  for (int i = 0; i < p->tops.len; i++) {
    const LcuTop *t = p->tops.data[i];
    for (int g = 0; g < t->defines.len; g++)
      ptrmap_put(&pl.globals, t->defines.data[g], t->defines.data[g]);
  }
  each_program_run(&pl, plan_one);
  each_program_run(&pl, keep_agreed);
}

const Vec *cg_device_checks(const Cg *cg, const LcuKernel *k) { return ptrmap_get(&cg->dev_checks, k); }

const Vec *cg_run_device_checks(const Cg *cg, const LcuStmt *run) { return ptrmap_get(&cg->dev_runs, run); }

bool cg_check_on_device(const Cg *cg, const LcuStmt *check) { return ptrmap_get(&cg->dev_checked, check) != NULL; }

bool cg_reduce_on_device(const Cg *cg, const LcuKernel *k, int index) {
  const Vec *d = cg_device_checks(cg, k);
  if (d)
    for (int i = 0; i < d->len; i++)
      if (((const CgDevCheck *)d->data[i])->soac == index)
        return true;
  return false;
}

const char *cg_check_params(const Cg *cg, const LcuKernel *k) {
  const Vec *d = cg_device_checks(cg, k);
  Buf b = {0};
  for (int i = 0; d && i < d->len; i++)
    buf_printf(&b, ", int check_site_%d", i);
  return buf_str(&b);
}
