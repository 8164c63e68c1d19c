/*
 * alloc.c: allocation through Boehm GC, and the small containers built on
 * it.  Nothing here is freed by hand; the collector reclaims what the
 * compiler drops (abandoned IR after an error in the REPL, for instance).
 */
#include <gc.h>
#define GC_ASSERT(expr) ((void)0) /* gc_inline.h's checks: each a call into the collector */
#include <gc/gc_inline.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../rt/rt.h"

/* Who is told when an allocation fails, per thread (the evaluator runs
   on a thread of its own). */
static _Thread_local OomHandler oom_handler;
static _Thread_local void *oom_ctx;

void alloc_set_oom_handler(OomHandler fn, void *ctx) {
  oom_handler = fn;
  oom_ctx = ctx;
}

/* The collector returns NULL when the heap cannot grow (its oom_fn's
   default); a request too large for size_t arithmetic comes here too. */
static void *check(void *p, size_t size) {
  if (!p && size) {
    if (oom_handler) {
      OomHandler fn = oom_handler;
      oom_handler = NULL; /* reporting may allocate: not recursively */
      fn(oom_ctx, size);
    }
    diag_out_of_memory(size);
  }
  return p;
}

static bool show_gc_warnings;

/* The collector's warnings are about its own heap ("Repeated allocation
   of very large block" whenever a program makes a big sequence, "Out of
   Memory!" before it returns NULL): nothing a NESL user can act on, and
   nessie reports running out of memory itself. */
static void gc_warning(char *msg, GC_word arg) {
  if (show_gc_warnings) {
    fputs("nessie: ", stderr); /* the message begins "GC Warning: " */
    fprintf(stderr, msg, arg);
  }
}

void alloc_init(void) {
  const char *v = getenv("NESSIE_GC_WARNINGS");
  show_gc_warnings = v && *v && strcmp(v, "0") != 0;
  GC_set_warn_proc(gc_warning);
  /* the heap grows no further than the limit (NESSIE_MEMORY): past it
     the collector returns NULL, which stops the statement that asked
     (alloc_set_oom_handler), or the compilation, with a message;
     without a limit the system's OOM killer ended the run without one
     (issue 38) */
  const char *bad;
  size_t limit = rt_memory_limit(&bad);
  if (bad) {
    fprintf(stderr, "nessie: error: %s\n", bad);
    exit(2);
  }
  if (limit)
    GC_set_max_heap_size(limit);
}

/* The collector unmaps a free block only at a collection some time
   after the one that freed it (GC_unmap_old; the third, here): hence a
   few, until the free blocks are unmapped. */
void alloc_give_back(void) {
  for (int i = 0; i < 4; i++) {
    GC_gcollect_and_unmap();
    if (GC_get_free_bytes() < (1 << 20))
      break;
  }
}

/* A compilation's objects are cut from chunks (alloc_for_compilation):
   in order, 16 bytes aligned, as a chunk has room, and never given
   back.  A compilation is one run that keeps much of what it makes and
   drops the rest late; the collector's own lists cost a hundred
   instructions an object (refilling them, a block of objects at a time,
   is most of it), and a size rounded up to hold a byte more (a pointer
   just past an object keeps it; in a chunk it keeps the chunk):
   lib_lifted took 41 MB from the lists, and takes 36 in chunks.  A chunk is one object of the
   collector's, scanned or not as what is cut from it: the collector
   keeps it while anything points into it, which makes a collection
   pointless before the compilation ends (lib_lifted's before fusion
   freed 7 of 14 MB of small objects; of chunks, nothing): the heap is
   made to hold a compilation whole (main.c).  Objects past a few
   kilobytes are the collector's own. */
typedef struct Chunk {
  char *at, *end; /* the room left */
} Chunk;
enum { CHUNK_BYTES = (64 << 10) - 16 /* with the collector's byte past it, 16 blocks */, CUT_MAX = 8 << 10 };
static Chunk scanned_chunk, atomic_chunk;
static bool cutting;

void alloc_for_compilation(size_t heap_bytes) {
  GC_expand_hp(heap_bytes);
  cutting = true;
}

