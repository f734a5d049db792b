"""Checks of VEB-Boost over a voter pool (cbviz.algorithms.vebboost) against its paper
(Shivaswamy & Jebara, variational empirical Bernstein boosting).

Reference numbers come from the definitions, never from the module's helpers:

* the vote before each step is rebuilt from the records' ``(index, alpha)`` pairs; the
  weights are ``w = exp(-y F) / sum exp(-y F)`` and ``u = lam n w^2 + (1 - lam) w`` with ``n``
  the number of training examples (Figure 1);
* Lemma 1's cost (1) is written from the sets I (right) and J (wrong) of the picked +-1 voter,
  ``U_I exp(-2 alpha) + U_J exp(2 alpha)``, or with ``sum u (1 +- y h) / 2`` for real-valued
  voters, and minimized with ``scipy.optimize.minimize_scalar``;
* the penalized cost is the paper's Sect. 2 formula with plain sums,
  ``(sum L)^2 + lam (n sum L^2 - (sum L)^2)``, divided by ``n^2`` as the records report it;
* Theorem 3 is checked on a pool built so that every weak learner either algorithm picks
  has the same error rate (the theorem's assumption), with the costs also in closed form.

Tolerances: 1e-12 absolute for weighted errors and closed forms computed two ways, 1e-10
relative for costs accumulated over many steps, 1e-6 absolute for an argmin found by a
numerical optimizer (its minimum value is compared to 1e-13 relative).  Seeds are fixed.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from helpers import replay
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer, make_moons

from cbviz.algorithms.adaboost import AdaBoost
from cbviz.algorithms.base import ParameterError
from cbviz.algorithms.vebboost import VEBBoost
from cbviz.voters import RBFPool, StumpPool

TOL = 1e-12
LAMS = [0.0, 0.25, 0.5, 0.75, 1.0]


# --------------------------------------------------------------------------- helpers


def u_weights(F, y, lam):
    """Figure 1: w normalized to sum 1, u = lam n w^2 + (1 - lam) w, n = number of examples."""
    L = np.exp(-y * F)
    w = L / L.sum()
    return lam * y.size * w**2 + (1.0 - lam) * w


def masses(h, y, u):
    """(U_I, U_J) of Lemma 1: u-mass where h is right / wrong; for real-valued voters the
    convexity weights (1 +- y h) / 2."""
    if np.all(np.abs(h) == 1.0):
        right = h == y
        return float(u[right].sum()), float(u[~right].sum())
    return float(u @ (1.0 + y * h)) / 2.0, float(u @ (1.0 - y * h)) / 2.0


def paper_cost(F, y, lam):
    """Sect. 2: (sum L)^2 + lam (n sum L^2 - (sum L)^2), divided by n^2."""
    L = np.exp(-y * F)
    n = y.size
    return (L.sum() ** 2 + lam * (n * np.sum(L**2) - L.sum() ** 2)) / n**2


@pytest.fixture(scope="module")
def cases():
    X, t = load_breast_cancer(return_X_y=True)
    pool = StumpPool(n_thresholds=10).fit(X)
    cancer = dict(op=pool.operator(X), H=pool.transform(X), y=np.where(t > 0, 1.0, -1.0))
    X, t = make_moons(200, noise=0.3, random_state=3)
    y = np.where(t > 0, 1.0, -1.0)
    H = RBFPool(n_centers=40, random_state=1).fit(X, y).transform(X)
    return {"cancer-stumps": cancer, "moons-rbf": dict(op=H, H=H, y=y)}


# --------------------------------------------------------------------------- Lemma 1

@pytest.mark.parametrize("case", ["cancer-stumps", "moons-rbf"])
@pytest.mark.parametrize("lam", [0.0, 0.3, 0.7, 1.0])
def test_alpha_minimizes_lemma1_cost(cases, case, lam):
    c = cases[case]
    H, y = c["H"], c["y"]
    run = VEBBoost(lam=lam, max_iter=12).start(c["op"], y).run()
    assert len(run.history) == 12
    for t, rec in enumerate(run.history):
        F_prev = H @ replay(run.history, H.shape[1], t)
        u = u_weights(F_prev, y, lam)
        np.testing.assert_allclose(run.example_weights(t), u / u.sum(), rtol=1e-12, atol=0)
        errors = (1.0 - (u * y) @ H / u.sum()) / 2.0           # u-weighted error of every voter
        assert errors[rec.index] <= errors.min() + TOL
        assert abs(rec.extra["weighted_error"] - errors[rec.index]) <= TOL
        U_I, U_J = masses(H[:, rec.index], y, u)

        def cost1(a, U_I=U_I, U_J=U_J):
            return U_I * math.exp(-2.0 * a) + U_J * math.exp(2.0 * a)

        res = minimize_scalar(cost1, bracket=(0.0, 1.0), method="brent", tol=1e-12)
        assert rec.alpha > 0.0
        assert abs(rec.alpha - res.x) <= 1e-6
        assert cost1(rec.alpha) <= res.fun * (1 + 1e-13)
        # Figure 1 prints alpha = 1/4 log(U_J / U_I): the negative of cost (1)'s minimizer
        assert abs(0.25 * math.log(U_J / U_I) + rec.alpha) <= 1e-12
    assert np.all(run.weights >= 0.0)


# --------------------------------------------------------------------------- the cost

@pytest.mark.parametrize("case", ["cancer-stumps", "moons-rbf"])
@pytest.mark.parametrize("lam", LAMS)
def test_penalized_cost_never_increases(cases, case, lam):
    """The records' objective is the paper's cost / n^2; it decreases at least as much as
    the variational bound (Theorem 2) promises: cost_t <= mean(L_{t-1})^2 2 sqrt(U_I U_J)."""
    c = cases[case]
    H, y = c["H"], c["y"]
    run = VEBBoost(lam=lam, max_iter=40).start(c["op"], y).run()
    assert len(run.history) == 40
    prev_cost, prev_loss = 1.0, 1.0                # the empty vote: L = 1 everywhere
    for t, rec in enumerate(run.history):
        F_prev = H @ replay(run.history, H.shape[1], t)
        F = F_prev + rec.alpha * H[:, rec.index]
        L = np.exp(-y * F)
        cost = paper_cost(F, y, lam)
        assert abs(rec.objective - cost) <= 1e-10 * cost
        assert abs(rec.extra["exp_loss"] - L.mean()) <= 1e-10 * L.mean()
        assert abs(rec.extra["variance"] - (np.mean(L**2) - L.mean() ** 2)) <= 1e-10 * cost
        U_I, U_J = masses(H[:, rec.index], y, u_weights(F_prev, y, lam))
        assert rec.objective <= prev_loss**2 * 2.0 * math.sqrt(U_I * U_J) * (1 + 1e-12)
        assert rec.objective < prev_cost
        prev_cost, prev_loss = rec.objective, rec.extra["exp_loss"]


def test_lam_one_is_adaboost_at_half_weight(cases):
    """At lam = 1 the cost is mean(exp(-2 y F)) and u is proportional to exp(-2 y F): VEB-Boost
    is AdaBoost on the vote 2F (same picks, half the weights, the same loss)."""
    c = cases["cancer-stumps"]
    H, y = c["H"], c["y"]
    veb = VEBBoost(lam=1.0, max_iter=40).start(c["op"], y).run()
    ada = AdaBoost(max_iter=40).start(c["op"], y).run()
    for rv, ra in zip(veb.history, ada.history, strict=True):
        np.testing.assert_array_equal(H[:, rv.index], H[:, ra.index])
        assert abs(2.0 * rv.alpha - ra.alpha) <= 1e-10 * ra.alpha
        assert abs(rv.objective - ra.objective) <= 1e-10 * ra.objective
        assert abs(rv.extra["weighted_error"] - ra.extra["weighted_error"]) <= 1e-10
        assert rv.train_error == ra.train_error


# --------------------------------------------------------------------------- Theorem 3

def fixed_error_pool(q, K, seed):
    """A pool where every fresh voter has error exactly 1 / (q + 1) under the boosting weights.

    The examples are all patterns b in {0, 1}^K (b_k = 1: voter k is wrong), pattern b
    repeated q^(K - |b|) times.  The exponential-loss weights of a vote stay a product over
    the voters, so the weighted error of a voter not yet in the vote is its error under
    uniform weights, 1 / (q + 1), whatever the others' weights.  Complements are appended.
    """
    patterns = np.array(list(itertools.product([0, 1], repeat=K)))
    B = np.repeat(patterns, q ** (K - patterns.sum(axis=1)), axis=0)
    y = np.random.default_rng(seed).choice([-1.0, 1.0], size=B.shape[0])
    H = y[:, None] * (1.0 - 2.0 * B)
    return np.column_stack([H, -H]), y


@pytest.mark.parametrize("q,S", [(2, 3), (3, 3), (4, 2)])
def test_theorem3_lam0_reaches_adaboost_cost_within_2S(q, S):
    """Theorem 3: with weak learners of a fixed error rate eps < 1/2, VEB-Boost at lam = 0
    attains a cost (the squared exponential loss) at least as low as AdaBoost's after S
    iterations within 2S iterations.  AdaBoost's step multiplies the loss by
    Z = 2 sqrt(eps (1 - eps)), VEB-Boost's (half the step) by (eps (1 - eps))^(1/4)
    (sqrt(1 - eps) + sqrt(eps)), whose square is at most Z."""
    H, y = fixed_error_pool(q, 2 * S, seed=q)
    eps = 1.0 / (q + 1)
    ada = AdaBoost(max_iter=S).start(H, y).run()
    veb = VEBBoost(lam=0.0, max_iter=2 * S).start(H, y).run()
    for run, T in ((ada, S), (veb, 2 * S)):
        assert len(run.history) == T
        # the theorem's assumption holds: every pick has error eps (each a fresh voter)
        for rec in run.history:
            assert abs(rec.extra["weighted_error"] - eps) <= TOL
        assert len({r.index % (2 * S) for r in run.history}) == T
    O_A = ada.history[-1].objective ** 2                       # AdaBoost's squared cost
    z_ada = 2.0 * math.sqrt(eps * (1 - eps))
    z_veb = (eps * (1 - eps)) ** 0.25 * (math.sqrt(1 - eps) + math.sqrt(eps))
    assert O_A == pytest.approx(z_ada ** (2 * S), rel=1e-10)
    costs = [r.objective for r in veb.history]
    np.testing.assert_allclose(costs, z_veb ** (2 * np.arange(1, 2 * S + 1)), rtol=1e-10, atol=0)
    assert costs[2 * S - 1] <= O_A                             # the claim
    assert costs[S - 1] > O_A            # not trivially: after S steps VEB-Boost is behind


# --------------------------------------------------------------------------- stop reasons

@pytest.mark.parametrize("seed", range(12))
def test_stops_when_alpha_would_be_non_positive(seed):
    # lam = 1 on a voter and its complement: u is proportional to w^2, which the step
    # rescales by exp(-+2 alpha) on I / J, so U_I = U_J afterwards and the next alpha is 0
    # (computed, up to a few ulps: most of these seeds give a positive edge ~1e-16)
    rng = np.random.default_rng(seed)
    m = int(rng.integers(5, 60))
    y = rng.choice([-1.0, 1.0], size=m)
    h = np.where(np.arange(m) < m // 4, -y, y)
    run = VEBBoost(lam=1.0, max_iter=50).start(np.column_stack([h, -h]), y).run()
    assert len(run.history) == 1
    assert run.stop_reason.startswith("the step would be non-positive")
    assert "U_I / U_J" in run.stop_reason
    assert abs(run.example_weights() @ (y * h)) <= 1e-15
    assert run.step() is None and len(run.history) == 1
    # with lam < 1 the same pool keeps improving: no stop after one step
    assert len(VEBBoost(lam=0.5, max_iter=5).start(np.column_stack([h, -h]), y).run().history) == 5


def test_stops_at_once_when_every_voter_is_at_chance():
    y4 = np.array([1.0, 1.0, -1.0, -1.0])
    H4 = np.array([[1, 1, -1], [-1, -1, 1], [1, -1, -1], [-1, 1, 1]], dtype=float)
    assert np.all(y4 @ H4 == 0)
    run = VEBBoost().start(H4, y4).run()
    assert run.history == [] and run.stop_reason.startswith("the step would be non-positive")


def test_perfect_voter_gets_a_deciding_weight_and_stops():
    rng = np.random.default_rng(6)
    y = rng.choice([-1.0, 1.0], size=25)
    H = np.column_stack([np.where(rng.random((25, 3)) < 0.6, y[:, None], -y[:, None]), -y, y])
    run = VEBBoost(lam=0.5, max_iter=50).start(H, y).run()
    assert [r.index for r in run.history] == [4]
    rec = run.history[0]
    assert rec.alpha == 1.0 and rec.extra["weighted_error"] == 0.0 and rec.train_error == 0.0
    assert "zero weighted error" in run.stop_reason and "voter 4" in run.stop_reason
    assert rec.objective == pytest.approx(math.exp(-2.0), abs=TOL)   # L = e^-1, no variance


def test_max_iter_reached(cases):
    run = VEBBoost(max_iter=3).start(cases["cancer-stumps"]["op"], cases["cancer-stumps"]["y"])
    assert run.run().stop_reason == "max_iter reached (3): the paper's rule, a fixed number of iterations T = 3" and len(run.history) == 3
    assert not run.capped   # S rounds are the paper's loop


# --------------------------------------------------------------------------- bad inputs

@pytest.mark.parametrize("kwargs", [dict(lam=-0.1), dict(lam=1.5), dict(lam=float("nan")),
                                    dict(lam=float("inf")), dict(lam="0.5"), dict(lam=None),
                                    dict(lam=True), dict(max_iter=0), dict(max_iter=1.5),
                                    dict(delta=0.0), dict(delta=2.0)])
def test_bad_hyper_parameters_raise(kwargs):
    with pytest.raises(ParameterError):
        VEBBoost(**kwargs)


def test_hyper_parameters_are_stored():
    est = VEBBoost(lam=1, max_iter=7, delta=0.1)
    assert (est.lam, est.max_iter, est.delta) == (1.0, 7, 0.1)
    y = np.array([1.0, -1.0, 1.0])
    assert VEBBoost(lam=0).start(np.column_stack([y, -y]), y).lam == 0.0


def test_voter_outside_unit_interval_raises():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(ParameterError, match=r"\[-1, 1\]"):
        VEBBoost().start(np.column_stack([1.5 * y, -y]), y).step()
