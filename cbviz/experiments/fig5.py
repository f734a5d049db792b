"""Fig. 5 of the CB-Boost paper (Sect. 5.6): CB-Boost's C-bound against MinCq(CB-Boost)'s.

Protocol (Sect. 5.6): CB-Boost runs ``max_iter`` iterations (the paper: 200) on a split;
after each iteration ``t`` (every ``every``-th here), MinCq(CB-Boost)
(:func:`cbviz.algorithms.mincq_on_history`) finds the lowest C-bound that non-negative
weights on the voters chosen so far reach, and both votes' train and test 0-1 errors are
recorded.  The C-bound is scale-free, so the paper's MinCq margin parameter (0.05) plays no
part in that program.  Pool: ``StumpPool(thresholds)`` with complements on the training
part; no normalization.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..algorithms import ALGORITHMS, ParameterError, mincq_on_history
from ..data import prepare
from ..voters import StumpPool
from .runner import Experiment
from .table2 import load_spec

__all__ = ["FIG5", "FIG5_COLUMNS", "FIG5_SUMMARY_COLUMNS", "Fig5Config", "fig5_frames"]

FIG5_COLUMNS = ("dataset", "split", "iteration", "n_voters", "cbboost_c_bound",
                "cbboost_train_error", "cbboost_test_error", "mincq_c_bound",
                "mincq_train_error", "mincq_test_error", "stop_reason")
FIG5_SUMMARY_COLUMNS = ("dataset", "split", "iterations", "cbboost_c_bound", "mincq_c_bound",
                        "c_bound_gap_max", "cbboost_test_error", "mincq_test_error",
                        "stop_reason")


@dataclass(frozen=True)
class Fig5Config:
    """Fig. 5 on ``datasets`` (as Table 2's entries), ``splits`` splits (seeds ``seed ..``),
    CB-Boost for ``max_iter`` iterations, MinCq(CB-Boost) every ``every`` iterations (and at
    the last one)."""

    datasets: tuple = ("digits/4 vs 9", "ionosphere", "breast_cancer")
    splits: int = 1
    seed: int = 0
    train_ratio: float = 0.7
    thresholds: int = 10
    max_iter: int = 200
    every: int = 1

    def __post_init__(self):
        if min(self.splits, self.thresholds, self.max_iter, self.every) < 1:
            raise ParameterError(f"splits, thresholds, max_iter and every must be >= 1; got {self}")


QUICK_FIG5 = Fig5Config(datasets=("digits/4 vs 9", "ionosphere"), thresholds=5, max_iter=40,
                        every=2)


def _compute(config, unit):
    data = prepare(load_spec(unit["dataset"]), config.train_ratio, config.seed + unit["split"])
    pool = StumpPool(config.thresholds).fit(data.X_train)
    run = ALGORITHMS["cbboost"].make(max_iter=config.max_iter).start(
        pool.operator(data.X_train), data.y_train, pool.operator(data.X_test), data.y_test)
    run.run()
    last = len(run.history)
    iterations = sorted(set(range(config.every, last + 1, config.every)) | {last})
    mincq = mincq_on_history(run, iterations)
    return [{"dataset": unit["dataset"], "split": unit["split"], "iteration": int(r.iteration),
             "n_voters": int(r.n_voters), "cbboost_c_bound": rec.c_bound,
             "cbboost_train_error": rec.train_error, "cbboost_test_error": rec.test_error,
             "mincq_c_bound": r.c_bound, "mincq_train_error": r.train_error,
             "mincq_test_error": r.test_error, "stop_reason": run.stop_reason or ""}
            for r, rec in zip(mincq.itertuples(), (run.history[t - 1] for t in iterations))]


def _units(config):
    return [{"dataset": d, "split": s} for d in config.datasets for s in range(config.splits)]


def _assemble(config, rows):
    rows = rows.assign(gap=rows["cbboost_c_bound"] - rows["mincq_c_bound"])
    summary = rows.groupby(["dataset", "split"], sort=False).agg(
        iterations=("iteration", "max"), cbboost_c_bound=("cbboost_c_bound", "last"),
        mincq_c_bound=("mincq_c_bound", "last"), c_bound_gap_max=("gap", "max"),
        cbboost_test_error=("cbboost_test_error", "last"),
        mincq_test_error=("mincq_test_error", "last"), stop_reason=("stop_reason", "last"))
    return {"curves": rows.drop(columns="gap"),
            "summary": summary.reset_index()[list(FIG5_SUMMARY_COLUMNS)]}


def fig5_frames(curves, dataset, split=0):
    """CB-Boost's and MinCq(CB-Boost)'s curves of one run as the two frames of
    :func:`cbviz.plots.mincq_on_voters_figure` (columns ``iteration, c_bound, train_error,
    test_error``)."""
    one = curves[(curves["dataset"] == dataset) & (curves["split"] == split)]
    names = ("c_bound", "train_error", "test_error")
    return tuple(one[["iteration", *(f"{who}_{n}" for n in names)]]
                 .set_axis(["iteration", *names], axis=1).reset_index(drop=True)
                 for who in ("cbboost", "mincq"))


FIG5 = Experiment(
    name="fig5", title="Fig. 5: CB-Boost's C-bound vs MinCq(CB-Boost)'s (Sect. 5.6)",
    config_type=Fig5Config, quick=QUICK_FIG5, full=Fig5Config(), units=_units,
    compute=_compute, assemble=_assemble, columns=FIG5_COLUMNS,
    grid_fields=("datasets", "splits"))
