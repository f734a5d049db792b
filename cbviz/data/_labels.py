"""Binary labels from any class labels: the default rule, class pairs and one-vs-rest."""
from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd

from ._common import class_sort_key, label_text, python_scalar, short_repr
from .dataset import DataError

_REST = ("rest", "others", "all", "*")


def _binary_positive(a, b):
    """The class mapped to +1 when no pair is given (see the module docstring)."""
    numeric = all(isinstance(v, (bool, numbers.Number)) and not isinstance(v, str) for v in (a, b))
    if numeric and ({a, b} == {0, 1} or {a, b} == {-1, 1}):
        return a if a == 1 else b
    return sorted((a, b), key=class_sort_key)[1]


def _match_class(value, classes, where):
    """Find ``value`` among ``classes`` (exactly, else by its text: '4' finds 4)."""
    value = python_scalar(value)
    for c in classes:
        if type(c) is type(value) and c == value:
            return c
    for c in classes:
        if not isinstance(c, (bool, str)) and not isinstance(value, (bool, str)) and c == value:
            return c
    text = str(value).strip()
    for c in classes:
        if str(c) == text:
            return c
    shown = ", ".join(label_text(c) for c in classes[:40]) + (" ..." if len(classes) > 40 else "")
    raise DataError(f"class {label_text(value)} is not in {where}; valid classes: {shown}")


def _parse_pair(pair):
    if isinstance(pair, str):
        parts = re.split(r"\s+vs\.?\s+", pair.strip(), flags=re.IGNORECASE)
        if len(parts) == 2:
            return parts[0].strip(), parts[1].strip()
    elif isinstance(pair, (tuple, list, np.ndarray)) and len(pair) == 2:
        return python_scalar(pair[0]), python_scalar(pair[1])
    raise DataError(f"pair must be two class labels such as (4, 9), ('a', 'b') or ('a', 'rest'); "
                    f"got {short_repr(pair)}")


def _class_listing(labels, classes, limit=20):
    counts = pd.Series(labels).value_counts()
    shown = [f"{label_text(python_scalar(c))} ({int(n)})" for c, n in counts.iloc[:limit].items()]
    more = f" and {len(classes) - limit} more" if len(classes) > limit else ""
    return ", ".join(shown) + more


def binarize(labels, classes, pair, one_vs_rest, default_pair, where, column=None):
    """Turn original labels into -1/+1.

    Returns (keep mask or None, y on kept rows, label_mapping, notes).
    """
    if pair is not None and one_vs_rest is not None:
        raise DataError("give either pair=(a, b) or one_vs_rest=a, not both")
    if len(classes) < 2:
        what = f"column {label_text(column)}" if column is not None else where
        only = label_text(classes[0]) if classes else "(none)"
        raise DataError(f"only one class {only} in {what}; need two")
    positive = negative = None
    if pair is not None:
        a, b = _parse_pair(pair)
        positive = _match_class(a, classes, where)
        if isinstance(b, str) and b.strip().lower() in _REST and \
                not any(str(c) == b.strip() for c in classes):
            one_vs_rest, positive = positive, None
        else:
            negative = _match_class(b, classes, where)
            if negative == positive and type(negative) is type(positive):
                raise DataError(f"pair needs two different classes; got "
                                f"{label_text(positive)} twice")
    elif one_vs_rest is not None:
        one_vs_rest = _match_class(one_vs_rest, classes, where)
    elif len(classes) == 2:
        positive = _binary_positive(*classes)
        negative = classes[0] if positive == classes[1] else classes[1]
    elif default_pair is not None:
        positive, negative = default_pair
    else:
        col = column if column is not None else "label"
        a, b = classes[0], classes[1]
        hint = (" (many distinct values: is this the right label column?)"
                if len(classes) > 20 else "")
        raise DataError(
            f"column {label_text(col)} has {len(classes)} classes: "
            f"{_class_listing(labels, classes)}{hint}. "
            f"Pick two with pair=({label_text(a)}, {label_text(b)}) "
            "(the first -> +1, the second -> -1) "
            f"or one class against the rest with one_vs_rest={label_text(a)} "
            f"({label_text(a)} -> +1, others -> -1).")

    if one_vs_rest is not None:
        is_pos = labels == one_vs_rest
        mapping = {c: (1 if c == one_vs_rest and type(c) is type(one_vs_rest) else -1)
                   for c in classes}
        notes = (f"one vs rest: {label_text(one_vs_rest)} -> +1, the other {len(classes) - 1} "
                 "classes -> -1",)
        return None, np.where(is_pos, 1, -1), mapping, notes
    is_pos = labels == positive
    is_neg = labels == negative
    keep = is_pos | is_neg
    mapping = {positive: 1, negative: -1}
    if len(classes) == 2:
        return None, np.where(is_pos, 1, -1), mapping, ()
    notes = (f"class pair {label_text(positive)} (+1) vs {label_text(negative)} (-1): "
             f"{int(keep.sum())} of {len(labels)} rows",)
    return keep, np.where(is_pos[keep], 1, -1), mapping, notes


# ----------------------------------------------------------------------------- public loaders
