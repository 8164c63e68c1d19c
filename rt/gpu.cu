/*
 * gpu.cu: the GPU runtime (gpu.h): the device, its one stream and
 * memory pool, device vectors and segment descriptors, the error record
 * and the host's synchronizations, and the library kernels (sorting and
 * ranks on CUB's radix sort, segment descriptors, random numbers).
 * Compiled once by nvcc into the runtime library; generated programs
 * link it.
 */
#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "gpu.cuh"

static cudaStream_t stream;
static int sm_count = 128; /* rtg_sm_count */
static unsigned *ticket; /* rtg_ticket */
static const RtSite *program_sites;
/* What the host reads back (finish_reads).  The error record
   (an rtg::ErrorSlot) on the device.  In pinned host memory that kernels
   write through (mapped): the record's 'raised' flag, then the slots that
   skeletons write their one value into (rtg_result_slot), so that a wait
   for the stream leaves them on the host with no copy.  In pinned memory
   too: the values of other reads (queue_read). */
enum { RAISED_ROOM = 16, RESULT_BYTES = 16 * 1024, READBACK_BYTES = 256 * 1024, MOST_READS = 64 };
static RtKernelError *error_slot; /* the device's rtg::ErrorSlot */
static unsigned char *mapped;     /* RAISED_ROOM + RESULT_BYTES bytes, the host's view */
static unsigned char *mapped_dev; /* the same bytes, the device's view */
static volatile int *raised;      /* mapped's first bytes */
static unsigned char *readback;   /* READBACK_BYTES bytes */
static void clear_error_slot(void);
static void read_device(int wait_kind, void *host, const void *dev, size_t n);
/* Pinned memory that small copies to the device go through
   (copy_to_device): STAGE_SLOTS slots of STAGE_BYTES, and the events that
   say when a group of them is copied (STAGE_GROUP). */
enum { STAGE_SLOTS = 64, STAGE_BYTES = 64 * 1024 };
static char *stage_memory;
static cudaEvent_t stage_done[STAGE_SLOTS];

/* A CUDA error in the runtime itself: the statement stops with it. */
static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    rt_fail(RT_LOC(NULL, 0, 0), NULL, "CUDA error in %s: %s", what, cudaGetErrorString(e));
}

/* The host's own time, by what it did (the host's clock, profiling only):
   where the host, not the GPU, paces a program (a recursion's levels of
   small kernels), these say which of its calls the time goes to.  A
   launch's time runs from rtg_launching's mark to rtg_launched's (the
   launch call, a CUB call's launches and allocations); the profile's own
   event records and reads are counted apart, as is the rest. */
enum { HOST_LAUNCH, HOST_ALLOC, HOST_FREE, HOST_STAGE, HOST_RUN, HOST_PROFILE, NHOST };
static const char *const host_names[NHOST] = {"launching kernels", "allocating (cudaMallocAsync)",
                                              "freeing (cudaFreeAsync)", "staging copies to the device",
                                              "kernels run on the host", "the profile's own events"};
static struct {
  uint64_t count;
  double seconds;
} host_time[NHOST];
static double launch_t0;   /* rtg_launching's clock */
/* the launches that were their site's first (profile_after): CUDA loads
   a kernel's code at its first launch (CUDA_MODULE_LOADING=LAZY, the
   default since CUDA 12.2), so that a program's first call pays for
   every kernel it reaches, and the mean of all launches says less of a
   launch's cost than the mean of the others */
static struct {
  uint64_t count;
  double seconds;
} first_launch;
static double host_run_t0; /* rtg_choose_host's, when it chose the host */
static bool launching;    /* between rtg_launching and rtg_launched: a CUB call's allocations are its launch's */

static void host_done(int kind, double t0) {
  if (launching && (kind == HOST_ALLOC || kind == HOST_FREE))
    return;
  host_time[kind].count++;
  host_time[kind].seconds += rt_now() - t0;
}

/* Device memory: the pool's (cudaMallocAsync on the stream) behind a
   cache of freed blocks by size class (blocks.h), which saves the host
   the calls; NESSIE_ALLOC_CACHE=0 turns the cache off (the sanitizers
   then see each vector's exact bounds and its free). */
static RtBlocks blocks;

static void *pool_alloc(size_t bytes) {
  void *p = NULL;
  double t0 = rtg_profiling ? rt_now() : 0.0;
  cudaError_t e = cudaMallocAsync(&p, bytes, stream);
  if (rtg_profiling)
    host_done(HOST_ALLOC, t0);
  if (e != cudaSuccess) {
    cudaGetLastError(); /* clear it */
    return NULL;
  }
  return p;
}

static void pool_free(void *p) {
  double t0 = rtg_profiling ? rt_now() : 0.0;
  cudaFreeAsync(p, stream);
  if (rtg_profiling)
    host_done(HOST_FREE, t0);
}

static void device_free(void *p) { rt_blocks_put(&blocks, p); }

/* Vectors of at most this many elements are small (gpu.h). */
static int64_t host_max = 4096;

/* A small kernel runs on the host only where none of its inputs that
   are on the device (and not mirrored on the host) has more than this
   many elements (NESSIE_HOST_COPY_MAX, read at the start): each such
   copy is a wait for every kernel in flight, and the kernel's results
   go back to the device for the kernels after it.  The default, 4096,
   copies every small input, as NESSIE_HOST_MAX allows: at 1024 to 0,
   quicksort of 10^6 keys ran 5-7% and Barnes-Hut of 10^5 bodies 4-9%
   faster, quickhull of 10^7 points 3-18% slower (an H100; docs/
   codegen.md, docs/gpu-runs.md, forty-eighth session). */
static int64_t host_copy_max = 4096;

/* The host path learns, kernel by kernel (NESSIE_HOST_LEARN, default
   on; rtg_choose_host): after a host run that copied an input from the
   device, the next kernel's choice says where that run's results went.
   Launched with host values moved to the device, they bounced (a wait
   to copy them over, and copies back: quicksort's level takes its
   segments' counts from the device, makes their ranges on the host and
   launches over the elements with them); run on the host too, they were
   kept (quickhull's per-edge values, taken once a level for many host
   runs).  A kernel whose copies bounced more often than they were kept
   runs on the device where it would have to copy: quicksort of 10^6
   keys 4.86 -> 4.43 ms, quickhull unmoved (an H100, docs/codegen.md). */
static bool host_learn = true;
static RtgHostSite *copied_site; /* the last run's, if a host run that copied */

static void read_host_max(void) {
  const char *env = getenv("NESSIE_HOST_MAX");
  if (env && *env) {
    char *end;
    long long m = strtoll(env, &end, 10);
    if (*end == '\0' && m >= 0)
      host_max = m;
  }
  env = getenv("NESSIE_HOST_LEARN");
  if (env && strcmp(env, "0") == 0)
    host_learn = false;
  env = getenv("NESSIE_HOST_COPY_MAX");
  if (env && *env) {
    char *end;
    long long m = strtoll(env, &end, 10);
    if (*end == '\0' && m >= 0)
      host_copy_max = m;
  }
}

/* ---- the profile: NESSIE_PROFILE=1 ----
   Each launch is bracketed by two CUDA events on the stream, one recorded
   just before it (rtg_launching) and one just after (rtg_launched): the
   launch's time runs from the GPU reaching the first to its reaching the
   second, that is the kernel's run plus, where the GPU had nothing to do
   when the host launched it, the launch's own latency (a few µs).  The
   time from one launch's second event to the next one's first is the
   GPU's time between launch sites: idle while the host computes or waits,
   or copying and setting memory (which have no site).  CUB's calls are
   bracketed the same way, as one launch each.  Events are read back
   lazily: after each host wait, when they are done anyway, or, when
   MARKS are pending, by waiting for the older half.  The host's waits
   (synchronizations, reads, copies) are timed on the host's clock.
   Profiling slows a program down (two event records per launch, and
   reading them back): the launch sites' times stay right, the time
   between them and the wall time grow.  rt_main prints the table at exit
   (profile_report); a CUDA error in the profiling itself stops it with
   one line, and the program goes on. */

bool rtg_profiling;
/* NESSIE_TRACE=1: a line on stderr for each launch and each wait for the
   device, in the order they happen, to see what one step of a recursion
   or loop launches and where it waits (the profile sums them by site). */
static bool tracing;
static bool trace_synced; /* did the last finish_reads wait for the stream? */
static bool profile_stopped; /* by an error of its own */
static int profile_device;
static double profile_t0, profile_ready; /* rtg_init's start and end (rt_now) */

/* One launch site: its times are summed by the content of its name, step
   and file and its line, whatever the strings' addresses. */
typedef struct ProfileRow {
  const char *name; /* the kernel ("K7"), or the runtime's */
  const char *step; /* the skeleton's step ("flags"), or "" */
  const char *file; /* NULL: no place */
  int line;
  uint64_t launches;
  double ms;
  bool launched; /* the host has launched at this site (profile_after) */
} ProfileRow;

static ProfileRow *rows;
static int nrows, rows_cap;
static int *row_hash; /* a row's index + 1, or 0: empty (open addressing) */
static int row_hash_size; /* a power of 2, more than twice nrows */

