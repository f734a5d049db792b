"""CB-Boost (Bauvin et al., Machine Learning 2020): greedy C-bound minimization.

The vote starts with the best-margin voter (weight 1).  Each later step moves one voter's
weight up by the closed-form amount of Theorem 3; the exhaustive rule takes the largest
exact C-bound decrease (Property 1), the gradient rule (GB-CB-Boost, the paper's Appendix B)
the steepest descent direction.  Both cost one ``H^T F`` per step; on a stump pool in its
own layout that is one pass over the binned data, and a fused kernel scores every threshold
from it and keeps only the best (:mod:`._fused`: no array as long as the pool).

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

Modules: :mod:`._scores` (every candidate's closed forms, the rules, the stop reasons),
:mod:`._fused` (the compiled selection on a stump pool), :mod:`._run` (:class:`CBBoostRun`,
:class:`CBBoost`) and :mod:`._lockstep` (both rules side by side).
"""
from __future__ import annotations

from ._lockstep import lockstep, lockstep_start, lockstep_table, pick_correlations, run_in_turn
from ._run import CBBoost, CBBoostRun, DirectionCurve
from ._scores import CBBoostCandidates, one_direction_c_bound, stop_reason

__all__ = ["CBBoost", "pick_correlations", "CBBoostCandidates", "CBBoostRun", "DirectionCurve",
           "lockstep", "lockstep_start", "lockstep_table", "one_direction_c_bound",
           "run_in_turn", "stop_reason"]
