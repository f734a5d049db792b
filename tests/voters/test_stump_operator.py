"""Checks of the binned stump engine (cbviz.voters.StumpOperator) and of CB-Boost's fused
selection, with the dense voter matrix as the oracle.

The dense reference ``H[i, k] = sign_k * (+1 if x_i[feature_k] > threshold_k else -1)`` is
built here from the raw inputs and the pool's fitted parameters, never through the bins.
Data: breast cancer, ionosphere and the digits pair 4 vs 9 (70 % training split), whose
features have many ties (digits: at most 17 values), for 10 equally spaced thresholds,
255 quantile bins and every midpoint.  Tolerances: a product entry within 1e-9 of the dense
one relative to ``sum |v|`` (``sum |a|`` for ``H a``), the bound of ``|(H^T v)_k|``; CB-Boost
picks identical, weights and C-bounds within 1e-9 relative.  Threads: results must be
bit-identical whatever the engine's thread count and whoever shares the operator.  Every
random draw has a fixed seed.
"""
from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import lone_and_threaded
from sklearn.datasets import make_classification

from cbviz.algorithms.base import first_argmax
from cbviz.algorithms.cbboost import CBBoost, _fused as fused, _scores as scores
from cbviz.algorithms.klboost import KLBoost, quasi_uniform
from cbviz.data import load_dataset, prepare
from cbviz.voters import (
    ENGINE_THREADS,
    StumpOperator,
    StumpPool,
    _threads as threads,
    engine_threads,
    use_engine_threads,
)

REL = 1e-9
DATASETS = {"cancer": ("breast_cancer", {}), "ionosphere": ("ionosphere", {}),
            "digits": ("digits", {"pair": (4, 9)})}
POOLS = {"10": dict(n_thresholds=10), "255": dict(n_thresholds=255, binning="quantile"),
         "all": dict(n_thresholds="all")}
CASES = [(d, p) for d in DATASETS for p in POOLS]


def dense(pool, X):
    """The voter matrix from the stump definition on the raw inputs."""
    return np.where(X[:, pool.feature_] > pool.threshold_, 1.0, -1.0) * pool.sign_


@pytest.fixture(scope="module")
def split():
    cache = {}

    def get(name):
        if name not in cache:
            data, kw = DATASETS[name]
            s = prepare(load_dataset(data, **kw), train_ratio=0.7, seed=0)
            cache[name] = (s.X_train, s.y_train.astype(float), s.X_test)
        return cache[name]
    return get


@pytest.fixture(scope="module")
def problem(split):
    cache = {}

    def get(name, pool_name):
        if (name, pool_name) not in cache:
            X, y, X_test = split(name)
            pool = StumpPool(**POOLS[pool_name]).fit(X)
            cache[name, pool_name] = (pool, X, y, X_test)
        return cache[name, pool_name]
    return get


def assert_product(got, ref, scale):
    assert got.shape == ref.shape
    assert np.max(np.abs(got - ref)) <= REL * scale


# --------------------------------------------------------------------------- products

@pytest.mark.parametrize("name,pool_name", CASES)
def test_products_match_the_dense_matrix(problem, name, pool_name):
    pool, X, y, X_test = problem(name, pool_name)
    rng = np.random.default_rng(1)
    # unseen rows, plus rows sitting exactly on thresholds (ties with the thresholds)
    on = X_test[:40].copy()
    k = rng.choice(pool.n_base_, size=40)
    on[np.arange(40), pool.feature_[k]] = pool.threshold_[k]
    for inputs in (X, np.vstack([X_test, on])):
        op, H = pool.operator(inputs), dense(pool, inputs)
        assert isinstance(op, StumpOperator) and op.canonical
        m, n = H.shape
        for v in (rng.standard_normal(m), y if inputs is X else np.ones(m),
                  rng.integers(-3, 4, size=m).astype(float)):   # integer sums: exact ties
            assert_product(op.rmatvec(v), H.T @ v, np.abs(v).sum())
        dense_a = rng.exponential(size=n)
        sparse_a = np.where(rng.random(n) < 5.0 / n, dense_a, 0.0)
        for a in (dense_a, sparse_a, np.zeros(n)):
            assert_product(op.matvec(a), H @ a, max(np.abs(a).sum(), 1.0))
        cols = rng.choice(n, size=12, replace=False)
        np.testing.assert_array_equal(op.columns(cols), H[:, cols])
        np.testing.assert_array_equal(op.column(cols[0]), H[:, cols[0]])


