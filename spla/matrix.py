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

A matrix of n columns holds n + 1 column pointers whatever its entries: the constructors, the
transpose and :meth:`Matrix.to` check the bytes a size implies against the memory available on the
device (:func:`spla.memory.require`) and raise :class:`spla.InsufficientMemory` before allocating
when they do not fit (a caller's n of billions with a handful of edges).

A directed graph's products in both directions (``vxm`` pulls over in-neighbours,
``mxv`` over out-neighbours) need the transpose: ``A.T`` is built once and cached
(another n + 1 + m words).  An undirected graph is symmetric, so ``A.T is A``.

A stored entry A[i, j] (an explicitly stored zero too) is the arc i -> j (row = tail, column =
head), as in networkx's ``to_scipy_sparse_array`` and ``from_scipy_sparse_array``.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

from . import device as _dev
from . import memory as _memory
from . import transpose as _transpose
from .errors import DomainMismatch, InvalidGraph
from .matrix_inputs import DIM_MAX, check_directed, check_value_dtype, edge_weights, shape_pair, value_array, vertex_count
from .merge import check_dup, merge_arcs
from .symmetry import orientation

INT32_MAX = np.iinfo(np.int32).max


#: the lazy caches a Matrix may keep (:meth:`Matrix.cached`), by name: what each holds.  The module
#: that builds a value declares its name beside the code that builds it.
CACHE_KEYS: dict = {}


def declare_cache(name: str, what: str) -> str:
    """Declare the cache ``name`` (a one-line ``what`` it holds) and return the name.  Declaring a
    name twice with different descriptions is an error: two modules would share its entries."""
    if CACHE_KEYS.get(name, what) != what:
        raise ValueError(f"cache key {name!r} is declared already: {CACHE_KEYS[name]}")
    CACHE_KEYS[name] = what
    return name


declare_cache("pattern", "the matrix's structure as a pattern-only Matrix sharing its index arrays")


def _read_only(a):
    """A read-only view of a NumPy array (the caller's array keeps its flags); other arrays as they are."""
    if isinstance(a, np.ndarray) and a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def index_dtype(nnz: int, *dims: int):
    """int32 when every index and offset fits, else int64."""
    return np.dtype(np.int32) if max([nnz, *dims], default=0) < INT32_MAX else np.dtype(np.int64)


def csc_nbytes(nrows: int, ncols: int, nnz: int, value_itemsize: int = 0) -> int:
    """Bytes of the CSC arrays of an (nrows, ncols) matrix of ``nnz`` stored entries: ncols + 1 column
    pointers and nnz row indices of :func:`index_dtype`, and nnz values of ``value_itemsize`` bytes."""
    idx = index_dtype(nnz, nrows, ncols).itemsize
    return (ncols + 1) * idx + nnz * (idx + value_itemsize)


#: what to do when a matrix's dimension needs more memory than there is
_SPARSE_IDS = ("a matrix stores a column pointer per vertex whatever its edges: number the vertices that "
               "occur 0..k-1 (ids, inverse = numpy.unique(numpy.concatenate([src, dst]), return_inverse=True)), "
               "as spla.io.read_graph does for edge lists")


def _entries(nnz: int) -> str:
    return f"{nnz:,} stored {'entry' if nnz == 1 else 'entries'}"


def _require_host(nbytes, what, remedy=_SPARSE_IDS):
    """Refuse building a matrix whose announced size needs more host memory than is available."""
    _memory.require(nbytes, "cpu", what=what, remedy=remedy)


