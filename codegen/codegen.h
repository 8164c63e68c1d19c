/*
 * codegen.h: code generation, λcu to C (the CPU target, with OpenMP) or to
 * CUDA (the GPU target), and the driver that compiles the result into an
 * executable linked with the runtime (rt/).
 *
 * The design is section 6 of the λcu paper: each SOAC is an algorithmic
 * skeleton that owns data access, iteration and synchronization; its
 * thunks give the computation.  The thunk translator (thunk.c, the paper's
 * gen_thunk) turns a λcu thunk into C statements, given an environment
 * from λcu variables to C expressions and a continuation that stores the
 * results; a target (cpu.c, cuda.c) gives one skeleton per SOAC and the
 * kernels' host wrappers; host.c writes the CPU level (functions, `run`s,
 * calls, `if`, the top-level statements, freeing each vector after its
 * last use) for both targets.  A kernel may hold several SOACs (after
 * fusion): its skeletons run one after the other, sharing its parameters.
 *
 *   emit.c   the generated text: names, C types, constants, the tables of
 *            layouts and of sites (where each check stands in the source)
 *   thunk.c  the thunk translator
 *   cpu.c    the CPU target: skeletons on OpenMP
 *   cuda.c   the GPU target: functors for the skeletons of rt/gpu.cuh
 *   devcheck.c the GPU target: the argument checks made on the device
 *   library.c the library kernels (rank, segdes, name, ...) as calls of
 *            either target's runtime: one table for both
 *   host.c   the CPU level of λcu as C, and main
 *   build.c  writing the source and running cc (or nvcc) on it
 */
#ifndef NESSIE_CODEGEN_H
#define NESSIE_CODEGEN_H

#include "../common/common.h"
#include "../lcu/lcu.h"

typedef enum CgTargetKind {
  CG_CPU,  /* C with OpenMP */
  CG_CUDA, /* CUDA C++ */
} CgTargetKind;

typedef struct Cg Cg;

/* A λcu variable as generated code reads it: a scalar's C expression, a
   vector's data pointer and length, a segdes's offsets and count. */
typedef struct CgBinding {
  const LcuVar *var;
  const char *value;  /* scalar: its value; vector: its data (a typed
                         pointer); segdes: its RtValue * */
  const char *length; /* vector: its length (int64_t); segdes: its number
                         of segments */
  const char *offsets; /* segdes: its offsets (const int64_t *) */
  const char *divisor; /* an int scalar the kernel divides by: its
                          RtDivisor, prepared before the elements
                          (cg_divides_by), or NULL */
  struct CgBinding *next;
} CgBinding;

/* Where a thunk's checks record their errors: the element index they
   are for, and the record (an RtKernelError lvalue). */
typedef struct CgChecks {
  const char *index;
  const char *record;
  /* a subscript needs no check when it is 'safe_index' (the SOAC's own
     index, in [0, n)) into a vector whose length is 'safe_length' (n) */
  const char *safe_index, *safe_length;
  Loc loc;          /* the SOAC's: an expression there reports its errors
                       at the `run` (lcu_error_loc), any other at its own */
  const char *index_op; /* the operation a subscript's error names:
                           "RT_GATHER", or "RT_ELT" in a ONCE */
  bool stream_own;      /* CUDA: the reads at 'safe_index' loaded as
                           streamed (rtg::ld_stream), to leave the cache
                           to the thunk's other reads (cuda.c, gen_pull) */
} CgChecks;

/* The continuation of a thunk: it gets the C expressions of the results
   (each a name of a local) and writes the statements that store them. */
typedef void (*CgStore)(Cg *cg, void *ctx, const char **values, int n);

/* A target: the kernels are its; the rest is shared. */
typedef struct CgTarget {
  CgTargetKind kind;
  const char *name;        /* "cpu", "cuda" */
  const char *extension;   /* of the generated source: ".c", ".cu" */
  /* of a unit without kernels: ".cpp" for CUDA, whose host code the
     host's C++ compiler builds alone (build.c) */
  const char *host_extension;
  /* the code before everything: includes and the target's helpers; for a
     unit of host code only where 'kernels' is false (CUDA: the runtime's
     host interface, gpu.h, not the device's templates, gpu.cuh) */
  void (*prelude)(Cg *cg, bool kernels);
  /* kernel 'k' as a host function `static void K(params, results)`,
     which its `run`s call */
  void (*kernel)(Cg *cg, const LcuKernel *k);
} CgTarget;

