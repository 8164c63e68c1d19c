#!/usr/bin/env python3
"""tests/bench/harness.py: the benchmark suite (make bench, make bench-cpu).

    harness.py --target cuda|cpu --build BUILD --out OUT [options]

For every benchmark of tests/bench/benchmarks.conf it builds, in parallel,
the hand-written baseline (cuda/NAME.cu with nvcc, or cpu/NAME.c with cc
and OpenMP) and the NESL program tests/bench/NAME.nesl with BUILD/nessie,
fused (-O1, the default) and not (-O0); then it runs them one at a time:
the bandwidth probe (cuda/d2d.cu: cudaMemcpy device to device; cpu/copy.c:
a parallel memcpy), each baseline, each NESL program, and (GPU only) the
JAX and CuPy peers (peers/peers.py), each run bounded by a timeout and the
whole by a time budget.  Whatever fails is recorded as failed and the rest
goes on.

A NESL program binds its size `n = ...;` (replaced by the size of the
conf), defines input(n) (not timed), run_once(data) (timed) and check(r)
(a [float] of values to compare).  The harness appends

    check(run_once(input(n)));
    function bench_reps(k, data) = ... time(run_once(data)) ...;
    let data = input(n) in bench_reps(RUNS + 1, data);

so that the executable prints the check values, then RUNS + 1 times from
NESL's `time` (the host's clock, the device synchronized at both ends:
the call as its user sees it, its result on the host; the first is the
warm-up),
and NESSIE_STATS=1 its launches, host synchronizations and bytes
allocated.  The same program with `#bench_reps(0, data)` (the setup run)
gives what the timed calls add: per call, (main - setup) / (RUNS + 1).

A peer has two times a call (peers/peers.py says how it takes them): the
call from Python's clock until the result is ready (`times`, what its
user sees, dispatch included) and the device's (`device_times`: CUDA
events for CuPy; for JAX a loop of PEER_LOOP calls, the last one waited
for, over PEER_LOOP).  nessie's time is set against both, in two columns
(× best peer (call), × best peer (device)), and both are in ratios.dat
and the chart; a peer that prints no device times has none in the
tables, and one whose check is a MISMATCH is in no ratio.

OUT gets RESULTS.md (the report), results.tsv (every number), ratios.dat
(for the chart: tests/bench/chart.gp, `make bench-chart`), ratios.png
where gnuplot is found, harness.log (what ran, with the times) and
logs.tar.gz (the generated programs, every build and run log); the
executables stay in a work directory (--work, default a new one under
TMPDIR).
"""
import argparse
import concurrent.futures
import datetime
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

DRIVER = """
function bench_reps(k, data) =
  if k == 0 then [] float
  else let (r, tm) = time(run_once(data)) in [tm] ++ bench_reps(k - 1, data);
"""

START = time.monotonic()
PEER_LOOP = 10  # peers.py --loop: the calls in a row a JAX device time is made of


class Bench:
    def __init__(self, fields):
        self.name = fields[0]
        self.gpu_n = int(fields[1])
        self.cpu_n = int(fields[2])
        self.tol = float(fields[3])
        self.peers = fields[4] == "yes"
        self.n = None
        self.base = {}       # the baseline: check, bytes, times, error
        self.nesl = {}       # "O1" / "O0": check, times, stats, setup stats, error
        self.peer = {}       # "jax" / "cupy": check, times, device_times (where printed), error


def read_conf(path):
    benches = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                benches.append(Bench(line.split()))
    return benches


class Log:
    def __init__(self, path):
        self.f = open(path, "w")

    def __call__(self, *words):
        line = f"[{time.monotonic() - START:7.1f}s] " + " ".join(str(w) for w in words)
        print(line, flush=True)
        self.f.write(line + "\n")
        self.f.flush()


PIN = None  # --pin: the CPU the timed runs are bound to (taskset -c), or None


def timed(argv):
    """argv as a timed run: bound to one CPU with --pin.  A whole run of
    one quicksort executable took 39-45 ms a sort bound to one CPU and
    42-76 ms free, from run to run, while the calls within a run agree
    to a few per cent (the host's thread, launching thousands of
    kernels, moves between CPUs: docs/gpu-runs.md, 2026-11-25 night,
    call 10)."""
    return ["taskset", "-c", str(PIN)] + argv if PIN is not None else argv


