/*
 * export.c: `nessie --library FILE.nesl`, a shared library of the file's
 * functions with a C header and a Python module (docs/library.md).
 *
 * The program is checked as usual; then its statements are left out (a
 * library runs none of them) and each exported function f gets one in
 * their place, `__keep_value(k, f(__global_value(k)))`: the REPL's bridge
 * to its store of values (rt.h, RtStore), through which rt/lib.c hands
 * the statement the caller's argument and takes its result.  So an
 * exported function is compiled, fused and run exactly as a call of it in
 * an executable is, and nothing in flatten/, lower/ or fusion/ knows of
 * libraries.
 *
 * A polymorphic function is exported at the instances that declarations
 * after it name (`function poly(xs) : [int] -> [int];`): the checker,
 * told so (tc_set_instances), gives such a declaration a Def of its own
 * that names the function (instance_of) without shadowing it, and its
 * statement calls the function at the declared type.  An instance's C
 * name is the function's followed by the types its type variables take
 * (instance_name).
 */
#include <errno.h>
#include <string.h>

#include "../codegen/codegen.h"
#include "../frontend/frontend.h"
#include "driver.h"

/* Is 't' a type a value crossing to C may have: int, float, bool, char,
   tuples, sequences and datatypes of them, with no type variable and no
   function?  'why' gets the reason when not. */
static bool first_order(Type *t, const char **why) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
  case T_FLOAT:
  case T_BOOL:
  case T_CHAR:
    return true;
  case T_SEQ:
    return first_order(t->elem, why);
  case T_PAIR:
    return first_order(t->fst, why) && first_order(t->snd, why);
  case T_DATA:
    for (int i = 0; i < t->args.len; i++)
      if (!first_order(t->args.data[i], why))
        return false;
    return true;
  case T_VAR:
    *why = "it is polymorphic (name the instances to export in declarations, `function f(x) : [int] -> "
           "[int];` after f, docs/library.md)";
    return false;
  case T_FUN:
    *why = "a function value cannot cross to C";
    return false;
  }
  return false;
}

/* A top-level value of the file that an exported function reads: the
   value's definition, and the function whose body reads it. */
typedef struct ValueRead {
  Def *value;
  Def *reader;
} ValueRead;

static bool reads_value_def(Def *d, PtrMap *seen, ValueRead *r);

/* Finds in 'e' the first read, in the order of the text, of a top-level
   value of the file (lib-nesl's are bound when a library starts), in
   'e' itself or in a function it names, into 'r'; 'in' is the function
   whose body 'e' is.  Each function is searched once ('seen'). */
static bool reads_value_expr(const Expr *e, Def *in, PtrMap *seen, ValueRead *r) {
  if (!e)
    return false;
  switch (e->kind) {
  case EX_INT:
  case EX_FLOAT:
  case EX_BOOL:
  case EX_CHAR:
  case EX_STRING:
  case EX_EMPTY:
    return false;
  case EX_VAR:
  case EX_CALL: {
    Def *d = e->u.ref.def;
    if (d && !d->library && d->kind == DEF_VALUE) {
      r->value = d;
      r->reader = in;
      return true;
    }
    if (d && !d->library && d->kind == DEF_FUNCTION && reads_value_def(d, seen, r))
      return true;
    return e->kind == EX_CALL && reads_value_expr(e->u.ref.arg, in, seen, r);
  }
  case EX_APP:
    return reads_value_expr(e->u.app.fn, in, seen, r) || reads_value_expr(e->u.app.arg, in, seen, r);
  case EX_BINOP:
  case EX_UNOP:
    if (e->u.op.def && !e->u.op.def->library && reads_value_def(e->u.op.def, seen, r))
      return true;
    return reads_value_expr(e->u.op.lhs, in, seen, r) ||
           (e->kind == EX_BINOP && reads_value_expr(e->u.op.rhs, in, seen, r));
  case EX_PAIR:
    return reads_value_expr(e->u.pair.fst, in, seen, r) || reads_value_expr(e->u.pair.snd, in, seen, r);
  case EX_SEQ:
    for (int i = 0; i < e->u.elems.len; i++)
      if (reads_value_expr(e->u.elems.data[i], in, seen, r))
        return true;
    return false;
  case EX_RANGE:
    return reads_value_expr(e->u.range.start, in, seen, r) || reads_value_expr(e->u.range.end, in, seen, r) ||
           reads_value_expr(e->u.range.stride, in, seen, r);
  case EX_INDEX:
    return reads_value_expr(e->u.index.seq, in, seen, r) || reads_value_expr(e->u.index.index, in, seen, r);
  case EX_IF:
    return reads_value_expr(e->u.ifx.cond, in, seen, r) || reads_value_expr(e->u.ifx.then, in, seen, r) ||
           reads_value_expr(e->u.ifx.els, in, seen, r);
  case EX_LET:
    for (int i = 0; i < e->u.let.binds.len; i++)
      if (reads_value_expr(((Binding *)e->u.let.binds.data[i])->value, in, seen, r))
        return true;
    return reads_value_expr(e->u.let.body, in, seen, r);
  case EX_APPLY:
    for (int i = 0; i < e->u.apply.gens.len; i++)
      if (reads_value_expr(((Generator *)e->u.apply.gens.data[i])->seq, in, seen, r))
        return true;
    return reads_value_expr(e->u.apply.body, in, seen, r) || reads_value_expr(e->u.apply.filter, in, seen, r);
  case EX_TIME:
    return reads_value_expr(e->u.timed, in, seen, r);
  }
  return false;
}

