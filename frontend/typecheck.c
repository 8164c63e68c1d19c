/*
 * typecheck.c: Hindley–Milner type inference for NESL, with NESL's type
 * classes (types.h) and let-polymorphism for top-level functions.
 *
 * The program is checked one top-level statement at a time, in order, as
 * the NESL REPL does: a statement sees only the definitions before it.  A
 * function's own name is monomorphic inside its body (recursion is
 * monomorphic); after the body is checked, the variables that did not
 * escape are generalized.  A signature is checked by giving its type
 * variables to the body as rigid variables, which bind to nothing: so the
 * body must be at least as general as the signature says, and the
 * function then has the signature's type (which may be less general).
 *
 * An error stops the statement it is in (longjmp through diag) and the
 * next statement is checked.  Definitions whose statement failed are
 * marked broken, and their uses stop the using statement silently, so
 * that one mistake gives one message.
 */
#include <string.h>

#include "typecheck.h"

/* A local variable: parameters, let and generator bindings. */
typedef struct Local {
  const char *name;
  Type *type;
  struct Local *next;
} Local;

struct TypeEnv {
  Map globals;     /* name -> Def *, newest definition */
  Map datatypes;   /* type name -> Def * of its constructor */
  bool library;    /* checking lib-nesl */
  int level;       /* 0 at top level, 1 inside a function body */
  Local *locals;
  Def *current;    /* the definition being checked, marked broken on error */
  Program *library_program; /* lib-nesl, checked */
  int datatype_count;       /* numbers datatype definitions */
  bool report_broken;       /* the REPL: a use of a broken definition is
                               an error with a message (tc_set_report_broken) */
};

/* ---- errors ---- */

_Noreturn static void type_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void type_error(Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
  diag_abort();
}

/* The expression as the user wrote it, shortened for a message. */
static const char *quote(const Expr *e) {
  char *s = ast_expr_to_string(e);
  if (strlen(s) > 70)
    strcpy(s + 60, " ...");
  return s;
}

/* Prints 't' with 'nm', followed by the context of the variables that
   this type named first. */
static char *show(TypeNamer *nm, Type *t, bool as_argument) {
  int first = nm->vars.len;
  char *s = as_argument ? type_fun_to_string(nm, t) : type_to_string(nm, t);
  if (nm->vars.len == first)
    return s;
  Buf b = {0};
  buf_printf(&b, "%s :: (", s);
  for (int i = first; i < nm->vars.len; i++) {
    Type *v = nm->vars.data[i];
    const char *cls = class_name(v->klass);
    if (i > first)
      buf_puts(&b, "; ");
    buf_printf(&b, "%s in %s", type_to_string(nm, v), cls ? cls : "any");
  }
  buf_putc(&b, ')');
  return buf_str(&b);
}

static char *show1(Type *t) {
  TypeNamer nm = {0};
  return show(&nm, t, false);
}

/* ---- environment ---- */

Def *tc_lookup(TypeEnv *env, const char *name) { return map_get(&env->globals, name); }

static Def *new_def(TypeEnv *env, DefKind kind, const char *name, Loc loc, TopLevel *top) {
  Def *d = NEW(Def);
  d->kind = kind;
  d->name = name;
  d->loc = loc;
  d->top = top;
  d->library = env->library;
  d->prev = tc_lookup(env, name);
  d->version = d->prev ? d->prev->version + 1 : 1;
  return d;
}

static void define(TypeEnv *env, Def *d) { map_put(&env->globals, d->name, d); }

static Type *lookup_local(TypeEnv *env, const char *name) {
  for (Local *l = env->locals; l; l = l->next)
    if (strcmp(l->name, name) == 0)
      return l->type;
  return NULL;
}

static void bind_local(TypeEnv *env, const char *name, Type *t) {
  Local *l = NEW(Local);
  l->name = name;
  l->type = t;
  l->next = env->locals;
  env->locals = l;
}

static Type *fresh(TypeEnv *env) { return type_var(CLASS_ANY, env->level); }

/* A use at 'loc' of a definition whose own statement failed: stop the
   statement, silently in a file (its error was reported just before),
   with a message in the REPL, where it may have scrolled away. */
static void check_not_broken(TypeEnv *env, Def *d, Loc loc) {
  if (!d->broken)
    return;
  if (!env->report_broken)
    diag_abort();
  if (d->kind == DEF_VALUE)
    diag_error(loc, "'%s' has no value: its definition did not compile", d->name);
  else
    diag_error(loc, "'%s' cannot be used: its definition did not compile", d->name);
  diag_note(d->loc, "'%s' was defined here", d->name);
  diag_abort();
}

