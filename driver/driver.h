/*
 * driver.h: what the command line (main.c) and the REPL (repl.c) share.
 */
#ifndef NESSIE_DRIVER_H
#define NESSIE_DRIVER_H

#include "../common/common.h"
#include "../frontend/ast.h"
#include "../frontend/typecheck.h"

/* The stages whose program can be printed, in pipeline order. */
typedef enum Stage {
  STAGE_NONE,
  STAGE_AST,   /* the parsed program, printed back as NESL */
  STAGE_TYPED, /* each statement with its type */
  STAGE_MONO,  /* every function specialized at its types */
  STAGE_FLAT,  /* the flat IR: no apply-to-each, flat vectors and segdes */
  STAGE_LCU,   /* λcu: kernels of one SOAC each, and the CPU program */
  STAGE_PDG,   /* fusion's program-dependence graphs, as Graphviz */
  STAGE_ILP,   /* fusion's ILP of each region, in CPLEX LP format */
  STAGE_FUSED, /* λcu after simplification and fusion */
  STAGE_C,     /* the generated C of the CPU target */
} Stage;

/* Looks up a stage by its --dump name; STAGE_NONE if unknown. */
Stage stage_by_name(const char *name);

/* --dump=typed: each statement as NESL, then its type as a comment. */
void print_typed(FILE *out, const Program *prog);

/* Runs 'fn(arg)' on a thread with a 1 GiB stack: the evaluator recurses
   as deeply as the NESL program does. */
void run_on_big_stack(void *(*fn)(void *), void *arg);

/* The REPL (repl.c): reads statements from standard input, with line
   editing and history when it is a terminal; 'file' (may be NULL) is
   loaded first.  Returns the exit status. */
int repl_run(const char *file, bool stats);

#endif
