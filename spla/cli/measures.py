"""The measures of ``spla centrality``: one registry entry each.

An entry holds the :mod:`spla.algorithms` function itself, the measure's name on the command
line (also its CSV column), the title of its top-N table, its ordering, what of the graph it
uses (edge weights, self-loops, arc lengths under ``--weight``) and the keyword arguments it takes
from the command line.  A
new measure is one more entry of :data:`MEASURES`; ``--measures``, ``--help``, the CSV, the
top-N tables, the correlations and ``spla info``'s memory list all follow the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from spla.algorithms import (
    betweenness_centrality,
    closeness_centrality,
    daccer_volumes,
    degree_centrality,
    harmonic_centrality,
    pagerank,
    sum_of_distances,
)

from .errors import UsageError

__all__ = ["Measure", "MEASURES", "ALIASES", "parse_measures"]


def _no_options(opts) -> dict:
    return {}


@dataclass(frozen=True)
class Measure:
    """A centrality the command can compute.

    key: the name on the command line and the output column; function: the
    ``spla.algorithms`` function, called as ``function(A, **keywords)``; title: the top-N
    table's heading; higher_first: whether larger values are more central (sort order of the
    top-N table); weighted: whether it uses edge weights as they are (pagerank's transition
    weights), with or without ``--weight``; lengths: for a shortest-path measure, its keyword
    (networkx's: ``weight`` or ``distance``) that makes it read the matrix's values as arc lengths,
    passed as ``True`` under ``--weight`` (the matrix then holds each pair's shortest arc); None for
    the measures that are not path measures and run on the pattern; loops: whether self-loops change it
    (networkx's pagerank and degree count them; shortest paths do not); products: whether it
    multiplies (it then takes ``device``, ``kernel`` and ``progress``; otherwise ``device``
    only); reach: whether it is called with ``return_reach=True`` and returns
    ``(values, vertices reached)`` (the top-N table ranks by both); options: the keyword
    arguments it takes from the checked command-line options ``opts``.
    """

    key: str
    function: Callable
    title: str
    higher_first: bool = True
    weighted: bool = False
    lengths: str | None = None
    loops: bool = False
    products: bool = True
    reach: bool = False
    options: Callable = field(default=_no_options)

    def keywords(self, opts, *, device, progress) -> dict:
        """The keyword arguments of one call on ``device`` with the command-line options ``opts``."""
        if not self.products:
            return {"device": device}
        kw = dict(device=device, kernel=opts.kernel, progress=progress)
        if self.reach:
            kw.update(return_reach=True)
        kw.update(self.options(opts))
        kw.update(self.length_keywords(opts))
        return kw

    def length_keywords(self, opts) -> dict:
        """``{lengths: True}`` when ``--weight`` is given and this is a path measure, else {}."""
        return {self.lengths: True} if self.lengths and getattr(opts, "weight", None) else {}


MEASURES = {m.key: m for m in (
    Measure("bc", betweenness_centrality, "betweenness centrality (normalized)", lengths="weight",
            options=lambda o: dict(k=o.samples, seed=o.seed, normalized=True)),
    Measure("closeness", closeness_centrality, "closeness centrality (Wasserman-Faust)", lengths="distance",
            options=lambda o: dict(wf_improved=True)),
    Measure("harmonic", harmonic_centrality, "harmonic centrality", lengths="distance"),
    Measure("distance-sum", sum_of_distances, "sum of distances to reachable vertices", higher_first=False,
            reach=True, lengths="weight"),
    Measure("pagerank", pagerank, "PageRank", weighted=True, loops=True,
            options=lambda o: dict(alpha=o.alpha, max_iter=o.max_iter, tol=o.tol)),
    Measure("daccer", daccer_volumes, "DACCER volume", loops=True, options=lambda o: dict(radius=o.radius)),
    Measure("degree", degree_centrality, "degree centrality", loops=True, products=False),
)}

#: other spellings ``--measures`` accepts
ALIASES = {"betweenness": "bc", "distance_sum": "distance-sum", "distancesum": "distance-sum",
           "sum-of-distances": "distance-sum", "page-rank": "pagerank"}


def parse_measures(text: str) -> list:
    """``"bc,pagerank"`` -> ["bc", "pagerank"]; ``"all"`` -> every measure.  Raises UsageError."""
    names = [t.strip().lower() for t in str(text).split(",") if t.strip()]
    if not names:
        raise UsageError("--measures is empty; give a comma-separated list such as bc,closeness or 'all'")
    out = []
    for name in names:
        if name == "all":
            out.extend(k for k in MEASURES if k not in out)
            continue
        alias = ALIASES.get(name, name)
        if alias not in MEASURES:
            raise UsageError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)} or all")
        if alias not in out:
            out.append(alias)
    return out
