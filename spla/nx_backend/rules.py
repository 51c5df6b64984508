"""Which calls the backend takes (``can_run``) and which it should take (``should_run``).

networkx asks ``can_run(name, args, kwargs)`` before converting anything, with the arguments as the
caller gave them (the graph still a networkx graph); a string answer is "no, because ...", and
networkx then runs the call itself (or the next backend).  ``can_run`` says no to what spla does
not compute: a ``weight``/``distance`` that is not an edge attribute's name (a callable), precomputed
path lengths or eccentricities, the subset betweenness by weight to a proper subset of targets,
and edge betweenness to a proper subset of targets (where networkx's own formula differs from the
path-count definition spla computes).  A weight or distance that names an attribute runs spla's
weighted shortest paths; lengths those refuse (negative, NaN, inf) are found in the converted
graph, whose function then raises NotImplementedError and networkx runs the call.
It never consumes an iterator argument: the call that follows needs it.

``should_run`` is asked only when networkx would convert the graph on its own initiative (the
backend named in ``nx.config.backend_priority``, not ``backend="spla"``): it declines graphs with
fewer edges than the tunable ``networkx_min_edges``, below which converting the graph costs more
than networkx's own computation, and the linear-time functions (degrees, one BFS) on a graph not
converted yet, where the conversion alone costs what networkx's answer does.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Iterator

import spla

from . import centrality, paths

#: the implemented functions, by networkx's name
FUNCTIONS = {name: getattr(mod, name) for mod in (centrality, paths) for name in mod.__all__}

#: functions whose networkx implementation costs about what converting the graph does (one pass over it)
LINEAR = frozenset({"degree_centrality", "in_degree_centrality", "out_degree_centrality", "bfs_layers",
                    "single_source_shortest_path_length"})

_NAMED = "spla reads an edge attribute by its name, or None; networkx calls a function given instead"


def _attribute_name(value) -> bool:
    """Whether ``value`` names an edge attribute as networkx reads it (anything hashable but a callable)."""
    if callable(value):
        return False
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _bound(name, args, kwargs):
    """The call's arguments by name, defaults filled in (None when they do not fit the signature)."""
    try:
        bound = inspect.signature(FUNCTIONS[name]).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return bound.arguments


def can_run(name, args, kwargs):
    """True, or the reason spla does not run this call (networkx then runs it)."""
    if name not in FUNCTIONS:
        return f"spla does not implement {name}"
    a = _bound(name, args, kwargs)
    if a is None:
        return "the arguments do not fit the function's signature; networkx reports the error"
    G = a.get("G")
    for param in ("weight", "distance"):
        if param in a and a[param] is not None and not _attribute_name(a[param]):
            return f"{param}={a[param]!r}: {_NAMED}"
    if name == "eccentricity" and a["sp"] is not None:
        return "sp= gives the path lengths already: networkx reads them"
    if name in ("diameter", "radius") and a["e"] is not None:
        return "e= gives the eccentricities already: networkx reads them"
    if name in ("betweenness_centrality_subset", "edge_betweenness_centrality_subset") \
            and isinstance(a["targets"], Iterator):
        return "targets is an iterator, which networkx's function reads once per source"
    weighted_subset = name == "betweenness_centrality_subset" and a["weight"] is not None
    if name == "edge_betweenness_centrality_subset" or weighted_subset:
        try:
            every = set(a["targets"]) >= set(G)
        except TypeError:
            return "targets holds something that is not a node"
        if not every and weighted_subset:
            return ("targets is a proper subset of the nodes: spla's betweenness by weight runs from the sources "
                    "to every node")
        if not every:
            return ("targets is a proper subset of the nodes: networkx's edge_betweenness_centrality_subset "
                    "splits a non-target's dependency evenly among its parents there, unlike spla's "
                    "path-count definition, so networkx computes its own result")
    if name in ("single_source_shortest_path_length", "all_pairs_shortest_path_length"):
        cutoff = a["cutoff"]
        if cutoff is not None and not (isinstance(cutoff, numbers.Real) and not isinstance(cutoff, bool)
                                       and cutoff == cutoff):
            return f"cutoff={cutoff!r} is not a number of levels"
    return True


def should_run(name, args, kwargs):
    """True, or why networkx's own computation is the cheaper one for this call."""
    a = _bound(name, args, kwargs)
    G = None if a is None else a.get("G")
    if G is None or getattr(G, "__networkx_backend__", "networkx") == "spla":
        return True
    edges = G.number_of_edges()
    least = spla.tuning.current().networkx_min_edges
    if edges < least:
        return (f"the graph has {edges} edges, fewer than networkx_min_edges = {least} (spla.tuning): converting "
                "it costs more than networkx's own computation")
    if name in LINEAR and not _converted(G):
        return f"networkx's {name} takes one pass over the graph, as converting it would"
    return True


def _converted(G) -> bool:
    """Whether networkx's cache of G holds a conversion to spla."""
    cache = getattr(G, "__networkx_cache__", None)
    return bool(cache and cache.get("backends", {}).get("spla"))
