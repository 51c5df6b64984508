"""A graph on the second GPU ("gpu:1") while GPU 0 is current: the engine's products, the matrix's
lazy caches and every algorithm compute on GPU 1 and agree with the CPU.  Skipped with fewer than
two GPUs (run it on a two-GPU host with ``-m gpu``)."""

import networkx as nx
import numpy as np
import pytest

import algorithms
import spla
from spla import device as _dev
from spla.testing import KERNEL_NAMES, assert_equal


def _gpu_count():
    return _dev.cupy_module().cuda.runtime.getDeviceCount() if spla.gpu_available() else 0


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(_gpu_count() < 2, reason="needs two GPUs")]


@pytest.fixture
def gpu0_current():
    """GPU 0 is the current device during the test (and after it)."""
    cp = _dev.cupy_module()
    with cp.cuda.Device(0):
        yield cp


def _graph(directed):
    G = nx.gnp_random_graph(400, 0.02, seed=3, directed=directed)
    G.add_edge(5, 5)
    G.add_edges_from((0, v) for v in range(40, 240))  # a column of 200 entries
    return G


@pytest.mark.parametrize("directed", [False, True])
def test_products_and_caches_stay_on_gpu1(gpu0_current, directed):
    cp = gpu0_current
    A_cpu = spla.Matrix.from_networkx(_graph(directed), device="cpu")
    A = A_cpu.to("gpu:1")
    assert A.device == "gpu:1" and A.colptr.device.id == 1
    n = A.shape[0]
    rng = np.random.default_rng(0)
    u = rng.integers(0, 4, n).astype(np.float64)
    U = rng.integers(0, 4, (n, 4)).astype(np.float64)
    mask = rng.random(n) < 0.3
    with cp.cuda.Device(1):
        u1, U1, mask1 = cp.asarray(u), cp.asarray(U), cp.asarray(mask)
    assert cp.cuda.runtime.getDevice() == 0
    for kernel in KERNEL_NAMES:
        for call in (
            lambda M, x, m: spla.vxm(x, M, "plus_times", kernel=kernel),            # y = u +.* A
            lambda M, x, m: spla.mxv(M, x, "min_plus", mask=m, kernel=kernel),      # y<m> = A min.+ u
            lambda M, x, m: spla.vxm(x, M, "max_times", mask=m, complement=True,    # y<!m> = u max.* A
                                     kernel=kernel),
        ):
            want = call(A_cpu, u, mask)
            got = call(A, u1, mask1)
            assert got.device.id == 1 and cp.cuda.runtime.getDevice() == 0
            assert_equal(_dev.to_numpy(got), want, err_msg=f"kernel {kernel}")
        Y = spla.vxm(U1, A, "plus_times", kernel=kernel)                            # Y = U +.* A
        assert Y.device.id == 1
        assert_equal(_dev.to_numpy(Y), spla.vxm(U, A_cpu, "plus_times"), err_msg=f"block, kernel {kernel}")
    # the lazy caches were built on GPU 1, and asking for them from GPU 0 keeps them there
    for arr in (A.colidx, A.out_degree(), A.in_degree(), A.T.colptr):
        assert arr.device.id == 1
    assert cp.cuda.runtime.getDevice() == 0


@pytest.mark.parametrize("directed", [False, True])
def test_algorithms_on_gpu1(gpu0_current, directed):
    cp = gpu0_current
    G = _graph(directed)
    A_cpu = spla.Matrix.from_networkx(G, device="cpu")
    A = A_cpu.to("gpu:1")
    calls = {
        "bfs_levels": lambda M: algorithms.bfs_levels(M, 0),
        "betweenness, one source": lambda M: algorithms.betweenness_centrality(M, sources=[0]),
        "betweenness": lambda M: algorithms.betweenness_centrality(M),
        "edge betweenness": lambda M: algorithms.edge_betweenness_centrality(M),
        "closeness": lambda M: algorithms.closeness_centrality(M),
        "harmonic": lambda M: algorithms.harmonic_centrality(M),
        "sum of distances": lambda M: algorithms.sum_of_distances(M),
        "daccer": lambda M: algorithms.daccer_volumes(M, 2),
        "pagerank": lambda M: algorithms.pagerank(M),
        "degree": lambda M: algorithms.degree_centrality(M),
    }
    for name, call in calls.items():
        want = call(A_cpu)
        got = call(A)
        assert cp.cuda.runtime.getDevice() == 0, name
        assert_equal(got, want, err_msg=name, rtol=1e-9, atol=1e-12)
    # a networkx graph with device="gpu:1"
    got = algorithms.betweenness_centrality(G, device="gpu:1")
    assert_equal(got, algorithms.betweenness_centrality(G, device="cpu"), rtol=1e-9, atol=1e-12)


def test_fused_function_under_activate(gpu0_current):
    """A user's fused function on "gpu:1" arrays, wrapped in activate("gpu:1"), runs on GPU 1 and
    leaves GPU 0 current."""
    cp = gpu0_current
    step = spla.fuse(lambda xp: lambda s, f: (s + f, f != 0), name="test_multi_gpu_step")
    sigma = np.arange(10, dtype=np.float64)
    frontier = np.array([0, 1] * 5, dtype=np.float64)
    with cp.cuda.Device(1):
        sigma1, frontier1 = cp.asarray(sigma), cp.asarray(frontier)
    with _dev.activate("gpu:1"):
        got_sigma, got_new = step(sigma1, frontier1)
    assert got_sigma.device.id == 1 and got_new.device.id == 1
    assert cp.cuda.runtime.getDevice() == 0
    want_sigma, want_new = step(sigma, frontier)
    assert_equal(_dev.to_numpy(got_sigma), want_sigma)
    assert_equal(_dev.to_numpy(got_new), want_new)
