"""A graph on the second GPU ("gpu:1") while GPU 0 is current: the engine's products, the matrix's
lazy caches and every algorithm compute on GPU 1 and agree with the CPU; so do the kernel choice, the
bit counts, recorded steps and host copies, the algorithms' helpers and the CLI's --device gpu:1.
Arrays of GPU 0 given with a matrix of GPU 1 are refused (DeviceMismatch), the current device is
restored after every call (an exception too), and GPU 0 and GPU 1 take turns in one process.  Skipped
with fewer than two GPUs (run it on a two-GPU host with ``-m gpu``).  tests/test_device_targets.py
checks on the CPU, with a fake CuPy, which GPU each of these calls makes current."""

import csv
import gc

import networkx as nx
import numpy as np
import pytest

from spla import algorithms
import spla
import spla.bits
import spla.frontier
from spla.algorithms import _common
from spla.algorithms.daccer import volumes_bits
from spla.algorithms.degree import degree_parts
from spla.algorithms.distances import distance_sums
from spla import cli
from spla import device as _dev
from spla.replay import recorded_bytes
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


def _current(cp):
    return cp.cuda.runtime.getDevice()


def test_moving_between_gpus(gpu0_current):
    """Matrix.to from GPU 0 to GPU 1 (a device-to-device copy made on GPU 1), from_edges straight onto GPU 1,
    the transpose built there, and to_device with "gpu" (GPU 0) and "gpu:1"."""
    cp = gpu0_current
    G = _graph(True)
    A0 = spla.Matrix.from_networkx(G, device="gpu:0")
    A1 = A0.to("gpu:1")
    assert A1.device == "gpu:1" and _current(cp) == 0
    for a0, a1 in ((A0.colptr, A1.colptr), (A0.rowidx, A1.rowidx)):
        assert a1.device.id == 1
        assert_equal(_dev.to_numpy(a1), _dev.to_numpy(a0))
    assert A1.T.colptr.device.id == 1 and A1.T.rowidx.device.id == 1
    assert_equal(A1.T.to_scipy().toarray(), A0.to_scipy().toarray().T)
    src, dst = np.array([0, 1, 2]), np.array([1, 2, 0])
    B = spla.Matrix.from_edges(src, dst, device="gpu:1")
    assert B.device == "gpu:1" and B.colptr.device.id == 1 and _current(cp) == 0
    x0 = cp.arange(5.0)
    x1 = _dev.to_device(x0, "gpu:1")
    assert x1.device.id == 1 and _dev.to_device(x1, "gpu").device.id == 0
    assert_equal(_dev.to_numpy(x1), np.arange(5.0))
    assert _current(cp) == 0


@pytest.mark.parametrize("directed", [False, True])
def test_kernel_choice_on_gpu1(gpu0_current, directed):
    """spla.scale_free_metric and spla.choose_kernel called on a fresh matrix of GPU 1 (nothing cached yet)
    while GPU 0 is current: the degrees' casts, the metric's sums and the column statistics run on GPU 1
    (not on GPU 0, where they would meet GPU 1's arrays)."""
    cp = gpu0_current
    A_cpu = spla.Matrix.from_networkx(_graph(directed), device="cpu")
    A0 = A_cpu.to("gpu:0")
    A1 = A_cpu.to("gpu:1")
    assert spla.scale_free_metric(A1) == pytest.approx(spla.scale_free_metric(A_cpu), rel=1e-12)
    assert _current(cp) == 0
    A1b = A_cpu.to("gpu:1")  # choose_kernel first, on an empty cache
    for k, masked in ((1, False), (1, True), (1, "sparse"), (32, False)):
        want = spla.choose_kernel(A0, k=k, masked=masked)[0]
        assert spla.choose_kernel(A1b, k=k, masked=masked)[0] == want
        assert spla.choose_kernel(A1, k=k, masked=masked)[0] == want
    assert _current(cp) == 0


