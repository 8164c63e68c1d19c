/*
 * schedule.c: which runs of a region share a kernel, chosen by an ILP as
 * Robinson, Lippmeier and Keller formulate it (FHPC 2014; DESIGN.md, "The
 * fusion ILP"), solved by GLPK.
 *
 * Variables, over the region's nodes (pdg.c) and pairs (candidates.c):
 *   pi_u in 0..N-1  the slot of node u (N nodes);
 *   x_p in {0,1}    pair p is not fused (0: its two nodes share a kernel);
 *   c_u in {0,1}    u's result is written to global memory; only for a
 *                   producer that fusion could leave unwritten (a MAP or
 *                   FILTER that no one outside its cluster needs and that
 *                   has no check of its own at its run); the others are 1.
 * Constraints:
 *   fusible or order edge u -> v (its pair p):  x_p <= pi_v - pi_u <= N x_p
 *   preventing edge u -> v:                     pi_v - pi_u >= 1
 *   horizontal pair p of u, v:                  -N x_p <= pi_v - pi_u <= N x_p
 *   fusible edge u -> v (pair p):               x_p <= c_u
 * Objective: minimize  sum_p gain_p x_p + sum_u bytes_u c_u, the bytes and
 * launches that fusion would have saved and does not (candidates.c).
 *
 * A cluster is a set of nodes joined by fused pairs; the constraints give
 * them one slot.  Every edge between two clusters has x = 1 and so goes
 * strictly up the slots: the clusters, contracted, form no cycle, which
 * is DESIGN.md's "no cluster may contain a path that leaves it and comes
 * back".  Two runs that check at their own runs in different places
 * (candidates.c, anchors) must not end up in one cluster through others:
 * when a solution joins them, the path of fused pairs between them gets
 * a row `sum x >= 1` and the model is solved again (a lazy constraint).
 *
 * One model per part of the region: the pairs join the nodes into
 * components, and a node of one component never shares a kernel with a
 * node of another.  The components are solved one after the other, in
 * the order of their first nodes, each with what the others decided
 * contracted: a path between two of its nodes through anything outside
 * it (a node of another component, a cluster decided before) is a
 * preventing edge of its model, as a path through a host statement is.
 * So the models stay small (pi ranges over the component), and the
 * clusters of all of them together still form no cycle.  A component
 * larger than WINDOW nodes is cut into windows in statement order, each
 * a model; the pairs across two windows are decided last, greedily
 * (below), on the clusters the models made.
 *
 * GLPK is given a limit on branch-and-bound nodes (so that what it finds
 * does not depend on how loaded the machine is: compilation stays
 * deterministic) and a time limit as a last guard; when it gives up, or
 * a component is too large to try, a greedy merge of the pairs by gain,
 * each kept only if every cluster stays legal, decides.  A model is made
 * through ilp.c, which makes it in GLPK only to solve it (most models are
 * repeats, answered by their numbers); GLPK holds only numbers and names:
 * the columns map to nodes and pairs through arrays of the collector's,
 * and every GLPK object is freed.
 */
#include <glpk.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusion.h"

enum { MAX_LAZY_ROUNDS = 16, WINDOW = 64 };

/* The thread's processor time: the solver's work, which other programs
   on a loaded machine do not inflate (GLPK's own limit is wall time). */
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- scratch arrays ----
   A region's parts are solved one after the other, and each solve asked
   for arrays the size of the whole region (its clusters checked, its
   paths walked): hundreds of models allocated megabytes.  Each such
   array is its user's, kept from call to call, and grows. */
typedef struct Scratch {
  int *data;
  size_t room;
} Scratch;

static int *scratch_ints(Scratch *s, size_t n) {
  if (s->room < n) {
    s->room = 2 * n;
    s->data = xmalloc_atomic(sizeof(int) * s->room);
  }
  return s->data;
}

/* ---- clusters ---- */

/* The members of each cluster of 'parent', in increasing order, as
   lists: first[root], then next[member] until -1. */
static void cluster_lists(int n, int *parent, int *first, int *next) {
  for (int u = 0; u < n; u++)
    first[u] = -1;
  for (int u = n - 1; u >= 0; u--) {
    int root = uf_find(parent, u);
    next[u] = first[root];
    first[root] = u;
  }
}

/* The first two nodes of one cluster (by 'parent') whose anchors
   disagree, or false.  Only the members of a cluster are compared
   (every pair of the region was, most in different clusters). */
