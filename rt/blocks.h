/*
 * blocks.h: a cache of freed memory blocks by size class, in front of an
 * allocator that is slow to call (the GPU runtime's cudaMallocAsync and
 * cudaFreeAsync, rt/gpu.cu).
 *
 * Why: a recursion level of quicksort makes about a hundred kernel
 * launches and as many device vectors; each cudaMallocAsync and
 * cudaFreeAsync costs the host 0.7 to 1.8 µs (tests/gpu/api_cost.cu), a
 * quarter of the host's time a launch, and the host, not the GPU, paces
 * such programs.  A block freed here goes on its class's list and the
 * next request of that class takes it back: one hash lookup and a push or
 * a pop, no call.
 *
 * Why reuse is safe: every kernel and copy of the GPU runtime runs on one
 * stream, so work enqueued after a free runs after the work enqueued
 * before it; the block is free in stream order, as cudaFreeAsync's are.
 *
 * A request is rounded up to its class (four classes a doubling, so at
 * most a quarter of a block is slack); requests above RT_BLOCKS_LARGEST
 * go to the allocator as they are and back to it when freed.  The lists
 * hold at most 'most_cached' bytes; beyond that a freed block goes back
 * to the allocator.  When the allocator fails, every cached block goes
 * back and the request is made again, then once more at its exact size,
 * so that the cache never turns a request that fits into a failure.
 *
 * Not thread-safe: the GPU runtime calls it from the program's one
 * thread (OpenMP's host loops allocate no device memory).
 */
#ifndef NESSIE_RT_BLOCKS_H
#define NESSIE_RT_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the allocator behind the cache: NULL when it has no memory */
typedef void *(*RtBlockAlloc)(size_t bytes);
typedef void (*RtBlockFree)(void *p);

/* 512 bytes, then four classes a doubling up to RT_BLOCKS_LARGEST */
enum { RT_BLOCK_CLASSES = 85 };
#define RT_BLOCKS_SMALLEST ((size_t)512)
#define RT_BLOCKS_LARGEST ((size_t)1 << 30)

typedef struct RtBlockList {
  void **blocks;
  int n, cap;
} RtBlockList;

/* A live block of a class: its address and its class (blocks of their
   exact size are not tracked). */
typedef struct RtBlockEntry {
  void *p;
  int cls;
} RtBlockEntry;

typedef struct RtBlocks {
  RtBlockAlloc alloc;
  RtBlockFree free;
  size_t most_cached;
  size_t cached; /* bytes on the lists */
  RtBlockList lists[RT_BLOCK_CLASSES];
  RtBlockEntry *live; /* open addressing, linear probing; p == NULL: empty */
  size_t nlive, live_cap; /* live_cap: 0 or a power of 2 */
  uint64_t hits, misses;  /* requests the lists served, and the others */
} RtBlocks;

/* A cache in front of 'alloc' and 'free', holding at most 'most_cached'
   bytes of freed blocks (0: none, every request goes to the allocator). */
void rt_blocks_init(RtBlocks *c, RtBlockAlloc alloc, RtBlockFree free, size_t most_cached);
/* A block of at least 'bytes' (at least 1); NULL when the allocator has
   none even after the cache gave back everything it held. */
void *rt_blocks_get(RtBlocks *c, size_t bytes);
/* Frees 'p', a block rt_blocks_get returned (NULL: nothing). */
void rt_blocks_put(RtBlocks *c, void *p);
/* Gives every cached block back to the allocator. */
void rt_blocks_flush(RtBlocks *c);
/* Flushes the cache and frees its own tables; blocks still live stay
   the caller's, to give back to the allocator itself. */
void rt_blocks_destroy(RtBlocks *c);
/* The size of class 'cls' (0 <= cls < RT_BLOCK_CLASSES), and the class
   of a request of 'bytes' (-1: above RT_BLOCKS_LARGEST). */
size_t rt_block_class_size(int cls);
int rt_block_class(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
