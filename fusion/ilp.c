/*
 * ilp.c: the models of schedule.c, kept as numbers beside GLPK.
 *
 * Most models of a compilation are repeats (a region repeats in each
 * specialization of its function and in each place library code is
 * inlined: lib_lifted builds 538 models, 115 of them distinct), and a
 * repeat is answered by the first one's solution, looked up by the
 * model's numbers.  Building each model in GLPK only to read its numbers
 * back cost more than looking them up.  So a model is its calls, logged
 * (adding columns and rows, setting kinds, bounds and costs), and the
 * numbers GLPK would hold after them, worked out as GLPK does (a binary
 * column is an integer one bounded by 0 and 1, a fixed one's upper bound
 * is its lower, a row's elements read back last first, its zeros
 * dropped).  GLPK makes the model from the log, by the same calls in the
 * same order, only when it must solve it, or write it (--dump=ilp: then
 * at once, names and all).  NESSIE_CHECK_MODELS=1 has GLPK make every
 * model and checks the numbers against its own.
 */
#include <errno.h>
#include <float.h>
#include <glpk.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fusion.h"

enum { NODE_LIMIT = 500 };

/* A column or row as GLPK holds it. */
typedef struct Line {
  int kind; /* columns: GLP_CV or GLP_IV */
  int type;
  double lb, ub;
  double coef; /* columns: the objective's */
  int first, len; /* rows: the elements, as given, from element 'first' */
} Line;

/* The calls that made a model, in order, for GLPK to make it again. */
typedef enum Call { ADD_COLS, COL_KIND, COL_BNDS, OBJ_COEF, ADD_ROW } Call;

typedef struct Logged {
  Call call;
  int j, type; /* the column, or the count (ADD_COLS); the kind or bounds' type */
  double lb, ub; /* bounds; OBJ_COEF: lb the cost */
} Logged;

/* One model at a time: its arrays are the previous model's, emptied
   (hundreds of models a compilation). */
struct FusModel {
  glp_prob *lp; /* NULL until GLPK must make it */
  bool named, alive;
  Line *cols, *rows; /* 1-based */
  int ncols, nrows, col_room, row_room;
  int *index;     /* the rows' elements: their columns, */
  double *value;  /* and coefficients, one row after the other */
  int nelems, index_room, value_room;
  Logged *log;
  int nlog, log_room;
};

static FusModel the_model;

/* Room for 'n' more items of 'size' bytes in '*data', which holds 'len'
   of 'room'. */
static void *room_for(void *data, int len, int *room, int n, size_t size) {
  if (len + n <= *room)
    return data;
  *room = 2 * (len + n);
  void *bigger = xmalloc_atomic(size * (size_t)*room);
  if (data)
    memcpy(bigger, data, size * (size_t)len);
  return bigger;
}

static bool check_models(void) {
  static int check = -1;
  if (check < 0) {
    const char *v = getenv("NESSIE_CHECK_MODELS");
    check = v && *v && strcmp(v, "0") != 0;
  }
  return check;
}

static void glpk_row(glp_prob *lp, const FusModel *m, const Line *row, const char *name) {
  int i = glp_add_rows(lp, 1);
  glp_set_row_name(lp, i, name);
  glp_set_row_bnds(lp, i, row->type, row->lb, row->ub);
  /* GLPK's arrays are 1-based: the row's elements from [1] */
  glp_set_mat_row(lp, i, row->len, m->index + row->first - 1, m->value + row->first - 1);
}

/* The name of the row being added, in a named model (names are not
   logged: a model is made again only unnamed). */
static const char *current_name;

static void glpk_call(glp_prob *lp, const Logged *c, const FusModel *m) {
  switch (c->call) {
  case ADD_COLS:
    glp_add_cols(lp, c->j);
    break;
  case COL_KIND:
    glp_set_col_kind(lp, c->j, c->type);
    break;
  case COL_BNDS:
    glp_set_col_bnds(lp, c->j, c->type, c->lb, c->ub);
    break;
  case OBJ_COEF:
    glp_set_obj_coef(lp, c->j, c->lb);
    break;
  case ADD_ROW:
    glpk_row(lp, m, &m->rows[c->j], current_name);
    break;
  }
}

/* GLPK's problem of 'm', made by its calls if not yet. */
static glp_prob *glpk_of(FusModel *m) {
  if (!m->lp) {
    m->lp = glp_create_prob();
    glp_set_obj_name(m->lp, "unsaved");
    glp_set_obj_dir(m->lp, GLP_MIN);
    for (int i = 0; i < m->nlog; i++)
      glpk_call(m->lp, &m->log[i], m);
  }
  return m->lp;
}

/* Call 'c' logged, and made in GLPK too when the model is made there
   already. */