/* A mark: an event on the stream, which ends the interval since the
   mark before it; GAP: the interval between launch sites. */
enum { MARKS = 4096, GAP = -1 };
typedef struct Mark {
  cudaEvent_t event; /* made the first time the slot is used */
  int row;           /* the row the interval ending here goes to, or GAP */
} Mark;
static Mark marks[MARKS];
static int first_mark, nmarks; /* pending: marks[first_mark] and the next nmarks - 1, a ring */
static double gap_ms;
static const char *pending_step; /* rtg_launching's, for the launch that follows */

/* The host's waits for the device, by what it waited for. */
enum { WAIT_SYNC, WAIT_READ, WAIT_TOTAL, WAIT_TO_HOST, WAIT_TO_DEVICE, NWAITS };
static const char *const wait_names[NWAITS] = {"synchronizations", "reads of a size or scalar",
                                               "reads of a segment total", "copies to the host",
                                               "copies to the device"};
static struct {
  uint64_t count;
  double seconds;
} waits[NWAITS];
static uint64_t staged_copies; /* copies to the device that needed no wait (copy_to_device) */

static void profile_stop(const char *what, cudaError_t e) {
  cudaGetLastError(); /* the profile's error, not the program's: the next launch must not report it */
  fprintf(stderr, "profile: stopped (%s%s%s); the table has what ran before\n", what, e != cudaSuccess ? ": " : "",
          e != cudaSuccess ? cudaGetErrorString(e) : "");
  rtg_profiling = false;
  profile_stopped = true;
}

