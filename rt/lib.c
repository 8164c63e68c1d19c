/*
 * lib.c: what a library made by `nessie --library` runs on besides its
 * compiled code: contexts, the handles of sequences, and the call of an
 * exported function (docs/library.md).
 *
 * The central idea: an exported function f is compiled as the top-level
 * statement `__keep_value(k, f(__global_value(k)))` (driver/export.c),
 * so that it runs the very code an executable runs for `f(x)`.  The two
 * primitives are the REPL's bridge to its store of values (RtStore);
 * a call installs a store whose `get` hands the statement the caller's
 * argument and whose `keep` takes its result.  A value crosses the
 * bridge as its host components H(t) (rt.h's layouts): scalars, and for
 * each sequence the components V(elem) that a handle holds as they are,
 * with a reference of its own, so that nothing is copied.
 *
 * The generated code describes the library in tables (RtLib): for each
 * exported function the leaves of H(argument) and H(result), each a
 * base type or a sequence type; for each sequence type the components
 * of V(elem), each a vector or a segment descriptor counted by the
 * descriptor above it (or by the sequence's own length).
 *
 * The runtime keeps per-process state (the statement's guard, the error
 * context, the store), so calls run one at a time: every entry point
 * that runs NESL takes one process-wide lock.
 */
#define _GNU_SOURCE /* pthread_getattr_np: the calling thread's stack, for the recursion limit */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

struct RtLibContext {
  const RtLib *lib;
  int device;
  bool unstarted; /* the runtime could not start: 'error' says why, and
                     every call returns RT_LIB_ERROR_START */
  char *error;    /* the last error's text, or NULL */
  char *location; /* its "FILE:LINE:COL", or NULL */
};

/* A sequence: its length and the components of V(elem), one reference
   each. */
typedef struct RtLibSeq {
  const RtLib *lib;
  int device; /* the GPU target: the device its vectors are on */
  int type;
  int64_t n;
  RtValue *comps[];
} RtLibSeq;

static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- errors ---- */

static void set_error(RtLibContext *c, const char *words, const char *location) {
  free(c->error);
  free(c->location);
  c->error = NULL;
  c->location = NULL;
  if (!words)
    return;
  size_t n = strlen(words) + (location ? strlen(location) + 2 : 0) + 1;
  c->error = malloc(n);
  if (c->error)
    snprintf(c->error, n, "%s%s%s", location ? location : "", location ? ": " : "", words);
  c->location = location ? strdup(location) : NULL;
}

/* The context whose call runs now (under lib_lock): the reporter writes
   the error there instead of on the transcript. */
static RtLibContext *calling;

static void report(RtLoc where, const char *words) {
  char loc[1024];
  /* An error inside a function is reported at the statement's call of
     it, and the words end "(in function f, line L, column C)": a
     library's statement is its own, made at the function's definition,
     so the place that matters to the caller is L:C in the function. */
  const char *in = strstr(words, " (in function ");
  const char *line = in ? strstr(in, ", line ") : NULL;
  int l, col;
  if (line && sscanf(line, ", line %d, column %d)", &l, &col) == 2) {
    where.line = l;
    where.col = col;
  }
  if (where.file)
    snprintf(loc, sizeof loc, "%s:%d:%d", where.file, where.line, where.col);
  set_error(calling, words, where.file ? loc : NULL);
}

/* ---- contexts ---- */

/* The libraries whose runtime was started in this process (each has
   its own, hidden in it): the device, and why it failed (NULL: it
   started).  Under lib_lock. */
typedef struct Started {
  const RtLib *lib;
  int device;
  char *error;
} Started;

static Started started[64];
static int nstarted;

RtLibContext *rt_lib_context_new(const RtLib *lib, int device) {
  RtLibContext *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  c->lib = lib;
  c->device = device;
  pthread_mutex_lock(&lib_lock);
  Started *s = NULL;
  for (int i = 0; i < nstarted && !s; i++)
    if (started[i].lib == lib)
      s = &started[i];
  const char *why = NULL;
  char words[320];
  bool gpu = lib->use_device != NULL; /* the CPU target has no device */
  if (gpu && device < 0) {
    snprintf(words, sizeof words, "CUDA device %d: a device's number is 0 or more", device);
    why = words;
  } else if (!s) {
    /* the first context of this library: its runtime starts (only
       once: a failed start leaves state half made) */
    const char *error = lib->init(device);
    if (nstarted < 64) {
      s = &started[nstarted++];
      s->lib = lib;
      s->device = device;
      s->error = error ? strdup(error) : NULL;
    }
    why = error;
  } else if (s->error) {
    why = s->error;
  } else if (gpu && s->device != device) {
    /* the runtime's stream and memory pool belong to one device */
    snprintf(words, sizeof words, "the runtime of library %s runs on CUDA device %d in this process: a context "
             "cannot use device %d", lib->name, s->device, device);
    why = words;
  }
  if (why) {
    c->unstarted = true;
    set_error(c, why, NULL);
  }
  pthread_mutex_unlock(&lib_lock);
  return c;
}

