"""Weighted shortest paths on the GPU: distances, path counts and Brandes dependencies of blocks of
sources (the GPU twin of ``spla.backends.cpu_sssp``; ``spla.paths`` dispatches here for a GPU matrix).

Definition (arc u -> v for each stored A[u, v]; lengths w(u, v) = A[u, v] as float64, every length 1
on a pattern-only matrix; self-loops lie on no shortest path)::

    d(s) = 0;   d(v) = min over arcs u -> v of fl(d(u) + w(u, v))    (one float64 add per arc, in path order)
    tight arc u -> v:  u != v and fl(d(u) + w(u, v)) == d(v)          (exact float equality)
    h(s) = 0;   h(v) = min over tight arcs u -> v of h(u) + 1          (fewest arcs among the shortest paths)
    DAG arc:    a tight arc u -> v with d(u) < d(v), or with d(u) == d(v) and h(u) < h(v)
    σ(s) = 1;   σ(v) = Σ_{DAG arcs u -> v} σ(u)
    δ(v) = Σ_{DAG arcs v -> w} σ(v)/σ(w) · (1 + δ(w))
    arc sum on DAG arc v -> w: σ(v)/σ(w) · (1 + δ(w))    (0 on other arcs)

The h rule orders the vertices a zero-length arc (or one absorbed by rounding) joins at equal
distance, so the DAG stays acyclic; without such arcs it is networkx's weighted shortest-path DAG.

A block of k sources is held as vertex-major (n, k) arrays (entry (v, s) at v*k + s) and runs four
phases of ``spla/kernels/sssp.cuh``, each a sequence of rounds over a list of entries that the
previous round built on the device.  A phase's state (list lengths, which buffer is the list, the
level, the bucket's bound) lives in a device control array that each round's last block sets for
the next, so every round of a phase is the same launch: the host records ``sssp_rounds_per_read``
of them once as a CUDA graph (a :class:`spla.Replay` step, :func:`_rounds`) and replays it, reading
the control array after each replay, then after 2, 4, ... up to ``sssp_max_replays`` replays (both
in ``spla.tuning``); a round past the end finds the phase done and returns:

1. distances (``spla_sssp_relax``): Bellman-Ford with an active-entry frontier, each round relaxing
   the out-arcs of the entries whose d changed, with atomicMin on the float64 bits; with a finite
   bucket width Δ (:func:`bucket_width`, the frontier policy) it is delta-stepping: an entry at
   d >= the current bound waits in a far list until the near list empties, then the bound moves one
   bucket past the smallest waiting d.  Where one source's search fits a thread block's shared memory
   (:func:`sssp_small.runs_small`), ``spla_sssp_small`` runs instead: a thread block per source, its
   rounds ended by the block's own barrier, every source in one launch (``spla_sssp_small_sums``
   where only each source's sums over the vertices it reaches are asked for: no (n, k) array); and
   for the dependencies ``spla_sssp_small_deps`` runs phases 2 to 4 so from those distances
   (``spla.backends.gpu.sssp_small``), handing a block whose σ passes 2^512 to the list rounds,
   which rescale.  Where it does not fit, on graphs whose entries take one lane
   (:func:`sssp_rows.runs_rows`), ``spla_sssp_rows`` runs: a thread block per source as well, its
   distances a row of the (k, n) array ``shortest_paths`` returns (the later phases take the
   transpose), its waiting vertices a work queue in shared memory and far lists in global scratch
   (``spla.backends.gpu.sssp_rows``), whose ``spla_sssp_rows_deps`` also runs phases 2 to 4 of the
   sums where no tight arc can join equal distances (the arc sums then take σ and δ transposed to
   ``spla_sssp_arc_sums``);
2. h (``spla_sssp_hops``): a breadth-first search over the tight arcs, a level per round; skipped,
   every h 0, where no tight arc can join equal distances (``sssp_small.ties_in``: every length above
   half the spacing of the block's farthest distance, a source's own on the small path), since h
   then orders nothing;
3. σ (``spla_sssp_dag_count``, then ``spla_sssp_sigma``): Kahn's topological sweep of the DAG, an
   entry entering its level (the longest DAG path to it, in arcs) when its last DAG in-arc is
   counted; the levels stay in one queue of the block's reached entries;
4. δ (``spla_sssp_delta``): the levels deepest first, each entry pulling from its DAG out-arcs; with
   ``edges``, ``spla_sssp_arc_sums`` adds every arc's sum over the block in A's CSC order.

Each phase touches an entry's arcs once per time the entry is listed: once in phases 2 to 4, once
per change of d in phase 1.  The (n, k) sweeps (DAG counts, arc sums, the sums over sources) read
every entry once.

σ beyond float64's range (2^1100 shortest paths through a chain of 1,100 diamonds) is rescaled by
powers of two, as the unweighted paths do: when a sweep of the Kahn levels finds a level whose
largest σ passes RESCALE_ABOVE = 2^512, every source whose open counts (partial sums, the next level)
pass RESCALE_TO = 2^256 has them multiplied by 2^-e into [0.5, 1), exactly; an entry's σ is then
sigma · 2^scale, scale the exponents of the rescales at or above its level, and δ reads the ratios
σ(v)/σ(w) with both exponents (``spla.backends.gpu.sssp_scale``).  The results keep float64's
relative precision unless one source's counts span more than float64's exponents (a count of 1
beside one of 2^1100 on open levels), which :func:`dependencies` refuses with ``KernelUnavailable``;
:func:`shortest_paths` returns inf for a count beyond float64.  Sums over sources are formed by
CuPy's reductions, in another order than the CPU's.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np

from ... import memory as _memory
from ... import tuning as _tuning
from ...device import HostCopy, gpu_index, to_numpy
from ...matrix import declare_cache
from ...replay import Replay
from ...weights import check_lengths, transpose_lengths
from .compile import BLOCK, INDEX_TYPES, NVRTC_OPTIONS, SSSP_SOURCE, load_cupy, log, source
from .frontier import frontier_group
from .launch import nullable, resident_blocks
from .sssp_rows import add_endpoints, row_distances, row_sums, runs_rows
from .sssp_scale import RESCALE_ABOVE, check_sigma, rescale, scale_of
from .sssp_small import runs_small, small_dependencies, small_distances, small_sums, ties_in

__all__ = ["dependencies", "distance_sums", "shortest_paths", "sssp_name_expressions", "bucket_width",
           "SSSP_SOURCE", "KERNEL_KEYS"]

KERNEL_KEYS = ("relax", "hops", "sigma", "delta", "dag_count", "arc_sums", "small", "small_sums", "small_deps",
               "rows", "rows_deps")
#: the kernels over entry lists, templated on the flat index type too
LIST_KERNELS = ("relax", "hops", "sigma", "delta")

#: device bytes per vertex and source of a block, beyond its entry lists ((n, k) arrays, reductions'
#: temporaries), and the entry lists a phase holds at once
DIST_BYTES_PER_ENTRY, DIST_LISTS = 8 + 8 + 17, 3          # dist, mark, far_mark; sums' terms and masks
DEPS_BYTES_PER_ENTRY, DEPS_LISTS = 8 + 4 + 4 + 8 + 8 + 9, 3  # dist, hops, count, σ, δ; endpoints' mask

SETUP_KEY = declare_cache("gpu_sssp_setup", "the weighted searches' arcs on the GPU (out-arcs, in-arcs, "
                                            "float64 lengths in each order, index type)")

_UINT64_INF = np.array(np.inf).view(np.uint64).item()

#: the control array's slots (SPLA_SSSP_* in spla/kernels/sssp.cuh)
IN, OUT, SEL, DONE, ARRIVED, T, ROUNDS, LISTED, FAR, FAR_MIN, FAR_TAG, BOUND, WIDTH = range(13)
SLOTS = 13



def sssp_name_expressions(flat_dtype, index_dtype, unit):
    """{kernel key: NVRTC name expression} of the kernels (KERNEL_KEYS) for one (flat index type of the entries,
    matrix index type, every length 1)."""
    q = INDEX_TYPES[np.dtype(flat_dtype)]
    i = INDEX_TYPES[np.dtype(index_dtype)]
    u = "true" if unit else "false"
    return {key: f"spla_sssp_{key}<{q}, {i}, {u}>" if key in LIST_KERNELS else f"spla_sssp_{key}<{i}, {u}>"
            for key in KERNEL_KEYS}


@functools.lru_cache(maxsize=None)
def _module(flat_str, index_str, unit, device_id):
    cp = load_cupy()
    names = sssp_name_expressions(flat_str, index_str, unit)
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=source(str(SSSP_SOURCE)), options=NVRTC_OPTIONS,
                           name_expressions=list(names.values()))
        return {key: mod.get_function(expr) for key, expr in names.items()}


class _Arcs:
    """A's arcs as the kernels read them: out-arcs (CSC of A.T) and in-arcs (CSC of A), lengths in
    each order (a one-element placeholder when every length is 1), one index type."""

    def __init__(self, A):
        cp = load_cupy()
        At = A.T
        self.n = A.shape[0]
        self.nnz = A.nnz
        idx = max(A.index_dtype, At.index_dtype, key=lambda d: d.itemsize)
        cast = (lambda a: a.astype(idx, copy=False))
        ilen = check_lengths(A)
        self.unit = ilen is None
        one = cp.ones(1, dtype=np.float64)
        self.icolptr, self.irowidx = cast(A.colptr), cast(A.rowidx)
        self.ocolptr, self.orowidx = cast(At.colptr), cast(At.rowidx)
        self.ilen = one if self.unit else ilen
        self.olen = one if self.unit else transpose_lengths(A, At)
        self.mean_length = 1.0 if self.unit else (float(ilen.mean()) if ilen.size else 0.0)
        self.min_length = math.inf if not self.nnz else (1.0 if self.unit else float(ilen.min()))
        self.max_length = 0.0 if not self.nnz else (1.0 if self.unit else float(ilen.max()))
        self.index_dtype = idx
        self.device = A.device
        self.device_id = cp.cuda.Device().id
        self.grid_cap = resident_blocks(self.device_id)
        self.max_in_degree = int(cp.diff(self.icolptr).max()) if self.n else 0
        self._out_degree = cp.diff(self.ocolptr)
        self._tails = {}

    def tail_out_degree(self, q):
        """The out-degree below which q% of the vertices lie (0 on an empty graph)."""
        if q not in self._tails:
            self._tails[q] = float(load_cupy().percentile(self._out_degree, q)) if self.n else 0.0
        return self._tails[q]


class _Block:
    """One block of k sources: the kernels for its flat index type and the launches over its lists."""

    def __init__(self, S, src_block, cp):
        self.S, self.cp = S, cp
        self.src = np.asarray(src_block, dtype=np.int64)
        self.k = len(src_block)
        self.n = S.n
        self.size = S.n * self.k
        self.flat = flat_dtype(S.n, self.k)
        self.funcs = _module(self.flat.str, np.dtype(S.index_dtype).str, S.unit, S.device_id)
        t = _tuning.current()
        # a round waits for its longest entry: lanes from the tail of the out-degrees
        self.G = entry_lanes(S.tail_out_degree(t.sssp_lanes_percentile), t)  # lanes per listed entry
        self.Gs = group_lanes(self.k)  # lanes per vertex of the vertex kernels
        self.R = t.sssp_rounds_per_read
        self.max_replays = t.sssp_max_replays
        self.stats = {}  # the distance search's rounds, buckets and relaxed entries (probes read them)
        self._src_dev = None

    @property
    def src_dev(self):
        """The sources on the device (int64, made once: an upload is a synchronous copy, so a run of
        consecutive vertices, every vertex in order among them, is made on the device instead)."""
        if self._src_dev is None:
            s = self.src
            if s.size and s[-1] - s[0] == s.size - 1 and (np.diff(s) == 1).all():
                self._src_dev = self.cp.arange(int(s[0]), int(s[-1]) + 1, dtype=np.int64)
            else:
                self._src_dev = self.cp.asarray(s)
        return self._src_dev

    def entries(self):
        """The flat indices (v, s) = v*k + s of the sources (host NumPy)."""
        return (self.src * self.k + np.arange(self.k)).astype(self.flat)

    def buffer(self, first=None):
        """A list buffer of n*k entries, holding ``first`` (host NumPy) at its start."""
        buf = self.cp.empty(max(self.size, 1), dtype=self.flat)
        if first is not None and first.size:
            buf[:first.size] = self.cp.asarray(first)
        return buf

    def launch(self, key, nitems, lanes, args):
        """One launch of ``key``: blocks for ``nitems`` items of ``lanes`` lanes each (None: a length
        known on the device only, the resident blocks)."""
        cap = self.S.grid_cap
        blocks = cap if nitems is None else int(max(1, min(cap, -(-int(nitems) * lanes // BLOCK))))
        self.funcs[key]((blocks,), (BLOCK,), args)


def flat_dtype(n, k):
    """The entries' flat index type: int32 while n*k < 2^31, else int64."""
    return np.dtype(np.int32) if int(n) * int(k) < 2 ** 31 - 1 else np.dtype(np.int64)


