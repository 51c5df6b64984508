"""Strong scaling of the all-sources measures over a Dask cluster: 1 GPU, then 1, 2, ..., G workers.

For each measure (all-sources betweenness and closeness by default) on one generated graph
(Graph500 Kronecker, ``--graph kronS``; the registered ones of ``benchmarks/graphs.py``, or any
scale), on one host of G GPUs:

* ``plain``: the single-device call on ``gpu:0`` (``device="gpu:0"``, no Dask), timed with CUDA events
  and the wall clock;
* ``dask-W`` for W in ``--workers`` (default 1, 2, 4, ..., G): the same call with ``client=`` a
  ``dask_cuda.LocalCUDACluster`` of W workers (one GPU each), timed with the wall clock (the work
  runs in the workers' processes, where this process's CUDA events do not see it).  A timed call
  pays what a user's later calls on the same Matrix and client pay: probing the workers, the
  chunks, the sums; the graph is on the workers already (``client=`` sends it once per Matrix and
  client), and sending it, which a user's first call pays too, is timed apart (``send``).

Each configuration gets one untimed warm-up call (kernels compiled and loaded on every worker):
betweenness on ``--warm-sources`` sampled sources, the measures that run every source on a
Kronecker graph of scale 12 (their whole call on the measured graph would cost as much as the
timed one; a registered graph warms on itself), then ``--repeat`` timed calls (the median is
reported; the plain call's are bracketed by CUDA events as well).  Each
Dask answer is checked against the plain one (max relative difference; the claim is <= 1e-12).
Speedup = plain median wall time / Dask median wall time.  Results: one JSON per host size and graph,
``benchmarks/results_scaling/<device-slug>-x<G>-<graph>.json`` (``<out>/scaling/`` with ``--out``), and the
table on stdout; ``python -m benchmarks.plot`` draws ``docs/img/bench-scaling-<device>-x<G>-<graph>.png`` from
them and ``python -m benchmarks.docs`` puts both on the benchmarks page, with the targets of issue #36
(:data:`TARGETS`).

    python -m benchmarks.scaling --graph kron18                   # on a host of G GPUs
    python -m benchmarks.scaling --graph kron10 --device cpu      # smoke test: CPU LocalCluster workers

With ``--device cpu`` the workers are ``distributed.LocalCluster`` processes on the CPU (a check of
the harness, not a scaling measurement: the workers share the cores).

On the device machine (``nvidia-h100-x2``, ``-x4``), whose image lacks Dask: ``bash
tools/dask_wheels.sh`` here, then with ``carry: [".whl"]``::

    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit; \
        python3 -m benchmarks.scaling --graph kron18 --out $OUT 2>&1 | tail -n 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from . import graphs
from .timing import device_info

RESULTS_DIR = Path(__file__).resolve().parent / "results_scaling"
MEASURES = ("bc", "closeness", "harmonic", "distance-sum", "edge-bc")
#: speedup targets against the plain single-GPU call, by workers (issue #36); and the one-worker run's
#: largest slowdown
TARGETS = {2: 1.9, 4: 3.7}
ONE_WORKER_SLACK = 0.05
#: the plain single-GPU call's wall seconds that make a graph large enough to show the scaling (issue #36)
PLAIN_SECONDS = (60, 300)


def log(msg: str) -> None:
    print(f"[scaling {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def load_graph(name: str, device: str):
    """(spla.Matrix on ``device``, info) of a registered graph, or ``kronS`` of any scale S."""
    import spla

    if name in graphs.GRAPHS:
        (src, dst, n, directed), info = graphs.load_edges(name)
        label = graphs.GRAPHS[name].label or name
    elif name.startswith("kron") and name[4:].isdigit():
        s = int(name[4:])
        src, dst, n, directed = graphs.kronecker(s, 16, seed=s)
        src, dst = graphs.clean_edges(src, dst)
        label, info = f"Graph500 scale {s}", {}
    else:
        raise SystemExit(f"unknown graph {name!r}: a registered one ({', '.join(sorted(graphs.GRAPHS))}) or kronS")
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="cpu")
    info = {"name": name, "label": label, "n": int(A.shape[0]), "arcs": int(A.nnz), "directed": bool(A.directed),
            **{k: v for k, v in info.items() if isinstance(v, (int, float, str))}}
    return A.to(device), info


def measure_function(key):
    """(function, keyword arguments, how to read its answer as one float64 array) of a measure."""
    from spla import algorithms as alg

    return {
        "bc": (alg.betweenness_centrality, {}, np.asarray),
        "closeness": (alg.closeness_centrality, {}, np.asarray),
        "harmonic": (alg.harmonic_centrality, {}, np.asarray),
        "distance-sum": (alg.sum_of_distances, {}, lambda x: np.asarray(x, dtype=np.float64)),
        "edge-bc": (alg.edge_betweenness_centrality, {}, lambda x: np.asarray(x.data)),
    }[key]


def start_cluster(workers: int, device: str):
    """A Dask client of ``workers`` workers: one GPU each (dask_cuda), or CPU processes."""
    import distributed

    if device == "cpu":
        lc = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", env={"CUDA_VISIBLE_DEVICES": ""})
    else:
        from dask_cuda import LocalCUDACluster

        lc = LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(workers)), n_workers=workers, threads_per_worker=1,
                              dashboard_address=":0")
    client = distributed.Client(lc)
    client.wait_for_workers(workers, timeout=300)
    return lc, client


def wall(fn, repeat, events=False):
    """(answer of the last call, wall times in ms, CUDA-event times in ms or None) of ``repeat``
    calls; with ``events`` each call is also bracketed by CUDA events on the current stream."""
    times, cuda, out = [], [] if events else None, None
    for _ in range(repeat):
        if events:
            import cupy

            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
        t = time.perf_counter()
        out = fn()
        if events:
            end.record()
            end.synchronize()
            cuda.append(float(cupy.cuda.get_elapsed_time(start, end)))
        times.append((time.perf_counter() - t) * 1e3)
    return out, times, cuda


#: the Kronecker scale of the warm-up graph of the measures that run every source (closeness, ...):
#: a whole call on the measured graph would cost as much as the timed one
WARM_SCALE = 12


def warm(fn_key, A, k, small, **kw):
    """One untimed call: on k sampled sources of A (bc, edge-bc), else the whole measure on ``small``
    (a small graph of A's kind, whose kernels A's call uses too; A itself when it has none)."""
    fn, base, _ = measure_function(fn_key)
    if fn_key in ("bc", "edge-bc"):
        fn(A, k=min(k, A.shape[0]), seed=0, **base, **kw)
    else:
        fn(small, **base, **kw)


def chunk_load(tasks) -> dict:
    """How the chunks fell, from a Dask task stream's records (all the timed calls): ``by_worker``,
    [chunks, seconds computing them] of each worker; ``chunks``, [chunk index, worker index, seconds]
    of each chunk in the order they ran."""
    workers, chunks = {}, []
    for t in sorted(tasks, key=lambda t: min((ss["start"] for ss in t.get("startstops", ())), default=0.0)):
        key = str(t.get("key", ""))
        if not key.startswith("spla-chunk"):
            continue
        busy = sum(ss["stop"] - ss["start"] for ss in t.get("startstops", ()) if ss.get("action") == "compute")
        w = workers.setdefault(t["worker"], len(workers))
        chunks.append([int(key.rsplit("-", 1)[1]), w, round(busy, 4)])
    by_worker = [[sum(1 for c in chunks if c[1] == w), sum(c[2] for c in chunks if c[1] == w)]
                 for w in range(len(workers))]
    return {"by_worker": by_worker, "chunks": chunks}


def rel_diff(got, want) -> float:
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-300)
    return float(np.max(np.abs(got - want), initial=0.0) / scale)


def run(opts) -> dict:
    import spla
    from spla.algorithms import cluster

    gpu = opts.device != "cpu"
    if gpu and not spla.gpu_available():
        raise SystemExit("no GPU: CuPy sees none (use --device cpu for the smoke test)")
    count = spla.device.cupy_module().cuda.runtime.getDeviceCount() if gpu else os.cpu_count()
    workers = opts.workers or sorted({1, *[w for w in (2, 4, 8, 16) if w <= count], count})
    workers = [w for w in workers if w <= count] if gpu else workers
    device = "gpu:0" if gpu else "cpu"
    A, ginfo = load_graph(opts.graph, device)
    kron = opts.graph.startswith("kron") and opts.graph[4:].isdigit()
    small = load_graph(f"kron{min(WARM_SCALE, int(opts.graph[4:]))}", device)[0] if kron else A
    info = device_info(gpu)
    result = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "device": info,
              "gpus": count if gpu else 0, "graph": ginfo, "argv": sys.argv[1:], "records": [],
              "kernel_cache_files": kernel_cache_files()}
    folder = Path(opts.out) / "scaling" if opts.out else RESULTS_DIR
    # one file per machine and graph: the measures of one graph run together, and another graph
    # (closeness needs a larger one than betweenness for the same time) keeps its own runs
    out = folder / f"{info['slug']}-x{count if gpu else 0}-{opts.graph}.json"
    log(f"{info['name']} x{count}; graph {ginfo['label']}: {ginfo['n']:,} vertices, {ginfo['arcs']:,} arcs; "
        f"workers {workers}; writing {out}")

    def save():
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=1))
        os.replace(tmp, out)

    answers = {}
    for key in opts.measures:
        fn, base, read = measure_function(key)
        warm(key, A, opts.warm_sources, small)
        # the same calls in device time too (CUDA events on gpu:0's stream)
        answer, times, cuda = wall(lambda: fn(A, **base), opts.repeat, events=gpu)
        rec = {"measure": key, "config": "plain", "workers": 0, "wall_ms": times,
               "median_wall_ms": statistics.median(times)}
        if gpu:
            rec["cuda_median_ms"] = statistics.median(cuda)
        answers[key] = read(answer)
        result["records"].append(rec)
        log(f"{key}: plain {rec['median_wall_ms'] / 1e3:.2f} s")
        save()
    if gpu:  # the blocks this process's pool keeps would leave worker 0's GPU less free memory than the others'
        spla.memory.release(device)
    for w in workers:
        import distributed

        lc, client = start_cluster(w, opts.device)
        try:
            t = time.perf_counter()
            cluster.scattered(client, A, values=False)  # the graph onto every worker, as a first call sends it
            send_ms = (time.perf_counter() - t) * 1e3
            log(f"graph sent to {w} worker(s) in {send_ms / 1e3:.2f} s")
            for key in opts.measures:
                fn, base, read = measure_function(key)
                warm(key, A, opts.warm_sources * w, small, client=client)
                with distributed.get_task_stream(client) as stream:
                    answer, times, _ = wall(lambda: fn(A, client=client, **base), opts.repeat)
                plain = next(r for r in result["records"] if r["measure"] == key and r["config"] == "plain")
                rec = {"measure": key, "config": f"dask-{w}", "workers": w, "wall_ms": times,
                       "median_wall_ms": statistics.median(times), "send_ms": send_ms,
                       "speedup": plain["median_wall_ms"] / statistics.median(times),
                       "max_rel_diff": rel_diff(read(answer), answers[key]),
                       "chunks_by_worker": chunk_load(stream.data)}
                result["records"].append(rec)
                log(f"{key}: {w} worker(s) {rec['median_wall_ms'] / 1e3:.2f} s, speedup {rec['speedup']:.2f}, "
                    f"max rel diff {rec['max_rel_diff']:.2g}; chunks and busy s by worker "
                    f"{', '.join(f'{c} {b:.2f}' for c, b in rec['chunks_by_worker']['by_worker'])}")
                save()
        finally:
            client.close()
            lc.close()
    print(title(result) + "\n\n" + markdown(result))
    for c in headlines(result):
        print(f"{'ok  ' if c['ok'] else 'MISS'} {c['what']}: {c['value']} (target {c['target']})")
    return result


def markdown(result) -> str:
    """The table of one run: per measure and configuration, the median wall time and the speedup."""
    lines = ["| measure | run | workers | median wall s | CUDA-event s | speedup vs plain | max rel diff | graph sent s | "
             "chunks' s per worker |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in result["records"]:
        cuda = f"{r['cuda_median_ms'] / 1e3:.2f}" if r.get("cuda_median_ms") is not None else ""
        speed = f"{r['speedup']:.2f}x" if "speedup" in r else "1 (baseline)"
        diff = f"{r['max_rel_diff']:.1e}" if "max_rel_diff" in r else ""
        # runs before the graph stayed on the workers sent it in every timed call
        send = f"{r['send_ms'] / 1e3:.2f}" if "send_ms" in r else ("in the call" if "speedup" in r else "")
        # the seconds each worker spent computing chunks, least to most (runs that recorded them)
        busy = [b for _, b in (r.get("chunks_by_worker") or {}).get("by_worker", ())]
        spread = f"{min(busy):.2f}-{max(busy):.2f}" if busy else ""
        lines.append(f"| {r['measure']} | {r['config']} | {r['workers']} | {r['median_wall_ms'] / 1e3:.2f} | {cuda} | "
                     f"{speed} | {diff} | {send} | {spread} |")
    return "\n".join(lines) + "\n"


def kernel_cache_files() -> int:
    """Files in CuPy's on-disk kernel cache (``CUPY_CACHE_DIR``, by default ``~/.cupy/kernel_cache``) before
    the run: 0 on a machine where nothing was compiled yet."""
    folder = Path(os.environ.get("CUPY_CACHE_DIR") or Path.home() / ".cupy" / "kernel_cache")
    return sum(1 for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else 0


def title(result) -> str:
    g = result["graph"]
    cache = result.get("kernel_cache_files")
    return (f"{result['device']['name']} x{result['gpus']}: {g['label']} ({g['n']:,} vertices, {g['arcs']:,} arcs, "
            f"{'directed' if g.get('directed') else 'undirected'})"
            + ("" if cache is None else f"; CuPy kernel cache at start: {cache:,} files"))


def headlines(result) -> list[dict]:
    """The run's claims against :data:`TARGETS`: speedups at 2 and 4 workers, the one-worker run
    within :data:`ONE_WORKER_SLACK` of the plain call, and every answer within 1e-12; on GPUs, whether
    the plain call's time is in :data:`PLAIN_SECONDS` (a graph large enough to show the scaling)."""
    out = []
    for r in result["records"]:
        if r["config"] == "plain" and result.get("gpus"):
            s = r["median_wall_ms"] / 1e3
            out.append({"what": f"{r['measure']}, the plain call's time on one GPU (the graph's size)",
                        "value": f"{s:.1f} s", "target": f"{PLAIN_SECONDS[0]}-{PLAIN_SECONDS[1]} s",
                        "ok": PLAIN_SECONDS[0] <= s <= PLAIN_SECONDS[1]})
        if "speedup" not in r:
            continue
        what = f"{r['measure']}, {r['workers']} worker{'s' if r['workers'] != 1 else ''}"
        if r["workers"] in TARGETS:
            out.append({"what": f"{what}: speedup", "value": f"{r['speedup']:.2f}x",
                        "target": f">= {TARGETS[r['workers']]}x", "ok": r["speedup"] >= TARGETS[r["workers"]]})
        if r["workers"] == 1:
            out.append({"what": f"{what}: wall time over the plain call's", "value": f"{1 / r['speedup']:.3f}",
                        "target": f"<= {1 + ONE_WORKER_SLACK}", "ok": 1 / r["speedup"] <= 1 + ONE_WORKER_SLACK})
        out.append({"what": f"{what}: max relative difference", "value": f"{r['max_rel_diff']:.1e}",
                    "target": "<= 1e-12", "ok": r["max_rel_diff"] <= 1e-12})
    return out


