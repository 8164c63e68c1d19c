/*
 * gpu.h: the GPU runtime's host interface (rt/gpu.cu), for the CUDA that
 * the GPU target generates.  CUDA C++; the rest of the runtime (rt.h) is
 * shared with the CPU target and the interpreters.
 *
 * Device memory: vectors and segment descriptors are RtValues whose data
 * (and lengths, offsets) live on the device, allocated from a
 * stream-ordered memory pool (cudaMallocAsync) on the one stream every
 * kernel runs on, so that freeing after the last use costs nothing.
 *
 * Errors: kernels and checks write one device-side error record (the
 * lowest failing element wins, rt/kernel.h); the host reads it only where
 * it synchronizes anyway (it reads a size to allocate, a scalar, a value
 * to print) and at the end of each top-level statement, and then reports
 * it in the interpreters' words.  A host synchronization is counted in
 * rt_stats.syncs, a kernel launch in rt_stats.kernels.
 */
#ifndef NESSIE_RT_GPU_H
#define NESSIE_RT_GPU_H

#include <cuda_runtime.h>

#include "kernel.h"
#include "rt.h"

/* Starts the runtime on 'device' (-1: NESSIE_DEVICE=N, else 0): makes
   the stream, the memory pool and the error record.  'sites' is the
   program's table of sites.  NULL, or why it could not start (no GPU,
   no such device, out of memory) in a static buffer: a library's
   context reports it (rt/lib.c). */
const char *rtg_start(const RtSite *sites, int device);
/* rtg_start for an executable: where it fails, prints one line and
   exits with status 1. */
void rtg_init(const RtSite *sites);
cudaStream_t rtg_stream(void);
/* A CUDA error in the runtime itself ('what' it was doing): the
   statement stops with it. */
void rtg_check(cudaError_t e, const char *what);
/* Blocks for a grid that fills the device. */
int rtg_max_blocks(void);
/* The device's streaming multiprocessors. */
int rtg_sm_count(void);

/* Device memory of 'bytes' (at least 1), on the stream: an error of the
   statement, with the size asked for and the memory free, if there is
   none. */
void *rtg_alloc(size_t bytes);
void rtg_free(void *p);
/* A device vector of 'n' elements of base 'b' (uninitialized). */
RtValue *rtg_vec_new(RtBase b, int64_t n);
/* A device segdes of 'nseg' segments (lengths uninitialized). */
RtValue *rtg_segdes_new(int64_t nseg);
/* A segdes's offsets on the device ('len' + 1 of them), made the first
   time (one one-block kernel for a few thousand segments, CUB's scan for
   more) and kept on the segdes; its total, read back the first time (a
   sync). */
const int64_t *rtg_seg_offsets(RtValue *d);
int64_t rtg_seg_total(RtValue *d);
/* Segdes 'd', just made, holds 'total' elements, as the compiler knows
   (FlatStmt.total): the host takes it as the total, which it then never
   waits to read back (a host segdes's is compared: rt_seg_known_total). */
void rtg_seg_known_total(RtValue *d, int64_t total);
/* The totals of the 'n' segdes 'ds' not known yet, read in one wait (the
   host asks for the first and will ask for the others: one round trip
   where each took its own). */
void rtg_seg_totals(int n, RtValue *const *ds);

/* A launch's identity for the errors its kernels record: the `run` at
   site 'site' in the context under way (rt_context), as a number > 0
   that the kernels store in RtKernelError.run.  An error found at a later
   synchronization is then reported in the context of the `run` that made
   it, as the CPU reports it.  The same site and context give the same
   number; the numbers are forgotten at the end of each top-level
   statement (rtg_statement_end). */
int rtg_launch(int site);
/* The end of a top-level statement: waits for the device, reports an
   error recorded, and forgets the launches. */
void rtg_statement_end(void);

/* A device counter at 0, for the one-launch reductions (rt/gpu.cuh's
   reduce_commutative): the last block to finish sets it back to 0. */
unsigned *rtg_ticket(void);
/* Device memory of at least 'bytes' for a skeleton's per-block partial
   results, the same for every call (it grows when a call needs more):
   valid until the next call of rtg_partials.  One stream runs every
   kernel, so a call's kernels have ended before the next call's start;
   a skeleton uses it within one call, never across another skeleton's.
   Not freed (an allocation and a free a call cost the runtime's host
   work some µs, where a sum of 10^7 doubles takes 45). */
