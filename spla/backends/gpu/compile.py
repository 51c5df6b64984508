"""The GPU kernels' names and their compilation: NumPy dtypes as C types, monoids and operators as
C++ functors, the NVRTC name expressions of every template instantiation, and the CuPy modules that
compile them on first use.

The CUDA source lives in ``spla/kernels/spmv.cuh`` (SpMV), ``spla/kernels/bits.cuh`` (bit words) and
``spla/kernels/frontier.cuh`` (sparse frontiers) and ``spla/kernels/spgemm.cuh`` (the SpGEMM of mxm).  Kernels are C++ templates over (ADD monoid, MUL
operator, domain T, index type I, pattern-or-valued); this module compiles them at run time with
CuPy's NVRTC path (``cupy.RawModule(..., name_expressions=...)``), each spmv kernel of an (ADD, MUL,
T, I, pattern, device) as a module of its own when first used, cached for the life of the process
(CuPy also keeps the compiled binaries in its on-disk kernel cache).  Everything but the loading
works without CuPy (``tests/test_kernels_compile.py`` uses the names on machines with no GPU).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
from pathlib import Path

import numpy as np

from ... import semirings as _sr
from ...errors import NoGPUError, UnknownNameError
from .. import cuda_source
from ..names import KERNELS
from .user_functors import ADD_PREFIX, functor
from .user_functors import code as _user_code

#: what every user functor's name starts with (user_functors.py)
USER_PREFIX = ADD_PREFIX[:len("spla_user_")]

log = logging.getLogger("spla")

#: Kernels that reduce with ADD's atomics (the others reduce in registers).
ATOMIC_KERNELS = ("scCOOC", "push")
KERNEL_DIR = Path(__file__).resolve().parent.parent.parent / "kernels"
SPMV_SOURCE = KERNEL_DIR / "spmv.cuh"
BITS_SOURCE = KERNEL_DIR / "bits.cuh"
FRONTIER_SOURCE = KERNEL_DIR / "frontier.cuh"
SPGEMM_SOURCE = KERNEL_DIR / "spgemm.cuh"
BLOCK = 256  # threads per block of every launch (a multiple of 32; SPLA_BLOCK in spmv.cuh)
NVRTC_OPTIONS = ("-std=c++17", f"-DSPLA_BLOCK={BLOCK}")

#: Extra ``-D`` macros of the spmv kernels compiled in this thread or task (:func:`defines`).
_DEFINES = contextvars.ContextVar("spla.gpu.defines", default=())
#: ``current_defines()``: the extra options :func:`defines` has in force (a tuple, empty by default).
current_defines = _DEFINES.get


@contextlib.contextmanager
def defines(**macros):
    """Compile the spmv kernels used inside the block with extra preprocessor macros
    (``with defines(SPLA_GROUP_SHORT=0): ...``): the source's compile-time switches, which probes
    compare.  Modules compiled with other macros are kept apart, so the block never reuses them."""
    extra = tuple(f"-D{name}={value}" for name, value in sorted(macros.items()))
    token = _DEFINES.set(_DEFINES.get() + extra)
    try:
        yield
    finally:
        _DEFINES.reset(token)

# ---------------------------------------------------------------------------------------------
# Names: NumPy dtype -> C type, monoid/operator name -> C++ functor, and where each is defined.
# ---------------------------------------------------------------------------------------------
C_TYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}
INDEX_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}

_BOOL = (np.dtype(np.bool_),)
_INTS = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_ALL = _BOOL + _INTS + _FLOATS

# monoid name -> (functor, domains the functor and its scCOOC atomic are written for)
ADD_FUNCTORS = {
    "plus": ("spla_add_plus", _INTS + _FLOATS),
    "min": ("spla_add_min", _ALL),
    "max": ("spla_add_max", _ALL),
    "lor": ("spla_add_lor", _BOOL),
    "bor": ("spla_add_bor", _BOOL + _INTS),
    "any": ("spla_add_any", _ALL),
}
# operator name -> (functor, domains)
MUL_FUNCTORS = {
    "times": ("spla_mul_times", _ALL),
    "plus": ("spla_mul_plus", _ALL),
    "first": ("spla_mul_first", _ALL),
    "second": ("spla_mul_second", _ALL),
    "pair": ("spla_mul_pair", _ALL),
    "land": ("spla_mul_land", _ALL),
    "min": ("spla_mul_min", _ALL),
    "max": ("spla_mul_max", _ALL),
    "band": ("spla_mul_band", _BOOL + _INTS),
}
ACCUM_CODES = {None: 0, "plus": 1, "min": 2, "max": 3, "lor": 4, "bor": 5, "first": 6, "second": 7}
#: monoid -> the accum that is the same operation: an atomic kernel may ADD straight into out then
SAME_ACCUM = {"plus": "plus", "min": "min", "max": "max", "lor": "lor", "bor": "bor"}
FRESH, REPLACE = 1, 2
MASK_NONE, MASK_MASK, MASK_COMPLEMENT = 0, 1, 2


def atomic_used(add, dtype):
    """How scCOOC performs ``t[j] = ADD(t[j], v)`` for this monoid (a name, or a user Monoid) and
    domain (for reasons/docs)."""
    if not isinstance(add, str):
        if add.atomic and dtype in add.atomic:
            return f"the atomic given for {add.name} on {dtype}"
        return f"an atomicCAS loop over {add.name}'s C++ expression (spla_atomic_cas)"
    if dtype == np.bool_:
        return "atomicOr/atomicAnd on the containing 32-bit word"
    if add == "plus":
        return "atomicAdd (unsigned long long, two's complement)" if dtype == np.int64 else "atomicAdd"
    if add in ("min", "max", "any"):
        op = "atomicMax" if add in ("max", "any") else "atomicMin"
        return f"an atomicCAS loop ({op} has no {dtype} version)" if dtype.kind == "f" else op
    return "atomicOr"


def functor_keys(sr, swap=False):
    """(ADD, MUL) as :func:`name_expressions` takes them: a built-in's name, or a user part's functor
    name (``spla_user_add_<name>``, ``spla_user_mul_<name>``, ``spla_user_mul_swap_<name>``); swap: the
    MUL(a, x) of mxv."""
    mul = sr.mul.swapped() if swap else sr.mul
    return (functor(sr.add) if sr.add.user else sr.add.name), (functor(mul) if mul.user else mul.name)


def user_code(sr, swap=False):
    """The C++ of ``sr``'s user-defined parts, appended to the kernel source ("" for built-ins)."""
    return _user_code(sr.add, sr.mul.swapped() if swap else sr.mul)


