"""Fig. 1 of the CB-Boost paper (Sect. 5.1): fit time versus n, m and T, as units.

The protocol, its data and its timing are :mod:`cbviz.bench`'s (:class:`~cbviz.bench.Fig1Config`,
:func:`~cbviz.bench.fig1_n`, :func:`~cbviz.bench.fig1_m`, :func:`~cbviz.bench.fig1_T`); this
module cuts it into units: one per value of the n and m grids (the sweep run on that one
value, on the same seeded data as the whole sweep) and one for the T sweep (one run to the
largest T gives every T).  The tables: ``n``, ``m``, ``T``, and ``ratios`` and ``claims``
(:func:`~cbviz.bench.fig1_summary`: every fit time as a ratio to CB-Boost's, the paper's
claims beside ours).  Timing units run one after the other in the calling process
(``parallel=False``): parallel units would time each other's contention.  Before its first
unit, a process makes one tiny warm-up sweep (first calls of numpy and the solvers).
"""
from __future__ import annotations

import functools
from dataclasses import replace

from .. import bench
from .runner import Experiment

__all__ = ["FIG1"]

@functools.cache
def _warm_up():
    """One tiny n sweep of every Fig. 1 algorithm, once per process."""
    bench.fig1_n(bench.Fig1Config(d=4, m_fixed=60, T_fixed=3, n_grid=(2,), m_grid=(60,),
                                  T_grid=(3,), repeat=1))


def _units(config):
    return ([{"sweep": "n", "value": k} for k in config.n_grid]
            + [{"sweep": "m", "value": m} for m in config.m_grid] + [{"sweep": "T", "value": None}])


def _compute(config, unit):
    _warm_up()
    if unit["sweep"] == "n":
        table = bench.fig1_n(replace(config, n_grid=(unit["value"],)))
    elif unit["sweep"] == "m":
        # the m sweep's data set has max(m_grid, m_fixed) rows: keep that size for one m
        size = max(config.m_grid + (config.m_fixed,))
        table = bench.fig1_m(replace(config, m_grid=(unit["value"],), m_fixed=size))
    else:
        table = bench.fig1_T(config)
    return table.to_dict("records")


def _assemble(config, rows):
    tables = {sweep: rows[rows["sweep"] == sweep].reset_index(drop=True)
              for sweep in ("n", "m", "T")}
    return {**tables, **bench.fig1_summary({k: t for k, t in tables.items() if not t.empty})}


FIG1 = Experiment(
    name="fig1", title="Fig. 1: fit time versus n, m and T (Sect. 5.1)",
    config_type=bench.Fig1Config, quick=bench.QUICK_FIG1, full=bench.Fig1Config(),
    units=_units, compute=_compute, assemble=_assemble, columns=tuple(bench.FIG1_COLUMNS),
    grid_fields=("n_grid",), parallel=False, report=bench.fig1_report)
