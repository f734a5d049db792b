"""Speed of the package's algorithms, measured in one process on seeded data.

Three commands of ``cbviz bench`` (the same as ``python -m cbviz.bench``; ``cbviz bench
COMMAND --help`` for the options):

``cbviz bench [cbboost] [--m 11791 --d 784 --iters 20]``
    The stump engine's table (:func:`measure`): CB-Boost's time per iteration on a seeded
    ``make_classification`` set of the CB-Boost paper's MNIST 4-vs-9 size, with 10 equally
    spaced thresholds per feature, 255 quantile bins and every midpoint (exact), each with
    complements; scikit-learn's ``AdaBoostClassifier`` on depth-1 trees and
    ``HistGradientBoostingClassifier`` with ``max_depth=1``; and a bare pass over the data
    (``X.sum()``).  Everything runs with BLAS and OpenMP on one thread; CB-Boost also with the
    engine's threads.  It prints the table, the memory of the binned data and the ratios the
    project tracks (:func:`report`).

``cbviz bench algorithms [--m 11800 --d 784 --iters 20]``
    Every algorithm of :data:`cbviz.algorithms.ALGORITHMS` on the data and the 10-threshold
    pool of the engine table, with scikit-learn's AdaBoost as the peer: :func:`algorithm_table`.

``cbviz bench fig1 [--quick] [--out DIR]``
    The CB-Boost paper's Fig. 1 protocol (Sect. 5.1): total fit time of MinCq, CqBoost,
    GB-CB-Boost, CB-Boost and AdaBoost versus the number of voters n, of examples m and of
    iterations T (:func:`fig1`; the full preset is :class:`Fig1Config`'s defaults); prints
    the tables, each fit time as a ratio to CB-Boost's (:func:`fig1_ratios`) and the paper's
    claims beside ours (:func:`fig1_claims`), and writes ``fig1_n.csv``, ``fig1_m.csv``,
    ``fig1_T.csv``, ``fig1_ratios.csv`` and ``fig1_claims.csv`` in DIR.

Modules: ``common`` (data, voters, timing), ``engine`` (``cbboost``), ``algorithm_times``
(``algorithms``), ``fig1_protocol`` (``fig1``), ``claims`` (read against the paper) and
``commands`` (the command line); every public name is here too.

What every number is: wall-clock seconds (``time.perf_counter``) in this process; ``algorithms``
and ``fig1`` first make one warm-up run of every algorithm on a tiny problem (first calls of
numpy and the solvers), ``cbboost`` leaves out each run's first step.
``start_s`` is ``factory.start(H, y)`` (the products an algorithm needs before its first
step); a step is one ``run.step()``, record-making (bounds, errors) included, as the app pays
it.  Building the pool is shared by all algorithms and never counted.  Times depend on the
machine's load: compare rows of the same run, not runs.
"""
from __future__ import annotations

from .algorithm_times import (ALGORITHM_COLUMNS, CQBOOST_AT, algorithm_table,
                              algorithm_targets, format_algorithm_table)
from .claims import (CLAIM_COLUMNS, CLAIMS, RATIO_COLUMNS, fig1_claims, fig1_ratios, fig1_report,
                     fig1_summary, format_claims, format_ratios)
from .commands import main
from .common import (SKLEARN_ADABOOST, Timing, best_of, best_run, build_voters, make_data,
                     sub_pool, time_run, time_sklearn_adaboost)
from .engine import (BARE_PASS, ENGINE_COLUMNS, ENGINE_POOLS, SKLEARN_HGB, measure, report,
                     time_sklearn_hgb)
from .fig1_protocol import (FIG1_ALGORITHMS, FIG1_COLUMNS, QUICK_FIG1, Fig1Config, fig1, fig1_m,
                            fig1_n, fig1_T, format_fig1, read_table, write_fig1)

__all__ = ["ALGORITHM_COLUMNS", "BARE_PASS", "CLAIMS", "CLAIM_COLUMNS", "CQBOOST_AT",
           "ENGINE_COLUMNS", "ENGINE_POOLS", "FIG1_ALGORITHMS", "FIG1_COLUMNS", "QUICK_FIG1",
           "RATIO_COLUMNS", "SKLEARN_ADABOOST", "SKLEARN_HGB", "Fig1Config", "Timing",
           "algorithm_table", "algorithm_targets", "best_of", "best_run", "build_voters", "fig1",
           "fig1_T", "fig1_claims", "fig1_m", "fig1_n", "fig1_ratios", "fig1_report",
           "fig1_summary", "format_algorithm_table", "format_claims", "format_fig1",
           "format_ratios", "main", "make_data", "measure", "read_table", "report", "sub_pool",
           "time_run", "time_sklearn_adaboost", "time_sklearn_hgb", "write_fig1"]
