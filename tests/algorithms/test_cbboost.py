"""Checks of the CB-Boost stepper (cbviz.algorithms.cbboost) against the CB-Boost paper.

Every reference number is recomputed here from the definitions, never through the module's
own helpers:

* the empirical C-bound of a vote F is ``1 - mean(y F)**2 / mean(F**2)`` (1 when the
  first moment is not positive, the documented convention) -- :func:`c_def`;
* the best weight along one voter is found numerically with
  ``scipy.optimize.minimize_scalar`` on that definition (Theorem 3 is the claim under test);
* the per-step decrease is ``C(before) - C(after)`` of that definition (Property 1);
* the best step over a set of voters (the ``eligible`` / ``reuse_voters`` rules) is a brute
  force: every voter's line searched on a geometric grid, then refined by bounded Brent;
* the authors' public code's choice (``twice_the_same``) is re-derived from its own recipe:
  the "+ sqrt" root of the quadratic that zeroes the C-bound's derivative, with its masks;
* the gradient is a central finite difference of that definition;
* Gibbs risk, disagreement and joint error come from the voters' votes and the posterior
  (masses of voters that are wrong / that vote +1 on each example), not from margins.

Tolerances: 1e-10 absolute for quantities that are the same number computed two ways
(C-bounds, decreases, weights), 1e-9 for the one-direction minimum value, rtol 1e-5 for
the argmin found by a numerical optimizer.  Every random draw has a fixed seed.
"""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from cbviz import bounds as B
from cbviz.algorithms import Candidates, CBBoost, ParameterError, Record, lockstep
from cbviz.algorithms.cbboost import CBBoostCandidates
from cbviz.algorithms.cbboost._scores import score_candidates
from cbviz.voters import RBFPool, StumpPool

TOL = 1e-10         # same number computed two ways
MIN_TOL = 1e-9      # minimum value of a one-direction problem vs scipy
ARG_RTOL = 1e-5     # argmin vs scipy (a minimizer is only known to ~sqrt(eps) from values)
# the stop reason of the paper's rule (eligible="theorem3", reuse_voters=False) and its counts
THEOREM3_STOP = ("no voter outside the vote with γ(h) > 0 lowers the C-bound along a positive "
                 "weight (Theorem 3's rule); ")
NOTHING_ELSE = "0 voters still could with eligible='all', 0 with reuse_voters=True, 0 with both"


# --------------------------------------------------------------------------- definitions

def c_def(F, y):
    """Empirical C-bound of the vote F straight from the definition."""
    F = np.asarray(F, dtype=float)
    mu1 = np.mean(y * F)
    mu2 = np.mean(F * F)
    if not mu1 > 0:
        return 1.0
    return float(1.0 - mu1 ** 2 / mu2)


def c_def_columns(Fs, y):
    """C-bound of every column of Fs (m x K), same definition, vectorized."""
    mu1 = (y @ Fs) / y.size
    mu2 = np.mean(Fs * Fs, axis=0)
    safe = np.where(mu2 > 0, mu2, 1.0)
    return np.where(mu1 > 0, 1.0 - mu1 ** 2 / safe, 1.0)


def scipy_line_min(F, h, y, upper):
    """argmin and min of alpha -> C(F + alpha h) on [0, upper], by bounded Brent."""
    res = minimize_scalar(lambda a: c_def(F + a * h, y), bounds=(0.0, upper), method="bounded",
                          options={"xatol": 1e-13 * max(1.0, upper), "maxiter": 2000})
    assert res.success
    return float(res.x), float(res.fun)


def fd_descent_rate(F, h, y, eps):
    """-dC/dt of C(F + t h) at t = 0 by central differences."""
    return -(c_def(F + eps * h, y) - c_def(F - eps * h, y)) / (2.0 * eps)


def replay_weights(records, n, upto=None):
    """Weight vector rebuilt from the chosen (index, alpha) pairs only."""
    a = np.zeros(n)
    for rec in records[:upto]:
        a[rec.index] += rec.alpha
    return a


def definitional_risks(H, y, a):
    """Gibbs risk, disagreement, joint error of Q = a / sum(a) for +-1 voters.

    r = E_Q P(h(x) != y); d = E_x[2 p(x)(1 - p(x))] with p(x) the Q-mass voting +1;
    e = E_x[w(x)^2] with w(x) the Q-mass that is wrong on x.
    """
    Q = a / a.sum()
    wrong = (H != y[:, None]).astype(float)
    r = float(np.mean(wrong @ Q))
    p_plus = (H > 0).astype(float) @ Q
    d = float(np.mean(2.0 * p_plus * (1.0 - p_plus)))
    e = float(np.mean((wrong @ Q) ** 2))
    return r, d, e


def theorem2_bound(mu1, mu2, kl, m, delta):
    """Roy et al. (2016) Theorem 2 as printed in DESIGN.md, written out."""
    log_term = math.log(2.0 * math.sqrt(m) / (delta / 2.0))
    eps1 = math.sqrt((2.0 / m) * (kl + log_term))
    eps2 = math.sqrt((2.0 / m) * (2.0 * kl + log_term))
    return 1.0 - max(0.0, mu1 - eps1) ** 2 / min(1.0, mu2 + eps2)


FLOAT_FIELDS = ("c_bound", "mu1", "mu2", "gibbs_risk", "disagreement", "joint_error",
                "train_error", "kl", "pac_bound", "first_order_bound", "pac_bound_1",
                "tandem_bound", "objective", "seconds")


def assert_records_finite(records):
    for rec in records:
        for name in FLOAT_FIELDS:
            assert np.isfinite(getattr(rec, name)), (rec.iteration, name)
        for name in ("alpha", "test_error", "predicted_decrease", "actual_decrease"):
            v = getattr(rec, name)
            assert v is None or np.isfinite(v), (rec.iteration, name)
        assert np.all(np.isfinite(rec.weights))


# --------------------------------------------------------------------------- data sets

def split_work(X, y, n_train, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], y[tr], X[te], y[te]


def cancer_data():
    X, y = load_breast_cancer(return_X_y=True)
    return split_work(X, np.where(y == 1, 1.0, -1.0), 400, seed=0)


def moons_data():
    X, y = make_moons(n_samples=400, noise=0.35, random_state=1)
    return split_work(X, np.where(y == 1, 1.0, -1.0), 300, seed=1)


def random_data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(250, 4))
    y = rng.choice([-1.0, 1.0], size=250)
    return split_work(X, y, 200, seed=2)


DATA = {"cancer": cancer_data, "moons": moons_data, "random": random_data}


def make_case(data, pool_kind):
    """dict with the run's training input, dense train/test matrices, labels, describe."""
    X, y, Xt, yt = DATA[data]()
    if pool_kind == "rbf":
        scaler = StandardScaler().fit(X)
        X, Xt = scaler.transform(X), scaler.transform(Xt)
        pool = RBFPool(n_centers=60, random_state=0).fit(X, y)
        H = pool.transform(X)
        Hfit = H
    else:
        pool = StumpPool(n_thresholds=10).fit(X)
        H = pool.transform(X)
        Hfit = pool.operator(X) if pool_kind == "stumps-op" else H
    return dict(Hfit=Hfit, H=H, Ht=pool.transform(Xt), y=y, yt=yt, describe=pool.describe)


CASES = [(d, p) for d in DATA for p in ("stumps-op", "stumps-dense", "rbf")]


@pytest.fixture(scope="module")
def cases():
    cache = {}

    def get(data, pool_kind):
        if (data, pool_kind) not in cache:
            cache[(data, pool_kind)] = make_case(data, pool_kind)
        return cache[(data, pool_kind)]
    return get


# --------------------------------------------------------------------------- Theorem 3 / Property 1

def random_direction_problem(rng, kind, m=60, n_vote=8, n_cand=40):
    """Labels, a vote F = H_v a (a >= 0) and candidate voters, +-1 or real in [-1, 1]."""
    y = rng.choice([-1.0, 1.0], size=m)
    n = n_vote + n_cand
    if kind == "pm1":
        agree = rng.uniform(0.35, 0.8, size=n)
        agree[:n_vote] = rng.uniform(0.55, 0.8, size=n_vote)    # vote voters beat chance
        H = np.where(rng.random((m, n)) < agree, y[:, None], -y[:, None])
    else:
        strength = rng.uniform(-0.3, 0.8, size=n)
        strength[:n_vote] = rng.uniform(0.2, 0.8, size=n_vote)
        amplitude = rng.uniform(0.1, 1.0, size=n)                # different nu(h)
        H = amplitude * np.tanh(strength * y[:, None] + rng.normal(0.0, 0.8, size=(m, n)))
        assert np.all(np.abs(H) <= 1.0)
    a = rng.exponential(size=n_vote) * rng.uniform(0.3, 5.0)
    a[rng.random(n_vote) < 0.3] = 0.0
    a[0] = max(a[0], 0.1)
    F = H[:, :n_vote] @ a
    return y, F, H[:, n_vote:], a.sum()


