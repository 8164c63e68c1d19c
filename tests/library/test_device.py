# tests/library/test_device.py: the CUDA target's Python binding with
# CuPy and DLPack arrays (tests/gpu/library.sh runs it on a GPU machine
# as `python3 test_device.py DIR`, DIR holding kernels.nesl's library
# built with --target=cuda).  Prints [PASS]/[FAIL] per test.
import resource
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402

try:
    import cupy as cp
except ImportError:
    print('[SKIP] device: no CuPy')
    sys.exit(0)
import kernels as k  # noqa: E402

failed = 0


def check(name, ok, detail=''):
    global failed
    print('[%s] device %s' % ('PASS' if ok else 'FAIL', name))
    if not ok:
        failed += 1
        print('    %s' % detail)


class OnlyDlpack:
    """An array that offers nothing but DLPack (as a framework's would)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


xs = cp.arange(5, dtype=cp.float64)
check('dotp of CuPy arrays', k.dotp(xs, xs) == 30.0)
check('dotp of DLPack arrays', k.dotp(OnlyDlpack(xs), OnlyDlpack(xs)) == 30.0)
ev = k.evens(cp.arange(4, dtype=cp.int32))
check('CuPy in, CuPy out', isinstance(ev, cp.ndarray) and ev.get().tolist() == [True, False, True, False], repr(ev))
ev = k.evens(cp.arange(4, dtype=cp.int64))
check('CuPy int64 converted on the device', ev.get().tolist() == [True, False, True, False])
rs = k.row_sums((cp.array([1, 2, 3], dtype=cp.int32), cp.array([2, 0, 1], dtype=cp.int64)))
check('(values, lengths) on the device', isinstance(rs, cp.ndarray) and rs.get().tolist() == [3, 0, 3], repr(rs))
d = k.split_sign(np.array([3, -1, 0, -5]), device=True)
check('device=True', all(isinstance(a, cp.ndarray) for a in d) and d[0].get().tolist() == [-1, -5], repr(d))
deep = k.deep([[[1, 2], []], [], [[3]]], device=True)
check('nested result on the device', isinstance(deep[0][0], cp.ndarray) and deep[2][0].get().tolist() == [30])
host = k.spmv([[(0, 1.0), (1, 2.0)], [], [(1, 3.0)]], np.array([1.0, 2.0]))
dev = k.spmv([[(0, 1.0), (1, 2.0)], [], [(1, 3.0)]], cp.array([1.0, 2.0]))
check('spmv: device equals host', dev.get().tolist() == host.tolist() == [5.0, 0.0, 6.0])
try:
    k.at(cp.array([1, 2, 3], dtype=cp.int32), 7)
    check('NeslError on the GPU', False, 'nothing raised')
except k.NeslError as e:
    check('NeslError on the GPU', 'subscript 7 is out of range' in e.message, e.message)
try:
    k.dotp(cp.zeros((2, 2)), xs)
    check('TypeError: a 2-D device array', False, 'nothing raised')
except TypeError:
    check('TypeError: a 2-D device array', True)
big = cp.ones(1 << 20, dtype=cp.float64)
check('a large device array', k.dotp(big, big) == float(1 << 20))
for i in range(100):
    k.dotp(xs, xs)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
used = cp.get_default_memory_pool().used_bytes()
for i in range(10000):
    k.dotp(xs, xs)
    k.evens(cp.arange(3, dtype=cp.int32))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
check('10000 device calls, memory flat (%d KB -> %d KB)' % (before, after),
      after - before < 8192 and cp.get_default_memory_pool().used_bytes() <= used + (1 << 20))
sys.exit(1 if failed else 0)
