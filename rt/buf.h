/*
 * buf.h: a growable text buffer for the runtime's own use (printing, @,
 * reading files), on the runtime's allocator.  Internal to rt/.
 */
#ifndef NESSIE_RT_BUF_H
#define NESSIE_RT_BUF_H

#include <string.h>

#include "rt.h"

typedef struct RtBuf {
  char *data;
  size_t len, cap;
} RtBuf;

static inline void rt_buf_grow(RtBuf *b, size_t more) {
  if (b->len + more + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + more + 1)
    cap *= 2;
  char *data = rt_try_alloc_atomic(cap);
  if (!data) {
    /* the statement stops: the text so far is given back first, or an
       executable would keep it to the end (a value too large to print
       is an error the program goes on after) */
    rt_free(b->data);
    *b = (RtBuf){0};
    rt_out_of_memory(cap);
  }
  if (b->len)
    memcpy(data, b->data, b->len);
  rt_free(b->data);
  b->data = data;
  b->cap = cap;
}

static inline void rt_buf_add(RtBuf *b, const char *s, size_t n) {
  rt_buf_grow(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static inline void rt_buf_puts(RtBuf *b, const char *s) { rt_buf_add(b, s, strlen(s)); }

static inline void rt_buf_putc(RtBuf *b, char c) { rt_buf_add(b, &c, 1); }

/* The contents, NUL-terminated (an empty buffer gives ""). */
static inline char *rt_buf_str(RtBuf *b) {
  rt_buf_grow(b, 0);
  b->data[b->len] = '\0';
  return b->data;
}

#endif