def _arcs(A):
    return A.cached(SETUP_KEY, lambda: _Arcs(A))


def entry_lanes(tail_degree, t=None):
    """Lanes per listed entry of the list kernels: the frontiers' rule (a power of two at most a
    quarter of the degree, in [1, 32]; the tuning's frontier_group overrides) applied to a high
    percentile of the out-degrees (``sssp_lanes_percentile``) instead of their mean.  A round ends
    with its longest entry, so a hub walked by one lane holds up every other;
    docs/decisions/tuning.md, "frontier_group", has the measurement."""
    return frontier_group(tail_degree, t)


def group_lanes(k):
    """Lanes per vertex of the vertex kernels: the power of two at or above k, at most 32 (lane g owns
    the sources g, g + G, ...)."""
    return int(min(32, 1 << max(0, int(k) - 1).bit_length()))


def bucket_width(mean_length, t=None, rows=False):
    """Δ, the bucket width of the distance search (the frontier policy): the tuning's sssp_delta (with
    ``rows``, the row path's sssp_rows_delta) times the mean arc length; inf (Bellman-Ford: one bucket)
    when that is None or every length is 0."""
    t = _tuning.current() if t is None else t
    delta = t.sssp_rows_delta if rows else t.sssp_delta
    if delta is None or not mean_length > 0:
        return math.inf
    return float(delta) * float(mean_length)


