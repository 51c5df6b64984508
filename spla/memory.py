"""Memory: the check of a size against the memory available, and what algorithms size their work by.

:func:`require` is the one check of every size a caller or a file announces (a matrix's n, a Matrix
Market size line, a METIS header): given the bytes the work will allocate on a device, it raises
:class:`spla.InsufficientMemory` before anything is allocated when they are more than the device has
available, with a message naming the size, the bytes needed, the bytes available and what to do.
The bytes are counted from the arrays the work certainly allocates (a lower bound of its peak), so
that nothing that would fit is refused.

Available memory:

* on a GPU (:func:`available_bytes`), the driver's free memory plus the blocks cached in CuPy's
  memory pool, which the next allocation reuses though the driver counts them as used;
* on the host (:func:`host_available_bytes`), the least of what the system can give without swapping
  (Linux ``MemAvailable``), what this process's cgroup limits leave (v2 or v1, the page cache they
  can reclaim counted as free) and what the ``RLIMIT_AS``/``RLIMIT_DATA`` limits (``ulimit -v``,
  ``ulimit -d``) leave.  Swap is not counted: a graph computation that pages to disk does not finish
  in useful time.  Where none of these can be read, nothing is refused.

:func:`human_bytes` writes byte counts as every message and report of spla shows them.
"""

from __future__ import annotations

import functools
import os
import sys

from . import device as _dev
from .errors import InsufficientMemory

__all__ = ["available_bytes", "host_available_bytes", "require", "insufficient", "human_bytes", "release"]

#: limits at or above this are "no limit" (cgroup v1 writes 2**63 - 4096 for none)
_UNLIMITED = 1 << 62
#: :func:`require` lets work of fewer bytes through unchecked: a process without a MiB to spare fails at
#: its next allocation wherever that is, and reading the limits costs more than such work
SMALL_BYTES = 1 << 20


def human_bytes(b: float) -> str:
    """``b`` bytes as "512 B", "1.5 KiB", ..., "3.2 TiB" (powers of 1024)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(b) < 1024 or unit == "TiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} TiB"  # pragma: no cover


# ------------------------------------------------------------------------------------ the gateway
def require(nbytes: int, device: str = "cpu", *, what: str, remedy: str, error=InsufficientMemory) -> None:
    """Refuse, before allocating, work that needs more memory than ``device`` has available.

    ``nbytes``: the bytes the work will allocate on ``device`` ("cpu" or "gpu:N"), counting only the
    arrays it certainly allocates; ``what``: the work and the announced size that implies it, the
    message's subject ("g.mtx:2: the size line declares 3,000,000,000 vertices and 2 entries;
    reading them"); ``remedy``: what the user can do instead.  Raises ``error`` (InsufficientMemory or
    a subclass of it) when ``nbytes`` exceed what :func:`host_available_bytes` (the CPU) or
    :func:`available_bytes` (a GPU) report; nothing when that is unknown (None), or for work of at most
    :data:`SMALL_BYTES`.
    """
    nbytes = int(nbytes)
    if nbytes <= SMALL_BYTES:
        return
    have = host_available_bytes() if not _dev.is_gpu(device) else available_bytes(device)
    if have is not None and nbytes > have:
        raise insufficient(nbytes, device, what=what, remedy=remedy, available=have, error=error)


def insufficient(nbytes: int, device: str = "cpu", *, what: str, remedy: str, available=None,
                 error=InsufficientMemory):
    """The ``error`` :func:`require` raises (returned, not raised): also for an allocation that failed
    where the available memory is unknown (``available=None``)."""
    place = "host memory" if not _dev.is_gpu(device) else f"memory on {device}"
    need = f"{what} needs at least {human_bytes(nbytes)} ({nbytes:,} bytes) of {place}"
    if available is None:
        message = f"{need}, more than could be allocated; {remedy}"
    else:
        available = max(int(available), 0)
        message = f"{need}, but {human_bytes(available)} ({available:,} bytes) is available; {remedy}"
    return error(message, needed=int(nbytes), available=available, device=device)


# ------------------------------------------------------------------------------------ GPU memory
def available_bytes(device: str):
    """Bytes that allocations on ``device`` may still take: on a GPU, the driver's free memory plus the
    blocks cached in CuPy's pool on that GPU (whichever device is current); None on the CPU (see
    :func:`host_available_bytes`)."""
    device = _dev.resolve(device)
    if not _dev.is_gpu(device):
        return None
    cp = _dev.cupy_module()
    with _dev.activate(device):  # both report the current device: ask this one's
        free, _total = cp.cuda.runtime.memGetInfo()
        pool = cp.get_default_memory_pool()
        return int(free + pool.free_bytes())


def release(device: str) -> None:
    """Give the blocks cached in CuPy's memory pool on ``device`` back to the driver (after running out
    of memory, before a smaller retry); nothing on the CPU."""
    device = _dev.resolve(device)
    if not _dev.is_gpu(device):
        return
    cp = _dev.cupy_module()
    with _dev.activate(device):
        cp.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------------------------------ host memory
def host_available_bytes(root: str = "/"):
    """Bytes of host memory this process may still allocate without swapping or being killed, or None
    when nothing tells: the least of the system's available memory, the room its cgroups' limits
    leave and the room its address-space and data-size limits leave.  ``root`` is where ``/proc`` and
    ``/sys`` are looked for (tests point it at a fake tree)."""
    bounds = [_system_available(root), _cgroup_room(root), _rlimit_room(root)]
    bounds = [b for b in bounds if b is not None]
    return max(min(bounds), 0) if bounds else None


def _read(path):
    """The text of a small file, or None when it cannot be read."""
    try:
        with open(path, "rb", buffering=0) as f:
            return f.read(1 << 16).decode("ascii", "replace")
    except OSError:
        return None


def _fields(text, scale=1):
    """``{name: int}`` of "name value [kB]" or "Name: value kB" lines (values times ``scale``)."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.replace(":", " ").split()
        if len(parts) >= 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1]) * scale
    return out


