"""Defaults against the papers, stop reasons that tell a cap from the paper's rule, and
CqBoost's data-dependent upper limit on mu.

Where a paper has a stopping rule of its own (CqBoost's epsilon rule, Algorithm 1 of the
KL-regularized learner, QuadBoost-L1's eq. 7) the factory's default runs to it
(``max_iter=None``; QuadBoost keeps the T of its other variants) and a finite ``max_iter``
that comes first is a cap: ``run.capped`` and a reason that says so.  Where the paper runs a
fixed number of iterations T (CB-Boost, AdaBoost, VEB-Boost, QuadBoost vanilla / L2 / Linf),
``max_iter`` is that T and reaching it is the paper's rule.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.datasets import make_moons

from cbviz.algorithms import (ALGORITHMS, AdaBoost, CBBoost, CqBoost, KLBoost, MinCq,
                              MuLimitError, ParameterError, QuadBoost, VEBBoost)
from cbviz.algorithms.cqboost import mu_limit
from cbviz.voters import StumpPool

CAP = "before the paper's stopping rule: a cap cut the run short ("
T_RULE = "the paper's rule, a fixed number of iterations T = "

# each factory's defaults, with the paper's word on each (in the factory's docstring)
PAPER_DEFAULTS = {
    CqBoost: {"max_iter": None,        # Algorithm 1 loops until its epsilon rule
              "epsilon": 1e-6},        # Sect. 7: "set to 10^-6"
    KLBoost: {"max_iter": None},       # Algorithm 1: "repeat ... until convergence"
    CBBoost: {"direction": "exhaustive", "eligible": "theorem3", "reuse_voters": False},
    QuadBoost: {"regularization": None, "reweight": False,
                "alpha_max": 0.05},    # inside the paper's range [1e-4, 1e-1]
}


def defaults(factory):
    return {name: p.default for name, p in inspect.signature(factory).parameters.items()
            if p.default is not inspect.Parameter.empty}


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=200, noise=0.3, random_state=0)
    pool = StumpPool(n_thresholds=20).fit(X)
    return pool.transform(X), pool.operator(X), np.where(y == 1, 1.0, -1.0), pool


@pytest.mark.parametrize("factory", list(PAPER_DEFAULTS), ids=lambda f: f.__name__)
def test_defaults_are_the_papers(factory):
    got = defaults(factory)
    for name, value in PAPER_DEFAULTS[factory].items():
        assert got[name] == value, (factory.__name__, name, got[name])
    # what the default builds
    assert {k: getattr(factory(), k) for k in PAPER_DEFAULTS[factory]} == PAPER_DEFAULTS[factory]


def test_the_app_shows_the_packages_defaults():
    """The registry's widget defaults are the factories' (QuadBoost's lam excepted: the
    factory's None picks 0.01 for L1 and 1 for L2, the widget shows one number)."""
    for key, spec in ALGORITHMS.items():
        own = defaults(spec.factory)
        for p in spec.params:
            if (key, p.name) != ("quadboost", "lam"):
                assert p.default == own[p.name], (key, p.name, p.default, own[p.name])


def test_cqboost_runs_to_algorithm_1s_rule_by_default(moons):
    H, op, y, _ = moons
    run = CqBoost().start(op, y).run()
    assert run.max_iter is None and not run.capped
    assert run.stop_reason.startswith("no column violates the dual constraint by more than "
                                      "epsilon (largest edge")
    t = len(run.history)
    assert t > 3
    # a cap below t cuts the run short, and says so
    short = CqBoost(max_iter=3).start(op, y).run()
    assert short.capped and len(short.history) == 3
    assert short.stop_reason == ("max_iter reached (3) " + CAP + "Algorithm 1 stops once no "
                                 "column's edge exceeds nu + epsilon)")
    # a cap at t does not: the epsilon rule holds there, and that is the reason given
    exact = CqBoost(max_iter=t).start(op, y).run()
    assert not exact.capped and exact.stop_reason == run.stop_reason
    np.testing.assert_array_equal(exact.weights, run.weights)


def test_klboost_runs_to_convergence_by_default(moons):
    _, op, y, _ = moons
    run = KLBoost().start(op, y).run()
    assert run.max_iter is None and not run.capped
    assert run.stop_reason.startswith("converged: no weight moved by more than epsilon = 1e-06")
    short = KLBoost(max_iter=2).start(op, y).run()
    assert short.capped and CAP in short.stop_reason and "Sect. 4.1" in short.stop_reason


def test_quadboost_l1_cap_and_own_rule(moons):
    _, op, y, _ = moons
    full = QuadBoost("l1", lam=0.02, max_iter=None).start(op, y).run()
    assert not full.capped and full.stop_reason.startswith("no voter outside the ensemble has")
    t = len(full.history)
    short = QuadBoost("l1", lam=0.02, max_iter=t - 1).start(op, y).run()
    assert short.capped and short.stop_reason == (
        f"max_iter reached ({t - 1}) " + CAP + "eq. (7) stops once no voter has |mu_j - M_j| > "
        "lambda)")
    exact = QuadBoost("l1", lam=0.02, max_iter=t).start(op, y).run()
    assert not exact.capped and exact.stop_reason == full.stop_reason
    # vanilla QuadBoost's T is the paper's early stopping, not a cap
    vanilla = QuadBoost(max_iter=4).start(op, y).run()
    assert not vanilla.capped and vanilla.stop_reason == f"max_iter reached (4): {T_RULE}4"


@pytest.mark.parametrize("factory", [CBBoost, AdaBoost, VEBBoost], ids=lambda f: f.__name__)
def test_t_is_the_papers_rule_and_needs_a_number(factory, moons):
    _, op, y, _ = moons
    run = factory(max_iter=5).start(op, y).run()
    assert not run.capped and run.stop_reason == f"max_iter reached (5): {T_RULE}5"
    with pytest.raises(ParameterError, match="max_iter"):
        factory(max_iter=None)   # no rule of their own to run to (the papers' T is the rule)


def test_mincq_reports_its_product_budget_as_a_cap(moons):
    _, op, y, _ = moons
    run = MinCq(solver="gram_free", max_products=5).start(op, y).run()
    assert run.capped and "operator products without certifying" in run.stop_reason
    assert not MinCq().start(op, y).run().capped


# ------------------------------------------------------------------ CqBoost's upper limit on mu

def test_mu_limit_is_the_best_single_voters_first_moment(moons):
    """The program's constraint is g^T w >= mu with g_k = mean(y h_k) and w on the simplex:
    g^T w is an average of the g_k, so its largest value is max_k g_k (one voter alone)."""
    H, op, y, pool = moons
    g = H.T @ y / y.size
    limit, best = mu_limit(op, y)
    assert limit == pytest.approx(g.max(), abs=1e-15) and g[best] == g.max()
    assert mu_limit(H, y) == (limit, best)
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.full(g.size, 0.1), size=2000)   # no posterior goes beyond it
    assert (w @ g).max() <= limit + 1e-15
    assert CqBoost().start(op, y).largest_mu == limit
    # at the limit: accepted, and the best voter alone reaches it
    run = CqBoost(mu=limit).start(op, y, describe=pool.describe).run()
    assert np.mean(y * run.F) / run.weights.sum() >= limit - 1e-9


def test_mu_above_the_limit_names_both_numbers_and_the_voter(moons):
    _, op, y, pool = moons
    limit, best = mu_limit(op, y)
    mu = min(1.0, limit + 0.05)
    with pytest.raises(MuLimitError) as caught:
        CqBoost(mu=mu).start(op, y, describe=pool.describe)
    err = caught.value
    assert isinstance(err, ValueError) and isinstance(err, ParameterError)
    assert err.mu == mu and err.limit == limit and err.status == "infeasible"
    text = str(err)
    assert text.startswith(f"CqBoost: mu = {mu:.10g} is above its upper limit on these data, "
                           f"{limit:.10g}: the first moment of the margin of the best single "
                           f"voter (voter {best}, {pool.describe(best)}), max_k mean(y h_k)")
    assert f"the largest reachable first moment is {limit:.10g}" in text