/* A check's place in the source, an entry of the program's table of
   sites (rt/kernel.h, RtSite). */
typedef struct CgSite {
  Loc loc;
  const char *prim, *message;
  const char *lib_fn; /* an expression fusion moved out of a library
                         call (LcuExp.lib_fn): worded as in it */
  const char *user_fn; /* a check in a scalar function (scalarfn.c) */
} CgSite;

/* Generated text, kept in memory until it is written out whole.  It
   holds no pointers, and a program's runs to megabytes: malloc'd, out
   of the collector's heap (cg_text_free gives it back). */
typedef struct CgText {
  char *data;
  size_t len, cap;
} CgText;

/* The state of one program's generation. */
struct Cg {
  CgText *out;
  const LcuProgram *p;
  const CgTarget *target;
  int indent;
  int temps;          /* numbers temporaries: t1, t2, ... */
  Vec sites;          /* CgSite *: the program's table of sites */
  PtrMap layouts;     /* const RtLayout * -> the name of its static copy */
  PtrMap layout_rep;  /* const RtLayout * -> the first of the layouts equal
                         to it, whose name it shares (in layout_list) */
  Map layout_names;   /* a layout's definition, its parts by name -> its
                         representative (const RtLayout *) */
  const char *record_fn; /* the target's recording of a kernel error */
  bool one_pass;      /* thunks in one pass, the recording one (cg_thunk):
                         the GPU target's host kernels, which run on small
                         vectors, where the fast pass only doubled the
                         code */
  CgText *record_out; /* where the CPU target writes a kernel's recording
                         version, or NULL: the recording pass inline.
                         Set, a fast pass (not cg->one_pass) marks a
                         failed element (rt_kernel_again), and the
                         kernel runs its recording version (cpu.c) */
  bool record_used;   /* some thunk of the kernel being written marked so */
  PtrMap *record_uses; /* what it names (uses), where uses are recorded */
  const char *invariants; /* set by cg_thunk_invariants until the next
                         cg_thunk, which reuses the values it wrote: ""
                         or the name of the flag its checks set */
  int check_order;    /* numbers the checks of the kernel being written in
                         the order its code makes them (RtKernelError.order),
                         from 0 at each kernel */
  bool split;         /* the kernels are compiled apart from the host
                         functions (host.c, CG_PART_KERNELS): their entry
                         points are extern, not static */
  /* the argument checks made on the device (devcheck.c; the CUDA
     target's only) */
  PtrMap dev_checks;  /* LcuKernel -> Vec * of CgDevCheck * */
  PtrMap dev_runs;    /* LcuStmt (a run) -> Vec * of its checks (LcuStmt *) */
  PtrMap dev_checked; /* LcuStmt (a check made on the device) -> itself */
  PtrMap kernel_runs; /* LcuKernel -> Vec * of its runs (LcuStmt *) */
  PtrMap function_kernels; /* LcuKernel -> itself: run by a function (host
                              functions, not top-level statements) */
  bool kernel_runs_made; /* both maps made, on the first question
                            (cg_same_length_param, cg_kernel_in_function) */
  /* a split program's pieces (host.c): each unit declares only what its
     own code names, so that a unit's size follows its code, not the
     whole program's */
  PtrMap *uses;       /* what the piece being written names (layouts,
                         globals, functions, kernels -> themselves), or
                         NULL: not recorded */
  Vec layout_list;    /* const RtLayout *, one of each set of equal ones,
                         in the order of their names */
  PtrMap kernel_alias; /* LcuKernel -> the kernel of the same code that
                          runs in its place (host.c, equal kernels) */
  bool split_host;    /* the host code is in several units (the top-level
                         statements apart from the host functions,
                         CG_SPLIT_TOPS, or the host functions in parts,
                         CG_SPLIT_FUNCS): the functions, the globals and
                         the table of sites are extern */
};
/* Records in cg->uses, where it is set, that the piece being written
   names 'thing' (a global's LcuVar, an LcuFunc, an LcuKernel). */
void cg_use(Cg *cg, const void *thing);

/* ---- devcheck.c ---- */

/* An argument check (a `check` statement) that a kernel makes on the
   device, on the values of one of its REDUCEs (cuda.c): its operands
   each the REDUCE's value 'value[i]', or, where that is -1,
   'constant[i]'. */
