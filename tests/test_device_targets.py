"""Which GPU a call works on, checked without a GPU: device-name parsing, and the calls that must make
their matrix's (or array's) GPU current before they allocate, launch, copy or read a memory pool.

CuPy allocates, launches and reads its memory pools on the *current* device; a matrix of "gpu:1" used
while GPU 0 is current must switch.  A fake CuPy here keeps a current device and logs which device each
call ran on; tests/test_multi_gpu.py runs the same paths on two real GPUs.
"""

import contextlib
import sys
import types
import weakref

import numpy as np
import pytest

import spla
import spla.replay
from spla.algorithms import _common
from spla.algorithms.daccer import volumes_bits
from spla.algorithms.degree import degree_parts
from spla.algorithms.distances import bit_bfs_blocks, distance_sums
from spla import device as _dev
from spla.backends import gpu
from spla.backends.gpu import compile as gpu_compile
from spla.backends.gpu import selection


class FakeArray:
    """A CuPy array's attributes that spla reads (device, pointer, size, layout)."""

    def __init__(self, device, shape=(3,), dtype=np.float64):
        self.device = types.SimpleNamespace(id=device)
        self.shape = shape
        self.dtype = np.dtype(dtype)
        self.nbytes = int(np.prod(shape)) * self.dtype.itemsize
        self.data = types.SimpleNamespace(ptr=0x1000 * (device + 1))
        self.flags = types.SimpleNamespace(c_contiguous=True)


class FakeCupy:
    """The current device and the calls of CuPy whose effect depends on it; ``log`` records
    (what, current device)."""

    def __init__(self, count=2):
        self.current = 0
        self.log = []
        fake = self

        class Device:
            def __init__(self, index):
                self.id = index

            def __enter__(self):
                self.prev = fake.current
                fake.current = self.id
                return self

            def __exit__(self, *exc):
                fake.current = self.prev

        class Stream:
            def __init__(self):
                self.device = fake.current
                self.ptr = 100 + fake.current

            def synchronize(self):
                fake.log.append(("synchronize", self.device, fake.current))

        class Pool:
            def free_bytes(self):
                return 10 * (fake.current + 1)

        def memcpy_async(dst, src, nbytes, kind, stream):
            fake.log.append(("memcpy", stream, fake.current))

        def asarray(x):
            fake.log.append(("asarray", fake.current))
            return FakeArray(fake.current, np.shape(x), np.asarray(x).dtype)

        runtime = types.SimpleNamespace(
            getDevice=lambda: fake.current, getDeviceCount=lambda: count, memcpyAsync=memcpy_async,
            memcpyDeviceToHost=2, memGetInfo=lambda: (1000 * (fake.current + 1), 10**6))
        self.cuda = types.SimpleNamespace(runtime=runtime, Device=Device, get_current_stream=Stream)
        self.ndarray = FakeArray
        self.asarray = asarray
        self.get_default_memory_pool = Pool


@pytest.fixture
def fake_cupy(monkeypatch):
    cp = FakeCupy()
    monkeypatch.setattr(_dev, "cupy_module", lambda: cp)
    monkeypatch.setitem(sys.modules, "cupyx", types.SimpleNamespace(
        empty_pinned=lambda shape, dtype: np.zeros(shape, dtype=dtype)))
    return cp


def test_gpu_index_parses_gpu_names():
    assert [_dev.gpu_index(d) for d in ("gpu:0", "gpu:1", "gpu:12", "gpu")] == [0, 1, 12, 0]
    for bad in ("cpu", "gpux", "gpu:", "gpu:-1", "cuda:1"):
        with pytest.raises(ValueError, match="not a GPU device name"):
            _dev.gpu_index(bad)


