"""Monoids, binary operators and semirings: the operator registry of spla.

A semiring (ADD, MUL) defines the product  y[j] = ADD_i MUL(u[i], A[i, j]).
ADD is a commutative monoid with an identity; MUL is any binary operator whose first
argument is the vector entry and second the matrix entry (vxm orientation).

The domain of a product is the dtype of the input vector ``u``; matrix values are
cast to it (a pattern-only matrix's entries are 1 / True).  ``Semiring.dtypes`` lists
the domains a semiring accepts.

Adding a built-in semiring is one line at the bottom of this file: pick a monoid and an
operator.  The GPU backend derives its C++ from the monoid's and operator's ``name``
(see ``spla/kernels/spmv.cuh``), so a new built-in operator needs a new entry there too.

User-defined monoids, operators and semirings
---------------------------------------------
:func:`monoid`, :func:`binary_op` and :func:`semiring` register definitions of a user's own, which
run through the same paths as the built-ins (vxm, mxv, mxm, ewise_add/ewise_mult, apply, kron and the
reductions)::

    widest = spla.semirings.monoid("widest", numpy=np.maximum, cuda="spla_max(a, b)", identity="min")
    narrow = spla.semirings.binary_op("narrow", numpy=lambda x, a, xp: xp.minimum(x, a),
                                      cuda="spla_min(x, a)")
    bottleneck = spla.semirings.semiring(widest, narrow)       # registered as "widest_narrow"
    y = spla.vxm(u, A, "widest_narrow")

The rules, which spla relies on and checks at the door where it can:

* **ADD** is commutative and associative, and its identity e leaves every value as it is:
  ADD(e, x) = ADD(x, e) = x.  The kernels reduce in whatever order and grouping their threads meet
  the products, and start every reduction from e.  An input entry equal to e contributes nothing
  (the rule of every product), so a semiring whose MUL(e, a) is not e computes the product over the
  inputs that are not e.  ``check=True`` (the default) tries the laws on sampled values of every
  domain (small integers, halves and quarters, and the identity: values whose sums are exact) and
  raises :class:`~spla.errors.InvalidOperator` naming a counterexample; floating-point addition
  passes it, and its rounding then depends on the reduction order, as for the built-in ``plus``.
* **MUL** is any function; its first argument is the vector's entry (vxm), or A's entry in mxm and
  in mxv's MUL(A(i, j), u(j)).  It need not commute: mxv runs it with its arguments exchanged.
* **Domains** (``dtypes``) are among bool, int32, int64, uint32, uint64, float32, float64; a
  semiring's default to the domains both of its parts accept.  Both functions receive and return
  values of the domain (a result is cast back to it).
* **NumPy**: ``numpy=`` is a NumPy ufunc of two inputs or a function ``f(p, q, xp)`` over arrays of
  one dtype, ``xp`` the array module (``numpy``, or ``cupy`` for the matrix operations on a GPU).
  A monoid's reductions use the ufunc's ``reduceat``; a plain function is folded pairwise, a log
  of the longest segment's length in passes.
* **CUDA** (optional; without it the definition runs on the CPU only and the GPU backend refuses it
  with :class:`~spla.errors.KernelUnavailable`): ``cuda=`` is one C++ expression of ``a`` and ``b``
  (a monoid) or of ``x`` and ``a`` (an operator), all of the domain type ``T``, pasted into
  ``template <class T> T op(T a, T b) { return (T)(<expression>); }``.  It may call CUDA's device
  functions and spla's NaN-propagating ``spla_min`` / ``spla_max``; no ``;``, braces, ``#`` or
  comments.  A monoid's identity on every domain is a literal of that domain.
* **The atomic**: the kernels that ADD into a shared output (scCOOC, push, long-column chunks,
  row work items) need ``*p = ADD(*p, v)`` performed atomically.  ``atomic=`` gives its C++
  statements over ``T* p`` and ``T v`` (one string for every domain, or ``{dtype: string}``), e.g.
  ``"atomicMax(p, v);"`` on the integer domains CUDA has it for.  Every domain without one gets a
  compare-and-swap loop over ``cuda``: read the word, compute ADD(old, v), ``atomicCAS`` it in,
  retry until no other thread changed the word in between (a bool is updated inside the aligned
  32-bit word that holds it).  So every kernel runs every user semiring; a native atomic is only
  faster under contention.
* **Compiled on first use**: the GPU backend generates C++ functors ``spla_user_add_<name>`` and
  ``spla_user_mul_<name>`` (``spla/backends/gpu/user_functors.py``), appends them to the kernel
  source and compiles each (kernel, semiring, domain, index type) module when a product first needs
  it, cached for the life of the process and keyed by the generated text (CuPy also keeps the
  binaries on disk, by the same text): a name registered again with other code never meets a
  module compiled from the old one.

Names: a monoid's is letters and digits (so that ``<monoid>_<operator>`` names one semiring), an
operator's may also hold ``_``; neither may be a built-in monoid's or operator's, and a monoid and
an operator may not share one.  Registering a user name again replaces the definition; a
:class:`Semiring` holds the parts it was built with, so register the semiring again to use the
new ones.  :func:`unregister` removes a user definition.
"""