/* ---- syntactic types ---- */

/* Type variables of a signature or datatype, by name. */
typedef struct TypeVars {
  Vec names; /* const char * */
  Vec vars;  /* Type * */
  const Vec *context; /* ContextItem *, may be NULL */
  bool allow_new;     /* may unknown names become variables? */
  bool rigid;
  int level;
} TypeVars;

static int context_class(const TypeVars *tv, const char *name) {
  if (tv->context)
    for (int i = 0; i < tv->context->len; i++) {
      const ContextItem *c = tv->context->data[i];
      if (strcmp(c->var, name) == 0)
        return class_from_name(c->klass);
    }
  return CLASS_ANY;
}

static Type *convert_type(TypeEnv *env, const TypeExpr *tx, TypeVars *tv) {
  switch (tx->kind) {
  case TX_SEQ:
    return type_seq(convert_type(env, tx->elem, tv));
  case TX_PAIR: {
    Type *a = convert_type(env, tx->fst, tv);
    return type_pair(a, convert_type(env, tx->snd, tv));
  }
  case TX_NAME:
    break;
  }
  const char *n = tx->name;
  static const struct { const char *name; Type **type; } bases[] = {
      {"int", &type_int}, {"float", &type_float}, {"bool", &type_bool}, {"char", &type_char}};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
    if (strcmp(n, bases[i].name) == 0) {
      if (tx->args.len)
        type_error(tx->loc, "the type %s takes no arguments", n);
      return *bases[i].type;
    }
  Def *dt = map_get(&env->datatypes, n);
  if (dt) {
    check_not_broken(env, dt, tx->loc);
    if (tx->args.len != dt->params.len)
      type_error(tx->loc, "the datatype %s takes %d type argument%s, not %d", n, dt->params.len,
                 dt->params.len == 1 ? "" : "s", tx->args.len);
    Vec args = {0};
    for (int i = 0; i < tx->args.len; i++)
      vec_push(&args, convert_type(env, tx->args.data[i], tv));
    return type_data(n, dt->data_id, args);
  }
  if (tx->args.len)
    type_error(tx->loc, "unknown datatype '%s'", n);
  for (int i = 0; i < tv->names.len; i++)
    if (strcmp(tv->names.data[i], n) == 0)
      return tv->vars.data[i];
  if (!tv->allow_new)
    type_error(tx->loc, "unknown type '%s'", n);
  Type *v = type_var(context_class(tv, n), tv->level);
  v->rigid = tv->rigid;
  vec_push(&tv->names, (void *)n);
  vec_push(&tv->vars, v);
  return v;
}

/* Every variable of a context must appear in the type it qualifies. */
static void check_context(const Vec *context, const TypeVars *tv) {
  for (int i = 0; i < context->len; i++) {
    const ContextItem *c = context->data[i];
    bool found = false;
    for (int j = 0; j < tv->names.len; j++)
      found |= strcmp(tv->names.data[j], c->var) == 0;
    if (!found)
      type_error(c->loc, "the context names '%s', which does not appear in the type", c->var);
  }
}

/* ---- patterns ---- */

static void check_pattern(TypeEnv *env, Pattern *p, Type *t, Vec *bound);

static void pattern_mismatch(Pattern *p, Type *expected, Type *actual) {
  TypeNamer nm = {0};
  char *want = show(&nm, expected, false);
  char *got = show(&nm, actual, false);
  type_error(p->loc, "this pattern matches values of type %s, but here it must match %s", got, want);
}

/* The number of items of a tuple type, counting along the right spine as
   far as it is known. */
static int tuple_width(Type *t) {
  int n = 1;
  for (t = type_resolve(t); t->kind == T_PAIR; t = type_resolve(t->snd))
    n++;
  return n;
}

static int pattern_width(const Pattern *p) {
  int n = 1;
  for (; p->kind == PAT_PAIR; p = p->snd)
    n++;
  return n;
}

/* Checks that 'p' matches values of type 't' and binds its variables as
   locals.  'bound' collects the names, to reject a name bound twice. */
