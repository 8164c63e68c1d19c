/*
 * invariant.h: the closed expressions of a program, which NESL evaluates
 * once in lifted code.
 *
 * CMU NESL 3.1 flattens an apply-to-each by computing each step of its
 * body for all elements at once, and an expression of the body that
 * reads no local variable (only constants, top-level bindings and calls
 * of functions that do no I/O and draw no random number) is computed
 * once, as a scalar, where it stands.  So it is computed even when there
 * are no elements: `{1 / 0 : x in [] int}` is a division by zero, and so
 * is `{g(x) : x in [] int}` where g's body has `1 / 0` outside an `if`
 * branch; but not inside the branches of an `if` that no element takes
 * (`{if x > 0 then 1 / 0 else 1 : x in [-1]}` is [1]), nor where the
 * expression reads a variable bound outside the apply-to-each (`let z =
 * 0 in {1 / z : x in [] int}` is []).  flatten/ computes such an
 * expression once in lifted code, which is also what makes
 * `{x + sum(v) : x in s}` with v a top-level binding cost one sum, not
 * #s; eval/ computes them for an apply-to-each over no elements (and for
 * the functions its body calls), so that every backend reports the same
 * errors (docs/nesl.md, "Closed expressions").
 */
#ifndef NESSIE_INVARIANT_H
#define NESSIE_INVARIANT_H

#include "frontend/ast.h"

/* What the questions below found, kept between them (zero-initialized
   is empty): each expression and function is looked at once. */
typedef struct Invariants {
  PtrMap closed; /* Expr * -> CLOSED_YES / CLOSED_NO */
  PtrMap free;   /* Expr * -> the local variables it reads */
  PtrMap pure;   /* Def * -> PURE_YES / PURE_NO / PURE_VISITING */
} Invariants;

/* True if 'e' is closed (it reads no local variable and applies no
   function value), pure (it calls nothing that does I/O, draws a random
   number or reads the clock, directly or through user functions), not a
   function, and does work (it holds an operator, a call, a subscript, a
   range, an apply-to-each, a let or an if: a literal made only of
   constants is as cheap everywhere).  Such an expression has the same
   value for every element of lifted code around it. */
bool inv_hoistable(Invariants *m, Expr *e);

/* The walk of what lifted code for 'e' computes over no elements: each
   closed expression (inv_hoistable) goes to 'closed' and is not looked
   into; of an `if`, only its condition is walked (no element takes a
   branch); every other subexpression is walked, and then each call, of
   a function or of a function value (EX_CALL, EX_BINOP, EX_UNOP,
   EX_APP), goes to 'call', which walks the callee's body (with this
   function again) if it will.  eval and flatten walk with it, so that
   both compute the same closed expressions. */
void inv_walk_closed(Invariants *m, Expr *e, void (*closed)(void *ctx, Expr *e), void (*call)(void *ctx, Expr *e),
                     void *ctx);

#endif
