/*
 * emit.c: the generated text: indented lines, names, C types and
 * constants, and the two tables every generated program carries: the
 * layouts of the values the runtime reads whole (printing, host
 * primitives, name/eql/hash), and the sites of the checks (where in the
 * NESL source each stands, for the error's words).  And what both
 * targets write alike of a kernel's host function: the comment before
 * it, a SOAC's size, its results' locals and its two exits.
 *
 * Names are λcu's (x23, i_22, K3), so that a person reading the C finds
 * the λcu dump's variables in it; every kernel and function carries a
 * comment naming its NESL source line.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* Room for 'extra' more bytes and a NUL. */
static void text_reserve(CgText *t, size_t extra) {
  if (t->len + extra + 1 <= t->cap)
    return;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + extra + 1)
    cap *= 2;
  char *p = realloc(t->data, cap);
  if (!p)
    diag_out_of_memory(cap);
  t->data = p;
  t->cap = cap;
}

void cg_text_write(CgText *t, const char *s, size_t n) {
  if (n == 0)
    return; /* 's' may be an empty text's NULL */
  text_reserve(t, n);
  memcpy(t->data + t->len, s, n);
  t->len += n;
}

void cg_text_free(CgText *t) {
  free(t->data);
  *t = (CgText){0};
}

/* 'fmt' split into 'f': its text between conversions, each conversion
   one of %s, %d, %c and %% (else 'general'). */
static void split_format(CgFormat *f, const char *fmt) {
  *f = (CgFormat){fmt, false, 0, {{0}}};
  for (const char *p = fmt;;) {
    if (f->n == CG_FORMAT_PIECES) {
      f->general = true;
      return;
    }
    const char *start = p;
    while (*p && *p != '%')
      p++;
    f->pieces[f->n].text = start;
    f->pieces[f->n].len = (int)(p - start);
    f->pieces[f->n].conv = 0;
    f->n++;
    if (!*p)
      return;
    if (p[1] != 's' && p[1] != 'd' && p[1] != 'c' && p[1] != '%') {
      f->general = true;
      return;
    }
    f->pieces[f->n - 1].conv = p[1];
    p += 2;
  }
}

static inline void text_put(CgText *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap)
    text_reserve(t, n);
  memcpy(t->data + t->len, s, n);
  t->len += n;
}

/* Every line of generated code comes here: written straight into the
   text, without stdio (printf to a stream was a sixth of the compiler's
   time), its format's text copied piece by piece (f, split once per
   call site). */
void cg_line_as(CgFormat *f, Cg *cg, const char *fmt, ...) {
  if (f->fmt != fmt)
    split_format(f, fmt);
  CgText *t = cg->out;
  if (cg->indent < 0) /* a block closed twice: stop here, not in text_reserve's endless doubling */
    die("codegen: negative indentation before \"%s\"", fmt);
  if (!f->general) {
    text_reserve(t, 2 * (size_t)cg->indent);
    for (int i = 0; i < cg->indent; i++) {
      t->data[t->len++] = ' ';
      t->data[t->len++] = ' ';
    }
    va_list ap;
    va_start(ap, fmt);
    for (int i = 0; i < f->n; i++) {
      text_put(t, f->pieces[i].text, (size_t)f->pieces[i].len);
      char digits[FORMAT_INT_SIZE], c;
      const char *s;
      switch (f->pieces[i].conv) {
      case 's':
        s = va_arg(ap, const char *);
        if (!s)
          s = "(null)"; /* as glibc prints it */
        text_put(t, s, strlen(s));
        break;
      case 'd':
        text_put(t, digits, (size_t)format_int(digits, va_arg(ap, int)));
        break;
      case 'c':
        c = (char)va_arg(ap, int);
        text_put(t, &c, 1);
        break;
      case '%':
        text_put(t, "%", 1);
        break;
      default:
        break;
      }
    }
    va_end(ap);
    text_put(t, "\n", 1);
    return;
  }
  text_reserve(t, 2 * (size_t)cg->indent + 128);
  for (int i = 0; i < cg->indent; i++) {
    t->data[t->len++] = ' ';
    t->data[t->len++] = ' ';
  }
  va_list ap;
  va_start(ap, fmt);
  size_t room = t->cap - t->len;
  size_t n = (size_t)fmt_vsnprintf(t->data + t->len, room, fmt, ap);
  va_end(ap);
  if (n >= room) {
    text_reserve(t, n);
    va_start(ap, fmt);
    fmt_vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
  }
  t->len += n;
  cg_text_write(t, "\n", 1);
}