class Matrix:
    """An (nrows, ncols) sparse matrix in CSC form on one device.

    Build one with :meth:`from_scipy`, :meth:`from_edges`, :meth:`from_networkx` or
    :meth:`from_csc`.  Pattern-only matrices (``values is None``) have every stored
    entry equal to 1 (True).
    """

    def __init__(self, colptr, rowidx, values, shape, *, directed=True, device="cpu", _symmetric=False):
        self._colptr = _read_only(colptr)
        self._rowidx = _read_only(rowidx)
        self._values = _read_only(values)
        self.shape = (int(shape[0]), int(shape[1]))
        self.directed = bool(directed)
        self.device = device
        self._colidx = None
        self._T = self if (_symmetric and self.shape[0] == self.shape[1]) else None
        self._out_degree = None
        self._in_degree = None
        self._cache = {}

    # ------------------------------------------------------------------ format arrays
    # The format arrays are fixed for the matrix's life: every cache below is derived from them, so
    # they are read-only attributes (NumPy arrays are also flagged read-only; CuPy has no such flag,
    # so writing into a GPU matrix's arrays in place is a caller's error that no cache would notice).
    @property
    def colptr(self):
        """Column pointers (ncols + 1,): column j's entries are ``rowidx[colptr[j]:colptr[j+1]]``."""
        return self._colptr

    @property
    def rowidx(self):
        """Row index of every stored entry (nnz,), sorted within each column."""
        return self._rowidx

    @property
    def values(self):
        """Value of every stored entry (nnz,), or None for a pattern-only matrix (every entry 1)."""
        return self._values

    # ------------------------------------------------------------------ lazy caches
    def cached(self, key, build):
        """``build()``, computed once for this matrix and kept under ``key``.

        ``key`` is a name declared with :func:`declare_cache`, or a tuple whose first item is one, the
        rest naming every setting the value depends on (dtype, tuning field, device).  Everything
        derived from the format arrays goes through here, so :meth:`drop_cached` reaches it all.
        """
        name = key[0] if isinstance(key, tuple) else key
        if name not in CACHE_KEYS:
            raise KeyError(f"cache key {name!r} is not declared; declare it with spla.matrix.declare_cache")
        cache = self._cache
        if key not in cache:
            cache[key] = build()
        return cache[key]

    def peek_cached(self, key, default=None):
        """The value kept under ``key``, or ``default`` when nothing is (nothing is built)."""
        return self._cache.get(key, default)

    def drop_cached(self, name=None):
        """Forget what :meth:`cached` kept: every entry, or those under the declared ``name``."""
        if name is None:
            self._cache.clear()
            return
        if name not in CACHE_KEYS:
            raise KeyError(f"cache key {name!r} is not declared")
        for key in [k for k in self._cache if (k[0] if isinstance(k, tuple) else k) == name]:
            del self._cache[key]

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
        return self.cached("pattern", lambda: Matrix(self.colptr, self.rowidx, None, self.shape,
                                                     directed=self.directed, device=self.device,
                                                     _symmetric=self._T is self))

    @property
    def is_symmetric(self) -> bool:
        """Whether the matrix is stored as its own transpose (``A.T is A``: an undirected graph).
        Read from how it was built; the transpose is never computed to find out."""
        return self._T is self

    def astype(self, dtype) -> "Matrix":
        """This matrix with its values cast to ``dtype`` (bool, integer or float of at most 64 bits),
        sharing the index arrays, direction and symmetry; a pattern-only matrix gets values 1.  Not
        cached: each call casts anew."""
        dtype = np.dtype(dtype)
        check_value_dtype(dtype)
        xp = self.xp
        with _dev.activate(self.device):
            values = xp.ones(self.nnz, dtype=dtype) if self.values is None else self.values.astype(dtype)
        return Matrix(self.colptr, self.rowidx, values, self.shape, directed=self.directed, device=self.device,
                      _symmetric=self._T is self)

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
        # 8 bytes per entry at the peak on a GPU (cupy.repeat with array counts holds ~100)
        return _transpose.entry_columns(self.xp, self.colptr, self.nnz)

    # -------------------------------------------------------------- transpose
    @property
    def T(self) -> "Matrix":
        """The transpose, computed once and cached (``A.T is A`` for undirected graphs).  A GPU matrix's is
        built on its GPU when the device has the memory for it (:mod:`spla.transpose`), else, like a CPU
        matrix's, on the host (:class:`spla.InsufficientMemory` before allocating when it does not fit
        there either)."""
        if self._T is None:
            t = self._transpose_on_device() if _dev.is_gpu(self.device) else None
            if t is None:
                t = self._transpose_on_host()
            t._T = self
            self._T = t
        return self._T

    def _transpose_on_device(self):
        """The transpose built on this matrix's GPU, or None when the device lacks the memory for it."""
        r, c = self.shape
        vsize = 0 if self.values is None else self.values.dtype.itemsize
        need = _transpose.device_bytes(self.shape, self.nnz, self.index_dtype.itemsize, vsize)
        if not _transpose.fits_keys(self.shape) or need > (_memory.available_bytes(self.device) or 0):
            return None
        with _dev.activate(self.device):
            colptr, rowidx, values = _transpose.csc_of_transpose(self.xp, self.colptr, self.rowidx, self.values,
                                                                 self.shape, self.out_degree())
        return Matrix(colptr, rowidx, values, (c, r), directed=self.directed, device=self.device)

    def _transpose_on_host(self):
        """The transpose built on the host by SciPy, then moved to this matrix's device."""
        # the host copy of a GPU matrix, and SciPy's transposed CSC; Matrix.to checks the device's part
        vsize = 1 if self.values is None else self.values.dtype.itemsize
        need = csc_nbytes(self.shape[1], self.shape[0], self.nnz, vsize)
        need += 0 if self.device == "cpu" else self.colptr.nbytes + self.rowidx.nbytes + vsize * self.nnz
        _require_host(need, f"the transpose of a {self.shape[0]:,} x {self.shape[1]:,} matrix of "
                            f"{_entries(self.nnz)}", "free host memory (other matrices, Matrix.drop_cached)")
        S = self._to_scipy_csc(values_as_is=True).T.tocsc()
        S.sort_indices()
        return Matrix._from_sorted_csc(S, pattern=self.is_pattern, directed=self.directed, device=self.device)

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
        """This matrix on ``device`` ("cpu", "gpu", "gpu:N", "auto"); self when already there
        (:class:`spla.InsufficientMemory` before copying when its arrays do not fit there)."""
        device = _dev.resolve(device)
        if device == self.device:
            return self
        need = self.colptr.nbytes + self.rowidx.nbytes + (0 if self.values is None else self.values.nbytes)
        _memory.require(need, device, what=f"moving a {self.shape[0]:,} x {self.shape[1]:,} matrix of "
                                           f"{_entries(self.nnz)} to {device}",
                        remedy=(f"free memory on {device} (spla.memory.release gives back CuPy's cached blocks) "
                                "or use device='cpu'") if _dev.is_gpu(device) else "free host memory")
        mv = (lambda a: None if a is None else _dev.to_device(a, device))
        out = Matrix(mv(self.colptr), mv(self.rowidx), mv(self.values), self.shape,
                     directed=self.directed, device=device, _symmetric=self._T is self)
        return out

    # -------------------------------------------------------------- pickling
    # A pickled matrix (what a process pool or a Dask cluster ships) carries its format arrays, shape,
    # direction, device and whether it is its own transpose; its caches are rebuilt where it lands.
    def __getstate__(self):
        return {"colptr": self.colptr, "rowidx": self.rowidx, "values": self.values, "shape": self.shape,
                "directed": self.directed, "device": self.device, "symmetric": self._T is self}

    def __setstate__(self, state):
        self.__init__(state["colptr"], state["rowidx"], state["values"], state["shape"],
                      directed=state["directed"], device=state["device"], _symmetric=state["symmetric"])

    def to_scipy(self, keep_dtype=False):
        """A ``scipy.sparse.csc_array`` copy on the host, values in their stored dtype.  A pattern-only
        matrix's entries become 1.0 (float64), or True (bool, its own dtype) with ``keep_dtype``."""
        return self._to_scipy_csc(values_as_is=bool(keep_dtype))

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
        check_directed(directed)
        device = _dev.resolve(device)
        colptr = np.asarray(_dev.to_numpy(colptr))
        rowidx = np.asarray(_dev.to_numpy(rowidx))
        vals = None if values is None else value_array(values)
        shape = shape_pair(shape)
        for what, arr in (("colptr", colptr), ("rowidx", rowidx)):
            if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
                raise InvalidGraph(f"{what} must be a 1-D integer array, got dtype {arr.dtype} and shape {arr.shape}")
        if colptr.shape != (shape[1] + 1,) or colptr[0] != 0 or colptr[-1] != rowidx.shape[0] or \
                (shape[1] and np.any(np.diff(colptr) < 0)):
            raise InvalidGraph(f"colptr must be non-decreasing, length ncols+1 = {shape[1] + 1}, from 0 to "
                               f"nnz = len(rowidx) = {rowidx.shape[0]}")
        if rowidx.size and (rowidx.min() < 0 or rowidx.max() >= shape[0]):
            bad = rowidx.min() if rowidx.min() < 0 else rowidx.max()
            raise InvalidGraph(f"row index {int(bad)} is outside 0..{shape[0] - 1} (nrows={shape[0]}); "
                               "fix rowidx or pass a larger shape")
        if vals is not None:
            if vals.shape != rowidx.shape:
                raise InvalidGraph(f"values must have one entry per stored entry ({rowidx.shape[0]}), "
                                   f"got shape {vals.shape}")
        # no memory check: the caller's arrays hold every size (the transpose checks its own)
        data = np.ones(rowidx.shape[0], dtype=np.bool_) if vals is None else vals
        S = sp.csc_array((data, rowidx, colptr), shape=shape)
        S.sum_duplicates()
        S.sort_indices()
        S, directed, symmetric = orientation(S, directed)
        return cls._from_sorted_csc(S, pattern=vals is None, directed=directed, device=device,
                                    symmetric=symmetric)

    @classmethod
    def from_scipy(cls, S, directed=None, device="auto"):
        """From any SciPy sparse matrix/array (or a dense 2-D NumPy array).

        ``directed=None``: a square matrix equal to its transpose (pattern and values)
        is an undirected graph, anything else directed.  ``directed=False`` on an
        unsymmetric matrix symmetrises it (pattern union, an entry stored one way is
        mirrored; conflicting values in the two directions raise InvalidGraph).  Entries that are
        explicitly stored zeros are kept as arcs.  Matrices whose stored values are all 1
        (True) are stored pattern-only; a bool matrix with a stored False keeps its values.
        A shape whose column pointers (with the entries) need more host memory than is available
        raises :class:`spla.InsufficientMemory` before anything is allocated.
        """
        check_directed(directed)
        device = _dev.resolve(device)
        if not sp.issparse(S):
            given = S
            nx = sys.modules.get("networkx")  # a networkx graph exists only once networkx is imported
            if isinstance(given, Matrix) or (nx is not None and isinstance(given, nx.Graph)):
                raise TypeError(f"from_scipy takes a SciPy sparse matrix/array or a 2-D NumPy array, got "
                                f"{type(given).__name__}; " + ("use Matrix.from_networkx" if nx is not None and
                                isinstance(given, nx.Graph) else "it is a spla.Matrix already (Matrix.to moves it)"))
            S = np.asarray(S)
            if S.ndim != 2:
                what = (f"an array of shape {S.shape}" if isinstance(given, np.ndarray) else
                        f"{type(given).__name__} {given!r:.80} (read as an array of shape {S.shape})")
                raise InvalidGraph(f"expected a 2-D matrix, got {what}; pass a SciPy sparse matrix/array or a 2-D "
                                   "NumPy array")
            check_value_dtype(np.float32 if S.dtype == np.float16 else S.dtype, "matrix values")
            S = sp.csc_array(S.astype(np.float32) if S.dtype == np.float16 else S)
        nrows, ncols = S.shape
        # the CSC copy (duplicates included until they are summed), and the column pointers of the
        # transpose the symmetry test compares it with (its entries are not known before)
        need = csc_nbytes(nrows, ncols, S.nnz, S.dtype.itemsize)
        need += csc_nbytes(nrows, nrows, 0) if (directed is None or not directed) and nrows == ncols else 0
        _require_host(need, f"a {nrows:,} x {ncols:,} matrix of {_entries(S.nnz)}",
                      "a matrix stores a column pointer per column whatever its entries: renumber the rows and "
                      "columns that hold entries 0..k-1 before building it")
        S = sp.csc_array(S, copy=True)
        check_value_dtype(S.dtype, "matrix values")
        S.sum_duplicates()
        S.sort_indices()
        S, directed, symmetric = orientation(S, directed)
        pattern = S.nnz == 0 or bool(np.all(S.data == 1))
        return cls._from_sorted_csc(S, pattern=pattern, directed=directed, device=device, symmetric=symmetric)

    @classmethod
    def from_edges(cls, src, dst, n=None, values=None, directed=False, device="auto", *, dup="plus"):
        """From arc lists ``src[e] -> dst[e]`` (integer arrays of the same length).

        ``n`` defaults to max(src, dst) + 1.  Self-loops are kept.  Duplicate arcs are merged
        with ``dup`` (GraphBLAS build's dup operator, :mod:`spla.merge`): ``"plus"`` (the default)
        sums their values, as networkx's ``to_scipy_sparse_array`` of a multigraph does; ``"min"``
        keeps the smallest (the shortest arc: build a matrix for weighted path measures so),
        ``"max"`` the largest, ``"first"``/``"last"`` the value listed first/last.  With
        ``values=None`` there is nothing to merge.

        ``directed=False`` (the default) reads every listed pair as an undirected edge and adds
        its reverse arc.  The pattern does not depend on how often or in which direction an
        edge is listed, but with ``values`` every listing is one parallel edge of a multigraph
        and is merged by ``dup``: ``(0, 1, 5)`` and ``(1, 0, 3)`` give the edge the weight 8 with
        ``"plus"``, 3 with ``"min"``, 5 with ``"first"``; a self-loop listed once keeps its value.
        The COO triplets of a symmetric matrix list each edge twice, so build such a matrix with
        :meth:`from_scipy`, or with ``dup="first"``.  ``directed=True`` keeps the arcs
        as listed; ``directed=None`` keeps them and calls the graph undirected when the arc
        list is symmetric (pattern and values), as :meth:`from_scipy` does.  ``values=None``
        gives a pattern-only matrix.

        The matrix stores n + 1 column pointers whatever the edges: when n (with the edges) needs more
        host memory than is available, :class:`spla.InsufficientMemory` is raised before anything is
        allocated.  Number sparse vertex ids 0..k-1 first (``numpy.unique(..., return_inverse=True)``).
        """
        check_directed(directed)
        check_dup(dup)
        device = _dev.resolve(device)
        src = np.asarray(_dev.to_numpy(src))
        dst = np.asarray(_dev.to_numpy(dst))
        if src.shape != dst.shape or src.ndim != 1:
            raise InvalidGraph(f"src and dst must be 1-D arrays of the same length, got shapes {src.shape} and {dst.shape}")
        if src.size and (src.dtype.kind not in "iu" or dst.dtype.kind not in "iu"):
            raise DomainMismatch(f"src and dst must be integer arrays, got {src.dtype} and {dst.dtype}")
        # Python ints, so that a uint64 id beyond int64 is reported as it is
        hi = max(int(src.max()), int(dst.max())) if src.size else -1
        lo = min(int(src.min()), int(dst.min()), 0) if src.size else 0
        if n is None and hi >= DIM_MAX:
            raise InvalidGraph(f"vertex id {hi} is beyond the int64 indices spla stores (ids 0..{DIM_MAX - 1}); "
                               "renumber the vertices 0..n-1")
        n = hi + 1 if n is None else vertex_count(n, "n (the number of vertices)")
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise InvalidGraph(f"vertex id {bad} is outside 0..{n - 1} (n={n}); pass a larger n or fix the edge list")
        src = src.astype(np.int64, copy=False)
        dst = dst.astype(np.int64, copy=False)
        if values is not None:
            values = value_array(values)
            if values.shape != src.shape:
                raise InvalidGraph(f"values must have one entry per edge ({src.shape[0]}), got shape {values.shape}")
        undirected = directed is not None and not directed
        loop = src == dst if undirected else None
        arcs = src.shape[0] + (src.shape[0] - int(np.count_nonzero(loop)) if undirected else 0)
        # SciPy's CSC of the arcs (duplicates included until they are summed), the arc lists with their
        # mirrors, and the column pointers of the transpose the symmetry test of directed=None builds
        need = csc_nbytes(n, n, arcs, 1 if values is None else values.dtype.itemsize)
        need += (16 * arcs if undirected else 0) + (csc_nbytes(n, n, 0) if directed is None else 0)
        need += 32 * arcs if values is not None and dup != "plus" else 0  # the listing, the sort order, the copies
        _require_host(need, f"a graph of n={n:,} vertices and {src.shape[0]:,} "
                            f"{'edge' if src.shape[0] == 1 else 'edges'}: its matrix")
        listing = np.arange(src.shape[0], dtype=np.int64)
        if undirected:
            # undirected: every listed pair and its mirror (a self-loop once), the mirror in the pair's place
            a = np.concatenate([src, dst[~loop]])
            b = np.concatenate([dst, src[~loop]])
            v = None if values is None else np.concatenate([values, values[~loop]])
            src, dst, values, listing = a, b, v, np.concatenate([listing, listing[~loop]])
        if values is not None and dup != "plus":
            colptr, rowidx, merged = merge_arcs(src, dst, values, listing, n, dup)
            idx = index_dtype(rowidx.size, n)
            S = sp.csc_array((merged, rowidx.astype(idx), colptr.astype(idx)), shape=(n, n))
        else:
            data = np.ones(src.shape[0], dtype=np.bool_) if values is None else values
            S = sp.coo_array((data, (src, dst)), shape=(n, n)).tocsc()
            if values is None:
                S.data[:] = True
            else:
                S.sum_duplicates()
            S.sort_indices()
        if directed is None:
            S, directed, symmetric = orientation(S, None)
        else:
            directed, symmetric = bool(directed), not directed
        return cls._from_sorted_csc(S, pattern=values is None, directed=directed, device=device,
                                    symmetric=symmetric)

    @classmethod
    def from_networkx(cls, G, weight=None, device="auto", *, dup=None):
        """From a networkx Graph/DiGraph/MultiGraph/MultiDiGraph (node order = ``list(G)``).

        ``weight=None`` gives the pattern (unweighted) graph; a string names the edge
        attribute to store (missing attributes count 1, as networkx does), in the dtype NumPy
        gives the weights (int64 weights stay exact).  Weights that are all 1 give a
        pattern-only matrix.

        Parallel edges of a multigraph are merged with ``dup`` (:meth:`from_edges`; None is
        ``"plus"``: weights summed, as ``networkx.to_scipy_sparse_array`` does; ``"first"`` and
        ``"last"`` follow ``G.edges()``'s order).  networkx's weighted shortest-path functions
        (``betweenness_centrality(G, weight=...)``, ``closeness_centrality(G, distance=...)``,
        Dijkstra) use the minimum over a multigraph's parallel edges, so a matrix for the weighted
        path measures wants ``dup="min"``.  A Graph or DiGraph has no parallel edges: ``dup`` does
        not change its matrix.
        """
        import networkx as nx

        dup = check_dup("plus" if dup is None else dup)
        if not isinstance(G, nx.Graph):
            raise TypeError(f"G must be a networkx graph, got {type(G).__name__}; build a matrix's graph "
                            "with Matrix.from_scipy, or an edge list's with Matrix.from_edges")
        device = _dev.resolve(device)
        nodes = list(G)
        index = {v: i for i, v in enumerate(nodes)}
        if weight is None:
            arcs = [(index[a], index[b]) for a, b in G.edges()]
            values = None
        else:
            arcs, weights = [], []
            for a, b, w in G.edges(data=weight, default=1):
                arcs.append((index[a], index[b]))
                weights.append(w)
            values = edge_weights(G, weight, weights) if weights else None
        ends = np.array(arcs, dtype=np.int64).reshape(-1, 2)
        # an undirected graph lists each edge once: from_edges mirrors it (a self-loop once)
        M = cls.from_edges(ends[:, 0], ends[:, 1], n=len(nodes), values=values, directed=G.is_directed(),
                           device="cpu", dup=dup)
        if M.values is not None and bool(np.all(M.values == 1)):
            M = M.pattern()
        return M.to(device)