def moments_for(F, Hc, y):
    m = y.size
    return (Hc.T @ y / m, np.mean(Hc * Hc, axis=0), Hc.T @ F / m, float(y @ F) / m,
            float(F @ F) / m)


@pytest.mark.parametrize("kind", ["pm1", "real"])
def test_theorem3_weight_is_the_one_direction_minimum(kind):
    rng = np.random.default_rng(30 if kind == "pm1" else 31)
    n_valid = n_flat = 0
    for _ in range(25):
        y, F, Hc, total = random_direction_problem(rng, kind)
        gamma_h, nu_h, tau, gamma_F, nu_F = moments_for(F, Hc, y)
        if gamma_F <= 0:
            continue
        c = score_candidates(gamma_h, nu_h, tau, gamma_F, nu_F, np.zeros(Hc.shape[1], dtype=bool))
        c0 = c_def(F, y)
        upper = 1e3 * total
        for k in range(Hc.shape[1]):
            h = Hc[:, k]
            if c.valid[k]:
                n_valid += 1
                a_ref, c_ref = scipy_line_min(F, h, y, upper)
                c_code = c_def(F + c.alpha[k] * h, y)
                assert c.alpha[k] > 0
                assert c.alpha[k] == pytest.approx(a_ref, rel=ARG_RTOL), (k, c.alpha[k], a_ref)
                assert abs(c_code - c_ref) <= MIN_TOL
                assert c_code <= c_ref + 1e-12          # the closed form is at least as good
                # Property 1 (general nu(h)): exact decrease of the step
                assert abs(c.decrease[k] - (c0 - c_code)) <= MIN_TOL
                assert c.decrease[k] > 0
            elif gamma_h[k] > 0:
                # Theorem 3's "otherwise" case: no interior minimum.  Either C never goes
                # below C(0) along h, or (denominator <= 0) C only decreases toward its
                # limit at infinity and no finite weight attains the infimum.
                grid = np.concatenate([[0.0], np.geomspace(1e-6, 1e3, 300) * total])
                cs = c_def_columns(F[:, None] + grid[None, :] * h[:, None], y)
                denom = gamma_F * nu_h[k] - gamma_h[k] * tau[k]
                if denom > 0:
                    assert cs.min() >= c0 - 1e-12, k
                else:
                    n_flat += 1
                    assert np.all(np.diff(cs) <= 1e-12), k
                assert c.alpha[k] == 0 and c.decrease[k] == 0
    assert n_valid >= 200, n_valid          # the check really ran on many directions


def test_theorem3_scale_invariance_of_the_vote():
    """Scaling the vote by s scales alpha* by s and leaves the decrease unchanged."""
    rng = np.random.default_rng(32)
    y, F, Hc, _ = random_direction_problem(rng, "pm1")
    base = score_candidates(*moments_for(F, Hc, y), np.zeros(Hc.shape[1], dtype=bool))
    for s in (0.01, 7.0):
        c = score_candidates(*moments_for(s * F, Hc, y), np.zeros(Hc.shape[1], dtype=bool))
        assert np.array_equal(c.valid, base.valid)
        np.testing.assert_allclose(c.alpha, s * base.alpha, rtol=1e-12, atol=0)
        np.testing.assert_allclose(c.decrease, base.decrease, rtol=1e-10, atol=1e-14)


def test_in_vote_candidates_are_never_valid():
    rng = np.random.default_rng(33)
    y, F, Hc, _ = random_direction_problem(rng, "pm1")
    in_vote = np.zeros(Hc.shape[1], dtype=bool)
    free = score_candidates(*moments_for(F, Hc, y), in_vote)
    in_vote[np.flatnonzero(free.valid)[:3]] = True
    c = score_candidates(*moments_for(F, Hc, y), in_vote)
    assert not np.any(c.valid & in_vote)
    assert np.all(c.alpha[in_vote] == 0) and np.all(c.decrease[in_vote] == 0)


# --------------------------------------------------------------------------- whole runs

def step_and_check(run, H, y, n_steps):
    """Step a run, checking every record against the definitions; returns the records."""
    n = H.shape[1]
    first_c = None
    total_S = 0.0
    for t in range(1, n_steps + 1):
        prev = run.history[-1] if run.history else None
        rec = run.step()
        if rec is None:
            assert run.done and run.stop_reason
            break
        a = replay_weights(run.history, n)
        F = H @ a
        np.testing.assert_allclose(run.F, F, rtol=0, atol=TOL * max(1.0, a.sum()))
        np.testing.assert_allclose(run.weights, a, rtol=0, atol=TOL)
        c_now = c_def(run.F, y)
        assert abs(rec.c_bound - c_now) <= TOL
        assert rec.objective == rec.c_bound
        assert rec.iteration == t == np.count_nonzero(run.weights) == rec.n_voters
        assert rec.support.size == t and set(rec.support) == set(np.flatnonzero(a))
        err = float(np.mean(np.where(F > 0, 1.0, -1.0) != y))
        assert rec.train_error == pytest.approx(err, abs=1e-12)
        assert rec.train_error <= rec.c_bound + 1e-12          # Corollary 1
        if t == 1:
            first_c = rec.c_bound
            assert rec.predicted_decrease is None and rec.actual_decrease is None
        else:
            assert rec.predicted_decrease > 0
            assert abs(c_now - (prev.c_bound - rec.predicted_decrease)) <= TOL   # Property 1
            assert abs(rec.actual_decrease - rec.predicted_decrease) <= TOL
            assert rec.c_bound <= prev.c_bound + 1e-15
            # the recorded weight is the one-direction minimum from the previous vote
            F_prev = F - rec.alpha * H[:, rec.index]
            a_ref, c_ref = scipy_line_min(F_prev, H[:, rec.index], y, 1e3 * (a.sum() - rec.alpha))
            assert rec.alpha == pytest.approx(a_ref, rel=ARG_RTOL)
            assert abs(rec.c_bound - c_ref) <= MIN_TOL
            total_S += rec.predicted_decrease
            assert abs(rec.c_bound - (first_c - total_S)) <= 1e-9   # Corollary 2 telescoping
    assert_records_finite(run.history)
    return run.history


@pytest.mark.parametrize("direction", ["exhaustive", "gradient"])
@pytest.mark.parametrize("data,pool_kind", CASES)
def test_runs_are_consistent_with_the_definitions(cases, data, pool_kind, direction):
    case = cases(data, pool_kind)
    run = CBBoost(max_iter=25, direction=direction).start(
        case["Hfit"], case["y"], case["Ht"], case["yt"], describe=case["describe"])
    records = step_and_check(run, case["H"], case["y"], 25)
    assert len(records) >= 10                     # every case makes real progress
    assert records[-1].c_bound < records[0].c_bound


@pytest.mark.parametrize("data,pool_kind", [("cancer", "stumps-op"), ("moons", "rbf"),
                                            ("random", "stumps-dense")])
def test_best_margin_voter_first_with_weight_one(cases, data, pool_kind):
    case = cases(data, pool_kind)
    H, y = case["H"], case["y"]
    gamma = H.T @ y / y.size
    best = gamma.max()
    first_best = int(np.flatnonzero(gamma >= best - 1e-12 * abs(best))[0])
    for direction in ("exhaustive", "gradient"):
        rec = CBBoost(max_iter=3, direction=direction).start(case["Hfit"], y).step()
        assert rec.iteration == 1
        assert rec.index == first_best
        assert gamma[rec.index] == pytest.approx(best, abs=1e-12)
        assert rec.alpha == 1.0
        assert list(rec.support) == [rec.index] and list(rec.weights) == [1.0]
        assert abs(rec.c_bound - (1.0 - best ** 2 / np.mean(H[:, rec.index] ** 2))) <= TOL


