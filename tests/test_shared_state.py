"""Objects cached across sessions (one problem for every student with the same settings) are
read-only: several threads using one cached problem get exactly what a lone run gets."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from cbviz.algorithms import CBBoost
from cbviz.workbench import Settings, build_problem

N_THREADS = 6


def _lone_and_threaded(work, n_threads=N_THREADS):
    """``work(i)`` once alone, then on ``n_threads`` threads released together."""
    expected = [work(i) for i in range(n_threads)]
    results, errors = [None] * n_threads, []
    barrier = threading.Barrier(n_threads)

    def target(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - every failure is reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return expected, results, errors


@pytest.mark.parametrize("settings", [
    Settings(source="toy", toy="moons", n_samples=400),
    Settings(source="real", real="breast_cancer", n_thresholds="all"),
], ids=["moons-10", "breast_cancer-all"])
def test_threads_on_one_cached_operator_get_exact_products(settings):
    problem = build_problem(settings)
    op = problem.H_train
    rng = np.random.default_rng(0)
    vs = rng.standard_normal((N_THREADS, 50, op.shape[0]))
    dense = op.toarray()

    def work(i):
        return np.array([op.rmatvec(v) for v in vs[i]])

    expected, results, errors = _lone_and_threaded(work)
    assert errors == []
    for i in range(N_THREADS):
        np.testing.assert_array_equal(results[i], expected[i])
        np.testing.assert_allclose(results[i], vs[i] @ dense, rtol=1e-9, atol=1e-9)


def test_threads_running_cbboost_on_one_cached_problem_match_a_lone_run():
    problem = build_problem(Settings(source="real", real="breast_cancer"))
    y, yt = problem.split.y_train, problem.split.y_test

    def work(i):
        direction = ("exhaustive", "gradient")[i % 2]
        run = CBBoost(max_iter=25, direction=direction).start(
            problem.H_train, y, problem.H_test, yt, describe=problem.pool.describe).run()
        return [(r.index, r.alpha, r.c_bound, r.test_error) for r in run.history]

    expected, results, errors = _lone_and_threaded(work)
    assert errors == []
    assert results == expected
