/*
 * share.c: one variable for each value the flat IR computes twice, and
 * for each parameter that every call passes the value of another.
 *
 * Flattening translates each NESL expression on its own, and a program
 * that carries several sequences of one shape through a recursion
 * computes the same segment descriptors once a sequence: Barnes-Hut's
 * build(xs, ys, ms, ...) filters each of xs, ys and ms by the same
 * quadrant flags, so that its lifted version takes three segdes that are
 * always equal, and every level gathered, replicated and checked each of
 * them on its own (three range segdes and three segment-id vectors where
 * one would do).  This pass finds such values by value numbering:
 *
 *   - in a block, an operation with the same arguments (and details) as
 *     one before it, in its block or an enclosing one, gives the same
 *     values: its results are read as that one's.  What can fail stays
 *     where it is (its results no longer read, lowering drops it only
 *     where it cannot fail), and what it repeats fails first, at the
 *     first one, as before;
 *   - after `check lengths a b`, a and b are one value to the end of
 *     the block, and so are two segdes whose seg_lengths they are (a
 *     segdes is its lengths).  Only after the check: fusion keeps
 *     kernels after the checks, and a length read in place of another
 *     before its check could change which error a program reports.  A
 *     check left comparing one value with itself goes;
 *   - `length v` is read as what v's length is known to be: a DIST's
 *     count, an element-wise operation's first vector operand's length,
 *     or, for a parameter within a segdes, the segdes's number of
 *     elements (the same for every parameter within it).  Each holds
 *     once the statement that made v ran, so nothing is read before its
 *     check;
 *   - a check of the values an earlier one checked (in its block or an
 *     enclosing one) goes: it passed;
 *   - a function's parameters that every call passes the same value
 *     (variables numbered alike, or equal constants) are one parameter:
 *     the body reads the first.  Recursion is handled optimistically:
 *     every function called by plain calls alone starts with each
 *     parameter in the class of the first of its type, and each call
 *     splits the classes of its callee where its arguments differ, until
 *     nothing splits.  Equal arguments at the calls from the top level
 *     (where no parameter is assumed) make the parameters equal in the
 *     first activation, and so on down the calls.
 *
 * Not numbered: calls (their bodies may print), RAND, host primitives
 * (input, output, time), NAME, EQL and HASH (details the key does not
 * hold), ifs and timed blocks (their results are new), and statements
 * without results (checks).  A function called on each element (`call
 * each`) keeps its parameters apart: its calls pass vectors of them.
 * Not for --cost, whose statements count what each expression computes.
 *
 * Requires: a checked FlatProgram, before shape analysis (shape.c reads
 * the variables as this pass leaves them).  Keeps: every statement but
 * the checks above that cannot fail, and every parameter (a parameter
 * no longer read stays in the signature; a statement whose results no
 * longer are read is dead code for lowering); the program's results and
 * errors.
 */
#include <string.h>

#include "flatten.h"

typedef struct Share {
  FlatProgram *p;
  FlatVar **leader; /* by variable id: the variable read in its place */
  PtrMap classes;   /* FlatFunc -> int *: each parameter's class, the
                       index of the first parameter in it */
  PtrMap apart;     /* FlatFunc -> itself: called on each element */
  PtrMap called;    /* FlatFunc -> itself: called plainly */
  ScopedMap avail;  /* a statement's key -> the first FlatStmt with it */
  Vec joined;       /* FlatVar *: led by another since a check (join) */
  PtrMap segdes_of; /* FlatVar -> FlatVar: `l = seg_lengths d`'s l -> d */
  PtrMap length_of; /* FlatVar (a vector) -> FlatAtom *: its length, a
                       scalar (a DIST's count), or the vector an
                       element-wise operation took its length from */
  Buf key;
  bool rewrite;     /* the last walk: atoms replaced by their leaders */
  bool changed;     /* a class split in this walk */
} Share;

static FlatVar *leader_of(Share *sh, FlatVar *v) {
  while (sh->leader[v->id])
    v = sh->leader[v->id];
  return v;
}

/* From here to the end of the block, 'a' and 'b' are one value: the
   later made (the higher id) is read as the other. */
static void join(Share *sh, FlatVar *a, FlatVar *b) {
  a = leader_of(sh, a);
  b = leader_of(sh, b);
  if (a == b || !flat_type_equal(a->type, b->type))
    return;
  if (b->id < a->id) {
    FlatVar *t = a;
    a = b;
    b = t;
  }
  vec_push(&sh->joined, b);
  sh->leader[b->id] = a;
}

static void join_undo(Share *sh, int mark) {
  while (sh->joined.len > mark)
    sh->leader[((FlatVar *)sh->joined.data[--sh->joined.len])->id] = NULL;
}