/* reads_value_expr for the body of function 'd' (the definition its
   callers run: a declaration's is the definition that follows it). */
static bool reads_value_def(Def *d, PtrMap *seen, ValueRead *r) {
  d = tc_current(d);
  if (ptrmap_get(seen, d))
    return false;
  ptrmap_put(seen, d, d);
  return d->top && reads_value_expr(d->top->body, d, seen, r);
}

/* Names for the leaves of H('l') from the parameter pattern 'p' (NULL:
   none), into 'names' from '*at'. */
static void leaf_names(const RtLayout *l, const Pattern *p, const char *base, const char **names, int *at) {
  if (p && p->kind == PAT_VAR && !base) {
    leaf_names(l, NULL, p->name, names, at);
    return;
  }
  switch (l->kind) {
  case RL_PAIR:
    if (p && p->kind == PAT_PAIR) {
      leaf_names(l->fst, p->fst, base, names, at);
      leaf_names(l->snd, p->snd, base, names, at);
    } else {
      leaf_names(l->fst, NULL, base, names, at);
      leaf_names(l->snd, NULL, base, names, at);
    }
    return;
  case RL_DATA:
    leaf_names(l->fst, p && p->kind == PAT_CON ? p->arg : NULL, base, names, at);
    return;
  default:
    names[*at] = base ? xprintf("%s_%d", base, *at + 1) : NULL;
    (*at)++;
    return;
  }
}

/* A base name made unique among the leaves that share it: "x" when one
   leaf has it, "x_1", "x_2" ... (its position) otherwise. */
static void tidy_names(const char **names, int n) {
  for (int i = 0; i < n; i++) {
    if (!names[i])
      continue;
    const char *us = strrchr(names[i], '_');
    size_t stem = us ? (size_t)(us - names[i]) : strlen(names[i]);
    int same = 0;
    for (int j = 0; j < n; j++)
      same += names[j] && strncmp(names[j], names[i], stem) == 0 && strrchr(names[j], '_') &&
              (size_t)(strrchr(names[j], '_') - names[j]) == stem;
    if (same == 1)
      names[i] = xstrndup(names[i], stem);
  }
}

/* The statement standing for export 'k', the call of function 'fn' at
   'arg' -> 'result', at 'loc': typed as the checker would type it, a
   library statement so that nothing is printed. */
static TopLevel *export_statement(TypeEnv *env, Def *fn, Loc loc, int k, Type *arg, Type *result) {
  Expr *slot = ast_int(loc, k);
  slot->type = type_int;
  Expr *get = ast_call(loc, "__global_value", slot);
  get->u.ref.def = tc_lookup(env, "__global_value");
  get->u.ref.inst = type_fun(type_int, arg);
  get->type = arg;
  Expr *call = ast_call(loc, fn->name, get);
  call->u.ref.def = fn;
  call->u.ref.inst = type_fun(arg, result);
  call->type = result;
  Expr *slot2 = ast_int(loc, k);
  slot2->type = type_int;
  Expr *pair = ast_pair(loc, slot2, call);
  pair->type = type_pair(type_int, result);
  Expr *keep = ast_call(loc, "__keep_value", pair);
  keep->u.ref.def = tc_lookup(env, "__keep_value");
  keep->u.ref.inst = type_fun(pair->type, result);
  keep->type = result;
  TopLevel *t = NEW(TopLevel);
  t->kind = TOP_EXPR;
  t->loc = loc;
  t->body = keep;
  t->type = result;
  t->library = true;
  return t;
}