static bool anchor_conflict(const FusRegion *r, int *parent, int *a, int *b) {
  int n = r->nodes.len;
  static Scratch first_room, next_room;
  int *first = scratch_ints(&first_room, (size_t)n + 1);
  int *next = scratch_ints(&next_room, (size_t)n + 1);
  cluster_lists(n, parent, first, next);
  for (int u = 0; u < n; u++)
    for (int v = next[u]; v >= 0; v = next[v]) /* the later members of u's cluster */
      if (!fus_anchors_agree(r->nodes.data[u], r->nodes.data[v])) {
        *a = u;
        *b = v;
        return true;
      }
  return false;
}

/* True if the clusters of 'parent', contracted, have no cycle and no
   preventing edge inside one. */
static bool clusters_legal(const FusRegion *r, int *parent) {
  int n = r->nodes.len, ne = r->edges.len;
  /* the edges between clusters, by their source's representative, in
     the region's order: counted, then placed (no vector per node) */
  static Scratch start_room, to_room, from_room, indeg_room, out_room, ready_room;
  int *start = scratch_ints(&start_room, (size_t)n + 2);
  int *to = scratch_ints(&to_room, (size_t)ne + 1);
  int *from = scratch_ints(&from_room, (size_t)ne + 1);
  int *indeg = scratch_ints(&indeg_room, (size_t)n + 1);
  for (int i = 0; i <= n + 1; i++)
    start[i] = 0;
  for (int i = 0; i < n; i++)
    indeg[i] = 0;
  for (int i = 0; i < ne; i++) {
    const FusEdge *e = r->edges.data[i];
    int a = uf_find(parent, e->from), b = uf_find(parent, e->to);
    from[i] = a;
    to[i] = b;
    if (a == b) {
      if (e->kind == FE_PREVENTING)
        return false;
      continue;
    }
    start[a + 2]++;
    indeg[b]++;
  }
  for (int u = 0; u < n; u++)
    start[u + 2] += start[u + 1];
  int *out = scratch_ints(&out_room, (size_t)ne + 1);
  for (int i = 0; i < ne; i++)
    if (from[i] != to[i])
      out[start[from[i] + 1]++] = to[i];
  /* Kahn's algorithm over the cluster representatives */
  int *ready = scratch_ints(&ready_room, (size_t)n + 1);
  int nready = 0, roots = 0, done = 0;
  for (int u = 0; u < n; u++)
    if (uf_find(parent, u) == u) {
      roots++;
      if (!indeg[u])
        ready[nready++] = u;
    }
  while (nready) {
    int u = ready[--nready];
    done++;
    for (int k = start[u]; k < start[u + 1]; k++) {
      int v = out[k];
      if (--indeg[v] == 0)
        ready[nready++] = v;
    }
  }
  return done == roots;
}

/* ---- the greedy fallback ---- */

/* Merges the pairs of 'part' (indices into r->pairs) by gain, each kept
   if the clusters stay legal; 'parent' holds the clusters so far. */
static void greedy(FusRegion *r, const Vec *part, int *parent) {
  int n = r->nodes.len, np = part->len;
  int *trial = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  /* the pairs by gain, then by position (a stable order) */
  int *order = xmalloc_atomic(sizeof(int) * (size_t)(np + 1));
  for (int i = 0; i < np; i++)
    order[i] = (int)(intptr_t)part->data[i];
  for (int i = 1; i < np; i++) { /* insertion sort: parts are small */
    int k = order[i], j = i - 1;
    double g = ((FusPair *)r->pairs.data[k])->gain;
    while (j >= 0 && ((FusPair *)r->pairs.data[order[j]])->gain < g) {
      order[j + 1] = order[j];
      j--;
    }
    order[j + 1] = k;
  }
  for (int i = 0; i < np; i++) {
    FusPair *p = r->pairs.data[order[i]];
    if (p->gain <= 0 || uf_find(parent, p->u) == uf_find(parent, p->v))
      continue;
    memcpy(trial, parent, sizeof(int) * (size_t)n);
    uf_unite(trial, p->u, p->v);
    int a, b;
    if (clusters_legal(r, trial) && !anchor_conflict(r, trial, &a, &b))
      memcpy(parent, trial, sizeof(int) * (size_t)n);
  }
  for (int i = 0; i < np; i++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)part->data[i]];
    p->fused = uf_find(parent, p->u) == uf_find(parent, p->v);
  }
}

/* ---- the ILP of one part ---- */

