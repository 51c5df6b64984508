"""The device memory each measure needs: what ``spla info`` estimates, and the least that ``spla
centrality`` checks against the memory available before computing."""

from __future__ import annotations

import math

import spla
from spla.device import is_gpu
from spla.memory import human_bytes

__all__ = ["estimate_device_memory", "human_bytes", "MIN_BYTES_PER_VERTEX", "require_measures_memory"]

#: bytes per vertex each measure certainly allocates on its device, whatever its batch: the (n,)
#: vectors of its smallest unit of work and of its result (a lower bound, so that no run that fits is
#: refused; :func:`estimate_device_memory` is what a comfortable run uses).  bc: its accumulator and
#: result; closeness, harmonic, distance-sum: one 64-source word per vertex, the block's distances and
#: the two accumulators; daccer: the word, the degrees and the volumes; pagerank: five float64 vectors;
#: degree: the out-, in- and loop counts.
MIN_BYTES_PER_VERTEX = {"bc": 16, "closeness": 32, "harmonic": 32, "distance-sum": 32, "daccer": 32,
                        "pagerank": 40, "degree": 24}


def require_measures_memory(measures, n: int, device: str, what: str, doing: str | None = None) -> None:
    """Refuse (spla.InsufficientMemory), before computing, ``measures`` on ``n`` vertices when the work
    of the largest one (on ``device``) and the table of results (on the host: a float64 column per
    measure and the vertices reached of distance-sum) need more memory than is available.  The
    message reads "{what}: {doing} on {n} vertices needs ..." (``doing``: the measures' names)."""
    work = n * max((MIN_BYTES_PER_VERTEX.get(m, 8) for m in measures), default=0)
    table = 8 * n * (len(measures) + ("distance-sum" in measures))
    remedy = ("compute fewer measures (--measures), use a machine with more memory, or check the graph's size "
              "(the vertices a Matrix Market size line or a METIS header declares all count)")
    what = f"{what}: {doing or ', '.join(measures)} on {n:,} vertices"
    if is_gpu(device):
        spla.memory.require(work, device, what=what, remedy=remedy)
        spla.memory.require(table, "cpu", what=f"{what} (the table of results)", remedy=remedy)
    else:
        spla.memory.require(work + table, "cpu", what=what, remedy=remedy)


def estimate_device_memory(n: int, nnz: int, *, directed: bool, weighted: bool = False, radius: int = 2,
                           batch: int | None = None, search_threads: int | None = None) -> dict:
    """Rough device memory each measure needs: ``{measure: (bytes, explanation)}``.

    n vertices, nnz stored arcs (without self-loops; an undirected edge is 2 arcs).
    The matrix takes n + 1 + nnz index words in CSC (4 bytes each while they fit in int32,
    else 8), twice for a directed graph whose algorithms also need the transpose.  On
    top of it:

    * bc: 64 bytes per vertex per source of a batch (sigma, delta, frontier, levels and
      temporaries: ``spla.algorithms.betweenness_dense.BYTES_PER_VERTEX_SOURCE``); shown for a batch
      of ``batch`` sources (default min(n, 256)).  The real batch adapts to free memory,
      so this is what a comfortable run uses; the minimum is one source.  With ``search_threads``
      (the CPU's compiled searches, ``spla.paths``): per thread 52 bytes per vertex and 4 per arc
      (``spla.algorithms.betweenness.QUEUE_BYTES_PER_VERTEX``), and the float64 accumulator.
    * closeness, harmonic, distance-sum, daccer (radius >= 2): a bit-parallel BFS over
      blocks of 64 W sources, 37 bytes per vertex per 64-bit word
      (``spla.algorithms.distances.BYTES_PER_WORD_ROW``), shown for W = min(ceil(n/64), 16),
      plus two float64 accumulators per vertex.
    * pagerank: the values (8 bytes per arc when weighted) and five float64 vectors.
    * degree: three int64 vectors.
    """
    idx = 4 if max(n + 1, nnz) < 2**31 - 1 else 8
    csc = (n + 1 + nnz) * idx
    matrix = csc * (2 if directed else 1)
    mat_txt = f"matrix {human_bytes(matrix)}" + (" incl. transpose" if directed else "")
    k = batch if batch is not None else max(1, min(n, 256))
    words = max(1, min(math.ceil(n / 64), 16))
    bfs = 37 * n * words + 2 * 8 * n
    if search_threads:
        work = search_threads * (52 * n + 4 * nnz) + 8 * n
        bc = (matrix + work, f"{mat_txt} + {human_bytes(work)} for compiled searches on {search_threads} "
                             f"thread{'s' if search_threads != 1 else ''}")
    else:
        bc = (matrix + 64 * n * k, f"{mat_txt} + {human_bytes(64 * n * k)} for a batch of {k} sources")
    out = {
        "bc": bc,
        "closeness": (matrix + bfs, f"{mat_txt} + {human_bytes(bfs)} for blocks of {64 * words} sources"),
        "harmonic": (matrix + bfs, f"{mat_txt} + {human_bytes(bfs)} for blocks of {64 * words} sources"),
        "distance-sum": (matrix + bfs, f"{mat_txt} + {human_bytes(bfs)} for blocks of {64 * words} sources"),
    }
    if radius >= 2:
        out["daccer"] = (matrix + bfs + 8 * n, f"{mat_txt} + {human_bytes(bfs + 8 * n)} for blocks of "
                                               f"{64 * words} vertices (radius {radius})")
    else:
        out["daccer"] = (matrix + 3 * 8 * n, f"{mat_txt} + {human_bytes(3 * 8 * n)} (radius {radius})")
    vals = 8 * nnz if weighted else 0
    out["pagerank"] = (matrix + vals + 5 * 8 * n, f"{mat_txt} + " + (f"values {human_bytes(vals)} + " if vals else "")
                       + f"{human_bytes(5 * 8 * n)} vectors")
    out["degree"] = (csc + 3 * 8 * n, f"matrix {human_bytes(csc)} + {human_bytes(3 * 8 * n)} vectors")
    return out
