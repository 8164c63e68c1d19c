/*
 * mono.c: monomorphization.
 *
 * Requires: a program checked by the type checker (every expression has
 * its type; calls record the Def and the instantiated type).
 * Gives: a MonoProgram in which every function is an instance at one
 * monomorphic type, every expression's type is monomorphic with datatypes
 * replaced by their fields' tuples, and every call points at its instance
 * (Expr.callee).
 *
 * Instances are made on demand, starting from the top-level statements:
 * copying a function's body at a type substitutes its type variables and
 * asks for the instances its own calls need.  A type variable that nothing
 * determines (a value that is never used, say) becomes int, the smallest
 * type of every class but char-only, which does not exist.
 *
 * Higher-order functions are specialized away here, as C++ templates are:
 * a function type carries the identity of the function (frontend/types.h),
 * so an instance's type says which function each function-valued
 * parameter holds, and instances differ by it (the type key includes
 * it).  In the copy of a body, an application `g(x)` of a function value
 * becomes a direct call of the function g's type names, and a function
 * value itself becomes the constant F of type bool: it carries no
 * information, and a tuple or sequence holding it keeps its shape.  So
 * flattening, λcu and the interpreters never see a function value.  (A
 * function value whose identity nothing fixes comes only from an empty
 * sequence `[] (a -> b)`; an application of one can never run, and it
 * becomes a default value of its type.)
 *
 * Redefinition (NESL.md): a statement that defines a user function again
 * with an equivalent type makes the old one forward to the new one for
 * later statements, and so does a binding for each variable it defines
 * again with an equivalent type (a function reads a global's value when
 * it runs, as in CMU NESL).  Each such redefinition starts a new
 * generation of instances, so that an instance made before it keeps
 * calling, and reading, what it did then.
 */
#include <string.h>

#include "flatten.h"
#include "flatten/bounds.h"

/* ---- types ---- */

/* What a generic variable stands for in one instance. */
typedef struct Subst {
  Vec vars;  /* Type * (generic T_VAR) */
  Vec types; /* Type * */
} Subst;

static Type *subst_lookup(const Subst *s, Type *v) {
  if (v->def)
    return v; /* a known function is not a variable */
  for (int i = 0; i < s->vars.len; i++)
    if (s->vars.data[i] == v)
      return s->types.data[i];
  return NULL;
}

/* Matches generic 'scheme' against monomorphic 'mono', recording what
   each variable stands for. */
static void subst_match(Subst *s, Type *scheme, Type *mono) {
  scheme = type_resolve(scheme);
  mono = type_resolve(mono);
  switch (scheme->kind) {
  case T_VAR:
    if (!subst_lookup(s, scheme)) {
      vec_push(&s->vars, scheme);
      vec_push(&s->types, mono);
    }
    return;
  case T_SEQ:
    if (mono->kind == T_SEQ)
      subst_match(s, scheme->elem, mono->elem);
    return;
  case T_FUN:
    if (mono->kind == T_FUN && scheme->ident && mono->ident)
      subst_match(s, scheme->ident, mono->ident);
    /* fall through */
  case T_PAIR:
    if (mono->kind == scheme->kind) {
      subst_match(s, scheme->fst, mono->fst);
      subst_match(s, scheme->snd, mono->snd);
    }
    return;
  case T_DATA:
    if (mono->kind == T_DATA)
      for (int i = 0; i < scheme->args.len && i < mono->args.len; i++)
        subst_match(s, scheme->args.data[i], mono->args.data[i]);
    return;
  default:
    return;
  }
}

/* 't' with the substitution applied; variables it does not know become
   int (see the top of the file).  'memo', if not NULL, holds the results
   of this substitution for the types met so far (resolved): the type of
   an expression nested N deep shares all of its parts with its
   subexpressions' types, through the checker's variables, and rebuilding
   each from scratch took N^2 steps over a program (a literal nested 1000
   deep). */
