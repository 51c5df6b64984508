"""Graph centralities written as linear algebra over the spla engine.

Every centrality accepts a ``spla.Matrix``, a SciPy sparse matrix/array (a stored A[i, j],
even 0, is the arc i -> j, as networkx's ``from_scipy_sparse_array``), a dense 2-D NumPy
array (its non-zero entries are the arcs, as ``from_numpy_array``) or a networkx
Graph/DiGraph (vertices in ``list(G)`` order), returns NumPy arrays indexed like the input
(``edge_betweenness_centrality``: a SciPy sparse array), follows networkx's semantics and
defaults, and takes a ``device=`` override and, where it multiplies, ``kernel=``
(``degree_centrality`` makes no product; ``rank_correlation`` compares two vectors).  Only the public
spla API (products ``vxm``/``mxv``/``mxm`` over semirings, the matrix operations, ``spla.bits``,
``spla.frontier``, ``spla.paths``, ``spla.select``, ``spla.apply_arcs``, ``spla.memory``,
``spla.tuning``) and plain array operations are used: no CUDA source and no compiled loop lives here.

Modules: ``betweenness`` (the public betweenness functions and the choice of path, with
``betweenness_path`` telling it; the CPU's compiled per-source path is ``spla.paths``), with one
module per batched path: ``betweenness_dense`` ((n, k) blocks), ``betweenness_sparse`` (sparse
frontiers), ``betweenness_single`` (one source at a time, recorded plans); ``bfs``, ``distances`` (closeness,
harmonic, sum of distances by a bit-parallel BFS), ``hops`` (eccentricity and blocks of hop
distances from the same BFS), ``daccer``, ``pagerank``, ``degree``,
``correlation``; ``weighted`` (the weighted shortest-path measures' plumbing and
``shortest_path_lengths``); ``cluster`` (the all-sources measures' ``client=``: their sources in chunks
over a Dask client's workers); the graph algorithms composed from matrix primitives (``spla.mxm``, ``spla.select``,
``spla.reduce_rows``, ...): ``triangles``, ``kcore``, ``components``, ``jaccard``, ``ktruss``; ``_common``
(input conversion and shared checks).
"""

from .betweenness import betweenness_centrality, betweenness_path, edge_betweenness_centrality
from .bfs import bfs_levels
from .components import connected_components
from .correlation import rank_correlation
from .daccer import daccer_volumes
from .degree import degree_centrality
from .distances import closeness_centrality, harmonic_centrality, sum_of_distances
from .hops import eccentricity, hop_distance_blocks
from .jaccard import jaccard_edges
from .kcore import core_number
from .ktruss import k_truss
from .pagerank import pagerank
from .triangles import triangle_count, triangles
from .weighted import shortest_path_lengths

__all__ = [
    "bfs_levels", "betweenness_centrality", "betweenness_path", "edge_betweenness_centrality", "closeness_centrality",
    "harmonic_centrality", "sum_of_distances", "daccer_volumes", "pagerank", "degree_centrality",
    "rank_correlation", "eccentricity", "hop_distance_blocks", "triangle_count", "triangles", "core_number",
    "connected_components", "jaccard_edges", "k_truss", "shortest_path_lengths",
]
