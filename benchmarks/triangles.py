"""Section ``triangles``: triangle counting by masked SpGEMM beside cuSPARSE and SuiteSparse:GraphBLAS.

Every system counts from the same strictly lower triangle L = tril(A, -1) of the undirected graph
(built before timing, in each system's own format) and returns the count:

* ``spla``: ``C<L> = L +.pair L'``, then ``sum(C)`` (``spla.mxm`` with the mask inside the product,
  ``spla.reduce_scalar``): the products of ``algorithms.triangle_count``.
* ``spla-algorithm``: ``algorithms.triangle_count(A)`` from the graph itself (the tril selection,
  cached on A after the first call, the product and the sum).
* ``cusparse``: ``C = L @ L'`` with ``cupyx.scipy.sparse`` (float32 ones: cuSPARSE's SpGEMM, every
  entry of the product), then ``sum(C .* L)`` (the mask applied afterwards).
* ``graphblas``: python-graphblas on SuiteSparse:GraphBLAS, all host cores:
  ``C<L.S> = L plus.pair L'`` then ``C.reduce_scalar()`` (SuiteSparse picks its own method), on the host.

Memory: spla's and cuSPARSE's peak device bytes of a call above what was live before it (the
harness's pool hook); SuiteSparse's peak host bytes of a call above the process's resident set
before it (``VmHWM`` after resetting it through ``/proc/self/clear_refs``).

Floor: the masked dot products must read, for every entry (i, j) of L, rows i and j of L (4-byte
indices): ``4 · Σ_{(i,j) in L} (|L(i,:)| + |L(j,:)|)`` bytes; at the measured copy bandwidth that
is the time no method that reads the lists it intersects can beat.

Checks: every system's count equals spla's on the CPU backend (small graphs) or equals the others'.
"""

from __future__ import annotations

import os

import numpy as np

from .core import Bench, host
from .tables import chk, claim, mib, ms, num, ratio, table

NAME = "triangles"
GRAPHS = {
    "tiny": ["karate", "power"],
    "quick": ["kron16", "kron18", "myc13", "myc15", "ca-AstroPh", "email-Enron", "musae-facebook",
              "delaunay_n16", "wave"],
    "full": ["kron16", "kron18", "kron20", "myc13", "myc15", "ca-AstroPh", "email-Enron", "musae-facebook",
             "delaunay_n16", "wave", "luxembourg_osm"],
}
SYSTEMS = ("spla", "spla-algorithm", "cusparse", "graphblas")
#: graphs up to this many arcs are counted on spla's CPU backend too, as the check's reference
CPU_CHECK_ARCS = 2_000_000


def floor_bytes(colptr_l: np.ndarray, rowidx_l: np.ndarray) -> int:
    """Bytes the masked dot products of C<L> = L L' must read: rows i and j of L (4-byte indices)
    for every entry (i, j) of L.  ``colptr_l``/``rowidx_l``: the CSC arrays of L' (= CSR of L)."""
    rows = np.diff(colptr_l).astype(np.int64)            # |L(i,:)| per row i
    owner = np.repeat(np.arange(rows.size), rows)         # i of every entry (i, j)
    return int(4 * (rows[owner].sum() + rows[rowidx_l].sum()))


