"""The C-bound explorer's mathematics: the (r, d) plane, a toy vote of three voters, and the
PAC-Bayesian bounds as functions of the sample size.

Pure NumPy on top of :mod:`cbviz.bounds`; the page ``app_pages/cbound_explorer.py`` and
the figures of :mod:`cbviz.plots.explorer` only draw what these functions return.

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
    "trajectory", "ToySummary", "toy_wrong", "toy_summary", "toy_preset", "TOY_PRESETS",
    "toy_story", "pac_bound_value", "bound_limit", "m_grid", "bounds_vs_m", "examples_needed",
]

# coordinates of the plane: name -> (x axis title, y axis title)
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


# ---------------------------------------------------------------- a vote of a few voters

@dataclasses.dataclass(frozen=True)
class ToySummary:
    """The uniform majority vote of voters with outputs +-1 on ``m`` examples.

    ``wrong[j, i]``: voter j errs on example i.  The vote errs where at least half of the
    voters err (its margin ``1 - 2 k_i / n`` is <= 0, k_i wrong voters of n; a tie counts as an
    error, as in the C-bound's event M <= 0).  The moments are those of the uniform Q.
    """

    wrong: np.ndarray
    voter_errors: np.ndarray
    wrong_count: np.ndarray
    majority_wrong: np.ndarray
    majority_error: float
    gibbs_risk: float
    disagreement: float
    joint_error: float
    mu1: float
    mu2: float
    c_bound: float

    @property
    def first_order(self):
        """The first-order bound 2r on the vote's error."""
        return 2.0 * self.gibbs_risk

    @property
    def threshold(self):
        """The number of wrong voters from which the vote errs: ceil(n / 2)."""
        return math.ceil(self.wrong.shape[0] / 2)


def toy_wrong(errors, m):
    """The ``(n_voters, m)`` boolean matrix of ``errors`` (per voter, the 0-based indices of the
    examples it gets wrong)."""
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    if len(errors) < 1:
        raise ValueError("at least one voter is needed")
    wrong = np.zeros((len(errors), int(m)), dtype=bool)
    for j, idx in enumerate(errors):
        idx = np.asarray(list(idx), dtype=int)
        if idx.size and (idx.min() < 0 or idx.max() >= m):
            raise ValueError(f"voter {j + 1}: example indices must be in [0, {m - 1}], got "
                             f"{sorted(idx.tolist())}")
        wrong[j, idx] = True
    return wrong


def toy_summary(wrong):
    """Errors of each voter and of their uniform majority vote, r, d, e and the C-bound.

    The margins ``M_i = 1 - 2 k_i / n`` go through :mod:`cbviz.bounds`, as for any run.
    """
    wrong = np.asarray(wrong, dtype=bool)
    if wrong.ndim != 2 or 0 in wrong.shape:
        raise ValueError(f"wrong must be a non-empty (voters, examples) matrix, got shape "
                         f"{wrong.shape}")
    n = wrong.shape[0]
    k = wrong.sum(axis=0)
    M = 1.0 - 2.0 * k / n
    mu1, mu2 = bounds.moments(M)
    return ToySummary(
        wrong=wrong, voter_errors=wrong.mean(axis=1), wrong_count=k, majority_wrong=M <= 0,
        majority_error=float(np.mean(M <= 0)), gibbs_risk=bounds.gibbs_risk(M),
        disagreement=bounds.disagreement(M), joint_error=bounds.joint_error(M), mu1=mu1,
        mu2=mu2, c_bound=bounds.c_bound(mu1, mu2))


TOY_PRESETS = {
    "different": "errors on different examples",
    "same": "errors on the same examples",
    "random": "random",
}


def toy_preset(name, m=10, n_voters=3, n_errors=3, seed=0):
    """Per voter, the 0-based examples it gets wrong; each voter errs on ``n_errors`` examples.

    ``"different"``: voter j errs on examples ``j * n_errors ...`` (no two voters share an
    error; needs ``n_voters * n_errors <= m``); ``"same"``: every voter errs on the first
    ``n_errors``; ``"random"``: each voter on ``n_errors`` examples drawn without replacement
    by ``numpy.random.default_rng(seed)``.
    """
    if name not in TOY_PRESETS:
        raise ValueError(f"preset must be one of {list(TOY_PRESETS)}, got {name!r}")
    if not 0 <= n_errors <= m:
        raise ValueError(f"n_errors must be in [0, m = {m}], got {n_errors}")
    if name == "different":
        if n_voters * n_errors > m:
            raise ValueError(f"{n_voters} voters with {n_errors} errors each do not fit on "
                             f"{m} distinct examples")
        return [list(range(j * n_errors, (j + 1) * n_errors)) for j in range(n_voters)]
    if name == "same":
        return [list(range(n_errors)) for _ in range(n_voters)]
    rng = np.random.default_rng(seed)
    return [sorted(rng.choice(m, size=n_errors, replace=False).tolist()) for _ in range(n_voters)]


def _examples(idx):
    """1-based example numbers in words."""
    idx = [int(i) + 1 for i in idx]
    word = "example" if len(idx) == 1 else "examples"
    return f"{word} {', '.join(map(str, idx))}"


def toy_story(s):
    """What happens in the toy vote ``s`` (a :class:`ToySummary`), in sentences (markdown)."""
    n, m = s.wrong.shape
    bad = np.flatnonzero(s.majority_wrong)
    text = (f"The majority vote errs where at least {s.threshold} of the {n} voters err: "
            + (f"{_examples(bad)} ({bad.size} of {m})." if bad.size
               else f"nowhere (no example has {s.threshold} wrong voters)."))
    best = int(np.argmin(s.voter_errors))
    best_err = float(s.voter_errors[best])
    k = s.wrong_count
    outvoted = int(k[k < s.threshold].sum())
    total = int(k.sum())
    if s.majority_error < best_err:
        text += (f" It **beats every voter** (the best errs on {best_err:.0%}): {outvoted} of "
                 f"the voters' {total} errors fall on examples where most voters are right, "
                 "and are outvoted.")
    elif s.majority_error == best_err:
        text += f" **No gain**: the vote errs as often as the best voter ({best_err:.0%})."
        if (s.wrong == s.wrong[0]).all():
            text += (" The voters err on the same examples, so they never disagree (d = 0) and "
                     "the vote is one voter repeated.")
    else:
        lost = np.flatnonzero(s.majority_wrong & ~s.wrong[best])
        text += (f" It is **worse than the best voter** (voter {best + 1}, {best_err:.0%}): on "
                 f"{_examples(lost)} that voter is right but outvoted.")
    r, d = s.gibbs_risk, s.disagreement
    if s.mu1 <= 0:
        text += (f" Here r = {r:.3f} ≥ 1/2 (μ₁ ≤ 0): the C-bound says nothing (reported as 1); "
                 f"2r = {2 * r:.3f}.")
        return text
    text += (f" C-bound {s.c_bound:.3f} ≥ the vote's error {s.majority_error:.3f} (it holds on "
             f"these {m} examples: the CB-Boost paper's Corollary 1); 2r = {2 * r:.3f}. ")
    if math.isclose(d, r, rel_tol=1e-9, abs_tol=1e-12):
        text += f"d = r = {r:.3f}, so C = 2r."
    elif d > r:
        text += f"d = {d:.3f} > r = {r:.3f}, so C < 2r: the disagreement pays."
    else:
        text += f"d = {d:.3f} < r = {r:.3f}, so C > 2r: too little disagreement."
    return text


# ---------------------------------------------------------------- PAC-Bayes bounds against m

def _check_pac(r, d, kl, delta):
    check_point(r, d)
    if not (np.isfinite(kl) and kl >= 0):
        raise ValueError(f"KL(Q‖P) must be a finite number of nats >= 0, got {kl!r}")
    if not 0.0 < delta <= 1.0:
        raise ValueError(f"δ must be in (0, 1], got {delta!r}")


def _pac(key, r, d, kl, m, delta):
    mu1, mu2 = 1.0 - 2.0 * r, 1.0 - 2.0 * d
    if key == "first_order_bound":
        return bounds.first_order_bound(r, kl, m, delta)
    if key == "pac_bound_1":
        return bounds.pac_bound_1(r, d, kl, m, delta)
    if key == "pac_bound":
        return bounds.cqboost_c_bound(mu1, mu2, kl, m, delta)
    if key == "tandem_bound":
        return bounds.tandem_bound(r - d / 2.0, kl, m, delta)
    raise ValueError(f"bound must be one of {list(bounds.PAC_BOUNDS)}, got {key!r}")


def pac_bound_value(key, r, d, kl, m, delta=0.05):
    """Bound ``key`` (a :data:`cbviz.bounds.PAC_BOUNDS` name) for empirical r, d on m examples.

    mu1 = 1 - 2r, mu2 = 1 - 2d and the joint error e = r - d/2 (+-1 voters) are passed to
    the functions of :mod:`cbviz.bounds`.
    """
    _check_pac(r, d, kl, delta)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer, got {m!r}")
    return _pac(key, float(r), float(d), float(kl), int(m), float(delta))


def bound_limit(key, r, d):
    """What bound ``key`` tends to as m grows (its deviation terms vanish).

    First-order: 2r; PAC-Bound 1 and Roy et al.'s Theorem 2: the C-bound of (r, d);
    tandem: 4e = 4(r - d/2), each clipped at 1 as the bound is.
    """
    check_point(r, d)
    r, d = float(r), float(d)
    limits = {
        "first_order_bound": min(1.0, 2.0 * r),
        "pac_bound_1": min(1.0, bounds.c_bound_from_risks(r, d)),
        "pac_bound": bounds.c_bound(1.0 - 2.0 * r, 1.0 - 2.0 * d),
        "tandem_bound": 4.0 * min(0.25, r - d / 2.0),
    }
    if key not in limits:
        raise ValueError(f"bound must be one of {list(bounds.PAC_BOUNDS)}, got {key!r}")
    return float(limits[key])


def m_grid(m_min=10, m_max=100_000, n=61):
    """Distinct integers, about evenly spaced on a log scale, from ``m_min`` to ``m_max``."""
    if not 1 <= m_min < m_max:
        raise ValueError(f"need 1 <= m_min < m_max, got {m_min}, {m_max}")
    return np.unique(np.round(np.geomspace(m_min, m_max, n)).astype(int))


def bounds_vs_m(r, d, kl, delta, ms):
    """The four :data:`cbviz.bounds.PAC_BOUNDS` at each sample size of ``ms``: a frame with
    column ``m`` and one column per bound."""
    _check_pac(r, d, kl, delta)
    ms = np.asarray(ms, dtype=int)
    if ms.size == 0 or ms.min() < 1:
        raise ValueError("ms must be a non-empty array of positive integers")
    table = {"m": ms}
    for key in bounds.PAC_BOUNDS:
        table[key] = [_pac(key, float(r), float(d), float(kl), int(m), float(delta)) for m in ms]
    return pd.DataFrame(table)


def examples_needed(key, r, d, kl, delta, target, m_max=1_000_000):
    """The smallest sample size m <= ``m_max`` at which bound ``key`` is <= ``target``.

    None when even ``m_max`` examples do not bring it there (in particular whenever the target
    is below :func:`bound_limit`).  Every bound of the panel is non-increasing in m (its
    deviation term ``[c KL + ln(f(m) / delta)] / m`` decreases), so doubling m until the bound
    holds and bisecting the last interval finds the smallest integer with about
    2 log2(m) evaluations, all at sizes below twice the answer.
    """
    _check_pac(r, d, kl, delta)
    if isinstance(m_max, bool) or not isinstance(m_max, (int, np.integer)) or m_max < 1:
        raise ValueError(f"m_max must be a positive integer, got {m_max!r}")
    r, d, kl, delta, target = float(r), float(d), float(kl), float(delta), float(target)

    def holds(m):
        return _pac(key, r, d, kl, m, delta) <= target

    if holds(1):
        return 1
    lo, hi = 1, 2
    while hi < m_max and not holds(hi):
        lo, hi = hi, 2 * hi
    if hi >= m_max:
        hi = int(m_max)
        if not holds(hi):
            return None
    while hi - lo > 1:  # holds(hi), not holds(lo)
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid
    return hi
