/*
 * repl.c: the NESL read-eval-print loop (`nessie`, `nessie -i FILE`).
 *
 * Lines are collected until they end a statement (a `;` or `$` outside
 * strings, characters and comments), then the statements are parsed,
 * checked and run one by one, printing exactly what `--interp` prints.
 * Commands begin with a colon (:help lists them); the stage commands
 * print one expression's IR.  No error ends the loop: compile errors are
 * reported and the statement is dropped, run-time errors print `error:`.
 * On a terminal, libedit gives line editing and history
 * (~/.nessie_history); otherwise lines are read plainly and no prompt is
 * shown, so that the REPL can be driven through a pipe.
 */
#include <editline/readline.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../eval/eval.h"
#include "../frontend/frontend.h"
#include "../flatten/flatten.h"
#include "../lcu/lcu.h"
#include "../frontend/types.h"
#include "driver.h"

typedef struct Repl {
  TypeEnv *env;
  Eval *ev;
  bool interactive; /* a terminal: prompts and line editing */
  bool stats;       /* :set stats on */
  bool quit;
  int chunks;       /* numbers the inputs, for diagnostics' file names */
  char *history_file;
} Repl;

/* ---- reading ---- */

static char *read_line(Repl *r, const char *prompt) {
  if (r->interactive) {
    char *line = readline(prompt);
    if (!line)
      return NULL;
    char *copy = xstrdup(line);
    free(line);
    return copy;
  }
  Buf b = {0};
  int c;
  while ((c = getchar()) != EOF && c != '\n')
    buf_putc(&b, (char)c);
  if (c == EOF && b.len == 0)
    return NULL;
  return buf_str(&b);
}

/* True if 'text' ends a statement: its last significant character is a
   `;` or `$` outside strings, character literals and comments. */
