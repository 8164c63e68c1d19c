/*
 * flat.c: the flat IR's constructors: variables and their atoms.  The
 * operations, types and constants it shares with λcu are common/ops.c's.
 * Everything is allocated through the collector and never freed
 * (common.h).
 */
#include <string.h>

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

/* ---- cost statements ---- */

static const char *const cost_rule_names[] = {"size",  "unit", "sort", "each", "done",
                                              "split", "join", "off",  "on"}; /* ORDER FlatCostRule */
_Static_assert(sizeof cost_rule_names / sizeof cost_rule_names[0] == FLAT_COST_COUNT, "a name per cost rule");

const char *flat_cost_rule_name(FlatCostRule r) { return (unsigned)r < FLAT_COST_COUNT ? cost_rule_names[r] : "?"; }

int flat_cost_rule_lookup(const char *name) {
  for (int i = 0; i < FLAT_COST_COUNT; i++)
    if (strcmp(cost_rule_names[i], name) == 0)
      return i;
  return -1;
}

const char *flat_cost_check(FlatCostRule r, bool lifted, const FlatType *args, int n) {
  FlatType int_scalar = flat_scalar(FB_INT);
  if (lifted && (n < 1 || !flat_type_equal(args[0], int_scalar)))
    return "lifted, its first argument is the context's length, an int scalar";
  switch (r) {
  case FLAT_COST_SIZE:
  case FLAT_COST_UNIT:
  case FLAT_COST_SORT:
    for (int i = lifted ? 1 : 0; i < n; i++) {
      bool is_int = flat_type_equal(args[i], int_scalar);
      if (lifted ? args[i].kind != FT_SEGDES && !is_int : args[i].kind == FT_SCALAR && !is_int)
        return "a size is a segdes, an int scalar or, at the host, a vector";
    }
    return NULL;
  case FLAT_COST_EACH:
  case FLAT_COST_DONE:
    if (lifted)
      return n == 2 && args[1].kind == FT_SEGDES ? NULL : "lifted, it takes the context's length and a segdes";
    return n == 1 && flat_type_equal(args[0], int_scalar) ? NULL : "at the host, it takes an int scalar";
  case FLAT_COST_SPLIT:
  case FLAT_COST_JOIN:
    if (!lifted)
      return "it is made in a lifted context only";
    return n == 2 && flat_type_equal(args[1], flat_vec(FB_BOOL)) ? NULL
                                                                 : "it takes the context's length and a [:bool:]";
  case FLAT_COST_OFF:
  case FLAT_COST_ON:
    return !lifted && n == 0 ? NULL : "it is made at the host, without arguments";
  case FLAT_COST_COUNT:
    break;
  }
  return "no such rule";
}

bool flat_func_takes_vectors(const FlatFunc *f) {
  for (int i = 0; i < f->params.len; i++)
    if (((const FlatVar *)f->params.data[i])->type.kind == FT_VEC)
      return true;
  return false;
}

int flat_each_arg(const FlatStmt *s, int param, bool *shared) {
  const FlatFunc *f = s->callee;
  int k = 0;
  for (int i = 0; i < f->params.len && k < s->args.len; i++) {
    bool vec = ((const FlatVar *)f->params.data[i])->type.kind == FT_VEC;
    bool one = vec && flat_atom_type(s->args.data[k]).kind != FT_SEGDES;
    if (i == param) {
      if (shared)
        *shared = one;
      return k;
    }
    k += vec && !one ? 2 : 1;
  }
  return -1;
}
