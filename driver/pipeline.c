/*
 * pipeline.c: nessie's pipeline as one table, and its interpreters as a
 * second.
 *
 * Each stage is a row: its name (`--dump=NAME`, the REPL's `:NAME EXPR`),
 * what its dump shows (the help text of both), the pass that makes its
 * program from the previous row's, its IR checker (`--check-ir`) and its
 * printer.  main.c and repl.c read nothing else, so the order of the rows
 * is the order of the passes, of `--help` and of `:help`, and adding a
 * stage (fused, pdg, c, cuda) is adding a row.  An interpreter names the
 * stage whose program it runs.
 */
#include <stddef.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../frontend/frontend.h"
#include "driver.h"

/* ---- the stages ---- */

static bool run_parse(Pipeline *pl) {
  pl->prog = parse_program(pl->src, false);
  return diag_count() == 0;
}

static void dump_ast(FILE *out, const Pipeline *pl) { ast_print_program(out, pl->prog); }

static bool run_check(Pipeline *pl) {
  tc_check_program(pl->env, pl->prog);
  return diag_count() == 0;
}

void print_typed(FILE *out, const Program *prog) {
  for (int i = 0; i < prog->tops.len; i++) {
    const TopLevel *t = prog->tops.data[i];
    ast_print_top(out, t);
    switch (t->kind) {
    case TOP_FUNCTION:
    case TOP_DATATYPE:
      fprintf(out, "\n  %% %s : %s %%\n", t->name, type_scheme_to_string(t->def->type));
      break;
    case TOP_BIND:
    case TOP_EXPR:
      fprintf(out, "\n  %% : %s %%\n", type_value_to_string(t->type));
      break;
    }
  }
}

static void dump_typed(FILE *out, const Pipeline *pl) { print_typed(out, pl->prog); }

static bool run_mono(Pipeline *pl) {
  pl->mono = mono_program_ext(pl->env, pl->prog, pl->externals);
  return true;
}

static bool check_mono(Pipeline *pl) { return mono_check(pl->mono, "mono"); }
static void dump_mono(FILE *out, const Pipeline *pl) { mono_print(out, pl->mono); }

static bool run_flatten(Pipeline *pl) {
  pl->flat = flatten_program(pl->mono);
  flat_fill_shapes(pl->flat);
  return true;
}

static bool check_flat(Pipeline *pl) { return flat_check(pl->flat, "flatten"); }
static void dump_flat(FILE *out, const Pipeline *pl) { flat_print_program(out, pl->flat); }

static bool run_lower(Pipeline *pl) {
  pl->lcu = lcu_lower(pl->flat);
  return true;
}

static bool check_lcu(Pipeline *pl) { return lcu_check(pl->lcu, "lower"); }
static void dump_lcu(FILE *out, const Pipeline *pl) { lcu_print_program(out, pl->lcu); }

/* The generated code is made by its dump: compiling to an executable
   writes it through cg_build, which needs no stage after "lcu". */
static bool run_codegen(Pipeline *pl) {
  (void)pl;
  return true;
}

static void dump_c(FILE *out, const Pipeline *pl) { cg_program(out, pl->lcu, &cg_cpu_target, pl->src->name); }
static void dump_cuda(FILE *out, const Pipeline *pl) { cg_program(out, pl->lcu, &cg_cuda_target, pl->src->name); }

/* The pipeline, in order (DESIGN.md, "Stages and IRs"). */
const StageInfo pipeline_stages[] = {
    {"ast", "the parsed program, printed back as NESL", run_parse, NULL, dump_ast},
    {"typed", "each definition and statement with its type", run_check, NULL, dump_typed},
    {"mono", "every function specialized at the types it is used at,\ndatatypes as tuples", run_mono, check_mono,
     dump_mono},
    {"flat", "the flat IR: flat vectors, segment descriptors,\nno apply-to-each left", run_flatten, check_flat,
     dump_flat},
    {"lcu", "λcu: kernels of one SOAC each (MAP, REDUCE, ...)\nand the CPU program that runs them", run_lower,
     check_lcu, dump_lcu},
    {"c", "the C program of the CPU target (--target=cpu):\nOpenMP loops, one function per kernel", run_codegen,
     NULL, dump_c},
    {"cuda", "the CUDA program of the GPU target (--target=cuda):\nfunctors for the skeletons of rt/gpu.cuh", run_codegen,
     NULL, dump_cuda},
};
const int pipeline_stage_count = sizeof pipeline_stages / sizeof pipeline_stages[0];

const StageInfo *pipeline_stage(const char *name) {
  for (int i = 0; i < pipeline_stage_count; i++)
    if (strcmp(pipeline_stages[i].name, name) == 0)
      return &pipeline_stages[i];
  return NULL;
}

