"""The face polish of MinCq's Gram-free solver: a block active set on the polytope's faces.

Once accelerated gradient (:mod:`cbviz.algorithms.mincq._solver`) has left the face (the
coordinates strictly inside their bounds) unchanged for a few iterations, :func:`polish`
solves the program on it by preconditioned conjugate gradients (preconditioner: the
within-feature blocks of the covariance plus ``e e^T``, :mod:`cbviz.algorithms.mincq._precond`;
the residual keeps only its part off the face's equality rows, Gould, Hribar & Nocedal 2001).
When that solution leaves the box, the projection onto the closure of the face fixes every
coordinate that left at once (in the first rounds even if ``f`` rises, which the next face's
solve repairs; the best point is kept), later the step to the boundary; when it stays in the
box, every bound coordinate whose multiplier has the wrong sign joins the face.  A face right
at the first try ends it in one solve (measured at the bench size: ~55 CG iterations; 2 to 5
faces in all).
"""
from __future__ import annotations

import numpy as np

from ._roots import dot

__all__ = ["polish"]

_SIGMA = 1e-4          # Armijo constant of the projected searches
_ETA_CG = 1e-8         # conjugate gradients stop when an iteration gains less than this fraction
_MAX_CG = 300          # conjugate-gradient iterations per polish
_GREEDY = 10           # polish rounds that take the projection onto a smaller face even if f rises
_RELEASE = 1e-9        # bound coordinates join the face when their multiplier is this wrong (of max |G|)
_FLAT = 1e-12          # curvature below this fraction of slope / (step to the boundary): a ray


def _projected_search(q, project, x, f, G, direction, alpha):
    """Armijo search along ``P(x + alpha direction)``; each trial costs one ``H y``.

    Backtracks with the minimizer of the exact quadratic along the segment ``x -> y``
    (clamped to ``[0.1, 0.5]`` of ``alpha``).  Returns ``(y, F_y, f_y, alpha)`` or ``None``
    when the step vanishes in round-off.
    """
    for _ in range(60):
        y = project(x + alpha * direction)
        s = y - x
        if not np.any(s):
            return None
        Fy = q.image(y)
        fy = q.value(Fy)
        gs = dot(G, s)
        if fy <= f + _SIGMA * gs:
            return y, Fy, fy, alpha
        curv = fy - f - gs                       # = |H s|^2 / m
        t = -gs / (2.0 * curv) if curv > 0 else 0.5
        alpha *= min(max(t, 0.1), 0.5)
    return None


def _face_gap(r, width):
    """What a residual ``r`` on the free coordinates (less its multipliers' part) adds to
    the duality gap, roughly: ``width * |r|_1`` in a box of that width, ``2 |r|_inf`` on the
    simplex (``width`` None)."""
    if width is None:
        return 2.0 * float(np.max(np.abs(r), initial=0.0))
    return width * float(np.abs(r).sum())


