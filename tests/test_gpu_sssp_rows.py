"""The row path of the GPU's weighted distances (spla_sssp_rows: a thread block per source, its
distances a row in global memory, its queue in shared memory) against the list rounds and SciPy's
Dijkstra, bit for bit, and the rule that picks it.

The emulated kernel (``_Rows`` of tests/sssp_emulation.py) runs in test_gpu_sssp's emulated tests,
on any machine; the tests here run the CUDA kernel (``gpu`` marker), except the rule's.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import spla
from spla.backends.gpu import sssp, sssp_rows, sssp_small
from sssp_emulation import EMULATED, LISTS, emulated  # noqa: F401 (a fixture)
from sssp_reference import (RTOL, build, csc_arcs, diamonds, host, ref_dependencies, reference, road_like,
                            weighted_graphs)

#: the row path even where the small path would take the graph
ROWS = dict(sssp_small_bytes=0, sssp_rows=True)


def _with_hubs(n, arcs, seed, hubs, lengths):
    """arcs plus both directions between each hub and up to 300 random vertices (lanes per vertex > 1)."""
    rng = random.Random(seed)
    for hub in hubs:
        for v in rng.sample(range(n), min(n - 1, 300)):
            if v != hub:
                arcs[(hub, v)] = arcs[(v, hub)] = lengths(rng)
    return arcs


@pytest.mark.gpu
@pytest.mark.parametrize("delta", [None, 0.25, 16.0])
@pytest.mark.parametrize("shape", [(1, 3000), (40, 50), (3, 1600)])
def test_gpu_rows_equal_the_list_rounds_and_scipy(shape, delta):
    """Road-like grids (deep, degree about 3) and the same with hubs, directed with unreached vertices;
    sources in a shuffled order, one listed twice."""
    n, arcs = road_like(*shape, seed=13)
    hubbed = _with_hubs(n, dict(arcs), 17, (0, n // 2), lambda rng: round(rng.uniform(2.0, 9.0), 4))
    rng = random.Random(4)
    directed = {key: w for key, w in arcs.items() if rng.random() < 0.7}
    src = np.array(rng.sample(range(n), 40) + [3], dtype=np.int64)
    src[-1] = src[0]
    for graph, is_directed in ((arcs, False), (hubbed, False), (directed, True)):
        A = build(n, graph, directed=is_directed, device="gpu")
        with spla.tuning.override(sssp_rows_delta=delta, **ROWS):
            assert sssp_rows.runs_rows(n, 0, 8) and not sssp_small.runs_small(n, 0)
            got = host(sssp.shortest_paths(A, src, counts=False)[0])
        with spla.tuning.override(sssp_delta=delta, **LISTS):
            want = host(sssp.shortest_paths(A, src, counts=False)[0])
        np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
        S = build(n, graph, directed=is_directed).to_scipy()
        np.testing.assert_array_equal(got, dijkstra(S, directed=True, indices=src))


@pytest.mark.gpu
@pytest.mark.parametrize("sources", [5, 700])
def test_gpu_rows_feed_the_dependencies_and_sums(sources):
    """Past the small path (n = 16,000 by default), the distances of the dependencies and of the sums
    come from the row path (transposed; the vertex sums' δ from spla_sssp_rows_deps: integer lengths,
    no tight arc joins equal distances): the list rounds' results; a block past sssp_max_batch."""
    n, arcs = road_like(80, 200, seed=21)
    arcs = _with_hubs(n, arcs, 23, (7,), lambda rng: float(rng.randint(2, 6)))  # integer lengths: ties
    A = build(n, arcs, directed=False, device="gpu")
    # the default rule takes it: one lane an entry (a hub of 300 arcs is past the 99th percentile)
    assert sssp._Block(sssp._arcs(A), np.arange(1), spla.backends.gpu.compile.load_cupy()).G == 1
    assert sssp_rows.runs_rows(n, 0, 1) and not sssp_small.runs_small(n, 0)
    src = np.random.default_rng(sources).choice(n, size=sources, replace=False).astype(np.int64)
    calls = [dict(edges=False, endpoints=False), dict(edges=True, endpoints=False), dict(edges=False, endpoints=True)]

    def run():
        with spla.tuning.override(sssp_max_batch=256):
            deps = [host(sssp.dependencies(A, src, **kw)) for kw in calls]
            sums = [[host(x) for x in sssp.distance_sums(A, src, outgoing=o)] for o in (False, True)]
            dist = host(sssp.shortest_paths(A, src, counts=False)[0])
        return deps, sums, dist

    got = run()
    with spla.tuning.override(**LISTS):
        want = run()
    for g, w in zip(got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    for gs, ws in zip(got[1], want[1]):
        np.testing.assert_array_equal(gs[1], ws[1])
        for g, w in ((gs[0], ws[0]), (gs[2], ws[2])):
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=0)
    np.testing.assert_array_equal(got[2].view(np.uint64), want[2].view(np.uint64))


