"""Level-structured sparse blocks: k level-synchronous traversals whose work is their frontiers' arcs.

A dense (n, k) block product costs O(n·k) per level whatever the frontier holds; on a mesh or a
road network (hundreds of levels, a thin ring of vertices per level and source) that is most of
the time.  These two products are GraphBLAS's push (saxpy) and pull (dot) forms of a masked
product whose input is *sparse*: they touch only the arcs of one level's entries.

Storage (vertex-major, like an (n, k) block of ``vxm``): entry (v, s) of traversal s at vertex v has
the flat index ``q = v*k + s``.

    block  (n, k, 2) float64   block[v, s, 0] the entry's value, block[v, s, 1] its level
                               (-1.0: not reached) -- interleaved, so that one memory sector
                               serves both when an arc's target is visited
    queue  (>= n*k,) int32/int64  flat indices of the reached entries, level by level (int32 while
                               n*k < 2^31, see :func:`index_dtype`)
    start, count  (L,) int64 / uint64   level d is queue[start[d] : start[d] + count[d]]
    top    (L,) uint64         top[d]: the largest positive value of level d (else 0), as a float64's bits

The bookkeeping lives on the device: a push reads its level's range there and writes the next
one's, so a caller enqueues several levels and reads ``count`` back once (a level past the last
one is an empty push).  ``A`` is a square spla.Matrix, arcs i -> j for A[i, j] (values ignored).

    push(A, queue, d, block, start, count, top)        value'<¬reached ∪ level == d+1> += frontier_d +.first A
    pull(A, queue, d, block, start, count, out, …)     t<frontier_d> = 2^-scale ⊙ (A +.second value<level == d+1>)

Both run on the matrix's device ("cpu": NumPy, vectorised over the level's arcs; "gpu:N": the
kernels of ``spla/kernels/frontier.cuh``, a group of lanes per frontier entry).
"""

from __future__ import annotations

import numpy as np

from . import device as _dev
from .backends import for_device as _backend
from .errors import DimensionMismatch, DomainMismatch
from .matrix import Matrix


def index_dtype(n: int, k: int):
    """The dtype of flat indices into an (n, k) block: int32 while n*k < 2^31, else int64."""
    return np.dtype(np.int32) if n * k < 2 ** 31 else np.dtype(np.int64)


def _check_contiguous(name, x):
    """The kernels index these arrays as plain contiguous memory: a strided view is refused."""
    if x is not None and hasattr(x, "flags") and not x.flags.c_contiguous:
        raise ValueError(f"{name} must be a contiguous array, got a strided view (strides {x.strides}); "
                         f"pass a contiguous array (xp.ascontiguousarray copies, but {name} is read back "
                         "or written in place: keep the copy)")


def _check(A, queue, depth, block, start, count, top=None):
    """k of the (n, k, 2) block, after checking every argument at the door."""
    if not isinstance(A, Matrix):
        raise TypeError(f"A must be a spla.Matrix, got {type(A).__name__}")
    n, ncols = A.shape
    if n != ncols:
        raise DimensionMismatch(f"a traversal needs a square matrix, got shape {A.shape}")
    for name, x in (("block", block), ("queue", queue), ("start", start), ("count", count), ("top", top)):
        if x is not None:
            _dev.check_same_device(name, x, A.device)
    if block.ndim != 3 or block.shape[0] != n or block.shape[2] != 2 or not block.flags.c_contiguous:
        raise DimensionMismatch(f"block must be a C-contiguous (n, k, 2) array with n = {n}, got shape {block.shape}")
    if block.dtype != np.float64:
        raise DomainMismatch(f"block must have dtype float64, got {block.dtype}")
    k = block.shape[1]
    if block.size and not isinstance(block, np.ndarray) and block.data.ptr % 16:
        raise ValueError("block must start on a 16-byte boundary (allocate it whole, not as an offset view)")
    qdt = index_dtype(n, k)
    for name, x in (("queue", queue), ("start", start), ("count", count), ("top", top)):
        _check_contiguous(name, x)
    if queue.ndim != 1 or queue.dtype != qdt:
        raise DomainMismatch(f"queue must be a 1-D {qdt} array of flat indices v*k + s (n*k = {n * k}), "
                             f"got {queue.dtype} of shape {queue.shape}")
    if queue.shape[0] < n * k:
        raise DimensionMismatch(f"queue holds {queue.shape[0]} entries; it needs n*k = {n * k}, room for "
                                "every entry a traversal can reach")
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)) or depth < 0:
        raise ValueError(f"depth must be an integer >= 0 (the level to expand), got {depth!r}")
    depth = int(depth)
    for name, x, dt in (("start", start, np.int64), ("count", count, np.uint64), ("top", top, np.uint64)):
        if x is None:
            continue
        if x.ndim != 1 or x.dtype != dt:
            raise DomainMismatch(f"{name} must be a 1-D {np.dtype(dt)} array, got {x.dtype} of shape {x.shape}")
        if not 0 <= depth < x.shape[0] - 1:
            raise DimensionMismatch(f"depth {depth} needs {name} to hold at least {depth + 2} levels, "
                                    f"it holds {x.shape[0]}")
    return k


