/*
 * common.h: what every stage of nessie shares: memory allocation through
 * Boehm GC, growable pointer vectors, source locations and diagnostics.
 *
 * The compiler never frees by hand: every allocation goes through
 * xmalloc()/xstrdup(), which call the collector.  Diagnostics use one
 * format, `file:line:col: error: message`, followed by the source line and
 * a caret.  A compile error does not exit(): it is counted, and the driver
 * decides when to stop, so that the REPL survives every error.  Fatal
 * errors inside a pass longjmp to the innermost handler pushed with
 * diag_push_handler() (see diag_fatal).
 */
#ifndef NESSIE_COMMON_H
#define NESSIE_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- alloc.c ---- */

void *xmalloc(size_t size);        /* zeroed, scanned for pointers */
void *xmalloc_atomic(size_t size); /* not zeroed, never holds pointers */
void *xrealloc(void *p, size_t size); /* 'p' NULL or xrealloc's */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvprintf(const char *fmt, va_list ap);
/* vsnprintf, faster for formats of %s, %d, %c and %% alone (the same
   text: any other format is vsnprintf's). */
int fmt_vsnprintf(char *dst, size_t room, const char *fmt, va_list ap);

/* For a compilation, which calls it first: the collector's heap grown
   to 'heap_bytes', and small objects cut from chunks from then on,
   never reclaimed while the chunk is kept (alloc.c says why). */
void alloc_for_compilation(size_t heap_bytes);

/* Sets up the collector for the command line: its warnings ("Repeated
   allocation of very large block", "Out of Memory!") are silenced,
   since nessie reports running out of memory itself (see below);
   NESSIE_GC_WARNINGS=1 shows them, for debugging the collector.  The
   heap is bounded by rt_memory_limit (NESSIE_MEMORY); a NESSIE_MEMORY
   that is not a size exits with status 2. */
void alloc_init(void);

/* Collects, and gives the pages of the heap's free blocks back to the
   system: after a statement that stopped, whose values are garbage. */
void alloc_give_back(void);

/* When an allocation fails: 'fn(ctx, size)', which must not return (an
   interpreter stops the running statement with a run-time error; see
   ev_error), or, with no handler (NULL), diag_out_of_memory().  The
   handler belongs to the calling thread. */
typedef void (*OomHandler)(void *ctx, size_t size);
void alloc_set_oom_handler(OomHandler fn, void *ctx);

#define NEW(T) ((T *)xmalloc(sizeof(T)))

/* A growable array of pointers.  Zero-initialized is empty. */
typedef struct Vec {
  void **data;
  int len, cap;
} Vec;

void vec_push(Vec *v, void *item);
void *vec_get(const Vec *v, int i);
void *vec_last(const Vec *v);

/* A growable character buffer, for building text. */
typedef struct Buf {
  char *data;
  size_t len, cap;
} Buf;

/* Room for 'extra' more bytes and a NUL (the slow path of the writers
   below, which are inline: text is built a byte at a time in places). */
void buf_grow(Buf *b, size_t extra);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 'i' in decimal into 'out', as "%lld" writes it, NUL-terminated; returns
   its length. */
enum { FORMAT_INT_SIZE = 24 };
int format_int(char out[FORMAT_INT_SIZE], int64_t i);
/* 16 hex digits, without printf. */
void buf_put_hex64(Buf *b, uint64_t u);

static inline void buf_putc(Buf *b, char c) {
  if (b->len + 2 > b->cap)
    buf_grow(b, 1);
  b->data[b->len++] = c;
}

