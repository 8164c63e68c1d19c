# ---- the binding (nessie's rt/lib.py, the same for every library) ----
#
# A value of NESL type t crosses to the library as the leaves of its host
# components (rt/lib.c): a scalar as a C scalar, a sequence as a handle
# holding the flat components of its elements (a level of lengths per
# nested sequence, a buffer of values per base type).  Python values:
# int, float, bool, a one-character str or bytes for char; a NumPy array
# (or anything np.asarray takes) for a sequence of a base type, bytes or
# str for [char]; a list (or tuple) of such for a nested sequence, or the
# pair (values, lengths) for one nesting level; a tuple for a tuple or a
# datatype's fields.  Results come back the same way: nested sequences
# as lists of arrays, [char] as str.  On the CUDA target a CuPy array, or
# any array with __cuda_array_interface__ or a CUDA __dlpack__, is taken
# from the device without a host copy (copied on the device), and results
# come back as CuPy arrays when an argument was one or device=True.
import ctypes as _ct
import os as _os
import threading as _threading

import numpy as _np

_lib = _ct.CDLL(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'lib%s.so' % _NAME))


def _fn(name, restype, *argtypes):
    f = getattr(_lib, _NAME + name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_vp = _ct.c_void_p
_context_new = _fn('_context_new', _vp, _vp)
_context_free = _fn('_context_free', None, _vp)
_context_status = _fn('_context_status', _ct.c_int, _vp)
_context_error = _fn('_context_error', _ct.c_char_p, _vp)
_context_error_location = _fn('_context_error_location', _ct.c_char_p, _vp)
_seq_new = _fn('__seq_new', _ct.c_int, _vp, _ct.c_int, _ct.c_int64, _ct.POINTER(_vp), _ct.POINTER(_vp))
_seq_length = _fn('__seq_length', _ct.c_int64, _vp)
_seq_sizes = _fn('__seq_sizes', None, _vp, _ct.POINTER(_ct.c_int64))
_seq_read = _fn('__seq_read', _ct.c_int, _vp, _vp, _ct.POINTER(_vp))
_u8p = _ct.POINTER(_ct.c_uint8)
_seq_new_on = _fn('__seq_new_on', _ct.c_int, _vp, _ct.c_int, _ct.c_int64, _ct.POINTER(_vp), _u8p, _ct.POINTER(_vp))
_seq_read_on = _fn('__seq_read_on', _ct.c_int, _vp, _vp, _ct.POINTER(_vp), _u8p)
_seq_free = _fn('__seq_free', None, _vp)
_call = _fn('__call', _ct.c_int, _vp, _ct.c_int, _ct.POINTER(_vp), _ct.POINTER(_vp))

_DTYPES = {'int': _np.int32, 'float': _np.float64, 'bool': _np.bool_, 'char': _np.uint8}
_CTYPES = {'int': _ct.c_int32, 'float': _ct.c_double, 'bool': _ct.c_bool, 'char': _ct.c_char}


class NeslError(Exception):
    """A NESL run-time error: 'message' as the executable prints it,
    'location' the NESL source's FILE:LINE:COL."""

    def __init__(self, message, location):
        super().__init__(message)
        self.message = message
        self.location = location


class _Context:
    def __init__(self):
        self.ptr = _context_new(None)
        if not self.ptr:
            raise MemoryError('nessie: cannot make a context')
        if _context_status(self.ptr) != 0:
            # the runtime could not start (the CUDA target without a GPU):
            # each call raises, the process goes on
            msg = _context_error(self.ptr).decode('utf-8', 'replace')
            _context_free(self.ptr)
            self.ptr = None
            raise NeslError(msg, '')

    def __del__(self):
        if getattr(self, 'ptr', None) and _context_free:
            _context_free(self.ptr)
            self.ptr = None

    def check(self, rc):
        if rc == 0:
            return
        msg = _context_error(self.ptr).decode('utf-8', 'replace')
        loc = _context_error_location(self.ptr).decode('utf-8', 'replace')
        if rc == 3:
            raise MemoryError(msg)
        raise NeslError(msg, loc)


_local = _threading.local()


def _context():
    # one a thread: an error's text is its context's
    ctx = getattr(_local, 'ctx', None)
    if ctx is None:
        ctx = _local.ctx = _Context()
    return ctx


def _describe(t):
    k = t[0]
    if k == 'seq':
        return '[%s]' % _describe(t[1])
    if k == 'tuple':
        return '(%s, %s)' % (_describe(t[1]), _describe(t[2]))
    if k == 'data':
        return t[1]
    return k


# ---- device arrays (the CUDA target) ----

_TYPESTRS = {'int': ('<i4',), 'float': ('<f8',), 'bool': ('|b1',), 'char': ('|u1', '|i1'), 'lengths': ('<i8',)}
_DL_CODES = {'int': (0, 32), 'float': (2, 64), 'bool': (6, 8), 'char': (1, 8), 'lengths': (0, 64)}  # (code, bits)
_cupy_module = []


def _cupy():
    if not _cupy_module:
        try:
            import cupy
            _cupy_module.append(cupy)
        except ImportError:
            _cupy_module.append(None)
    return _cupy_module[0]


class _Dev:
    """A one-dimensional buffer in the GPU's memory: its address, its
    length and the object that keeps it alive."""

    def __init__(self, ptr, n, keep):
        self.ptr, self.n, self.keep = ptr, n, keep

    def __len__(self):
        return self.n


class _DLDevice(_ct.Structure):
    _fields_ = [('device_type', _ct.c_int32), ('device_id', _ct.c_int32)]


class _DLDataType(_ct.Structure):
    _fields_ = [('code', _ct.c_uint8), ('bits', _ct.c_uint8), ('lanes', _ct.c_uint16)]


class _DLTensor(_ct.Structure):
    _fields_ = [('data', _vp), ('device', _DLDevice), ('ndim', _ct.c_int32), ('dtype', _DLDataType),
                ('shape', _ct.POINTER(_ct.c_int64)), ('strides', _ct.POINTER(_ct.c_int64)),
                ('byte_offset', _ct.c_uint64)]


def _dlpack_view(v, k, where):
    """A CUDA __dlpack__ array as a _Dev (the capsule kept with it)."""
    capsule = v.__dlpack__()
    get = _ct.pythonapi.PyCapsule_GetPointer
    get.restype = _vp
    get.argtypes = [_ct.py_object, _ct.c_char_p]
    t = _DLTensor.from_address(get(capsule, b'dltensor'))
    code, bits = _DL_CODES[k]
    if t.ndim != 1 or t.dtype.code != code or t.dtype.bits != bits or t.dtype.lanes != 1:
        raise TypeError('%s: expected a one-dimensional device array of %s' % (where, k))
    if t.strides and t.strides[0] != 1 and t.shape[0] > 1:
        raise TypeError('%s: the device array is not contiguous' % where)
    return _Dev(t.data + t.byte_offset, t.shape[0], (v, capsule))


def _device_view(v, k, where):
    """'v' as a _Dev if it is an array in the GPU's memory (None if not)."""
    if _TARGET != 'cuda' or isinstance(v, (_np.ndarray, list, tuple, str, bytes)):
        return None
    if hasattr(v, '__cuda_array_interface__'):
        cai = v.__cuda_array_interface__
        if cai['typestr'] not in _TYPESTRS[k]:
            cp = _cupy()
            if cp is not None and isinstance(v, cp.ndarray) and k != 'lengths':
                return _device_view(v.astype(_DTYPES[k]), k, where)  # converted on the device
            raise TypeError('%s: expected a device array of %s, got %s' % (where, k, cai['typestr']))
        shape, strides = cai['shape'], cai.get('strides')
        if len(shape) != 1 or (strides is not None and strides[0] != int(cai['typestr'][2:]) and shape[0] > 1):
            raise TypeError('%s: expected a contiguous one-dimensional device array' % where)
        return _Dev(cai['data'][0], shape[0], v)
    if hasattr(v, '__dlpack__') and hasattr(v, '__dlpack_device__') and v.__dlpack_device__()[0] in (2, 13):
        return _dlpack_view(v, k, where)
    return None


# ---- Python values to components ----

def _scalar(t, v, where):
    k = t[0]
    if k == 'int':
        if isinstance(v, (bool, _np.bool_)) or not isinstance(v, (int, _np.integer)):
            raise TypeError('%s: expected an int, got %r' % (where, type(v).__name__))
        if not -2**31 <= int(v) < 2**31:
            raise TypeError('%s: %d does not fit in NESL\'s 32-bit int' % (where, v))
        return int(v)
    if k == 'float':
        if isinstance(v, (bool, _np.bool_)) or not isinstance(v, (int, float, _np.integer, _np.floating)):
            raise TypeError('%s: expected a float, got %r' % (where, type(v).__name__))
        return float(v)
    if k == 'bool':
        if not isinstance(v, (bool, _np.bool_)):
            raise TypeError('%s: expected a bool, got %r' % (where, type(v).__name__))
        return bool(v)
    if isinstance(v, str) and len(v) == 1 and ord(v) < 256:
        return v.encode('latin-1')
    if isinstance(v, (bytes, bytearray)) and len(v) == 1:
        return bytes(v)
    raise TypeError('%s: expected a char (a str or bytes of length 1), got %r' % (where, v))


def _base_array(k, v, where):
    """A sequence of base type 'k' as a NumPy array of its C type."""
    if k == 'char':
        if isinstance(v, str):
            try:
                v = v.encode('latin-1')
            except UnicodeEncodeError:
                raise TypeError('%s: NESL characters are 8-bit: %r' % (where, v)) from None
        if isinstance(v, (bytes, bytearray)):
            return _np.frombuffer(bytes(v), dtype=_np.uint8)
    if hasattr(v, '__cuda_array_interface__') and not isinstance(v, _np.ndarray):
        raise TypeError('%s: a device array needs a library of the CUDA target' % where)
    if isinstance(v, (str, bytes, dict, set)) or _np.isscalar(v):
        raise TypeError('%s: expected a sequence of %s, got %r' % (where, k, type(v).__name__))
    a = _np.asarray(v.get() if hasattr(v, 'get') and not isinstance(v, _np.ndarray) else v)
    if a.ndim != 1:
        raise TypeError('%s: expected a one-dimensional array of %s, got shape %s' % (where, k, a.shape))
    kind = a.dtype.kind
    if len(a) == 0:
        return _np.zeros(0, dtype=_DTYPES[k])
    ok = {'int': 'iu', 'float': 'iuf', 'bool': 'b', 'char': 'iuS'}[k]
    if kind not in ok:
        raise TypeError('%s: expected a sequence of %s, got an array of %s' % (where, k, a.dtype))
    if k == 'int' and kind in 'iu' and a.size and (a.min() < -2**31 or a.max() >= 2**31):
        raise TypeError('%s: a value does not fit in NESL\'s 32-bit int' % where)
    if k == 'char' and kind == 'S':
        a = _np.frombuffer(b''.join(a.tolist()), dtype=_np.uint8)
    return _np.ascontiguousarray(a, dtype=_DTYPES[k])


def _elements(t, seq, where):
    """The elements of a Python sequence value of NESL type [t], as a list."""
    if isinstance(seq, (str, bytes)) or _np.isscalar(seq):
        raise TypeError('%s: expected a sequence of %s, got %r' % (where, _describe(t), type(seq).__name__))
    try:
        return list(seq)
    except TypeError:
        raise TypeError('%s: expected a sequence of %s, got %r' % (where, _describe(t), type(seq).__name__)) from None


def _is_pair(s):
    return isinstance(s, tuple) and len(s) == 2


def _seq_len(t, s, where):
    """The length of Python value 's' of NESL type [t], in any form."""
    if t[0] == 'data':
        return _seq_len(t[2], s, where)
    if _is_pair(s) and t[0] == 'seq':      # (values, lengths)
        return len(s[1])
    if _is_pair(s) and t[0] == 'tuple':    # (first fields, second fields)
        return _seq_len(t[1], s[0], where)
    if isinstance(s, _Dev) or (t[0] in _DTYPES and isinstance(s, (str, bytes))):
        return len(s)
    return len(_elements(t, s, where)) if not hasattr(s, 'shape') else len(s)


def _vcomps(t, seqs, where, out):
    """V(t) of the elements of the sequences 'seqs' (a list of Python
    sequences of type [t], concatenated), appended to 'out'.  Besides a
    list of its elements, a sequence may come flat: [[u]] as the pair
    (values, lengths), values a sequence of type [u] (the elements one
    after the other); [(a, b)] as the pair (first fields, second fields),
    a structure of arrays."""
    k = t[0]
    if k in _DTYPES:
        arrays = [_base_array(k, s, where) for s in seqs]
        if not arrays:
            out.append(_np.zeros(0, dtype=_DTYPES[k]))
        else:
            out.append(_np.concatenate(arrays) if len(arrays) != 1 else arrays[0])
        return
    if k == 'seq':
        # a level of lengths, then the elements of all of them
        lengths, inner = [], []
        for s in seqs:
            if _is_pair(s):
                values, ls = s
                ls = _np.ascontiguousarray(ls, dtype=_np.int64)
                if ls.ndim != 1 or (len(ls) and ls.min() < 0):
                    raise TypeError('%s: the lengths must be a one-dimensional array of counts' % where)
                have = _seq_len(t[1], values, where)
                if int(ls.sum()) != have:
                    raise TypeError('%s: the lengths add up to %d, but there are %d values'
                                    % (where, int(ls.sum()), have))
                lengths.append(ls)
                inner.append(values)  # the elements' concatenation, as one sequence
            else:
                es = _elements(t[1], s, where)
                lengths.append(_np.array([_seq_len(t[1], e, where) for e in es], dtype=_np.int64))
                inner.extend(es)
        out.append(_np.concatenate(lengths) if lengths else _np.zeros(0, dtype=_np.int64))
        _vcomps(t[1], inner, where, out)
        return
    if k == 'data':
        _vcomps(t[2], seqs, where, out)
        return
    # a tuple: each field's sequence
    def field(e, i):
        if not isinstance(e, tuple) or len(e) != 2:
            raise TypeError('%s: expected a pair for %s, got %r' % (where, _describe(t), e))
        return e[i]
    fst, snd = [], []
    for s in seqs:
        if _is_pair(s):  # a structure of arrays
            if _seq_len(t[1], s[0], where) != _seq_len(t[2], s[1], where):
                raise TypeError('%s: the fields of %s have different lengths' % (where, _describe(t)))
            fst.append(s[0])
            snd.append(s[1])
            continue
        es = _elements(t, s, where)
        fst.append([field(e, 0) for e in es])
        snd.append([field(e, 1) for e in es])
    _vcomps(t[1], fst, where, out)
    _vcomps(t[2], snd, where, out)


def _leaves(t, v, where, out):
    """The leaves of H(t) of Python value 'v', appended to 'out' as
    ('scalar', kind, value) or ('seq', type number, n, components)."""
    k = t[0]
    if k == 'tuple':
        if isinstance(v, list) or not hasattr(v, '__len__') or len(v) != 2:
            if isinstance(v, tuple) and len(v) > 2:  # (a, b, c) for (a, (b, c))
                v = (v[0], tuple(v[1:]))
            else:
                raise TypeError('%s: expected a tuple for %s, got %r' % (where, _describe(t), type(v).__name__))
        _leaves(t[1], v[0], where, out)
        _leaves(t[2], v[1], where, out)
    elif k == 'data':
        _leaves(t[2], v, where, out)
    elif k == 'seq':
        comps = []
        dev = _device_view(v, t[1][0], where) if t[1][0] in _DTYPES else None
        pair = isinstance(v, tuple) and len(v) == 2 and t[1][0] == 'seq' and t[1][1][0] in _DTYPES
        dev_pair = _device_view(v[0], t[1][1][0], where) if pair else None
        if dev is not None:
            comps.append(dev)
            n = len(dev)
        elif dev_pair is not None:
            # (values, lengths) with the values on the device
            lengths = _device_view(v[1], 'lengths', where)
            if lengths is None:
                lengths = _np.ascontiguousarray(v[1], dtype=_np.int64)
            comps = [lengths, dev_pair]
            n = len(lengths)
        elif t[1][0] in _DTYPES:
            comps.append(_base_array(t[1][0], v, where))
            n = len(comps[0])
        else:
            _vcomps(t[1], [v], where, comps)
            n = len(comps[0])
        out.append(('seq', t[2], n, comps))
    else:
        out.append(('scalar', k, _scalar(t, v, where)))


def _make_seq(ctx, number, n, comps):
    bufs = (_vp * max(len(comps), 1))(*[c.ptr if isinstance(c, _Dev) else c.ctypes.data for c in comps])
    h = _vp()
    if any(isinstance(c, _Dev) for c in comps):
        flags = (_ct.c_uint8 * len(comps))(*[isinstance(c, _Dev) for c in comps])
        ctx.check(_seq_new_on(ctx.ptr, number, n, bufs, flags, _ct.byref(h)))
    else:
        ctx.check(_seq_new(ctx.ptr, number, n, bufs, _ct.byref(h)))
    return h


# ---- components to Python values ----

def _unflatten(t, comps, at, n):
    """n values of type t from the components comps[at...]: a list (or
    an array for a base type) and the next component's index."""
    k = t[0]
    if k in _DTYPES:
        return comps[at][:n], at + 1
    if k == 'seq':
        lengths = comps[at]
        total = int(lengths.sum())
        inner, nxt = _unflatten(t[1], comps, at + 1, total)
        cuts = _np.cumsum(lengths)[:-1] if len(lengths) else []
        cp = _cupy_module[0] if _cupy_module else None
        if cp is not None and isinstance(inner, cp.ndarray):
            parts = [p.copy() for p in cp.split(inner, cuts.tolist())] if len(lengths) else []
        elif isinstance(inner, _np.ndarray):
            parts = _np.split(inner, cuts) if len(lengths) else []
            if t[1][0] == 'char':
                parts = [p.tobytes().decode('latin-1') for p in parts]
            else:
                parts = [p.copy() for p in parts]
        else:
            bounds = [0] + [int(c) for c in cuts] + [total]
            parts = [inner[bounds[i]:bounds[i + 1]] for i in range(len(lengths))]
        return parts, nxt
    if k == 'data':
        return _unflatten(t[2], comps, at, n)
    a, at = _unflatten(t[1], comps, at, n)
    b, at = _unflatten(t[2], comps, at, n)
    return [(_scalar_out(t[1], a[i]), _scalar_out(t[2], b[i])) for i in range(n)], at


def _scalar_out(t, v):
    if t[0] == 'int':
        return int(v)
    if t[0] == 'float':
        return float(v)
    if t[0] == 'bool':
        return bool(v)
    if t[0] == 'char':
        return chr(int(v))
    return v


def _read_seq(ctx, t, h, device=False):
    comps_t = _SEQS[t[2]]
    sizes = (_ct.c_int64 * max(len(comps_t), 1))()
    _seq_sizes(h, sizes)
    # on the device: the values (CuPy), never the lengths (the split is the host's) nor a string
    cp = _cupy() if device and t[1][0] != 'char' else None
    if device and cp is None and t[1][0] != 'char':
        raise TypeError('device=True needs CuPy')
    on = [cp is not None and kind == 'vec' for kind, _, _ in comps_t]
    arrays = [(cp if on[i] else _np).empty(sizes[i], dtype=_np.int64 if kind == 'segdes' else _DTYPES[base])
              for i, (kind, base, _) in enumerate(comps_t)]
    bufs = (_vp * max(len(arrays), 1))(*[a.data.ptr if on[i] else a.ctypes.data for i, a in enumerate(arrays)])
    if any(on):
        ctx.check(_seq_read_on(ctx.ptr, h, bufs, (_ct.c_uint8 * len(on))(*on)))
    else:
        ctx.check(_seq_read(ctx.ptr, h, bufs))
    n = _seq_length(h)
    if t[1][0] == 'char':
        return arrays[0].tobytes().decode('latin-1')
    value, _ = _unflatten(t[1], arrays, 0, n)
    return value


def _result(t, leaves, at, ctx, device):
    k = t[0]
    if k == 'tuple':
        a, at = _result(t[1], leaves, at, ctx, device)
        b, at = _result(t[2], leaves, at, ctx, device)
        return (a, b), at
    if k == 'data':
        return _result(t[2], leaves, at, ctx, device)
    if k == 'seq':
        return _read_seq(ctx, t, leaves[at].value, device), at + 1
    v = leaves[at].value
    if k == 'char':
        v = v.decode('latin-1')
    return v, at + 1


def _flat_tuple(v):
    """(a, (b, c)) as (a, b, c): NESL's tuples nest to the right."""
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], tuple) and len(v[1]) == 2:
        return (v[0],) + _flat_tuple(v[1])
    return v


