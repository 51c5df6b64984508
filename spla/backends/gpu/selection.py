"""Choosing a GPU kernel from the shape of the graph: the scale-free metric and the rules on it.

Li et al.'s s-metric of a graph is  s(G) = Σ_{(u,v) ∈ E} deg(u)·deg(v),  large when high-degree
vertices link to each other.  spla normalises it by the arc count, as TurboBC's kernel choice does:

    scf(A) = s(G) / m = mean over the m stored arcs (u -> v) of deg(u)·deg(v)

with deg = out-degree (stored entries per row): d² for a d-regular graph, growing with both the mean
degree and the degree skew.

``choose_kernel`` applies these rules, in order (the thresholds are fields of spla.tuning.Tuning;
docs/decisions/tuning.md gives the measurements behind each):

* k-blocks of ``block_k`` or more vectors whose rows are whole 16-byte pieces of at most
  ``rows_max_bytes``: ``veCSC``, whose block mode gives each column a group of lanes that gathers the
  rows with 16-byte loads and splits long columns; other blocks of ``block_k`` or more (the wide
  float64 blocks of all-sources betweenness): ``scCSC``, a thread per (column, vector), vectors
  fastest, each gathered row read in one coalesced transaction;
* one vector with a mask, on graphs of long columns: ``scCSC``, whose masked mode runs warp tiles (a
  warp tests many columns' mask bytes and spreads the kept ones over its lanes; long columns are cut
  into chunks), so that only the kept columns' arcs are read:
  * ``masked="sparse"`` (the caller knows the computed columns hold about half of the arcs or fewer):
    on hub graphs (below) whatever their size, and on graphs of ``scf >= vector_scf`` that are not
    small (below);
  * ``masked=True``, a mask of unknown density (``vxm``'s "auto"): on hub graphs of at least
    ``unknown_tiles_waves`` waves of the device in arcs, where the device time the tiles save covers
    the host time their launches cost;
* hub columns (longest column >= ``cooc_skew`` x the mean: Kronecker, Barabási–Albert): ``scCOOC`` (a
  thread per entry has no long tail), unmasked or with ``masked="dense"`` (the caller knows the mask
  keeps most columns);
* ``scf >= vector_scf`` without such hubs (long columns throughout, e.g. Mycielski): ``veCSC``, except
  for one vector on a small graph: fewer stored arcs than ``cooc_small_waves`` waves of the device go
  to ``scCOOC``, a masked product too (latency-bound: a thread per entry has the shortest chain of
  loads);
* otherwise (short, regular columns: meshes, grids, Watts–Strogatz) ``scCSC``.

A kernel that cannot run the semiring/dtype (``backend.supports``) is skipped.

Direction (push or pull).  The rules above pick among the *pull* kernels, whose work is the arcs
entering the computed outputs.  ``push`` works from the other side: the arcs leaving the inputs that
are not the identity.  Only the caller knows both counts without reading u (a BFS level knows its
frontier's out-arcs and its unreached vertices' in-arcs), so ``choose_kernel(A, push_arcs=...,
pull_arcs=...)`` decides, for one vector, by a cost in arcs (:func:`direction_cost`; Beamer et al.'s
direction-optimising BFS, without its early exit: counting shortest paths needs every parent, so a
pull walks whole columns):

* the pull kernel by the rules above, with ``masked="sparse"`` when the computed outputs hold at most
  ``sparse_pull`` of the arcs, else ``masked="dense"``; it costs those arcs, or every stored arc for
  scCOOC (a thread per entry);
* ``push`` costs ``push_cost * push_arcs + push_fixed_arcs``: an arc pushed is an atomic at a
  scattered address, and a push launches two more kernels than a pull (the output's fill and the
  input worklist).  It is chosen when it costs less.
"""

from __future__ import annotations

import numbers

import numpy as np

from ... import device as _dev
from ... import semirings as _sr
from ... import tuning as _tuning
from ...errors import DomainMismatch, KernelUnavailable
from ...matrix import Matrix, declare_cache
from .. import for_device
from .launch import resident_threads

METRIC_KEY = declare_cache("scale_free_metric", "the matrix's scale-free metric (a float)")
COLUMN_STATS_KEY = declare_cache("column_stats", "the longest column and the mean column length of the matrix")
CHOICE_KEY = declare_cache("choose_kernel", "choose_kernel's (kernel, reason) for the matrix, per question and setting")

