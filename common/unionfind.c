/*
 * unionfind.c: union-find over the ints 0 .. n-1 of an array of parents
 * (common.h), shared by shape analysis (flatten/shape.c), lowering's
 * length classes (lcu/lower.c) and fusion's clusters (fusion/schedule.c).
 */
#include "common.h"

int uf_find(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]]; /* path halving */
    x = parent[x];
  }
  return x;
}

void uf_unite(int *parent, int a, int b) {
  a = uf_find(parent, a);
  b = uf_find(parent, b);
  if (a != b)
    parent[a < b ? b : a] = a < b ? a : b;
}
