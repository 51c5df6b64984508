"""The compiled loops of :mod:`spla.backends.cpu_paths` (numba; imported only when they run).

Brandes' search and sweeps for one source, and the parallel loop that deals the sources to the
workers; the definitions, the rescaling of σ and the memory are described in
:mod:`spla.backends.cpu_paths`.  ``cache=True``: each function is compiled once per signature on
a machine and loaded from numba's cache afterwards.
"""

from __future__ import annotations

import math

from numba import njit, prange

#: a level whose largest σ exceeds this is rescaled into [0.5, 1) (float64 reaches 2^1024)
RESCALE_ABOVE = 2.0 ** 512


@njit(cache=True, nogil=True)
def search(s, out_ptr, out_idx, level, queue, sigma, exps, dag, succ, positions, growth):
    """BFS from s counting σ (scaled per level); returns the number of vertices reached.

    The reached vertices are queue[:tail] in BFS order; the arcs of the shortest-path DAG leaving
    queue[i] are succ[dag[i]:dag[i + 1]], as their heads w or (``positions``) their out-arc positions.
    """
    queue[0] = s
    level[s] = 0
    sigma[s] = 1.0
    exps[0] = 0
    dag[0] = 0
    lo, hi, tail, d, k = 0, 1, 1, 0, 0
    bound = 1.0  # an upper bound of the largest σ of the newest level
    while lo < hi:
        below = d + 1
        for qi in range(lo, hi):
            v = queue[qi]
            sv = sigma[v]
            for p in range(out_ptr[v], out_ptr[v + 1]):
                w = out_idx[p]
                lw = level[w]
                if lw < 0:
                    level[w] = below
                    sigma[w] = sv
                    queue[tail] = w
                    tail += 1
                elif lw == below:
                    sigma[w] += sv
                else:
                    continue
                succ[k] = p if positions else w
                k += 1
            dag[qi + 1] = k
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
        lo, hi = hi, tail
    return tail


@njit(cache=True, nogil=True)
def vertex_sweep(tail, level, queue, sigma, coef, exps, dag, succ, endpoints, acc):
    """acc[v] += δ_s(v) (+ the endpoints): one pull over the DAG's arcs (heads), deepest first.

    coef[w] = (1 + δ_w) / σ̃_w · 2^-e_level(w), so that δ_v = σ̃_v Σ_{v -> w} coef[w]."""
    for qi in range(tail - 1, 0, -1):
        v = queue[qi]
        total = 0.0
        for j in range(dag[qi], dag[qi + 1]):
            total += coef[succ[j]]
        sv = sigma[v]
        acc[v] += sv * total + (1.0 if endpoints else 0.0)
        c = 1.0 / sv + total
        e = exps[level[v]]
        coef[v] = math.ldexp(c, -e) if e else c
    if endpoints:
        acc[queue[0]] += tail - 1


@njit(cache=True, nogil=True)
def arc_sweep(tail, out_idx, level, queue, sigma, coef, exps, dag, succ, acc):
    """acc[p] += σ_v/σ_w (1 + δ_w) for the DAG's arcs p = v -> w (out-arc positions), deepest first."""
    for qi in range(tail - 1, -1, -1):
        v = queue[qi]
        sv = sigma[v]
        total = 0.0
        for j in range(dag[qi], dag[qi + 1]):
            p = succ[j]
            x = coef[out_idx[p]]
            acc[p] += sv * x
            total += x
        c = 1.0 / sv + total
        e = exps[level[v]]
        coef[v] = math.ldexp(c, -e) if e else c


@njit(parallel=True, cache=True)
def run(out_ptr, out_idx, sources, growth, edges, endpoints, level, queue, sigma, coef, exps, dag, succ, acc):
    """Every worker t: the sources t, t + T, ... into acc[t] (T = acc.shape[0])."""
    workers = acc.shape[0]
    nsrc = sources.shape[0]
    for t in prange(workers):
        lv, q, sg, cf, ex, dg, sc, mine = level[t], queue[t], sigma[t], coef[t], exps[t], dag[t], succ[t], acc[t]
        for i in range(t, nsrc, workers):
            tail = search(sources[i], out_ptr, out_idx, lv, q, sg, ex, dg, sc, edges, growth)
            if edges:
                arc_sweep(tail, out_idx, lv, q, sg, cf, ex, dg, sc, mine)
            else:
                vertex_sweep(tail, lv, q, sg, cf, ex, dg, sc, endpoints, mine)
            for qi in range(tail):
                lv[q[qi]] = -1
