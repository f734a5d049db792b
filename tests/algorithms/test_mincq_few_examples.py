"""MinCq's Gram-free solver with few examples and many (near-duplicate) voters.

Real sets with every midpoint as a stump threshold (breast cancer: 398 examples, 11,042 direct
stumps) made the face polish of the accelerated gradient stall: the Hessian ``2 H^T H / m``
has rank at most ``m`` while the faces had thousands of free coordinates (measured before the
proximal Newton solver: 20,000 products and a relative gap of 5e-3 on breast cancer, every
midpoint, quasi-uniform form; the simplex form of breast cancer with 5 thresholds, 300 voters,
stalled too).  Here each such program must reach status "optimal", and the certificate is
recomputed from the definitions: ``G = 2 H^T H x / m``, the gap ``G.x - min_{s in set} G.s``
bounded above with the Lagrangian lower bound of the minimum at the multiplier scipy's HiGHS
finds, refined (valid for any multiplier), at most ``rtol |H x|^2 / m``.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import linprog

from cbviz.algorithms import MinCq
from cbviz.problem import Settings, build_problem

RTOL = 1e-6          # the solver's default: gap <= rtol |F|^2 / m
FEAS = 1e-9
CASES = [("breast_cancer", "all"), ("breast_cancer", "50"), ("breast_cancer", "100"),
         ("ionosphere", "all"), ("pima", "all")]
_PROBLEMS = {}


def problem(data, thresholds):
    key = (data, thresholds)
    if key not in _PROBLEMS:
        p = build_problem(Settings(source="real", real=data, n_thresholds=thresholds))
        _PROBLEMS[key] = (p.H_train, p.split.y_train)
    return _PROBLEMS[key]


def best_bound(dual, start, low=-np.inf):
    """The largest value met of a concave piecewise-linear ``dual(t) -> (value, slope)`` of
    one multiplier, by bisection on the sign of its slope from HiGHS's multiplier ``start``
    (optimal to HiGHS's tolerances only); every value is a valid lower bound."""
    best, slope = dual(start)
    width = 1e-6 * (abs(start) + 1e-6)
    lo = hi = start
    for _ in range(200):                     # a bracket: slope > 0 at lo, <= 0 at hi
        if slope > 0:
            lo, hi = hi, hi + width
            value, slope = dual(hi)
        else:
            lo, hi = max(lo - width, low), lo
            value, slope = dual(lo)
            if lo == low:
                best = max(best, value)
                if slope <= 0:
                    return best
        best = max(best, value)
        width *= 2.0
        if dual(lo)[1] > 0 >= dual(hi)[1]:
            break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        value, slope = dual(mid)
        best = max(best, value)
        if slope > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-16 * abs(hi):
            break
    return best


def box_hyperplane_min(G, g, mu, b):
    """A lower bound on ``min G.s`` over ``|s_i| <= b, g.s = mu``: for any ``lam``,
    ``lam mu - b sum_i |G_i - lam g_i|``; ``lam`` from HiGHS, refined."""
    lp = linprog(G, A_eq=g[None, :], b_eq=[mu], bounds=(-b, b), method="highs")
    assert lp.status == 0

    def dual(lam):
        r = G - lam * g
        return lam * mu - b * float(np.abs(r).sum()), mu + b * float(g @ np.sign(r))
    return best_bound(dual, float(lp.eqlin.marginals[0]))


def simplex_halfspace_min(G, g, mu):
    """A lower bound on ``min G.s`` over ``s >= 0, sum(s) = 1, g.s >= mu``: for any
    ``beta >= 0``, ``beta mu + min_i (G_i - beta g_i)``; ``beta`` from HiGHS, refined."""
    lp = linprog(G, A_ub=-g[None, :], b_ub=[-mu], A_eq=np.ones((1, G.size)), b_eq=[1.0],
                 bounds=(0, None), method="highs")
    assert lp.status == 0

    def dual(beta):
        r = G - beta * g
        i = int(np.argmin(r))
        return beta * mu + float(r[i]), mu - float(g[i])
    return best_bound(dual, max(-float(lp.ineqlin.marginals[0]), 0.0), low=0.0)


def certificate(run, form):
    """(relative gap recomputed from the definitions, f = |F|^2 / m, largest infeasibility)."""
    H, y, m, mu = run.H, run.y, run.y.size, run.mu
    half = H.shape[1] // 2
    Hd = H.columns(np.arange(half))
    a = run.weights
    if form == "quasi_uniform":
        w = a[:half] - a[half:]
        g, b = Hd.T @ y / m, 1.0 / half
        F = Hd @ w
        G = 2.0 * Hd.T @ F / m
        low = box_hyperplane_min(G, g, mu, b)
        infeasible = max(abs(g @ w - mu), float(np.abs(w).max()) - b)
        gap = G @ w - low
    else:
        Hq = np.hstack([Hd, -Hd])                       # the pool is self-complemented
        g = Hq.T @ y / m
        F = Hq @ a
        G = 2.0 * Hq.T @ F / m
        low = simplex_halfspace_min(G, g, mu)
        infeasible = max(abs(a.sum() - 1.0), mu - g @ a, -float(a.min()))
        gap = G @ a - low
    np.testing.assert_allclose(F, run.F, rtol=0, atol=1e-12)
    f = float(F @ F) / m
    return gap / f, f, infeasible


@pytest.mark.parametrize("form", ["quasi_uniform", "simplex"])
@pytest.mark.parametrize("data,thresholds", CASES)
def test_every_midpoint_pools_are_certified(data, thresholds, form):
    H, y = problem(data, thresholds)
    run = MinCq(form=form, solver="gram_free").start(H, y)
    rec = run.step()
    assert rec.extra["solver_status"] == "optimal", (rec.extra["solver_phases"], run.stop_reason)
    assert run.stop_reason == "MinCq solved its quadratic program (optimal)"
    assert "newton" in rec.extra["solver_phases"]
    ratio, f, infeasible = certificate(run, form)
    assert infeasible <= FEAS
    assert ratio <= RTOL, ratio
    assert rec.extra["duality_gap"] <= RTOL * f            # the record's gap (objective units)


@pytest.mark.parametrize("form", ["quasi_uniform", "simplex"])
@pytest.mark.parametrize("data,thresholds", [("breast_cancer", "5"), ("wdbc", "10")])
def test_small_pools_that_stalled_agree_with_cvxopt(data, thresholds, form):
    """300 (breast cancer, 5 thresholds) and 600 (WDBC, 10 thresholds) direct or simplex
    voters on 398 examples: the simplex forms stalled at 20,000 products with a relative gap of
    4e-2 and 2e-2; cvxopt solves them (up to 600 variables).  Objectives within 1e-6
    relative (measured: <= 3e-9)."""
    H, y = problem(data, thresholds)
    ref = MinCq(form=form, solver="cvxopt").start(H, y).step()
    run = MinCq(form=form, solver="gram_free").start(H, y)
    rec = run.step()
    assert rec.extra["solver_status"] == "optimal"
    assert abs(rec.objective - ref.objective) <= 1e-6 * abs(ref.objective)
    assert abs(rec.c_bound - ref.c_bound) <= 1e-6
    ratio, _, infeasible = certificate(run, form)
    assert infeasible <= FEAS and ratio <= RTOL


def test_a_stop_before_the_certificate_says_so():
    """A budget too small to certify: the stop reason names the products, the gap left and its
    share of the objective (not "solved")."""
    H, y = problem("breast_cancer", "all")
    run = MinCq(solver="gram_free", max_products=100).start(H, y)
    rec = run.step()
    assert rec.extra["solver_status"] == "max products"
    match = re.fullmatch(r"MinCq stopped after (\d+) operator products without certifying the "
                         r"optimum \(duality gap (\S+), (\S+)% of the objective\)",
                         run.stop_reason)
    assert match, run.stop_reason
    assert int(match.group(1)) == rec.extra["solver_products"]
    assert float(match.group(2)) == pytest.approx(rec.extra["duality_gap"], rel=0.06)
    assert float(match.group(3)) == pytest.approx(
        100 * rec.extra["duality_gap"] / abs(rec.objective), rel=0.06)


def l1_program(n, seed):
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(0.0, 0.2, n), 2)            # ties, as duplicate voters give
    c = 0.6 * float(np.abs(a).max())
    return rng, a, c


