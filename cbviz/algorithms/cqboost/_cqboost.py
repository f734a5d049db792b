"""CqBoost (Roy, Marchand and Laviolette, AISTATS 2016, Algorithm 1): column generation on
the C-bound program.

The master problem is the CqBoost paper's program (3) over the columns S chosen so far,
with the first-moment constraint as ``>=`` (the paper prints ``<=``, a typo: see
:mod:`cbviz.algorithms.mincq._mincq`):

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
coincide), and ``alpha`` follows from ``gamma = diag(y) H_S w``.  ``K`` grows by one row and
column per step (one product of the new column with the chosen ones, ``O(m |S|)``), and the
program is re-solved from the previous optimum and its active set
(:func:`~cbviz.algorithms.cqboost._master.solve_master`), with cvxopt as the fallback should the
active-set method cycle; so a step's cost stays nearly flat in the number of columns.
"""
from __future__ import annotations

import numpy as np

from ...constraints import Interval
from ...voters import as_operator
from ..base import DELTA, MAX_ITER_OR_NONE, Run, check_params, first_argmax
from ._master import MasterSolution, column_products, solve_master
from .._qp import MU, ZERO, drop_tiny, solve_qp, unreachable_mu

__all__ = ["CqBoost", "CqBoostRun", "example_weight_shares", "mu_limit"]

_MAX_SOLVES = 20   # active-set solves allowed per program: 20 + 2 |S|, then cvxopt


def example_weight_shares(alpha, size):
    """Shares ``|alpha_i| / sum |alpha|`` of the example weights, and the weights they use.

    ``alpha_i = (beta - 2 gamma_i) / m`` is a difference of terms the solver knows to its
    relative accuracy; ``size`` holds their magnitudes ``(|beta| + 2 |gamma_i|) / m``, and an
    ``alpha_i`` within ``_qp.ZERO`` (1e-9) of it counts as 0 (a margin at ``beta / 2``), as
    ``drop_tiny`` does for the voters' weights.  When every ``alpha_i`` vanishes (every
    margin equals ``beta / 2``, e.g. a perfect voter and its complement) the dual treats the
    examples alike and the shares are uniform, ``1/m``: Algorithm 1's initialization, where
    no example is preferred (CqBoost paper, Sect. 4), and the shares of ``alpha = c 1`` for
    every ``c != 0``.  Returns ``(shares, alpha with the vanishing ones set to 0)``.
    """
    alpha = np.where(np.abs(alpha) > ZERO * np.asarray(size, dtype=float), alpha, 0.0)
    total = np.abs(alpha).sum()
    if total == 0.0:
        return np.full(alpha.size, 1.0 / alpha.size), alpha
    return np.abs(alpha) / total, alpha


def mu_limit(H, y):
    """The largest ``mu`` CqBoost accepts on ``(H, y)``, and the voter that reaches it.

    The program's constraint ``mean(gamma) = g^T w >= mu`` with ``g_k = mean(y h_k)`` (the
    first moment of voter k's margin) and ``w`` on the simplex: ``g^T w`` is an average of the
    ``g_k``, at most ``max_k g_k``, which the best single voter reaches alone (it is also
    Algorithm 1's first column, picked under uniform example weights).  Returns
    ``(max_k g_k, argmax_k g_k)``; ``H`` a voter matrix or operator, ``y`` in {-1, +1}.
    """
    y = np.asarray(y, dtype=float)
    g = as_operator(H).rmatvec(y) / y.size
    k = int(np.argmax(g))
    return float(g[k]), k