static Type *subst_apply_memo(const Subst *s, PtrMap *memo, Type *t) {
  t = type_resolve(t);
  Type *r;
  switch (t->kind) {
  case T_VAR: {
    if (t->def)
      return t;
    Type *u = s ? subst_lookup(s, t) : NULL;
    if (!u && t->klass == CLASS_IDENT)
      return t; /* a function nothing determines (see the top) */
    return u ? u : (t->klass & CLASS_INT ? type_int : t->klass & CLASS_FLOAT ? type_float
                                          : t->klass & CLASS_CHAR ? type_char : type_bool);
  }
  case T_SEQ:
  case T_PAIR:
  case T_FUN:
  case T_DATA:
    break;
  default:
    return t;
  }
  if (memo && (r = ptrmap_get(memo, t)))
    return r;
  switch (t->kind) {
  case T_SEQ:
    r = type_seq(subst_apply_memo(s, memo, t->elem));
    break;
  case T_PAIR: {
    Type *a = subst_apply_memo(s, memo, t->fst);
    r = type_pair(a, subst_apply_memo(s, memo, t->snd));
    break;
  }
  case T_FUN: {
    Type *a = subst_apply_memo(s, memo, t->fst);
    Type *b = subst_apply_memo(s, memo, t->snd);
    r = type_fun_id(a, b, t->ident ? subst_apply_memo(s, memo, t->ident) : NULL);
    break;
  }
  default: {
    Vec args = {0};
    for (int i = 0; i < t->args.len; i++)
      vec_push(&args, subst_apply_memo(s, memo, t->args.data[i]));
    r = type_data(t->name, t->data_id, args);
  }
  }
  if (memo)
    ptrmap_put(memo, t, r);
  return r;
}

static Type *subst_apply(const Subst *s, Type *t) { return subst_apply_memo(s, NULL, t); }

static TypeEnv *strip_env; /* for mono_strip_datatypes's constructor lookups */

static Def *constructor_of(TypeEnv *env, Type *t) {
  for (Def *d = tc_lookup(env, t->name); d; d = d->prev)
    if (d->kind == DEF_CONSTRUCTOR && d->data_id == t->data_id)
      return d;
  die("mono: no constructor for datatype %s", t->name);
}

/* The type of a value of monomorphic type 't' after monomorphization:
   datatypes are their fields' tuples, and a function value is the
   constant F (see the top of the file).  'memo', if not NULL, holds the
   results for the types met so far (resolved), as subst_apply_memo's. */
static Type *value_type_memo(PtrMap *memo, Type *t) {
  t = type_resolve(t);
  if (t->kind != T_SEQ && t->kind != T_PAIR && t->kind != T_FUN && t->kind != T_DATA)
    return t;
  Type *r;
  if (memo && (r = ptrmap_get(memo, t)))
    return r;
  switch (t->kind) {
  case T_SEQ:
    r = type_seq(value_type_memo(memo, t->elem));
    break;
  case T_PAIR: {
    Type *a = value_type_memo(memo, t->fst);
    r = type_pair(a, value_type_memo(memo, t->snd));
    break;
  }
  case T_FUN:
    r = type_bool;
    break;
  default: {
    /* the constructor's argument type at the datatype's parameters */
    Def *con = constructor_of(strip_env, t);
    Subst s = {0};
    subst_match(&s, con->type->snd, t);
    r = value_type_memo(memo, subst_apply(&s, con->type->fst));
  }
  }
  if (memo)
    ptrmap_put(memo, t, r);
  return r;
}

static Type *value_type(Type *t) { return value_type_memo(NULL, t); }

Type *mono_strip_datatypes(Type *t) {
  t = type_resolve(t);
  if (t->kind == T_FUN)
    return type_fun(value_type(t->fst), value_type(t->snd));
  return value_type(t);
}

Type *mono_strip_datatypes_in(TypeEnv *env, Type *t) {
  TypeEnv *saved = strip_env;
  strip_env = env;
  Type *r = mono_strip_datatypes(t);
  strip_env = saved;
  return r;
}