static bool statement_complete(const char *text) {
  bool in_string = false, in_comment = false;
  char last = 0;
  for (const char *p = text; *p; p++) {
    if (in_comment) {
      if (*p == '%')
        in_comment = false;
      continue;
    }
    if (in_string) {
      if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
        p++;
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

/* ---- running ---- */

static Source *chunk_source(Repl *r, const char *text) {
  return source_from_string(xprintf("<input %d>", ++r->chunks), text);
}

/* Parses, checks and runs the statements of 'src' in order.  With syntax
   errors nothing runs; a statement with a type error is skipped. */
static void run_source(Repl *r, Source *src) {
  diag_reset();
  Program *prog = parse_program(src, false);
  if (diag_count())
    return;
  for (int i = 0; i < prog->tops.len; i++) {
    TopLevel *top = prog->tops.data[i];
    if (!tc_check_top(r->env, top))
      continue;
    ev_run_top(r->ev, top);
  }
  if (r->stats) {
    EvalStats st = ev_stats(r->ev);
    printf("stats: %llu calls, %llu primitive calls so far\n", (unsigned long long)st.calls,
           (unsigned long long)st.prim_calls);
  }
  fflush(stdout);
}

static void load_file(Repl *r, const char *path) {
  Source *src = source_from_file(path);
  if (!src) {
    fprintf(stderr, "error: cannot read '%s'\n", path);
    return;
  }
  /* like `nessie --interp`: a file with compile errors does not run */
  diag_reset();
  Program *prog = parse_program(src, false);
  if (diag_count())
    return;
  for (int i = 0; i < prog->tops.len; i++)
    tc_check_top(r->env, prog->tops.data[i]);
  if (diag_count())
    return;
  for (int i = 0; i < prog->tops.len; i++)
    ev_run_top(r->ev, prog->tops.data[i]);
  fflush(stdout);
}

/* The statement of a stage command: the text with a `;` added if it
   has no terminator. */
static Program *parse_command_statement(Repl *r, const char *text) {
  char *stmt = statement_complete(text) ? xstrdup(text) : xprintf("%s;", text);
  diag_reset();
  Program *prog = parse_program(chunk_source(r, stmt), false);
  if (diag_count())
    return NULL;
  return prog;
}

/* :type EXPR: its type, without running it */
static void command_type(Repl *r, const char *text) {
  Program *prog = parse_command_statement(r, text);
  if (!prog)
    return;
  for (int i = 0; i < prog->tops.len; i++) {
    TopLevel *top = prog->tops.data[i];
    if (top->kind != TOP_EXPR) {
      fprintf(stderr, "error: :type takes an expression; to define, type the definition itself\n");
      return;
    }
    if (tc_check_top(r->env, top))
      printf("%s : %s\n", ast_expr_to_string(top->body), type_value_to_string(top->type));
  }
}

/* :ast, :typed, :mono, :flat, :lcu: the statement after that stage.  The REPL's
   environment is used, so a definition shown by :typed (and the later
   stages) is also defined; :flat shows the statement with every function
   it needs. */
static void command_stage(Repl *r, Stage stage, const char *text) {
  Program *prog = parse_command_statement(r, text);
  if (!prog)
    return;
  if (stage == STAGE_AST) {
    ast_print_program(stdout, prog);
    return;
  }
  for (int i = 0; i < prog->tops.len; i++)
    if (!tc_check_top(r->env, prog->tops.data[i]))
      return;
  if (stage == STAGE_TYPED) {
    print_typed(stdout, prog);
    return;
  }
  MonoProgram *mono = mono_program(r->env, prog);
  if (stage == STAGE_MONO) {
    mono_print(stdout, mono);
    return;
  }
  FlatProgram *flat = flatten_program(mono);
  flat_fill_shapes(flat);
  if (stage == STAGE_FLAT) {
    flat_print_program(stdout, flat);
    return;
  }
  lcu_print_program(stdout, lcu_lower(flat));
}

static void command_set(Repl *r, const char *args) {
  char name[64] = "", value[64] = "";
  if (sscanf(args, "%63s %63s", name, value) != 2 || (strcmp(value, "on") && strcmp(value, "off"))) {
    fprintf(stderr, "error: usage: :set OPTION on|off (options: stats)\n");
    return;
  }
  bool on = strcmp(value, "on") == 0;
  if (strcmp(name, "stats") == 0)
    r->stats = on;
  else
    fprintf(stderr, "error: unknown option '%s' (options: stats)\n", name);
}

/* :doc NAME: a function's type and documentation string */
static void command_doc(Repl *r, const char *name) {
  char *text = tc_describe(r->env, name);
  if (text)
    fputs(text, stdout);
  else
    fprintf(stderr, "error: :doc: no function named '%s'\n", name);
}

static void command_help(void) {
  printf("Type NESL statements ending with ';' or '$'; a statement may span lines.\n"
         "Commands:\n"
         "  :help            this list\n"
         "  :load FILE       run the statements of FILE\n"
         "  :type EXPR       the type of EXPR, without running it\n"
         "  :doc NAME        the type and documentation string of function NAME\n"
         "  :ast EXPR        EXPR (or a statement) as the parser read it\n"
         "  :typed EXPR      EXPR (or a statement) with its type\n"
         "  :mono EXPR       EXPR with every function specialized at its types\n"
         "  :flat EXPR       EXPR flattened: the flat IR it runs as\n"
         "  :lcu EXPR        EXPR in λcu: its kernels and the CPU code running them\n"
         "  :set stats on    print call counts after each input (off to stop)\n"
         "  :quit            leave (end of input does too)\n");
}

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* Runs the command in 'line' (which starts with ':'). */
static void command(Repl *r, const char *line) {
  const char *p = line + 1;
  size_t n = strcspn(p, " \t");
  char *name = xstrndup(p, n);
  const char *args = skip_blanks(p + n);
  if (strcmp(name, "quit") == 0 || strcmp(name, "q") == 0)
    r->quit = true;
  else if (strcmp(name, "help") == 0 || strcmp(name, "h") == 0)
    command_help();
  else if (strcmp(name, "load") == 0 && *args)
    load_file(r, args);
  else if (strcmp(name, "type") == 0 && *args)
    command_type(r, args);
  else if (strcmp(name, "doc") == 0 && *args)
    command_doc(r, args);
  else if (strcmp(name, "ast") == 0 && *args)
    command_stage(r, STAGE_AST, args);
  else if (strcmp(name, "typed") == 0 && *args)
    command_stage(r, STAGE_TYPED, args);
  else if (strcmp(name, "mono") == 0 && *args)
    command_stage(r, STAGE_MONO, args);
  else if (strcmp(name, "flat") == 0 && *args)
    command_stage(r, STAGE_FLAT, args);
  else if (strcmp(name, "lcu") == 0 && *args)
    command_stage(r, STAGE_LCU, args);
  else if (strcmp(name, "set") == 0)
    command_set(r, args);
  else
    fprintf(stderr, "error: unknown command or missing argument: '%s' (:help lists the commands)\n", line);
  fflush(stdout);
}

typedef struct ReplJob {
  Repl *repl;
  const char *file;
} ReplJob;

static void *repl_loop(void *arg) {
  ReplJob *job = arg;
  Repl *r = job->repl;
  r->env = tc_new_env();
  r->ev = ev_new(r->env, stdout);
  ev_init_library(r->ev, tc_library_program(r->env));
  if (r->interactive)
    printf("nessie: NESL to CUDA.  Statements end with ';'.  :help lists the commands.\n");
  if (job->file)
    load_file(r, job->file);
  Buf pending = {0};
  while (!r->quit) {
    char *line = read_line(r, pending.len ? "... " : "nesl> ");
    if (!line)
      break;
    if (pending.len == 0 && skip_blanks(line)[0] == ':') {
      if (r->interactive)
        add_history(line);
      command(r, skip_blanks(line));
      continue;
    }
    if (pending.len)
      buf_putc(&pending, '\n');
    buf_puts(&pending, line);
    if (!statement_complete(buf_str(&pending)))
      continue;
    char *text = xstrdup(buf_str(&pending));
    pending.len = 0;
    if (r->interactive)
      add_history(text);
    run_source(r, chunk_source(r, text));
  }
  if (pending.len && skip_blanks(buf_str(&pending))[0])
    fprintf(stderr, "error: the input ended inside a statement (a ';' is missing)\n");
  return NULL;
}

int repl_run(const char *file, bool stats) {
  Repl *r = NEW(Repl);
  r->interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  r->stats = stats;
  if (r->interactive) {
    rl_readline_name = "nessie";
    using_history();
    const char *home = getenv("HOME");
    if (home) {
      r->history_file = xprintf("%s/.nessie_history", home);
      read_history(r->history_file);
    }
  }
  ReplJob job = {r, file};
  run_on_big_stack(repl_loop, &job);
  if (r->interactive && r->history_file)
    write_history(r->history_file);
  return 0;
}
