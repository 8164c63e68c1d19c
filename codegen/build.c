/*
 * build.c: from λcu to an executable.  The generated source goes into a
 * private temporary directory (mkdtemp); cc (or nvcc) runs there without
 * a shell (posix_spawnp), its messages pass through, and the directory is
 * removed afterwards, also when nessie is interrupted (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT: the signal is passed to the compilers running, the
 * directory removed, and nessie then dies of the signal).  The runtime's
 * headers and library are found next to the nessie binary, in the build
 * tree (build/lib/nessie) or under the installation prefix
 * (PREFIX/lib/nessie), so that nessie works from any directory.
 *
 * nessie runs no shell, but nvcc does: it runs its own steps, the link
 * among them, through `sh -c` with the paths pasted in unquoted, so a
 * path holding `;` or `$(...)` would be run as a command.  So every path
 * a compiler sees is one nessie chose and checked (shell_safe): the
 * program is built in the private directory under fixed names
 * (program.cu, program.o, program), the runtime is reached through a
 * link in that directory when its own path is not safe, and the finished
 * executable is then moved to the name the user asked for by nessie
 * itself (move_output).  The CPU target is built the same way: one path
 * for both, and a failed build never leaves half an executable behind.
 *
 * A unit whose object is in the build cache (cache.c) is not compiled:
 * its key is the SHA-256 of the unit's text, of the command that would
 * compile it (the runtime's and the build's paths left out), of the
 * compiler's identity (its file's size, time and inode, as ccache's
 * default) and of every header of the runtime.  On a terminal, a line on
 * stderr says which unit is being compiled and how many are left.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "codegen.h"

extern char **environ;

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file that running 'name' runs (a search of $PATH as posix_spawnp
   makes), or NULL. */
static const char *resolve(const char *name) {
  if (strchr(name, '/'))
    return name;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    const char *full = xprintf("%.*s/%s", (int)n, p, name);
    if (n > 0 && access(full, X_OK) == 0)
      return full;
    p += n;
    if (*p == ':')
      p++;
  }
  return NULL;
}

/* nvcc: $NESSIE_NVCC, else nvcc on the PATH, else the toolkit's usual
   place; NULL if none. */
static const char *find_nvcc(void) {
  const char *env = getenv("NESSIE_NVCC");
  if (env && *env)
    return env;
  if (resolve("nvcc"))
    return "nvcc";
  if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
    return "/usr/local/cuda/bin/nvcc";
  return NULL;
}

/* The runtime directory if it holds the CUDA runtime too. */
const char *cg_nvcc_path(void) {
  const char *nvcc = find_nvcc();
  const char *path = nvcc ? resolve(nvcc) : NULL;
  return path ? path : nvcc;
}

const char *cg_c_compiler(void) {
  const char *cc = getenv("NESSIE_CC");
  return cc && *cc ? cc : "cc";
}

static bool has_cuda_runtime(const char *rt) {
  return rt && is_file(xprintf("%s/libnessie_rt_cuda.a", rt)) && is_file(xprintf("%s/include/gpu.cuh", rt));
}

/* Whether this machine has an NVIDIA GPU a CUDA executable could use.
   NVIDIA's kernel driver lists each GPU it drives under
   /proc/driver/nvidia/gpus; a container given a GPU sees its device
   node, /dev/nvidiaN (N a number: /dev/nvidiactl alone is no GPU); WSL 2
   reaches the GPU through /dev/dxg.  Asking the CUDA driver itself would
   tie nessie to libcuda, which a machine without a GPU may lack. */
static bool gpu_present(void) {
  DIR *d = opendir("/proc/driver/nvidia/gpus");
  if (d) {
    struct dirent *e;
    bool any = false;
    while (!any && (e = readdir(d)))
      any = e->d_name[0] != '.';
    closedir(d);
    if (any)
      return true;
  }
  d = opendir("/dev");
  if (d) {
    struct dirent *e;
    bool any = false;
    while (!any && (e = readdir(d)))
      any = strncmp(e->d_name, "nvidia", 6) == 0 && e->d_name[6] >= '0' && e->d_name[6] <= '9';
    closedir(d);
    if (any)
      return true;
  }
  return access("/dev/dxg", F_OK) == 0;
}

