/*
 * host.c: the text and I/O primitives of lib-nesl (host.def) over flat
 * components, for the interpreters and the executables alike: printing,
 * @, parsing numbers, files, streams, objects in files, rand_seed.
 *
 * A stream is the datatype `stream(int)` of lib-nesl, whose one component
 * is its number: 0, 1 and 2 are stdin, the transcript and stderr, -1 is
 * nullstr (writes vanish, reads see end of file), and files opened by
 * open_in_file/open_out_file get 3, 4, ...  The functions that can fail
 * return (result, ok, message): 'ok' is false and 'message' says why
 * when the file cannot be opened, read or written; reading past the end
 * of a stream is such a failure ("end of file").
 *
 * Inside an apply-to-each a primitive runs once per value, in order (so
 * that printing prints in order): rt_host_call cuts each value out of the
 * vectors, runs the primitive, and gathers the results.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "rt.h"

/* ---- the table ---- */

static const char *const host_names[] = {
#define HOST_PRIM(name, text) text,
#include "host.def"
};

RtHost rt_host_lookup(const char *name) {
  for (int i = 0; i < RT_HOST_COUNT; i++)
    if (strcmp(host_names[i], name) == 0)
      return (RtHost)i;
  return RT_HOST_COUNT;
}

const char *rt_host_name(RtHost h) { return (unsigned)h < RT_HOST_COUNT ? host_names[h] : "?"; }

/* ---- streams ---- */

enum { MAX_FILES = 256 };
static FILE *files[MAX_FILES];

FILE *rt_stream_file(int32_t id) {
  switch (id) {
  case 0:
    return stdin;
  case 1:
    return rt_output();
  case 2:
    return stderr;
  default:
    return id > 2 && id < MAX_FILES ? files[id] : NULL;
  }
}

/* A regular file (or device) at 'path' opened with 'mode', or NULL with
   the reason: a directory is refused, not read as empty. */
static FILE *open_path(const char *path, const char *mode, const char **why) {
  FILE *f = fopen(path, mode);
  if (!f) {
    *why = strerror(errno);
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    *why = strerror(EISDIR);
    return NULL;
  }
  return f;
}

/* The message of a failed open, worded as CMU NESL 3.1's ("ERROR: while
   trying to open PATH", a newline, the reason), in a buffer the next
   failure overwrites (the caller copies it into a value at once). */
static const char *open_failure(const char *path, const char *reason) {
  static char text[4096 + 128];
  snprintf(text, sizeof text, "ERROR: while trying to open %.4096s\n%s", path, reason);
  return text;
}

int32_t rt_stream_open(const char *path, const char *mode, const char **why) {
  int n;
  for (n = 3; n < MAX_FILES && files[n]; n++)
    ;
  if (n == MAX_FILES) {
    *why = open_failure(path, "too many open files");
    return -1;
  }
  const char *reason = "";
  FILE *f = open_path(path, mode, &reason);
  if (!f) {
    *why = open_failure(path, reason);
    return -1;
  }
  files[n] = f;
  return n;
}

bool rt_stream_close(int32_t id, const char **why) {
  if (id < 3 || id >= MAX_FILES || !files[id]) {
    *why = id >= -1 && id <= 2 ? "" : "not an open file";
    return id >= -1 && id <= 2;
  }
  bool ok = fclose(files[id]) == 0;
  files[id] = NULL;
  *why = ok ? "" : "close failed";
  return ok;
}

/* ---- helpers over components ---- */

/* A [char] component as a NUL-terminated string (the runtime's memory). */
static char *chars_of(const RtValue *v) {
  char *s = rt_alloc_atomic((size_t)v->len + 1);
  if (v->len)
    memcpy(s, v->data.c, (size_t)v->len);
  s[v->len] = '\0';
  return s;
}

static RtValue *string_value(const char *s) { return rt_chars(s, strlen(s)); }

/* The whole of file 'f' (its length in *len), or NULL with the reason. */
static char *read_all(FILE *f, size_t *len, const char **why) {
  RtBuf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    rt_buf_add(&b, chunk, n);
  if (ferror(f)) {
    *why = strerror(errno ? errno : EIO);
    rt_free(b.data);
    return NULL;
  }
  *len = b.len;
  return rt_buf_str(&b);
}

/* The contents of the file named by [char] 'name', or a run-time error
   of primitive 'fn' that says why not. */
