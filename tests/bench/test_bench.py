"""Checks of the benchmark (cbviz.bench) on tiny sizes: the timing helpers, the engine and
algorithm tables and their command line (Fig. 1: test_fig1_protocol.py).  No assertion compares
times between algorithms (they depend on the machine's load); the structural facts are checked
instead: every algorithm has a positive time, skips and caps are stated in ``note``, ratios
are the quotients of the table's own times.  Every data set is seeded.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cbviz import bench
from cbviz.algorithms import ALGORITHMS, CBBoost, ParameterError
from cbviz.voters import StumpPool

TINY = dict(m=200, d=8, iters=4, n_thresholds=5, seed=0)


@pytest.fixture(scope="module")
def algorithms():
    return bench.algorithm_table(**TINY, mincq_voters=10, klboost_passes=2)


def test_make_data_is_seeded_with_labels_pm1():
    X, y = bench.make_data(120, 6, seed=3)
    assert X.shape == (120, 6) and set(np.unique(y)) == {-1, 1}
    X2, y2 = bench.make_data(120, 6, seed=3)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)


def test_sub_pool_keeps_direct_voters_and_their_complements():
    X, _ = bench.make_data(50, 4)
    H = StumpPool(5).fit(X).operator(X)       # 20 direct voters + 20 complements
    S = bench.sub_pool(H, 4)
    assert S.shape == (50, 8) and S.is_self_complemented()
    direct = [0, 6, 13, 19]                   # round(linspace(0, 19, 4))
    assert np.array_equal(S.toarray(), H.columns(direct + [k + 20 for k in direct]))
    with pytest.raises(ParameterError, match="n_direct"):
        bench.sub_pool(H, 21)


def test_time_run_times_every_step():
    X, y = bench.make_data(80, 5)
    H = StumpPool(4).fit(X).operator(X)
    timing = bench.time_run(CBBoost(max_iter=6), H, y)
    assert timing.steps.size == len(timing.run.history) == 6
    assert np.all(timing.steps > 0) and timing.start > 0
    assert timing.total >= timing.start + timing.steps.sum()


def test_best_run_keeps_the_fastest_and_respects_the_budget():
    X, y = bench.make_data(80, 5)
    H = StumpPool(4).fit(X).operator(X)
    timing, runs = bench.best_run(CBBoost(max_iter=3), H, y, repeat=3, budget=1e9)
    assert runs == 3 and len(timing.run.history) == 3
    timing, runs = bench.best_run(CBBoost(max_iter=3), H, y, repeat=3, budget=0.0)
    assert runs == 1                          # the first run already used the budget
    times = iter([3.0, 1.0, 2.0])
    assert bench.best_of(lambda: (t := next(times), t * 10), repeat=3, budget=10) == (10.0, 3)
    times = iter([3.0, 1.0, 2.0])
    assert bench.best_of(lambda: (t := next(times), t * 10), repeat=3, budget=4) == (10.0, 2)


def test_algorithm_table_has_every_algorithm_with_positive_times(algorithms):
    t = algorithms
    assert list(t.columns) == bench.ALGORITHM_COLUMNS
    # every registered algorithm, GB-CB-Boost as its own row, and scikit-learn's AdaBoost
    assert len(t) == len(ALGORITHMS) + 2
    assert set(t["key"]) == set(ALGORITHMS) | {"sklearn"}
    assert {"GB-CB-Boost", "CB-Boost", bench.SKLEARN_ADABOOST} <= set(t["algorithm"])
    assert (t["seconds"] > 0).all() and (t["vs_sklearn"] > 0).all()
    assert t["runs"].between(1, 3).all()      # best of up to repeat=3 runs, sklearn's too
    sk = t.set_index("key").loc["sklearn"]
    assert sk["vs_sklearn"] == 1.0 and sk["iterations"] == TINY["iters"]
    np.testing.assert_allclose(t["vs_sklearn"], t["seconds"] / sk["seconds"], rtol=1e-12)
    rows = t.set_index("algorithm")
    assert (rows.loc["CB-Boost", "iterations"], rows.loc["GB-CB-Boost", "iterations"]) == (4, 4)


def test_algorithm_table_states_units_and_caps(algorithms):
    rows = algorithms.set_index("key")
    mincq = rows.loc["mincq"]
    assert mincq["unit"] == "one solve" and mincq["iterations"] == 1
    assert mincq["voters"] == 20 and "sub-pool: 10 evenly spaced" in mincq["note"]
    kl = rows.loc["klboost"]
    assert kl["unit"] == "per pass" and kl["iterations"] == 2 and "2 passes" in kl["note"]
    assert rows.loc["adaboost", "voters"] == 2 * TINY["d"] * TINY["n_thresholds"]


def test_algorithm_table_skips_mincq_with_a_note_and_checks_iters():
    t = bench.algorithm_table(m=120, d=5, iters=2, n_thresholds=3, mincq_voters=0,
                              klboost_passes=1).set_index("key")
    assert np.isnan(t.loc["mincq", "seconds"]) and "skipped" in t.loc["mincq", "note"]
    assert t.loc["mincq", "runs"] == 0
    assert (t.drop(index="mincq")["seconds"] > 0).all()
    assert t.loc["klboost", "iterations"] == 1 and "one step only" in t.loc["klboost", "note"]
    with pytest.raises(ParameterError, match="iters must be >= 2"):
        bench.algorithm_table(m=50, d=4, iters=1)


def test_engine_table_has_every_configuration_with_positive_times():
    t = bench.measure(m=300, d=6, iters=4, sklearn_iters=2, repeat=1)
    assert list(t.columns) == bench.ENGINE_COLUMNS
    labels = [label for label, _ in bench.ENGINE_POOLS]
    assert list(t["configuration"]) == labels + [bench.SKLEARN_ADABOOST, bench.SKLEARN_HGB,
                                                 bench.BARE_PASS]
    ours = t.iloc[:3]
    assert (ours[["ms", "ms_1_thread", "record_ms", "binned_mb", "setup_s"]] > 0).all().all()
    assert (ours["iterations"] == 3).all()   # speeds are compared by the bench, not here
    # 10 thresholds < 255 quantile bins <= every midpoint, each with complements
    assert ours["voters"].iloc[0] == 2 * 6 * 10 and list(ours["voters"]) == sorted(ours["voters"])
    # scikit-learn's HistGradientBoosting is a difference of two fit times: only finite here,
    # where the data is too small for the difference to stand above the timing noise
    assert t.iloc[[3, 5]]["ms"].gt(0).all() and np.isfinite(t["ms"].iloc[4])
    assert t.iloc[3:]["binned_mb"].isna().all()
    assert list(t.iloc[3:]["iterations"]) == [2, 12, 1]   # HistGradientBoosting: 3 iters


def test_report_prints_the_ratios_of_the_table():
    labels = [label for label, _ in bench.ENGINE_POOLS]
    ms = dict(zip(labels + [bench.SKLEARN_ADABOOST, bench.SKLEARN_HGB, bench.BARE_PASS],
                  [4.0, 5.0, 40.0, 1000.0, 12.0, 2.0]))
    table = pd.DataFrame([dict(configuration=k, voters=1, iterations=1, ms=v,
                               ms_1_thread=2 * v if k in labels else v) for k, v in ms.items()],
                         columns=bench.ENGINE_COLUMNS)
    out = bench.report(table)
    for value, name in [(250.0, "AdaBoost / 10 thresholds (target >= 150)"),
                        (2.0, "10 thresholds / bare pass (target <= 1.5)"),
                        (1.25, "255 quantile bins / 10 thresholds (target <= 1.25)"),
                        (25.0, "AdaBoost / all midpoints (exact) (target >= 15)"),
                        (1.5, "HistGradientBoosting / 10 thresholds, one thread each")]:
        assert f"{value:8.2f}x  {name}" in out


def test_cli_default_is_the_engine_table(capsys):
    bench.main(["--m", "150", "--d", "6", "--iters", "3", "--sklearn-iters", "2"])
    out = capsys.readouterr().out
    assert "Time per iteration, m=150, d=6" in out
    for label, _ in bench.ENGINE_POOLS:
        assert label in out
    assert bench.SKLEARN_HGB in out and bench.BARE_PASS in out and "target >= 150" in out


def test_cli_algorithms(capsys):
    bench.main(["algorithms", "--m", "120", "--d", "5", "--iters", "3", "--thresholds", "3",
                "--mincq-voters", "6", "--klboost-passes", "1", "--cqboost-iters", "2"])
    out = capsys.readouterr().out
    for name in ["CB-Boost", "GB-CB-Boost", "AdaBoost (ours)", bench.SKLEARN_ADABOOST] + [
            spec.name for spec in ALGORITHMS.values()]:
        assert name in out
    assert "sub-pool: 6 evenly spaced" in out and "2 iterations (cqboost_iters)" in out
