"""``spla centrality --scheduler ADDRESS`` and ``--gpus N|all`` (spla/cli/cluster.py)."""

from __future__ import annotations

import importlib.util

import pytest

from spla import cli

try:
    import distributed
except ImportError:  # pragma: no cover - the extra is not installed
    distributed = None

needs_dask = pytest.mark.skipif(distributed is None, reason="dask.distributed is not installed (pip install "
                                                            "\"spla[dask]\")")
EDGES = "1 2\n2 3\n3 1\n3 4\n4 5\n5 6\n6 4\n7 8\n8 8\n"


def _run(capsys, *argv):
    rc = cli.main(["centrality", *map(str, argv), "--device", "cpu", "--top", "0"])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def graph(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text(EDGES)
    return path


@needs_dask
def test_scheduler_runs_the_all_sources_measures_there(graph, capsys):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as lc:
        rc, out, err = _run(capsys, graph, "--scheduler", lc.scheduler_address, "--out", "-")
    assert rc == 0, err
    assert "cluster     scheduler " in err and "workers: 2 x cpu; runs bc, closeness, harmonic, distance-sum" \
        in err
    rc, plain, err = _run(capsys, graph, "--out", "-")
    assert rc == 0, err
    assert out.splitlines()[0] == plain.splitlines()[0]
    for got, want in zip(out.splitlines()[1:], plain.splitlines()[1:]):
        assert [float(x) for x in got.split(",")] == pytest.approx([float(x) for x in want.split(",")], rel=1e-12)


@needs_dask
def test_scheduler_runs_the_weighted_measures_there_but_closeness(tmp_path, capsys):
    path = tmp_path / "w.txt"
    path.write_text("1 2 3\n2 3 1.5\n3 1 2\n3 4 1\n4 5 2.25\n5 6 1\n6 4 4\n1 2 1\n")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as lc:
        rc, out, err = _run(capsys, path, "--weight", "--scheduler", lc.scheduler_address, "--out", "-")
    assert rc == 0, err
    assert "workers: 2 x cpu; runs bc, harmonic, distance-sum" in err
    rc, plain, err = _run(capsys, path, "--weight", "--out", "-")
    assert rc == 0, err
    for got, want in zip(out.splitlines()[1:], plain.splitlines()[1:]):
        assert [float(x) for x in got.split(",")] == pytest.approx([float(x) for x in want.split(",")], rel=1e-12)


@needs_dask
def test_a_scheduler_without_workers_exits_2_naming_the_fix(graph, capsys):
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as lc:
        rc, out, err = _run(capsys, graph, "--scheduler", lc.scheduler_address, "--measures", "closeness")
    assert rc == 2 and out == ""
    assert "no workers" in err and "dask cuda worker ADDRESS" in err


@needs_dask
def test_an_unreachable_scheduler_exits_2(graph, capsys, monkeypatch):
    from spla.cli import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 1)
    rc, out, err = _run(capsys, graph, "--scheduler", "tcp://127.0.0.1:9", "--measures", "bc")
    assert rc == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and "dask scheduler" in err


@pytest.mark.skipif(importlib.util.find_spec("dask_cuda") is not None, reason="dask-cuda is installed here")
def test_gpus_without_dask_cuda_exits_2_naming_the_install(graph, capsys):
    rc, out, err = _run(capsys, graph, "--gpus", "all")
    assert rc == 2 and out == ""
    assert 'pip install "spla[dask' in err  # spla[dask-cuda], or spla[dask-cuda] without Dask at all


@pytest.mark.parametrize("argv, says", [
    (["--gpus", "0"], "give a number of GPUs (1 or more) or all"),
    (["--gpus", "two"], "give a number of GPUs"),
    (["--gpus", "1", "--scheduler", "tcp://x:1"], "not allowed with argument --gpus"),
])
def test_bad_cluster_options_exit_2(graph, capsys, argv, says):
    rc, out, err = _run(capsys, graph, *argv)
    assert rc == 2 and says in err


@pytest.mark.gpu
def test_gpus_runs_on_a_local_cuda_cluster(graph, capsys):
    pytest.importorskip("dask_cuda")
    rc, out, err = cli.main(["centrality", str(graph), "--gpus", "all", "--out", "-", "--top", "0"]), *capsys.readouterr()
    assert rc == 0, err
    assert "LocalCUDACluster of" in err and " x gpu:0; runs bc" in err
    rc, plain, err = cli.main(["centrality", str(graph), "--out", "-", "--top", "0"]), *capsys.readouterr()
    for got, want in zip(out.splitlines()[1:], plain.splitlines()[1:]):
        assert [float(x) for x in got.split(",")] == pytest.approx([float(x) for x in want.split(",")], rel=1e-12)
