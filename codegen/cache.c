/*
 * cache.c: the build cache.  An object compiled from a generated unit is
 * kept under a key, the SHA-256 (Nettle's) of everything the object
 * depends on (build.c makes it: the unit's text, the compiler, its flags,
 * the runtime's headers), so that building an unchanged program again
 * only links.
 *
 * The cache is a directory ($NESSIE_CACHE_DIR, else $XDG_CACHE_HOME/nessie,
 * else ~/.cache/nessie) of 256 subdirectories named by the key's first
 * two hexadecimal digits, each entry named by the whole key.  An entry is
 * a header (a magic line, the object's size, the object's SHA-256) and
 * the object: a truncated or damaged entry is found out when it is read,
 * removed, and the unit compiled again.  An entry is written under a
 * temporary name in its subdirectory and renamed into place, so that a
 * build running beside this one sees the whole entry or none.  Its
 * modification time is its last use: when the cache grows past its
 * bound ($NESSIE_CACHE_SIZE, 1 GiB by default), the least recently used
 * entries go.
 *
 * An object from the cache is linked into the user's program, so the
 * cache must be the user's alone: the directory is opened once and every
 * later step works relative to it (openat, without following links), and
 * a directory, subdirectory or entry that is not owned by the user, or
 * that others may write, is not used.  Whatever goes wrong with the cache
 * (a file in its place, no permission, a full disk) never fails the
 * build: nessie says so once and compiles without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "codegen.h"

struct CgCache {
  const char *path; /* for messages */
  int dir;          /* the cache directory, open */
  long long limit;  /* its bound in bytes */
  bool stored;      /* an entry was added in this build: trim */
  bool warned;      /* one warning a build at most */
};

enum { HEADER_SIZE = 16 + 8 + SHA256_DIGEST_SIZE };
static const char magic[16] = "nessie object 1\n";

/* Says, once a build, that the cache is not used, and why. */
static void warn(CgCache *c, const char *path, const char *why) {
  if (c && c->warned)
    return;
  if (c)
    c->warned = true;
  fprintf(stderr, "nessie: warning: the build cache %s cannot be used (%s); compiling without it\n", path, why);
}

/* A size in bytes: a number, with K, M, G or T (powers of 1024); -1 if
   not one. */
static long long parse_size(const char *s) {
  char *end;
  errno = 0;
  long long n = strtoll(s, &end, 10);
  if (end == s || n < 0 || errno)
    return -1;
  int shift = 0;
  switch (*end) {
  case 'K': case 'k': shift = 10; end++; break;
  case 'M': case 'm': shift = 20; end++; break;
  case 'G': case 'g': shift = 30; end++; break;
  case 'T': case 't': shift = 40; end++; break;
  default: break;
  }
  if (*end != '\0' || n > (LLONG_MAX >> shift))
    return -1;
  return n << shift;
}

/* Makes the directories of 'path' that are missing (mode 0700, as the XDG
   specification asks of its base directories); false with errno set. */
static bool make_dirs(const char *path) {
  char *p = xstrdup(path);
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s != '\0')
      continue;
    char c = *s;
    *s = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
      return false;
    *s = c;
    if (c == '\0')
      return true;
  }
}

/* Is the directory or file 'st' the user's own, written by no one else? */
static bool own(const struct stat *st) { return st->st_uid == geteuid() && (st->st_mode & 022) == 0; }

const char *cg_cache_dir(void) {
  const char *dir = getenv("NESSIE_CACHE_DIR");
  if (dir && *dir)
    return dir;
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') /* the specification ignores a relative one */
    return xprintf("%s/nessie", xdg);
  const char *home = getenv("HOME");
  if (home && *home)
    return xprintf("%s/.cache/nessie", home);
  return NULL;
}

