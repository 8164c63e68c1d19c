/*
 * repl.c: the NESL read-eval-print loop (`nessie`, `nessie -i FILE`).
 *
 * Lines are collected until they make whole statements: the text must end
 * with a `;` or `$` (outside strings, characters and comments), and the
 * parser must not find its end inside a construct (parse_input_incomplete:
 * `function f(n) =` then `let a = n + 1;` asks for another line).  The
 * statements are then checked and run one by one, printing exactly what
 * `--interp` prints; an expression statement binds `it`.  Commands begin
 * with a colon; the stage commands (`:ast`, `:typed`, ...) and the
 * engines of `:set interp` come from the pipeline's table (pipeline.c),
 * and so does :help.  `:pdg` alone writes files instead of printing:
 * a graph is for looking at, so it goes to nessie-pdg-N.dot in the
 * current directory and, where graphviz's dot is found, nessie-pdg-N.png.
 * Those are new files, always: a name already taken (by an earlier
 * session's graph, a file of the user's, a link) is passed over.
 *
 * No error ends the loop: compile errors are reported and the statement
 * dropped, run-time errors print `error:`, and a use of a definition that
 * failed says so.  Ctrl-C cancels the line being typed or the statement
 * running (the evaluator polls interrupt_pending()), keeping every
 * definition; Ctrl-D on an empty line ends the session, and at a
 * continuation prompt abandons the unfinished statement.
 *
 * Every top-level value lives in the evaluator's store, whichever engine
 * computed it: the flat and λcu engines compile each statement alone, the
 * values of earlier statements read through __global_value
 * (MonoExternals) and a binding's value handed back through
 * __keep_value (eval.h).
 *
 * On a terminal, libedit gives line editing and history
 * (~/.nessie_history); otherwise lines are read plainly and no prompt is
 * shown, so that the REPL can be driven through a pipe.
 *
 * Messages name an input typed on a terminal `<input N>` (the Nth input
 * of the session, its lines counted from 1); through a pipe, where the
 * input is a file in all but name (`nessie < prog.nesl`), they name it
 * `<stdin>` and count its lines as a compiler does (gcc's `<stdin>:2:1`):
 * each statement is a Source of its own whose first line is numbered as
 * it came (Source.lines_before), and a command's expression keeps its
 * column in the line.
 */
#include <editline/readline.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../frontend/frontend.h"
#include "../frontend/types.h"
#include "driver.h"

extern char **environ;

typedef struct Repl {
  TypeEnv *env;
  Eval *ev;
  const EngineInfo *engine; /* :set interp */
  bool interactive; /* a terminal: prompts and line editing */
  bool stats;       /* :set stats on */
  EvalCostMode cost; /* :set cost on|functions: the interpreter's cost lines */
  bool check_ir;    /* --check-ir: in the engines and the stage commands */
  bool no_fusion;   /* -O0, :set -O0: λcu is not simplified or fused */
  bool quit;
  int chunks;       /* numbers the inputs, for diagnostics' file names */
  int lines_read;   /* through a pipe: the lines read so far */
  int pending_line; /* through a pipe: the lines before the statement read */
  int args_col;     /* through a pipe: the column before a command's argument */
  int pdg_files;    /* the last N :pdg tried for nessie-pdg-N.dot */
  char *history_file;
  MonoExternals externals; /* earlier values, for the flat and λcu engines */
  Def *global_value;       /* lib-nesl's __global_value and __keep_value */
  Def *keep_value;
} Repl;

/* ---- Ctrl-C ---- */

static void on_sigint(int sig) {
  (void)sig;
  interrupt_request();
}

/* Installs the SIGINT handler.  While a line is read ('reading'), a
   system call it interrupts fails with EINTR instead of restarting, so
   that readline() returns and the line is abandoned; while a statement
   runs, system calls restart and the evaluator sees the flag. */
static void catch_sigint(bool reading) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = reading ? 0 : SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
}

/* ---- reading ---- */

typedef enum ReadResult {
  READ_LINE,
  READ_EOF,
  READ_INTERRUPTED, /* Ctrl-C while the line was typed */
} ReadResult;