typedef struct Part {
  FusRegion *r;
  Vec nodes;   /* node ids, increasing */
  Vec pairs;   /* pair indices */
  int *local;  /* node id -> its index in the part, or -1 */
  int number;  /* of the part in its region, from 1 */
  const Vec *out; /* node id -> its edges (FusEdge *) in the region's
                     order: the region's, shared by its parts */
  const bool *vanish; /* node id -> fill_vanish's answer, the region's */
} Part;

typedef struct Model {
  FusModel *ilp;
  int *xcol;  /* the part's pair k -> its column */
  int *ccol;  /* the part's node k -> its c column, or 0 */
  bool named; /* its rows and columns have names: only --dump=ilp
                 shows them, and formatting them cost more than small
                 models take to solve */
} Model;

/* The name of a row or column of 'm', or NULL (none) when it is not named. */
__attribute__((format(printf, 2, 3))) static const char *name_of(const Model *m, const char *fmt, ...) {
  if (!m->named)
    return NULL;
  va_list ap;
  va_start(ap, fmt);
  const char *name = xvprintf(fmt, ap);
  va_end(ap);
  return name;
}

/* Per node of 'r': a producer whose result fusion could leave
   unwritten, a MAP or a FILTER read only by runs it may fuse with, with
   no check at its run.  One walk over the edges for all the nodes (the
   models and the estimate ask of every node, again and again). */
static bool *fill_vanish(const FusRegion *r) {
  int n = r->nodes.len;
  bool *vanish = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  bool *consumed = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int u = 0; u < n; u++) {
    const FusNode *node = r->nodes.data[u];
    LcuSoacKind k = node->soac ? node->soac->kind : SOAC_LIBRARY;
    vanish[u] = node->soac && !node->live_out && !(node->failures & FUS_FAIL_RUN) &&
                (k == SOAC_MAP || k == SOAC_FILTER || k == SOAC_SEG_FILTER);
    consumed[u] = false;
  }
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    if (!e->var)
      continue;
    /* (a segdes beside its MAP reads the MAP's vectors) */
    if (e->kind != FE_FUSIBLE || e->pair < 0 || ((const FusPair *)r->pairs.data[e->pair])->late)
      vanish[e->from] = false;
    consumed[e->from] = true;
  }
  for (int u = 0; u < n; u++)
    vanish[u] &= consumed[u];
  return vanish;
}

/* The edges of region 'r' by their source node, in the region's order.
   Built once per region: each of its parts walks them. */
static Vec *out_edges(const FusRegion *r) {
  Vec *out = xmalloc(sizeof(Vec) * (size_t)(r->nodes.len + 1));
  for (int i = 0; i < r->edges.len; i++) {
    FusEdge *e = r->edges.data[i];
    vec_push(&out[e->from], e);
  }
  return out;
}

/* The pairs (u, v) of part nodes that a path through something outside
   the part, or through a preventing edge, joins: pi_v > pi_u, as u then
   v (two entries a pair: u * n + v overflowed an int in a region of
   50 000 nodes).  'parent' contracts what was decided before; 'seen' is
   the region's, -1 where no node of a part has been there (the states
   are marked by the node searched from, so that a part needs no
   emptying). */
static Vec outside_paths(const Part *pt, int *parent, int *seen) {
  FusRegion *r = pt->r;
  int n = r->nodes.len;
  const Vec *out = pt->out;
  static Scratch first_room, next_room;
  int *first = scratch_ints(&first_room, (size_t)n + 1);
  int *next = scratch_ints(&next_room, (size_t)n + 1);
  cluster_lists(n, parent, first, next);
  static Vec strict; /* the caller's until the next part */
  strict.len = 0;
  /* seen[state]: state = node * 2 + flag (flag: left the part or crossed
     a preventing edge) */
  static Vec stack;
  for (int k = 0; k < pt->nodes.len; k++) {
    int u = (int)(intptr_t)pt->nodes.data[k];
    stack.len = 0;
    vec_push(&stack, (void *)(intptr_t)(u * 2));
    seen[u * 2] = u;
    while (stack.len) {
      int state = (int)(intptr_t)stack.data[--stack.len];
      int x = state / 2, flag = state % 2;
      /* a node outside the part leaves by any member of its cluster */
      bool inside = pt->local[x] >= 0;
      for (int y0 = inside ? x : first[uf_find(parent, x)]; y0 >= 0; y0 = inside ? -1 : next[y0]) {
        for (int i = 0; i < out[y0].len; i++) {
          const FusEdge *e = out[y0].data[i];
          int y = e->to, g = flag | (e->kind == FE_PREVENTING);
          if (pt->local[y] >= 0) {
            if (g && seen[y * 2 + 1] != u) {
              seen[y * 2 + 1] = u;
              vec_push(&strict, (void *)(intptr_t)u);
              vec_push(&strict, (void *)(intptr_t)y);
            }
            continue; /* beyond y, y's own paths */
          }
          g = 1;
          if (seen[y * 2 + g] == u)
            continue;
          seen[y * 2 + g] = u;
          vec_push(&stack, (void *)(intptr_t)(y * 2 + g));
        }
      }
    }
  }
  return strict;
}