def run_cmd(argv, timeout, out_path=None, env=None, cwd=ROOT):
    """runs argv (its own process group, killed whole at the timeout);
    (status, stdout, stderr, seconds); status is 'timeout' past it"""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return "cannot run: " + str(e), "", "", 0.0
    try:
        out, err = p.communicate(timeout=max(1, timeout))
        status = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        status = "timeout"
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    secs = time.monotonic() - t0
    if out_path:
        with open(out_path, "w") as f:
            f.write(f"$ {' '.join(shlex.quote(a) for a in argv)}\n# status {status}, {secs:.2f} s\n")
            f.write("# stdout\n" + out + "\n# stderr\n" + err)
    return status, out, err, secs


def first_line(text, limit=160):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


# ---- parsing ----

def parse_baseline(out):
    r = {}
    for line in out.splitlines():
        if line.startswith("check:"):
            r["check"] = [float(v) for v in line.split()[1:]]
        elif line.startswith("bytes:"):
            r["bytes"] = float(line.split()[1])
        elif line.startswith("times_ms:"):
            r["times"] = [float(v) for v in line.split()[1:]]
    if "check" not in r or "times" not in r or not r["times"]:
        raise ValueError("no check: or times_ms: line")
    return r


NESL_SEQ = re.compile(r"^it = \[(.*)\] : \[float\]\s*$")


def parse_nesl(out):
    seqs = []
    for line in out.splitlines():
        m = NESL_SEQ.match(line)
        if m:
            seqs.append([float(v) for v in m.group(1).split(",") if v.strip()])
        elif line.startswith("error:"):
            raise ValueError(line.strip())
    if len(seqs) < 2:
        raise ValueError("no check and times printed")
    times = [t * 1e3 for t in seqs[1][1:]]  # seconds; the first is the warm-up
    if not times:
        raise ValueError("no times")
    return {"check": seqs[0], "times": times}


STATS = re.compile(r"stats: (\d+) kernel launches, (\d+) host synchronizations, (\d+) bytes allocated")


def parse_stats(err):
    m = STATS.search(err)
    return tuple(int(v) for v in m.groups()) if m else None


def checks_agree(a, b, tol):
    if a is None or b is None or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            return False
        if abs(x - y) > tol * max(abs(x), abs(y)) and abs(x - y) > 1e-300:
            return False
    return True


def summary(times):
    return statistics.median(times), min(times), max(times)


# ---- the machine ----

