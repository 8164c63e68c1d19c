/*
 * pipeline.c: nessie's pipeline as one table, and its interpreters as a
 * second.
 *
 * Each stage is a row: its name (`--dump=NAME`, the REPL's `:NAME EXPR`),
 * what its dump shows (the help text of both), the pass that makes its
 * program from the previous row's, its IR checker (`--check-ir`) and its
 * printer.  main.c and repl.c read nothing else, so the order of the rows
 * is the order of the passes, of `--help` and of `:help`, and adding a
 * stage is adding a row.  An interpreter names the
 * stage whose program it runs.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../frontend/frontend.h"
#include "driver.h"

/* ---- the stages ---- */

/* A statement that reads `it` reads the value of the last expression
   statement before it (CMU NESL's REPL, which loads a file statement by
   statement, binds it after each), so then each expression statement
   binds it. */
static bool run_parse(Pipeline *pl) {
  pl->prog = parse_program(pl->src, false);
  if (diag_count() == 0 && ast_program_reads_it(pl->prog))
    for (int i = 0; i < pl->prog->tops.len; i++)
      ast_bind_it(pl->prog->tops.data[i]);
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
  pl->flat = flatten_program(pl->mono, pl->cost != EV_COST_OFF);
  if (pl->cost == EV_COST_OFF)
    flat_share_values(pl->flat);
  flat_fill_shapes(pl->flat);
  return true;
}

static bool check_flat(Pipeline *pl) { return flat_check(pl->flat, "flatten"); }
static void dump_flat(FILE *out, const Pipeline *pl) { flat_print_program(out, pl->flat); }

static bool run_lower(Pipeline *pl) {
  pl->lcu = lower_program(pl->flat);
  return true;
}

static bool check_lcu(Pipeline *pl) { return lcu_check(pl->lcu, "lower"); }
static void dump_lcu(FILE *out, const Pipeline *pl) { lcu_print_program(out, pl->lcu); }

/* GLPK's limit per region: a guard, far above what the corpus needs
   (docs/fusion.md; schedule.c also limits the search itself). */
#define FUSION_TIME_LIMIT_MS 2000

/* What open_memstream(&*'text', &*'size') wrote to 'f', as a collected
   string.  The buffer and its size are read after fclose, which is what
   brings them up to date. */
static const char *memstream_text(FILE *f, char **text, size_t *size) {
  fclose(f);
  const char *s = xstrndup(*text ? *text : "", *text ? *size : 0);
  free(*text);
  return s;
}

/* The passes after fusion, in order (docs/fusion.md), then the kernel
   parameters they left unread (a MAP's size, once it is a SEG_MAP over
   a sd) and the lengths and scalar operations that only those or the
   runs they removed read; but a segdes's total, which the kernel that
   takes the sd reads anyway: read on the host, it comes back with the
   others of its block in one wait (codegen/host.c, totals_together). */
static void after_fusion(LcuProgram *p) {
  fus_segment_maps(p);
  fus_delay_runs(p);
  fus_segment_fields(p);
  fus_scalars_on_device(p);
  fus_join_partitions(p);
  lcu_drop_unused_params(p);
  PtrMap no_runs = {0};
  lcu_drop_dead(p, &no_runs, true);
}

/* "pdg": the CPU level simplified, then every region fused (-O1); the
   graphs and the models fusion makes on the way are kept as text for
   the "pdg" and "ilp" dumps.  At -O0 nothing changes. */
static bool run_fuse(Pipeline *pl) {
  pl->fused = pl->lcu;
  if (pl->no_fusion) {
    pl->pdg = "// fusion is off (-O0): no program-dependence graphs\n";
    pl->ilp = "\\ fusion is off (-O0): no models\n";
    return true;
  }
  fus_simplify(pl->fused);
  fus_copy_into_guards(pl->fused);
  if (pl->check_ir && !lcu_check(pl->fused, "simplify"))
    return false;
  /* the text costs time (GLPK writes each model to a file): only for
     the dumps that show it */
  bool keep = pl->asked && (strcmp(pl->asked->name, "pdg") == 0 || strcmp(pl->asked->name, "ilp") == 0);
  if (!keep) {
    FusOptions fo = {{FUSION_TIME_LIMIT_MS, NULL, false}, NULL, pl->check_ir};
    pl->pdg = "// the graphs are kept only for --dump=pdg\n";
    pl->ilp = "\\ the models are kept only for --dump=ilp\n";
    if (!fus_fuse(pl->fused, &fo, &pl->fusion))
      return false;
    after_fusion(pl->fused);
    return true;
  }
  char *pdg_text = NULL, *ilp_text = NULL;
  size_t pdg_size = 0, ilp_size = 0;
  FILE *pdg = open_memstream(&pdg_text, &pdg_size);
  FILE *ilp = open_memstream(&ilp_text, &ilp_size);
  if (!pdg || !ilp)
    diag_out_of_memory(0);
  FusOptions fo = {{FUSION_TIME_LIMIT_MS, ilp, false}, pdg, pl->check_ir};
  bool ok = fus_fuse(pl->fused, &fo, &pl->fusion);
  if (ok)
    after_fusion(pl->fused);
  pl->pdg = memstream_text(pdg, &pdg_text, &pdg_size);
  pl->ilp = memstream_text(ilp, &ilp_text, &ilp_size);
  return ok;
}

static void dump_pdg(FILE *out, const Pipeline *pl) { fputs(pl->pdg, out); }
static void dump_ilp(FILE *out, const Pipeline *pl) { fputs(pl->ilp, out); }

/* "ilp" and "fused" show what "pdg" made. */
static bool run_made_by_fuse(Pipeline *pl) {
  (void)pl;
  return true;
}

