"""Checks of the QuadBoost stepper (cbviz.algorithms.quadboost) against the QuadBoost paper.

Reference numbers are recomputed here from the paper's definitions, never through the
module's helpers:

* signed weights ``w`` on the direct voters are replayed from the records
  (``w[index] += alpha``) and the vote is ``F = H_direct w``;
* quadratic risk ``mean((y - F)^2)``; ``mu_j = mean(y h_j)`` (eq. 3);
  ``M_j = mean(h_j F_{-j})`` with ``F_{-j}`` the vote of the other voters (eq. 4, Sect. 3.1);
  ``eta_j = mean(h_j^2)`` (eq. 5);
* each variant's cost is the quadratic risk plus ``2 lam ||w||_1`` (L1), ``lam ||w||_2^2``
  (L2; see the module docstring for why squared) or the box ``|w_j| <= alpha_max`` (Linf);
  the one-dimensional minimum is found by ``scipy.optimize.minimize_scalar``, the joint
  minimum of a converged re-weighting run by scikit-learn's Lasso or a linear solve;
* C-bound and KL from the non-negative weights on the self-complemented pool
  (``[max(w, 0), max(-w, 0)]``).

Tolerances: 1e-12 absolute for the same number computed two ways (risks, decreases,
weights, scores), 1e-13 for "the closed form is no worse than scipy's minimum",
1e-6 for the argmin found by bounded Brent (only known to ~sqrt(eps) from values),
1e-9 for joint optima from an independent solver.  Every random draw has a fixed seed.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from helpers import replay
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.linear_model import Lasso
from sklearn.preprocessing import StandardScaler

from cbviz.algorithms.base import ParameterError
from cbviz.algorithms.quadboost import QuadBoost
from cbviz.voters import DenseOperator, RBFPool, StumpPool, VoterOperator

TOL = 1e-12
MIN_TOL = 1e-13
ARG_TOL = 1e-6
JOINT_TOL = 1e-9
REGS = [(None, {}), ("l1", {"lam": 0.03}), ("l2", {"lam": 2.0}), ("linf", {"alpha_max": 0.1})]
REG_IDS = ["vanilla", "l1", "l2", "linf"]


# --------------------------------------------------------------------------- data

def split_work(X, y, n_train, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    return X[perm[:n_train]], y[perm[:n_train]], X[perm[n_train:]], y[perm[n_train:]]


def _case(Hfit, H, Ht, y, yt):
    n = H.shape[1] // 2
    return dict(Hfit=Hfit, H=H, Hd=H[:, :n], Ht=Ht, y=y, yt=yt, n=n)


@pytest.fixture(scope="module")
def cancer():
    """Breast cancer, stump pool through the prefix-sum operator (+-1 voters, eta = 1)."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y, Xt, yt = split_work(X, np.where(y == 1, 1.0, -1.0), 400, seed=0)
    pool = StumpPool(n_thresholds=10).fit(X)
    return _case(pool.operator(X), pool.transform(X), pool.transform(Xt), y, yt)


@pytest.fixture(scope="module")
def moons_rbf():
    """Moons, real-valued RBF voters with different eta_j (dense matrix)."""
    X, y = make_moons(n_samples=400, noise=0.35, random_state=1)
    X, y, Xt, yt = split_work(X, np.where(y == 1, 1.0, -1.0), 300, seed=1)
    scaler = StandardScaler().fit(X)
    pool = RBFPool(n_centers=40, random_state=0).fit(scaler.transform(X), y)
    H = pool.transform(scaler.transform(X))
    return _case(H, H, pool.transform(scaler.transform(Xt)), y, yt)