int rt_lib_status(const RtLibContext *c) { return c && c->unstarted ? RT_LIB_ERROR_START : 0; }

void rt_lib_context_free(RtLibContext *c) {
  if (!c)
    return;
  set_error(c, NULL, NULL);
  free(c);
}

const char *rt_lib_error(const RtLibContext *c) { return c && c->error ? c->error : ""; }
const char *rt_lib_error_location(const RtLibContext *c) { return c && c->location ? c->location : ""; }

/* ---- running under a guard ---- */

/* Sets the guard for code that may fail (an allocation, a statement):
   the calling thread's stack for the recursion limit, the reporter, a
   stop.  Used through RUN_GUARDED. */
static void enter(RtLibContext *c) {
  pthread_mutex_lock(&lib_lock);
  calling = c;
  set_error(c, NULL, NULL);
  if (c->lib->use_device) /* CUDA's current device is the thread's own */
    c->lib->use_device(c->device);
  /* once per thread: for the main thread glibc reads /proc/self/maps,
     which cost 1 ms a call */
  static _Thread_local char *stack_end;
  static _Thread_local size_t stack_size;
  if (!stack_end) {
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        stack_end = (char *)addr + size; /* the stack grows down from its end */
        stack_size = size;
      }
      pthread_attr_destroy(&attr);
    }
  }
  if (stack_end)
    rt_set_stack(stack_end, stack_size);
}

static int leave(RtReporter old_reporter, bool failed) {
  rt_set_stop(NULL);
  rt_set_context(NULL);
  rt_set_store(NULL);
  rt_set_reporter(old_reporter);
  rt_clear_failed();
  calling = NULL;
  pthread_mutex_unlock(&lib_lock);
  return failed ? RT_LIB_ERROR_NESL : 0;
}

/* ---- sequences ---- */

static const RtLibSeqType *seq_type(const RtLib *lib, int type) { return &lib->seqs[type]; }

/* The number of elements of component 'i' of 's' (the segments of a
   descriptor): the sequence's length, or the total of the descriptor
   that counts it. */
static int64_t comp_count(const RtLib *lib, const RtLibSeqType *t, int64_t n, RtValue *const *comps, int i) {
  int parent = t->parent[i];
  if (parent < 0)
    return n;
  RtValue *d = comps[parent];
  return d->device && lib->seg_total ? lib->seg_total(d) : rt_seg_total(d);
}

int rt_lib_seq_new(RtLibContext *c, int type, int64_t n, const void *const *bufs, void **out) {
  return rt_lib_seq_new_on(c, type, n, bufs, NULL, out);
}

int rt_lib_seq_new_on(RtLibContext *c, int type, int64_t n, const void *const *bufs, const uint8_t *on_device,
                      void **out) {
  *out = NULL;
  if (c->unstarted)
    return RT_LIB_ERROR_START;
  const RtLibSeqType *t = seq_type(c->lib, type);
  if (n < 0) {
    set_error(c, "a sequence's length is negative", NULL);
    return RT_LIB_ERROR_ARGUMENT;
  }
  RtLibSeq *s = calloc(1, sizeof *s + sizeof(RtValue *) * (size_t)t->ncomps);
  if (!s) {
    set_error(c, "out of memory", NULL);
    return RT_LIB_ERROR_MEMORY;
  }
  s->lib = c->lib;
  s->device = c->device;
  s->type = type;
  s->n = n;
  enter(c);
  RtReporter old = rt_set_reporter(report);
  jmp_buf stop;
  rt_set_stop(&stop);
  if (setjmp(stop) != 0) {
    for (int i = 0; i < t->ncomps; i++)
      rt_release(s->comps[i]);
    free(s);
    return leave(old, true);
  }
  for (int i = 0; i < t->ncomps; i++) {
    int64_t count = comp_count(c->lib, t, n, s->comps, i);
    if (on_device && on_device[i]) {
      if (!c->lib->from_device)
        rt_fail((RtLoc){0}, NULL, "a device array is an argument of the GPU target's libraries only");
      s->comps[i] = c->lib->from_device(t->types[i], count, bufs[i]);
      continue;
    }
    if (t->types[i].kind == RT_SEGDES) {
      RtValue *d = rt_value_new(t->types[i], count);
      s->comps[i] = d;
      const int64_t *lengths = bufs[i];
      for (int64_t k = 0; k < count; k++) {
        if (lengths[k] < 0)
          rt_fail((RtLoc){0}, NULL, "length %lld of a nested sequence is negative", (long long)lengths[k]);
        d->lengths[k] = lengths[k];
      }
    } else {
      RtValue *v = rt_value_new(t->types[i], count);
      s->comps[i] = v;
      if (count > 0)
        memcpy(v->data.any, bufs[i], (size_t)count * rt_base_size(t->types[i].base));
    }
  }
  leave(old, false);
  *out = s;
  return 0;
}