@pytest.mark.parametrize("seed", range(6))
def test_l1_halfspace_projection_and_linear_minimum(seed):
    """L1Halfspace (the simplex form on a self-complemented pool's direct voters): its
    projection is cvxopt's ``argmin |w - z|^2`` over ``|w|_1 <= 1, a.w >= c`` (written with
    ``|w_i| <= t_i, sum t <= 1``), its linear minimum HiGHS's, inside and outside the ball."""
    from cbviz.algorithms.mincq._sets import L1Halfspace
    from cbviz.algorithms._qp import solve_qp
    n = 25
    rng, a, c = l1_program(n, seed)
    fset = L1Halfspace(a, c)
    eye, zero = np.eye(n), np.zeros((n, n))
    G_ineq = np.vstack([np.hstack([eye, -eye]), np.hstack([-eye, -eye]),
                        np.concatenate([np.zeros(n), np.ones(n)])[None, :],
                        np.concatenate([-a, np.zeros(n)])[None, :]])
    h = np.concatenate([np.zeros(2 * n), [1.0, -c]])
    P = np.block([[2 * eye, zero], [zero, 1e-12 * eye]])
    for scale in (0.01, 0.2, 3.0):
        z = rng.normal(0.0, scale, n)
        w = fset.project(z)
        ref = solve_qp(P, np.concatenate([-2 * z, np.zeros(n)]), G_ineq, h,
                       np.zeros((0, 2 * n)), np.zeros(0), what="reference", hint="")
        np.testing.assert_allclose(w, ref.x[:n], atol=1e-7)
        assert np.abs(w).sum() <= 1 + 1e-12 and a @ w >= c - 1e-12
        G = rng.normal(0.0, 1.0, n)
        lp = linprog(np.concatenate([G, np.zeros(n)]), A_ub=G_ineq, b_ub=h,
                     bounds=(None, None), method="highs")
        assert fset.lmo_value(G) == pytest.approx(lp.fun, abs=1e-9)
        assert fset.lmo_value(G) <= lp.fun + 1e-12             # a lower bound


