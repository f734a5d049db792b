"""QuadBoost (Fortier-Dubois, Laviolette, Marchand, Robitaille & Roy, "Efficient Learning
of Ensembles with QuadBoost"): greedy coordinate descent on the quadratic risk.

The vote is ``F = sum_j w_j h_j`` with signed weights ``w`` on the direct voters of a
self-complemented pool (a negative weight is carried by the complement, so the records'
C-bound and KL are those of the self-complemented pool).  The paper's notation (Sect. 3):
``mu_j = mean(y h_j)`` (eq. 3), ``M_j = mean(h_j F_{-j})`` with ``F_{-j}`` the vote without
``h_j`` (eq. 4; Sect. 3.1 for a voter already in the ensemble), ``eta_j = mean(h_j^2)``
(eq. 5).  With the residual ``r = y - F``::

    mu_j - M_j = mean(h_j r) + w_j eta_j

the voter's correlation with the residual plus its self term (zero outside the ensemble),
and along ``w_j = a`` the quadratic risk ``R = mean(r^2)`` is ``const - 2 a (mu_j - M_j)
+ a^2 eta_j`` (eqs. 5 and 10).  Each variant minimizes ``R`` plus its regularizer over
``a`` in closed form:

* vanilla: ``R``; ``a = (mu_j - M_j) / eta_j`` (eq. 6), decrease ``(mu_j - M_j)^2 / eta_j``;
* L1: ``R + 2 lam ||w||_1``; soft threshold ``a = sgn(mu_j - M_j) (|mu_j - M_j| - lam)_+ /
  eta_j`` (eq. 7), decrease ``(|mu_j - M_j| - lam)^2 / eta_j``;
* L2: ``R + lam ||w||_2^2``; ``a = (mu_j - M_j) / (eta_j + lam)`` (eq. 8), decrease
  ``(mu_j - M_j)^2 / (eta_j + lam)``.  The text writes the regularizer as ``lam ||w||_2``,
  but eq. (8), its stated decrease and the "iterative ridge regression" remark are exact
  for the squared norm only; we implement the cost that eq. (8) minimizes;
* Linf: ``R`` subject to ``|w_j| <= alpha_max``; the eq. (6) weight clipped (eq. 9).

Each step takes the voter along whose weight the cost descends most steeply: half the
smallest |subgradient| of the cost in ``w_j`` (for Linf, of the cost kept in the box).  For a
voter outside the ensemble this is ``|mu_j - M_j|`` (``(|mu_j - M_j| - lam)_+`` for L1), so
the pick is the paper's ``argmax |mu_j - M_j|``, for real-valued voters too.  The paper
leaves the choice open for re-weighting (Sect. 3.1), and ``|mu_j - M_j|`` cannot serve there:
it includes the self term ``w_j eta_j``, so a voter already at its best weight would be
picked again and go nowhere; the descent rate is ``|mean(h_j r)|`` for vanilla, 0 at the
optimum.  One ``H^T r`` per step gives every voter's correlation with the residual; the
residual and the votes are updated incrementally in O(m).
"""
from __future__ import annotations

import numpy as np

from ..constraints import Boolean, Interval, Options
from .base import DELTA, MAX_ITER_OR_NONE, Run, check_params, first_argmax

__all__ = ["REGULARIZATIONS", "QuadBoost", "QuadBoostRun", "coordinate_weight", "penalty",
           "theorem1_norm"]

REGULARIZATIONS = (None, "l1", "l2", "linf")
_USES_LAM = ("l1", "l2")
# lambda when none is given: inside the paper's cross-validation ranges ([1e-4, 1] for L1,
# [1, 1e3] for L2); our choice, not the paper's
DEFAULT_LAM = {"l1": 1e-2, "l2": 1.0}
# Theorem 1's L_p norm behind each variant; vanilla relies on early stopping keeping ||w||_1
# small (Sect. 2, last paragraph before Sect. 3).
_THEOREM1_P = {None: 1.0, "l1": 1.0, "l2": 2.0, "linf": np.inf}
_TOL = 1e-12  # descent rate below which a step counts as no progress (round-off in H^T r / m)




def penalty(regularization, lam, w):
    """Regularizer each variant adds to the quadratic risk: ``2 lam ||w||_1`` (L1, eq. 7),
    ``lam ||w||_2^2`` (L2, eq. 8), 0 for vanilla and Linf (a constraint, eq. 9)."""
    w = np.asarray(w, dtype=float)
    if regularization == "l1":
        return 2.0 * lam * float(np.abs(w).sum())
    if regularization == "l2":
        return lam * float(np.sum(w * w))
    return 0.0


def coordinate_weight(regularization, g, eta, lam=0.0, alpha_max=np.inf):
    """Weight ``a`` minimizing ``-2 a g + a^2 eta + penalty(a)`` (``|a| <= alpha_max`` for Linf),
    with ``g = mu_j - M_j`` and ``eta = eta_j > 0``: eqs. (6)-(9)."""
    if regularization == "l1":
        a = np.sign(g) * max(abs(g) - lam, 0.0) / eta
    elif regularization == "l2":
        a = g / (eta + lam)
    elif regularization == "linf":
        a = np.clip(g / eta, -alpha_max, alpha_max)
    else:
        a = g / eta
    return float(a)


