"""PageRank against networkx.pagerank: every option, dangling vertices, weights, errors."""

import gzip
import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spla
from spla import testing
from spla.algorithms.pagerank import pagerank
from spla.testing import graphs as weighted_graphs

from conftest import GRAPHS_DIR as GRAPHS
# ``device`` is the conftest fixture ("cpu", and "gpu:0" where there is one)
HSET = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TIGHT = dict(tol=1e-10, max_iter=2000)
ATOL = 1e-8  # both sides iterate to Σ|Δ| < n·1e-10


def graphs(max_n=14, multigraph=True):
    """networkx graphs: directed or not, multi or not, self-loops, isolated vertices, random node order."""
    return testing.graphs(0, max_n, multi_edges=None if multigraph else False, shuffled_nodes=True)


def arr(d, G):
    return np.array([d[v] for v in G], dtype=np.float64)


def weights_dict(draw, G, allow_zero=True):
    """A dict over a random subset of G's nodes with non-negative weights summing > 0."""
    nodes = list(G)
    keys = draw(st.lists(st.sampled_from(nodes), min_size=1, unique=True))
    vals = draw(st.lists(st.floats(0.0 if allow_zero else 0.1, 5.0), min_size=len(keys), max_size=len(keys)))
    if sum(vals) == 0:
        vals[0] = 1.0
    return dict(zip(keys, vals))


# ----------------------------------------------------------------------------- random graphs
@given(G=graphs(), alpha=st.sampled_from([0.85, 0.5, 0.95]))
@HSET
def test_random_graphs_default_options(G, alpha, device):
    ref = arr(nx.pagerank(G, alpha=alpha, **TIGHT), G)
    got = pagerank(G, alpha=alpha, device=device, **TIGHT)
    assert got.dtype == np.float64 and got.shape == (len(G),)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=ATOL)
    if len(G):
        assert got.sum() == pytest.approx(1.0, abs=1e-9)


@given(G=weighted_graphs(max_nodes=14, weighted=True), multi=st.booleans(), data=st.data())
@HSET
def test_weighted_graphs_and_weight_option(G, multi, data, device):
    if multi:
        G = nx.MultiDiGraph(G) if G.is_directed() else nx.MultiGraph(G)
        G.add_edges_from(list(G.edges(data=True))[:3])  # parallel edges (weights add up)
    for w_ours, w_nx in ((True, "weight"), ("weight", "weight"), (False, None), (None, None)):
        ref = arr(nx.pagerank(G, weight=w_nx, **TIGHT), G)
        np.testing.assert_allclose(pagerank(G, weight=w_ours, device=device, **TIGHT), ref, rtol=1e-6, atol=ATOL)
    if len(G) and not multi:
        # the same weights as a SciPy matrix (stored values are the weights)
        S = nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight", format="csr")
        ref = arr(nx.pagerank(G, **TIGHT), G)
        np.testing.assert_allclose(pagerank(S, device=device, **TIGHT), ref, rtol=1e-6, atol=ATOL)
        M = spla.Matrix.from_scipy(S, device=device)
        np.testing.assert_allclose(pagerank(M, device=device, **TIGHT), ref, rtol=1e-6, atol=ATOL)
        ref_unw = arr(nx.pagerank(G, weight=None, **TIGHT), G)
        np.testing.assert_allclose(pagerank(M, weight=False, device=device, **TIGHT), ref_unw, rtol=1e-6, atol=ATOL)