def load_all(folder: Path = RESULTS_DIR) -> list[tuple[str, dict]]:
    """(file stem, result) of every scaling run under ``folder``, by name."""
    return [(p.stem, json.loads(p.read_text())) for p in sorted(Path(folder).glob("*.json"))] \
        if Path(folder).is_dir() else []


def page_block(folder: Path = RESULTS_DIR, img: Path | None = None) -> str:
    """The benchmarks page's part for the scaling runs ("" when there are none)."""
    runs = load_all(folder)
    if not runs:
        return ""
    parts = ["## Strong scaling over Dask\n",
             "`python -m benchmarks.scaling` (`benchmarks/scaling.py`): the plain single-GPU call against "
             "`client=` runs on `dask_cuda.LocalCUDACluster`s of 1, 2, 4, ... workers of one host, wall-clock "
             "medians; speedup = plain over Dask; the chunks' seconds per worker (least-most, from Dask's task "
             "stream) tell uneven chunks (a spread) from workers each slower than the plain call (no spread).  "
             "The warm-up graph is small, so a first call on the measured graph may still compile kernels: "
             "on a machine whose CuPy kernel cache starts empty (a title gives its files where the run "
             "recorded them) each worker process compiles them on its own, in its first chunks, inside the "
             "timed call.\n"]
    for stem, result in runs:
        claims = headlines(result)
        missed = [c for c in claims if not c["ok"]]
        text = "Every target is met." if not missed else "Targets missed: " + "; ".join(
            f"{c['what']} {c['value']} (target {c['target']})" for c in missed) + "."
        parts.append(f"### {title(result)}\n\nResults: `benchmarks/results_scaling/{stem}.json`.\n\n"
                     f"{markdown(result)}\n{text}\n")
        if img is not None and (Path(img) / f"bench-scaling-{stem}.png").is_file():
            parts.append(f"![speedup against workers](img/bench-scaling-{stem}.png)\n")
    return "\n".join(p.rstrip() + "\n" for p in parts)


