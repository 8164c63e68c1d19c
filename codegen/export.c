/*
 * export.c: the outside of a library that `nessie --library` makes
 * (docs/library.md): the unit of its C API, its header NAME.h and its
 * Python module NAME.py.
 *
 * The compiled program does the work: export k is the statement
 * `__keep_value(k, f(__global_value(k)))`, which rt/lib.c runs with the
 * caller's argument.  What is written here only describes the exports
 * to rt/lib.c and to the caller: a value of NESL type t crosses as the
 * leaves of its host components H(t) (rt.h, flat/flat.h): a scalar as a
 * C scalar, a sequence as a handle holding V(elem), tuples and
 * datatypes as their leaves one after the other.  Each sequence type
 * that is a leaf somewhere gets a handle type and a number.
 */
#include <string.h>

#include "codegen.h"

/* ---- types ---- */

/* The name of layout 'l' in C identifiers: prefix notation, so that
   different types have different names (seq_int, tup_int_seq_float). */
static void type_code(Buf *b, const RtLayout *l) {
  switch (l->kind) {
  case RL_INT:
    buf_puts(b, "int");
    return;
  case RL_FLOAT:
    buf_puts(b, "float");
    return;
  case RL_BOOL:
    buf_puts(b, "bool");
    return;
  case RL_CHAR:
    buf_puts(b, "char");
    return;
  case RL_SEQ:
    buf_puts(b, "seq_");
    type_code(b, l->elem);
    return;
  case RL_PAIR:
    buf_puts(b, "tup_");
    type_code(b, l->fst);
    buf_putc(b, '_');
    type_code(b, l->snd);
    return;
  case RL_DATA:
    buf_printf(b, "%s_", l->name);
    type_code(b, l->fst);
    return;
  }
}

static const char *layout_code(const RtLayout *l) {
  Buf b = {0};
  type_code(&b, l);
  return buf_str(&b);
}

/* The NESL text of layout 'l' (datatypes by their name and fields). */
static void type_text(Buf *b, const RtLayout *l) {
  switch (l->kind) {
  case RL_SEQ:
    buf_putc(b, '[');
    type_text(b, l->elem);
    buf_putc(b, ']');
    return;
  case RL_PAIR:
    buf_putc(b, '(');
    type_text(b, l->fst);
    buf_puts(b, ", ");
    type_text(b, l->snd);
    buf_putc(b, ')');
    return;
  case RL_DATA:
    buf_printf(b, "%s", l->name);
    return;
  default:
    buf_puts(b, layout_code(l));
  }
}

static const char *layout_text(const RtLayout *l) {
  Buf b = {0};
  type_text(&b, l);
  return buf_str(&b);
}

static const char *base_ctype(RtBase b) {
  switch (b) {
  case RT_INT:
    return "int32_t";
  case RT_FLOAT:
    return "double";
  case RT_BOOL:
    return "bool";
  default:
    return "char";
  }
}

static const char *base_rt(RtBase b) {
  static const char *const names[] = {"RT_INT", "RT_FLOAT", "RT_BOOL", "RT_CHAR"};
  return names[b];
}

/* A sequence type that is a leaf somewhere: its layout, its code, and
   V(elem)'s components. */
typedef struct SeqType {
  const RtLayout *layout;
  const char *code;
  int ncomps;
  RtType types[RT_LIB_MAX_LEAVES];
  int parent[RT_LIB_MAX_LEAVES];
  const char *what[RT_LIB_MAX_LEAVES]; /* each component in words */
} SeqType;

/* V('l')'s components into 't', counted by component 'parent' (-1: the
   sequence's length) at nesting 'depth' (1: the elements). */
