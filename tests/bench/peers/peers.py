#!/usr/bin/env python3
"""tests/bench/peers/peers.py --peer jax|cupy|numpy [--runs R] [--loop K] NAME=N ...

The peers of the benchmark suite: JAX (jit, 64-bit) and CuPy versions of
the flat programs, the sparse product, the sorts, mandelbrot and the
all-pairs n-body, on the inputs of tests/bench/NAME.nesl (made on the
device by the peer's own array library, NESL's 32-bit int wrap included).
mandelbrot stops each pixel at its escape, as nessie and the CUDA
baseline do: CuPy by a kernel that loops per pixel, JAX by a while_loop
that masks the pixels that have escaped and stops when all have.  Each
benchmark is timed twice over, after a warm-up (R calls each):

- times: each call as its user sees it, from Python's clock
  (time.perf_counter): the whole call, host side and dispatch included,
  until the result is ready (block_until_ready, or a synchronization of
  the device);
- device_times: the device's time for a call.  CuPy: CUDA events
  recorded on the current stream before and after the call.  JAX, which
  has no events: K calls in a row (--loop, 10), only the last one waited
  for, over K, so that dispatch overlaps the device's work as in a
  pipeline.  NumPy (CuPy's code on the host, to test this script where
  no GPU is): the same loop of K calls, its wall time.

For each NAME it prints one line:

    RESULT NAME check=V,V,... times=MS,MS,... device_times=MS,MS,...
    RESULT NAME failed: WHY

(device_times may be missing: harness.py reads the line without it) and
goes on with the next NAME whatever happens to this one.
"""
import argparse
import math
import os
import sys
import time
import traceback

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


class Peer:
    """what differs between JAX and CuPy (and NumPy, on the host: CuPy's
    code run by NumPy, to test this script where no GPU is)"""

    def __init__(self, name):
        self.name = name
        self.eager = name != "jax"
        if name == "jax":
            import jax
            jax.config.update("jax_enable_x64", True)
            import jax.numpy as jnp
            self.jax, self.xp = jax, jnp
            self.jit = jax.jit
        elif name == "cupy":
            import cupy
            import cupyx.scipy.sparse
            self.cupy, self.xp, self.sparse = cupy, cupy, cupyx.scipy.sparse
            self.jit = lambda f: f
        else:
            import numpy
            import scipy.sparse
            self.xp, self.sparse = numpy, scipy.sparse
            self.jit = lambda f: f

    def ready(self, value):
        if self.name == "jax":
            self.jax.block_until_ready(value)
        elif self.name == "cupy":
            self.cupy.cuda.runtime.deviceSynchronize()
        return value

    def device_times(self, f, args, runs, loop):
        """RUNS device times of f(*args), in ms, after measure's calls
        (the warm-up among them).  CuPy: CUDA events recorded on the
        current stream before and after one call, the GPU's time from
        the first kernel's launch to the last one's end (the gaps where
        it waits for Python to launch the next kernel included).  JAX has
        no events: LOOP calls in a row, only the last one's result waited
        for (block_until_ready; the calls run in order on the device),
        over LOOP, so that the host's dispatch of a call overlaps the
        device's work on the one before, as in a pipeline; where the
        device's work is the longer, that is its time.  NumPy: the same
        loop, its wall time (no device: a call is all on the host)."""
        times = []
        if self.name == "cupy":
            start, end = self.cupy.cuda.Event(), self.cupy.cuda.Event()
            for _ in range(runs):
                start.record()
                out = f(*args)
                end.record()
                end.synchronize()
                times.append(self.cupy.cuda.get_elapsed_time(start, end))
                del out
            return times
        for _ in range(runs):
            t0 = time.perf_counter()
            for _ in range(loop):
                out = f(*args)
            self.ready(out)
            times.append((time.perf_counter() - t0) * 1e3 / loop)
            del out
        return times

    def free(self):
        if self.name == "cupy":
            self.cupy.get_default_memory_pool().free_all_blocks()
        elif self.name == "jax":
            self.jax.clear_caches()


# ---- the inputs: NESL's ints are 32-bit and wrap ----

def wrap32(xp, v):
    v = v & 0xFFFFFFFF
    return xp.where(v >= 2**31, v - 2**32, v)


def lin_mod(xp, i, a, b, m):
    """mod(i * a + b, m) on NESL ints (floored mod); i: int64 array"""
    return xp.mod(wrap32(xp, i * a + b), m)


def index(xp, n):
    return xp.arange(n, dtype=xp.int64)


def f64(xp, v):
    return v.astype(xp.float64)


# ---- the benchmarks: make(P, n) -> (function, arguments, check) ----