CgTargetKind cg_default_target(bool *no_gpu) {
  *no_gpu = false;
  if (!find_nvcc() || !has_cuda_runtime(cg_runtime_dir()))
    return CG_CPU;
  if (gpu_present())
    return CG_CUDA;
  *no_gpu = true;
  return CG_CPU;
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

/* ---- paths a shell may see ---- */

/* True if 'path' can be pasted into a shell command as it is: letters,
   digits and `_ . / + -`, not beginning with '-'.  nvcc pastes paths
   into the commands it gives `sh` (see the top of this file), and a
   comma would split an option's value into a list (nvcc's -I a,b). */
static bool shell_safe(const char *path) {
  if (!*path || path[0] == '-')
    return false;
  for (const char *p = path; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("_./+-", *p)))
      return false;
  return true;
}

/* Writes 'word' as a shell reads it back: as it is where that is safe,
   else in single quotes (a quote inside as '\''), so that -v's lines
   can be pasted into a shell. */
static void print_word(FILE *out, const char *word) {
  bool plain = *word != '\0';
  for (const char *p = word; *p && plain; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("_./+-=,:@%^", *p);
  if (plain) {
    fputs(word, out);
    return;
  }
  fputc('\'', out);
  for (const char *p = word; *p; p++)
    if (*p == '\'')
      fputs("'\\''", out);
    else
      fputc(*p, out);
  fputc('\'', out);
}

static void print_command(char **argv) {
  for (char **a = argv; *a; a++) {
    if (a != argv)
      fputc(' ', stderr);
    print_word(stderr, *a);
  }
  fputc('\n', stderr);
}

/* ---- interruption ---- */

/* What a signal that ends nessie must clean up: the compilers running
   (their pids, 0 for a slot that is free) and the file being copied
   beside the output (move_output).  Each compiler runs in a process
   group of its own, so that SIGTERM reaches the programs nvcc and cc
   run as well, not only them.  The handler only records the signal and
   passes SIGTERM on to those groups; the build notices
   (stop_requested) once waitpid returns, removes its directory and dies
   of the signal. */
static volatile sig_atomic_t stop_signal;
static pid_t *volatile running_pids;
static volatile sig_atomic_t running_slots;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
enum { NSTOP = sizeof stop_signals / sizeof stop_signals[0] };

static void on_stop_signal(int sig) {
  stop_signal = sig;
  pid_t *pids = running_pids;
  for (sig_atomic_t i = 0; pids && i < running_slots; i++)
    if (pids[i] > 0)
      kill(-pids[i], SIGTERM);
}

/* Catches the signals that end a build, keeping the old actions in
   'old'.  A signal ignored (nohup, a background job of a script) stays
   ignored. */
static void catch_stop_signals(struct sigaction old[NSTOP]) {
  stop_signal = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; /* no SA_RESTART: a waitpid on this thread returns */
  for (int i = 0; i < NSTOP; i++) {
    sigaction(stop_signals[i], NULL, &old[i]);
    if (old[i].sa_handler != SIG_IGN)
      sigaction(stop_signals[i], &sa, NULL);
  }
}

static void restore_signals(const struct sigaction old[NSTOP]) {
  for (int i = 0; i < NSTOP; i++)
    sigaction(stop_signals[i], &old[i], NULL);
}

static bool stop_requested(void) { return stop_signal != 0; }

/* Removes 'path' and, if it is a directory, everything under it, links
   not followed; false if something is left.  For the build's own
   directory: whatever a compiler left there goes too. */
static bool remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d) {
      Vec names = {0};
      struct dirent *e;
      while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
          vec_push(&names, xprintf("%s/%s", path, e->d_name));
      closedir(d);
      for (int i = 0; i < names.len; i++)
        remove_tree(names.data[i]);
    }
    return rmdir(path) == 0;
  }
  return unlink(path) == 0;
}

/* Removes the build's directory 'dir'.  After a signal, a program a
   compiler ran may still be dying and writing its temporary files there
   (TMPDIR is 'dir'): a few more tries, a tenth of a second apart. */
static void remove_build_dir(const char *dir) {
  for (int tries = 0; !remove_tree(dir) && stop_requested() && tries < 20; tries++)
    nanosleep(&(struct timespec){0, 100000000}, NULL);
}

/* ---- running the compilers ---- */

/* The environment of the compilers: nessie's, with TMPDIR the build's
   directory, so that nvcc's and cc's own temporary files are removed with
   it, also when a signal stops them halfway. */
static char **compiler_environment(const char *dir) {
  Vec env = {0};
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "TMPDIR=", 7) != 0)
      vec_push(&env, *e);
  vec_push(&env, xprintf("TMPDIR=%s", dir));
  vec_push(&env, NULL);
  return (char **)env.data;
}

/* Starts 'argv' with the environment 'envp', in a process group of its
   own (on_stop_signal): its pid, or -1 after a message. */
