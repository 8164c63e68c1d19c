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
#include "../common/ops.h"
#include "../rt/rt.h"
#include "../rt/scalar.h" /* the argument checks (RtCheckKind) */

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
  FS_COST, /* no results: NESL's cost model (docs/cost.md) at this point
              of the program, by 'cost_rule'; made only by flattening
              for --cost.  A step charges one construct of the source;
              the other rules follow the elements of the lifted
              contexts, each with its own clock (its depth so far), so
              that depth is per element as the model has it.  The
              arguments, 'lifted' (in a lifted context of m elements)
              or not (at the host):
                SIZE, UNIT, SORT: sizes; at the host each a vector (its
                  length), a segdes (its number of segments) or an int
                  scalar (itself); lifted, m (an int scalar) first and
                  then one size per element, a segdes of m segments
                  (each one's length) or an int scalar (every element's)
                EACH, DONE: at the host n, the number of elements of an
                  apply-to-each (an int scalar); lifted m and the segdes
                  of its elements, one segment per element of the
                  context
                SPLIT, JOIN (lifted only): m and flags, a [:bool:] of m
                OFF, ON (at the host): none */
} FlatStmtKind;

/* What an FS_COST does (ORDER FlatCostRule: flat_cost_rule_name).  A
   step's n is the largest of its sizes (of one element, lifted). */
typedef enum FlatCostRule {
  FLAT_COST_SIZE,  /* a step: work max(1, n), depth 1; one unit without sizes */
  FLAT_COST_UNIT,  /* a step: work 1, depth 1 */
  FLAT_COST_SORT,  /* a step: work n lg n, depth lg n */
  FLAT_COST_EACH,  /* an apply-to-each's elements begin, each at the
                      clock of the element of the context it belongs to
                      (a new context, theirs, inside the current one) */
  FLAT_COST_DONE,  /* they end: each element of the context takes the
                      latest clock of its elements, or keeps its own */
  FLAT_COST_SPLIT, /* the elements whose flag is true go on alone (a
                      new context): a lifted if's branch, a filter's
                      kept elements */
  FLAT_COST_JOIN,  /* they rejoin the others, in order, with their clocks */
  FLAT_COST_OFF,   /* what runs up to the matching ON runs for its errors
                      alone, and is charged nothing, the functions it
                      calls included (code run over no elements:
                      closed_parts, a closed expression's host copy) */
  FLAT_COST_ON,    /* the end of an OFF */
  FLAT_COST_COUNT
} FlatCostRule;

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
  /* The NESL types the dumps print, resolved to text by flattening (no
     IR holds a front-end type).  NAME, EQL, HASH: 'elem_name', the
     monomorphic type (datatypes as tuples) of the value whose components
     are the arguments.  HOST_PRIM: 'elem_name', the primitive's argument
     type with its datatypes kept (streams are a datatype), 'result_name'
     its result type, and 'prim_type' the primitive's type as the flat
     dump prints it (`(float, int) -> [char]`). */
  const char *elem_name, *result_name, *prim_type;
  const char *prim;   /* HOST_PRIM: the primitive's name (rt/host.def) */
  RtHost host;        /* HOST_PRIM: that primitive */
  /* NAME, EQL, HASH: the layout of the element type, datatypes named
     (NAME lifted: of (segment id, element)); HOST_PRIM: of the argument
     type and of the result type.  What the runtime reads values by. */
  const RtLayout *layout, *result_layout;
  int site;           /* RAND: numbers the call sites, for the generator */
  int check;          /* CHECK: the check (RtCheckKind) */
  int cost_rule;      /* FS_COST: FlatCostRule */
  bool segments;      /* SEG_RANGE: its ranges are whole segments of a
                         segdes, [offset, offset + length) stride 1, as
                         flattening makes them to gather nested values:
                         valid by construction, so no backend tests them
                         (lowering makes no check for them).  GATHER:
                         its indices are the elements of such ranges, or
                         of the segments of a nested value, read from the
                         vectors those segments describe: in range by
                         construction (lowering reads them unchecked).
                         REM: its divisor is not 0 wherever an element
                         is computed (a replication's index, rem(iota(l
                         * n), l), has no element when l is 0): fusion
                         knows it cannot fail; printed <nonzero> */
  bool once;          /* SEG_RANGE <segments>: each segment of the segdes
                         is taken at most once (a lifted subscript of a
                         nested value takes one of each value's own), so
                         the total is at most the segdes's and cannot
                         pass max_int; printed <segments once> */
  FlatAtom *total;    /* SEG_RANGE <segments>: the new segdes's total as
                         the host knows it (an int atom), where the ranges
                         are all the segments of a segdes, each once, in
                         another order (flatten.c, gather_values_in), so
                         that the total is that segdes's, or k times it
                         for segments each replicated k times; a lifted
                         [s:e:d] of constant bounds, k elements a range:
                         k times the ranges; MAKE_SEGDES: a lifted
                         append's, whose parts together hold all of some
                         values (flatten_prims.inc, lifted_append), or
                         a lifted sequence of k's; NULL where it is not
                         known.  The GPU then need not read it back.
                         Printed <total x> */
  bool guarded;       /* GATHER: a lifted subscript's, after its check
                         (flatten.c, subscript): each index is in range,
                         or -1 where the check fails, whose read gives the
                         zero of the type instead of an error, so that
                         the gather cannot fail wherever fusion computes
                         it, even before the check; printed <guarded> */
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
  Vec result_groups;  /* per result (intptr_t, as flatten_layout_groups
                         gives them): a nonzero group's vectors have one
                         length (sds one count) at every call; shape.c
                         reads them */
  Vec param_groups;   /* the same for the parameters: the components of
                         one NESL value (a vector of tuples) have one
                         length whenever the function runs; lowering
                         unites them in the function's own body */
  bool lifted;        /* the lifted version of a NESL function */
  bool library;       /* from lib-nesl */
  const char *source; /* the NESL function's name, for messages */
} FlatFunc;

