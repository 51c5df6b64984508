"""The registry of benchmark sections, in the order they run and are reported.

Each section is a module with ``run(b)`` (measure, recording through the :class:`~benchmarks.core.Bench`
it is given), ``summarize(records)``, ``markdown(records)`` (its tables) and ``headlines(records)``
(its claims against the issues' targets).  A new section is such a module and one line here.
Imported by the entry points only (``python -m benchmarks``, ``benchmarks.plot``,
``benchmarks.docs``): the harness (``core``) and the report take the sections as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from . import (bc_all, bc_cpu, bc_single, closeness, daccer, nx_backend, pagerank, shortness, spmv, sriram,
               triangles, weighted, yin)


@dataclass(frozen=True)
class Section:
    """A section: its module, its share of the run's time budget and its report title."""

    module: ModuleType
    share: float
    title: str

    @property
    def name(self) -> str:
        return self.module.NAME

    @property
    def summary(self) -> str:
        """The first line of the module's docstring."""
        return (self.module.__doc__ or "").strip().splitlines()[0]

    def run(self, b) -> None:
        self.module.run(b)

    def table(self, records) -> str:
        return self.module.markdown(records)

    def headlines(self, records) -> list[dict]:
        return self.module.headlines(records)


SECTIONS = (
    Section(spmv, 0.18, "Products: spla kernels vs cuSPARSE (issue #2)"),
    Section(bc_single, 0.17, "Single-source betweenness per kernel vs TurboBC"),
    Section(bc_all, 0.17, "Exact betweenness, all sources"),
    Section(closeness, 0.08, "Closeness of all vertices"),
    Section(daccer, 0.09, "DACCER volumes (CUDACCER seed)"),
    Section(pagerank, 0.08, "PageRank iteration vs one SpMV"),
    Section(yin, 0.09, "BC, closeness, PageRank and their correlations (Yin et al.)"),
    Section(sriram, 0.05, "Approximate BC, 2^12 sampled sources (Sriram et al.)"),
    Section(shortness, 0.09, "Sum of distances (shortness seed)"),
    Section(nx_backend, 0.06, "networkx through the spla backend: betweenness and PageRank"),
    Section(bc_cpu, 0.10, "Exact betweenness on the CPU vs igraph and NetworKit"),
    Section(triangles, 0.06, "Triangle counting by masked SpGEMM vs cuSPARSE and SuiteSparse:GraphBLAS"),
    Section(weighted, 0.08, "Weighted betweenness, closeness and shortest paths vs NetworKit and SciPy"),
)

#: the sections ``python -m benchmarks --cpu`` runs (on the CPU): the laptop comparisons
CPU_SECTIONS = ("bc_cpu",)

#: the sections by name
BY_NAME = {s.name: s for s in SECTIONS}

#: each section's share of the time budget, by name (the harness spreads the budget by them)
SHARES = {s.name: s.share for s in SECTIONS}
