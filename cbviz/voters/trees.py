"""Voters fitted during a run: depth-limited decision trees, one per boosting round.

A :class:`TreePool` is not a fixed set: fitted on the training inputs it holds no voter, and
the run that uses its training operator (:meth:`TreePool.operator` on those inputs) adds one
tree per round, fitted to the run's own example weights (:meth:`TreeOperator.fit_voter`).
The operators of other inputs (test set, a plot grid) see the same trees.  A run owns its
pool's trees: every run starts from a pool of its own (``clone`` and fit, or
:meth:`TreePool.fresh`).

Depth 1 is an exact weighted stump search: the stump (feature, threshold at a midpoint
between consecutive distinct training values, direction) of least weighted error, ties to
the first in the pool order of ``StumpPool("all")``, so AdaBoost on depth-1 trees makes
AdaBoost's picks on that pool.  Depth 2 and more: scikit-learn's CART
(``DecisionTreeClassifier`` with the example weights as ``sample_weight``, Gini splits), as the
VEB-Boost paper's Table 1 runs it ("decision trees (CART)").

The PAC-Bayes bounds assume a prior fixed before the sample is seen; voters fitted to the
sample are not, so the runs mark the KL term and the bounds as not applicable (NaN).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_array

from .operators import VoterOperator
from ..constraints import Interval, validate
from ._checks import check_n_features, check_random_state, names_of
from .pools import StumpPool

__all__ = ["TreePool", "TreeOperator", "MAX_DEPTH"]

MAX_DEPTH = 10   # deepest tree a pool fits (2^10 leaves: far past the papers' weak learners)


class _Stump:
    """A depth-1 tree: ``sign * (+1 if x[feature] > threshold else -1)``."""

    def __init__(self, feature, threshold, sign):
        self.feature, self.threshold, self.sign = int(feature), float(threshold), float(sign)

    def predict(self, X):
        return self.sign * np.where(X[:, self.feature] > self.threshold, 1.0, -1.0)

    def describe(self, names):
        op = ">" if self.sign > 0 else "<="
        return f"{names[self.feature]} {op} {self.threshold:.4g}"

    def segments(self, box):
        """Its boundary on the plane ``box = ((x0 lo, hi), (x1 lo, hi))``: one segment."""
        return [(self.feature, self.threshold, *box[1 - self.feature])]


class _Tree:
    """A CART tree of scikit-learn with classes -1 and +1."""

    def __init__(self, tree):
        self.tree = tree

    def predict(self, X):
        return self.tree.predict(X).astype(float)

    def describe(self, names):
        """Nested ``x0 <= 0.5 ? (...) : (...)`` text: left branch when the test holds."""
        t, classes = self.tree.tree_, self.tree.classes_

        def text(node):
            if t.children_left[node] < 0:
                return f"{classes[np.argmax(t.value[node][0])]:+d}"
            test = f"{names[t.feature[node]]} <= {t.threshold[node]:.4g}"
            left, right = text(t.children_left[node]), text(t.children_right[node])
            if left == right:   # a split whose two sides vote alike
                return left
            wrap = [s if len(s) <= 2 else f"({s})" for s in (left, right)]
            return f"{test} ? {wrap[0]} : {wrap[1]}"
        return text(0)

    def segments(self, box):
        """Its boundaries on the plane ``box = ((x0 lo, hi), (x1 lo, hi))`` of 2-D inputs:
        ``(feature, threshold, lo, hi)`` of each split whose two sides vote differently,
        clipped to the split's own cell."""
        t = self.tree.tree_
        out = []

        def vote(node):   # the subtree's single output, or None when it splits the cell
            if t.children_left[node] < 0:
                return int(np.argmax(t.value[node][0]))
            left, right = vote(t.children_left[node]), vote(t.children_right[node])
            return left if left == right else None

        def walk(node, cell):
            if t.children_left[node] < 0 or vote(node) is not None:
                return
            f, thr = int(t.feature[node]), float(t.threshold[node])
            out.append((f, thr, *cell[1 - f]))
            below, above = list(cell), list(cell)
            below[f], above[f] = (cell[f][0], min(thr, cell[f][1])), (max(thr, cell[f][0]),
                                                                       cell[f][1])
            walk(t.children_left[node], below)
            walk(t.children_right[node], above)
        walk(0, list(box))
        return out


