/*
 * library.c: the library kernels (λcu's LIBRARY SOAC: rank, the segment
 * descriptors, name, eql, hash, rand) as calls of the runtime, for both
 * targets.  A library kernel has no thunks: it is one call of a function
 * of the host's runtime (rt/vector.c, rt/structured.c, rt/ops.c), from
 * the CPU target's kernels and the GPU target's host kernels (cpu.c), or
 * of the GPU runtime (rt/gpu.cu), from the GPU target's device kernels
 * (cuda.c).  The two runtimes' functions take the same arguments but for
 * a few that the GPU's need more (below, Runtime), so that one table says
 * what each kernel calls and how, and one emitter writes the call for
 * either target.  The loop (LIB_LOOP, a sequence loop on each element)
 * calls no runtime function: each target writes it as a skeleton of its
 * own (cpu.c, cuda.c) around the element function (scalarfn.c).
 */
#include "codegen.h"

/* How a library kernel's runtime function takes its arguments, the
   kernel's own made RtValue *s (boxed) and named a[0], a[1], ...  The
   arrays of components (NAME, EQL, HASH) are a local R_args. */
typedef enum LibArgs {
  ARGS_PLAIN, /* (a...): the arguments as they are */
  ARGS_RANK,  /* (a..., down): then whether the order is descending */
  ARGS_LOC,   /* (loc, [launch,] a...): its error is the `run`'s */
  ARGS_SITE,  /* (site, a...): the SOAC's site, rand's stream */
  ARGS_NAME,  /* (&layout, sd or NULL, R_args + first, [count]) */
  ARGS_EQL,   /* (&layout, host, R_args, R_args + half, [half]) */
  ARGS_HASH,  /* (loc, &layout, host, R_args, [count,] range) */
} LibArgs;

/* A library kernel: its function in each runtime, and its arguments. */
typedef struct LibKernel {
  const char *cpu;  /* the host runtime's (rt/) */
  const char *cuda; /* the GPU runtime's (rt/gpu.cu) */
  LibArgs args;
  bool down; /* ARGS_RANK: the order is descending */
} LibKernel;

static const LibKernel kernels[LIB_COUNT] = {
    [LIB_RANK] = {"rt_rank", "rtg_rank", ARGS_RANK, false},                       /* a stable sort's ranks */
    [LIB_RANK_DOWN] = {"rt_rank", "rtg_rank", ARGS_RANK, true},                   /* the same, descending */
    [LIB_SEG_RANK] = {"rt_seg_rank", "rtg_seg_rank", ARGS_RANK, false},           /* ranks within segments */
    [LIB_SEG_RANK_DOWN] = {"rt_seg_rank", "rtg_seg_rank", ARGS_RANK, true},       /* the same, descending */
    [LIB_MAKE_SEGDES] = {"rt_make_segdes", "rtg_make_segdes", ARGS_LOC, false},   /* a negative length fails */
    [LIB_RANGE_SEGDES] = {"rt_range_segdes", "rtg_range_segdes", ARGS_LOC, false}, /* too many elements fail */
    [LIB_SEG_LENGTHS] = {"rt_seg_lengths", "rtg_seg_lengths", ARGS_PLAIN, false}, /* a segdes's lengths */
    [LIB_SEG_OFFSETS] = {"rt_seg_starts", "rtg_seg_starts", ARGS_PLAIN, false},   /* its offsets */
    [LIB_SEG_IDS] = {"rt_seg_ids", "rtg_seg_ids", ARGS_PLAIN, false},             /* each element's segment */
    [LIB_NAME] = {"rt_name", "rtg_name", ARGS_NAME, false},                       /* each value's last occurrence */
    [LIB_EQL] = {"rt_eql", "rtg_eql", ARGS_EQL, false},                           /* two values' equality */
    [LIB_HASH] = {"rt_hash", "rtg_hash", ARGS_HASH, false},                       /* a value's hash in a range */
    [LIB_RAND] = {"rt_rand", "rtg_rand", ARGS_SITE, false},                       /* numbers below limits */
};

/* What else differs between the two runtimes' calls. */
typedef struct Runtime {
  const char *no, *yes; /* a bool argument: the CPU target's 0 and 1,
                           the GPU target's false and true */
  const char *launch;   /* passed after loc: the launch's number (K_A's
                           run, cuda.c), so that the runtime's own
                           launches report their errors at the `run`; or
                           NULL */
  bool counts;          /* an array of components comes with its length:
                           the GPU runtime copies each to the host */
  const char *to_host;  /* the call that brings a scalar result to the
                           host, or NULL where it is there */
} Runtime;

static const Runtime runtimes[] = {
    [CG_CPU] = {"0", "1", NULL, false, NULL},                    /* rt/: every value on the host */
    [CG_CUDA] = {"false", "true", "A.run", true, "rtg_to_host"}, /* rt/gpu.cu: a value on either side */
};

/* A kernel variable as an RtValue * argument of the runtime: a scalar,
   read through 'env', is boxed (and freed after: 'boxes'). */
static const char *boxed(Cg *cg, CgBinding *env, const LcuVar *v, Vec *boxes) {
  if (v->type.kind != LT_SCALAR)
    return cg_name(v);
  const char *b = cg_temp(cg);
  cg_line(cg, "RtValue *%s = rt_value_new(rt_scalar_type(%s), 1);", b, cg_rtbase(v->type.base));
  cg_line(cg, "%s->scalar.%s = %s;", b, cg_member(v->type.base), cg_lookup(env, v)->value);
  vec_push(boxes, (void *)b);
  return b;
}

