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

/* Is 'name' an executable file in a directory of $PATH (or a path)? */
static bool on_path(const char *name) {
  if (strchr(name, '/'))
    return access(name, X_OK) == 0;
  const char *path = getenv("PATH");
  if (!path)
    return false;
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && access(xprintf("%.*s/%s", (int)n, p, name), X_OK) == 0)
      return true;
    p += n;
    if (*p == ':')
      p++;
  }
  return false;
}

/* nvcc: $NESSIE_NVCC, else nvcc on the PATH, else the toolkit's usual
   place; NULL if none. */
static const char *find_nvcc(void) {
  const char *env = getenv("NESSIE_NVCC");
  if (env && *env)
    return env;
  if (on_path("nvcc"))
    return "nvcc";
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
    return "/usr/local/cuda/bin/nvcc";
  return NULL;
}

/* The runtime directory if it holds the CUDA runtime too. */
static bool has_cuda_runtime(const char *rt) {
  return rt && is_file(xprintf("%s/libnessie_rt_cuda.a", rt)) && is_file(xprintf("%s/include/gpu.cuh", rt));
}

CgTargetKind cg_default_target(void) {
  return find_nvcc() && has_cuda_runtime(cg_runtime_dir()) ? CG_CUDA : CG_CPU;
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

/* The compiler's command line for 'src' (argv, NULL-terminated). */
static char **compile_command(const CgBuild *b, const char *rt, const char *nvcc, const char *src) {
  static char *argv[32];
  int n = 0;
  if (b->target == CG_CUDA) {
    const char *opt = getenv("NESSIE_NVCCFLAGS");
    argv[n++] = (char *)nvcc;
    argv[n++] = "-std=c++17";
    argv[n++] = (char *)(opt && *opt ? opt : "-O3"); /* one flag, as NESSIE_CFLAGS */
    argv[n++] = xprintf("-arch=%s", b->arch ? b->arch : "sm_90");
    argv[n++] = "-w";
    argv[n++] = xprintf("-I%s/include", rt);
    argv[n++] = "-o";
    argv[n++] = (char *)b->output;
    argv[n++] = (char *)src;
    argv[n++] = xprintf("%s/libnessie_rt_cuda.a", rt);
    argv[n++] = "-Xcompiler";
    argv[n++] = "-fopenmp";
    argv[n++] = "-lm";
    argv[n++] = "-lpthread";
  } else {
    const char *cc = getenv("NESSIE_CC"), *opt = getenv("NESSIE_CFLAGS");
    argv[n++] = (char *)(cc && *cc ? cc : "cc");
    argv[n++] = "-std=c17";
    argv[n++] = (char *)(opt && *opt ? opt : "-O2"); /* one flag: -O1 for quicker builds */
    argv[n++] = "-fopenmp";
    argv[n++] = "-w"; /* generated code: its warnings are nessie's bugs, not the user's */
    argv[n++] = xprintf("-I%s/include", rt);
    argv[n++] = "-o";
    argv[n++] = (char *)b->output;
    argv[n++] = (char *)src;
    argv[n++] = xprintf("%s/libnessie_rt.a", rt);
    argv[n++] = "-lm";
    argv[n++] = "-lpthread";
  }
  argv[n] = NULL;
  return argv;
}

int cg_build(const LcuProgram *p, const CgBuild *b) {
  const CgTarget *target = b->target == CG_CUDA ? &cg_cuda_target : &cg_cpu_target;
  const char *rt = cg_runtime_dir();
  if (!rt) {
    fprintf(stderr, "nessie: error: the runtime (lib/nessie/include/rt.h and libnessie_rt.a) is not next to the "
                    "nessie binary: run `make`, or `make install`\n");
    return 1;
  }
  const char *nvcc = NULL;
  if (b->target == CG_CUDA) {
    nvcc = find_nvcc();
    if (!nvcc) {
      fprintf(stderr, "nessie: error: --target=cuda needs nvcc, the CUDA compiler: put it on the PATH or name it "
                      "in NESSIE_NVCC (or use --target=cpu)\n");
      return 1;
    }
    if (!has_cuda_runtime(rt)) {
      fprintf(stderr, "nessie: error: the CUDA runtime (%s/libnessie_rt_cuda.a) was not built: run `make` where "
                      "nvcc is found (or use --target=cpu)\n", rt);
      return 1;
    }
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
    char **argv = compile_command(b, rt, nvcc, src);
    int rc = run_command(argv, b->verbose);
    if (rc == 0)
      status = 0;
    else if (rc > 0)
      fprintf(stderr, "nessie: error: the %s compiler (%s) failed with status %d\n",
              b->target == CG_CUDA ? "CUDA" : "C", argv[0], rc);
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
