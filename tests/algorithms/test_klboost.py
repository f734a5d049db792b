"""Checks of the KL-regularized learner (cbviz.algorithms.klboost._klboost) against Germain et al.
(NIPS 2009), Sect. 4 and Algorithm 1.

Reference values are recomputed here from the paper's definitions, never through the
module's helpers:

* quasi-uniform posterior ``Q = (1/(2n) + w/2, 1/(2n) - w/2)`` over the 2n voters;
* ``KL(Q || P)`` to the uniform prior by ``scipy.stats.entropy`` (0 ln 0 = 0);
* ``f(w) = C sum_i zeta(y_i sum_k w_k h_k(x_i)) + KL(Q || P)`` with
  ``zeta(M) = (M / gamma - 1)^2`` or ``exp(-M / gamma)`` -- :func:`f_def`;
* the best weight along one coordinate by ``scipy.optimize.minimize_scalar`` (bounded, on
  ``[-1/n, 1/n]``) of :func:`f_def`;
* the stationarity equations exactly as printed in the paper (Eq. 7, Eq. 10, +-1 voters);
* the C-bound ``1 - mean(y F)^2 / mean(F^2)`` of ``F = sum_k w_k h_k``.

Tolerances: 1e-10 (relative) for one number computed two ways (f, KL, C-bound);
``f`` may rise by at most 1e-12 relative per update (round-off of an exact minimization);
1e-7 absolute on a coordinate's argmin vs scipy (bounded Brent locates a minimizer only to
~sqrt(machine eps * f / f''), about 3e-8 here, against a box of half-width ``1/n = 0.125``;
measured deviation <= 3.2e-9); at the range ends C = 1e6, gamma = 1e-4, where scipy minimizes
``log f`` (same minimizer, no overflow of ``exp(-M / gamma)``) whose curvature is ~1e14 larger,
1e-10 (measured <= 4.5e-11) and a rise of ``log f`` of at most 1e-12 over scipy's; the
paper's equations must hold to 1e-9 relative to the size of their terms.  Every random draw
has a fixed seed.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp
from scipy.stats import entropy
from sklearn.datasets import make_moons

from cbviz.algorithms.klboost import _sweeps as kl_kernels
from cbviz.algorithms.base import ParameterError
from cbviz.algorithms.klboost import KLBoost, KLBoostRun
from cbviz.voters import StumpPool
from cbviz.voters._threads import use_engine_threads

REL = 1e-10
RISE = 1e-12
ARG_TOL = 1e-7
STEEP_ARG_TOL = 1e-10
EQ_TOL = 1e-9
LOSSES = ("quadratic", "exponential")


# --------------------------------------------------------------------------- definitions

def quasi_q(w):
    n = w.size
    return np.concatenate([1 / (2 * n) + w / 2, 1 / (2 * n) - w / 2])


def kl_def(Q):
    return float(entropy(Q, np.full(Q.size, 1.0 / Q.size)))


def zeta(margin, loss, gamma):
    return (margin / gamma - 1.0) ** 2 if loss == "quadratic" else np.exp(-margin / gamma)


def f_def(w, Hd, y, loss, C, gamma):
    """The paper's f for signed weights w on the direct voters Hd (m x n)."""
    return float(C * np.sum(zeta(y * (Hd @ w), loss, gamma)) + kl_def(quasi_q(w)))


def log_f_def(w, Hd, y, loss, C, gamma):
    """``log f`` without overflow (exponential loss by log-sum-exp): f's minimizers."""
    M = y * (Hd @ w)
    log_loss = (logsumexp(-M / gamma) if loss == "exponential"
                else math.log(np.sum(zeta(M, loss, gamma))))
    kl = kl_def(quasi_q(w))
    return float(np.logaddexp(math.log(C) + log_loss, math.log(kl) if kl > 0 else -np.inf))


def c_def(F, y):
    mu1, mu2 = np.mean(y * F), np.mean(F * F)
    return 1.0 - mu1**2 / mu2 if mu1 > 0 else 1.0


def w_of(rec, n):
    """Signed weights from a record's Q (w_k = Q_k - Q_{k+n})."""
    Q = np.zeros(2 * n)
    Q[rec.support] = rec.weights
    return Q[:n] - Q[n:], Q


