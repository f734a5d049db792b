"""The feasible sets of MinCq's two programs, with what a Gram-free solver needs from them.

:mod:`cbviz.algorithms.mincq_solver` minimizes ``f(x) = |H x|^2 / m`` over one of two
polytopes; this module gives each polytope's exact Euclidean projection, its linear
minimization oracle (for the duality gap), the face of a point (for conjugate gradients on
it) and a KKT residual.

:class:`BoxHyperplane` -- ``{x : lo <= x_i <= hi,  a^T x = c}``: Program 1 of Germain et al.
(JMLR 2015) in the signed weights ``w = 2Q - 1/n'`` (``lo = -1/n'``, ``hi = 1/n'``,
``a = g``, ``c = mu``).

:class:`SimplexHalfspace` -- ``{x >= 0,  1^T x = 1,  a^T x >= c}``: program (2) of the CqBoost
paper (Roy et al. 2016) with ``mu1 >= mu`` (``a = g``, ``c = mu``).

:class:`L1Halfspace` -- ``{w : |w|_1 <= 1,  a^T w >= c}``: the same program on a
self-complemented pool in the signed weights ``w = q_direct - q_complement`` of the direct
voters.  A ``q`` on the simplex gives ``|w|_1 <= 1`` and every such ``w`` comes from one
(``q = (w+ + s, w- + s)`` with ``s = (1 - |w|_1) / (2 n')``: mass put on a voter and on its
complement alike, which does not change the vote); the vote, ``a^T w`` (``a`` the direct
voters' margins) and every linear function of the gradient agree, so the two programs have
the same optimum and the same duality gaps.  In ``q`` every such pair of weights is a
direction along which nothing changes: at MinCq's optimum on breast cancer (every midpoint)
about 8,600 of the 22,084 voters carry weight, most of them in such pairs.

Both projections reduce to monotone piecewise-linear equations in the Lagrange multipliers of
the linear constraints; :func:`_monotone_root` solves them exactly: a Newton step assuming the
current free set (exact when that set is the solution's), safeguarded by bisection on a
bracket, stops when the equation holds to rounding.
"""
from __future__ import annotations

import numpy as np

__all__ = ["BoxHyperplane", "L1Halfspace", "SimplexHalfspace"]

_EPS = np.finfo(float).eps
_NEAR = 1e-6           # a half-space this close (relative) to active is near its kink


def _dot(u, v):
    """``u . v`` without BLAS (a threaded ``ddot`` contends with the voter engine's threads)."""
    return float(np.einsum("i,i->", u, v))


def _monotone_root(step, lo, hi, start, tol, max_iter=200):
    """Root of a non-decreasing piecewise-linear ``phi`` on the bracket ``[lo, hi]``.

    ``step(t)`` returns ``(phi(t), t_newton)``: the residual and the root of the linear
    piece through ``t`` (NaN when that piece is flat).  ``lo``/``hi`` may be infinite.
    Returns the ``t`` with ``|phi(t)| <= tol``, or else the ``t`` met whose residual is
    smallest once Newton's step moves ``t`` by a few ulps (the residual is round-off) or the
    bracket is narrowed to adjacent floats.
    """
    t, best = start, (np.inf, start)
    for _ in range(max_iter):
        r, tn = step(t)
        if abs(r) < best[0]:
            best = (abs(r), t)
        if abs(r) <= tol:
            return t
        if r < 0:
            lo = t
        else:
            hi = t
        if np.isfinite(tn) and abs(tn - t) <= 4 * _EPS * abs(t):
            break                  # Newton's step is a few ulps: the residual is round-off
        if np.isfinite(tn) and lo < tn < hi and tn != t:
            t = tn
        elif np.isfinite(lo) and np.isfinite(hi):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            t = mid
        else:                                    # expand towards the missing end
            width = max(abs(t), 1.0)
            t = t + 2.0 * width if r < 0 else t - 2.0 * width
    return best[1]


