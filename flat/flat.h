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
 * (rt/ops.def), a call, an `if` on a scalar bool, or a timed block,
 * followed by the block's result atoms.  Control flow stays on the host:
 * only `if` and calls; recursion is host recursion.
 *
 * Every IR has a printer, a checker and an interpreter (flat_print.c,
 * flat_check.c, flat_interp.c).
 */
#ifndef NESSIE_FLAT_H
#define NESSIE_FLAT_H

#include "../common/common.h"
#include "../frontend/ast.h"
#include "../frontend/typecheck.h"
#include "../frontend/types.h"
#include "../rt/rt.h"
#include "../rt/scalar.h" /* the argument checks (RtCheckKind) */

/* The operations are the runtime's (rt/ops.def: names, classes,
   signatures), FLAT_ADD being RT_ADD. */
typedef enum FlatOp {
#define FLAT_OP(name, text, class, args, results, combine) FLAT_##name,
#include "../rt/ops.def"
  FLAT_OP_COUNT
} FlatOp;

const char *flat_op_name(FlatOp op);
int flat_op_nargs(FlatOp op);    /* -1: any number */
int flat_op_nresults(FlatOp op); /* -1: any number */
static inline RtOp flat_rt_op(FlatOp op) { return (RtOp)op; }

/* ---- types ---- */

/* The flat IR's types are the runtime's representation types (rt.h):
   a component is a scalar, a vector of a base type or a segment
   descriptor, in the IR as at run time.  The IR keeps its own names for
   them, which are the runtime's. */
typedef RtBase FlatBase;
#define FB_INT RT_INT
#define FB_FLOAT RT_FLOAT
#define FB_BOOL RT_BOOL
#define FB_CHAR RT_CHAR

typedef RtKind FlatTypeKind;
#define FT_SCALAR RT_SCALAR /* one value of a base type */
#define FT_VEC RT_VEC       /* a flat vector of a base type: [:int:] */
#define FT_SEGDES RT_SEGDES /* a segment descriptor: the lengths of consecutive segments */

typedef RtType FlatType;

/* The types of op's results given its arguments' types 'args' (n of
   them), by the signature columns of rt/ops.def; NULL, with the reason in
   '*why', when the arguments do not fit.  The operations whose arguments
   follow a layout (NAME, EQL, HASH, HOST_PRIM) are their caller's to
   check. */
Vec *flat_op_result_types(FlatOp op, const FlatType *args, int n, const char **why); /* FlatType * */
bool flat_type_equal(FlatType a, FlatType b);
const char *flat_type_name(FlatType t); /* "int", "[:float:]", "segdes" */
static inline RtType flat_rt_type(FlatType t) { return t; }
static inline RtBase flat_rt_base(FlatBase b) { return b; }
/* A source location as the runtime sees it. */
static inline RtLoc flat_rt_loc(Loc l) { return (RtLoc){l.src ? l.src->name : NULL, l.line, l.col}; }

/* ---- variables and atoms ---- */

