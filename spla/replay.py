"""Record a step of device work once and replay it: CUDA graphs on the GPU, a plain call on the CPU.

An algorithm that loops over BFS levels issues the same handful of engine calls per level
(a masked product, a reduction, a fused update).  On the GPU each call's Python and CuPy
dispatch often takes longer than its kernel runs; a graph of a few thousand vertices per
level is then bound by the host.  :class:`Replay` removes that cost:

    step = spla.Replay(level_step, device=A.device)   # level_step(): in-place work, no host reads
    for d in ...:
        step()                                        # 1st call: eager; 2nd: recorded; then replayed

On "gpu:N" the first call runs ``level_step`` eagerly (it compiles kernels and fills the
lazy caches of the matrices it touches, e.g. the kernel choice); the second records the
device work it issues into a CUDA graph (``cudaStreamBeginCapture`` on a private stream)
and launches the graph; every later call only launches the graph (one call of host work).
On "cpu" every call runs ``level_step``: same results, nothing recorded.

Rules for a step (what the graph can replay):

* it takes no arguments and returns nothing: it reads and writes arrays it closes over,
  **in place** (``xp.copyto(state, new)``, ``out=``); arrays it creates are temporaries;
* it never needs a value on the host (no ``int(x)``, ``.get()``, ``nonzero``): read
  results after the call, from the state arrays;
* whatever it depends on (matrices, semiring, kernel, shapes) is fixed for its lifetime;
  scalars that change between calls live in device arrays the step updates itself.

Temporaries allocated while recording come from a private memory pool that the
:class:`Replay` keeps, so no other array is ever placed where the graph writes.  A step
that cannot be recorded (it synchronises, or CuPy refuses) falls back to eager calls, with
a DEBUG log line saying why.  In that second call the step's Python code runs twice: once
under the failed capture, whose device work is discarded, then eagerly; so a step keeps no
host-side state of its own (a counter, a list it appends to), or it counts that call twice.
"""

from __future__ import annotations

import logging
import re
import weakref

from . import device as _dev

log = logging.getLogger("spla")

_live = weakref.WeakSet()


def recorded_bytes() -> int:
    """Device bytes held by the private memory pools of the live recorded steps (their
    graphs' temporaries), which CuPy's default pool does not count.  Each pool is read on its
    step's GPU (a CuPy pool reports the current device's part only)."""
    total = 0
    for r in list(_live):
        if r._pool is not None:
            with _dev.activate(r.device):
                total += int(r._pool.total_bytes())
    return total


class Replay:
    """A zero-argument in-place step, replayed as a CUDA graph on the GPU (see the module docstring).

    Parameters
    ----------
    step : callable() -> None
    device : "cpu" or "gpu:N" (a Matrix's ``device``)
    name : str, for log lines
    """

    def __init__(self, step, device: str, name: str = "step"):
        if not callable(step):
            raise TypeError(f"spla.Replay needs a callable step (a function of no arguments), got "
                            f"{type(step).__name__}")
        if not isinstance(device, str) or not (device == "cpu" or re.fullmatch(r"gpu:\d+", device)):
            raise ValueError(f"spla.Replay: device must be 'cpu' or 'gpu:N' (a Matrix's .device), got {device!r}")
        self.step = step
        self.device = device
        self.name = name
        self.calls = 0
        self.mode = "eager" if not _dev.is_gpu(device) else "warm-up"
        self._graph = None
        self._pool = None
        self._stream = None

    def __call__(self) -> None:
        self.calls += 1
        with _dev.activate(self.device):  # the step's GPU, whichever is current
            if self.mode == "eager" or self.mode == "warm-up":
                self.step()
                if self.mode == "warm-up":
                    self.mode = "record"
                return
            cp = _dev.cupy_module()
            if self.mode == "record":
                self._record(cp)
                if self.mode != "graph":  # recording failed: the step ran eagerly instead
                    return
            self._graph.launch(stream=cp.cuda.get_current_stream())

    def _record(self, cp) -> None:
        pool = cp.cuda.MemoryPool()
        stream = cp.cuda.Stream(non_blocking=True)
        graph = None
        try:
            with stream, cp.cuda.using_allocator(pool.malloc):
                stream.begin_capture()
                try:
                    self.step()
                finally:
                    graph = stream.end_capture()
        except Exception as exc:  # a host synchronisation or an unsupported call inside the step
            log.debug("spla.Replay %s: cannot record (%s: %s); running it eagerly", self.name,
                      type(exc).__name__, exc)
            self.mode = "eager"
            self._graph = None
            cp.cuda.get_current_stream().synchronize()
            self.step()
            return
        self._graph, self._pool, self._stream = graph, pool, stream
        self.mode = "graph"
        _live.add(self)
        log.debug("spla.Replay %s: recorded a CUDA graph", self.name)
