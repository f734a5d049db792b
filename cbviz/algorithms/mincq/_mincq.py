"""MinCq (Laviolette et al. 2011; Germain et al. JMLR 2015): the C-bound minimizer as one
quadratic program over the whole pool, and its CB-Boost companion of the CB-Boost paper.

Two forms of the program (``form``):

``"quasi_uniform"`` -- the algorithm as its authors state and code it.  On a
self-complemented pool with ``n'`` direct voters the posterior is quasi-uniform:
``Q(h_i) + Q(-h_i) = 1/n'``, so it is fixed by ``Q_i = Q(h_i)`` in ``[0, 1/n']`` and the vote
is ``F = H_d w`` with the signed weights ``w = 2Q - 1/n'``.  Then ``mu1 = g^T w`` and
``mu2 = w^T M w`` with ``M = H_d^T H_d / m``, ``g = H_d^T y / m``; writing ``w`` through ``Q``,
``mu2 = 4 (Q^T M Q - A^T Q) + 1^T M 1 / n'^2`` with ``A = M 1 / n'``, and ``mu1 = mu`` reads
``g^T Q = mu/2 + sum(g) / (2n')``.  The program (Germain et al. 2015, Program 1) is

    minimize Q^T M Q - A^T Q   s.t.  g^T Q = mu/2 + sum(g)/(2n'),  0 <= Q_i <= 1/n'.

It reaches any ``mu`` up to ``max_w g^T w = mean(|g|)`` (``|w_i| <= 1/n'``).

``"simplex"`` -- the plain program (2) of the CqBoost paper: ``q`` on the simplex over all
``n`` voters of the pool, ``minimize mu2 = q^T K q`` with ``K = H^T H / m``.  The paper prints
the first-moment constraint as ``mu1 <= mu``; minimizing ``mu2`` under it drives the margins
to zero, and its own Lagrangian (4) then describes the wrong problem, so it is a typo: we
solve ``mu1 >= mu``, as the authors' CqBoost code does.  On a self-complemented pool the
constraint is active at the optimum (shrinking the vote towards a zero vote -- mass split
evenly between a voter and its complement -- lowers ``mu2``), so it is MinCq's ``mu1 = mu``.
It reaches any ``mu`` up to ``max_k gamma(h_k)``.

For ``mu`` small enough both forms reach the smallest C-bound of any signed vote on the pool,
``1 - g^T M^+ g`` (the C-bound is scale-free; ``mu`` only fixes the scale).

:func:`mincq_on_history` is "MinCq(CB-Boost)" (CB-Boost paper, Sect. 2.3 and Fig. 5): the best
C-bound reachable with non-negative weights on the voters CB-Boost has chosen up to each
iteration.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ... import bounds, progress
from ...constraints import Interval, Options
from ..base import DELTA, ParameterError, Run, check_params
from ._newton import NEWTON_EXAMPLES, use_newton
from ._precond import BlockPreconditioner
from ._sets import BoxHyperplane, L1Halfspace, SimplexHalfspace
from ._solver import minimize_second_moment
from .._qp import MU, QPError, drop_tiny, solve_qp, unreachable_mu

__all__ = ["CVXOPT_MAX_VARIABLES", "FORMS", "MINCQ_ON_HISTORY_COLUMNS", "SOLVERS",
           "MemoryLimitError", "MinCq", "MinCqRun", "mincq_on_history"]

FORMS = ("quasi_uniform", "simplex")
SOLVERS = ("auto", "cvxopt", "gram_free")
_HINT = "try a smaller mu, or remove duplicate voters from the pool"
# "auto" solves programs up to this many variables with cvxopt (the reference: dense Gram
# matrix, interior point, cost growing as the cube: ~10 s (quasi-uniform) to ~45 s (simplex)
# at 2000 variables on one core) and larger ones Gram-free (mincq_solver)
CVXOPT_MAX_VARIABLES = 600
_GRAM_FREE_VECTORS = 60    # vectors of length m + n the Gram-free solver holds, generously


class MemoryLimitError(ParameterError):
    """A MinCq program would not fit in the memory available; ``needed`` and ``available``
    are in bytes."""

    def __init__(self, message, needed, available):
        super().__init__(message)
        self.needed, self.available = needed, available


def available_memory():
    """Bytes of memory available (``MemAvailable`` of /proc/meminfo), or None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def memory_needed(m, n, solver):
    """Bytes a MinCq solve holds beyond the voter matrix: cvxopt's dense Gram matrix and KKT
    system (``~ (n^2 + (3n)^2) * 8``), or the Gram-free solver's vectors and preconditioner
    blocks (``~ (60 (m + n) + 3 * 32 n) * 8``)."""
    if solver == "cvxopt":
        return 8 * (n * n + (3 * n) ** 2 + m * n)
    return 8 * (_GRAM_FREE_VECTORS * (m + n) + 3 * 32 * n)


