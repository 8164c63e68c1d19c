#!/usr/bin/env python3
"""tests/bench/report_test.py OUTDIR: harness.py's report of a GPU run,
from made-up results (no GPU, no JAX, no CuPy needed), read back: the
ratios against the peers use the right times and leave out a peer whose
answer is not the baseline's.  Run by the bench suite of `make test`
(tests/suites/bench.sh); prints what is wrong and exits 1, or prints
nothing.

The made-up run: the baseline takes 1 ms, nessie 2 ms; JAX's call takes
5 ms, its device time 0.5 ms; CuPy's call 4 ms, its device time 0.1 ms,
and on `sum` CuPy's check differs from the baseline's.
"""
import collections
import os
import sys
import types

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = ("sum", "mandelbrot", "quickhull")
    benches = [b for b in harness.read_conf(os.path.join(harness.HERE, "benchmarks.conf")) if b.name in names]
    good = [1.0, 2.0, 3.0]
    for b in benches:
        b.n = 1000
        b.base = {"check": good, "bytes": 8000.0, "times": [1.0, 1.0]}
        b.nesl = {"O1": {"check": good, "times": [2.0, 2.0], "per_call": (3.0, 1.0, 5e7)},
                  "O0": {"check": good, "times": [3.0]}}
        if b.peers:
            b.peer = {"jax": {"check": good, "times": [5.0], "device_times": [0.5]},
                      "cupy": {"check": [1.0, 2.0, 3.5] if b.name == "sum" else good,
                               "times": [4.0], "device_times": [0.1]}}
    opts = types.SimpleNamespace(target="cuda", no_peers=False, runs=1, variants=["O1", "O0"])
    mach = collections.defaultdict(lambda: "?")
    harness.report(benches, opts, mach, 1000.0, {}, {}, {"jax": "jax ?", "cupy": "cupy ?"}, out, ["report_test"])

    problems = []
    with open(os.path.join(out, "results.tsv")) as f:
        cols = f.readline().rstrip("\n").split("\t")
        rows = {r[0]: dict(zip(cols, r)) for r in (line.rstrip("\n").split("\t") for line in f)}
    # nessie's 2 ms over: sum, JAX alone (CuPy's answer is another);
    # mandelbrot, CuPy; quickhull, no peer
    want = {"sum": ("0.4", "4", "MISMATCH"), "mandelbrot": ("0.5", "20", "ok"), "quickhull": ("", "", "failed")}
    for name, (call, device, cupy_check) in want.items():
        r = rows.get(name, {})
        got = (r.get("x_best_peer"), r.get("x_best_peer_device"), r.get("cupy_check"))
        if got != (call, device, cupy_check):
            problems.append(f"results.tsv {name}: x_best_peer, x_best_peer_device, cupy_check "
                            f"are {got}, not {(call, device, cupy_check)}")
    with open(os.path.join(out, "ratios.dat")) as f:
        dat = {line.split()[0]: line.split()[1:] for line in f if not line.startswith("#")}
    # time over the baseline's: nessie, -O0, best peer's call, its device time
    want_dat = {"sum": ["2", "3", "5", "0.5"], "mandelbrot": ["2", "3", "4", "0.1"], "quickhull": ["2", "3", "?", "?"]}
    for name, cells in want_dat.items():
        if dat.get(name) != cells:
            problems.append(f"ratios.dat {name}: {dat.get(name)}, not {cells}")
    with open(os.path.join(out, "RESULTS.md")) as f:
        md = f.read()
    if "| × best peer (call) | × best peer (device) |" not in md or "| cupy call ms | cupy device ms |" not in md:
        problems.append("RESULTS.md: no columns × best peer (call), × best peer (device), cupy call ms, cupy device ms")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
