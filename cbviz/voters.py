"""Voter pools and the voter-matrix operators the algorithms consume.

A pool is fitted on training inputs (``fit(X)``) and turns any inputs into the voter
matrix ``H`` (``transform(X)``, ``H[i, k] = h_k(x_i)``).  ``operator(X)`` gives the same
matrix as a :class:`VoterOperator`, which iterative algorithms use through ``rmatvec``
(``H^T v``), ``matvec`` (``H a``) and ``column(k)``.  For decision stumps the operator never
builds ``H``: ``H^T v`` for every threshold of every feature comes from one sorted prefix
sum per feature, O(m d) per call whatever the number of thresholds (DESIGN.md).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

__all__ = ["VoterOperator", "DenseOperator", "StumpOperator", "as_operator",
           "StumpPool", "HyperplanePool", "RBFPool"]


class VoterOperator:
    """The voter matrix ``H`` (m x n) seen through products.

    Subclasses define ``shape``, :meth:`rmatvec`, :meth:`column` and ``col_sq_sums``
    (``sum_i H[i, k]**2`` per voter).
    """

    shape: tuple[int, int]
    col_sq_sums: np.ndarray

    def rmatvec(self, v):
        """``H^T v`` (length n)."""
        raise NotImplementedError

    def column(self, k):
        """``H[:, k]``: the outputs of voter ``k`` on every example."""
        raise NotImplementedError

    def columns(self, idx):
        """``H[:, idx]`` as a dense (m x len(idx)) array."""
        idx = np.asarray(idx, dtype=int)
        return np.column_stack([self.column(k) for k in idx]) if idx.size else np.zeros((self.shape[0], 0))

    def matvec(self, a):
        """``H a`` for a weight vector ``a`` (cost proportional to its non-zeros)."""
        a = np.asarray(a, dtype=float)
        nz = np.flatnonzero(a)
        return self.columns(nz) @ a[nz]

    def toarray(self):
        """The dense matrix ``H`` (for tests and small problems)."""
        return self.columns(np.arange(self.shape[1]))

    def restrict(self, idx):
        """The operator of the columns ``idx`` only (a view: no data is copied here)."""
        return _Restricted(self, np.asarray(idx, dtype=int))

    def is_self_complemented(self):
        """True when the pool is laid out as the papers' self-complemented sets: voters
        ``0 .. n/2-1`` then their complements ``h_{k + n/2} = -h_k`` in the same order
        (the layout of every pool here with ``complements=True``)."""
        n = self.shape[1]
        if n == 0 or n % 2:
            return False
        half = n // 2
        step = max(1, 2**22 // max(1, self.shape[0]))  # columns per block: bounded memory
        for lo in range(0, half, step):
            idx = np.arange(lo, min(half, lo + step))
            if not np.allclose(self.columns(idx), -self.columns(idx + half), rtol=0, atol=1e-12):
                return False
        return True


class _Restricted(VoterOperator):
    """Columns ``idx`` of a parent operator, through the parent's products."""

    def __init__(self, parent, idx):
        self.parent, self.idx = parent, idx
        self.shape = (parent.shape[0], idx.size)
        self.col_sq_sums = parent.col_sq_sums[idx]

    def rmatvec(self, v):
        return self.parent.rmatvec(v)[self.idx]

    def column(self, k):
        return self.parent.column(self.idx[k])


class DenseOperator(VoterOperator):
    """A :class:`VoterOperator` over an explicit matrix."""

    def __init__(self, H):
        self.H = np.ascontiguousarray(H, dtype=float)
        if self.H.ndim != 2:
            raise ValueError(f"voter matrix must be 2-D, got shape {self.H.shape}")
        self.shape = self.H.shape
        self.col_sq_sums = np.einsum("ij,ij->j", self.H, self.H)

    def rmatvec(self, v):
        return self.H.T @ np.asarray(v, dtype=float)

    def column(self, k):
        return self.H[:, k]

    def columns(self, idx):
        return self.H[:, np.asarray(idx, dtype=int)]

    def toarray(self):
        return self.H


