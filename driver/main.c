/*
 * main.c: the `nessie` command line.
 *
 * The options choose one mode: --types, --dump=STAGE, --interp[=ENGINE],
 * the REPL (no file, or -i FILE), or compiling FILE to an executable (the
 * default; codegen/).  Modes do not
 * combine; a mode that reads a program needs a FILE ("-" is standard
 * input).  The stages and the interpreters, their names and their help
 * text come from the pipeline's table (pipeline.c).  Exit statuses are
 * README.md's table, and --help repeats it.
 */
#define GC_THREADS /* the evaluator runs on a thread with a large stack */
#include <errno.h>
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

/* The exit statuses (README.md, "Exit status"). */
enum {
  EXIT_OK = 0,
  EXIT_PROGRAM_ERROR = 1, /* compile errors; under --interp, a statement stopped with a run-time error */
  EXIT_USAGE = 2,         /* bad command line, or a mode not available yet */
  EXIT_UNREADABLE = 3,    /* the input file cannot be read */
  /* 4: out of memory while compiling (diag_out_of_memory) */
};

typedef struct Options {
  const char *file;
  const StageInfo *dump;     /* --dump=STAGE */
  const EngineInfo *engine;  /* --interp[=ENGINE] */
  bool stats;     /* --stats: counts after the run */
  EvalCostMode cost; /* --cost[=functions]: NESL's work and depth (docs/cost.md) */
  bool no_fusion; /* -O0 (-O1, fusion, is the default) */
  bool types;     /* --types: the REPL's `name = fn : type` lines */
  bool check_ir;  /* --check-ir: run every IR checker between passes */
  bool repl;      /* -i FILE */
  const char *mode; /* the option that chose the mode, for messages */
  /* compiling to an executable (the mode when no other is chosen) */
  const char *output;     /* -o OUT */
  CgTargetKind target;    /* --target */
  bool target_set;
  const char *arch;       /* --arch=sm_XX: implies --target=cuda */
  bool keep;              /* --keep */
  bool verbose;           /* -v */
  bool no_cache;          /* --no-cache */
  const char *build_option; /* the first of these given but --target, for messages */
  const char *target_option; /* "--target=cpu" or "--target=cuda", as given */
  bool library;           /* --library: a shared library, header and Python module (driver/export.c) */
} Options;

