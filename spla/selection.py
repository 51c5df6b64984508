"""Choosing a GPU kernel from the shape of the graph: the scale-free metric.

Li et al.'s s-metric of a graph is  s(G) = Σ_{(u,v) ∈ E} deg(u)·deg(v),  large when
high-degree vertices link to each other.  TurboBC picks its kernel by a "scale-free
metric" and reports values in [1, 224] for the graphs where its scalar kernels won
and [5846, 651837] where its warp-per-column kernel won; those ranges match

    scf(A) = s(G) / m = mean over the m stored arcs (u -> v) of deg(u)·deg(v)

with deg = out-degree (stored entries per row), which is spla's normalisation: it is
d² for a d-regular graph and grows with both the mean degree and the degree skew.

``choose_kernel`` applies the rule below; the thresholds were calibrated on the
benchmark graphs (H200, docs/benchmarks.md: per-kernel times beside the metric):

* k-blocks of 8 or more vectors whose rows are whole 16-byte pieces of at most
  ``ROWS_MAX_BYTES`` (one piece per lane of a warp; float32 k = 8, 12, ..., 128): ``veCSC``,
  whose block mode gives each column a group of lanes that gathers the rows with 16-byte loads
  and splits long columns (k = 32 float32, H100: 1.4-7.3x faster than scCSC, which beat the scalar
  veCSC block and scCOOC before; docs/benchmarks.md); other blocks of 8 or more: ``scCSC`` (a
  thread per (column, vector), vectors fastest: a warp reads one gathered row's k values in one
  coalesced transaction).  The wide float64 blocks of all-sources betweenness (k = 512..8192,
  4-64 KB rows) ran 10-34% slower as row pieces (a warp walks each column once per 512 bytes of
  row) than with scCSC, so they stay there;
* one vector with a mask, on graphs of long columns: ``scCSC``, whose masked mode runs warp tiles
  (a warp tests 128 columns' mask bytes and spreads the kept ones over its lanes; long columns are
  cut into chunks that the tiles list), so that only the kept columns' arcs are read:
  * ``masked="sparse"`` (the caller knows the computed columns hold about half of the arcs or
    fewer): on hub graphs (below) whatever their size, and on graphs of ``scf >= VECTOR_SCF``
    that are not small (below);
  * ``masked=True``, a mask of unknown density (``vxm``'s "auto"): on hub graphs of at least
    ``UNKNOWN_TILES_WAVES`` waves of the device in arcs (10.8M on an H100).
  Random masks keeping a fraction p of the columns (H100, device time, tools/probe_mask_density.py;
  docs/benchmarks.md): with p = 1 the tiles took 1.03-1.24x the time of the unmasked choice
  (kron18 0.077 vs scCOOC 0.062 ms, kron20 0.303 vs 0.280, BA n=2M 0.149 vs 0.146, myc16 0.077 vs
  veCSC 0.069; myc17 0.204 vs 0.224), at p = 0.75 they were even, from p = 0.5 down they won on
  every graph of >= 7M arcs (p = 0.5: kron20 0.169 vs 0.212; p = 0.1: 0.047 vs 0.164, myc17 0.031
  vs veCSC 0.055; p = 0.001: kron21 0.019 vs 0.287); on small graphs (ca-AstroPh, musae-facebook)
  scCOOC won at every p, by about 2x.  But a call of the tiles costs more host time: two launches
  of many arguments (tools/probe_host_path.py, H100 host: 110-150 µs a call against scCOOC's 60-80
  and veCSC's 100-130), which a Python loop that reads a result every call pays in full.  So a
  mask of unknown density gets the tiles only where the device time saved can cover it: hub graphs
  of many arcs (kron20 at p = 0.1 saves 116 µs, BA n=2M 72; kron18 18 and BA n=1M 35 do not),
  not Mycielski graphs, where veCSC's host time is close but its device time too (myc16 at p = 0.1
  saves 7 µs).  In single-source betweenness, whose levels are replayed as CUDA graphs (no host
  time per product), level by level (tools/probe_bc_direction.py --calibrate) the tiles beat veCSC
  on every Mycielski pull of at most half the arcs (myc17 6.3 vs 17.4, 28.9 vs 42.3 and 8.3 vs
  21.6 µs) and scCOOC on every hub pull of 30-36% of the arcs (kron20 122 vs 195 µs, kron18 31 vs
  46, BA n=1M 51 vs 62): the replayed plan of a source went from 0.240 to 0.197 ms on myc17 and
  0.875 to 0.810 on kron20 (four runs each, alternated), equal on myc15, myc16 and BA n=1M;
* hub columns (max column length >= COOC_SKEW x the mean: Kronecker, Barabási–Albert):
  ``scCOOC`` (a thread per entry has no long tail; scf is then high too), unmasked or with
  ``masked="dense"`` (the caller knows the mask keeps most columns: single-source betweenness's
  pulls of more than half the arcs, where scCOOC beat veCSC by 1.2–1.3×, H100 and H200, and the
  tiles by 1.1-1.2x when every arc is pulled);
* ``scf >= VECTOR_SCF`` without such hubs (long columns throughout, e.g. Mycielski):
  ``veCSC``, except for one vector on a small graph: fewer stored arcs than ``COOC_SMALL_WAVES``
  waves of the device (SMs x threads per SM; 1.08M arcs on an H100) go to ``scCOOC``, a masked
  product too.  Such a product is bound by latency, not bytes: scCOOC puts every arc in flight at
  once with the shortest chain of loads (index, input, atomic), where a veCSC group waits on its
  column's bounds, then its entries, then its shuffles (H100, device time, tools/probe_small.py:
  musae-facebook 0.0053 vs 0.0094 ms unmasked; single-source betweenness on ca-AstroPh 0.29-0.32 vs
  0.34-0.42 ms a source in two runs, on musae-facebook 0.27 vs 0.33 in one and equal in the other;
  about equal at 1M arcs; Watts-Strogatz of degree 40 at 2M arcs 0.30 vs
  0.25 ms, at 4M 0.43 vs 0.26: veCSC's half the bytes per arc win once the arcs are many);
* otherwise (short, regular columns: meshes, grids, Watts–Strogatz) ``scCSC``.

A kernel that cannot run the semiring/dtype (``backend.supports``) is skipped.

Direction (push or pull).  The rules above pick among the *pull* kernels, whose work is
the arcs entering the computed outputs.  ``push`` works from the other side: the arcs
leaving the inputs that are not the identity.  Only the caller knows both counts without
reading u (a BFS level knows its frontier's out-arcs and its unreached vertices' in-arcs),
so ``choose_kernel(A, push_arcs=..., pull_arcs=...)`` decides, for one vector, by a cost
in arcs (:func:`direction_cost`; Beamer et al.'s direction-optimising BFS, without its early
exit: counting shortest paths needs every parent, so a pull walks whole columns):

* the pull kernel by the rules above, with ``masked="sparse"`` when the computed outputs
  hold at most ``SPARSE_PULL`` (half) of the arcs, else ``masked="dense"`` (scCSC's warp tiles
  then walk only the sparse pulls' columns); it costs those arcs, or every stored arc for scCOOC
  (a thread per entry);
* ``push`` costs ``PUSH_COST * push_arcs + PUSH_FIXED_ARCS``: an arc pushed is an atomic at
  a scattered address, and a push launches two more kernels than a pull (the output's fill
  and the input worklist).  It is chosen when it costs less.

Calibration (H100, one BFS level of single-source betweenness per row, docs/benchmarks.md):
push ran 2-3x slower per arc than scCOOC (Barabási–Albert n=1M, level 5: 2.6M arcs pushed in
129 µs, 5.0M pulled in 69 µs); its fixed cost was 6-13 µs where a whole pull of a graph of
1M arcs took 4-6 µs (Watts–Strogatz n=100k, a 400x400 grid), about 1.5M arcs' worth; below
that a small frontier is cheapest pushed (kron20: 41 arcs, 13 µs pushed, 260 µs pulled).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import device as _dev
from . import tuning as _tuning
from .backends import for_device
from .backends import gpu as _gpu
from .errors import DomainMismatch, KernelUnavailable
from .matrix import Matrix

def scale_free_metric(A) -> float:
    """scf(A) = Σ_{stored (i, j)} outdeg(i)·outdeg(j) / nnz   (float; 0.0 for an empty matrix).

    For a rectangular matrix the degrees are row counts for i and column counts for j.
    """
    _check_matrix("scale_free_metric", A)
    key = "scale_free_metric"
    if key in A._cache:
        return A._cache[key]
    if A.nnz == 0:
        A._cache[key] = 0.0
        return 0.0
    from .ops import vxm

    with _dev.activate(A.device):  # A on "gpu:1": its degrees' casts and sums stay there, whichever GPU is current
        out_deg = A.out_degree().astype(np.float64)
        deg_j = out_deg if A.shape[0] == A.shape[1] else A.in_degree().astype(np.float64)
        # Σ_p deg(row_p) deg(col_p) = Σ_j deg(j) Σ_{i -> j} deg(i):  row_deg_sum = out_deg +.first A
        # (one product: no per-arc temporaries; veCSC runs any shape well enough for a one-time value)
        row_deg_sum = vxm(out_deg, A.pattern(), "plus_first", kernel="veCSC")  # pattern: no cast copy of values
        s = float((row_deg_sum * deg_j).sum())
    A._cache[key] = s / A.nnz
    return A._cache[key]


def _column_stats(A):
    key = "column_stats"
    if key not in A._cache:
        with _dev.activate(A.device):  # the reductions run on A's GPU
            lengths = A.in_degree()
            if A.shape[1] == 0:
                A._cache[key] = (0, 0.0)
            else:  # the mean is nnz / ncols (CuPy's mean of int64 compiles on first use; this is exact)
                A._cache[key] = (int(lengths.max()), A.nnz / A.shape[1])
    return A._cache[key]


def choose_kernel(A, k=1, semiring=None, dtype=None, masked=False, *, push_arcs=None, pull_arcs=None):
    """(kernel name, one-line reason) for products whose outputs are A's columns.

    k: vectors per product (1 or the block width); semiring/dtype: skip kernels that
    cannot run them; masked: what the caller knows of the mask --

    * False: no mask;
    * True: a mask of unknown density.  One vector on a hub graph of at least UNKNOWN_TILES_WAVES
      waves of the device in arcs gets scCSC's warp tiles, which cost at most about 1.25x the
      unmasked choice's device time when every column is kept and win from about half kept down
      (module docstring); other graphs keep the unmasked choice.  ``vxm``'s ``kernel="auto"``
      passes True when there is a mask;
    * "dense": the computed columns hold more than about half of the arcs: the same choice as no mask;
    * "sparse": they hold about half of the arcs or fewer: the warp tiles on hub graphs whatever
      their size and on graphs of scale-free metric >= VECTOR_SCF that are not small.

    A caller who knows more than ``vxm`` asks for the kernel:
    ``spla.vxm(u, A, sr, mask=m, kernel=spla.choose_kernel(A, masked="dense")[0])``.

    push_arcs, pull_arcs: the work of each direction when the caller knows it (both or
    neither; numbers >= 0): the stored entries in the rows of A whose input is not the
    identity, and in the columns of A that are computed.  With k == 1 they choose between
    ``push`` and a pull kernel (module docstring); e.g. a BFS level's
    ``frontier<!reached> = frontier +.* A`` passes the frontier's out-arcs and the
    unreached vertices' in-arcs.  For an ``mxv(A, u)`` pass ``A.T`` (its outputs are A's rows).
    """
    from . import semirings as _sr

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
    key = ("choose_kernel", int(k), None if semiring is None else semiring.name, dtype.str, mask,
           t.vector_scf, t.cooc_skew, t.block_k, t.rows_max_bytes, t.unknown_tiles_waves, t.cooc_small_waves,
           t.vecsc_fill_threads)
    if key not in A._cache:
        A._cache[key] = _choose(A, k, semiring, dtype, mask, t)
    return A._cache[key]


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
    threads = _gpu.resident_threads(A.device)
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