static void *gc_object(size_t size, bool atomic) { return atomic ? GC_MALLOC_ATOMIC(size) : GC_MALLOC(size); }

/* A new chunk, 'size' bytes cut from it; or an object of its own when
   that would waste much of the chunk left. */
static __attribute__((noinline)) void *cut_chunk(Chunk *c, size_t size, bool atomic) {
  if (size > CUT_MAX)
    return gc_object(size, atomic);
  char *p = gc_object(CHUNK_BYTES, atomic);
  if (!p)
    return NULL;
  c->at = p + size;
  c->end = p + CHUNK_BYTES;
  return p;
}

static inline void *cut(Chunk *c, size_t size, bool atomic) {
  size = size ? (size + 15) & ~(size_t)15 : 16; /* distinct, and aligned as malloc's */
  if (size > (size_t)(c->end - c->at))
    return cut_chunk(c, size, atomic);
  void *p = c->at;
  c->at += size;
  return p;
}

/* 'p', of 'size' bytes, the last object cut from chunk 'c', grown in
   place to 'bigger' bytes if the chunk has room: its rest is fresh
   (zeroed, in a scanned chunk). */
static bool extend(Chunk *c, void *p, size_t size, size_t bigger) {
  size = (size + 15) & ~(size_t)15;
  bigger = (bigger + 15) & ~(size_t)15;
  if ((char *)p + size != c->at || bigger - size > (size_t)(c->end - c->at))
    return false;
  c->at += bigger - size;
  return true;
}

/* Elsewhere (the REPL, the interpreters: their heaps follow the NESL
   program's data, and collections reclaim it) small scanned objects come
   from free lists of nessie's own, each refilled by the collector a
   block of objects at a time (gc_inline.h): GC_malloc's per-thread lists
   cost a call into the library and a lookup of the thread's lists on
   each allocation.  The lists are not locked, nor are the chunks:
   nessie allocates from one thread at a time (a big-stack thread while
   the main thread waits for it).  The lists are roots, and each object
   on them points to the next, so the collector keeps them all; atomic
   objects are not scanned, so that a list of them would not be kept:
   they go to the collector's own lists.  A size is rounded as GC_malloc
   rounds it (one more byte). */
static void *normal_lists[GC_TINY_FREELISTS];

void *xmalloc(size_t size) {
  if (cutting)
    return check(cut(&scanned_chunk, size, false), size);
  size_t granules = (size + GC_GRANULE_BYTES) / GC_GRANULE_BYTES;
  void *p;
  GC_FAST_MALLOC_GRANS(p, granules, normal_lists, 0, GC_I_NORMAL, GC_MALLOC(size), *(void **)p = 0);
  return check(p, size);
}

void *xmalloc_atomic(size_t size) {
  if (cutting)
    return check(cut(&atomic_chunk, size, true), size);
  return check(GC_MALLOC_ATOMIC(size), size);
}

/* Always the collector's own object, which GC_REALLOC needs. */
void *xrealloc(void *p, size_t size) { return check(GC_REALLOC(p, size), size); }

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
  char *p = xmalloc_atomic(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* vsnprintf for the formats the compiler makes by the hundred thousand
   (a line of generated code, a name, a key): only %s, %d, %c and %%,
   written here in one pass.  A format with any other conversion, or
   flags, a width or a precision, goes to vsnprintf whole, from the
   start, so the text is always printf's. */
int fmt_vsnprintf(char *dst, size_t room, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  size_t n = 0;
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      /* the text up to the next conversion in one copy: most of a line
         of generated code is the format's own */
      const char *end = p + 1;
      while (*end && *end != '%')
        end++;
      size_t len = (size_t)(end - p);
      if (n + len < room)
        memcpy(dst + n, p, len);
      else if (n + 1 < room)
        memcpy(dst + n, p, room - 1 - n);
      n += len;
      p += len - 1;
      continue;
    }
    char digits[FORMAT_INT_SIZE], c;
    const char *s;
    size_t len;
    switch (p[1]) {
    case 's':
      s = va_arg(ap, const char *);
      if (!s)
        s = "(null)"; /* as glibc prints it */
      len = strlen(s);
      break;
    case 'd':
      len = (size_t)format_int(digits, va_arg(ap, int));
      s = digits;
      break;
    case 'c':
      c = (char)va_arg(ap, int);
      s = &c;
      len = 1;
      break;
    case '%':
      s = "%";
      len = 1;
      break;
    default: {
      int full = vsnprintf(dst, room, fmt, again);
      va_end(again);
      return full;
    }
    }
    if (n + len < room)
      memcpy(dst + n, s, len);
    n += len;
    p++;
  }
  va_end(again);
  if (room)
    dst[n < room ? n : room - 1] = '\0';
  return (int)n;
}

