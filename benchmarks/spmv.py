"""Section ``spmv``: the engine's products against cuSPARSE and the bandwidth floor.

For every graph of at least 10 M arcs (issue #2's Performance section):

- ``spla.vxm(u, A, "plus_times")`` on a float32 vector with each kernel (scCSC,
  veCSC, scCOOC) and "auto", beside cuSPARSE CSR SpMV (``cupyx.scipy.sparse``)
  on the same index arrays; throughput in G arcs/s and the fraction of the
  device-to-device copy bandwidth reached by the bytes the product must move;
- the same product with a mask that keeps 10 % of the columns (90 % excluded);
- both again as device time: DEV_REPEAT back-to-back products (into a preallocated
  output) recorded once as one CUDA graph (``spla.Replay``) and timed by replaying it,
  divided by DEV_REPEAT, so neither the Python dispatch of each call nor the graph
  launch bounds the short masked products on either side of the mask ratio; the masked
  product also without scCSC's warp tiles, with the mask worklist forced on (``system``
  "spla-worklist") and off ("spla-columnwalk": every column tests its own mask), beside the
  defaults;
- a k = 32 block product (u of shape (n, 32)), in arc*vectors/s, beside
  cuSPARSE SpMM;
- ``spla.scale_free_metric(A)`` and ``spla.choose_kernel(A)``.

A second list of smaller graphs is measured with the three kernels only (unmasked, as one call
and, on the GPU, in device time), so the calibration plot (kernel time ratio against the
scale-free metric) has more points.
Every result is checked against a float64 SciPy product of the reference adjacency.
"""

from __future__ import annotations

import numpy as np

from .anchors import CUSPARSE_H200_GARCS, TARGETS
from .core import Bench, host
from .reference import allclose_report
from .tables import chk, claim, geomean, ms, num, peer_name, ratio, table

NAME = "spmv"
KERNELS = ("scCSC", "veCSC", "scCOOC")
BLOCK_K = 32
MASK_KEEP = 0.10
DEV_REPEAT = 16  # products per replayed graph in the device-time measurements

BIG = {
    "tiny": ["kron10", "myc8", "grid30"],
    "quick": ["kron20", "myc16", "ws2M", "grid2000", "ba2M_m4"],
    "full": ["kron20", "kron21", "myc16", "myc17", "ws2M", "grid2000", "ba2M_m4"],
}
CALIBRATION = {
    "tiny": ["ws1k", "ba1k_m4"],
    "quick": ["kron18", "myc15", "ws100k", "ba1M_m4", "grid400", "musae-facebook"],
    "full": ["kron16", "kron18", "myc12", "myc15", "ws100k", "ba100k_m4", "ba1M_m4", "grid400",
             "musae-facebook", "email-Enron", "ca-AstroPh", "delaunay_n16", "luxembourg_osm", "wave",
             "ws500k_k40"],
}
#: largest graph (arcs) on which the CPU peers (spla CPU backend, SciPy) are timed
CPU_PEER_ARCS = {"tiny": 10**9, "quick": 4 * 10**7, "full": 2 * 10**8}
#: float32 sums of up to ~1e5 positive terms against a float64 reference: the recorded checks' largest
#: error is 5.4e-6 relative (kron20), while a tolerance of 2e-3 lets a lost chunk of 64 entries of
#: kron20's longest column (64,676 entries) pass
RTOL = 1e-4


def floor_bytes(n_rows: int, n_cols: int, arcs: int, idx: int, k: int = 1, values: int = 0) -> int:
    """Bytes a CSC product must move at least: the column pointers and row indices
    (plus ``values`` bytes per stored value, 0 for a pattern matrix), one read of
    every input row's k values and one write of every output's k values (float32)."""
    return idx * (n_cols + 1) + (idx + values) * arcs + 4 * k * (n_rows + n_cols)


def run(b: Bench) -> None:
    """Run the section (see the module docstring)."""
    spla = b.spla()
    for name in BIG[b.opts.mode]:
        _graph(b, spla, name, big=True)
    for name in CALIBRATION[b.opts.mode]:
        _graph(b, spla, name, big=False)


