"""Table 2 of the CB-Boost paper (Sect. 5.2): test 0-1 loss after a randomized search.

Protocol (Sect. 5.2, "Classifiers"): for each data set and each of ``splits`` seeded,
stratified train/test splits, each algorithm's hyper-parameters are drawn ``draws`` times
(the paper: 30) from a fixed distribution and validated by ``folds``-fold cross-validation
(the paper: 5) on the training part (scikit-learn's ``RandomizedSearchCV``, accuracy); the
best draw is refitted on the whole training part and its test 0-1 loss is the unit's result.
The table gives the mean and standard deviation over the splits.

The paper does not print its distributions (they are in its code); ours, the same for every
data set:

* CB-Boost, GB-CB-Boost, AdaBoost: ``max_iter`` uniform on the integers of ``max_iter``
  (scikit-learn's AdaBoost: ``n_estimators``, same range);
* MinCq: ``mu`` log-uniform on ``mu``, its upper end lowered to half the largest first moment
  the training part lets a posterior reach (a larger ``mu`` has no solution);
* CqBoost: ``mu`` as MinCq (against CqBoost's own reach) and ``max_iter`` as the boosting
  algorithms; ``epsilon`` fixed at the paper's 1e-6 (Sect. 5.3).

Every algorithm of a split uses the same pool (``StumpPool(thresholds)`` with complements,
fitted on each training fold), the same split and the same folds (seed ``seed + split``).
The data are not normalized; :mod:`.fig3` reuses this unit with Gaussian feature noise.
"""
from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import loguniform, randint
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import RandomizedSearchCV, StratifiedKFold

from ..algorithms import ALGORITHMS, ParameterError
from ..baselines import BASELINES
from ..data import load_dataset, prepare
from ..estimators import (
    AdaBoostClassifier,
    CBBoostClassifier,
    CqBoostClassifier,
    MinCqClassifier,
)
from ..voters import StumpPool
from .runner import Experiment

__all__ = ["ALGORITHM_LABELS", "SEARCH_COLUMNS", "TABLE2", "TABLE2_COLUMNS", "SearchProtocol",
           "Table2Config", "load_spec", "search_fit", "summarize", "wide"]

# key -> label, in the paper's column order; "sklearn_adaboost" is scikit-learn's on the
# raw features (decision stumps), the others share the stump pool
ALGORITHM_LABELS = {"cbboost": "CB-Boost", "gbcbboost": "GB-CB-Boost", "cqboost": "CqBoost",
                    "mincq": "MinCq", "adaboost": "AdaBoost",
                    "sklearn_adaboost": "AdaBoost (scikit-learn)"}

SEARCH_COLUMNS = ("dataset", "noise", "split", "algorithm", "test_error", "train_error",
                  "cv_error", "best_params", "n_voters", "failed_draws", "search_s", "refit_s",
                  "m_train", "m_test", "n_pool", "note")
TABLE2_COLUMNS = ("dataset", "algorithm", "test_error_mean", "test_error_std",
                  "train_error_mean", "n_voters_mean", "splits")

# UCI sets of the paper's text that exist offline, similar small UCI sets, and scikit-learn's
# 8x8 digits pairs standing in for its MNIST pairs
FULL_DATASETS = ("ionosphere", "australian", "bupa", "pima", "bands", "heart", "sonar",
                 "breast_cancer", "digits/0 vs 9", "digits/4 vs 9", "digits/5 vs 6",
                 "digits/7 vs 9")


@dataclass(frozen=True)
class SearchProtocol:
    """How one (data set, split, algorithm) is fitted: see the module docstring.

    ``datasets`` entries are catalogue names, or ``"name/a vs b"`` for a class pair
    (``"digits/4 vs 9"``).  ``max_iter`` and ``mu`` are inclusive ranges.
    """

    seed: int = 0
    train_ratio: float = 0.7
    thresholds: int = 10
    draws: int = 30
    folds: int = 5
    max_iter: tuple = (10, 200)
    mu: tuple = (1e-4, 0.1)
    epsilon: float = 1e-6

    def __post_init__(self):
        if min(self.draws, self.folds - 1, self.thresholds, self.max_iter[0]) < 1 \
                or self.max_iter[0] > self.max_iter[1] or not 0 < self.mu[0] <= self.mu[1]:
            raise ParameterError("draws, thresholds >= 1, folds >= 2, 1 <= max_iter[0] <= "
                                 f"max_iter[1] and 0 < mu[0] <= mu[1]; got {self}")