def _bits(x):
    return np.array(x, dtype=np.float64).view(np.uint64).item()


def _control(first=0, sel=0, t=0, width=math.inf):
    """A phase's control array on the host, to copy to the device: the first list's length ``first``
    in buffer ``sel`` & 3 (appending to (sel >> 2) & 3, the far list in (sel >> 4) & 3), level or tag
    ``t``, an empty far list tagged 1, the bucket's bound and width both ``width``."""
    c = np.zeros(SLOTS, dtype=np.uint64)
    c[IN], c[SEL], c[T] = first, sel, np.int64(t).view(np.uint64)
    c[DONE] = 0 if first else 1
    c[FAR_MIN], c[FAR_TAG] = _UINT64_INF, 1
    c[BOUND] = c[WIDTH] = _bits(width)
    return c


def _rounds(B, key, lanes, args, count):
    """``count`` launches of one round kernel with the same arguments (its rounds read what changes
    from the control array), as one :class:`spla.Replay` step: recorded once as a CUDA graph and
    replayed, so that a round costs the host a fraction of a launch."""
    def step():
        for _ in range(count):
            B.launch(key, None, lanes, args)
    return Replay(step, B.S.device, name=f"weighted {key} rounds")


def _replay(step, times):
    for _ in range(times):
        step()