static void usage(FILE *out) {
  fprintf(out, "usage: nessie [options] FILE.nesl   compile FILE.nesl to an executable\n"
               "                                     (FILE may be -, standard input)\n"
               "       nessie --library [options] FILE.nesl\n"
               "                                     a library of FILE's functions\n"
               "       nessie [-i FILE.nesl]         the REPL\n"
               "       nessie [options] --dump=STAGE | --interp=lcu FILE.lcu\n"
               "                                     λcu in the form --dump=lcu prints\n"
               "\n"
               "nessie compiles NESL, the nested data-parallel language, to CUDA.\n"
               "\n"
               "compiling (the default mode):\n"
               "  -o OUT           the executable's name (default: FILE without .nesl,\n"
               "                   in the current directory); checked before compiling:\n"
               "                   never the input file, a directory or a place that\n"
               "                   cannot be written\n"
               "  --target=T       cuda (the default where nvcc and an NVIDIA GPU are found)\n"
               "                   or cpu (C with OpenMP); also chooses the program\n"
               "                   --dump=c or --dump=cuda may show\n"
               "  --arch=sm_XX     the GPU architecture (default sm_90); means --target=cuda\n"
               "  --keep           keep the generated source beside the executable (a\n"
               "                   large program's in several files: OUT.cu, OUT_2.cu ...;\n"
               "                   CUDA's units of host code only are .cpp)\n"
               "  -v               print each command nessie runs, quoted for a shell\n"
               "  --no-cache       compile every unit, without the build cache (objects of\n"
               "                   units compiled before, kept in $NESSIE_CACHE_DIR, else\n"
               "                   $XDG_CACHE_HOME/nessie, else ~/.cache/nessie; at most\n"
               "                   $NESSIE_CACHE_SIZE bytes, default 1G; 0 turns it off)\n"
               "  --library        write libNAME.so, NAME.h and NAME.py (C and Python\n"
               "                   bindings) exporting FILE's first-order functions, and\n"
               "                   the instances of polymorphic ones that declarations\n"
               "                   after them name; NAME is -o's, else FILE's base name;\n"
               "                   FILE's statements are not run (docs/library.md)\n"
               "\n"
               "other modes (one at most):\n"
               "  -i FILE          load FILE into the REPL, then read statements\n"
               "  --types          print the type of each function and datatype, as the\n"
               "                   NESL REPL does (`sqr = fn : a -> a :: (a in number)`)\n"
               "  --dump=STAGE     print the program after STAGE and stop; STAGE is one of:\n");
  for (int i = 0; i < pipeline_stage_count; i++) {
    fprintf(out, "                     %-6s ", pipeline_stages[i].name);
    print_indented(out, pipeline_stages[i].help, 28);
    fputc('\n', out);
  }
  fprintf(out, "  --interp[=ENGINE] run the program and print the NESL REPL's transcript;\n"
               "                   ENGINE is one of:\n");
  for (int i = 0; i < pipeline_engine_count; i++) {
    fprintf(out, "                     %-6s ", pipeline_engines[i].name);
    print_indented(out, pipeline_engines[i].help, 28);
    fputc('\n', out);
  }
  fprintf(out, "\n"
               "options:\n"
               "  --stats          with --interp (on stderr) or in the REPL, print counts of\n"
               "                   the run:");
  for (int i = 0; i < pipeline_engine_count; i++) {
    fprintf(out, "%s %s: ", i ? ";\n                  " : "", pipeline_engines[i].name);
    print_indented(out, pipeline_engines[i].stats_help, 19);
  }
  fprintf(out, "\n"
               "  --cost[=functions]  with --interp (any interpreter), after each statement\n"
               "                   print its work and depth in NESL's cost model\n"
               "                   (docs/cost.md), the same by each; =functions (eval)\n"
               "                   adds, per user function called, its calls, work and\n"
               "                   the largest depth of a call.  With --dump, the program\n"
               "                   made for it: its cost statements from flat on\n"
               "  -O0, -O1         without or with (the default) simplification and fusion\n"
               "                   of λcu, for executables, dumps and --interp=lcu; -O2\n"
               "                   and -O3 are -O1, the highest level\n"
               "  --check-ir       check every intermediate representation between passes\n"
               "  --diagnostics=F  how compile errors are printed on stderr: text (the\n"
               "                   default: file:line:col: error: message, the line and a\n"
               "                   caret) or json (one object a line: file, line, column,\n"
               "                   severity, message)\n"
               "  -h, --help       print this help and exit\n"
               "  --version        print the version, the commit it was built from, the C\n"
               "                   compiler and CUDA toolkit its builds use, and where its\n"
               "                   runtime is, and exit\n"
               "\n"
               "Exit status: 0 success; 1 the program has errors (compile errors, or under\n"
               "--interp a statement stopped with a run-time error) or the C or CUDA\n"
               "compiler failed; 2 bad usage (a bad -o included: the input file, a\n"
               "directory, a place that cannot be written); 3 the input file cannot be\n"
               "read; 4 out of memory while compiling.  An executable exits with 1 when\n"
               "a statement stopped with a run-time error.\n");
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "nessie: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(run 'nessie --help' for usage)\n");
  va_end(ap);
  return EXIT_USAGE;
}

/* Records that option 'name' chose a mode; a second mode is an error. */
static int set_mode(Options *opt, const char *name) {
  if (opt->mode)
    return strcmp(opt->mode, name) == 0 ? bad_usage("%s given twice", name)
                                        : bad_usage("%s and %s cannot be used together (one mode at a time)",
                                                    opt->mode, name);
  opt->mode = name;
  return -1;
}

/* Whether 'arch' is a name nvcc's -arch takes: sm_NN, compute_NN or
   lto_NN (NN digits, then a letter or none: sm_90a), native, all or
   all-major. */
static bool gpu_arch_name(const char *arch) {
  if (strcmp(arch, "native") == 0 || strcmp(arch, "all") == 0 || strcmp(arch, "all-major") == 0)
    return true;
  const char *prefixes[] = {"sm_", "compute_", "lto_"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(arch, prefixes[i], n) != 0)
      continue;
    const char *p = arch + n;
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p >= 'a' && *p <= 'z')
      p++;
    return digits > 0 && *p == '\0';
  }
  return false;
}