static uint64_t hash_text(uint64_t h, const char *s) {
  for (; s && *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull; /* the end, so that ("ab", "c") and ("a", "bc") differ */
}

static bool same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static unsigned row_slot(const char *name, const char *step, const char *file, int line) {
  uint64_t h = hash_text(hash_text(hash_text(0xcbf29ce484222325ull, name), step), file);
  h ^= (uint64_t)(unsigned)line * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return (unsigned)(h & (uint64_t)(row_hash_size - 1));
}

/* Makes the hash 'size' slots and puts every row in it; false: no memory. */
static bool rehash_rows(int size) {
  int *h = (int *)calloc((size_t)size, sizeof(int));
  if (!h)
    return false;
  free(row_hash);
  row_hash = h;
  row_hash_size = size;
  for (int i = 0; i < nrows; i++) {
    unsigned k = row_slot(rows[i].name, rows[i].step, rows[i].file, rows[i].line);
    while (row_hash[k])
      k = (k + 1) & (unsigned)(size - 1);
    row_hash[k] = i + 1;
  }
  return true;
}

/* The row of a launch site, made the first time; -1: out of memory. */
static int find_row(const char *name, const char *step, RtLoc loc) {
  if (2 * (nrows + 1) >= row_hash_size && !rehash_rows(row_hash_size ? 2 * row_hash_size : 256))
    return -1;
  unsigned k = row_slot(name, step, loc.file, loc.line);
  for (; row_hash[k]; k = (k + 1) & (unsigned)(row_hash_size - 1)) {
    ProfileRow *r = &rows[row_hash[k] - 1];
    if (r->line == loc.line && same_text(r->name, name) && same_text(r->step, step) && same_text(r->file, loc.file))
      return row_hash[k] - 1;
  }
  if (nrows == rows_cap) {
    int cap = rows_cap ? 2 * rows_cap : 128;
    ProfileRow *grown = (ProfileRow *)realloc(rows, sizeof(ProfileRow) * (size_t)cap);
    if (!grown)
      return -1;
    rows = grown;
    rows_cap = cap;
  }
  rows[nrows] = ProfileRow{name, step, loc.file, loc.line, 0, 0.0, false};
  row_hash[k] = ++nrows;
  return nrows - 1;
}

/* Reads back the first 'n' pending intervals (fewer if fewer are
   pending), waiting for the GPU to reach their ends. */
static void resolve_marks(int n) {
  for (; n > 0 && nmarks > 1; n--) {
    Mark *from = &marks[first_mark], *to = &marks[(first_mark + 1) % MARKS];
    float ms = 0;
    cudaError_t e = cudaEventSynchronize(to->event);
    if (e == cudaSuccess)
      e = cudaEventElapsedTime(&ms, from->event, to->event);
    if (e != cudaSuccess) {
      profile_stop("reading a CUDA event", e);
      return;
    }
    if (to->row == GAP) {
      gap_ms += ms;
    } else {
      rows[to->row].launches++;
      rows[to->row].ms += ms;
    }
    first_mark = (first_mark + 1) % MARKS;
    nmarks--;
  }
}

/* Records a mark on the stream that ends an interval of 'row' (or GAP). */
static void record_mark(int row) {
  if (nmarks == MARKS)
    resolve_marks(MARKS / 2);
  if (!rtg_profiling)
    return;
  Mark *m = &marks[(first_mark + nmarks) % MARKS];
  cudaError_t e = m->event ? cudaSuccess : cudaEventCreate(&m->event);
  if (e == cudaSuccess)
    e = cudaEventRecord(m->event, stream);
  if (e != cudaSuccess) {
    profile_stop("recording a CUDA event", e);
    return;
  }
  m->row = row;
  nmarks++;
}

void rtg_profile_host_ran(void) { host_done(HOST_RUN, host_run_t0); }

void rtg_profile_before(const char *step) {
  pending_step = step;
  double t0 = rt_now();
  record_mark(GAP);
  host_done(HOST_PROFILE, t0);
  launching = true;
  launch_t0 = rt_now();
}

/* After a launch (or a CUB call) of kernel 'name' for the `run` at 'loc'. */
static void profile_after(const char *name, RtLoc loc) {
  launching = false;
  double launch_s = rt_now() - launch_t0;
  host_done(HOST_LAUNCH, launch_t0);
  double t0 = rt_now();
  const char *step = pending_step ? pending_step : "";
  pending_step = NULL;
  int row = find_row(name ? name : "?", step, loc);
  if (row < 0) {
    profile_stop("out of memory", cudaSuccess);
    return;
  }
  if (!rows[row].launched) {
    rows[row].launched = true;
    first_launch.count++;
    first_launch.seconds += launch_s;
  }
  record_mark(row);
  host_done(HOST_PROFILE, t0);
}

/* After a CUB call (rtg_launching before it), timed as one launch but
   not counted as one by rtg_launched's statistics: its kernels are
   CUB's. */
static void cub_done(const char *name, RtLoc loc) {
  if (tracing)
    fprintf(stderr, "nessie trace: launch %s (CUB) %s:%d\n", name, loc.file ? loc.file : "-", loc.line);
  if (rtg_profiling)
    profile_after(name, loc);
}

/* The host's clock at the start of a wait for the device (0 when not
   profiling), and the wait's end: counted by 'kind', and then the pending
   events read back, which the device has passed. */
static double wait_start(void) { return rtg_profiling ? rt_now() : 0.0; }

static void wait_done(int kind, double t0) {
  if (tracing) /* a read after another's wait copies what that wait brought */
    fprintf(stderr, "nessie trace: %s (%s)\n", trace_synced ? "wait" : "read, no wait", wait_names[kind]);
  if (!rtg_profiling)
    return;
  waits[kind].count++;
  double t1 = rt_now();
  waits[kind].seconds += t1 - t0;
  resolve_marks(nmarks);
  host_done(HOST_PROFILE, t1);
}

static int by_time_down(const void *a, const void *b) {
  double x = rows[*(const int *)a].ms, y = rows[*(const int *)b].ms;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* "quicksort.nesl:7": the file without its directories (the library's
   "<lib-nesl/builtins.nesl>" whole), or "-". */
static void format_where(char *buf, size_t size, const ProfileRow *r) {
  if (!r->file) {
    snprintf(buf, size, "-");
    return;
  }
  const char *slash = r->file[0] == '<' ? NULL : strrchr(r->file, '/');
  snprintf(buf, size, "%s:%d", slash ? slash + 1 : r->file, r->line);
}

static void print_row(const char *label, const char *where, uint64_t launches, double ms, double total_ms) {
  fprintf(stderr, "  %-34.34s %-22.22s %9llu %11.3f %10.1f %6.1f\n", label, where, (unsigned long long)launches, ms,
          launches ? 1000.0 * ms / (double)launches : 0.0, total_ms > 0 ? 100.0 * ms / total_ms : 0.0);
}

enum { PROFILE_ROWS = 30 };

static void print_sites(void) {
  int *order = (int *)malloc(sizeof(int) * (size_t)(nrows + 1));
  if (!order) {
    fprintf(stderr, "profile: out of memory for the table\n");
    return;
  }
  double total_ms = 0;
  uint64_t total_launches = 0;
  for (int i = 0; i < nrows; i++) {
    order[i] = i;
    total_ms += rows[i].ms;
    total_launches += rows[i].launches;
  }
  qsort(order, (size_t)nrows, sizeof(int), by_time_down);
  /* "mean µs" is 8 bytes, 7 columns: its width is one more */
  fprintf(stderr, "  %-34s %-22s %9s %11s %11s %6s\n", "kernel and step", "where", "launches", "total ms",
          "mean µs", "%");
  /* NESSIE_PROFILE=all: every site (to compare two builds' launches) */
  const char *how = getenv("NESSIE_PROFILE");
  int most = how && strcmp(how, "all") == 0 ? nrows : PROFILE_ROWS;
  int shown = nrows <= most + 1 ? nrows : most;
  for (int i = 0; i < shown; i++) {
    const ProfileRow *r = &rows[order[i]];
    char label[96], where[96];
    snprintf(label, sizeof label, "%s%s%s", r->name, r->step[0] ? " " : "", r->step);
    format_where(where, sizeof where, r);
    print_row(label, where, r->launches, r->ms, total_ms);
  }
  if (shown < nrows) {
    uint64_t launches = 0;
    double ms = 0;
    for (int i = shown; i < nrows; i++) {
      launches += rows[order[i]].launches;
      ms += rows[order[i]].ms;
    }
    char label[64];
    snprintf(label, sizeof label, "(%d other sites)", nrows - shown);
    print_row(label, "", launches, ms, total_ms);
  }
  print_row("all launch sites", "", total_launches, total_ms, total_ms);
  free(order);
}

/* rt_exit_report: the table, on stderr. */
static void profile_report(void) {
  cudaSetDevice(profile_device); /* rt_main's thread, not the program's */
  if (rtg_profiling) {
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
      profile_stop("waiting for the device at exit", e);
    else
      resolve_marks(nmarks);
  }
  double wall_ms = 1000.0 * (rt_now() - profile_t0);
  double sites_ms = 0;
  for (int i = 0; i < nrows; i++)
    sites_ms += rows[i].ms;
  fprintf(stderr, "profile (NESSIE_PROFILE): GPU time per launch site, from CUDA events before and after each "
                  "launch%s\n",
          profile_stopped ? " (stopped early)" : "");
  print_sites();
  fprintf(stderr, "  (a row of CUB's counts calls, of a few kernels each; NESSIE_STATS's %llu kernel launches leave "
                  "them out)\n",
          (unsigned long long)rt_stats.kernels);
  fprintf(stderr, "GPU: %.3f ms at launch sites, %.3f ms between them (idle while the host works or waits; copies; "
                  "memsets)\n",
          sites_ms, gap_ms);
  uint64_t nwaits = 0;
  double wait_s = 0;
  for (int k = 0; k < NWAITS; k++) {
    nwaits += waits[k].count;
    wait_s += waits[k].seconds;
  }
  fprintf(stderr, "host: %llu waits for the device, %.3f ms\n", (unsigned long long)nwaits, 1000.0 * wait_s);
  for (int k = 0; k < NWAITS; k++)
    fprintf(stderr, "  %9llu %-28s %11.3f ms\n", (unsigned long long)waits[k].count, wait_names[k],
            1000.0 * waits[k].seconds);
  fprintf(stderr, "  %9llu copies to the device through pinned memory, without a wait\n",
          (unsigned long long)staged_copies);
  fprintf(stderr, "  (NESSIE_STATS's %llu host synchronizations are the waits that follow a launch)\n",
          (unsigned long long)rt_stats.syncs);
  /* the host's time after CUDA started: its waits, its calls, the rest */
  double run_s = rt_now() - profile_ready, busy_s = wait_s;
  fprintf(stderr, "host: %.3f ms after CUDA started: %.3f ms waiting (above),\n", 1000.0 * run_s, 1000.0 * wait_s);
  for (int k = 0; k < NHOST; k++) {
    busy_s += host_time[k].seconds;
    fprintf(stderr, "  %9llu %-28s %11.3f ms %7.2f µs each\n", (unsigned long long)host_time[k].count, host_names[k],
            1000.0 * host_time[k].seconds,
            host_time[k].count ? 1e6 * host_time[k].seconds / (double)host_time[k].count : 0.0);
  }
  uint64_t later = host_time[HOST_LAUNCH].count - first_launch.count;
  double later_s = host_time[HOST_LAUNCH].seconds - first_launch.seconds;
  fprintf(stderr, "            (launching: each site's first %llu, %.3f ms, %.2f µs each, loading its kernel; the "
                  "other %llu %.2f µs each)\n",
          (unsigned long long)first_launch.count, 1000.0 * first_launch.seconds,
          first_launch.count ? 1e6 * first_launch.seconds / (double)first_launch.count : 0.0,
          (unsigned long long)later, later ? 1e6 * later_s / (double)later : 0.0);
  fprintf(stderr, "            %-28s %11.3f ms (the generated host code, the runtime's bookkeeping, the host path)\n",
          "the rest", 1000.0 * (run_s - busy_s));
  fprintf(stderr, "device memory: %llu blocks from the cache of freed blocks, %llu from the pool (NESSIE_ALLOC_CACHE%s)\n",
          (unsigned long long)blocks.hits, (unsigned long long)blocks.misses, blocks.most_cached ? "" : "=0");
  fprintf(stderr, "host path: %llu kernel runs on the CPU, every vector at most NESSIE_HOST_MAX = %lld elements, "
                  "each copied from the device at most NESSIE_HOST_COPY_MAX = %lld (not in the table)\n",
          (unsigned long long)host_time[HOST_RUN].count, (long long)host_max, (long long)host_copy_max);
  fprintf(stderr, "wall: %.3f ms from the GPU runtime's start to the end (%.3f ms of it starting CUDA)\n", wall_ms,
          1000.0 * (profile_ready - profile_t0));
  fflush(stderr);
}

/* Profiling on if NESSIE_PROFILE is set (and not 0): the first mark, the
   start of the first interval.  't0': when rtg_init began. */
static void profile_start(int dev, double t0) {
  if (!rt_env_on("NESSIE_PROFILE"))
    return;
  profile_device = dev;
  profile_t0 = t0;
  profile_ready = rt_now();
  rtg_profiling = true;
  rt_exit_report = profile_report;
  record_mark(GAP);
}

/* The device's memory, in bytes (0 until known). */
static size_t device_memory;

/* Why the runtime could not start (rtg_start's result). */
static char start_error[256];

static const char *start_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *start_failed(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(start_error, sizeof start_error, fmt, ap);
  va_end(ap);
  return start_error;
}

const char *rtg_start(const RtSite *sites, int device) {
  double started = rt_now();
  program_sites = sites;
  read_host_max();
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    return start_failed("no CUDA device: %s", e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports none");
  int dev = device;
  const char *want = getenv("NESSIE_DEVICE");
  if (device < 0 && want && *want) {
    char *end;
    long d = strtol(want, &end, 10);
    if (*end || d < 0 || d >= count)
      return start_failed("NESSIE_DEVICE=%s: there are %d CUDA devices (0 to %d)", want, count, count - 1);
    dev = (int)d;
  } else if (device < 0) {
    dev = 0;
  } else if (device >= count) {
    return start_failed("CUDA device %d: there are %d CUDA devices (0 to %d)", device, count, count - 1);
  }
  e = cudaSetDevice(dev);
  if (e != cudaSuccess)
    return start_failed("CUDA device %d: %s", dev, cudaGetErrorString(e));
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
    sm_count = prop.multiProcessorCount;
    device_memory = prop.totalGlobalMem;
  }
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
    return start_failed("CUDA device %d: cannot make a stream", dev);
  /* keep the pool's memory between frees: a free is then only a mark */
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    uint64_t threshold = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
  rt_device_free = device_free;
  const char *cache = getenv("NESSIE_ALLOC_CACHE");
  rt_blocks_init(&blocks, pool_alloc, pool_free, cache && strcmp(cache, "0") == 0 ? 0 : device_memory / 2);
  /* the result slots zeroed once: a kernel writes a value's fields, and
     its padding, read back with it, is then initialized memory */
  if (cudaMalloc((void **)&error_slot, sizeof(rtg::ErrorSlot)) != cudaSuccess ||
      cudaHostAlloc((void **)&mapped, RAISED_ROOM + RESULT_BYTES, cudaHostAllocMapped) != cudaSuccess ||
      cudaHostGetDevicePointer((void **)&mapped_dev, mapped, 0) != cudaSuccess ||
      cudaHostAlloc((void **)&readback, READBACK_BYTES, cudaHostAllocDefault) != cudaSuccess ||
      cudaHostAlloc((void **)&stage_memory, (size_t)STAGE_SLOTS * STAGE_BYTES, cudaHostAllocDefault) != cudaSuccess)
    return start_failed("CUDA device %d: out of memory at start", dev);
  for (int i = 0; i < STAGE_SLOTS; i++)
    if (cudaEventCreateWithFlags(&stage_done[i], cudaEventDisableTiming) != cudaSuccess)
      return start_failed("CUDA device %d: cannot make an event", dev);
  memset(mapped, 0, RAISED_ROOM + RESULT_BYTES);
  raised = (volatile int *)mapped;
  clear_error_slot();
  if (cudaMalloc((void **)&ticket, sizeof *ticket) != cudaSuccess)
    return start_failed("CUDA device %d: out of memory at start", dev);
  cudaMemset(ticket, 0, sizeof *ticket);
  profile_start(dev, started);
  tracing = rt_env_on("NESSIE_TRACE");
  return NULL;
}

void rtg_init(const RtSite *sites) {
  const char *error = rtg_start(sites, -1);
  if (error) {
    fprintf(stderr, "error: %s\n", error);
    exit(1);
  }
}

unsigned *rtg_ticket(void) { return ticket; }

void *rtg_partials(size_t bytes) {
  static void *partials;
  static size_t partials_size;
  if (bytes > partials_size) {
    if (partials)
      rtg_free(partials); /* stream-ordered: after the kernels that used it */
    partials_size = bytes > ((size_t)64 << 10) ? bytes : (size_t)64 << 10;
    partials = rtg_alloc(partials_size);
  }
  return partials;
}

cudaStream_t rtg_stream(void) { return stream; }

void rtg_check(cudaError_t e, const char *what) { check(e, what); }

int rtg_max_blocks(void) { return 8 * sm_count; }

int rtg_sm_count(void) { return sm_count; }

RtKernelError *rtg_error(void) { return error_slot; }

/* ---- memory ---- */

RT_NORETURN static void out_of_memory(size_t bytes) {
  size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  rt_fail(rt_here, NULL, "out of memory (could not allocate %zu bytes on the GPU; %zu of %zu bytes free)", bytes,
          free_bytes, total);
}

void *rtg_alloc(size_t bytes) {
  /* more than the device has: no call, which would fail (and which
     compute-sanitizer's memcheck reports as an API error) */
  if (device_memory && bytes > device_memory)
    out_of_memory(bytes);
  void *p = rt_blocks_get(&blocks, bytes);
  if (!p)
    out_of_memory(bytes);
  rt_stats.bytes += bytes;
  return p;
}

void rtg_free(void *p) { device_free(p); }

RtValue *rtg_vec_new(RtBase b, int64_t n) {
  RtValue *v = (RtValue *)rt_alloc(sizeof(RtValue));
  v->type = rt_vec_type(b);
  v->len = n;
  v->refs = 1;
  v->total = -1;
  v->device = true;
  v->data.any = rtg_alloc(rt_base_size(b) * (size_t)(n > 0 ? n : 1));
  return v;
}

/* A vector cut to 'n' elements keeps its memory unless more than
   FIT_WASTE bytes and three quarters of it would go unused (a FILTER
   that keeps few of many: the keys equal to quicksort's pivots, a level
   of the recursion each, would each hold the whole input).  At half, one
   of a PARTITION's two results was nearly always copied (whichever held
   less than half), and one of quicksort's lesser and greater: a copy of
   up to half the input, each pass of a radix sort, each level of a
   quicksort, for vectors that mostly live a few launches. */
enum { FIT_WASTE = 1 << 20 };

RtValue *rtg_vec_fit(RtValue *v, int64_t n) {
  size_t size = rt_base_size(v->type.base);
  size_t unused = size * (size_t)(v->len - n);
  if (unused > FIT_WASTE && 4 * n < v->len) {
    void *to = rtg_alloc(size * (size_t)(n > 0 ? n : 1));
    if (n > 0)
      check(cudaMemcpyAsync(to, v->data.any, size * (size_t)n, cudaMemcpyDeviceToDevice, stream), "a copy");
    device_free(v->data.any);
    v->data.any = to;
    v->room = 0;
  } else if (v->len > n) {
    v->room = v->room > v->len ? v->room : v->len;
  }
  v->len = n;
  return v;
}

bool rtg_append_fits(const RtValue *a, const RtValue *b, int64_t n) {
  return a && b && a != b && a->type.kind == RT_VEC && b->type.kind == RT_VEC && a->type.base == b->type.base &&
         a->device && b->device && !a->mirror && a->refs == 1 && a->len + b->len == n &&
         (a->room > a->len ? a->room : a->len) >= n;
}

RtValue *rtg_append_into(RtValue *a, const RtValue *b, int64_t n) {
  size_t size = rt_base_size(a->type.base);
  if (b->len > 0)
    check(cudaMemcpyAsync((char *)a->data.any + size * (size_t)a->len, b->data.any, size * (size_t)b->len,
                          cudaMemcpyDeviceToDevice, stream),
          "a copy");
  a->len = n;
  rt_retain(a);
  return a;
}

/* The single-pass kernels' tile state (rtg::tile_lookback): a word's
   status holds the epoch of the launch that wrote it above its two bits
   of kind, so that a new launch, with a new epoch, finds nothing of its
   own there until its tiles write it.  Grown (zeroed) as needed; zeroed
   again when the epochs wrap, after 2^30 launches. */
static RtgTileState tile_state;
static int64_t tile_room;

RtgTileState rtg_tile_state(int64_t tiles) {
  const unsigned epochs = 1u << 30;
  if (tiles > tile_room || tile_state.epoch + 1 >= epochs) {
    if (tiles > tile_room) {
      device_free(tile_state.words);
      tile_room = tiles > 2 * tile_room ? tiles : 2 * tile_room;
      tile_state.words = (RtgTileWord *)rtg_alloc(sizeof(RtgTileWord) * (size_t)tile_room);
    }
    check(cudaMemsetAsync(tile_state.words, 0, sizeof(RtgTileWord) * (size_t)tile_room, stream), "a memset");
    tile_state.epoch = 0;
  }
  tile_state.epoch++;
  return tile_state;
}

RtValue *rtg_segdes_new(int64_t nseg) {
  RtValue *v = (RtValue *)rt_alloc(sizeof(RtValue));
  v->type = rt_segdes_type();
  v->len = nseg;
  v->refs = 1;
  v->total = -1;
  v->device = true;
  v->lengths = (int64_t *)rtg_alloc(sizeof(int64_t) * (size_t)(nseg + 1));
  return v;
}

/* A segdes's offsets: rtg::make_offsets (gpu.cuh), which the MAPs that
   make a segdes's lengths can ride on. */

const int64_t *rtg_seg_offsets(RtValue *d) {
  if (!d->device)
    return rt_seg_offsets(d);
  if (!d->offsets)
    d->offsets = rtg::make_offsets<rtg::FROM_WIDE>(d, d->lengths, rtg::RangesIn{}, RT_LOC(NULL, 0, 0), 0, rtg::NoRide{});
  return d->offsets;
}

int64_t rtg_seg_total(RtValue *d) {
  if (!d->device)
    return rt_seg_total(d);
  if (d->total < 0 && d->len <= 0)
    d->total = 0; /* no segments, no elements: nothing to wait for */
  if (d->total < 0)
    read_device(WAIT_TOTAL, &d->total, rtg_seg_offsets(d) + d->len, sizeof(int64_t));
  return d->total;
}

void rtg_seg_known_total(RtValue *d, int64_t total) {
  if (!d->device) {
    rt_seg_known_total(d, total);
    return;
  }
  if (d->total >= 0 && d->total != total)
    rt_seg_total_wrong(d->total, total);
  d->total = total;
}

/* ---- synchronization and errors ---- */

void rtg_launched(const char *name, RtLoc loc) {
  rt_stats.kernels++;
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    rt_fail(loc, NULL, "CUDA error launching kernel %s: %s", name, cudaGetErrorString(e));
  if (tracing)
    fprintf(stderr, "nessie trace: launch %s %s:%d\n", name, loc.file ? loc.file : "-", loc.line);
  if (rtg_profiling)
    profile_after(name, loc);
}

/* ---- launches, for the context of their errors ---- */

typedef struct Launch {
  int site;
  bool has_context;
  RtContext context;
} Launch;

static Launch *launches; /* launches[id - 1] */
static int nlaunches, launch_cap;
enum { LAUNCH_HASH = 4096 };
static int launch_hash[LAUNCH_HASH]; /* id, or 0: empty (open addressing) */

static bool same_launch(const Launch *l, int site, const RtContext *c) {
  if (l->site != site || l->has_context != (c != NULL))
    return false;
  if (!c)
    return true;
  const RtContext *d = &l->context;
  return d->lib_fn == c->lib_fn && d->user_fn == c->user_fn && d->lib_call.file == c->lib_call.file &&
         d->lib_call.line == c->lib_call.line && d->lib_call.col == c->lib_call.col &&
         d->stmt_loc.file == c->stmt_loc.file && d->stmt_loc.line == c->stmt_loc.line &&
         d->stmt_loc.col == c->stmt_loc.col;
}

static unsigned launch_key(int site, const RtContext *c) {
  uint64_t h = (uint64_t)site * 0x9E3779B97F4A7C15ull;
  if (c)
    h ^= ((uintptr_t)c->lib_fn * 31u) ^ ((uintptr_t)c->user_fn * 17u) ^ ((uint64_t)c->stmt_loc.line << 20) ^
         (uint64_t)c->lib_call.line;
  h ^= h >> 29;
  return (unsigned)(h % LAUNCH_HASH);
}

/* Whether a kernel that may write the error record was launched since the
   last rtg_sync: a program whose data stays on the host (small vectors)
   never waits for the device. */
static bool launched_since_sync;

int rtg_launch(int site) {
  launched_since_sync = true;
  const RtContext *c = rt_context();
  unsigned k = launch_key(site, c);
  /* a full table (thousands of distinct contexts in one statement) is
     searched no more: the newest launches get new numbers */
  for (int probe = 0; probe < 64; probe++) {
    int id = launch_hash[(k + probe) % LAUNCH_HASH];
    if (id == 0) {
      if (nlaunches == launch_cap) {
        launch_cap = launch_cap ? 2 * launch_cap : 256;
        launches = (Launch *)realloc(launches, sizeof(Launch) * (size_t)launch_cap);
        if (!launches) {
          fprintf(stderr, "error: out of memory\n");
          exit(1);
        }
      }
      Launch *l = &launches[nlaunches++];
      l->site = site;
      l->has_context = c != NULL;
      if (c)
        l->context = *c;
      launch_hash[(k + probe) % LAUNCH_HASH] = nlaunches;
      return nlaunches;
    }
    if (same_launch(&launches[id - 1], site, c))
      return id;
  }
  return -site; /* the table is crowded: reported at its run, in no context */
}

static void forget_launches(void) {
  if (nlaunches)
    memset(launch_hash, 0, sizeof launch_hash);
  nlaunches = 0;
}

void rtg_statement_end(void) {
  rtg_sync();
  forget_launches();
}

/* ---- reading the device ----
   A read of a size or a value was two round trips: the copy (to pageable
   memory, which waits for the stream), then, since a kernel had run, a
   second copy of the error record.  Now the error record and the result
   slots beside it come back in one copy, other reads are queued into
   pinned memory after them, and one wait for the stream covers them all;
   then the bytes are copied out.  Reads that do not fit (large vectors)
   go straight to their pageable memory, which waits by itself. */
static struct {
  void *host;
  size_t at, n;
} reads[MOST_READS];
static int nreads;
static size_t readback_used, results_used;

/* Queues a copy of 'n' bytes at device address 'dev' to 'host', which
   holds them after the next finish_reads. */
static void queue_read(void *host, const void *dev, size_t n) {
  if (n == 0)
    return;
  if (nreads < MOST_READS && n <= READBACK_BYTES - readback_used) {
    check(cudaMemcpyAsync(readback + readback_used, dev, n, cudaMemcpyDeviceToHost, stream), "a copy to the host");
    reads[nreads].host = host;
    reads[nreads].at = readback_used;
    reads[nreads].n = n;
    nreads++;
    readback_used += (n + 15) & ~(size_t)15;
    return;
  }
  check(cudaMemcpyAsync(host, dev, n, cudaMemcpyDeviceToHost, stream), "a copy to the host");
}

/* The device's error record emptied, its flag down. */
static void clear_error_slot(void) {
  *raised = 0;
  rtg::ErrorSlot none = {RT_NO_ERROR, 0, (int *)mapped_dev, LLONG_MAX};
  cudaMemcpy(error_slot, &none, sizeof none, cudaMemcpyHostToDevice);
}

/* The error record after the kernels since the last wait, read when its
   flag is up: reported if a kernel recorded one (the statement stops). */
static void error_check(void) {
  if (!*raised)
    return;
  RtKernelError rec;
  check(cudaMemcpy(&rec, error_slot, sizeof rec, cudaMemcpyDeviceToHost), "reading the error record");
  clear_error_slot();
  if (rec.index == INT64_MAX)
    return;
  /* the launch's number says where its `run` was, and in what context */
  static Launch failed;
  if (rec.run > 0 && rec.run <= nlaunches) {
    failed = launches[rec.run - 1];
    rec.run = failed.site;
    rt_set_context(failed.has_context ? &failed.context : NULL);
  } else if (rec.run < 0) {
    rec.run = -rec.run;
  }
  forget_launches();
  rt_kernel_fail(&rec, program_sites, RT_LOC(NULL, 0, 0));
}

/* Waits for the stream: the queued reads done, and the error record
   checked if a kernel ran since the last wait; then the reads copied out.
   One round trip.  Not timed for the profile: for the waits that time
   themselves. */
static void stages_free(void);

static void finish_reads(void) {
  bool kernels = launched_since_sync;
  launched_since_sync = false;
  bool results = results_used > 0;
  /* a wait for kernels: a run since the last, or a launch that took a
     result slot (a kernel's later launches, whose values or counts are
     read after its first read's wait) */
  if (kernels || results)
    rt_stats.syncs++;
  int n = nreads;
  nreads = 0; /* before a failure below, which leaves the statement */
  readback_used = 0;
  results_used = 0;
  trace_synced = kernels || results || n > 0;
  if (trace_synced) {
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess)
      rt_fail(RT_LOC(NULL, 0, 0), NULL, "CUDA error: %s", cudaGetErrorString(e));
    stages_free();
  }
  if (kernels)
    error_check();
  for (int i = 0; i < n; i++)
    memcpy(reads[i].host, readback + reads[i].at, reads[i].n);
}

/* The wait after the kernels since the last one, if any. */
static void sync_device(void) {
  if (launched_since_sync)
    finish_reads();
}

void rtg_sync(void) {
  if (!launched_since_sync)
    return;
  double t0 = wait_start();
  sync_device();
  wait_done(WAIT_SYNC, t0);
}

void rtg_zero(void *dev, size_t n) { check(cudaMemsetAsync(dev, 0, n, stream), "a memset"); }

/* rtg_read, its wait counted in the profile as 'wait_kind'. */
static void read_device(int wait_kind, void *host, const void *dev, size_t n) {
  double t0 = wait_start();
  queue_read(host, dev, n);
  finish_reads();
  wait_done(wait_kind, t0);
}

void rtg_read(void *host, const void *dev, size_t n) { read_device(WAIT_READ, host, dev, n); }

void rtg_seg_totals(int n, RtValue *const *ds) {
  bool any = false;
  for (int i = 0; i < n; i++) {
    RtValue *d = ds[i];
    if (!d->device || d->total >= 0)
      continue;
    if (d->len <= 0) {
      d->total = 0;
      continue;
    }
    queue_read(&d->total, rtg_seg_offsets(d) + d->len, sizeof(int64_t));
    any = true;
  }
  if (any) {
    double t0 = wait_start();
    finish_reads();
    wait_done(WAIT_TOTAL, t0);
  }
}

void *rtg_result_slot(size_t n) {
  size_t room = (n + 15) & ~(size_t)15;
  if (room > RESULT_BYTES - results_used) { /* not while reads are made one at a time; but never wrong */
    void *p = rtg_alloc(n);
    rtg_zero(p, n);
    return p;
  }
  void *p = mapped_dev + RAISED_ROOM + results_used;
  results_used += room;
  return p;
}

void rtg_read_result(void *host, void *slot, size_t n) {
  unsigned char *p = (unsigned char *)slot;
  if (p < mapped_dev + RAISED_ROOM || p >= mapped_dev + RAISED_ROOM + RESULT_BYTES) {
    rtg_read(host, slot, n);
    rtg_free(slot);
    return;
  }
  double t0 = wait_start();
  finish_reads();
  memcpy(host, mapped + (p - mapped_dev), n);
  wait_done(WAIT_READ, t0);
}

RtValue *rtg_to_host(RtValue *v) {
  if (!v->device)
    return v;
  double t0 = wait_start();
  RtValue *h;
  if (v->type.kind == RT_SEGDES) {
    h = rt_value_new(rt_segdes_type(), v->len);
    queue_read(h->lengths, v->lengths, sizeof(int64_t) * (size_t)v->len);
  } else {
    h = rt_value_new(v->type, v->len);
    queue_read(h->data.any, v->data.any, rt_base_size(v->type.base) * (size_t)v->len);
  }
  finish_reads();
  wait_done(WAIT_TO_HOST, t0);
  return h;
}

/* ---- copies to the device without a wait ----
   A copy from pageable host memory may make the host wait until the
   stream has drained (CUDA's "API synchronization behavior": the driver
   stages such a copy and may synchronize to do it), and the host memory
   may not be freed before the copy has read it.  Every small value that a
   kernel on the device needed then cost the GPU its queue: quickhull of
   5*10^6 points waited 930 times so, 9.2 ms over 5 runs (tests/gpu-
   results.md).  A small copy instead goes through a ring of pinned slots:
   the host copies the bytes into the next slot, the slot's copy to the
   device is queued, and an event recorded after it says when the slot may
   be filled again; by the time the ring comes round it nearly always may. */
static bool stage_used[STAGE_SLOTS];
static int stage_next;

/* After a wait for the whole stream every slot's copy is done: a slot
   used since then is waited for, by its event, only when the ring comes
   round to it before the next such wait.  Radix sort's pass copies five
   small vectors to the device and waits once: each slot, reused 13
   passes later, was waited for by cudaEventSynchronize all the same, 2
   µs of the host's time a copy, 1436 times in 12 sorts (H200,
   docs/gpu-runs.md, fortieth session). */
static void stages_free(void) { memset(stage_used, 0, sizeof stage_used); }

/* An event is recorded after the last copy of each group of STAGE_GROUP
   slots, not after each copy: a slot reused before a wait for the stream
   waits for its group's, which its ring's last round recorded after it
   (the slots are used in order).  A copy's host time was 2.84 µs with an
   event each (radix sort, H200). */
enum { STAGE_GROUP = 16 };
static_assert(STAGE_SLOTS % STAGE_GROUP == 0, "the ring holds whole groups");

/* Queues a copy of 'bytes' bytes at host address 'src' to 'dst' on the
   device.  True: the bytes were taken at once (staged), so 'src' may be
   freed now; false: the copy reads 'src' later, and the caller waits for
   the stream before freeing it. */
static bool copy_to_device(void *dst, const void *src, size_t bytes) {
  if (bytes == 0)
    return true;
  if (bytes > STAGE_BYTES) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), "a copy to the device");
    return false;
  }
  int slot = stage_next;
  stage_next = (stage_next + 1) % STAGE_SLOTS;
  if (stage_used[slot]) {
    double t0 = wait_start();
    check(cudaEventSynchronize(stage_done[slot | (STAGE_GROUP - 1)]), "a copy to the device");
    trace_synced = true;
    wait_done(WAIT_TO_DEVICE, t0);
  }
  double t0 = rtg_profiling ? rt_now() : 0.0;
  char *pinned = stage_memory + (size_t)slot * STAGE_BYTES;
  memcpy(pinned, src, bytes);
  check(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream), "a copy to the device");
  if (slot % STAGE_GROUP == STAGE_GROUP - 1)
    check(cudaEventRecord(stage_done[slot], stream), "recording an event");
  stage_used[slot] = true;
  staged_copies++;
  if (rtg_profiling)
    host_done(HOST_STAGE, t0);
  return true;
}

