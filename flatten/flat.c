/*
 * flat.c: the flat IR's constructors and the facts about its operations
 * and types that every pass shares.
 *
 * The table of operations is the runtime's rt/ops.def (rt/ops.c reads
 * its columns), so that adding an operation to the .def file is the only
 * change this file ever needs.  Everything is
 * allocated through the collector and never freed (common.h).
 */
#include "flat.h"

/* ---- operations ---- */

static void check_op(FlatOp op) {
  if ((unsigned)op >= FLAT_OP_COUNT)
    die("flat operation %d does not exist", (int)op);
}

const char *flat_op_name(FlatOp op) {
  check_op(op);
  return rt_op_name(flat_rt_op(op));
}

int flat_op_nargs(FlatOp op) {
  check_op(op);
  return rt_op_nargs(flat_rt_op(op));
}

int flat_op_nresults(FlatOp op) {
  check_op(op);
  return rt_op_nresults(flat_rt_op(op));
}

/* ---- types ---- */

FlatType flat_scalar(FlatBase b) { return (FlatType){FT_SCALAR, b}; }
FlatType flat_vec(FlatBase b) { return (FlatType){FT_VEC, b}; }
/* the base is meaningless for a segdes; it is left at FB_INT so that two
   segdes types compare equal field by field as well */
FlatType flat_segdes(void) { return (FlatType){FT_SEGDES, FB_INT}; }

bool flat_type_equal(FlatType a, FlatType b) {
  if (a.kind != b.kind)
    return false;
  return a.kind == FT_SEGDES || a.base == b.base;
}

static const char *base_name(FlatBase b) {
  switch (b) {
  case FB_INT:
    return "int";
  case FB_FLOAT:
    return "float";
  case FB_BOOL:
    return "bool";
  case FB_CHAR:
    return "char";
  }
  die("flat base type %d does not exist", (int)b);
}

const char *flat_type_name(FlatType t) {
  switch (t.kind) {
  case FT_SCALAR:
    return base_name(t.base);
  case FT_VEC:
    switch (t.base) {
    case FB_INT:
      return "[:int:]";
    case FB_FLOAT:
      return "[:float:]";
    case FB_BOOL:
      return "[:bool:]";
    case FB_CHAR:
      return "[:char:]";
    }
    break;
  case FT_SEGDES:
    return "segdes";
  }
  die("flat type kind %d does not exist", (int)t.kind);
}

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

FlatAtom *flat_int_atom(int32_t i) {
  FlatAtom *a = NEW(FlatAtom);
  a->kind = FA_INT;
  a->u.i = i;
  return a;
}

FlatAtom *flat_float_atom(double f) {
  FlatAtom *a = NEW(FlatAtom);
  a->kind = FA_FLOAT;
  a->u.f = f;
  return a;
}

FlatAtom *flat_bool_atom(bool b) {
  FlatAtom *a = NEW(FlatAtom);
  a->kind = FA_BOOL;
  a->u.b = b;
  return a;
}

FlatAtom *flat_char_atom(char c) {
  FlatAtom *a = NEW(FlatAtom);
  a->kind = FA_CHAR;
  a->u.c = c;
  return a;
}

FlatType flat_atom_type(const FlatAtom *a) {
  switch (a->kind) {
  case FA_VAR:
    return a->u.var->type;
  case FA_INT:
    return flat_scalar(FB_INT);
  case FA_FLOAT:
    return flat_scalar(FB_FLOAT);
  case FA_BOOL:
    return flat_scalar(FB_BOOL);
  case FA_CHAR:
    return flat_scalar(FB_CHAR);
  }
  die("flat atom kind %d does not exist", (int)a->kind);
}