def _host_peak(fn):
    """(result, peak host bytes above the resident set before the call), or (result, None) where
    Linux's peak reset is not available."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        base = _status("VmRSS")
    except OSError:
        return fn(), None
    out = fn()
    return out, max(0, _status("VmHWM") - base)


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"{key} not in /proc/self/status")


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    spla = b.spla()
    alg = b.algorithms("triangle_count")
    gb = _graphblas()
    for name, A, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        src, dst, n, directed = b.graph(name)
        if directed:
            b.skip(NAME, gf, "a directed graph: triangles are counted on undirected graphs")
            continue
        _graph(b, spla, alg, gb, name, A, gf)


def _graph(b: Bench, spla, alg, gb, name, A, gf) -> None:
    A = spla.select(A, "offdiag")
    L = spla.select(A, "tril", -1)
    Lt = L.T
    Lh = L.to("cpu") if L.device != "cpu" else L
    LtH = Lh.T
    fb = floor_bytes(host(LtH.colptr), host(LtH.rowidx))
    floor_ms = fb / (b.copy_GBps * 1e9) * 1e3 if b.copy_GBps else None
    gf = {**gf, "l_entries": int(L.nnz), "floor_bytes": fb, "floor_ms": floor_ms}
    want = {}
    if L.nnz <= CPU_CHECK_ARCS:
        # C<L> = L +.pair L' on the CPU backend: the reference count
        want["count"] = int(spla.reduce_scalar(spla.mxm(Lh, LtH, "plus_pair", mask=Lh), "plus"))

    def check(got):
        got = int(got)
        if "count" not in want:
            want["count"] = got
            return True, f"{got:,} triangles (the first system's count; the others are compared with it)"
        return got == want["count"], f"{got:,} triangles, want {want['count']:,}"

    def ours():
        C = spla.mxm(L, Lt, "plus_pair", mask=L)          # C<L> = L +.pair L'
        return int(spla.reduce_scalar(C, "plus"))         # t = sum(C)

    b.measure(NAME, {**gf, "system": "spla"}, ours, check=check)
    b.measure(NAME, {**gf, "system": "spla-algorithm"}, lambda: alg.triangle_count(A), check=check)
    if not b.opts.peers:
        return
    if b.gpu:
        _cusparse(b, L, gf, check)
    else:
        b.skip(NAME, {**gf, "system": "cusparse"}, "a CPU run")
    if isinstance(gb, str):
        b.skip(NAME, {**gf, "system": "graphblas"}, gb)
    else:
        _suitesparse(b, gb, Lh, gf, check)


def _cusparse(b: Bench, L, gf, check) -> None:
    import cupy as cp
    import cupyx.scipy.sparse as cpsp

    # L' in CSC is L in CSR: cuSPARSE's operand, float32 ones
    Lc = cpsp.csc_matrix((cp.ones(L.nnz, dtype=np.float32), cp.asarray(L.rowidx), cp.asarray(L.colptr)),
                         shape=L.shape).tocsr()
    Lct = Lc.T.tocsr()

    # Σ over all entries of L L' = Σ_k |L(:, k)|^2: a product whose int32 counts wrapped comes back
    # with another sum (and then its masked count is not trusted even when it happens to agree)
    paths = int((cp.diff(L.colptr).astype(cp.int64) ** 2).sum())
    wrapped = {}

    def cusparse():
        C = Lc @ Lct                                       # every entry of L L'
        wrapped["sum"] = int(round(float(C.data.sum(dtype=cp.float64))))
        return int(round(float(C.multiply(Lc).data.sum(dtype=cp.float64))))   # then the mask

    def checked(got):
        if wrapped.get("sum") != paths:
            return False, (f"cuSPARSE's L L' sums to {wrapped.get('sum'):,}, not the {paths:,} paths of length 2 "
                           "it has (its int32 indices or counts overflowed)")
        return check(got)

    b.measure(NAME, {**gf, "system": "cusparse"}, cusparse, check=checked)


def _graphblas():
    """The python-graphblas module with SuiteSparse initialised, or why it cannot run."""
    try:
        import graphblas as gb

        gb.Matrix  # noqa: B018 - the lazy import that loads SuiteSparse's library
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return f"python-graphblas not importable ({type(e).__name__}: {e}): pip install python-graphblas"
    try:
        gb.init("suitesparse", blocking=True)
    except Exception:  # noqa: BLE001 - already initialised by an earlier call
        pass
    return gb


def _suitesparse(b: Bench, gb, Lh, gf, check) -> None:
    colptr, rowidx = host(Lh.colptr).astype(np.int64), host(Lh.rowidx).astype(np.int64)
    cols = np.repeat(np.arange(Lh.shape[1], dtype=np.int64), np.diff(colptr))
    G = gb.Matrix.from_coo(rowidx, cols, np.ones(rowidx.size, dtype=np.int64), nrows=Lh.shape[0],
                           ncols=Lh.shape[1], dtype="INT64")
    threads = gb.ss.config["nthreads"] if hasattr(gb, "ss") else os.cpu_count()
    mem = {}

    def count():
        C = gb.Matrix(gb.dtypes.INT64, G.nrows, G.ncols)
        C(G.S) << G.mxm(G.T, gb.semiring.plus_pair)       # C<L.S> = L plus.pair L'
        total = C.reduce_scalar(gb.monoid.plus).value
        return 0 if total is None else int(total)          # an empty C has no value

    def measured():
        out, peak = _host_peak(count)
        mem["peak"] = peak
        return out

    b.measure(NAME, {**gf, "system": "graphblas", "threads": threads}, measured, check=check, on="cpu",
              derive=lambda rec: {"host_peak_bytes": mem.get("peak")})


# ----------------------------------------------------------------------------------------- report
def summarize(records: list[dict]) -> dict:
    """Per graph: each system's median, peak memory and check; the ratios to spla; the floor."""
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("system") not in SYSTEMS:
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "floor_ms": r.get("floor_ms"), "ms": {}, "checked": {}, "mem": {}})
        g["ms"][r["system"]] = r.get("median_ms")
        g["checked"][r["system"]] = r.get("checked")
        if r["system"] == "graphblas":
            g["mem"]["graphblas"] = r.get("host_peak_bytes")
            g["threads"] = r.get("threads")
        elif r.get("mem_peak_bytes") is not None:
            g["mem"][r["system"]] = r["mem_peak_bytes"] - r.get("mem_base_bytes", 0)
    for g in per.values():
        s = g["ms"].get("spla")
        for other in ("cusparse", "graphblas"):
            # a wrong count is no comparison: its time is shown, its ratio is not
            if s and g["ms"].get(other) and g["checked"].get(other):
                g[f"vs_{other}"] = g["ms"][other] / s
        if s and g.get("floor_ms"):
            g["of_floor"] = g["floor_ms"] / s
    return per


