/*
 * io.c: the primitives that print, format and parse text, and the file
 * and stream functions of NESL's I/O library.
 *
 * A stream is the datatype `stream(int)` of lib-nesl: 0, 1 and 2 are
 * stdin, stdout and stderr, -1 is nullstr (writes vanish, reads see end of
 * file), and files opened by open_in_file/open_out_file get 3, 4, ...
 * The functions that can fail return (result, ok, message): 'ok' is false
 * and 'message' says why when the file cannot be opened, read or written;
 * reading past the end of a stream is such a failure ("end of file").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../frontend/types.h"
#include "../rt/rt.h"
#include "eval.h"

#define SND(v) ((v).u.pair->snd)

static Value ok_result(Value v) { return val_pair(v, val_pair(val_bool(true), val_string("", 0))); }

static Value failure(Value v, const char *msg) {
  return val_pair(v, val_pair(val_bool(false), val_string(msg, strlen(msg))));
}

/* The FILE of stream value 's', or NULL for nullstr and closed streams:
   the runtime's streams (rt/host.c), which every backend shares, but the
   transcript, which is the evaluator's. */
static FILE *stream_file(Eval *ev, Value s) {
  int32_t n = s.u.data->fields.u.i;
  return n == 1 ? ev_out(ev) : rt_stream_file(n);
}

/* ---- printing ---- */

static Value p_print_char(Eval *ev, Value c, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  ev_write(ev, &c.u.c, 1);
  return val_bool(true);
}

static Value p_print_string(Eval *ev, Value s, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  char *chars = val_string_chars(s);
  ev_write(ev, chars, (size_t)s.u.seq->len);
  return val_bool(true);
}

/* @x: NESL's own conversion to text, unlike the REPL printer: booleans
   are t and f, floats have 8 significant digits (rt/print.c's rule:
   `1.2345678e+7`, `1.0e-4`), a string is a sequence of characters like
   any other, and a datatype value is its fields' text, without the
   constructor's name.  A pair (a, b) is "(" a ", " b's items ")", where
   the items of a pair (c, d) are c ", " d and of anything else its text:
   one level of the right spine is opened, no more.  So (1, 2, 3) is
   "(1, 2, 3)" but (1, 2, 3, 4) is "(1, 2, (3, 4))", and @point(1, 2) is
   "(1, 2)": what CMU NESL 3.1's string prints (tests/syntax/print_and_string).
   A function value is the text "function", as NESL writes it; the value
   itself is only F (see eval.c), so its type 't' (monomorphic) says
   where the functions are. */
static void to_string(Eval *ev, Buf *b, Value v, Type *t);

/* The types of a pair's two parts, or of a datatype's fields. */
static Type *part_type(Type *t, bool fst) {
  t = type_resolve(t);
  return fst ? t->fst : t->snd;
}

static Type *fields_type(Eval *ev, Value v, Type *t) {
  Type *ft = type_instantiate(ev_constructor(ev, type_resolve(t))->type, 0);
  if (!type_unify(ft->snd, t))
    die("to_string: a %s value of another type", v.u.data->con->name);
  return ft->fst;
}

static void items(Eval *ev, Buf *b, Value v, Type *t) {
  if (v.kind == V_DATA) {
    t = fields_type(ev, v, t);
    v = v.u.data->fields;
  }
  if (v.kind != V_PAIR) {
    to_string(ev, b, v, t);
    return;
  }
  to_string(ev, b, v.u.pair->fst, part_type(t, true));
  buf_puts(b, ", ");
  to_string(ev, b, v.u.pair->snd, part_type(t, false));
}