/* Cuts that make the model's relaxation tight where the big-M rows are
   weak: two nodes that must be in different slots (a path from one to
   the other crosses a preventing edge, 'apart') are never one cluster,
   so a pair between them is not fused, and of two pairs that join them
   through a third node one is not fused either. */
/* The closure of 'ordered' (a path from a to b, a < b, in rows of nc)
   and 'apart' (one with a strict step): later rows first, each taking
   the rows of the nodes it reaches.  A part has at most WINDOW nodes, so
   that a row is a word (a walk over every three nodes of every model
   was a tenth of scheduling). */
static void close_paths(int nc, bool *ordered, bool *apart) {
  _Static_assert(WINDOW <= 64, "a part's row is a word");
  uint64_t ord[WINDOW], apt[WINDOW];
  if (nc > WINDOW)
    die("fusion: a part of %d nodes", nc);
  for (int a = 0; a < nc; a++) {
    ord[a] = apt[a] = 0;
    for (int b = a + 1; b < nc; b++) {
      ord[a] |= (uint64_t)ordered[a * nc + b] << b;
      apt[a] |= (uint64_t)apart[a * nc + b] << b;
    }
  }
  for (int a = nc - 1; a >= 0; a--)
    for (int b = a + 1; b < nc; b++) {
      if (!(ord[a] >> b & 1))
        continue;
      uint64_t later = ord[b]; /* (bits of nodes after b only) */
      ord[a] |= later;
      apt[a] |= apt[a] >> b & 1 ? later : apt[b] & later;
    }
  for (int a = 0; a < nc; a++)
    for (int b = a + 1; b < nc; b++) {
      ordered[a * nc + b] = ord[a] >> b & 1;
      apart[a * nc + b] = apt[a] >> b & 1;
    }
}

static void add_path_cuts(Part *pt, Model *m, const Vec *strict) {
  FusRegion *r = pt->r;
  int nc = pt->nodes.len;
  /* apart[a][b]: a path from a to b with a strict step; ordered[a][b]:
     a path at all (edges go from lower ids to higher) */
  bool *apart = xmalloc_atomic((size_t)(nc * nc + 1));
  bool *ordered = xmalloc_atomic((size_t)(nc * nc + 1));
  memset(apart, 0, (size_t)(nc * nc));
  memset(ordered, 0, (size_t)(nc * nc));
  for (int i = 0; i + 1 < strict->len; i += 2) {
    int a = pt->local[(int)(intptr_t)strict->data[i]], b = pt->local[(int)(intptr_t)strict->data[i + 1]];
    apart[a * nc + b] = ordered[a * nc + b] = true;
  }
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    if (p->kind != FP_HORIZONTAL)
      ordered[pt->local[p->u] * nc + pt->local[p->v]] = true;
  }
  close_paths(nc, ordered, apart);
  /* the pairs at each node, to find paths of two */
  Vec *at = xmalloc(sizeof(Vec) * (size_t)(nc + 1));
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    vec_push(&at[pt->local[p->u]], (void *)(intptr_t)k);
    vec_push(&at[pt->local[p->v]], (void *)(intptr_t)k);
  }
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    int a = pt->local[p->u], b = pt->local[p->v];
    if (apart[a * nc + b])
      fus_model_col_bnds(m->ilp, m->xcol[k], GLP_FX, 1, 1);
  }
  for (int a = 0; a < nc; a++)
    for (int i = 0; i < at[a].len; i++) {
      int k1 = (int)(intptr_t)at[a].data[i];
      FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k1]];
      int w = pt->local[p->u] == a ? pt->local[p->v] : pt->local[p->u];
      for (int j = 0; j < at[w].len; j++) {
        int k2 = (int)(intptr_t)at[w].data[j];
        FusPair *q = r->pairs.data[(int)(intptr_t)pt->pairs.data[k2]];
        int b = pt->local[q->u] == w ? pt->local[q->v] : pt->local[q->u];
        if (k2 == k1 || b <= a || !apart[a * nc + b])
          continue;
        fus_model_add_row(m->ilp, name_of(m, "apart_%d_%d_%d", (int)(intptr_t)pt->nodes.data[a], (int)(intptr_t)pt->nodes.data[w],
                               (int)(intptr_t)pt->nodes.data[b]),
                GLP_LO, 1, 0, 2, (int[]){m->xcol[k1], m->xcol[k2]}, (double[]){1, 1});
      }
    }
}

