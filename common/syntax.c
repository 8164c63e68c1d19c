/*
 * syntax.c: the facts of NESL's operators (syntax.def), as tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syntax.h"

static const char *binop_texts[] = {
#define BINOP(name, text, power, libname) text,
#include "syntax.def"
};
static const char *binop_libnames[] = {
#define BINOP(name, text, power, libname) libname,
#include "syntax.def"
};
static const int binop_powers[] = {
#define BINOP(name, text, power, libname) power,
#include "syntax.def"
};
static const char *unop_texts[] = {
#define UNOP(name, text, power, libname) text,
#include "syntax.def"
};
static const char *unop_libnames[] = {
#define UNOP(name, text, power, libname) libname,
#include "syntax.def"
};

const char *binop_text(BinOp op) { return binop_texts[op]; }
const char *binop_libname(BinOp op) { return binop_libnames[op]; }
int binop_power(BinOp op) { return binop_powers[op]; }
const char *unop_text(UnOp op) { return unop_texts[op]; }
const char *unop_libname(UnOp op) { return unop_libnames[op]; }

const char *ast_operator_for_libname(const char *libname) {
  for (int i = 0; i < BIN_COUNT; i++)
    if (strcmp(binop_libnames[i], libname) == 0)
      return binop_texts[i];
  for (int i = 0; i < UN_COUNT; i++)
    if (strcmp(unop_libnames[i], libname) == 0)
      return unop_texts[i];
  return NULL;
}

/* Shortest text that reads back as exactly 'v', always with a point, and
   in NESL's exponent syntax (1.5e20, no '+'). */
char *nesl_float_text(double v) {
  Buf out = {0};
  Buf *b = &out;
  char text[64];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(text, sizeof text, "%.*g", prec, v);
    if (strtod(text, NULL) == v)
      break;
  }
  char mant[64], *e = strchr(text, 'e');
  const char *expo = NULL;
  if (e) {
    *e = '\0';
    expo = e + 1;
  }
  snprintf(mant, sizeof mant, "%s", text);
  buf_puts(b, mant);
  if (!strchr(mant, '.'))
    buf_puts(b, ".0");
  if (expo) {
    buf_putc(b, 'e');
    if (*expo == '+')
      expo++;
    if (*expo == '-') {
      buf_putc(b, '-');
      expo++;
    }
    while (*expo == '0' && expo[1])
      expo++;
    buf_puts(b, expo);
  }
  return buf_str(b);
}