static void log_call(FusModel *m, Logged c) {
  if (m->lp)
    glpk_call(m->lp, &c, m);
  m->log = room_for(m->log, m->nlog, &m->log_room, 1, sizeof(Logged));
  m->log[m->nlog++] = c;
}

FusModel *fus_model_new(bool named, const char *name) {
  FusModel *m = &the_model;
  if (m->alive)
    die("fusion: a model made before the last was freed");
  m->alive = true;
  m->named = named;
  m->ncols = m->nrows = m->nelems = m->nlog = 0;
  if (named || check_models()) {
    m->lp = glp_create_prob();
    glp_set_prob_name(m->lp, name);
    glp_set_obj_name(m->lp, "unsaved");
    glp_set_obj_dir(m->lp, GLP_MIN);
  }
  return m;
}

void fus_model_free(FusModel *m) {
  if (m->lp)
    glp_delete_prob(m->lp);
  m->lp = NULL;
  m->alive = false;
}

/* Bounds as GLPK keeps them: the side a type does not bound is zero. */
static void set_bounds(Line *l, int type, double lb, double ub) {
  l->type = type;
  l->lb = type == GLP_LO || type == GLP_DB || type == GLP_FX ? lb : 0;
  l->ub = type == GLP_UP || type == GLP_DB ? ub : type == GLP_FX ? lb : 0;
}

int fus_model_add_cols(FusModel *m, int n) {
  m->cols = room_for(m->cols, m->ncols + 1, &m->col_room, n, sizeof(Line));
  int first = m->ncols + 1;
  for (int j = first; j < first + n; j++)
      m->cols[j] = (Line){GLP_CV, GLP_FX, 0, 0, 0, 0, 0}; /* a new column */
  m->ncols += n;
  log_call(m, (Logged){ADD_COLS, n, 0, 0, 0});
  return first;
}

void fus_model_col_name(FusModel *m, int j, const char *name) {
  if (m->named)
    glp_set_col_name(m->lp, j, name);
}

void fus_model_col_kind(FusModel *m, int j, int kind) {
  Line *c = &m->cols[j];
  if (kind == GLP_BV) { /* an integer in [0, 1] */
    c->kind = GLP_IV;
    if (!(c->type == GLP_DB && c->lb == 0 && c->ub == 1))
      set_bounds(c, GLP_DB, 0, 1);
  } else {
    c->kind = kind;
  }
  log_call(m, (Logged){COL_KIND, j, kind, 0, 0});
}

void fus_model_col_bnds(FusModel *m, int j, int type, double lb, double ub) {
  set_bounds(&m->cols[j], type, lb, ub);
  log_call(m, (Logged){COL_BNDS, j, type, lb, ub});
}

void fus_model_obj_coef(FusModel *m, int j, double coef) {
  m->cols[j].coef = coef;
  log_call(m, (Logged){OBJ_COEF, j, 0, coef, 0});
}

void fus_model_add_row(FusModel *m, const char *name, int type, double lb, double ub, int len, const int *cols,
                       const double *vals) {
  m->rows = room_for(m->rows, m->nrows + 1, &m->row_room, 1, sizeof(Line));
  Line *row = &m->rows[++m->nrows];
  *row = (Line){0};
  set_bounds(row, type, lb, ub);
  m->index = room_for(m->index, m->nelems, &m->index_room, len + 1, sizeof(int));
  m->value = room_for(m->value, m->nelems, &m->value_room, len + 1, sizeof(double));
  m->index[m->nelems] = 0; /* (before each row's: GLPK's [0], unread) */
  m->value[m->nelems] = 0;
  row->first = m->nelems + 1;
  row->len = len;
  for (int k = 0; k < len; k++) {
    m->index[row->first + k] = cols[k];
    m->value[row->first + k] = vals[k];
  }
  m->nelems += len + 1;
  current_name = m->named ? name : NULL;
  log_call(m, (Logged){ADD_ROW, m->nrows, 0, 0, 0});
  current_name = NULL;
}

/* ---- the models solved so far ---- */

/* A model's numbers, in order, each in 64 bits (a double bit for bit):
   its columns' kinds, bounds and costs, its rows' bounds and
   coefficients, each row's preceded by their count (names left out:
   they do not change the answer): what GLPK's getters give. */
typedef struct ModelKey {
  uint64_t *words;
  int len;
  uint64_t hash;
} ModelKey;

typedef struct Solved {
  ModelKey key; /* words NULL: an empty slot */
  FusSolution *solution;
} Solved;

/* The models solved so far, by their numbers: a repeat gets the first
   answer without solving again, also where GLPK gave up at its time
   limit (the key holds the limit): one answer per model, whatever the
   machine's speed the second time.  A table of its own, keyed by the
   numbers themselves: writing them as text to key a Map took longer
   than solving most models. */
static struct {
  Solved *slots;
  int cap, used;
} solutions;

