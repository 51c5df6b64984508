"""PageRank by power iteration, with networkx's semantics (``networkx.pagerank``,
i.e. ``_pagerank_scipy``; Page, Brin, Motwani & Winograd 1999; the Yin et al. seed's
Parallel Algorithm II).

    w(i)  = Σ_j A[i, j]                        out-weight of i (stored values, or arc counts)
    D     = {i : w(i) = 0}                     dangling vertices
    x_{k+1}[j] = α · ( Σ_i x_k[i] · A[i, j] / w(i)  +  (Σ_{i ∈ D} x_k[i]) · dw[j] )  +  (1 - α) · p[j]

p is the personalization (uniform by default), dw the dangling distribution (p by
default), x_0 = nstart (uniform by default); all three are normalised to sum 1.  The
iteration stops, returning x_{k+1}, at the first k with Σ_j |x_{k+1}[j] - x_k[j]| < n · tol;
after ``max_iter`` iterations without that it raises ``spla.ConvergenceError`` (networkx
raises ``PowerIterationFailedConvergence``).

Each iteration is ONE spla product, ``y = (x ./ w) +.× A`` (``spla.vxm`` with
plus_times over A's values), plus O(n) array operations for the dangling mass, the
teleport term and the convergence test (one device -> host scalar per iteration).
On the GPU the iteration is recorded once as a CUDA graph (``spla.Replay``) and replayed.

Needs: a square adjacency whose values (the weights, when ``weight`` is set) are finite
and non-negative (``spla.InvalidGraph`` otherwise).  Undirected edges count in both
directions; a self-loop is one arc i -> i.  For networkx input the matrix is
``networkx.to_scipy_sparse_array(G, weight=...)``, so a multigraph's parallel edges add
up (their weights, or 1 each), exactly as networkx does.
"""

from __future__ import annotations

import numbers

import numpy as np

import spla
from spla.device import any_true

from . import _common
from ._common import as_matrix, on_graph_device, pattern_of, to_numpy
from .distances import is_empty_graph


# x' = α·y + jump,  |x' - x|  and the next product's input x' ./ w, in one fused pass
_step = spla.fuse(lambda xp: lambda y, x, alpha, jump, inv_w: (
    alpha * y + jump, xp.abs(alpha * y + jump - x), (alpha * y + jump) * inv_w), name="pagerank_step")


