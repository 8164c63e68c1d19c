/*
 * main.c: the `nessie` command line.
 *
 * The pipeline is one function, compile(), that reads like the list of
 * stages in DESIGN.md; `--dump=STAGE` prints the program after a stage and
 * stops there.  Exit status: 0 on success, 1 on compile errors, 2 on bad
 * usage.
 */
#define GC_THREADS /* the evaluator runs on a thread with a large stack */
#include <gc.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "frontend/frontend.h"
#include "frontend/typecheck.h"
#include "eval/eval.h"
#include "driver/driver.h"
#include "codegen/codegen.h"
#include "flatten/flatten.h"
#include "lcu/lcu.h"
#include "fusion/fusion.h"

#define NESSIE_VERSION "0.1.0"

/* GLPK's limit per region: a guard, far above what the corpus needs
   (docs/fusion.md; schedule.c also limits the search itself). */
#define FUSION_TIME_LIMIT_MS 2000

enum { EXIT_OK = 0, EXIT_COMPILE_ERROR = 1, EXIT_USAGE = 2 };

static const struct {
  const char *name;
  Stage stage;
} stages[] = {
    {"ast", STAGE_AST},
    {"typed", STAGE_TYPED},
    {"mono", STAGE_MONO},
    {"flat", STAGE_FLAT},
    {"lcu", STAGE_LCU},
    {"pdg", STAGE_PDG},
    {"ilp", STAGE_ILP},
    {"fused", STAGE_FUSED},
    {"c", STAGE_C},
};

Stage stage_by_name(const char *name) {
  for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++)
    if (strcmp(name, stages[i].name) == 0)
      return stages[i].stage;
  return STAGE_NONE;
}

/* The interpreters, by the IR they run. */
typedef enum Interp {
  INTERP_NONE,
  INTERP_EVAL, /* the source-level evaluator */
  INTERP_FLAT, /* the flat IR's interpreter */
  INTERP_LCU,  /* λcu's interpreter */
} Interp;

typedef struct Options {
  const char *file;
  Stage dump;
  Interp interp;
  bool stats;     /* --stats: counts after the run */
  bool types;     /* --types: the REPL's `name = fn : type` lines */
  bool check_ir;  /* --check-ir: run every IR checker between passes */
  int opt_level;  /* -O0: no simplification and no fusion; -O1 (default) */
  bool repl;      /* no file, or -i FILE */
  /* compiling to an executable */
  const char *output; /* -o */
  CgTargetKind target;
  bool target_set;
  const char *arch;   /* --arch=sm_XX */
  bool keep;          /* --keep */
  bool verbose;       /* -v */
} Options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: nessie [options] FILE.nesl   compile FILE.nesl to an executable\n"
          "       nessie [-i FILE.nesl]         the REPL\n"
          "       nessie [--check-ir] --dump=lcu | --interp=lcu FILE.lcu\n"
          "                                     λcu in the form --dump=lcu prints\n"
          "\n"
          "nessie compiles NESL, the nested data-parallel language, to CUDA.\n"
          "\n"
          "compiling (the default):\n"
          "  -o OUT           the executable's name (default: FILE without .nesl)\n"
          "  --target=T       cpu (C with OpenMP) or cuda (default: cuda where\n"
          "                   nvcc is found, else cpu)\n"
          "  --arch=sm_XX     the GPU architecture, for cuda\n"
          "  --keep           keep the generated source beside the executable\n"
          "  -v               print each command nessie runs\n"
          "\n"
          "other modes:\n"
          "  -i FILE          load FILE into the REPL, then read statements\n"
          "  --types          print the type of each function and datatype, as the\n"
          "                   NESL REPL does (`sqr = fn : a -> a :: (a in number)`)\n"
          "  --dump=STAGE     print the program after STAGE and stop; STAGE is one of:\n"
          "                     ast    the parsed program, printed back as NESL\n"
          "                     typed  each definition and statement with its type\n"
          "                     mono   every function specialized at the types it is\n"
          "                            used at, datatypes as tuples\n"
          "                     flat   the flat IR: flat vectors, segment descriptors,\n"
          "                            no apply-to-each left\n"
          "                     lcu    λcu: kernels of one SOAC each (MAP, REDUCE, ...)\n"
          "                            and the CPU program that runs them\n"
          "                     c      the C the CPU target generates\n"
          "  --interp[=IR]    run the program in an interpreter and print the NESL\n"
          "                   REPL's transcript; IR is eval (the default), the\n"
          "                   source-level evaluator, flat, the flat IR's\n"
          "                   interpreter (whole-vector operations), or lcu,\n"
          "                   λcu's interpreter (kernels run by their SOACs)\n"
          "  --stats          after --interp, print counts to stderr (calls; for\n"
          "                   flat: host calls, vector operations, elements; for\n"
          "                   lcu: kernels defined, runs, elements processed)\n"
          "  --check-ir       check every intermediate representation between passes\n"
          "  --help           print this help and exit\n"
          "  --version        print the version and exit\n"
          "\n"
          "Exit status: 0 on success, 1 on compile errors, 2 on bad usage.  An\n"
          "executable exits with 1 when a statement stopped with a run-time error.\n");
}

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "nessie: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'nessie --help' for usage)\n");
  return EXIT_USAGE;
}