static void vcomps(SeqType *t, const RtLayout *l, int parent, int depth) {
  if (t->ncomps >= RT_LIB_MAX_LEAVES)
    return;
  switch (l->kind) {
  case RL_PAIR:
    vcomps(t, l->fst, parent, depth);
    vcomps(t, l->snd, parent, depth);
    return;
  case RL_DATA:
    vcomps(t, l->fst, parent, depth);
    return;
  case RL_SEQ: {
    int i = t->ncomps++;
    t->types[i] = rt_segdes_type();
    t->parent[i] = parent;
    t->what[i] = xprintf("lengths_%d", depth);
    vcomps(t, l->elem, i, depth + 1);
    return;
  }
  default: {
    int i = t->ncomps++;
    t->types[i] = rt_vec_type(rt_layout_base(l->kind));
    t->parent[i] = parent;
    t->what[i] = xprintf("values_%d", depth);
    return;
  }
  }
}

typedef struct Leaf {
  const RtLayout *layout; /* a base type or a sequence */
  int seq;                /* the sequence type's number, or -1 */
  const char *name;
} Leaf;

typedef struct Tables {
  Vec seqs; /* SeqType * */
} Tables;

static int seq_number(Tables *tb, const RtLayout *l) {
  const char *code = layout_code(l);
  for (int i = 0; i < tb->seqs.len; i++)
    if (strcmp(((SeqType *)tb->seqs.data[i])->code, code) == 0)
      return i;
  SeqType *t = NEW(SeqType);
  t->layout = l;
  t->code = code;
  vcomps(t, l->elem, -1, 1);
  /* a tuple's fields at one depth: values_1_1, values_1_2 ... */
  const char *first[RT_LIB_MAX_LEAVES];
  for (int i = 0; i < t->ncomps; i++)
    first[i] = t->what[i];
  for (int i = 0; i < t->ncomps; i++) {
    int same = 0, before = 0;
    for (int j = 0; j < t->ncomps; j++) {
      same += strcmp(first[j], first[i]) == 0;
      before += j < i && strcmp(first[j], first[i]) == 0;
    }
    if (same > 1)
      t->what[i] = xprintf("%s_%d", first[i], before + 1);
  }
  vec_push(&tb->seqs, t);
  return tb->seqs.len - 1;
}

/* The leaves of H('l') into 'out', named after 'base' (numbered when
   there are several). */
static void leaves(Tables *tb, const RtLayout *l, Vec *out) {
  switch (l->kind) {
  case RL_PAIR:
    leaves(tb, l->fst, out);
    leaves(tb, l->snd, out);
    return;
  case RL_DATA:
    leaves(tb, l->fst, out);
    return;
  default: {
    Leaf *f = NEW(Leaf);
    f->layout = l;
    f->seq = l->kind == RL_SEQ ? seq_number(tb, l) : -1;
    vec_push(out, f);
    return;
  }
  }
}

typedef struct Func {
  const CgExport *e;
  Vec args, results; /* Leaf * */
} Func;

static Vec funcs_of(const CgLibrary *lib, Tables *tb) {
  Vec fs = {0};
  for (int i = 0; i < lib->exports.len; i++) {
    Func *f = NEW(Func);
    f->e = lib->exports.data[i];
    leaves(tb, f->e->arg, &f->args);
    leaves(tb, f->e->result, &f->results);
    for (int j = 0; j < f->args.len; j++) {
      Leaf *a = f->args.data[j];
      a->name = f->e->arg_names && f->e->arg_names[j] ? f->e->arg_names[j] : xprintf("arg%d", j + 1);
    }
    for (int j = 0; j < f->results.len; j++)
      ((Leaf *)f->results.data[j])->name = f->results.len == 1 ? "result" : xprintf("result%d", j + 1);
    vec_push(&fs, f);
  }
  return fs;
}

static const char *seq_cname(const CgLibrary *lib, const SeqType *t) { return xprintf("%s_%s", lib->name, t->code); }

static const char *leaf_ctype(const CgLibrary *lib, const Tables *tb, const Leaf *l, bool result) {
  if (l->seq < 0)
    return xprintf("%s%s", base_ctype(rt_layout_base(l->layout->kind)), result ? " *" : "");
  const char *h = seq_cname(lib, tb->seqs.data[l->seq]);
  return result ? xprintf("%s **", h) : xprintf("const %s *", h);
}

