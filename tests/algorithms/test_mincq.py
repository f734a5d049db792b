"""Checks of MinCq (cbviz.algorithms.mincq._mincq), MinCq(CB-Boost) and the QP wrapper (cbviz.algorithms._qp).

Reference quantities are rebuilt here from the definitions, never through the module:

* the quasi-uniform program (Germain et al. 2015, Program 1) from ``M = H_d^T H_d / m``,
  ``A = M 1 / n'``, ``g = H_d^T y / m``; the posterior ``Q`` read back from the vote's
  non-negative weights (``w = a_direct - a_complement = 2Q - 1/n'``);
* the simplex program (CqBoost paper, (2) with ``mu1 >= mu``) from ``K = H^T H / m``;
* KKT conditions with multipliers recovered by least squares from stationarity on the free
  variables (not the solver's duals);
* a second solver: scipy's SLSQP on small pools;
* the least C-bound of any signed vote, ``1 - g^T M^+ g`` (maximize ``(g^T w)^2 / w^T M w``):
  MinCq must reach it when mu is small.

Tolerances: KKT residuals <= 1e-7 in gradient units with variables scaled to [0, 1]
(measured <= 3e-8 on breast cancer, ~1e-12 on moons; the solver stops at relative gap
1e-12, and a voter near a bound converges like gap / multiplier); objective values vs
SLSQP 1e-11 absolute (measured ~1e-16); C-bounds vs the closed-form minimum 1e-8;
equality constraints 1e-9.  Fixed seeds everywhere.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
from cvxopt import solvers
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, make_moons

from cbviz.algorithms import CBBoost, ParameterError
from cbviz.algorithms.mincq import _mincq as mincq_module
from cbviz.algorithms.mincq import (CVXOPT_MAX_VARIABLES, MINCQ_ON_HISTORY_COLUMNS,
                                    MemoryLimitError, MinCq, mincq_on_history)
from cbviz.algorithms._qp import QPError, solve_qp
from cbviz.voters import RBFPool, StumpPool

KKT_TOL = 1e-7
OBJ_TOL = 1e-11
C_TOL = 1e-8
EQ_TOL = 1e-9


# --------------------------------------------------------------------------- definitions

def c_def(F, y):
    mu1, mu2 = np.mean(y * F), np.mean(F * F)
    return 1.0 if not mu1 > 0 else float(1.0 - mu1**2 / mu2)


def quasi_uniform_program(H, y):
    """(M, A, g, n') of Program 1 for a self-complemented H (direct voters first)."""
    m, n = H.shape
    half = n // 2
    Hd = H[:, :half]
    M = Hd.T @ Hd / m
    A = M.sum(axis=1) / half
    g = Hd.T @ y / m
    return M, A, g, half


def posterior_q(a, half):
    """Quasi-uniform Q from the vote's non-negative weights: w = 2Q - 1/n'."""
    w = a[:half] - a[half:]
    return (w + 1.0 / half) / 2.0


def best_signed_c_bound(H, y):
    """min over signed votes F = H_d w of 1 - gamma(F)^2 / nu(F) = 1 - g^T M^+ g."""
    M, _, g, _ = quasi_uniform_program(H, y)
    return float(1.0 - g @ np.linalg.pinv(M, rcond=1e-12) @ g)


def kkt_quasi_uniform(Q, M, A, g, half, mu):
    """Max KKT violation of Program 1 at Q, scaled to u = n' Q in [0, 1]^n'.

    Objective n'^2 (Q^T M Q - A^T Q) = u^T M u - (M 1)^T u; gradient r0 = 2 M u - M 1.
    With lambda fitted by least squares on the free coordinates (1e-6 < u < 1 - 1e-6),
    r = r0 + lambda g / n' must vanish there, be >= 0 where u = 0 (xi = r) and <= 0 where
    u = 1 (eta = -r); complementary slackness: r+ u = 0 and r- (1 - u) = 0 everywhere.
    """
    u = half * Q
    r0 = 2.0 * M @ u - M.sum(axis=1)
    free = (u > 1e-6) & (u < 1.0 - 1e-6)
    assert free.any(), "no free coordinate: the multiplier is not identifiable"
    row = g / half
    lam = -float(row[free] @ r0[free]) / float(row[free] @ row[free])
    r = r0 + lam * row
    return {
        "stationarity": float(np.max(np.abs(r[free]))),
        "dual_feasibility": float(max(0.0, np.max(-r[u <= 1e-6], initial=0.0),
                                      np.max(r[u >= 1.0 - 1e-6], initial=0.0))),
        "slackness": float(np.max(np.maximum(r, 0) * u + np.maximum(-r, 0) * (1.0 - u))),
        "box": float(max(0.0, -u.min(), u.max() - 1.0)),
        "equality": abs(float(g @ Q) - (mu / 2.0 + g.sum() / (2.0 * half))),
    }


def kkt_simplex(q, K, g, mu):
    """Max KKT violation of min q^T K q s.t. 1^T q = 1, g^T q >= mu, q >= 0.

    Stationarity 2 K q + nu 1 - beta g - xi = 0; (nu, beta) fitted on the support (beta = 0
    when the mu constraint is slack), then xi = 2 K q + nu - beta g must be ~0 on the
    support and >= 0 off it, beta >= 0, beta (g^T q - mu) = 0 and xi q = 0.  The support
    is q > 1e-6 max(q): an interior-point solution leaves ~gap / xi_k on an inactive voter,
    up to ~1e-8 relative when xi_k is tiny (near-degenerate voters); slackness is checked
    on every voter.
    """
    grad = 2.0 * K @ q
    supp = q > 1e-6 * q.max()
    slack = float(g @ q - mu)
    if slack > 1e-7:
        beta = 0.0
        nu = -float(np.mean(grad[supp]))
    else:
        B = np.column_stack([np.ones(supp.sum()), -g[supp]])
        nu, beta = np.linalg.lstsq(B, -grad[supp], rcond=None)[0]
    xi = grad + nu - beta * g
    return {
        "stationarity": float(np.max(np.abs(xi[supp]))),
        "dual_feasibility": float(max(0.0, -xi.min(), -beta)),
        "slackness": float(max(abs(beta * slack), np.max(np.abs(xi * q)))),
        "primal": float(max(0.0, -q.min(), mu - g @ q, abs(q.sum() - 1.0))),
        "beta": float(beta),
    }


def slsqp(fun, jac, x0, constraints, bounds):
    res = minimize(fun, x0, jac=jac, method="SLSQP", constraints=constraints, bounds=bounds,
                   options={"ftol": 1e-15, "maxiter": 2000})
    assert res.success, res.message
    return res


# --------------------------------------------------------------------------- data

def stumps(X, y, n_thresholds=10):
    pool = StumpPool(n_thresholds=n_thresholds).fit(X)
    return pool.transform(X), pool.operator(X), y


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
    return stumps(X, np.where(y == 1, 1.0, -1.0))


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return stumps(X, np.where(y == 1, 1.0, -1.0))


@pytest.fixture(scope="module")
def small():
    """A small self-complemented pool for the second solver: 6 direct stumps, 60 examples."""
    X, y = make_moons(n_samples=60, noise=0.4, random_state=3)
    return stumps(X, np.where(y == 1, 1.0, -1.0), n_thresholds=3)


@pytest.fixture(scope="module")
def random_pm1():
    """Random +-1 voters (8 direct + complements), 40 examples, some better than chance."""
    rng = np.random.default_rng(5)
    y = rng.choice([-1.0, 1.0], size=40)
    agree = rng.uniform(0.4, 0.75, size=8)
    Hd = np.where(rng.random((40, 8)) < agree, y[:, None], -y[:, None])
    return np.column_stack([Hd, -Hd]), None, y


# --------------------------------------------------------------------------- quasi-uniform form

@pytest.mark.parametrize("data,mu", [("moons", 0.05), ("moons", 0.2), ("cancer", 0.05),
                                     ("cancer", 0.25)])
def test_quasi_uniform_kkt(request, data, mu):
    H, op, y = request.getfixturevalue(data)
    run = MinCq(mu=mu).start(op, y)
    rec = run.step()
    M, A, g, half = quasi_uniform_program(H, y)
    Q = posterior_q(run.weights, half)
    kkt = kkt_quasi_uniform(Q, M, A, g, half, mu)
    for name, value in kkt.items():
        assert value <= (EQ_TOL if name in ("equality", "box") else KKT_TOL), (name, value)
    # the record's objective is the program's, recomputed from Q
    assert rec.objective == pytest.approx(float(Q @ M @ Q - A @ Q), abs=1e-12)
    # the vote: w = 2Q - 1/n' on the direct voters, carried by voter k or its complement
    a = run.weights
    assert np.all(a >= 0) and np.all(a[:half] * a[half:] == 0)
    np.testing.assert_allclose(run.F, H[:, :half] @ (2 * Q - 1 / half), atol=1e-12)
    # the quasi-uniform posterior's first moment is mu; the record's is that of the vote
    # normalized by sum|w| (the same direction, so the same C-bound)
    assert np.mean(y * run.F) == pytest.approx(mu, abs=EQ_TOL)
    assert rec.mu1 == pytest.approx(mu / a.sum(), rel=1e-9)
    assert rec.c_bound == pytest.approx(c_def(run.F, y), abs=1e-12)


@pytest.mark.parametrize("data,mu", [("small", 0.05), ("small", 0.15), ("random_pm1", 0.05),
                                     ("random_pm1", 0.12)])
def test_quasi_uniform_matches_slsqp(request, data, mu):
    H, _, y = request.getfixturevalue(data)
    M, A, g, half = quasi_uniform_program(H, y)
    run = MinCq(mu=mu).start(H, y)
    rec = run.step()
    ref = slsqp(lambda Q: Q @ M @ Q - A @ Q, lambda Q: 2 * M @ Q - A,
                np.full(half, 0.5 / half),
                [{"type": "eq", "fun": lambda Q: g @ Q - mu / 2 - g.sum() / (2 * half),
                  "jac": lambda Q: g}],
                [(0.0, 1.0 / half)] * half)
    assert abs(rec.objective - ref.fun) <= OBJ_TOL
    assert rec.objective <= ref.fun + OBJ_TOL
    F_ref = H[:, :half] @ (2 * ref.x - 1 / half)
    assert abs(rec.c_bound - c_def(F_ref, y)) <= 1e-6


# --------------------------------------------------------------------------- simplex form

@pytest.mark.parametrize("data,mu", [("moons", 0.05), ("moons", 0.3), ("cancer", 0.05)])
def test_simplex_kkt(request, data, mu):
    H, op, y = request.getfixturevalue(data)
    run = MinCq(mu=mu, form="simplex").start(op, y)
    rec = run.step()
    m = y.size
    K, g = H.T @ H / m, H.T @ y / m
    q = run.weights
    kkt = kkt_simplex(q, K, g, mu)
    for name, value in kkt.items():
        if name != "beta":
            assert value <= KKT_TOL, (name, value)
    # self-complemented pool: the mu constraint is active (beta > 0), mu1 = mu
    assert kkt["beta"] > 0
    assert rec.mu1 == pytest.approx(mu, abs=EQ_TOL)
    assert rec.objective == pytest.approx(float(q @ K @ q), abs=1e-12)
    assert rec.mu2 == pytest.approx(rec.objective, rel=1e-9)


def test_simplex_constraint_is_an_inequality():
    """Voters all far better than chance: every posterior has mu1 >= 0.5 > mu, so the
    ">= mu" program minimizes mu2 freely (beta = 0) -- an "= mu" program would be infeasible."""
    rng = np.random.default_rng(7)
    y = rng.choice([-1.0, 1.0], size=50)
    H = np.where(rng.random((50, 6)) < rng.uniform(0.8, 0.95, size=6), y[:, None], -y[:, None])
    g = H.T @ y / 50
    assert g.min() >= 0.5
    run = MinCq(mu=0.1, form="simplex").start(H, y)
    rec = run.step()
    K = H.T @ H / 50
    kkt = kkt_simplex(run.weights, K, g, 0.1)
    assert kkt["beta"] == 0.0 and rec.mu1 > 0.5
    for name in ("stationarity", "dual_feasibility", "slackness", "primal"):
        assert kkt[name] <= KKT_TOL, (name, kkt[name])
    ref = slsqp(lambda q: q @ K @ q, lambda q: 2 * K @ q, np.full(6, 1 / 6),
                [{"type": "eq", "fun": lambda q: q.sum() - 1, "jac": lambda q: np.ones(6)}],
                [(0.0, None)] * 6)
    assert abs(rec.objective - ref.fun) <= OBJ_TOL


@pytest.mark.parametrize("data,mu", [("small", 0.05), ("small", 0.3), ("random_pm1", 0.1)])
def test_simplex_matches_slsqp(request, data, mu):
    H, _, y = request.getfixturevalue(data)
    m, n = H.shape
    K, g = H.T @ H / m, H.T @ y / m
    rec = MinCq(mu=mu, form="simplex").start(H, y).step()
    ref = slsqp(lambda q: q @ K @ q, lambda q: 2 * K @ q, np.full(n, 1 / n),
                [{"type": "eq", "fun": lambda q: q.sum() - 1, "jac": lambda q: np.ones(n)},
                 {"type": "ineq", "fun": lambda q: g @ q - mu, "jac": lambda q: g}],
                [(0.0, None)] * n)
    assert abs(rec.objective - ref.fun) <= OBJ_TOL
    assert rec.objective <= ref.fun + OBJ_TOL
    assert abs(rec.c_bound - c_def(H @ ref.x, y)) <= 1e-6


# --------------------------------------------------------------------------- against CB-Boost

@pytest.mark.parametrize("data,mu_qu,mu_simplex", [("moons", 0.05, 0.05),
                                                   ("cancer", 1e-3, 0.01)])
def test_small_mu_reaches_the_least_c_bound(request, data, mu_qu, mu_simplex):
    """Small mu: both forms reach 1 - g^T M^+ g, the least C-bound of any signed vote, hence
    at most CB-Boost's final C-bound on the same pool."""
    H, op, y = request.getfixturevalue(data)
    best = best_signed_c_bound(H, y)
    cb = CBBoost(max_iter=200).start(op, y).run().history[-1].c_bound
    for form, mu in (("quasi_uniform", mu_qu), ("simplex", mu_simplex)):
        rec = MinCq(mu=mu, form=form).start(op, y).step()
        assert abs(rec.c_bound - best) <= C_TOL, (form, rec.c_bound, best)
        assert rec.c_bound <= cb + 1e-12, (form, rec.c_bound, cb)
    assert best < cb - 1e-3   # on these sets CB-Boost's greedy vote is strictly worse


# --------------------------------------------------------------------------- stepper protocol

@pytest.mark.parametrize("form", ["quasi_uniform", "simplex"])
def test_one_record_then_stop(moons, form):
    H, op, y = moons
    Ht, yt = H[::3], y[::3]
    run = MinCq(mu=0.1, form=form).start(op, y, H_test=Ht, y_test=yt)
    assert not run.done
    run.run()
    assert run.done and len(run.history) == 1
    assert run.stop_reason == "MinCq solved its quadratic program (optimal)"
    assert run.step() is None and len(run.history) == 1
    rec = run.history[0]
    assert rec.index is None and rec.alpha is None
    assert rec.extra["solver_status"] == "optimal" and rec.extra["mu"] == 0.1
    assert isinstance(rec.extra["solver_iterations"], int) and rec.extra["solver_iterations"] > 0
    assert rec.test_error == pytest.approx(np.mean(np.where(Ht @ run.weights > 0, 1, -1) != yt))
    np.testing.assert_allclose(run.decision_function(Ht), Ht @ run.weights, atol=1e-12)
    frame = run.to_frame()
    assert list(frame["solver_status"]) == ["optimal"] and len(frame) == 1


def test_dense_and_operator_agree(moons):
    H, op, y = moons
    for form in ("quasi_uniform", "simplex"):
        a = MinCq(mu=0.1, form=form).start(H, y).run()
        b = MinCq(mu=0.1, form=form).start(op, y).run()
        np.testing.assert_allclose(a.weights, b.weights, atol=1e-12)


def test_solver_options_are_not_global(moons):
    H, _, y = moons
    before = dict(solvers.options)
    MinCq(mu=0.1).start(H, y).run()
    assert solvers.options == before


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("kwargs", [dict(mu=0), dict(mu=0.0), dict(mu=-0.1), dict(mu=1.5),
                                    dict(mu="0.1"), dict(mu=True), dict(mu=float("nan")),
                                    dict(form="uniform"), dict(form=None), dict(delta=0),
                                    dict(delta=2.0), dict(solver="osqp"), dict(rtol=0),
                                    dict(max_products=0)])
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        MinCq(**kwargs)


def test_mu_one_is_allowed_when_reachable():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    H = np.column_stack([y, -y])                 # a perfect voter and its complement
    for form in ("quasi_uniform", "simplex"):
        rec = MinCq(mu=1, form=form).start(H, y).step()
        assert rec.c_bound <= 1e-9


@pytest.mark.parametrize("form", ["quasi_uniform", "simplex"])
def test_unreachable_mu_gives_the_typed_error(moons, form):
    H, op, y = moons
    g = H.T @ y / y.size
    largest = float(np.mean(np.abs(g[:g.size // 2]))) if form == "quasi_uniform" else g.max()
    with pytest.raises(QPError) as info:
        MinCq(mu=min(1.0, largest + 0.01), form=form).start(op, y)
    err = info.value
    assert isinstance(err, ParameterError) and err.status == "infeasible"
    assert err.hint.startswith("lower mu: the largest reachable first moment is")
    assert float(err.hint.rsplit(" ", 1)[1]) == pytest.approx(largest, rel=1e-9)
    # just below the largest is reachable, and reached
    run = MinCq(mu=largest * (1 - 1e-6), form=form).start(op, y).run()
    assert np.mean(y * run.F) == pytest.approx(largest * (1 - 1e-6), abs=EQ_TOL)


def test_no_variable_cap_but_a_memory_check(monkeypatch):
    """The 2,000-variable cap is gone: a program over 2,001 direct voters starts (Gram-free
    by default); one that would not fit in the available memory raises the typed error."""
    rng = np.random.default_rng(8)
    y = rng.choice([-1.0, 1.0], size=20)
    Hd = rng.choice([-1.0, 1.0], size=(20, 2001))
    H = np.column_stack([Hd, -Hd])
    for form in ("quasi_uniform", "simplex"):
        run = MinCq(mu=0.01, form=form).start(H, y)
        assert run.solver == "gram_free"
    assert MinCq(mu=0.01).start(H[:, np.r_[:CVXOPT_MAX_VARIABLES, 2001:2001 + CVXOPT_MAX_VARIABLES]],
                                y).solver == "cvxopt"
    monkeypatch.setattr(mincq_module, "available_memory", lambda: 10**6)
    for solver in ("cvxopt", "gram_free"):
        with pytest.raises(MemoryLimitError, match="MiB are available") as info:
            MinCq(mu=0.01, solver=solver).start(H, y)
        assert isinstance(info.value, ParameterError) and info.value.needed > 10**6


def test_quasi_uniform_needs_a_self_complemented_pool():
    X, y = make_moons(n_samples=80, noise=0.3, random_state=0)
    y = np.where(y == 1, 1.0, -1.0)
    H = RBFPool(n_centers=10, complements=False, random_state=0).fit(X, y).transform(X)
    with pytest.raises(ParameterError, match="self-complemented"):
        MinCq(mu=0.05).start(H, y)
    MinCq(mu=0.05, form="simplex").start(H, y).run()   # the simplex form takes any pool


def test_solver_failures_are_typed():
    # no convergence: an infeasible program (x in [1, 2] and x <= 0.5) -> status "unknown"
    with pytest.raises(QPError) as info:
        solve_qp(2 * np.eye(2), np.zeros(2), np.vstack([-np.eye(2), [[1.0, 1.0]]]),
                 [0.0, 0.0, 0.5], np.ones((1, 2)), [1.0], what="toy", hint="do something")
    assert info.value.hint == "do something" and "toy" in str(info.value)
    # singular system: the same equality twice with different right-hand sides
    with pytest.raises(QPError) as info:
        solve_qp(2 * np.eye(2), np.zeros(2), -np.eye(2), np.zeros(2),
                 np.ones((2, 2)), [1.0, 2.0], what="toy", hint="drop a row")
    assert info.value.status == "singular KKT system"
    assert isinstance(info.value, ParameterError)


# --------------------------------------------------------------------------- MinCq(CB-Boost)

@pytest.fixture(scope="module")
def cbboost_run():
    """CB-Boost, 100 iterations on 300 breast-cancer examples (all thresholds), with a test set."""
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1.0, -1.0)
    perm = np.random.default_rng(0).permutation(y.size)
    tr, te = perm[:300], perm[300:]
    pool = StumpPool(n_thresholds="all").fit(X[tr])
    run = CBBoost(max_iter=100).start(pool.operator(X[tr]), y[tr], pool.operator(X[te]), y[te])
    return run.run(), pool.transform(X[tr]), pool.transform(X[te])


def scipy_best_c_bound(Hs, y):
    """min nu(H_S a) s.t. gamma(H_S a) = 1, a >= 0 by SLSQP; returns (C, a)."""
    m, t = Hs.shape
    K, g = Hs.T @ Hs / m, Hs.T @ y / m
    ref = slsqp(lambda a: a @ K @ a, lambda a: 2 * K @ a, np.full(t, 1.0 / g.sum()),
                [{"type": "eq", "fun": lambda a: g @ a - 1.0, "jac": lambda a: g}],
                [(0.0, None)] * t)
    return 1.0 - 1.0 / ref.fun, ref.x


def test_mincq_on_history(cbboost_run):
    run, H, Ht = cbboost_run
    assert len(run.history) == 100
    t0 = time.perf_counter()
    table = mincq_on_history(run)
    seconds = time.perf_counter() - t0
    assert seconds < 3.0, seconds          # measured ~0.35 s; the app calls it interactively
    assert list(table.columns) == MINCQ_ON_HISTORY_COLUMNS
    assert list(table["iteration"]) == list(range(1, 101))
    assert list(table["n_voters"]) == [r.support.size for r in run.history]
    assert list(table["cbboost_c_bound"]) == [r.c_bound for r in run.history]
    # never worse than CB-Boost's vote on the same voters, equal with one voter
    assert np.all(table["c_bound"] <= table["cbboost_c_bound"] + 1e-12)
    assert abs(table["c_bound"][0] - table["cbboost_c_bound"][0]) <= 1e-12
    assert (table["cbboost_c_bound"] - table["c_bound"]).iloc[-1] > 1e-3
    # Theorem 1 on the sample: the training error is at most the C-bound
    assert np.all(table["train_error"] <= table["c_bound"] + 1e-12)
    assert table["test_error"].between(0, 1).all()
    # a second solver at a few iterations
    for t in (2, 5, 20, 60):
        support = run.history[t - 1].support
        c_ref, a_ref = scipy_best_c_bound(H[:, support], run.y)
        row = table.iloc[t - 1]
        assert abs(row["c_bound"] - c_ref) <= 1e-7, (t, row["c_bound"], c_ref)
        F = H[:, support] @ a_ref
        if np.min(np.abs(F)) > 1e-6 * np.max(np.abs(F)):  # no example on the fence
            assert row["train_error"] == np.mean(np.where(F > 0, 1.0, -1.0) != run.y)
            Ft = Ht[:, support] @ a_ref
            assert row["test_error"] == np.mean(np.where(Ft > 0, 1.0, -1.0) != run.y_test)


def test_mincq_on_history_options(cbboost_run, moons):
    run, _, _ = cbboost_run
    part = mincq_on_history(run, iterations=[3, 10])
    full = mincq_on_history(run)
    assert list(part["iteration"]) == [3, 10]
    np.testing.assert_allclose(part["c_bound"], full["c_bound"].iloc[[2, 9]], atol=1e-12)
    for bad in ([0], [101]):
        with pytest.raises(ParameterError):
            mincq_on_history(run, iterations=bad)
    _, op, y = moons
    fresh = CBBoost(max_iter=5).start(op, y)
    empty = mincq_on_history(fresh)
    assert empty.empty and list(empty.columns) == MINCQ_ON_HISTORY_COLUMNS
    fresh.step()
    fresh.step()
    partial = mincq_on_history(fresh)                 # a partial run, no test data
    assert len(partial) == 2 and partial["test_error"].isna().all()
