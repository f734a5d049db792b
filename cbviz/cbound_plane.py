"""The C-bound plane: the C-bound as a function of the Gibbs risk r and the disagreement d.

Pure NumPy on top of :mod:`cbviz.bounds`; the page ``app_pages/cbound_explorer.py``, the
margins lesson and the figures of :mod:`cbviz.plots.cbound` only draw what these functions
return.  A vote of a few voters set by hand: :mod:`cbviz.toy_vote`; the PAC-Bayesian bounds
as functions of the sample size: :mod:`cbviz.sample_size`.

Notation (DESIGN.md): margin moments mu1, mu2; for voters with outputs +-1 the Gibbs risk
``r = (1 - mu1) / 2``, the disagreement ``d = (1 - mu2) / 2`` and the joint error
``e = r - d / 2`` are probabilities; for real-valued voters they are defined by the same
formulas but are not probabilities.  Every vote has ``mu2 >= mu1**2`` (the variance of its
margin is ``mu2 - mu1**2 >= 0``), i.e. ``d <= 2 r (1 - r)``: the rest of the plane is empty.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from . import bounds

__all__ = [
    "AXES", "moments_from_risks", "risks_from_moments", "max_disagreement", "is_valid",
    "check_point", "CBoundGrid", "c_bound_grid", "c_bound_slice", "describe_point",
    "trajectory",
]

AXES = {
    "risks": ("Gibbs risk r", "disagreement d"),
    "moments": ("first moment of the margin μ₁", "second moment of the margin μ₂"),
}


# ---------------------------------------------------------------- the (r, d) plane

def moments_from_risks(r, d):
    """``(mu1, mu2) = (1 - 2r, 1 - 2d)``."""
    return 1.0 - 2.0 * np.asarray(r, float), 1.0 - 2.0 * np.asarray(d, float)


def risks_from_moments(mu1, mu2):
    """``(r, d) = ((1 - mu1) / 2, (1 - mu2) / 2)``."""
    return (1.0 - np.asarray(mu1, float)) / 2.0, (1.0 - np.asarray(mu2, float)) / 2.0


def max_disagreement(r):
    """The largest disagreement of a vote with Gibbs risk ``r``: ``2 r (1 - r)`` (mu2 = mu1**2,
    every example with the same margin)."""
    r = np.asarray(r, float)
    return 2.0 * r * (1.0 - r)


def is_valid(r, d):
    """Where the C-bound is defined on a reachable point: ``0 <= r < 1/2`` (mu1 > 0) and
    ``0 <= d <= 2 r (1 - r)`` (mu2 >= mu1**2, mu2 <= 1); vectorized."""
    r, d = np.asarray(r, float), np.asarray(d, float)
    return (r >= 0) & (r < 0.5) & (d >= 0) & (d <= max_disagreement(r))


def check_point(r, d):
    """Raise ValueError, saying why, unless ``0 <= r <= 1/2`` and ``0 <= d <= 2 r (1 - r)``."""
    r, d = float(r), float(d)
    if not 0.0 <= r <= 0.5:
        raise ValueError(f"the Gibbs risk r must be in [0, 1/2], got {r:g}")
    if d < 0.0:
        raise ValueError(f"the disagreement d must be >= 0, got {d:g}")
    if d > max_disagreement(r):
        raise ValueError(f"d = {d:g} > 2r(1 − r) = {max_disagreement(r):.4g}: no vote reaches "
                         "this point, since every vote has μ₂ ≥ μ₁² (the variance of its margin "
                         "is μ₂ − μ₁² ≥ 0), which is d ≤ 2r(1 − r)")


@dataclasses.dataclass(frozen=True)
class CBoundGrid:
    """The C-bound over a grid of the plane.

    ``x``, ``y``: the grid's coordinates (r and d, or mu1 and mu2); ``c_bound`` and
    ``first_order`` (2r) have shape ``(y.size, x.size)`` and are NaN outside ``valid``.
    """

    axes: str
    x: np.ndarray
    y: np.ndarray
    c_bound: np.ndarray
    first_order: np.ndarray
    valid: np.ndarray


def _check_axes(axes):
    if axes not in AXES:
        raise ValueError(f"axes must be one of {list(AXES)}, got {axes!r}")


def c_bound_grid(axes="risks", n=201):
    """The C-bound ``1 - (1 - 2r)**2 / (1 - 2d)`` on an ``n x n`` grid (Lacasse et al. 2006).

    ``axes="risks"``: r and d in [0, 1/2], valid where :func:`is_valid`;
    ``axes="moments"``: mu1 and mu2 in [0, 1], valid where ``mu1 > 0`` and ``mu2 >= mu1**2``
    (the same set; the test is made in the grid's own coordinates so that grid points on the
    boundary count exactly).
    """
    _check_axes(axes)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    top = 0.5 if axes == "risks" else 1.0
    x = np.linspace(0.0, top, int(n))
    y = np.linspace(0.0, top, int(n))
    X, Y = np.meshgrid(x, y)
    if axes == "risks":
        valid = is_valid(X, Y)
        c = bounds.c_bound_from_risks(X, Y)
        r = X
    else:
        valid = (X > 0) & (Y >= X**2)
        c = bounds.c_bound(X, Y)
        r = (1.0 - X) / 2.0
    return CBoundGrid(axes, x, y, np.where(valid, c, np.nan), np.where(valid, 2.0 * r, np.nan),
                      valid)


def c_bound_slice(axes, x, n=101):
    """The C-bound and the first-order bound 2r along the valid part of the line at ``x``.

    ``axes="risks"``: ``x`` is r, the line runs over d in [0, 2r(1 - r)];
    ``axes="moments"``: ``x`` is mu1, the line runs over mu2 in [mu1**2, 1].
    Returns a frame with columns ``y`` (d or mu2), ``c_bound`` and ``first_order``.
    """
    _check_axes(axes)
    x = float(x)
    if axes == "risks":
        if not 0.0 <= x < 0.5:
            raise ValueError(f"r must be in [0, 1/2) for the C-bound to be defined, got {x:g}")
        y = np.linspace(0.0, float(max_disagreement(x)), n)
        c = bounds.c_bound_from_risks(np.full(n, x), y)
        r = x
    else:
        if not 0.0 < x <= 1.0:
            raise ValueError(f"μ₁ must be in (0, 1] for the C-bound to be defined, got {x:g}")
        y = np.linspace(x * x, 1.0, n)
        c = bounds.c_bound(np.full(n, x), y)
        r = (1.0 - x) / 2.0
    return pd.DataFrame({"y": y, "c_bound": np.atleast_1d(c), "first_order": 2.0 * r})


def describe_point(r, d):
    """Sentences (markdown) on one point of the plane, each computed from its numbers."""
    r, d = float(r), float(d)
    try:
        check_point(r, d)
    except ValueError as exc:
        return f"**This point is not reachable:** {exc}."
    mu1, mu2 = 1.0 - 2.0 * r, 1.0 - 2.0 * d
    head = f"r = {r:.3f}, d = {d:.3f} (μ₁ = {mu1:.3f}, μ₂ = {mu2:.3f}). "
    if r >= 0.5:
        return head + ("μ₁ = 0: the C-bound is not defined (reported as 1): on average the "
                       "vote's margin is zero.")
    c = bounds.c_bound_from_risks(r, d)
    text = head + f"C-bound **{c:.3f}**, first-order bound 2r = **{2 * r:.3f}**. "
    if math.isclose(d, r, rel_tol=1e-9, abs_tol=1e-12):
        text += "Here d = r, where the two bounds are equal."
    elif d > r:
        text += (f"Since d > r, the C-bound is the tighter one, by {2 * r - c:.3f} "
                 "(C − 2r = 2(1 − 2r)(r − d)/(1 − 2d) < 0).")
    else:
        text += (f"Since d < r, 2r is the tighter one, by {c - 2 * r:.3f}: the voters "
                 "disagree too little for the second moment to help.")
    if math.isclose(d, float(max_disagreement(r)), rel_tol=1e-9, abs_tol=1e-12):
        text += (" On the boundary d = 2r(1 − r) every example has the same margin μ₁ > 0, "
                 "so the vote is right on every example and C = 0.")
    return text


def trajectory(records):
    """One row per record of a run: ``iteration``, ``gibbs_risk``, ``disagreement``, ``mu1``,
    ``mu2``, ``c_bound`` (records: :class:`cbviz.algorithms.base.Record` or alike)."""
    fields = ("iteration", "gibbs_risk", "disagreement", "mu1", "mu2", "c_bound")
    return pd.DataFrame([{f: getattr(rec, f) for f in fields} for rec in records],
                        columns=list(fields))