/* Waits for the copies of a value to the device unless all were staged. */
static void copies_taken(bool staged) {
  if (staged)
    return;
  double t0 = wait_start();
  check(cudaStreamSynchronize(stream), "a copy to the device");
  stages_free();
  trace_synced = true;
  wait_done(WAIT_TO_DEVICE, t0);
}

RtValue *rtg_to_device(RtValue *h) {
  if (h->device || h->type.kind == RT_SCALAR)
    return h;
  RtValue *d;
  bool staged;
  if (h->type.kind == RT_SEGDES) {
    d = rtg_segdes_new(h->len);
    staged = copy_to_device(d->lengths, h->lengths, sizeof(int64_t) * (size_t)h->len);
  } else {
    d = rtg_vec_new(h->type.base, h->len);
    staged = copy_to_device(d->data.any, h->data.any, rt_base_size(h->type.base) * (size_t)h->len);
  }
  copies_taken(staged); /* the caller may free 'h' */
  return d;
}

/* ---- where a value lives ---- */

bool rtg_small(RtValue *v) {
  if (v->type.kind == RT_SEGDES)
    return v->len <= host_max && rtg_seg_total(v) <= host_max;
  return v->len <= host_max;
}

static size_t data_bytes(const RtValue *v) { return rt_base_size(v->type.base) * (size_t)(v->len > 0 ? v->len : 1); }

