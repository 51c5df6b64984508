"""The small path of the GPU's weighted searches: a thread block per source, its whole search in
shared memory (``spla/kernels/sssp_small.cuh``), for graphs where one source's search fits.

:mod:`spla.backends.gpu.sssp` calls it for a block of k sources (its ``_Block``: the kernels, the
arcs, the sources) whenever :func:`runs_small` says the graph fits: :func:`small_distances` for the
distances, :func:`small_sums` for each source's sums over the vertices it reaches (closeness, sums of
distances), :func:`small_dependencies` for every phase of the Brandes sums.  The distances and the
dependencies come as the (n, k) vertex-major arrays the list rounds write, so everything after them
is shared.  A search's rounds
end at the thread block's own barrier: no launch, replay or device-wide hand-off per round, and one
launch for every source of the block.
"""

from __future__ import annotations

import functools

import numpy as np

from ... import tuning as _tuning
from ...device import any_true, to_numpy
from .compile import load_cupy, log
from .launch import nullable

#: the small kernels' static shared memory (list lengths, the block's partial sums), within the block's
SMALL_STATIC_BYTES = 1024
#: threads of a small-path thread block: a search's rounds are bound by latency, and more threads
#: each round keep more of its frontier's arc walks in flight (512 measured best of 128 to 1024 on
#: rome99 and celegansneural, docs/decisions/tuning.md, sssp_small_bytes)
SMALL_BLOCK = 512


