/*
 * diag.c: source files and diagnostics.
 *
 * Every user-facing compile error goes through diag_error(), which prints
 * the `file:line:col: error: message` line, then the offending source line
 * and a caret under the column, as gcc and clang do.  Errors are counted;
 * a pass that cannot go on calls diag_fatal(), which longjmps to the
 * innermost handler, so that the REPL can recover from any error.
 *
 * Input may be anything, a binary file or a 10 MB line included, and a
 * diagnostic must stay readable and cheap: the line starts of a source are
 * indexed once (showing a line is a binary search, not a rescan), a shown
 * line is a window of about 100 columns with non-printable bytes escaped,
 * quoted tokens are cut, and after DIAG_MAX_ERRORS errors nothing more is
 * shown (the lexer ends its input when diag_stopped() says so).
 *
 * With --diagnostics=json (diag_set_json) each diagnostic is instead one
 * JSON object on a line of its own, {"file", "line", "column",
 * "severity", "message"}, for editors and tools: no source line, no
 * caret, the same messages.
 *
 * Run-time errors of the interpreters are reported here too
 * (diag_runtime_error), so that they look like compile errors, and the
 * flag behind Ctrl-C lives here because every interpreter polls it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const Loc no_loc = {0};

static int error_count;
static bool muted;
static bool last_hidden; /* the last error was not shown: nor are its notes */
static long runtime_errors;
static FILE *diag_stream;
static bool json; /* --diagnostics=json */

#define MAX_HANDLERS 64
static jmp_buf *handlers[MAX_HANDLERS];
static int handler_depth;

/* Every Source made, so that a run-time error, which knows only a file
   name (rt.h's RtLoc), can show its line (source_find). */
static Vec sources;

Source *source_fragment(const char *name, const char *text) {
  Source *s = NEW(Source);
  s->name = xstrdup(name);
  s->len = strlen(text);
  s->text = xstrndup(text, s->len);
  return s;
}

Source *source_from_string(const char *name, const char *text) {
  Source *s = source_fragment(name, text);
  vec_push(&sources, s);
  return s;
}

static void index_lines(const Source *cs);

Source *source_find(const char *name, int line) {
  for (int i = sources.len - 1; name && i >= 0; i--) {
    Source *s = sources.data[i];
    if (strcmp(s->name, name) != 0 || line <= s->lines_before)
      continue;
    index_lines(s);
    if (line <= s->lines_before + s->nlines)
      return s;
  }
  return NULL;
}

Source *source_from_file(const char *path) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *text = xmalloc_atomic(cap);
  size_t n;
  while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += n;
    if (cap - len - 1 == 0) {
      char *bigger = xmalloc_atomic(cap * 2);
      memcpy(bigger, text, len);
      text = bigger;
      cap *= 2;
    }
  }
  int err = ferror(f) ? errno : 0; /* a directory: EISDIR from read() */
  if (!is_stdin)
    fclose(f);
  if (err) {
    errno = err;
    return NULL;
  }
  text[len] = '\0';
  Source *s = NEW(Source);
  s->name = xstrdup(is_stdin ? "<stdin>" : path);
  s->text = text;
  s->len = len;
  vec_push(&sources, s);
  return s;
}

void diag_set_stream(FILE *f) { diag_stream = f; }
static int count_before_mute;

void diag_set_muted(bool m) {
  if (m && !muted)
    count_before_mute = error_count;
  else if (!m && muted) {
    error_count = count_before_mute;
    last_hidden = false;
  }
  muted = m;
}

static FILE *out(void) { return diag_stream ? diag_stream : stderr; }

void diag_set_json(bool on) { json = on; }

/* ---- showing a source line ---- */

/* Indexes the line starts of 's' once; a Source is otherwise immutable,
   and the index is only a cache of its text. */
