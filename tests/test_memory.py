"""Sizes checked against memory before anything is allocated (issue #33: a size line of 3,000,000,000
vertices got the process killed by the kernel's OOM killer).

* :func:`spla.memory.require`, the gateway: its message and its exception;
  :func:`spla.memory.host_available_bytes` on fake /proc and /sys trees (cgroup v1 and v2) and
  under an RLIMIT_AS.
* The Matrix constructors, the transpose and :meth:`Matrix.to`, the Matrix Market and METIS readers,
  and the ``spla`` command refuse an announced size in the billions with one message naming the size,
  the bytes needed and the bytes available.  Calls with such sizes run in a subprocess whose address
  space is limited to 2 GiB: a size that went unchecked shows there as another error (NumPy's own
  MemoryError) or a traceback, never as a machine brought to its OOM killer.
* The estimates are lower bounds: each is compared with what the call then allocates (tracemalloc
  sees NumPy's allocations), so nothing that would fit is refused.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import spla
from spla.io import GraphFormatError, GraphTooLarge, read_graph
from spla.testing import on_each_device

REPO = Path(__file__).resolve().parents[1]
BILLIONS = 3_000_000_000
#: the address space the subprocesses get: Python with NumPy, SciPy and spla fits in it, a matrix of
#: three billion column pointers does not
LIMIT = 2 << 30
#: the one-line message: the size, the bytes needed and available, both written out
MESSAGE = re.compile(r"needs at least [\d.]+ [KMGT]?i?B \(([\d,]+) bytes\) of (host memory|memory on gpu:\d+), "
                     r"but [\d.]+ [KMGT]?i?B \(([\d,]+) bytes\) is available; ")


def needed_and_available(message):
    m = MESSAGE.search(message)
    assert m, message
    return int(m.group(1).replace(",", "")), int(m.group(3).replace(",", ""))


def _limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _env():
    # one BLAS thread: thread stacks and buffers of a many-core machine's BLAS count in the address space
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run_limited(code, cwd=None):
    """Run Python ``code`` in a subprocess limited to LIMIT bytes of address space."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=120, preexec_fn=_limit_address_space)


def spla_limited(*args, cwd):
    """``python -m spla ARGS`` limited to LIMIT bytes of address space."""
    return subprocess.run([sys.executable, "-m", "spla", *map(str, args)], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=120, preexec_fn=_limit_address_space)


@pytest.fixture
def host_has(monkeypatch):
    """``host_has(nbytes)``: make the host report ``nbytes`` of available memory."""
    def set_(nbytes):
        monkeypatch.setattr(spla.memory, "host_available_bytes", lambda root="/": nbytes)
    return set_


# ============================================================================ the gateway
def test_human_bytes():
    h = spla.memory.human_bytes
    assert [h(0), h(1023), h(1024), h(1536), h(3 * 2**30), h(5 * 2**40), h(2**60)] == \
        ["0 B", "1023 B", "1.0 KiB", "1.5 KiB", "3.0 GiB", "5.0 TiB", "1048576.0 TiB"]
    from spla.cli.memory import human_bytes

    assert human_bytes is h  # one formatter for messages and reports


def test_insufficient_memory_is_a_memory_error():
    assert issubclass(spla.InsufficientMemory, spla.DeviceMemoryError)
    assert issubclass(spla.InsufficientMemory, MemoryError) and issubclass(spla.InsufficientMemory, spla.SplaError)
    assert issubclass(GraphTooLarge, GraphFormatError) and issubclass(GraphTooLarge, spla.InsufficientMemory)
    assert issubclass(GraphTooLarge, ValueError)


def test_require_names_size_needed_available_and_remedy(host_has):
    host_has(5 * 2**20)
    spla.memory.require(5 * 2**20, "cpu", what="x", remedy="y")  # what fits passes
    with pytest.raises(spla.InsufficientMemory) as info:
        spla.memory.require(6 * 2**30, "cpu", what="a graph of n=7 vertices: its matrix", remedy="do this")
    e = info.value
    assert str(e) == ("a graph of n=7 vertices: its matrix needs at least 6.0 GiB (6,442,450,944 bytes) of host "
                      "memory, but 5.0 MiB (5,242,880 bytes) is available; do this")
    assert (e.needed, e.available, e.device) == (6 * 2**30, 5 * 2**20, "cpu")


def test_require_lets_small_work_and_unknown_memory_through(host_has):
    host_has(0)
    spla.memory.require(spla.memory.SMALL_BYTES, "cpu", what="x", remedy="y")
    with pytest.raises(spla.InsufficientMemory):
        spla.memory.require(spla.memory.SMALL_BYTES + 1, "cpu", what="x", remedy="y")
    host_has(None)  # nothing tells: nothing is refused
    spla.memory.require(2**62, "cpu", what="x", remedy="y")


