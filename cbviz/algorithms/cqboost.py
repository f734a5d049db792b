"""CqBoost (Roy, Marchand and Laviolette, AISTATS 2016, Algorithm 1): column generation on
the C-bound program.

The master problem is the CqBoost paper's program (3) over the columns S chosen so far,
with the first-moment constraint as ``>=`` (the paper prints ``<=``, a typo: see
:mod:`cbviz.algorithms.mincq`):

    minimize (1/m) gamma^T gamma   s.t.  gamma = diag(y) H_S w   (multipliers alpha)
                                         1^T w = 1               (nu)
                                         mean(gamma) >= mu       (beta >= 0)
                                         w >= 0                  (xi >= 0)

Its Lagrangian ``(1/m) gamma^T gamma + alpha^T (gamma - diag(y) H_S w) + nu (1^T w - 1)
+ beta (mu - mean(gamma)) - xi^T w`` is stationary when

* ``alpha = (beta - 2 gamma) / m``  (gamma rows: the example weights);
* ``H_S^T diag(y) alpha = nu 1 - xi``, i.e. every column's edge ``sum_i alpha_i y_i h(x_i)``
  is at most ``nu``, with equality where ``w > 0``.

Minimizing it over ``gamma`` and ``w >= 0`` gives the dual ``max -(m/4) |alpha - (beta/m) 1|^2
+ beta mu - nu`` s.t. ``H^T diag(y) alpha <= nu 1``, ``beta >= 0`` -- the paper's (6) with the
sign of ``beta`` flipped, as the ``>=`` constraint requires.  A column of the pool outside S
is an omitted dual constraint; Algorithm 1 adds the one with the largest edge while that edge
exceeds ``nu + epsilon``.  If no column violates by more than epsilon, ``(alpha, beta,
nu + epsilon)`` is dual feasible for the full program, so the restricted optimum is within
epsilon of the optimum over the whole pool.

The restricted program is solved with ``gamma`` eliminated, ``minimize w^T K w`` with
``K = H_S^T H_S / m`` (size |S|, not m + |S|): its multipliers of ``1^T w = 1`` and
``g_S^T w >= mu`` are exactly ``nu`` and ``beta`` above (the stationarity conditions
coincide), and ``alpha`` follows from ``gamma = diag(y) H_S w``.
"""
from __future__ import annotations

import numpy as np

from .base import Run, _first_argmax, check_delta, check_int, check_real
from .qp import _ZERO, check_mu, drop_tiny, solve_qp, unreachable_mu

__all__ = ["CqBoost", "CqBoostRun", "example_weight_shares"]


def example_weight_shares(alpha, size):
    """Shares ``|alpha_i| / sum |alpha|`` of the example weights, and the weights they use.

    ``alpha_i = (beta - 2 gamma_i) / m`` is a difference of terms the solver knows to its
    relative accuracy; ``size`` holds their magnitudes ``(|beta| + 2 |gamma_i|) / m``, and an
    ``alpha_i`` within ``qp._ZERO`` (1e-9) of it counts as 0 (a margin at ``beta / 2``), as
    ``drop_tiny`` does for the voters' weights.  When every ``alpha_i`` vanishes (every
    margin equals ``beta / 2``, e.g. a perfect voter and its complement) the dual treats the
    examples alike and the shares are uniform, ``1/m``: Algorithm 1's initialization, where
    no example is preferred (CqBoost paper, Sect. 4), and the shares of ``alpha = c 1`` for
    every ``c != 0``.  Returns ``(shares, alpha with the vanishing ones set to 0)``.
    """
    alpha = np.where(np.abs(alpha) > _ZERO * np.asarray(size, dtype=float), alpha, 0.0)
    total = np.abs(alpha).sum()
    if total == 0.0:
        return np.full(alpha.size, 1.0 / alpha.size), alpha
    return np.abs(alpha) / total, alpha


