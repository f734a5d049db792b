"""CB-Boost's fused selection on a stump operator in its pool layout.

On a stump operator in its pool layout (``StumpOperator.canonical``) a step needs no n-length
array, and reads the data once: one pass over the bins makes each feature's running sums of
F (the histogram pass of ``StumpOperator.bin_cumsums``, the same sums to the bit) and, while
they are in cache, scores that feature's thresholds and both signs with the arithmetic of
:func:`~cbviz.algorithms.cbboost._scores.score_candidates` and keeps its best score per sign
(:func:`_pass_bests`; no table of running sums is written).  The rule's pick (the lowest
index within ``TIE_RTOL`` of the best, as ``first_argmax``) is then found by redoing the
few features that reach the best (:func:`_window_pick`).  Boundary p of feature slot a
(``bin_offsets[a] <= p < bin_offsets[a + 1] - 1``) is the direct stump in column ``p - a``
and its complement in column ``p - a + n_base``.
"""
from __future__ import annotations

import numba
import numpy as np

from ...voters._kernels import CODE_TYPES, F64, I64, cumsum_buffers, cumsums_group, readonly
from ...voters._threads import split_work
from ._scores import MIN_DECREASE, RTOL, TIE_RTOL


@numba.njit(inline="always", error_model="numpy")
def _stump_pair(gamma, tau, gamma_F, nu_F, grad_num, grad_den, gradient):
    """A stump (``nu(h) = 1``) with ``gamma(h)``, ``tau(F, h)`` and its complement
    (``-gamma``, ``-tau``: same ``denom``, gap and decrease, opposite ``numer``), with the
    arithmetic of :func:`score_candidates` bit for bit: ``(direct score, complement score, numer,
    denom, decrease)``, a score -inf where no finite step lowers C; the gradient score is
    ``grad_num * numer / grad_den`` (``2 gamma(F)``, ``nu(F)**2``).  Branch-free, so that
    slot loops vectorize."""
    numer = gamma * nu_F - gamma_F * tau
    denom = gamma_F * 1.0 - gamma * tau
    gap = nu_F * 1.0 - tau * tau
    decrease = numer * numer / (nu_F * gap)
    lowers = ((gap > 0) & (denom > RTOL * (abs(gamma_F) * 1.0 + abs(gamma * tau)))
              & (decrease > MIN_DECREASE))
    tol = RTOL * (abs(gamma) * nu_F + abs(gamma_F * tau))
    score = grad_num * numer / grad_den if gradient else decrease
    direct = score if lowers & (numer > tol) else -np.inf
    complement = (-score if gradient else score) if lowers & (-numer > tol) else -np.inf
    return direct, complement, numer, denom, decrease


@numba.njit(inline="always", error_model="numpy")
def _tau(cum, tot_F, m, i):
    """``tau(F, h)`` of the direct stump at boundary ``i`` of a slot whose running sums are
    ``cum``, as ``H.rmatvec(F) / m`` forms it."""
    return (tot_F - 2.0 * cum[i]) / m


@numba.njit(inline="always", error_model="numpy")
def _gamma(below, tot_y, m, i):
    """``gamma(h)`` of the direct stump at boundary ``i`` of a slot whose stumps have ``below``
    labels summed on or under their thresholds (integers), as ``H.rmatvec(y) / m`` forms it:
    the same float to the bit, from half the bytes."""
    return (tot_y - 2.0 * below[i]) / m


@numba.njit(nogil=True, error_model="numpy", cache=True)
def _slot_scores(cum, tot_F, y_below, tot_y, m, offsets, n_base, gamma_F, nu_F, grad_num,
                 grad_den, gradient, theorem3, excluded, a, direct, complement):
    """Scores of feature slot ``a``'s stumps and complements into ``direct`` and
    ``complement`` from its running sums ``cum`` (-inf for the voters the rule bars:
    ``gamma(h) <= 0`` when ``theorem3``, and ``excluded``); returns their number."""
    lo, hi = offsets[a], offsets[a + 1] - 1
    below = y_below[lo - a:hi - a]   # indices from 0: contiguous vector loads
    for i in range(hi - lo):
        gamma = _gamma(below, tot_y, m, i)
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


@numba.njit(nogil=True, cache=True)
def _max(s, n):
    """Largest of ``s[:n]`` (-inf if n = 0), with four running maxima: no serial dependency."""
    b0 = b1 = b2 = b3 = -np.inf
    for i in range(0, n - n % 4, 4):
        b0, b1 = max(b0, s[i]), max(b1, s[i + 1])
        b2, b3 = max(b2, s[i + 2]), max(b3, s[i + 3])
    for i in range(n - n % 4, n):
        b0 = max(b0, s[i])
    return max(max(b0, b1), max(b2, b3))


# the arguments after the codes: offsets, v (= F), sum(F), the direct stumps' sums of labels
# on or under their thresholds (:func:`label_sums_below`), sum(y), m, n_base, gamma(F), nu(F),
# the gradient score's 2 gamma(F) and nu(F)^2, the rule, excluded
_SCORING = (I64, F64, numba.float64, readonly(np.int32), numba.float64, numba.float64,
            numba.int64, numba.float64, numba.float64, numba.float64, numba.float64,
            numba.boolean, numba.boolean, I64)


def _per_code_type(restype, *more):
    """Compiled at import for every code dtype (the first argument), cached on disk."""
    return numba.njit([restype(readonly(t, 2), *_SCORING, *more) for t in CODE_TYPES],
                      nogil=True, error_model="numpy", cache=True)