static inline void buf_put(Buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap)
    buf_grow(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

static inline void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

/* Decimal, without printf: for text that is built often (keys, names). */
static inline void buf_put_int(Buf *b, int64_t i) {
  if (b->len + FORMAT_INT_SIZE + 1 > b->cap)
    buf_grow(b, FORMAT_INT_SIZE);
  b->len += (size_t)format_int(b->data + b->len, i);
}

/* NUL-terminated contents; the buffer stays usable. */
static inline char *buf_str(Buf *b) {
  if (b->len + 1 > b->cap)
    buf_grow(b, 0);
  b->data[b->len] = '\0';
  return b->data;
}

/* ---- map.c ---- */

/* A hash map from strings to pointers.  Zero-initialized is empty. */
typedef struct Map {
  struct MapEntry *entries;
  int cap, used;
} Map;

void *map_get(const Map *m, const char *key);
void map_put(Map *m, const char *key, void *value);
Map map_copy(const Map *m);
/* 'm' emptied, its room kept. */
void map_clear(Map *m);

/* A string map whose puts are undone, latest first, back to a mark: the
   available expressions of a walk over nested blocks, each block's
   forgotten when it ends.  Zero-initialized is empty. */
typedef struct ScopedMap {
  Map map;
  Vec undo; /* pairs: a key, its value before the put (NULL: none) */
} ScopedMap;

static inline void *scoped_get(const ScopedMap *m, const char *key) { return map_get(&m->map, key); }
void scoped_put(ScopedMap *m, const char *key, void *value);
static inline int scoped_mark(const ScopedMap *m) { return m->undo.len; }
/* Undoes the puts made since 'mark' (scoped_mark). */
void scoped_undo(ScopedMap *m, int mark);
/* 'm' emptied, its room kept. */
void scoped_clear(ScopedMap *m);

/* A hash map from pointers to pointers.  Zero-initialized is empty.  It
   is never iterated, so addresses never decide an order. */
typedef struct PtrMapEntry {
  const void *key;
  void *value;
} PtrMapEntry;

typedef struct PtrMap {
  PtrMapEntry *entries; /* a key beside its value: one allocation, and
                           one cache line for a probe that finds it */
  int64_t cap, used;
} PtrMap;

/* The hash of an address, for maps keyed by one (PtrMap and the like).
   Inline: the maps of a large compilation are probed millions of times. */
static inline uint64_t ptr_hash(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}
/* The value slot of 'key', added (holding NULL) if 'insert'; NULL if
   absent and not 'insert'. */
void **ptrmap_slot(PtrMap *m, const void *key, bool insert);
/* The value of 'key', or NULL; and setting it.  The map's arrays are
   scanned by the collector, so a key stays alive as long as the map: an
   address can never be reused for another object while it is a key
   (the bug of keying a Map by a formatted pointer).  A lookup is inline
   (the most frequent operation of the compiler's maps). */
static inline void *ptrmap_get(const PtrMap *m, const void *key) {
  if (!m->cap)
    return NULL;
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    const PtrMapEntry *e = &m->entries[i];
    if (e->key == key)
      return e->value;
    if (!e->key)
      return NULL;
  }
}
void ptrmap_put(PtrMap *m, const void *key, void *value);
/* 'm' emptied, its room kept: for a map filled again to about its size. */
void ptrmap_clear(PtrMap *m);
/* Makes 'maps[i]' (i < n) empty, with room for 'counts[i]' keys without
   growing, all in one allocation: for maps made and dropped together
   whose sizes are known (a kernel's facts, made thousands of times). */
void ptrmap_init_together(PtrMap *const *maps, const int64_t *counts, int n);

/* A map from pointers to pointers that is emptied at once, by starting
   a new generation (an entry of an older one is an empty slot), for the
   maps a pass fills and empties again and again: a round's, a region's.
   Emptying a large PtrMap cleared all its entries, which cost more than
   filling it when it held few.  Never iterated; keys are kept alive as
   PtrMap's are. */
typedef struct GenMapEntry {
  const void *key;
  void *value;
  uint32_t generation;
} GenMapEntry;

typedef struct GenMap {
  GenMapEntry *entries;
  int64_t cap, used;
  uint32_t generation;
} GenMap;

void **genmap_slot(GenMap *m, const void *key, bool insert);
void genmap_put(GenMap *m, const void *key, void *value);
void genmap_clear(GenMap *m);
static inline void *genmap_get(const GenMap *m, const void *key) {
  if (!m->cap)
    return NULL;
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    const GenMapEntry *e = &m->entries[i];
    if (!e->key || e->generation != m->generation)
      return NULL;
    if (e->key == key)
      return e->value;
  }
}

/* The one copy of string 's': equal names are then equal pointers, so
   the evaluator compares names by address. */
const char *intern(const char *s);

/* ---- liveness.c: last reads within a block ---- */

