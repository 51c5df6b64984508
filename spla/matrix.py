"""spla.Matrix: a sparse matrix (a graph's adjacency) in CSC, with a lazy COOC view.

Storage, as TurboBC keeps it on the device (n columns, m stored entries, one word =
one index of the matrix's index dtype, 4 bytes while it fits in int32):

================  =====================================  ===================
array             shape                                  footprint (words)
================  =====================================  ===================
``colptr``        (ncols + 1,)                           n + 1
``rowidx``        (nnz,), rows sorted in each column     m
``values``        (nnz,) or absent when pattern-only     m (of the value dtype) or 0
``colidx`` (COOC) (nnz,), built only when a COOC kernel  m (lazy)
                  runs or it is asked for
================  =====================================  ===================

So an unweighted graph costs n + 1 + m words in CSC and 2m + n + 1 once its COOC view
has been built.  Indices are int32 while ``nnz`` and both dimensions are below 2**31,
int64 beyond: more than 2**31 stored entries work and never overflow silently.

A directed graph's products in both directions (``vxm`` pulls over in-neighbours,
``mxv`` over out-neighbours) need the transpose: ``A.T`` is built once and cached
(another n + 1 + m words).  An undirected graph is symmetric, so ``A.T is A``.

Entry A[i, j] != 0 is the arc i -> j (row = tail, column = head), as in networkx's
``to_scipy_sparse_array``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from . import device as _dev
from .errors import DomainMismatch, InvalidGraph

INT32_MAX = np.iinfo(np.int32).max


def index_dtype(nnz: int, *dims: int):
    """int32 when every index and offset fits, else int64."""
    return np.dtype(np.int32) if max([nnz, *dims], default=0) < INT32_MAX else np.dtype(np.int64)


class Matrix:
    """An (nrows, ncols) sparse matrix in CSC form on one device.

    Build one with :meth:`from_scipy`, :meth:`from_edges`, :meth:`from_networkx` or
    :meth:`from_csc`.  Pattern-only matrices (``values is None``) have every stored
    entry equal to 1 (True).
    """

    def __init__(self, colptr, rowidx, values, shape, *, directed=True, device="cpu", _symmetric=False):
        self.colptr = colptr
        self.rowidx = rowidx
        self.values = values
        self.shape = (int(shape[0]), int(shape[1]))
        self.directed = bool(directed)
        self.device = device
        self._colidx = None
        self._T = self if (_symmetric and self.shape[0] == self.shape[1]) else None
        self._out_degree = None
        self._in_degree = None
        self._cache = {}

    # ------------------------------------------------------------------ basics
    @property
    def nnz(self) -> int:
        return int(self.rowidx.shape[0])

    @property
    def is_pattern(self) -> bool:
        return self.values is None

    def pattern(self) -> "Matrix":
        """This matrix's structure without its values (every stored entry 1), sharing the index
        arrays; ``self`` when it is already pattern-only.  Cached."""
        if self.values is None:
            return self
        key = "pattern"
        if key not in self._cache:
            self._cache[key] = Matrix(self.colptr, self.rowidx, None, self.shape, directed=self.directed,
                                      device=self.device, _symmetric=self._T is self)
        return self._cache[key]

    @property
    def dtype(self):
        return np.dtype(np.bool_) if self.values is None else np.dtype(self.values.dtype)

    @property
    def index_dtype(self):
        return np.dtype(self.colptr.dtype)

    @property
    def xp(self):
        return _dev.array_module(self.device)

    @property
    def nbytes(self) -> int:
        """Device bytes held by this matrix's arrays (CSC, values, COOC if built)."""
        total = self.colptr.nbytes + self.rowidx.nbytes
        total += 0 if self.values is None else self.values.nbytes
        total += 0 if self._colidx is None else self._colidx.nbytes
        return int(total)

    def __repr__(self):
        kind = "pattern" if self.is_pattern else str(self.dtype)
        return (f"spla.Matrix(shape={self.shape}, nnz={self.nnz}, {kind}, "
                f"{'directed' if self.directed else 'undirected'}, device={self.device!r})")

    # -------------------------------------------------------------- COOC view
    @property
    def colidx(self):
        """COOC column index of every stored entry (nnz,), built on first use and cached."""
        if self._colidx is None:
            with _dev.activate(self.device):
                self._colidx = self._build_colidx()
        return self._colidx

    def _build_colidx(self):
        xp = self.xp
        if xp is np:
            return np.repeat(np.arange(self.shape[1], dtype=self.colptr.dtype), np.diff(self.colptr).astype(np.int64))
        # colidx[p] = number of column starts colptr[1..ncols-1] at or before p: one mark per start (an
        # empty column's start coincides with the next one's) and a running sum, 8 bytes per entry at the
        # peak (cupy.repeat with array counts held ~100 bytes per entry)
        starts = self.colptr[1:-1]
        marks = xp.zeros(self.nnz, dtype=self.colptr.dtype)
        xp.add.at(marks, starts[starts < self.nnz], 1)
        return xp.cumsum(marks, dtype=self.colptr.dtype)

    # -------------------------------------------------------------- transpose
    @property
    def T(self) -> "Matrix":
        """The transpose, computed once and cached (``A.T is A`` for undirected graphs)."""
        if self._T is None:
            S = self._to_scipy_csc(values_as_is=True).T.tocsc()
            S.sort_indices()
            t = Matrix._from_sorted_csc(S, pattern=self.is_pattern, directed=self.directed, device=self.device)
            t._T = self
            self._T = t
        return self._T

    # -------------------------------------------------------------- degrees
    def out_degree(self):
        """Stored entries per row (out-degree of each vertex), int64 array on the matrix's device."""
        if self._out_degree is None:
            xp = self.xp
            with _dev.activate(self.device):
                if self._T is self:  # symmetric: row counts are column counts
                    self._out_degree = self.in_degree()
                elif not self.nnz:
                    self._out_degree = xp.zeros(self.shape[0], dtype=np.int64)
                elif xp is np:
                    self._out_degree = np.bincount(self.rowidx, minlength=self.shape[0]).astype(np.int64)
                else:  # cupy.bincount holds ~100 bytes per entry on large inputs: count with atomics instead
                    counts = xp.zeros(self.shape[0], dtype=self.rowidx.dtype)
                    xp.add.at(counts, self.rowidx, 1)
                    self._out_degree = counts.astype(np.int64)
        return self._out_degree

    def in_degree(self):
        """Stored entries per column (in-degree of each vertex), int64 array on the matrix's device."""
        if self._in_degree is None:
            with _dev.activate(self.device):
                self._in_degree = self.xp.diff(self.colptr).astype(np.int64)
        return self._in_degree

    # -------------------------------------------------------------- moving
    def to(self, device) -> "Matrix":
        """This matrix on ``device`` ("cpu", "gpu", "gpu:N", "auto"); self when already there."""
        device = _dev.resolve(device)
        if device == self.device:
            return self
        mv = (lambda a: None if a is None else _dev.to_device(a, device))
        out = Matrix(mv(self.colptr), mv(self.rowidx), mv(self.values), self.shape,
                     directed=self.directed, device=device, _symmetric=self._T is self)
        return out

    def to_scipy(self):
        """A ``scipy.sparse.csc_array`` copy (pattern entries become 1.0)."""
        return self._to_scipy_csc(values_as_is=False)

    def _to_scipy_csc(self, values_as_is):
        colptr = _dev.to_numpy(self.colptr)
        rowidx = _dev.to_numpy(self.rowidx)
        if self.values is None:
            data = np.ones(self.nnz, dtype=np.bool_ if values_as_is else np.float64)
        else:
            data = _dev.to_numpy(self.values)
        return sp.csc_array((data, rowidx, colptr), shape=self.shape)

    # -------------------------------------------------------------- building
    @classmethod
    def _from_sorted_csc(cls, S, *, pattern, directed, device, symmetric=False):
        """From a canonical scipy CSC (sorted, no duplicates), moving it to ``device``."""
        n_rows, n_cols = S.shape
        idx = index_dtype(S.nnz, n_rows, n_cols)
        colptr = np.asarray(S.indptr, dtype=idx)
        rowidx = np.asarray(S.indices, dtype=idx)
        values = None if pattern else np.ascontiguousarray(S.data)
        m = cls(colptr, rowidx, values, S.shape, directed=directed, device="cpu", _symmetric=symmetric)
        return m.to(device) if device != "cpu" else m

    @classmethod
    def from_csc(cls, colptr, rowidx, values, shape, *, directed=True, device="auto"):
        """From CSC arrays: ``colptr`` (ncols+1,), ``rowidx`` (nnz,), ``values`` (nnz,) or None for a
        pattern-only matrix.  Duplicates are summed and rows sorted within columns, then the arrays are
        copied to ``device``.

        ``directed`` as in :meth:`from_scipy` (its default here is True): None decides by symmetry,
        False checks that the matrix is symmetric and otherwise symmetrises it.
        """
        colptr = np.asarray(_dev.to_numpy(colptr))
        rowidx = np.asarray(_dev.to_numpy(rowidx))
        vals = None if values is None else np.asarray(_dev.to_numpy(values))
        shape = (int(shape[0]), int(shape[1]))
        if colptr.shape != (shape[1] + 1,) or colptr[0] != 0 or colptr[-1] != rowidx.shape[0] or \
                (shape[1] and np.any(np.diff(colptr) < 0)):
            raise InvalidGraph(f"colptr must be non-decreasing, length ncols+1 = {shape[1] + 1}, from 0 to nnz")
        data = np.ones(rowidx.shape[0], dtype=np.bool_) if vals is None else vals
        S = sp.csc_array((data, rowidx, colptr), shape=shape)
        S.sum_duplicates()
        S.sort_indices()
        S, directed, symmetric = _orientation(S, directed)
        return cls._from_sorted_csc(S, pattern=vals is None, directed=directed, device=_dev.resolve(device),
                                    symmetric=symmetric)

    @classmethod
    def from_scipy(cls, S, directed=None, device="auto"):
        """From any SciPy sparse matrix/array (or a dense 2-D NumPy array).

        ``directed=None``: a square matrix equal to its transpose (pattern and values)
        is an undirected graph, anything else directed.  ``directed=False`` on an
        unsymmetric matrix symmetrises it (pattern union, an entry stored one way is
        mirrored; conflicting values in the two directions raise InvalidGraph).  Entries that are
        explicitly stored zeros are kept as arcs.  Boolean matrices, and matrices whose
        stored values are all 1, are stored pattern-only.
        """
        if not sp.issparse(S):
            S = np.asarray(S)
            if S.ndim != 2:
                raise InvalidGraph(f"expected a 2-D matrix, got an array of shape {S.shape}")
            S = sp.csc_array(S)
        S = sp.csc_array(S, copy=True)
        if S.dtype.kind not in "biuf":
            raise DomainMismatch(f"matrix dtype {S.dtype} is not supported; use bool, integer or float values")
        S.sum_duplicates()
        S.sort_indices()
        S, directed, symmetric = _orientation(S, directed)
        pattern = S.dtype == np.bool_ or (S.nnz > 0 and bool(np.all(S.data == 1))) or S.nnz == 0
        return cls._from_sorted_csc(S, pattern=pattern, directed=directed, device=_dev.resolve(device),
                                    symmetric=symmetric)

    @classmethod
    def from_edges(cls, src, dst, n=None, values=None, directed=False, device="auto"):
        """From arc lists ``src[e] -> dst[e]`` (integer arrays of the same length).

        ``n`` defaults to max(src, dst) + 1.  Duplicate arcs are merged (their values
        summed, as networkx's ``to_scipy_sparse_array`` of a multigraph does); self-loops
        are kept.  ``directed=False`` adds every reverse arc (an undirected edge listed
        in both directions, or twice, is still one edge).  ``values=None`` gives a
        pattern-only matrix.
        """
        src = np.asarray(_dev.to_numpy(src))
        dst = np.asarray(_dev.to_numpy(dst))
        if src.shape != dst.shape or src.ndim != 1:
            raise InvalidGraph(f"src and dst must be 1-D arrays of the same length, got shapes {src.shape} and {dst.shape}")
        if src.size and (src.dtype.kind not in "iu" or dst.dtype.kind not in "iu"):
            raise DomainMismatch(f"src and dst must be integer arrays, got {src.dtype} and {dst.dtype}")
        src = src.astype(np.int64, copy=False)
        dst = dst.astype(np.int64, copy=False)
        hi = int(max(src.max(initial=-1), dst.max(initial=-1)))
        lo = int(min(src.min(initial=0), dst.min(initial=0)))
        if n is None:
            n = hi + 1
        n = int(n)
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise InvalidGraph(f"vertex id {bad} is outside 0..{n - 1} (n={n}); pass a larger n or fix the edge list")
        if values is not None:
            values = np.asarray(_dev.to_numpy(values))
            if values.shape != src.shape:
                raise InvalidGraph(f"values must have one entry per edge ({src.shape[0]}), got shape {values.shape}")
        if not directed:
            # undirected: each unordered pair once, then mirrored
            loop = src == dst
            a = np.concatenate([src, dst[~loop]])
            b = np.concatenate([dst, src[~loop]])
            v = None if values is None else np.concatenate([values, values[~loop]])
            src, dst, values = a, b, v
        data = np.ones(src.shape[0], dtype=np.bool_) if values is None else values
        S = sp.coo_array((data, (src, dst)), shape=(n, n)).tocsc()
        if values is None:
            S.data[:] = True
        else:
            S.sum_duplicates()
        S.sort_indices()
        return cls._from_sorted_csc(S, pattern=values is None, directed=bool(directed),
                                    device=_dev.resolve(device), symmetric=not directed)

    @classmethod
    def from_networkx(cls, G, weight=None, device="auto"):
        """From a networkx Graph/DiGraph (node order = ``list(G)``).

        ``weight=None`` gives the pattern (unweighted) graph; a string names the edge
        attribute to store (missing attributes count 1, as networkx does).  Parallel
        edges of a multigraph are merged (weights summed).
        """
        import networkx as nx

        nodes = list(G)
        if not nodes:
            S = sp.csc_array((0, 0), dtype=np.bool_)
        elif weight is None:
            S = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=None, format="csc", dtype=np.float64)
            S.data[:] = 1.0
            S = S.astype(np.bool_)
        else:
            S = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, format="csc", dtype=np.float64)
        directed = G.is_directed()
        return cls.from_scipy(S, directed=directed, device=device)