def _face_cg(q, fset, x, F, f, G, max_products, precond=None, target=0.0, greedy=False,
             free=None):
    """Preconditioned conjugate gradients on the face of ``x`` (its free coordinates, or
    ``free``; its equality rows kept by projecting each preconditioned residual in the
    preconditioner's metric) until the residual's share of the gap is below ``target``, then
    one step.  Returns ``(x, F, f, how)``: "inside" (the face's solution, in the box),
    "boundary" (the solution left the box: the projection onto the closure of the face when
    ``greedy`` or when it lowers ``f`` more than the step to the boundary along the
    direction, else that step; a projected search if neither lowers ``f``) or "none"."""
    free, C = fset.face(x, free)
    if not free.any():
        return x, F, f, "none"
    pre = precond.on(free) if precond is not None else (lambda v: np.where(free, v, 0.0))
    rows = np.zeros((C.shape[0], x.size))
    rows[:, free] = C
    W = np.array([pre(row) for row in rows])
    S = np.linalg.pinv(np.einsum("ik,jk->ij", rows, W), rcond=1e-13)

    def solve(r):
        """``(r - C^T lam, z)``: the residual less its multipliers' part and the
        preconditioned residual ``z = P^{-1} (r - C^T lam)`` with ``C z = 0``.  Subtracting
        ``C^T lam`` from ``r`` itself (Gould, Hribar & Nocedal 2001, "residual update")
        keeps ``r . z`` accurate: ``r`` carries the multipliers' part of the gradient,
        orders of magnitude above the part conjugate gradients reduce."""
        lam = S @ np.einsum("ik,k->i", rows, pre(r))
        r = r - np.einsum("ik,i->k", rows, lam)
        return r, pre(r)

    r, z = solve(np.where(free, -G, 0.0))
    rz = rz0 = dot(r, z)
    if not rz > 0.0:
        return x, F, f, "none"
    d, Fd, p = np.zeros_like(x), np.zeros_like(F), z
    best, inside, its = 0.0, True, 0
    lo, hi = getattr(fset, "lo", 0.0), getattr(fset, "hi", np.inf)
    width = hi - lo if np.isfinite(hi) else None
    while q.products < max_products:
        Hp = q.image(p)
        curv = 2.0 * dot(Hp, Hp) / q.m
        t = fset.ray(x + d, p, free)
        # the step across the whole box along p: a coordinate near its bound makes t tiny
        # without making f flat along p
        across = (width or 1.0) / max(float(np.max(np.abs(p[free]), initial=0.0)), 1e-300)
        if not curv * across > _FLAT * rz:
            # f is (nearly) linear along p (H p ~ 0: e.g. a voter and its complement):
            # it decreases all the way to the boundary of the polytope, so go there
            d += t * p
            Fd += t * Hp
            inside = False
            break
        a = rz / curv
        d += a * p
        Fd += a * Hp
        gain = 0.5 * a * rz
        inside = fset.ray(x, d, free) >= 1.0
        its += 1
        if gain <= _ETA_CG * best or its >= _MAX_CG:
            break
        best = max(best, gain)
        r, z = solve(r - a * np.where(free, q.gradient(Hp), 0.0))
        # the residual's share of the duality gap on the face, against the target
        if _face_gap(r, width) <= target:
            break
        rz_new = dot(r, z)
        if not rz_new > 1e-24 * rz0:            # converged to round-off
            break
        p = z + (rz_new / rz) * p
        rz = rz_new
    if not np.any(d):
        return x, F, f, "none"
    # an exact step on the face when it stays in the box and keeps the equality rows to
    # round-off (f is then known)
    drift = np.abs(C @ d[free]).max(initial=0.0) if C.size else 0.0
    exact = drift <= 1e-13 * (np.abs(C).max(initial=0.0) * np.abs(d).sum() + 1e-300)
    sub = fset.restrict(free, x)

    def on_face(v):          # projection onto the closure of x's face (bounds stay)
        y = x.copy()
        y[free] = sub.project(v[free])
        return y
    if inside:
        if exact:
            y, Fy = x + d, F + Fd
        else:                # the rows drifted in round-off: back onto them
            y = on_face(x + d)
            Fy = q.image(y)
        fy = q.value(Fy)
        if fy < f:
            return y, Fy, fy, "inside"
        return x, F, f, "none"
    # d leaves the box: the step to the box's boundary along d (f decreases along the
    # whole segment to x + d) or the projection of x + d; either lands on a smaller face
    best = None
    t = fset.ray(x, d, free)
    if t > 0 and exact:
        y = on_face(x + t * d)
        Fy = q.image(y)
        best = (y, Fy, q.value(Fy))
    y = on_face(x + d)
    Fy = q.image(y)
    fy = q.value(Fy)
    if greedy:
        return y, Fy, fy, "boundary"
    if best is None or fy < best[2]:
        best = (y, Fy, fy)
    if best[2] < f:
        return best + ("boundary",)
    step = _projected_search(q, on_face, x, f, G, d, 0.5)
    if step is None:
        return x, F, f, "none"
    y, Fy, fy, _ = step
    return y, Fy, fy, "boundary"


def polish(q, fset, x, F, f, G, max_products, precond, target, rounds=50):
    """Block active set from ``x`` (module docstring): conjugate gradients on a face,
    then the next face (fewer coordinates when the solution left the box, more when bound
    coordinates' multipliers have the wrong sign), at most ``rounds`` faces; stops on a face
    whose solution stays in the box with every multiplier right.  Returns the best point
    ``(x, F, f)`` met."""
    best, free = (x, F, f), None
    for k in range(rounds):
        x, F, f, how = _face_cg(q, fset, x, F, f, G, max_products, precond, target,
                                greedy=k < _GREEDY, free=free)
        if f < best[2]:
            best = (x, F, f)
        if q.products >= max_products:
            break
        G = q.gradient(F)
        free = None
        if how != "boundary":
            # the face's optimum: coordinates at a bound whose multipliers have the wrong
            # sign join the face (a block active-set step); none left: done
            more = fset.released(x, G, _RELEASE * float(np.max(np.abs(G))))
            if not more.any():
                break
            free = fset.face(x)[0] | more
    return best