@given(G=graphs(), data=st.data())
@HSET
def test_personalization_nstart_dangling(G, data, device):
    if len(G) == 0:
        return
    pers = weights_dict(data.draw, G) if data.draw(st.booleans()) else None
    nstart = weights_dict(data.draw, G) if data.draw(st.booleans()) else None
    dang = weights_dict(data.draw, G) if data.draw(st.booleans()) else None
    ref = arr(nx.pagerank(G, personalization=pers, nstart=nstart, dangling=dang, **TIGHT), G)
    got = pagerank(G, personalization=pers, nstart=nstart, dangling=dang, device=device, **TIGHT)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=ATOL)
    # the same as arrays, on a matrix input (keys are then vertex indices)
    pos = {v: i for i, v in enumerate(G)}

    def vec(d):
        if d is None:
            return None
        x = np.zeros(len(G))
        for k, val in d.items():
            x[pos[k]] = val
        return x

    S = nx.to_scipy_sparse_array(G, nodelist=list(G), format="csr")
    got = pagerank(S, personalization=vec(pers), nstart=vec(nstart), dangling=vec(dang), device=device, **TIGHT)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=ATOL)
    as_index = (lambda d: None if d is None else {pos[k]: v for k, v in d.items()})
    got = pagerank(S, personalization=as_index(pers), nstart=as_index(nstart), dangling=as_index(dang),
                   device=device, **TIGHT)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=ATOL)


@given(G=testing.graphs(0, 14, multi_edges=None, shuffled_nodes=True, weighted=True, weight="w", min_weight=0.0),
       data=st.data())