CgCache *cg_cache_open(void) {
  long long limit = 1LL << 30;
  const char *size = getenv("NESSIE_CACHE_SIZE");
  if (size && *size) {
    long long n = parse_size(size);
    if (n < 0)
      fprintf(stderr, "nessie: warning: NESSIE_CACHE_SIZE=%s is not a size (a number of bytes, or with K, M or G); "
                      "the cache keeps at most 1G\n", size);
    else if (n == 0)
      return NULL; /* no cache */
    else
      limit = n;
  }
  const char *path = cg_cache_dir();
  if (!path)
    return NULL; /* no place for it: no HOME */
  if (!make_dirs(path)) {
    warn(NULL, path, xprintf("cannot make it: %s", strerror(errno)));
    return NULL;
  }
  /* a link in its place is followed only if it is the user's own: one
     planted by another user in a shared directory is not */
  struct stat st;
  if (lstat(path, &st) != 0) {
    warn(NULL, path, strerror(errno));
    return NULL;
  }
  if (S_ISLNK(st.st_mode) && st.st_uid != geteuid()) {
    warn(NULL, path, "it is a link that another user made");
    return NULL;
  }
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    warn(NULL, path, errno == ENOTDIR ? "it is not a directory" : strerror(errno));
    return NULL;
  }
  if (fstat(dir, &st) != 0 || !own(&st)) {
    warn(NULL, path, st.st_uid != geteuid() ? "it belongs to another user" : "others may write it");
    close(dir);
    return NULL;
  }
  CgCache *c = NEW(CgCache);
  *c = (CgCache){path, dir, limit, false, false};
  return c;
}

void cg_cache_close(CgCache *c) {
  if (c)
    close(c->dir);
}

/* Entry 'key''s subdirectory ("ab") and name ("ab/abcd..."). */
static const char *subdir(const char *key) { return xprintf("%.2s", key); }
static const char *entry(const char *key) { return xprintf("%.2s/%s", key, key); }

const char *cg_cache_entry_path(const CgCache *c, const char *key) { return xprintf("%s/%s", c->path, entry(key)); }

/* Reads all of 'fd' ('size' bytes) into a new buffer; NULL on a short
   read. */
static unsigned char *read_all(int fd, size_t size) {
  unsigned char *buf = malloc(size ? size : 1);
  if (!buf)
    return NULL;
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      free(buf);
      return NULL;
    }
    done += (size_t)n;
  }
  return buf;
}

static bool write_all(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= (size_t)n;
  }
  return true;
}

static void sha256(const unsigned char *data, size_t size, uint8_t digest[SHA256_DIGEST_SIZE]) {
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, size, data);
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
}