# --------------------------------------------------------------------------- problems

def small_problem(kind, m=40, n=8, seed=0):
    """Direct voters Hd (m x n) and labels; +-1 voters or real voters in [-1, 1]."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], size=m)
    if kind == "pm1":
        agree = rng.uniform(0.45, 0.8, size=n)
        Hd = np.where(rng.random((m, n)) < agree, y[:, None], -y[:, None])
    else:
        Hd = rng.uniform(0.2, 1.0, size=n) * np.tanh(
            rng.uniform(-0.3, 1.0, size=n) * y[:, None] + rng.normal(0, 0.8, size=(m, n)))
    return Hd, y


def complemented(Hd):
    return np.hstack([Hd, -Hd])


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(n_samples=300, noise=0.3, random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    pool = StumpPool(n_thresholds=15).fit(X[:200])
    return {"op": pool.operator(X[:200]), "H": pool.transform(X[:200]), "y": y[:200],
                "Ht": pool.transform(X[200:]), "yt": y[200:], "n": pool.n_base_}


def spy_updates(run):
    """Record (k, w before, w after) around every coordinate update of ``run``."""
    log = []
    inner = run._coordinate

    def wrapped(k):
        before = run.signed_weights
        change = inner(k)
        log.append((int(k), before, run.signed_weights, change))
        return change
    run._coordinate = wrapped
    return log


# --------------------------------------------------------------------------- tests

CASES = [("pm1", "quadratic", 1.0, 0.1), ("pm1", "quadratic", 50.0, 0.02),
         ("pm1", "exponential", 1.0, 0.1), ("pm1", "exponential", 20.0, 0.01),
         ("real", "quadratic", 2.0, 0.05), ("real", "exponential", 2.0, 0.05)]


@pytest.mark.parametrize("kind,loss,C,gamma", CASES)
def test_each_coordinate_update_is_the_exact_line_minimum(kind, loss, C, gamma):
    """Every update matches scipy's bounded minimization of f along that coordinate, f
    never rises within a pass, and the signed weight stays in [-1/n, 1/n]."""
    Hd, y = small_problem(kind, seed=CASES.index((kind, loss, C, gamma)))
    n = Hd.shape[1]
    run = KLBoost(loss, C=C, gamma=gamma, max_iter=3, epsilon=1e-12).start(complemented(Hd), y)
    log = spy_updates(run)
    run.run()
    assert len(log) == 3 * n
    worst = 0.0
    for k, before, after, change in log:
        assert np.array_equal(np.delete(before, k), np.delete(after, k))  # one coordinate
        assert after[k] - before[k] == pytest.approx(change, abs=1e-15)
        assert abs(after[k]) <= 1.0 / n

        line, res = along_coordinate(f_def, before, k, Hd, y, loss, C, gamma)
        f_before, f_after = line(before[k]), line(after[k])
        assert f_after <= f_before + RISE * abs(f_before)
        assert f_after <= res.fun + RISE * abs(res.fun)      # at least as good as scipy
        worst = max(worst, abs(after[k] - res.x))
    assert worst <= ARG_TOL, worst


def along_coordinate(objective, before, k, Hd, y, loss, C, gamma):
    """``objective`` as a function of coordinate ``k`` of the signed weights (the others as in
    ``before``), and scipy's bounded minimum of it over ``[-1/n, 1/n]``."""
    n = Hd.shape[1]

    def line(t):
        w = before.copy()
        w[k] = t
        return objective(w, Hd, y, loss, C, gamma)
    res = minimize_scalar(line, bounds=(-1.0 / n, 1.0 / n), method="bounded",
                          options={"xatol": 1e-14, "maxiter": 5000})
    return line, res


def steep_problem(kind):
    """Direct voters and labels for the range-end tests: one voter h = 1 with y = +1 on 15
    examples and -1 on one (the regression case), or a small +-1 / real problem."""
    if kind == "one":
        y = np.ones(16)
        y[-1] = -1.0
        return np.ones((16, 1)), y
    return small_problem(kind, m=16, n=3, seed=3)


