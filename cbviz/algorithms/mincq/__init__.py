"""MinCq (Laviolette et al. 2011; Germain et al. JMLR 2015): the C-bound minimizer as one
quadratic program over the whole pool, and MinCq(CB-Boost) of the CB-Boost paper.

Two forms of the program (``form``): the authors' quasi-uniform one (Germain et al. 2015,
Program 1) and the plain simplex one of the CqBoost paper (program 2).  Small pools are
solved by cvxopt; larger ones without a Gram matrix (``solver="gram_free"``).

Modules: ``_mincq`` (:class:`MinCq`, :class:`MinCqRun`, :func:`mincq_on_history`: the two
programs and their KKT checks), ``_solver`` (the Gram-free method: accelerated gradient,
then ``_polish``, conjugate gradients on the faces, or ``_newton``, proximal Newton in the
image with few examples), ``_precond`` (a block preconditioner of ``2 H^T H / m``),
``_sets`` (the feasible polytopes: ``_box``, ``_simplex``, ``_l1``) and ``_roots`` (the
scalar solves the sets share).
"""
from ._mincq import (CVXOPT_MAX_VARIABLES, FORMS, MINCQ_ON_HISTORY_COLUMNS, SOLVERS,
                     MemoryLimitError, MinCq, MinCqRun, mincq_on_history)

__all__ = ["CVXOPT_MAX_VARIABLES", "FORMS", "MINCQ_ON_HISTORY_COLUMNS", "SOLVERS",
           "MemoryLimitError", "MinCq", "MinCqRun", "mincq_on_history"]
