"""What networkx reads about the spla backend at its own import (entry point ``networkx.backend_info``).

networkx imports this module every time it is imported, wherever spla is installed, so it holds data
only and imports nothing of spla (NumPy, SciPy and CuPy would add to every ``import networkx``); the
backend itself is ``spla.nx_backend``, loaded when a call first goes to it.

The function notes say what each implemented function does differently from networkx (order of a
result, a parameter spla does not take, which then runs in networkx); ``EXPECTED_TEST_FAILURES`` are
networkx's own tests that fail when run against the backend, with the reason (``spla.nx_backend``
marks them xfail in ``on_start_tests``).
"""

from __future__ import annotations

import re

__all__ = ["get_info", "SplaConfig", "FUNCTIONS", "EXPECTED_TEST_FAILURES"]

_DEVICE = re.compile(r"auto|cpu|gpu(:\d+)?")

_PATHS = ("A `weight` naming an edge attribute runs spla's weighted shortest paths (a multigraph's shortest "
          "parallel edge, 1 where the attribute is missing); a callable `weight`, or a negative, NaN or infinite "
          "length, runs in networkx.")
_ORDER = ("Where zero-length edges join nodes at equal distance, networkx's weighted betweenness depends on the "
          "order it visits them; spla's counts a zero-length cycle once (docs/networkx.md).")
_SAMPLE = "A `seed` draws the same sources as networkx's `seed.sample(list(G), k)`."

#: the implemented functions: {name: note}, the note shown under "Backends" in networkx's docstring
FUNCTIONS = {
    "betweenness_centrality": f"{_PATHS} {_ORDER} {_SAMPLE}",
    "edge_betweenness_centrality": f"{_PATHS} {_ORDER} {_SAMPLE} A multigraph's parallel edges of the pair's "
                                   "length share its value equally, as networkx splits it.",
    "betweenness_centrality_subset": f"{_PATHS} A source listed twice counts twice, as in networkx. By "
                                     "`weight`, runs when every node is a target (other calls run in networkx).",
    "edge_betweenness_centrality_subset": f"{_PATHS} Runs when every node is a target: for fewer targets "
                                          "networkx's result splits a non-target's dependency evenly among its "
                                          "parents instead of by path counts, so those calls run in networkx.",
    "closeness_centrality": f"{_PATHS.replace('`weight`', '`distance`')} `u=` runs one search over the "
                            "reversed arcs.",
    "harmonic_centrality": f"{_PATHS.replace('`weight`', '`distance`')} The searches run from `sources` only.",
    "pagerank": "Same iteration and stopping rule as networkx's `_pagerank_scipy`; results agree within "
                "`tol`.",
    "degree_centrality": "",
    "in_degree_centrality": "",
    "out_degree_centrality": "",
    "bfs_layers": "Each layer lists its nodes in networkx's discovery order.",
    "single_source_shortest_path_length": "The dict lists nodes in networkx's discovery order.",
    "all_pairs_shortest_path_length": "A generator, as networkx's; 64 sources per breadth-first search. Each "
                                      "dict lists nodes by distance, then in the graph's node order.",
    "eccentricity": f"{_PATHS} A given `sp` runs in networkx.",
    "diameter": f"{_PATHS} A given `e` runs in networkx; `usebounds` computes every eccentricity exactly.",
    "radius": f"{_PATHS} A given `e` runs in networkx; `usebounds` computes every eccentricity exactly.",
}

#: networkx's own tests that fail when run against the backend: {test id fragment: reason}
EXPECTED_TEST_FAILURES: dict[str, str] = {}


def _config_class():
    """The config class, made on first use: it subclasses networkx's Config, and importing networkx here
    at module level would let a first ``import _spla_nx`` import networkx, whose import ends by reading
    this module's get_info before the module exists."""
    global SplaConfig
    if SplaConfig is None:
        from networkx.utils.configs import Config

        class SplaConfig(Config):
            """Configuration of the spla networkx backend (``nx.config.backends.spla``).

            device : str
                Where converted graphs live and computations run: ``"auto"`` (the GPU when CuPy sees
                one, else the CPU), ``"cpu"``, ``"gpu"`` or ``"gpu:N"``.
            """

            device: str = "auto"

            def _on_setattr(self, key, value):
                if key == "device" and not (isinstance(value, str) and _DEVICE.fullmatch(value)):
                    raise ValueError(f"nx.config.backends.spla.device must be 'auto', 'cpu', 'gpu' or 'gpu:N', "
                                     f"got {value!r}")
                return value
    return SplaConfig


#: the config class (networkx's Config subclass), made by get_info
SplaConfig = None


def get_info() -> dict:
    """The backend's info for networkx (``networkx.utils.backends.backend_info["spla"]``)."""
    return {
        "backend_name": "spla",
        "project": "spla",
        "package": "spla",
        "short_summary": "GPU (CuPy) or CPU sparse linear algebra: exact betweenness, closeness, "
                         "harmonic, PageRank and BFS measures, by hops or by edge weight.",
        "description": "Graphs convert once to a spla.Matrix (kept in G.__networkx_cache__) on the device of "
                       "nx.config.backends.spla.device; the measures run as masked sparse products.",
        "functions": {name: {"additional_docs": note} if note else {} for name, note in FUNCTIONS.items()},
        "default_config": _config_class()(),
        "expected_test_failures": dict(EXPECTED_TEST_FAILURES),
    }
