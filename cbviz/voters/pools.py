"""Voter pools: fitted on training inputs, they give the voter matrix of any inputs
(``transform``) or its operator (``operator``), and a label for every voter (``describe``)."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array

from ..data._common import short_repr
from ._checks import check_n_features, check_random_state, names_of, positive_int
from .operators import DenseOperator
from .stump_operator import StumpOperator

__all__ = ["BINNINGS", "MAX_POOL_BYTES", "StumpPool", "HyperplanePool", "RBFPool"]


def _with_complements(arrays, sign, complements):
    """Append the complement of every voter (same parameters, opposite sign)."""
    base = np.arange(sign.size)
    if not complements:
        return arrays, sign, base
    return ([np.concatenate([a, a]) for a in arrays], np.concatenate([sign, -sign]),
            np.concatenate([base, base]))


def _check_flags(pool):
    """ValueError unless ``complements`` and ``constant`` are booleans."""
    for name in ("complements", "constant"):
        value = getattr(pool, name)
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {short_repr(value)}")


def _constant_label(sign):
    return f"constant {'+1' if sign > 0 else '-1'}"



BINNINGS = ("uniform", "quantile")
MAX_POOL_BYTES = 2_000_000_000
"""Memory a pool may need, checked by ``fit`` before anything is allocated: the pool's
arrays and the voter data ``operator()`` builds on the inputs it was fitted on (the stump
engine's bins, or the dense matrix of the other pools).  Many sessions share one server (a
classroom); beyond the cap a fit is refused with its estimate instead of failing with a
``MemoryError`` (or swapping) halfway.  This also caps the number of voters: 2 GB is about
50 million stumps, or 250 million voter outputs of a dense pool (voters x examples)."""


def _check_size(pool, n_voters, nbytes, knob):
    """ValueError when a pool of ``n_voters`` needing ``nbytes`` is over :data:`MAX_POOL_BYTES`."""
    if nbytes > MAX_POOL_BYTES:
        raise ValueError(f"{type(pool).__name__}({knob}) would make {n_voters:,} voters and need "
                         f"about {nbytes / 1e9:,.1f} GB; the cap is {MAX_POOL_BYTES / 1e9:g} GB "
                         f"(cbviz.voters.pools.MAX_POOL_BYTES): use fewer voters")


class StumpPool(BaseEstimator):
    """Decision stumps on every feature, with their complements (the papers' pools).

    Parameters
    ----------
    n_thresholds : int >= 1 or "all"
        Thresholds per feature (at most; constant features get none), placed by ``binning``,
        or ``"all"``: every midpoint between consecutive distinct training values (exact
        search; ``binning`` does not apply).
    binning : {"uniform", "quantile"}
        ``"uniform"``: ``n_thresholds`` equally spaced values strictly between the training
        min and max (the CB-Boost paper's pools).  ``"quantile"``: midpoints between
        consecutive distinct training values, those whose ranks (examples at or below) are
        nearest to the ``n_thresholds`` equally spaced quantiles; a feature with at most
        ``n_thresholds + 1`` distinct values keeps every midpoint, so e.g.
        ``StumpPool(255, binning="quantile")`` is exact (the ``"all"`` pool) on 8-bit
        features.  Either way a feature with at most 255 thresholds is binned in one byte per
        example (:class:`StumpOperator`).
    complements : bool
        Add ``x <= t`` for every ``x > t`` so non-negative weights express any signed vote.
        Voters ``0 .. n_base-1`` are the direct stumps, ``n_base .. 2 n_base - 1`` their
        complements in the same order.
    constant : bool
        Add the constant voter ``h(x) = +1`` as base voter 0 (the stump ``x0 > -inf``), and
        with complements ``-1`` as voter ``n_base_``: a bias term of the vote.  Off by
        default: none of the seed papers' pools lists one (docs: "Majority votes, margins and
        the C-bound").
    """

    def __init__(self, n_thresholds=10, complements=True, binning="uniform", constant=False):
        self.n_thresholds = n_thresholds
        self.complements = complements
        self.binning = binning
        self.constant = constant

    def _thresholds(self, x):
        n = self.n_thresholds
        if x.min() == x.max():
            return np.empty(0)
        if n != "all" and self.binning == "uniform":
            return np.linspace(x.min(), x.max(), int(n) + 2)[1:-1]
        u, counts = np.unique(x, return_counts=True)
        mids = (u[:-1] + u[1:]) / 2.0
        if n == "all" or mids.size <= n:
            return mids
        rank = np.cumsum(counts)[:-1]                     # examples at or below each midpoint
        target = x.size * np.arange(1, n + 1) / (n + 1)   # the n equally spaced quantiles
        i = np.clip(np.searchsorted(rank, target), 1, rank.size - 1)
        nearest = np.where(target - rank[i - 1] <= rank[i] - target, i - 1, i)
        return mids[np.unique(nearest)]

    def fit(self, X, y=None, feature_names=None):
        """Learn thresholds from the training inputs ``X`` (m x d); ``y`` is ignored."""
        n = self.n_thresholds
        if not (n == "all" or positive_int(n)):
            raise ValueError(f"n_thresholds must be a positive integer or 'all', got {n!r}")
        if self.binning not in BINNINGS:
            raise ValueError(f"binning must be one of {BINNINGS}, got {self.binning!r}")
        _check_flags(self)
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = names_of(feature_names, X.shape[1])
        uniform = n != "all" and self.binning == "uniform"
        if uniform:  # n thresholds on every non-constant feature: checked before placing them
            split = int(np.count_nonzero(np.ptp(X, axis=0) > 0)) if X.shape[0] else 0
            self._check_size(X.shape[0], [int(n)] * split)
        thr = [self._thresholds(X[:, j]) for j in range(X.shape[1])]
        if not uniform:  # at most one per distinct value (memory bounded by X's): known now
            self._check_size(X.shape[0], [t.size for t in thr if t.size])
        feature = np.repeat(np.arange(X.shape[1]), [t.size for t in thr])
        threshold = np.concatenate(thr) if thr else np.empty(0)
        if feature.size == 0:
            raise ValueError("every feature is constant on the training data: no stump can split it")
        if self.constant:  # base stump 0, first in the bin table: x0 > -inf on every input
            feature = np.concatenate([[0], feature])
            threshold = np.concatenate([[-np.inf], threshold])
        self.n_base_ = feature.size
        (self.feature_, self.threshold_), self.sign_, self.base_ = _with_complements(
            [feature, threshold], np.ones(feature.size), self.complements)
        return self

    def _check_size(self, m, per_feature):
        """Refuse a pool over :data:`MAX_POOL_BYTES`: ``per_feature`` thresholds on each split
        feature, ``m`` fitting examples.  Per voter: its feature, threshold, sign and base
        stump, and the operator's squared norm (40 bytes); per base stump: its bin position
        and the operator's sorting copies (24 bytes); the bins: one code of 1, 2 or 4 bytes
        per example and split feature."""
        n_base = sum(per_feature) + self.constant
        voters = n_base * (2 if self.complements else 1)
        widest = max(per_feature, default=0) + self.constant
        code = 1 if widest <= 255 else 2 if widest <= 65535 else 4   # bytes, as _bins picks
        nbytes = 40 * voters + 24 * n_base + m * len(per_feature) * code
        _check_size(self, voters, nbytes, f"n_thresholds={self.n_thresholds!r}")

    @property
    def n_voters_(self):
        return self.sign_.size

    def transform(self, X):
        """Dense voter matrix ``H`` in {-1, +1}, shape (len(X), n_voters_)."""
        return self.operator(X).toarray()

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`StumpOperator` (no dense matrix)."""
        X = check_n_features(self, X)
        return StumpOperator(X, self.feature_, self.threshold_, self.sign_, self.base_)

    def describe(self, k):
        """Human label of voter ``k``, e.g. ``"x3 > 0.52"``, ``"x3 <= 0.52"`` or ``"constant +1"``."""
        if np.isinf(self.threshold_[k]):
            return _constant_label(self.sign_[k])
        op = ">" if self.sign_[k] > 0 else "<="
        return f"{self.feature_names_[self.feature_[k]]} {op} {self.threshold_[k]:.4g}"


class _MatrixPool(BaseEstimator):
    """Shared plumbing of pools whose outputs are computed as a dense matrix: subclasses
    give their base voters' outputs (``_base_outputs``) and labels (``_describe_base``)."""

    def operator(self, X):
        """The voter matrix of ``X`` as a :class:`DenseOperator`."""
        return DenseOperator(self.transform(X))

    @property
    def n_voters_(self):
        return self.sign_.size

    def _fitfeature_names(self, X, feature_names):
        _check_flags(self)
        X = check_array(X, dtype=float)
        self.n_features_in_ = X.shape[1]
        self.feature_names_ = names_of(feature_names, X.shape[1])
        return X

    def _lay_out(self, n):
        """``base_`` and ``sign_`` of ``n`` base voters, after the constant one if any."""
        self.n_base_ = n + self.constant
        _, self.sign_, self.base_ = _with_complements([], np.ones(self.n_base_), self.complements)

    def transform(self, X):
        """Voter matrix, shape (len(X), n_voters_)."""
        X = check_n_features(self, X)
        B = self._base_outputs(X)
        if self.constant:
            B = np.hstack([np.ones((X.shape[0], 1)), B])
        return B[:, self.base_] * self.sign_

    def describe(self, k):
        """Human label of voter ``k``."""
        b = self.base_[k] - self.constant
        return _constant_label(self.sign_[k]) if b < 0 else self._describe_base(b, self.sign_[k])


class HyperplanePool(_MatrixPool):
    """Random oblique hyperplanes ``sign(w @ x - b)`` and their complements.

    Directions are standard Gaussian; each offset puts the hyperplane through a random
    training point, so every voter splits the training data.  ``constant=True`` adds the
    constant voter +1 (and -1 with complements) as base voter 0, as :class:`StumpPool` does.
    """

    def __init__(self, n_hyperplanes=100, complements=True, random_state=0, constant=False):
        self.n_hyperplanes = n_hyperplanes
        self.complements = complements
        self.random_state = random_state
        self.constant = constant

    def fit(self, X, y=None, feature_names=None):
        if not positive_int(self.n_hyperplanes):
            raise ValueError(f"n_hyperplanes must be a positive integer, got {self.n_hyperplanes!r}")
        seed = check_random_state(self.random_state)
        X = self._fitfeature_names(X, feature_names)
        n, (m, d) = int(self.n_hyperplanes), X.shape
        voters = (n + self.constant) * (2 if self.complements else 1)
        # directions, the projections X W^T and the dense voter matrix on the fitting inputs
        _check_size(self, voters, 8 * (n * d + m * n + m * voters), f"n_hyperplanes={n}")
        rng = np.random.default_rng(seed)
        W = rng.standard_normal((n, d))
        W /= np.linalg.norm(W, axis=1, keepdims=True)
        anchors = X[rng.integers(0, m, n)]
        self.coef_, self.offset_ = W, np.einsum("kj,kj->k", W, anchors)
        self._lay_out(n)
        return self

    def _base_outputs(self, X):
        return np.where(X @ self.coef_.T > self.offset_, 1.0, -1.0)

    def _describe_base(self, b, sign):
        w = self.coef_[b]
        op = ">" if sign > 0 else "<="
        top = np.argsort(-np.abs(w))[:3]
        terms = " ".join(f"{w[j]:+.2f}*{self.feature_names_[j]}" for j in sorted(top))
        more = " ..." if w.size > 3 else ""
        return f"{terms}{more} {op} {self.offset_[b]:.3g}"


class RBFPool(_MatrixPool):
    """Real-valued RBF voters ``h_c(x) = y_c exp(-gamma ||x - c||^2)`` in [-1, 1], with complements.

    The centres ``c`` are training points and ``y_c`` their labels (the MinCq paper's RBF
    voters): ``n_centers`` of them drawn without replacement, every one when there are fewer.
    ``gamma="scale"`` uses ``1 / (d * var(X))`` as scikit-learn's SVC does.  ``constant=True``
    adds the constant voter +1 (and -1 with complements) as base voter 0.
    """

    def __init__(self, n_centers=100, gamma="scale", complements=True, random_state=0,
                 constant=False):
        self.n_centers = n_centers
        self.gamma = gamma
        self.complements = complements
        self.random_state = random_state
        self.constant = constant

    def fit(self, X, y=None, feature_names=None):
        if y is None:
            raise ValueError("RBFPool needs the training labels: fit(X, y)")
        if not positive_int(self.n_centers):
            raise ValueError(f"n_centers must be a positive integer, got {self.n_centers!r}")
        seed = check_random_state(self.random_state)
        X = self._fitfeature_names(X, feature_names)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        (m, d), k = X.shape, min(int(self.n_centers), X.shape[0])
        voters = (k + self.constant) * (2 if self.complements else 1)
        # centres, the squared distances and kernel values, and the dense voter matrix on the
        # fitting inputs
        _check_size(self, voters, 8 * (k * d + 2 * m * k + m * voters),
                    f"n_centers={self.n_centers}")
        rng = np.random.default_rng(seed)
        pick = rng.choice(m, size=k, replace=False)
        var = X.var()
        self.gamma_ = 1.0 / (d * var) if self.gamma == "scale" and var > 0 else (
            1.0 if self.gamma == "scale" else float(self.gamma))
        if self.gamma_ <= 0:
            raise ValueError(f"gamma must be positive, got {self.gamma!r}")
        self.centers_ = X[pick]
        self.center_label_ = np.where(y[pick] > 0, 1.0, -1.0)
        self._lay_out(k)
        return self

    def _base_outputs(self, X):
        sq = (np.einsum("ij,ij->i", X, X)[:, None] - 2.0 * X @ self.centers_.T
              + np.einsum("ij,ij->i", self.centers_, self.centers_)[None, :])
        return np.exp(-self.gamma_ * np.maximum(sq, 0.0)) * self.center_label_

    def _describe_base(self, b, sign):
        who = "+1" if self.center_label_[b] * sign > 0 else "-1"
        return f"RBF at point #{b} votes {who}"
