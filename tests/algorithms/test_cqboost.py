"""Checks of CqBoost (cbviz.algorithms.cqboost._cqboost) against Algorithm 1 of the CqBoost paper.

Reference quantities are rebuilt here from the definitions:

* the restricted program over the columns chosen up to step t (the records' indices):
  ``min w^T K_S w`` s.t. ``sum(w) = 1``, ``g_S^T w >= mu``, ``w >= 0``, re-solved by scipy's
  SLSQP; its optimal margins ``gamma = diag(y) H_S w`` are unique (the objective is strictly
  convex in gamma) even where ``w`` is not;
* the multipliers ``(nu, beta)`` recovered by least squares from stationarity on the support
  (not read from the run), the example weights ``alpha = (beta - 2 gamma) / m`` and every
  column's edge ``sum_i alpha_i y_i h(x_i) = beta g_k - 2 (K w)_k``;
* the dual value ``-(m/4) |alpha - beta/m|^2 + beta mu - nu`` (strong duality);
* the authors' formulation with gamma as variables (m + t of them) solved by cvxopt, whose
  duals of the gamma rows are the example weights (sign conventions checked numerically).

Tolerances: objective values 1e-11 absolute vs SLSQP, margins 1e-6 (an argmin from values),
stationarity / dual feasibility 1e-8 in edge units (edges are O(1/m)-weighted sums), strong
duality 1e-10, multipliers vs the run 1e-10 absolute (the solver's tolerances are 1e-12
relative).  Ties between identical columns are resolved by the lowest index in the module;
the tests accept any column whose edge is the largest up to 1e-12.  Fixed seeds everywhere.
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from cvxopt import matrix, solvers
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, make_moons

from cbviz import bench
from cbviz.algorithms import ParameterError
from cbviz.algorithms.cqboost import _cqboost as cqboost
from cbviz.algorithms.cqboost._master import solve_master
from cbviz.algorithms.cqboost import CqBoost, example_weight_shares
from cbviz.algorithms._qp import QPError
from cbviz.voters import StumpPool

OBJ_TOL = 1e-11
MARGIN_TOL = 1e-6
KKT_TOL = 1e-8
DUAL_TOL = 1e-10
MULT_TOL = 1e-10


# --------------------------------------------------------------------------- definitions

def restricted_scipy(H, y, cols, mu):
    """SLSQP on the restricted program over columns ``cols``; returns (objective, w)."""
    Hs = H[:, cols]
    m, t = Hs.shape
    K, g = Hs.T @ Hs / m, Hs.T @ y / m
    res = minimize(lambda w: w @ K @ w, np.full(t, 1.0 / t), jac=lambda w: 2 * K @ w,
                   method="SLSQP", bounds=[(0.0, None)] * t,
                   constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0,
                                 "jac": lambda w: np.ones(t)},
                                {"type": "ineq", "fun": lambda w: g @ w - mu,
                                 "jac": lambda w: g}],
                   options={"ftol": 1e-15, "maxiter": 2000})
    assert res.success, res.message
    return float(res.fun), res.x


def recovered_multipliers(H, y, a, mu):
    """(nu, beta) from stationarity 2 K w + nu - beta g = 0 on the support of a."""
    m = y.size
    F = H @ a
    grad = 2.0 * H.T @ F / m
    g = H.T @ y / m
    supp = a > 1e-6 * a.max()
    if np.mean(y * F) - mu > 1e-7:          # mu constraint slack: beta = 0
        return -float(np.mean(grad[supp])), 0.0
    B = np.column_stack([np.ones(supp.sum()), -g[supp]])
    nu, beta = np.linalg.lstsq(B, -grad[supp], rcond=None)[0]
    return float(nu), float(beta)


def example_weights(y, F, beta):
    """alpha = (beta - 2 gamma) / m, gamma = y F (stationarity in the gamma variables)."""
    return (beta - 2.0 * y * F) / y.size


def entropy_and_max(alpha):
    p = np.abs(alpha) / np.abs(alpha).sum()
    nz = p[p > 0]
    return float(-np.sum(nz * np.log(nz))), float(p.max())


# --------------------------------------------------------------------------- data

def stumps(X, y, n_thresholds=10):
    pool = StumpPool(n_thresholds=n_thresholds).fit(X)
    return pool.transform(X), pool.operator(X), np.where(y == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
    return stumps(X, y)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.size)[:300]
    return stumps(X[idx], y[idx])


CASES = [("moons", 0.1, 1e-6), ("moons", 0.3, 1e-6), ("cancer", 0.3, 1e-6),
         ("cancer", 0.3, 1e-3)]


@pytest.fixture(scope="module")
def finished(moons, cancer):
    """Runs to termination, keyed by (data, mu, epsilon): (H, y, mu, run)."""
    out = {}
    for name, mu, eps in CASES:
        H, op, y = moons if name == "moons" else cancer
        run = CqBoost(mu=mu, epsilon=eps, max_iter=500).start(op, y).run()
        out[(name, mu, eps)] = (H, y, mu, run)
    return out


def test_coarser_epsilon_stops_earlier(finished):
    fine, coarse = finished[("cancer", 0.3, 1e-6)][3], finished[("cancer", 0.3, 1e-3)][3]
    assert len(coarse.history) < len(fine.history)
    assert coarse.chosen == fine.chosen[:len(coarse.chosen)]


# --------------------------------------------------------------------------- the program

@pytest.mark.parametrize("case", CASES)
def test_restricted_program_is_solved(finished, case):
    H, y, mu, run = finished[case]
    chosen = [r.index for r in run.history]
    assert chosen == run.chosen and len(set(chosen)) == len(chosen)
    T = len(run.history)
    for t in sorted({2, 3, 5, 10, T // 2, T} & set(range(2, T + 1))):
        rec = run.history[t - 1]
        a = run.weights_at(t)
        assert set(rec.support) <= set(chosen[:t])
        assert a.sum() == pytest.approx(1.0, abs=1e-9)
        F = H @ a
        assert rec.objective == pytest.approx(np.mean(F * F), abs=1e-12)
        assert np.mean(y * F) >= mu - 1e-9
        obj, w = restricted_scipy(H, y, chosen[:t], mu)
        assert abs(rec.objective - obj) <= OBJ_TOL, (t, rec.objective, obj)
        assert rec.objective <= obj + OBJ_TOL
        np.testing.assert_allclose(y * F, y * (H[:, chosen[:t]] @ w), atol=MARGIN_TOL)


@pytest.mark.parametrize("case", CASES)
def test_termination_no_column_violates_the_dual_constraint(finished, case):
    H, y, mu, run = finished[case]
    assert run.stop_reason.startswith("no column violates the dual constraint by more than epsilon")
    a = run.weights
    F = H @ a
    m = y.size
    nu, beta = recovered_multipliers(H, y, a, mu)
    assert beta >= -KKT_TOL
    assert abs(nu - run.nu) <= MULT_TOL and abs(beta - run.beta) <= MULT_TOL
    alpha = example_weights(y, F, beta)
    np.testing.assert_allclose(run.alpha, alpha, rtol=0, atol=1e-12)
    edges = H.T @ (y * alpha)
    # chosen columns: edge = nu on the support, <= nu elsewhere (stationarity in w);
    # the rest of the pool: <= nu + epsilon (the stop rule, recomputed)
    supp = a > 1e-6 * a.max()
    assert np.max(np.abs(edges[supp] - nu)) <= KKT_TOL
    assert np.max(edges[run.chosen]) <= nu + KKT_TOL
    assert np.max(edges) <= nu + run.epsilon + KKT_TOL
    # strong duality with the dual derived in the module docstring
    dual = -(m / 4) * np.sum((alpha - beta / m) ** 2) + beta * mu - nu
    assert abs(dual - run.history[-1].objective) <= DUAL_TOL


@pytest.mark.parametrize("case", CASES[:2])
def test_termination_is_within_epsilon_of_the_full_program(finished, case):
    """(alpha, beta, nu + epsilon) is dual feasible for the whole pool, so the restricted
    optimum exceeds the full one by at most epsilon (SLSQP over all 40 voters)."""
    H, y, mu, run = finished[case]
    full, _ = restricted_scipy(H, y, np.arange(H.shape[1]), mu)
    assert -OBJ_TOL <= run.history[-1].objective - full <= run.epsilon + OBJ_TOL


@pytest.mark.parametrize("case", CASES)
def test_steps_follow_algorithm_1(finished, case):
    H, y, _, run = finished[case]
    m = y.size
    objectives = [r.objective for r in run.history]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(objectives))
    assert objectives[-1] < objectives[0]
    gamma_h = H.T @ y / m
    first = run.history[0]
    # uniform example weights: the first column has the largest margin, weight 1
    assert first.index == int(np.argmax(gamma_h)) and first.alpha == 1.0
    assert first.extra["edge"] == pytest.approx(gamma_h.max(), abs=1e-12)
    assert np.isnan(first.extra["violation"])
    for prev, rec in itertools.pairwise(run.history):
        # the example weights after the previous step, rebuilt from its record
        alpha = example_weights(y, H @ run.weights_at(prev.iteration), prev.extra["beta"])
        edges = H.T @ (y * alpha)
        edges[run.chosen[:prev.iteration]] = -np.inf
        assert rec.index not in run.chosen[:prev.iteration]
        assert edges[rec.index] >= edges.max() - 1e-12
        assert rec.extra["edge"] == pytest.approx(edges[rec.index], abs=1e-12)
        assert rec.extra["violation"] == pytest.approx(edges[rec.index] - prev.extra["nu"],
                                                       abs=1e-12)
        assert rec.extra["violation"] > run.epsilon
        h = entropy_and_max(alpha)
        assert prev.extra["example_weight_entropy"] == pytest.approx(h[0], rel=1e-9)
        assert prev.extra["example_weight_max"] == pytest.approx(h[1], rel=1e-9)
        assert prev.extra["example_weight_negative"] == np.mean(alpha < 0)
        assert rec.alpha == run.weights_at(rec.iteration)[rec.index]


def test_duals_match_the_authors_formulation():
    """The program with gamma as variables (as the authors' code writes it, solved by cvxopt
    with its own Lagrangian convention): duals of the gamma rows = the run's example weights,
    dual of sum(w) = 1 = nu, dual of mean(gamma) >= mu = beta."""
    X, y = make_moons(n_samples=80, noise=0.3, random_state=4)
    H, _, y = stumps(X, y, n_thresholds=5)
    mu = 0.2
    run = CqBoost(mu=mu, max_iter=6).start(H, y).run()
    YH = y[:, None] * H[:, run.chosen]
    m, t = YH.shape
    P = np.zeros((t + m, t + m))
    P[t:, t:] = 2.0 / m * np.eye(m)
    A = np.block([[-YH, np.eye(m)], [np.ones((1, t)), np.zeros((1, m))]])
    b = np.concatenate([np.zeros(m), [1.0]])
    G = np.block([[-np.eye(t), np.zeros((t, m))], [np.zeros((1, t)), -np.ones((1, m)) / m]])
    h = np.concatenate([np.zeros(t), [-mu]])
    sol = solvers.qp(*(matrix(np.ascontiguousarray(v, dtype=float).reshape(len(v), -1))
                       for v in (P, np.zeros(t + m), G, h, A, b)),
                     kktsolver="ldl", options={"show_progress": False, "abstol": 1e-13,
                                               "reltol": 1e-12, "feastol": 1e-12})
    assert sol["status"] == "optimal"
    duals = np.array(sol["y"]).ravel()
    np.testing.assert_allclose(run.alpha, duals[:m], rtol=0, atol=1e-8)
    assert run.nu == pytest.approx(duals[m], abs=1e-8)
    assert run.beta == pytest.approx(np.array(sol["z"]).ravel()[-1], abs=1e-8)
    assert run.history[-1].objective == pytest.approx(sol["primal objective"], abs=1e-10)


# --------------------------------------------------------------------------- stepper protocol

def test_dense_and_operator_agree(moons):
    H, op, y = moons
    a = CqBoost(mu=0.3).start(H, y).run()
    b = CqBoost(mu=0.3).start(op, y).run()
    assert a.chosen == b.chosen and a.stop_reason == b.stop_reason
    np.testing.assert_allclose(a.weights, b.weights, atol=1e-10)


def test_max_iter_and_test_error(moons):
    H, op, y = moons
    Ht, yt = H[::2], y[::2]
    run = CqBoost(mu=0.1, max_iter=3).start(op, y, H_test=Ht, y_test=yt).run()
    assert len(run.history) == 3 and run.capped and run.stop_reason == (
        "max_iter reached (3) before the paper's stopping rule: a cap cut the run short "
        "(Algorithm 1 stops once no column's edge exceeds nu + epsilon)")
    assert run.step() is None and len(run.history) == 3
    rec = run.history[-1]
    assert rec.test_error == np.mean(np.where(Ht @ run.weights > 0, 1.0, -1.0) != yt)
    frame = run.to_frame()
    for col in ("edge", "violation", "nu", "beta", "example_weight_entropy",
                "example_weight_max", "example_weight_negative", "solver_iterations"):
        assert col in frame.columns


def test_example_weight_shares_convention():
    """Shares ``|alpha| / sum|alpha|``; an alpha within 1e-9 of the size of its terms
    ``(|beta| + 2 |gamma_i|) / m`` counts as 0; when all vanish, uniform 1/m (never NaN)."""
    alpha = np.array([0.3, -0.1, 0.0, 0.6])
    p, a = example_weight_shares(alpha, np.ones(4))
    np.testing.assert_array_equal(a, alpha)
    np.testing.assert_allclose(p, [0.3, 0.1, 0.0, 0.6], rtol=1e-15)
    p, a = example_weight_shares(np.array([0.5, 1e-12, -0.5]), np.ones(3))
    np.testing.assert_array_equal(a, [0.5, 0.0, -0.5])
    np.testing.assert_array_equal(p, [0.5, 0.0, 0.5])
    for alpha in (np.zeros(3), np.array([1e-17, -2e-17, 0.0])):
        p, a = example_weight_shares(alpha, np.full(3, 0.1))
        np.testing.assert_array_equal(a, 0.0)
        np.testing.assert_array_equal(p, np.full(3, 1.0 / 3.0))


def test_records_when_every_example_weight_vanishes():
    """A perfect voter and its complement on 6 examples: iteration 2's optimum puts every
    margin at mu = beta / 2, so every alpha_i vanishes (round-off).  The extras follow the
    documented convention, uniform shares: max 1/6, entropy ln 6, no negative weight (they
    used to be NaN or round-off read as weights)."""
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
    H = np.column_stack([y, -y])
    run = CqBoost(mu=0.05, epsilon=1e-10).start(H, y).run()
    assert [r.index for r in run.history] == [0, 1]
    extra = run.history[-1].extra
    assert np.mean(y * run.F) == pytest.approx(0.05, abs=1e-9)
    assert extra["example_weight_max"] == pytest.approx(1.0 / 6.0, rel=1e-15)
    assert extra["example_weight_entropy"] == pytest.approx(np.log(6.0), rel=1e-15)
    assert extra["example_weight_negative"] == 0.0


def test_every_voter_chosen_stops():
    """A voter and its complement: both violate the dual constraint, then none is left."""
    rng = np.random.default_rng(9)
    y = rng.choice([-1.0, 1.0], size=30)
    h = np.where(rng.random(30) < 0.8, y, -y)
    run = CqBoost(mu=0.1, epsilon=0.0).start(np.column_stack([h, -h]), y).run()
    assert [r.index for r in run.history] == [0, 1]
    assert run.stop_reason.startswith("every voter of the pool is in the restricted program")
    # the vote is then the optimum of the full program: margins at mean exactly mu
    assert np.mean(y * run.F) == pytest.approx(0.1, abs=1e-9)


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("kwargs", [dict(mu=0), dict(mu=-0.5), dict(mu=1.01), dict(mu="0.1"),
                                    dict(mu=None), dict(mu=False), dict(epsilon=-1e-6),
                                    dict(epsilon=float("inf")), dict(epsilon=float("nan")),
                                    dict(epsilon="0"), dict(epsilon=True), dict(max_iter=0),
                                    dict(max_iter=2.0), dict(delta=0.0), dict(delta=1.5)])
def test_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        CqBoost(**kwargs)


def test_unreachable_mu_gives_the_typed_error(moons):
    H, op, y = moons
    largest = float((H.T @ y).max() / y.size)
    with pytest.raises(QPError) as info:
        CqBoost(mu=largest + 0.01).start(op, y)
    err = info.value
    assert isinstance(err, ParameterError) and err.status == "infeasible"
    assert err.hint.startswith("lower mu: the largest reachable first moment is")
    assert float(err.hint.rsplit(" ", 1)[1]) == pytest.approx(largest, rel=1e-9)
    # mu = the largest margin is reachable: the best column alone, then what lowers mu2
    run = CqBoost(mu=largest).start(op, y).run()
    assert run.history[0].mu1 == pytest.approx(largest, abs=1e-12)
    assert np.mean(y * run.F) >= largest - 1e-9


# --------------------------------------------------------------------------- frozen trajectories

TRAJECTORIES = Path(__file__).parent / "data" / "cqboost_trajectories.npz"
TRAJ_TOL = 1e-9


def trajectory_problems():
    """(name, dense H, y, mu, max_iter): the seeded problems whose trajectories were frozen.

    moons and a breast-cancer sample (10 thresholds, to termination) and a bench-like
    ``make_classification`` set at the paper's mu = 0.001 (40 columns)."""
    X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
    yield ("moons", *stumps(X, y)[::2], 0.1, 500)
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.size)[:300]
    yield ("cancer", *stumps(X[idx], y[idx])[::2], 0.3, 500)
    X, y = bench.make_data(400, 12, seed=2)
    yield ("bench", *stumps(X, y)[::2], 1e-3, 40)


