"""Correlation between two centrality vectors, for the comparisons the Yin et al. and
DACCER seeds make (Pearson's r between centralities; Spearman's ρ / Kendall's τ between
rankings).

    pearson : r = Σ (x - x̄)(y - ȳ) / sqrt(Σ (x - x̄)² Σ (y - ȳ)²)        (scipy.stats.pearsonr)
    spearman: Pearson's r of the ranks (ties get their average rank)        (scipy.stats.spearmanr)
    kendall : Kendall's τ-b, (concordant - discordant) pairs corrected for ties (scipy.stats.kendalltau)

Needs two equal-length 1-D arrays (NumPy or CuPy; they are copied to the host).
"""

from __future__ import annotations

import numpy as np

import spla

from ._common import to_numpy

METHODS = ("spearman", "kendall", "pearson")


def rank_correlation(x, y, method="spearman") -> float:
    """The correlation coefficient of x and y by ``method`` ("spearman", "kendall" or "pearson").

    Parameters
    ----------
    x, y : array-like (n,), n >= 2, real values
    method : str, case-insensitive

    Returns
    -------
    float, in [-1, 1]; NaN when one input is constant (the coefficient is undefined;
    SciPy also warns for spearman and pearson, not for kendall), and NaN when x or y holds
    a NaN (SciPy's ``nan_policy="propagate"``; e.g. networkx's betweenness with k=1 is NaN at
    the sampled source) or, for pearson, an infinity.

    Raises ``spla.UnknownNameError`` for an unknown method and ValueError for inputs of
    different lengths, not 1-D, or shorter than 2.
    """
    import scipy.stats as st

    m = method.lower() if isinstance(method, str) else method
    if m not in METHODS:
        raise spla.UnknownNameError(f"unknown correlation method {method!r}; use one of {', '.join(METHODS)}")
    x = np.asarray(_host(x), dtype=np.float64)
    y = np.asarray(_host(y), dtype=np.float64)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"x and y must be 1-D, got shapes {x.shape} and {y.shape}")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape[0]} and {y.shape[0]}")
    if x.shape[0] < 2:
        raise ValueError(f"a correlation needs at least 2 values, got {x.shape[0]}")
    if m == "spearman":
        res = st.spearmanr(x, y)
    elif m == "kendall":
        res = st.kendalltau(x, y)
    else:
        res = st.pearsonr(x, y)
    return float(res.statistic if hasattr(res, "statistic") else res[0])


def _host(x):
    """x as something NumPy reads: CuPy arrays are copied to the host, anything else as is."""
    if type(x).__module__.split(".")[0] == "cupy":
        return to_numpy(x)
    return x