/* A small value that moves keeps what it leaves as its mirror (rt.h):
   its memory on the other side, in an RtValue of its own that only 'v'
   points to.  A value that a host run needs, then a launch, then a host
   run again (quickhull's edges beside its points, at every level) then
   moves once each way, not at every turn. */
static RtValue *new_mirror(const RtValue *v) {
  RtValue *m = (RtValue *)rt_alloc(sizeof(RtValue));
  *m = *v;
  m->refs = 1;
  m->mirror = NULL;
  m->lengths_vec = NULL; /* v's, which v releases */
  m->offsets_vec = NULL;
  return m;
}

/* 'v' takes its mirror's memory and side, the mirror 'v''s (a segdes's
   data pointer is NULL on both sides). */
static void swap_sides(RtValue *v) {
  RtValue *m = v->mirror, old = *v;
  v->data = m->data;
  v->lengths = m->lengths;
  v->offsets = m->offsets;
  v->ids = m->ids;
  v->device = m->device;
  m->data = old.data;
  m->lengths = old.lengths;
  m->offsets = old.offsets;
  m->ids = old.ids;
  m->device = old.device;
}

/* Moves device value 'v' to the host, the copies queued on the stream;
   false if it had a mirror there and nothing was copied.  Its device
   memory stays, as its mirror. */