def _dual_maximum(value, hi):
    """The largest value met while maximizing a concave function of ``beta >= 0`` given as
    ``value(beta) -> (value, supergradient)``: from 0, doubling ``hi`` until the slope turns
    non-positive, then bisection on the slope's sign to rounding.  Every value is a valid
    lower bound when ``value`` is a Lagrangian dual (the linear minimum oracles)."""
    best, slope = value(0.0)
    if slope <= 0:
        return best
    for _ in range(200):
        v, s = value(hi)
        best = max(best, v)
        if s <= 0:
            break
        hi *= 2.0
    lo = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        v, s = value(mid)
        best = max(best, v)
        if s > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4 * _EPS * hi:
            break
    return best


def _box_ray(x, p, free, lo, hi):
    """Largest ``t >= 0`` keeping ``x + t p`` in ``[lo, hi]`` on the coordinates ``free``."""
    pf, xf = p[free], x[free]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(pf > 0, (hi - xf) / pf, np.where(pf < 0, (lo - xf) / pf, np.inf))
    return max(float(np.min(t, initial=np.inf)), 0.0)


class BoxHyperplane:
    """``{x : lo <= x_i <= hi, a^T x = c}`` with scalar bounds ``lo < hi``.

    Parameters
    ----------
    a : ndarray (n,)
        Normal of the hyperplane (MinCq: ``g = H_d^T y / m``).
    c : float
        Right-hand side; must lie in ``[min, max]`` of ``a^T x`` over the box.
    lo, hi : float
        The box (MinCq: ``-1/n'`` and ``1/n'``).
    """

    def __init__(self, a, c, lo, hi):
        self.a = np.asarray(a, dtype=float)
        self.c, self.lo, self.hi = float(c), float(lo), float(hi)
        self.n_rows = 1
        nz = self.a != 0
        # beyond these multipliers every x_i with a_i != 0 sits at its bound (for any z with
        # |z_i| <= span): the bracket of the projection's multiplier
        self._span = (self.hi - self.lo)
        self._a_min = float(np.min(np.abs(self.a[nz]))) if nz.any() else 1.0
        self._lam = 0.0

    def project(self, z):
        """Euclidean projection: ``clip(z + lam a, lo, hi)`` with ``lam`` such that
        ``a^T x = c`` (KKT of ``min |x - z|^2 / 2``; ``a^T x`` is non-decreasing in ``lam``)."""
        z = np.asarray(z, dtype=float)
        a, lo, hi = self.a, self.lo, self.hi
        tol = 8 * _EPS * (abs(self.c) + float(np.abs(a).sum()) * max(abs(lo), abs(hi)))

        def step(lam):
            t = z + lam * a
            x = np.clip(t, lo, hi)
            r = _dot(a, x) - self.c
            free = (t > lo) & (t < hi)
            slope = _dot(a[free], a[free])
            return r, (lam - r / slope) if slope > 0 else np.nan

        reach = (self._span + float(np.max(np.abs(z), initial=0.0))) / self._a_min
        self._lam = _monotone_root(step, -reach, reach, self._lam, tol)
        return np.clip(z + self._lam * a, lo, hi)

    def prox(self, z, e, target, half_L):
        """Projection in the metric ``L I + 2 e e^T``: ``x = clip(z + kappa e + lam a)``
        with ``a^T x = c`` and ``half_L kappa + e^T x = target``.

        This is the step of accelerated projected gradient on ``f = |Hx|^2/m`` with the
        majorizer ``L I + 2 e e^T`` (``e = H^T 1 / m``): with ``z = y - G / L`` and
        ``target = e^T y`` it minimizes ``G^T (x - y) + L |x - y|^2 / 2 + (e^T (x - y))^2``
        over the set.  For fixed ``lam`` the ``kappa`` equation is strictly increasing
        (slope ``>= half_L``); ``a^T x(kappa(lam), lam)`` is non-decreasing in ``lam`` (the
        derivative of a concave dual function): two nested exact roots, each step solving the
        2 x 2 linear system of the current free set.
        """
        z = np.asarray(z, dtype=float)
        a, lo, hi = self.a, self.lo, self.hi
        scale = abs(self.c) + float(np.abs(a).sum()) * max(abs(lo), abs(hi))
        tol_a = 8 * _EPS * scale
        tol_e = 8 * _EPS * (abs(target) + float(np.abs(e).sum()) * max(abs(lo), abs(hi)))
        state = {"kappa": getattr(self, "_kappa", 0.0)}

        def inner(lam):
            base = z + lam * a

            def step(kappa):
                t = base + kappa * e
                x = np.clip(t, lo, hi)
                r = half_L * kappa + _dot(e, x) - target
                free = (t > lo) & (t < hi)
                return r, kappa - r / (half_L + _dot(e[free], e[free]))
            k = _monotone_root(step, -np.inf, np.inf, state["kappa"], tol_e)
            state["kappa"] = k
            return k

        def outer(lam):
            kappa = inner(lam)
            t = z + lam * a + kappa * e
            x = np.clip(t, lo, hi)
            r = _dot(a, x) - self.c
            free = (t > lo) & (t < hi)
            ef, af = e[free], a[free]
            ee, ea, aa = half_L + _dot(ef, ef), _dot(ef, af), _dot(af, af)
            det = ee * aa - ea * ea
            # d(a^T x)/d lam along kappa(lam): aa - ea^2 / ee
            slope = det / ee
            return r, (lam - r / slope) if slope > 0 else np.nan

        lam = _monotone_root(outer, -np.inf, np.inf, self._lam, tol_a)
        self._lam = lam
        kappa = inner(lam)
        self._kappa = kappa
        return np.clip(z + lam * a + kappa * e, lo, hi)

    def lmo_value(self, G):
        """``min G^T s`` over the set, exactly (Lagrangian dual in the multiplier of the
        hyperplane: a fractional knapsack, solved by sorting the ratios ``G_i / a_i``)."""
        G = np.asarray(G, dtype=float)
        a, lo, hi = self.a, self.lo, self.hi
        nz = a != 0
        base = float(np.minimum(lo * G[~nz], hi * G[~nz]).sum())
        an, Gn = a[nz], G[nz]
        if an.size == 0:
            return base
        ratio = Gn / an
        order = np.argsort(ratio, kind="stable")
        # sum_i a_i s_i(lam) rises from sum min(a lo, a hi) by |a_i| (hi - lo) at ratio_i
        level = np.minimum(an * lo, an * hi).sum() + np.cumsum(np.abs(an[order]) * (hi - lo))
        k = min(int(np.searchsorted(level, self.c, side="left")), order.size - 1)
        best = -np.inf
        for lam in {float(ratio[order[k]]), float(ratio[order[max(k - 1, 0)]])}:
            r = Gn - lam * an
            best = max(best, lam * self.c + float(np.minimum(lo * r, hi * r).sum()))
        return best + base

    def face(self, x, free=None):
        """``(free, C)``: the coordinates strictly inside the box (or ``free``) and the
        constraint rows the face keeps (here the hyperplane, on the free coordinates)."""
        if free is None:
            free = (x > self.lo) & (x < self.hi)
        return free, self.a[free][None, :]

    def jacobians(self, x):
        """The face of ``x``, whose projection ``I - C^T (C C^T)^+ C`` on its free coordinates
        is a Jacobian of :meth:`project` there (a list of one, as for the other sets)."""
        return [self.face(x)]

    def released(self, x, G, tol):
        """Coordinates at a bound whose multiplier has the wrong sign by more than ``tol``
        (gradient units): moving them into the box lowers ``f`` on the hyperplane."""
        r, at_lo, at_hi = self._residual(x, G)
        return (at_lo & (r < -tol)) | (at_hi & (r > tol))

    def _residual(self, x, G):
        edge = 1e-12 * (self.hi - self.lo)        # round-off from a bound counts as on it
        at_lo, at_hi = x <= self.lo + edge, x >= self.hi - edge
        free = ~(at_lo | at_hi)
        fit = free if free.any() else np.ones_like(free)
        den = _dot(self.a[fit], self.a[fit])
        lam = _dot(self.a[fit], G[fit]) / den if den > 0 else 0.0
        return G - lam * self.a, at_lo, at_hi

    def ray(self, x, p, free):
        """Largest ``t >= 0`` keeping ``x + t p`` in the set, for ``p`` zero off ``free``
        and on the hyperplane (``a^T p = 0``)."""
        return _box_ray(x, p, free, self.lo, self.hi)

    def restrict(self, free, x):
        """The set of the coordinates ``free`` with the others fixed at their values in
        ``x``: the closure of ``x``'s face when ``free`` is it."""
        return BoxHyperplane(self.a[free], self.c - _dot(self.a[~free], x[~free]), self.lo,
                             self.hi)

    def kkt(self, x, G):
        """Largest KKT violation at ``x`` in gradient units, with the multiplier ``lam`` of
        ``a^T x = c`` fitted by least squares on the free coordinates: ``r = G - lam a``
        must vanish where ``lo < x_i < hi``, be ``>= 0`` at ``lo`` and ``<= 0`` at ``hi``."""
        r, at_lo, at_hi = self._residual(x, G)
        free = ~(at_lo | at_hi)
        return max(float(np.max(np.abs(r[free]), initial=0.0)),
                   float(np.max(-r[at_lo], initial=0.0)),
                   float(np.max(r[at_hi], initial=0.0)), 0.0)


