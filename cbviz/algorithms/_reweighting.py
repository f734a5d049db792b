"""Example re-weighting over a voter pool: what AdaBoost and VEB-Boost share.

Both keep the vote ``F = H a`` (non-negative weights ``a``) and, at every step:

1. weight the examples by the normalized exponential-loss weights
   ``w_i = exp(-y_i F_i) / sum_j exp(-y_j F_j)`` (:func:`loss_weights`);
2. turn them into selection weights ``u`` (AdaBoost: ``u = w``; VEB-Boost:
   ``u = lam m w^2 + (1 - lam) w``);
3. take the voter of least ``u``-weighted error ``(1 - r_k) / 2``, where
   ``r_k = sum_i u_i y_i h_k(x_i) / sum_i u_i`` is its weighted edge: one ``H^T (u * y)``
   for the whole pool (:func:`weighted_edges`); or, on a :class:`~cbviz.voters.TreePool`,
   fit a tree to the labels with ``u`` as example weights (the paper's weak learner: for
   VEB-Boost the weights of its Section 2, which is what lets any weighted learner serve);
4. add it with weight ``rate * ln(U+ / U-)``, ``U+-`` = ``sum_i u_i (1 +- y_i h(x_i)) / 2``
   over ``sum_i u_i`` (:func:`split_masses`): for +-1 voters the weighted mass of the examples
   it gets right and wrong, ``1 - eps`` and ``eps``.  AdaBoost's rate is 1/2, VEB-Boost's 1/4.

For voters with outputs in [-1, 1] the convexity bound
``exp(-c y h) <= (1 + y h)/2 exp(-c) + (1 - y h)/2 exp(c)`` makes the same closed form the
minimizer of an upper bound of the loss along the voter, touching it at weight 0, so the
loss still never increases (Schapire & Singer's bound for real-valued AdaBoost).

The run stops when the best voter's edge is not positive (its error is at least 1/2: the
step would be non-positive).  A voter with zero weighted error has no finite best weight
(the loss decreases without bound along it): it enters with weight ``1 + sum(a)``, which
outvotes all the other voters on every example, and the run stops.
"""
from __future__ import annotations

import numpy as np

from .base import ParameterError, Run, first_argmax

__all__ = ["ReweightingRun", "loss_weights", "split_masses", "weighted_edges"]

# An edge at or below this counts as zero (round-off: a voter at exactly chance level, e.g.
# AdaBoost's last pick right after its step, comes out at 1/2 +- a few ulps).
EDGE_TOL = 1e-12


def loss_weights(F, y):
    """Exponential-loss weights ``exp(-y_i F_i)`` normalized to sum 1.

    The largest exponent is factored out first, so no term overflows.
    """
    s = -y * F
    w = np.exp(s - s.max())
    return w / w.sum()


def weighted_edges(H, y, u):
    """Weighted edge ``r_k = sum_i u_i y_i h_k(x_i) / sum_i u_i`` of every voter (one ``H^T v``).

    The weighted error of voter ``k`` is ``(1 - r_k) / 2``.
    """
    return H.rmatvec(u * y) / u.sum()


def split_masses(h, y, u):
    """``(U+, U-) = (sum u (1 + y h) / 2, sum u (1 - y h) / 2) / sum u`` for one voter ``h``.

    For +-1 voters: the weighted mass of the examples ``h`` gets right and wrong (``1 - eps``,
    ``eps``).  Both are sums of non-negative terms, so a tiny error keeps its relative
    precision (``(1 - r) / 2`` from the edge would not).  Raises :class:`ParameterError` if
    ``h`` has an output outside [-1, 1].
    """
    t = y * h
    if not np.all(np.abs(t) <= 1.0):
        raise ParameterError("voter outputs must lie in [-1, 1] (the exponential-loss steps "
                             f"rely on it); this voter outputs values up to {np.max(np.abs(h))}")
    total = u.sum()
    return float(u @ (1.0 + t)) / (2.0 * total), float(u @ (1.0 - t)) / (2.0 * total)


class ReweightingRun(Run):
    """A run that re-weights the examples by the exponential loss (see the module docstring).

    Subclasses set ``rate`` (the step is ``rate * ln(U+ / U-)``) and implement
    :meth:`_selection_weights`, :meth:`_losses` (the record's objective and extra terms of the
    current vote) and :meth:`_no_progress_reason`.
    """

    rate: float

    def _selection_weights(self, w):
        """Example weights ``u`` that select the voter, from the loss weights ``w``."""
        raise NotImplementedError

    def _losses(self):
        """``objective`` and the other loss terms of the current vote, for the record."""
        raise NotImplementedError

    def _no_progress_reason(self, k, error):
        """Stop reason when the best voter ``k`` has weighted error ``error >= 1/2``."""
        raise NotImplementedError

    def example_weights(self, iteration=None):
        """Selection weights ``u / sum(u)`` of the step after ``iteration`` (0: the first step;
        default: the next step)."""
        if iteration == 0:
            F = np.zeros_like(self.F)
        elif iteration is None:
            F = self.F
        else:
            F = self.H.matvec(self.weights_at(iteration))
        u = self._selection_weights(loss_weights(F, self.y))
        return u / u.sum()

    fits_voters = True

    def _advance(self):
        u = self._selection_weights(loss_weights(self.F, self.y))
        if self.fixed:
            k = first_argmax(weighted_edges(self.H, self.y, u))
        else:   # a tree fitted to the labels under the selection weights
            k = self._fit_voter(self.y, u / u.sum())
            if k is None:
                return None
        right, wrong = split_masses(self.H.column(k), self.y, u)
        if right - wrong <= EDGE_TOL:
            self.stop_reason = self._no_progress_reason(k, wrong)
            return None
        if wrong == 0.0:
            alpha = 1.0 + float(self._a.sum())
            self.stop_reason = (
                f"voter {k} has zero weighted error (it is right on every example of non-zero "
                "weight), so the loss has no finite minimizer along it: it was added with weight "
                f"1 + the vote's total weight so far = {alpha:.6g}, which outvotes every other "
                "voter, and the run stopped")
        else:
            alpha = self.rate * float(np.log(right / wrong))
        self._add(k, alpha)
        return k, alpha, {**self._losses(), "weighted_error": wrong}
