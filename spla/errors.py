"""Exceptions raised by spla.

Every error is raised at the door (argument checking happens before any work) and its
message says what was wrong, the offending value, and what to do instead.  Each class
also derives from the built-in exception a Python user would expect (ValueError,
TypeError, MemoryError), so ``except ValueError`` keeps working.
"""


class SplaError(Exception):
    """Base class of every exception spla raises on purpose."""


class DimensionMismatch(SplaError, ValueError):
    """Operand shapes do not agree (e.g. u has 5 rows but A has 4)."""


class DomainMismatch(SplaError, TypeError):
    """An operand's dtype is not one the operation or semiring accepts."""


class DeviceMismatch(SplaError, ValueError):
    """Operands live on different devices (NumPy array with a GPU matrix, ...)."""


class UnknownNameError(SplaError, ValueError):
    """An unknown semiring, binary operator, kernel, device or option name."""


class InvalidOperator(SplaError, ValueError):
    """A user-defined monoid, operator or semiring that breaks a rule of spla.semirings (a name taken
    by a built-in, a NumPy function of the wrong shape, a monoid law that a sampled value breaks)."""


class KernelUnavailable(SplaError, ValueError):
    """The requested kernel cannot run this semiring/dtype (no atomic or reduction for it)."""


class NoGPUError(SplaError, RuntimeError):
    """A GPU was requested but CuPy or a CUDA device is not available."""


class DeviceMemoryError(SplaError, MemoryError):
    """Even the smallest unit of work does not fit in a device's memory (the host's for "cpu")."""


class InsufficientMemory(DeviceMemoryError):
    """A size that a caller or a file announces (a matrix's n, a Matrix Market size line, a METIS
    header) needs more memory than the device has available: refused before anything is allocated
    (:func:`spla.memory.require`).

    The message names the size, the bytes needed, the bytes available and what to do; ``needed``
    (int) and ``available`` (int, or None where the available memory is unknown and an allocation
    failed) are the byte counts, ``device`` the device ("cpu" is the host's memory)."""

    def __init__(self, message, *, needed=None, available=None, device=None):
        super().__init__(message)
        self.needed = needed
        self.available = available
        self.device = device


class InvalidGraph(SplaError, ValueError):
    """A graph or matrix that cannot be used as asked (negative weights, NaN, non-square, ...)."""


class ClusterError(SplaError, RuntimeError):
    """A ``client=`` call's Dask cluster cannot run it: no workers, or workers without spla."""


class ConvergenceError(SplaError, RuntimeError):
    """An iterative algorithm did not converge within its iteration limit.

    ``iterations`` (int or None): how many iterations ran (networkx's
    ``PowerIterationFailedConvergence.num_iterations``); ``last_change`` (float or None): the
    convergence measure after the last one (PageRank: Σ|x - x_prev|)."""

    def __init__(self, message, *, iterations=None, last_change=None):
        super().__init__(message)
        self.iterations = iterations
        self.last_change = last_change
