"""Seeded stratified splits, Gaussian feature noise and tanh normalization."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from ._common import check_real, check_seed
from .dataset import DataError, Dataset, Split

# ----------------------------------------------------------------------------- splits & noise

def train_test(ds: Dataset, train_ratio=0.7, seed=0) -> Split:
    """Seeded, stratified train/test split.

    Raises :class:`DataError` if ``train_ratio`` is not in (0, 1) or if either side would
    miss a class.
    """
    ratio = check_real(train_ratio, "train_ratio")
    if not 0.0 < ratio < 1.0:
        raise DataError(f"train_ratio must be strictly between 0 and 1; got {train_ratio}")
    seed = check_seed(seed)
    from sklearn.model_selection import train_test_split
    counts = {c: int((ds.y == c).sum()) for c in (-1, 1)}
    try:
        X_tr, X_te, y_tr, y_te = train_test_split(ds.X, ds.y, train_size=ratio,
                                                  random_state=seed, stratify=ds.y)
    except ValueError as err:
        raise DataError(f"cannot split {ds.m} examples (class -1: {counts[-1]}, class +1: "
                        f"{counts[1]}) with train_ratio={ratio:g}: each side needs both classes; "
                        f"use more data or a ratio nearer 0.5 ({err})") from None
    for side, yy in (("train", y_tr), ("test", y_te)):
        if len(np.unique(yy)) < 2:
            raise DataError(f"the {side} part ({len(yy)} examples) holds one class only; "
                            f"each side needs both classes: use more data or a ratio nearer 0.5")
    return Split(X_tr, X_te, y_tr, y_te, tuple(ds.feature_names))


def add_feature_noise(X, sigma, seed=0, scale=None) -> np.ndarray:
    """Additive Gaussian feature noise, scaled per feature (cbviz's own protocol).

    The CB-Boost paper (Sect. 5.4, Fig. 3) adds Gaussian noise to the data with the protocol of
    its Appendix F.1, which is not reproduced here; this one is ours.

    Feature ``j`` gets noise of standard deviation ``sigma * std_j``, where ``std_j`` is the
    population standard deviation (ddof=0) of column ``j`` of ``X`` (or ``scale[j]`` if
    given, e.g. the training std when noising a test set).  Constant features get none.

    Parameters
    ----------
    X : array (m, d)
    sigma : float >= 0
        ``0`` returns a float64 copy of ``X``.
    seed : int or anything ``numpy.random.default_rng`` accepts
    scale : array (d,), optional

    Returns
    -------
    ndarray (m, d), float64
    """
    sigma = check_real(sigma, "sigma (noise level)", low=0)
    X = np.array(X, dtype=np.float64)
    if X.ndim != 2:
        raise DataError(f"X must be a 2-D array (m, d); got shape {X.shape}")
    if sigma == 0.0:
        return X
    std = X.std(axis=0) if scale is None else np.asarray(scale, dtype=np.float64)
    if std.shape != (X.shape[1],):
        raise DataError(f"scale must have one entry per feature ({X.shape[1]}); got {std.shape}")
    rng = np.random.default_rng(seed)
    return X + rng.standard_normal(X.shape) * (sigma * std)


class TanhNormalizer(TransformerMixin, BaseEstimator):
    """``tanh((X - mean_) / scale_)``, with ``mean_`` and ``scale_`` fitted on training data.

    The CqBoost and QuadBoost papers apply tanh to their data (the CB-Boost paper does not say
    so).  It is not neutral for stumps: equally spaced thresholds between the training min and
    max are invariant to increasing *affine* maps only, so tanh moves them relative to the data
    and changes the pool (and CB-Boost's picks).  Fit it on the training part
    only and reuse it on the test part.  ``scale_`` is the population std (ddof=0); constant
    features get ``scale_ = 1`` (no division by 0), so they map to 0.  Outputs lie in
    (-1, 1) (up to floating point saturation beyond ~19 standard deviations).
    """

    def fit(self, X, y=None):
        """Learn per-feature mean and std from ``X`` (m, d); returns self."""
        X = self._check(X)
        if X.shape[0] == 0:
            raise DataError("cannot fit TanhNormalizer on 0 rows")
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        scale[scale <= 1e-12 * np.maximum(1.0, np.abs(self.mean_))] = 1.0
        self.scale_ = scale
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        """Apply the fitted normalization to ``X`` (any number of rows, same features)."""
        if not hasattr(self, "mean_"):
            raise DataError("TanhNormalizer is not fitted; call fit(X_train) first")
        X = self._check(X)
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"X has {X.shape[1]} features; the normalizer was fitted on "
                            f"{self.n_features_in_}")
        return np.tanh((X - self.mean_) / self.scale_)

    def fit_transform(self, X, y=None, **fit_params):
        """``fit(X).transform(X)``."""
        return self.fit(X).transform(X)

    @staticmethod
    def _check(X):
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise DataError(f"X must be a 2-D array (m, d); got shape {X.shape}")
        if not np.isfinite(X).all():
            raise DataError("X contains NaN or infinite values")
        return X


def flip_labels(y, fraction, seed=0) -> np.ndarray:
    """A copy of labels ``y`` (in {-1, +1}) with ``round(fraction * len(y))`` of them flipped,
    chosen uniformly without replacement (seeded): symmetric label noise of rate ``fraction``."""
    fraction = check_real(fraction, "label noise", low=0)
    if fraction > 0.5:
        raise DataError(f"label noise must be in [0, 0.5] (a flip rate above 1/2 swaps the "
                        f"classes); got {fraction:g}")
    y = np.array(y, copy=True)
    k = int(round(fraction * y.size))
    y[np.random.default_rng(seed).choice(y.size, size=k, replace=False)] *= -1
    return y


def prepare(ds: Dataset, train_ratio=0.7, seed=0, normalize=False, noise=0.0,
            label_noise=0.0) -> Split:
    """Split, add feature noise, then tanh-normalize: the papers' experimental protocol.

    1. :func:`train_test` with ``train_ratio`` and ``seed``;
    2. if ``noise > 0``: :func:`add_feature_noise` on both parts with level ``noise``, the
       training per-feature std as scale, and two independent seeds derived from ``seed``;
    3. if ``normalize``: :class:`TanhNormalizer` fitted on the (noisy) training part only,
       applied to both parts;
    4. if ``label_noise > 0``: :func:`flip_labels` on the training labels only (the test
       labels stay clean, so the test error measures the error on the true concept).
    """
    noise = check_real(noise, "noise", low=0)
    split = train_test(ds, train_ratio=train_ratio, seed=seed)
    X_tr, X_te = split.X_train, split.X_test
    if noise > 0:
        s_train, s_test = np.random.SeedSequence(seed).spawn(2)
        std = X_tr.std(axis=0)
        X_tr = add_feature_noise(X_tr, noise, seed=s_train, scale=std)
        X_te = add_feature_noise(X_te, noise, seed=s_test, scale=std)
    if normalize:
        norm = TanhNormalizer().fit(X_tr)
        X_tr, X_te = norm.transform(X_tr), norm.transform(X_te)
    y_tr = split.y_train
    if label_noise > 0:
        y_tr = flip_labels(y_tr, label_noise, seed=np.random.SeedSequence([seed, 1]))
        if np.unique(y_tr).size < 2:
            raise DataError("after the label noise the training part holds one class only")
    return Split(X_tr, X_te, y_tr, split.y_test, split.feature_names)


# ----------------------------------------------------------------------------- CSV
