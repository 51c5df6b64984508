"""spla.backends.gpu.sssp (weighted shortest paths on a GPU) against the definition in
tests/sssp_reference.py, which is checked against networkx first.

The same checks run twice:

* ``gpu`` marker: the CUDA kernels through CuPy (skipped without a GPU);
* emulated, on any machine: the kernels transcribed to Python (tests/sssp_emulation.py, the
  ``emulated`` fixture) under the host side of spla.backends.gpu.sssp.
"""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla.backends.gpu import sssp, sssp_small
from sssp_emulation import LISTS, PATH_IDS, PATHS, emulated  # noqa: F401 (a fixture)
from sssp_reference import (RTOL, build, check_all, csc_arcs, diamonds, host, nx_graph, random_sources,
                            ref_dependencies, ref_distance_sums, reference, road_like, weighted_graphs)


@settings(max_examples=60)
@given(weighted_graphs())
def test_reference_is_networkx_without_equal_distance_dag_arcs(g):
    n, arcs, directed, _pattern = g
    positive = {key: w for key, w in arcs.items() if w > 0}
    A = build(n, positive, directed)
    G = nx_graph(n, positive, directed)
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


@settings(max_examples=40)
@given(weighted_graphs(), st.integers(0, 2 ** 32 - 1), st.sampled_from([None, 0.5, 2.0]), st.sampled_from([1, 3, 64]),
       st.sampled_from([1, 2, 3, 8]), st.sampled_from(PATHS))
def test_emulated_kernels_match_the_definition(emulated, g, seed, delta, batch, per_read, path):
    n, arcs, directed, pattern = g
    A = build(n, arcs, directed, pattern=pattern)
    src = random_sources(n, random.Random(seed))
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, sssp_max_batch=batch,
                              sssp_rounds_per_read=per_read, **path):
        check_all(A, src, np.asarray)


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
            check_all(A, np.array([0, n - 1, n // 2], dtype=np.int64), np.asarray)


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
        check_all(A, np.array([0, 2], dtype=np.int64), np.asarray)


def test_emulated_zero_length_cycle_and_self_loops(emulated):
    A = build(5, {(0, 1): 1.0, (1, 2): 0.0, (2, 1): 0.0, (2, 3): 1.0, (3, 3): 0.0, (1, 1): 2.0, (0, 4): 2.0,
                  (4, 3): 0.0})
    check_all(A, np.array([0, 1, 2, 4], dtype=np.int64), np.asarray)


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
@pytest.mark.gpu
@settings(max_examples=60)
@given(weighted_graphs(max_n=12), st.integers(0, 2 ** 32 - 1), st.sampled_from([None, 0.5, 4.0]),
       st.sampled_from([1, 5, 4096]), st.sampled_from(PATHS))
def test_gpu_matches_the_definition(g, seed, delta, batch, path):
    n, arcs, directed, pattern = g
    A = build(n, arcs, directed, device="gpu", pattern=pattern)
    src = random_sources(n, random.Random(seed))
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, sssp_max_batch=batch, **path):
        check_all(A, src, host)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (3, 1600)])
