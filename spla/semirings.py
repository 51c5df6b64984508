"""Monoids, binary operators and semirings: the operator registry of spla.

A semiring (ADD, MUL) defines the product  y[j] = ADD_i MUL(u[i], A[i, j]).
ADD is a commutative monoid with an identity; MUL is any binary operator whose first
argument is the vector entry and second the matrix entry (vxm orientation).

The domain of a product is the dtype of the input vector ``u``; matrix values are
cast to it (a pattern-only matrix's entries are 1 / True).  ``Semiring.dtypes`` lists
the domains a semiring accepts.

Adding a semiring is one line at the bottom of this file: pick a monoid and an
operator.  The GPU backend derives its C++ from the monoid's and operator's ``name``
(see ``spla/kernels/spmv.cuh``), so a new operator needs a new entry there too.
"""

from __future__ import annotations

import numpy as np

from .errors import DomainMismatch, UnknownNameError

BOOL = (np.dtype(np.bool_),)
SIGNED = (np.dtype(np.int32), np.dtype(np.int64))
UNSIGNED = (np.dtype(np.uint32), np.dtype(np.uint64))
INTS = SIGNED + UNSIGNED
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
NUMERIC = INTS + FLOATS
ALL = BOOL + NUMERIC


class Monoid:
    """A commutative, associative ADD with an identity.

    name      one of plus, min, max, lor, bor, any
    ufunc     the NumPy ufunc that reduces with it
    dtypes    domains it is defined on
    """

    def __init__(self, name, ufunc, dtypes, identity):
        self.name = name
        self.ufunc = ufunc
        self.dtypes = tuple(dtypes)
        self._identity = identity

    def identity(self, dtype):
        """The identity of this monoid in ``dtype`` as a NumPy scalar."""
        dtype = np.dtype(dtype)
        return dtype.type(self._identity(dtype))

    def __repr__(self):
        return f"Monoid({self.name!r})"


def _min_identity(dtype):
    if dtype.kind == "f":
        return np.inf
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).max


def _max_identity(dtype):
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


plus = Monoid("plus", np.add, NUMERIC, lambda d: 0)
min_ = Monoid("min", np.minimum, NUMERIC, _min_identity)
max_ = Monoid("max", np.maximum, NUMERIC, _max_identity)
lor = Monoid("lor", np.logical_or, BOOL, lambda d: False)
bor = Monoid("bor", np.bitwise_or, INTS, lambda d: 0)
# ANY returns any one contribution; with the identity-skip rule its result is
# "some entry" where one exists.  spla implements it as max (bool: or), which is one
# valid choice of "any" and makes it deterministic.  It is defined on bool and unsigned
# domains only, where the identity (False / 0) is below every value, so max is exact;
# for signed or float "any", use max_* or min_* semirings.
any_ = Monoid("any", np.maximum, BOOL + UNSIGNED, lambda d: False if d.kind == "b" else 0)

MONOIDS = {m.name: m for m in (plus, min_, max_, lor, bor, any_)}


class BinaryOp:
    """MUL(x, a): x is the vector entry, a the matrix entry (cast to x's dtype)."""

    def __init__(self, name, fn, uses_x=True, uses_a=True):
        self.name = name
        self._fn = fn
        self.uses_x = uses_x
        self.uses_a = uses_a

    def apply(self, x, a, xp=np):
        """Elementwise MUL over broadcastable arrays ``x`` and ``a`` (same dtype)."""
        return self._fn(x, a, xp)

    def __repr__(self):
        return f"BinaryOp({self.name!r})"


def _first(x, a, xp):
    return xp.broadcast_arrays(x, a)[0].copy()


def _second(x, a, xp):
    return xp.broadcast_arrays(x, a)[1].copy()


def _pair(x, a, xp):
    return xp.ones(xp.broadcast_arrays(x, a)[0].shape, dtype=x.dtype)


