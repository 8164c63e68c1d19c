/*
 * blocks.c: the cache of freed memory blocks by size class (blocks.h).
 */
#include "blocks.h"

#include <stdlib.h>
#include <string.h>

size_t rt_block_class_size(int cls) {
  if (cls <= 0)
    return RT_BLOCKS_SMALLEST;
  int e = 9 + (cls - 1) / 4, step = (cls - 1) % 4 + 1;
  return ((size_t)1 << e) + (size_t)step * ((size_t)1 << (e - 2));
}

int rt_block_class(size_t bytes) {
  if (bytes <= RT_BLOCKS_SMALLEST)
    return 0;
  if (bytes > RT_BLOCKS_LARGEST)
    return -1;
  int e = 63 - __builtin_clzll((unsigned long long)(bytes - 1)); /* 2^e <= bytes - 1 < 2^(e+1) */
  size_t base = (size_t)1 << e, quarter = base >> 2;
  int step = (int)((bytes - base + quarter - 1) / quarter); /* 1 to 4 */
  return 4 * (e - 9) + step;
}

void rt_blocks_init(RtBlocks *c, RtBlockAlloc alloc, RtBlockFree free, size_t most_cached) {
  memset(c, 0, sizeof *c);
  c->alloc = alloc;
  c->free = free;
  c->most_cached = most_cached;
}

/* ---- the live blocks: address -> class ---- */

static size_t slot_of(const RtBlocks *c, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p >> 4;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & (c->live_cap - 1);
}

static bool grow_live(RtBlocks *c) {
  size_t cap = c->live_cap ? 2 * c->live_cap : 1024;
  RtBlockEntry *old = c->live;
  size_t old_cap = c->live_cap;
  RtBlockEntry *t = calloc(cap, sizeof *t);
  if (!t)
    return false;
  c->live = t;
  c->live_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].p) {
      size_t k = slot_of(c, old[i].p);
      while (t[k].p)
        k = (k + 1) & (cap - 1);
      t[k] = old[i];
    }
  free(old);
  return true;
}

static bool add_live(RtBlocks *c, void *p, int cls) {
  if (2 * (c->nlive + 1) > c->live_cap && !grow_live(c))
    return false;
  size_t k = slot_of(c, p);
  while (c->live[k].p)
    k = (k + 1) & (c->live_cap - 1);
  c->live[k] = (RtBlockEntry){p, cls};
  c->nlive++;
  return true;
}

/* Removes 'p' and returns its class; -1: not a tracked block. */
static int take_live(RtBlocks *c, void *p) {
  if (!c->live_cap)
    return -1;
  size_t mask = c->live_cap - 1, k = slot_of(c, p);
  while (c->live[k].p != p) {
    if (!c->live[k].p)
      return -1;
    k = (k + 1) & mask;
  }
  int cls = c->live[k].cls;
  /* backward-shift deletion: move up each later entry of the run whose
     home slot the hole lies between */
  size_t hole = k;
  for (size_t j = (k + 1) & mask; c->live[j].p; j = (j + 1) & mask) {
    size_t home = slot_of(c, c->live[j].p);
    bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      c->live[hole] = c->live[j];
      hole = j;
    }
  }
  c->live[hole] = (RtBlockEntry){NULL, 0};
  c->nlive--;
  return cls;
}

/* ---- the lists ---- */

static bool push(RtBlockList *l, void *p) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    void **grown = realloc(l->blocks, sizeof(void *) * (size_t)cap);
    if (!grown)
      return false;
    l->blocks = grown;
    l->cap = cap;
  }
  l->blocks[l->n++] = p;
  return true;
}

void rt_blocks_flush(RtBlocks *c) {
  for (int i = 0; i < RT_BLOCK_CLASSES; i++) {
    RtBlockList *l = &c->lists[i];
    while (l->n > 0)
      c->free(l->blocks[--l->n]);
  }
  c->cached = 0;
}

void rt_blocks_destroy(RtBlocks *c) {
  rt_blocks_flush(c);
  for (int i = 0; i < RT_BLOCK_CLASSES; i++)
    free(c->lists[i].blocks);
  free(c->live);
  rt_blocks_init(c, c->alloc, c->free, c->most_cached);
}

/* The allocator's block of 'bytes', after a flush if it has none then. */
static void *from_allocator(RtBlocks *c, size_t bytes) {
  void *p = c->alloc(bytes);
  if (!p && c->cached > 0) {
    rt_blocks_flush(c);
    p = c->alloc(bytes);
  }
  return p;
}

void *rt_blocks_get(RtBlocks *c, size_t bytes) {
  if (bytes == 0)
    bytes = 1;
  int cls = c->most_cached > 0 ? rt_block_class(bytes) : -1;
  void *p = NULL;
  if (cls >= 0 && c->lists[cls].n > 0) {
    p = c->lists[cls].blocks[--c->lists[cls].n];
    c->cached -= rt_block_class_size(cls);
    c->hits++;
  } else {
    c->misses++;
    if (cls >= 0)
      p = from_allocator(c, rt_block_class_size(cls));
    if (!p) { /* no room for the class's size: the exact size, not cached */
      cls = -1;
      p = from_allocator(c, bytes);
    }
    if (!p)
      return NULL;
  }
  /* a block of its exact size is not tracked, nor one the table has no
     host memory for: its put gives it straight back to the allocator */
  if (cls >= 0)
    add_live(c, p, cls);
  return p;
}

void rt_blocks_put(RtBlocks *c, void *p) {
  if (!p)
    return;
  int cls = take_live(c, p);
  if (cls >= 0 && c->cached + rt_block_class_size(cls) <= c->most_cached && push(&c->lists[cls], p)) {
    c->cached += rt_block_class_size(cls);
    return;
  }
  c->free(p);
}
