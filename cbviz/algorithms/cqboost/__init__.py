"""CqBoost (Roy, Marchand and Laviolette, AISTATS 2016, Algorithm 1): column generation on
MinCq's program, one voter per step.

Modules: ``_cqboost`` (:class:`CqBoost`, :class:`CqBoostRun`: the column-generation loop, the
dual's example weights and the stopping rule) and ``_master`` (the warm-started active-set
solver of the restricted master program, with cvxopt as its fallback).
"""
from ._cqboost import CqBoost, CqBoostRun, example_weight_shares, mu_limit

__all__ = ["CqBoost", "CqBoostRun", "example_weight_shares", "mu_limit"]
