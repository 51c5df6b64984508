"""Timing, memory and device probes for the benchmark harness.

- :func:`gpu_time` -- CUDA-event timing (warm-up, then ``repeat`` timed calls).
- :func:`cpu_time` -- the same with ``time.perf_counter``.
- :func:`gpu_peak_memory` -- peak bytes held by CuPy's memory pool during one call.
- :func:`device_info` -- name, memory and software versions of the device.
- :func:`copy_bandwidth` -- device-to-device copy bandwidth (bytes read + written / s),
  the yardstick of the "fraction of the memory-bandwidth floor" columns.
- :func:`l2_random_access` -- random 8-byte atomics and loads per second within the L2 cache, the
  yardstick of floors counted in scattered accesses rather than bytes.
- :class:`time_limit` -- raise :class:`MeasurementTimeout` when a block overruns.

CuPy is imported lazily, so this module imports on machines without it.
"""

from __future__ import annotations

import os
import platform
import re
import signal
import statistics
import time
from typing import Any, Callable


class MeasurementTimeout(Exception):
    """A measurement ran past its time limit (raised by :class:`time_limit`)."""


class time_limit:
    """Context manager raising :class:`MeasurementTimeout` after ``seconds``.

    Uses ``SIGALRM`` (main thread, POSIX only; elsewhere it does nothing).  The
    exception is delivered between Python bytecodes, so a long pure-Python loop
    (networkx) or an algorithm's per-level loop is interrupted, while a single long
    C call finishes first.  ``seconds`` <= 0 or None disables the limit.
    """

    def __init__(self, seconds: float | None, what: str = "measurement"):
        self.seconds = seconds
        self.what = what
        self._old = None
        self._armed = False

    def _handler(self, signum, frame):  # noqa: ARG002
        raise MeasurementTimeout(f"{self.what} exceeded its {self.seconds:.0f} s limit")

    def __enter__(self):
        import threading

        if (self.seconds and self.seconds > 0 and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()):
            self._old = signal.signal(signal.SIGALRM, self._handler)
            signal.setitimer(signal.ITIMER_REAL, float(self.seconds))
            self._armed = True
        return self

    def __exit__(self, *exc):
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)
        return False


def _summary(times_ms: list[float]) -> dict:
    return {
        "median_ms": statistics.median(times_ms) if times_ms else None,
        "min_ms": min(times_ms) if times_ms else None,
        "all": [round(t, 6) for t in times_ms],
    }


def gpu_time(fn: Callable[[], Any], warmup: int = 2, repeat: int = 10) -> dict:
    """Time ``fn`` on the current CUDA stream with CUDA events.

    ``warmup`` untimed calls, then ``repeat`` calls each bracketed by
    ``start.record(); fn(); end.record(); end.synchronize()``.  Returns
    ``{"median_ms", "min_ms", "all"}`` (milliseconds).
    """
    import cupy

    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(max(1, repeat)):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(float(cupy.cuda.get_elapsed_time(start, end)))
    return _summary(times)


