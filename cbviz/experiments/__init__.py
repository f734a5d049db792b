"""The papers' experiments, headless: ``python -m cbviz.experiments NAME``.

Each experiment (:data:`EXPERIMENTS`) is split into independent units of work that run in
parallel (joblib, or a Dask scheduler) and are saved one file per unit as they finish, so an
interrupted run resumes where it stopped (module ``cbviz.experiments.runner``):

``table2``  Table 2, test 0-1 loss after a seeded randomized search (``table2.py``);
``fig1``    Fig. 1, fit time versus n, m and T, as ratios to CB-Boost's, and the paper's
claims checked on them (:mod:`cbviz.bench`'s protocol, ``fig1.py``);
``fig3``    Fig. 3, CB-Boost vs AdaBoost under Gaussian feature noise (``fig3.py``);
``fig5``    Fig. 5, CB-Boost's C-bound beside MinCq(CB-Boost)'s per iteration (``fig5.py``);
``veb_table1``  the VEB-Boost paper's Table 1, AdaBoost and VEB-Boost with stumps and CART
trees as weak learners, beside the paper's values (``veb_table1.py``).

Each has a ``quick`` preset (under a minute on 2 cores) and a ``full`` one (the paper's
sizes where it states them).  The app's "Paper experiments" page calls
:func:`run_experiment` and :func:`load_results`, the command line the same functions; both
save in :func:`results_dir` unless told another folder.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import platformdirs

from .fig1 import FIG1
from .fig5 import FIG5, FIG5_COLUMNS, FIG5_SUMMARY_COLUMNS, Fig5Config, fig5_frames
from .fig3 import FIG3, FIG3_COLUMNS, Fig3Config, fig3_heatmap
from .runner import Experiment, ProgressLine, Results, load, run
from .table2 import SEARCH_COLUMNS, TABLE2, TABLE2_COLUMNS, Table2Config, wide
from .veb_table1 import VEB_TABLE1, VEB_TABLE1_COLUMNS, VEBTable1Config

__all__ = ["EXPERIMENTS", "FIG3_COLUMNS", "FIG5_COLUMNS", "FIG5_SUMMARY_COLUMNS",
           "SEARCH_COLUMNS", "TABLE2_COLUMNS", "VEB_TABLE1_COLUMNS", "Experiment",
           "Fig3Config", "Fig5Config", "ProgressLine", "Results", "Table2Config",
           "VEBTable1Config", "fig3_heatmap", "fig5_frames", "load_results", "preset",
           "results_dir", "run_experiment", "wide"]

EXPERIMENTS = {e.name: e for e in (TABLE2, FIG1, FIG3, FIG5, VEB_TABLE1)}


def results_dir():
    """The default results folder: ``experiment-results`` in cbviz's per-user data folder,
    ``$CBVIZ_DATA_DIR`` when set, else :func:`platformdirs.user_data_path` of "cbviz"
    (``~/.local/share/cbviz`` on Linux); never the folder the app was started from."""
    base = os.environ.get("CBVIZ_DATA_DIR")
    return (Path(base) if base else platformdirs.user_data_path("cbviz")) / "experiment-results"


def _experiment(name):
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise KeyError(f"unknown experiment {name!r}; choose one of {list(EXPERIMENTS)}") \
            from None


def preset(name, quick=True, **changes):
    """The ``quick`` or ``full`` configuration of experiment ``name`` with ``changes``
    (field names of its configuration dataclass; bad values raise ParameterError)."""
    experiment = _experiment(name)
    return replace(experiment.quick if quick else experiment.full, **changes)


def run_experiment(name, quick=True, *, config=None, n_jobs=1, out=None, scheduler=None,
                   progress=None, cancel=None):
    """Run experiment ``name`` (its units not yet in ``out``) and return its :class:`Results`.

    Parameters
    ----------
    name : {"table2", "fig1", "fig3", "fig5", "veb_table1"}
    quick : bool
        The quick preset (True) or the full one; ignored when ``config`` is given.
    config : configuration dataclass, optional
        E.g. ``preset("table2", splits=1)``.
    n_jobs, scheduler, progress, cancel
        As ``cbviz.experiments.runner.run``: joblib processes, a Dask scheduler address
        (or ``distributed.Client``), ``progress(done, total)``, ``cancel() -> bool``.
    out : path, optional
        Results directory: ``out/<name>/{config.json, units/, <table>.csv}``; default
        :func:`results_dir`.

    Returns
    -------
    Results
        ``.tables``: table2 ``{"table", "wide", "units"}``; fig1 ``{"n", "m", "T", "ratios",
        "units"}``; fig3 ``{"errors", "differences", "units"}``; fig5 ``{"curves",
        "summary", "units"}``; veb_table1 ``{"table", "wide", "protocol", "units"}``.
    """
    experiment = _experiment(name)
    if config is None:
        config = experiment.quick if quick else experiment.full
    return run(experiment, config, results_dir() if out is None else out, n_jobs=n_jobs, scheduler=scheduler, progress=progress,
               cancel=cancel)


def load_results(name, out=None, config=None):
    """What ``out`` (default :func:`results_dir`) holds for experiment ``name`` (the last run's
    configuration unless ``config`` is given) as :class:`Results`, computing nothing; None if
    it was never run."""
    return load(_experiment(name), results_dir() if out is None else out, config)
