/*
 * types.h: NESL types, type classes, unification and NESL-style printing.
 *
 * Types are graphs: a type variable that has been unified points to its
 * binding through 'link', and every operation first follows links
 * (type_resolve).  A type class is the set of base types a variable may
 * still become, as a bit mask: number = {int, float}, ordinal = {int,
 * float, char}, logical = {int, bool}, any = everything.  Unifying two
 * variables intersects their classes; an intersection that leaves only int
 * binds the variable to int.  Every binding is recorded on a trail so that
 * a failed unification can be undone and reported with the types as they
 * were before it.
 *
 * Higher-order functions: a function type also says which function it is
 * (its identity: a top-level function, or a variable standing for one),
 * as CMU NESL 3.1's types do (its typechecker puts the function's binding
 * in the type).  Two function types unify only if their identities do, so
 * which function a function-valued expression holds is always known when
 * compiling, and monomorphization specializes a higher-order function on
 * it (flatten/mono.c).  Identities are never printed.
 */
#ifndef NESSIE_TYPES_H
#define NESSIE_TYPES_H

#include "../common/common.h"

typedef enum TypeKind {
  T_INT,   /* 32-bit integer */
  T_FLOAT, /* double */
  T_BOOL,  /* boolean */
  T_CHAR,  /* character */
  T_SEQ,   /* [elem] */
  T_PAIR,  /* (fst, snd); longer tuples nest to the right */
  T_DATA,  /* a datatype applied to its parameters: twin(int) */
  T_VAR,   /* a type variable, bound when 'link' is set */
  T_FUN,   /* fst -> snd: the type of a function; 'ident' says which one
              (a T_VAR of CLASS_IDENT, or NULL where it does not matter:
              the types the later stages build) */
} TypeKind;

/* Class masks: which base types a type variable may take. */
enum {
  CLASS_INT = 1,
  CLASS_FLOAT = 2,
  CLASS_CHAR = 4,
  CLASS_BOOL = 8,
  CLASS_OTHER = 16, /* sequences, tuples, datatypes */
  CLASS_NUMBER = CLASS_INT | CLASS_FLOAT,
  CLASS_ORDINAL = CLASS_INT | CLASS_FLOAT | CLASS_CHAR,
  CLASS_LOGICAL = CLASS_INT | CLASS_BOOL,
  CLASS_ANY = 31,
  CLASS_IDENT = 32, /* a variable standing for a function's identity: it
                       unifies only with identities, never with a type.
                       A known identity is such a variable that is a
                       constant: rigid, at level 0, with 'def' set. */
};

/* Variables at this level are generic: a polymorphic function's type
   variables, copied afresh at each use. */
#define GENERIC_LEVEL 1000000

typedef struct Type {
  TypeKind kind;
  struct Type *elem;        /* T_SEQ */
  struct Type *fst, *snd;   /* T_PAIR, T_FUN (argument, result) */
  struct Type *ident;       /* T_FUN: which function (see above) */
  const char *name;         /* T_DATA; a function constant's name */
  int data_id;              /* T_DATA: which definition of 'name' (a
                               redefined datatype is another type) */
  Vec args;                 /* T_DATA: parameters (Type *) */
  /* T_VAR: */
  struct Type *link;        /* the binding, or NULL */
  int id;                   /* for stable names in debugging output */
  int klass;                /* CLASS_* mask */
  int level;                /* let-nesting level, or GENERIC_LEVEL */
  bool rigid;               /* a signature's variable while checking the
                               body against it: binds to nothing */
  struct Def *def;          /* a function constant (CLASS_IDENT): the
                               top-level function or constructor */
} Type;

extern Type *type_int, *type_float, *type_bool, *type_char;

Type *type_seq(Type *elem);
Type *type_pair(Type *fst, Type *snd);
Type *type_fun(Type *arg, Type *result); /* identity NULL */
Type *type_fun_id(Type *arg, Type *result, Type *ident);
/* The identity of top-level function or constructor 'def'. */
Type *type_fnid(struct Def *def, const char *name);
Type *type_data(const char *name, int data_id, Vec args);
Type *type_var(int klass, int level);

/* Follows links to the representative. */
Type *type_resolve(Type *t);

int class_from_name(const char *klass); /* "number" -> CLASS_NUMBER; 0 if unknown */
const char *class_name(int klass);      /* NULL if not one of the four */

/* ---- unification with undo ---- */

int type_trail_mark(void);
void type_trail_undo(int mark);

/* Makes 'a' and 'b' equal, binding variables; false if impossible.  On
   failure the bindings it made are undone; on success they are kept and
   the trail forgets them (a success is never undone). */
bool type_unify(Type *a, Type *b);

/* Copies 't' with every generic variable replaced by a fresh one at
   'level'; shared variables stay shared. */
Type *type_instantiate(Type *t, int level);

/* Marks every unbound variable of 't' whose level is above 'level' as
   generic. */
void type_generalize(Type *t, int level);

/* True if 't' has no unbound variables. */
bool type_is_ground(Type *t);

/* True if 'a' and 'b' are the same up to renaming of generic variables
   (with the same classes).  Of two function types, only the arguments and
   results compare, not which functions they are: two definitions of a
   function are equivalent if their types are. */
bool type_equivalent(Type *a, Type *b);

/* True if 't' has a function type anywhere in it whose argument or
   result still has a type variable: a polymorphic function value. */
bool type_has_open_function(Type *t);

/* If 'a' and 'b' would unify but for the identities of functions in
   them, gives the names of two functions they disagree on (NULL for one
   not yet known) and returns true. */
bool type_identity_conflict(Type *a, Type *b, const char **fa, const char **fb);

/* ---- printing in NESL's notation ---- */

/* A naming context: variables get the names a, b, c ... in the order the
   printer meets them, shared by every type printed with one namer, so
   that a message that shows two types names their variables alike. */
typedef struct TypeNamer {
  Vec vars;      /* Type * (resolved T_VAR), in order of naming */
  bool numbered; /* name them a0, a1, ... (CMU NESL's names for more
                    than five variables) */
  bool fun_parens; /* every function type in parentheses (type_text_bracketed) */
} TypeNamer;

/* A value's type as the REPL prints it: a top-level tuple has no
   parentheses (`int, bool`). */
char *type_to_string(TypeNamer *nm, Type *t);
/* A value's type as type_value_to_string writes it, but every function
   type in it in parentheses (`(float -> float), [int]` where the REPL
   prints `float -> float, [int]`): for the types the IRs' text carries
   (a host primitive's `<A -> R>`), which must read back as they were. */
char *type_text_bracketed(Type *t);
/* A function type `(a, a) -> a`: argument and result tuples have them. */
char *type_fun_to_string(TypeNamer *nm, Type *fun);
/* `:: (a in number; b in any)` for the variables named so far, or "". */
char *type_context_string(TypeNamer *nm);
/* A complete function type with its context, as `--types` prints it. */
char *type_scheme_to_string(Type *fun);
/* A complete value type with its context. */
char *type_value_to_string(Type *t);

#endif