@HSET
def test_every_option_at_networkx_tolerances(G, data, device):
    """alpha, personalization, nstart, dangling, max_iter, tol, weight (an attribute name, missing on some
    edges: weight 1, as networkx; True: "weight", which no edge has; None / False) and kernel together, on
    weighted graphs of every kind, at networkx's own tolerances: networkx's iterations to rounding, and
    ConvergenceError exactly where networkx raises PowerIterationFailedConvergence."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    for edge in list(G.edges(keys=True) if G.is_multigraph() else G.edges()):
        if rng.random() < 0.3:
            del G.edges[edge]["w"]
    opts = dict(alpha=data.draw(st.sampled_from([0.85, 0.5, 0.95, 0.0, 0.3]), label="alpha"),
                tol=data.draw(st.sampled_from([1e-6, 1e-4, 1e-8]), label="tol"),
                max_iter=data.draw(st.sampled_from([100, 30, 8, 1]), label="max_iter"))
    for name in ("personalization", "nstart", "dangling"):
        opts[name] = weights_dict(data.draw, G) if len(G) and data.draw(st.booleans(), label=name) else None
    w_ours, w_nx = data.draw(st.sampled_from([("w", "w"), (True, "weight"), (None, None), (False, None)]),
                             label="weight")
    kernel = data.draw(st.sampled_from(testing.KERNEL_NAMES), label="kernel")
    try:
        ref = arr(nx.pagerank(G, weight=w_nx, **opts), G)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(spla.ConvergenceError, match=rf"max_iter={opts['max_iter']}"):
            pagerank(G, weight=w_ours, kernel=kernel, device=device, **opts)
        return
    got = pagerank(G, weight=w_ours, kernel=kernel, device=device, **opts)
    assert got.dtype == np.float64 and got.shape == (len(G),)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- named / real graphs
NAMED = testing.named_graphs()


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_graphs(name, device):
    G = NAMED[name]
    # networkx's defaults (tol=1e-6): the same iterations, so the same vector to rounding
    np.testing.assert_allclose(pagerank(G, device=device), arr(nx.pagerank(G), G), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pagerank(G, device=device, **TIGHT), arr(nx.pagerank(G, **TIGHT), G),
                               rtol=1e-6, atol=ATOL)


def test_grid_personalization_by_node_label(device):
    G = nx.grid_2d_graph(5, 6)
    pers = {(0, 0): 1.0, (4, 5): 3.0, ("not", "a node"): 7.0}  # networkx ignores unknown keys
    ref = arr(nx.pagerank(G, personalization=pers, **TIGHT), G)
    np.testing.assert_allclose(pagerank(G, personalization=pers, device=device, **TIGHT), ref, atol=ATOL)


def test_real_directed_graph(device):
    path = GRAPHS / "snap" / "email-Eu-core.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} not available")
    e = np.loadtxt(gzip.open(path, "rt"), dtype=np.int64, comments="#")
    G = nx.DiGraph()
    G.add_nodes_from(range(int(e.max()) + 1))
    G.add_edges_from(map(tuple, e))
    np.testing.assert_allclose(pagerank(G, device=device), arr(nx.pagerank(G), G), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pagerank(G, alpha=0.9, device=device, **TIGHT),
                               arr(nx.pagerank(G, alpha=0.9, **TIGHT), G), rtol=1e-6, atol=ATOL)


# ----------------------------------------------------------------------------- edge cases and errors
def test_tiny_graphs(device):
    assert pagerank(nx.Graph()).shape == (0,)
    assert pagerank(sp.csr_array((0, 0))).shape == (0,)
    G = nx.DiGraph()
    G.add_node("x")
    np.testing.assert_allclose(pagerank(G, device=device), [1.0])
    G = nx.DiGraph([(0, 1)])  # 1 is dangling
    np.testing.assert_allclose(pagerank(G, device=device, **TIGHT), arr(nx.pagerank(G, **TIGHT), G), atol=ATOL)


def test_non_convergence_raises(device):
    G = nx.karate_club_graph()
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=3)
    with pytest.raises(spla.ConvergenceError, match=r"max_iter=3.*PowerIterationFailedConvergence") as info:
        pagerank(G, max_iter=3, device=device)
    assert isinstance(info.value, RuntimeError)
    assert "last change" in str(info.value)
    # as networkx's num_iterations: how many ran, and the change the last one left (> n·tol)
    assert info.value.iterations == 3 and info.value.last_change > G.number_of_nodes() * 1e-6
    assert f"{info.value.last_change:.6g}" in str(info.value)
    with pytest.raises(spla.ConvergenceError, match="max_iter=0") as info:
        pagerank(G, max_iter=0, device=device)
    assert info.value.iterations == 0 and info.value.last_change is None


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
def test_invalid_weights(bad, device):
    S = sp.csr_array(np.array([[0, 1.0, 2.0], [bad, 0, 1.0], [1.0, 0, 0]]))
    with pytest.raises(spla.InvalidGraph, match="weight"):
        pagerank(S, device=device)
    np.testing.assert_allclose(pagerank(S, weight=False, device=device).sum(), 1.0)  # ignoring weights is fine
    G = nx.DiGraph()
    G.add_edge(0, 1, weight=bad)
    with pytest.raises(spla.InvalidGraph):
        pagerank(G, device=device)


@pytest.mark.parametrize("big, small", [(1e308, 1.0), (1e-320, 1e-320)], ids=["overflow", "subnormal"])
def test_out_weight_without_a_finite_reciprocal(big, small, device):
    """An out-weight sum that overflows float64 (or a subnormal one, whose reciprocal does) would make the
    transition probabilities 0 or inf and the result no distribution: refused with the remedy."""
    S = sp.csr_array(np.array([[0, big, big], [0, 0, small], [small, 0, 0]]))
    with pytest.raises(spla.InvalidGraph, match=r"vertex 0's out-weight .* has no finite reciprocal .*multiply all"):
        pagerank(S, device=device)
    scaled = pagerank(sp.csr_array(np.array([[0, 1.0, 1.0], [0, 0, 1.0], [1.0, 0, 0]])), device=device)
    if small == big:  # every weight equal: the same graph as all weights 1
        np.testing.assert_allclose(pagerank(S * 1e300, device=device), scaled, atol=ATOL)


def test_infinite_self_loop_is_reported_as_infinite(device):
    """A self-loop of weight inf is an infinite weight (networkx's converter computes w + w - w = NaN)."""
    G = nx.Graph()
    G.add_edge(0, 0, weight=np.inf)
    G.add_edge(0, 1, weight=1.0)
    with pytest.raises(spla.InvalidGraph, match="infinite edge weights"):
        pagerank(G, device=device)


def test_zero_weight_arcs_are_dangling_like_networkx(device):
    G = nx.DiGraph()
    G.add_edge(0, 1, weight=0.0)
    G.add_edge(0, 2, weight=1.0)
    G.add_edge(2, 0, weight=0.0)  # 2's only out-arc weighs 0: dangling, as networkx
    np.testing.assert_allclose(pagerank(G, device=device, **TIGHT), arr(nx.pagerank(G, **TIGHT), G), atol=ATOL)


def test_bad_arguments():
    G = nx.path_graph(4)
    S = nx.to_scipy_sparse_array(G)
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={0: 0.0})
    with pytest.raises(ZeroDivisionError, match="personalization"):
        pagerank(G, personalization={0: 0.0}, device="cpu")
    with pytest.raises(ZeroDivisionError, match="nstart"):
        pagerank(G, nstart=np.zeros(4), device="cpu")
    with pytest.raises(ZeroDivisionError, match="dangling"):
        pagerank(G, dangling={1: 0}, device="cpu")
    with pytest.raises(ValueError, match="shape"):
        pagerank(G, personalization=np.ones(3), device="cpu")
    with pytest.raises(ValueError, match="outside"):
        pagerank(S, personalization={7: 1.0}, device="cpu")
    for key in (1.5, True, "1"):  # 1.5 and True must not become vertex 1
        with pytest.raises(ValueError, match=rf"dict keys must be vertex indices 0..3 \(integers\) .*got {key!r}"):
            pagerank(S, personalization={key: 1.0}, device="cpu")
    np.testing.assert_allclose(pagerank(S, personalization={np.int64(1): 1.0}, device="cpu"),
                               pagerank(S, personalization={1: 1.0}, device="cpu"))
    with pytest.raises(TypeError, match="attribute"):
        pagerank(S, weight="weight", device="cpu")