/* The types that the type variables of 'scheme' take in 'inst', an
   instance of it: each variable once, in the order of its first
   appearance (argument first, left to right), into 'vars' and 'types'. */
static void bind_vars(Type *scheme, Type *inst, Vec *vars, Vec *types) {
  scheme = type_resolve(scheme);
  inst = type_resolve(inst);
  switch (scheme->kind) {
  case T_VAR:
    for (int i = 0; i < vars->len; i++)
      if (vars->data[i] == scheme)
        return;
    vec_push(vars, scheme);
    vec_push(types, inst);
    return;
  case T_SEQ:
    if (inst->kind == T_SEQ)
      bind_vars(scheme->elem, inst->elem, vars, types);
    return;
  case T_PAIR:
  case T_FUN:
    if (inst->kind == scheme->kind) {
      bind_vars(scheme->fst, inst->fst, vars, types);
      bind_vars(scheme->snd, inst->snd, vars, types);
    }
    return;
  case T_DATA:
    if (inst->kind == T_DATA)
      for (int i = 0; i < scheme->args.len && i < inst->args.len; i++)
        bind_vars(scheme->args.data[i], inst->args.data[i], vars, types);
    return;
  default:
    return;
  }
}

/* A first-order type 't' in C identifiers, as the header names sequence
   types (codegen/export.c): int, seq_int, tup_int_float, and a datatype
   by its name and its parameters' (twin_int). */
static void type_code(Buf *b, Type *t) {
  t = type_resolve(t);
  switch (t->kind) {
  case T_INT:
    buf_puts(b, "int");
    return;
  case T_FLOAT:
    buf_puts(b, "float");
    return;
  case T_BOOL:
    buf_puts(b, "bool");
    return;
  case T_CHAR:
    buf_puts(b, "char");
    return;
  case T_SEQ:
    buf_puts(b, "seq_");
    type_code(b, t->elem);
    return;
  case T_PAIR:
    buf_puts(b, "tup_");
    type_code(b, t->fst);
    buf_putc(b, '_');
    type_code(b, t->snd);
    return;
  case T_DATA:
    buf_puts(b, t->name);
    for (int i = 0; i < t->args.len; i++) {
      buf_putc(b, '_');
      type_code(b, t->args.data[i]);
    }
    return;
  default:
    buf_puts(b, "x"); /* not first-order: refused before the name is used */
    return;
  }
}

/* The name an instance of function 'fn' at type 'inst' is exported
   under: fn's name, then '_' and the code of each type its type
   variables take, in the order they appear in fn's type (poly at
   [int] -> [int] is poly_int); NULL if fn has no type variable. */
static const char *instance_name(Def *fn, Type *inst) {
  Vec vars = {0}, types = {0};
  bind_vars(fn->type, inst, &vars, &types);
  if (types.len == 0)
    return NULL;
  Buf b = {0};
  buf_puts(&b, fn->name);
  for (int i = 0; i < types.len; i++) {
    buf_putc(&b, '_');
    type_code(&b, types.data[i]);
  }
  return buf_str(&b);
}

/* Is 'name' a C identifier? */
static bool c_identifier(const char *name) {
  if (!*name || (*name >= '0' && *name <= '9'))
    return false;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

/* Reads the whole of file 'path', or NULL. */
static const char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    buf_put(&b, chunk, n);
  fclose(f);
  return buf_str(&b);
}

/* Writes 'path' through 'write'; false after a message. */
static bool write_file(const char *path, void (*write)(FILE *, const CgLibrary *, CgTargetKind, const char *,
                                                       const char *),
                       const CgLibrary *lib, CgTargetKind target, const char *source, const char *extra) {
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "nessie: error: cannot write %s: %s\n", path, strerror(errno));
    return false;
  }
  write(out, lib, target, source, extra);
  if (fclose(out) != 0) {
    fprintf(stderr, "nessie: error: cannot write %s: %s\n", path, strerror(errno));
    return false;
  }
  return true;
}

static void write_header(FILE *out, const CgLibrary *lib, CgTargetKind target, const char *source, const char *extra) {
  (void)extra;
  cg_library_header(out, lib, target, source);
}

