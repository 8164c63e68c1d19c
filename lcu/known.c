/*
 * known.c: kernels known before they are built.
 *
 * Lowering makes most kernels many times over: library code is inlined
 * at every call, and each inlined copy lowers to the same kernels
 * (lib_lifted built 6148 kernels, 93 of them distinct, and building and
 * interning them was most of what lowering cost).  So a kernel of the
 * common forms is first described by what its builder would be given:
 * the form, each operand as a constant or as the CPU variable a
 * parameter stands for (numbered by first use, with its type) and how it
 * is read, the results' types.  The builder is a function of these, so
 * that two equal descriptions make kernels of one canonical text: a
 * description seen before names its kernel, and the run is made without
 * building it again.  The description holds no address: its CPU
 * variables are numbered, and constants are written by value.
 */
#include <string.h>

#include "lcu.h"

void lcu_plan_begin(LcuPlan *pl, char form) {
  pl->text.len = 0;
  pl->vars.len = 0;
  buf_putc(&pl->text, form);
}

void lcu_plan_int(LcuPlan *pl, int64_t i) {
  buf_putc(&pl->text, ' ');
  buf_put_int(&pl->text, i);
}

void lcu_plan_type(LcuPlan *pl, LcuType t) {
  buf_putc(&pl->text, 't');
  buf_put_int(&pl->text, t.kind);
  buf_putc(&pl->text, '/');
  buf_put_int(&pl->text, t.base);
}

void lcu_plan_const(LcuPlan *pl, FlatAtom a) {
  buf_putc(&pl->text, 'c');
  buf_put_int(&pl->text, a.kind);
  buf_putc(&pl->text, '/');
  switch (a.kind) {
  case FA_INT:
    buf_put_int(&pl->text, a.u.i);
    break;
  case FA_FLOAT: {
    uint64_t bits; /* bit for bit: equal bits print equal */
    memcpy(&bits, &a.u.f, sizeof bits);
    buf_put_hex64(&pl->text, bits);
    break;
  }
  case FA_BOOL:
    buf_put_int(&pl->text, a.u.b);
    break;
  case FA_CHAR:
    buf_put_int(&pl->text, (unsigned char)a.u.c);
    break;
  default:
    buf_putc(&pl->text, '?');
  }
  buf_putc(&pl->text, ' ');
}

void lcu_plan_var(LcuPlan *pl, char how, LcuVar *v) {
  int slot = 0;
  while (slot < pl->vars.len && pl->vars.data[slot] != v)
    slot++;
  buf_putc(&pl->text, how);
  buf_put_int(&pl->text, slot);
  if (slot == pl->vars.len) { /* a new parameter: its type */
    vec_push(&pl->vars, v);
    lcu_plan_type(pl, v->type);
  }
  buf_putc(&pl->text, ' ');
}

LcuKnownKernel *lcu_known_kernel(const LcuKnownKernels *t, LcuPlan *pl) {
  return map_get(&t->by_plan, buf_str(&pl->text));
}

bool lcu_know_kernel(LcuKnownKernels *t, LcuPlan *pl, LcuKernel *k, const Vec *args, int kernel_vars) {
  LcuKnownKernel *known = NEW(LcuKnownKernel);
  known->k = k;
  known->kernel_vars = kernel_vars;
  known->nparams = args->len;
  known->param_var = xmalloc_atomic(sizeof(int) * (size_t)(args->len + 1));
  for (int j = 0; j < args->len; j++) {
    const LcuAtom *a = args->data[j];
    int slot = 0;
    while (slot < pl->vars.len && pl->vars.data[slot] != a->var)
      slot++;
    if (!a->var || slot == pl->vars.len)
      return false; /* a parameter the description does not name */
    known->param_var[j] = slot;
  }
  map_put(&t->by_plan, xstrdup(buf_str(&pl->text)), known);
  return true;
}
