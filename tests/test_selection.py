"""Kernel selection: the scale-free metric against a brute-force sum, and choose_kernel's answers."""

import math
import types

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import semirings as sr
from spla import tuning
from spla.ops import _backend
from spla.testing import graphs, matrices, scaled


def brute_force_metric(A):
    """Σ over stored arcs (i, j) of deg(i)·deg(j) / nnz, deg = stored entries per row
    (for a rectangular matrix, deg(j) = stored entries of column j), by plain loops."""
    S = sp.coo_array(A.to_scipy())
    if S.nnz == 0:
        return 0.0
    rows, cols = S.row.tolist(), S.col.tolist()
    row_deg = [0] * A.shape[0]
    col_deg = [0] * A.shape[1]
    for i, j in zip(rows, cols):
        row_deg[i] += 1
        col_deg[j] += 1
    deg_j = row_deg if A.shape[0] == A.shape[1] else col_deg
    return sum(row_deg[i] * deg_j[j] for i, j in zip(rows, cols)) / S.nnz


def networkx_metric(G):
    """The same through networkx: the graph's stored arcs as a DiGraph (an undirected edge
    is two arcs, a self-loop one), out-degrees, Σ over arcs of deg(u)·deg(v) / arcs."""
    D = nx.DiGraph()
    D.add_nodes_from(G)
    D.add_edges_from(G.edges())
    if not G.is_directed():
        D.add_edges_from((v, u) for u, v in G.edges())
    if D.number_of_edges() == 0:
        return 0.0
    deg = dict(D.out_degree())
    return sum(deg[u] * deg[v] for u, v in D.edges()) / D.number_of_edges()


@settings(max_examples=scaled(80), deadline=None)
@given(G=graphs(max_nodes=14))
def test_metric_vs_networkx(G):
    A = spla.Matrix.from_networkx(G, device="cpu")
    assert spla.scale_free_metric(A) == pytest.approx(networkx_metric(G), rel=1e-12)


@settings(max_examples=scaled(80), deadline=None)
@given(A=matrices(max_rows=12))
def test_metric_vs_brute_force(A):
    assert spla.scale_free_metric(A) == pytest.approx(brute_force_metric(A), rel=1e-12)


def _metric_by_product(A):
    """The scale-free metric as one product gives it: Σ_j deg(j) Σ_{i -> j} outdeg(i), the inner sums as
    out_deg +.first A (veCSC), over nnz."""
    if A.nnz == 0:
        return 0.0
    with spla.device.activate(A.device):
        out_deg = A.out_degree().astype(np.float64)
        deg_j = out_deg if A.shape[0] == A.shape[1] else A.in_degree().astype(np.float64)
        row_deg_sum = spla.vxm(out_deg, A.pattern(), "plus_first", kernel="veCSC")
        return float((row_deg_sum * deg_j).sum()) / A.nnz


@settings(max_examples=scaled(80), deadline=None)
@given(A=matrices(max_rows=40, max_cols=40), seed=st.integers(0, 2**32 - 1))
def test_metric_equals_the_product_form_to_the_bit(device, A, seed):
    """The metric's array sums give exactly the value of the product form (every sum here is an exact
    integer), on random matrices and random graphs of a few thousand arcs, square and rectangular."""
    A = A.to(device)
    assert spla.scale_free_metric(A) == _metric_by_product(A)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    m = int(rng.integers(0, 4000))
    G = spla.Matrix.from_edges(rng.integers(0, n, m), rng.zipf(1.6, m) % n, n=n, directed=True, device=device)
    assert spla.scale_free_metric(G) == _metric_by_product(G)
    R = spla.Matrix.from_scipy(sp.random(n, 37, density=0.1, random_state=seed % 2**31), device=device)
    assert spla.scale_free_metric(R) == _metric_by_product(R)


