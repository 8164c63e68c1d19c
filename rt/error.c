/*
 * error.c: run-time errors, the transcript stream, and the limit of
 * recursion: one module for every backend, so that the interpreters and
 * the executables stop a statement with the same line in the same words
 * as the source evaluator (which formats its errors here too).
 *
 * An error line names where the user's code stands: inside a library
 * function, the user's call that entered the library, and the message
 * names the library function (`in mod: rem: division by zero`); inside a
 * user function, the statement's outermost call of a user function, and
 * the place in the function after the message (`(in function f, line 3,
 * column 5)`).  The context that says so is the caller's to keep
 * (rt_set_context), so that reporting never walks frames.
 *
 * After the line, rt_fail longjmps to the statement's guard; the program
 * goes on with the next statement, as NESL's REPL does.
 */
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel.h"
#include "rt.h"

/* ---- the transcript ---- */

static FILE *out_stream;
static bool mid_line; /* the program's own output did not end a line */

void rt_set_output(FILE *out) { out_stream = out; }

FILE *rt_output(void) { return out_stream ? out_stream : stdout; }

void rt_write(const char *s, size_t n) {
  if (n == 0)
    return;
  fwrite(s, 1, n, rt_output());
  mid_line = s[n - 1] != '\n';
}

void rt_begin_line(void) {
  if (mid_line)
    fputc('\n', rt_output());
  mid_line = false;
}

/* ---- context ---- */

static const RtContext *context;
static jmp_buf *stop;
static bool failed;

void rt_set_context(const RtContext *c) { context = c; }

const RtContext *rt_context(void) { return context; }

jmp_buf *rt_set_stop(jmp_buf *s) {
  jmp_buf *old = stop;
  stop = s;
  return old;
}

bool rt_failed(void) { return failed; }

void rt_clear_failed(void) { failed = false; }

/* The context the evaluator would have inside a call: the library
   function the user's code entered stays the one named, the innermost
   user function is the callee unless it is the library's, and the place
   in the statement is that of the outermost user call. */
RtContext rt_call_context(const RtContext *caller, const char *callee, bool library, RtLoc call) {
  static const RtContext top = {0};
  if (!caller)
    caller = &top;
  /* a call in code inlined from a user function: from inside that
     function */
  RtContext in_inlined;
  if (call.via) {
    in_inlined = rt_inlined_context(caller, call.via);
    caller = &in_inlined;
  }
  RtContext c = {0};
  if (caller->lib_fn) {
    c.lib_fn = caller->lib_fn;
    c.lib_call = caller->lib_call;
  } else if (library) {
    c.lib_fn = callee;
    c.lib_call = call;
  }
  c.user_fn = library ? caller->user_fn : callee;
  c.stmt_loc = caller->user_fn || library ? caller->stmt_loc : call;
  return c;
}

RtContext rt_inlined_context(const RtContext *c, const RtInlined *via) {
  static const RtContext top = {0};
  if (!via)
    return c ? *c : top;
  /* the call's own location is in code that was not inlined, so this
     does not recur; a second application finds the function running and
     keeps the place in the statement, which is the call's already */
  return rt_call_context(c, via->fn, false, via->call);
}

const RtContext *rt_enter_library(RtContext *buf, const char *lib_fn, RtLoc call) {
  const RtContext *saved = context;
  if (saved && saved->lib_fn)
    return saved;
  *buf = rt_inlined_context(saved, call.via);
  buf->lib_fn = lib_fn;
  buf->lib_call = call;
  context = buf;
  return saved;
}

/* ---- the words ---- */

/* The operator whose library function is 'libname' ("__div" -> "/"), or
   NULL: the frontend's table of operators, read as data. */
static const char *operator_of(const char *libname) {
  static const struct {
    const char *libname, *text;
  } ops[] = {
#define BINOP(name, text, power, libname) {libname, text},
#define UNOP(name, text, power, libname) {libname, text},
#include "../common/syntax.def"
  };
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(ops[i].libname, libname) == 0)
      return ops[i].text;
  return NULL;
}

/* A fixed buffer: an error line must be made when memory has run out.
   Text that does not fit is cut. */
enum { TEXT_MAX = 4096 };
static char text_buf[TEXT_MAX];

typedef struct Text {
  char *s;
  size_t len;
} Text;

__attribute__((format(printf, 2, 3))) static void add(Text *t, const char *fmt, ...) {
  if (t->len >= TEXT_MAX - 1)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->s + t->len, TEXT_MAX - t->len, fmt, ap);
  va_end(ap);
  if (n > 0)
    t->len = t->len + (size_t)n < TEXT_MAX - 1 ? t->len + (size_t)n : TEXT_MAX - 1;
}

