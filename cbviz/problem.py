"""The app's experiment set-up as plain data: settings -> data split -> fitted voter pool.

``Settings`` holds every choice of the shared sidebar (data set, split, normalization,
noise, voter pool, delta) and round-trips through JSON and URL query strings, so a link or
an exported file reproduces the same view.  ``build_problem`` turns settings into the
training/test voter operators the steppers consume.  No Streamlit here.
"""
from __future__ import annotations

import dataclasses
import difflib
import json
from dataclasses import dataclass

import numpy as np

from . import data
from .constraints import Boolean, Interval, Options, ParameterError, refusal
from .data.csv_files import MAX_NAME_CHARS
from .voters import MAX_DEPTH, HyperplanePool, RBFPool, StumpPool, TreePool

__all__ = ["Settings", "Problem", "build_problem", "POOLS", "NoFileYet"]

POOLS = ("stumps", "hyperplanes", "rbf", "trees")
MAX_TREES = 5000   # trees a run may fit: the step page's iteration limit
SOURCES = ("toy", "real", "csv")
THRESHOLD_CHOICES = ("1", "2", "3", "5", "10", "20", "50", "100", "all")
OWNER = "the data settings"   # names the settings in a refusal (cbviz.constraints)
# the allowed values of the settings of fixed type and range (the text fields real, pair and
# csv_label are checked against the catalogue and the file); delta is the app's range, within
# the algorithms' (0, 1]
CONSTRAINTS = {
    "source": Options(SOURCES), "toy": Options(data.TOY_KINDS),
    "n_samples": Interval(int, 20, 20000), "toy_noise": Interval(float, 0, 1),
    "data_seed": Interval(int, 0, 10**6), "csv_drop_nan": Boolean(),
    "train_ratio": Interval(float, 0.1, 0.9), "split_seed": Interval(int, 0, 10**6),
    "normalize": Boolean(), "feature_noise": Interval(float, 0, 5),
    "label_noise": Interval(float, 0, 0.45), "pool": Options(POOLS),
    "n_thresholds": Options(THRESHOLD_CHOICES), "n_pool": Interval(int, 1, 2000),
    "constant_voter": Boolean(), "tree_depth": Interval(int, 1, MAX_DEPTH),
    "prior_fraction": Interval(float, 0, 0.8), "delta": Interval(float, 0.001, 1),
}
# the sidebar widgets' ranges and choices, read from CONSTRAINTS
LIMITS = {name: (c.low, c.high) for name, c in CONSTRAINTS.items() if isinstance(c, Interval)}
CHOICES = {name: c.choices for name, c in CONSTRAINTS.items() if isinstance(c, Options)}


MAX_PAIR_CHARS = 100  # "a vs b" of two class labels


