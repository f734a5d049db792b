"""The baselines' catalogue: each scikit-learn ensemble's hyper-parameters (declared with
:mod:`cbviz.constraints`), how to build it and how to replay its iterations."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_array

from ..constraints import Constraint, Interval, ParameterError

__all__ = ["BASELINES", "BaselineSpec", "Param", "mean_proba_stages", "staged_predict"]


@dataclass(frozen=True)
class Param:
    """One hyper-parameter: its allowed values (a :mod:`cbviz.constraints` object), its default
    and a one-line description (the meaning of None, where allowed, is in it)."""

    name: str
    constraint: Constraint
    default: object
    description: str

    @property
    def range_text(self):
        """The allowed values in words, e.g. ``"an int in [1, 1000]"``."""
        return self.constraint.describe()

    def check(self, value, owner):
        """``value`` if allowed, else the :class:`ParameterError` naming it, ``owner`` (the
        baseline's name) and the range."""
        return self.constraint.check(value, self.name, owner)


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
        return {name: p.check(params.get(name, p.default), self.display_name)
                for name, p in known.items()}


# --------------------------------------------------------------------------- stages

def staged_predict(estimator, X):
    return estimator.staged_predict(X)


def mean_proba_stages(estimator, X):
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
    return Param("n_estimators", Interval(int, 1, 1000), default, f"number of {member}")


_MAX_DEPTH_TREE = Param("max_depth", Interval(int, 1, 64, none=True), None,
                        "depth limit of each tree (None: grow until the leaves are pure)")

BASELINES = {
    "adaboost": BaselineSpec(
        display_name="AdaBoost (decision stumps)",
        estimator_class=AdaBoostClassifier,
        description="Discrete AdaBoost (SAMME) re-weighting the sample for one stump per round.",
        params=(
            _n_estimators(50, "boosting rounds (fewer if a stump is perfect or no better "
                              "than chance on the weighted sample)"),
            Param("learning_rate", Interval(float, 0, 10, closed="right"), 1.0,
                  "stump weight = learning_rate * ln((1 - err) / err)")),
        build=lambda p, seed, m: AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=p["n_estimators"],
            learning_rate=p["learning_rate"], random_state=seed),
        stages=staged_predict,
        per_iteration=_adaboost_columns),
    "random_forest": BaselineSpec(
        display_name="Random forest",
        estimator_class=RandomForestClassifier,
        description="Trees on bootstrap samples, sqrt(d) random features tried per split; "
                    "mean class probability vote.",
        params=(
            _n_estimators(100, "trees"),
            _MAX_DEPTH_TREE,
            Param("min_samples_leaf", Interval(int, 1, 100), 1,
                  "fewest training examples in a leaf")),
        build=lambda p, seed, m: RandomForestClassifier(**p, random_state=seed),
        stages=mean_proba_stages,
        per_iteration=_member_count),
    "bagging": BaselineSpec(
        display_name="Bagging (decision trees)",
        estimator_class=BaggingClassifier,
        description="Trees on bootstrap samples, all features; mean class probability vote.",
        params=(
            _n_estimators(10, "trees"),
            Param("max_samples", Interval(float, 0, 1, closed="right"), 1.0,
                  "fraction of the training set drawn (with replacement) for each tree"),
            _MAX_DEPTH_TREE),
        # the fraction goes to scikit-learn as the count its float form draws,
        # max(1, int(fraction * m)), which it takes without a small-sample warning
        build=lambda p, seed, m: BaggingClassifier(
            DecisionTreeClassifier(max_depth=p["max_depth"]), n_estimators=p["n_estimators"],
            max_samples=max(1, int(p["max_samples"] * m)), random_state=seed),
        stages=mean_proba_stages,
        per_iteration=_member_count),
    "gradient_boosting": BaselineSpec(
        display_name="Gradient boosting (log-loss trees)",
        estimator_class=GradientBoostingClassifier,
        description="Regression trees fit in turn to the log-loss gradient, each shrunk by "
                    "the learning rate.",
        params=(
            _n_estimators(100, "boosting stages (one tree each)"),
            Param("learning_rate", Interval(float, 0, 1, closed="right"), 0.1,
                  "shrinkage of each tree's contribution"),
            Param("max_depth", Interval(int, 1, 16), 3, "depth of each regression tree"),
            Param("subsample", Interval(float, 0, 1, closed="right"), 1.0,
                  "fraction of the training set each tree is fit on (< 1: stochastic "
                  "gradient boosting)")),
        build=lambda p, seed, m: GradientBoostingClassifier(**p, random_state=seed),
        stages=staged_predict,
        per_iteration=_gradient_boosting_columns),
}