def test_resolve_and_to_device_target_the_named_gpu(fake_cupy):
    """resolve: "gpu" is GPU 0, "gpu:01" GPU 1; to_device copies under the target GPU ("gpu" too: it
    was an IndexError) and leaves the current device as it was."""
    assert [_dev.resolve(d) for d in ("gpu", "gpu:1", "gpu:01", "gpu:0")] == ["gpu:0", "gpu:1", "gpu:1", "gpu:0"]
    with pytest.raises(spla.NoGPUError, match="does not exist"):
        _dev.resolve("gpu:2")
    for device, index in (("gpu:1", 1), ("gpu", 0), ("gpu:0", 0)):
        fake_cupy.log.clear()
        assert _dev.to_device(np.ones(3), device).device.id == index
        assert fake_cupy.log == [("asarray", index)] and fake_cupy.current == 0


def test_activate_switches_only_when_needed_and_restores(fake_cupy):
    with _dev.activate("gpu:1"):
        assert fake_cupy.current == 1
        with _dev.activate("gpu:1"):  # already current: nothing to switch
            assert fake_cupy.current == 1
        with _dev.activate("gpu:0"):
            assert fake_cupy.current == 0
        assert fake_cupy.current == 1
    assert fake_cupy.current == 0
    with pytest.raises(RuntimeError):
        with _dev.activate("gpu:1"):
            raise RuntimeError("inside")
    assert fake_cupy.current == 0
    with _dev.activate("cpu"):
        assert fake_cupy.current == 0


def test_host_copy_reads_on_the_arrays_gpu(fake_cupy):
    """HostCopy.read copies on the stream of the array's GPU and waits for that stream (on GPU 0's
    stream it would not wait for GPU 1's kernels), then GPU 0 is current again, also after an error."""
    copy = _dev.HostCopy(FakeArray(1))
    assert fake_cupy.current == 0
    copy.read()
    assert fake_cupy.log == [("memcpy", 101, 1), ("synchronize", 1, 1)] and fake_cupy.current == 0

    def broken(*args):
        raise RuntimeError("copy failed")

    fake_cupy.cuda.runtime.memcpyAsync = broken
    with pytest.raises(RuntimeError, match="copy failed"):
        copy.read()
    assert fake_cupy.current == 0
    host = np.arange(3.0)
    assert _dev.HostCopy(host).read() is host


def test_recorded_bytes_reads_each_pool_on_its_gpu(fake_cupy, monkeypatch):
    """A CuPy memory pool reports the current device's part: each recorded step's pool is read on its
    step's GPU, so the total does not depend on which GPU is current."""
    class Pool:
        def __init__(self, by_device):
            self.by_device = by_device

        def total_bytes(self):
            return self.by_device[fake_cupy.current]

    r0 = spla.Replay(lambda: None, "gpu:0")
    r1 = spla.Replay(lambda: None, "gpu:1")
    r0._pool, r1._pool = Pool({0: 512, 1: 0}), Pool({0: 0, 1: 2048})
    idle = spla.Replay(lambda: None, "gpu:1")  # nothing recorded: no pool
    monkeypatch.setattr(spla.replay, "_live", weakref.WeakSet([r0, r1, idle]))
    assert spla.replay.recorded_bytes() == 2560 and fake_cupy.current == 0
    with _dev.activate("gpu:1"):
        assert spla.replay.recorded_bytes() == 2560 and fake_cupy.current == 1


def test_free_device_bytes_measures_the_matrixs_gpu(fake_cupy):
    A1 = types.SimpleNamespace(device="gpu:1")
    assert _common.free_device_bytes(A1) == 2000 + 20 and fake_cupy.current == 0
    with _dev.activate("gpu:1"):
        assert _common.free_device_bytes(types.SimpleNamespace(device="gpu:0")) == 1000 + 10
    assert _common.free_device_bytes(types.SimpleNamespace(device="cpu")) == spla.tuning.current().cpu_block_bytes