static pid_t start_command(char **argv, char **envp, bool verbose) {
  if (verbose)
    print_command(argv);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, &attr, argv, envp);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    fprintf(stderr, "nessie: error: cannot run %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  return pid;
}

/* What a finished command's wait status says: its exit status, or -1
   after a message when a signal stopped it (not one nessie passed on:
   nessie is then stopping, and says nothing). */
static int exit_status(const char *name, int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (!stop_requested())
    fprintf(stderr, "nessie: error: %s stopped by signal %d\n", name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return -1;
}

/* How many compilers run at once: $NESSIE_JOBS, else the processors
   online.  Read once per build, so that a bad value is said once. */
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

/* ---- progress ---- */

/* The line that shows, on a terminal, what the build is doing: written
   over in place (\r), cut to the terminal's width so that it never
   wraps (a wrapped line cannot be written over), and cleared at the
   end. */
typedef struct Progress {
  bool on;    /* stderr is a terminal, and -v is not given */
  int shown;  /* the length of the line on the screen */
  int width;  /* the terminal's columns */
} Progress;

static Progress progress_start(bool verbose) {
  Progress pr = {false, 0, 80};
  if (verbose || !isatty(STDERR_FILENO))
    return pr;
  pr.on = true;
  struct winsize ws;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    pr.width = ws.ws_col;
  return pr;
}

static void progress_show(Progress *pr, const char *line) {
  if (!pr->on)
    return;
  int n = (int)strlen(line);
  if (n > pr->width - 1)
    n = pr->width - 1;
  /* the rest of a longer line before it blanked */
  fprintf(stderr, "\r%.*s%*s", n, line, pr->shown > n ? pr->shown - n : 0, "");
  if (pr->shown > n)
    fprintf(stderr, "\r%.*s", n, line);
  fflush(stderr);
  pr->shown = n;
}

static void progress_clear(Progress *pr) {
  if (!pr->on || pr->shown == 0)
    return;
  fprintf(stderr, "\r%*s\r", pr->shown, "");
  fflush(stderr);
  pr->shown = 0;
}

/* The progress line while compiling: the unit started last, its
   number among those compiled, and how many are not finished. */
static const char *progress_line(const char *what, int started, int n, int finished) {
  return xprintf("nessie: compiling %d of %d: %s (%d left)", started, n, what, n - finished);
}

/* Runs the 'n' commands 'argvs', at most 'jobs' at once: the first
   non-zero exit status among them (-1 if one could not start or was
   stopped by a signal), or 0.  After a failure, or a signal asking
   nessie to stop, no more start; those running are waited for (on a
   signal, after being passed SIGTERM).  'what' names each command's
   unit for the progress line 'pr' (NULL: none shown). */
static int run_commands(char ***argvs, int n, char **envp, int jobs, bool verbose, const char **what,
                        Progress *pr) {
  pid_t *pids = xmalloc_atomic(sizeof(pid_t) * (size_t)(n + 1));
  memset(pids, 0, sizeof(pid_t) * (size_t)(n + 1));
  running_pids = pids;
  int next = 0, running = 0, result = 0, finished = 0;
  while (next < n || running > 0) {
    if (next < n && running < jobs && result == 0 && !stop_requested()) {
      if (what && pr)
        progress_show(pr, progress_line(what[next], next + 1, n, finished));
      pid_t pid = start_command(argvs[next], envp, verbose);
      if (pid < 0) {
        result = -1; /* no more start */
        continue;
      }
      pids[next++] = pid;
      running_slots = next;
      running++;
      if (stop_requested()) /* the signal came before the pid was known */
        kill(-pid, SIGTERM);
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
    finished++;
    if (what && pr && finished < n)
      progress_show(pr, progress_line(what[next - 1], next, n, finished));
    int rc = exit_status(argvs[which][0], status);
    if (rc != 0 && result == 0)
      result = rc;
  }
  running_slots = 0;
  running_pids = NULL;
  if (stop_requested() && result == 0)
    result = -1;
  return result;
}

/* ---- moving the executable to its place ---- */

/* The file copied beside the output (move_output), removed if a signal
   stops nessie meanwhile. */
static const char *volatile partial_output;

/* Copies the open file 'in' to 'out'; false with errno set. */
static bool copy_fd(int in, int out) {
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) != 0) {
    if (n < 0) {
      if (errno == EINTR && !stop_requested())
        continue;
      return false;
    }
    for (ssize_t done = 0; done < n;) {
      ssize_t w = write(out, buf + done, (size_t)(n - done));
      if (w < 0) {
        if (errno == EINTR && !stop_requested())
          continue;
        return false;
      }
      done += w;
    }
  }
  return true;
}