def _add_functor(add):
    return add if add.startswith(USER_PREFIX) else ADD_FUNCTORS[add][0]


def _mul_functor(mul):
    return mul if mul.startswith(USER_PREFIX) else MUL_FUNCTORS[mul][0]


def swap_op(mul_name, swap):
    """The operator computing MUL(a, x) from MUL(x, a): first <-> second; the others commute."""
    if swap and mul_name == "first":
        return "second"
    if swap and mul_name == "second":
        return "first"
    return mul_name


def supports(kernel, semiring, dtype):
    """Whether GPU ``kernel`` can run ``semiring`` on domain ``dtype``: ``(ok, reason)``.

    Every kernel runs every (monoid, operator, dtype) that has a C++ functor: scCOOC uses
    native atomics where they exist and CAS-based ones elsewhere (float min/max, bool or/and,
    int64 add through the unsigned 64-bit atomicAdd).  ``False`` only for unknown kernel
    names, dtypes without a C type (float16, complex, ...) and monoids/operators that have no
    functor in ``spla/kernels/spmv.cuh`` (a user-defined Semiring).
    """
    if kernel not in KERNELS:
        return False, f"unknown GPU kernel {kernel!r}; the GPU kernels are {', '.join(KERNELS)}"
    try:
        sr = _sr.get(semiring)
    except UnknownNameError as e:
        return False, str(e)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return False, f"{dtype!r} is not a dtype"
    if dtype not in C_TYPES:
        return False, (f"the GPU kernels have no C type for {dtype}; "
                       f"they run {', '.join(str(d) for d in C_TYPES)}")
    add, mul = sr.add.name, sr.mul.name
    for part, kind, table in ((sr.add, "monoid", ADD_FUNCTORS), (sr.mul, "operator", MUL_FUNCTORS)):
        if part.user:
            if part.cuda is None:
                return False, (f"the user-defined {kind} {part.name!r} has no CUDA code: register it with cuda= "
                               "to run it on the GPU")
            if dtype not in part.dtypes:
                return False, f"the user-defined {kind} {part.name} is not defined on {dtype}"
        elif part.name not in table:
            return False, (f"{kind} {part.name!r} has no CUDA functor (add one to spla/kernels/spmv.cuh and "
                           f"{'ADD' if kind == 'monoid' else 'MUL'}_FUNCTORS)")
        elif dtype not in table[part.name][1]:
            return False, f"the CUDA {kind} {part.name} is not defined on {dtype}"
    if kernel in ATOMIC_KERNELS:
        return True, f"{kernel} reduces with {atomic_used(sr.add if sr.add.user else add, dtype)}"
    return True, f"{kernel} reduces in registers, no atomics"