@dataclass(frozen=True)
class Table2Config(SearchProtocol):
    """Table 2: ``algorithms`` (keys of ``ALGORITHM_LABELS``) on ``datasets``, each over
    ``splits`` splits (seeds ``seed`` to ``seed + splits - 1``)."""

    datasets: tuple = FULL_DATASETS
    algorithms: tuple = tuple(ALGORITHM_LABELS)
    splits: int = 10

    def __post_init__(self):
        super().__post_init__()
        unknown = set(self.algorithms) - set(ALGORITHM_LABELS)
        if unknown or self.splits < 1:
            raise ParameterError(f"algorithms must be among {list(ALGORITHM_LABELS)} and "
                                 f"splits >= 1; got {sorted(unknown)}, splits={self.splits}")


QUICK_TABLE2 = Table2Config(datasets=("ionosphere", "breast_cancer", "digits/4 vs 9"),
                            splits=3, thresholds=5, draws=3, max_iter=(5, 40))


def load_spec(spec):
    """The data set of a ``datasets`` entry: ``"ionosphere"`` or ``"digits/4 vs 9"``."""
    name, _, pair = spec.partition("/")
    return load_dataset(name, pair=pair or None)


def _estimator(key, protocol, seed):
    """The unfitted estimator of ``key`` with its fixed hyper-parameters."""
    pool = StumpPool(protocol.thresholds)
    if key == "sklearn_adaboost":
        spec = BASELINES["adaboost"]
        return spec.build(spec.resolve({}), seed, None)
    return {"cbboost": lambda: CBBoostClassifier(pool),
            "gbcbboost": lambda: CBBoostClassifier(pool, direction="gradient"),
            "cqboost": lambda: CqBoostClassifier(pool, epsilon=protocol.epsilon),
            "mincq": lambda: MinCqClassifier(pool),
            "adaboost": lambda: AdaBoostClassifier(pool)}[key]()


def _space(key, protocol, X, y):
    """``RandomizedSearchCV``'s distributions for ``key`` on the training part (X, y)."""
    space = {}
    if key in ("cbboost", "gbcbboost", "cqboost", "adaboost"):
        space["max_iter"] = randint(protocol.max_iter[0], protocol.max_iter[1] + 1)
    if key == "sklearn_adaboost":
        space["n_estimators"] = randint(protocol.max_iter[0], protocol.max_iter[1] + 1)
    if key in ("cqboost", "mincq"):
        pool = StumpPool(protocol.thresholds).fit(X)
        reach = ALGORITHMS[key].make(mu=1e-4).start(pool.operator(X), y).largest_mu
        high = min(protocol.mu[1], reach / 2.0)
        space["mu"] = loguniform(min(protocol.mu[0], high / 2.0), high)
    return space


def _n_voters(estimator):
    """Voters with a non-zero weight in a fitted vote."""
    if hasattr(estimator, "weights_"):
        return int(np.count_nonzero(estimator.weights_))
    return int(np.count_nonzero(estimator.estimator_weights_[:len(estimator.estimators_)]))