@pytest.mark.parametrize("data,pool_kind", [("cancer", "stumps-op"), ("moons", "rbf"),
                                            ("random", "stumps-dense")])
def test_exhaustive_versus_gradient_from_the_same_state(cases, data, pool_kind):
    case = cases(data, pool_kind)
    H, y = case["H"], case["y"]
    rng = np.random.default_rng(40)
    run = CBBoost(max_iter=10, direction="exhaustive").start(case["Hfit"], y)
    run.step()
    n_checked = 0
    while not run.done:
        c = run.candidates()
        F = run.F.copy()
        in_vote = run.weights > 0
        valid = c.valid
        assert not np.any(valid & in_vote)
        # decreases of every candidate recomputed from the definition
        dec_def = c_def(F, y) - c_def_columns(F[:, None] + H * c.alpha[None, :], y)
        np.testing.assert_allclose(dec_def[valid], c.decrease[valid], rtol=0, atol=TOL)
        ex, gr = c.exhaustive_pick, c.gradient_pick
        assert valid[ex] and valid[gr]
        assert dec_def[ex] >= dec_def[valid].max() - 1e-12
        assert c.gradient[gr] >= c.gradient[valid].max() * (1 - 1e-12)
        assert dec_def[ex] >= dec_def[gr] - 1e-12          # exhaustive >= gradient
        # gradient score == finite-difference descent rate -dC/da_k at a_k = 0
        out = np.flatnonzero(~in_vote)
        picks = set(rng.choice(out, size=4, replace=False).tolist()) | {ex, gr}
        eps = 1e-6 * max(1.0, run.weights.sum())
        for k in picks:
            fd = fd_descent_rate(F, H[:, k], y, eps)
            assert c.gradient[k] == pytest.approx(fd, rel=1e-5, abs=1e-8), k
            n_checked += 1
        rec = run.step()
        if rec is not None:
            assert rec.index == ex and rec.alpha == c.alpha[ex]
    assert n_checked >= 20


def test_gradient_run_follows_its_own_rule(cases):
    case = cases("moons", "stumps-op")
    run = CBBoost(max_iter=8, direction="gradient").start(case["Hfit"], case["y"])
    run.step()
    while True:
        c = run.candidates()
        rec = run.step()
        if rec is None:
            break
        assert rec.index == c.gradient_pick and rec.alpha == c.alpha[c.gradient_pick]
        assert rec.predicted_decrease == c.decrease[c.gradient_pick]