void *rtg_partials(size_t bytes);
/* The device's error record, which kernels write (rt/kernel.h). */
RtKernelError *rtg_error(void);
/* After launching kernel 'name' for the `run` at 'loc': counts it, and
   reports a launch failure naming the kernel and the NESL line; under
   NESSIE_PROFILE, marks the end of the launch on the stream. */
void rtg_launched(const char *name, RtLoc loc);

/* ---- the profile ----
   NESSIE_PROFILE=1 (read by rtg_init): every launch is timed on the GPU
   with CUDA events, one recorded just before it (rtg_launching) and one
   just after (rtg_launched), accumulated per launch site (kernel, step,
   NESL line), and the table printed on stderr at exit (gpu.cu says what
   the times include).  Unset, each hook costs one test of
   rtg_profiling. */
extern bool rtg_profiling;
void rtg_profile_before(const char *step);
/* Right before launching step 'step' of a skeleton ("map", "scan
   (parts)"): the step's name for the table, and the mark that separates
   the launch from the GPU's wait for it. */
static inline void rtg_launching(const char *step) {
  if (rtg_profiling)
    rtg_profile_before(step);
}
void rtg_profile_host_ran(void);
/* After a kernel's run on the host (rtg_choose_host said so): its time,
   from rtg_choose_host's return, counted apart in the profile. */
static inline void rtg_host_ran(void) {
  if (rtg_profiling)
    rtg_profile_host_ran();
}
/* Waits for the device and reports the error a kernel recorded, if any
   (the statement stops); counts a host synchronization. */
void rtg_sync(void);

/* A host copy of device value 'v' (a sync); a host value 'h' copied to
   the device; a value as the host holds it, for the runtime's host
   functions (printing, host primitives), and back. */
RtValue *rtg_to_host(RtValue *v);
RtValue *rtg_to_device(RtValue *h);
/* rtg_to_device of a host value the caller gives up (freed when copied). */
RtValue *rtg_adopt(RtValue *h);
/* Reads 'n' bytes of device memory at 'dev' into 'host' (a sync). */
void rtg_read(void *host, const void *dev, size_t n);
/* A slot of 'n' bytes for a kernel to write the one value that the host
   reads next, with rtg_read_result (a sync), which frees it: pinned host
   memory that the device writes through, so that the wait leaves the
   value on the host with no copy.  Its bytes are initialized memory (a
   struct's padding included). */
void *rtg_result_slot(size_t n);
void rtg_read_result(void *host, void *slot, size_t n);
/* The state of a single-pass kernel's tiles (rtg::tile_lookback): a word
   for each of 'tiles' tiles, and the epoch the launch marks them with (a
   new one each call: the words are cleared only when they grow or the
   epochs wrap). */
typedef struct RtgTileWord {
  long long value;           /* the tile's sum, then its inclusive prefix */
  unsigned long long status; /* the epoch << 2, and which of the two */
} __attribute__((aligned(16))) RtgTileWord;
typedef struct RtgTileState {
  RtgTileWord *words;
  unsigned epoch;
} RtgTileState;
RtgTileState rtg_tile_state(int64_t tiles);
/* Vector 'v', allocated for more elements, cut to its first 'n': where
   that leaves much of it unused, moved to memory of its size. */
RtValue *rtg_vec_fit(RtValue *v, int64_t n);
/* May the append of vectors 'a' and 'b' ('n' elements, both on the
   device) write b's elements after a's, in a's memory: a has the room,
   no mirror on the host, and one reference, its holder's, which lets it
   go after this append (code generation asks only there: codegen/host.c,
   gen_run)?  Values never change; one nothing else holds, about to go,
   may. */
bool rtg_append_fits(const RtValue *a, const RtValue *b, int64_t n);
/* That append, where rtg_append_fits: b's elements copied after a's, on
   the stream; gives a, with a reference more, now of 'n' elements. */
RtValue *rtg_append_into(RtValue *a, const RtValue *b, int64_t n);
/* Sets 'n' bytes of device memory at 'dev' to 0, on the stream. */
void rtg_zero(void *dev, size_t n);

/* The exclusive sum of 'n' flags (0 or 1) into 'offsets' (n entries, on
   the device); returns the total (a sync).  'name' and 'loc' are the
   kernel's whose flags they are (for the profile). */
