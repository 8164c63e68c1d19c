/*
 * flat.h: the flat IR, what flattening produces: no apply-to-each is left,
 * and every value is a scalar, a flat vector of one base type, or a
 * segment descriptor.
 *
 * A NESL value is spread over several flat variables, its components, in
 * a fixed order given by its type (flat_layout.c):
 *   host representation H(t), for values outside any apply-to-each:
 *     H(int) = one int scalar (also float, bool, char)
 *     H((a, b)) = H(a) ++ H(b)
 *     H([t]) = V(t)                   (the sequence's elements, as vectors)
 *   vector representation V(t), for a sequence of n values of type t:
 *     V(int) = one [:int:] vector of length n
 *     V((a, b)) = V(a) ++ V(b)        (same length n)
 *     V([t]) = one segdes of n segments ++ V(t) (its total length)
 * So [[(int, float)]] at the host is (segdes, [:int:], [:float:]).
 * Inside an apply-to-each over n elements, a variable of type t is V(t).
 *
 * The IR is in A-normal form with multiple results: a block is a list of
 * statements, each binding variables to the results of one operation
 * (flat_ops.def), a call, an `if` on a scalar bool, or a timed block,
 * followed by the block's result atoms.  Control flow stays on the host:
 * only `if` and calls; recursion is host recursion.
 *
 * Every IR has a printer, a checker and an interpreter (flat_print.c,
 * flat_check.c, flat_interp.c).
 */
#ifndef NESSIE_FLAT_H
#define NESSIE_FLAT_H

#include "../common/common.h"
#include "../eval/eval.h"
#include "../frontend/ast.h"
#include "../frontend/typecheck.h"
#include "../frontend/types.h"

typedef enum FlatOp {
#define FLAT_OP(name, text, nargs, nresults) FLAT_##name,
#include "flat_ops.def"
  FLAT_OP_COUNT
} FlatOp;

const char *flat_op_name(FlatOp op);
int flat_op_nargs(FlatOp op);    /* -1: any number */
int flat_op_nresults(FlatOp op); /* -1: any number */

/* ---- types ---- */

typedef enum FlatBase {
  FB_INT,
  FB_FLOAT,
  FB_BOOL,
  FB_CHAR,
} FlatBase;

typedef enum FlatTypeKind {
  FT_SCALAR, /* one value of a base type */
  FT_VEC,    /* a flat vector of a base type: [:int:] */
  FT_SEGDES, /* a segment descriptor: the lengths of consecutive segments */
} FlatTypeKind;

typedef struct FlatType {
  FlatTypeKind kind;
  FlatBase base; /* FT_SCALAR, FT_VEC */
} FlatType;

bool flat_type_equal(FlatType a, FlatType b);
const char *flat_type_name(FlatType t); /* "int", "[:float:]", "segdes" */

/* ---- variables and atoms ---- */

typedef struct FlatVar {
  int id;           /* unique in the program, for printing: x12 */
  const char *hint; /* the NESL name it comes from, or NULL */
  FlatType type;
  int shape;        /* shape analysis: vectors (and segdes) with the same
                       nonzero shape have the same length (number of
                       segments); 0 when unknown */
  bool global;      /* a component of a top-level binding's value: bound
                       by the FlatTop that defines it, readable anywhere
                       after */
} FlatVar;

typedef enum FlatAtomKind {
  FA_VAR,
  FA_INT,
  FA_FLOAT,
  FA_BOOL,
  FA_CHAR,
} FlatAtomKind;

typedef struct FlatAtom {
  FlatAtomKind kind;
  union {
    FlatVar *var;
    int32_t i;
    double f;
    bool b;
    char c;
  } u;
} FlatAtom;

/* ---- statements and blocks ---- */

typedef enum FlatStmtKind {
  FS_OP,   /* results = op(args) */
  FS_CALL, /* results = callee(args) */
  FS_IF,   /* results = if args[0] then 'then' else 'els' */
  FS_TIME, /* results = the block's results, then the seconds it took (float) */
} FlatStmtKind;

struct FlatFunc;