/* The parameters of a function's C entry point, after the context. */
static const char *func_params(const CgLibrary *lib, const Tables *tb, const Func *f) {
  Buf b = {0};
  buf_printf(&b, "%s_context *ctx", lib->name);
  for (int j = 0; j < f->args.len; j++) {
    const Leaf *a = f->args.data[j];
    buf_printf(&b, ", %s%s%s", leaf_ctype(lib, tb, a, false), a->seq < 0 ? " " : "", a->name);
  }
  for (int j = 0; j < f->results.len; j++) {
    const Leaf *r = f->results.data[j];
    buf_printf(&b, ", %s%s", leaf_ctype(lib, tb, r, true), r->name);
  }
  return buf_str(&b);
}

/* The buffer parameters of a sequence type's _new ('in') or _read. */
static const char *seq_buffers(const SeqType *t, bool in) {
  Buf b = {0};
  for (int i = 0; i < t->ncomps; i++) {
    const char *type = t->types[i].kind == RT_SEGDES ? "int64_t" : base_ctype(t->types[i].base);
    buf_printf(&b, ", %s%s *%s", in ? "const " : "", type, t->what[i]);
  }
  return buf_str(&b);
}

/* ---- the C API unit ---- */

static void put(CgText *t, const char *s) { cg_text_write(t, s, strlen(s)); }

