/*
 * candidates.c: the pairs of runs of a region that fusion may put in one
 * kernel (section 4.2 of the λcu paper), and the cost model that weighs
 * them.
 *
 * Vertical pairs are the fusible edges (pdg.c names their rule).
 * Horizontal pairs have no path between them and one iteration space,
 * known from shapes and sizes (facts.c): two MAPs, REDUCEs, SCANs or
 * ONCEs become one SOAC over tuples; two FILTERs or PARTITIONs with one
 * predicate over the same values too; SEG_REDUCEs, SEG_SCANs and
 * SEG_FILTERs over one sd; and any two of MAP, REDUCE, SCAN, FILTER and
 * PARTITION over one index space share a kernel: a MAP beside another
 * shares its loop (the other's skeleton also writes the MAP's outputs),
 * and a REDUCE beside a FILTER whose values another REDUCE sums becomes,
 * after FILTER-REDUCE, two REDUCEs side by side (the paper's norm2).  Order pairs are the order edges: they cost a little,
 * so that the solver joins two runs that only share an order when the
 * clusters around them ask for it.
 *
 * The cost model is the bytes that move through global memory, with a
 * launch worth LAUNCH_BYTES.  Lengths come from facts.c: a constant is
 * itself, any other length (a shape class, a variable) is NOMINAL
 * elements, so that the symbolic sizes of one shape class are taken
 * equal, and so are all the others: the model compares traffic, not
 * times.  A run reads the vectors its thunks read and writes its vector
 * results; fusing a producer into its consumer saves the consumer's read
 * of the producer's result, but the consumer now reads the producer's own
 * inputs (a gathering MAP composed into several consumers is recomputed
 * by each: the model counts its reads once per consumer), and a producer
 * that no cluster outside needs is not written at all (its c is 0 in the
 * ILP) nor does it read its inputs itself.
 */
#include <stdlib.h>
#include <string.h>

#include "fusion.h"

enum { NOMINAL = 1000000 };
#define LAUNCH_BYTES 4.0e6

static double vec_bytes(FusLen l, FlatBase b) {
  double n = l.kind == FL_CONST ? (l.value > 0 ? l.value : 0) : NOMINAL;
  return n * (double)rt_base_size(flat_rt_base(b));
}

/* ---- what a run reads ---- */

typedef struct Read {
  const LcuVar *cpu; /* the CPU vector read (NULL: a kernel's own) */
  double bytes;
} Read;

static void note_read(Vec *reads, const LcuVar *cpu, double bytes) {
  for (int i = 0; i < reads->len; i++) {
    Read *r = reads->data[i];
    if (cpu && r->cpu == cpu)
      return;
  }
  Read *r = NEW(Read);
  r->cpu = cpu;
  r->bytes = bytes;
  vec_push(reads, r);
}

static const LcuVar *cpu_var(const FusNode *n, const LcuVar *kv) {
  const LcuAtom *a = fus_kernel_arg(&n->lens, kv);
  return a ? a->var : NULL;
}

static void exp_reads(const FusNode *n, const LcuSoac *s, const LcuExp *e, Vec *reads) {
  if (e->kind == LE_INDEX)
    note_read(reads, cpu_var(n, e->var), vec_bytes(fus_soac_space(&n->lens, s), e->type));
  for (int i = 0; i < e->nargs; i++)
    exp_reads(n, s, e->args[i], reads);
}

/* The vectors node 'n' reads, each once. */
static Vec node_reads(const FusNode *n) {
  Vec reads = {0};
  const LcuKernel *k = n->run->kernel;
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    const LcuThunk *ts[2] = {s->pull, s->second};
    for (int t = 0; t < 2; t++)
      if (ts[t])
        for (int b = 0; b < lcu_thunk_nexps(ts[t]); b++)
          exp_reads(n, s, lcu_thunk_exp(ts[t], b), &reads);
    for (int a = 0; a < s->args.len; a++) {
      const LcuVar *v = s->args.data[a];
      if (v->type.kind == LT_VEC)
        note_read(&reads, cpu_var(n, v), vec_bytes(fus_kernel_len(&n->lens, v), v->type.base));
    }
  }
  return reads;
}