static char *read_file(RtLoc loc, const char *fn, RtValue *name, size_t *len) {
  char *path = chars_of(name);
  const char *why = NULL;
  FILE *f = open_path(path, "rb", &why);
  if (!f)
    rt_fail(loc, fn, "%s: cannot open '%s': %s", fn, path, why);
  char *text = read_all(f, len, &why);
  fclose(f);
  if (!text)
    rt_fail(loc, fn, "%s: cannot read '%s': %s", fn, path, why);
  rt_free(path);
  return text;
}

/* (ok, message) results */
static void ok_message(RtValue **r, bool ok, const char *msg) {
  r[0] = rt_bool(ok);
  r[1] = string_value(ok ? "" : msg);
}

/* ---- the primitives: each reads H(argument) and writes H(result) ---- */

static void exp_string(RtLoc loc, RtValue **a, RtValue **r) {
  double x = a[0]->scalar.f;
  int32_t d = a[1]->scalar.i;
  if (d < 0 || d > 40)
    rt_fail(loc, "exp_string", "exp_string: %d digits after the point", d);
  if (!isfinite(x))
    rt_fail(loc, "exp_string", "exp_string: %s has no text (infinity and not-a-number (NaN) are not supported)",
            rt_nonfinite_name(x));
  char text[96], out[128];
  if (x == 0.0) { /* NESL writes zero plainly */
    r[0] = string_value("0.0");
    return;
  }
  snprintf(text, sizeof text, "%.*e", (int)d, x);
  char *e = strchr(text, 'e');
  int exponent = atoi(e + 1);
  *e = '\0';
  /* NESL's form 3.1416e+0: no zeros padding the exponent */
  snprintf(out, sizeof out, "%se%c%d", text, exponent < 0 ? '-' : '+', abs(exponent));
  r[0] = string_value(out);
}

/* parse_int(s): (value, ok); the number at the start of the text, and
   whether the text is just that number ("12a" gives (12, F)) */
static void parse_int(RtValue **a, RtValue **r) {
  char *text = chars_of(a[0]), *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  bool in_range = errno == 0 && v >= INT32_MIN && v <= INT32_MAX;
  bool ok = end != text && *end == '\0' && in_range;
  r[0] = rt_int(end != text && in_range ? (int32_t)v : 0);
  r[1] = rt_bool(ok);
  rt_free(text);
}

/* Does strtod's text [text, end) spell an infinity or a NaN ("inf",
   "nan")?  Those are not numbers to NESL; a number's text has no i or n
   (a number too large is one: an infinity, as NESL reads it). */
static bool spelled_nonfinite(const char *text, const char *end) {
  for (const char *p = text; p < end; p++)
    if (*p == 'i' || *p == 'I' || *p == 'n' || *p == 'N')
      return true;
  return false;
}

double rt_parse_float_text(const char *text, bool *ok) {
  char *end;
  double v = strtod(text, &end);
  bool number = end != text && !spelled_nonfinite(text, end);
  *ok = number && *end == '\0';
  return number ? v : 0.0;
}

static void parse_float(RtValue **a, RtValue **r) {
  char *text = chars_of(a[0]);
  bool ok;
  r[0] = rt_float(rt_parse_float_text(text, &ok));
  r[1] = rt_bool(ok);
  rt_free(text);
}

static void write_file(RtValue **a, RtValue **r, const char *mode) {
  char *name = chars_of(a[1]);
  const char *why;
  FILE *f = open_path(name, mode, &why);
  bool ok = false;
  if (f) {
    size_t n = (size_t)a[0]->len;
    ok = fwrite(a[0]->data.c, 1, n, f) == n;
    ok &= fclose(f) == 0;
  }
  r[0] = rt_bool(ok);
  rt_free(name);
}

/* The whitespace-separated numbers of a file. */
static void read_numbers(RtLoc loc, const char *fn, RtValue **a, RtValue **r, bool floats) {
  size_t len;
  char *text = read_file(loc, fn, a[0], &len);
  RtBuf items = {0};
  char *p = text;
  int64_t count = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
      p++;
    if (!*p)
      break;
    char *end;
    errno = 0;
    if (floats) {
      double x = strtod(p, &end);
      rt_buf_add(&items, (const char *)&x, sizeof x);
    } else {
      long long x = strtoll(p, &end, 10);
      if (x < INT32_MIN || x > INT32_MAX)
        errno = ERANGE;
      int32_t i = (int32_t)x;
      rt_buf_add(&items, (const char *)&i, sizeof i);
    }
    if (end == p || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
      char *path = chars_of(a[0]);
      rt_fail(loc, fn, "%s: '%s' holds something that is not %s", fn, path, floats ? "a float" : "an int");
    }
    count++;
    p = end;
  }
  RtValue *v = rt_value_new(rt_vec_type(floats ? RT_FLOAT : RT_INT), count);
  if (count)
    memcpy(v->data.any, items.data, items.len);
  r[0] = v;
  rt_free(items.data);
  rt_free(text);
}

