/*
 * layout.c: how a NESL value of a front-end type is spread over flat
 * components (flat/flat.h: H(t) at the host, V(t) for a sequence of
 * values), as the flat IR's types of the components and as the runtime's
 * layout descriptors.  It belongs to flattening, the last stage that
 * sees front-end types: the IRs carry the layout descriptors it makes.
 *
 * Datatypes: the flat IR has none (a datatype is its fields, DESIGN.md
 * "Values"), but a primitive such as write_string reads a stream as a
 * datatype value, the transcript prints `point(1, 2)` and hash mixes a
 * datatype in as the evaluator does.  The runtime's layouts therefore keep
 * datatypes, named, with their fields found through the constructor.
 */
#include <string.h>

#include "flatten.h"

/* ---- layouts ---- */

FlatBase flatten_base(Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
    return FB_INT;
  case T_FLOAT:
    return FB_FLOAT;
  case T_BOOL:
    return FB_BOOL;
  case T_CHAR:
    return FB_CHAR;
  default:
    die("flatten_base: %s is not a base type", type_value_to_string(t));
  }
}

static void push_type(Vec *out, FlatType t) {
  FlatType *p = NEW(FlatType);
  *p = t;
  vec_push(out, p);
}

/* The flattener only lays out monomorphic types whose datatypes mono.c
   has replaced: anything else reaching here is a bug. */
_Noreturn static void not_flat(const char *fn, Type *t) {
  die("%s: %s is not a monomorphic type without datatypes or functions", fn, type_value_to_string(t));
}

/* What layout() gives besides the types: where 'within' is given, one
   plus the index of the segdes whose elements each component lies in, or
   0 at the top ('parent' for V(t)'s); where 'groups' is given, each
   component's length group (flatten_layout_groups), 'group' for V(t)'s top,
   new ones numbered from *next + 1. */
typedef struct LayoutOut {
  Vec *types, *within, *groups;
  int *next;
} LayoutOut;

/* The components of V(t) ('vector') or H(t), into 'out'. */
static void layout(Type *t, bool vector, intptr_t parent, intptr_t group, LayoutOut *out) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    push_type(out->types, vector ? flat_vec(flatten_base(t)) : flat_scalar(flatten_base(t)));
    if (out->within)
      vec_push(out->within, (void *)parent);
    if (out->groups)
      vec_push(out->groups, (void *)(vector ? group : 0));
    return;
  case T_PAIR:
    layout(t->fst, vector, parent, group, out);
    layout(t->snd, vector, parent, group, out);
    return;
  case T_SEQ: {
    intptr_t inner = out->groups ? ++*out->next : 0; /* the group of H([t]) = V(t), or of the segdes's elements */
    if (!vector) { /* H([t]) = V(t) */
      layout(t->elem, true, 0, inner, out);
      return;
    }
    push_type(out->types, flat_segdes());
    if (out->within)
      vec_push(out->within, (void *)parent);
    if (out->groups)
      vec_push(out->groups, (void *)group); /* one segment per element */
    layout(t->elem, true, out->types->len, inner, out); /* one per element of the segdes */
    return;
  }
  case T_DATA:
  case T_VAR:
  case T_FUN:
    break;
  }
  not_flat("flat layout", t);
}

static void layout_types(Type *t, bool vector, Vec *types, Vec *within) {
  LayoutOut out = {types, within, NULL, NULL};
  layout(t, vector, 0, 0, &out);
}

void flatten_vector_layout(Type *t, Vec *out) { layout_types(t, true, out, NULL); }

void flatten_host_layout(Type *t, Vec *out) { layout_types(t, false, out, NULL); }

void flatten_layout_within(Type *t, bool host, Vec *out) {
  Vec types = {0};
  layout_types(t, !host, &types, out);
}

void flatten_layout_groups(Type *t, bool host, intptr_t context, int *next, Vec *out) {
  Vec types = {0};
  LayoutOut lo = {&types, NULL, out, next};
  layout(t, !host, 0, context, &lo);
}

/* ---- the runtime's layouts ---- */

Type *flatten_data_fields(TypeEnv *env, Type *t) {
  t = type_resolve(t);
  /* the newest definition of the name may be a later datatype of the same
     name: follow 'prev' to the one the type was made from */
  Def *con = NULL;
  for (Def *d = tc_lookup(env, t->name); d && !con; d = d->prev)
    if (d->kind == DEF_CONSTRUCTOR && d->data_id == t->data_id)
      con = d;
  if (!con)
    die("no constructor for datatype %s", t->name);
  Type *ft = type_instantiate(con->type, 0);
  if (!type_unify(ft->snd, t))
    die("flatten_data_fields: %s does not match its constructor", type_value_to_string(t));
  return ft->fst;
}

const RtLayout *flatten_rt_layout(TypeEnv *env, Type *t) {
  t = type_resolve(t);
  RtLayout *l = NEW(RtLayout);
  switch (t->kind) {
  case T_INT:
    l->kind = RL_INT;
    break;
  case T_FLOAT:
    l->kind = RL_FLOAT;
    break;
  case T_BOOL:
    l->kind = RL_BOOL;
    break;
  case T_CHAR:
    l->kind = RL_CHAR;
    break;
  case T_SEQ:
    l->kind = RL_SEQ;
    l->elem = flatten_rt_layout(env, t->elem);
    break;
  case T_PAIR:
    l->kind = RL_PAIR;
    l->fst = flatten_rt_layout(env, t->fst);
    l->snd = flatten_rt_layout(env, t->snd);
    break;
  case T_DATA:
    l->kind = RL_DATA;
    l->name = t->name;
    l->fst = flatten_rt_layout(env, flatten_data_fields(env, t));
    break;
  case T_FUN:
    /* a function value is the constant F (mono.c), named so that @ writes
       it as NESL does, "function" */
    l->kind = RL_BOOL;
    l->name = "function";
    break;
  default:
    not_flat("flatten_rt_layout", t);
  }
  return l;
}