static Model build_model(Part *pt, const Vec *strict, bool named) {
  FusRegion *r = pt->r;
  Model m = {NULL, NULL, NULL, named};
  m.ilp = fus_model_new(named, name_of(&m, "region_%d_part_%d", r->index, pt->number));
  FusModel *lp = m.ilp;
  int nc = pt->nodes.len;
  fus_model_add_cols(lp, nc);
  for (int k = 0; k < nc; k++) {
    fus_model_col_name(lp, k + 1, name_of(&m, "pi_%d", (int)(intptr_t)pt->nodes.data[k]));
    fus_model_col_kind(lp, k + 1, GLP_IV);
    fus_model_col_bnds(lp, k + 1, GLP_DB, 0, nc - 1);
  }
  m.xcol = xmalloc_atomic(sizeof(int) * (size_t)(pt->pairs.len + 1));
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    int col = fus_model_add_cols(lp, 1);
    m.xcol[k] = col;
    fus_model_col_name(lp, col, name_of(&m, "x_%d_%d", p->u, p->v));
    fus_model_col_kind(lp, col, GLP_BV);
    fus_model_obj_coef(lp, col, p->gain);
  }
  m.ccol = xmalloc_atomic(sizeof(int) * (size_t)(nc + 1));
  for (int k = 0; k < nc; k++) {
    m.ccol[k] = 0;
    const FusNode *node = r->nodes.data[(int)(intptr_t)pt->nodes.data[k]];
    if (!pt->vanish[node->id])
      continue;
    int col = fus_model_add_cols(lp, 1);
    m.ccol[k] = col;
    fus_model_col_name(lp, col, name_of(&m, "c_%d", node->id));
    fus_model_col_kind(lp, col, GLP_BV);
    fus_model_obj_coef(lp, col, fus_node_bytes(r, node));
  }
  double N = nc;
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    int u = pt->local[p->u], v = pt->local[p->v];
    int cols[3] = {v + 1, u + 1, m.xcol[k]};
    if (p->kind == FP_HORIZONTAL) {
      fus_model_add_row(lp, name_of(&m, "p_%d_%d_hi", p->u, p->v), GLP_UP, 0, 0, 3, cols, (double[]){1, -1, -N});
      fus_model_add_row(lp, name_of(&m, "p_%d_%d_lo", p->u, p->v), GLP_LO, 0, 0, 3, cols, (double[]){1, -1, N});
    } else {
      fus_model_add_row(lp, name_of(&m, "p_%d_%d_lo", p->u, p->v), GLP_LO, 0, 0, 3, cols, (double[]){1, -1, -1});
      fus_model_add_row(lp, name_of(&m, "p_%d_%d_hi", p->u, p->v), GLP_UP, 0, 0, 3, cols, (double[]){1, -1, -N});
    }
    if (p->kind == FP_VERTICAL && m.ccol[u])
      fus_model_add_row(lp, name_of(&m, "c_%d_%d", p->u, p->v), GLP_UP, 0, 0, 2, (int[]){m.xcol[k], m.ccol[u]}, (double[]){1, -1});
  }
  for (int i = 0; i + 1 < strict->len; i += 2) {
    int a = (int)(intptr_t)strict->data[i], b = (int)(intptr_t)strict->data[i + 1];
    fus_model_add_row(lp, name_of(&m, "e_%d_%d", a, b), GLP_LO, 1, 0, 2, (int[]){pt->local[b] + 1, pt->local[a] + 1},
            (double[]){1, -1});
  }
  add_path_cuts(pt, &m, strict);
  return m;
}

/* Solves 'm'; true with the part's pairs' choices set when GLPK found
   the best solution within its limits. */
static bool solve(Part *pt, Model *m, const FusScheduleOptions *o) {
  const FusSolution *s = fus_model_solve(m->ilp, (int)o->time_limit_ms);
  if (!s->found)
    return false;
  for (int k = 0; k < pt->pairs.len; k++) {
    FusPair *p = pt->r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
    p->fused = s->value[m->xcol[k]] < 0.5;
  }
  return true;
}

