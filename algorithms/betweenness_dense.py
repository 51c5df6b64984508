"""Betweenness of a block of sources held as dense (n, k) arrays (TurboBC, Algorithm 1, batched).

Definition (Brandes 2001; networkx ``betweenness_centrality`` and ``edge_betweenness_centrality``)::

    δ_s(v)      = Σ_{w : v -> w on a shortest path from s} σ_sv / σ_sw · (1 + δ_s(w))
    bc(v)       = Σ_s δ_s(v)                              (vertex betweenness, before rescaling)
    bc(v -> w)  = Σ_s σ_sv / σ_sw · (1 + δ_s(w))          (edge betweenness, arcs with level(w) = level(v) + 1)

Restricted to a set of targets T (networkx ``betweenness_centrality_subset``; Brandes 2008, §3.1) the 1
counting the paths that end at w becomes t(w), the indicator of w ∈ T:
δ_s(v) = Σ_w σ_sv / σ_sw · (t(w) + δ_s(w)), and likewise for the arcs.

σ_sv = number of shortest s-v paths.  The sources s of a block are the columns of (n, k) arrays:

    forward, d = 1, 2, ...:   f<!reached> = f +.first A            (σ of the vertices at depth d)
                              σ += f;  level[f != 0] = d
    backward, d = D .. 1:     c = t/σ + T   on level d, 0 elsewhere      (T = δ/σ; t = 1 without targets)
                              T<level == d-1> += A +.second c     (Σ over out-neighbours at depth d)
                              δ = σ · T

Exactness: shortest-path counts overflow any integer and float64 (a chain of 1,100 diamonds has
2^1100 of them).  A level whose largest σ exceeds RESCALE_ABOVE = 2^512 is rescaled, per source, by
a power of two e_d that brings it into [0.5, 1): the scaling is exact, and since δ only needs ratios
σ_v/σ_w between consecutive levels, δ(v) = σ̃(v) · 2^-e_d · T(v).  The results carry float64's
relative precision however large σ grows.

Needs: P, a square pattern matrix (arc i -> j is P[i, j]), and P.T for a directed graph.  Memory:
about BYTES_PER_VERTEX_SOURCE = 64 bytes per vertex and source of the block (σ, δ, the frontier and
temporaries in float64, level in int32, masks).  Host traffic: one (k,) read per BFS level.
"""

from __future__ import annotations

import numpy as np

import spla

from ._common import to_numpy

#: device bytes per vertex and source of a block: σ, δ (f64), frontier, temporaries, level (int32), masks
BYTES_PER_VERTEX_SOURCE = 64
#: a level whose largest σ exceeds this is rescaled into [0.5, 1) (float64 reaches 2^1024)
RESCALE_ABOVE = 2.0 ** 512


def flat(x):
    """(n, 1) blocks go to the engine as 1-D vectors (TurboBC's single-source products)."""
    return x.reshape(-1) if x.ndim == 2 and x.shape[1] == 1 else x


def _pull_frontier(f, P, reached, kernel):
    """f<!reached, replace> = f +.first A on an (n, k) block (1-D when k == 1), reshaped back to (n, k)."""
    y = spla.vxm(flat(f), P, "plus_first", mask=flat(reached), complement=True, kernel=kernel)
    return y.reshape(f.shape)


def accumulate(P, coeff, below, T, kernel):
    """T<below> += A +.second coeff, in place ((n, k) blocks; 1-D when k == 1)."""
    spla.mxv(P, flat(coeff), "plus_second", mask=flat(below), accum="plus", out=flat(T), kernel=kernel)


# σ += f;  level[f != 0] = d;  reached |= (f != 0)          -- one fused pass per BFS level
_forward_update = spla.fuse(lambda xp: lambda sigma, f, level, reached, d: (
    sigma + f, xp.where(f != 0, d, level), reached | (f != 0)), name="bc_forward_update")
# c = (t/σ + T) on level d, 0 elsewhere;  below = (level == d - 1)   -- one fused pass per level
_backward_coeff = spla.fuse(lambda xp: lambda level, ends, T, d: (
    xp.where(level == d, ends + T, 0.0), level == d - 1), name="bc_backward_coeff")