void cg_blank(Cg *cg) { cg_text_write(cg->out, "\n", 1); }

const char *cg_rtop(FlatOp op) {
  static const char *const names[] = {
#define FLAT_OP(name, text, class, args, results, combine) "RT_" #name,
#include "../rt/ops.def"
  };
  return names[op];
}

/* A kernel parameter's C declaration after a comma: ", int32_t v_x3",
   ", RtValue *v_x4"; a result's, by address: ", int32_t *out_v_x5",
   ", RtValue **out_v_x6". */
static void kernel_param(Buf *b, const LcuVar *v, bool result) {
  bool scalar = v->type.kind == LT_SCALAR;
  buf_printf(b, ", %s%s%s%s", scalar ? cg_ctype(v->type.base) : "RtValue", scalar ? " " : " *",
             result ? "*out_" : "", cg_name(v));
}

const char *cg_record_name(const LcuKernel *k) { return xprintf("%s_record", k->name); }

const char *cg_kernel_signature(const Cg *cg, const LcuKernel *k, const char *name, bool checks) {
  Buf b = {0};
  /* a recording version (cpu.c) is in a unit of its own where the
     program is split; it runs only where an element failed */
  bool record = strcmp(name, cg_record_name(k)) == 0;
  bool entry = cg->split && (strcmp(name, k->name) == 0 || record);
  buf_printf(&b, "%s%svoid %s(RtKernelError *err, RtLoc loc, int run", record ? "__attribute__((cold)) " : "",
             entry ? "" : "static ", name);
  for (int i = 0; i < k->params.len; i++)
    kernel_param(&b, k->params.data[i], false);
  for (int i = 0; i < k->results.len; i++)
    kernel_param(&b, k->results.data[i], true);
  if (checks)
    buf_puts(&b, cg_check_params(cg, k));
  buf_puts(&b, ")");
  return buf_str(&b);
}

const char *cg_temp(Cg *cg) {
  char name[FORMAT_INT_SIZE + 1] = "t";
  format_int(name + 1, ++cg->temps);
  return xstrdup(name);
}

/* The C names made so far in this program's generation (LcuVar -> its
   name): a variable is named at every use, hundreds of thousands of
   times in a large program.  Emptied by cg_program before and after. */
static PtrMap names;

void cg_forget_names(void) { names = (PtrMap){0}; }

const char *cg_name(const LcuVar *v) {
  void **memo = ptrmap_slot(&names, v, true);
  if (*memo)
    return *memo;
  /* the printed name (xs_12), made a C identifier; the id keeps it
     unique.  Built on the stack, without printf. */
  const char *n = v->name ? v->name : "x";
  size_t len = strlen(n);
  char id[FORMAT_INT_SIZE];
  int idlen = format_int(id, v->id);
  char small[128];
  char *name = len + (size_t)idlen + 4 <= sizeof small ? small : xmalloc_atomic(len + (size_t)idlen + 4);
  char *at = name;
  *at++ = 'v'; /* never a C keyword or a runtime name: prefixed */
  *at++ = '_';
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)n[i];
    *at++ = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? (char)c : '_';
  }
  if (!v->name || !strstr(v->name, id)) {
    *at++ = '_';
    memcpy(at, id, (size_t)idlen);
    at += idlen;
  }
  *memo = xstrndup(name, (size_t)(at - name));
  return *memo;
}