from __future__ import annotations

import numpy as np

from . import operator_checks as _checks
from .errors import DomainMismatch, InvalidOperator, UnknownNameError

BOOL = (np.dtype(np.bool_),)
SIGNED = (np.dtype(np.int32), np.dtype(np.int64))
UNSIGNED = (np.dtype(np.uint32), np.dtype(np.uint64))
INTS = SIGNED + UNSIGNED
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
NUMERIC = INTS + FLOATS
ALL = BOOL + NUMERIC


class Monoid:
    """A commutative, associative ADD with an identity.

    name      one of plus, min, max, lor, bor, any, or a user's (:func:`monoid`)
    ufunc     the NumPy ufunc that reduces with it (for a user's plain function, an object with the
              ufunc's call, ``reduce`` and ``reduceat``)
    dtypes    domains it is defined on
    cuda      a user monoid's C++ expression of ``a`` and ``b`` (None: a built-in, or CPU only)
    atomic    a user monoid's C++ atomic: None, or ``{dtype: statements}``
    """

    user = False
    cuda = None
    atomic = None

    def __init__(self, name, ufunc, dtypes, identity):
        self.name = name
        self.ufunc = ufunc
        self.dtypes = tuple(dtypes)
        self._identity = identity

    def identity(self, dtype):
        """The identity of this monoid in ``dtype`` as a NumPy scalar."""
        dtype = np.dtype(dtype)
        return dtype.type(self._identity(dtype))

    def apply(self, a, b, xp=np):
        """ADD(a, b) elementwise over arrays of the array module ``xp``."""
        return getattr(xp, self.ufunc.__name__)(a, b)

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

    user = False
    cuda = None

    def __init__(self, name, fn, uses_x=True, uses_a=True):
        self.name = name
        self._fn = fn
        self.uses_x = uses_x
        self.uses_a = uses_a

    def apply(self, x, a, xp=np):
        """Elementwise MUL over broadcastable arrays ``x`` and ``a`` (same dtype)."""
        return self._fn(x, a, xp)

    def swapped(self):
        """The operator computing MUL(a, x): first <-> second; the other built-ins commute."""
        if self.name in _SWAPPED:
            return BINARY_OPS[_SWAPPED[self.name]]
        return self

    def __repr__(self):
        return f"BinaryOp({self.name!r})"


_SWAPPED = {"first": "second", "second": "first"}


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

_BUILTIN_MONOIDS = frozenset(MONOIDS)
_BUILTIN_OPS = frozenset(BINARY_OPS)
_BUILTIN_SEMIRINGS = frozenset(_REGISTRY)


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


# ---------------------------------------------------------------------------------------------
# User-defined monoids, operators and semirings (the rules: the module docstring)
# ---------------------------------------------------------------------------------------------
class UserMonoid(Monoid):
    """A monoid registered by :func:`monoid`: its NumPy function, C++ expression and atomics."""

    user = True

    def __init__(self, name, fn, dtypes, identities, cuda, atomic):
        ufunc = fn if isinstance(fn, np.ufunc) else _checks.Fold(fn, name)
        super().__init__(name, ufunc, dtypes, identities.__getitem__)
        self.numpy = fn
        self.identities = identities
        self.cuda = cuda
        self.atomic = atomic

    def apply(self, a, b, xp=np):
        if isinstance(self.numpy, np.ufunc):
            return (self.numpy if xp is np else getattr(xp, self.numpy.__name__, self.numpy))(a, b)
        return self.numpy(a, b, xp)