def cpu_time(fn: Callable[[], Any], warmup: int = 1, repeat: int = 5) -> dict:
    """Time ``fn`` with ``time.perf_counter``; same result layout as :func:`gpu_time`."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return _summary(times)


def gpu_peak_memory(fn: Callable[[], Any]) -> tuple[Any, dict]:
    """Run ``fn`` once and report the device bytes it held at its peak.

    A CuPy memory hook adds up the bytes of every block handed out by a memory pool
    (the default pool and the private pools of recorded CUDA graphs alike) and
    subtracts every block given back, so the high-water mark of that running sum is the
    call's own peak, unaffected by the pool's caching and fragmentation (``total_bytes()``
    is not: a chunk that an earlier, still-live array splits stays resident).  Returns
    ``(result, {"mem_base_bytes", "mem_peak_bytes", "mem_after_bytes"})``: base is what
    the default pool had live before (the matrix, caches) plus the recorded graphs'
    pools, peak = base + the call's high-water mark, after = base + what the call left
    allocated (results, new caches).
    """
    import cupy

    from spla.replay import recorded_bytes  # recorded graphs' temporaries live in private pools

    class Peak(cupy.cuda.MemoryHook):
        name = "spla_benchmark_peak"

        def __init__(self):
            self.live, self.high = 0, 0

        def malloc_postprocess(self, **kw):
            if kw.get("mem_ptr"):
                self.live += int(kw["mem_size"])
                self.high = max(self.high, self.live)

        def free_postprocess(self, **kw):
            self.live -= int(kw["mem_size"])

    pool = cupy.get_default_memory_pool()
    cupy.cuda.get_current_stream().synchronize()
    pool.free_all_blocks()
    base = pool.used_bytes() + recorded_bytes()
    hook = Peak()
    with hook:
        result = fn()
        cupy.cuda.get_current_stream().synchronize()
    return result, {"mem_base_bytes": int(base), "mem_peak_bytes": int(base + hook.high),
                    "mem_after_bytes": int(base + hook.live)}


def call_peak_bytes(r: dict, which: str = "warm"):
    """Device bytes one measured call held at its peak beyond what was already live (the
    harness keeps other graphs and buffers alive, so the pool's total is not the call's);
    the matrix itself is reported beside it as (n+1+m)*4 B.  None when not measured.

    which="warm": the second call's probe when there is one (lazy caches already built; what
    a repeated call costs), else the first call's; "first": the first call's (includes the
    one-time caches it builds: the kernel choice's s-metric, veCSC's split, COOC indices, a
    cached single-source workspace)."""
    if which == "warm" and r.get("mem_warm_peak_bytes"):
        return max(0, int(r["mem_warm_peak_bytes"]) - int(r.get("mem_warm_base_bytes") or 0))
    peak = r.get("mem_peak_bytes")
    if not peak:
        return None
    return max(0, int(peak) - int(r.get("mem_base_bytes") or 0))


def free_gpu_memory() -> None:
    """Release CuPy's cached blocks (no-op without CuPy)."""
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    except Exception:  # noqa: BLE001
        pass


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001
        return False


