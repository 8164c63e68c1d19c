/*
 * version.c: what `nessie --version` prints.
 *
 * A bug report needs more than a version number: the commit the binary
 * was built from (the Makefile writes it into BUILD/version.h with `git
 * describe --always --dirty`, or "unknown" outside git), and the two
 * compilers the binary would hand its generated code to, since most
 * surprises in an executable come from them.  So --version runs the C
 * compiler and nvcc once each with --version, as the build would find
 * them, and prints the line that names their release, and where the
 * runtime is.  The compilers run without a shell (posix_spawnp), as the
 * builds do: NESSIE_CC and NESSIE_NVCC are a program's name, not a
 * command line.
 */
#define _XOPEN_SOURCE 700 /* realpath, to show the runtime's directory without "bin/.." */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/driver.h"
#include "codegen/codegen.h"
#include "version.h" /* BUILD/version.h: NESSIE_VERSION and NESSIE_COMMIT */

extern char **environ;

const char nessie_version[] = NESSIE_VERSION;

/* What `PROGRAM --version` prints on stdout and stderr (at most 64 KiB),
   or NULL if it cannot be run or fails. */
static char *version_output(const char *program) {
  int fds[2];
  if (pipe(fds) != 0)
    return NULL;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  char *argv[] = {(char *)program, "--version", NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, program, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return NULL;
  }
  enum { MAX = 64 << 10 };
  char *text = xmalloc_atomic(MAX + 1);
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fds[0], text + len, MAX - len);
    if (n > 0 && (len += (size_t)n) < MAX)
      continue;
    if (n < 0 && errno == EINTR)
      continue;
    break;
  }
  close(fds[0]);
  text[len] = '\0';
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : NULL;
}

/* The first line of 'text' that contains 'needle' (the first line when
   'needle' is NULL), without its newline; NULL if none. */
static const char *line_with(const char *text, const char *needle) {
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    const char *line = xstrndup(p, n);
    if (!needle || strstr(line, needle))
      return line;
    p += n;
    if (*p == '\n')
      p++;
  }
  return NULL;
}

void print_version(FILE *out) {
  fprintf(out, "nessie %s (commit %s)\n", NESSIE_VERSION, NESSIE_COMMIT);

  const char *cc = cg_c_compiler();
  const char *cc_text = version_output(cc);
  const char *cc_line = cc_text ? line_with(cc_text, NULL) : NULL;
  if (cc_line && *cc_line)
    fprintf(out, "C compiler: %s (%s)\n", cc, cc_line);
  else
    fprintf(out, "C compiler: none (%s cannot be run: install gcc, or name a C compiler in NESSIE_CC)\n", cc);

  const char *nvcc = cg_nvcc_path();
  const char *nvcc_text = nvcc ? version_output(nvcc) : NULL;
  /* nvcc's last line: "Cuda compilation tools, release 12.4, V12.4.131" */
  const char *release = nvcc_text ? line_with(nvcc_text, "release ") : NULL;
  if (release) {
    const char *r = strstr(release, "release ");
    fprintf(out, "CUDA toolkit: %.*s (%s)\n", (int)strcspn(r, ","), r, nvcc);
  } else if (nvcc)
    fprintf(out, "CUDA toolkit: none (%s --version fails)\n", nvcc);
  else
    fprintf(out, "CUDA toolkit: none (no nvcc in NESSIE_NVCC, on the PATH or in /usr/local/cuda/bin)\n");

  const char *rt = cg_runtime_dir();
  char resolved[PATH_MAX];
  if (rt && realpath(rt, resolved))
    rt = resolved;
  if (!rt)
    fprintf(out, "runtime: not found (lib/nessie is not next to the nessie binary: run `make`, or `make install`)\n");
  else if (access(xprintf("%s/libnessie_rt_cuda.a", rt), F_OK) == 0)
    fprintf(out, "runtime: %s (CPU and CUDA)\n", rt);
  else
    fprintf(out, "runtime: %s (CPU only)\n", rt);
}