@on_graph_device
def pagerank(A, *, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight=True,
             dangling=None, device=None, kernel="auto"):
    """PageRank of every vertex, equal to ``networkx.pagerank(G, ...)`` within its tolerance.

    Parameters
    ----------
    A : spla.Matrix, SciPy sparse matrix/array (A[i, j] is the weight of the arc i -> j) or networkx graph
    alpha : float in [0, 1], damping factor
    personalization : dict or array (n,), optional
        Teleport distribution (values >= 0, normalised); dict keys are vertex indices, or nodes for a
        networkx graph (missing keys are 0; for a networkx graph, keys that are not nodes
        are ignored as networkx does).  All zero raises ZeroDivisionError (as networkx).
    max_iter : int >= 0, iteration limit
    tol : float > 0, convergence when Σ|x_new - x| < n · tol
    nstart : dict or array (n,), optional, the starting vector (values >= 0, normalised)
    weight : True (default), False/None, or a str
        True: the stored values are the weights (pattern matrices weigh 1); for a networkx
        graph True means networkx's default attribute "weight".  A str names the edge
        attribute of a networkx graph (missing = 1).  False/None: every arc weighs 1.
    dangling : dict or array (n,), optional
        Where the rank of dangling vertices (out-weight 0) goes (values >= 0, normalised); default
        the personalization.
    device, kernel : where to run, and the GPU product kernel

    Returns
    -------
    numpy float64 array (n,), summing to 1.

    Raises
    ------
    spla.ConvergenceError (a RuntimeError) after ``max_iter`` iterations without convergence;
    spla.InvalidGraph for negative, NaN or infinite weights; ZeroDivisionError when
    personalization, nstart or dangling sum to 0; before any work, ValueError for an alpha
    outside [0, 1] (NaN included), a negative max_iter, a tol that is not > 0, a NaN, infinite
    or negative value in personalization, nstart or dangling, or one of the wrong shape
    (networkx iterates max_iter times into PowerIterationFailedConvergence on most of these, and
    returns scores that are no distribution on negative values), and TypeError for an alpha or
    tol that is not a real number, a max_iter that is not an integer, or a personalization,
    nstart or dangling value that is not a number.

    Notes
    -----
    Converting a dict argument iterates over its entries (input parsing, as networkx does).
    """
    _check_options(alpha, max_iter, tol, kernel)
    if is_empty_graph(A):
        return np.zeros(0, dtype=np.float64)
    nodes = None
    if _common.is_networkx_graph(A):
        nodes = list(A)
        if isinstance(weight, (bool, np.bool_)) and weight:
            wattr = "weight"
        elif weight is None or isinstance(weight, (bool, np.bool_)):
            wattr = None
        elif isinstance(weight, str):
            wattr = weight
        else:
            raise TypeError(f"weight must be True, False, None or an edge attribute name, got {weight!r}")
        if wattr is None and A.is_multigraph():
            wattr = _NO_ATTRIBUTE  # every edge weighs 1, so parallel edges count, as in networkx
        # weights checked per edge, multigraph weights summed, self-loops exact (spla.Matrix.from_networkx)
        M = as_matrix(A, device=device, weight=wattr)
    else:
        if isinstance(weight, str):
            raise TypeError(f"weight={weight!r} names a networkx edge attribute, but the input is a matrix; pass "
                            "weight=True to use its stored values or weight=False to ignore them")
        if weight not in (True, False, None):
            raise TypeError(f"weight must be True, False or None for a matrix input, got {weight!r}")
        M = as_matrix(A, device=device)
        if not weight:
            M = pattern_of(M)
    _check_weights(M)
    n = M.shape[0]
    xp = M.xp

    p = _distribution(personalization, "personalization", n, nodes, xp)
    x = _distribution(nstart, "nstart", n, nodes, xp)
    dw = _distribution(dangling, "dangling", n, nodes, xp)
    if p is None:
        p = xp.full(n, 1.0 / n, dtype=np.float64)
    if x is None:
        x = xp.full(n, 1.0 / n, dtype=np.float64)
    if dw is None:
        dw = p

    ones = xp.ones(n, dtype=np.float64)
    # w = A +.× 1          (out-weight of every vertex)
    w = spla.mxv(M, ones, "plus_times", kernel=kernel)
    is_dangling = w == 0
    # inv_w = 1 ./ w where w != 0, 0 at the dangling vertices
    with np.errstate(over="ignore"):  # a subnormal out-weight: refused just below
        inv_w = xp.where(is_dangling, 0.0, 1.0 / xp.where(is_dangling, 1.0, w))
    _check_out_weights(w, inv_w, xp)
    dangling_f = is_dangling.astype(np.float64)
    has_dangling = any_true(is_dangling)
    teleport = (1.0 - alpha) * p

    same_dw = dw is p
    x_scaled = x * inv_w  # x ./ w, the first product's input
    change_sum = xp.zeros((), dtype=np.float64)

    def iteration():
        """One power iteration, in place on x, x_scaled and change_sum (no host reads: replayable)."""
        # y = (x ./ w) +.× A      (y[j] = Σ_i x[i] A[i, j] / w(i))
        y = spla.vxm(x_scaled, M, "plus_times", kernel=kernel)
        if not has_dangling:
            jump = teleport                                        # (1-α)·p
        elif same_dw:
            jump = ((1.0 - alpha) + alpha * (x * dangling_f).sum()) * p   # ((1-α) + α·Σ_D x)·p
        else:
            jump = teleport + (alpha * (x * dangling_f).sum()) * dw       # (1-α)·p + α·(Σ_D x)·dw
        y, change, y_scaled = _step(y, x, alpha, jump, inv_w)  # y = α·y + jump; |y - x|; y ./ w (one pass)
        change.sum(out=change_sum)                             # Σ|x_new - x|
        xp.copyto(x, y)
        xp.copyto(x_scaled, y_scaled)

    step = spla.Replay(iteration, M.device, name="pagerank iteration")  # a CUDA graph after two iterations
    err = None
    for _ in range(max_iter):  # power iterations
        step()
        err = float(change_sum)  # one scalar to the host per iteration
        if err < n * tol:
            return to_numpy(x).astype(np.float64, copy=False)
    last = "no iteration ran" if err is None else f"the last change Σ|x - x_prev| = {err:.6g} is not below n·tol = {n * tol:.6g}"
    raise spla.ConvergenceError(
        f"pagerank did not converge within max_iter={max_iter} iterations: {last} "
        "(networkx raises PowerIterationFailedConvergence here); raise max_iter or tol",
        iterations=max_iter, last_change=err)


#: an edge attribute no edge has: from_networkx then gives every edge the default weight 1
_NO_ATTRIBUTE = object()