def _simplex_nu(y):
    """``nu`` with ``sum max(y - nu, 0) = 1``: Newton from the left on the convex
    decreasing piecewise-linear sum (Michelot's iteration), exact after finitely many steps
    (on ``y - max(y)``: with ``|y|`` above ``2^53`` the first ``nu``, ``max(y) - 1``, would
    round to ``max(y)`` itself)."""
    top = float(y.max())
    y = y - top
    nu = -1.0
    for _ in range(10 * y.size + 10):
        above = y > nu
        new = (float(y[above].sum()) - 1.0) / int(above.sum())
        if new <= nu:
            break
        nu = new
    return nu + top


class SimplexHalfspace:
    """``{x >= 0, 1^T x = 1, a^T x >= c}`` (the simplex cut by a half-space).

    Parameters
    ----------
    a : ndarray (n,)
        MinCq: ``g = H^T y / m``, the voters' margins.
    c : float
        MinCq: ``mu``; must be at most ``max(a)``.
    """

    def __init__(self, a, c):
        self.a = np.asarray(a, dtype=float)
        self.c = float(c)
        self._beta = 0.0
        self._top = self.a >= self.a.max()            # where a = max(a)

    def _at_beta(self, z, beta):
        y = z + beta * self.a
        return np.maximum(y - _simplex_nu(y), 0.0)

    def project(self, z):
        """Euclidean projection ``x = max(z + beta a - nu, 0)``: ``beta = 0`` when the
        simplex projection already has ``a^T x >= c``; else ``beta > 0`` solves
        ``a^T x(beta) = c`` (non-decreasing in ``beta``) with ``nu(beta)`` making
        ``1^T x = 1``."""
        z = np.asarray(z, dtype=float)
        a, c = self.a, self.c
        tol = 8 * _EPS * (abs(c) + float(np.abs(a).max()))
        x = self._at_beta(z, 0.0)
        if _dot(a, x) >= c - tol:
            return x
        if c >= float(a.max()) - tol:                 # only the face where a is largest
            x = np.zeros_like(z)
            zt = z[self._top]
            x[self._top] = np.maximum(zt - _simplex_nu(zt), 0.0)
            return x

        def step(beta):
            x = self._at_beta(z, beta)
            r = _dot(a, x) - c
            s = x > 0
            k, sa, saa = int(s.sum()), float(a[s].sum()), _dot(a[s], a[s])
            sz, saz = float(z[s].sum()), _dot(a[s], z[s])
            # on the support S: k nu - sa beta = sz - 1 and sa nu - saa beta = saz - c
            det = sa * sa - k * saa
            if not abs(det) > 1e-12 * k * saa:   # a flat piece (equal a_i on the support)
                return r, np.nan
            return r, (k * (saz - c) - sa * (sz - 1.0)) / det

        self._beta = _monotone_root(step, 0.0, np.inf, max(self._beta, 0.0), tol)
        return self._at_beta(z, self._beta)

    def prox(self, z, e, target, half_L):
        """Projection in the metric ``L I + 2 e e^T`` (see :meth:`BoxHyperplane.prox`):
        ``x = max(z + kappa e + beta a - nu, 0)`` with ``1^T x = 1``,
        ``half_L kappa + e^T x = target`` and ``beta >= 0``, ``beta (a^T x - c) = 0``.

        Nested exact roots: ``nu`` by Michelot's iteration, ``kappa`` (strictly increasing
        equation) and ``beta`` (``a^T x`` non-decreasing in it), each Newton step solving the
        linear system of the current support.
        """
        z = np.asarray(z, dtype=float)
        a, c = self.a, self.c
        tol_a = 8 * _EPS * (abs(c) + float(np.abs(a).max()))
        tol_e = 8 * _EPS * (abs(target) + float(np.abs(e).max()))
        state = {"kappa": getattr(self, "_kappa", 0.0)}

        def x_at(kappa, beta):
            y = z + kappa * e + beta * a
            return np.maximum(y - _simplex_nu(y), 0.0)

        def centered(u, v, s):
            us, vs = u[s], v[s]
            return _dot(us, vs) - float(us.sum()) * float(vs.sum()) / int(s.sum())

        def inner(beta):
            def step(kappa):
                x = x_at(kappa, beta)
                r = half_L * kappa + _dot(e, x) - target
                return r, kappa - r / (half_L + centered(e, e, x > 0))
            k = _monotone_root(step, -np.inf, np.inf, state["kappa"], tol_e)
            state["kappa"] = k
            return k

        def outer(beta):
            kappa = inner(beta)
            x = x_at(kappa, beta)
            r = _dot(a, x) - c
            s = x > 0
            ee, ea, aa = half_L + centered(e, e, s), centered(e, a, s), centered(a, a, s)
            slope = (ee * aa - ea * ea) / ee
            return r, (beta - r / slope) if slope > 0 else np.nan

        beta = 0.0
        if outer(0.0)[0] < -tol_a:
            beta = _monotone_root(outer, 0.0, np.inf, max(self._beta, 0.0), tol_a)
        self._beta = beta
        kappa = inner(beta)
        self._kappa = kappa
        return x_at(kappa, beta)

    def lmo_value(self, G):
        """A lower bound on ``min G^T s`` over the set, equal to it up to rounding: the
        Lagrangian dual ``max_{beta >= 0} beta c + min_i (G_i - beta a_i)`` (concave,
        piecewise linear) maximized by bisection on the sign of its supergradient
        ``c - a_{i*(beta)}``; every value it returns is a valid lower bound."""
        G = np.asarray(G, dtype=float)
        a, c = self.a, self.c

        def value(beta):
            r = G - beta * a
            i = int(np.argmin(r))
            return beta * c + float(r[i]), c - float(a[i])

        return _dual_maximum(value, (float(G.max() - G.min()) + 1.0) / max(float(a.max() - a.min()), 1e-300))

    def active(self, x, slack=0.0):
        """True when ``a^T x = c`` holds to rounding, or within ``slack`` (relative)."""
        return _dot(self.a, x) <= self.c + (8 * _EPS + slack) * (abs(self.c)
                                                                  + float(np.abs(self.a).max()))

    @property
    def n_rows(self):
        return 2

    def face(self, x, free=None):
        """``(free, C)``: the support of ``x`` (or ``free``) and the rows ``1`` (and ``a``
        when the half-space is active) on it."""
        if free is None:
            free = x > 0
        rows = [np.ones(int(free.sum()))]
        if self.active(x):
            rows.append(self.a[free])
        return free, np.vstack(rows)

    def ray(self, x, p, free):
        """Largest ``t >= 0`` keeping ``x + t p`` in the set, for ``p`` zero off ``free``
        with ``1^T p = 0``: the non-negativity of the free coordinates and the half-space."""
        t = _box_ray(x, p, free, 0.0, np.inf)
        ap = _dot(self.a, p)
        if ap < 0:
            t = min(t, max(_dot(self.a, x) - self.c, 0.0) / -ap)
        return t

    def restrict(self, free, x):
        """The set of the coordinates ``free`` with the others at 0 (the closure of the face
        of an ``x`` whose support is ``free``)."""
        return SimplexHalfspace(self.a[free], self.c)

    def released(self, x, G, tol):
        """Coordinates at 0 whose multiplier has the wrong sign by more than ``tol``
        (gradient units): moving mass onto them lowers ``f`` on the face's rows."""
        r, s = self._residual(x, G)
        return ~s & (r < -tol)

    def _residual(self, x, G, slack=0.0):
        s = x > 1e-12 * float(x.max())            # round-off above 0 counts as 0
        beta = 0.0
        if self.active(x, slack):
            B = np.column_stack([np.ones(int(s.sum())), -self.a[s]])
            nu, beta = np.linalg.lstsq(B, -G[s], rcond=None)[0]
        if beta <= 0:
            beta, nu = 0.0, -float(np.mean(G[s]))
        return G + nu - beta * self.a, s

    def kkt(self, x, G):
        """Largest KKT violation at ``x`` (gradient units): with ``(nu, beta)`` fitted by
        least squares on the support (``beta = 0`` if the half-space is inactive or the fit
        makes it negative), ``r = G + nu - beta a`` must vanish on the support and be
        ``>= 0`` off it.  A half-space within ``1e-9`` (relative) of active counts as active:
        the complementarity ``beta (a^T x - c)`` it leaves is below ``1e-9 beta``."""
        r, s = self._residual(x, G, slack=1e-9)
        return max(float(np.max(np.abs(r[s]), initial=0.0)),
                   float(np.max(-r[~s], initial=0.0)), 0.0)

    def jacobians(self, x):
        """Faces ``(free, C)`` of ``x`` whose projections ``I - C^T (C C^T)^+ C`` on ``free``
        are (generalized) Jacobians of :meth:`project` there, the likeliest first: with the
        half-space's row, then, when the half-space is not active at ``x``, without it (both are
        Jacobians at ``a^T x = c`` with a zero multiplier: MinCq's half-space is active at the
        optimum, and a semismooth Newton method that takes the row out near that kink was
        measured to stall)."""
        free = x > 0
        ones = np.ones((1, int(free.sum())))
        with_row = (free, np.vstack([ones, self.a[free]]))
        if self.active(x):
            return [with_row]
        if not self.active(x, slack=_NEAR):
            return [(free, ones)]
        return [with_row, (free, ones)]


