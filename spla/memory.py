"""Device memory as an algorithm sizes its work by it: what is still available, and giving back cached blocks.

On a GPU, CuPy keeps freed blocks in a memory pool for reuse; they are available to the next
allocation though the driver counts them as used.  The CPU has no such pool and no device memory to
measure: there the caller chooses its own budget.
"""

from __future__ import annotations

from . import device as _dev

__all__ = ["available_bytes", "release"]


def available_bytes(device: str):
    """Bytes that allocations on ``device`` may still take: on a GPU, the driver's free memory plus the
    blocks cached in CuPy's pool on that GPU (whichever device is current); None on the CPU."""
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