def _check_options(alpha, max_iter, tol, kernel):
    """The scalar options, at the door: an alpha outside [0, 1] (NaN and infinities included), or a tol
    that no change can get below, would otherwise run max_iter iterations into a ConvergenceError that
    advises the wrong fix, and a negative max_iter would raise one without running any."""
    if not isinstance(alpha, numbers.Real) or not 0.0 <= alpha <= 1.0:  # NaN fails the comparison
        raise (ValueError if isinstance(alpha, numbers.Real) else TypeError)(
            f"alpha must be a finite real number in [0, 1] (the damping factor, e.g. 0.85), got {alpha!r}")
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter must be an integer, got {max_iter!r}")
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0 (the iteration limit, e.g. 100), got {max_iter!r}")
    if not isinstance(tol, numbers.Real) or not tol > 0:
        raise (ValueError if isinstance(tol, numbers.Real) else TypeError)(
            f"tol must be a real number > 0 (convergence is Σ|x - x_prev| < n·tol), got {tol!r}")
    spla.normalize_kernel(kernel)


def _check_out_weights(w, inv_w, xp):
    """Refuse out-weights whose sum overflows float64 or whose reciprocal does (a subnormal sum): the
    transition probabilities A[i, j] / w(i) would be 0 or inf, and the result would not be a distribution."""
    bad = xp.isinf(w) | xp.isinf(inv_w)
    if any_true(bad):
        i = int(xp.flatnonzero(bad)[0])
        raise spla.InvalidGraph(
            f"pagerank: vertex {i}'s out-weight {float(w[i]):.6g} has no finite reciprocal in float64 (its weights "
            "are too large or too small); multiply all weights by one constant, which leaves PageRank unchanged")


def _check_weights(M):
    if M.is_pattern or M.nnz == 0:
        return
    v = M.values
    xp = M.xp
    if v.dtype.kind == "f":
        if any_true(xp.isnan(v)):
            raise spla.InvalidGraph("pagerank: the graph has NaN edge weights; PageRank needs finite weights >= 0")
        if any_true(xp.isinf(v)):
            raise spla.InvalidGraph("pagerank: the graph has infinite edge weights; PageRank needs finite weights >= 0")
    if v.dtype.kind in "fi" and any_true(v < 0):
        raise spla.InvalidGraph(f"pagerank: the graph has negative edge weights (min {float(v.min())}); PageRank "
                                "needs weights >= 0 (or pass weight=False)")


def _number(name, key, value):
    """A dict argument's value as a float, or a TypeError naming its key."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: the value of key {key!r} is {value!r}, not a real number") from None


def _distribution(v, name, n, nodes, xp):
    """A dict / array argument as a normalised float64 (n,) vector on xp (None stays None)."""
    if v is None:
        return None
    if isinstance(v, dict):
        keys = list(v.keys())
        vals = np.fromiter((_number(name, k, val) for k, val in v.items()), dtype=np.float64, count=len(keys))
        if nodes is not None:
            index = {node: i for i, node in enumerate(nodes)}  # label -> position (input parsing)
            idx = np.fromiter((index.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
            keep = idx >= 0  # networkx ignores keys that are not nodes
            idx, vals = idx[keep], vals[keep]
        else:
            bad = [k for k in keys if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer))]
            if bad:  # 1.5 or True would silently become vertex 1
                raise ValueError(f"{name}: dict keys must be vertex indices 0..{n - 1} (integers) for a matrix "
                                 f"input, got {bad[0]!r}")
            idx = np.asarray([int(k) for k in keys], dtype=np.int64).reshape(-1)
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                bad = int(idx.min() if idx.min() < 0 else idx.max())
                raise ValueError(f"{name}: vertex {bad} is outside 0..{n - 1}")
        vec = np.zeros(n, dtype=np.float64)
        vec[idx] = vals
    else:
        try:
            vec = np.asarray(to_numpy(v) if not isinstance(v, (list, tuple)) else v, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{name} must be a dict or an array of {n} real numbers, got {type(v).__name__} "
                            f"({e})") from None
        if vec.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), got {vec.shape}")
    for bad, must in ((~np.isfinite(vec), "finite"), (vec < 0, ">= 0 (it is a distribution, normalised to sum 1)")):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = f"node {nodes[i]!r}" if nodes is not None else f"vertex {i}"
            raise ValueError(f"{name} gives {where} the value {float(vec[i])}; its values must be {must}")
    s = float(vec.sum())
    if s == 0:
        raise ZeroDivisionError(f"{name} sums to zero; it must give some vertex a non-zero weight")
    return xp.asarray(vec / s)