static void index_lines(const Source *cs) {
  Source *s = (Source *)cs;
  if (s->line_starts)
    return;
  int n = 1;
  for (const char *p = s->text, *end = s->text + s->len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
    n++;
  size_t *starts = xmalloc_atomic(sizeof(size_t) * (size_t)n);
  starts[0] = 0;
  int i = 1;
  for (const char *p = s->text, *end = s->text + s->len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
    starts[i++] = (size_t)(p + 1 - s->text);
  s->nlines = n;
  s->line_starts = starts;
}

const char *source_line(const Source *s, int line) {
  index_lines(s);
  line -= s->lines_before;
  if (line < 1)
    line = 1;
  return line > s->nlines ? s->text + s->len : s->text + s->line_starts[line - 1];
}

/* The length of the well-formed UTF-8 sequence at 'p' (before 'end'), or
   0 if there is none: such a sequence is shown as it is. */
static int utf8_length(const unsigned char *p, const unsigned char *end) {
  int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
  if (n == 0 || end - p < n)
    return 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80)
      return 0;
  if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
    return 0; /* overlong, or beyond U+10FFFF */
  if ((p[0] == 0xc2 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f))
    return 0; /* the C1 controls (a terminal obeys them), surrogates */
  return n;
}

/* How the bytes at 'p' are shown: printable ASCII and tabs as they are, a
   UTF-8 character as it is (one column), anything else as \xNN.  Writes
   the shown text to 'shown' (NUL-terminated), and returns the number of
   bytes it stands for; '*cols' gets its width in columns. */
static int show_char(const char *p, const char *end, char shown[8], int *cols) {
  const unsigned char *u = (const unsigned char *)p;
  if ((u[0] >= 0x20 && u[0] < 0x7f) || u[0] == '\t') {
    shown[0] = (char)u[0];
    shown[1] = '\0';
    *cols = 1;
    return 1;
  }
  int n = utf8_length(u, (const unsigned char *)end);
  if (n > 0) {
    memcpy(shown, p, (size_t)n);
    shown[n] = '\0';
    *cols = 1;
    return n;
  }
  snprintf(shown, 8, "\\x%02x", u[0]);
  *cols = 4;
  return 1;
}

void diag_show_source(FILE *f, Loc loc) {
  /* (a source of no text: a file named by λcu text, not read) */
  if (!loc.src || loc.line <= 0 || loc.src->len == 0)
    return;
  index_lines(loc.src);
  int nth = loc.line - loc.src->lines_before; /* of the text's lines */
  if (nth < 1 || nth > loc.src->nlines)
    return;
  const char *text = loc.src->text, *end = text + loc.src->len;
  const char *p = text + loc.src->line_starts[nth - 1];
  const char *eol = memchr(p, '\n', (size_t)(end - p));
  if (!eol)
    eol = end;
  const char *at = p + (loc.col > 0 ? loc.col - 1 : 0);
  if (at > eol)
    at = eol;
  /* a line wider than WIDTH + 20 columns (escapes count 4) is shown as
     a window of about WIDTH columns around the caret */
  enum { WIDTH = 100 };
  char shown[8];
  int cols, width = 0;
  const char *q = p;
  while (q < eol && width <= WIDTH + 20) {
    q += show_char(q, eol, shown, &cols);
    width += cols;
  }
  const char *from = p;
  bool window = width > WIDTH + 20;
  if (window) {
    /* back from the caret by about WIDTH / 2 columns, counting a byte
       that is not printable ASCII as the 4 columns of its escape (too
       many for UTF-8, which only shortens the window) */
    int back = 0;
    from = at;
    while (from > p && back < WIDTH / 2) {
      from--;
      unsigned char c = (unsigned char)*from;
      back += (c >= 0x20 && c < 0x7f) || c == '\t' ? 1 : 4;
    }
    while (from < at && (*(const unsigned char *)from & 0xc0) == 0x80)
      from++; /* not inside a UTF-8 character */
  }
  Buf line = {0}, caret = {0};
  buf_puts(&line, from > p ? "  ..." : "  ");
  buf_puts(&caret, from > p ? "     " : "  ");
  width = 0;
  for (q = from; q < eol && (!window || width < WIDTH || q <= at);) {
    int n = show_char(q, eol, shown, &cols);
    buf_puts(&line, shown);
    if (q < at) {
      if (shown[0] == '\t')
        buf_putc(&caret, '\t');
      else
        for (int i = 0; i < cols; i++)
          buf_putc(&caret, ' ');
    }
    q += n;
    width += cols;
  }
  if (q < eol)
    buf_puts(&line, "...");
  buf_putc(&caret, '^');
  fprintf(f, "%s\n%s\n", buf_str(&line), buf_str(&caret));
}

char *diag_quote(const char *s, size_t n) {
  enum { MAX_COLS = 40 };
  Buf b = {0};
  int cols = 0;
  const char *end = s + n;
  for (const char *q = s; q < end;) {
    if (cols >= MAX_COLS) {
      buf_puts(&b, "...");
      break;
    }
    char shown[8];
    int c;
    if (*q == '\t') { /* a tab would misalign nothing here, but shows as blank */
      buf_puts(&b, "\\t");
      q++;
      cols += 2;
      continue;
    }
    q += show_char(q, end, shown, &c);
    buf_puts(&b, shown);
    cols += c;
  }
  return buf_str(&b);
}

/* ---- JSON ---- */

/* Writes 's' as a JSON string, quotes included.  JSON text must be
   UTF-8: a well-formed UTF-8 character is written as it is, the C1
   controls and other control characters as \u00XX, and a byte that is
   not part of a well-formed character (a file name may hold any byte) as
   U+FFFD, the replacement character, which is what a reader of UTF-8
   would see there anyway.  Allocates nothing: it may report running out
   of memory. */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s); p < end;) {
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc(c, f);
      p++;
    } else if (c == '\n') {
      fputs("\\n", f);
      p++;
    } else if (c == '\t') {
      fputs("\\t", f);
      p++;
    } else if (c < 0x20 || c == 0x7f) {
      fprintf(f, "\\u%04x", c);
      p++;
    } else if (c < 0x80) {
      fputc(c, f);
      p++;
    } else if (c == 0xc2 && end - p >= 2 && p[1] >= 0x80 && p[1] <= 0x9f) {
      fprintf(f, "\\u%04x", p[1]); /* U+0080 to U+009F, which utf8_length refuses */
      p += 2;
    } else {
      int n = utf8_length(p, end);
      if (n > 0)
        fwrite(p, 1, (size_t)n, f);
      else
        fputs("\\ufffd", f);
      p += n > 0 ? n : 1;
    }
  }
  fputc('"', f);
}

