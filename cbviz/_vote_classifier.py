"""What the scikit-learn classifiers of :mod:`cbviz.estimators` share: fit a pool, run the
algorithm to its end, predict and replay its stages."""
from __future__ import annotations

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .constraints import Options, validate
from .voters import StumpPool, TreePool

__all__ = ["VoteClassifier", "WEAK_LEARNERS", "labels_text", "vote_proba"]

WEAK_LEARNERS = ("pool", "tree")


class VoteClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit / predict / staged replay; subclasses name their algorithm's ``_factory``.

    The hyper-parameters besides ``pool`` are the factory's: their allowed values are its
    ``_parameter_constraints`` (:mod:`cbviz.constraints`), checked when ``fit`` makes it.
    """

    _factory = None
    # the allowed values of the weak-learner choice (estimators that take it)
    _learner_constraints = {"weak_learner": Options(WEAK_LEARNERS),
                            "max_depth": TreePool._parameter_constraints["max_depth"]}

    def _algorithm(self):
        params = self.get_params(deep=False)
        for name in ("pool", "weak_learner", "max_depth"):
            params.pop(name, None)
        return self._factory(**params)

    def _unfitted_pool(self):
        """The pool ``fit`` clones and fits: ``pool``, a default stump pool, or the trees of
        ``weak_learner="tree"``."""
        learner = getattr(self, "weak_learner", "pool")
        if hasattr(self, "weak_learner"):
            validate(self._learner_constraints, {"weak_learner": learner,
                                                 "max_depth": self.max_depth}, type(self).__name__)
        if learner == "tree":
            if self.pool is not None:
                raise ValueError("weak_learner='tree' fits its own trees: leave pool=None")
            return TreePool(max_depth=self.max_depth, max_trees=self.max_iter)
        return StumpPool() if self.pool is None else self.pool

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
            raise ValueError(f"y has only one class ({labels_text(self.classes_)}); "
                             f"{type(self).__name__} needs exactly two")
        if self.classes_.size > 2:
            raise ValueError(f"Only binary classification is supported by {type(self).__name__}; "
                             f"y has {self.classes_.size} classes ({labels_text(self.classes_)}). "
                             "Pick two classes or use one-vs-rest.")
        signs = np.where(encoded == 1, 1, -1)
        names = getattr(self, "feature_names_in_", None)
        self.pool_ = clone(self._unfitted_pool()).fit(X, signs, feature_names=names)
        run = algorithm.start(self.pool_.operator(X), signs, describe=self.pool_.describe)
        run.run()
        if not run.fixed:   # the trees the run fitted (into a pool of its own)
            self.pool_ = run.H.pool
        self.history_ = list(run.history)
        self.weights_ = run.weights
        self.n_iter_ = len(run.history)
        self.stop_reason_ = run.stop_reason
        self.capped_ = run.capped
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

    def predict_proba(self, X):
        """Class scores in [0.27, 0.73], columns in the order of ``classes_``.

        scikit-learn's ``AdaBoostClassifier.predict_proba`` for two classes, on the normalized
        vote ``f(x)`` in [-1, 1] (:meth:`decision_function`): the softmax of ``(-f/2, f/2)``,
        i.e. ``P(classes_[1] | x) = 1 / (1 + exp(-f(x)))``.  It is a monotone transform of the
        vote, so rankings (ROC AUC, precision-recall) are those of the decision function and
        its argmax is :meth:`predict` (a tie, ``f = 0``, goes to ``classes_[0]``); it is not a
        calibrated probability: wrap the classifier in
        ``sklearn.calibration.CalibratedClassifierCV`` for one.
        """
        return vote_proba(self.decision_function(X))

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def staged_predict_proba(self, X):
        """Yield :meth:`predict_proba` after each iteration of the fitted run."""
        for f in self.staged_decision_function(X):
            yield vote_proba(f)

    def staged_decision_function(self, X):
        """Yield the normalized vote after each iteration of the fitted run."""
        ops = self._votes(X)
        history = self.history_
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


def labels_text(classes, limit=6):
    """Class labels for a message as plain values (``0, 1, 2``; ``'a', 'b'``), not NumPy
    reprs, cut after ``limit``."""
    shown = [repr(c) if isinstance(c, str) else str(c) for c in classes[:limit].tolist()]
    return ", ".join(shown) + (f" and {classes.size - limit} more" if classes.size > limit else "")


def vote_proba(f):
    """``[P(classes_[0]), P(classes_[1])]`` from the normalized vote ``f``: ``expit(f)`` for
    ``classes_[1]``, kept above 1/2 where ``f > 0`` (``expit`` rounds votes below ~1e-16 to
    1/2 exactly), so the argmax is always the majority vote's class."""
    p = expit(f)
    p = np.where(f > 0, np.maximum(p, np.nextafter(0.5, 1.0)), p)
    return np.column_stack([1.0 - p, p])
