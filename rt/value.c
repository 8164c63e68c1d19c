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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rt.h"

/* ---- the limit ---- */

/* A cgroup's limit on the memory of its processes (v2, then v1), or 0:
   in a container it, not the physical memory, is where the OOM killer
   strikes. */
static uint64_t cgroup_limit(void) {
  static const char *const files[] = {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    FILE *f = fopen(files[i], "r");
    if (!f)
      continue;
    unsigned long long n = 0;
    int got = fscanf(f, "%llu", &n); /* "max" (no limit) reads nothing */
    fclose(f);
    if (got == 1 && n > 0)
      return n;
  }
  return 0;
}

/* 'text' as a size in bytes (digits, then K, M, G or T), or false. */
static bool parse_size(const char *text, uint64_t *bytes) {
  const char *p = text;
  uint64_t n = 0;
  if (*p < '0' || *p > '9')
    return false;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (n > (UINT64_MAX - 9) / 10)
      return false;
    n = n * 10 + (uint64_t)(*p - '0');
  }
  int shift = 0;
  switch (*p) {
  case 'k': case 'K': shift = 10; p++; break;
  case 'm': case 'M': shift = 20; p++; break;
  case 'g': case 'G': shift = 30; p++; break;
  case 't': case 'T': shift = 40; p++; break;
  }
  if (*p || n > UINT64_MAX >> shift)
    return false;
  *bytes = n << shift;
  return true;
}

size_t rt_memory_limit(const char **bad) {
  *bad = NULL;
  const char *set = getenv("NESSIE_MEMORY");
  if (set) {
    uint64_t n;
    if (!parse_size(set, &n)) {
      static char why[160];
      snprintf(why, sizeof why, "NESSIE_MEMORY='%.40s' is not a size (a number of bytes, or of K, M, G or T: 4G)",
               set);
      *bad = why;
      return 0;
    }
    return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
  }
  /* half: the collector's heap and the allocator's free blocks come on
     top of what a program holds, and other processes need memory too */
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  uint64_t machine = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  uint64_t group = cgroup_limit();
  if (group && (!machine || group < machine))
    machine = group;
  uint64_t limit = machine / 2;
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && (!limit || as.rlim_cur < limit))
    limit = as.rlim_cur;
  return limit > SIZE_MAX ? SIZE_MAX : (size_t)limit;
}

/* ---- the default allocator ----
   malloc's blocks, each after a header that holds its size, so that
   free can take it off the count of the bytes held: the count is what
   the limit bounds.  The count is atomic: OpenMP's threads may
   allocate. */

enum { HEADER = 16 }; /* keeps malloc's alignment */
static size_t limit;
static atomic_size_t held;

void rt_set_memory_limit(size_t bytes) { limit = bytes; }

static void *counted(size_t size, bool zero) {
  if (size > SIZE_MAX - HEADER)
    return NULL;
  size_t total = size + HEADER;
  size_t before = atomic_fetch_add(&held, total);
  char *p = NULL;
  if (!limit || (before <= limit && total <= limit - before))
    p = zero ? calloc(1, total) : malloc(total);
  if (!p) {
    atomic_fetch_sub(&held, total);
    return NULL;
  }
  memcpy(p, &total, sizeof total);
  return p + HEADER;
}

static void *plain_alloc(size_t size) { return counted(size, true); }
static void *plain_alloc_atomic(size_t size) { return counted(size, false); }

static void plain_free(void *p) {
  char *block = (char *)p - HEADER;
  size_t total;
  memcpy(&total, block, sizeof total);
  atomic_fetch_sub(&held, total);
  free(block);
}

static const RtAllocator plain = {plain_alloc, plain_alloc_atomic, plain_free};
static const RtAllocator *allocator = &plain;

void rt_set_allocator(const RtAllocator *a) { allocator = a ? a : &plain; }

void rt_out_of_memory(size_t size) { rt_fail(rt_here, NULL, "out of memory (could not allocate %zu bytes)", size); }

void *rt_alloc(size_t size) {
  void *p = allocator->alloc(size ? size : 1);
  if (!p)
    rt_out_of_memory(size);
  return p;
}

void *rt_alloc_atomic(size_t size) {
  void *p = allocator->alloc_atomic(size ? size : 1);
  if (!p)
    rt_out_of_memory(size);
  return p;
}

void *rt_try_alloc_atomic(size_t size) { return allocator->alloc_atomic(size ? size : 1); }

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

void rt_seg_total_wrong(int64_t made, int64_t said) {
  fprintf(stderr, "nessie: internal error: a segdes of %lld elements, which the compiler said held %lld\n",
          (long long)made, (long long)said);
  abort();
}

void rt_seg_known_total(RtValue *d, int64_t total) {
  int64_t t = rt_seg_total(d);
  if (t != total)
    rt_seg_total_wrong(t, total);
}

RtValue *rt_scalar_at(const RtValue *v, int64_t k) {
  RtValue *r = rt_value_new(rt_scalar_type(v->type.base), 1);
  size_t size = rt_base_size(v->type.base);
  memcpy(r->data.any, (const char *)v->data.any + (size_t)k * size, size);
  return r;
}