/* `check lengths a b` passed: a and b are one value after it, and where
   they are the lengths of two segdes (seg_lengths), so are those. */
static void lengths_checked(Share *sh, const FlatStmt *s) {
  if (s->args.len != 2)
    return;
  const FlatAtom *x = s->args.data[0], *y = s->args.data[1];
  if (x->kind != FA_VAR || y->kind != FA_VAR)
    return;
  FlatVar *dx = ptrmap_get(&sh->segdes_of, x->u.var), *dy = ptrmap_get(&sh->segdes_of, y->u.var);
  join(sh, x->u.var, y->u.var);
  if (dx && dy)
    join(sh, dx, dy);
}

/* Atom 'a' as part of a key: its leader's number, or the constant's
   type and bits. */
static void key_atom(Share *sh, Buf *b, const FlatAtom *a) {
  switch (a->kind) {
  case FA_VAR:
    buf_printf(b, "v%d,", leader_of(sh, a->u.var)->id);
    return;
  case FA_FLOAT: {
    uint64_t bits;
    memcpy(&bits, &a->u.f, sizeof bits);
    buf_printf(b, "f%llx,", (unsigned long long)bits);
    return;
  }
  case FA_INT:
    buf_printf(b, "i%d,", (int)a->u.i);
    return;
  case FA_BOOL:
    buf_printf(b, "b%d,", (int)a->u.b);
    return;
  case FA_CHAR:
    buf_printf(b, "c%d,", (int)(unsigned char)a->u.c);
    return;
  }
  buf_printf(b, "?%d,", (int)a->kind);
}

/* Does 's' compute its results from its arguments and details alone? */
static bool numbered(const FlatStmt *s) {
  if (s->kind != FS_OP || s->results.len == 0)
    return false;
  switch (s->op) {
  case FLAT_RAND:
  case FLAT_HOST_PRIM:
  case FLAT_NAME:
  case FLAT_EQL:
  case FLAT_HASH:
    return false;
  default:
    break;
  }
  for (int i = 0; i < s->results.len; i++)
    if (((FlatVar *)s->results.data[i])->global)
      return false;
  return true;
}

/* The key of operation 's': what it is, its details and its arguments. */
static const char *stmt_key(Share *sh, const FlatStmt *s) {
  Buf *b = &sh->key;
  b->len = 0;
  buf_printf(b, "%d:%d%d%d%d%d:%d:", (int)s->op, s->lifted, s->segments, s->once, s->guarded, s->check,
             s->results.len);
  if (s->total)
    key_atom(sh, b, s->total);
  buf_putc(b, '|');
  for (int i = 0; i < s->args.len; i++)
    key_atom(sh, b, s->args.data[i]);
  for (int i = 0; i < s->results.len; i++) {
    FlatType t = ((FlatVar *)s->results.data[i])->type;
    buf_printf(b, "%d.%d,", (int)t.kind, (int)t.base);
  }
  return buf_str(b);
}

static void rewrite_atom(Share *sh, FlatAtom **a) {
  if (*a && (*a)->kind == FA_VAR && leader_of(sh, (*a)->u.var) != (*a)->u.var)
    *a = flat_var_atom(leader_of(sh, (*a)->u.var));
}

static void rewrite_atoms(Share *sh, Vec *atoms) {
  for (int i = 0; i < atoms->len; i++)
    rewrite_atom(sh, (FlatAtom **)&atoms->data[i]);
}

/* Do atoms 'a' and 'b' stand for one value (in the walk's numbering)? */
static bool same_atom(Share *sh, const FlatAtom *a, const FlatAtom *b) {
  Buf x = {0}, y = {0};
  key_atom(sh, &x, a);
  key_atom(sh, &y, b);
  return strcmp(buf_str(&x), buf_str(&y)) == 0;
}

/* A plain call of 'g' with 'args': g's classes split where two
   arguments of one class differ. */
static void refine(Share *sh, FlatFunc *g, const Vec *args) {
  int *cls = ptrmap_get(&sh->classes, g);
  if (!cls)
    return;
  int n = g->params.len;
  if (args->len != n) { /* not a call of g's parameters: kept apart */
    for (int i = 0; i < n; i++)
      if (cls[i] != i) {
        cls[i] = i;
        sh->changed = true;
      }
    return;
  }
  int *next = xmalloc_atomic(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    next[i] = i;
    for (int j = 0; j < i; j++)
      if (cls[j] == cls[i] && next[j] == j && same_atom(sh, args->data[j], args->data[i])) {
        next[i] = j;
        break;
      }
  }
  for (int i = 0; i < n; i++)
    if (next[i] != cls[i]) {
      cls[i] = next[i];
      sh->changed = true;
    }
}

