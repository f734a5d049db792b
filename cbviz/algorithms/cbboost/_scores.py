"""CB-Boost's closed forms for every candidate voter: the Theorem 3 weight, the Property 1
decrease and the gradient rate (:func:`score_candidates`), the rules that admit a voter, and the words
a run stops with (:func:`stop_reason`).  The math is in :mod:`cbviz.algorithms.cbboost`'s
docstring."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import bounds
from ...voters import as_operator
from ..base import Candidates

__all__ = ["CBBoostCandidates", "one_direction_c_bound", "stop_reason"]

DIRECTIONS = ("exhaustive", "gradient")
ELIGIBLE = ("theorem3", "all")
RTOL = 1e-12  # relative size below which a numerator or denominator counts as zero
# The C-bound is computed to a few eps (it lies in [0, 1]): a smaller decrease is round-off
# (e.g. along the complement of a voter whose weight is already optimal).
MIN_DECREASE = 64 * np.finfo(float).eps
TIE_RTOL = 1e-12  # base._first_argmax's window: voters identical on the sample tie exactly
# a pool whose every column has sum_i h(x_i)^2 below this (outputs below ~2^-256) is scored on
# a copy scaled by a power of two: its moments' products would underflow
_TINY_POOL = 2.0 ** -512


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


def scoring_pool(H):
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


def score_candidates(gamma_h, nu_h, tau, gamma_F, nu_F, in_vote, eligible="theorem3",
            reuse_voters=False, shift=0):
    """Theorem 3 weight, Property 1 decrease and gradient rate for every candidate.

    Exact for any sign of ``gamma(h)`` (module docstring); ``valid`` applies the rule
    ``eligible`` / ``reuse_voters``.  A decrease below ``MIN_DECREASE`` counts as none.
    With moments of ``F / 2^e`` and voters ``h / 2^p`` (scaled arithmetic, module docstring),
    ``shift = e - p`` returns ``alpha`` and ``gradient`` for ``F`` and ``h`` themselves.
    """
    numer = gamma_h * nu_F - gamma_F * tau
    denom = gamma_F * nu_h - gamma_h * tau
    gap = nu_F * nu_h - tau**2  # >= 0 by Cauchy-Schwarz; 0 when h is collinear with F
    rising = denom > RTOL * (np.abs(gamma_F) * nu_h + np.abs(gamma_h * tau))
    numer_pos = numer > RTOL * (np.abs(gamma_h) * nu_F + np.abs(gamma_F * tau))
    finite = numer_pos & rising & (gap > 0)
    theorem3 = gamma_h > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        decrease = np.where(finite, numer**2 / (nu_F * gap), 0.0)
        lowers = decrease > MIN_DECREASE
        best_alpha = np.where(lowers, numer / denom, 0.0)
        # C tends to C(h) as alpha grows without bound: below C(F) by limit_gain
        limit_gain = np.where(theorem3, gamma_h**2 / nu_h, 0.0) - gamma_F * gamma_F / nu_F
    best_decrease = np.where(lowers, decrease, 0.0)
    # denom <= 0: numer - alpha denom never decreases, so R' changes sign at most once, from
    # - to +: no finite maximum of R beyond alpha = 0, only its limit at infinity
    unbounded = theorem3 & ~rising & (limit_gain > MIN_DECREASE)
    valid = lowers & _admissible(theorem3, in_vote, eligible, reuse_voters)
    # -dC/da_k at the current a_k; products, not pow(): exactly homogeneous (scaled arithmetic)
    gradient = np.ldexp(2.0 * gamma_F * numer / (nu_F * nu_F), -shift)
    best_alpha = np.ldexp(best_alpha, shift)
    return CBBoostCandidates(
        gradient=gradient, decrease=np.where(valid, best_decrease, 0.0),
        alpha=np.where(valid, best_alpha, 0.0), valid=valid, best_alpha=best_alpha,
        best_decrease=best_decrease, theorem3=theorem3, in_vote=np.asarray(in_vote, bool),
        unbounded=unbounded, eligible=eligible, reuse_voters=reuse_voters)


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