def slug(name: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown"


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for mod in ("numpy", "scipy", "numba", "networkx", "cupy", "networkit", "igraph", "matplotlib"):
        try:
            m = __import__(mod)
            out[mod] = getattr(m, "__version__", "?")
        except Exception:  # noqa: BLE001
            out[mod] = None
    try:
        import spla  # type: ignore

        out["spla"] = getattr(spla, "__version__", "unversioned")
    except Exception:  # noqa: BLE001
        out["spla"] = None
    return out


def device_info(gpu: bool) -> dict:
    """Facts about the device the run measures (GPU 0, or the host CPU)."""
    info: dict = {"kind": "gpu" if gpu else "cpu", "host_cpus": os.cpu_count(),
                  "platform": platform.platform(), "versions": _versions()}
    if gpu:
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        free, total = cupy.cuda.runtime.memGetInfo()
        info.update(
            name=name,
            memory_total_bytes=int(total),
            memory_free_bytes=int(free),
            multiprocessors=int(props.get("multiProcessorCount", 0)),
            compute_capability=f"{props.get('major', '?')}.{props.get('minor', '?')}",
            l2_cache_bytes=int(props.get("l2CacheSize", 0)),
            cuda_runtime=int(cupy.cuda.runtime.runtimeGetVersion()),
            cuda_driver=int(cupy.cuda.runtime.driverGetVersion()),
        )
    else:
        name = platform.processor() or platform.machine() or "cpu"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        name = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        info["name"] = f"cpu {name}"
        try:
            info["memory_total_bytes"] = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        except (ValueError, OSError, AttributeError):
            pass
    info["slug"] = slug(info["name"])
    return info


def copy_bandwidth(nbytes: int = 1 << 30, repeat: int = 10) -> dict:
    """Device-to-device copy bandwidth, counting bytes read plus bytes written.

    Copies a ``nbytes`` buffer with ``cudaMemcpy`` (device to device) and with an
    elementwise CuPy kernel; reports the better of the two as ``GBps`` (1e9 B/s),
    i.e. the practical memory-bandwidth ceiling a streaming kernel can reach.
    The buffer shrinks to a quarter of free memory if needed.
    """
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    nbytes = int(min(nbytes, free // 4)) // 16 * 16
    a = cupy.ones(nbytes // 4, dtype=cupy.float32)
    b = cupy.empty_like(a)
    memcpy = gpu_time(lambda: b.data.copy_from_device_async(a.data, a.nbytes), 2, repeat)
    kernel = gpu_time(lambda: cupy.copyto(b, a), 2, repeat)
    moved = 2 * a.nbytes
    res = {
        "bytes": int(a.nbytes),
        "memcpy_ms": memcpy["median_ms"],
        "memcpy_GBps": moved / (memcpy["median_ms"] * 1e-3) / 1e9,
        "kernel_ms": kernel["median_ms"],
        "kernel_GBps": moved / (kernel["median_ms"] * 1e-3) / 1e9,
    }
    res["GBps"] = max(res["memcpy_GBps"], res["kernel_GBps"])
    a = b = None  # noqa: F841 - release before emptying the pool
    free_gpu_memory()
    return res


#: each thread of _RANDOM_ACCESS walks its own xorshift sequence of indices into the array; mode 0
#: lowers a[j] with atomicMin, its result unused (the reduction a vertex's lowering needs at least),
#: mode 1 reads a[j] at the L2 (ld.global.cg), summed so that the loads stay
_RANDOM_ACCESS = r"""
extern "C" __global__ void spla_random_access(unsigned long long* a, unsigned long long size, int per, int mode,
                                              unsigned long long* sink)
{
    unsigned long long x = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) * 0x9E3779B97F4A7C15ull + 1ull;
    unsigned long long acc = 0;
    for (int i = 0; i < per; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const unsigned long long j = x % size;
        if (mode == 0) atomicMin(a + j, x >> 20);
        else acc += __ldcg(a + j);
    }
    if (acc == 7ull) sink[0] = acc;
}
"""


def l2_random_access(nbytes: int = 32 << 20, repeat: int = 5) -> dict:
    """Random 8-byte atomicMin and load rates (operations / s) over an array that the L2 cache holds.

    Eight resident blocks an SM of 256 threads, each thread 256 operations at indices from its own
    xorshift sequence; the median of ``repeat`` timed launches.  Returns ``{"bytes", "atomic_per_s",
    "load_per_s"}``: the rates a kernel bound by scattered accesses to L2-resident data cannot pass.
    """
    import cupy

    words = int(nbytes) // 8
    a = cupy.full(words, 2 ** 63, dtype=cupy.uint64)
    sink = cupy.zeros(1, dtype=cupy.uint64)
    fn = cupy.RawKernel(_RANDOM_ACCESS, "spla_random_access")
    grid, block, per = 8 * cupy.cuda.Device().attributes["MultiProcessorCount"], 256, 256
    res = {"bytes": words * 8}
    for key, mode in (("atomic_per_s", 0), ("load_per_s", 1)):
        t = gpu_time(lambda mode=mode: fn((grid,), (block,), (a, cupy.uint64(words), cupy.int32(per),
                                                              cupy.int32(mode), sink)), 2, repeat)
        res[key] = grid * block * per / (t["median_ms"] * 1e-3)
    a = sink = None  # noqa: F841 - release before emptying the pool
    free_gpu_memory()
    return res


def cpu_copy_bandwidth(nbytes: int = 1 << 28, repeat: int = 5) -> dict:
    """Host memory copy bandwidth (read + written bytes / s) with NumPy."""
    import numpy as np

    a = np.ones(nbytes // 8)
    b = np.empty_like(a)
    t = cpu_time(lambda: np.copyto(b, a), 1, repeat)
    return {"bytes": int(a.nbytes), "kernel_ms": t["median_ms"],
            "GBps": 2 * a.nbytes / (t["median_ms"] * 1e-3) / 1e9}