def _orientation(S, directed):
    """(S, directed, symmetric) for a canonical CSC S and the ``directed`` argument of the
    constructors: None decides by symmetry; False symmetrises an unsymmetric S (square only)."""
    square = S.shape[0] == S.shape[1]
    if directed is None:
        symmetric = square and _is_symmetric(S)
        return S, not symmetric, symmetric
    if directed:
        return S, True, False
    if not square:
        raise InvalidGraph(f"an undirected graph needs a square matrix, got shape {S.shape}")
    if not _is_symmetric(S):
        S = _symmetrize(S)
    return S, False, True


def _is_symmetric(S) -> bool:
    """Whether the canonical (sorted, duplicate-free) CSC S equals its transpose, pattern and values
    (a bool matrix's values are not compared: it is stored pattern-only): one transpose and three
    array comparisons, no difference matrix (a NaN is never equal)."""
    if S.shape[0] != S.shape[1]:
        return False
    T = S.T.tocsc()
    T.sort_indices()
    return (np.array_equal(S.indptr, T.indptr) and np.array_equal(S.indices, T.indices)
            and (S.dtype == np.bool_ or np.array_equal(S.data, T.data)))  # a bool matrix is a pattern


def _symmetrize(S):
    """Pattern union of the canonical CSC S and S.T, for directed=False on an unsymmetric matrix.

    An entry stored in one direction only is mirrored with its value, explicitly stored zeros
    included (they are arcs).  Where both directions are stored with different values there is
    no right answer to choose silently: InvalidGraph.  A bool matrix is a pattern: its values
    are not compared.
    """
    T = S.T.tocsc()
    T.sort_indices()
    n = S.shape[0]

    def keys(M):  # column-major position of every entry, ascending for a canonical CSC
        cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(M.indptr).astype(np.int64))
        return cols * n + M.indices.astype(np.int64)

    key = np.concatenate([keys(S), keys(T)])
    data = np.concatenate([S.data, T.data])
    order = np.argsort(key, kind="stable")
    key, data = key[order], data[order]
    twice = np.flatnonzero(key[1:] == key[:-1])
    if S.dtype != np.bool_ and twice.size and np.any(data[twice] != data[twice + 1]):
        raise InvalidGraph("directed=False, but the matrix stores (i, j) and (j, i) with different values; "
                           "symmetrise it yourself (e.g. S.maximum(S.T) or S + S.T) or pass directed=True")
    first = np.ones(key.shape[0], dtype=bool)
    first[twice + 1] = False
    key, data = key[first], data[first]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(key // n, minlength=n), out=indptr[1:])
    return sp.csc_array((data, key % n, indptr), shape=S.shape)
