/*
 * fuzz_frontend.c: a libFuzzer target for nessie's front end: lexer,
 * parser, type checker and the AST printer, in the order the driver runs
 * them (driver/main.c, compile()).
 *
 * Every input is one NESL source file.  It is first given to the REPL's
 * completeness probe (parse_input_incomplete), then parsed; if it parses without
 * an error it is printed back as NESL (the --dump=ast path) and checked
 * against a fresh basis-library environment; if it checks, its statements
 * and types are printed as --dump=typed and --types would print them.
 * Diagnostics and printed text go to /dev/null: the fuzzer is looking for
 * crashes, sanitizer reports, internal errors (die() aborts), exits
 * (diag_fatal/diag_abort with no handler call exit(1), which libFuzzer
 * reports as "fuzz target exited") and hangs, not for messages.
 *
 * One property is checked besides: ast_print.c promises that "printing,
 * parsing and printing again gives the same text" (ast.h).  A program that
 * parses is printed, the text parsed again and printed again; if the second
 * parse reports an error or the two texts differ, the target aborts after
 * printing both.  NESSIE_FUZZ_NO_ROUNDTRIP=1 turns that check off.
 * Inputs holding a NUL byte take it too: the printer writes a string or
 * character literal's bytes whole (fwrite, where fputs once cut it short:
 * tests/fuzz/crashes/roundtrip-nul-*.nesl).
 *
 * Set NESSIE_FUZZ_VERBOSE=1 to see the diagnostics and the printed program
 * on stderr when replaying one input:
 *   NESSIE_FUZZ_VERBOSE=1 build-fuzz/fuzz_frontend tests/fuzz/crashes/FILE
 *
 * Memory is Boehm GC's, as in the compiler; run with -detect_leaks=0 (the
 * Makefile's `fuzz` target does), since nothing is ever freed by hand.
 * The unifier's trail (types.c) is a global that every successful
 * unification pushes onto and nothing pops, so it keeps every type of
 * every input checked so far reachable: about 200 KB per input that
 * reaches the checker (each builds a basis-library environment), enough
 * to reach libFuzzer's 2 GB RSS limit within a long run.  After each input the trail is undone to where it stood before:
 * every type it points to belongs to that input's environment, which is
 * garbage by then.  NESSIE_FUZZ_KEEP_TRAIL=1 leaves the trail alone.
 *
 * Each input runs on a worker thread with a 1 GiB stack, as the driver runs
 * compile() (driver/main.c, run_on_big_stack): checking and printing
 * recurse as deeply as expressions nest, and the parser admits 100000
 * levels.  On the main thread's 8 MiB stack a deep input that the driver
 * handles would overflow here, a false report.  -timeout still works (its
 * SIGALRM is handled on the main thread, as libFuzzer requires), but the
 * stack a timeout report prints is the main thread's, waiting for the
 * worker: replay a timeout input under gdb to see where the worker is.
 */
#define GC_THREADS /* the input runs on a thread of its own, as in the driver */
#include <gc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "frontend/frontend.h"
#include "frontend/typecheck.h"
#include "frontend/types.h"

static FILE *sink; /* /dev/null, or stderr when verbose */
static void start_worker(void);
static bool roundtrip = true;
static bool keep_trail = false;

static bool env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  GC_INIT();
  roundtrip = !env_flag("NESSIE_FUZZ_NO_ROUNDTRIP");
  keep_trail = env_flag("NESSIE_FUZZ_KEEP_TRAIL");
  if (env_flag("NESSIE_FUZZ_VERBOSE")) {
    sink = stderr;
  } else {
    sink = fopen("/dev/null", "w");
    if (!sink) {
      perror("fuzz_frontend: /dev/null");
      abort();
    }
  }
  diag_set_stream(sink);
  start_worker();
  return 0;
}

/* What the driver's --dump=typed and --types print (driver/main.c). */
static void print_typed(const Program *prog) {
  for (int i = 0; i < prog->tops.len; i++) {
    const TopLevel *t = prog->tops.data[i];
    ast_print_top(sink, t);
    switch (t->kind) {
    case TOP_FUNCTION:
    case TOP_DATATYPE:
      if (t->def) {
        fprintf(sink, "\n  %% %s : %s %%\n", t->name, type_scheme_to_string(t->def->type));
        fprintf(sink, "%s\n", tc_def_signature_line(t->def));
      }
      break;
    case TOP_BIND:
    case TOP_EXPR:
      if (t->type)
        fprintf(sink, "\n  %% : %s %%\n", type_value_to_string(t->type));
      break;
    }
  }
}