typedef struct CgDevCheck {
  int kind; /* RtCheckKind */
  int soac; /* the REDUCE: its index in the kernel */
  int value[3];
  int64_t constant[3];
} CgDevCheck;

/* Plans which checks of program 'cg->p' the kernels make on the device
   (devcheck.c's header says when): fills cg->dev_checks, dev_runs and
   dev_checked.  Requires nothing generated yet; for the CUDA target. */
void cg_plan_device_checks(Cg *cg);
/* Kernel 'k''s device checks (CgDevCheck *, in the order of the host's
   checks they stand for), or NULL for none. */
const Vec *cg_device_checks(const Cg *cg, const LcuKernel *k);
/* The checks (LcuStmt *) that run 's' has its kernel make, or NULL. */
const Vec *cg_run_device_checks(const Cg *cg, const LcuStmt *run);
/* Is `check` statement 's' made on the device (by the run before it)? */
bool cg_check_on_device(const Cg *cg, const LcuStmt *check);
/* Do the values of REDUCE 'index' of kernel 'k' stay on the device? */
bool cg_reduce_on_device(const Cg *cg, const LcuKernel *k, int index);
/* The parameters that kernel 'k''s entry point and device function take
   for its device checks' sites: ", int check_site_0, ..." or "". */
const char *cg_check_params(const Cg *cg, const LcuKernel *k);

/* ---- emit.c ---- */

/* 'n' bytes of 's' added to 't'; and the memory of 't' given back. */
void cg_text_write(CgText *t, const char *s, size_t n);

/* The characters of a C identifier in generated text: its first, and
   the others (scanning a kernel's text: host.c, cuda.c). */
static inline bool cg_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static inline bool cg_ident_char(char c) { return cg_ident_start(c) || (c >= '0' && c <= '9'); }
void cg_text_free(CgText *t);
/* A line of code at the current indentation: cg_line(cg, fmt, ...), a
   printf format of %s, %d, %c and %% (any other conversion is
   vsnprintf's).  Each call site keeps its format split once into its
   text and its conversions (a CgFormat of its own), so that a line's
   text is copied, not scanned a character at a time: a large program's
   code is some 130,000 lines. */
enum { CG_FORMAT_PIECES = 16 };
typedef struct CgFormat {
  const char *fmt; /* the format split, or NULL */
  bool general;    /* another conversion: fmt_vsnprintf writes the line */
  int n;
  struct {
    const char *text; /* in 'fmt' */
    int len;
    char conv; /* the conversion after it ('s', 'd', 'c', '%'), or 0 */
  } pieces[CG_FORMAT_PIECES];
} CgFormat;