@functools.lru_cache(maxsize=4096)
def supports_cached(kernel, sr, dtype):
    return supports(kernel, sr, dtype)


# ---------------------------------------------------------------------------------------------
# Template instantiation names
# ---------------------------------------------------------------------------------------------
def name_expressions(add, mul, dtype, index_dtype, pattern):
    """NVRTC name expressions of the module for one (ADD, MUL, T, I, pattern).

    ``add``/``mul``: monoid/operator names (after :func:`swap_op`), or user functors' names
    (:func:`functor_keys`; the module's source then ends with :func:`user_code`).  Returns a dict
    ``{"scCSC", "scCSC_tiles", "scCSC_tiles_listed", "listed_chunks", "veCSC", "veCSC_block", "veCSC_rows",
    "veCSC_rows_ordered", "veCSC_rows_items", "veCSC_long_chunks", "veCSC_long_finish", "scCOOC", "push",
    "push_long_chunks", "merge", "mask_worklist", "input_worklist"} -> "spla_...<...>"``, and "veCSC_windows"
    for plus over float32 with MUL(x, a) = x on a pattern A (:func:`windows_semiring`).
    """
    a, m = _add_functor(add), _mul_functor(mul)
    t = C_TYPES[np.dtype(dtype)]
    i = INDEX_TYPES[np.dtype(index_dtype)]
    p = "true" if pattern else "false"
    args = f"<{a}, {m}, {t}, {i}, {p}>"
    return {
        "scCSC": f"spla_sccsc{args}",
        "veCSC": f"spla_vecsc{args}",
        "veCSC_block": f"spla_vecsc_block{args}",
        "scCSC_tiles": f"spla_sccsc_tiles<{a}, {m}, {t}, {i}, {p}, false>",
        "scCSC_tiles_listed": f"spla_sccsc_tiles<{a}, {m}, {t}, {i}, {p}, true>",
        "listed_chunks": f"spla_listed_chunks{args}",
        "veCSC_rows": f"spla_vecsc_rows<{a}, {m}, {t}, {i}, {p}, false>",
        "veCSC_rows_ordered": f"spla_vecsc_rows<{a}, {m}, {t}, {i}, {p}, true>",
        "veCSC_rows_items": f"spla_vecsc_rows_items{args}",
        "veCSC_long_chunks": f"spla_vecsc_long_chunks{args}",
        "veCSC_long_finish": f"spla_vecsc_long_finish<{a}, {t}, {i}>",
        "scCOOC": f"spla_sccooc{args}",
        "push": f"spla_push{args}",
        "push_long_chunks": f"spla_push_long_chunks{args}",
        "merge": f"spla_merge<{a}, {t}>",
        "mask_worklist": f"spla_mask_worklist<{a}, {t}, {i}>",
        "input_worklist": f"spla_input_worklist<{a}, {t}, {i}>",
        # one instantiation per index type, named in every float32 plus_times/plus_first pattern module
        **({"veCSC_windows": f"spla_vecsc_windows<{i}>", "windows_scan": "spla_windows_scan<float>"}
           if windows_semiring(add, mul, dtype, pattern) else {}),
    }


def windows_semiring(add, mul, dtype, pattern):
    """Whether spla_vecsc_windows computes MUL's product: plus over float32, MUL(x, a) = x on a pattern A."""
    return add == "plus" and mul in ("times", "first") and np.dtype(dtype) == np.float32 and bool(pattern)


def all_name_expressions(registered_only=True):
    """Every name expression the backend can request (sorted, unique).

    registered_only: the registered semirings on their domains, with MUL(a, x) variants
    (first <-> second) for mxv; False: every (monoid, operator, dtype) :func:`supports` accepts.
    """
    combos = set()
    if registered_only:
        for name in _sr.names():
            sr = _sr.get(name)
            if sr.add.user or sr.mul.user:  # their functors exist only in their generated code
                continue
            for dt in sr.dtypes:
                if supports("scCSC", sr, dt)[0]:
                    for swap in (False, True):
                        combos.add((sr.add.name, swap_op(sr.mul.name, swap), np.dtype(dt)))
    else:
        for add, (_, adts) in ADD_FUNCTORS.items():
            for mul, (_, mdts) in MUL_FUNCTORS.items():
                for dt in adts:
                    if dt in mdts:
                        combos.add((add, mul, dt))
    names = set()
    for add, mul, dt in combos:
        for idx in INDEX_TYPES:
            for pattern in (False, True):
                names.update(name_expressions(add, mul, dt, idx, pattern).values())
    names.add("spla_weighted_rowsum<true>")
    names.add("spla_weighted_rowsum<false>")
    return sorted(names)


