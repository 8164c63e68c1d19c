/*
 * dot.c: --dump=pdg, the PDG of each region as Graphviz (`dot -Tpng`).
 *
 * Each region is a subgraph (a box named after its function and block);
 * its nodes are the runs, labelled by kernel, SOAC and NESL location;
 * fusible edges are solid and named by their rule, order edges dotted,
 * preventing edges dashed and red with their reason; horizontal pairs
 * that the schedule fused are blue undirected lines; each cluster of
 * several runs is a filled subgraph of its own.
 */
#include <string.h>

#include "fusion.h"

static void print_label_text(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', out);
    fputc(*s, out);
  }
}

static const char *soac_label(const FusNode *n) {
  const LcuKernel *k = n->run->kernel;
  Buf b = {0};
  for (int i = 0; i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    buf_printf(&b, "%s%s", i ? "; " : "", s->kind == SOAC_LIBRARY ? lcu_library_name(s->library) : lcu_soac_name(s->kind));
  }
  return buf_str(&b);
}

static void print_node(FILE *out, const FusRegion *r, const FusNode *n) {
  Loc at = n->run->lib_fn ? n->run->user_loc : n->run->loc;
  fprintf(out, "    r%d_n%d [label=\"%s: ", r->index, n->id, n->run->kernel->name);
  print_label_text(out, soac_label(n));
  if (n->run->lib_fn) {
    fputs("\\n", out);
    print_label_text(out, n->run->lib_fn);
  }
  if (at.src)
    fprintf(out, "\\n@%d:%d", at.line, at.col);
  fprintf(out, "\"%s];\n", n->failures & (FUS_FAIL_THUNK | FUS_FAIL_RUN) ? ", peripheries=2" : "");
}

void fus_print_pdg(FILE *out, const FusRegion *r) {
  fprintf(out, "  subgraph cluster_region_%d {\n    label=\"", r->index);
  print_label_text(out, r->where ? r->where : "region");
  fprintf(out, " (%s, %d runs -> %d)\";\n    style=rounded;\n", r->method, r->nodes.len, r->nclusters);
  /* the clusters of several runs, then the runs alone */
  int *size = xmalloc_atomic(sizeof(int) * (size_t)(r->nodes.len + 1));
  for (int i = 0; i < r->nodes.len; i++)
    size[i] = 0;
  for (int i = 0; i < r->nodes.len; i++)
    size[((FusNode *)r->nodes.data[i])->cluster]++;
  for (int c = 0; c < r->nclusters; c++) {
    if (size[c] < 2)
      continue;
    fprintf(out, "    subgraph cluster_r%d_c%d {\n      style=filled; color=\"#dde8f7\"; label=\"\";\n", r->index, c);
    for (int i = 0; i < r->nodes.len; i++) {
      const FusNode *n = r->nodes.data[i];
      if (n->cluster == c) {
        fputs("  ", out);
        print_node(out, r, n);
      }
    }
    fputs("    }\n", out);
  }
  for (int i = 0; i < r->nodes.len; i++) {
    const FusNode *n = r->nodes.data[i];
    if (size[n->cluster] < 2)
      print_node(out, r, n);
  }
  for (int i = 0; i < r->edges.len; i++) {
    const FusEdge *e = r->edges.data[i];
    fprintf(out, "    r%d_n%d -> r%d_n%d [", r->index, e->from, r->index, e->to);
    switch (e->kind) {
    case FE_FUSIBLE:
      fputs("label=\"", out);
      print_label_text(out, e->why);
      fputs("\"", out);
      break;
    case FE_ORDER: { /* an order edge: its pair may fit side by side */
      const FusPair *p = e->pair >= 0 ? r->pairs.data[e->pair] : NULL;
      fputs("style=dotted", out);
      if (p && strcmp(p->rule, "order") != 0) {
        fputs(", label=\"", out);
        print_label_text(out, p->rule);
        fputs("\"", out);
      }
      break;
    }
    case FE_PREVENTING:
      fputs("style=dashed, color=red, fontcolor=red, label=\"", out);
      print_label_text(out, e->why);
      fputs("\"", out);
      break;
    }
    fputs("];\n", out);
  }
  for (int i = 0; i < r->pairs.len; i++) {
    const FusPair *p = r->pairs.data[i];
    if (p->kind != FP_HORIZONTAL || !p->fused)
      continue;
    fprintf(out, "    r%d_n%d -> r%d_n%d [dir=none, color=blue, fontcolor=blue, constraint=false, label=\"", r->index,
            p->u, r->index, p->v);
    print_label_text(out, p->rule);
    fputs("\"];\n", out);
  }
  fputs("  }\n", out);
}
