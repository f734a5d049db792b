"""Loading a user CSV file as a :class:`Dataset`: label column, feature values, classes
(reading and parsing the file: :mod:`._csv_reading`)."""
from __future__ import annotations

import difflib
import numbers
import re

import numpy as np
import pandas as pd

from ._common import (
    drop_constant_columns,
    integral_labels,
    label_text,
    plural,
    python_scalar,
    short_listing,
    short_repr,
    sorted_classes,
)
from ._csv_reading import MAX_NAME_CHARS, decode_text, is_number, parse_csv, read_bytes
from ._labels import binarize
from .dataset import DataError, Dataset

MAX_MAGNITUDE = 1e100  # beyond it, squares and differences overflow float64 in the bounds/plots
_COMMA_NUMBER = re.compile(r"[-+]?\d*,\d+")


def csv_columns(file, max_bytes=50_000_000):
    """The column names :func:`load_csv` will see (``col0``... for a file with no header row),
    read from the first lines only: what a label-column chooser offers."""
    raw, _ = read_bytes(file, max_bytes)
    text, _ = decode_text(raw)
    df, _, _ = parse_csv(text, head_only=True)
    return [str(c) for c in df.columns]


def _too_large(column, example):
    return DataError(f"column {label_text(column)} has values beyond ±{MAX_MAGNITUDE:g} (e.g. "
                     f"{label_text(example)}); rescale it (divide by a power of ten): such numbers "
                     "overflow the computations")


def _number_hint(text, decimal):
    """Why a value that would be a number with another decimal mark is not one here."""
    if decimal == "," and (_COMMA_NUMBER.fullmatch(text) or is_number(text)):
        return ": this column mixes decimal commas and decimal points; use one mark"
    if _COMMA_NUMBER.fullmatch(text):
        return ": a decimal comma? separate the fields with ';' and decimal commas are read"
    return ""


def _strip_strings(s: pd.Series) -> pd.Series:
    if s.dtype == object and pd.api.types.infer_dtype(s, skipna=True) == "string":
        s = s.str.strip().replace("", np.nan)
    return s