static void to_string(Eval *ev, Buf *b, Value v, Type *t) {
  if (type_resolve(t)->kind == T_FUN) {
    buf_puts(b, "function");
    return;
  }
  switch (v.kind) {
  case V_INT:
    buf_printf(b, "%d", (int)v.u.i);
    return;
  case V_FLOAT: {
    char text[RT_FLOAT_BUF];
    rt_format_float_text(text, v.u.f);
    buf_puts(b, text);
    return;
  }
  case V_BOOL:
    buf_putc(b, v.u.b ? 't' : 'f');
    return;
  case V_CHAR:
    buf_putc(b, '`');
    buf_putc(b, v.u.c);
    return;
  case V_SEQ:
    buf_putc(b, '[');
    for (int64_t i = 0; i < v.u.seq->len; i++) {
      if (i)
        buf_puts(b, ", ");
      to_string(ev, b, v.u.seq->elems[i], type_resolve(t)->elem);
    }
    buf_putc(b, ']');
    return;
  case V_PAIR:
    buf_putc(b, '(');
    to_string(ev, b, v.u.pair->fst, part_type(t, true));
    buf_puts(b, ", ");
    items(ev, b, v.u.pair->snd, part_type(t, false));
    buf_putc(b, ')');
    return;
  case V_DATA:
    to_string(ev, b, v.u.data->fields, fields_type(ev, v, t));
    return;
  }
}

static Value p_to_string(Eval *ev, Value v, Loc loc, Type *type) {
  /* NESL's conversion takes the log of a float, which fails on these */
  double bad;
  if (val_nonfinite(v, &bad))
    ev_error(ev, loc, "@: %s has no text (infinity and not-a-number (NaN) are not supported)",
             rt_nonfinite_name(bad));
  Buf b = {0};
  to_string(ev, &b, v, type_resolve(type)->fst);
  return val_string(buf_str(&b), b.len);
}

/* exp_string(x, d): x in exponent notation with d digits after the point,
   in NESL's form 3.1416e+0 (no zeros padding the exponent). */
static Value p_exp_string(Eval *ev, Value a, Loc loc, Type *type) {
  (void)type;
  double x = a.u.pair->fst.u.f;
  int32_t d = SND(a).u.i;
  if (d < 0 || d > 40)
    ev_error(ev, loc, "exp_string: %d digits after the point", d);
  if (!isfinite(x))
    ev_error(ev, loc, "exp_string: %s has no text (infinity and not-a-number (NaN) are not supported)",
             rt_nonfinite_name(x));
  char text[96];
  if (x == 0.0) /* NESL writes zero plainly */
    return val_string("0.0", 3);
  snprintf(text, sizeof text, "%.*e", (int)d, x);
  char *e = strchr(text, 'e');
  int exponent = atoi(e + 1);
  *e = '\0';
  char *r = xprintf("%se%c%d", text, exponent < 0 ? '-' : '+', abs(exponent));
  return val_string(r, strlen(r));
}

/* parse_int(s): (value, ok); ok is false unless all of s is an int */
static Value p_parse_int(Eval *ev, Value s, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  /* the number at the start of the text, and whether the text is just
     that number (the reference keeps the leading number: "12a" gives
     (12, F)) */
  char *text = val_string_chars(s), *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  bool in_range = errno == 0 && v >= INT32_MIN && v <= INT32_MAX;
  bool ok = end != text && *end == '\0' && in_range;
  return val_pair(val_int(end != text && in_range ? (int32_t)v : 0), val_bool(ok));
}

static Value p_parse_float(Eval *ev, Value s, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  bool ok;
  double v = rt_parse_float_text(val_string_chars(s), &ok);
  return val_pair(val_float(v), val_bool(ok));
}

/* ---- files ---- */

static char *read_all(FILE *f, size_t *len) {
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    for (size_t i = 0; i < n; i++)
      buf_putc(&b, chunk[i]);
  *len = b.len;
  return buf_str(&b);
}

static Value write_file(Value a, const char *mode) {
  Value text = a.u.pair->fst;
  char *name = val_string_chars(SND(a));
  FILE *f = fopen(name, mode);
  if (!f)
    return val_bool(false);
  size_t n = (size_t)text.u.seq->len;
  bool ok = fwrite(val_string_chars(text), 1, n, f) == n;
  ok &= fclose(f) == 0;
  return val_bool(ok);
}

static Value p_write_string_to_file(Eval *ev, Value a, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  return write_file(a, "wb");
}

static Value p_append_string_to_file(Eval *ev, Value a, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  return write_file(a, "ab");
}

static Value p_read_string_from_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)type;
  char *path = val_string_chars(name);
  FILE *f = fopen(path, "rb");
  if (!f)
    ev_error(ev, loc, "read_string_from_file: cannot open '%s': %s", path, strerror(errno));
  size_t len;
  char *text = read_all(f, &len);
  fclose(f);
  return val_string(text, len);
}

