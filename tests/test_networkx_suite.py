"""networkx's own tests, run against the spla backend (``NETWORKX_TEST_BACKEND=spla``).

networkx's test suite converts every graph a dispatchable function receives to the backend named in
``NETWORKX_TEST_BACKEND`` and runs the backend's implementation; with ``NETWORKX_FALLBACK_TO_NX`` the
calls that spla does not take (``can_run`` says no, or the function is not spla's) run in networkx.
This runs the suites of the functions spla implements in a subprocess (networkx's conftest reads the
variables at start) and checks that every test passes, or is one of the expected failures the backend
lists, and that spla ran each of its functions.  It needs the backend's entry points, i.e. spla
installed as a distribution (``pip install -e .``); without them networkx cannot find the backend.
"""

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: networkx's test modules that exercise what spla implements
SUITES = [
    "networkx.algorithms.centrality",
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.tests.test_distance_measures",
]


def _installed() -> bool:
    return any(ep.name == "spla" for ep in entry_points(group="networkx.backends"))


pytestmark = pytest.mark.skipif(not _installed(), reason="spla is not installed as a distribution with entry points "
                                "(pip install -e .): networkx finds backends only through them")


def run_networkx_suite(tmp_path, device, thin=True):
    counts = tmp_path / "counts.json"
    env = dict(os.environ, NETWORKX_TEST_BACKEND="spla", NETWORKX_FALLBACK_TO_NX="True", SPLA_NX_COUNTS=str(counts),
               SPLA_NX_TEST_DEVICE=device, NETWORKX_WARNINGS_TO_IGNORE="cache", SPLA_NX_THIN="1" if thin else "",
               PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "networkx_suite_plugin",
           "-o", "addopts=", "--rootdir", str(tmp_path), "--pyargs", *SUITES]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert counts.is_file(), f"networkx's suite did not finish:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return json.loads(counts.read_text()), proc


def check_suite(got, proc):
    out = got["outcomes"]
    summary = (f"passed {out.get('passed', 0)}, failed {out.get('failed', 0)}, xfailed {out.get('xfailed', 0)}, "
               f"skipped {out.get('skipped', 0)}; tests that ran spla {got['tests_using_spla']}; spla calls "
               f"{sum(got['spla_calls'].values())}; fallbacks {json.dumps(got['fallbacks'], indent=1)}")
    print(summary)
    assert out.get("failed", 0) == 0 and got["exitstatus"] == 0, f"{summary}\n{proc.stdout[-6000:]}"
    # the backend really ran: every function it implements, in a good share of the tests
    from _spla_nx import FUNCTIONS

    unused = sorted(set(FUNCTIONS) - set(got["spla_calls"]))
    assert not unused, f"networkx's tests never ran these in spla: {unused}\n{summary}"
    assert got["tests_using_spla"] >= 200, summary


def test_networkx_suite_passes_against_spla(tmp_path, device):
    """networkx's suites, one seed of test_use_bounds_on_off_consistency's random graphs (see the plugin)."""
    check_suite(*run_networkx_suite(tmp_path, device))


@pytest.mark.slow
def test_networkx_suite_passes_against_spla_in_full(tmp_path, device):
    """Every case of every suite (opt-in: ``-m slow``, tests/conftest.py)."""
    check_suite(*run_networkx_suite(tmp_path, device, thin=False))