bool cg_cache_fetch(CgCache *c, const char *key, const char *obj) {
  int fd = openat(c->dir, entry(key), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  unsigned char *data = NULL;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && own(&st) && st.st_size >= HEADER_SIZE &&
            (data = read_all(fd, (size_t)st.st_size)) != NULL;
  /* the header: the magic, the object's size, its SHA-256 */
  uint64_t size = 0;
  if (ok) {
    for (int i = 0; i < 8; i++)
      size |= (uint64_t)data[16 + i] << (8 * i);
    ok = memcmp(data, magic, sizeof magic) == 0 && size == (uint64_t)st.st_size - HEADER_SIZE;
  }
  if (ok) {
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256(data + HEADER_SIZE, (size_t)size, digest);
    ok = memcmp(digest, data + 24, SHA256_DIGEST_SIZE) == 0;
  }
  if (!ok) {
    /* damaged (a disk that filled up, a hand that edited it): compiled
       again, and the entry replaced */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
      unlinkat(c->dir, entry(key), 0);
    free(data);
    close(fd);
    return false;
  }
  futimens(fd, NULL); /* used now: the last to go */
  close(fd);
  int out = open(obj, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ok = out >= 0 && write_all(out, data + HEADER_SIZE, (size_t)size);
  if (out >= 0)
    ok &= close(out) == 0;
  free(data);
  return ok;
}

void cg_cache_store(CgCache *c, const char *key, const char *obj) {
  int in = open(obj, O_RDONLY | O_CLOEXEC);
  struct stat st;
  unsigned char *data = NULL;
  if (in < 0 || fstat(in, &st) != 0 || !(data = read_all(in, (size_t)st.st_size))) {
    if (in >= 0)
      close(in);
    return; /* the build reports a missing object itself */
  }
  close(in);
  size_t size = (size_t)st.st_size;
  unsigned char header[HEADER_SIZE];
  memcpy(header, magic, sizeof magic);
  for (int i = 0; i < 8; i++)
    header[16 + i] = (unsigned char)((uint64_t)size >> (8 * i));
  sha256(data, size, header + 24);
  /* the subdirectory, the user's own */
  const char *sub = subdir(key);
  struct stat sst;
  if (mkdirat(c->dir, sub, 0700) != 0 && errno != EEXIST) {
    warn(c, c->path, xprintf("cannot make %s in it: %s", sub, strerror(errno)));
    free(data);
    return;
  }
  if (fstatat(c->dir, sub, &sst, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sst.st_mode) || !own(&sst)) {
    warn(c, c->path, xprintf("%s in it is not a directory of the user's own", sub));
    free(data);
    return;
  }
  /* a name of this build's own beside the entry, then renamed onto it */
  static unsigned counter;
  const char *tmp = xprintf("%s/tmp-%ld-%u-%ld", sub, (long)getpid(), ++counter, (long)time(NULL));
  int fd = openat(c->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0 && write_all(fd, header, sizeof header) && write_all(fd, data, size);
  int err = errno;
  if (fd >= 0 && close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && renameat(c->dir, tmp, c->dir, entry(key)) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    if (fd >= 0)
      unlinkat(c->dir, tmp, 0);
    warn(c, c->path, xprintf("cannot write in it: %s", strerror(err)));
  } else {
    c->stored = true;
  }
  free(data);
}

/* ---- keeping the cache within its bound ---- */

typedef struct Entry {
  const char *name; /* "ab/abcd..." */
  long long size;
  struct timespec used;
} Entry;

static int older_first(const void *a, const void *b) {
  const Entry *x = *(Entry *const *)a, *y = *(Entry *const *)b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec)
    return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

static bool is_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return s[n] == '\0';
}

void cg_cache_trim(CgCache *c) {
  if (!c->stored)
    return; /* nothing added: no larger than the last build left it */
  Vec entries = {0};
  long long total = 0;
  time_t now = time(NULL);
  for (int i = 0; i < 256; i++) {
    const char *sub = xprintf("%02x", i);
    struct stat st;
    if (fstatat(c->dir, sub, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || !own(&st))
      continue;
    int fd = openat(c->dir, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
      if (fd >= 0)
        close(fd);
      continue;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
      if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        continue;
      const char *name = xprintf("%s/%s", sub, e->d_name);
      if (strncmp(e->d_name, "tmp-", 4) == 0) {
        /* left by a build that was killed while it wrote */
        if (now - st.st_mtime > 3600)
          unlinkat(c->dir, name, 0);
        continue;
      }
      if (strlen(e->d_name) != 2 * SHA256_DIGEST_SIZE || !is_hex(e->d_name, 2 * SHA256_DIGEST_SIZE))
        continue; /* not nessie's */
      Entry *en = NEW(Entry);
      *en = (Entry){name, (long long)st.st_size, st.st_mtim};
      vec_push(&entries, en);
      total += en->size;
    }
    closedir(d);
  }
  if (total <= c->limit)
    return;
  qsort(entries.data, (size_t)entries.len, sizeof(void *), older_first);
  for (int i = 0; i < entries.len && total > c->limit; i++) {
    const Entry *en = entries.data[i];
    if (unlinkat(c->dir, en->name, 0) == 0 || errno == ENOENT)
      total -= en->size;
  }
}
