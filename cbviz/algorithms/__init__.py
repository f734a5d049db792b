"""Majority-vote learners, all speaking the step protocol of :mod:`cbviz.algorithms.base`."""
from .base import Candidates, ParameterError, Record, Run
from .cbboost import CBBoost, CBBoostRun, DirectionCurve, lockstep, one_direction_c_bound

__all__ = ["CBBoost", "CBBoostRun", "Candidates", "DirectionCurve", "ParameterError",
           "Record", "Run", "lockstep", "one_direction_c_bound"]
