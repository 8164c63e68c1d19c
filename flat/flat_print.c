/*
 * flat_print.c: the flat IR as text (`--dump=flat`), one statement per
 * line, stable from run to run (variables print by their ids, never by
 * address).
 *
 *   function qsort^ (x1 : segdes, x2 : [:int:]) -> (segdes, [:int:]) {
 *     x3 : int = seg_count x1
 *     (x5 : segdes, x6 : [:int:]) = call qsort^ (x1, x2)
 *     (x8 : [:int:]) = if x7 then {
 *       return (x2)
 *     } else {
 *       return (x6)
 *     }
 *     return (x5, x6)
 *   }
 *
 * A variable prints as x<id>, or <hint>_<id> when it has a hint; where it
 * is bound it also shows its type and, when known, its shape (`#5`: the
 * vectors of shape 5 have one length).  Constants print as NESL literals.
 * The lifted forms of NAME, EQL, HASH and HOST_PRIM are marked `^`, and
 * the NESL types they work on follow in angle brackets; a SEG_RANGE of
 * whole segments, which nothing checks, is `seg_range <segments>`; a vector of
 * character constants prints as a string.  Top-level
 * statements come after the functions, each under a NESL comment with
 * the statement and its type.
 *
 * λcu's printer, whose CPU level is this statement language, prints its
 * constants with common/ops.c's flat_print_const and the nested blocks
 * of `if` and `time` with this file's flat_print_braced, so that both
 * dumps write them alike.
 */
#include <ctype.h>
#include <string.h>

#include "flat.h"

static void print_var(FILE *out, const FlatVar *v) {
  if (v->hint)
    fprintf(out, "%s_%d", v->hint, v->id);
  else
    fprintf(out, "x%d", v->id);
}

/* A variable where it is bound: `x3 : [:int:] #2`. */
static void print_binding(FILE *out, const FlatVar *v) {
  print_var(out, v);
  fprintf(out, " : %s", flat_type_name(v->type));
  if (v->shape)
    fprintf(out, " #%d", v->shape);
  if (v->within) {
    fputs(" in ", out);
    print_var(out, v->within);
  }
}

static void print_atom(FILE *out, const FlatAtom *a) {
  if (a->kind == FA_VAR)
    print_var(out, a->u.var);
  else
    flat_print_const(out, a);
}

/* (a, b, c) */
static void print_atom_tuple(FILE *out, const Vec *atoms) {
  fputc('(', out);
  for (int i = 0; i < atoms->len; i++) {
    if (i)
      fputs(", ", out);
    print_atom(out, atoms->data[i]);
  }
  fputc(')', out);
}

static void print_result_tuple(FILE *out, const Vec *results) {
  fputc('(', out);
  for (int i = 0; i < results->len; i++) {
    if (i)
      fputs(", ", out);
    print_binding(out, results->data[i]);
  }
  fputc(')', out);
}

static void indent_to(FILE *out, int indent) { fprintf(out, "%*s", indent, ""); }

void flat_print_braced(FILE *out, int indent, FlatPrintBlockFn *print, void *ctx, const void *b) {
  fputs("{\n", out);
  print(ctx, b, indent + 2);
  indent_to(out, indent);
  fputc('}', out);
}

/* flat_print_block as flat_print_braced calls it. */
static void print_block(void *out, const void *b, int indent) { flat_print_block(out, b, indent); }

/* True if 's' builds a vector of printable character constants: a
   string, which prints as one ("length mismatch", not `l `e ...). */
static bool is_string_vector(const FlatStmt *s) {
  if (s->op != FLAT_VECTOR || s->args.len == 0)
    return false;
  for (int i = 0; i < s->args.len; i++) {
    const FlatAtom *a = s->args.data[i];
    if (a->kind != FA_CHAR || !isprint((unsigned char)a->u.c))
      return false;
  }
  return true;
}

/* The operation and its arguments: `eq x3 0`, `eql^ <int, [char]> x1 x2`. */
static void print_op(FILE *out, const FlatStmt *s) {
  fputs(flat_op_name(s->op), out);
  if (is_string_vector(s)) {
    fputs(" \"", out);
    for (int i = 0; i < s->args.len; i++) {
      char c = ((FlatAtom *)s->args.data[i])->u.c;
      if (c == '"' || c == '\\')
        fputc('\\', out);
      fputc(c, out);
    }
    fputc('"', out);
    return;
  }
  switch (s->op) {
  case FLAT_NAME:
  case FLAT_EQL:
  case FLAT_HASH:
    if (s->lifted)
      fputc('^', out);
    if (s->elem_name)
      fprintf(out, " <%s>", s->elem_name);
    break;
  case FLAT_HOST_PRIM:
    if (s->lifted)
      fputc('^', out);
    fprintf(out, " %s", s->prim ? s->prim : "?");
    if (s->prim_type)
      fprintf(out, " <%s>", s->prim_type);
    else if (s->elem_name && s->result_name)
      fprintf(out, " <%s -> %s>", s->elem_name, s->result_name);
    break;
  case FLAT_RAND:
    fprintf(out, " <site %d>", s->site);
    break;
  case FLAT_CHECK:
    fprintf(out, " %s", rt_check_name(s->check));
    break;
  case FLAT_REM:
    if (s->segments)
      fputs(" <nonzero>", out);
    break;
  case FLAT_MAKE_SEGDES:
  case FLAT_SEG_RANGE:
  case FLAT_GATHER:
    if (s->segments)
      fputs(s->once ? " <segments once>" : " <segments>", out);
    if (s->total) {
      fputs(" <total ", out);
      print_atom(out, s->total);
      fputc('>', out);
    }
    if (s->guarded)
      fputs(" <guarded>", out);
    break;
  default:
    break;
  }
  for (int i = 0; i < s->args.len; i++) {
    fputc(' ', out);
    print_atom(out, s->args.data[i]);
  }
}

