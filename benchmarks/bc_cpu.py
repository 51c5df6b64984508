"""Section ``bc_cpu``: exact betweenness on the CPU beside igraph and NetworKit (issue #37's table).

``algorithms.betweenness_centrality(A, device="cpu")`` (networkx's defaults; on the CPU "auto"
runs the compiled per-source path of ``spla.paths`` when numba is installed, and the record names
the path) on the bundled power grid, ca-GrQc, email-Eu-core (directed) and musae-facebook, beside
igraph (one thread) and NetworKit (all the machine's threads) in the same run.  Every system is
timed ``REPEATS`` times and reported by its median: spla after a first, checked call (which loads
or compiles the compiled loops), the peers from their first call on (checked against spla's
result; they have nothing to warm).

A run on a GPU skips the section: ``python -m benchmarks --cpu`` runs it (``--device cpu --only
bc_cpu``).

Checks: spla's betweenness of four sources against the SciPy Brandes reference, its full result
finite and non-negative; each peer's result equal to spla's.

Also recorded once per run: the README's first command (``spla centrality`` on the bundled graph,
every measure) as a user runs it, wall time from process start to exit: once with numba's cache
cold (a new ``NUMBA_CACHE_DIR``: the first run on a machine, which compiles the searches) and once
warm, then the median of the repeats.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .core import Bench, SkipSection, host
from .reference import allclose_report, betweenness_subset
from .tables import chk, claim, ms, num, ratio, table

NAME = "bc_cpu"
GRAPHS = {
    "tiny": ["karate", "power"],
    "quick": ["power", "ca-GrQc", "email-Eu-core", "musae-facebook"],
    "full": ["power", "ca-GrQc", "email-Eu-core", "musae-facebook"],
}
REPEATS = {"tiny": 1, "quick": 3, "full": 5}
SAMPLE = 4
#: the README's first command is to finish within this many seconds on a 2-core machine (issue #37)
CLI_TARGET_S = 3.0
REPO = Path(__file__).resolve().parent.parent

#: the README's first command, run from a scratch folder (it writes nothing there)
CLI = ["-m", "spla", "centrality", "--top", "5", "--device", "cpu"]
MEASURES = ("bc", "closeness", "harmonic", "distance-sum", "pagerank", "daccer", "degree")


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    if b.gpu:
        raise SkipSection("a CPU comparison: run it with python -m benchmarks --cpu")
    alg = b.algorithms("betweenness_centrality", "betweenness_path")
    spla = b.spla()
    repeats = REPEATS[b.opts.mode]
    cap = max(b.cap, 3600.0)
    _first_call(b, spla)
    for name, _, gf in b.each_graph(NAME, GRAPHS[b.opts.mode]):
        A = b.matrix(name, "cpu")
        n = gf["n"]
        src, dst, _, directed = b.graph(name)
        gf = {**gf, "directed": directed}
        S = b.sources(name, SAMPLE)
        want_S = betweenness_subset(b.ref(name), S, directed)
        scale = float(np.abs(want_S).max()) if want_S.size else 0.0
        b.measure(NAME, {**gf, "measure": "bc_sample", "system": "spla", "sources": S},
                  lambda: alg.betweenness_centrality(A, sources=S, normalized=False, device="cpu"),
                  check=lambda got: allclose_report(host(got), want_S, rtol=1e-7, atol=1e-9 * (1 + scale)),
                  on="cpu", repeat=1, warmup=0)

        def check_full(got):
            x = host(got).astype(np.float64)
            if x.shape != (n,) or not np.isfinite(x).all() or (x < -1e-12).any():
                return False, f"shape {x.shape} (expected ({n},)), or non-finite or negative values"
            b.memo[(NAME, name)] = x
            return True, "finite, non-negative"

        path = alg.betweenness_path(A, device="cpu")
        b.measure(NAME, {**gf, "measure": "bc_all", "system": "spla", "path": path.name, "why": path.why,
                         "threads": spla.paths.threads()},
                  lambda: alg.betweenness_centrality(A, device="cpu"), check=check_full, on="cpu",
                  repeat=repeats, warmup=0, cap_s=cap)
        if b.opts.peers:
            _peers(b, name, gf, src, dst, directed, repeats, cap)
    _cli(b, repeats)


def _peers(b: Bench, name, gf, src, dst, directed, repeats, cap) -> None:
    """igraph and NetworKit on the same graph, checked against spla's result."""
    from . import peers

    n = gf["n"]
    full = b.memo.get((NAME, name))
    for system, make, algo in (("igraph", peers.igraph_graph, peers.igraph_bc),
                               ("networkit", peers.networkit_graph, peers.networkit_bc)):
        fields = {**gf, "measure": "bc_all", "system": system,
                  "threads": peers.networkit_threads() if system == "networkit" else 1}
        try:
            g = make(src, dst, n, directed)
        except peers.PeerUnavailable as e:
            b.skip(NAME, fields, f"{e}: pip install {system} to compare")
            continue

        def check(got):
            if full is None:
                return False, "no spla result to compare with"
            # spla's result is normalised (networkx's default); the peers' are raw
            raw = full * (n - 1) * (n - 2) / (1 if directed else 2)
            return allclose_report(np.asarray(got, float), raw, rtol=1e-6, atol=1e-6)

        fn, derive = _runs(lambda g=g, algo=algo: algo(g), repeats)
        b.measure(NAME, fields, fn, check=check, on="cpu", once=True, cap_s=cap, derive=derive)