def search_fit(protocol, dataset, algorithm, split, noise=0.0):
    """One unit: the randomized search of ``algorithm`` on a split of ``dataset``.

    The split is :func:`cbviz.data.prepare` with seed ``protocol.seed + split`` and Gaussian
    feature noise ``noise`` (sigma x each feature's training std, both parts).  Returns a
    :data:`SEARCH_COLUMNS` row: errors are 0-1 losses; ``cv_error`` is the best draw's mean
    validation loss; ``best_params`` its values (JSON); ``failed_draws`` the draws whose fit
    raised on some fold (their score is NaN); an algorithm that fails on the whole training
    part gives NaN errors and the reason in ``note``.
    """
    seed = protocol.seed + split
    data = prepare(load_spec(dataset), protocol.train_ratio, seed, noise=noise)
    row = {"dataset": dataset, "noise": float(noise), "split": int(split),
           "algorithm": ALGORITHM_LABELS[algorithm], "test_error": np.nan,
           "train_error": np.nan, "cv_error": np.nan, "best_params": "", "n_voters": np.nan,
           "failed_draws": 0, "search_s": np.nan, "refit_s": np.nan,
           "m_train": data.y_train.size, "m_test": data.y_test.size, "n_pool": np.nan,
           "note": ""}
    t0 = time.perf_counter()
    try:
        search = RandomizedSearchCV(
            _estimator(algorithm, protocol, seed),
            _space(algorithm, protocol, data.X_train, data.y_train), n_iter=protocol.draws,
            cv=StratifiedKFold(protocol.folds, shuffle=True, random_state=seed),
            random_state=seed, n_jobs=1, error_score=np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitFailedWarning)
            warnings.filterwarnings("ignore", "One or more of the test scores are non-finite")
            search.fit(data.X_train, data.y_train)
    except (ParameterError, ValueError) as exc:   # the pool is too large for the algorithm,
        # every draw failed, or the refit did
        row.update(search_s=time.perf_counter() - t0, note=f"not fitted: {exc}"[:400])
        return row
    best = search.best_estimator_
    row.update(
        test_error=float(np.mean(best.predict(data.X_test) != data.y_test)),
        train_error=float(np.mean(best.predict(data.X_train) != data.y_train)),
        cv_error=1.0 - float(search.best_score_),
        best_params=json.dumps({k: np.asarray(v).item() for k, v in search.best_params_.items()},
                               sort_keys=True),
        n_voters=_n_voters(best),
        failed_draws=int(np.isnan(search.cv_results_["mean_test_score"]).sum()),
        search_s=time.perf_counter() - t0, refit_s=float(search.refit_time_),
        n_pool=best.pool_.n_voters_ if hasattr(best, "pool_") else np.nan)
    return row


def summarize(rows, keys, datasets, algorithms):
    """Mean and standard deviation (ddof=1: NaN for one split) of the test 0-1 loss over the
    splits, grouped by ``keys`` (data set first, algorithm last), in the given orders."""
    rows = rows.assign(dataset=pd.Categorical(rows["dataset"], categories=list(datasets)),
                       algorithm=pd.Categorical(rows["algorithm"],
                                                categories=[ALGORITHM_LABELS[a]
                                                            for a in algorithms]))
    grouped = rows.groupby(list(keys), observed=True, sort=True)
    table = grouped.agg(test_error_mean=("test_error", "mean"),
                        test_error_std=("test_error", "std"),
                        train_error_mean=("train_error", "mean"),
                        n_voters_mean=("n_voters", "mean"),
                        splits=("test_error", "count")).reset_index()
    for key in ("dataset", "algorithm"):
        table[key] = table[key].astype(str)
    return table


def wide(table):
    """Table 2's layout: one row per data set, one ``"mean ± std"`` column per algorithm."""
    if table.empty:
        return pd.DataFrame()
    text = table.assign(cell=[f"{m:.3f} ± {s:.3f}" for m, s in
                              zip(table["test_error_mean"], table["test_error_std"])])
    out = text.pivot(index="dataset", columns="algorithm", values="cell")
    return out.loc[pd.unique(table["dataset"]), pd.unique(table["algorithm"])].reset_index()


def _units(config):
    return [{"dataset": d, "split": s, "algorithm": a} for d in config.datasets
            for s in range(config.splits) for a in config.algorithms]


def _compute(config, unit):
    return [search_fit(config, unit["dataset"], unit["algorithm"], unit["split"])]


def _assemble(config, rows):
    table = summarize(rows, ("dataset", "algorithm"), config.datasets, config.algorithms)
    return {"table": table[list(TABLE2_COLUMNS)], "wide": wide(table)}


TABLE2 = Experiment(
    name="table2", title="Table 2: test 0-1 loss after a randomized search (Sect. 5.2)",
    config_type=Table2Config, quick=QUICK_TABLE2, full=Table2Config(), units=_units,
    compute=_compute, assemble=_assemble, columns=SEARCH_COLUMNS,
    grid_fields=("datasets", "algorithms", "splits"))