@pytest.mark.parametrize("step", [1, 2, 3, 7, 1000])
def test_metric_column_sums_in_passes(device, step):
    """The column sums read across passes of any length: columns spanning passes, empty columns, a
    pass boundary on a column boundary."""
    from spla.backends.gpu.selection import _column_sums

    rng = np.random.default_rng(step)
    dense = rng.random((30, 25)) < 0.2
    dense[:, 3] = False  # an empty column
    dense[:, 7] = True  # a full one
    A = spla.Matrix.from_scipy(sp.csc_array(dense.astype(np.float64)), directed=True, device=device)
    weights = rng.integers(0, 100, A.shape[0]).astype(np.int64)
    want = (dense.astype(np.int64) * weights[:, None]).sum(axis=0)
    got = spla.device.to_numpy(_column_sums(A, spla.device.to_device(weights, device), step))
    assert got.dtype == np.int64 and got.tolist() == want.tolist()


def test_metric_known_values(device):
    cases = [
        (nx.cycle_graph(10), 4.0),                   # 2-regular: d^2
        (nx.complete_graph(12), 121.0),              # 11-regular
        (nx.star_graph(20), 20.0),                   # every arc joins the hub (20) and a leaf (1)
        (nx.empty_graph(5), 0.0),
        (nx.Graph(), 0.0),
    ]
    for G, want in cases:
        A = spla.Matrix.from_networkx(G, device=device)
        assert spla.scale_free_metric(A) == pytest.approx(want)
    # Li et al.'s s-metric (each undirected edge once) over the number of edges
    G = nx.barabasi_albert_graph(200, 3, seed=1)
    A = spla.Matrix.from_networkx(G, device=device)
    assert spla.scale_free_metric(A) == pytest.approx(nx.s_metric(G) / G.number_of_edges())


def test_metric_is_cached():
    A = spla.Matrix.from_networkx(nx.barabasi_albert_graph(50, 2, seed=0), device="cpu")
    v = spla.scale_free_metric(A)
    assert isinstance(v, float)
    assert spla.scale_free_metric(A) == v


def test_metric_same_on_every_device(device):
    G = nx.gnp_random_graph(60, 0.1, seed=2, directed=True)
    A = spla.Matrix.from_networkx(G, device="cpu")
    assert spla.scale_free_metric(A.to(device)) == pytest.approx(spla.scale_free_metric(A), rel=1e-12)


