"""The door of user-defined monoids and operators (:func:`spla.semirings.monoid`, ``binary_op``): the
checks of names, C++ expressions, NumPy functions and monoid laws, and the pairwise fold that
reduces with a monoid given as a plain function.

Every check raises :class:`~spla.errors.InvalidOperator` (``DomainMismatch`` for a domain spla does
not compute in) with a message naming the definition, what is wrong and, for a law, the values of a
counterexample.
"""

from __future__ import annotations

import inspect
import re

import numpy as np

from .errors import DomainMismatch, InvalidOperator

__all__ = ["Fold", "check_name", "check_cuda", "check_atomic", "numpy_function", "check_laws", "samples"]

_MONOID_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
_OP_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*[A-Za-z0-9]\Z|[A-Za-z]\Z")


def check_name(kind, name, taken):
    """``name`` of a user ``kind`` ("monoid" or "operator"): an identifier of the allowed form that
    ``taken`` ({name: what holds it}) does not hold."""
    form = _MONOID_NAME if kind == "monoid" else _OP_NAME
    if not isinstance(name, str) or not form.match(name):
        rule = ("letters and digits, starting with a letter (no '_': <monoid>_<operator> names the "
                "semiring)" if kind == "monoid" else
                "letters, digits and '_', starting with a letter and not ending with '_'")
        raise InvalidOperator(f"{kind} name {name!r} is not valid: use {rule}")
    if name in taken:
        raise InvalidOperator(f"{kind} name {name!r} is taken by {taken[name]}; choose another name")
    return name


def check_dtypes(who, dtypes, allowed):
    """``dtypes`` as a tuple of NumPy dtypes, each one of ``allowed`` (no repeats)."""
    if isinstance(dtypes, (str, type, np.dtype)):
        dtypes = (dtypes,)
    out = []
    for d in dtypes:
        try:
            dt = np.dtype(d)
        except TypeError:
            raise DomainMismatch(f"{who}: {d!r} is not a dtype") from None
        if dt not in allowed:
            raise DomainMismatch(f"{who}: spla does not compute in {dt}; the domains are "
                                 f"{', '.join(str(a) for a in allowed)}")
        if dt not in out:
            out.append(dt)
    if not out:
        raise DomainMismatch(f"{who}: dtypes is empty; give at least one domain")
    return tuple(out)


_FORBIDDEN_IN_EXPR = (";", "{", "}", "#", "//", "/*", "\\")


def check_cuda(who, expr, variables):
    """A C++ expression of ``variables`` (pasted into ``return (T)(<expr>);``): a non-empty string with
    balanced parentheses and none of ``; { } #``, comments or line continuations."""
    if expr is None:
        return None
    if not isinstance(expr, str) or not expr.strip():
        raise InvalidOperator(f"{who}: cuda= must be a C++ expression of {' and '.join(variables)} (a non-empty "
                              f"string), got {expr!r}")
    for bad in _FORBIDDEN_IN_EXPR:
        if bad in expr:
            raise InvalidOperator(f"{who}: cuda={expr!r} contains {bad!r}; give one C++ expression of "
                                  f"{' and '.join(variables)} (it is pasted into return (T)(...);)")
    depth = 0
    for ch in expr:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        raise InvalidOperator(f"{who}: cuda={expr!r} has unbalanced parentheses")
    if not any(re.search(rf"\b{v}\b", expr) for v in variables):
        raise InvalidOperator(f"{who}: cuda={expr!r} uses neither {' nor '.join(variables)}; a constant is not "
                              "an operation")
    return expr.strip()


def check_atomic(who, atomic, dtypes):
    """``atomic`` as ``{dtype: C++ statements over p and v}`` (None: none given)."""
    if atomic is None:
        return None
    given = atomic if isinstance(atomic, dict) else {d: atomic for d in dtypes}
    out = {}
    for d, body in given.items():
        dt = check_dtypes(who, (d,), dtypes)[0]
        if not isinstance(body, str) or not body.strip():
            raise InvalidOperator(f"{who}: the atomic for {dt} must be C++ statements over p and v, got {body!r}")
        if "#" in body or body.count("{") != body.count("}") or "\\" in body:
            raise InvalidOperator(f"{who}: the atomic for {dt} ({body!r}) must be plain C++ statements: no '#', "
                                  "no line continuation, balanced braces")
        if not re.search(r"\bp\b", body):
            raise InvalidOperator(f"{who}: the atomic for {dt} ({body!r}) never names p, the address it updates")
        out[dt] = body.strip()
    return out


