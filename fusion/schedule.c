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
 * GLPK is given a limit on branch-and-bound nodes (so that what it finds
 * does not depend on how loaded the machine is: compilation stays
 * deterministic) and a time limit as a last guard; when it gives up, a
 * greedy merge of the pairs by gain, each kept only if every cluster
 * stays legal, decides.  GLPK holds only numbers and names: the columns
 * map to nodes and pairs through arrays of the collector's, and every
 * GLPK object is freed here.
 */
#include <glpk.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fusion.h"

enum { NODE_LIMIT = 2000, MAX_LAZY_ROUNDS = 16 };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- clusters ---- */

static int find(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

static void unite(int *parent, int a, int b) {
  a = find(parent, a);
  b = find(parent, b);
  if (a != b)
    parent[a < b ? b : a] = a < b ? a : b;
}

/* The first two nodes of one cluster (by 'parent') whose anchors
   disagree, or false. */
static bool anchor_conflict(const FusRegion *r, int *parent, int *a, int *b) {
  int n = r->nodes.len;
  for (int u = 0; u < n; u++)
    for (int v = u + 1; v < n; v++)
      if (find(parent, u) == find(parent, v) && !fus_anchors_agree(r->nodes.data[u], r->nodes.data[v])) {
        *a = u;
        *b = v;
        return true;
      }
  return false;
}

/* True if the clusters of 'parent', contracted, have no cycle and no
   preventing edge inside one. */
static bool clusters_legal(const FusRegion *r, int *parent) {
  int n = r->nodes.len;
  Vec *out = xmalloc(sizeof(Vec) * (size_t)(n + 1));
  int *indeg = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    indeg[i] = 0;
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    int a = find(parent, e->from), b = find(parent, e->to);
    if (a == b) {
      if (e->kind == FE_PREVENTING)
        return false;
      continue;
    }
    vec_push(&out[a], (void *)(intptr_t)b);
    indeg[b]++;
  }
  /* Kahn's algorithm over the cluster representatives */
  Vec ready = {0};
  int roots = 0, done = 0;
  for (int u = 0; u < n; u++)
    if (find(parent, u) == u) {
      roots++;
      if (!indeg[u])
        vec_push(&ready, (void *)(intptr_t)u);
    }
  while (ready.len) {
    int u = (int)(intptr_t)ready.data[--ready.len];
    done++;
    for (int k = 0; k < out[u].len; k++) {
      int v = (int)(intptr_t)out[u].data[k];
      if (--indeg[v] == 0)
        vec_push(&ready, (void *)(intptr_t)v);
    }
  }
  return done == roots;
}

/* ---- the greedy fallback ---- */

static void greedy(FusRegion *r) {
  int n = r->nodes.len, np = r->pairs.len;
  int *parent = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  int *trial = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    parent[i] = i;
  /* the pairs by gain, then by position (a stable order) */
  int *order = xmalloc_atomic(sizeof(int) * (size_t)(np + 1));
  for (int i = 0; i < np; i++)
    order[i] = i;
  for (int i = 1; i < np; i++) { /* insertion sort: regions are small */
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
    if (p->gain <= 0 || find(parent, p->u) == find(parent, p->v))
      continue;
    memcpy(trial, parent, sizeof(int) * (size_t)n);
    unite(trial, p->u, p->v);
    int a, b;
    if (clusters_legal(r, trial) && !anchor_conflict(r, trial, &a, &b))
      memcpy(parent, trial, sizeof(int) * (size_t)n);
  }
  for (int i = 0; i < np; i++) {
    FusPair *p = r->pairs.data[i];
    p->fused = find(parent, p->u) == find(parent, p->v);
  }
}

/* ---- the ILP ---- */

typedef struct Model {
  glp_prob *lp;
  int n;      /* nodes: columns 1..n are pi */
  int *xcol;  /* pair -> its column */
  int *ccol;  /* node -> its c column, or 0 */
} Model;

static void add_row(glp_prob *lp, const char *name, int type, double lo, double hi, int len, const int *cols,
                    const double *vals) {
  int row = glp_add_rows(lp, 1);
  glp_set_row_name(lp, row, name);
  glp_set_row_bnds(lp, row, type, lo, hi);
  /* GLPK's arrays are 1-based */
  int ind[4] = {0};
  double val[4] = {0};
  for (int i = 0; i < len; i++) {
    ind[i + 1] = cols[i];
    val[i + 1] = vals[i];
  }
  glp_set_mat_row(lp, row, len, ind, val);
}

/* A producer whose result fusion could leave unwritten: a MAP or a
   FILTER read only by runs it may fuse with, with no check at its run. */