/* Parses argv into 'opt'; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, Options *opt) {
  enum { OPT_TYPES = 256, OPT_DUMP, OPT_CHECK_IR, OPT_HELP, OPT_VERSION, OPT_INTERP, OPT_STATS, OPT_COST, OPT_TARGET,
         OPT_ARCH, OPT_KEEP, OPT_NO_CACHE, OPT_DIAGNOSTICS, OPT_LIBRARY };
  static const struct option longopts[] = {
      {"target", required_argument, NULL, OPT_TARGET},
      {"arch", required_argument, NULL, OPT_ARCH},
      {"keep", no_argument, NULL, OPT_KEEP},
      {"no-cache", no_argument, NULL, OPT_NO_CACHE},
      {"library", no_argument, NULL, OPT_LIBRARY},
      {"interp", optional_argument, NULL, OPT_INTERP},
      {"stats", no_argument, NULL, OPT_STATS},
      {"cost", optional_argument, NULL, OPT_COST},
      {"types", no_argument, NULL, OPT_TYPES},
      {"dump", required_argument, NULL, OPT_DUMP},
      {"check-ir", no_argument, NULL, OPT_CHECK_IR},
      {"diagnostics", required_argument, NULL, OPT_DIAGNOSTICS},
      {"help", no_argument, NULL, OPT_HELP},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0},
  };
  opterr = 0;
  optind = 1;
  int c, status;
  /* the leading ':' makes getopt return ':' for a missing argument */
  while ((c = getopt_long(argc, argv, ":hi:o:vO:", longopts, NULL)) != -1) {
    switch (c) {
    case 'O':
      /* -O2 and -O3 are what gcc's and nvcc's users type for "all of
         it": nessie's highest level, -O1 */
      if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '3')
        return bad_usage("unknown optimization level '-O%s' (expected -O0 or -O1; -O2 and -O3 are -O1)",
                         diag_quote(optarg, strlen(optarg)));
      opt->no_fusion = optarg[0] == '0';
      break;
    case 'o':
      if (opt->output && strcmp(opt->output, optarg) != 0)
        return bad_usage("-o given twice ('%s' and '%s'): the executable has one name",
                         diag_quote(opt->output, strlen(opt->output)), diag_quote(optarg, strlen(optarg)));
      opt->output = optarg;
      opt->build_option = opt->build_option ? opt->build_option : "-o";
      break;
    case 'v':
      opt->verbose = true;
      opt->build_option = opt->build_option ? opt->build_option : "-v";
      break;
    case OPT_TARGET: {
      CgTargetKind t;
      if (strcmp(optarg, "cpu") == 0)
        t = CG_CPU;
      else if (strcmp(optarg, "cuda") == 0)
        t = CG_CUDA;
      else
        return bad_usage("unknown target '%s' for --target (expected cpu or cuda)", diag_quote(optarg, strlen(optarg)));
      if (opt->target_set && t != opt->target)
        return bad_usage("%s and --target=%s contradict each other: give one target", opt->target_option, optarg);
      opt->target = t;
      opt->target_set = true;
      opt->target_option = t == CG_CPU ? "--target=cpu" : "--target=cuda";
      break;
    }
    case OPT_ARCH:
      /* refused at once rather than by nvcc after the whole compilation;
         and nvcc pastes it into commands it gives a shell */
      if (!gpu_arch_name(optarg))
        return bad_usage("unknown GPU architecture '%s' for --arch (expected sm_NN, compute_NN or lto_NN, "
                         "NN the compute capability as in sm_90 or sm_90a, or native, all or all-major)",
                         diag_quote(optarg, strlen(optarg)));
      if (opt->arch && strcmp(opt->arch, optarg) != 0)
        return bad_usage("--arch given twice ('%s' and '%s'): give one architecture", opt->arch, optarg);
      opt->arch = optarg;
      opt->build_option = opt->build_option ? opt->build_option : "--arch";
      break;
    case OPT_KEEP:
      opt->keep = true;
      opt->build_option = opt->build_option ? opt->build_option : "--keep";
      break;
    case OPT_LIBRARY:
      opt->library = true;
      opt->build_option = opt->build_option ? opt->build_option : "--library";
      break;
    case OPT_NO_CACHE:
      opt->no_cache = true;
      opt->build_option = opt->build_option ? opt->build_option : "--no-cache";
      break;
    case OPT_TYPES:
      if ((status = set_mode(opt, "--types")) >= 0)
        return status;
      opt->types = true;
      break;
    case OPT_DUMP:
      if ((status = set_mode(opt, "--dump")) >= 0)
        return status;
      opt->dump = pipeline_stage(optarg);
      if (!opt->dump)
        return bad_usage("unknown stage '%s' for --dump (expected %s)", diag_quote(optarg, strlen(optarg)),
                         pipeline_stage_names());
      break;
    case 'i':
      if (optarg[0] == '-' && optarg[1]) /* `-i --types`: the file is missing */
        return bad_usage("-i needs a FILE to load (nessie alone starts the REPL)");
      if ((status = set_mode(opt, "-i")) >= 0)
        return status;
      opt->repl = true;
      opt->file = optarg;
      break;
    case OPT_CHECK_IR:
      opt->check_ir = true;
      break;
    case OPT_INTERP:
      if ((status = set_mode(opt, "--interp")) >= 0)
        return status;
      opt->engine = pipeline_engine(optarg ? optarg : "eval");
      if (!opt->engine)
        return bad_usage("unknown interpreter '%s' for --interp (expected %s)", diag_quote(optarg, strlen(optarg)),
                         pipeline_engine_names());
      break;
    case OPT_STATS:
      opt->stats = true;
      break;
    case OPT_COST:
      if (optarg && strcmp(optarg, "functions") != 0)
        return bad_usage("unknown value '%s' for --cost (expected --cost or --cost=functions)",
                         diag_quote(optarg, strlen(optarg)));
      opt->cost = optarg ? EV_COST_FUNCTIONS : EV_COST_STATEMENTS;
      break;
    case OPT_DIAGNOSTICS:
      /* for every mode: the REPL's errors and a build's compile errors
         are the same diagnostics */
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
        return bad_usage("unknown format '%s' for --diagnostics (expected text or json)",
                         diag_quote(optarg, strlen(optarg)));
      diag_set_json(strcmp(optarg, "json") == 0);
      break;
    case 'h':
    case OPT_HELP:
      usage(stdout);
      return EXIT_OK;
    case OPT_VERSION:
      print_version(stdout);
      return EXIT_OK;
    case ':':
      if (optopt == 'i')
        return bad_usage("-i needs a FILE to load (nessie alone starts the REPL)");
      return bad_usage("option '%s' needs an argument", argv[optind - 1]);
    default: {
      const char *arg = argv[optind - 1];
      return bad_usage("unknown option '%s'", diag_quote(arg, strlen(arg)));
    }
    }
  }
  if (opt->arch && opt->target_set && opt->target == CG_CPU)
    return bad_usage("--arch chooses a GPU architecture: it does not go with --target=cpu");
  /* --target's own messages below name it as the build options' do */
  const char *build_option = opt->build_option ? opt->build_option : opt->target_set ? "--target" : NULL;
  if (opt->repl && build_option)
    return bad_usage("%s is for compiling to an executable; the REPL does not use it", build_option);
  if (opt->repl) {
    if (optind < argc)
      return bad_usage("-i takes one file; '%s' is one too many", argv[optind]);
    return -1;
  }
  if (optind == argc) {
    if (opt->mode)
      return bad_usage("%s needs a FILE (use - to read the program from standard input)", opt->mode);
    if (build_option)
      return bad_usage("%s is for compiling to an executable; it needs a FILE", build_option);
    opt->repl = true; /* no file: the REPL (--check-ir applies to its stage commands) */
    return -1;
  }
  if (optind + 1 < argc)
    return bad_usage("more than one input file ('%s' ...)", argv[optind + 1]);
  opt->file = argv[optind];
  if (opt->stats && !opt->engine)
    return bad_usage("--stats counts what an interpreter runs: use it with --interp (or in the REPL)");
  if (opt->cost && !opt->engine && !opt->dump)
    return bad_usage("--cost measures what an interpreter runs: use it with --interp, or with --dump to see the "
                     "program's cost statements (or :cost in the REPL)");
  if (opt->cost == EV_COST_FUNCTIONS && (!opt->engine || strcmp(opt->engine->name, "eval") != 0))
    return bad_usage("--cost=functions is the evaluator's: use it with --interp=eval");
  if (opt->build_option && opt->mode)
    return bad_usage("%s is for compiling to an executable; it does not go with %s", opt->build_option, opt->mode);
  /* --target also chooses which generated program a dump shows: the
     dumps of the two targets' programs take the one they show */
  if (opt->target_set && opt->mode) {
    const char *shows = opt->target == CG_CPU ? "c" : "cuda";
    if (!opt->dump || (strcmp(opt->dump->name, "c") != 0 && strcmp(opt->dump->name, "cuda") != 0))
      return bad_usage("%s is for compiling to an executable, or with --dump=%s; it does not go with %s%s%s",
                       opt->target_option, shows, opt->mode, opt->dump ? "=" : "", opt->dump ? opt->dump->name : "");
    if (strcmp(opt->dump->name, shows) != 0)
      return bad_usage("%s contradicts --dump=%s, the other target's program (use --dump=%s)", opt->target_option,
                       opt->dump->name, shows);
  }
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

