# tests/library/test_kernels.py: the Python binding of kernels.nesl
# (tests/suites/library.sh builds it into DIR and runs this as
# `python3 test_kernels.py DIR`).  Prints [PASS]/[FAIL] per test.
import resource
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import kernels as k  # noqa: E402

failed = 0


def check(name, got, want):
    global failed
    same = got == want
    if isinstance(same, np.ndarray):
        same = same.all()
    if same and type(got) is type(want):
        print('[PASS] python %s' % name)
    else:
        failed += 1
        print('[FAIL] python %s\n    got  %r\n    want %r' % (name, got, want))


def raises(name, exc, f, *args):
    global failed
    try:
        f(*args)
    except exc as e:
        print('[PASS] python %s' % name)
        return e
    except Exception as e:  # noqa: BLE001
        failed += 1
        print('[FAIL] python %s: %r' % (name, e))
        return None
    failed += 1
    print('[FAIL] python %s: nothing raised' % name)
    return None


def lists(xs):
    return [a.tolist() if isinstance(a, np.ndarray) else lists(a) if isinstance(a, list) else a for a in xs]


check('scalar int', k.add1(41), 42)
check('scalar float', k.halve(3.0), 1.5)
check('scalar bool', k.flip(True), False)
check('scalar char', k.next_char('a'), 'b')
check('dotp', k.dotp(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])), 32.0)
check('dotp of lists', k.dotp([1, 2], [3, 4]), 11.0)
check('dotp empty', k.dotp(np.zeros(0), np.zeros(0)), 0.0)
check('[bool] result', k.evens(np.arange(5, dtype=np.int32)).tolist(), [True, False, True, False, True])
check('[char] str', k.shout('a b c'), 'a_b_c')
check('[char] bytes', k.shout(b'x y'), 'x_y')
check('[[int]] lists', k.row_sums([np.array([1, 2]), np.array([], dtype=np.int32), np.array([3])]).tolist(), [3, 0, 3])
check('[[int]] (values, lengths)', k.row_sums((np.array([1, 2, 3]), np.array([2, 0, 1]))).tolist(), [3, 0, 3])
check('[[int]] empty', k.row_sums([]).tolist(), [])
deep = [[[1, 2], []], [], [[3]]]
check('[[[int]]] deep', lists(k.deep(deep)), [[[10, 20], []], [], [[30]]])
neg, pos = k.split_sign(np.array([3, -1, 0, -5]))
check('tuple of [int] result', (neg.tolist(), pos.tolist()), ([-1, -5], [3, 0]))
check('three arguments, tuple result', k.three(2, 0.5, False), (2.5, -2))
check('[(int, float)] result', k.pairs(3), [(0, 0.0), (1, 0.5), (2, 1.0)])
check('datatype argument', k.norm((3.0, 4.0)), 5.0)
check('[[char]] result', k.words(3), ['w0', 'w1', 'w2'])
check('monomorphic wrapper of a polymorphic function', k.twice([1, 2]).tolist(), [2, 4])
check('instance poly_int', k.poly_int([1, 2]).tolist(), [2, 4])
check('instance poly_float', k.poly_float(np.array([0.25, 1.5])).tolist(), [0.5, 3.0])
check('instance swap_int_seq_char', k.swap_int_seq_char(7, 'ab'), ('ab', 7))
check('not exported: polymorphic, no instance', hasattr(k, 'pick') or hasattr(k, 'poly'), False)
rows = [[(0, 1.0), (1, 2.0)], [], [(1, 3.0)]]
check('spmv over [[(int, float)]]', k.spmv(rows, np.array([1.0, 2.0])).tolist(), [5.0, 0.0, 6.0])
# the flat forms: CSR's arrays as they are, ((columns, values), row lengths)
csr = ((np.array([0, 1, 1], dtype=np.int32), np.array([1.0, 2.0, 3.0])), np.array([2, 0, 1]))
check('spmv of CSR arrays', k.spmv(csr, np.array([1.0, 2.0])).tolist(), [5.0, 0.0, 6.0])
check('[[[int]]] of (values, lengths) elements',
      lists(k.deep([(np.array([1, 2]), [2, 0]), ([], []), ([3], [1])])), [[[10, 20], []], [], [[30]]])
raises('TypeError: lengths that do not add up', TypeError, k.row_sums, (np.array([1, 2]), np.array([1])))
raises('TypeError: fields of different lengths', TypeError, k.spmv, (([0, 1], [1.0]), [2]), [1.0, 2.0])

e = raises('run-time error raises NeslError', k.NeslError, k.at, np.array([1, 2, 3]), 7)
check('error message', e is not None and 'subscript 7 is out of range' in e.message, True)
# the location is the subscript's, inside 'at' (kernels.nesl's line of it)
src = open(__file__.replace('test_kernels.py', 'kernels.nesl')).read().split('\n')
line = next(i + 1 for i, text in enumerate(src) if text.startswith('function at('))
col = src[line - 1].index('[i]') + 1  # the subscript's bracket
check('error location', e is not None and e.location.endswith('kernels.nesl:%d:%d' % (line, col)), True)
raises('division by zero', k.NeslError, k.divide, 1, 0)
check('a call after an error', k.at([1, 2, 3], 1), 2)
raises('TypeError: str for int', TypeError, k.add1, 'x')
raises('TypeError: float array for [int]', TypeError, k.row_sums, [np.array([1.5])])
raises('TypeError: wrong arity', TypeError, k.dotp, [1.0])
raises('TypeError: int out of range', TypeError, k.add1, 2**40)

# many calls: the handles freed, memory flat
for i in range(1000):
    k.dotp([1.0, 2.0], [3.0, 4.0])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
xs = np.arange(100, dtype=np.float64)
for i in range(10000):
    k.dotp(xs, xs)
    k.evens([1, 2, 3])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
check('10000 calls, memory flat (%d KB -> %d KB)' % (before, after), after - before < 4096, True)
sys.exit(1 if failed else 0)
