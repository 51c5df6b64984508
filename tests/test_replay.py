"""spla.Replay: a recorded step gives the same results as calling it eagerly, on both backends."""

import numpy as np
import pytest

import spla


def _ring(n, device):
    src = np.arange(n)
    return spla.Matrix.from_edges(src, (src + 1) % n, n=n, values=np.linspace(1.0, 2.0, n), directed=True,
                                  device=device)


def _ring_products(n, times):
    """Dense reference: the all-ones vector multiplied ``times`` times by _ring(n) (x = x +.* A)."""
    x = np.ones(n)
    for _ in range(times):
        x = np.roll(x * np.linspace(1.0, 2.0, n), 1)
    return x


def _power_step(A, x):
    """x = (x +.* A) / 2, in place: the kind of step an iterative algorithm replays."""
    xp = A.xp

    def step():
        # x = x +.* A
        xp.copyto(x, spla.vxm(x, A, "plus_times") * 0.5)

    return step


def test_replayed_steps_equal_eager_steps(device):
    A = _ring(50, device)
    xp = A.xp
    x_replayed = xp.asarray(np.random.default_rng(0).random(50))
    x_eager = x_replayed.copy()
    replay = spla.Replay(_power_step(A, x_replayed), A.device, name="power")
    eager = _power_step(A, x_eager)
    for _ in range(7):
        replay()
        eager()
    np.testing.assert_allclose(spla.device.to_numpy(x_replayed), spla.device.to_numpy(x_eager), rtol=1e-15)
    assert replay.calls == 7
    assert replay.mode == ("graph" if device.startswith("gpu") else "eager")


def test_step_that_reads_the_host_falls_back_to_eager(device):
    A = _ring(20, device)
    xp = A.xp
    x = xp.ones(20)
    seen = []

    def step():
        xp.copyto(x, spla.vxm(x, A, "plus_times"))
        seen.append(float(x.sum()))  # a host read: cannot be recorded in a CUDA graph

    replay = spla.Replay(step, A.device)
    for _ in range(4):
        replay()
    assert replay.mode == "eager"
    assert len(seen) == 4
    expected = _ring_products(20, 4)
    np.testing.assert_allclose(spla.device.to_numpy(x), expected, rtol=1e-14)


@pytest.mark.gpu
def test_graph_temporaries_do_not_alias_new_arrays():
    """Arrays allocated between replays never share memory with the graph's temporaries."""
    cp = pytest.importorskip("cupy")
    A = _ring(1000, "gpu:0")
    x = cp.ones(1000)
    replay = spla.Replay(_power_step(A, x), A.device)
    replay()
    replay()
    keep = [cp.full(1000, 7.0) for _ in range(20)]  # would reuse freed blocks of the default pool
    for _ in range(5):
        replay()
    assert all(bool((k == 7.0).all()) for k in keep)
    assert replay.mode == "graph"


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(TypeError, match="callable step"):
        spla.Replay(42, "cpu")
    with pytest.raises(ValueError, match="'cpu' or 'gpu:N'"):
        spla.Replay(lambda: None, "cuda")
    with pytest.raises(ValueError, match="'cpu' or 'gpu:N'"):
        spla.Replay(lambda: None, "gpu")


def test_host_copy_reads_what_a_replayed_step_wrote(device):
    """spla.device.HostCopy: the host copy of a small device array after each (recorded) step."""
    A = _ring(30, device)
    xp = A.xp
    x = xp.ones(30)
    top = xp.zeros((), dtype=np.float64)
    copy = spla.device.HostCopy(top)

    def step():
        xp.copyto(x, spla.vxm(x, A, "plus_times"))
        x.max(out=top)

    replay = spla.Replay(step, A.device)
    for i in range(1, 5):
        replay()
        assert float(copy.read()) == pytest.approx(_ring_products(30, i).max(), rel=1e-12)
    assert replay.mode == ("graph" if device.startswith("gpu") else "eager")


@pytest.mark.gpu
def test_a_failed_recording_runs_the_python_code_twice_and_the_device_work_once():
    """The module docstring's rule: in the call whose capture fails, the step's Python code runs under
    the capture (its device work discarded) and again eagerly."""
    cp = pytest.importorskip("cupy")
    A = _ring(20, "gpu:0")
    x = cp.ones(20)
    calls = []

    def step():
        calls.append(1)  # host-side state: counted twice in the failed recording call
        cp.copyto(x, spla.vxm(x, A, "plus_times"))
        float(x.sum())  # a host read: the capture fails here

    replay = spla.Replay(step, A.device)
    for _ in range(3):
        replay()
    assert replay.mode == "eager"
    assert len(calls) == 4
    expected = _ring_products(20, 3)  # three products: the discarded capture applied none
    np.testing.assert_allclose(x.get(), expected, rtol=1e-14)
