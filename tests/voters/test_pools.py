"""Checks of the voter pools and operators in cbviz.voters.

Reference voter matrices are rebuilt here from the fitted parameters with the stump
definition itself (``sign * (+1 if x_j > t else -1)``), not through the operator code.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from cbviz.voters import (DenseOperator, HyperplanePool, RBFPool, StumpOperator, StumpPool,
                          as_operator)

TOL = 1e-9


def stump_reference(pool, X):
    """H[i, k] = sign_k * (+1 if X[i, feature_k] > threshold_k else -1), one voter at a time."""
    X = np.asarray(X, dtype=float)
    H = np.empty((X.shape[0], pool.n_voters_))
    for k in range(pool.n_voters_):
        f, t, s = pool.feature_[k], pool.threshold_[k], pool.sign_[k]
        H[:, k] = [s * (1.0 if x > t else -1.0) for x in X[:, f]]
    return H


def continuous_data(seed=0, m=80, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)) * [1.0, 5.0, 0.1][:d] + [0.0, 3.0, -1.0][:d]


def tied_data(seed=0, m=120, d=4, levels=5):
    """Integer-valued features: many ties in every column."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, size=(m, d)).astype(float)


def base_thresholds(pool, j):
    """Thresholds of the direct stumps on feature j, in pool order."""
    direct = pool.sign_ > 0
    return pool.threshold_[direct & (pool.feature_ == j)]


# --------------------------------------------------------------------------- thresholds

def test_ten_thresholds_equally_spaced_strictly_inside_range():
    X = continuous_data()
    pool = StumpPool(n_thresholds=10).fit(X)
    assert pool.n_base_ == 10 * X.shape[1]
    for j in range(X.shape[1]):
        t = np.sort(base_thresholds(pool, j))
        lo, hi = X[:, j].min(), X[:, j].max()
        step = (hi - lo) / 11
        assert t.size == 10
        assert np.all((t > lo) & (t < hi))
        np.testing.assert_allclose(t, lo + step * np.arange(1, 11), rtol=0, atol=TOL * (hi - lo))
        np.testing.assert_allclose(np.diff(t), step, rtol=0, atol=TOL * (hi - lo))


@pytest.mark.parametrize("n", [1, 3, 7])
def test_other_threshold_counts(n):
    X = continuous_data(seed=n)
    pool = StumpPool(n_thresholds=n).fit(X)
    for j in range(X.shape[1]):
        lo, hi = X[:, j].min(), X[:, j].max()
        np.testing.assert_allclose(np.sort(base_thresholds(pool, j)),
                                   lo + (hi - lo) / (n + 1) * np.arange(1, n + 1), rtol=0, atol=1e-12)


def test_all_thresholds_are_midpoints_of_distinct_values():
    X = tied_data(seed=3, levels=6)
    X[:, 1] = X[:, 1] ** 2 / 3.0          # uneven spacing
    pool = StumpPool(n_thresholds="all").fit(X)
    for j in range(X.shape[1]):
        u = sorted(set(X[:, j].tolist()))
        expected = [(u[i] + u[i + 1]) / 2 for i in range(len(u) - 1)]
        np.testing.assert_allclose(np.sort(base_thresholds(pool, j)), expected, rtol=0, atol=1e-12)
    # continuous data: m - 1 midpoints per feature
    Xc = continuous_data(m=50)
    pc = StumpPool(n_thresholds="all").fit(Xc)
    assert pc.n_base_ == 49 * Xc.shape[1]


@pytest.mark.parametrize("n", [10, "all"])
def test_constant_feature_gets_no_thresholds(n):
    X = continuous_data()
    X[:, 1] = 2.5
    pool = StumpPool(n_thresholds=n).fit(X)
    assert not np.any(pool.feature_ == 1)
    assert set(np.unique(pool.feature_)) == {0, 2}
    H = pool.transform(X)
    np.testing.assert_array_equal(H, stump_reference(pool, X))


def test_all_features_constant_is_an_error():
    with pytest.raises(ValueError):
        StumpPool().fit(np.ones((10, 3)))


# --------------------------------------------------------------------------- transform

