"""Section ``weighted``: weighted betweenness, closeness and shortest paths beside NetworKit and SciPy.

The real weighted graphs of ``shared/graphs/weighted`` (read with ``spla.io.read_graph``, parallel
arcs merged to their shortest, ``dup="min"``; arc lengths are the file's weights):

* ``bc``: ``betweenness_centrality(A, weight=True, normalized=False)`` over all sources (rome99,
  celegansneural), or over ``K`` sampled sources (USA-road-d.NY, seed 0), beside NetworKit's weighted
  ``Betweenness`` (exact) or ``EstimateBetweenness`` (``K`` samples of its own choosing: a time for
  the same work, not the same sources, so its values are not compared) on all host threads.
* ``ebc``: ``edge_betweenness_centrality(A, weight=True, normalized=False)`` over all sources (the
  graphs without a sample) beside NetworKit's weighted ``Betweenness`` with its edge scores
  (``computeEdgeCentrality``; it computes the vertex scores as well), which are networkx's for a
  directed graph.
* ``closeness``: ``closeness_centrality(A, distance=True)`` of every vertex beside NetworKit's
  weighted ``Closeness`` (generalised variant = networkx's ``wf_improved``).
* ``sssp``: the engine's ``spla.paths.shortest_paths(A, sources, weighted=True)``, the (k, n)
  distances of every source (rome99) or of ``K`` sampled sources (NY), left where A is (on the
  device; ``spla.algorithms.shortest_path_lengths`` adds their copy to host memory, which is not
  timed), beside SciPy's ``csgraph.dijkstra`` of the same sources on the host (one thread).

Floor of ``sssp``: every source must read every arc once (an index and a float64 length) and
write every vertex's distance (float64): ``k · (12 m + 8 n)`` bytes at the measured copy bandwidth.
On the device, a second floor counts scattered accesses instead of bytes (the access floor): a search
that keeps each source's distances as a row of its own and relaxes the out-arcs of the vertices it
reaches reads the head's distance of every arc once at least, an 8-byte read at a scattered place of
the row, and lowers every vertex it reaches once at least, an 8-byte atomic (several arcs may lower
it at once): ``k · (m / L + n / A)``, with L and A the random 8-byte load and atomic rates measured
within the L2 cache (``benchmarks.timing.l2_random_access``), as if every row sat in the L2.

Checks: spla's distances equal SciPy's exactly (bit for bit: both form d(u) + w in float64); spla's
exact betweenness, edge betweenness and closeness equal NetworKit's (rtol 1e-9); sampled
betweenness finite and non-negative.
"""

from __future__ import annotations

import numpy as np

from .core import Bench, SkipSection, host
from .reference import allclose_report
from .tables import chk, claim, ms, num, ratio, table
from .timing import l2_random_access

NAME = "weighted"
FILES = {"rome99": "weighted/rome99.gr.gz", "celegansneural": "weighted/celegansneural.gml.gz",
         "USA-road-d.NY": "weighted/USA-road-d.NY.gr.gz"}
GRAPHS = {"tiny": ["celegansneural"], "quick": ["celegansneural", "rome99", "USA-road-d.NY"],
          "full": ["celegansneural", "rome99", "USA-road-d.NY"]}
#: graphs whose measures run from a sample of K sources instead of all
SAMPLED = {"USA-road-d.NY"}
K = {"tiny": 16, "quick": 1000, "full": 1000}
SEED = 0
#: the issue's goal: spla at least this many times NetworKit's speed on every row it names
GOAL_VS_NETWORKIT = 20.0
#: the measures of those rows (edge betweenness is timed beside them, not named)
GOAL_MEASURES = ("bc", "closeness")
#: the graphs of those rows (celegansneural's rows are this section's own, held to the same goal
#: in a claim of their own)
GOAL_GRAPHS = ("rome99", "USA-road-d.NY")
#: and multi-source SSSP on NY at least this fraction of its bytes-moved floor
GOAL_OF_FLOOR = 0.30