static bool may_vanish(const FusRegion *r, const FusNode *u) {
  if (!u->soac || u->live_out || (u->failures & FUS_FAIL_RUN))
    return false;
  LcuSoacKind k = u->soac->kind;
  if (k != SOAC_MAP && k != SOAC_FILTER && k != SOAC_SEG_FILTER)
    return false;
  bool consumed = false;
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    if (e->from != u->id || !e->var)
      continue;
    if (e->kind != FE_FUSIBLE || e->pair < 0)
      return false;
    consumed = true;
  }
  return consumed;
}

static Model build_model(FusRegion *r) {
  Model m = {glp_create_prob(), r->nodes.len, NULL, NULL};
  glp_prob *lp = m.lp;
  int n = m.n;
  glp_set_prob_name(lp, xprintf("region_%d", r->index));
  glp_set_obj_name(lp, "unsaved");
  glp_set_obj_dir(lp, GLP_MIN);
  glp_add_cols(lp, n);
  for (int u = 0; u < n; u++) {
    glp_set_col_name(lp, u + 1, xprintf("pi_%d", u));
    glp_set_col_kind(lp, u + 1, GLP_IV);
    glp_set_col_bnds(lp, u + 1, n > 1 ? GLP_DB : GLP_FX, 0, n - 1);
  }
  m.xcol = xmalloc_atomic(sizeof(int) * (size_t)(r->pairs.len + 1));
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    int col = glp_add_cols(lp, 1);
    m.xcol[i] = col;
    glp_set_col_name(lp, col, xprintf("x_%d_%d", p->u, p->v));
    glp_set_col_kind(lp, col, GLP_BV);
    glp_set_obj_coef(lp, col, p->gain);
  }
  m.ccol = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int u = 0; u < n; u++) {
    m.ccol[u] = 0;
    const FusNode *node = r->nodes.data[u];
    if (!may_vanish(r, node))
      continue;
    int col = glp_add_cols(lp, 1);
    m.ccol[u] = col;
    glp_set_col_name(lp, col, xprintf("c_%d", u));
    glp_set_col_kind(lp, col, GLP_BV);
    glp_set_obj_coef(lp, col, fus_node_bytes(r, node));
  }
  double N = n;
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    int cols[3] = {p->v + 1, p->u + 1, m.xcol[i]};
    const char *name = xprintf("p_%d_%d", p->u, p->v);
    if (p->kind == FP_HORIZONTAL) {
      add_row(lp, xprintf("%s_hi", name), GLP_UP, 0, 0, 3, cols, (double[]){1, -1, -N});
      add_row(lp, xprintf("%s_lo", name), GLP_LO, 0, 0, 3, cols, (double[]){1, -1, N});
    } else {
      add_row(lp, xprintf("%s_lo", name), GLP_LO, 0, 0, 3, cols, (double[]){1, -1, -1});
      add_row(lp, xprintf("%s_hi", name), GLP_UP, 0, 0, 3, cols, (double[]){1, -1, -N});
    }
    if (p->kind == FP_VERTICAL && m.ccol[p->u])
      add_row(lp, xprintf("c_%d_%d", p->u, p->v), GLP_UP, 0, 0, 2, (int[]){m.xcol[i], m.ccol[p->u]},
              (double[]){1, -1});
  }
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    if (e->kind != FE_PREVENTING)
      continue;
    add_row(lp, xprintf("e_%d_%d", e->from, e->to), GLP_LO, 1, 0, 2, (int[]){e->to + 1, e->from + 1},
            (double[]){1, -1});
  }
  return m;
}

typedef struct Limit {
  int nodes;
} Limit;

/* Stops branch and bound after NODE_LIMIT subproblems. */
static void on_event(glp_tree *tree, void *info) {
  Limit *l = info;
  if (glp_ios_reason(tree) == GLP_ISELECT && ++l->nodes > NODE_LIMIT)
    glp_ios_terminate(tree);
}

/* Writes the model in CPLEX LP format to 'out' (GLPK writes files only). */
static void write_lp(glp_prob *lp, FILE *out) {
  const char *dir = getenv("TMPDIR");
  char *path = xprintf("%s/nessie-ilp-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0)
    return;
  close(fd);
  if (glp_write_lp(lp, NULL, path) == 0) {
    FILE *in = fopen(path, "r");
    if (in) {
      char buf[4096];
      size_t got;
      while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, got, out);
      fclose(in);
    }
  }
  unlink(path);
}

/* Solves 'm'; true with the pairs' choices set when GLPK found a
   solution. */
