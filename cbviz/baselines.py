"""scikit-learn ensembles as baselines for the comparison page, recorded like the steppers.

:func:`fit_baseline` fits one of :data:`BASELINES` (AdaBoost on decision stumps, random
forest, bagged trees, gradient boosting) and returns a :class:`BaselineResult` whose
``frame`` has one row per iteration, with the column names of
:meth:`cbviz.algorithms.base.Run.to_frame` where the quantity exists:

``iteration``
    number of ensemble members so far (stumps / trees / boosting stages);
``n_voters``
    members with a non-zero weight so far (AdaBoost: stumps with ``estimator_weights_ != 0``;
    the other three weight every member, so ``n_voters == iteration``);
``train_error``, ``test_error``
    0-1 error of the ensemble made of the first ``iteration`` members (``test_error`` is NaN
    without test data);
``seconds``
    the fit time spread evenly over the iterations, ``fit_seconds / T`` on every row (the
    per-step wall time of :class:`~cbviz.algorithms.base.Record`; scikit-learn fits in one
    call, so the share is even); ``BaselineResult.fit_seconds`` is the total;
``alpha``, ``weighted_error`` (AdaBoost)
    the stump's weight in the vote and its weighted training error (SAMME);
``objective`` (gradient boosting)
    scikit-learn's ``train_score_``: the loss the trees descend, on the in-bag sample when
    ``subsample < 1``.  For ``loss="log_loss"`` scikit-learn reports the binomial deviance,
    twice the mean log-loss.

Per-iteration predictions: AdaBoost and gradient boosting replay ``staged_predict``; the
forest and bagging predict with the mean ``predict_proba`` of their first t members, the rule
their ``predict`` applies to all of them (summed in member order, then divided by t), so the
last stage is the fitted model's prediction exactly (checked on every fit).  Both ensembles
are fit with ``n_jobs=None`` (one process), which keeps that summation order.

Labels: any two classes (the package's {-1, +1} included); predictions are in the same labels.
"""
from __future__ import annotations

import itertools
import math
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_array, check_X_y

from .algorithms.base import ParameterError

__all__ = ["BASELINES", "BaselineResult", "BaselineSpec", "Param", "fit_baseline"]

_MAX_SEED = 2**32 - 1  # numpy's RandomState accepts seeds in [0, 2**32 - 1]


@dataclass(frozen=True)
class Param:
    """One hyper-parameter: its default, allowed range and a one-line description.

    ``kind`` is ``int`` (closed range ``[low, high]``) or ``float`` (``(low, high]`` when
    ``low_open``, else ``[low, high]``); ``none_ok`` also allows ``None`` (its meaning is
    in the description).
    """

    name: str
    kind: type
    default: object
    low: float
    high: float
    description: str
    low_open: bool = False
    none_ok: bool = False

    @property
    def range_text(self):
        """The allowed values in words, e.g. ``"an integer in [1, 1000]"``."""
        if self.kind is int:
            text = f"an integer in [{self.low}, {self.high}]"
        else:
            text = f"a number in {'(' if self.low_open else '['}{self.low}, {self.high}]"
        return text + " or None" if self.none_ok else text

    def check(self, value):
        """``value`` as ``kind`` (or None), or ParameterError naming the parameter and range."""
        if value is None and self.none_ok:
            return None
        number_type = numbers.Integral if self.kind is int else numbers.Real
        ok = isinstance(value, number_type) and not isinstance(value, bool)
        if ok:
            value = self.kind(value)
            above = value > self.low if self.low_open else value >= self.low
            ok = math.isfinite(value) and above and value <= self.high
        if not ok:
            raise ParameterError(f"{self.name} must be {self.range_text}, got {value!r}")
        return value