def _graph(b: Bench, spla, name: str, big: bool) -> None:
    base = {"graph": name}
    if b.remaining() < 2:
        b.skip(NAME, base, "time budget spent")
        return
    try:
        A = b.matrix(name)
    except Exception as e:  # noqa: BLE001
        b.note(NAME, {**base, "measure": "load", "status": "error", "error": f"{type(e).__name__}: {e}"})
        return
    xp = b.xp
    n_rows, n_cols = (int(s) for s in A.shape)
    arcs = int(A.nnz)
    idx = int(np.dtype(A.rowidx.dtype).itemsize)
    gf = {**b.graph_fields(name), "big": big and arcs >= 10**7}
    gpu = b.gpu
    bw = b.copy_GBps

    # kernel selection facts
    sel = b.selection(name, A)
    if "selection_error" in sel:
        b.note(NAME, {**gf, "measure": "selection", "status": "error", "error": sel["selection_error"]})
    else:
        b.note(NAME, {**gf, "measure": "selection", "system": "spla", "scale_free_metric": sel["scale_free_metric"],
                      "kernel_choice": sel["choose_kernel"][0], "reason": sel["choose_kernel"][1],
                      "kernel_choice_k32": sel["choose_kernel_k32"][0]})

    rng = np.random.default_rng(0)
    u_h = rng.random(n_rows, dtype=np.float32)
    AT = b.ref_in(name)  # SciPy CSR of A^T (float64 ones)
    y_ref = AT @ u_h.astype(np.float64)
    u = xp.asarray(u_h)

    def check_vec(want):
        return lambda y: allclose_report(host(y), want, rtol=RTOL, atol=1e-6)

    def thr(k=1, values=0):
        fb = floor_bytes(n_rows, n_cols, arcs, idx, k, values)

        def derive(rec):
            s = rec["median_ms"] * 1e-3
            out = {"floor_bytes": fb, "gteps": arcs * k / s / 1e9, "arc_vectors_per_s": arcs * k / s,
                   "floor_GBps": fb / s / 1e9}
            if bw and rec.get("device") == b.device:  # (CPU peers of a GPU run: no GPU yardstick)
                out["frac_copy_bw"] = fb / s / 1e9 / bw
            return out
        return derive

    # 1-D products, each kernel and auto
    for kernel in KERNELS + ("auto",):
        b.measure(NAME, {**gf, "measure": "vxm", "system": "spla", "kernel": kernel, "k": 1},
                  lambda kernel=kernel: spla.vxm(u, A, "plus_times", kernel=kernel),
                  check=check_vec(y_ref), derive=thr())
    # the yardstick: cuSPARSE CSR SpMV (GPU) / SciPy CSR SpMV (CPU)
    peer = "cusparse" if gpu else "scipy"
    try:
        from .peers import transpose_csr

        S = transpose_csr(A, np.float32, gpu=gpu)
        b.measure(NAME, {**gf, "measure": "vxm", "system": peer, "kernel": "csr", "k": 1},
                  lambda: S @ u, check=check_vec(y_ref), derive=thr(values=4))
    except Exception as e:  # noqa: BLE001
        S = None
        b.note(NAME, {**gf, "measure": "vxm", "system": peer, "status": "error",
                      "error": f"{type(e).__name__}: {e}"})

    if not big:
        if gpu:  # the calibration plot's points, without the host dispatch of each call
            _device_times(b, spla, A, u, None, gf, check_vec(y_ref), None)
        return

    # 90%-masked product
    mask_h = rng.random(n_cols) < MASK_KEEP
    mask = xp.asarray(mask_h)
    y_ref_m = np.where(mask_h, y_ref, 0.0)
    for kernel in KERNELS + ("auto",):
        b.measure(NAME, {**gf, "measure": "vxm_masked90", "system": "spla", "kernel": kernel, "k": 1,
                         "mask_kept": float(mask_h.mean())},
                  lambda kernel=kernel: spla.vxm(u, A, "plus_times", mask=mask, kernel=kernel),
                  check=check_vec(y_ref_m))
    if gpu:
        _device_times(b, spla, A, u, mask, gf, check_vec(y_ref), check_vec(y_ref_m))
    mask = None  # noqa: F841 - release the device array (closures hold the cell)

    # k = 32 block product; column 0 is u itself, two more columns are checked
    U_h = rng.random((n_rows, BLOCK_K), dtype=np.float32)
    U_h[:, 0] = u_h
    cols = [0, 7, BLOCK_K - 1]
    want_cols = AT @ U_h[:, cols].astype(np.float64)

    def check_block(Y):
        Yh = host(Y)
        if Yh.shape != (n_cols, BLOCK_K):
            return False, f"shape {Yh.shape}, expected {(n_cols, BLOCK_K)}"
        return allclose_report(Yh[:, cols], want_cols, rtol=RTOL, atol=1e-6)

    try:
        U = xp.asarray(U_h)
    except Exception as e:  # noqa: BLE001 - out of memory on a small device
        b.note(NAME, {**gf, "measure": "vxm_block32", "status": "error", "error": f"{type(e).__name__}: {e}"})
        U = None
    if U is not None:
        for kernel in KERNELS + ("auto",):
            b.measure(NAME, {**gf, "measure": "vxm_block32", "system": "spla", "kernel": kernel, "k": BLOCK_K},
                      lambda kernel=kernel: spla.vxm(U, A, "plus_times", kernel=kernel),
                      check=check_block, derive=thr(k=BLOCK_K))
        if gpu:
            _block_device_time(b, spla, A, U, gf, check_block)
        if S is not None:
            # cuSPARSE's SpMM wants a column-major dense operand: give it one (made outside the timing)
            Uf = xp.asfortranarray(U)
            U = None
            b.measure(NAME, {**gf, "measure": "vxm_block32", "system": peer, "kernel": "csr", "k": BLOCK_K,
                             "layout": "column-major"},
                      lambda: S @ Uf, check=check_block, derive=thr(k=BLOCK_K, values=4))
            Uf = None  # noqa: F841
        U = None  # noqa: F841

    # CPU peers: spla's CPU backend and SciPy, on the same graph
    if gpu and b.opts.peers:
        if arcs > CPU_PEER_ARCS[b.opts.mode]:
            b.skip(NAME, {**gf, "measure": "vxm", "system": "spla-cpu"}, "graph too large for the CPU peer in this mode")
        else:
            Ac = b.matrix(name, "cpu")
            b.measure(NAME, {**gf, "measure": "vxm", "system": "spla-cpu", "kernel": "auto", "k": 1},
                      lambda: spla.vxm(u_h, Ac, "plus_times"), check=check_vec(y_ref), on="cpu",
                      derive=thr())
            Sc = AT.astype(np.float32)
            b.measure(NAME, {**gf, "measure": "vxm", "system": "scipy", "kernel": "csr", "k": 1},
                      lambda: Sc @ u_h, check=check_vec(y_ref), on="cpu", derive=thr(values=4))