int64_t rtg_flag_offsets(const char *name, RtLoc loc, const uint8_t *flags, int64_t *offsets, int64_t n);

/* ---- where a value lives ----
   A vector or segdes of at most NESSIE_HOST_MAX elements (default 4096)
   is small: a kernel whose vectors and sizes are all small runs on the
   host (the CPU target's code, compiled into the program beside the
   GPU's), because a launch, and above all a synchronization to read a
   result back, costs more than the work.  A recursive algorithm's leaves
   (quicksort's small partitions, a merge's one-element steps) then never
   touch the GPU.  Values move in place (the RtValue keeps its identity,
   its data changes side), so every reference sees the move. */

/* Is 'v' small (a segdes: its segments and its elements)? */
bool rtg_small(RtValue *v);
/* What the host path learned of one kernel (its dispatcher's, a static
   zeroed at the start): how often the results of its host runs that
   copied inputs from the device went back to the device with the next
   launch, and how often the next kernel ran on the host too (rt/gpu.cu,
   host_learn). */
typedef struct RtgHostSite {
  uint32_t bounced, kept;
} RtgHostSite;
/* Whether kernel arguments 'vals' (vectors and segdes) and SOAC sizes
   'sizes' make a host run of the kernel of 'site': then every value is
   moved to the host (one synchronization for all), else every value to
   the device.  Not where a value on the device (not mirrored) has more
   than NESSIE_HOST_COPY_MAX elements (default 4096, as
   NESSIE_HOST_MAX), nor where one must be copied and the site's copies
   bounced more often than they were kept (NESSIE_HOST_LEARN=0: never
   so). */
bool rtg_choose_host(RtValue **vals, int nvals, const int64_t *sizes, int nsizes, RtgHostSite *site);
/* Moves every value of 'vals' to the device. */
void rtg_to_device_all(RtValue **vals, int nvals);
/* A value the host made (a literal, a range, a host primitive's result):
   kept on the host if small, else moved to the device. */
RtValue *rtg_place(RtValue *h);

/* ---- library kernels on the device ---- */

RtValue *rtg_rank(RtValue *v, bool down);
RtValue *rtg_seg_rank(RtValue *d, RtValue *v, bool down);
RtValue *rtg_make_segdes(RtLoc loc, int run_site, RtValue *lengths);
RtValue *rtg_range_segdes(RtLoc loc, int run_site, RtValue *starts, RtValue *ends, RtValue *strides,
                          RtValue **lengths, RtValue **offsets);
RtValue *rtg_seg_lengths(RtValue *d);
RtValue *rtg_seg_starts(RtValue *d);
RtValue *rtg_seg_ids(RtValue *d);
/* The segment of each element (for the segmented skeletons), made the
   first time (one kernel; the total is read if not known, a sync) and
   kept on the segdes, which owns it: the caller must not free it, and it
   lives as long as the segdes.  rtg_seg_ids is a copy the caller owns. */
const int32_t *rtg_seg_ids_raw(RtValue *d);
/* SEG_FILTER's and SEG_PARTITION's new segment lengths, from the
   exclusive sums 'offsets' of the flags over all of sd's elements and
   the number 'kept' in all: the kept per segment into kept_sd, the others
   into other_sd (may be NULL). */
void rtg_seg_counts(RtValue *sd, const int64_t *offsets, int64_t kept, RtValue *kept_sd, RtValue *other_sd);
RtValue *rtg_rand(int site, RtValue *x);
/* name, eql, hash run on the host (rt/structured.c) over copies. */
RtValue *rtg_name(const RtLayout *l, RtValue *seg, RtValue **comps, int ncomps);
RtValue *rtg_eql(const RtLayout *l, bool host, RtValue **a, RtValue **b, int ncomps);
RtValue *rtg_hash(RtLoc loc, const RtLayout *l, bool host, RtValue **comps, int ncomps, RtValue *range);
/* A host primitive on device values: copies, the primitive, copies back. */
void rtg_host_call(RtHost h, RtLoc loc, const RtLayout *arg, const RtLayout *result, bool lifted, RtValue **args,
                   int nargs, RtValue **results, int nresults);
/* The device's error record checked, then the seconds on the clock (time
   measures device work: it synchronizes). */
double rtg_now(void);

#endif