/* 1 GiB of address space; only the pages the recursion touches are used.
   NESL programs may recurse 100000 deep (tests/errors/rt_deep_recursion_ok). */
enum { BIG_STACK = 1 << 30 };

typedef struct BigStackJob {
  void *(*fn)(void *);
  void *arg;
} BigStackJob;

/* Records where the thread's stack begins, for the evaluator's check
   that recursion leaves room (ev_stack_exhausted). */
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
   its .nesl ("dir/prog.nesl" -> "prog"; a name without .nesl gets ".out",
   standard input "a.out"). */
static const char *default_output(const char *file) {
  if (strcmp(file, "-") == 0)
    return "a.out";
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  size_t n = strlen(base);
  if (n > 5 && strcmp(base + n - 5, ".nesl") == 0)
    return xstrndup(base, n - 5);
  return xprintf("%s.out", base);
}

/* The target of an executable: --target's, cuda for --arch, else the
   default, which is the CPU where nvcc is found but no GPU: an executable
   for a GPU that is not there would only say "no CUDA device".  When
   that is what decided it, a note says so, since the same command makes
   a GPU executable on a machine with a GPU. */
static CgTargetKind choose_target(const Options *opt) {
  if (opt->target_set)
    return opt->target;
  if (opt->arch)
    return CG_CUDA;
  bool no_gpu;
  CgTargetKind target = cg_default_target(&no_gpu);
  if (no_gpu)
    fprintf(stderr, "nessie: note: no NVIDIA GPU on this machine: building for the CPU (C with OpenMP); "
                    "--target=cuda builds for a GPU anyway\n");
  return target;
}

