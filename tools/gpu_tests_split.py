"""Run the GPU test suite split over every GPU of the host, one pytest process per GPU.

    PYTHONPATH=. python3 tools/gpu_tests_split.py [--timeout S] [--out DIR] [pytest options] [paths...]

First the two-GPU tests (tests/test_multi_gpu.py) run with every GPU visible; then the other
``-m gpu`` tests are collected once and dealt round-robin (in collection order, so each file's tests
spread over all GPUs) to one process per GPU, each seeing only its GPU (CUDA_VISIBLE_DEVICES, taken from the GPUs this process may use).  Each
process's log goes to DIR/gpu_tests_<i>.log; the last lines of each are printed with its exit status.
Exits non-zero when any process failed or timed out.  On a one-GPU host it is the plain suite.
Paths (test files or ids) choose what is collected; options (attach their values: ``-kEXPR``,
``--durations=10``) go to every process.

Beside the GPU processes, one more runs ``pytest -m exhaustive`` (every kernel instantiation through
nvcc; it needs no GPU and sees none), at a lower CPU priority, its log DIR/gpu_tests_exhaustive.log;
``--no-exhaustive`` leaves it out.  The GPU tests marked ``slow`` (opt-in, see tests/conftest.py) run
too; ``--no-slow`` leaves them out.
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


def _collect(extra: list[str], marks: str) -> tuple[list[str], list[str]]:
    """(the two-GPU test ids, the other test ids) that ``pytest -m MARKS extra`` selects."""
    res = subprocess.run([sys.executable, "-m", "pytest", "-m", marks, "--collect-only", "-q",
                          "-p", "no:cacheprovider", *extra],
                         capture_output=True, text=True, check=False)
    ids = [line for line in res.stdout.splitlines() if "::" in line]
    if not ids:
        raise SystemExit(f"collected no GPU tests:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    multi = [i for i in ids if i.startswith(MULTI)]
    return multi, [i for i in ids if not i.startswith(MULTI)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=540.0, help="seconds for each process (default 540)")
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder of the logs (default $OUT)")
    ap.add_argument("--no-exhaustive", dest="exhaustive", action="store_false",
                    help="leave out the exhaustive kernel compile (pytest -m exhaustive)")
    ap.add_argument("--no-slow", dest="slow", action="store_false",
                    help="leave out the GPU tests marked slow (whole real graphs, the full networkx grid)")
    args, extra = ap.parse_known_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    count = _gpu_count()
    options = [a for a in extra if a.startswith("-")]  # paths only choose what _collect selects
    # "gpu or (gpu and slow)" selects what "gpu" does, and names the opt-in marker slow (tests/conftest.py)
    marks = "gpu or (gpu and slow)" if args.slow else "gpu"
    base = [sys.executable, "-m", "pytest", "-m", marks, "-q", "-rs", "-p", "no:cacheprovider", *options]
    # a process per GPU sees that GPU alone: the i-th of the GPUs this process may use
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", ",".join(map(str, range(count)))).split(",")
    t0 = time.perf_counter()
    multi, ids = _collect(extra, marks)
    lanes = max(count, 1)
    rounds = [[("multi", base + multi, None)] if count >= 2 and multi else [],  # the two-GPU tests first, alone
              [(str(i), base + ids[i::lanes], visible[i] if count >= 2 else None)
               for i in range(lanes) if ids[i::lanes]]]
    if args.exhaustive:  # CPU work only (nvcc): beside the GPU processes, yielding the CPU to them
        exhaustive = [sys.executable, "-m", "pytest", "-m", "exhaustive", "-q", "-rs", "-p", "no:cacheprovider",
                      *options]
        rounds[1].append(("exhaustive", exhaustive, ""))
    failed = 0
    for jobs in rounds:
        procs = []
        for name, cmd, gpu in jobs:
            env = None if gpu is None else {**os.environ, "CUDA_VISIBLE_DEVICES": gpu}
            log = open(out / f"gpu_tests_{name}.log", "w")
            nice = (lambda: os.nice(10)) if name == "exhaustive" else None
            procs.append((name, subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                                 preexec_fn=nice), log))
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
