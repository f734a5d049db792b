"""Majority-vote learners, all speaking the step protocol of :mod:`cbviz.algorithms.base`.

:data:`ALGORITHMS` (in :mod:`.registry`) names each with its paper and hyper-parameters.
"""
from .adaboost import AdaBoost, AdaBoostRun
from .base import Candidates, ParameterError, Record, Run
from .cbboost import (CBBoost, CBBoostCandidates, CBBoostRun, DirectionCurve, lockstep,
                      lockstep_start, lockstep_table, one_direction_c_bound, pick_correlations,
                      run_in_turn, stop_reason)
from .cqboost import CqBoost, CqBoostRun
from .klboost import KLBoost, KLBoostRun
from .mincq import MinCq, MinCqRun, mincq_on_history
from ._qp import MuLimitError, QPError
from .quadboost import QuadBoost, QuadBoostRun
from .registry import ALGORITHMS, AlgorithmSpec, Param, make_algorithm
from .vebboost import VEBBoost, VEBBoostRun

__all__ = ["ALGORITHMS", "AdaBoost", "AdaBoostRun", "AlgorithmSpec", "CBBoost",
           "CBBoostCandidates", "CBBoostRun", "Candidates", "CqBoost", "CqBoostRun",
           "DirectionCurve", "KLBoost", "KLBoostRun", "MinCq", "MinCqRun", "MuLimitError", "Param",
           "ParameterError", "QPError", "QuadBoost", "QuadBoostRun", "Record", "Run", "VEBBoost",
           "VEBBoostRun", "lockstep", "lockstep_start", "lockstep_table", "make_algorithm",
           "mincq_on_history", "one_direction_c_bound", "pick_correlations", "run_in_turn",
           "stop_reason"]