/* Runs 'engine' on the program in 'pl' and returns the exit status. */
static int run_engine(const Options *opt, Pipeline *pl) {
  long errors = diag_runtime_errors();
  Buf stats = {0};
  opt->engine->run(pl, NULL, stdout, opt->stats ? &stats : NULL);
  fflush(stdout);
  if (opt->stats)
    fprintf(stderr, "%s\n", buf_str(&stats));
  /* the transcript went on after an error; the status tells a script */
  return diag_runtime_errors() > errors ? EXIT_PROGRAM_ERROR : EXIT_OK;
}

static bool is_lcu_file(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".lcu") == 0;
}

/* FILE.lcu: λcu as --dump=lcu prints it (lcu_read), printed again or
   run by λcu's interpreter; the NESL statements it holds are checked, the
   program is not compiled again. */
static int compile_lcu(const Options *opt, Source *src) {
  const StageInfo *lcu_stage = pipeline_stage("lcu");
  bool dump_ok = opt->dump && pipeline_stage_index(opt->dump) >= pipeline_stage_index(lcu_stage);
  if (!dump_ok && (!opt->engine || strcmp(opt->engine->name, "lcu") != 0))
    return bad_usage("'%s' holds λcu: use --dump=STAGE for a stage from lcu on, or --interp=lcu", opt->file);
  Pipeline pl = {.src = src, .env = tc_new_env(), .check_ir = opt->check_ir, .no_fusion = opt->no_fusion,
                 .cost = opt->cost};
  pl.lcu = lcu_read(src, flatten_nesl_reader(pl.env));
  if (!pl.lcu || diag_count())
    return EXIT_PROGRAM_ERROR;
  pl.done = pipeline_stage_index(lcu_stage) + 1;
  /* read λcu may be anything: it is checked before it is used */
  if ((opt->check_ir || opt->engine || opt->dump != lcu_stage) && !lcu_check(pl.lcu, "read"))
    return EXIT_PROGRAM_ERROR;
  /* fused as a program lowered from NESL is (-O1, the default) */
  if (!pipeline_run_to(&pl, opt->dump ? opt->dump : pipeline_stage(opt->engine->stage)))
    return EXIT_PROGRAM_ERROR;
  if (opt->dump) {
    opt->dump->dump(stdout, &pl);
    return EXIT_OK;
  }
  return run_engine(opt, &pl);
}