@pytest.mark.parametrize("pool_name", list(POOLS))
def test_bin_cumsums_are_the_sums_below_every_threshold(problem, pool_name):
    pool, X, _, _ = problem("cancer", pool_name)
    op = pool.operator(X)
    v = np.random.default_rng(2).standard_normal(X.shape[0])
    cum = op.bin_cumsums(v)
    last = op.bin_offsets[1:] - 1                   # each feature's last bin: every example
    np.testing.assert_allclose(cum[last], v.sum(), rtol=0, atol=REL * np.abs(v).sum())
    # in the pool layout the other entries are the direct stumps' sums, in column order
    below = cum[np.delete(np.arange(cum.size), last)]
    nb = pool.n_base_
    ref = (X[:, pool.feature_[:nb]] <= pool.threshold_[:nb]).T.astype(float) @ v
    assert_product(below, ref, np.abs(v).sum())
    buffer = np.full(cum.size, np.nan)
    assert op.bin_cumsums(v, out=buffer) is buffer
    np.testing.assert_array_equal(buffer, cum)
    with pytest.raises(ValueError, match="out has shape"):
        op.bin_cumsums(v, out=np.empty(cum.size + 1))
    with pytest.raises(ValueError, match="v has shape"):
        op.bin_cumsums(v[:-1])


def test_views_and_other_layouts_keep_exact_products(problem):
    pool, X, _, _ = problem("ionosphere", "10")
    H = dense(pool, X)
    v = np.random.default_rng(3).standard_normal(X.shape[0])
    idx = np.array([5, 400, 3, 3, 17])               # repeated and unsorted columns
    view = pool.operator(X).restrict(idx)
    assert not view.canonical
    assert_product(view.rmatvec(v), H[:, idx].T @ v, np.abs(v).sum())
    # a hand-made stump set: unsorted, a repeated threshold, one threshold on a data value
    f = np.array([3, 0, 3, 3])
    t = np.array([0.5, X[0, 0], 0.5, -0.25])
    op = StumpOperator(X, f, t, np.array([1.0, -1.0, -1.0, 1.0]), np.arange(4))
    ref = np.where(X[:, f] > t, 1.0, -1.0) * [1.0, -1.0, -1.0, 1.0]
    assert not op.canonical
    assert_product(op.rmatvec(v), ref.T @ v, np.abs(v).sum())
    np.testing.assert_array_equal(op.toarray(), ref)
    no_complements = StumpPool(10, complements=False).fit(X).operator(X)
    assert no_complements.canonical and not no_complements.is_self_complemented()
    empty = pool.operator(X).restrict([])
    assert empty.rmatvec(v).shape == (0,)
    np.testing.assert_array_equal(empty.matvec(np.zeros(0)), np.zeros(X.shape[0]))


def test_one_byte_per_example_and_feature_up_to_255_thresholds(problem):
    for pool_name in ("10", "255"):
        pool, X, _, _ = problem("cancer", pool_name)
        op = pool.operator(X)
        m, d = X.shape
        # the codes (m d bytes) plus a position per threshold and per feature
        assert op.nbytes <= m * d + 8 * pool.n_base_ + 16 * (d + 1)
    pool, X, _, _ = problem("cancer", "all")      # up to 396 thresholds: two bytes
    assert pool.operator(X).nbytes <= 2 * X.size + 8 * pool.n_base_ + 16 * (X.shape[1] + 1)


# --------------------------------------------------------------------------- threads