/* The whitespace-separated numbers of a file. */
static Value read_numbers(Eval *ev, Value name, Loc loc, bool floats, const char *fn) {
  char *path = val_string_chars(name);
  FILE *f = fopen(path, "rb");
  if (!f)
    ev_error(ev, loc, "%s: cannot open '%s': %s", fn, path, strerror(errno));
  size_t len;
  char *text = read_all(f, &len);
  fclose(f);
  Vec items = {0};
  char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
      p++;
    if (!*p)
      break;
    char *end;
    Value *v = NEW(Value);
    errno = 0;
    if (floats) {
      double x = strtod(p, &end);
      *v = val_float(x);
    } else {
      long long x = strtoll(p, &end, 10);
      if (x < INT32_MIN || x > INT32_MAX)
        errno = ERANGE;
      *v = val_int((int32_t)x);
    }
    if (end == p || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
      ev_error(ev, loc, "%s: '%s' holds something that is not %s", fn, path, floats ? "a float" : "an int");
    vec_push(&items, v);
    p = end;
  }
  Value r = val_seq_new(items.len);
  for (int i = 0; i < items.len; i++)
    r.u.seq->elems[i] = *(Value *)items.data[i];
  return r;
}

static Value p_read_int_seq_from_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)type;
  return read_numbers(ev, name, loc, false, "read_int_seq_from_file");
}

static Value p_read_float_seq_from_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)type;
  return read_numbers(ev, name, loc, true, "read_float_seq_from_file");
}

static Value make_stream(Eval *ev, int32_t n) {
  Def *con = ev_stream_constructor(ev);
  return val_data(con, val_int(n));
}

static Value open_file(Eval *ev, Value name, const char *mode) {
  const char *why = "";
  int32_t n = rt_stream_open(val_string_chars(name), mode, &why);
  if (n < 0)
    return failure(make_stream(ev, -1), why);
  return ok_result(make_stream(ev, n));
}

static Value p_open_in_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  return open_file(ev, name, "rb");
}

static Value p_open_out_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  return open_file(ev, name, "wb");
}

static Value p_open_append_file(Eval *ev, Value name, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  return open_file(ev, name, "ab");
}

/* get_environment_variable(name): its value, or "" where it is not set
   (NESL runs printenv NAME) */
static Value p_get_environment_variable(Eval *ev, Value name, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  const char *value = getenv(val_string_chars(name));
  return val_string(value ? value : "", value ? strlen(value) : 0);
}

/* close_file(s): (ok, message) */
static Value p_close_file(Eval *ev, Value s, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  (void)type;
  const char *why = "";
  bool ok = rt_stream_close(s.u.data->fields.u.i, &why);
  return val_pair(val_bool(ok), val_string(why, strlen(why)));
}

static Value write_to(Eval *ev, Value stream, const char *s, size_t n) {
  int32_t id = stream.u.data->fields.u.i;
  if (id == -1)
    return val_pair(val_bool(true), val_string("", 0));
  FILE *f = stream_file(ev, stream);
  if (!f || id == 0)
    return val_pair(val_bool(false), val_string("not an output stream", 20));
  if (f == ev_out(ev)) {
    ev_write(ev, s, n);
    return val_pair(val_bool(true), val_string("", 0));
  }
  bool ok = fwrite(s, 1, n, f) == n;
  return val_pair(val_bool(ok), ok ? val_string("", 0) : val_string("write failed", 12));
}

static Value p_write_char(Eval *ev, Value a, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  char c = a.u.pair->fst.u.c;
  return write_to(ev, SND(a), &c, 1);
}

static Value p_write_string(Eval *ev, Value a, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  Value s = a.u.pair->fst;
  return write_to(ev, SND(a), val_string_chars(s), (size_t)s.u.seq->len);
}

static FILE *input(Eval *ev, Value stream) {
  int32_t id = stream.u.data->fields.u.i;
  if (id == 1 || id == 2)
    return NULL;
  return stream_file(ev, stream);
}

/* read_char(s): (c, ok, message) */
static Value p_read_char(Eval *ev, Value s, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  FILE *f = input(ev, s);
  int c = f ? fgetc(f) : EOF;
  if (c == EOF)
    return failure(val_char(0), f ? "end of file" : "not an input stream");
  return ok_result(val_char((char)c));
}

