"""MinCq's program without a Gram matrix: accelerated gradient, conjugate gradients on faces,
proximal Newton in the image.

Both forms of MinCq's program (:mod:`cbviz.algorithms.mincq._mincq`) minimize the second moment of
the vote's margin, ``f(x) = |H x|^2 / m`` (``H`` the voter matrix, ``m`` examples), over a
polytope (:mod:`cbviz.algorithms.mincq._sets`).  Its gradient ``2 H^T (H x) / m`` is one
``H x`` and one ``H^T v`` on the voter operator (DESIGN.md, formula sheet): no ``n x n``
Gram matrix is ever formed, and the memory is a few vectors of length ``n`` and ``m``.

The method (:func:`minimize_second_moment`):

1. accelerated projected gradient (FISTA with adaptive restart) in the metric
   ``L I + 2 e e^T`` with ``e = H^T 1 / m``: the Hessian is ``2 e e^T`` (one eigenvalue
   ``2 |e|^2``, 10,672 at the bench size) plus a centered part whose largest eigenvalue
   ``L / 2`` is ~400 times smaller there (13.1), and the polytope's projection in that metric
   is exact (two or three nested 1-D roots on Lagrange multipliers, ``fset.prox``);
2. once the face (the coordinates strictly inside their bounds) has not changed for a few
   iterations, a block active-set polish (:mod:`cbviz.algorithms.mincq._polish`):
   preconditioned conjugate gradients on the face, then on the next face (fewer coordinates
   when the solution left the box, more when bound coordinates' multipliers have the wrong
   sign);
3. with few examples, proximal point steps solved by semismooth Newton in the
   ``m``-dimensional image (:mod:`cbviz.algorithms.mincq._newton`): from the start when the
   program has more variables than examples and ``m <= 600`` (the Hessian has rank at most
   ``m``, the faces above have more free coordinates than that, their systems are singular
   and the polish does not settle: measured 20,000 products and a relative gap of 5e-3 on
   breast cancer with every midpoint, 398 examples and 11,042 direct stumps, certified by
   Newton in ~190 products), and in place of 1-2 once they have not certified the optimum
   within 2,500 products (``m <= 2,000``).

The quadratic is convex, so at any feasible ``x`` the duality (Frank-Wolfe) gap
``G^T x - min_{s in set} G^T s`` bounds ``f(x) - f*`` from above; the solver stops when it is
at most ``rtol * f(x)`` (a certificate, not an estimate), and reports it with the largest KKT
violation.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ... import progress
from ._newton import NEWTON_MAX_EXAMPLES, proximal_newton, use_newton
from ._polish import polish
from ._roots import EPS, dot

__all__ = ["GramFreeResult", "lipschitz", "minimize_second_moment"]

_FALLBACK = 2500       # products before proximal Newton takes over (m <= NEWTON_MAX_EXAMPLES)


@dataclass(frozen=True)
class GramFreeResult:
    """Outcome of :func:`minimize_second_moment`.

    ``x`` the feasible point, ``f = |H x|^2 / m``, ``gap`` the duality gap certifying
    ``f - f* <= gap``, ``kkt`` the largest KKT violation (gradient units) and ``gradient_scale``
    ``max |G|`` to read it against, ``iterations`` accelerated-gradient iterations plus
    Newton steps, ``products`` operator products (``H x`` or ``H^T v``), ``status`` "optimal"
    (``gap <= rtol f``), "stalled (round-off)" (accelerated gradient: ``f`` unchanged to
    64 ulps over three gap checks; Newton: no progress in the gap, see
    :mod:`~cbviz.algorithms.mincq._newton`: the gap left is what round-off lets one certify) or
    "max products"; ``phases`` the products by phase: "setup" (``H^T 1`` and the power
    iteration), "fista" (accelerated gradient), "check" (duality gaps), "polish" (conjugate
    gradients on faces and their steps), "newton" (proximal Newton's steps) and "final" (the
    reported point's ``f``, gap and KKT residual); ``method`` the method(s) that ran.
    """

    x: np.ndarray
    f: float
    gap: float
    kkt: float
    gradient_scale: float
    iterations: int
    products: int
    status: str
    seconds: float
    phases: dict = None
    method: str = ""


class _Moment:
    """``f(x) = |H x|^2 / m`` through the operator's two products, counting them; each
    product is reported to :mod:`cbviz.progress` with the share of the work done, estimated
    from the relative duality gap ``gap / f`` of the last check on a log scale from its first
    value down to ``rtol`` (or the share of ``max_products`` used, if larger)."""

    def __init__(self, op, m, rtol=1e-6, max_products=20000):
        self.op, self.m, self.products = op, float(m), 0
        self.phase, self.by_phase = "setup", {}
        self.rtol, self.max_products = rtol, max_products
        self.first_ratio, self.ratio, self.done = None, None, 0.0

    def count(self, k=1):
        self.products += k
        self.by_phase[self.phase] = self.by_phase.get(self.phase, 0) + k
        gap = "" if self.ratio is None else f"; relative duality gap {self.ratio:.1e}"
        progress.report(max(self.done, self.products / self.max_products),
                        f"{self.products} operator products{gap} (the solver stops at "
                        f"{self.rtol:g})")

    def check(self, fset, x, F, f, iterations, trace=None, seconds=0.0):
        """The duality-gap check at ``x`` (``F = H x``, ``f = |F|^2 / m``): ``(G, gap)`` with
        ``G`` the gradient and ``gap = G^T x - min_{s in fset} G^T s``; recorded for the
        progress estimate and, with ``trace``, in the convergence log."""
        self.phase = "check"
        G = self.gradient(F)
        gap = dot(G, x) - fset.lmo_value(G)
        self._checked(gap, f)
        if trace is not None:
            trace.append(dict(products=self.products, iterations=iterations, f=f, gap=gap,
                              seconds=seconds, **self.by_phase))
        return G, gap

    def _checked(self, gap, f):
        self.ratio = max(gap, 0.0) / f if f > 0 else 0.0
        if self.first_ratio is None:
            self.first_ratio = max(self.ratio, self.rtol)
        span = np.log(self.first_ratio / self.rtol)
        if span > 0 and self.ratio > 0:
            share = np.log(self.first_ratio / max(self.ratio, self.rtol)) / span
            self.done = max(self.done, min(float(share), 0.99))

    def image(self, x):
        self.count()
        return self.op.matvec(x)

    def gradient(self, F):
        """``2 H^T F / m``: the gradient at ``x`` when ``F = H x``."""
        self.count()
        return 2.0 * self.op.rmatvec(F) / self.m

    def value(self, F):
        return dot(F, F) / self.m


def lipschitz(op, m, e, iterations=20, seed=0):
    """``1.1 x`` the largest eigenvalue of the centered Hessian ``2 (H^T H / m - e e^T)`` by
    power iteration (2 products per iteration; the 10% covers its underestimate, and the
    solver doubles it if a step ever breaks the majorization)."""
    v = np.random.default_rng(seed).standard_normal(op.shape[1])
    lam = 0.0
    for _ in range(iterations):
        v /= np.sqrt(dot(v, v))
        F = op.matvec(v)
        w = 2.0 * op.rmatvec(F - F.mean()) / m
        lam, v = dot(v, w), w
    return 1.1 * max(lam, 1e-12)


def minimize_second_moment(op, m, fset, x0, *, rtol=1e-6, max_products=20000,
                           precond=None, check_every=25, stable=10, again=2, trace=None,
                           method="auto"):
    """Minimize ``f(x) = |H x|^2 / m`` over ``fset`` without a Gram matrix.

    Accelerated projected gradient (FISTA, Beck & Teboulle 2009, with the adaptive restart of
    O'Donoghue & Candès 2015) in the metric ``L I + 2 e e^T``, ``e = H^T 1 / m``: the Hessian
    ``2 H^T H / m`` is ``2 e e^T`` plus the centered part, whose largest eigenvalue ``L / 2``
    is hundreds of times smaller on stump pools, and :meth:`fset.prox` projects exactly in that
    metric.  When the face stops changing (``stable`` iterations), preconditioned conjugate
    gradients on the face (:mod:`cbviz.algorithms.mincq._precond`) polish the point.  Each
    FISTA iteration costs one ``H x`` and one ``H^T v`` (the extrapolated point's image is a
    combination of the last two).  With few examples, proximal point steps solved by Newton
    in the image (:func:`~cbviz.algorithms.mincq._newton.proximal_newton`, module docstring
    step 3).

    Parameters
    ----------
    op : VoterOperator
        ``H`` through ``matvec`` and ``rmatvec`` (:mod:`cbviz.voters`).
    m : int
        Number of examples (rows of ``H``).
    fset : BoxHyperplane or SimplexHalfspace
        The feasible polytope (:mod:`cbviz.algorithms.mincq._sets`).
    x0 : ndarray
        Starting point (projected first).
    rtol : float
        Stop when the duality gap is at most ``rtol * f(x)``.
    max_products : int
        Budget of operator products; on reaching it the run stops with status
        "max products" and the gap it reached.
    precond : BlockPreconditioner, optional
        Preconditioner of the face's conjugate gradients (identity if None).
    check_every : int
        FISTA iterations between duality-gap checks (each costs one ``H^T v``).
    stable : int
        FISTA iterations with an unchanged face before the first polish (block active set on
        faces, :func:`~cbviz.algorithms.mincq._polish.polish`).
    again : int
        FISTA iterations with an unchanged face before each later polish.
    trace : list, optional
        Receives one dict per duality-gap check: ``products`` so far and by phase,
        ``iterations``, ``f``, ``gap``, ``seconds`` (the convergence log).
    method : {"auto", "newton", "fista"}
        "fista": accelerated gradient and face polish only (``precond`` for its polish);
        "newton": proximal Newton from the start (its sets need ``jacobians``); "auto": Newton
        from the start when :func:`~cbviz.algorithms.mincq._newton.use_newton` (more variables
        than examples, ``m <= 600``), else accelerated gradient, which Newton takes over after
        2,500 products without the certificate when ``m <= 2,000``.

    Returns
    -------
    GramFreeResult

    Every operator product is reported to :mod:`cbviz.progress` (share done, text); a
    listener that cancels stops the solve with :class:`cbviz.progress.Cancelled`.
    """
    t0 = time.perf_counter()
    q = _Moment(op, m, rtol, max_products)
    e = op.rmatvec(np.ones(m)) / m
    L = lipschitz(op, m, e)
    q.count(41)
    x = fset.project(x0)
    F = q.image(x)
    f = q.value(F)
    if method not in ("auto", "newton", "fista"):
        raise ValueError(f"method must be 'auto', 'newton' or 'fista', got {method!r}")
    # Newton after the accelerated gradient when it has not certified the optimum within
    # _FALLBACK products (auto, m <= NEWTON_MAX_EXAMPLES)
    fallback = method == "auto" and m <= NEWTON_MAX_EXAMPLES
    if method == "auto":
        method = "newton" if use_newton(m, x.size) else "fista"
    # the first proximal step about as long as a gradient step: 1 / the largest eigenvalue
    # of the Hessian, L / 2 + |e|^2 with the centered part's L / 2
    sigma = 1.0 / (L + 2.0 * dot(e, e))
    if method == "newton":
        x, F, f, status, outer = proximal_newton(
            q, fset, x, F, f, sigma, rtol=rtol, max_products=max_products, trace=trace, t0=t0,
            clock=time.perf_counter)
        return _result(q, fset, x, status, outer, t0, "proximal Newton")
    x_old, F_old, t = x, F, 1.0
    status, outer, since, face = "max products", 0, 0, None
    check, flat, last_f = True, 0, np.inf
    while True:
        if check:
            G, gap = q.check(fset, x, F, f, outer, trace, time.perf_counter() - t0)
            if gap <= rtol * f:
                status = "optimal"
                break
            # f no longer decreases beyond round-off: the gap cannot be certified lower
            flat = flat + 1 if f >= last_f - 64 * EPS * f else 0
            last_f = f
            if flat >= 3:
                status = "stalled (round-off)"
                break
            check = False
            if fallback and q.products >= _FALLBACK:
                status = "newton"
                break
        if q.products >= max_products:
            break
        outer += 1
        q.phase = "fista"
        check = outer % check_every == 0
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        beta = (t - 1.0) / t_new
        y, Fy = x + beta * (x - x_old), F + beta * (F - F_old)
        Gy = q.gradient(Fy)
        fy = q.value(Fy)
        xn = fset.prox(y - Gy / L, e, dot(e, y), 0.5 * L)
        Fn = q.image(xn)
        fn = q.value(Fn)
        dn = xn - y
        if fn > (fy + dot(Gy, dn) + 0.5 * L * dot(dn, dn) + dot(e, dn) ** 2) * (1 + 1e-12):
            L *= 2.0                               # the power iteration fell short
            x_old, F_old, t = x, F, 1.0
            continue
        if fn > f:                                 # restart (function value)
            x_old, F_old, t = x, F, 1.0
            continue
        restart = dot(y - xn, xn - x) > 0         # restart (gradient)
        x_old, F_old, x, F, f = x, F, xn, Fn, fn
        t = 1.0 if restart else t_new
        now = fset.face(x)[0]
        since = since + 1 if face is not None and np.array_equal(now, face) else 0
        face = now
        if since >= stable:                        # polish on the face
            q.phase = "polish"
            G = q.gradient(F)
            x, F, f = polish(q, fset, x, F, f, G, min(max_products, _FALLBACK) if fallback
                             else max_products, precond, 0.1 * rtol * f)
            x_old, F_old, t, since, check = x, F, 1.0, stable - again, True
            face = fset.face(x)[0]
    if status == "newton":
        q.phase = "newton"
        F = q.image(x)                 # no accumulated round-off
        x, F, f, status, steps = proximal_newton(
            q, fset, x, F, q.value(F), sigma, rtol=rtol, max_products=max_products, trace=trace,
            t0=t0, clock=time.perf_counter)
        return _result(q, fset, x, status, outer + steps, t0,
                       "accelerated gradient and face polish, then proximal Newton")
    return _result(q, fset, x, status, outer, t0, "accelerated gradient and face polish")


def _result(q, fset, x, status, iterations, t0, method):
    """The reported point: ``F`` recomputed from ``x`` (no accumulated round-off), its final
    gap and KKT residual."""
    q.phase = "final"
    F = q.image(x)
    f, G = q.value(F), q.gradient(F)
    gap = max(dot(G, x) - fset.lmo_value(G), 0.0)
    return GramFreeResult(x=x, f=f, gap=gap, kkt=fset.kkt(x, G),
                          gradient_scale=float(np.max(np.abs(G))), iterations=iterations,
                          products=q.products, status=status,
                          seconds=time.perf_counter() - t0, phases=dict(q.by_phase),
                          method=method)