static void check_pattern(TypeEnv *env, Pattern *p, Type *t, Vec *bound) {
  p->type = t;
  switch (p->kind) {
  case PAT_WILD:
    return;
  case PAT_VAR:
    for (int i = 0; i < bound->len; i++)
      if (strcmp(bound->data[i], p->name) == 0)
        type_error(p->loc, "'%s' is bound twice in one pattern", p->name);
    vec_push(bound, (void *)p->name);
    bind_local(env, p->name, t);
    return;
  case PAT_PAIR: {
    Type *pair = type_pair(fresh(env), fresh(env));
    if (!type_unify(pair, t))
      type_error(p->loc, "a tuple pattern cannot match a value of type %s", show1(t));
    check_pattern(env, p->fst, pair->fst, bound);
    check_pattern(env, p->snd, pair->snd, bound);
    return;
  }
  case PAT_CON: {
    Def *d = tc_lookup(env, p->name);
    if (!d || d->kind != DEF_CONSTRUCTOR)
      type_error(p->loc, "'%s' is not a datatype constructor, so it cannot be used in a pattern", p->name);
    check_not_broken(env, d, p->loc);
    p->def = d;
    Type *ft = type_instantiate(d->type, env->level);
    if (!type_unify(ft->snd, t))
      pattern_mismatch(p, t, ft->snd);
    int want = tuple_width(ft->fst), got = pattern_width(p->arg);
    if (got > want)
      type_error(p->loc, "the constructor %s has %d field%s (%s), but this pattern has %d", p->name, want,
                 want == 1 ? "" : "s", show1(ft->fst), got);
    check_pattern(env, p->arg, ft->fst, bound);
    return;
  }
  }
}

/* ---- expressions ---- */

static Type *check_expr(TypeEnv *env, Expr *e);

/* Applies the function 'd' to the argument 'arg' at expression 'e';
   'shown' names the function in messages ("add2", "operator +"). */
static Type *apply(TypeEnv *env, Expr *e, Def *d, Expr *arg, Type *arg_type, const char *shown,
                   Type **inst) {
  check_not_broken(env, d, e->loc);
  Type *ft = type_instantiate(d->type, env->level);
  if (!type_unify(ft->fst, arg_type)) {
    TypeNamer nm = {0};
    char *want = show(&nm, d->type->fst, true);
    char *got = show(&nm, arg_type, false);
    if (e->kind == EX_BINOP)
      type_error(e->loc, "type error in '%s': the operands of %s have types %s, but %s takes %s",
                 quote(e), shown, got, shown, want);
    type_error(arg ? arg->loc : e->loc, "type error in '%s': the argument of %s has type %s, but %s takes %s",
               quote(e), shown, got, shown, want);
  }
  *inst = ft;
  return ft->snd;
}

static Def *library_operator(TypeEnv *env, const char *libname) {
  Def *d = tc_lookup(env, libname);
  if (!d)
    die("the basis library does not define %s", libname);
  return d;
}

static Type *check_call(TypeEnv *env, Expr *e) {
  const char *name = e->u.ref.name;
  if (lookup_local(env, name))
    type_error(e->loc, "'%s' is a variable, not a function, so it cannot be called", name);
  Def *d = tc_lookup(env, name);
  if (!d)
    type_error(e->loc, "'%s' is undefined", name);
  check_not_broken(env, d, e->loc);
  if (d->kind == DEF_VALUE)
    type_error(e->loc, "'%s' is a value, not a function, so it cannot be called", name);
  Type *at = check_expr(env, e->u.ref.arg);
  e->u.ref.def = d;
  return apply(env, e, d, e->u.ref.arg, at, name, &e->u.ref.inst);
}

static Type *check_var(TypeEnv *env, Expr *e) {
  const char *name = e->u.ref.name;
  if (strcmp(name, "_") == 0)
    type_error(e->loc, "'_' may only appear in a pattern");
  if (env->library && strcmp(name, "__prim") == 0)
    type_error(e->loc, "__prim may only be the whole body of a library function with a signature");
  Type *t = lookup_local(env, name);
  if (t)
    return t;
  Def *d = tc_lookup(env, name);
  if (!d)
    type_error(e->loc, "'%s' is undefined", name);
  check_not_broken(env, d, e->loc);
  if (d->kind != DEF_VALUE)
    type_error(e->loc, "'%s' is a %s, not a value; NESL functions are not values (call it: %s(...))", name,
               d->kind == DEF_FUNCTION ? "function" : "datatype constructor", name);
  e->u.ref.def = d;
  return type_instantiate(d->type, env->level);
}

static void expect(TypeEnv *env, Expr *e, Type *want, const char *what) {
  Type *t = check_expr(env, e);
  if (!type_unify(t, want))
    type_error(e->loc, "%s must be %s, but '%s' has type %s", what, show1(want), quote(e), show1(t));
}