/* Notes what the length of 's''s vector result is: a DIST's count, or
   the length of an element-wise operation's first vector operand (its
   operands have one length; flattening made them so).  Barnes-Hut's
   `build` zipped xs with the quadrants qs, computed element-wise from
   xs and ys: `#qs` and `#xs` were two values, so that its three filters
   by the same flags replicated qs by two counts and made two segdes
   for its recursive call where one would do. */
static void note_length(Share *sh, const FlatStmt *s) {
  if (s->kind != FS_OP || s->results.len != 1 || ((FlatVar *)s->results.data[0])->type.kind != FT_VEC)
    return;
  FlatVar *r = s->results.data[0];
  if (s->op == FLAT_DIST && s->args.len == 2) {
    ptrmap_put(&sh->length_of, r, s->args.data[1]);
    return;
  }
  if (s->op > FLAT_COPY) /* ORDER FLAT_OP: the element-wise ops come first */
    return;
  for (int i = 0; i < s->args.len; i++) {
    FlatAtom *a = s->args.data[i];
    if (a->kind == FA_VAR && a->u.var->type.kind == FT_VEC) {
      FlatAtom *l = ptrmap_get(&sh->length_of, a->u.var);
      ptrmap_put(&sh->length_of, r, l ? l : a);
      return;
    }
  }
}

/* The key of a length known as 'what' of variable number 'id'. */
static const char *length_key_of(Share *sh, const char *what, int id) {
  Buf *b = &sh->key;
  b->len = 0;
  buf_printf(b, "%d:%s|v%d,", (int)FLAT_LENGTH, what, id);
  return buf_str(b);
}

/* `x = length v` where v's length is known (note_length): x is that
   scalar (led by its leader), or the key is the length of the vector v
   took its length from.  False if neither: the key is 's''s own. */
static bool length_key(Share *sh, const FlatStmt *s, const char **key) {
  if (s->kind != FS_OP || s->op != FLAT_LENGTH || s->args.len != 1 ||
      ((FlatAtom *)s->args.data[0])->kind != FA_VAR)
    return false;
  FlatVar *v = ((FlatAtom *)s->args.data[0])->u.var;
  FlatAtom *l = ptrmap_get(&sh->length_of, v);
  if (!l && v->within) {
    /* a parameter within a segdes: as long as the segdes has elements,
       as every other within it (build^'s xs, ys and ms, once their
       segdes are one parameter) */
    *key = length_key_of(sh, "within", leader_of(sh, v->within)->id);
    return true;
  }
  if (!l)
    return false;
  FlatVar *x = s->results.data[0];
  if (l->kind == FA_VAR && l->u.var->type.kind != FT_VEC) {
    if (flat_type_equal(l->u.var->type, x->type) && leader_of(sh, l->u.var) != x)
      sh->leader[x->id] = leader_of(sh, l->u.var);
    *key = NULL;
    return true;
  }
  if (l->kind != FA_VAR)
    return false; /* a constant count: the statement's own key */
  *key = length_key_of(sh, "length", leader_of(sh, l->u.var)->id);
  return true;
}

/* Is 's' a `check lengths` of one value with itself, which cannot fail? */
static bool checks_itself(const FlatStmt *s) {
  if (s->kind != FS_OP || s->op != FLAT_CHECK || s->check != RT_CHECK_LENGTHS || s->args.len != 2)
    return false;
  const FlatAtom *x = s->args.data[0], *y = s->args.data[1];
  return x->kind == FA_VAR && y->kind == FA_VAR && x->u.var == y->u.var;
}

/* Is 's' a check that one before it (in its block or an enclosing one)
   made of the same values, which passed if the program got here?  Else a
   check is noted for those after it.  The last walk only: the known
   totals of segments replicated k times (flatten.c, replicated_total)
   check the same sums once for each value replicated. */
static bool repeats_check(Share *sh, FlatStmt *s) {
  if (s->kind != FS_OP || s->op != FLAT_CHECK || s->results.len != 0)
    return false;
  const char *key = stmt_key(sh, s);
  if (scoped_get(&sh->avail, key))
    return true;
  scoped_put(&sh->avail, key, s);
  return false;
}