def test_cli_on_gpu1(gpu0_current, tmp_path, capsys, monkeypatch):
    """``spla centrality --device gpu:1`` and ``spla info --device gpu:1`` (the report's kernel line calls
    spla.choose_kernel on the graph of GPU 1) run and agree with --device cpu; GPU 0 stays current."""
    cp = gpu0_current
    monkeypatch.setenv("SPLA_DEBUG", "1")  # a failure raises with its traceback
    G = _graph(False)
    path = tmp_path / "g.txt"
    path.write_text("".join(f"{a} {b}\n" for a, b in G.edges()))
    tables = {}
    for device in ("cpu", "gpu:1"):
        out = tmp_path / f"{device.replace(':', '_')}.csv"
        rc = cli.main(["centrality", str(path), "--undirected", "--device", device, "--out", str(out), "--quiet"])
        assert rc == 0 and _current(cp) == 0
        with open(out, newline="") as f:
            tables[device] = list(csv.DictReader(f))
    assert len(tables["cpu"]) == len(tables["gpu:1"]) > 0
    for row_cpu, row_gpu in zip(tables["cpu"], tables["gpu:1"]):
        assert row_cpu.keys() == row_gpu.keys() and row_cpu["vertex"] == row_gpu["vertex"]
        for key in row_cpu:
            if key != "vertex":
                assert float(row_gpu[key]) == pytest.approx(float(row_cpu[key]), rel=1e-9, abs=1e-12), key
    capsys.readouterr()
    assert cli.main(["info", str(path), "--undirected", "--device", "gpu:1"]) == 0
    assert "gpu:1" in capsys.readouterr().out and _current(cp) == 0


def test_bits_on_gpu1(gpu0_current):
    """spla.bits.popcount and weighted_rowsum of arrays of GPU 1 compute there and return arrays of GPU 1
    (popcount does not copy its input to the current GPU first)."""
    cp = gpu0_current
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2**64, size=(300, 3), dtype=np.uint64)
    small = rng.integers(-128, 128, size=50).astype(np.int8)
    w = rng.random(64 * 3)
    with cp.cuda.Device(1):
        X1, small1, w1 = cp.asarray(X), cp.asarray(small), cp.asarray(w)
    for got, want in ((spla.bits.popcount(X1), spla.bits.popcount(X)),
                      (spla.bits.popcount(small1), spla.bits.popcount(small)),
                      (spla.bits.weighted_rowsum(X1), spla.bits.weighted_rowsum(X)),
                      (spla.bits.weighted_rowsum(X1, w1), spla.bits.weighted_rowsum(X, w))):
        assert got.device.id == 1 and _current(cp) == 0
        assert_equal(_dev.to_numpy(got), want, rtol=1e-12)


def test_replay_and_host_copy_on_gpu1(gpu0_current):
    """A Replay of a step on GPU 1, called while GPU 0 is current, records and launches its graph there;
    recorded_bytes counts its private pool whichever GPU is current; HostCopy reads an array of GPU 1 after
    the work queued there (a copy on GPU 0's stream would race GPU 1's kernels)."""
    cp = gpu0_current
    n = 64
    src = np.arange(n)
    weights = np.linspace(1.0, 2.0, n)
    A1 = spla.Matrix.from_edges(src, (src + 1) % n, n=n, values=weights, directed=True, device="gpu:1")
    with cp.cuda.Device(1):
        x = cp.ones(n)
        top = cp.zeros((), dtype=np.float64)
    copy = _dev.HostCopy(top)

    def step():
        cp.copyto(x, spla.vxm(x, A1, "plus_times"))
        x.max(out=top)

    replay = spla.Replay(step, A1.device, name="multi-gpu step")
    want = np.ones(n)
    for _ in range(5):
        replay()
        want = np.roll(want * weights, 1)
        assert _current(cp) == 0
        assert float(copy.read()) == pytest.approx(want.max(), rel=1e-12)
    assert replay.mode == "graph" and x.device.id == 1
    assert_equal(_dev.to_numpy(x), want, rtol=1e-12)
    with cp.cuda.Device(1):
        own = int(replay._pool.total_bytes())
    gc.collect()  # no Replay may die between the two readings
    from_gpu0 = recorded_bytes()
    with cp.cuda.Device(1):
        from_gpu1 = recorded_bytes()
    assert own > 0 and from_gpu0 == from_gpu1 >= own and _current(cp) == 0

    # a copy issued right behind ~10 ms of GPU 1 work must wait for it
    with cp.cuda.Device(1):
        big = cp.ones(1 << 27)
        value = cp.zeros((), dtype=np.float64)
        cp.cuda.get_current_stream().synchronize()
    late = _dev.HostCopy(value)
    with cp.cuda.Device(1):
        for _ in range(12):
            big *= 1.0
        big.sum(out=value)
    assert float(late.read()) == float(1 << 27) and _current(cp) == 0


