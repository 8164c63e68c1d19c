/*
 * kernel.h: what generated kernels need of the runtime besides scalar.h:
 * the error record that a kernel writes instead of stopping, and the
 * sites that say where in the NESL source each check stands.
 *
 * A check inside a kernel never traps and never returns to the host: it
 * records its error unless one that comes first is recorded, and the
 * kernel goes on.  An error comes first by the operation that failed
 * (its check's 'order': the checks of a kernel are numbered as its code
 * runs them, which is the order the operations it fuses ran in one at a
 * time, each for every element), then by the element (the lowest
 * index), as the interpreters find it; so the report does not depend on
 * the order threads run in, nor on what fusion put together.  The host reads the record after the kernel (the CPU target) or at
 * its next synchronization (the GPU target) and reports it through
 * rt_kernel_fail, in the words the interpreters use.
 */
#ifndef NESSIE_RT_KERNEL_H
#define NESSIE_RT_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "rt.h"
#include "scalar.h"

/* The segment that holds element j of a segment descriptor's offsets
   'off', searched among segments lo .. hi - 1 where off[lo] <= j <
   off[hi]: the last whose offset is at or below j (the nonempty one,
   whatever empty segments share its offset).  One search for the CPU
   target's SEG_MAP (from 0 to the number of segments) and the GPU
   skeletons (rtg::segment_search). */
