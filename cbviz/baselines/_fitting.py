"""Fitting a baseline and recording its iterations (:func:`fit_baseline`)."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils import check_X_y

from ..constraints import Interval, ParameterError
from ._catalogue import BASELINES

__all__ = ["BaselineResult", "fit_baseline"]

# the estimators' seed: numpy's RandomState accepts seeds in [0, 2**32 - 1]
SEED = Interval(int, 0, 2**32 - 1, none=True)


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
    seed = SEED.check(random_state, "random_state", spec.display_name)
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