static Type *check_apply(TypeEnv *env, Expr *e) {
  Local *saved = env->locals;
  Vec elems = {0};
  /* all generators' sequences are evaluated outside the apply-to-each */
  for (int i = 0; i < e->u.apply.gens.len; i++) {
    Generator *g = e->u.apply.gens.data[i];
    Type *st = check_expr(env, g->seq);
    Type *elem = fresh(env);
    if (!type_unify(st, type_seq(elem)))
      type_error(g->seq->loc, "in the generator '%s in %s' the right-hand side must be a sequence, but it has type %s",
                 g->bare ? g->pat->name : "...", quote(g->seq), show1(st));
    vec_push(&elems, elem);
  }
  Vec bound = {0};
  for (int i = 0; i < e->u.apply.gens.len; i++) {
    Generator *g = e->u.apply.gens.data[i];
    check_pattern(env, g->pat, elems.data[i], &bound);
  }
  if (e->u.apply.filter)
    expect(env, e->u.apply.filter, type_bool, "the condition after '|'");
  Type *body = check_expr(env, e->u.apply.body);
  env->locals = saved;
  return type_seq(body);
}

static Type *check_let(TypeEnv *env, Expr *e) {
  Local *saved = env->locals;
  for (int i = 0; i < e->u.let.binds.len; i++) {
    Binding *b = e->u.let.binds.data[i];
    Type *t = check_expr(env, b->value);
    Vec bound = {0};
    check_pattern(env, b->pat, t, &bound);
  }
  Type *t = check_expr(env, e->u.let.body);
  env->locals = saved;
  return t;
}

static Type *check_expr_inner(TypeEnv *env, Expr *e) {
  switch (e->kind) {
  case EX_INT:
    return type_int;
  case EX_FLOAT:
    return type_float;
  case EX_BOOL:
    return type_bool;
  case EX_CHAR:
    return type_char;
  case EX_STRING:
    return type_seq(type_char);
  case EX_VAR:
    return check_var(env, e);
  case EX_CALL:
    return check_call(env, e);
  case EX_BINOP: {
    BinOp op = (BinOp)e->u.op.op;
    Def *d = library_operator(env, binop_libname(op));
    Type *a = check_expr(env, e->u.op.lhs);
    Type *b = check_expr(env, e->u.op.rhs);
    e->u.op.def = d;
    return apply(env, e, d, NULL, type_pair(a, b), xprintf("%s", binop_text(op)), &e->u.op.inst);
  }
  case EX_UNOP: {
    UnOp op = (UnOp)e->u.op.op;
    Def *d = library_operator(env, unop_libname(op));
    Type *a = check_expr(env, e->u.op.lhs);
    e->u.op.def = d;
    return apply(env, e, d, e->u.op.lhs, a, xprintf("prefix %s", unop_text(op)), &e->u.op.inst);
  }
  case EX_PAIR: {
    Type *a = check_expr(env, e->u.pair.fst);
    return type_pair(a, check_expr(env, e->u.pair.snd));
  }
  case EX_SEQ: {
    Type *t = check_expr(env, e->u.elems.data[0]);
    for (int i = 1; i < e->u.elems.len; i++) {
      Expr *x = e->u.elems.data[i];
      Type *u = check_expr(env, x);
      if (!type_unify(t, u)) {
        TypeNamer nm = {0};
        char *first = show(&nm, t, false);
        type_error(x->loc, "the elements of a sequence must have one type, but element %d ('%s') has type %s "
                   "and the elements before it %s", i + 1, quote(x), show(&nm, u, false), first);
      }
    }
    return type_seq(t);
  }
  case EX_EMPTY: {
    TypeVars tv = {.allow_new = false};
    return type_seq(convert_type(env, e->u.elem_type, &tv));
  }
  case EX_RANGE:
    expect(env, e->u.range.start, type_int, "the start of a range");
    expect(env, e->u.range.end, type_int, "the end of a range");
    if (e->u.range.stride)
      expect(env, e->u.range.stride, type_int, "the stride of a range");
    return type_seq(type_int);
  case EX_INDEX: {
    Type *st = check_expr(env, e->u.index.seq);
    Type *elem = fresh(env);
    if (!type_unify(st, type_seq(elem)))
      type_error(e->loc, "only a sequence can be subscripted, but '%s' has type %s", quote(e->u.index.seq),
                 show1(st));
    expect(env, e->u.index.index, type_int, "a subscript");
    return elem;
  }
  case EX_IF: {
    Type *c = check_expr(env, e->u.ifx.cond);
    if (!type_unify(c, type_bool))
      type_error(e->u.ifx.cond->loc, "the condition of an if must be bool, but '%s' has type %s",
                 quote(e->u.ifx.cond), show1(c));
    Type *a = check_expr(env, e->u.ifx.then);
    Type *b = check_expr(env, e->u.ifx.els);
    if (!type_unify(a, b)) {
      TypeNamer nm = {0};
      char *ta = show(&nm, a, false);
      type_error(e->loc, "the two branches of an if must have one type, but the then branch has type %s "
                 "and the else branch %s", ta, show(&nm, b, false));
    }
    return a;
  }
  case EX_LET:
    return check_let(env, e);
  case EX_APPLY:
    return check_apply(env, e);
  case EX_TIME:
    return type_pair(check_expr(env, e->u.timed), type_float);
  }
  unreachable();
}

