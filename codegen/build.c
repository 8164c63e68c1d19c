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

static void print_command(char **argv) {
  for (char **a = argv; *a; a++)
    fprintf(stderr, "%s%s", a == argv ? "" : " ", *a);
  fputc('\n', stderr);
}

/* Starts 'argv': its pid, or -1 after a message. */
static pid_t start_command(char **argv, bool verbose) {
  if (verbose)
    print_command(argv);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    fprintf(stderr, "nessie: error: cannot run %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  return pid;
}

/* What a finished command's wait status says: its exit status, or -1
   after a message when a signal stopped it. */
static int exit_status(const char *name, int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  fprintf(stderr, "nessie: error: %s stopped by signal %d\n", name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

/* How many compilers run at once: $NESSIE_JOBS, else the processors
   online. */
static int max_jobs(void) {
  const char *env = getenv("NESSIE_JOBS");
  if (env && *env) {
    char *end;
    long n = strtol(env, &end, 10);
    if (*end == '\0' && n >= 1 && n <= 1024)
      return (int)n;
    fprintf(stderr, "nessie: warning: NESSIE_JOBS=%s is not a number from 1 to 1024; ignored\n", env);
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? (int)(n < 1024 ? n : 1024) : 1;
}

/* Runs the 'n' commands 'argvs', at most max_jobs() at once: the first
   non-zero exit status among them (-1 if one could not start or was
   stopped by a signal), or 0.  After a failure no more start; those
   running are waited for. */
static int run_commands(char ***argvs, int n, bool verbose) {
  int jobs = max_jobs();
  pid_t *pids = xmalloc_atomic(sizeof(pid_t) * (size_t)(n + 1));
  int next = 0, running = 0, result = 0;
  while (next < n || running > 0) {
    if (next < n && running < jobs && result == 0) {
      pid_t pid = start_command(argvs[next], verbose);
      if (pid < 0) {
        result = -1; /* no more start */
        continue;
      }
      pids[next++] = pid;
      running++;
      continue;
    }
    if (running == 0)
      break;
    int status;
    pid_t done = waitpid(-1, &status, 0);
    if (done < 0) {
      if (errno == EINTR)
        continue;
      break; /* no child left to wait for */
    }
    int which = -1;
    for (int i = 0; i < next; i++)
      if (pids[i] == done)
        which = i;
    if (which < 0)
      continue; /* not one of ours */
    pids[which] = 0;
    running--;
    int rc = exit_status(argvs[which][0], status);
    if (rc != 0 && result == 0)
      result = rc;
  }
  return result;
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

/* The compiler and the user's flags (or the defaults), and for CUDA
   the architecture: the start of both commands below. */
static void push_compiler(Vec *argv, const CgBuild *b, const char *nvcc) {
  if (b->target == CG_CUDA) {
    vec_push(argv, (void *)nvcc);
    push_flags(argv, getenv("NESSIE_NVCCFLAGS"), "-O3");
    vec_push(argv, xprintf("-arch=%s", b->arch ? b->arch : "sm_90"));
  } else {
    const char *cc = getenv("NESSIE_CC");
    vec_push(argv, (void *)(cc && *cc ? cc : "cc"));
    /* -O1 builds quicker; make test-asan adds the sanitizers (needed
       when linking too) */
    push_flags(argv, getenv("NESSIE_CFLAGS"), "-O2");
  }
}

/* The compiler's command line that makes object 'obj' of 'src'
   (argv, NULL-terminated). */
static char **compile_command(const CgBuild *b, const char *rt, const char *nvcc, const char *src, const char *obj) {
  Vec argv = {0};
  push_compiler(&argv, b, nvcc);
  if (b->target == CG_CUDA) {
    vec_push(&argv, "-std=c++17");
    /* the host's products uncontracted, as the device's (rt_mul_rn) */
    vec_push(&argv, "-Xcompiler");
    vec_push(&argv, "-fopenmp,-ffp-contract=off");
  } else {
    vec_push(&argv, "-std=c17");
    vec_push(&argv, "-fopenmp");
    vec_push(&argv, "-ffp-contract=off"); /* a product's overflow carried into its sum (rt_mul_rn) */
  }
  vec_push(&argv, "-w"); /* generated code: its warnings are nessie's bugs, not the user's */
  vec_push(&argv, xprintf("-I%s/include", rt));
  vec_push(&argv, "-c");
  vec_push(&argv, "-o");
  vec_push(&argv, (void *)obj);
  vec_push(&argv, (void *)src);
  vec_push(&argv, NULL);
  return (char **)argv.data;
}

/* The command line that links the objects 'objs' with the runtime into
   the executable. */
static char **link_command(const CgBuild *b, const char *rt, const char *nvcc, char **objs, int n) {
  Vec argv = {0};
  push_compiler(&argv, b, nvcc);
  vec_push(&argv, "-o");
  vec_push(&argv, (void *)b->output);
  for (int i = 0; i < n; i++)
    vec_push(&argv, objs[i]);
  vec_push(&argv, xprintf("%s/%s", rt, b->target == CG_CUDA ? "libnessie_rt_cuda.a" : "libnessie_rt.a"));
  if (b->target == CG_CUDA)
    vec_push(&argv, "-Xcompiler");
  vec_push(&argv, "-fopenmp");
  vec_push(&argv, "-lm");
  vec_push(&argv, "-lpthread");
  vec_push(&argv, NULL);
  return (char **)argv.data;
}

/* The name of translation unit 'i' of a program: program.cu, then
   program_2.cu ... (under 'base'). */
static const char *unit_name(const char *base, int i, const char *extension) {
  return i == 0 ? xprintf("%s%s", base, extension) : xprintf("%s_%d%s", base, i + 1, extension);
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
  CgFiles files = cg_program_files(p, target, b->source_name);
  char **srcs = xmalloc(sizeof(char *) * (size_t)files.n);
  char **objs = xmalloc(sizeof(char *) * (size_t)files.n);
  char ***compiles = xmalloc(sizeof(char **) * (size_t)files.n);
  bool written = true;
  int made = 0; /* the sources written (or begun) */
  for (int i = 0; i < files.n; i++) {
    srcs[i] = (char *)unit_name(xprintf("%s/program", dir), i, target->extension);
    objs[i] = (char *)unit_name(xprintf("%s/program", dir), i, ".o");
    compiles[i] = compile_command(b, rt, nvcc, srcs[i], objs[i]);
    made = i + 1;
    FILE *out = fopen(srcs[i], "w");
    bool ok = out && fwrite(files.text[i].data, 1, files.text[i].len, out) == files.text[i].len;
    if (out)
      ok &= fclose(out) == 0;
    if (!ok) {
      fprintf(stderr, "nessie: error: cannot write %s: %s\n", srcs[i], strerror(errno));
      written = false;
      break;
    }
  }
  int nunits = files.n;
  cg_files_free(&files);
  int status = 1;
  const char *compiler = b->target == CG_CUDA ? "CUDA" : "C";
  if (written) {
    int rc = run_commands(compiles, nunits, b->verbose);
    if (rc == 0) {
      char **link = link_command(b, rt, nvcc, objs, nunits);
      rc = run_commands(&link, 1, b->verbose);
      if (rc == 0)
        status = 0;
      else if (rc > 0)
        fprintf(stderr, "nessie: error: linking the program (%s) failed with status %d\n", link[0], rc);
    } else if (rc > 0) {
      fprintf(stderr, "nessie: error: the %s compiler (%s) failed with status %d\n", compiler, compiles[0][0], rc);
    }
  }
  for (int i = 0; i < made; i++) {
    if (b->keep && written) {
      const char *kept = unit_name(b->output, i, target->extension);
      if (!copy_file(srcs[i], kept))
        fprintf(stderr, "nessie: warning: cannot keep the generated source as %s\n", kept);
      else if (b->verbose)
        fprintf(stderr, "kept %s\n", kept);
    }
    unlink(srcs[i]);
    unlink(objs[i]);
  }
  rmdir(dir);
  return status;
}
