/*
 * nesl_compare.c: compares a nessie transcript with a reference .expected
 * file by the rules of ../shared/corpus/README.md ("How to compare"):
 *   - lines are compared in order, and both files must have as many;
 *   - an `error:` line matches any `error:` line (the wording may differ);
 *   - floats (numbers written with a point or an E) match within a
 *     relative tolerance of 1e-9 (absolute 1e-12 near zero), but inside
 *     a string literal ("..."), whose text must be equal: @ and
 *     exp_string write numbers as NESL does, and the comparison must not
 *     hide it;
 *   - everything else must be equal, a character of code 0 included
 *     (NESL prints one as it is: it is read as the text <NUL>, in both
 *     files, so that it does not end its line's string).
 * usage: nesl_compare ACTUAL EXPECTED; exit 0 if they match, else 1 with
 * the first difference on stderr.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **read_lines(const char *path, int *count) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "nesl_compare: cannot read %s\n", path);
    exit(2);
  }
  int cap = 64, n = 0;
  char **lines = malloc(sizeof(char *) * (size_t)cap);
  char *line = NULL;
  size_t len = 0;
  ssize_t got;
  while ((got = getline(&line, &len, f)) >= 0) {
    if (got > 0 && line[got - 1] == '\n')
      got--;
    size_t nuls = 0;
    for (ssize_t i = 0; i < got; i++)
      nuls += line[i] == '\0';
    char *copy = malloc((size_t)got + 4 * nuls + 1), *q = copy;
    for (ssize_t i = 0; i < got; i++) {
      if (line[i] == '\0') {
        memcpy(q, "<NUL>", 5);
        q += 5;
      } else
        *q++ = line[i];
    }
    *q = '\0';
    if (n == cap)
      lines = realloc(lines, sizeof(char *) * (size_t)(cap *= 2));
    lines[n++] = copy;
  }
  free(line);
  fclose(f);
  *count = n;
  return lines;
}

/* A number token at 'p': digits with an optional sign, point and exponent.
   Returns its length (0 if none) and whether it is a float. */
static size_t number_at(const char *p, bool *is_float) {
  const char *q = p;
  *is_float = false;
  if (*q == '-')
    q++;
  if (!isdigit((unsigned char)*q))
    return 0;
  while (isdigit((unsigned char)*q))
    q++;
  if (*q == '.') {
    *is_float = true;
    q++;
    while (isdigit((unsigned char)*q))
      q++;
  }
  if (*q == 'E' || *q == 'e') {
    const char *r = q + 1;
    if (*r == '-' || *r == '+')
      r++;
    if (isdigit((unsigned char)*r)) {
      *is_float = true;
      q = r;
      while (isdigit((unsigned char)*q))
        q++;
    }
  }
  return (size_t)(q - p);
}

static bool close_enough(double a, double b) {
  double diff = fabs(a - b);
  return diff <= 1e-12 || diff <= 1e-9 * fmax(fabs(a), fabs(b));
}

static bool lines_match(const char *a, const char *b) {
  if (strncmp(a, "error:", 6) == 0 && strncmp(b, "error:", 6) == 0)
    return true;
  const char *start = a;
  while (*a && *b) {
    /* a string literal (not the character `"): its text exactly */
    if (*a == '"' && *b == '"' && !(a > start && a[-1] == '`')) {
      a++;
      b++;
      while (*a && *a == *b && *a != '"') {
        if (*a == '\\' && a[1] && a[1] == b[1]) {
          a++;
          b++;
        }
        a++;
        b++;
      }
      if (!*a && !*b) /* the string goes on on the next line */
        return true;
      if (*a != '"' || *b != '"')
        return false;
      a++;
      b++;
      continue;
    }
    bool fa, fb;
    /* a number starts after a non-identifier character */
    size_t na = number_at(a, &fa), nb = number_at(b, &fb);
    if (na && nb && (fa || fb)) {
      if (!close_enough(strtod(a, NULL), strtod(b, NULL)))
        return false;
      a += na;
      b += nb;
      continue;
    }
    if (*a != *b)
      return false;
    /* skip identifiers whole, so that digits inside names are not numbers */
    if (isalpha((unsigned char)*a) || *a == '_') {
      while ((isalnum((unsigned char)*a) || *a == '_') && *a == *b) {
        a++;
        b++;
      }
      continue;
    }
    a++;
    b++;
  }
  return *a == *b;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: nesl_compare ACTUAL EXPECTED\n");
    return 2;
  }
  int na, nb;
  char **a = read_lines(argv[1], &na), **b = read_lines(argv[2], &nb);
  for (int i = 0; i < na && i < nb; i++)
    if (!lines_match(a[i], b[i])) {
      fprintf(stderr, "line %d differs:\n  got:      %s\n  expected: %s\n", i + 1, a[i], b[i]);
      return 1;
    }
  if (na != nb) {
    fprintf(stderr, "%d lines, expected %d%s%s\n", na, nb, na > nb ? "; extra: " : "; missing: ",
            na > nb ? a[nb] : b[na]);
    return 1;
  }
  return 0;
}
