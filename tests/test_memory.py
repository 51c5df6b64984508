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
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


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