static void open_file(RtValue **a, RtValue **r, const char *mode) {
  char *path = chars_of(a[0]);
  const char *why = "";
  int32_t id = rt_stream_open(path, mode, &why);
  r[0] = rt_int(id);
  r[1] = rt_bool(id >= 0);
  r[2] = string_value(id >= 0 ? "" : why);
  rt_free(path);
}

static void write_to(int32_t id, const char *s, size_t n, RtValue **r) {
  if (id == -1) {
    ok_message(r, true, "");
    return;
  }
  FILE *f = rt_stream_file(id);
  if (!f || id == 0) {
    ok_message(r, false, "not an output stream");
    return;
  }
  if (id == 1) {
    rt_write(s, n);
    ok_message(r, true, "");
    return;
  }
  bool ok = fwrite(s, 1, n, f) == n;
  ok_message(r, ok, "write failed");
}

static FILE *input(int32_t id) { return id == 1 || id == 2 ? NULL : rt_stream_file(id); }

/* (ok, message) after a reading result: 'r' points at them */
static void read_status(RtValue **r, FILE *f) { ok_message(r, f != NULL, "not an input stream"); }

static void read_char(RtValue **a, RtValue **r) {
  FILE *f = input(a[0]->scalar.i);
  int c = f ? fgetc(f) : EOF;
  r[0] = rt_char(c == EOF ? 0 : (char)c);
  if (c == EOF)
    ok_message(r + 1, false, f ? "end of file" : "not an input stream");
  else
    ok_message(r + 1, true, "");
}

/* read_string(delims, maxlen, s): ((text, n), ok, message): reads up to
   maxlen characters, stopping before any character of 'delims' */
static void read_string(RtValue **a, RtValue **r) {
  char *delims = chars_of(a[0]);
  int32_t maxlen = a[1]->scalar.i;
  FILE *f = input(a[2]->scalar.i);
  RtBuf b = {0};
  while (f && (int64_t)b.len < maxlen) {
    int c = fgetc(f);
    if (c == EOF)
      break;
    if (c != 0 && strchr(delims, c)) {
      ungetc(c, f);
      break;
    }
    rt_buf_putc(&b, (char)c);
  }
  r[0] = rt_chars(b.data, b.len);
  r[1] = rt_int((int32_t)b.len);
  read_status(r + 2, f);
  rt_free(b.data);
  rt_free(delims);
}

/* read_line(s): ((line, eof), ok, message): the line without its newline;
   'eof' is true when the stream ended before a newline */
static void read_line(RtValue **a, RtValue **r) {
  FILE *f = input(a[0]->scalar.i);
  RtBuf b = {0};
  int c = EOF;
  while (f && (c = fgetc(f)) != EOF && c != '\n')
    rt_buf_putc(&b, (char)c);
  r[0] = rt_chars(b.data, b.len);
  r[1] = rt_bool(c == EOF);
  read_status(r + 2, f);
  rt_free(b.data);
}

/* read_word(s): ((word, delimiter, eof), ok, message): skips blanks,
   reads up to the next blank */
static void read_word(RtValue **a, RtValue **r) {
  FILE *f = input(a[0]->scalar.i);
  RtBuf b = {0};
  int c = EOF;
  if (f) {
    while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
      ;
    while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      rt_buf_putc(&b, (char)c);
      c = fgetc(f);
    }
  }
  r[0] = rt_chars(b.data, b.len);
  r[1] = rt_char(c == EOF ? 0 : (char)c);
  r[2] = rt_bool(c == EOF);
  read_status(r + 3, f);
  rt_free(b.data);
}

/* ---- objects in files: the REPL's printed form, read back by layout ---- */

static void write_object(const RtLayout *arg, RtValue **a, RtValue **r) {
  /* (object, file): the object's components, then the name */
  const RtLayout *obj = arg->fst;
  int n = rt_layout_count(obj, true);
  size_t len;
  char *text = rt_value_text(obj, a, &len);
  char *path = chars_of(a[n]);
  const char *why;
  FILE *f = open_path(path, "wb", &why);
  bool ok = false;
  if (f) {
    ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
    ok &= fclose(f) == 0;
  }
  r[0] = rt_bool(ok);
  rt_free(text);
  rt_free(path);
}

