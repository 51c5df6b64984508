"""spla.backends.gpu.sssp (weighted shortest paths on a GPU) against the contract's definition.

Definition (docs of spla.backends.gpu.sssp), arc u -> v of length w = A[u, v] >= 0::

    d(s) = 0;  d(v) = min over arcs u -> v of fl(d(u) + w);   tight arc: u != v and fl(d(u) + w) == d(v)
    h(s) = 0;  h(v) = min over tight arcs of h(u) + 1;       DAG arc: tight, (d(u), h(u)) < (d(v), h(v))
    σ(s) = 1;  σ(v) = Σ_{DAG u -> v} σ(u);                   δ(v) = Σ_{DAG v -> w} σ(v)/σ(w) (1 + δ(w))

:func:`reference` computes it in plain Python (Dijkstra with a heap, then the DAG in (d, h) order); it
equals networkx where no DAG arc joins equal distances, which the tests check too.

The same checks run twice:

* ``gpu`` marker: the CUDA kernels through CuPy (skipped without a GPU);
* emulated, on any machine: the host side of spla.backends.gpu.sssp (blocks, rounds, vertex lists,
  buckets, the reductions) with each kernel of spla/kernels/sssp.cuh transcribed to Python
  (:data:`EMULATED`) and run one listed vertex at a time in a shuffled order, NumPy standing in for
  CuPy.  It checks the algorithm the kernels implement, not their CUDA text.
"""

from __future__ import annotations

import heapq
import math
import random
import types

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.backends.gpu import sssp, sssp_rows, sssp_small

RTOL = 1e-9


# ---------------------------------------------------------------------------------------------
# Graphs and the reference
# ---------------------------------------------------------------------------------------------
def build(n, arcs, directed=True, device="cpu", pattern=False):
    """A Matrix of the arcs {(u, v): w} (a pair once; an undirected graph lists both directions)."""
    keys = sorted(arcs)
    rows = np.array([u for u, _ in keys], dtype=np.int64)
    cols = np.array([v for _, v in keys], dtype=np.int64)
    vals = np.array([arcs[key] for key in keys], dtype=np.float64)
    S = sp.csc_matrix((vals, (rows, cols)), shape=(n, n))
    S.sort_indices()
    A = spla.Matrix.from_scipy(S, directed=directed, device="cpu")
    if pattern:
        A = A.pattern()
    return A.to(device) if device != "cpu" else A


def csc_arcs(A):
    """[(u, v, w)] of A's stored entries in its CSC order (w = 1 for a pattern-only matrix)."""
    colptr, rowidx = spla.device.to_numpy(A.colptr), spla.device.to_numpy(A.rowidx)
    vals = None if A.values is None else spla.device.to_numpy(A.values).astype(np.float64)
    out = []
    for v in range(A.shape[1]):
        for p in range(colptr[v], colptr[v + 1]):
            out.append((int(rowidx[p]), v, 1.0 if vals is None else float(vals[p])))
    return out


def reference(n, arcs, s):
    """(d, h, σ, δ, arc sums [per CSC entry]) of source s by the definition: d in Python floats, σ as
    exact integers, δ and the arc sums in floats (an int ratio divides exactly rounded)."""
    out = [[] for _ in range(n)]
    for p, (u, v, w) in enumerate(arcs):
        out[u].append((v, w, p))
    d = [math.inf] * n
    d[s] = 0.0
    heap, done = [(0.0, s)], [False] * n
    while heap:
        du, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w, _ in out[u]:
            c = du + w
            if c < d[v]:
                d[v] = c
                heapq.heappush(heap, (c, v))
    tight = [[(v, p) for v, w, p in out[u] if u != v and d[u] + w == d[v] and d[v] < math.inf] for u in range(n)]
    h = [-1] * n
    h[s], level, t = 0, [s], 0
    while level:
        nxt = []
        for u in level:
            for v, _p in tight[u]:
                if h[v] == -1:
                    h[v] = t + 1
                    nxt.append(v)
        level, t = nxt, t + 1
    succ = [[(v, p) for v, p in tight[u] if (d[u], h[u]) < (d[v], h[v])] for u in range(n)]
    order = sorted((v for v in range(n) if d[v] < math.inf), key=lambda v: (d[v], h[v]))
    sigma = [0] * n
    sigma[s] = 1
    for u in order:  # (d, h) order is topological: every DAG arc goes forward in it
        for v, _p in succ[u]:
            sigma[v] += sigma[u]
    delta = [0.0] * n
    arc = [0.0] * len(arcs)
    for v in reversed(order):
        for w, p in succ[v]:
            c = sigma[v] / sigma[w] * (1.0 + delta[w])
            arc[p] = c
            delta[v] += c
    return d, h, sigma, delta, arc


def as_float(x):
    """An exact count as float64 (inf beyond its range)."""
    return float(x) if x < 2 ** 1024 else math.inf


def ref_dependencies(A, sources, edges=False, endpoints=False):
    n, arcs = A.shape[0], csc_arcs(A)
    acc = np.zeros(len(arcs) if edges else n)
    for s in sources:
        d, _h, _sigma, delta, arc = reference(n, arcs, int(s))
        if edges:
            acc += arc
            continue
        delta[s] = 0.0
        acc += delta
        if endpoints:
            reach = [v for v in range(n) if d[v] < math.inf]
            for v in reach:
                if v != s:
                    acc[v] += 1
            acc[s] += len(reach) - 1
    return acc


def ref_distance_sums(A, sources, outgoing):
    n, arcs = A.shape[0], csc_arcs(A)
    dist, reach, harm = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n)
    for s in sources:
        d = reference(n, arcs, int(s))[0]
        for t in range(n):
            if d[t] < math.inf:
                at = s if outgoing else t
                dist[at] += d[t]
                reach[at] += 1
                harm[at] += 1.0 / d[t] if d[t] > 0 else 0.0
    return dist, reach, harm