@pytest.mark.parametrize("n", [10, "all", 3])
@pytest.mark.parametrize("complements", [True, False])
def test_transform_shape_values_and_definition(n, complements):
    X = tied_data(seed=1) if n == 3 else continuous_data(seed=1)
    pool = StumpPool(n_thresholds=n, complements=complements).fit(X)
    H = pool.transform(X)
    assert H.shape == (X.shape[0], pool.n_voters_)
    assert set(np.unique(H)) <= {-1.0, 1.0}
    assert pool.n_voters_ == (2 if complements else 1) * pool.n_base_
    np.testing.assert_array_equal(H, stump_reference(pool, X))
    if complements:
        nb = pool.n_base_
        np.testing.assert_array_equal(H[:, nb:], -H[:, :nb])
        np.testing.assert_array_equal(pool.feature_[nb:], pool.feature_[:nb])
        np.testing.assert_array_equal(pool.threshold_[nb:], pool.threshold_[:nb])
        assert np.all(pool.sign_[:nb] == 1) and np.all(pool.sign_[nb:] == -1)
    else:
        assert np.all(pool.sign_ == 1)


def test_value_equal_to_threshold_votes_minus_one_for_direct_stump():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    pool = StumpPool(n_thresholds=3).fit(X)           # thresholds 1, 2, 3
    np.testing.assert_allclose(pool.threshold_[:3], [1.0, 2.0, 3.0], rtol=0, atol=1e-12)
    H = pool.transform(np.array([[2.0]]))
    np.testing.assert_array_equal(H[0], [1.0, -1.0, -1.0, -1.0, 1.0, 1.0])


def test_describe_labels():
    X = np.array([[0.0, 0.0, 0.0, 0.0], [1.04, 1.04, 1.04, 1.04], [0.3, 0.9, 0.1, 0.7]])
    pool = StumpPool(n_thresholds=1).fit(X)           # one threshold per feature: 0.52
    assert pool.n_base_ == 4
    assert pool.describe(3) == "x3 > 0.52"
    assert pool.describe(pool.n_base_ + 3) == "x3 <= 0.52"
    assert pool.describe(0) == "x0 > 0.52"
    named = StumpPool(n_thresholds=1).fit(X, feature_names=["a", "b", "c", "petal width"])
    assert named.describe(3) == "petal width > 0.52"
    assert named.describe(7) == "petal width <= 0.52"
    assert named.describe(1) == "b > 0.52"
    with pytest.raises(ValueError):
        StumpPool(n_thresholds=1).fit(X, feature_names=["a", "b"])


# --------------------------------------------------------------------------- fast operator

OPERATOR_CASES = [(seed, n, c, data) for seed, (n, c, data) in enumerate(
    (n, c, data) for n in (10, 3, "all") for c in (True, False) for data in ("tied", "continuous"))]


@pytest.mark.parametrize("seed, n, complements, data", OPERATOR_CASES)
def test_operator_products_match_dense(seed, n, complements, data):
    rng = np.random.default_rng(1000 + seed)
    X = tied_data(seed=5) if data == "tied" else continuous_data(seed=5, m=90)
    pool = StumpPool(n_thresholds=n, complements=complements).fit(X)
    H = stump_reference(pool, X)
    op = pool.operator(X)
    assert isinstance(op, StumpOperator)
    assert op.shape == H.shape
    np.testing.assert_array_equal(op.col_sq_sums, np.sum(H * H, axis=0))
    for _ in range(5):
        v = rng.normal(size=X.shape[0])
        np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)
        a = rng.exponential(size=pool.n_voters_) * (rng.random(pool.n_voters_) < 0.3)
        np.testing.assert_allclose(op.matvec(a), H @ a, rtol=0, atol=TOL)
    # integer-valued v (labels), all-ones, and the zero weight vector
    y = rng.choice([-1.0, 1.0], size=X.shape[0])
    np.testing.assert_allclose(op.rmatvec(y), H.T @ y, rtol=0, atol=TOL)
    np.testing.assert_allclose(op.rmatvec(np.ones(X.shape[0])), H.sum(axis=0), rtol=0, atol=TOL)
    np.testing.assert_array_equal(op.matvec(np.zeros(pool.n_voters_)), np.zeros(X.shape[0]))
    for k in rng.choice(pool.n_voters_, size=8, replace=False):
        np.testing.assert_array_equal(op.column(k), H[:, k])
    idx = rng.choice(pool.n_voters_, size=6, replace=False)
    np.testing.assert_array_equal(op.columns(idx), H[:, idx])
    assert op.columns([]).shape == (X.shape[0], 0)
    np.testing.assert_array_equal(op.toarray(), H)
    np.testing.assert_array_equal(pool.transform(X), H)


