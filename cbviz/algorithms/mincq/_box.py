"""The quasi-uniform form's feasible set, :class:`BoxHyperplane`.

``{x : lo <= x_i <= hi,  a^T x = c}``: Program 1 of Germain et al. (JMLR 2015) in the signed
weights ``w = 2Q - 1/n'`` (``lo = -1/n'``, ``hi = 1/n'``, ``a = g``, ``c = mu``), with what the
Gram-free solver needs from it (:mod:`cbviz.algorithms.mincq._sets`).
"""
from __future__ import annotations

import numpy as np

from ._roots import EPS, box_ray, dot, monotone_root, onto_rows

__all__ = ["BoxHyperplane"]


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
        ``a^T x = c`` (KKT of ``min |x - z|^2 / 2``; ``a^T x`` is non-decreasing in ``lam``),
        the row then restored at ``x``'s scale on the coordinates inside the box
        (``_roots.onto_rows``)."""
        z = np.asarray(z, dtype=float)
        a, lo, hi = self.a, self.lo, self.hi
        tol = 8 * EPS * (abs(self.c) + float(np.abs(a).sum()) * max(abs(lo), abs(hi)))

        def step(lam):
            t = z + lam * a
            x = np.clip(t, lo, hi)
            r = dot(a, x) - self.c
            free = (t > lo) & (t < hi)
            slope = dot(a[free], a[free])
            return r, (lam - r / slope) if slope > 0 else np.nan

        reach = (self._span + float(np.max(np.abs(z), initial=0.0))) / self._a_min
        self._lam = monotone_root(step, -reach, reach, self._lam, tol)
        # a^T x = c at x's own scale, on the coordinates inside the box (with |z| far above
        # the box, round-off leaves it ~eps |z| |a|_1 off whatever lam: onto_rows)
        return onto_rows(np.clip(z + self._lam * a, lo, hi), a, self.c, lo, hi)

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
        tol_a = 8 * EPS * scale
        tol_e = 8 * EPS * (abs(target) + float(np.abs(e).sum()) * max(abs(lo), abs(hi)))
        state = {"kappa": getattr(self, "_kappa", 0.0)}

        def inner(lam):
            base = z + lam * a

            def step(kappa):
                t = base + kappa * e
                x = np.clip(t, lo, hi)
                r = half_L * kappa + dot(e, x) - target
                free = (t > lo) & (t < hi)
                return r, kappa - r / (half_L + dot(e[free], e[free]))
            k = monotone_root(step, -np.inf, np.inf, state["kappa"], tol_e)
            state["kappa"] = k
            return k

        def outer(lam):
            kappa = inner(lam)
            t = z + lam * a + kappa * e
            x = np.clip(t, lo, hi)
            r = dot(a, x) - self.c
            free = (t > lo) & (t < hi)
            ef, af = e[free], a[free]
            ee, ea, aa = half_L + dot(ef, ef), dot(ef, af), dot(af, af)
            det = ee * aa - ea * ea
            # d(a^T x)/d lam along kappa(lam): aa - ea^2 / ee
            slope = det / ee
            return r, (lam - r / slope) if slope > 0 else np.nan

        lam = monotone_root(outer, -np.inf, np.inf, self._lam, tol_a)
        self._lam = lam
        kappa = inner(lam)
        self._kappa = kappa
        return onto_rows(np.clip(z + lam * a + kappa * e, lo, hi), a, self.c, lo, hi)

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
        den = dot(self.a[fit], self.a[fit])
        lam = dot(self.a[fit], G[fit]) / den if den > 0 else 0.0
        return G - lam * self.a, at_lo, at_hi

    def ray(self, x, p, free):
        """Largest ``t >= 0`` keeping ``x + t p`` in the set, for ``p`` zero off ``free``
        and on the hyperplane (``a^T p = 0``)."""
        return box_ray(x, p, free, self.lo, self.hi)

    def restrict(self, free, x):
        """The set of the coordinates ``free`` with the others fixed at their values in
        ``x``: the closure of ``x``'s face when ``free`` is it."""
        return BoxHyperplane(self.a[free], self.c - dot(self.a[~free], x[~free]), self.lo,
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
