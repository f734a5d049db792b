"""Boosting with trees fitted each round (:class:`cbviz.voters.TreePool`): AdaBoost and
VEB-Boost on the trees of their own example weights, GB-CB-Boost on the trees of the
C-bound's gradient.

Tolerances: 1e-12 for a value recomputed along another summation order; 1e-6 relative for
the weight scipy's bounded scalar minimizer finds (the C-bound is flat to second order at its
minimum, so a minimizer of values locates it to about sqrt(eps); largest gap seen 1.8e-7),
and the closed form's C-bound at most 1e-12 above the minimizer's."""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from cbviz import data
from cbviz.algorithms import AdaBoost, CBBoost, CqBoost, KLBoost, MinCq, QuadBoost, VEBBoost
from cbviz.algorithms.base import ParameterError
from cbviz.voters import StumpPool, TreePool


def _moons():
    ds = data.make_toy("moons", 300, 0.3, 0)
    return ds.X, ds.y


def _sonar():
    ds = data.load_dataset("sonar")
    return ds.X, ds.y


@pytest.mark.parametrize("load", [_moons, _sonar], ids=["moons", "sonar"])
def test_adaboost_on_depth_1_trees_is_adaboost_on_every_midpoint(load):
    X, y = load()
    stumps = StumpPool("all").fit(X)
    trees = TreePool(1).fit(X)
    on_pool = AdaBoost(max_iter=25).start(stumps.operator(X), y, describe=stumps.describe).run()
    on_trees = AdaBoost(max_iter=25).start(trees.operator(X), y, describe=trees.describe).run()
    assert [r.label for r in on_trees.history] == [r.label for r in on_pool.history]
    for a, b in zip(on_trees.history, on_pool.history):
        assert a.alpha == pytest.approx(b.alpha, rel=1e-12)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
        assert a.train_error == b.train_error and a.c_bound == pytest.approx(b.c_bound, abs=1e-12)
    assert len(on_trees.history) == 25


@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_vebboost_cost_never_rises_with_trees(depth, lam):
    X, y = _moons()
    pool = TreePool(depth).fit(X)
    run = VEBBoost(lam=lam, max_iter=40).start(pool.operator(X), y).run()
    cost = [r.objective for r in run.history]
    assert len(cost) >= 5
    assert np.all(np.diff(cost) <= 1e-12 * np.abs(cost[:-1])), cost
    # each round's tree is fitted to that round's selection weights
    for t, rec in enumerate(run.history[:5]):
        u = run.example_weights(t)
        h = run.H.pool.trees_[rec.index].predict(X)
        assert rec.extra["weighted_error"] == pytest.approx(float(u @ (h != y)), abs=1e-12)


@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("eligible", ["theorem3", "all"])
def test_gb_cbboost_on_trees_lowers_the_c_bound_with_theorem_3s_weight(depth, eligible):
    X, y = _moons()
    pool = TreePool(depth).fit(X)
    run = CBBoost(max_iter=30, direction="gradient", eligible=eligible).start(
        pool.operator(X), y).run()
    c = np.array([r.c_bound for r in run.history])
    assert np.all(np.diff(c) <= 1e-12), c
    assert len(c) >= (3 if eligible == "theorem3" else 30)
    m = y.size
    for t in range(1, len(run.history)):
        rec = run.history[t]
        F = run.H.matvec(run.weights_at(t))
        h = run.H.column(rec.index)

        def c_bound(alpha):
            M = y * (F + alpha * h)
            return 1 - M.mean() ** 2 / (M ** 2).mean()
        # the minimizer while the vote's first moment stays positive: past the weight where
        # it reaches 0 (gamma(h) < 0), C climbs to 1, then falls toward C(-h)'s side
        top = 50 * rec.alpha
        gamma_h = (y @ h) / m
        if gamma_h < 0:
            top = min(top, -((y @ F) / m) / gamma_h)
        best = minimize_scalar(c_bound, bounds=(0, top), method="bounded",
                               options={"xatol": 1e-10})
        assert rec.alpha == pytest.approx(best.x, rel=1e-6)
        assert rec.c_bound == pytest.approx(c_bound(rec.alpha), abs=1e-12)
        assert rec.c_bound <= best.fun + 1e-12
        # the tree is fitted to the gradient's direction: its labels sign(g), weights |g|
        G = F / np.abs(F).max()
        gamma, nu = (y @ G) / m, (G @ G) / m
        g = nu * y - gamma * G
        assert h @ g >= 0