/* A key naming a monomorphic type exactly (datatypes by definition). */
static void type_key(Buf *b, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
    buf_putc(b, 'i');
    break;
  case T_FLOAT:
    buf_putc(b, 'f');
    break;
  case T_BOOL:
    buf_putc(b, 'b');
    break;
  case T_CHAR:
    buf_putc(b, 'c');
    break;
  case T_SEQ:
    buf_putc(b, '[');
    type_key(b, t->elem);
    buf_putc(b, ']');
    break;
  case T_PAIR:
  case T_FUN:
    buf_putc(b, t->kind == T_PAIR ? '(' : '{');
    type_key(b, t->fst);
    buf_putc(b, ',');
    type_key(b, t->snd);
    if (t->kind == T_FUN && t->ident) {
      /* which function: instances differ by it */
      buf_putc(b, '=');
      type_key(b, t->ident);
    }
    buf_putc(b, ')');
    break;
  case T_DATA:
    buf_printf(b, "%s#%d(", t->name, t->data_id);
    for (int i = 0; i < t->args.len; i++) {
      type_key(b, t->args.data[i]);
      buf_putc(b, ',');
    }
    buf_putc(b, ')');
    break;
  case T_VAR:
    if (t->def)
      buf_printf(b, "%s#%d", t->def->name, t->def->version);
    else
      buf_putc(b, '?');
    break;
  }
}

/* ---- copying expressions at a substitution ---- */

typedef struct Copier {
  MonoProgram *mp;
  const Subst *subst;
  /* mono_of's results by the types met (see subst_apply_memo): one body's
     expressions' types share their parts */
  PtrMap applied, valued;
} Copier;

static Expr *copy_expr(Copier *c, Expr *e);

static Type *mono_of(Copier *c, Type *t) {
  return value_type_memo(&c->valued, subst_apply_memo(c->subst, &c->applied, t));
}

/* Constructor patterns become their fields' patterns. */
static Pattern *copy_pattern(Copier *c, Pattern *p) {
  Pattern *q;
  switch (p->kind) {
  case PAT_CON:
    return copy_pattern(c, p->arg);
  case PAT_PAIR:
    q = ast_pat_pair(p->loc, copy_pattern(c, p->fst), copy_pattern(c, p->snd));
    break;
  case PAT_VAR:
    q = ast_pat_var(p->loc, p->name);
    break;
  case PAT_WILD:
    q = ast_pat_wild(p->loc);
    break;
  default:
    unreachable();
  }
  q->type = mono_of(c, p->type);
  return q;
}

/* The definition a call checked against 'd' runs now. */
static Def *current(MonoProgram *mp, Def *d) {
  Def *next;
  if (mp->externals && mp->externals->current)
    d = mp->externals->current(mp->externals->ctx, d);
  while ((next = ptrmap_get(&mp->forward, d)))
    d = next;
  return d;
}

/* The instance a call (def 'd' at instantiated type 'inst') needs. */
static MonoFunc *callee(Copier *c, Def *d, Type *inst) {
  d = current(c->mp, d);
  return mono_instance(c->mp, d, subst_apply(c->subst, inst));
}

/* A syntactic type for monomorphic value type 't' (an empty sequence's
   element type). */
static TypeExpr *type_expr_of(Loc loc, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_SEQ:
    return ast_type_seq(loc, type_expr_of(loc, t->elem));
  case T_PAIR:
    return ast_type_pair(loc, type_expr_of(loc, t->fst), type_expr_of(loc, t->snd));
  case T_INT:
    return ast_type_name(loc, "int");
  case T_FLOAT:
    return ast_type_name(loc, "float");
  case T_CHAR:
    return ast_type_name(loc, "char");
  default:
    return ast_type_name(loc, "bool");
  }
}

/* Some value of monomorphic value type 't', for an application that can
   never run (see the top of the file). */
