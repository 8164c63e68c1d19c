/*
 * types.c: type construction, unification with type classes, and printing
 * in the notation of the NESL REPL.
 *
 * Unification is the textbook algorithm over union-find links, extended
 * with class masks on variables (see types.h) and with levels for
 * let-polymorphism (a variable bound inside a function body may only be
 * generalized if it does not escape into the enclosing scope; binding
 * lowers levels, as in Rémy's algorithm).
 */
#include <string.h>

#include "types.h"

static Type base_int = {.kind = T_INT}, base_float = {.kind = T_FLOAT},
            base_bool = {.kind = T_BOOL}, base_char = {.kind = T_CHAR};
Type *type_int = &base_int, *type_float = &base_float, *type_bool = &base_bool,
     *type_char = &base_char;

static int next_var_id;

static Type *new_type(TypeKind kind) {
  Type *t = NEW(Type);
  t->kind = kind;
  return t;
}

Type *type_seq(Type *elem) {
  Type *t = new_type(T_SEQ);
  t->elem = elem;
  return t;
}

Type *type_pair(Type *fst, Type *snd) {
  Type *t = new_type(T_PAIR);
  t->fst = fst;
  t->snd = snd;
  return t;
}

Type *type_fun(Type *arg, Type *result) {
  Type *t = new_type(T_FUN);
  t->fst = arg;
  t->snd = result;
  return t;
}

Type *type_fun_id(Type *arg, Type *result, Type *ident) {
  Type *t = type_fun(arg, result);
  t->ident = ident;
  return t;
}

Type *type_fnid(struct Def *def, const char *name) {
  Type *t = type_var(CLASS_IDENT, 0);
  t->rigid = true;
  t->def = def;
  t->name = name;
  return t;
}

Type *type_data(const char *name, int data_id, Vec args) {
  Type *t = new_type(T_DATA);
  t->name = name;
  t->data_id = data_id;
  t->args = args;
  return t;
}

Type *type_var(int klass, int level) {
  Type *t = new_type(T_VAR);
  t->id = ++next_var_id;
  t->klass = klass;
  t->level = level;
  return t;
}

Type *type_resolve(Type *t) {
  while (t->kind == T_VAR && t->link)
    t = t->link;
  return t;
}

int class_from_name(const char *klass) {
  if (strcmp(klass, "number") == 0)
    return CLASS_NUMBER;
  if (strcmp(klass, "ordinal") == 0)
    return CLASS_ORDINAL;
  if (strcmp(klass, "logical") == 0)
    return CLASS_LOGICAL;
  if (strcmp(klass, "any") == 0)
    return CLASS_ANY;
  return 0;
}

const char *class_name(int klass) {
  switch (klass) {
  case CLASS_NUMBER:
    return "number";
  case CLASS_ORDINAL:
    return "ordinal";
  case CLASS_LOGICAL:
    return "logical";
  case CLASS_ANY:
    return "any";
  }
  return NULL;
}

/* ---- the trail ---- */

typedef struct TrailEntry {
  Type *var;
  Type *link;
  int klass, level;
} TrailEntry;

static TrailEntry *trail;
static int trail_len, trail_cap;

static void save(Type *v) {
  if (trail_len == trail_cap) {
    trail_cap = trail_cap ? 2 * trail_cap : 256;
    trail = xrealloc(trail, sizeof *trail * (size_t)trail_cap);
  }
  trail[trail_len++] = (TrailEntry){v, v->link, v->klass, v->level};
}

int type_trail_mark(void) { return trail_len; }

void type_trail_undo(int mark) {
  while (trail_len > mark) {
    TrailEntry *e = &trail[--trail_len];
    e->var->link = e->link;
    e->var->klass = e->klass;
    e->var->level = e->level;
  }
}

/* ---- unification ---- */

static int class_of_concrete(Type *t) {
  switch (t->kind) {
  case T_INT:
    return CLASS_INT;
  case T_FLOAT:
    return CLASS_FLOAT;
  case T_CHAR:
    return CLASS_CHAR;
  case T_BOOL:
    return CLASS_BOOL;
  default:
    return CLASS_OTHER;
  }
}