def test_device_mismatch_between_gpus(gpu0_current):
    """Arrays of GPU 0 given with a matrix (or block) of GPU 1 are refused with DeviceMismatch, and the
    current device is back to what it was after each refusal (and after an algorithm that raises)."""
    cp = gpu0_current
    A1 = spla.Matrix.from_networkx(_graph(True), device="gpu:1")
    n = A1.shape[0]
    u0, mask0, out0 = cp.ones(n), cp.zeros(n, dtype=bool), cp.zeros(n)
    with cp.cuda.Device(1):
        u1, mask1 = cp.ones(n), cp.zeros(n, dtype=bool)
    calls = {
        "u": lambda: spla.vxm(u0, A1, "plus_times"),
        "u (mxv)": lambda: spla.mxv(A1, u0, "plus_times"),
        "mask": lambda: spla.vxm(u1, A1, "plus_times", mask=mask0),
        "out": lambda: spla.mxv(A1, u1, "plus_times", mask=mask1, out=out0),
    }
    L = 4
    with cp.cuda.Device(1):
        block = cp.zeros((n, 1, 2))
        start, count, top = cp.zeros(L, dtype=np.int64), cp.zeros(L, dtype=np.uint64), cp.zeros(L, dtype=np.uint64)
    queue0 = cp.zeros(n, dtype=spla.frontier.index_dtype(n, 1))
    calls["frontier queue"] = lambda: spla.frontier.push(A1, queue0, 0, block, start, count, top)
    with cp.cuda.Device(1):
        queue1 = cp.zeros(n, dtype=spla.frontier.index_dtype(n, 1))
    calls["frontier out"] = lambda: spla.frontier.pull(A1, queue1, 0, block, start, count, cp.zeros((n, 1)))
    calls["frontier top"] = lambda: spla.frontier.push(A1, queue1, 0, block, start, count, cp.zeros(L, np.uint64))
    with cp.cuda.Device(1):
        X1 = cp.zeros((n, 2), dtype=np.uint64)
    calls["weights"] = lambda: spla.bits.weighted_rowsum(X1, cp.ones(128))
    for name, call in calls.items():
        with pytest.raises(spla.DeviceMismatch):
            call()
        assert _current(cp) == 0, name
    # the other way round: GPU 1 current, a matrix of GPU 0
    A0 = A1.to("gpu:0")
    with cp.cuda.Device(1):
        with pytest.raises(spla.DeviceMismatch):
            spla.vxm(u1, A0, "plus_times")
        assert _current(cp) == 1
        with pytest.raises(spla.ConvergenceError):
            algorithms.pagerank(A0, max_iter=1, tol=1e-300)
        assert _current(cp) == 1
    with pytest.raises(spla.ConvergenceError):
        algorithms.pagerank(A1, max_iter=1, tol=1e-300)
    assert _current(cp) == 0


