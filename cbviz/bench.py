"""Speed of the package's algorithms, measured in one process on seeded data.

Three commands (``python -m cbviz.bench COMMAND --help`` for the options):

``python -m cbviz.bench [cbboost] [--m 11791 --d 784 --iters 20]``
    The stump engine's table (:func:`measure`): CB-Boost's time per iteration on a seeded
    ``make_classification`` set of the CB-Boost paper's MNIST 4-vs-9 size, with 10 equally
    spaced thresholds per feature, 255 quantile bins and every midpoint (exact), each with
    complements; scikit-learn's ``AdaBoostClassifier`` on depth-1 trees and
    ``HistGradientBoostingClassifier`` with ``max_depth=1``; and a bare pass over the data
    (``X.sum()``).  Everything runs with BLAS and OpenMP on one thread; CB-Boost also with the
    engine's threads.  It prints the table, the memory of the binned data and the ratios the
    project tracks (:func:`report`).

``python -m cbviz.bench algorithms [--m 11800 --d 784 --iters 20]``
    Every algorithm of :data:`cbviz.algorithms.ALGORITHMS` on the data and the 10-threshold
    pool of the engine table, with scikit-learn's AdaBoost as the peer: :func:`algorithm_table`.

``python -m cbviz.bench fig1 [--quick] [--out DIR]``
    The CB-Boost paper's Fig. 1 protocol (Sect. 5.1): total fit time of MinCq, CqBoost,
    GB-CB-Boost, CB-Boost and AdaBoost versus the number of voters n, of examples m and of
    iterations T (:func:`fig1`); prints the tables and writes ``fig1_n.csv``, ``fig1_m.csv``,
    ``fig1_T.csv`` in DIR.

What every number is: wall-clock seconds (``time.perf_counter``) in this process; ``algorithms``
and ``fig1`` first make one warm-up run of every algorithm on a tiny problem (first calls of
numpy and the solvers), ``cbboost`` leaves out each run's first step.
``start_s`` is ``factory.start(H, y)`` (the products an algorithm needs before its first
step); a step is one ``run.step()``, record-making (bounds, errors) included, as the app pays
it.  Building the pool is shared by all algorithms and never counted.  Times depend on the
machine's load: compare rows of the same run, not runs.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from .algorithms import ALGORITHMS, ParameterError
from .voters import ENGINE_THREADS, StumpPool, as_operator, use_engine_threads

__all__ = ["ALGORITHM_COLUMNS", "ENGINE_COLUMNS", "ENGINE_POOLS", "FIG1_ALGORITHMS",
           "FIG1_COLUMNS", "QUICK_FIG1", "RATIO_COLUMNS", "SKLEARN_ADABOOST", "Fig1Config",
           "Timing", "algorithm_table", "algorithm_targets", "best_of", "best_run",
           "build_voters", "fig1", "fig1_T",
           "fig1_m", "fig1_n", "fig1_ratios", "format_algorithm_table", "format_fig1",
           "format_ratios", "main", "make_data", "measure", "read_table", "report", "sub_pool",
           "time_run", "time_sklearn_adaboost", "time_sklearn_hgb", "write_fig1"]

# hyper-parameters of the CB-Boost paper's experiments (Sect. 5.3): CqBoost mu = 0.001,
# epsilon = 1e-6; MinCq mu = 0.05 when reachable (see _mincq_mu)
PAPER_PARAMS = {"cqboost": {"mu": 1e-3, "epsilon": 1e-6}}
MINCQ_MU = 0.05


# --------------------------------------------------------------------------- data and timing

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


def _mincq_mu(spec, H, y):
    """MinCq's mu: the paper's 0.05, or half the largest reachable first moment when 0.05 is
    out of reach (on noisy features the quasi-uniform votes' reach is small)."""
    largest = spec.make(mu=1e-4).start(H, y).largest_mu
    return min(MINCQ_MU, largest / 2.0)


def _factory(key, max_iter, H, y, **params):
    """Registry factory of ``key``; MinCq gets :func:`_mincq_mu` unless ``mu`` is given."""
    spec = ALGORITHMS[key]
    if key == "mincq" and "mu" not in params:
        params["mu"] = _mincq_mu(spec, H, y)
    return spec.make(max_iter=max_iter, **{**PAPER_PARAMS.get(key, {}), **params})


def _warm_up(keys):
    """One short run of each algorithm on a tiny problem (first calls of numpy and cvxopt)."""
    X, y = make_data(60, 4, seed=1)
    H = StumpPool(3).fit(X).operator(X)
    for key in keys:
        time_run(_factory(key, 3, H, y), H, y)


# --------------------------------------------------------------------------- (default) the engine

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
    2..``iters`` (step 1 only picks the best voter), the smallest of ``repeat`` runs;
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


# --------------------------------------------------------------------------- (A) every algorithm

ALGORITHM_COLUMNS = ["algorithm", "key", "voters", "m", "iterations", "runs", "unit",
                     "start_s", "seconds", "vs_sklearn", "note"]
SKLEARN_ADABOOST = "AdaBoost (scikit-learn, depth-1 trees)"


def _variants():
    """(label, registry key, parameters): every registered algorithm, CB-Boost's gradient
    direction (GB-CB-Boost) as its own row."""
    for key, spec in ALGORITHMS.items():
        if key == "cbboost":
            yield spec.name, key, {}
            yield "GB-CB-Boost", key, {"direction": "gradient"}
        elif key == "adaboost":
            yield f"{spec.name} (ours)", key, {}
        else:
            yield spec.name, key, {}


def algorithm_table(m=11800, d=784, iters=20, n_thresholds=10, seed=0, mincq_voters=None,
                    cqboost_iters=None, klboost_passes=3, repeat=3, budget=5.0):
    """Time per iteration of every registered algorithm and of scikit-learn's AdaBoost.

    Data :func:`make_data(m, d, seed) <make_data>`, pool ``StumpPool(n_thresholds)`` with
    complements as a stump operator (the first pool of :func:`measure` by default).  Each
    algorithm runs ``iters`` steps with its registry defaults, except CqBoost (the paper's
    ``mu = 0.001``, ``epsilon = 1e-6``) and MinCq (``mu = 0.05``, or half its reach when 0.05
    is out of reach).  The caps, each stated in the row's ``note``:

    * MinCq solves one program over every direct voter (the whole pool by default, Gram-free
      beyond 600 variables); ``mincq_voters`` runs it on :func:`sub_pool` (that many evenly
      spaced direct voters and their complements), ``mincq_voters=0`` skips it; its note
      gives the solver, its status, duality gap and KKT residual, and the solve's time in
      CB-Boost iterations of this run;
    * one KL-regularized learner iteration is a pass over all voters: ``klboost_passes``
      passes;
    * CqBoost re-solves a program that grows with its iterations: ``cqboost_iters``
      (default ``iters``).

    Returns a DataFrame with :data:`ALGORITHM_COLUMNS`: ``seconds`` is the mean time of steps
    2..N (step 1 serves as the warm-up of each run) with ``unit`` "per iteration" (or "per
    pass"); for MinCq it is its one step, the whole solve (Gram matrix and quadratic program),
    unit "one solve"; scikit-learn's is its fit time / trees.  Every row (scikit-learn's too)
    is the fastest of up to ``repeat`` runs (:func:`best_of`, ``budget`` seconds; ``runs``
    counts them).  A run of one step (e.g. ``klboost_passes=1``) reports that step, with a
    note.  ``start_s``: ``start(H, y)``.
    ``vs_sklearn`` = ``seconds`` / scikit-learn's seconds per iteration of this run (for
    MinCq: how many scikit-learn AdaBoost iterations its solve costs).  A run that stops
    early says so in ``note``; an algorithm that refuses the problem (ParameterError) has
    NaN times and the error in ``note``.
    """
    if iters < 2:
        raise ParameterError(f"iters must be >= 2 (step 1 is each run's warm-up), got {iters}")
    X, y = make_data(m, d, seed)
    H = build_voters(StumpPool(n_thresholds).fit(X), X, y)
    _warm_up(ALGORITHMS)
    caps = {"cqboost": cqboost_iters or iters, "klboost": klboost_passes}
    rows = []
    for label, key, params in _variants():
        row = dict(algorithm=label, key=key, voters=H.shape[1], m=m, iterations=0, runs=0,
                   unit="per iteration", start_s=np.nan, seconds=np.nan, note="")
        Hk = H
        if key == "mincq":
            row["unit"] = "one solve"
            if mincq_voters == 0:
                rows.append({**row, "note": "skipped (mincq_voters=0)"})
                continue
            if mincq_voters is not None:
                Hk = sub_pool(H, min(mincq_voters, H.shape[1] // 2))
                row["voters"] = Hk.shape[1]
                row["note"] = (f"sub-pool: {Hk.shape[1] // 2} evenly spaced direct stumps + "
                               "complements; ")
        elif key == "klboost":
            row["unit"] = "per pass"
            row["note"] = f"{caps[key]} passes (klboost_passes); "
        elif key in caps and caps[key] != iters:
            row["note"] = f"{caps[key]} iterations ({key}_iters); "
        try:
            factory = _factory(key, caps.get(key, iters), Hk, y, **params)
            timing, runs = best_run(factory, Hk, y, repeat, budget)
        except ParameterError as exc:
            rows.append({**row, "note": row["note"] + f"not run: {exc}"})
            continue
        n = timing.steps.size
        row.update(iterations=n, runs=runs, start_s=timing.start)
        if key == "mincq":
            row["seconds"] = timing.steps[0]
            ex = timing.run.history[0].extra
            row["note"] += (f"mu = {factory.mu:.4g}; {ex['solver']}: {ex['solver_status']}, "
                            f"gap {ex['duality_gap']:.2e} (objective "
                            f"{timing.run.history[0].objective:.6e}), KKT "
                            f"{ex['kkt_residual']:.2e}; ")
            if ex.get("solver_products"):
                row["note"] += (f"{ex['solver_products']} operator products "
                                f"({ex['solver_phases']}); ")
        elif n >= 2:
            row["seconds"] = timing.steps[1:].mean()
        elif n == 1:
            row["seconds"] = timing.steps[0]
            row["note"] += "one step only: its time is step 1's; "
        if key != "mincq" and n < caps.get(key, iters):
            row["note"] += f"stopped after {n} steps: {timing.run.stop_reason}"
        rows.append(row)

    def sklearn_fit():
        per, n_trees = time_sklearn_adaboost(X, y, iters, seed)
        return per * n_trees, (per, n_trees)

    (per, n_trees), runs = best_of(sklearn_fit, repeat, budget)
    rows.append(dict(algorithm=SKLEARN_ADABOOST, key="sklearn", voters=d, m=m,
                     iterations=n_trees, runs=runs, unit="per iteration", start_s=np.nan,
                     seconds=per, note=f"features searched: {d}, every threshold"))
    table = pd.DataFrame(rows, columns=ALGORITHM_COLUMNS)
    table["vs_sklearn"] = table["seconds"] / per
    cb = table.loc[table["algorithm"] == ALGORITHMS["cbboost"].name, "seconds"]
    is_mincq = (table["key"] == "mincq") & table["seconds"].notna()
    if cb.size and is_mincq.any():
        table.loc[is_mincq, "note"] += (
            f"one solve = {float(table.loc[is_mincq, 'seconds'].iloc[0] / cb.iloc[0]):.0f} "
            "CB-Boost iterations")
    table["note"] = table["note"].str.rstrip("; ")
    return table


CQBOOST_AT = (10, 50, 100, 200)


def algorithm_targets(table, m=11800, d=784, n_thresholds=10, seed=0, at=CQBOOST_AT):
    """CqBoost's time per iteration at ``T`` in ``at`` and the KL pass, as ratios to one
    CB-Boost iteration of :func:`algorithm_table`'s ``table`` (same data, same run).

    One CqBoost run (the paper's mu and epsilon) to ``max(at)`` iterations: its time at ``T``
    is the median of steps ``T-4 .. T`` (the restricted program has T columns).  Returns
    lines of text with the issue's targets: iteration at the last T <= 3x the first, KL pass
    <= 10 CB-Boost iterations.
    """
    X, y = make_data(m, d, seed)
    H = build_voters(StumpPool(n_thresholds).fit(X), X, y)
    steps = time_run(_factory("cqboost", max(at), H, y), H, y).steps
    rows = table.set_index("algorithm")["seconds"]
    cb, kl = rows[ALGORITHMS["cbboost"].name], rows[ALGORITHMS["klboost"].name]
    lines, per = [], {}
    for T in (T for T in at if T <= steps.size):
        per[T] = float(np.median(steps[max(0, T - 5):T]))
        lines.append(f"CqBoost iteration at T = {T:3d}: {per[T] * 1e3:8.2f} ms = "
                     f"{per[T] / cb:6.2f} CB-Boost iterations")
    if len(per) > 1:
        first, last = min(per), max(per)
        lines.append(f"{per[last] / per[first]:8.2f}x  CqBoost iteration at T = {last} / "
                     f"T = {first} (target <= 3)")
    lines.append(f"{kl / cb:8.2f}x  KL pass / CB-Boost iteration ({kl * 1e3:.2f} ms / "
                 f"{cb * 1e3:.2f} ms; target <= 10)")
    return lines


def format_algorithm_table(table):
    """:func:`algorithm_table` as text: milliseconds, ratios to scikit-learn, then the notes."""
    show = pd.DataFrame({
        "algorithm": table["algorithm"], "voters": table["voters"],
        "steps": table["iterations"], "runs": table["runs"], "unit": table["unit"],
        "start ms": (table["start_s"] * 1e3).round(1), "ms": (table["seconds"] * 1e3).round(2),
        "x sklearn": table["vs_sklearn"].round(3)})
    notes = [f"  {a}: {n}" for a, n in zip(table["algorithm"], table["note"]) if n]
    return show.to_string(index=False) + ("\nnotes:\n" + "\n".join(notes) if notes else "")


# --------------------------------------------------------------------------- (B) Fig. 1

FIG1_ALGORITHMS = (("MinCq", "mincq", {}), ("CqBoost", "cqboost", {}),
                   ("GB-CB-Boost", "cbboost", {"direction": "gradient"}),
                   ("CB-Boost", "cbboost", {}), ("AdaBoost", "adaboost", {}))
FIG1_COLUMNS = ["sweep", "algorithm", "n_voters", "m", "T", "iterations", "runs", "start_s",
                "fit_s", "per_iter_s", "note"]
RATIO_COLUMNS = ["sweep", "algorithm", "n_voters", "m", "T", "fit_s", "cbboost_fit_s", "ratio"]


@dataclass(frozen=True)
class Fig1Config:
    """Sizes of the three sweeps (the paper does not print its fixed values; these are ours).

    The pool is ``StumpPool(k)`` with complements on all ``d`` features: ``n = 2 d k``
    voters.  n sweep: ``k`` in ``n_grid`` at ``m_fixed`` examples, ``T_fixed`` iterations;
    m sweep: the first ``m`` rows of one seeded set, ``m`` in ``m_grid``, ``k =
    thresholds_fixed``, ``T_fixed`` iterations; T sweep: ``m_fixed`` examples,
    ``thresholds_fixed``, ``T`` in ``T_grid`` (iterative algorithms only, as the paper's
    Fig. 1c).  MinCq is skipped, with a note, where it would solve for more than
    ``mincq_max`` direct voters (its program is dense in them: time grows as their cube).
    ``dense``: give the algorithms the dense voter matrix instead of the stump operator.
    ``repeat``: each fit is the fastest of up to that many runs (:func:`best_run`: runs stop
    once they have taken ``repeat_budget`` seconds); the ``runs`` column counts them.
    """

    d: int = 784
    seed: int = 0
    m_fixed: int = 2000
    T_fixed: int = 50
    thresholds_fixed: int = 1
    n_grid: tuple = (1, 2, 5, 10)
    m_grid: tuple = (1000, 2000, 5000, 11791)
    T_grid: tuple = (10, 25, 50, 100, 200)
    mincq_max: int = 2000
    dense: bool = False
    repeat: int = 3
    repeat_budget: float = 5.0

    def __post_init__(self):
        for name in ("n_grid", "m_grid", "T_grid"):
            grid = getattr(self, name)
            if not grid or len(set(grid)) != len(grid) or min(grid) < 1:
                raise ParameterError(f"{name} must be distinct positive integers, got {grid}")
        if min(self.d, self.m_fixed, self.T_fixed, self.thresholds_fixed, self.repeat) < 1:
            raise ParameterError("d, m_fixed, T_fixed, thresholds_fixed and repeat must be >= 1")


QUICK_FIG1 = Fig1Config(d=12, m_fixed=150, T_fixed=8, n_grid=(1, 3), m_grid=(80, 150),
                        T_grid=(4, 8), mincq_max=20, repeat=2)


def _data(config):
    """One seeded set for every sweep; a size m uses its first m rows."""
    return make_data(max(config.m_grid + (config.m_fixed,)), config.d, config.seed)


def _problem(config, data, m, k):
    """Voters (k thresholds per feature, with complements) and labels of the first m rows."""
    X, y = data[0][:m], data[1][:m]
    return build_voters(StumpPool(k).fit(X), X, y, config.dense), y


def _fit_row(sweep, label, key, params, H, y, T, config):
    """One FIG1_COLUMNS row: ``label`` fitted on (H, y) for T iterations (MinCq: one solve)."""
    row = dict(sweep=sweep, algorithm=label, n_voters=H.shape[1], m=y.size, T=T, iterations=0,
               runs=0, start_s=np.nan, fit_s=np.nan, per_iter_s=np.nan, note="")
    if key == "mincq" and H.shape[1] // 2 > config.mincq_max:
        row["note"] = (f"skipped: {H.shape[1] // 2} direct voters > mincq_max = "
                       f"{config.mincq_max} (dense program, time ~ n^3)")
        return row
    try:
        factory = _factory(key, T, H, y, **params)
        timing, runs = best_run(factory, H, y, config.repeat, config.repeat_budget)
    except ParameterError as exc:
        row["note"] = f"not run: {exc}"
        return row
    n = timing.steps.size
    row.update(iterations=n, runs=runs, start_s=timing.start, fit_s=timing.total)
    if key == "mincq":
        row["note"] = f"one quadratic program (T does not apply), mu = {factory.mu:.4g}"
    else:
        row["per_iter_s"] = (timing.total - timing.start) / max(n, 1)
        if n < T:
            row["note"] = f"stopped after {n} iterations: {timing.run.stop_reason}"
    return row


def fig1_n(config=Fig1Config()):
    """Fit time versus the number of voters n (Fig. 1a): one row per (k in n_grid, algorithm).

    ``fit_s`` is ``start`` plus every step (the total training time, the paper's ordinate);
    ``per_iter_s`` = (fit_s - start_s) / iterations (NaN for MinCq, one solve).
    """
    data, rows = _data(config), []
    for k in config.n_grid:
        H, y = _problem(config, data, config.m_fixed, k)
        rows += [_fit_row("n", label, key, params, H, y, config.T_fixed, config)
                 for label, key, params in FIG1_ALGORITHMS]
    return pd.DataFrame(rows, columns=FIG1_COLUMNS)


def fig1_m(config=Fig1Config()):
    """Fit time versus the number of examples m (Fig. 1b); columns as :func:`fig1_n`."""
    data, rows = _data(config), []
    for m in config.m_grid:
        H, y = _problem(config, data, m, config.thresholds_fixed)
        rows += [_fit_row("m", label, key, params, H, y, config.T_fixed, config)
                 for label, key, params in FIG1_ALGORITHMS]
    return pd.DataFrame(rows, columns=FIG1_COLUMNS)


def fig1_T(config=Fig1Config()):
    """Fit time versus the number of iterations T (Fig. 1c-d), iterative algorithms only.

    Each algorithm runs to ``max(T_grid)`` (the fastest of ``repeat`` runs, as
    :func:`best_run`); the fit time at T is the cumulative time of ``start`` and its first T
    steps (a run stopped at T is that prefix: the algorithms are deterministic).  A run that
    stops before T reports the time to its stop, with ``iterations`` < T and the stop reason
    in ``note``.
    """
    H, y = _problem(config, _data(config), config.m_fixed, config.thresholds_fixed)
    T_max = max(config.T_grid)
    rows = []
    for label, key, params in FIG1_ALGORITHMS:
        if key == "mincq":
            continue
        try:
            timing, runs = best_run(_factory(key, T_max, H, y, **params), H, y, config.repeat,
                                    config.repeat_budget)
        except ParameterError as exc:
            rows += [dict(sweep="T", algorithm=label, n_voters=H.shape[1], m=y.size, T=T,
                          iterations=0, runs=0, note=f"not run: {exc}") for T in config.T_grid]
            continue
        elapsed = timing.start + np.cumsum(timing.steps)
        for T in config.T_grid:
            n = min(T, timing.steps.size)
            stopped = n < T
            fit = timing.total if stopped else elapsed[n - 1]
            rows.append(dict(sweep="T", algorithm=label, n_voters=H.shape[1], m=y.size, T=T,
                             iterations=n, runs=runs, start_s=timing.start, fit_s=fit,
                             per_iter_s=(fit - timing.start) / max(n, 1),
                             note=(f"stopped after {n} iterations: {timing.run.stop_reason}"
                                   if stopped else "")))
    return pd.DataFrame(rows, columns=FIG1_COLUMNS)


def fig1(config=Fig1Config()):
    """The three sweeps of Fig. 1: ``{"n": fig1_n, "m": fig1_m, "T": fig1_T}`` tables."""
    _warm_up({key for _, key, _ in FIG1_ALGORITHMS})
    return {"n": fig1_n(config), "m": fig1_m(config), "T": fig1_T(config)}


_SWEEP_AXIS = {"n": "n_voters", "m": "m", "T": "T"}


def fig1_ratios(tables):
    """CqBoost / CB-Boost and MinCq / CB-Boost fit times at the largest size each pair ran.

    For each sweep of ``tables`` (as :func:`fig1` returns) and each of CqBoost and MinCq: the
    largest value of the varied quantity where both it and CB-Boost have a fit time.
    Returns a DataFrame with :data:`RATIO_COLUMNS`.
    """
    rows = []
    for sweep, table in tables.items():
        axis = _SWEEP_AXIS[sweep]
        cb = table[table["algorithm"] == "CB-Boost"].set_index(axis)["fit_s"]
        for label in ("CqBoost", "MinCq"):
            other = table[(table["algorithm"] == label) & table["fit_s"].notna()]
            other = other[other[axis].map(cb).notna()]
            if other.empty:
                continue
            best = other.loc[other[axis].idxmax()]
            rows.append(dict(sweep=sweep, algorithm=label, n_voters=best["n_voters"],
                             m=best["m"], T=best["T"], fit_s=best["fit_s"],
                             cbboost_fit_s=cb[best[axis]], ratio=best["fit_s"] / cb[best[axis]]))
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)


def write_fig1(tables, out):
    """Write ``fig1_<sweep>.csv`` for each table into directory ``out``; return the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for sweep, table in tables.items():
        path = out / f"fig1_{sweep}.csv"
        table.to_csv(path, index=False)
        paths.append(path)
    return paths


def read_table(path):
    """A table written by :func:`write_fig1` (floats exactly, empty notes as "")."""
    table = pd.read_csv(path, float_precision="round_trip")
    table["note"] = table["note"].fillna("").astype(str)
    return table


def format_fig1(tables):
    """Fit seconds per algorithm (columns) at each size (rows) for each sweep, then notes."""
    parts = []
    titles = {"n": "fit time (s) vs number of voters n", "m": "fit time (s) vs examples m",
              "T": "fit time (s) vs iterations T"}
    for sweep, table in tables.items():
        axis = _SWEEP_AXIS[sweep]
        order = [a for a, _, _ in FIG1_ALGORITHMS if a in set(table["algorithm"])]
        wide = table.pivot(index=axis, columns="algorithm", values="fit_s")[order]
        fixed = {"n": f"m={table['m'].iloc[0]}, T={table['T'].iloc[0]}",
                 "m": f"n={table['n_voters'].iloc[0]}, T={table['T'].iloc[0]}",
                 "T": f"n={table['n_voters'].iloc[0]}, m={table['m'].iloc[0]}"}[sweep]
        parts.append(f"{titles[sweep]} ({fixed})\n{wide.to_string(float_format='{:.3f}'.format)}")
        notes = table[table["note"] != ""]
        parts += [f"  {r.algorithm} at {axis}={r[axis]}: {r.note}" for _, r in notes.iterrows()
                  if not (r.algorithm == "MinCq" and r.note.startswith("one quadratic"))]
    return "\n".join(parts)


def format_ratios(ratios):
    """:func:`fig1_ratios` as one line per ratio."""
    return "\n".join(
        f"{r.algorithm} / CB-Boost = {r.ratio:8.1f}x  (sweep {r.sweep}: n={r.n_voters}, m={r.m}, "
        f"T={r['T']}; {r.fit_s:.3f} s vs {r.cbboost_fit_s:.3f} s)" for _, r in ratios.iterrows())


# --------------------------------------------------------------------------- command line

def _parser():
    ap = argparse.ArgumentParser(prog="python -m cbviz.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command")
    cb = sub.add_parser("cbboost", help="the stump engine's table (the default)")
    cb.add_argument("--m", type=int, default=11791, help="examples (default: MNIST 4v9 size)")
    cb.add_argument("--d", type=int, default=784, help="features")
    cb.add_argument("--iters", type=int, default=20, help="CB-Boost iterations per configuration")
    cb.add_argument("--seed", type=int, default=0)
    cb.add_argument("--sklearn-iters", type=int, default=5,
                    help="AdaBoost trees (each costs about a second at the default size)")

    al = sub.add_parser("algorithms", help="time per iteration of every registered algorithm")
    al.add_argument("--m", type=int, default=11800, help="examples (default: MNIST 4v9 size)")
    al.add_argument("--d", type=int, default=784, help="features")
    al.add_argument("--iters", type=int, default=20, help="iterations per algorithm (>= 2)")
    al.add_argument("--thresholds", type=int, default=10, help="stump thresholds per feature")
    al.add_argument("--seed", type=int, default=0)
    al.add_argument("--mincq-voters", type=int, default=None,
                    help="direct voters of MinCq's sub-pool (default: the whole pool; 0: skip)")
    al.add_argument("--cqboost-iters", type=int, default=None,
                    help="CqBoost's iterations (default: --iters)")
    al.add_argument("--klboost-passes", type=int, default=3,
                    help="passes of the KL-regularized learner")
    al.add_argument("--repeat", type=int, default=3,
                    help="best of this many runs per algorithm (while under 5 s)")

    f1 = sub.add_parser("fig1", help="the CB-Boost paper's Fig. 1 sweeps; writes CSV files")
    f1.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    f1.add_argument("--out", default=".", help="directory of fig1_n.csv, fig1_m.csv, fig1_T.csv")
    f1.add_argument("--d", type=int)
    f1.add_argument("--seed", type=int)
    f1.add_argument("--m-fixed", type=int, help="examples of the n and T sweeps")
    f1.add_argument("--T-fixed", type=int, help="iterations of the n and m sweeps")
    f1.add_argument("--thresholds-fixed", type=int, help="thresholds per feature, m and T sweeps")
    f1.add_argument("--n-grid", type=int, nargs="+", help="thresholds per feature (n = 2 d k)")
    f1.add_argument("--m-grid", type=int, nargs="+")
    f1.add_argument("--T-grid", type=int, nargs="+")
    f1.add_argument("--mincq-max", type=int, help="largest number of direct voters for MinCq")
    f1.add_argument("--dense", action="store_true", default=None,
                    help="dense voter matrices instead of the stump operator")
    f1.add_argument("--repeat", type=int, help="best of this many runs per fit (default 3)")
    f1.add_argument("--repeat-budget", type=float,
                    help="seconds after which a fit is not repeated (default 5)")
    return ap


def _fig1_config(args):
    """The ``--quick`` or default configuration with the options given on the command line."""
    base = QUICK_FIG1 if args.quick else Fig1Config()
    given = {name: getattr(args, name) for name in base.__dataclass_fields__
             if getattr(args, name, None) is not None}
    return replace(base, **{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()})


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = ("cbboost", "algorithms", "fig1")
    if not argv or (argv[0] not in commands and argv[0] not in ("-h", "--help")):
        argv = ["cbboost"] + argv   # the original interface: options only
    args = _parser().parse_args(argv)
    if args.command == "cbboost":
        table = measure(args.m, args.d, args.iters, args.seed, args.sklearn_iters)
        print(f"Time per iteration, m={args.m}, d={args.d}, seed={args.seed} (CB-Boost: median "
              f"of steps 2..{args.iters}; BLAS and OpenMP on one thread)")
        print(report(table))
    elif args.command == "algorithms":
        table = algorithm_table(args.m, args.d, args.iters, args.thresholds, args.seed,
                                args.mincq_voters, args.cqboost_iters, args.klboost_passes,
                                args.repeat)
        print(f"Per-iteration time of every algorithm, m={args.m}, d={args.d}, "
              f"{args.thresholds} thresholds per feature + complements, seed={args.seed}")
        print(format_algorithm_table(table))
        print("\n".join(algorithm_targets(table, args.m, args.d, args.thresholds, args.seed)))
    else:
        config = _fig1_config(args)
        tables = fig1(config)
        print(f"CB-Boost paper, Fig. 1 protocol: {config}")
        print(format_fig1(tables))
        print("\nratios at the largest size both ran:")
        print(format_ratios(fig1_ratios(tables)))
        for path in write_fig1(tables, args.out):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