/* Parses argv into 'opt'; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, Options *opt) {
  enum { OPT_TYPES = 256, OPT_DUMP, OPT_CHECK_IR, OPT_HELP, OPT_VERSION, OPT_INTERP, OPT_STATS, OPT_TARGET,
         OPT_ARCH, OPT_KEEP };
  static const struct option longopts[] = {
      {"target", required_argument, NULL, OPT_TARGET},
      {"arch", required_argument, NULL, OPT_ARCH},
      {"keep", no_argument, NULL, OPT_KEEP},
      {"interp", optional_argument, NULL, OPT_INTERP},
      {"stats", no_argument, NULL, OPT_STATS},
      {"types", no_argument, NULL, OPT_TYPES},
      {"dump", required_argument, NULL, OPT_DUMP},
      {"check-ir", no_argument, NULL, OPT_CHECK_IR},
      {"help", no_argument, NULL, OPT_HELP},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0},
  };
  opterr = 0;
  optind = 1;
  int c;
  opt->opt_level = 1;
  while ((c = getopt_long(argc, argv, "hi:o:vO:", longopts, NULL)) != -1) {
    switch (c) {
    case 'O':
      if (strcmp(optarg, "0") != 0 && strcmp(optarg, "1") != 0)
        return bad_usage("unknown optimization level '-O%s' (expected -O0 or -O1)", optarg);
      opt->opt_level = optarg[0] - '0';
      break;
    case 'o':
      opt->output = optarg;
      break;
    case 'v':
      opt->verbose = true;
      break;
    case OPT_TARGET:
      if (strcmp(optarg, "cpu") == 0)
        opt->target = CG_CPU;
      else if (strcmp(optarg, "cuda") == 0)
        opt->target = CG_CUDA;
      else
        return bad_usage("unknown target '%s' for --target (expected cpu or cuda)", optarg);
      opt->target_set = true;
      break;
    case OPT_ARCH:
      opt->arch = optarg;
      break;
    case OPT_KEEP:
      opt->keep = true;
      break;
    case OPT_TYPES:
      opt->types = true;
      break;
    case OPT_DUMP:
      opt->dump = stage_by_name(optarg);
      if (opt->dump == STAGE_NONE)
        return bad_usage("unknown stage '%s' for --dump (expected ast, typed, mono, flat, lcu, pdg, ilp, fused or c)",
                         optarg);
      break;
    case 'i':
      opt->repl = true;
      opt->file = optarg;
      break;
    case OPT_CHECK_IR:
      opt->check_ir = true;
      break;
    case OPT_INTERP:
      if (!optarg || strcmp(optarg, "eval") == 0)
        opt->interp = INTERP_EVAL;
      else if (strcmp(optarg, "flat") == 0)
        opt->interp = INTERP_FLAT;
      else if (strcmp(optarg, "lcu") == 0)
        opt->interp = INTERP_LCU;
      else
        return bad_usage("unknown interpreter '%s' for --interp (expected eval, flat or lcu)", optarg);
      break;
    case OPT_STATS:
      opt->stats = true;
      break;
    case 'h':
    case OPT_HELP:
      usage(stdout);
      return EXIT_OK;
    case OPT_VERSION:
      printf("nessie %s\n", NESSIE_VERSION);
      return EXIT_OK;
    case ':':
      return bad_usage("option '%s' needs an argument", argv[optind - 1]);
    default:
      return bad_usage("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (opt->repl) {
    if (optind < argc)
      return bad_usage("-i takes one file; '%s' is one too many", argv[optind]);
    return -1;
  }
  if (optind == argc) {
    opt->repl = true; /* no file: the REPL */
    return -1;
  }
  if (optind + 1 < argc)
    return bad_usage("more than one input file ('%s' ...)", argv[optind + 1]);
  opt->file = argv[optind];
  return -1;
}