@pytest.mark.parametrize("kind", ["one", "pm1", "real"])
@pytest.mark.parametrize("loss", LOSSES)
def test_coordinate_steps_at_the_range_ends_are_the_line_minima(loss, kind):
    """C = 1e6, gamma = 1e-4 (the registry's range ends): ``phi`` is a near-step, and the
    bracket ``[u0, u0 - phi(u0)]`` is ~1e11 wide around a root ~1e-4 from ``u0`` (brentq
    used to raise RuntimeError on it).  Every update matches scipy's bounded minimization of
    ``log f`` along its coordinate, and f never rises."""
    C, gamma = 1e6, 1e-4
    Hd, y = steep_problem(kind)
    n = Hd.shape[1]
    run = KLBoost(loss, C=C, gamma=gamma, max_iter=3, epsilon=1e-12).start(complemented(Hd), y)
    log = spy_updates(run)
    run.run()
    assert len(log) >= 2 * n
    worst = 0.0
    for k, before, after, _ in log:
        line, res = along_coordinate(log_f_def, before, k, Hd, y, loss, C, gamma)
        assert abs(after[k]) <= 1.0 / n
        assert line(after[k]) <= line(before[k]) + RISE
        assert line(after[k]) <= res.fun + RISE                # at least as good as scipy
        worst = max(worst, abs(after[k] - res.x))
    assert worst <= STEEP_ARG_TOL, worst


@pytest.mark.parametrize("loss", LOSSES)
def test_updates_solve_the_papers_equations_7_and_10(loss):
    """+-1 voters: at the new weight, Eq. 7 (quadratic) / Eq. 10 (exponential) hold, with
    D_w computed before the update (Eqs. 6, 9)."""
    C, gamma = 3.0, 0.1
    Hd, y = small_problem("pm1", seed=5)
    n = Hd.shape[1]
    run = KLBoost(loss, C=C, gamma=gamma, max_iter=3).start(complemented(Hd), y)
    log = spy_updates(run)
    run.run()
    checked = 0
    for k, before, after, _ in log:
        Q = quasi_q(before)
        d = after[k] - before[k]
        num, den = Q[k] + d / 2, Q[k + n] - d / 2
        if den <= 0 or num <= 0:        # weight at a bound: the paper's clipping case
            continue
        h, margin = Hd[:, k], y * (Hd @ before)
        kl_part = 0.5 * math.log(num / den)
        if loss == "quadratic":
            D = margin - gamma                                     # Eq. 6's D_w
            terms = [2 * C * y.size * d / gamma**2, 2 * C / gamma**2 * np.sum(D * y * h), kl_part]
        else:
            D = np.exp(-margin / gamma)                            # Eq. 9's D_w
            terms = [C * math.exp(d / gamma) / gamma * np.sum(D * (h != y)),
                     -C * math.exp(-d / gamma) / gamma * np.sum(D * (h == y)), kl_part]
        assert abs(sum(terms)) <= EQ_TOL * sum(abs(t) for t in terms), (k, terms)
        checked += 1
    assert checked >= n      # the equations were really checked


@pytest.mark.parametrize("loss", LOSSES)
def test_records_objective_kl_and_c_bound(moons, loss):
    """f never increases across passes; the record's objective, KL, C-bound, extras and
    test error equal their definitions for the quasi-uniform Q and the vote sum_k w_k h_k."""
    C, gamma, n = 1.0, 0.1, moons["n"]
    H, y = moons["H"], moons["y"]
    run = KLBoost(loss, C=C, gamma=gamma, max_iter=12).start(moons["op"], y, moons["Ht"],
                                                            moons["yt"])
    run.run()
    f_prev = C * y.size       # w = 0: every loss is 1, KL = 0
    for rec in run.history:
        w, Q = w_of(rec, n)
        assert np.all(np.abs(w) <= 1.0 / n) and np.all(Q >= 0)
        np.testing.assert_allclose(Q, quasi_q(w), rtol=0, atol=1e-15)     # quasi-uniform
        f = f_def(w, H[:, :n], y, loss, C, gamma)
        kl = kl_def(quasi_q(w))
        F = H[:, :n] @ w
        assert rec.objective == pytest.approx(f, rel=REL)
        assert rec.objective <= f_prev + RISE * f_prev
        assert rec.actual_decrease == pytest.approx(f_prev - rec.objective, rel=1e-8, abs=1e-12)
        assert rec.kl == pytest.approx(kl, rel=REL, abs=1e-14)
        assert rec.extra["kl_term"] == pytest.approx(kl, rel=REL, abs=1e-14)
        loss_sum = np.sum(zeta(y * F, loss, gamma))
        assert rec.extra["loss_term"] == pytest.approx(C * loss_sum, rel=REL)
        assert rec.extra["mean_loss"] == pytest.approx(loss_sum / y.size, rel=REL)
        assert rec.c_bound == pytest.approx(c_def(F, y), rel=REL)
        assert rec.mu1 == pytest.approx(np.mean(y * F), rel=REL)
        assert rec.test_error == np.mean(np.sign(moons["Ht"][:, :n] @ w) != moons["yt"])
        f_prev = rec.objective
    assert run.history[-1].objective < 0.9 * C * y.size        # it did learn
    np.testing.assert_allclose(w_of(run.history[-1], n)[0], run.signed_weights, rtol=0, atol=1e-15)


