/*
 * shape.c: shape analysis on the flat IR: which vectors have the same
 * length, and which segment descriptors the same number of segments.
 *
 * Requires: a checked FlatProgram.  Keeps: everything.  Sets: FlatVar.shape,
 * a class number shared by variables known to have the same length
 * (vectors) or count (segment descriptors); 0 for a variable alone in its
 * class.  Fusion reads it: kernels over vectors of one shape can share an
 * iteration space.
 *
 * The facts come from the operations, inside each function (calls and
 * branches are not followed): element-wise operations keep the length of
 * their vector arguments, a gather has the length of its indices, a scan
 * that of its input, the lengths of a segdes match its count, a segmented
 * reduction gives one value per segment, and so on.  Union-find over the
 * variables' ids.
 */
#include "flatten.h"

typedef struct Shapes {
  int *parent; /* union-find over variable ids */
  int n;
} Shapes;

static int find(Shapes *s, int x) {
  while (s->parent[x] != x) {
    s->parent[x] = s->parent[s->parent[x]];
    x = s->parent[x];
  }
  return x;
}

static void unite(Shapes *s, int a, int b) {
  a = find(s, a);
  b = find(s, b);
  if (a != b)
    s->parent[a < b ? b : a] = a < b ? a : b;
}

static FlatVar *arg_var(FlatStmt *st, int i) {
  if (i >= st->args.len)
    return NULL;
  FlatAtom *a = st->args.data[i];
  return a->kind == FA_VAR ? a->u.var : NULL;
}

static bool sized(FlatVar *v) { return v && v->type.kind != FT_SCALAR; }

static void same(Shapes *s, FlatVar *a, FlatVar *b) {
  if (sized(a) && sized(b))
    unite(s, a->id, b->id);
}

static void fill_block(Shapes *s, FlatBlock *b);

static void fill_stmt(Shapes *s, FlatStmt *st) {
  if (st->kind == FS_IF) {
    fill_block(s, st->then);
    fill_block(s, st->els);
    return;
  }
  if (st->kind == FS_TIME) {
    fill_block(s, st->body);
    for (int i = 0; i < st->body->results.len && i < st->results.len; i++) {
      FlatAtom *a = st->body->results.data[i];
      if (a->kind == FA_VAR)
        same(s, a->u.var, st->results.data[i]);
    }
    return;
  }
  if (st->kind != FS_OP || st->results.len == 0)
    return;
  FlatVar *r = st->results.data[0];
  switch (rt_op_class(flat_rt_op(st->op))) {
  case OPC_ELEMENTWISE:
    /* every vector argument and the result */
    for (int i = 0; i < st->args.len; i++)
      same(s, r, arg_var(st, i));
    return;
  case OPC_SCAN:
    same(s, r, arg_var(st, 0));
    return;
  case OPC_SEG_REDUCE: /* one value per segment */
    same(s, r, arg_var(st, 0));
    return;
  case OPC_SEG_SCAN:
    same(s, r, arg_var(st, 1));
    return;
  default:
    break;
  }
  switch (st->op) {
  case FLAT_GATHER:
    same(s, r, arg_var(st, 1));
    break;
  case FLAT_SCATTER:
    same(s, r, arg_var(st, 0));
    same(s, arg_var(st, 1), arg_var(st, 2));
    break;
  case FLAT_PACK:
  case FLAT_PARTITION:
    same(s, arg_var(st, 0), arg_var(st, 1));
    break;
  case FLAT_RANK:
  case FLAT_RANK_DOWN:
  case FLAT_MAKE_SEGDES:
  case FLAT_SEG_LENGTHS:
  case FLAT_SEG_OFFSETS:
    same(s, r, arg_var(st, 0));
    break;
  case FLAT_SEG_MAX_INDEX:
  case FLAT_SEG_MIN_INDEX:
    same(s, r, arg_var(st, 0));
    break;
  case FLAT_SEG_RANK:
  case FLAT_SEG_RANK_DOWN:
    same(s, r, arg_var(st, 1));
    break;
  case FLAT_SEG_RANGE:
    same(s, r, arg_var(st, 0)); /* one segment per start */
    break;
  case FLAT_SEG_PACK:
    same(s, r, arg_var(st, 0)); /* as many segments */
    same(s, arg_var(st, 1), arg_var(st, 2));
    break;
  case FLAT_NAME:
    same(s, r, arg_var(st, 0));
    break;
  default: /* no equal lengths to record */
    break;
  }
}

static void fill_block(Shapes *s, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++)
    fill_stmt(s, b->stmts.data[i]);
}

/* Numbers the classes with two or more members, 1, 2, ... in order of
   their smallest variable, and records them in the variables. */
static void number_block(Shapes *s, int *count, int *number, FlatBlock *b);

static void number_var(Shapes *s, int *count, int *number, FlatVar *v) {
  if (!sized(v))
    return;
  int root = find(s, v->id);
  v->shape = count[root] > 1 ? number[root] : 0;
}

static void number_block(Shapes *s, int *count, int *number, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    FlatStmt *st = b->stmts.data[i];
    for (int k = 0; k < st->results.len; k++)
      number_var(s, count, number, st->results.data[k]);
    if (st->kind == FS_IF) {
      number_block(s, count, number, st->then);
      number_block(s, count, number, st->els);
    } else if (st->kind == FS_TIME) {
      number_block(s, count, number, st->body);
    }
  }
}

static void count_block(Shapes *s, int *count, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    FlatStmt *st = b->stmts.data[i];
    for (int k = 0; k < st->results.len; k++) {
      FlatVar *v = st->results.data[k];
      if (sized(v))
        count[find(s, v->id)]++;
    }
    if (st->kind == FS_IF) {
      count_block(s, count, st->then);
      count_block(s, count, st->els);
    } else if (st->kind == FS_TIME) {
      count_block(s, count, st->body);
    }
  }
}

void flat_fill_shapes(FlatProgram *p) {
  Shapes s = {xmalloc_atomic(sizeof(int) * (size_t)(p->next_var + 1)), p->next_var + 1};
  for (int i = 0; i < s.n; i++)
    s.parent[i] = i;
  for (int i = 0; i < p->funcs.len; i++)
    fill_block(&s, ((FlatFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      fill_block(&s, t->body);
  }
  int *count = xmalloc_atomic(sizeof(int) * (size_t)s.n);
  int *number = xmalloc_atomic(sizeof(int) * (size_t)s.n);
  for (int i = 0; i < s.n; i++)
    count[i] = 0;
  for (int i = 0; i < p->funcs.len; i++) {
    FlatFunc *f = p->funcs.data[i];
    for (int k = 0; k < f->params.len; k++)
      if (sized(f->params.data[k]))
        count[find(&s, ((FlatVar *)f->params.data[k])->id)]++;
    count_block(&s, count, f->body);
  }
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      count_block(&s, count, t->body);
  }
  int next = 0;
  for (int i = 0; i < s.n; i++)
    number[i] = find(&s, i) == i && count[i] > 1 ? ++next : 0;
  for (int i = 0; i < p->funcs.len; i++) {
    FlatFunc *f = p->funcs.data[i];
    for (int k = 0; k < f->params.len; k++)
      number_var(&s, count, number, f->params.data[k]);
    number_block(&s, count, number, f->body);
  }
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      number_block(&s, count, number, t->body);
  }
}