@pytest.mark.gpu
def test_gpu_rows_on_zero_lengths_and_pattern_only():
    """Zero-length arcs (a bucket of equal distances) and a pattern-only matrix (every length 1)."""
    n, arcs = diamonds(6, side=4)
    arcs = {key: (0.0 if i % 3 == 0 else w) for i, (key, w) in enumerate(sorted(arcs.items()))}
    src = np.arange(n, dtype=np.int64)
    for pattern in (False, True):
        A = build(n, arcs, directed=True, device="gpu", pattern=pattern)
        with spla.tuning.override(**ROWS):
            got = host(sssp.shortest_paths(A, src, counts=False)[0])
        with spla.tuning.override(**LISTS):
            want = host(sssp.shortest_paths(A, src, counts=False)[0])
        np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_rows_run_where_the_queue_fits(monkeypatch):
    """runs_rows: the queue of ROWS_QUEUE entries (12 bytes an entry; the far lists are in global
    memory) within the device's shared memory per block, less the kernel's static part, whatever n;
    sssp_rows False turns it off, "auto" keeps it to one lane an entry."""
    assert sssp_rows.rows_bytes(1) == 12 and sssp_rows.rows_bytes(2048) == 12 * 2048
    assert sssp_rows.rows_bytes() == sssp_rows.rows_bytes(sssp_rows.ROWS_QUEUE)
    room = sssp_rows.rows_bytes() + sssp_rows.ROWS_STATIC_BYTES
    monkeypatch.setattr(sssp_rows, "shared_per_block", lambda _d: room)
    assert sssp_rows.runs_rows(1, 0, 1) and sssp_rows.runs_rows(2 ** 31 - 1, 0, 1)
    assert not sssp_rows.runs_rows(0, 0, 1) and not sssp_rows.runs_rows(2 ** 31, 0, 1)
    assert not sssp_rows.runs_rows(1000, 0, 2)
    with spla.tuning.override(sssp_rows=True):
        assert sssp_rows.runs_rows(1000, 0, 32)
    with spla.tuning.override(sssp_rows=False):
        assert not sssp_rows.runs_rows(1000, 0, 1)
    monkeypatch.setattr(sssp_rows, "shared_per_block", lambda _d: room - 1)
    assert not sssp_rows.runs_rows(1000, 0, 1)


def _row_path(A, src, delta, cap, fcap, cp):
    """The row path's (k, n) distances at bucket width ``delta`` mean lengths, queue ``cap`` and far lists
    ``fcap``, and the phases each source took."""
    S = sssp._arcs(A)
    B = sssp._Block(S, np.asarray(src, dtype=np.int64), cp)
    rounds = cp.zeros(len(src), dtype=np.int32)
    with spla.tuning.override(sssp_rows_delta=delta):
        width = sssp.bucket_width(S.mean_length, rows=True)
    return host(sssp_rows.row_distances(B, width, rounds=rounds, cap=cap, fcap=fcap)), host(rounds)


