/*
 * lcu.h: λcu, the three-level IR of Reppy and Wingerter ("λcu — An
 * Intermediate Representation for Compiling Nested Data Parallelism";
 * ../shared/papers/lambda-cu.txt, section 3), which fusion rewrites and
 * code generation reads.
 *
 *   CPU level:    functions of statements: scalar operations, `run K args`,
 *                 calls (recursive), `if`, host reads of sizes, and the
 *                 host-only operations (I/O, errors, constant vectors).
 *   kernel level: `kernel K (params) { let xs = SOAC args ... return ys }`.
 *   GPU level:    thunks `{ xs => exp using ys }` over base values and
 *                 tuples; their only vector operation is subscripting.
 *
 * The three levels are three C types (LcuStmt, LcuSoac, LcuExp), so that a
 * SOAC cannot appear inside a thunk.  Types are stratified as in the
 * paper's Figure 2: base types in thunks (tuples are lists of values),
 * vectors of base values and segment descriptors at the kernel level, and
 * at the CPU level also host-side vectors (the arguments of the host
 * operations) — see LcuType.
 *
 * Every IR has a printer (lcu_print.c: the paper's concrete syntax, which
 * lcu_read.c reads back), a checker (lcu_check.c: the paper's typing
 * rules and the `using` discipline) and an interpreter (lcu_interp.c:
 * each SOAC by its semantics).  build.c has the constructors; lower.c
 * makes λcu from the flat IR, one SOAC per kernel; rewrite.c has what
 * rewrites (fusion) are made of.
 */
#ifndef NESSIE_LCU_H
#define NESSIE_LCU_H

#include "../common/common.h"
#include "../common/ops.h"
#include "../rt/scalar.h" /* the argument checks (RtCheckKind) */

/* λcu's host statements and top-level statements keep the flat IR's
   record of them (flat/flat.h), which λcu only points to: code that
   looks inside includes flat.h. */
typedef struct FlatStmt FlatStmt;
typedef struct FlatFunc FlatFunc;
typedef struct FlatTop FlatTop;
typedef struct FlatNeslReader FlatNeslReader;

/* ---- types ---- */

typedef enum LcuTypeKind {
  LT_SCALAR, /* b: int, float, bool, char (FlatBase) */
  LT_VEC,    /* [b]: a vector of base values in GPU memory */
  LT_SEGDES, /* sd: a segment descriptor in GPU memory */
} LcuTypeKind;

typedef struct LcuType {
  LcuTypeKind kind;
  FlatBase base; /* LT_SCALAR, LT_VEC */
} LcuType;

/* ---- variables ---- */

/* One LcuVar per id.  A variable may appear in several kernels and CPU
   functions (a kernel made once is run from many places), but it is
   bound at most once in each kernel, thunk, and function or top-level
   block (lcu_check). */
typedef struct LcuVar {
  int id;           /* unique in the program */
  const char *name; /* printed name: NESL-ish hint plus id, e.g. xs_12 */
  LcuType type;
  int shape;        /* CPU-level vectors and sds: those of one nonzero shape
                       have one length (number of segments), within the
                       program (lower.c sets it from FlatVar.shape); 0:
                       unknown.  Kernel and thunk variables have 0 (a
                       kernel is shared by runs of different sizes). */
  int strict;       /* the same, where the lengths are one whenever the
                       variables exist, not only once a `check lengths`
                       of them has passed (flatten/shape.c): what a
                       simplification before the checks may rely on */
  struct LcuVar *within; /* a function's parameter: the segdes parameter
                       whose elements it lies in (FlatVar.within), printed
                       `x : [int] #1 in sd`; NULL otherwise */
} LcuVar;

/* ---- GPU level: thunk expressions ---- */

typedef enum LcuExpKind {
  LE_VAR,   /* a thunk parameter, a let-bound name, or a `using` scalar */
  LE_CONST, /* a base constant */
  LE_INDEX, /* x[e]: x a `using` vector; error when out of range */
  LE_OP,    /* an element-wise scalar operation of rt/ops.def (ADD ...
               SELECT, ZERO, RAND excluded) on scalar operands: the range
               FLAT_ADD .. FLAT_SELECT; ZERO is a constant, COPY the
               operand itself; nargs is flat_op_nargs(op) */
  LE_IF,    /* if e then e else e */
  LE_LET,   /* let x = e in e */
  LE_LENGTH,/* #x: the length of a `using` vector, or the number of
               segments of a `using` sd (fus_segment_fields makes it) */
  LE_CALL,  /* f(e1, ..., en): CPU function f, a scalar loop (flatten.c:
               scalars in, one scalar out; its body only scalar
               statements, ifs and calls of such functions), applied to
               scalars; nargs is f's number of parameters */
  LE_BOUND, /* bound(e, n): the int e, where 0 <= e < n; else the error
               of a subscript e out of range of a vector of length n,
               as LE_INDEX reports it.  What is left of x[e] once fusion
               computes x's element instead of reading it (rules.c,
               MAP-gather): the check stays where the read was */
  LE_SEG_LENGTH, /* seg_length(x, e): the length of segment e of x, a
                    `using` sd; error when e is not one of its segments,
                    as LE_INDEX reports a subscript of a vector of its
                    number of segments.  What a read lengths[e] of x's
                    seg_lengths becomes where the kernel reads x itself
                    (fusion/segmap.c, fus_segment_fields) */
  LE_SEG_OFFSET, /* seg_offset(x, e): where segment e of sd x begins among
                    its elements; the same error */
} LcuExpKind;

/* Does 'k' read a `using` variable's value at an index (x[e], or a
   segment's length or offset)? */
#define LCU_READS_AT(k) ((k) == LE_INDEX || (k) == LE_SEG_LENGTH || (k) == LE_SEG_OFFSET)

typedef struct LcuExp {
  /* (the four small fields first: 96 bytes with the collector's extra
     byte, not 112; a large compilation makes tens of thousands) */
  LcuExpKind kind;
  FlatBase type;          /* every thunk expression has a base type */
  FlatOp op;              /* LE_OP */
  int nargs;
  bool in_range;          /* LE_INDEX: in range by construction (lowering:
                             a gather of whole segments' elements,
                             FlatStmt.segments): fusion knows it cannot
                             fail; printed x![e].  LE_OP rem: its divisor
                             is not 0 by construction (a replication's
                             index); printed rem!(a, n).  Code generation and
                             the interpreters check it all the same (a
                             GPU reports a failed check only at its next
                             wait, and kernels run on after it) */
  int origin;             /* fusion's scratch while it rewrites a kernel:
                             1 + the place of the SOAC the expression came
                             from, in the kernel's order when the rules
                             began; 0 for what the rules made */
  Loc loc;                /* the NESL expression it computes (lower.c: the
                             flat statement it comes from); a run-time
                             error in it is reported there, or at the
                             `run` when 'loc' is its SOAC's own (see
                             lcu_error_loc) */
  LcuVar *var;            /* LE_VAR, LE_INDEX (the vector), LE_LET (bound),
                             LE_LENGTH, LE_SEG_LENGTH and LE_SEG_OFFSET
                             (the sd) */
  FlatAtom constant;      /* LE_CONST (FA_INT ... FA_CHAR) */
  struct LcuExp **args;   /* nargs of them (room for 3 at least): LE_OP
                             operands; LE_INDEX: [0] the index; LE_IF:
                             cond, then, else; LE_LET: value, body;
                             LE_CALL: the arguments.  A copy of an
                             expression copies the array (lcu_exp_clone) */
  struct LcuFunc *callee; /* LE_CALL */
  const char *lib_fn;     /* NULL, or (fusion) the library function whose
                             inlined statement the expression was moved out
                             of, into a run of other code: its errors are
                             worded as in that function called at 'loc'
                             (LcuStmt.lib_fn, user_loc), whatever the run
                             holding it */
} LcuExp;

