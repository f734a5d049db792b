"""A small wrapper around cvxopt's quadratic-program solver, shared by MinCq and CqBoost.

:func:`solve_qp` solves ``minimize (1/2) x^T P x + c^T x  s.t.  G x <= h,  A x = b`` and
returns the primal point with the Lagrange multipliers in cvxopt's convention: the
Lagrangian is ``(1/2) x^T P x + c^T x + y^T (A x - b) + z^T (G x - h)`` with ``z >= 0``,
so stationarity reads ``P x + c + A^T y + G^T z = 0``.  Solver options are passed per call
(never through cvxopt's global ``solvers.options``): the app runs many sessions in threads.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from cvxopt import matrix, solvers

from ..constraints import Interval
from .base import ParameterError

__all__ = ["QPError", "MuLimitError", "QPSolution", "MU", "drop_tiny", "solve_qp",
           "unreachable_mu"]

# interior-point solutions put ~1e-12 rather than 0 on inactive variables; weights below this
# fraction of the largest one count as zero (so a record's support is the real one)
ZERO = 1e-9
# Much tighter than cvxopt's defaults (abstol 1e-7, reltol 1e-6, feastol 1e-7): the
# objectives are second moments of margins, often ~1e-3, and at the default gap the weights
# of voters near a bound are off by ~1e-5.  The LDL factorization of the full KKT system
# reaches these tolerances where the default Cholesky-based one stops on a singular system
# (the Gram matrices here are singular: a voter and its complement, duplicate voters).
_KKT = "ldl"
_OPTIONS = {"show_progress": False, "abstol": 1e-13, "reltol": 1e-12, "feastol": 1e-12,
            "maxiters": 200}


class QPError(ParameterError):
    """A quadratic program has no solution or the solver did not find it.

    ``status`` is the solver's status (e.g. ``"unknown"``, ``"singular KKT system"``,
    ``"infeasible"``); ``hint`` says what to change.
    """

    def __init__(self, message, status, hint):
        super().__init__(f"{message} (solver status: {status}); {hint}")
        self.status = status
        self.hint = hint


class MuLimitError(QPError):
    """``mu`` above the largest first moment of the margin that the program's posteriors
    reach on the training data (``limit``): the program is infeasible (status "infeasible").

    ``mu``, ``limit`` and ``program`` are kept; the message gives both numbers and, in
    ``why``, where the limit comes from (for CqBoost: the best single voter's first moment).
    """

    def __init__(self, mu, limit, program, why=""):
        super().__init__(f"{program}: mu = {mu:.10g} is above its upper limit on these data, "
                         f"{limit:.10g}" + (f": {why}" if why else ""), "infeasible",
                         f"lower mu: the largest reachable first moment is {limit:.10g}")
        self.mu, self.limit, self.program = mu, limit, program


@dataclass(frozen=True)
class QPSolution:
    """Solution of :func:`solve_qp`: primal ``x``, multipliers ``y`` (equalities) and
    ``z`` (inequalities, ``>= 0``), the objective ``(1/2) x^T P x + c^T x``, solver status
    and number of interior-point iterations."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    objective: float
    status: str
    iterations: int


def _m(a):
    """A cvxopt dense matrix (a 1-D array becomes a column)."""
    return matrix(np.ascontiguousarray(np.atleast_1d(a), dtype=float))


def solve_qp(P, c, G, h, A, b, *, what, hint):
    """Solve ``minimize (1/2) x^T P x + c^T x  s.t.  G x <= h, A x = b`` with cvxopt.

    ``what`` names the program and ``hint`` says what to change, both for the
    :class:`QPError` raised when the solver fails (singular KKT system, no convergence).
    """
    try:
        sol = solvers.qp(_m(P), _m(c), _m(G), _m(h), _m(A), _m(b), kktsolver=_KKT,
                         options=_OPTIONS)
    except (ValueError, ArithmeticError) as exc:
        # cvxopt raises "Rank(A) < p or Rank([P; A; G]) < n" when the KKT system is singular
        # at the start, ArithmeticError when a factorization fails, and ValueError("domain
        # error") when an iterate leaves the cone (typically an infeasible program)
        singular = isinstance(exc, ArithmeticError) or "Rank" in str(exc)
        raise QPError(f"{what}: cvxopt could not solve it ({exc})",
                      "singular KKT system" if singular else "numerical failure",
                      hint) from None
    status = sol["status"]
    if status != "optimal":
        raise QPError(f"{what}: no convergence after {sol['iterations']} iterations "
                      f"(gap {sol['gap']:.2e}, primal infeasibility "
                      f"{sol['primal infeasibility']:.2e})", status, hint)
    x = np.array(sol["x"]).ravel()
    return QPSolution(x=x, y=np.array(sol["y"]).ravel(), z=np.array(sol["z"]).ravel(),
                      objective=float(sol["primal objective"]), status=status,
                      iterations=int(sol["iterations"]))


# the first moment of the margin MinCq's and CqBoost's programs impose
MU = Interval(float, 0, 1, closed="right")


def unreachable_mu(mu, largest, program, why=""):
    """The :class:`MuLimitError` for a ``mu`` above the largest first moment any posterior
    reaches (``why``: where that limit comes from, in words)."""
    return MuLimitError(mu, largest, program, why or "no posterior reaches a larger first "
                        "moment of the margin")


def drop_tiny(x):
    """Non-negative weights from a solver's ``x``: round-off negatives and weights below
    ``1e-9`` of the largest (interior-point values of inactive variables) set to 0."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    return np.where(x > ZERO * x.max(), x, 0.0)