#: entries per pass of the metric's sums (bounds its temporaries: 16 bytes an entry)
METRIC_STEP = 1 << 22

def scale_free_metric(A) -> float:
    """scf(A) = Σ_{stored (i, j)} outdeg(i)·outdeg(j) / nnz   (float; 0.0 for an empty matrix).

    For a rectangular matrix the degrees are row counts for i and column counts for j.  Computed
    once per matrix, on its device, with array operations on its index arrays; the sums are exact
    integers while they stay below 2^53.
    """
    _check_matrix("scale_free_metric", A)
    return A.cached(METRIC_KEY, lambda: _metric(A))


def _metric(A) -> float:
    if A.nnz == 0:
        return 0.0
    with _dev.activate(A.device):  # A on "gpu:1": its degrees' casts and sums stay there, whichever GPU is current
        deg_j = (A.out_degree() if A.shape[0] == A.shape[1] else A.in_degree()).astype(np.float64)
        # Σ_p deg(row_p) deg(col_p) = Σ_j deg(j) Σ_{i -> j} deg(i)
        row_deg_sum = _column_sums(A, A.out_degree()).astype(np.float64)
        s = float((row_deg_sum * deg_j).sum())
    return s / A.nnz


def _column_sums(A, weights, step=METRIC_STEP):
    """(ncols,) int64: Σ over the stored entries (i, j) of column j of weights[i], for int64 weights of
    A's rows, with array operations of A's array module: running sums of the entries' weights read at
    the column boundaries, ``step`` entries at a time (exact in int64)."""
    xp = A.xp
    ncols, nnz = A.shape[1], A.nnz
    colptr = A.colptr.astype(np.int64)
    bounds = _dev.to_numpy(A.colptr).astype(np.int64)  # where each pass's boundaries lie, on the host
    at = xp.zeros(ncols + 1, dtype=np.int64)  # at[j] = Σ of the weights of entries 0 .. colptr[j] - 1
    carry = xp.zeros((), dtype=np.int64)
    for lo in range(0, nnz, step):
        hi = min(nnz, lo + step)
        run = xp.cumsum(weights[A.rowidx[lo:hi]], dtype=np.int64)
        first, last = np.searchsorted(bounds, [lo, hi], side="right")  # the boundaries in (lo, hi]
        if last > first:
            at[first:last] = run[colptr[first:last] - (lo + 1)] + carry
        carry = carry + run[-1]
    return at[1:] - at[:-1]


def _column_stats(A):
    """(longest column, mean column length) of A, cached: the mean is nnz / ncols."""
    def build():
        with _dev.activate(A.device):  # the reductions run on A's GPU
            if A.shape[1] == 0:
                return 0, 0.0
            # the mean is nnz / ncols (CuPy's mean of int64 compiles on first use; this is exact)
            return int(A.in_degree().max()), A.nnz / A.shape[1]
    return A.cached(COLUMN_STATS_KEY, build)