/* Moves the executable 'built' (in the build's directory) to 'out':
   rename() where both are on one file system; else a copy beside 'out',
   renamed onto it, so that 'out' is at every moment the old file or the
   whole new one, never half of it.  An 'out' that exists and is neither
   a regular file nor a link (-o /dev/null) is written into, as a linker
   writes into it.  False after a message. */
static bool move_output(const char *built, const char *out, bool verbose) {
  struct stat st, built_st;
  bool special = lstat(out, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode);
  if (verbose) {
    char *argv[] = {special ? "cp" : "mv", (char *)built, (char *)out, NULL};
    print_command(argv);
  }
  if (!special && rename(built, out) == 0)
    return true;
  if (!special && errno != EXDEV) {
    fprintf(stderr, "nessie: error: cannot write the executable '%s': %s\n", out, strerror(errno));
    return false;
  }
  int in = open(built, O_RDONLY | O_CLOEXEC);
  if (in < 0 || fstat(in, &built_st) != 0) {
    fprintf(stderr, "nessie: error: cannot read the linked program '%s': %s\n", built, strerror(errno));
    if (in >= 0)
      close(in);
    return false;
  }
  char *partial = special ? NULL : xprintf("%s.nessie-XXXXXX", out);
  int fd = special ? open(out, O_WRONLY | O_TRUNC | O_CLOEXEC) : mkstemp(partial);
  if (fd >= 0 && partial)
    partial_output = partial;
  bool ok = fd >= 0 && copy_fd(in, fd) && (special || fchmod(fd, built_st.st_mode & 07777) == 0);
  int err = errno;
  close(in);
  if (fd >= 0 && close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && partial && rename(partial, out) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok && partial && fd >= 0)
    unlink(partial);
  partial_output = NULL;
  if (!ok && !stop_requested())
    fprintf(stderr, "nessie: error: cannot write the executable '%s': %s\n", out, strerror(err));
  return ok;
}

/* ---- checking the output before compiling ---- */

/* Whether 'path' names the file 'input' (stat: a link or another name of
   it counts) */
static bool same_file(const char *path, const struct stat *input) {
  struct stat st;
  return stat(path, &st) == 0 && st.st_dev == input->st_dev && st.st_ino == input->st_ino;
}

int cg_check_output(const CgBuild *b, const char *input) {
  const char *out = b->output;
  struct stat st;
  size_t n = strlen(out);
  if (n == 0) {
    fprintf(stderr, "nessie: error: -o needs a file name\n");
    return 1;
  }
  if (out[n - 1] == '/' || (stat(out, &st) == 0 && S_ISDIR(st.st_mode))) {
    fprintf(stderr, "nessie: error: cannot write the executable '%s': it is a directory\n", out);
    return 1;
  }
  /* the directory it goes in: the executable is renamed into it, or
     copied beside it first (move_output) */
  const char *slash = strrchr(out, '/');
  const char *dir = !slash ? "." : slash == out ? "/" : xstrndup(out, (size_t)(slash - out));
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "nessie: error: cannot write the executable '%s': '%s': %s\n", out, dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "nessie: error: cannot write the executable '%s': '%s' is not a directory\n", out, dir);
    return 1;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "nessie: error: cannot write the executable '%s': '%s': %s\n", out, dir, strerror(errno));
    return 1;
  }
  /* the program itself: reading it has already been done, but writing
     over it would lose it */
  struct stat in;
  bool have_input = strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode)
                                            : stat(input, &in) == 0;
  if (!have_input)
    return 0;
  if (same_file(out, &in)) {
    fprintf(stderr, "nessie: error: -o '%s' is the input file: the executable would replace the program\n", out);
    return 1;
  }
  if (b->keep) {
    /* the first unit is OUT.cu or OUT.cpp (host code only) for CUDA */
    const CgTarget *target = b->target == CG_CUDA ? &cg_cuda_target : &cg_cpu_target;
    const char *extensions[] = {target->extension, target->host_extension};
    for (int i = 0; i < 2; i++) {
      const char *kept = xprintf("%s%s", out, extensions[i]);
      if (same_file(kept, &in)) {
        fprintf(stderr, "nessie: error: --keep would write the generated source over the input file '%s'\n", kept);
        return 1;
      }
    }
  }
  return 0;
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
    vec_push(argv, (void *)cg_c_compiler());
    /* -O1 builds quicker; make test-asan adds the sanitizers (needed
       when linking too) */
    push_flags(argv, getenv("NESSIE_CFLAGS"), "-O2");
  }
}