/* { xs => (e1, ..., ek) using ys }: a thunk with scalar parameters whose
   body is a tuple of expressions (one per result, k >= 1).  The body
   reads only the parameters, the names its LE_LETs bind (in their
   bodies), and the `using` variables: each a parameter of the kernel or
   the result of an earlier SOAC, a scalar or a vector (never a sd; a
   scalar is read as x, a vector only as x[e] and #x).  Parameters and
   let-bound names are scalars bound once in the thunk, and are neither
   `using` variables nor variables of the kernel.

   A thunk may also bind names shared by its results, before them:
     { xs => let a = e1; let b = e2; (r1, r2) using ys }
   each value is computed once, in order, on every application, and is in
   scope in the lets after it and in the results.  This is the paper's
   `let (a, b) = ... in (e1, e2)` over tuples: composition makes them
   (lcu_compose_pull) where a producer's value is read by several results,
   so that a DAG of MAPs composes into a thunk of the DAG's size, not of
   the tree it unfolds to. */
typedef struct LcuLet {
  LcuVar *var;   /* a scalar, bound once in the thunk */
  LcuExp *value;
} LcuLet;

typedef struct LcuThunk {
  Vec params;  /* LcuVar * (LT_SCALAR) */
  Vec lets;    /* LcuLet *: shared by the results, in order */
  Vec body;    /* LcuExp *: the tuple of results */
  Vec using;   /* LcuVar *: the kernel variables the body may read */
} LcuThunk;

/* Every expression of thunk 't', in the order they are evaluated: the
   lets' values, then the results (0 <= i < lcu_thunk_nexps(t)).  What
   asks a question of all a thunk reads walks these. */
static inline int lcu_thunk_nexps(const LcuThunk *t) { return t->lets.len + t->body.len; }
static inline LcuExp *lcu_thunk_exp(const LcuThunk *t, int i) {
  return i < t->lets.len ? ((const LcuLet *)t->lets.data[i])->value : (LcuExp *)t->body.data[i - t->lets.len];
}

/* ---- kernel level: SOACs ---- */

/* The results of `let xs = SOAC ...` when the pull thunk gives k values
   of base types τ1 ... τk (τ↑ = [τ1], ..., [τk]; Figures 3 and 4):
     MAP, PERMUTE, SCAN, FILTER, SEG_MAP, SEG_PERMUTE, SEG_REDUCE, SEG_SCAN: τ↑
       (SEG_REDUCE: one value per segment)
     REDUCE, ONCE: the k scalars τ1 ... τk
     PARTITION: τ↑ of those for which P holds, then τ↑ of the others (2k);
       `joined`: τ↑, each value's kept elements then its others, n each
     SPLIT: τ↑, in classes: class c's vectors hold its own values (the
       pull's values of its columns, `widths`) where its flag holds;
       with `counts sd`, then one [int] a class: its count in each
       segment of sd
     SEG_FILTER: τ↑, then the sd of the kept values (k + 1)
     SEG_PARTITION: τ↑ held, their sd, τ↑ the others, their sd (2k + 2)
   The second thunk: PERMUTE's index thunk takes the index and gives one
   int; FILTER's and PARTITION's predicate takes the k values and gives
   one bool, SPLIT's gives one bool per class; REDUCE's and SCAN's operator takes 2k parameters (the values
   of the left operand, then those of the right) and gives k values of
   types τ1 ... τk, the types of the k identities.  ONCE's thunk has no
   parameters; the others' pull thunks take one int, the index (for the
   SEG_ SOACs, the index among all the sd's elements), and SEG_MAP's a
   second int, the segment that holds the element (the nonempty one,
   whatever empty segments share its offset).  SEG_MAP is not made by
   lowering: fusion's last pass (fusion/segmap.c) makes it of a MAP over
   a sd's elements that reads the sd's seg_ids at its own index, so that
   the ids are found inside the MAP's launch and never stored.  The same
   pass gives a SEG_REDUCE's or SEG_SCAN's pull thunk that second int
   where it read its own sd's ids at its index: the skeleton walking a
   segment knows which one it walks (lcu_pull_takes_segment), and a
   SPLIT's with `counts sd` where it read the ids of that sd at its
   index: the split finds the segments it counts, and each element's
   (n is then sd's number of elements, which the SPLIT checks). */
#define LCU_SOACS(X)                                                                             \
  X(MAP, "MAP")                   /* A n: A applied to 0..n-1 */                                 \
  X(PERMUTE, "PERMUTE")           /* A I n [into D]: Y[I(i)] = A(i), in order; Y is D's copy */ \
  X(REDUCE, "REDUCE")             /* A id op n: the reduction of A(0..n-1) by op */              \
  X(SCAN, "SCAN")                 /* A id op n: the exclusive scan */                            \
  X(FILTER, "FILTER")             /* A P n: the values of A(0..n-1) for which P holds */         \
  X(PARTITION, "PARTITION")       /* A P n: those for which P holds, then the others */          \
  X(SPLIT, "SPLIT")               /* A P [w1..wc] n: c FILTERs of one pass (see below) */       \
  X(ONCE, "ONCE")                 /* A: A() on one thread */                                     \
  X(SEG_MAP, "SEG_MAP")           /* A sd: A(i, s) for each element i, s its segment */         \
  X(SEG_PERMUTE, "SEG_PERMUTE")   /* A I sd: PERMUTE within each segment (I is local) */         \
  X(SEG_REDUCE, "SEG_REDUCE")     /* A id op sd: one reduction per segment */                    \
  X(SEG_SCAN, "SEG_SCAN")         /* A id op sd: an exclusive scan per segment */                \
  X(SEG_FILTER, "SEG_FILTER")     /* A P sd: FILTER per segment; also the new sd */              \
  X(SEG_PARTITION, "SEG_PARTITION") /* A P sd: PARTITION per segment; and two sds */             \
  X(LIBRARY, "LIBRARY")           /* a library kernel (sort, rank, ...): see LcuLibrary */

typedef enum LcuSoacKind {
#define X(name, text) SOAC_##name,
  LCU_SOACS(X)
#undef X
  SOAC_COUNT
} LcuSoacKind;

/* Library kernels: what maps to a CUDA library or a hand-written kernel
   rather than to a SOAC with thunks.  Arguments and results are kernel
   variables. */