@pytest.mark.parametrize("n_thresholds", [10, "all"])
@pytest.mark.parametrize("direction", ["exhaustive", "gradient"])
def test_fast_operator_and_dense_matrix_make_the_same_run(n_thresholds, direction):
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    pool = StumpPool(n_thresholds=n_thresholds).fit(X)
    runs = [CBBoost(max_iter=30, direction=direction).start(M, y).run()
            for M in (pool.operator(X), pool.transform(X))]
    fast, dense = runs
    assert len(fast.history) == len(dense.history) == 30
    assert [r.index for r in fast.history] == [r.index for r in dense.history]
    np.testing.assert_allclose([r.alpha for r in fast.history], [r.alpha for r in dense.history],
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(fast.weights, dense.weights, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose([r.c_bound for r in fast.history],
                               [r.c_bound for r in dense.history], rtol=0, atol=TOL)


# --------------------------------------------------------------------------- bounds in records

def test_record_bounds_recomputed_from_definitions(cases):
    case = cases("cancer", "stumps-op")
    H, y, Ht, yt = case["H"], case["y"], case["Ht"], case["yt"]
    m, n = H.shape
    delta = 0.1
    run = CBBoost(max_iter=20, delta=delta).start(case["Hfit"], y, Ht, yt).run()
    assert len(run.history) == 20
    for rec in run.history:
        a = replay_weights(run.history, n, rec.iteration)
        M = y * (H @ a) / a.sum()
        mu1, mu2 = M.mean(), np.mean(M * M)
        assert abs(rec.mu1 - mu1) <= 1e-12 and abs(rec.mu2 - mu2) <= 1e-12
        r, d, e = definitional_risks(H, y, a)
        assert abs(rec.gibbs_risk - r) <= 1e-12
        assert abs(rec.disagreement - d) <= 1e-12
        assert abs(rec.joint_error - e) <= 1e-12
        assert abs(e - (r - d / 2)) <= 1e-12
        # the three forms of the C-bound agree
        assert abs(rec.c_bound - (1 - (1 - 2 * r) ** 2 / (1 - 2 * d))) <= TOL
        assert abs(rec.c_bound - (e - r ** 2) / (e - r + 0.25)) <= TOL
        # KL to the uniform prior from the record's own weights
        q = rec.weights / rec.weights.sum()
        kl = math.log(n) + float(np.sum(q * np.log(q)))
        assert abs(rec.kl - kl) <= 1e-12
        assert abs(rec.pac_bound - theorem2_bound(mu1, mu2, kl, m, delta)) <= 1e-9
        assert abs(rec.first_order_bound - B.first_order_bound(r, kl, m, delta)) <= 1e-9
        assert abs(rec.pac_bound_1 - B.pac_bound_1(r, d, kl, m, delta)) <= 1e-9
        assert abs(rec.tandem_bound - B.tandem_bound(e, kl, m, delta)) <= 1e-9
        # test error from the vote on the test matrix
        Ft = run.decision_function(Ht, iteration=rec.iteration)
        np.testing.assert_allclose(Ft, Ht @ a, rtol=0, atol=TOL * a.sum())
        assert rec.test_error == pytest.approx(np.mean(np.where(Ft > 0, 1.0, -1.0) != yt),
                                               abs=1e-15)


def test_no_test_data_means_no_test_error(cases):
    case = cases("moons", "stumps-dense")
    run = CBBoost(max_iter=3).start(case["H"], case["y"]).run()
    assert all(r.test_error is None for r in run.history)


# --------------------------------------------------------------------------- history API

def test_weights_at_and_decision_function(cases):
    case = cases("moons", "stumps-op")
    H, y = case["H"], case["y"]
    n = H.shape[1]
    Hnew = np.random.default_rng(50).choice([-1.0, 1.0], size=(17, n))
    run = CBBoost(max_iter=12).start(case["Hfit"], y)
    assert np.array_equal(run.weights_at(), np.zeros(n))
    run.run()
    T = len(run.history)
    for t in range(1, T + 1):
        a = replay_weights(run.history, n, t)
        np.testing.assert_allclose(run.weights_at(t), a, rtol=0, atol=1e-14)
        np.testing.assert_allclose(run.decision_function(Hnew, iteration=t), Hnew @ a,
                                   rtol=0, atol=TOL)
    np.testing.assert_array_equal(run.weights_at(), run.weights_at(T))
    np.testing.assert_array_equal(run.weights, run.weights_at(T))
    np.testing.assert_allclose(run.decision_function(Hnew), Hnew @ run.weights, atol=TOL)
    np.testing.assert_allclose(run.decision_function(case["Hfit"], iteration=3),
                               H @ replay_weights(run.history, n, 3), atol=TOL)
    # weights is a copy
    w = run.weights
    w[:] = 5.0
    assert not np.any(run.weights == 5.0)
    for bad in (0, T + 1, -1):
        with pytest.raises(ParameterError):
            run.weights_at(bad)
    with pytest.raises(ParameterError):
        run.decision_function(Hnew[:, :-1])


DOCUMENTED_COLUMNS = {
    "iteration", "index", "label", "alpha", "n_voters", "c_bound", "mu1", "mu2",
    "gibbs_risk", "disagreement", "joint_error", "train_error", "test_error", "kl",
    "pac_bound", "first_order_bound", "pac_bound_1", "tandem_bound", "objective", "seconds",
    "predicted_decrease", "actual_decrease"}


def test_to_frame(cases):
    case = cases("cancer", "stumps-op")
    run = CBBoost(max_iter=7).start(case["Hfit"], case["y"], case["Ht"], case["yt"],
                                    describe=case["describe"]).run()
    df = run.to_frame()
    assert len(df) == len(run.history) == 7
    assert DOCUMENTED_COLUMNS <= set(df.columns)
    assert not {"support", "weights", "extra", "candidates"} & set(df.columns)
    assert list(df["iteration"]) == list(range(1, 8))
    for row, rec in zip(df.to_dict("records"), run.history):
        for col in DOCUMENTED_COLUMNS:
            v = getattr(rec, col)
            if v is None:
                assert row[col] is None or (isinstance(row[col], float) and math.isnan(row[col]))
            else:
                assert row[col] == v, col
        assert rec.label == case["describe"](rec.index)


def test_records_are_immutable(cases):
    case = cases("moons", "stumps-op")
    run = CBBoost(max_iter=5, keep_candidates=True).start(case["Hfit"], case["y"])
    first = run.step()
    assert isinstance(first, Record)
    assert dataclasses.is_dataclass(first) and type(first).__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.c_bound = 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.weights = np.ones(1)
    for arr in (first.weights, first.support):
        assert not arr.flags.writeable
        with pytest.raises(ValueError):
            arr[0] = 7
    run.run()
    # later steps do not touch earlier records
    assert list(first.weights) == [1.0] and first.support.size == 1
    rec = run.history[-1]
    assert not rec.weights.flags.writeable
    assert type(rec.candidates).__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.candidates.alpha = None


@pytest.mark.parametrize("keep", [True, False])
def test_keep_candidates(cases, keep):
    case = cases("moons", "rbf")
    H, y = case["H"], case["y"]
    m, n = H.shape
    run = CBBoost(max_iter=8, keep_candidates=keep).start(case["Hfit"], y).run()
    assert run.history[0].candidates is None        # the first step has no candidates
    for rec in run.history[1:]:
        if not keep:
            assert rec.candidates is None
            continue
        c = rec.candidates
        assert isinstance(c, Candidates)
        for arr in (c.gradient, c.decrease, c.alpha, c.valid):
            assert arr.shape == (n,)
        assert c.valid.dtype == bool
        assert rec.index == c.exhaustive_pick
        assert rec.alpha == c.alpha[rec.index]
        again = run.candidates(iteration=rec.iteration - 1)
        np.testing.assert_array_equal(again.valid, c.valid)
        np.testing.assert_allclose(again.alpha, c.alpha, rtol=1e-12, atol=0)
        np.testing.assert_allclose(again.decrease, c.decrease, rtol=1e-10, atol=1e-15)


# --------------------------------------------------------------------------- direction curve

@pytest.mark.parametrize("data,pool_kind,direction", [("cancer", "stumps-op", "exhaustive"),
                                                      ("moons", "rbf", "gradient")])
def test_direction_curve(cases, data, pool_kind, direction):
    case = cases(data, pool_kind)
    H, y = case["H"], case["y"]
    n = H.shape[1]
    run = CBBoost(max_iter=10, direction=direction).start(case["Hfit"], y,
                                                         describe=case["describe"]).run()
    T = len(run.history)
    for t in range(2, T + 1):
        rec = run.history[t - 1]
        dc = run.direction_curve(t)
        assert dc.index == rec.index and dc.label == rec.label
        assert dc.alpha_star == pytest.approx(rec.alpha, rel=1e-12)
        assert abs(dc.c_star - rec.c_bound) <= TOL
        assert abs(dc.c_now - run.history[t - 2].c_bound) <= TOL
        assert dc.c_values.min() >= dc.c_star - 1e-12
        assert dc.alphas[0] == 0.0 and dc.alphas[-1] > dc.alpha_star
        F_prev = H @ replay_weights(run.history, n, t - 1)
        ref = c_def_columns(F_prev[:, None] + dc.alphas[None, :] * H[:, rec.index][:, None], y)
        np.testing.assert_allclose(dc.c_values, ref, rtol=0, atol=TOL)
    last = run.direction_curve()
    assert last.index == run.history[-1].index
    # another voter's curve, from the vote before the last step
    other = run.direction_curve(T, index=run.history[0].index)     # already in the vote
    assert other.alpha_star is None and other.c_star is None
    with pytest.raises(ParameterError):
        run.direction_curve(1)
    for bad in (0, T + 1):
        with pytest.raises(ParameterError):
            run.direction_curve(bad)


def test_direction_curve_needs_a_vote():
    y = np.array([1.0, -1.0, 1.0, 1.0])
    run = CBBoost().start(np.column_stack([y, -y]), y)
    with pytest.raises(ParameterError):
        run.direction_curve()
    with pytest.raises(ParameterError):
        run.candidates()


# --------------------------------------------------------------------------- lockstep

LOCKSTEP_COLUMNS = ["iteration", "exhaustive_index", "exhaustive_label", "gradient_index",
                    "gradient_label", "agree", "gradient_from_exhaustive_state",
                    "exhaustive_c_bound", "gradient_c_bound"]


@pytest.mark.parametrize("data,pool_kind", [("cancer", "stumps-op"), ("moons", "rbf")])
def test_lockstep(cases, data, pool_kind):
    case = cases(data, pool_kind)
    y = case["y"]
    ex, gr, table = lockstep(case["Hfit"], y, max_iter=15, H_test=case["Ht"], y_test=case["yt"],
                             describe=case["describe"])
    assert ex.direction == "exhaustive" and gr.direction == "gradient"
    assert set(LOCKSTEP_COLUMNS) <= set(table.columns)
    assert len(table) == max(len(ex.history), len(gr.history))
    assert list(table["iteration"]) == list(range(1, len(table) + 1))
    first = table.iloc[0]
    assert bool(first["agree"]) and first["exhaustive_index"] == first["gradient_index"]
    assert first["exhaustive_c_bound"] == first["gradient_c_bound"]
    # iteration 2 starts from the same vote: the exhaustive step is at least as good, and
    # the gradient choice "from the exhaustive state" is the gradient run's own choice
    second = table.iloc[1]
    assert second["exhaustive_c_bound"] <= second["gradient_c_bound"] + 1e-12
    assert second["gradient_from_exhaustive_state"] == second["gradient_index"]
    for i, rec in enumerate(ex.history):
        row = table.iloc[i]
        assert row["exhaustive_index"] == rec.index
        assert row["exhaustive_c_bound"] == rec.c_bound
        if i > 0:   # the record keeps the picks, not every candidate's scores
            assert rec.candidates is None
            assert row["gradient_from_exhaustive_state"] == rec.extra["gradient_pick"]
            assert row["gradient_from_exhaustive_state"] == ex.candidates(iteration=i).gradient_pick
    for i, rec in enumerate(gr.history):
        assert table.iloc[i]["gradient_index"] == rec.index
        assert table.iloc[i]["gradient_c_bound"] == rec.c_bound
    # each run is individually consistent, and equals a run started on its own
    for run in (ex, gr):
        alone = CBBoost(max_iter=15, direction=run.direction).start(case["Hfit"], y).run()
        assert [r.index for r in alone.history] == [r.index for r in run.history]
        cs = [r.c_bound for r in run.history]
        assert all(b <= a + 1e-15 for a, b in zip(cs, cs[1:]))
        for prev, rec in zip(run.history, run.history[1:]):
            assert abs(rec.c_bound - (prev.c_bound - rec.predicted_decrease)) <= TOL
        assert abs(c_def(run.F, y) - cs[-1]) <= TOL
        assert_records_finite(run.history)


# --------------------------------------------------------------------------- degenerate inputs

def run_to_end(H, y, **kw):
    run = CBBoost(**kw).start(H, y)
    run.run()
    assert run.done and isinstance(run.stop_reason, str) and run.stop_reason
    assert run.step() is None                 # stepping a finished run is a no-op
    assert_records_finite(run.history)
    return run


def test_identical_voters_stop_after_one():
    rng = np.random.default_rng(60)
    y = rng.choice([-1.0, 1.0], size=40)
    h = np.where(rng.random(40) < 0.7, y, -y)
    run = run_to_end(np.tile(h[:, None], (1, 6)), y)
    assert len(run.history) == 1 and run.history[0].index == 0
    assert run.stop_reason == THEOREM3_STOP + NOTHING_ELSE
    # real-valued identical voters (round-off in the moments must not create a step)
    hr = 0.37 * np.tanh(y + rng.normal(size=40))
    run = run_to_end(np.tile(hr[:, None], (1, 6)), y)
    assert len(run.history) == 1
    assert run.stop_reason == THEOREM3_STOP + NOTHING_ELSE


def test_perfect_voter_gives_zero_c_bound_then_stops():
    rng = np.random.default_rng(61)
    y = rng.choice([-1.0, 1.0], size=30)
    H = np.column_stack([rng.choice([-1.0, 1.0], size=(30, 3)), y, -y])
    run = run_to_end(H, y)
    assert len(run.history) == 1
    rec = run.history[0]
    assert rec.index == 3 and rec.c_bound == 0.0 and rec.train_error == 0.0
    assert 0.0 <= rec.pac_bound <= 1.0
    assert run.stop_reason == THEOREM3_STOP + NOTHING_ELSE
    # the same through a stump pool on separable 1-D data
    X = np.linspace(0.0, 1.0, 25)[:, None]
    ys = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    pool = StumpPool("all").fit(X)
    run = run_to_end(pool.operator(X), ys)
    assert len(run.history) == 1 and run.history[0].c_bound == 0.0
    assert run.stop_reason == THEOREM3_STOP + NOTHING_ELSE


def test_single_feature():
    rng = np.random.default_rng(62)
    X = rng.normal(size=(80, 1))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=80) > 0, 1.0, -1.0)
    pool = StumpPool(n_thresholds=10).fit(X)
    run = CBBoost(max_iter=50).start(pool.operator(X), y)
    step_and_check(run, pool.transform(X), y, 50)
    run.run()
    assert run.done and run.stop_reason


