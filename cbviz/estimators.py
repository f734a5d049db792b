"""scikit-learn classifiers over the steppers: ``fit`` runs a stepper to the end.

``staged_decision_function`` / ``staged_predict`` replay the history, as scikit-learn's
AdaBoost does.  The decision function is the normalized vote ``sum_k Q_k h_k(x)`` in [-1, 1]
(the margin's sign-free part), positive for ``classes_[1]``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .algorithms import CBBoost
from .voters import StumpPool

__all__ = ["CBBoostClassifier"]


class _VoteClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit / predict / staged replay; subclasses give ``_algorithm()``."""

    def _algorithm(self):
        raise NotImplementedError

    def fit(self, X, y):
        """Fit the voter pool on ``X`` and run the algorithm to its end.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), exactly two classes

        Returns
        -------
        self
        """
        algorithm = self._algorithm()  # validates the hyper-parameters first
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.classes_, encoded = np.unique(y, return_inverse=True)
        if self.classes_.size == 1:
            raise ValueError(f"y has only one class ({self.classes_[0]!r}); {type(self).__name__} "
                             "needs exactly two")
        if self.classes_.size > 2:
            raise ValueError(f"Only binary classification is supported by {type(self).__name__}; "
                             f"y has {self.classes_.size} classes {list(self.classes_[:6])}. "
                             "Pick two classes or use one-vs-rest.")
        signs = np.where(encoded == 1, 1, -1)
        pool = StumpPool() if self.pool is None else self.pool
        names = getattr(self, "feature_names_in_", None)
        self.pool_ = clone(pool).fit(X, signs, feature_names=names)
        run = algorithm.start(self.pool_.operator(X), signs, describe=self.pool_.describe)
        self.run_ = run.run()
        self.weights_ = run.weights
        self.n_iter_ = len(run.history)
        self.stop_reason_ = run.stop_reason
        return self

    def _votes(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return self.pool_.operator(X)

    def decision_function(self, X):
        """Normalized vote ``sum_k Q_k h_k(x)``; > 0 means ``classes_[1]``."""
        ops = self._votes(X)
        total = self.weights_.sum()
        return ops.matvec(self.weights_) / (total if total > 0 else 1.0)

    def predict(self, X):
        """Majority-vote labels (ties go to ``classes_[0]``)."""
        votes = self.decision_function(X)
        return self.classes_[(votes > 0).astype(int)]

    def staged_decision_function(self, X):
        """Yield the normalized vote after each iteration of the fitted run."""
        ops = self._votes(X)
        history = self.run_.history
        used = np.unique(np.concatenate([r.support for r in history])) if history else np.empty(0, int)
        cols = ops.columns(used)
        for r in history:
            yield cols[:, np.searchsorted(used, r.support)] @ r.weights / r.weights.sum()

    def staged_predict(self, X):
        """Yield the predicted labels after each iteration."""
        for f in self.staged_decision_function(X):
            yield self.classes_[(f > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class CBBoostClassifier(_VoteClassifier):
    """CB-Boost (Bauvin et al. 2020) as a scikit-learn classifier.

    Parameters
    ----------
    pool : voter pool or None
        Unfitted pool (``StumpPool``, ``HyperplanePool``, ``RBFPool``); cloned at fit.
        Default ``StumpPool(n_thresholds=10)``.
    max_iter : int
        Maximum number of voters in the vote.
    direction : {"exhaustive", "gradient"}
        Direction rule: CB-Boost or GB-CB-Boost.
    delta : float in (0, 1]
        Confidence of the PAC-Bayesian bounds kept in ``run_.history``.

    Attributes
    ----------
    classes_, pool_, run_ (the stepper run with its records), weights_, n_iter_, stop_reason_
    """

    def __init__(self, pool=None, max_iter=100, direction="exhaustive", delta=0.05):
        self.pool = pool
        self.max_iter = max_iter
        self.direction = direction
        self.delta = delta

    def _algorithm(self):
        return CBBoost(max_iter=self.max_iter, direction=self.direction, delta=self.delta)