static bool solve(FusRegion *r, Model *m, const FusScheduleOptions *o) {
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  parm.tm_lim = (int)o->time_limit_ms;
  Limit limit = {0};
  parm.cb_func = on_event;
  parm.cb_info = &limit;
  int ret = glp_intopt(m->lp, &parm);
  int status = glp_mip_status(m->lp);
  if ((ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP) || (status != GLP_OPT && status != GLP_FEAS))
    return false;
  if (ret != 0) /* stopped early: a feasible answer, not known best */
    return false;
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    p->fused = glp_mip_col_val(m->lp, m->xcol[i]) < 0.5;
  }
  return true;
}

void fus_schedule(FusRegion *r, const FusScheduleOptions *o) {
  int n = r->nodes.len;
  int *parent = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  double start = now_ms();
  bool solved = false;
  if (r->pairs.len > 0 && !o->greedy_only) {
    glp_term_out(GLP_OFF);
    Model m = build_model(r);
    if (o->lp_out)
      write_lp(m.lp, o->lp_out);
    for (int round = 0; round < MAX_LAZY_ROUNDS; round++) {
      if (!solve(r, &m, o))
        break;
      for (int i = 0; i < n; i++)
        parent[i] = i;
      for (int i = 0; i < r->pairs.len; i++) {
        FusPair *p = r->pairs.data[i];
        if (p->fused)
          unite(parent, p->u, p->v);
      }
      int a, b;
      if (!anchor_conflict(r, parent, &a, &b)) {
        solved = clusters_legal(r, parent);
        break;
      }
      /* a and b share a cluster through fused pairs: not all of the
         pairs on one path between them may be fused */
      int *from = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
      for (int i = 0; i < n; i++)
        from[i] = -1;
      Vec queue = {0};
      vec_push(&queue, (void *)(intptr_t)a);
      from[a] = -2;
      for (int q = 0; q < queue.len && from[b] == -1; q++) {
        int x = (int)(intptr_t)queue.data[q];
        for (int i = 0; i < r->pairs.len; i++) {
          FusPair *p = r->pairs.data[i];
          int y = p->u == x ? p->v : p->v == x ? p->u : -1;
          if (!p->fused || y < 0 || from[y] != -1)
            continue;
          from[y] = i;
          vec_push(&queue, (void *)(intptr_t)y);
        }
      }
      Vec cols = {0};
      for (int y = b; from[y] >= 0;) {
        FusPair *p = r->pairs.data[from[y]];
        vec_push(&cols, (void *)(intptr_t)m.xcol[from[y]]);
        y = p->u == y ? p->v : p->u;
      }
      int row = glp_add_rows(m.lp, 1);
      glp_set_row_name(m.lp, row, xprintf("apart_%d_%d", a, b));
      glp_set_row_bnds(m.lp, row, GLP_LO, 1, 0);
      int *ind = xmalloc_atomic(sizeof(int) * (size_t)(cols.len + 1));
      double *val = xmalloc_atomic(sizeof(double) * (size_t)(cols.len + 1));
      for (int i = 0; i < cols.len; i++) {
        ind[i + 1] = (int)(intptr_t)cols.data[i];
        val[i + 1] = 1;
      }
      glp_set_mat_row(m.lp, row, cols.len, ind, val);
    }
    glp_delete_prob(m.lp);
  }
  if (solved) {
    r->method = "ilp";
  } else if (r->pairs.len > 0) {
    greedy(r);
    r->method = "greedy";
  }
  r->solve_ms = now_ms() - start;
  /* the clusters, numbered by their first node */
  for (int i = 0; i < n; i++)
    parent[i] = i;
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    if (p->fused)
      unite(parent, p->u, p->v);
  }
  int *number = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  r->nclusters = 0;
  for (int u = 0; u < n; u++) {
    int root = find(parent, u);
    if (root == u)
      number[u] = r->nclusters++;
    ((FusNode *)r->nodes.data[u])->cluster = number[root];
  }
  /* the model's estimate of the bytes, before and after */
  r->bytes_before = r->bytes_after = 0;
  for (int u = 0; u < n; u++)
    r->bytes_before += fus_node_bytes(r, r->nodes.data[u]);
  r->bytes_after = r->bytes_before;
  for (int i = 0; i < r->pairs.len; i++) {
    FusPair *p = r->pairs.data[i];
    if (p->fused)
      r->bytes_after -= p->bytes;
  }
  for (int u = 0; u < n; u++) {
    FusNode *node = r->nodes.data[u];
    if (!may_vanish(r, node))
      continue;
    bool gone = true;
    for (int i = 0; i < r->pairs.len; i++) {
      FusPair *p = r->pairs.data[i];
      if (p->kind == FP_VERTICAL && p->u == u && !p->fused)
        gone = false;
    }
    if (gone)
      r->bytes_after -= fus_node_bytes(r, node);
  }
}