def _block_device_time(b: Bench, spla, A, U, gf: dict, check_block) -> None:
    """The k = 32 block product (kernel "auto") in device time (measure ``vxm_block32_dev``; per product:
    the replayed graph's time / DEV_REPEAT), as ``vxm_dev`` times k = 1: the ratio of the two is the
    products' throughput without the host's share of one call."""
    if b.remaining() < 2:
        b.skip(NAME, {**gf, "measure": "vxm_block32_dev", "system": "spla", "kernel": "auto"}, "time budget spent")
        return
    Y = b.xp.empty((int(A.shape[1]), U.shape[1]), dtype=U.dtype)

    def step():
        for _ in range(DEV_REPEAT):
            # Y = U +.* A
            spla.vxm(U, A, "plus_times", out=Y)

    try:
        rep = spla.Replay(step, A.device, name="vxm_block32_dev")
        rep()
        rep()  # warm-up, then recorded: later calls replay the graph
    except Exception as e:  # noqa: BLE001
        b.note(NAME, {**gf, "measure": "vxm_block32_dev", "system": "spla", "kernel": "auto", "status": "error",
                      "error": f"{type(e).__name__}: {e}"})
        return
    Y.fill(np.nan)  # the check must see what the replays write, not the eager warm-up's result
    b.measure(NAME, {**gf, "measure": "vxm_block32_dev", "system": "spla", "kernel": "auto", "k": BLOCK_K,
                     "replayed": rep.mode == "graph", "products_per_call": DEV_REPEAT},
              lambda: (rep(), Y)[1], check=check_block, memory=False)