/* Where the error is reported and what inner place the message names
   (see rt_error_text). */
static RtLoc error_places(const RtContext *c, RtLoc loc, const char *prim, const char **lib_fn, RtLoc *inner) {
  *inner = loc;
  *lib_fn = NULL;
  if (c && c->lib_fn) {
    *lib_fn = c->lib_fn;
    *inner = c->lib_call;
  } else if (prim) {
    *lib_fn = prim;
  }
  return c && c->user_fn ? c->stmt_loc : *inner;
}

char *rt_error_message(const RtContext *c, RtLoc loc, const char *prim, const char *msg, RtLoc *where) {
  const char *lib_fn;
  RtLoc inner;
  RtLoc at = error_places(c, loc, prim, &lib_fn, &inner);
  if (where)
    *where = at;
  Text t = {text_buf, 0};
  text_buf[0] = '\0';
  if (lib_fn) {
    /* the library function the user called names the error: "mod:
       division by zero", not mod's own internals ("rem: ..."); an
       operator by its spelling */
    const char *op = operator_of(lib_fn);
    const char *name = op ? op : lib_fn;
    size_t n = strlen(name);
    if (!(strncmp(msg, name, n) == 0 && msg[n] == ':')) {
      size_t word = strcspn(msg, " :");
      if (word > 0 && msg[word] == ':' && msg[word + 1] == ' ')
        msg += word + 2;
      add(&t, "%s: ", name);
    }
  }
  add(&t, "%s", msg);
  if (c && c->user_fn)
    add(&t, " (in function %s, line %d, column %d)", c->user_fn, inner.line, inner.col);
  return text_buf;
}

char *rt_error_text(const RtContext *c, RtLoc loc, const char *prim, const char *msg) {
  RtLoc where;
  char words[TEXT_MAX];
  snprintf(words, sizeof words, "%s", rt_error_message(c, loc, prim, msg, &where));
  Text t = {text_buf, 0};
  text_buf[0] = '\0';
  if (where.file)
    add(&t, "%s:%d:%d: ", where.file, where.line, where.col);
  add(&t, "%s", words);
  return text_buf;
}

RtLoc rt_here;

static RtReporter reporter;

RtReporter rt_set_reporter(RtReporter r) {
  RtReporter old = reporter;
  reporter = r;
  return old;
}

void rt_vfail(RtLoc loc, const char *prim, const char *fmt, va_list ap) {
  char msg[TEXT_MAX];
  vsnprintf(msg, sizeof msg, fmt, ap);
  rt_begin_line();
  /* an error in code inlined from a user function is in that function */
  RtContext inlined;
  const RtContext *c = context;
  if (loc.via) {
    inlined = rt_inlined_context(context, loc.via);
    c = &inlined;
  }
  if (reporter) {
    RtLoc where;
    char *words = rt_error_message(c, loc, prim, msg, &where);
    reporter(where, words);
  } else {
    fprintf(rt_output(), "error: %s\n", rt_error_text(c, loc, prim, msg));
    fflush(rt_output());
  }
  failed = true;
  if (!stop)
    exit(1);
  longjmp(*stop, 1);
}

void rt_fail(RtLoc loc, const char *prim, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rt_vfail(loc, prim, fmt, ap);
}

void rt_index_error(RtLoc loc, RtOp op, int32_t i, int64_t len) {
  /* in the user's code a subscript is reported as the evaluator reports
     s[i]; in the library as the primitive does */
  if (!(context && context->lib_fn) && (op == RT_ELT || op == RT_GATHER))
    rt_fail(loc, NULL, "subscript %d is out of range for a sequence of length %lld", i, (long long)len);
  const char *lib_op = op == RT_ELT ? "subscript" : op == RT_GATHER ? "->" : "<-";
  const char *prim = op == RT_ELT ? "__elt" : op == RT_GATHER ? "__read" : "__write";
  rt_fail(loc, prim, "%s: index %d is out of range for a sequence of length %lld", lib_op, i, (long long)len);
}

static RtLoc site_loc(const RtSite *s) { return (RtLoc){s->file, s->line, s->col, s->via}; }

void rt_kernel_again(RtKernelError *e) {
  RtKernelError again = RT_NO_ERROR;
  again.index = -1;
  again.order = RT_KERNEL_AGAIN;
  rt_kernel_record(e, again);
}