static Type *check_expr(TypeEnv *env, Expr *e) {
  e->type = check_expr_inner(env, e);
  return e->type;
}

/* ---- top level ---- */

/* function f(p) [: sig] = body */
static void check_function(TypeEnv *env, TopLevel *top) {
  Def *d = new_def(env, DEF_FUNCTION, top->name, top->loc, top);
  d->primitive = top->is_primitive;
  env->current = d;
  top->def = d;
  d->type = type_fun(type_var(CLASS_ANY, 1), type_var(CLASS_ANY, 1));
  define(env, d); /* first: if the definition fails, uses are silent */
  if (d->primitive && !env->library)
    type_error(top->loc, "__prim bodies are only allowed in the basis library");
  if (d->primitive && !top->sig)
    type_error(top->loc, "a primitive needs a signature");
  env->level = 1;
  Type *arg, *result;
  if (top->sig) {
    TypeVars tv = {.context = &top->sig->context, .allow_new = true, .rigid = true, .level = 1};
    arg = convert_type(env, top->sig->arg, &tv);
    result = convert_type(env, top->sig->result, &tv);
    check_context(&top->sig->context, &tv);
  } else {
    arg = fresh(env);
    result = fresh(env);
  }
  d->type = type_fun(arg, result); /* its own body sees it: recursion */
  env->locals = NULL;
  Vec bound = {0};
  check_pattern(env, top->param, arg, &bound);
  if (!d->primitive) {
    Type *body = check_expr(env, top->body);
    if (!type_unify(body, result)) {
      TypeNamer nm = {0};
      char *got = show(&nm, body, false);
      char *want = show(&nm, result, false);
      if (top->sig)
        type_error(top->body->loc, "the body of '%s' has type %s, but its signature says the result is %s",
                   top->name, got, want);
      type_error(top->body->loc, "the body of '%s' has type %s, but a recursive call uses its result as %s",
                 top->name, got, want);
    }
  }
  env->locals = NULL;
  env->level = 0;
  type_generalize(d->type, 0);
}

/* Collects, in order of appearance, the names in 'tx' that will be type
   variables: not base types, not datatypes (other than 'self', which is
   being defined), without arguments. */
static void collect_params(TypeEnv *env, const TypeExpr *tx, const char *self, TypeVars *tv) {
  switch (tx->kind) {
  case TX_SEQ:
    collect_params(env, tx->elem, self, tv);
    return;
  case TX_PAIR:
    collect_params(env, tx->fst, self, tv);
    collect_params(env, tx->snd, self, tv);
    return;
  case TX_NAME:
    break;
  }
  for (int i = 0; i < tx->args.len; i++)
    collect_params(env, tx->args.data[i], self, tv);
  static const char *bases[] = {"int", "float", "bool", "char"};
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
    if (strcmp(tx->name, bases[i]) == 0)
      return;
  if (tx->args.len || strcmp(tx->name, self) == 0 || map_get(&env->datatypes, tx->name))
    return;
  for (int i = 0; i < tv->names.len; i++)
    if (strcmp(tv->names.data[i], tx->name) == 0)
      return;
  vec_push(&tv->names, (void *)tx->name);
  vec_push(&tv->vars, type_var(context_class(tv, tx->name), tv->level));
}

/* datatype name(fields) [:: context]: the constructor `name` takes the
   fields and returns name(a, b, ...), its parameters being the type
   variables of the fields in order of appearance. */