def test_two_examples():
    # opposite labels: the stump between them is perfect
    X = np.array([[0.0], [1.0]])
    y = np.array([-1.0, 1.0])
    run = run_to_end(StumpPool("all").fit(X).operator(X), y)
    assert len(run.history) == 1 and run.history[0].c_bound == 0.0
    # same label: the stump and its complement both have zero margin
    run = run_to_end(StumpPool("all").fit(X).operator(X), np.array([1.0, 1.0]))
    assert run.history == [] and "positive margin" in run.stop_reason
    # a +-1 pool on two examples: a perfect voter (column 2) and weaker ones
    H = np.array([[-1.0, 1.0, 1.0, 1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0, 1.0, -1.0]])
    run = run_to_end(H, np.array([1.0, -1.0]))
    assert [r.index for r in run.history] == [2] and run.history[0].c_bound == 0.0
    assert run.stop_reason == THEOREM3_STOP + NOTHING_ELSE
    # two examples, real-valued voters: the run must still end cleanly
    Hr = np.array([[0.9, 0.2, -0.4, 0.5], [-0.3, -0.8, 0.1, 0.5]])
    run = run_to_end(Hr, np.array([1.0, -1.0]))
    step_and_check(CBBoost().start(Hr, np.array([1.0, -1.0])), Hr, np.array([1.0, -1.0]), 10)


@pytest.mark.parametrize("kind", ["negative", "zero", "zeros"])
def test_no_positive_margin_voter_stops_at_once(kind):
    rng = np.random.default_rng(64)
    y = rng.choice([-1.0, 1.0], size=20)
    if kind == "negative":
        H = np.column_stack([-y, np.where(rng.random(20) < 0.2, y, -y)])
    elif kind == "zero":
        y = np.array([1.0, -1.0] * 10)
        H = np.ones((20, 3))
    else:
        H = np.zeros((20, 4))
    run = CBBoost().start(H, y)
    assert run.step() is None
    assert run.done and run.history == []
    assert "positive margin" in run.stop_reason
    assert run.step() is None
    assert run.to_frame().empty
    assert np.array_equal(run.weights_at(), np.zeros(H.shape[1]))


def test_max_iter_reached():
    case = make_case("moons", "stumps-op")
    run = CBBoost(max_iter=3).start(case["Hfit"], case["y"])
    run.run()
    assert len(run.history) == 3
    assert run.stop_reason.startswith("max_iter reached")
    assert run.step() is None and len(run.history) == 3
    calls = []
    CBBoost(max_iter=4).start(case["Hfit"], case["y"]).run(callback=calls.append)
    assert [r.iteration for r in calls] == [1, 2, 3, 4]


# --------------------------------------------------------------------------- bad parameters

def _ok_data():
    rng = np.random.default_rng(70)
    y = rng.choice([-1.0, 1.0], size=12)
    H = rng.choice([-1.0, 1.0], size=(12, 5))
    return H, y


@pytest.mark.parametrize("kwargs", [dict(max_iter=0), dict(max_iter=-3), dict(max_iter=2.5),
                                    dict(max_iter=True), dict(direction="x"),
                                    dict(direction=None), dict(delta=0), dict(delta=0.0),
                                    dict(delta=1.5), dict(delta=-0.1), dict(delta="0.05")])
def test_bad_hyper_parameters_raise(kwargs):
    with pytest.raises(ParameterError):
        CBBoost(**kwargs)


def test_delta_one_is_allowed():
    H, y = _ok_data()
    CBBoost(delta=1.0).start(H, y).run()


def test_bad_inputs_raise():
    H, y = _ok_data()
    est = CBBoost()
    with pytest.raises(ParameterError):
        est.start(H, (y + 1) / 2)                  # {0, 1} labels
    with pytest.raises(ParameterError):
        est.start(H, 2 * y)                        # {-2, 2}
    with pytest.raises(ParameterError):
        est.start(H, y, H_test=H)                  # H_test without y_test
    with pytest.raises(ParameterError):
        est.start(H, y, y_test=y)                  # y_test without H_test
    with pytest.raises(ParameterError):
        est.start(H, y[:-1])                       # y too short
    with pytest.raises(ParameterError):
        est.start(H, np.concatenate([y, [1.0]]))   # y too long
    with pytest.raises(ParameterError):
        est.start(H, y[:, None])                   # y 2-D
    with pytest.raises(ParameterError):
        est.start(H, y, H[:, :-1], y)              # test voters != train voters
    with pytest.raises(ParameterError):
        est.start(H, y, H, y[:-1])                 # y_test length != H_test rows
    with pytest.raises(ParameterError):
        est.start(H, y, H, (y + 1) / 2)            # bad test labels
    with pytest.raises(ParameterError):
        est.start(np.zeros((12, 0)), y)            # empty pool
    assert issubclass(ParameterError, ValueError)


# --------------------------------------------------------------------------- found bugs

def test_stop_reason_names_the_positive_margin_restriction():
    """CB-Boost searches only Theorem 3's directions (gamma(h) > 0) and says so when it stops:
    a zero-margin voter could still lower the C-bound, so the plain claim would be false."""
    # Minimal case: 4 examples, 2 voters.  Voter 1 always votes -1 (gamma = 0.5) and is
    # picked first (C = 0.75).  Voter 0 has gamma = 0, yet C(h1 + 0.5 h0) = 2/3 < 0.75.
    y = np.array([1.0, -1.0, -1.0, -1.0])
    H = np.array([[1.0, -1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, -1.0]])
    assert c_def(H[:, 1] + 0.5 * H[:, 0], y) == pytest.approx(2.0 / 3.0)
    run = CBBoost(max_iter=10).start(H, y).run()
    assert [r.index for r in run.history] == [1]
    assert run.stop_reason == THEOREM3_STOP + ("1 voter still could with eligible='all', "
                                               "0 with reuse_voters=True, 1 with both")
    grid = np.geomspace(1e-4, 1e4, 2001)
    for k in np.flatnonzero((run.weights == 0) & (H.T @ y > 0)):
        cs = c_def_columns(run.F[:, None] + grid[None, :] * H[:, k][:, None], y)
        assert cs.min() >= run.history[-1].c_bound - 1e-12, (k, cs.min())


def test_stop_reason_holds_for_positive_margin_voters_on_breast_cancer(cases):
    case = cases("cancer", "stumps-dense")
    H, y = case["H"], case["y"]
    run = CBBoost(max_iter=1000).start(H, y).run()
    assert run.stop_reason.startswith(THEOREM3_STOP)
    grid = np.geomspace(1e-4, 1e2, 300)
    best = run.history[-1].c_bound
    for k in np.flatnonzero((run.weights == 0) & (H.T @ y > 0)):
        cs = c_def_columns(run.F[:, None] + grid[None, :] * H[:, k][:, None], y)
        best = min(best, cs.min())
    assert best >= run.history[-1].c_bound - 1e-12, (run.history[-1].c_bound, best)


# --------------------------------------------------------------------------- scale of the outputs
# Scaling every output by s > 0 scales F, gamma, tau, numer, denom homogeneously: the same
# voters, the same weights, the same C-bounds.  Powers of two scale exactly (bit for bit).

