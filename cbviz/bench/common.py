"""Data, voters and timing shared by the benchmark's tables.

Every time is wall-clock seconds (``time.perf_counter``) in this process; building a pool is
never counted, and :func:`build_voters` makes one untimed product first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from ..algorithms import ALGORITHMS, ParameterError
from ..voters import StumpPool, as_operator

__all__ = ["SKLEARN_ADABOOST", "Timing", "best_of", "best_run", "build_voters", "make_data",
           "sub_pool", "time_run", "time_sklearn_adaboost"]

SKLEARN_ADABOOST = "AdaBoost (scikit-learn, depth-1 trees)"
# hyper-parameters of the CB-Boost paper's experiments (Sect. 5.3): CqBoost mu = 0.001,
# epsilon = 1e-6; MinCq mu = 0.05 when reachable (see :func:`mincq_mu`)
PAPER_PARAMS = {"cqboost": {"mu": 1e-3, "epsilon": 1e-6}}
MINCQ_MU = 0.05


def make_data(m, d, seed=0):
    """Seeded ``make_classification`` set: inputs (m x d) and labels in {-1, +1}.

    60 informative and 100 redundant features at d = 784 (fewer when d is smaller); the rows
    are shuffled, so the first m' rows of a set are a random sub-sample of it.
    """
    informative = min(d, 60)
    X, y01 = make_classification(n_samples=m, n_features=d, n_informative=informative,
                                 n_redundant=min(d - informative, d // 4, 100),
                                 random_state=seed)
    return X, np.where(y01 == 1, 1, -1)


def sub_pool(H, n_direct):
    """The columns of ``n_direct`` evenly spaced direct voters of a self-complemented operator
    and of their complements, in the self-complemented layout (a view of ``H``)."""
    half = H.shape[1] // 2
    if not 1 <= n_direct <= half:
        raise ParameterError(f"n_direct must be in [1, {half}], got {n_direct}")
    direct = np.unique(np.linspace(0, half - 1, n_direct).round().astype(int))
    return H.restrict(np.concatenate([direct, direct + half]))


@dataclass(frozen=True)
class Timing:
    """One run timed: ``start`` (``factory.start``), ``steps`` (each ``run.step()`` that took
    an iteration), ``total`` (start to stop, the last ``step()`` that only found the stop
    included) and the run."""

    start: float
    steps: np.ndarray
    total: float
    run: object


def build_voters(pool, X, y, dense=False):
    """The voter matrix of ``X`` (stump operator, or dense with ``dense``) after one untimed
    product ``H^T y``, so that no algorithm's timing pays the first touch of its arrays."""
    H = pool.transform(X) if dense else pool.operator(X)
    as_operator(H).rmatvec(y)
    return H


def time_run(factory, H, y):
    """Start ``factory`` on ``(H, y)`` and step it until it stops, timing every call."""
    t0 = time.perf_counter()
    run = factory.start(H, y)
    start = time.perf_counter() - t0
    steps = []
    while not run.done:
        t = time.perf_counter()
        moved = run.step() is not None
        if moved:
            steps.append(time.perf_counter() - t)
    return Timing(start, np.array(steps), time.perf_counter() - t0, run)


def best_of(measure, repeat=1, budget=5.0):
    """The fastest of up to ``repeat`` calls of ``measure() -> (seconds, result)``: no further
    call once the calls have taken ``budget`` seconds (a long fit runs once).  The minimum is
    the time least disturbed by other processes.  Returns ``(result, calls made)``."""
    best, spent = None, 0.0
    for calls in range(1, repeat + 1):
        seconds, result = measure()
        spent += seconds
        if best is None or seconds < best[0]:
            best = (seconds, result)
        if spent >= budget:
            break
    return best[1], calls


def best_run(factory, H, y, repeat=1, budget=5.0):
    """:func:`best_of` :func:`time_run`, by total time: ``(timing, runs made)``."""
    def measure():
        timing = time_run(factory, H, y)
        return timing.total, timing
    return best_of(measure, repeat, budget)


def time_sklearn_adaboost(X, y, iters, seed):
    """Seconds per iteration of scikit-learn's AdaBoost with depth-1 trees (fit time / trees)."""
    ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=iters,
                             random_state=seed)
    t0 = time.perf_counter()
    ada.fit(X, y)
    return (time.perf_counter() - t0) / len(ada.estimators_), len(ada.estimators_)


def mincq_mu(spec, H, y):
    """MinCq's mu: the paper's 0.05, or half the largest reachable first moment when 0.05 is
    out of reach (on noisy features the quasi-uniform votes' reach is small)."""
    largest = spec.make(mu=1e-4).start(H, y).largest_mu
    return min(MINCQ_MU, largest / 2.0)


def make_factory(key, max_iter, H, y, **params):
    """Registry factory of ``key`` with the paper's parameters (CqBoost's); MinCq gets
    :func:`mincq_mu` unless ``mu`` is given."""
    spec = ALGORITHMS[key]
    if key == "mincq" and "mu" not in params:
        params["mu"] = mincq_mu(spec, H, y)
    return spec.make(max_iter=max_iter, **{**PAPER_PARAMS.get(key, {}), **params})


def warm_up(keys):
    """One short run of each algorithm on a tiny problem (first calls of numpy and cvxopt)."""
    X, y = make_data(60, 4, seed=1)
    H = StumpPool(3).fit(X).operator(X)
    for key in keys:
        time_run(make_factory(key, 3, H, y), H, y)