static Expr *default_value(Loc loc, Type *t) {
  t = type_resolve(t);
  Expr *e;
  switch (t->kind) {
  case T_INT:
    e = ast_int(loc, 0);
    break;
  case T_FLOAT:
    e = ast_float(loc, 0.0);
    break;
  case T_CHAR:
    e = ast_char(loc, ' ');
    break;
  case T_SEQ:
    e = ast_expr(EX_EMPTY, loc);
    e->u.elem_type = type_expr_of(loc, t->elem);
    break;
  case T_PAIR:
    e = ast_pair(loc, default_value(loc, t->fst), default_value(loc, t->snd));
    break;
  default:
    e = ast_bool(loc, false);
    break;
  }
  e->type = t;
  return e;
}

/* fn(arg), where fn's value is a function: a direct call of the function
   that fn's type names.  An fn other than a variable is still evaluated
   first, for its run-time errors. */
static Expr *copy_application(Copier *c, Expr *e, Expr *n) {
  Expr *fn = e->u.app.fn;
  Type *ft = type_resolve(subst_apply(c->subst, fn->type));
  Type *id = ft->kind == T_FUN && ft->ident ? type_resolve(ft->ident) : NULL;
  Expr *arg = copy_expr(c, e->u.app.arg);
  Expr *call;
  if (!id || !id->def) {
    call = default_value(e->loc, n->type);
  } else {
    Def *d = current(c->mp, id->def);
    if (d->kind == DEF_CONSTRUCTOR) {
      /* a constructor is its fields */
      arg->type = n->type;
      call = arg;
    } else {
      call = ast_call(e->loc, d->name, arg);
      call->from_value = true;
      call->type = n->type;
      call->u.ref.def = d;
      call->callee = callee(c, d, fn->type);
      call->u.ref.name = call->callee->name;
      call->u.ref.inst = call->callee->type;
    }
  }
  if (fn->kind == EX_VAR)
    return call;
  Expr *let = ast_expr(EX_LET, e->loc);
  Binding *b = NEW(Binding);
  b->loc = fn->loc;
  b->pat = ast_pat_wild(fn->loc);
  b->pat->type = type_bool;
  b->value = copy_expr(c, fn);
  vec_push(&let->u.let.binds, b);
  let->u.let.body = call;
  let->type = n->type;
  return let;
}

/* A read of a top-level value that no statement of the program defines:
   the REPL's earlier inputs computed it (MonoExternals). */
static bool external_value(MonoProgram *mp, Expr *e) {
  Def *d = e->u.ref.def;
  return mp->externals && d && d->kind == DEF_VALUE && !d->library && !ptrmap_get(&mp->defined, d);
}

