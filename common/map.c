/*
 * map.c: a string-keyed hash map with open addressing (linear probing).
 * Keys are not copied: callers pass strings that live as long as the map
 * (names in the AST do).  Nothing is ever removed, which keeps probing
 * simple.
 */
#include <string.h>

#include "common.h"

typedef struct MapEntry {
  const char *key;
  void *value;
  uint64_t hash; /* of key: a probe compares it before the strings, and
                    growing does not hash the keys again */
} MapEntry;

/* Eight bytes a step: kernels are looked up by their canonical texts,
   hundreds of bytes long, thousands of times a compilation. */
static uint64_t hash(const char *s) {
  size_t n = strlen(s);
  uint64_t h = 14695981039346656037ULL ^ n;
  for (; n >= 8; n -= 8, s += 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 32);
}

/* The entry of 'key' (whose hash is 'h'), or the empty one where it
   would go. */
static MapEntry *find(const Map *m, const char *key, uint64_t h) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    MapEntry *e = &m->entries[i];
    if (!e->key || (e->hash == h && strcmp(e->key, key) == 0))
      return e;
  }
}

/* The entry for a key known to be absent (a key moving to a bigger
   table). */
static MapEntry *find_empty(const Map *m, uint64_t h) {
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = h & mask;; i = (i + 1) & mask)
    if (!m->entries[i].key)
      return &m->entries[i];
}

static void grow(Map *m) {
  /* small first: code generation makes a map per thunk, of a few keys */
  Map bigger = {xmalloc(sizeof(MapEntry) * (size_t)(m->cap ? 2 * m->cap : 16)),
                m->cap ? 2 * m->cap : 16, m->used};
  for (int i = 0; i < m->cap; i++)
    if (m->entries[i].key)
      *find_empty(&bigger, m->entries[i].hash) = m->entries[i];
  *m = bigger;
}

void *map_get(const Map *m, const char *key) {
  if (!m->cap)
    return NULL;
  MapEntry *e = find(m, key, hash(key));
  return e->key ? e->value : NULL;
}

void map_put(Map *m, const char *key, void *value) {
  if (2 * (m->used + 1) > m->cap)
    grow(m);
  uint64_t h = hash(key);
  MapEntry *e = find(m, key, h);
  if (!e->key) {
    e->key = key;
    e->hash = h;
    m->used++;
  }
  e->value = value;
}

void map_clear(Map *m) {
  if (m->used)
    memset(m->entries, 0, sizeof(MapEntry) * (size_t)m->cap);
  m->used = 0;
}

void scoped_put(ScopedMap *m, const char *key, void *value) {
  const char *kept = xstrdup(key);
  vec_push(&m->undo, (void *)kept);
  vec_push(&m->undo, map_get(&m->map, kept));
  map_put(&m->map, kept, value);
}

void scoped_undo(ScopedMap *m, int mark) {
  while (m->undo.len > mark) {
    void *before = m->undo.data[--m->undo.len];
    const char *key = m->undo.data[--m->undo.len];
    map_put(&m->map, key, before);
  }
}

void scoped_clear(ScopedMap *m) {
  map_clear(&m->map);
  m->undo.len = 0;
}

Map map_copy(const Map *m) {
  Map c = *m;
  if (m->cap) {
    c.entries = xmalloc(sizeof(MapEntry) * (size_t)m->cap);
    memcpy(c.entries, m->entries, sizeof(MapEntry) * (size_t)m->cap);
  }
  return c;
}

/* The interned strings.  A global table: names are shared by every
   compilation in the process (the REPL's inputs, the library). */
static Map interned;

const char *intern(const char *s) {
  if (2 * (interned.used + 1) > interned.cap)
    grow(&interned);
  uint64_t h = hash(s);
  MapEntry *e = find(&interned, s, h); /* one probe sequence, found or not */
  if (!e->key) {
    e->key = xstrdup(s);
    e->value = (void *)e->key;
    e->hash = h;
    interned.used++;
  }
  return e->key;
}

