/*
 * rt.h: nessie's runtime, the one home of what a running NESL program
 * needs, shared by the interpreters of the flat IR and of λcu and by the
 * executables that code generation writes.  Plain C17 with no other
 * dependency (no Boehm GC, nothing of the compiler), so that a generated
 * program links it as it is.
 *
 *   value.c      the run-time representation of flat values: scalars,
 *                vectors of a base type with 64-bit lengths, segment
 *                descriptors; allocation through a replaceable allocator
 *   error.c      run-time errors: their words, their context (which
 *                library function the user's code called, which user
 *                function runs), the `error:` line, the statement guard;
 *                the transcript stream; the stack limit of recursion
 *   ops.c        the element-wise operations on vectors and scalars
 *                (their scalar semantics are scalar.h's, which generated
 *                code inlines), reductions and scans, plain and segmented
 *   vector.c     the other vector operations of the flat IR: dist,
 *                ranges, gathers, scatters, packs, appends, segment
 *                descriptors, extreme indices, ranks (the sort)
 *   layout.c     layout descriptors: how a NESL value of some type is
 *                spread over flat components, for what must see whole
 *                values (printing, @, name, eql, hash, host primitives)
 *   structured.c name, eql and hash over values of any type
 *   print.c      NESL's printed form of every value (the REPL's), and of
 *                @ (NESL's own conversion to text)
 *   host.c       the text and I/O primitives over flat components: print,
 *                parse, files, streams, objects in files
 *   rand.c       the counter-based random numbers of lib-nesl/README.md
 *
 * Values are never changed in place once made, so that they may be shared.
 * Every operation that can fail reports through rt_fail, which prints the
 * error line and longjmps to the statement's guard (rt_set_stop).
 */
#ifndef NESSIE_RT_H
#define NESSIE_RT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The GPU target's generated code is CUDA C++: the runtime, which is C,
   is declared for it too. */
