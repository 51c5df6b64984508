"""The operator registry: names, domains, identities, operators, accumulators, lookups."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spla
from spla import semirings as sr
from spla.testing import identity, scaled, semiring_and_dtype

REQUIRED = ["plus_times", "plus_first", "plus_second", "plus_pair", "min_plus", "min_first", "min_second",
            "max_times", "max_first", "lor_land", "any_pair", "any_first", "bor_first", "bor_second"]
ALL_DTYPES = [np.dtype(d) for d in (np.bool_, np.int32, np.int64, np.uint32, np.uint64, np.float32, np.float64)]
NUMERIC = ALL_DTYPES[1:]
INTS = ALL_DTYPES[1:5]


def sample(dtype, n=64, seed=0):
    """Representative values of ``dtype``: small ones of both signs, the extremes, +-inf."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return np.array([False, True] * (n // 2))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        base = np.array([0, 1, 2, 7, info.max, info.min, info.max - 1] + ([-1, -7, info.min + 1] if dtype.kind == "i"
                                                                         else []), dtype=dtype)
        return np.concatenate([base, rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dtype)])
    base = np.array([0.0, -0.0, 1.0, -1.0, 0.25, -3.5, np.inf, -np.inf, 1e30, -1e30], dtype=dtype)
    return np.concatenate([base, (rng.standard_normal(n) * 100).astype(dtype)])


def test_required_semirings_are_registered():
    names = sr.names()
    assert names == sorted(names)
    for name in REQUIRED:
        assert name in names
        s = sr.get(name)
        assert isinstance(s, sr.Semiring) and s.name == name == f"{s.add.name}_{s.mul.name}"
        assert getattr(sr, name) is s                  # spla.semirings.plus_times


@pytest.mark.parametrize("name", sr.names())
def test_domains(name):
    s = sr.get(name)
    assert s.dtypes and all(isinstance(d, np.dtype) for d in s.dtypes)
    assert set(s.dtypes) <= set(ALL_DTYPES)
    assert len(set(s.dtypes)) == len(s.dtypes)
    assert set(s.dtypes) <= set(s.add.dtypes)          # ADD is defined wherever the semiring is
    if s.add.name in ("plus", "min", "max"):
        assert set(s.dtypes) == set(NUMERIC)
    if s.add.name == "lor":
        assert set(s.dtypes) == {np.dtype(bool)}
    if s.add.name == "bor":
        assert set(s.dtypes) == set(INTS)
    if s.add.name == "any":
        assert set(s.dtypes) == {np.dtype(bool), np.dtype(np.uint32), np.dtype(np.uint64)}


def test_lookup():
    s = sr.get("min_plus")
    assert sr.get(s) is s and sr.get("min_plus") is s and sr.min_plus is s
    assert repr(s) == "spla.semirings.min_plus"
    with pytest.raises(spla.UnknownNameError, match="unknown semiring 'min_pluss'; known semirings are: any_first"):
        sr.get("min_pluss")
    with pytest.raises(spla.UnknownNameError):
        sr.get(None)


@pytest.mark.parametrize("monoid", sorted(sr.MONOIDS))
def test_identities(monoid):
    m = sr.MONOIDS[monoid]
    assert m.name == monoid
    for dt in m.dtypes:
        ident = m.identity(dt)
        assert isinstance(ident, np.generic) and ident.dtype == dt, (monoid, dt)
        assert ident == identity(monoid, dt), (monoid, dt)
    for name in sr.names():
        s = sr.get(name)
        for dt in s.dtypes:
            assert s.identity(dt) == s.add.identity(dt)


@pytest.mark.parametrize("monoid", sorted(sr.MONOIDS))
def test_identity_is_neutral(monoid):
    """ADD(identity, x) == x for every x of every domain: what makes 'an identity input
    contributes nothing' and 'the identity where nothing contributed' consistent."""
    m = sr.MONOIDS[monoid]
    for dt in m.dtypes:
        x = sample(dt)
        ident = m.identity(dt)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(m.ufunc(np.full_like(x, ident), x).astype(dt), x, err_msg=f"{monoid} {dt}")
            np.testing.assert_array_equal(m.ufunc(x, np.full_like(x, ident)).astype(dt), x, err_msg=f"{monoid} {dt}")