/* The components of the object being read, each growing as values are
   read: a scalar at the host, or a vector (or segdes) under a sequence. */
typedef struct Reader {
  RtLoc loc;
  const char *path;
  const char *p;
  RtBuf *comps;   /* one buffer per component: its elements' bytes */
  RtType *types;  /* the components' types (H of the object's layout) */
} Reader;

_Noreturn static void bad_object(Reader *r, const char *what) {
  rt_fail(r->loc, "read_object_from_file", "read_object_from_file: '%s' does not hold %s where expected", r->path,
          what);
}

static void skip_space(Reader *r) {
  while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r')
    r->p++;
}

static void expect_char(Reader *r, char c, const char *what) {
  skip_space(r);
  if (*r->p != c)
    bad_object(r, what);
  r->p++;
}

static void read_value(Reader *r, const RtLayout *l, int at, bool host);

/* The items of a tuple, the right spine flattened: a, b, c */
static void read_items(Reader *r, const RtLayout *l, int at, bool host) {
  if (l->kind != RL_PAIR) {
    read_value(r, l, at, host);
    return;
  }
  read_value(r, l->fst, at, host);
  expect_char(r, ',', "a tuple");
  read_items(r, l->snd, at + rt_layout_count(l->fst, host), host);
}

/* One value of layout 'l' whose components start at r->comps[at]: H(t)
   at the top ('host'), V(t) under a sequence. */
static void read_value(Reader *r, const RtLayout *l, int at, bool host) {
  skip_space(r);
  char *end;
  switch (l->kind) {
  case RL_INT: {
    long long v = strtoll(r->p, &end, 10);
    if (end == r->p || v < INT32_MIN || v > INT32_MAX)
      bad_object(r, "an int");
    r->p = end;
    int32_t i = (int32_t)v;
    rt_buf_add(&r->comps[at], (const char *)&i, sizeof i);
    return;
  }
  case RL_FLOAT: {
    double v = strtod(r->p, &end);
    if (end == r->p)
      bad_object(r, "a float");
    r->p = end;
    rt_buf_add(&r->comps[at], (const char *)&v, sizeof v);
    return;
  }
  case RL_BOOL: {
    if (*r->p != 'T' && *r->p != 'F')
      bad_object(r, "a boolean");
    uint8_t b = *r->p++ == 'T';
    rt_buf_add(&r->comps[at], (const char *)&b, 1);
    return;
  }
  case RL_CHAR:
    if (r->p[0] != '`' || !r->p[1])
      bad_object(r, "a character");
    r->p += 2;
    rt_buf_add(&r->comps[at], r->p - 1, 1);
    return;
  case RL_PAIR:
    expect_char(r, '(', "a tuple");
    read_items(r, l, at, host);
    expect_char(r, ')', "the end of a tuple");
    return;
  case RL_DATA: {
    size_t n = strlen(l->name);
    if (strncmp(r->p, l->name, n) != 0)
      bad_object(r, l->name);
    r->p += n;
    expect_char(r, '(', "a datatype's fields");
    read_items(r, l->fst, at, host);
    expect_char(r, ')', "the end of a datatype's fields");
    return;
  }
  case RL_SEQ: {
    /* under a sequence, a segdes component counts this one's elements */
    bool nested = !host;
    int inner = nested ? at + 1 : at;
    int64_t count = 0;
    if (l->elem->kind == RL_CHAR && *r->p == '"') {
      const char *start = ++r->p;
      while (*r->p && *r->p != '"')
        r->p++;
      if (!*r->p)
        bad_object(r, "a string");
      rt_buf_add(&r->comps[inner], start, (size_t)(r->p - start));
      count = r->p - start;
      r->p++;
    } else {
      expect_char(r, '[', "a sequence");
      skip_space(r);
      if (*r->p != ']') {
        for (;;) {
          read_value(r, l->elem, inner, false);
          count++;
          skip_space(r);
          if (*r->p != ',')
            break;
          r->p++;
        }
      }
      expect_char(r, ']', "the end of a sequence");
    }
    if (nested)
      rt_buf_add(&r->comps[at], (const char *)&count, sizeof count);
    return;
  }
  }
}