def as_operator(H):
    """Wrap a dense matrix in a :class:`DenseOperator`; pass operators through."""
    return H if isinstance(H, VoterOperator) else DenseOperator(H)


class StumpOperator(VoterOperator):
    """Stump outputs ``sign_k * (+1 if x[feature_k] > threshold_k else -1)`` without ``H``.

    For feature j sorted once, ``sum_i v_i [x_ij > t] - sum_i v_i [x_ij <= t]`` equals
    ``total - 2 * (sum of v over the count(x_j <= t) smallest x_j)``.  One ``rmatvec``
    gathers ``v`` in every feature's sorted order (O(m d)), sums it between consecutive
    thresholds (``np.add.reduceat``) and accumulates those sums: O(m d + n) whatever the
    number of thresholds.
    """

    def __init__(self, X, feature, threshold, sign, base):
        X = np.asarray(X, dtype=float)
        m, d = X.shape
        self.X = X
        self.feature, self.threshold, self.sign = feature, threshold, sign
        self.shape = (m, feature.size)
        self.col_sq_sums = np.full(feature.size, float(m))
        # complements share their base stump's product; compute each base stump once
        self._base = base
        n_base = base.max() + 1 if base.size else 0
        base_feat = np.zeros(n_base, dtype=np.int64)
        base_thr = np.zeros(n_base)
        base_feat[base] = feature
        base_thr[base] = threshold
        # intp: np.take would convert a narrower index type on every call
        self._order = np.argsort(X.T, axis=1, kind="stable").astype(np.intp)  # d x m
        xs = np.take_along_axis(X.T, self._order, axis=1)
        pos = np.empty(n_base, dtype=np.int64)
        for j in np.unique(base_feat):  # setup only: one searchsorted per feature
            sel = base_feat == j
            pos[sel] = np.searchsorted(xs[j], base_thr[sel], side="right")
        # boundaries in the flattened d x m gathered array: every feature start + every threshold
        starts = base_feat * m
        self._bounds = np.unique(np.concatenate([np.arange(d, dtype=np.int64) * m, starts + pos]))
        self._bounds = self._bounds[self._bounds < m * d]
        self._i_start = np.searchsorted(self._bounds, starts)
        self._i_end = np.searchsorted(self._bounds, starts + pos)  # == len(bounds) at the very end
        for a in (self._order, self._bounds, self._i_start, self._i_end):
            a.flags.writeable = False  # shared read-only between sessions

    def is_self_complemented(self):
        n = self.shape[1]
        if n == 0 or n % 2:
            return False
        h = n // 2
        return bool(np.array_equal(self._base[:h], self._base[h:])
                    and np.array_equal(self.sign[:h], -self.sign[h:]))

    def restrict(self, idx):
        idx = np.asarray(idx, dtype=int)
        view = object.__new__(StumpOperator)
        view.__dict__.update(self.__dict__)
        view.feature, view.threshold, view.sign = self.feature[idx], self.threshold[idx], self.sign[idx]
        view._base = self._base[idx]
        view.shape = (self.shape[0], idx.size)
        view.col_sq_sums = self.col_sq_sums[idx]
        return view

    def rmatvec(self, v):
        # operators are shared between sessions (a cached problem): no state may change here,
        # so the gathered copy of v is a fresh array on every call
        v = np.asarray(v, dtype=float)
        seg = np.add.reduceat(np.take(v, self._order).ravel(), self._bounds)
        acc = np.empty(seg.size + 1)
        acc[0] = 0.0
        np.cumsum(seg, out=acc[1:])
        below = acc[self._i_end] - acc[self._i_start]
        return self.sign * (v.sum() - 2.0 * below)[self._base]

    def column(self, k):
        return self.sign[k] * np.where(self.X[:, self.feature[k]] > self.threshold[k], 1.0, -1.0)

    def columns(self, idx):
        idx = np.asarray(idx, dtype=int)
        above = self.X[:, self.feature[idx]] > self.threshold[idx]
        return self.sign[idx] * np.where(above, 1.0, -1.0)


