"""MinCq's program with few examples: proximal point steps solved by Newton in the image.

:func:`cbviz.algorithms.mincq._solver.minimize_second_moment` minimizes
``f(x) = |H x|^2 / m`` over a polytope ``P`` (:mod:`cbviz.algorithms.mincq._sets`).  With few
examples and many voters (``m`` = 398 and ``n`` = 11,042 direct stumps on breast cancer with
every midpoint as a threshold) the Hessian ``2 H^T H / m`` has rank at most ``m`` while the
faces the accelerated gradient's iterates visit have hundreds to thousands of free
coordinates: the face's conjugate-gradient system is singular, its solutions leave the box
along null directions, the projections that follow raise ``f``, and the face-by-face active
set never settles (measured there: 20,000 products, 99.6% of them in the polish, relative gap
5e-3).  ``f`` depends on ``x`` only through ``F = H x``, in which it is strongly convex; this
module works there.

**Proximal point** (Rockafellar 1976) on ``x``: from the feasible ``x_k``,

    x_{k+1} = argmin_{x in P}  |H x|^2 / m + |x - x_k|^2 / (2 sigma),

with ``sigma`` growing (x3, x1.5) while Newton settles the steps in few iterations and
shrinking (/3) when it does not.  Every iterate is a projection onto ``P`` (feasible), and
``x_k`` converges to a minimizer for any ``sigma > 0``; the rank deficiency is harmless (the
proximal term picks, among the points with the same image, the one nearest ``x_k``).

**Each step in R^m** (the "kernel trick"; the semismooth Newton method of SSNAL, Li, Sun
& Toh 2018): writing ``|F|^2 / m = max_u 2 u.F / m - |u|^2 / m``, the step's dual is

    phi(u) = -|u|^2 / m + G(u).x(u) + |x(u) - x_k|^2 / (2 sigma),
    G(u) = 2 H^T u / m,   x(u) = proj_P(x_k - sigma G(u)),

concave and continuously differentiable in ``u`` in ``R^m`` with gradient
``2 (H x(u) - u) / m``; its maximizer is ``u = H x_{k+1}``.  Newton's equation for
``R(u) = u - H x(u) = 0`` is the ``m x m`` positive definite system

    (I + (2 sigma / m) H_D (I - C^T (C C^T)^+ C) H_D^T) du = -R(u),

``D`` the free coordinates of ``x(u)`` and ``C`` the equality rows of its face (a generalized
Jacobian of the projection: the set's :meth:`jacobians`; where a half-space sits at a kink,
with and without its row).  ``H_D H_D^T`` is kept up to date column by column as ``D`` changes
(:class:`_Gram`).  Armijo's backtracking on ``phi`` costs no operator product (``G`` is linear
in ``u``), its rise summed from differences (``phi``'s terms are ~``f`` where the rise is
~``|R|^2 / |N|``).  Each step is solved to a residual ``|R| <= 0.05 (gap / f) |u|``: well below
the gap still to close.  The solver stops on the certificate (gap ``<= rtol f``), on
:data:`_STALL` steps in a row that neither lowered the gap by 10% nor lengthened the next
step (round-off: in a degenerate program, e.g. one whose optimum has every margin equal to
``mu``, ``f = mu^2`` is flat to the last bit while the gap still falls, so ``f`` is no test
here), or on the budget of products.

Measured (relative gap 1e-6, this machine, shared): breast cancer with every midpoint,
quasi-uniform form, ~190 products and 0.3 s; the simplex form (on the direct voters' signed
weights, :class:`~cbviz.algorithms.mincq._sets.L1Halfspace`) ~280 products and 1 s.

The memory is two ``m x m`` matrices and the cost of a step grows as ``m^3``:
:func:`use_newton` (``m <=`` :data:`NEWTON_EXAMPLES`) says when to start with it; up to
:data:`NEWTON_MAX_EXAMPLES` it takes over from the accelerated gradient when that has not
certified the optimum within a few thousand products.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from threadpoolctl import threadpool_limits

from ._roots import dot

__all__ = ["NEWTON_EXAMPLES", "NEWTON_MAX_EXAMPLES", "proximal_newton", "use_newton"]

# examples up to which proximal Newton solves a program with more variables than examples from
# the start (its cost grows as m^3: measured 0.2 s at m = 537, 1.4 s at 1,000, 9 s at 2,000
# on stump pools where the accelerated gradient certifies in 0.15 to 0.3 s), and up to which
# it takes over when the accelerated gradient has not certified the optimum in 2,500 products
NEWTON_EXAMPLES = 600
NEWTON_MAX_EXAMPLES = 2000
_MAX_INNER = 25        # Newton steps per proximal step
_SHORT = 2.0 ** -10    # shortest step of Armijo's search (times Newton's)
_ARMIJO = 1e-4
_GROW = (3.0, 1.5, 3.0)  # sigma's factor after <= 3 and <= 8 Newton steps, its divisor on failure
_SPAN = 1e12           # sigma G(u) within this factor of x_k's scale (round-off of x(u))
_STALL = 8             # proximal steps without a 10% lower gap before the solver gives up
_CHUNK = 2048          # columns per block when a Gram matrix is summed
_REFRESH = 64          # incremental Gram updates before it is summed afresh (round-off)


def use_newton(m, n):
    """Whether :func:`proximal_newton` suits a program of ``n`` variables on ``m`` examples
    from the start: more variables than examples (the Hessian is then singular on the faces,
    where the face polish can stall) and at most :data:`NEWTON_EXAMPLES` examples (its
    ``m x m`` algebra is then cheap)."""
    return n > m and m <= NEWTON_EXAMPLES


class _Gram:
    """``H_D H_D^T`` (``m x m``) for a set of columns ``D`` that changes a little at a time:
    from the last one by adding and removing the columns that changed, from scratch, or as the
    whole pool's ``H H^T`` less the columns outside ``D`` -- whichever touches fewer columns."""

    def __init__(self, op, m):
        self.op, self.m = op, m
        self.D, self.M, self.whole, self.updates = None, None, None, 0

    def _sum(self, idx):
        M = np.zeros((self.m, self.m))
        for lo in range(0, idx.size, _CHUNK):
            B = self.op.columns(idx[lo:lo + _CHUNK])
            M += B @ B.T
        return M

    def of(self, D):
        n = D.size
        k = int(D.sum())
        outside = n - k + (n if self.whole is None else 0)
        if self.D is not None and self.updates < _REFRESH:
            add, rem = np.flatnonzero(D & ~self.D), np.flatnonzero(self.D & ~D)
            if add.size + rem.size <= min(k, outside):
                if add.size or rem.size:
                    self.M = self.M + self._sum(add) - self._sum(rem)
                    self.updates += 1
                self.D = D.copy()
                return self.M
        if k <= outside:
            self.M = self._sum(np.flatnonzero(D))
        else:
            if self.whole is None:
                self.whole = self._sum(np.arange(n))
            self.M = self.whole - self._sum(np.flatnonzero(~D))
        self.D, self.updates = D.copy(), 0
        return self.M


