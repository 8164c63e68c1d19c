/*
 * rand.c: the state of NESL's counter-based random numbers
 * (lib-nesl/README.md, "Random numbers"; scalar.h draws them).  A draw
 * is numbered by its RAND's call site, the execution of that site and the
 * element's index, not by a global count, so that every backend draws the
 * same numbers whatever order it computes them in.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "scalar.h"

static bool seeded;
static uint64_t state;
static uint64_t *executions; /* by site: the executions so far */
static int executions_cap;

void rt_rand_seed(int32_t seed) {
  state = rt_mix64((uint64_t)(uint32_t)seed ^ 0x632be59bd9b4e019ULL);
  seeded = true;
  /* a new seed starts the draws again: the same seed then gives the same
     numbers */
  if (executions_cap)
    memset(executions, 0, sizeof(uint64_t) * (size_t)executions_cap);
}

uint64_t rt_rand_state(void) {
  if (!seeded)
    rt_rand_seed(0);
  return state;
}

uint64_t rt_rand_execution(int site) {
  if (site < 0)
    site = 0;
  if (site >= executions_cap) {
    int cap = executions_cap ? executions_cap : 64;
    while (cap <= site)
      cap *= 2;
    /* plain malloc: this table lives as long as the process, whatever
       allocator the values use */
    uint64_t *grown = calloc((size_t)cap, sizeof(uint64_t));
    if (!grown)
      rt_fail(rt_here, NULL, "out of memory (could not allocate %zu bytes)", sizeof(uint64_t) * (size_t)cap);
    if (executions_cap)
      memcpy(grown, executions, sizeof(uint64_t) * (size_t)executions_cap);
    free(executions);
    executions = grown;
    executions_cap = cap;
  }
  return executions[site]++;
}