def test_theorem_3s_rule_on_trees_stops_with_what_all_would_do():
    X, y = _moons()
    pool = TreePool(1).fit(X)
    run = CBBoost(max_iter=100, direction="gradient").start(pool.operator(X), y).run()
    assert "outside Theorem 3's rule; with eligible='all' it would lower the C-bound by" \
        in run.stop_reason
    assert not run.capped


def test_bounds_that_assume_a_prior_are_not_applicable_to_fitted_trees():
    X, y = _moons()
    pool = TreePool(2).fit(X)
    with pytest.raises(ParameterError, match="inputs it was fitted on"):
        AdaBoost(max_iter=5).start(pool.operator(X[:200]), y[:200])
    pool = TreePool(2).fit(X[:200])
    run = AdaBoost(max_iter=5).start(pool.operator(X[:200]), y[:200],
                                     H_test=pool.operator(X[200:]), y_test=y[200:]).run()
    last = run.history[-1]
    for name in ("kl", "pac_bound", "first_order_bound", "pac_bound_1", "tandem_bound"):
        assert np.isnan(getattr(last, name))
    assert 0 <= last.c_bound <= 1 and 0 <= last.gibbs_risk <= 0.5
    own = run.H.pool
    F_test = own.transform(X[200:]) @ run.weights[:len(own.trees_)]
    assert last.test_error == pytest.approx(np.mean(np.sign(F_test) != y[200:]))


def test_each_run_fits_a_pool_of_its_own():
    """The pool given (e.g. one problem's, shared by a class's sessions) stays empty; two runs
    of the same configuration fit the same trees; the test operator sees the run's trees."""
    X, y = _moons()
    pool = TreePool(3).fit(X[:200])
    runs = [VEBBoost(max_iter=8).start(pool.operator(X[:200]), y[:200],
                                       H_test=pool.operator(X[200:]), y_test=y[200:]).run()
            for _ in range(2)]
    assert pool.trees_ == [] and runs[0].H.pool is not runs[1].H.pool
    assert [r.label for r in runs[0].history] == [r.label for r in runs[1].history]
    assert runs[0].H_test.pool is runs[0].H.pool
    with pytest.raises(ParameterError, match="same tree pool"):
        AdaBoost().start(pool.operator(X[:200]), y[:200],
                         H_test=TreePool(3).fit(X[:200]).operator(X[200:]), y_test=y[200:])


def test_a_full_tree_pool_stops_the_run_as_a_cap():
    X, y = _moons()
    pool = TreePool(3, max_trees=4).fit(X)
    run = AdaBoost(max_iter=10).start(pool.operator(X), y).run()
    assert len(run.history) == 4 and run.capped
    assert run.stop_reason.startswith("the tree pool is full: max_trees=4")


@pytest.mark.parametrize("factory", [MinCq(), CqBoost(), QuadBoost(), KLBoost(),
                                     CBBoost(direction="exhaustive"),
                                     CBBoost(direction="gradient", keep_candidates=True)],
                         ids=["mincq", "cqboost", "quadboost", "klboost", "exhaustive", "scores"])
def test_algorithms_that_need_a_finite_pool_refuse_trees(factory):
    X, y = _moons()
    pool = TreePool(2).fit(X)
    with pytest.raises(ParameterError, match="finite pool"):
        factory.start(pool.operator(X), y)
