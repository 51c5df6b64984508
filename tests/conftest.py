"""Shared test configuration: hypothesis profiles, the ``device`` fixture, the ``gpu`` marker.

Hypothesis profiles (choose with ``HYPOTHESIS_PROFILE=<name>``):

* ``ci`` (the default when the environment has ``CI`` set): derandomized, so CI is
  reproducible and never flaky; no example database; no deadline;
* ``dev`` (the default otherwise): random exploration, no deadline;
* ``thorough``: ten times the examples (also ``SPLA_TEST_SCALE=10``, which scales the
  per-test ``max_examples`` through ``spla.testing.scaled``).

``device`` fixture: every test that takes ``device`` runs on "cpu" and on "gpu:0"; the GPU
leg carries the ``gpu`` marker (``pytest -m gpu`` runs only those) and is skipped when CuPy
sees no GPU.  Any test marked ``gpu`` is skipped without a GPU.

Opt-in markers (:data:`OPT_IN_MARKERS`): ``exhaustive`` (tests that compile every kernel instantiation;
the default run compiles a representative set) and ``slow`` (long runs: whole real graphs against
networkx, the full grid of networkx's own suites) run only when the ``-m`` expression names the
marker (``pytest -m exhaustive``, ``-m slow``, or ``-m "gpu or (gpu and slow)"``); otherwise they are
skipped, saying so.  The device round (tools/device_round.sh, tools/gpu_tests_split.py) runs them.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import spla
from spla.testing import device_params

#: markers whose tests run only when the -m expression names them
OPT_IN_MARKERS = ("exhaustive", "slow")

# the device fixture is a plain string, safe to share between a test's examples
_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=_SLOW_OK)
settings.register_profile("dev", deadline=None, print_blob=True, suppress_health_check=_SLOW_OK)
settings.register_profile("thorough", deadline=None, max_examples=1000, print_blob=True,
                          suppress_health_check=_SLOW_OK)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


#: the real graphs (../shared/graphs beside the repository; $SPLA_GRAPHS_DIR elsewhere, e.g. on the
#: device machine, where they are carried in); tests that need one skip when it is absent
GRAPHS_DIR = Path(os.environ.get("SPLA_GRAPHS_DIR") or Path(__file__).resolve().parents[2] / "shared" / "graphs")


def shared_graphs():
    """GRAPHS_DIR when it holds the graphs (its manifest graphs.tsv), else None."""
    return GRAPHS_DIR if (GRAPHS_DIR / "graphs.tsv").is_file() else None


@pytest.fixture(params=device_params(), scope="session")
def device(request):
    """"cpu" or "gpu:0" (the latter marked gpu, skipped without a GPU)."""
    return request.param


def pytest_collection_modifyitems(config, items):
    markexpr = config.getoption("markexpr") or ""
    for opt_in in OPT_IN_MARKERS:
        if opt_in not in markexpr:
            skip_opt_in = pytest.mark.skip(reason=f"{opt_in}: run with pytest -m {opt_in}")
            for item in items:
                if item.get_closest_marker(opt_in) is not None:
                    item.add_marker(skip_opt_in)
    if spla.gpu_available():
        return
    skip = pytest.mark.skip(reason="no GPU: CuPy is not installed or sees no CUDA device")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)
