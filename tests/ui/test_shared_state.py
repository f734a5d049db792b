"""Objects cached across sessions (one problem for every student with the same settings) are
read-only: several threads using one cached problem get exactly what a lone run gets."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import lone_and_threaded

from cbviz.algorithms import CBBoost
from cbviz.problem import Settings, build_problem

N_THREADS = 6


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

    expected, results, errors = lone_and_threaded(work, N_THREADS)
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

    expected, results, errors = lone_and_threaded(work, N_THREADS)
    assert errors == []
    assert results == expected