@pytest.mark.parametrize("n", [10, 4, "all"])
@pytest.mark.parametrize("complements", [True, False])
def test_operator_on_unseen_data_with_values_on_thresholds(n, complements):
    rng = np.random.default_rng(9)
    X = tied_data(seed=7, m=100, d=3, levels=5)
    pool = StumpPool(n_thresholds=n, complements=complements).fit(X)
    # test rows: every threshold value appears, plus values outside the training range and ties
    thr_rows = []
    for k in range(pool.n_base_):
        row = rng.integers(-1, 6, size=3).astype(float)
        row[pool.feature_[k]] = pool.threshold_[k]
        thr_rows.append(row)
    X_test = np.vstack([np.array(thr_rows), rng.integers(-2, 7, size=(40, 3)).astype(float),
                        np.repeat(X[:1], 5, axis=0)])
    H = stump_reference(pool, X_test)
    op = pool.operator(X_test)
    assert op.shape == H.shape
    for _ in range(4):
        v = rng.normal(size=X_test.shape[0])
        np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)
        a = rng.exponential(size=pool.n_voters_)
        np.testing.assert_allclose(op.matvec(a), H @ a, rtol=0, atol=TOL)
    np.testing.assert_array_equal(op.toarray(), H)
    np.testing.assert_array_equal(pool.transform(X_test), H)


@pytest.mark.parametrize("n", [10, "all"])
def test_operator_when_test_data_is_beyond_every_threshold(n):
    """Features whose test values all lie above (or all below, or on) the thresholds."""
    rng = np.random.default_rng(21)
    X = tied_data(seed=8, m=60, d=4, levels=6)
    pool = StumpPool(n_thresholds=n).fit(X)
    m_test = 15
    X_test = np.column_stack([
        np.full(m_test, 100.0),                        # above every threshold
        rng.integers(0, 6, m_test).astype(float),      # mixed
        np.full(m_test, -100.0),                       # below every threshold
        np.full(m_test, 100.0),                        # last feature above
    ])
    for cols in (X_test, X_test[:, ::-1].copy()):
        H = stump_reference(pool, cols)
        op = pool.operator(cols)
        v = rng.normal(size=m_test)
        np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)


@pytest.mark.parametrize("n", [10, "all"])
def test_restricted_operators(n):
    rng = np.random.default_rng(22)
    X = tied_data(seed=9, m=70, d=3, levels=7)
    pool = StumpPool(n_thresholds=n).fit(X)
    H = stump_reference(pool, X)
    idx = rng.choice(pool.n_voters_, size=9, replace=False)
    v = rng.normal(size=70)
    for op in (pool.operator(X), as_operator(H)):
        sub = op.restrict(idx)
        assert sub.shape == (70, 9)
        np.testing.assert_allclose(sub.rmatvec(v), H[:, idx].T @ v, rtol=0, atol=TOL)
        np.testing.assert_array_equal(sub.toarray(), H[:, idx])
        np.testing.assert_array_equal(sub.col_sq_sums, np.full(9, 70.0))
        a = rng.exponential(size=9)
        np.testing.assert_allclose(sub.matvec(a), H[:, idx] @ a, rtol=0, atol=TOL)
    # restricting does not disturb the parent
    op = pool.operator(X)
    op.restrict(idx[:3])
    np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)


def test_operator_on_a_single_row():
    X = continuous_data()
    pool = StumpPool().fit(X)
    x = X[[4]]
    H = stump_reference(pool, x)
    np.testing.assert_allclose(pool.operator(x).rmatvec([2.5]), 2.5 * H[0], rtol=0, atol=TOL)


# --------------------------------------------------------------------------- input checks

@pytest.mark.parametrize("n", [10, "all"])
def test_wrong_feature_count_raises(n):
    X = continuous_data()
    pool = StumpPool(n_thresholds=n).fit(X)
    with pytest.raises(ValueError):
        pool.transform(X[:, :2])
    with pytest.raises(ValueError):
        pool.operator(np.hstack([X, X[:, :1]]))


def test_nan_input_raises():
    X = continuous_data()
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError):
        StumpPool().fit(Xn)
    pool = StumpPool().fit(X)
    with pytest.raises(ValueError):
        pool.transform(Xn)
    with pytest.raises(ValueError):
        pool.operator(Xn)
    Xi = X.copy()
    Xi[0, 0] = np.inf
    with pytest.raises(ValueError):
        pool.transform(Xi)