static double sum_reads(const Vec *reads) {
  double t = 0;
  for (int i = 0; i < reads->len; i++)
    t += ((Read *)reads->data[i])->bytes;
  return t;
}

static double node_writes(const FusNode *n) {
  double t = 0;
  const LcuKernel *k = n->run->kernel;
  for (int i = 0; i < k->results.len; i++) {
    const LcuVar *v = k->results.data[i];
    t += v->type.kind == LT_VEC ? vec_bytes(fus_kernel_len(&n->lens, v), v->type.base) : 8;
  }
  return t;
}

/* What node 'n' of 'r' reads: made once per region (fus_fill_candidates
   makes them all), since the cost model asks again and again. */
static const Vec *reads_of(const FusRegion *r, const FusNode *n) { return &r->reads[n->id]; }

double fus_node_bytes(const FusRegion *r, const FusNode *n) { return sum_reads(reads_of(r, n)) + node_writes(n); }

static bool makes(const FusNode *m, const LcuVar *v) {
  for (int i = 0; i < m->run->results.len; i++)
    if (m->run->results.data[i] == v)
      return true;
  return false;
}

static bool reads_var(const Vec *reads, const LcuVar *v) {
  for (int i = 0; i < reads->len; i++)
    if (((Read *)reads->data[i])->cpu == v)
      return true;
  return false;
}

double fus_bytes_after(const FusRegion *r, const bool *written) {
  int n = r->nodes.len;
  const Vec *reads = r->reads;
  /* the members of each cluster, in order (a list per cluster: asking
     every node of the region for each read was quadratic) */
  int *first = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *next = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int k = 0; k < n; k++)
    first[k] = -1;
  for (int k = n - 1; k >= 0; k--) {
    int c = ((const FusNode *)r->nodes.data[k])->cluster;
    next[k] = first[c];
    first[c] = k;
  }
  double t = 0;
  for (int u = 0; u < n; u++) {
    const FusNode *node = r->nodes.data[u];
    if (written[u])
      t += node_writes(node);
    for (int i = 0; i < reads[u].len; i++) {
      const Read *x = reads[u].data[i];
      bool inside = false;
      for (int k = first[node->cluster]; k >= 0 && x->cpu && !inside; k = next[k]) {
        const FusNode *m = r->nodes.data[k];
        if (k != u)
          inside = makes(m, x->cpu) || (k < u && reads_var(&reads[k], x->cpu));
      }
      if (!inside)
        t += x->bytes;
    }
  }
  return t;
}

/* The bytes of the reads of 'a' that 'b' does not make too. */
static double reads_not_in(const Vec *a, const Vec *b) {
  double t = 0;
  for (int i = 0; i < a->len; i++) {
    const Read *x = a->data[i];
    bool shared = false;
    for (int k = 0; k < b->len && x->cpu; k++)
      shared |= ((Read *)b->data[k])->cpu == x->cpu;
    if (!shared)
      t += x->bytes;
  }
  return t;
}

/* ---- horizontal compatibility ---- */

/* A variable of a predicate outside its pull: a kernel's parameter, by
   the CPU atom its run passes, so that two FILTERs of two kernels
   compare by what they test (canon.c). */
void fus_name_by_cpu_atom(Buf *b, const LcuVar *v, const void *ctx) {
  const FusNode *n = ctx;
  const LcuAtom *a = fus_kernel_arg(&n->lens, v);
  if (a)
    fus_canon_atom(b, a);
  else
    buf_printf(b, "?%d", v->id);
}

/* Each node's predicate text, made once per region: a node is compared
   with each of its neighbours. */
static char **predicate_texts;

