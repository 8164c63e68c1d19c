/*
 * fusion.h: kernel fusion on λcu, section 4 of Reppy and Wingerter's
 * paper (../shared/papers/lambda-cu.txt) with the ILP of Robinson,
 * Lippmeier and Keller (../shared/DESIGN.md, "The fusion ILP").
 *
 *   simplify.c   the CPU level before fusion: constants folded, copies
 *                propagated, common subexpressions and dead statements
 *                removed (fus_simplify)
 *   facts.c      what fusion must know of a run: the lengths of its
 *                kernel's vectors (from shapes and sizes), what can fail,
 *                what has effects (fus_fill_facts, fus_fill_kernel_lens)
 *   pdg.c        the program-dependence graph of one control region: its
 *                `run`s, their data and ordering edges (fus_fill_pdg)
 *   candidates.c the pairs a rewrite rule can fuse, vertical and
 *                horizontal, and what fusing them saves (fus_fill_candidates)
 *   schedule.c   the clusters: an ILP solved by GLPK, or a greedy
 *                fallback (fus_schedule)
 *   ilp.c        its models, as numbers: GLPK makes one only to solve it
 *   merge.c      the runs of one cluster as one run of one kernel (fus_merge)
 *   rules.c      the SOAC rewrite rules inside a kernel (fus_rewrite)
 *   fuse.c       the pass: every region of every function (fus_fuse)
 *   segmap.c     after it, MAPs that read a sd's seg_ids at their index
 *                made SEG_MAPs, the seg_ids runs removed (fus_segment_maps);
 *                last, thunks read a sd's lengths and offsets themselves,
 *                the seg_lengths and seg_offsets runs removed
 *                (fus_segment_fields)
 *   delay.c      last, runs and lengths moved down to their first reader
 *                (fus_delay_runs)
 *   devscalar.c  last, REDUCE and ONCE values that only kernels read kept
 *                on the device as vectors of one element
 *                (fus_scalars_on_device)
 *   join.c       last, a PARTITION whose parts are appended back made
 *                one vector (fus_join_partitions)
 *   dot.c        --dump=pdg: the PDGs as Graphviz (fus_print_pdg)
 *
 * docs/fusion.md describes the passes, the cost model and the rules.
 */
#ifndef NESSIE_FUSION_H
#define NESSIE_FUSION_H

#include "../common/common.h"
#include "../lcu/lcu.h"

/* ---- facts.c: lengths, failures and effects ---- */

/* What is known of a length (of a vector; of the number of segments of a
   sd; of the value of an int scalar used as a size).  Two lengths are
   known equal when their kinds and what they name are. */
typedef enum FusLenKind {
  FL_UNKNOWN, /* nothing: equal to nothing, not even itself */
  FL_CONST,   /* 'value' */
  FL_SHAPE,   /* that of the vectors (sds) of shape class 'value' (LcuVar.shape) */
  FL_VAR,     /* that of variable 'of' (a vector, a sd, an int scalar),
                 known only as itself */
  FL_TOTAL,   /* the number of elements that sd 'of' describes */
  FL_STRICT,  /* that of the vectors (sds) of strict class 'value'
                 (LcuVar.strict): where a shape class may not be assumed
                 one length yet (FusFacts.hidden) */
  FL_NONNEG,  /* only as a range (FusVarFacts.range): some bound, not
                 known; the values are >= 0 (lengths, counts), which is
                 all make_segdes asks of them */
} FusLenKind;

typedef struct FusLen {
  FusLenKind kind;
  int32_t value;
  const LcuVar *of;
} FusLen;

bool fus_len_equal(FusLen a, FusLen b);
/* Never negative: a constant >= 0, or the length of something. */
bool fus_len_nonneg(FusLen a);
/* Is value 'i' of REDUCE or SCAN 's' an int sum from 0: identity 0 and
   that component of the operator the sum of its two operands? */
bool fus_int_sum_from_zero(const LcuSoac *s, int i);

/* A map from variables to lengths, the lengths in its entries (no
   allocation per fact).  Never iterated.  Emptied by starting a new
   generation, not by clearing its entries: the memos of a large body
   are emptied hundreds of times a compilation, most of them holding a
   few entries of a large table. */