def b_sum(P, n):
    xp = P.xp
    a = f64(xp, lin_mod(xp, index(xp, n), 7919, 0, 1000)) * 0.001
    return P.jit(lambda a: xp.sum(a)), (a,), lambda r: [r]


def b_dotp(P, n):
    xp = P.xp
    i = index(xp, n)
    a = f64(xp, lin_mod(xp, i, 7919, 0, 1000)) * 0.001
    b = f64(xp, lin_mod(xp, i, 104729, 0, 997)) * 0.002
    return P.jit(lambda a, b: xp.dot(a, b)), (a, b), lambda r: [r]


def b_sumlogs(P, n):
    xp = P.xp
    a = 1.0 + f64(xp, lin_mod(xp, index(xp, n), 7919, 0, 1000)) * 0.5
    return P.jit(lambda a: xp.sum(xp.log(a))), (a,), lambda r: [r]


def first_middle_last(xp, r):
    n = r.shape[0]
    return [r[0], r[n // 2], r[n - 1]]


def b_muladd(P, n):
    xp = P.xp
    i = index(xp, n)
    a, b, c = (f64(xp, lin_mod(xp, i, 29, s, 61)) * 0.25 - 7.5 for s in (1, 2, 3))
    return (P.jit(lambda a, b, c: a * b + c), (a, b, c),
            lambda r: [xp.sum(r)] + first_middle_last(xp, r))


def b_norm2(P, n):
    xp = P.xp
    a = f64(xp, lin_mod(xp, index(xp, n), 7919, 0, 1000)) * 0.001 - 0.5

    def norm2(x):
        s = xp.sqrt(xp.sum(xp.where(x > 0.0, x * x, 0.0)))
        return x / s
    return (P.jit(norm2), (a,),
            lambda r: [xp.sum(xp.abs(r))] + first_middle_last(xp, r))


def b_blackscholes(P, n):
    xp = P.xp
    i = index(xp, n)
    s = 20.0 + f64(xp, lin_mod(xp, i, 37, 0, 81))
    k = 25.0 + f64(xp, lin_mod(xp, i, 53, 0, 71))
    r = 0.01 + 0.001 * f64(xp, xp.mod(i, 50))
    v = 0.1 + 0.01 * f64(xp, lin_mod(xp, i, 7, 0, 40))
    tm = 0.25 + 0.25 * f64(xp, lin_mod(xp, i, 3, 0, 8))

    def cnd(x):
        l = xp.abs(x)
        kk = 1.0 / (1.0 + 0.2316419 * l)
        poly = kk * (0.319381530 + kk * (-0.356563782 + kk * (1.781477937 + kk * (-1.821255978 + kk * 1.330274429))))
        w = 1.0 - xp.exp(-0.5 * l * l) / math.sqrt(2.0 * math.pi) * poly
        return xp.where(x < 0.0, 1.0 - w, w)

    def bs(s, k, r, v, tm):
        sqt = xp.sqrt(tm)
        d1 = (xp.log(s / k) + (r + 0.5 * v * v) * tm) / (v * sqt)
        d2 = d1 - v * sqt
        disc = k * xp.exp(-r * tm)
        return s * cnd(d1) - disc * cnd(d2), disc * cnd(-d2) - s * cnd(-d1)

    def check(res):
        c, p = res
        return [xp.sum(c), xp.sum(p), c[n // 2], p[n // 2]]
    return P.jit(bs), (s, k, r, v, tm), check


def b_spmv(P, n):
    xp = P.xp
    i = index(xp, n)
    lens = xp.mod(lin_mod(xp, i, 7919, 0, 65521), 17)
    rowptr = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(lens)])
    nnz = int(rowptr[-1])
    e = xp.arange(nnz, dtype=xp.int64)
    rows = xp.searchsorted(rowptr, e, side="right") - 1  # the row of each entry
    k = e - rowptr[rows]
    cols = lin_mod(xp, rows, 104729, 7, n - 1000) + 61 * k
    vals = f64(xp, xp.mod(rows + 3 * k, 10) - 4) * 0.5
    x = f64(xp, lin_mod(xp, i, 5, 0, 7)) - 1.0
    check = lambda r: [xp.sum(r)] + first_middle_last(xp, r)
    if P.eager:
        m = P.sparse.csr_matrix((vals, cols.astype(xp.int32), rowptr.astype(xp.int32)), shape=(n, n))
        return (lambda m, x: m @ x), (m, x), check
    import jax
    rows32, cols32 = rows.astype(xp.int32), cols.astype(xp.int32)
    f = lambda vals, cols, rows, x: jax.ops.segment_sum(vals * x[cols], rows, num_segments=n, indices_are_sorted=True)
    return P.jit(f), (vals, cols32, rows32, x), check


def sort_input(P, n):
    xp = P.xp
    i = index(xp, n)
    return (lin_mod(xp, i, 7919, 13, 1000003) * 17 + xp.mod(i, 17)).astype(xp.int32)


def sort_check(xp, a):
    n = a.shape[0]
    return [n, a[0], a[n // 2], a[n - 1], xp.sum(a[:-1] > a[1:]), xp.sum(f64(xp, xp.mod(a, 1000)))]


def b_sort(P, n):
    xp = P.xp
    return P.jit(lambda a: xp.sort(a)), (sort_input(P, n),), lambda r: sort_check(xp, r)


def b_mandelbrot(P, n):
    xp = P.xp
    h = math.isqrt(n // 2)
    w = 2 * h
    i = index(xp, w * h)
    cr = -2.25 + (3.0 / w) * f64(xp, i % w)
    ci = -1.125 + (2.25 / h) * f64(xp, i // w)
    maxit = 256
    check = lambda k: [w * h, xp.sum(f64(xp, k)), xp.sum(k == maxit)]
    # every version stops a pixel where mandelbrot.nesl's escape does:
    # at k >= maxit or zr * zr + zi * zi > 4.0, z and k as they are then

    if P.name == "jax":
        import jax
        block = 32  # steps a trip of the while_loop; maxit is a multiple

        # XLA has no per-pixel loop: a lax.while_loop runs whole arrays,
        # so a pixel that has escaped is masked (z and k kept) until the
        # last one has.  The loop tests `any pixel still running` (and the
        # step count) only every `block` steps, and the body's steps are
        # unrolled in Python, so that XLA fuses them into kernels that
        # keep z and k in registers.  On an H200 at 4*10^6 pixels (jax
        # 0.11.2, 2026-12-02), a call took: the fori_loop of 256 steps
        # that this replaces 17.7 ms; this loop with a block of 1 step
        # 27 ms (a kernel and a predicate read back by the host a step),
        # 8 steps 3.7 ms, 16 1.9, 32 1.4 to 1.5, 64 1.2 to 1.7 (twice
        # the compile time of 32), 128 1.7 (11 s to compile); a per-pixel
        # while_loop under vmap, which JAX turns into the masked loop of
        # one step a trip, 30 ms.  Like the fori_loop, it goes on to 256
        # steps where a pixel never escapes (this image's inside); it
        # stops early where all have.  A step is the fori_loop's, word
        # for word: XLA may contract multiply-adds into FMAs as its
        # fusions let it (on the CPU it does), and this one printed the
        # fori_loop's check values, which are NumPy's, on that H200.
        def step(zr, zi, k, alive, cr, ci):
            # z is never NaN: <= 4.0 is NESL's not (... > 4.0)
            alive = alive & (zr * zr + zi * zi <= 4.0)
            nr = xp.where(alive, zr * zr - zi * zi + cr, zr)
            ni = xp.where(alive, 2.0 * zr * zi + ci, zi)
            return nr, ni, k + alive.astype(xp.int32), alive

        def mandel(cr, ci):
            def body(s):
                t, *state = s
                for _ in range(block):
                    state = step(*state, cr, ci)
                return (t + block, *state)

            def cond(s):
                t, zr, zi, k, alive = s
                return (t < maxit) & xp.any(alive & (zr * zr + zi * zi <= 4.0))
            z = xp.zeros_like(cr)
            init = (xp.int32(0), z, z, xp.zeros(cr.shape, dtype=xp.int32), xp.ones(cr.shape, dtype=bool))
            return jax.lax.while_loop(cond, body, init)[3]
        f = P.jit(mandel)
    elif P.name == "cupy":
        # one thread a pixel, looping until it escapes, as the CUDA
        # baseline does, and compiled as the baseline and nessie's CUDA
        # are: NVRTC's defaults, which contract products and sums into
        # fused multiply-adds, as XLA does for JAX.  That moves a few
        # counts from NumPy's (benchmarks.conf's tolerance is for it),
        # and keeps the peer's loop as short as theirs.  Compiled with
        # --fmad=false instead (each product and sum rounded by itself:
        # NumPy's counts exactly), on the H200 of the JAX figures above:
        # 0.21 ms a call, where the baseline took 0.18
        kernel = P.cupy.ElementwiseKernel(
            "float64 cr, float64 ci, int32 maxit", "int32 k",
            """
            double zr = 0.0, zi = 0.0;
            int it = 0;
            while (!(it >= maxit || zr * zr + zi * zi > 4.0)) {
              double nr = zr * zr - zi * zi + cr;
              double ni = 2.0 * zr * zi + ci;
              zr = nr;
              zi = ni;
              it++;
            }
            k = it;
            """, "peers_mandelbrot")
        f = lambda cr, ci: kernel(cr, ci, maxit)
    else:
        # NumPy (no GPU): the early exit of whole arrays, the pixels still
        # running gathered into shorter ones as the others escape
        def f(cr, ci):
            k = xp.zeros(cr.shape, dtype=xp.int32)
            at = xp.arange(cr.shape[0])
            zr, zi, pr, pi = xp.zeros_like(cr), xp.zeros_like(cr), cr, ci
            for _ in range(maxit):
                go = ~(zr * zr + zi * zi > 4.0)
                if not go.all():
                    at, zr, zi, pr, pi = at[go], zr[go], zi[go], pr[go], pi[go]
                    if at.size == 0:
                        break
                zr, zi = zr * zr - zi * zi + pr, 2.0 * zr * zi + pi
                k[at] += 1
            return k
    return f, (cr, ci), check


def b_nbody(P, n):
    xp = P.xp
    i = index(xp, n)
    x = f64(xp, lin_mod(xp, i, 37, 0, 101)) * 0.1 - 5.0
    y = f64(xp, lin_mod(xp, i, 53, 7, 103)) * 0.1 - 5.0
    z = f64(xp, lin_mod(xp, i, 71, 3, 107)) * 0.1 - 5.0
    m = 1.0 + f64(xp, xp.mod(i, 3))

    def accel(x, y, z, m):
        dx = x[None, :] - x[:, None]
        dy = y[None, :] - y[:, None]
        dz = z[None, :] - z[:, None]
        r2 = dx * dx + dy * dy + dz * dz + 0.01
        s = m[None, :] / (r2 * xp.sqrt(r2))
        return xp.sum(s * dx, axis=1), xp.sum(s * dy, axis=1), xp.sum(s * dz, axis=1)

    def check(a):
        ax, ay, az = a
        return [xp.sum(xp.abs(ax) + xp.abs(ay) + xp.abs(az)), ax[n // 2], ay[n // 2], az[n // 2]]
    return P.jit(accel), (x, y, z, m), check


BENCHMARKS = {
    "sum": b_sum, "dotp": b_dotp, "sumlogs": b_sumlogs, "muladd": b_muladd, "norm2": b_norm2,
    "blackscholes": b_blackscholes, "spmv": b_spmv, "quicksort": b_sort, "radixsort": b_sort,
    "mandelbrot": b_mandelbrot, "nbody": b_nbody,
}


def measure(P, name, n, runs, loop):
    """the check values, the call times (ms) and the device times (ms)"""
    f, args, check = BENCHMARKS[name](P, n)
    P.ready(args)
    times = []
    for r in range(runs + 1):
        t0 = time.perf_counter()
        out = f(*args)
        P.ready(out)
        t1 = time.perf_counter()
        if r > 0:
            times.append((t1 - t0) * 1e3)
    values = [float(v) for v in check(out)]
    del out
    return values, times, P.device_times(f, args, runs, loop)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", required=True, choices=["jax", "cupy", "numpy"])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--loop", type=int, default=10,
                    help="calls in a row a device time of JAX (and NumPy) is made of")
    ap.add_argument("benchmarks", nargs="+", help="NAME=N")
    opts = ap.parse_args()
    if opts.loop < 1:
        ap.error("--loop takes a count of 1 or more")
    try:
        P = Peer(opts.peer)
        lib = {"jax": "jax", "cupy": "cupy", "numpy": "numpy"}[opts.peer]
        print(f"VERSION {lib} {sys.modules[lib].__version__}", flush=True)
    except Exception as e:  # not installed: every benchmark fails
        for b in opts.benchmarks:
            print(f"RESULT {b.split('=')[0]} failed: {opts.peer} does not load: {e!r}", flush=True)
        return 0
    for b in opts.benchmarks:
        name, _, size = b.partition("=")
        try:
            if name not in BENCHMARKS:
                raise ValueError("no such peer benchmark")
            values, times, device = measure(P, name, int(size), opts.runs, opts.loop)
            line = (f"RESULT {name} check={','.join(repr(v) for v in values)} "
                    f"times={','.join(f'{t:.6f}' for t in times)}")
            if device:
                line += f" device_times={','.join(f'{t:.6f}' for t in device)}"
            print(line, flush=True)
        except BaseException as e:  # pylint: disable=broad-except
            if isinstance(e, KeyboardInterrupt):
                raise
            msg = " ".join(repr(e).split())[:300]
            print(f"RESULT {name} failed: {msg}", flush=True)
            traceback.print_exc(file=sys.stderr)
        try:
            P.free()
        except Exception:  # pylint: disable=broad-except
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