#define LCU_LIBRARIES(X)                                                                        \
  X(RANK, "rank")                   /* v -> stable sort ranks */                                 \
  X(RANK_DOWN, "rank_down")                                                                      \
  X(SEG_RANK, "seg_rank")           /* sd, v -> ranks within segments */                         \
  X(SEG_RANK_DOWN, "seg_rank_down")                                                              \
  X(MAKE_SEGDES, "make_segdes")     /* lengths -> sd; error on a negative length */              \
  X(RANGE_SEGDES, "range_segdes")   /* starts ends strides -> the sd of seg_range's ranges,     \
                                       each length in 64 bits (error when the total passes     \
                                       max_int, make_segdes's), its lengths, its offsets */    \
  X(SEG_LENGTHS, "seg_lengths")     /* sd -> lengths */                                          \
  X(SEG_OFFSETS, "seg_offsets")     /* sd -> offsets */                                          \
  X(SEG_IDS, "seg_ids")             /* sd -> segment of each element */                          \
  X(NAME, "name")                   /* components of V(t) -> last occurrence of each value */   \
  X(EQL, "eql")                     /* two values' components -> bool(s) */                      \
  X(HASH, "hash")                   /* a value's components, range -> int(s) */                  \
  X(RAND, "rand")                   /* v limits -> random numbers (flat.h's formula);
                                       also a scalar limit -> a scalar */   \
  X(LOOP, "loop")                   /* a sequence loop on each element: see below */

typedef enum LcuLibrary {
#define X(name, text) LIB_##name,
  LCU_LIBRARIES(X)
#undef X
  LIB_COUNT
} LcuLibrary;

/* LIBRARY loop f (a1, ..., am): a sequence loop (flatten.c) run on each
   of n elements, one call of element function f (LcuFunc.each) per
   element, each element on its own segments, independently.  The
   arguments are f's parameters lifted: a scalar parameter's vector of n
   values; a vector parameter's sd (n segments) and values.  Element i
   calls f with the scalars at i and, for each vector parameter, segment
   i of its values: a copy of them where f updates that parameter in
   place (LS_UPDATE), the argument itself where it only reads it.  A
   vector parameter that f only reads and that is not its result may
   have one vector argument instead (no sd), which every element reads
   whole: a sequence the same for every element (shared).  The
   result is f's lifted: a vector of n scalars for each scalar f gives
   (a tuple's components, from one walk of the element's loop), or,
   where f returns its vector parameter 'each_result', that parameter's
   updated copy (its sd is the argument's).  The error of the lowest element that
   fails is reported, as a MAP's call's. */

/* SPLIT A P [w1, ..., wc] n: c FILTERs of the same n elements in one
   pass, each keeping values of its own (fusion's rule_split makes it of
   FILTERs side by side; lowering never does).  The pull thunk gives the
   classes' values one after another, w1 for the first class, then w2,
   ... (k = w1 + ... + wc); the predicate takes all k and gives c bools,
   one per class; result j (0 <= j < k) holds pull value j of the
   elements whose class's flag holds, in order, so that the results are
   the c FILTERs' results one after another.  An element may be in
   several classes or none.  1 <= c <= LCU_SPLIT_MAX (codegen keeps an
   element's flags in one byte), each wi >= 1.
   SPLIT A P [w1, ..., wc] n counts sd also counts each class in each
   segment of sd, whose elements are the n: c more results, [int] each,
   one count a segment (a flattened filter's lengths, which a SEG_REDUCE
   of the flags made in a pass of its own: fusion's rule_split_counts).
   LcuSoac.segdes is that sd; n and sd's total must agree (fusion makes
   the counts only where it knows they do; the interpreter stops where
   they do not).
   SPLIT A P [w1, ..., wc] n counts sd offsets also gives, after the
   counts, each class's offsets: c more results, [int] each, one a
   segment, the exclusive sum scan of the class's counts (where segment
   s's values of the class begin in the class's vectors: the offsets of
   the flattened filter's segdes, which a SCAN of the counts made in a
   launch of its own: fusion's rule_split_offsets).  The split finds
   them to place its elements in any case. */
enum { LCU_SPLIT_MAX = 8 };

/* SCAN A id op n maps m (REDUCE likewise): the pull thunk gives k + m
   values; the first k are scanned or reduced (id and op are of k
   values), the last m are written at their index as a MAP's results
   would be: results k scans (k scalars for a REDUCE), then m vectors of
   n values.  A MAP beside a SCAN or REDUCE of its space made one pass
   with it (fusion's rule_map_scan): the append of a lifted `++` scans
   the lengths it also writes.  Lowering never makes one; m = 0 is the
   plain SOAC.  lcu_soac_scanned gives k. */

/* A SOAC's size: the n of MAP ... n, a variable or constant of the kernel,
   or the length of a kernel vector (#xs). */
typedef struct LcuSize {
  LcuVar *var;    /* an int scalar parameter, or NULL */
  LcuVar *length; /* #length, or NULL (never both set) */
  int32_t value;  /* when both are NULL: >= 0 */
} LcuSize;

/* let xs = SOAC args */
typedef struct LcuSoac {
  LcuSoacKind kind;
  LcuLibrary library; /* LIBRARY */
  int site;           /* LIBRARY RAND: as FlatStmt.site */
  bool lifted;        /* LIBRARY EQL, HASH: on vectors of values */
  bool once;          /* LIBRARY RANGE_SEGDES: the ranges are whole
                         segments of a sd, each taken at most once
                         (FlatStmt.once): the total cannot pass max_int,
                         so the kernel cannot fail; printed <once> */
  Loc loc;
  Vec results;        /* LcuVar * bound by the SOAC */
  LcuThunk *pull;     /* every SOAC but LIBRARY: the pull thunk (ONCE: its
                         only thunk, without parameters) */
  LcuThunk *second;   /* PERMUTE: the index thunk; FILTER, PARTITION: the
                         predicate (over the pulled values); SPLIT: the
                         classes' flags (over all of them); REDUCE, SCAN:
                         the operator (over two tuples of values) */
  Vec identity;       /* REDUCE, SCAN: FlatAtom * constants, one per value */
  LcuSize size;       /* the unsegmented SOACs but ONCE (the others leave
                         it zero) */
  int maps;           /* REDUCE, SCAN: the pull's last 'maps' values are
                         not combined but written at their index, a
                         MAP's results riding on the pass (below) */
  int classes;        /* SPLIT: its classes, c */
  const int *widths;  /* SPLIT: the values of each class, c of them */
  LcuVar *segdes;     /* the SEG_ SOACs; SPLIT's `counts` sd, or NULL */
  bool offsets;       /* SPLIT with `counts sd`: also each class's
                         offsets (below); printed `offsets` */
  bool joined;        /* PARTITION: one vector a value, its kept elements
                         then its others, as `kept ++ others` would give
                         (k results of n elements, not 2k); printed
                         `joined`.  Lowering never makes one: fusion's
                         fus_join_partitions does, of a PARTITION whose
                         parts are appended back */
  LcuVar *into;       /* PERMUTE, SEG_PERMUTE: the vector whose copy is
                         written (NULL: the indices are a permutation);
                         with `into`, the pull thunk gives one value, of
                         into's base type */
  Vec args;           /* LIBRARY: LcuVar * */
  struct LcuFunc *callee; /* LIBRARY LOOP: the element function */
  const char *elem_name; /* LIBRARY NAME, EQL, HASH: as FlatStmt.elem_name */
  const RtLayout *layout; /* LIBRARY NAME, EQL, HASH: as FlatStmt.layout */
} LcuSoac;

typedef struct LcuKernel {
  const char *name; /* K1, K2, ... */
  Vec params;       /* LcuVar * */
  Vec soacs;        /* LcuSoac * */
  Vec results;      /* LcuVar * */
} LcuKernel;

/* ---- CPU level ---- */