class CqBoostRun(Run):
    """A CqBoost run in progress (see :class:`CqBoost`)."""

    def __init__(self, H, y, H_test=None, y_test=None, *, mu, epsilon, max_iter, delta,
                 describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        self.mu, self.epsilon = mu, epsilon
        m = self.y.size
        # a convex combination's first moment is at most the best column's, and the first
        # column chosen (uniform example weights) is that best column
        self.largest_mu = float(self.H.rmatvec(self.y).max() / m)
        if mu > self.largest_mu:
            raise unreachable_mu(mu, self.largest_mu, "CqBoost")
        self.alpha = np.full(m, 1.0 / m)   # example weights (Algorithm 1's initialization)
        self._alpha_size = np.zeros(m)     # sizes of the terms of alpha (after a solve)
        self.nu = None                     # multiplier of sum(w) = 1; none before a column
        self.beta = None                   # multiplier of mean(gamma) >= mu
        self.chosen: list[int] = []
        self._YH = np.empty((m, 0))        # columns diag(y) H_S
        self._K = np.empty((0, 0))         # H_S^T H_S / m

    def _advance(self):
        edges = self.H.rmatvec(self.y * self.alpha)
        edges[self.chosen] = -np.inf
        k = _first_argmax(edges)
        if k < 0:
            self.stop_reason = ("every voter of the pool is in the restricted program "
                                "(it is the full program)")
            return None
        edge, nu = float(edges[k]), self.nu
        if nu is not None and edge <= nu + self.epsilon:
            self.stop_reason = (f"no column violates the dual constraint by more than epsilon "
                                f"(largest edge {edge:.6g} <= nu + epsilon = "
                                f"{nu + self.epsilon:.6g})")
            return None
        self._add_column(k)
        w, iterations = self._solve()
        a = np.zeros(self.H.shape[1])
        a[self.chosen] = w
        self._set_weights(a)
        p, alpha = example_weight_shares(self.alpha, self._alpha_size)
        nz = p[p > 0]
        return k, float(a[k]), {
            "objective": float(w @ self._K @ w), "edge": edge,
            "violation": np.nan if nu is None else edge - nu, "nu": self.nu, "beta": self.beta,
            "example_weight_entropy": float(-np.sum(nz * np.log(nz))),
            "example_weight_max": float(p.max()),
            "example_weight_negative": float(np.mean(alpha < 0)),
            "solver_iterations": iterations}

    def _add_column(self, k):
        m = self.y.size
        c = self.y * self.H.column(k)
        cross = self._YH.T @ c / m
        t = len(self.chosen)
        K = np.empty((t + 1, t + 1))
        K[:t, :t] = self._K
        K[:t, t] = K[t, :t] = cross
        K[t, t] = c @ c / m
        self._K = K
        self._YH = np.column_stack([self._YH, c])
        self.chosen.append(k)

    def _solve(self):
        """Restricted program; updates alpha, nu, beta; returns (w, solver iterations)."""
        m, t = self._YH.shape
        g = self._YH.mean(axis=0)
        sol = solve_qp(2.0 * self._K, np.zeros(t), np.vstack([-np.eye(t), -g[None, :]]),
                       np.concatenate([np.zeros(t), [-self.mu]]), np.ones((1, t)), [1.0],
                       what=f"CqBoost's restricted program on {t} columns (mu={self.mu:g})",
                       hint="try a smaller mu or a larger epsilon")
        w = drop_tiny(sol.x)
        self.nu, self.beta = float(sol.y[0]), float(sol.z[-1])
        gamma = self._YH @ w
        self.alpha = (self.beta - 2.0 * gamma) / m
        self._alpha_size = (abs(self.beta) + 2.0 * np.abs(gamma)) / m   # alpha's terms
        return w, sol.iterations


class CqBoost:
    """CqBoost stepper factory (Roy et al. 2016, Algorithm 1).

    Parameters
    ----------
    mu : float in (0, 1]
        Lower bound on the first moment of the margin.  Above the largest reachable one
        (``max_k gamma(h_k)``, ``run.largest_mu``) ``start`` raises
        :class:`~cbviz.algorithms.qp.QPError` with that value in its hint.
    epsilon : float >= 0
        Stop when the best column's edge is at most ``nu + epsilon`` (the paper uses 1e-6).
    max_iter : int >= 1
        Maximum number of columns.
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.

    Each step adds one column (``index``; ``alpha`` is its weight after the re-solve) and
    re-solves the restricted program.  Record ``objective`` is its optimum ``mu2``; extra:
    ``edge`` (the column's edge under the example weights before the step), ``violation``
    (``edge - nu`` with the ``nu`` it was tested against; NaN at the first step), ``nu`` and
    ``beta`` (multipliers of ``sum(w) = 1`` and of the ``mu`` constraint after the re-solve),
    ``example_weight_entropy`` / ``example_weight_max`` (of the shares
    ``|alpha| / sum|alpha|``: how the example weighting concentrates; uniform, so ``ln m`` /
    ``1/m``, when every ``alpha_i`` vanishes: :func:`example_weight_shares`),
    ``example_weight_negative`` (fraction of examples with ``alpha < 0``: margins above
    ``beta / 2``), ``solver_iterations``.  Stop reasons: no column violates the dual
    constraint by more than epsilon; every voter is in the program; max_iter reached.
    """

    def __init__(self, mu=0.05, epsilon=1e-6, max_iter=100, delta=0.05):
        self.mu = check_mu(mu)
        self.epsilon = check_real("epsilon", epsilon, 0.0)  # the dual-constraint tolerance
        self.max_iter = check_int("max_iter", max_iter)
        self.delta = check_delta(delta)

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}."""
        return CqBoostRun(H, y, H_test, y_test, mu=self.mu, epsilon=self.epsilon,
                          max_iter=self.max_iter, delta=self.delta, describe=describe)