def test_gpu_small_distances_equal_the_list_rounds(shape):
    """A thread block per source (spla_sssp_small) gives the list rounds' distances bit for bit, on
    road-like grids (deep, degree about 3) and on a graph with hubs (lanes per listed vertex > 1)."""
    n, arcs = road_like(*shape, seed=7)
    rng = random.Random(3)
    for hub in (0, n // 2):
        for v in rng.sample(range(n), min(n - 1, 300)):
            if v != hub:
                arcs[(hub, v)] = arcs[(v, hub)] = round(rng.uniform(2.0, 9.0), 4)
    A = build(n, arcs, directed=False, device="gpu")
    assert sssp_small.runs_small(n, 0)
    src = np.arange(0, n, 7, dtype=np.int64)
    got = host(sssp.shortest_paths(A, src, counts=False)[0])
    twice = np.r_[src, src[:3]]  # spla_sssp_small_sums, a source listed twice counting twice
    sums = [host(x) for x in sssp.distance_sums(A, twice, outgoing=True)]
    with spla.tuning.override(**LISTS):
        assert not sssp_small.runs_small(n, 0)
        want = host(sssp.shortest_paths(A, src, counts=False)[0])
        want_sums = [host(x) for x in sssp.distance_sums(A, twice, outgoing=True)]
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    np.testing.assert_array_equal(sums[1], want_sums[1])
    for g, w in ((sums[0], want_sums[0]), (sums[2], want_sums[2])):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=0)  # the same terms, summed in another order


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (3, 1100)])
def test_gpu_small_dependencies_equal_the_list_rounds(shape):
    """A thread block per source running every phase (spla_sssp_small_deps) gives the list rounds'
    vertex, endpoint and arc sums, on road-like grids and with hubs."""
    n, arcs = road_like(*shape, seed=11)
    rng = random.Random(5)
    for hub in (1, n // 3):
        for v in rng.sample(range(n), min(n - 1, 200)):
            if v != hub:
                arcs[(hub, v)] = arcs[(v, hub)] = float(rng.randint(2, 6))  # integer lengths: many ties
    A = build(n, arcs, directed=False, device="gpu")
    assert sssp_small.runs_small(n, 0, deps=True)
    src = np.arange(0, n, 5, dtype=np.int64)
    calls = [dict(edges=False, endpoints=False), dict(edges=True, endpoints=False), dict(edges=False, endpoints=True)]
    got = [host(sssp.dependencies(A, src, **kw)) for kw in calls]
    with spla.tuning.override(**LISTS):
        want = [host(sssp.dependencies(A, src, **kw)) for kw in calls]
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
        check_all(A, np.arange(6, dtype=np.int64), np.asarray)


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
    got = host(sssp.dependencies(A, np.arange(n), edges=False, endpoints=False))
    want = nx.betweenness_centrality(nx_graph(n, positive, directed), weight="weight", normalized=False)
    np.testing.assert_allclose(got * (1.0 if directed else 0.5), [want[v] for v in range(n)], rtol=RTOL, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("path", PATHS, ids=PATH_IDS)
@pytest.mark.parametrize("delta", [None, 1.0, 8.0])
@pytest.mark.parametrize("shape", [(1, 2000), (40, 50), (12, 12)])
def test_gpu_long_depth_against_scipy_and_the_definition(shape, delta, path):
    n, arcs = road_like(*shape, seed=shape[0])
    A = build(n, arcs, directed=False, device="gpu")
    src = np.array(sorted({0, n - 1, n // 2, n // 3}), dtype=np.int64)
    with spla.tuning.override(sssp_delta=delta, sssp_rows_delta=delta, **path):
        dist = host(sssp.shortest_paths(A, src, counts=False)[0])
        S = build(n, arcs, directed=False).to_scipy()
        from scipy.sparse.csgraph import dijkstra

        np.testing.assert_array_equal(dist, dijkstra(S, indices=src))
        if n <= 400:
            check_all(A, src, host)
        else:
            got = host(sssp.dependencies(A, src, edges=False, endpoints=False))
            Acpu = build(n, arcs, directed=False)
            np.testing.assert_allclose(got, ref_dependencies(Acpu, src), rtol=RTOL, atol=1e-9)


@pytest.mark.gpu
def test_gpu_unit_lengths_on_a_lattice_equal_the_unweighted_betweenness():
    n, arcs = road_like(20, 20, seed=1)
    A = build(n, {key: 1.0 for key in arcs}, directed=False, device="gpu", pattern=True)
    got = host(sssp.dependencies(A, np.arange(n), edges=False, endpoints=False))
    G = nx.Graph(list(arcs))
    want = nx.betweenness_centrality(G, normalized=False)
    np.testing.assert_allclose(got * 0.5, [want[v] for v in range(n)], rtol=RTOL, atol=1e-9)


@pytest.mark.gpu
def test_gpu_sigma_past_float64_is_rescaled():
    n, arcs = diamonds(1100)
    A, Acpu = build(n, arcs, device="gpu"), build(n, arcs)
    src = np.array([0, 1], dtype=np.int64)
    for edges in (False, True):
        got = host(sssp.dependencies(A, src, edges=edges, endpoints=False))
        np.testing.assert_allclose(got, ref_dependencies(Acpu, src, edges), rtol=RTOL, atol=1e-12)
    sigma = host(sssp.shortest_paths(A, src, counts=True)[1])
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
            np.testing.assert_array_equal(host(sssp.shortest_paths(A, src, counts=False)[0]), dijkstra(S, indices=src))
            got = host(sssp.dependencies(A, src, edges=False, endpoints=False))
            np.testing.assert_allclose(got, ref_dependencies(Acpu, src), rtol=RTOL, atol=1e-9)