def trajectory(run):
    """Per iteration: pick, objective, nu, beta, margins y F and weights (rows)."""
    h = run.history
    F = np.array([run.H.matvec(run.weights_at(r.iteration)) for r in h])
    return {"index": np.array([r.index for r in h]),
            "objective": np.array([r.objective for r in h]),
            "nu": np.array([r.extra["nu"] for r in h]),
            "beta": np.array([r.extra["beta"] for r in h]),
            "margins": run.y * F,
            "weights": np.array([run.weights_at(r.iteration) for r in h])}


def polished(H, y, mu, index, weights, beta):
    """The frozen optima made exact: on each frozen support F (and with the mu constraint
    held as an equality where the frozen beta is positive), the equality-constrained KKT
    system ``2 K_FF w_F + nu 1 - beta g_F = 0``, ``1^T w_F = 1`` (, ``g_F^T w_F = mu``) solved
    by numpy.  The support leaves out frozen weights below 1e-8 (cvxopt's interior points
    keep up to ~2e-10 on columns whose optimal weight is 0).  Returns the weights (rows) and
    margins ``y H w``."""
    m = y.size
    W = np.zeros_like(weights)
    for t in range(index.size):
        F = index[:t + 1][weights[t, index[:t + 1]] > 1e-8]
        on_mu = beta[t] > 1e-9
        f = F.size
        A = np.zeros((f + 1 + on_mu, f + 1 + on_mu))
        A[:f, :f] = 2.0 * H[:, F].T @ H[:, F] / m
        A[:f, f] = A[f, :f] = 1.0
        rhs = np.zeros(f + 1 + on_mu)
        rhs[f] = 1.0
        if on_mu:
            A[:f, f + 1] = -H[:, F].T @ y / m
            A[f + 1, :f] = H[:, F].T @ y / m
            rhs[f + 1] = mu
        W[t, F] = np.linalg.solve(A, rhs)[:f]
    return W, y * (W @ H.T)


