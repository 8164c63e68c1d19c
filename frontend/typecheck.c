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
 * Higher-order functions (types.h): a top-level function's name is a value
 * whose function type carries the function's identity, and a variable of
 * function type (a parameter, say) can be called: `f(x)` or `f x` on a
 * local `f` becomes EX_APP.  Identities unify like types, so a function
 * value is always one function known when compiling.
 *
 * A function may be called before its statement by the function being
 * checked (mutual recursion without a declaration): when a name is
 * undefined inside a function body and a later statement defines a
 * function of that name, that function is declared now (from its
 * signature if it has one; otherwise it joins a group checked together
 * with the current function, as one recursive binding group, and
 * generalized with it).  A declaration without a body (`function f(x) :
 * int -> int;`) gives the type; a later definition without a signature
 * takes the declaration's, so that it replaces the declaration for every
 * caller.  A statement that would run a declared function before its
 * definition is an error.  (`nessie --library` reads a declaration that
 * follows a definition as an instance to export instead: check_instance.)
 *
 * An error stops the statement it is in (longjmp through diag) and the
 * next statement is checked.  Definitions whose statement failed are
 * marked broken, and their uses stop the using statement silently, so
 * that one mistake gives one message.
 */
#include <ctype.h>
#include <stdlib.h>
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
  Program *program; /* the program of the statement being checked, for
                       calls of functions that later statements define */
  int index;        /* that statement's place in it */
  Vec group;        /* Def *: functions checked with the current one,
                       which calls them before their statements */
  int group_next;   /* the first of 'group' not checked yet */
  int searches;     /* numbers the searches for declared functions run
                       before their definitions (Def.visited) */
  bool report_broken;       /* the REPL: a use of a broken definition is
                               an error with a message (tc_set_report_broken) */
  bool instances;           /* `nessie --library`: a declaration after a
                               definition names an instance (tc_set_instances) */
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

/* ---- quoting the source ---- */

/* Moves '*first' to the place of 'e' if it comes earlier, and looks
   under 'e' (ast_expr_children's callback). */
static void find_leftmost(void *ctx, Expr *e) {
  Loc *first = ctx;
  if (e->loc.src == first->src && e->loc.line > 0 &&
      (e->loc.line < first->line || (e->loc.line == first->line && e->loc.col < first->col)))
    *first = e->loc;
  ast_expr_children(e, find_leftmost, NULL, ctx);
}

static bool blank_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The end of the source text from 'p' (before 'end') that reads as
   'printed', letters' case and blanks aside; NULL where it does not. */
static const char *match_printed(const char *p, const char *end, const char *printed) {
  for (const char *q = printed; *q; q++) {
    if (*q == ' ')
      continue;
    while (p < end && blank_char(*p))
      p++;
    if (p == end || tolower((unsigned char)*p) != tolower((unsigned char)*q))
      return NULL;
    p++;
  }
  return p;
}

/* 'e' as the source spells it: the text from the leftmost place of 'e'
   (or an opening parenthesis or two before it) that reads as 'printed',
   its printed form, letters' case and blanks aside, with each run of
   blanks and line breaks shown as one space.  An operator's place is its
   operator's, and names are lowercased in the AST, so the printed form
   alone would say '1 + t' for `1 + T`.  NULL where the text and the
   printed form differ otherwise (a comment inside, a float written
   1.50, parentheses the printer drops): the printed form is quoted then. */
static const char *as_written(const Expr *e, const char *printed) {
  Loc first = e->loc;
  if (!first.src || first.line <= 0 || !first.src->text)
    return NULL;
  find_leftmost(&first, (Expr *)e);
  const char *text = first.src->text, *end = text + first.src->len;
  const char *start = source_line(first.src, first.line) + (first.col > 0 ? first.col - 1 : 0);
  for (int parens = 0; start < end && parens <= 2; parens++) {
    const char *stop = match_printed(start, end, printed);
    if (stop) {
      Buf b = {0};
      for (const char *p = start; p < stop; p++) {
        if (blank_char(*p)) {
          while (p + 1 < stop && blank_char(p[1]))
            p++;
          buf_putc(&b, ' ');
        } else {
          buf_putc(&b, *p);
        }
      }
      return buf_str(&b);
    }
    /* `(1 + T) * 2`: the leftmost place is the 1 */
    const char *p = start;
    while (p > text && blank_char(p[-1]))
      p--;
    if (p == text || p[-1] != '(')
      return NULL;
    start = p - 1;
  }
  return NULL;
}