def theorem1_norm(regularization, w):
    """Weight-dependent factor ``dim(w)^(1 - 1/p) ||w||_p`` of Theorem 1's regularizer
    ``4 l dim(w)^(1 - 1/p) ||w||_p R_m(H)`` (eq. 1), ``dim(w)`` the number of voters in the
    ensemble and ``p`` the variant's norm (1 for vanilla and L1, 2 for L2, inf for Linf)."""
    w = np.asarray(w, dtype=float)
    w = w[w != 0]
    if w.size == 0:
        return 0.0
    p = _THEOREM1_P[regularization]
    return float(w.size ** (1.0 - 1.0 / p) * np.linalg.norm(w, p))


class QuadBoostRun(Run):
    """A QuadBoost run in progress (see :class:`QuadBoost`).

    Record fields: ``index`` is the direct voter ``k`` (``0 .. n/2-1``) whose weight changed
    and ``alpha`` the signed change of ``w_k``; ``objective`` the step's cost (quadratic risk
    plus the variant's penalty); ``predicted_decrease`` its closed-form decrease,
    ``actual_decrease`` the recomputed one.  ``extra``: ``quadratic_risk`` ``mean((y - F)^2)``,
    ``regularizer`` (:func:`theorem1_norm`), ``score`` the chosen voter's ``|mu_j - M_j|``
    and ``weight`` its new signed weight.
    """

    def __init__(self, H, y, H_test=None, y_test=None, *, regularization, lam, alpha_max,
                 max_iter, reweight, delta, describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        self.regularization, self.lam, self.alpha_max = regularization, lam, alpha_max
        self.reweight = reweight
        self._n = self.n_direct
        self._eta = self.H.col_sq_sums[:self._n] / self.y.size
        self._w = np.zeros(self._n)
        self._r = self.y.copy()  # residual y - F
        self._objective = self._cost()

    @property
    def own_rule(self):
        """L1's own stop (Sect. 3: "no explicit early stopping is needed"); the other variants
        are stopped early after T steps (Sect. 3; the paper cross-validates T), ``max_iter``."""
        if self.regularization == "l1":
            return "eq. (7) stops once no voter has |mu_j - M_j| > lambda"
        return None

    @property
    def signed_weights(self):
        """Current signed weights on the direct voters (a copy)."""
        return self._w.copy()

    def _cost(self):
        return float(np.mean(self._r ** 2)) + penalty(self.regularization, self.lam, self._w)

    def _line_cost(self, a, g, eta):
        """Cost along the chosen voter's weight, up to a constant (eqs. 5 and 10)."""
        return -2.0 * a * g + a * a * eta + penalty(self.regularization, self.lam, a)

    def _descent_rates(self, c):
        """Half the smallest |subgradient| of the cost along each ``w_j`` (Linf: of the cost
        restricted to the box); ``c = mean(h_j r)``.

        ``-inf`` marks voters that may not be chosen (in the ensemble, ``reweight=False``).
        """
        w, reg = self._w, self.regularization
        if reg == "l1":
            rate = np.where(w == 0, np.maximum(np.abs(c) - self.lam, 0.0),
                            np.abs(c - self.lam * np.sign(w)))
        elif reg == "l2":
            rate = np.abs(c - self.lam * w)
        elif reg == "linf":
            pinned = (np.abs(w) >= self.alpha_max) & (c * w > 0)  # at the box, pushing out
            rate = np.where(pinned, 0.0, np.abs(c))
        else:
            rate = np.abs(c)
        return rate if self.reweight else np.where(w == 0, rate, -np.inf)

    def _no_progress_reason(self):
        outside = "no voter outside the ensemble"
        if self.regularization == "l1":
            reason = f"{outside} has |mu_j - M_j| > lambda = {self.lam:g} (eq. 7)"
            if self.reweight:
                reason += ", and eq. (7) leaves every weight in the ensemble unchanged"
            return reason
        if not self.reweight:
            return f"{outside} lowers the quadratic risk (|mu_j - M_j| <= {_TOL:g})"
        if self.regularization == "l2":
            return ("no voter's weight change lowers the quadratic risk + lambda ||w||_2^2 "
                    f"(lambda = {self.lam:g}): the ridge optimum")
        if self.regularization == "linf":
            return ("no voter's weight change lowers the quadratic risk within "
                    f"|w_j| <= alpha_max = {self.alpha_max:g}")
        return ("no voter lowers the quadratic risk: every voter's correlation with the "
                f"residual is <= {_TOL:g} (the least-squares optimum)")

    def _move(self, k, w_new):
        """Set the signed weight of direct voter ``k``; update votes and residual in O(m)."""
        change = w_new - self._w[k]
        self._w[k] = w_new
        self._put(k, max(w_new, 0.0))
        self._put(k + self._n, max(-w_new, 0.0))
        h = self.H.column(k)
        self.F = self.F + change * h
        self._r -= change * h
        if self.F_test is not None:
            self.F_test = self.F_test + change * self.H_test.column(k)
        return change

    def _pick(self):
        """``(c, k, reason)``: every voter's ``mean(h_j r)``, the voter to move and None, or
        the reason the run stops here."""
        c = self.H.rmatvec(self._r)[:self._n] / self.y.size
        rate = self._descent_rates(c)
        k = first_argmax(rate)
        if k < 0:
            return c, k, "every voter of the pool is already in the ensemble (reweight=False)"
        return c, k, self._no_progress_reason() if rate[k] <= _TOL else None

    def _own_stop(self):
        return self._pick()[2]

    def _advance(self):
        c, k, reason = self._pick()
        if reason is not None:
            self.stop_reason = reason
            return None
        eta, w_old = self._eta[k], self._w[k]
        g = c[k] + w_old * eta  # mu_k - M_k
        w_new = coordinate_weight(self.regularization, g, eta, self.lam, self.alpha_max)
        predicted = float(self._line_cost(w_old, g, eta) - self._line_cost(w_new, g, eta))
        change = self._move(k, w_new)
        before, self._objective = self._objective, self._cost()
        return k, float(change), {
            "objective": self._objective, "predicted_decrease": predicted,
            "actual_decrease": before - self._objective,
            "quadratic_risk": float(np.mean(self._r ** 2)),
            "regularizer": theorem1_norm(self.regularization, self._w),
            "score": float(abs(g)), "weight": w_new}


class QuadBoost:
    """QuadBoost stepper factory (vanilla, L1, L2 or Linf; Sect. 3 and 3.1 of the paper).

    Parameters
    ----------
    regularization : {None, "l1", "l2", "linf"}
        None: vanilla QuadBoost (eq. 6), stop it early with ``max_iter``.  "l1": cost
        ``R + 2 lam ||w||_1`` (eq. 7), stops by itself when no voter has
        ``|mu_j - M_j| > lam``.  "l2": ``R + lam ||w||_2^2`` (eq. 8).  "linf": ``R`` with
        ``|w_j| <= alpha_max`` (eq. 9).
    lam : float > 0 or None
        lambda of "l1" and "l2" (the paper cross-validates it in [1e-4, 1] for L1 and
        [1, 1e3] for L2); None takes ``DEFAULT_LAM`` (0.01 for L1, 1 for L2).  Unused (and not
        checked) for vanilla and "linf", as ``alpha_max`` is unused except by "linf".
    alpha_max : float > 0
        Largest absolute weight for "linf", cross-validated in [1e-4, 1e-1] by the paper;
        0.05 is our default (the app's).  Unused otherwise.
    max_iter : int >= 1 or None
        The number of steps T.  Vanilla, L2 and Linf QuadBoost stop early after T steps, T
        cross-validated by the paper (between 1 and 1e5, Sect. 4); 100 is our default.  L1
        stops by its own rule (no explicit early stopping, Sect. 3): there ``max_iter`` is a
        cap, and ``max_iter=None`` runs to that rule (a run a cap cuts short is ``capped``
        and its stop reason says so).  ``None`` also lets the others run until no voter
        lowers their cost.
    reweight : bool
        Also let voters already in the ensemble be chosen again; the step then sets their
        weight by the same rule with ``M_j`` their correlation with the rest of the vote
        (Sect. 3.1).
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    """

    # lam: None stands for DEFAULT_LAM (replaced before the check); lam is checked only where
    # the regularization uses it
    _parameter_constraints = {
        "regularization": Options(REGULARIZATIONS),
        "lam": Interval(float, 0, None, closed="neither"),
        "alpha_max": Interval(float, 0, None, closed="neither"),
        "max_iter": MAX_ITER_OR_NONE, "reweight": Boolean(), "delta": DELTA}

    def __init__(self, regularization=None, lam=None, alpha_max=0.05, max_iter=100,
                 reweight=False, delta=0.05):
        vars(self).update(check_params(self, regularization=regularization,
                                       alpha_max=alpha_max, max_iter=max_iter,
                                       reweight=reweight, delta=delta))
        if regularization in _USES_LAM:
            lam = DEFAULT_LAM[regularization] if lam is None else lam
            self.lam = check_params(self, lam=lam)["lam"]
        else:
            self.lam = 0.0

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on a self-complemented voter matrix/operator ``H`` and labels in {-1, +1}.

        ``describe(k)`` names voter ``k`` in the records (e.g. ``pool.describe``).
        """
        return QuadBoostRun(H, y, H_test, y_test, regularization=self.regularization,
                            lam=self.lam, alpha_max=self.alpha_max, max_iter=self.max_iter,
                            reweight=self.reweight, delta=self.delta, describe=describe)