/* A row that keeps nodes a and b apart: not every pair of the part on
   the path of fused pairs between them is fused. */
static void keep_apart(Part *pt, Model *m, int a, int b) {
  FusRegion *r = pt->r;
  int n = r->nodes.len;
  int *from = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    from[i] = -1;
  Vec queue = {0};
  vec_push(&queue, (void *)(intptr_t)a);
  from[a] = -2;
  for (int q = 0; q < queue.len && from[b] == -1; q++) {
    int x = (int)(intptr_t)queue.data[q];
    for (int k = 0; k < pt->pairs.len; k++) {
      FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
      int y = p->u == x ? p->v : p->v == x ? p->u : -1;
      if (!p->fused || y < 0 || from[y] != -1)
        continue;
      from[y] = k;
      vec_push(&queue, (void *)(intptr_t)y);
    }
  }
  Vec cols = {0};
  for (int y = b; from[y] >= 0;) {
    FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[from[y]]];
    vec_push(&cols, (void *)(intptr_t)m->xcol[from[y]]);
    y = p->u == y ? p->v : p->u;
  }
  int *ind = xmalloc_atomic(sizeof(int) * (size_t)(cols.len + 1));
  double *val = xmalloc_atomic(sizeof(double) * (size_t)(cols.len + 1));
  for (int i = 0; i < cols.len; i++) {
    ind[i] = (int)(intptr_t)cols.data[i];
    val[i] = 1;
  }
  fus_model_add_row(m->ilp, name_of(m, "apart_%d_%d", a, b), GLP_LO, 1, 0, cols.len, ind, val);
}

static bool solve_hooked(Part *pt, int *parent, int *seen, const FusScheduleOptions *o);

/* GLPK's fatal errors (it would abort the process) come back here: the
   part is then decided without it. */
static jmp_buf *glpk_failed;

static void on_glpk_error(void *info) {
  (void)info;
  longjmp(*glpk_failed, 1);
}

/* The ILP of part 'pt'; true if it decided (the pairs' fused set). */
static bool solve_part(Part *pt, int *parent, int *seen, const FusScheduleOptions *o) {
  jmp_buf jb;
  if (setjmp(jb)) {
    glp_error_hook(NULL, NULL);
    glp_free_env(); /* GLPK's state is lost after its error: start anew */
    return false;
  }
  glpk_failed = &jb;
  glp_error_hook(on_glpk_error, NULL);
  bool decided = solve_hooked(pt, parent, seen, o);
  glp_error_hook(NULL, NULL);
  return decided;
}

static bool solve_hooked(Part *pt, int *parent, int *seen, const FusScheduleOptions *o) {
  FusRegion *r = pt->r;
  int n = r->nodes.len;
  Vec strict = outside_paths(pt, parent, seen);
  Model m = build_model(pt, &strict, o->lp_out != NULL);
  if (o->lp_out)
    fus_model_write_lp(m.ilp, o->lp_out);
  bool decided = false;
  static Scratch trial_room;
  int *trial = scratch_ints(&trial_room, (size_t)n + 1);
  for (int round = 0; round < MAX_LAZY_ROUNDS; round++) {
    if (!solve(pt, &m, o))
      break;
    memcpy(trial, parent, sizeof(int) * (size_t)n);
    for (int k = 0; k < pt->pairs.len; k++) {
      FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[k]];
      if (p->fused)
        uf_unite(trial, p->u, p->v);
    }
    int a, b;
    if (!anchor_conflict(r, trial, &a, &b)) {
      decided = clusters_legal(r, trial);
      break;
    }
    keep_apart(pt, &m, a, b);
  }
  fus_model_free(m.ilp);
  return decided;
}

/* ---- the region ---- */

/* Does a member of the cluster of late pair p's MAP, other than p's
   segdes, read the MAP's results?  Then the MAP vanishes into it, or
   is launched before it: beside the segdes it would be written, and
   launched, again. */
static bool read_in_cluster(const Vec *out, int *parent, const FusPair *p) {
  const Vec *from = &out[p->u];
  for (int i = 0; i < from->len; i++) {
    const FusEdge *e = from->data[i];
    if (e->var && e->to != p->v && uf_find(parent, e->to) == uf_find(parent, p->u))
      return true;
  }
  return false;
}