#ifdef __cplusplus
#define RT_NORETURN [[noreturn]]
extern "C" {
#else
#define RT_NORETURN _Noreturn
#endif

/* ---- operations (ops.def) ---- */

typedef enum RtOp {
#define FLAT_OP(name, text, class, args, results, combine) RT_##name,
#include "ops.def"
  RT_OP_COUNT
} RtOp;

/* What an operation is, the `class` column of ops.def. */
typedef enum RtOpClass {
  OPC_ELEMENTWISE, /* on scalars, or on vectors of one length position by position */
  OPC_VECTOR,      /* on whole vectors */
  OPC_REDUCE,      /* a reduction (its combining operation in `combine`) */
  OPC_SCAN,        /* an exclusive scan */
  OPC_SEGDES,      /* makes or reads a segment descriptor */
  OPC_SEG_REDUCE,  /* a reduction per segment */
  OPC_SEG_SCAN,    /* an exclusive scan per segment */
  OPC_SEGMENTED,   /* another operation per segment */
  OPC_STRUCTURED,  /* over values of any type, given by their layout */
  OPC_HOST,        /* text and I/O on the host */
  OPC_ERROR,       /* stops the statement */
} RtOpClass;

const char *rt_op_name(RtOp op);      /* the printed name: "add" */
RtOpClass rt_op_class(RtOp op);
/* The signature columns of ops.def: see the file's header for the
   notation.  NULL for the operations whose arguments follow a layout
   (NAME, EQL, HASH, HOST_PRIM). */
const char *rt_op_args(RtOp op);
const char *rt_op_results(RtOp op);
int rt_op_nargs(RtOp op);    /* -1: any number */
int rt_op_nresults(RtOp op); /* -1: any number */
/* How a reduction or scan combines (the `combine` column). */
typedef enum RtCombine {
  RC_NONE, /* not a reduction or scan */
  RC_ADD,
  RC_MUL,
  RC_MAX,
  RC_MIN,
  RC_AND,
  RC_OR,
  RC_XOR,
} RtCombine;
RtCombine rt_op_combine(RtOp op);

/* ---- values (value.c) ---- */

typedef enum RtBase {
  RT_INT,   /* int32_t */
  RT_FLOAT, /* double */
  RT_BOOL,  /* uint8_t, 0 or 1 */
  RT_CHAR,  /* char */
} RtBase;

typedef enum RtKind {
  RT_SCALAR, /* one value of a base type */
  RT_VEC,    /* a flat vector of a base type */
  RT_SEGDES, /* a segment descriptor: the lengths of consecutive segments */
} RtKind;

typedef struct RtType {
  RtKind kind;
  RtBase base; /* RT_SCALAR, RT_VEC */
} RtType;

/* One component of a value: a scalar, a flat vector, or a segment
   descriptor (its lengths; its offsets made when first asked for).  A
   scalar's data points at its own 'scalar' field, so that code may read
   every value through 'data'. */
typedef struct RtValue {
  RtType type;
  int64_t len; /* RT_VEC: elements; RT_SEGDES: segments; RT_SCALAR: 1 */
  union {
    int32_t *i;
    double *f;
    uint8_t *b;
    char *c;
    void *any;
  } data;              /* RT_SCALAR, RT_VEC */
  int64_t *lengths;    /* RT_SEGDES: 'len' lengths */
  int64_t *offsets;    /* RT_SEGDES: 'len' + 1 offsets or NULL (rt_seg_offsets) */
  int32_t *ids;        /* RT_SEGDES on the GPU: each element's segment, made on first use
                          (rtg_seg_ids_raw) and owned by the segdes, or NULL */
  union {
    int32_t i;
    double f;
    uint8_t b;
    char c;
  } scalar;
  int64_t refs; /* the references the executables hold (rt_retain) */
  /* The GPU target: data, lengths and offsets are in device memory, and
     the host knows a segdes's total once it has been read (-1: not yet). */
  bool device;
  int64_t total;
  /* The GPU target: the same vector or segdes on the other side (its
     data on the host if 'device', else on the device), or NULL.  Values
     never change, so a small value that has moved keeps the copy it
     left behind, and moving back is a swap (rt/gpu.cu, swap_sides). */
  struct RtValue *mirror;
  /* The GPU target: the [int] vector a segdes was made from
     (rtg_make_segdes), or that seg_lengths made the first time it was
     asked, held, which seg_lengths then gives again instead of
     narrowing 'lengths' in a launch; or NULL. */
  struct RtValue *lengths_vec;
  /* The GPU target: the [int] vector of a segdes's offsets that
     seg_offsets made the first time it was asked (rtg_seg_starts), held
     and given again; or NULL.  A quicksort level asks for one segdes's
     offsets up to three times, each a launch before this. */
  struct RtValue *offsets_vec;
  /* The GPU target: a vector's data has room for this many elements
     (more than 'len' where rtg_vec_fit cut it and kept its memory), so
     that an append may write its second part there (rtg_append_into);
     0: 'len'. */
  int64_t room;
} RtValue;

/* Frees device memory (set by the GPU runtime, rt/gpu.cu). */
extern void (*rt_device_free)(void *p);

/* Where the runtime's memory comes from.  The default is malloc and free;
   the interpreters, whose values the compiler's collector looks after,
   give Boehm GC's allocator and a free that does nothing.  'alloc' gives
   zeroed memory that may hold pointers, 'alloc_atomic' memory for plain
   data.  An allocator returns NULL when the memory is not there. */
typedef struct RtAllocator {
  void *(*alloc)(size_t size);
  void *(*alloc_atomic)(size_t size);
  void (*free)(void *p);
} RtAllocator;
void rt_set_allocator(const RtAllocator *a);
/* The most memory a run may take, in bytes (README.md, NESSIE_MEMORY):
   the environment's NESSIE_MEMORY when set (a number of bytes, or of
   K, M, G or T: 1024, 1024^2, ...; 0 for no limit), else half the
   physical memory or of the cgroup's limit, whichever is less, and
   never more than RLIMIT_AS.  Past it an allocation fails as when the
   system refuses it, an error of the statement that asked, instead of
   the system's OOM killer ending the whole run without a word.  A
   NESSIE_MEMORY that is not a size gives 0 and says why in '*bad'
   (NULL otherwise). */
size_t rt_memory_limit(const char **bad);
/* The default allocator (malloc) refuses what would take the bytes it
   holds past 'bytes' (0: no limit): rt_main sets rt_memory_limit's. */
void rt_set_memory_limit(size_t bytes);
void *rt_alloc(size_t size);        /* stops the statement when out of memory */
/* rt_alloc_atomic without the stop: NULL when out of memory, for a
   caller with memory of its own to free first (rt_out_of_memory). */
void *rt_try_alloc_atomic(size_t size);
RT_NORETURN void rt_out_of_memory(size_t size); /* the statement's error */
void *rt_alloc_atomic(size_t size); /* the same, not zeroed */
void rt_free(void *p);

static inline RtType rt_scalar_type(RtBase b) { return (RtType){RT_SCALAR, b}; }
static inline RtType rt_vec_type(RtBase b) { return (RtType){RT_VEC, b}; }
static inline RtType rt_segdes_type(void) { return (RtType){RT_SEGDES, RT_INT}; }
bool rt_type_equal(RtType a, RtType b);
const char *rt_type_name(RtType t); /* "int", "[:float:]", "segdes" */
const char *rt_base_name(RtBase b); /* "int" ... */
size_t rt_base_size(RtBase b);      /* bytes of one element */

/* A value of type 't' with 'len' elements left uninitialized (a scalar
   has one; a segdes gets 'len' lengths). */
RtValue *rt_value_new(RtType t, int64_t len);
/* Gives back a value's memory (executables, after its last use). */
void rt_value_free(RtValue *v);
/* The executables share values by counting references: a new value has
   one; the last release frees it. */
void rt_retain(RtValue *v);
void rt_release(RtValue *v);
RtValue *rt_int(int32_t i);
RtValue *rt_float(double f);
RtValue *rt_bool(bool b);
RtValue *rt_char(char c);
/* A [char] vector holding 'n' bytes of 's'. */
RtValue *rt_chars(const char *s, size_t n);
/* Where each segment of 'd' starts: 'd->len' + 1 entries, the last the
   total. */
const int64_t *rt_seg_offsets(RtValue *d);
int64_t rt_seg_total(RtValue *d);
/* Segdes 'd', just made, holds 'total' elements, as the compiler knows
   (FlatStmt.total): a wrong total is the compiler's error, an internal
   error here (on the GPU, rtg_seg_known_total takes it instead of
   reading the total back). */
void rt_seg_known_total(RtValue *d, int64_t total);
/* The compiler's error that rt_seg_known_total finds: a segdes of 'made'
   elements said to hold 'said'. */
RT_NORETURN void rt_seg_total_wrong(int64_t made, int64_t said);
/* Element 'k' of vector (or scalar) 'v' as a value of its own. */
RtValue *rt_scalar_at(const RtValue *v, int64_t k);

/* ---- run-time errors (error.c) ---- */

/* A place in the NESL source.  'via' (NULL: none) says that the code
   there was inlined from a user function by the compiler: its errors are
   reported as if that function had been called (rt_inlined_context). */
struct RtInlined;
typedef struct RtLoc {
  const char *file; /* NULL: no location */
  int line, col;
  const struct RtInlined *via;
} RtLoc;

/* Code inlined from user function 'fn' called at 'call' (the compiler's
   Inlined, common/common.h: 'call' is in code that was not inlined, and
   'fn' the innermost function of a nest of inlined ones). */
typedef struct RtInlined {
  const char *fn;
  RtLoc call;
} RtInlined;

/* An RtLoc as an expression, in C and in C++ (generated code uses both);
   RT_LOC_VIA for code inlined from a user function. */
#ifdef __cplusplus
#define RT_LOC(f, l, c) (RtLoc{(f), (l), (c), NULL})
#define RT_LOC_VIA(f, l, c, v) (RtLoc{(f), (l), (c), (v)})
#else
#define RT_LOC(f, l, c) ((RtLoc){(f), (l), (c), NULL})
#define RT_LOC_VIA(f, l, c, v) ((RtLoc){(f), (l), (c), (v)})
#endif
/* A pointer to a static RtInlined for function 'fn' called at f:l:c, in
   a function's body: generated code names a record where it needs it (a
   statement expression, which gcc, clang and nvcc's host compilers
   accept in C and C++). */
#define RT_INLINED(fn, f, l, c)                                                                                       \
  __extension__({                                                                                                     \
    static const RtInlined rt_inlined_record = {(fn), {(f), (l), (c), NULL}};                                        \
    &rt_inlined_record;                                                                                               \
  })

/* Where a run-time error stands besides its own location: what the
   source evaluator knows of the calls under way.  'lib_fn' is the
   library function the user's code called at 'lib_call' (its library
   name: "__div", "mod"; NULL: none); 'user_fn' the innermost user
   function running (NULL: the statement's own code) and 'stmt_loc' the
   statement's outermost call of a user function. */
typedef struct RtContext {
  const char *lib_fn;
  RtLoc lib_call;
  const char *user_fn;
  RtLoc stmt_loc;
} RtContext;

/* The context inside 'callee' (a NESL function's name; 'library': from
   lib-nesl) called at 'call' by code of context 'caller' (NULL: the
   top-level statement's own code). */
RtContext rt_call_context(const RtContext *caller, const char *callee, bool library, RtLoc call);
/* The context of code inlined as 'via' says (NULL: 'c' itself), in code
   of context 'c': as if the function had been called there.  Applying
   the same record twice gives what applying it once gives, so that code
   that entered it already (a library function inlined into it) may. */
RtContext rt_inlined_context(const RtContext *c, const struct RtInlined *via);

/* The context of the errors from now on, kept by pointer (NULL: the
   statement's own code). */
void rt_set_context(const RtContext *c);
const RtContext *rt_context(void);

/* The text of an error line after `error: `: the location, the message,
   and what the context says (`mod: ...`, `(in function f, line 3,
   column 5)`).  'prim' is the library primitive the failing operation
   implements, named as lib-nesl names it ("__div"): used when the error
   is in the user's own code (NULL: none is named, as for subscripts).
   The evaluator words its errors through this too.  The string is a
   static buffer, valid until the next call. */
char *rt_error_text(const RtContext *c, RtLoc loc, const char *prim, const char *msg);
/* The same without the location, which goes to '*where' (may be NULL). */
char *rt_error_message(const RtContext *c, RtLoc loc, const char *prim, const char *msg, RtLoc *where);

/* Who prints a run-time error: by default `error: FILE:LINE:COL: WORDS`
   on the transcript; the interpreters report through the compiler's
   diagnostics instead, which also show the source line (a NULL file:
   no location).  Returns the reporter it replaces. */
typedef void (*RtReporter)(RtLoc where, const char *words);
RtReporter rt_set_reporter(RtReporter r);

/* Where the host is: the `run` or host operation under way (the
   generated code and the interpreters set it), for the errors that know
   no place of their own: running out of memory. */
extern RtLoc rt_here;

/* Stops the statement: prints `error: TEXT` (rt_error_text in the
   current context) on a fresh line of the transcript, and longjmps to
   the stop set with rt_set_stop (without one, exits with status 1). */
RT_NORETURN void rt_fail(RtLoc loc, const char *prim, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
RT_NORETURN void rt_vfail(RtLoc loc, const char *prim, const char *fmt, va_list ap);
/* The guard of the statement running; returns the previous one. */
jmp_buf *rt_set_stop(jmp_buf *stop);
/* An error was reported since the last rt_clear_failed: an executable
   exits with status 1 at the end. */
bool rt_failed(void);
void rt_clear_failed(void);

/* Enters library function 'lib_fn' called from the user's code at
   'call' (code inlined from lib-nesl reports its errors as in that
   function), unless the code running is the library's already: the
   context to restore afterwards.  'buf' holds the new context. */
const RtContext *rt_enter_library(RtContext *buf, const char *lib_fn, RtLoc call);

/* What an executable did, printed at its exit on stderr when the
   environment has NESSIE_STATS=1. */
typedef struct RtStats {
  uint64_t kernels; /* kernel launches (runs of λcu kernels) */
  uint64_t syncs;   /* host synchronizations with a GPU */
  uint64_t bytes;   /* bytes allocated for vectors and segment descriptors */
} RtStats;
extern RtStats rt_stats;
/* Called by rt_main when the program has finished, before the
   NESSIE_STATS line, where set: the GPU runtime's profile
   (NESSIE_PROFILE, rt/gpu.cu). */
extern void (*rt_exit_report)(void);

/* Runs 'program' (a generated executable's statements) on a thread with
   a big stack, as the interpreters run on one; the exit status: 1 if a
   statement stopped with a run-time error, else 0.  'argv' is main's. */
int rt_main(char **argv, void (*program)(void));
/* Seconds on a monotonic clock (time). */
double rt_now(void);
/* Whether the environment variable 'name' is on: set, not empty, not "0"
   (NESSIE_STATS, NESSIE_PROFILE). */
bool rt_env_on(const char *name);

/* The stack recursion runs on: from 'base' (near the top of the thread's
   stack), 'size' bytes.  Deep NESL recursion is then stopped with a
   run-time error before the stack runs out. */
void rt_set_stack(const void *base, size_t size);
bool rt_stack_exhausted(void);
/* Stops a call at 'call' with "recursion too deep" when the stack is
   nearly exhausted. */
void rt_check_stack(RtLoc call);

/* The transcript: where the program's own output and the REPL-style
   lines go (stdout unless set). */
void rt_set_output(FILE *out);
FILE *rt_output(void);
/* Writes the program's own output; the next transcript line starts on a
   fresh line if this did not end with a newline. */
void rt_write(const char *s, size_t n);
/* Starts a transcript line at the beginning of a line. */
void rt_begin_line(void);

/* The errors of the operations, in the evaluator's words.  A subscript
   'i' out of range for 'len' elements by operation 'op' (RT_GATHER,
   RT_ELT or RT_SCATTER). */
RT_NORETURN void rt_index_error(RtLoc loc, RtOp op, int32_t i, int64_t len);
/* Check 'kind' (scalar.h, RtCheckKind) at 'loc' on operands a, b, c:
   stops the statement with the evaluator's words if it fails. */
void rt_check(int kind, RtLoc loc, int64_t a, int64_t b, int64_t c);
/* The same at every position of 'ops' (nops scalars, or vectors of one
   length): the first position that fails stops the statement. */
void rt_check_all(int kind, RtLoc loc, RtValue **ops, int nops);
/* The name of check 'kind' ("subscript"), and the kind named so, or -1. */
const char *rt_check_name(int kind);
int rt_check_lookup(const char *name);
/* The operands of a check that passes, for an identity: (0, 1, 1). */
void rt_check_passing(int kind, int64_t *ops);

/* Reading a global whose definition stopped with an error. */
RT_NORETURN void rt_undefined_error(RtLoc loc, const char *name);
/* Reports the error a generated kernel recorded (rt/kernel.h), in the
   interpreters' words; 'sites' is the program's table of sites, and
   'run' the location of the `run` statement, for a site that has none
   of its own. */
struct RtKernelError;
struct RtSite;
RT_NORETURN void rt_kernel_fail(const struct RtKernelError *e, const struct RtSite *sites, RtLoc run);
/* Marks a CPU kernel's record 'e' for its recording version
   (RT_KERNEL_AGAIN, rt/kernel.h): a call, not inlined, at each of the
   fast passes' checks. */
void rt_kernel_again(struct RtKernelError *e);

/* ---- element-wise operations, reductions and scans (ops.c) ---- */

/* The type of element-wise 'op' on arguments of types 'a' (all scalars,
   or vectors of one length: anything else is a bug). */
RtType rt_elementwise_type(RtOp op, RtValue **a, int nargs);
/* Element-wise 'op' (ADD ... COPY of ops.def, RAND excepted) at 'loc'.
   'prim', when not NULL, is the primitive its errors name instead of the
   operation's own (the + of a reduction is __reduce_add's). */
RtValue *rt_elementwise(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs);
/* The same into 'result', of the result's type and length. */
void rt_elementwise_into(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs, RtValue *result);
/* The same on scalars whose types the caller has checked, and 'result'
   a scalar of the result's type: the interpreters' scalar loops, whose
   iterations are many. */
void rt_scalar_into(RtOp op, RtLoc loc, const char *prim, RtValue **args, int nargs, RtValue *result);
/* Stops the statement with the error 'err' (an RtScalarError of
   scalar.h) of element-wise 'op' on operand 'x' (the one the message
   names: the exponent of POW, the argument of SQRT, LN and the
   conversions), in the evaluator's words. */
RT_NORETURN void rt_scalar_fail(RtOp op, int err, double x, RtLoc loc, const char *prim);
/* The library primitive that a reduction ('scan' false) or scan by 'c'
   implements, for its errors: "__reduce_add" ... */
const char *rt_combine_prim(RtCombine c, bool scan);
/* A reduction (class OPC_REDUCE) or scan (OPC_SCAN) of vector 'v', or
   one per segment of 'd' (OPC_SEG_REDUCE, OPC_SEG_SCAN). */
RtValue *rt_reduce(RtOp op, RtLoc loc, RtValue *v);
RtValue *rt_scan(RtOp op, RtLoc loc, RtValue *v);
RtValue *rt_seg_reduce(RtOp op, RtLoc loc, RtValue *d, RtValue *v);
RtValue *rt_seg_scan(RtOp op, RtLoc loc, RtValue *d, RtValue *v);
/* The identity of a reduction or scan by 'c' over 'base' (NESL's:
   max of nothing is min_int, the float extremes are ∓9.99999961690316E35,
   and on ints starts from -1), into 'out' (rt_base_size bytes). */
void rt_combine_identity(RtCombine c, RtBase base, void *out);

/* ---- other vector operations (vector.c) ---- */

RtValue *rt_dist(RtLoc loc, RtValue *x, int64_t n); /* error if n < 0 */
/* [start:end:stride]: error unless start <= end and stride > 0 */
void rt_check_range(RtLoc loc, int32_t start, int32_t end, int32_t stride);
int64_t rt_range_length(int32_t start, int32_t end, int32_t stride);
RtValue *rt_range(RtLoc loc, int32_t start, int32_t end, int32_t stride);
/* The length of a vector that λcu is about to make (its `size`
   statements), computed in 64 bits: [start:end:stride]'s (an error if
   the range is bad), and an append's of vectors of a and b elements.
   More than an int counts is out of memory, as rt_range and rt_append
   say, and never a length that wrapped. */
int32_t rt_range_size(RtLoc loc, int32_t start, int32_t end, int32_t stride);
int32_t rt_append_size(RtLoc loc, int64_t a, int64_t b);
/* The segdes of seg_range's ranges, each length in 64 bits; the total
   checked as make_segdes's (λcu's range_segdes); and its lengths and
   offsets as [int]s, which seg_range's values and its users read. */
RtValue *rt_range_segdes(RtLoc loc, RtValue *starts, RtValue *ends, RtValue *strides, RtValue **lengths,
                         RtValue **offsets);
/* One range per element of the vectors: the segdes and the values. */
void rt_seg_range(RtLoc loc, RtValue *starts, RtValue *ends, RtValue *strides, RtValue **segdes, RtValue **values);
RtValue *rt_gather(RtLoc loc, RtValue *v, RtValue *idx);
/* rt_gather where a negative index gives the zero of the base (the flat
   IR's GATHER <guarded>: a lifted subscript's, whose check failed). */
RtValue *rt_gather_guarded(RtLoc loc, RtValue *v, RtValue *idx);
RtValue *rt_elt(RtLoc loc, RtValue *v, int32_t i);
/* A copy of 'dst' with vals[k] at idx[k], in order (a later write wins). */
RtValue *rt_scatter(RtLoc loc, RtValue *dst, RtValue *idx, RtValue *vals);
/* The elements whose flag is (or, 'want' false, is not) set. */
RtValue *rt_pack(RtLoc loc, RtValue *v, RtValue *flags, bool want);
/* PACK within each segment of 'd': the new segdes and the values. */
void rt_seg_pack(RtLoc loc, RtValue *d, RtValue *v, RtValue *flags, RtValue **segdes, RtValue **values);
RtValue *rt_vector(RtValue **scalars, int n);
RtValue *rt_append(RtValue *x, RtValue *y);
RtValue *rt_make_segdes(RtLoc loc, RtValue *lengths); /* error on a negative length */
RtValue *rt_seg_lengths(RtValue *d);
RtValue *rt_seg_ids(RtValue *d);
RtValue *rt_seg_starts(RtValue *d); /* the offsets of the segments */
/* The index of the first greatest ('sign' 1) or least (-1) element:
   max_int for an empty vector. */
int32_t rt_extreme_index(RtValue *v, int sign);
RtValue *rt_seg_extreme_index(RtValue *d, RtValue *v, int sign);
/* Where each element goes in the stable sort, ascending or ('down')
   descending; per segment of 'd'. */
RtValue *rt_rank(RtValue *v, bool down);
RtValue *rt_seg_rank(RtValue *d, RtValue *v, bool down);

/* ---- layouts (layout.c) ---- */

/* How a NESL value of some type is spread over components (the compiler's
   flat.h says it in full):
     host representation H(t), for a value outside any apply-to-each:
       H(base) = one scalar;  H((a, b)) = H(a) ++ H(b);  H([t]) = V(t)
     vector representation V(t), for a sequence of n values:
       V(base) = one vector of n;  V((a, b)) = V(a) ++ V(b);
       V([t]) = a segdes of n segments ++ V(t) of its total
   A datatype is its fields, named for printing. */
typedef enum RtLayoutKind {
  RL_INT,
  RL_FLOAT,
  RL_BOOL,
  RL_CHAR,
  RL_SEQ,  /* [elem] */
  RL_PAIR, /* (fst, snd): tuples nest to the right */
  RL_DATA, /* a datatype value: 'name' and its fields 'fst' */
} RtLayoutKind;

typedef struct RtLayout {
  RtLayoutKind kind;
  const struct RtLayout *fst; /* RL_PAIR, RL_DATA: the fields */
  const struct RtLayout *snd; /* RL_PAIR */
  const struct RtLayout *elem; /* RL_SEQ */
  const char *name;            /* RL_DATA; RL_BOOL: "function" for a function value (F) */
} RtLayout;

/* The components of H(t) ('host') or V(t). */
int rt_layout_count(const RtLayout *l, bool host);
/* The base type of a scalar layout kind (RL_INT .. RL_CHAR). */
RtBase rt_layout_base(RtLayoutKind k);
/* The types of those components, into 'out' (rt_layout_count entries). */
void rt_layout_types(const RtLayout *l, bool host, RtType *out);
/* The layout of a string, [char]. */
const RtLayout *rt_string_layout(void);

/* The components of value k of V(t) ('comps', rt_layout_count(l, false)
   of them) as H(t) of one value: scalars and sub-vectors made anew. */
void rt_vector_element(const RtLayout *l, RtValue **comps, int64_t k, RtValue **out);
/* V(t) of n values from the H(t) components of each: 'elems[k]' holds
   value k's. */
void rt_vector_of(const RtLayout *l, RtValue ***elems, int64_t n, RtValue **out);

/* ---- name, eql, hash (structured.c) ---- */

/* name: for each value of V(t), the index of the last occurrence of its
   value (within its segment of 'seg', when not NULL). */
RtValue *rt_name(const RtLayout *l, RtValue *seg, RtValue **comps);
/* eql of two values given by H(t) ('host') or of two sequences of values
   given by V(t), position by position. */
RtValue *rt_eql(const RtLayout *l, bool host, RtValue **a, RtValue **b);
/* hash of H(t) or of each value of V(t), modulo 'range' (a scalar, or a
   vector of one range per value): error unless the range is positive. */
RtValue *rt_hash(RtLoc loc, const RtLayout *l, bool host, RtValue **comps, RtValue *range);

/* ---- printing (print.c) ---- */

enum { RT_FLOAT_BUF = 40 };

/* NESL's printed form of a float: 15 significant digits, shortest form,
   a trailing `.0` when integral; plain for 1e-3 <= |x| < 1e7, otherwise E
   notation with a capital E and no '+' (`1.0E10`). */
void rt_format_float(char *buf, double x);
/* @x of a float: 8 significant digits, plain for 1e-3 <= |x| < 1e7,
   otherwise a lowercase e and a signed exponent (`1.2345678e+7`). */
void rt_format_float_text(char *buf, double x);
void rt_print_float(FILE *out, double x);
void rt_print_int(FILE *out, int32_t x);
void rt_print_bool(FILE *out, bool b);
void rt_print_char(FILE *out, char c);
/* A [char] as NESL prints it: "abc", with \" and \\ for the quote and
   the backslash. */
void rt_print_string(FILE *out, const char *s, size_t n);

/* A value given by H(t) as the REPL prints it. */
void rt_print_value(FILE *out, const RtLayout *l, RtValue **comps);
/* The same as a string (rt_alloc_atomic), NUL-terminated; its length,
   which a character of code 0 in the value does not end, goes to '*len'
   unless 'len' is NULL. */
char *rt_value_text(const RtLayout *l, RtValue **comps, size_t *len);
/* @: NESL's own conversion to text (booleans t and f, floats as
   rt_format_float_text, strings as sequences of characters); the same. */
char *rt_to_string(const RtLayout *l, RtValue **comps, size_t *len);
/* CMU NESL's REPL rejects a statement's value that holds a float that
   is not finite ("Returning INF: infinity and not-a-number (NAN) are not
   supported"), whatever the floats computed on the way: this is that
   check, on the value given by H(t), an error at 'loc' (the statement's)
   naming the first such float of its components. */
void rt_check_value(RtLoc loc, const RtLayout *l, RtValue **comps);
/* Is a float of the components of H(t) ('host') or V(t) not finite?
   The first such one goes to '*bad'. */
bool rt_value_nonfinite(const RtLayout *l, RtValue **comps, bool host, double *bad);
/* How NESL names a float that is not finite: INF, -INF or NAN. */
const char *rt_nonfinite_name(double x);
/* A transcript line `NAME = VALUE : TYPE` on a fresh line. */
void rt_print_binding(const char *name, const RtLayout *l, RtValue **comps, const char *type_text);

/* ---- host primitives (host.c, host.def) ---- */

typedef enum RtHost {
#define HOST_PRIM(name, text) RT_HOST_##name,
#include "host.def"
  RT_HOST_COUNT
} RtHost;

/* The host primitive named 'name' in lib-nesl ("print_string"), or
   RT_HOST_COUNT. */
RtHost rt_host_lookup(const char *name);
const char *rt_host_name(RtHost h);
/* Runs host primitive 'h' at 'loc' on the value 'args' (H of its argument
   type, laid out by 'arg'), or, 'lifted', on each value of V(arg type)
   in order; writes the components of the result(s) (H or V of the result
   type, laid out by 'result') to 'results'. */
void rt_host_call(RtHost h, RtLoc loc, const RtLayout *arg, const RtLayout *result, bool lifted, RtValue **args,
                  RtValue **results);
/* The FILE of stream number 'id' (0, 1, 2: stdin, the transcript,
   stderr; -1 nullstr and closed streams: NULL).  The evaluator's streams
   are these too. */
FILE *rt_stream_file(int32_t id);
/* Opens 'path' with fopen 'mode' as a new stream: its number, or -1 with
   the reason in '*why'. */
int32_t rt_stream_open(const char *path, const char *mode, const char **why);
/* Closes stream 'id': false with the reason in '*why' if it fails. */
bool rt_stream_close(int32_t id, const char **why);

/* The REPL's store of top-level values, which __global_value reads and
   __keep_value writes when the flat or λcu interpreter runs a statement
   (the REPL keeps its values in the evaluator; driver/ bridges).  'get'
   writes the H(t) components of value 'k' (laid out by 'l') to 'out';
   'keep' stores value 'k' from its components.  Without a store (an
   executable), either primitive is an error. */
typedef struct RtStore {
  void *ctx;
  void (*get)(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **out);
  void (*keep)(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **comps);
} RtStore;
/* Installs 's' (NULL: none) and returns the store it replaces. */
const RtStore *rt_set_store(const RtStore *s);

/* ---- random numbers (rand.c) ---- */

/* Starts the draws again from seed 'seed' (rand_seed); the state starts
   from seed 0. */
void rt_rand_seed(int32_t seed);
/* The state rand_seed set (the seed, mixed). */
uint64_t rt_rand_state(void);
/* The next execution of the RAND at 'site' (counting from 0). */
uint64_t rt_rand_execution(int site);
/* A random number below each bound of 'x' (ints: in [0, bound), 0 for a
   bound <= 0; floats: in [0, bound)), drawn as scalar.h's rt_rand_stream
   and rt_rand_draw say, by the next execution of the RAND at 'site'. */
RtValue *rt_rand(int site, RtValue *x);

/* parse_float's reading of 'text' (rt/host.c): the number, or 0.0 where
   it does not begin with one (an infinity or a NaN spelled out is not
   one), and in *ok whether the whole text is the number. */
double rt_parse_float_text(const char *text, bool *ok);

/* ---- libraries made by `nessie --library` (lib.c) ---- */

/* What the generated code of a library says of it (docs/library.md). */
enum {
  RT_LIB_ERROR_NESL = 1,     /* NESL stopped with a run-time error */
  RT_LIB_ERROR_ARGUMENT = 2, /* an argument is not of the function's type */
  RT_LIB_ERROR_MEMORY = 3,   /* out of memory */
  RT_LIB_ERROR_START = 4,    /* the runtime could not start: the GPU target
                                found no CUDA device, or not the one asked for */
};
enum { RT_LIB_MAX_LEAVES = 256 }; /* the H components of one argument, at most */

/* A sequence type: the components of V(elem), in layout order, each a
   vector or a segdes ('types'), counted by the sequence's length
   ('parent' -1) or by the total of the segdes component 'parent'. */
typedef struct RtLibSeqType {
  int ncomps;
  const RtType *types;
  const int *parent;
} RtLibSeqType;
/* A leaf of H(t): a scalar of 'base' ('seq' -1) or a sequence of type 'seq'. */
typedef struct RtLibLeaf {
  RtBase base;
  int seq;
} RtLibLeaf;
struct RtLib;
typedef struct RtLibFunc {
  const struct RtLib *lib;
  const char *name;
  int nargs, nresults;
  const RtLibLeaf *args, *results;
} RtLibFunc;
typedef struct RtLib {
  const char *name;
  int nfuncs, nseqs;
  const RtLibFunc *funcs;
  const RtLibSeqType *seqs;
  /* once per process, before the first call: the runtime started on
     'device'; NULL, or why it could not start (the GPU target: no CUDA
     device, no such device) */
  const char *(*init)(int device);
  void (*const *tops)(void);     /* the statements: lib-nesl's, then one per export */
  int first_export;              /* the index in 'tops' of export 0 */
  RtValue *(*to_host)(RtValue *v); /* the GPU target: a device value's host copy; NULL on the CPU */
  void (*use_device)(int device);   /* the GPU target: the calling thread's current device; NULL on the CPU */
  /* the GPU target (NULL on the CPU): a device value copied from the
     caller's device buffer 'src' of 'n' elements; a value's elements
     copied to the caller's device buffer 'dst'; a device segdes's total */
  RtValue *(*from_device)(RtType t, int64_t n, const void *src);
  void (*to_device_buffer)(RtValue *v, void *dst);
  int64_t (*seg_total)(RtValue *d);
} RtLib;
typedef struct RtLibContext RtLibContext;
/* A context on 'device'; NULL when out of memory.  Where the runtime
   cannot start (lib->init failed, now or for an earlier context, or
   'device' is not the one it started on), the context is made in an
   error state: rt_lib_status gives RT_LIB_ERROR_START, rt_lib_error why,
   and every call with it returns RT_LIB_ERROR_START, running nothing. */
RtLibContext *rt_lib_context_new(const RtLib *lib, int device);
/* 0, or RT_LIB_ERROR_START for a context in an error state. */
int rt_lib_status(const RtLibContext *c);
void rt_lib_context_free(RtLibContext *c);
/* The last error ("FILE:LINE:COL: message"), and its location alone
   ("" where there is none). */
const char *rt_lib_error(const RtLibContext *c);
const char *rt_lib_error_location(const RtLibContext *c);
/* A sequence of type 'type' and length 'n' from the caller's buffers,
   one a component (copied): int64_t lengths for a segdes, the values for
   a vector. */
int rt_lib_seq_new(RtLibContext *c, int type, int64_t n, const void *const *bufs, void **out);
/* The same where 'on_device[i]' (NULL: none) says that buffer i is in
   the GPU's memory (the GPU target: copied on the device, CuPy and
   DLPack arrays without a host copy). */
int rt_lib_seq_new_on(RtLibContext *c, int type, int64_t n, const void *const *bufs, const uint8_t *on_device,
                      void **out);
int64_t rt_lib_seq_length(const void *h);
/* The number of elements of each component (segments of a segdes). */
void rt_lib_seq_sizes(const void *h, int64_t *sizes);
/* Copies each component into 'bufs[i]' (NULL: skipped). */
int rt_lib_seq_read(RtLibContext *c, const void *h, void *const *bufs);
int rt_lib_seq_read_on(RtLibContext *c, const void *h, void *const *bufs, const uint8_t *on_device);
void rt_lib_seq_free(void *h);
/* Runs export 'fn': args[i] points at leaf i's scalar or is its handle;
   results[i] points at where leaf i's scalar or new handle goes. */
int rt_lib_call(RtLibContext *c, int fn, void *const *args, void *const *results);
/* Runs the statements before the exports (the library's init calls it). */
void rt_lib_start(const RtLib *lib);

#ifdef __cplusplus
}
#endif

#endif