typedef struct FusLenEntry {
  const LcuVar *key; /* NULL: an empty slot, as is one of another generation */
  FusLen len;
  uint32_t generation;
} FusLenEntry;

typedef struct FusLenMap {
  FusLenEntry *entries;
  int64_t cap, used;
  uint32_t generation; /* of the entries in the map */
} FusLenMap;

/* The CPU-level facts of one function (or top-level block): where each of
   its variables is bound, and the lengths worked out so far. */
typedef struct FusFacts {
  GenMap def;       /* LcuVar -> the LcuStmt that binds it (in nested blocks too) */
  FusLenMap lens;   /* LcuVar -> its length, memoized by fus_var_len */
  FusLenMap totals; /* sd LcuVar -> (FL_SHAPE) the class of vectors whose
                       length is the number of its elements */
  FusLenMap sizes;  /* int LcuVar -> (FL_SHAPE) the class of vectors whose
                       length it is */
  GenMap failures;  /* run LcuStmt -> FUS_ bits + 1, memoized */
  FusLenMap ranges; /* int vector LcuVar -> its values lie in [0, bound),
                       memoized by fus_var_range */
  GenMap run_lens;  /* run LcuStmt -> FusKernelLens *: the lengths of its kernel,
                       memoized while the totals are worked out (facts.c) */
  Vec run_tables;   /* FusKernelLens *: those memos, spare once worked out */
  bool noting_totals;
  GenMap block;     /* LcuStmt -> the LcuBlock that holds it */
  GenMap order;     /* LcuStmt -> its place in program order + 1 */
  GenMap checked;   /* int LcuVar -> the first `check range (c, v, s)`,
                       c >= 0 and s > 0 constants: v >= 0 after it */
  int next_order;
  /* Shape classes made one by a check.  An apply-to-each's generators
     are one shape class (flatten/shape.c) because `check lengths`
     compares them: before that check they may differ.  While the
     lengths of a run's kernel are worked out (fus_fill_kernel_lens),
     'hidden' holds the classes that a check after the run, in its
     block, makes one (and no check before it did): there a vector of
     such a class has its strict class's length, not its shape's. */
  Vec length_checks;     /* LcuStmt *: each `check lengths` and `check
                            counts` of the body, once */
  GenMap length_listed;  /* such a check -> 1 once in length_checks */
  GenMap check_class;    /* such a check -> the shape class it makes one,
                            + 1 (1: none), memoized */
  Vec hidden;            /* shape classes (intptr_t), for the run whose
                            lengths are being worked out */
} FusFacts;

/* Fills 'f' for the function or top-level block whose body is 'body'
   ('f' zeroed, or filled before: its maps are emptied and kept). */
void fus_fill_facts(const LcuBlock *body, FusFacts *f);
/* Brings 'f' up to date after the statements of block 'changed' (a
   block of the body it was filled for; not its nested blocks) were
   rewritten: their results are bound where they are now, and what its
   runs' results say about totals and sizes is added.  What 'f' knew before stays: a rewrite keeps every
   value, so a fact about a value stays true.  The memos are forgotten. */
void fus_refill_facts(const LcuBlock *changed, FusFacts *f);
/* 'f' emptied, its maps given back for the next facts filled from
   nothing to take. */
void fus_release_facts(FusFacts *f);
/* The memos of 'f' forgotten (lengths, ranges, failures): 'f' is then
   what fus_fill_facts would make of the body it was filled for, as long
   as nothing changed the body or its kernels since. */
void fus_forget_memos(FusFacts *f);
/* The length of CPU variable 'v' (a vector's length, a sd's number of
   segments, an int scalar's value); of an atom (a constant's value). */
FusLen fus_var_len(FusFacts *f, const LcuVar *v);
FusLen fus_atom_len(FusFacts *f, const LcuAtom *a);
/* True if int atom 'a' is never negative: a constant >= 0, a length
   (#v), a copy of one.  (A length equal to a shape's says nothing before
   the SOAC of that size has checked it.) */
bool fus_int_nonneg(FusFacts *f, const LcuAtom *a);
/* Is 's' a `host vector`, a vector the host puts together of scalars
   (it can neither fail nor print)? */
