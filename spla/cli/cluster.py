"""``--gpus N|all`` and ``--scheduler ADDRESS``: the Dask client the all-sources measures run on.

``--gpus`` starts a ``dask_cuda.LocalCUDACluster`` of one worker per GPU of this host (the first N,
or all); ``--scheduler`` joins a running cluster (``dask scheduler`` and ``dask cuda worker ADDRESS``
on each host, docs/scaling.md).  Dask is imported here only, and only when one of them is given;
either missing gives one line naming the install, exit 2.
"""

from __future__ import annotations

import contextlib
import re

import spla
from spla.algorithms import cluster

from .errors import UsageError

__all__ = ["gpus_option", "check_cluster_options", "cluster_client", "describe_cluster"]

#: seconds to reach a scheduler before giving up (an address nobody answers fails fast)
CONNECT_TIMEOUT_S = 10


def gpus_option(value: str):
    """--gpus: "all" or a positive number of GPUs."""
    if value == "all":
        return value
    if re.fullmatch(r"[0-9]+", value) and int(value) >= 1:
        return int(value)
    import argparse

    raise argparse.ArgumentTypeError(f"invalid value {value!r}: give a number of GPUs (1 or more) or all")


def check_cluster_options(args):
    """At the door: the Dask modules --gpus or --scheduler need import, and --gpus N GPUs are there."""
    gpus, address = getattr(args, "gpus", None), getattr(args, "scheduler", None)
    if gpus is None and address is None:
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(f"{'--gpus' if gpus is not None else '--scheduler'} needs Dask: "
                         f"pip install \"spla[{'dask-cuda' if gpus is not None else 'dask'}]\"") from None
    if gpus is not None:
        _gpu_count(gpus)


@contextlib.contextmanager
def cluster_client(args):
    """(client, one line describing it), or (None, None) without --gpus and --scheduler; the client
    (and a cluster it started) closed at the end of the block."""
    gpus, address = getattr(args, "gpus", None), getattr(args, "scheduler", None)
    if gpus is None and address is None:
        yield None, None
        return
    check_cluster_options(args)
    import distributed

    with contextlib.ExitStack() as stack:
        if gpus is not None:
            from dask_cuda import LocalCUDACluster

            n = _gpu_count(gpus)
            lc = stack.enter_context(LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(n)), n_workers=n,
                                                      threads_per_worker=1, dashboard_address=":0"))
            what, address = f"LocalCUDACluster of {n} GPU{'s' if n != 1 else ''}", lc
        else:
            what = f"scheduler {address}"
        try:
            client = stack.enter_context(distributed.Client(address, timeout=CONNECT_TIMEOUT_S))
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}: {exc}); "
                             "start one with `dask scheduler` and workers with `dask cuda worker ADDRESS`, or give "
                             "--gpus to start one here") from None
        yield client, what


def _gpu_count(gpus) -> int:
    """The GPUs --gpus asks for ("all": every one CuPy sees), or a UsageError naming the fix."""
    try:
        import dask_cuda  # noqa: F401
    except ImportError:
        raise UsageError("--gpus needs dask-cuda: pip install \"spla[dask-cuda]\" (one Dask worker per GPU); "
                         "or start the workers yourself and give --scheduler ADDRESS") from None
    if not spla.gpu_available():
        raise UsageError("--gpus needs GPUs, and CuPy sees none here: install spla[cuda12] or spla[cuda13] on a "
                         "machine with NVIDIA GPUs")
    count = spla.device.cupy_module().cuda.runtime.getDeviceCount()
    if gpus != "all" and gpus > count:
        raise UsageError(f"--gpus {gpus}: CuPy sees {count} GPU{'s' if count != 1 else ''} here")
    return count if gpus == "all" else gpus


def describe_cluster(client, what, users) -> str:
    """One report line: the cluster, its workers' devices and the measures that run on it (the workers
    probed: none, or without spla, is a :class:`spla.ClusterError` naming the fix)."""
    devices = sorted(cluster.probe(client).values())
    kinds = ", ".join(f"{devices.count(d)} x {d}" for d in sorted(set(devices)))
    on = ", ".join(users) if users else "none of --measures (bc, closeness, harmonic, distance-sum run there)"
    return f"{what}; workers: {kinds}; runs {on}"
