"""KL-regularized coordinate descent (Germain et al., NIPS 2009, "From PAC-Bayes bounds to
KL regularization", Algorithm 1: "f minimization").

The pool is self-complemented: direct voters ``h_1 .. h_n`` and complements
``h_{k+n} = -h_k`` (``n = n_direct``), with the uniform prior ``P_k = 1/(2n)``.  The posterior
is quasi-uniform (Sect. 4.1): ``Q_k + Q_{k+n} = 1/n``.  With signed weights
``w_k = Q_k - Q_{k+n}`` in ``[-1/n, 1/n]``, ``Q_k = 1/(2n) + w_k/2``,
``Q_{k+n} = 1/(2n) - w_k/2`` and the normalized vote is ``F = sum_k w_k h_k``.  The run
minimizes (Sect. 4, with ``M_i = y_i F(x_i)`` the margin)

    f(w) = C sum_i zeta(M_i) + KL(Q || P),   KL(Q || P) = ln(2n) + sum_{k<=2n} Q_k ln Q_k,

    quadratic loss:   zeta(M) = (M / gamma - 1)^2   (zero at the target margin gamma),
    exponential loss: zeta(M) = exp(-M / gamma).

Along one coordinate, ``w_k -> t``, the KL part changes by ``q ln q + q' ln q'`` with
``q = 1/(2n) + t/2``, ``q' = 1/(2n) - t/2``, whose derivative is
``(1/2) ln(q / q') = artanh(n t)`` (the paper's ``dKL/d delta``, Eq. 5).  It tends to
``+-inf`` at ``t = +-1/n``, so the coordinate minimum is always interior and is the root of
the increasing function ``C dL/dt + artanh(n t)`` (Eq. 7 / Eq. 10 for +-1 voters, with
``L = sum_i zeta``).  For the quadratic loss that equation is linear + artanh: it has no
closed-form root, so both losses use the same safe bracketed solver.
"""
from __future__ import annotations

import numpy as np

from ... import bounds
from ...voters import StumpOperator
from ...voters._threads import helper_pool
from ...constraints import Interval, Options
from ..base import DELTA, MAX_ITER_OR_NONE, Run, check_params
from ._line_min import EXPONENTIAL, QUADRATIC, line_min
from ._sweeps import BLOCK, stump_pass

__all__ = ["LOSSES", "KLBoost", "KLBoostRun", "quasi_uniform"]

LOSSES = ("quadratic", "exponential")
_NONE = np.zeros(0)


class _QuadraticLoss:
    """``zeta(M) = (M / gamma - 1)^2``; along ``F + d h``:
    ``d/dd sum_i zeta = (2 / gamma^2) (sum_i (M_i - gamma) z_i + d sum_i z_i^2)``, ``z = y h``."""

    kind = QUADRATIC

    def __init__(self, gamma):
        self.gamma = gamma

    def total(self, margin):
        return float(np.sum((margin / self.gamma - 1.0) ** 2))

    def terms(self, margin, z, z_sq):
        """``(a0, a1, v, log_w)`` of :func:`~cbviz.algorithms.klboost._line_min.line_min`: the slope
        above is ``a0 + a1 d`` (one O(m) product)."""
        scale = 2.0 / self.gamma**2
        return scale * float((margin - self.gamma) @ z), scale * z_sq, _NONE, _NONE


class _ExponentialLoss:
    """``zeta(M) = exp(-M / gamma)``; along ``F + d h``:
    ``d/dd sum_i zeta = -(1/gamma) sum_v v W_v exp(-v d / gamma)`` where ``v`` runs over the
    distinct values of ``z = y h`` and ``W_v = sum_{i: z_i = v} exp(-M_i / gamma)`` (two values
    for +-1 voters: the paper's Eq. 9)."""

    kind = EXPONENTIAL

    def __init__(self, gamma):
        self.gamma = gamma

    def total(self, margin):
        return float(np.sum(np.exp(-margin / self.gamma)))

    def terms(self, margin, z, z_sq):
        """``(a0, a1, v, log_w)`` of :func:`~cbviz.algorithms.klboost._line_min.line_min`: the
        distinct values ``v`` of ``z`` and ``log W_v``, a per-group log-sum-exp (``z_sq`` is
        not needed).  The slope then costs O(number of distinct z) per evaluation; its
        exponents are capped at ``_line_min.EXP_CAP``: the cap acts only far from the root (at the
        root ``|C dL/dd| = |u|`` is moderate) and keeps the sign, since the terms that blow
        up are those with ``v d < 0``, which all share one sign.
        """
        order = np.argsort(z, kind="stable")
        zs = z[order]
        starts = np.flatnonzero(np.concatenate([[True], zs[1:] != zs[:-1]]))
        v = zs[starts]
        e = -margin[order] / self.gamma
        top = np.maximum.reduceat(e, starts)
        counts = np.diff(np.append(starts, zs.size))
        log_w = top + np.log(np.add.reduceat(np.exp(e - np.repeat(top, counts)), starts))
        return 0.0, 0.0, v, log_w


