"""The compiled loops of :mod:`spla.backends.cpu_sssp` (numba; imported only when they run).

One Dijkstra per source, keyed lexicographically by (d, h), with a binary heap indexed by vertex
(decrease-key in place) that holds each entry's key beside it, so that its comparisons read the
heap's own slots instead of gathering d and h by vertex; the definitions, the representation of σ
and the memory are described in :mod:`spla.backends.cpu_sssp`.  ``cache=True``: each function is
compiled once per signature on a machine and loaded from numba's cache afterwards.

A worker's index workspace ``ws`` is one (5, n + 1) int64 array, its rows:

    POS     -1: not reached; >= 0: the vertex's slot in the heap; SETTLED: popped
    HEAP    the heap's entries (slots 0..size-1), each its second key and its vertex packed as
            h · 2^32 + v (n < 2^31: h < 2^31 and v < 2^32), so that one integer comparison orders
            equal d by h (and equal keys by vertex, which decides nothing)
    ORDER   the popped vertices in pop order (a topological order of the DAG)
    HOPS    h of each reached vertex
    PRED    the DAG arcs into ORDER[i] are dag[PRED[i]:PRED[i + 1]] (A's in-arc positions)

its float workspace ``fs`` one (4, n) float64 array: DIST (d, inf where not reached), SIG (σ̃, the
mantissa part of σ), DELTA (δ) and KEY (the heap's entries' d, slot by slot, beside HEAP);
``ex`` (n,) int64 the power of two of each σ (σ = σ̃ · 2^ex).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .cpu_paths_kernels import add_distances

#: a σ̃ that exceeds this is brought into [0.5, 1) and its power of two moved into ``ex``
RESCALE_ABOVE = 2.0 ** 512
POS, HEAP, ORDER, HOPS, PRED = 0, 1, 2, 3, 4
WS_ROWS = 5
DIST, SIG, DELTA, KEY = 0, 1, 2, 3
FS_ROWS = 4
SETTLED = -2
#: the vertex's bits of a packed heap entry (h · 2^32 + v)
VERTEX = (1 << 32) - 1
#: the most vertices a search takes (h and v must fit their halves of a packed entry)
MAX_VERTICES = 1 << 31


@njit(cache=True, nogil=True, inline="always")
def _below(d1, x1, d2, x2):
    """Whether the heap key (d1, x1) is lexicographically below (d2, x2); x = h · 2^32 + v."""
    return d1 < d2 or (d1 == d2 and x1 < x2)


@njit(cache=True, nogil=True)
def _sift_up(i, d, x, key, heap, pos):
    """Put the entry (d, x) at slot i or, past the entries above it that it is below, higher up."""
    while i > 0:
        parent = (i - 1) >> 1
        if not _below(d, x, key[parent], heap[parent]):
            break
        key[i] = key[parent]
        heap[i] = heap[parent]
        pos[heap[i] & VERTEX] = i
        i = parent
    key[i] = d
    heap[i] = x
    pos[x & VERTEX] = i


@njit(cache=True, nogil=True)
def _sift_down(i, size, d, x, key, heap, pos):
    """Put the entry (d, x) at slot i or, past the smaller of the children below it, lower down."""
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _below(key[c + 1], heap[c + 1], key[c], heap[c]):
            c += 1
        if not _below(key[c], heap[c], d, x):
            break
        key[i] = key[c]
        heap[i] = heap[c]
        pos[heap[i] & VERTEX] = i
        i = c
    key[i] = d
    heap[i] = x
    pos[x & VERTEX] = i


@njit(cache=True, nogil=True)
def search(s, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, counting, ws, fs, ex, dag):
    """Dijkstra from s keyed by (d, h); returns the number of vertices popped (ORDER[:tail]).

    With ``counting``, σ of each vertex is pulled when it is popped, along its in-arcs from the DAG
    arcs' tails (all popped before it: their keys are lower), and those arcs' positions recorded."""
    pos, heap, order, hops, pred = ws[POS], ws[HEAP], ws[ORDER], ws[HOPS], ws[PRED]
    dist, sig, key = fs[DIST], fs[SIG], fs[KEY]
    dist[s] = 0.0
    hops[s] = 0
    key[0] = 0.0
    heap[0] = s
    pos[s] = 0
    size, tail, k = 1, 0, 0
    while size > 0:
        dv = key[0]  # the popped entry's key is its vertex's (d, h), final
        hv = heap[0] >> 32
        v = heap[0] & VERTEX
        size -= 1
        if size > 0:
            _sift_down(0, size, key[size], heap[size], key, heap, pos)
        pos[v] = SETTLED
        order[tail] = v
        if counting:
            pred[tail] = k
            if tail == 0:
                sig[v] = 1.0
                ex[v] = 0
            else:
                total = 0.0
                e = 0
                for p in range(in_ptr[v], in_ptr[v + 1]):
                    u = in_idx[p]
                    if u == v or pos[u] != SETTLED:
                        continue
                    du = dist[u]
                    # a DAG arc: tight, and below v's key (d, h)
                    if du + in_len[p] == dv and (du < dv or hops[u] < hv):
                        eu = ex[u]
                        if eu == e:
                            total += sig[u]
                        elif eu < e:
                            total += math.ldexp(sig[u], eu - e)
                        else:
                            total = math.ldexp(total, e - eu) + sig[u]
                            e = eu
                        dag[k] = p
                        k += 1
                if total > RESCALE_ABOVE:
                    f = math.frexp(total)[1]
                    total = math.ldexp(total, -f)
                    e += f
                sig[v] = total
                ex[v] = e
        tail += 1
        nh = hv + 1
        for p in range(out_ptr[v], out_ptr[v + 1]):
            w = out_idx[p]
            pw = pos[w]
            if pw == SETTLED or w == v:
                continue
            nd = dv + out_len[p]  # the path's sum, formed in path order
            if pw < 0:
                dist[w] = nd
                hops[w] = nh
                _sift_up(size, nd, (nh << 32) | w, key, heap, pos)
                size += 1
            elif nd < dist[w] or (nd == dist[w] and nh < hops[w]):
                dist[w] = nd
                hops[w] = nh
                _sift_up(pw, nd, (nh << 32) | w, key, heap, pos)
    if counting:
        pred[tail] = k
    return tail


@njit(cache=True, nogil=True)
def sweep(tail, in_idx, edges, endpoints, ws, fs, ex, dag, acc):
    """Add the source's dependencies into acc, in reverse pop order (every DAG head before its tails):
    δ(u) += σ(u)/σ(w) · (1 + δ(w)) along each DAG arc u -> w; vertex sums acc[w] += δ(w) (+ the
    endpoints), arc sums acc[p] += the same term at the arc's position p in A's CSC order."""
    order, pred = ws[ORDER], ws[PRED]
    sig, delta = fs[SIG], fs[DELTA]
    for i in range(tail - 1, 0, -1):
        w = order[i]
        dw = delta[w]
        coeff = (1.0 + dw) / sig[w]
        ew = ex[w]
        for j in range(pred[i], pred[i + 1]):
            p = dag[j]
            u = in_idx[p]
            c = sig[u] * coeff
            eu = ex[u]
            if eu != ew:
                c = math.ldexp(c, eu - ew)
            delta[u] += c
            if edges:
                acc[p] += c
        if not edges:
            acc[w] += dw + (1.0 if endpoints else 0.0)
    if endpoints and not edges:
        acc[order[0]] += tail - 1


@njit(cache=True, nogil=True)
def _reset(tail, ws, fs):
    pos, order = ws[POS], ws[ORDER]
    dist, delta = fs[DIST], fs[DELTA]
    for i in range(tail):
        v = order[i]
        pos[v] = -1
        dist[v] = np.inf
        delta[v] = 0.0


@njit(cache=True, nogil=True)
def dependency_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, edges, endpoints, ws,
                      fs, ex, dag, acc):
    """Worker t of ``workers``: the sources t, t + workers, ... into acc[t], with workspace t."""
    for i in range(t, sources.shape[0], workers):
        tail = search(sources[i], out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, True, ws[t], fs[t], ex[t],
                      dag[t])
        sweep(tail, in_idx, edges, endpoints, ws[t], fs[t], ex[t], dag[t], acc[t])
        _reset(tail, ws[t], fs[t])


@njit(parallel=True, cache=True)
def run_dependencies(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, edges, endpoints, ws, fs, ex, dag,
                     acc):
    """Every worker t of T = acc.shape[0], on its own thread: the sources t, t + T, ... into acc[t]."""
    workers = acc.shape[0]
    for t in prange(workers):
        dependency_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, edges, endpoints,
                          ws, fs, ex, dag, acc)


@njit(cache=True, nogil=True)
def run_dependencies_here(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, edges, endpoints, ws, fs, ex,
                          dag, acc):
    """:func:`run_dependencies` with one worker, on the calling thread."""
    dependency_worker(0, 1, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, edges, endpoints, ws, fs, ex,
                      dag, acc)


@njit(cache=True, nogil=True)
def distance_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, outgoing, ws, fs, ex,
                    dag, dist, reach, harm):
    """Worker t: per vertex reached (``outgoing``: per source) Σ d in pop order, the count (itself
    included) and Σ_{d > 0} 1/d, into row t of the sums."""
    ds, rs, hs = dist[t], reach[t], harm[t]
    order = ws[t, ORDER]
    d_of = fs[t, DIST]
    for i in range(t, sources.shape[0], workers):
        s = sources[i]
        tail = search(s, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, False, ws[t], fs[t], ex[t], dag[t])
        add_distances(s, order, tail, d_of, outgoing, 0.0, ds, rs, hs)
        _reset(tail, ws[t], fs[t])


@njit(parallel=True, cache=True)
def run_distances(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, outgoing, ws, fs, ex, dag, dist, reach,
                  harm):
    """Every worker t of T = dist.shape[0], on its own thread: the sources t, t + T, ... into row t."""
    workers = dist.shape[0]
    for t in prange(workers):
        distance_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, outgoing, ws, fs, ex,
                        dag, dist, reach, harm)


@njit(cache=True, nogil=True)
def run_distances_here(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, outgoing, ws, fs, ex, dag, dist,
                       reach, harm):
    """:func:`run_distances` with one worker, on the calling thread."""
    distance_worker(0, 1, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, outgoing, ws, fs, ex, dag, dist,
                    reach, harm)


@njit(cache=True, nogil=True)
def paths_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, counting, ws, fs, ex, dag,
                 dist_out, sigma_out):
    """Worker t: row i of dist_out (and sigma_out, with ``counting``) for the sources i = t, t + workers, ...
    (rows start at inf and 0)."""
    order = ws[t, ORDER]
    d_of, s_of, e_of = fs[t, DIST], fs[t, SIG], ex[t]
    for i in range(t, sources.shape[0], workers):
        tail = search(sources[i], out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, counting, ws[t], fs[t], ex[t],
                      dag[t])
        row = dist_out[i]
        for qi in range(tail):
            v = order[qi]
            row[v] = d_of[v]
            if counting:
                sigma_out[i, v] = math.ldexp(s_of[v], e_of[v])  # inf beyond float64's range
        _reset(tail, ws[t], fs[t])


@njit(parallel=True, cache=True)
def run_paths(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, counting, ws, fs, ex, dag, dist_out,
              sigma_out):
    """Every worker t of T = ws.shape[0], on its own thread: the rows t, t + T, ..."""
    workers = ws.shape[0]
    for t in prange(workers):
        paths_worker(t, workers, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, counting, ws, fs, ex,
                     dag, dist_out, sigma_out)


@njit(cache=True, nogil=True)
def run_paths_here(out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, counting, ws, fs, ex, dag, dist_out,
                   sigma_out):
    """:func:`run_paths` with one worker, on the calling thread."""
    paths_worker(0, 1, out_ptr, out_idx, out_len, in_ptr, in_idx, in_len, sources, counting, ws, fs, ex, dag,
                 dist_out, sigma_out)
