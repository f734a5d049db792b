"""Several algorithms on the same data, split and voter pool, stepped together.

A :class:`Comparison` holds one run per registered algorithm (same ``H_train``/``H_test``)
and the scikit-learn baselines (fitted on the raw features with as many members as the
algorithms' iterations).  ``step(n)`` advances every unfinished run by ``n`` iterations, so a
page can run them in lockstep with a progress bar and stop at any point; ``frames()`` and
:meth:`Comparison.final_table` give what the comparison page plots and exports.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import bounds, progress
from .algorithms.base import ParameterError
from .algorithms.registry import ALGORITHMS
from .baselines import BASELINES, fit_baseline

__all__ = ["Comparison", "label_of"]


def label_of(key, params):
    """Display name of an algorithm with the hyper-parameters that tell variants apart."""
    spec = ALGORITHMS[key]
    shown = [f"{v}" for p in spec.params if p.kind == "choice" and p.active(params)
             and (v := params.get(p.name, p.default)) != p.default]
    return spec.name + (f" ({', '.join(shown)})" if shown else "")


class Comparison:
    """Runs of ``algorithms`` ((key, hyper-parameters) pairs; a key may come twice with other
    hyper-parameters, e.g. CB-Boost and GB-CB-Boost) and fits of ``baselines`` (names).

    An algorithm that refuses its data or hyper-parameters (e.g. a μ MinCq cannot reach) is
    kept out with its message in ``failed``; the others go on.
    """

    def __init__(self, problem, algorithms, baselines=(), max_iter=50, delta=0.05, seed=0):
        self.problem, self.max_iter, self.seed = problem, int(max_iter), seed
        self.runs, self.failed, self.baselines = {}, {}, {}
        for key, params in algorithms:
            name = label_of(key, params)
            try:
                self.runs[name] = problem.start(ALGORITHMS[key].make(
                    max_iter=self.max_iter, delta=delta, **params))
            except ParameterError as exc:
                self.failed[name] = str(exc)
        self._pending_baselines = list(baselines)

    @property
    def done(self):
        """Every run stopped and every baseline fitted."""
        return not self._pending_baselines and all(r.done for r in self.runs.values())

    def progress(self):
        """Fraction of the work done (iterations of the runs, baselines fitted)."""
        done = sum(self.max_iter if r.done else len(r.history) for r in self.runs.values())
        return (done + len(self.baselines)) / self._work()

    def step(self, n=1):
        """``n`` more iterations of every unfinished run (None: until each one stops), one
        iteration of each in turn; then, once every run has stopped, fit the baselines.

        Each step is reported to :mod:`cbviz.progress` as its share of the whole comparison
        (:meth:`progress`); a step cancelled by the listener is not taken, the others stay.
        """
        for _ in range(self.max_iter if n is None else n):
            live = [(name, run) for name, run in self.runs.items() if not run.done]
            if not live:
                break
            for name, run in live:
                done = self.progress()
                with progress.part(done, done + 1.0 / self._work(),
                                   f"{name}: iteration {len(run.history) + 1}"):
                    run.step()
        if all(r.done for r in self.runs.values()):
            self.fit_baselines()

    def _work(self):
        return max(self.max_iter * len(self.runs) + len(self.baselines)
                   + len(self._pending_baselines), 1)

    def fit_baselines(self):
        """Fit the baselines not fitted yet, with ``max_iter`` members each (each reported to
        :mod:`cbviz.progress` before its fit)."""
        split = self.problem.split
        while self._pending_baselines:
            name = self._pending_baselines[0]
            spec = BASELINES[name]
            progress.report(self.progress(), f"fitting {spec.display_name} (scikit-learn)")
            self._pending_baselines.pop(0)
            try:
                self.baselines[spec.display_name] = fit_baseline(
                    name, split.X_train, split.y_train, split.X_test, split.y_test,
                    random_state=self.seed, n_estimators=self.max_iter)
            except ParameterError as exc:
                self.failed[spec.display_name] = str(exc)

    def frames(self):
        """Display name -> per-iteration DataFrame (algorithms first, then baselines)."""
        out = {name: run.to_frame() for name, run in self.runs.items() if run.history}
        out.update({name: res.frame for name, res in self.baselines.items()})
        return out

    def final_table(self):
        """One row per algorithm at its last iteration: errors, sparsity, bounds, fit time."""
        rows = []
        for name, run in self.runs.items():
            if not run.history:
                continue
            rec = run.history[-1]
            key, value = bounds.tightest(rec)
            rows.append({
                "algorithm": name, "iterations": len(run.history),
                "test error": rec.test_error, "train error": rec.train_error,
                "voters with weight": rec.n_voters, "C-bound": rec.c_bound,
                "PAC-Bayes bound (Roy et al. 2016)": rec.pac_bound,
                "tightest PAC-Bayes bound": value,
                "which bound": ("none (voters fitted to the sample)" if not run.fixed
                                else bounds.PAC_BOUNDS[key] if value < 1 else "none (all vacuous)"),
                "fit time (s)": float(sum(r.seconds for r in run.history)),
                "stop reason": run.stop_reason or "still running"})
        for name, res in self.baselines.items():
            last = res.frame.iloc[-1]
            rows.append({
                "algorithm": f"{name} (scikit-learn)", "iterations": int(last["iteration"]),
                "test error": res.test_error, "train error": res.train_error,
                "voters with weight": int(last["n_voters"]), "C-bound": np.nan,
                "PAC-Bayes bound (Roy et al. 2016)": np.nan, "tightest PAC-Bayes bound": np.nan,
                "which bound": "", "fit time (s)": res.fit_seconds,
                "stop reason": res.stop_reason})
        return pd.DataFrame(rows)

    def final_panel(self):
        """Per algorithm: the empirical C-bound and the four PAC-Bayes bounds at its last
        iteration, with its train and test errors (long format, for a grouped bar chart)."""
        rows = []
        for name, run in self.runs.items():
            if not run.history:
                continue
            rec = run.history[-1]
            values = {"empirical C-bound": rec.c_bound, "train error": rec.train_error,
                      "test error": rec.test_error}
            values.update({label: getattr(rec, key) for key, label in bounds.PAC_BOUNDS.items()})
            rows += [{"algorithm": name, "quantity": q, "value": v} for q, v in values.items()]
        return pd.DataFrame(rows, columns=["algorithm", "quantity", "value"])