class UserBinaryOp(BinaryOp):
    """An operator registered by :func:`binary_op`; ``swapped()`` computes MUL(a, x) with its code."""

    user = True

    def __init__(self, name, fn, dtypes, cuda, swap=False):
        def run(x, a, xp):
            return _checks.call(fn, a, x, xp) if swap else _checks.call(fn, x, a, xp)
        super().__init__(name, run)
        self.numpy = fn
        self.dtypes = dtypes
        self.cuda = cuda
        self.swap = swap

    def swapped(self):
        other = self.__dict__.get("_other")
        if other is None:
            other = UserBinaryOp(self.name, self.numpy, self.dtypes, self.cuda, swap=not self.swap)
            other._other = self
            self._other = other
        return other

    def __repr__(self):
        return f"BinaryOp({self.name!r}{', swapped' if self.swap else ''})"


def _taken(kind):
    """{name: what holds it} of the names a user ``kind`` may not take."""
    taken = {n: "a built-in operator" for n in _BUILTIN_OPS}
    taken.update({n: "a built-in monoid" + (" and operator" if n in taken else "") for n in _BUILTIN_MONOIDS})
    others = BINARY_OPS if kind == "monoid" else MONOIDS
    taken.update({n: f"a user-defined {'operator' if kind == 'monoid' else 'monoid'}" for n, o in others.items()
                  if o.user})
    return taken


def _identities(who, identity, dtypes):
    """{dtype: identity scalar} from a value, "min" / "max" (the domain's least / greatest value), or a
    dict of either per dtype; each must be a value of its domain."""
    out = {}
    for dt in dtypes:
        v = identity.get(dt, identity.get(dt.type, identity.get(str(dt)))) if isinstance(identity, dict) else identity
        if v is None:
            raise InvalidOperator(f"{who}: identity= has no value for {dt}; give one for every domain "
                                  f"({', '.join(str(d) for d in dtypes)})")
        if isinstance(v, str):
            if v not in ("min", "max"):
                raise InvalidOperator(f"{who}: identity={v!r}: a string identity is 'min' or 'max' (the domain's "
                                      "least or greatest value)")
            v = (_max_identity if v == "min" else _min_identity)(dt)  # the least / greatest value
        try:
            with np.errstate(all="ignore"):
                cast = np.asarray(v).astype(dt)
            same = bool(cast == np.asarray(v)) or (dt.kind == "f" and bool(np.isnan(cast)) and bool(np.isnan(v)))
        except (TypeError, ValueError, OverflowError):
            same = False
        if not same or np.ndim(v) != 0:
            raise InvalidOperator(f"{who}: identity {v!r} is not a value of {dt}; give it per domain "
                                  "(identity={dtype: value}) or as 'min' / 'max'")
        out[dt] = dt.type(cast)
    return out


def monoid(name, *, numpy, identity, cuda=None, dtypes=NUMERIC, atomic=None, check=True) -> Monoid:
    """Register the user-defined monoid ``name`` (the rules: this module's docstring).

    numpy     a NumPy ufunc of two inputs, or a function f(a, b, xp) elementwise over arrays
    identity  the identity e (ADD(e, x) = x): a value, 'min' / 'max' (each domain's least / greatest
              value: the identity of max / min), or {dtype: value}
    cuda      a C++ expression of a and b (None: the monoid runs on the CPU only)
    dtypes    its domains (default: the integer and float ones)
    atomic    C++ statements performing *p = ADD(*p, v) atomically (T* p, T v): one string for every
              domain or {dtype: string}; the others get a compare-and-swap loop over ``cuda``
    check     try the laws (commutative, associative, identity) on sampled values of every domain
    """
    who = f"monoid {name!r}"
    _checks.check_name("monoid", name, _taken("monoid"))
    dtypes = _checks.check_dtypes(who, dtypes, ALL)
    fn = _checks.numpy_function(who, numpy, "a, b, xp")
    identities = _identities(who, identity, dtypes)
    cuda = _checks.check_cuda(who, cuda, ("a", "b"))
    atomic = _checks.check_atomic(who, atomic, dtypes)
    if atomic is not None and cuda is None:
        raise InvalidOperator(f"{who}: atomic= is the GPU's update; it needs cuda= as well")
    _checks.try_elementwise(who, fn, dtypes)
    if check:
        _checks.check_laws(who, fn, identities.__getitem__, dtypes)
    m = UserMonoid(name, fn, dtypes, identities, cuda, atomic)
    MONOIDS[name] = m
    return m