/* ---- pointer-keyed maps ---- */

/* An empty map of 'cap' entries holding the entries of 'm'. */
static void ptrmap_rehash(PtrMap *m, int64_t cap) {
  PtrMap bigger = {xmalloc(sizeof(PtrMapEntry) * (size_t)cap), cap, 0};
  for (int64_t i = 0; i < m->cap; i++)
    if (m->entries[i].key)
      *ptrmap_slot(&bigger, m->entries[i].key, true) = m->entries[i].value;
  *m = bigger;
}

static void ptrmap_grow(PtrMap *m) {
  /* small first: most maps are a kernel's, of a few variables, and
     the fusion pass makes many of them */
  ptrmap_rehash(m, m->cap ? 2 * m->cap : 8);
}

/* The capacity that holds 'n' keys without growing. */
static int64_t capacity_for(int64_t n) {
  int64_t cap = n ? 2 : 0;
  while (cap < 2 * n)
    cap *= 2;
  return cap;
}

void ptrmap_init_together(PtrMap *const *maps, const int64_t *counts, int n) {
  int64_t total = 0;
  for (int i = 0; i < n; i++)
    total += capacity_for(counts[i]);
  PtrMapEntry *space = total ? xmalloc(sizeof(PtrMapEntry) * (size_t)total) : NULL;
  for (int i = 0; i < n; i++) {
    int64_t cap = capacity_for(counts[i]);
    *maps[i] = (PtrMap){cap ? space : NULL, cap, 0};
    space += cap;
  }
}

void **ptrmap_slot(PtrMap *m, const void *key, bool insert) {
  if (insert && 2 * (m->used + 1) > m->cap)
    ptrmap_grow(m);
  if (!m->cap)
    return NULL;
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    PtrMapEntry *e = &m->entries[i];
    if (e->key == key)
      return &e->value;
    if (!e->key) {
      if (!insert)
        return NULL;
      e->key = key;
      m->used++;
      return &e->value;
    }
  }
}

void ptrmap_clear(PtrMap *m) {
  if (m->used)
    memset(m->entries, 0, sizeof(PtrMapEntry) * (size_t)m->cap);
  m->used = 0;
}

void ptrmap_put(PtrMap *m, const void *key, void *value) { *ptrmap_slot(m, key, true) = value; }

/* ---- pointer maps emptied at once ---- */

static void genmap_grow(GenMap *m) {
  int64_t cap = m->cap ? 2 * m->cap : 64;
  GenMap bigger = {xmalloc(sizeof(GenMapEntry) * (size_t)cap), cap, 0, m->generation};
  for (int64_t i = 0; i < m->cap; i++) {
    const GenMapEntry *e = &m->entries[i];
    if (e->key && e->generation == m->generation)
      *genmap_slot(&bigger, e->key, true) = e->value;
  }
  *m = bigger;
}

void **genmap_slot(GenMap *m, const void *key, bool insert) {
  if (insert && 2 * (m->used + 1) > m->cap)
    genmap_grow(m);
  if (!m->cap)
    return NULL;
  uint64_t mask = (uint64_t)m->cap - 1;
  for (uint64_t i = ptr_hash(key) & mask;; i = (i + 1) & mask) {
    GenMapEntry *e = &m->entries[i];
    if (!e->key || e->generation != m->generation) {
      /* within a generation nothing is removed: a probe for a key of
         this one never passes such a slot */
      if (!insert)
        return NULL;
      *e = (GenMapEntry){key, NULL, m->generation};
      m->used++;
      return &e->value;
    }
    if (e->key == key)
      return &e->value;
  }
}

void genmap_put(GenMap *m, const void *key, void *value) { *genmap_slot(m, key, true) = value; }

void genmap_clear(GenMap *m) {
  if (!m->used)
    return;
  m->used = 0;
  if (++m->generation == 0) { /* after 2^32 generations: clear once */
    memset(m->entries, 0, sizeof(GenMapEntry) * (size_t)m->cap);
    m->generation = 1;
  }
}