static void read_object(RtLoc loc, const RtLayout *result, RtValue **a, RtValue **r) {
  /* (template, file): the template's components, then the name */
  int n = rt_layout_count(result, true);
  size_t len;
  char *text = read_file(loc, "read_object_from_file", a[n], &len);
  Reader rd = {loc, chars_of(a[n]), text, rt_alloc(sizeof(RtBuf) * (size_t)(n + 1)),
               rt_alloc_atomic(sizeof(RtType) * (size_t)(n + 1))};
  rt_layout_types(result, true, rd.types);
  read_value(&rd, result, 0, true);
  skip_space(&rd);
  if (*rd.p)
    bad_object(&rd, "only one object");
  for (int c = 0; c < n; c++) {
    RtType t = rd.types[c];
    RtBuf *b = &rd.comps[c];
    if (t.kind == RT_SEGDES) {
      int64_t segs = (int64_t)(b->len / sizeof(int64_t));
      r[c] = rt_value_new(t, segs);
      if (segs)
        memcpy(r[c]->lengths, b->data, b->len);
    } else {
      int64_t count = (int64_t)(b->len / rt_base_size(t.base));
      r[c] = rt_value_new(t, t.kind == RT_SCALAR ? 1 : count);
      if (b->len)
        memcpy(r[c]->data.any, b->data, rt_base_size(t.base) * (size_t)(t.kind == RT_SCALAR ? 1 : count));
    }
    rt_free(b->data);
  }
  rt_free(text);
}

/* identity: the zero of the type, H(t) laid out by 'l' into r[*at ...]:
   all-zero scalars, empty sequences */
static void zero_value(const RtLayout *l, RtValue **r, int *at) {
  int n = rt_layout_count(l, true);
  RtType *types = rt_alloc_atomic(sizeof(RtType) * (size_t)(n + 1));
  rt_layout_types(l, true, types);
  for (int i = 0; i < n; i++) {
    RtValue *v = rt_value_new(types[i], 0);
    if (types[i].kind == RT_SCALAR)
      memset(v->data.any, 0, rt_base_size(types[i].base));
    r[(*at)++] = v;
  }
  rt_free(types);
}

/* ---- dispatch ---- */

static const RtStore *store;

const RtStore *rt_set_store(const RtStore *s) {
  const RtStore *old = store;
  store = s;
  return old;
}

/* __keep_value(k, v): its argument is (int, a), its result a; the
   components of v are the argument's after k's. */
static void keep_value(RtLoc loc, const RtLayout *arg, RtValue **a, RtValue **r) {
  int n = rt_layout_count(arg->snd, true);
  store->keep(store->ctx, a[0]->scalar.i, loc, arg->snd, a + 1);
  for (int i = 0; i < n; i++) {
    /* a vector shared, a scalar copied: generated code frees a scalar
       argument and a scalar result each as its own (rt_value_free) */
    if (a[1 + i]->type.kind == RT_SCALAR) {
      r[i] = rt_value_new(a[1 + i]->type, 1);
      r[i]->scalar = a[1 + i]->scalar;
    } else {
      r[i] = a[1 + i];
      rt_retain(r[i]);
    }
  }
}

