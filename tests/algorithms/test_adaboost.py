"""Checks of discrete AdaBoost over a voter pool (cbviz.algorithms.adaboost).

Reference numbers come from the definitions, never from the module's helpers:

* the example weights are ``D_i = exp(-y_i F_i) / sum_j exp(-y_j F_j)`` of the vote rebuilt
  from the records' ``(index, alpha)`` pairs; the weighted error of voter k is
  ``sum_i D_i [h_k(x_i) != y_i]`` (+-1 voters) or ``(1 - sum_i D_i y_i h_k(x_i)) / 2``;
* the tiny case's weights, errors, alphas and losses are worked out by hand (fractions
  written in the test);
* the best weight along the picked voter is also found with ``scipy.optimize.minimize_scalar``
  on ``mean(exp(-y (F + alpha h)))``;
* scikit-learn's ``AdaBoostClassifier`` (discrete SAMME) run with a weak learner that returns
  the pool voter of least weighted error is an independent implementation of the same
  updates.

Tolerances: 1e-12 absolute for hand fractions and numbers computed two ways in closed form,
1e-10 relative for losses accumulated over many steps, 1e-6 absolute for an argmin found by
a numerical optimizer (the minimum value itself is compared to 1e-13).  Seeds are fixed.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from helpers import replay
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from cbviz.algorithms.adaboost import AdaBoost
from cbviz.algorithms.base import ParameterError
from cbviz.voters import RBFPool, StumpPool

TOL = 1e-12


# --------------------------------------------------------------------------- helpers


def d_weights(F, y):
    L = np.exp(-y * F)
    return L / L.sum()


@pytest.fixture(scope="module")
def cancer():
    X, t = load_breast_cancer(return_X_y=True)
    pool = StumpPool(n_thresholds=10).fit(X)
    return dict(op=pool.operator(X), H=pool.transform(X), y=np.where(t > 0, 1.0, -1.0),
                describe=pool.describe)


@pytest.fixture(scope="module")
def moons_rbf():
    X, t = make_moons(200, noise=0.3, random_state=3)
    y = np.where(t > 0, 1.0, -1.0)
    H = RBFPool(n_centers=40, random_state=1).fit(X, y).transform(X)
    return dict(op=H, H=H, y=y)


# --------------------------------------------------------------------------- hand-checked case

# Six examples C, A, B, D, E, F (in this order) and three binary features; stump k is
# "x_k > 0.5" (votes +1 where x_k = 1).  Stump 0 is wrong on C only, stump 1 on A and B,
# stump 2 on D, E and F.
Y_TINY = np.array([1.0, 1.0, -1.0, 1.0, -1.0, -1.0])
H_TINY = np.array([[-1, 1, 1], [1, -1, 1], [-1, 1, -1],
                   [1, 1, -1], [-1, -1, 1], [-1, -1, 1]], dtype=float)
X_TINY = (H_TINY > 0).astype(float)

# By hand.  Step 1: D = 1/6 each; errors 1/6, 2/6, 3/6 -> stump 0, eps = 1/6,
# alpha = 1/2 ln 5.  The wrong example then carries 1/2, the right ones 1/2 in total:
# D2 = (1/2, 1/10 x 5).  Step 2: errors 1/2, 2/10, 3/10 -> stump 1, alpha = 1/2 ln 4.
# D3 = (5/16, 1/4, 1/4, 1/16 x 3).  Step 3: errors 5/16, 1/2, 3/16 -> stump 2,
# alpha = 1/2 ln(13/3).  D4 = (5/26, 2/13, 2/13, 1/6 x 3).  Step 4: errors 5/26, 4/13, 1/2
# -> stump 0 again, alpha = 1/2 ln(21/5).  Loss after t steps: prod of Z = 2 sqrt(eps(1-eps)).
# Votes: after step 3 every example is right; after step 4, on C: -(1/2) ln 21 + (1/2) ln(52/3)
# < 0, so C is wrong again (training error 1/6) while the loss still decreases.
TINY_PICKS = [0, 1, 2, 0]
TINY_ERRORS = [1 / 6, 1 / 5, 3 / 16, 5 / 26]
TINY_ALPHAS = [0.5 * math.log(5), 0.5 * math.log(4), 0.5 * math.log(13 / 3),
               0.5 * math.log(21 / 5)]
TINY_D = [np.full(6, 1 / 6), np.array([1 / 2] + [1 / 10] * 5),
          np.array([5 / 16, 1 / 4, 1 / 4, 1 / 16, 1 / 16, 1 / 16]),
          np.array([5 / 26, 2 / 13, 2 / 13, 1 / 6, 1 / 6, 1 / 6])]
TINY_Z = [math.sqrt(5) / 3, 4 / 5, math.sqrt(39) / 8, math.sqrt(105) / 13]
TINY_TRAIN_ERRORS = [1 / 6, 1 / 6, 0.0, 1 / 6]


@pytest.mark.parametrize("complements", [False, True])
def test_hand_checked_tiny_case(complements):
    pool = StumpPool(n_thresholds=1, complements=complements).fit(X_TINY)
    H = pool.transform(X_TINY)
    np.testing.assert_array_equal(H[:, :3], H_TINY)
    run = AdaBoost(max_iter=4).start(pool.operator(X_TINY), Y_TINY, describe=pool.describe)
    for t in range(4):
        np.testing.assert_allclose(run.example_weights(), TINY_D[t], rtol=0, atol=TOL)
        rec = run.step()
        assert rec.index == TINY_PICKS[t]
        assert rec.label == f"x{TINY_PICKS[t]} > 0.5"
        assert abs(rec.alpha - TINY_ALPHAS[t]) <= TOL
        assert abs(rec.extra["weighted_error"] - TINY_ERRORS[t]) <= TOL
        assert abs(rec.objective - np.prod(TINY_Z[:t + 1])) <= TOL
        assert abs(rec.train_error - TINY_TRAIN_ERRORS[t]) <= TOL
    assert run.stop_reason == "max_iter reached (4): the paper's rule, a fixed number of iterations T = 4" and not run.capped
    for t in range(4):            # the weights of earlier steps, replayed
        np.testing.assert_allclose(run.example_weights(t), TINY_D[t], rtol=0, atol=TOL)
    expected = np.zeros(H.shape[1])
    expected[:3] = [TINY_ALPHAS[0] + TINY_ALPHAS[3], TINY_ALPHAS[1], TINY_ALPHAS[2]]
    np.testing.assert_allclose(run.weights, expected, rtol=0, atol=TOL)


# --------------------------------------------------------------------------- the updates

def check_run(run, H, y):
    """Every step against the definitions; returns the list of losses."""
    n = H.shape[1]
    losses = [1.0]
    for t, rec in enumerate(run.history):
        F_prev = H @ replay(run.history, n, t)
        D = d_weights(F_prev, y)
        errors = (1.0 - (D * y) @ H) / 2.0
        eps = errors[rec.index]
        assert eps <= errors.min() + TOL                      # the least weighted error
        assert abs(rec.extra["weighted_error"] - eps) <= TOL
        assert 0.0 < eps < 0.5
        assert abs(rec.alpha - 0.5 * math.log((1.0 - eps) / eps)) <= 1e-10
        F = F_prev + rec.alpha * H[:, rec.index]
        loss = float(np.mean(np.exp(-y * F)))
        assert abs(rec.objective - loss) <= 1e-10 * loss
        losses.append(loss)
    assert np.all(run.weights >= 0)
    return losses


def test_stumps_loss_is_the_product_of_z_and_never_increases(cancer):
    H, y = cancer["H"], cancer["y"]
    run = AdaBoost(max_iter=60).start(cancer["op"], y).run()
    assert len(run.history) == 60
    losses = check_run(run, H, y)
    eps = np.array([r.extra["weighted_error"] for r in run.history])
    z = 2.0 * np.sqrt(eps * (1.0 - eps))
    np.testing.assert_allclose(losses[1:], np.cumprod(z), rtol=1e-10, atol=0)
    assert all(b <= a for a, b in itertools.pairwise(losses))
    # the run's vote is the replayed one
    np.testing.assert_allclose(run.F, H @ replay(run.history, H.shape[1]), rtol=0, atol=1e-10)


def test_real_valued_voters_edge_rule(moons_rbf):
    H, y = moons_rbf["H"], moons_rbf["y"]
    run = AdaBoost(max_iter=40).start(H, y).run()
    losses = check_run(run, H, y)          # alpha = 1/2 ln((1-eps)/eps) = 1/2 ln((1+r)/(1-r))
    for loss_before, loss_after, rec in zip(losses, losses[1:], run.history):
        r = 1.0 - 2.0 * rec.extra["weighted_error"]
        # the convexity bound the step minimizes: the loss falls at least by sqrt(1 - r^2)
        assert loss_after <= loss_before * math.sqrt(1.0 - r * r) * (1 + 1e-12)
    assert np.any(np.abs(H) < 1 - 1e-6)    # the pool is really real-valued


def test_alpha_minimizes_the_exponential_loss(cancer):
    H, y = cancer["H"], cancer["y"]
    run = AdaBoost(max_iter=8).start(cancer["op"], y).run()
    for t, rec in enumerate(run.history):
        F_prev = H @ replay(run.history, H.shape[1], t)
        h = H[:, rec.index]

        def loss(a, F_prev=F_prev, h=h):
            return float(np.mean(np.exp(-y * (F_prev + a * h))))

        res = minimize_scalar(loss, bracket=(0.0, 1.0), method="brent", tol=1e-12)
        assert abs(res.x - rec.alpha) <= 1e-6
        assert loss(rec.alpha) <= res.fun + 1e-13


# --------------------------------------------------------------------------- scikit-learn

def test_tiny_case_matches_scikit_learn_decision_stumps():
    """On binary features a depth-1 tree on feature k is stump k or its complement (the
    pools coincide).  Trees choose by weighted Gini, not weighted error; on this case both
    rules choose the same feature at every step, so SAMME (weight 2 alpha, the same example
    weights) must reproduce the hand-checked run."""
    run = AdaBoost(max_iter=4).start(H_TINY, Y_TINY).run()
    sk = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=4).fit(X_TINY, Y_TINY)
    assert [int(e.tree_.feature[0]) for e in sk.estimators_] == TINY_PICKS
    assert [r.index for r in run.history] == TINY_PICKS
    np.testing.assert_allclose(sk.estimator_weights_, 2.0 * np.array(TINY_ALPHAS), rtol=0, atol=TOL)
    np.testing.assert_allclose(sk.estimator_errors_, TINY_ERRORS, rtol=0, atol=TOL)
    sk_errors = [float(np.mean(p != Y_TINY)) for p in sk.staged_predict(X_TINY)]
    np.testing.assert_allclose(sk_errors, TINY_TRAIN_ERRORS, rtol=0, atol=TOL)
    assert sk_errors == [r.train_error for r in run.history]


class PoolVoter(ClassifierMixin, BaseEstimator):
    """Weak learner over a voter pool given as the features: the column of least weighted
    error (lowest index among near-ties), predicting that voter's sign."""

    def fit(self, X, y, sample_weight):
        self.classes_ = np.array([-1.0, 1.0])
        edges = X.T @ (sample_weight * y)
        self.k_ = int(np.flatnonzero(edges >= edges.max() - 1e-9 * abs(edges.max()))[0])
        return self

    def predict(self, X):
        return np.where(X[:, self.k_] > 0, 1.0, -1.0)


