"""Checks of the CB-Boost stepper (cbviz.algorithms.cbboost) against the CB-Boost paper.

Every reference number is recomputed here from the definitions, never through the module's
own helpers:

* the empirical C-bound of a vote F is ``1 - mean(y F)**2 / mean(F**2)`` (1 when the
  first moment is not positive, the documented convention) -- :func:`c_def`;
* the best weight along one voter is found numerically with
  ``scipy.optimize.minimize_scalar`` on that definition (Theorem 3 is the claim under test);
* the per-step decrease is ``C(before) - C(after)`` of that definition (Property 1);
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

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.preprocessing import StandardScaler

from cbviz import bounds as B
from cbviz.algorithms import CBBoost, Candidates, ParameterError, Record, lockstep
from cbviz.algorithms.cbboost import NO_PROGRESS, _scores
from cbviz.voters import RBFPool, StumpPool

TOL = 1e-10         # same number computed two ways
MIN_TOL = 1e-9      # minimum value of a one-direction problem vs scipy
ARG_RTOL = 1e-5     # argmin vs scipy (a minimizer is only known to ~sqrt(eps) from values)


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
                "train_error", "kl", "pac_bound", "first_order_bound", "seeger_bound",
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

def _split(X, y, n_train, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:n_train], perm[n_train:]
    return X[tr], y[tr], X[te], y[te]


def cancer_data():
    X, y = load_breast_cancer(return_X_y=True)
    return _split(X, np.where(y == 1, 1.0, -1.0), 400, seed=0)


def moons_data():
    X, y = make_moons(n_samples=400, noise=0.35, random_state=1)
    return _split(X, np.where(y == 1, 1.0, -1.0), 300, seed=1)


def random_data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(250, 4))
    y = rng.choice([-1.0, 1.0], size=250)
    return _split(X, y, 200, seed=2)


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
        c = _scores(gamma_h, nu_h, tau, gamma_F, nu_F, np.zeros(Hc.shape[1], dtype=bool))
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
    base = _scores(*moments_for(F, Hc, y), np.zeros(Hc.shape[1], dtype=bool))
    for s in (0.01, 7.0):
        c = _scores(*moments_for(s * F, Hc, y), np.zeros(Hc.shape[1], dtype=bool))
        assert np.array_equal(c.valid, base.valid)
        np.testing.assert_allclose(c.alpha, s * base.alpha, rtol=1e-12, atol=0)
        np.testing.assert_allclose(c.decrease, base.decrease, rtol=1e-10, atol=1e-14)


def test_in_vote_candidates_are_never_valid():
    rng = np.random.default_rng(33)
    y, F, Hc, _ = random_direction_problem(rng, "pm1")
    in_vote = np.zeros(Hc.shape[1], dtype=bool)
    free = _scores(*moments_for(F, Hc, y), in_vote)
    in_vote[np.flatnonzero(free.valid)[:3]] = True
    c = _scores(*moments_for(F, Hc, y), in_vote)
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
        assert abs(rec.seeger_bound - B.seeger_c_bound(r, d, kl, m, delta)) <= 1e-9
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
    "pac_bound", "first_order_bound", "seeger_bound", "tandem_bound", "objective", "seconds",
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
    H, y = case["H"], case["y"]
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
        if i > 0:
            assert row["gradient_from_exhaustive_state"] == rec.candidates.gradient_pick
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
    assert run.stop_reason == NO_PROGRESS
    # real-valued identical voters (round-off in the moments must not create a step)
    hr = 0.37 * np.tanh(y + rng.normal(size=40))
    run = run_to_end(np.tile(hr[:, None], (1, 6)), y)
    assert len(run.history) == 1
    assert run.stop_reason == NO_PROGRESS


def test_perfect_voter_gives_zero_c_bound_then_stops():
    rng = np.random.default_rng(61)
    y = rng.choice([-1.0, 1.0], size=30)
    H = np.column_stack([rng.choice([-1.0, 1.0], size=(30, 3)), y, -y])
    run = run_to_end(H, y)
    assert len(run.history) == 1
    rec = run.history[0]
    assert rec.index == 3 and rec.c_bound == 0.0 and rec.train_error == 0.0
    assert 0.0 <= rec.pac_bound <= 1.0
    assert run.stop_reason == NO_PROGRESS
    # the same through a stump pool on separable 1-D data
    X = np.linspace(0.0, 1.0, 25)[:, None]
    ys = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    pool = StumpPool("all").fit(X)
    run = run_to_end(pool.operator(X), ys)
    assert len(run.history) == 1 and run.history[0].c_bound == 0.0
    assert run.stop_reason == NO_PROGRESS


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
    assert run.stop_reason == NO_PROGRESS
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
    assert run.stop_reason == NO_PROGRESS and "positive margin" in run.stop_reason
    grid = np.geomspace(1e-4, 1e4, 2001)
    for k in np.flatnonzero((run.weights == 0) & (H.T @ y > 0)):
        cs = c_def_columns(run.F[:, None] + grid[None, :] * H[:, k][:, None], y)
        assert cs.min() >= run.history[-1].c_bound - 1e-12, (k, cs.min())


def test_stop_reason_holds_for_positive_margin_voters_on_breast_cancer(cases):
    case = cases("cancer", "stumps-dense")
    H, y = case["H"], case["y"]
    run = CBBoost(max_iter=1000).start(H, y).run()
    assert run.stop_reason == NO_PROGRESS
    grid = np.geomspace(1e-4, 1e2, 300)
    best = run.history[-1].c_bound
    for k in np.flatnonzero((run.weights == 0) & (H.T @ y > 0)):
        cs = c_def_columns(run.F[:, None] + grid[None, :] * H[:, k][:, None], y)
        best = min(best, cs.min())
    assert best >= run.history[-1].c_bound - 1e-12, (run.history[-1].c_bound, best)
