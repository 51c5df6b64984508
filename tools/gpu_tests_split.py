"""Run the GPU test suite split over every GPU of the host, one pytest process per GPU.

    PYTHONPATH=. python3 tools/gpu_tests_split.py [--timeout S] [--out DIR] [pytest args...]

First the two-GPU tests (tests/test_multi_gpu.py) run with every GPU visible; then the other
``-m gpu`` tests are collected once and dealt round-robin (in collection order, so each file's tests
spread over all GPUs) to one process per GPU, each seeing only its GPU (CUDA_VISIBLE_DEVICES).  Each
process's log goes to DIR/gpu_tests_<i>.log; the last lines of each are printed with its exit status.
Exits non-zero when any process failed or timed out.  On a one-GPU host it is the plain suite.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

MULTI = "tests/test_multi_gpu.py"


def _gpu_count() -> int:
    import spla
    from spla import device

    return device.cupy_module().cuda.runtime.getDeviceCount() if spla.gpu_available() else 0


def _collect(extra: list[str]) -> list[str]:
    res = subprocess.run([sys.executable, "-m", "pytest", "-m", "gpu", "--collect-only", "-q",
                          "-p", "no:cacheprovider", *extra],
                         capture_output=True, text=True, check=False)
    ids = [line for line in res.stdout.splitlines() if "::" in line and not line.startswith(MULTI)]
    if not ids:
        raise SystemExit(f"collected no GPU tests:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return ids


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=540.0, help="seconds for each process (default 540)")
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder of the logs (default $OUT)")
    args, extra = ap.parse_known_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    count = _gpu_count()
    base = [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-rs", "-p", "no:cacheprovider", *extra]
    t0 = time.perf_counter()
    jobs = []
    if count >= 2:
        jobs.append(("multi", base + [MULTI], None))
    ids = _collect(extra)
    for i in range(max(count, 1)):
        mine = ids[i::max(count, 1)]
        if mine:
            jobs.append((str(i), base + mine, str(i) if count >= 2 else None))
    failed = 0
    # the two-GPU tests first, alone; then one process per GPU at once
    for group in ([j for j in jobs if j[0] == "multi"], [j for j in jobs if j[0] != "multi"]):
        procs = []
        for name, cmd, visible in group:
            env = dict(os.environ)
            if visible is not None:
                env["CUDA_VISIBLE_DEVICES"] = visible
            log = open(out / f"gpu_tests_{name}.log", "w")
            procs.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env), log))
        for name, proc, log in procs:
            try:
                rc = proc.wait(timeout=max(1.0, args.timeout - (time.perf_counter() - t0)))
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = "timeout"
            log.close()
            failed += rc != 0
            tail = (out / f"gpu_tests_{name}.log").read_text().splitlines()[-12:]
            print(f"== {name}: rc {rc}", *tail, sep="\n", flush=True)
    print(f"{len(ids)} tests split over {count} GPU(s); {time.perf_counter() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