bool fus_host_vector(const LcuStmt *s);
/* Is 'v' a host vector of lengths (split's `host vector (#f, #t)`, a
   nested literal's rows): its elements lengths or sizes of vectors, or
   constants, at least one a length; or, where 'zeros', lengths, sizes
   and 0s alone?  Its own length is its number of elements (simplify.c
   folds it; a literal's vector of constants alone keeps its length a
   variable, which lets fusion gather an appended literal's parts into
   one MAP).  With 'zeros', no element is negative and constants cannot
   add them up past max_int, so a segdes made of it cannot fail
   (make_segdes reports such a sum: tests/cli/length_overflow.sh). */
bool fus_host_lengths(FusFacts *f, const LcuVar *v, bool zeros);
/* A bound on the values of int vector 'v': they lie in [0, bound), as
   the segment numbers seg_ids gives, the indices a MAP { i => i } gives,
   and what is filtered or gathered from such a vector; FL_UNKNOWN if
   nothing is known. */
FusLen fus_var_range(FusFacts *f, const LcuVar *v);

/* What is known of one variable of a kernel at one run: FL_UNKNOWN
   where nothing is. */
typedef struct FusVarFacts {
  const LcuVar *var;  /* whose facts these are */
  FusLen len;         /* its length */
  FusLen total;       /* a sd: its number of elements */
  FusLen range;       /* an int vector: a bound on its values (fus_var_range) */
  const LcuAtom *cpu; /* a parameter: the atom the run passes */
  bool nonneg;        /* an int parameter: fus_int_nonneg of that atom */
  bool checked;       /* an int parameter whose atom a range check before
                         the run proved >= 0: as a SOAC's size, it cannot
                         fail at the run (fus_soac_failures) */
} FusVarFacts;

/* The lengths of a kernel's variables at one run: its parameters from
   the run's arguments, its SOACs' results from their sizes.  One table
   of the kernel's variables, sized for all of them when it is made
   (the fusion pass fills a kernel's lengths tens of thousands of times:
   a map per kind of fact, and an allocation per fact, was most of what
   a fill cost). */
typedef struct FusKernelLens {
  FusVarFacts *vars; /* the facts, in the order their variables came */
  int32_t *index;    /* by address (open addressing): a variable's facts'
                        number + 1, 0 for an empty slot; never iterated */
  int cap, used, room; /* of the index; of the facts, used and allocated */
  PtrMap sums; /* int parameter the run passes a CPU sum x + y -> FusLen[2],
                  the lengths x and y are (an append's size) */
} FusKernelLens;

/* The lengths of kernel 'k' (run's kernel, or a rewrite of it with the
   same parameters) as 'run' passes its arguments.  An int argument that
   a `check range (c, v, s)` before 'run' in its block proved >= 0 (c >= 0
   and s > 0 constants) is marked `checked`: a MAP of that size cannot
   fail at the run (dist's negative length), so `[0:n]`'s MAP fuses. */
void fus_fill_kernel_lens(FusFacts *f, const LcuStmt *run, const LcuKernel *k, FusKernelLens *kl);
/* 'kl''s table given back for another fill to take: for a caller that
   is done with it and copied nothing out that points into it. */
void fus_release_kernel_lens(FusKernelLens *kl);
/* What fus_fill_kernel_lens would memoize in 'f' (the lengths and ranges
   of the arguments), memoized as it would, without filling: for a caller
   that may not need the kernel's lengths, so that 'f' learns the same
   things at the same time whether it fills or not (a memo made later,
   after the program changed, could differ). */
void fus_note_arg_facts(FusFacts *f, const LcuStmt *run, const LcuKernel *k);
FusLen fus_kernel_len(const FusKernelLens *kl, const LcuVar *v);
/* The atom the run passes for kernel parameter 'v', or NULL. */
const LcuAtom *fus_kernel_arg(const FusKernelLens *kl, const LcuVar *v);

/* ---- canon.c: what a FILTER's predicate tests, as text ---- */

/* Names a variable of the predicate that is none of the pull's (its
   index, its lets) into 'b'. */
typedef void (*FusCanonVar)(Buf *b, const LcuVar *v, const void *ctx);
/* The text of FILTER or PARTITION 's''s predicate applied to its pull:
   two that test the same thing of the same values have the same text. */