@st.composite
def weighted_graphs(draw, max_n=9):
    """(n, {(u, v): w}, directed, pattern): integer lengths 0..3 (zero-length arcs and exact ties),
    4-decimal lengths (ties decided by rounding) or a pattern; self-loops; disconnected graphs."""
    n = draw(st.integers(0, max_n))
    directed = draw(st.booleans())
    kind = draw(st.sampled_from(["int", "decimal", "pattern"]))
    rng = random.Random(draw(st.integers(0, 2 ** 32 - 1)))
    density = draw(st.sampled_from([0.15, 0.3, 0.6]))
    arcs = {}
    for u in range(n):
        for v in range(n):
            if (directed or u <= v) and rng.random() < density:
                w = (float(rng.randint(0, 3)) if kind == "int" else round(rng.uniform(0, 2), 4)
                     if kind == "decimal" else 1.0)
                arcs[(u, v)] = w
                if not directed:
                    arcs[(v, u)] = w
    return n, arcs, directed, kind == "pattern"


def _sources(n, rng):
    return np.array([rng.randrange(n) for _ in range(rng.randint(1, 2 * n))] if n else [], dtype=np.int64)


def _check_all(A, src, host):
    """The three functions against the reference (``host`` brings their results to NumPy)."""
    for edges, endpoints in ((False, False), (True, False), (False, True)):
        got = host(sssp.dependencies(A, src, edges=edges, endpoints=endpoints))
        np.testing.assert_allclose(got, ref_dependencies(A, src, edges, endpoints), rtol=RTOL, atol=1e-12,
                                   err_msg=f"edges={edges} endpoints={endpoints}")
    for outgoing in (False, True):
        got = [host(x) for x in sssp.distance_sums(A, src, outgoing=outgoing)]
        want = ref_distance_sums(A, src, outgoing)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=0)
        np.testing.assert_array_equal(got[1], want[1])
        assert got[1].dtype == np.int64
        np.testing.assert_allclose(got[2], want[2], rtol=1e-12, atol=0)
    dist, sigma = (host(x) for x in sssp.shortest_paths(A, src, counts=True))
    n, arcs = A.shape[0], csc_arcs(A)
    for i, s in enumerate(src):
        d, _h, sg, _delta, _arc = reference(n, arcs, int(s))
        np.testing.assert_array_equal(dist[i], d)  # exactly: the same float64 sums in path order
        np.testing.assert_allclose(sigma[i], [as_float(x) for x in sg], rtol=RTOL)
    only = host(sssp.shortest_paths(A, src, counts=False)[0])
    np.testing.assert_array_equal(only, dist)
    assert sssp.shortest_paths(A, src, counts=False)[1] is None