static ReadResult read_line(Repl *r, const char *prompt, char **out) {
  if (r->interactive) {
    interrupt_clear();
    catch_sigint(true);
    char *line = readline(prompt);
    catch_sigint(false);
    if (!line)
      return interrupt_pending() ? READ_INTERRUPTED : READ_EOF;
    *out = xstrdup(line);
    free(line);
    return READ_LINE;
  }
  Buf b = {0};
  int c;
  while ((c = getchar()) != EOF && c != '\n')
    buf_putc(&b, (char)c);
  if (c == EOF && b.len == 0)
    return READ_EOF;
  r->lines_read++;
  *out = buf_str(&b);
  return READ_LINE;
}

/* True if 'text' may end a statement: its last significant character is
   a `;` or `$` outside strings, character literals and comments.  Only a
   first filter: the parser decides (parse_input_incomplete). */
static bool ends_with_terminator(const char *text) {
  bool in_string = false, in_comment = false;
  char last = 0;
  for (const char *p = text; *p; p++) {
    if (in_comment) {
      if (*p == '%')
        in_comment = false;
      continue;
    }
    if (in_string) {
      if (*p == '\\' && p[1])
        p++; /* the escaped character, whatever it is (the lexer's rule) */
      else if (*p == '"')
        in_string = false;
      continue;
    }
    switch (*p) {
    case '%':
      in_comment = true;
      break;
    case '"':
      in_string = true;
      last = '"';
      break;
    case '`':
      if (p[1])
        p++;
      last = '`';
      break;
    case ' ':
    case '\t':
    case '\n':
    case '\r':
      break;
    default:
      last = *p;
    }
  }
  return !in_string && !in_comment && (last == ';' || last == '$');
}

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

static bool blank(const char *s) { return *skip_blanks(s) == '\0'; }

/* True if 'text' holds nothing but blanks and whole comments: no
   statement has begun, and a `:` line after it is a command. */
static bool no_statement(const char *text) {
  for (const char *p = text; *p; p++) {
    if (*p == '%') {
      p = strchr(p + 1, '%');
      if (!p)
        return false; /* a comment still open */
    } else if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      return false;
    }
  }
  return true;
}

/* ---- running ---- */

/* The Source of an input 'text' whose first line comes after
   'lines_before' lines of standard input (counted only through a pipe:
   see the top of this file). */
static Source *chunk_source(Repl *r, const char *text, int lines_before) {
  r->chunks++;
  if (r->interactive)
    return source_from_string(xprintf("<input %d>", r->chunks), text);
  Source *src = source_from_string("<stdin>", text);
  src->lines_before = lines_before;
  return src;
}

/* The expression standing for a read of 'var', a value an earlier input
   defined: __global_value(k), typed as 'var' (MonoExternals). */
static Expr *read_external(void *ctx, Expr *var) {
  Repl *r = ctx;
  Expr *k = ast_int(var->loc, ev_export_global(var->u.ref.def));
  k->type = type_int;
  Expr *call = ast_call(var->loc, "__global_value", k);
  call->u.ref.def = r->global_value;
  call->u.ref.inst = type_fun(type_int, var->type);
  call->type = var->type;
  return call;
}

static Def *current_external(void *ctx, Def *d) {
  (void)ctx;
  return ev_current_def(d);
}

/* Binding 'top' with its value wrapped in __keep_value(slot, ...), so
   that the flat and λcu engines hand the value back to the store. */
static TopLevel *keeping(Repl *r, TopLevel *top, int slot) {
  Expr *k = ast_int(top->loc, slot);
  k->type = type_int;
  Expr *arg = ast_pair(top->loc, k, top->body);
  arg->type = type_pair(type_int, top->type);
  Expr *call = ast_call(top->loc, "__keep_value", arg);
  call->u.ref.def = r->keep_value;
  call->u.ref.inst = type_fun(arg->type, top->type);
  call->type = top->type;
  TopLevel *t = NEW(TopLevel);
  *t = *top;
  t->body = call;
  return t;
}

/* Runs one checked statement with the engine chosen; false if it stopped
   with a run-time error. */