/* --types: `name = fn : type` for each function and datatype, in order. */
static void print_types(const Program *prog) {
  for (int i = 0; i < prog->tops.len; i++) {
    const TopLevel *t = prog->tops.data[i];
    if ((t->kind == TOP_FUNCTION || t->kind == TOP_DATATYPE) && t->def)
      printf("%s\n", tc_def_signature_line(t->def));
  }
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

/* Runs every statement of 'prog' through the evaluator, printing the
   transcript.  compile() runs on the big stack: the evaluator recurses as
   deeply as the NESL program does. */
typedef struct EvalJob {
  TypeEnv *env;
  Program *prog;
  bool stats;
} EvalJob;

static void *run_eval(void *arg) {
  EvalJob *job = arg;
  Eval *ev = ev_new(job->env, stdout);
  ev_init_library(ev, tc_library_program(job->env));
  for (int i = 0; i < job->prog->tops.len; i++)
    ev_run_top(ev, job->prog->tops.data[i]);
  fflush(stdout);
  if (job->stats) {
    EvalStats st = ev_stats(ev);
    fprintf(stderr, "stats: %llu calls, %llu primitive calls\n", (unsigned long long)st.calls,
            (unsigned long long)st.prim_calls);
  }
  return NULL;
}

/* 1 GiB of address space; only the pages the recursion touches are used.
   NESL programs may recurse 100000 deep (tests/errors/rt_deep_recursion_ok). */
enum { BIG_STACK = 1 << 30 };

typedef struct BigStackJob {
  void *(*fn)(void *);
  void *arg;
} BigStackJob;

/* Records where the thread's stack begins, for the evaluator's check
   that recursion leaves room (ev_stack_room). */
static void *big_stack_start(void *arg) {
  BigStackJob *job = arg;
  char base = 0;
  ev_set_stack(&base, BIG_STACK);
  return job->fn(job->arg);
}

void run_on_big_stack(void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_t thread;
  BigStackJob job = {fn, arg};
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, BIG_STACK) != 0 || pthread_create(&thread, &attr, big_stack_start, &job) != 0) {
    pthread_attr_destroy(&attr);
    char base = 0;
    ev_set_stack(&base, 8 << 20); /* no thread: the ordinary stack */
    fn(arg);
    return;
  }
  pthread_attr_destroy(&attr);
  pthread_join(thread, NULL);
}

/* The executable's default name: the file's, without its directory and
   its .nesl ("prog.nesl" -> "prog"; a name without .nesl gets ".out"). */
static const char *default_output(const char *file) {
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".nesl") == 0)
    return xstrndup(base, n - 5);
  return xprintf("%s.out", base);
}

/* λcu's interpreter on every top-level statement of 'lcu', printing on
   'out'. */
static LcuStats interpret(LcuProgram *lcu, FILE *out) {
  LcuInterp *in = lcu_interp_new(lcu, out);
  for (int i = 0; i < lcu->tops.len; i++)
    lcu_interp_run_top(in, lcu->tops.data[i]);
  fflush(out);
  return lcu_interp_stats(in);
}

static void print_lcu_stats(const char *what, LcuStats st) {
  fprintf(stderr, "stats: %s%d kernels, %llu runs, %llu elements, %llu bytes\n", what, st.kernels,
          (unsigned long long)st.runs, (unsigned long long)st.elements, (unsigned long long)st.bytes);
}

