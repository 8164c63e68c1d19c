/*
 * value.c: the run-time representation of flat values (rt.h) and where
 * its memory comes from.
 *
 * The allocator is replaceable because the runtime serves two masters:
 * the executables, which free each vector after its last use (malloc and
 * free), and the compiler's interpreters, whose values Boehm GC looks
 * after.  Running out of memory is a run-time error of the statement that
 * asked, with the size asked for, never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static void *plain_alloc(size_t size) { return calloc(1, size); }

static const RtAllocator plain = {plain_alloc, malloc, free};
static const RtAllocator *allocator = &plain;

void rt_set_allocator(const RtAllocator *a) { allocator = a ? a : &plain; }

static _Noreturn void out_of_memory(size_t size) {
  rt_fail(rt_here, NULL, "out of memory (could not allocate %zu bytes)", size);
}

void *rt_alloc(size_t size) {
  void *p = allocator->alloc(size ? size : 1);
  if (!p)
    out_of_memory(size);
  return p;
}

void *rt_alloc_atomic(size_t size) {
  void *p = allocator->alloc_atomic(size ? size : 1);
  if (!p)
    out_of_memory(size);
  return p;
}

void rt_free(void *p) {
  if (p)
    allocator->free(p);
}

/* ---- types ---- */

bool rt_type_equal(RtType a, RtType b) { return a.kind == b.kind && (a.kind == RT_SEGDES || a.base == b.base); }

const char *rt_base_name(RtBase b) {
  static const char *const names[] = {"int", "float", "bool", "char"};
  return (unsigned)b < 4 ? names[b] : "?";
}

const char *rt_type_name(RtType t) {
  static const char *const vecs[] = {"[:int:]", "[:float:]", "[:bool:]", "[:char:]"};
  switch (t.kind) {
  case RT_SCALAR:
    return rt_base_name(t.base);
  case RT_VEC:
    return (unsigned)t.base < 4 ? vecs[t.base] : "[:?:]";
  case RT_SEGDES:
    return "segdes";
  }
  return "?";
}

size_t rt_base_size(RtBase b) {
  switch (b) {
  case RT_INT:
    return sizeof(int32_t);
  case RT_FLOAT:
    return sizeof(double);
  case RT_BOOL:
    return sizeof(uint8_t);
  case RT_CHAR:
    return sizeof(char);
  }
  return 1;
}

/* ---- values ---- */

RtStats rt_stats;

/* n * size bytes, or a run-time error when that does not fit a size_t */
static size_t bytes(int64_t n, size_t size) {
  if (n < 0 || (uint64_t)n > SIZE_MAX / size - 1)
    rt_fail(rt_here, NULL, "out of memory (could not allocate a vector of %lld elements)", (long long)n);
  rt_stats.bytes += (uint64_t)n * size;
  return (size_t)n * size;
}

RtValue *rt_value_new(RtType t, int64_t len) {
  RtValue *v = rt_alloc(sizeof(RtValue));
  v->type = t;
  v->refs = 1;
  v->total = -1;
  switch (t.kind) {
  case RT_SCALAR:
    v->len = 1;
    v->data.any = &v->scalar;
    break;
  case RT_VEC:
    v->len = len;
    v->data.any = rt_alloc_atomic(bytes(len, rt_base_size(t.base)));
    break;
  case RT_SEGDES:
    v->len = len;
    v->lengths = rt_alloc_atomic(bytes(len + 1, sizeof(int64_t)));
    break;
  }
  return v;
}

void (*rt_device_free)(void *p);

void rt_value_free(RtValue *v) {
  if (!v)
    return;
  void (*free_data)(void *) = v->device && rt_device_free ? rt_device_free : rt_free;
  if (v->type.kind == RT_VEC)
    free_data(v->data.any);
  free_data(v->lengths);
  free_data(v->offsets);
  free_data(v->ids);
  rt_value_free(v->mirror);
  rt_release(v->lengths_vec);
  rt_release(v->offsets_vec);
  rt_free(v);
}

void rt_retain(RtValue *v) {
  if (v)
    v->refs++;
}

void rt_release(RtValue *v) {
  if (v && --v->refs == 0)
    rt_value_free(v);
}

RtValue *rt_int(int32_t i) {
  RtValue *v = rt_value_new(rt_scalar_type(RT_INT), 1);
  v->scalar.i = i;
  return v;
}

RtValue *rt_float(double f) {
  RtValue *v = rt_value_new(rt_scalar_type(RT_FLOAT), 1);
  v->scalar.f = f;
  return v;
}

RtValue *rt_bool(bool b) {
  RtValue *v = rt_value_new(rt_scalar_type(RT_BOOL), 1);
  v->scalar.b = b;
  return v;
}

RtValue *rt_char(char c) {
  RtValue *v = rt_value_new(rt_scalar_type(RT_CHAR), 1);
  v->scalar.c = c;
  return v;
}

RtValue *rt_chars(const char *s, size_t n) {
  RtValue *v = rt_value_new(rt_vec_type(RT_CHAR), (int64_t)n);
  if (n)
    memcpy(v->data.c, s, n);
  return v;
}

const int64_t *rt_seg_offsets(RtValue *d) {
  if (!d->offsets) {
    int64_t *off = rt_alloc_atomic(bytes(d->len + 1, sizeof(int64_t)));
    off[0] = 0;
    for (int64_t k = 0; k < d->len; k++)
      off[k + 1] = off[k] + d->lengths[k];
    d->offsets = off;
  }
  return d->offsets;
}

int64_t rt_seg_total(RtValue *d) { return rt_seg_offsets(d)[d->len]; }

RtValue *rt_scalar_at(const RtValue *v, int64_t k) {
  RtValue *r = rt_value_new(rt_scalar_type(v->type.base), 1);
  size_t size = rt_base_size(v->type.base);
  memcpy(r->data.any, (const char *)v->data.any + (size_t)k * size, size);
  return r;
}