def _positional(fn):
    """(required, most) positional parameters of ``fn``; None when its signature cannot be read."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    required, most = 0, 0
    for p in sig.parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            most = 1 << 30
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            most += 1
            required += p.default is p.empty
    return required, most


def numpy_function(who, fn, params):
    """``fn`` as a function of (p, q, xp): a NumPy ufunc of two inputs and one output, or a callable
    that takes three positional arguments (``params`` names them for the message)."""
    if isinstance(fn, np.ufunc):
        if fn.nin != 2 or fn.nout != 1:
            raise InvalidOperator(f"{who}: numpy={fn.__name__} is a ufunc of {fn.nin} inputs and {fn.nout} "
                                  "outputs; give one of two inputs and one output")
        return fn
    if not callable(fn):
        raise InvalidOperator(f"{who}: numpy= must be a NumPy ufunc or a function f({params}), got {fn!r}")
    arity = _positional(fn)
    if arity is not None and not (arity[0] <= 3 <= arity[1]):
        raise InvalidOperator(f"{who}: numpy= must take three positional arguments ({params}: xp is the array "
                              f"module, numpy or cupy); {getattr(fn, '__name__', fn)!r} takes "
                              f"{arity[0] if arity[0] == arity[1] else f'{arity[0]} to {arity[1]}'}")
    return fn


def call(fn, p, q, xp=np):
    """fn(p, q) for a ufunc, fn(p, q, xp) for a function."""
    return fn(p, q) if isinstance(fn, np.ufunc) else fn(p, q, xp)


def samples(dtype, identity=None):
    """Values of ``dtype`` on which a monoid's laws must hold exactly: small integers (and, for floats,
    halves and quarters: every sum and product of a few of them is exact), and the identity."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        vals = [False, True]
    elif dtype.kind == "u":
        vals = list(range(0, 9))
    elif dtype.kind == "i":
        vals = list(range(-6, 7))
    else:
        vals = list(range(-4, 5)) + [0.5, -0.5, 0.25, -2.75]
    arr = np.array(vals, dtype=dtype)
    if identity is not None:
        arr = np.concatenate([arr, np.array([identity], dtype=dtype)])
    return arr


def _same(p, q):
    """Elementwise equality in which NaN equals NaN."""
    eq = p == q
    if p.dtype.kind == "f":
        eq |= np.isnan(p) & np.isnan(q)
    return eq


def _result(who, fn, p, q, dtype):
    """fn(p, q) cast to dtype, shaped like p; an error naming ``who`` when fn fails or misshapes."""
    try:
        with np.errstate(all="ignore"):
            r = np.asarray(call(fn, p, q))
    except Exception as e:  # the user's function: any failure is reported as theirs
        raise InvalidOperator(f"{who}: numpy= failed on arrays of {dtype}: {type(e).__name__}: {e}") from e
    if r.shape != p.shape:
        raise InvalidOperator(f"{who}: numpy= must work elementwise; on arrays of shape {p.shape} it returned "
                              f"shape {r.shape}")
    try:
        with np.errstate(all="ignore"):
            return r.astype(dtype)
    except (TypeError, ValueError) as e:
        raise InvalidOperator(f"{who}: numpy= returned {r.dtype}, which does not cast to {dtype}: {e}") from None


def try_elementwise(who, fn, dtypes):
    """Run ``fn`` once on arrays of every domain: it must accept them and return values of that shape."""
    for dt in dtypes:
        s = samples(dt)
        _result(who, fn, s, s[::-1].copy(), dt)