def _check_n_features(pool, X):
    X = check_array(X, dtype=float)
    if X.shape[1] != pool.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but the pool was fitted with {pool.n_features_in_}")
    return X


def _names(feature_names, d):
    if feature_names is None:
        return tuple(f"x{j}" for j in range(d))
    if len(feature_names) != d:
        raise ValueError(f"{len(feature_names)} feature names for {d} features")
    return tuple(str(n) for n in feature_names)


def _with_complements(arrays, sign, complements):
    """Append the complement of every voter (same parameters, opposite sign)."""
    base = np.arange(sign.size)
    if not complements:
        return arrays, sign, base
    return ([np.concatenate([a, a]) for a in arrays], np.concatenate([sign, -sign]),
            np.concatenate([base, base]))


class StumpPool(BaseEstimator):
    """Decision stumps on every feature, with their complements (the papers' pools).

    Parameters
    ----------
    n_thresholds : int or "all"
        Thresholds per feature: that many equally spaced values strictly between the
        training min and max, or ``"all"``: every midpoint between consecutive distinct
        training values.
    complements : bool
        Add ``x <= t`` for every ``x > t`` so non-negative weights express any signed vote.
        Voters ``0 .. n_base-1`` are the direct stumps, ``n_base .. 2 n_base - 1`` their
        complements in the same order.
    """

    def __init__(self, n_thresholds=10, complements=True):
        self.n_thresholds = n_thresholds
        self.complements = complements

    def _thresholds(self, x):
        lo, hi = x.min(), x.max()
        if lo == hi:
            return np.empty(0)
        if self.n_thresholds == "all":
            u = np.unique(x)
            return (u[:-1] + u[1:]) / 2.0
        return np.linspace(lo, hi, int(self.n_thresholds) + 2)[1:-1]

    def fit(self, X, y=None, feature_names=None):
        """Learn thresholds from the training inputs ``X`` (m x d); ``y`` is ignored."""
        n = self.n_thresholds
        if not (n == "all" or (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1)):
            raise ValueError(f"n_thresholds must be a positive integer or 'all', got {n!r}")
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = _names(feature_names, X.shape[1])
        thr = [self._thresholds(X[:, j]) for j in range(X.shape[1])]
        feature = np.repeat(np.arange(X.shape[1]), [t.size for t in thr])
        threshold = np.concatenate(thr) if thr else np.empty(0)
        if feature.size == 0:
            raise ValueError("every feature is constant on the training data: no stump can split it")
        self.n_base_ = feature.size
        (self.feature_, self.threshold_), self.sign_, self.base_ = _with_complements(
            [feature, threshold], np.ones(feature.size), self.complements)
        return self

    @property
    def n_voters_(self):
        return self.sign_.size

    def transform(self, X):
        """Dense voter matrix ``H`` in {-1, +1}, shape (len(X), n_voters_)."""
        return self.operator(X).toarray()

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`StumpOperator` (no dense matrix)."""
        X = _check_n_features(self, X)
        return StumpOperator(X, self.feature_, self.threshold_, self.sign_, self.base_)

    def describe(self, k):
        """Human label of voter ``k``, e.g. ``"x3 > 0.52"`` or ``"x3 <= 0.52"``."""
        op = ">" if self.sign_[k] > 0 else "<="
        return f"{self.feature_names_[self.feature_[k]]} {op} {self.threshold_[k]:.4g}"


class _MatrixPool(BaseEstimator):
    """Shared plumbing of pools whose outputs are computed as a dense matrix."""

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`DenseOperator`."""
        return DenseOperator(self.transform(X))

    @property
    def n_voters_(self):
        return self.sign_.size

    def _fit_names(self, X, feature_names):
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = _names(feature_names, X.shape[1])
        return X