def _invoke(name, args, device=None):
    number, type_text, arg_t, result_t, params = _FUNCS[name]
    if device and _TARGET != 'cuda':
        raise TypeError('%s: device=True needs a library of the CUDA target' % name)
    value = args[0] if len(args) == 1 else tuple(args)
    leaves = []
    _leaves(arg_t, value, '%s(%s)' % (name, ', '.join(params)), leaves)
    ctx = _context()
    made, cargs = [], []
    try:
        for leaf in leaves:
            if leaf[0] == 'scalar':
                c = _CTYPES[leaf[1]](leaf[2])
                made.append(c)
                cargs.append(_ct.cast(_ct.pointer(c), _vp))
            else:
                h = _make_seq(ctx, leaf[1], leaf[2], leaf[3])
                made.append(h)
                cargs.append(h)
        result_leaves = []
        _result_places(result_t, result_leaves)
        places = [_ct.cast(_ct.pointer(p), _vp) for p in result_leaves]
        a = (_vp * max(len(cargs), 1))(*cargs)
        r = (_vp * max(len(places), 1))(*places)
        ctx.check(_call(ctx.ptr, number, a, r))
        try:
            if device is None:  # CuPy arrays back when one came in
                device = any(leaf[0] == 'seq' and any(isinstance(c, _Dev) for c in leaf[3]) for leaf in leaves)
            value, _ = _result(result_t, result_leaves, 0, ctx, device)
        finally:
            _free_results(result_t, result_leaves, 0)
        return _flat_tuple(value)
    finally:
        for m in made:
            if isinstance(m, _vp) and m.value:
                _seq_free(m)


def _result_places(t, out):
    k = t[0]
    if k == 'tuple':
        _result_places(t[1], out)
        _result_places(t[2], out)
    elif k == 'data':
        _result_places(t[2], out)
    elif k == 'seq':
        out.append(_vp())
    else:
        out.append(_CTYPES[k]())


def _free_results(t, places, at):
    for p in places:
        if isinstance(p, _vp) and p.value:
            _seq_free(p)
            p.value = None


def _make(name):
    number, type_text, arg_t, result_t, params = _FUNCS[name]

    def f(*args, device=None):
        return _invoke(name, args, device)
    f.__name__ = name
    f.__doc__ = '%s : %s (NESL)\nArguments: %s' % (name, type_text, ', '.join(params))
    return f


for _name in _FUNCS:
    globals()[_name] = _make(_name)

__all__ = list(_FUNCS) + ['NeslError']
