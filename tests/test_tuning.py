"""spla.tuning: the tunables as one frozen record, changed only for a block by override()."""

import dataclasses
import threading

import pytest

import spla
from spla import tuning


def test_defaults_pass_their_own_checks_and_are_frozen():
    t = tuning.current()
    assert t is tuning.DEFAULT
    assert tuning.Tuning() == t
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.long = 1
    described = tuning.Tuning.describe()
    assert set(described) == {f.name for f in dataclasses.fields(tuning.Tuning)}
    assert all(isinstance(v, str) and v for v in described.values())


def test_override_holds_for_the_block_only_and_nests():
    before = tuning.current()
    with tuning.override(long=None, sccsc_tiles=False) as t:
        assert t is tuning.current()
        assert (t.long, t.sccsc_tiles, t.chunk) == (None, False, before.chunk)
        with tuning.override(chunk=1024):
            assert (tuning.current().long, tuning.current().chunk) == (None, 1024)
        assert tuning.current().chunk == before.chunk
    assert tuning.current() is before


def test_override_is_undone_by_an_exception():
    before = tuning.current()
    with pytest.raises(RuntimeError):
        with tuning.override(tile_r=2):
            raise RuntimeError("inside")
    assert tuning.current() is before


@pytest.mark.parametrize("changes", [dict(tile_r=3), dict(listed_chunk=0), dict(windows_seg=24),
                                     dict(mask_worklist="yes"), dict(vecsc_group=3), dict(long=1.5),
                                     dict(sparse_pull=2.0), dict(chunk=True), dict(windows_segs=())])
def test_bad_values_are_refused_before_the_block(changes):
    ran = []
    with pytest.raises(ValueError, match=next(iter(changes))):
        with tuning.override(**changes):
            ran.append(1)
    assert not ran


def test_unknown_names_are_refused():
    with pytest.raises(TypeError, match="unknown tunable"):
        with tuning.override(LONG=1):
            pass


def test_override_belongs_to_its_thread():
    seen = {}
    entered, done = threading.Event(), threading.Event()

    def other():
        entered.wait()
        seen["other"] = tuning.current().chunk
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with tuning.override(chunk=256):
        entered.set()
        done.wait()
        seen["here"] = tuning.current().chunk
    thread.join()
    assert seen == {"other": tuning.DEFAULT.chunk, "here": 256}


def test_products_answer_the_same_under_any_override(device):
    """Tunables change how a product runs, never its answer (the CPU backend reads none of them)."""
    import numpy as np

    A = spla.Matrix.from_edges([0, 1, 2, 2], [1, 2, 0, 3], n=4, device=device)
    u = A.xp.asarray(np.arange(4, dtype=np.float64))
    want = spla.vxm(u, A, "plus_times")
    with tuning.override(long=None, chunk=64, sccsc_tiles=False, mask_worklist=True, vecsc_group=2):
        for kernel in ("auto",) + spla.KERNELS:
            got = spla.vxm(u, A, "plus_times", kernel=kernel)
            np.testing.assert_array_equal(spla.device.to_numpy(got), spla.device.to_numpy(want))