typedef enum LcuStmtKind {
  LS_SCALAR, /* results = op(args): a flat element-wise operation on
                scalars, on the host: ADD ... COPY of rt/ops.def, but
                RAND, which is the library kernel rand (it has a site) */
  LS_RUN,    /* results = run kernel(args) */
  LS_CALL,   /* results = f(args) */
  LS_IF,     /* results = if args[0] then 'then' else 'els' */
  LS_TIME,   /* results = body's results and the seconds it took */
  LS_LENGTH, /* results[0] = #args[0]: the length of a GPU vector, or the
                number of segments (count) or elements (total) of a sd */
  LS_CHECK,  /* NESL's argument check 'check' (scalar.h, RtCheckKind) on
                scalar args (ints): stops the statement in the evaluator's
                words if it fails; no results.  On a GPU its args may stay
                on the device: the check writes the error record there. */
  LS_SIZE,   /* results[0] = the length of a vector about to be made,
                from int operands ('size': LcuSizeKind), computed in 64
                bits: an error ("out of memory (could not allocate a
                vector of N elements)", as the flat IR's range and append
                say) where it passes max_int, never a length that
                wrapped.  It comes before the kernel that makes the
                vector, so that nothing is allocated first. */
  LS_HOST,   /* results = a flat operation that runs on the host with the
                vectors copied there: VECTOR (constant vectors), ERROR,
                ERROR_ANY, HOST_PRIM (text and I/O), RANGE/SEG_RANGE's
                checks; 'flat' is the flat statement it comes from.
                Arguments and results are those of the flat operation;
                RANGE and SEG_RANGE may also have no results (the
                checks alone) */
  LS_ELT,    /* results[0] = args[0][args[1]]: an element of a vector
                parameter of an element function (LcuFunc.each), the
                index an int atom; a subscript out of range fails as
                LE_INDEX's does.  Only in element functions. */
  LS_UPDATE, /* no results: args[0][args[1]] = args[2], in place, in a
                vector parameter of an element function that owns it
                (LIBRARY loop gives it a copy): NESL's rep(v, x, i) whose
                old value is dead (flatten.c, sequence loops); an index
                out of range fails with rep's words.  Only in element
                functions. */
  LS_COST,   /* no results: the flat IR's FS_COST (flat.h), NESL's cost
                model at this point of the program, by 'cost_rule' (a
                FlatCostRule), 'lifted' or not, its arguments those of
                the flat statement; made only for --cost, and counted by
                the interpreter alone (code generation leaves it out) */
} LcuStmtKind;

typedef enum LcuLengthKind {
  LEN_VECTOR,   /* #v */
  LEN_SEGMENTS, /* the number of segments of a sd */
  LEN_TOTAL,    /* the number of elements a sd describes */
} LcuLengthKind;

typedef enum LcuSizeKind {
  SIZE_RANGE,  /* (start, end, stride): [start:end:stride]'s length; a bad
                  range fails as `check range` does */
  SIZE_APPEND, /* (a, b): the length of an append of vectors of a and b
                  elements, a + b */
} LcuSizeKind;

typedef struct LcuStmt {
  LcuStmtKind kind;
  FlatOp op;             /* LS_SCALAR */
  LcuLengthKind length;  /* LS_LENGTH */
  LcuSizeKind size;      /* LS_SIZE */
  int check;             /* LS_CHECK: the RtCheckKind */
  int cost_rule;         /* LS_COST: the FlatCostRule */
  bool lifted;           /* LS_COST: in a lifted context */
  Loc loc;
  Vec results;  /* LcuVar * */
  Vec args;     /* LcuAtom *: variables or constants */
  LcuKernel *kernel;     /* LS_RUN */
  struct LcuFunc *callee; /* LS_CALL */
  struct LcuBlock *then, *els, *body; /* LS_IF; LS_TIME */
  FlatStmt *flat;        /* LS_HOST */
  /* a statement inlined from a library function (lower.c inlines the
     library's non-recursive functions): a run-time error in it is
     reported as in that function, called from user code at 'user_loc' */
  const char *lib_fn;    /* NULL: not inlined from the library */
  Loc user_loc;
} LcuStmt;

/* An argument at the CPU level: a variable or a scalar constant. */
typedef struct LcuAtom {
  LcuVar *var;       /* or NULL for a constant */
  FlatAtom constant; /* when var is NULL */
} LcuAtom;

typedef struct LcuBlock {
  Vec stmts;   /* LcuStmt * */
  Vec results; /* LcuAtom * */
} LcuBlock;

/* A CPU function; its result types are those of its body's results.

   An element function ('each': a sequence loop of flatten.c, named
   f.each after its host version f) runs on one element of a LIBRARY
   loop, never at the host: its parameters are scalars and vectors (each
   a segment of a vector of the loop, which it may update in place by
   LS_UPDATE), and its body holds only LS_SCALAR, LS_IF, LS_LENGTH (of a
   vector parameter), LS_ELT, LS_UPDATE and LS_CALL, of itself in tail
   position or of scalar functions.  Its results are scalars (several: a
   tuple's components, flatten.c's f.all), or its one result is its
   vector parameter 'each_result', updated in place: every vector its
   blocks return is that parameter. */
typedef struct LcuFunc {
  const char *name;
  Loc loc;
  Vec params;    /* LcuVar * */
  LcuBlock *body;
  bool library;  /* from lib-nesl (for error messages) */
  const char *source; /* the NESL function's name */
  FlatFunc *flat;
  bool each;       /* an element function (above) */
  int each_result; /* each: the index of the vector parameter it
                      returns, or -1 (a scalar result) */
} LcuFunc;

/* A top-level statement, as FlatTop: its body gives the components of
   H(flat->mono_type). */
typedef struct LcuTop {
  FlatTop *flat;  /* source, types and 'defines' (global FlatVars) */
  LcuBlock *body; /* NULL for definitions */
  Vec defines;    /* LcuVar *: the globals, one per component: one for
                     one with flat->defines, of the same types */
  Vec replaced;   /* empty, or one for one with 'defines': the global
                     (LcuVar *) whose value each keeps where the
                     statement stops with an error, or NULL (FlatTop.
                     replaced) */
} LcuTop;

typedef struct LcuProgram {
  Vec kernels; /* LcuKernel * */
  Vec funcs;   /* LcuFunc * */
  Vec tops;    /* LcuTop * */
  Vec globals; /* LcuVar *: components of top-level bindings, readable
                  everywhere; bound only by their LcuTop's 'defines' */
  int next_var;
} LcuProgram;

/* ---- lcu.c: names and types ---- */

const char *lcu_soac_name(LcuSoacKind k);
const char *lcu_library_name(LcuLibrary l);
const char *lcu_size_name(LcuSizeKind k);  /* "range", "append" */
int lcu_size_lookup(const char *name);     /* its LcuSizeKind, or -1 */
int lcu_size_arity(LcuSizeKind k);         /* how many operands it takes */
LcuType lcu_scalar(FlatBase b);
LcuType lcu_vec(FlatBase b);
LcuType lcu_segdes(void);
bool lcu_type_equal(LcuType a, LcuType b);
const char *lcu_type_name(LcuType t); /* "int", "[float]", "sd" */
LcuType lcu_type_of_flat(FlatType t);  /* a flat variable's λcu type */
FlatType lcu_flat_type(LcuType t);     /* and back */
/* Two locations are one: the same place, inlined from the same call of
   the same user function, if at all (Loc.inlined). */
