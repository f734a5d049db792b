"""Property tests (hypothesis) of every algorithm of ``cbviz.algorithms.ALGORITHMS``.

Inputs (:func:`problems`): self-complemented voter matrices ``H = [A, -A]`` with m in 2..40
examples and n/2 in 1..12 direct voters, labels in {-1, +1} with both classes.  Three
families, one test each, for every algorithm:

* ``test_random_runs``: outputs in {-1, +1} or real (0, -0.0, or of magnitude in [1e-9, 1]);
  half of the draws random, half degenerate: two identical voters, a voter that abstains
  everywhere (h = 0), or every voter at chance (each example twice, once per label, so
  ``mean(y h) = 0`` for every voter);
* ``test_perfect_voter``: the same with a perfect voter (h = y) in the pool;
* ``test_tiny_outputs``: real outputs of any magnitude (subnormals included) with the whole
  matrix scaled by 10^-k, k <= 320.

Hyper-parameters are drawn from each spec's ``params`` (either end of a range, or a value in
it, log-uniform where the spec says so); ``mu`` as a fraction of the largest first moment the
program can reach, recomputed here from its definition.  The training set is also given as
the test set.

Properties of every record (:func:`check_records`):

* every ``float`` field of :class:`~cbviz.algorithms.base.Record` (read from the dataclass's
  annotations) is a finite float; the ``float | None`` ones may be None, except
  ``test_error`` (test data are given); every number in ``extra`` is finite except CqBoost's
  ``violation`` at iteration 1 (NaN, as documented);
* C-bound, Gibbs risk, joint error, train/test error and the four PAC-Bayes bounds in [0, 1],
  mu1 in [-1, 1], mu2 in [0, 1], mu1^2 <= mu2, disagreement in [0, 1/2], KL in [0, ln n];
* the record is the vote's: mu1 and mu2 recomputed from ``support``/``weights`` and H agree;
  weights positive and finite; train error = test error (same data); ``iteration`` counts
  1, 2, ...; ``index`` is None or a voter of the pool.

Properties of every run (:func:`check_stop`, :func:`check_monotone`): at most ``max_iter``
records; ``done`` with a non-empty ``stop_reason`` string; "max_iter reached" only with
``max_iter`` records; ``step()`` after the end returns None; the monotonicity each paper
proves (:data:`MONOTONE`): CB-Boost's C-bound, QuadBoost's regularized quadratic risk, the KL
learner's f, VEB-Boost's cost, AdaBoost's exponential loss and CqBoost's restricted optimum
never rise, starting from their value at the empty (KL: uniform) vote where there is one.
The only exception allowed is QPError from MinCq and CqBoost: "infeasible" exactly when mu is
above the reachable largest, a solver failure otherwise.

Extreme hyper-parameters (:data:`EXTREMES`: every choice, both ends of every range, mu at the
registry's lower end, at the reachable largest and 1e-6 below it, mu = 1e-9 and 1e-12 through
the factories; max_iter 1 and 25, and 10,000 on tiny matrices on which every setting stops by
its own rule) raise nothing but :class:`~cbviz.algorithms.ParameterError` (QPError included)
with a message, and otherwise give runs with all the properties above.

The bugs these properties found are fixed; their minimal cases are the regression tests at
the end.

Tolerances: TOL = 1e-12 (relative to max(1, |value|)) for a range end and for a rise of a
value summed from at most ~10^3 rounded terms (largest rise seen: 5e-14, the KL learner's f);
MOMENT_TOL = 1e-12 for a moment recomputed from the weights along another summation order
(largest seen: 1.2e-15); QP_RISE = 1e-11 for CqBoost, whose objectives come from the
interior-point solver of ``cbviz.algorithms._qp`` (relative gap 1e-12; largest rise seen:
6e-14).  Hypothesis runs derandomized (the same examples every run) without an example
database; CBVIZ_PROPERTY_SCALE=k draws k times as many examples.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import brentq

from cbviz.algorithms import (ALGORITHMS, CBBoost, CqBoost, MinCq, ParameterError, QPError,
                              Record)

SCALE = int(os.environ.get("CBVIZ_PROPERTY_SCALE", "1"))
TOL = 1e-12         # range ends and rises of values summed from at most ~10^3 rounded terms
MOMENT_TOL = 1e-12  # record moments against a recomputation from the weights
QP_RISE = 1e-11     # CqBoost: rise of the restricted optimum within the solver's accuracy
MAX_ITER = 25       # cap of the random runs (KL passes, boosting steps)
HUGE_T = 10_000     # max_iter of test_huge_max_iter_stops_early


def examples(n):
    """Settings of one property: ``n`` examples (times CBVIZ_PROPERTY_SCALE), reproducible."""
    return settings(max_examples=n * SCALE, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- inputs

class Problem:
    """Voter matrix ``H = [A, -A]``, labels ``y`` and how they were drawn.  Its repr (which
    hypothesis prints for a falsifying example) gives ``A`` and ``y`` to the last digit."""

    def __init__(self, H, y, values, case):
        self.H, self.y, self.values, self.case = H, y, values, case

    def __repr__(self):
        A = self.H[:, :self.H.shape[1] // 2]
        return (f"Problem(values={self.values!r}, case={self.case!r}, "
                f"A={[[float(v) for v in row] for row in A]!r}, y={self.y.tolist()!r})")


SIGNS = st.sampled_from([-1.0, 1.0])
# real outputs: 0 (either sign) or a magnitude in [1e-9, 1]; smaller magnitudes are the
# separate family of test_tiny_outputs
REALS = st.one_of(st.sampled_from([0.0, -0.0]), st.floats(1e-9, 1.0), st.floats(-1.0, -1e-9))
# the degenerate cases; "perfect" is test_perfect_voter's
CASES = ("random", "identical", "abstain", "chance")


def sizes(low, high):
    """Uniform over low..high (hypothesis' integers favour the small end), shrinking to low."""
    return st.sampled_from(range(low, high + 1))


@st.composite
def problems(draw, max_m=40, max_half=12, cases=CASES, values=("sign", "real")):
    """A self-complemented voter matrix ``[A, -A]`` and labels (see the module docstring);
    ``values`` "tiny": real outputs of any magnitude, the whole matrix scaled by 10^-k."""
    values = draw(st.sampled_from(values))
    degenerate = len(cases) > 1 and draw(st.booleans())   # half the draws: cases[0]
    case = draw(st.sampled_from(cases[1:])) if degenerate else cases[0]
    elements = {"sign": SIGNS, "real": REALS, "tiny": st.floats(-1.0, 1.0)}[values]
    scale = 10.0 ** -draw(st.integers(0, 320)) if values == "tiny" else 1.0
    half = draw(sizes(1, max_half))
    if case == "chance":   # each example twice, once per label: mean(y h) = 0 for every h
        k = draw(sizes(1, max_m // 2))
        B = draw(hnp.arrays(float, (k, half), elements=elements, fill=st.nothing()))
        A, y = np.vstack([B, B]), np.concatenate([np.ones(k), -np.ones(k)])
    else:
        m = draw(sizes(2, max_m))
        A = draw(hnp.arrays(float, (m, half), elements=elements, fill=st.nothing()))
        y = draw(hnp.arrays(float, m, elements=SIGNS, fill=st.nothing()))
        if np.all(y == y[0]):
            y[draw(st.integers(0, m - 1))] = -y[0]
        i = draw(st.integers(0, half - 1))
        if case == "identical":
            if half == 1:
                A = np.column_stack([A, A])
            else:
                A[:, (i + draw(st.integers(1, half - 1))) % half] = A[:, i]
        elif case == "perfect":
            A[:, i] = y
        elif case == "abstain":
            A[:, i] = 0.0
    A = A * scale
    return Problem(np.hstack([A, -A]), y, values, case)


def largest_mu(key, params, problem):
    """Largest first moment of the margin the program can reach (MinCq / CqBoost docs):
    ``mean(|g|)`` over the direct voters for quasi-uniform MinCq, else ``max_k g_k``, with
    ``g = H^T y / m``."""
    H, y = problem.H, problem.y
    g = y @ H / y.size
    if key == "mincq" and params.get("form", "quasi_uniform") == "quasi_uniform":
        return float(np.mean(np.abs(g[:H.shape[1] // 2])))
    return float(g.max())


def _float_values(p):
    """A float hyper-parameter: either end of its range or a value between (log-uniform when
    the spec says so)."""
    if p.log:
        inner = st.floats(math.log10(p.low), math.log10(p.high)).map(
            lambda e: min(max(10.0 ** e, p.low), p.high))
    else:
        inner = st.floats(p.low, p.high)
    return st.one_of(st.just(float(p.low)), st.just(float(p.high)), inner)


@st.composite
def hyper_parameters(draw, key, problem):
    """Values of every parameter of spec ``key``; mu a fraction of the reachable largest
    (the registry's lower end when that is below it)."""
    values = {}
    for p in ALGORITHMS[key].params:
        if p.name == "mu":
            continue
        if p.kind == "choice":
            values[p.name] = draw(st.sampled_from(p.choices))
        elif p.kind == "bool":
            values[p.name] = draw(st.booleans())
        elif p.kind == "int":
            values[p.name] = draw(st.integers(int(p.low), int(p.high)))
        else:
            values[p.name] = draw(_float_values(p))
    mu = next((p for p in ALGORITHMS[key].params if p.name == "mu"), None)
    if mu is not None:
        frac = draw(st.one_of(st.just(1.0), st.floats(1e-3, 1.0)))
        values["mu"] = min(max(frac * largest_mu(key, values, problem), mu.low), mu.high)
    return values


# --------------------------------------------------------------------------- checks

FLOAT_FIELDS = {f.name: "None" in f.type for f in dataclasses.fields(Record)
                if f.type.startswith("float")}


def objective_at_start(key, params, problem):
    """The objective of the empty (or, for the KL learner, uniform) vote, from its definition;
    None when the algorithm has no such value (its first record is its first vote)."""
    if key in ("quadboost", "vebboost", "adaboost"):
        return 1.0   # mean(y^2); mean(L)^2 + lam var(L) and mean(L) with L = exp(0) = 1
    if key == "klboost":
        n = problem.H.shape[1]
        M = problem.y * (problem.H @ np.full(n, 1.0 / n))   # Q uniform: KL(Q||P) = 0
        gamma = params.get("gamma", 0.1)
        zeta = ((M / gamma - 1.0) ** 2 if params.get("loss", "quadratic") == "quadratic"
                else np.exp(-M / gamma))
        return params.get("C", 1.0) * float(zeta.sum())
    return None


# record field that never rises, and its allowed rise relative to max(1, |previous|)
MONOTONE = {"cbboost": ("c_bound", TOL), "quadboost": ("objective", TOL),
            "klboost": ("objective", TOL), "vebboost": ("objective", TOL),
            "adaboost": ("objective", TOL), "cqboost": ("objective", QP_RISE)}


def in_range(value, low, high, what):
    assert low - TOL <= value <= high + TOL, f"{what} = {value!r} outside [{low}, {high}]"


def check_records(key, run, problem):
    H, y = problem.H, problem.y
    n = H.shape[1]
    for t, rec in enumerate(run.history, 1):
        where = f"{key} iteration {t}"
        assert rec.iteration == t, where
        for name, optional in FLOAT_FIELDS.items():
            v = getattr(rec, name)
            if v is None and optional and name != "test_error":
                continue
            assert isinstance(v, numbers.Real) and math.isfinite(v), f"{where}: {name} = {v!r}"
        for name, v in rec.extra.items():
            if isinstance(v, numbers.Real):
                if key == "cqboost" and name == "violation" and t == 1:
                    assert math.isnan(v), f"{where}: violation at iteration 1 = {v!r}"
                else:
                    assert math.isfinite(v), f"{where}: extra[{name!r}] = {v!r}"
        for name in ("c_bound", "gibbs_risk", "joint_error", "train_error", "test_error",
                     "pac_bound", "first_order_bound", "pac_bound_1", "tandem_bound"):
            in_range(getattr(rec, name), 0.0, 1.0, f"{where}: {name}")
        in_range(rec.mu1, -1.0, 1.0, f"{where}: mu1")
        in_range(rec.mu2, 0.0, 1.0, f"{where}: mu2")
        in_range(rec.disagreement, 0.0, 0.5, f"{where}: disagreement")
        in_range(rec.kl, 0.0, math.log(n), f"{where}: kl")
        assert rec.mu1 ** 2 <= rec.mu2 + TOL, f"{where}: mu1 = {rec.mu1!r}, mu2 = {rec.mu2!r}"
        assert rec.index is None or 0 <= rec.index < n, f"{where}: index {rec.index}"
        s, w = rec.support, rec.weights
        assert rec.n_voters == s.size > 0 and np.all(np.diff(s) > 0), f"{where}: support {s}"
        assert 0 <= s[0] and s[-1] < n, f"{where}: support {s}"
        assert np.all(np.isfinite(w)) and np.all(w > 0), f"{where}: weights {w}"
        M = y * (H[:, s] @ w) / w.sum()
        assert abs(rec.mu1 - M.mean()) <= MOMENT_TOL, f"{where}: mu1 {rec.mu1!r} vs {M.mean()!r}"
        assert abs(rec.mu2 - np.mean(M * M)) <= MOMENT_TOL, f"{where}: mu2 {rec.mu2!r}"
        assert rec.test_error == rec.train_error, where


def check_stop(run, max_iter):
    assert run.done
    assert isinstance(run.stop_reason, str) and run.stop_reason.strip(), repr(run.stop_reason)
    assert len(run.history) <= max_iter
    if run.stop_reason.startswith("max_iter reached"):
        assert len(run.history) == max_iter, run.stop_reason
    length = len(run.history)
    assert run.step() is None and len(run.history) == length


def check_monotone(key, run, params, problem):
    if key not in MONOTONE:
        return
    field, rise = MONOTONE[key]
    prev = objective_at_start(key, params, problem)
    for t, rec in enumerate(run.history, 1):
        value = getattr(rec, field)
        if prev is not None:
            assert value <= prev + rise * max(1.0, abs(prev)), (
                f"{key}: {field} rose at iteration {t}: {prev!r} -> {value!r}")
        prev = value


def start(key, problem, max_iter, params, delta=0.05):
    algo = ALGORITHMS[key].make(max_iter=max_iter, delta=delta, **params)
    return algo.start(problem.H, problem.y, H_test=problem.H, y_test=problem.y)


# --------------------------------------------------------------------------- random runs

def random_run(key, data, problem):
    """Draw hyper-parameters, max_iter and delta for ``problem``; run and check everything.
    The only exception allowed is QPError from the two quadratic-program algorithms:
    "infeasible" exactly when mu exceeds the reachable largest (either way within round-off
    of it), a solver failure (with its message) otherwise."""
    params = data.draw(hyper_parameters(key, problem), label="params")
    max_iter = data.draw(sizes(1, MAX_ITER), label="max_iter")
    delta = data.draw(st.sampled_from([0.05, 1.0, 1e-6]), label="delta")
    event(f"{problem.values}/{problem.case}")
    # mu above the largest (beyond round-off: the run computes it with its own product)
    excess = params["mu"] - largest_mu(key, params, problem) if "mu" in params else -1.0
    unreachable = excess > TOL
    try:
        run = start(key, problem, max_iter, params, delta)
        assert not unreachable, f"mu = {params['mu']!r} above the largest reachable was accepted"
        run.run()
    except QPError as exc:
        assert key in ("mincq", "cqboost") and str(exc).strip(), repr(exc)
        assert abs(excess) <= TOL or (exc.status == "infeasible") == unreachable, str(exc)
        event(f"QPError: {exc.status}")
        return
    event(f"records: {len(run.history)}")
    check_records(key, run, problem)
    check_stop(run, max_iter)
    check_monotone(key, run, params, problem)


@pytest.mark.parametrize("key", list(ALGORITHMS))
@examples(150)
@given(data=st.data())
def test_random_runs(key, data):
    """Every property on random, identical-voter, abstaining-voter and at-chance matrices with
    outputs in {-1, +1} or real (0 or of magnitude >= 1e-9), random hyper-parameters."""
    random_run(key, data, data.draw(problems(), label="problem"))


@pytest.mark.parametrize("key", list(ALGORITHMS))
@examples(40)
@given(data=st.data())
def test_perfect_voter(key, data):
    """The same with a perfect voter (h = y) in the pool."""
    random_run(key, data, data.draw(problems(cases=("perfect",)), label="problem"))


@pytest.mark.parametrize("key", list(ALGORITHMS))
@examples(40)
@given(data=st.data())
def test_tiny_outputs(key, data):
    """The same with real outputs of any magnitude (subnormals included), the whole matrix
    scaled by 10^-k, k <= 320."""
    random_run(key, data, data.draw(problems(values=("tiny",)), label="problem"))


# --------------------------------------------------------------------------- extremes

def _grid(key, **choices):
    """Every combination of the given values of ``key``'s parameters."""
    combos = [{}]
    for name, options in choices.items():
        combos = [{**c, name: v} for c in combos for v in options]
    return [(key, c) for c in combos]


def _ends(key, name):
    p = next(p for p in ALGORITHMS[key].params if p.name == name)
    return (p.low, p.high)


# "largest" / "below" stand for the reachable largest mu of the drawn problem and 1e-6 below it
EXTREMES = (
    _grid("cbboost", direction=("exhaustive", "gradient"), eligible=("theorem3", "all"),
          reuse_voters=(False, True))
    + _grid("mincq", mu=(_ends("mincq", "mu")[0], "largest", "below"),
            form=("quasi_uniform", "simplex"))
    + _grid("cqboost", mu=(_ends("cqboost", "mu")[0], "largest", "below"),
            epsilon=_ends("cqboost", "epsilon"))
    + _grid("quadboost", regularization=(None,), reweight=(False, True))
    + _grid("quadboost", regularization=("l1", "l2"), lam=_ends("quadboost", "lam"),
            reweight=(False, True))
    + _grid("quadboost", regularization=("linf",), alpha_max=_ends("quadboost", "alpha_max"),
            reweight=(False, True))
    + _grid("klboost", loss=("quadratic", "exponential"), C=_ends("klboost", "C"),
            gamma=_ends("klboost", "gamma"))
    + _grid("vebboost", lam=(0.0, 1.0))
    + _grid("adaboost")
)
EXTREME_IDS = [f"{k}-" + "-".join(str(v) for v in p.values()) for k, p in EXTREMES]


def _resolve(key, params, problem):
    mu = params.get("mu")
    if isinstance(mu, str):
        top = largest_mu(key, params, problem)
        params = {**params, "mu": top if mu == "largest" else top * (1.0 - 1e-6)}
    return params


def run_or_refuse(key, problem, max_iter, params, factory=None):
    """Run to the end and check it, or accept a ParameterError with a message; the run
    (None when refused)."""
    try:
        if factory is None:
            run = start(key, problem, max_iter, params)
        else:
            run = factory(**params).start(problem.H, problem.y, H_test=problem.H,
                                          y_test=problem.y)
        run.run()
    except ParameterError as exc:
        assert str(exc).strip(), repr(exc)
        event(f"refused: {type(exc).__name__}")
        return None
    check_records(key, run, problem)
    check_stop(run, max_iter)
    check_monotone(key, run, params, problem)
    return run


@pytest.mark.parametrize("key, params", EXTREMES, ids=EXTREME_IDS)
@examples(15)
@given(problem=problems(max_m=20, max_half=6), max_iter=st.sampled_from([1, MAX_ITER]))
def test_extreme_hyper_parameters(key, params, problem, max_iter):
    """Ends of every range and every choice, max_iter 1 or 25: only ParameterError with a
    message, else every property of the run."""
    run_or_refuse(key, problem, max_iter, _resolve(key, params, problem))


@pytest.mark.parametrize("factory, key", [(MinCq, "mincq"), (CqBoost, "cqboost")])
@examples(20)
@given(problem=problems(max_m=20, max_half=6), mu=st.sampled_from([1e-9, 1e-12]))
def test_mu_near_zero(factory, key, problem, mu):
    """mu far below the registry's lower end (the factories accept any mu in (0, 1])."""
    params = {"mu": mu} if factory is MinCq else {"mu": mu, "max_iter": MAX_ITER}
    run_or_refuse(key, problem, 1 if factory is MinCq else MAX_ITER, params, factory=factory)


# Cases on which each setting stops by its own rule: every voter at chance (no edge, no
# margin, no gradient: all stop at once); a perfect voter (AdaBoost and VEB-Boost: zero
# weighted error; CB-Boost: C-bound 0; QuadBoost: zero residual, or every other voter below
# the L1 threshold).  Not the perfect voter for QuadBoost L2 with reweight: with a duplicate
# of it (frequent on m <= 6) coordinate descent creeps to the ridge optimum by a factor
# ~1/(1 + lam) per step, 10,000 steps are not enough at lam = 1e-6 (observed), and each step
# is a genuine decrease.  CqBoost stops within n columns on any matrix.
def _stopping_cases(key, params):
    if key == "cqboost":
        return ("random", "identical", "chance", "perfect")
    if key == "quadboost" and params["reweight"] and params["regularization"] == "l2":
        return ("chance",)
    return ("perfect", "chance")


@pytest.mark.parametrize("key, params", EXTREMES, ids=EXTREME_IDS)
@examples(8)
@given(data=st.data())
def test_huge_max_iter_stops_early(key, params, data):
    """max_iter = 10,000 on a tiny matrix (m <= 6, n/2 <= 3) the run must stop by its own rule
    long before (and every property of the run)."""
    problem = data.draw(problems(max_m=6, max_half=3, cases=_stopping_cases(key, params)),
                        label="problem")
    run = run_or_refuse(key, problem, HUGE_T, _resolve(key, params, problem))
    if run is not None:
        assert len(run.history) < HUGE_T and not run.stop_reason.startswith("max_iter"), (
            f"{len(run.history)} records: {run.stop_reason}")


# --------------------------------------------------------------------------- regressions
# The minimal cases of the bugs the properties above found, with what is expected now.

@pytest.mark.parametrize("reuse_voters", [False, True])
@pytest.mark.parametrize("eligible", ["theorem3", "all"])
def test_cbboost_vote_whose_second_moment_underflows(eligible, reuse_voters):
    """Voter 0 outputs (1e-200, 0), y = (1, -1): iteration 1 takes it (gamma = 5e-201 > 0);
    the vote F = (1e-200, 0) has mean(F^2) = 0 in floats, and iteration 2 used to raise
    ZeroDivisionError.  CB-Boost scores on the vote and pool scaled by powers of two: the
    record has the exact C-bound 1 - (1/2)^2 / (1/2) = 1/2, and the run stops because the
    only other voter, the complement, lowers it under no rule."""
    H = np.array([[1e-200, -1e-200], [0.0, -0.0]])
    run = CBBoost(max_iter=5, eligible=eligible, reuse_voters=reuse_voters).start(
        H, np.array([1.0, -1.0])).run()
    check_stop(run, 5)
    assert [r.index for r in run.history] == [0]
    assert run.history[0].c_bound == 0.5
    assert "lowers the C-bound along a positive weight" in run.stop_reason


def test_cbboost_c_bound_of_a_vote_with_tiny_margins():
    """Voter 0 outputs (1e-14, 0), voter 1 (0, 1), y = (1, -1).  Iteration 1 takes voter 3
    (the complement of voter 1; C = 1/2); iteration 2 voter 0 with alpha = 1e14 (predicted
    decrease 1/2).  The vote F = (1, -1) has margins y F = (1, 1): C-bound 0.  Its normalized
    first moment, 1e-14, used to fall below the absolute round-off threshold 64 eps of
    cbviz.bounds (C-bound recorded 1, a rise); the threshold is now relative to the vote's
    scale (sum_k Q_k rms(h_k) = 1.4e-14 here), so the record is the vote's C-bound."""
    H = np.array([[1e-14, 0.0, -1e-14, -0.0], [0.0, 1.0, -0.0, -1.0]])
    y = np.array([1.0, -1.0])
    previous = 1.0
    run = CBBoost(max_iter=2).start(H, y).run()
    assert len(run.history) == 2
    for rec in run.history:
        F = H[:, rec.support] @ rec.weights
        assert rec.c_bound == pytest.approx(1.0 - np.mean(y * F) ** 2 / np.mean(F * F), abs=TOL)
        assert rec.c_bound <= previous + TOL
        previous = rec.c_bound
    assert previous == pytest.approx(0.0, abs=TOL)


def test_klboost_exponential_loss_at_the_range_ends():
    """One voter h = 1 and its complement, y = +1 on 15 examples and -1 on one; exponential
    loss, C = 1e6, gamma = 1e-4.  Along the signed weight w (n = 1) f is
    ``C (15 exp(-w/gamma) + exp(w/gamma)) + KL``, ``dKL/dw = artanh(w)``, so the first pass
    must land on the root of ``(C/gamma) (exp(w/gamma) - 15 exp(-w/gamma)) + artanh(w)``,
    w* = 1.3540251e-4 (~ gamma ln(15) / 2).  The coordinate step's bracket used to be ~1e11
    wide (brentq raised RuntimeError after 100 iterations); it is now narrowed to twice the
    step.  Tolerance: 1e-9 relative (both are roots found to ~1e-15)."""
    y = np.ones(16)
    y[-1] = -1.0
    H = np.column_stack([np.ones(16), -np.ones(16)])
    algo = ALGORITHMS["klboost"].make(max_iter=5, loss="exponential", C=1e6, gamma=1e-4)
    run = algo.start(H, y)
    run.step()

    def slope(w):   # df/dw; negative at 0, positive at 1e-3
        return 1e10 * (math.exp(w / 1e-4) - 15.0 * math.exp(-w / 1e-4)) + math.atanh(w)

    w_star = brentq(slope, 0.0, 1e-3, xtol=1e-20, rtol=1e-15)
    assert run.signed_weights[0] == pytest.approx(w_star, rel=1e-9)


@pytest.mark.parametrize("mu", [0.0390625, 0.05, 0.3])
def test_cqboost_example_weights_when_every_dual_vanishes(mu):
    """A = [[1], [-1]] = y (a perfect voter and its complement).  Iteration 2's program puts
    w = ((1 + mu)/2, (1 - mu)/2): both margins are mu and both duals
    alpha_i = (beta - 2 gamma_i) / m vanish (exactly 0 for mu = 0.0390625, exact in binary;
    round-off, ~1e-17, for other mu).  The shares |alpha| / sum|alpha| used to be 0/0 = NaN
    (or round-off reported as weights); the documented convention is uniform shares:
    example_weight_max 1/2, entropy ln 2, no negative weight."""
    H = np.array([[1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1.0, -1.0])
    run = CqBoost(mu=mu, epsilon=1e-10, max_iter=5).start(H, y, H_test=H, y_test=y).run()
    check_records("cqboost", run, Problem(H, y, "sign", "perfect"))
    last = run.history[-1]
    assert last.iteration == 2 and last.extra["example_weight_max"] == 0.5
    assert last.extra["example_weight_entropy"] == pytest.approx(math.log(2.0), rel=1e-15)
    assert last.extra["example_weight_negative"] == 0.0