/* The program as ast_print_program prints it, in a fresh string. */
static char *print_to_string(const Program *prog, size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f)
    abort();
  ast_print_program(f, prog);
  fclose(f);
  char *s = xstrndup(buf, n); /* by its length, NUL bytes included */
  free(buf);
  *len = n;
  return s;
}

/* Print, parse, print: the two texts must be equal (ast.h). */
static void check_roundtrip(const Program *prog) {
  size_t len1, len2;
  char *text1 = print_to_string(prog, &len1);
  Source *src1 = NEW(Source);
  src1->name = "<printed>";
  src1->text = text1;
  src1->len = len1;
  diag_reset();
  Program *prog2 = parse_program(src1, false);
  if (diag_count() != 0 || !prog2) {
    fprintf(stderr, "fuzz_frontend: the printed program does not parse back:\n%s\n", text1);
    diag_set_stream(stderr);
    diag_reset();
    parse_program(src1, false);
    abort();
  }
  char *text2 = print_to_string(prog2, &len2);
  if (len1 != len2 || memcmp(text1, text2, len1) != 0) {
    fprintf(stderr,
            "fuzz_frontend: printing is not stable:\n--- printed once ---\n%s\n"
            "--- parsed and printed again ---\n%s\n",
            text1, text2);
    abort();
  }
}

static void run_one(const uint8_t *data, size_t size) {
  /* The Source as source_from_file() builds it: the whole input, embedded
     NUL bytes included (the lexer stops at len, not at the first NUL),
     followed by a terminating NUL. */
  char *text = xmalloc_atomic(size + 1);
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  int trail_mark = type_trail_mark();
  Source *src = NEW(Source);
  src->name = "<fuzz>";
  src->text = text;
  src->len = size;

  diag_reset();
  /* the REPL's question first: it parses muted and must leave the count
     as it was */
  parse_input_incomplete(src);
  if (diag_count() != 0) {
    fprintf(stderr, "fuzz_frontend: parse_input_incomplete changed the error count\n");
    abort();
  }
  Program *prog = parse_program(src, false);
  if (!prog)
    goto done;
  /* A program with syntax errors holds the statements without them; it
     must print as well (the driver prints only error-free programs). */
  ast_print_program(sink, prog);
  if (diag_count() == 0) {
    if (roundtrip)
      check_roundtrip(prog);
    diag_reset();
    TypeEnv *env = tc_new_env();
    if (diag_count() != 0) {
      fprintf(stderr, "fuzz_frontend: the basis library does not check\n");
      abort();
    }
    int errors = tc_check_program(env, prog);
    if (errors == 0 && diag_count() == 0)
      print_typed(prog);
  }
done:
  fflush(sink);
  diag_reset();
  if (!keep_trail)
    type_trail_undo(trail_mark);
}

/* As the driver's run_on_big_stack: 1 GiB of address space, only the
   pages the recursion touches are used.  One worker thread, started once,
   runs every input (a thread per input would cost about 0.8 ms each under
   ASan, half again the time of an input). */
enum { BIG_STACK = 1 << 30 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static const uint8_t *job_data;
static size_t job_size;
static bool job_pending, job_done;
static bool have_worker;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (!job_pending)
      pthread_cond_wait(&cv, &mu);
    job_pending = false;
    pthread_mutex_unlock(&mu);
    run_one(job_data, job_size);
    pthread_mutex_lock(&mu);
    job_done = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

static void start_worker(void) {
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  have_worker = pthread_attr_setstacksize(&attr, BIG_STACK) == 0 &&
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                pthread_create(&thread, &attr, worker, NULL) == 0;
  pthread_attr_destroy(&attr);
  if (!have_worker)
    fprintf(stderr, "fuzz_frontend: no big-stack thread; inputs run on the main stack\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!have_worker) {
    run_one(data, size); /* no thread: the ordinary stack */
    return 0;
  }
  pthread_mutex_lock(&mu);
  job_data = data;
  job_size = size;
  job_done = false;
  job_pending = true;
  pthread_cond_broadcast(&cv);
  while (!job_done)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return 0;
}