bool lcu_loc_equal(Loc a, Loc b);
/* Location 'loc' as text for a key, appended to 'b': `@FILE:LINE:COL `
   and, where inlined, `in FN@FILE:LINE:COL ` (the call its errors name).
   By file name, never by address: a key must not depend on where the
   collector put a Source.  Two locations lcu_loc_equal have one text. */
void lcu_loc_key(Buf *b, Loc loc);
/* Where a run-time error in thunk expression 'e' of SOAC 's', run by a
   `run` at 'run', is reported: e's own location, unless it is s's (an
   expression of the statement the kernel was made for: the kernel may
   be shared by runs of other statements, lcu_intern_kernel), then the
   run's. */
Loc lcu_error_loc(const LcuExp *e, const LcuSoac *s, Loc run);
/* NULL if CPU function 'f' may be called from a thunk (LE_CALL): its
   parameters and its one result are scalars, and its body holds only
   scalar operations but RAND, ifs, and calls of such functions; else
   why not. */
const char *lcu_scalar_func(const LcuFunc *f);
/* NULL if 'f' is a well-formed element function (LcuFunc.each: the
   statements it may hold, vectors read and updated only where they are
   its parameters, a vector result only its parameter each_result); else
   why not. */
const char *lcu_element_func(const LcuFunc *f);
/* Does element function 'f' update its vector parameter 'param' in place
   (LS_UPDATE)? */
bool lcu_func_updates(const LcuFunc *f, const LcuVar *param);
/* The index in LIBRARY loop 's''s arguments of the first one of its
   function's parameter 'param' (a vector parameter's sd, or its one
   shared vector, or a scalar parameter's vector); '*shared' (if not
   NULL) says whether it is a shared vector.  -1 past the arguments. */
int lcu_loop_arg(const LcuSoac *s, int param, bool *shared);
/* True if thunk 't' calls a scalar function (LE_CALL): its applications
   may take very different times (codegen spreads them accordingly). */
bool lcu_thunk_calls(const LcuThunk *t);
/* Does SOAC 's' read variable 'v' anywhere but in its thunks: as its
   size (a variable, or #v), its segdes, `into` or a library kernel's
   argument? */
bool lcu_soac_reads_outside_thunks(const LcuSoac *s, const LcuVar *v);
/* Does SOAC 's' read 'v' at all: there, or in a thunk (its `using`)? */
bool lcu_soac_reads(const LcuSoac *s, const LcuVar *v);
/* Does the pull thunk of 's' take the segment of its element as a
   second parameter (SEG_MAP's always; a SEG_REDUCE's, SEG_SCAN's or
   counted SPLIT's where fusion/segmap.c gave it one)? */
bool lcu_pull_takes_segment(const LcuSoac *s);
/* Is 'e', of thunk index 'i', an append's element as lowering makes it
   (lower.c, FLAT_APPEND): `if i < #a then a[i] else b[i - #a]`, a and
   b (distinct) into '*a' and '*b'? */
bool lcu_append_element(const LcuExp *e, const LcuVar *i, const LcuVar **a, const LcuVar **b);
/* The columns of kernel 'k' if it is one append of vectors (a1, b1),
   (a2, b2) ... (a MAP of size n whose element c is lcu_append_element's
   `if i < #ac then ac[i] else bc[i - #ac]`, the kernel's results its
   values), at most 'most' of them, with the places of its parameters
   a, b and n in 'first', 'second' (room for 'most' each) and 'size';
   else 0.  Fusion leaves such a kernel where nothing took the append
   into its readers (radix sort's pass: the parts of a split). */
int lcu_append_kernel(const LcuKernel *k, int *first, int *second, int *size, int most);
/* The values a REDUCE, SCAN or their SEG_ forms combine: the pull's, but
   the map columns (LcuSoac.maps). */
int lcu_soac_scanned(const LcuSoac *s);

/* ---- build.c: constructors, the kernel builder, interning ----
   Every node is made here, location first (chibicc's new_binary).  A
   constructor sets the fields it is given and leaves lists empty; the
   callers push onto them (results, arguments, statements) through the
   helpers below. */

/* Variables and atoms. */
LcuVar *lcu_new_var(LcuProgram *p, LcuType t, const char *hint);
LcuAtom *lcu_atom_var(LcuVar *v);
LcuAtom *lcu_atom_const(FlatAtom c);
LcuAtom *lcu_atom_int(int32_t i);
FlatAtom lcu_int_const(int32_t i);
FlatAtom lcu_float_const(double f);
FlatAtom lcu_bool_const(bool b);
FlatAtom lcu_char_const(char c);
FlatBase lcu_const_base(FlatAtom c); /* the base type of a constant */
LcuType lcu_atom_type(const LcuAtom *a);

/* Thunk expressions. */
LcuExp *lcu_exp_var(Loc loc, LcuVar *v);
LcuExp *lcu_exp_const(Loc loc, FlatAtom c);
LcuExp *lcu_exp_index(Loc loc, LcuVar *vec, LcuExp *i);
LcuExp *lcu_exp_length(Loc loc, LcuVar *vec);
LcuExp *lcu_exp_bound(Loc loc, LcuExp *index, LcuExp *length);
/* seg_length(sd, i) (kind LE_SEG_LENGTH) or seg_offset(sd, i) */
LcuExp *lcu_exp_seg_field(Loc loc, LcuExpKind kind, LcuVar *sd, LcuExp *i);
/* op(a, b, c) of result base 'type' with 'nargs' operands (the others NULL) */
LcuExp *lcu_exp_op(Loc loc, FlatOp op, FlatBase type, int nargs, LcuExp *a, LcuExp *b, LcuExp *c);
LcuExp *lcu_exp_if(Loc loc, LcuExp *cond, LcuExp *then, LcuExp *els);
LcuExp *lcu_exp_let(Loc loc, LcuVar *x, LcuExp *value, LcuExp *body);
/* f(args), the result of type 'type'; 'args' has f's arity (copied) */
LcuExp *lcu_exp_call(Loc loc, struct LcuFunc *f, FlatBase type, LcuExp **args, int nargs);
/* A shallow copy of 'e' with an array of arguments of its own. */
LcuExp *lcu_exp_clone(const LcuExp *e);

/* Thunks: made empty; parameters are new variables. */
LcuThunk *lcu_thunk_new(void);
LcuVar *lcu_thunk_param(LcuProgram *p, LcuThunk *t, FlatBase b, const char *hint);
void lcu_thunk_return(LcuThunk *t, LcuExp *e); /* adds a result to the body */
void lcu_thunk_let(LcuThunk *t, LcuVar *x, LcuExp *value); /* adds a shared let, after the others */
void lcu_thunk_use(LcuThunk *t, LcuVar *v);    /* adds to `using` (once) */

/* SOACs, one constructor per kind (the layouts are above LCU_SOACS);
   results are added with lcu_soac_result.  'ids' holds the REDUCE's or
   SCAN's 'nids' identities. */
