/*
 * build.c: from λcu to an executable.  The generated source goes into a
 * private temporary directory (mkdtemp); cc (or nvcc) runs there without
 * a shell (posix_spawnp), its messages pass through, and the directory is
 * removed afterwards.  The runtime's headers and library are found next
 * to the nessie binary, in the build tree (build/lib/nessie) or under
 * the installation prefix (PREFIX/lib/nessie), so that nessie works from
 * any directory.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codegen.h"

extern char **environ;

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *cg_runtime_dir(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return NULL;
  *slash = '\0';
  const char *candidates[] = {xprintf("%s/lib/nessie", exe), xprintf("%s/../lib/nessie", exe)};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    if (is_file(xprintf("%s/include/rt.h", candidates[i])) && is_file(xprintf("%s/libnessie_rt.a", candidates[i])))
      return candidates[i];
  return NULL;
}

/* Runs 'argv' and waits: its exit status, or -1 if it could not start. */
static int run_command(char **argv, bool verbose) {
  if (verbose) {
    for (char **a = argv; *a; a++)
      fprintf(stderr, "%s%s", a == argv ? "" : " ", *a);
    fputc('\n', stderr);
  }
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "nessie: error: cannot run %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  fprintf(stderr, "nessie: error: %s stopped by signal %d\n", argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

static bool copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
  bool ok = in && out;
  char buf[8192];
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
    ok = fwrite(buf, 1, n, out) == n;
  if (in)
    fclose(in);
  if (out)
    ok &= fclose(out) == 0;
  return ok;
}

int cg_build(const LcuProgram *p, const CgBuild *b) {
  const CgTarget *target = &cg_cpu_target;
  if (b->target == CG_CUDA) {
    fprintf(stderr, "nessie: error: the CUDA target is not available yet; use --target=cpu\n");
    return 1;
  }
  const char *rt = cg_runtime_dir();
  if (!rt) {
    fprintf(stderr, "nessie: error: the runtime (lib/nessie/include/rt.h and libnessie_rt.a) is not next to the "
                    "nessie binary: run `make`, or `make install`\n");
    return 1;
  }
  const char *tmp = getenv("TMPDIR");
  char *dir = xprintf("%s/nessie-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    fprintf(stderr, "nessie: error: cannot make a temporary directory in %s: %s\n", tmp && *tmp ? tmp : "/tmp",
            strerror(errno));
    return 1;
  }
  const char *src = xprintf("%s/program%s", dir, target->extension);
  FILE *out = fopen(src, "w");
  if (!out) {
    fprintf(stderr, "nessie: error: cannot write %s: %s\n", src, strerror(errno));
    rmdir(dir);
    return 1;
  }
  cg_program(out, p, target, b->source_name);
  bool written = fclose(out) == 0;
  int status = 1;
  if (!written) {
    fprintf(stderr, "nessie: error: cannot write %s\n", src);
  } else {
    const char *cc = getenv("NESSIE_CC"), *opt = getenv("NESSIE_CFLAGS");
    char *argv[] = {(char *)(cc && *cc ? cc : "cc"),
                    "-std=c17",
                    (char *)(opt && *opt ? opt : "-O2"), /* one flag: -O1 for quicker builds */
                    "-fopenmp",
                    "-w", /* generated code: its warnings are nessie's bugs, not the user's */
                    xprintf("-I%s/include", rt),
                    "-o",
                    (char *)b->output,
                    (char *)src,
                    xprintf("%s/libnessie_rt.a", rt),
                    "-lm",
                    "-lpthread",
                    NULL};
    int rc = run_command(argv, b->verbose);
    if (rc == 0)
      status = 0;
    else if (rc > 0)
      fprintf(stderr, "nessie: error: the C compiler (%s) failed with status %d\n", argv[0], rc);
  }
  if (b->keep) {
    const char *kept = xprintf("%s%s", b->output, target->extension);
    if (!copy_file(src, kept))
      fprintf(stderr, "nessie: warning: cannot keep the generated source as %s\n", kept);
    else if (b->verbose)
      fprintf(stderr, "kept %s\n", kept);
  }
  unlink(src);
  rmdir(dir);
  return status;
}
