/*
 * flat.c: the flat IR's constructors: variables and their atoms.  The
 * operations, types and constants it shares with λcu are common/ops.c's.
 * Everything is allocated through the collector and never freed
 * (common.h).
 */
#include "flat.h"

/* ---- variables and atoms ---- */

FlatVar *flat_new_var(FlatProgram *p, FlatType type, const char *hint) {
  FlatVar *v = NEW(FlatVar);
  v->id = p->next_var++;
  v->hint = hint;
  v->type = type;
  return v;
}

FlatAtom *flat_var_atom(FlatVar *v) {
  if (!v)
    die("flat_var_atom: no variable");
  FlatAtom *a = NEW(FlatAtom);
  a->kind = FA_VAR;
  a->u.var = v;
  return a;
}

FlatType flat_atom_type(const FlatAtom *a) {
  return a->kind == FA_VAR ? a->u.var->type : flat_const_type(a);
}

void flat_layout_types(const RtLayout *l, bool host, Vec *out) {
  int n = rt_layout_count(l, host);
  RtType *types = xmalloc(sizeof(RtType) * (size_t)(n + 1));
  rt_layout_types(l, host, types);
  for (int i = 0; i < n; i++) {
    FlatType *t = NEW(FlatType);
    *t = types[i];
    vec_push(out, t);
  }
}