@settings(max_examples=30, deadline=None)
@given(weighted_graphs(), st.integers(0, 2 ** 32 - 1), st.sampled_from([None, 0.5, 2.0]),
       st.sampled_from([(1, 1), (2, 1), (3, 2), (2048, 1024)]))
def test_emulated_rows_spill_and_match_the_definition(emulated, g, seed, delta, caps):
    """Queues and far lists of one to three entries send most enqueues to the spill set, swept back
    between phases: the distances stay the definition's, bit for bit."""
    n, arcs, directed, pattern = g
    assume(n > 0)  # runs_rows' guarantee: the host never launches it on no vertex
    A = build(n, arcs, directed, pattern=pattern)
    src = random.Random(seed).sample(range(n), min(n, 5))
    got, rounds = _row_path(A, src, delta, *caps, emulated)
    for i, s in enumerate(src):
        np.testing.assert_array_equal(got[i], reference(n, csc_arcs(A), s)[0])  # the same sums, in path order
    assert (rounds >= 1).all()


@pytest.mark.gpu
@pytest.mark.parametrize("caps", [(1, 1), (8, 4), (64, 32)])
def test_gpu_rows_spill_and_equal_the_list_rounds(caps):
    """The CUDA kernel with a queue and far lists of a few entries: most enqueues spill to the bitmap,
    swept back between phases; the distances stay the list rounds' (bit for bit), and the bitmap is
    left zero."""
    import cupy as cp

    n, arcs = road_like(30, 40, seed=5)
    hubbed = _with_hubs(n, dict(arcs), 9, (3,), lambda rng: round(rng.uniform(2.0, 9.0), 4))
    src = np.random.default_rng(1).choice(n, size=50, replace=False)
    for graph in (arcs, hubbed):
        A = build(n, graph, directed=False, device="gpu")
        for delta in (None, 0.5, 2.0):
            got, _ = _row_path(A, src, delta, *caps, cp)
            with spla.tuning.override(sssp_delta=delta, **LISTS):
                want = host(sssp.shortest_paths(A, src, counts=False)[0])
            np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


@pytest.mark.gpu
@pytest.mark.parametrize("degree", [1, 40])
def test_gpu_rows_past_the_list_and_with_lanes(degree):
    """Phases of more than ROWS_QUEUE entries (a hub of 3,000 arcs; a random graph of out-degree 40,
    whose second bucket holds about 1,600) spill to the bitmap; out-degree 40 also gives several
    lanes a vertex (sssp_lanes_percentile's rule), in the distances and in the vertex sums."""
    n = 3001
    rng = np.random.default_rng(degree)
    arcs = {(0, v): float(rng.integers(1, 5)) for v in range(1, n)}  # the hub
    for u in range(1, n):
        for v in rng.choice(n, size=degree, replace=False).tolist():
            if v != u:
                arcs[(u, v)] = round(float(rng.uniform(0.5, 4.0)), 3)
    A = build(n, arcs, directed=True, device="gpu")
    if degree > 1:
        assert sssp._Block(sssp._arcs(A), np.arange(1), spla.backends.gpu.compile.load_cupy()).G > 1
    src = np.array([0, 1, 2, n - 1], dtype=np.int64)
    for delta in (None, 1.0):
        with spla.tuning.override(sssp_rows_delta=delta, **ROWS):
            got = host(sssp.shortest_paths(A, src, counts=False)[0])
        with spla.tuning.override(sssp_delta=delta, **LISTS):
            want = host(sssp.shortest_paths(A, src, counts=False)[0])
        np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    for endpoints, edges in ((True, False), (False, True)):  # σ and δ by spla_sssp_rows_deps, with its lanes
        got, want = _row_and_list_sums(A, src, endpoints, edges)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _row_and_list_sums(A, src, endpoints, edges=False):
    with spla.tuning.override(**ROWS):
        got = host(sssp.dependencies(A, src, edges=edges, endpoints=endpoints))
    with spla.tuning.override(**LISTS):
        want = host(sssp.dependencies(A, src, edges=edges, endpoints=endpoints))
    return got, want