@dataclass(frozen=True)
class Settings:
    """Everything that defines the data and the voters of a run.

    Construction checks every field (type and allowed values: :data:`CONSTRAINTS`, the
    catalogue's real data sets, text lengths) and raises :class:`~cbviz.data.DataError`
    naming the field and what it accepts, worded as every parameter's refusal
    (:func:`cbviz.constraints.refusal`, owner "the data settings").
    """

    source: str = "toy"
    toy: str = "moons"
    n_samples: int = 300
    toy_noise: float = 0.25
    data_seed: int = 0
    real: str = "breast_cancer"
    pair: str = ""            # "a vs b" or "a vs rest" for multi-class sets; "" = default
    csv_label: str = ""       # label column of an uploaded CSV ("" = last column)
    csv_drop_nan: bool = False  # drop the CSV rows with missing values instead of refusing
    train_ratio: float = 0.7
    split_seed: int = 0
    normalize: bool = False
    feature_noise: float = 0.0
    label_noise: float = 0.0  # share of the training labels flipped (test labels stay clean)
    pool: str = "stumps"
    n_thresholds: str = "10"  # an integer as text, or "all"
    n_pool: int = 100         # hyperplanes / RBF centres
    constant_voter: bool = False  # the pool's constant voters +1 and -1 (a bias term)
    tree_depth: int = 3       # depth of the trees a run fits (pool "trees")
    prior_fraction: float = 0.0  # share of the training part that builds the voters only
    delta: float = 0.05

    def __post_init__(self):
        for f in dataclasses.fields(self):
            _check_field(f.name, getattr(self, f.name))

    def to_dict(self):
        return dataclasses.asdict(self)

    def to_json(self):
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_link(cls, values, base=None):
        """Settings from a link or file, one value at a time: ``(settings, ignored)``.

        A value that cannot be read or is not allowed is left out (the rest still apply) and
        ``ignored`` says which and why, naming the key and what it accepts.  Keys that are not
        settings are not looked at.
        """
        current = (base or cls()).to_dict()
        ignored = []
        for name in (f.name for f in dataclasses.fields(cls)):
            if name not in values:
                continue
            try:
                current = cls.from_dict({**current, name: values[name]}).to_dict()
            except data.DataError as exc:
                ignored.append(str(exc))
        return cls(**current), ignored

    @classmethod
    def from_dict(cls, values):
        """Settings from a dict of strings or values (query params, JSON); unknown keys ignored.

        Text is read as the field's type ("300" -> 300, "true" -> True); a value of another
        type is refused, not converted (JSON ``true`` is not a number, ``300.5`` not an integer).
        """
        return cls(**{f.name: _read_field(f.type, values[f.name])
                      for f in dataclasses.fields(cls) if f.name in values})

    def data_key(self):
        """The part of the settings that changes the data or the voters (runs reset on change)."""
        d = self.to_dict()
        d.pop("delta")
        return tuple(sorted(d.items()))

    def thresholds(self):
        """Thresholds per feature as :class:`~cbviz.voters.StumpPool` takes them."""
        return "all" if self.n_thresholds == "all" else int(self.n_thresholds)


@dataclass(frozen=True, eq=False)
class Problem:
    """A data split with its fitted pool and voter operators.

    With a prior part, ``split.X_train`` is the rest of the training part (the examples the
    algorithms learn from and the bounds count, m = its size) and ``X_prior`` the examples the
    pool was built from; without, ``X_prior`` is None and the pool saw the whole training part.
    """

    dataset: data.Dataset
    split: data.Split
    pool: object
    H_train: object
    H_test: object
    X_prior: object = None

    @property
    def fixed(self):
        """False for trees fitted by each run (:class:`~cbviz.voters.TreePool`)."""
        return getattr(self.H_train, "fixed_in_advance", True)

    @property
    def n_voters(self):
        """Voters of the pool (for trees: the most a run may fit)."""
        return self.H_train.shape[1]

    @property
    def voters_text(self):
        """The voters in a few words, e.g. "200 voters" or "trees of depth 3 fitted each round"."""
        if self.fixed:
            return f"{self.n_voters} voters"
        return f"trees of depth {self.pool.max_depth} fitted each round"

    def start(self, algorithm):
        """``algorithm`` (an algorithm object: :func:`~cbviz.algorithms.registry.make_algorithm`)
        started on the training part, its records scored on the test part too, its voters
        named by the pool: the run, before its first step."""
        split = self.split
        return algorithm.start(self.H_train, split.y_train, self.H_test, split.y_test,
                               describe=self.pool.describe)

    def pool_of(self, run):
        """The pool whose voters ``run`` weighs: its own trees, or the problem's pool."""
        return self.pool if self.fixed else run.H.pool

    def vote_grid(self, weights, n=80, pool=None):
        """``(xe, ye, Z)``: the normalized vote on the cells of a grid over the plane of 2-D data
        (all points with a 5 % margin).  ``xe`` and ``ye`` are cell edges; ``Z[i, j]`` is the
        vote on the cell ``[xe[j], xe[j+1]] x [ye[i], ye[i+1]]``.

        A stump vote is constant between the thresholds of its voters, so for stump pools the
        cells are cut there and the picture is exact (a handful of cells in the first
        iterations); with more than ``n`` cuts on an axis, or other pools, the axis has ``n``
        equal cells and ``Z`` is the vote at their centres.  ``pool``: the run's own (trees;
        default the problem's).
        """
        pool = self.pool if pool is None else pool
        X = np.vstack([self.split.X_train, self.split.X_test])
        lo, hi = X.min(axis=0), X.max(axis=0)
        pad = 0.05 * (hi - lo + 1e-12)
        xe, ye = (_cuts(pool, weights, j, lo[j] - pad[j], hi[j] + pad[j], n) for j in (0, 1))
        cx, cy = np.meshgrid((xe[:-1] + xe[1:]) / 2, (ye[:-1] + ye[1:]) / 2)
        Z = self.vote_on(np.column_stack([cx.ravel(), cy.ravel()]), weights, pool)
        return xe, ye, Z.reshape(cx.shape)
    def vote_on(self, X, weights, pool=None):
        """Normalized vote ``sum_k Q_k h_k(x)`` of weights on new inputs (e.g. a plot grid);
        ``pool``: the run's own (trees; default the problem's)."""
        total = float(np.sum(weights))
        pool = self.pool if pool is None else pool
        return pool.operator(X).matvec(weights) / (total if total > 0 else 1.0)