_LOSS_CLASSES = {"quadratic": _QuadraticLoss, "exponential": _ExponentialLoss}


def quasi_uniform(w):
    """Quasi-uniform posterior over the 2n voters from signed weights ``w`` (Sect. 4.1)."""
    w = np.asarray(w, dtype=float)
    half = 0.5 / w.size
    return np.concatenate([half + 0.5 * w, half - 0.5 * w])


class KLBoostRun(Run):
    """A run of Algorithm 1 in progress (see :class:`KLBoost`).

    One step is one pass over all direct voters in a fresh random order.  ``signed_weights``
    are the ``w_k``; the base class's weight vector is the quasi-uniform ``Q`` itself, so the
    records' KL, C-bound and PAC-Bayes bounds are those of ``Q`` over the 2n voters.
    """

    own_rule = ("Algorithm 1 repeats passes until one moves no weight by more than "
                "epsilon, Sect. 4.1")

    def __init__(self, H, y, H_test=None, y_test=None, *, loss, C, gamma, epsilon, max_iter,
                 random_state, delta, describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        self._n = self.n_direct  # ParameterError unless the pool is self-complemented
        self.loss, self.C, self.gamma, self.epsilon = loss, C, gamma, epsilon
        self._loss = _LOSS_CLASSES[loss](gamma)
        self._rng = np.random.default_rng(random_state)
        self._z_sq = self.H.col_sq_sums[:self._n]  # sum_i (y_i h_k(x_i))^2
        self._stumps = None
        if isinstance(self.H, StumpOperator):   # bins, threshold ranks, signs of direct voters
            slot, rank = self.H._slot_rank(np.arange(self._n))
            codes = self.H._codes   # ranks in the codes' type: byte-wide comparisons
            if rank.size and rank.max() > np.iinfo(codes.dtype).max:
                codes = codes.astype(np.uint32)
            self._stumps = (codes, slot.astype(np.int64), rank.astype(codes.dtype),
                            np.ascontiguousarray(self.H.sign[:self._n], dtype=float))
        self._block = BLOCK  # coordinates per sweep of the stump pass (1: one each)
        self._w = np.zeros(self._n)
        self._set_weights(quasi_uniform(self._w))  # Algorithm 1, line 1: Q uniform, w = 0
        self._margin = self.y * self.F
        self._objective = self.C * self._loss.total(self._margin) + bounds.kl_uniform(self._a)

    @property
    def signed_weights(self):
        """Current signed weights ``w`` on the direct voters (a copy)."""
        return self._w.copy()

    def _coordinate(self, k):
        """Minimize f along ``w_k`` exactly (Algorithm 1, lines 4-8); return the change.

        With ``t = tanh(u) / n`` the stationarity condition reads
        ``phi(u) = u + C dL/dt = 0``, ``phi`` increasing on the whole real line:
        :func:`~cbviz.algorithms.klboost._line_min.line_min` brackets its root from the current
        ``u0`` and refines it by Brent's method, so the new weight ``tanh(u*) / n`` stays in
        ``[-1/n, 1/n]`` (it reaches a bound only by rounding, Algorithm 1's clipping lines
        6-7).  This is the path of every operator but the stump engine's, whose whole pass is
        :func:`~cbviz.algorithms.klboost._sweeps.stump_pass` (the same update on the bins).
        """
        z = self.y * self.H.column(k)
        a0, a1, v, log_w = self._loss.terms(self._margin, z, self._z_sq[k])
        change = line_min(self._loss.kind, a0, a1, v, log_w, self._w[k], self._n, self.C,
                          self.gamma)
        self._w[k] += change
        self._margin += change * z
        return change

    def _pass(self, order):
        """Update the coordinates ``order`` one after the other (each update sees the last);
        return the largest ``|change|``."""
        if self._stumps is None:
            return max((abs(self._coordinate(k)) for k in order), default=0.0)
        pool = helper_pool()  # patterns ahead
        return stump_pass(*self._stumps, order, self.y, self._margin, self._w, self._loss.kind,
                          self.C, self.gamma, float(self.y.size), self._block, pool)

    def _advance(self):
        largest = self._pass(self._rng.permutation(self._n))
        Q = quasi_uniform(self._w)
        self._set_weights(Q)  # refreshes F (and F_test) from Q: no drift across passes
        self._margin = self.y * self.F
        loss_sum = self._loss.total(self._margin)
        kl = bounds.kl_uniform(Q)
        before, self._objective = self._objective, self.C * loss_sum + kl
        if largest <= self.epsilon:
            self.stop_reason = (f"converged: no weight moved by more than epsilon = "
                                f"{self.epsilon:g} in pass {len(self.history) + 1}")
        extra = {"objective": self._objective, "actual_decrease": before - self._objective,
                 "mean_loss": loss_sum / self.y.size, "loss_term": self.C * loss_sum,
                 "kl_term": kl, "max_weight_change": largest}
        return None, None, extra


class KLBoost:
    """Stepper factory for Algorithm 1 of Germain et al. (NIPS 2009), KL-QL / KL-EL.

    Parameters
    ----------
    loss : {"quadratic", "exponential"}
        ``zeta(M) = (M / gamma - 1)^2`` (KL-QL) or ``exp(-M / gamma)`` (KL-EL), ``M`` the margin
        of the normalized vote.
    C : float in (0, 1e6]
        Weight of the summed loss against ``KL(Q || P)`` in f (Sect. 4).  The paper selects
        C and gamma by 10-fold cross-validation (Sect. 5); 1 and 0.1 are our defaults.
    gamma : float in [1e-4, 1e4]
        Margin scale inside the loss: the quadratic loss is zero at margin ``gamma``.
        Margins lie in [-1, 1].
    epsilon : float in (0, 1]
        Stop after a pass in which no ``w_k`` changed by more than ``epsilon``: Algorithm 1's
        "until convergence" as Sect. 4.1 implements it (the weights lie in ``[-1/n, 1/n]``).
        The paper names no value ("a specified small number"); 1e-6 is our default.
    max_iter : int >= 1 or None
        ``None`` (the default): no cap, passes until the epsilon rule.  A number caps the
        passes; a run it cuts short is ``capped`` and its stop reason says so.
    random_state : int >= 0 or None
        Seed of the order of the voters in each pass.
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.

    Notes
    -----
    Records: ``objective`` is f; ``extra`` holds ``mean_loss`` (``(1/m) sum_i zeta``, the
    paper's empirical loss), ``loss_term`` (``C sum_i zeta``), ``kl_term`` (``KL(Q || P)``) and
    ``max_weight_change`` (largest ``|w_k|`` change in the pass); ``actual_decrease`` is the
    decrease of f over the pass.
    """

    _parameter_constraints = {
        "loss": Options(LOSSES),
        # Table 1's cross-validation grid reaches C = 1000 and gamma = 0.0001
        "C": Interval(float, 0, 1e6, closed="right"),
        "gamma": Interval(float, 1e-4, 1e4),
        "epsilon": Interval(float, 0, 1, closed="right"),
        "max_iter": MAX_ITER_OR_NONE,
        "random_state": Interval(int, 0, None, closed="left", none=True),
        "delta": DELTA}

    def __init__(self, loss="quadratic", C=1.0, gamma=0.1, epsilon=1e-6, max_iter=None,
                 random_state=0, delta=0.05):
        vars(self).update(check_params(self, loss=loss, C=C, gamma=gamma, epsilon=epsilon,
                                       max_iter=max_iter, random_state=random_state,
                                       delta=delta))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on a self-complemented voter matrix/operator ``H`` and labels in {-1, +1}."""
        return KLBoostRun(H, y, H_test, y_test, loss=self.loss, C=self.C, gamma=self.gamma,
                          epsilon=self.epsilon, max_iter=self.max_iter,
                          random_state=self.random_state, delta=self.delta, describe=describe)