# ---------------------------------------------------------------------------------------------
# The reference against networkx
# ---------------------------------------------------------------------------------------------
def _nx_graph(n, arcs, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((u, v, w) for (u, v), w in arcs.items())
    return G


@settings(max_examples=60)
@given(weighted_graphs())
def test_reference_is_networkx_without_equal_distance_dag_arcs(g):
    n, arcs, directed, _pattern = g
    positive = {key: w for key, w in arcs.items() if w > 0}
    A = build(n, positive, directed)
    G = _nx_graph(n, positive, directed)
    got = ref_dependencies(A, range(n))
    want = nx.betweenness_centrality(G, weight="weight", normalized=False)
    scale = 1.0 if directed else 0.5  # networkx halves undirected sums
    np.testing.assert_allclose(got * scale, [want[v] for v in range(n)], rtol=RTOL, atol=1e-12)
    for s in range(n):
        d = reference(n, csc_arcs(A), s)[0]
        nd = nx.single_source_dijkstra_path_length(G, s, weight="weight")
        assert {v: d[v] for v in range(n) if d[v] < math.inf} == nd


def test_reference_counts_a_zero_length_cycle_once():
    # 0 -> 1 (1), 1 <-> 2 (0), 2 -> 3 (1): h orders 1 before 2, so σ(3) = 1 and 1 -> 2 is the DAG arc
    A = build(4, {(0, 1): 1.0, (1, 2): 0.0, (2, 1): 0.0, (2, 3): 1.0})
    d, h, sigma, delta, _arc = reference(4, csc_arcs(A), 0)
    assert d == [0.0, 1.0, 1.0, 2.0] and h == [0, 1, 2, 3] and sigma == [1] * 4
    assert delta == [3.0, 2.0, 1.0, 0.0]


# ---------------------------------------------------------------------------------------------
# Emulated kernels: spla/kernels/sssp.cuh in Python, NumPy for CuPy
# ---------------------------------------------------------------------------------------------
_ORDER = random.Random(0)


def _bits(x):
    return int(np.array(x, dtype=np.float64).view(np.uint64))


def _order(nlist):
    idx = list(range(int(nlist)))
    _ORDER.shuffle(idx)
    return idx


def _append(r, out, count):
    out[int(count[0])] = r
    count[0] += 1


def _list(r, mark, tag, out, count):
    if mark[r] != tag:
        mark[r] = tag
        _append(r, out, count)


def _length(unit, lens, p):
    return 1.0 if unit else float(lens[p])


def _entry(q, k):
    return int(q) // k, int(q) % k


def _buffer(bufs, sel, shift):
    return bufs[(int(sel) >> shift) & 3]


def _next_round(c, nlist):
    """spla_sssp_next_round: the appended list becomes the list, or the phase is done."""
    c[sssp.ROUNDS] += 1 if nlist else 0
    c[sssp.LISTED] += nlist
    sel, nout = int(c[sssp.SEL]), int(c[sssp.OUT])
    c[sssp.IN], c[sssp.OUT] = nout, 0
    c[sssp.T] += 1
    if nout:
        c[sssp.SEL] = ((sel >> 2) & 3) | ((sel & 3) << 2) | (sel & ~15)
    else:
        c[sssp.DONE] = 1


def _relax_next(c, nlist):
    """spla_sssp_relax_next: the next list, or the next bucket's (the far list), or done."""
    nfar = int(c[sssp.FAR])
    if c[sssp.OUT] or not nfar:
        _next_round(c, nlist)
        return
    c[sssp.ROUNDS] += 1 if nlist else 0
    c[sssp.LISTED] += nlist
    far_min, bound, width = (float(np.array(c[i], dtype=np.uint64).view(np.float64))
                             for i in (sssp.FAR_MIN, sssp.BOUND, sssp.WIDTH))
    c[sssp.BOUND] = _bits(max(max(bound, far_min) + width, float(np.nextafter(far_min, np.inf))))
    sel = int(c[sssp.SEL])
    c[sssp.SEL] = ((sel >> 4) & 3) | (((sel >> 2) & 3) << 2) | ((sel & 3) << 4)
    c[sssp.IN], c[sssp.FAR], c[sssp.FAR_MIN] = nfar, 0, _bits(np.inf)
    c[sssp.FAR_TAG] += 1
    c[sssp.T] += 1


def _relax(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, b0, b1, b2, k, _G, dist, mark, fmark, _cap, c = a
        if c[sssp.DONE]:
            return
        k, d, mk, fm = int(k), dist.reshape(-1), mark.reshape(-1), fmark.reshape(-1)
        bufs, sel = (b0, b1, b2), c[sssp.SEL]
        lst, nxt, far = _buffer(bufs, sel, 0), _buffer(bufs, sel, 2), _buffer(bufs, sel, 4)
        nlist = int(c[sssp.IN])
        bound = float(np.array(c[sssp.BOUND], dtype=np.uint64).view(np.float64))
        tag, ftag = int(c[sssp.T]), int(c[sssp.FAR_TAG])
        ncount, fcount, fmin = (c[i:i + 1] for i in (sssp.OUT, sssp.FAR, sssp.FAR_MIN))
        assert int(ncount[0]) == 0
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            dv = float(d[q])
            if not dv < bound:
                _list(q, fm, ftag, far, fcount)
                fmin[0] = min(int(fmin[0]), _bits(dv))
                continue
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                r = int(ori[p]) * k + s
                cand = dv + _length(unit, olen, p)
                if cand < d[r]:
                    d[r] = cand
                    if cand < bound:
                        _list(r, mk, tag, nxt, ncount)
                    else:
                        _list(r, fm, ftag, far, fcount)
                        fmin[0] = min(int(fmin[0]), _bits(cand))
        _relax_next(c, nlist)
    return run


def _hops(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, b0, b1, k, _G, dist, hops, _cap, c = a
        if c[sssp.DONE]:
            return
        k, d, h = int(k), dist.reshape(-1), hops.reshape(-1)
        bufs, sel = (b0, b1, b1), c[sssp.SEL]
        lst, nxt, ncount = _buffer(bufs, sel, 0), _buffer(bufs, sel, 2), c[sssp.OUT:sssp.OUT + 1]
        nlist, t = int(c[sssp.IN]), int(c[sssp.T])
        assert int(ncount[0]) == 0
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            assert h[q] == t
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and h[r] == -1 and d[q] + _length(unit, olen, p) == d[r]:
                    h[r] = t + 1
                    _append(r, nxt, ncount)
        _next_round(c, nlist)
    return run


def _scale_of(scale):
    """A kernel's optional scale array (a null pointer: zeros), flat."""
    if isinstance(scale, np.ndarray):
        return scale.reshape(-1)
    assert scale == 0
    return _Zeros()


class _Zeros:
    def __getitem__(self, _i):
        return 0


def _dag(du, dv, hu, hv):
    return du < dv or (du == dv and hu < hv)


def _dag_count(unit):
    def run(_grid, _block, a):
        icp, iri, ilen, n, k, _G, dist, hops, count = a
        k, d, h, c = int(k), dist.reshape(-1), hops.reshape(-1), count.reshape(-1)
        for w in range(int(n)):
            for s in range(k):
                r = w * k + s
                c[r] = 0
                if not d[r] < math.inf:
                    continue
                for p in range(int(icp[w]), int(icp[w + 1])):
                    u = int(iri[p])
                    q = u * k + s
                    if u != w and d[q] + _length(unit, ilen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                        c[r] += 1
    return run


def _sigma(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, queue, cap, start, levels, top, k, _G, dist, hops, count, sigma, ctl = a
        k, t = int(k), int(ctl[sssp.T])
        d, h, c, sg = (x.reshape(-1) for x in (dist, hops, count, sigma))
        lo, nlist = int(start[t]), int(levels[t])
        start[t + 1] = lo + nlist
        assert int(levels[t + 1]) == 0
        lst, nxt, ncount = queue[lo:], queue[lo + nlist:], levels[t + 1:t + 2]
        for i in _order(nlist):
            q = int(lst[i])
            v, s = _entry(q, k)
            top[t] = max(int(top[t]), _bits(sg[q]))
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and d[q] + _length(unit, olen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                    sg[r] += sg[q]
                    c[r] -= 1
                    if c[r] == 0:
                        assert lo + nlist + int(ncount[0]) < int(cap)
                        _append(r, nxt, ncount)
        ctl[sssp.T] += 1
    return run


def _delta(unit):
    def run(_grid, _block, a):
        ocp, ori, olen, queue, start, levels, k, _G, dist, hops, sigma, scale, delta, c = a
        k, t = int(k), int(np.array(c[sssp.T], dtype=np.uint64).view(np.int64))
        if t < 0:
            return
        d, h, sg, dl = (x.reshape(-1) for x in (dist, hops, sigma, delta))
        e = _scale_of(scale)
        lst = queue[int(start[t]):]
        for i in _order(levels[t]):
            q = int(lst[i])
            v, s = _entry(q, k)
            acc = 0.0
            for p in range(int(ocp[v]), int(ocp[v + 1])):
                w = int(ori[p])
                r = w * k + s
                if w != v and d[q] + _length(unit, olen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                    acc += math.ldexp((1.0 + dl[r]) / sg[r], int(e[q] - e[r]))
            dl[q] = sg[q] * acc
        c[sssp.T] = np.int64(t - 1).view(np.uint64)
    return run


def _arc_sums(unit):
    def run(_grid, _block, a):
        icp, iri, ilen, n, k, _G, dist, hops, sigma, delta, scale, out = a
        k = int(k)
        d, sg, dl = (x.reshape(-1) for x in (dist, sigma, delta))
        h = np.zeros(d.size, dtype=np.int32) if isinstance(hops, np.uint64) else hops.reshape(-1)  # null: every h 0
        e = _scale_of(scale)
        for w in range(int(n)):
            for p in range(int(icp[w]), int(icp[w + 1])):
                u = int(iri[p])
                acc = 0.0
                for s in range(k):
                    q, r = u * k + s, w * k + s
                    if u != w and d[q] + _length(unit, ilen, p) == d[r] and _dag(d[q], d[r], h[q], h[r]):
                        acc += math.ldexp(sg[q] / sg[r] * (1.0 + dl[r]), int(e[q] - e[r]))
                out[p] += acc
    return run


#: kernel key -> its Python transcription (a factory over UNIT)
class _Small:
    """spla_sssp_small: a thread block per source (sources in a shuffled order), each running its rounds
    over a frontier (a vertex at most once, as the kernel's bitmap holds it), in a shuffled order."""

    def __init__(self, unit):
        self.unit = unit
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, dist = a
        k, n = int(k), int(n)
        assert shared_mem == sssp_small.small_bytes(n) <= self.max_dynamic_shared_size_bytes
        out = dist.reshape(-1)
        for s in _order(k):
            d, mark = [math.inf] * n, [0] * n
            s0 = int(src[s])
            d[s0], mark[s0], listed, rnd = 0.0, 1, [s0], 1
            while listed:
                nxt = []
                for i in _order(len(listed)):
                    u = listed[i]
                    du = d[u]
                    for p in range(int(ocp[u]), int(ocp[u + 1])):
                        w = int(ori[p])
                        cand = du + _length(self.unit, olen, p)
                        if w != u and cand < d[w]:
                            d[w] = cand
                            if mark[w] != rnd + 1:
                                mark[w] = rnd + 1
                                nxt.append(w)
                listed, rnd = nxt, rnd + 1
            out[np.arange(n) * k + s] = d


class _SmallSums(_Small):
    """spla_sssp_small_sums: per source (shuffled), the distances as _Small, then (Σ d, |reached|,
    Σ 1/d over d > 0) into the source's slots."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, dsum, reach, harm = a
        k = int(k)
        for s in _order(k):
            one = np.empty(int(n))
            super().__call__(None, None, (ocp, ori, olen, src[s:s + 1], 1, n, _G, one), shared_mem)
            fin = one[one != math.inf]
            dsum[s], reach[s], harm[s] = fin.sum(), fin.size, (1.0 / fin[fin > 0]).sum()


class _SmallDeps(_Small):
    """spla_sssp_small_deps: per source (shuffled), from the distances in dist, h level by level over
    tight arcs (every h 0 without with_h, which the host passes only where no source can have ties,
    and where the source's farthest distance admits none, ``sssp_small.ties_possible``), the DAG counts,
    Kahn's levels of σ (each level's vertices shuffled), failed[s] = 1 where σ passes 2^512, else δ
    deepest level first."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, min_length, with_h, counts, dist, hops, sigma, delta, failed = a
        k, n = int(k), int(n)
        assert n < 2 ** 16
        assert shared_mem == sssp_small.small_bytes(n, deps=True, with_h=bool(with_h))
        assert shared_mem <= self.max_dynamic_shared_size_bytes
        assert counts == (not isinstance(hops, np.uint64)) == (not isinstance(sigma, np.uint64))
        col = np.arange(n) * k
        dist, delta = dist.reshape(-1), delta.reshape(-1)
        hops, sigma = (x.reshape(-1) if counts else None for x in (hops, sigma))
        for s in _order(k):
            d, s0 = dist[col + s].tolist(), int(src[s])  # spla_sssp_small's distances

            def arcs(u):
                for p in range(int(ocp[u]), int(ocp[u + 1])):
                    w = int(ori[p])
                    if w != u and d[u] + _length(self.unit, olen, p) == d[w]:
                        yield w

            far = max((x for x in d if x != math.inf), default=0.0)
            ties = sssp_small.ties_possible(float(min_length), far)
            assert with_h or not ties  # the host's bound covers every source
            h = [-1] * n if ties else [0] * n
            h[s0], level, t = 0, [s0] if ties else [], 0
            while level:
                nxt = []
                for i in _order(len(level)):
                    for w in arcs(level[i]):
                        if h[w] == -1:
                            h[w] = t + 1
                            nxt.append(w)
                level, t = nxt, t + 1

            def dag(u):
                return [w for w in arcs(u) if (d[u], h[u]) < (d[w], h[w])]

            count = [0] * n
            for u in range(n):
                if d[u] != math.inf:
                    for w in dag(u):
                        count[w] += 1
            sg = [0.0] * n
            sg[s0], levels = 1.0, [[s0]]
            while levels[-1]:
                nxt = []
                for i in _order(len(levels[-1])):
                    u = levels[-1][i]
                    for w in dag(u):
                        sg[w] += sg[u]
                        count[w] -= 1
                        if count[w] == 0:
                            nxt.append(w)
                levels.append(nxt)
            if counts:
                hops[col + s], sigma[col + s] = h, sg
            if not given:
                dist[col + s] = d
            if not all(x <= 2.0 ** 512 for x in sg):
                failed[s] = 1
                continue
            for level in reversed(levels):
                for u in level:
                    dl = sg[u] * sum(sg[w] for w in dag(u))
                    delta[u * k + s] = 0.0 if u == s0 else dl
                    sg[u] = (1.0 + dl) / sg[u]


class _Rows(_Small):
    """spla_sssp_rows: a thread block per source (sources in a shuffled order), its distances its row of
    dist.  A phase takes the queue's entries first in, first out, a warp's claim of a few at a time in a
    shuffled order; it skips an entry whose vertex was lowered since, relaxes the others' out-arcs and
    enqueues each head whose d, as read, its candidate lowers (below the bound into the queue, else
    into the far list; past a list's cap into the spill set): a read may see a d of earlier in the
    phase.  Between phases the spill set is enqueued again from its d; when that
    queues nothing the bound moves one bucket past the smallest waiting d and the far list is split."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, src, k, n, _G, width, cap, fcap, dist, spill, far, rounds = a
        k, n, width, cap, fcap = int(k), int(n), float(width), int(cap), int(fcap)
        assert shared_mem == sssp_rows.rows_bytes(cap) <= self.max_dynamic_shared_size_bytes
        assert spill.shape == (k, -(-n // 32)) and not spill.any()
        assert far.shape == (k, 3 * fcap) and far.dtype == np.float64  # a block's two far lists
        out = dist.reshape(-1)
        assert np.shares_memory(out, dist)
        for s in _order(k):
            d = [math.inf] * n
            s0 = int(src[s])
            d[s0] = 0.0
            st = {"queue": [(s0, 0.0)], "far": [], "bound": width}
            spilled = set()

            def enqueue(w, x):
                lst, most = (st["queue"], cap) if x < st["bound"] else (st["far"], fcap)
                if len(lst) < most:
                    lst.append((w, x))
                else:
                    spilled.add(w)

            r = 0
            began = list(d)  # d as the phase began
            while True:
                r += 1
                head = 0
                while head < len(st["queue"]):  # the phase (the queue grows as it goes)
                    claim = min(len(st["queue"]) - head, 4)
                    for i in _order(claim):
                        u, x = st["queue"][head + i]
                        if d[u] < x:
                            continue  # lowered since: a later entry carries it
                        for p in range(int(ocp[u]), int(ocp[u + 1])):
                            w = int(ori[p])
                            cand = x + _length(self.unit, olen, p)
                            # the kernel's read of d(w) may come before lowerings still in flight:
                            # any value d(w) held since the phase began
                            seen = d[w] if _ORDER.random() < 0.5 else began[w]
                            if w != u and cand < seen:
                                d[w] = min(d[w], cand)
                                enqueue(w, cand)
                    head += claim
                st["queue"] = []
                began = list(d)
                if spilled:
                    swept = sorted(spilled)
                    spilled.clear()
                    for w in swept:
                        enqueue(w, d[w])
                    if st["queue"]:
                        continue
                if not st["far"] and not spilled:
                    break
                f = min([x for _, x in st["far"]] + [d[w] for w in spilled])
                st["bound"] = max(max(st["bound"], f) + width, float(np.nextafter(f, math.inf)))
                waiting, st["far"] = st["far"], []
                for u, x in waiting:
                    enqueue(u, x)
            out[s * n:(s + 1) * n] = d
            if not isinstance(rounds, np.uint64):
                rounds[s] = r


class _RowsDeps(_Small):
    """spla_sssp_rows_deps: per source (shuffled), from its row of dist (no tight arc joins equal
    distances), the DAG in-arc counts; Kahn's sweep, the queue first in, first out in shuffled claims of
    a few, σ(w) += σ(u) over each DAG arc and w queued when its count empties; each vertex's count then
    its DAG out-degree; the sinks queued, δ pulled over the out-arcs in their order and each DAG
    predecessor queued when its count empties; failed[s] = 1 where σ passes 2^512."""

    def __call__(self, _grid, _block, a, shared_mem=0):
        ocp, ori, olen, icp, iri, ilen, src, k, n, _G, dist, sigma, delta, cnt, queue, failed = a
        k, n = int(k), int(n)
        assert shared_mem == 0 and dist.shape == sigma.shape == delta.shape == cnt.shape == queue.shape == (k, n)
        for s in _order(k):
            d, s0 = dist[s].tolist(), int(src[s])

            def tight_out(u):
                for p in range(int(ocp[u]), int(ocp[u + 1])):
                    w = int(ori[p])
                    if w != u and d[u] + _length(self.unit, olen, p) == d[w]:
                        assert d[w] > d[u]  # the host's guarantee: no tight arc joins equal distances
                        yield w

            def tight_in(w):
                for p in range(int(icp[w]), int(icp[w + 1])):
                    u = int(iri[p])
                    if u != w and d[u] + _length(self.unit, ilen, p) == d[w]:
                        yield u

            def sweep(first, visit):
                q, head = list(first), 0
                while head < len(q):
                    claim = min(len(q) - head, 4)
                    for i in _order(claim):
                        q.extend(visit(q[head + i]))
                    head += claim

            c = [len(list(tight_in(v))) if d[v] != math.inf else 0 for v in range(n)]
            sg = [0.0] * n
            sg[s0] = 1.0
            dl = [0.0] * n

            def forward(u):
                if not sg[u] <= 2.0 ** 512:
                    failed[s] = 1
                out = list(tight_out(u))
                for w in out:
                    sg[w] += sg[u]
                    c[w] -= 1
                    if c[w] == 0:
                        yield w
                c[u] = len(out)

            def back(w):
                dl[w] = sg[w] * sum((1.0 + dl[x]) / sg[x] for x in tight_out(w))
                for u in tight_in(w):
                    c[u] -= 1
                    if c[u] == 0:
                        yield u

            sweep([s0], forward)
            sweep([v for v in range(n) if d[v] != math.inf and c[v] == 0], back)
            sigma[s], delta[s] = sg, dl


EMULATED = {"relax": _relax, "hops": _hops, "dag_count": _dag_count, "sigma": _sigma, "delta": _delta,
            "arc_sums": _arc_sums, "small": _Small, "small_sums": _SmallSums, "small_deps": _SmallDeps, "rows": _Rows,
            "rows_deps": _RowsDeps}


class _FakeDevice:
    id = 0
    attributes = {"MaxSharedMemoryPerBlockOptin": 227 * 1024}  # an H100's

    def __init__(self, *_):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _FakeCupy:
    """NumPy under CuPy's name (what spla.backends.gpu.sssp uses of it)."""

    cuda = types.SimpleNamespace(Device=_FakeDevice)

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asnumpy(x):
        return np.asarray(x)

    def __repr__(self):
        return "<NumPy as CuPy>"


@pytest.fixture
def emulated(monkeypatch):
    """spla.backends.gpu.sssp running the Python kernels on NumPy arrays of a CPU matrix."""
    fake = _FakeCupy()
    monkeypatch.setattr(sssp, "load_cupy", lambda: fake)
    monkeypatch.setattr(sssp, "_module", lambda _q, _i, unit, _d: {key: make(unit) for key, make in EMULATED.items()})
    monkeypatch.setattr(sssp, "resident_blocks", lambda _d: 4)
    most = _FakeDevice.attributes["MaxSharedMemoryPerBlockOptin"]
    for module in (sssp_small, sssp_rows):
        monkeypatch.setattr(module, "shared_per_block", lambda _d: most)
    monkeypatch.setattr(sssp._memory, "available_bytes", lambda _d: 1 << 30)
    return fake


#: the paths of the searches: every phase over entry lists; the distances on the row path (a thread
#: block per source, distances in global memory) and the rest over entry lists; the defaults (a thread
#: block per source, the whole search in shared memory, on these small graphs)
LISTS = dict(sssp_small_bytes=0, sssp_rows=False)
PATHS = [LISTS, dict(sssp_small_bytes=0, sssp_rows=True), {}]
PATH_IDS = ["lists", "rows", "small"]


@settings(max_examples=40)
@given(weighted_graphs(), st.integers(0, 2 ** 32 - 1), st.sampled_from([None, 0.5, 2.0]), st.sampled_from([1, 3, 64]),
       st.sampled_from([1, 2, 3, 8]), st.sampled_from(PATHS))
def test_emulated_kernels_match_the_definition(emulated, g, seed, delta, batch, per_read, path):
    n, arcs, directed, pattern = g
    A = build(n, arcs, directed, pattern=pattern)
    src = _sources(n, random.Random(seed))
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, sssp_max_batch=batch,
                              sssp_rounds_per_read=per_read, **path):
        _check_all(A, src, np.asarray)


@pytest.mark.parametrize("path", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("delta", [None, 1.0])
def test_emulated_long_chain_and_grid(emulated, delta, path):
    # a path of 60 vertices (depth 59) and an 8 x 8 grid of integer lengths (many equal-length paths)
    chain = {(i, i + 1): 1.0 + (i % 3) for i in range(59)}
    grid = {}
    for r in range(8):
        for c in range(8):
            v = 8 * r + c
            if c < 7:
                grid[(v, v + 1)] = grid[(v + 1, v)] = 1.0 + (v % 2)
            if r < 7:
                grid[(v, v + 8)] = grid[(v + 8, v)] = 1.0
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, **path):
        for n, arcs in ((60, chain), (64, grid)):
            A = build(n, arcs, directed=False)
            _check_all(A, np.array([0, n - 1, n // 2], dtype=np.int64), np.asarray)


@pytest.mark.parametrize("batch", [2, 4096])
def test_emulated_every_vertex_in_order_sums_each_once(emulated, batch):
    """Every vertex a source, in order (closeness): the small path's per-source sums are the totals;
    sources past sssp_max_batch run in blocks."""
    n, arcs = diamonds(4, side=3)
    A = build(n, arcs)
    src = np.arange(n, dtype=np.int64)
    with spla.tuning.override(sssp_max_batch=batch):
        got = sssp.distance_sums(A, src, outgoing=True)
    want = ref_distance_sums(A, src, True)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=0)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12, atol=0)


@pytest.mark.parametrize("path", PATHS, ids=PATH_IDS)
def test_emulated_buckets_below_the_rounding_step_still_advance(emulated, path):
    # Δ = 1e-30 mean lengths is below half an ulp of the distances: each bucket moves to the next float
    A = build(4, {(0, 1): 1e20, (1, 2): 1e-10, (2, 3): 1e20, (0, 3): 3e20})
    with spla.tuning.override(sssp_delta=1e-30, sssp_rows_delta=1e-30, **path):
        _check_all(A, np.array([0, 2], dtype=np.int64), np.asarray)


def test_emulated_zero_length_cycle_and_self_loops(emulated):
    A = build(5, {(0, 1): 1.0, (1, 2): 0.0, (2, 1): 0.0, (2, 3): 1.0, (3, 3): 0.0, (1, 1): 2.0, (0, 4): 2.0,
                  (4, 3): 0.0})
    _check_all(A, np.array([0, 1, 2, 4], dtype=np.int64), np.asarray)


def diamonds(count, side=0):
    """A chain of ``count`` diamonds from vertex 0 (2^count shortest paths to its end, vertex 3·count),
    and a path of ``side`` arcs from 0 beside it (one shortest path to each of its vertices)."""
    arcs = {}
    for i in range(count):
        a, b, c, e = 3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3
        arcs.update({(a, b): 1.0, (a, c): 1.0, (b, e): 1.0, (c, e): 1.0})
    n = 3 * count + 1
    for j in range(side):
        arcs[(0 if j == 0 else n + j - 1, n + j)] = 1.0
    return n + side, arcs


def test_emulated_sigma_past_float64_is_rescaled(emulated):
    n, arcs = diamonds(1100)
    A = build(n, arcs)
    src = np.array([0, 1], dtype=np.int64)
    for edges in (False, True):
        got = sssp.dependencies(A, src, edges=edges, endpoints=False)
        np.testing.assert_allclose(got, ref_dependencies(A, src, edges), rtol=RTOL, atol=1e-12)
    with np.errstate(over="ignore"):
        _dist, sigma = sssp.shortest_paths(A, src, counts=True)
    assert sigma[0, -1] == sigma[1, -1] == np.inf and sigma[0, 3 * 500] == 2.0 ** 500
    assert sigma[1, 3 * 1000] == 2.0 ** 999
    with spla.tuning.override(sssp_rounds_per_read=1):
        np.testing.assert_allclose(sssp.dependencies(A, src, edges=False, endpoints=False), ref_dependencies(A, src),
                                   rtol=RTOL)


def test_emulated_counts_spanning_more_than_float64_are_refused(emulated):
    # beside the diamonds, a path whose single shortest paths are open while the diamonds' counts are
    # rescaled past 2^-1074
    n, arcs = diamonds(1100, side=2300)
    A = build(n, arcs)
    with pytest.raises(spla.KernelUnavailable, match="device='cpu'"):
        sssp.dependencies(A, np.array([0]), edges=False, endpoints=False)


def test_emulated_empty_inputs(emulated):
    A = build(3, {(0, 1): 1.0})
    empty = np.zeros(0, dtype=np.int64)
    assert sssp.dependencies(A, empty, edges=True, endpoints=False).shape == (1,)
    assert [x.shape for x in sssp.distance_sums(A, empty, outgoing=False)] == [(3,)] * 3
    dist, sigma = sssp.shortest_paths(A, empty, counts=True)
    assert dist.shape == sigma.shape == (0, 3)
    Z = build(0, {})
    assert sssp.dependencies(Z, empty, edges=False, endpoints=False).shape == (0,)


def test_bucket_width_and_lanes():
    with spla.tuning.override(sssp_delta=None):
        assert sssp.bucket_width(3.0) == math.inf
    with spla.tuning.override(sssp_delta=2.0, sssp_rows_delta=None):
        assert sssp.bucket_width(3.0) == 6.0
        assert sssp.bucket_width(0.0) == math.inf
        assert sssp.bucket_width(3.0, rows=True) == math.inf
    with spla.tuning.override(sssp_rows_delta=0.5):
        assert sssp.bucket_width(3.0, rows=True) == 1.5
    assert [sssp.group_lanes(k) for k in (1, 2, 3, 17, 32, 1000)] == [1, 2, 4, 32, 32, 32]
    # lanes per listed entry from the out-degrees' 99th percentile: roads 1, celegansneural 8, hubs 32
    assert [sssp.entry_lanes(d) for d in (0, 4, 7.9, 34, 659)] == [1, 1, 1, 8, 32]
    with spla.tuning.override(frontier_group=4):
        assert sssp.entry_lanes(659) == 4
    names = sssp.sssp_name_expressions(np.int32, np.int64, False)
    assert names["relax"] == "spla_sssp_relax<int, long long, false>" and set(names) == set(sssp.KERNEL_KEYS)
    assert names["arc_sums"] == "spla_sssp_arc_sums<long long, false>"
    assert sssp.flat_dtype(2 ** 16, 2 ** 14) == np.int32 and sssp.flat_dtype(2 ** 16, 2 ** 15) == np.int64


# ---------------------------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------------------------
def _host(x):
    return spla.device.to_numpy(x)


@pytest.mark.gpu
@settings(max_examples=60)
@given(weighted_graphs(max_n=12), st.integers(0, 2 ** 32 - 1), st.sampled_from([None, 0.5, 4.0]),
       st.sampled_from([1, 5, 4096]), st.sampled_from(PATHS))
def test_gpu_matches_the_definition(g, seed, delta, batch, path):
    n, arcs, directed, pattern = g
    A = build(n, arcs, directed, device="gpu", pattern=pattern)
    src = _sources(n, random.Random(seed))
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, sssp_max_batch=batch, **path):
        _check_all(A, src, _host)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (3, 1600)])
def test_gpu_small_distances_equal_the_list_rounds(shape):
    """A thread block per source (spla_sssp_small) gives the list rounds' distances bit for bit, on
    road-like grids (deep, degree about 3) and on a graph with hubs (lanes per listed vertex > 1)."""
    n, arcs = _road_like(*shape, seed=7)
    rng = random.Random(3)
    for hub in (0, n // 2):
        for v in rng.sample(range(n), min(n - 1, 300)):
            if v != hub:
                arcs[(hub, v)] = arcs[(v, hub)] = round(rng.uniform(2.0, 9.0), 4)
    A = build(n, arcs, directed=False, device="gpu")
    assert sssp_small.runs_small(n, 0)
    src = np.arange(0, n, 7, dtype=np.int64)
    got = _host(sssp.shortest_paths(A, src, counts=False)[0])
    twice = np.r_[src, src[:3]]  # spla_sssp_small_sums, a source listed twice counting twice
    sums = [_host(x) for x in sssp.distance_sums(A, twice, outgoing=True)]
    with spla.tuning.override(**LISTS):
        assert not sssp_small.runs_small(n, 0)
        want = _host(sssp.shortest_paths(A, src, counts=False)[0])
        want_sums = [_host(x) for x in sssp.distance_sums(A, twice, outgoing=True)]
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    np.testing.assert_array_equal(sums[1], want_sums[1])
    for g, w in ((sums[0], want_sums[0]), (sums[2], want_sums[2])):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=0)  # the same terms, summed in another order


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (3, 1100)])
def test_gpu_small_dependencies_equal_the_list_rounds(shape):
    """A thread block per source running every phase (spla_sssp_small_deps) gives the list rounds'
    vertex, endpoint and arc sums, on road-like grids and with hubs."""
    n, arcs = _road_like(*shape, seed=11)
    rng = random.Random(5)
    for hub in (1, n // 3):
        for v in rng.sample(range(n), min(n - 1, 200)):
            if v != hub:
                arcs[(hub, v)] = arcs[(v, hub)] = float(rng.randint(2, 6))  # integer lengths: many ties
    A = build(n, arcs, directed=False, device="gpu")
    assert sssp_small.runs_small(n, 0, deps=True)
    src = np.arange(0, n, 5, dtype=np.int64)
    calls = [dict(edges=False, endpoints=False), dict(edges=True, endpoints=False), dict(edges=False, endpoints=True)]
    got = [_host(sssp.dependencies(A, src, **kw)) for kw in calls]
    with spla.tuning.override(**LISTS):
        want = [_host(sssp.dependencies(A, src, **kw)) for kw in calls]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_ties_possible_only_where_a_length_is_zero_or_absorbed():
    assert sssp_small.ties_possible(0.0, 1.0) and sssp_small.ties_possible(0.0, 0.0)
    assert not sssp_small.ties_possible(1.0, 1e6) and not sssp_small.ties_possible(math.inf, 5.0)
    assert sssp_small.ties_possible(1e-10, 1e7)  # spacing(1e7) / 2 > 1e-10: fl(1e7 + 1e-10) == 1e7
    assert sssp_small.ties_possible(1.0, 2.0 ** 53) and not sssp_small.ties_possible(1.0, 2.0 ** 52)
    assert not sssp_small.ties_possible(5e-324, 0.0)  # fl(0 + w) = w > 0


@pytest.mark.parametrize("path", PATHS, ids=PATH_IDS)
def test_emulated_absorbed_lengths_keep_h(emulated, path):
    """Positive lengths that rounding absorbs (1e-12 after 1e6) make tight arcs between equal distances:
    h still orders them, and the sums are the definition's."""
    arcs = {(0, 1): 1e6, (1, 2): 1e-12, (2, 3): 1e-12, (1, 3): 1.0, (3, 4): 2.0, (2, 4): 2.0, (0, 5): 3e6,
            (5, 4): 1e-12}
    A = build(6, arcs, directed=True)
    assert sssp_small.ties_possible(1e-12, 3e6)
    with spla.tuning.override(**path):
        _check_all(A, np.arange(6, dtype=np.int64), np.asarray)


def test_small_distances_run_where_a_block_holds_the_search(emulated):
    """runs_small: 8 bytes and 2 bits a vertex (32 bytes for the dependencies) within both
    sssp_small_bytes and the device's shared memory per block; 0 turns it off."""
    assert sssp_small.small_bytes(1000) == 8 * 1000 + 2 * 4 * 32 and sssp_small.small_bytes(1) == 16
    limit = spla.tuning.DEFAULT.sssp_small_bytes
    most_n = max(n for n in range(limit // 8 + 1) if 8 * n + 8 * -(-n // 32) <= limit)
    assert sssp_small.runs_small(most_n, 0) and not sssp_small.runs_small(most_n + 1, 0)
    assert not sssp_small.runs_small(0, 0)
    with spla.tuning.override(sssp_small_bytes=0):
        assert not sssp_small.runs_small(1, 0)
    # the dependencies: d and σ, 16-bit counts, queue and levels' starts; an int h where ties are possible
    assert sssp_small.small_bytes(1000, deps=True, with_h=False) == 16_000 + 2_000 + 2_000 + 2_004
    assert sssp_small.small_bytes(1000, deps=True) == 22_004 + 4_000
    most_deps = max(n for n in range(limit // 22) if sssp_small.small_bytes(n, deps=True) <= limit)
    assert sssp_small.runs_small(most_deps, 0, deps=True) and not sssp_small.runs_small(most_deps + 1, 0, deps=True)
    with spla.tuning.override(sssp_small_bytes=1 << 30):  # the device's 227 KiB (less the static part) bound it then
        most = 227 * 1024 - sssp_small.SMALL_STATIC_BYTES
        most_n = max(n for n in range(most // 8 + 1) if 8 * n + 8 * -(-n // 32) <= most)
        assert sssp_small.runs_small(most_n, 0) and not sssp_small.runs_small(most_n + 1, 0)


@pytest.mark.gpu
@settings(max_examples=30)
@given(weighted_graphs(max_n=30))
def test_gpu_betweenness_equals_networkx_on_positive_lengths(g):
    n, arcs, directed, _pattern = g
    positive = {key: w for key, w in arcs.items() if w > 0}
    A = build(n, positive, directed, device="gpu")
    got = _host(sssp.dependencies(A, np.arange(n), edges=False, endpoints=False))
    want = nx.betweenness_centrality(_nx_graph(n, positive, directed), weight="weight", normalized=False)
    np.testing.assert_allclose(got * (1.0 if directed else 0.5), [want[v] for v in range(n)], rtol=RTOL, atol=1e-12)


def _road_like(rows, cols, seed):
    """A rows x cols grid with 4-decimal lengths and some diagonals missing (a road network's shape:
    degree about 3, depth rows + cols)."""
    rng = random.Random(seed)
    arcs = {}
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < rows and c + dc < cols and rng.random() < 0.9:
                    w = round(rng.uniform(0.1, 3.0), 4)
                    arcs[(v, v + dr * cols + dc)] = arcs[(v + dr * cols + dc, v)] = w
    return rows * cols, arcs


@pytest.mark.gpu
@pytest.mark.parametrize("path", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("delta", [None, 1.0, 8.0])
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (12, 12)])
def test_gpu_long_depth_against_scipy_and_the_definition(shape, delta, path):
    n, arcs = _road_like(*shape, seed=shape[0])
    A = build(n, arcs, directed=False, device="gpu")
    src = np.array(sorted({0, n - 1, n // 2, n // 3}), dtype=np.int64)
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, **path):
        dist = _host(sssp.shortest_paths(A, src, counts=False)[0])
        S = build(n, arcs, directed=False).to_scipy()
        from scipy.sparse.csgraph import dijkstra

        np.testing.assert_array_equal(dist, dijkstra(S, indices=src))
        if n <= 400:
            _check_all(A, src, _host)
        else:
            got = _host(sssp.dependencies(A, src, edges=False, endpoints=False))
            Acpu = build(n, arcs, directed=False)
            np.testing.assert_allclose(got, ref_dependencies(Acpu, src), rtol=RTOL, atol=1e-9)


@pytest.mark.gpu
def test_gpu_unit_lengths_on_a_lattice_equal_the_unweighted_betweenness():
    n, arcs = _road_like(20, 20, seed=1)
    A = build(n, {key: 1.0 for key in arcs}, directed=False, device="gpu", pattern=True)
    got = _host(sssp.dependencies(A, np.arange(n), edges=False, endpoints=False))
    G = nx.Graph(list(arcs))
    want = nx.betweenness_centrality(G, normalized=False)
    np.testing.assert_allclose(got * 0.5, [want[v] for v in range(n)], rtol=RTOL, atol=1e-9)


@pytest.mark.gpu
def test_gpu_sigma_past_float64_is_rescaled():
    n, arcs = diamonds(1100)
    A, Acpu = build(n, arcs, device="gpu"), build(n, arcs)
    src = np.array([0, 1], dtype=np.int64)
    for edges in (False, True):
        got = _host(sssp.dependencies(A, src, edges=edges, endpoints=False))
        np.testing.assert_allclose(got, ref_dependencies(Acpu, src, edges), rtol=RTOL, atol=1e-12)
    sigma = _host(sssp.shortest_paths(A, src, counts=True)[1])
    assert sigma[0, -1] == sigma[1, -1] == np.inf and sigma[0, 3 * 500] == 2.0 ** 500
    assert sigma[1, 3 * 1000] == 2.0 ** 999
    n, arcs = diamonds(1100, side=2300)
    with pytest.raises(spla.KernelUnavailable, match="device='cpu'"):
        sssp.dependencies(build(n, arcs, device="gpu"), np.array([0]), edges=False, endpoints=False)


@pytest.mark.gpu
def test_gpu_rome99_against_scipy_and_the_definition():
    from conftest import shared_graphs

    root = shared_graphs()
    if root is None or not (root / "weighted" / "rome99.gr.gz").is_file():
        pytest.skip("the shared weighted graphs are not here (SPLA_GRAPHS_DIR)")
    from scipy.sparse.csgraph import dijkstra

    from benchmarks.probes.probe_sssp import read_dimacs

    n, S = read_dimacs(root / "weighted" / "rome99.gr.gz")
    Acpu = spla.Matrix.from_scipy(S, directed=True, device="cpu")
    A = Acpu.to("gpu")
    src = np.random.default_rng(0).choice(n, size=24, replace=False)
    for delta in (None, 8.0):
        with spla.tuning.override(sssp_delta=delta):
            np.testing.assert_array_equal(_host(sssp.shortest_paths(A, src, counts=False)[0]), dijkstra(S, indices=src))
            got = _host(sssp.dependencies(A, src, edges=False, endpoints=False))
            np.testing.assert_allclose(got, ref_dependencies(Acpu, src), rtol=RTOL, atol=1e-9)