def _cuts(pool, weights, feature, lo, hi, n):
    """Cell edges on one axis: the thresholds of the stumps in the vote, else ``n`` cells."""
    if hasattr(pool, "threshold_"):
        used = (np.asarray(weights) > 0) & (pool.feature_ == feature)
        t = np.unique(pool.threshold_[used])
        t = t[(t > lo) & (t < hi)]
        if t.size < n:
            return np.concatenate([[lo], t, [hi]])
    return np.linspace(lo, hi, n + 1)


class NoFileYet(data.DataError):
    """The CSV source is chosen but no file was given yet (not an error of the data)."""


def _read_field(kind, raw):
    """``raw`` as a value of the field type ``kind`` when it is text of that type (or a float
    that is a whole number, for an integer field); else ``raw`` unchanged, for
    :func:`_check_field` to refuse by name."""
    try:
        if kind == "bool" and isinstance(raw, (str, int)):
            return _boolean(raw)
        if kind == "int" and isinstance(raw, str):
            return int(raw)
        if kind == "int" and isinstance(raw, float) and raw.is_integer():
            return int(raw)
        if kind == "float" and isinstance(raw, str):
            return float(raw)
    except (ValueError, OverflowError):
        pass
    return raw


def _check_field(name, value):
    """Raise DataError unless ``value`` is allowed for setting ``name``."""
    if name in CONSTRAINTS:
        try:
            CONSTRAINTS[name].check(value, name, OWNER)
        except ParameterError as exc:
            raise data.DataError(str(exc)) from None
        return
    if not isinstance(value, str):
        raise refusal(name, OWNER, "text", value, data.DataError)
    if name == "real":
        names = data.real_names()
        if value not in names:
            close = difflib.get_close_matches(value[:60].lower(), names, n=3, cutoff=0.6)
            hint = f" Close names: {', '.join(close)}." if close else ""
            raise data.DataError(str(refusal(
                name, OWNER, f"a data set of the catalogue ({len(names)} names: "
                f"{', '.join(names[:3])}, ...)", value)) + hint)
    elif name == "pair":
        if len(value) > MAX_PAIR_CHARS or (value.strip() and _pair_parts(value) is None):
            raise refusal(name, OWNER, f"empty, 'a vs b' or 'a vs rest' (at most "
                          f"{MAX_PAIR_CHARS} characters)", value, data.DataError)
    elif name == "csv_label" and len(value) > MAX_NAME_CHARS:
        raise refusal(name, OWNER, f"empty or a column name of at most {MAX_NAME_CHARS} "
                      "characters", value, data.DataError)