def _until_done(B, key, lanes, args, ctl):
    """Replay the phase's rounds until its control array says done; the array, on the host."""
    rounds = _rounds(B, key, lanes, args, B.R)
    host = HostCopy(ctl)
    times = 1
    while True:
        _replay(rounds, times)
        c = host.read()
        if c[DONE]:
            return c.copy()
        times = min(2 * times, B.max_replays)


def _distances(B, out=None, contiguous=True):
    """dist (n, k) float64 of the block's sources (inf: unreached): C-contiguous, as the later phases'
    kernels read it, or with ``contiguous=False`` possibly a transposed view (for reductions).  ``out``,
    a C-contiguous (k, n) array, receives dist transposed (``shortest_paths``' rows); the row path
    writes its distances there in place."""
    S = B.S
    if runs_small(B.n, S.device_id):
        dist = small_distances(B)
    elif runs_rows(B.n, S.device_id, B.G):
        # dist = (the row path's (k, n) distances)^T
        rows = row_distances(B, bucket_width(S.mean_length, rows=True), out=out)
        return B.cp.ascontiguousarray(rows.T) if contiguous else rows.T
    else:
        dist = _list_distances(B)
    if out is not None:
        out[...] = dist.T
    return dist


def _list_distances(B):
    """dist (n, k) float64 of the block's sources over the list rounds."""
    S, cp, k = B.S, B.cp, B.k
    width = bucket_width(S.mean_length)
    dist = cp.full((B.n, k), np.inf, dtype=np.float64)
    dist[B.src_dev, cp.arange(k)] = 0.0
    mark = cp.zeros((B.n, k), dtype=np.int32)
    far_mark = cp.zeros((B.n, k), dtype=np.int32)
    first = B.entries()
    # the sources listed in buffer 0, appending to 1, the far list in 2; the first bound is one
    # bucket (every source starts at d = 0 < Δ), tag 1
    ctl = cp.asarray(_control(first.size, 0 | 1 << 2 | 2 << 4, t=1, width=width))
    # dist<d < bound> = min(dist, dist(listed) min.plus A), round after round: relax the listed entries' out-arcs
    c = _until_done(B, "relax", B.G, (S.ocolptr, S.orowidx, S.olen, B.buffer(first), B.buffer(), B.buffer(),
                                      np.int64(k), np.int32(B.G), dist, mark, far_mark, np.uint64(B.size), ctl), ctl)
    B.stats = {"rounds": int(c[ROUNDS]), "epochs": int(c[FAR_TAG]), "listed": int(c[LISTED])}
    if log.isEnabledFor(logging.DEBUG):
        log.debug("gpu sssp: distances of %d sources in %d rounds, %d buckets, %d entries relaxed (bucket width %g)",
                  k, B.stats["rounds"], B.stats["epochs"], B.stats["listed"], width)
    return dist


