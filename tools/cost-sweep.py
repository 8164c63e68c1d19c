#!/usr/bin/env python3
"""tools/cost-sweep.py: NESL's work and depth of an expression over sizes.

    tools/cost-sweep.py 'EXPR' --from A --to B [--times K | --plus K]
                        [--prelude FILE.nesl] [--png FILE.png] [--nessie PATH]

EXPR is a NESL expression in which `n` stands for the size.  It is run
by nessie's evaluator under --cost (docs/cost.md) at every size from A
to B (multiplied by K, 2 by default, or with --plus increased by K),
all sizes in one run of nessie, after the definitions of --prelude.
The output is a table of n, W and D, then, for each of W and D, the
best of the fits a*f(n) + b for f among 1, lg n, lg^2 n, n, n lg n,
n lg^2 n and n^2 (least squares on the relative error, so that small
and large sizes weigh alike): the model whose relative error is smallest, a simpler one
where two are within 1% of each other.  With --png, a log-log picture of
the measured W and D and their fits, drawn by gnuplot.

Everything printed is deterministic (the costs are), so a page can quote
it (examples/*.md; tests/docs/check.sh runs the commands it quotes).
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

# the models, simplest first: a tie goes to the earlier
MODELS = [
    ("1", lambda n: 1.0),
    ("lg n", lambda n: math.log2(n) if n > 1 else 0.0),
    ("lg^2 n", lambda n: math.log2(n) ** 2 if n > 1 else 0.0),
    ("n", lambda n: float(n)),
    ("n lg n", lambda n: n * math.log2(n) if n > 1 else 0.0),
    ("n lg^2 n", lambda n: n * math.log2(n) ** 2 if n > 1 else 0.0),
    ("n^2", lambda n: float(n) * n),
]
# gnuplot's spelling of each model, x for n
GNUPLOT = {"1": "1", "lg n": "log(x)/log(2)", "lg^2 n": "(log(x)/log(2))**2", "n": "x",
           "n lg n": "x*log(x)/log(2)", "n lg^2 n": "x*(log(x)/log(2))**2", "n^2": "x**2"}


def sizes(args):
    n, out = args.start, []
    while n <= args.end:
        out.append(n)
        n = n + args.plus if args.plus else n * args.times
    return out


def measure(args, ns):
    """W and D of EXPR at each size, from one run of nessie --cost: a
    marker statement before each size says whose cost line comes next."""
    prelude = open(args.prelude).read() if args.prelude else ""
    lines = [prelude]
    for n in ns:
        lines.append('"cost-sweep %d";' % n)
        # the value is not printed (it may be large): a let costs nothing
        lines.append("let n = %d; cost_sweep_value = (%s) in T;" % (n, args.expr))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sweep.nesl")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        run = subprocess.run([args.nessie, "--interp=eval", "--cost", path], capture_output=True, text=True)
    if '"cost-sweep ' not in run.stdout:  # it ran nothing: bad usage, compile errors
        sys.exit("cost-sweep: nessie failed:\n" + run.stdout + run.stderr)
    costs, current, seen_marker = {}, None, False
    for line in run.stdout.splitlines():
        m = re.match(r'it = "cost-sweep (\d+)"', line)
        if m:
            current, seen_marker = int(m.group(1)), True
            continue
        m = re.match(r"cost: work (\d+), depth (\d+)$", line)
        if m and current is not None:
            if seen_marker:  # the marker's own cost line
                seen_marker = False
                continue
            costs[current] = (int(m.group(1)), int(m.group(2)))
            current = None
        elif line.startswith("error:") and current is not None:
            sys.exit("cost-sweep: at n = %d: %s" % (current, line))
    missing = [n for n in ns if n not in costs]
    if missing:
        sys.exit("cost-sweep: no cost for n = %s:\n%s%s" % (missing, run.stdout[-2000:], run.stderr[-2000:]))
    return [costs[n] for n in ns]


def fit(ns, ys):
    """The best model a*f(n) + b: (name, a, b, relative error)."""
    best = None
    for name, f in MODELS:
        # weighted least squares, weights 1/y^2: the normal equations of
        # sum(((y - a f - b) / y)^2)
        sw = sf = sff = sy = sfy = 0.0
        for n, y in zip(ns, ys):
            w = 1.0 / (y * y) if y else 1.0
            x = f(n)
            sw += w
            sf += w * x
            sff += w * x * x
            sy += w * y
            sfy += w * x * y
        det = sw * sff - sf * sf
        if name == "1" or abs(det) < 1e-12 * max(1.0, sw * sff):
            a, b = 0.0, sy / sw
        else:
            a = (sw * sfy - sf * sy) / det
            b = (sff * sy - sf * sfy) / det
        errs = [((y - a * f(n) - b) / y) if y else (a * f(n) + b) for n, y in zip(ns, ys)]
        err = math.sqrt(sum(e * e for e in errs) / len(errs))
        if a < 0:  # a decreasing fit of a growing model: not this one
            err = float("inf")
        if best is None or err < best[3] - 0.01:
            best = (name, a, b, err)
    return best


def describe(what, model):
    """One line, rounded so that the last bits of a machine's floating
    point do not show (a page quotes it)."""
    name, a, b, err = model
    error = "relative error %.1f%%" % (100 * err) if err >= 0.0005 else "exact"
    if name == "1":
        return "%s ~ %.4g (constant; %s)" % (what, round(b, 6), error)
    offset = "" if abs(b) < 5e-5 * max(1.0, abs(a)) else " %s %.4g" % ("+" if b >= 0 else "-", round(abs(b), 6))
    return "%s ~ %.4g * %s%s (%s)" % (what, round(a, 6), name, offset, error)


def plot(args, ns, ws, ds, wfit, dfit):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "sweep.dat")
        with open(data, "w") as f:
            for n, w, d in zip(ns, ws, ds):
                f.write("%d %d %d\n" % (n, w, d))

        def curve(model):
            name, a, b, _ = model
            return "%r*(%s)+%r" % (a, GNUPLOT[name], b)
        script = "\n".join([
            "set terminal png size 720,480 noenhanced",
            "set format xy '%g'",
            "set output '%s'" % args.png.replace("'", "''"),
            "set logscale xy 2",
            "set xlabel 'n'",
            "set ylabel 'work, depth'",
            "set key top left",
            "set title '%s'" % args.expr.replace("'", "''"),
            "plot '%s' using 1:2 with points pt 7 title 'work (measured)', \\" % data,
            "     %s with lines title 'work ~ %s', \\" % (curve(wfit), wfit[0]),
            "     '%s' using 1:3 with points pt 5 title 'depth (measured)', \\" % data,
            "     %s with lines title 'depth ~ %s'" % (curve(dfit), dfit[0]),
        ])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


def main():
    p = argparse.ArgumentParser(description="NESL's work and depth of an expression over sizes (docs/cost.md)")
    p.add_argument("expr", help="a NESL expression of n")
    p.add_argument("--from", dest="start", type=int, required=True, help="the first size")
    p.add_argument("--to", dest="end", type=int, required=True, help="the last size (at most)")
    p.add_argument("--times", type=int, default=2, help="each size is the last times this (default 2)")
    p.add_argument("--plus", type=int, default=0, help="each size is the last plus this, instead")
    p.add_argument("--prelude", help="a NESL file of definitions loaded first")
    p.add_argument("--png", help="write a log-log picture here (gnuplot)")
    p.add_argument("--nessie", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "nessie"),
                   help="the nessie to run (default: build/nessie)")
    args = p.parse_args()
    if args.start < 1 or args.end < args.start or (not args.plus and args.times < 2) or args.plus < 0:
        p.error("sizes: need 1 <= --from <= --to, and --times >= 2 or --plus >= 1")
    ns = sizes(args)
    if len(ns) < 3:
        p.error("sizes: %s: at least three are needed for a fit" % ns)
    costs = measure(args, ns)
    ws = [w for w, _ in costs]
    ds = [d for _, d in costs]
    print("%10s %14s %8s" % ("n", "work", "depth"))
    for n, w, d in zip(ns, ws, ds):
        print("%10d %14d %8d" % (n, w, d))
    wfit, dfit = fit(ns, ws), fit(ns, ds)
    print(describe("work", wfit))
    print(describe("depth", dfit))
    if args.png:
        plot(args, ns, ws, ds, wfit, dfit)


if __name__ == "__main__":
    main()