/* A block as the last-read analysis sees it.  A variable is any pointer
   that identifies one (FlatVar *, LcuVar *). */
typedef struct LiveStmt {
  Vec reads;  /* the variables the statement reads itself */
  Vec blocks; /* LiveBlock *: its nested blocks (branches, bodies), whose
                 reads count as the statement's */
  Vec binds;  /* the variables it binds */
} LiveStmt;

typedef struct LiveBlock {
  Vec stmts; /* LiveStmt * */
  Vec reads; /* the variables the block's results read */
} LiveBlock;

/* Which variables die after which statement of 'b': an array of one Vec
   per statement, statement i's holding the variables of 'params' (may
   be NULL) and of b's statements' binds whose last read in 'b' is
   statement i (a read in a nested block counts as its statement's), or
   that statement i binds and nothing reads.  Those the block's results
   read are in none, nor are parameters of a block without statements.
   Each Vec lists parameters first, then binds in statement order. */
Vec *live_last_reads(const LiveBlock *b, const Vec *params);

/* ---- unionfind.c ---- */

/* The root of x's class in 'parent' (parent[i] == i: a root), halving
   the path on the way. */
int uf_find(int *parent, int x);
/* Joins the classes of a and b; the smaller root stays the root, so that
   a class's root is its smallest member and the result does not depend
   on the order of the unions. */
void uf_unite(int *parent, int a, int b);

/* ---- diag.c ---- */

/* A source file as the lexer and the diagnostics see it. */
typedef struct Source {
  const char *name; /* as given on the command line, or "<stdin>" */
  const char *text; /* whole contents, NUL-terminated */
  size_t len;
  /* the lines of the file before 'text' (its first line is number
     lines_before + 1): the REPL reading a pipe makes one Source per
     statement, each named "<stdin>" and numbered as the lines came */
  int lines_before;
  /* where each line starts, made the first time a diagnostic shows a
     line (so that showing one never rescans the file); zero until then */
  size_t *line_starts;
  int nlines;
} Source;

/* A position in a source: 1-based line and column (bytes).  Code that
   lowering inlined from a user function (lower.c) keeps its own lines and
   columns, and says through 'inlined' which function it came from and
   where that was called, so that its run-time errors name the function
   as a call would (NULL: not inlined). */
struct Inlined;
typedef struct Loc {
  const Source *src;
  int line, col;
  const struct Inlined *inlined;
} Loc;

/* Code inlined from user function 'fn', whose call stands at 'call': the
   call of the outermost of the functions inlined one inside another, in
   code that was not inlined ('call.inlined' is NULL), since that is the
   place an error is reported at (rt_call_context); 'fn' is the innermost,
   the function the error is in.  'rt' is the same for the runtime
   (RtInlined, rt/rt.h), made with it. */
typedef struct Inlined {
  const char *fn;
  struct Loc call;
  const struct RtInlined *rt;
} Inlined;

extern const Loc no_loc;

/* The whole file at 'path' ("-": standard input).  NULL if it cannot be
   read, with errno saying why (EISDIR for a directory). */
Source *source_from_file(const char *path);
Source *source_from_string(const char *name, const char *text);
/* The newest Source of that name that those two made and that holds
   line 'line', or NULL. */
Source *source_find(const char *name, int line);
/* A Source for a piece of file 'name' whose lines are not numbered as the
   file's (λcu text quotes each NESL statement alone): not listed for
   source_find, which would show a run-time error on the wrong line. */
Source *source_fragment(const char *name, const char *text);
/* Where line 'line' (from lines_before + 1) of 's' begins; its end of text
   past the last line.  Indexed once per source: code generation names
   the source line of every kernel and check. */
const char *source_line(const Source *s, int line);

/* Prints `file:line:col: error: message`, the source line and a caret to
   stderr, and counts the error.  After DIAG_MAX_ERRORS errors one line
   says "too many errors, stopping" and later errors are counted but not
   shown: the lexer then ends its input (diag_stopped), and the checker
   stops, so that a file of garbage is rejected at once. */
enum { DIAG_MAX_ERRORS = 20 };
void diag_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_verror(Loc loc, const char *fmt, va_list ap);
void diag_note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_count(void); /* errors since the last diag_reset() */
void diag_reset(void);
bool diag_stopped(void); /* more than DIAG_MAX_ERRORS errors since the reset */