def _newton_direction(q, gram, xu, R, c, D, C):
    """``du`` solving ``(I + c H_D (I - C^T (C C^T)^+ C) H_D^T) du = -R`` at ``x(u) = xu``
    (one ``H v`` per equality row of the face)."""
    m = R.size
    N = gram.of(D) * c
    if C.size and D.any():
        W = np.empty((m, C.shape[0]))
        for i, row in enumerate(C):
            v = np.zeros(xu.size)
            v[D] = row
            W[:, i] = q.image(v)
        S = np.linalg.pinv(C @ C.T)
        N = N - c * (W @ S @ W.T)
    N[np.diag_indices(m)] += 1.0
    try:
        factor = sla.cho_factor(N, check_finite=False)
        return -sla.cho_solve(factor, R, check_finite=False)
    except np.linalg.LinAlgError:          # lost definiteness in round-off
        return -np.linalg.lstsq(N, R, rcond=None)[0]


def proximal_newton(q, fset, x, F, f, sigma, *, rtol, max_products, trace=None, t0=None,
                    clock=None):
    """Proximal point steps from the feasible ``x`` (image ``F = H x``, ``f = |F|^2 / m``),
    each solved by semismooth Newton on its dual in ``R^m`` (module docstring), until the
    duality gap is at most ``rtol f`` or ``max_products`` operator products.

    ``q`` is the solver's product counter (:class:`cbviz.algorithms.mincq._solver._Moment`:
    every product is counted and reported, each gap check made with ``q.check``),
    ``sigma`` the first proximal parameter, ``trace`` (optional) a list that receives one dict
    per gap check (see :func:`~cbviz.algorithms.mincq._solver.minimize_second_moment`), ``t0``
    and ``clock`` its time origin and clock.  Returns ``(x, F, f, status, steps)``: status
    "optimal", "stalled (round-off)" (:data:`_STALL` steps without progress, module
    docstring) or "max products", with the point of the smallest relative gap met when not
    optimal; ``steps`` the Newton steps taken.
    """
    with threadpool_limits(limits=1):      # small dense algebra: threads only contend
        return _run(q, fset, x, F, f, sigma, rtol, max_products, trace, t0, clock)


