"""The compiled loops of :mod:`spla.backends.cpu_paths` (numba; imported only when they run).

Brandes' search and sweep for one source, and the parallel loop that deals the sources to the
workers; the definitions, the rescaling of σ, the choice of push or pull per level and the memory
are described in :mod:`spla.backends.cpu_paths`.  ``cache=True``: each function is compiled once
per signature on a machine and loaded from numba's cache afterwards.

A worker's workspace ``ws`` is one (7, n + 1) array of the index dtype, its rows:

    LEVEL   level of each vertex (-1: not reached)
    QUEUE   the reached vertices in BFS order
    SUCC    vertices of a level that was pushed: the DAG arcs leaving queue[i] are dag[SUCC[i]:SUCC[i + 1]]
    PRED_LO, PRED_N   vertices found by a pull: the DAG arcs into queue[i] are
            dag[PRED_LO[i]:PRED_LO[i] + PRED_N[i]] (PRED_N[i] = 0 for the others)
    PULLED  per level d: 1 when level d + 1 was found by a pull (else by a push)
    EXP     per level d: the power of two σ̃ of level d was divided by (0: none)

and ``dag`` (nnz,) the arcs of the shortest-path DAG: heads (vertex sums, pushed levels), tails
(vertex sums, pulled levels), out-arc positions (arc sums, pushed levels) or in-arc positions
(arc sums, pulled levels).
"""

from __future__ import annotations

import math

from numba import njit, prange

#: a level whose largest σ exceeds this is rescaled into [0.5, 1) (float64 reaches 2^1024)
RESCALE_ABOVE = 2.0 ** 512
LEVEL, QUEUE, SUCC, PRED_LO, PRED_N, PULLED, EXP = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True, nogil=True)
def search(s, out_ptr, out_idx, in_ptr, in_idx, ws, sigma, dag, positions, growth, scan_cost):
    """BFS from s counting σ (scaled per level); returns the number of vertices reached.

    Each level is pushed along the out-arcs of its vertices, or pulled into the vertices not yet
    reached along their in-arcs, whichever reads fewer arcs (a pull also scans every vertex,
    ``scan_cost`` arcs' worth each)."""
    n = out_ptr.shape[0] - 1
    level, queue, succ, pred_lo, pred_n, pulled, exps = ws[LEVEL], ws[QUEUE], ws[SUCC], ws[PRED_LO], ws[PRED_N], \
        ws[PULLED], ws[EXP]
    queue[0] = s
    level[s] = 0
    sigma[s] = 1.0
    exps[0] = 0
    pred_n[0] = 0
    lo, hi, tail, d, k = 0, 1, 1, 0, 0
    bound = 1.0  # an upper bound of the largest σ of the newest level
    push_arcs = out_ptr[s + 1] - out_ptr[s]  # out-arcs of the newest level
    pull_arcs = in_idx.shape[0] - (in_ptr[s + 1] - in_ptr[s])  # in-arcs of the vertices not reached
    while lo < hi:
        below = d + 1
        next_push = 0
        if push_arcs <= pull_arcs + scan_cost * n:
            pulled[d] = 0
            for qi in range(lo, hi):
                v = queue[qi]
                sv = sigma[v]
                succ[qi] = k
                for p in range(out_ptr[v], out_ptr[v + 1]):
                    w = out_idx[p]
                    lw = level[w]
                    if lw < 0:
                        level[w] = below
                        sigma[w] = sv
                        queue[tail] = w
                        pred_n[tail] = 0
                        tail += 1
                        next_push += out_ptr[w + 1] - out_ptr[w]
                        pull_arcs -= in_ptr[w + 1] - in_ptr[w]
                    elif lw == below:
                        sigma[w] += sv
                    else:
                        continue
                    dag[k] = p if positions else w
                    k += 1
            succ[hi] = k
        else:
            pulled[d] = 1
            for w in range(n):
                if level[w] >= 0:
                    continue
                total = 0.0
                start = k
                for p in range(in_ptr[w], in_ptr[w + 1]):
                    v = in_idx[p]
                    if level[v] == d:
                        total += sigma[v]
                        dag[k] = p if positions else v
                        k += 1
                if k > start:
                    level[w] = below
                    sigma[w] = total
                    queue[tail] = w
                    pred_lo[tail] = start
                    pred_n[tail] = k - start
                    tail += 1
                    next_push += out_ptr[w + 1] - out_ptr[w]
                    pull_arcs -= in_ptr[w + 1] - in_ptr[w]
        e = 0
        bound *= growth
        if bound > RESCALE_ABOVE:
            top = 0.0
            for qi in range(hi, tail):
                top = max(top, sigma[queue[qi]])
            if top > RESCALE_ABOVE:
                e = math.frexp(top)[1]
                for qi in range(hi, tail):
                    sigma[queue[qi]] = math.ldexp(sigma[queue[qi]], -e)
                top = math.ldexp(top, -e)
            bound = top
        d = below
        exps[d] = e
        push_arcs = next_push
        lo, hi = hi, tail
    return tail