/* Most formatted strings are short (names, numbers, a line of code):
   formatting once into a buffer on the stack and copying is cheaper
   than measuring with one vsnprintf and printing with a second. */
char *xvprintf(const char *fmt, va_list ap) {
  char small[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = fmt_vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  char *p = xmalloc_atomic((size_t)n + 1);
  if ((size_t)n < sizeof small)
    memcpy(p, small, (size_t)n + 1);
  else
    fmt_vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = xvprintf(fmt, ap);
  va_end(ap);
  return p;
}

void vec_push(Vec *v, void *item) {
  if (v->len == v->cap) {
    /* a new array and a copy, as GC_REALLOC would make, but through
       xmalloc's own lists: vectors grow a quarter of a million times in
       a large compilation.  Two items first: most vectors of the IRs
       hold one or two (a kernel's SOACs, a SOAC's results, a thunk's
       body), and room for eight made a fifth of all that a compilation
       allocated (lib_lifted: 81 MB instead of 66, and a collection
       more) */
    int cap = v->cap ? 2 * v->cap : 2;
    if (!(cutting && v->cap && extend(&scanned_chunk, v->data, sizeof(void *) * (size_t)v->cap, sizeof(void *) * (size_t)cap))) {
      void **data = xmalloc(sizeof(void *) * (size_t)cap);
      if (v->len)
        memcpy(data, v->data, sizeof(void *) * (size_t)v->len);
      v->data = data;
    }
    v->cap = cap;
  }
  v->data[v->len++] = item;
}

void *vec_get(const Vec *v, int i) {
  if (i < 0 || i >= v->len)
    die("vec_get: index %d out of range [0, %d)", i, v->len);
  return v->data[i];
}

void *vec_last(const Vec *v) { return vec_get(v, v->len - 1); }

void buf_grow(Buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1)
    cap *= 2;
  if (!(cutting && b->cap && extend(&atomic_chunk, b->data, b->cap, cap))) {
    char *p = xmalloc_atomic(cap);
    if (b->len)
      memcpy(p, b->data, b->len);
    b->data = p;
  }
  b->cap = cap;
}

/* Formats straight into the buffer's free space, and a second time only
   when that space was too small: code generation writes most of its
   text through here. */
void buf_printf(Buf *b, const char *fmt, ...) {
  buf_grow(b, 64);
  va_list ap;
  va_start(ap, fmt);
  int n = fmt_vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  if ((size_t)n >= b->cap - b->len) {
    buf_grow(b, (size_t)n);
    va_start(ap, fmt);
    fmt_vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

int format_int(char out[FORMAT_INT_SIZE], int64_t i) {
  /* the digits counted, then written two a division from the right,
     in place */
  static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                              "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";
  uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
  int len = i < 0;
  for (uint64_t v = u; v >= 10; v /= 10)
    len++;
  len++;
  char *at = out + len;
  *at = '\0';
  while (u >= 100) {
    at -= 2;
    memcpy(at, pairs + 2 * (u % 100), 2);
    u /= 100;
  }
  if (u >= 10) {
    at -= 2;
    memcpy(at, pairs + 2 * u, 2);
  } else {
    *--at = (char)('0' + u);
  }
  if (i < 0)
    out[0] = '-';
  return len;
}

void buf_put_hex64(Buf *b, uint64_t u) {
  buf_grow(b, 16);
  for (int shift = 60; shift >= 0; shift -= 4)
    b->data[b->len++] = "0123456789abcdef"[(u >> shift) & 15];
}

