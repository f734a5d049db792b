"""The scalar solves MinCq's feasible sets (:mod:`cbviz.algorithms.mincq._sets`) share.

The sets' projections reduce to monotone piecewise-linear equations in the Lagrange
multipliers of their linear constraints; :func:`monotone_root` solves them exactly: a Newton
step assuming the current free set (exact when that set is the solution's), safeguarded by
bisection on a bracket, stops when the equation holds to rounding.  :func:`dual_maximum`
maximizes the concave Lagrangian duals of their linear minimum oracles, :func:`onto_rows`
restores a projection's equality rows at the projection's own scale (its multipliers cannot,
when the projected point is far larger than the set), :func:`box_ray` is the longest step
inside a box, and :func:`dot` the dot product the sets and the Gram-free solver use.
"""
from __future__ import annotations

import numpy as np

EPS = np.finfo(float).eps


def dot(u, v):
    """``u . v`` without BLAS: after the engine's threaded passes a threaded BLAS ``ddot``
    was measured at ~8 ms for 11,800 entries (its threads contend with the engine's)."""
    return float(np.einsum("i,i->", u, v))


def monotone_root(step, lo, hi, start, tol, max_iter=200):
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
        if np.isfinite(tn) and abs(tn - t) <= 4 * EPS * abs(t):
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


def dual_maximum(value, hi):
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
        if hi - lo <= 4 * EPS * hi:
            break
    return best


def onto_rows(x, rows, targets, lo=None, hi=None, max_rounds=8):
    """``x`` moved on its free coordinates by the smallest change making ``rows @ x = targets``
    hold to rounding at ``x``'s own scale (a copy; ``rows`` one row of length ``x.size`` or a
    scalar, or a stack of them, ``targets`` one value per row).

    The free coordinates are those strictly inside ``(lo, hi)`` (scalars or arrays); by
    default each non-zero coordinate keeps its sign (``(0, inf)`` or ``(-inf, 0)``) and zeros
    stay.  The sets' projections are ``x = P(z + C^T lam)`` for multipliers ``lam`` of the
    rows ``C`` (``P`` a clipping or a soft thresholding): when ``|z|`` is far above ``|x|``
    (the proximal Newton steps' ``x_k - sigma G`` with a long ``sigma``: ~10^5 on a simplex
    where ``|x|_1 = 1``), ``x`` is the difference of numbers ~``|z|`` and its rows' residuals
    carry ~``eps |z| |C|_1`` of round-off (measured up to 5e-8, of either sign, on ionosphere
    with every midpoint) that no multiplier, however exact, removes.  On the free coordinates
    ``D`` the exact projection differs from ``x`` by ``C_D^T dlam``; ``dlam`` solved from the
    residuals computed at ``x``'s scale (pairwise sums) restores the rows to ~``eps |x|``.  A
    coordinate the correction would move onto or across its bound was round-off away from it:
    it goes to the bound and the correction is solved again on the others.
    """
    x = np.array(x, dtype=float)
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    targets = np.atleast_1d(np.asarray(targets, dtype=float))
    signs = lo is None                       # the non-zero coordinates, each keeping its sign
    free = x != 0 if signs else (x > lo) & (x < hi)
    for _ in range(max_rounds):
        # pairwise sums, one row at a time (einsum's running sum, and np.sum along axis 1 of
        # a 2-d array, are ~k eps |x|_1 off: 8e-14 at 8,600 terms)
        r = targets - np.array([np.sum(row * x) if row.size > 1 else row[0] * np.sum(x)
                                for row in rows])
        if not np.any(r):
            break
        C = rows * free                      # the rows on the free coordinates, 0 elsewhere
        new = x + _least_norm(C, r)
        out = free & ((new * x <= 0.0) if signs else (new <= lo) | (new >= hi))
        if not out.any():
            x = new
            break
        # round-off away from their bounds: at them, off the free coordinates
        x[out] = 0.0 if signs else np.clip(new, lo, hi)[out]
        free &= ~out
    return x


def _least_norm(C, r):
    """``C^T (C C^T)^+ r``: the least-norm ``d`` with ``C d = r`` (one or two rows; a
    (near-)singular pair of rows by the pseudo-inverse)."""
    M = np.einsum("ik,jk->ij", C, C)
    if M.shape[0] == 1:
        return (r[0] / M[0, 0]) * C[0] if M[0, 0] > 0 else np.zeros(C.shape[1])
    if M.shape[0] == 2:
        det = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
        if det > 1e-12 * M[0, 0] * M[1, 1]:
            c0 = (M[1, 1] * r[0] - M[0, 1] * r[1]) / det
            c1 = (M[0, 0] * r[1] - M[1, 0] * r[0]) / det
            return c0 * C[0] + c1 * C[1]
    return np.einsum("i,ik->k", np.linalg.pinv(M) @ r, C)


def box_ray(x, p, free, lo, hi):
    """Largest ``t >= 0`` keeping ``x + t p`` in ``[lo, hi]`` on the coordinates ``free``."""
    pf, xf = p[free], x[free]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(pf > 0, (hi - xf) / pf, np.where(pf < 0, (lo - xf) / pf, np.inf))
    return max(float(np.min(t, initial=np.inf)), 0.0)