static char *predicate_text(const FusNode *n) {
  if (!predicate_texts[n->id])
    predicate_texts[n->id] = fus_predicate_text(n->soac, fus_name_by_cpu_atom, n);
  return predicate_texts[n->id];
}

static const LcuVar *cpu_segdes(const FusNode *n) { return cpu_var(n, n->soac->segdes); }

static bool same_space(const FusNode *u, const FusNode *v) {
  return fus_len_equal(u->space, v->space);
}

/* A SOAC that is one pass over its index space, with a skeleton that can
   carry another's work: a MAP, a REDUCE, a SCAN, a FILTER, a PARTITION. */
static bool one_pass(LcuSoacKind k) {
  return k == SOAC_MAP || k == SOAC_REDUCE || k == SOAC_SCAN || k == SOAC_FILTER || k == SOAC_PARTITION;
}

/* "A+B" or "A beside B" for SOAC kinds a and b: made once each (the
   horizontal pairs are tried for every two nodes of a region). */
static const char *rule_name(LcuSoacKind a, LcuSoacKind b, bool beside) {
  static const char *names[2][SOAC_COUNT][SOAC_COUNT];
  const char **name = &names[beside][a][b];
  if (!*name)
    *name = beside ? xprintf("%s beside %s", lcu_soac_name(a), lcu_soac_name(b))
                   : xprintf("%s+%s", lcu_soac_name(a), lcu_soac_name(b));
  return *name;
}

/* A joined PARTITION (fus_join_partitions makes it after fusion; read
   λcu may hold one) joins nothing: the rules know the two groups of
   results of a PARTITION only. */
static bool joinable(const FusNode *n) { return n->soac && n->soac->kind != SOAC_LIBRARY && !n->soac->joined; }

/* The rule that fuses u and v side by side, or NULL. */
static const char *horizontal_rule(const FusNode *u, const FusNode *v) {
  const LcuSoac *P = u->soac, *Q = v->soac;
  if (!joinable(u) || !joinable(v))
    return NULL;
  LcuSoacKind a = P->kind, b = Q->kind;
  if (a == b) {
    switch (a) {
    case SOAC_MAP:
    case SOAC_REDUCE:
    case SOAC_SCAN:
      return same_space(u, v) ? rule_name(a, b, false) : NULL;
    case SOAC_ONCE:
      return "ONCE+ONCE";
    case SOAC_SEG_REDUCE:
    case SOAC_SEG_SCAN: {
      const LcuVar *s1 = cpu_segdes(u), *s2 = cpu_segdes(v);
      return s1 && s1 == s2 ? rule_name(a, b, false) : NULL;
    }
    case SOAC_FILTER:
    case SOAC_PARTITION:
    case SOAC_SEG_FILTER: {
      bool space = a == SOAC_SEG_FILTER ? cpu_segdes(u) && cpu_segdes(u) == cpu_segdes(v) : same_space(u, v);
      if (!space)
        return NULL;
      if (strcmp(predicate_text(u), predicate_text(v)) == 0)
        return rule_name(a, b, false);
      /* one testing not(...) of the other's: a PARTITION (rules.c) */
      if (a == SOAC_FILTER && (fus_predicate_negates(P, u, Q, v, fus_name_by_cpu_atom) ||
                               fus_predicate_negates(Q, v, P, u, fus_name_by_cpu_atom)))
        return "FILTER+FILTER (complement)";
      /* two classes of one SPLIT (rules.c) */
      if (a == SOAC_FILTER && !P->into && !Q->into)
        return "FILTER+FILTER (split)";
      return NULL;
    }
    default:
      return NULL;
    }
  }
  /* a FILTER beside the SEG_REDUCE that counts its kept elements by
     segment: one SPLIT with counts (rules.c) */
  if (same_space(u, v) && (fus_counted_classes(P, u, Q, v, fus_name_by_cpu_atom, NULL) ||
                           fus_counted_classes(Q, v, P, u, fus_name_by_cpu_atom, NULL)))
    return "FILTER beside SEG_REDUCE (counts)";
  /* a MAP beside a REDUCE, a SCAN, a FILTER (the other's skeleton also
     writes the MAP's outputs), and a REDUCE beside a FILTER or SCAN,
     which becomes a REDUCE side by side when the FILTER's consumer is
     a REDUCE too (the paper's norm2) */
  if (one_pass(a) && one_pass(b) && same_space(u, v))
    return rule_name(a, b, true);
  return NULL;
}

