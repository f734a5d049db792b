"""Voter pools and the voter-matrix operators the algorithms consume.

A pool is fitted on training inputs (``fit(X)``) and turns any inputs into the voter
matrix ``H`` (``transform(X)``, ``H[i, k] = h_k(x_i)``).  ``operator(X)`` gives the same
matrix as a :class:`VoterOperator`, which iterative algorithms use through ``rmatvec``
(``H^T v``), ``matvec`` (``H a``) and ``column(k)``.  For decision stumps the operator never
builds ``H``: the inputs are binned once on the pool's thresholds, and ``H^T v`` for every
threshold of every feature is one pass over the bins (a weighted histogram per feature and
its running sum), O(m d) per call whatever the number of thresholds (DESIGN.md).  The
kernels are compiled with numba at import (cached on disk) and release the GIL.

Modules: :mod:`.operators` (the operator interface, dense matrices), :mod:`._kernels` (the
bins and the compiled passes over them), :mod:`._threads` (how a pass is split over
threads), :mod:`.stump_operator` (:class:`StumpOperator`), :mod:`.pools` (the pools) and
:mod:`.trees` (trees fitted one per round to a run's example weights, :class:`TreePool`).
"""
from __future__ import annotations

from .operators import DenseOperator, VoterOperator, as_operator
from .pools import BINNINGS, MAX_POOL_BYTES, HyperplanePool, RBFPool, StumpPool
from .stump_operator import StumpOperator
from .trees import MAX_DEPTH, TreeOperator, TreePool
from ._threads import ENGINE_THREADS, engine_threads, use_engine_threads

__all__ = ["VoterOperator", "DenseOperator", "StumpOperator", "as_operator",
           "StumpPool", "HyperplanePool", "RBFPool", "TreePool", "TreeOperator", "MAX_DEPTH",
           "BINNINGS", "MAX_POOL_BYTES",
           "ENGINE_THREADS", "engine_threads", "use_engine_threads"]
