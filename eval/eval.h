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

/* A sequence.  Boxed (packed false): 'elems' holds len Values, which is
   how every sequence made by val_seq_new() is, so code outside eval/ may
   index 'elems' of those.  Packed: a sequence of scalars of kind 'elem'
   (V_INT, V_FLOAT, V_BOOL, V_CHAR) stored unboxed where 'elems' begins,
   as int32_t, double, bool or char, in a block the collector does not
   scan: 4 bytes an int instead of 16.  The evaluator makes packed ones
   (val_seq_packed); seq_get/seq_set read and write either kind, and a
   value leaving eval/ for code that indexes 'elems' is boxed first
   (val_boxed: ev_call_prim's results, eval/io.c's arguments). */
typedef struct Seq {
  int64_t len;
  bool packed;
  ValueKind elem; /* packed: the kind of every element */
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
Value val_seq_new(int64_t len); /* boxed, elements zeroed (int 0) */
Value val_string(const char *s, size_t n); /* boxed */
char *val_string_chars(Value v); /* a [char] as a NUL-terminated C string */

/* A packed sequence of 'len' scalars of kind 'elem', not initialized. */
Value val_seq_packed(ValueKind elem, int64_t len);
/* A sequence of 'len' elements like 'sample' (an element): packed for a
   scalar, boxed otherwise; not initialized when packed. */
Value val_seq_like(Value sample, int64_t len);
/* 'v' with every sequence inside it boxed (itself when nothing is
   packed). */
Value val_boxed(Value v);
/* Copies 'n' elements of 'src' from 'from' to 'dst' at 'at'; either may
   be packed or boxed. */
void val_seq_copy(Seq *dst, int64_t at, const Seq *src, int64_t from, int64_t n);

/* Element 'i' of 's', either kind. */
static inline Value seq_get(const Seq *s, int64_t i) {
  if (!s->packed)
    return s->elems[i];
  const void *raw = s->elems;
  switch (s->elem) {
  case V_INT:
    return (Value){.kind = V_INT, .u.i = ((const int32_t *)raw)[i]};
  case V_FLOAT:
    return (Value){.kind = V_FLOAT, .u.f = ((const double *)raw)[i]};
  case V_BOOL:
    return (Value){.kind = V_BOOL, .u.b = ((const bool *)raw)[i]};
  default:
    return (Value){.kind = V_CHAR, .u.c = ((const char *)raw)[i]};
  }
}

/* Sets element 'i' of 's' to 'v' (of the packed kind, when packed). */
static inline void seq_set(Seq *s, int64_t i, Value v) {
  if (!s->packed) {
    s->elems[i] = v;
    return;
  }
  void *raw = s->elems;
  switch (s->elem) {
  case V_INT:
    ((int32_t *)raw)[i] = v.u.i;
    return;
  case V_FLOAT:
    ((double *)raw)[i] = v.u.f;
    return;
  case V_BOOL:
    ((bool *)raw)[i] = v.u.b;
    return;
  default:
    ((char *)raw)[i] = v.u.c;
    return;
  }
}

/* Structural equality (eql): same shape and same scalars. */
bool val_equal(Value a, Value b);
/* Hash consistent with val_equal. */
uint64_t val_hash(Value v);
int32_t val_nesl_hash(Value v); /* NESL's hash, before the range */

/* Prints 'v' in NESL's REPL format; 'type' says how ([char] prints as a
   string).  A NULL or unresolved type prints by the value's own shape. */
void val_print(FILE *out, Value v, struct Type *type);
/* The text of 'v', NUL-terminated; its length, which a character of code
   0 in the value does not end, goes to '*len' unless 'len' is NULL. */
char *val_to_string(Value v, struct Type *type, size_t *len);
/* Is a float inside 'v' not finite?  The first one, in the order the
   value prints, goes to '*bad'.  (NESL's REPL rejects such a value, and
   its @ such a float: rt_check_value.) */
bool val_nonfinite(Value v, double *bad);

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

/* NESL's cost model (docs/cost.md): --cost and the REPL's :cost.  With a
   mode other than EV_COST_OFF, ev_run_top prints after each statement's
   line `cost: work W, depth D`, its work and depth by the rules of
   docs/cost.md; EV_COST_FUNCTIONS adds a line per user function the
   statement called (calls, work, largest depth of a call). */
typedef enum EvalCostMode {
  EV_COST_OFF,       /* count, print nothing */
  EV_COST_STATEMENTS, /* a cost line after each statement */
  EV_COST_FUNCTIONS, /* and a line per user function called */
} EvalCostMode;
void ev_set_cost(Eval *ev, EvalCostMode mode);
/* The work and depth of the last statement ev_run_top ran. */
typedef struct EvalCost {
  uint64_t work, depth;
} EvalCost;
EvalCost ev_last_cost(Eval *ev);
/* Runs expression statement 'top' (checked) for its cost alone, printing
   nothing but a run-time error's line: the REPL's :cost.  False if a
   run-time error stopped it; else its cost is in '*cost'. */
bool ev_cost_of(Eval *ev, TopLevel *top, EvalCost *cost);

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

/* Stops the current statement with `error: file:line:col: message` on
   the transcript, and the source line with a caret on stderr
   (diag_runtime_error).  The location is that of the user's code: inside
   a library function, the call from user code that led there, and the
   message names the library function the user called ("mod: division by
   zero", not the "rem" inside it). */
_Noreturn void ev_error(Eval *ev, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Stops the current statement because Ctrl-C was pressed
   (interrupt_pending); the REPL clears the flag. */
_Noreturn void ev_interrupted(Eval *ev, Loc loc);
/* A sequence of 'n' elements, more than an int counts, was asked for at
   'loc': the statement stops with the runtime's words for it ("out of
   memory (could not allocate a vector of N elements)", rt/vector.c), not
   named after the library function, as the other engines say it. */
_Noreturn void ev_too_many(Eval *ev, Loc loc, int64_t n);

/* ---- the REPL's values, for the flat and λcu engines ----
   Every top-level value of a REPL session lives in the evaluator's
   store, whichever engine computed it.  A statement run by another
   engine reads an earlier value through the primitive __global_value(k)
   (k from ev_export_global: mono puts the call in place of the read, see
   MonoExternals), and a binding's value comes back through
   __keep_value(k, v) (k from ev_keep_slot) wrapped around its
   expression, then ev_take_kept and ev_define_top store it. */
int ev_export_global(Def *d);
int ev_keep_slot(void);
bool ev_take_kept(int slot, Value *out); /* false: nothing was kept */
/* Gives the variables of binding 'top' (checked) the parts of 'v'. */
void ev_define_top(TopLevel *top, Value v);
/* A definition run by another engine: a redefinition with an equivalent
   type replaces the old one from now on (NESL.md), in every engine. */
void ev_note_definition(TopLevel *top);
/* After binding 'top' ran in another engine, whether it succeeded or
   not: a variable it defines again with an equivalent type replaces the
   old one for the functions that read it (NESL.md), as ev_run_top does. */
void ev_note_binding(TopLevel *top);
/* After binding 'top' stopped with an error in another engine: each
   variable it defines again keeps the value of the definition it
   replaces (CMU NESL binds nothing then), as ev_run_top does. */
void ev_keep_replaced(TopLevel *top);
/* The definition that replaced 'd' (d itself if none). */
Def *ev_current_def(Def *d);
/* The value of exported global k into '*out' (the flat and λcu engines'
   __global_value, driver/store.c); false, with its name in '*name', when
   its definition stopped with an error and it has no value. */
bool ev_exported_value(Eval *ev, int k, Value *out, const char **name);
/* The two primitives (prims.c's table). */
Value ev_prim_global_value(Eval *ev, Value k, Loc loc, struct Type *type);
Value ev_prim_keep_value(Eval *ev, Value a, Loc loc, struct Type *type);

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