def _soft(y, lam):
    return np.sign(y) * np.maximum(np.abs(y) - lam, 0.0)


class L1Halfspace:
    """``{w : |w|_1 <= 1, a^T w >= c}`` (the cross-polytope cut by a half-space; see the
    module docstring for its use: the simplex program on a self-complemented pool).

    Parameters
    ----------
    a : ndarray (n,)
        MinCq: the direct voters' margins ``g = H_d^T y / m``.
    c : float
        MinCq: ``mu``; must be at most ``max |a|``.
    """

    n_rows = 2

    def __init__(self, a, c):
        self.a = np.asarray(a, dtype=float)
        self.c = float(c)
        self._beta = 0.0
        self._tol = 8 * _EPS * (abs(self.c) + float(np.abs(self.a).max(initial=0.0)))

    @staticmethod
    def _ball(y):
        """Projection onto ``|w|_1 <= 1``: soft thresholding at ``lam`` (0 inside the ball,
        else ``sum max(|y| - lam, 0) = 1``).  Returns ``(w, lam)``."""
        ay = np.abs(y)
        if float(ay.sum()) <= 1.0:
            return y.copy(), 0.0
        lam = max(_simplex_nu(ay), 0.0)
        return _soft(y, lam), lam

    def project(self, z):
        """Euclidean projection ``w = soft(z + beta a, lam)``: ``beta = 0`` when the ball's
        projection already has ``a^T w >= c``, else ``beta > 0`` solves ``a^T w(beta) = c``
        (non-decreasing in ``beta``; a Newton step assuming the current support and signs)."""
        z = np.asarray(z, dtype=float)
        a, c, tol = self.a, self.c, self._tol
        w, _ = self._ball(z)
        if _dot(a, w) >= c - tol:
            return w

        def step(beta):
            y = z + beta * a
            w, lam = self._ball(y)
            r = _dot(a, w) - c
            S = w != 0
            sg, aS, zS = np.sign(y[S]), a[S], z[S]
            k = int(S.sum())
            aa = _dot(aS, aS)
            if lam > 0 and k:       # on the sphere: lam = (s.(z + beta a) - 1) / k
                sa = float(sg @ aS)
                A1 = aa - sa * sa / k
                A0 = _dot(aS, zS) - (float(sg @ zS) - 1.0) * sa / k
            else:
                A1, A0 = aa, _dot(aS, zS)
            # a.w is (nearly) flat on this piece (equal |a_i| of one sign: duplicate voters):
            # no Newton step (it would jump to where round-off decides the residual's sign)
            return r, ((c - A0) / A1 if A1 > 1e-12 * aa else np.nan)

        self._beta = _monotone_root(step, 0.0, np.inf, max(self._beta, 0.0), tol)
        return self._ball(z + self._beta * a)[0]

    def lmo_value(self, G):
        """A lower bound on ``min G^T v`` over the set, equal to it up to rounding: the
        Lagrangian dual ``max_{beta >= 0} beta c - max_i |G_i - beta a_i|`` (concave, piecewise
        linear) maximized by bisection on the sign of its supergradient; every value it returns
        is a valid lower bound."""
        G = np.asarray(G, dtype=float)
        a, c = self.a, self.c

        def value(beta):
            r = G - beta * a
            i = int(np.argmax(np.abs(r)))
            return beta * c - abs(float(r[i])), c + float(a[i]) * np.sign(r[i])

        return _dual_maximum(value, (2.0 * float(np.abs(G).max()) + 1.0) / max(float(np.abs(a).max()), 1e-300))

    def _on_sphere(self, x):
        return float(np.abs(x).sum()) >= 1.0 - 8 * _EPS * x.size

    def active(self, x, slack=0.0):
        """True when ``a^T x = c`` holds to rounding (or within ``slack``, relative)."""
        scale = abs(self.c) + float(np.abs(self.a).max())
        return _dot(self.a, x) <= self.c + self._tol + slack * scale

    def face(self, x, free=None):
        """``(free, C)``: the non-zero coordinates of ``x`` (or ``free``) and the rows of the
        face on them: the signs when ``|x|_1 = 1``, ``a`` when the half-space is active."""
        if free is None:
            free = x != 0
        rows = []
        if self._on_sphere(x):
            rows.append(np.sign(x[free]))
        if self.active(x):
            rows.append(self.a[free])
        return free, (np.vstack(rows) if rows else np.zeros((0, int(free.sum()))))

    def jacobians(self, x):
        """Faces ``(free, C)`` whose projections are Jacobians of :meth:`project` at ``x``, the
        likeliest first: the signs' row when ``|x|_1 = 1``, with the half-space's row, then
        without it if it is not active (see :meth:`SimplexHalfspace.jacobians`)."""
        free = x != 0
        rows = [np.sign(x[free])] if self._on_sphere(x) else []
        with_row = (free, np.vstack(rows + [self.a[free]]))
        bare = (free, np.vstack(rows) if rows else np.zeros((0, int(free.sum()))))
        if self.active(x):
            return [with_row]
        if not self.active(x, slack=_NEAR):
            return [bare]
        return [with_row, bare]

    def kkt(self, x, G):
        """Largest KKT violation at ``x`` (gradient units): with ``lam >= 0`` (the ball's
        multiplier, 0 inside it) and ``beta >= 0`` (the half-space's, 0 when it is inactive,
        within ``1e-9`` relative) fitted by least squares on the support,
        ``r = G + lam sign(x) - beta a`` must vanish on the support and
        ``|G_i - beta a_i| <= lam`` hold off it."""
        s = np.abs(x) > 1e-12 * float(np.abs(x).max(initial=0.0))
        sg = np.sign(x)
        cols, names = [], []
        if self._on_sphere(x):
            cols.append(sg[s])
            names.append("lam")
        if self.active(x, slack=1e-9):
            cols.append(-self.a[s])
            names.append("beta")
        coef = {"lam": 0.0, "beta": 0.0}
        while cols and s.any():
            fit = np.linalg.lstsq(np.column_stack(cols), -G[s], rcond=None)[0]
            neg = [k for k, v in enumerate(fit) if v < 0]
            if not neg:
                coef.update(zip(names, (float(v) for v in fit)))
                break
            del cols[neg[0]], names[neg[0]]
        r = G + coef["lam"] * sg - coef["beta"] * self.a
        off = np.abs(G - coef["beta"] * self.a) - coef["lam"]
        return max(float(np.max(np.abs(r[s]), initial=0.0)),
                   float(np.max(off[~s], initial=0.0)), 0.0)
