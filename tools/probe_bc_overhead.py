"""Single-source betweenness: the reset / between-sweeps / finish work eager (the code before they
became replayed steps) against replayed, side by side on one matrix and one workspace.

    PYTHONPATH=. python3 tools/probe_bc_overhead.py [graph ...]

Prints CUDA-event medians (5 sources x 5 calls, after warm-up) and checks equal results; writes
$OUT/probe_bc_overhead.json when OUT is set.
"""
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import cupy as cp
import numpy as np

import spla
from algorithms import betweenness as bc
from benchmarks import graphs


def eager_single_source(P, s, acc, kernel):
    """The body of algorithms.betweenness._single_source before this change (eager set-up/finish)."""
    xp = P.xp
    ws = bc._single_source_workspace(P, kernel)
    ws.sigma.fill(0)
    ws.level.fill(-1)
    ws.reached.fill(False)
    ws.frontier.fill(0)
    ws.frontier[s] = 1.0
    ws.T.fill(0)
    ws.d.fill(0)
    exps = [0]
    while True:
        ws.forward()
        top = float(ws.top)
        if not top > 0:
            break
        e = int(np.frexp(top)[1]) if top > bc.RESCALE_ABOVE else 0
        if e:
            xp.copyto(ws.frontier, xp.ldexp(ws.frontier, -e))
        exps.append(e)
    depth = len(exps) - 1
    xp.divide(1.0, xp.where(ws.reached, ws.sigma, 1.0), out=ws.inv_sigma)
    ws.d.fill(depth)
    for d in range(depth, 0, -1):
        if exps[d]:
            ws._backward_step(scale=-exps[d])
        else:
            ws.backward()
    delta = ws.sigma * ws.T
    delta[s] = 0.0
    acc += delta


def median_ms(fn, sources):
    per = []
    for s in sources:
        fn(s); fn(s)
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        t = []
        for _ in range(5):
            e0.record(); fn(s); e1.record(); e1.synchronize()
            t.append(cp.cuda.get_elapsed_time(e0, e1))
        per.append(statistics.median(t))
    return statistics.median(per)


rows = []
for name in sys.argv[1:] or ["myc15", "ws100k", "kron18", "myc16", "grid400"]:
    (src, dst, n, directed), _ = graphs.load_edges(name)
    A = spla.Matrix.from_edges(src, dst, n=n, directed=directed, device="gpu")
    P = A.pattern()
    deg = np.bincount(np.asarray(src), minlength=n)
    sources = [int(v) for v in np.random.default_rng(0).choice(np.nonzero(deg)[0], 5, replace=False)]
    kernel = "auto"
    acc_old = cp.zeros(n)
    acc_new = cp.zeros(n)
    t_old = median_ms(lambda s: eager_single_source(P, s, acc_old, kernel), sources)
    t_new = median_ms(lambda s: bc._single_source(P, s, acc_new, endpoints=False, kernel=kernel), sources)
    acc_old.fill(0); acc_new.fill(0)
    eager_single_source(P, sources[0], acc_old, kernel)
    bc._single_source(P, sources[0], acc_new, endpoints=False, kernel=kernel)
    same = bool(cp.allclose(acc_old, acc_new, rtol=1e-12, atol=0))
    rows.append({"graph": name, "eager_setup_ms": t_old, "replayed_setup_ms": t_new, "same": same})
    print(f"{name:10s} eager set-up/finish {t_old:8.3f} ms   replayed {t_new:8.3f} ms   equal={same}", flush=True)
if os.environ.get("OUT"):
    Path(os.environ["OUT"], "probe_bc_overhead.json").write_text(json.dumps(rows, indent=1))