static bool queue_to_host(RtValue *v) {
  if (v->mirror) {
    swap_sides(v);
    return false;
  }
  v->mirror = new_mirror(v);
  if (v->type.kind == RT_SEGDES) {
    int64_t *lengths = (int64_t *)rt_alloc_atomic(sizeof(int64_t) * (size_t)(v->len + 1));
    queue_read(lengths, v->lengths, sizeof(int64_t) * (size_t)v->len);
    v->lengths = lengths;
    v->offsets = NULL; /* made again on the host when needed */
    v->ids = NULL;     /* the host has no use for them */
  } else {
    void *data = rt_alloc_atomic(data_bytes(v));
    queue_read(data, v->data.any, rt_base_size(v->type.base) * (size_t)v->len);
    v->data.any = data;
  }
  v->device = false;
  return true;
}

/* Moves host value 'v' to the device.  A small one keeps its host memory
   as its mirror; a large one's is freed once the copy has read it. */
static void to_device_in_place(RtValue *v) {
  if (v->mirror) {
    swap_sides(v);
    return;
  }
  bool keep = rtg_small(v);
  bool staged;
  RtValue host = *v;
  if (v->type.kind == RT_SEGDES) {
    /* the offsets too: the host has them (its total needs them), where
       the device would make them again with a launch */
    int64_t total = rt_seg_total(v);
    host.offsets = v->offsets;
    int64_t *lengths = (int64_t *)rtg_alloc(sizeof(int64_t) * (size_t)(v->len + 1));
    int64_t *offsets = (int64_t *)rtg_alloc(sizeof(int64_t) * (size_t)(v->len + 1));
    staged = copy_to_device(lengths, v->lengths, sizeof(int64_t) * (size_t)v->len);
    staged = copy_to_device(offsets, v->offsets, sizeof(int64_t) * (size_t)(v->len + 1)) && staged;
    v->lengths = lengths;
    v->offsets = offsets;
    v->ids = NULL; /* the host makes none */
    v->total = total;
  } else {
    void *data = rtg_alloc(data_bytes(v));
    staged = copy_to_device(data, v->data.any, rt_base_size(v->type.base) * (size_t)v->len);
    v->data.any = data;
    v->room = 0; /* memory of its size */
  }
  v->device = true;
  copies_taken(staged); /* a copy not staged may read the host memory later */
  if (keep) {
    v->mirror = new_mirror(&host);
    return;
  }
  if (v->type.kind == RT_VEC)
    rt_free(host.data.any);
  rt_free(host.lengths);
  rt_free(host.offsets);
}

/* Would running a kernel on the host with inputs 'vals' copy one of more
   than 'most' elements (a segdes: lengths; -1: any) from the device? */
static bool host_run_copies(RtValue **vals, int nvals, int64_t most) {
  for (int i = 0; i < nvals; i++)
    if (vals[i]->device && !vals[i]->mirror && vals[i]->len > most)
      return true;
  return false;
}

/* Moves every host value of 'vals' to the device; whether any moved. */
static bool all_to_device(RtValue **vals, int nvals) {
  bool moved = false;
  for (int i = 0; i < nvals; i++)
    if (!vals[i]->device) {
      to_device_in_place(vals[i]);
      moved = true;
    }
  return moved;
}

/* What the run after a host run that copied says of it (host_learn):
   'host' where it runs on the host, 'moved' where it moved host values
   to the device. */
static void learn_from_next(bool host, bool moved) {
  if (!copied_site)
    return;
  if (host)
    copied_site->kept++;
  else if (moved)
    copied_site->bounced++;
  copied_site = NULL;
}

bool rtg_choose_host(RtValue **vals, int nvals, const int64_t *sizes, int nsizes, RtgHostSite *site) {
  bool host = true;
  for (int i = 0; i < nsizes && host; i++)
    host = sizes[i] <= host_max;
  /* before rtg_small, which may read a device segdes's total (a wait) */
  if (host && host_run_copies(vals, nvals, host_copy_max))
    host = false;
  if (host && host_learn && site->bounced > site->kept && host_run_copies(vals, nvals, -1))
    host = false;
  for (int i = 0; i < nvals && host; i++)
    host = rtg_small(vals[i]);
  if (!host) {
    learn_from_next(false, all_to_device(vals, nvals));
    return false;
  }
  learn_from_next(true, false);
  bool copied = false;
  for (int i = 0; i < nvals; i++)
    if (vals[i]->device)
      copied = queue_to_host(vals[i]) || copied;
  if (copied && host_learn)
    copied_site = site;
  if (copied) {
    double t0 = wait_start();
    finish_reads(); /* and the errors of the kernels before */
    wait_done(WAIT_TO_HOST, t0);
  }
  if (rtg_profiling)
    host_run_t0 = rt_now();
  return true;
}

void rtg_to_device_all(RtValue **vals, int nvals) { learn_from_next(false, all_to_device(vals, nvals)); }

RtValue *rtg_place(RtValue *h) {
  if (h->device || h->type.kind == RT_SCALAR || rtg_small(h))
    return h;
  to_device_in_place(h);
  return h;
}