/* Where diagnostics go (stderr by default); tests redirect it. */
void diag_set_stream(FILE *f);
/* --diagnostics=json: each diagnostic is one line of JSON,
   {"file":F,"line":L,"column":C,"severity":S,"message":M} (F, L and C
   null without a location; S "error" or "note"), with no source line or
   caret; a run-time error's transcript line stays as it is, and this
   line takes the place of its source line on the diagnostic stream. */
void diag_set_json(bool on);
/* While muted, nothing is printed; errors are counted as usual, and the
   count is put back to what it was when muting ends.  The REPL asks the
   parser whether its input is complete this way. */
void diag_set_muted(bool muted);

/* Prints the source line 'loc' points into and a caret under its column
   to 'out', as a diagnostic does after its first line: non-printable
   bytes escaped (\x01), a long line cut to a window around the column.
   Nothing for a location without a source. */
void diag_show_source(FILE *out, Loc loc);

/* 'n' bytes at 's' as a message may quote them: non-printable bytes
   escaped, and cut to about 40 characters with "..." after. */
char *diag_quote(const char *s, size_t n);

/* A run-time error of a running program, as every interpreter reports
   it: `error: FILE:LINE:COL: MESSAGE` (or `error: MESSAGE` without a
   location) on 'transcript', which is the line NESL's REPL prints and
   the tests compare, then the source line and the caret on the
   diagnostic stream (stderr), so that a transcript keeps one line per
   error.  Counted by diag_runtime_errors(), from which `nessie --interp`
   takes its exit status. */
void diag_runtime_error(FILE *transcript, Loc loc, const char *msg);
long diag_runtime_errors(void);

/* Reports "out of memory (N bytes)" and abandons the current compilation
   like diag_fatal; with no handler, exits with status 4 (the exit status
   README.md gives for it). */
_Noreturn void diag_out_of_memory(size_t size);

/* Reports an error and abandons the current compilation by longjmp to the
   innermost handler pushed with diag_push_handler. */
