"""The definition the GPU's weighted searches are held to, in plain Python, and the graphs the tests
draw (tests/test_gpu_sssp.py, tests/test_gpu_sssp_rows.py).

Definition (docs of spla.backends.gpu.sssp), arc u -> v of length w = A[u, v] >= 0::

    d(s) = 0;  d(v) = min over arcs u -> v of fl(d(u) + w);   tight arc: u != v and fl(d(u) + w) == d(v)
    h(s) = 0;  h(v) = min over tight arcs of h(u) + 1;       DAG arc: tight, (d(u), h(u)) < (d(v), h(v))
    σ(s) = 1;  σ(v) = Σ_{DAG u -> v} σ(u);                   δ(v) = Σ_{DAG v -> w} σ(v)/σ(w) (1 + δ(w))

:func:`reference` computes it (Dijkstra with a heap, then the DAG in (d, h) order); it equals networkx
where no DAG arc joins equal distances, which tests/test_gpu_sssp.py checks.  :func:`check_all` holds
the three functions of spla.backends.gpu.sssp to it.
"""

from __future__ import annotations

import heapq
import math
import random

import networkx as nx
import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

import spla
from spla.backends.gpu import sssp

RTOL = 1e-9


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


def random_sources(n, rng):
    return np.array([rng.randrange(n) for _ in range(rng.randint(1, 2 * n))] if n else [], dtype=np.int64)


def check_all(A, src, host):
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


def nx_graph(n, arcs, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from((u, v, w) for (u, v), w in arcs.items())
    return G


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


def road_like(rows, cols, seed):
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


def host(x):
    return spla.device.to_numpy(x)
