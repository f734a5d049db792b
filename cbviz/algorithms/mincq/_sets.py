"""The feasible sets of MinCq's two programs, with what a Gram-free solver needs from them.

:mod:`cbviz.algorithms.mincq._solver` minimizes ``f(x) = |H x|^2 / m`` over one of these
polytopes; each gives its exact Euclidean projection, its linear minimization oracle (for the
duality gap), the face of a point (for conjugate gradients on it) and a KKT residual:

* :class:`BoxHyperplane` (:mod:`~cbviz.algorithms.mincq._box`) --
  ``{x : lo <= x_i <= hi,  a^T x = c}``, the quasi-uniform form;
* :class:`SimplexHalfspace` (:mod:`~cbviz.algorithms.mincq._simplex`) --
  ``{x >= 0,  1^T x = 1,  a^T x >= c}``, the simplex form;
* :class:`L1Halfspace` (:mod:`~cbviz.algorithms.mincq._l1`) -- ``{w : |w|_1 <= 1,  a^T w >= c}``,
  the simplex form on a self-complemented pool in the signed weights of its direct voters.

Their exact one-dimensional solves are in :mod:`cbviz.algorithms.mincq._roots`.
"""
from ._box import BoxHyperplane
from ._l1 import L1Halfspace
from ._simplex import SimplexHalfspace

__all__ = ["BoxHyperplane", "L1Halfspace", "SimplexHalfspace"]