void cg_library_api(CgText *t, const CgLibrary *lib, const CgTarget *target, const char *source_name,
                    int first_export) {
  Tables tb = {0};
  Vec fs = funcs_of(lib, &tb);
  const char *N = lib->name;
  bool cuda = target->kind == CG_CUDA;
  const char *ext_c = cuda ? "extern \"C\" " : "";
  put(t, xprintf("/* generated by nessie from %s: the C API of library %s (%s.h), over rt/lib.c */\n",
                 source_name ? source_name : "a NESL program", N, N));
  put(t, "#include <stdbool.h>\n#include <stdint.h>\n#include \"rt.h\"\n");
  if (cuda)
    put(t, "#include <cuda_runtime.h>\n#include \"gpu.h\"\n");
  put(t, "\n");
  /* declarations ('extern "C"' alone declares in C++) */
  const char *hidden = "__attribute__((visibility(\"hidden\"))) ";
  put(t, xprintf("%s%svoid (*const nessie_lib_tops[])(void);\n%s%sconst char *nessie_lib_init(int device);\n\n",
                 cuda ? ext_c : "extern ", hidden, ext_c, hidden));
  put(t, xprintf("typedef RtLibContext %s_context;\n", N));
  for (int i = 0; i < tb.seqs.len; i++) {
    const SeqType *s = tb.seqs.data[i];
    put(t, xprintf("typedef struct %s %s;\n", seq_cname(lib, s), seq_cname(lib, s)));
  }
  put(t, "\n/* the sequence types: V(elem)'s components */\n");
  for (int i = 0; i < tb.seqs.len; i++) {
    const SeqType *s = tb.seqs.data[i];
    Buf types = {0}, parents = {0};
    for (int j = 0; j < s->ncomps; j++) {
      buf_printf(&types, "%s{%s, %s}", j ? ", " : "", s->types[j].kind == RT_SEGDES ? "RT_SEGDES" : "RT_VEC",
                 base_rt(s->types[j].base));
      buf_printf(&parents, "%s%d", j ? ", " : "", s->parent[j]);
    }
    put(t, xprintf("static const RtType seq%d_types[] = {%s}; /* %s */\n", i, buf_str(&types), layout_text(s->layout)));
    put(t, xprintf("static const int seq%d_parents[] = {%s};\n", i, buf_str(&parents)));
  }
  put(t, "static const RtLibSeqType seqs[] = {\n");
  for (int i = 0; i < tb.seqs.len; i++)
    put(t, xprintf("  {%d, seq%d_types, seq%d_parents},\n", ((SeqType *)tb.seqs.data[i])->ncomps, i, i));
  put(t, "  {0, NULL, NULL}};\n\n/* the exports: the leaves of H(argument) and H(result) */\n");
  for (int i = 0; i < fs.len; i++) {
    const Func *f = fs.data[i];
    for (int side = 0; side < 2; side++) {
      const Vec *ls = side ? &f->results : &f->args;
      Buf b = {0};
      for (int j = 0; j < ls->len; j++) {
        const Leaf *l = ls->data[j];
        buf_printf(&b, "{%s, %d}, ", base_rt(l->seq < 0 ? rt_layout_base(l->layout->kind) : RT_INT), l->seq);
      }
      put(t, xprintf("static const RtLibLeaf f%d_%s[] = {%s{RT_INT, -1}};\n", i, side ? "results" : "args",
                     buf_str(&b)));
    }
  }
  put(t, xprintf("extern %sconst RtLib nessie_lib;\n", hidden));
  put(t, "static const RtLibFunc funcs[] = {\n");
  for (int i = 0; i < fs.len; i++) {
    const Func *f = fs.data[i];
    put(t, xprintf("  {&nessie_lib, \"%s\", %d, %d, f%d_args, f%d_results},\n", f->e->name, f->args.len,
                   f->results.len, i, i));
  }
  put(t, "  {NULL, NULL, 0, 0, NULL, NULL}};\n\n");
  put(t, "/* once per process: the runtime started, lib-nesl's statements run */\n");
  if (cuda)
    put(t, "#include <stdio.h>\n#include <stdlib.h>\n"
           "/* the runtime starts on the context's device (rtg_start): NULL, or why it cannot */\n"
           "static const char *lib_init(int device) {\n"
           "  const char *error = nessie_lib_init(device);\n"
           "  if (error)\n"
           "    return error;\n"
           "  rt_lib_start(&nessie_lib);\n"
           "  return NULL;\n}\n"
           "static void lib_use_device(int device) { cudaSetDevice(device); }\n"
           "/* the caller's device buffers: copied on the device, on the runtime's stream, which\n"
           "   is waited for (the caller may free or change a buffer after the call) */\n"
           "static size_t lib_bytes(const RtValue *v) {\n"
           "  return (size_t)v->len * (v->type.kind == RT_SEGDES ? sizeof(int64_t) : rt_base_size(v->type.base));\n}\n"
           "static void *lib_data(RtValue *v) { return v->type.kind == RT_SEGDES ? (void *)v->lengths : v->data.any; }\n"
           "static RtValue *lib_from_device(RtType t, int64_t n, const void *src) {\n"
           "  RtValue *v = t.kind == RT_SEGDES ? rtg_segdes_new(n) : rtg_vec_new(t.base, n);\n"
           "  if (n > 0)\n"
           "    cudaMemcpyAsync(lib_data(v), src, lib_bytes(v), cudaMemcpyDeviceToDevice, rtg_stream());\n"
           "  cudaStreamSynchronize(rtg_stream());\n"
           "  return v;\n}\n"
           "static void lib_to_device_buffer(RtValue *v, void *dst) {\n"
           "  if (v->len > 0)\n"
           "    cudaMemcpyAsync(dst, lib_data(v), lib_bytes(v), v->device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice,\n"
           "                    rtg_stream());\n"
           "  cudaStreamSynchronize(rtg_stream());\n}\n"
           "static int64_t lib_seg_total(RtValue *d) { return rtg_seg_total(d); }\n\n");
  else
    put(t, "static const char *lib_init(int device) {\n  const char *error = nessie_lib_init(device);\n"
           "  if (error)\n    return error;\n  rt_lib_start(&nessie_lib);\n  return NULL;\n}\n\n");
  if (cuda)
    put(t, "static RtValue *lib_to_host(RtValue *v) { return rtg_to_host(v); }\n\n");
  put(t, xprintf("%sconst RtLib nessie_lib = {\"%s\", %d, %d, funcs, seqs, lib_init, nessie_lib_tops, %d, %s};\n\n", hidden, N,
                 fs.len, tb.seqs.len, first_export,
                 cuda ? "lib_to_host, lib_use_device, lib_from_device, lib_to_device_buffer, lib_seg_total"
                      : "NULL, NULL, NULL, NULL, NULL"));
  /* the public entry points (NAME.h); those named NAME__ serve NAME.py */
  const char *vis = xprintf("%s__attribute__((visibility(\"default\"))) ", ext_c);
  put(t, "/* the context */\n");
  put(t, xprintf("typedef struct %s_options {\n  int device;\n} %s_options;\n", N, N));
  put(t, xprintf("%s%s_context *%s_context_new(const %s_options *options) {\n"
                 "  return rt_lib_context_new(&nessie_lib, options ? options->device : 0);\n}\n",
                 vis, N, N, N));
  put(t, xprintf("%sint %s_context_status(const %s_context *ctx) { return rt_lib_status(ctx); }\n", vis, N, N));
  put(t, xprintf("%svoid %s_context_free(%s_context *ctx) { rt_lib_context_free(ctx); }\n", vis, N, N));
  put(t, xprintf("%sconst char *%s_context_error(const %s_context *ctx) { return rt_lib_error(ctx); }\n", vis, N, N));
  put(t, xprintf("%sconst char *%s_context_error_location(const %s_context *ctx) {\n"
                 "  return rt_lib_error_location(ctx);\n}\n\n",
                 vis, N, N));
  put(t, "/* the generic entry points of the Python binding */\n");
  put(t, xprintf("%sint %s__seq_new(%s_context *ctx, int type, int64_t n, const void *const *bufs, void **out) {\n"
                 "  return rt_lib_seq_new(ctx, type, n, bufs, out);\n}\n",
                 vis, N, N));
  put(t, xprintf("%sint %s__seq_new_on(%s_context *ctx, int type, int64_t n, const void *const *bufs,\n"
                 "    const uint8_t *on_device, void **out) {\n"
                 "  return rt_lib_seq_new_on(ctx, type, n, bufs, on_device, out);\n}\n",
                 vis, N, N));
  put(t, xprintf("%sint %s__seq_read_on(%s_context *ctx, const void *h, void *const *bufs, const uint8_t *on_device) {\n"
                 "  return rt_lib_seq_read_on(ctx, h, bufs, on_device);\n}\n",
                 vis, N, N));
  put(t, xprintf("%sint64_t %s__seq_length(const void *h) { return rt_lib_seq_length(h); }\n", vis, N));
  put(t, xprintf("%svoid %s__seq_sizes(const void *h, int64_t *sizes) { rt_lib_seq_sizes(h, sizes); }\n", vis, N));
  put(t, xprintf("%sint %s__seq_read(%s_context *ctx, const void *h, void *const *bufs) {\n"
                 "  return rt_lib_seq_read(ctx, h, bufs);\n}\n",
                 vis, N, N));
  put(t, xprintf("%svoid %s__seq_free(void *h) { rt_lib_seq_free(h); }\n", vis, N));
  put(t, xprintf("%sint %s__call(%s_context *ctx, int fn, void *const *args, void *const *results) {\n"
                 "  return rt_lib_call(ctx, fn, args, results);\n}\n\n",
                 vis, N, N));
  put(t, "/* each sequence type */\n");
  for (int i = 0; i < tb.seqs.len; i++) {
    const SeqType *s = tb.seqs.data[i];
    const char *H = seq_cname(lib, s);
    Buf bufs = {0};
    for (int j = 0; j < s->ncomps; j++)
      buf_printf(&bufs, "%s(void *)%s", j ? ", " : "", s->what[j]);
    put(t, xprintf("%sint %s_new(%s_context *ctx, int64_t n%s, %s **out) {\n"
                   "  const void *bufs[] = {%s};\n"
                   "  return rt_lib_seq_new(ctx, %d, n, bufs, (void **)out);\n}\n",
                   vis, H, N, seq_buffers(s, true), H, buf_str(&bufs), i));
    put(t, xprintf("%sint64_t %s_length(const %s *h) { return rt_lib_seq_length(h); }\n", vis, H, H));
    put(t, xprintf("%svoid %s_sizes(const %s *h, int64_t sizes[%d]) { rt_lib_seq_sizes(h, sizes); }\n", vis, H, H,
                   s->ncomps));
    put(t, xprintf("%sint %s_read(%s_context *ctx, const %s *h%s) {\n"
                   "  void *const bufs[] = {%s};\n"
                   "  return rt_lib_seq_read(ctx, h, bufs);\n}\n",
                   vis, H, N, H, seq_buffers(s, false), buf_str(&bufs)));
    put(t, xprintf("%svoid %s_free(%s *h) { rt_lib_seq_free(h); }\n\n", vis, H, H));
  }
  put(t, "/* each export */\n");
  for (int i = 0; i < fs.len; i++) {
    const Func *f = fs.data[i];
    Buf args = {0}, results = {0};
    for (int j = 0; j < f->args.len; j++) {
      const Leaf *a = f->args.data[j];
      buf_printf(&args, "(void *)%s%s, ", a->seq < 0 ? "&" : "", a->name);
    }
    for (int j = 0; j < f->results.len; j++)
      buf_printf(&results, "(void *)%s, ", ((const Leaf *)f->results.data[j])->name);
    put(t, xprintf("%sint %s_%s(%s) {\n"
                   "  void *const args[] = {%sNULL};\n"
                   "  void *const results[] = {%sNULL};\n"
                   "  return rt_lib_call(ctx, %d, args, results);\n}\n\n",
                   vis, N, f->e->name, func_params(lib, &tb, f), buf_str(&args), buf_str(&results), i));
  }
}