void cg_line_as(CgFormat *f, Cg *cg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define cg_line(cg, ...)                                                                                               \
  do {                                                                                                                 \
    static CgFormat cg_format_;                                                                                        \
    cg_line_as(&cg_format_, (cg), __VA_ARGS__);                                                                        \
  } while (0)
/* An empty line. */
void cg_blank(Cg *cg);
/* The runtime's name of operation 'op': "RT_ADD". */
const char *cg_rtop(FlatOp op);
/* True if REDUCE 's''s operator is commutative, so that its elements may
   be combined in any order: each result is `a OP b` or `b OP a` of its
   two arguments' components, OP one of +, *, and, or, xor, or an int
   (char, bool) minimum or maximum (emit.c says more). */
bool cg_op_commutative(const LcuSoac *s);
/* True if the operator of REDUCE or SEG_REDUCE 's' adds ints component
   by component (a + b of each pair of its parameters) from an identity of
   zeros: its sums may be grouped and ordered any way, bit for bit (int
   addition wraps), which rtg::segmented_sum's atomics rely on. */
bool cg_op_int_sum(const LcuSoac *s);
/* A vector result of the MAP, SEG_MAP, FILTER, PARTITION or SPLIT at 'index'
   in kernel 'k' that neither 'k' returns nor a later SOAC of it reads:
   a MAP that fusion composed into its consumer and kept so that its
   errors come first (docs/fusion.md), or a FILTER's column that only its
   predicate tests (the library's pack keeps each flag beside its value;
   a PARTITION made of a FILTER and its complement holds the flags of
   both sides).  Its values are needed only for their checks and the
   predicate: neither allocated nor stored (the all-pairs n-body's 10^8
   pulls, 800 MB, were written for nothing). */
bool cg_dead_result(const LcuKernel *k, int index, const LcuVar *v);
/* The C signature of kernel 'k''s host function 'name': `void
   name(RtKernelError *err, RtLoc loc, int run, params..., results by
   address...)`, static unless it is the kernel's entry point (named as
   the kernel) or its recording version (cg_record_name, cold) in a
   program whose kernels are compiled apart; with 'checks', the sites of
   its device checks after them (cg_check_params). */
const char *cg_kernel_signature(const Cg *cg, const LcuKernel *k, const char *name, bool checks);
/* The name of kernel 'k''s recording version (the CPU target's: cpu.c). */
const char *cg_record_name(const LcuKernel *k);
/* Is 'v' one of kernel 'k''s results? */
bool cg_kernel_result(const LcuKernel *k, const LcuVar *v);
/* Is 'v' an int scalar parameter of 'k' that a thunk of k divides by
   (the second operand of an int `/` or `rem`)?  Then the kernel prepares
   it once (rt_divisor, rt/scalar.h) and each element divides by
   multiplications (rt_div_by, rt_rem_by). */
bool cg_divides_by(const LcuKernel *k, const LcuVar *v);
/* Does a host function (not a top-level statement) run kernel 'k'?  Its
   runs may then repeat, once per call or per level of a recursion. */
bool cg_kernel_in_function(Cg *cg, const LcuKernel *k);
/* The vector parameter of kernel 'k' before vector parameter 'v' whose
   length every run of k gives equal to v's whenever both exist: the same
   variable, or variables of one strict class (LcuVar.strict: the
   components of one sequence of tuples), or NULL.  A read of v is then
   checked against that parameter's length, and the C and CUDA compilers
   compute one comparison for reads of both at one index (the all-pairs
   n-body's x, y and z of each other body). */
const LcuVar *cg_same_length_param(Cg *cg, const LcuKernel *k, const LcuVar *v);
/* The comment before kernel 'k''s code: its name, its SOACs and the NESL
   line of the first. */
void cg_kernel_comment(Cg *cg, const LcuKernel *k);
/* Writes the statement by which a kernel's host function records an
   error that it finds itself, not in a thunk (a negative size): 'error'
   the RtKernelError's members from the index to x, as C (rt/kernel.h). */
typedef void (*CgRecord)(Cg *cg, const char *error);
/* The C name of a local holding SOAC size 'sz' (its variables read
   through 'env'), checked not negative where it is a variable (dist's
   error, as the interpreters report it: 'record', then `goto fail`). */
const char *cg_soac_size(Cg *cg, const LcuSize *sz, CgBinding *env, CgRecord record);
/* Declares SOAC result 'v''s local at the head of a kernel's host
   function: a scalar 0, a vector or segdes NULL and pushed on 'vectors'
   (const LcuVar *), which cg_kernel_exits frees. */
void cg_declare_result(Cg *cg, const LcuVar *v, Vec *vectors);
/* The two exits of kernel 'k''s host function: its results out and the
   intermediate 'vectors' freed, then `fail:`, where every one of them is
   freed; the caller frees what else it holds there and closes the
   function. */
void cg_kernel_exits(Cg *cg, const LcuKernel *k, const Vec *vectors);
/* A fresh name: "t12". */
const char *cg_temp(Cg *cg);
/* The C name of λcu variable 'v' (unique in the program), made once per
   program: cg_forget_names() drops the names made. */
const char *cg_name(const LcuVar *v);
void cg_forget_names(void);
/* The C type of one element of base 'b': int32_t, double, uint8_t, char. */
const char *cg_ctype(FlatBase b);
/* The runtime's name of base 'b': RT_INT ... */
const char *cg_rtbase(FlatBase b);
/* The member of RtValue.data for base 'b': "i", "f", "b", "c". */
const char *cg_member(FlatBase b);
/* A base constant as a C expression of its type. */
const char *cg_constant(FlatAtom c);
/* A C string literal of 'n' bytes of 's'. */
const char *cg_string(const char *s, size_t n);
/* cg_string of NUL-terminated 's', made once per string. */
const char *cg_literal(const char *s);
/* The name of a static RtLayout copy of 'l', made once per program for
   all the layouts equal to it (and recorded in cg->uses). */
const char *cg_layout(Cg *cg, const RtLayout *l);
/* The definition of the copy of 'l' (named by cg_layout), a line. */
const char *cg_layout_definition(const Cg *cg, const RtLayout *l);
/* The number of a site: where a check stands ('loc'), the primitive its
   errors name ('prim', or NULL), and its own message (or NULL). */
int cg_site(Cg *cg, Loc loc, const char *prim, const char *message);
/* The site of a check of thunk expression 'e' under checks 'c': its own
   location, or the run's when it is its SOAC's (lcu_error_loc); in its
   library call when fusion moved it out of one (LcuExp.lib_fn). */
int cg_exp_site(Cg *cg, const LcuExp *e, const CgChecks *c, const char *prim);
/* The site of a check at 'loc' in scalar function 'user_fn' (RtSite),
   in library function 'lib_fn''s call at 'loc' when it was inlined from
   one (or NULL). */
int cg_fn_site(Cg *cg, Loc loc, const char *lib_fn, const char *user_fn);
/* The location 'loc' as an RtLoc expression: RT_LOC("f.nesl", 3, 5), or
   in code inlined from a user function RT_LOC_VIA(..., RT_INLINED(fn,
   call)), whose record is a static object (an expression for a function's
   body only). */
const char *cg_loc(Loc loc);
/* The call of record 'in' as RT_INLINED's arguments: "f.nesl", 3, 5. */
const char *cg_inlined_call(const Inlined *in);
/* A comment naming the NESL source line of 'loc'. */
const char *cg_where(Loc loc);

/* ---- thunk.c ---- */

/* Binds 'var' to 'value' (and 'length', 'offsets') in front of 'env'. */
CgBinding *cg_bind(CgBinding *env, const LcuVar *var, const char *value, const char *length, const char *offsets);
CgBinding *cg_lookup(CgBinding *env, const LcuVar *var);
/* Writes the statements of thunk 't' applied to the C expressions 'args'
   (one per parameter), its `using` variables read through 'env'; then
   calls 'store' with the results' expressions.  Its checks record into
   'checks'. */
void cg_thunk(Cg *cg, const LcuThunk *t, const char **args, CgBinding *env, const CgChecks *checks, CgStore store,
              void *ctx);
/* Before a loop over elements that share the thunk's arguments but its
   first (a segment's elements: args[0] the element, args[1] the
   segment), writes the fast pass's values of 't' that do not depend on
   args[0] and that every application computes (outside an if's
   branches), once; the next cg_thunk of 't', inside the loop, reads
   them where its fast pass would compute them, its flag starting from
   theirs, and its recording pass computes everything again.  Nothing
   where 'cg->one_pass'.  The values are computed whether or not an
   element needs them: the caller writes this only where the loop has
   an element. */
void cg_thunk_invariants(Cg *cg, const LcuThunk *t, const char **args, CgBinding *env, const CgChecks *checks);
/* Before a loop whose element 'element' (the C name of the thunk's
   first argument) steps by one from C expression 'first' (at least 0),
   and after cg_thunk_invariants where there is one: for each int
   division (DIV, REM) of the element by a value fixed in the loop (a
   constant or a `using` scalar: a replicated index's `i mod n`), its
   quotient and remainder at 'first', which the next cg_thunk of 't' in
   the loop reads instead of dividing (a zero divisor sets the
   invariants' flag: every element then runs the recording pass, which
   divides).  Returns the C expression that steps them, for the loop's
   increment after the element's, or NULL where 't' divides the element
   by no such value.  Nothing where 'cg->one_pass'. */
const char *cg_thunk_inductions(Cg *cg, const LcuThunk *t, const char *element, CgBinding *env, const char *first);
/* Would cg_thunk_inductions find a division of the element in 't'? */
bool cg_thunk_divides_element(Cg *cg, const LcuThunk *t, CgBinding *env);

/* ---- a segment's runs of copies (copyrun.c; the CPU target) ---- */

typedef struct CgRuns CgRuns;
/* What cg_copy_runs needs of a SEG_MAP's pull 'pull' (its parameters the
   element and its segment): NULL unless each result reads a vector at
   an index, or is an int or a bool, that within a segment is affine in
   the element chosen by comparisons of such ints (ifs and selects over
   them, adds, subtracts, products by values fixed in the segment,
   bound(), the segment's offsets and lengths, reads at fixed indices),
   one of them a read, and its shared lets are of that kind too or a
   result's read. */
CgRuns *cg_copy_runs_plan(const LcuThunk *pull);
/* Inside a loop over a segment's elements from 'i' to 'end' (the
   segment's C value 'seg_value', the thunk's environment 'env'), before
   the elements' own loop: the run from 'i' on where every comparison of
   the pull keeps its value, where each read's index steps by one or not
   at all, and where the checks hold and the values fit 32 bits at both
   ends, is written to 'dests' (each result's data, of 'bases'; NULL: a
   result read by nothing) by memcpy and loops without checks, and the
   enclosing loop goes on from its end (`continue`); a run shorter than
   RT_RUN_MIN sets 'stop' to its end, for the elements' loop; anything
   else leaves 'stop' (the segment's end there) to it. */
void cg_copy_runs(Cg *cg, CgRuns *plan, CgBinding *env, const char *seg_value, const char *i, const char *end,
                  const char *stop, const char **dests, const FlatBase *bases);
/* The scalar operation 'op' on C expressions 'args' whose first operand
   has base 'base': the C expression, and whether it reports errors
   through an 'int *' (written as the last argument, 'err'), and which
   operand its message names (-1: none). */
const char *cg_scalar_op(FlatOp op, FlatBase base, const char **args, const char *err, bool *checked,
                         int *operand);

/* ---- scalarfn.c ---- */

/* Writes the C functions of the CPU functions that thunks call (LE_CALL)
   and LIBRARY loops run on each element (their element functions), and
   of those they call in turn, before the kernels that call them. */
void cg_scalar_funcs(Cg *cg);
/* The C name of the scalar function that LE_CALL 'e' calls. */
const char *cg_scalar_func_name(const LcuFunc *f);
/* The C call of LE_CALL 'e' on the C expressions 'args': recording into
   the record of 'checks' for its element (the recording pass; the int
   'failed' is set too), or with 'checks' NULL only setting 'failed' (the
   fast pass). */
const char *cg_scalar_call(Cg *cg, const LcuExp *e, const char **args, const CgChecks *checks, const char *failed);

/* A LIBRARY loop's arguments, by the parameters of its element function
   (LcuFunc.each), which the targets' loops (cpu.c, cuda.c) pass to each
   element: a scalar parameter's n values, or a vector parameter's sd
   (n segments) and values, of which element i gets segment i.  The
   number of elements n is the first parameter's: its values' length, or
   its sd's number of segments. */
typedef struct CgLoopArg {
  const LcuVar *param;  /* the element function's parameter */
  const LcuVar *sd;     /* a vector parameter's sd, or NULL: a scalar */
  const LcuVar *values; /* the values */
  bool copy;            /* a vector the element function updates, or
                           returns: the elements run on a copy of it */
  bool result;          /* the copy is the SOAC's result (each_result);
                           else it is scratch, freed after the loop */
  bool shared;          /* a vector parameter's one vector, which every
                           element reads whole (no sd) */
} CgLoopArg;
/* The arguments of LIBRARY loop 's', one per parameter of s->callee. */
CgLoopArg *cg_loop_args(const LcuSoac *s);
/* The argument of 'a' (of LIBRARY loop 's') that says how many elements
   the loop has: the first parameter's that is not shared, its sd or its
   scalars. */
const LcuVar *cg_loop_count(const LcuSoac *s, const CgLoopArg *a);
/* The C call of LIBRARY loop 's''s element function on the C expressions
   'args', one per parameter (a vector's "pointer, length" of the
   element's segment), recording its errors into 'record' for element
   'index' (always: an element that updates its state in place cannot run
   again), 'failed' the name of an int it sets when one fails.  Where the
   function gives several scalars (cg_each_gives_tuple), 'outs' are the
   C names of the locals it stores them into, one a result, and the call
   gives 0. */
const char *cg_each_call(Cg *cg, const LcuSoac *s, const char **args, const char **outs, const char *record,
                         const char *index, const char *failed);
/* Does LIBRARY loop 's''s element function give several scalars, through
   out-parameters (a tuple's components, flatten.c's f.all)? */
bool cg_each_gives_tuple(const LcuSoac *s);
/* Writes a local, zero first, for each scalar that element function
   gives, and returns their names: cg_each_call's 'outs'. */
const char **cg_each_outs(Cg *cg, const LcuSoac *s);


/* ---- cpu.c, cuda.c ---- */

extern const CgTarget cg_cpu_target;
extern const CgTarget cg_cuda_target;
/* The CPU target's kernel 'k' as a host function called 'name' (the GPU
   target runs a kernel on small vectors on the host). */
void cg_cpu_kernel(Cg *cg, const LcuKernel *k, const char *name);
/* The CPU target's loop macros (RT_CHUNK, RT_PARALLEL_FOR_IF), parallel
   with OpenMP or on one thread. */
void cg_cpu_loops(Cg *cg, bool parallel);

/* ---- library.c ---- */

/* Writes LIBRARY SOAC 's' as a call of its runtime function: rt/'s where
   'target' is CG_CPU (the CPU target's kernels, and so the GPU target's
   host kernels), rt/gpu.cu's where it is CG_CUDA (the GPU target's device
   kernels' host functions).  A scalar argument is read through 'env' and
   boxed as an RtValue * for the call; the result goes to its local
   (cg_name), a scalar unboxed, for the caller to bind.  'ride' (CG_CUDA,
   make_segdes and range_segdes only; else NULL) is the functor of the
   MAPs that ride on the call's launch: the call is then of the runtime's
   template (rtg::make_segdes, rtg::range_segdes) that takes it. */
void cg_library(Cg *cg, const LcuSoac *s, CgBinding *env, CgTargetKind target, const char *ride);

/* ---- host.c ---- */

/* 'prefix' and the λcu name of 'f' made an identifier: fn_qsort_lifted;
   where that identifier is another function's of the program too (a
   user's q_lifted beside q^), the later one in the program's order has
   _X2, _X3, ... after it (cg_name_funcs). */
const char *cg_func_name(const char *prefix, const LcuFunc *f);
/* Numbers the functions of 'p' whose identifiers would be another's
   (above); before any of its code is written. */
void cg_name_funcs(const LcuProgram *p);

/* A program of more than CG_SPLIT_KERNELS kernels, CG_SPLIT_FUNCS host
   functions or CG_SPLIT_TOPS top-level statements is generated as
   several translation units, so that the C or CUDA compiler runs on them
   in parallel: the globals, the host functions and main in the first;
   where there are that many, the host functions in parts of
   CG_PART_FUNCS after it; then the top-level statements in parts of
   CG_PART_TOPS (in a split program always in units of their own, which
   build.c compiles without optimization); the kernels in parts of about
   CG_PART_KERNELS each last.  The split depends only on the program
   (the same files on every machine). */
enum {
  CG_SPLIT_KERNELS = 40,
  CG_PART_KERNELS = 32,
  CG_SPLIT_TOPS = 1000,
  CG_PART_TOPS = 1000,
  CG_SPLIT_FUNCS = 1000,
  CG_PART_FUNCS = 1000
};
/* What a translation unit holds, which decides how it is compiled
   (build.c): a unit of top-level statements runs each of them once, and
   is compiled without optimization; so is the CPU target's unit of host
   functions, which only calls kernels and the runtime, and its units of
   kernels' recording versions (cpu.c), which run only where an element
   fails. */
typedef enum CgUnitKind { CG_UNIT_ALL, CG_UNIT_HOST, CG_UNIT_STATEMENTS, CG_UNIT_KERNELS, CG_UNIT_RECORDS } CgUnitKind;
typedef struct CgFiles {
  int n;
  CgText *text; /* text[0]: the host functions (and all, when n is 1) */
  CgUnitKind *kind; /* CG_UNIT_ALL, CG_UNIT_KERNELS and CG_UNIT_RECORDS
                       hold kernels, the others host code only
                       (CgTarget.host_extension) */
  const char **what; /* each unit in words: "kernels K3 to K40" */
} CgFiles;
/* The program for 'target' as translation units; cg_files_free gives
   their memory back. */
CgFiles cg_program_files(const LcuProgram *p, const CgTarget *target, const char *source_name);
void cg_files_free(CgFiles *f);
/* Writes the whole program for 'target' to 'out' (--dump=c, --dump=cuda):
   its translation units one after the other, each under a comment that
   names it when there are several. */
void cg_program(FILE *out, const LcuProgram *p, const CgTarget *target, const char *source_name);

/* ---- build.c ---- */

/* ---- export.c: libraries (`nessie --library`, docs/library.md) ---- */

/* An exported function: compiled as the statement
   `__keep_value(k, f(__global_value(k)))` (driver/export.c), export k
   being the k-th of the program's last statements. */
typedef struct CgExport {
  const char *name;          /* the C entry point NAME_name: the NESL function's name,
                                or an instance's (driver/export.c, instance_name) */
  const char *instance_of;   /* an instance's NESL function, or NULL */
  const char *type_text;     /* its NESL type, for the header's comments */
  const RtLayout *arg, *result;
  const char **arg_names;    /* a name for each leaf of H(arg), from the parameters */
  Loc loc;
} CgExport;

typedef struct CgLibrary {
  const char *name; /* NAME: libNAME.so, NAME.h, NAME.py, the prefix of the C names */
  Vec exports;      /* CgExport *, in the order of their statements */
} CgLibrary;

/* The program's units with, instead of main, the table of its
   statements, and last the unit of the library's C API. */
CgFiles cg_library_files(const LcuProgram *p, const CgTarget *target, const char *source_name, const CgLibrary *lib);
/* The C API unit: tables of the exports for rt/lib.c, and the entry
   points NAME.h declares; 'first_export' is the index of export 0's
   statement among the program's statements. */
void cg_library_api(CgText *t, const CgLibrary *lib, const CgTarget *target, const char *source_name,
                    int first_export);
/* NAME.h, documented. */
void cg_library_header(FILE *out, const CgLibrary *lib, CgTargetKind target, const char *source_name);
/* NAME.py: the tables, then the binding's code ('binding_text', the
   runtime's lib.py). */
void cg_library_python(FILE *out, const CgLibrary *lib, CgTargetKind target, const char *source_name,
                       const char *binding_text);

typedef struct CgBuild {
  CgTargetKind target;
  const char *output;  /* the executable */
  const char *arch;    /* CUDA: sm_XX, or NULL */
  bool keep;           /* keep the generated source beside the output */
  bool verbose;        /* print each command */
  const char *source_name; /* the NESL file, for comments */
  bool no_cache;       /* --no-cache: compile every unit */
  const char *version; /* nessie's, part of the cache's key */
  const CgLibrary *library; /* a shared library (output: libNAME.so), or NULL */
} CgBuild;

/* Writes the program, compiles and links it into b->output with the
   runtime; returns 0, or 1 after an error message.  A signal that ends
   nessie meanwhile (SIGINT, SIGTERM, SIGHUP, SIGQUIT) removes the
   build's files, then ends nessie. */
int cg_build(const LcuProgram *p, const CgBuild *b);
/* Checks, before anything is compiled, that b->output (and with b->keep
   the first kept source) can be written and is not the program 'input'
   ("-": standard input) under any name; returns 0, or 1 after an error
   message. */
int cg_check_output(const CgBuild *b, const char *input);
/* ---- cache.c ---- */

/* The build cache (cache.c's header says how it works). */
typedef struct CgCache CgCache;
/* Where the cache is: $NESSIE_CACHE_DIR, else $XDG_CACHE_HOME/nessie,
   else $HOME/.cache/nessie; NULL without any of them. */
const char *cg_cache_dir(void);
/* The cache, made where missing; NULL when it is turned off
   (NESSIE_CACHE_SIZE=0), has no place, or cannot be used safely (after
   a warning). */
CgCache *cg_cache_open(void);
void cg_cache_close(CgCache *c);
/* Writes the object kept under 'key' (64 hexadecimal digits) to the file
   'obj'; false if there is none (a damaged entry is removed). */
bool cg_cache_fetch(CgCache *c, const char *key, const char *obj);
/* Keeps the object in the file 'obj' under 'key'; a failure is said
   (once a build) and is no error. */
void cg_cache_store(CgCache *c, const char *key, const char *obj);
/* Removes the least recently used entries while the cache is larger
   than its bound. */
void cg_cache_trim(CgCache *c);
/* The file of entry 'key', for -v. */
const char *cg_cache_entry_path(const CgCache *c, const char *key);

/* The target when none is asked for: cuda where nvcc, the CUDA runtime
   and an NVIDIA GPU are found, else cpu.  '*no_gpu' is set when only the
   GPU is missing, so that the caller can say why the executable is a CPU
   one. */
CgTargetKind cg_default_target(bool *no_gpu);
/* Where the runtime's headers and library are, next to the nessie
   binary; NULL if not found. */
const char *cg_runtime_dir(void);

/* The compilers a build runs: nvcc ($NESSIE_NVCC, else nvcc on the
   PATH, else /usr/local/cuda/bin/nvcc; NULL if none, and then the file it
   runs, a path) and the C compiler ($NESSIE_CC, else cc): what `nessie
   --version` names. */
const char *cg_nvcc_path(void);
const char *cg_c_compiler(void);

#endif
