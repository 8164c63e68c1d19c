/*
 * shape.c: shape analysis on the flat IR: which vectors have the same
 * length, and which segment descriptors the same number of segments.
 *
 * Requires: a checked FlatProgram.  Keeps: everything.  Sets: FlatVar.shape,
 * a class number shared by variables known to have the same length
 * (vectors) or count (segment descriptors); 0 for a variable alone in its
 * class.  Fusion reads it: kernels over vectors of one shape can share an
 * iteration space.  And FlatVar.strict, the classes of the lengths that
 * are one whenever the variables exist, whatever checks have passed.
 *
 * The facts come from the operations, inside each function (calls and
 * branches are not followed): element-wise operations keep the length of
 * their vector arguments, a gather has the length of its indices, a scan
 * that of its input, the lengths of a segdes match its count, a segmented
 * reduction gives one value per segment, and so on.  Union-find over the
 * variables' ids.
 *
 * Two arguments that an operation needs of one length (an element-wise
 * operation's, a pack's values and flags) have it only once the operation
 * ran, or the `check lengths` before it passed: shapes join them, which
 * fusion may, as it keeps the kernels after the checks and hides such a
 * class from the runs before its check (fusion/facts.c).  A simplification
 * that replaces one length by another before the check may not: the
 * strict classes leave such pairs out.  They hold a result with the
 * argument whose length it has (an element-wise operation's first), and
 * the values one flags vector keeps each time (or drops).  Each variable
 * joins its class when it is made, through what it is made of (or the
 * flags' count), which existed before it: two variables of one class
 * that both exist have the length of what they were made from.  Not a
 * function's parameters, nor the results of a call: lowering makes the
 * first the caller's arguments, and the second, where it inlines the
 * call, what the callee returns, which may be those arguments, made
 * before the caller's checks (lcu/lower.c unites the results of a call
 * it does not inline, by FlatFunc.result_groups).
 */
#include "flatten.h"

typedef struct Shapes {
  int *parent; /* union-find over variable ids: the shapes */
  int *strict; /* the same for the strict classes */
  int n;
  int *kept;    /* by the id of a flags vector: 1 + the id of a PACK's (or
                   PARTITION's first) result by those flags, 0 for none */
  int *dropped; /* the same for a PARTITION's second result */
} Shapes;

static FlatVar *arg_var(FlatStmt *st, int i) {
  if (i >= st->args.len)
    return NULL;
  FlatAtom *a = st->args.data[i];
  return a->kind == FA_VAR ? a->u.var : NULL;
}

static bool sized(FlatVar *v) { return v && v->type.kind != FT_SCALAR; }

/* One length once the operation relating them ran (its checks passed). */
static void same(Shapes *s, FlatVar *a, FlatVar *b) {
  if (sized(a) && sized(b))
    uf_unite(s->parent, a->id, b->id);
}

/* One length whenever both exist: a result and the argument whose length
   it has. */
static void same_always(Shapes *s, FlatVar *a, FlatVar *b) {
  if (sized(a) && sized(b)) {
    uf_unite(s->parent, a->id, b->id);
    uf_unite(s->strict, a->id, b->id);
  }
}

/* 'r', kept (or dropped) by a flags vector whose slot (Shapes.kept or
   .dropped) is 'slot': one length with the others it kept (dropped),
   whenever both exist (a lifted if's counts are the lengths of its first
   PARTITION's sides: the other PARTITIONs by its flags have them). */
static void kept_by(Shapes *s, int *slot, FlatVar *r) {
  if (!sized(r))
    return;
  if (*slot) {
    uf_unite(s->parent, *slot - 1, r->id);
    uf_unite(s->strict, *slot - 1, r->id);
  } else
    *slot = r->id + 1;
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
        same_always(s, a->u.var, st->results.data[i]);
    }
    return;
  }
  if (st->kind != FS_OP || st->results.len == 0)
    return;
  FlatVar *r = st->results.data[0];
  switch (rt_op_class(flat_rt_op(st->op))) {
  case OPC_ELEMENTWISE: {
    /* every vector argument and the result; the result has the first's
       length whenever it exists, the others once the operation ran */
    bool first = true;
    for (int i = 0; i < st->args.len; i++) {
      FlatVar *a = arg_var(st, i);
      if (!sized(a))
        continue;
      if (first)
        same_always(s, r, a);
      else
        same(s, r, a);
      first = false;
    }
    return;
  }
  case OPC_SCAN:
    same_always(s, r, arg_var(st, 0));
    return;
  case OPC_SEG_REDUCE: /* one value per segment */
    same_always(s, r, arg_var(st, 0));
    return;
  case OPC_SEG_SCAN:
    same_always(s, r, arg_var(st, 1));
    return;
  default:
    break;
  }
  switch (st->op) {
  case FLAT_GATHER:
    same_always(s, r, arg_var(st, 1));
    break;
  case FLAT_SCATTER:
    same_always(s, r, arg_var(st, 0));
    same(s, arg_var(st, 1), arg_var(st, 2));
    break;
  case FLAT_PACK:
  case FLAT_PARTITION: {
    same(s, arg_var(st, 0), arg_var(st, 1));
    FlatVar *flags = arg_var(st, 1);
    if (sized(flags)) {
      kept_by(s, &s->kept[flags->id], r);
      if (st->op == FLAT_PARTITION && st->results.len == 2)
        kept_by(s, &s->dropped[flags->id], st->results.data[1]);
    }
    break;
  }
  case FLAT_RANK:
  case FLAT_RANK_DOWN:
  case FLAT_MAKE_SEGDES:
  case FLAT_SEG_LENGTHS:
  case FLAT_SEG_OFFSETS:
    same_always(s, r, arg_var(st, 0));
    break;
  case FLAT_SEG_MAX_INDEX:
  case FLAT_SEG_MIN_INDEX:
    same_always(s, r, arg_var(st, 0));
    break;
  case FLAT_SEG_RANK:
  case FLAT_SEG_RANK_DOWN:
    same_always(s, r, arg_var(st, 1));
    break;
  case FLAT_SEG_RANGE:
    same_always(s, r, arg_var(st, 0)); /* one segment per start */
    break;
  case FLAT_SEG_PACK:
    same_always(s, r, arg_var(st, 0)); /* as many segments */
    same(s, arg_var(st, 1), arg_var(st, 2));
    break;
  case FLAT_NAME:
    same_always(s, r, arg_var(st, 0));
    break;
  default: /* no equal lengths to record */
    break;
  }
}