def test_scalar_options_fail_at_the_door(monkeypatch):
    """A NaN or infinite alpha, or a tol no change gets below, is refused before any iteration runs
    (not after max_iter iterations with a ConvergenceError advising to "raise max_iter or tol")."""
    G = nx.path_graph(4)
    monkeypatch.setattr(spla, "Replay", lambda *a, **k: pytest.fail("an iteration ran"))
    for alpha in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match=rf"alpha must be a finite real number .*got {alpha!r}"):
            pagerank(G, alpha=alpha, device="cpu")
    for alpha in ("0.85", None, np.full(4, 0.85)):
        with pytest.raises(TypeError, match="alpha must be a finite real number"):
            pagerank(G, alpha=alpha, device="cpu")
    for alpha in (1.5, -0.1, 1 + 1e-12, np.float32(2.0)):
        with pytest.raises(ValueError, match=rf"alpha must be a finite real number in \[0, 1\] .*got {re.escape(repr(alpha))}"):
            pagerank(G, alpha=alpha, device="cpu")
    for max_iter in (-1, np.int64(-5)):
        with pytest.raises(ValueError, match=rf"max_iter must be >= 0 .*got {re.escape(repr(max_iter))}"):
            pagerank(G, max_iter=max_iter, device="cpu")
    for tol in (0, -1e-6, np.nan):
        with pytest.raises(ValueError, match=rf"tol must be a real number > 0 .*got {tol!r}"):
            pagerank(G, tol=tol, device="cpu")
    with pytest.raises(TypeError, match="tol must be a real number > 0"):
        pagerank(G, tol="1e-6", device="cpu")
    for max_iter in (2.5, "10", True):
        with pytest.raises(TypeError, match=rf"max_iter must be an integer, got {max_iter!r}"):
            pagerank(G, max_iter=max_iter, device="cpu")
    with pytest.raises(spla.UnknownNameError, match="unknown kernel 'bogus'"):
        pagerank(nx.Graph(), kernel="bogus", device="cpu")  # the empty graph runs no product


def test_alpha_outside_the_unit_interval_is_refused_where_networkx_iterates():
    """networkx runs max_iter iterations into PowerIterationFailedConvergence on alpha = 1.5; spla
    refuses it before any work, and takes both ends of [0, 1] as networkx does."""
    G = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)])  # 3 is dangling
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, alpha=1.5)
    with pytest.raises(ValueError, match=r"alpha must be a finite real number in \[0, 1\] .*got 1\.5"):
        pagerank(G, alpha=1.5, device="cpu")
    pers = {0: 1.0, 3: 3.0}
    for alpha in (0.0, 1.0, 0, 1):
        np.testing.assert_allclose(pagerank(G, alpha=alpha, personalization=pers, device="cpu", **TIGHT),
                                   arr(nx.pagerank(G, alpha=alpha, personalization=pers, **TIGHT), G), atol=ATOL)
    np.testing.assert_allclose(pagerank(G, alpha=0.0, personalization=pers, device="cpu"), [0.25, 0, 0, 0.75])