int pipeline_stage_index(const StageInfo *stage) { return (int)(stage - pipeline_stages); }

/* "a, b or c" from the names of 'n' rows of 'size' bytes starting at
   'first' (each row begins with its name). */
_Static_assert(offsetof(StageInfo, name) == 0 && offsetof(EngineInfo, name) == 0, "rows begin with their name");
static const char *name_list(const void *first, size_t size, int n) {
  Buf b = {0};
  for (int i = 0; i < n; i++) {
    if (i > 0)
      buf_puts(&b, i == n - 1 ? " or " : ", ");
    buf_puts(&b, *(const char *const *)((const char *)first + (size_t)i * size));
  }
  return buf_str(&b);
}

const char *pipeline_stage_names(void) {
  return name_list(pipeline_stages, sizeof pipeline_stages[0], pipeline_stage_count);
}

bool pipeline_run_to(Pipeline *pl, const StageInfo *stage) {
  int last = pipeline_stage_index(stage);
  for (; pl->done <= last; pl->done++) {
    const StageInfo *s = &pipeline_stages[pl->done];
    if (!s->run(pl))
      return false;
    if (pl->check_ir && s->check && !s->check(pl))
      return false;
  }
  return true;
}

/* ---- the interpreters ---- */

static void run_eval(Pipeline *pl, Eval *ev, FILE *out, Buf *stats) {
  if (!ev) {
    ev = ev_new(pl->env, out);
    ev_init_library(ev, tc_library_program(pl->env));
  }
  EvalStats before = ev_stats(ev);
  for (int i = 0; i < pl->prog->tops.len; i++)
    ev_run_top(ev, pl->prog->tops.data[i]);
  if (stats) {
    EvalStats after = ev_stats(ev);
    buf_printf(stats, "stats: %llu calls, %llu primitive calls", (unsigned long long)(after.calls - before.calls),
               (unsigned long long)(after.prim_calls - before.prim_calls));
  }
}

static void run_flat(Pipeline *pl, Eval *ev, FILE *out, Buf *stats) {
  /* in the REPL, earlier values come from the evaluator's store */
  const RtStore *old = ev ? store_install(ev, pl->env) : NULL;
  FlatInterp *in = flat_interp_new(pl->flat, out);
  for (int i = 0; i < pl->flat->tops.len; i++)
    flat_interp_run_top(in, pl->flat->tops.data[i]);
  if (ev)
    rt_set_store(old);
  if (stats) {
    FlatStats st = flat_interp_stats(in);
    buf_printf(stats, "stats: %llu host calls, %llu vector operations, %llu elements, recursion depth %d",
               (unsigned long long)st.host_calls, (unsigned long long)st.ops, (unsigned long long)st.elements,
               st.max_depth);
  }
}

static void run_lcu(Pipeline *pl, Eval *ev, FILE *out, Buf *stats) {
  /* in the REPL, earlier values come from the evaluator's store */
  const RtStore *old = ev ? store_install(ev, pl->env) : NULL;
  LcuInterp *in = lcu_interp_new(pl->lcu, out);
  for (int i = 0; i < pl->lcu->tops.len; i++)
    lcu_interp_run_top(in, pl->lcu->tops.data[i]);
  if (ev)
    rt_set_store(old);
  if (stats) {
    LcuStats st = lcu_interp_stats(in);
    buf_printf(stats, "stats: %d kernels, %llu runs, %llu elements", st.kernels, (unsigned long long)st.runs,
               (unsigned long long)st.elements);
  }
}

const EngineInfo pipeline_engines[] = {
    {"eval", "typed", "the source-level evaluator (the default)", "calls, primitive calls", run_eval},
    {"flat", "flat", "the flat IR's interpreter (whole-vector operations)",
     "host calls, vector operations, elements, recursion depth", run_flat},
    {"lcu", "lcu", "λcu's interpreter (kernels run by their SOACs)", "kernels defined, runs, elements processed",
     run_lcu},
};
const int pipeline_engine_count = sizeof pipeline_engines / sizeof pipeline_engines[0];

const EngineInfo *pipeline_engine(const char *name) {
  for (int i = 0; i < pipeline_engine_count; i++)
    if (strcmp(pipeline_engines[i].name, name) == 0)
      return &pipeline_engines[i];
  return NULL;
}

const char *pipeline_engine_names(void) {
  return name_list(pipeline_engines, sizeof pipeline_engines[0], pipeline_engine_count);
}

void print_indented(FILE *out, const char *text, int indent) {
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n')
      fprintf(out, "%*s", indent, "");
  }
}