def _runs(call, repeats):
    """(fn, derive) for ``Bench.measure(..., once=True)``: fn makes ``repeats`` calls, each timed, and
    returns the last result (the one checked); derive makes their median the record's time.  For what
    has nothing to warm up (the peers, a new process), so every call counts."""
    times = []

    def fn():
        times.clear()
        out = None
        for _ in range(max(repeats, 1)):
            t = time.perf_counter()
            out = call()
            times.append((time.perf_counter() - t) * 1e3)
        return out

    def derive(rec):
        return {"times_ms": list(times), "median_ms": statistics.median(times), "min_ms": min(times),
                "repeat": len(times), "timed_from": "perf_counter, every call"}
    return fn, derive


def _cli_run(env):
    """(completed process, wall seconds) of the README's first command in a new process."""
    t = time.perf_counter()
    res = subprocess.run([sys.executable, *CLI], env=env, capture_output=True, text=True, timeout=600,
                         cwd=tempfile.gettempdir())
    return res, time.perf_counter() - t


def _cli_ok(res):
    """(ok, detail): exit status 0 and every measure reported."""
    done = [m for m in MEASURES if f"\n{m} " in "\n" + res.stderr]
    return res.returncode == 0 and len(done) == len(MEASURES), f"exit {res.returncode}; measures reported: {done}"


def _first_call(b: Bench, spla) -> None:
    """The README's first command with numba's cache cold (a new NUMBA_CACHE_DIR: it compiles the
    searches it uses, as the first run on a machine does), then warm (it loads them)."""
    ok, why = spla.paths.available("cpu")
    fields = {"graph": "power", "measure": "first_call", "system": "spla", "command": " ".join(CLI[1:])}
    if not ok:
        b.skip(NAME, fields, why)
        return
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(REPO))
        took = {}
        for state in ("cold", "warm"):
            res, took[state] = _cli_run(env)
            good, detail = _cli_ok(res)
            if not good:
                b.note(NAME, {**fields, "status": "error", "error": f"{detail}: {res.stderr[-400:]}"})
                return
    b.note(NAME, {**fields, "cold_s": took["cold"], "warm_s": took["warm"], "checked": True, "check": detail})


def _cli(b: Bench, repeats) -> None:
    """The README's first command, ``spla centrality`` on the bundled graph (every measure), as a new
    process each time: wall time from start to exit."""
    if b.remaining() < 30:
        b.skip(NAME, {"graph": "power", "measure": "cli", "system": "spla"}, "time budget spent")
        return
    env = dict(os.environ, PYTHONPATH=str(REPO))
    fn, derive = _runs(lambda: _cli_run(env)[0], repeats)
    b.measure(NAME, {"graph": "power", "measure": "cli", "system": "spla", "command": " ".join(CLI[1:])},
              fn, check=_cli_ok, on="cpu", once=True, cap_s=600, derive=derive)