def _hops_or_flat(B, dist):
    """h of the block (:func:`_hops`) where a tight arc may join equal distances, else every h 0 (the
    DAG order is then d's alone, and the h search's rounds are saved)."""
    return _hops(B, dist) if ties_in(B, dist) else B.cp.zeros((B.n, B.k), dtype=np.int32)


def _hops(B, dist):
    """h (n, k) int32: the fewest arcs among the shortest paths (-1: unreached)."""
    S, cp, k = B.S, B.cp, B.k
    hops = cp.full((B.n, k), -1, dtype=np.int32)
    hops[B.src_dev, cp.arange(k)] = 0
    first = B.entries()
    ctl = cp.asarray(_control(first.size, 0 | 1 << 2, t=0))
    # hops<tight, hops == -1> = t + 1 over the out-arcs of level t, level after level
    _until_done(B, "hops", B.G, (S.ocolptr, S.orowidx, S.olen, B.buffer(first), B.buffer(), np.int64(k),
                                 np.int32(B.G), dist, hops, np.uint64(B.size), ctl), ctl)
    return hops


def _sigma(B, dist, hops):
    """(σ (n, k) float64 scaled, the levels of Kahn's sweep as (queue, start, levels, depth), the
    scale (n, k) int32 or None): σ(v, s) = sigma(v, s) · 2^scale(v, s); level t's entries are
    queue[start[t] : start[t] + levels[t]], t = 0 .. depth, on the device."""
    S, cp, k = B.S, B.cp, B.k
    i64, i32 = np.int64, np.int32
    # between two looks at the levels' largest σ it may grow by max in-degree^R: keep that below 2^400
    R = max(1, min(B.R, 400 // max(1, int(S.max_in_degree).bit_length())))
    dag = cp.empty((B.n, k), dtype=np.int32)
    # dag(w) = Σ_{u -> w} [DAG arc]                                   (a pull over every in-arc)
    B.launch("dag_count", B.n, B.Gs, (S.icolptr, S.irowidx, S.ilen, i64(B.n), i64(k), i32(B.Gs), dist, hops, dag))
    sigma = cp.zeros((B.n, k), dtype=np.float64)
    sigma[B.src_dev, cp.arange(k)] = 1.0
    first = B.entries()
    queue = B.buffer(first)  # each reached entry enters exactly one level
    room = max(2 * R, 64)
    # the levels' lengths and largest σ side by side, so that one read after a replay gets both
    start, book = cp.zeros(room, dtype=np.int64), cp.zeros((2, room), dtype=np.uint64)
    levels, top = book
    levels[0:1] = first.size
    ctl = cp.asarray(_control(t=0))  # T: the level the next round sweeps
    events = []  # (first level of a scale, per-source exponents)
    t, rounds = 0, None
    while True:
        if t + R + 1 >= room:  # room for R more levels and the one they start
            grown = 2 * (t + R + 1)
            start = cp.concatenate([start, cp.zeros(grown - room, dtype=start.dtype)])
            book = cp.concatenate([book, cp.zeros((2, grown - room), dtype=book.dtype)], axis=1)
            levels, top = book
            room, rounds = grown, None
        if rounds is None:
            # σ(w) += σ(v) over the DAG arcs out of level t; dag(w) -= 1; w joins level t + 1 at 0
            rounds = _rounds(B, "sigma", B.G, (S.ocolptr, S.orowidx, S.olen, queue, np.uint64(B.size), start, levels,
                                               top, i64(k), i32(B.G), dist, hops, dag, sigma, ctl), R)
        rounds()
        t += R
        seen = to_numpy(book[:, t - R:t + 1])  # levels t - R .. t: their lengths and largest σ
        got = seen[0, 1:]
        if not got.all():
            depth = t - R + int(np.argmin(got != 0))  # the last level with entries
            break
        if (seen[1, :-1].view(np.float64) > RESCALE_ABOVE).any():
            e = rescale(cp, sigma, dag, queue, int(to_numpy(start[t:t + 1])[0]), int(got[-1]))
            if e is not None:
                events.append((t, e))
    return sigma, (queue, start, levels, depth), scale_of(cp, B, queue, start, levels, depth, events)


def _delta(B, dist, hops, sigma, lists, scale):
    """δ (n, k) float64, the levels swept deepest first."""
    S, cp, k = B.S, B.cp, B.k
    queue, start, levels, depth = lists
    delta = cp.zeros((B.n, k), dtype=np.float64)
    ctl = cp.asarray(_control(t=depth))  # T: the level the next round sweeps, depth down to 0
    R = max(1, min(B.R, depth + 1))
    # δ(v) = σ(v) Σ_{DAG v -> w} (1 + δ(w)) / σ(w) on level t, t = depth .. 0     (a pull over out-arcs)
    rounds = _rounds(B, "delta", B.G, (S.ocolptr, S.orowidx, S.olen, queue, start, levels, np.int64(k),
                                       np.int32(B.G), dist, hops, sigma, nullable(scale), delta, ctl), R)
    _replay(rounds, -(-(depth + 1) // R))
    return delta


def _blocks(A, S, src, per_entry, lists):
    """The sources cut into blocks that fit the device (the tuning's memory_fraction of what is free,
    at most sssp_max_batch each): ``per_entry`` bytes per vertex and source, and ``lists`` entry
    lists of n*k flat indices (sized as int64)."""
    t = _tuning.current()
    n = max(S.n, 1)
    need = per_entry + 8 * lists
    _memory.require(n * need, A.device, what=f"a weighted shortest-path search of one source over {n:,} vertices",
                    remedy="free device memory, or run on device='cpu'")
    free = _memory.available_bytes(A.device) or 0
    k = int(max(1, min(len(src), t.sssp_max_batch, int(free * t.memory_fraction) // (n * need))))
    return [src[i:i + k] for i in range(0, len(src), k)]


def dependencies(A, src, *, edges, endpoints):
    """Σ over the sources ``src`` (NumPy int64, checked) of the weighted Brandes sums of the module's
    definition: a CuPy float64 (n,) per vertex, or with ``edges`` (nnz,) per arc in A's CSC order;
    ``endpoints`` (vertex sums only) adds [s reaches v, v != s] and, at v = s, r_s - 1."""
    cp = load_cupy()
    n = A.shape[0]
    with cp.cuda.Device(_device_id(A)):
        acc = cp.zeros(A.nnz if edges else n, dtype=np.float64)
        src = np.asarray(src, dtype=np.int64)
        if src.size == 0 or n == 0:
            return acc
        S = _arcs(A)
        for block in _blocks(A, S, src, DEPS_BYTES_PER_ENTRY, DEPS_LISTS):
            B = _Block(S, block, cp)
            small = small_dependencies(B, counts=edges) if runs_small(B.n, S.device_id, deps=True) else None
            dist = None
            if small is None and runs_rows(B.n, S.device_id, B.G):
                rows = row_distances(B, bucket_width(S.mean_length, rows=True))
                if row_sums(B, rows, acc, edges=edges, endpoints=endpoints):
                    continue
                dist = cp.ascontiguousarray(rows.T)  # the list rounds go on from the row path's distances
                del rows
            if small is not None:
                dist, hops, sigma, delta = small
                scale = None
            else:
                if dist is None:
                    dist = _distances(B)
                hops = _hops_or_flat(B, dist)
                sigma, lists, scale = _sigma(B, dist, hops)
                check_sigma(sigma, dist, scale)
                delta = _delta(B, dist, hops, sigma, lists, scale)
                del lists
            if edges:
                # acc[p] += Σ_s σ(u)/σ(w) (1 + δ(w)) on every DAG arc p = u -> w
                B.launch("arc_sums", n, B.Gs, (S.icolptr, S.irowidx, S.ilen, np.int64(n), np.int64(B.k),
                                               np.int32(B.Gs), dist, hops, sigma, delta, nullable(scale), acc))
                continue
            b_dev = B.src_dev
            if small is None:  # (the small kernel writes it 0 itself)
                delta[b_dev, cp.arange(B.k)] = 0.0  # a source's own dependency is not betweenness
            acc += delta.sum(axis=1)
            if endpoints:
                add_endpoints(cp, dist.T, b_dev, acc)  # dist is (n, k): its transpose, a view
    return acc


def distance_sums(A, src, *, outgoing):
    """(Σ d, pairs counted, Σ 1/d over d > 0) of the weighted distances of the sources ``src``: CuPy
    float64, int64, float64 arrays (n,).  outgoing=False: for every vertex t over the sources that
    reach it; True: for every source over the vertices it reaches (0 at vertices that are not
    sources; a source listed twice counts twice).  A pair's vertex itself is counted (d = 0)."""
    cp = load_cupy()
    n = A.shape[0]
    with cp.cuda.Device(_device_id(A)):
        src = np.asarray(src, dtype=np.int64)
        S = _arcs(A) if src.size and n else None
        if (S is not None and outgoing and runs_small(n, S.device_id) and n <= _tuning.current().sssp_max_batch
                and src.size == n and (src == np.arange(n)).all()):
            # (S, r, H) = each vertex's own sums, a thread block per vertex      (no (n, k) distances)
            return small_sums(_Block(S, src, cp))
        dsum = cp.zeros(n, dtype=np.float64)
        reach = cp.zeros(n, dtype=np.int64)
        harm = cp.zeros(n, dtype=np.float64)
        if S is None:
            return dsum, reach, harm
        axis = 0 if outgoing else 1
        if outgoing and runs_small(n, S.device_id):
            # (S, r, H)[s] += each source's sums, a thread block per source      (no (n, k) distances)
            kb = _tuning.current().sssp_max_batch  # the sums take 32 bytes a source
            unique = np.unique(src).size == src.size  # then each vertex's sums come from one block, once
            for lo in range(0, src.size, kb):
                block = src[lo:lo + kb]
                B = _Block(S, block, cp)
                d, c, h = small_sums(B)
                for total, part in ((dsum, d), (reach, c), (harm, h)):
                    b_dev = B.src_dev
                    if unique:
                        total[b_dev] = part
                    else:  # a source listed twice counts twice
                        total += cp.bincount(b_dev, weights=part.astype(np.float64), minlength=n).astype(total.dtype)
            return dsum, reach, harm
        for block in _blocks(A, S, src, DIST_BYTES_PER_ENTRY, DIST_LISTS):
            dist = _distances(_Block(S, block, cp), contiguous=False)
            fin = dist != np.inf
            d = cp.where(fin, dist, 0.0).sum(axis=axis)
            c = fin.astype(np.int64).sum(axis=axis)
            with np.errstate(divide="ignore"):
                h = cp.where(fin & (dist > 0), 1.0 / dist, 0.0).sum(axis=axis)
            del dist, fin
            if outgoing:
                b_dev = cp.asarray(block)
                dsum += cp.bincount(b_dev, weights=d, minlength=n)
                reach += cp.bincount(b_dev, weights=c.astype(np.float64), minlength=n).astype(np.int64)
                harm += cp.bincount(b_dev, weights=h, minlength=n)
            else:
                dsum += d
                reach += c
                harm += h
    return dsum, reach, harm


def shortest_paths(A, src, *, counts):
    """(dist (k, n), σ (k, n) or None): CuPy float64 arrays, row i for source ``src[i]``; dist inf and σ 0
    where unreached; σ inf where the count passes float64's range."""
    cp = load_cupy()
    n = A.shape[0]
    src = np.asarray(src, dtype=np.int64)
    with cp.cuda.Device(_device_id(A)):
        dist_out = cp.empty((src.size, n), dtype=np.float64)
        sigma_out = cp.empty((src.size, n), dtype=np.float64) if counts else None
        if src.size == 0 or n == 0:
            return dist_out, sigma_out
        S = _arcs(A)
        at = 0
        sizes = (DEPS_BYTES_PER_ENTRY, DEPS_LISTS) if counts else (DIST_BYTES_PER_ENTRY, DIST_LISTS)
        for block in _blocks(A, S, src, *sizes):
            B = _Block(S, block, cp)
            # dist_out[block] = d of the min.plus closure from each source (the row path writes it in place)
            dist = _distances(B, out=dist_out[at:at + B.k], contiguous=counts)
            if counts:
                hops = _hops_or_flat(B, dist)
                sigma, lists, scale = _sigma(B, dist, hops)
                if scale is not None:
                    sigma = cp.ldexp(sigma, scale)  # inf beyond float64
                sigma_out[at:at + B.k] = sigma.T
                del hops, sigma, lists, scale
            del dist
            at += B.k
    return dist_out, sigma_out


def _device_id(A):
    return gpu_index(A.device) if ":" in A.device else 0