/* read_string(delims, maxlen, s): ((text, n), ok, message): reads up to
   maxlen characters, stopping before any character of 'delims'; n is the
   number read. */
static Value p_read_string(Eval *ev, Value a, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  char *delims = val_string_chars(a.u.pair->fst);
  int32_t maxlen = SND(a).u.pair->fst.u.i;
  FILE *f = input(ev, SND(a).u.pair->snd);
  Buf b = {0};
  if (!f)
    return failure(val_pair(val_string("", 0), val_int(0)), "not an input stream");
  while ((int64_t)b.len < maxlen) {
    int c = fgetc(f);
    if (c == EOF)
      break;
    if (strchr(delims, c) && c != 0) {
      ungetc(c, f);
      break;
    }
    buf_putc(&b, (char)c);
  }
  return ok_result(val_pair(val_string(buf_str(&b), b.len), val_int((int32_t)b.len)));
}

/* read_line(s): ((line, eof), ok, message): the line without its newline;
   'eof' is true when the stream ended before a newline. */
static Value p_read_line(Eval *ev, Value s, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  FILE *f = input(ev, s);
  if (!f)
    return failure(val_pair(val_string("", 0), val_bool(true)), "not an input stream");
  Buf b = {0};
  int c;
  while ((c = fgetc(f)) != EOF && c != '\n')
    buf_putc(&b, (char)c);
  return ok_result(val_pair(val_string(buf_str(&b), b.len), val_bool(c == EOF)));
}

/* read_word(s): ((word, delimiter, eof), ok, message): skips blanks,
   reads up to the next blank. */
static Value p_read_word(Eval *ev, Value s, Loc loc, Type *type) {
  (void)loc;
  (void)type;
  FILE *f = input(ev, s);
  if (!f)
    return failure(val_pair(val_string("", 0), val_pair(val_char(0), val_bool(true))), "not an input stream");
  int c;
  while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
    ;
  Buf b = {0};
  while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
    buf_putc(&b, (char)c);
    c = fgetc(f);
  }
  return ok_result(val_pair(val_string(buf_str(&b), b.len),
                            val_pair(val_char(c == EOF ? 0 : (char)c), val_bool(c == EOF))));
}

/* ---- objects in files: the REPL's printed form, read back by type ---- */

static Value p_write_object_to_file(Eval *ev, Value a, Loc loc, Type *type) {
  (void)ev;
  (void)loc;
  Type *ft = type ? type_resolve(type) : NULL;
  Type *obj_type = ft ? type_resolve(ft->fst)->fst : NULL;
  size_t len;
  char *text = val_to_string(a.u.pair->fst, obj_type, &len);
  char *path = val_string_chars(SND(a));
  FILE *f = fopen(path, "wb");
  if (!f)
    return val_bool(false);
  bool ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
  ok &= fclose(f) == 0;
  return val_bool(ok);
}

typedef struct Reader {
  Eval *ev;
  Loc loc;
  const char *path;
  const char *p;
} Reader;