def test_popcount_counts_on_the_arrays_gpu(fake_cupy, monkeypatch):
    """gpu.popcount of an array of GPU 1 counts there: cupy.asarray would first copy it to the current
    GPU.  Host input still goes through cupy.asarray (onto the current GPU)."""
    monkeypatch.setattr(gpu_compile, "load_cupy", lambda: fake_cupy)
    monkeypatch.setattr(gpu_compile, "popcount_kernel", lambda: lambda X: ("popcount", fake_cupy.current, X.device.id))
    assert gpu.popcount(FakeArray(1, dtype=np.int32)) == ("popcount", 1, 1)
    assert fake_cupy.log == [] and fake_cupy.current == 0
    assert gpu.popcount(np.ones(3, dtype=np.int64)) == ("popcount", 0, 0)
    assert fake_cupy.log == [("asarray", 0)]


@pytest.fixture
def activation(monkeypatch):
    """spla.device.activate replaced by a recorder: ``depth[0]`` > 0 inside an activated block and
    ``devices`` lists the devices activated."""
    state = types.SimpleNamespace(depth=0, devices=[])

    @contextlib.contextmanager
    def activate(device):
        state.devices.append(device)
        state.depth += 1
        try:
            yield
        finally:
            state.depth -= 1

    monkeypatch.setattr(_dev, "activate", activate)
    return state


@pytest.mark.parametrize("directed", [False, True])
def test_kernel_choice_computes_under_the_matrixs_device(activation, monkeypatch, directed):
    """scale_free_metric's degrees and sums and choose_kernel's column statistics run with A's device
    current (called directly, e.g. by the CLI's report, nothing else makes it current)."""
    src = np.array([0, 0, 0, 1, 2, 3])
    dst = np.array([1, 2, 3, 2, 3, 0])
    A = spla.Matrix.from_edges(src, dst, n=5, directed=directed, device="cpu")
    out_degree, in_degree = A.out_degree, A.in_degree

    def checked_out_degree():
        assert activation.depth > 0, "scale_free_metric's sums ran outside activate(A.device)"
        return out_degree()

    def checked_in_degree():
        assert activation.depth > 0, "the column statistics ran outside activate(A.device)"
        return in_degree()

    monkeypatch.setattr(A, "out_degree", checked_out_degree)
    monkeypatch.setattr(A, "in_degree", checked_in_degree)
    assert selection.scale_free_metric(A) > 0
    assert selection.choose_kernel(A)[0] in spla.KERNELS
    assert set(activation.devices) == {"cpu"} and activation.depth == 0


def test_algorithms_decide_the_device_as_documented(activation, monkeypatch):
    """on_graph_device makes current: ``device=`` when given, else the Matrix's, else "auto"."""
    monkeypatch.setattr(_dev, "resolve", lambda d: "gpu:0" if d == "auto" else d)
    seen = []

    @_common.on_graph_device
    def fn(A, *, device=None):
        seen.append(activation.depth)

    A = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")
    A.device = "gpu:1"  # as a matrix of GPU 1 (fn never touches its arrays)
    fn(A)
    fn(A=A)
    fn(A, device="gpu:0")
    fn(A.to_scipy())
    assert activation.devices == ["gpu:1", "gpu:1", "gpu:0", "gpu:0"] and seen == [1] * 4


class _Activated(Exception):
    pass


@pytest.mark.parametrize("call", [
    lambda A: degree_parts(A),
    lambda A: distance_sums(A),
    lambda A: bit_bfs_blocks(A, lambda *args: None),
    lambda A: volumes_bits(A, None, 2),
], ids=["degree_parts", "distance_sums", "bit_bfs_blocks", "volumes_bits"])
def test_helpers_activate_their_matrixs_device_first(monkeypatch, call):
    """The algorithms' helpers that take a matrix make its device current before any array work (not
    A.xp on whatever GPU is current)."""
    def activate(device):
        raise _Activated(device)

    monkeypatch.setattr(_dev, "activate", activate)
    monkeypatch.setattr(_dev, "resolve", lambda d: d)
    A = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")
    A.device = "gpu:1"
    with pytest.raises(_Activated, match="gpu:1"):
        call(A)