SCALES = [1e-14, 1e-100, 1e-200, 2.0**-600, 2.0**-900]


def _exact(s):
    return math.frexp(s)[0] == 0.5


def _same(got, want, exact):
    if exact:
        assert got == want
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("direction", ["exhaustive", "gradient"])
@pytest.mark.parametrize("pool_kind", ["stumps-dense", "rbf"])
def test_runs_are_invariant_to_the_scale_of_the_outputs(cases, pool_kind, direction):
    """A run on s H takes the voters of the run on H with the same weights, decreases and
    C-bounds (1e-9 relative; bit for bit when s is a power of two, the scaled arithmetic
    being exact), and so do its candidates' scores (those that are round-off to 1e-12 of the
    largest) and direction curves.  It used to record C = 1 at
    s = 1e-14 (absolute round-off threshold on the first moment), to stop after one step at
    s = 1e-100 (Theorem 3's numerator squared underflowed) and to raise ZeroDivisionError
    below ~1e-162 (nu(F) = 0)."""
    case = cases("cancer", pool_kind)
    H, y = case["H"], case["y"]
    start = CBBoost(max_iter=10, direction=direction, keep_candidates=True).start
    ref = start(H, y).run()
    assert len(ref.history) == 10
    for s in SCALES:
        run = start(H * s, y).run()
        assert [r.index for r in run.history] == [r.index for r in ref.history], s
        assert run.stop_reason == ref.stop_reason
        for got, want in zip(run.history, ref.history):
            for name in ("c_bound", "alpha", "predicted_decrease", "actual_decrease"):
                if getattr(want, name) is not None:
                    _same(getattr(got, name), getattr(want, name), _exact(s))
            # the rule-free scores (a zero gamma(h) of H may be +-1e-31 in s H: Theorem 3's
            # rule may admit other voters)
            for name in ("gradient", "best_decrease", "best_alpha"):
                if want.candidates is not None:   # round-off scores: 1e-12 of the largest
                    ref_values = getattr(want.candidates, name)
                    atol = 0 if _exact(s) else 1e-12 * np.max(np.abs(ref_values))
                    np.testing.assert_allclose(getattr(got.candidates, name), ref_values,
                                               rtol=0 if _exact(s) else 1e-9, atol=atol)
        curve, want = run.direction_curve(5), ref.direction_curve(5)
        _same(curve.alpha_star, want.alpha_star, _exact(s))
        np.testing.assert_allclose(curve.c_values, want.c_values, rtol=0,
                                   atol=0 if _exact(s) else 1e-12)


def test_a_vote_with_subnormal_margins_is_not_recorded(cases):
    """Outputs at 2^-1000 or 1e-310 (subnormal): the first step's vote F = h is exact and
    recorded with the unscaled run's C-bound (bit for bit at 2^-1000; at 1e-310 the outputs
    are +-1e-310 rounded, whose ratio mu1^2 / mu2 rounds differently: 1e-15); the next would
    have margins below tiny / eps (~1e-292), where F = H a is rounded to absolute steps of
    2^-1074, so the run stops and says so."""
    case = cases("cancer", "stumps-dense")
    H, y = case["H"], case["y"]
    ref = CBBoost(max_iter=5).start(H, y).run()
    for s in (2.0**-1000, 1e-310):
        run = CBBoost(max_iter=5).start(H * s, y).run()
        assert [r.index for r in run.history] == [ref.history[0].index]
        assert run.history[0].c_bound == pytest.approx(ref.history[0].c_bound,
                                                       rel=0 if _exact(s) else 1e-15)
        assert run.stop_reason.startswith(f"the next step (voter {ref.history[1].index}, weight ")
        assert "the rounding of subnormal floats is no longer negligible" in run.stop_reason


# --------------------------------------------------------------------------- rules (issue #10)

RULES = [(e, r) for e in ("theorem3", "all") for r in (False, True)]
EPS = np.finfo(float).eps
LOWER_TOL = 64 * EPS  # "lowers the C-bound": a decrease above the float C-bound's round-off


@pytest.fixture(scope="module")
def recipe():
    """Breast cancer, half/half split (seed 42), 10-threshold stumps with complements."""
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    X, _, y, _ = train_test_split(X, y, test_size=0.5, random_state=42)
    pool = StumpPool(n_thresholds=10).fit(X)
    return pool.operator(X), pool.transform(X), y


def argmin_rtol(decrease):
    """Relative tolerance on a minimizer found from values: they pin it down only to about
    sqrt(eps / decrease), so a flat minimum (tiny decrease) has a loose argmin (its value is
    then the real check)."""
    return max(ARG_RTOL, 10 * math.sqrt(EPS / decrease))


def small_pool():
    """Moons, 3 thresholds per feature with complements: 12 voters, every rule stops."""
    X, y, _, _ = moons_data()
    pool = StumpPool(n_thresholds=3).fit(X)
    return pool.transform(X), y


def brute_line_min(F, h, y, total):
    """(alpha, C) of the best C(F + alpha h) over alpha > 0: geometric grid, then bounded
    Brent between the best grid point's neighbours."""
    grid = np.geomspace(1e-8, 1e4, 481) * total
    cs = c_def_columns(F[:, None] + grid[None, :] * h[:, None], y)
    i = int(np.argmin(cs))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    res = minimize_scalar(lambda a: c_def(F + a * h, y), bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-13 * hi, "maxiter": 2000})
    return (float(res.x), float(res.fun)) if res.fun < cs[i] else (float(grid[i]), float(cs[i]))


def brute_decreases(H, y, a):
    """Best C-bound decrease along alpha > 0 (and its alpha) for every voter from the vote H a
    (floats: resolves decreases down to ~1e-12)."""
    F = H @ a
    c0 = c_def(F, y)
    best = [brute_line_min(F, H[:, k], y, a.sum()) for k in range(H.shape[1])]
    return np.array([c0 - c for _, c in best]), np.array([al for al, _ in best])


def exact_decreases(H, y, a):
    """Best C-bound decrease along alpha > 0 (and its alpha) for every +-1 voter from the vote
    ``H a``, in exact rational arithmetic: decreases far below the float C-bound's round-off
    (the module's 64 eps floor) are resolved.

    With sums over the sample (scale-free), ``C(alpha) = 1 - (G + alpha g)^2 / (m (N + 2 alpha
    T + alpha^2 n))`` while ``G + alpha g > 0`` and 1 after.  The gain ``C(0) - C(alpha)`` is
    exact for any float alpha; a geometric grid (ratio 1.8) then bounded Brent on the float
    of the exact gain (full relative precision of the gain itself) find its maximum.
    """
    m = y.size
    yi = [int(v) for v in y]
    F = [sum((Fraction(float(w)) if h > 0 else -Fraction(float(w)))
             for h, w in zip(row, a) if w) for row in H]
    G = sum(v * f for v, f in zip(yi, F))
    N = sum(f * f for f in F)
    total = float(a.sum())
    grid = np.geomspace(1e-12, 1e6, 73) * total
    decreases, alphas = [], []
    for k in range(H.shape[1]):
        h = [int(v) for v in H[:, k]]
        g = sum(v * t for v, t in zip(yi, h))
        n = sum(t * t for t in h)
        T = sum(t * f for t, f in zip(h, F))

        def gain(alpha, g=g, n=n, T=T):
            al = Fraction(float(alpha))
            first = G + al * g
            if first <= 0:
                return -G * G / (m * N)                      # C(alpha) = 1
            return (first * first / (N + 2 * al * T + al * al * n) - G * G / N) / m

        gains = [gain(al) for al in grid]
        i = int(np.argmax([float(v) for v in gains]))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        res = minimize_scalar(lambda al: -float(gain(al)), bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-14 * hi, "maxiter": 2000})
        best, al_best = max((gains[i], grid[i]), (gain(res.x), res.x))
        decreases.append(float(best))
        alphas.append(float(al_best))
    return np.array(decreases), np.array(alphas)


