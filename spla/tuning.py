"""spla.tuning: every tunable constant of the engine and its algorithms, as one frozen record.

A tunable is a value that changes how fast an answer comes, never the answer: a kernel variant's
switch, a split length, a rule's threshold.  They all live in :class:`Tuning`, one field each,
documented where it is declared: what it controls, and where the decision behind its value is
written down (``docs/decisions/tuning.md``, and the probe under ``benchmarks/probes/`` that
reproduces the measurement).

Code reads the values in force with :func:`current`; nothing assigns them.  A benchmark, a probe or
a test that wants another value says so for a block of code::

    with spla.tuning.override(sccsc_tiles=False, long=None):
        y = spla.vxm(u, A, "plus_times")

The override is checked at the door (an unknown name or a value its kernel cannot take raises
before anything runs), holds for the current thread or task (a ``contextvars`` variable), and is
undone when the block ends, also by an exception.  Caches derived from a tunable (a long-column
split, a kernel choice) carry the value in their key, so a product under an override never reuses
what another setting built.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import numbers
from dataclasses import dataclass, field

__all__ = ["Tuning", "current", "override", "DEFAULT"]

_POW2_LANES = (1, 2, 4, 8, 16, 32)


# --------------------------------------------------------------------------- value checks
def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _one_of(*allowed):
    def check(x):
        return any(x is a or (type(x) is type(a) and x == a) for a in allowed)
    check.says = "one of " + ", ".join(map(repr, allowed))
    return check


def _either(*checks):
    def check(x):
        return any(c(x) for c in checks)
    check.says = " or ".join(c.says for c in checks)
    return check


def _positive_int(x):
    return _is_int(x) and x > 0


_positive_int.says = "a positive int"


def _non_negative_int(x):
    return _is_int(x) and x >= 0


_non_negative_int.says = "an int >= 0"


def _non_negative(x):
    return _is_real(x) and x >= 0


_non_negative.says = "a number >= 0"


def _positive(x):
    return _is_real(x) and x > 0


_positive.says = "a number > 0"


def _multiple_of_16(x):
    return _is_int(x) and x >= 16 and x % 16 == 0


_multiple_of_16.says = "a positive multiple of 16"


def _fraction(x):
    return _is_real(x) and 0 <= x <= 1


_fraction.says = "a number in [0, 1]"


def _percentile(x):
    return _is_real(x) and 0 <= x <= 100


_percentile.says = "a number in [0, 100]"


def _segs(x):
    return isinstance(x, tuple) and len(x) > 0 and all(_multiple_of_16(v) for v in x)


_segs.says = "a non-empty tuple of positive multiples of 16"

def _is_int_says(says):
    def check(x):
        return _is_int(x)
    check.says = says
    return check


_AUTO_BOOL = _one_of("auto", True, False)
_BOOL = _one_of(True, False)


def _tunable(default, check, controls, decision=None):
    """A field of :class:`Tuning`: its default, the check its values pass, what it controls and the
    anchor of the decision behind its value in docs/decisions/tuning.md (default: the field's name)."""
    return field(default=default, metadata={"check": check, "controls": controls, "decision": decision})


# --------------------------------------------------------------------------- the record
@dataclass(frozen=True)
class Tuning:
    """The tunables in force.  Each field's ``controls`` metadata says what it changes; its decision
    (why this value) is under the field's name in docs/decisions/tuning.md."""

    # ---- the GPU backend: launch geometry
    max_blocks: int = _tunable(1 << 20, _positive_int,
                               "grid cap of every launch, in blocks of 256 threads; the kernels loop grid-stride "
                               "beyond it")

    # ---- veCSC, one vector
    vecsc_group: int | None = _tunable(None, _either(_one_of(None), _one_of(2, 4, 8, 16, 32)),
                                       "lanes per column of veCSC (and per input of push) with one vector; None: "
                                       "chosen from the mean column length")
    vecsc_lane_entries: int = _tunable(32, _positive_int,
                                       "entries of a typical column per veCSC lane when the group size is chosen")
    vecsc_fill_threads: int = _tunable(1 << 18, _positive_int,
                                       "threads a device holds at once, where none is named, for veCSC's group "
                                       "doubling")
    long: int | None = _tunable(4096, _either(_one_of(None), _is_int_says("an int (<= 0 or None disables the split)")),
                                "veCSC long-column split: columns above long * G / 32 entries (G lanes per column) "
                                "are cut into chunks of `chunk` entries, a warp each; None or <= 0: no split")
    chunk: int = _tunable(2048, _positive_int, "entries per chunk of veCSC's long-column split (a warp each)")
    vecsc_vec4: bool = _tunable(True, _BOOL, "veCSC with int32 indices reads rowidx with 16-byte loads")

    # ---- push, one vector
    push_long: int | None = _tunable(1024, _either(_one_of(None),
                                                   _is_int_says("an int (<= 0 or None disables the split)")),
                                     "push's long-column split: inputs of more than push_long * G / 32 out-arcs are "
                                     "cut into chunks of `push_chunk` entries; None or <= 0: no split")
    push_chunk: int = _tunable(512, _positive_int, "entries per chunk of push's long-column split (a warp each)")

    # ---- masked products, one vector: worklists
    mask_worklist: object = _tunable("auto", _AUTO_BOOL,
                                     "masked scCSC/veCSC products (push: any) first compact the computed columns "
                                     "(push: the inputs that are not the identity) into a worklist; 'auto': by "
                                     "worklist_min_waves")
    worklist_min_waves: float = _tunable(6, _non_negative, "'auto' worklist from this many full waves of the device")
    worklist_skip_empty: float = _tunable(0.01, _fraction,
                                          "the worklist leaves out empty columns above this fraction of empty columns")

    # ---- masked scCSC: warp tiles
    sccsc_tiles: object = _tunable("auto", _AUTO_BOOL,
                                   "masked scCSC products with one vector run as warp tiles; 'auto': on graphs of "
                                   "worklist_min_waves waves of columns or of a column longer than tile_long")
    tile_r: int = _tunable(4, _one_of(1, 2, 4, 8), "32-column groups per warp tile (SPLA_TILE_R = 8 is the largest)")
    tile_min_warps: float = _tunable(8, _non_negative, "below this many tiles per SM, tiles narrow and blocks shrink")
    tile_group: object = _tunable("auto", _either(_one_of("auto"), _one_of(*_POW2_LANES)),
                                  "lanes per kept column in a tile; 'auto': from the mean short column "
                                  "(tile_lane_entries), at most 8")
    tile_lane_entries: int = _tunable(4, _positive_int,
                                      "entries of the mean short column per tile lane ('auto' tile_group)")
    tile_long: int = _tunable(32, _positive_int, "tile columns above this many entries are cut into chunks")
    tile_chunk: int = _tunable(256, _positive_int, "entries per chunk of the tiles' long columns (static and fused)")
    chunks_per_warp: int = _tunable(8, _positive_int, "chunks whose masks a warp tests at once")
    tile_chunks: object = _tunable("auto", _one_of("auto", "fused", "listed", "static"), "how the tiles' long columns are reduced")
    tile_fused_max_chunks: float = _tunable(0.1, _non_negative, "'auto' tile_chunks: listed above this many chunks per column")
    listed_chunk: int = _tunable(512, _positive_int, "entries per listed chunk")

    # ---- veCSC, k-blocks: row pieces and work items
    vecsc_rows: bool = _tunable(True, _BOOL, "veCSC with k > 1 reads rows of u in 16-byte pieces where aligned")
    rows_long: int = _tunable(128, _positive_int, "row kernel: columns above this many entries make every column work items")
    rows_chunk: int = _tunable(64, _positive_int, "row kernel: entries per work item")
    rows_heavy_chunk: int = _tunable(256, _positive_int, "row kernel: entries per work item where long columns dominate")
    rows_heavy_share: float = _tunable(0.5, _non_negative,
                                       "share of entries in long columns that makes items heavy (above 1: never)")
    rows_heavy_min_chunks: float = _tunable(2.0, _non_negative, "heavy items only with this many items per resident group")
    rows_order: object = _tunable("auto", _AUTO_BOOL, "row kernel walks columns longest first")
    rows_order_min_cv: float = _tunable(1.5, _non_negative, "'auto' rows_order above this coefficient of variation")

    # ---- veCSC, k-blocks: windows on tensor cores
    vecsc_windows: object = _tunable("auto", _AUTO_BOOL, "float32 plus k-block products of a pattern run as windows")
    windows_min_reuse: float = _tunable(2.0, _non_negative, "'auto' windows: entries per distinct row of a window")
    windows_min_rows: float = _tunable(512, _non_negative, "'auto' windows: distinct rows per window")
    windows_sample: int = _tunable(64, _positive_int, "windows sampled to decide 'auto'")
    windows_seg: object = _tunable("auto", _either(_one_of("auto"), _multiple_of_16), "slots per windows work item")
    windows_segs: tuple = _tunable((4096, 2048, 1024, 512, 256), _segs, "'auto' windows_seg: candidate item lengths, longest first")
    windows_min_waves: float = _tunable(2.0, _non_negative, "'auto' windows_seg: waves of resident warps the items must fill")

    # ---- level-structured sparse blocks (spla.frontier)
    frontier_group: int | None = _tunable(None, _either(_one_of(None), _one_of(*_POW2_LANES)),
                                          "lanes per frontier entry; None: from the mean out-degree")

    # ---- weighted shortest paths on the GPU (spla.backends.gpu.sssp)
    sssp_delta: float | None = _tunable(16.0, _either(_one_of(None), _positive),
                                        "bucket width of the GPU's weighted distance search (delta-stepping), in "
                                        "mean arc lengths; None: Bellman-Ford with an active-vertex frontier")
    sssp_max_batch: int = _tunable(4096, _positive_int, "most sources in a block of the GPU's weighted searches")
    sssp_rounds_per_read: int = _tunable(8, _positive_int,
                                         "rounds of the GPU's weighted searches recorded as one CUDA graph")
    sssp_max_replays: int = _tunable(8, _positive_int,
                                     "most replays of a weighted search's recorded rounds between two reads of its "
                                     "state (1, 2, 4, ... up to this)")
    sssp_small_bytes: int = _tunable(114688, _non_negative_int,
                                     "most shared memory one source's weighted search may take for the GPU to run "
                                     "it in one thread block (8 bytes and 2 bits a vertex for distances, 26 "
                                     "bytes for the dependencies' later phases); 0: never")
    sssp_rows: object = _tunable("auto", _AUTO_BOOL,
                                 "where one source's weighted search does not fit a thread block, the GPU's "
                                 "distances run a thread block per source, the distances in global memory and a "
                                 "work queue in shared memory: 'auto' where one lane walks an entry's arcs "
                                 "(sssp_lanes_percentile's rule gives 1: road-like graphs), True always, False "
                                 "never (the rounds over entry lists)")
    sssp_rows_delta: float | None = _tunable(2.0, _either(_one_of(None), _positive),
                                             "bucket width of the row path's searches (sssp_rows), in mean arc "
                                             "lengths; None: Bellman-Ford")
    sssp_lanes_percentile: float = _tunable(99.0, _percentile,
                                            "the out-degree percentile whose frontier_group rule sets the lanes per "
                                            "listed entry of the GPU's weighted searches")

    # ---- kernel choice (the scale-free metric and its exceptions)
    vector_scf: float = _tunable(1000.0, _non_negative, "scale-free metric from which one-vector products use veCSC")
    cooc_skew: float = _tunable(64.0, _non_negative, "longest over mean column length from which hub graphs use scCOOC")
    block_k: int = _tunable(8, _positive_int, "k-blocks of at least this many columns use the block rules")
    rows_max_bytes: int = _tunable(512, _positive_int, "blocks of rows up to this many bytes go to veCSC's row pieces")
    push_cost: float = _tunable(2.0, _non_negative, "cost of one pushed arc, in pulled arcs")
    push_fixed_arcs: float = _tunable(1.5e6, _non_negative, "fixed cost of a push, in pulled arcs")
    sparse_pull: float = _tunable(0.5, _fraction, "a pull computing at most this fraction of the arcs is 'sparse'")
    unknown_tiles_waves: float = _tunable(40, _non_negative,
                                          "masks of unknown density get warp tiles on hub graphs of this many waves of arcs")
    cooc_small_waves: float = _tunable(4, _non_negative, "veCSC choices below this many waves of arcs go to scCOOC (0: never)")

    # ---- shortest-path dependencies on the CPU (spla.paths)
    paths_pull_scan: float = _tunable(0.5, _non_negative,
                                      "spla.paths pulls a BFS level into the unreached vertices when their in-arcs "
                                      "plus this many arcs per vertex (the scan for them) are fewer than the level's "
                                      "out-arcs")
    paths_parallel_min_arcs: int = _tunable(1 << 22, _positive_int,
                                            "spla.paths runs on the calling thread alone when its sources times the "
                                            "graph's arcs are fewer than this")
    sssp_parallel_min_arcs: int = _tunable(1 << 19, _positive_int,
                                           "spla.paths' weighted searches (a Dijkstra per source) run on the calling "
                                           "thread alone when their sources times the graph's arcs are fewer than this")

    # ---- algorithms: the CPU's compiled searches (spla.paths)
    paths_for_betweenness: bool = _tunable(True, _BOOL,
                                           "betweenness's frontier='auto' on the CPU runs spla.paths' per-source "
                                           "searches (where numba imports) instead of the NumPy block paths")
    paths_for_distances: bool = _tunable(True, _BOOL,
                                         "closeness, harmonic and sum of distances on the CPU run spla.paths' "
                                         "per-source searches (where numba imports) instead of the bit-parallel BFS")

    # ---- algorithms: betweenness
    sparse_max_batch: int = _tunable(512, _positive_int, "largest source block of the sparse-frontier betweenness")
    sparse_reach_ratio: float = _tunable(6.0, _non_negative, "frontier='auto' is sparse when n * depth > this * reached arcs")
    reach_sample: int = _tunable(32, _positive_int, "sources sampled by frontier='auto'")
    levels_per_read: int = _tunable(8, _positive_int, "sparse frontiers: BFS levels enqueued per read of their counts")
    speculative_max_depth: int = _tunable(1024, _positive_int, "deepest source a recorded single-source plan replays")
    speculative_check_every: int = _tunable(8, _positive_int, "every n-th plannable source is checked against its own choices")
    speculative_waste: float = _tunable(0.5, _non_negative, "a plan misses when it costs more than 1 + this times the own choices")
    speculative_misses: int = _tunable(2, _positive_int, "misses after which a matrix stops using plans")
    single_source_cache_bytes: int = _tunable(64 << 20, _positive_int, "single-source workspaces up to this size stay cached")

    # ---- algorithms: CPU blocks and device memory
    cpu_block_bytes: int = _tunable(64 << 20, _positive_int, "bytes of a CPU block of sources (sized for the cache)")
    memory_fraction: float = _tunable(0.8, _fraction, "fraction of the free device memory a block may use")

    # ---- algorithms: all-sources measures over a Dask cluster (spla.algorithms.cluster)
    cluster_chunks_per_worker: int = _tunable(8, _positive_int,
                                              "full source chunks per Dask worker of a client= call (load "
                                              "balance, and what a lost worker costs), before the shrinking tail; "
                                              "each chunk at least cluster_min_chunk sources")
    cluster_tail_shrink: int = _tunable(8, _positive_int,
                                        "the last chunks of a client= call shrink down to a full chunk over this, "
                                        "so that the workers finish together")
    cluster_min_chunk: int = _tunable(256, _positive_int,
                                      "fewest sources of a chunk of a client= call (rounded up to whole 64-source "
                                      "words)")

    # ---- the networkx backend
    networkx_min_edges: int = _tunable(150, _is_int_says("an int (0 or less: every graph)"),
                                       "the networkx backend's should_run declines graphs with fewer edges, where "
                                       "converting the graph costs more than networkx's own computation")

    # ---- entry-wise operations and file reading
    arc_chunk_elements: int = _tunable(1 << 24, _positive_int,
                                       "spla.apply_arcs: entries per chunk times the width fn gathers (bounds temporaries)")
    string_matrix_bytes: int = _tunable(500_000_000, _non_negative,
                                        "labels over 64 bytes are gathered as a fixed-width byte matrix up to this size")

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            check = f.metadata["check"]
            if not check(value):
                raise ValueError(f"spla.tuning: {f.name} must be {check.says}, got {value!r}")

    @classmethod
    def describe(cls) -> dict:
        """{field name: what it controls}, for documentation and ``spla info``-style listings."""
        return {f.name: f.metadata["controls"] for f in dataclasses.fields(cls)}


#: the tunables as shipped
DEFAULT = Tuning()
_current = contextvars.ContextVar("spla.tuning", default=DEFAULT)


#: ``current()``: the :class:`Tuning` in force in this thread or task.  The context variable's own
#: getter, so that a product reading it pays no Python call.
current = _current.get


@contextlib.contextmanager
def override(**changes):
    """Run a block with some tunables changed: ``with spla.tuning.override(long=None): ...``.

    Unknown names raise TypeError and values a field does not take raise ValueError, before the
    block runs; the previous values return when it ends.  Yields the :class:`Tuning` in force.
    """
    names = {f.name for f in dataclasses.fields(Tuning)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"spla.tuning.override: unknown tunable(s) {', '.join(unknown)}; "
                        f"the tunables are the fields of spla.tuning.Tuning")
    tuning = dataclasses.replace(current(), **changes)
    token = _current.set(tuning)
    try:
        yield tuning
    finally:
        _current.reset(token)
