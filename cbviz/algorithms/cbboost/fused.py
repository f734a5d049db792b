"""CB-Boost's fused selection on a stump operator in its pool layout.

On a stump operator in its pool layout (``StumpOperator.canonical``) a step needs no n-length
array: one pass bins F (``StumpOperator.bin_cumsums``); the kernels below then score every
threshold and both signs from the bins' running sums with the arithmetic of
:func:`~cbviz.algorithms.cbboost.scores._scores`, keep each feature's best score per sign,
and find the rule's pick (the lowest index within ``_TIE_RTOL`` of the best, as
``_first_argmax``) by rescanning the features that reach the best.  Boundary p of feature
slot a (``bin_offsets[a] <= p < bin_offsets[a + 1] - 1``) is the direct stump in column
``p - a`` and its complement in column ``p - a + n_base``.
"""
from __future__ import annotations

import numba
import numpy as np

from ...voters.kernels import _F64, _I64, _ro
from ...voters.threads import _split
from .scores import _MIN_DECREASE, _RTOL, _TIE_RTOL


@numba.njit(inline="always", error_model="numpy")
def _stump_pair(gamma, tau, gamma_F, nu_F, grad_num, grad_den, gradient):
    """A stump (``nu(h) = 1``) with ``gamma(h)``, ``tau(F, h)`` and its complement
    (``-gamma``, ``-tau``: same ``denom``, gap and decrease, opposite ``numer``), with the
    arithmetic of :func:`_scores` bit for bit: ``(direct score, complement score, numer,
    denom, decrease)``, a score -inf where no finite step lowers C; the gradient score is
    ``grad_num * numer / grad_den`` (``2 gamma(F)``, ``nu(F)**2``).  Branch-free, so that
    slot loops vectorize."""
    numer = gamma * nu_F - gamma_F * tau
    denom = gamma_F * 1.0 - gamma * tau
    gap = nu_F * 1.0 - tau * tau
    decrease = numer * numer / (nu_F * gap)
    lowers = ((gap > 0) & (denom > _RTOL * (abs(gamma_F) * 1.0 + abs(gamma * tau)))
              & (decrease > _MIN_DECREASE))
    tol = _RTOL * (abs(gamma) * nu_F + abs(gamma_F * tau))
    score = grad_num * numer / grad_den if gradient else decrease
    direct = score if lowers & (numer > tol) else -np.inf
    complement = (-score if gradient else score) if lowers & (-numer > tol) else -np.inf
    return direct, complement, numer, denom, decrease


@numba.njit(inline="always", error_model="numpy")
def _tau(cum_F, tot_F, m, p):
    """``tau(F, h)`` of the direct stump at boundary ``p``, as ``H.rmatvec(F) / m`` forms it."""
    return (tot_F - 2.0 * cum_F[p]) / m


@numba.njit(nogil=True, error_model="numpy", cache=True)
def _slot_scores(cum_F, tot_F, gamma_h, m, offsets, n_base, gamma_F, nu_F, grad_num, grad_den,
                 gradient, theorem3, excluded, a, direct, complement):
    """Scores of feature slot ``a``'s stumps and complements into ``direct`` and
    ``complement`` (-inf for the voters the rule bars: ``gamma(h) <= 0`` when ``theorem3``,
    and ``excluded``); returns their number."""
    lo, hi = offsets[a], offsets[a + 1] - 1
    cum, gam = cum_F[lo:hi], gamma_h[lo - a:hi - a]   # indices from 0: contiguous vector loads
    for i in range(hi - lo):
        gamma = gam[i]
        d, c, _, _, _ = _stump_pair(gamma, _tau(cum, tot_F, m, i), gamma_F, nu_F, grad_num,
                                    grad_den, gradient)
        direct[i] = d if (gamma > 0) | (not theorem3) else -np.inf
        complement[i] = c if (gamma < 0) | (not theorem3) else -np.inf
    for first, out in ((lo - a, direct), (lo - a + n_base, complement)):
        start, stop = np.searchsorted(excluded, first), np.searchsorted(excluded, first + hi - lo)
        for i in range(start, stop):
            out[excluded[i] - first] = -np.inf
    return hi - lo


@numba.njit(nogil=True, cache=True)
def _widest(offsets, lo, hi):
    widest = 0
    for a in range(lo, hi):
        widest = max(widest, offsets[a + 1] - offsets[a])
    return widest