typedef struct FlatStmt {
  FlatStmtKind kind;
  Loc loc;            /* the NESL expression it comes from */
  Vec results;        /* FlatVar * */
  Vec args;           /* FlatAtom * */
  FlatOp op;          /* FS_OP */
  struct FlatFunc *callee;            /* FS_CALL */
  struct FlatBlock *then, *els, *body; /* FS_IF; FS_TIME's body */
  /* FS_OP details: */
  bool lifted;        /* NAME, EQL, HASH, HOST_PRIM: on vectors of values */
  Type *elem_type;    /* NAME, EQL, HASH: the monomorphic type (datatypes
                         as tuples) of the value whose components are the
                         arguments.  HOST_PRIM: the primitive's argument
                         type with its datatypes kept (streams are a
                         datatype), and 'result_type' its result type. */
  Type *result_type;  /* HOST_PRIM */
  const char *prim;   /* HOST_PRIM: the primitive's name (eval/io.c) */
  int site;           /* RAND: numbers the call sites, for the generator */
} FlatStmt;

typedef struct FlatBlock {
  Vec stmts;   /* FlatStmt * */
  Vec results; /* FlatAtom * */
} FlatBlock;

typedef struct FlatFunc {
  const char *name;   /* unique: sum_3, qsort^ (lifted) */
  Loc loc;
  Vec params;         /* FlatVar * */
  FlatBlock *body;
  Vec result_types;   /* FlatType * */
  bool lifted;        /* the lifted version of a NESL function */
  bool library;       /* from lib-nesl */
  const char *source; /* the NESL function's name, for messages */
} FlatFunc;

/* A top-level statement: its block computes the components of the value
   (host layout) of 'type', which is printed as the REPL does. */
typedef struct FlatTop {
  TopLevel *source;   /* the statement it comes from */
  FlatBlock *body;    /* NULL for definitions */
  Type *type;         /* the value's NESL type (datatypes included) */
  Type *mono_type;    /* the same with datatypes as tuples */
  Vec defines;        /* TOP_BIND: one global FlatVar * per component of
                         the value, in layout order (a wildcard's too);
                         the flattener gives each pattern variable its
                         slice (see 'globals') */
} FlatTop;

typedef struct FlatProgram {
  Vec funcs;   /* FlatFunc * */
  Vec tops;    /* FlatTop * */
  Vec globals; /* FlatVar *: values of top-level bindings, set by the
                  statements that define them and read by later ones */
  int next_var;
} FlatProgram;

/* ---- flat.c: construction ---- */

FlatVar *flat_new_var(FlatProgram *p, FlatType type, const char *hint);
FlatAtom *flat_var_atom(FlatVar *v);
FlatAtom *flat_int_atom(int32_t i);
FlatAtom *flat_float_atom(double f);
FlatAtom *flat_bool_atom(bool b);
FlatAtom *flat_char_atom(char c);
FlatType flat_atom_type(const FlatAtom *a);
FlatType flat_scalar(FlatBase b);
FlatType flat_vec(FlatBase b);
FlatType flat_segdes(void);

/* ---- flat_layout.c: components of NESL values ---- */

/* The flat types of the components of H(t) and V(t), for a monomorphic
   't' whose datatypes have been replaced by tuples (mono.c). */
void flat_host_layout(Type *t, Vec *out);   /* FlatType * */
void flat_vector_layout(Type *t, Vec *out); /* FlatType * */

/* The run-time value of one component, as the interpreter holds it: a
   scalar, a flat vector (int32_t, double, bool as uint8_t, char), or a
   segment descriptor (lengths; offsets computed when first asked for).
   A FlatValue is allocated once and never copied: a scalar's 'data'
   points into its own 'scalar' field. */
typedef struct FlatValue {
  FlatType type;
  int64_t len;       /* FT_VEC: elements; FT_SEGDES: segments; FT_SCALAR: 1 */
  union {
    int32_t *i;
    double *f;
    uint8_t *b;
    char *c;
    void *any;
  } data;            /* FT_SCALAR (one element), FT_VEC */
  int64_t *lengths;  /* FT_SEGDES: 'len' segment lengths */
  int64_t *offsets;  /* FT_SEGDES: 'len' + 1 offsets, or NULL until
                        flat_seg_offsets computes them */
  union {
    int32_t i;
    double f;
    uint8_t b;
    char c;
  } scalar;          /* FT_SCALAR: the value */
} FlatValue;