/* Is every member of node u's cluster (by 'parent') a MAP? */
static bool maps_alone(const FusRegion *r, int *parent, int u) {
  int root = uf_find(parent, u);
  for (int k = 0; k < r->nodes.len; k++) {
    const FusNode *m = r->nodes.data[k];
    if (uf_find(parent, k) == root && !(m->soac && m->soac->kind == SOAC_MAP))
      return false;
  }
  return true;
}

/* Each MAP that runs alone and that only MAPs over its space read, two
   or more, all in one cluster, joins that cluster where it may.  There
   it is computed once: rules.c's merge_maps makes it one MAP with the
   first, whose results the others read, and it is not written (fill_vanish
   says no one else reads it and it has no check of its own).  That saves
   its vector's write and reads and a launch, and costs nothing it did
   not read already.  The model cannot see it: each pair's gain counts
   the producer's reads that its consumer lacks, once per consumer, as
   if each recomputed it (candidates.c), so that a MAP saying where each
   element of a pack of segments comes from stayed apart from the three
   MAPs gathering Barnes-Hut's x, y and m by it.  Counting a share for
   each consumer in the gains, or refunding all but the first as binary
   variables, said the same but made GLPK's search give up on
   lang_algorithms's merge_sorted^ (12 kernels by the ILP, 22 by the
   greedy fallback). */
static void join_shared_producers(FusRegion *r, const Vec *out, int *parent, const bool *vanish) {
  int n = r->nodes.len;
  int *size = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *trial = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int u = 0; u < n; u++)
    size[u] = 0;
  for (int u = 0; u < n; u++)
    size[uf_find(parent, u)]++;
  for (int u = 0; u < n; u++) {
    const FusNode *node = r->nodes.data[u];
    if (!vanish[u] || node->soac->kind != SOAC_MAP || size[uf_find(parent, u)] != 1)
      continue;
    int target = -1, readers = 0;
    bool one = true;
    for (int i = 0; i < out[u].len && one; i++) {
      const FusEdge *e = out[u].data[i];
      if (!e->var)
        continue;
      const FusNode *w = r->nodes.data[e->to];
      int root = uf_find(parent, e->to);
      one = w->soac && w->soac->kind == SOAC_MAP && fus_len_equal(node->space, w->space) &&
            (target < 0 || root == target);
      target = root;
      readers++;
    }
    if (!one || readers < 2)
      continue;
    memcpy(trial, parent, sizeof(int) * (size_t)n);
    uf_unite(trial, u, target);
    int a, b;
    if (clusters_legal(r, trial) && !anchor_conflict(r, trial, &a, &b)) {
      int sum = size[target] + 1;
      memcpy(parent, trial, sizeof(int) * (size_t)n);
      size[uf_find(parent, u)] = sum;
    }
  }
}