char *fus_predicate_text(const LcuSoac *s, FusCanonVar other, const void *ctx);
/* Whether REDUCE, SCAN or their SEG_ form 's' sums ints, each component
   from 0 (a flattened filter's counts). */
bool fus_int_sums(const LcuSoac *s);
/* Whether SEG_REDUCE 'R' counts classes of FILTER or SPLIT 'S' (one
   without counts yet): it sums ints from 0 (fus_int_sums), and each of
   its components has the text of btoi of one class's flag (the
   predicate's parameters read as the pull's values), each class at most
   once; class_of[j] (when not NULL) gets component j's class.  'other'
   names what is outside each pull, given 'sctx' or 'rctx'. */
bool fus_counted_classes(const LcuSoac *S, const void *sctx, const LcuSoac *R, const void *rctx, FusCanonVar other,
                         int *class_of);
/* The text of component j of 's''s pull, named as fus_predicate_text
   names it: two pulls' components with one text compute one value. */
char *fus_pull_text(const LcuSoac *s, int j, FusCanonVar other, const void *ctx);
/* Whether FILTER 'b''s predicate is not(...) of what FILTER 'a''s tests,
   as text (a predicate `f` whose pull computes not(e) counts as
   not(f') of a pull computing e); 'other' names what is outside each
   pull, given 'actx' or 'bctx'. */
bool fus_predicate_negates(const LcuSoac *a, const void *actx, const LcuSoac *b, const void *bctx,
                           FusCanonVar other);
/* A statement's read of a variable: as its argument 'arg'. */
typedef struct FusUse {
  LcuStmt *stmt;
  int arg;
} FusUse;
/* Each variable that block 'b' reads (its nested blocks' too): as an
   argument of a statement, into 'uses' (LcuVar -> Vec * of FusUse, in
   order), and as a block's result, into 'escapes' (LcuVar -> non-NULL).
   (segmap.c) */
void fus_note_uses(LcuBlock *b, PtrMap *uses, PtrMap *escapes);
/* Can run 'r', which gives 'v' (a sd's lengths or offsets) as argument
   'arg', read the sd instead (fus_segment_fields): does its kernel read
   that parameter only at indices in thunks? (segmap.c) */
bool fus_field_run_qualifies(const LcuStmt *r, int arg, const LcuVar *v);
/* A CPU atom as such text: `v12`, `i3`, `f0x1p+0`, `b1`, `c65`. */
void fus_canon_atom(Buf *b, const LcuAtom *a);
/* A FusCanonVar naming a kernel variable of FusNode 'ctx' by the CPU
   atom its run passes it (candidates.c): two runs' texts compare. */
void fus_name_by_cpu_atom(Buf *b, const LcuVar *v, const void *ctx);
/* The index space of SOAC 's': n, the elements of its sd, 1 for ONCE. */
FusLen fus_soac_space(const FusKernelLens *kl, const LcuSoac *s);

/* How a SOAC or a run can fail (bits). */
enum {
  FUS_FAIL_THUNK = 1, /* an expression of a thunk: reported at the
                         expression's location (lcu_error_loc) */
  FUS_FAIL_RUN = 2,   /* the SOAC itself (a negative size, a scatter out
                         of range, a library kernel's check): reported at
                         the `run` */
  FUS_EFFECT = 4,     /* no failure, but the run's order matters (rand
                         draws from a counter) */
};

/* The index parameter of thunk 't' of SOAC 's' (its pull's, PERMUTE's
   index thunk's), or NULL (ONCE, a predicate, an operator). */
const LcuVar *fus_index_param(const LcuSoac *s, const LcuThunk *t);
/* True if thunk expression 'e' (of thunk 't' of SOAC 's') can fail:
   an operation that can (a division, float arithmetic, ...), or a
   subscript not known to be in range. */
bool fus_exp_may_fail(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, const LcuExp *e);

/* Calls 'visit' on each expression of thunk 't' of SOAC 's' that may
   fail itself (not only through its operands), in the order the
   generated code evaluates them: the lets, then the results, each
   expression's operands before it; it stops where 'visit' returns true
   (may_fail's question is the first), and says whether it stopped.  The
   rules keep a kernel's checks in the program's order with it (rules.c,
   keeps_order). */
