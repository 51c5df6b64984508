"""spla: GraphBLAS-style sparse linear algebra for graph centralities, on the GPU (CuPy) or the CPU (NumPy/SciPy).

    >>> import numpy, spla
    >>> A = spla.Matrix.from_edges([0, 1], [1, 2], device="cpu")      # undirected path 0-1-2
    >>> spla.vxm(numpy.array([1.0, 0, 0]), A, "plus_times")            # y = u +.* A
    array([0., 1., 0.])

Layers: ``spla.algorithms`` -> this API (Matrix, semirings, vxm/mxv, mxm and the matrix operations of
``spla.matrixops`` with the masks of ``spla.masks``, bits, frontier, paths, tuning, the kernel choice)
-> backends (``spla.backends.cpu``: NumPy/SciPy; ``spla.backends.gpu``: CuPy kernels, and in
``spla.backends.gpu.selection`` the kernel choice they serve).
"""

from . import bits, frontier, memory, paths, semirings, tuning, weights
from .device import gpu_available
from .elementwise import fuse
from .errors import (
    ClusterError,
    ConvergenceError,
    DeviceMemoryError,
    DeviceMismatch,
    DimensionMismatch,
    DomainMismatch,
    InsufficientMemory,
    InvalidGraph,
    InvalidOperator,
    KernelUnavailable,
    NoGPUError,
    SplaError,
    UnknownNameError,
)
from .matrix import Matrix
from .backends.gpu.selection import choose_kernel, direction_cost, may_push, scale_free_metric
from .backends.names import KERNELS, normalize_kernel
from .ops import mxv, vxm
from .spgemm import mxm
from .matrixops import apply, assign, ewise_add, ewise_mult, extract, kron, reduce_cols, reduce_rows, reduce_scalar
from .entries import apply_arcs, select
from .replay import Replay

__version__ = "0.1.0"

__all__ = [
    "Matrix", "vxm", "mxv", "mxm", "semirings", "bits", "frontier", "KERNELS", "fuse", "Replay", "choose_kernel",
    "scale_free_metric", "normalize_kernel", "direction_cost", "may_push", "tuning", "gpu_available",
    "select", "apply_arcs", "memory", "paths", "apply", "assign", "ewise_add", "ewise_mult", "extract", "kron",
    "reduce_rows", "reduce_cols", "reduce_scalar", "weights",
    "SplaError", "DimensionMismatch", "DomainMismatch", "DeviceMismatch", "UnknownNameError",
    "KernelUnavailable", "NoGPUError", "DeviceMemoryError", "InsufficientMemory", "InvalidGraph", "InvalidOperator", "ConvergenceError",
    "ClusterError",
]