LcuSize lcu_size_const(int32_t n);
LcuSize lcu_size_var(LcuVar *n);
LcuSize lcu_size_length(LcuVar *vec);
LcuSoac *lcu_soac_map(Loc loc, LcuThunk *pull, LcuSize n);
LcuSoac *lcu_soac_permute(Loc loc, LcuThunk *pull, LcuThunk *index, LcuSize n, LcuVar *into);
LcuSoac *lcu_soac_reduce(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuSize n);
LcuSoac *lcu_soac_scan(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuSize n);
LcuSoac *lcu_soac_filter(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuSize n);
LcuSoac *lcu_soac_partition(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuSize n);
LcuSoac *lcu_soac_split(Loc loc, LcuThunk *pull, LcuThunk *pred, int classes, const int *widths, LcuSize n);
/* The first pull value (and result) of SPLIT class 'c'. */
int lcu_split_start(const LcuSoac *s, int c);
/* The class of SPLIT pull value (and result) 'j'. */
int lcu_split_class(const LcuSoac *s, int j);
/* The arguments of LIBRARY make_segdes (1) or range_segdes (3) before
   its last, optional one, the total the host knows (flat.h,
   FlatStmt.total); -1 for another library kernel. */
int lcu_segdes_args(const LcuSoac *s);
/* Does LIBRARY 's' end with such a total? */
bool lcu_known_total(const LcuSoac *s);
LcuSoac *lcu_soac_once(Loc loc, LcuThunk *thunk);
LcuSoac *lcu_soac_seg_map(Loc loc, LcuThunk *pull, LcuVar *sd);
LcuSoac *lcu_soac_seg_permute(Loc loc, LcuThunk *pull, LcuThunk *index, LcuVar *sd, LcuVar *into);
LcuSoac *lcu_soac_seg_reduce(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuVar *sd);
LcuSoac *lcu_soac_seg_scan(Loc loc, LcuThunk *pull, const FlatAtom *ids, int nids, LcuThunk *op, LcuVar *sd);
LcuSoac *lcu_soac_seg_filter(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuVar *sd);
LcuSoac *lcu_soac_seg_partition(Loc loc, LcuThunk *pull, LcuThunk *pred, LcuVar *sd);
/* a library kernel; its arguments are added with vec_push(&s->args, v) */
LcuSoac *lcu_soac_library(Loc loc, LcuLibrary lib);
LcuVar *lcu_soac_result(LcuProgram *p, LcuSoac *s, LcuType t);

/* Kernels: made empty and unnamed (lcu_add_kernel names them). */
LcuKernel *lcu_kernel_new(void);
LcuVar *lcu_kernel_param(LcuProgram *p, LcuKernel *k, LcuType t);
void lcu_kernel_soac(LcuKernel *k, LcuSoac *s); /* appends a SOAC */
void lcu_kernel_return(LcuKernel *k, LcuVar *v); /* adds a result */
/* Adds 'k' to the program's kernels, named K<n> after those before it. */
void lcu_add_kernel(LcuProgram *p, LcuKernel *k);

/* CPU statements; arguments and results are pushed by the caller
   (lcu_stmt_arg, lcu_stmt_result). */
LcuStmt *lcu_stmt_scalar(Loc loc, FlatOp op);
LcuStmt *lcu_stmt_run(Loc loc, LcuKernel *k);
LcuStmt *lcu_stmt_call(Loc loc, LcuFunc *callee);
LcuStmt *lcu_stmt_if(Loc loc, LcuAtom *cond, LcuBlock *then, LcuBlock *els);
LcuStmt *lcu_stmt_time(Loc loc, LcuBlock *body);
LcuStmt *lcu_stmt_length(Loc loc, LcuLengthKind kind, LcuAtom *of);
LcuStmt *lcu_stmt_elt(Loc loc, LcuAtom *v, LcuAtom *i);                 /* v[i] */
LcuStmt *lcu_stmt_update(Loc loc, LcuAtom *v, LcuAtom *i, LcuAtom *x);  /* v[i] := x */
LcuStmt *lcu_stmt_host(Loc loc, FlatStmt *flat);
LcuStmt *lcu_stmt_check(Loc loc, int check);
LcuStmt *lcu_stmt_size(Loc loc, LcuSizeKind kind); /* its operands pushed by the caller */
LcuStmt *lcu_stmt_cost(Loc loc, int rule, bool lifted); /* the same */
void lcu_stmt_arg(LcuStmt *s, LcuAtom *a);
LcuVar *lcu_stmt_result(LcuProgram *p, LcuStmt *s, LcuType t); /* a new variable */
void lcu_stmt_bind(LcuStmt *s, LcuVar *v);                     /* an existing one */

/* Blocks, functions, top-level statements, programs. */
LcuBlock *lcu_block_new(void);
void lcu_block_add(LcuBlock *b, LcuStmt *s);
void lcu_block_return(LcuBlock *b, LcuAtom *a);
LcuFunc *lcu_func_new(Loc loc, const char *name, const char *source, bool library);
LcuVar *lcu_func_param(LcuProgram *p, LcuFunc *f, LcuType t, const char *hint);
LcuTop *lcu_top_new(FlatTop *flat, LcuBlock *body);
LcuProgram *lcu_program_new(void);

/* The kernel builder: a kernel of one SOAC made while lowering one CPU
   statement.  Its parameters stand for CPU variables (the `run`'s
   arguments, in 'outer'): lcu_kb_param gives the parameter of a CPU
   variable, made the first time, and lists it in the `using` of the
   thunk being built ('thunk', set by lcu_kb_thunk, cleared by
   lcu_kb_end_thunk). */
typedef struct LcuKernelBuilder {
  LcuProgram *p;
  Loc loc;         /* of the statement: the SOAC's and the expressions' */
  LcuKernel *k;
  Vec outer;       /* LcuAtom *: the run's arguments, one per parameter */
  PtrMap params;   /* CPU LcuVar -> its parameter */
  LcuThunk *thunk; /* the thunk being built, or NULL */
} LcuKernelBuilder;

LcuKernelBuilder *lcu_kb_new(LcuProgram *p, Loc loc);
/* The parameter for CPU variable 'v', in the current thunk's `using`. */
LcuVar *lcu_kb_param(LcuKernelBuilder *kb, LcuVar *v);
/* The same, not read by a thunk (a size, a sd, a library argument). */
LcuVar *lcu_kb_plain_param(LcuKernelBuilder *kb, LcuVar *v);
/* Starts a thunk of 'n' scalar parameters of bases 'types' (one int
   parameter is named i_N, the index) and makes it current. */
LcuThunk *lcu_kb_thunk(LcuKernelBuilder *kb, int n, const FlatBase *types);
LcuThunk *lcu_kb_index_thunk(LcuKernelBuilder *kb); /* { i => ... } */
void lcu_kb_end_thunk(LcuKernelBuilder *kb);
/* A CPU atom in the current thunk: a constant, or a scalar's parameter. */
LcuExp *lcu_kb_scalar(LcuKernelBuilder *kb, LcuAtom *a);
LcuSize lcu_kb_size_atom(LcuKernelBuilder *kb, LcuAtom *n);  /* (n) */
LcuSize lcu_kb_size_length(LcuKernelBuilder *kb, LcuVar *v); /* (#v) */
/* Ends the kernel with SOAC 's' (whose results become the kernel's) and
   returns it, not yet interned. */
LcuKernel *lcu_kb_finish(LcuKernelBuilder *kb, LcuSoac *s);

/* The canonical text of a kernel: its structure with variables numbered
   by first appearance and expression locations written relative to
   their SOAC's (lcu_error_loc), so that two kernels have one text when
   they differ only in their variables and in where they were made. */
char *lcu_kernel_canonical(const LcuKernel *k);
/* The same text in a buffer of build.c's, good until the next call: for
   a lookup, which copies it only to keep it. */
