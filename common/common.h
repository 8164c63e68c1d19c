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

/* ---- alloc.c ---- */

void *xmalloc(size_t size);        /* zeroed, scanned for pointers */
void *xmalloc_atomic(size_t size); /* not zeroed, never holds pointers */
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvprintf(const char *fmt, va_list ap);

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

void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *buf_str(Buf *b); /* NUL-terminated contents; the buffer stays usable */

/* ---- map.c ---- */

/* A hash map from strings to pointers.  Zero-initialized is empty. */
typedef struct Map {
  struct MapEntry *entries;
  int cap, used;
} Map;

void *map_get(const Map *m, const char *key);
void map_put(Map *m, const char *key, void *value);
Map map_copy(const Map *m);

/* A hash map from pointers to pointers.  Zero-initialized is empty.  It
   is never iterated, so addresses never decide an order. */
typedef struct PtrMap {
  const void **keys;
  void **values;
  int64_t cap, used;
} PtrMap;

/* The value slot of 'key', added (holding NULL) if 'insert'; NULL if
   absent and not 'insert'. */
void **ptrmap_slot(PtrMap *m, const void *key, bool insert);
/* The value of 'key', or NULL; and setting it.  The map's arrays are
   scanned by the collector, so a key stays alive as long as the map: an
   address can never be reused for another object while it is a key
   (the bug of keying a Map by a formatted pointer). */
void *ptrmap_get(const PtrMap *m, const void *key);
void ptrmap_put(PtrMap *m, const void *key, void *value);

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

/* ---- diag.c ---- */

/* A source file as the lexer and the diagnostics see it. */
typedef struct Source {
  const char *name; /* as given on the command line, or "<stdin>" */
  const char *text; /* whole contents, NUL-terminated */
  size_t len;
} Source;

/* A position in a source: 1-based line and column (bytes). */
typedef struct Loc {
  const Source *src;
  int line, col;
} Loc;

extern const Loc no_loc;

Source *source_from_file(const char *path); /* NULL if unreadable */
Source *source_from_string(const char *name, const char *text);

/* Prints `file:line:col: error: message`, the source line and a caret to
   stderr, and counts the error. */
void diag_error(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag_verror(Loc loc, const char *fmt, va_list ap);
void diag_note(Loc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int diag_count(void); /* errors since the last diag_reset() */
void diag_reset(void);

/* Where diagnostics go (stderr by default); tests redirect it. */
void diag_set_stream(FILE *f);

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

#endif