static Expr *copy_expr(Copier *c, Expr *e) {
  if (e->kind == EX_VAR && e->u.ref.def && e->u.ref.def->kind == DEF_VALUE) {
    /* a global, perhaps defined again since (mono_top): the definition
       that replaced it, a REPL's earlier one included */
    Def *d = current(c->mp, e->u.ref.def);
    if (d != e->u.ref.def) {
      Expr *r = NEW(Expr);
      *r = *e;
      r->u.ref.def = d;
      e = r;
    }
  }
  if (e->kind == EX_VAR && external_value(c->mp, e))
    return copy_expr(c, c->mp->externals->read(c->mp->externals->ctx, e));
  Expr *n = NEW(Expr);
  *n = *e;
  n->type = mono_of(c, e->type);
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
  case EX_STRING:
  case EX_EMPTY:
    break;
  case EX_VAR:
    if (e->u.ref.def && e->u.ref.def->kind != DEF_VALUE) {
      /* a function as a value: its type says which (see the top) */
      Expr *f = ast_bool(e->loc, false);
      f->type = type_bool;
      return f;
    }
    break;
  case EX_APP:
    return copy_application(c, e, n);
  case EX_CALL: {
    Def *d = current(c->mp, e->u.ref.def);
    n->u.ref.arg = copy_expr(c, e->u.ref.arg);
    if (d->kind == DEF_CONSTRUCTOR) {
      /* a constructor is its fields */
      n->u.ref.arg->type = n->type;
      return n->u.ref.arg;
    }
    n->callee = callee(c, d, e->u.ref.inst);
    n->u.ref.name = n->callee->name;
    n->u.ref.inst = n->callee->type;
    break;
  }
  case EX_BINOP:
  case EX_UNOP:
    n->u.op.lhs = copy_expr(c, e->u.op.lhs);
    if (e->kind == EX_BINOP)
      n->u.op.rhs = copy_expr(c, e->u.op.rhs);
    n->callee = callee(c, e->u.op.def, e->u.op.inst);
    n->u.op.inst = n->callee->type;
    break;
  case EX_PAIR:
    n->u.pair.fst = copy_expr(c, e->u.pair.fst);
    n->u.pair.snd = copy_expr(c, e->u.pair.snd);
    break;
  case EX_SEQ:
    n->u.elems = (Vec){0};
    for (int i = 0; i < e->u.elems.len; i++)
      vec_push(&n->u.elems, copy_expr(c, e->u.elems.data[i]));
    break;
  case EX_RANGE:
    n->u.range.start = copy_expr(c, e->u.range.start);
    n->u.range.end = copy_expr(c, e->u.range.end);
    if (e->u.range.stride)
      n->u.range.stride = copy_expr(c, e->u.range.stride);
    break;
  case EX_INDEX:
    n->u.index.seq = copy_expr(c, e->u.index.seq);
    n->u.index.index = copy_expr(c, e->u.index.index);
    break;
  case EX_IF:
    n->u.ifx.cond = copy_expr(c, e->u.ifx.cond);
    n->u.ifx.then = copy_expr(c, e->u.ifx.then);
    n->u.ifx.els = copy_expr(c, e->u.ifx.els);
    break;
  case EX_LET:
    n->u.let.binds = (Vec){0};
    for (int i = 0; i < e->u.let.binds.len; i++) {
      Binding *b = e->u.let.binds.data[i], *nb = NEW(Binding);
      *nb = *b;
      nb->value = copy_expr(c, b->value);
      nb->pat = copy_pattern(c, b->pat);
      vec_push(&n->u.let.binds, nb);
    }
    n->u.let.body = copy_expr(c, e->u.let.body);
    break;
  case EX_APPLY:
    n->u.apply.gens = (Vec){0};
    for (int i = 0; i < e->u.apply.gens.len; i++) {
      Generator *g = e->u.apply.gens.data[i], *ng = NEW(Generator);
      *ng = *g;
      ng->seq = copy_expr(c, g->seq);
      ng->pat = copy_pattern(c, g->pat);
      vec_push(&n->u.apply.gens, ng);
    }
    n->u.apply.body = copy_expr(c, e->u.apply.body);
    if (e->u.apply.filter)
      n->u.apply.filter = copy_expr(c, e->u.apply.filter);
    break;
  case EX_TIME:
    n->u.timed = copy_expr(c, e->u.timed);
    break;
  }
  return n;
}

/* ---- instances ---- */