const char *lcu_kernel_key(const LcuKernel *k);
/* Kernels by canonical text: each distinct kernel made once. */
typedef struct LcuKernelTable {
  Map by_text; /* canonical text -> LcuKernel * */
} LcuKernelTable;
/* The kernel of t equal to 'k' if there is one; else 'k', added to the
   table and to the program (lcu_add_kernel). */
LcuKernel *lcu_intern_kernel(LcuKernelTable *t, LcuProgram *p, LcuKernel *k);

/* ---- known.c: kernels known before they are built ----
   A description of a kernel by what its builder is given (lowering
   writes one for the common forms of kernel): the form and its numbers,
   constants by value, and each CPU variable a parameter stands for,
   numbered by first use, with its type and a letter for how the kernel
   reads it.  Kernels of equal descriptions have one canonical text. */
typedef struct LcuPlan {
  Buf text;
  Vec vars; /* LcuVar *: the CPU variables of the parameters, by first use */
} LcuPlan;

void lcu_plan_begin(LcuPlan *pl, char form); /* empties 'pl' */
void lcu_plan_int(LcuPlan *pl, int64_t i);
void lcu_plan_type(LcuPlan *pl, LcuType t);
void lcu_plan_const(LcuPlan *pl, FlatAtom a);
void lcu_plan_var(LcuPlan *pl, char how, LcuVar *v);

/* What a description made once: its kernel, and how to run it again. */
typedef struct LcuKnownKernel {
  LcuKernel *k;
  int nparams;
  int *param_var;  /* parameter j stands for the description's variable param_var[j] */
  int kernel_vars; /* the variables building it made: so many ids are taken
                      again, so that later variables keep their names */
} LcuKnownKernel;

typedef struct LcuKnownKernels {
  Map by_plan; /* description -> LcuKnownKernel * */
} LcuKnownKernels;

/* The kernel made before for description 'pl', or NULL. */
LcuKnownKernel *lcu_known_kernel(const LcuKnownKernels *t, LcuPlan *pl);
/* Kernel 'k', made for 'pl', is run with 'args' (atoms, one per
   parameter) and made 'kernel_vars' variables: recorded, unless a
   parameter stands for a variable 'pl' does not name (false). */
bool lcu_know_kernel(LcuKnownKernels *t, LcuPlan *pl, LcuKernel *k, const Vec *args, int kernel_vars);

/* Dead-code elimination at the CPU level.
   Requires: a program whose variables are bound once per function.
   Drops, to a fixpoint, the statements whose results nothing reads and
   that can neither fail nor print: lengths, scalar operations that
   cannot stop with an error, and the `run`s in 'droppable' (a set of
   LcuStmt: runs the caller knows to be pure and unable to fail).  With
   'keep_totals', a segdes's total (`#elements sd`) stays: on a GPU it is
   read with the other totals its block reads (codegen/host.c), where a
   kernel that reads it later would wait for it alone.
   Keeps: everything else, in order; kernels (see lcu_prune_kernels). */
void lcu_drop_dead(LcuProgram *p, const PtrMap *droppable, bool keep_totals);

/* Unused kernels.
   Requires: nothing.  Leaves out of p->kernels the kernels no `run`
   runs, and renames those left K1, K2, ... in order.  Keeps: the
   statements. */
void lcu_prune_kernels(LcuProgram *p);

/* Unused kernel parameters.
   Requires: a checked program.  Removes from every kernel the parameters
   it never reads (no thunk, size, segdes, `into`, library argument or
   result names them: a MAP's size that a later pass made a SEG_MAP over
   a sd, say), and the matching argument from every run of it, so that
   what computed the argument may be dead (lcu_drop_dead).  Keeps: what
   the program computes. */
void lcu_drop_unused_params(LcuProgram *p);
/* Each SCAN or REDUCE with map columns (LcuSoac.maps) as a MAP of its
   columns, of its size, just before it without them: the CUDA target's
   form, whose code runs such a MAP in the scan's launch (codegen/cuda.c,
   riders).  Requires a checked program; keeps its meaning.  Kernels
   change in place, so the runs keep theirs. */
void lcu_scan_maps_apart(LcuProgram *p);

/* ---- rewrite.c: the toolkit of rewrites (fusion) ----
   Nothing here changes its arguments: kernels are shared by their runs,
   so a rewrite copies what it changes.  Every binder a copy or a
   substitution makes is a new variable. */

/* A new variable of v's type and shape, named after v's hint. */
LcuVar *lcu_copy_var(LcuProgram *p, const LcuVar *v);
/* Every read of a variable in atoms 'atoms' (LcuAtom *), and in the
   statements' arguments and results of block 'b' and its nested
   blocks, renamed by 'renaming' (LcuVar -> LcuVar); the atoms are
   replaced, not changed (they may be shared). */
void lcu_rename_atoms(Vec *atoms, const PtrMap *renaming);
void lcu_rename_block(LcuBlock *b, const PtrMap *renaming);
/* A copy of 'e' whose LE_LET binders are new variables; the variables
   it reads are renamed by 'renaming' (LcuVar -> LcuVar, may be NULL),
   to which the new binders are added. */
LcuExp *lcu_copy_exp(LcuProgram *p, const LcuExp *e, PtrMap *renaming);
/* A copy of thunk 't' with new parameters and let binders; its `using`
   variables renamed by 'renaming' (may be NULL). */
LcuThunk *lcu_copy_thunk(LcuProgram *p, const LcuThunk *t, PtrMap *renaming);
/* The lets of 't' that its results from..to-1 need: needed[l] where
   let l is read by one of them or by a needed let, or where 'keep' (if
   not NULL) says so of it (a let that must run for its checks), in one
   walk from the last let up. */
void lcu_thunk_needed_lets(const LcuThunk *t, int from, int to, bool (*keep)(const LcuLet *, void *), void *ctx,
                           bool *needed);
/* Thunk 't' giving only its values from..to-1, with only the lets those
   need: a new thunk sharing t's parameters, lets and expressions. */
LcuThunk *lcu_thunk_values(const LcuThunk *t, int from, int to);
/* A copy of kernel 'k' with new variables for all it binds (parameters,
   SOAC results, thunk binders); named as 'k' until lcu_add_kernel. */
LcuKernel *lcu_copy_kernel(LcuProgram *p, const LcuKernel *k);

/* e with every read of variable 'x' (LE_VAR x) replaced by a copy of
   'by', and new let binders: [by/x]e. */
LcuExp *lcu_subst_var(LcuProgram *p, const LcuExp *e, const LcuVar *x, const LcuExp *by);
/* e with every subscript vec[index] (at exactly the variable 'index')
   replaced by a copy of 'by': the paper's [A[i]/a]e (Figure 5) with
   'by' the variable a.  Other reads of 'vec' stay. */
LcuExp *lcu_subst_index(LcuProgram *p, const LcuExp *e, const LcuVar *vec, const LcuVar *index, const LcuExp *by);
/* True if 'e' reads variable 'v' (as x, x[e] or #x). */
bool lcu_exp_reads(const LcuExp *e, const LcuVar *v);
/* Is a variable of atoms 'atoms' (LcuAtom *) one of the results of
   statement 's'? */
bool lcu_atoms_read_results(const Vec *atoms, const struct LcuStmt *s);
/* True if 'e' reads vec[i] at exactly the variable 'i' (i may be NULL). */
bool lcu_exp_reads_at(const LcuExp *e, const LcuVar *vec, const LcuVar *i);