def test_insufficient_without_a_known_available_memory():
    e = spla.memory.insufficient(2**40, "cpu", what="w", remedy="r")
    assert str(e) == ("w needs at least 1.0 TiB (1,099,511,627,776 bytes) of host memory, more than could be "
                      "allocated; r")
    assert e.available is None


# ============================================================================ host memory
def fake_tree(tmp_path, *, meminfo="MemTotal: 8000000 kB\nMemFree: 1000 kB\nMemAvailable:  4000000 kB\n",
              cgroup="", mountinfo="", files=None):
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/meminfo").write_text(meminfo)
    (tmp_path / "proc/self/cgroup").write_text(cgroup)
    (tmp_path / "proc/self/mountinfo").write_text(mountinfo)
    for name, text in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    spla.memory._cgroup_folders.cache_clear()
    return str(tmp_path) + "/"


def test_host_memory_is_memavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    assert spla.memory.host_available_bytes(fake_tree(tmp_path)) == 4000000 * 1024


def test_host_memory_before_memavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    root = fake_tree(tmp_path, meminfo="MemTotal: 8000 kB\nMemFree: 1000 kB\nCached: 500 kB\n")
    assert spla.memory.host_available_bytes(root) == 1500 * 1024


V2_MOUNT = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_cgroup_v2_limit_bounds_host_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    root = fake_tree(tmp_path, cgroup="0::/user.slice/job\n", mountinfo=V2_MOUNT, files={
        "sys/fs/cgroup/user.slice/job/memory.max": "1073741824\n",
        "sys/fs/cgroup/user.slice/job/memory.current": "536870912\n",
        "sys/fs/cgroup/user.slice/job/memory.stat": "anon 400000000\ninactive_file 100000000\nactive_file 5\n",
        "sys/fs/cgroup/user.slice/memory.max": "max\n",
        "sys/fs/cgroup/user.slice/memory.current": "999999999999\n",
    })
    # the job's limit less its usage, the inactive page cache counted as free; the parent has no limit
    assert spla.memory.host_available_bytes(root) == 1073741824 - (536870912 - 100000000)


def test_cgroup_v2_parent_limit_and_namespaced_mount(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    # a cgroup namespace: the mount's root is the process's own cgroup
    mount = "30 25 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    root = fake_tree(tmp_path, cgroup="0::/kubepods/pod1/ctr\n", mountinfo=mount, files={
        "sys/fs/cgroup/ctr/memory.max": "max\n",
        "sys/fs/cgroup/ctr/memory.current": "100\n",
        "sys/fs/cgroup/memory.max": "2000000\n",
        "sys/fs/cgroup/memory.current": "500000\n",
    })
    assert spla.memory.host_available_bytes(root) == 1500000


def test_cgroup_v1_limit_bounds_host_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    mount = ("35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
             "36 31 0:33 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n")
    root = fake_tree(tmp_path, cgroup="5:cpu:/docker/abc\n4:memory:/docker/abc\n0::/\n", mountinfo=mount, files={
        "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "3000000000\n",
        "sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes": "1000000000\n",
        "sys/fs/cgroup/memory/docker/abc/memory.stat": "cache 10\ntotal_inactive_file 250000000\n",
        "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",  # no limit
        "sys/fs/cgroup/memory/memory.usage_in_bytes": "1\n",
    })
    assert spla.memory.host_available_bytes(root) == 3000000000 - (1000000000 - 250000000)
    # a limit above what the system has leaves the system's figure
    (tmp_path / "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes").write_text("99000000000000\n")
    assert spla.memory.host_available_bytes(root) == 4000000 * 1024


def test_host_memory_unknown(tmp_path, monkeypatch):
    monkeypatch.setattr(spla.memory, "_rlimit_room", lambda root: None)
    assert spla.memory.host_available_bytes(fake_tree(tmp_path, meminfo="")) is None


def test_host_memory_of_this_machine():
    have = spla.memory.host_available_bytes()
    assert have is None or have > 0