typedef struct FlatVar {
  int id;           /* unique in the program, for printing: x12 */
  const char *hint; /* the NESL name it comes from, or NULL */
  FlatType type;
  int shape;        /* shape analysis: vectors (and segdes) with the same
                       nonzero shape have the same length (number of
                       segments); 0 when unknown */
  int strict;       /* the same, where the lengths are one whenever the
                       variables exist, not only once a check of them has
                       passed (shape.c) */
  bool global;      /* a component of a top-level binding's value: bound
                       by the FlatTop that defines it, readable anywhere
                       after */
  struct FlatVar *within; /* a function's parameter that is a component of
                       the elements of a nested value: the segdes
                       parameter whose elements it lies in (its length,
                       or number of segments, is that segdes's number of
                       elements); NULL otherwise */
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
  FS_CALL, /* results = callee(args); with 'each': the callee, a
              function of scalars giving one scalar (a loop, a plain
              function or one component of one: flatten.c's
              called_each), applied to each element of its vector
              args, one vector result */
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
  bool each;                          /* FS_CALL: callee applied to each element */
  struct FlatBlock *then, *els, *body; /* FS_IF; FS_TIME's body */
  /* FS_OP details: */
  bool lifted;        /* NAME, EQL, HASH, HOST_PRIM: on vectors of values */
  Type *elem_type;    /* NAME, EQL, HASH: the monomorphic type (datatypes
                         as tuples) of the value whose components are the
                         arguments.  HOST_PRIM: the primitive's argument
                         type with its datatypes kept (streams are a
                         datatype), and 'result_type' its result type. */
  Type *result_type;  /* HOST_PRIM */
  const char *prim;   /* HOST_PRIM: the primitive's name (rt/host.def) */
  RtHost host;        /* HOST_PRIM: that primitive */
  /* NAME, EQL, HASH: the layout of the element type, datatypes named
     (NAME lifted: of (segment id, element)); HOST_PRIM: of the argument
     type and of the result type.  What the runtime reads values by. */
  const RtLayout *layout, *result_layout;
  int site;           /* RAND: numbers the call sites, for the generator */
  int check;          /* CHECK: the check (RtCheckKind) */
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
  Vec result_groups;  /* per result (intptr_t, as flat_layout_groups
                         gives them): a nonzero group's vectors have one
                         length (sds one count) at every call; shape.c
                         reads them */
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
  const RtLayout *layout; /* of 'type': how the value prints */
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
/* For each component of H(t) ('host') or V(t), in the same order: one
   plus the index of the segdes component whose elements it lies in, or
   0 for a component at the top (as a pointer-sized integer). */
void flat_layout_within(Type *t, bool host, Vec *out);
/* For each component of H(t) ('host') or V(t), in the same order: a
   group number (intptr_t), the same for components known to have one
   length (vectors) or count (segment descriptors), 0 for a scalar: V(t)'s
   top-level components are in group 'context' (a lifted function's
   elements), H([t])'s in a new group, and the components in the elements
   of one segdes in a new group; new groups are numbered from *next + 1
   on (*next is advanced). */
void flat_layout_groups(Type *t, bool host, intptr_t context, int *next, Vec *out);

/* The runtime's layout descriptor of NESL type 't' (datatypes included,
   named: rt.h), made by the compiler once per statement for what the
   runtime must read as whole values (printing, @, name, eql, hash, the
   host primitives).  'env' finds the datatypes' fields. */
const RtLayout *flat_rt_layout(TypeEnv *env, Type *t);
/* The type of the fields of datatype 't' (a T_DATA) at t's arguments. */
Type *flat_data_fields(TypeEnv *env, Type *t);

/* ---- flat_print.c ---- */

void flat_print_program(FILE *out, const FlatProgram *p);
void flat_print_func(FILE *out, const FlatFunc *f);
void flat_print_block(FILE *out, const FlatBlock *b, int indent);
/* What λcu's printer shares with this one, whose CPU level reads as the
   flat IR does: constant atom 'a' as a NESL literal (false, printing
   nothing, if 'a' is not a constant); and a nested block, of `if` and
   `time`: `{`, a newline, block 'b' printed one level deeper than
   'indent' by 'print' (given 'ctx'), and `}` at 'indent'. */
bool flat_print_constant(FILE *out, const FlatAtom *a);
typedef void FlatPrintBlockFn(void *ctx, const void *b, int indent);
void flat_print_braced(FILE *out, int indent, FlatPrintBlockFn *print, void *ctx, const void *b);

/* ---- flat_check.c ---- */

/* Checks the invariants of the IR: every variable is bound once before
   its use, operation arities and argument types agree with
   rt/ops.def, calls match their callee's parameters and results, both
   branches of an if give the results' types.  Reports the first broken
   invariant with its location and 'after' (the pass that ran last) and
   returns false. */
bool flat_check(const FlatProgram *p, const char *after);

/* ---- flat_exec.c: what both interpreters share: a flat operation run
   on values by the runtime, the transcript of a statement, `if` and
   `time`, and scalar functions run on scalars in place ---- */

/* The context of errors inside 'callee' (a NESL function name; 'library':
   from lib-nesl) called at 'call' by code of context 'caller' (NULL: the
   top-level statement's own code): rt_call_context with the compiler's
   locations. */
RtContext flat_call_context(const RtContext *caller, const char *callee, bool library, Loc call);

/* Runs operation s->op (an FS_OP statement: its loc, lifted, layouts,
   host primitive and RAND site) on the values 'args' and appends its
   results' values to 'results' (RtValue *): one, none for
   ERROR/ERROR_ANY, two for SEG_RANGE and the other two-result
   operations, the components of the result for HOST_PRIM.  A run-time
   error longjmps (rt_fail). */
void flat_exec_op(const FlatStmt *s, RtValue **args, int nargs, Vec *results);
/* Scalars held in place, in RtValue structs whose data is their own
   'scalar' (the interpreters' scalar loops, without an allocation an
   operation): '*to' made a scalar of base 'b'; given the type and value
   of scalar 'from'; given constant 'a'. */
void flat_scalar_init(RtValue *to, RtBase b);
void flat_scalar_set(RtValue *to, const RtValue *from);
void flat_scalar_const(RtValue *to, const FlatAtom *a);
/* ... given element 'j' of vector 'v'. */
void flat_scalar_elem(RtValue *to, const RtValue *v, int64_t j);

/* The value of a constant atom (made anew). */
RtValue *flat_exec_constant(const FlatAtom *a);

/* The branch an `if` on condition 'c' (a bool scalar) takes: true for
   `then`. */
bool flat_exec_cond(const RtValue *c);
/* `time`: seconds on a monotonic clock, taken before the body runs; and
   the statement's results, the body's 'n' values 'values' and then the
   seconds since 'start'. */
double flat_exec_clock(void);
RtValue **flat_exec_timed(RtValue **values, int n, double start);

/* What flat_scalar_call needs from an interpreter: where the variables
   of a scalar function live in its frame, and what to count. */
typedef struct FlatScalarEnv {
  void *ctx;
  /* The number of slots of f's frame; '*slot_of' gets, by variable id,
     the slot of each variable f binds. */
  int (*layout)(void *ctx, const FlatFunc *f, const int **slot_of);
  uint64_t *ops;   /* operations run, counted unless NULL */
  uint64_t *calls; /* calls and tail calls, counted unless NULL */
} FlatScalarEnv;

/* Scalar function 'f' (flatten.c's called_each: scalars in, one scalar
   out; its body only operations on scalars, ifs and calls of such
   functions) on the scalars 'args', called at 'call', into '*out': on
   scalars in place, its tail calls of itself a loop.  A run-time error
   longjmps (rt_fail) in the context of a function called at 'call'. */
void flat_scalar_call(const FlatScalarEnv *env, const FlatFunc *f, RtValue **args, Loc call, RtValue *out);

/* Statement 'loc' runs: it is where running out of memory is reported
   (rt_here), and the statement stops with "interrupted (Ctrl-C)" when
   Ctrl-C was pressed (interrupt_pending): the interpreters call it at
   every statement they run, which bounds the wait by one vector
   operation. */
static inline void flat_exec_poll(Loc loc) {
  rt_here = flat_rt_loc(loc); /* for running out of memory */
  if (interrupt_pending()) {
    interrupt_clear();
    rt_fail(flat_rt_loc(loc), NULL, "interrupted (Ctrl-C)");
  }
}

/* What flat_exec_run_top needs from an interpreter. */
typedef struct FlatTopHooks {
  void *ctx;
  /* Runs the statement's block and returns the components of its value
     (*n of them); a run-time error longjmps out (rt_fail). */
  RtValue **(*run)(void *ctx, int *n);
  /* After a run-time error stopped 'run' (the error line printed):
     forget the frames (may be NULL). */
  void (*stopped)(void *ctx);
  /* Global 'index' (of FlatTop.defines) belongs to NESL variable 'name'
     (NULL: a wildcard's) and, unless NULL, gets 'value'. */
  void (*define)(void *ctx, int index, const char *name, RtValue *value);
} FlatTopHooks;

/* Runs top-level statement 'top' and prints its transcript on the
   runtime's output as the source evaluator does: `name = fn : ...` for a
   definition (not the library's), `pattern = VALUE : TYPE`, `it = VALUE
   : TYPE`, or the `error:` line; each on a fresh line after the
   program's own output.  Returns false if a run-time error stopped it. */
bool flat_exec_run_top(FlatTop *top, const FlatTopHooks *hooks);

/* The NESL variable each of top->defines belongs to (NULL: a
   wildcard's), for a binding. */
const char **flat_top_define_names(FlatTop *top);

/* Makes the runtime allocate through the collector (the interpreters'
   values are the collector's), once. */
void flat_exec_use_gc(void);

/* ---- flat_interp.c ---- */

typedef struct FlatStats {
  uint64_t host_calls;  /* FS_CALL statements run */
  uint64_t ops;         /* FS_OP statements run */
  uint64_t elements;    /* vector elements the operations produced */
  int max_depth;        /* deepest host recursion */
} FlatStats;

typedef struct FlatInterp FlatInterp;

/* Runs the program's statements in order, printing the same transcript
   as the source evaluator on 'out' (the runtime's output from now on). */
FlatInterp *flat_interp_new(FlatProgram *p, FILE *out);
/* False when a run-time error stopped the statement. */
bool flat_interp_run_top(FlatInterp *in, FlatTop *top);
FlatStats flat_interp_stats(FlatInterp *in);

#endif
