"""Parameter and input checks the pools share."""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_array

from ..data._common import short_repr
from ..data.dataset import MAX_SEED


def check_n_features(pool, X):
    X = check_array(X, dtype=float)
    if X.shape[1] != pool.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but the pool was fitted with {pool.n_features_in_}")
    return X


def names_of(feature_names, d):
    """The pool's feature names: the given ones as text, else x0, x1, ..."""
    if feature_names is None:
        return tuple(f"x{j}" for j in range(d))
    if len(feature_names) != d:
        raise ValueError(f"{len(feature_names)} feature names for {d} features")
    return tuple(str(n) for n in feature_names)


def check_random_state(value):
    """``random_state`` for ``numpy.random.default_rng``: None, a NumPy generator / seed
    sequence, or an integer in [0, :data:`MAX_SEED`]; else ValueError naming the range."""
    if value is None or isinstance(value, (np.random.Generator, np.random.BitGenerator,
                                           np.random.SeedSequence)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and 0 <= value <= MAX_SEED:
        return int(value)
    raise ValueError(f"random_state must be None or an integer in [0, {MAX_SEED}] (NumPy's seed "
                     f"range); got {short_repr(value)}")


def positive_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
