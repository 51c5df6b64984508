"""pytest plugin for networkx's own test suite run against the spla backend (tests/test_networkx_suite.py).

Loaded with ``-p networkx_suite_plugin`` beside ``NETWORKX_TEST_BACKEND=spla``.  It sets
``nx.config.backends.spla.device`` from ``SPLA_NX_TEST_DEVICE``; with ``SPLA_NX_THIN`` set it keeps one
seed of the 500-case random-graph grid of ``test_use_bounds_on_off_consistency`` (50 cases, the same
code on fewer random graphs), which alone would take most of the run; it listens to networkx's dispatch log
(logger ``networkx.utils.backends``, debug level) and writes to the JSON file ``SPLA_NX_COUNTS``:

* ``outcomes``: tests passed, failed, xfailed, skipped;
* ``spla_calls``: {function: calls run by spla};
* ``fallbacks``: {function: {reason: calls}} for functions spla implements whose call ran in
  networkx (``can_run`` said no, or the backend raised NotImplementedError);
* ``not_implemented``: calls of functions spla does not implement (networkx ran them);
* ``tests_using_spla``: tests in which at least one call ran in spla.
"""

from __future__ import annotations

import json
import logging
import os
from collections import Counter, defaultdict

import networkx as nx

_counts = {"spla_calls": Counter(), "fallbacks": defaultdict(Counter), "not_implemented": 0}
_outcomes = Counter()
_tests_using_spla = set()
_current = [None]


class _DispatchLog(logging.Handler):
    """Counts networkx's dispatch decisions from its debug messages (format strings, not their text)."""

    def emit(self, record):
        fmt, args = record.msg, record.args or ()
        if not isinstance(fmt, str):
            return
        if fmt.startswith("Using backend '%s' for call to '%s'") and args[:1] == ("spla",):
            _counts["spla_calls"][args[1]] += 1
            _tests_using_spla.add(_current[0])
        elif fmt.startswith("Backend '%s' can't run `%s` with arguments") and args[:1] == ("spla",):
            reason = (args[3] if len(args) > 3 else "").removeprefix(", because: ")
            # "weight='w': spla computes ..." and "weight='cost': ..." are one reason
            _counts["fallbacks"][args[1]][reason.split(": ", 1)[-1]] += 1
        elif fmt.startswith("Backend '%s' raised when calling '%s'") and args[:1] == ("spla",):
            _counts["fallbacks"][args[1]][f"raised {args[2]}"] += 1
        elif fmt.startswith("Backend '%s' does not implement '%s'") and args[:1] == ("spla",):
            _counts["not_implemented"] += 1


def pytest_configure(config):
    logger = logging.getLogger("networkx.utils.backends")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_DispatchLog(level=logging.DEBUG))
    logger.propagate = False  # pytest's log capture need not keep every dispatch message


#: parametrized grids thinned by SPLA_NX_THIN: {test name: (parameter, the values kept)}
THIN = {"test_use_bounds_on_off_consistency": ("seed", {0})}


def pytest_collection_modifyitems(config, items):
    device = os.environ.get("SPLA_NX_TEST_DEVICE")
    if device:
        nx.config.backends.spla.device = device
    if os.environ.get("SPLA_NX_THIN"):
        keep, drop = [], []
        for item in items:
            rule = THIN.get(getattr(item, "originalname", None))
            params = getattr(getattr(item, "callspec", None), "params", {})
            (drop if rule and params.get(rule[0]) not in rule[1] else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        outcome = "xfailed" if hasattr(report, "wasxfail") and report.outcome == "skipped" else report.outcome
        if hasattr(report, "wasxfail") and report.outcome == "passed":
            outcome = "xpassed"
        _outcomes[outcome] += 1


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("SPLA_NX_COUNTS")
    if not path:
        return
    out = {
        "outcomes": dict(_outcomes),
        "spla_calls": dict(_counts["spla_calls"]),
        "fallbacks": {name: dict(reasons) for name, reasons in _counts["fallbacks"].items()},
        "not_implemented": _counts["not_implemented"],
        "tests_using_spla": len(_tests_using_spla - {None}),
        "exitstatus": int(exitstatus),
    }
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