@pytest.mark.parametrize("monoid", sorted(sr.MONOIDS))
def test_monoid_is_commutative_and_associative(monoid):
    m = sr.MONOIDS[monoid]
    for dt in m.dtypes:
        if dt.kind == "f" and monoid == "plus":
            continue                                   # float addition is not associative
        x, y, z = sample(dt, seed=1), sample(dt, seed=2), sample(dt, seed=3)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(m.ufunc(x, y), m.ufunc(y, x))
            np.testing.assert_array_equal(m.ufunc(m.ufunc(x, y), z), m.ufunc(x, m.ufunc(y, z)))


REF_MUL = {
    "times": lambda x, a: x * a, "plus": lambda x, a: x + a, "first": lambda x, a: x, "second": lambda x, a: a,
    "pair": lambda x, a: np.ones_like(x), "land": np.logical_and, "min": np.minimum, "max": np.maximum,
    "band": lambda x, a: x & a,
}


@pytest.mark.parametrize("op", sorted(sr.BINARY_OPS))
def test_binary_operators(op):
    f = sr.BINARY_OPS[op]
    assert f.name == op
    dts = [np.dtype(bool)] if op == "land" else (INTS if op == "band" else NUMERIC)
    for dt in dts:
        x, a = sample(dt, seed=4), sample(dt, seed=5)
        with np.errstate(all="ignore"):
            got = np.asarray(f.apply(x, a, np))
            want = np.asarray(REF_MUL[op](x, a))
        np.testing.assert_array_equal(got.astype(dt), want.astype(dt), err_msg=f"{op} {dt}")
        # broadcasting, as the block products use it: (n, 1) x (n, k)
        X = x[:8, None]
        A = np.stack([a[:8]] * 3, axis=1)
        with np.errstate(all="ignore"):
            assert np.asarray(f.apply(X, A, np)).shape == (8, 3)
    assert f.uses_x == (op not in ("second", "pair")) and f.uses_a == (op not in ("first", "pair"))


@pytest.mark.parametrize("name", sr.ACCUM_OPS)
def test_accumulators(name):
    want = {"plus": lambda o, n: o + n, "min": np.minimum, "max": np.maximum, "lor": np.logical_or,
            "bor": lambda o, n: o | n, "first": lambda o, n: o, "second": lambda o, n: n}[name]
    for dt in sr.accum_dtypes(name):
        old, new = sample(dt, seed=6), sample(dt, seed=7)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(np.asarray(sr.accum_apply(name, old, new, np)).astype(dt),
                                          np.asarray(want(old, new)).astype(dt), err_msg=f"{name} {dt}")
    assert set(sr.accum_dtypes("lor")) == {np.dtype(bool)}
    assert np.dtype(bool) not in sr.accum_dtypes("plus")
    assert set(sr.accum_dtypes("bor")) == set(INTS)
    assert set(sr.accum_dtypes("first")) == set(ALL_DTYPES)


def test_unknown_accum():
    with pytest.raises(spla.UnknownNameError, match="unknown accum 'times'; use one of plus, min, max, lor, bor"):
        sr.accum_apply("times", np.zeros(1), np.zeros(1))


@settings(max_examples=scaled(100), deadline=None)
@given(pair=semiring_and_dtype())
def test_semiring_and_dtype_strategy(pair):
    s, dt = pair
    assert isinstance(s, sr.Semiring) and dt in s.dtypes


@settings(max_examples=scaled(30), deadline=None)
@given(pair=semiring_and_dtype(semirings=["plus_times", "lor_land"], dtypes=[np.float32, np.bool_]))
def test_semiring_and_dtype_strategy_filters(pair):
    s, dt = pair
    assert (s.name, dt) in {("plus_times", np.dtype(np.float32)), ("lor_land", np.dtype(bool))}


@settings(max_examples=scaled(40), deadline=None)
@given(x=st.integers(-1000, 1000), y=st.integers(-1000, 1000))
def test_user_semiring_runs_on_cpu(x, y):
    """A Semiring object built from the registry's parts (not registered) runs on the CPU."""
    custom = sr.Semiring(sr.MONOIDS["max"], sr.BINARY_OPS["plus"], sr.SIGNED)
    A = spla.Matrix.from_edges(np.array([0, 1]), np.array([2, 2]), values=np.array([x, y]), directed=True,
                               device="cpu")
    u = np.array([5, 3, 0], dtype=np.int64)
    assert spla.vxm(u, A, custom)[2] == max(5 + x, 3 + y)