def _system_available(root):
    """Linux: ``MemAvailable`` of /proc/meminfo (free memory plus the page cache and kernel memory the
    system can reclaim).  Windows: the available physical memory.  Elsewhere: the physical memory,
    which nothing larger fits in without swapping."""
    meminfo = _fields(_read(os.path.join(root, "proc/meminfo")), 1024)
    if "MemAvailable" in meminfo:
        return meminfo["MemAvailable"]
    if "MemFree" in meminfo:  # kernels before 3.14
        return meminfo["MemFree"] + meminfo.get("Cached", 0)
    if root != "/":
        return None
    if sys.platform == "win32":  # pragma: no cover - not tested on Windows
        return _windows_available()
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover
        return None


def _windows_available():  # pragma: no cover - not tested on Windows
    import ctypes

    class MemoryStatus(ctypes.Structure):
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                    ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                    ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                    ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                    ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]

    status = MemoryStatus()
    status.dwLength = ctypes.sizeof(MemoryStatus)
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
        return None
    return int(status.ullAvailPhys)


def _cgroup_room(root):
    """The least room (limit minus usage, the reclaimable inactive page cache counted as free) of this
    process's memory cgroup and its ancestors, v2 or v1; None when no limit is set or readable."""
    rooms = [room for folder, version in _cgroup_folders(root)
             for room in [_cgroup_folder_room(folder, version)] if room is not None]
    return min(rooms) if rooms else None


@functools.lru_cache(maxsize=4)
def _cgroup_folders(root):
    """(folder, version) of this process's memory cgroup and each ancestor up to its hierarchy's mount
    point, as /proc/self/cgroup and /proc/self/mountinfo name them (read once: a process stays in its
    cgroup)."""
    paths = {}
    for line in (_read(os.path.join(root, "proc/self/cgroup")) or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            paths[2] = parts[2]
        elif "memory" in parts[1].split(","):
            paths[1] = parts[2]
    out = []
    for line in (_read(os.path.join(root, "proc/self/mountinfo")) or "").splitlines():
        left, sep, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if not sep or len(fields) < 5 or len(after) < 3:
            continue
        if after[0] == "cgroup2":
            version = 2
        elif after[0] == "cgroup" and "memory" in after[2].split(","):
            version = 1
        else:
            continue
        if version not in paths:
            continue
        mount_root, mount_point = (f.replace("\\040", " ") for f in fields[3:5])
        rel = paths[version]
        if mount_root not in ("/", "") and (rel == mount_root or rel.startswith(mount_root.rstrip("/") + "/")):
            rel = rel[len(mount_root):]  # a cgroup namespace's mount shows its own cgroup as the root
        base = os.path.join(root, mount_point.lstrip("/"))
        parts = [p for p in rel.split("/") if p]
        for k in range(len(parts), -1, -1):
            folder = os.path.join(base, *parts[:k])
            if os.path.isdir(folder):
                out.append((folder, version))
    return tuple(out)


def _cgroup_folder_room(folder, version):
    """Limit minus usage of one cgroup folder (the inactive page cache counted as free), or None."""
    names = ("memory.max", "memory.current") if version == 2 else ("memory.limit_in_bytes", "memory.usage_in_bytes")
    limit = (_read(os.path.join(folder, names[0])) or "").strip()
    if not limit.isdigit() or int(limit) >= _UNLIMITED:  # "max" (v2), or no limit (v1)
        return None
    usage = (_read(os.path.join(folder, names[1])) or "").strip()
    stat = _fields(_read(os.path.join(folder, "memory.stat")))
    inactive = stat.get("inactive_file", 0) if version == 2 else \
        stat.get("total_inactive_file", stat.get("inactive_file", 0))
    used = int(usage) if usage.isdigit() else 0
    return int(limit) - max(used - inactive, 0)


def _rlimit_room(root):
    """The room the soft RLIMIT_AS (address space) and RLIMIT_DATA (data segment) limits leave above
    this process's current use (/proc/self/status VmSize and VmData), or None without a limit."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    status, rooms = None, []
    for limit, used in ((resource.RLIMIT_AS, "VmSize"), (getattr(resource, "RLIMIT_DATA", None), "VmData")):
        if limit is None:
            continue
        soft, _hard = resource.getrlimit(limit)
        if soft == resource.RLIM_INFINITY or soft < 0 or soft >= _UNLIMITED:
            continue
        if status is None:
            status = _fields(_read(os.path.join(root, "proc/self/status")), 1024)
        rooms.append(soft - status.get(used, 0))
    return min(rooms) if rooms else None