typedef struct KeyWriter {
  uint64_t *words;
  int len, cap;
} KeyWriter;

static void key_word(KeyWriter *w, uint64_t x) {
  if (w->len == w->cap) {
    int cap = w->cap ? 2 * w->cap : 256;
    uint64_t *words = xmalloc_atomic(sizeof(uint64_t) * (size_t)cap);
    if (w->len)
      memcpy(words, w->words, sizeof(uint64_t) * (size_t)w->len);
    w->words = words;
    w->cap = cap;
  }
  w->words[w->len++] = x;
}

static void key_int(KeyWriter *w, int i) { key_word(w, (uint64_t)(int64_t)i); }

static void key_double(KeyWriter *w, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  key_word(w, bits);
}

/* A bound as GLPK's getters give it: infinite on the side its type does
   not bound. */
static double lower(const Line *l) { return l->type == GLP_FR || l->type == GLP_UP ? -DBL_MAX : l->lb; }
static double upper(const Line *l) { return l->type == GLP_FR || l->type == GLP_LO ? DBL_MAX : l->ub; }

static ModelKey finish_key(KeyWriter *w) {
  uint64_t h = 14695981039346656037ULL;
  for (int i = 0; i < w->len; i++) {
    h = (h ^ w->words[i]) * 1099511628211ULL;
    h ^= h >> 29;
  }
  return (ModelKey){w->words, w->len, h};
}

/* The key of 'm', from its own numbers, in a buffer of its own reused
   from model to model (solved_put copies a key it keeps). */
static ModelKey model_key(const FusModel *m, int time_limit_ms) {
  static KeyWriter scratch;
  KeyWriter w = scratch;
  w.len = 0;
  key_int(&w, time_limit_ms); /* a model given up at one limit may not be at another */
  key_int(&w, GLP_MIN);
  key_int(&w, m->ncols);
  key_int(&w, m->nrows);
  key_double(&w, 0); /* the objective's constant */
  for (int j = 1; j <= m->ncols; j++) {
    const Line *c = &m->cols[j];
    bool binary = c->kind == GLP_IV && c->type == GLP_DB && c->lb == 0 && c->ub == 1;
    key_int(&w, binary ? GLP_BV : c->kind);
    key_int(&w, c->type);
    key_double(&w, lower(c));
    key_double(&w, upper(c));
    key_double(&w, c->coef);
  }
  for (int i = 1; i <= m->nrows; i++) {
    const Line *r = &m->rows[i];
    key_int(&w, r->type);
    key_double(&w, lower(r));
    key_double(&w, upper(r));
    const int *index = m->index + r->first;
    const double *value = m->value + r->first;
    int len = 0;
    for (int k = 0; k < r->len; k++)
      len += value[k] != 0;
    key_int(&w, len);
    for (int k = r->len - 1; k >= 0; k--) /* GLPK reads a row back last first, without its zeros */
      if (value[k] != 0) {
        key_int(&w, index[k]);
        key_double(&w, value[k]);
      }
  }
  scratch = w;
  return finish_key(&w);
}

/* The same key read back from GLPK (NESSIE_CHECK_MODELS). */
static ModelKey glpk_key(glp_prob *lp, int time_limit_ms) {
  KeyWriter w = {0};
  key_int(&w, time_limit_ms);
  int nc = glp_get_num_cols(lp), nr = glp_get_num_rows(lp);
  key_int(&w, glp_get_obj_dir(lp));
  key_int(&w, nc);
  key_int(&w, nr);
  key_double(&w, glp_get_obj_coef(lp, 0));
  for (int j = 1; j <= nc; j++) {
    key_int(&w, glp_get_col_kind(lp, j));
    key_int(&w, glp_get_col_type(lp, j));
    key_double(&w, glp_get_col_lb(lp, j));
    key_double(&w, glp_get_col_ub(lp, j));
    key_double(&w, glp_get_obj_coef(lp, j));
  }
  int *ind = xmalloc_atomic(sizeof(int) * (size_t)(nc + 1));
  double *val = xmalloc_atomic(sizeof(double) * (size_t)(nc + 1));
  for (int i = 1; i <= nr; i++) {
    int len = glp_get_mat_row(lp, i, ind, val);
    key_int(&w, glp_get_row_type(lp, i));
    key_double(&w, glp_get_row_lb(lp, i));
    key_double(&w, glp_get_row_ub(lp, i));
    key_int(&w, len);
    for (int k = 1; k <= len; k++) {
      key_int(&w, ind[k]);
      key_double(&w, val[k]);
    }
  }
  return finish_key(&w);
}

/* The slot of 'key' in the table: its own, or the empty one where it
   would go. */