BINARY_OPS = {
    op.name: op
    for op in (
        BinaryOp("times", lambda x, a, xp: x * a),
        BinaryOp("plus", lambda x, a, xp: x + a),
        BinaryOp("first", _first, uses_a=False),
        BinaryOp("second", _second, uses_x=False),
        BinaryOp("pair", _pair, uses_x=False, uses_a=False),
        BinaryOp("land", lambda x, a, xp: xp.logical_and(x, a)),
        BinaryOp("min", lambda x, a, xp: xp.minimum(x, a)),
        BinaryOp("max", lambda x, a, xp: xp.maximum(x, a)),
        BinaryOp("band", lambda x, a, xp: x & a),
    )
}

# Operators accepted as `accum`: out = accum(out, result).
ACCUM_OPS = ("plus", "min", "max", "lor", "bor", "first", "second")


def accum_apply(name, old, new, xp=np):
    """out = accum(old, new) for the accumulators in ACCUM_OPS."""
    if name == "plus":
        return old + new
    if name == "min":
        return xp.minimum(old, new)
    if name == "max":
        return xp.maximum(old, new)
    if name == "lor":
        return xp.logical_or(old, new)
    if name == "bor":
        return old | new
    if name == "first":
        return old
    if name == "second":
        return new
    raise UnknownNameError(f"unknown accum {name!r}; use one of {', '.join(ACCUM_OPS)}")


def accum_dtypes(name):
    """Domains an accumulator is defined on."""
    return {"plus": NUMERIC, "min": NUMERIC, "max": NUMERIC, "lor": BOOL, "bor": INTS}.get(name, ALL)


class Semiring:
    """ADD.MUL semiring.  ``dtypes``: the domains (dtype of u) it accepts."""

    def __init__(self, add: Monoid, mul: BinaryOp, dtypes):
        self.add = add
        self.mul = mul
        self.name = f"{add.name}_{mul.name}"
        self.dtypes = tuple(np.dtype(d) for d in dtypes)

    def identity(self, dtype):
        return self.add.identity(dtype)

    def dtype_error(self, dtype, who) -> DomainMismatch:
        """The error for a domain ``dtype`` not in ``self.dtypes``, naming the caller ``who``."""
        dtype = np.dtype(dtype)
        hint = ("" if dtype.isnative else
                f" (u is {dtype.str}, not native byte order: use u.astype(u.dtype.newbyteorder('=')))")
        return DomainMismatch(f"{who}: semiring {self.name} is not defined on dtype {dtype}; "
                              f"it accepts {', '.join(str(d) for d in self.dtypes)}{hint}")

    def __repr__(self):
        return f"spla.semirings.{self.name}"


_REGISTRY: dict[str, Semiring] = {}


def _register(add, mul, dtypes):
    s = Semiring(add, BINARY_OPS[mul], dtypes)
    _REGISTRY[s.name] = s
    return s


plus_times = _register(plus, "times", NUMERIC)
plus_first = _register(plus, "first", NUMERIC)
plus_second = _register(plus, "second", NUMERIC)
plus_pair = _register(plus, "pair", NUMERIC)
min_plus = _register(min_, "plus", NUMERIC)
min_first = _register(min_, "first", NUMERIC)
min_second = _register(min_, "second", NUMERIC)
max_times = _register(max_, "times", NUMERIC)
max_first = _register(max_, "first", NUMERIC)
max_second = _register(max_, "second", NUMERIC)
lor_land = _register(lor, "land", BOOL)
any_pair = _register(any_, "pair", BOOL + UNSIGNED)
any_first = _register(any_, "first", BOOL + UNSIGNED)
bor_first = _register(bor, "first", UNSIGNED + SIGNED)
bor_second = _register(bor, "second", UNSIGNED + SIGNED)


def names():
    """Names of every registered semiring."""
    return sorted(_REGISTRY)


def get(semiring) -> Semiring:
    """Return the Semiring for a name or a Semiring object."""
    if isinstance(semiring, Semiring):
        return semiring
    if isinstance(semiring, str) and semiring in _REGISTRY:
        return _REGISTRY[semiring]
    raise UnknownNameError(
        f"unknown semiring {semiring!r}; known semirings are: {', '.join(names())} "
        "(or pass a spla.semirings.Semiring object)"
    )