def _device_times(b: Bench, spla, A, u, mask, gf: dict, check_full, check_masked) -> None:
    """Unmasked and 90%-masked products in device time (measures ``vxm_dev`` and ``vxm_masked90_dev``;
    ``median_ms`` is per product: the replayed graph's time / DEV_REPEAT), with the mask worklist
    chosen by its rule and scCSC's masked products as warp tiles ("spla": the defaults), and without tiles,
    the worklist forced on ("spla-worklist") and off ("spla-columnwalk").  ``mask`` None: the unmasked
    products only."""
    xp = b.xp
    worklist = {"spla": "auto", "spla-worklist": True, "spla-columnwalk": False}
    cases = [("vxm_dev", "spla", k, None) for k in KERNELS + ("auto",)]
    if mask is not None:
        cases += [("vxm_masked90_dev", "spla", k, mask) for k in KERNELS + ("auto",)]
        cases += [("vxm_masked90_dev", system, k, mask) for system in ("spla-worklist", "spla-columnwalk")
                  for k in ("scCSC", "veCSC")]
    for measure, system, kernel, m in cases:
        if b.remaining() < 2:
            b.skip(NAME, {**gf, "measure": measure, "system": system, "kernel": kernel}, "time budget spent")
            continue
        y = xp.empty(int(A.shape[1]), dtype=np.float32)

        def step(kernel=kernel, m=m, y=y):
            for _ in range(DEV_REPEAT):
                # y<mask, replace> = u +.* A   (y = u +.* A without a mask)
                spla.vxm(u, A, "plus_times", mask=m, replace=m is not None, out=y, kernel=kernel)

        # worklist / column walk: no tiles
        switches = {"mask_worklist": worklist[system], "sccsc_tiles": "auto" if system == "spla" else False}
        try:
            with spla.tuning.override(**switches):
                rep = spla.Replay(step, A.device, name=f"{measure} {system} {kernel}")
                rep()
                rep()  # warm-up, then recorded: later calls replay the graph
        except Exception as e:  # noqa: BLE001
            b.note(NAME, {**gf, "measure": measure, "system": system, "kernel": kernel, "status": "error",
                          "error": f"{type(e).__name__}: {e}"})
            continue
        y.fill(np.nan)  # the check must see what the replays write, not the eager warm-up's result
        b.measure(NAME, {**gf, "measure": measure, "system": system, "kernel": kernel, "k": 1,
                         "replayed": rep.mode == "graph", "products_per_call": DEV_REPEAT},
                  lambda rep=rep, y=y: (rep(), y)[1], check=check_full if m is None else check_masked,
                  memory=False)