SHAPES = {
    "path": lambda: nx.path_graph(50),
    "star": lambda: nx.star_graph(3000),
    "complete": lambda: nx.complete_graph(60),
    "barabasi_albert": lambda: nx.barabasi_albert_graph(500, 4, seed=3),
    "grid": lambda: nx.grid_2d_graph(20, 20),
    "directed_hub": lambda: nx.DiGraph([(i, 0) for i in range(1, 2000)] + [(i, i + 1) for i in range(1, 1999)]),
    "empty": lambda: nx.empty_graph(10),
    "no_nodes": lambda: nx.Graph(),
    "one_loop": lambda: nx.Graph([(0, 0)]),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("k", [1, 4, 32])
def test_choose_kernel(shape, k, device):
    A = spla.Matrix.from_networkx(SHAPES[shape](), device=device)
    for semiring in (None, "plus_times", "min_plus", "bor_first"):
        dtype = np.uint64 if semiring == "bor_first" else np.float32
        name, reason = spla.choose_kernel(A, k=k, semiring=semiring, dtype=dtype)
        assert name in spla.KERNELS
        assert isinstance(reason, str) and reason.strip() and "\n" not in reason
        if semiring is not None:
            assert _backend(device).supports(name, sr.get(semiring), np.dtype(dtype))[0]
        for M in (A.T,):
            assert spla.choose_kernel(M, k=k)[0] in spla.KERNELS


def test_choose_kernel_rectangular():
    A = spla.Matrix.from_scipy(sp.random(300, 7, density=0.3, random_state=0), device="cpu")
    for M in (A, A.T):
        name, reason = spla.choose_kernel(M)
        assert name in spla.KERNELS and reason


def test_choose_kernel_reason_mentions_the_metric():
    A = spla.Matrix.from_networkx(nx.path_graph(20), device="cpu")
    _, reason = spla.choose_kernel(A)
    assert "metric" in reason


def test_choose_kernel_mask_hints():
    """One vector with a mask: scCSC's warp tiles for masked="sparse" on hub graphs whatever their size
    and on other graphs of long columns that are not small, and for a mask of unknown density
    (masked=True) on hub graphs of at least unknown_tiles_waves waves of arcs; masked="dense", blocks
    and graphs of short columns keep the unmasked choice."""
    from spla.backends.gpu import launch

    assert tuning.current().unknown_tiles_waves * launch.resident_threads("cpu") == 10_485_760
    hub = spla.Matrix.from_networkx(SHAPES["star"](), device="cpu")  # small: below cooc_small_waves waves
    assert spla.choose_kernel(hub)[0] == "scCOOC"
    assert spla.choose_kernel(hub, masked=True) == spla.choose_kernel(hub, masked="dense") == spla.choose_kernel(hub)
    name, reason = spla.choose_kernel(hub, masked="sparse")
    assert name == "scCSC" and "sparse mask" in reason
    for masked in (True, "dense", "sparse"):
        assert spla.choose_kernel(hub, k=32, masked=masked) == spla.choose_kernel(hub, k=32)
        assert spla.choose_kernel(hub, k=4, masked=masked) == spla.choose_kernel(hub, k=4)
    grid = spla.Matrix.from_networkx(SHAPES["grid"](), device="cpu")
    for masked in (True, "dense", "sparse"):
        assert spla.choose_kernel(grid, masked=masked) == spla.choose_kernel(grid)
    dense = spla.Matrix.from_networkx(nx.complete_graph(40), device="cpu")
    assert spla.choose_kernel(dense)[0] == "scCOOC"  # a small graph (test_choose_kernel_small_graphs)
    for masked in (True, "dense", "sparse"):
        assert spla.choose_kernel(dense, masked=masked) == spla.choose_kernel(dense)
    # every graph counts as large: a hub graph's unknown mask gets the tiles, a Mycielski-like one's not
    with tuning.override(cooc_small_waves=0, unknown_tiles_waves=0):
        for shape, unmasked, unknown in (("star", "scCOOC", "scCSC"), ("complete", "veCSC", "veCSC")):
            A = spla.Matrix.from_networkx(SHAPES[shape](), device="cpu")
            assert spla.choose_kernel(A)[0] == spla.choose_kernel(A, masked="dense")[0] == unmasked
            name, reason = spla.choose_kernel(A, masked=True)
            assert name == unknown, reason
            assert name == unmasked or ("unknown density" in reason and "waves" in reason), reason
            name, reason = spla.choose_kernel(A, masked="sparse")
            assert name == "scCSC" and "sparse mask" in reason, reason
            assert spla.choose_kernel(A, k=4, masked=True) == spla.choose_kernel(A, k=4)
        grid = spla.Matrix.from_networkx(SHAPES["grid"](), device="cpu")
        for masked in (True, "dense", "sparse"):
            assert spla.choose_kernel(grid, masked=masked) == spla.choose_kernel(grid)
        # a choice cached on a matrix under one setting is not reused under another
        assert spla.choose_kernel(hub, masked=True)[0] == "scCSC"
    assert spla.choose_kernel(hub, masked=True)[0] == "scCOOC"
    # the bound itself: a hub graph just below unknown_tiles_waves waves keeps scCOOC
    star = spla.Matrix.from_networkx(SHAPES["star"](), device="cpu")
    with tuning.override(unknown_tiles_waves=(hub.nnz + 1) / launch.resident_threads("cpu")):
        assert spla.choose_kernel(star, masked=True)[0] == "scCOOC"
    with tuning.override(unknown_tiles_waves=hub.nnz / launch.resident_threads("cpu")):
        assert spla.choose_kernel(star, masked=True)[0] == "scCSC"
    with pytest.raises(ValueError, match="masked must be False, True, 'dense' or 'sparse', got 'Dense'"):
        spla.choose_kernel(hub, masked="Dense")


def test_choose_kernel_blocks_by_row_bytes():
    """Blocks of 8+ vectors whose rows are whole 16-byte pieces of at most 512 bytes go to veCSC
    (16-byte row gathers); other blocks (wide float64 ones of all-sources betweenness) to scCSC."""
    grid = spla.Matrix.from_networkx(SHAPES["grid"](), device="cpu")
    for k, dtype, want in ((32, np.float32, "veCSC"), (8, np.float64, "veCSC"), (16, np.bool_, "veCSC"),
                           (128, np.float32, "veCSC"), (64, np.float64, "veCSC"), (512, np.float64, "scCSC"),
                           (33, np.float32, "scCSC"), (9, np.float64, "scCSC"), (8, np.bool_, "scCSC"),
                           (4, np.float32, spla.choose_kernel(grid)[0])):
        name, reason = spla.choose_kernel(grid, k=k, dtype=dtype)
        assert name == want, (k, dtype, reason)
        assert f"k={k}" in reason or k < 8


def test_choose_kernel_direction():
    """With the work of both directions known: push when its modelled cost (push_cost per arc plus
    push_fixed_arcs) is below the pull's (its arcs; every arc for scCOOC), else the pull kernel
    (masked="sparse" when the computed outputs hold few arcs); blocks never push."""
    hub = spla.Matrix.from_networkx(SHAPES["star"](), device="cpu")
    m = hub.nnz
    # a small graph: push's fixed cost exceeds any pull
    assert not spla.may_push(hub)
    assert spla.choose_kernel(hub, masked=True, push_arcs=0, pull_arcs=m)[0] != "push"
    with tuning.override(push_fixed_arcs=0.0):
        assert spla.may_push(hub)
        name, reason = spla.choose_kernel(hub, masked=True, push_arcs=3, pull_arcs=m)
        assert name == "push" and reason.startswith("push:")
        assert spla.direction_cost(hub, "push", 3, m) == 6.0
        assert spla.direction_cost(hub, "scCOOC", 3, 5) == m and spla.direction_cost(hub, "veCSC", 3, 5) == 5
        # the dense pull on a hub graph is scCOOC, which reads every arc: push wins below m / push_cost
        assert spla.choose_kernel(hub, masked=True, push_arcs=m // 2 - 1, pull_arcs=m)[0] == "push"
        name, reason = spla.choose_kernel(hub, masked=True, push_arcs=m, pull_arcs=m)
        assert name == spla.choose_kernel(hub, masked=True)[0] == "scCOOC" and reason.startswith("pull")
        assert spla.choose_kernel(hub, masked=True, push_arcs=m, pull_arcs=1)[0] == \
            spla.choose_kernel(hub, masked="sparse")[0] == "scCSC"  # few arcs into the computed outputs
        # masked="sparse" up to sparse_pull (half) of the arcs into the computed outputs, "dense" above
        assert tuning.current().sparse_pull == 0.5
        assert spla.choose_kernel(hub, masked=True, push_arcs=m, pull_arcs=m * 0.5)[0] == "scCSC"
        assert spla.choose_kernel(hub, masked=True, push_arcs=m, pull_arcs=m * 0.5 + 1)[0] == "scCOOC"
        assert spla.choose_kernel(hub, k=32, push_arcs=0, pull_arcs=m)[0] == spla.choose_kernel(hub, k=32)[0]
        grid = spla.Matrix.from_networkx(SHAPES["grid"](), device="cpu")
        assert spla.choose_kernel(grid, masked=True, push_arcs=10, pull_arcs=15)[0] == "scCSC"
        assert spla.choose_kernel(grid, masked=True, push_arcs=10, pull_arcs=25)[0] == "push"


def _complete(n, device):
    """K_n as a matrix: n (n - 1) arcs, every column n - 1 long, scale-free metric (n - 1)^2."""
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    return spla.Matrix.from_edges(i, j, n=n, directed=True, device=device)


def test_choose_kernel_small_graphs():
    """One vector on a graph without hubs whose metric picks veCSC: scCOOC below cooc_small_waves waves
    of the device in stored arcs (a CPU matrix counts vecsc_fill_threads, 2^18: 1,048,576 arcs), veCSC
    from there on; blocks, hub graphs and short-column graphs are unaffected."""
    from spla.backends.gpu import launch

    assert tuning.current().cooc_small_waves * launch.resident_threads("cpu") == 1_048_576
    below, at = _complete(1024, "cpu"), _complete(1025, "cpu")  # 1,047,552 and 1,049,600 arcs
    name, reason = spla.choose_kernel(below)
    assert name == "scCOOC" and "1,047,552 arcs < 4 waves" in reason and "metric" in reason
    assert spla.choose_kernel(below, masked=True)[0] == spla.choose_kernel(below, masked="sparse")[0] == "scCOOC"
    assert spla.choose_kernel(below, k=4)[0] == "veCSC" and spla.choose_kernel(below, k=32)[0] == "veCSC"
    assert spla.choose_kernel(at)[0] == spla.choose_kernel(at, masked="dense")[0] == "veCSC"
    assert spla.choose_kernel(at, masked=True)[0] == "veCSC" and spla.choose_kernel(at, masked="sparse")[0] == "scCSC"
    assert spla.choose_kernel(below, masked="dense")[0] == "scCOOC"
    assert spla.choose_kernel(below, semiring="min_plus", dtype=np.int32)[0] == "scCOOC"
    for name in ("grid", "path"):
        small = spla.Matrix.from_networkx(SHAPES[name](), device="cpu")
        assert spla.choose_kernel(small)[0] == "scCSC"
    assert spla.choose_kernel(spla.Matrix.from_networkx(SHAPES["star"](), device="cpu"), masked="sparse")[0] == "scCSC"


@pytest.mark.gpu
def test_choose_kernel_small_graphs_count_this_device():
    """On a GPU the small-graph bound is cooc_small_waves x that device's resident threads (SMs x
    threads per SM): K_1030's 1,059,870 arcs are below it on an H100 or H200 (1,081,344) and above
    the CPU's 2^18 count, so the same graph is chosen differently on the two."""
    import cupy as cp

    from spla.backends.gpu import compile as gpu_compile
    from spla.backends.gpu import launch

    attrs = cp.cuda.Device(0).attributes
    block = gpu_compile.BLOCK
    threads = attrs["MultiProcessorCount"] * (attrs["MaxThreadsPerMultiProcessor"] // block) * block
    assert launch.resident_threads("gpu:0") == launch.resident_threads("gpu") == threads
    A = _complete(1030, "gpu:0")
    want = "scCOOC" if A.nnz < tuning.current().cooc_small_waves * threads else "veCSC"
    assert spla.choose_kernel(A)[0] == want
    assert spla.choose_kernel(A.to("cpu"))[0] == "veCSC"


@pytest.mark.parametrize("bad", [(-1, 5), (3, None), (None, 3), ("many", 2), (True, 2), (2, float("nan"))])
def test_choose_kernel_direction_rejects_bad_counts(bad):
    A = spla.Matrix.from_networkx(SHAPES["grid"](), device="cpu")
    with pytest.raises(ValueError, match=r"choose_kernel: (push|pull)_arcs must be a number of arcs >= 0"):
        spla.choose_kernel(A, push_arcs=bad[0], pull_arcs=bad[1])


def _shape_only(ncols, nnz):
    """What the group-size rules read of a matrix: its shape and stored entries."""
    return types.SimpleNamespace(shape=(max(ncols, 1), ncols), nnz=nnz)


def test_vecsc_group_size_known_values():
    """veCSC's lanes per column for one vector, at the shapes of the measurements that set the rule
    (docs/decisions/tuning.md): about vecsc_lane_entries entries per lane, more lanes where the columns
    are few."""
    from spla.backends.gpu import launch

    t = tuning.current()
    assert (t.vecsc_lane_entries, t.vecsc_fill_threads) == (32, 1 << 18)
    for ncols, nnz, want in ((2_000_000, 20_000_000, 2),  # Watts-Strogatz, mean 10
                             (500_000, 20_000_000, 2),  # mean 40: 2 lanes, not a warp
                             (250_000, 20_000_000, 2),  # mean 80 -> 2.5 entries per 32 -> 2
                             (125_000, 20_000_000, 4),  # mean 160 -> 5 -> 4
                             (62_500, 20_000_000, 8),  # mean 320 -> 10 -> 8
                             (98_303, 100_245_742, 32),  # myc17, mean 1020 -> 31.9 -> 32
                             (49_151, 33_382_480, 16),  # myc16, mean 679 -> 21.2 -> 16
                             (24_575, 11_111_110, 16),  # myc15, mean 452 -> 14.1 -> 16
                             (12_287, 3_695_512, 32),  # myc14: 8 by the mean, doubled to fill the device
                             (22_470, 341_825, 16),  # musae-facebook: 2 by the mean, doubled to 16
                             (4, 10, 32), (3, 0, 32), (0, 0, 32)):
        assert launch.vecsc_group_size(_shape_only(ncols, nnz)) == want, (ncols, nnz)
    A = _shape_only(4, 10)
    assert launch.vecsc_group_size(A, k=3) == 4 and launch.vecsc_group_size(A, k=100) == 32
    # the device's resident threads, where the backend names them: 1,000 columns of 40 entries fill
    # 4,000 threads with 4 lanes, and 2^18 only with 32
    assert launch.vecsc_group_size(_shape_only(1000, 40_000)) == 32
    assert launch.vecsc_group_size(_shape_only(1000, 40_000), fill_threads=4000) == 4
    assert launch.vecsc_group_size(_shape_only(1000, 40_000), fill_threads=1) == 2
    # push keeps its rule: the smallest power of two >= the mean, in [2, 32]
    assert launch.push_group_size(A) == 4 and launch.push_group_size(_shape_only(3, 0)) == 2
    assert launch.push_group_size(_shape_only(500_000, 20_000_000)) == 32


@given(st.integers(0, 3_000_000), st.floats(0, 5000), st.sampled_from([None, 1, 65_536, 221_184, 270_336]))
@settings(max_examples=300, deadline=None)
def test_vecsc_group_size_rule(ncols, mean, fill_threads):
    """The rule as stated: a power of two in [2, 32]; below 32 the columns fill ``fill_threads`` lanes
    (vecsc_fill_threads when None); it is the mean's choice (nearest power of two to
    mean / vecsc_lane_entries, clamped) unless that left the device short of lanes, in which case
    half of it would still."""
    from spla.backends.gpu import launch

    t = tuning.current()
    fill = t.vecsc_fill_threads if fill_threads is None else fill_threads
    nnz = int(round(ncols * mean))
    g = launch.vecsc_group_size(_shape_only(ncols, nnz), fill_threads=fill_threads)
    assert g in (2, 4, 8, 16, 32)
    assert g == 32 or ncols * g >= fill
    real_mean = nnz / ncols if ncols else 0.0
    by_mean = 2
    if real_mean > 0:
        by_mean = min(32, max(2, 2 ** round(math.log2(real_mean / t.vecsc_lane_entries))))
    assert g >= by_mean
    if g > by_mean:
        assert ncols * (g // 2) < fill


def test_choose_kernel_arguments(device):
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([1, 2]), device=device)
    name, why = spla.choose_kernel(A, semiring="lor_land")   # no dtype: the semiring's own (bool)
    assert name in spla.KERNELS and why
    with pytest.raises(spla.DomainMismatch, match=r"choose_kernel: semiring lor_land is not defined on dtype float32"):
        spla.choose_kernel(A, semiring="lor_land", dtype=np.float32)
    for bad in (-1, 1.5, None, True, "8"):
        with pytest.raises(ValueError, match=r"choose_kernel: k must be an integer >= 0"):
            spla.choose_kernel(A, k=bad)


@settings(max_examples=40, deadline=None)
@given(S=matrices(max_rows=30, max_cols=30))
def test_column_stats_are_the_column_lengths_max_and_mean(device, S):
    """The selection rule's column statistics: the longest column and the mean column length (computed as
    nnz / ncols, which must equal the mean of the lengths exactly)."""
    from spla.backends.gpu.selection import _column_stats

    A = S.to(device)
    lengths = np.diff(A.to_scipy().tocsc().indptr)
    want = (int(lengths.max()), float(lengths.mean())) if A.shape[1] else (0, 0.0)
    assert _column_stats(A) == want