class _Direct:
    """The direct voters of a self-complemented operator with signed weights:
    ``matvec(w) = H_d w`` (weight ``w_k > 0`` on voter k, ``-w_k`` on its complement) and
    ``rmatvec(v) = H_d^T v``; stump attributes (for the preconditioner) of the direct half."""

    def __init__(self, op, half):
        self.op, self.half = op, half
        self.shape = (op.shape[0], half)
        for name in ("feature", "sign"):
            value = getattr(op, name, None)
            if value is not None:
                setattr(self, name, np.asarray(value)[:half])

    def matvec(self, w):
        return self.op.matvec(np.concatenate([np.maximum(w, 0.0), np.maximum(-w, 0.0)]))

    def rmatvec(self, v):
        return self.op.rmatvec(v)[:self.half]

    def columns(self, idx):
        return self.op.columns(idx)


class _GramFreeSolution:
    def __init__(self, objective, status, iterations, products, phases):
        self.objective, self.status, self.iterations = objective, status, iterations
        self.products = products
        self.phases = ", ".join(f"{k} {v}" for k, v in phases.items())


def _stop_reason(sol, gap):
    """The run's stop reason: solved (cvxopt's or the Gram-free solver's certificate), or
    stopped before the certificate, with the gap left (objective units) and its share of the
    objective."""
    if sol.status == "optimal":
        return "MinCq solved its quadratic program (optimal)"
    share = f"{100.0 * gap / abs(sol.objective):.2g}%" if sol.objective else "all"
    left = f"duality gap {gap:.1e}, {share} of the objective"
    products = getattr(sol, "products", None)
    if sol.status == "max products":
        return (f"MinCq stopped after {products:,} operator products without certifying the "
                f"optimum ({left})")
    if sol.status == "stalled (round-off)":
        return (f"MinCq stopped after {products:,} operator products without certifying the "
                f"optimum: round-off stalled its progress ({left})")
    return f"MinCq stopped without certifying the optimum (solver status {sol.status}; {left})"


