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
  Map named;        /* a function's name -> how many instances of that
                       name 'funcs' holds (intptr_t) */
  Map taken;        /* the names of the instances in 'funcs': each is
                       one's alone (a user's function may be called
                       what another's instance would be, f_2) */
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

/* ---- layout.c: components of NESL values ---- */

/* The flat base type of base type 't' (int, float, bool, char). */
FlatBase flatten_base(Type *t);

/* The flat types of the components of H(t) and V(t), for a monomorphic
   't' whose datatypes have been replaced by tuples (mono.c). */
void flatten_host_layout(Type *t, Vec *out);   /* FlatType * */
void flatten_vector_layout(Type *t, Vec *out); /* FlatType * */
/* For each component of H(t) ('host') or V(t), in the same order: one
   plus the index of the segdes component whose elements it lies in, or
   0 for a component at the top (as a pointer-sized integer). */
void flatten_layout_within(Type *t, bool host, Vec *out);
/* For each component of H(t) ('host') or V(t), in the same order: a
   group number (intptr_t), the same for components known to have one
   length (vectors) or count (segment descriptors), 0 for a scalar: V(t)'s
   top-level components are in group 'context' (a lifted function's
   elements), H([t])'s in a new group, and the components in the elements
   of one segdes in a new group; new groups are numbered from *next + 1
   on (*next is advanced). */
void flatten_layout_groups(Type *t, bool host, intptr_t context, int *next, Vec *out);

/* The runtime's layout descriptor of NESL type 't' (datatypes included,
   named: rt.h), made by the compiler once per statement for what the
   runtime must read as whole values (printing, @, name, eql, hash, the
   host primitives).  'env' finds the datatypes' fields. */
const RtLayout *flatten_rt_layout(TypeEnv *env, Type *t);
/* The type of the fields of datatype 't' (a T_DATA) at t's arguments. */
Type *flatten_data_fields(TypeEnv *env, Type *t);

/* ---- describe.c: the front end's statements and types as the IRs
   see them ---- */

/* Fills in what 'ft' says of top-level statement 'src' (kind, location,
   text, signature, type names, pattern, layout): 'nesl_type' is the
   value's type (datatypes kept; NULL for a definition), 'env' the
   checker's environment. */
void flatten_describe_top(TypeEnv *env, TopLevel *src, Type *nesl_type, FlatTop *ft);

/* The hooks through which the λcu reader (lcu_read) has the NESL of its
   text parsed and type checked in 'env' (from tc_new_env). */
const FlatNeslReader *flatten_nesl_reader(TypeEnv *env);

/* ---- flatten.c ---- */

/* Flattens 'mp' into the flat IR.  With 'cost', for --cost: every
   construct NESL's cost model charges gets its FS_COST statement, and
   the translations that compute other than the model charges (hoisting,
   if-conversion, scalar code per element) are left out (docs/cost.md). */
FlatProgram *flatten_program(MonoProgram *mp, bool cost);

/* ---- share.c ---- */

/* Value numbering: an operation that repeats one before it is read as
   that one, and parameters that every call passes one value are read as
   the first of them (share.c says when).  Not for --cost. */
void flat_share_values(FlatProgram *p);

/* ---- shape.c ---- */

/* Shape analysis: sets FlatVar.shape (see flat.h). */
void flat_fill_shapes(FlatProgram *p);

#endif