def summarize(records: list[dict]) -> dict:
    """Per graph: the systems' medians and the ratios to spla; and the run's first-call and CLI records."""
    per: dict = {}
    extra: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok":
            continue
        if r.get("measure") in ("first_call", "cli"):
            extra[r["measure"]] = r
            continue
        g = per.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "directed": r.get("directed"), "ms": {}, "checked": {}, "threads": {}})
        if r.get("measure") == "bc_sample":
            g["sample_checked"] = r.get("checked")
        elif r.get("measure") == "bc_all" and r.get("median_ms") is not None:
            g["ms"][r["system"]] = r["median_ms"]
            g["checked"][r["system"]] = r.get("checked")
            g["threads"][r["system"]] = r.get("threads")
            if r["system"] == "spla":
                g["path"] = r.get("path")
                g["first_ms"] = r.get("first_call_ms")
    for g in per.values():
        s = g["ms"].get("spla")
        for other in ("igraph", "networkit"):
            if s and g["ms"].get(other):
                g[f"vs_{other}"] = g["ms"][other] / s
    return {"graphs": per, **extra}


def markdown(recs) -> str:
    """The section's table: spla, igraph and NetworKit per graph, then the first call and the CLI."""
    s = summarize(recs)
    rows = []
    for g in s["graphs"].values():
        m, th = g["ms"], g["threads"]
        rows.append([f"`{g['graph']}`", num(g.get("n")), num(g.get("arcs")), "yes" if g.get("directed") else "no",
                     g.get("path") or "–", f"{th.get('spla') or '–'}", ms(m.get("spla")),
                     ms(m.get("igraph")), f"{th.get('networkit') or '–'}", ms(m.get("networkit")),
                     ratio(g.get("vs_igraph")), ratio(g.get("vs_networkit")),
                     chk(g.get("sample_checked")), chk(g["checked"].get("spla")),
                     chk(g["checked"].get("igraph")), chk(g["checked"].get("networkit"))])
    text = ("Exact BC over all sources on the CPU, median wall time of the repeats (spla after a first, "
            "checked call; igraph and NetworKit from their first call). Peers' results are checked against "
            "spla's.\n\n"
            + table(["graph", "n", "arcs", "directed", "spla path", "spla threads", "spla", "igraph (1 thread)",
                     "NetworKit threads", "NetworKit", "igraph/spla", "NetworKit/spla", "sample checked",
                     "spla checked", "igraph checked", "NetworKit checked"], rows))
    fc, cli = s.get("first_call"), s.get("cli")
    if fc:
        text += (f"\nThe README's first command (`{fc.get('command')}`) with numba's cache cold: {fc['cold_s']:.2f} s "
                 f"(it compiles the searches it uses: once per machine); then with it warm: {fc['warm_s']:.2f} s.\n")
    if cli:
        text += (f"\nThe README's first command (`{cli.get('command', 'spla centrality')}`, every measure on the "
                 f"bundled graph, a new process each run): {ms(cli.get('median_ms'))} median wall time of "
                 f"{cli.get('repeat')} runs (checked: {chk(cli.get('checked'))}).\n")
    return text


def headlines(recs) -> list[dict]:
    """The section's claims: spla at most igraph's time, at most half NetworKit's, the CLI under 3 s."""
    s = summarize(recs)
    out = []
    v = {g["graph"]: g["vs_igraph"] for g in s["graphs"].values() if g.get("vs_igraph")}
    if v:
        out.append(claim("CPU exact BC vs igraph (1 thread)", f"{min(v.values()):.2f}× min",
                         ">= 1× each", min(v.values()) >= 1.0))
    v = {g["graph"]: g["vs_networkit"] for g in s["graphs"].values() if g.get("vs_networkit")}
    if v:
        out.append(claim("CPU exact BC vs NetworKit (same threads)", f"{min(v.values()):.2f}× min",
                         ">= 2× each", min(v.values()) >= 2.0))
    cli = s.get("cli")
    if cli and cli.get("median_ms") is not None:
        out.append(claim("README's first command on the CPU", ms(cli["median_ms"]), f"< {CLI_TARGET_S:.0f} s",
                         cli["median_ms"] < CLI_TARGET_S * 1e3))
    return out