def capture(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def machine(target):
    m = {}
    m["load"] = load_average()
    m["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    m["kernel"] = capture(["uname", "-r"])
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    m["cpu"] = f"{cpu}, {os.cpu_count()} CPUs"
    m["cc"] = first_line(capture([os.environ.get("CC", "cc"), "--version"]))
    commit = os.environ.get("BENCH_COMMIT") or capture(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    m["commit"] = commit or "unknown (set BENCH_COMMIT)"
    if target == "cuda":
        m["gpu"] = first_line(capture(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"]))
        m["driver"] = first_line(capture(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]))
        m["cuda"] = next((l.strip() for l in capture([os.environ.get("NVCC", "nvcc"), "--version"]).splitlines()
                          if "release" in l), "nvcc: ?")
        cap = first_line(capture(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]))
        arch = os.environ.get("BENCH_ARCH")
        if not arch:
            arch = "sm_" + cap.replace(".", "") if re.fullmatch(r"\d+\.\d+", cap) else "sm_90"
        m["arch"] = arch
    return m


# ---- the builds ----

def nesl_source(bench, size, runs, setup):
    with open(os.path.join(HERE, bench.name + ".nesl")) as f:
        src = f.read()
    src, count = re.subn(r"(?m)^n = \d+;", f"n = {size};", src)
    if count != 1:
        raise ValueError(f"{bench.name}.nesl: no single top-level `n = ...;`")
    reps = "#bench_reps(0, data)" if setup else f"bench_reps({runs + 1}, data)"
    return src + "\ncheck(run_once(input(n)));\n" + DRIVER + f"let data = input(n) in {reps};\n"


def cuda_lib_dirs(nvcc):
    path = shutil.which(nvcc)
    if not path:
        return []
    root = os.path.dirname(os.path.dirname(os.path.realpath(path)))
    dirs = [os.path.join(root, d) for d in ("lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib")]
    return [d for d in dirs if os.path.isdir(d)]


def build_all(benches, opts, mach, work, log):
    """every compilation, `--jobs` at once; {label: error or None}, and
    the seconds of each nessie build"""
    tasks = []
    cc = os.environ.get("CC", "cc")
    if opts.target == "cuda":
        nvcc = os.environ.get("NVCC", "nvcc")
        # the baselines find cuBLAS and cuSPARSE where nvcc's are, without
        # LD_LIBRARY_PATH
        rpath = [f"-Xlinker=-rpath={d}" for d in cuda_lib_dirs(nvcc)]
        flags = ["-std=c++17", "-O3", "--extended-lambda", f"-arch={mach['arch']}"] + rpath
        tasks.append(("probe", [nvcc] + flags + ["-o", f"{work}/bin/probe", f"{HERE}/cuda/d2d.cu"]))
        for b in benches:
            tasks.append((f"base.{b.name}", [nvcc] + flags + ["-o", f"{work}/bin/base.{b.name}",
                                                           f"{HERE}/cuda/{b.name}.cu", "-lcublas", "-lcusparse"]))
    else:
        flags = ["-std=c17", "-O2", "-fopenmp"]
        tasks.append(("probe", [cc] + flags + ["-o", f"{work}/bin/probe", f"{HERE}/cpu/copy.c"]))
        for b in benches:
            tasks.append((f"base.{b.name}", [cc] + flags + ["-o", f"{work}/bin/base.{b.name}",
                                                         f"{HERE}/cpu/{b.name}.c", "-lm"]))
    nessie = os.path.join(opts.build, "nessie")
    tflags = [f"--target={opts.target}"] + ([f"--arch={mach['arch']}"] if opts.target == "cuda" else [])
    for b in benches:
        for opt in opts.variants:
            for setup in (False, True):
                label = f"nesl.{b.name}.{opt}" + (".setup" if setup else "")
                src = f"{work}/src/{label}.nesl"
                with open(src, "w") as f:
                    f.write(nesl_source(b, b.n, opts.runs, setup))
                oflag = ["-O0"] if opt == "O0" else []
                tasks.append((label, [nessie] + oflag + tflags + [src, "-o", f"{work}/bin/{label}"]))
    log(f"building {len(tasks)} programs, {opts.jobs} at once")
    results, seconds = {}, {}

    # the builds run side by side already: each nessie runs at most two
    # compilers on its translation units (docs/codegen.md, "Building")
    nessie_env = dict(os.environ)
    nessie_env.setdefault("NESSIE_JOBS", "2")

    def one(task):
        label, argv = task
        env = nessie_env if argv[0] == nessie else None
        status, out, err, secs = run_cmd(argv, opts.build_timeout, f"{work}/logs/build.{label}.log", env=env)
        ok = status == 0 and os.path.exists(argv[argv.index("-o") + 1])
        return label, (None if ok else f"build {'timed out' if status == 'timeout' else 'failed'}: "
                       + first_line(err + "\n" + out)), secs

    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for label, error, secs in pool.map(one, tasks):
            results[label] = error
            seconds[label] = secs
            log(f"  built {label} in {secs:.1f} s" if error is None else f"  {label}: {error}")
    return results, seconds


# ---- the runs ----

class Budget:
    def __init__(self, seconds, per_run):
        self.deadline = START + seconds
        self.per_run = per_run

    def timeout(self, cap=None):
        """the timeout of the next run, None when the budget is spent"""
        left = self.deadline - time.monotonic()
        return min(cap or self.per_run, left) if left > 5 else None


def run_baseline(b, opts, work, budget, env, log):
    t = budget.timeout()
    if t is None:
        b.base = {"error": "skipped: out of the time budget"}
        return
    status, out, err, secs = run_cmd(timed([f"{work}/bin/base.{b.name}", str(b.n), str(opts.runs)]), t,
                                     f"{work}/logs/run.base.{b.name}.log", env)
    try:
        if status != 0:
            raise ValueError(f"status {status}: " + first_line(err + "\n" + out))
        b.base = parse_baseline(out)
    except ValueError as e:
        b.base = {"error": str(e)}
    log(f"  baseline {b.name}: {secs:.1f} s", b.base.get("error", ""))


def run_nesl(b, opt, opts, work, budget, env, log):
    r = {}
    for setup in (False, True):
        label = f"nesl.{b.name}.{opt}" + (".setup" if setup else "")
        t = budget.timeout()
        if t is None:
            r.setdefault("error", "skipped: out of the time budget")
            break
        status, out, err, secs = run_cmd(timed([f"{work}/bin/{label}"]), t, f"{work}/logs/run.{label}.log", env)
        log(f"  {label}: status {status}, {secs:.1f} s")
        if status != 0:
            r.setdefault("error", f"{'setup ' if setup else ''}run: status {status}: "
                         + first_line(err + "\n" + out))
            break
        if setup:
            r["setup_stats"] = parse_stats(err)
        else:
            try:
                r.update(parse_nesl(out))
            except ValueError as e:
                r["error"] = str(e)
                break
            r["stats"] = parse_stats(err)
    if "stats" in r and r.get("setup_stats"):
        calls = opts.runs + 1
        r["per_call"] = tuple((m - s) / calls for m, s in zip(r["stats"], r["setup_stats"]))
    b.nesl[opt] = r


def run_peers(benches, opts, work, budget, env, log):
    script = os.path.join(HERE, "peers", "peers.py")
    python = os.environ.get("BENCH_PYTHON", sys.executable or "python3")
    versions = {}
    for peer in ("jax", "cupy"):
        pending = [b for b in benches if b.peers]
        attempt = 0
        while pending:
            attempt += 1
            t = budget.timeout(opts.peer_timeout)
            if t is None:
                for b in pending:
                    b.peer[peer] = {"error": "skipped: out of the time budget"}
                break
            argv = [python, script, "--peer", peer, "--runs", str(opts.runs), "--loop", str(PEER_LOOP)] \
                + [f"{b.name}={b.n}" for b in pending]
            status, out, err, secs = run_cmd(timed(argv), t, f"{work}/logs/run.{peer}.{attempt}.log", env)
            log(f"  {peer} (try {attempt}): status {status}, {secs:.1f} s")
            for line in out.splitlines():
                if line.startswith("VERSION "):
                    versions[peer] = line.split(" ", 1)[1]
                m = re.match(r"RESULT (\S+) (.*)$", line)
                if not m:
                    continue
                b = next((x for x in pending if x.name == m.group(1)), None)
                if b is None:
                    continue
                rest = m.group(2)
                if rest.startswith("failed"):
                    b.peer[peer] = {"error": rest}
                    continue
                fields = dict(kv.split("=", 1) for kv in rest.split())
                b.peer[peer] = {"check": [float(v) for v in fields["check"].split(",")],
                                "times": [float(v) for v in fields["times"].split(",")]}
                if fields.get("device_times"):  # absent from an older peers.py
                    b.peer[peer]["device_times"] = [float(v) for v in fields["device_times"].split(",")]
            missing = [b for b in pending if peer not in b.peer]
            if missing:
                # the first one left stopped the process: it failed; the
                # rest run again in a fresh one
                why = "timed out" if status == "timeout" else f"the process ended (status {status})"
                missing[0].peer[peer] = {"error": f"{why}: " + (err.strip().splitlines() or [""])[-1][:200]}
                log(f"  {peer} {missing[0].name}: {missing[0].peer[peer]['error']}")
            pending = missing[1:]
    return versions


# ---- the report ----

def fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 100:
            return f"{v:.0f}"
        return f"{v:.{digits}g}" if abs(v) < 1 else f"{v:.{digits + 1}g}"
    return str(v)


def med(r, key="times"):
    return statistics.median(r[key]) if r and r.get(key) else None


def report(benches, opts, mach, probe_gbps, build_errors, build_secs, versions, out_dir, argv):
    cuda = opts.target == "cuda"
    peers = ["jax", "cupy"] if cuda and not opts.no_peers else []
    rows = []
    for b in benches:
        base_t = med(b.base)
        o1, o0 = b.nesl.get("O1", {}), b.nesl.get("O0", {})
        t1, t0 = med(o1), med(o0)
        row = {"name": b.name, "n": b.n, "base": base_t, "O1": t1, "O0": t0}
        if "error" in b.base:
            row["check"] = "no baseline"
        elif "error" in o1 or not o1:
            row["check"] = "failed"
        else:
            row["check"] = "ok" if checks_agree(o1["check"], b.base["check"], b.tol) else "MISMATCH"
        row["check_O0"] = ("ok" if checks_agree(o0.get("check"), b.base.get("check"), b.tol) else "MISMATCH") \
            if "check" in o0 and "check" in b.base else "failed"
        row["bytes"] = b.base.get("bytes")
        row["gbps"] = row["bytes"] / (t1 * 1e-3) / 1e9 if t1 and row["bytes"] else None
        row["base_gbps"] = row["bytes"] / (base_t * 1e-3) / 1e9 if base_t and row["bytes"] else None
        row["pct"] = 100 * row["gbps"] / probe_gbps if row["gbps"] and probe_gbps else None
        row["spread"] = summary(o1["times"])[1:] if "times" in o1 else None
        row["base_spread"] = summary(b.base["times"])[1:] if "times" in b.base else None
        row["x_base"] = t1 / base_t if t1 and base_t else None
        row["O0_x_base"] = t0 / base_t if t0 and base_t else None
        pt, pdt = {}, {}  # each peer's call time and device time (peers.py)
        fair = []  # the peers whose answer may stand beside nessie's
        for p in peers:
            r = b.peer.get(p)
            if r and "times" in r:
                pt[p] = med(r)
                if med(r, "device_times") is not None:
                    pdt[p] = med(r, "device_times")
                if "check" not in b.base:
                    row[p + "_check"] = "no baseline"
                else:
                    row[p + "_check"] = "ok" if checks_agree(r["check"], b.base["check"], b.tol) else "MISMATCH"
                # a peer that computed another answer is no yardstick: its
                # time stays in its column, marked, but no ratio uses it
                if row[p + "_check"] != "MISMATCH":
                    fair.append(p)
        row["peers"] = pt
        row["peers_device"] = pdt
        best = min((pt[p] for p in fair), default=None)
        best_dev = min((pdt[p] for p in fair if p in pdt), default=None)
        row["best_peer"] = best
        row["best_peer_device"] = best_dev
        # nessie's time (its call, the result on the host) over the best
        # peer's call time, and over the best peer's device time
        row["x_peer"] = t1 / best if t1 and best else None
        row["x_peer_device"] = t1 / best_dev if t1 and best_dev else None
        row["peer_x_base"] = best / base_t if best and base_t else None
        row["peer_device_x_base"] = best_dev / base_t if best_dev and base_t else None
        row["per_call"] = o1.get("per_call")
        row["per_call_O0"] = o0.get("per_call")
        rows.append(row)

    # results.tsv: every number
    cols = ["name", "n", "check", "nessie_ms", "min_ms", "max_ms", "bytes", "GBps", "pct_copy", "x_baseline",
            "launches", "syncs", "bytes_alloc", "O0_ms", "O0_check", "O0_x_baseline", "O0_launches", "O0_syncs",
            "baseline_ms", "baseline_min_ms", "baseline_max_ms", "baseline_GBps"]
    for p in peers:
        cols += [p + "_ms", p + "_check"]
    cols += ["x_best_peer"]
    for p in peers:
        cols += [p + "_device_ms"]
    if peers:
        cols += ["x_best_peer_device"]
    with open(os.path.join(out_dir, "results.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            pc, pc0 = r["per_call"] or (None,) * 3, r["per_call_O0"] or (None,) * 3
            vals = [r["name"], r["n"], r["check"], r["O1"], *(r["spread"] or (None, None)), r["bytes"], r["gbps"],
                    r["pct"], r["x_base"], pc[0], pc[1], pc[2], r["O0"], r["check_O0"], r["O0_x_base"], pc0[0],
                    pc0[1], r["base"], *(r["base_spread"] or (None, None)), r["base_gbps"]]
            for p in peers:
                vals += [r["peers"].get(p), r.get(p + "_check", "failed")]
            vals += [r["x_peer"]]
            for p in peers:
                vals += [r["peers_device"].get(p)]
            if peers:
                vals += [r["x_peer_device"]]
            f.write("\t".join("" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))
                              for v in vals) + "\n")

    # ratios.dat: the chart's data (time / the baseline's; ? where missing)
    with open(os.path.join(out_dir, "ratios.dat"), "w") as f:
        f.write(f"# {'GPU' if cuda else 'CPU'} run of {mach['date']}: time / hand-written baseline's time\n")
        f.write("# benchmark nessie nessie_O0 best_peer best_peer_device (the fastest peer's call time, "
                "from Python, and the fastest peer's device time)\n")
        for r in rows:
            vals = [r["x_base"], r["O0_x_base"]] + ([r["peer_x_base"], r["peer_device_x_base"]] if cuda else [None, None])
            f.write(r["name"] + " " + " ".join("?" if v is None else f"{v:.4g}" for v in vals) + "\n")

    L = []
    title = "GPU (--target=cuda)" if cuda else "CPU (--target=cpu, C with OpenMP)"
    L.append(f"# nessie benchmarks: {title}\n")
    L.append(f"Written by `tests/bench/harness.py` ({'make bench' if cuda else 'make bench-cpu'}); "
             "tests/bench/README.md describes the suite.\n")
    L.append(f"- date: {mach['date']}")
    L.append(f"- nessie commit: {mach['commit']}")
    if cuda:
        L.append(f"- GPU: {mach['gpu']}; driver {mach['driver']}; {mach['cuda']}; built for {mach['arch']}")
    L.append(f"- CPU: {mach['cpu']}; kernel {mach['kernel']}; {mach['cc']}; load average before the runs: "
             f"{mach['load']}, after: {load_average()}")
    if not cuda:
        L.append(f"- OpenMP threads: {os.environ.get('OMP_NUM_THREADS', f'all {os.cpu_count()} (OMP_NUM_THREADS unset)')}; "
                 f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}")
    for p, v in sorted(versions.items()):
        L.append(f"- {p}: {v}")
    L.append(f"- command: `{' '.join(shlex.quote(a) for a in argv)}`")
    probe_name = "device-to-device cudaMemcpy" if cuda else "parallel memcpy"
    L.append(f"- {probe_name} bandwidth (read + written, the same run): "
             + (f"**{probe_gbps:.1f} GB/s**" if probe_gbps else "failed"))
    L.append(f"- each time: the median of {opts.runs} calls after a warm-up, in ms; the spread is min–max. "
             "nessie: NESL's `time` (" + ("the host's clock, the device synchronized at both ends: the result is on the host" if cuda else "the wall clock") + "); baselines: "
             + ("CUDA events" if cuda else "omp_get_wtime")
             + ("; peers, two times: *call*, the whole call from Python's clock, until the result is ready "
                "(what its user sees, dispatch included), and *device*, the GPU's time for a call (CuPy: CUDA "
                f"events around the call; JAX, which has no events: {PEER_LOOP} calls in a row, the last one waited "
                f"for, over {PEER_LOOP}, so that dispatch overlaps the GPU's work)" if peers else "") + ".")
    L.append("- ×: time over the baseline's time (1 = as fast, 2 = twice as slow)"
             + ("; × best peer (call), × best peer (device): nessie's time over the fastest peer's call time, "
                "and over the fastest peer's device time (the peer's dispatch left out: nessie's time still "
                "holds its own), of the peers whose check is not a MISMATCH" if peers else "")
             + "; GB/s: the bytes the "
             "computation must move (the baseline's count: inputs read and outputs written once) over the time; "
             "launches, syncs and MB: per call, from NESSIE_STATS=1.\n")
    L.append("| benchmark | n | check | nessie ms | spread | MB moved | GB/s | % copy | × baseline | "
             + ("× best peer (call) | × best peer (device) | " if peers else "")
             + "launches | syncs | MB alloc | -O0 ms | -O0 × baseline | -O0 launches | baseline ms | baseline GB/s"
             + "".join(f" | {p} call ms | {p} device ms" for p in peers) + " |")
    L.append("|" + "---|" * (17 + (2 + 2 * len(peers) if peers else 0)))
    for r in rows:
        pc, pc0 = r["per_call"], r["per_call_O0"]
        o0 = fmt(r["O0"]) + ("" if r["check_O0"] == "ok" or r["O0"] is None else f" ({r['check_O0']})")
        cells = [r["name"], f"{r['n']:.0e}".replace("e+0", "e") if r["n"] >= 100000 else str(r["n"]), r["check"],
                 fmt(r["O1"]), (f"{fmt(r['spread'][0])}–{fmt(r['spread'][1])}" if r["spread"] else "—"),
                 fmt(r["bytes"] / 1e6 if r["bytes"] else None), fmt(r["gbps"]), fmt(r["pct"], 2), fmt(r["x_base"])] + ([fmt(r["x_peer"]), fmt(r["x_peer_device"])] if peers else []) + [
                 fmt(round(pc[0])) if pc else "—", fmt(round(pc[1])) if pc else "—",
                 f"{pc[2] / 1e6:.1f}" if pc else "—", o0, fmt(r["O0_x_base"]),
                 fmt(round(pc0[0])) if pc0 else "—", fmt(r["base"]), fmt(r["base_gbps"])]
        for p in peers:
            if p in r["peers"]:
                chk = r.get(p + "_check")
                cells.append(fmt(r["peers"][p]) + ("" if chk == "ok" else f" ({chk})"))
                cells.append(fmt(r["peers_device"].get(p)))
            else:
                cells += ["failed" if benches[rows.index(r)].peers else "—", "—"]
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    problems = []
    for b in benches:
        if "error" in b.base:
            problems.append(f"- {b.name}, baseline: {b.base['error']}")
        for opt, r in sorted(b.nesl.items()):
            if "error" in r:
                problems.append(f"- {b.name}, nessie {opt}: {r['error']}")
        for p, r in sorted(b.peer.items()):
            if "error" in r and p in peers:
                problems.append(f"- {b.name}, {p}: {r['error']}")
        row = rows[benches.index(b)]
        if row["check"] == "MISMATCH":
            problems.append(f"- {b.name}: MISMATCH: nessie printed {b.nesl['O1']['check']}, "
                            f"the baseline {b.base['check']}")
        if row["check_O0"] == "MISMATCH" and "check" in b.nesl.get("O0", {}):
            problems.append(f"- {b.name}: MISMATCH: nessie -O0 printed {b.nesl['O0']['check']}, "
                            f"the baseline {b.base['check']}")
        for p in peers:
            if row.get(p + "_check") == "MISMATCH":
                problems.append(f"- {b.name}: MISMATCH: {p} printed {b.peer[p]['check']}, "
                                f"the baseline {b.base['check']}")
    if problems:
        L.append("## Failures and mismatches\n")
        L += problems
        L.append("")
    L.append("## Builds\n")
    L.append("nessie's compile time (NESL to executable, the C/CUDA compiler included), s: "
             + ", ".join(f"{b.name} {build_secs.get(f'nesl.{b.name}.O1', 0):.1f}" for b in benches) + ".")
    failed = [f"{k}: {v}" for k, v in sorted(build_errors.items()) if v]
    if failed:
        L.append("\nFailed builds:\n")
        L += ["- " + f for f in failed]
    L.append("\nThe logs of every build and run are in logs.tar.gz; harness.log has the order and times.\n")
    with open(os.path.join(out_dir, "RESULTS.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    return rows


def chart(out_dir, log):
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        log("gnuplot not found: no chart (make bench-chart draws it from ratios.dat)")
        return
    status, out, err, secs = run_cmd([gnuplot, "-e", f"datafile='{out_dir}/ratios.dat'; "
                                      f"outfile='{out_dir}/ratios.png'", os.path.join(HERE, "chart.gp")], 60)
    log(f"chart: status {status}", first_line(err))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=["cuda", "cpu"], required=True)
    ap.add_argument("--build", required=True, help="nessie's build directory (BUILD/nessie, BUILD/lib/nessie)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", help="where the programs are built (default: a new directory in TMPDIR)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--only", help="a comma-separated list of benchmarks")
    ap.add_argument("--size", action="append", default=[], help="NAME=N: another size")
    ap.add_argument("--scale", type=float, default=1.0, help="every size times this")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-O0", dest="no_o0", action="store_true", help="skip the programs with fusion off")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--pin", type=int, metavar="CPU",
                    help="bind every timed run (nessie's, the baselines', the peers') to this CPU "
                         "(taskset -c): less spread between runs; for the GPU target (a CPU "
                         "program's threads would share the one CPU)")
    ap.add_argument("--budget", type=float, default=450, help="seconds for everything (default 450)")
    ap.add_argument("--run-timeout", type=float, default=120, help="seconds for one run (default 120)")
    ap.add_argument("--peer-timeout", type=float, default=240,
                    help="seconds for one peer's process, all its benchmarks (default 240)")
    ap.add_argument("--build-timeout", type=float, default=400)
    opts = ap.parse_args()
    global PIN
    if opts.pin is not None:
        if not shutil.which("taskset"):
            ap.error("--pin needs taskset (util-linux)")
        PIN = opts.pin
    opts.build = os.path.abspath(opts.build)
    opts.variants = ["O1"] if opts.no_o0 else ["O1", "O0"]
    out_dir = os.path.abspath(opts.out)
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.abspath(opts.work) if opts.work else tempfile.mkdtemp(prefix="nessie-bench-")
    for d in ("src", "bin", "logs"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    log = Log(os.path.join(out_dir, "harness.log"))
    log(f"nessie benchmarks, target {opts.target}; work directory {work}")

    benches = read_conf(os.path.join(HERE, "benchmarks.conf"))
    if opts.only:
        wanted = opts.only.split(",")
        benches = [b for b in benches if b.name in wanted]
    sizes = dict(s.split("=", 1) for s in opts.size)
    for b in benches:
        b.n = int(sizes.get(b.name, (b.gpu_n if opts.target == "cuda" else b.cpu_n) * opts.scale))
    mach = machine(opts.target)
    log("machine:", "; ".join(f"{k} {v}" for k, v in mach.items()))

    build_errors, build_secs = build_all(benches, opts, mach, work, log)
    mach["load"] = load_average()
    budget = Budget(opts.budget, opts.run_timeout)
    env = dict(os.environ, NESSIE_STATS="1")

    probe_gbps = None
    if build_errors.get("probe") is None:
        status, out, err, secs = run_cmd([f"{work}/bin/probe"], 60, f"{work}/logs/run.probe.log")
        m = re.search(r"(?:d2d|copy)_GBps: ([0-9.]+)", out)
        probe_gbps = float(m.group(1)) if m else None
        log(f"probe: {probe_gbps} GB/s")
    for b in benches:
        log(f"{b.name} (n = {b.n})")
        if build_errors.get(f"base.{b.name}") is None:
            run_baseline(b, opts, work, budget, env, log)
        else:
            b.base = {"error": build_errors[f"base.{b.name}"]}
        for opt in opts.variants:
            label = f"nesl.{b.name}.{opt}"
            if build_errors.get(label) is None and build_errors.get(label + ".setup") is None:
                run_nesl(b, opt, opts, work, budget, env, log)
            else:
                b.nesl[opt] = {"error": build_errors.get(label) or build_errors.get(label + ".setup")}
    versions = {}
    if opts.target == "cuda" and not opts.no_peers:
        log("peers")
        versions = run_peers(benches, opts, work, budget, env, log)

    report(benches, opts, mach, probe_gbps, build_errors, build_secs, versions, out_dir, sys.argv)
    chart(out_dir, log)
    log(f"done in {time.monotonic() - START:.0f} s: {out_dir}/RESULTS.md")
    log.f.close()
    with tarfile.open(os.path.join(out_dir, "logs.tar.gz"), "w:gz") as tar:
        tar.add(os.path.join(work, "src"), arcname="logs/src")
        tar.add(os.path.join(work, "logs"), arcname="logs/logs")
        tar.add(os.path.join(out_dir, "harness.log"), arcname="logs/harness.log")
    with open(os.path.join(out_dir, "RESULTS.md")) as f:
        sys.stdout.write("\n" + f.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