def summarize(records: list[dict]) -> dict:
    """Per graph: best spla kernel vs the CSR peer, mask speed-up, block ratio (for reports)."""
    out: dict = {}
    for r in records:
        if r.get("section") != NAME or r.get("status") != "ok" or r.get("median_ms") is None:
            continue
        g = out.setdefault(r["graph"], {"graph": r["graph"], "n": r.get("n"), "arcs": r.get("arcs"),
                                        "big": r.get("big")})
        key = (r.get("measure"), r.get("system"), r.get("kernel"))
        g.setdefault("t", {})[key] = r["median_ms"] / r.get("products_per_call", 1)
        g.setdefault("checked", {})[key] = r.get("checked")
        if r.get("frac_copy_bw") is not None:
            g.setdefault("frac", {})[key] = r["frac_copy_bw"]
    for g in out.values():
        t = g.get("t", {})
        ks = {k: t[("vxm", "spla", k)] for k in KERNELS if ("vxm", "spla", k) in t}
        if ks:
            g["best_kernel"] = min(ks, key=ks.get)
            g["best_ms"] = ks[g["best_kernel"]]
        g["auto_ms"] = t.get(("vxm", "spla", "auto"))
        peer = t.get(("vxm", "cusparse", "csr")) or t.get(("vxm", "scipy", "csr"))
        g["peer_ms"] = peer
        if peer and g.get("best_ms"):
            g["best_vs_peer"] = peer / g["best_ms"]
        m = {k: t[("vxm_masked90", "spla", k)] for k in KERNELS + ("auto",) if ("vxm_masked90", "spla", k) in t}
        if m and g.get("best_ms"):
            g["mask_best_ms"] = min(m.values())
            g["mask_speedup"] = g["best_ms"] / g["mask_best_ms"]
            if g.get("auto_ms") and "auto" in m:
                g["mask_speedup_auto"] = g["auto_ms"] / m["auto"]
        # the same ratio in device time (replayed graphs): best unmasked / best masked, and the masked
        # product without the worklist (the column walk), measured in the same run
        dev = {k: t[("vxm_dev", "spla", k)] for k in KERNELS if ("vxm_dev", "spla", k) in t}
        mdev = {k: t[("vxm_masked90_dev", "spla", k)] for k in KERNELS + ("auto",)
                if ("vxm_masked90_dev", "spla", k) in t}
        walk = {k: t[("vxm_masked90_dev", "spla-columnwalk", k)] for k in KERNELS
                if ("vxm_masked90_dev", "spla-columnwalk", k) in t}
        listed = {k: t[("vxm_masked90_dev", "spla-worklist", k)] for k in KERNELS
                  if ("vxm_masked90_dev", "spla-worklist", k) in t}
        if dev and mdev:
            g["dev_best_ms"] = min(dev.values())
            g["mask_dev_best_ms"] = min(mdev.values())
            g["mask_speedup_dev"] = g["dev_best_ms"] / g["mask_dev_best_ms"]
            g["mask_dev_auto_ms"] = mdev.get("auto")  # what kernel="auto" gives a user's masked product
            if walk:
                g["mask_walk_dev_best_ms"] = min(walk.values())
                g["mask_speedup_dev_walk"] = g["dev_best_ms"] / g["mask_walk_dev_best_ms"]
            if listed:
                g["mask_list_dev_best_ms"] = min(listed.values())
                g["mask_speedup_dev_list"] = g["dev_best_ms"] / g["mask_list_dev_best_ms"]
        bl = {k: t[("vxm_block32", "spla", k)] for k in KERNELS + ("auto",) if ("vxm_block32", "spla", k) in t}
        if bl and g.get("best_ms"):
            g["block_best_ms"] = min(bl.values())
            # arc*vectors per second at k=32 over arcs per second at k=1
            g["block_ratio"] = BLOCK_K * g["best_ms"] / g["block_best_ms"]
        # the same in device time: best k = 1 product (replayed) against the k = 32 "auto" product (replayed)
        bdev = t.get(("vxm_block32_dev", "spla", "auto"))
        if bdev and g.get("dev_best_ms"):
            g["block_dev_ms"] = bdev
            g["block_ratio_dev"] = BLOCK_K * g["dev_best_ms"] / bdev
    return out