def plot(result, path: Path) -> bool:
    """Speedup against workers, one line per measure, beside the ideal."""
    recs = [r for r in result["records"] if "speedup" in r]
    if not recs:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4))
    top = max(r["workers"] for r in recs)
    ax.plot([1, top], [1, top], "k:", label="ideal")
    for key in dict.fromkeys(r["measure"] for r in recs):
        pts = sorted((r["workers"], r["speedup"]) for r in recs if r["measure"] == key)
        ax.plot([w for w, _ in pts], [v for _, v in pts], "o-", label=key)
    ax.set_xlabel("Dask workers (one GPU each)")
    ax.set_ylabel("speedup over the plain single-GPU call")
    ax.set_title(title(result).replace(": ", ":\n", 1), fontsize=8)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.scaling", description=__doc__.splitlines()[0])
    p.add_argument("--graph", default="kron18", help="kronS (Graph500 scale S) or a registered graph (default kron18)")
    p.add_argument("--measures", default="bc,closeness",
                   help=f"comma-separated, of {', '.join(MEASURES)} (default bc,closeness)")
    p.add_argument("--workers", default=None,
                   help="comma-separated worker counts (default 1, 2, 4, ... up to every GPU)")
    p.add_argument("--repeat", type=int, default=1, help="timed calls per configuration (median; default 1)")
    p.add_argument("--warm-sources", type=int, default=256,
                   help="sampled sources of bc's warm-up call, per worker (default 256)")
    p.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    p.add_argument("--out", default=None, help="results folder (default benchmarks/results)")
    opts = p.parse_args(argv)
    opts.measures = [m.strip() for m in opts.measures.split(",") if m.strip()]
    bad = [m for m in opts.measures if m not in MEASURES]
    if bad:
        p.error(f"unknown measure(s) {', '.join(bad)}; choose from {', '.join(MEASURES)}")
    opts.workers = [int(w) for w in opts.workers.split(",")] if opts.workers else None
    run(opts)


if __name__ == "__main__":
    main()