def _load(name):
    """(matrix on the CPU, n, arcs, src, dst, lengths) of a weighted graph, parallel arcs merged to their minimum."""
    import spla.io

    from .graphs import graph_dirs

    for d in graph_dirs():
        path = d / FILES[name]
        if path.is_file():
            g = spla.io.read_graph(str(path), directed=True)
            A = g.to_matrix(device="cpu", drop_self_loops=True, dup="min")
            S = A.to_scipy(keep_dtype=True).tocoo()
            return A, S
    raise SkipSection(f"{FILES[name]} not found in any of {', '.join(str(d) for d in graph_dirs())}")


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    alg = b.algorithms("betweenness_centrality", "edge_betweenness_centrality", "closeness_centrality")
    for name in GRAPHS[b.opts.mode]:
        if b.remaining() < 5:
            b.skip(NAME, {"graph": name}, "time budget spent")
            continue
        try:
            A_cpu, S = _load(name)
        except SkipSection as e:
            b.skip(NAME, {"graph": name}, str(e))
            continue
        A = A_cpu.to(b.device)
        n, m = A.shape[0], A.nnz
        k = min(K[b.opts.mode], n) if name in SAMPLED else n
        sources = (np.random.default_rng(SEED).choice(n, size=k, replace=False) if k < n
                   else np.arange(n)).astype(np.int64)
        gf = {"graph": name, "n": n, "arcs": m, "k": k, "sampled": k < n}
        _sssp(b, A, S, sources, gf, _access_rates(b))
        peer = _networkit(S, n) if b.opts.peers else None   # (graph, why not): built once, used by each measure
        _bc(b, alg, A, peer, k, gf)
        if k == n:
            _ebc(b, alg, A, peer, gf)
            _closeness(b, alg, A, peer, gf)


def _access_rates(b):
    """The device's random 8-byte atomic and load rates within the L2 (measured once, kept with the
    run's device information), or None on the host or where the probe failed."""
    if not b.gpu:
        return None
    if "l2_random_access" not in b.info:
        try:
            b.info["l2_random_access"] = l2_random_access()
        except Exception as e:  # noqa: BLE001
            b.info["l2_random_access"] = {"error": f"{type(e).__name__}: {e}"}
    rates = b.info["l2_random_access"]
    return None if "error" in rates else rates


def _sssp(b, A, S, sources, gf, rates) -> None:
    from scipy.sparse.csgraph import dijkstra

    import spla.paths

    k, n, m = len(sources), gf["n"], gf["arcs"]
    floor = k * (12 * m + 8 * n)
    fields = {**gf, "measure": "sssp", "floor_bytes": floor,
              "floor_ms": floor / (b.copy_GBps * 1e9) * 1e3 if b.copy_GBps else None,
              "access_floor_ms": (k * (m / rates["load_per_s"] + n / rates["atomic_per_s"]) * 1e3
                                  if rates else None)}
    want = {}

    def scipy_dist():
        want["d"] = dijkstra(S.tocsr(), directed=True, indices=sources)
        return want["d"]

    def check(got):
        d = host(got)
        same = d.shape == want["d"].shape and bool(np.array_equal(d, want["d"]))
        bad = int(np.count_nonzero(d != want["d"])) if d.shape == want["d"].shape else -1
        return same, f"{'bit-equal to' if same else f'{bad:,} distances differ from'} SciPy's dijkstra"

    # SciPy's distances first: the peer's timed call is the reference spla is checked against, so the
    # check adds nothing to spla's time limit (on USA-road-d.NY the reference takes most of a minute)
    if b.opts.peers:
        b.measure(NAME, {**fields, "system": "scipy", "threads": 1}, scipy_dist, on="cpu", once=True,
                  check=lambda got: (True, "the reference"))
    if "d" not in want:
        scipy_dist()
    b.measure(NAME, {**fields, "system": "spla"}, lambda: spla.paths.shortest_paths(A, sources, weighted=True),
              check=check)


def _networkit(S, n):
    """(NetworKit's weighted directed graph of the arcs of S, None), or (None, why it cannot be built)."""
    try:
        import networkit as nk  # type: ignore
    except Exception as e:  # noqa: BLE001 - any import failure means the peer is missing
        return None, f"networkit not importable ({type(e).__name__}): pip install networkit"
    g = nk.Graph(n, weighted=True, directed=True)
    for u, v, w in zip(S.row.tolist(), S.col.tolist(), S.data.astype(float).tolist()):
        g.addEdge(u, v, w)
    g.indexEdges()  # edge ids for the edge scores
    return g, None