class MinCqRun(Run):
    """A MinCq run: one step solves the program, records the vote and stops (see :class:`MinCq`)."""

    def __init__(self, H, y, H_test=None, y_test=None, *, mu, form, delta, describe,
                 solver="auto", rtol=1e-6, max_products=20000):
        super().__init__(H, y, H_test, y_test, max_iter=1, delta=delta, describe=describe)
        vars(self).update(check_params(MinCq, mu=mu, form=form, solver=solver))
        self.rtol, self.max_products = rtol, max_products
        m = self.y.size
        if form == "quasi_uniform":
            self._g = self.H.rmatvec(self.y)[:self.n_direct] / m
            self.largest_mu = float(np.mean(np.abs(self._g)))   # w_i = sign(g_i) / n'
        else:
            self._g = self.H.rmatvec(self.y) / m
            self.largest_mu = float(self._g.max())              # all mass on the best voter
        n = self._g.size
        if solver == "auto":
            solver = "cvxopt" if n <= CVXOPT_MAX_VARIABLES else "gram_free"
        self.solver = solver
        needed, free = memory_needed(m, n, solver), available_memory()
        if free is not None and needed > free:
            raise MemoryLimitError(
                f"MinCq ({form}, {solver}) needs about {needed / 2**20:.0f} MiB for {n} "
                f"variables and {m} examples, {free / 2**20:.0f} MiB are available: "
                + ("use solver='gram_free' (no Gram matrix)" if solver == "cvxopt" else
                   "use fewer examples or voters"), needed, free)
        if mu > self.largest_mu:
            raise unreachable_mu(mu, self.largest_mu, f"MinCq ({form})", (
                "mean_k |mean(y h_k)| over the direct voters, each at weight +-1/n toward its "
                "better side" if form == "quasi_uniform" else
                "the first moment of the margin of the best single voter, max_k mean(y h_k)"))

    def _advance(self):
        if self.solver == "gram_free":
            sol = self._solve_gram_free()
        elif self.form == "quasi_uniform":
            sol = self._solve_quasi_uniform()
        else:
            sol = self._solve_simplex()
        gap, kkt = self._certificate()
        self.stop_reason = _stop_reason(sol, gap)
        self.capped = sol.status == "max products"   # the product budget, not the optimum
        return None, None, {"objective": sol.objective, "solver_status": sol.status,
                            "solver_iterations": sol.iterations, "mu": self.mu,
                            "solver": self.solver, "duality_gap": gap, "kkt_residual": kkt,
                            "solver_products": getattr(sol, "products", None),
                            "solver_phases": getattr(sol, "phases", None)}

    def _program(self):
        """(operator of the program's variables, feasible set, x of the current vote, scale of
        the objective): ``objective = (|H x|^2 / m - shift) * scale``."""
        m, g = self.y.size, self._g
        if self.form == "quasi_uniform":
            half = g.size
            op = _Direct(self.H, half)
            x = self._a[:half] - self._a[half:]
            shift = float(np.sum(op.matvec(np.full(half, 1.0 / half)) ** 2)) / m
            return op, BoxHyperplane(g, self.mu, -1.0 / half, 1.0 / half), x, shift, 0.25
        return self.H, SimplexHalfspace(g, self.mu), self._a.copy(), 0.0, 1.0

    def _certificate(self):
        """Duality gap (objective units: bounds objective - optimum) and largest KKT
        violation (gradient units of ``|H x|^2 / m``) of the vote found, whatever solved it."""
        op, fset, x, _, scale = self._program()
        F = op.matvec(x)
        G = 2.0 * op.rmatvec(F) / self.y.size
        gap = max(float(np.einsum("i,i->", G, x)) - fset.lmo_value(G), 0.0)
        return gap * scale, fset.kkt(x, G)

    def _solve_gram_free(self):
        """Either form by :func:`~cbviz.algorithms.mincq._solver.minimize_second_moment`.
        With few examples (``m <=`` :data:`~cbviz.algorithms.mincq._newton.NEWTON_EXAMPLES`)
        by proximal Newton steps: the simplex form of a self-complemented pool in the signed
        weights of its direct voters (:class:`~cbviz.algorithms.mincq._sets.L1Halfspace`: the
        weight a voter and its complement share changes nothing), the quasi-uniform form when
        it has more variables than examples.  Else by accelerated gradient and face polish
        (and proximal Newton if they have not certified the optimum within a few thousand
        products and ``m`` is at most
        :data:`~cbviz.algorithms.mincq._newton.NEWTON_MAX_EXAMPLES`)."""
        op, fset, _, shift, scale = self._program()
        m, n = self.y.size, fset.a.size
        newton = use_newton(m, n)
        if (self.form == "simplex" and m <= NEWTON_EXAMPLES
                and self.H.is_self_complemented()):
            # a voter and its complement: a direction along which nothing changes for every
            # pair, so the q-space Hessian is singular whatever n and m
            half = n // 2
            res = minimize_second_moment(_Direct(self.H, half), m,
                                         L1Halfspace(self._g[:half], self.mu), np.zeros(half),
                                         rtol=self.rtol, max_products=self.max_products,
                                         method="newton")
            w = res.x
            spare = max(1.0 - float(np.abs(w).sum()), 0.0) / n     # on each voter of a pair
            self._set_weights(np.concatenate([np.maximum(w, 0.0), np.maximum(-w, 0.0)]) + spare)
            return _GramFreeSolution((res.f - shift) * scale, res.status, res.iterations,
                                     res.products, res.phases)
        x0 = np.zeros(n) if self.form == "quasi_uniform" else np.full(n, 1.0 / n)
        pre = None if newton else BlockPreconditioner(op, op.rmatvec(np.ones(m)) / m)
        res = minimize_second_moment(op, m, fset, x0, rtol=self.rtol,
                                     max_products=self.max_products, precond=pre)
        if self.form == "quasi_uniform":
            self._set_signed(res.x)
        else:
            self._set_weights(res.x)
        return _GramFreeSolution((res.f - shift) * scale, res.status, res.iterations,
                                 res.products, res.phases)

    def _solve_quasi_uniform(self):
        """Program 1 in Q; sets the vote w = 2Q - 1/n' on the direct voters."""
        g, m = self._g, self.y.size
        half = g.size
        Hd = self.H.columns(np.arange(half))
        M = Hd.T @ Hd / m
        eye = np.eye(half)
        sol = solve_qp(2.0 * M, -M.mean(axis=1), np.vstack([-eye, eye]),
                       np.concatenate([np.zeros(half), np.full(half, 1.0 / half)]),
                       g[None, :], [self.mu / 2.0 + g.sum() / (2.0 * half)],
                       what=f"MinCq (quasi-uniform, mu={self.mu:g})", hint=_HINT)
        Q = np.clip(sol.x, 0.0, 1.0 / half)
        self._set_signed(2.0 * Q - 1.0 / half)
        return sol

    def _solve_simplex(self):
        """min q^T K q on the simplex with g^T q >= mu; sets the vote q over all voters."""
        g, m = self._g, self.y.size
        n = g.size
        Hf = self.H.toarray()
        K = Hf.T @ Hf / m
        sol = solve_qp(2.0 * K, np.zeros(n), np.vstack([-np.eye(n), -g[None, :]]),
                       np.concatenate([np.zeros(n), [-self.mu]]), np.ones((1, n)), [1.0],
                       what=f"MinCq (simplex, mu={self.mu:g})", hint=_HINT)
        self._set_weights(drop_tiny(sol.x))
        return sol