def test_michelot_threshold_of_huge_values():
    """The simplex's threshold ``nu`` (``sum max(y - nu, 0) = 1``) of values above 2^53: the
    first guess ``max(y) - 1`` used to round to ``max(y)``, leaving no value above it."""
    from cbviz.algorithms.mincq._simplex import simplex_nu
    y = np.array([3e16, 0.0, -5.0, 3e16 - 1e3])
    assert abs(simplex_nu(y) - (3e16 - 1.0)) <= 8.0
    assert simplex_nu(np.array([0.25, 0.5, 2.0])) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["l1", "simplex", "box"])
def test_projections_of_far_points_are_feasible_and_exact(name, seed):
    """The proximal Newton steps project ``z = x_k - sigma G`` with ``sigma`` up to ~10^5 and
    more: ``x`` is then a difference of numbers ~``|z|``, and the sets' rows used to be off by
    ~``eps |z| |a|_1`` whatever the multipliers (measured here: 2e-10 for the l1 ball and the
    simplex at ``sigma = 1e6``, 3e-12 for the box; 7.8e-9 below ``mu`` on ionosphere with every
    midpoint).  Each projection must be feasible to rounding at ``x``'s own scale and still the
    projection: ``(x - z).(s - x) >= 0`` for every ``s`` in the set, i.e.
    ``r.x - min_s r.s ~ 0`` with ``r = x - z`` (the sets' linear minimum)."""
    from cbviz.algorithms.mincq._sets import BoxHyperplane, L1Halfspace, SimplexHalfspace
    rng = np.random.default_rng(seed)
    m, n = 40, 400
    H = rng.choice([-1.0, 1.0], size=(m, n))
    a = H.T @ rng.choice([-1.0, 1.0], size=m) / m
    if name == "l1":
        fset, Hx = L1Halfspace(a, 0.5 * float(np.abs(a).max())), H
    elif name == "simplex":
        fset, Hx = SimplexHalfspace(np.concatenate([a, -a]), 0.5 * float(np.abs(a).max())), \
            np.hstack([H, -H])
    else:
        fset, Hx = BoxHyperplane(a, 0.5 * float(np.abs(a).mean()), -1.0 / n, 1.0 / n), H
    x = fset.project(np.full(fset.a.size, 1.0 / fset.a.size))
    for sigma in (1.0, 1e2, 1e4, 1e6):
        for _ in range(3):                       # proximal gradient steps of f = |H x|^2 / m
            z = x - sigma * 2.0 * Hx.T @ (Hx @ x) / m
            x = fset.project(z)
            ax = float(np.sum(fset.a * x)) - fset.c
            if name == "l1":
                infeasible = max(-ax, float(np.sum(np.abs(x))) - 1.0)
            elif name == "simplex":
                infeasible = max(-ax, abs(float(np.sum(x)) - 1.0), -float(x.min()))
            else:
                infeasible = max(abs(ax), float(np.abs(x).max()) - fset.hi)
            assert infeasible <= 1e-15, (sigma, infeasible)
            r = x - z
            assert float(np.sum(r * x)) - fset.lmo_value(r) <= 1e-14 * float(np.abs(r).max())