/* The component on the host (the GPU target's may be on the device). */
static RtValue *on_host(const RtLib *lib, RtValue *v) { return v->device && lib->to_host ? lib->to_host(v) : v; }

int64_t rt_lib_seq_length(const void *h) { return h ? ((const RtLibSeq *)h)->n : 0; }

void rt_lib_seq_sizes(const void *h, int64_t *sizes) {
  const RtLibSeq *s = h;
  const RtLibSeqType *t = seq_type(s->lib, s->type);
  pthread_mutex_lock(&lib_lock); /* a GPU segdes's total is read on its device */
  if (s->lib->use_device)
    s->lib->use_device(s->device);
  for (int i = 0; i < t->ncomps; i++) {
    RtValue *d = t->parent[i] < 0 ? NULL : s->comps[t->parent[i]];
    if (!d) {
      sizes[i] = s->n;
    } else if (d->device && d->total < 0) {
      RtValue *h = on_host(s->lib, d); /* the GPU target's descriptor: its lengths read once */
      d->total = rt_seg_total(h);
      if (h != d)
        rt_value_free(h);
      sizes[i] = d->total;
    } else {
      sizes[i] = d->device ? d->total : rt_seg_total(d);
    }
  }
  pthread_mutex_unlock(&lib_lock);
}

int rt_lib_seq_read(RtLibContext *c, const void *h, void *const *bufs) { return rt_lib_seq_read_on(c, h, bufs, NULL); }

int rt_lib_seq_read_on(RtLibContext *c, const void *h, void *const *bufs, const uint8_t *on_device) {
  if (c->unstarted)
    return RT_LIB_ERROR_START;
  const RtLibSeq *s = h;
  const RtLibSeqType *t = seq_type(s->lib, s->type);
  enter(c);
  RtReporter old = rt_set_reporter(report);
  jmp_buf stop;
  rt_set_stop(&stop);
  if (setjmp(stop) != 0)
    return leave(old, true);
  for (int i = 0; i < t->ncomps; i++) {
    if (!bufs[i])
      continue;
    if (on_device && on_device[i]) {
      if (!s->lib->to_device_buffer)
        rt_fail((RtLoc){0}, NULL, "a device buffer is a result of the GPU target's libraries only");
      s->lib->to_device_buffer(s->comps[i], bufs[i]);
      continue;
    }
    RtValue *v = on_host(s->lib, s->comps[i]);
    if (v->type.kind == RT_SEGDES) {
      if (v->len > 0)
        memcpy(bufs[i], v->lengths, sizeof(int64_t) * (size_t)v->len);
    } else if (v->len > 0) {
      memcpy(bufs[i], v->data.any, (size_t)v->len * rt_base_size(v->type.base));
    }
    if (v != s->comps[i])
      rt_value_free(v);
  }
  return leave(old, false);
}

void rt_lib_seq_free(void *h) {
  RtLibSeq *s = h;
  if (!s)
    return;
  const RtLibSeqType *t = seq_type(s->lib, s->type);
  pthread_mutex_lock(&lib_lock);
  if (s->lib->use_device) /* device memory goes back to its device's pool */
    s->lib->use_device(s->device);
  for (int i = 0; i < t->ncomps; i++)
    rt_release(s->comps[i]);
  pthread_mutex_unlock(&lib_lock);
  free(s);
}

/* ---- calls ---- */

/* The call under way: the H components of its argument, made before
   the statement runs, and where its results go. */
typedef struct Call {
  const RtLibFunc *f;
  RtValue **arg;        /* H(argument) */
  int narg;
  void *const *results; /* the caller's places of the result's leaves */
  bool kept;
  int device;
} Call;

static Call *current;

static void store_get(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **out) {
  (void)ctx, (void)k, (void)loc, (void)l;
  for (int i = 0; i < current->narg; i++) {
    RtValue *v = current->arg[i];
    /* the statement owns what it is given: a vector shared, a scalar
       its own (generated code frees a scalar with rt_value_free) */
    if (v->type.kind == RT_SCALAR) {
      out[i] = rt_value_new(v->type, 1);
      out[i]->scalar = v->scalar;
    } else {
      rt_retain(v);
      out[i] = v;
    }
  }
}

