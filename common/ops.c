/*
 * ops.c: the facts about the IRs' shared vocabulary (ops.h): the
 * operations' names, arities and signatures, types, constants.
 *
 * The table of operations is the runtime's rt/ops.def (rt/ops.c reads
 * its columns), so that adding an operation to the .def file is the only
 * change this file ever needs.  Everything is allocated through the
 * collector and never freed (common.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "syntax.h"

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

/* ---- constants ---- */

static FlatAtom *constant(FlatAtomKind kind) {
  FlatAtom *a = NEW(FlatAtom);
  a->kind = kind;
  return a;
}

FlatAtom *flat_int_atom(int32_t i) {
  FlatAtom *a = constant(FA_INT);
  a->u.i = i;
  return a;
}

FlatAtom *flat_float_atom(double f) {
  FlatAtom *a = constant(FA_FLOAT);
  a->u.f = f;
  return a;
}

FlatAtom *flat_bool_atom(bool b) {
  FlatAtom *a = constant(FA_BOOL);
  a->u.b = b;
  return a;
}

FlatAtom *flat_char_atom(char c) {
  FlatAtom *a = constant(FA_CHAR);
  a->u.c = c;
  return a;
}

FlatType flat_const_type(const FlatAtom *a) {
  switch (a->kind) {
  case FA_VAR:
    die("flat_const_type: a variable");
  case FA_INT:
    return flat_scalar(FB_INT);
  case FA_FLOAT:
    return flat_scalar(FB_FLOAT);
  case FA_BOOL:
    return flat_scalar(FB_BOOL);
  case FA_CHAR:
    return flat_scalar(FB_CHAR);
  }
  die("constant kind %d does not exist", (int)a->kind);
}

/* ---- signatures (rt/ops.def's columns) ---- */

typedef struct Word {
  char kind, base;
} Word;

/* The words of signature 'sig' into 'w' (at most 'max'); '*repeat': the
   last one repeats. */
static int parse_words(const char *sig, Word *w, int max, bool *repeat) {
  int n = 0;
  if (repeat)
    *repeat = false;
  for (const char *p = sig; *p;) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    if (n == max)
      die("signature '%s' has too many words", sig);
    w[n].kind = *p++;
    w[n].base = *p && *p != ' ' && *p != '+' ? *p++ : 0;
    if (*p == '+') {
      if (repeat)
        *repeat = true;
      p++;
    }
    n++;
  }
  return n;
}

/* Does base 'b' belong to class 'c' of the notation? */
static bool base_in(char c, FlatBase b) {
  switch (c) {
  case 'i':
    return b == FB_INT;
  case 'f':
    return b == FB_FLOAT;
  case 'b':
    return b == FB_BOOL;
  case 'c':
    return b == FB_CHAR;
  case 'n':
    return b == FB_INT || b == FB_FLOAT;
  case 'o':
    return b != FB_BOOL;
  case 'l':
    return b == FB_INT || b == FB_BOOL;
  default:
    return true;
  }
}

/* "an int", "a [:float:]", "a segdes" */
static const char *a_type(FlatType t) {
  const char *name = flat_type_name(t);
  return xprintf("%s %s", name[0] == 'i' ? "an" : "a", name);
}

static FlatBase base_named(char c) {
  return c == 'f' ? FB_FLOAT : c == 'b' ? FB_BOOL : c == 'c' ? FB_CHAR : FB_INT;
}

Vec *flat_op_result_types(FlatOp op, const FlatType *args, int n, const char **why) {
  const char *name = flat_op_name(op);
  const char *as = rt_op_args(flat_rt_op(op)), *rs = rt_op_results(flat_rt_op(op));
  if (!as || !rs)
    die("%s: its arguments follow a layout, not a signature", name);
  Word aw[8], rw[8];
  bool repeat;
  int na = parse_words(as, aw, 8, &repeat), nr = parse_words(rs, rw, 8, NULL);
  if (repeat ? n < na : n != na) {
    *why = xprintf("%s takes %s%d arguments, not %d", name, repeat ? "at least " : "", na, n);
    return NULL;
  }
  int first_e = -1; /* the first element-wise argument: its kind is theirs */
  for (int i = 0; i < n; i++) {
    Word w = aw[i < na ? i : na - 1];
    FlatType t = args[i];
    switch (w.kind) {
    case 'e':
      if (t.kind == FT_SEGDES) {
        *why = xprintf("%s: an element-wise operation on %s", name, a_type(t));
        return NULL;
      }
      if (first_e < 0) {
        first_e = i;
      } else if (t.kind != args[first_e].kind) {
        *why = xprintf("%s: mixes %s and %s", name, a_type(args[first_e]), a_type(t));
        return NULL;
      }
      break;
    case 's':
    case 'v':
    case 'd':
      if (t.kind != (w.kind == 's' ? FT_SCALAR : w.kind == 'v' ? FT_VEC : FT_SEGDES)) {
        *why = xprintf("%s: argument %d is %s", name, i + 1, a_type(t));
        return NULL;
      }
      break;
    default: /* 'x': any kind */
      break;
    }
    if (w.kind == 'd' || !w.base)
      continue;
    if (i >= na && t.base != args[na - 1].base) { /* a repeated word: one base */
      *why = xprintf("%s: arguments %d and %d are %s and %s", name, na, i + 1, a_type(args[na - 1]), a_type(t));
      return NULL;
    }
    if (w.base >= '1' && w.base <= '9') {
      int k = w.base - '1';
      if (args[k].base != t.base) {
        *why = xprintf("%s: arguments %d and %d are %s and %s", name, k + 1, i + 1, a_type(args[k]), a_type(t));
        return NULL;
      }
    } else if (!base_in(w.base, t.base)) {
      *why = xprintf("%s: argument %d is %s", name, i + 1, a_type(t));
      return NULL;
    }
  }
  Vec *results = NEW(Vec);
  for (int r = 0; r < nr; r++) {
    Word w = rw[r];
    FlatType *t = NEW(FlatType);
    if (w.kind == 'x') {
      *t = args[w.base - '1'];
    } else if (w.kind == 'd') {
      *t = flat_segdes();
    } else {
      FlatBase b = w.base >= '1' && w.base <= '9' ? args[w.base - '1'].base : base_named(w.base);
      FlatTypeKind k = w.kind == 's' ? FT_SCALAR : w.kind == 'v' ? FT_VEC : args[first_e].kind;
      *t = (FlatType){k, b};
    }
    vec_push(results, t);
  }
  return results;
}

/* ---- constants as text ---- */

void flat_print_const(FILE *out, const FlatAtom *a) {
  switch (a->kind) {
  case FA_INT:
    fprintf(out, "%d", (int)a->u.i);
    return;
  case FA_FLOAT:
    fputs(nesl_float_text(a->u.f), out);
    return;
  case FA_BOOL:
    fputs(a->u.b ? "T" : "F", out);
    return;
  case FA_CHAR:
    /* a character that would break the line prints as the expression
       that makes it */
    if (isprint((unsigned char)a->u.c))
      fprintf(out, "`%c", a->u.c);
    else
      fprintf(out, "code_char(%d)", (unsigned char)a->u.c);
    return;
  case FA_VAR:
    break;
  }
  die("flat_print_const: not a constant");
}
