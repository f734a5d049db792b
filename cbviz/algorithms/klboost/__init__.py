"""The KL-regularized learner (Germain et al., NIPS 2009, Algorithm 1, "f minimization"):
coordinate descent on ``C sum_i zeta(M_i) + KL(Q || P)`` over a quasi-uniform posterior.

Modules: ``_klboost`` (:class:`KLBoost`, :class:`KLBoostRun`: the objective, the sweep order
and the records), ``_line_min`` (the exact line minimum along one coordinate, compiled) and
``_sweeps`` (a pass over a stump pool's bins, eight coordinates per sweep over the examples).
"""
from ._klboost import LOSSES, KLBoost, KLBoostRun, quasi_uniform

__all__ = ["LOSSES", "KLBoost", "KLBoostRun", "quasi_uniform"]