# ============================================================================ Matrix constructors
def test_the_api_refuses_sizes_in_the_billions_before_allocating():
    """Issue #33: from_edges([0], [1], n=3_000_000_000) was killed at ~22.6 GB resident.  Here in a
    process whose address space is limited (RLIMIT_AS, which bounds host_available_bytes)."""
    res = run_limited(f"""
        import numpy as np, scipy.sparse as sp, spla
        print(spla.memory.host_available_bytes())
        def show(call):
            try:
                call()
            except spla.InsufficientMemory as e:
                print(e)
                print(e.needed, e.available)
        show(lambda: spla.Matrix.from_edges([0], [1], n={BILLIONS}, device="cpu"))
        S = sp.coo_array((np.ones(1), (np.array([0]), np.array([1]))), shape=({BILLIONS}, {BILLIONS}))
        show(lambda: spla.Matrix.from_scipy(S, device="cpu"))
        # a tall matrix's arrays are small; its transpose has a column pointer per row
        A = spla.Matrix.from_csc(np.array([0, 1]), np.array([{BILLIONS} - 1]), None, ({BILLIONS}, 1), device="cpu")
        show(lambda: A.T)
    """)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    have, *lines = res.stdout.strip().split("\n")
    assert 0 < int(have) < LIMIT
    assert len(lines) == 6, res.stdout
    starts = ["a graph of n=3,000,000,000 vertices and 1 edge: its matrix needs at least 22.4 GiB",
              "a 3,000,000,000 x 3,000,000,000 matrix of 1 stored entry needs at least",
              "the transpose of a 3,000,000,000 x 1 matrix of 1 stored entry needs at least"]
    for start, message, numbers in zip(starts, lines[0::2], lines[1::2]):
        assert message.startswith(start), message
        needed, available = needed_and_available(message)
        assert [needed, available] == [int(x) for x in numbers.split()]
        assert needed >= (BILLIONS + 1) * 8 and available < LIMIT
    assert "numpy.unique" in lines[0] and "0..k-1" in lines[0]  # from_edges' remedy: compact the ids