static void call_once(RtHost h, RtLoc loc, const RtLayout *arg, const RtLayout *result, RtValue **a, RtValue **r) {
  switch (h) {
  case RT_HOST_PRINT_CHAR:
    rt_write(&a[0]->scalar.c, 1);
    r[0] = rt_bool(true);
    return;
  case RT_HOST_PRINT_STRING:
    rt_write(a[0]->data.c, (size_t)a[0]->len);
    r[0] = rt_bool(true);
    return;
  case RT_HOST_TO_STRING: {
    double bad;
    if (rt_value_nonfinite(arg, a, true, &bad))
      rt_fail(loc, "__to_string", "@: %s has no text (infinity and not-a-number (NaN) are not supported)",
              rt_nonfinite_name(bad));
    size_t len;
    char *s = rt_to_string(arg, a, &len);
    r[0] = rt_chars(s, len);
    rt_free(s);
    return;
  }
  case RT_HOST_EXP_STRING:
    exp_string(loc, a, r);
    return;
  case RT_HOST_PARSE_INT:
    parse_int(a, r);
    return;
  case RT_HOST_PARSE_FLOAT:
    parse_float(a, r);
    return;
  case RT_HOST_WRITE_STRING_TO_FILE:
    write_file(a, r, "wb");
    return;
  case RT_HOST_APPEND_STRING_TO_FILE:
    write_file(a, r, "ab");
    return;
  case RT_HOST_READ_STRING_FROM_FILE: {
    size_t len;
    char *text = read_file(loc, "read_string_from_file", a[0], &len);
    r[0] = rt_chars(text, len);
    rt_free(text);
    return;
  }
  case RT_HOST_READ_INT_SEQ_FROM_FILE:
    read_numbers(loc, "read_int_seq_from_file", a, r, false);
    return;
  case RT_HOST_READ_FLOAT_SEQ_FROM_FILE:
    read_numbers(loc, "read_float_seq_from_file", a, r, true);
    return;
  case RT_HOST_OPEN_IN_FILE:
    open_file(a, r, "rb");
    return;
  case RT_HOST_OPEN_OUT_FILE:
    open_file(a, r, "wb");
    return;
  case RT_HOST_OPEN_APPEND_FILE:
    open_file(a, r, "ab");
    return;
  case RT_HOST_GET_ENVIRONMENT_VARIABLE: {
    /* NESL runs printenv NAME; its value, or "" where it is not set */
    char *name = chars_of(a[0]);
    const char *value = getenv(name);
    r[0] = string_value(value ? value : "");
    rt_free(name);
    return;
  }
  case RT_HOST_CLOSE_FILE: {
    const char *why;
    bool ok = rt_stream_close(a[0]->scalar.i, &why);
    r[0] = rt_bool(ok);
    r[1] = string_value(why);
    return;
  }
  case RT_HOST_WRITE_CHAR:
    write_to(a[1]->scalar.i, &a[0]->scalar.c, 1, r);
    return;
  case RT_HOST_WRITE_STRING:
    write_to(a[1]->scalar.i, a[0]->data.c, (size_t)a[0]->len, r);
    return;
  case RT_HOST_READ_CHAR:
    read_char(a, r);
    return;
  case RT_HOST_READ_STRING:
    read_string(a, r);
    return;
  case RT_HOST_READ_LINE:
    read_line(a, r);
    return;
  case RT_HOST_READ_WORD:
    read_word(a, r);
    return;
  case RT_HOST_WRITE_OBJECT_TO_FILE:
    write_object(arg, a, r);
    return;
  case RT_HOST_READ_OBJECT_FROM_FILE:
    read_object(loc, result, a, r);
    return;
  case RT_HOST_RAND_SEED:
    rt_rand_seed(a[0]->scalar.i);
    r[0] = rt_bool(true);
    return;
  case RT_HOST_GLOBAL_VALUE:
  case RT_HOST_KEEP_VALUE:
    if (!store)
      rt_fail(loc, NULL, "%s: no REPL values here", rt_host_name(h));
    if (h == RT_HOST_GLOBAL_VALUE)
      store->get(store->ctx, a[0]->scalar.i, loc, result, r);
    else
      keep_value(loc, arg, a, r);
    return;
  case RT_HOST_IDENTITY: {
    int at = 0;
    zero_value(result, r, &at);
    return;
  }
  case RT_HOST_COUNT:
    break;
  }
  rt_fail(loc, NULL, "internal error: host primitive %d", (int)h);
}

void rt_host_call(RtHost h, RtLoc loc, const RtLayout *arg, const RtLayout *result, bool lifted, RtValue **args,
                  RtValue **results) {
  if (!lifted) {
    call_once(h, loc, arg, result, args, results);
    return;
  }
  /* once per value, in order */
  int64_t n = args[0]->len;
  int nargs = rt_layout_count(arg, true), nresults = rt_layout_count(result, true);
  RtValue **one = rt_alloc(sizeof(RtValue *) * (size_t)(nargs + 1));
  RtValue ***elems = rt_alloc(sizeof(RtValue **) * (size_t)(n + 1));
  for (int64_t k = 0; k < n; k++) {
    rt_vector_element(arg, args, k, one);
    elems[k] = rt_alloc(sizeof(RtValue *) * (size_t)(nresults + 1));
    call_once(h, loc, arg, result, one, elems[k]);
    for (int i = 0; i < nargs; i++)
      rt_value_free(one[i]);
  }
  rt_vector_of(result, elems, n, results);
  for (int64_t k = 0; k < n; k++) {
    for (int i = 0; i < nresults; i++)
      rt_value_free(elems[k][i]);
    rt_free(elems[k]);
  }
  rt_free(elems);
  rt_free(one);
}