@pytest.fixture(scope="module")
def big():
    """Large enough for a pass to be split over 4 threads."""
    X, y01 = make_classification(n_samples=8000, n_features=300, n_informative=20,
                                 random_state=4)
    assert X.size >= 4 * threads._MIN_SPLIT_WORK
    pool = StumpPool(10).fit(X)
    return pool, X, np.where(y01 == 1, 1.0, -1.0)


def test_thread_count_does_not_change_any_bit(big):
    pool, X, y = big
    op = pool.operator(X)
    rng = np.random.default_rng(5)
    v, a = rng.standard_normal(X.shape[0]), rng.exponential(size=pool.n_voters_)
    results = {}
    for threads in (1, 2, 4):
        with use_engine_threads(threads):
            assert engine_threads() == threads
            run = CBBoost(max_iter=8).start(op, y).run()
            results[threads] = (op.rmatvec(v), op.matvec(a), op.bin_cumsums(v),
                                [(r.index, r.alpha) for r in run.history])
    assert engine_threads() == ENGINE_THREADS
    for threads in (2, 4):
        for got, ref in zip(results[threads][:3], results[1][:3]):
            np.testing.assert_array_equal(got, ref)
        assert results[threads][3] == results[1][3]
    cols = rng.choice(pool.n_voters_, size=50, replace=False)
    H = dense(pool, X)[:, cols]
    assert_product(results[4][0][cols], H.T @ v, np.abs(v).sum())


def test_engine_threads_are_set_per_calling_thread():
    seen = []
    with use_engine_threads(3):
        t = threading.Thread(target=lambda: seen.append(engine_threads()))
        t.start()
        t.join()
        assert engine_threads() == 3
    assert seen == [ENGINE_THREADS]
    for bad in (0, 5, 2.0, True, "2"):
        with pytest.raises(ValueError, match="engine threads"):
            with use_engine_threads(bad):
                pass


def test_threads_sharing_a_split_operator_get_exact_products(big):
    pool, X, _ = big
    op = pool.operator(X)
    rng = np.random.default_rng(6)
    vs = rng.standard_normal((6, 3, X.shape[0]))
    a_s = rng.exponential(size=(6, pool.n_voters_))

    def work(i):
        with use_engine_threads(1 + i % 4):      # every caller also splits its own passes
            return [op.rmatvec(v) for v in vs[i]] + [op.matvec(a_s[i]), op.bin_cumsums(vs[i, 0])]

    expected, results, errors = lone_and_threaded(work)
    assert errors == []
    for got, ref in zip(results, expected):
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("pool_name", list(POOLS))
def test_threads_running_fused_cbboost_on_one_operator_match_a_lone_run(problem, pool_name):
    pool, X, y, _ = problem("cancer", pool_name)
    op = pool.operator(X)

    def work(i):
        run = CBBoost(max_iter=15, direction=("exhaustive", "gradient")[i % 2]).start(op, y).run()
        return [(r.index, r.alpha, r.c_bound) for r in run.history]

    expected, results, errors = lone_and_threaded(work)
    assert errors == []
    assert results == expected


# --------------------------------------------------------------------------- CB-Boost picks

class _Counting:
    """Counts ``rmatvec`` calls of an operator (the generic path scores with one per step)."""

    def __init__(self, op, monkeypatch):
        self.calls = 0
        inner = op.rmatvec

        def counted(v):
            self.calls += 1
            return inner(v)
        monkeypatch.setattr(op, "rmatvec", counted)