/* One diagnostic as a line of JSON: the location's file, line and column
   (null without one), the severity ("error", "note") and the message. */
static void json_report(FILE *f, Loc loc, const char *severity, const char *message) {
  fputs("{\"file\":", f);
  if (loc.src) {
    json_string(f, loc.src->name);
    fprintf(f, ",\"line\":%d,\"column\":%d", loc.line, loc.col);
  } else
    fputs("null,\"line\":null,\"column\":null", f);
  fputs(",\"severity\":", f);
  json_string(f, severity);
  fputs(",\"message\":", f);
  json_string(f, message);
  fputs("}\n", f);
}

/* ---- reporting ---- */

static void report(Loc loc, const char *kind, const char *fmt, va_list ap) {
  fflush(stdout);
  if (json) {
    json_report(out(), loc, kind, xvprintf(fmt, ap));
    return;
  }
  if (loc.src)
    fprintf(out(), "%s:%d:%d: %s: ", loc.src->name, loc.line, loc.col, kind);
  else
    fprintf(out(), "nessie: %s: ", kind);
  vfprintf(out(), fmt, ap);
  fputc('\n', out());
  diag_show_source(out(), loc);
}

void diag_verror(Loc loc, const char *fmt, va_list ap) {
  error_count++;
  last_hidden = muted || error_count > DIAG_MAX_ERRORS;
  if (!muted && error_count == DIAG_MAX_ERRORS + 1) {
    fflush(stdout);
    if (json)
      json_report(out(), no_loc, "note", xprintf("too many errors (more than %d), stopping", DIAG_MAX_ERRORS));
    else
      fprintf(out(), "nessie: too many errors (more than %d), stopping\n", DIAG_MAX_ERRORS);
  }
  if (!last_hidden)
    report(loc, "error", fmt, ap);
}

void diag_error(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
}

void diag_note(Loc loc, const char *fmt, ...) {
  if (last_hidden)
    return;
  va_list ap;
  va_start(ap, fmt);
  report(loc, "note", fmt, ap);
  va_end(ap);
}

int diag_count(void) { return error_count; }

void diag_reset(void) {
  error_count = 0;
  last_hidden = false;
}

bool diag_stopped(void) { return error_count > DIAG_MAX_ERRORS; }

void diag_runtime_error(FILE *transcript, Loc loc, const char *msg) {
  runtime_errors++;
  if (loc.src)
    fprintf(transcript, "error: %s:%d:%d: %s\n", loc.src->name, loc.line, loc.col, msg);
  else
    fprintf(transcript, "error: %s\n", msg);
  fflush(transcript);
  if (json) /* the transcript keeps its line; a tool reads this one */
    json_report(out(), loc, "error", msg);
  else
    diag_show_source(out(), loc);
  fflush(out());
}

long diag_runtime_errors(void) { return runtime_errors; }

/* ---- handlers ---- */

void diag_push_handler(jmp_buf *jb) {
  if (handler_depth == MAX_HANDLERS)
    die("diagnostic handlers nested too deeply");
  handlers[handler_depth++] = jb;
}

void diag_pop_handler(void) {
  if (handler_depth > 0)
    handler_depth--;
}

int diag_handler_depth(void) { return handler_depth; }

void diag_set_handler_depth(int depth) {
  if (depth >= 0 && depth <= handler_depth)
    handler_depth = depth;
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

void diag_out_of_memory(size_t size) {
  /* no allocation here: memory has just run out */
  fflush(stdout);
  if (json)
    fprintf(out(), "{\"file\":null,\"line\":null,\"column\":null,\"severity\":\"error\","
                   "\"message\":\"out of memory (could not allocate %zu bytes)\"}\n", size);
  else
    fprintf(out(), "nessie: error: out of memory (could not allocate %zu bytes)\n", size);
  error_count++;
  if (handler_depth == 0)
    exit(4);
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

/* ---- interrupts ---- */

static volatile sig_atomic_t interrupted;

void interrupt_request(void) { interrupted = 1; }
bool interrupt_pending(void) { return interrupted != 0; }
void interrupt_clear(void) { interrupted = 0; }