typedef bool (*FusVisitFailing)(const LcuExp *e, void *ctx);
bool fus_thunk_failing(const FusKernelLens *kl, const LcuSoac *s, const LcuThunk *t, FusVisitFailing visit,
                       void *ctx);
int fus_soac_failures(const FusKernelLens *kl, const LcuSoac *s);
/* Is 's' a LIBRARY make_segdes or range_segdes: a library kernel that
   may share its kernel with the MAP that makes its arguments, after it
   (pdg.c; docs/fusion.md, "A segdes beside its MAP")? */
bool fus_segdes_library(const LcuSoac *s);
/* The failures of a `run` statement (FUS_ bits). */
int fus_run_failures(FusFacts *f, const LcuStmt *run);

/* The same, with the lengths of the run's kernel just filled ('kl'):
   what filling them again would find (its questions to 'f' were asked,
   and are memoized). */
int fus_run_failures_by(FusFacts *f, const LcuStmt *run, const FusKernelLens *kl);
/* True if CPU statement 's' can fail, print, read or draw random
   numbers, so that its order with others like it must stay: a host
   statement, a call, an `if` or `time` holding one, a scalar operation
   that can fail, a run that can fail or has an effect. */
bool fus_stmt_effects(FusFacts *f, const LcuStmt *s);
/* True if scalar operation 'op' on operands of base 'b' cannot fail
   ('divisor': the second operand when it is a constant, else NULL). */
bool fus_op_safe(FlatOp op, FlatBase b, const FlatAtom *divisor);
/* True if LE_OP 'e''s own operation cannot fail, whatever its operands:
   fus_op_safe with its divisor if a constant, or a rem! (a divisor not 0
   by construction). */
bool fus_exp_op_safe(const LcuExp *e);
/* Two thunk expressions that compute the same: the same variables,
   constants, operations and reads (enough for the conditions of a
   choice, and for two checks that fail together, rules.c). */
bool fus_same_exp(const LcuExp *a, const LcuExp *b);

/* ---- simplify.c ---- */

/* The CPU level simplified before fusion.
   Requires: a checked program (bound-once variables).
   Folds constant scalar operations and `if`s on constants, propagates
   copies and constants, removes repeated computations (the same scalar
   operation, length or `run` of a kernel on the same arguments, where an
   earlier one dominates), rewrites the lengths of segment descriptors
   made from a lengths vector to that vector, removes statements whose
   results are unused and that can neither fail nor have an effect, moves
   a MAP that one branch of a later `if` alone reads into that branch,
   then removes the kernels no `run` runs (renumbering K1, K2, ...).
   Keeps: the order of everything that can fail or print (an error stays
   at its statement), the program's output. */
void fus_simplify(LcuProgram *p);

/* ---- guard.c ---- */

/* Each branch of an `if` without results that holds a check (a guard
   flattening made for a rare case) computes again, in copies at its
   start, what it reads that its block computes before it by runs of
   MAPs (or of a segdes's lengths or offsets) that cannot fail, lengths
   and safe scalar operations (up to a limit), so that the originals
   may move past the `if` and join what follows it; originals left
   unread are dropped.  Requires a checked program; keeps it checked,
   its meaning and the order of everything that can fail or print. */
void fus_copy_into_guards(LcuProgram *p);
/* Is 'b' a branch of 's' that fus_copy_into_guards fills: 's' an `if`
   without results, 'b' holding a check?  Fusion leaves it unfused. */
bool fus_guard_branch(const LcuStmt *s, const LcuBlock *b);

/* ---- pdg.c: the program-dependence graph of a region ---- */

typedef enum FusEdgeKind {
  FE_FUSIBLE,    /* v reads u's results and a rewrite rule fuses them */
  FE_ORDER,      /* no data, but v must not run before u: both fail or
                    have effects; one kernel may hold both, in order */
  FE_PREVENTING, /* v reads u's results and no rule applies (the consumer
                    needs the whole result first), or a host statement
                    stands between them (a host read, an effect) */
} FusEdgeKind;

