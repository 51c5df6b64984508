"""The strategy for whole ``vxm`` / ``mxv`` calls: :func:`products` draws a :class:`Product`.

A Product holds everything one call takes (matrix, vector or block, semiring, mask, complement,
accum, out, replace, kernel); :meth:`Product.run` makes the call on a device and
:meth:`Product.expected` computes the dense reference (:mod:`spla.testing.references`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

import spla
from .. import device as _dev
from .. import semirings as _sr
from ..matrix import Matrix
from .references import reference
from .sources import array_source, matrix_source
from .strategies import (HEAVY, KERNEL_NAMES, VERY_HEAVY, InvalidArgument, matrices, maybe, need_hypothesis,
                         rarely, seeds, semiring_and_dtype, st, vectors)


@dataclasses.dataclass
class Product:
    """One ``vxm`` / ``mxv`` call: ``spla.<op>(u, A, semiring, mask=..., ...)``.

    ``k`` is None for a 1-D ``u`` and the block width otherwise.  ``out`` is the array
    before the call; :meth:`run` passes a copy, so a Product can be run many times.
    """

    op: str
    A: Matrix
    u: np.ndarray
    semiring: object
    mask: np.ndarray | None = None
    complement: bool = False
    accum: str | None = None
    out: np.ndarray | None = None
    replace: bool = False
    kernel: str = "auto"
    k: int | None = None

    @property
    def dtype(self):
        return np.dtype(self.u.dtype)

    def kwargs(self, device=None):
        """Keyword arguments of the call (arrays copied to ``device``; default A's)."""
        device = self.A.device if device is None else _dev.resolve(device)
        mv = (lambda x: None if x is None else _dev.to_device(np.array(_dev.to_numpy(x), copy=True), device))
        return dict(mask=mv(self.mask), complement=self.complement, accum=self.accum, out=mv(self.out),
                    replace=self.replace, kernel=self.kernel)

    def run(self, device=None, **overrides):
        """Call spla on ``device`` (default: A's device); returns the result array there."""
        device = self.A.device if device is None else _dev.resolve(device)
        A = self.A.to(device)
        u = _dev.to_device(np.array(_dev.to_numpy(self.u), copy=True), device)
        kw = self.kwargs(device)
        kw.update(overrides)
        if self.op == "vxm":
            return spla.vxm(u, A, self.semiring, **kw)
        return spla.mxv(A, u, self.semiring, **kw)

    def expected(self):
        """The dense NumPy reference result."""
        kw = dict(mask=self.mask, complement=self.complement, accum=self.accum, out=self.out, replace=self.replace)
        return reference(self.op, self.A, self.u, self.semiring, **kw)

    def call_source(self, max_items=300) -> str:
        """Python that reproduces this call on the CPU (just ``repr(self)`` when the
        matrix or a vector has more than ``max_items`` entries)."""
        sr = _sr.get(self.semiring).name
        sizes = [self.A.nnz, self.A.shape[1] + 1] + [x.size for x in (self.u, self.mask, self.out) if x is not None]
        if max(sizes) > max_items:
            return repr(self)

        arr = array_source
        head = f"spla.vxm(u, A, {sr!r}" if self.op == "vxm" else f"spla.mxv(A, u, {sr!r}"
        return (f"A = {matrix_source(self.A)}\nu = {arr(self.u)}\nmask = {arr(self.mask)}\nout = {arr(self.out)}\n"
                f"{head}, mask=mask, complement={self.complement!r}, accum={self.accum!r}, out=out, "
                f"replace={self.replace!r}, kernel={self.kernel!r})")

    def __repr__(self):
        sr = _sr.get(self.semiring).name
        return (f"Product({self.op} {sr} on {self.dtype}, A={self.A!r}, u.shape={self.u.shape}, "
                f"mask={'None' if self.mask is None else self.mask.shape}, complement={self.complement}, "
                f"accum={self.accum!r}, out={'None' if self.out is None else 'given'}, replace={self.replace}, "
                f"kernel={self.kernel!r})")


def _accums_for(dtype):
    return [a for a in _sr.ACCUM_OPS if np.dtype(dtype) in _sr.accum_dtypes(a)]


def products(*, ops=("vxm", "mxv"), semirings=None, dtypes=None, kernels=KERNEL_NAMES, max_size=10, max_k=4,
             heavy_columns=None, block=None, masked=None, with_out=None, specials=False, device="cpu"):
    """Strategy for :class:`Product`: one whole ``vxm`` / ``mxv`` call and its inputs.

    Draws the op, a ``(semiring, dtype)`` pair (:func:`semiring_and_dtype`), a matrix
    (:func:`matrices`: 0x0 up to ``max_size``, square or rectangular, directed or not,
    pattern or valued in u's dtype or another, self-loops, empty columns; with
    ``heavy_columns`` an (>1024) x (<=6) matrix -- or its transpose for mxv -- whose
    outputs include columns of more than 32 and more than 1024 entries), a vector or a
    (n, k<=max_k) block with identity entries, a mask ((m,) or (m, k) for a block),
    complement, accum (only the ones defined on the dtype; implies out), out, replace
    and a kernel name.  ``block``, ``masked``, ``with_out``, ``heavy_columns``: None lets
    hypothesis decide, a bool forces.  ``specials=True`` puts NaN, +-inf and -0.0 into u,
    out and a float matrix's values (float domains; :func:`vectors`, :func:`matrices`).
    """
    need_hypothesis()
    ops, kernels = tuple(ops), tuple(kernels)
    for what, given, allowed in (("ops", ops, ("vxm", "mxv")), ("kernels", kernels, KERNEL_NAMES)):
        bad = [x for x in given if x not in allowed]
        if bad or not given:
            raise InvalidArgument(f"products: {what} must be a non-empty selection of {', '.join(allowed)}, "
                                  f"got {given!r}")

    @st.composite
    def build(draw):
        op = draw(st.sampled_from(ops))
        sr, dt = draw(semiring_and_dtype(semirings, dtypes))
        heavy = draw(maybe(heavy_columns, rarely(5)))
        # the matrix's values: pattern, u's dtype, or another dtype whose cast to u's is well defined
        kind = draw(st.sampled_from(["pattern", "same", "float64", "int64", "bool"]))
        mdt = {"pattern": None, "same": dt, "float64": np.dtype(np.float64), "int64": np.dtype(np.int64),
               "bool": np.dtype(np.bool_)}[kind]
        lo = 0 if dt.kind == "u" else None  # no negative values cast to unsigned
        # float64 values used in float32: some that only the cast makes infinite
        common = dict(pattern=mdt is None, dtype=mdt, min_value=lo, device=device,
                      specials=specials and dt.kind == "f" and ("float32" if dt == np.float32 else True))
        if heavy:
            M = draw(matrices(HEAVY + 1, VERY_HEAVY + 76, 1, 6, heavy_columns=True, directed=True,
                              density=st.integers(0, 5).map(lambda p: p / 100), **common))
            A = M.T if op == "mxv" else M
        else:
            A = draw(matrices(0, max_size, 0, max_size, square=draw(st.booleans()), **common))
            if draw(st.booleans()):
                A = A.T
        n_in, n_out = (A.shape[0], A.shape[1]) if op == "vxm" else (A.shape[1], A.shape[0])
        is_block = draw(maybe(block, st.booleans()))
        k = draw(st.integers(1, max_k)) if is_block else None
        u = draw(vectors(n_in, dt, k, semiring=sr, specials=specials))
        mask = None
        complement = False
        if draw(maybe(masked, st.booleans())):
            shape = (n_out,) if k is None or draw(st.booleans()) else (n_out, k)
            rng = np.random.default_rng(draw(seeds()))
            mask = rng.random(shape) < draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
            complement = draw(st.booleans())
        accum = None if with_out is False else draw(st.sampled_from([None] + _accums_for(dt)))
        want_out = accum is not None or draw(maybe(with_out, st.booleans()))
        out = draw(vectors(n_out, dt, k, semiring=sr, specials=specials)) if want_out else None
        replace = draw(st.booleans()) if out is not None else False
        kernel = draw(st.sampled_from(tuple(kernels)))
        return Product(op, A, u, sr, mask, complement, accum, out, replace, kernel, k)

    return build()