/* Is 'word' an optimization level, -O with at most one letter or digit
   (-O, -O3, -Os; not -Ofc, whose value is the next word)? */
static bool is_level_flag(const char *word) {
  return strncmp(word, "-O", 2) == 0 && (word[2] == '\0' || word[3] == '\0');
}

/* Is 'word' an option of nvcc's whose value, the next word, is passed on
   to another tool (-Xcompiler -O2: the host compiler's level, kept)? */
static bool passes_on(const char *word) {
  size_t n = strlen(word);
  return strncmp(word, "-X", 2) == 0 || (n > 8 && strcmp(word + n - 8, "-options") == 0);
}

/* The host level of a CUDA unit of kernels: the user's last -O level
   (nvcc's, not one after -Xcompiler) lowered to -O1; NULL (the flags as
   given) where there is none or it is -O0. */
static const char *host_level_at_most_1(const Vec *argv) {
  const char *level = NULL;
  for (int i = 0; i < argv->len; i++)
    if (is_level_flag(argv->data[i]) && !(i > 0 && passes_on(argv->data[i - 1])))
      level = argv->data[i];
  return !level || strcmp(level, "-O0") == 0 ? NULL : "-O1";
}

/* Does a unit of kind 'kind' hold kernels?  For CUDA, only such a unit
   goes through nvcc's device passes; the others are host C++. */
static bool unit_has_kernels(CgUnitKind kind) {
  return kind == CG_UNIT_ALL || kind == CG_UNIT_KERNELS || kind == CG_UNIT_RECORDS;
}

/* The extension of a unit of kind 'kind''s source: CUDA's host units are
   .cpp, which nvcc hands to the host's C++ compiler alone. */
static const char *unit_extension(const CgTarget *target, CgUnitKind kind) {
  return unit_has_kernels(kind) ? target->extension : target->host_extension;
}

/* The compiler's command line that makes object 'obj' of 'src', a unit
   of kind 'kind' (argv, NULL-terminated).  A CUDA unit of host code only
   is a .cpp file, for which nvcc runs nothing but the host's compiler
   (the one it runs for a .cu file's host half, with the same flags:
   nvcc's -O and -Xcompiler, its include directories and definitions),
   skipping cudafe++, cicc, ptxas and fatbinary. */