def _measure_networkit(b, fields, peer, algorithm, check, scores=lambda algo: algo.scores()) -> None:
    """Time NetworKit's ``algorithm(nk, g)`` and ``scores(algo)`` on all host threads, or skip saying why not."""
    g, why = peer
    fields = {**fields, "system": "networkit"}
    if g is None:
        b.skip(NAME, fields, why)
        return
    import networkit as nk  # type: ignore

    def theirs():
        algo = algorithm(nk, g)
        algo.run()
        return np.asarray(scores(algo))

    b.measure(NAME, {**fields, "threads": int(nk.getMaxNumberOfThreads())}, theirs, check=check, on="cpu",
              once=True)


def _bc(b, alg, A, peer, k, gf) -> None:
    n = gf["n"]
    sampled = k < n
    fields = {**gf, "measure": "bc"}
    memo = {}

    def ours():
        if sampled:
            return alg.betweenness_centrality(A, weight=True, k=k, seed=SEED, normalized=False)
        return alg.betweenness_centrality(A, weight=True, normalized=False)

    def check_ours(got):
        x = host(got).astype(np.float64)
        memo["bc"] = x
        ok = x.shape == (n,) and bool(np.isfinite(x).all()) and bool((x >= -1e-9).all())
        return ok, "finite, non-negative" + ("" if sampled else " (compared with NetworKit's below)")

    b.measure(NAME, {**fields, "system": "spla"}, ours, check=check_ours)
    if peer is None:
        return

    def theirs(nk, g):
        return (nk.centrality.EstimateBetweenness(g, k, False, True) if sampled
                else nk.centrality.Betweenness(g, normalized=False))

    def check_theirs(got):
        if sampled:
            return True, "its own sample of sources: timed, not compared"
        if "bc" not in memo:
            return False, "no spla result to compare with"
        return allclose_report(np.asarray(got, float), memo["bc"], rtol=1e-9, atol=1e-9)

    _measure_networkit(b, fields, peer, theirs, check_theirs)


def _ebc(b, alg, A, peer, gf) -> None:
    fields = {**gf, "measure": "ebc"}
    memo = {}

    def check_ours(got):
        x = got.tocoo()
        memo["ebc"] = x
        ok = x.shape == A.shape and bool(np.isfinite(x.data).all()) and bool((x.data >= -1e-9).all())
        return ok, "finite, non-negative (compared with NetworKit's below)"

    b.measure(NAME, {**fields, "system": "spla"},
              lambda: alg.edge_betweenness_centrality(A, weight=True, normalized=False), check=check_ours)
    if peer is None:
        return

    def check_theirs(got):
        if "ebc" not in memo:
            return False, "no spla result to compare with"
        # NetworKit's scores by edge id, spla's by arc (u, v): spla's read at each edge id's arc
        x, arcs = memo["ebc"], []
        peer[0].forEdges(lambda u, v, w, eid: arcs.append((eid, u, v)))
        at = {(int(u), int(v)): float(w) for u, v, w in zip(x.row, x.col, x.data)}
        ours = np.zeros(len(got))
        for eid, u, v in arcs:
            ours[eid] = at.get((u, v), 0.0)
        return allclose_report(np.asarray(got, float), ours, rtol=1e-9, atol=1e-9)

    _measure_networkit(b, fields, peer, lambda nk, g: nk.centrality.Betweenness(g, False, True), check_theirs,
                       scores=lambda algo: algo.edgeScores())


def _closeness(b, alg, A, peer, gf) -> None:
    n = gf["n"]
    fields = {**gf, "measure": "closeness"}
    memo = {}

    def check_ours(got):
        x = host(got).astype(np.float64)
        memo["c"] = x
        return x.shape == (n,) and bool(np.isfinite(x).all()), "finite (compared with NetworKit's below)"

    b.measure(NAME, {**fields, "system": "spla"}, lambda: alg.closeness_centrality(A, distance=True),
              check=check_ours)
    if peer is None:
        return

    def theirs(nk, g):
        # NetworKit measures distances from a vertex along its out-arcs; networkx's (and spla's)
        # closeness of a directed graph uses the incoming ones: the transpose
        return nk.centrality.Closeness(nk.graphtools.transpose(g), True, nk.centrality.ClosenessVariant.Generalized)

    _measure_networkit(b, fields, peer, theirs,
                       lambda got: allclose_report(np.asarray(got, float), memo.get("c", np.zeros(0)), rtol=1e-9,
                                                   atol=1e-12))


