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

* k-blocks of 8 or more vectors: ``scCSC`` (a thread per (column, vector), vectors
  fastest: a warp reads one gathered row's k values in one coalesced transaction; it beat
  veCSC's block mode and scCOOC on every graph at k = 32);
* hub columns (max column length >= COOC_SKEW x the mean: Kronecker, Barabási–Albert):
  ``scCOOC`` (a thread per entry has no long tail; scf is then high too), unmasked or
  with a mask of unknown density (single-source betweenness's forward masks keep most
  columns in its expensive levels: scCOOC beat veCSC there by 1.2–1.3×, H100 and H200);
* hub columns with ``masked="sparse"`` (the caller knows the mask keeps few columns and
  few arcs, about a tenth or less) and one vector: ``veCSC``, whose mask worklist walks
  only the kept columns where scCOOC reads every arc (10% of the columns kept, H100:
  kron20 0.085 vs 0.164 ms, kron21 0.137 vs 0.332 ms, BA n=2M 0.070 vs 0.106 ms).  Not
  for a mask whose few columns hold many arcs: single-source betweenness with it on its
  backward and last forward levels (one BFS level's vertices hold most arcs there) was
  7-14% faster on kron20 and BA n=1M but 5-22% slower on kron21, so it does not use it;
* ``scf >= VECTOR_SCF`` without such hubs (long columns throughout, e.g. Mycielski):
  ``veCSC``;
* otherwise (short, regular columns: meshes, grids, Watts–Strogatz) ``scCSC``.

A kernel that cannot run the semiring/dtype (``backend.supports``) is skipped.
"""

from __future__ import annotations

import numpy as np

from . import device as _dev

VECTOR_SCF = 1000.0
COOC_SKEW = 64.0
BLOCK_K = 8


def scale_free_metric(A) -> float:
    """scf(A) = Σ_{stored (i, j)} outdeg(i)·outdeg(j) / nnz   (float; 0.0 for an empty matrix).

    For a rectangular matrix the degrees are row counts for i and column counts for j.
    """
    key = "scale_free_metric"
    if key in A._cache:
        return A._cache[key]
    if A.nnz == 0:
        A._cache[key] = 0.0
        return 0.0
    from .ops import vxm

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
        lengths = A.in_degree()
        if A.shape[1] == 0:
            A._cache[key] = (0, 0.0)
        else:
            A._cache[key] = (int(lengths.max()), float(lengths.mean()))
    return A._cache[key]


def choose_kernel(A, k=1, semiring=None, dtype=None, masked=False):
    """(kernel name, one-line reason) for products whose outputs are A's columns.

    k: vectors per product (1 or the block width); semiring/dtype: skip kernels that
    cannot run them; masked: False (no mask), True (a mask of unknown density: the same
    choice as no mask, measured in docs/benchmarks.md) or "sparse" (the caller knows the
    mask keeps about a tenth of the columns and of their arcs or fewer: hub graphs then
    get veCSC with its mask worklist instead of scCOOC).  ``vxm``'s ``kernel="auto"``
    passes True when there is a mask; a caller with a sparse mask asks for the kernel:
    ``spla.vxm(u, A, sr, mask=m, kernel=spla.choose_kernel(A, masked="sparse")[0])``.
    """
    from . import semirings as _sr

    if masked not in (False, True, "sparse"):
        raise ValueError(f"choose_kernel: masked must be False, True or 'sparse', got {masked!r}")
    semiring = None if semiring is None else _sr.get(semiring)
    dtype = np.dtype(np.float32) if dtype is None else np.dtype(dtype)
    sparse = masked == "sparse" and int(k) == 1
    key = ("choose_kernel", int(k), None if semiring is None else semiring.name, dtype.str, sparse)
    if key not in A._cache:  # products in a loop ask again and again: decide once per matrix
        A._cache[key] = _choose(A, k, semiring, dtype, sparse)
    return A._cache[key]


def _choose(A, k, semiring, dtype, sparse_mask=False):
    backend = _backend_for(A)
    scf = scale_free_metric(A)
    max_len, mean_len = _column_stats(A)
    skewed = mean_len > 0 and max_len >= COOC_SKEW * mean_len
    if k >= BLOCK_K:
        order = ("scCSC", "veCSC", "scCOOC")
        why = f"block of k={k} vectors: a thread per (column, vector), each gathered row read coalesced"
    elif skewed and sparse_mask:
        order = ("veCSC", "scCOOC", "scCSC")
        why = (f"max column length {max_len} >= {COOC_SKEW:g} x mean {mean_len:.3g} with a sparse mask: "
               "a lane group per kept column (mask worklist on large graphs, long columns split) reads only their arcs")
    elif skewed:
        order = ("scCOOC", "veCSC", "scCSC")
        why = (f"scale-free metric {scf:.4g}, max column length {max_len} >= {COOC_SKEW:g} x mean "
               f"{mean_len:.3g}: hub columns, a thread per entry avoids their tail")
    elif scf >= VECTOR_SCF:
        order = ("veCSC", "scCOOC", "scCSC")
        why = f"scale-free metric {scf:.4g} >= {VECTOR_SCF:g} without hubs: long columns, a lane group per column"
    else:
        order = ("scCSC", "veCSC", "scCOOC")
        why = f"scale-free metric {scf:.4g} < {VECTOR_SCF:g} and short columns: a thread per column"
    if semiring is not None:
        for i, name in enumerate(order):
            ok, reason = backend.supports(name, semiring, dtype)
            if ok:
                if i:
                    why += f"; {order[0]} cannot run {semiring.name} on {dtype} ({reason})"
                return name, why
        raise AssertionError("no kernel supports this semiring")  # CSC kernels support every semiring
    return order[0], why


def _backend_for(A):
    if _dev.is_gpu(A.device):
        from .backends import gpu

        return gpu
    from .backends import cpu

    return cpu
