"""The simplex form on a self-complemented pool, :class:`L1Halfspace`.

``{w : |w|_1 <= 1,  a^T w >= c}``: the simplex program
(:class:`~cbviz.algorithms.mincq._simplex.SimplexHalfspace`) in the signed weights
``w = q_direct - q_complement`` of the direct voters.  A ``q`` on the simplex gives
``|w|_1 <= 1`` and every such ``w`` comes from one (``q = (w+ + s, w- + s)`` with
``s = (1 - |w|_1) / (2 n')``: mass put on a voter and on its complement alike, which does not
change the vote); the vote, ``a^T w`` (``a`` the direct voters' margins) and every linear
function of the gradient agree, so the two programs have the same optimum and the same
duality gaps.  In ``q`` every such pair of weights is a direction along which nothing
changes: at MinCq's optimum on breast cancer (every midpoint) about 8,600 of the 22,084
voters carry weight, most of them in such pairs.
"""
from __future__ import annotations

import numpy as np

from ._roots import EPS, dot, dual_maximum, monotone_root, onto_rows
from ._simplex import NEAR, simplex_nu

__all__ = ["L1Halfspace"]


def _soft(y, lam):
    """Soft thresholding: each ``y_i`` moved ``lam`` towards 0, stopping at 0."""
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
        self._tol = 8 * EPS * (abs(self.c) + float(np.abs(self.a).max(initial=0.0)))

    @staticmethod
    def _ball(y):
        """Projection onto ``|w|_1 <= 1``: soft thresholding at ``lam`` (0 inside the ball,
        else ``sum max(|y| - lam, 0) = 1``).  Returns ``(w, lam)``."""
        ay = np.abs(y)
        if float(ay.sum()) <= 1.0:
            return y.copy(), 0.0
        lam = max(simplex_nu(ay), 0.0)
        return _soft(y, lam), lam

    def project(self, z):
        """Euclidean projection ``w = soft(z + beta a, lam)``: ``beta = 0`` when the ball's
        projection already has ``a^T w >= c``, else ``beta > 0`` solves ``a^T w(beta) = c``
        (non-decreasing in ``beta``; a Newton step assuming the current support and signs).
        The active rows (``|w|_1 = 1`` when ``lam > 0``, ``a^T w = c`` when ``beta > 0``) are
        then restored on ``w``'s support at ``w``'s scale (``_roots.onto_rows``): the point
        returned is feasible to rounding at ``|w|``, not ``|z|``."""
        z = np.asarray(z, dtype=float)
        a, c, tol = self.a, self.c, self._tol
        w, lam = self._ball(z)
        if dot(a, w) >= c - tol:
            if lam > 0:                       # |w|_1 = 1 at w's scale (see below)
                w = onto_rows(w, np.sign(w), 1.0)
            if dot(a, w) >= c - tol:
                return w

        def step(beta):
            y = z + beta * a
            w, lam = self._ball(y)
            r = dot(a, w) - c
            S = w != 0
            sg, aS, zS = np.sign(y[S]), a[S], z[S]
            k = int(S.sum())
            aa = dot(aS, aS)
            if lam > 0 and k:       # on the sphere: lam = (s.(z + beta a) - 1) / k
                sa = float(sg @ aS)
                A1 = aa - sa * sa / k
                A0 = dot(aS, zS) - (float(sg @ zS) - 1.0) * sa / k
            else:
                A1, A0 = aa, dot(aS, zS)
            # a.w is (nearly) flat on this piece (equal |a_i| of one sign: duplicate voters):
            # no Newton step (it would jump to where round-off decides the residual's sign)
            return r, ((c - A0) / A1 if A1 > 1e-12 * aa else np.nan)

        self._beta = monotone_root(step, 0.0, np.inf, max(self._beta, 0.0), tol)
        w, lam = self._ball(z + self._beta * a)
        # the rows |w|_1 = 1 (on the sphere) and a^T w = c at w's own scale: with |z| far
        # above 1, round-off leaves them ~eps |z| |a|_1 off whatever beta (onto_rows)
        if lam > 0:
            return onto_rows(w, np.vstack([np.sign(w), a]), [1.0, c])
        return onto_rows(w, a, c)

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

        return dual_maximum(value, (2.0 * float(np.abs(G).max()) + 1.0) / max(float(np.abs(a).max()), 1e-300))

    def _on_sphere(self, x):
        return float(np.abs(x).sum()) >= 1.0 - 8 * EPS * x.size

    def active(self, x, slack=0.0):
        """True when ``a^T x = c`` holds to rounding (or within ``slack``, relative)."""
        scale = abs(self.c) + float(np.abs(self.a).max())
        return dot(self.a, x) <= self.c + self._tol + slack * scale

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
        without it if it is not active (see :meth:`.SimplexHalfspace.jacobians`)."""
        free = x != 0
        rows = [np.sign(x[free])] if self._on_sphere(x) else []
        with_row = (free, np.vstack(rows + [self.a[free]]))
        bare = (free, np.vstack(rows) if rows else np.zeros((0, int(free.sum()))))
        if self.active(x):
            return [with_row]
        if not self.active(x, slack=NEAR):
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