static void walk_block(Share *sh, FlatBlock *b) {
  int mark = scoped_mark(&sh->avail), joins = sh->joined.len;
  int kept = 0;
  for (int i = 0; i < b->stmts.len; i++) {
    FlatStmt *s = b->stmts.data[i];
    if (sh->rewrite) {
      rewrite_atoms(sh, &s->args);
      rewrite_atom(sh, &s->total);
      /* a check that the numbering made of one value with itself goes:
         lowering would make it a kernel over the lengths, which fusion
         cannot fuse across */
      if (checks_itself(s) || repeats_check(sh, s))
        continue;
      b->stmts.data[kept++] = s;
    }
    if (s->then)
      walk_block(sh, s->then);
    if (s->els)
      walk_block(sh, s->els);
    if (s->body)
      walk_block(sh, s->body);
    if (s->kind == FS_CALL && !s->each && !sh->rewrite)
      refine(sh, s->callee, &s->args);
    if (s->kind == FS_OP && s->op == FLAT_CHECK && s->check == RT_CHECK_LENGTHS)
      lengths_checked(sh, s);
    if (s->kind == FS_OP && s->op == FLAT_SEG_LENGTHS && s->args.len == 1 &&
        ((FlatAtom *)s->args.data[0])->kind == FA_VAR)
      ptrmap_put(&sh->segdes_of, s->results.data[0], ((FlatAtom *)s->args.data[0])->u.var);
    if (!numbered(s))
      continue;
    note_length(sh, s);
    const char *key;
    if (!length_key(sh, s, &key))
      key = stmt_key(sh, s);
    if (!key)
      continue; /* read as the scalar it is */
    FlatStmt *first = scoped_get(&sh->avail, key);
    if (!first) {
      scoped_put(&sh->avail, key, s);
      continue;
    }
    for (int k = 0; k < s->results.len; k++)
      sh->leader[((FlatVar *)s->results.data[k])->id] = first->results.data[k];
  }
  if (sh->rewrite) {
    b->stmts.len = kept;
    rewrite_atoms(sh, &b->results);
  }
  scoped_undo(&sh->avail, mark);
  join_undo(sh, joins);
}

/* One walk of every function (its parameters led by their classes'
   first) and every top-level statement. */
static void walk_program(Share *sh) {
  memset(sh->leader, 0, sizeof(FlatVar *) * (size_t)(sh->p->next_var + 1));
  for (int i = 0; i < sh->p->funcs.len; i++) {
    FlatFunc *f = sh->p->funcs.data[i];
    int *cls = ptrmap_get(&sh->classes, f);
    for (int k = 0; cls && k < f->params.len; k++)
      if (cls[k] != k)
        sh->leader[((FlatVar *)f->params.data[k])->id] = f->params.data[cls[k]];
    if (f->body)
      walk_block(sh, f->body);
  }
  for (int i = 0; i < sh->p->tops.len; i++) {
    FlatTop *t = sh->p->tops.data[i];
    if (t->body)
      walk_block(sh, t->body);
  }
}

/* Notes the functions called on each element (Share.apart) and those
   called plainly (Share.called). */
static void find_calls(Share *sh, const FlatBlock *b) {
  for (int i = 0; b && i < b->stmts.len; i++) {
    const FlatStmt *s = b->stmts.data[i];
    if (s->kind == FS_CALL)
      ptrmap_put(s->each ? &sh->apart : &sh->called, s->callee, s->callee);
    find_calls(sh, s->then);
    find_calls(sh, s->els);
    find_calls(sh, s->body);
  }
}

void flat_share_values(FlatProgram *p) {
  Share sh = {0};
  sh.p = p;
  sh.leader = xmalloc(sizeof(FlatVar *) * (size_t)(p->next_var + 1));
  for (int i = 0; i < p->funcs.len; i++)
    find_calls(&sh, ((FlatFunc *)p->funcs.data[i])->body);
  for (int i = 0; i < p->tops.len; i++)
    find_calls(&sh, ((FlatTop *)p->tops.data[i])->body);
  /* optimistic: each parameter of a function called plainly alone in the
     class of the first of its type */
  for (int i = 0; i < p->funcs.len; i++) {
    FlatFunc *f = p->funcs.data[i];
    if (ptrmap_get(&sh.apart, f) || !ptrmap_get(&sh.called, f) || f->params.len < 2)
      continue;
    int *cls = xmalloc_atomic(sizeof(int) * (size_t)f->params.len);
    for (int k = 0; k < f->params.len; k++) {
      FlatType t = ((FlatVar *)f->params.data[k])->type;
      cls[k] = k;
      for (int j = 0; j < k; j++)
        if (cls[j] == j && flat_type_equal(((FlatVar *)f->params.data[j])->type, t)) {
          cls[k] = j;
          break;
        }
    }
    ptrmap_put(&sh.classes, f, cls);
  }
  do {
    sh.changed = false;
    walk_program(&sh);
  } while (sh.changed);
  sh.rewrite = true;
  walk_program(&sh);
}