/* The arguments 'a' of a NAME, EQL or HASH, the components of its values,
   as the array 'r'_args that the runtime takes. */
static void components(Cg *cg, const char *r, const char **a, int n) {
  cg_line(cg, "RtValue *%s_args[%d];", r, n + 1);
  for (int i = 0; i < n; i++)
    cg_line(cg, "%s_args[%d] = %s;", r, i, a[i]);
}

/* The arguments 'a' as a list, into 'b'. */
static void join(Buf *b, const char **a, int n) {
  for (int i = 0; i < n; i++)
    buf_printf(b, "%s%s", i ? ", " : "", a[i]);
}

void cg_library(Cg *cg, const LcuSoac *s, CgBinding *env, CgTargetKind target, const char *ride) {
  if (s->library == LIB_LOOP)
    die("codegen: a LIBRARY loop is written by its target, not called");
  if ((unsigned)s->library >= LIB_COUNT || !kernels[s->library].cpu)
    die("codegen: library kernel %d has no runtime function", (int)s->library);
  const LibKernel *lk = &kernels[s->library];
  const Runtime *rt = &runtimes[target];
  int n = s->args.len;
  /* range_segdes's fourth argument and make_segdes's second, the total
     the host knows, are not the runtime's: it is handed over after the
     call (known below) */
  const char *known = lcu_known_total(s) ? cg_lookup(env, s->args.data[--n])->value : NULL;
  Vec boxes = {0};
  const char **a = xmalloc(sizeof(char *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    a[i] = boxed(cg, env, s->args.data[i], &boxes);
  const char *r = cg_temp(cg);
  const char *layout = s->layout ? cg_layout(cg, s->layout) : "NULL";
  /* EQL and HASH: of one value each (H(t)), or of vectors of them */
  const char *host = s->lifted ? rt->no : rt->yes;
  Buf b = {0};
  switch (lk->args) {
  case ARGS_PLAIN:
    join(&b, a, n);
    break;
  case ARGS_RANK:
    join(&b, a, n);
    buf_printf(&b, ", %s", lk->down ? rt->yes : rt->no);
    break;
  case ARGS_LOC:
    buf_puts(&b, "loc, ");
    if (rt->launch)
      buf_printf(&b, "%s, ", rt->launch);
    join(&b, a, n);
    break;
  case ARGS_SITE:
    buf_printf(&b, "%d, ", s->site);
    join(&b, a, n);
    break;
  case ARGS_NAME: {
    /* the segmented form has a segdes before the values' components */
    bool seg = n == rt_layout_count(s->layout, false) + 1 && ((const LcuVar *)s->args.data[0])->type.kind == LT_SEGDES;
    components(cg, r, a, n);
    buf_printf(&b, "&%s, %s, %s_args + %d", layout, seg ? a[0] : "NULL", r, seg ? 1 : 0);
    if (rt->counts)
      buf_printf(&b, ", %d", n - (seg ? 1 : 0));
    break;
  }
  case ARGS_EQL:
    components(cg, r, a, n);
    buf_printf(&b, "&%s, %s, %s_args, %s_args + %d", layout, host, r, r, n / 2);
    if (rt->counts)
      buf_printf(&b, ", %d", n / 2);
    break;
  case ARGS_HASH:
    components(cg, r, a, n);
    buf_printf(&b, "loc, &%s, %s, %s_args", layout, host, r);
    if (rt->counts)
      buf_printf(&b, ", %d", n - 1);
    buf_printf(&b, ", %s", a[n - 1]);
    break;
  }
  /* the results after the first (range_segdes's lengths and offsets)
     come back through pointers */
  for (int i = 1; i < s->results.len; i++)
    buf_printf(&b, ", &%s", cg_name(s->results.data[i]));
  const char *fn = target == CG_CUDA ? lk->cuda : lk->cpu;
  if (ride) {
    if (target != CG_CUDA || (s->library != LIB_MAKE_SEGDES && s->library != LIB_RANGE_SEGDES))
      die("codegen: MAPs ride only on a GPU segdes's launch");
    fn = s->library == LIB_MAKE_SEGDES ? "rtg::make_segdes" : "rtg::range_segdes";
    buf_printf(&b, ", %s", ride);
  }
  cg_line(cg, "RtValue *%s = %s(%s);", r, fn, buf_str(&b));
  if (known) /* the GPU takes it instead of reading the total back; the CPU checks it */
    cg_line(cg, "%s(%s, %s);", target == CG_CUDA ? "rtg_seg_known_total" : "rt_seg_known_total", r, known);
  for (int i = 0; i < boxes.len; i++)
    cg_line(cg, "rt_value_free(%s);", (const char *)boxes.data[i]);
  const LcuVar *res = s->results.data[0];
  if (res->type.kind == LT_SCALAR) {
    const char *value = rt->to_host ? xprintf("%s(%s)", rt->to_host, r) : r;
    cg_line(cg, "%s = %s->scalar.%s;", cg_name(res), value, cg_member(res->type.base));
    cg_line(cg, "rt_value_free(%s);", r);
  } else {
    cg_line(cg, "%s = %s;", cg_name(res), r);
  }
}