/* The expression as the user wrote it, shortened for a message. */
static const char *quote(const Expr *e) {
  char *printed = ast_expr_to_string(e);
  const char *written = as_written(e, printed);
  char *s = written ? xstrdup(written) : printed;
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

Def *tc_current(Def *d) {
  while (d->replaced_by)
    d = d->replaced_by;
  return d;
}

const char *tc_doc(TypeEnv *env, const char *name) {
  Def *d = tc_lookup(env, intern(name));
  if (!d || d->kind != DEF_FUNCTION || !d->top)
    return NULL;
  /* a definition that repeats a declaration without its documentation
     keeps the declaration's */
  for (Def *x = d; x && x->kind == DEF_FUNCTION && x->top; x = x->prev)
    if (x->top->doc)
      return x->top->doc;
  return "";
}

char *tc_describe(TypeEnv *env, const char *name) {
  while (*name == ' ' || *name == '\t')
    name++;
  size_t n = strcspn(name, " \t;");
  char *key = xstrndup(name, n);
  for (char *q = key; *q; q++)
    *q = (char)tolower((unsigned char)*q);
  const char *doc = tc_doc(env, key);
  if (!doc)
    return NULL;
  return xprintf("%s\n%s\n", tc_def_signature_line(tc_lookup(env, intern(key))),
                 *doc ? doc : "(no documentation string)");
}

/* The names of the basis library that a program may define again, as
   CMU NESL 3.1 lets it (asked of it, `function NAME(x) = x;` for each
   name): every other library name is built in there ("NAME is built in,
   it cannot be redefined"), as a function, a datatype or a top-level
   variable alike, though a local variable may still take it.  Sorted,
   for bsearch. */
static const char *const redefinable[] = {
    "all",   "any",       "bottop",   "cond_put",  "count",   "drop",    "elt",     "enumerate",
    "exp_string", "hash", "head_rest", "index",    "interleave", "iseq", "join",    "ln",
    "max_index", "max_int", "max_val", "min_index", "min_int", "min_val", "mod",    "partition",
    "permute", "put",     "rand",     "rem",       "rest_tail", "rotate", "split",  "sqrt",
    "subseq", "sum",      "take",     "transpose", "unpack",  "zip",
};

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is 'prev', the definition a program's new one of the same name would
   shadow, one of the library's built-in names? */
static bool built_in(const Def *prev) {
  return prev && prev->library &&
         !bsearch(&prev->name, redefinable, sizeof redefinable / sizeof *redefinable, sizeof *redefinable,
                  compare_names);
}

/* A program's statement may not define a built-in name (a top-level
   variable of its pattern included). */
static void check_not_built_in(TypeEnv *env, const char *name, Loc loc) {
  if (!env->library && built_in(tc_lookup(env, name)))
    type_error(loc, "'%s' is built in: it cannot be defined again", name);
}

static void check_pattern_not_built_in(TypeEnv *env, const Pattern *p) {
  switch (p->kind) {
  case PAT_WILD:
    return;
  case PAT_VAR:
    check_not_built_in(env, p->name, p->loc);
    return;
  case PAT_PAIR:
    check_pattern_not_built_in(env, p->fst);
    check_pattern_not_built_in(env, p->snd);
    return;
  case PAT_CON:
    check_pattern_not_built_in(env, p->arg);
    return;
  }
}

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
  bool no_functions;  /* a datatype's fields */
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
  case TX_FUN: {
    if (tv->no_functions)
      type_error(tx->loc, "a datatype's fields cannot be functions");
    Type *a = convert_type(env, tx->fst, tv);
    Type *r = convert_type(env, tx->snd, tv);
    /* which function it is, is not written: a flexible variable, which
       the body may fix (`: int -> (int -> int) = inc`) or leave general */
    return type_fun_id(a, r, type_var(CLASS_IDENT, tv->level));
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
    /* more components than a tuple of known length: say so whole */
    Type *end = type_resolve(t);
    while (end->kind == T_PAIR)
      end = type_resolve(end->snd);
    if (end->kind != T_VAR && pattern_width(p) > tuple_width(t))
      type_error(p->loc, "the pattern '%s' has %d components, but the value it matches, of type %s, has %d",
                 ast_pattern_to_string(p), pattern_width(p), show1(t), tuple_width(t));
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

/* When 'a' and 'b' differ only in which functions they hold: the message
   for that, where 'what' names the two places ("the then branch and the
   else branch hold"); otherwise nothing. */
static void explain_identity(Loc loc, Type *a, Type *b, const char *what) {
  const char *fa, *fb;
  if (!type_identity_conflict(a, b, &fa, &fb))
    return;
  const char *which = fa && fb ? xprintf(" (%s and %s)", fa, fb) : "";
  type_error(loc, "%s two different functions%s: which function a function value is must be known when "
             "compiling, as in CMU NESL, so a program cannot choose between functions at run time; "
             "apply each function where it is chosen instead", what, which);
}

/* Applies the function 'd' to the argument 'arg' at expression 'e';
   'shown' names the function in messages ("add2", "operator +"). */
static Type *apply(TypeEnv *env, Expr *e, Def *d, Expr *arg, Type *arg_type, const char *shown,
                   Type **inst) {
  check_not_broken(env, d, e->loc);
  Type *ft = type_instantiate(d->type, env->level);
  if (!type_unify(ft->fst, arg_type)) {
    explain_identity(arg ? arg->loc : e->loc, ft->fst, arg_type,
                     xprintf("in '%s', the argument and the parameters of %s hold", quote(e), shown));
    TypeNamer nm = {0};
    char *want = show(&nm, d->type->fst, true);
    char *got = show(&nm, arg_type, false);
    if (e->kind == EX_BINOP && e->u.op.op == BIN_SUB && e->u.op.lhs->kind == EX_VAR && e->u.op.lhs->u.ref.def &&
        e->u.op.lhs->u.ref.def->kind != DEF_VALUE)
      type_error(e->loc, "type error in '%s': %s is a function, and a '-' after it subtracts; to apply it to a "
                 "negative number, write %s(-%s)", quote(e), e->u.op.lhs->u.ref.name, e->u.op.lhs->u.ref.name,
                 quote(e->u.op.rhs));
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

/* Does pattern 'p' bind 'name'? */
static bool pattern_binds(const Pattern *p, const char *name) {
  switch (p->kind) {
  case PAT_VAR:
    return strcmp(p->name, name) == 0;
  case PAT_PAIR:
    return pattern_binds(p->fst, name) || pattern_binds(p->snd, name);
  case PAT_CON:
    return pattern_binds(p->arg, name);
  case PAT_WILD:
    return false;
  }
  return false;
}

/* The statement `function NAME ...` after the one being checked, if no
   other statement defines NAME before it. */
static TopLevel *later_function(TypeEnv *env, const char *name) {
  if (!env->program)
    return NULL;
  for (int i = env->index + 1; i < env->program->tops.len; i++) {
    TopLevel *t = env->program->tops.data[i];
    if (t->kind == TOP_FUNCTION && strcmp(t->name, name) == 0)
      return t;
    if ((t->kind == TOP_DATATYPE && strcmp(t->name, name) == 0) || (t->kind == TOP_BIND && pattern_binds(t->pat, name)))
      return NULL;
  }
  return NULL;
}

/* Declares the function of statement 'top', which the function being
   checked calls before that statement.  With a signature, it has the
   signature's type now and its body is checked at its own statement;
   without one, it is checked with the current function (env->group). */
static Def *declare_early(TypeEnv *env, TopLevel *top) {
  Def *d = new_def(env, DEF_FUNCTION, top->name, top->loc, top);
  d->ident = type_fnid(d, d->name);
  d->type = type_fun_id(type_var(CLASS_ANY, 1), type_var(CLASS_ANY, 1), d->ident);
  top->def = d;
  define(env, d);
  if (top->sig) {
    /* (a declaration without a body, too: its definition comes later) */
    d->broken = true; /* until its signature is converted */
    TypeVars tv = {.context = &top->sig->context, .allow_new = true, .level = 1};
    Type *arg = convert_type(env, top->sig->arg, &tv);
    Type *result = convert_type(env, top->sig->result, &tv);
    check_context(&top->sig->context, &tv);
    d->type = type_fun_id(arg, result, d->ident);
    type_generalize(d->type, 0);
    d->broken = false;
    d->declared = true;
  } else {
    vec_push(&env->group, d);
  }
  return d;
}

/* The definition a top-level name refers to: the newest one or, inside a
   function body, the function a later statement defines. */
static Def *lookup_global(TypeEnv *env, const char *name, Loc loc) {
  Def *d = tc_lookup(env, name);
  if (d)
    return d;
  TopLevel *later = later_function(env, name);
  if (!later)
    type_error(loc, "'%s' is undefined", name);
  if (env->level == 0)
    type_error(loc, "'%s' is undefined here: it is defined by a later statement (line %d), and a statement "
               "runs before the statements that follow it", name, later->loc.line);
  return declare_early(env, later);
}

/* The message for applying something that is not a function. */
_Noreturn static void not_a_function(Expr *e, Expr *fn, Type *ft, const char *what) {
  Expr *arg = e->kind == EX_APP ? e->u.app.arg : e->u.ref.arg;
  if (e->juxtaposed)
    type_error(arg->loc, "'%s' is %s of type %s, not a function, but '%s %s' applies it to '%s' by "
               "juxtaposition; is an operator missing before '%s'?", quote(fn), what, show1(ft), quote(fn),
               quote(arg), quote(arg), quote(arg));
  type_error(e->loc, "'%s' is %s of type %s, not a function, so it cannot be called", quote(fn), what, show1(ft));
}

/* e = fn(arg) where fn is not a top-level function's name: a local of
   function type, or any expression whose value is a function. */
static Type *check_app(TypeEnv *env, Expr *e) {
  Expr *fn = e->u.app.fn;
  Type *ft = check_expr(env, fn);
  Type *r = type_resolve(ft);
  if (r->kind != T_FUN && r->kind != T_VAR)
    not_a_function(e, fn, ft, fn->kind == EX_VAR ? "a variable" : "a value");
  Type *at = check_expr(env, e->u.app.arg);
  Type *want = type_fun_id(at, fresh(env), type_var(CLASS_IDENT, env->level));
  if (!type_unify(ft, want)) {
    if (r->kind != T_FUN)
      not_a_function(e, fn, ft, fn->kind == EX_VAR ? "a variable" : "a value");
    explain_identity(e->u.app.arg->loc, r->fst, at,
                     xprintf("in '%s', the argument and the parameters of %s hold", quote(e), quote(fn)));
    TypeNamer nm = {0};
    char *takes = show(&nm, r->fst, true);
    char *got = show(&nm, at, false);
    type_error(e->u.app.arg->loc, "type error in '%s': the argument of %s has type %s, but %s takes %s", quote(e),
               quote(fn), got, quote(fn), takes);
  }
  return want->snd;
}

static Type *check_call(TypeEnv *env, Expr *e) {
  const char *name = e->u.ref.name;
  if (lookup_local(env, name)) {
    /* a call of a local variable: a function parameter, say */
    Expr *arg = e->u.ref.arg;
    Expr *fn = ast_var(e->loc, name);
    e->kind = EX_APP;
    e->u.app.fn = fn;
    e->u.app.arg = arg;
    return check_app(env, e);
  }
  Def *d = lookup_global(env, name, e->loc);
  check_not_broken(env, d, e->loc);
  if (d->kind == DEF_VALUE && type_resolve(d->type)->kind == T_FUN) {
    /* a call of a global bound to a function value (`g = inc; g(4);`) */
    Expr *arg = e->u.ref.arg;
    e->kind = EX_APP;
    e->u.app.fn = ast_var(e->loc, name);
    e->u.app.arg = arg;
    return check_app(env, e);
  }
  if (d->kind == DEF_VALUE) {
    Expr fn = {.kind = EX_VAR, .loc = e->loc, .u.ref.name = name};
    not_a_function(e, &fn, d->type, "a value");
  }
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
  Def *d = lookup_global(env, name, e->loc);
  check_not_broken(env, d, e->loc);
  e->u.ref.def = d;
  /* a function's name as a value: its type, with its identity */
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
  case EX_APP:
    return check_app(env, e);
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
        explain_identity(x->loc, t, u, xprintf("element %d of this sequence and the elements before it hold", i + 1));
        TypeNamer nm = {0};
        char *first = show(&nm, t, false);
        type_error(x->loc, "the elements of a sequence must have one type, but element %d ('%s') has type %s "
                   "and the elements before it %s", i + 1, quote(x), show(&nm, u, false), first);
      }
    }
    return type_seq(t);
  }
  case EX_EMPTY: {
    TypeVars tv = {.allow_new = false, .level = env->level};
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
      explain_identity(e->loc, a, b, "the then branch and the else branch of this if hold");
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

/* After a statement that defines 'd': an older user definition of the
   same name and an equivalent type is replaced by it for every caller
   (NESL.md, "Redefinition"; the evaluator and mono.c apply the same
   rule as the statements run). */
static void record_replacement(Def *d) {
  for (Def *old = d->prev; old && !old->library; old = old->prev)
    if (old->kind == d->kind && type_equivalent(old->type, d->type)) {
      old->replaced_by = d;
      return;
    }
}

/* Checks the body of 'd' (statement 'top') against its parameter type
   'arg' and result type 'result'; 'why' says where the result type comes
   from, for the message. */
static void check_body(TypeEnv *env, TopLevel *top, Type *arg, Type *result, const char *why) {
  env->locals = NULL;
  Vec bound = {0};
  check_pattern(env, top->param, arg, &bound);
  Type *body = check_expr(env, top->body);
  if (!type_unify(body, result)) {
    explain_identity(top->body->loc, body, result,
                     xprintf("the body of '%s' and the result it must have hold", top->name));
    TypeNamer nm = {0};
    char *got = show(&nm, body, false);
    char *want = show(&nm, result, false);
    type_error(top->body->loc, "the body of '%s' has type %s, but %s %s", top->name, got, why, want);
  }
  env->locals = NULL;
}

/* The declaration without a body that the definition 'd' follows, if
   any: its signature is the definition's when it has none. */
static Signature *declared_signature(Def *d) {
  Def *decl = d->prev;
  if (decl && decl->kind == DEF_FUNCTION && !decl->library && decl->top && !decl->top->body)
    return decl->top->sig;
  return NULL;
}

/* `function f(p) : sig;` after a definition of f with a body, under
   tc_set_instances: an instance of f to export, whose Def ('instance_of'
   f) is the statement's but is not defined, so that the name still
   means f.  The signature must be an instance of f's type scheme: its
   own type variables are rigid, and f's, instantiated, must bind to
   make the two equal. */
static void check_instance(TypeEnv *env, TopLevel *top, Def *fn) {
  Def *d = new_def(env, DEF_FUNCTION, top->name, top->loc, top);
  d->instance_of = fn;
  top->def = d;
  env->current = d;
  Signature *sig = top->sig;
  TypeVars tv = {.context = &sig->context, .allow_new = true, .rigid = true, .level = 1};
  Type *arg = convert_type(env, sig->arg, &tv);
  Type *result = convert_type(env, sig->result, &tv);
  check_context(&sig->context, &tv);
  d->type = type_fun(arg, result);
  Type *scheme = type_resolve(fn->type);
  Type *inst = type_instantiate(scheme, 1);
  if (!type_unify(inst->fst, arg) || !type_unify(inst->snd, result)) {
    type_generalize(d->type, 0);
    type_error(top->loc, "the declaration of '%s' after its definition names an instance to export "
               "(docs/library.md), but its type %s is not an instance of %s's type %s",
               top->name, type_scheme_to_string(d->type), top->name, type_scheme_to_string(scheme));
  }
  env->level = 1;
  env->locals = NULL;
  Vec bound = {0};
  check_pattern(env, top->param, arg, &bound);
  env->locals = NULL;
  env->level = 0;
  type_generalize(d->type, 0);
  d->checked = true;
}

/* function f(p) [: sig] ["doc"] [= body] */
static void check_function(TypeEnv *env, TopLevel *top) {
  Def *d = top->def;
  Def *fn = d ? NULL : tc_lookup(env, top->name);
  if (env->instances && !top->body && fn && fn->kind == DEF_FUNCTION && !fn->library && !fn->declared &&
      fn->top && fn->top->body && !fn->broken) {
    check_instance(env, top, fn);
    return;
  }
  bool early = d != NULL; /* declared when a function before it called it */
  if (!early) {
    d = new_def(env, DEF_FUNCTION, top->name, top->loc, top);
    d->ident = type_fnid(d, d->name);
    top->def = d;
    d->type = type_fun_id(type_var(CLASS_ANY, 1), type_var(CLASS_ANY, 1), d->ident);
    define(env, d); /* first: if the definition fails, uses are silent */
  }
  d->primitive = top->is_primitive;
  env->current = d;
  if (d->primitive && !env->library)
    type_error(top->loc, "__prim bodies are only allowed in the basis library");
  if (d->primitive && !top->sig)
    type_error(top->loc, "a primitive needs a signature");
  Signature *sig = top->sig ? top->sig : declared_signature(d);
  env->level = 1;
  Type *arg, *result;
  if (sig) {
    /* rigid while a body is checked against it: the body must be at
       least as general */
    TypeVars tv = {.context = &sig->context, .allow_new = true, .rigid = top->body != NULL, .level = 1};
    arg = convert_type(env, sig->arg, &tv);
    result = convert_type(env, sig->result, &tv);
    check_context(&sig->context, &tv);
  } else {
    arg = fresh(env);
    result = fresh(env);
  }
  Type *own = type_fun_id(arg, result, d->ident);
  if (!top->body || d->primitive) {
    /* no body to check: the parameters get their types */
    env->locals = NULL;
    Vec bound = {0};
    check_pattern(env, top->param, arg, &bound);
    env->locals = NULL;
  }
  if (!top->body) {
    /* a declaration: its signature is its type until a definition */
    d->type = own;
    d->declared = true;
  } else {
    /* its own body sees it (recursion); one called early with a
       signature keeps the signature's polymorphic type meanwhile */
    if (!early)
      d->type = own;
    if (!d->primitive)
      check_body(env, top, arg, result,
                 sig ? (top->sig ? "its signature says the result is" : "its declaration says the result is")
                     : "a recursive call uses its result as");
    /* the functions it called before their statements, as one group */
    while (env->group_next < env->group.len) {
      Def *g = env->group.data[env->group_next++];
      env->current = g;
      check_body(env, g->top, g->type->fst, g->type->snd,
                 xprintf("a call before its statement (from '%s') uses its result as", top->name));
      env->current = d;
    }
    d->type = own;
    d->declared = false;
  }
  env->level = 0;
  type_generalize(d->type, 0);
  d->checked = true;
  record_replacement(d);
  for (int i = 0; i < env->group.len; i++) {
    Def *g = env->group.data[i];
    type_generalize(g->type, 0);
    g->checked = true;
  }
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
  case TX_FUN:
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
  TypeVars tv = {.context = &top->context, .allow_new = false, .no_functions = true, .level = 1};
  collect_params(env, top->fields, top->name, &tv);
  d->params = tv.vars;
  /* registered before its fields are converted: a datatype may contain
     itself, e.g. in a sequence */
  d->data_id = ++env->datatype_count;
  d->ident = type_fnid(d, d->name);
  d->type = type_fun_id(type_var(CLASS_ANY, 1), type_data(top->name, d->data_id, tv.vars), d->ident);
  map_put(&env->datatypes, top->name, d);
  Type *fields = convert_type(env, top->fields, &tv);
  check_context(&top->context, &tv);
  d->type = type_fun_id(fields, type_data(top->name, d->data_id, tv.vars), d->ident);
  type_generalize(d->type, 0);
}

/* Makes a global value definition of every variable of 'p', with the
   types the pattern check gave them. */
static void define_pattern_values(TypeEnv *env, Pattern *p, TopLevel *top, bool broken) {
  switch (p->kind) {
  case PAT_WILD:
    return;
  case PAT_VAR: {
    if (broken && !env->library && built_in(tc_lookup(env, p->name)))
      return; /* refused: the built-in stays */
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
static void check_printable(Expr *body, Type *t);
static void check_runs_defined(TypeEnv *env, Expr *body);

static void check_bind(TypeEnv *env, TopLevel *top) {
  env->current = NULL;
  Type *t = check_expr(env, top->body);
  check_printable(top->body, t);
  check_runs_defined(env, top->body);
  Vec bound = {0};
  env->locals = NULL;
  check_pattern(env, top->pat, t, &bound);
  env->locals = NULL;
  top->type = t;
  define_pattern_values(env, top->pat, top, false);
}

static void reset(TypeEnv *env) {
  env->program = NULL;
  env->locals = NULL;
  env->level = 0;
  env->current = NULL;
  env->group = (Vec){0};
  env->group_next = 0;
}

/* ---- statements that would run a declared function ---- */

typedef struct RunSearch {
  TypeEnv *env;
  Loc call;          /* the call in the statement that leads there */
  const char *first; /* the function it calls there */
} RunSearch;

static void search_def(RunSearch *s, Def *d, Loc loc);

/* Searches 'e' for uses of declared functions ('ctx' the RunSearch): an
   ast_expr_children visitor, so that it recurses through itself. */
static void search_expr(void *ctx, Expr *e) {
  if ((e->kind == EX_VAR && e->u.ref.def) || e->kind == EX_CALL)
    search_def(ctx, e->u.ref.def, e->loc);
  ast_expr_children(e, search_expr, NULL, ctx);
}

/* 'd' is used (called, or taken as a value) at 'loc'.  The library never
   calls a user's function, so only user functions are searched. */
static void search_def(RunSearch *s, Def *d, Loc loc) {
  d = tc_current(d);
  if (d->library || d->kind != DEF_FUNCTION || d->visited == s->env->searches)
    return;
  d->visited = s->env->searches;
  check_not_broken(s->env, d, loc); /* its error is reported: stop silently */
  bool in_statement = !s->first;
  if (in_statement) {
    s->call = loc;
    s->first = d->name;
  }
  if (!d->top->body)
    type_error(s->call, "this statement runs '%s'%s, which is only declared (line %d): its definition must "
               "come before a statement that runs it", d->name,
               in_statement ? "" : xprintf(" (through '%s')", s->first), d->loc.line);
  bool later = d->top->program && d->top->program == s->env->program && d->top->index > s->env->index;
  if (!d->checked || later)
    type_error(s->call, "this statement runs '%s'%s, which is defined by a later statement (line %d): a "
               "statement runs before the statements that follow it", d->name,
               in_statement ? "" : xprintf(" (through '%s')", s->first), d->loc.line);
  search_expr(s, d->top->body);
  if (in_statement)
    s->first = NULL;
}

/* A statement's value may hold functions (`g = inc;` prints `g = fn :
   int -> int`, as in CMU NESL), but not a polymorphic one: CMU NESL
   gives it a type with variables (`i;` is `it = fn : a -> a :: (a in
   any)`) and lets each use instantiate it; here the statement's value
   has one type, which monomorphization would fix (a variable nothing
   determines becomes int) and print otherwise. */
static void check_printable(Expr *body, Type *t) {
  if (type_has_open_function(t))
    type_error(body->loc, "the value of a top-level statement cannot be a polymorphic function or hold one (this one "
               "has type %s): nessie gives a statement's value one type; apply the function, or name a function "
               "whose type has no type variables", show1(t));
}

/* A statement that runs: it may not reach a function that is declared
   but not yet defined (CMU NESL would stop it when it runs). */
static void check_runs_defined(TypeEnv *env, Expr *body) {
  env->searches++;
  RunSearch s = {env, {0}, NULL};
  search_expr(&s, body);
}

bool tc_check_top(TypeEnv *env, TopLevel *top) {
  jmp_buf jb;
  reset(env);
  if (top->kind == TOP_FUNCTION && top->def && (top->def->checked || top->def->broken))
    return !top->def->broken; /* checked with a function that called it */
  if (setjmp(jb)) {
    /* an error was reported (or a broken definition was used) */
    if (env->current)
      env->current->broken = true;
    else if (top->kind == TOP_BIND)
      define_pattern_values(env, top->pat, top, true);
    if (top->def)
      top->def->broken = true;
    for (int i = 0; i < env->group.len; i++)
      ((Def *)env->group.data[i])->broken = true;
    reset(env);
    return false;
  }
  diag_push_handler(&jb);
  env->program = top->program;
  env->index = top->index;
  switch (top->kind) {
  case TOP_FUNCTION:
    if (!top->def)
      check_not_built_in(env, top->name, top->loc);
    check_function(env, top);
    break;
  case TOP_DATATYPE:
    check_not_built_in(env, top->name, top->loc);
    check_datatype(env, top);
    break;
  case TOP_BIND:
    check_pattern_not_built_in(env, top->pat);
    check_bind(env, top);
    break;
  case TOP_EXPR:
    top->type = check_expr(env, top->body);
    check_printable(top->body, top->type);
    check_runs_defined(env, top->body);
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
void tc_set_instances(TypeEnv *env, bool on) { env->instances = on; }

char *tc_def_signature_line(Def *def) {
  return xprintf("%s = fn : %s", def->name, type_scheme_to_string(def->type));
}

Def *tc_replaced_def(Def *d) {
  Def *old = d->prev;
  while (old && old->broken)
    old = old->prev;
  if (!old || old->library || old->kind != d->kind || !type_equivalent(old->type, d->type))
    return NULL;
  return old;
}

static void add_redefinition(Buf *b, const Def *d) {
  if (strcmp(d->name, "it") == 0)
    return; /* the REPL's last value: NESL gives it any type silently */
  const Def *old = d->prev;
  while (old && old->broken)
    old = old->prev;
  if (!old || type_equivalent(old->type, d->type))
    return;
  buf_puts(b, "Redefining ");
  for (const char *c = d->name; *c; c++)
    buf_putc(b, (char)toupper((unsigned char)*c));
  buf_puts(b, " with a new type.  Old calls will not be modified. ");
}

const char *tc_redefinition_notice(const TopLevel *top) {
  Buf b = {0};
  if (top->kind == TOP_BIND)
    for (int i = 0; i < top->bound.len; i++)
      add_redefinition(&b, top->bound.data[i]);
  else if ((top->kind == TOP_FUNCTION || top->kind == TOP_DATATYPE) && top->def)
    add_redefinition(&b, top->def);
  return b.len ? buf_str(&b) : "";
}