@dataclass(frozen=True)
class BaselineSpec:
    """A baseline: how to build it, how to replay it, and what its hyper-parameters mean.

    ``build(params, random_state, m)`` returns the unfitted estimator for ``m`` training
    examples; ``stages(estimator, X)``
    yields the predictions after each iteration; ``per_iteration(estimator)`` gives the
    per-iteration columns besides the errors (``n_voters`` first; its length is the number
    of iterations).
    """

    display_name: str
    estimator_class: type
    description: str
    params: tuple[Param, ...]
    build: Callable
    stages: Callable
    per_iteration: Callable

    @property
    def defaults(self):
        """``{parameter name: default}``."""
        return {p.name: p.default for p in self.params}

    def resolve(self, params):
        """The defaults updated with ``params``, each checked against its range."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ParameterError(f"{self.display_name} has no parameter {unknown[0]!r}; "
                                 f"its parameters are {sorted(known)}")
        return {name: p.check(params.get(name, p.default)) for name, p in known.items()}


@dataclass(frozen=True)
class BaselineResult:
    """A fitted baseline and its per-iteration records (see the module docstring for columns).

    ``train_error`` / ``test_error`` are those of the fitted estimator's ``predict``
    (``test_error`` is None without test data); ``staged`` says whether ``frame`` has every
    iteration or only the final one.
    """

    name: str
    display_name: str
    params: dict
    random_state: int | None
    estimator: object
    frame: pd.DataFrame
    fit_seconds: float
    train_error: float
    test_error: float | None
    stop_reason: str
    staged: bool


# --------------------------------------------------------------------------- stages

def _staged_predict(estimator, X):
    return estimator.staged_predict(X)


def _mean_proba_stages(estimator, X):
    """Predictions of the mean ``predict_proba`` of the first t members, t = 1, 2, ...

    Forest and bagging ``predict``: ``classes_[argmax(sum_k p_k(x) / T)]``; members predict
    on float32 inputs (scikit-learn's tree dtype), bagged members on their feature subset.
    Member ``classes_`` are indices into ``estimator.classes_`` (both ensembles encode y); a
    member missing a class would fill only its own columns, scikit-learn's bagging rule (the
    trees here are fit on all of y with bootstrap counts as weights, so each has both).
    """
    X = check_array(X, dtype=np.float32)
    features = getattr(estimator, "estimators_features_", itertools.repeat(slice(None)))
    total = np.zeros((X.shape[0], estimator.n_classes_))
    for t, (member, cols) in enumerate(zip(estimator.estimators_, features), start=1):
        total[:, member.classes_.astype(int)] += member.predict_proba(X[:, cols])
        yield estimator.classes_.take(np.argmax(total / t, axis=1))


def _adaboost_columns(estimator):
    T = len(estimator.estimators_)
    weights = estimator.estimator_weights_[:T]
    return {"n_voters": np.cumsum(weights != 0), "alpha": weights.copy(),
            "weighted_error": estimator.estimator_errors_[:T].copy()}


def _member_count(estimator):
    return {"n_voters": np.arange(1, len(estimator.estimators_) + 1)}


def _gradient_boosting_columns(estimator):
    return {"n_voters": np.arange(1, estimator.n_estimators_ + 1),
            "objective": estimator.train_score_.copy()}


# --------------------------------------------------------------------------- the catalogue

def _n_estimators(default, member):
    return Param("n_estimators", int, default, 1, 1000, f"number of {member}")


_MAX_DEPTH_TREE = Param("max_depth", int, None, 1, 64,
                        "depth limit of each tree (None: grow until the leaves are pure)",
                        none_ok=True)

BASELINES = {
    "adaboost": BaselineSpec(
        display_name="AdaBoost (decision stumps)",
        estimator_class=AdaBoostClassifier,
        description="Discrete AdaBoost (SAMME) re-weighting the sample for one stump per round.",
        params=(
            _n_estimators(50, "boosting rounds (fewer if a stump is perfect or no better "
                              "than chance on the weighted sample)"),
            Param("learning_rate", float, 1.0, 0.0, 10.0,
                  "stump weight = learning_rate * ln((1 - err) / err)", low_open=True)),
        build=lambda p, seed, m: AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=p["n_estimators"],
            learning_rate=p["learning_rate"], random_state=seed),
        stages=_staged_predict,
        per_iteration=_adaboost_columns),
    "random_forest": BaselineSpec(
        display_name="Random forest",
        estimator_class=RandomForestClassifier,
        description="Trees on bootstrap samples, sqrt(d) random features tried per split; "
                    "mean class probability vote.",
        params=(
            _n_estimators(100, "trees"),
            _MAX_DEPTH_TREE,
            Param("min_samples_leaf", int, 1, 1, 100, "fewest training examples in a leaf")),
        build=lambda p, seed, m: RandomForestClassifier(**p, random_state=seed),
        stages=_mean_proba_stages,
        per_iteration=_member_count),
    "bagging": BaselineSpec(
        display_name="Bagging (decision trees)",
        estimator_class=BaggingClassifier,
        description="Trees on bootstrap samples, all features; mean class probability vote.",
        params=(
            _n_estimators(10, "trees"),
            Param("max_samples", float, 1.0, 0.0, 1.0,
                  "fraction of the training set drawn (with replacement) for each tree",
                  low_open=True),
            _MAX_DEPTH_TREE),
        # the fraction goes to scikit-learn as the count its float form draws,
        # max(1, int(fraction * m)), which it takes without a small-sample warning
        build=lambda p, seed, m: BaggingClassifier(
            DecisionTreeClassifier(max_depth=p["max_depth"]), n_estimators=p["n_estimators"],
            max_samples=max(1, int(p["max_samples"] * m)), random_state=seed),
        stages=_mean_proba_stages,
        per_iteration=_member_count),
    "gradient_boosting": BaselineSpec(
        display_name="Gradient boosting (log-loss trees)",
        estimator_class=GradientBoostingClassifier,
        description="Regression trees fit in turn to the log-loss gradient, each shrunk by "
                    "the learning rate.",
        params=(
            _n_estimators(100, "boosting stages (one tree each)"),
            Param("learning_rate", float, 0.1, 0.0, 1.0,
                  "shrinkage of each tree's contribution", low_open=True),
            Param("max_depth", int, 3, 1, 16, "depth of each regression tree"),
            Param("subsample", float, 1.0, 0.0, 1.0,
                  "fraction of the training set each tree is fit on (< 1: stochastic "
                  "gradient boosting)", low_open=True)),
        build=lambda p, seed, m: GradientBoostingClassifier(**p, random_state=seed),
        stages=_staged_predict,
        per_iteration=_gradient_boosting_columns),
}


# --------------------------------------------------------------------------- fitting

def _check_data(X_train, y_train, X_test, y_test):
    """Validated arrays; ParameterError unless y_train has exactly two classes."""
    def checked(X, y, which):
        y = np.asarray(y)
        if y.ndim != 1:
            raise ParameterError(f"y_{which} must be one-dimensional, got shape {y.shape}")
        try:
            return check_X_y(X, y, dtype="numeric")
        except ValueError as exc:
            raise ParameterError(f"X_{which}, y_{which}: {exc}") from exc

    X_train, y_train = checked(X_train, y_train, "train")
    classes = np.unique(y_train)
    if classes.size != 2:
        raise ParameterError(f"y_train has {classes.size} class(es) {classes[:5].tolist()}; "
                             "the baselines need exactly two")
    if (X_test is None) != (y_test is None):
        raise ParameterError("give both X_test and y_test, or neither")
    if X_test is not None:
        X_test, y_test = checked(X_test, y_test, "test")
        if X_test.shape[1] != X_train.shape[1]:
            raise ParameterError(f"X_test has {X_test.shape[1]} features, "
                                 f"X_train has {X_train.shape[1]}")
        foreign = np.setdiff1d(np.unique(y_test), classes)
        if foreign.size:
            raise ParameterError(f"y_test has labels {foreign[:5].tolist()} not in y_train's "
                                 f"classes {classes.tolist()}")
    return X_train, y_train, X_test, y_test


def _check_seed(random_state):
    if random_state is None:
        return None
    if (isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral)
            or not 0 <= random_state <= _MAX_SEED):
        raise ParameterError(f"random_state must be None or an integer in [0, {_MAX_SEED}], "
                             f"got {random_state!r}")
    return int(random_state)


def _staged_errors(stages, y, final):
    """0-1 error of each stage's predictions; the last stage must be ``final`` exactly."""
    errors, last = [], None
    for last in stages:
        errors.append(np.mean(last != y))
    if last is None or not np.array_equal(last, final):
        raise RuntimeError("the last staged prediction differs from the fitted estimator's "
                           "predict: the replay does not follow this scikit-learn version")
    return np.array(errors)


