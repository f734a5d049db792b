"""A CB-Boost run (:class:`CBBoostRun`) and its factory (:class:`CBBoost`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import bounds
from ...constraints import Boolean, Options
from ..base import DELTA, MAX_ITER, ParameterError, Run, check_params, first_argmax
from ._fused import dot_without_blas, fused_pick, label_sums_below
from ._scores import (DIRECTIONS, ELIGIBLE, score_candidates, scoring_pool, one_direction_c_bound,
                     stop_reason)

__all__ = ["CBBoost", "CBBoostRun", "DirectionCurve"]

# largest |margin| of a vote below which F = H a loses bits to subnormal rounding (2^-1075 is
# then above eps^2 / 2 of it): the vote's C-bound could not be recorded exact to round-off
_MARGIN_FLOOR = np.finfo(float).tiny / np.finfo(float).eps
_NO_VOTER = np.empty(0, dtype=np.int64)


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


def pick_summary(candidates):
    """Both rules' picks from one vote and their exact decreases (Property 1): the record
    extras ``exhaustive_pick``, ``gradient_pick`` (-1: none), ``exhaustive_pick_decrease`` and
    ``gradient_pick_decrease``."""
    out = {}
    for rule, k in (("exhaustive", candidates.exhaustive_pick),
                    ("gradient", candidates.gradient_pick)):
        out[f"{rule}_pick"] = int(k)
        out[f"{rule}_pick_decrease"] = float(candidates.decrease[k]) if k >= 0 else float("nan")
    return out


class CBBoostRun(Run):
    """A CB-Boost run in progress (see :class:`CBBoost`)."""

    fits_voters = True   # GB-CB-Boost on trees (:meth:`_fit_step`)

    def __init__(self, H, y, H_test=None, y_test=None, *, max_iter, direction, delta,
                 keep_candidates, describe, eligible="theorem3", reuse_voters=False):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        vars(self).update(check_params(CBBoost, direction=direction, eligible=eligible,
                                       reuse_voters=reuse_voters))
        self.keep_candidates = keep_candidates
        if not self.fixed:
            if direction != "gradient" or keep_candidates:
                raise ParameterError(
                    "fitted trees take CB-Boost's gradient rule (GB-CB-Boost) only: the "
                    "exhaustive rule, and the candidates' scores, need every voter of a finite "
                    "pool scored")
            self._S, self._pool_exp, self._dot = self.H, 0, np.dot   # +-1 outputs: unscaled
            return
        m = self.y.size
        # the pool the scores are computed on (scaled arithmetic, module docstring)
        self._S, self._pool_exp = scoring_pool(self.H)
        self._gamma_h = self._S.rmatvec(self.y) / m
        self._nu_h = self._S.col_sq_sums / m
        # stumps in pool layout: fused steps (:mod:`._fused`, one pass over the bins); they take
        # no BLAS dot (one of this size would wake BLAS threads against the engine's), the
        # other runs keep their arithmetic
        self._fused = not keep_candidates and getattr(self.H, "canonical", False)
        self._dot = dot_without_blas if self._fused else np.dot
        if self._fused:   # gamma(h) of the direct stumps, from integers (4 bytes per stump)
            self._y_below, self._tot_y = label_sums_below(self.H, self.y)
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
        return score_candidates(self._gamma_h, self._nu_h, self._S.rmatvec(G) / self.y.size, gamma_G,
                       nu_G, in_vote, self.eligible, self.reuse_voters, shift)

    def _next_scores(self):
        """Scores for the next step and the voter index of each score (None: every voter)."""
        if self.keep_candidates or self.eligible == "all":
            return self.candidates(), None
        pos = self._pos
        G, shift, gamma_G, nu_G = self._normalized(self.F)
        tau = self._H_pos.rmatvec(G) / self.y.size
        return score_candidates(self._gamma_h[pos], self._nu_h[pos], tau, gamma_G, nu_G,
                       self._a[pos] > 0, self.eligible, self.reuse_voters, shift), pos

    def _choose(self):
        """The next step ``(voter, alpha, predicted decrease, candidates)``: voter -1 when the
        rule admits none; candidates (None unless they cover the whole pool) for the record."""
        if self._fused:   # a stump pool: never scaled (outputs +-1)
            G, shift, gamma_G, nu_G = self._normalized(self.F)
            k, alpha, decrease = fused_pick(
                self.H, G, self._y_below, self._tot_y, gamma_G, nu_G,
                self.direction == "gradient", self.eligible == "theorem3",
                _NO_VOTER if self.reuse_voters else self._support)
            return k, math.ldexp(alpha, shift), decrease, None
        c, ids = self._next_scores()
        j = c.exhaustive_pick if self.direction == "exhaustive" else c.gradient_pick
        whole = c if ids is None else None
        if j < 0:
            return -1, 0.0, 0.0, whole
        return (j if ids is None else int(ids[j])), float(c.alpha[j]), float(c.decrease[j]), whole

    def _fit_step(self):
        """GB-CB-Boost on trees: a tree fitted to the C-bound's steepest descent direction,
        weighted by Theorem 3's closed form.

        Along a voter ``h``, ``-dC/dalpha = 2 gamma(F) / nu(F)^2 * mean(h * g)`` with
        ``g = nu(F) y - gamma(F) F`` (the numerator of :func:`score_candidates`), so for +-1
        voters the steepest direction is the classifier of labels ``sign(g)`` under example
        weights ``|g|``: what the tree is fitted to.  The first tree is fitted to the labels
        under uniform weights (the largest margin, as CB-Boost's first voter).
        """
        m = self.y.size
        first = not self.history
        G, shift, gamma_G, nu_G = self._normalized(self.F)
        g = self.y if first else nu_G * self.y - gamma_G * G
        weight = np.abs(g)
        if not weight.sum() > 0:
            self.stop_reason = "the C-bound's gradient vanishes on every example"
            return None
        k = self._fit_voter(np.where(g >= 0, 1.0, -1.0), weight / weight.sum())
        if k is None:
            return None
        h = self.H.column(k)
        gamma_h = float(self.y @ h) / m
        if first:
            if gamma_h <= 0:
                self.stop_reason = ("the tree fitted to the labels has no positive margin: the "
                                    "C-bound cannot go below 1")
                return None
            self._add(k, 1.0)
            return k, 1.0, {"reused": False}
        c = score_candidates(np.array([gamma_h]), np.array([float(h @ h) / m]),
                             np.array([float(G @ h) / m]), gamma_G, nu_G, np.array([False]),
                             self.eligible, False, shift)
        if not c.valid[0]:
            self.stop_reason = "the tree fitted to the gradient direction " + (
                f"has γ(h) = {gamma_h:.4g} <= 0, outside Theorem 3's rule; with eligible='all' "
                f"it would lower the C-bound by {c.best_decrease[0]:.4g}"
                if c.best_decrease[0] > 0 else "lowers the C-bound by no finite weight")
            return None
        before = self.history[-1].c_bound
        alpha = float(c.alpha[0])
        self._add(k, alpha)
        return k, alpha, {"predicted_decrease": float(c.decrease[0]),
                          "actual_decrease": before - self._c_bound_now(), "reused": False}

    def _c_bound_now(self):
        """The C-bound of the current vote, computed as the records compute it."""
        _, shift, gamma_G, nu_G = self._normalized(self.F)
        return bounds.c_bound(gamma_G, nu_G, scale=self._scale(self._a, self._support, shift))

    def _advance(self):
        if not self.fixed:
            return self._fit_step()
        if not self.history:
            k = first_argmax(np.where(self._gamma_h > 0, self._gamma_h, -np.inf))
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
        support = np.union1d(self._support, [k])   # the vote after the step
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
        extra = {"predicted_decrease": predicted, "actual_decrease": before - self._c_bound_now(),
                 "reused": reused}
        if self.keep_candidates == "picks":   # both rules' picks: O(1) per record
            extra.update(pick_summary(c))
        elif self.keep_candidates:
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
        c = score_candidates(self._gamma_h[k:k + 1], self._nu_h[k:k + 1], np.array([tau]), gamma_G, nu_G,
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
        The number of iterations T of Algorithm 1 (without ``reuse_voters``: voters in the
        vote).  The paper runs a fixed T, a hyper-parameter (Sect. 3.4, "On the stopping
        criterion": its randomized search picks it in Sect. 5.2, Fig. 5 uses 200); 100 is our
        default.  Reaching it is the paper's rule, which the stop reason says.
    direction : {"exhaustive", "gradient"}
        Exhaustive: largest exact C-bound decrease (CB-Boost). Gradient: steepest descent
        direction with the same closed-form step (GB-CB-Boost).
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    keep_candidates : bool or "picks"
        Store every candidate's scores in each record (O(n) memory per step), or with
        ``"picks"`` only what both rules would take from each vote (:func:`pick_summary`,
        four numbers in ``extra``: what :func:`~cbviz.algorithms.cbboost._lockstep.lockstep`
        needs, in bounded memory).
    eligible : {"theorem3", "all"}
        Voters a step may move: those with ``gamma(h) > 0`` (Theorem 3's hypothesis, the
        paper's rule) or every voter whose weight can grow to an exact C-bound decrease.
    reuse_voters : bool
        Let a voter already in the vote be chosen again: its weight grows by the same
        closed-form step (the authors' code's ``twice_the_same``).  Weights only grow, so
        such runs may creep on for many steps.  Each record's ``extra["reused"]`` says
        whether its voter was already in the vote.

    Notes
    -----
    A run stops at ``max_iter`` or when no voter its rule admits lowers the C-bound by more
    than round-off; :func:`stop_reason` then names the rule and counts the voters each wider
    rule could still move.
    """

    # every parameter's allowed values (keep_candidates, an output option, takes any truth value)
    _parameter_constraints = {
        "max_iter": MAX_ITER, "direction": Options(DIRECTIONS), "delta": DELTA,
        "eligible": Options(ELIGIBLE), "reuse_voters": Boolean()}

    def __init__(self, max_iter=100, direction="exhaustive", delta=0.05, keep_candidates=False,
                 eligible="theorem3", reuse_voters=False):
        vars(self).update(check_params(self, max_iter=max_iter, direction=direction, delta=delta,
                                       eligible=eligible, reuse_voters=reuse_voters))
        self.keep_candidates = ("picks" if keep_candidates == "picks"
                                else bool(keep_candidates))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}.

        ``describe(k)`` names voter ``k`` in the records (e.g. ``pool.describe``).
        """
        return CBBoostRun(H, y, H_test, y_test, max_iter=self.max_iter, direction=self.direction,
                          delta=self.delta, keep_candidates=self.keep_candidates,
                          describe=describe, eligible=self.eligible,
                          reuse_voters=self.reuse_voters)