def choose_kernel(A, k=1, semiring=None, dtype=None, masked=False, *, push_arcs=None, pull_arcs=None):
    """(kernel name, one-line reason) for products whose outputs are A's columns.

    k: vectors per product (1 or the block width); semiring/dtype: skip kernels that
    cannot run them; masked: what the caller knows of the mask --

    * False: no mask;
    * True: a mask of unknown density.  One vector on a hub graph of at least the tuning's
      unknown_tiles_waves waves of the device in arcs gets scCSC's warp tiles, which cost little more
      than the unmasked choice when every column is kept and win once about half or fewer are kept
      (module docstring); other graphs keep the unmasked choice.  ``vxm``'s ``kernel="auto"``
      passes True when there is a mask;
    * "dense": the computed columns hold more than about half of the arcs: the same choice as no mask;
    * "sparse": they hold about half of the arcs or fewer: the warp tiles on hub graphs whatever
      their size and on graphs of scale-free metric >= the tuning's vector_scf that are not small.

    A caller who knows more than ``vxm`` asks for the kernel:
    ``spla.vxm(u, A, sr, mask=m, kernel=spla.choose_kernel(A, masked="dense")[0])``.

    push_arcs, pull_arcs: the work of each direction when the caller knows it (both or
    neither; numbers >= 0): the stored entries in the rows of A whose input is not the
    identity, and in the columns of A that are computed.  With k == 1 they choose between
    ``push`` and a pull kernel (module docstring); e.g. a BFS level's
    ``frontier<!reached> = frontier +.* A`` passes the frontier's out-arcs and the
    unreached vertices' in-arcs.  For an ``mxv(A, u)`` pass ``A.T`` (its outputs are A's rows).
    """
    _check_matrix("choose_kernel", A)
    # a bool or the string itself: 1, 0.0 or an array (the mask instead of whether there is one) are refused
    if not (isinstance(masked, (bool, np.bool_)) or (isinstance(masked, str) and masked in ("dense", "sparse"))):
        raise ValueError(f"choose_kernel: masked must be False, True, 'dense' or 'sparse', got {masked!r:.80}")
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"choose_kernel: k must be an integer >= 0 (vectors per product), got {k!r}")
    semiring = None if semiring is None else _sr.get(semiring)
    if dtype is None:  # float32, or the semiring's first domain when it has no float32
        dtype = np.dtype(np.float32)
        if semiring is not None and dtype not in semiring.dtypes:
            dtype = np.dtype(semiring.dtypes[0])
    given = dtype
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        dtype = None
    if dtype is None or (semiring is None and dtype not in _sr.ALL):  # a semiring's own domains are checked next
        raise DomainMismatch(f"choose_kernel: dtype must be a product domain ({', '.join(map(str, _sr.ALL))}), "
                             f"got {given!r:.80}")
    if semiring is not None and dtype not in semiring.dtypes:
        raise semiring.dtype_error(dtype, "choose_kernel")
    t = _tuning.current()
    if push_arcs is not None or pull_arcs is not None:
        return _choose_direction(A, k, semiring, dtype, masked, push_arcs, pull_arcs, t)
    return _choose_cached(A, k, semiring, dtype, masked, t)


def _choose_cached(A, k, semiring, dtype, masked, t):
    """:func:`_choose`, decided once per matrix and setting (products in a loop ask again and again)."""
    # what the one-vector rules see of the mask: "unknown", "sparse" or "none" ("dense" is no mask to them)
    mask = {True: "unknown", "sparse": "sparse"}.get(masked, "none") if int(k) == 1 else "none"
    key = (CHOICE_KEY, int(k), None if semiring is None else semiring.name, dtype.str, mask, t.vector_scf,
           t.cooc_skew, t.block_k, t.rows_max_bytes, t.unknown_tiles_waves, t.cooc_small_waves, t.vecsc_fill_threads)
    got = A.peek_cached(key)  # asked before every "auto" product: one lookup
    return got if got is not None else A.cached(key, lambda: _choose(A, k, semiring, dtype, mask, t))


def _check_matrix(who, A):
    if not isinstance(A, Matrix):
        raise TypeError(f"{who}: A must be a spla.Matrix, got {type(A).__name__}; build one with "
                        "spla.Matrix.from_scipy / from_edges / from_networkx")


def _arc_count(name, value):
    # a number (NumPy's too), not a bool or a string that float() would read
    ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and float(value) >= 0
    if not ok:
        raise ValueError(f"choose_kernel: {name} must be a number of arcs >= 0 (give push_arcs and pull_arcs "
                         f"together), got {value!r}")
    return float(value)


def direction_cost(A, kernel, push_arcs, pull_arcs) -> float:
    """The modelled cost, in arcs, of a product by ``kernel`` whose non-identity inputs leave
    ``push_arcs`` arcs and whose computed outputs receive ``pull_arcs`` (A: outputs are its columns)."""
    if kernel == "push":
        t = _tuning.current()
        return t.push_cost * float(push_arcs) + t.push_fixed_arcs
    if kernel == "scCOOC":
        return float(A.nnz)
    return float(pull_arcs)


def may_push(A) -> bool:
    """Whether a push can ever cost less than a pull of A's products (outputs are A's columns): a pull
    costs at most every stored arc, a push at least the tuning's push_fixed_arcs.  A caller that would
    count arcs only to choose the direction can skip the counting when this is False."""
    return float(A.nnz) > _tuning.current().push_fixed_arcs