def binary_op(name, *, numpy, cuda=None, dtypes=ALL) -> BinaryOp:
    """Register the user-defined operator ``name``: MUL(x, a) with x the vector's entry (A's in mxm).

    numpy     a NumPy ufunc of two inputs, or a function f(x, a, xp) elementwise over arrays
    cuda      a C++ expression of x and a (None: the operator runs on the CPU only)
    dtypes    its domains (default: all seven)
    """
    who = f"operator {name!r}"
    _checks.check_name("operator", name, _taken("operator"))
    dtypes = _checks.check_dtypes(who, dtypes, ALL)
    fn = _checks.numpy_function(who, numpy, "x, a, xp")
    cuda = _checks.check_cuda(who, cuda, ("x", "a"))
    _checks.try_elementwise(who, fn, dtypes)
    op = UserBinaryOp(name, fn, dtypes, cuda)
    BINARY_OPS[name] = op
    return op


def _part(kind, x, table, cls):
    if isinstance(x, cls):
        return x
    if isinstance(x, str) and x in table:
        return table[x]
    raise UnknownNameError(f"semiring: unknown {kind} {x!r}; the {kind}s are {', '.join(sorted(table))} "
                           f"(register one with spla.semirings.{'monoid' if kind == 'monoid' else 'binary_op'})")


def semiring(add, mul, *, dtypes=None) -> Semiring:
    """Register the semiring ``add.mul`` under the name ``"<add>_<mul>"`` and return it.

    add, mul  a monoid and an operator, objects or names, built-in or user-defined (one at least)
    dtypes    its domains; default: those both parts accept
    """
    add = _part("monoid", add, MONOIDS, Monoid)
    mul = _part("operator", mul, BINARY_OPS, BinaryOp)
    if not (add.user or mul.user):
        raise InvalidOperator(f"semiring: {add.name}_{mul.name} is made of built-ins; use "
                              f"spla.semirings.get({add.name + '_' + mul.name!r}) or "
                              f"Semiring({add!r}, {mul!r}, dtypes)")
    name = f"{add.name}_{mul.name}"
    if name in _BUILTIN_SEMIRINGS:
        raise InvalidOperator(f"semiring: {name!r} is a built-in semiring's name")
    both = tuple(d for d in add.dtypes if d in getattr(mul, "dtypes", ALL))
    who = f"semiring {name!r}"
    dtypes = both if dtypes is None else _checks.check_dtypes(who, dtypes, ALL)
    outside = [str(d) for d in dtypes if d not in both]
    if outside or not dtypes:
        raise DomainMismatch(f"{who}: {', '.join(outside) or 'no domain'} is not a domain of both {add.name} and "
                             f"{mul.name}; they share {', '.join(str(d) for d in both) or 'none'}")
    s = Semiring(add, mul, dtypes)
    _REGISTRY[name] = s
    return s


def unregister(name):
    """Remove the user-defined semiring, monoid or operator ``name`` from the registry (objects that
    hold it keep working).  Built-ins cannot be removed."""
    for table, builtin in ((_REGISTRY, _BUILTIN_SEMIRINGS), (MONOIDS, _BUILTIN_MONOIDS), (BINARY_OPS, _BUILTIN_OPS)):
        if name in table and name not in builtin:
            del table[name]
            return
    if name in _BUILTIN_SEMIRINGS | _BUILTIN_MONOIDS | _BUILTIN_OPS:
        raise InvalidOperator(f"unregister: {name!r} is built in; only user definitions can be removed")
    raise UnknownNameError(f"unregister: no user-defined semiring, monoid or operator is named {name!r}")