def authors_choice(H, y, F, chosen, twice_the_same):
    """The voter and weight the authors' public CB-Boost code picks from the vote F.

    Re-derived from its recipe for +-1 voters: with sums over the sample ``s = sum y h``,
    the C-bound along h is ``1 - (A2 x^2 + A1 x + A0) / (m (B2 x^2 + B1 x + B0))``; it takes
    the "+ sqrt" root of ``C2 x^2 + C1 x + C0 = 0`` (the zero of the derivative's numerator),
    masks voters with ``s <= 0``, a negative or NaN root, a root where C(x) >= C(x + 1), and
    (without ``twice_the_same``) voters already chosen; then the smallest C-bound.
    """
    m = y.size
    s, g = y @ H, y @ F
    A2, A1, A0 = s**2, 2 * s * g, g**2
    B2, B1, B0 = m, 2 * (F @ H), F @ F
    C2, C1, C0 = A1 * B2 - A2 * B1, 2 * (A0 * B2 - A2 * B0), A0 * B1 - A1 * B0
    with np.errstate(all="ignore"):
        x = np.where(C2 != 0, (-C1 + np.sqrt(C1**2 - 4 * C2 * C0)) / (2 * C2), -3.0)

        def c_of(t):
            return 1 - (A2 * t**2 + A1 * t + A0) / (m * (B2 * t**2 + B1 * t + B0))
        c, c_next = c_of(x), c_of(x + 1)
    masked = (c >= c_next) | (s <= 0) | (x < 0) | np.isnan(c)
    if not twice_the_same:
        masked[chosen] = True
    k = int(np.argmin(np.where(masked, np.inf, c)))
    return k, float(x[k]), float(c[k])


def test_reuse_voters_on_the_recipe(recipe):
    """Every step is the exact line minimum along its voter (scipy), chosen again or not."""
    Hop, H, y = recipe
    n = H.shape[1]
    run = CBBoost(max_iter=30, reuse_voters=True).start(Hop, y).run()
    assert len(run.history) == 30
    seen = {run.history[0].index}
    for prev, rec in zip(run.history, run.history[1:]):
        a = replay_weights(run.history, n, rec.iteration)
        assert rec.extra["reused"] == (rec.index in seen)
        seen.add(rec.index)
        assert rec.n_voters == len(seen) == np.count_nonzero(a)
        assert rec.c_bound <= prev.c_bound + 1e-15
        assert abs(rec.c_bound - c_def(H @ a, y)) <= TOL
        assert abs(rec.actual_decrease - rec.predicted_decrease) <= TOL
        assert abs(rec.c_bound - (prev.c_bound - rec.predicted_decrease)) <= TOL
        F_prev = H @ (a - rec.alpha * (np.arange(n) == rec.index))
        a_ref, c_ref = scipy_line_min(F_prev, H[:, rec.index], y, 1e3 * (a.sum() - rec.alpha))
        assert rec.alpha == pytest.approx(a_ref, rel=ARG_RTOL)
        assert abs(rec.c_bound - c_ref) <= MIN_TOL
    n_reused = sum(r.extra["reused"] for r in run.history)
    assert n_reused >= 3 and len(seen) == 30 - n_reused
    # the one-direction curve of a reused voter: its minimum is the step taken
    t = next(r.iteration for r in run.history if r.extra["reused"])
    dc = run.direction_curve(t)
    assert dc.alpha_star == pytest.approx(run.history[t - 1].alpha, rel=1e-12)
    assert abs(dc.c_star - run.history[t - 1].c_bound) <= TOL
    np.testing.assert_allclose(run.weights, replay_weights(run.history, n), rtol=0, atol=TOL)
    # reuse can only help from the same vote: it searches a superset of directions
    plain = CBBoost(max_iter=30).start(Hop, y).run()
    assert run.history[-1].c_bound < plain.history[-1].c_bound


@pytest.mark.parametrize("twice_the_same", [True, False])
def test_the_authors_code_trajectory(recipe, twice_the_same):
    Hop, H, y = recipe
    run = CBBoost(max_iter=30, reuse_voters=twice_the_same).start(Hop, y).run()
    first = run.history[0].index
    assert first == int(np.argmax(y @ H))
    F, chosen = H[:, first].copy(), [first]
    for rec in run.history[1:]:
        k, alpha, c = authors_choice(H, y, F, chosen, twice_the_same)
        # the same voter (or one identical to it on the sample), weight and C-bound
        assert np.array_equal(H[:, k], H[:, rec.index]), rec.iteration
        assert rec.alpha == pytest.approx(alpha, rel=1e-9)
        assert abs(rec.c_bound - c) <= 1e-10
        F += alpha * H[:, k]
        chosen.append(k)
    assert (len(set(chosen)) < len(chosen)) == twice_the_same


@pytest.mark.parametrize("kind", ["pm1", "real"])
def test_exact_decrease_for_every_sign_of_the_margin(kind):
    """The closed form is the exact best step along alpha > 0 for gamma(h) <= 0 too; where it
    gives none, the C-bound never drops, or drops only as alpha grows without bound."""
    rng = np.random.default_rng(34 if kind == "pm1" else 35)
    n_neg = n_unbounded = 0
    for _ in range(25):
        y, F, Hc, total = random_direction_problem(rng, kind)
        # plus voters far better than the vote (small for real voters): C may fall toward
        # their own C-bound only as their weight grows without bound
        right = rng.random((y.size, 4)) < rng.uniform(0.9, 0.98, size=4)
        strong = np.where(right, y[:, None], -y[:, None])
        amplitude = rng.uniform(0.05, 0.3, size=4) if kind == "real" else 1.0
        Hc = np.column_stack([Hc, strong * amplitude])
        gamma_h, nu_h, tau, gamma_F, nu_F = moments_for(F, Hc, y)
        if gamma_F <= 0:
            continue
        c = score_candidates(gamma_h, nu_h, tau, gamma_F, nu_F, np.zeros(Hc.shape[1], bool), "all")
        assert isinstance(c, CBBoostCandidates)
        c0 = c_def(F, y)
        grid = np.concatenate([[0.0], np.geomspace(1e-6, 1e4, 400) * total])
        for k in range(Hc.shape[1]):
            h = Hc[:, k]
            cs = c_def_columns(F[:, None] + grid[None, :] * h[:, None], y)
            if c.best_decrease[k] > 0:
                n_neg += gamma_h[k] <= 0
                a_ref, c_ref = brute_line_min(F, h, y, total)
                c_code = c_def(F + c.best_alpha[k] * h, y)
                assert c.best_alpha[k] == pytest.approx(a_ref, rel=argmin_rtol(c.best_decrease[k]))
                assert abs(c_code - c_ref) <= MIN_TOL and c_code <= cs.min() + 1e-12
                assert abs(c.best_decrease[k] - (c0 - c_code)) <= MIN_TOL
                assert np.mean(y * (F + c.best_alpha[k] * h)) > 0     # first moment stays > 0
            elif c.unbounded[k]:
                n_unbounded += 1
                assert np.all(np.diff(cs) <= 1e-12) and cs[-1] < c0 - 1e-6, k
                c_alone = c_def(h, y)
                assert c_alone < c0 and abs(cs[-1] - c_alone) < 1e-3, k
            else:
                assert cs.min() >= c0 - 1e-12, k
        assert np.array_equal(c.valid, c.best_decrease > 0)
        assert np.array_equal(c.decrease, c.best_decrease)
    assert n_neg >= 20 and n_unbounded >= 5, (n_neg, n_unbounded)   # both cases ran


def rule_mask(gamma, a, eligible, reuse):
    """Voters a rule may move, written from its definition."""
    return (gamma > 0 if eligible == "theorem3" else np.ones(a.size, bool)) & ((a == 0) | reuse)


def test_candidates_follow_the_rule_and_count_every_rule():
    """``candidates(it)``: valid = admissible under the run's rule and lowering (exact
    arithmetic); the counts under every rule; the run's picks among the valid ones."""
    H, y = small_pool()
    gamma = H.T @ y
    n_checked = 0
    for eligible, reuse in RULES:
        run = CBBoost(max_iter=6, eligible=eligible, reuse_voters=reuse).start(H, y).run()
        for it in range(1, len(run.history) + 1):
            c = run.candidates(it)
            a = run.weights_at(it)
            dec, _ = exact_decreases(H, y, a)
            assert np.all(np.abs(dec - LOWER_TOL) > 0.01 * LOWER_TOL)   # no borderline voter
            lowers = dec > LOWER_TOL
            np.testing.assert_array_equal(c.lowers, lowers)
            np.testing.assert_allclose(c.best_decrease, np.where(lowers, dec, 0.0), rtol=0,
                                       atol=MIN_TOL)
            np.testing.assert_array_equal(c.theorem3, gamma > 0)
            np.testing.assert_array_equal(c.in_vote, a > 0)
            rule = rule_mask(gamma, a, eligible, reuse)
            np.testing.assert_array_equal(c.admissible(), rule)
            np.testing.assert_array_equal(c.valid, lowers & rule)
            np.testing.assert_array_equal(c.alpha, np.where(c.valid, c.best_alpha, 0.0))
            for e2, r2 in RULES:
                assert c.count(e2, r2) == np.count_nonzero(lowers & rule_mask(gamma, a, e2, r2))
            assert c.count() == np.count_nonzero(lowers)
            if it < len(run.history):
                assert c.exhaustive_pick == run.history[it].index
            n_checked += 1
    assert n_checked >= 20