def frontier_name_expressions(qtype, itype):
    """{key: name expression} of the frontier kernels for one (flat index, matrix index) type pair."""
    q, i = INDEX_TYPES[np.dtype(qtype)], INDEX_TYPES[np.dtype(itype)]
    names = {"push": f"spla_frontier_push<{q}, {i}>"}
    for divide in (False, True):
        for feed in (False, True):
            names[("pull", divide, feed)] = (f"spla_frontier_pull<{q}, {i}, {str(divide).lower()}, "
                                             f"{str(feed).lower()}>")
    return names


@functools.lru_cache(maxsize=None)
def frontier_module(qtype, itype, device_id):
    cp = load_cupy()
    names = frontier_name_expressions(qtype, itype)
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=source(str(FRONTIER_SOURCE)), options=NVRTC_OPTIONS,
                           name_expressions=list(names.values()))
        return {key: mod.get_function(expr) for key, expr in names.items()}



# ---------------------------------------------------------------------------------------------
# Loading (CuPy)
# ---------------------------------------------------------------------------------------------
def load_cupy():
    try:
        import cupy
    except ImportError:
        raise NoGPUError("the GPU backend needs CuPy: install spla[cuda12] or spla[cuda13], "
                         "or use device='cpu'") from None
    return cupy


@functools.lru_cache(maxsize=None)
def source(path):
    """The kernel source ``path`` with its local includes inlined: CuPy keys its compiled modules by
    the source text, so every header's text must be in it."""
    return cuda_source.load(path)


class SpmvKernels:
    """{kernel key -> cupy.RawKernel} for one (ADD, MUL, T, I, pattern) on one device, each kernel
    compiled when first used, as a module of its own.

    A product uses two or three of the module's kernels, and NVRTC's time grows with the kernels it
    compiles at once, which a first run on a machine, with CuPy's disk cache empty, pays for every
    (semiring, dtype) it meets (docs/benchmarks.md, "Where a first run's time went";
    benchmarks/probes/probe_cold_start.py).
    """

    def __init__(self, add, mul, dtype_str, index_str, pattern, device_id, options=NVRTC_OPTIONS, code=""):
        self.names = name_expressions(add, mul, np.dtype(dtype_str), np.dtype(index_str), pattern)
        self.device_id = device_id
        self.options = options
        self.code = code
        self.funcs = {}

    def __getitem__(self, key):
        fn = self.funcs.get(key)
        if fn is None:
            cp = load_cupy()
            expr = self.names[key]
            with cp.cuda.Device(self.device_id):
                mod = cp.RawModule(code=source(str(SPMV_SOURCE)) + self.code, options=self.options,
                                   name_expressions=[expr])
                fn = self.funcs[key] = mod.get_function(expr)
            log.debug("gpu: loaded spmv kernel %s", expr)
        return fn


@functools.lru_cache(maxsize=None)
def spmv_module(add, mul, dtype_str, index_str, pattern, device_id, extra=(), code=""):
    """The kernels of one (ADD, MUL, T, I, pattern) on one device (:class:`SpmvKernels`), compiled with
    the extra options ``extra`` (a product passes :func:`current_defines`) from the kernel source
    followed by ``code`` (:func:`user_code`): the text is part of the key, so a user's monoid or
    operator registered again with other C++ is compiled anew."""
    return SpmvKernels(add, mul, dtype_str, index_str, pattern, device_id, NVRTC_OPTIONS + extra, code)


@functools.lru_cache(maxsize=None)
def bits_module(device_id):
    cp = load_cupy()
    names = {True: "spla_weighted_rowsum<true>", False: "spla_weighted_rowsum<false>"}
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=source(str(BITS_SOURCE)), options=NVRTC_OPTIONS,
                           name_expressions=list(names.values()))
        return {w: mod.get_function(expr) for w, expr in names.items()}


#: Body of the popcount ElementwiseKernel (T: a 4- or 8-byte integer; y: int).
POPCOUNT_OP = "y = (sizeof(T) == 8) ? __popcll((unsigned long long)x) : __popc((unsigned int)x)"


@functools.lru_cache(maxsize=None)
def popcount_kernel():
    cp = load_cupy()
    return cp.ElementwiseKernel("T x", "int32 y", POPCOUNT_OP, "spla_popcount")