/* Does variable 'v' occur in 't'?  Also lowers the levels of the
   variables of 't' to that of 'v', since 't' now lives where 'v' does. */
static bool occurs_adjust(Type *v, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    if (t == v)
      return true;
    if (t->level > v->level && t->level != GENERIC_LEVEL) {
      /* a signature's variable may not escape into an enclosing scope:
         the body would not be as general as the signature says */
      if (t->rigid)
        return true;
      save(t);
      t->level = v->level;
    }
    return false;
  case T_SEQ:
    return occurs_adjust(v, t->elem);
  case T_FUN:
    if (t->ident && occurs_adjust(v, t->ident))
      return true;
    return occurs_adjust(v, t->fst) || occurs_adjust(v, t->snd);
  case T_PAIR:
    return occurs_adjust(v, t->fst) || occurs_adjust(v, t->snd);
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      if (occurs_adjust(v, t->args.data[i]))
        return true;
    return false;
  default:
    return false;
  }
}

static void bind(Type *v, Type *t) {
  save(v);
  v->link = t;
}

/* Binds variable 'v' to non-variable 't', if the class of 'v' allows. */
static bool bind_concrete(Type *v, Type *t) {
  if (v->rigid)
    return false;
  if (!(v->klass & class_of_concrete(t)))
    return false;
  if (occurs_adjust(v, t))
    return false;
  bind(v, t);
  return true;
}

/* Unifies two variables: the class is the intersection. */
static bool bind_vars(Type *a, Type *b) {
  if (a->rigid && b->rigid)
    return false;
  if (a->rigid) {
    Type *tmp = a;
    a = b;
    b = tmp;
  }
  /* 'a' is flexible; 'b' may be rigid */
  int klass = a->klass & b->klass;
  if (b->rigid && klass != b->klass)
    return false; /* the signature's variable is more general */
  if (b->rigid && a->level < b->level)
    return false; /* it would escape its function */
  if (klass == 0)
    return false;
  if (klass == CLASS_INT && !b->rigid) {
    bind(a, type_int);
    bind(b, type_int);
    return true;
  }
  if (!b->rigid && (b->klass != klass || b->level > a->level)) {
    save(b);
    b->klass = klass;
    if (a->level < b->level)
      b->level = a->level;
  }
  bind(a, b);
  return true;
}

/* While set, unification ignores the identities of functions: only to
   tell an identity conflict from another (type_identity_conflict). */
static bool ignore_identity;

static bool unify(Type *a, Type *b) {
  a = type_resolve(a);
  b = type_resolve(b);
  if (a == b)
    return true;
  if (a->kind == T_VAR && b->kind == T_VAR && a->def && b->def)
    return a->def == b->def; /* two known functions */
  if (a->kind == T_VAR && b->kind == T_VAR)
    return bind_vars(a, b);
  if (a->kind == T_VAR)
    return bind_concrete(a, b);
  if (b->kind == T_VAR)
    return bind_concrete(b, a);
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    return true;
  case T_SEQ:
    return unify(a->elem, b->elem);
  case T_FUN:
    if (a->ident && b->ident && !ignore_identity && !unify(a->ident, b->ident))
      return false;
    return unify(a->fst, b->fst) && unify(a->snd, b->snd);
  case T_PAIR:
    return unify(a->fst, b->fst) && unify(a->snd, b->snd);
  case T_DATA:
    if (a->data_id != b->data_id || a->args.len != b->args.len)
      return false;
    for (int i = 0; i < a->args.len; i++)
      if (!unify(a->args.data[i], b->args.data[i]))
        return false;
    return true;
  case T_VAR:
    break;
  }
  return false;
}

bool type_unify(Type *a, Type *b) {
  int mark = type_trail_mark();
  if (unify(a, b)) {
    /* nothing undoes a unification that succeeded: forget its entries,
       so that the trail does not keep every type ever unified alive (a
       long REPL session, a fuzzer) */
    memset(trail + mark, 0, sizeof *trail * (size_t)(trail_len - mark)); /* let the collector have them */
    trail_len = mark;
    return true;
  }
  type_trail_undo(mark);
  return false;
}