def _choose_direction(A, k, semiring, dtype, masked, push_arcs, pull_arcs, t):
    """choose_kernel with the work of both directions known (see the module docstring)."""
    push = _arc_count("push_arcs", push_arcs)
    pull = _arc_count("pull_arcs", pull_arcs)
    if masked and int(k) == 1:  # the pull's arcs say how sparse the mask is
        masked = "sparse" if pull <= t.sparse_pull * max(A.nnz, 1) else "dense"
    name, why = _choose_cached(A, k, semiring, dtype, masked, t)
    if int(k) == 1:
        push_cost, pull_cost = direction_cost(A, "push", push, pull), direction_cost(A, name, push, pull)
        ok = True if semiring is None else for_device(A.device).supports("push", semiring, dtype)[0]
        if ok and push_cost < pull_cost:
            return "push", (f"push: the inputs that contribute leave {push:,.0f} arcs, the computed outputs "
                            f"receive {pull:,.0f}; modelled cost {push_cost:,.0f} < {pull_cost:,.0f} arcs by {name}")
    return name, f"pull ({pull:,.0f} arcs into the computed outputs, {push:,.0f} out of the inputs): {why}"


def _choose(A, k, semiring, dtype, mask, t):
    """(name, reason) by the module docstring's rules; mask: "none", "unknown" or "sparse" (one vector);
    t: the spla.tuning.Tuning in force."""
    backend = for_device(A.device)
    scf = scale_free_metric(A)
    max_len, mean_len = _column_stats(A)
    skewed = mean_len > 0 and max_len >= t.cooc_skew * mean_len
    threads = resident_threads(A.device)
    small = A.nnz < t.cooc_small_waves * threads
    row_bytes = int(k) * dtype.itemsize
    if k >= t.block_k and row_bytes % 16 == 0 and row_bytes <= t.rows_max_bytes:
        order = ("veCSC", "scCSC", "scCOOC")
        why = (f"block of k={k} vectors ({row_bytes}-byte rows): a lane group per column reads each gathered "
               "row in 16-byte pieces (long columns split)")
    elif k >= t.block_k:
        order = ("scCSC", "veCSC", "scCOOC")
        why = (f"block of k={k} vectors ({row_bytes}-byte rows): a thread per (column, vector), each gathered "
               "row read coalesced")
    elif mask == "sparse" and (skewed or (scf >= t.vector_scf and not small)):
        order = ("scCSC", "veCSC", "scCOOC")
        why = ((f"max column length {max_len} >= {t.cooc_skew:g} x mean {mean_len:.3g}" if skewed else
                f"scale-free metric {scf:.4g} >= {t.vector_scf:g}, {A.nnz:,} arcs") + " with a sparse mask: warp "
               "tiles test the mask and spread the kept columns over their lanes, long columns split")
    elif mask == "unknown" and skewed and A.nnz >= t.unknown_tiles_waves * threads:
        order = ("scCSC", "veCSC", "scCOOC")
        why = (f"a mask of unknown density, max column length {max_len} >= {t.cooc_skew:g} x mean {mean_len:.3g} "
               f"and {A.nnz:,} arcs >= {t.unknown_tiles_waves:g} waves of the device: warp tiles skip the "
               "masked-out columns, at most ~1.25x slower when every column is kept")
    elif skewed:
        order = ("scCOOC", "veCSC", "scCSC")
        why = (f"scale-free metric {scf:.4g}, max column length {max_len} >= {t.cooc_skew:g} x mean "
               f"{mean_len:.3g}: hub columns, a thread per entry avoids their tail")
    elif scf >= t.vector_scf and int(k) == 1 and small:
        order = ("scCOOC", "veCSC", "scCSC")
        why = (f"scale-free metric {scf:.4g} >= {t.vector_scf:g} without hubs, but {A.nnz:,} arcs < "
               f"{t.cooc_small_waves:g} waves of the device: latency-bound, a thread per entry has the shortest chain")
    elif scf >= t.vector_scf:
        order = ("veCSC", "scCOOC", "scCSC")
        why = f"scale-free metric {scf:.4g} >= {t.vector_scf:g} without hubs: long columns, a lane group per column"
    else:
        order = ("scCSC", "veCSC", "scCOOC")
        why = f"scale-free metric {scf:.4g} < {t.vector_scf:g} and short columns: a thread per column"
    if semiring is not None:
        for i, name in enumerate(order):
            ok, reason = backend.supports(name, semiring, dtype)
            if ok:
                if i:
                    why += f"; {order[0]} cannot run {semiring.name} on {dtype} ({reason})"
                return name, why
        reasons = "; ".join(f"{name}: {backend.supports(name, semiring, dtype)[1]}" for name in order)
        raise KernelUnavailable(f"no kernel on {A.device} can run {semiring.name} on {dtype} ({reasons}); "
                                "use another dtype or the CPU")
    return order[0], why
