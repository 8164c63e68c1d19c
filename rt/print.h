/*
 * print.h: NESL's printed form of scalar values, shared by every backend
 * (the interpreters, the CPU and GPU executables), so that all of them
 * print identically.  Plain C17, no dependencies.
 *
 * Floats: 15 significant digits, shortest form, a trailing `.0` when
 * integral; plain notation for 1e-3 <= |x| < 1e7, otherwise E notation
 * with a capital E and no '+' (`1.0E10`, `1.23456789E9`, `1.0E-4`).
 * Characters print as `a, strings in double quotes, booleans as T and F.
 */
#ifndef NESSIE_RT_PRINT_H
#define NESSIE_RT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { RT_FLOAT_BUF = 40 };

/* Writes the NESL form of 'x' into 'buf' (RT_FLOAT_BUF bytes). */
void rt_format_float(char *buf, double x);
void rt_print_float(FILE *out, double x);
void rt_print_int(FILE *out, int32_t x);
void rt_print_bool(FILE *out, bool b);
void rt_print_char(FILE *out, char c);
/* A [char] as NESL prints it: "abc", with \" and \\ for the quote
   and the backslash. */
void rt_print_string(FILE *out, const char *s, size_t n);

#endif