def markdown(recs) -> str:
    """The section's markdown table(s) of the records ``recs``."""
    s = summarize(recs)
    rows = []
    for g in s.values():
        t = g.get("t", {})
        fr = g.get("frac", {})
        cells = [f"`{g['graph']}`", num(g.get("arcs"))]
        for k in KERNELS + ("auto",):
            key = ("vxm", "spla", k)
            v = t.get(key)
            cells.append("–" if v is None else f"{ms(v)} ({g['arcs'] / (v * 1e-3) / 1e9:.3g}"
                         + (f", {fr[key] * 100:.0f}%" if key in fr else "") + ")")
        peer_key = ("vxm", "cusparse", "csr") if ("vxm", "cusparse", "csr") in t else ("vxm", "scipy", "csr")
        pv = t.get(peer_key)
        cells.append("–" if pv is None else f"{ms(pv)} ({g['arcs'] / (pv * 1e-3) / 1e9:.3g}"
                     + (f", {fr[peer_key] * 100:.0f}%" if peer_key in fr else "") + ")")
        cells += [ratio(g.get("best_vs_peer")), ratio(g.get("mask_speedup")), ratio(g.get("block_ratio")),
                  chk(all(v for v in g.get("checked", {}).values() if v is not None) if g.get("checked") else None)]
        rows.append(cells)
    txt = ("Time per product, in parentheses G arcs/s and the fraction of the measured copy bandwidth "
           "that the bytes the product must move reach. Ratios: best kernel vs the CSR peer "
           "(cuSPARSE on the GPU, SciPy on the CPU; throughput, higher is better), 90%-masked speed-up "
           "(best unmasked / best masked), k=32 block arc·vectors/s over k=1. "
           f"Anchor: cuSPARSE reached {CUSPARSE_H200_GARCS[0]:.0f}–{CUSPARSE_H200_GARCS[1]:.0f} G arcs/s on an H200.\n\n")
    gpu_run = any(r.get("section") == "spmv" and r.get("device") == "gpu" for r in recs)
    cpu = [r for r in recs if r.get("section") == "spmv" and r.get("system") in ("spla-cpu", "scipy")
           and r.get("measure") == "vxm" and r.get("median_ms") is not None] if gpu_run else []
    extra = ""
    if cpu:
        extra = "\nCPU peers (same graphs, host):\n\n" + table(
            ["graph", "system", "time", "G arcs/s", "checked"],
            [[f"`{r['graph']}`", r["system"], ms(r["median_ms"]), num(r.get("gteps")), chk(r.get("checked"))]
             for r in cpu])
    dev_rows = [[f"`{g['graph']}`", num(g.get("arcs")), ms(g["dev_best_ms"]), ms(g["mask_dev_best_ms"]),
                 ratio(g.get("mask_speedup_dev")), ms(g.get("mask_dev_auto_ms")), ms(g.get("mask_list_dev_best_ms")),
                 ratio(g.get("mask_speedup_dev_list")), ms(g.get("mask_walk_dev_best_ms")),
                 ratio(g.get("mask_speedup_dev_walk")), ms(g.get("block_dev_ms")), ratio(g.get("block_ratio_dev"))]
                for g in s.values() if g.get("mask_speedup_dev")]
    if dev_rows:
        extra += ("\nDevice time of one product (16 back-to-back products recorded once as a CUDA graph with "
                  "`spla.Replay`, replayed, time / 16; best kernel): unmasked; 90%-masked with the defaults "
                  "(scCSC's warp tiles, veCSC's mask worklist by its rule), the kernel `kernel=\"auto\"` picks "
                  "for it (the masked auto column: a mask of unknown density), and without scCSC's tiles with "
                  "the worklist forced on and off (every column tests its own mask), all in the same run; the "
                  "k = 32 block product (auto) and its arc·vectors/s over the best unmasked k = 1 product's.\n\n"
                  + table(["graph", "arcs", "unmasked", "masked", "speed-up", "masked auto", "worklist on", "speed-up",
                           "column walk", "speed-up", "k=32", "k=32 ratio"], dev_rows))
    return txt + table(["graph", "arcs", "scCSC", "veCSC", "scCOOC", "auto", "CSR peer", "best/peer",
                        "mask 90%", "k=32", "checked"], rows) + extra


def headlines(recs) -> list[dict]:
    """The section's performance claims (the report's headlines)."""
    out = []

    def add(*args, **kw):
        out.append(claim(*args, **kw))

    peer = peer_name(recs)
    sp = [g for g in summarize(recs).values() if g.get("big")]
    v = [g["best_vs_peer"] for g in sp if g.get("best_vs_peer")]
    if v:
        add(f"best spla kernel vs {peer} CSR SpMV (throughput, graphs >= 10M arcs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean over {len(v)}",
            f">= {TARGETS['spmv_best_vs_cusparse']}× on each", min(v) >= TARGETS["spmv_best_vs_cusparse"])
    v = [g["mask_speedup"] for g in sp if g.get("mask_speedup")]
    if v:
        add("90%-masked vxm speed-up over unmasked", f"{min(v):.2f}× min, {geomean(v):.2f}× geomean",
            f">= {TARGETS['spmv_mask90_speedup']}×", min(v) >= TARGETS["spmv_mask90_speedup"])
    v = [g["mask_speedup_dev"] for g in sp if g.get("mask_speedup_dev")]
    if v:
        add("90%-masked vxm speed-up over unmasked, device time (replayed CUDA graphs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean", f">= {TARGETS['spmv_mask90_speedup']}×",
            min(v) >= TARGETS["spmv_mask90_speedup"], roofline="masked")
    v = [g["block_ratio"] for g in sp if g.get("block_ratio")]
    if v:
        add("k=32 block: arc·vectors/s over k=1", f"{min(v):.2f}× min, {geomean(v):.2f}× geomean",
            f">= {TARGETS['spmv_block32_vs_k1']}×", min(v) >= TARGETS["spmv_block32_vs_k1"])
    v = [g["block_ratio_dev"] for g in sp if g.get("block_ratio_dev")]
    if v:
        add("k=32 block: arc·vectors/s over k=1, device time (replayed CUDA graphs)",
            f"{min(v):.2f}× min, {geomean(v):.2f}× geomean", f">= {TARGETS['spmv_block32_vs_k1']}×",
            min(v) >= TARGETS["spmv_block32_vs_k1"], roofline="block")
    return out
