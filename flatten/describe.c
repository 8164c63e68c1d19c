/*
 * describe.c: the front end's statements and types as the IRs see them.
 *
 * No IR holds a node of the front end (an AST statement, a Type): what
 * the transcript, the dumps and the checkers need of a NESL statement is
 * resolved here once, to text (the statement as --dump=ast prints it,
 * its signature and type names) and to the runtime's layout descriptors
 * (flatten/layout.c), and kept in the flat IR's FlatTop.  Flattening
 * describes the statements it flattens; the λcu reader, which finds NESL
 * text in a dump, has it parsed, type checked and described through the
 * hooks of flatten_nesl_reader, so that lcu/ needs no front-end header.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../frontend/frontend.h"
#include "flatten.h"

/* ---- top-level statements ---- */

/* The NESL statement as --dump=ast prints it, of '*len' bytes. */
static char *statement_text(const TopLevel *top, size_t *len) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f)
    die("open_memstream failed");
  ast_print_top(f, top);
  fclose(f);
  char *copy = xmalloc_atomic(size + 1);
  memcpy(copy, text, size + 1);
  free(text);
  *len = size;
  return copy;
}

/* Walks pattern 'p' along the components of its value, laid out by 'l'
   (H(t) from component *at on), noting in 'vars' the pattern variable
   each component belongs to (NULL for a wildcard's). */
static void pattern_vars(const Pattern *p, const RtLayout *l, int *at, const char **vars) {
  switch (p->kind) {
  case PAT_WILD:
  case PAT_VAR: {
    int n = rt_layout_count(l, true);
    for (int i = 0; i < n; i++)
      vars[(*at)++] = p->kind == PAT_VAR ? p->name : NULL;
    return;
  }
  case PAT_PAIR:
    if (l->kind != RL_PAIR)
      die("a tuple pattern against a value that is not a tuple");
    pattern_vars(p->fst, l->fst, at, vars);
    pattern_vars(p->snd, l->snd, at, vars);
    return;
  case PAT_CON:
    if (l->kind != RL_DATA)
      die("a constructor pattern against a value that is not a datatype's");
    pattern_vars(p->arg, l->fst, at, vars);
    return;
  }
}

static FlatTopKind top_kind(TopKind k) {
  switch (k) {
  case TOP_FUNCTION:
    return FLAT_TOP_FUNCTION;
  case TOP_DATATYPE:
    return FLAT_TOP_DATATYPE;
  case TOP_BIND:
    return FLAT_TOP_BIND;
  case TOP_EXPR:
    return FLAT_TOP_EXPR;
  }
  die("top-level statement kind %d does not exist", (int)k);
}

void flatten_describe_top(TypeEnv *env, TopLevel *src, Type *nesl_type, FlatTop *ft) {
  ft->kind = top_kind(src->kind);
  ft->loc = src->loc;
  ft->library = src->library;
  ft->text = statement_text(src, &ft->text_len);
  /* NESL's notice of a name that changes its type goes before the
     transcript's line (the signature's, or the binding's pattern) */
  const char *notice = src->library ? "" : tc_redefinition_notice(src);
  if ((src->kind == TOP_FUNCTION || src->kind == TOP_DATATYPE) && src->def) {
    ft->scheme = type_scheme_to_string(src->def->type);
    if (!src->library)
      ft->signature = xprintf("%s%s", notice, tc_def_signature_line(src->def));
  }
  if (src->kind != TOP_BIND && src->kind != TOP_EXPR)
    return;
  ft->type_name = type_value_to_string(nesl_type);
  ft->layout = flatten_rt_layout(env, nesl_type);
  ft->pattern = src->kind == TOP_BIND ? xprintf("%s%s", notice, ast_pattern_to_string(src->pat)) : "it";
  if (src->kind == TOP_BIND) {
    int n = rt_layout_count(ft->layout, true);
    const char **vars = xmalloc(sizeof(char *) * (size_t)(n + 1));
    int at = 0;
    pattern_vars(src->pat, ft->layout, &at, vars);
    if (at != n)
      die("the binding's pattern does not account for its value's components");
    ft->component_vars = vars;
  }
}

/* ---- NESL types in text ----

   The types a λcu dump prints between < and >: base types, [t], tuples
   `t1, t2` (nesting to the right, parenthesized inside another type) and
   datatypes `name` or `name(t1, ...)`. */

typedef struct TypeText {
  TypeEnv *env;
  const char *s;
  size_t pos;
  const char *why; /* the first error */
} TypeText;

static void skip_space(TypeText *t) {
  while (isspace((unsigned char)t->s[t->pos]))
    t->pos++;
}

static bool accept_text(TypeText *t, const char *word) {
  skip_space(t);
  size_t n = strlen(word);
  if (strncmp(t->s + t->pos, word, n) != 0)
    return false;
  /* a word ends where a name would not go on */
  if (isalpha((unsigned char)word[n - 1]) && (isalnum((unsigned char)t->s[t->pos + n]) || t->s[t->pos + n] == '_'))
    return false;
  t->pos += n;
  return true;
}