_SCORING = (_F64, numba.float64, _F64, numba.float64, _I64, numba.int64, numba.float64,
            numba.float64, numba.float64, numba.float64, numba.boolean, numba.boolean, _I64)


@numba.njit(numba.void(*_SCORING, numba.float64[:, ::1], numba.int64, numba.int64),
            nogil=True, error_model="numpy", cache=True)
def _slot_bests(cum_F, tot_F, gamma_h, m, offsets, n_base, gamma_F, nu_F, grad_num, grad_den,
                gradient, theorem3, excluded, best, lo, hi):
    """``best[side, a]``: the best score of slot ``a``'s stumps (side 0) and complements
    (side 1, when ``best`` has that row), slots lo..hi-1."""
    scores = np.empty((2, _widest(offsets, lo, hi)))
    for a in range(lo, hi):
        n = _slot_scores(cum_F, tot_F, gamma_h, m, offsets, n_base, gamma_F, nu_F, grad_num,
                         grad_den, gradient, theorem3, excluded, a, scores[0], scores[1])
        for side in range(best.shape[0]):
            s = scores[side]
            b0 = b1 = b2 = b3 = -np.inf   # four running maxima: no serial dependency
            for i in range(0, n - n % 4, 4):
                b0, b1 = max(b0, s[i]), max(b1, s[i + 1])
                b2, b3 = max(b2, s[i + 2]), max(b3, s[i + 3])
            for i in range(n - n % 4, n):
                b0 = max(b0, s[i])
            best[side, a] = max(max(b0, b1), max(b2, b3))


@numba.njit(numba.types.Tuple((numba.int64, numba.float64, numba.float64))(
    *_SCORING, _ro(np.float64, 2)), nogil=True, error_model="numpy", cache=True)
def _window_pick(cum_F, tot_F, gamma_h, m, offsets, n_base, gamma_F, nu_F, grad_num, grad_den,
                 gradient, theorem3, excluded, best):
    """``(column, alpha, decrease)`` of the lowest column whose score is within
    ``_TIE_RTOL`` of the best (``best`` from :func:`_slot_bests`), or ``(-1, 0, 0)``."""
    top = -np.inf
    for side in range(best.shape[0]):
        for a in range(best.shape[1]):
            top = max(top, best[side, a])
    if top == -np.inf:
        return -1, 0.0, 0.0
    floor = top - _TIE_RTOL * max(abs(top), 1e-300)
    scores = np.empty((2, _widest(offsets, 0, best.shape[1])))
    for side in range(best.shape[0]):   # direct voters first, each side in column order
        for a in range(best.shape[1]):
            if best[side, a] < floor:
                continue
            n = _slot_scores(cum_F, tot_F, gamma_h, m, offsets, n_base, gamma_F, nu_F,
                             grad_num, grad_den, gradient, theorem3, excluded, a, scores[0],
                             scores[1])
            for i in range(n):
                if scores[side, i] >= floor:
                    p = offsets[a] + i
                    _, _, numer, denom, decrease = _stump_pair(
                        gamma_h[p - a], _tau(cum_F, tot_F, m, p), gamma_F, nu_F, grad_num,
                        grad_den, gradient)
                    alpha = (-numer if side else numer) / denom
                    return p - a + side * n_base, alpha, decrease
    return -1, 0.0, 0.0


def _dot_without_blas(u, v):
    return np.einsum("i,i->", u, v)


def _fused_pick(H, cum_F, tot_F, gamma_h, gamma_F, nu_F, gradient, theorem3, excluded):
    """The rule's pick ``(column, alpha, decrease)`` on a stump operator ``H`` in pool layout,
    or ``(-1, 0, 0)``: from the bin running sums of F (``tot_F`` = sum(F)) and ``gamma(h)`` of
    the direct stumps; ``excluded`` (sorted) holds the voters the rule keeps out.  ``alpha``
    is for the F given (scaled arithmetic: the caller scales it back)."""
    offsets = H.bin_offsets
    best = np.empty((2 if H.shape[1] > H.n_base else 1, offsets.size - 1))
    args = (cum_F, tot_F, gamma_h, float(H.shape[0]), offsets, H.n_base, gamma_F, nu_F,
            2.0 * gamma_F, nu_F * nu_F, gradient, theorem3, excluded)
    _split(_slot_bests, best.shape[1], 4 * cum_F.size, *args, best)  # ~4 codes' work each
    return _window_pick(*args, best)