@pytest.mark.parametrize("directed", [False, True, None])
def test_from_edges_refused_under_a_small_memory(host_has, directed):
    host_has(8 * 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(spla.InsufficientMemory) as info:
            spla.Matrix.from_edges([0, 5], [1, 2], n=10_000_000, directed=directed, device="cpu")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20  # refused before the 40 MB of column pointers
    message = str(info.value)
    assert message.startswith("a graph of n=10,000,000 vertices and 2 edges: its matrix needs at least ")
    assert needed_and_available(message) == (info.value.needed, 8 * 2**20)
    assert info.value.needed >= 10_000_001 * 4


def test_from_edges_far_beyond_any_memory_is_refused():
    """With the host's real memory: 10**15 vertices need 8 PB of column pointers."""
    with pytest.raises(spla.InsufficientMemory, match=r"n=1,000,000,000,000,000 vertices"):
        spla.Matrix.from_edges([0], [1], n=10**15, device="cpu")
    with pytest.raises(spla.InsufficientMemory, match=r"n=1,000,000,000,000,000 vertices"):
        spla.Matrix.from_edges([0], [10**15 - 1], device="cpu")  # n from the largest id


def test_other_constructors_refused_under_a_small_memory(host_has):
    A = spla.Matrix.from_edges(np.arange(300_000), np.arange(1, 300_001), directed=True, device="cpu")
    S = sp.coo_array((np.ones(2), ([0, 1], [1, 2])), shape=(5_000_000, 5_000_000))
    host_has(0)
    with pytest.raises(spla.InsufficientMemory, match=r"^a 5,000,000 x 5,000,000 matrix of 2 stored entries needs"):
        spla.Matrix.from_scipy(S, device="cpu")
    with pytest.raises(spla.InsufficientMemory, match=r"^the transpose of a 300,001 x 300,001 matrix"):
        A.T


def test_a_graph_that_fits_is_built(host_has):
    """The bundled power grid (4,941 vertices) builds with the host's memory, and with a few MiB."""
    from spla.cli import bundled_graph

    for have in (None, 3 * 2**20):
        if have is not None:
            host_has(have)
        with bundled_graph() as path:
            g = read_graph(path)
        A = g.to_matrix(device="cpu")
        assert A.shape == (4941, 4941) and A.nnz == 2 * 6594
        assert A.T is A and A.to("cpu") is A


@on_each_device
def test_edge_list_ids_in_the_billions_are_compacted(tmp_path, device):
    path = tmp_path / "g.txt"
    path.write_text(f"{BILLIONS} 1\n1 2\n{10**17} {BILLIONS}\n")
    g = read_graph(path)
    assert g.labels.tolist() == [1, 2, BILLIONS, 10**17] and g.n == 4
    A = g.to_matrix(device=device)
    assert A.shape == (4, 4) and A.nnz == 3


# ============================================================================ the estimates are lower bounds
def _need_and_use(monkeypatch, call):
    """(bytes the first memory check of ``call()`` asked for, bytes allocated from then on at the peak)."""
    seen = []
    real = spla.memory.require

    def spy(nbytes, device="cpu", **kw):
        if not seen:
            seen.append((int(nbytes), tracemalloc.get_traced_memory()[0]))
            tracemalloc.reset_peak()
        return real(nbytes, device, **kw)

    monkeypatch.setattr(spla.memory, "require", spy)
    tracemalloc.start()
    try:
        call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        monkeypatch.setattr(spla.memory, "require", real)
    need, held = seen[0]
    return need, peak - held


def _random_edges(n, m, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m)


@pytest.mark.parametrize("n, m", [(2_000_000, 1000), (1000, 200_000), (100_000, 100_000)])
@pytest.mark.parametrize("directed", [False, True, None])
@pytest.mark.parametrize("weighted", [False, True])
def test_from_edges_estimate_is_a_lower_bound(monkeypatch, n, m, directed, weighted):
    src, dst = _random_edges(n, m)
    values = np.ones(m) * 2.5 if weighted else None
    need, used = _need_and_use(monkeypatch, lambda: spla.Matrix.from_edges(src, dst, n=n, values=values,
                                                                          directed=directed, device="cpu"))
    assert 0 < need <= used


@pytest.mark.parametrize("shape, m", [((2_000_000, 2_000_000), 1000), ((1000, 1000), 200_000), ((3, 500_000), 10)])
@pytest.mark.parametrize("directed", [True, None])
def test_from_scipy_and_transpose_estimates_are_lower_bounds(monkeypatch, shape, m, directed):
    rng = np.random.default_rng(1)
    S = sp.coo_array((rng.random(m), (rng.integers(0, shape[0], m), rng.integers(0, shape[1], m))), shape=shape)
    need, used = _need_and_use(monkeypatch, lambda: spla.Matrix.from_scipy(S, directed=directed, device="cpu"))
    assert 0 < need <= used
    A = spla.Matrix.from_scipy(S, directed=True, device="cpu")
    need, used = _need_and_use(monkeypatch, lambda: A.T)
    assert 0 < need <= used


def test_reader_estimates_are_lower_bounds(monkeypatch, tmp_path):
    n = 300_000
    src, dst = _random_edges(n, 20_000, seed=2)
    mtx = tmp_path / "g.mtx"
    mtx.write_text(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {src.size}\n"
                   + "".join(f"{a + 1} {b + 1} 1.5\n" for a, b in zip(src.tolist(), dst.tolist())))
    need, used = _need_and_use(monkeypatch, lambda: read_graph(mtx))
    assert 0 < need <= used
    # METIS: a path 1-2-...-k, then isolated vertices
    k = 10_000
    lines = [str(2)] + [f"{i - 1} {i + 1}" for i in range(2, k)] + [str(k - 1)] + [""] * (n - k)
    metis = tmp_path / "g.graph"
    metis.write_text(f"{n} {k - 1}\n" + "\n".join(lines) + "\n")
    g = read_graph(metis)
    assert g.n == n and g.src.size == 2 * (k - 1)
    need, used = _need_and_use(monkeypatch, lambda: read_graph(metis))
    assert 0 < need <= used


# ============================================================================ the readers
def test_mtx_size_line_in_the_billions(tmp_path, host_has):
    path = tmp_path / "g.mtx"
    path.write_text(f"%%MatrixMarket matrix coordinate pattern general\n{BILLIONS} {BILLIONS} 2\n1 2\n2 3\n")
    host_has(2**30)
    with pytest.raises(GraphTooLarge) as info:
        read_graph(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: the size line declares 3,000,000,000 vertices and 2 entries; reading "
                              "them needs at least 22.4 GiB")
    assert needed_and_available(message) == (info.value.needed, 2**30)
    assert "is the size line right?" in message


def test_metis_header_in_the_billions(tmp_path, host_has):
    path = tmp_path / "g.graph"
    path.write_text(f"{BILLIONS} 1\n2\n1\n")
    host_has(2**30)
    with pytest.raises(GraphTooLarge, match=r"g\.graph:1: the METIS header declares 3,000,000,000 vertices and 1 edge; "
                                            r"reading them needs at least 44\.7 GiB") as info:
        read_graph(path)
    assert needed_and_available(str(info.value)) == (info.value.needed, 2**30)
    assert "is the header right?" in str(info.value)


# ============================================================================ the command
def _one_line_error(res):
    assert res.returncode == 2, (res.returncode, res.stderr)
    lines = res.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("spla: error: "), res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""
    return lines[0]


def test_cli_mtx_size_line_in_the_billions(tmp_path):
    """Issue #33: `spla centrality` on this file was killed by the OOM killer (exit 137, no message)."""
    (tmp_path / "g.mtx").write_text(f"%%MatrixMarket matrix coordinate pattern general\n{BILLIONS} {BILLIONS} 2\n"
                                    "1 2\n2 3\n")
    line = _one_line_error(spla_limited("centrality", "g.mtx", "--device", "cpu", cwd=tmp_path))
    assert line.startswith("spla: error: g.mtx:2: the size line declares 3,000,000,000 vertices and 2 entries; "
                           "reading them needs at least 22.4 GiB")
    needed, available = needed_and_available(line)
    assert needed >= 8 * BILLIONS > LIMIT > available
    assert "is the size line right?" in line and "edge list" in line


def test_cli_metis_header_in_the_billions(tmp_path):
    (tmp_path / "g.graph").write_text(f"{BILLIONS} 1\n2\n1\n")
    line = _one_line_error(spla_limited("centrality", "g.graph", "--measures", "degree", "--device", "cpu",
                                        cwd=tmp_path))
    assert line.startswith("spla: error: g.graph:1: the METIS header declares 3,000,000,000 vertices and 1 edge;")
    needed, available = needed_and_available(line)
    assert needed >= 16 * BILLIONS and available < LIMIT


def test_cli_edge_list_ids_in_the_billions_work(tmp_path):
    (tmp_path / "g.txt").write_text(f"{BILLIONS} 1\n1 2\n")
    res = spla_limited("centrality", "g.txt", "--measures", "degree", "--device", "cpu", "-q", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["vertex,degree", "1,1.0", "2,0.5", f"{BILLIONS},0.5"]


def test_cli_measures_are_checked_before_computing(tmp_path, host_has, capsys):
    """A size the reader and the matrix hold, but not the vectors of the measures: refused before any
    measure runs."""
    from spla.cli import main

    n = 200_000
    (tmp_path / "g.mtx").write_text(f"%%MatrixMarket matrix coordinate pattern general\n{n} {n} 2\n1 2\n2 3\n")
    host_has(3 * 2**20)  # the reader needs 1.6 MB; the degree vectors and the table 6.4 MB
    assert main(["centrality", str(tmp_path / "g.mtx"), "--measures", "degree", "--device", "cpu", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"spla: error: {tmp_path / 'g.mtx'}: degree on 200,000 vertices needs at least")
    assert needed_and_available(err) == (32 * n, 3 * 2**20)
    assert "--measures" in err
    assert main(["info", str(tmp_path / "g.mtx"), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"spla: error: {tmp_path / 'g.mtx'}: the degrees and a BFS on 200,000 vertices needs")


def test_require_measures_memory(host_has):
    from spla.cli.memory import MIN_BYTES_PER_VERTEX, require_measures_memory

    host_has(10 * 2**20)
    require_measures_memory(["degree"], 300_000, "cpu", "g")  # 9.6 MB
    with pytest.raises(spla.InsufficientMemory) as info:
        require_measures_memory(["degree", "pagerank", "distance-sum"], 200_000, "cpu", "g")
    # the largest measure's work, and a column per measure plus distance-sum's vertices reached
    assert info.value.needed == 200_000 * (MIN_BYTES_PER_VERTEX["pagerank"] + 8 * 4)


# ============================================================================ GPU (untested without one)
@pytest.mark.gpu
def test_moving_to_a_gpu_is_checked_against_its_free_memory(monkeypatch):
    A = spla.Matrix.from_edges(np.arange(999_999), np.arange(1, 1_000_000), device="cpu")
    monkeypatch.setattr(spla.memory, "available_bytes", lambda device: 4096)
    with pytest.raises(spla.InsufficientMemory) as info:
        A.to("gpu:0")
    message = str(info.value)
    assert message.startswith("moving a 1,000,000 x 1,000,000 matrix of 1,999,998 stored entries to gpu:0 needs")
    assert needed_and_available(message) == (A.nbytes, 4096) and info.value.device == "gpu:0"
    assert "memory on gpu:0" in message and "device='cpu'" in message
    with pytest.raises(spla.InsufficientMemory, match="to gpu:0"):
        spla.Matrix.from_edges(np.arange(999_999), np.arange(1, 1_000_000), device="gpu:0")
    monkeypatch.undo()
    B = A.to("gpu:0")  # with the real free memory it fits
    assert B.device == "gpu:0" and B.nnz == A.nnz