static Solved *solved_slot(const ModelKey *key) {
  uint64_t mask = (uint64_t)solutions.cap - 1;
  for (uint64_t i = key->hash & mask;; i = (i + 1) & mask) {
    Solved *e = &solutions.slots[i];
    if (!e->key.words || (e->key.hash == key->hash && e->key.len == key->len &&
                          memcmp(e->key.words, key->words, sizeof(uint64_t) * (size_t)key->len) == 0))
      return e;
  }
}

static FusSolution *solved_get(const ModelKey *key) { return solutions.cap ? solved_slot(key)->solution : NULL; }

static void solved_put(ModelKey key, FusSolution *s) {
  if (2 * (solutions.used + 1) > solutions.cap) {
    Solved *old = solutions.slots;
    int old_cap = solutions.cap;
    solutions.cap = old_cap ? 2 * old_cap : 64;
    solutions.slots = xmalloc(sizeof(Solved) * (size_t)solutions.cap);
    for (int i = 0; i < old_cap; i++)
      if (old[i].key.words)
        *solved_slot(&old[i].key) = old[i];
  }
  Solved *e = solved_slot(&key);
  if (!e->key.words) {
    e->key = key;
    solutions.used++;
  }
  e->solution = s;
}

/* ---- solving ---- */

typedef struct Limit {
  int nodes;
} Limit;

/* Stops branch and bound after NODE_LIMIT subproblems. */
static void on_event(glp_tree *tree, void *info) {
  Limit *l = info;
  if (glp_ios_reason(tree) == GLP_ISELECT && ++l->nodes > NODE_LIMIT)
    glp_ios_terminate(tree);
}

/* GLPK's answer for 'm'. */
static FusSolution *run_glpk(FusModel *m, int time_limit_ms) {
  glp_prob *lp = glpk_of(m);
  glp_iocp parm;
  glp_init_iocp(&parm);
  parm.presolve = GLP_ON;
  parm.msg_lev = GLP_MSG_OFF;
  /* cuts and the branching that served the corpus best (docs/fusion.md):
     Gomory and MIR cuts cost more than they save on these models (the
     largest took 67 ms with them, 12 without) */
  parm.cov_cuts = parm.clq_cuts = GLP_ON;
  parm.br_tech = GLP_BR_DTH;
  parm.bt_tech = GLP_BT_BLB;
  parm.tm_lim = time_limit_ms;
  Limit limit = {0};
  parm.cb_func = on_event;
  parm.cb_info = &limit;
  int ret = glp_intopt(lp, &parm);
  int status = glp_mip_status(lp);
  FusSolution *s = NEW(FusSolution);
  s->found = ret == 0 && (status == GLP_OPT || status == GLP_FEAS);
  if (!s->found)
    return s; /* given up (limits), or no solution */
  int nc = glp_get_num_cols(lp);
  s->value = xmalloc_atomic(sizeof(double) * (size_t)(nc + 1));
  for (int j = 1; j <= nc; j++)
    s->value[j] = glp_mip_col_val(lp, j);
  return s;
}

const FusSolution *fus_model_solve(FusModel *m, int time_limit_ms) {
  ModelKey key = model_key(m, time_limit_ms);
  if (check_models()) {
    ModelKey theirs = glpk_key(m->lp, time_limit_ms);
    if (theirs.len != key.len || memcmp(theirs.words, key.words, sizeof(uint64_t) * (size_t)key.len) != 0)
      die("fusion: a model's numbers are not GLPK's");
  }
  FusSolution *s = solved_get(&key);
  if (!s) {
    s = run_glpk(m, time_limit_ms);
    uint64_t *kept = xmalloc_atomic(sizeof(uint64_t) * (size_t)(key.len + 1));
    memcpy(kept, key.words, sizeof(uint64_t) * (size_t)key.len);
    key.words = kept;
    solved_put(key, s);
  }
  return s;
}

/* A model that could not be written: said in the dump, where it would
   have been, and on stderr, so that --dump=ilp never leaves one out
   silently. */
static void lp_missing(FILE *out, const char *why) {
  fprintf(out, "\\* this region's model is missing: %s *\\\n", why);
  fprintf(stderr, "nessie: error: --dump=ilp: %s\n", why);
}

void fus_model_write_lp(FusModel *m, FILE *out) {
  const char *dir = getenv("TMPDIR");
  char *path = xprintf("%s/nessie-ilp-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path); /* mkstemp's template: the six X's become the name */
  if (fd < 0) {
    lp_missing(out, xprintf("cannot make a temporary file in %s: %s", dir && *dir ? dir : "/tmp", strerror(errno)));
    return;
  }
  close(fd);
  FILE *in = glp_write_lp(glpk_of(m), NULL, path) == 0 ? fopen(path, "r") : NULL;
  if (in) {
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
      fwrite(buf, 1, got, out);
    fclose(in);
  } else {
    lp_missing(out, "GLPK could not write the model");
  }
  unlink(path);
}
