"""Warm-started active-set solver of CqBoost's restricted master program.

CqBoost (Roy, Marchand and Laviolette, AISTATS 2016, Algorithm 1) re-solves, after adding each
column, its program (3) over the columns S chosen so far.  With ``gamma = diag(y) H_S w``
eliminated (:mod:`cbviz.algorithms.cqboost._cqboost`) it is a program in ``|S|`` variables:

    minimize w^T K w   s.t.   1^T w = 1  (nu),   g^T w >= mu  (beta >= 0),   w >= 0  (xi >= 0),

``K = H_S^T H_S / m``, ``g = H_S^T y / m``, with the Lagrangian
``w^T K w + nu (1^T w - 1) + beta (mu - g^T w) - xi^T w`` (cvxopt's sign convention, so that
``nu``, ``beta`` are the multipliers the module has always reported).  Its KKT conditions:

    2 K w + nu 1 - beta g - xi = 0,   xi >= 0,   xi_j w_j = 0,   beta >= 0,   beta (g^T w - mu) = 0.

Consecutive programs differ by one column, and the previous optimum (with the new column at 0)
is feasible for the next one: the primal active-set method (Nocedal and Wright, Numerical
Optimization, 2nd ed., Algorithm 16.3) starts from it and its working set, and usually needs
one to three equality-constrained solves, each a dense ``(f + 2)``-square linear system over
the ``f`` free variables (``f <= |S|``), instead of an interior-point method's ~15
factorizations of a system that grows with ``|S|``.  Each solve gives the exact optimum of the
equality-constrained program, so the final point satisfies the KKT conditions above to
round-off (the multipliers ``xi`` of the fixed variables are checked to ``1e-11`` of the
gradient's scale).
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.linalg import lstsq

__all__ = ["MasterSolution", "column_products", "solve_master"]

_MULT_TOL = 1e-11   # a multiplier above -_MULT_TOL * (gradient scale) counts as >= 0
_PIVOT = 1e-12      # a pivot below this fraction of the largest entry: a singular system
_JIT = dict(nogil=True, cache=True)


@numba.njit([numba.void(numba.types.Array(t, 2, "F", readonly=True), numba.int64,
                        numba.types.Array(t, 1, "A", readonly=True), numba.float64[::1])
             for t in (numba.int8, numba.float64)], fastmath={"reassoc"}, **_JIT)
def column_products(YH, t, c, out):
    """``out[j] = YH[:, j] . c`` for the first ``t`` columns, on the calling thread only (no
    BLAS threads: they fight the stump engine's for the cores).  +-1 voters are stored as
    int8 (a quarter of float32's memory traffic) and summed exactly in integers."""
    for j in range(t):
        col = YH[:, j]
        s = col[0] * c[0]
        for i in range(1, c.size):
            s += col[i] * c[i]
        out[j] = s


@numba.njit(numba.float64(numba.float64[:, ::1], numba.float64[::1]), **_JIT)
def _lu_solve(A, b):
    """Solve ``A x = b`` in place (``b`` becomes x) by Gaussian elimination with partial
    pivoting, on the calling thread; returns the smallest pivot over the largest entry of
    ``A`` (0 when a pivot vanishes, and ``b`` is then left unsolved)."""
    n = b.size
    big = np.abs(A).max()
    smallest = np.inf
    for k in range(n):
        p = k + np.argmax(np.abs(A[k:, k]))
        if A[p, k] == 0.0:
            return 0.0
        if p != k:
            for j in range(k, n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
            b[k], b[p] = b[p], b[k]
        smallest = min(smallest, abs(A[k, k]) / big)
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
                b[i] -= f * b[k]
    for k in range(n - 1, -1, -1):
        s = b[k]
        for j in range(k + 1, n):
            s -= A[k, j] * b[j]
        b[k] = s / A[k, k]
    return smallest


@dataclass(frozen=True)
class MasterSolution:
    """An optimum of the restricted program and the working set that certifies it.

    ``w`` (fixed variables exactly 0), the multipliers ``nu`` of ``1^T w = 1`` and ``beta`` of
    ``g^T w >= mu`` (0 when the constraint is not in the working set), ``free`` (the variables
    not fixed at 0), ``on_mu`` (the ``mu`` constraint held as an equality) and the number of
    equality-constrained solves.  ``free`` and ``on_mu`` warm-start the next program.
    """

    w: np.ndarray
    nu: float
    beta: float
    free: np.ndarray
    on_mu: bool
    iterations: int


def _equality_solve(K, g, mu, F, on_mu):
    """Optimum of ``min w_F^T K_FF w_F`` s.t. ``1^T w_F = 1`` (and ``g_F^T w_F = mu`` if
    ``on_mu``): the KKT system ``[[2 K_FF, 1, -g_F], [1^T, 0, 0], [g_F^T, 0, 0]]``
    ``[w_F; nu; beta] = [0; 1; mu]``.  A singular system (linearly dependent free columns:
    a voter and its complement twice, duplicates) is consistent, since f is flat along
    ``K``'s null space, and is solved by least squares (one of its optima)."""
    f = F.size
    size = f + 1 + on_mu
    A = np.zeros((size, size))
    A[:f, :f] = 2.0 * K[np.ix_(F, F)]
    A[:f, f] = A[f, :f] = 1.0
    rhs = np.zeros(size)
    rhs[f] = 1.0
    if on_mu:
        A[:f, f + 1] = -g[F]
        A[f + 1, :f] = g[F]
        rhs[f + 1] = mu
    x = rhs.copy()
    if _lu_solve(A.copy(), x) <= _PIVOT:
        x = lstsq(A, rhs, lapack_driver="gelsy")[0]
    return x[:f], float(x[f]), float(x[f + 1]) if on_mu else 0.0


def solve_master(K, g, mu, w, free, on_mu, max_iter):
    """Solve the restricted program from a feasible ``w`` and its working set.

    Parameters
    ----------
    K, g : arrays (t, t) and (t,)
        ``H_S^T H_S / m`` and ``H_S^T y / m``.
    mu : float
        Lower bound on the first moment of the margin, ``g^T w >= mu``.
    w : array (t,)
        A feasible point: ``w >= 0``, ``sum(w) = 1``, ``g^T w >= mu``, 0 outside ``free``.
    free : bool array (t,)
        Variables not fixed at 0 in the starting working set (at least one).
    on_mu : bool
        The ``mu`` constraint is in the starting working set (then ``g^T w = mu``).
    max_iter : int
        Equality-constrained solves allowed.

    Returns
    -------
    MasterSolution, or None after ``max_iter`` solves (degenerate cycling; the caller falls
    back to an interior-point solver).
    """
    w = np.array(w, dtype=float)
    free = np.array(free, dtype=bool)
    for it in range(1, max_iter + 1):
        F = np.flatnonzero(free)
        x, nu, beta = _equality_solve(K, g, mu, F, on_mu)
        # ratio test: the largest step toward x keeping w_F >= 0 and g^T w >= mu
        step, block = 1.0, None
        wF = w[F]
        for j in np.flatnonzero(x < 0.0):
            ratio = wF[j] / (wF[j] - x[j])
            if ratio < step:
                step, block = ratio, F[j]
        gx, gw = float(g[F] @ x), float(g[F] @ wF)
        if not on_mu and gx < mu:
            # (a w below mu by round-off, e.g. a first column an ulp under it, blocks at once)
            ratio = max(gw - mu, 0.0) / (gw - gx) if gw > gx else 0.0
            if ratio < step:
                step, block = ratio, "mu"
        if block is None:
            w[F] = x
            Kw2 = 2.0 * (K @ w)
            xi = Kw2 + nu - beta * g          # multipliers of w_j >= 0 (0 on the free ones)
            xi[F] = np.inf
            scale = max(np.abs(Kw2).max(), abs(nu), abs(beta) * np.abs(g).max(), 1e-300)
            j = int(np.argmin(xi))
            worst = min(xi[j], beta if on_mu else np.inf)
            if worst >= -_MULT_TOL * scale:
                return MasterSolution(w, nu, beta, free, on_mu, it)
            if on_mu and beta <= xi[j]:
                on_mu = False                 # the mu constraint stops binding
            else:
                free[j] = True                # release the most violated bound
        else:
            w[F] = wF + step * (x - wF)
            if block == "mu":
                on_mu = True
            else:
                free[block] = False
                w[block] = 0.0
    return None