/* --interp=lcu: λcu's interpreter on every top-level statement.  With
   --stats after fusion, 'unfused' (the flat program) is lowered again and
   run first, its output thrown away and its random numbers drawn again
   after, for the counts before fusion (so that a program reading
   standard input sees it empty the second time). */
static int run_lcu(const Options *opt, LcuProgram *lcu, FlatProgram *unfused, const FusStats *fusion) {
  LcuStats before = {0};
  if (unfused) {
    FILE *null = fopen("/dev/null", "w");
    if (null) {
      before = interpret(lcu_lower(unfused), null);
      fclose(null);
      rt_rand_seed(0);
    }
  }
  LcuStats st = interpret(lcu, stdout);
  if (!opt->stats)
    return EXIT_OK;
  print_lcu_stats("", st);
  if (!unfused)
    return EXIT_OK;
  print_lcu_stats("before fusion: ", before);
  double model_before = 0, model_after = 0;
  for (int i = 0; i < fusion->regions.len; i++) {
    const FusRegionStats *r = fusion->regions.data[i];
    model_before += r->bytes_before;
    model_after += r->bytes_after;
    fprintf(stderr, "stats: fusion: %s: %d runs in %d kernels (%s, %.2f ms), estimated bytes %.0f -> %.0f\n", r->where,
            r->runs, r->clusters, r->method, r->solve_ms, r->bytes_before, r->bytes_after);
  }
  fprintf(stderr, "stats: fusion: %d kernels -> %d, estimated bytes %.0f -> %.0f per run of each region\n",
          fusion->kernels_before, fusion->kernels_after, model_before, model_after);
  return EXIT_OK;
}


/* -O1: the CPU level simplified, then fused (--dump=pdg and --dump=ilp
   print what fusion sees and decides). */
static bool optimize(const Options *opt, LcuProgram *lcu, FusStats *st) {
  fus_simplify(lcu);
  if (opt->check_ir && !lcu_check(lcu, "simplify"))
    return false;
  FusOptions fo = {{FUSION_TIME_LIMIT_MS, opt->dump == STAGE_ILP ? stdout : NULL, false},
                   opt->dump == STAGE_PDG ? stdout : NULL,
                   opt->check_ir};
  return fus_fuse(lcu, &fo, st) && (!opt->check_ir || lcu_check(lcu, "fusion"));
}

static bool is_lcu_file(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".lcu") == 0;
}

/* FILE.lcu: λcu as --dump=lcu prints it (lcu_read), printed again or
   run; the NESL statements it holds are checked, the program is not
   compiled again. */
static int compile_lcu(const Options *opt, Source *src) {
  bool fusion_dump = opt->dump == STAGE_FUSED || opt->dump == STAGE_PDG || opt->dump == STAGE_ILP;
  if (opt->types || (opt->dump != STAGE_NONE && opt->dump != STAGE_LCU && !fusion_dump) ||
      (opt->interp != INTERP_NONE && opt->interp != INTERP_LCU) || (opt->dump == STAGE_NONE && !opt->interp))
    return bad_usage("'%s' holds λcu: use --dump=lcu, --dump=fused (pdg, ilp) or --interp=lcu", opt->file);
  TypeEnv *env = tc_new_env();
  LcuProgram *lcu = lcu_read(src, env);
  if (!lcu || diag_count())
    return EXIT_COMPILE_ERROR;
  /* read λcu may be anything: it is checked before it runs */
  if ((opt->check_ir || opt->interp == INTERP_LCU) && !lcu_check(lcu, "read"))
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_LCU) {
    lcu_print_program(stdout, lcu);
    return EXIT_OK;
  }
  /* fused as a program lowered from NESL is (-O1, the default) */
  FusStats fusion = {0};
  bool analyse = opt->dump == STAGE_PDG || opt->dump == STAGE_ILP;
  if ((opt->opt_level > 0 || analyse) && !optimize(opt, lcu, &fusion))
    return EXIT_COMPILE_ERROR;
  if (analyse)
    return EXIT_OK;
  if (opt->dump == STAGE_FUSED) {
    lcu_print_program(stdout, lcu);
    return EXIT_OK;
  }
  return run_lcu(opt, lcu, NULL, NULL);
}

