/*
 * ops.h: the vocabulary the compiler's IRs share: the operations (the
 * runtime's list, rt/ops.def, which stays the one list), the base types
 * and representation types of values, and constants.
 *
 * The flat IR (flat/flat.h) and λcu (lcu/lcu.h) are both written in these
 * words, and so are fusion and code generation, which see only λcu: with
 * this header of its own, neither IR's header needs the other's, nor the
 * front end's.  The names keep the flat IR's prefix (FlatOp, FB_INT,
 * FlatAtom), where they were born; a base type is the runtime's RtBase,
 * since an IR's types are the runtime's representation types, so the
 * runtime's plain data header (rt/rt.h) comes with it.
 */
#ifndef NESSIE_OPS_H
#define NESSIE_OPS_H

#include "../rt/rt.h"
#include "common.h"

struct FlatVar;

/* The operations are the runtime's (rt/ops.def: names, classes,
   signatures), FLAT_ADD being RT_ADD. */
typedef enum FlatOp {
#define FLAT_OP(name, text, class, args, results, combine) FLAT_##name,
#include "../rt/ops.def"
  FLAT_OP_COUNT
} FlatOp;

const char *flat_op_name(FlatOp op);
int flat_op_nargs(FlatOp op);    /* -1: any number */
int flat_op_nresults(FlatOp op); /* -1: any number */
static inline RtOp flat_rt_op(FlatOp op) { return (RtOp)op; }
/* A comparison (EQ NE LT GT LE GE): its result is a bool whatever its
   operands' base.  ORDER FLAT_OP: they stand together in rt/ops.def. */
static inline bool flat_op_compares(FlatOp op) { return op >= FLAT_EQ && op <= FLAT_GE; }

/* ---- types ---- */

/* The IRs' types are the runtime's representation types (rt.h):
   a component is a scalar, a vector of a base type or a segment
   descriptor, in the IRs as at run time.  The IRs keep their own names for
   them, which are the runtime's. */
typedef RtBase FlatBase;
#define FB_INT RT_INT
#define FB_FLOAT RT_FLOAT
#define FB_BOOL RT_BOOL
#define FB_CHAR RT_CHAR

typedef RtKind FlatTypeKind;
#define FT_SCALAR RT_SCALAR /* one value of a base type */
#define FT_VEC RT_VEC       /* a flat vector of a base type: [:int:] */
#define FT_SEGDES RT_SEGDES /* a segment descriptor: the lengths of consecutive segments */

typedef RtType FlatType;

/* The types of op's results given its arguments' types 'args' (n of
   them), by the signature columns of rt/ops.def; NULL, with the reason in
   '*why', when the arguments do not fit.  The operations whose arguments
   follow a layout (NAME, EQL, HASH, HOST_PRIM) are their caller's to
   check. */
Vec *flat_op_result_types(FlatOp op, const FlatType *args, int n, const char **why); /* FlatType * */
bool flat_type_equal(FlatType a, FlatType b);
const char *flat_type_name(FlatType t); /* "int", "[:float:]", "segdes" */
static inline RtType flat_rt_type(FlatType t) { return t; }
static inline RtBase flat_rt_base(FlatBase b) { return b; }
/* A source location as the runtime sees it. */
static inline RtLoc flat_rt_loc(Loc l) {
  return (RtLoc){l.src ? l.src->name : NULL, l.line, l.col, l.inlined ? l.inlined->rt : NULL};
}

/* ---- constants ---- */

typedef enum FlatAtomKind {
  FA_VAR,   /* a flat variable (flat.h) */
  FA_INT,   /* an int constant */
  FA_FLOAT, /* a float constant */
  FA_BOOL,  /* a bool constant */
  FA_CHAR,  /* a char constant */
} FlatAtomKind;

/* A constant, or (in the flat IR only) a variable: λcu's atoms hold
   their constants as FlatAtoms. */
typedef struct FlatAtom {
  FlatAtomKind kind;
  union {
    struct FlatVar *var; /* the flat IR's (flat.h); λcu keeps its own */
    int32_t i;
    double f;
    bool b;
    char c;
  } u;
} FlatAtom;


/* ---- constants (ops.c) ---- */

FlatAtom *flat_int_atom(int32_t i);
FlatAtom *flat_float_atom(double f);
FlatAtom *flat_bool_atom(bool b);
FlatAtom *flat_char_atom(char c);
/* The type of constant 'a' (not an FA_VAR: the flat IR's
   flat_atom_type gives a variable's). */
FlatType flat_const_type(const FlatAtom *a);
FlatType flat_scalar(FlatBase b);
FlatType flat_vec(FlatBase b);
FlatType flat_segdes(void);

/* Constant 'a' (not an FA_VAR) as NESL source writes it: 3, 2.5, T,
   `c, and code_char(10) for a character that would break the line. */
void flat_print_const(FILE *out, const FlatAtom *a);

#endif