@pytest.mark.parametrize("case", ["moons", "cancer", "bench"])
def test_same_trajectories_as_before_the_warm_start(case):
    """The run reproduces ``tests/algorithms/data/cqboost_trajectories.npz``, frozen from cvxopt's cold
    interior-point solves (commit d436d9e): the same picks, and mu2, nu, beta to 1e-9.  The
    weights and margins equal the frozen optima made exact (:func:`polished`) to 1e-9 (measured
    <= 1.4e-15); against the raw frozen ones they differ by up to 1.8e-9, cvxopt's own error (its
    stationarity residual reaches 5e-10 at tolerances 1e-12, where the active-set solves
    reach 2e-16), so that comparison is to 5e-9.  The optima are unique on these problems:
    the support's columns and ``1`` are linearly independent."""
    frozen = {k.split("/")[1]: v for k, v in np.load(TRAJECTORIES).items()
              if k.startswith(f"{case}/")}
    name, H, y, mu, max_iter = next(p for p in trajectory_problems() if p[0] == case)
    got = trajectory(CqBoost(mu=mu, epsilon=1e-6, max_iter=max_iter).start(H, y).run())
    np.testing.assert_array_equal(got["index"], frozen["index"])
    for key in ("objective", "nu", "beta"):
        np.testing.assert_allclose(got[key], frozen[key], rtol=0, atol=TRAJ_TOL, err_msg=key)
    exact = dict(zip(("weights", "margins"),
                     polished(H, y, mu, frozen["index"], frozen["weights"], frozen["beta"])))
    for key in ("weights", "margins"):
        np.testing.assert_allclose(got[key], exact[key], rtol=0, atol=TRAJ_TOL, err_msg=key)
        np.testing.assert_allclose(got[key], frozen[key], rtol=0, atol=5 * TRAJ_TOL,
                                   err_msg=key)