def push(A, queue, depth, block, start, count, top):
    """Push level ``depth``'s values along A's arcs and append level depth+1 to the queue.

    For every entry q = (v, s) of level ``depth`` (queue[start[depth] : start[depth] + count[depth]])
    and every arc v -> w of A::

        r = (w, s);  if level(r) == -1:  level(r) = depth + 1, r is appended to the queue
                     if level(r) == depth + 1:  value(r) += value(q)

    i.e. ``value'<¬reached ∪ level == depth+1> += frontier +.first A``.  Unreached entries' values
    must be 0.  Sets start[depth+1], adds the new entries to count[depth+1] (which must be 0)
    and top[depth] = the level's largest positive value, 0 when none is (as float64 bits; top[depth]
    must be 0; NaN values are skipped; the values betweenness pushes are path counts, >= 1).
    Nothing is read back: on the GPU the call only enqueues a kernel.

    Parameters
    ----------
    A : spla.Matrix (n, n);  queue : (n*k,) flat indices;  depth : int >= 0
    block : (n, k, 2) float64, updated in place;  start (L,) int64, count (L,) uint64, top (L,) uint64
    """
    k = _check(A, queue, depth, block, start, count, top)
    _backend(A.device).frontier_push(A, queue, int(depth), k, block, start, count, top)


def pull(A, queue, depth, block, start, count, out, *, scale=None, feed=False, divide=False):
    """Pull each entry of level ``depth`` its sum over its arcs into entries one level deeper.

    For every entry q = (v, s) of level ``depth``::

        t = 2^-scale[s] · Σ_{arcs v -> w, level((w, s)) == depth + 1} value((w, s))
        out[q] = t / value(q)  if divide  else t;      value(q) += t  if feed

    i.e. ``t<frontier> = 2^-scale ⊙ (A +.second value<level == depth+1>)``.  Brandes' backward
    step is one call with value = 1/σ (+ δ/σ below), feed and divide: out = σ · δ/σ = δ.

    Parameters
    ----------
    A : spla.Matrix (n, n);  queue, depth, block, start, count : as :func:`push`
    out : (n, k) float64, written at the level's entries;  scale : (k,) int32 exponents or None
    """
    k = _check(A, queue, depth, block, start, count)
    _dev.check_same_device("out", out, A.device)
    if out.shape != block.shape[:2] or out.dtype != np.float64 or not out.flags.c_contiguous:
        raise DimensionMismatch(f"out must be a C-contiguous float64 array of shape {block.shape[:2]}, "
                                f"got {out.dtype} of shape {out.shape}")
    if scale is not None:
        _dev.check_same_device("scale", scale, A.device)
        if scale.shape != (k,) or scale.dtype != np.int32:
            raise DomainMismatch(f"scale must be a ({k},) int32 array, got {scale.dtype} of shape {scale.shape}")
        _check_contiguous("scale", scale)
    _backend(A.device).frontier_pull(A, queue, int(depth), k, block, start, count, out, scale, bool(feed),
                                     bool(divide))