class CqBoostRun(Run):
    """A CqBoost run in progress (see :class:`CqBoost`)."""

    own_rule = "Algorithm 1 stops once no column's edge exceeds nu + epsilon"

    def __init__(self, H, y, H_test=None, y_test=None, *, mu, epsilon, max_iter, delta,
                 describe):
        super().__init__(H, y, H_test, y_test, max_iter=max_iter, delta=delta, describe=describe)
        self.mu, self.epsilon = mu, epsilon
        m = self.y.size
        # a convex combination's first moment is at most the best column's, and the first
        # column chosen (uniform example weights) is that best column (:func:`mu_limit`)
        self._g = self.H.rmatvec(self.y) / m   # g_k = mean(y h_k) of every column
        best = int(np.argmax(self._g))
        self.largest_mu = float(self._g[best])
        if mu > self.largest_mu:
            name = f", {describe(best)}" if describe is not None else ""
            raise unreachable_mu(mu, self.largest_mu, "CqBoost", (
                f"the first moment of the margin of the best single voter (voter {best}{name}), "
                "max_k mean(y h_k) on the training set; a vote's first moment is the average "
                "of its voters' under Q, so no vote reaches more"))
        self.alpha = np.full(m, 1.0 / m)   # example weights (Algorithm 1's initialization)
        self._alpha_size = np.zeros(m)     # sizes of the terms of alpha (after a solve)
        self.nu = None                     # multiplier of sum(w) = 1; none before a column
        self.beta = None                   # multiplier of mean(gamma) >= mu
        self.chosen: list[int] = []
        # columns diag(y) H_S (and spare room); +-1 voters (|h| <= 1 with sum h^2 = m) as int8
        signs = bool(np.all(self.H.col_sq_sums == m))
        self._YH = np.empty((m, 16), dtype=np.int8 if signs else float, order="F")
        self._K = np.empty((16, 16))               # H_S^T H_S / m (and spare room)
        self._w = np.zeros(0)                      # optimum of the last restricted program
        self._free = np.zeros(0, dtype=bool)       # ... and its working set
        self._on_mu = False

    def _next_column(self):
        """Algorithm 1's choice: ``(k, edge, None)`` for the column of largest edge, or
        ``(k, edge, reason)`` when the algorithm stops here instead."""
        edges = self.H.rmatvec(self.y * self.alpha)
        edges[self.chosen] = -np.inf
        k = first_argmax(edges)
        if k < 0:
            return k, None, ("every voter of the pool is in the restricted program (it is the "
                             "full program)")
        edge, nu = float(edges[k]), self.nu
        if nu is not None and edge <= nu + self.epsilon:
            return k, edge, (f"no column violates the dual constraint by more than epsilon "
                             f"(largest edge {edge:.6g} <= nu + epsilon = "
                             f"{nu + self.epsilon:.6g})")
        return k, edge, None

    def _own_stop(self):
        return self._next_column()[2]

    def _advance(self):
        k, edge, reason = self._next_column()
        if reason is not None:
            self.stop_reason = reason
            return None
        nu = self.nu
        self._add_column(k)
        w, iterations = self._solve()
        t = len(self.chosen)
        p, alpha = example_weight_shares(self.alpha, self._alpha_size)
        nz = p[p > 0]
        return k, float(self._a[k]), {
            "objective": float(w @ self._K[:t, :t] @ w), "edge": edge,
            "violation": np.nan if nu is None else edge - nu, "nu": self.nu, "beta": self.beta,
            "example_weight_entropy": float(-np.sum(nz * np.log(nz))),
            "example_weight_max": float(p.max()),
            "example_weight_negative": float(np.mean(alpha < 0)),
            "solver_iterations": iterations}

    def _add_column(self, k):
        """Append column k to diag(y) H_S and K (buffers doubled when full)."""
        m, t = self.y.size, len(self.chosen)
        if t == self._K.shape[0]:
            YH, K = self._YH, self._K
            self._YH = np.empty((m, 2 * t), dtype=YH.dtype, order="F")
            self._YH[:, :t] = YH
            self._K = np.empty((2 * t, 2 * t))
            self._K[:t, :t] = K
        self._YH[:, t] = self.y * self.H.column(k)
        c = self._YH[:, t]
        cross = np.empty(t + 1)
        column_products(self._YH, t + 1, c, cross)
        self._K[:t + 1, t] = self._K[t, :t + 1] = cross / m
        self.chosen.append(k)

    def _solve(self):
        """Restricted program; sets the vote, alpha, nu, beta; returns (w, solver iterations).

        Warm start: the last optimum with the new column at 0 is feasible, and the new
        column is free at once (its bound's multiplier ``nu - edge`` is negative: it was
        chosen for violating the dual constraint).
        """
        m, t = self.y.size, len(self.chosen)
        K, g = self._K[:t, :t], self._g[self.chosen]
        w0 = np.append(self._w, 0.0) if t > 1 else np.ones(1)
        free0 = np.append(self._free, True)
        sol = solve_master(K, g, self.mu, w0, free0, self._on_mu, max_iter=_MAX_SOLVES + 2 * t)
        if sol is None:
            sol = self._solve_cold(K, g)
        w = sol.w
        self._w, self._free, self._on_mu = w, sol.free, sol.on_mu
        self.nu, self.beta = sol.nu, sol.beta
        a = np.zeros(self.H.shape[1])
        a[self.chosen] = w
        self._set_weights(a)
        gamma = self.y * self.F   # the margins diag(y) H_S w
        self.alpha = (self.beta - 2.0 * gamma) / m
        self._alpha_size = (abs(self.beta) + 2.0 * np.abs(gamma)) / m   # alpha's terms
        return w, sol.iterations

    def _solve_cold(self, K, g):
        """cvxopt's interior-point solution, as a working set for the next warm start."""
        t = g.size
        sol = solve_qp(2.0 * K, np.zeros(t), np.vstack([-np.eye(t), -g[None, :]]),
                       np.concatenate([np.zeros(t), [-self.mu]]), np.ones((1, t)), [1.0],
                       what=f"CqBoost's restricted program on {t} columns (mu={self.mu:g})",
                       hint="try a smaller mu or a larger epsilon")
        w = drop_tiny(sol.x)
        beta = float(sol.z[-1])
        return MasterSolution(w, float(sol.y[0]), beta, w > 0, beta > ZERO * abs(sol.y[0]),
                              sol.iterations)


