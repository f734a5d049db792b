"""VEB-Boost (Shivaswamy & Jebara, variational empirical Bernstein boosting) over a voter pool.

Paper notation: ``n`` is the number of training examples (``m`` here).  With the losses
``L_i = exp(-y_i F_i)`` the algorithm minimizes the sample-variance-penalized cost of Sect. 2,
``(sum L)^2 + lam (n sum L^2 - (sum L)^2)``; the records report it divided by ``n^2``:

    VEB cost = mean(L)^2 + lam var(L),    var(L) = mean(L^2) - mean(L)^2,

the squared exponential loss plus ``lam`` times the loss's (biased) sample variance.

Each step (Figure 1) uses the normalized weights ``w = L / sum(L)`` (Theorem 2 needs
``sum w = 1``), the selection weights ``u_i = lam n w_i^2 + (1 - lam) w_i`` and the pool voter
of least ``u``-weighted error; its weight minimizes Lemma 1's cost (1),
``U_I exp(-2 alpha) + U_J exp(2 alpha)`` (``U_I``, ``U_J``: the ``u``-mass of the examples the
voter gets right, wrong), whose derivative vanishes at

    alpha = 1/4 ln(U_I / U_J).

Figure 1 prints the ratio upside down (``U_J / U_I``, negative for every better-than-chance
voter); the cost is the ground truth.  Cost (1) is a variational upper bound of the cost
along the voter, equal at ``alpha = 0`` (Theorem 2), so the VEB cost never increases.  For
voters with outputs in [-1, 1], ``U_I, U_J`` become ``sum u (1 +- y h) / 2`` (the convexity
bound, :mod:`._reweighting`), which keeps both properties.

Stops when the step would be non-positive (``U_I <= U_J``: every voter's ``u``-weighted error
is at least 1/2; Figure 1's break), or after adding a voter of zero weighted error with
weight ``1 + sum(a)``.
"""
from __future__ import annotations

import numpy as np

from ..constraints import Interval
from .base import DELTA, MAX_ITER, check_params
from ._reweighting import ReweightingRun

__all__ = ["VEBBoost", "VEBBoostRun", "veb_cost"]


def veb_cost(F, y, lam):
    """``(mean(L)^2 + lam var(L), mean(L), var(L))`` with ``L = exp(-y F)``.

    The first term is the paper's Sect. 2 cost divided by ``n^2``.
    """
    L = np.exp(-y * F)
    mean = float(np.mean(L))
    var = float(np.mean((L - mean) ** 2))
    return mean**2 + lam * var, mean, var


class VEBBoostRun(ReweightingRun):
    """A VEB-Boost run in progress (see :class:`VEBBoost`).

    Record: ``objective`` is the VEB cost ``mean(L)^2 + lam var(L)`` of the vote after the
    step; ``extra``: ``weighted_error`` (the pick's ``u``-weighted error, before the step),
    ``exp_loss`` = ``mean(L)`` and ``variance`` = ``var(L)`` after the step.
    """

    rate = 0.25

    def __init__(self, H, y, H_test=None, y_test=None, *, lam, max_iter, delta, describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        self.lam = check_params(VEBBoost, lam=lam)["lam"]

    def _selection_weights(self, w):
        return self.lam * w.size * w**2 + (1.0 - self.lam) * w

    def _losses(self):
        cost, mean, var = veb_cost(self.F, self.y, self.lam)
        return {"objective": cost, "exp_loss": mean, "variance": var}

    def _no_progress_reason(self, k, error):
        return (f"the step would be non-positive: the least u-weighted error is {error:.6g} "
                f"(voter {k}), not below 1/2, so alpha = 1/4 ln(U_I / U_J) <= 0 (Figure 1's break)")


class VEBBoost:
    """VEB-Boost stepper factory over a voter pool.

    Parameters
    ----------
    lam : float in [0, 1]
        Weight of the sample-variance penalty.  At 0 the cost is the squared exponential
        loss and each step is half of AdaBoost's step from the same example weights.  The
        paper leaves it to the user (Theorem 2 needs it in [0, 1]); 0.5 is our default.
    max_iter : int >= 1
        The number of rounds S of Figure 1's loop, the user's choice; 100 is our default.
        A run stops before when the step would be non-positive (Figure 1's break).
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    """

    _parameter_constraints = {"lam": Interval(float, 0, 1), "max_iter": MAX_ITER, "delta": DELTA}

    def __init__(self, lam=0.5, max_iter=100, delta=0.05):
        vars(self).update(check_params(self, lam=lam, max_iter=max_iter, delta=delta))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` (outputs in [-1, 1]) and labels in {-1, +1}."""
        return VEBBoostRun(H, y, H_test, y_test, lam=self.lam, max_iter=self.max_iter,
                           delta=self.delta, describe=describe)