/* ---- instantiation and generalization ---- */

typedef struct Subst {
  Vec from, to;
} Subst;

static Type *instantiate(Type *t, int level, Subst *s) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    if (t->level != GENERIC_LEVEL)
      return t;
    for (int i = 0; i < s->from.len; i++)
      if (s->from.data[i] == t)
        return s->to.data[i];
    Type *fresh = type_var(t->klass, level);
    vec_push(&s->from, t);
    vec_push(&s->to, fresh);
    return fresh;
  case T_SEQ:
    return type_seq(instantiate(t->elem, level, s));
  case T_PAIR:
    return type_pair(instantiate(t->fst, level, s), instantiate(t->snd, level, s));
  case T_FUN: {
    Type *ident = t->ident ? instantiate(t->ident, level, s) : NULL;
    return type_fun_id(instantiate(t->fst, level, s), instantiate(t->snd, level, s), ident);
  }
  case T_DATA: {
    Vec args = {0};
    for (int i = 0; i < t->args.len; i++)
      vec_push(&args, instantiate(t->args.data[i], level, s));
    return type_data(t->name, t->data_id, args);
  }
  default:
    return t;
  }
}

Type *type_instantiate(Type *t, int level) {
  Subst s = {0};
  return instantiate(t, level, &s);
}

void type_generalize(Type *t, int level) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    if (t->level > level) {
      t->level = GENERIC_LEVEL;
      t->rigid = false;
    }
    break;
  case T_SEQ:
    type_generalize(t->elem, level);
    break;
  case T_FUN:
    if (t->ident)
      type_generalize(t->ident, level);
    type_generalize(t->fst, level);
    type_generalize(t->snd, level);
    break;
  case T_PAIR:
    type_generalize(t->fst, level);
    type_generalize(t->snd, level);
    break;
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      type_generalize(t->args.data[i], level);
    break;
  default:
    break;
  }
}

bool type_is_ground(Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    return false;
  case T_SEQ:
    return type_is_ground(t->elem);
  case T_PAIR:
  case T_FUN:
    return type_is_ground(t->fst) && type_is_ground(t->snd);
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      if (!type_is_ground(t->args.data[i]))
        return false;
    return true;
  default:
    return true;
  }
}

static bool equivalent(Type *a, Type *b, Subst *s) {
  a = type_resolve(a);
  b = type_resolve(b);
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case T_VAR:
    if (a->def || b->def)
      return a->def == b->def;
    for (int i = 0; i < s->from.len; i++)
      if (s->from.data[i] == a || s->to.data[i] == b)
        return s->from.data[i] == a && s->to.data[i] == b;
    if (a->klass != b->klass)
      return false;
    vec_push(&s->from, a);
    vec_push(&s->to, b);
    return true;
  case T_SEQ:
    return equivalent(a->elem, b->elem, s);
  case T_FUN:
    if (a->ident && b->ident && !equivalent(a->ident, b->ident, s))
      return false;
    return equivalent(a->fst, b->fst, s) && equivalent(a->snd, b->snd, s);
  case T_PAIR:
    return equivalent(a->fst, b->fst, s) && equivalent(a->snd, b->snd, s);
  case T_DATA:
    if (a->data_id != b->data_id || a->args.len != b->args.len)
      return false;
    for (int i = 0; i < a->args.len; i++)
      if (!equivalent(a->args.data[i], b->args.data[i], s))
        return false;
    return true;
  default:
    return true;
  }
}

bool type_equivalent(Type *a, Type *b) {
  Subst s = {0};
  a = type_resolve(a);
  b = type_resolve(b);
  /* two definitions' types: each is its own function, so only their
     arguments and results compare */
  if (a->kind == T_FUN && b->kind == T_FUN)
    return equivalent(a->fst, b->fst, &s) && equivalent(a->snd, b->snd, &s);
  return equivalent(a, b, &s);
}

bool type_has_open_function(Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_FUN:
    return !type_is_ground(t->fst) || !type_is_ground(t->snd);
  case T_SEQ:
    return type_has_open_function(t->elem);
  case T_PAIR:
    return type_has_open_function(t->fst) || type_has_open_function(t->snd);
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      if (type_has_open_function(t->args.data[i]))
        return true;
    return false;
  default:
    return false;
  }
}