static bool run_top(Repl *r, TopLevel *top) {
  long errors = diag_runtime_errors();
  Program *prog = NEW(Program);
  int slot = -1;
  bool evaluator = strcmp(r->engine->name, "eval") == 0;
  if (!evaluator && top->kind == TOP_BIND) {
    slot = ev_keep_slot();
    vec_push(&prog->tops, keeping(r, top, slot));
  } else {
    vec_push(&prog->tops, top);
  }
  if (!evaluator)
    ev_note_definition(top);
  Pipeline pl = {.env = r->env,
                 .prog = prog,
                 .check_ir = r->check_ir,
                 .no_fusion = r->no_fusion,
                 .cost = r->cost,
                 .externals = &r->externals};
  pl.done = pipeline_stage_index(pipeline_stage("typed")) + 1;
  diag_reset();
  if (!pipeline_run_to(&pl, pipeline_stage(r->engine->stage)))
    return false;
  Buf stats = {0};
  bool count = r->stats && top->kind == TOP_BIND; /* a definition runs nothing */
  r->engine->run(&pl, r->ev, stdout, count ? &stats : NULL);
  if (!evaluator)
    ev_note_binding(top);
  fflush(stdout);
  if (count)
    printf("%s\n", buf_str(&stats));
  if (slot >= 0) {
    Value v;
    if (!ev_take_kept(slot, &v)) {
      ev_keep_replaced(top);
      return false;
    }
    ev_define_top(top, v);
  }
  return diag_runtime_errors() == errors;
}

/* After a failed `it = e;`: `it` means what it meant before. */
static void forget_bound(Repl *r, TopLevel *top) {
  for (int i = top->bound.len - 1; i >= 0; i--)
    tc_forget(r->env, top->bound.data[i]);
}

/* Parses, checks and runs the statements of 'src' in order.  With syntax
   errors nothing runs; a statement with a type error is skipped; Ctrl-C
   stops the statement running and the rest. */
static void run_source(Repl *r, Source *src) {
  diag_reset();
  Program *prog = parse_program(src, false);
  if (diag_count())
    return;
  for (int i = 0; i < prog->tops.len && !interrupt_pending(); i++) {
    TopLevel *top = prog->tops.data[i];
    bool it = ast_bind_it(top);
    diag_reset();
    bool ok = tc_check_top(r->env, top) && run_top(r, top);
    if (!ok && it)
      forget_bound(r, top);
  }
  fflush(stdout);
}

static void load_file(Repl *r, const char *path) {
  Source *src = source_from_file(path);
  if (!src) {
    fprintf(stderr, "error: cannot read '%s': %s\n", path, strerror(errno));
    return;
  }
  /* like `nessie --interp`: a file with compile errors does not run, and
     leaves nothing defined */
  diag_reset();
  Program *prog = parse_program(src, false);
  if (diag_count())
    return;
  for (int i = 0; i < prog->tops.len; i++) {
    ast_bind_it(prog->tops.data[i]);
    tc_check_top(r->env, prog->tops.data[i]);
  }
  if (diag_count()) {
    for (int i = prog->tops.len - 1; i >= 0; i--) {
      TopLevel *top = prog->tops.data[i];
      if (top->def)
        tc_forget(r->env, top->def);
      forget_bound(r, top);
    }
    fprintf(stderr, "error: '%s' has errors; nothing of it was loaded\n", path);
    return;
  }
  for (int i = 0; i < prog->tops.len && !interrupt_pending(); i++)
    run_top(r, prog->tops.data[i]);
  fflush(stdout);
}

/* ---- commands ---- */

/* The statement of a command: the text with a `;` added if it has no
   terminator; NULL after a syntax error (reported). */
static Program *parse_command_statement(Repl *r, const char *text, Source **src) {
  char *stmt = ends_with_terminator(text) ? xstrdup(text) : xprintf("%s;", text);
  /* through a pipe, blanks where the command's name was: the columns
     are the line's */
  if (!r->interactive)
    stmt = xprintf("%*s%s", r->args_col, "", stmt);
  diag_reset();
  *src = chunk_source(r, stmt, r->lines_read - 1);
  Program *prog = parse_program(*src, false);
  if (diag_count())
    return NULL;
  return prog;
}

