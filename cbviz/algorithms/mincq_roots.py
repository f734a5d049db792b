"""The scalar solves MinCq's feasible sets (:mod:`cbviz.algorithms.mincq_sets`) share.

The sets' projections reduce to monotone piecewise-linear equations in the Lagrange
multipliers of their linear constraints; :func:`_monotone_root` solves them exactly: a Newton
step assuming the current free set (exact when that set is the solution's), safeguarded by
bisection on a bracket, stops when the equation holds to rounding.  :func:`_dual_maximum`
maximizes the concave Lagrangian duals of their linear minimum oracles, :func:`_box_ray` is
the longest step inside a box, and :func:`_dot` the dot product the sets and the Gram-free
solver use.
"""
from __future__ import annotations

import numpy as np

_EPS = np.finfo(float).eps


def _dot(u, v):
    """``u . v`` without BLAS: after the engine's threaded passes a threaded BLAS ``ddot``
    was measured at ~8 ms for 11,800 entries (its threads contend with the engine's)."""
    return float(np.einsum("i,i->", u, v))


def _monotone_root(step, lo, hi, start, tol, max_iter=200):
    """Root of a non-decreasing piecewise-linear ``phi`` on the bracket ``[lo, hi]``.

    ``step(t)`` returns ``(phi(t), t_newton)``: the residual and the root of the linear
    piece through ``t`` (NaN when that piece is flat).  ``lo``/``hi`` may be infinite.
    Returns the ``t`` with ``|phi(t)| <= tol``, or else the ``t`` met whose residual is
    smallest once Newton's step moves ``t`` by a few ulps (the residual is round-off) or the
    bracket is narrowed to adjacent floats.
    """
    t, best = start, (np.inf, start)
    for _ in range(max_iter):
        r, tn = step(t)
        if abs(r) < best[0]:
            best = (abs(r), t)
        if abs(r) <= tol:
            return t
        if r < 0:
            lo = t
        else:
            hi = t
        if np.isfinite(tn) and abs(tn - t) <= 4 * _EPS * abs(t):
            break                  # Newton's step is a few ulps: the residual is round-off
        if np.isfinite(tn) and lo < tn < hi and tn != t:
            t = tn
        elif np.isfinite(lo) and np.isfinite(hi):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            t = mid
        else:                                    # expand towards the missing end
            width = max(abs(t), 1.0)
            t = t + 2.0 * width if r < 0 else t - 2.0 * width
    return best[1]


def _dual_maximum(value, hi):
    """The largest value met while maximizing a concave function of ``beta >= 0`` given as
    ``value(beta) -> (value, supergradient)``: from 0, doubling ``hi`` until the slope turns
    non-positive, then bisection on the slope's sign to rounding.  Every value is a valid
    lower bound when ``value`` is a Lagrangian dual (the linear minimum oracles)."""
    best, slope = value(0.0)
    if slope <= 0:
        return best
    for _ in range(200):
        v, s = value(hi)
        best = max(best, v)
        if s <= 0:
            break
        hi *= 2.0
    lo = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        v, s = value(mid)
        best = max(best, v)
        if s > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4 * _EPS * hi:
            break
    return best


def _box_ray(x, p, free, lo, hi):
    """Largest ``t >= 0`` keeping ``x + t p`` in ``[lo, hi]`` on the coordinates ``free``."""
    pf, xf = p[free], x[free]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(pf > 0, (hi - xf) / pf, np.where(pf < 0, (lo - xf) / pf, np.inf))
    return max(float(np.min(t, initial=np.inf)), 0.0)