/* A value of type 't' with 'len' elements left uninitialized (a scalar
   has one; a segdes gets 'len' lengths). */
FlatValue *flat_value_new(FlatType t, int64_t len);
FlatValue *flat_value_int(int32_t i);
FlatValue *flat_value_float(double f);
FlatValue *flat_value_bool(bool b);
FlatValue *flat_value_char(char c);
/* Where each segment of 'd' starts, 'd->len' + 1 entries (the last is
   the total). */
const int64_t *flat_seg_offsets(FlatValue *d);

/* Conversions between the components of a value and the source
   evaluator's Value (eval.h), for what runs on the host: the primitives
   of eval/io.c (HOST_PRIM) and the printed transcript.  'type' is the
   NESL type, datatypes included; 'mono' is the same type with datatypes
   as their fields' tuples (FlatTop.mono_type), walked in parallel as a
   check, or NULL.  A T_DATA in 'type' has the components of its fields
   and becomes val_data(constructor, fields).  The component counts and
   types must be those of the layout: anything else is a bug (die). */
Value flat_host_to_value(Eval *ev, Type *type, Type *mono, FlatValue **comps, int ncomps);
void flat_value_to_host(Eval *ev, Value v, Type *type, Type *mono, Vec *out); /* FlatValue * */
/* V(type) <-> a sequence (V_SEQ) of values of 'type'. */
Value flat_vector_to_value(Eval *ev, Type *type, Type *mono, FlatValue **comps, int ncomps);
void flat_value_to_vector(Eval *ev, Value seq, Type *type, Type *mono, Vec *out); /* FlatValue * */
/* The type of the fields of datatype 't' (a T_DATA) at t's arguments. */
Type *flat_data_fields(Eval *ev, Type *t);

/* ---- flat_print.c ---- */

void flat_print_program(FILE *out, const FlatProgram *p);
void flat_print_func(FILE *out, const FlatFunc *f);
void flat_print_block(FILE *out, const FlatBlock *b, int indent);

/* ---- flat_check.c ---- */

/* Checks the invariants of the IR: every variable is bound once before
   its use, operation arities and argument types agree with
   flat_ops.def, calls match their callee's parameters and results, both
   branches of an if give the results' types.  Reports the first broken
   invariant with its location and 'after' (the pass that ran last) and
   returns false. */
bool flat_check(const FlatProgram *p, const char *after);

/* ---- flat_exec.c: the operations on values, shared by the interpreters ---- */

/* Where a run-time error stands besides its own location: what the
   source evaluator knows of the calls under way when it reports one
   (ev_set_error_context).  An interpreter works it out once per call it
   makes, with flat_call_context. */
typedef struct FlatErrorContext {
  const char *lib_fn;  /* the library function the user's code called, or NULL */
  Loc lib_call;        /* where the user's code called it */
  const char *user_fn; /* the innermost user function running, or NULL */
  Loc stmt_loc;        /* the statement's outermost call of a user function */
} FlatErrorContext;

/* The context inside 'callee' (a NESL function name; 'library': from
   lib-nesl) called at 'call' by code of context 'caller' (NULL: the
   top-level statement's own code). */
FlatErrorContext flat_call_context(const FlatErrorContext *caller, const char *callee, bool library, Loc call);

/* What running an operation needs: the evaluator (errors, host
   primitives, rand's seed), the context of errors, and how many times
   each RAND site has run. */
typedef struct FlatExec FlatExec;

FlatExec *flat_exec_new(Eval *ev);
/* The context of the errors from now on, kept by pointer (NULL: the
   top-level statement's own code). */
void flat_exec_set_context(FlatExec *ex, const FlatErrorContext *c);
const FlatErrorContext *flat_exec_context(FlatExec *ex);

/* Stops the statement with `error: ...` at 'loc' in the current context;
   'prim' names the primitive the failing operation implements, for an
   error in the user's own code (NULL: none, as for subscripts). */
