"""The GPU backend: semiring SpMV kernels (TurboBC's scCSC, veCSC, scCOOC, and push) through CuPy.

What ``spla.backends.for_device`` callers use (spla.ops, spla.bits, spla.frontier, after validation):

    vxm(u, A, semiring, mask, complement, accum, out, replace, kernel, swap=False)
    mxm(A, B, semiring, dtype, mask_keys, complement) -> (keys, values)
    supports(kernel, semiring, dtype) -> (bool, reason)
    popcount(X), weighted_rowsum(X, weights)
    frontier_push(...), frontier_pull(...)
    resident_threads(device)

The modules:

* ``compile``: C types, functors, NVRTC name expressions, CuPy module loading;
* ``launch``: grids, the device's resident threads, lanes per column, shared launch steps;
* ``layouts``: the long-column split, the row kernel's items and order (cached on the matrix);
* ``windows``: k-block products as windows on tensor cores;
* ``tiles``: masked one-vector scCSC products as warp tiles;
* ``products``: ``vxm`` and its table of variants;
* ``spgemm``: ``mxm``, the dot-product SpGEMM of ``spla/kernels/spgemm.cuh``;
* ``bits``, ``frontier``: bit words and level-structured sparse blocks;
* ``sssp``: weighted shortest paths and Brandes sums of blocks of sources (``spla/kernels/sssp.cuh``),
  imported by ``spla.paths`` for a GPU matrix;
* ``selection``: the kernel choice (``spla.choose_kernel``) and the scale-free metric.

Everything up to a kernel launch is plain Python/NumPy: this package imports without CuPy and loads
it on first use (the kernel choice and ``tests/test_kernels_compile.py`` run on machines with no GPU).
``docs/kernels.md`` gives the thread mappings and the bytes moved per arc.
"""

from __future__ import annotations

from ..names import KERNELS
from .bits import popcount, weighted_rowsum
from .compile import supports
from .frontier import frontier_pull, frontier_push
from .launch import resident_threads
from .products import vxm
from .spgemm import mxm

__all__ = ["KERNELS", "supports", "vxm", "mxm", "popcount", "weighted_rowsum", "frontier_push", "frontier_pull",
           "resident_threads"]