/* The pipeline, up to the stage the mode needs; without a mode, on to an
   executable.  Returns the exit status. */
static int compile(const Options *opt) {
  Source *src = source_from_file(opt->file);
  if (!src) {
    /* through diag, so that --diagnostics=json reports it too (the text
       is the same: "nessie: error: ..." without a location) */
    diag_error(no_loc, "cannot read '%s': %s", opt->file, strerror(errno));
    return EXIT_UNREADABLE;
  }
  if (is_lcu_file(opt->file))
    return compile_lcu(opt, src);
  if (opt->library) {
    LibraryBuild lb = {opt->file, opt->output, choose_target(opt), opt->arch, opt->keep, opt->verbose,
                       opt->no_cache, opt->check_ir, opt->no_fusion};
    return driver_library(&lb);
  }
  CgBuild *build = NULL;
  if (!opt->dump && !opt->engine && !opt->types) {
    /* an executable: where it goes is checked before compiling, which
       may take a while */
    build = NEW(CgBuild);
    *build = (CgBuild){choose_target(opt), opt->output ? opt->output : default_output(opt->file), opt->arch,
                       opt->keep, opt->verbose, opt->file, opt->no_cache, nessie_version, NULL};
    if (cg_check_output(build, opt->file) != 0)
      return EXIT_USAGE;
  }
  Pipeline pl = {.src = src, .env = tc_new_env(), .check_ir = opt->check_ir, .no_fusion = opt->no_fusion,
                 .cost = opt->cost};
  const StageInfo *last = opt->dump                 ? opt->dump
                          : opt->engine             ? pipeline_stage(opt->engine->stage)
                          : opt->types              ? pipeline_stage("typed")
                                                    : pipeline_stage("fused");
  if (!pipeline_run_to(&pl, last))
    return EXIT_PROGRAM_ERROR;
  if (opt->dump) {
    opt->dump->dump(stdout, &pl);
    return EXIT_OK;
  }
  if (opt->types) {
    print_types(pl.prog);
    return EXIT_OK;
  }
  if (opt->engine)
    return run_engine(opt, &pl);
  return cg_build(pl.fused, build) == 0 ? EXIT_OK : EXIT_PROGRAM_ERROR;
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

/* A compilation's heap, made at the start (main, below): its objects,
   cut from chunks, are hardly reclaimed while it runs
   (alloc_for_compilation), and lib_lifted, the largest corpus program,
   takes 36 MB.  Pages never touched cost nothing. */
enum { COMPILE_HEAP_BYTES = 64 << 20 };

int main(int argc, char **argv) {
  GC_INIT();
  alloc_init();
  Options opt = {0};
  int status = parse_options(argc, argv, &opt);
  if (status >= 0)
    return status;
  if (opt.repl)
    return repl_run(opt.file, opt.stats, opt.check_ir, opt.no_fusion);
  /* A compilation allocates tens of megabytes and keeps much of it: a
     heap of that size from the start spares the collections the
     collector would run while growing to it, and its objects come from
     chunks (alloc.c).  Each page is a page fault the first time it is
     touched (about 2 µs here; docs/design.md, "Compile time").  The
     interpreters keep the collector's defaults: their heaps follow the
     NESL program's data. */
  if (!opt.engine)
    alloc_for_compilation(COMPILE_HEAP_BYTES);
  CompileJob job = {&opt, 0};
  run_on_big_stack(run_compile, &job);
  return job.status;
}