typedef struct FusNode {
  int id;          /* its index in the region's nodes */
  int pos;         /* the index of its statement in the block */
  LcuStmt *run;
  LcuSoac *soac;   /* its kernel's only SOAC, or NULL (several, or none) */
  int failures;    /* FUS_ bits */
  FusKernelLens lens;
  FusLen space;    /* its SOAC's index space (fus_soac_space), if 'soac':
                      the horizontal pairs ask it of every two nodes */
  double out_bytes; /* the estimated bytes of its vector results */
  bool live_out;   /* a result is read outside the runs of the region */
  int cluster;     /* the schedule's */
} FusNode;

typedef struct FusEdge {
  int from, to; /* node ids, from < to */
  FusEdgeKind kind;
  const char *why; /* the rule (FE_FUSIBLE) or the reason (others) */
  LcuVar *var;     /* FE_FUSIBLE, data FE_PREVENTING: a result of 'from'
                      that 'to' reads (the first) */
  int pair;        /* FE_FUSIBLE, FE_ORDER: its pair, or -1 */
} FusEdge;

typedef enum FusPairKind {
  FP_VERTICAL,   /* a fusible edge */
  FP_HORIZONTAL, /* no path between them, one iteration space */
  FP_ORDER,      /* an order edge: fused only to keep a cluster whole */
} FusPairKind;

typedef struct FusPair {
  int u, v; /* node ids, u < v */
  FusPairKind kind;
  const char *rule; /* "MAP-REDUCE", "REDUCE+REDUCE", ... */
  double bytes;     /* the global-memory bytes fusing them saves */
  double gain;      /* the ILP's weight: those bytes and a launch */
  bool fused;       /* the schedule's choice */
  bool late;        /* a segdes beside the MAP that makes its arguments:
                       joined after the models, where legal (schedule.c),
                       never a variable of one */
  bool offsets;     /* a SCAN of a SEG_REDUCE's counts, which becomes the
                       offsets of the SPLIT that counts where the FILTER
                       joins (pdg.c, scan_of_counts) */
} FusPair;

/* One control region: a CPU-level block.  Host statements (scalar
   operations, lengths, `if`s, calls, host operations) are not nodes;
   they order the runs around them (a path through one is a preventing
   edge). */
typedef struct FusRegion {
  int index;         /* numbered in program order, from 1 */
  const char *where; /* "function f", "top-level statement 3" */
  LcuBlock *block;
  FusFacts *facts;
  Vec nodes;         /* FusNode * */
  Vec edges;         /* FusEdge * */
  Vec pairs;         /* FusPair * */
  /* the block's statements: what must come after each (its readers, and
     the next statement that fails or has effects), and its node */
  int nstmts;
  Vec *succ;         /* per statement: statement indices (intptr_t) */
  int *node_of;      /* per statement: its node, or -1 */
  Vec *reads;        /* per node: the vectors it reads (candidates.c),
                        made once for the cost model */
  /* the schedule */
  int nclusters;
  double solve_ms;
  const char *method; /* "ilp", "greedy" (the solver gave up), "none" */
  double bytes_before, bytes_after; /* the cost model's estimate */
} FusRegion;

/* The PDG of block 'b' (a region of the function whose facts are 'f'):
   its runs and the edges between them.
   Requires: fus_simplify (not necessarily).  Keeps: everything. */
FusRegion *fus_fill_pdg(LcuProgram *p, LcuBlock *b, FusFacts *f);

/* ---- candidates.c ---- */

/* The candidate pairs of 'r' (FusRegion.pairs): every fusible edge, every
   order edge, and the horizontal pairs, with the gain of each; and what
   each node reads (FusRegion.reads).
   Requires: fus_fill_pdg.  Keeps: the graph. */
void fus_fill_candidates(FusRegion *r);
/* The estimated global-memory bytes of node 'n' alone (reads and
   writes), for the cost model.  These two require fus_fill_candidates. */
double fus_node_bytes(const FusRegion *r, const FusNode *n);
/* The estimated bytes of region 'r' once scheduled (clusters set): each
   node's reads of vectors that its cluster makes itself, or that an
   earlier node of it reads too, are not counted; its writes only where
   written[node id]. */
double fus_bytes_after(const FusRegion *r, const bool *written);
/* True if u and v may share a kernel as far as their own checks go: a
   check at a run reports at the run holding it (merge.c gives the fused
   run that member's place and library context). */
