/*
 * eval.h: the source-level evaluator, nessie's semantic reference.
 *
 * It runs the typed AST directly, with nested sequences held as nested
 * arrays of values.  It is meant to be clear and correct, not fast: every
 * later stage (flat IR, λcu, CPU and GPU code) is tested against it.
 * Library functions written in NESL (lib-nesl) run through it like user
 * code; the primitives (`= __prim`) are implemented in C (prims.c).
 */
#ifndef NESSIE_EVAL_H
#define NESSIE_EVAL_H

#include "../common/common.h"
#include "../frontend/ast.h"
#include "../frontend/typecheck.h"

/* ---- value.c ---- */

typedef enum ValueKind {
  V_INT,   /* int32_t */
  V_FLOAT, /* double */
  V_BOOL,  /* bool */
  V_CHAR,  /* char */
  V_SEQ,   /* a sequence of values, possibly empty */
  V_PAIR,  /* a tuple (right-nested pairs) */
  V_DATA,  /* a datatype value: constructor name and fields */
} ValueKind;

typedef struct Value {
  ValueKind kind;
  union {
    int32_t i;
    double f;
    bool b;
    char c;
    struct Seq *seq;
    struct Pair *pair;
    struct Data *data;
  } u;
} Value;

typedef struct Seq {
  int64_t len;
  Value elems[];
} Seq;

typedef struct Pair {
  Value fst, snd;
} Pair;

typedef struct Data {
  const char *name;
  Def *con; /* the constructor, for the field types when printing */
  Value fields;
} Data;

Value val_int(int32_t i);
Value val_float(double f);
Value val_bool(bool b);
Value val_char(char c);
Value val_pair(Value a, Value b);
Value val_data(Def *con, Value fields);
Value val_seq_new(int64_t len); /* elements zeroed (int 0) */
Value val_string(const char *s, size_t n);
char *val_string_chars(Value v); /* a [char] as a NUL-terminated C string */

/* Structural equality (eql): same shape and same scalars. */
bool val_equal(Value a, Value b);
/* Hash consistent with val_equal. */
uint64_t val_hash(Value v);

/* Prints 'v' in NESL's REPL format; 'type' says how ([char] prints as a
   string).  A NULL or unresolved type prints by the value's own shape. */
void val_print(FILE *out, Value v, struct Type *type);
char *val_to_string(Value v, struct Type *type);

/* ---- eval.c ---- */

typedef struct Eval Eval;

Eval *ev_new(TypeEnv *types, FILE *out);

/* Runs one checked top-level statement and prints its transcript line(s)
   (`name = fn : ...`, `x = VALUE : TYPE`, `it = VALUE : TYPE`, or
   `error: ...` when a run-time error stops it).  Returns false if it
   stopped with a run-time error. */
bool ev_run_top(Eval *ev, TopLevel *top);

/* Evaluates the library's top-level bindings (constants such as pi). */
void ev_init_library(Eval *ev, Program *lib);

/* Statistics for --stats. */
typedef struct EvalStats {
  uint64_t calls;      /* function calls, library ones included */
  uint64_t prim_calls; /* primitive calls */
} EvalStats;
EvalStats ev_stats(Eval *ev);

/* ---- for other interpreters (the flat interpreter) ----
   They use an Eval for the primitives of io.c, for reporting run-time
   errors in the same words, for rand's state, and for the transcript's
   line breaks. */

/* Where ev_error goes (a handler of the caller's). */
void ev_set_stop(Eval *ev, jmp_buf *stop);
/* The context of a run-time error: 'lib_fn' is the library function the
   user's code called at 'user_loc' (NULL: none), 'user_fn' the user
   function running (NULL: the statement itself) and 'stmt_loc' the place
   in the statement that called it. */
void ev_set_error_context(Eval *ev, const char *lib_fn, Loc user_loc, const char *user_fn, Loc stmt_loc);
/* Runs primitive 'name' (eval/prims.c, eval/io.c) on 'arg'; 'type' is its
   instantiated type, or NULL. */
Value ev_call_prim(Eval *ev, const char *name, Value arg, Loc loc, struct Type *type);
/* The generator state rand_seed set (rand.c's seed, mixed). */
uint64_t ev_rand_state(Eval *ev);
/* Starts a transcript line on a fresh line (after output that did not
   end with a newline). */
void ev_begin_line(Eval *ev);

/* ---- run-time errors ---- */

/* Stops the current statement with `error: file:line:col: message`.  The
   location is that of the user's code: inside a library function, the
   call from user code that led there, and the message names the library
   function. */
_Noreturn void ev_error(Eval *ev, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- prims.c ---- */

/* A primitive gets its argument, the location of the call, and, if it
   asks for it ('needs_type'), its own type instantiated at the call, with
   every type variable resolved through the calls that led there: the
   scans and reductions need the element type for the identity of an
   empty sequence. */
typedef Value (*PrimFn)(Eval *ev, Value arg, Loc loc, struct Type *type);

typedef struct Prim {
  const char *name;
  PrimFn fn;
  bool needs_type;
} Prim;

/* The C implementation of the primitive 'name', or NULL. */
const Prim *prim_lookup(const char *name);
const Prim *prim_lookup_io(const char *name); /* io.c */

/* The random state (rand.c): a counter-based generator. */
void ev_rand_seed(Eval *ev, int32_t seed);
uint64_t ev_rand_next(Eval *ev);

/* The stack the evaluator runs on: it starts at 'base' (an address near
   the top of the thread's stack) and has 'size' bytes.  Deep recursion
   in a NESL program is then stopped with a run-time error before the
   stack runs out. */
void ev_set_stack(const void *base, size_t size);
/* True when deeper recursion would come too close to the end of that
   stack (always false when ev_set_stack was not called on this thread):
   other interpreters stop their recursion with it as the evaluator
   does. */
bool ev_stack_exhausted(void);

/* The stream used for the program's own output (print_string). */
FILE *ev_out(Eval *ev);
/* Writes the program's own output; the transcript starts its next line
   on a fresh line if this did not end with a newline. */
void ev_write(Eval *ev, const char *s, size_t n);
/* The constructor of the datatype 't' (a T_DATA). */
Def *ev_constructor(Eval *ev, struct Type *t);
/* The constructor of lib-nesl's `stream` datatype. */
Def *ev_stream_constructor(Eval *ev);

#endif
