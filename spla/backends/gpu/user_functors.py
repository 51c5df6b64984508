"""The C++ of user-defined monoids and operators (:func:`spla.semirings.monoid`, ``binary_op``): the
functors the kernel templates are instantiated with, generated from the user's expressions.

For a monoid ``N`` (expression E of a and b, identities per domain, atomics per domain)::

    template <class T> struct spla_user_identity_N;                   // one specialisation per domain
    template <> struct spla_user_identity_N<float> { static SPLA_DEV float value() { return ...; } };
    struct spla_user_add_N;
    template <class T> struct spla_user_atomic_N {                    // domains without an atomic:
        static SPLA_DEV void update(T* p, T v) { spla_atomic_cas<spla_user_add_N, T>::update(p, v); }
    };                                                                // the CAS loop of atomics.cuh
    template <> struct spla_user_atomic_N<int> { static SPLA_DEV void update(int* p, int v) { <given> } };
    struct spla_user_add_N {
        static const bool IDEMPOTENT = false;
        template <class T> static SPLA_DEV T identity() { return spla_user_identity_N<T>::value(); }
        template <class T> static SPLA_DEV T op(T a, T b) { return (T)(E); }
        template <class T> static SPLA_DEV void atomic(T* p, T v) { spla_user_atomic_N<T>::update(p, v); }
    };

and for an operator ``M`` (expression F of x and a) ``spla_user_mul_M`` with ``op(T x, T a)``, and
``spla_user_mul_swap_M`` with ``op(T a, T x)``: MUL(a, x) for mxv, which runs a vxm over A's transpose.
``IDEMPOTENT`` is false: spla cannot know that a user's values only move one way, which the peek of
``spla_atomic_update`` assumes (the CAS loop itself writes nothing when the value stays).

:func:`code` returns the text a semiring needs, appended to the kernel source after the headers; the
modules are cached by it (``compile.spmv_module``, ``spgemm._kernel``), so other code under the same
name compiles anew.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["ADD_PREFIX", "MUL_PREFIX", "SWAP_PREFIX", "code", "monoid_code", "op_code", "literal"]

ADD_PREFIX = "spla_user_add_"
MUL_PREFIX = "spla_user_mul_"
SWAP_PREFIX = "spla_user_mul_swap_"

_C = {np.dtype(np.bool_): "bool", np.dtype(np.int32): "int", np.dtype(np.int64): "long long",
      np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long",
      np.dtype(np.float32): "float", np.dtype(np.float64): "double"}


def literal(value, dtype) -> str:
    """``value`` as a C++ expression of exactly that value in ``dtype`` (floats by their bits, so
    infinities and every finite value are exact)."""
    dtype = np.dtype(dtype)
    v = dtype.type(value)
    if dtype.kind == "b":
        return "true" if v else "false"
    if dtype == np.float32:
        return f"__uint_as_float({int(np.asarray(v).view(np.uint32))}u)"
    if dtype == np.float64:
        return f"__longlong_as_double((long long){int(np.asarray(v).view(np.uint64))}ULL)"
    i = int(v)
    if i < 0:  # written as (i + 1) - 1 so that the least value is no overflowing literal
        return f"(({_C[dtype]})({i + 1}LL - 1LL))"
    return f"(({_C[dtype]}){i}ULL)"


def monoid_code(m) -> str:
    """The C++ of the user monoid ``m`` (its name, cuda expression, identities, atomics)."""
    n = m.name
    lines = [f"// user-defined monoid {n}: ADD(a, b) = {m.cuda}",
             f"template <class T> struct spla_user_identity_{n};"]
    for dt in m.dtypes:
        c = _C[dt]
        lines.append(f"template <> struct spla_user_identity_{n}<{c}> "
                     f"{{ static SPLA_DEV {c} value() {{ return {literal(m.identity(dt), dt)}; }} }};")
    lines += [f"struct {ADD_PREFIX}{n};",
              f"template <class T> struct spla_user_atomic_{n} {{",
              f"    static SPLA_DEV void update(T* p, T v) {{ spla_atomic_cas<{ADD_PREFIX}{n}, T>::update(p, v); }}",
              "};"]
    for dt, body in (m.atomic or {}).items():
        c = _C[dt]
        lines += [f"template <> struct spla_user_atomic_{n}<{c}> {{",
                  f"    static SPLA_DEV void update({c}* p, {c} v) {{ {body} }}",
                  "};"]
    lines += [f"struct {ADD_PREFIX}{n} {{",
              "    static const bool IDEMPOTENT = false;",
              f"    template <class T> static SPLA_DEV T identity() {{ return spla_user_identity_{n}<T>::value(); }}",
              f"    template <class T> static SPLA_DEV T op(T a, T b) {{ return (T)({m.cuda}); }}",
              "    template <class T> static SPLA_DEV void atomic(T* p, T v) "
              f"{{ spla_user_atomic_{n}<T>::update(p, v); }}",
              "};"]
    return "\n".join(lines) + "\n"


def op_code(op) -> str:
    """The C++ of the user operator ``op``: MUL(x, a), or MUL(a, x) for its swapped form."""
    if op.swap:
        return (f"// user-defined operator {op.name}, arguments exchanged: op(a, x) = {op.cuda}\n"
                f"struct {SWAP_PREFIX}{op.name} {{ template <class T> static SPLA_DEV T op(T a, T x) "
                f"{{ return (T)({op.cuda}); }} }};\n")
    return (f"// user-defined operator {op.name}: MUL(x, a) = {op.cuda}\n"
            f"struct {MUL_PREFIX}{op.name} {{ template <class T> static SPLA_DEV T op(T x, T a) "
            f"{{ return (T)({op.cuda}); }} }};\n")


def functor(part) -> str:
    """The functor name of a user monoid or (possibly swapped) operator."""
    if hasattr(part, "identities"):
        return ADD_PREFIX + part.name
    return (SWAP_PREFIX if part.swap else MUL_PREFIX) + part.name


@functools.lru_cache(maxsize=256)
def code(add, mul) -> str:
    """The C++ the product of ``add`` (a Monoid) and ``mul`` (a BinaryOp, already swapped for mxv) needs
    after the kernel headers: their user functors, or "" for built-ins.  Keyed by the objects: a name
    registered again is another object, with its own text."""
    parts = []
    if add.user:
        parts.append(monoid_code(add))
    if mul.user:
        parts.append(op_code(mul))
    if not parts:
        return ""
    # compile errors then name this part, not a line past the end of the last kernel header
    return '\n#line 1 "spla.semirings user-defined functors"\n' + "\n".join(parts)