static char **compile_command(const CgBuild *b, const char *rt, const char *nvcc, const char *src, const char *obj,
                              CgUnitKind kind) {
  Vec argv = {0};
  push_compiler(&argv, b, nvcc);
  /* a unit of top-level statements runs each of them once: optimizing it
     would cost the compiler three times as long for nothing that shows
     (20 000 statements: 72 s of gcc at -O2, 17 s at -O0).  After the
     user's flags, so that it wins over their -O.  nvcc warns of a second
     -O, and puts -Xcompiler's flags before the -O it passes on: for a
     CUDA unit of statements (host code only, a .cpp) the user's -O goes,
     and -O0 takes its place.  On the CPU target the host functions' unit
     gets -O0 too: it holds no loop over elements (those are all in the
     kernels' units), only calls of kernels and of the runtime, and -O2
     took it 5.4 s where -O0 takes 0.7 s (alg_mergesort's 8561 lines).  A
     program small enough for one unit (CG_UNIT_ALL, the benchmarks among
     them) keeps the user's -O.  So do the kernels' recording versions
     (cpu.c), which run only where an element fails a check: they were
     two fifths of a kernel unit's time at -O2. */
  if ((kind == CG_UNIT_STATEMENTS || kind == CG_UNIT_HOST || kind == CG_UNIT_RECORDS) && b->target == CG_CPU)
    vec_push(&argv, "-O0");
  /* A CUDA unit of kernels (of a program split into units) compiles its
     host half at -O1 at most: nvcc's -O is the host compiler's alone
     (cicc and ptxas get the same flags whatever it is: the device code
     is byte for byte the same), and that half is the kernels' launches,
     the skeletons' host templates, the host functions nvcc writes to
     launch each kernel, and the kernels' host versions (K_host), which
     run only on vectors of at most NESSIE_HOST_MAX elements.  At -O3 the host compiler was the
     longest of a unit's phases (lib_lifted's third unit: 3.3 s of 8.2 s
     at nvcc's default flags; 2.6 s at -O1).  A program of one unit (the
     benchmarks among them) keeps the user's -O. */
  const char *level = NULL;
  if (kind == CG_UNIT_STATEMENTS && b->target == CG_CUDA)
    level = "-O0";
  else if (kind == CG_UNIT_KERNELS && b->target == CG_CUDA)
    level = host_level_at_most_1(&argv);
  if (level) {
    int out = 0;
    for (int i = 0; i < argv.len; i++)
      if (!is_level_flag(argv.data[i]) || (i > 0 && passes_on(argv.data[i - 1])))
        argv.data[out++] = argv.data[i];
    argv.len = out;
    vec_push(&argv, (void *)level);
  }
  if (b->target == CG_CUDA) {
    vec_push(&argv, "-std=c++17");
    /* the host's products uncontracted, as the device's (rt_mul_rn) */
    vec_push(&argv, "-Xcompiler");
    /* a library's code goes into a shared object that shows its API
       alone: the skeletons' template instances, named after kernels
       (K5_0_pull), would otherwise bind another library's of the same
       name */
    vec_push(&argv, b->library ? "-fopenmp,-ffp-contract=off,-fPIC,-fvisibility=hidden" : "-fopenmp,-ffp-contract=off");
  } else {
    vec_push(&argv, "-std=c17");
    vec_push(&argv, "-fopenmp");
    vec_push(&argv, "-ffp-contract=off"); /* a product's overflow carried into its sum (rt_mul_rn) */
    if (b->library) {
      vec_push(&argv, "-fPIC");
      vec_push(&argv, "-fvisibility=hidden");
    }
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

/* The command line that links the objects 'objs' with the runtime 'rt'
   into 'exe' (a path in the build's directory). */
static char **link_command(const CgBuild *b, const char *rt, const char *nvcc, char **objs, int n, const char *exe) {
  Vec argv = {0};
  push_compiler(&argv, b, nvcc);
  if (b->library) {
    /* a shared object that shows its API alone: the runtime's names stay
       inside it, so that two libraries may be loaded together */
    vec_push(&argv, "-shared");
    if (b->target == CG_CUDA) {
      vec_push(&argv, "-Xcompiler");
      vec_push(&argv, "-fPIC");
      vec_push(&argv, "-Xlinker");
      vec_push(&argv, "--exclude-libs,ALL");
    } else {
      vec_push(&argv, "-Wl,--exclude-libs,ALL");
    }
  }
  vec_push(&argv, "-o");
  vec_push(&argv, (void *)exe);
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

/* The private directory of a build: made in $TMPDIR where that path is
   shell_safe (else in /tmp, which is), so that every path under it is
   safe too. */
static char *make_build_dir(void) {
  const char *tmp = getenv("TMPDIR");
  const char *base = tmp && *tmp && shell_safe(tmp) ? tmp : "/tmp";
  char *dir = xprintf("%s/nessie-XXXXXX", base);
  if (!mkdtemp(dir)) {
    fprintf(stderr, "nessie: error: cannot make a temporary directory in %s: %s\n", base, strerror(errno));
    return NULL;
  }
  return dir;
}

/* Writes the translation units of 'files' that are to be compiled
   ('compile[i]') to 'srcs'; false after a message (or when a signal
   asks nessie to stop). */
static bool write_sources(const CgFiles *files, char **srcs, const bool *compile) {
  for (int i = 0; i < files->n && !stop_requested(); i++) {
    if (!compile[i])
      continue;
    FILE *out = fopen(srcs[i], "w");
    bool ok = out && fwrite(files->text[i].data, 1, files->text[i].len, out) == files->text[i].len;
    if (out)
      ok &= fclose(out) == 0;
    if (!ok) {
      fprintf(stderr, "nessie: error: cannot write %s: %s\n", srcs[i], strerror(errno));
      return false;
    }
  }
  return !stop_requested();
}

/* ---- the cache's keys ---- */

static void hash_bytes(struct sha256_ctx *h, const void *data, size_t n) { sha256_update(h, n, data); }

/* A string and its end, so that "ab","c" and "a","bc" differ. */
static void hash_string(struct sha256_ctx *h, const char *s) { hash_bytes(h, s, strlen(s) + 1); }

/* The identity of the program 'name' runs: its path, size, time and
   inode; false if it is not found. */
static bool hash_program(struct sha256_ctx *h, const char *name) {
  const char *path = resolve(name);
  struct stat st;
  if (!path || stat(path, &st) != 0)
    return false;
  hash_string(h, path);
  hash_string(h, xprintf("%lld %lld.%09ld %llu %llu", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                         (long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ino, (unsigned long long)st.st_dev));
  return true;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every file of the runtime's headers (rt/include), in the order of
   their names: a unit includes some of them, and they include one
   another. */
static bool hash_headers(struct sha256_ctx *h, const char *rt) {
  const char *dir = xprintf("%s/include", rt);
  DIR *d = opendir(dir);
  if (!d)
    return false;
  Vec names = {0};
  struct dirent *e;
  while ((e = readdir(d)))
    if (e->d_name[0] != '.')
      vec_push(&names, xstrdup(e->d_name));
  closedir(d);
  qsort(names.data, (size_t)names.len, sizeof(void *), by_name);
  for (int i = 0; i < names.len; i++) {
    FILE *f = fopen(xprintf("%s/%s", dir, (char *)names.data[i]), "rb");
    if (!f)
      return false;
    hash_string(h, names.data[i]);
    char buf[1 << 14];
    size_t n;
    long long size = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
      hash_bytes(h, buf, n);
      size += (long long)n;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad)
      return false;
    hash_string(h, xprintf("%lld", size));
  }
  return true;
}

/* What every unit's key begins with: the format of the cache, nessie's
   version, the compilers, the environment they read, the runtime's
   headers.  False if something cannot be known (no cache then). */
static bool key_base(struct sha256_ctx *h, const CgBuild *b, const char *rt, const char *nvcc) {
  sha256_init(h);
  hash_string(h, "nessie build cache 1");
  hash_string(h, b->version ? b->version : "");
  Vec argv = {0};
  push_compiler(&argv, b, nvcc);
  if (!hash_program(h, argv.data[0]))
    return false;
  /* nvcc compiles the host's code with gcc */
  if (b->target == CG_CUDA && !(hash_program(h, "gcc") && hash_program(h, "g++")))
    return false;
  static const char *const vars[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "GCC_EXEC_PREFIX",
                                     "COMPILER_PATH", "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    hash_string(h, xprintf("%s=%s", vars[i], v ? v : "(unset)"));
  }
  return hash_headers(h, rt);
}

/* Unit 'i''s key (64 hexadecimal digits): the base, the command that
   compiles it with fixed paths, and its text. */
static const char *unit_key(const struct sha256_ctx *base, const CgBuild *b, const char *nvcc, const CgFiles *files,
                            int i, const CgTarget *target) {
  struct sha256_ctx h = *base;
  const char *src = xprintf("program%s", unit_extension(target, files->kind[i]));
  char **argv = compile_command(b, "RT", nvcc, src, "program.o", files->kind[i]);
  for (char **a = argv; *a; a++)
    hash_string(&h, *a);
  hash_string(&h, "");
  hash_bytes(&h, files->text[i].data, files->text[i].len);
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&h, SHA256_DIGEST_SIZE, digest);
  char *hex = xmalloc_atomic(2 * SHA256_DIGEST_SIZE + 1);
  for (int j = 0; j < SHA256_DIGEST_SIZE; j++) {
    hex[2 * j] = "0123456789abcdef"[digest[j] >> 4];
    hex[2 * j + 1] = "0123456789abcdef"[digest[j] & 15];
  }
  hex[2 * SHA256_DIGEST_SIZE] = '\0';
  return hex;
}

/* Compiles the units 'srcs' that 'compile' marks to their 'objs' (the
   others are there already, from the cache), keeps those in the cache
   'cache' under 'keys', links all into 'exe' and moves that to
   b->output: 0, or 1 after a message. */
static int compile_and_link(const CgBuild *b, const char *rt, const char *nvcc, const CgFiles *files, char **srcs,
                            char **objs, const bool *compile, CgCache *cache, const char **keys, const char *dir,
                            const char *exe) {
  int n = files->n;
  int jobs = max_jobs();
  char **envp = compiler_environment(dir);
  char ***compiles = xmalloc(sizeof(char **) * (size_t)(n + 1));
  const char **what = xmalloc(sizeof(char *) * (size_t)(n + 1));
  int m = 0;
  for (int i = 0; i < n; i++)
    if (compile[i]) {
      what[m] = files->what[i];
      compiles[m++] = compile_command(b, rt, nvcc, srcs[i], objs[i], files->kind[i]);
    }
  Progress pr = progress_start(b->verbose);
  int rc = m > 0 ? run_commands(compiles, m, envp, jobs, b->verbose, what, &pr) : 0;
  progress_clear(&pr);
  if (rc > 0 && !stop_requested())
    fprintf(stderr, "nessie: error: the %s compiler (%s) failed with status %d\n",
            b->target == CG_CUDA ? "CUDA" : "C", compiles[0][0], rc);
  if (rc != 0)
    return 1;
  if (cache) {
    for (int i = 0; i < n && !stop_requested(); i++)
      if (compile[i])
        cg_cache_store(cache, keys[i], objs[i]);
    cg_cache_trim(cache);
  }
  char **link = link_command(b, rt, nvcc, objs, n, exe);
  if (pr.on && n > 1)
    progress_show(&pr, "nessie: linking");
  rc = run_commands(&link, 1, envp, jobs, b->verbose, NULL, NULL);
  progress_clear(&pr);
  if (rc > 0 && !stop_requested())
    fprintf(stderr, "nessie: error: linking the program (%s) failed with status %d\n", link[0], rc);
  if (rc != 0 || stop_requested())
    return 1;
  return move_output(exe, b->output, b->verbose) ? 0 : 1;
}

/* Keeps the generated source of every unit beside the output (--keep). */
static void keep_sources(const CgBuild *b, const CgFiles *files, const CgTarget *target) {
  for (int i = 0; i < files->n && !stop_requested(); i++) {
    const char *kept = unit_name(b->output, i, unit_extension(target, files->kind[i]));
    FILE *out = fopen(kept, "w");
    bool ok = out && fwrite(files->text[i].data, 1, files->text[i].len, out) == files->text[i].len;
    if (out)
      ok &= fclose(out) == 0;
    if (!ok)
      fprintf(stderr, "nessie: warning: cannot keep the generated source as %s\n", kept);
    else if (b->verbose)
      fprintf(stderr, "kept %s\n", kept);
  }
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
  /* the program's text first: nothing to clean up if that fails */
  CgFiles files = b->library ? cg_library_files(p, target, b->source_name, b->library)
                             : cg_program_files(p, target, b->source_name);
  struct sigaction old[NSTOP];
  catch_stop_signals(old);
  char *dir = make_build_dir();
  int status = 1;
  if (dir) {
    /* the runtime through a link of a safe name where its own path is
       not safe (nessie installed under a directory with a blank) */
    const char *rt_seen = rt;
    if (!shell_safe(rt)) {
      rt_seen = xprintf("%s/rt", dir);
      if (symlink(rt, rt_seen) != 0) {
        fprintf(stderr, "nessie: error: cannot link %s to the runtime: %s\n", rt_seen, strerror(errno));
        rt_seen = NULL;
      }
    }
    char **srcs = xmalloc(sizeof(char *) * (size_t)files.n);
    char **objs = xmalloc(sizeof(char *) * (size_t)files.n);
    for (int i = 0; i < files.n; i++) {
      srcs[i] = (char *)unit_name(xprintf("%s/program", dir), i, unit_extension(target, files.kind[i]));
      objs[i] = (char *)unit_name(xprintf("%s/program", dir), i, ".o");
    }
    /* the units the cache holds are not compiled */
    bool *compile = xmalloc_atomic(sizeof(bool) * (size_t)files.n);
    const char **keys = xmalloc(sizeof(char *) * (size_t)files.n);
    CgCache *cache = b->no_cache || !rt_seen ? NULL : cg_cache_open();
    struct sha256_ctx base;
    if (cache && !key_base(&base, b, rt, nvcc)) {
      cg_cache_close(cache);
      cache = NULL;
    }
    for (int i = 0; i < files.n; i++) {
      compile[i] = true;
      if (!cache)
        continue;
      keys[i] = unit_key(&base, b, nvcc, &files, i, target);
      compile[i] = !cg_cache_fetch(cache, keys[i], objs[i]);
      if (!compile[i] && b->verbose) /* a comment for a shell: nothing runs */
        fprintf(stderr, "# %s: %s, from the cache: %s\n", objs[i], files.what[i], cg_cache_entry_path(cache, keys[i]));
    }
    bool written = rt_seen && write_sources(&files, srcs, compile);
    if (written)
      status = compile_and_link(b, rt_seen, nvcc, &files, srcs, objs, compile, cache, keys, dir,
                                xprintf("%s/program", dir));
    if (b->keep && written)
      keep_sources(b, &files, target);
    cg_cache_close(cache);
    remove_build_dir(dir);
  }
  cg_files_free(&files);
  const char *partial = partial_output;
  if (partial) /* a signal came while the executable was copied */
    unlink(partial);
  restore_signals(old);
  if (stop_requested()) {
    /* die of the signal, as nessie would have without cleaning up: the
       shell that ran it sees it was interrupted */
    int sig = stop_signal;
    signal(sig, SIG_DFL);
    raise(sig);
    return 1;
  }
  return status;
}
