/*
 * syntax.h: NESL's operators as the source spells them (syntax.def):
 * their spelling, binding power and library function.  The parser and
 * the AST printer read NESL with them, λcu's printer writes its thunks
 * in NESL's syntax with them, and the runtime names an operator in an
 * error message from the same table.
 */
#ifndef NESSIE_SYNTAX_H
#define NESSIE_SYNTAX_H

#include "common.h"

/* ---- operators (syntax.def) ---- */

typedef enum BinOp {
#define BINOP(name, text, power, libname) BIN_##name,
#include "syntax.def"
  BIN_COUNT
} BinOp;

typedef enum UnOp {
#define UNOP(name, text, power, libname) UN_##name,
#include "syntax.def"
  UN_COUNT
} UnOp;

const char *binop_text(BinOp op);    /* "+" */
const char *binop_libname(BinOp op); /* "__add" */
int binop_power(BinOp op);
const char *unop_text(UnOp op);
const char *unop_libname(UnOp op);
/* The spelling of the operator whose library function is 'libname'
   ("__add" -> "+"), or NULL. */
const char *ast_operator_for_libname(const char *libname);

/* The shortest text that reads back as exactly 'v', always with a
   point, in NESL's exponent syntax (1.5e20, no '+'): a float literal. */
char *nesl_float_text(double v);

#endif