@pytest.mark.parametrize("n", [0, -1, "x", True, False, 2.5, None, "ALL"])
def test_bad_n_thresholds_raise(n):
    with pytest.raises(ValueError):
        StumpPool(n_thresholds=n).fit(continuous_data())


def test_numpy_integer_n_thresholds_accepted():
    pool = StumpPool(n_thresholds=np.int64(4)).fit(continuous_data())
    assert pool.n_base_ == 12


# --------------------------------------------------------------------------- other pools

def test_hyperplane_pool():
    X = continuous_data(seed=2, m=70)
    pool = HyperplanePool(n_hyperplanes=15, random_state=3).fit(X)
    H = pool.transform(X)
    assert H.shape == (70, 30) == (X.shape[0], pool.n_voters_)
    assert set(np.unique(H)) <= {-1.0, 1.0}
    np.testing.assert_array_equal(H[:, 15:], -H[:, :15])
    # definition: sign(w . x - b) with the fitted directions and offsets
    ref = np.where(X @ pool.coef_.T - pool.offset_ > 0, 1.0, -1.0)
    np.testing.assert_array_equal(H[:, :15], ref)
    np.testing.assert_allclose(np.linalg.norm(pool.coef_, axis=1), 1.0, rtol=0, atol=1e-12)
    # determinism
    np.testing.assert_array_equal(HyperplanePool(15, random_state=3).fit(X).transform(X), H)
    assert not np.array_equal(HyperplanePool(15, random_state=4).fit(X).transform(X), H)
    # without complements
    H1 = HyperplanePool(15, complements=False, random_state=3).fit(X).transform(X)
    np.testing.assert_array_equal(H1, H[:, :15])
    # operator wraps the dense matrix
    op = pool.operator(X)
    v = np.random.default_rng(0).normal(size=70)
    np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)
    assert isinstance(pool.describe(0), str) and isinstance(pool.describe(20), str)
    with pytest.raises(ValueError):
        pool.transform(X[:, :2])
    with pytest.raises(ValueError):
        HyperplanePool(n_hyperplanes=0).fit(X)


def test_rbf_pool():
    rng = np.random.default_rng(4)
    X = continuous_data(seed=4, m=60)
    y = rng.choice([-1, 1], size=60)
    pool = RBFPool(n_centers=12, random_state=5).fit(X, y)
    H = pool.transform(X)
    assert H.shape == (60, 24) == (X.shape[0], pool.n_voters_)
    assert np.all(np.abs(H) <= 1.0)
    np.testing.assert_array_equal(H[:, 12:], -H[:, :12])
    # definition: y_c exp(-gamma ||x - c||^2), gamma = 1 / (d var(X)) for "scale"
    assert abs(pool.gamma_ - 1.0 / (X.shape[1] * X.var())) <= 1e-12
    sq = ((X[:, None, :] - pool.centers_[None, :, :]) ** 2).sum(axis=2)
    ref = pool.center_label_ * np.exp(-pool.gamma_ * sq)
    np.testing.assert_allclose(H[:, :12], ref, rtol=0, atol=1e-12)
    # each centre is a training point whose label the voter carries at full strength
    for c in range(12):
        i = np.flatnonzero(np.all(X == pool.centers_[c], axis=1))
        assert i.size >= 1
        assert pool.center_label_[c] == y[i[0]]
        assert abs(H[i[0], c] - y[i[0]]) <= 1e-9
    # determinism
    np.testing.assert_array_equal(RBFPool(12, random_state=5).fit(X, y).transform(X), H)
    assert not np.array_equal(RBFPool(12, random_state=6).fit(X, y).transform(X), H)
    # fixed gamma and more centres than points
    p2 = RBFPool(n_centers=500, gamma=0.3, complements=False).fit(X, y)
    assert p2.n_voters_ == 60 and p2.gamma_ == 0.3
    with pytest.raises(ValueError):
        RBFPool().fit(X)
    with pytest.raises(ValueError):
        RBFPool().fit(X, y[:-1])
    with pytest.raises(ValueError):
        pool.transform(X[:, :1])
    assert isinstance(pool.describe(3), str)