class CqBoost:
    """CqBoost stepper factory (Roy et al. 2016, Algorithm 1).

    Parameters
    ----------
    mu : float in (0, 1]
        Lower bound on the first moment of the margin.  The paper selects it by 5-fold
        cross-validation among 15 values from 1e-2 to 10^-0.5 (Sect. 7); 0.05 is our default.
        Its upper limit depends on the data: the first moment of the margin of the best single
        voter, ``max_k mean(y h_k)`` on the training set (:func:`mu_limit`,
        ``run.largest_mu``), since a vote's first moment is its voters' average under Q.
        Above it ``start`` raises :class:`~cbviz.algorithms._qp.MuLimitError` (a
        ``ValueError``) naming both numbers and that voter.
    epsilon : float >= 0
        Stop when the best column's edge is at most ``nu + epsilon``: Algorithm 1's rule,
        with the paper's 1e-6 (Sect. 7).
    max_iter : int >= 1 or None
        ``None`` (the default): no cap, run to Algorithm 1's rule (at most one column per
        voter of the pool).  A number caps the columns; a run it cuts short is ``capped``
        and its stop reason says so.
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the records.

    Notes
    -----
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
    constraint by more than epsilon (Algorithm 1's rule); every voter is in the program (the
    full program is solved); "max_iter reached (t) before the paper's stopping rule: a cap
    cut the run short (...)".
    """

    _parameter_constraints = {
        "mu": MU, "epsilon": Interval(float, 0, None, closed="left"),  # the dual tolerance
        "max_iter": MAX_ITER_OR_NONE, "delta": DELTA}

    def __init__(self, mu=0.05, epsilon=1e-6, max_iter=None, delta=0.05):
        vars(self).update(check_params(self, mu=mu, epsilon=epsilon, max_iter=max_iter,
                                       delta=delta))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}."""
        return CqBoostRun(H, y, H_test, y_test, mu=self.mu, epsilon=self.epsilon,
                          max_iter=self.max_iter, delta=self.delta, describe=describe)