def _boolean(raw):
    """A bool from a link or file value; anything but true/false/1/0/yes/no is refused."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(raw)
    return text in ("true", "1", "yes")


def _pair_parts(text):
    """The two class labels of 'a vs b' / 'a vs rest', or None when it does not look so."""
    parts = [p.strip() for p in text.strip().split(" vs ")]
    return tuple(parts) if len(parts) == 2 and all(parts) else None


def load(settings, csv_file=None):
    """The :class:`~cbviz.data.Dataset` the settings name (``csv_file``: uploaded file or bytes)."""
    if settings.source == "toy":
        return data.make_toy(settings.toy, settings.n_samples, settings.toy_noise, settings.data_seed)
    if settings.source == "real":
        return data.load_dataset(settings.real, pair=_pair_parts(settings.pair))
    if csv_file is None:
        raise NoFileYet("choose a CSV file to upload")
    return data.load_csv(csv_file, label=settings.csv_label or None,
                         pair=_pair_parts(settings.pair), drop_nan=settings.csv_drop_nan)


def make_pool(settings):
    """The unfitted voter pool of the settings."""
    constant = settings.constant_voter
    if settings.pool == "trees":   # fitted on the training part by each run: no constant
        return TreePool(max_depth=settings.tree_depth, max_trees=MAX_TREES,
                        random_state=settings.split_seed)
    if settings.pool == "stumps":
        return StumpPool(n_thresholds=settings.thresholds(), constant=constant)
    if settings.pool == "hyperplanes":
        return HyperplanePool(n_hyperplanes=settings.n_pool, random_state=settings.split_seed,
                              constant=constant)
    return RBFPool(n_centers=settings.n_pool, random_state=settings.split_seed, constant=constant)


def split_prior(split, fraction, seed):
    """Hold out ``fraction`` of the training part (stratified, seeded) to build the voters.

    The PAC-Bayesian theorems need a prior chosen before seeing the sample the bound counts;
    a pool built from a held-out part makes the uniform prior over it independent of the rest.
    Returns ``(X_prior, y_prior, rest)`` with ``rest`` the split whose training part is the rest.
    """
    from sklearn.model_selection import train_test_split
    try:
        X_p, X_r, y_p, y_r = train_test_split(split.X_train, split.y_train, train_size=fraction,
                                              random_state=seed, stratify=split.y_train)
    except ValueError as exc:
        raise data.DataError(f"cannot hold out {fraction:.0%} of {split.y_train.size} training "
                             f"examples as the prior part ({exc})") from None
    if np.unique(y_r).size < 2:
        raise data.DataError("the rest of the training part after the prior part holds one class "
                             "only: lower the prior part")
    return X_p, y_p, data.Split(X_r, split.X_test, y_r, split.y_test, split.feature_names)


def build_problem(settings, csv_file=None):
    """Data set -> seeded split (noise, tanh normalization) -> pool fitted on the training part
    (or on its held-out prior part, ``settings.prior_fraction > 0``)."""
    ds = load(settings, csv_file)
    split = data.prepare(ds, settings.train_ratio, settings.split_seed, settings.normalize,
                         settings.feature_noise, settings.label_noise)
    X_fit, y_fit, X_prior = split.X_train, split.y_train, None
    if settings.prior_fraction > 0:
        X_prior, y_fit, split = split_prior(split, settings.prior_fraction, settings.split_seed)
        # a fixed pool is built from the prior part; trees are fitted by the run on the rest
        X_fit, y_fit = (X_prior, y_fit) if settings.pool != "trees" else (split.X_train,
                                                                           split.y_train)
    try:
        pool = make_pool(settings).fit(X_fit, y_fit, feature_names=split.feature_names)
    except ValueError as exc:
        raise data.DataError(f"cannot build the voter pool: {exc}") from None
    return Problem(dataset=ds, split=split, pool=pool, H_train=pool.operator(split.X_train),
                   H_test=pool.operator(split.X_test), X_prior=X_prior)