const char *cg_ctype(FlatBase b) {
  switch (b) {
  case FB_INT:
    return "int32_t";
  case FB_FLOAT:
    return "double";
  case FB_BOOL:
    return "uint8_t";
  case FB_CHAR:
    return "char";
  }
  unreachable();
}

const char *cg_rtbase(FlatBase b) {
  switch (b) {
  case FB_INT:
    return "RT_INT";
  case FB_FLOAT:
    return "RT_FLOAT";
  case FB_BOOL:
    return "RT_BOOL";
  case FB_CHAR:
    return "RT_CHAR";
  }
  unreachable();
}

const char *cg_member(FlatBase b) {
  switch (b) {
  case FB_INT:
    return "i";
  case FB_FLOAT:
    return "f";
  case FB_BOOL:
    return "b";
  case FB_CHAR:
    return "c";
  }
  unreachable();
}

const char *cg_constant(FlatAtom c) {
  switch (c.kind) {
  case FA_INT:
    /* INT32_MIN has no literal of its own */
    return c.u.i == INT32_MIN ? "(-2147483647 - 1)" : xprintf("%d", (int)c.u.i);
  case FA_FLOAT: {
    /* %.17g gives the double back exactly; a point or an exponent keeps it
       a double */
    char *s = xprintf("%.17g", c.u.f);
    if (!strpbrk(s, ".eEn"))
      s = xprintf("%s.0", s);
    return c.u.f < 0 ? xprintf("(%s)", s) : s;
  }
  case FA_BOOL:
    return c.u.b ? "1" : "0";
  case FA_CHAR: {
    unsigned char ch = (unsigned char)c.u.c;
    if (ch >= 32 && ch < 127 && ch != '\'' && ch != '\\')
      return xprintf("'%c'", ch);
    return xprintf("(char)%d", ch);
  }
  case FA_VAR:
    break;
  }
  die("cg_constant: a variable");
}

const char *cg_string(const char *s, size_t n) {
  Buf b = {0};
  buf_putc(&b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      buf_printf(&b, "\\%c", c);
    else if (c >= 32 && c < 127 && c != '?') /* '?': no trigraphs */
      buf_putc(&b, (char)c);
    else
      buf_printf(&b, "\\%03o", c);
  }
  buf_putc(&b, '"');
  return buf_str(&b);
}

/* ---- layouts ---- */

static const char *layout_kind(RtLayoutKind k) {
  static const char *const names[] = {"RL_INT", "RL_FLOAT", "RL_BOOL", "RL_CHAR", "RL_SEQ", "RL_PAIR", "RL_DATA"};
  return names[k];
}

/* Records that the piece being written names layout 'l', and so its
   parts (whose definitions it points at): their representatives, the
   layouts whose copies are written (cg_layout). */
static void use_layout(Cg *cg, const RtLayout *l) {
  for (; l && cg->uses; l = l->elem) {
    const RtLayout *rep = ptrmap_get(&cg->layout_rep, l);
    void **slot = ptrmap_slot(cg->uses, rep, true);
    if (*slot)
      return; /* and its parts with it */
    *slot = (void *)rep;
    use_layout(cg, l->fst);
    use_layout(cg, l->snd);
  }
}

void cg_use(Cg *cg, const void *thing) {
  if (cg->uses)
    ptrmap_put(cg->uses, thing, (void *)thing);
}

/* The text of a copy of 'l' after its name ("= {...};"), its parts
   named: two layouts with the same text are equal. */
static const char *layout_text(const Cg *cg, const RtLayout *l) {
  const char *part[3];
  const RtLayout *parts[3] = {l->fst, l->snd, l->elem};
  for (int i = 0; i < 3; i++)
    part[i] = parts[i] ? xprintf("&%s", (const char *)ptrmap_get(&cg->layouts, parts[i])) : "NULL";
  return xprintf("{%s, %s, %s, %s, %s};", layout_kind(l->kind), part[0], part[1], part[2],
                 l->name ? cg_string(l->name, strlen(l->name)) : "NULL");
}