static bool check_fused(Pipeline *pl) { return lcu_check(pl->fused, "fusion"); }
static void dump_fused(FILE *out, const Pipeline *pl) { lcu_print_program(out, pl->fused); }

/* The generated code is made by its dump: compiling to an executable
   writes it through cg_build, which needs no stage after "fused". */
static bool run_codegen(Pipeline *pl) {
  (void)pl;
  return true;
}

static void dump_c(FILE *out, const Pipeline *pl) { cg_program(out, pl->fused, &cg_cpu_target, pl->src->name); }
static void dump_cuda(FILE *out, const Pipeline *pl) { cg_program(out, pl->fused, &cg_cuda_target, pl->src->name); }

/* The pipeline, in order (DESIGN.md, "Stages and IRs"; docs/design.md
   draws it), each group of rows one folder, as the tree reads. */
const StageInfo pipeline_stages[] = {
    /* frontend/: NESL text to the typed AST */
    {"ast", "the parsed program, printed back as NESL", run_parse, NULL, dump_ast},
    {"typed", "each definition and statement with its type", run_check, NULL, dump_typed},
    /* flatten/: the typed AST to the flat IR (flat/) */
    {"mono", "every function specialized at the types it is used at,\ndatatypes as tuples", run_mono, check_mono,
     dump_mono},
    {"flat", "the flat IR: flat vectors, segment descriptors,\nno apply-to-each left", run_flatten, check_flat,
     dump_flat},
    /* lower/: the flat IR to λcu (lcu/) */
    {"lcu", "λcu: kernels of one SOAC each (MAP, REDUCE, ...)\nand the CPU program that runs them", run_lower,
     check_lcu, dump_lcu},
    /* fusion/: λcu to fused λcu */
    {"pdg", "fusion's program-dependence graphs, one per region\n(Graphviz: `dot -Tpng`); clusters as subgraphs", run_fuse,
     NULL, dump_pdg},
    {"ilp", "fusion's integer linear program of each region\n(CPLEX LP format)", run_made_by_fuse, NULL, dump_ilp},
    {"fused", "λcu after simplification and fusion (-O1, the\ndefault; -O0: as lowered)", run_made_by_fuse,
     check_fused, dump_fused},
    /* codegen/: fused λcu to C or CUDA, linked with rt/ */
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
  pl->asked = stage;
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
  ev_set_cost(ev, pl->cost);
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
  flat_interp_set_cost(in, pl->cost != EV_COST_OFF);
  flat_interp_set_quiet(in, pl->quiet);
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

/* λcu's interpreter on every top-level statement of 'p', printing on
   'out' (with 'cost', each statement's cost line; 'quiet', no value). */
static LcuStats interpret(const LcuProgram *p, FILE *out, bool cost, bool quiet) {
  LcuInterp *in = lcu_interp_new((LcuProgram *)p, out);
  lcu_interp_set_cost(in, cost);
  lcu_interp_set_quiet(in, quiet);
  for (int i = 0; i < p->tops.len; i++)
    lcu_interp_run_top(in, p->tops.data[i]);
  fflush(out);
  return lcu_interp_stats(in);
}

static void lcu_stats_line(Buf *b, const char *what, LcuStats st) {
  buf_printf(b, "stats: %s%d kernels, %llu runs, %llu elements, %llu bytes", what, st.kernels,
             (unsigned long long)st.runs, (unsigned long long)st.elements, (unsigned long long)st.bytes);
}

/* With --stats on a fused program from a file, the program as lowered is
   run first, its output thrown away and its random numbers drawn again
   after, for the counts before fusion (a program reading standard input
   sees it empty the second time); then each region's schedule. */
static void run_lcu(Pipeline *pl, Eval *ev, FILE *out, Buf *stats) {
  bool compare = stats && !ev && !pl->no_fusion && pl->flat;
  LcuStats before = {0};
  if (compare) {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      before = interpret(lower_program(pl->flat), null, false, false);
      fclose(null);
      rt_rand_seed(0);
    } else {
      compare = false;
    }
  }
  /* in the REPL, earlier values come from the evaluator's store */
  const RtStore *old = ev ? store_install(ev, pl->env) : NULL;
  LcuStats st = interpret(pl->fused, out, pl->cost != EV_COST_OFF, pl->quiet);
  if (ev)
    rt_set_store(old);
  if (!stats)
    return;
  lcu_stats_line(stats, "", st);
  if (!compare)
    return;
  buf_puts(stats, "\n");
  lcu_stats_line(stats, "before fusion: ", before);
  double model_before = 0, model_after = 0;
  const FusStats *fusion = &pl->fusion;
  for (int i = 0; i < fusion->regions.len; i++) {
    const FusRegionStats *r = fusion->regions.data[i];
    model_before += r->bytes_before;
    model_after += r->bytes_after;
    buf_printf(stats, "\nstats: fusion: %s: %d runs in %d kernels (%s, %.2f ms), estimated bytes %.0f -> %.0f",
               r->where, r->runs, r->clusters, r->method, r->solve_ms, r->bytes_before, r->bytes_after);
  }
  buf_printf(stats, "\nstats: fusion: %d kernels -> %d, estimated bytes %.0f -> %.0f per run of each region",
             fusion->kernels_before, fusion->kernels_after, model_before, model_after);
}

const EngineInfo pipeline_engines[] = {
    {"eval", "typed", "the source-level evaluator (the default)", "calls, primitive calls", run_eval},
    {"flat", "flat", "the flat IR's interpreter (whole-vector operations)",
     "host calls, vector operations, elements, recursion depth", run_flat},
    {"lcu", "fused", "λcu's interpreter (kernels run by their SOACs),\nafter fusion unless -O0",
     "kernels defined, runs, elements, bytes (and,\nfused, before fusion, and each region's schedule)", run_lcu},
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