def test_matches_scikit_learn_samme(cancer):
    """SAMME on two classes: weight ln((1-eps)/eps) = 2 alpha, the same example weights
    (misclassified ones times (1-eps)/eps, then normalized), so the same picks and votes."""
    H, y = cancer["H"], cancer["y"]
    T = 40
    run = AdaBoost(max_iter=T).start(cancer["op"], y).run()
    sk = AdaBoostClassifier(PoolVoter(), n_estimators=T).fit(H, y)
    assert len(sk.estimators_) == T
    for rec, est in zip(run.history, sk.estimators_):
        np.testing.assert_array_equal(H[:, est.k_], H[:, rec.index])   # the same voter
    alphas = np.array([r.alpha for r in run.history])
    np.testing.assert_allclose(sk.estimator_weights_, 2.0 * alphas, rtol=1e-9, atol=0)
    np.testing.assert_allclose(sk.estimator_errors_,
                               [r.extra["weighted_error"] for r in run.history], rtol=0, atol=1e-12)
    sk_errors = [float(np.mean(p != y)) for p in sk.staged_predict(H)]
    assert sk_errors == [r.train_error for r in run.history]


# --------------------------------------------------------------------------- stop reasons

@pytest.mark.parametrize("seed", range(12))
def test_stops_when_no_voter_beats_chance(seed):
    # one voter and its complement: after the first step both have weighted error 1/2
    # (computed, 1/2 +- a few ulps: most of these seeds give a positive edge ~1e-16)
    rng = np.random.default_rng(seed)
    m = int(rng.integers(5, 60))
    y = rng.choice([-1.0, 1.0], size=m)
    h = np.where(np.arange(m) < m // 4, -y, y)
    run = AdaBoost(max_iter=50).start(np.column_stack([h, -h]), y).run()
    assert len(run.history) == 1
    assert run.stop_reason.startswith("no voter is better than chance")
    assert "not below 1/2" in run.stop_reason
    assert abs(run.example_weights() @ (y * h)) <= 1e-15
    assert run.step() is None and len(run.history) == 1


def test_stops_at_once_when_every_voter_is_at_chance():
    y4 = np.array([1.0, 1.0, -1.0, -1.0])
    H4 = np.array([[1, 1, -1], [-1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=float)
    assert np.all(y4 @ H4 == 0)
    run = AdaBoost().start(H4, y4).run()
    assert run.history == [] and run.stop_reason.startswith("no voter is better than chance")


def test_perfect_voter_gets_a_deciding_weight_and_stops():
    rng = np.random.default_rng(6)
    y = rng.choice([-1.0, 1.0], size=25)
    H = np.column_stack([np.where(rng.random((25, 3)) < 0.6, y[:, None], -y[:, None]), y])
    run = AdaBoost(max_iter=50).start(H, y).run()
    assert [r.index for r in run.history] == [3]
    rec = run.history[0]
    assert rec.alpha == 1.0 and rec.extra["weighted_error"] == 0.0 and rec.train_error == 0.0
    assert "zero weighted error" in run.stop_reason and "voter 3" in run.stop_reason
    assert rec.objective == pytest.approx(math.exp(-1.0), abs=TOL)


def test_max_iter_reached(cancer):
    run = AdaBoost(max_iter=3).start(cancer["op"], cancer["y"]).run()
    assert len(run.history) == 3 and run.stop_reason == "max_iter reached (3): the paper's rule, a fixed number of iterations T = 3"


# --------------------------------------------------------------------------- bad inputs

@pytest.mark.parametrize("kwargs", [dict(max_iter=0), dict(max_iter=2.5), dict(max_iter=True),
                                    dict(delta=0.0), dict(delta=1.5), dict(delta="0.05")])
def test_bad_hyper_parameters_raise(kwargs):
    with pytest.raises(ParameterError):
        AdaBoost(**kwargs)


def test_voter_outside_unit_interval_raises():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ParameterError, match=r"\[-1, 1\]"):
        AdaBoost().start(np.column_stack([2.0 * y, -y]), y).step()
    with pytest.raises(ParameterError):
        AdaBoost().start(np.ones((4, 2)), (y + 1) / 2)        # {0, 1} labels