@pytest.fixture(scope="module")
def moons_stumps():
    """Small moons problem with 20 direct stumps: re-weighting runs converge here."""
    X, y = make_moons(n_samples=200, noise=0.3, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    pool = StumpPool(n_thresholds=10).fit(X)
    H = pool.transform(X)
    return _case(pool.operator(X), H, None, y, None)


@pytest.fixture(scope="module")
def correlated_real():
    """Six real voters, two of them sums of others: the L1 re-weighting run drops one."""
    rng = np.random.default_rng(11)
    y = rng.choice([-1.0, 1.0], size=30)
    B = rng.normal(size=(30, 4))
    H = np.tanh(np.column_stack([B, B[:, :2].sum(1) + 0.8 * B[:, 2], B[:, 0] + B[:, 1]])
                + 0.8 * y[:, None])
    H = np.hstack([H, -H])
    return _case(H, H, None, y, None)


# --------------------------------------------------------------------------- definitions


def risk(F, y):
    return float(np.mean((y - F) ** 2))


def pen(reg, lam, w):
    w = np.atleast_1d(np.asarray(w, dtype=float))
    return {"l1": 2.0 * lam * np.sum(np.abs(w)), "l2": lam * np.sum(w ** 2)}.get(reg, 0.0)


def paper_terms(Hd, y, w_prev, j):
    """mu_j, M_j (correlation with the other voters' vote) and eta_j of voter j."""
    h = Hd[:, j]
    others = Hd @ w_prev - w_prev[j] * h
    return float(np.mean(y * h)), float(np.mean(h * others)), float(np.mean(h * h))


def run_all(reg, kw, case, max_iter, reweight=False):
    run = QuadBoost(reg, max_iter=max_iter, reweight=reweight, **kw).start(
        case["Hfit"], case["y"], case["Ht"], case["yt"])
    run.run()
    assert run.done and run.stop_reason
    assert run.step() is None
    return run


# --------------------------------------------------------------------------- eqs. (5)-(8)

@pytest.mark.parametrize("case_name", ["cancer", "moons_rbf"])
def test_vanilla_step_lowers_the_risk_by_the_paper_amount(request, case_name):
    """Eq. (6): weight (mu_j - M_j) / eta_j, risk decrease (mu_j - M_j)^2 / eta_j, and the
    voter maximizes |mu_j - M_j| among those outside the ensemble (also for real voters)."""
    case = request.getfixturevalue(case_name)
    Hd, y, n = case["Hd"], case["y"], case["n"]
    run = run_all(None, {}, case, 40)
    assert len(run.history) == 40
    eta_all = np.mean(Hd ** 2, axis=0)
    if case_name == "moons_rbf":
        assert eta_all.max() > 1.5 * eta_all.min()          # the pick is not the decrease rule
    for t, rec in enumerate(run.history, start=1):
        w_prev = replay(run.history, n, t - 1)
        w = replay(run.history, n, t)
        j = rec.index
        assert w_prev[j] == 0.0                              # reweight=False: a new voter
        mu, M, eta = paper_terms(Hd, y, w_prev, j)
        assert abs(rec.alpha - (mu - M) / eta) <= TOL * max(1.0, abs(rec.alpha))
        before, after = risk(Hd @ w_prev, y), risk(Hd @ w, y)
        assert abs((before - after) - (mu - M) ** 2 / eta) <= TOL
        assert abs(rec.extra["quadratic_risk"] - after) <= TOL
        assert rec.objective == rec.extra["quadratic_risk"]
        assert abs(rec.extra["score"] - abs(mu - M)) <= TOL
        assert rec.extra["regularizer"] == pytest.approx(np.abs(w).sum(), abs=TOL)   # p = 1
        outside = w_prev == 0
        scores = np.abs(Hd.T @ y / y.size - Hd.T @ (Hd @ w_prev) / y.size)
        assert abs(mu - M) >= scores[outside].max() - TOL
    np.testing.assert_allclose(run.F, case["H"][:, :n] @ replay(run.history, n), atol=1e-12)


@pytest.mark.parametrize("reg,kw", [("l1", {"lam": 0.03}), ("l2", {"lam": 2.0})],
                         ids=["l1", "l2"])
@pytest.mark.parametrize("case_name", ["cancer", "moons_rbf"])
def test_l1_l2_steps_lower_the_cost_by_the_paper_amount(request, case_name, reg, kw):
    """Eq. (7): decrease (|mu_j - M_j| - lam)^2 / eta_j; eq. (8): (mu_j - M_j)^2 / (eta_j + lam)."""
    case = request.getfixturevalue(case_name)
    Hd, y, n = case["Hd"], case["y"], case["n"]
    lam = kw["lam"]
    run = run_all(reg, kw, case, 30)
    assert len(run.history) >= 5
    for t, rec in enumerate(run.history, start=1):
        w_prev, w = replay(run.history, n, t - 1), replay(run.history, n, t)
        mu, M, eta = paper_terms(Hd, y, w_prev, rec.index)
        g = mu - M
        cost_before = risk(Hd @ w_prev, y) + pen(reg, lam, w_prev)
        cost_after = risk(Hd @ w, y) + pen(reg, lam, w)
        if reg == "l1":
            assert abs(g) > lam
            assert abs(rec.alpha - np.sign(g) * (abs(g) - lam) / eta) <= TOL
            stated = (abs(g) - lam) ** 2 / eta
            assert rec.extra["regularizer"] == pytest.approx(np.abs(w).sum(), abs=TOL)
        else:
            assert abs(rec.alpha - g / (eta + lam)) <= TOL
            stated = g ** 2 / (eta + lam)
            dim = np.count_nonzero(w)
            assert rec.extra["regularizer"] == pytest.approx(
                math.sqrt(dim) * np.linalg.norm(w), abs=TOL)
        assert abs((cost_before - cost_after) - stated) <= TOL
        assert abs(rec.objective - cost_after) <= TOL
        assert abs(rec.predicted_decrease - stated) <= TOL
        assert abs(rec.actual_decrease - stated) <= TOL


# --------------------------------------------------------------------------- scipy

@pytest.mark.parametrize("reweight", [False, True], ids=["new", "reweight"])
@pytest.mark.parametrize("reg,kw", REGS, ids=REG_IDS)
@pytest.mark.parametrize("case_name", ["cancer", "moons_rbf"])
def test_each_step_minimizes_its_one_dimensional_cost(request, case_name, reg, kw, reweight):
    """The new weight of the chosen voter is the minimum of risk + regularizer along it
    (Linf: on [-alpha_max, alpha_max]), by bounded Brent on the definition."""
    case = request.getfixturevalue(case_name)
    Hd, y, n = case["Hd"], case["y"], case["n"]
    lam = kw.get("lam", 0.0)
    run = run_all(reg, kw, case, 40, reweight=reweight)
    n_clipped = n_again = 0
    for t, rec in enumerate(run.history, start=1):
        w_prev = replay(run.history, n, t - 1)
        j, h = rec.index, Hd[:, rec.index]
        F_prev = Hd @ w_prev
        a_code = w_prev[j] + rec.alpha
        n_again += w_prev[j] != 0

        def cost(a, w_prev=w_prev, j=j, F_prev=F_prev, h=h):
            w = w_prev.copy()
            w[j] = a
            return risk(F_prev + (a - w_prev[j]) * h, y) + pen(reg, lam, w)

        half = kw["alpha_max"] if reg == "linf" else 10.0 * max(1.0, abs(a_code))
        res = minimize_scalar(cost, bounds=(-half, half), method="bounded",
                              options={"xatol": 1e-12, "maxiter": 2000})
        assert abs(a_code - res.x) <= ARG_TOL, (t, a_code, res.x)
        assert cost(a_code) <= res.fun + MIN_TOL
        assert abs(rec.extra["weight"] - a_code) <= TOL
        if reg == "linf":
            n_clipped += abs(a_code) == kw["alpha_max"]
    assert len(run.history) >= (5 if reg == "l1" else 40)     # L1 may stop by itself
    if reg == "linf":
        assert n_clipped > 0                           # the box was active
    if reweight:
        assert n_again > 0                             # some step re-weighted a voter


# --------------------------------------------------------------------------- L1 stopping

@pytest.mark.parametrize("case_name,lam", [("cancer", 0.05), ("moons_stumps", 0.02),
                                           ("moons_rbf", 0.01)])
def test_l1_adds_only_voters_beating_lambda_and_stops_by_itself(request, case_name, lam):
    case = request.getfixturevalue(case_name)
    Hd, y, n = case["Hd"], case["y"], case["n"]
    run = run_all("l1", {"lam": lam}, case, 1000)
    assert 2 <= len(run.history) < 1000
    assert run.stop_reason == (
        f"no voter outside the ensemble has |mu_j - M_j| > lambda = {lam:g} (eq. 7)")
    for t, rec in enumerate(run.history, start=1):
        mu, M, _ = paper_terms(Hd, y, replay(run.history, n, t - 1), rec.index)
        assert abs(mu - M) > lam and rec.extra["score"] > lam
        assert rec.alpha != 0
    w = replay(run.history, n)
    corr = Hd.T @ (y - Hd @ w) / y.size                # mu_j - M_j outside the ensemble
    assert np.all(np.abs(corr[w == 0]) <= lam + TOL)


@pytest.mark.parametrize("case_name", ["moons_stumps", "correlated_real"])
def test_l1_with_reweighting_reaches_the_lasso_optimum(request, case_name):
    """Re-weighting (Sect. 3.1) makes L1 QuadBoost coordinate descent on the lasso
    mean((y - Hw)^2) + 2 lam ||w||_1 = 2 x scikit-learn's Lasso objective with alpha = lam;
    a voter whose |mu_j - M_j| falls to lam or below gets weight 0 (eq. 7) and leaves."""
    case, lam = request.getfixturevalue(case_name), 0.02
    Hd, y, n = case["Hd"], case["y"], case["n"]
    run = run_all("l1", {"lam": lam}, case, 5000, reweight=True)
    assert len(run.history) < 5000
    assert run.stop_reason == ("no voter outside the ensemble has |mu_j - M_j| > lambda = 0.02 "
                               "(eq. 7), and eq. (7) leaves every weight in the ensemble unchanged")
    w = replay(run.history, n)
    corr = Hd.T @ (y - Hd @ w) / y.size
    on = w != 0
    np.testing.assert_allclose(corr[on], lam * np.sign(w[on]), rtol=0, atol=1e-11)  # KKT
    assert np.all(np.abs(corr[~on]) <= lam + TOL)
    lasso = Lasso(alpha=lam, fit_intercept=False, tol=1e-14, max_iter=200000).fit(Hd, y)
    reference = risk(Hd @ lasso.coef_, y) + 2.0 * lam * np.abs(lasso.coef_).sum()
    assert run.history[-1].objective <= reference + JOINT_TOL
    assert abs(run.history[-1].objective - reference) <= JOINT_TOL
    n_dropped = 0
    for t, rec in enumerate(run.history, start=1):   # eq. (7) with Sect. 3.1's M_j
        w_prev = replay(run.history, n, t - 1)
        mu, M, _ = paper_terms(Hd, y, w_prev, rec.index)
        assert (rec.extra["weight"] == 0) == (abs(mu - M) <= lam)
        if rec.extra["weight"] == 0:
            n_dropped += 1
            assert w_prev[rec.index] != 0 and rec.n_voters == np.count_nonzero(w_prev) - 1
    assert n_dropped >= (1 if case_name == "correlated_real" else 0)


def test_l2_with_reweighting_reaches_the_ridge_optimum(moons_stumps):
    case, lam = moons_stumps, 1.0
    Hd, y, n = case["Hd"], case["y"], case["n"]
    run = run_all("l2", {"lam": lam}, case, 5000, reweight=True)
    assert run.stop_reason.endswith("the ridge optimum")
    w_ref = np.linalg.solve(Hd.T @ Hd / y.size + lam * np.eye(n), Hd.T @ y / y.size)
    np.testing.assert_allclose(run.signed_weights, w_ref, rtol=0, atol=JOINT_TOL)
    assert abs(run.history[-1].objective - (risk(Hd @ w_ref, y) + lam * w_ref @ w_ref)) <= TOL


# --------------------------------------------------------------------------- whole runs

@pytest.mark.parametrize("reweight", [False, True], ids=["new", "reweight"])
@pytest.mark.parametrize("reg,kw", REGS, ids=REG_IDS)
def test_objective_never_increases_and_linf_stays_in_the_box(cancer, reg, kw, reweight):
    case = cancer
    Hd, y, n = case["Hd"], case["y"], case["n"]
    lam = kw.get("lam", 0.0)
    run = run_all(reg, kw, case, 150, reweight=reweight)
    objs = [1.0] + [rec.objective for rec in run.history]     # mean(y^2) = 1 at w = 0
    assert all(b <= a + 1e-15 for a, b in itertools.pairwise(objs))
    assert objs[-1] < 0.6
    for t, rec in enumerate(run.history, start=1):
        w = replay(run.history, n, t)
        assert abs(rec.objective - (risk(Hd @ w, y) + pen(reg, lam, w))) <= TOL
        assert rec.predicted_decrease > 0
        assert abs(rec.actual_decrease - rec.predicted_decrease) <= TOL
        if reg == "linf":
            assert rec.weights.max() <= kw["alpha_max"]          # the run's own weights
            assert abs(rec.extra["weight"]) <= kw["alpha_max"]
            dim = np.count_nonzero(w)
            assert rec.extra["regularizer"] == pytest.approx(dim * np.abs(w).max(), abs=TOL)
    if reg == "linf":
        assert np.sum(np.abs(run.signed_weights) == kw["alpha_max"]) >= 5


def test_reweighting_chooses_a_voter_again_and_still_lowers_the_risk(cancer):
    """Vanilla with reweight=True: the decrease of a re-weighted voter is
    (mu_j - M_j - w_j eta_j)^2 / eta_j = mean(h_j r)^2 / eta_j (Sect. 3.1, eq. 10)."""
    case = cancer
    Hd, y, n = case["Hd"], case["y"], case["n"]
    run = run_all(None, {}, case, 150, reweight=True)
    chosen = [rec.index for rec in run.history]
    assert len(set(chosen)) < len(chosen)
    n_again = 0
    for t, rec in enumerate(run.history, start=1):
        w_prev, w = replay(run.history, n, t - 1), replay(run.history, n, t)
        j = rec.index
        mu, M, eta = paper_terms(Hd, y, w_prev, j)
        before, after = risk(Hd @ w_prev, y), risk(Hd @ w, y)
        assert after < before
        assert abs((before - after) - (mu - M - w_prev[j] * eta) ** 2 / eta) <= TOL
        assert abs(w[j] - (mu - M) / eta) <= TOL            # eq. (6) with Sect. 3.1's M_j
        assert abs(rec.extra["score"] - abs(mu - M)) <= TOL
        n_again += w_prev[j] != 0
    assert n_again >= 5
    first = QuadBoost(max_iter=150).start(case["Hfit"], y).run()
    assert run.history[-1].extra["quadratic_risk"] < first.history[-1].extra["quadratic_risk"]


def assert_error_rate(error, F, y):
    """0-1 error of sign(F) (sgn(0) = -1); a vote within 1e-9 of 0 may fall either way,
    as the record's vote is accumulated step by step and F here in one product."""
    wrong, tie = y * F < -1e-9, np.abs(F) <= 1e-9
    assert np.mean(wrong) <= error <= np.mean(wrong | tie)


@pytest.mark.parametrize("reg,kw,reweight", [(None, {}, False), ("l1", {"lam": 0.01}, True),
                                             ("linf", {"alpha_max": 0.05}, True)],
                         ids=["vanilla", "l1-reweight", "linf-reweight"])
def test_record_bounds_are_those_of_the_self_complemented_pool(cancer, reg, kw, reweight):
    case = cancer
    H, Hd, y, n = case["H"], case["Hd"], case["y"], case["n"]
    run = run_all(reg, kw, case, 60, reweight=reweight)
    n_negative = 0
    for t, rec in enumerate(run.history, start=1):
        w = replay(run.history, n, t)
        a = np.concatenate([np.maximum(w, 0.0), np.maximum(-w, 0.0)])
        n_negative += np.any(w < 0)
        F = H @ a
        np.testing.assert_allclose(F, Hd @ w, atol=1e-12)
        total = a.sum()
        mu1, mu2 = np.mean(y * F) / total, np.mean(F ** 2) / total ** 2
        c = 1.0 - mu1 ** 2 / mu2 if mu1 > 0 else 1.0
        Q = a[a > 0] / total
        kl = math.log(2 * n) + float(np.sum(Q * np.log(Q)))
        assert abs(rec.c_bound - c) <= TOL and abs(rec.kl - kl) <= 1e-11
        assert abs(rec.mu1 - mu1) <= TOL and abs(rec.mu2 - mu2) <= TOL
        assert list(rec.support) == list(np.flatnonzero(a))
        np.testing.assert_allclose(rec.weights, a[a > 0], atol=TOL)
        assert_error_rate(rec.train_error, F, y)
        assert_error_rate(rec.test_error, case["Ht"] @ a, case["yt"])
    assert n_negative > 0                     # the complements really carry weight
    np.testing.assert_allclose(run.weights, np.concatenate(
        [np.maximum(run.signed_weights, 0), np.maximum(-run.signed_weights, 0)]), atol=0)


class CountingOperator(VoterOperator):
    """A dense operator that counts the products an algorithm asks for."""

    def __init__(self, H):
        self.inner = DenseOperator(H)
        self.shape, self.col_sq_sums = self.inner.shape, self.inner.col_sq_sums
        self.calls = {"rmatvec": 0, "matvec": 0, "column": 0, "columns": 0}

    def rmatvec(self, v):
        self.calls["rmatvec"] += 1
        return self.inner.rmatvec(v)

    def matvec(self, a):
        self.calls["matvec"] += 1
        return self.inner.matvec(a)

    def column(self, k):
        self.calls["column"] += 1
        return self.inner.column(k)

    def columns(self, idx):
        self.calls["columns"] += 1
        return self.inner.columns(idx)


@pytest.mark.parametrize("reweight", [False, True], ids=["new", "reweight"])
def test_one_pass_over_the_data_per_step(moons_rbf, reweight):
    op = CountingOperator(moons_rbf["H"])
    run = QuadBoost("l2", lam=0.5, max_iter=20, reweight=reweight).start(op, moons_rbf["y"])
    for _ in range(20):
        op.calls = dict.fromkeys(op.calls, 0)
        assert run.step() is not None
        assert op.calls == {"rmatvec": 1, "matvec": 0, "column": 1, "columns": 0}


# --------------------------------------------------------------------------- stop reasons

def test_stop_reasons():
    rng = np.random.default_rng(5)
    y = rng.choice([-1.0, 1.0], size=30)
    # a perfect voter: one step brings the risk to 0, then nothing lowers it
    H = np.column_stack([rng.choice([-1.0, 1.0], size=(30, 2)), y])
    H = np.hstack([H, -H])
    for reweight in (False, True):
        run = QuadBoost(reweight=reweight).start(H, y).run()
        assert [r.index for r in run.history] == [2]
        assert run.history[0].objective == 0.0 and run.history[0].alpha == 1.0
        assert run.stop_reason.startswith(
            "no voter outside the ensemble lowers" if not reweight else "no voter lowers")
    # three weak voters, no re-weighting: the pool runs out
    Hw = np.where(rng.random((30, 3)) < 0.7, y[:, None], -y[:, None])
    run = QuadBoost(max_iter=10).start(np.hstack([Hw, -Hw]), y).run()
    assert len(run.history) == 3
    assert run.stop_reason == "every voter of the pool is already in the ensemble (reweight=False)"
    run = QuadBoost(max_iter=4, reweight=True).start(np.hstack([Hw, -Hw]), y).run()
    assert len(run.history) == 4 and run.stop_reason == "max_iter reached (4): the paper's rule, a fixed number of iterations T = 4"
    assert not run.capped   # vanilla QuadBoost is stopped early after T steps
    # lambda above every |mu_j|: L1 stops before adding anything
    run = QuadBoost("l1", lam=1.0).start(np.hstack([Hw, -Hw]), y).run()
    assert run.history == [] and "lambda = 1" in run.stop_reason


# --------------------------------------------------------------------------- bad input

def test_pool_must_be_self_complemented():
    X, y = make_moons(n_samples=60, noise=0.3, random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    rng = np.random.default_rng(6)
    H = rng.choice([-1.0, 1.0], size=(60, 4))
    bad = [StumpPool(n_thresholds=5, complements=False).fit(X).operator(X),
           np.hstack([H, -H])[:, [0, 4, 1, 5, 2, 6, 3, 7]],     # complements interleaved
           np.hstack([H, -H[:, :3]]),                            # odd number of voters
           np.hstack([H, H])]
    for Hbad in bad:
        with pytest.raises(ParameterError, match="self-complemented"):
            QuadBoost().start(Hbad, y)
    QuadBoost().start(np.hstack([H, -H]), y)                    # the right layout is accepted


@pytest.mark.parametrize("kwargs", [
    dict(regularization="L1"), dict(regularization="l3"), dict(regularization=1),
    dict(regularization="none"),
    dict(regularization="l2", lam=0.0),                                 # lam must be > 0
    dict(regularization="l1", lam=-0.1), dict(regularization="l1", lam=float("nan")),
    dict(regularization="l2", lam=float("inf")), dict(regularization="l1", lam="0.1"),
    dict(regularization="l1", lam=True),
    dict(regularization="linf", alpha_max=0.0), dict(alpha_max=-1.0),
    dict(regularization="linf", alpha_max=float("inf")), dict(alpha_max=None),
    dict(max_iter=0), dict(max_iter=2.5), dict(max_iter=True),
    dict(reweight="yes"), dict(reweight=1),
    dict(delta=0.0), dict(delta=1.5)])
def test_bad_hyper_parameters_raise(kwargs):
    with pytest.raises(ParameterError):
        QuadBoost(**kwargs)


def test_good_hyper_parameters_are_stored():
    qb = QuadBoost("l1", lam=1e-4, alpha_max=0.5, max_iter=7, reweight=True, delta=1.0)
    assert (qb.regularization, qb.lam, qb.alpha_max, qb.max_iter, qb.reweight, qb.delta) == (
        "l1", 1e-4, 0.5, 7, True, 1.0)
    assert QuadBoost("l2", lam=1000).lam == 1000.0
    assert QuadBoost("l1").lam == 0.01 and QuadBoost("l2").lam == 1.0  # DEFAULT_LAM
    assert QuadBoost(None, lam=0.3).lam == 0.0 and QuadBoost("linf", lam=5).lam == 0.0  # unused
    assert QuadBoost("linf", alpha_max=1e-4).alpha_max == 1e-4