@njit(cache=True, nogil=True)
def sweep(tail, out_idx, in_idx, in_to_out, ws, sigma, coef, pushed, dag, edges, endpoints, acc):
    """Add the source's dependencies into acc, deepest vertex first.

    coef[w] = (1 + δ_w) / σ̃_w · 2^-e_level(w), so that δ_v = σ̃_v Σ_{v -> w in the DAG} coef[w]:
    a pushed level's vertex pulls the coefficients of its DAG heads; a pulled level's vertex adds its
    own into ``pushed`` at its DAG tails, which read it when their turn comes.  Vertex sums:
    acc[v] += δ_v (+ the endpoints); arc sums: acc[p] += σ̃_v · coef[w] at the out-arc position p of
    every DAG arc v -> w."""
    level, queue, succ, pred_lo, pred_n, pulled, exps = ws[LEVEL], ws[QUEUE], ws[SUCC], ws[PRED_LO], ws[PRED_N], \
        ws[PULLED], ws[EXP]
    last = 0 if edges else 1  # the source: its own δ is not betweenness, its out-arcs are
    for qi in range(tail - 1, last - 1, -1):
        v = queue[qi]
        lv = level[v]
        sv = sigma[v]
        total = pushed[v]
        pushed[v] = 0.0
        if pulled[lv] == 0:
            for j in range(succ[qi], succ[qi + 1]):
                if edges:
                    p = dag[j]
                    c = coef[out_idx[p]]
                    acc[p] += sv * c
                else:
                    c = coef[dag[j]]
                total += c
        if qi == 0:
            break
        if not edges:
            acc[v] += sv * total + (1.0 if endpoints else 0.0)
        c = 1.0 / sv + total
        e = exps[lv]
        c = math.ldexp(c, -e) if e else c
        coef[v] = c
        if pred_n[qi]:
            for j in range(pred_lo[qi], pred_lo[qi] + pred_n[qi]):
                if edges:
                    p = dag[j]
                    u = in_idx[p]
                    acc[in_to_out[p]] += sigma[u] * c
                else:
                    u = dag[j]
                pushed[u] += c
    pushed[queue[0]] = 0.0
    if endpoints:
        acc[queue[0]] += tail - 1


@njit(cache=True, nogil=True)
def worker(t, workers, out_ptr, out_idx, in_ptr, in_idx, in_to_out, sources, growth, scan_cost, edges, endpoints, ws,
           sigma, coef, pushed, dag, acc):
    """Worker t of ``workers``: the sources t, t + workers, ... into acc[t], with workspace t."""
    mine, wt = acc[t], ws[t]
    for i in range(t, sources.shape[0], workers):
        tail = search(sources[i], out_ptr, out_idx, in_ptr, in_idx, wt, sigma[t], dag[t], edges, growth, scan_cost)
        sweep(tail, out_idx, in_idx, in_to_out, wt, sigma[t], coef[t], pushed[t], dag[t], edges, endpoints, mine)
        level, queue = wt[LEVEL], wt[QUEUE]
        for qi in range(tail):
            level[queue[qi]] = -1


@njit(parallel=True, cache=True)
def run(out_ptr, out_idx, in_ptr, in_idx, in_to_out, sources, growth, scan_cost, edges, endpoints, ws, sigma, coef,
        pushed, dag, acc):
    """Every worker t of T = acc.shape[0], on its own thread: the sources t, t + T, ... into acc[t]."""
    workers = acc.shape[0]
    for t in prange(workers):
        worker(t, workers, out_ptr, out_idx, in_ptr, in_idx, in_to_out, sources, growth, scan_cost, edges, endpoints,
               ws, sigma, coef, pushed, dag, acc)


@njit(cache=True, nogil=True)
def run_here(out_ptr, out_idx, in_ptr, in_idx, in_to_out, sources, growth, scan_cost, edges, endpoints, ws, sigma,
             coef, pushed, dag, acc):
    """:func:`run` with one worker, on the calling thread (no thread to wake)."""
    worker(0, 1, out_ptr, out_idx, in_ptr, in_idx, in_to_out, sources, growth, scan_cost, edges, endpoints, ws,
           sigma, coef, pushed, dag, acc)


