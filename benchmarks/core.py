"""The harness's run context: options, time budget, graph/matrix cache, measurement, output.

A :class:`Bench` is handed to every section's ``run(b)``.  Sections call

- ``b.graph(name)`` / ``b.matrix(name)`` / ``b.ref(name)`` for edges, spla matrices
  (built once, uploaded once, cached LRU) and the SciPy reference adjacency;
- ``b.measure(section, fields, fn, check=...)`` to check and time one thing: the
  first call is the warm-up, the check and the memory probe, later calls are
  timed (CUDA events on the GPU); any exception, timeout or budget overrun is
  recorded in the result instead of stopping the run;
- ``b.note(section, fields)`` for records that are not timed here (anchors,
  estimates, correlations).

Every record is appended to ``<out>/<device-slug>/<date>.json`` at once (written
atomically) and the markdown table next to it is regenerated, so a run killed at
any point keeps everything measured so far.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import anchors
from . import graphs as G
from .results import RESULTS_DIR
from .timing import (MeasurementTimeout, copy_bandwidth, cpu_copy_bandwidth, cpu_time,
                     device_info, free_gpu_memory, gpu_available, gpu_peak_memory, gpu_time,
                     time_limit)

#: a section's share of the time budget when the run names none for it
DEFAULT_SHARE = 0.1

DEFAULT_BUDGET_S = {"tiny": 120.0, "quick": 280.0, "full": 1500.0}

#: Calls up to this long get a second memory probe once their lazy caches are built.
WARM_PROBE_MAX_S = 5.0


SCHEMA = 1

#: above this many arcs the reference adjacency wraps spla's CPU arrays (see Bench.ref)
REF_FROM_SPLA_ARCS = 4_000_000


class SkipSection(Exception):
    """The section cannot run here (spla/algorithms missing, no GPU, ...)."""


@dataclass
class Options:
    """Command-line options of a run (see ``python -m benchmarks --help``)."""

    mode: str = "quick"                    # tiny | quick | full
    device: str = "auto"                   # auto | cpu | gpu
    out: Path | None = None                # results folder (default benchmarks/results)
    budget_s: float | None = None          # whole-run time budget
    measure_cap_s: float | None = None     # hard limit of one measurement
    use_cache: bool = True                 # .npz cache of generated graphs
    peers: bool = True                     # run CPU peers (spla CPU, networkx, ...)
    sections: list[str] = field(default_factory=list)  # names of the sections run
    argv: list[str] = field(default_factory=list)

    @property
    def target_s(self) -> float:
        """Wall time one measurement's timed repeats aim at."""
        return {"tiny": 0.05, "quick": 0.6, "full": 1.5}[self.mode]

    @property
    def max_repeat(self) -> int:
        return {"tiny": 3, "quick": 10, "full": 20}[self.mode]


def _run_check(check, result) -> tuple[bool, str]:
    """(ok, detail) of ``check(result)``; a check that raises has failed."""
    try:
        ok, detail = check(result)
        return bool(ok), str(detail)
    except Exception as e:  # noqa: BLE001
        return False, f"check raised {type(e).__name__}: {e}"


