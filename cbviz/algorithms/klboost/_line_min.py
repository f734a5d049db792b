"""The exact line minimum of the KL-regularized learner's objective along one coordinate.

One coordinate update of Germain et al. (NIPS 2009), Algorithm 1, lines 4-8, minimizes f
along ``w_k`` exactly: with ``t = tanh(u) / n`` its stationarity condition (Eq. 7 / Eq. 10 of
the paper, general voters) is the root of the increasing function

    phi(u) = u + C dL/dt,   dL/dt = sum_i zeta'(M_i + (t - w_k) z_i) z_i,   z_i = y_i h_k(x_i),

and dL/dt only needs a few numbers gathered once per coordinate (:func:`line_min`):

* quadratic loss: ``dL/dt = a0 + a1 d`` with ``a0 = (2 / gamma^2) sum_i (M_i - gamma) z_i``,
  ``a1 = (2 / gamma^2) sum_i z_i^2``, ``d = t - w_k``;
* exponential loss: ``dL/dt = -(1/gamma) sum_v v W_v exp(-v d / gamma)`` over the distinct
  values ``v`` of ``z``, from ``log W_v`` (a log-sum-exp of ``-M_i / gamma`` per group).
"""
from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["EXPONENTIAL", "JIT", "QUADRATIC", "line_min"]

QUADRATIC, EXPONENTIAL = 0, 1
EXP_CAP = 600.0  # exponent cap: C m exp(600) / gamma stays finite for all allowed C, gamma
_T_MAX = np.nextafter(1.0, 0.0)  # |n w| is clipped below 1 before artanh
_U_SAT = 20.0  # tanh(u) rounds to +-1 for |u| >= 20: t = tanh(u) / n sits on a bound of the box
_XTOL, RTOL = 1e-15, 4 * np.finfo(float).eps   # tolerances on the root u
_MAX_BRENT = 200

F64 = numba.types.Array(numba.float64, 1, "C", readonly=True)
_OUT = numba.float64[::1]
JIT = dict(nogil=True, cache=True)


@numba.njit(numba.float64(numba.float64, numba.int64, numba.float64, numba.float64, F64, F64,
                          numba.float64, numba.int64, numba.float64, numba.float64), **JIT)
def _phi(u, kind, a0, a1, v, log_w, w0, n, C, gamma):
    """``u + C dL/dt`` at ``t = tanh(u) / n`` (the module docstring's ``phi``)."""
    d = math.tanh(u) / n - w0
    if kind == QUADRATIC:
        return u + C * (a0 + a1 * d)
    s = 0.0
    for j in range(v.size):   # exponents capped: the cap acts only far from the root
        s += v[j] * math.exp(min(log_w[j] - v[j] * (d / gamma), EXP_CAP))
    return u + C * (-s / gamma)


@numba.njit(numba.float64(numba.int64, numba.float64, numba.float64, F64, F64, numba.float64,
                          numba.int64, numba.float64, numba.float64, numba.float64,
                          numba.float64, numba.float64, numba.float64), **JIT)
def _brent(kind, a0, a1, v, log_w, w0, n, C, gamma, a, fa, b, fb):
    """Root of ``phi`` in ``[a, b]`` (``fa``, ``fb`` of opposite signs) by Brent's method
    (R. P. Brent, Algorithms for Minimization without Derivatives, 1973, ch. 4): inverse
    quadratic or secant steps while they shrink the bracket fast enough, else bisection,
    until the bracket is within ``_XTOL + RTOL |root|``."""
    c, fc = a, fa
    step = last = b - a
    for _ in range(_MAX_BRENT):
        if (fb > 0) == (fc > 0):          # keep the root between b and c
            c, fc = a, fa
            step = last = b - a
        if abs(fc) < abs(fb):             # b is the best estimate
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol = 0.5 * (_XTOL + RTOL * abs(b))
        half = 0.5 * (c - b)
        if fb == 0.0 or abs(half) <= tol:
            return b
        if abs(last) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:                    # secant
                p, q = 2.0 * half * s, 1.0 - s
            else:                         # inverse quadratic interpolation
                qa, r = fa / fc, fb / fc
                p = s * (2.0 * half * qa * (qa - r) - (b - a) * (r - 1.0))
                q = (qa - 1.0) * (r - 1.0) * (s - 1.0)
            if p > 0:
                q = -q
            p = abs(p)
            if 2.0 * p < min(3.0 * half * q - abs(tol * q), abs(last * q)):
                last, step = step, p / q
            else:
                step = last = half
        else:
            step = last = half
        a, fa = b, fb
        b += step if abs(step) > tol else (tol if half > 0 else -tol)
        fb = _phi(b, kind, a0, a1, v, log_w, w0, n, C, gamma)
    return b


@numba.njit(numba.float64(numba.int64, numba.float64, numba.float64, F64, F64, numba.float64,
                          numba.int64, numba.float64, numba.float64), **JIT)
def line_min(kind, a0, a1, v, log_w, w0, n, C, gamma):
    """The exact change of ``w_k`` (from ``w0``) that minimizes f along it.

    From ``u0 = artanh(n w0)`` and ``p0 = phi(u0)`` the root lies between ``u0`` and
    ``u1 = u0 - p0`` (``phi(u) - u`` is non-decreasing).  Past ``+-_U_SAT`` the weight is on its
    bound in floats, so ``u1`` is clipped there; a same sign at ``u1`` then means the root is
    beyond it (or, unclipped, within rounding of it), and ``u1`` is the answer.  Otherwise the
    far end is halved toward ``u0`` while the root is in the near half, so that the bracket
    handed to :func:`_brent` is at most twice the root's distance from ``u0`` (a steep ``phi``,
    large C over small gamma, would otherwise leave it ~1e11 wide around a root ~1e-4 away).
    """
    u0 = math.atanh(min(max(n * w0, -_T_MAX), _T_MAX))
    p0 = _phi(u0, kind, a0, a1, v, log_w, w0, n, C, gamma)
    if p0 == 0.0:
        return 0.0
    u1 = min(max(u0 - p0, -_U_SAT), _U_SAT)
    p1 = _phi(u1, kind, a0, a1, v, log_w, w0, n, C, gamma)
    root, near, p = u1, u1, p1
    if p1 != 0.0 and (p1 > 0) != (p0 > 0):
        while abs(u1 - u0) > _XTOL + RTOL * abs(u0):
            near = u0 + 0.5 * (u1 - u0)
            p = _phi(near, kind, a0, a1, v, log_w, w0, n, C, gamma)
            if p == 0.0 or (p > 0) == (p0 > 0):   # a root at near, or in the far half
                break
            u1, p1 = near, p
        if p == 0.0:
            root = near
        else:
            root = _brent(kind, a0, a1, v, log_w, w0, n, C, gamma, u0, p0, u1, p1)
    return math.tanh(root) / n - w0