MonoFunc *mono_instance(MonoProgram *mp, Def *def, Type *nesl_type) {
  /* the instances of one definition, by generation and type */
  Map *of_def = ptrmap_get(&mp->instances, def);
  if (!of_def) {
    of_def = NEW(Map);
    ptrmap_put(&mp->instances, def, of_def);
  }
  Buf key = {0};
  buf_printf(&key, "%d/", def->library ? 0 : mp->generation);
  type_key(&key, nesl_type);
  MonoFunc *f = map_get(of_def, buf_str(&key));
  if (f)
    return f;
  f = NEW(MonoFunc);
  f->def = def;
  f->nesl_type = nesl_type;
  f->type = mono_strip_datatypes(nesl_type);
  f->primitive = def->primitive;
  f->library = def->library;
  f->index = mp->funcs.len;
  /* the instances made so far of functions of this name: counted as they
     are made (a walk over all of them per instance was quadratic in a
     program of 20 000 functions) */
  int n = (int)(intptr_t)map_get(&mp->named, def->name);
  map_put(&mp->named, def->name, (void *)(intptr_t)(n + 1));
  f->name = n == 0 ? def->name : intern(xprintf("%s_%d", def->name, n + 1));
  /* a user's function called twice_2 beside twice's second instance:
     the later one takes the next free number, since the stages after
     this one know functions by name */
  for (int k = n + 2; map_get(&mp->taken, f->name); k++)
    f->name = intern(xprintf("%s_%d", def->name, k));
  map_put(&mp->taken, f->name, f);
  /* registered before its body is copied: recursion finds it */
  map_put(of_def, xstrdup(buf_str(&key)), f);
  vec_push(&mp->funcs, f);
  Subst s = {0};
  subst_match(&s, def->type, nesl_type);
  Copier c = {mp, &s, {0}, {0}};
  f->param = copy_pattern(&c, def->top->param);
  if (!f->primitive && !def->top->body)
    die("mono: an instance of '%s', which is only declared (the checker rejects a statement that needs one)",
        def->name);
  if (!f->primitive) {
    f->body = copy_expr(&c, def->top->body);
    bounds_mark_subscripts(f->body);
  }
  return f;
}

/* After a statement that defines 'd': the definition it replaces
   (tc_replaced_def) forwards to it. */
static void forward_redefinition(MonoProgram *mp, Def *d) {
  Def *old = tc_replaced_def(d);
  if (old) {
    ptrmap_put(&mp->forward, old, d);
    mp->generation++;
  }
}

static MonoTop *mono_top(MonoProgram *mp, TopLevel *top) {
  MonoTop *t = NEW(MonoTop);
  t->source = top;
  if (top->kind == TOP_FUNCTION || top->kind == TOP_DATATYPE) {
    forward_redefinition(mp, top->def);
    return t;
  }
  Copier c = {mp, NULL, {0}, {0}};
  t->body = copy_expr(&c, top->body);
  bounds_mark_subscripts(t->body);
  t->nesl_type = subst_apply(NULL, top->type);
  t->type = mono_strip_datatypes(t->nesl_type);
  if (top->kind == TOP_BIND) {
    t->pat = copy_pattern(&c, top->pat);
    /* after the body, which reads the old values: each variable defined
       again with an equivalent type replaces the old one in what later
       statements' instances read (a function reading a global reads its
       value when it runs, as in CMU NESL), whether the statement then
       succeeds or not (eval.c, forward_bound; `it` too) */
    for (int i = 0; i < top->bound.len; i++)
      forward_redefinition(mp, top->bound.data[i]);
  }
  return t;
}

MonoProgram *mono_program(TypeEnv *env, Program *prog) { return mono_program_ext(env, prog, NULL); }

MonoProgram *mono_program_ext(TypeEnv *env, Program *prog, const MonoExternals *externals) {
  MonoProgram *mp = NEW(MonoProgram);
  mp->env = env;
  mp->externals = externals;
  strip_env = env;
  for (int i = 0; i < prog->tops.len; i++) {
    TopLevel *top = prog->tops.data[i];
    for (int k = 0; top->kind == TOP_BIND && k < top->bound.len; k++)
      ptrmap_put(&mp->defined, top->bound.data[k], top);
  }
  Program *lib = tc_library_program(env);
  for (int i = 0; i < lib->tops.len; i++) {
    TopLevel *top = lib->tops.data[i];
    if (top->kind == TOP_BIND)
      vec_push(&mp->tops, mono_top(mp, top));
  }
  for (int i = 0; i < prog->tops.len; i++)
    vec_push(&mp->tops, mono_top(mp, prog->tops.data[i]));
  return mp;
}

