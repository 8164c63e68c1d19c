/*
 * bounds.h: subscripts that the conditions around them keep in range.
 *
 * A lifted subscript `a[i]` is checked (0 <= i < #a for each element)
 * by a REDUCE that finds the first element where it fails, and a check
 * on the host after it: at a divide and conquer's every level, a launch
 * and a kernel more (quicksort's pivot `a[#a / 2]`).  Where an
 * enclosing `if` says that `#a` is at least some n, some indices cannot
 * fail: a constant below n, `#a / c` for a constant c >= 2 where n >= 1,
 * `#a - c` for 1 <= c <= n, or a local a let bound to one of them (or to
 * `#a`, in a condition).  Such a
 * subscript is marked (Expr.u.index.in_range) and flattening leaves
 * its check out; its gather reads as before.
 */
#ifndef NESSIE_BOUNDS_H
#define NESSIE_BOUNDS_H

#include "frontend/ast.h"

/* Marks the subscripts of 'e' that cannot be out of range.  Requires a
   checked expression (operators name the library's functions); keeps
   everything else as it is. */
void bounds_mark_subscripts(Expr *e);

#endif
