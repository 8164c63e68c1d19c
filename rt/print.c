/*
 * print.c: NESL's printed form of scalars (see print.h for the rules).
 *
 * The float rule is NESL's, not printf's: round to 15 significant digits
 * first, then choose plain or E notation from the decimal exponent of the
 * rounded value (so 9999999.99999999999 rounds to 1.0E7), then drop
 * trailing zeros but keep one digit after the point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

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

void rt_format_float(char *buf, double x) {
  if (isnan(x)) {
    strcpy(buf, "NaN");
    return;
  }
  if (isinf(x)) {
    strcpy(buf, x > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (x == 0.0) {
    strcpy(buf, signbit(x) ? "-0.0" : "0.0");
    return;
  }
  /* 15 significant digits: d.dddddddddddddde±XX */
  char sci[RT_FLOAT_BUF];
  snprintf(sci, sizeof sci, "%.14e", x);
  char *e = strchr(sci, 'e');
  int exponent = atoi(e + 1);
  *e = '\0';
  if (exponent >= -3 && exponent < 7) {
    /* plain: as many decimals as leave 15 significant digits */
    int decimals = 14 - exponent;
    snprintf(buf, RT_FLOAT_BUF, "%.*f", decimals, x);
    if (!strchr(buf, '.'))
      strcat(buf, ".0");
    trim_zeros(buf);
  } else {
    trim_zeros(sci);
    /* sci holds at most "-d.dddddddddddddd" (17 bytes): this fits */
    snprintf(buf, RT_FLOAT_BUF, "%.20sE%d", sci, exponent);
  }
}

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