void rt_kernel_fail(const RtKernelError *e, const RtSite *sites, RtLoc run) {
  const RtSite *s = &sites[e->site];
  if (!run.file && e->run > 0) /* the GPU: the run is known by its site */
    run = site_loc(&sites[e->run]);
  RtLoc loc = s->file ? site_loc(s) : run;
  /* a check in a scalar function a thunk called: in the context of that
     call, as the interpreters' (their calls set it); never undone either */
  static RtContext in_fn;
  if (s->user_fn && (e->check == RT_CHECK_SCALAR || e->check == RT_CHECK_INDEX || e->check == RT_CHECK_ARGUMENT)) {
    /* the call's site: a scalar check's 'len', a subscript's or an
       argument check's 'x' (an element function's, rt/kernel.h) */
    const RtSite *c = &sites[e->check == RT_CHECK_SCALAR ? e->len : (int64_t)e->x];
    in_fn = rt_call_context(context, s->user_fn, false, c->file ? site_loc(c) : run);
    context = &in_fn;
  }
  /* a check moved out of an inlined library call: in that call's context
     (the run's caller's, with the call); it fails, so it is never undone */
  static RtContext moved;
  if (s->lib_fn) {
    moved = rt_inlined_context(context, loc.via);
    moved.lib_fn = s->lib_fn;
    moved.lib_call = loc;
    context = &moved;
  }
  switch (e->check) {
  case RT_CHECK_SCALAR:
    rt_scalar_fail((RtOp)e->op, e->code, e->x, loc, s->prim);
  case RT_CHECK_INDEX:
    rt_index_error(loc, (RtOp)e->op, e->i, e->len);
  case RT_CHECK_SIZE:
    rt_fail(loc, "dist", "dist: negative length %lld", (long long)e->len);
  case RT_CHECK_NEGATIVE_LENGTH:
    rt_fail(loc, NULL, "negative length %d", e->i);
  case RT_CHECK_TOO_MANY:
    rt_fail(loc, NULL, "out of memory (could not allocate a vector of %lld elements)", (long long)e->len);
  case RT_CHECK_ARGUMENT:
    rt_check(e->code, loc, e->i, e->len, (int64_t)e->x);
    rt_fail(loc, NULL, "internal error: a check recorded that passes");
  default:
    rt_fail(loc, s->prim, "%s", s->message ? s->message : "error");
  }
}

/* ---- argument checks ---- */

static const char *const check_names[] = {"subscript", "lengths", "range", "counts", "append",
                                           "dist",      "rep",     "read",  "write"};

const char *rt_check_name(int kind) { return kind >= 0 && kind < RT_CHECK_KINDS ? check_names[kind] : "?"; }

int rt_check_lookup(const char *name) {
  for (int k = 0; k < RT_CHECK_KINDS; k++)
    if (strcmp(check_names[k], name) == 0)
      return k;
  return -1;
}

void rt_check_passing(int kind, int64_t *ops) {
  ops[0] = 0;
  ops[1] = kind == RT_CHECK_SUBSCRIPT || kind == RT_CHECK_REP || kind == RT_CHECK_READ || kind == RT_CHECK_WRITE ||
                   kind == RT_CHECK_RANGE
               ? 1
               : 0;
  ops[2] = 1;
}

void rt_check(int kind, RtLoc loc, int64_t a, int64_t b, int64_t c) {
  if (rt_check_ok(kind, a, b, c))
    return;
  /* the evaluator's words (eval/eval.c, eval/prims.c) */
  switch (kind) {
  case RT_CHECK_SUBSCRIPT:
    rt_fail(loc, NULL, "subscript %lld is out of range for a sequence of length %lld", (long long)a, (long long)b);
  case RT_CHECK_LENGTHS:
    rt_fail(loc, NULL, "length mismatch in an apply-to-each: the generators have lengths %lld and %lld",
            (long long)a, (long long)b);
  case RT_CHECK_RANGE:
    rt_fail(loc, NULL, "bad range [%lld:%lld:%lld]: the end must be >= the start and the stride positive",
            (long long)a, (long long)b, (long long)c);
  case RT_CHECK_APPEND:
    rt_fail(loc, NULL, "out of memory (could not allocate a vector of %lld elements)", (long long)(a + b));
  case RT_CHECK_DIST:
    rt_fail(loc, "dist", "dist: negative length %lld", (long long)a);
  case RT_CHECK_REP: /* lib-nesl's rep, which says where it was called */
    rt_fail(loc, NULL, "rep: bounds error: index %lld in a sequence of length %lld", (long long)a, (long long)b);
  case RT_CHECK_READ:
  case RT_CHECK_WRITE: /* the primitives' words (eval/prims.c) */
    rt_fail(loc, NULL, "%s: index %lld is out of range for a sequence of length %lld",
            kind == RT_CHECK_READ ? "->" : "<-", (long long)a, (long long)b);
  default:
    rt_fail(loc, "partition", "partition: the counts add up to %lld, but the sequence has length %lld", (long long)a,
            (long long)b);
  }
}

