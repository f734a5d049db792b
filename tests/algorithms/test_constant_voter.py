"""The constant voter (``constant=True`` on every pool) through every algorithm: each record's
margins, moments, C-bound, risks, KL and PAC-Bayes bounds recomputed from their definitions
on the dense voter matrix, and the constant chosen where it is the best voter.

Tolerance: 1e-10 absolute for a quantity summed again in another order (largest seen 2e-15).
"""
from __future__ import annotations

import numpy as np
import pytest

from cbviz import bounds, data
from cbviz.algorithms.registry import ALGORITHMS, make_algorithm
from cbviz.voters import HyperplanePool, RBFPool, StumpPool

TOL = 1e-10


def _moons():
    ds = data.make_toy("moons", 160, 0.3, 3)
    return ds.X, ds.y


def _bias_only(seed=0):
    """Labels +1 on 80 % of the examples, whatever the inputs (uniform on the square): the
    constant +1 is the best single voter; each stump of a 3-threshold pool cuts off at least
    a quarter of the square, so its error is above the constant's on these draws."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (150, 2))
    y = np.where(rng.random(150) < 0.8, 1, -1)
    return X, y


def _check_record(rec, H, y, H_test, y_test, delta):
    n = H.shape[1]
    q = np.zeros(n)
    q[rec.support] = rec.weights
    q /= q.sum()
    M = y * (H @ q)                                   # margins of the normalized vote
    mu1, mu2 = M.mean(), (M ** 2).mean()
    r, d, e = (1 - mu1) / 2, (1 - mu2) / 2, (1 - 2 * mu1 + mu2) / 4
    nz = q[q > 0]
    kl = np.log(n) + np.sum(nz * np.log(nz))          # KL(Q || uniform prior over the pool)
    m = y.size
    expected = {
        "mu1": mu1, "mu2": mu2, "c_bound": 1 - mu1 ** 2 / mu2, "gibbs_risk": r,
        "disagreement": d, "joint_error": e, "kl": kl,
        "train_error": np.mean(np.sign(H @ q) != y),
        "test_error": np.mean(np.sign(H_test @ q) != y_test),
        "first_order_bound": bounds.first_order_bound(r, kl, m, delta),
        "pac_bound_1": bounds.pac_bound_1(r, d, kl, m, delta),
        "pac_bound": bounds.cqboost_c_bound(mu1, mu2, kl, m, delta),
        "tandem_bound": bounds.tandem_bound(e, kl, m, delta),
    }
    for name, value in expected.items():
        assert getattr(rec, name) == pytest.approx(value, abs=TOL), (rec.iteration, name)


@pytest.mark.parametrize("key", sorted(ALGORITHMS))
@pytest.mark.parametrize("pool", [StumpPool(5, constant=True), HyperplanePool(20, constant=True),
                                  RBFPool(20, constant=True)], ids=["stumps", "hyperplanes", "rbf"])
def test_records_with_the_constant_voter_follow_the_definitions(key, pool):
    X, y = _moons()
    Xtr, Xte, ytr, yte = X[:100], X[100:], y[:100], y[100:]
    pool = pool.fit(Xtr, ytr)
    H, H_test = pool.transform(Xtr), pool.transform(Xte)
    assert np.all(H[:, 0] == 1) and np.all(H_test[:, 0] == 1)
    assert np.all(H[:, pool.n_base_] == -1)
    run = make_algorithm(key, max_iter=15, delta=0.05).start(
        pool.operator(Xtr), ytr, describe=pool.describe, H_test=pool.operator(Xte), y_test=yte)
    run.run()
    assert run.history
    for rec in run.history:
        _check_record(rec, H, ytr, H_test, yte, 0.05)


@pytest.mark.parametrize("key", ["cbboost", "adaboost", "vebboost", "quadboost", "cqboost"])
def test_the_constant_is_the_first_pick_when_it_is_the_best_voter(key):
    X, y = _bias_only()
    pool = StumpPool(3, constant=True).fit(X)
    H = pool.transform(X)
    errors = np.mean(H != y[:, None], axis=0)
    assert np.argmin(errors) == 0 and errors[0] == pytest.approx(np.mean(y != 1))
    run = make_algorithm(key, max_iter=3).start(pool.operator(X), y, describe=pool.describe)
    first = run.step()
    assert first.index == 0 and first.label == "constant +1"
    without = make_algorithm(key, max_iter=3).start(StumpPool(3).fit(X).operator(X), y).step()
    assert first.c_bound <= without.c_bound + TOL   # the bias does at least as well


@pytest.mark.parametrize("make", [lambda: StumpPool(3), lambda: StumpPool("all"),
                                  lambda: StumpPool(4, binning="quantile"),
                                  lambda: StumpPool(3, complements=False),
                                  lambda: HyperplanePool(5), lambda: RBFPool(5)])
def test_the_option_adds_exactly_the_constant_voters(make):
    X, y = _moons()
    plain, with_constant = make().fit(X, y), make().set_params(constant=True).fit(X, y)
    H0, H1 = plain.transform(X), with_constant.transform(X)
    nb = plain.n_base_
    assert with_constant.n_base_ == nb + 1
    assert np.array_equal(H1[:, 1:nb + 1], H0[:, :nb])      # the others unchanged, after it
    assert with_constant.describe(0) == "constant +1"
    if plain.complements:
        assert np.array_equal(H1[:, nb + 2:], H0[:, nb:])
        assert with_constant.describe(nb + 1) == "constant -1"
        assert with_constant.operator(X).is_self_complemented()
    op = with_constant.operator(X)
    assert getattr(op, "canonical", True)                   # the fused CB-Boost kernels apply
    v = np.random.default_rng(1).standard_normal(X.shape[0])
    a = np.random.default_rng(2).random(op.shape[1])
    np.testing.assert_allclose(op.rmatvec(v), H1.T @ v, atol=1e-12)
    np.testing.assert_allclose(op.matvec(a), H1 @ a, atol=1e-12)


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_constant_must_be_a_bool(bad):
    X, y = _moons()
    for pool in (StumpPool(constant=bad), HyperplanePool(constant=bad), RBFPool(constant=bad)):
        with pytest.raises(ValueError, match="constant must be True or False"):
            pool.fit(X, y)


def test_the_estimators_carry_the_option():
    """A researcher's path: the pool's option as a nested parameter (grid search, clone,
    pickle), and the fitted vote uses the constant voter."""
    import pickle

    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    from cbviz.estimators import AdaBoostClassifier
    X, y = _bias_only()
    est = AdaBoostClassifier(pool=StumpPool(3), max_iter=5)
    assert est.get_params()["pool__constant"] is False
    search = GridSearchCV(est, {"pool__constant": [False, True]}, cv=3).fit(X, y)
    fitted = clone(est).set_params(pool__constant=True).fit(X, y)
    assert fitted.pool_.constant and fitted.history_[0].label == "constant +1"
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))
    assert search.cv_results_["param_pool__constant"].tolist() == [False, True]


def test_settings_and_links_carry_the_option():
    from cbviz.problem import Settings, build_problem
    settings, ignored = Settings.from_link({"constant_voter": "true", "pool": "hyperplanes",
                                            "n_pool": "10"})
    assert not ignored and settings.constant_voter
    problem = build_problem(settings)
    assert problem.n_voters == 22 and problem.pool.describe(0) == "constant +1"
    assert np.all(problem.H_test.column(0) == 1)
    _, ignored = Settings.from_link({"constant_voter": "maybe"})
    assert ignored and "constant_voter" in ignored[0]
    assert Settings.from_dict(Settings(constant_voter=True).to_dict()).constant_voter