def test_emulated_row_dependencies_equal_the_list_rounds(emulated, monkeypatch):
    """Vertex and arc sums on the row path (no tight arc joining equal distances: integer and decimal
    lengths) come from spla_sssp_rows_deps and equal the list rounds'; zero lengths (ties possible)
    and path counts past 2^512 (a chain of 1,100 diamonds) go to the list rounds, from the row path's
    distances (no relax round runs)."""
    calls = {"rows": 0, "rows_deps": 0, "relax": 0}

    class Counting:
        """A kernel that counts its launches, its attributes the kernel's."""

        def __init__(self, key, fn):
            object.__setattr__(self, "_key", key)
            object.__setattr__(self, "_fn", fn)

        def __call__(self, *a, **kw):
            calls[self._key] += 1
            return self._fn(*a, **kw)

        def __getattr__(self, name):
            return getattr(self._fn, name)

        def __setattr__(self, name, value):
            setattr(self._fn, name, value)

    def counting(key):
        make = EMULATED[key]
        return lambda unit: Counting(key, make(unit))

    for key in calls:
        monkeypatch.setitem(EMULATED, key, counting(key))
    n, arcs = road_like(12, 15, seed=3)
    graphs = [arcs, {key: float(max(1, round(w))) for key, w in arcs.items()}]
    src = np.array(random.Random(2).sample(range(n), 20), dtype=np.int64)
    kinds = ((False, False), (True, False), (False, True))  # (endpoints, edges)
    for graph in graphs:
        A = build(n, graph, directed=False)
        for endpoints, edges in kinds:
            got, want = _row_and_list_sums(A, src, endpoints, edges)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert calls["rows_deps"] == 6
    zero = build(n, {key: (0.0 if i % 5 == 0 else w) for i, (key, w) in enumerate(sorted(arcs.items()))})
    for edges in (False, True):
        with spla.tuning.override(**ROWS):
            before = dict(calls)
            got = host(sssp.dependencies(zero, src, edges=edges, endpoints=False))
        assert calls["rows"] == before["rows"] + 1 and calls["relax"] == before["relax"]
        with spla.tuning.override(**LISTS):
            want = host(sssp.dependencies(zero, src, edges=edges, endpoints=False))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert calls["rows_deps"] == 6  # ties possible: the list rounds, from the rows
    m, chain = diamonds(1100)
    D = build(m, chain)
    for edges in (False, True):
        with spla.tuning.override(**ROWS):
            before = dict(calls)
            got = host(sssp.dependencies(D, np.array([0, 1]), edges=edges, endpoints=False))
        np.testing.assert_allclose(got, ref_dependencies(D, np.array([0, 1]), edges), rtol=RTOL, atol=1e-12)
        assert calls["rows_deps"] == before["rows_deps"] + 1  # σ past 2^512: the list rounds, which rescale
        assert calls["rows"] == before["rows"] + 1 and calls["relax"] == before["relax"]


@pytest.mark.gpu
def test_gpu_row_dependencies_on_a_chain_past_two_to_the_512():
    """spla_sssp_rows_deps flags σ past 2^512 and the list rounds, which rescale, run the block: the
    vertex and arc sums of a chain of 1,100 diamonds (2^1100 shortest paths), the definition's."""
    n, arcs = diamonds(1100)
    A, Acpu = build(n, arcs, device="gpu"), build(n, arcs)
    src = np.array([0, 1, 5, 3 * 1099], dtype=np.int64)
    for edges in (False, True):
        with spla.tuning.override(**ROWS):
            got = host(sssp.dependencies(A, src, edges=edges, endpoints=False))
        np.testing.assert_allclose(got, ref_dependencies(Acpu, src, edges), rtol=RTOL, atol=1e-12)
    got, want = _row_and_list_sums(A, src, True)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-12)
