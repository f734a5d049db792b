"""The stump engine's table: CB-Boost's time per iteration on three pools of the paper's
MNIST 4-vs-9 size, beside scikit-learn's AdaBoost and HistGradientBoosting and a bare pass
over the data (:func:`measure`), and the ratios the project tracks (:func:`report`)."""
from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

from ..algorithms import ALGORITHMS
from ..voters import ENGINE_THREADS, StumpPool, use_engine_threads
from .common import SKLEARN_ADABOOST, best_of, make_data, time_run, time_sklearn_adaboost

__all__ = ["BARE_PASS", "ENGINE_COLUMNS", "ENGINE_POOLS", "SKLEARN_HGB", "measure", "report",
           "time_sklearn_hgb"]

ENGINE_POOLS = (("10 thresholds", {"n_thresholds": 10}),
                ("255 quantile bins", {"n_thresholds": 255, "binning": "quantile"}),
                ("all midpoints (exact)", {"n_thresholds": "all"}))
ENGINE_COLUMNS = ["configuration", "voters", "setup_s", "binned_mb", "iterations", "ms",
                  "ms_1_thread", "record_ms"]
BARE_PASS = "bare pass: X.sum() over the float64 data"
SKLEARN_HGB = "sklearn HistGradientBoosting, max_depth=1"


def time_sklearn_hgb(X, y, iters, seed, repeat=3):
    """Seconds per iteration of scikit-learn's ``HistGradientBoostingClassifier`` with
    ``max_depth=1``, and the iterations that measure it: ``(fit(1 + 3 iters) - fit(1)) /
    (3 iters)``, each fit the fastest of ``repeat``, so that binning the data (done in every
    fit) is not counted, as the stump engine's binning is not."""
    def fit(n):
        def once():
            hgb = HistGradientBoostingClassifier(max_depth=1, max_iter=n, early_stopping=False,
                                                 random_state=seed)
            t0 = time.perf_counter()
            hgb.fit(X, y)
            seconds = time.perf_counter() - t0
            return seconds, (seconds, hgb.n_iter_)
        return best_of(once, repeat, budget=np.inf)[0]
    (t1, n1), (t2, n2) = fit(1), fit(1 + 3 * iters)
    return (t2 - t1) / (n2 - n1), n2 - n1


def _record_seconds(run, repeat=5):
    """Median time of making one record (bounds, errors) from the run's current vote."""
    last = run.history[-1]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run._record(last.index, last.alpha, {}, seconds=0.0)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _median_step(run_once, repeat):
    """The smallest, over ``repeat`` calls of ``run_once() -> Timing``, of the median time of
    steps 2.. (the least disturbed by other processes), and the last run."""
    best, timing = np.inf, None
    for _ in range(repeat):
        timing = run_once()
        best = min(best, float(np.median(timing.steps[1:])) if timing.steps.size > 1 else np.nan)
    return best, timing


def measure(m=11791, d=784, iters=20, seed=0, sklearn_iters=5, repeat=3):
    """The engine table (:data:`ENGINE_COLUMNS`, times in milliseconds) on ``make_data(m, d)``.

    One row per pool of :data:`ENGINE_POOLS` (with complements): ``ms`` is CB-Boost's time
    per step on the engine's :data:`~cbviz.voters.ENGINE_THREADS` threads, the median of steps
    2 to ``iters`` (step 1 only picks the best voter), the smallest of ``repeat`` runs;
    ``ms_1_thread`` the same on one thread; ``record_ms`` the part of a step that makes its
    record (bounds, errors); ``setup_s`` fits the pool and bins the data; ``binned_mb`` is the
    binned representation (:attr:`StumpOperator.nbytes <cbviz.voters.StumpOperator.nbytes>`).
    Then scikit-learn's AdaBoost on depth-1 trees (fit time / trees, ``sklearn_iters``
    trees), its HistGradientBoosting with ``max_depth=1`` (:func:`time_sklearn_hgb`) and the
    bare pass (``X.sum()``, the smallest of ``repeat`` medians of 10 calls).  BLAS and OpenMP
    are limited to one thread for the whole measurement (scikit-learn runs on one thread, and
    no idle BLAS thread spins against the engine's).
    """
    X, y = make_data(m, d, seed)
    rows = []
    with threadpool_limits(limits=1):
        for label, params in ENGINE_POOLS:
            t0 = time.perf_counter()
            pool = StumpPool(**params).fit(X)
            H = pool.operator(X)
            setup = time.perf_counter() - t0
            per = {}
            for threads in (ENGINE_THREADS, 1):
                with use_engine_threads(threads):
                    per[threads], timing = _median_step(
                        partial(time_run, ALGORITHMS["cbboost"].make(max_iter=iters), H, y),
                        repeat)
            rows.append(dict(configuration=label, voters=H.shape[1], setup_s=setup,
                             binned_mb=H.nbytes / 1e6, iterations=timing.steps.size - 1,
                             ms=per[ENGINE_THREADS] * 1e3, ms_1_thread=per[1] * 1e3,
                             record_ms=_record_seconds(timing.run) * 1e3))
            del H, pool, timing
        ada, trees = time_sklearn_adaboost(X, y, sklearn_iters, seed)
        hgb, hgb_iters = time_sklearn_hgb(X, y, iters, seed, repeat)
        bare = min(float(np.median([_seconds(X.sum) for _ in range(10)])) for _ in range(repeat))
    for label, seconds, n in ((SKLEARN_ADABOOST, ada, trees), (SKLEARN_HGB, hgb, hgb_iters),
                              (BARE_PASS, bare, 1)):
        rows.append(dict(configuration=label, voters=d, iterations=n, ms=seconds * 1e3,
                         ms_1_thread=seconds * 1e3))
    return pd.DataFrame(rows, columns=ENGINE_COLUMNS)


def _seconds(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def report(table):
    """:func:`measure`'s table as text, then the ratios against the project's targets."""
    ms = table.set_index("configuration")["ms"]
    one = table.set_index("configuration")["ms_1_thread"]
    ten, q255, full = (label for label, _ in ENGINE_POOLS)
    show = table.rename(columns={"ms": f"ms ({ENGINE_THREADS} threads)",
                                 "ms_1_thread": "ms (1 thread)"})
    ratios = [
        (ms[SKLEARN_ADABOOST] / ms[ten], ">= 150", f"AdaBoost / {ten}"),
        (ms[ten] / ms[BARE_PASS], "<= 1.5", f"{ten} / bare pass"),
        (ms[q255] / ms[ten], "<= 1.25", f"{q255} / {ten}"),
        (ms[SKLEARN_ADABOOST] / ms[full], ">= 15", f"AdaBoost / {full}"),
        (one[SKLEARN_HGB] / one[ten], "> 1", f"HistGradientBoosting / {ten}, one thread each"),
    ]
    lines = [show.to_string(index=False, float_format=lambda x: f"{x:.2f}", na_rep=""), ""]
    lines += [f"{r:8.2f}x  {name} (target {target})" for r, target, name in ratios]
    return "\n".join(lines)

