"""spla as a networkx backend (entry point ``networkx.backends``: ``backend_interface``).

After ``pip install spla``, networkx finds the backend by its entry points::

    nx.betweenness_centrality(G, backend="spla")        # this call
    nx.config.backend_priority.algos = ["spla"]          # every call spla implements (or
                                                         # NETWORKX_BACKEND_PRIORITY=spla)

The first call converts G into a spla.Matrix on ``nx.config.backends.spla.device`` ("auto": the GPU
when there is one) and networkx keeps it in ``G.__networkx_cache__`` for the calls that follow,
until G changes.  What the backend implements, and what it leaves to networkx, is listed in
``_spla_nx.FUNCTIONS`` (networkx's backend info) and docs/networkx.md.

Layers: this adapter calls ``spla.algorithms`` and the spla API, and nothing below calls it.
Modules: ``graph`` (the converted graph, conversions both ways), ``centrality`` and ``paths`` (the
functions, with networkx's signatures), ``rules`` (``can_run`` / ``should_run``).
"""

from __future__ import annotations

from .graph import SplaGraph, convert_from_nx, convert_to_nx
from .rules import FUNCTIONS, can_run, should_run

__all__ = ["backend_interface", "BackendInterface", "SplaGraph", "on_start_tests"]


def on_start_tests(items):
    """Mark networkx's own tests that are expected to fail against this backend (networkx calls this
    when its test suite runs with ``NETWORKX_TEST_BACKEND=spla``): each test whose id contains a key
    of ``_spla_nx.EXPECTED_TEST_FAILURES`` becomes xfail with that reason."""
    import pytest
    from _spla_nx import EXPECTED_TEST_FAILURES

    for item in items:
        for fragment, reason in EXPECTED_TEST_FAILURES.items():
            if fragment in item.nodeid:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
                break


class BackendInterface:
    """The object networkx loads: the implemented functions under their networkx names, and the
    conversion and dispatch hooks."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    on_start_tests = staticmethod(on_start_tests)


for _name, _fn in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_fn))

backend_interface = BackendInterface()
