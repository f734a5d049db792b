"""What the PAC-Bayesian bounds cost in examples: the bounds as functions of the sample size m.

For empirical values r and d of the (r, d) plane (:mod:`cbviz.cbound_plane`) and KL(Q||P):
one bound at one m (:func:`pac_bound_value`), what it tends to as m grows
(:func:`bound_limit`), the four bounds over a grid of m (:func:`m_grid`,
:func:`bounds_vs_m`) and the smallest m that brings a bound below a target
(:func:`examples_needed`).  Pure NumPy on top of :mod:`cbviz.bounds`; the page
``app_pages/cbound_explorer.py`` and the figures of :mod:`cbviz.plots.cbound` only draw what
these functions return.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import bounds
from .cbound_plane import check_point

__all__ = ["pac_bound_value", "bound_limit", "m_grid", "bounds_vs_m", "examples_needed"]


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
