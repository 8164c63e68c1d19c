# tests/library/libcall.py DIR [N]: the fixed cost of calling a tiny
# exported function (tests/library/libcall.nesl, built into DIR) from
# Python, beside a trivial Python function call in the same run
# (tests/library/libcall.sh runs it; docs/library.md, "The cost of a
# call").  N calls a measure (default 20000), the best of 5; prints
# microseconds a call.
import sys
import time

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import libcall  # noqa: E402

N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
RUNS = 5
xs = np.arange(8, dtype=np.int32)


def py_inc(x):
    return x + 1


def best(f, *args):
    for _ in range(N // 10 + 1):  # warm
        f(*args)
    b = float('inf')
    for _ in range(RUNS):
        t0 = time.perf_counter()
        for _ in range(N):
            f(*args)
        b = min(b, 1e6 * (time.perf_counter() - t0) / N)
    return b


assert libcall.inc(41) == 42 and libcall.inc_all(xs).tolist() == list(range(1, 9))
print('Python: µs a call, best of %d runs of %d calls' % (RUNS, N))
rows = [
    ('inc(x) : int -> int', best(libcall.inc, 1)),
    ('  baseline: a Python function returning x + 1', best(py_inc, 1)),
    ('inc_all(xs), 8 ints as a NumPy array', best(libcall.inc_all, xs)),
    ('  baseline: NumPy xs + 1 on the same array', best(np.add, xs, 1)),
]
for name, us in rows:
    print('  %-54s %9.3f' % (name, us))
