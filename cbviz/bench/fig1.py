"""The CB-Boost paper's Fig. 1 protocol (Sect. 5.1): total fit time of MinCq, CqBoost,
GB-CB-Boost, CB-Boost and AdaBoost versus the number of voters n, of examples m and of
iterations T (:func:`fig1`), its CSV files and its text."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..algorithms import ParameterError
from ..voters import StumpPool
from .common import best_run, build_voters, make_data, make_factory, warm_up

__all__ = ["FIG1_ALGORITHMS", "FIG1_COLUMNS", "QUICK_FIG1", "RATIO_COLUMNS", "Fig1Config",
           "fig1", "fig1_T", "fig1_m", "fig1_n", "fig1_ratios", "format_fig1", "format_ratios",
           "read_table", "write_fig1"]

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
        factory = make_factory(key, T, H, y, **params)
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
            timing, runs = best_run(make_factory(key, T_max, H, y, **params), H, y, config.repeat,
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
    warm_up({key for _, key, _ in FIG1_ALGORITHMS})
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