_Noreturn static void bad_object(Reader *r, const char *what) {
  ev_error(r->ev, r->loc, "read_object_from_file: '%s' does not hold %s where expected", r->path, what);
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

static Value read_value(Reader *r, Type *t);

/* The items of a tuple, right spine flattened: a, b, c */
static Value read_items(Reader *r, Type *t) {
  t = type_resolve(t);
  if (t->kind != T_PAIR)
    return read_value(r, t);
  Value a = read_value(r, t->fst);
  expect_char(r, ',', "a tuple");
  return val_pair(a, read_items(r, t->snd));
}

static Value read_value(Reader *r, Type *t) {
  t = type_resolve(t);
  skip_space(r);
  char *end;
  switch (t->kind) {
  case T_INT: {
    long long v = strtoll(r->p, &end, 10);
    if (end == r->p || v < INT32_MIN || v > INT32_MAX)
      bad_object(r, "an int");
    r->p = end;
    return val_int((int32_t)v);
  }
  case T_FLOAT: {
    double v = strtod(r->p, &end);
    if (end == r->p)
      bad_object(r, "a float");
    r->p = end;
    return val_float(v);
  }
  case T_BOOL:
    if (*r->p != 'T' && *r->p != 'F')
      bad_object(r, "a boolean");
    return val_bool(*r->p++ == 'T');
  case T_CHAR:
    if (r->p[0] != '`' || !r->p[1])
      bad_object(r, "a character");
    r->p += 2;
    return val_char(r->p[-1]);
  case T_SEQ: {
    Type *et = type_resolve(t->elem);
    if (et->kind == T_CHAR && *r->p == '"') {
      const char *start = ++r->p;
      while (*r->p && *r->p != '"')
        r->p++;
      if (!*r->p)
        bad_object(r, "a string");
      Value v = val_string(start, (size_t)(r->p - start));
      r->p++;
      return v;
    }
    expect_char(r, '[', "a sequence");
    Vec items = {0};
    skip_space(r);
    if (*r->p != ']') {
      for (;;) {
        Value *v = NEW(Value);
        *v = read_value(r, et);
        vec_push(&items, v);
        skip_space(r);
        if (*r->p != ',')
          break;
        r->p++;
      }
    }
    expect_char(r, ']', "the end of a sequence");
    Value s = val_seq_new(items.len);
    for (int i = 0; i < items.len; i++)
      s.u.seq->elems[i] = *(Value *)items.data[i];
    return s;
  }
  case T_PAIR: {
    expect_char(r, '(', "a tuple");
    Value v = read_items(r, t);
    expect_char(r, ')', "the end of a tuple");
    return v;
  }
  case T_DATA: {
    size_t n = strlen(t->name);
    if (strncmp(r->p, t->name, n) != 0)
      bad_object(r, xprintf("a %s", t->name));
    r->p += n;
    Def *con = ev_constructor(r->ev, t);
    Type *ft = type_instantiate(con->type, 0);
    if (!type_unify(ft->snd, t))
      bad_object(r, xprintf("a %s", t->name));
    expect_char(r, '(', "a datatype's fields");
    Value fields = read_items(r, ft->fst);
    expect_char(r, ')', "the end of a datatype's fields");
    return val_data(con, fields);
  }
  default:
    ev_error(r->ev, r->loc, "read_object_from_file: the type of the object is not known here");
  }
}

/* read_object_from_file(template, file): an object of the template's
   type, as write_object_to_file wrote it. */
static Value p_read_object_from_file(Eval *ev, Value a, Loc loc, Type *type) {
  char *path = val_string_chars(SND(a));
  FILE *f = fopen(path, "rb");
  if (!f)
    ev_error(ev, loc, "read_object_from_file: cannot open '%s': %s", path, strerror(errno));
  size_t len;
  char *text = read_all(f, &len);
  fclose(f);
  Reader r = {ev, loc, path, text};
  Value v = read_value(&r, type_resolve(type)->snd);
  skip_space(&r);
  if (*r.p)
    bad_object(&r, "only one object");
  return v;
}

static const Prim io_prims[] = {
    {"write_object_to_file", p_write_object_to_file, true},
    {"read_object_from_file", p_read_object_from_file, true},
    {"print_char", p_print_char, false},
    {"print_string", p_print_string, false},
    {"__to_string", p_to_string, true},
    {"exp_string", p_exp_string, false},
    {"parse_int", p_parse_int, false},
    {"parse_float", p_parse_float, false},
    {"write_string_to_file", p_write_string_to_file, false},
    {"append_string_to_file", p_append_string_to_file, false},
    {"read_string_from_file", p_read_string_from_file, false},
    {"read_int_seq_from_file", p_read_int_seq_from_file, false},
    {"read_float_seq_from_file", p_read_float_seq_from_file, false},
    {"open_in_file", p_open_in_file, false},
    {"open_out_file", p_open_out_file, false},
    {"open_append_file", p_open_append_file, false},
    {"get_environment_variable", p_get_environment_variable, false},
    {"close_file", p_close_file, false},
    {"write_char", p_write_char, false},
    {"write_string", p_write_string, false},
    {"read_char", p_read_char, false},
    {"read_string", p_read_string, false},
    {"read_line", p_read_line, false},
    {"read_word", p_read_word, false},
};

const Prim *prim_lookup_io(const char *name) {
  for (size_t i = 0; i < sizeof io_prims / sizeof io_prims[0]; i++)
    if (strcmp(io_prims[i].name, name) == 0)
      return &io_prims[i];
  return NULL;
}