def load_csv(file, label=None, pair=None, one_vs_rest=None, drop_nan=False,
             max_bytes=50_000_000) -> Dataset:
    """Load a binary classification data set from a CSV file, with checks.

    Parameters
    ----------
    file : path, bytes or file-like
        A path (str / PathLike), raw bytes, or a text or binary file-like object such as
        Streamlit's ``UploadedFile`` (read from its start).  The first row is the header
        (a first row of numbers only, or of numbers and values that occur again in their
        column below, e.g. a class name, is taken as data: columns named ``col0``...).  The
        separator (``,`` ``;`` tab ``|``) is detected from the first line.  Empty cells,
        ``NA``/``NaN``/``null`` and ``?`` are missing values.
    label : str or int, optional
        Label column name (an int that is not a column name is a position); default: the
        last column.
    pair : (a, b), optional
        With more than two classes keep ``a`` (+1) and ``b`` (-1) only; also orients a
        binary label.  ``(a, "rest")`` equals ``one_vs_rest=a``.
    one_vs_rest : label, optional
        ``one_vs_rest`` -> +1, every other class -> -1.
    drop_nan : bool
        Drop rows with missing (or infinite) feature values instead of refusing them.
    max_bytes : int
        Size limit.

    Returns
    -------
    Dataset
        ``source="csv"``; ``label_mapping`` per the binary label rule of the module
        docstring; ``notes`` list dropped rows and columns.

    Raises
    ------
    DataError
        Too large, empty or unparsable file; unknown label column; non-numeric feature
        columns (named); missing feature values without ``drop_nan``; no rows left; one
        class; more than two classes without ``pair``/``one_vs_rest`` (classes and counts
        listed); a pair value that is not a class; no non-constant feature.

    Notes
    -----
    Rows without a label are always dropped (with a note): they cannot be used for
    supervised learning.  Constant feature columns (after row selection) are dropped with
    a note.
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, numbers.Integral) or max_bytes <= 0:
        raise DataError(f"max_bytes must be a positive integer; got {short_repr(max_bytes)}")
    data, name = read_bytes(file, max_bytes)
    text, notes = decode_text(data)
    df, parse_notes, decimal = parse_csv(text)
    notes = list(notes) + parse_notes
    label_col = _label_column(list(df.columns), label)
    feats, y_raw, label_notes = _labelled_rows(df, label_col)
    notes += label_notes
    feats = _numeric_features(feats, decimal)
    A, y_raw, missing_notes = _finite_rows(feats, y_raw, drop_nan)
    notes += missing_notes
    labels = _class_labels(y_raw)
    keep, y, mapping, pair_notes = binarize(labels, sorted_classes(labels), pair, one_vs_rest,
                                            None, f"column {label_text(label_col)}",
                                            column=label_col)
    if keep is not None:
        A = A[keep]
    notes += list(pair_notes)
    A, names, const_notes = _varying_features(A, [str(c) for c in feats.columns])
    notes += const_notes
    description = (f"CSV file '{name}': {A.shape[0]} rows, {A.shape[1]} features, "
                   f"label column {label_text(label_col)}")
    return Dataset(name=name, X=A, y=y, feature_names=tuple(names), label_mapping=mapping,
                   source="csv", description=description, notes=tuple(notes))


def _label_column(columns, label):
    """The label column: the last one by default, else ``label`` as a name, else as a
    position; refused with the closest names when it is neither."""
    if label is None:
        return columns[-1]
    if str(label).strip() in columns:
        return str(label).strip()
    if isinstance(label, numbers.Integral) and not isinstance(label, bool) \
            and -len(columns) <= label < len(columns):
        return columns[label]
    close = difflib.get_close_matches(str(label)[:MAX_NAME_CHARS], columns, n=3, cutoff=0.5)
    hint = f" Did you mean {short_listing(close)}?" if close else ""
    raise DataError(f"label column {short_repr(label, 40)} not found; available columns: "
                    f"{short_listing(columns)}.{hint}")


def _labelled_rows(df, label_col):
    """``(features, labels, notes)`` of the rows that have a label (the others dropped, with
    a note); refused when no row has one."""
    y_raw = _strip_strings(df[label_col])
    no_label = y_raw.isna().to_numpy()
    if no_label.all():
        raise DataError(f"no rows left after cleaning: the label column "
                        f"{label_text(label_col)} is empty")
    notes = []
    if no_label.any():
        notes.append(f"dropped {plural(int(no_label.sum()), 'row')} with no label in column "
                     f"{label_text(label_col)}")
    return df.drop(columns=[label_col]).loc[~no_label], y_raw.loc[~no_label], notes


def _numeric_features(feats, decimal):
    """``feats`` with booleans and numbers written as text made numbers; refused, naming the
    columns, when a value is not a number."""
    non_numeric = []
    for col in feats.columns:
        s = feats[col]
        if pd.api.types.is_bool_dtype(s):
            feats[col] = s.astype(np.float64)
        elif not pd.api.types.is_numeric_dtype(s):
            s = _strip_strings(s)
            num = pd.to_numeric(s, errors="coerce")
            bad = num.isna() & s.notna()
            if bad.any():
                non_numeric.append((col, str(python_scalar(s[bad].iloc[0])).strip()))
            else:
                feats[col] = num
    if non_numeric:
        col, text = non_numeric[0]
        if is_number(text) and np.isinf(float(text)):   # e.g. 1e400: beyond float64
            raise _too_large(col, text)
        shown = ", ".join(f"{label_text(c)} (e.g. {label_text(t)}{_number_hint(t, decimal)})"
                          for c, t in non_numeric[:5])
        more = f" and {len(non_numeric) - 5} more" if len(non_numeric) > 5 else ""
        raise DataError(f"non-numeric feature column{'s' * (len(non_numeric) > 1)}: "
                        f"{shown}{more}; encode such columns as numbers (e.g. one 0/1 "
                        "column per category) or remove them (or choose the label column with "
                        "label=...)")
    return feats


def _finite_rows(feats, y_raw, drop_nan):
    """``(values, labels, notes)``: the features as floats; rows with a missing or infinite
    value dropped with ``drop_nan`` (with a note), refused without it; refused when a value
    is beyond :data:`MAX_MAGNITUDE`."""
    A = feats.to_numpy(dtype=np.float64)
    huge = np.isfinite(A) & (np.abs(A) > MAX_MAGNITUDE)
    if huge.any():
        k = int(np.flatnonzero(huge.any(axis=0))[0])
        raise _too_large(feats.columns[k], f"{A[huge[:, k], k][0]:g}")
    missing = ~np.isfinite(A)
    if not missing.any():
        return A, y_raw, []
    rows = missing.any(axis=1)
    per_col = missing.sum(axis=0)
    cols = short_listing([f"{label_text(feats.columns[k])} ({int(per_col[k])})"
                               for k in np.flatnonzero(per_col)], quote=False)
    if not drop_nan:
        raise DataError(f"{plural(int(missing.sum()), 'missing value')} (NaN, empty, '?' or "
                        f"infinite) in {int(rows.sum())} of {plural(len(rows), 'row')}, "
                        f"in columns {cols}; "
                        "pass drop_nan=True to drop those rows, or fill them in")
    if rows.all():
        raise DataError("no rows left after dropping rows with missing values")
    notes = [f"dropped {plural(int(rows.sum()), 'row')} with missing values (drop_nan=True)"]
    return A[~rows], y_raw.loc[~rows], notes


def _class_labels(y_raw):
    """The labels as an array: booleans as bool, whole floats (1.0) as integers."""
    labels = y_raw.to_numpy()
    if labels.dtype == object and pd.api.types.infer_dtype(labels, skipna=True) == "boolean":
        labels = labels.astype(bool)
    return integral_labels(labels)


def _varying_features(A, names):
    """``(values, names, notes)`` without the constant columns; refused when every column is
    constant."""
    kept, kept_names, notes = drop_constant_columns(A, names)
    if kept.shape[1] == 0:
        raise DataError(f"every feature column is constant on the rows used "
                        f"({short_listing(names)}); no "
                        "features remain to learn from")
    return kept, kept_names, notes