def test_cold_fallback_gives_the_same_run(moons, monkeypatch):
    """When the active-set method runs out of solves (degenerate cycling), cvxopt's cold
    solve takes over and hands its working set to the next warm start: same picks, weights
    to cvxopt's accuracy."""
    H, op, y = moons
    warm = CqBoost(mu=0.1, max_iter=12).start(op, y).run()
    monkeypatch.setattr(cqboost, "_MAX_SOLVES", -10**6)     # no active-set solve allowed
    cold = CqBoost(mu=0.1, max_iter=12).start(op, y).run()
    assert cold.chosen == warm.chosen
    np.testing.assert_allclose(cold.weights, warm.weights, rtol=0, atol=1e-8)
    assert cold.nu == pytest.approx(warm.nu, abs=1e-9)


def test_singular_working_set_is_solved_by_least_squares():
    """Two voters and their complements all free: the KKT system is singular (f is flat
    along (1, 1, -1, -1)), consistent, and its least-squares optimum satisfies the KKT
    conditions of the program to round-off."""
    rng = np.random.default_rng(3)
    y = rng.choice([-1.0, 1.0], size=50)
    h1, h2 = (np.where(rng.random(50) < p, y, -y) for p in (0.8, 0.7))
    H = np.column_stack([h1, -h1, h2, -h2])
    m = y.size
    K, g = H.T @ H / m, H.T @ y / m
    mu = 0.05
    w0 = np.array([1.0, 0.0, 0.0, 0.0])
    sol = solve_master(K, g, mu, w0, np.ones(4, dtype=bool), False, max_iter=50)
    w = sol.w
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-14)
    assert g @ w >= mu - 1e-14
    xi = 2 * K @ w + sol.nu - sol.beta * g
    assert np.max(np.abs(xi[w > 0])) <= 1e-13 and xi.min() >= -1e-13 and sol.beta >= 0
    obj, _ = restricted_scipy(H, y, np.arange(4), mu)
    assert w @ K @ w == pytest.approx(obj, abs=OBJ_TOL)
