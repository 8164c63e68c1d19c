/*
 * driver.h: what the command line (main.c) and the REPL (repl.c) share:
 * the pipeline as one table (pipeline.c), its interpreters, and the big
 * stack the evaluator runs on.
 */
#ifndef NESSIE_DRIVER_H
#define NESSIE_DRIVER_H

#include "../common/common.h"
#include "../eval/eval.h"
#include "../flatten/flatten.h"
#include "../flat/flat.h"
#include "../frontend/ast.h"
#include "../frontend/typecheck.h"
#include "../fusion/fusion.h"
#include "../lcu/lcu.h"
#include "../lower/lower.h"
#include "../rt/rt.h"
#include "../codegen/codegen.h"

/* ---- pipeline.c ---- */

/* What the pipeline has made from one input so far.  main.c makes one for
   the file; the REPL one per input or command, checked in its own
   environment. */
typedef struct StageInfo StageInfo;

typedef struct Pipeline {
  Source *src;       /* the input */
  TypeEnv *env;      /* where it is checked: a fresh one, or the REPL's */
  Program *prog;     /* "ast": the parsed statements (the REPL may give
                        them, parsed and checked, and start later) */
  MonoProgram *mono; /* "mono" */
  FlatProgram *flat; /* "flat" */
  LcuProgram *lcu;   /* "lcu" */
  bool no_fusion;    /* -O0: "fused" is "lcu" as lowering made it */
  EvalCostMode cost; /* the cost lines (--cost, :set cost): flattening
                        makes the cost statements, the interpreters
                        print them */
  bool quiet;        /* the REPL's :cost: a statement's value is not
                        printed, its cost line is (flat and lcu) */
  LcuProgram *fused; /* "fused": lcu simplified and fused (the same
                        program, changed in place), or lcu at -O0 */
  FusStats fusion;   /* what fusion did, region by region (--stats) */
  const char *pdg;   /* "pdg": fusion's graphs (Graphviz), as text */
  const char *ilp;   /* "ilp": its models (CPLEX LP format), as text */
  const StageInfo *asked; /* the stage pipeline_run_to was last asked for:
                        fusion keeps its graphs and models as text only
                        when it is "pdg" or "ilp" */
  bool check_ir;     /* run each IR's checker after the pass making it */
  int done;          /* how many stages of the table have run */
  const MonoExternals *externals; /* the REPL's values (NULL for a file) */
} Pipeline;

/* One stage of the pipeline: a row of the table, in pipeline order.
   Adding a stage (fused, pdg, c, cuda) is adding a row: `--dump=NAME`,
   the REPL's `:NAME EXPR`, both help texts and the order all come from
   it. */
typedef struct StageInfo {
  const char *name; /* --dump=NAME, and the REPL command :NAME */
  const char *help; /* what the dump shows, for --help and :help; may
                       hold '\n' (continuation lines are indented) */
  /* Makes this stage's program from the previous stage's in 'pl';
     false when it reported errors. */
  bool (*run)(Pipeline *pl);
  /* --check-ir: the stage's IR checker (NULL: none); false when an
     invariant is broken (reported). */
  bool (*check)(Pipeline *pl);
  /* Prints this stage's program. */
  void (*dump)(FILE *out, const Pipeline *pl);
} StageInfo;

extern const StageInfo pipeline_stages[];
extern const int pipeline_stage_count;

/* The stage called 'name', or NULL; and its index in the table. */
const StageInfo *pipeline_stage(const char *name);
int pipeline_stage_index(const StageInfo *stage);
/* "ast, typed, mono, flat or lcu": for messages. */
const char *pipeline_stage_names(void);

/* Runs the stages after those done, up to and including 'stage'.  False
   when one reported errors (or --check-ir found a broken invariant). */
bool pipeline_run_to(Pipeline *pl, const StageInfo *stage);

/* An interpreter: runs the program of one stage and prints NESL's REPL
   transcript. */
typedef struct EngineInfo {
  const char *name;       /* --interp=NAME, :set interp NAME */
  const char *stage;      /* the stage whose program it runs */
  const char *help;       /* for --help and :help */
  const char *stats_help; /* what --stats counts */
  /* Runs the statements of pl->prog (and the library's bindings the
     program needs), printing the transcript on 'out'.  'ev' is the
     REPL's evaluator, or NULL for a fresh one; only the evaluator uses
     it (the REPL's store of values, which the other engines reach
     through MonoExternals).  With 'stats', appends one line of counts
     for this run.  A statement that stops with a run-time error is
     counted by diag_runtime_errors(). */
  void (*run)(Pipeline *pl, Eval *ev, FILE *out, Buf *stats);
} EngineInfo;

extern const EngineInfo pipeline_engines[];
extern const int pipeline_engine_count;
const EngineInfo *pipeline_engine(const char *name);
const char *pipeline_engine_names(void); /* "eval, flat or lcu" */

/* Writes 'text' with each line after the first indented by 'indent'
   spaces (help texts). */
void print_indented(FILE *out, const char *text, int indent);

/* --dump=typed: each statement as NESL, then its type as a comment. */
void print_typed(FILE *out, const Program *prog);

/* ---- store.c ---- */

/* Makes the runtime's __global_value and __keep_value read and write the
   REPL's values, which live in 'ev' (checked in 'env'); returns the store
   it replaces, to put back with rt_set_store. */
const struct RtStore *store_install(Eval *ev, TypeEnv *env);

/* ---- main.c ---- */

/* Runs 'fn(arg)' on a thread with a 1 GiB stack: the evaluator recurses
   as deeply as the NESL program does. */
void run_on_big_stack(void *(*fn)(void *), void *arg);

/* ---- version.c ---- */

/* nessie's version number ("0.1.0"), the Makefile's VERSION. */
extern const char nessie_version[];
/* --version: the version and the commit built from, the C compiler and
   the CUDA toolkit a build would use, and where the runtime is. */
void print_version(FILE *out);

/* ---- repl.c ---- */

/* The REPL: reads statements from standard input, with line editing and
   history when it is a terminal; 'file' (may be NULL) is loaded first.
   Returns the exit status. */
int repl_run(const char *file, bool stats, bool check_ir, bool no_fusion);

/* ---- export.c: `nessie --library` ---- */

typedef struct LibraryBuild {
  const char *file;   /* FILE.nesl */
  const char *output; /* -o: [DIR/]NAME, or NULL for the file's base name */
  CgTargetKind target;
  const char *arch;
  bool keep, verbose, no_cache, check_ir, no_fusion;
} LibraryBuild;
/* Writes DIR/libNAME.so, DIR/NAME.h and DIR/NAME.py (docs/library.md);
   returns the exit status. */
int driver_library(const LibraryBuild *lb);

#endif