int driver_library(const LibraryBuild *lb) {
  /* NAME: -o's base name, else the file's without .nesl */
  const char *out = lb->output;
  if (!out) {
    const char *base = strrchr(lb->file, '/') ? strrchr(lb->file, '/') + 1 : lb->file;
    size_t n = strlen(base);
    out = n > 5 && strcmp(base + n - 5, ".nesl") == 0 ? xstrndup(base, n - 5) : base;
  }
  const char *slash = strrchr(out, '/');
  const char *dir = slash ? xstrndup(out, (size_t)(slash - out + 1)) : "";
  const char *name = slash ? slash + 1 : out;
  if (!c_identifier(name)) {
    fprintf(stderr, "nessie: error: the library's name '%s' is not a C identifier: name it with -o NAME\n", name);
    return 2;
  }
  Source *src = source_from_file(lb->file);
  if (!src) {
    diag_error(no_loc, "cannot read '%s': %s", lb->file, strerror(errno));
    return 3;
  }
  Pipeline pl = {.src = src, .env = tc_new_env(), .check_ir = lb->check_ir, .no_fusion = lb->no_fusion};
  tc_set_instances(pl.env, true);
  if (!pipeline_run_to(&pl, pipeline_stage("typed")))
    return 1;
  /* the exports: each function whose definition is the name's last, at
     first-order monomorphic types, and each instance that a declaration
     names; the others are named in a warning (a declaration's in an
     error: it asked for its export) */
  CgLibrary *lib = NEW(CgLibrary);
  lib->name = name;
  Program *prog = NEW(Program);
  Vec statements = {0};
  PtrMap instanced = {0}; /* the functions an instance declaration names */
  for (int i = 0; i < pl.prog->tops.len; i++) {
    TopLevel *t = pl.prog->tops.data[i];
    if (t->kind == TOP_FUNCTION && t->def && t->def->instance_of)
      ptrmap_put(&instanced, t->def->instance_of, t);
  }
  for (int i = 0; i < pl.prog->tops.len; i++) {
    TopLevel *t = pl.prog->tops.data[i];
    if (t->kind == TOP_BIND || t->kind == TOP_EXPR)
      continue; /* a library runs no statement of the file */
    bool instance = t->kind == TOP_FUNCTION && t->def && t->def->instance_of;
    if (instance) {
      if (t->def->broken)
        continue;
    } else {
      vec_push(&prog->tops, t); /* an instance's declaration defines nothing */
      if (t->kind != TOP_FUNCTION || !t->body || t->library || !t->def || tc_lookup(pl.env, t->name) != t->def)
        continue;
    }
    Def *fn = instance ? t->def->instance_of : t->def;
    Type *ft = type_resolve(t->def->type);
    const char *why = NULL;
    if (ft->kind != T_FUN || !first_order(ft->fst, &why) || !first_order(ft->snd, &why)) {
      if (instance)
        diag_error(t->loc, "the instance of '%s' that this declaration names cannot be exported: %s", t->name,
                   why && strstr(why, "polymorphic") ? xprintf("its type %s still has type variables: an "
                                                               "instance names a type for each",
                                                               type_scheme_to_string(t->def->type))
                                                     : why ? why : "it is not a function");
      else if (!why || !ptrmap_get(&instanced, t->def) || !strstr(why, "polymorphic"))
        fprintf(stderr, "%s:%d:%d: warning: '%s' is not exported: %s\n", src->name, t->loc.line, t->loc.col, t->name,
                why ? why : "it is not a function");
      continue; /* a function whose instances are named is exported at them alone */
    }
    const char *cname = instance ? instance_name(fn, ft) : t->name;
    if (!cname) {
      diag_error(t->loc, "'%s' is not polymorphic (line %d): a declaration after a function names an "
                         "instance of a polymorphic one, and a monomorphic one is exported as it is",
                 t->name, fn->loc.line);
      continue;
    }
    if (!c_identifier(cname)) {
      if (instance)
        diag_error(t->loc, "the instance of '%s' that this declaration names cannot be exported: its name '%s' "
                           "is not a C identifier", t->name, cname);
      else
        fprintf(stderr, "%s:%d:%d: warning: '%s' is not exported: its name is not a C identifier\n", src->name,
                t->loc.line, t->loc.col, t->name);
      continue;
    }
    /* a library runs no statement of the file: a function that reads a
       value bound by one would fail at every call */
    PtrMap seen = {0};
    ValueRead read = {0};
    if (reads_value_def(fn, &seen, &read)) {
      const char *through =
          tc_current(read.reader) == tc_current(fn) ? "" : xprintf(" (through '%s')", read.reader->name);
      fprintf(stderr,
              "%s:%d:%d: warning: '%s' is not exported: it reads '%s'%s, a top-level value (line %d), and a "
              "library runs none of the file's statements\n",
              src->name, t->loc.line, t->loc.col, cname, read.value->name, through, read.value->loc.line);
      continue;
    }
    Type *arg = type_resolve(ft->fst), *result = type_resolve(ft->snd);
    if (rt_layout_count(flatten_rt_layout(pl.env, arg), true) > RT_LIB_MAX_LEAVES ||
        rt_layout_count(flatten_rt_layout(pl.env, result), true) > RT_LIB_MAX_LEAVES) {
      fprintf(stderr, "%s:%d:%d: warning: '%s' is not exported: its argument or result has more than %d parts\n",
              src->name, t->loc.line, t->loc.col, cname, RT_LIB_MAX_LEAVES);
      continue;
    }
    const CgExport *same = NULL;
    for (int j = 0; j < lib->exports.len && !same; j++)
      if (strcmp(((CgExport *)lib->exports.data[j])->name, cname) == 0)
        same = lib->exports.data[j];
    if (same) {
      diag_error(t->loc, "'%s' cannot be exported as %s_%s: line %d exports that C name already%s", t->name, name,
                 cname, same->loc.line,
                 instance ? " (an instance is named after its function and the types of its type variables, "
                            "docs/library.md)"
                          : "");
      continue;
    }
    CgExport *e = NEW(CgExport);
    e->name = cname;
    e->instance_of = instance ? fn->name : NULL;
    e->type_text = type_scheme_to_string(t->def->type);
    e->arg = flatten_rt_layout(pl.env, arg);
    e->result = flatten_rt_layout(pl.env, result);
    e->loc = t->loc;
    int nleaves = rt_layout_count(e->arg, true) + 1;
    const char **names = xmalloc(sizeof(char *) * (size_t)nleaves);
    int at = 0;
    leaf_names(e->arg, t->param, NULL, names, &at);
    tidy_names(names, at);
    for (int j = 0; j < at; j++) /* a parameter named like a C keyword or the context keeps a number */
      if (names[j] && (strcmp(names[j], "ctx") == 0 || strncmp(names[j], "result", 6) == 0))
        names[j] = xprintf("%s_", names[j]);
    e->arg_names = names;
    vec_push(&statements, export_statement(pl.env, fn, t->loc, lib->exports.len, arg, result));
    vec_push(&lib->exports, e);
  }
  if (diag_count() > 0)
    return 1;
  if (lib->exports.len == 0) {
    diag_error((Loc){.src = src, .line = 1, .col = 1}, "no function of '%s' can be exported: a library needs a "
                                                      "top-level function of first-order monomorphic type, or "
                                                      "a declaration naming a first-order instance of a polymorphic one (docs/library.md)",
               lb->file);
    return 1;
  }
  for (int i = 0; i < statements.len; i++) {
    TopLevel *t = statements.data[i];
    t->program = prog;
    t->index = prog->tops.len;
    vec_push(&prog->tops, t);
  }
  pl.prog = prog;
  if (!pipeline_run_to(&pl, pipeline_stage("fused")))
    return 1;
  const char *so = xprintf("%slib%s.so", dir, name);
  CgBuild build = {lb->target, so, lb->arch, lb->keep, lb->verbose, lb->file, lb->no_cache, nessie_version, lib};
  if (cg_check_output(&build, lb->file) != 0)
    return 2;
  const char *rt = cg_runtime_dir();
  const char *binding = rt ? read_text(xprintf("%s/include/lib.py", rt)) : NULL;
  if (!binding) {
    fprintf(stderr, "nessie: error: the runtime's Python binding (lib/nessie/include/lib.py) is not next to the "
                    "nessie binary: run `make`, or `make install`\n");
    return 1;
  }
  if (cg_build(pl.fused, &build) != 0)
    return 1;
  if (!write_file(xprintf("%s%s.h", dir, name), write_header, lib, lb->target, lb->file, NULL) ||
      !write_file(xprintf("%s%s.py", dir, name), cg_library_python, lib, lb->target, lb->file, binding))
    return 1;
  return 0;
}