# ----------------------------------------------------------------------------------------- report
def summarize(records: list[dict]) -> dict:
    """Per (graph, measure): each system's median and check, spla's ratio to the peer and its floor fraction."""
    per: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or not r.get("measure"):
            continue
        key = (r["graph"], r["measure"])
        g = per.setdefault(key, {"graph": r["graph"], "measure": r["measure"], "n": r.get("n"),
                                 "arcs": r.get("arcs"), "k": r.get("k"), "floor_ms": r.get("floor_ms"),
                                 "access_floor_ms": r.get("access_floor_ms"), "ms": {}, "checked": {},
                                 "threads": {}})
        g["ms"][r["system"]] = r.get("median_ms")
        g["checked"][r["system"]] = r.get("checked")
        g["threads"][r["system"]] = r.get("threads")
    for g in per.values():
        s = g["ms"].get("spla")
        peer = "scipy" if g["measure"] == "sssp" else "networkit"
        if s and g["ms"].get(peer):
            g["vs_peer"] = g["ms"][peer] / s
        if s and g.get("floor_ms"):
            g["of_floor"] = g["floor_ms"] / s
        if s and g.get("access_floor_ms"):
            g["of_access_floor"] = g["access_floor_ms"] / s
    return per


def markdown(recs) -> str:
    """The section's table."""
    rows = []
    for g in summarize(recs).values():
        peer = "scipy" if g["measure"] == "sssp" else "networkit"
        label = "SciPy dijkstra (1 thread)" if peer == "scipy" else f"NetworKit ({g['threads'].get(peer) or '–'} threads)"
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), g["measure"],
                     "all" if g.get("k") == g.get("n") else num(g.get("k")), ms(g["ms"].get("spla")), label,
                     ms(g["ms"].get(peer)), ratio(g.get("vs_peer")),
                     "–" if g.get("of_floor") is None else f"{100 * g['of_floor']:.1f} %",
                     "–" if g.get("of_access_floor") is None else f"{100 * g['of_access_floor']:.1f} %",
                     f"spla:{chk(g['checked'].get('spla'))} {peer}:{chk(g['checked'].get(peer))}"])
    return ("Weighted measures (arc lengths = the file's weights, parallel arcs kept at their minimum), median "
            "time of a call; the peers from their first call on the host. sources: all, or k sampled "
            "(NetworKit's sampled betweenness draws its own k sources). Floor (sssp): k · (12 m + 8 n) bytes "
            "at the measured copy bandwidth. Access floor (sssp, device): k · (m / L + n / A), L and A the "
            "random 8-byte loads and atomics per second measured within the L2 (one read per arc and one "
            "atomic per reached vertex, each source's distances a row of its own).\n\n"
            + table(["graph", "n", "arcs", "measure", "sources", "spla", "peer", "peer time", "peer/spla",
                     "floor / spla", "access floor / spla", "checked"], rows))


def headlines(recs) -> list[dict]:
    """The issue's claims, goals of a GPU run: at least 20x NetworKit on every row it names (and, apart,
    on the section's other rows); SSSP on NY at 30 % of its floor.  A CPU run's table stands without them."""
    if any(r.get("section") == NAME and r.get("system") == "spla" and r.get("device") == "cpu" for r in recs):
        return []
    per = summarize(recs).values()
    out = []
    for named in (True, False):
        v = [g["vs_peer"] for g in per
             if g.get("vs_peer") and g["measure"] in GOAL_MEASURES and (g["graph"] in GOAL_GRAPHS) == named]
        if v:
            what = ("Weighted BC and closeness vs NetworKit (all host threads), " +
                    (", ".join(GOAL_GRAPHS) if named else "the other graphs (celegansneural)"))
            out.append(claim(what, f"{min(v):.2f}× min", f">= {GOAL_VS_NETWORKIT:.0f}× each",
                             min(v) >= GOAL_VS_NETWORKIT))
    ny = [g for g in per if g["measure"] == "sssp" and g["graph"] == "USA-road-d.NY" and g.get("of_floor")]
    if ny:
        f, a = ny[0]["of_floor"], ny[0].get("of_access_floor")
        # the bound: a search at the access floor reaches floor / access floor of the bytes floor
        value = f"{100 * f:.1f} %" + ("" if a is None else f" (of the access floor: {100 * a:.1f} %; at the access "
                                      f"floor the row layout would reach {100 * f / a:.1f} % of the bytes floor)")
        out.append(claim("Multi-source SSSP on USA-road-d.NY, fraction of the bytes floor", value,
                         f">= {100 * GOAL_OF_FLOOR:.0f} %", f >= GOAL_OF_FLOOR))
    return out
