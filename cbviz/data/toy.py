"""Toy 2-D generators: moons, circles, XOR, spirals, blobs, linear, checkerboard."""
from __future__ import annotations

import difflib
import numbers

import numpy as np

from ._common import check_real, check_seed, lookup_key, short_repr
from .dataset import DataError, Dataset

# ----------------------------------------------------------------------------- toy data

TOY_KINDS = ("moons", "circles", "xor", "spirals", "blobs", "linear", "checkerboard")

#: one line on each kind: the description of the Dataset that make_toy returns
TOY_DESCRIPTIONS = {
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
    key = lookup_key(kind)
    if key not in TOY_KINDS:
        close = difflib.get_close_matches(key, TOY_KINDS, n=3, cutoff=0.4)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise DataError(f"unknown toy kind {short_repr(kind)}; choose one of "
                        f"{', '.join(TOY_KINDS)}.{hint}")
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) \
            or not 4 <= n_samples <= _MAX_TOY_SAMPLES:
        raise DataError(f"n_samples must be an integer from 4 to {_MAX_TOY_SAMPLES:,}; "
                        f"got {short_repr(n_samples)}")
    n_samples = int(n_samples)
    noise = check_real(noise, "noise", low=0)
    seed = check_seed(seed)
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
                   description=TOY_DESCRIPTIONS[key],
                   notes=(f"n_samples={n_samples}, noise={noise:g}, seed={seed}",))