/* The first pair of function types, in 'a' and 'b' at the same place,
   whose identities are two different functions. */
static bool find_conflict(Type *a, Type *b, const char **fa, const char **fb) {
  a = type_resolve(a);
  b = type_resolve(b);
  if (a->kind != b->kind)
    return false;
  switch (a->kind) {
  case T_FUN:
    if (a->ident && b->ident) {
      Type *ia = type_resolve(a->ident), *ib = type_resolve(b->ident);
      if (ia->def && ib->def && ia->def != ib->def) {
        *fa = ia->name;
        *fb = ib->name;
        return true;
      }
    }
    return find_conflict(a->fst, b->fst, fa, fb) || find_conflict(a->snd, b->snd, fa, fb);
  case T_PAIR:
    return find_conflict(a->fst, b->fst, fa, fb) || find_conflict(a->snd, b->snd, fa, fb);
  case T_SEQ:
    return find_conflict(a->elem, b->elem, fa, fb);
  case T_DATA:
    for (int i = 0; i < a->args.len && i < b->args.len; i++)
      if (find_conflict(a->args.data[i], b->args.data[i], fa, fb))
        return true;
    return false;
  default:
    return false;
  }
}

bool type_identity_conflict(Type *a, Type *b, const char **fa, const char **fb) {
  int mark = type_trail_mark();
  ignore_identity = true;
  bool would = unify(a, b);
  ignore_identity = false;
  type_trail_undo(mark);
  if (!would)
    return false;
  *fa = *fb = NULL;
  find_conflict(a, b, fa, fb);
  return true;
}

/* ---- printing ---- */

static const char *var_name(TypeNamer *nm, Type *v) {
  int i;
  for (i = 0; i < nm->vars.len; i++)
    if (nm->vars.data[i] == v)
      break;
  if (i == nm->vars.len)
    vec_push(&nm->vars, v);
  if (nm->numbered)
    return xprintf("a%d", i);
  if (i < 26)
    return xprintf("%c", 'a' + i);
  return xprintf("%c%d", 'a' + i % 26, i / 26);
}

static void print(Buf *b, TypeNamer *nm, Type *t, bool parens, bool fun_parens);

/* A tuple's items, right spine flattened: int, (int, int), bool. */
static void print_items(Buf *b, TypeNamer *nm, Type *t) {
  for (;;) {
    print(b, nm, t->fst, true, false);
    buf_puts(b, ", ");
    t = type_resolve(t->snd);
    if (t->kind != T_PAIR) {
      print(b, nm, t, true, false);
      return;
    }
  }
}

/* 'parens': a tuple here needs parentheses (everywhere but the top).
   'fun_parens': so does a function type (the argument of another; CMU
   NESL prints `(a -> b, a) -> b` and `[int -> int]` without them). */
static void print(Buf *b, TypeNamer *nm, Type *t, bool parens, bool fun_parens) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
    buf_puts(b, "int");
    break;
  case T_FLOAT:
    buf_puts(b, "float");
    break;
  case T_BOOL:
    buf_puts(b, "bool");
    break;
  case T_CHAR:
    buf_puts(b, "char");
    break;
  case T_SEQ:
    buf_putc(b, '[');
    print(b, nm, t->elem, true, false);
    buf_putc(b, ']');
    break;
  case T_PAIR:
    if (parens)
      buf_putc(b, '(');
    print_items(b, nm, t);
    if (parens)
      buf_putc(b, ')');
    break;
  case T_DATA:
    buf_puts(b, t->name);
    if (t->args.len) {
      buf_putc(b, '(');
      for (int i = 0; i < t->args.len; i++) {
        if (i)
          buf_puts(b, ", ");
        print(b, nm, t->args.data[i], true, false);
      }
      buf_putc(b, ')');
    }
    break;
  case T_VAR:
    buf_puts(b, var_name(nm, t));
    break;
  case T_FUN:
    fun_parens = fun_parens || nm->fun_parens;
    if (fun_parens)
      buf_putc(b, '(');
    print(b, nm, t->fst, true, true);
    buf_puts(b, " -> ");
    print(b, nm, t->snd, true, false);
    if (fun_parens)
      buf_putc(b, ')');
    break;
  }
}