_Noreturn void diag_fatal(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Abandons the current compilation like diag_fatal, without a message:
   for an error that has been reported already. */
_Noreturn void diag_abort(void);

/* Internal compiler errors: a bug in nessie, never the user's fault. */
_Noreturn void die_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define die(...) die_at(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() die_at(__FILE__, __LINE__, "unreachable")

/* The handler stack behind diag_fatal.  Use as
     jmp_buf jb; if (!setjmp(jb)) { diag_push_handler(&jb); ...; diag_pop_handler(); }
     else { ... recovered ... }
   Without a handler, diag_fatal exits with status 1. */
void diag_push_handler(jmp_buf *jb);
void diag_pop_handler(void);
/* The number of handlers pushed; a caller that recovers by its own
   longjmp past handlers pushed under it puts the depth back. */
int diag_handler_depth(void);
void diag_set_handler_depth(int depth);

/* ---- ircheck.c: what the checkers of the CPU-level IRs share ----
   The flat IR's checker and λcu's check one statement language with one
   discipline for variables (bound once before their uses, read in the
   scope of their binding, globals bound only by their top-level
   statement); this is its bookkeeping, over variables it knows by id and
   name only. */

typedef struct IrCheck IrCheck;

/* What the checker knows of an IR: its words for messages, how to read
   its variables (pointers to them), and how to check its statements and
   atoms.  A block is its statements and its result atoms (Vecs). */
typedef struct IrCheckDesc {
  const char *name;    /* "flat IR", "λcu" */
  const char *definer; /* what alone binds a global: "its FlatTop" */
  int (*var_id)(const void *v);
  const char *(*var_name)(const void *v); /* as messages print it */
  /* whether 'v' is a global by its own mark; NULL: a global is a
     variable ircheck_add_global listed */
  bool (*var_global)(const void *v);
  /* whether v's type is one of the IR's; NULL: always */
  bool (*var_valid)(const void *v);
  /* Checks statement 's' of a block, binding its results. */
  void (*check_stmt)(IrCheck *c, const void *s);
  /* Appends to 'types' the type of atom 'a', read at 'loc': a new
     object of the IR's type, which this file does not look into. */
  void (*push_atom_type)(IrCheck *c, Loc loc, const void *a, Vec *types);
} IrCheckDesc;

/* A check in progress.  Zeroed, then ircheck_init; the checker's
   setjmp(c->fail) catches the first failure. */
struct IrCheck {
  const IrCheckDesc *ir;
  const char *after;   /* the pass that ran last */
  const char *where;   /* NULL, or what is being checked ("function f"),
                          which messages name after the pass */
  jmp_buf fail;
  int nvars;           /* variable ids lie in 0 .. nvars - 1 */
  /* by variable id: */
  const void **by_id;  /* the one variable with this id */
  uint8_t *bound;      /* bound already (since ircheck_end_function) */
  uint8_t *visible;    /* bound in an enclosing scope */
  uint8_t *is_global;  /* listed among the program's globals */
  uint8_t *defined;    /* a global an earlier top-level statement defined */
  Vec scope;           /* the variables made visible, innermost last */
  Vec bound_vars;      /* those 'bound' marks */
  bool in_top;         /* checking a top-level block: a global it reads
                          must be defined already */
  Map funcs;           /* name -> the program's function of that name */
  void *own;           /* the checker's own state, if it has more */
};

/* Starts a check of IR 'ir' whose variable ids lie below 'nvars', after
   pass 'after' (NULL: unknown). */
void ircheck_init(IrCheck *c, const IrCheckDesc *ir, int nvars, const char *after);
/* Reports `IR check failed after PASS: [WHERE: ]message` at 'loc' and
   longjmps to c->fail.  The va_list form leaves 'ap' to that longjmp:
   it is what a checker's own variadic fail() calls. */
_Noreturn void ircheck_fail(IrCheck *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
_Noreturn void ircheck_vfail(IrCheck *c, Loc loc, const char *fmt, va_list ap);
/* Registers 'v' as the variable of its id, which must be in range (and
   its type valid). */
void ircheck_identity(IrCheck *c, Loc loc, const void *v);
/* A binding of local 'v' (a parameter, a statement's result): visible
   until its scope is closed. */
void ircheck_bind(IrCheck *c, Loc loc, const void *v);
/* A read of 'v': a global listed (and, in a top-level block, defined),
   or a local in scope. */
void ircheck_use(IrCheck *c, Loc loc, const void *v);
/* Ends the scopes opened since 'mark' (a length of c->scope). */
void ircheck_close_scope(IrCheck *c, int mark);
/* Ends a function (or top-level block) of an IR whose variables are
   bound once per function: every scope closes, and its variables may be
   bound again in the next. */
void ircheck_end_function(IrCheck *c);
/* 'v' is one of the program's globals. */
void ircheck_add_global(IrCheck *c, const void *v);
/* Checks the statements 'stmts' of a block at 'loc' (NULL: the block is
   missing), in the scope the caller is in. */
void ircheck_stmts(IrCheck *c, const Vec *stmts, Loc loc);
/* The types of a block's result atoms 'results' (push_atom_type's),
   read at 'loc'. */
Vec ircheck_results(IrCheck *c, const Vec *results, Loc loc);
/* A nested block (an if's branch, a timed body) of statements 'stmts'
   and results 'results' at 'loc' (NULL: missing, where 'what' names
   it): checked in a scope of its own, which ends after its results;
   gives their types. */
Vec ircheck_nested(IrCheck *c, const Vec *stmts, const Vec *results, Loc loc, const char *what);
/* Function 'f' of the program is named 'name', which no other is. */
void ircheck_add_func(IrCheck *c, Loc loc, const char *name, const void *f);
/* Whether 'f' is the program's function of its name 'name'. */
bool ircheck_has_func(const IrCheck *c, const char *name, const void *f);

/* ---- interrupts (Ctrl-C) ----
   The REPL's SIGINT handler calls interrupt_request(), which only sets
   a flag (async-signal-safe).  A long computation polls
   interrupt_pending() at safe points and stops its statement with a
   run-time error "interrupted" when it is set, clearing it; the REPL
   clears it before each input.  A check is one load of a volatile
   sig_atomic_t: cheap enough for every call and every element. */
void interrupt_request(void);
bool interrupt_pending(void);
void interrupt_clear(void);

#endif
