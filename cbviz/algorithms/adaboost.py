"""Discrete AdaBoost (Freund & Schapire 1997) over a fixed voter pool.

The weak learner is the pool voter of least weighted error under the example weights
``D_i`` proportional to ``exp(-y_i F_i)``; its weight
``alpha = 1/2 ln((1 - eps) / eps)`` minimizes the exponential loss ``mean(exp(-y F))`` along
it exactly, and multiplies that loss by ``Z = 2 sqrt(eps (1 - eps)) <= 1``.  For voters with
outputs in [-1, 1] the same code takes ``alpha = 1/2 ln((1 + r) / (1 - r))`` with ``r`` the
weighted edge (equal to the above for +-1 voters, ``r = 1 - 2 eps``), the minimizer of the
convexity bound of the loss (:mod:`._reweighting`).  A voter may be picked again.

Stops when no voter is better than chance (``eps >= 1/2``), or after adding a voter of zero
weighted error with weight ``1 + sum(a)`` (the loss has no finite minimizer along it).
"""
from __future__ import annotations

import numpy as np

from .base import DELTA, MAX_ITER, check_params
from ._reweighting import ReweightingRun

__all__ = ["AdaBoost", "AdaBoostRun"]


class AdaBoostRun(ReweightingRun):
    """An AdaBoost run in progress (see :class:`AdaBoost`).

    Record: ``objective`` is the exponential loss ``mean(exp(-y F))`` of the vote after the
    step; ``extra["weighted_error"]`` is the weighted error ``eps = (1 - r) / 2`` of the pick
    under the weights it was picked with.
    """

    rate = 0.5

    def _selection_weights(self, w):
        return w

    def _losses(self):
        return {"objective": float(np.mean(np.exp(-self.y * self.F)))}

    def _no_progress_reason(self, k, error):
        return (f"no voter is better than chance: the least weighted error is {error:.6g} "
                f"(voter {k}), not below 1/2, so alpha = 1/2 ln((1 - eps) / eps) <= 0")


class AdaBoost:
    """Discrete AdaBoost stepper factory over a voter pool.

    Parameters
    ----------
    max_iter : int >= 1
        The number of boosting rounds T, the user's choice in Freund & Schapire's algorithm
        (the CqBoost and QuadBoost papers cross-validate it between 1e2 and 1e6); 100 is our
        default.  A run may stop before: no voter better than chance, or a perfect voter.
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.
    """

    _parameter_constraints = {"max_iter": MAX_ITER, "delta": DELTA}

    def __init__(self, max_iter=100, delta=0.05):
        vars(self).update(check_params(self, max_iter=max_iter, delta=delta))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` (outputs in [-1, 1]) and labels in {-1, +1}."""
        return AdaBoostRun(H, y, H_test, y_test, max_iter=self.max_iter, delta=self.delta,
                           describe=describe)