def test_both_gpus_in_one_process(gpu0_current):
    """The same products, fused functions, bit counts, replayed steps and algorithms on GPU 0, GPU 1, GPU 0
    and GPU 1 again in one process: every cached module, fused kernel and workspace is per device (one
    compiled or recorded for GPU 0 and launched on GPU 1 fails or computes elsewhere)."""
    cp = gpu0_current
    G = _graph(True)
    A_cpu = spla.Matrix.from_networkx(G, device="cpu")
    n = A_cpu.shape[0]
    u = np.random.default_rng(2).integers(0, 4, n).astype(np.float64)
    step = spla.fuse(lambda xp: lambda s, f: (s + f, f != 0), name="test_multi_gpu_both")
    want_products = {kernel: spla.mxv(A_cpu, u, "plus_times", kernel=kernel) for kernel in KERNEL_NAMES}
    want_bc = algorithms.betweenness_centrality(A_cpu, sources=[0, 5])
    want_one = algorithms.betweenness_centrality(A_cpu, sources=[0])
    want_pr = algorithms.pagerank(A_cpu)
    want_close = algorithms.closeness_centrality(A_cpu)
    for device in ("gpu:0", "gpu:1", "gpu:0", "gpu:1"):
        index = _dev.gpu_index(device)
        A = A_cpu.to(device)
        with cp.cuda.Device(index):
            u_dev = cp.asarray(u)
            words = u_dev.astype(np.int64)
        for kernel, want in want_products.items():
            got = spla.mxv(A, u_dev, "plus_times", kernel=kernel)
            assert got.device.id == index
            assert_equal(_dev.to_numpy(got), want, err_msg=f"{device} {kernel}")
        with _dev.activate(device):
            s, new = step(u_dev, u_dev)
        assert s.device.id == index and new.device.id == index
        assert_equal(_dev.to_numpy(s), 2 * u)
        assert spla.bits.popcount(words).device.id == index
        assert_equal(algorithms.betweenness_centrality(A, sources=[0, 5]), want_bc, rtol=1e-9, atol=1e-12)
        assert_equal(algorithms.betweenness_centrality(A, sources=[0]), want_one, rtol=1e-9, atol=1e-12)
        assert_equal(algorithms.pagerank(A), want_pr, rtol=1e-9, atol=1e-12)
        assert_equal(algorithms.closeness_centrality(A), want_close, rtol=1e-9, atol=1e-12)
        assert _current(cp) == 0, device


def test_helpers_on_gpu1(gpu0_current):
    """The algorithms' helpers that take a matrix (degree_parts, distance_sums, volumes_bits) compute on its
    GPU, and free_device_bytes measures that GPU's memory, whichever GPU is current."""
    cp = gpu0_current
    G = _graph(True)
    A_cpu = spla.Matrix.from_networkx(G, device="cpu")
    A1 = A_cpu.to("gpu:1")
    for got, want in zip(degree_parts(A1), degree_parts(A_cpu)):
        if isinstance(got, spla.Matrix):
            assert got.device == "gpu:1"
            continue
        assert got.device.id == 1 and _current(cp) == 0
        assert_equal(_dev.to_numpy(got), want)
    for got, want in zip(distance_sums(A1, harmonic=True), distance_sums(A_cpu, harmonic=True)):
        assert got.device.id == 1 and _current(cp) == 0
        assert_equal(_dev.to_numpy(got), want, rtol=1e-12)
    P1, P_cpu = A1.pattern(), A_cpu.pattern()
    got = volumes_bits(P1, P1.out_degree(), 2)
    assert got.device.id == 1 and _current(cp) == 0
    assert_equal(_dev.to_numpy(got), volumes_bits(P_cpu, P_cpu.out_degree(), 2))

    ballast = cp.empty(8 << 30, dtype=np.uint8)  # 8 GiB taken on GPU 0 only
    pool = cp.get_default_memory_pool()
    with cp.cuda.Device(1):
        free1 = cp.cuda.runtime.memGetInfo()[0] + pool.free_bytes()
    free0 = cp.cuda.runtime.memGetInfo()[0] + pool.free_bytes()
    got = _common.free_device_bytes(A1)
    assert abs(got - free1) < (1 << 30) < abs(got - free0) and _current(cp) == 0
    del ballast