static int64_t operand_at(RtValue *v, int64_t k) { return v->type.kind == RT_SCALAR ? v->scalar.i : v->data.i[k]; }

void rt_check_all(int kind, RtLoc loc, RtValue **ops, int nops) {
  int64_t n = 1;
  for (int i = 0; i < nops; i++)
    if (ops[i]->type.kind == RT_VEC)
      n = ops[i]->len;
  for (int64_t k = 0; k < n; k++) {
    int64_t a = operand_at(ops[0], k), b = nops > 1 ? operand_at(ops[1], k) : 0,
            c = nops > 2 ? operand_at(ops[2], k) : 0;
    if (!rt_check_ok(kind, a, b, c))
      rt_check(kind, loc, a, b, c);
  }
}

void rt_undefined_error(RtLoc loc, const char *name) {
  rt_fail(loc, NULL, "'%s' has no value: its definition stopped with an error", name);
}

/* ---- the stack ---- */

static _Thread_local const char *stack_base;
static _Thread_local size_t stack_size;

void rt_set_stack(const void *base, size_t size) {
  stack_base = base;
  stack_size = size;
}

/* True when the running thread has used all but an eighth of the stack
   rt_set_stack described: the margin is for the operations and the
   error's own printing. */
bool rt_stack_exhausted(void) {
  char here;
  return stack_base && (size_t)(stack_base - &here) > stack_size - stack_size / 8;
}

void rt_check_stack(RtLoc call) {
  /* the evaluator stops deep recursion at the call, in the caller's
     context: so does everything else */
  if (rt_stack_exhausted())
    /* an executable's words as well as the flat interpreter's: not "the
       interpreter's" */
    rt_fail(call, NULL, "recursion too deep: the stack (%zu MiB) is exhausted", stack_size >> 20);
}

/* ---- executables ---- */

double rt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool rt_env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

enum { BIG_STACK = 1 << 30 }; /* NESL recursion is deep: the evaluator's */

typedef struct MainArgs {
  void (*program)(void);
} MainArgs;

static void *run_program(void *p) {
  char base = 0; /* only its address matters (gcc's -fPIC warns of it unset) */
  rt_set_stack(&base, BIG_STACK);
  ((MainArgs *)p)->program();
  return NULL;
}

void (*rt_exit_report)(void);

/* A vector freed is soon asked for again, of the same size (each call of
   a timed function, each level of a recursion).  glibc serves a request
   of more than 32 MB by a fresh mapping and gives it back at free, so
   that each use of a large vector paid a page fault for each of its
   pages: muladd of 10^7 doubles, whose result is 80 MB, took 23.9 ms on
   the CPU target against the baseline's 6.6 (2 cores).  The heap serves
   every size instead (no mappings), and keeps what is freed (no trim). */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1); /* the program's thread too: another arena maps its large blocks whatever M_MMAP_MAX */
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

int rt_main(char **argv, void (*program)(void)) {
  /* OpenMP's threads wait for work by spinning unless told otherwise: on
     a machine busy with other work that turns a program of many small
     kernels 40 times slower (alg_mandelbrot, 2 cores).  Waiting passively
     costs little when the machine is idle.  libgomp reads the setting
     before main, so the program starts itself again with it. */
  if (argv && argv[0] && !getenv("OMP_WAIT_POLICY")) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    execv("/proc/self/exe", argv);
  }
  keep_freed_memory();
  const char *bad;
  size_t limit = rt_memory_limit(&bad);
  if (bad) {
    fprintf(stderr, "error: %s\n", bad);
    return 1;
  }
  rt_set_memory_limit(limit);
  MainArgs args = {program};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, BIG_STACK) == 0 &&
      pthread_create(&thread, &attr, run_program, &args) == 0) {
    pthread_join(thread, NULL);
  } else {
    char base = 0;
    rt_set_stack(&base, 8 << 20); /* no thread: the ordinary stack */
    program();
  }
  fflush(rt_output());
  if (rt_exit_report)
    rt_exit_report();
  else if (rt_env_on("NESSIE_PROFILE"))
    fprintf(stderr, "profile: NESSIE_PROFILE profiles executables of the GPU target (--target=cuda) only\n");
  if (rt_env_on("NESSIE_STATS"))
    fprintf(stderr, "stats: %llu kernel launches, %llu host synchronizations, %llu bytes allocated\n",
            (unsigned long long)rt_stats.kernels, (unsigned long long)rt_stats.syncs,
            (unsigned long long)rt_stats.bytes);
  return failed ? 1 : 0;
}