@_per_code_type(numba.void, numba.float64[:, ::1], numba.int64, numba.int64)
def _pass_bests(codes, offsets, v, tot_F, y_below, tot_y, m, n_base, gamma_F, nu_F, grad_num,
                grad_den, gradient, theorem3, excluded, best, lo, hi):
    """``best[side, a]``: the best score of slot ``a``'s stumps (side 0) and complements
    (side 1, when ``best`` has that row), slots lo..hi-1, from one pass over their bins."""
    h, one = cumsum_buffers(offsets, lo, hi)
    widest = _widest(offsets, lo, hi)
    cum = np.empty(max(widest, 4 * h.shape[1]))   # the running sums of one group of slots
    scores = np.empty((2, widest))
    a = lo
    while a < hi:
        after = cumsums_group(codes, offsets, v, cum, a, hi, h, one, offsets[a])
        for s in range(a, after):
            n = _slot_scores(cum[offsets[s] - offsets[a]:], tot_F, y_below, tot_y, m, offsets,
                             n_base, gamma_F, nu_F, grad_num, grad_den, gradient, theorem3,
                             excluded, s, scores[0], scores[1])
            for side in range(best.shape[0]):
                best[side, s] = _max(scores[side], n)
        a = after


@_per_code_type(numba.types.Tuple((numba.int64, numba.float64, numba.float64)),
                readonly(np.float64, 2))
def _window_pick(codes, offsets, v, tot_F, y_below, tot_y, m, n_base, gamma_F, nu_F, grad_num,
                 grad_den, gradient, theorem3, excluded, best):
    """``(column, alpha, decrease)`` of the lowest column whose score is within
    ``TIE_RTOL`` of the best (``best`` from :func:`_pass_bests`), or ``(-1, 0, 0)``; the
    slots that reach the best get their running sums again (the same bits)."""
    top = -np.inf
    for side in range(best.shape[0]):
        for a in range(best.shape[1]):
            top = max(top, best[side, a])
    if top == -np.inf:
        return -1, 0.0, 0.0
    floor = top - TIE_RTOL * max(abs(top), 1e-300)
    widest = _widest(offsets, 0, best.shape[1])
    scores = np.empty((2, widest))
    cum = np.empty(widest)
    h, one = cumsum_buffers(offsets, 0, best.shape[1])
    for side in range(best.shape[0]):   # direct voters first, each side in column order
        for a in range(best.shape[1]):
            if best[side, a] < floor:
                continue
            cumsums_group(codes, offsets, v, cum, a, a + 1, h, one, offsets[a])
            n = _slot_scores(cum, tot_F, y_below, tot_y, m, offsets, n_base, gamma_F, nu_F,
                             grad_num, grad_den, gradient, theorem3, excluded, a, scores[0],
                             scores[1])
            for i in range(n):
                if scores[side, i] >= floor:
                    _, _, numer, denom, decrease = _stump_pair(
                        _gamma(y_below[offsets[a] - a:], tot_y, m, i), _tau(cum, tot_F, m, i),
                        gamma_F, nu_F, grad_num, grad_den, gradient)
                    alpha = (-numer if side else numer) / denom
                    return offsets[a] - a + i + side * n_base, alpha, decrease
    return -1, 0.0, 0.0


def dot_without_blas(u, v):
    return np.einsum("i,i->", u, v)


def label_sums_below(H, y):
    """``(below, sum(y))``: for each direct stump of the stump operator ``H`` (pool layout),
    the sum of the labels ``y`` (in {-1, +1}) over the examples on or under its threshold, as
    int32 (exact: ``|below| <= m``).  ``gamma(h) = (sum(y) - 2 below) / m`` bit for bit as
    ``H.rmatvec(y) / m`` gives it, read from 4 bytes per stump instead of 8."""
    if H.shape[0] >= 2**31:
        raise ValueError(f"{H.shape[0]} examples: label sums would not fit in int32")
    cum = H.bin_cumsums(y)
    below = cum[H._bpos[:H.n_base]]
    counts = below.astype(np.int32)
    assert np.array_equal(counts, below), "labels must be -1 or +1"
    return counts, float(np.asarray(y, dtype=np.float64).sum())


def fused_pick(H, F, y_below, tot_y, gamma_F, nu_F, gradient, theorem3, excluded):
    """The rule's pick ``(column, alpha, decrease)`` on a stump operator ``H`` in pool layout,
    or ``(-1, 0, 0)``: one pass over the bins with the vote ``F`` (float64, contiguous) and
    the labels' sums (:func:`label_sums_below`); ``excluded`` (sorted) holds the voters the
    rule keeps out.  ``alpha`` is for the F given (scaled arithmetic: the caller scales it
    back)."""
    offsets, codes = H.bin_offsets, H._codes
    if F.shape != (codes.shape[1],):
        raise ValueError(f"F has shape {F.shape}, expected ({codes.shape[1]},)")
    best = np.empty((2 if H.shape[1] > H.n_base else 1, offsets.size - 1))
    args = (codes, offsets, F, float(F.sum()), y_below, tot_y, float(H.shape[0]), H.n_base,
            gamma_F, nu_F, 2.0 * gamma_F, nu_F * nu_F, gradient, theorem3, excluded)
    split_work(_pass_bests, best.shape[1], codes.size, *args, best)
    return _window_pick(*args, best)