static void store_keep(void *ctx, int32_t k, RtLoc loc, const RtLayout *l, RtValue **comps) {
  (void)ctx, (void)k, (void)loc, (void)l;
  const RtLibFunc *f = current->f;
  const RtLib *lib = f->lib;
  int at = 0;
  for (int i = 0; i < f->nresults; i++) {
    const RtLibLeaf *leaf = &f->results[i];
    void *place = current->results[i];
    if (leaf->seq < 0) {
      RtValue *v = comps[at++];
      memcpy(place, &v->scalar, rt_base_size(leaf->base));
      continue;
    }
    const RtLibSeqType *t = seq_type(lib, leaf->seq);
    RtLibSeq *s = calloc(1, sizeof *s + sizeof(RtValue *) * (size_t)t->ncomps);
    if (!s)
      rt_out_of_memory(sizeof *s);
    s->lib = lib;
    s->device = current->device;
    s->type = leaf->seq;
    for (int j = 0; j < t->ncomps; j++) {
      s->comps[j] = comps[at++];
      rt_retain(s->comps[j]);
    }
    /* the length: of the first component, or the segments of the first
       descriptor (every top-level component has the same) */
    s->n = t->ncomps ? s->comps[0]->len : 0;
    *(void **)place = s;
  }
  current->kept = true;
}

int rt_lib_call(RtLibContext *c, int fn, void *const *args, void *const *results) {
  const RtLib *lib = c->lib;
  const RtLibFunc *f = &lib->funcs[fn];
  for (int i = 0; i < f->nresults; i++)
    if (f->results[i].seq >= 0)
      *(void **)results[i] = NULL;
  if (c->unstarted)
    return RT_LIB_ERROR_START;
  for (int i = 0; i < f->nargs; i++)
    if (f->args[i].seq >= 0 && (!args[i] || ((RtLibSeq *)args[i])->type != f->args[i].seq)) {
      set_error(c, args[i] ? "an argument is a sequence of another type" : "an argument is NULL", NULL);
      return RT_LIB_ERROR_ARGUMENT;
    }
  enter(c);
  RtReporter old = rt_set_reporter(report);
  RtValue *arg[RT_LIB_MAX_LEAVES];
  int narg = 0;
  Call call = {f, arg, 0, results, false, c->device};
  jmp_buf stop;
  rt_set_stop(&stop);
  int64_t refs[RT_LIB_MAX_LEAVES]; /* each argument's references before the statement took its own */
  if (setjmp(stop) != 0) {
    /* A statement that stops leaves what it holds, as an executable's
       does; but the caller's handles must go when freed: their vectors
       get back the references they had before the statement (nothing
       that outlives the statement can hold them: it binds no global,
       and its results are dropped below). */
    for (int i = 0; i < call.narg; i++)
      if (arg[i]->type.kind != RT_SCALAR && arg[i]->refs > refs[i])
        arg[i]->refs = refs[i];
    for (int i = 0; i < call.narg; i++)
      rt_release(arg[i]);
    current = NULL;
    return leave(old, true);
  }
  for (int i = 0; i < f->nargs; i++) {
    const RtLibLeaf *leaf = &f->args[i];
    if (leaf->seq < 0) {
      RtValue *v = rt_value_new(rt_scalar_type(leaf->base), 1);
      memcpy(&v->scalar, args[i], rt_base_size(leaf->base));
      refs[narg] = 1;
      arg[narg++] = v;
      call.narg = narg;
      continue;
    }
    RtLibSeq *s = args[i];
    const RtLibSeqType *t = seq_type(lib, leaf->seq);
    for (int j = 0; j < t->ncomps; j++) {
      rt_retain(s->comps[j]);
      refs[narg] = s->comps[j]->refs;
      arg[narg++] = s->comps[j];
      call.narg = narg;
    }
  }
  current = &call;
  RtStore store = {NULL, store_get, store_keep};
  rt_set_store(&store);
  lib->tops[lib->first_export + fn]();
  current = NULL;
  for (int i = 0; i < call.narg; i++)
    rt_release(arg[i]);
  bool failed = rt_failed() || !call.kept;
  if (failed && !c->error)
    set_error(c, "the call stopped without a result", NULL);
  if (failed) /* a result kept before a later failure is not the caller's */
    for (int i = 0; i < f->nresults; i++)
      if (f->results[i].seq >= 0 && *(void **)results[i]) {
        RtLibSeq *s = *(void **)results[i];
        for (int j = 0; j < seq_type(lib, s->type)->ncomps; j++)
          rt_release(s->comps[j]);
        free(s);
        *(void **)results[i] = NULL;
      }
  return leave(old, failed);
}

/* Runs the statements before the exports (lib-nesl's bindings) once, as
   an executable's program() does; called by the library's init. */
void rt_lib_start(const RtLib *lib) {
  for (int i = 0; i < lib->first_export; i++) {
    jmp_buf stop;
    rt_set_stop(&stop);
    if (setjmp(stop) == 0)
      lib->tops[i]();
    rt_set_stop(NULL);
    rt_set_context(NULL);
  }
  rt_clear_failed();
}