static Type *type_failed(TypeText *t, const char *why) {
  if (!t->why)
    t->why = why;
  return type_int;
}

static Type *type_items(TypeText *t);

static Type *type_atom(TypeText *t) {
  if (t->why)
    return type_int;
  if (accept_text(t, "[")) {
    Type *elem = type_seq(type_items(t));
    return accept_text(t, "]") ? elem : type_failed(t, "expected ']'");
  }
  if (accept_text(t, "(")) {
    Type *inner = type_items(t);
    return accept_text(t, ")") ? inner : type_failed(t, "expected ')'");
  }
  if (accept_text(t, "int"))
    return type_int;
  if (accept_text(t, "float"))
    return type_float;
  if (accept_text(t, "bool"))
    return type_bool;
  if (accept_text(t, "char"))
    return type_char;
  skip_space(t);
  size_t start = t->pos;
  if (isalpha((unsigned char)t->s[t->pos]) || t->s[t->pos] == '_')
    while (isalnum((unsigned char)t->s[t->pos]) || (t->s[t->pos] && strchr("_^'", t->s[t->pos])))
      t->pos++;
  if (t->pos == start)
    return type_failed(t, "expected a type");
  const char *name = intern(xstrndup(t->s + start, t->pos - start));
  Def *d = tc_lookup(t->env, name);
  while (d && d->kind != DEF_CONSTRUCTOR)
    d = d->prev;
  if (!d)
    return type_failed(t, xprintf("'%s' is not a type", name));
  Vec args = {0};
  if (t->s[t->pos] == '(') { /* parameters: a tuple among them has parentheses */
    t->pos++;
    do
      vec_push(&args, type_atom(t));
    while (accept_text(t, ","));
    if (!accept_text(t, ")"))
      return type_failed(t, "expected ')'");
  }
  if (args.len != d->params.len)
    return type_failed(t, xprintf("datatype %s takes %d parameters", name, d->params.len));
  return type_data(name, d->data_id, args);
}

/* a -> b -> c: a function type (in parentheses inside a tuple, as
   type_text_bracketed writes it), to the right */
static Type *type_arrows(TypeText *t) {
  Type *arg = type_atom(t);
  return accept_text(t, "->") ? type_fun(arg, type_arrows(t)) : arg;
}

/* t1, t2, ...: a tuple nests to the right */
static Type *type_items(TypeText *t) {
  Type *first = type_arrows(t);
  return accept_text(t, ",") ? type_pair(first, type_items(t)) : first;
}

/* ---- the λcu reader's hooks ---- */

typedef struct NeslReader {
  FlatNeslReader hooks;
  TypeEnv *env;
  Program nesl;     /* every statement taken, in order */
  Vec library;      /* per statement: non-NULL if lib-nesl's */
  int next;         /* the next statement to check */
} NeslReader;

static bool reader_parse(void *ctx, const char *file, const char *text, bool library) {
  NeslReader *r = ctx;
  int errors = diag_count();
  Program *one = parse_program(source_fragment(file, text), library);
  if (diag_count() > errors || one->tops.len != 1)
    return false;
  TopLevel *top = one->tops.data[0];
  top->program = &r->nesl;
  top->index = r->nesl.tops.len;
  vec_push(&r->nesl.tops, top);
  vec_push(&r->library, library ? (void *)1 : NULL);
  return true;
}

static FlatTop *reader_check_next(void *ctx) {
  NeslReader *r = ctx;
  if (r->next >= r->nesl.tops.len)
    die("flatten_nesl_reader: no statement left to check");
  bool library = r->library.data[r->next] != NULL;
  TopLevel *top = r->nesl.tops.data[r->next++];
  tc_set_library_mode(r->env, library);
  bool ok = tc_check_top(r->env, top);
  tc_set_library_mode(r->env, false);
  if (!ok)
    return NULL;
  FlatTop *ft = NEW(FlatTop);
  flatten_describe_top(r->env, top, top->kind == TOP_BIND || top->kind == TOP_EXPR ? top->type : NULL, ft);
  return ft;
}

static const RtLayout *reader_type(void *ctx, const char *text, const char **name, const char **why) {
  NeslReader *r = ctx;
  TypeText t = {r->env, text, 0, NULL};
  Type *type = type_items(&t);
  skip_space(&t);
  if (!t.why && text[t.pos])
    t.why = xprintf("'%s' after the type", text + t.pos);
  if (t.why) {
    *why = t.why;
    return NULL;
  }
  *name = type_text_bracketed(type);
  return flatten_rt_layout(r->env, type);
}

const FlatNeslReader *flatten_nesl_reader(TypeEnv *env) {
  NeslReader *r = NEW(NeslReader);
  r->env = env;
  r->hooks = (FlatNeslReader){r, reader_parse, reader_check_next, reader_type};
  return &r->hooks;
}