bool fus_anchors_agree(const FusNode *u, const FusNode *v);

/* ---- schedule.c ---- */

typedef struct FusScheduleOptions {
  double time_limit_ms; /* GLPK's, per region */
  FILE *lp_out;         /* --dump=ilp: each region's model in CPLEX LP
                           format, or NULL */
  bool greedy_only;     /* skip the ILP (tests of the fallback) */
} FusScheduleOptions;

/* Chooses the clusters of 'r' (FusPair.fused, FusNode.cluster,
   FusRegion.nclusters): GLPK solves the ILP of DESIGN.md; when it gives
   up (the time limit), a greedy merge of the best pairs that keeps every
   cluster legal.  Requires: fus_fill_candidates.  Keeps: the graph. */
void fus_schedule(FusRegion *r, const FusScheduleOptions *o);

/* ---- ilp.c: schedule.c's models, as numbers beside GLPK ----
   The calls that make a model in GLPK (glp_add_cols, glp_set_col_kind,
   ...), kept as numbers; GLPK makes the model only to solve it, or to
   write it (a named model: at once). */
typedef struct FusModel FusModel;

/* What GLPK answered for one model: whether it found the best solution
   within its limits, and then the value of each column (1-based). */
typedef struct FusSolution {
  bool found;
  double *value;
} FusSolution;

FusModel *fus_model_new(bool named, const char *name);
int fus_model_add_cols(FusModel *m, int n); /* the first new column */
void fus_model_col_name(FusModel *m, int j, const char *name);
void fus_model_col_kind(FusModel *m, int j, int kind);
void fus_model_col_bnds(FusModel *m, int j, int type, double lb, double ub);
void fus_model_obj_coef(FusModel *m, int j, double coef);
/* A row of 'len' elements (columns 'cols', coefficients 'vals', from 0). */
void fus_model_add_row(FusModel *m, const char *name, int type, double lb, double ub, int len, const int *cols,
                       const double *vals);
/* GLPK's answer for 'm' (minimized), or the answer to a model of the same
   numbers solved before, under the same limits. */
const FusSolution *fus_model_solve(FusModel *m, int time_limit_ms);
/* 'm' in CPLEX LP format. */
void fus_model_write_lp(FusModel *m, FILE *out);
/* GLPK's copy of 'm' freed. */
void fus_model_free(FusModel *m);

/* ---- merge.c ---- */

/* The runs of each cluster of several runs of 'r' as one run of one new
   kernel (added to the program), which the region's block holds
   instead; the statements are reordered so that each cluster stands
   where its inputs are ready and before its first use.  Returns the new
   runs (LcuStmt *), in order.
   Requires: fus_schedule.  Keeps: what the block computes; the order of
   what can fail. */
Vec fus_merge(LcuProgram *p, FusRegion *r);
/* Gives every expression of thunk 't' of SOAC 's', run by 'member',
   the place where it reports its errors (lcu_error_loc: its own, or the
   run's), so that the thunk may move to another run; with 'mark', out of
   member's library call into its caller's code (LcuExp.lib_fn), for a run
   in another context (merge.c). */
void fus_settle_thunk(LcuThunk *t, const LcuSoac *s, const LcuStmt *member, bool mark);
/* Do statements 'a' and 'b' report errors in one context: the user's
   code, or one call (at one place) of one library function? */
bool fus_same_context(const LcuStmt *a, const LcuStmt *b);

/* ---- rules.c ---- */

/* Rewrites the SOACs of kernel 'k' (run by 'run', whose facts are 'f') by
   the rules of the paper's Figure 5 and section 4.2 until none applies:
   MAP into any consumer, FILTER-REDUCE, FILTER-FILTER, horizontal MAP,
   REDUCE, SCAN, FILTER with one predicate, ONCE, and their segmented
   forms; a cheap MAP into the SOACs that gather from it (MAP-gather);
   dead SOAC results dropped.  Parameters no SOAC reads are removed
   with their arguments.  Requires: a kernel that only 'run' runs.  Keeps:
   the kernel's results and the errors it reports. */
