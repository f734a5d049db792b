"""CB-Boost (Bauvin et al., Machine Learning 2020): greedy C-bound minimization.

The vote starts with the best-margin voter (weight 1).  Each later step moves one voter's
weight up by the closed-form amount of Theorem 3; the exhaustive rule takes the largest
exact C-bound decrease (Property 1), the gradient rule (GB-CB-Boost, the paper's Appendix B)
the steepest descent direction.  Both cost one ``H^T F`` per step; on a stump pool in its
own layout that is one pass over the binned data, and a fused kernel scores every threshold
from it and keeps only the best (section "fused selection": no array as long as the pool).

Which voters a step may move is the run's rule.  The paper's (``eligible="theorem3"``,
``reuse_voters=False``): voters outside the vote with ``gamma(h) > 0``.  ``reuse_voters``
also admits voters already in the vote (their weight grows; the authors' public code calls
it ``twice_the_same``); ``eligible="all"`` admits every voter whose weight can grow to an
exact C-bound decrease, whatever the sign of ``gamma(h)``.

Notation (DESIGN.md): ``gamma(f) = mean(y f)``, ``nu(f) = mean(f^2)``, ``tau(f, g) = mean(f g)``.
For a candidate h:
``numer = gamma(h) nu(F) - gamma(F) tau(F, h)``, ``denom = gamma(F) nu(h) - gamma(h) tau(F, h)``,
``alpha* = numer / denom`` and the decrease ``numer^2 / (nu(F) (nu(F) nu(h) - tau^2))``.

Along ``F + alpha h`` the ratio ``R = gamma^2 / nu`` (C = 1 - R while the first moment
``g(alpha) = gamma(F) + alpha gamma(h)`` is positive, C = 1 after) has derivative
``R'(alpha) = 2 g(alpha) (numer - alpha denom) / nu(F + alpha h)^2``.  So, for any sign of
``gamma(h)``, C has a minimum at a finite ``alpha > 0`` below C(F) exactly when
``numer > 0`` and ``denom > 0``; it is ``alpha*`` (the stationary point of Theorem 3, which
is the stationary point of R in general), and the first moment stays positive there:
``g(alpha*) = nu(gamma(F) h - gamma(h) F) / denom > 0``.  When ``denom <= 0`` and
``gamma(h) > 0``, C can only decrease toward ``C(h)`` as ``alpha`` grows without bound: no
finite step attains it (``unbounded`` below).

Scaled arithmetic: the decrease's numerator ``numer^2`` is of degree six in the outputs, so
it underflows on outputs below ~1e-52 (and ``nu(F)`` itself below ~1e-162).  Every score is
homogeneous, so a step is scored from ``F / 2^e`` (``max |F| / 2^e`` in [1/2, 1)) and, on a
pool whose squared outputs underflow (every column's sum of squares below ``_TINY_POOL``),
from a copy of the pool scaled by ``2^-p``; ``alpha`` and the gradient are scaled back by
``2^(e-p)`` and ``2^(p-e)``.  Powers of two scale exactly, so on any data whose moments do
not underflow the run is bit for bit the unscaled one.  The scale of a voter relative to the
vote still matters: a voter whose outputs are below ~1e-150 of the vote's has scores that
underflow, and is never chosen.  A vote is only recorded while its largest margin is above
``_MARGIN_FLOOR`` (~1e-292): below it the absolute rounding of subnormal floats (2^-1075)
is no longer negligible in ``F = H a``, its C-bound is not exact to round-off, and the run
stops (the first step, ``F = h``, is exact and always taken).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from .. import bounds
from ..voters import _F64, _I64, _ro, _split, as_operator
from .base import Candidates, ParameterError, Run, _first_argmax, check_delta, check_int

__all__ = ["CBBoost", "pick_correlations", "CBBoostCandidates", "CBBoostRun", "DirectionCurve", "lockstep",
           "one_direction_c_bound", "stop_reason"]

DIRECTIONS = ("exhaustive", "gradient")
ELIGIBLE = ("theorem3", "all")
_RTOL = 1e-12  # relative size below which a numerator or denominator counts as zero
# The C-bound is computed to a few eps (it lies in [0, 1]): a smaller decrease is round-off
# (e.g. along the complement of a voter whose weight is already optimal).
_MIN_DECREASE = 64 * np.finfo(float).eps
_TIE_RTOL = 1e-12  # base._first_argmax's window: voters identical on the sample tie exactly
# a pool whose every column has sum_i h(x_i)^2 below this (outputs below ~2^-256) is scored on
# a copy scaled by a power of two: its moments' products would underflow
_TINY_POOL = 2.0 ** -512
# largest |margin| of a vote below which F = H a loses bits to subnormal rounding (2^-1075 is
# then above eps^2 / 2 of it): the vote's C-bound could not be recorded exact to round-off
_MARGIN_FLOOR = np.finfo(float).tiny / np.finfo(float).eps
_NO_VOTER = np.empty(0, dtype=np.int64)


def one_direction_c_bound(alpha, gamma_F, nu_F, gamma_h, nu_h, tau, scale=1.0):
    """C-bound of ``F + alpha h`` from the moments (CB-Boost paper, Sect. 3.1):

    ``1 - (gamma(F) + alpha gamma(h))^2 / (nu(F) + 2 alpha tau(F, h) + alpha^2 nu(h))``.
    ``scale`` is the scale of ``F`` (:func:`bounds.vote_scale`, the weight sum for +-1
    voters), for :func:`bounds.c_bound`'s round-off test; that of ``F + alpha h`` adds
    ``alpha sqrt(nu(h))``.
    """
    alpha = np.asarray(alpha, dtype=float)
    return bounds.c_bound(gamma_F + alpha * gamma_h, nu_F + 2 * alpha * tau + alpha**2 * nu_h,
                          scale=scale + alpha * np.sqrt(nu_h))


def _scoring_pool(H):
    """``(S, p)``: the operator CB-Boost scores on, ``S = H / 2^p`` (scaled arithmetic).

    ``S = H`` and ``p = 0`` unless every column's sum of squares is below ``_TINY_POOL``
    (outputs below ~2^-256, whose moments' products underflow); then ``S`` is a dense copy
    with its largest |output| in [1/2, 1): exact, subnormal outputs included.
    """
    if np.max(H.col_sq_sums) >= _TINY_POOL:
        return H, 0
    A = H.toarray()
    top = float(np.max(np.abs(A)))
    if top == 0.0:
        return H, 0
    p = math.frexp(top)[1]
    return as_operator(np.ldexp(A, -p)), p


def _check_rule(eligible, reuse_voters):
    if eligible not in ELIGIBLE:
        raise ParameterError(f"eligible must be one of {ELIGIBLE}, got {eligible!r}")
    if not isinstance(reuse_voters, (bool, np.bool_)):
        raise ParameterError(f"reuse_voters must be True or False, got {reuse_voters!r}")
    return eligible, bool(reuse_voters)


def _admissible(theorem3, in_vote, eligible, reuse_voters):
    """Voters a rule lets a step move: Theorem 3's (gamma(h) > 0) or all; outside the vote
    unless ``reuse_voters``."""
    ok = theorem3 if eligible == "theorem3" else np.ones_like(theorem3)
    return ok if reuse_voters else ok & ~in_vote


@dataclass(frozen=True)
class CBBoostCandidates(Candidates):
    """Candidates of one CB-Boost step, with what every rule would allow.

    ``valid``, ``alpha`` and ``decrease`` follow the run's rule (``eligible``,
    ``reuse_voters``).  For every voter of the pool: ``best_alpha`` / ``best_decrease`` are
    the finite weight increase with the largest exact C-bound decrease and that decrease
    (0 where none exists); ``theorem3`` marks ``gamma(h) > 0`` (Theorem 3's hypothesis),
    ``in_vote`` a positive weight in the vote, and ``unbounded`` the voters along which the
    C-bound decreases only as the weight grows without bound (toward the voter's own C-bound).
    """

    best_alpha: np.ndarray
    best_decrease: np.ndarray
    theorem3: np.ndarray
    in_vote: np.ndarray
    unbounded: np.ndarray
    eligible: str
    reuse_voters: bool

    @property
    def lowers(self):
        """Voters with a finite weight increase that lowers the C-bound (any rule)."""
        return self.best_decrease > 0

    def admissible(self, eligible=None, reuse_voters=None):
        """Mask of the voters a rule may move (default: the run's rule)."""
        return _admissible(self.theorem3, self.in_vote,
                           self.eligible if eligible is None else eligible,
                           self.reuse_voters if reuse_voters is None else reuse_voters)

    def count(self, eligible="all", reuse_voters=True):
        """Number of voters that rule may move and that lower the C-bound with a finite step.

        The defaults count every voter of the pool that lowers the C-bound.
        """
        return int(np.count_nonzero(self.lowers & self.admissible(eligible, reuse_voters)))


def _scores(gamma_h, nu_h, tau, gamma_F, nu_F, in_vote, eligible="theorem3",
            reuse_voters=False, shift=0):
    """Theorem 3 weight, Property 1 decrease and gradient rate for every candidate.

    Exact for any sign of ``gamma(h)`` (module docstring); ``valid`` applies the rule
    ``eligible`` / ``reuse_voters``.  A decrease below ``_MIN_DECREASE`` counts as none.
    With moments of ``F / 2^e`` and voters ``h / 2^p`` (scaled arithmetic, module docstring),
    ``shift = e - p`` returns ``alpha`` and ``gradient`` for ``F`` and ``h`` themselves.
    """
    numer = gamma_h * nu_F - gamma_F * tau
    denom = gamma_F * nu_h - gamma_h * tau
    gap = nu_F * nu_h - tau**2  # >= 0 by Cauchy-Schwarz; 0 when h is collinear with F
    rising = denom > _RTOL * (np.abs(gamma_F) * nu_h + np.abs(gamma_h * tau))
    numer_pos = numer > _RTOL * (np.abs(gamma_h) * nu_F + np.abs(gamma_F * tau))
    finite = numer_pos & rising & (gap > 0)
    theorem3 = gamma_h > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        decrease = np.where(finite, numer**2 / (nu_F * gap), 0.0)
        lowers = decrease > _MIN_DECREASE
        best_alpha = np.where(lowers, numer / denom, 0.0)
        # C tends to C(h) as alpha grows without bound: below C(F) by limit_gain
        limit_gain = np.where(theorem3, gamma_h**2 / nu_h, 0.0) - gamma_F * gamma_F / nu_F
    best_decrease = np.where(lowers, decrease, 0.0)
    # denom <= 0: numer - alpha denom never decreases, so R' changes sign at most once, from
    # - to +: no finite maximum of R beyond alpha = 0, only its limit at infinity
    unbounded = theorem3 & ~rising & (limit_gain > _MIN_DECREASE)
    valid = lowers & _admissible(theorem3, in_vote, eligible, reuse_voters)
    # -dC/da_k at the current a_k; products, not pow(): exactly homogeneous (scaled arithmetic)
    gradient = np.ldexp(2.0 * gamma_F * numer / (nu_F * nu_F), -shift)
    best_alpha = np.ldexp(best_alpha, shift)
    return CBBoostCandidates(
        gradient=gradient, decrease=np.where(valid, best_decrease, 0.0),
        alpha=np.where(valid, best_alpha, 0.0), valid=valid, best_alpha=best_alpha,
        best_decrease=best_decrease, theorem3=theorem3, in_vote=np.asarray(in_vote, bool),
        unbounded=unbounded, eligible=eligible, reuse_voters=reuse_voters)


# --------------------------------------------------------------------------- fused selection
# On a stump operator in its pool layout (StumpOperator.canonical) a step needs no n-length
# array: one pass bins F (StumpOperator.bin_cumsums); the kernels below then score every
# threshold and both signs from the bins' running sums with the arithmetic of _scores, keep
# each feature's best score per sign, and find the rule's pick (the lowest index within
# _TIE_RTOL of the best, as _first_argmax) by rescanning the features that reach the best.
# Boundary p of feature slot a (bin_offsets[a] <= p < bin_offsets[a + 1] - 1) is the direct
# stump in column p - a and its complement in column p - a + n_base.

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


# (eligible, reuse_voters) -> who the rule admits, its name, and the wider rules with the
# option(s) they add
_RULES = {
    ("theorem3", False): ("no voter outside the vote with γ(h) > 0", "Theorem 3's rule",
                          ((("all", False), "eligible='all'"),
                           (("theorem3", True), "reuse_voters=True"),
                           (("all", True), "both"))),
    ("theorem3", True): ("no voter with γ(h) > 0, in the vote or not,",
                         "Theorem 3's rule with reuse_voters=True",
                         ((("all", True), "eligible='all'"),)),
    ("all", False): ("no voter outside the vote", "eligible='all'",
                     ((("all", True), "reuse_voters=True"),)),
    ("all", True): ("no voter of the pool", "eligible='all', reuse_voters=True", ()),
}


def _voters(k):
    return f"{k} voter{'' if k == 1 else 's'}"


def stop_reason(candidates):
    """Why a run with ``candidates``' rule stops: the restriction that stopped it, and how
    many voters each wider rule could still move to a lower C-bound.

    ``candidates`` must cover the whole pool (:meth:`CBBoostRun.candidates`).
    """
    c = candidates
    who, name, wider = _RULES[c.eligible, c.reuse_voters]
    n_unbounded = int(np.count_nonzero(c.unbounded & c.admissible()))
    if n_unbounded:
        text = (f"{who} lowers the C-bound with a finite weight ({name}); along "
                f"{_voters(n_unbounded)} it decreases only as the weight grows without bound "
                "(toward that voter's own C-bound)")
    else:
        text = f"{who} lowers the C-bound along a positive weight ({name})"
    for i, (rule, label) in enumerate(wider):
        k = c.count(*rule)
        text += f"; {_voters(k)} still could with {label}" if i == 0 else f", {k} with {label}"
    return text


@dataclass(frozen=True)
class DirectionCurve:
    """The C-bound along one voter's weight from a fixed vote (the Theorem 3 picture)."""

    index: int
    label: str | None
    alphas: np.ndarray
    c_values: np.ndarray
    alpha_star: float | None
    c_star: float | None
    c_now: float


class CBBoostRun(Run):
    """A CB-Boost run in progress (see :class:`CBBoost`)."""

    def __init__(self, H, y, H_test=None, y_test=None, *, max_iter, direction, delta,
                 keep_candidates, describe, eligible="theorem3", reuse_voters=False):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        if direction not in DIRECTIONS:
            raise ParameterError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.eligible, self.reuse_voters = _check_rule(eligible, reuse_voters)
        self.keep_candidates = keep_candidates
        m = self.y.size
        # the pool the scores are computed on (scaled arithmetic, module docstring)
        self._S, self._pool_exp = _scoring_pool(self.H)
        self._gamma_h = self._S.rmatvec(self.y) / m
        self._nu_h = self._S.col_sq_sums / m
        # stumps in pool layout: fused steps (section "fused selection"), into this run's own
        # buffer for the bin running sums of F; they take no BLAS dot (one of this size would
        # wake BLAS threads against the engine's), the other runs keep their arithmetic
        self._fused = not keep_candidates and getattr(self.H, "canonical", False)
        self._dot = _dot_without_blas if self._fused else np.dot
        if self._fused:
            self._cum_F = np.empty(self.H.bin_offsets[-1])
        else:  # Theorem 3's rule only ever moves voters with a positive margin: score just those
            self._pos = np.flatnonzero(self._gamma_h > 0)
            self._H_pos = self._S.restrict(self._pos)

    def _normalized(self, F):
        """``(G, shift, gamma(G), nu(G))``: the vote ``G = F / 2^e`` with ``max |G|`` in
        [1/2, 1) (exact) and ``shift = e - p`` for the scoring pool ``H / 2^p``."""
        top = float(np.max(np.abs(F)))
        e = math.frexp(top)[1] if top > 0 else 0
        G = np.ldexp(F, -e)
        m = self.y.size
        return G, e - self._pool_exp, float(self._dot(self.y, G)) / m, float(self._dot(G, G)) / m

    def _scale(self, a, support, shift):
        """Scale (:func:`bounds.vote_scale`, for the round-off test) of the normalized vote
        ``G`` of ``H a`` (``support``: the non-zero weights): that of ``(H / 2^p) a`` over
        ``2^shift``, from the scaled pool's sums of squares (which do not underflow)."""
        scale = bounds.vote_scale(a[support], self._S.col_sq_sums[support], self.y.size)
        return math.ldexp(scale, -shift)

    def candidates(self, iteration=None):
        """Scores of every voter as the next direction from the vote after ``iteration``.

        Default: the current vote.  ``valid`` follows the run's rule; the other fields of
        :class:`CBBoostCandidates` say what every rule would allow.  Costs one ``H^T F``.
        """
        if not self.history:
            raise ParameterError("no vote yet: take the first step before scoring directions")
        if iteration is None or iteration == len(self.history):
            F, in_vote = self.F, self._a > 0
        else:
            a = self.weights_at(iteration)
            F, in_vote = self.H.matvec(a), a > 0
        G, shift, gamma_G, nu_G = self._normalized(F)
        return _scores(self._gamma_h, self._nu_h, self._S.rmatvec(G) / self.y.size, gamma_G,
                       nu_G, in_vote, self.eligible, self.reuse_voters, shift)

    def _next_scores(self):
        """Scores for the next step and the voter index of each score (None: every voter)."""
        if self.keep_candidates or self.eligible == "all":
            return self.candidates(), None
        pos = self._pos
        G, shift, gamma_G, nu_G = self._normalized(self.F)
        tau = self._H_pos.rmatvec(G) / self.y.size
        return _scores(self._gamma_h[pos], self._nu_h[pos], tau, gamma_G, nu_G,
                       self._a[pos] > 0, self.eligible, self.reuse_voters, shift), pos

    def _choose(self):
        """The next step ``(voter, alpha, predicted decrease, candidates)``: voter -1 when the
        rule admits none; candidates (None unless they cover the whole pool) for the record."""
        if self._fused:   # a stump pool: never scaled (outputs +-1)
            G, shift, gamma_G, nu_G = self._normalized(self.F)
            k, alpha, decrease = _fused_pick(
                self.H, self.H.bin_cumsums(G, out=self._cum_F), float(G.sum()),
                self._gamma_h[:self.H.n_base], gamma_G, nu_G,
                self.direction == "gradient", self.eligible == "theorem3",
                _NO_VOTER if self.reuse_voters else self.history[-1].support)
            return k, math.ldexp(alpha, shift), decrease, None
        c, ids = self._next_scores()
        j = c.exhaustive_pick if self.direction == "exhaustive" else c.gradient_pick
        whole = c if ids is None else None
        if j < 0:
            return -1, 0.0, 0.0, whole
        return (j if ids is None else int(ids[j])), float(c.alpha[j]), float(c.decrease[j]), whole

    def _advance(self):
        if not self.history:
            k = _first_argmax(np.where(self._gamma_h > 0, self._gamma_h, -np.inf))
            if k < 0:
                self.stop_reason = ("no voter has a positive margin on the training data: "
                                    "the C-bound cannot go below 1")
                return None
            self._add(k, 1.0)
            return k, 1.0, {"reused": False}
        k, alpha, predicted, c = self._choose()
        if k < 0:
            # one more H^T F when the scores covered only part of the pool
            self.stop_reason = stop_reason(c if c is not None else self.candidates())
            return None
        support = np.union1d(self.history[-1].support, [k])
        reach = float(np.max(np.abs(self.F + alpha * self.H.column(k))))   # F after the step
        total = float(self._a[support].sum()) + alpha
        if reach < _MARGIN_FLOOR * total:
            self.stop_reason = (
                f"the next step (voter {k}, weight {alpha:.6g}) would leave every margin of the "
                f"vote below {_MARGIN_FLOOR:.3g} in magnitude (largest {reach / total:.3g}), "
                "where the rounding of subnormal floats is no longer negligible: its C-bound "
                "could not be computed to round-off")
            return None
        before = self.history[-1].c_bound
        reused = bool(self._a[k] > 0)
        self._add(k, alpha)
        _, shift, gamma_G, nu_G = self._normalized(self.F)
        after = bounds.c_bound(gamma_G, nu_G, scale=self._scale(self._a, support, shift))
        extra = {"predicted_decrease": predicted, "actual_decrease": before - after,
                 "reused": reused}
        if self.keep_candidates:
            extra["candidates"] = c
        return k, alpha, extra

    def direction_curve(self, iteration=None, index=None, n_points=201):
        """C-bound along voter ``index``'s weight increase, from the vote before ``iteration``.

        Defaults: the last iteration and the voter it chose; so the curve's minimum is the
        step that iteration took (Theorem 3).  ``alpha_star`` is None when the run's rule
        does not admit the voter or no finite step lowers the C-bound.
        """
        if not self.history:
            raise ParameterError("no vote yet")
        it = len(self.history) if iteration is None else iteration
        self._position(it)
        if it == 1:
            raise ParameterError("iteration 1 starts the vote with one voter; "
                                 "the one-direction curve exists from iteration 2")
        k = self.history[it - 1].index if index is None else int(index)
        a = self.weights_at(it - 1)
        G, shift, gamma_G, nu_G = self._normalized(self.H.matvec(a))
        tau = float(G @ self._S.column(k)) / self.y.size
        c = _scores(self._gamma_h[k:k + 1], self._nu_h[k:k + 1], np.array([tau]), gamma_G, nu_G,
                    np.array([a[k] > 0]), self.eligible, self.reuse_voters, shift)
        star = float(c.alpha[0]) if c.valid[0] else None
        top = 3.0 * star if star else 2.0 * float(a.sum())
        alphas = np.linspace(0.0, top, n_points)
        moments = (gamma_G, nu_G, self._gamma_h[k], self._nu_h[k], tau)
        scale = self._scale(a, np.flatnonzero(a), shift)

        def c_along(alpha):   # C(F + alpha h) = C(G + alpha 2^-shift h / 2^p)
            return one_direction_c_bound(np.ldexp(alpha, -shift), *moments, scale=scale)
        return DirectionCurve(index=k, label=None if self.describe is None else self.describe(k),
                              alphas=alphas, c_values=np.asarray(c_along(alphas)),
                              alpha_star=star,
                              c_star=None if star is None else float(c_along(star)),
                              c_now=float(bounds.c_bound(gamma_G, nu_G, scale=scale)))


class CBBoost:
    """CB-Boost stepper factory.

    Parameters
    ----------
    max_iter : int
        Maximum number of steps (without ``reuse_voters``: voters in the vote).
    direction : {"exhaustive", "gradient"}
        Exhaustive: largest exact C-bound decrease (CB-Boost). Gradient: steepest descent
        direction with the same closed-form step (GB-CB-Boost).
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    keep_candidates : bool
        Store every candidate's scores in each record (O(n) memory per step).
    eligible : {"theorem3", "all"}
        Voters a step may move: those with ``gamma(h) > 0`` (Theorem 3's hypothesis, the
        paper's rule) or every voter whose weight can grow to an exact C-bound decrease.
    reuse_voters : bool
        Let a voter already in the vote be chosen again: its weight grows by the same
        closed-form step (the authors' code's ``twice_the_same``).  Weights only grow, so
        such runs may creep on for many steps.  Each record's ``extra["reused"]`` says
        whether its voter was already in the vote.

    A run stops at ``max_iter`` or when no voter its rule admits lowers the C-bound by more
    than round-off; :func:`stop_reason` then names the rule and counts the voters each wider
    rule could still move.
    """

    def __init__(self, max_iter=100, direction="exhaustive", delta=0.05, keep_candidates=False,
                 eligible="theorem3", reuse_voters=False):
        self.max_iter = check_int("max_iter", max_iter)
        if direction not in DIRECTIONS:
            raise ParameterError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.delta = check_delta(delta)
        self.keep_candidates = bool(keep_candidates)
        self.eligible, self.reuse_voters = _check_rule(eligible, reuse_voters)

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}.

        ``describe(k)`` names voter ``k`` in the records (e.g. ``pool.describe``).
        """
        return CBBoostRun(H, y, H_test, y_test, max_iter=self.max_iter, direction=self.direction,
                          delta=self.delta, keep_candidates=self.keep_candidates,
                          describe=describe, eligible=self.eligible,
                          reuse_voters=self.reuse_voters)


def lockstep(H, y, max_iter=50, H_test=None, y_test=None, describe=None, delta=0.05,
             eligible="theorem3", reuse_voters=False):
    """Run the exhaustive and gradient rules side by side from the same start.

    Both runs use the same ``eligible`` / ``reuse_voters`` rule.  Returns
    ``(exhaustive_run, gradient_run, table)`` where the table has one row per
    iteration: both choices, whether they agree, the choice the gradient rule would make
    from the exhaustive run's own vote, and both C-bounds.
    """
    # only the exhaustive run keeps its candidates: they give the gradient pick from its vote
    runs = {d: CBBoost(max_iter, d, delta, keep_candidates=d == "exhaustive", eligible=eligible,
                       reuse_voters=reuse_voters).start(H, y, H_test, y_test, describe)
            for d in DIRECTIONS}
    for run in runs.values():
        run.run()
    ex, gr = runs["exhaustive"], runs["gradient"]
    rows = []
    for i in range(max(len(ex.history), len(gr.history))):
        e = ex.history[i] if i < len(ex.history) else None
        g = gr.history[i] if i < len(gr.history) else None
        same_state = None if e is None or e.candidates is None else e.candidates.gradient_pick
        rows.append({
            "iteration": i + 1,
            "exhaustive_index": None if e is None else e.index,
            "exhaustive_label": None if e is None else e.label,
            "gradient_index": None if g is None else g.index,
            "gradient_label": None if g is None else g.label,
            "agree": e is not None and g is not None and e.index == g.index,
            "gradient_from_exhaustive_state": same_state,
            "exhaustive_c_bound": None if e is None else e.c_bound,
            "gradient_c_bound": None if g is None else g.c_bound,
        })
    return ex, gr, pd.DataFrame(rows)


def pick_correlations(run):
    """Both rules' picks from the same votes of a run kept with ``keep_candidates=True``.

    One row per iteration t >= 2: the voter the run took (``exhaustive`` for the exhaustive
    rule), the voter the gradient rule would have taken from the same vote, whether they
    differ, each pick's exact C-bound decrease, and each pick's correlation with the vote,
    ``rho(h) = tau(F, h) / sqrt(nu(F) nu(h))`` (the cosine of h and F on the sample).  The
    exhaustive score is ``g^2 / (nu(F)^2 nu(h) (1 - rho^2))`` with ``g = gamma(h) nu(F) -
    gamma(F) tau(F, h)`` the gradient rule's score,
    so it favours voters correlated with the vote.
    """
    rows = []
    m = run.y.size
    for rec in run.history[1:]:
        c = rec.candidates
        if c is None:
            raise ParameterError("the run kept no candidates: start it with keep_candidates=True")
        # the cosine is scale-free: from the scaled vote and pool (scaled arithmetic)
        F = run._normalized(run.H.matvec(run.weights_at(rec.iteration - 1)))[0]
        nu_F = float(F @ F) / m
        row = {"iteration": rec.iteration}
        for rule, k in (("exhaustive", c.exhaustive_pick), ("gradient", c.gradient_pick)):
            if k < 0:
                row.update({f"{rule}_index": None, f"{rule}_decrease": np.nan,
                            f"{rule}_correlation": np.nan})
                continue
            h = run._S.column(k)
            tau, nu_h = float(F @ h) / m, float(h @ h) / m
            row.update({f"{rule}_index": int(k), f"{rule}_decrease": float(c.decrease[k]),
                        f"{rule}_correlation": tau / np.sqrt(nu_F * nu_h)})
        row["differ"] = row["exhaustive_index"] != row["gradient_index"]
        rows.append(row)
    return pd.DataFrame(rows)