void fus_schedule(FusRegion *r, const FusScheduleOptions *o) {
  int n = r->nodes.len;
  int *parent = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *comp = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    parent[i] = comp[i] = i;
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    p->fused = false;
    if (!p->late)
      uf_unite(comp, p->u, p->v);
  }
  /* the parts, in the order of their first nodes: each component, cut
     into windows of WINDOW nodes in statement order (a pair across two
     windows is not fused), so that no model grows past what GLPK solves
     in a few milliseconds */
  Part *parts = xmalloc(sizeof(Part) * (size_t)(n + 1));
  int *part_of = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *count = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *window = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int nparts = 0;
  const Vec *out = out_edges(r);
  const bool *vanish = fill_vanish(r);
  for (int u = 0; u < n; u++)
    count[u] = 0;
  for (int u = 0; u < n; u++) {
    int root = uf_find(comp, u);
    if (count[root] % WINDOW == 0) {
      window[root] = nparts;
      parts[nparts] = (Part){r, {0}, {0}, NULL, nparts + 1, out, vanish};
      nparts++;
    }
    count[root]++;
    part_of[u] = window[root];
    vec_push(&parts[part_of[u]].nodes, (void *)(intptr_t)u);
  }
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    if (!p->late && part_of[p->u] == part_of[p->v])
      vec_push(&parts[part_of[p->u]].pairs, (void *)(intptr_t)i);
  }
  /* the parts in the order of their first nodes */
  for (int i = 1; i < nparts; i++) {
    Part t = parts[i];
    int j = i - 1;
    int first = (int)(intptr_t)t.nodes.data[0];
    while (j >= 0 && (int)(intptr_t)parts[j].nodes.data[0] > first) {
      parts[j + 1] = parts[j];
      j--;
    }
    parts[j + 1] = t;
  }
  for (int i = 0; i < nparts; i++)
    parts[i].number = i + 1;
  double start = now_ms();
  bool ilp = false, gave_up = false;
  if (r->pairs.len > 0)
    glp_term_out(GLP_OFF);
  /* each part's in turn: set for its nodes, and -1 again after it (one
     emptying of the whole per part made the region quadratic) */
  int *local = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *seen = xmalloc_atomic(sizeof(int) * (2 * (size_t)n + 2));
  for (int i = 0; i < n; i++)
    local[i] = -1;
  for (int i = 0; i < 2 * n; i++)
    seen[i] = -1;
  for (int k = 0; k < nparts; k++) {
    Part *pt = &parts[k];
    if (!pt->pairs.len)
      continue;
    pt->local = local;
    for (int i = 0; i < pt->nodes.len; i++)
      pt->local[(int)(intptr_t)pt->nodes.data[i]] = i;
    bool decided = !o->greedy_only && solve_part(pt, parent, seen, o);
    for (int i = 0; i < pt->nodes.len; i++)
      pt->local[(int)(intptr_t)pt->nodes.data[i]] = -1;
    if (decided) {
      ilp = true;
    } else {
      greedy(r, &pt->pairs, parent);
      gave_up = true;
    }
    for (int i = 0; i < pt->pairs.len; i++) {
      FusPair *p = r->pairs.data[(int)(intptr_t)pt->pairs.data[i]];
      if (p->fused)
        uf_unite(parent, p->u, p->v);
    }
  }
  /* the seams: a pair across two windows of one component, which no
     model saw, joins their clusters when the greedy rule finds it
     legal (a long chain of MAPs, as an inlined function makes, is one
     kernel, not one per window) */
  Vec seams = {0}, late = {0};
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    if (p->late)
      vec_push(&late, (void *)(intptr_t)i);
    else if (part_of[p->u] != part_of[p->v])
      vec_push(&seams, (void *)(intptr_t)i);
  }
  if (seams.len)
    greedy(r, &seams, parent);
  /* then each segdes joins the cluster of the MAP that makes its
     arguments, where that is legal: after the models, which it would
     only make harder (its pair competes with none: it is the segdes's
     one pair, and the MAP's cluster is the same with it or without) */
  if (late.len) {
    Vec alone = {0};
    for (int i = 0; i < late.len; i++) {
      FusPair *p = r->pairs.data[(int)(intptr_t)late.data[i]];
      if (read_in_cluster(out, parent, p))
        continue;
      /* where the MAP's cluster is of MAPs alone, the MAP rides on the
         segdes's launch (codegen/cuda.c, ride_host): a launch saved,
         whatever the bytes say (quicksort's append: the lengths its
         guards no longer read, then their segdes) */
      if (p->gain <= 0 && maps_alone(r, parent, p->u))
        p->gain = 1; /* (greedy tries only pairs that gain) */
      vec_push(&alone, late.data[i]);
    }
    greedy(r, &alone, parent);
  }
  join_shared_producers(r, out, parent, vanish);
  r->method = gave_up ? (ilp ? "ilp and greedy" : "greedy") : ilp ? "ilp" : "none";
  r->solve_ms = now_ms() - start;
  /* the clusters are the fused pairs' components (a pair inside one
     cluster counts as fused), numbered by their first node */
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    p->fused = uf_find(parent, p->u) == uf_find(parent, p->v);
  }
  if (!clusters_legal(r, parent))
    die("fusion: the clusters of %s are not legal", r->where);
  int *number = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  r->nclusters = 0;
  for (int u = 0; u < n; u++) {
    int root = uf_find(parent, u);
    if (root == u)
      number[u] = r->nclusters++;
    ((FusNode *)r->nodes.data[u])->cluster = number[root];
  }
  /* the model's estimate of the bytes, before and after */
  r->bytes_before = 0;
  for (int u = 0; u < n; u++)
    r->bytes_before += fus_node_bytes(r, r->nodes.data[u]);
  /* after: each cluster reads what it does not make, once, and writes
     what a run outside it needs */
  bool *written = xmalloc_atomic(sizeof(bool) * (size_t)(n + 1));
  for (int u = 0; u < n; u++)
    written[u] = !vanish[u];
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    if (p->kind == FP_VERTICAL && !p->fused)
      written[p->u] = true;
  }
  r->bytes_after = fus_bytes_after(r, written);
}