char *type_to_string(TypeNamer *nm, Type *t) {
  Buf b = {0};
  print(&b, nm, t, false, false);
  return buf_str(&b);
}

char *type_fun_to_string(TypeNamer *nm, Type *fun) {
  Buf b = {0};
  print(&b, nm, fun, true, false);
  return buf_str(&b);
}

char *type_context_string(TypeNamer *nm) {
  if (!nm->vars.len)
    return "";
  Buf b = {0};
  buf_puts(&b, " :: (");
  for (int i = 0; i < nm->vars.len; i++) {
    Type *v = nm->vars.data[i];
    const char *cls = class_name(v->klass);
    if (i)
      buf_puts(&b, "; ");
    buf_printf(&b, "%s in %s", var_name(nm, v), cls ? cls : "any");
  }
  buf_putc(&b, ')');
  return buf_str(&b);
}

/* The variables of a function's type in the order CMU NESL 3.1 names
   them.  Its type checker lists the free variables of the type
   `(function result arg ...)` by a right fold of Common Lisp's union
   (clean-type in its type-check.lisp), and CLISP's union keeps the first
   list's elements that the second lacks, then the second: each variable
   goes where it occurs last, the result read before the arguments.  A
   function that is not a known one (a function-typed parameter, what
   applying one gives) is itself a type variable bound to `(function
   result arg ...)`, and that variable is listed too, before its result
   and arguments, though the printed type never shows it: `apply(f, x) =
   f(x)` is `(c -> b, c) -> b :: (a in any; b in any; c in any)`.
   nessie's identity of a function type (Type.ident) says which: a known
   function's is a constant (`adder(n) = negate` is `b -> a -> a`, and
   `k(sqrt)`'s k `(float -> float) -> b`), another's a variable, which
   stands for NESL's. */
static void nesl_occurrences(Type *t, Vec *occ) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
    vec_push(occ, t);
    break;
  case T_SEQ:
    nesl_occurrences(t->elem, occ);
    break;
  case T_PAIR:
    nesl_occurrences(t->fst, occ);
    nesl_occurrences(t->snd, occ);
    break;
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      nesl_occurrences(t->args.data[i], occ);
    break;
  case T_FUN: {
    Type *id = t->ident ? type_resolve(t->ident) : NULL;
    if (!id || id->kind != T_VAR || !id->def)
      vec_push(occ, id && id->kind == T_VAR ? id : type_var(0, 0));
    nesl_occurrences(t->snd, occ);
    nesl_occurrences(t->fst, occ);
    break;
  }
  default:
    break;
  }
}

static void name_as_nesl(TypeNamer *nm, Type *fun) {
  Vec occ = {0};
  fun = type_resolve(fun);
  if (fun->kind == T_FUN) {
    nesl_occurrences(fun->snd, &occ);
    nesl_occurrences(fun->fst, &occ);
  } else {
    nesl_occurrences(fun, &occ);
  }
  for (int i = 0; i < occ.len; i++) {
    bool later = false;
    for (int j = i + 1; j < occ.len && !later; j++)
      later = occ.data[j] == occ.data[i];
    if (!later)
      vec_push(&nm->vars, occ.data[i]);
  }
  nm->numbered = nm->vars.len > 5; /* its names are a to e, then a0 ... */
}

char *type_scheme_to_string(Type *fun) {
  TypeNamer nm = {0};
  name_as_nesl(&nm, fun);
  char *s = type_fun_to_string(&nm, fun);
  return xprintf("%s%s", s, type_context_string(&nm));
}

/* A value's type and its context, named by 'nm' (fresh). */
static char *value_text(TypeNamer nm, Type *t) {
  char *s = type_to_string(&nm, t);
  return xprintf("%s%s", s, type_context_string(&nm));
}

char *type_text_bracketed(Type *t) { return value_text((TypeNamer){.fun_parens = true}, t); }

char *type_value_to_string(Type *t) { return value_text((TypeNamer){0}, t); }
