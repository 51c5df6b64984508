"""Benchmark graphs: vectorised generators, the real graphs, and a named registry.

Every generator returns ``(src, dst, n, directed)``: two int64 NumPy arrays of equal
length holding one entry per edge (an undirected edge appears once, in either
orientation), the vertex count ``n`` and whether the graph is directed.  The caller
symmetrises an undirected graph with
``spla.Matrix.from_edges(src, dst, n=n, directed=False)``.

No generator loops in Python over edges or vertices: each is a handful of NumPy
array operations (the only Python loops run over bits of the vertex id, over the
``k/2`` ring offsets, or over Mycielski iterations), so the largest graphs of the
benchmark (Mycielski-17 with 50 M edges, Graph500 scale 21 with 33.5 M edges,
Barabasi-Albert with 2 M vertices) are made in seconds and cached as ``.npz``.

Generators
----------
- :func:`mycielski` -- the Mycielski graph M_k, built exactly (TurboBC's
  "mycielskiK" graphs; identical edge set to ``networkx.mycielski_graph(k)``).
- :func:`kronecker` -- Graph500 Kronecker (R-MAT) generator.
- :func:`watts_strogatz` -- ring lattice with random rewiring.
- :func:`barabasi_albert` -- preferential attachment (Batagelj-Brandes).
- :func:`grid_2d` -- rows x cols 4-neighbour grid.
- :func:`real` -- a real graph from ``shared/graphs`` through ``spla.io.read_graph``.

The registry :data:`GRAPHS` maps benchmark names (``"kron20"``, ``"myc15"``,
``"musae-facebook"``, ...) to :class:`GraphSpec` entries; :func:`load_edges` builds
or loads one with an on-disk cache.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

Edges = tuple  # (src: np.ndarray[int64], dst: np.ndarray[int64], n: int, directed: bool)

#: Bump when a generator's output changes, to invalidate cached ``.npz`` files.
CACHE_VERSION = 1


# --------------------------------------------------------------------------- Mycielski
def mycielski_counts(k: int) -> tuple[int, int]:
    """Return ``(vertices, undirected edges)`` of M_k without building it.

    M_2 = K_2 has 2 vertices and 1 edge; the Mycielskian of a graph with n vertices
    and e edges has 2n+1 vertices and 3e+n edges.  So M_k has 3*2^(k-2) - 1 vertices
    (k >= 2); M_15 has 24,575 vertices and 5,555,555 edges (11,111,110 stored
    entries once symmetrised).
    """
    if k < 1:
        raise ValueError(f"mycielski(k) needs k >= 1, got {k}")
    if k == 1:
        return 1, 0
    n, e = 2, 1
    for _ in range(k - 2):
        n, e = 2 * n + 1, 3 * e + n
    return n, e


def mycielski(k: int) -> Edges:
    """The Mycielski graph M_k, built exactly by iterating the Mycielskian.

    M_1 is a single vertex and M_2 = K_2.  From M_i with vertices v_0..v_{n-1} the
    next graph adds u_j = n + j (j < n) and w = 2n, and the edges
    v_a-v_b (kept), u_a-v_b and v_a-u_b for every old edge a-b (the u's copy the
    v's neighbourhoods), and u_j-w for every j.  The labelling is networkx's
    (``networkx.mycielski_graph(k)`` has exactly these edges).

    TurboBC's "mycielski12..17" are M_12..M_17 (3*2^(k-2)-1 vertices).
    """
    if k < 1:
        raise ValueError(f"mycielski(k) needs k >= 1, got {k}")
    if k == 1:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 1, False
    src = np.array([0], np.int64)
    dst = np.array([1], np.int64)
    n = 2
    for _ in range(k - 2):
        u = np.arange(n, 2 * n, dtype=np.int64)
        w = np.full(n, 2 * n, dtype=np.int64)
        # old edges (a, b), then (a, b+n), (a+n, b), then (u_j, w)
        src, dst = (np.concatenate([src, src, src + n, u]),
                    np.concatenate([dst, dst + n, dst, w]))
        n = 2 * n + 1
    return src, dst, n, False


# --------------------------------------------------------------------------- Kronecker
def kronecker(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
              c: float = 0.19, seed: int = 0, chunk: int = 1 << 22,
              threads: int | None = None) -> Edges:
    """Graph500 Kronecker (R-MAT) generator, as in the Graph500 reference code.

    ``2**scale`` vertices, ``edge_factor * 2**scale`` edges.  For every edge and every
    bit of the vertex id, one of the four quadrants is drawn with probabilities
    (a, b, c, 1-a-b-c): the row bit is 1 with probability 1-(a+b); given it, the
    column bit is 1 with probability c/(1-(a+b)) (row bit 1) or b/(a+b) (row bit 0).
    The vertex ids are then relabelled by a random permutation and the edge order
    shuffled (as the reference generator does).

    Self-loops and duplicate edges are *returned* as drawn, as the Graph500
    generator does; the benchmark's graph loader drops self-loops and
    ``Matrix.from_edges`` merges the duplicates (Graph500's kernels ignore both).

    Vectorised: edges are generated in chunks of ``chunk`` edges, each chunk with its
    own ``SeedSequence`` child, on a thread pool (NumPy's random fill and array
    arithmetic release the GIL), so the output depends on ``seed`` and ``chunk`` only,
    never on the number of threads.
    """
    if scale < 0 or scale > 40:
        raise ValueError(f"kronecker scale must be in [0, 40], got {scale}")
    if not (0 <= a and 0 <= b and 0 <= c and a + b + c <= 1):
        raise ValueError(f"kronecker probabilities must be >= 0 with a+b+c <= 1, got {a}, {b}, {c}")
    n = 1 << scale
    m = int(edge_factor) * n
    ab = a + b
    c_norm = c / (1.0 - ab) if ab < 1 else 0.0
    a_norm = a / ab if ab > 0 else 0.0
    root = np.random.SeedSequence(seed)
    nchunks = max(1, -(-m // chunk))
    children = root.spawn(nchunks + 1)
    src = np.empty(m, np.int64)
    dst = np.empty(m, np.int64)

    def work(i: int) -> None:
        lo, hi = i * chunk, min(m, (i + 1) * chunk)
        rng = np.random.default_rng(children[i])
        cnt = hi - lo
        ii = np.zeros(cnt, np.int64)
        jj = np.zeros(cnt, np.int64)
        for ib in range(scale):
            ii_bit = rng.random(cnt, dtype=np.float32) > ab
            thr = np.where(ii_bit, np.float32(c_norm), np.float32(a_norm))
            jj_bit = rng.random(cnt, dtype=np.float32) > thr
            ii |= ii_bit.astype(np.int64) << ib
            jj |= jj_bit.astype(np.int64) << ib
        src[lo:hi] = ii
        dst[lo:hi] = jj

    threads = threads or min(16, os.cpu_count() or 1)
    if nchunks == 1 or threads == 1:
        for i in range(nchunks):
            work(i)
    else:
        with ThreadPoolExecutor(threads) as ex:
            list(ex.map(work, range(nchunks)))
    rng = np.random.default_rng(children[-1])
    perm = rng.permutation(n).astype(np.int64)
    order = rng.permutation(m)
    src = perm[src[order]]
    dst = perm[dst[order]]
    return src, dst, n, False


# ----------------------------------------------------------------------- Watts-Strogatz
def watts_strogatz(n: int, k: int, p: float, seed: int = 0) -> Edges:
    """Watts-Strogatz small world: ring lattice of degree k, each edge rewired w.p. p.

    As ``networkx.watts_strogatz_graph``: vertex u is joined to u+1..u+k/2 (mod n);
    then each lattice edge (u, u+j) is, with probability p, replaced by (u, w) with w
    uniform among the vertices other than u that are not already u's neighbours.
    The rewiring is done for all edges at once instead of networkx's sequential
    sweep: a rewired edge that lands on an existing edge or on another rewired edge
    is redrawn (a few vectorised rounds), so the result has exactly n*k/2 distinct
    edges and no self-loops, and the same distribution of rewired edges up to the
    order of the sweep (networkx's random stream is not reproduced).
    """
    if k % 2 or k < 0 or k >= n:
        raise ValueError(f"watts_strogatz needs an even 0 <= k < n, got n={n}, k={k}")
    rng = np.random.default_rng(seed)
    half = k // 2
    u = np.tile(np.arange(n, dtype=np.int64), half)
    off = np.repeat(np.arange(1, half + 1, dtype=np.int64), n)
    v = (u + off) % n
    rewire = np.flatnonzero(rng.random(u.size) < p)
    is_rw = np.zeros(u.size, bool)
    is_rw[rewire] = True
    todo = rewire
    for _ in range(64):
        if todo.size == 0:
            break
        w = rng.integers(0, n - 1, size=todo.size, dtype=np.int64)
        w += w >= u[todo]  # uniform over the vertices other than u
        v[todo] = w
        # Lattice edges are pairwise distinct (k < n), so a group of equal edges holds
        # at most one lattice edge; sorting lattice first, every later copy in a group
        # is a rewired edge, and those are redrawn.
        key = np.minimum(u, v) * n + np.maximum(u, v)
        order = np.lexsort((is_rw, key))
        sk = key[order]
        todo = order[1:][sk[1:] == sk[:-1]]
    return u, v, n, False


# ---------------------------------------------------------------------- Barabasi-Albert
def barabasi_albert(n: int, m: int, seed: int = 0) -> Edges:
    """Barabasi-Albert preferential attachment, vectorised (Batagelj-Brandes).

    As ``networkx.barabasi_albert_graph(n, m)``: start from the star K_{1,m}
    (vertices 0..m, centre 0); every new vertex t = m+1..n-1 attaches to m
    *distinct* earlier vertices chosen with probability proportional to degree.

    networkx keeps a list of vertices repeated once per unit of degree and samples
    it.  That list has a fixed layout: 2m slots for the star, then for each new
    vertex t a block of m slots holding its targets followed by m slots holding t.
    A target slot of vertex t points to a uniformly drawn earlier slot; following
    pointers until a "self" slot resolves it (Batagelj & Brandes, Phys. Rev. E 71,
    2005).  All pointers are drawn at once and resolved by vectorised pointer
    chasing (expected O(log n) rounds); slots whose vertex repeats a target of the
    same vertex are redrawn until every vertex has m distinct targets (networkx's
    rejection).  Same process and distribution as networkx, not the same random
    stream; exactly m*(n-m) edges, no self-loops, no multi-edges.
    """
    if m < 1 or m >= n:
        raise ValueError(f"barabasi_albert needs 1 <= m < n, got n={n}, m={m}")
    rng = np.random.default_rng(seed)
    nnew = n - (m + 1)
    nslots = 2 * m + 2 * m * nnew
    # value of each "self" slot (-1 for target slots)
    val = np.full(nslots, -1, np.int64)
    val[:m] = 0
    val[m:2 * m] = np.arange(1, m + 1)
    blocks = np.arange(nnew, dtype=np.int64)
    t_ids = blocks + m + 1
    starts = 2 * m + 2 * m * blocks
    self_slots = (starts[:, None] + m + np.arange(m)[None, :]).ravel()
    val[self_slots] = np.repeat(t_ids, m)
    tslots = (starts[:, None] + np.arange(m)[None, :]).ravel()          # (nnew*m,)
    limit = np.repeat(starts, m)                                        # draw in [0, start_t)
    ptr = np.zeros(nslots, np.int64)

    def draw(idx: np.ndarray) -> None:
        ptr[tslots[idx]] = (rng.random(idx.size) * limit[idx]).astype(np.int64)

    def resolve() -> np.ndarray:
        q = ptr[tslots].copy()
        pending = np.flatnonzero(val[q] < 0)
        while pending.size:
            q[pending] = ptr[q[pending]]
            pending = pending[val[q[pending]] < 0]
        return q

    draw(np.arange(tslots.size))
    targets = None
    for _ in range(200):
        q = resolve()
        targets = val[q].reshape(nnew, m)
        if m == 1:
            break
        srt = np.sort(targets, axis=1)
        bad_rows = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if bad_rows.size == 0:
            break
        # redraw the later copies of a repeated target within each bad row
        sub = targets[bad_rows]
        order = np.argsort(sub, axis=1, kind="stable")
        ss = np.take_along_axis(sub, order, axis=1)
        dupmask_sorted = np.zeros_like(ss, bool)
        dupmask_sorted[:, 1:] = ss[:, 1:] == ss[:, :-1]
        dupmask = np.zeros_like(dupmask_sorted)
        np.put_along_axis(dupmask, order, dupmask_sorted, axis=1)
        rr, cc = np.nonzero(dupmask)
        draw(bad_rows[rr] * m + cc)
        # slots that pointed at redrawn target slots are resolved afresh next round
    else:  # pragma: no cover - astronomically unlikely
        raise RuntimeError("barabasi_albert: could not draw distinct targets")
    star_src = np.zeros(m, np.int64)
    star_dst = np.arange(1, m + 1, dtype=np.int64)
    src = np.concatenate([star_src, np.repeat(t_ids, m)])
    dst = np.concatenate([star_dst, targets.ravel()])
    return src, dst, n, False


# ------------------------------------------------------------------------------- grid
def grid_2d(rows: int, cols: int) -> Edges:
    """rows x cols 4-neighbour grid; vertex (r, c) has id r*cols + c.

    Same vertex order as ``list(networkx.grid_2d_graph(rows, cols))``;
    rows*(cols-1) + (rows-1)*cols edges.
    """
    if rows < 0 or cols < 0:
        raise ValueError(f"grid_2d needs non-negative sizes, got {rows}x{cols}")
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return src, dst, rows * cols, False


# ------------------------------------------------------------------------- real graphs
#: Real benchmark graphs: name -> path relative to the shared graphs folder.
REAL_FILES = {
    "musae-facebook": "snap/musae_facebook_edges.csv.gz",
    "wave": "suitesparse_dimacs10/wave.graph.gz",
    "luxembourg_osm": "suitesparse_dimacs10/luxembourg_osm.mtx.gz",
    "delaunay_n15": "suitesparse_dimacs10/delaunay_n15.mtx.gz",
    "delaunay_n16": "suitesparse_dimacs10/delaunay_n16.mtx.gz",
    "email-Enron": "snap/Email-Enron.txt.gz",
    "ca-AstroPh": "snap/ca-AstroPh.txt.gz",
    # small ones, for --tiny runs and tests
    "jazz": "suitesparse_dimacs10/jazz.graph.gz",
    "celegans_metabolic": "suitesparse_dimacs10/celegans_metabolic.graph.gz",
    "3elt": "suitesparse_dimacs10/3elt.mtx.gz",
    "karate": "other/karate_club.edges",
    # the CPU comparison's (bc_cpu): issue #37's graphs
    "ca-GrQc": "snap/ca-GrQc.txt.gz",
    "email-Eu-core": "snap/email-Eu-core.txt.gz",
    "power": "bundled:power.graph.gz",
}
#: real graphs read as directed (the others are read as undirected)
REAL_DIRECTED = {"email-Eu-core"}
#: real graphs whose self-loops are dropped (as the comparison they serve counts their arcs)
REAL_LOOPLESS = {"ca-GrQc", "email-Eu-core"}
#: the folder of the graphs shipped inside the spla package ("bundled:" files)
BUNDLED_DIR = Path(__file__).resolve().parent.parent / "spla" / "data"


def graph_dirs() -> list[Path]:
    """Folders searched for the real graphs, in order.

    ``$SPLA_GRAPHS`` and ``$SPLA_GRAPHS_DIR`` (if set), ``<repo>/shared/graphs``,
    ``<repo>/benchmarks/data/graphs`` (an ignored folder the device run can carry),
    ``<repo>/../shared/graphs`` and ``/work/shared/graphs``.
    """
    repo = Path(__file__).resolve().parent.parent
    dirs = []
    for var in ("SPLA_GRAPHS", "SPLA_GRAPHS_DIR"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]))
    dirs += [repo / "shared" / "graphs", repo / "benchmarks" / "data" / "graphs",
             repo.parent / "shared" / "graphs", Path("/work/shared/graphs")]
    return dirs


def real_path(name: str) -> Path:
    """Path of real graph ``name``; FileNotFoundError naming the folders searched."""
    if name not in REAL_FILES:
        raise KeyError(f"unknown real graph {name!r}; known: {sorted(REAL_FILES)}")
    rel = REAL_FILES[name]
    if rel.startswith("bundled:"):
        return BUNDLED_DIR / rel.split(":", 1)[1]
    for d in graph_dirs():
        if (d / rel).is_file():
            return d / rel
    raise FileNotFoundError(
        f"real graph {name!r} ({rel}) not found in any of: "
        + ", ".join(str(d) for d in graph_dirs())
        + " (set SPLA_GRAPHS or run `python -m benchmarks.stage` to copy them into benchmarks/data/graphs)")


def real(name: str) -> Edges:
    """Load real graph ``name`` (a key of :data:`REAL_FILES`): undirected edges, or arcs for the
    graphs of :data:`REAL_DIRECTED`.

    Reads with ``spla.io.read_graph(path, directed=...)``; if ``spla.io`` is not
    importable, falls back to a small built-in reader of the same formats
    (SNAP edge lists, CSV, Matrix Market, METIS), so the harness can still run.
    Self-loops and duplicate listings are kept as in the file (``Matrix.from_edges``
    merges duplicates; networkx keeps self-loops too), except the self-loops of the
    graphs of :data:`REAL_LOOPLESS`.
    """
    path = real_path(name)
    directed = name in REAL_DIRECTED
    try:
        from spla.io import read_graph  # type: ignore
    except Exception:  # noqa: BLE001 - engine missing or broken: fall back
        read_graph = None
    if read_graph is not None:
        g = read_graph(str(path), directed=directed)
        src = np.asarray(g.src, dtype=np.int64)
        dst = np.asarray(g.dst, dtype=np.int64)
        n = int(g.n)
    else:
        src, dst, n, _ = _read_fallback(path)
    if name in REAL_LOOPLESS:
        src, dst = clean_edges(src, dst)
    return src, dst, n, directed


def _read_fallback(path: Path) -> Edges:
    """Minimal reader of the shared graph formats (used only without spla.io)."""
    name = path.name
    opener = gzip.open if name.endswith(".gz") else open
    base = name[:-3] if name.endswith(".gz") else name
    with opener(path, "rt") as f:
        text = f.read()
    if base.endswith(".mtx"):
        lines = [ln for ln in text.splitlines() if ln and not ln.startswith("%")]
        nr, nc, _ = (int(x) for x in lines[0].split()[:3])
        arr = np.array(" ".join(ln.split()[0] + " " + ln.split()[1] for ln in lines[1:]).split(),
                       dtype=np.int64).reshape(-1, 2) - 1
        return arr[:, 0].copy(), arr[:, 1].copy(), max(nr, nc), False
    if base.endswith(".graph"):
        lines = text.split("\n")
        while lines and lines[0].startswith("%"):
            lines.pop(0)
        n = int(lines[0].split()[0])
        rows = lines[1:n + 1]
        lens = np.array([len(r.split()) for r in rows], np.int64)
        nbrs = np.array(" ".join(rows).split(), dtype=np.int64) - 1
        src = np.repeat(np.arange(n, dtype=np.int64), lens)
        keep = src < nbrs  # each edge is listed twice: keep one orientation
        return src[keep], nbrs[keep], n, False
    # edge lists: SNAP (whitespace, '#' comments), CSV (one header row), .edges
    lines = [ln for ln in text.replace(",", " ").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    if lines and not lines[0].split()[0].lstrip("-").isdigit():
        lines = lines[1:]
    arr = np.array(" ".join(" ".join(ln.split()[:2]) for ln in lines).split(),
                   dtype=np.int64).reshape(-1, 2)
    ids, inv = np.unique(arr.ravel(), return_inverse=True)
    if ids.size and ids[0] >= 0 and ids[-1] == ids.size - 1:
        inv = arr.ravel()  # already compact 0..n-1
    inv = inv.reshape(-1, 2)
    return inv[:, 0].copy(), inv[:, 1].copy(), int(ids.size), False


# ----------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class GraphSpec:
    """A named benchmark graph.

    ``make`` returns raw edges ``(src, dst, n, directed)``; ``quick`` marks graphs cheap
    enough for ``--quick`` runs; ``label`` is the name the seeds' papers use;
    ``approx_arcs`` the rough number of stored arcs once symmetrised (for planning).
    """

    name: str
    make: Callable[[], Edges]
    params: dict = field(default_factory=dict)
    quick: bool = False
    kind: str = "generated"  # or "real"
    label: str = ""
    approx_arcs: int = 0


GRAPHS: dict[str, GraphSpec] = {}


def _add(name, make, params, quick, kind="generated", label="", approx_arcs=0):
    GRAPHS[name] = GraphSpec(name, make, dict(params), quick, kind, label or name, approx_arcs)


for _k in range(7, 18):
    _nv, _ne = mycielski_counts(_k)
    _add(f"myc{_k}", (lambda k=_k: mycielski(k)), {"gen": "mycielski", "k": _k},
         quick=_k <= 16, label=f"mycielski{_k}", approx_arcs=2 * _ne)
for _s in (8, 9, 10, 12, 14, 16, 18, 20, 21, 22):
    _add(f"kron{_s}", (lambda s=_s: kronecker(s, 16, seed=_s)),
         {"gen": "kronecker", "scale": _s, "edge_factor": 16, "seed": _s},
         quick=_s <= 20, label=f"Graph500 scale {_s}", approx_arcs=int(1.5 * 16 * 2 ** _s))
for _n, _kk in ((1000, 10), (100_000, 10), (2_000_000, 10)):
    _nm = {1000: "1k", 100_000: "100k", 2_000_000: "2M"}[_n]
    _add(f"ws{_nm}", (lambda n=_n, k=_kk: watts_strogatz(n, k, 0.1, seed=1)),
         {"gen": "watts_strogatz", "n": _n, "k": _kk, "p": 0.1, "seed": 1},
         quick=_n <= 100_000, label=f"Watts-Strogatz n={_n:,} k={_kk} p=0.1", approx_arcs=_n * _kk)
# ws2M's arc count at higher mean degrees: ws500k_k40 is spmv's calibration graph of long columns
# without hubs; both are benchmarks/probes/probe_roofline.py's view of how the product targets'
# bounds move with the degree.
for _n, _kk, _nm in ((1_000_000, 20, "ws1M_k20"), (500_000, 40, "ws500k_k40")):
    _add(_nm, (lambda n=_n, k=_kk: watts_strogatz(n, k, 0.1, seed=1)),
         {"gen": "watts_strogatz", "n": _n, "k": _kk, "p": 0.1, "seed": 1},
         quick=False, label=f"Watts-Strogatz n={_n:,} k={_kk} p=0.1", approx_arcs=_n * _kk)
for _n in (1000, 10_000, 20_000, 100_000, 1_000_000, 2_000_000):
    for _m in (1, 2, 3, 4):
        _nm = {1000: "1k", 10_000: "10k", 20_000: "20k", 100_000: "100k",
               1_000_000: "1M", 2_000_000: "2M"}[_n]
        _add(f"ba{_nm}_m{_m}", (lambda n=_n, m=_m: barabasi_albert(n, m, seed=m)),
             {"gen": "barabasi_albert", "n": _n, "m": _m, "seed": _m},
             quick=(_n <= 20_000) or (_n == 1_000_000 and _m == 4),
             label=f"Barabasi-Albert n={_n:,} m={_m}", approx_arcs=2 * _m * _n)
for _r in (20, 30, 400, 2000):
    _add(f"grid{_r}", (lambda r=_r: grid_2d(r, r)), {"gen": "grid_2d", "rows": _r, "cols": _r},
         quick=True, label=f"{_r}x{_r} grid", approx_arcs=4 * _r * _r)
_REAL_ARCS = {"musae-facebook": 342_000, "wave": 2_118_662, "luxembourg_osm": 239_332,
              "delaunay_n15": 196_548, "delaunay_n16": 393_150, "email-Enron": 367_662,
              "ca-AstroPh": 396_160, "jazz": 5484, "celegans_metabolic": 4050, "3elt": 27444,
              "karate": 156, "ca-GrQc": 28_968, "email-Eu-core": 24_929, "power": 13_188}
for _nm in REAL_FILES:
    _add(_nm, (lambda nm=_nm: real(nm)), {"gen": "real", "file": REAL_FILES[_nm]},
         quick=_nm not in ("wave", "luxembourg_osm"), kind="real",
         approx_arcs=_REAL_ARCS.get(_nm, 0))


def cache_dir() -> Path:
    """Folder of the ``.npz`` edge cache: ``$SPLA_BENCH_CACHE`` or ``/tmp/spla_bench_cache``."""
    return Path(os.environ.get("SPLA_BENCH_CACHE", "/tmp/spla_bench_cache"))


def _cache_key(spec: GraphSpec) -> str:
    blob = json.dumps({"v": CACHE_VERSION, "name": spec.name, **spec.params}, sort_keys=True)
    return f"{spec.name}-{hashlib.sha1(blob.encode()).hexdigest()[:10]}"


def clean_edges(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop self-loops (used for generated graphs: Graph500 ignores them)."""
    keep = src != dst
    if keep.all():
        return src, dst
    return src[keep], dst[keep]


def load_edges(name: str, use_cache: bool = True) -> tuple[Edges, dict]:
    """Edges of registry graph ``name`` and a dict of facts about how they were got.

    Generated graphs have self-loops removed (Kronecker is the only generator that
    makes any) and are cached as ``.npz`` under :func:`cache_dir` (int32 when the ids
    fit).  Real graphs are read from their files every time (they are small).
    Returns ``((src, dst, n, directed), info)`` with ``info`` holding ``n``,
    ``edges`` (as returned, before symmetrisation), ``gen_s`` (seconds to generate
    or load) and ``cached``.
    """
    spec = GRAPHS[name]
    t0 = time.perf_counter()
    info = {"graph": name, "label": spec.label, "kind": spec.kind, "params": spec.params}
    path = cache_dir() / f"{_cache_key(spec)}.npz"
    if spec.kind == "generated" and use_cache and path.is_file():
        try:
            z = np.load(path)
            src = z["src"].astype(np.int64)
            dst = z["dst"].astype(np.int64)
            n, directed = int(z["n"]), bool(z["directed"])
            info.update(n=n, edges=int(src.size), gen_s=time.perf_counter() - t0, cached=True)
            return (src, dst, n, directed), info
        except Exception:  # noqa: BLE001 - corrupt cache: regenerate
            pass
    src, dst, n, directed = spec.make()
    if spec.kind == "generated":
        src, dst = clean_edges(src, dst)
    info.update(n=int(n), edges=int(src.size), gen_s=time.perf_counter() - t0, cached=False)
    if spec.kind == "generated" and use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            dt = np.int32 if n < 2 ** 31 else np.int64
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, src=src.astype(dt), dst=dst.astype(dt), n=n, directed=directed)
            os.replace(tmp, path)
        except OSError:
            pass
    return (src, dst, int(n), bool(directed)), info