/* Equal layouts (flattening makes one for each value it describes: a
   program of 2000 statements `vI = sum(...)` had 2000 copies of `int`)
   share one copy, the first's, whose name is its place in layout_list. */
const char *cg_layout(Cg *cg, const RtLayout *l) {
  if (!l)
    return "NULL";
  const char *name = ptrmap_get(&cg->layouts, l);
  if (name) {
    use_layout(cg, l);
    return name;
  }
  /* the parts first: C wants them declared before they are pointed at */
  cg_layout(cg, l->fst);
  cg_layout(cg, l->snd);
  cg_layout(cg, l->elem);
  const char *text = layout_text(cg, l);
  const RtLayout *rep = map_get(&cg->layout_names, text);
  if (!rep) {
    rep = l;
    map_put(&cg->layout_names, text, (void *)rep);
    vec_push(&cg->layout_list, (void *)l);
    name = xprintf("layout_%d", cg->layout_list.len);
  } else {
    name = ptrmap_get(&cg->layouts, rep);
  }
  ptrmap_put(&cg->layouts, l, (void *)name);
  ptrmap_put(&cg->layout_rep, l, (void *)rep);
  use_layout(cg, l);
  return name;
}

const char *cg_layout_definition(const Cg *cg, const RtLayout *l) {
  return xprintf("static const RtLayout %s = %s\n", (const char *)ptrmap_get(&cg->layouts, l), layout_text(cg, l));
}

/* ---- sites ---- */