/* ---- NAME.h ---- */

void cg_library_header(FILE *out, const CgLibrary *lib, CgTargetKind target, const char *source_name) {
  Tables tb = {0};
  Vec fs = funcs_of(lib, &tb);
  const char *N = lib->name;
  const char *guard = xprintf("%s_H", N);
  bool cuda = target == CG_CUDA;
  fprintf(out, "/*\n * %s.h: the C API of lib%s.so, made by `nessie --library` from %s for the %s target\n"
               " * (generated: edit the NESL).  docs/library.md says more.\n *\n",
          N, N, source_name, cuda ? "GPU (CUDA)" : "CPU (C with OpenMP)");
  fprintf(out,
          " * Use: make a context (%s_context_new), make the arguments' sequences\n"
          " * from your buffers (%s_TYPE_new), call an exported function, read the\n"
          " * results back (%s_TYPE_sizes, %s_TYPE_read) and free every handle\n"
          " * (%s_TYPE_free) and the context.\n *\n"
          " * Values: NESL's int is int32_t, float double, bool bool, char char.  A\n"
          " * tuple or a datatype is passed as its fields, one parameter each, left\n"
          " * to right.  A sequence is an opaque handle, one type per sequence type,\n"
          " * which holds the flat representation of its elements: for [t] the\n"
          " * components of t's elements in order, each nested sequence a level of\n"
          " * lengths (lengths_D: one int64_t per sequence at depth D, D = 1 for the\n"
          " * elements themselves) and each base type a buffer of values (values_D:\n"
          " * the values at depth D, all in order).  [[int]] [[1, 2], [], [3]] is\n"
          " * n = 3, lengths_1 = {2, 0, 1}, values_2 = {1, 2, 3}; a sequence of tuples\n"
          " * has one component per field.  _new copies the buffers; _sizes gives\n"
          " * each component's number of elements, for the buffers _read fills.\n *\n",
          N, N, N, N, N);
  fprintf(out,
          " * Errors: every function that runs NESL returns 0, or an error code\n"
          " * (1: NESL stopped with a run-time error, 2: an argument is wrong, 3:\n"
          " * out of memory, 4: the context's runtime could not start, as with no\n"
          " * GPU); %s_context_error(ctx) is then its text,\n"
          " * \"FILE:LINE:COL: message\" as the executable prints it, and\n"
          " * %s_context_error_location(ctx) the NESL location alone.  A\n"
          " * result handle is made only by a call that returns 0.\n *\n",
          N, N);
  fprintf(out,
          " * Threads: any thread may call any function, but the runtime has state\n"
          " * of its own for the process: calls that run NESL (_new, _read, the\n"
          " * exports) take one lock and run one at a time.  Each call's work runs\n"
          " * in parallel inside it (OpenMP threads, or the GPU).  An error's text\n"
          " * belongs to its context: use one context per thread to read it safely.\n");
  if (cuda)
    fprintf(out, " *\n * GPU: the sequences the exports return stay on the device between calls;\n"
                 " * _read copies them to the host.\n");
  fprintf(out, " */\n#ifndef %s\n#define %s\n\n#include <stdbool.h>\n#include <stdint.h>\n\n", guard, guard);
  fprintf(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  fprintf(out, "typedef struct RtLibContext %s_context;\n", N);
  fprintf(out, "/* options of a context: 'device', the CUDA device (GPU target; 0 the first) */\n");
  fprintf(out, "typedef struct %s_options {\n  int device;\n} %s_options;\n", N, N);
  fprintf(out, "/* NULL 'options': the defaults.  NULL only when out of memory.  Where the\n"
               "   runtime cannot start (GPU target: no CUDA device, no such device, or\n"
               "   another device than the first context's, since the runtime runs on one),\n"
               "   the context is in an error state: %s_context_status(ctx) is then 4 and\n"
               "   %s_context_error(ctx) says why, and every call with it returns 4, running\n"
               "   nothing.  The process goes on (an executable would exit). */\n", N, N);
  fprintf(out, "%s_context *%s_context_new(const %s_options *options);\n", N, N, N);
  fprintf(out, "/* 0: the context can run calls; 4: it is in an error state (above) */\n");
  fprintf(out, "int %s_context_status(const %s_context *ctx);\n", N, N);
  fprintf(out, "void %s_context_free(%s_context *ctx);\n", N, N);
  fprintf(out, "const char *%s_context_error(const %s_context *ctx);\n", N, N);
  fprintf(out, "const char *%s_context_error_location(const %s_context *ctx);\n\n", N, N);
  for (int i = 0; i < tb.seqs.len; i++) {
    const SeqType *s = tb.seqs.data[i];
    const char *H = seq_cname(lib, s);
    fprintf(out, "/* %s: the handle of a %s */\ntypedef struct %s %s;\n", H, layout_text(s->layout), H, H);
    fprintf(out, "/* components, in order:");
    for (int j = 0; j < s->ncomps; j++)
      fprintf(out, " %s (%s, one per %s)%s", s->what[j], s->types[j].kind == RT_SEGDES ? "int64_t" : base_ctype(s->types[j].base),
              s->parent[j] < 0 ? "element" : xprintf("element of the sequences %s counts", s->what[s->parent[j]]),
              j + 1 < s->ncomps ? "," : "");
    fprintf(out, " */\n");
    fprintf(out, "int %s_new(%s_context *ctx, int64_t n%s, %s **out);\n", H, N, seq_buffers(s, true), H);
    fprintf(out, "int64_t %s_length(const %s *h);\n", H, H);
    fprintf(out, "void %s_sizes(const %s *h, int64_t sizes[%d]);\n", H, H, s->ncomps);
    fprintf(out, "int %s_read(%s_context *ctx, const %s *h%s);\n", H, N, H, seq_buffers(s, false));
    fprintf(out, "void %s_free(%s *h);\n\n", H, H);
  }
  for (int i = 0; i < fs.len; i++) {
    const Func *f = fs.data[i];
    fprintf(out, "/* %s : %s%s%s (%s:%d) */\n", f->e->name, f->e->type_text,
            f->e->instance_of ? ", the instance of " : "", f->e->instance_of ? f->e->instance_of : "",
            f->e->loc.src ? f->e->loc.src->name : "", f->e->loc.line);
    fprintf(out, "int %s_%s(%s);\n\n", N, f->e->name, func_params(lib, &tb, f));
  }
  fprintf(out, "/* for NAME.py */\n");
  fprintf(out, "int %s__seq_new(%s_context *ctx, int type, int64_t n, const void *const *bufs, void **out);\n", N, N);
  fprintf(out, "int %s__call(%s_context *ctx, int fn, void *const *args, void *const *results);\n", N, N);
  fprintf(out, "/* the same as _new and _read of each type, by the type's number; 'on_device[i]'\n"
               "   says that buffer i is in the GPU's memory (the GPU target only: copied on the device) */\n");
  fprintf(out, "int %s__seq_new_on(%s_context *ctx, int type, int64_t n, const void *const *bufs,\n"
               "    const uint8_t *on_device, void **out);\n", N, N);
  fprintf(out, "int %s__seq_read_on(%s_context *ctx, const void *h, void *const *bufs, const uint8_t *on_device);\n\n",
          N, N);
  fprintf(out, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

/* ---- NAME.py ---- */

/* Layout 'l' as a Python expression of nested tuples. */
static void py_type(Buf *b, Tables *tb, const RtLayout *l, bool leaf) {
  switch (l->kind) {
  case RL_SEQ:
    buf_puts(b, "('seq', ");
    py_type(b, tb, l->elem, false);
    buf_printf(b, ", %d)", leaf ? seq_number(tb, l) : -1);
    return;
  case RL_PAIR:
    buf_puts(b, "('tuple', ");
    py_type(b, tb, l->fst, leaf);
    buf_puts(b, ", ");
    py_type(b, tb, l->snd, leaf);
    buf_puts(b, ")");
    return;
  case RL_DATA:
    buf_printf(b, "('data', '%s', ", l->name);
    py_type(b, tb, l->fst, leaf);
    buf_puts(b, ")");
    return;
  default:
    buf_printf(b, "('%s',)", layout_code(l));
  }
}

void cg_library_python(FILE *out, const CgLibrary *lib, CgTargetKind target, const char *source_name,
                       const char *binding_text) {
  Tables tb = {0};
  Vec fs = funcs_of(lib, &tb);
  fprintf(out, "# %s.py: the Python binding of lib%s.so, made by `nessie --library` from %s\n"
               "# (generated: edit the NESL).  docs/library.md says more.\n",
          lib->name, lib->name, source_name);
  fprintf(out, "_NAME = '%s'\n_TARGET = '%s'\n", lib->name, target == CG_CUDA ? "cuda" : "cpu");
  fprintf(out, "# each export: (number, NESL type, argument type, result type, parameter names)\n_FUNCS = {\n");
  for (int i = 0; i < fs.len; i++) {
    const Func *f = fs.data[i];
    Buf a = {0}, r = {0}, names = {0};
    py_type(&a, &tb, f->e->arg, true);
    py_type(&r, &tb, f->e->result, true);
    for (int j = 0; j < f->args.len; j++)
      buf_printf(&names, "'%s', ", ((const Leaf *)f->args.data[j])->name);
    fprintf(out, "    '%s': (%d, '%s', %s, %s, (%s)),\n", f->e->name, i, f->e->type_text, buf_str(&a), buf_str(&r),
            buf_str(&names));
  }
  fprintf(out, "}\n# each sequence type: its components, (kind, base, parent)\n_SEQS = [\n");
  for (int i = 0; i < tb.seqs.len; i++) {
    const SeqType *s = tb.seqs.data[i];
    fprintf(out, "    [");
    for (int j = 0; j < s->ncomps; j++)
      fprintf(out, "('%s', '%s', %d), ", s->types[j].kind == RT_SEGDES ? "segdes" : "vec",
              rt_base_name(s->types[j].base), s->parent[j]);
    fprintf(out, "],\n");
  }
  fprintf(out, "]\n\n");
  fputs(binding_text, out);
}