@pytest.mark.parametrize("name,pool_name", CASES)
def test_fused_cbboost_takes_the_dense_paths_30_picks(problem, monkeypatch, name, pool_name):
    pool, X, y, _ = problem(name, pool_name)
    op = pool.operator(X)
    count = _Counting(op, monkeypatch)
    fused = CBBoost(max_iter=30).start(op, y).run()
    assert count.calls == 1                     # H^T y at the start; no H^T F afterwards
    ref = CBBoost(max_iter=30).start(dense(pool, X), y).run()
    assert len(fused.history) == len(ref.history) == 30
    assert [r.index for r in fused.history] == [r.index for r in ref.history]
    np.testing.assert_allclose([r.alpha for r in fused.history],
                               [r.alpha for r in ref.history], rtol=REL, atol=0)
    np.testing.assert_allclose([r.c_bound for r in fused.history],
                               [r.c_bound for r in ref.history], rtol=REL, atol=0)
    np.testing.assert_allclose([r.predicted_decrease for r in fused.history[1:]],
                               [r.predicted_decrease for r in ref.history[1:]], rtol=1e-7, atol=0)


@pytest.mark.parametrize("name,pool_name,kw", [
    ("ionosphere", "255", dict(direction="gradient")),
    ("digits", "all", dict(eligible="all")),
    ("cancer", "10", dict(reuse_voters=True)),
    ("digits", "10", dict(eligible="all", reuse_voters=True, direction="gradient")),
])
def test_fused_cbboost_follows_every_rule_like_the_dense_path(problem, name, pool_name, kw):
    pool, X, y, _ = problem(name, pool_name)
    fused = CBBoost(max_iter=30, **kw).start(pool.operator(X), y).run()
    ref = CBBoost(max_iter=30, **kw).start(dense(pool, X), y).run()
    assert [r.index for r in fused.history] == [r.index for r in ref.history]
    assert [r.extra["reused"] for r in fused.history] == [r.extra["reused"] for r in ref.history]
    np.testing.assert_allclose([r.c_bound for r in fused.history],
                               [r.c_bound for r in ref.history], rtol=REL, atol=0)
    assert fused.stop_reason == ref.stop_reason


@pytest.mark.parametrize("name,pool_name", [("digits", "255"), ("ionosphere", "all")])
def test_fused_steps_equal_the_scored_candidates_bit_for_bit(problem, name, pool_name):
    """Each fused step is the pick of the run's own candidates (the generic scoring of every
    voter from one H^T F), with the same weight and decrease to the last bit."""
    pool, X, y, _ = problem(name, pool_name)
    op = pool.operator(X)
    for direction in ("exhaustive", "gradient"):
        run = CBBoost(max_iter=20, direction=direction).start(op, y)
        run.step()
        while not run.done:
            c = run.candidates()
            k = c.exhaustive_pick if direction == "exhaustive" else c.gradient_pick
            rec = run.step()
            assert (rec.index, rec.alpha, rec.predicted_decrease) == (k, c.alpha[k], c.decrease[k])


@pytest.mark.parametrize("name,pool_name", CASES)
def test_label_sums_give_the_margins_of_rmatvec_bit_for_bit(problem, name, pool_name):
    """The fused step reads gamma(h) as integers: (sum(y) - 2 below) / m is the float
    H^T y / m gives, to the last bit."""
    pool, X, y, _ = problem(name, pool_name)
    op = pool.operator(X)
    below, tot = fused.label_sums_below(op, y)
    assert below.dtype == np.int32 and below.size == op.n_base
    gamma = (tot - 2.0 * below) / y.size
    assert np.array_equal(gamma, (op.rmatvec(y) / y.size)[:op.n_base])


def test_fused_ties_use_the_window_of_the_dense_pick():
    assert scores.TIE_RTOL == first_argmax.__defaults__[0]


