"""The simplex form's feasible set, :class:`SimplexHalfspace`, and the simplex's threshold.

``{x >= 0,  1^T x = 1,  a^T x >= c}``: program (2) of the CqBoost paper (Roy et al. 2016) with
``mu1 >= mu`` (``a = g``, ``c = mu``), with what the Gram-free solver needs from it
(:mod:`cbviz.algorithms.mincq._sets`).  :func:`simplex_nu` (Michelot's threshold) also
projects onto the l1 ball of :mod:`cbviz.algorithms.mincq._l1`.
"""
from __future__ import annotations

import numpy as np

from ._roots import EPS, box_ray, dot, dual_maximum, monotone_root, onto_rows

__all__ = ["SimplexHalfspace"]

NEAR = 1e-6           # a half-space this close (relative) to active is near its kink


def simplex_nu(y):
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
        self._rows = np.vstack([np.ones_like(self.a), self.a])   # 1^T x = 1, a^T x = c

    def _at_beta(self, z, beta):
        y = z + beta * self.a
        return np.maximum(y - simplex_nu(y), 0.0)

    def project(self, z):
        """Euclidean projection ``x = max(z + beta a - nu, 0)``: ``beta = 0`` when the
        simplex projection already has ``a^T x >= c``; else ``beta > 0`` solves
        ``a^T x(beta) = c`` (non-decreasing in ``beta``) with ``nu(beta)`` making
        ``1^T x = 1``.  The active rows are then restored on ``x``'s support at ``x``'s scale
        (``_roots.onto_rows``): the point returned is feasible to rounding at ``|x|``, not
        ``|z|``."""
        z = np.asarray(z, dtype=float)
        a, c = self.a, self.c
        tol = 8 * EPS * (abs(c) + float(np.abs(a).max()))
        x = self._at_beta(z, 0.0)
        if dot(a, x) >= c - tol:
            x = onto_rows(x, 1.0, 1.0)               # 1^T x = 1 at x's scale (see below)
            if dot(a, x) >= c - tol:
                return x
        if c >= float(a.max()) - tol:                 # only the face where a is largest
            x = np.zeros_like(z)
            zt = z[self._top]
            x[self._top] = np.maximum(zt - simplex_nu(zt), 0.0)
            return onto_rows(x, 1.0, 1.0)

        def step(beta):
            x = self._at_beta(z, beta)
            r = dot(a, x) - c
            s = x > 0
            k, sa, saa = int(s.sum()), float(a[s].sum()), dot(a[s], a[s])
            sz, saz = float(z[s].sum()), dot(a[s], z[s])
            # on the support S: k nu - sa beta = sz - 1 and sa nu - saa beta = saz - c
            det = sa * sa - k * saa
            if not abs(det) > 1e-12 * k * saa:   # a flat piece (equal a_i on the support)
                return r, np.nan
            return r, (k * (saz - c) - sa * (sz - 1.0)) / det

        self._beta = monotone_root(step, 0.0, np.inf, max(self._beta, 0.0), tol)
        # 1^T x = 1 and a^T x = c at x's own scale (with |z| far above 1, round-off leaves
        # them ~eps |z| |a|_1 off whatever beta: onto_rows)
        return onto_rows(self._at_beta(z, self._beta), self._rows, [1.0, c])

    def prox(self, z, e, target, half_L):
        """Projection in the metric ``L I + 2 e e^T`` (see :meth:`.BoxHyperplane.prox`):
        ``x = max(z + kappa e + beta a - nu, 0)`` with ``1^T x = 1``,
        ``half_L kappa + e^T x = target`` and ``beta >= 0``, ``beta (a^T x - c) = 0``.

        Nested exact roots: ``nu`` by Michelot's iteration, ``kappa`` (strictly increasing
        equation) and ``beta`` (``a^T x`` non-decreasing in it), each Newton step solving the
        linear system of the current support; the set's active rows then restored at ``x``'s
        scale, as in :meth:`project`.
        """
        z = np.asarray(z, dtype=float)
        a, c = self.a, self.c
        tol_a = 8 * EPS * (abs(c) + float(np.abs(a).max()))
        tol_e = 8 * EPS * (abs(target) + float(np.abs(e).max()))
        state = {"kappa": getattr(self, "_kappa", 0.0)}

        def x_at(kappa, beta):
            y = z + kappa * e + beta * a
            return np.maximum(y - simplex_nu(y), 0.0)

        def centered(u, v, s):
            us, vs = u[s], v[s]
            return dot(us, vs) - float(us.sum()) * float(vs.sum()) / int(s.sum())

        def inner(beta):
            def step(kappa):
                x = x_at(kappa, beta)
                r = half_L * kappa + dot(e, x) - target
                return r, kappa - r / (half_L + centered(e, e, x > 0))
            k = monotone_root(step, -np.inf, np.inf, state["kappa"], tol_e)
            state["kappa"] = k
            return k

        def outer(beta):
            kappa = inner(beta)
            x = x_at(kappa, beta)
            r = dot(a, x) - c
            s = x > 0
            ee, ea, aa = half_L + centered(e, e, s), centered(e, a, s), centered(a, a, s)
            slope = (ee * aa - ea * ea) / ee
            return r, (beta - r / slope) if slope > 0 else np.nan

        beta = 0.0
        if outer(0.0)[0] < -tol_a:
            beta = monotone_root(outer, 0.0, np.inf, max(self._beta, 0.0), tol_a)
        self._beta = beta
        kappa = inner(beta)
        self._kappa = kappa
        x = x_at(kappa, beta)
        if beta > 0:                   # the rows at x's own scale, as in project
            return onto_rows(x, self._rows, [1.0, c])
        return onto_rows(x, 1.0, 1.0)

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

        return dual_maximum(value, (float(G.max() - G.min()) + 1.0) / max(float(a.max() - a.min()), 1e-300))

    def active(self, x, slack=0.0):
        """True when ``a^T x = c`` holds to rounding, or within ``slack`` (relative)."""
        return dot(self.a, x) <= self.c + (8 * EPS + slack) * (abs(self.c)
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
        t = box_ray(x, p, free, 0.0, np.inf)
        ap = dot(self.a, p)
        if ap < 0:
            t = min(t, max(dot(self.a, x) - self.c, 0.0) / -ap)
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
        if not self.active(x, slack=NEAR):
            return [(free, ones)]
        return [with_row, (free, ones)]
