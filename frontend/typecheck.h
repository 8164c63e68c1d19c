/*
 * typecheck.h: the NESL type checker and the global environment of
 * definitions it builds.
 *
 * Checking annotates the AST in place: every expression and pattern gets
 * its type, every name its definition (Def).  The environment maps a name
 * to its newest definition; a redefinition keeps the older one reachable
 * through 'prev' (NESL.md, "Redefinition": callers checked before a
 * redefinition keep the definition they were checked against).
 */
#ifndef NESSIE_TYPECHECK_H
#define NESSIE_TYPECHECK_H

#include "ast.h"
#include "types.h"

typedef enum DefKind {
  DEF_FUNCTION,    /* a function, user or library */
  DEF_CONSTRUCTOR, /* a datatype's constructor, named like the type */
  DEF_VALUE,       /* a top-level binding (including library constants) */
} DefKind;

typedef struct Def {
  DefKind kind;
  const char *name;
  Loc loc;
  Type *type;          /* T_FUN for functions and constructors, generic
                          variables at GENERIC_LEVEL; the value's type for
                          DEF_VALUE */
  TopLevel *top;       /* the definition; NULL for none */
  bool library;        /* from lib-nesl */
  bool primitive;      /* implemented inside nessie (`= __prim`) */
  bool broken;         /* its definition failed to check: uses of it are
                          not reported again (but see tc_set_report_broken) */
  struct Def *prev;    /* the definition of the same name it shadows */
  int version;         /* 1 for the first definition of a name, ... */
  /* DEF_CONSTRUCTOR: the datatype's parameters, in order (T_VAR) */
  Vec params;
  int data_id;         /* DEF_CONSTRUCTOR: numbers datatype definitions */
  void *runtime;       /* owned by the evaluator (eval/eval.c) */
  Type *ident;         /* DEF_FUNCTION, DEF_CONSTRUCTOR: its identity as
                          a function value (type_fnid) */
  struct Def *replaced_by; /* a later definition of the same name and an
                          equivalent type, which callers of this one use
                          from then on (NESL.md, "Redefinition") */
  bool checked;        /* DEF_FUNCTION: its body has been checked (a
                          function called before its statement, by a
                          mutually recursive one, is checked with it) */
  bool declared;       /* DEF_FUNCTION: checked from its signature alone
                          so far (a declaration without a body, or a
                          function called before its statement) */
  int visited;         /* the last stub search that reached it */
  struct Def *instance_of; /* `nessie --library`'s instance declaration
                          (tc_set_instances): the function whose
                          instance at 'type' it names; never in scope */
} Def;

typedef struct TypeEnv TypeEnv;

/* A fresh environment holding the basis library (lib-nesl), checked. */
TypeEnv *tc_new_env(void);

/* Checks 'prog' statement by statement in 'env', adding its definitions.
   Errors are reported through diag; a statement with an error is marked
   'broken' (and its definitions are too) and checking goes on with the
   next one.  Returns the number of statements that failed, including
   those stopped silently by a use of a broken definition. */
int tc_check_program(TypeEnv *env, Program *prog);

/* Checks one statement; returns false on error. */
bool tc_check_top(TypeEnv *env, TopLevel *top);

/* In the REPL, a use of a definition whose statement failed to check is
   reported ("'a' has no value: its definition did not compile"), since
   that statement's error may be long gone from the screen; in a file it
   stops the using statement silently, one mistake giving one message. */
void tc_set_report_broken(TypeEnv *env, bool on);

/* Undoes definition 'd' if it is the newest of its name: the name means
   what it meant before (the REPL keeps the previous `it` when an
   expression fails). */
void tc_forget(TypeEnv *env, Def *d);

/* The newest definition of 'name', or NULL. */
Def *tc_lookup(TypeEnv *env, const char *name);

/* The definition that a use checked against 'd' runs now (following
   'replaced_by'). */
Def *tc_current(Def *d);

/* The documentation string of the newest function 'name': "" if it has
   none; NULL if there is no such function. */
const char *tc_doc(TypeEnv *env, const char *name);

/* What the REPL's `:doc NAME` prints (CMU NESL's `describe NAME`): the
   function's line `name = fn : type` and its documentation string, each
   ending with a newline; NULL if 'name' (any case, blanks and a ';'
   around it allowed) names no function. */
char *tc_describe(TypeEnv *env, const char *name);

/* The line the REPL prints for a definition: `sqr = fn : a -> a :: (a in
   number)`. */
char *tc_def_signature_line(Def *def);

/* What NESL prints before the transcript line of statement 'top' (a
   definition or a binding, checked) for each name it defines whose
   earlier definition had another type: `Redefining X with a new type.
   Old calls will not be modified. ` (the name in capitals, as CMU NESL's
   Lisp prints it), one after another in the order of the names; "" when
   none.  A declaration followed by its definition, an earlier
   definition that failed to check, and an equivalent type give none. */
const char *tc_redefinition_notice(const TopLevel *top);

/* The definition that 'd' replaces, as CMU NESL replaces a variable or
   function defined again with the same type: the one of its name that
   'd' shadows (past those that failed to check), where it has the same
   kind and an equivalent type and is not the library's; else NULL.  A
   function that read the old one reads 'd' from then on; one between
   them of another type ends the chain (`k = 3; ... k = [1]; k = 10;`
   leaves a function that read the first k reading 3). */
Def *tc_replaced_def(Def *d);

/* Parses and checks lib-nesl's source into 'env' (builtins.c). */
void tc_load_library(TypeEnv *env);
/* While on, definitions are marked as the library's and `__prim` bodies
   are accepted. */
void tc_set_library_mode(TypeEnv *env, bool on);
/* While on (`nessie --library`), a declaration without a body that
   follows a definition of the same name with a body, in the program,
   names an instance of that function to export (docs/library.md): its
   signature must be an instance of the function's type; it defines
   nothing, so that every use of the name still reaches the definition.
   Off, such a declaration redefines the name, as CMU NESL's does. */
void tc_set_instances(TypeEnv *env, bool on);
/* The library program tc_load_library checked. */
Program *tc_library_program(TypeEnv *env);
void tc_set_library_program(TypeEnv *env, Program *prog);

#endif