static bool same_string(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

/* The number of the site equal to 'want' in every field, made if new. */
static int site_like(Cg *cg, CgSite want) {
  for (int i = 0; i < cg->sites.len; i++) {
    const CgSite *s = cg->sites.data[i];
    if (lcu_loc_equal(s->loc, want.loc) && same_string(s->prim, want.prim) && same_string(s->message, want.message) &&
        same_string(s->lib_fn, want.lib_fn) && same_string(s->user_fn, want.user_fn))
      return i;
  }
  CgSite *s = NEW(CgSite);
  *s = want;
  vec_push(&cg->sites, s);
  return cg->sites.len - 1;
}

int cg_site(Cg *cg, Loc loc, const char *prim, const char *message) {
  return site_like(cg, (CgSite){.loc = loc, .prim = prim, .message = message});
}

int cg_exp_site(Cg *cg, const LcuExp *e, const CgChecks *c, const char *prim) {
  if (e->lib_fn)
    return site_like(cg, (CgSite){.loc = e->loc, .prim = prim, .lib_fn = e->lib_fn});
  bool own = e->loc.src && !lcu_loc_equal(e->loc, c->loc);
  return cg_site(cg, own ? e->loc : no_loc, prim, NULL);
}

int cg_fn_site(Cg *cg, Loc loc, const char *lib_fn, const char *user_fn) {
  return site_like(cg, (CgSite){.loc = loc, .lib_fn = lib_fn, .user_fn = user_fn});
}

const char *cg_literal(const char *s) {
  /* made once per string (kept alive by the map): a program names its
     file at every check, and library code's file and function at every
     statement inlined from it, alternately */
  static PtrMap literals;
  void **memo = ptrmap_slot(&literals, s, true);
  if (!*memo)
    *memo = (void *)cg_string(s, strlen(s));
  return *memo;
}

const char *cg_loc(Loc loc) {
  if (!loc.src)
    return "RT_LOC(NULL, 0, 0)";
  /* the last one again: a run names its location three times */
  static Loc last;
  static const char *text;
  if (!text || !lcu_loc_equal(loc, last)) {
    last = loc;
    const Inlined *in = loc.inlined;
    if (in) /* the record of inlining, a static object of its own */
      text = xprintf("RT_LOC_VIA(%s, %d, %d, RT_INLINED(%s, %s))", cg_literal(loc.src->name), loc.line, loc.col,
                     cg_literal(in->fn), cg_inlined_call(in));
    else
      text = xprintf("RT_LOC(%s, %d, %d)", cg_literal(loc.src->name), loc.line, loc.col);
  }
  return text;
}

const char *cg_inlined_call(const Inlined *in) {
  Loc c = in->call;
  return c.src ? xprintf("%s, %d, %d", cg_literal(c.src->name), c.line, c.col) : "NULL, 0, 0";
}

const char *cg_where(Loc loc) {
  if (!loc.src)
    return "";
  /* the source line itself, cut, so that the reader sees the NESL */
  const char *p = source_line(loc.src, loc.line);
  const char *end = p;
  while (*end && *end != '\n' && end - p < 70)
    end++;
  Buf b = {0};
  for (const char *q = p; q < end; q++)
    buf_putc(&b, *q == '*' && q[1] == '/' ? '+' : *q); /* no end of comment */
  return xprintf("%s:%d: %s", loc.src->name, loc.line, buf_str(&b));
}

/* Is expression 'e' the variable 'v'? */
static bool is_var(const LcuExp *e, const LcuVar *v) { return e->kind == LE_VAR && e->var == v; }

/* Is 'e' `a OP b` or `b OP a` of a binary operation OP? */
static bool of_both(const LcuExp *e, const LcuVar *a, const LcuVar *b) {
  return e->kind == LE_OP && e->nargs == 2 &&
         ((is_var(e->args[0], a) && is_var(e->args[1], b)) || (is_var(e->args[0], b) && is_var(e->args[1], a)));
}

/* True if REDUCE 's''s operator is commutative, so that its elements may
   be combined in any order (rtg::launch_reduce_commutative): each result is
   `a OP b` or `b OP a` of its two arguments' components, OP one of +, *,
   and, or, xor, or an int (char, bool) minimum or maximum, `if a CMP b
   then a else b`.  (A float maximum is not taken: of 0.0 and -0.0, which
   one is first decides what it prints.) */
bool cg_op_commutative(const LcuSoac *s) {
  const LcuThunk *op = s->second;
  int nv = op->body.len;
  if (op->params.len != 2 * nv || op->lets.len)
    return false;
  for (int i = 0; i < nv; i++) {
    const LcuExp *e = op->body.data[i];
    const LcuVar *a = op->params.data[i], *b = op->params.data[nv + i];
    if (of_both(e, a, b) &&
        (e->op == FLAT_ADD || e->op == FLAT_MUL || e->op == FLAT_AND || e->op == FLAT_OR || e->op == FLAT_XOR))
      continue;
    if (e->kind == LE_IF && e->type != FB_FLOAT && e->args[0]->kind == LE_OP && e->args[0]->nargs == 2) {
      const LcuExp *c = e->args[0];
      bool cmp = c->op == FLAT_LT || c->op == FLAT_LE || c->op == FLAT_GT || c->op == FLAT_GE;
      bool same = (is_var(c->args[0], a) && is_var(c->args[1], b) && is_var(e->args[1], a) && is_var(e->args[2], b)) ||
                  (is_var(c->args[0], b) && is_var(c->args[1], a) && is_var(e->args[1], b) && is_var(e->args[2], a));
      if (cmp && same)
        continue;
    }
    return false;
  }
  return true;
}

bool cg_op_int_sum(const LcuSoac *s) {
  const LcuThunk *op = s->second;
  int nv = op->body.len;
  if (op->params.len != 2 * nv || op->lets.len || s->identity.len != nv)
    return false;
  for (int i = 0; i < nv; i++) {
    const LcuExp *e = op->body.data[i];
    const LcuVar *a = op->params.data[i], *b = op->params.data[nv + i];
    const FlatAtom *id = s->identity.data[i];
    if (!of_both(e, a, b) || e->op != FLAT_ADD || e->type != FB_INT)
      return false;
    if (id->kind != FA_INT || id->u.i != 0)
      return false;
  }
  return nv > 0;
}

bool cg_kernel_result(const LcuKernel *k, const LcuVar *v) {
  for (int i = 0; i < k->results.len; i++)
    if (k->results.data[i] == v)
      return true;
  return false;
}

static bool exp_divides_by(const LcuExp *e, const LcuVar *v) {
  if (e->kind == LE_OP && (e->op == FLAT_DIV || e->op == FLAT_REM) && e->nargs == 2 && e->args[0]->type == FB_INT &&
      e->args[1]->kind == LE_VAR && e->args[1]->var == v)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (exp_divides_by(e->args[i], v))
      return true;
  return false;
}

static bool thunk_divides_by(const LcuThunk *t, const LcuVar *v) {
  for (int i = 0; t && i < lcu_thunk_nexps(t); i++)
    if (exp_divides_by(lcu_thunk_exp(t, i), v))
      return true;
  return false;
}

bool cg_divides_by(const LcuKernel *k, const LcuVar *v) {
  if (v->type.kind != LT_SCALAR || v->type.base != FB_INT)
    return false;
  bool param = false;
  for (int i = 0; i < k->params.len; i++)
    param |= k->params.data[i] == v;
  for (int i = 0; param && i < k->soacs.len; i++) {
    const LcuSoac *s = k->soacs.data[i];
    if (thunk_divides_by(s->pull, v) || thunk_divides_by(s->second, v))
      return true;
  }
  return false;
}

/* Each kernel's runs in block 'b' (cg->kernel_runs), and the kernels
   run there by a function ('in_function': cg->function_kernels). */
static void note_runs(Cg *cg, const LcuBlock *b, bool in_function) {
  for (int i = 0; b && i < b->stmts.len; i++) {
    const LcuStmt *s = b->stmts.data[i];
    if (s->kind == LS_RUN) {
      Vec *runs = ptrmap_get(&cg->kernel_runs, s->kernel);
      if (!runs) {
        runs = NEW(Vec);
        ptrmap_put(&cg->kernel_runs, s->kernel, runs);
      }
      vec_push(runs, (void *)s);
      if (in_function)
        ptrmap_put(&cg->function_kernels, s->kernel, s->kernel);
    }
    note_runs(cg, s->then, in_function);
    note_runs(cg, s->els, in_function);
    note_runs(cg, s->body, in_function);
  }
}

/* The program's runs by kernel, walked once on the first question. */
static void note_all_runs(Cg *cg) {
  if (cg->kernel_runs_made)
    return;
  for (int i = 0; i < cg->p->funcs.len; i++)
    note_runs(cg, ((const LcuFunc *)cg->p->funcs.data[i])->body, true);
  for (int i = 0; i < cg->p->tops.len; i++)
    note_runs(cg, ((const LcuTop *)cg->p->tops.data[i])->body, false);
  cg->kernel_runs_made = true;
}

bool cg_kernel_in_function(Cg *cg, const LcuKernel *k) {
  note_all_runs(cg);
  return ptrmap_get(&cg->function_kernels, k) != NULL;
}

/* Do atoms 'a' and 'b' have one length whenever they exist? */
static bool same_length_args(const LcuAtom *a, const LcuAtom *b) {
  if (!a->var || !b->var)
    return false;
  return a->var == b->var || (a->var->strict > 0 && a->var->strict == b->var->strict);
}

const LcuVar *cg_same_length_param(Cg *cg, const LcuKernel *k, const LcuVar *v) {
  if (v->type.kind != LT_VEC)
    return NULL;
  note_all_runs(cg);
  const Vec *runs = ptrmap_get(&cg->kernel_runs, k);
  int iv = -1;
  for (int i = 0; i < k->params.len; i++)
    if (k->params.data[i] == v)
      iv = i;
  if (!runs || iv < 0)
    return NULL;
  for (int j = 0; j < iv; j++) {
    const LcuVar *q = k->params.data[j];
    if (q->type.kind != LT_VEC)
      continue;
    bool all = true;
    for (int r = 0; r < runs->len && all; r++) {
      const LcuStmt *run = runs->data[r];
      all = run->args.len == k->params.len && same_length_args(run->args.data[j], run->args.data[iv]);
    }
    if (all)
      return q;
  }
  return NULL;
}

bool cg_dead_result(const LcuKernel *k, int index, const LcuVar *v) {
  const LcuSoac *s = k->soacs.data[index];
  bool kind = s->kind == SOAC_MAP || s->kind == SOAC_SEG_MAP || s->kind == SOAC_FILTER || s->kind == SOAC_PARTITION ||
              s->kind == SOAC_SPLIT;
  if (!kind || cg_kernel_result(k, v))
    return false;
  for (int i = index + 1; i < k->soacs.len; i++)
    if (lcu_soac_reads(k->soacs.data[i], v))
      return false;
  return true;
}

/* ---- the kernels' host functions ---- */

void cg_kernel_comment(Cg *cg, const LcuKernel *k) {
  Buf what = {0};
  for (int i = 0; i < k->soacs.len; i++)
    buf_printf(&what, "%s%s", i ? ", " : "", lcu_soac_name(((LcuSoac *)k->soacs.data[i])->kind));
  const LcuSoac *first = k->soacs.len ? k->soacs.data[0] : NULL;
  cg_line(cg, "/* %s: %s%s%s */", k->name, buf_str(&what), first && first->loc.src ? " -- " : "",
          first ? cg_where(first->loc) : "");
}

const char *cg_soac_size(Cg *cg, const LcuSize *sz, CgBinding *env, CgRecord record) {
  const char *n = cg_temp(cg);
  if (sz->var)
    cg_line(cg, "const int64_t %s = %s;", n, cg_lookup(env, sz->var)->value);
  else if (sz->length)
    cg_line(cg, "const int64_t %s = %s;", n, cg_lookup(env, sz->length)->length);
  else
    cg_line(cg, "const int64_t %s = %d;", n, (int)sz->value);
  if (sz->var) {
    int site = cg_site(cg, no_loc, NULL, NULL);
    cg_line(cg, "if (%s < 0) {", n);
    cg->indent++;
    record(cg, xprintf("0, RT_CHECK_SIZE, %d, 0, 0, 0, %s, 0.0", site, n));
    cg_line(cg, "goto fail;");
    cg->indent--;
    cg_line(cg, "}");
  }
  return n;
}

void cg_declare_result(Cg *cg, const LcuVar *v, Vec *vectors) {
  if (v->type.kind == LT_SCALAR) {
    cg_line(cg, "%s %s = 0;", cg_ctype(v->type.base), cg_name(v));
  } else {
    cg_line(cg, "RtValue *%s = NULL;", cg_name(v));
    vec_push(vectors, (void *)v);
  }
}

void cg_kernel_exits(Cg *cg, const LcuKernel *k, const Vec *vectors) {
  for (int i = 0; i < k->results.len; i++) {
    const LcuVar *v = k->results.data[i];
    cg_line(cg, "*out_%s = %s;", cg_name(v), cg_name(v));
  }
  /* the intermediate vectors of a kernel of several SOACs */
  for (int i = 0; i < vectors->len; i++)
    if (!cg_kernel_result(k, vectors->data[i]))
      cg_line(cg, "rt_release(%s);", cg_name(vectors->data[i]));
  cg_line(cg, "return;");
  cg->indent--;
  cg_line(cg, "fail:");
  cg->indent++;
  for (int i = 0; i < vectors->len; i++)
    cg_line(cg, "rt_release(%s);", cg_name(vectors->data[i]));
}
