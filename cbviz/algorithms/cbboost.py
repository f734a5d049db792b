"""CB-Boost (Bauvin et al., Machine Learning 2020): greedy C-bound minimization.

The vote starts with the best-margin voter (weight 1).  Each later step adds one voter
not yet in the vote with the closed-form weight of Theorem 3; the exhaustive rule takes
the largest exact C-bound decrease (Property 1), the gradient rule (GB-CB-Boost, the
paper's Appendix B) the steepest descent direction.  Both cost one ``H^T F`` per step.

Notation (DESIGN.md): ``gamma(f) = mean(y f)``, ``nu(f) = mean(f^2)``, ``tau(f, g) = mean(f g)``.
For a candidate h:
``numer = gamma(h) nu(F) - gamma(F) tau(F, h)``, ``denom = gamma(F) nu(h) - gamma(h) tau(F, h)``,
``alpha* = numer / denom`` and the decrease ``numer^2 / (nu(F) (nu(F) nu(h) - tau^2))``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import bounds
from .base import Candidates, ParameterError, Run, _first_argmax, check_delta, check_int

__all__ = ["CBBoost", "CBBoostRun", "DirectionCurve", "lockstep", "one_direction_c_bound"]

DIRECTIONS = ("exhaustive", "gradient")
# Theorem 3 assumes gamma(h) > 0, and CB-Boost (Algorithm 1) only adds such voters.  A voter
# with gamma(h) <= 0 can still lower the C-bound (it acts like removing weight from its
# complement); the stop reason says which directions were searched.
NO_PROGRESS = "no direction improves the C-bound (among voters with a positive margin, Theorem 3)"
_RTOL = 1e-12  # relative size below which a numerator counts as zero (round-off)


def one_direction_c_bound(alpha, gamma_F, nu_F, gamma_h, nu_h, tau):
    """C-bound of ``F + alpha h`` from the moments (CB-Boost paper, Sect. 3.1):

    ``1 - (gamma(F) + alpha gamma(h))^2 / (nu(F) + 2 alpha tau(F, h) + alpha^2 nu(h))``.
    """
    alpha = np.asarray(alpha, dtype=float)
    return bounds.c_bound(gamma_F + alpha * gamma_h, nu_F + 2 * alpha * tau + alpha**2 * nu_h)


def _scores(gamma_h, nu_h, tau, gamma_F, nu_F, in_vote):
    """Theorem 3 weight, Property 1 decrease and gradient rate for every candidate."""
    numer = gamma_h * nu_F - gamma_F * tau
    denom = gamma_F * nu_h - gamma_h * tau
    gap = nu_F * nu_h - tau**2  # >= 0 by Cauchy-Schwarz; 0 when h is collinear with F
    scale = np.abs(gamma_h) * nu_F + np.abs(gamma_F * tau)
    valid = ~in_vote & (gamma_h > 0) & (numer > _RTOL * scale) & (denom > 0) & (gap > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = np.where(valid, numer / denom, 0.0)
        decrease = np.where(valid, numer**2 / (nu_F * gap), 0.0)
    gradient = 2.0 * gamma_F * numer / nu_F**2  # -dC/da_k at a_k = 0
    return Candidates(gradient=gradient, decrease=decrease, alpha=alpha, valid=valid)


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
                 keep_candidates, describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        if direction not in DIRECTIONS:
            raise ParameterError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.keep_candidates = keep_candidates
        m = self.y.size
        self._gamma_h = self.H.rmatvec(self.y) / m
        self._nu_h = self.H.col_sq_sums / m
        # only voters with a positive margin can ever be chosen (Theorem 3): score just those
        self._pos = np.flatnonzero(self._gamma_h > 0)
        self._H_pos = self.H.restrict(self._pos)

    def _moments(self, F):
        m = self.y.size
        return float(self.y @ F) / m, float(F @ F) / m

    def candidates(self, iteration=None):
        """Scores of every voter as the next direction from the vote after ``iteration``.

        Default: the current vote.  Costs one ``H^T F``.
        """
        if not self.history:
            raise ParameterError("no vote yet: take the first step before scoring directions")
        if iteration is None or iteration == len(self.history):
            F, in_vote = self.F, self._a > 0
        else:
            a = self.weights_at(iteration)
            F, in_vote = self.H.matvec(a), a > 0
        return _scores(self._gamma_h, self._nu_h, self.H.rmatvec(F) / self.y.size,
                       *self._moments(F), in_vote)

    def _next_scores(self):
        """Scores for the next step and the voter index of each score."""
        if self.keep_candidates:
            return self.candidates(), np.arange(self.H.shape[1])
        pos = self._pos
        tau = self._H_pos.rmatvec(self.F) / self.y.size
        return _scores(self._gamma_h[pos], self._nu_h[pos], tau, *self._moments(self.F),
                       self._a[pos] > 0), pos

    def _pick(self, c):
        return c.exhaustive_pick if self.direction == "exhaustive" else c.gradient_pick

    def _add(self, k, alpha):
        self._a[k] += alpha
        self.F = self.F + alpha * self.H.column(k)
        if self.F_test is not None:
            self.F_test = self.F_test + alpha * self.H_test.column(k)

    def _advance(self):
        if not self.history:
            k = _first_argmax(np.where(self._gamma_h > 0, self._gamma_h, -np.inf))
            if k < 0:
                self.stop_reason = ("no voter has a positive margin on the training data: "
                                    "the C-bound cannot go below 1")
                return None
            self._add(k, 1.0)
            return k, 1.0, {}
        c, ids = self._next_scores()
        j = self._pick(c)
        if j < 0:
            self.stop_reason = NO_PROGRESS
            return None
        k = int(ids[j])
        before = self.history[-1].c_bound
        alpha, predicted = float(c.alpha[j]), float(c.decrease[j])
        self._add(k, alpha)
        after = bounds.c_bound(*self._moments(self.F))
        extra = {"predicted_decrease": predicted, "actual_decrease": before - after}
        if self.keep_candidates:
            extra["candidates"] = c
        return k, alpha, extra

    def direction_curve(self, iteration=None, index=None, n_points=201):
        """C-bound along voter ``index``'s weight, from the vote before ``iteration``.

        Defaults: the last iteration and the voter it chose; so the curve's minimum is the
        step that iteration took (Theorem 3).
        """
        if not self.history:
            raise ParameterError("no vote yet")
        it = len(self.history) if iteration is None else iteration
        self._position(it)
        if it == 1:
            raise ParameterError("iteration 1 starts the vote with one voter; "
                                 "the one-direction curve exists from iteration 2")
        k = self.history[it - 1].index if index is None else int(index)
        F = self.H.matvec(self.weights_at(it - 1))
        h = self.H.column(k)
        m = self.y.size
        gamma_F, nu_F = self._moments(F)
        tau = float(F @ h) / m
        c = _scores(self._gamma_h[k:k + 1], self._nu_h[k:k + 1], np.array([tau]),
                    gamma_F, nu_F, np.array([self.weights_at(it - 1)[k] > 0]))
        star = float(c.alpha[0]) if c.valid[0] else None
        total = float(self.weights_at(it - 1).sum())
        top = 3.0 * star if star else 2.0 * total
        alphas = np.linspace(0.0, top, n_points)
        curve = one_direction_c_bound(alphas, gamma_F, nu_F, self._gamma_h[k], self._nu_h[k], tau)
        c_star = None if star is None else float(
            one_direction_c_bound(star, gamma_F, nu_F, self._gamma_h[k], self._nu_h[k], tau))
        return DirectionCurve(index=k, label=None if self.describe is None else self.describe(k),
                              alphas=alphas, c_values=np.asarray(curve), alpha_star=star,
                              c_star=c_star, c_now=float(bounds.c_bound(gamma_F, nu_F)))


class CBBoost:
    """CB-Boost stepper factory.

    Parameters
    ----------
    max_iter : int
        Maximum number of voters in the vote.
    direction : {"exhaustive", "gradient"}
        Exhaustive: largest exact C-bound decrease (CB-Boost). Gradient: steepest descent
        direction with the same closed-form step (GB-CB-Boost).
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    keep_candidates : bool
        Store every candidate's scores in each record (O(n) memory per step).
    """

    def __init__(self, max_iter=100, direction="exhaustive", delta=0.05, keep_candidates=False):
        self.max_iter = check_int("max_iter", max_iter)
        if direction not in DIRECTIONS:
            raise ParameterError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
        self.direction = direction
        self.delta = check_delta(delta)
        self.keep_candidates = bool(keep_candidates)

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}.

        ``describe(k)`` names voter ``k`` in the records (e.g. ``pool.describe``).
        """
        return CBBoostRun(H, y, H_test, y_test, max_iter=self.max_iter, direction=self.direction,
                          delta=self.delta, keep_candidates=self.keep_candidates,
                          describe=describe)


def lockstep(H, y, max_iter=50, H_test=None, y_test=None, describe=None, delta=0.05):
    """Run the exhaustive and gradient rules side by side from the same start.

    Returns ``(exhaustive_run, gradient_run, table)`` where the table has one row per
    iteration: both choices, whether they agree, the choice the gradient rule would make
    from the exhaustive run's own vote, and both C-bounds.
    """
    # only the exhaustive run keeps its candidates: they give the gradient pick from its vote
    runs = {d: CBBoost(max_iter, d, delta, keep_candidates=d == "exhaustive").start(
        H, y, H_test, y_test, describe) for d in DIRECTIONS}
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