def small_bytes(n, deps=False, with_h=True):
    """Shared memory one source's search takes on the small path (SPLA_SSSP_SMALL_BYTES and
    SPLA_SSSP_SMALL_DEPS_BYTES): its distances (spla_sssp_small and spla_sssp_small_sums) or with
    ``deps`` the later phases of its Brandes sums (spla_sssp_small_deps), ``with_h`` holding h (where
    ties are possible)."""
    n = int(n)
    if not deps:
        return 8 * n + 2 * 4 * (-(-n // 32))  # d; two frontier bitmaps of 32-bit words
    return (16 * n                        # d and σ
            + (4 * n if with_h else 0)    # h
            + 4 * ((n + 1) // 2)          # the DAG in-counts, 16 bits, two a word
            + 2 * (n + (n & 1))           # Kahn's 16-bit queue, an even number of slots
            + 2 * (n + 2))                # the levels' 16-bit starts


def runs_small(n, device_id, deps=False, t=None):
    """Whether a graph of n vertices runs its searches on the small path, a thread block per source
    (the distances, or with ``deps`` the dependencies' later phases too): when one source's search fits
    both the tuning's sssp_small_bytes and the device's shared memory per block."""
    t = _tuning.current() if t is None else t
    most = shared_per_block(device_id) - SMALL_STATIC_BYTES
    return 0 < n < (2 ** 16 if deps else 2 ** 31) and small_bytes(n, deps) <= min(t.sssp_small_bytes, most)


@functools.lru_cache(maxsize=None)
def shared_per_block(device_id):
    """The shared memory a thread block of the device may take when it asks for it (opt-in)."""
    return int(load_cupy().cuda.Device(device_id).attributes["MaxSharedMemoryPerBlockOptin"])


def ties_possible(min_length, farthest):
    """Whether a tight arc may join two entries at equal distance: a length of 0, or one that rounding
    absorbs into a distance up to ``farthest`` (fl(d + w) == d needs w <= spacing(d) / 2, and spacing
    grows with d).  Only such arcs need h to order the DAG; without them every tight arc climbs in d."""
    with np.errstate(invalid="ignore"):
        return not min_length > np.spacing(np.float64(farthest)) / 2


def ties_in(B, dist):
    """Whether a tight arc may join equal distances among the block's distances ``dist`` (either
    layout, inf where unreached): :func:`ties_possible` at the farthest one.  No distance exceeds
    (n - 1) times the longest arc, so where that bound admits no tie there is no device read."""
    S = B.S
    if not ties_possible(S.min_length, max(B.n - 1, 0) * S.max_length):
        return False
    cp = B.cp
    far = float(to_numpy(cp.where(dist != np.inf, dist, 0.0).max())) if dist.size else 0.0
    return ties_possible(S.min_length, far)


def launch_per_source(B, key, nbytes, threads, args):
    """One launch of a kernel that runs a thread block of ``threads`` threads per source, ``nbytes`` of
    dynamic shared memory each (the small and the row paths)."""
    fn = B.funcs[key]
    if fn.max_dynamic_shared_size_bytes < nbytes:
        fn.max_dynamic_shared_size_bytes = nbytes
    fn((B.k,), (threads,), args, shared_mem=nbytes)


def _launch_small(B, key, nbytes, args):
    launch_per_source(B, key, nbytes, SMALL_BLOCK, args)


def _search_args(B):
    """The distances' kernels' leading arguments: the arcs, the sources, their count, n and G."""
    S = B.S
    return (S.ocolptr, S.orowidx, S.olen, B.src_dev, np.int64(B.k), np.int32(B.n), np.int32(B.G))


def small_distances(B):
    """dist (n, k) float64 of the block's sources from spla_sssp_small: one launch, a thread block
    per source holding its whole search in shared memory."""
    dist = B.cp.empty((B.n, B.k), dtype=np.float64)
    # dist(s, ·) = d of the min.plus closure from s      (a thread block per source, its rounds inside)
    _launch_small(B, "small", small_bytes(B.n), _search_args(B) + (dist,))
    B.stats = {"rounds": None, "epochs": None, "listed": None}
    return dist


def small_sums(B):
    """(Σ d, |reached|, Σ 1/d over d > 0) of each of the block's sources over the vertices it
    reaches: CuPy float64, int64, float64 (k,) from spla_sssp_small_sums, one launch, no (n, k) array."""
    cp, k = B.cp, B.k
    dsum = cp.empty(k, dtype=np.float64)
    reach = cp.empty(k, dtype=np.int64)
    harm = cp.empty(k, dtype=np.float64)
    # (S, r, H)(s) = Σ_v (d(s, v), 1, 1/d(s, v)) over the reached v      (a thread block per source)
    _launch_small(B, "small_sums", small_bytes(B.n), _search_args(B) + (dsum, reach, harm))
    return dsum, reach, harm


def small_dependencies(B, counts=True):
    """(dist, hops, σ, δ) (n, k) of the block's sources, σ unscaled (hops and σ None without
    ``counts``: the vertex sums read δ alone): two launches, a thread block per source each, the
    distances by spla_sssp_small (8 bytes a vertex: more sources in flight per SM), then every later
    phase by spla_sssp_small_deps from them (22 bytes a vertex, 26 where ties are possible); None
    when a source's σ passed 2^512 (the list rounds, which rescale, run the block instead)."""
    S, cp, k = B.S, B.cp, B.k
    dist = small_distances(B)
    # h only where a tight arc may join equal distances: no distance exceeds (n - 1) times the
    # longest arc, and ties need a length within half the spacing there
    with_h = ties_possible(S.min_length, max(B.n - 1, 0) * S.max_length)
    hops = cp.empty((B.n, k), dtype=np.int32) if counts else None
    sigma = cp.empty((B.n, k), dtype=np.float64) if counts else None
    delta = cp.zeros((B.n, k), dtype=np.float64)
    failed = cp.zeros(k, dtype=np.int32)
    # h, σ and δ of each source from its d     (a thread block per source: Kahn's levels, the sweep back)
    _launch_small(B, "small_deps", small_bytes(B.n, deps=True, with_h=with_h),
                  (S.ocolptr, S.orowidx, S.olen, B.src_dev, np.int64(k), np.int32(B.n), np.int32(B.G),
                   np.float64(S.min_length), np.int32(with_h), np.int32(counts), dist, nullable(hops),
                   nullable(sigma), delta, failed))
    if any_true(failed != 0):
        log.debug("gpu sssp: a source's path counts passed 2^512 on the small path; the list rounds run the block")
        return None
    return dist, hops, sigma, delta