def check_laws(who, fn, identity_of, dtypes):
    """ADD's laws on sampled values of each domain: commutative, associative, identity neutral."""
    for dt in dtypes:
        e = identity_of(dt)
        s = samples(dt, e)
        p, q = np.meshgrid(s, s, indexing="ij")
        p, q = p.ravel(), q.ravel()
        pq, qp = _result(who, fn, p, q, dt), _result(who, fn, q, p, dt)
        bad = np.flatnonzero(~_same(pq, qp))
        if bad.size:
            i = bad[0]
            raise InvalidOperator(f"{who}: not commutative on {dt}: ADD({p[i]}, {q[i]}) = {pq[i]} but "
                                  f"ADD({q[i]}, {p[i]}) = {qp[i]}")
        x = np.broadcast_to(s, s.shape)
        ex = np.full(s.shape, e, dtype=dt)
        for left, right, form in ((ex, x, "ADD(e, x)"), (x, ex, "ADD(x, e)")):
            r = _result(who, fn, left, right, dt)
            bad = np.flatnonzero(~_same(r, x))
            if bad.size:
                i = bad[0]
                raise InvalidOperator(f"{who}: the identity e = {e} is not neutral on {dt}: {form} = {r[i]} "
                                      f"for x = {x[i]}; give identity= the value e with ADD(e, x) = x")
        a, b, c = (g.ravel() for g in np.meshgrid(s, s, s, indexing="ij"))
        left = _result(who, fn, _result(who, fn, a, b, dt), c, dt)
        right = _result(who, fn, a, _result(who, fn, b, c, dt), dt)
        bad = np.flatnonzero(~_same(left, right))
        if bad.size:
            i = bad[0]
            raise InvalidOperator(f"{who}: not associative on {dt}: ADD(ADD({a[i]}, {b[i]}), {c[i]}) = "
                                  f"{left[i]} but ADD({a[i]}, ADD({b[i]}, {c[i]})) = {right[i]}")


class Fold:
    """A monoid given as a plain function f(p, q, xp), with the parts of a ufunc that the CPU backend
    and the references use: the call, ``reduce`` and ``reduceat`` along axis 0.  Reductions fold
    pairwise: pass s combines the positions 2^s apart within each segment, so a segment of length L
    takes ceil(log2 L) vectorised passes (the monoid's laws make every grouping give one result)."""

    def __init__(self, fn, name):
        self.fn = fn
        self.__name__ = name

    def __call__(self, p, q):
        out = np.asarray(call(self.fn, p, q))
        return out.astype(np.result_type(p), copy=False) if hasattr(p, "dtype") else out

    def reduceat(self, a, starts, axis=0):
        """The fold of a[starts[s]:starts[s + 1]] for each s (the last segment to the end); ``starts``
        strictly increasing from 0, as the CPU backend's segments are."""
        if axis != 0:
            raise ValueError("Fold.reduceat reduces along axis 0 only")
        a = np.asarray(a)
        starts = np.asarray(starts, dtype=np.int64)
        n = a.shape[0]
        if starts.size == 0:
            return a[:0].copy()
        lengths = np.diff(np.r_[starts, n])
        if np.any(lengths <= 0) or starts[0] != 0:
            raise ValueError("Fold.reduceat needs strictly increasing starts beginning at 0")
        vals = a.copy()
        offset = np.arange(n, dtype=np.int64) - np.repeat(starts, lengths)
        length = np.repeat(lengths, lengths)
        step = 1
        longest = int(lengths.max())
        with np.errstate(all="ignore"):
            while step < longest:
                at = np.flatnonzero((offset % (2 * step) == 0) & (offset + step < length))
                vals[at] = self(vals[at], vals[at + step])
                step *= 2
        return vals[starts]

    def reduce(self, a, axis=0):
        """The fold of ``a`` along ``axis`` (not empty: a plain function has no identity here)."""
        a = np.moveaxis(np.asarray(a), axis, 0)
        if a.shape[0] == 0:
            raise ValueError(f"{self.__name__}: reduction of an empty array (no identity)")
        return self.reduceat(a, np.zeros(1, dtype=np.int64))[0]