def _run(q, fset, x, F, f, sigma, rtol, max_products, trace, t0, clock):
    m = int(q.m)
    gram = _Gram(q.op, m)
    status, steps, outer, flat, best_gap, best = "max products", 0, 0, 0, np.inf, None
    grew = False                           # the last step lengthened the next one
    while True:
        G, gap = q.check(fset, x, F, f, steps, trace, clock() - t0)
        if gap <= rtol * f:
            status = "optimal"
            break
        rel = gap / f if f > 0 else np.inf
        if best is None or rel < best[0]:
            best = (rel, x, F, f)
        # no step has lowered the certified gap by 10% in a while: round-off (in a degenerate
        # program f = mu^2 stays flat to the last bit while the gap still falls, so f's
        # progress is no test here)
        flat = flat + 1 if gap >= 0.9 * best_gap and not grew else 0
        best_gap = min(best_gap, gap)
        if flat >= _STALL:
            status = "stalled (round-off)"
            break
        if q.products >= max_products:
            break
        outer += 1
        q.phase = "newton"
        ratio = min(max(rel, 0.0), 1.0)
        xk, u, Gu = x, F, G                # the step's dual starts at u = H x_k
        c = 2.0 * sigma / m

        def dual(Gu_):
            return fset.project(xk - sigma * Gu_)

        def rise(t, du, Gdu, xn):
            """phi(u + t du) - phi(u), summed from differences."""
            dx = xn - xu
            return (-(2.0 * t * dot(u, du) + t * t * dot(du, du)) / m + dot(Gu, dx)
                    + t * dot(Gdu, xn) + dot(dx, xn + xu - 2.0 * xk) / (2.0 * sigma))

        xu = dual(Gu)
        Fu = q.image(xu)
        R = u - Fu
        scale = np.sqrt(dot(u, u)) + 1e-300
        # the step's residual: well below the gap still to close, down to round-off
        tol = max(0.05 * ratio, 1e-12) * scale
        inner = 0
        while inner < _MAX_INNER and q.products < max_products:
            nR = np.sqrt(dot(R, R))
            if nR <= tol:
                break
            inner += 1
            pick = None
            for D, C in fset.jacobians(xu):
                # Newton's direction, and Armijo's search along it (no product: x(u) is a
                # projection of a point linear in u); where it stalls, the next Jacobian
                # (at a kink of the set)
                du = _newton_direction(q, gram, xu, R, c, D, C)
                Gdu = q.gradient(du)
                slope = -2.0 / m * dot(R, du)          # phi's derivative along du (> 0)
                t = 1.0
                while t >= _SHORT:
                    xn = dual(Gu + t * Gdu)
                    gain = rise(t, du, Gdu, xn)
                    if gain >= _ARMIJO * t * slope:
                        break
                    t *= 0.5
                else:
                    t, gain = 0.0, 0.0
                if pick is None or gain > pick[0]:
                    pick = (gain, t, du, Gdu, xn)
                if t >= 0.25:
                    break
            gain, t, du, Gdu, xn = pick
            if t == 0.0:
                # Newton's directions no longer rise by Armijo's test within _SHORT of their
                # length: round-off, or a step too long for Newton (sigma shrinks)
                break
            u, Gu, xu = u + t * du, Gu + t * Gdu, xn
            Fu = q.image(xu)
            R = u - Fu
        steps += inner
        fu = q.value(Fu)
        grew = False
        if dot(R, R) <= tol * tol:
            x, F, f = xu, Fu, fu
            # longer proximal steps while Newton settles them quickly (the gap may fall slowly
            # meanwhile: such steps do not count as stalled)
            grew = inner <= 8
            if inner <= 3:
                sigma *= _GROW[0]
            elif inner <= 8:
                sigma *= _GROW[1]
            # no longer than round-off allows
            sigma = min(sigma, _SPAN * max(float(np.max(np.abs(x))), 1e-300)
                        / max(float(np.max(np.abs(G))), 1e-300))
        else:
            # Newton did not settle the step: shorter steps from the same point (its point is
            # not a proximal step; where f is flat, as in a degenerate program, f cannot tell
            # whether it is better)
            sigma /= _GROW[2]
    if status != "optimal" and best is not None:
        _, x, F, f = best                  # the point with the smallest relative gap met
    return x, F, f, status, steps
