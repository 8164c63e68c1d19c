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

/* Appends the words of 'flags' (split at blanks; the user's
   NESSIE_CFLAGS or NESSIE_NVCCFLAGS), or 'dflt' when it is unset or
   empty. */
static void push_flags(Vec *argv, const char *flags, const char *dflt) {
  if (!flags || !*flags)
    flags = dflt;
  for (const char *p = flags; *p;) {
    while (*p == ' ' || *p == '\t')
      p++;
    const char *q = p;
    while (*q && *q != ' ' && *q != '\t')
      q++;
    if (q > p)
      vec_push(argv, xstrndup(p, (size_t)(q - p)));
    p = q;
  }
}

/* The compiler's command line for 'src' (argv, NULL-terminated). */
static char **compile_command(const CgBuild *b, const char *rt, const char *nvcc, const char *src) {
  Vec argv = {0};
  if (b->target == CG_CUDA) {
    vec_push(&argv, (void *)nvcc);
    vec_push(&argv, "-std=c++17");
    push_flags(&argv, getenv("NESSIE_NVCCFLAGS"), "-O3");
    vec_push(&argv, xprintf("-arch=%s", b->arch ? b->arch : "sm_90"));
    vec_push(&argv, "-w");
    vec_push(&argv, xprintf("-I%s/include", rt));
    vec_push(&argv, "-o");
    vec_push(&argv, (void *)b->output);
    vec_push(&argv, (void *)src);
    vec_push(&argv, xprintf("%s/libnessie_rt_cuda.a", rt));
    /* the host's products uncontracted, as the device's (rt_mul_rn) */
    vec_push(&argv, "-Xcompiler");
    vec_push(&argv, "-fopenmp,-ffp-contract=off");
    vec_push(&argv, "-lm");
    vec_push(&argv, "-lpthread");
  } else {
    const char *cc = getenv("NESSIE_CC");
    vec_push(&argv, (void *)(cc && *cc ? cc : "cc"));
    vec_push(&argv, "-std=c17");
    /* -O1 builds quicker; make test-asan adds the sanitizers */
    push_flags(&argv, getenv("NESSIE_CFLAGS"), "-O2");
    vec_push(&argv, "-fopenmp");
    vec_push(&argv, "-ffp-contract=off"); /* a product's overflow carried into its sum (rt_mul_rn) */
    vec_push(&argv, "-w"); /* generated code: its warnings are nessie's bugs, not the user's */
    vec_push(&argv, xprintf("-I%s/include", rt));
    vec_push(&argv, "-o");
    vec_push(&argv, (void *)b->output);
    vec_push(&argv, (void *)src);
    vec_push(&argv, xprintf("%s/libnessie_rt.a", rt));
    vec_push(&argv, "-lm");
    vec_push(&argv, "-lpthread");
  }
  vec_push(&argv, NULL);
  return (char **)argv.data;
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