class HyperplanePool(_MatrixPool):
    """Random oblique hyperplanes ``sign(w . x - b)`` and their complements.

    Directions are standard Gaussian; each offset puts the hyperplane through a random
    training point, so every voter splits the training data.
    """

    def __init__(self, n_hyperplanes=100, complements=True, random_state=0):
        self.n_hyperplanes = n_hyperplanes
        self.complements = complements
        self.random_state = random_state

    def fit(self, X, y=None, feature_names=None):
        if not (isinstance(self.n_hyperplanes, (int, np.integer)) and self.n_hyperplanes >= 1):
            raise ValueError(f"n_hyperplanes must be a positive integer, got {self.n_hyperplanes!r}")
        X = self._fit_names(X, feature_names)
        rng = np.random.default_rng(self.random_state)
        W = rng.standard_normal((self.n_hyperplanes, X.shape[1]))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        anchors = X[rng.integers(0, X.shape[0], self.n_hyperplanes)]
        offset = np.einsum("kj,kj->k", W, anchors)
        idx = np.arange(self.n_hyperplanes)
        (self.hyperplane_,), self.sign_, self.base_ = _with_complements(
            [idx], np.ones(self.n_hyperplanes), self.complements)
        self.coef_, self.offset_ = W, offset
        return self

    def transform(self, X):
        """Voter matrix in {-1, +1}, shape (len(X), n_voters_)."""
        X = _check_n_features(self, X)
        above = np.where(X @ self.coef_.T > self.offset_, 1.0, -1.0)
        return above[:, self.hyperplane_] * self.sign_

    def describe(self, k):
        w = self.coef_[self.hyperplane_[k]]
        op = ">" if self.sign_[k] > 0 else "<="
        top = np.argsort(-np.abs(w))[:3]
        terms = " ".join(f"{w[j]:+.2f}*{self.feature_names_[j]}" for j in sorted(top))
        more = " ..." if w.size > 3 else ""
        return f"{terms}{more} {op} {self.offset_[self.hyperplane_[k]]:.3g}"


class RBFPool(_MatrixPool):
    """Real-valued RBF voters ``h_c(x) = y_c exp(-gamma ||x - c||^2)`` in [-1, 1], with complements.

    The centres ``c`` are training points and ``y_c`` their labels (the MinCq paper's RBF
    voters). ``gamma="scale"`` uses ``1 / (d * var(X))`` as scikit-learn's SVC does.
    """

    def __init__(self, n_centers=100, gamma="scale", complements=True, random_state=0):
        self.n_centers = n_centers
        self.gamma = gamma
        self.complements = complements
        self.random_state = random_state

    def fit(self, X, y=None, feature_names=None):
        if y is None:
            raise ValueError("RBFPool needs the training labels: fit(X, y)")
        if not (isinstance(self.n_centers, (int, np.integer)) and self.n_centers >= 1):
            raise ValueError(f"n_centers must be a positive integer, got {self.n_centers!r}")
        X = self._fit_names(X, feature_names)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        rng = np.random.default_rng(self.random_state)
        pick = rng.choice(X.shape[0], size=min(self.n_centers, X.shape[0]), replace=False)
        var = X.var()
        self.gamma_ = 1.0 / (X.shape[1] * var) if self.gamma == "scale" and var > 0 else (
            1.0 if self.gamma == "scale" else float(self.gamma))
        if self.gamma_ <= 0:
            raise ValueError(f"gamma must be positive, got {self.gamma!r}")
        self.centers_ = X[pick]
        self.center_label_ = np.where(y[pick] > 0, 1.0, -1.0)
        (self.center_,), self.sign_, self.base_ = _with_complements(
            [np.arange(pick.size)], np.ones(pick.size), self.complements)
        return self

    def transform(self, X):
        """Voter matrix with values in [-1, 1], shape (len(X), n_voters_)."""
        X = _check_n_features(self, X)
        sq = (np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ self.centers_.T
              + np.einsum("ij,ij->i", self.centers_, self.centers_)[None, :])
        K = np.exp(-self.gamma_ * np.maximum(sq, 0.0)) * self.center_label_
        return K[:, self.center_] * self.sign_

    def describe(self, k):
        c = self.center_[k]
        who = "+1" if self.center_label_[c] * self.sign_[k] > 0 else "-1"
        return f"RBF at point #{c} votes {who}"