def test_eligible_all_takes_the_best_exact_step():
    """Each step's decrease is the brute-force best over the rule's voters from the same vote,
    and at least the best over Theorem 3's voters."""
    X, y, _, _ = cancer_data()
    H = StumpPool(n_thresholds=3).fit(X[:, :4]).transform(X[:, :4])      # 24 voters
    n = H.shape[1]
    gamma = H.T @ y
    for reuse in (False, True):
        run = CBBoost(max_iter=15, eligible="all", reuse_voters=reuse).start(H, y)
        run.step()
        n_beat = n_negative = 0
        while (rec := run.step()) is not None:
            a_prev = replay_weights(run.history, n, rec.iteration - 1)
            dec, alphas = brute_decreases(H, y, a_prev)
            best = dec[rule_mask(gamma, a_prev, "all", reuse)].max()
            assert abs(rec.predicted_decrease - best) <= MIN_TOL, rec.iteration
            assert abs(rec.actual_decrease - rec.predicted_decrease) <= TOL
            assert abs(dec[rec.index] - best) <= MIN_TOL
            assert rec.alpha == pytest.approx(alphas[rec.index],
                                              rel=argmin_rtol(rec.predicted_decrease))
            t3_best = max(dec[rule_mask(gamma, a_prev, "theorem3", False)].max(initial=0.0), 0.0)
            assert rec.predicted_decrease >= t3_best - 1e-12
            n_beat += rec.predicted_decrease > t3_best + 1e-9
            n_negative += gamma[rec.index] <= 0
        assert n_beat >= 5 and n_negative >= 3, (n_beat, n_negative)


STOP_TEXT = {   # "{}" opens with "1 voter" or "<k> voters", then plain counts
    ("theorem3", False): "no voter outside the vote with γ(h) > 0 lowers the C-bound along a "
                         "positive weight (Theorem 3's rule); {} still could with "
                         "eligible='all', {} with reuse_voters=True, {} with both",
    ("theorem3", True): "no voter with γ(h) > 0, in the vote or not, lowers the C-bound along a "
                        "positive weight (Theorem 3's rule with reuse_voters=True); "
                        "{} still could with eligible='all'",
    ("all", False): "no voter outside the vote lowers the C-bound along a positive weight "
                    "(eligible='all'); {} still could with reuse_voters=True",
    ("all", True): "no voter of the pool lowers the C-bound along a positive weight "
                   "(eligible='all', reuse_voters=True)",
}
WIDER = {("theorem3", False): [("all", False), ("theorem3", True), ("all", True)],
         ("theorem3", True): [("all", True)], ("all", False): [("all", True)],
         ("all", True): []}


@pytest.mark.parametrize("eligible,reuse", RULES)
def test_stop_reason_names_the_rule_and_counts_the_wider_rules(eligible, reuse):
    H, y = small_pool()
    gamma = H.T @ y
    run = CBBoost(max_iter=5000, eligible=eligible, reuse_voters=reuse).start(H, y).run()
    assert not run.stop_reason.startswith("max_iter")
    a = run.weights
    dec, _ = exact_decreases(H, y, a)
    assert np.all(np.abs(dec - LOWER_TOL) > 0.01 * LOWER_TOL)           # no borderline voter
    lowers = dec > LOWER_TOL

    def n_lowering(e, r):
        return int(np.count_nonzero(lowers & rule_mask(gamma, a, e, r)))
    assert n_lowering(eligible, reuse) == 0              # the sentence's claim holds
    counts = [n_lowering(*w) for w in WIDER[eligible, reuse]]
    words = [f"{k} voter" + ("" if k == 1 else "s") for k in counts[:1]] + counts[1:]
    assert run.stop_reason == STOP_TEXT[eligible, reuse].format(*words)
    if WIDER[eligible, reuse]:
        assert max(counts) > 0                           # the counts are not all trivially 0
    # the module's own scores agree: nothing admissible lowers it, the wider counts match
    c = run.candidates()
    assert not c.valid.any() and c.count(eligible, reuse) == 0
    assert [c.count(*w) for w in WIDER[eligible, reuse]] == counts


def test_stop_reason_names_voters_without_a_finite_step():
    """h1 has a better C-bound alone than h0 but no finite optimum from h0 (denominator < 0):
    the C-bound falls toward C(h1) as its weight grows without bound."""
    y = np.array([1.0, 1.0, 1.0, -1.0])
    H = np.column_stack([[1.0, 1.0, -1.0, -1.0], [0.3, 0.3, 0.1, -0.3]])
    grid = np.geomspace(1e-2, 1e8, 200)
    cs = c_def_columns(H[:, [0]] + grid[None, :] * H[:, [1]], y)
    assert np.all(np.diff(cs) < 0) and cs[-1] == pytest.approx(c_def(H[:, 1], y), abs=1e-6)
    for eligible, reuse in RULES:
        run = CBBoost(eligible=eligible, reuse_voters=reuse).start(H, y).run()
        assert [r.index for r in run.history] == [0]
        assert ("lowers the C-bound with a finite weight" in run.stop_reason
                and "along 1 voter it decreases only as the weight grows without bound"
                in run.stop_reason), run.stop_reason
        c = run.candidates()
        assert list(c.unbounded) == [False, True] and c.count() == 0


def test_lockstep_passes_the_rule():
    H, y = small_pool()
    ex, gr, table = lockstep(H, y, max_iter=8, eligible="all", reuse_voters=True)
    for run in (ex, gr):
        assert run.eligible == "all" and run.reuse_voters
        alone = CBBoost(max_iter=8, direction=run.direction, eligible="all",
                        reuse_voters=True).start(H, y).run()
        assert [r.index for r in alone.history] == [r.index for r in run.history]
    for i, rec in enumerate(ex.history[1:], start=1):
        again = ex.candidates(iteration=i)   # the same vote, scored anew under the run's rule
        assert table.iloc[i]["gradient_from_exhaustive_state"] == again.gradient_pick
        assert again.eligible == "all" and again.reuse_voters
        assert rec.extra["exhaustive_pick"] == again.exhaustive_pick == rec.index


@pytest.mark.parametrize("kwargs", [{"eligible": "Theorem3"}, {"eligible": None},
                                    {"eligible": "gamma>0"}, {"reuse_voters": 1},
                                    {"reuse_voters": "True"}, {"reuse_voters": None}])
def test_bad_rule_parameters_raise(kwargs):
    with pytest.raises(ParameterError, match="eligible|reuse_voters"):
        CBBoost(**kwargs)


def test_pick_correlations_from_the_definition(cases):
    """Both picks from the same vote, each with its cosine to the vote, recomputed here."""
    from cbviz.algorithms import pick_correlations
    case = cases("cancer", "stumps-op")
    Hd, y = case["H"], case["y"]
    ex, _, _ = lockstep(case["Hfit"], y, 20)
    table = pick_correlations(ex)
    for rec, row in zip(ex.history[1:], table.itertuples()):
        F = Hd @ ex.weights_at(rec.iteration - 1)
        assert row.exhaustive_index == rec.index  # the run's own pick
        assert row.gradient_index == ex.candidates(iteration=rec.iteration - 1).gradient_pick
        for k, rho in ((row.exhaustive_index, row.exhaustive_correlation),
                       (row.gradient_index, row.gradient_correlation)):
            h = Hd[:, k]
            assert rho == pytest.approx(np.dot(F, h) / np.sqrt(np.dot(F, F) * np.dot(h, h)),
                                        abs=1e-12)
    differ = table[table["differ"]]
    assert len(differ) >= 5  # the page's claim, measured on this data set
    assert (differ["exhaustive_correlation"] > differ["gradient_correlation"]).all()