@pytest.mark.parametrize("name", ["personalization", "nstart", "dangling"])
def test_distribution_arguments_fail_at_the_door(name, monkeypatch):
    """personalization, nstart and dangling are distributions: negative values (networkx returns
    scores that are no distribution, or negative ones), values that are not numbers and arrays of
    the wrong shape are refused before any iteration runs, naming the argument and the entry."""
    G = nx.DiGraph([("a", "b"), ("b", "c")])  # c is dangling
    S = nx.to_scipy_sparse_array(G)
    monkeypatch.setattr(spla, "Replay", lambda *a, **k: pytest.fail("an iteration ran"))
    with pytest.raises(ValueError, match=rf"{name} gives node 'b' the value -0\.5; its values must be >= 0"):
        pagerank(G, device="cpu", **{name: {"a": 1.0, "b": -0.5}})
    with pytest.raises(ValueError, match=rf"{name} gives vertex 2 the value -1\.0; its values must be >= 0"):
        pagerank(S, device="cpu", **{name: np.array([3.0, 0.0, -1.0])})
    with pytest.raises(ValueError, match=rf"{name} gives vertex 0 the value -1\.0"):  # sums to 1 all the same
        pagerank(S, device="cpu", **{name: [-1.0, 1.0, 1.0]})
    for value in ("x", None, [1.0]):
        with pytest.raises(TypeError, match=rf"{name}: the value of key 'b' is {re.escape(repr(value))}, not a real"):
            pagerank(G, device="cpu", **{name: {"a": 1.0, "b": value}})
    with pytest.raises(TypeError, match=rf"{name} must be a dict or an array of 3 real numbers, got list"):
        pagerank(S, device="cpu", **{name: ["a", "b", "c"]})
    for shape in ((2,), (4,), (3, 1), (1, 3), ()):
        with pytest.raises(ValueError, match=rf"{name} must have shape \(3,\), got {re.escape(str(shape))}"):
            pagerank(S, device="cpu", **{name: np.ones(shape)})
    with pytest.raises(ValueError, match=rf"{name} must have shape \(3,\), got \(2,\)"):
        pagerank(G, device="cpu", **{name: [1.0, 1.0]})
    with pytest.raises(ValueError, match=rf"{name} must have shape \(3,\), got \(\)"):
        pagerank(G, device="cpu", **{name: 1.0})


@pytest.mark.parametrize("name", ["personalization", "nstart", "dangling"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_distribution_values(name, bad, monkeypatch):
    G = nx.DiGraph([("a", "b"), ("b", "c")])  # c is dangling
    monkeypatch.setattr(spla, "Replay", lambda *a, **k: pytest.fail("an iteration ran"))
    with pytest.raises(ValueError, match=rf"{name} gives node 'b' the value {bad}; its values must be finite"):
        pagerank(G, device="cpu", **{name: {"a": 1.0, "b": bad}})
    S = nx.to_scipy_sparse_array(G)
    with pytest.raises(ValueError, match=rf"{name} gives vertex 2 the value {bad}"):
        pagerank(S, device="cpu", **{name: np.array([1.0, 0.0, bad])})


def test_numpy_bool_weight_on_a_networkx_graph(device):
    """np.bool_ weight= means what True / False mean (it already did for a matrix input)."""
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 3.0), (0, 2, 1.0), (2, 0, 1.0), (1, 2, 1.0)])
    for flag in (True, False):
        np.testing.assert_allclose(pagerank(G, weight=np.bool_(flag), device=device, **TIGHT),
                                   pagerank(G, weight=flag, device=device, **TIGHT))


def test_no_rows_but_columns_is_not_square():
    with pytest.raises(spla.InvalidGraph, match="square"):
        pagerank(sp.csr_array((0, 3)), device="cpu")
