/*
 * print.c: NESL's printed form of every value, one printer for the
 * interpreters and the executables (the source evaluator prints its own
 * nested values with the scalar rules here).
 *
 * The float rule is NESL's, not printf's: round to 15 significant digits
 * first, then choose plain or E notation from the decimal exponent of the
 * rounded value (so 9999999.99999999999 rounds to 1.0E7), then drop
 * trailing zeros but keep one digit after the point.  @ has a rule of its
 * own (8 significant digits, `1.2345678e+7`).
 *
 * A value is printed from its components and its layout: a sequence's
 * elements are found through the segdes's offsets, never rebuilt.
 *
 * Floats compute with infinities and NaN, as NESL's do, but a
 * statement's value that holds one is an error (rt_check_value), and so
 * is @ of one (NESL's conversion takes a logarithm of it): neither is
 * ever printed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "rt.h"

/* ---- scalars ---- */

/* Removes trailing zeros of the fraction in 's' (which has a point),
   keeping at least one digit after the point. */
static void trim_zeros(char *s) {
  char *point = strchr(s, '.');
  if (!point)
    return;
  char *end = s + strlen(s) - 1;
  while (end > point + 1 && *end == '0')
    *end-- = '\0';
}

/* 'x' with 'digits' significant digits: plain for 1e-3 <= |x| < 1e7 (of
   the rounded value), otherwise the mantissa and the exponent as
   'exponent_fmt' writes them (one digit after the point at least). */
