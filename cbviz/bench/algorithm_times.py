"""Every algorithm of :data:`cbviz.algorithms.ALGORITHMS` timed on one data set and pool,
beside scikit-learn's AdaBoost (:func:`algorithm_table`), and CqBoost's and the KL pass's
targets as ratios to a CB-Boost iteration (:func:`algorithm_targets`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..algorithms import ALGORITHMS, ParameterError
from ..voters import StumpPool
from .common import (SKLEARN_ADABOOST, best_of, best_run, build_voters, make_data, make_factory,
                     sub_pool, time_run, time_sklearn_adaboost, warm_up)

__all__ = ["ALGORITHM_COLUMNS", "CQBOOST_AT", "algorithm_table", "algorithm_targets",
           "format_algorithm_table"]

ALGORITHM_COLUMNS = ["algorithm", "key", "voters", "m", "iterations", "runs", "unit",
                     "start_s", "seconds", "vs_sklearn", "note"]


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
    warm_up(ALGORITHMS)
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
            factory = make_factory(key, caps.get(key, iters), Hk, y, **params)
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
    steps = time_run(make_factory("cqboost", max(at), H, y), H, y).steps
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