def log(msg: str) -> None:
    """Progress line on stderr (flushed: the device tool shows the tail)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        v = float(x)
        return v if np.isfinite(v) else None
    if isinstance(x, float):
        return x if np.isfinite(x) else None
    if isinstance(x, (np.bool_,)):
        return bool(x)
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, Path):
        return str(x)
    if x is None or isinstance(x, (str, int, bool)):
        return x
    return str(x)


class Bench:
    """State of one harness run; see the module docstring.

    ``shares``: each section's share of the time budget, by name (re-spread over the sections
    left; :data:`DEFAULT_SHARE` for one not named); ``render``: ``render(data) -> str``, the
    markdown written next to the JSON (none when not given).
    """

    def __init__(self, opts: Options, *, shares: dict[str, float] | None = None,
                 render: Callable[[dict], str] | None = None):
        self.opts = opts
        self.shares = dict(shares or {})
        self.render = render
        if opts.device == "auto":
            self.gpu = gpu_available()
        elif opts.device == "gpu":
            if not gpu_available():
                raise SystemExit("--device gpu: CuPy sees no CUDA device")
            self.gpu = True
        else:
            self.gpu = False
        self.device = "gpu" if self.gpu else "cpu"
        self.selected: set[str] = set()  # graphs whose kernel choice this run has recorded
        self.t0 = time.perf_counter()
        budget = opts.budget_s if opts.budget_s is not None else DEFAULT_BUDGET_S[opts.mode]
        self.deadline = self.t0 + budget
        self.section_deadline = self.deadline
        self.cap = opts.measure_cap_s or {"tiny": 30.0, "quick": 60.0, "full": 240.0}[opts.mode]
        self._mats: OrderedDict[str, dict] = OrderedDict()
        self.memo: dict = {}  # results shared between sections, e.g. ("bc_all", graph) -> array
        info = device_info(self.gpu)
        try:
            info["copy_bandwidth"] = copy_bandwidth() if self.gpu else cpu_copy_bandwidth()
        except Exception as e:  # noqa: BLE001
            info["copy_bandwidth"] = {"error": f"{type(e).__name__}: {e}"}
        self.info = info
        date = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        out = Path(opts.out) if opts.out else RESULTS_DIR
        self.json_path = out / info["slug"] / f"{date}.json"
        self.md_path = self.json_path.with_suffix(".md")
        self.data = self._load_or_new(date)
        log(f"device: {info['name']} ({self.device}); mode {opts.mode}; budget {budget:.0f} s; "
            f"copy bandwidth {self.copy_GBps or float('nan'):.0f} GB/s; writing {self.json_path}")

    # ------------------------------------------------------------------ output
    def _load_or_new(self, date: str) -> dict:
        run = {"started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               "argv": self.opts.argv, "mode": self.opts.mode, "device": self.device,
               "sections": self.opts.sections}
        data = None
        if self.json_path.is_file():
            try:
                data = json.loads(self.json_path.read_text())
                if data.get("schema") != SCHEMA:
                    data = None
            except Exception:  # noqa: BLE001
                data = None
        if data is None:
            data = {"schema": SCHEMA, "date": date, "device": {}, "runs": [], "graphs": {},
                    "sections": {}, "records": []}
        # sections re-run now replace their earlier records of the same day
        rerun = set(self.opts.sections)
        data["records"] = [r for r in data["records"] if r.get("section") not in rerun]
        for s in rerun:
            data["sections"].pop(s, None)
        data["device"] = self.info
        data["runs"].append(run)
        data["anchors"] = {k: getattr(anchors, k) for k in dir(anchors) if k.isupper()}
        return data

    def save(self) -> None:
        """Write the JSON (atomically) and the markdown table next to it."""
        self.data["runs"][-1]["updated"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.data["runs"][-1]["wall_s"] = round(time.perf_counter() - self.t0, 3)
        try:
            self.json_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.json_path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(_jsonable(self.data), indent=1))
            os.replace(tmp, self.json_path)
        except Exception as e:  # noqa: BLE001
            log(f"could not write {self.json_path}: {e}")
            return
        if self.render is None:
            return
        try:
            tmp = self.md_path.with_suffix(".md.tmp")
            tmp.write_text(self.render(self.data))
            os.replace(tmp, self.md_path)
        except Exception as e:  # noqa: BLE001
            log(f"could not write markdown: {type(e).__name__}: {e}")

    # ------------------------------------------------------------------ budget
    @property
    def copy_GBps(self) -> float | None:
        return self.info.get("copy_bandwidth", {}).get("GBps")

    def remaining(self) -> float:
        """Seconds left before the current section's (or the run's) deadline."""
        return min(self.section_deadline, self.deadline) - time.perf_counter()

    def start_section(self, name: str, remaining_sections: list[str]) -> None:
        now = time.perf_counter()
        left = self.deadline - now
        shares = sum(self.shares.get(s, DEFAULT_SHARE) for s in remaining_sections) or 1.0
        self.section_deadline = now + left * self.shares.get(name, DEFAULT_SHARE) / shares
        self.data["sections"][name] = {"status": "running", "mode": self.opts.mode,
                                       "allowance_s": round(self.section_deadline - now, 1)}
        log(f"== section {name} (allowance {self.section_deadline - now:.0f} s)")
        self.save()

    def end_section(self, name: str, status: str, error: str | None = None, t0: float = 0.0):
        sec = self.data["sections"].setdefault(name, {})
        sec.update(status=status, wall_s=round(time.perf_counter() - t0, 3))
        if error:
            sec["error"] = error
        self.section_deadline = self.deadline
        log(f"== section {name}: {status} in {sec['wall_s']:.1f} s" + (f" ({error})" if error else ""))
        self.save()

    # ------------------------------------------------------------------ libraries
    def spla(self):
        """The spla module, or SkipSection when it (or its core API) is missing."""
        try:
            import spla  # type: ignore
        except Exception as e:  # noqa: BLE001
            raise SkipSection(f"spla not importable: {type(e).__name__}: {e}") from e
        missing = [a for a in ("Matrix", "vxm") if not hasattr(spla, a)]
        if missing:
            raise SkipSection(f"spla lacks {missing} (engine not written yet?)")
        return spla

    def algorithms(self, *names: str):
        """The algorithms module, or SkipSection naming the missing functions."""
        try:
            from spla import algorithms  # type: ignore
        except Exception as e:  # noqa: BLE001
            raise SkipSection(f"algorithms not importable: {type(e).__name__}: {e}") from e
        missing = [n for n in names if not hasattr(algorithms, n)]
        if missing:
            raise SkipSection(f"algorithms lacks {missing}")
        return algorithms

    @property
    def xp(self):
        if self.gpu:
            import cupy

            return cupy
        return np

    def sync(self) -> None:
        if self.gpu:
            import cupy

            cupy.cuda.get_current_stream().synchronize()

    # ------------------------------------------------------------------ graphs
    def _entry(self, name: str) -> dict:
        if name in self._mats:
            self._mats.move_to_end(name)
            return self._mats[name]
        (src, dst, n, directed), info = G.load_edges(name, use_cache=self.opts.use_cache)
        ent = {"edges": (src, dst, n, directed), "info": info}
        self._mats[name] = ent
        ginfo = self.data["graphs"].setdefault(name, {})
        ginfo.update({k: v for k, v in info.items() if k != "graph"})
        ginfo["directed"] = directed
        log(f"graph {name}: n={n:,} edges={src.size:,} ({'cached' if info.get('cached') else 'made'} "
            f"in {info['gen_s']:.2f} s)")
        self._evict()
        return ent

    def _evict(self) -> None:
        cap_arcs = {"tiny": 10**7, "quick": 2 * 10**8, "full": 3 * 10**8}[self.opts.mode]
        while len(self._mats) > 1:
            tot = sum(e["info"]["edges"] * 2 for e in self._mats.values())
            if len(self._mats) <= 4 and tot <= cap_arcs:
                break
            old, ent = self._mats.popitem(last=False)
            ent.clear()
            free_gpu_memory()

    def drop(self, name: str) -> None:
        """Forget a cached graph (frees its device memory)."""
        ent = self._mats.pop(name, None)
        if ent is not None:
            ent.clear()
            free_gpu_memory()

    def graph(self, name: str) -> tuple[np.ndarray, np.ndarray, int, bool]:
        """Raw edges ``(src, dst, n, directed)`` of a registry graph (cached)."""
        return self._entry(name)["edges"]

    def matrix(self, name: str, where: str | None = None):
        """spla Matrix of graph ``name`` on ``where`` ("cpu"/"gpu", default the run's device).

        Construction (``Matrix.from_edges`` on the CPU) and upload (``.to("gpu")``)
        are timed once and stored under ``graphs[name]`` as ``build_s``/``upload_s``.
        """
        spla = self.spla()
        where = where or self.device
        ent = self._entry(name)
        ginfo = self.data["graphs"][name]
        if "cpu" not in ent:
            src, dst, n, directed = ent["edges"]
            t = time.perf_counter()
            A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="cpu")
            ginfo["build_s"] = round(time.perf_counter() - t, 4)
            ginfo["arcs"] = int(A.nnz)
            ginfo["n"] = int(A.shape[0])
            ent["cpu"] = A
            log(f"graph {name}: Matrix.from_edges {ginfo['build_s']:.2f} s, {A.nnz:,} arcs")
            self.save()
        if where == "gpu" and "gpu" not in ent:
            t = time.perf_counter()
            ent["gpu"] = ent["cpu"].to("gpu")
            self.sync()
            ginfo["upload_s"] = round(time.perf_counter() - t, 4)
            ginfo["upload_GBps"] = round(_matrix_bytes(ent["cpu"]) / max(ginfo["upload_s"], 1e-9) / 1e9, 2)
            log(f"graph {name}: upload {ginfo['upload_s'] * 1e3:.1f} ms")
            self.save()
        return ent[where]

    def selection(self, name: str, A) -> dict:
        """``spla.scale_free_metric(A)`` and ``spla.choose_kernel(A)`` (k=1 and k=32),
        stored under ``graphs[name]`` once per run (a later run of the day may run a changed rule);
        errors are stored, not raised."""
        gi = self.data["graphs"].setdefault(name, {})
        if name not in self.selected:
            self.selected.add(name)
            for key in ("scale_free_metric", "choose_kernel", "choose_kernel_k32", "selection_error"):
                gi.pop(key, None)
            try:
                spla = self.spla()
                gi["scale_free_metric"] = float(spla.scale_free_metric(A))
                gi["choose_kernel"] = list(spla.choose_kernel(A))
                gi["choose_kernel_k32"] = list(spla.choose_kernel(A, k=32))
            except Exception as e:  # noqa: BLE001
                gi["selection_error"] = f"{type(e).__name__}: {e}"
        return gi

    def arcs(self, name: str) -> int:
        """Stored entries of the symmetrised matrix (builds it if needed)."""
        ginfo = self.data["graphs"].get(name, {})
        if "arcs" not in ginfo:
            self.matrix(name, "cpu")
        return int(self.data["graphs"][name]["arcs"])

    def ref(self, name: str):
        """SciPy CSR adjacency for the references.

        Built from the edge list by SciPy, independently of spla, except for
        undirected graphs above ``REF_FROM_SPLA_ARCS`` stored arcs that already have
        a CPU Matrix: there its CSC arrays (which for a symmetric matrix are also
        its CSR arrays) are wrapped without copying, to save a sort of tens of
        millions of entries; spla's construction is covered by its own tests.
        """
        ent = self._entry(name)
        if "ref" not in ent:
            import scipy.sparse as sp

            from .reference import adjacency

            src, dst, n, directed = ent["edges"]
            A = ent.get("cpu")
            if A is not None and not directed and A.nnz > REF_FROM_SPLA_ARCS:
                colptr, rowidx = np.asarray(A.colptr), np.asarray(A.rowidx)
                ent["ref"] = sp.csr_array((np.ones(rowidx.size), rowidx, colptr), shape=(n, n))
                self.data["graphs"][name]["reference_from"] = "spla CPU Matrix arrays"
            else:
                ent["ref"] = adjacency(src, dst, n, directed)
                self.data["graphs"][name]["reference_from"] = "scipy (independent of spla)"
        return ent["ref"]

    def ref_in(self, name: str):
        """SciPy CSR of the reference's transpose, row v = the arcs into v (``ref_in @ x`` is
        ``x +.* A``, and its BFS follows incoming arcs); the reference itself when undirected.  Cached."""
        ent = self._entry(name)
        if "ref_in" not in ent:
            ent["ref_in"] = self.ref(name).T.tocsr() if ent["edges"][3] else self.ref(name)
        return ent["ref_in"]

    def nx_graph(self, name: str):
        """networkx graph of ``name`` (vertices 0..n-1), cached."""
        ent = self._entry(name)
        if "nx" not in ent:
            import networkx as nx

            src, dst, n, directed = ent["edges"]
            g = nx.DiGraph() if directed else nx.Graph()
            g.add_nodes_from(range(n))
            g.add_edges_from(zip(src.tolist(), dst.tolist()))
            ent["nx"] = g
        return ent["nx"]

    def sources(self, name: str, k: int, seed: int = 12345) -> list[int]:
        """k distinct sources with at least one arc, drawn reproducibly."""
        src, dst, n, _ = self.graph(name)
        deg = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
        cand = np.flatnonzero(deg > 0)
        rng = np.random.default_rng(seed)
        k = min(k, cand.size)
        return [int(v) for v in rng.choice(cand, size=k, replace=False)]

    def each_graph(self, section: str, names):
        """Yield ``(name, A, graph_fields)`` for each graph of ``names`` that loads, while
        the time budget lasts; a graph past the budget is recorded as skipped, one that
        fails to load as an error (the section goes on with the next)."""
        for name in names:
            if self.remaining() < 2:
                self.skip(section, {"graph": name}, "time budget spent")
                continue
            try:
                A = self.matrix(name)
            except Exception as e:  # noqa: BLE001
                self.note(section, {"graph": name, "measure": "load", "status": "error",
                                    "error": f"{type(e).__name__}: {e}"})
                continue
            yield name, A, self.graph_fields(name)

    def graph_fields(self, name: str) -> dict:
        """n and arcs of a graph, for records."""
        gi = self.data["graphs"].get(name, {})
        return {"graph": name, "n": gi.get("n"), "arcs": gi.get("arcs")}

    # ------------------------------------------------------------------ records
    def note(self, section: str, fields: dict) -> dict:
        """Add a record that is not a timing of ours (anchor, estimate, derived value)."""
        rec = {"section": section, "mode": self.opts.mode, **fields}
        rec.setdefault("status", "ok")
        self.data["records"].append(rec)
        self.save()
        return rec

    def skip(self, section: str, fields: dict, reason: str) -> dict:
        log(f"{section} {fields.get('graph', '')} {fields.get('measure', '')} "
            f"{fields.get('system', '')}: skipped ({reason})")
        return self.note(section, {**fields, "status": "skipped", "reason": reason})

    def measure(self, section: str, fields: dict, fn: Callable[[], Any], *,
                check: Callable[[Any], tuple[bool, str]] | None = None,
                on: str | None = None, repeat: int | None = None, warmup: int | None = None,
                memory: bool = True, cap_s: float | None = None, min_left_s: float = 1.0,
                once: bool = False, derive: Callable[[dict], dict] | None = None) -> dict:
        """Check and time ``fn``; always returns (and saves) a record.

        The first call is the warm-up (JIT compilation, lazy caches), the result
        check (``check(result) -> (ok, detail)``; a raising check counts as
        failed) and, on the GPU, the memory probe.  After the timed calls one more
        call is checked (``checked_after_timing``), since those may take another path
        (a plan learnt by the first call, a replayed CUDA graph); ``checked`` is True
        only if both checks pass.  A second, timed call
        calibrates the number of repeats to the mode's target wall time; then the
        repeats are timed with CUDA events (``on="gpu"``) or ``perf_counter``
        (``on="cpu"``).  A call slower than twice the target is recorded from that
        one warm call; one too slow for the time left, and every call with
        ``once=True`` (slow peers: networkx, CPU backends, which have no warm-up
        to amortise), from its first call.  ``derive(rec)`` may add throughput
        fields.  Errors and timeouts are recorded as ``status`` "error"/"timeout"
        with the message.
        """
        on = on or self.device
        rec = {"section": section, "mode": self.opts.mode, "device": on, **fields}
        left = self.remaining()
        if left < min_left_s:
            return self.skip(section, fields, "time budget spent")
        cap = min(cap_s or self.cap, left)
        label = " ".join(f"{k}={fields[k]}" if k in ("radius", "k", "source") else str(fields[k])
                         for k in ("graph", "measure", "system", "kernel", "radius", "k", "source")
                         if fields.get(k) not in (None, ""))
        gpu = on == "gpu"
        try:
            with time_limit(cap, label):
                t = time.perf_counter()
                if gpu and memory:
                    result, mem = gpu_peak_memory(fn)
                    rec.update(mem)
                else:
                    result = fn()
                    if gpu:
                        self.sync()
                first = time.perf_counter() - t
                rec["first_call_ms"] = first * 1e3
                if check is not None:
                    ok, detail = _run_check(check, result)
                    rec["checked"], rec["check"] = ok, detail[:400]
                else:
                    rec["checked"] = None
                del result
                left = min(self.section_deadline, self.deadline) - time.perf_counter()
                if gpu and memory and not once and first < min(WARM_PROBE_MAX_S, left / 4):
                    # a second probe once the lazy caches exist: what a repeated call holds
                    _, warm = gpu_peak_memory(fn)
                    rec.update(mem_warm_base_bytes=warm["mem_base_bytes"], mem_warm_peak_bytes=warm["mem_peak_bytes"])
                    left = min(self.section_deadline, self.deadline) - time.perf_counter()
                timer = gpu_time if gpu else cpu_time
                how = "cuda events" if gpu else "perf_counter"
                if once or first > left / 2:
                    # no time for a warm call: the first call is the measurement
                    rec.update(median_ms=first * 1e3, min_ms=first * 1e3, times_ms=[first * 1e3], repeat=1,
                               timed_from="single call" if once else "first call (includes warm-up)")
                elif repeat is not None:
                    tm = timer(fn, warmup=1 if warmup is None else warmup, repeat=repeat)
                    rec.update(median_ms=tm["median_ms"], min_ms=tm["min_ms"], times_ms=tm["all"],
                               repeat=repeat, timed_from=how)
                else:
                    # one warm call calibrates the repeats (the first may have compiled kernels)
                    one = timer(fn, warmup=0, repeat=1)
                    est = max(one["median_ms"] * 1e-3, 1e-6)
                    left = min(self.section_deadline, self.deadline) - time.perf_counter()
                    if est > self.opts.target_s * 2 or 3 * est > left:
                        rec.update(median_ms=one["median_ms"], min_ms=one["median_ms"], times_ms=one["all"],
                                   repeat=1, timed_from=how + " (one warm call)")
                    else:
                        rep = int(min(self.opts.max_repeat, max(3, self.opts.target_s / est)))
                        rep = max(1, min(rep, int(left / 2 / est)))
                        tm = timer(fn, warmup=1 if est < 0.02 else 0, repeat=rep)
                        rec.update(median_ms=tm["median_ms"], min_ms=tm["min_ms"], times_ms=tm["all"],
                                   repeat=rep, timed_from=how)
            spare = min(self.section_deadline, self.deadline) - time.perf_counter()
            if check is not None and not once and rec.get("timed_from") != "first call (includes warm-up)" \
                    and rec["median_ms"] * 1e-3 < spare / 4:
                # the timed calls may take another path than the first (a recorded plan, a replayed
                # CUDA graph): their result is checked too, and both checks must pass
                result = fn()
                if gpu:
                    self.sync()
                ok, detail = _run_check(check, result)
                del result
                rec["checked_after_timing"] = ok
                if not ok:
                    rec["checked"], rec["check"] = False, f"after the timed calls: {detail}"[:400]
            rec["status"] = "ok"
            if derive is not None:
                try:
                    rec.update(derive(rec))
                except Exception as e:  # noqa: BLE001
                    rec["derive_error"] = f"{type(e).__name__}: {e}"
        except MeasurementTimeout as e:
            rec.update(status="timeout", error=str(e))
        except Exception as e:  # noqa: BLE001
            rec.update(status="error", error=f"{type(e).__name__}: {e}"[:600],
                       traceback=traceback.format_exc(limit=-4)[-1500:])
            if gpu:
                free_gpu_memory()
        msg = (f"{section} {label}: {rec['status']}"
               + (f" {rec['median_ms']:.4g} ms" if rec.get("median_ms") is not None else "")
               + (f" checked={rec.get('checked')}" if rec.get("checked") is not None else "")
               + (f" ({rec.get('error')})" if rec.get("error") else ""))
        log(msg)
        rec = _jsonable(rec)
        self.data["records"].append(rec)
        self.save()
        return rec


def _matrix_bytes(A) -> int:
    """Bytes of a Matrix's CSC arrays (colptr, rowidx, values)."""
    tot = 0
    for attr in ("colptr", "rowidx", "values"):
        a = getattr(A, attr, None)
        if a is not None:
            tot += int(a.nbytes)
    return tot


def matrix_bytes(A) -> int:
    return _matrix_bytes(A)


def ok_close(got, want, rtol=1e-9, atol=1e-12):
    """Shortcut returning a check closure-friendly (ok, detail) for two arrays."""
    from .reference import allclose_report

    return allclose_report(_host(got), _host(want), rtol=rtol, atol=atol)


def _host(x):
    """NumPy copy of a NumPy/CuPy array (or anything array-like)."""
    if hasattr(x, "get") and not isinstance(x, np.ndarray):
        return x.get()
    return np.asarray(x)


host = _host