RtValue *rtg_adopt(RtValue *h) {
  RtValue *d = rtg_to_device(h);
  if (d != h)
    rt_value_free(h);
  return d;
}

double rtg_now(void) {
  rtg_sync();
  return rt_now();
}

/* ---- scans of flags ---- */

struct ToInt64 {
  __host__ __device__ int64_t operator()(uint8_t f) const { return f; }
};

int64_t rtg_flag_offsets(const char *name, RtLoc loc, const uint8_t *flags, int64_t *offsets, int64_t n) {
  if (n <= 0)
    return 0;
  auto in = thrust::make_transform_iterator(flags, ToInt64{});
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, in, offsets, n, stream);
  void *tmp = rtg_alloc(bytes);
  rtg_launching("scan of flags (CUB)");
  check(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, offsets, n, stream), "a scan of flags");
  cub_done(name, loc);
  rtg_free(tmp);
  int64_t last;
  uint8_t last_flag;
  double t0 = wait_start();
  queue_read(&last, offsets + n - 1, sizeof(int64_t));
  queue_read(&last_flag, flags + n - 1, 1);
  finish_reads();
  wait_done(WAIT_READ, t0);
  return last + last_flag;
}

__global__ void seg_counts_kernel(const int64_t *off, int64_t nseg, const int64_t *offsets, int64_t n, int64_t kept,
                                  int64_t *kept_lengths, int64_t *other_lengths) {
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < nseg; s += (int64_t)gridDim.x * blockDim.x) {
    int64_t a = off[s] < n ? offsets[off[s]] : kept, b = off[s + 1] < n ? offsets[off[s + 1]] : kept;
    kept_lengths[s] = b - a;
    if (other_lengths)
      other_lengths[s] = (off[s + 1] - off[s]) - (b - a);
  }
}

void rtg_seg_counts(RtValue *sd, const int64_t *offsets, int64_t kept, RtValue *kept_sd, RtValue *other_sd) {
  if (sd->len <= 0)
    return;
  const int64_t *off = rtg_seg_offsets(sd);
  int64_t n = rtg_seg_total(sd);
  rtg_launching("counts");
  seg_counts_kernel<<<rtg::blocks_for(sd->len, 1), rtg::THREADS, 0, stream>>>(
      off, sd->len, offsets, n, kept, kept_sd->lengths, other_sd ? other_sd->lengths : NULL);
  rtg_launched("seg_counts", RT_LOC(NULL, 0, 0));
}

/* ---- segment descriptors ---- */

/* make_segdes and range_segdes without riders (gpu.cuh's templates). */
RtValue *rtg_make_segdes(RtLoc loc, int run_site, RtValue *lengths) {
  return rtg::make_segdes(loc, run_site, lengths, rtg::NoRide{});
}

RtValue *rtg_range_segdes(RtLoc loc, int run_site, RtValue *starts, RtValue *ends, RtValue *strides,
                          RtValue **lengths, RtValue **offsets) {
  return rtg::range_segdes(loc, run_site, starts, ends, strides, lengths, offsets, rtg::NoRide{});
}

__global__ void narrow_kernel(const int64_t *in, int32_t *out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = (int32_t)in[i];
}

RtValue *rtg_seg_lengths(RtValue *d) {
  RtValue *made = d->lengths_vec;
  if (made && made->device && made->len == d->len) {
    rt_retain(made);
    return made;
  }
  RtValue *r = rtg_vec_new(RT_INT, d->len);
  if (d->len > 0) {
    rtg_launching("narrow");
    narrow_kernel<<<rtg::blocks_for(d->len, 4), rtg::THREADS, 0, stream>>>(d->lengths, r->data.i, d->len);
    rtg_launched("seg_lengths", RT_LOC(NULL, 0, 0));
  }
  if (d->device && !made) { /* given again, as make_segdes's vector is */
    rt_retain(r);
    d->lengths_vec = r;
  }
  return r;
}

RtValue *rtg_seg_starts(RtValue *d) {
  RtValue *made = d->offsets_vec;
  if (made && made->device && made->len == d->len) {
    rt_retain(made);
    return made;
  }
  RtValue *r = rtg_vec_new(RT_INT, d->len);
  if (d->len > 0) {
    const int64_t *off = rtg_seg_offsets(d); /* before the mark: it may launch a scan */
    rtg_launching("narrow");
    narrow_kernel<<<rtg::blocks_for(d->len, 4), rtg::THREADS, 0, stream>>>(off, r->data.i, d->len);
    rtg_launched("seg_offsets", RT_LOC(NULL, 0, 0));
  }
  if (d->device) { /* values never change: the next call gives r again */
    rt_release(d->offsets_vec);
    rt_retain(r);
    d->offsets_vec = r;
  }
  return r;
}

/* Each element's segment, by a search of the offsets (rtg::segment_of:
   the nonempty segment that holds it, whatever empty segments share its
   offset).  Where the segments are at most IDS_FEW (the first levels of
   a quicksort: a few long ones), seg_ids_few: element k * THREADS + t of
   a block's tile of IDS_ITEMS * THREADS is thread t's (coalesced
   stores), each a search of the few offsets, which the L1 cache holds.
   Before, IDS_ITEMS consecutive elements a thread, one search for the
   first and mostly a single comparison for the others
   (rtg::segment_run); a search for every element, even only among the
   segments of its block's tile, took longer there (ncu of quicksort).
   10^6 elements in 2 segments took 10.6 µs that way, 3.7 by
   seg_ids_few (H100, tests/gpu/segtest.cu's timing; docs/gpu-runs.md,
   2026-11-26).  One launch; no memset, no scan.

   Where there are more segments, seg_ids_tiles: a block's tile of
   IDS_ITEMS * THREADS elements, the segments of its first and last
   element found by a warp each (rtg::warp_segment_of), the offsets of
   the segments between read into shared memory together, and each
   thread's first element searched there; the search of all the
   offsets by every thread was 20 dependent reads each for 10^6
   segments, and took 13.3 µs a call in quicksort's profile (H200,
   docs/gpu-runs.md, 2026-12-02).  A tile that spans more than
   IDS_SHARED segments (runs of empty ones) falls back to that search. */
enum { IDS_ITEMS = 4, IDS_FEW = 32, IDS_SHARED = 2048 };

__global__ void seg_ids_few(const int64_t *__restrict__ off, int64_t nseg, int64_t n, int32_t *__restrict__ ids) {
  const int64_t base = blockIdx.x * (int64_t)(IDS_ITEMS * rtg::THREADS);
  for (int k = 0; k < IDS_ITEMS; k++) {
    int64_t j = base + k * rtg::THREADS + threadIdx.x;
    if (j < n)
      ids[j] = (int32_t)rtg::segment_of(off, nseg, j);
  }
}

__global__ void __launch_bounds__(rtg::THREADS)
    seg_ids_tiles(const int64_t *off, int64_t nseg, int64_t n, int32_t *ids) {
  __shared__ int64_t ends[2];                /* the segments of the tile's first and last element */
  __shared__ int64_t tile_off[IDS_SHARED + 1]; /* off[first .. last + 1] */
  const int64_t base = blockIdx.x * (int64_t)(IDS_ITEMS * rtg::THREADS);
  const int64_t end = base + IDS_ITEMS * rtg::THREADS < n ? base + IDS_ITEMS * rtg::THREADS : n;
  const int warp = threadIdx.x / 32;
  if (warp < 2) {
    int64_t s = rtg::warp_segment_of(off, nseg, warp == 0 ? base : end - 1);
    if ((threadIdx.x & 31) == 0)
      ends[warp] = s;
  }
  __syncthreads();
  const int64_t first = ends[0], count = ends[1] - ends[0] + 1;
  const int64_t mine = base + (int64_t)threadIdx.x * IDS_ITEMS;
  if (count > IDS_SHARED) { /* the block agrees: count is the same in every thread */
    rtg::segment_run<IDS_ITEMS>(off, nseg, NULL, mine, end, [&](int, int64_t j, int64_t s) { ids[j] = (int32_t)s; });
    return;
  }
  for (int64_t k = threadIdx.x; k <= count; k += rtg::THREADS)
    tile_off[k] = off[first + k];
  __syncthreads();
  if (mine >= end)
    return;
  /* tile_off[0] <= mine < tile_off[count]: the last offset at or below */
  int64_t lo = 0, hi = count;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (tile_off[mid] <= mine)
      lo = mid;
    else
      hi = mid;
  }
  for (int k = 0; k < IDS_ITEMS && mine + k < end; k++) {
    while (tile_off[lo + 1] <= mine + k) /* past the segment, and any empty ones after it */
      lo++;
    ids[mine + k] = (int32_t)(first + lo);
  }
}

