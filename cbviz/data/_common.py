"""Helpers the loaders share: values in messages, class labels, argument checks."""
from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd

from ..constraints import short_repr
from .dataset import MAX_SEED, DataError


def lookup_key(name) -> str:
    """Lookup key: lower case, letters and digits only ('Monk_2' -> 'monk2')."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def python_scalar(v):
    """numpy scalar -> Python scalar (for readable dict keys and messages)."""
    return v.item() if isinstance(v, np.generic) else v


def label_text(v, limit=40) -> str:
    """A class label as shown in messages: strings quoted (cut to ``limit`` characters inside
    the quotes), numbers bare."""
    if isinstance(v, str):
        return repr(v if len(v) <= limit else v[:limit] + "…")
    return str(v)


def short_listing(names, limit=160, quote=True) -> str:
    """Names (user text) for a message: quoted and each cut to 40 characters (``quote``;
    else items already formatted), the list cut after about ``limit`` characters with the
    count of the rest."""
    shown, size = [], 0
    for name in names:
        item = label_text(str(name)) if quote else name
        if shown and size + len(item) > limit:
            break
        shown.append(item)
        size += len(item) + 2
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest else "")


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def class_sort_key(v):
    return (isinstance(v, str), v)


def sorted_classes(labels: np.ndarray) -> list:
    return sorted((python_scalar(v) for v in pd.unique(labels)), key=class_sort_key)


def integral_labels(labels: np.ndarray) -> np.ndarray:
    """Float labels that are whole numbers (1.0, 2.0) become int64."""
    if labels.dtype.kind == "f" and np.all(np.isfinite(labels)) \
            and np.all(labels == np.round(labels)):
        return labels.astype(np.int64)
    return labels


def check_seed(seed, what="seed"):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= seed <= MAX_SEED:
        raise DataError(f"{what} must be an integer in [0, {MAX_SEED}] (NumPy's seed range); "
                        f"got {short_repr(seed)}")
    return int(seed)


def check_real(value, what, low=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise DataError(f"{what} must be a finite number; got {short_repr(value)}")
    if low is not None and (value <= low if low_open else value < low):
        raise DataError(f"{what} must be {'>' if low_open else '>='} {low}; "
                        f"got {short_repr(value)}")
    return float(value)


def drop_constant_columns(X, names):
    const = np.ptp(X, axis=0) == 0 if X.shape[0] else np.zeros(X.shape[1], bool)
    notes = []
    if const.any():
        dropped = [names[k] for k in np.flatnonzero(const)]
        shown = short_listing(dropped)
        notes.append(f"dropped constant column {shown}" if len(dropped) == 1
                     else f"dropped {len(dropped)} constant columns: {shown}")
        X = X[:, ~const]
        names = [n for n, c in zip(names, const) if not c]
    return X, names, notes