def test_fused_run_stops_like_the_dense_path():
    """A pool whose every voter is in the vote after a few steps: same stop, same reason."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 3, size=(60, 2)).astype(float)
    y = np.where(X[:, 0] + rng.normal(0, 0.7, 60) > 1, 1.0, -1.0)
    pool = StumpPool(1).fit(X)
    fused = CBBoost(max_iter=50).start(pool.operator(X), y).run()
    ref = CBBoost(max_iter=50).start(dense(pool, X), y).run()
    assert len(fused.history) == len(ref.history) < 50
    assert fused.stop_reason == ref.stop_reason


# --------------------------------------------------------------------------- KLBoost

def test_klboost_votes_come_from_one_pass_not_the_dense_matrix(problem, monkeypatch):
    pool, X, y, X_test = problem("cancer", "10")
    op, op_test = pool.operator(X), pool.operator(X_test)
    for o in (op, op_test):
        monkeypatch.setattr(o, "columns", lambda idx: pytest.fail("H a built columns"))
        monkeypatch.setattr(o, "toarray", lambda: pytest.fail("H a built the matrix"))
    y_test = np.where(np.arange(X_test.shape[0]) % 2, 1.0, -1.0)
    run = KLBoost(max_iter=2).start(op, y, op_test, y_test)
    H, H_test = dense(pool, X), dense(pool, X_test)
    n = pool.n_base_
    assert_product(run.F, H @ quasi_uniform(np.zeros(n)), 1.0)      # Q sums to 1
    run.step()
    Q = quasi_uniform(run.signed_weights)
    assert_product(run.F, H @ Q, 1.0)
    assert_product(run.F_test, H_test @ Q, 1.0)


# --------------------------------------------------------------------------- quantile pools

def test_quantile_thresholds_are_midpoints_at_the_quantiles(split):
    X, _, _ = split("cancer")
    N = 20
    pool = StumpPool(N, binning="quantile").fit(X)
    m = X.shape[0]
    for j in range(X.shape[1]):
        t = pool.threshold_[:pool.n_base_][pool.feature_[:pool.n_base_] == j]
        u = np.unique(X[:, j])
        mids = (u[:-1] + u[1:]) / 2
        assert 1 <= t.size <= N and np.all(np.diff(t) > 0)
        assert np.all(np.isin(t, mids))
        # each threshold's rank (examples at or below) is the one of all midpoints nearest
        # to its quantile m q / (N + 1)
        ranks = (X[:, j][:, None] <= mids).sum(axis=0)
        chosen = (X[:, j][:, None] <= t).sum(axis=0)
        targets = m * np.arange(1, N + 1) / (N + 1)
        nearest = np.abs(ranks[:, None] - targets).min(axis=0)
        assert set(chosen) == {ranks[np.argmin(np.abs(ranks - q))] for q in targets}
        assert np.all(nearest <= np.abs(chosen[:, None] - targets).min(axis=0) + 1e-12)


def test_quantile_pool_is_exact_on_features_with_few_values(split):
    X, _, _ = split("digits")                     # pixels: at most 17 distinct values
    exact = StumpPool("all").fit(X)
    for n in (16, 255):
        q = StumpPool(n, binning="quantile").fit(X)
        np.testing.assert_array_equal(q.feature_, exact.feature_)
        np.testing.assert_array_equal(q.threshold_, exact.threshold_)
    # "all" ignores the binning; uniform pools are unchanged by it
    np.testing.assert_array_equal(StumpPool("all", binning="quantile").fit(X).threshold_,
                                  exact.threshold_)


def test_bad_binning_raises(split):
    X, _, _ = split("digits")
    for bad in ("Quantile", None, "equal"):
        with pytest.raises(ValueError, match="binning"):
            StumpPool(10, binning=bad).fit(X)


# --------------------------------------------------------------------------- compiled kernels

def test_kernels_are_compiled_at_import_and_cached():
    """A fresh interpreter has every kernel compiled (or loaded from the disk cache) by the
    imports alone, so the app's first step pays no compilation."""
    code = (
        "import numba.core.caching as c\n"
        "from cbviz.voters import _kernels as v\n"
        "from cbviz.algorithms.cbboost import _fused as b\n"
        "ks = [v.histogram_cumsums, v.gather_add, v.expand_cumsums, v.segment_cumsums,"
        " b._pass_bests, b._window_pick]\n"
        "print([len(k.signatures) for k in ks], all(not isinstance(k._cache, c.NullCache)"
        " for k in ks))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300).stdout.split()
    assert out == ["[3,", "3,", "1,", "1,", "3,", "3]", "True"]