def markdown(recs) -> str:
    """The section's table."""
    per = summarize(recs)
    rows = []
    for g in per.values():
        m, mem, c = g["ms"], g["mem"], g["checked"]
        wrong = (lambda sys: ms(m.get(sys)) + (" (wrong count)" if c.get(sys) is False else ""))
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), ms(m.get("spla")),
                     ms(m.get("spla-algorithm")), wrong("cusparse"), wrong("graphblas"),
                     ratio(g.get("vs_cusparse")), ratio(g.get("vs_graphblas")),
                     "–" if g.get("of_floor") is None else f"{100 * g['of_floor']:.0f} %",
                     mib(mem.get("spla")), mib(mem.get("cusparse")), mib(mem.get("graphblas")),
                     " ".join(f"{s}:{chk(c.get(s))}" for s in SYSTEMS if s in c)])
    threads = next((g.get("threads") for g in per.values() if g.get("threads")), None)
    return ("Triangle count from L = tril(A, -1), median time of a call (CUDA events on the GPU; SuiteSparse "
            f"on the host, {threads or 'all'} threads). Memory: peak above what was live before the call "
            "(device for spla and cuSPARSE, host resident set for SuiteSparse). Floor: the masked dot "
            "products' index reads at the measured copy bandwidth. A wrong count (cuSPARSE's int32 "
            "counts overflow on the largest products) is shown but not compared.\n\n"
            + table(["graph", "n", "arcs", "spla C<L> = L +.pair L'", "spla triangle_count(A)",
                     "cuSPARSE L L' then mask", "SuiteSparse:GraphBLAS", "cuSPARSE/spla", "SuiteSparse/spla",
                     "floor / spla", "spla peak", "cuSPARSE peak", "SuiteSparse peak", "checked"], rows))


def headlines(recs) -> list[dict]:
    """The issue's claims: at least 5x SuiteSparse on every graph, and faster than cuSPARSE-then-mask."""
    per = summarize(recs)
    out = []
    v = [g["vs_graphblas"] for g in per.values() if g.get("vs_graphblas")]
    if v:
        out.append(claim("Triangle count vs SuiteSparse:GraphBLAS (all host cores)", f"{min(v):.2f}× min",
                         ">= 5× each", min(v) >= 5.0))
    v = [g["vs_cusparse"] for g in per.values() if g.get("vs_cusparse")]
    if v:
        out.append(claim("Triangle count vs cuSPARSE L L' then mask", f"{min(v):.2f}× min", "> 1× each",
                         min(v) > 1.0))
    return out