RT_FN int64_t rt_segment_search(const int64_t *off, int64_t lo, int64_t hi, int64_t j) {
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (off[mid] <= j)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* What failed. */
typedef enum RtCheck {
  RT_CHECK_NONE,
  RT_CHECK_SCALAR,   /* a scalar operation: 'code' an RtScalarError, 'op'
                        the operation (RtOp), 'x' its operand */
  RT_CHECK_INDEX,    /* a subscript: 'i' of 'len' elements, 'op' RT_GATHER,
                        RT_ELT or RT_SCATTER */
  RT_CHECK_SIZE,     /* a negative size: 'len' (dist's error) */
  RT_CHECK_MESSAGE,  /* a site's own message */
  RT_CHECK_ARGUMENT, /* an argument check (RtCheckKind 'code') on
                        operands 'i' (as a), 'len' (as b) and 'x' (as c) */
  RT_CHECK_NEGATIVE_LENGTH, /* make_segdes: the length 'i' */
  RT_CHECK_TOO_MANY, /* make_segdes, range_segdes: 'len' elements, more than an int
                        counts */
} RtCheck;

/* Where a check stands: the compiler writes one table of sites per
   program, and a kernel's checks name their entries. */
typedef struct RtSite {
  const char *file;
  int line, col;
  const char *prim;    /* the library primitive the operation implements
                          (for the error's words), or NULL */
  const char *message; /* RT_CHECK_MESSAGE: the message */
  const char *lib_fn;  /* a check that fusion moved out of a statement
                          inlined from this library function: its error is
                          worded as in that function, called at
                          file:line:col (the interpreters' LcuExp.lib_fn),
                          or NULL */
  const char *user_fn; /* a check in a scalar function that a thunk calls
                          (λcu's LE_CALL) or a LIBRARY loop runs (an
                          element function): the function, whose call the
                          error names as the interpreters do (in function
                          f, line, column); the call's site is the
                          error's 'len' (its 'x' for a subscript or an
                          argument check, whose 'len' is a length) */
  const struct RtInlined *via; /* file:line:col is in code inlined from a
                          user function (RtLoc.via), or NULL */
} RtSite;

typedef struct RtKernelError {
  int64_t index; /* the element that failed, the lowest; INT64_MAX: none */
  int32_t check; /* RtCheck */
  int32_t site;  /* its entry in the table of sites */
  int32_t code;  /* RT_CHECK_SCALAR: the RtScalarError */
  int32_t op;    /* the operation (RtOp) */
  int32_t i;     /* RT_CHECK_INDEX: the subscript */
  int64_t len;   /* RT_CHECK_INDEX: the length; RT_CHECK_SIZE: the size;
                    RT_CHECK_TOO_MANY: the number of elements;
                    RT_CHECK_SCALAR at a site with a user_fn: the site
                    of the thunk's call of that function */
  double x;      /* RT_CHECK_SCALAR: the operand; RT_CHECK_INDEX and
                    RT_CHECK_ARGUMENT at a site with a user_fn (an
                    element function's subscript or rep, scalarfn.c):
                    the site of the call, as 'len' is a scalar check's */
  int32_t run;   /* the site of the `run` that launched the kernel, where
                    a check without a location of its own is reported */
  int32_t order; /* the check's place in the kernel's order of operations
                    (a check in a scalar function: its call's) */
} RtKernelError;

#define RT_NO_ERROR {INT64_MAX, RT_CHECK_NONE, 0, 0, 0, 0, 0, 0.0, 0, INT32_MAX}

/* Error 'a' comes before 'b': by operation, then by element. */
RT_FN bool rt_kernel_error_before(const RtKernelError *a, const RtKernelError *b) {
  return a->order < b->order || (a->order == b->order && a->index < b->index);
}

/* Records 'e' in '*r' unless an error that comes before it is there
   (host code: under a lock, the rare path; device code has its own,
   atomic, version, rt/gpu.cuh). */
static inline void rt_kernel_record(RtKernelError *r, RtKernelError e) {
#if defined(_OPENMP) && !defined(__CUDACC__) /* CUDA's host kernels run on one thread */
#pragma omp critical(nessie_kernel_error)
#endif
  {
    if (rt_kernel_error_before(&e, r))
      *r = e;
  }
}

/* The CPU target's kernels leave their checks' errors to a second
   version of themselves (codegen/thunk.c, "the recording version"): an
   element whose fast pass fails a check marks the kernel with
   RT_KERNEL_AGAIN, which comes before any error, and the kernel, once its
   SOAC is done, runs again as its recording version, which records the
   error (or, where no check truly fails, computes the results):
   rt_kernel_again (rt.h). */
#define RT_KERNEL_AGAIN INT32_MIN

/* ---- a segment's runs of copies (the CPU target, codegen/copyrun.c) ----

   What a SEG_MAP evaluates, once a run, of a pull that reads one of a few
   vectors at an index affine in the element within the run: each int in
   64 bits, 'ok' cleared where a value leaves the 32 bits the element's
   own computation wraps in (a run is then not taken), or where a check
   fails (the element loop then reports it). */
/* the fewest elements a run copies; a shorter one is left to the
   elements' loop, which costs about as much as finding a run */
#define RT_RUN_MIN 16

RT_FN int64_t rt_run_int(int64_t v, int *ok) {
  if (v < INT32_MIN || v > INT32_MAX)
    *ok = 0;
  return v;
}
RT_FN int64_t rt_run_add(int64_t a, int64_t b, int *ok) { return rt_run_int(a + b, ok); }
RT_FN int64_t rt_run_sub(int64_t a, int64_t b, int *ok) { return rt_run_int(a - b, ok); }
RT_FN int64_t rt_run_mul(int64_t a, int64_t b, int *ok) { return rt_run_int(a * b, ok); }
RT_FN int64_t rt_run_neg(int64_t a, int *ok) { return rt_run_int(-a, ok); }
/* bound(e, n) and x[e], checked as the element's are */
RT_FN int64_t rt_run_bound(int64_t e, int64_t n, int *ok) {
  if (e < 0 || e >= n)
    *ok = 0;
  return e;
}
RT_FN int64_t rt_run_get_i(const int32_t *x, int64_t n, int64_t e, int *ok) {
  if (e < 0 || e >= n) {
    *ok = 0;
    return 0;
  }
  return x[e];
}
RT_FN int64_t rt_run_get_b(const uint8_t *x, int64_t n, int64_t e, int *ok) {
  if (e < 0 || e >= n) {
    *ok = 0;
    return 0;
  }
  return x[e] != 0;
}
/* a segment's offset or length, as seg_offset and seg_length read them */
RT_FN int64_t rt_run_seg(const int64_t *off, int64_t nseg, int64_t e, int length, int *ok) {
  if (e < 0 || e >= nseg) {
    *ok = 0;
    return 0;
  }
  return length ? off[e + 1] - off[e] : off[e];
}
/* Comparison 'op' (RT_EQ .. RT_GE) of ints that the element changes:
   its difference a - b kept in *d (and *seen set), where rt_run_flip
   finds the run's end. */
RT_FN int rt_run_cmp(RtOp op, int64_t a, int64_t b, int64_t *d, int *seen) {
  *d = a - b;
  *seen = 1;
  switch (op) {
  case RT_EQ:
    return a == b;
  case RT_NE:
    return a != b;
  case RT_LT:
    return a < b;
  case RT_GT:
    return a > b;
  case RT_LE:
    return a <= b;
  default:
    return a >= b;
  }
}
/* The first k >= 1 where d0 + m k < 0 differs from d0 < 0; INT64_MAX
   where it never does. */
RT_FN int64_t rt_run_flip_lt(int64_t d0, int64_t m) {
  if (d0 < 0)
    return m <= 0 ? INT64_MAX : (-d0 + m - 1) / m;
  return m >= 0 ? INT64_MAX : d0 / -m + 1;
}
/* The first k >= 1 where comparison 'op' (RT_EQ .. RT_GE) of a
   difference d0 + m k differs from its value at k = 0. */
RT_FN int64_t rt_run_flip(RtOp op, int64_t d0, int64_t m) {
  switch (op) {
  case RT_EQ:
  case RT_NE: /* they change where d0 + m k is 0, and just after */
    if (m == 0)
      return INT64_MAX;
    if (d0 == 0)
      return 1;
    return (-d0) % m == 0 && -d0 / m > 0 ? -d0 / m : INT64_MAX;
  case RT_LT: /* d < 0 */
  case RT_GE: /* d >= 0 */
    return rt_run_flip_lt(d0, m);
  case RT_GT: /* d > 0: -d < 0 */
    return rt_run_flip_lt(-d0, -m);
  default: /* d <= 0: d - 1 < 0 */
    return rt_run_flip_lt(d0 - 1, m);
  }
}

#endif
