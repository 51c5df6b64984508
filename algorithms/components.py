"""Connected components of an undirected graph by label propagation over the (min, first) semiring.

    label(v) = the smallest vertex of v's component

    label = [0, 1, ..., n-1]
    repeat: label = min(label, label min.first A)     label(j) = min(label(j), min_{i ~ j} label(i))
    until no label changes

Each round moves the smallest label one edge further, so the rounds are the largest eccentricity of
a component's smallest vertex plus one.  Needs: an undirected graph (self-loops change nothing).
Cost: one vxm per round.
"""

from __future__ import annotations

import numpy as np

import spla

from ._common import on_graph_device, to_numpy, undirected_pattern


@on_graph_device
def connected_components(G, *, device=None) -> np.ndarray:
    """The component label of every vertex (int64 (n,)): its component's smallest vertex."""
    A = undirected_pattern(G, device, "connected_components")
    xp = A.xp
    label = xp.arange(A.shape[0], dtype=np.int64)
    while True:
        new = spla.vxm(label, A, "min_first", accum="min", out=label.copy())   # l = min(l, l min.first A)
        if bool(xp.all(new == label)):
            return to_numpy(label)
        label = new