static void check_datatype(TypeEnv *env, TopLevel *top) {
  Def *d = new_def(env, DEF_CONSTRUCTOR, top->name, top->loc, top);
  env->current = d;
  top->def = d;
  d->type = type_fun(type_var(CLASS_ANY, 1), type_var(CLASS_ANY, 1));
  define(env, d); /* first: if the definition fails, uses are silent */
  static const char *reserved[] = {"int", "float", "bool", "char"};
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (strcmp(top->name, reserved[i]) == 0)
      type_error(top->loc, "'%s' is a base type and cannot be redefined", top->name);
  TypeVars tv = {.context = &top->context, .allow_new = false, .level = 1};
  collect_params(env, top->fields, top->name, &tv);
  d->params = tv.vars;
  /* registered before its fields are converted: a datatype may contain
     itself, e.g. in a sequence */
  d->data_id = ++env->datatype_count;
  d->type = type_fun(type_var(CLASS_ANY, 1), type_data(top->name, d->data_id, tv.vars));
  map_put(&env->datatypes, top->name, d);
  Type *fields = convert_type(env, top->fields, &tv);
  check_context(&top->context, &tv);
  d->type = type_fun(fields, type_data(top->name, d->data_id, tv.vars));
  type_generalize(d->type, 0);
}

/* Makes a global value definition of every variable of 'p', with the
   types the pattern check gave them. */
static void define_pattern_values(TypeEnv *env, Pattern *p, TopLevel *top, bool broken) {
  switch (p->kind) {
  case PAT_WILD:
    return;
  case PAT_VAR: {
    Def *d = new_def(env, DEF_VALUE, p->name, p->loc, top);
    d->type = p->type ? p->type : type_var(CLASS_ANY, 0);
    d->broken = broken;
    if (!broken)
      type_generalize(d->type, 0);
    define(env, d);
    vec_push(&top->bound, d);
    return;
  }
  case PAT_PAIR:
    define_pattern_values(env, p->fst, top, broken);
    define_pattern_values(env, p->snd, top, broken);
    return;
  case PAT_CON:
    define_pattern_values(env, p->arg, top, broken);
    return;
  }
}

/* pat = exp at top level */
static void check_bind(TypeEnv *env, TopLevel *top) {
  env->current = NULL;
  Type *t = check_expr(env, top->body);
  Vec bound = {0};
  env->locals = NULL;
  check_pattern(env, top->pat, t, &bound);
  env->locals = NULL;
  top->type = t;
  define_pattern_values(env, top->pat, top, false);
}

static void reset(TypeEnv *env) {
  env->locals = NULL;
  env->level = 0;
  env->current = NULL;
}

bool tc_check_top(TypeEnv *env, TopLevel *top) {
  jmp_buf jb;
  reset(env);
  if (setjmp(jb)) {
    /* an error was reported (or a broken definition was used) */
    if (env->current)
      env->current->broken = true;
    else if (top->kind == TOP_BIND)
      define_pattern_values(env, top->pat, top, true);
    reset(env);
    return false;
  }
  diag_push_handler(&jb);
  switch (top->kind) {
  case TOP_FUNCTION:
    check_function(env, top);
    break;
  case TOP_DATATYPE:
    check_datatype(env, top);
    break;
  case TOP_BIND:
    check_bind(env, top);
    break;
  case TOP_EXPR:
    top->type = check_expr(env, top->body);
    break;
  }
  diag_pop_handler();
  reset(env);
  return true;
}

int tc_check_program(TypeEnv *env, Program *prog) {
  int errors = 0;
  for (int i = 0; i < prog->tops.len; i++) {
    if (diag_stopped())
      return errors + prog->tops.len - i; /* too many errors: the rest unchecked */
    if (!tc_check_top(env, prog->tops.data[i]))
      errors++;
  }
  return errors;
}

void tc_set_report_broken(TypeEnv *env, bool on) { env->report_broken = on; }

void tc_forget(TypeEnv *env, Def *d) {
  if (tc_lookup(env, d->name) == d)
    map_put(&env->globals, d->name, d->prev);
}

Program *tc_library_program(TypeEnv *env) { return env->library_program; }
void tc_set_library_program(TypeEnv *env, Program *prog) { env->library_program = prog; }

TypeEnv *tc_new_env(void) {
  TypeEnv *env = NEW(TypeEnv);
  tc_load_library(env);
  return env;
}

void tc_set_library_mode(TypeEnv *env, bool on) { env->library = on; }

char *tc_def_signature_line(Def *def) {
  return xprintf("%s = fn : %s", def->name, type_scheme_to_string(def->type));
}