@pytest.mark.parametrize("loss", LOSSES)
def test_operator_and_dense_matrix_give_the_same_run(moons, loss):
    runs = [KLBoost(loss, max_iter=4).start(H, moons["y"]).run() for H in (moons["op"], moons["H"])]
    for a, b in zip(*(r.history for r in runs)):
        np.testing.assert_allclose(a.weights, b.weights, rtol=0, atol=1e-14)
        assert a.objective == pytest.approx(b.objective, rel=1e-12)


@pytest.fixture(scope="module")
def many_features():
    """Stumps on 12 features (7 thresholds each, 84 direct voters): a block of the stump pass
    mixes voters of different features and of the same feature."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=257, n_features=12, n_informative=6, random_state=5)
    y = np.where(y == 1, 1.0, -1.0)
    pool = StumpPool(n_thresholds=7).fit(X)
    return pool.operator(X), pool.transform(X), y


@pytest.mark.parametrize("loss,C,gamma", [("quadratic", 1.0, 0.1), ("quadratic", 50.0, 0.02),
                                          ("quadratic", 1e6, 1e-4), ("exponential", 1.0, 0.1),
                                          ("exponential", 20.0, 0.01),
                                          ("exponential", 1e3, 1e-4)])
def test_blocked_stump_pass_is_the_sequential_pass(many_features, loss, C, gamma):
    """The stump pass updates ``BLOCK`` coordinates per sweep over the examples, each from
    the margins as the earlier ones of its block left them (block start + Gram / bucket
    corrections): the same weights and f after every pass as the dense matrix's path (one
    coordinate at a time, whose updates the tests above check against scipy) and as blocks of
    one and three coordinates."""
    op, Hd, y = many_features
    runs = {}
    for name, H, block, chunk, threads in (
            ("dense", Hd, None, None, 1), ("b1", op, 1, None, 1), ("b3", op, 3, None, 1),
            ("b8", op, 8, None, 1), ("b8-chunks", op, 8, 2, 1), ("b3-chunks-ahead", op, 3, 2, 2),
            ("b8-chunks-ahead", op, 8, 3, 2)):
        run = KLBoost(loss, C=C, gamma=gamma, max_iter=4, epsilon=1e-12).start(H, y)
        if block is not None:
            run._block = block
        with (pytest.MonkeyPatch.context() as mp, use_engine_threads(threads)):
            if chunk is not None:   # several chunks of blocks, made ahead on a helper thread
                mp.setattr(kl_kernels, "CHUNK", chunk)
            runs[name] = run.run()
    ref = runs["dense"].history
    assert len(ref) == 4
    for name in set(runs) - {"dense"}:
        for a, b in zip(runs[name].history, ref, strict=True):
            np.testing.assert_allclose(a.weights, b.weights, rtol=0, atol=1e-13)
            assert a.objective == pytest.approx(b.objective, rel=1e-12)


@pytest.mark.filterwarnings("error")      # no overflow inside the line searches either
@pytest.mark.parametrize("loss,C,gamma", [("exponential", 1e3, 1e-4), ("quadratic", 1e6, 1e-4),
                                          ("exponential", 1e6, 1e4)])
def test_extreme_hyper_parameters_stay_finite_and_in_the_box(loss, C, gamma):
    """Range ends: weights pinned at +-1/n by the loss, or almost flat loss; f still falls."""
    Hd, y = small_problem("real", seed=7)
    n = Hd.shape[1]
    run = KLBoost(loss, C=C, gamma=gamma, max_iter=6).start(complemented(Hd), y)
    run.run()
    f = [C * y.size] + [r.objective for r in run.history]
    assert np.all(np.isfinite(f))
    assert np.all(np.diff(f) <= RISE * np.abs(f[:-1]))
    for rec in run.history:
        w, Q = w_of(rec, n)
        assert np.all(np.abs(w) <= 1.0 / n) and np.all(Q >= 0)
        assert rec.objective == pytest.approx(f_def(w, Hd, y, loss, C, gamma), rel=REL)


def test_stop_rule_epsilon():
    Hd, y = small_problem("pm1", seed=11)
    n = Hd.shape[1]
    run = KLBoost("quadratic", C=1.0, gamma=0.2, epsilon=1e-6, max_iter=500).start(
        complemented(Hd), y)
    run.run()
    hist = run.history
    assert run.done and len(hist) < 500
    assert "epsilon = 1e-06" in run.stop_reason and f"pass {len(hist)}" in run.stop_reason
    ws = np.array([np.zeros(n)] + [w_of(r, n)[0] for r in hist])
    moved = np.max(np.abs(np.diff(ws, axis=0)), axis=1)
    np.testing.assert_allclose([r.extra["max_weight_change"] for r in hist], moved, rtol=0,
                               atol=1e-15)
    assert moved[-1] <= 1e-6 and np.all(moved[:-1] > 1e-6)
    assert run.step() is None and len(run.history) == len(hist)
    # a looser epsilon stops earlier; max_iter stops a run that has not converged
    loose = KLBoost("quadratic", C=1.0, gamma=0.2, epsilon=1e-3, max_iter=500).start(
        complemented(Hd), y).run()
    assert len(loose.history) < len(hist) and "epsilon = 0.001" in loose.stop_reason
    capped = KLBoost("quadratic", C=1.0, gamma=0.2, epsilon=1e-6, max_iter=3).start(
        complemented(Hd), y).run()
    assert capped.capped and capped.stop_reason == (
        "max_iter reached (3) before the paper's stopping rule: a cap cut the run short "
        "(Algorithm 1 repeats passes until one moves no weight by more than epsilon, Sect. 4.1)")
    assert not loose.capped and not run.capped


def test_determinism_and_order_independence_of_the_minimum():
    """Same seed: identical runs.  Other seed: other path, same minimizer (f is strictly
    convex: KL is strongly convex in w)."""
    Hd, y = small_problem("pm1", seed=13)
    H = complemented(Hd)

    def go(seed, eps=1e-6):
        return KLBoost("exponential", C=1.0, gamma=0.2, epsilon=eps, max_iter=2000,
                       random_state=seed).start(H, y).run()
    a, b, c = go(0), go(0), go(1)
    assert len(a.history) == len(b.history)
    for ra, rb in zip(a.history, b.history):
        np.testing.assert_array_equal(ra.weights, rb.weights)
        assert ra.objective == rb.objective
    assert not np.array_equal(a.history[0].weights, c.history[0].weights)
    tight = [go(s, eps=1e-12) for s in (0, 1)]
    assert all(r.stop_reason.startswith("converged") for r in tight)
    np.testing.assert_allclose(tight[0].signed_weights, tight[1].signed_weights, rtol=0, atol=1e-9)


def test_a_pass_visits_every_voter_once_in_a_seeded_order():
    Hd, y = small_problem("pm1", seed=17)
    run = KLBoost(max_iter=2, random_state=4).start(complemented(Hd), y)
    log = spy_updates(run)
    run.run()
    rng = np.random.default_rng(4)
    expected = np.concatenate([rng.permutation(Hd.shape[1]) for _ in range(2)])
    np.testing.assert_array_equal([k for k, *_ in log], expected)


def test_pool_must_be_self_complemented():
    X, _ = make_moons(n_samples=40, random_state=0)
    direct = StumpPool(n_thresholds=5, complements=False).fit(X)
    Hd, y = small_problem("pm1")          # 40 examples
    for H in (direct.operator(X), direct.transform(X), Hd, np.hstack([Hd, -Hd[:, ::-1]]),
              np.hstack([Hd, -Hd, Hd[:, :1]])):
        with pytest.raises(ParameterError, match="self-complemented"):
            KLBoost().start(H, y)


@pytest.mark.parametrize("kwargs,name", [
    ({"loss": "hinge"}, "loss"), ({"loss": None}, "loss"),
    ({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"C": float("nan")}, "C"),
    ({"C": float("inf")}, "C"), ({"C": 2e6}, "C"), ({"C": True}, "C"), ({"C": "1"}, "C"),
    ({"gamma": 0.0}, "gamma"), ({"gamma": 5e-5}, "gamma"), ({"gamma": 2e4}, "gamma"),
    ({"gamma": float("nan")}, "gamma"), ({"gamma": None}, "gamma"),
    ({"epsilon": 0.0}, "epsilon"), ({"epsilon": -1e-6}, "epsilon"), ({"epsilon": 1.5}, "epsilon"),
    ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"),
    ({"random_state": -1}, "random_state"), ({"random_state": 1.5}, "random_state"),
    ({"delta": 0.0}, "delta"), ({"delta": 1.5}, "delta")])
def test_bad_hyper_parameters_raise(kwargs, name):
    with pytest.raises(ParameterError,
                       match=rf"^The '{name}' parameter of KLBoost must be .*\. Got .* instead\.$"):
        KLBoost(**kwargs)


def test_range_ends_are_accepted_and_stored():
    est = KLBoost("exponential", C=1e6, gamma=1e-4, epsilon=1e-12, max_iter=1, random_state=None,
                  delta=1.0)
    assert (est.loss, est.C, est.gamma, est.epsilon, est.random_state) == (
        "exponential", 1e6, 1e-4, 1e-12, None)
    KLBoost(gamma=1e4, C=np.float64(0.5), max_iter=np.int64(3))
    Hd, y = small_problem("pm1")
    assert isinstance(KLBoost().start(complemented(Hd), y), KLBoostRun)


# --------------------------------------------------------------------------- frozen trajectories

TRAJECTORIES = Path(__file__).parent / "data" / "klboost_trajectories.npz"
TRAJ_TOL = 1e-9


def trajectory_problems():
    """(name, H, y, params): the three data sets of this file (``small_problem`` +-1 and real
    voters, the moons stump operator), each loss, moderate and steep (C, gamma)."""
    X, y = make_moons(n_samples=300, noise=0.3, random_state=3)
    y = np.where(y == 1, 1.0, -1.0)
    sets = {"pm1": (complemented(small_problem("pm1", seed=0)[0]), small_problem("pm1", seed=0)[1]),
            "real": (complemented(small_problem("real", seed=4)[0]),
                     small_problem("real", seed=4)[1]),
            "moons": (StumpPool(n_thresholds=15).fit(X[:200]).operator(X[:200]), y[:200])}
    for name, (H, yy) in sets.items():
        for loss in LOSSES:
            for C, gamma in ((1.0, 0.1), (50.0, 0.02)):
                yield (f"{name}-{loss}-{C:g}-{gamma:g}", H, yy,
                       dict(loss=loss, C=C, gamma=gamma, max_iter=8, epsilon=1e-12,
                            random_state=1))


def trajectory(run):
    """Per pass: f and the signed weights (rows)."""
    n = run.H.shape[1] // 2
    return {"objective": np.array([r.objective for r in run.history]),
            "weights": np.array([w_of(r, n)[0] for r in run.history])}


@pytest.mark.parametrize("case", [name for name, *_ in trajectory_problems()])
def test_same_trajectories_as_before_the_compiled_passes(case):
    """f after every pass and the signed weights equal those frozen in
    ``tests/algorithms/data/klboost_trajectories.npz`` (generated with the pure-Python coordinate
    updates of commit d436d9e, scipy's brentq on each line) to 1e-9 relative / absolute."""
    frozen = np.load(TRAJECTORIES)
    name, H, y, params = next(p for p in trajectory_problems() if p[0] == case)
    got = trajectory(KLBoost(**params).start(H, y).run())
    np.testing.assert_allclose(got["objective"], frozen[f"{case}/objective"], rtol=TRAJ_TOL,
                               atol=0)
    np.testing.assert_allclose(got["weights"], frozen[f"{case}/weights"], rtol=0, atol=TRAJ_TOL)