def _stop_reason(name, estimator, n_iter):
    wanted = estimator.n_estimators
    if name != "adaboost" or n_iter == wanted:
        return f"n_estimators reached ({wanted})"
    if estimator.estimator_errors_[n_iter - 1] == 0:
        return (f"stump {n_iter} classified the weighted training sample perfectly: "
                f"AdaBoost stopped after {n_iter} of {wanted} stumps")
    return (f"AdaBoost stopped after {n_iter} of {wanted} stumps: the next stump was no better "
            "than chance on the weighted sample (weighted error >= 1/2) or the sample weights "
            "degenerated")


def fit_baseline(name, X_train, y_train, X_test=None, y_test=None, random_state=0,
                 staged=True, **params):
    """Fit the baseline ``name`` (a key of :data:`BASELINES`) and record its iterations.

    Parameters
    ----------
    name : str
        ``"adaboost"``, ``"random_forest"``, ``"bagging"`` or ``"gradient_boosting"``.
    X_train, y_train : array-like of shape (m, d) and (m,)
        Training data; ``y_train`` has exactly two classes (e.g. -1 and +1).
    X_test, y_test : array-like, optional
        Test data (both or neither); labels among ``y_train``'s classes.
    random_state : int in [0, 2**32 - 1] or None
        Seed of the estimator (None: not reproducible).
    staged : bool
        True: one row per iteration; False: only the final iteration's row.
    **params
        Hyper-parameters of the baseline (``BASELINES[name].params``); omitted ones take
        their defaults.

    Returns
    -------
    BaselineResult

    Raises
    ------
    ParameterError
        Unknown name or parameter, a value out of its range, malformed data, or labels
        that are not two classes.
    """
    if name not in BASELINES:
        raise ParameterError(f"unknown baseline {name!r}; choose one of {sorted(BASELINES)}")
    spec = BASELINES[name]
    values = spec.resolve(params)
    seed = _check_seed(random_state)
    X_train, y_train, X_test, y_test = _check_data(X_train, y_train, X_test, y_test)

    estimator = spec.build(values, seed, X_train.shape[0])
    t0 = time.perf_counter()
    try:
        estimator.fit(X_train, y_train)
    except ValueError as exc:  # e.g. AdaBoost's first stump no better than chance
        raise ParameterError(f"{spec.display_name} could not be fit: {exc}") from exc
    fit_seconds = time.perf_counter() - t0

    columns = spec.per_iteration(estimator)
    n_iter = columns["n_voters"].size
    final_train = estimator.predict(X_train)
    final_test = None if X_test is None else estimator.predict(X_test)
    train_error = float(np.mean(final_train != y_train))
    test_error = None if X_test is None else float(np.mean(final_test != y_test))

    if staged:
        rows = slice(None)
        train = _staged_errors(spec.stages(estimator, X_train), y_train, final_train)
        test = (np.full(n_iter, np.nan) if X_test is None
                else _staged_errors(spec.stages(estimator, X_test), y_test, final_test))
    else:
        rows = slice(n_iter - 1, None)
        train = np.array([train_error])
        test = np.array([np.nan if test_error is None else test_error])
    iteration = np.arange(1, n_iter + 1)[rows]
    frame = pd.DataFrame({
        "iteration": iteration,
        "n_voters": columns["n_voters"][rows],
        "train_error": train,
        "test_error": test,
        "seconds": np.full(iteration.size, fit_seconds / n_iter),
        **{key: col[rows] for key, col in columns.items() if key != "n_voters"}})
    return BaselineResult(
        name=name, display_name=spec.display_name, params=values, random_state=seed,
        estimator=estimator, frame=frame, fit_seconds=fit_seconds, train_error=train_error,
        test_error=test_error, stop_reason=_stop_reason(name, estimator, n_iter), staged=staged)