@njit(cache=True, nogil=True)
def reach_search(s, out_ptr, out_idx, in_ptr, in_idx, level, queue, scan_cost):
    """BFS from s, levels only: each level pushed, or pulled into the unreached vertices (a vertex
    stops at its first in-arc from the level) when that reads fewer arcs.  Returns the number of
    vertices reached: queue[:tail] in BFS order, their levels in ``level``."""
    n = out_ptr.shape[0] - 1
    queue[0] = s
    level[s] = 0
    lo, hi, tail, d = 0, 1, 1, 0
    push_arcs = out_ptr[s + 1] - out_ptr[s]
    pull_arcs = in_idx.shape[0] - (in_ptr[s + 1] - in_ptr[s])
    while lo < hi:
        below = d + 1
        next_push = 0
        if push_arcs <= pull_arcs + scan_cost * n:
            for qi in range(lo, hi):
                v = queue[qi]
                for p in range(out_ptr[v], out_ptr[v + 1]):
                    w = out_idx[p]
                    if level[w] < 0:
                        level[w] = below
                        queue[tail] = w
                        tail += 1
                        next_push += out_ptr[w + 1] - out_ptr[w]
                        pull_arcs -= in_ptr[w + 1] - in_ptr[w]
        else:
            for w in range(n):
                if level[w] >= 0:
                    continue
                for p in range(in_ptr[w], in_ptr[w + 1]):
                    if level[in_idx[p]] == d:
                        level[w] = below
                        queue[tail] = w
                        tail += 1
                        next_push += out_ptr[w + 1] - out_ptr[w]
                        pull_arcs -= in_ptr[w + 1] - in_ptr[w]
                        break
        d = below
        push_arcs = next_push
        lo, hi = hi, tail
    return tail


@njit(cache=True, nogil=True)
def add_distances(s, order, tail, d_of, outgoing, zero, ds, rs, hs):
    """Add one search's distances to the sums: the search from s reached order[0:tail] (order[0] is s),
    vertex v at distance d_of[v].  ``outgoing``: Σ d, the count (s included) and Σ_{d > 0} 1/d to
    entry s of ds, rs, hs; else d, 1 and 1/d to each reached vertex's entries, and 1 to rs[s].  ``zero``
    is 0 in ds's type (an integer for hop counts, a float for lengths)."""
    if outgoing:
        total, inverse = zero, 0.0
        for qi in range(1, tail):
            d = d_of[order[qi]]
            total += d
            if d > 0:
                inverse += 1.0 / d
        ds[s] += total
        rs[s] += tail
        hs[s] += inverse
    else:
        rs[s] += 1
        for qi in range(1, tail):
            w = order[qi]
            d = d_of[w]
            ds[w] += d
            rs[w] += 1
            if d > 0:
                hs[w] += 1.0 / d


@njit(cache=True, nogil=True)
def distance_worker(t, workers, out_ptr, out_idx, in_ptr, in_idx, sources, scan_cost, outgoing, ws, dist, reach,
                    harm):
    """Worker t of ``workers``: the sources t, t + workers, ... into row t of the sums; per vertex
    reached (``outgoing``: per source) Σ d, the count (itself included) and Σ_{d >= 1} 1/d."""
    level, queue = ws[t, 0], ws[t, 1]
    ds, rs, hs = dist[t], reach[t], harm[t]
    for i in range(t, sources.shape[0], workers):
        s = sources[i]
        tail = reach_search(s, out_ptr, out_idx, in_ptr, in_idx, level, queue, scan_cost)
        add_distances(s, queue, tail, level, outgoing, 0, ds, rs, hs)
        for qi in range(tail):
            level[queue[qi]] = -1


@njit(parallel=True, cache=True)
def run_distances(out_ptr, out_idx, in_ptr, in_idx, sources, scan_cost, outgoing, ws, dist, reach, harm):
    """Every worker t of T = dist.shape[0], on its own thread: the sources t, t + T, ... into row t."""
    workers = dist.shape[0]
    for t in prange(workers):
        distance_worker(t, workers, out_ptr, out_idx, in_ptr, in_idx, sources, scan_cost, outgoing, ws, dist, reach,
                        harm)


@njit(cache=True, nogil=True)
def run_distances_here(out_ptr, out_idx, in_ptr, in_idx, sources, scan_cost, outgoing, ws, dist, reach, harm):
    """:func:`run_distances` with one worker, on the calling thread."""
    distance_worker(0, 1, out_ptr, out_idx, in_ptr, in_idx, sources, scan_cost, outgoing, ws, dist, reach, harm)