/* The ids of 'd''s 'n' elements into 'ids' (device memory). */
static void make_seg_ids(RtValue *d, int64_t n, int32_t *ids) {
  if (n <= 0)
    return;
  const int64_t *off = rtg_seg_offsets(d); /* before the mark: it may launch a scan */
  rtg_launching("segment ids (search)");
  if (d->len <= IDS_FEW) {
    int64_t tiles = (n + IDS_ITEMS * rtg::THREADS - 1) / (IDS_ITEMS * rtg::THREADS);
    seg_ids_few<<<(unsigned)tiles, rtg::THREADS, 0, stream>>>(off, d->len, n, ids);
  } else {
    int64_t tiles = (n + IDS_ITEMS * rtg::THREADS - 1) / (IDS_ITEMS * rtg::THREADS);
    seg_ids_tiles<<<(unsigned)tiles, rtg::THREADS, 0, stream>>>(off, d->len, n, ids);
  }
  rtg_launched("seg_ids", RT_LOC(NULL, 0, 0));
}

const int32_t *rtg_seg_ids_raw(RtValue *d) {
  if (d->ids)
    return d->ids;
  int64_t n = rtg_seg_total(d);
  int32_t *ids = (int32_t *)rtg_alloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  make_seg_ids(d, n, ids);
  d->ids = ids;
  return ids;
}

/* A vector the caller owns: a copy of the cached ids where they are
   made already, else made straight into it (not cached: a second copy
   of them would live as long as the segdes). */
RtValue *rtg_seg_ids(RtValue *d) {
  int64_t n = rtg_seg_total(d);
  RtValue *r = rtg_vec_new(RT_INT, n);
  if (n > 0 && d->ids)
    check(cudaMemcpyAsync(r->data.i, d->ids, sizeof(int32_t) * (size_t)n, cudaMemcpyDeviceToDevice, stream),
          "a copy of segment ids");
  else
    make_seg_ids(d, n, r->data.i);
  return r;
}

/* ---- ranks: CUB's radix sort, stable ---- */

/* Sortable keys: every base as a double (exact for ints and chars, which
   order by their unsigned codes), -0.0 as 0.0 so that the two tie. */
__global__ void keys_kernel(const void *v, int base, int64_t n, bool down, double *keys, int32_t *idx) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double k;
    switch (base) {
    case RT_INT:
      k = ((const int32_t *)v)[i];
      break;
    case RT_FLOAT:
      k = ((const double *)v)[i];
      break;
    case RT_BOOL:
      k = ((const uint8_t *)v)[i];
      break;
    default:
      k = (unsigned char)((const char *)v)[i];
      break;
    }
    if (k == 0.0)
      k = 0.0;
    keys[i] = down ? -k : k;
    idx[i] = (int32_t)i;
  }
}

/* rank[perm[p]] = p (minus the segment's start) */
__global__ void ranks_kernel(const int32_t *perm, int64_t n, const int64_t *off, const int32_t *ids, int32_t *rank) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
    int32_t i = perm[p];
    rank[i] = (int32_t)(p - (off ? off[ids[i]] : 0));
  }
}

static RtValue *ranks(RtValue *d, RtValue *v, bool down) {
  int64_t n = v->len;
  RtValue *r = rtg_vec_new(RT_INT, n);
  if (n == 0)
    return r;
  double *keys = (double *)rtg_alloc(sizeof(double) * (size_t)n * 2);
  int32_t *idx = (int32_t *)rtg_alloc(sizeof(int32_t) * (size_t)n * 2);
  rtg_launching("keys");
  keys_kernel<<<rtg::blocks_for(n, 4), rtg::THREADS, 0, stream>>>(v->data.any, v->type.base, n, down, keys, idx);
  rtg_launched("rank", RT_LOC(NULL, 0, 0));
  size_t bytes = 0;
  void *tmp;
  const int32_t *ids = NULL; /* the segdes's: not freed here */
  if (!d) {
    cub::DeviceRadixSort::SortPairs(NULL, bytes, keys, keys + n, idx, idx + n, n, 0, 64, stream);
    tmp = rtg_alloc(bytes);
    rtg_launching("sort (CUB)");
    check(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, keys + n, idx, idx + n, n, 0, 64, stream), "a sort");
    cub_done("rank", RT_LOC(NULL, 0, 0));
  } else {
    const int64_t *off = rtg_seg_offsets(d);
    cub::DeviceSegmentedSort::StableSortPairs(NULL, bytes, keys, keys + n, idx, idx + n, n, d->len, off, off + 1,
                                              stream);
    tmp = rtg_alloc(bytes);
    rtg_launching("segmented sort (CUB)");
    check(cub::DeviceSegmentedSort::StableSortPairs(tmp, bytes, keys, keys + n, idx, idx + n, n, d->len, off, off + 1,
                                                    stream),
          "a segmented sort");
    cub_done("rank", RT_LOC(NULL, 0, 0));
    ids = rtg_seg_ids_raw(d);
  }
  const int64_t *off = d ? rtg_seg_offsets(d) : NULL; /* made above: no launch */
  rtg_launching("ranks");
  ranks_kernel<<<rtg::blocks_for(n, 4), rtg::THREADS, 0, stream>>>(idx + n, n, off, ids, r->data.i);
  rtg_launched("rank", RT_LOC(NULL, 0, 0));
  rtg_free(tmp);
  rtg_free(keys);
  rtg_free(idx);
  return r;
}

RtValue *rtg_rank(RtValue *v, bool down) { return ranks(NULL, v, down); }

RtValue *rtg_seg_rank(RtValue *d, RtValue *v, bool down) { return ranks(d, v, down); }

/* ---- random numbers: the CPU's draws (scalar.h) ---- */

__global__ void rand_kernel(const void *x, int base, int64_t n, uint64_t stream_bits, void *out) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    uint64_t bits = rt_rand_draw(stream_bits, k);
    if (base == RT_INT)
      ((int32_t *)out)[k] = rt_rand_below_i(bits, ((const int32_t *)x)[k]);
    else
      ((double *)out)[k] = rt_rand_below_f(bits, ((const double *)x)[k]);
  }
}

RtValue *rtg_rand(int site, RtValue *x) {
  if (!x->device)
    return rt_rand(site, x); /* a scalar: on the host */
  uint64_t s = rt_rand_stream(rt_rand_state(), site, rt_rand_execution(site));
  RtValue *r = rtg_vec_new(x->type.base, x->len);
  if (x->len > 0) {
    rtg_launching("draw");
    rand_kernel<<<rtg::blocks_for(x->len, 4), rtg::THREADS, 0, stream>>>(x->data.any, x->type.base, x->len, s,
                                                                         r->data.any);
    rtg_launched("rand", RT_LOC(NULL, 0, 0));
  }
  return r;
}

/* ---- name, eql, hash and the host primitives: on host copies ---- */

static RtValue **to_host_all(RtValue **comps, int n) {
  RtValue **h = (RtValue **)rt_alloc(sizeof(RtValue *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    h[i] = rtg_to_host(comps[i]);
  return h;
}

static void free_host_all(RtValue **h, RtValue **comps, int n) {
  for (int i = 0; i < n; i++)
    if (h[i] != comps[i])
      rt_value_free(h[i]);
  rt_free(h);
}

static RtValue *back_to_device(RtValue *h) { return rtg_adopt(h); }

RtValue *rtg_name(const RtLayout *l, RtValue *seg, RtValue **comps, int ncomps) {
  RtValue **h = to_host_all(comps, ncomps);
  RtValue *hs = seg ? rtg_to_host(seg) : NULL;
  RtValue *r = rt_name(l, hs, h);
  free_host_all(h, comps, ncomps);
  if (hs && hs != seg)
    rt_value_free(hs);
  return back_to_device(r);
}

RtValue *rtg_eql(const RtLayout *l, bool host, RtValue **a, RtValue **b, int ncomps) {
  RtValue **ha = to_host_all(a, ncomps), **hb = to_host_all(b, ncomps);
  RtValue *r = rt_eql(l, host, ha, hb);
  free_host_all(ha, a, ncomps);
  free_host_all(hb, b, ncomps);
  return back_to_device(r);
}

RtValue *rtg_hash(RtLoc loc, const RtLayout *l, bool host, RtValue **comps, int ncomps, RtValue *range) {
  RtValue **h = to_host_all(comps, ncomps);
  RtValue *hr = rtg_to_host(range);
  RtValue *r = rt_hash(loc, l, host, h, hr);
  free_host_all(h, comps, ncomps);
  if (hr != range)
    rt_value_free(hr);
  return back_to_device(r);
}

void rtg_host_call(RtHost hp, RtLoc loc, const RtLayout *arg, const RtLayout *result, bool lifted, RtValue **args,
                   int nargs, RtValue **results, int nresults) {
  /* a library's call (rt/lib.c): its argument and result pass as they
     are, on the device or not, so that its handles stay on the device
     between calls; a host copy would be freed here under the handle */
  if (!lifted && (hp == RT_HOST_GLOBAL_VALUE || hp == RT_HOST_KEEP_VALUE)) {
    rt_host_call(hp, loc, arg, result, lifted, args, results);
    for (int i = 0; i < nresults; i++)
      results[i] = rtg_place(results[i]);
    return;
  }
  RtValue **h = to_host_all(args, nargs);
  rt_host_call(hp, loc, arg, result, lifted, h, results);
  free_host_all(h, args, nargs);
  for (int i = 0; i < nresults; i++)
    results[i] = rtg_place(results[i]);
}