class MinCq:
    """MinCq stepper factory: the C-bound minimizer over a finite pool, one quadratic program.

    Parameters
    ----------
    mu : float in (0, 1]
        First moment of the margin the posterior must reach.  A ``mu`` above the largest
        reachable one (``run.largest_mu``) raises :class:`~cbviz.algorithms._qp.QPError` at
        ``start``.
    form : {"quasi_uniform", "simplex"}
        ``"quasi_uniform"``: Germain et al. (2015), Program 1, on a self-complemented pool; the
        vote is ``w = 2Q - 1/n'`` on the direct voters, held with non-negative weights
        ``max(w, 0)`` on voter ``k`` and ``max(-w, 0)`` on its complement (so the record's
        ``mu1`` is ``mu / sum|w|``: the margins of that vote normalized to a posterior).
        ``"simplex"``: the CqBoost paper's program (2) with ``mu1 >= mu`` over all voters; the
        record's ``mu1``/``mu2`` are the program's.
    delta : float in (0, 1]
        Confidence parameter of the PAC-Bayesian bounds in the record.
    solver : {"auto", "cvxopt", "gram_free"}
        ``"cvxopt"``: the reference, a dense Gram matrix and an interior-point method;
        ``"gram_free"``: :func:`~cbviz.algorithms.mincq._solver.minimize_second_moment`, one
        ``H x`` and one ``H^T v`` per iteration and memory linear in ``m + n``; ``"auto"``:
        cvxopt up to :data:`CVXOPT_MAX_VARIABLES` variables.  A program that would not fit in
        the available memory raises :class:`MemoryLimitError` at ``start``.
    rtol, max_products : float, int
        Gram-free solver: stop when the duality gap is at most ``rtol`` times the second
        moment ``|F|^2 / m``, or after ``max_products`` operator products (status
        "max products").

    Notes
    -----
    The run takes one step: its record has ``objective`` (the program's objective value:
    ``Q^T M Q - A^T Q`` or ``q^T K q``) and extra ``solver_status``, ``solver_iterations``,
    ``mu``, ``solver``, ``duality_gap`` (an upper bound on objective - optimum, in objective
    units), ``kkt_residual`` (largest KKT violation, gradient units of ``|F|^2 / m``) and
    ``solver_products``, ``solver_phases`` (Gram-free: operator products, and by phase as
    text, e.g. "setup 42, check 10, newton 132, final 2"; None for cvxopt); then
    ``stop_reason`` is "MinCq solved its quadratic program (optimal)", or, when the solver
    stops before its certificate, e.g. "MinCq stopped after 20,000 operator products without
    certifying the optimum (duality gap 1.8e-04, 0.54% of the objective)".
    """

    _parameter_constraints = {
        "mu": MU, "form": Options(FORMS), "delta": DELTA, "solver": Options(SOLVERS),
        "rtol": Interval(float, 0, 1, closed="right"),
        "max_products": Interval(int, 1, None, closed="left")}

    def __init__(self, mu=0.05, form="quasi_uniform", delta=0.05, solver="auto", rtol=1e-6,
                 max_products=20000):
        vars(self).update(check_params(self, mu=mu, form=form, delta=delta, solver=solver,
                                       rtol=rtol, max_products=max_products))

    def start(self, H, y, H_test=None, y_test=None, describe=None):
        """A new run on voter matrix/operator ``H`` and labels ``y`` in {-1, +1}."""
        return MinCqRun(H, y, H_test, y_test, mu=self.mu, form=self.form, delta=self.delta,
                        describe=describe, solver=self.solver, rtol=self.rtol,
                        max_products=self.max_products)