class TreePool(BaseEstimator):
    """Decision trees fitted one per round to a run's example weights (module docstring).

    Parameters
    ----------
    max_depth : int in [1, 10]
        Depth of every tree; 1 is the exact weighted stump search.
    max_trees : int >= 1
        Trees a run may fit (the operators' width): a run stops when it is full.
    random_state : int or None
        Seed of CART's tie-breaking between equally good splits.
    """

    # the allowed values of max_depth and max_trees (the estimators' max_depth reads this one)
    _parameter_constraints = {"max_depth": Interval(int, 1, MAX_DEPTH),
                              "max_trees": Interval(int, 1, None, closed="left")}

    def __init__(self, max_depth=3, max_trees=10_000, random_state=0):
        self.max_depth = max_depth
        self.max_trees = max_trees
        self.random_state = random_state

    def fit(self, X, y=None, feature_names=None):
        """Keep the training inputs ``X`` the trees will be fitted on; no tree yet."""
        validate(self._parameter_constraints,
                 {"max_depth": self.max_depth, "max_trees": self.max_trees}, "TreePool")
        self._seed = check_random_state(self.random_state)
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = names_of(feature_names, X.shape[1])
        self.X_fit_ = X
        self.trees_ = []
        self._stumps = None
        if self.max_depth == 1:   # every midpoint, and its operator: binned once
            pool = StumpPool("all").fit(X)
            self._stumps = (pool, pool.operator(X))
        return self

    def __getstate__(self):   # a pickle keeps the trees, not the training inputs
        return {**super().__getstate__(), "X_fit_": None, "_stumps": None}   # a copy

    def fresh(self):
        """A copy of this fitted pool without its trees (a new run's own voter set); the
        training inputs and the stump search are shared, read-only."""
        other = object.__new__(TreePool)
        other.__dict__.update(self.__dict__)
        other.trees_ = []
        return other

    @property
    def n_voters_(self):
        return self.max_trees

    def operator(self, X):
        """The trees' outputs on ``X`` as a growing :class:`TreeOperator`; on the training
        inputs (the same array) the operator also fits the next tree."""
        X = check_n_features(self, X)
        fit = self.X_fit_
        trains = fit is not None and (X is fit or (X.shape == fit.shape and np.array_equal(X, fit)))
        return TreeOperator(self, X, trains)

    def transform(self, X):
        """The fitted trees' outputs on ``X``, shape (len(X), number of trees)."""
        op = self.operator(X)
        return op.columns(np.arange(len(self.trees_)))

    def describe(self, k):
        """Tree ``k`` by its splits, e.g. ``"x0 <= 0.52 ? (x1 <= -0.1 ? +1 : -1) : +1"``."""
        return self.trees_[k].describe(self.feature_names_)

    def segments(self, k, box):
        """Tree ``k``'s boundaries on the plane of 2-D inputs (``box``: the plotted range per
        axis), as ``(feature, threshold, lo, hi)`` segments."""
        return self.trees_[k].segments(box)

    def fit_tree(self, y, weights):
        """Fit the next tree to labels ``y`` (+-1) under non-negative example ``weights``;
        return its index."""
        if len(self.trees_) >= self.max_trees:
            raise ValueError(f"the pool holds max_trees={self.max_trees} trees")
        if self.X_fit_ is None:
            raise ValueError("this pool was unpickled without its training inputs: fit it again "
                             "to fit more trees")
        if self.max_depth == 1:   # least weighted error: largest edge, the first within 1e-12
            pool, op = self._stumps
            edges = op.rmatvec(weights * y) / weights.sum()
            top = edges.max()
            k = int(np.flatnonzero(edges >= top - 1e-12 * max(abs(top), 1e-300))[0])
            tree = _Stump(pool.feature_[k], pool.threshold_[k], pool.sign_[k])
        else:
            cart = DecisionTreeClassifier(max_depth=self.max_depth, random_state=self._seed)
            tree = _Tree(cart.fit(self.X_fit_, y.astype(int), sample_weight=weights))
        self.trees_.append(tree)
        return len(self.trees_) - 1


class TreeOperator(VoterOperator):
    """The outputs of a :class:`TreePool`'s trees on fixed inputs, one column per tree.

    ``shape`` is (examples, ``max_trees``): the columns of trees not fitted yet are zero.
    Outputs are kept as int8 (+-1), computed once per tree and input set.
    """

    def __init__(self, pool, X, trains):
        self.pool, self.X, self.trains = pool, X, trains
        self.shape = (X.shape[0], pool.max_trees)
        self._out = np.zeros((8, X.shape[0]), dtype=np.int8)   # one row per tree, grown x2
        self._seen = 0

    @property
    def fixed_in_advance(self):
        return False

    @property
    def col_sq_sums(self):
        sums = np.zeros(self.shape[1])
        sums[:len(self.pool.trees_)] = self.shape[0]
        return sums

    def _rows(self):
        """The outputs of every fitted tree (rows), computed once per tree."""
        trees = self.pool.trees_
        n = len(trees)
        if n > self._out.shape[0]:
            grown = np.zeros((max(n, 2 * self._out.shape[0]), self.shape[0]), dtype=np.int8)
            grown[:self._seen] = self._out[:self._seen]
            self._out = grown
        for k in range(self._seen, n):
            self._out[k] = trees[k].predict(self.X)
        self._seen = n
        return self._out[:n]

    def fit_voter(self, y, weights):
        """Fit the next tree to ``y`` under example ``weights`` (training operator only);
        return its column index."""
        if not self.trains:
            raise ValueError("only the operator of the training inputs fits trees")
        return self.pool.fit_tree(y, weights)

    def column(self, k):
        rows = self._rows()
        return rows[k].astype(float) if k < rows.shape[0] else np.zeros(self.shape[0])

    def columns(self, idx):
        """``H[:, idx]`` from the stored rows in one gather (columns not fitted yet: zero)."""
        idx = np.asarray(idx, dtype=int)
        rows = self._rows()
        out = np.zeros((self.shape[0], idx.size))
        fitted = idx < rows.shape[0]
        out[:, fitted] = rows[idx[fitted]].T
        return out

    def rmatvec(self, v):
        rows = self._rows()
        out = np.zeros(self.shape[1])
        out[:rows.shape[0]] = rows @ np.asarray(v, dtype=float)
        return out

    def matvec(self, a):
        a = np.asarray(a, dtype=float)
        rows = self._rows()
        return a[:rows.shape[0]] @ rows if rows.shape[0] else np.zeros(self.shape[0])

    def is_self_complemented(self):
        return False