/* Is 'v' one of 'vars' (LcuVar *)? */
bool lcu_listed(const Vec *vars, const LcuVar *v);
/* The variables thunk 't' reads and does not bind (its parameters, its
   lets), in order of first appearance: what its `using` must list. */
Vec lcu_free_vars(const LcuThunk *t);
/* Sets t's `using` to its free variables. */
void lcu_fill_using(LcuThunk *t);

/* MAP-MAP, MAP-REDUCE, MAP-PERMUTE, ... of the paper's Figure 5 (and
   MAP into any SOAC's pull thunk): the consumer's thunk 'consumer' with
   the results A_1..A_k of MAP 'producer' computed in it instead of
   read.  Each result expression of 'consumer' that reads A_j[i] at its
   index parameter i (its first parameter, an int) becomes
     let a_j = e_j[i] in [A_j[i]/a_j]e
   (e_j: the producer's j-th pull value at i), so that the producer's
   work is done once per expression; a read A_j[e'] at another index
   becomes e_j[e'], and #A_j the producer's size.  `using` is
   recomputed: the producer's variables and the consumer's, without the
   A_j.  Requires: 'producer' is a MAP; the caller puts both SOACs'
   variables in one kernel (the producer's size is where the consumer's
   index space must equal it: the caller checks).

   Where that would compute a value more than once (A_j[i] read by
   several expressions of the consumer, its lets included), or either
   thunk has lets, the values are shared instead (lcu_compose_shares):
   the result binds the producer's lets, then `let a_j = e_j[i]` for each
   A_j the consumer reads at i, then the consumer's lets, and its results
   read the a_j.  Every value the consumer reads is then computed first.

   'in_place' (where the values are not shared): a value read where
   every element evaluates the read goes in place of the read instead of
   under a let before the expression, so that its checks run where the
   read stood (fusion's order of checks, docs/fusion.md); a read in a
   branch of an `if` stays let-bound. */
LcuThunk *lcu_compose_pull(LcuProgram *p, const LcuSoac *producer, const LcuThunk *consumer, bool in_place);
/* The same for a consumer that reads the producer's results anywhere (a
   gather): each read A_j[e] at an index other than the consumer's own
   becomes `let x = bound(e, n) in e_j[x]`, n the producer's size, so
   that the read's check stays where it was, in its words; so does a
   read at the consumer's own index unless 'own_in_range'.  The
   producer's values at the consumer's index are shared as in
   lcu_compose_pull; the others are computed where they are read. */
LcuThunk *lcu_compose_gather(LcuProgram *p, const LcuSoac *producer, const LcuThunk *consumer, bool own_in_range);
/* MAP into MAP, once for all: the pull thunk of one MAP that does the
   work of MAP 'producer' and then of MAP 'consumer' (over the producer's
   space, reading its results at most at its own index): the producer's
   lets and a let per value, then the consumer's lets; its results are
   the producer's values where 'keep' (one flag per producer result),
   then the consumer's.  Requires what lcu_compose_pull does. */
LcuThunk *lcu_merge_maps(LcuProgram *p, const LcuSoac *producer, const LcuSoac *consumer, const bool *keep);
/* Whether lcu_compose_pull(producer, consumer) shares the producer's
   values in lets. */
bool lcu_compose_shares(const LcuSoac *producer, const LcuThunk *consumer);

/* A CPU-level block as common/liveness.c sees it; with 'memo' (LcuBlock
   -> LiveBlock *, or NULL for none), each block is described once for a
   caller that asks for a block's nested blocks after it. */
LiveBlock *lcu_live_block(const LcuBlock *b, PtrMap *memo);
/* Last uses in 'b' (live_last_reads): for each statement of 'b', the
   variables of 'params' and of b's statements' results that die after
   it.  The interpreter frees values by it; code generation does too
   ('memo': lcu_live_block's). */
Vec *lcu_last_uses(const LcuBlock *b, const Vec *params, PtrMap *memo);

/* Def-use chains of one CPU-level block. */
typedef struct LcuDefUse {
  PtrMap def;      /* LcuVar -> the LcuStmt of the block that binds it
                      (absent: a parameter, a global, an outer variable) */
  PtrMap uses;     /* LcuVar -> Vec * of the statements of the block that
                      read it, in order, once each (a read in a nested
                      block counts as its statement's) */
  PtrMap live_out; /* LcuVar -> non-NULL: read by the block's results */
} LcuDefUse;
void lcu_fill_def_use(const LcuBlock *b, LcuDefUse *du);

/* ---- lcu_print.c ---- */

/* Kernels first, then the CPU functions and top-level statements, in the
   paper's concrete syntax. */
void lcu_print_program(FILE *out, const LcuProgram *p);
/* ` : TYPE` after a top-level statement's NESL text: its function's type
   scheme, its value's type (as the dump prints them). */
char *lcu_statement_types(const FlatTop *ft);

/* ---- lcu_read.c ---- */

/* The program text 'src' holds, in the syntax lcu_print_program writes
   (print(read(print(p))) == print(p)).  Its NESL statements and types
   are parsed and type checked through 'nesl' (flatten_nesl_reader: the
   front end's side, which λcu does not see); with 'nesl' NULL, as for
   kernels alone, NESL text is an error.  NULL after a
   `file:line:col: error:` (diag) on malformed input.  The result is not
   checked: lcu_check does that. */
LcuProgram *lcu_read(const Source *src, const FlatNeslReader *nesl);

/* ---- lcu_check.c ---- */

/* The typing rules of the paper's Figures 3 and 4 and the `using`
   discipline: a thunk reads only its parameters and the variables it
   lists.  Reports the first violation (after pass 'after'). */
bool lcu_check(const LcuProgram *p, const char *after);
/* The result base of element-wise operation 'op' (ADD ... COPY) on
   scalars of the bases 'args' (flat_op_nargs(op) of them); false with
   '*why' set if it does not apply to them. */
bool lcu_op_type(FlatOp op, const FlatBase *args, FlatBase *result, const char **why);

/* ---- lcu_interp.c ---- */

typedef struct LcuStats {
  int kernels;        /* kernels defined */
  uint64_t runs;      /* `run`s executed */
  uint64_t elements;  /* elements the SOACs processed (their index spaces) */
  uint64_t bytes;     /* global-memory traffic: the elements the thunks
                         read (a vector read at the SOAC's own index once
                         per SOAC) and the SOACs' results */
} LcuStats;

typedef struct LcuInterp LcuInterp;

/* Runs the program's statements, printing on 'out' (the runtime's output
   from now on) the transcript of the flat interpreter. */
LcuInterp *lcu_interp_new(LcuProgram *p, FILE *out);
/* False when a run-time error stopped the statement. */
bool lcu_interp_run_top(LcuInterp *in, LcuTop *top);
/* With 'on', each statement that ran to its end prints after its line
   `cost: work W, depth D`, as the flat interpreter does, from its LS_COST
   statements (the program must come from flattening for --cost). */
void lcu_interp_set_cost(LcuInterp *in, bool on);
/* With 'on', a statement's value is not printed (its cost line is): the
   REPL's :cost. */
void lcu_interp_set_quiet(LcuInterp *in, bool on);
LcuStats lcu_interp_stats(LcuInterp *in);

#endif
