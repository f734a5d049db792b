"""Binary labels from any class labels: the default rule, class pairs and one-vs-rest."""
from __future__ import annotations

import numbers
import re

import numpy as np
import pandas as pd

from .core import DataError, _fmt, _py, _short, _sort_key

_REST = ("rest", "others", "all", "*")


def _binary_positive(a, b):
    """The class mapped to +1 when no pair is given (see the module docstring)."""
    numeric = all(isinstance(v, (bool, numbers.Number)) and not isinstance(v, str) for v in (a, b))
    if numeric and ({a, b} == {0, 1} or {a, b} == {-1, 1}):
        return a if a == 1 else b
    return sorted((a, b), key=_sort_key)[1]


def _match_class(value, classes, where):
    """Find ``value`` among ``classes`` (exactly, else by its text: '4' finds 4)."""
    value = _py(value)
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
    shown = ", ".join(_fmt(c) for c in classes[:40]) + (" ..." if len(classes) > 40 else "")
    raise DataError(f"class {_fmt(value)} is not in {where}; valid classes: {shown}")


def _parse_pair(pair):
    if isinstance(pair, str):
        parts = re.split(r"\s+vs\.?\s+", pair.strip(), flags=re.IGNORECASE)
        if len(parts) == 2:
            return parts[0].strip(), parts[1].strip()
    elif isinstance(pair, (tuple, list, np.ndarray)) and len(pair) == 2:
        return _py(pair[0]), _py(pair[1])
    raise DataError(f"pair must be two class labels such as (4, 9), ('a', 'b') or ('a', 'rest'); "
                    f"got {_short(pair)}")


def _class_listing(labels, classes, limit=20):
    counts = pd.Series(labels).value_counts()
    shown = [f"{_fmt(_py(c))} ({int(n)})" for c, n in counts.iloc[:limit].items()]
    more = f" and {len(classes) - limit} more" if len(classes) > limit else ""
    return ", ".join(shown) + more


def _binarize(labels, classes, pair, one_vs_rest, default_pair, where, column=None):
    """Turn original labels into -1/+1.

    Returns (keep mask or None, y on kept rows, label_mapping, notes).
    """
    if pair is not None and one_vs_rest is not None:
        raise DataError("give either pair=(a, b) or one_vs_rest=a, not both")
    if len(classes) < 2:
        what = f"column {_fmt(column)}" if column is not None else where
        only = _fmt(classes[0]) if classes else "(none)"
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
                raise DataError(f"pair needs two different classes; got {_fmt(positive)} twice")
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
            f"column {_fmt(col)} has {len(classes)} classes: "
            f"{_class_listing(labels, classes)}{hint}. "
            f"Pick two with pair=({_fmt(a)}, {_fmt(b)}) (the first -> +1, the second -> -1) "
            f"or one class against the rest with one_vs_rest={_fmt(a)} "
            f"({_fmt(a)} -> +1, others -> -1).")

    if one_vs_rest is not None:
        is_pos = labels == one_vs_rest
        mapping = {c: (1 if c == one_vs_rest and type(c) is type(one_vs_rest) else -1)
                   for c in classes}
        notes = (f"one vs rest: {_fmt(one_vs_rest)} -> +1, the other {len(classes) - 1} "
                 "classes -> -1",)
        return None, np.where(is_pos, 1, -1), mapping, notes
    is_pos = labels == positive
    is_neg = labels == negative
    keep = is_pos | is_neg
    mapping = {positive: 1, negative: -1}
    if len(classes) == 2:
        return None, np.where(is_pos, 1, -1), mapping, ()
    notes = (f"class pair {_fmt(positive)} (+1) vs {_fmt(negative)} (-1): "
             f"{int(keep.sum())} of {len(labels)} rows",)
    return keep, np.where(is_pos[keep], 1, -1), mapping, notes


# ----------------------------------------------------------------------------- public loaders
