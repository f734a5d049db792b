"""What a run checks of its inputs: labels, voter outputs, and the trees it fits."""
from __future__ import annotations

import numpy as np

from ..constraints import ParameterError

__all__ = ["check_labels", "check_outputs", "own_trees"]


def check_labels(y, m):
    y = np.asarray(y)
    if y.shape != (m,):
        raise ParameterError(f"y has shape {y.shape}; expected ({m},) to match the voter matrix")
    if m == 0:
        raise ParameterError("no training examples")
    if not np.all(np.isin(y, (-1, 1))):
        raise ParameterError(f"labels must be -1 or +1, got {np.unique(y)[:5]}")
    return y.astype(float)


def check_outputs(op, which="H"):
    """Refuse a dense voter matrix with an output that is not a finite number in [-1, 1].

    The bounds assume voters h: X -> [-1, 1]; outside it the Gibbs risk and the PAC-Bayes
    bounds come out as numbers that mean nothing (a negative risk, a bound below 0).  Pools'
    own operators (stumps) produce +-1 by construction and are not scanned.
    """
    H = getattr(op, "H", None)
    if H is None:
        return op
    bad = np.flatnonzero((~np.isfinite(H) | (np.abs(H) > 1.0 + 1e-12)).any(axis=0))
    if bad.size:
        k = int(bad[0])
        i = int(np.flatnonzero(~np.isfinite(H[:, k]) | (np.abs(H[:, k]) > 1.0 + 1e-12))[0])
        raise ParameterError(f"{which} column {k}: voter outputs must be finite numbers in "
                             f"[-1, 1]; example {i} has {H[i, k]!r} ({bad.size} such column"
                             f"{'s' * (bad.size > 1)})")
    return op


def own_trees(run, H_test, describe):
    """``(H, H_test, describe)`` for a run on a tree pool's operator ``run.H``: the operators
    of a copy of the pool, so the run fits its trees there and the pool given (e.g. one
    problem's, shared by a class's sessions) stays empty; ``describe`` names the copy's trees
    when it named the given pool's."""
    name = type(run).__name__.removesuffix("Run")
    if not run.fits_voters:
        raise ParameterError(f"{name} weighs a fixed, finite pool; fitted trees are grown by "
                             "the run itself: use AdaBoost, VEB-Boost or CB-Boost's gradient "
                             "rule with them")
    if not run.H.trains:
        raise ParameterError("H must be the tree pool's operator on the inputs it was fitted "
                             "on: the run fits its trees there")
    given = run.H.pool
    pool = given.fresh()
    if H_test is not None:
        if getattr(H_test, "pool", None) is not given:
            raise ParameterError("H_test must be the same tree pool's operator on the test "
                                 "inputs")
        H_test = pool.operator(H_test.X)
    if getattr(describe, "__self__", None) is given:
        describe = pool.describe
    return pool.operator(run.H.X), H_test, describe