/* What kind of top-level statement a FlatTop is (the front end's
   TOP_* kinds, ORDER TopKind). */
typedef enum FlatTopKind {
  FLAT_TOP_FUNCTION, /* a function definition: prints its signature */
  FLAT_TOP_DATATYPE, /* a datatype definition: the same */
  FLAT_TOP_BIND,     /* `pattern = expression`: defines globals */
  FLAT_TOP_EXPR,     /* an expression: prints `it = VALUE : TYPE` */
} FlatTopKind;

/* A top-level statement: its block computes the components of the value
   (host layout) of its type, which is printed as the REPL does.  What
   the transcript and the dumps say of the NESL statement is resolved to
   text and layouts once, by flattening (flatten/describe.c), so that no
   IR holds a node of the front end. */
typedef struct FlatTop {
  FlatTopKind kind;
  Loc loc;              /* the statement's */
  bool library;         /* one of lib-nesl's */
  const char *text;     /* the statement as --dump=ast prints it, of
                           'text_len' bytes (a character literal may be
                           a NUL) */
  size_t text_len;
  const char *signature; /* FUNCTION, DATATYPE of the program: the
                           transcript's `name = fn : TYPE` line (after
                           NESL's "Redefining NAME with a new type. ..."
                           where the name changes its type:
                           tc_redefinition_notice) */
  const char *scheme;   /* FUNCTION, DATATYPE: the type scheme the dumps
                           print after the text */
  const char *type_name; /* BIND, EXPR: the value's NESL type (datatypes
                           included), as printed */
  const char *pattern;  /* BIND: the pattern as the transcript prints it
                           (after NESL's notice, as 'signature');
                           EXPR: "it" */
  const char **component_vars; /* BIND: for each component of the value
                           (H(t), layout order) the pattern variable it
                           belongs to, NULL for a wildcard's */
  FlatBlock *body;      /* NULL for definitions */
  Vec defines;          /* BIND: one global FlatVar * per component of
                           the value, in layout order (a wildcard's too),
                           or one per component of the pattern's
                           variables; the flattener gives each pattern
                           variable its slice (see 'globals') */
  const RtLayout *layout; /* BIND, EXPR: of the value's type: how it
                           prints, and its components (datatypes are their
                           fields' components) */
  Vec replaced;         /* BIND: empty, or one for one with 'defines':
                           the global (FlatVar *) of the definition each
                           replaces (tc_replaced_def), or NULL.  Where the
                           statement stops with an error, each keeps
                           that one's value: CMU NESL binds nothing then,
                           and the old definition's readers read the new
                           one (`3; 1 / 0; it;` prints 3) */
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
FlatType flat_atom_type(const FlatAtom *a);

/* A sequence loop (flatten.c) is a function that takes a vector; its
   `call each` passes each scalar parameter a vector of the elements'
   values, and each vector parameter a segdes and its values, or one
   vector every element reads whole (shared). */
bool flat_func_takes_vectors(const FlatFunc *f);
/* Where the arguments of parameter 'param' of the callee of `call each`
   's' begin among s's arguments, or -1 past them; '*shared' (if not
   NULL) says whether it is a vector passed as one shared vector. */
int flat_each_arg(const FlatStmt *s, int param, bool *shared);

/* The flat types of the components of H(t) ('host') or V(t), for the
   type whose runtime layout is 'l' (a datatype's are its fields'), into
   'out' (FlatType *). */
void flat_layout_types(const RtLayout *l, bool host, Vec *out);

/* The name of cost rule 'r' as the dumps print it after `cost` (size,
   each, split, ...), and the rule of a name, or -1. */
const char *flat_cost_rule_name(FlatCostRule r);
int flat_cost_rule_lookup(const char *name);
/* NULL if a cost statement of rule 'r' ('lifted' or not) may take
   arguments of the types 'args' (flat.h, FS_COST); else what is wrong.
   Both IRs' checkers ask it. */
const char *flat_cost_check(FlatCostRule r, bool lifted, const FlatType *args, int n);

/* ---- what a reader of IR text asks of the front end ----

   λcu's text (lcu/lcu_read.c) carries each top-level statement's NESL
   and the NESL types of the operations on whole values.  No IR sees the
   front end, so the reader cannot parse or type check them itself: the
   front end's side (flatten/describe.c: flatten_nesl_reader) answers
   through these hooks, in the terms of the flat IR. */
typedef struct FlatNeslReader {
  void *ctx;
  /* Takes 'text', one NESL statement (lib-nesl's if 'library') of file
     'file', for a later check_next; false, after a diagnostic, if it is
     not one statement.  All statements are taken before any is checked,
     so that a function may call one defined after it. */
  bool (*parse)(void *ctx, const char *file, const char *text, bool library);
  /* Type checks the next statement taken (in order) and describes it in
     a new FlatTop, without a block or globals; NULL if it does not type
     check. */
  FlatTop *(*check_next)(void *ctx);
  /* The NESL type 'text' (as a dump prints one between < and >): its
     runtime layout, datatypes named, and in '*name' the type as the
     dumps print it; NULL, with the reason in '*why', if it is not a
     type. */
  const RtLayout *(*type)(void *ctx, const char *text, const char **name, const char **why);
} FlatNeslReader;

/* ---- flat_print.c ---- */

void flat_print_program(FILE *out, const FlatProgram *p);
void flat_print_func(FILE *out, const FlatFunc *f);
void flat_print_block(FILE *out, const FlatBlock *b, int indent);
/* What λcu's printer shares with this one, whose CPU level reads as the
   flat IR does (constants print through common/ops.h's
   flat_print_const): a nested block, of `if` and `time`: `{`, a
   newline, block 'b' printed one level deeper than 'indent' by 'print'
   (given 'ctx'), and `}` at 'indent'. */
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

/* Ctrl-C inside a loop of one statement that may run long by itself (a
   scalar function's iterations, the elements of a λcu REDUCE or SCAN):
   the statement stops at 'loc' with "interrupted (Ctrl-C)".  One load
   of a volatile flag, as the evaluator's at every call. */
static inline void flat_exec_interrupted(Loc loc);

/* Statement 'loc' runs: it is where running out of memory is reported
   (rt_here), and the statement stops with "interrupted (Ctrl-C)" when
   Ctrl-C was pressed (interrupt_pending): the interpreters call it at
   every statement they run, which bounds the wait by one vector
   operation. */
static inline void flat_exec_interrupted(Loc loc) {
  if (interrupt_pending()) {
    interrupt_clear();
    rt_fail(flat_rt_loc(loc), NULL, "interrupted (Ctrl-C)");
  }
}

static inline void flat_exec_poll(Loc loc) {
  rt_here = flat_rt_loc(loc); /* for running out of memory */
  flat_exec_interrupted(loc);
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
  /* After a binding stopped with an error: each global of FlatTop.
     replaced gives its value to the global of 'defines' beside it (may be
     NULL). */
  void (*keep_replaced)(void *ctx);
  bool quiet; /* the value is not printed (the REPL's :cost) */
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

/* NESL's cost model as both interpreters measure it, from the cost
   statements (FS_COST, λcu's LS_COST) of one top-level statement: its
   work, and a clock per element of each lifted context open (the host's
   is 'clock'), which the steps advance and EACH, DONE, SPLIT and JOIN
   hand from the elements of one context to those of another. */
typedef struct FlatCost {
  uint64_t work;  /* the statement's work so far */
  uint64_t clock; /* its depth so far, at the host */
  Vec contexts;   /* the lifted contexts open, innermost last (each a
                     clock per element: flat_exec.c's CostContext) */
  int off;        /* OFFs run without their ON: nothing is charged */
  RtLoc loc;      /* of the cost statement running */
} FlatCost;

/* A statement begins: nothing charged, no context open. */
void flat_cost_begin(FlatCost *c);
/* Cost statement of rule 'rule' ('lifted' or not), at 'loc', on the
   values of its 'n' arguments 'args' (flat.h, FS_COST).  Statements that
   do not follow the contexts' elements (written by hand) stop the
   statement with a run-time error (rt_fail). */
void flat_cost_run(FlatCost *c, FlatCostRule rule, bool lifted, RtValue **args, int n, Loc loc);

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
/* With 'on', each statement that ran to its end prints after its line
   `cost: work W, depth D`, as its FS_COST statements measure them
   (FlatCost; the program must come from flattening for --cost). */
void flat_interp_set_cost(FlatInterp *in, bool on);
/* With 'on', a statement's value is not printed (its cost line is): the
   REPL's :cost. */
void flat_interp_set_quiet(FlatInterp *in, bool on);

#endif