MINCQ_ON_HISTORY_COLUMNS = ["iteration", "n_voters", "c_bound", "train_error", "test_error",
                            "cbboost_c_bound"]


def mincq_on_history(run, iterations=None):
    """MinCq(CB-Boost) (CB-Boost paper, Fig. 5): the best C-bound on CB-Boost's voters.

    For each iteration t, with S_t the voters in the vote after t (``record.support``),
    solves ``minimize nu(H_S a)  s.t.  gamma(H_S a) = 1, a >= 0`` (the C-bound is scale-free,
    so ``C = 1 - 1/nu`` at the optimum is the least C-bound of any non-negative vote on S_t)
    and reports that vote's C-bound and train/test error next to CB-Boost's C-bound at t.

    Parameters
    ----------
    run : Run
        A finished or partial run whose records' supports are its chosen voters
        (``CBBoost(...).start(...).run()``).
    iterations : iterable of int, optional
        Iterations to evaluate (default: all).

    Returns
    -------
    pandas.DataFrame
        Columns ``iteration, n_voters, c_bound, train_error, test_error, cbboost_c_bound``
        (``test_error`` is None without test data).

    Each program is reported to :mod:`cbviz.progress` before it is solved.
    """
    its = range(1, len(run.history) + 1) if iterations is None else [int(t) for t in iterations]
    records = [run.history[run._position(t)] for t in its]
    if not records:
        return pd.DataFrame(columns=MINCQ_ON_HISTORY_COLUMNS)
    # one Gram matrix for every voter used at any of these iterations; each QP takes a block
    union = np.unique(np.concatenate([r.support for r in records]))
    Hs = run.H.columns(union)
    Ht = None if run.H_test is None else run.H_test.columns(union)
    m = run.y.size
    K = Hs.T @ Hs / m
    g = Hs.T @ run.y / m
    rows = []
    for k, rec in enumerate(records):
        progress.report(k / len(records), f"MinCq on the voters of iteration {rec.iteration} "
                        f"({k + 1} of {len(records)} programs)")
        idx = np.searchsorted(union, rec.support)
        t = idx.size
        if not g[idx].max() > 0:
            raise QPError(f"MinCq on the voters of iteration {rec.iteration}: no non-negative "
                          "vote on them has a positive first moment", "infeasible",
                          "the voters must include one with a positive margin gamma(h)")
        sol = solve_qp(2.0 * K[np.ix_(idx, idx)], np.zeros(t), -np.eye(t), np.zeros(t),
                       g[idx][None, :], [1.0],
                       what=f"MinCq on the {t} voters of iteration {rec.iteration}",
                       hint="duplicate voters in the vote can make the program singular")
        a = drop_tiny(sol.x)
        F = Hs[:, idx] @ a
        test_error = None
        if Ht is not None:
            test_error = float(np.mean(np.where(Ht[:, idx] @ a > 0, 1.0, -1.0) != run.y_test))
        rows.append({
            "iteration": rec.iteration, "n_voters": t,
            "c_bound": bounds.c_bound(float(run.y @ F) / m, float(F @ F) / m),
            "train_error": float(np.mean(np.where(F > 0, 1.0, -1.0) != run.y)),
            "test_error": test_error, "cbboost_c_bound": rec.c_bound})
    return pd.DataFrame(rows, columns=MINCQ_ON_HISTORY_COLUMNS)