static void fill_block(Shapes *s, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++)
    fill_stmt(s, b->stmts.data[i]);
}

/* Numbers the classes of union-find 'parent' with two or more members,
   1, 2, ... in order of their smallest variable, and records them in the
   variables' 'shape' (or, where 'strict', their 'strict'). */
typedef struct Numbering {
  int *parent;
  bool strict;
  int *count, *number;
} Numbering;

static void number_var(Numbering *nb, FlatVar *v) {
  if (!sized(v))
    return;
  int root = uf_find(nb->parent, v->id);
  int c = nb->count[root] > 1 ? nb->number[root] : 0;
  if (nb->strict)
    v->strict = c;
  else
    v->shape = c;
}

static void number_block(Numbering *nb, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    FlatStmt *st = b->stmts.data[i];
    for (int k = 0; k < st->results.len; k++)
      number_var(nb, st->results.data[k]);
    if (st->kind == FS_IF) {
      number_block(nb, st->then);
      number_block(nb, st->els);
    } else if (st->kind == FS_TIME) {
      number_block(nb, st->body);
    }
  }
}

static void count_block(Numbering *nb, FlatBlock *b) {
  for (int i = 0; i < b->stmts.len; i++) {
    FlatStmt *st = b->stmts.data[i];
    for (int k = 0; k < st->results.len; k++) {
      FlatVar *v = st->results.data[k];
      if (sized(v))
        nb->count[uf_find(nb->parent, v->id)]++;
    }
    if (st->kind == FS_IF) {
      count_block(nb, st->then);
      count_block(nb, st->els);
    } else if (st->kind == FS_TIME) {
      count_block(nb, st->body);
    }
  }
}

static void number_classes(FlatProgram *p, int *parent, int n, bool strict) {
  Numbering nb = {parent, strict, xmalloc_atomic(sizeof(int) * (size_t)n), xmalloc_atomic(sizeof(int) * (size_t)n)};
  for (int i = 0; i < n; i++)
    nb.count[i] = 0;
  for (int i = 0; i < p->funcs.len; i++) {
    FlatFunc *f = p->funcs.data[i];
    for (int k = 0; k < f->params.len; k++)
      if (sized(f->params.data[k]))
        nb.count[uf_find(parent, ((FlatVar *)f->params.data[k])->id)]++;
    count_block(&nb, f->body);
  }
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      count_block(&nb, t->body);
  }
  int next = 0;
  for (int i = 0; i < n; i++)
    nb.number[i] = uf_find(parent, i) == i && nb.count[i] > 1 ? ++next : 0;
  for (int i = 0; i < p->funcs.len; i++) {
    FlatFunc *f = p->funcs.data[i];
    for (int k = 0; k < f->params.len; k++)
      number_var(&nb, f->params.data[k]);
    number_block(&nb, f->body);
  }
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      number_block(&nb, t->body);
  }
}

void flat_fill_shapes(FlatProgram *p) {
  int n = p->next_var + 1;
  Shapes s = {xmalloc_atomic(sizeof(int) * (size_t)n), xmalloc_atomic(sizeof(int) * (size_t)n), n,
              xmalloc_atomic(sizeof(int) * (size_t)n), xmalloc_atomic(sizeof(int) * (size_t)n)};
  for (int i = 0; i < n; i++) {
    s.parent[i] = s.strict[i] = i;
    s.kept[i] = s.dropped[i] = 0;
  }
  for (int i = 0; i < p->funcs.len; i++)
    fill_block(&s, ((FlatFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++) {
    FlatTop *t = p->tops.data[i];
    if (t->body)
      fill_block(&s, t->body);
  }
  number_classes(p, s.parent, n, false);
  number_classes(p, s.strict, n, true);
}
