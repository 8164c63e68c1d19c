/*
 * flatten.h: the passes from the typed AST to the flat IR (flat.h):
 * monomorphization (mono.c) and flattening (flatten.c).
 */
#ifndef NESSIE_FLATTEN_H
#define NESSIE_FLATTEN_H

#include "../frontend/ast.h"
#include "../frontend/typecheck.h"
#include "../flat/flat.h"

/* ---- mono.c ---- */

/* One specialization of a function at one monomorphic type. */
typedef struct MonoFunc {
  Def *def;          /* the NESL definition */
  const char *name;  /* unique: the NESL name, then _N for the Nth instance */
  Type *nesl_type;   /* its type, monomorphic (datatypes kept) */
  Type *type;        /* the same with every datatype replaced by its
                        fields' tuple: what later passes use */
  Pattern *param;    /* a copy of the parameter pattern (constructor
                        patterns replaced by their fields' pattern) */
  Expr *body;        /* a copy of the body at these types; NULL for a
                        primitive */
  bool primitive;    /* `= __prim` in lib-nesl */
  bool library;
  int index;         /* the order in which instances were made */
} MonoFunc;

/* A top-level statement at monomorphic types. */
typedef struct MonoTop {
  TopLevel *source;
  Expr *body;        /* TOP_BIND, TOP_EXPR: a copy of the expression */
  Pattern *pat;      /* TOP_BIND: a copy of the pattern */
  Type *nesl_type;   /* the value's type as the REPL prints it */
  Type *type;        /* the same, datatypes as tuples */
} MonoTop;

typedef struct MonoProgram {
  Vec funcs; /* MonoFunc *, in the order they were made */
  Vec tops;  /* MonoTop *: the library's bindings, then the program's
                statements in order */
  /* the pass's own state */
  TypeEnv *env;
  PtrMap instances; /* Def -> Map *: "generation/type key" -> MonoFunc * */
  int generation; /* counts redefinitions that replace a definition */
  PtrMap forward;   /* Def -> the Def that replaced it */
  const struct MonoExternals *externals; /* may be NULL */
  PtrMap defined;   /* Def -> its TopLevel: the values 'prog' defines */
} MonoProgram;

/* Top-level values that the program reads but none of its statements
   defines: in the REPL, earlier inputs computed them, and the REPL keeps
   them (driver/repl.c).  'read(ctx, var)' returns the expression that
   stands for 'var' (an EX_VAR naming such a value), typed as 'var' is,
   for instance a call of a primitive that fetches the value; mono copies
   it in place of every read, in the statements and in the functions.
   'current(ctx, d)' (may be NULL) is the function that replaced 'd' in
   an earlier input (NESL.md, "Redefinition"), or 'd'. */
typedef struct MonoExternals {
  void *ctx;
  Expr *(*read)(void *ctx, Expr *var);
  Def *(*current)(void *ctx, Def *d);
} MonoExternals;

/* Specializes every function the statements of 'prog' (checked in 'env')
   use, demand-driven from the statements, at the types they are used at.
   Datatypes become tuples, constructors the identity on their fields.
   Redefinitions are resolved as the statements run in order (NESL.md,
   "Redefinition"). */
MonoProgram *mono_program(TypeEnv *env, Program *prog);
/* The same, with the values in 'externals' (may be NULL) read through it. */
MonoProgram *mono_program_ext(TypeEnv *env, Program *prog, const MonoExternals *externals);

/* The instance of 'def' at the monomorphic function type 'nesl_type',
   made if needed: flattening asks for instances this way too. */
MonoFunc *mono_instance(MonoProgram *mp, Def *def, Type *nesl_type);

/* `--dump=mono`: each instance as a NESL function with its type, then the
   statements. */
void mono_print(FILE *out, const MonoProgram *mp);

/* Checks that every type is monomorphic without datatypes and every call
   has its instance; reports the first failure (after pass 'after'). */
bool mono_check(const MonoProgram *mp, const char *after);

/* The monomorphic type with datatypes replaced by their fields (while
   mono_program runs: its environment's datatypes). */
Type *mono_strip_datatypes(Type *t);
/* The same with the datatypes of 'env' (the λcu reader's). */
Type *mono_strip_datatypes_in(TypeEnv *env, Type *t);

/* ---- flatten.c ---- */

/* Flattens 'mp' into the flat IR. */
FlatProgram *flatten_program(MonoProgram *mp);

/* ---- shape.c ---- */

/* Shape analysis: sets FlatVar.shape (see flat.h). */
void flat_fill_shapes(FlatProgram *p);

#endif
