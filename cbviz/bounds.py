"""Margins, moments, the C-bound, KL divergences and PAC-Bayesian bounds.

Every function is pure and vectorized.  Notation (DESIGN.md, formula sheet): a vote
``F = H a`` with non-negative weights ``a``, posterior ``Q = a / sum(a)``, margin of
example ``i`` ``M_i = y_i F_i / sum(a)``; ``mu1 = mean(M)``, ``mu2 = mean(M**2)``.
For voters with values in {-1, +1}: Gibbs risk ``r = (1 - mu1) / 2``, expected
disagreement ``d = (1 - mu2) / 2`` and joint error ``e = mean(((1 - M) / 2)**2) = r - d/2``.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import gammaln, logsumexp

__all__ = [
    "margins", "moments", "vote_scale", "c_bound", "c_bound_of_margins", "c_bound_from_risks",
    "c_bound_joint",
    "gibbs_risk", "disagreement", "joint_error", "kl_uniform", "kl_binary",
    "kl_sup", "kl_inf", "log_xi", "first_order_bound", "pac_bound_1", "PAC_BOUNDS", "tightest",
    "tightest_phrase",
    "cqboost_c_bound", "tandem_bound", "bound_panel",
]


def margins(F, y, total=None):
    """Normalized margins ``y_i F_i / sum(a)`` of a vote ``F = H a``.

    ``total`` is ``sum(a)``; when omitted ``F`` is taken as already normalized.
    """
    F = np.asarray(F, dtype=float)
    scale = 1.0 if total is None else float(total)
    return np.asarray(y, dtype=float) * F / scale


# A first moment at most ROUNDOFF_MU1 times the scale of the vote is zero up to round-off.
# The scale (:func:`vote_scale`) is the mean |margin| the vote would have if its voters never
# cancelled, ``sum_k a_k rms(h_k)`` (``rms(h) = sqrt(mean(h^2)) >= mean(|h|)``), divided by
# ``sum(a)`` for normalized margins: 1 for +-1 voters, at most 1 for voters in [-1, 1], and
# scaled with the outputs (it is relative, so a vote of voters with outputs ~1e-14 keeps its
# first moment ~1e-14).  Each F_i sums n terms a_k h_k(x_i); blocked or pairwise summation
# leaves an error of order sqrt(n) eps times sum_k a_k |h_k(x_i)|, so 64 eps covers pools of
# thousands of voters.  A vote whose first moment is below it is indistinguishable from the
# identically-zero vote (e.g. the uniform vote over a self-complemented pool), and
# 1 - mu1**2 / mu2 of two round-off residues is noise, not a C-bound.
ROUNDOFF_MU1 = 64 * np.finfo(float).eps


def vote_scale(a, col_sq_sums, m):
    """Scale of the vote ``F = H a`` for the round-off test: ``sum_k a_k rms(h_k)``.

    ``a`` are the (support's) weights, ``col_sq_sums`` the matching ``sum_i h_k(x_i)^2``,
    ``m`` the number of examples; divide by ``sum(a)`` for normalized margins.  It bounds
    ``mean_i sum_k a_k |h_k(x_i)|`` (Cauchy-Schwarz), the size of the terms F sums.  For
    outputs below ~1e-154 the squares underflow and it is 0: no first moment then counts as
    round-off except an exact 0.
    """
    return float(np.sqrt(np.asarray(col_sq_sums, dtype=float) / m) @ np.asarray(a, dtype=float))


def _zero_if_roundoff(mu1, scale=1.0):
    """``mu1`` with values within ``ROUNDOFF_MU1`` ``* scale`` of zero set to exactly 0."""
    mu1 = np.asarray(mu1, dtype=float)
    return np.where(np.abs(mu1) <= ROUNDOFF_MU1 * np.asarray(scale, dtype=float), 0.0, mu1)


def moments(M, scale=1.0):
    """First and second moments ``(mu1, mu2)`` of the margins (CB-Boost paper, Defs. 5-6).

    ``M`` are normalized margins; a first moment within ``ROUNDOFF_MU1`` ``* scale`` of
    zero is returned as 0.  ``scale`` is the vote's scale (:func:`vote_scale` over
    ``sum(a)``): the default 1 is that of +-1 voters, the largest for voters in [-1, 1].
    """
    M = np.asarray(M, dtype=float)
    return float(_zero_if_roundoff(M.mean(), scale)), float(np.mean(M * M))


def c_bound(mu1, mu2, scale=1.0):
    """Empirical C-bound ``1 - mu1**2 / mu2`` (Lacasse et al. 2006; CB-Boost paper, Def. 7).

    Defined only when ``mu1 > 0`` and ``mu2 > 0``; returns 1 otherwise (the bound says
    nothing).  ``scale`` is the vote's scale (:func:`vote_scale`): 1 for normalized margins of
    +-1 voters, ``sum_k a_k rms(h_k)`` for the moments ``gamma(F), nu(F)`` of an unnormalized
    vote ``F = H a``; a ``mu1`` within ``ROUNDOFF_MU1`` ``* scale`` of zero counts as 0
    (the vote is zero up to round-off).
    """
    mu1 = _zero_if_roundoff(mu1, scale)
    mu2 = np.asarray(mu2, dtype=float)
    ok = (mu1 > 0) & (mu2 > 0)
    out = np.where(ok, 1.0 - mu1**2 / np.where(ok, mu2, 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


def c_bound_of_margins(M, scale=1.0):
    """Empirical C-bound of the margins ``M`` (:func:`c_bound` of their moments).

    The C-bound is scale-free, so it is computed from ``M`` and ``scale`` divided by the power
    of two that brings ``max |M|`` into [1/2, 1): exact, and the second moment of tiny margins
    (below ~1e-154) does not underflow to 0.  All-zero margins give 1.
    """
    M = np.asarray(M, dtype=float)
    top = float(np.max(np.abs(M))) if M.size else 0.0
    e = math.frexp(top)[1] if 0.0 < top < math.inf else 0
    M, scale = np.ldexp(M, -e), np.ldexp(scale, -e)
    return float(c_bound(*moments(M, scale), scale=scale))


def c_bound_from_risks(r, d):
    """C-bound from Gibbs risk and disagreement, ``1 - (1 - 2r)**2 / (1 - 2d)``.

    (Lacasse et al. 2006; Germain et al. JMLR 2015); equals :func:`c_bound` with
    ``mu1 = 1 - 2r``, ``mu2 = 1 - 2d``.
    """
    return c_bound(1.0 - 2.0 * np.asarray(r, float), 1.0 - 2.0 * np.asarray(d, float))


def c_bound_joint(e, r):
    """C-bound in joint-error form ``(e - r**2) / (e - r + 1/4)`` (Masegosa et al. 2020).

    Equal to the moment form when ``r < 1/2`` (``mu1 = 1 - 2r > 0``, zero up to round-off
    as in :func:`c_bound`); returns 1 otherwise.
    """
    e = np.asarray(e, dtype=float)
    r = np.asarray(r, dtype=float)
    den = e - r + 0.25
    ok = (_zero_if_roundoff(1.0 - 2.0 * r) > 0) & (den > 0)
    out = np.where(ok, (e - r**2) / np.where(ok, den, 1.0), 1.0)
    return float(out) if out.ndim == 0 else out


def gibbs_risk(M):
    """Gibbs risk (linear loss) ``mean((1 - M) / 2)``; for +-1 voters ``E_Q P(h(x) != y)``."""
    return float(np.mean((1.0 - np.asarray(M, float)) / 2.0))


def disagreement(M):
    """Expected disagreement ``(1 - mu2) / 2``; for +-1 voters ``E_x E_{h,h'~Q} P(h(x) != h'(x))``."""
    return float((1.0 - np.mean(np.asarray(M, float) ** 2)) / 2.0)


def joint_error(M):
    """Joint error ``mean(((1 - M) / 2)**2)``; for +-1 voters ``E_{h,h'} P(h(x) != y, h'(x) != y)``."""
    return float(np.mean(((1.0 - np.asarray(M, float)) / 2.0) ** 2))


def kl_uniform(q, n=None):
    """``KL(Q || P)`` for the uniform prior P over n voters: ``ln n + sum q ln q``.

    ``q`` are non-negative weights (normalized here).  With ``n`` given, ``q`` holds only
    the non-zero weights of a vector over ``n`` voters.
    """
    q = np.asarray(q, dtype=float)
    n = q.size if n is None else int(n)
    q = q / q.sum()
    nz = q[q > 0]
    return float(max(0.0, np.log(n) + np.sum(nz * np.log(nz))))


def kl_binary(q, p):
    """Binary KL divergence ``kl(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))`` (0 ln 0 = 0)."""
    q = np.clip(np.asarray(q, dtype=float), 0.0, 1.0)
    p = np.clip(np.asarray(p, dtype=float), 1e-300, 1.0 - 1e-16)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(q > 0, q * np.log(q / p), 0.0)
        b = np.where(q < 1, (1 - q) * np.log((1 - q) / (1 - p)), 0.0)
    out = a + b
    return float(out) if out.ndim == 0 else out


def _kl_scalar(q, p):
    p = min(max(p, 1e-300), 1.0 - 1e-16)
    a = q * math.log(q / p) if q > 0 else 0.0
    b = (1 - q) * math.log((1 - q) / (1 - p)) if q < 1 else 0.0
    return a + b


def _bisect(q, bound, upper, iters=64):
    """Bisection for ``kl(q || p) = bound`` on ``p`` in [q, 1] (upper) or [0, q] (lower)."""
    q = np.clip(np.asarray(q, dtype=float), 0.0, 1.0)
    bound = np.asarray(bound, dtype=float)
    if q.ndim == 0 and bound.ndim == 0:  # scalar fast path: plain floats, no array overhead
        qf, bf = float(q), float(bound)
        lo, hi = (qf, 1.0) if upper else (0.0, qf)
        for _ in range(iters):
            mid = (lo + hi) / 2.0
            if (_kl_scalar(qf, mid) <= bf) == upper:
                lo = mid
            else:
                hi = mid
        return lo if upper else hi
    q, bound = np.broadcast_arrays(q, bound)
    lo, hi = (q.copy(), np.ones_like(q)) if upper else (np.zeros_like(q), q.copy())
    for _ in range(iters):
        mid = (lo + hi) / 2.0
        move_lo = (kl_binary(q, mid) <= bound) == upper
        lo, hi = np.where(move_lo, mid, lo), np.where(move_lo, hi, mid)
    return lo if upper else hi


def kl_sup(q, bound):
    """Upper inversion ``max {p in [q, 1] : kl(q || p) <= bound}`` by bisection (64 halvings)."""
    return _bisect(q, bound, upper=True)


def kl_inf(q, bound):
    """Lower inversion ``min {p in [0, q] : kl(q || p) <= bound}`` by bisection (64 halvings)."""
    return _bisect(q, bound, upper=False)


@lru_cache(maxsize=64)
def log_xi(m):
    """``ln xi(m)``, ``xi(m) = sum_k C(m,k) (k/m)^k (1-k/m)^(m-k)`` (Maurer 2004), in log space.

    ``sqrt(m) <= xi(m) <= 2 sqrt(m)``.
    """
    m = int(m)
    k = np.arange(m + 1, dtype=float)
    p = k / m
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (gammaln(m + 1) - gammaln(k + 1) - gammaln(m - k + 1)
                 + np.where(k > 0, k * np.log(np.where(p > 0, p, 1.0)), 0.0)
                 + np.where(k < m, (m - k) * np.log(np.where(p < 1, 1 - p, 1.0)), 0.0))
    return float(logsumexp(terms))


def first_order_bound(r, kl, m, delta=0.05):
    """PAC-Bound 0 (Germain et al. JMLR 2015): ``2 min(1/2, kl_sup(r, [KL + ln(xi(m)/delta)] / m))``."""
    eps = (kl + log_xi(m) - np.log(delta)) / m
    return float(2.0 * min(0.5, kl_sup(r, eps)))


def pac_bound_1(r, d, kl, m, delta=0.05):
    """PAC-Bound 1 (Germain et al. JMLR 2015): C-bound of an upper bound on r and a lower bound on d.

    ``R = min(1/2, kl_sup(r, [KL + ln(2 xi(m)/delta)]/m))``,
    ``D = kl_inf(d, [2 KL + ln(2 xi(m)/delta)]/m)``, bound ``= 1 - (1-2R)^2 / (1-2D)``.
    """
    log_term = np.log(2.0) + log_xi(m) - np.log(delta)
    R = min(0.5, kl_sup(r, (kl + log_term) / m))
    D = kl_inf(d, (2.0 * kl + log_term) / m)
    return float(min(1.0, c_bound_from_risks(R, D)))


def cqboost_c_bound(mu1, mu2, kl, m, delta=0.05):
    """PAC-Bayesian C-bound of Roy et al. (2016), Theorem 2 (CB-Boost paper, Theorem 2).

    ``1 - max(0, mu1 - eps1)**2 / min(1, mu2 + eps2)`` with
    ``eps1 = sqrt(2/m (KL + ln(2 sqrt(m) / (delta/2))))`` and
    ``eps2 = sqrt(2/m (2 KL + ln(2 sqrt(m) / (delta/2))))``.
    """
    log_term = np.log(2.0 * np.sqrt(m) / (delta / 2.0))
    eps1 = np.sqrt(2.0 / m * (kl + log_term))
    eps2 = np.sqrt(2.0 / m * (2.0 * kl + log_term))
    low = max(0.0, mu1 - eps1)
    high = min(1.0, mu2 + eps2)
    return float(1.0 - low**2 / high) if high > 0 else 1.0


def tandem_bound(e, kl, m, delta=0.05):
    """Tandem (joint-error) bound of Masegosa et al. (NeurIPS 2020), in its kl form.

    ``4 min(1/4, kl_sup(e, [2 KL + ln(2 sqrt(m)/delta)] / m))``.
    """
    eps = (2.0 * kl + np.log(2.0 * np.sqrt(m) / delta)) / m
    return float(4.0 * min(0.25, kl_sup(e, eps)))


# the four PAC-Bayesian bounds of the panel: record field -> name with its source
PAC_BOUNDS = {
    "pac_bound": "PAC-Bayes C-bound (Roy et al. 2016, Thm 2)",
    "first_order_bound": "first-order bound, PAC-Bound 0 (Germain et al. 2015)",
    "pac_bound_1": "PAC-Bound 1 (Germain et al. 2015)",
    "tandem_bound": "tandem bound (Masegosa et al. 2020)",
}


def tightest(values):
    """``(field, value)`` of the smallest of the :data:`PAC_BOUNDS` in ``values`` (a mapping or
    an object with those attributes); ties go to the first listed."""
    get = values.get if isinstance(values, dict) else (lambda k: getattr(values, k))
    return min(((k, float(get(k))) for k in PAC_BOUNDS), key=lambda kv: kv[1])


def tightest_phrase(values, digits=4):
    """The tightest PAC-Bayes bound in words ("NAME = value"), or, when every bound of
    :data:`PAC_BOUNDS` is 1 or more, that they are all vacuous (a risk bound of 1 says nothing)."""
    key, value = tightest(values)
    if value >= 1.0:
        return "every PAC-Bayes bound is 1 or more: all four are vacuous here"
    return f"tightest PAC-Bayes bound: {PAC_BOUNDS[key]} = {value:.{digits}f}"


def bound_panel(M, kl, delta=0.05, scale=1.0):
    """All the bounds of the panel for margins ``M`` (one per training example) and ``KL(Q||P)``.

    Returns a dict with the empirical quantities (mu1, mu2, gibbs_risk, disagreement,
    joint_error, c_bound) and the four PAC-Bayesian bounds (first_order_bound,
    pac_bound_1, pac_bound = Roy et al. 2016 Theorem 2, tandem_bound).  ``scale`` is the
    vote's scale for the round-off test of the first moment (:func:`moments`); the C-bound
    is :func:`c_bound_of_margins` (exact for tiny margins, whose mu2 may underflow to 0).
    """
    if not 0.0 < delta <= 1.0:
        raise ValueError(f"delta must be in (0, 1], got {delta}")
    M = np.asarray(M, dtype=float)
    m = M.size
    mu1, mu2 = moments(M, scale)
    r, d, e = gibbs_risk(M), disagreement(M), joint_error(M)
    return {
        "mu1": mu1, "mu2": mu2, "gibbs_risk": r, "disagreement": d, "joint_error": e,
        "c_bound": c_bound_of_margins(M, scale),
        "first_order_bound": first_order_bound(r, kl, m, delta),
        "pac_bound_1": pac_bound_1(r, d, kl, m, delta),
        "pac_bound": cqboost_c_bound(mu1, mu2, kl, m, delta),
        "tandem_bound": tandem_bound(e, kl, m, delta),
    }