static void print_stmt(FILE *out, const FlatStmt *s, int indent) {
  indent_to(out, indent);
  switch (s->kind) {
  case FS_OP:
    if (s->results.len == 1) {
      print_binding(out, s->results.data[0]);
      fputs(" = ", out);
    } else if (s->results.len > 1) {
      print_result_tuple(out, &s->results);
      fputs(" = ", out);
    }
    print_op(out, s);
    fputc('\n', out);
    return;
  case FS_CALL:
    print_result_tuple(out, &s->results);
    fprintf(out, " = call %s%s ", s->each ? "each " : "", s->callee ? s->callee->name : "?");
    print_atom_tuple(out, &s->args);
    fputc('\n', out);
    return;
  case FS_IF:
    print_result_tuple(out, &s->results);
    fputs(" = if ", out);
    if (s->args.len > 0)
      print_atom(out, s->args.data[0]);
    fputs(" then ", out);
    flat_print_braced(out, indent, print_block, out, s->then);
    fputs(" else ", out);
    flat_print_braced(out, indent, print_block, out, s->els);
    fputc('\n', out);
    return;
  case FS_TIME:
    print_result_tuple(out, &s->results);
    fputs(" = time ", out);
    flat_print_braced(out, indent, print_block, out, s->body);
    fputc('\n', out);
    return;
  case FS_COST:
    fprintf(out, "cost %s%s ", flat_cost_rule_name(s->cost_rule), s->lifted ? "^" : "");
    print_atom_tuple(out, &s->args);
    fputc('\n', out);
    return;
  }
  die("print_stmt: statement kind %d", (int)s->kind);
}

void flat_print_block(FILE *out, const FlatBlock *b, int indent) {
  if (!b) {
    indent_to(out, indent);
    fputs("% no block %\n", out);
    return;
  }
  for (int i = 0; i < b->stmts.len; i++)
    print_stmt(out, b->stmts.data[i], indent);
  indent_to(out, indent);
  fputs("return ", out);
  print_atom_tuple(out, &b->results);
  fputc('\n', out);
}

void flat_print_func(FILE *out, const FlatFunc *f) {
  fprintf(out, "function %s (", f->name);
  for (int i = 0; i < f->params.len; i++) {
    if (i)
      fputs(", ", out);
    print_binding(out, f->params.data[i]);
  }
  fputs(") -> (", out);
  for (int i = 0; i < f->result_types.len; i++) {
    if (i)
      fputs(", ", out);
    fputs(flat_type_name(*(FlatType *)f->result_types.data[i]), out);
  }
  fputs(") {", out);
  /* where it comes from, when the name does not say it all */
  if (f->library || (f->source && strcmp(f->source, f->name) != 0))
    fprintf(out, " %% %s%s%s %%", f->source ? f->source : f->name, f->lifted ? ", lifted" : "",
            f->library ? ", library" : "");
  fputc('\n', out);
  flat_print_block(out, f->body, 2);
  fputs("}\n", out);
}

/* `% x = f(3); : int %` above the statement's block. */
static void print_top(FILE *out, const FlatTop *t) {
  fputs("% ", out);
  if (t->text)
    fwrite(t->text, 1, t->text_len, out);
  if (t->scheme)
    fprintf(out, " : %s", t->scheme);
  if (t->type_name)
    fprintf(out, " : %s", t->type_name);
  fputs(" %\n", out);
  if (!t->body)
    return;
  fputs("top ", out);
  if (t->defines.len > 0) {
    fputs("-> ", out);
    print_result_tuple(out, &t->defines);
    fputc(' ', out);
  }
  if (t->replaced.len > 0) {
    /* on an error, each global keeps the value of the one it replaces */
    fputs("keeping (", out);
    for (int i = 0; i < t->replaced.len; i++) {
      const FlatVar *v = t->replaced.data[i];
      if (i)
        fputs(", ", out);
      if (v)
        print_var(out, v);
      else
        fputc('_', out);
    }
    fputs(") ", out);
  }
  fputs("{\n", out);
  flat_print_block(out, t->body, 2);
  fputs("}\n", out);
}

void flat_print_program(FILE *out, const FlatProgram *p) {
  for (int i = 0; i < p->funcs.len; i++) {
    flat_print_func(out, p->funcs.data[i]);
    fputc('\n', out);
  }
  /* the library's constants (pi, max_int, ...) run first but are not
     the program's: they are left out */
  for (int i = 0; i < p->tops.len; i++) {
    const FlatTop *t = p->tops.data[i];
    if (!t->library)
      print_top(out, t);
  }
}