/* ---- anchors ---- */

static bool same_name(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* A run's own checks (FUS_FAIL_RUN) report at the run holding them, in
   its context: a fused run takes the place and context of such a member
   (merge.c).  So a run that checks in a library function's context
   shares a kernel only with runs of that call, and two runs that check
   in the user's code only if they stand at one place. */
static bool anchor_allows(const FusNode *a, const FusNode *b) {
  if (!(a->failures & FUS_FAIL_RUN))
    return true;
  const LcuStmt *x = a->run, *y = b->run;
  if (x->lib_fn)
    return same_name(x->lib_fn, y->lib_fn) && lcu_loc_equal(x->user_loc, y->user_loc);
  if (!(b->failures & FUS_FAIL_RUN))
    return true;
  return !y->lib_fn && lcu_loc_equal(x->loc, y->loc);
}

bool fus_anchors_agree(const FusNode *u, const FusNode *v) { return anchor_allows(u, v) && anchor_allows(v, u); }

/* ---- the pairs ---- */

static FusPair *add_pair(FusRegion *r, int u, int v, FusPairKind kind, const char *rule, double gain) {
  FusPair *p = NEW(FusPair);
  double bytes = gain > 0 ? gain - LAUNCH_BYTES : 0;
  *p = (FusPair){u, v, kind, rule, bytes, gain, false, false, false};
  vec_push(&r->pairs, p);
  return p;
}

/* Joinable at all: a SOAC of its own, not a library kernel. */

static double vertical_gain(const FusRegion *r, const FusEdge *e) {
  const FusNode *u = r->nodes.data[e->from], *v = r->nodes.data[e->to];
  if (u->soac->kind == SOAC_REDUCE)
    return 8 + LAUNCH_BYTES;
  /* the consumer's reads of the producer's results are saved ... */
  double saved = 0;
  for (int i = 0; i < u->run->results.len; i++) {
    const LcuVar *y = u->run->results.data[i];
    for (int k = 0; k < v->run->args.len; k++)
      if (((LcuAtom *)v->run->args.data[k])->var == y && y->type.kind == LT_VEC) {
        saved += vec_bytes(fus_var_len(r->facts, y), y->type.base);
        break;
      }
  }
  /* a SCAN of a SEG_REDUCE's counts (pdg.c, scan_of_counts) becomes the
     offsets of the SPLIT that counts, its pass gone, where the FILTER
     joins them; where it does not, the two only run one after the other
     in one kernel: half a launch, so that the pair loses to one that
     saves a launch (Barnes-Hut's quadrant counts, whose FILTERs cannot
     join: 970 -> 1004 runs at 2 * saved + LAUNCH_BYTES, 961 at half a
     launch).  Such a SCAN has no partner side by side (below). */
  if (u->soac->kind == SOAC_SEG_REDUCE && v->soac->kind == SOAC_SCAN)
    return LAUNCH_BYTES / 2;
  /* ... but it reads the producer's inputs it did not read */
  return saved - reads_not_in(reads_of(r, u), reads_of(r, v)) + LAUNCH_BYTES;
}

/* True if some run reads results of both u and v ('out': the edges
   leaving each node). */
static bool common_consumer(const FusRegion *r, const Vec *out, int u, int v) {
  (void)r;
  for (int i = 0; i < out[u].len; i++) {
    const FusEdge *a = out[u].data[i];
    if (!a->var)
      continue;
    for (int k = 0; k < out[v].len; k++) {
      const FusEdge *b = out[v].data[k];
      if (b->var && b->to == a->to)
        return true;
    }
  }
  return false;
}

/* Paths between runs at most REACH_WINDOW nodes apart, as bits: bit d
   of row u says that a path of data (or through a host statement) leads
   from u to u + 1 + d; an order alone does not keep two runs from
   sharing a loop (side by side, the first's work stays first).  Edges go
   from lower ids to higher, so a path between two nodes passes only
   nodes between them, and the window holds every path between the nodes
   it spans.  Two nodes further apart are taken as joined (never side by
   side).  A row per node of the whole region was n^2 bits (a region of
   50 000 runs: 300 MB); the largest region of the corpus and the
   examples has 381 runs, so that the window changes nothing there. */
enum { REACH_WINDOW = 1024 };

typedef struct Reach {
  uint64_t *bits;
  int words; /* a row's */
  int width; /* words * 64: the nodes after u that row u covers */
} Reach;

static bool reaches(const Reach *rc, int u, int v) {
  int d = v - u - 1;
  if (d >= rc->width)
    return true;
  return rc->bits[(size_t)u * (size_t)rc->words + (size_t)(d / 64)] >> (d % 64) & 1;
}

static Reach fill_reach(const FusRegion *r, const Vec *out) {
  int n = r->nodes.len;
  Reach rc;
  rc.words = ((n < REACH_WINDOW ? n : REACH_WINDOW) + 63) / 64;
  rc.width = rc.words * 64;
  size_t total = (size_t)n * (size_t)rc.words;
  rc.bits = xmalloc_atomic(sizeof(uint64_t) * (total + 1));
  memset(rc.bits, 0, sizeof(uint64_t) * total);
  for (int u = n - 1; u >= 0; u--) { /* later nodes are done */
    uint64_t *row = rc.bits + (size_t)u * (size_t)rc.words;
    for (int k = 0; k < out[u].len; k++) {
      int v = ((FusEdge *)out[u].data[k])->to, d = v - u;
      if (d - 1 >= rc.width)
        continue;
      row[(d - 1) / 64] |= (uint64_t)1 << ((d - 1) % 64);
      /* v's row, bit j for node v + 1 + j, is bit j + d of u's */
      const uint64_t *vrow = rc.bits + (size_t)v * (size_t)rc.words;
      int ws = d / 64, bs = d % 64;
      for (int w = rc.words - 1; w >= ws; w--) {
        uint64_t x = vrow[w - ws] << bs;
        if (bs && w - ws - 1 >= 0)
          x |= vrow[w - ws - 1] >> (64 - bs);
        row[w] |= x;
      }
    }
  }
  return rc;
}

/* The CPU int variable that is the size of n's SOAC, or NULL.  SOACs of
   one size variable have something in common even when they read
   nothing in common: the appends of a tuple's components, each sized by
   the one `size append` of the same lengths. */
static const LcuVar *cpu_size(const FusNode *n) {
  return n->soac && n->soac->size.var ? cpu_var(n, n->soac->size.var) : NULL;
}

/* Appends to 'cands' the nodes after u, at most 'width' after it, that
   share a vector read with u or a consumer of their results ('in' and
   'out': the data edges into and out of each node; 'readers': the nodes
   that read each CPU vector, in increasing order); 'mark' keeps each
   once.  Only such pairs are candidates side by side (below), and
   finding them from u's reads and consumers, not by trying every later
   node, keeps the work linear in the region when reads are few. */
static void neighbours(const FusRegion *r, int u, int width, const Vec *in, const Vec *out, const GenMap *readers,
                       int *mark, Vec *cands) {
  const Vec *ur = &r->reads[u];
  const LcuVar *size = cpu_size(r->nodes.data[u]);
  for (int i = 0; i <= ur->len; i++) {
    /* the readers of each vector u reads, then the SOACs of u's size */
    const LcuVar *key = i < ur->len ? ((const Read *)ur->data[i])->cpu : size;
    const Vec *rs = key ? genmap_get(readers, key) : NULL;
    if (!rs)
      continue;
    /* the readers after u (binary search: the list is increasing) */
    int lo = 0, hi = rs->len;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if ((int)(intptr_t)rs->data[mid] <= u)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (int k = lo; k < rs->len; k++) {
      int v = (int)(intptr_t)rs->data[k];
      if (v - u > width)
        break;
      if (mark[v] != u) {
        mark[v] = u;
        vec_push(cands, (void *)(intptr_t)v);
      }
    }
  }
  for (int i = 0; i < out[u].len; i++) {
    const FusEdge *a = out[u].data[i];
    if (!a->var)
      continue;
    for (int k = 0; k < in[a->to].len; k++) {
      const FusEdge *b = in[a->to].data[k];
      int v = b->from;
      if (b->var && v > u && v - u <= width && mark[v] != u) {
        mark[v] = u;
        vec_push(cands, (void *)(intptr_t)v);
      }
    }
  }
}

/* Node u among those listed under 'key' (in increasing order, once). */
static void add_reader(GenMap *readers, const LcuVar *key, int u) {
  void **slot = genmap_slot(readers, key, true);
  if (!*slot)
    *slot = NEW(Vec);
  Vec *rs = *slot;
  if (!rs->len || (int)(intptr_t)rs->data[rs->len - 1] != u)
    vec_push(rs, (void *)(intptr_t)u);
}

static int compare_ints(const void *a, const void *b) {
  int x = (int)(intptr_t) * (void *const *)a, y = (int)(intptr_t) * (void *const *)b;
  return (x > y) - (x < y);
}

void fus_fill_candidates(FusRegion *r) {
  int n = r->nodes.len;
  r->reads = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  for (int u = 0; u < n; u++)
    r->reads[u] = node_reads(r->nodes.data[u]);
  predicate_texts = xmalloc(sizeof(char *) * (size_t)(n + 1));
  for (int u = 0; u < n; u++)
    predicate_texts[u] = NULL;
  /* the edges that are not an order alone, out of and into each node */
  Vec *out = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  Vec *in = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  for (int i = 0; i < r->edges.len; i++) {
    FusEdge *e = r->edges.data[i];
    if (e->kind != FE_ORDER) {
      vec_push(&out[e->from], e);
      vec_push(&in[e->to], e);
    }
  }
  Reach reach = fill_reach(r, out);
  for (int i = 0; i < r->edges.len; i++) {
    FusEdge *e = r->edges.data[i];
    const FusNode *u = r->nodes.data[e->from], *v = r->nodes.data[e->to];
    bool ok = joinable(u) && joinable(v) && fus_anchors_agree(u, v);
    /* a segdes joins only the MAP before it that makes its arguments */
    bool beside = e->kind == FE_FUSIBLE && joinable(u) && v->soac && fus_segdes_library(v->soac) &&
                  fus_anchors_agree(u, v);
    if (e->kind == FE_FUSIBLE && (ok || beside)) {
      e->pair = r->pairs.len;
      FusPair *p = add_pair(r, e->from, e->to, FP_VERTICAL, e->why, vertical_gain(r, e));
      p->late = !ok;
      p->offsets = ok && u->soac->kind == SOAC_SEG_REDUCE && v->soac->kind == SOAC_SCAN;
    } else if (e->kind == FE_ORDER && ok) {
      /* an order between two runs that fit side by side is that pair */
      const char *rule = reaches(&reach, e->from, e->to) ? NULL : horizontal_rule(u, v);
      e->pair = r->pairs.len;
      if (rule) {
        const Vec *ur = reads_of(r, u), *vr = reads_of(r, v);
        add_pair(r, e->from, e->to, FP_ORDER, rule, sum_reads(ur) - reads_not_in(ur, vr) + LAUNCH_BYTES);
      } else {
        add_pair(r, e->from, e->to, FP_ORDER, "order", -1);
      }
    } else if (e->kind != FE_PREVENTING) {
      /* no pair: the two stay apart */
      e->kind = FE_PREVENTING;
      e->why = !ok && joinable(u) && joinable(v) ? "both check at their own runs" : "a library kernel or several SOACs";
    }
  }
  /* the order edges that are pairs, by their first node (a node has one
     or two) */
  Vec *ordered = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    if (e->kind == FE_ORDER && e->pair >= 0)
      vec_push(&ordered[e->from], (void *)(intptr_t)e->to);
  }
  /* the joinable nodes reading each CPU vector, in increasing order */
  static GenMap readers;
  genmap_clear(&readers);
  const Vec *reads = r->reads;
  for (int u = 0; u < n; u++) {
    if (!joinable(r->nodes.data[u]))
      continue;
    for (int i = 0; i < reads[u].len; i++) {
      const Read *x = reads[u].data[i];
      if (!x->cpu)
        continue;
      add_reader(&readers, x->cpu, u);
    }
    /* and by its size variable (a scalar: never a read) */
    const LcuVar *size = cpu_size(r->nodes.data[u]);
    if (size)
      add_reader(&readers, size, u);
  }
  int *mark = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int v = 0; v < n; v++)
    mark[v] = -1;
  /* a SCAN of counts that can be a SPLIT's offsets (FusPair.offsets)
     has no MAP beside it: there it is still a pass and a launch, where
     as the offsets its pass is gone, and the MAP's cluster holds a SCAN
     that the MAP rides on instead of a segdes of its results
     (quicksort's `equal` offsets beside the MAP of its append's
     lengths, whose make_segdes then ran alone: a launch a level).  Its
     other partners stay (without any, Barnes-Hut at 2000 bodies made
     962 runs where it makes 961) */
  bool *offsets_scan = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int v = 0; v < n; v++)
    offsets_scan[v] = false;
  for (int i = 0; i < r->pairs.len; i++) {
    const FusPair *p = r->pairs.data[i];
    if (p->offsets)
      offsets_scan[p->v] = true;
  }
  Vec cands = {0};
  for (int u = 0; u < n; u++) {
    const FusNode *a = r->nodes.data[u];
    if (!joinable(a))
      continue;
    const Vec *ar = &reads[u];
    cands.len = 0;
    neighbours(r, u, reach.width, in, out, &readers, mark, &cands);
    if (cands.len > 1) /* qsort of no elements may not be given NULL */
      qsort(cands.data, (size_t)cands.len, sizeof(void *), compare_ints);
    for (int c = 0; c < cands.len; c++) {
      int v = (int)(intptr_t)cands.data[c];
      if (reaches(&reach, u, v))
        continue;
      bool is_order = false;
      for (int k = 0; k < ordered[u].len && !is_order; k++)
        is_order = (int)(intptr_t)ordered[u].data[k] == v;
      if (is_order)
        continue; /* the order edge's pair stands for it */
      const FusNode *b = r->nodes.data[v];
      if (!joinable(b) || !fus_anchors_agree(a, b))
        continue;
      if ((offsets_scan[u] && b->soac->kind == SOAC_MAP) || (offsets_scan[v] && a->soac->kind == SOAC_MAP))
        continue;
      const char *rule = horizontal_rule(a, b);
      if (!rule)
        continue;
      /* only side by side pairs with something in common: an input, a
         consumer, a size variable; the others would save a launch and
         nothing more, and would make the model large */
      double shared = sum_reads(ar) - reads_not_in(ar, &reads[v]);
      const LcuVar *size = cpu_size(a);
      if (shared <= 0 && !common_consumer(r, out, u, v) && !(size && size == cpu_size(b)))
        continue;
      add_pair(r, u, v, FP_HORIZONTAL, rule, shared + LAUNCH_BYTES);
    }
  }
  predicate_texts = NULL;
}