void fus_rewrite(LcuProgram *p, LcuStmt *run, FusFacts *f);
/* True if MAP 's' (whose run's failures are 'failures', FUS_ bits) may
   be computed where its results are read, at any index (MAP-gather): it
   cannot fail, and each of its values costs about what a read of it
   does (a few operations on reads of its inputs, no call). */
bool fus_gatherable(const LcuSoac *s, int failures);

/* ---- fuse.c: the pass ---- */

typedef struct FusOptions {
  FusScheduleOptions schedule;
  FILE *pdg_out; /* --dump=pdg: Graphviz of every region, or NULL */
  bool check_ir; /* lcu_check after every step */
} FusOptions;

typedef struct FusRegionStats {
  const char *where;
  int runs, clusters;
  double solve_ms;
  const char *method;
  double bytes_before, bytes_after;
} FusRegionStats;

typedef struct FusStats {
  int kernels_before, kernels_after; /* defined */
  Vec regions;                       /* FusRegionStats * */
} FusStats;

/* Fusion: every region of every function and top-level block scheduled,
   merged and rewritten; unused kernels pruned.
   Requires: a checked program (fus_simplify first, for best results).
   Keeps: what the program prints, errors at their statements and
   locations.  Returns false if --check-ir found a broken invariant. */
bool fus_fuse(LcuProgram *p, const FusOptions *o, FusStats *st);

/* ---- segmap.c ---- */

/* Each `let ids = run K (sd)` of a seg_ids kernel whose every reader is
   a run of a kernel that reads ids only in MAPs over sd's elements at
   their own index: those kernels copied with a sd parameter and SEG_MAPs
   (the segment a thunk parameter), the runs given them and sd, and the
   seg_ids run removed.  Requires a checked program (after fus_fuse);
   keeps it checked and its meaning.  Returns the runs changed. */
int fus_segment_maps(LcuProgram *p);

/* Each `let v = run K (sd)` of a seg_lengths or seg_offsets kernel whose
   every reader is `#v` or a run of a kernel that reads v only at indices
   in thunks: those kernels copied with a sd parameter whose thunks read
   seg_length(sd, e) or seg_offset(sd, e) where they read v[e], the runs
   given sd, `#v` made `#segments sd`, and the run of K removed.
   Requires a checked program; keeps it checked and its meaning.  Last
   in -O1 (after fus_delay_runs).  Returns the runs removed. */
int fus_segment_fields(LcuProgram *p);

/* ---- delay.c ---- */

/* Each run that cannot fail or have an effect, and each host read of a
   length, moved down its block to just before the first statement that
   reads what it makes (the end, if only the block's results do), so
   that the host's reads of what the device makes come after what the
   device can make first.  Requires a checked program; keeps it checked,
   its meaning and the order of everything that can fail or print. */
void fus_delay_runs(LcuProgram *p);

/* ---- devscalar.c ---- */

/* Each run whose REDUCEs' or ONCEs' values the host only passes on to
   later runs, maybe through scalar operations: the operations computed
   in a MAP of one element appended to a copy of its kernel, which
   returns their values (or the SOAC's) as vectors of one element, and the readers'
   kernels copied to read element 0 of such a vector where they read the
   scalar (devscalar.c's header says when).  Requires a checked program;
   keeps it checked, its meaning and the order of everything that can
   fail or print.  Last in -O1.  Returns the runs rewritten. */
int fus_scalars_on_device(LcuProgram *p);

/* ---- join.c ---- */

/* Each run of an append kernel (lcu_append_kernel) whose parts are the
   kept and the other elements of one PARTITION of a run before it in
   its block, where nothing else reads them or their lengths, and its
   size the sum of those lengths: the PARTITION made `joined` in a copy
   of its kernel, whose run gives the append's results, and the append,
   its size and the lengths removed.  Requires a checked program, after
   fusion; keeps it checked and its meaning (the append's elements are
   the joined vector's, in order, and neither could fail: their size is
   the PARTITION's).  Returns the appends removed. */
int fus_join_partitions(LcuProgram *p);

/* ---- dot.c ---- */

/* The region's PDG as a Graphviz subgraph: nodes labelled by SOAC and
   kernel, fusible, order and preventing edges drawn differently, the
   chosen clusters as nested subgraphs. */
void fus_print_pdg(FILE *out, const FusRegion *r);

#endif