def block(P, sources, acc, *, endpoints, edges, kernel, targets=None):
    """Add one block of sources' dependencies into ``acc`` (vertex (n,) or arc (nnz,) sums).

    ``targets``: None (every vertex a target) or the float64 (n,) indicator t of the targets, on
    P's device: only paths ending at a target count.

    The backward sweep keeps T = δ / σ̃ instead of δ: T(v) = 2^-e_d Σ_w (1/σ̃(w) + T(w)) over
    the children w of v, so each level is one fused pass and one masked product that
    accumulates straight into T; δ = σ̃ · T at the end.  Host-device traffic per BFS
    level: one (k,) vector (each source's largest σ), which both ends the BFS and decides
    the level's power-of-two rescaling.
    """
    xp = P.xp
    n = P.shape[0]
    kb = len(sources)
    s = xp.asarray(sources)
    c = xp.arange(kb)
    sigma = xp.zeros((n, kb), dtype=np.float64)
    sigma[s, c] = 1.0
    level = xp.full((n, kb), -1, dtype=np.int32)
    level[s, c] = 0
    reached = level >= 0
    frontier = sigma.copy()
    exps = []  # host (k,) int arrays e_d, d = 1..depth: σ̃ at level d = σ_d · 2^-(e_1 + ... + e_d)
    d = 0
    while True:
        d += 1
        # frontier<!reached, replace> = frontier +.first A
        frontier = _pull_frontier(frontier, P, reached, kernel)
        top = to_numpy(frontier.max(axis=0) if kb > 1 else frontier.reshape(-1).max().reshape(1))
        if not np.any(top > 0):
            break
        e = np.where(top > RESCALE_ABOVE, np.frexp(top)[1], 0).astype(np.int32)
        if e.any():
            # frontier = frontier · 2^-e_d                    (per source)
            frontier = xp.ldexp(frontier, xp.asarray(-e))
        exps.append(e)
        # σ += frontier;  level<frontier> = d;  reached |= frontier
        sigma, level, reached = _forward_update(sigma, frontier, level, reached, np.int32(d))
    depth = d - 1
    del frontier
    inv_sigma = 1.0 / xp.where(reached, sigma, 1.0)  # 1 ./ σ̃ where reached
    # t ./ σ̃: the paths that end at each vertex, as a share of its σ̃ (1 ./ σ̃ when every vertex is a target)
    ends = inv_sigma if targets is None else inv_sigma * targets[:, None]
    T = xp.zeros((n, kb), dtype=np.float64)  # δ / σ̃
    for d in range(depth, 0, -1):
        # coeff<level == d> = t/σ̃ + T;  below = (level == d-1)
        coeff, below = _backward_coeff(level, ends, T, np.int32(d))
        e = exps[d - 1]
        if e.any():
            # coeff = coeff · 2^-e_d                           (per source)
            coeff = xp.ldexp(coeff, xp.asarray(-e))
        # T<level == d-1> += A +.second coeff
        accumulate(P, coeff, below, T, kernel)
    # δ = σ̃ · T
    delta = sigma * T
    del T
    if edges:
        add_arc_dependencies(P, level, sigma, delta, inv_sigma, exps, acc, targets)
        return
    delta[s, c] = 0.0  # a source's own dependency is not betweenness
    # acc += Σ_s δ_s                                             (over the block's sources)
    acc += delta.sum(axis=1)
    if endpoints:
        beyond = level > 0
        acc += beyond.sum(axis=1)
        acc[s] += beyond.sum(axis=0)


def add_arc_dependencies(P, level, sigma, delta, inv_sigma, exps, acc, targets=None):
    """acc[p] += Σ_s σ_sv/σ_sw (t(w) + δ_s(w)) for every arc p = v -> w with level(w) = level(v) + 1
    (t = 1 without ``targets``)."""
    if not exps or P.nnz == 0:
        return
    xp = P.xp
    kb = level.shape[1]
    e_table = xp.asarray(np.stack(exps))  # (depth, kb)
    cols = xp.arange(kb)

    def arc(tail, head):
        lv, lw = tail(level), head(level)
        valid = (lv >= 0) & (lw == lv + 1)
        e = e_table[xp.clip(lw - 1, 0, len(exps) - 1), cols]
        ends = 1.0 if targets is None else head(targets)[:, None]
        contrib = xp.ldexp(tail(sigma) * (ends + head(delta)) * head(inv_sigma), -e)
        return xp.where(valid, contrib, 0.0).sum(axis=1)

    # acc(v -> w) += Σ_s [level(w) = level(v) + 1] · 2^-e σ̃(v) (t(w) + δ(w)) / σ̃(w)      (chunks of arcs)
    spla.apply_arcs(P, arc, acc, width=kb)