def test_as_operator_round_trip():
    rng = np.random.default_rng(8)
    H = rng.choice([-1.0, 1.0], size=(25, 9))
    op = as_operator(H)
    assert isinstance(op, DenseOperator)
    assert op.shape == (25, 9)
    np.testing.assert_array_equal(op.toarray(), H)
    v, a = rng.normal(size=25), rng.exponential(size=9)
    np.testing.assert_allclose(op.rmatvec(v), H.T @ v, rtol=0, atol=TOL)
    np.testing.assert_allclose(op.matvec(a), H @ a, rtol=0, atol=TOL)
    np.testing.assert_array_equal(op.column(4), H[:, 4])
    np.testing.assert_array_equal(op.columns([1, 7]), H[:, [1, 7]])
    np.testing.assert_array_equal(op.col_sq_sums, np.full(9, 25.0))
    assert as_operator(op) is op
    sop = StumpPool().fit(continuous_data()).operator(continuous_data())
    assert as_operator(sop) is sop
    with pytest.raises(ValueError):
        as_operator(np.ones(5))


# --------------------------------------------------------------------------- cost (no timing)

def _dense_like(obj, m, n):
    """Names of attributes holding an array as large as an m x n voter matrix."""
    return [k for k, v in vars(obj).items()
            if isinstance(v, np.ndarray) and v.ndim >= 2 and (n in v.shape[1:] or v.size >= m * n)]


def test_all_and_ten_thresholds_agree_on_shared_thresholds():
    # values 0, 0.5, 1.5, ..., 10.5, 11: the midpoints include 1, 2, ..., 10, which are
    # exactly the ten equally spaced thresholds of [0, 11]
    rng = np.random.default_rng(12)
    levels = np.concatenate([[0.0], np.arange(11) + 0.5, [11.0]])
    X = np.column_stack([rng.permutation(np.resize(levels, 130)) for _ in range(3)])
    X[:, 2] = X[:, 2] * 3.0 - 7.0             # an affine copy: shared thresholds map along
    p_all = StumpPool(n_thresholds="all").fit(X)
    p_ten = StumpPool(n_thresholds=10).fit(X)
    v = rng.normal(size=X.shape[0])
    g_all = p_all.operator(X).rmatvec(v)
    g_ten = p_ten.operator(X).rmatvec(v)
    shared = 0
    for k in range(p_ten.n_voters_):
        match = np.flatnonzero((p_all.feature_ == p_ten.feature_[k]) & (p_all.sign_ == p_ten.sign_[k])
                               & np.isclose(p_all.threshold_, p_ten.threshold_[k], rtol=0, atol=1e-9))
        assert match.size == 1, k
        assert abs(g_all[match[0]] - g_ten[k]) <= TOL
        shared += 1
    assert shared == p_ten.n_voters_ == 60
    assert p_all.n_voters_ == 2 * 3 * 12


@pytest.mark.parametrize("n", ["all", 10])
def test_stump_operator_never_builds_the_voter_matrix(n, monkeypatch):
    rng = np.random.default_rng(13)
    m, d = 400, 5
    X = rng.normal(size=(m, d))
    pool = StumpPool(n_thresholds=n).fit(X)
    nv = pool.n_voters_
    assert nv > 4 * d                          # so an n-column array cannot hide behind d
    v = rng.normal(size=m)

    tracemalloc.start()
    try:
        op = pool.operator(X)
        g = op.rmatvec(v)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    dense_bytes = 8 * m * nv
    if n == "all":                             # about 32 MB if H were built: we stay far below
        assert peak < dense_bytes / 20, (peak, dense_bytes)
    assert _dense_like(op, m, nv) == [], _dense_like(op, m, nv)

    # rmatvec must not go through the column accessors either
    def boom(*args, **kwargs):
        raise AssertionError("rmatvec used the dense column path")
    for name in ("column", "columns", "toarray"):
        monkeypatch.setattr(op, name, boom)
    np.testing.assert_array_equal(op.rmatvec(v), g)
    assert _dense_like(op, m, nv) == []

    # and the result is right (checked on a few columns only, to keep the test cheap)
    ks = rng.choice(nv, size=20, replace=False)
    ref = stump_reference_columns(pool, X, ks)
    np.testing.assert_allclose(g[ks], ref.T @ v, rtol=0, atol=TOL)


def stump_reference_columns(pool, X, ks):
    return np.column_stack([pool.sign_[k] * np.where(X[:, pool.feature_[k]] > pool.threshold_[k], 1.0, -1.0)
                            for k in ks])