_Noreturn void flat_exec_fail(FlatExec *ex, Loc loc, const char *prim, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error of subscript 'i' out of range for 'len' elements in
   operation 'op' (GATHER, ELT or SCATTER), in the evaluator's words. */
_Noreturn void flat_exec_index_error(FlatExec *ex, Loc loc, FlatOp op, int32_t i, int64_t len);
/* The error of reading global 'name' whose definition failed. */
_Noreturn void flat_exec_fail_undefined(FlatExec *ex, Loc loc, const char *name);
/* Stops a call at 'call' with "recursion too deep" when the stack is
   nearly exhausted (ev_stack_exhausted). */
void flat_exec_check_stack(FlatExec *ex, Loc call);
/* The evaluator's name of the primitive that combines by 'op' (ADD or
   MUL) in a reduction or a scan: __reduce_add ...; NULL for other ops. */
const char *flat_combine_prim(FlatOp op, bool scan);

/* Runs operation s->op (an FS_OP statement: its loc, lifted, elem_type,
   result_type, prim and site count) on the values 'args' and appends
   its results' values to 'results' (FlatValue *): one, none for
   ERROR/ERROR_ANY, two for SEG_RANGE, the components of the result for
   HOST_PRIM.  (A caller that reuses one Vec allocates nothing there.) */
void flat_exec_op(FlatExec *ex, const FlatStmt *s, FlatValue **args, int nargs, Vec *results);
/* Element-wise 'op' (ADD ... COPY, not RAND) at 'loc' on all scalars or
   on vectors of one length.  'prim', when not NULL, is the primitive
   its errors name instead of the operation's own (the + of a reduction
   is __reduce_add's). */
FlatValue *flat_exec_elementwise(FlatExec *ex, FlatOp op, Loc loc, const char *prim, FlatValue **args,
                                 int nargs);
/* The same into 'result', a scalar or vector of the result's type and
   length that the caller made (on its stack, for a scalar). */
void flat_exec_elementwise_into(FlatExec *ex, FlatOp op, Loc loc, const char *prim, FlatValue **args, int nargs,
                                FlatValue *result);

/* What flat_exec_run_top needs from an interpreter. */
typedef struct FlatTopHooks {
  void *ctx;
  /* Runs the statement's block and returns the components of its value
     (*n of them); a run-time error longjmps out (ev_error). */
  FlatValue **(*run)(void *ctx, int *n);
  /* After a run-time error stopped 'run' (the error line printed):
     forget the frames (may be NULL). */
  void (*stopped)(void *ctx);
  /* Global 'index' (of FlatTop.defines) belongs to NESL variable 'name'
     (NULL: a wildcard's) and, unless NULL, gets 'value'. */
  void (*define)(void *ctx, int index, const char *name, FlatValue *value);
} FlatTopHooks;

/* Runs top-level statement 'top' and prints its transcript on 'out' as
   the source evaluator does: `name = fn : ...` for a definition (not
   the library's), `pattern = VALUE : TYPE`, `it = VALUE : TYPE`, or the
   `error:` line; each on a fresh line after the program's own output. */
void flat_exec_run_top(FlatExec *ex, FILE *out, FlatTop *top, const FlatTopHooks *hooks);

/* ---- flat_interp.c ---- */

typedef struct FlatStats {
  uint64_t host_calls;  /* FS_CALL statements run */
  uint64_t ops;         /* FS_OP statements run */
  uint64_t elements;    /* vector elements the operations produced */
  int max_depth;        /* deepest host recursion */
} FlatStats;

typedef struct FlatInterp FlatInterp;

/* Runs the program's statements in order, printing the same transcript
   as the source evaluator (eval.h) on 'out'.  'env' is the checked
   program's environment (for the `name = fn : ...` lines and datatype
   constructors when printing). */
FlatInterp *flat_interp_new(FlatProgram *p, TypeEnv *env, FILE *out);
void flat_interp_run_top(FlatInterp *in, FlatTop *top);
FlatStats flat_interp_stats(FlatInterp *in);

#endif
