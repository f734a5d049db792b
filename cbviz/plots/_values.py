"""What figures read and print: a history's columns, voter names, user text shown
literally, numbers in titles."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd


def float_column(frame, name, n=None):
    """Column ``name`` as floats (None -> NaN); all-NaN when the column is missing."""
    n = len(frame) if n is None else n
    if frame is None or name not in frame:
        return np.full(n, np.nan)
    column = frame[name]
    if column.dtype.kind in "biuf":   # already numbers: no parse (a Step reads a dozen columns)
        return column.to_numpy(dtype=float)
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def iteration_numbers(frame):
    if frame is not None and "iteration" in frame:
        return float_column(frame, "iteration")
    return np.arange(1, 0 if frame is None else len(frame) + 1, dtype=float)


def voter_namer(labels):
    """A function ``k -> description`` from a callable, a sequence or None."""
    if labels is None:
        return lambda k: f"voter {int(k)}"
    if callable(labels):
        return lambda k: str(labels(int(k)))
    return lambda k: str(labels[int(k)])


def voter_names(labels, idx):
    """Descriptions of the voters ``idx`` (vectorized when ``labels`` is a sequence)."""
    idx = np.asarray(idx, dtype=int)
    if labels is not None and not callable(labels):
        arr = labels if isinstance(labels, np.ndarray) else np.asarray(labels, dtype=object)
        return np.asarray(arr[idx], dtype=object).astype(str)
    name = voter_namer(labels)
    return np.array([name(k) for k in idx], dtype=object)


def literal_text(text):
    """User text (a column or file name, a voter label) shown literally by Plotly: no HTML
    tags, no entity, no ``%{...}`` that a hover template would fill in, and no ``$...$``
    that Plotly would typeset as LaTeX (a zero-width space goes in front)."""
    text = html.escape(str(text), quote=False).replace("%{", "% {")
    return "\u200b" + text if text.startswith("$") and text.endswith("$") else text


def literal_texts(texts):
    """:func:`literal_text` of every element, as an object array (for ``customdata``)."""
    return np.array([literal_text(t) for t in texts], dtype=object)


def literal_label(value, fallback):
    """A label for a figure, :func:`literal_text`; ``fallback`` when missing."""
    return literal_text(fallback if value is None
                        or (isinstance(value, float) and np.isnan(value)) else value)


def title_number(x):
    """A number with 4 significant digits for titles (dash when missing; zero unsigned)."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x + 0.0:.4g}"