/* The pipeline.  Returns the exit status. */
static int compile(const Options *opt) {
  Source *src = source_from_file(opt->file);
  if (!src) {
    fprintf(stderr, "nessie: error: cannot read '%s'\n", opt->file);
    return EXIT_COMPILE_ERROR;
  }
  if (is_lcu_file(opt->file))
    return compile_lcu(opt, src);

  Program *prog = parse_program(src, false);
  if (diag_count())
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_AST) {
    ast_print_program(stdout, prog);
    return EXIT_OK;
  }

  TypeEnv *env = tc_new_env();
  tc_check_program(env, prog);
  if (diag_count())
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_TYPED) {
    print_typed(stdout, prog);
    return EXIT_OK;
  }
  if (opt->types) {
    print_types(prog);
    return EXIT_OK;
  }
  if (opt->interp == INTERP_EVAL) {
    EvalJob job = {env, prog, opt->stats};
    run_eval(&job);
    return EXIT_OK;
  }

  MonoProgram *mono = mono_program(env, prog);
  if (opt->check_ir && !mono_check(mono, "mono"))
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_MONO) {
    mono_print(stdout, mono);
    return EXIT_OK;
  }

  FlatProgram *flat = flatten_program(mono);
  flat_fill_shapes(flat);
  if (opt->check_ir && !flat_check(flat, "flatten"))
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_FLAT) {
    flat_print_program(stdout, flat);
    return EXIT_OK;
  }
  if (opt->interp == INTERP_FLAT) {
    FlatInterp *in = flat_interp_new(flat, stdout);
    for (int i = 0; i < flat->tops.len; i++)
      flat_interp_run_top(in, flat->tops.data[i]);
    fflush(stdout);
    if (opt->stats) {
      FlatStats st = flat_interp_stats(in);
      fprintf(stderr, "stats: %llu host calls, %llu vector operations, %llu elements, recursion depth %d\n",
              (unsigned long long)st.host_calls, (unsigned long long)st.ops, (unsigned long long)st.elements,
              st.max_depth);
    }
    return EXIT_OK;
  }

  LcuProgram *lcu = lcu_lower(flat);
  if (opt->check_ir && !lcu_check(lcu, "lower"))
    return EXIT_COMPILE_ERROR;
  if (opt->dump == STAGE_LCU) {
    lcu_print_program(stdout, lcu);
    return EXIT_OK;
  }
  FusStats fusion = {0};
  bool analyse = opt->dump == STAGE_PDG || opt->dump == STAGE_ILP;
  if ((opt->opt_level > 0 || analyse) && !optimize(opt, lcu, &fusion))
    return EXIT_COMPILE_ERROR;
  if (analyse)
    return EXIT_OK;
  if (opt->dump == STAGE_FUSED) {
    lcu_print_program(stdout, lcu);
    return EXIT_OK;
  }
  if (opt->interp == INTERP_LCU)
    return run_lcu(opt, lcu, opt->stats && opt->opt_level > 0 ? flat : NULL, &fusion);

  if (opt->dump == STAGE_C) {
    cg_program(stdout, lcu, &cg_cpu_target, opt->file);
    return EXIT_OK;
  }
  CgBuild build = {opt->target, opt->output ? opt->output : default_output(opt->file), opt->arch, opt->keep,
                   opt->verbose, opt->file};
  return cg_build(lcu, &build) == 0 ? EXIT_OK : EXIT_COMPILE_ERROR;
}

/* compile() on the big stack: checking and printing recurse as deeply as
   the program's expressions nest. */
typedef struct CompileJob {
  const Options *opt;
  int status;
} CompileJob;

static void *run_compile(void *arg) {
  CompileJob *job = arg;
  job->status = compile(job->opt);
  return NULL;
}

int main(int argc, char **argv) {
  GC_INIT();
  Options opt = {0};
  int status = parse_options(argc, argv, &opt);
  if (status >= 0)
    return status;
  if (opt.repl)
    return repl_run(opt.file, opt.stats);
  CompileJob job = {&opt, 0};
  run_on_big_stack(run_compile, &job);
  return job.status;
}