static bool name_char(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* The name 'text' is, lowercased as NESL reads names, if it is one
   (blanks and a final `;` allowed); NULL otherwise. */
static const char *single_name(const char *text) {
  const char *p = skip_blanks(text);
  size_t n = 0;
  while (name_char(p[n], n == 0))
    n++;
  const char *rest = skip_blanks(p + n);
  if (*rest == ';')
    rest++;
  if (n == 0 || !blank(rest))
    return NULL;
  char *name = xstrndup(p, n);
  for (char *c = name; *c; c++)
    if (*c >= 'A' && *c <= 'Z')
      *c = (char)(*c - 'A' + 'a');
  return intern(name);
}

/* :type EXPR: its type, without running it; :type NAME of a function or
   a datatype's constructor: its type scheme. */
static void command_type(Repl *r, const char *text) {
  if (blank(text)) {
    fprintf(stderr, "error: :type needs an expression or a function's name, e.g. :type sqrt or :type [1, 2] ++ [3]\n");
    return;
  }
  const char *name = single_name(text);
  Def *d = name ? tc_lookup(r->env, name) : NULL;
  if (d && d->kind != DEF_VALUE) {
    if (d->broken)
      fprintf(stderr, "error: '%s' cannot be used: its definition did not compile\n", name);
    else
      printf("%s : %s\n", name, type_scheme_to_string(d->type));
    return;
  }
  Source *src;
  Program *prog = parse_command_statement(r, text, &src);
  if (!prog)
    return;
  for (int i = 0; i < prog->tops.len; i++) {
    TopLevel *top = prog->tops.data[i];
    if (top->kind != TOP_EXPR) {
      fprintf(stderr, "error: :type takes an expression or a function's name; to define, type the definition itself\n");
      return;
    }
    if (tc_check_top(r->env, top))
      printf("%s : %s\n", ast_expr_to_string(top->body), type_value_to_string(top->type));
  }
}

/* Runs `dot -Tpng 'dot_file'` without a shell, its output going to the
   open file 'png_fd', and waits.  dot writes no file itself: a path it
   opened could be a link put there meanwhile.  Returns 1 if it made the
   picture, 0 if dot is not on the PATH, -1 if it failed (dot's own
   messages on stderr say why). */
static int render_png(const char *dot_file, int png_fd) {
  char *argv[] = {"dot", "-Tpng", (char *)dot_file, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, png_fd, STDOUT_FILENO);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == ENOENT)
    return 0;
  if (rc != 0) {
    fprintf(stderr, "error: :pdg: cannot run dot: %s\n", strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : -1;
}

/* Makes the file 'path' for writing; fails (EEXIST) if anything has that
   name, a link included, which O_EXCL does not follow. */
static int create_new(const char *path) {
  return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

/* Writes all of 'text' to 'fd' and closes it; false with errno set. */
static bool write_all(int fd, const char *text) {
  size_t n = strlen(text);
  while (n > 0) {
    ssize_t w = write(fd, text, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0) {
      int err = errno;
      close(fd);
      errno = err;
      return false;
    }
    text += w;
    n -= (size_t)w;
  }
  return close(fd) == 0;
}

/* :pdg EXPR: fusion's graphs of the statement (the "pdg" stage's text)
   written to nessie-pdg-N.dot in the current directory and drawn to
   nessie-pdg-N.png where graphviz's dot is on the PATH; the paths are
   printed.  N counts the session's graphs from 1, passing over every N
   for which either name is taken: the REPL replaces no file, not even
   one of its own.  At -O0, or when no block of the statement runs two
   kernels (fusion then weighs nothing), there is no graph to draw, and
   it says so. */
static void write_pdg(Repl *r, const Pipeline *pl) {
  if (pl->no_fusion) {
    printf("fusion is off (-O0): no program-dependence graphs (:set -O1 turns it on)\n");
    return;
  }
  if (pl->fusion.regions.len == 0) {
    printf("no program-dependence graph: no block of this statement runs two kernels or more, so fusion "
           "has nothing to weigh (no file written)\n");
    return;
  }
  const char *dot_file = NULL, *png = NULL;
  int dot_fd = -1, png_fd = -1;
  for (int tries = 0; dot_fd < 0 && tries < 10000; tries++) {
    int n = ++r->pdg_files;
    dot_file = xprintf("nessie-pdg-%d.dot", n);
    png = xprintf("nessie-pdg-%d.png", n);
    dot_fd = create_new(dot_file);
    if (dot_fd < 0 && errno != EEXIST)
      break;
    if (dot_fd < 0)
      continue;
    png_fd = create_new(png);
    if (png_fd < 0) {
      int err = errno;
      close(dot_fd);
      unlink(dot_file);
      dot_fd = -1;
      errno = err;
      if (err != EEXIST)
        break;
    }
  }
  if (dot_fd < 0) {
    fprintf(stderr, "error: :pdg: cannot make '%s': %s\n", dot_file, errno == EEXIST ? "every name is taken" : strerror(errno));
    return;
  }
  if (!write_all(dot_fd, pl->pdg)) {
    fprintf(stderr, "error: :pdg: cannot write '%s': %s\n", dot_file, strerror(errno));
    unlink(dot_file);
    close(png_fd);
    unlink(png);
    return;
  }
  printf("wrote %s\n", dot_file);
  fflush(stdout);
  int drawn = render_png(dot_file, png_fd);
  close(png_fd);
  if (drawn != 1)
    unlink(png); /* made empty for dot, which did not fill it */
  switch (drawn) {
  case 1:
    printf("wrote %s\n", png);
    break;
  case 0:
    printf("no PNG: graphviz's dot is not on the PATH (`dot -Tpng %s` draws it)\n", dot_file);
    break;
  default:
    fprintf(stderr, "error: :pdg: dot could not draw '%s'\n", dot_file);
  }
}

/* :STAGE EXPR (the table's stages): the statement after that stage.  The
   REPL's environment is used, so a function shown by :typed (and the
   later stages) is also defined; a value is not, as it never ran.  :flat
   shows the statement with every function it needs; :pdg writes files
   (write_pdg). */
static void command_stage(Repl *r, const StageInfo *stage, const char *text) {
  Source *src;
  Program *prog = parse_command_statement(r, text, &src);
  if (!prog)
    return;
  Pipeline pl = {.src = src,
                 .env = r->env,
                 .prog = prog,
                 .check_ir = r->check_ir,
                 .no_fusion = r->no_fusion,
                 .cost = r->cost, /* :flat shows the FS_COST statements */
                 .externals = &r->externals};
  pl.done = 1; /* parsed */
  bool ok = pipeline_run_to(&pl, stage);
  if (ok && strcmp(stage->name, "pdg") == 0)
    write_pdg(r, &pl);
  else if (ok)
    stage->dump(stdout, &pl);
  for (int i = prog->tops.len - 1; i >= 0; i--)
    forget_bound(r, prog->tops.data[i]);
}

/* :cost EXPR: the work and depth of EXPR (docs/cost.md) by the
   interpreter that runs the statements (:set interp), its value not
   printed nor bound. */
static void command_cost(Repl *r, const char *text) {
  Source *src;
  Program *prog = parse_command_statement(r, text, &src);
  if (!prog)
    return;
  for (int i = 0; i < prog->tops.len; i++) {
    TopLevel *top = prog->tops.data[i];
    if (top->kind != TOP_EXPR) {
      fprintf(stderr, "error: :cost takes an expression; to define, type the definition itself\n");
      return;
    }
    if (!tc_check_top(r->env, top))
      return;
    if (strcmp(r->engine->name, "eval") == 0) {
      EvalCost c;
      if (ev_cost_of(r->ev, top, &c))
        printf("cost: work %llu, depth %llu\n", (unsigned long long)c.work, (unsigned long long)c.depth);
      continue;
    }
    /* flattened for the cost model, run without printing the value: the
       interpreter prints the cost line itself */
    Program *one = NEW(Program);
    vec_push(&one->tops, top);
    Pipeline pl = {.env = r->env,
                   .prog = one,
                   .check_ir = r->check_ir,
                   .no_fusion = r->no_fusion,
                   .cost = EV_COST_STATEMENTS,
                   .quiet = true,
                   .externals = &r->externals};
    pl.done = pipeline_stage_index(pipeline_stage("typed")) + 1;
    diag_reset();
    if (!pipeline_run_to(&pl, pipeline_stage(r->engine->stage)))
      return;
    r->engine->run(&pl, r->ev, stdout, NULL);
    fflush(stdout);
  }
}

static void command_set(Repl *r, const char *args) {
  char name[64] = "", value[64] = "";
  int n = sscanf(args, "%63s %63s", name, value);
  if (n == 1 && (strcmp(name, "-O0") == 0 || strcmp(name, "-O1") == 0)) {
    r->no_fusion = name[2] == '0';
    printf("%s: %s\n", name, r->no_fusion ? "no simplification or fusion of λcu" : "λcu simplified and fused");
    return;
  }
  if (n == 2 && strcmp(name, "stats") == 0 && (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)) {
    r->stats = strcmp(value, "on") == 0;
    printf("stats %s\n", value);
    return;
  }
  if (n == 2 && strcmp(name, "cost") == 0 &&
      (strcmp(value, "on") == 0 || strcmp(value, "off") == 0 || strcmp(value, "functions") == 0)) {
    EvalCostMode mode = value[1] == 'n' ? EV_COST_STATEMENTS : value[1] == 'u' ? EV_COST_FUNCTIONS : EV_COST_OFF;
    if (mode == EV_COST_FUNCTIONS && strcmp(r->engine->name, "eval") != 0) {
      fprintf(stderr, "error: :set cost functions is the evaluator's: :set interp eval first\n");
      return;
    }
    r->cost = mode;
    printf("cost %s\n", value);
    return;
  }
  if (n == 2 && strcmp(name, "interp") == 0) {
    const EngineInfo *e = pipeline_engine(value);
    if (!e) {
      fprintf(stderr, "error: unknown interpreter '%s' (expected %s)\n", diag_quote(value, strlen(value)),
              pipeline_engine_names());
      return;
    }
    r->engine = e;
    printf("interp %s\n", e->name);
    if (r->cost == EV_COST_FUNCTIONS && strcmp(e->name, "eval") != 0) {
      r->cost = EV_COST_STATEMENTS;
      printf("cost on (the evaluator's alone counts functions)\n");
    }
    return;
  }
  fprintf(stderr, "error: usage: :set stats on|off, :set cost on|functions|off, :set -O0|-O1, or :set interp %s\n",
          pipeline_engine_names());
}

/* :doc NAME: a function's type and documentation string */
static void command_doc(Repl *r, const char *name) {
  char *text = tc_describe(r->env, name);
  if (text)
    fputs(text, stdout);
  else
    fprintf(stderr, "error: :doc: no function named '%s'\n", name);
}

static void command_help(Repl *r) {
  printf("Type NESL statements ending with ';' or '$'; a statement may span lines, and\n"
         "an expression's value is bound to 'it'.  Ctrl-C cancels the line or the\n"
         "statement running; Ctrl-D on an empty line leaves.\n"
         "Commands:\n"
         "  :help            this list\n"
         "  :load FILE       run the statements of FILE\n"
         "  :type EXPR       the type of EXPR, without running it; :type NAME, of a function\n"
         "  :doc NAME        the type and documentation string of function NAME\n"
         "  :STAGE EXPR      EXPR (or a statement) after a stage of the compiler; STAGE is:\n");
  for (int i = 0; i < pipeline_stage_count; i++) {
    printf("                     %-6s ", pipeline_stages[i].name);
    if (strcmp(pipeline_stages[i].name, "pdg") == 0)
      /* the one stage command that writes files (write_pdg) */
      fputs("fusion's program-dependence graphs, written to\n"
            "                            nessie-pdg-N.dot in the current directory and,\n"
            "                            with graphviz's dot, drawn to nessie-pdg-N.png\n"
            "                            (new files: a name taken is passed over)",
            stdout);
    else
      print_indented(stdout, pipeline_stages[i].help, 28);
    putchar('\n');
  }
  printf("  :cost EXPR       the work and depth of EXPR in NESL's cost model\n"
         "                   (docs/cost.md), by the interpreter (:set interp)\n"
         "  :set stats on    after each statement, print what its interpreter counted\n"
         "                   (:set stats off to stop)\n"
         "  :set cost on     after each statement, print its work and depth (any\n"
         "                   interpreter; :set cost functions, with eval, adds each\n"
         "                   user function's calls, work and largest depth;\n"
         "                   :set cost off)\n"
         "  :set -O0         no simplification or fusion of λcu (:set -O1, the default,\n"
         "                   to turn them on again): the stages fused, c, cuda and the\n"
         "                   lcu interpreter see λcu as lowering made it\n"
         "  :set interp ENGINE  the interpreter that runs the statements (now %s):\n",
         r->engine->name);
  for (int i = 0; i < pipeline_engine_count; i++) {
    printf("                     %-6s ", pipeline_engines[i].name);
    print_indented(stdout, pipeline_engines[i].help, 28);
    putchar('\n');
  }
  printf("  :quit            leave (end of input does too)\n");
}

/* Runs the command in 'line' (which starts with ':'). */
static void command(Repl *r, const char *line) {
  const char *p = line + 1;
  size_t n = strcspn(p, " \t");
  char *name = xstrndup(p, n);
  const char *args = skip_blanks(p + n);
  r->args_col += (int)(args - line);
  const StageInfo *stage = pipeline_stage(name);
  interrupt_clear();
  diag_reset();
  if (strcmp(name, "quit") == 0 || strcmp(name, "q") == 0)
    r->quit = true;
  else if (strcmp(name, "help") == 0 || strcmp(name, "h") == 0)
    command_help(r);
  else if (strcmp(name, "load") == 0 && *args)
    load_file(r, args);
  else if (strcmp(name, "type") == 0 || strcmp(name, "t") == 0)
    command_type(r, args);
  else if (strcmp(name, "doc") == 0 && *args)
    command_doc(r, args);
  else if (strcmp(name, "cost") == 0 && *args)
    command_cost(r, args);
  else if (stage && *args)
    command_stage(r, stage, args);
  else if (strcmp(name, "set") == 0)
    command_set(r, args);
  else
    fprintf(stderr, "error: unknown command or missing argument: '%s' (:help lists the commands)\n",
            diag_quote(line, strlen(line)));
  fflush(stdout);
}

/* ---- the loop ---- */

/* Runs 'fn(r, text)' with a diagnostics handler under it, so that an
   error that abandons a compilation where no pass catches it (memory
   running out while parsing or flattening: diag_out_of_memory) abandons
   this input, not the session. */
static void guarded(Repl *r, void (*fn)(Repl *, const char *), const char *text) {
  jmp_buf jb;
  int depth = diag_handler_depth();
  if (setjmp(jb)) {
    diag_set_handler_depth(depth);
    fprintf(stderr, "error: the input was abandoned\n");
    return;
  }
  diag_push_handler(&jb);
  fn(r, text);
  diag_set_handler_depth(depth);
}

static void run_text(Repl *r, const char *text) { run_source(r, chunk_source(r, text, r->pending_line)); }

typedef struct ReplJob {
  Repl *repl;
  const char *file;
} ReplJob;

/* The input ended (Ctrl-D, or the end of a piped file) inside the
   statement in 'pending': report what the parser says of it. */
static void unfinished(Repl *r, Buf *pending) {
  if (blank(buf_str(pending))) {
    pending->len = 0;
    return;
  }
  if (r->interactive)
    putchar('\n'); /* after the prompt that Ctrl-D left the cursor on */
  fflush(stdout);
  Source *src = chunk_source(r, buf_str(pending), r->pending_line);
  diag_reset();
  parse_program(src, false);
  if (diag_count() == 0)
    fprintf(stderr, "error: the input ended inside a statement (a ';' is missing)\n");
  pending->len = 0;
}

static void *repl_loop(void *arg) {
  ReplJob *job = arg;
  Repl *r = job->repl;
  if (r->interactive) {
    /* SIGINT comes to this thread, which runs the statements (main()
       blocked it in the others) */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    catch_sigint(false);
  }
  r->env = tc_new_env();
  tc_set_report_broken(r->env, true);
  r->ev = ev_new(r->env, stdout);
  ev_init_library(r->ev, tc_library_program(r->env));
  r->global_value = tc_lookup(r->env, "__global_value");
  r->keep_value = tc_lookup(r->env, "__keep_value");
  if (!r->global_value || !r->keep_value)
    die("the basis library lacks __global_value or __keep_value");
  r->externals = (MonoExternals){r, read_external, current_external};
  if (r->interactive)
    printf("nessie: NESL to CUDA.  Statements end with ';'.  :help lists the commands.\n");
  if (job->file)
    guarded(r, load_file, job->file);
  Buf pending = {0};
  while (!r->quit) {
    char *line = NULL;
    ReadResult got = read_line(r, pending.len ? "... " : "nesl> ", &line);
    if (got == READ_INTERRUPTED) {
      /* the line typed so far and any earlier ones of the statement */
      printf("^C\n");
      pending.len = 0;
      continue;
    }
    if (got == READ_EOF) {
      if (pending.len && !blank(buf_str(&pending))) {
        unfinished(r, &pending);
        if (r->interactive)
          continue; /* Ctrl-D at a continuation prompt abandons the statement */
      }
      if (r->interactive)
        putchar('\n');
      break;
    }
    if (pending.len == 0 && skip_blanks(line)[0] == ':') {
      if (r->interactive)
        add_history(line);
      r->args_col = (int)(skip_blanks(line) - line); /* command() adds its name's */
      guarded(r, command, skip_blanks(line));
      continue;
    }
    if (pending.len)
      buf_putc(&pending, '\n');
    else
      r->pending_line = r->lines_read - 1;
    buf_puts(&pending, line);
    char *text = buf_str(&pending);
    if (no_statement(text)) {
      pending.len = 0;
      continue;
    }
    if (!ends_with_terminator(text))
      continue;
    /* a probe under the next input's name: the numbering does not move */
    Source *probe = source_from_string(r->interactive ? xprintf("<input %d>", r->chunks + 1) : "<stdin>", text);
    probe->lines_before = r->interactive ? 0 : r->pending_line;
    if (parse_input_incomplete(probe))
      continue;
    text = xstrdup(text);
    pending.len = 0;
    if (r->interactive)
      add_history(text);
    interrupt_clear();
    long errors = diag_runtime_errors();
    guarded(r, run_text, text);
    interrupt_clear();
    /* a statement stopped (Ctrl-C, out of memory, any run-time error):
       what it held is garbage, and the collector's heap gives its pages
       back, or the session would keep them to its end (3.7 GB after a
       Ctrl-C, issue 38); a statement that ends well leaves its garbage
       to the collector, whose heap it will likely fill again */
    if (diag_runtime_errors() > errors)
      alloc_give_back();
  }
  fflush(stdout);
  return NULL;
}

int repl_run(const char *file, bool stats, bool check_ir, bool no_fusion) {
  Repl *r = NEW(Repl);
  r->interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  r->stats = stats;
  r->check_ir = check_ir;
  r->no_fusion = no_fusion;
  r->engine = pipeline_engine("eval");
  if (r->interactive) {
    rl_readline_name = "nessie";
    /* libedit must not catch SIGINT itself: ours makes readline() return
       (catch_sigint) */
    rl_catch_signals = 0;
    using_history();
    const char *home = getenv("HOME");
    if (home) {
      r->history_file = xprintf("%s/.nessie_history", home);
      read_history(r->history_file);
    }
    /* only the REPL's thread takes SIGINT (see repl_loop) */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
  }
  ReplJob job = {r, file};
  run_on_big_stack(repl_loop, &job);
  if (r->interactive && r->history_file)
    write_history(r->history_file);
  return 0;
}
