"""Bounded memory per session: what runs hold at the pages' iteration limits, measured.

Records keep the run's log of weight changes (and a few snapshots), not the vote after every
iteration: a 5,000-step CB-Boost run held 200 MB of supports before (12.5 M entries), the
stated ceiling is :data:`cbviz.algorithms._history.RECORD_BYTES` per iteration plus
:data:`~cbviz.algorithms._history.RUN_WORK_BYTES` per voter and example
(:func:`~cbviz.algorithms._history.session_ceiling`).  Measured with :mod:`tracemalloc`: what
stays allocated, with the runs alive, after a collection.
"""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import make_classification

from cbviz.algorithms import lockstep
from cbviz.algorithms._history import RECORD_BYTES, RUN_WORK_BYTES, session_ceiling
from cbviz.algorithms.cbboost import CBBoost
from cbviz.voters import StumpPool

STEPS, PAIR_STEPS = 5000, 1000   # the step page's and the gradient-vs-exhaustive page's limits


@pytest.fixture(scope="module")
def large():
    """Every midpoint of 50 features on 1,000 examples: 99,900 voters (a step costs little,
    so 5,000 of them fit in the test's time; CB-Boost with eligible='all' keeps going)."""
    X, y01 = make_classification(n_samples=1000, n_features=50, n_informative=25, flip_y=0.1,
                                 random_state=0)
    y = np.where(y01 == 1, 1.0, -1.0)
    H = StumpPool(n_thresholds="all").fit(X).operator(X)
    assert H.shape[1] > 90_000
    CBBoost(max_iter=3).start(H, y).run()     # compile the fused step outside the measure
    lockstep(H, y, max_iter=3)
    return H, y


def _held(make):
    """``(result, bytes it holds)``: traced allocations still alive after ``make()``."""
    gc.collect()
    tracemalloc.start()
    try:
        result = make()
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return result, held


def _log_bytes(run):
    """Bytes of the logs and snapshots the records reference."""
    logs = {id(r._vote.log): r._vote.log for r in run.history}
    return sum(log.nbytes() for log in logs.values())


def test_a_long_cbboost_run_holds_records_not_votes(large):
    H, y = large
    (m, n) = H.shape
    run, held = _held(lambda: CBBoost(max_iter=STEPS, eligible="all").start(H, y).run())
    assert len(run.history) == STEPS, run.stop_reason
    assert run.history[-1].n_voters == STEPS                  # one more voter each step
    # today: 5,000 steps x 2,500 voters on average would be 200 MB of supports and weights
    assert _log_bytes(run) <= 64 * STEPS                      # O(weight changes)
    ceiling = STEPS * RECORD_BYTES + RUN_WORK_BYTES * (n + m)
    print(f"\nCB-Boost, {STEPS} steps, {n} voters: {held / 2**20:.1f} MiB held "
          f"(ceiling {ceiling / 2**20:.1f} MiB; log {_log_bytes(run) / 2**10:.0f} KiB)")
    assert held <= ceiling
    last = run.history[-1]                                    # the records still answer
    assert np.array_equal(last.support, np.flatnonzero(run.weights))
    assert np.array_equal(run.weights_at(STEPS // 2)[run.history[STEPS // 2 - 1].support],
                          run.history[STEPS // 2 - 1].weights)


def test_gradient_vs_exhaustive_at_the_page_limit_stays_under_the_ceiling(large):
    H, y = large
    m, n = H.shape
    (ex, gr, table), held = _held(lambda: lockstep(H, y, max_iter=PAIR_STEPS))
    assert len(ex.history) == len(gr.history) == PAIR_STEPS, (ex.stop_reason, gr.stop_reason)
    assert len(table) == PAIR_STEPS
    ceiling = 2 * (PAIR_STEPS * RECORD_BYTES + RUN_WORK_BYTES * (n + m))
    print(f"\ngradient vs exhaustive, {PAIR_STEPS} steps, {n} voters: {held / 2**20:.1f} MiB "
          f"held (ceiling {ceiling / 2**20:.1f} MiB)")
    assert held <= ceiling
    assert held <= session_ceiling(n, m)