static void format_float(char *buf, double x, int digits, const char *exponent_fmt) {
  if (isnan(x)) {
    strcpy(buf, "NaN");
    return;
  }
  if (isinf(x)) {
    strcpy(buf, x > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (x == 0.0) { /* -0.0 too: NESL prints 0.0 */
    strcpy(buf, "0.0");
    return;
  }
  char sci[RT_FLOAT_BUF];
  snprintf(sci, sizeof sci, "%.*e", digits - 1, x);
  char *e = strchr(sci, 'e');
  int exponent = atoi(e + 1);
  *e = '\0';
  if (exponent >= -3 && exponent < 7) {
    /* plain: as many decimals as leave 'digits' significant digits */
    snprintf(buf, RT_FLOAT_BUF, "%.*f", digits - 1 - exponent, x);
    if (!strchr(buf, '.'))
      strcat(buf, ".0");
    trim_zeros(buf);
  } else {
    if (!strchr(sci, '.'))
      strcat(sci, ".0");
    trim_zeros(sci);
    /* sci holds at most "-d.dddddddddddddd" (17 bytes): this fits */
    char mantissa[RT_FLOAT_BUF];
    snprintf(mantissa, sizeof mantissa, "%.20s", sci);
    snprintf(buf, RT_FLOAT_BUF, exponent_fmt, mantissa, exponent < 0 ? "-" : "+", abs(exponent));
  }
}

void rt_format_float(char *buf, double x) {
  /* the REPL's: 1.0E10, 1.0E-4 */
  char tmp[RT_FLOAT_BUF];
  format_float(tmp, x, 15, "%sE%s%d");
  /* no '+' in the REPL's exponent */
  char *plus = strstr(tmp, "E+");
  if (plus)
    memmove(plus + 1, plus + 2, strlen(plus + 2) + 1);
  strcpy(buf, tmp);
}

void rt_format_float_text(char *buf, double x) { format_float(buf, x, 8, "%se%s%d"); }

void rt_print_float(FILE *out, double x) {
  char buf[RT_FLOAT_BUF];
  rt_format_float(buf, x);
  fputs(buf, out);
}

void rt_print_int(FILE *out, int32_t x) { fprintf(out, "%d", (int)x); }

void rt_print_bool(FILE *out, bool b) { fputc(b ? 'T' : 'F', out); }

void rt_print_char(FILE *out, char c) {
  fputc('`', out);
  fputc(c, out);
}

void rt_print_string(FILE *out, const char *s, size_t n) {
  fputc('"', out);
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"' || s[i] == '\\')
      fputc('\\', out);
    fputc(s[i], out);
  }
  fputc('"', out);
}

/* ---- values that are not finite ---- */

const char *rt_nonfinite_name(double x) {
  /* a NaN's sign is left out: the device's NaN is positive where x86's is
     not */
  return isnan(x) ? "NAN" : x > 0 ? "INF" : "-INF";
}

bool rt_value_nonfinite(const RtLayout *l, RtValue **comps, bool host, double *bad) {
  int n = rt_layout_count(l, host);
  RtType *types = rt_alloc_atomic(sizeof(RtType) * (size_t)(n + 1));
  rt_layout_types(l, host, types);
  bool found = false;
  for (int c = 0; c < n && !found; c++) {
    if (types[c].kind == RT_SEGDES || types[c].base != RT_FLOAT)
      continue;
    const double *f = comps[c]->data.f;
    for (int64_t k = 0; k < comps[c]->len; k++)
      if (!isfinite(f[k])) {
        *bad = f[k];
        found = true;
        break;
      }
  }
  rt_free(types);
  return found;
}

void rt_check_value(RtLoc loc, const RtLayout *l, RtValue **comps) {
  double bad;
  if (rt_value_nonfinite(l, comps, true, &bad))
    rt_fail(loc, NULL, "returning %s: infinity and not-a-number (NaN) are not supported", rt_nonfinite_name(bad));
}

/* ---- values ---- */

/* How to print: the REPL's form, or @'s. */
typedef struct Printer {
  RtBuf b;
  bool text; /* @ */
} Printer;

static void put_scalar(Printer *p, RtLayoutKind k, const RtValue *v, int64_t i) {
  char buf[RT_FLOAT_BUF];
  switch (k) {
  case RL_INT:
    snprintf(buf, sizeof buf, "%d", (int)v->data.i[i]);
    rt_buf_puts(&p->b, buf);
    return;
  case RL_FLOAT:
    if (p->text)
      rt_format_float_text(buf, v->data.f[i]);
    else
      rt_format_float(buf, v->data.f[i]);
    rt_buf_puts(&p->b, buf);
    return;
  case RL_BOOL:
    rt_buf_putc(&p->b, v->data.b[i] ? (p->text ? 't' : 'T') : (p->text ? 'f' : 'F'));
    return;
  case RL_CHAR:
    rt_buf_putc(&p->b, '`');
    rt_buf_putc(&p->b, v->data.c[i]);
    return;
  default:
    return;
  }
}

static void put_value(Printer *p, const RtLayout *l, RtValue **comps, int *at, bool host, int64_t k);

/* The elements [from, to) of V(t) at comps[*at ...] as a sequence. */
static void put_sequence(Printer *p, const RtLayout *elem, RtValue **comps, int *at, int64_t from, int64_t to) {
  if (elem->kind == RL_CHAR && !p->text) {
    RtValue *v = comps[(*at)++];
    rt_buf_putc(&p->b, '"');
    for (int64_t i = from; i < to; i++) {
      char c = v->data.c[i];
      if (c == '"' || c == '\\')
        rt_buf_putc(&p->b, '\\'); /* as NESL prints them: "quote \" inside" */
      rt_buf_putc(&p->b, c);
    }
    rt_buf_putc(&p->b, '"');
    return;
  }
  int start = *at, end = start;
  rt_buf_putc(&p->b, '[');
  for (int64_t i = from; i < to; i++) {
    if (i > from)
      rt_buf_puts(&p->b, ", ");
    int here = start;
    put_value(p, elem, comps, &here, false, i);
    end = here;
  }
  rt_buf_putc(&p->b, ']');
  *at = from < to ? end : start + rt_layout_count(elem, false);
}

/* Tuple items, the right spine flattened: 1, (2, 3), 4 prints 1, 2, 3, 4
   (the value printer; @'s text opens one level only, text_items). */
static void put_items(Printer *p, const RtLayout *l, RtValue **comps, int *at, bool host, int64_t k) {
  for (;;) {
    put_value(p, l->fst, comps, at, host, k);
    rt_buf_puts(&p->b, ", ");
    l = l->snd;
    if (l->kind != RL_PAIR) {
      put_value(p, l, comps, at, host, k);
      return;
    }
  }
}

/* @'s text of the second of a pair: a pair's two texts, a datatype's
   fields' items, else its text.  CMU NESL 3.1's string opens one level of
   the right spine, no more: (1, 2, 3) is "(1, 2, 3)", (1, 2, 3, 4) is
   "(1, 2, (3, 4))" (eval/io.c's to_string is the same). */
static void text_items(Printer *p, const RtLayout *l, RtValue **comps, int *at, bool host, int64_t k) {
  if (l->kind == RL_DATA)
    l = l->fst;
  if (l->kind != RL_PAIR) {
    put_value(p, l, comps, at, host, k);
    return;
  }
  put_value(p, l->fst, comps, at, host, k);
  rt_buf_puts(&p->b, ", ");
  put_value(p, l->snd, comps, at, host, k);
}

/* Value k of V(t) (or, 'host', the value H(t)) at comps[*at ...],
   advancing *at past its components. */
static void put_value(Printer *p, const RtLayout *l, RtValue **comps, int *at, bool host, int64_t k) {
  switch (l->kind) {
  case RL_INT:
  case RL_FLOAT:
  case RL_BOOL:
  case RL_CHAR:
    if (l->name) { /* a function value (a named bool): the transcript writes fn, @ what NESL's @ writes */
      rt_buf_puts(&p->b, p->text ? l->name : "fn");
      (*at)++;
      return;
    }
    put_scalar(p, l->kind, comps[(*at)++], host ? 0 : k);
    return;
  case RL_PAIR:
    rt_buf_putc(&p->b, '(');
    if (p->text) {
      put_value(p, l->fst, comps, at, host, k);
      rt_buf_puts(&p->b, ", ");
      text_items(p, l->snd, comps, at, host, k);
    } else {
      put_items(p, l, comps, at, host, k);
    }
    rt_buf_putc(&p->b, ')');
    return;
  case RL_DATA:
    if (p->text) { /* @: its fields' text, without the constructor (as CMU NESL's string) */
      put_value(p, l->fst, comps, at, host, k);
      return;
    }
    rt_buf_puts(&p->b, l->name);
    rt_buf_putc(&p->b, '(');
    if (l->fst->kind == RL_PAIR)
      put_items(p, l->fst, comps, at, host, k);
    else
      put_value(p, l->fst, comps, at, host, k);
    rt_buf_putc(&p->b, ')');
    return;
  case RL_SEQ:
    if (host) {
      /* H([t]) = V(t): all its values, which its first component counts */
      put_sequence(p, l->elem, comps, at, 0, comps[*at]->len);
    } else {
      const int64_t *off = rt_seg_offsets(comps[(*at)++]);
      put_sequence(p, l->elem, comps, at, off[k], off[k + 1]);
    }
    return;
  }
}

static char *text_of(const RtLayout *l, RtValue **comps, bool text, size_t *len) {
  Printer p = {{0}, text};
  int at = 0;
  put_value(&p, l, comps, &at, true, 0);
  if (len)
    *len = p.b.len;
  return rt_buf_str(&p.b);
}

char *rt_value_text(const RtLayout *l, RtValue **comps, size_t *len) { return text_of(l, comps, false, len); }

char *rt_to_string(const RtLayout *l, RtValue **comps, size_t *len) { return text_of(l, comps, true, len); }

/* A value's text is written by its length: a character of code 0 in it
   is printed, as NESL prints it, and does not end the text. */
void rt_print_value(FILE *out, const RtLayout *l, RtValue **comps) {
  size_t n;
  char *s = rt_value_text(l, comps, &n);
  fwrite(s, 1, n, out);
  rt_free(s);
}

void rt_print_binding(const char *name, const RtLayout *l, RtValue **comps, const char *type_text) {
  size_t n;
  char *s = rt_value_text(l, comps, &n);
  rt_begin_line();
  FILE *out = rt_output();
  fprintf(out, "%s = ", name);
  fwrite(s, 1, n, out);
  fprintf(out, " : %s\n", type_text);
  fflush(out);
  rt_free(s);
}
