/*
 * diag.c: source files and diagnostics.
 *
 * Every user-facing compile error goes through diag_error(), which prints
 * the `file:line:col: error: message` line, then the offending source line
 * and a caret under the column, as gcc and clang do.  Errors are counted;
 * a pass that cannot go on calls diag_fatal(), which longjmps to the
 * innermost handler, so that the REPL can recover from any error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const Loc no_loc = {NULL, 0, 0};

static int error_count;
static FILE *diag_stream;

#define MAX_HANDLERS 64
static jmp_buf *handlers[MAX_HANDLERS];
static int handler_depth;

Source *source_from_string(const char *name, const char *text) {
  Source *s = NEW(Source);
  s->name = xstrdup(name);
  s->len = strlen(text);
  s->text = xstrndup(text, s->len);
  return s;
}

Source *source_from_file(const char *path) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f)
    return NULL;
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    for (size_t i = 0; i < n; i++)
      buf_putc(&b, chunk[i]);
  bool bad = ferror(f);
  if (f != stdin)
    fclose(f);
  if (bad)
    return NULL;
  Source *s = NEW(Source);
  s->name = xstrdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
  s->text = buf_str(&b);
  s->len = b.len;
  return s;
}

void diag_set_stream(FILE *f) { diag_stream = f; }

static FILE *out(void) { return diag_stream ? diag_stream : stderr; }

/* Prints the line 'loc' points into, and a caret under its column.  Tabs
   before the column are copied so that the caret lines up. */
static void show_line(Loc loc) {
  if (!loc.src || loc.line <= 0)
    return;
  const char *p = loc.src->text, *end = p + loc.src->len;
  for (int line = 1; line < loc.line && p < end; p++)
    if (*p == '\n')
      line++;
  const char *eol = p;
  while (eol < end && *eol != '\n')
    eol++;
  /* a long line is shown as a window around the column */
  enum { WIDTH = 100 };
  const char *from = p, *to = eol;
  int col = loc.col;
  if (eol - p > WIDTH + 20) {
    from = p + (loc.col > WIDTH / 2 ? loc.col - WIDTH / 2 : 0);
    if (from > eol)
      from = eol;
    to = from + WIDTH < eol ? from + WIDTH : eol;
    col = loc.col - (int)(from - p);
  }
  fprintf(out(), "  %s%.*s%s\n  %s", from > p ? "..." : "", (int)(to - from), from, to < eol ? "..." : "",
          from > p ? "   " : "");
  for (int i = 1; i < col && from + i - 1 < to; i++)
    fputc(from[i - 1] == '\t' ? '\t' : ' ', out());
  fputs("^\n", out());
}

static void report(Loc loc, const char *kind, const char *fmt, va_list ap) {
  fflush(stdout);
  if (loc.src)
    fprintf(out(), "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
  else
    fprintf(out(), "nessie: %s: ", kind);
  vfprintf(out(), fmt, ap);
  fputc('\n', out());
  show_line(loc);
}

void diag_verror(Loc loc, const char *fmt, va_list ap) {
  error_count++;
  report(loc, "error", fmt, ap);
}

void diag_error(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(loc, "note", fmt, ap);
  va_end(ap);
}

int diag_count(void) { return error_count; }
void diag_reset(void) { error_count = 0; }

void diag_push_handler(jmp_buf *jb) {
  if (handler_depth == MAX_HANDLERS)
    die("diagnostic handlers nested too deeply");
  handlers[handler_depth++] = jb;
}

void diag_pop_handler(void) {
  if (handler_depth > 0)
    handler_depth--;
}

void diag_fatal(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
  if (handler_depth == 0)
    exit(1);
  longjmp(*handlers[--handler_depth], 1);
}

void die_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fflush(stdout);
  fprintf(stderr, "nessie: internal error at %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

void diag_abort(void) {
  if (handler_depth == 0)
    exit(1);
  longjmp(*handlers[--handler_depth], 1);
}