/* ---- printing ---- */

void mono_print(FILE *out, const MonoProgram *mp) {
  for (int i = 0; i < mp->funcs.len; i++) {
    MonoFunc *f = mp->funcs.data[i];
    if (f->library && f->primitive)
      continue; /* primitives have no body to show */
    fprintf(out, "%% %s : %s%s %%\nfunction %s", f->def->name, type_fun_to_string(&(TypeNamer){0}, f->nesl_type),
            f->library ? " (library)" : "", f->name);
    if (f->param->kind == PAT_PAIR) {
      ast_print_pattern(out, f->param);
    } else {
      fputc('(', out);
      ast_print_pattern(out, f->param);
      fputc(')', out);
    }
    fputs(" = ", out);
    if (f->body)
      ast_print_expr(out, f->body);
    else
      fputs("__prim", out);
    fputs(";\n", out);
  }
  for (int i = 0; i < mp->tops.len; i++) {
    MonoTop *t = mp->tops.data[i];
    if (!t->body || t->source->library)
      continue;
    if (t->pat) {
      ast_print_pattern(out, t->pat);
      fputs(" = ", out);
    }
    ast_print_expr(out, t->body);
    fprintf(out, ";\n  %% : %s %%\n", type_value_to_string(t->type));
  }
}

/* ---- checking ---- */

static bool monomorphic(Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_VAR:
  case T_DATA:
    return false;
  case T_SEQ:
    return monomorphic(t->elem);
  case T_PAIR:
  case T_FUN:
    return monomorphic(t->fst) && monomorphic(t->snd);
  default:
    return true;
  }
}

typedef struct Checker {
  const char *after;
  bool ok;
} Checker;

static void check_fail(Checker *c, Loc loc, const char *what) {
  if (c->ok)
    diag_error(loc, "mono IR check failed after %s: %s", c->after, what);
  c->ok = false;
}

static void check_pattern(Checker *c, Pattern *p) {
  if (!p->type || !monomorphic(p->type))
    check_fail(c, p->loc, "a pattern's type is not monomorphic");
  if (p->kind == PAT_CON)
    check_fail(c, p->loc, "a constructor pattern is left");
  if (p->kind == PAT_PAIR) {
    check_pattern(c, p->fst);
    check_pattern(c, p->snd);
  }
}

static void check_bound(void *ctx, Pattern *p) { check_pattern(ctx, p); }

/* 'ctx' is the Checker: an ast_expr_children visitor, which recurses
   through itself. */
static void check_expr(void *ctx, Expr *e) {
  Checker *c = ctx;
  if (!e->type || !monomorphic(e->type))
    check_fail(c, e->loc, "an expression's type is not monomorphic");
  if (e->kind == EX_CALL && !e->callee)
    check_fail(c, e->loc, "a call has no instance");
  if ((e->kind == EX_BINOP || e->kind == EX_UNOP) && !e->callee)
    check_fail(c, e->loc, "an operator has no instance");
  ast_expr_children(e, check_expr, check_bound, c);
}

bool mono_check(const MonoProgram *mp, const char *after) {
  Checker c = {after, true};
  for (int i = 0; i < mp->funcs.len && c.ok; i++) {
    MonoFunc *f = mp->funcs.data[i];
    if (!monomorphic(f->type))
      check_fail(&c, f->def->loc, xprintf("the instance %s has a polymorphic type", f->name));
    check_pattern(&c, f->param);
    if (f->body)
      check_expr(&c, f->body);
    else if (!f->primitive)
      check_fail(&c, f->def->loc, xprintf("the instance %s has no body", f->name));
  }
  for (int i = 0; i < mp->tops.len && c.ok; i++) {
    MonoTop *t = mp->tops.data[i];
    if (t->body)
      check_expr(&c, t->body);
    if (t->pat)
      check_pattern(&c, t->pat);
  }
  return c.ok;
}
