"""The headless experiment runner (cbviz.experiments): units, resume, Dask, command line.

Configurations are shrunk (few draws, folds, thresholds, iterations) so the file runs in
well under a minute; fits are deterministic, so tables of two runs are compared exactly
(only the wall-time columns differ).
"""
import dataclasses
import io
import json
import threading

import numpy as np
import pandas as pd
import pytest

from cbviz import bench
from cbviz.experiments import (
    EXPERIMENTS,
    ProgressLine,
    load_results,
    preset,
    results_dir,
    run_experiment,
)
from cbviz.experiments.__main__ import main
from cbviz.experiments.fig3 import fig3_heatmap
from cbviz.experiments.runner import unit_file_name
from cbviz.experiments.table2 import search_fit

TIMES = ["search_s", "refit_s"]
TINY = {"datasets": ("ionosphere", "breast_cancer"), "algorithms": ("cbboost", "adaboost"),
        "splits": 2, "thresholds": 3, "draws": 2, "folds": 2, "max_iter": (2, 8)}


@pytest.fixture
def counted(monkeypatch):
    """table2 with a compute that records each unit it finishes, and can be told to raise
    at its n-th call (``fail_at``)."""
    finished, state, lock = [], {"calls": 0, "fail_at": None}, threading.Lock()
    original = EXPERIMENTS["table2"].compute

    def compute(config, unit):
        with lock:
            state["calls"] += 1
            if state["calls"] == state["fail_at"]:
                raise RuntimeError("injected failure")
        rows = original(config, unit)
        with lock:
            finished.append(json.dumps(unit, sort_keys=True))
        return rows

    monkeypatch.setitem(EXPERIMENTS, "table2",
                        dataclasses.replace(EXPERIMENTS["table2"], compute=compute))
    return finished, state


def _no_times(frame):
    return frame.drop(columns=TIMES)


def test_table2_and_fig3_units_have_the_documented_columns():
    """One quick-preset unit per algorithm on ionosphere (351 examples), one noisy fig3 unit."""
    table2 = EXPERIMENTS["table2"]
    config = table2.quick
    rows = [r for a in config.algorithms
            for r in table2.compute(config, {"dataset": "ionosphere", "split": 0, "algorithm": a})]
    frame = pd.DataFrame(rows)
    assert list(frame.columns) == list(table2.columns)
    assert frame["note"].eq("").all(), frame["note"].tolist()
    assert frame["test_error"].between(0, 1).all() and frame["train_error"].between(0, 1).all()
    assert (frame["m_train"] + frame["m_test"]).eq(351).all()
    params = [json.loads(p) for p in frame["best_params"]]
    for alg, p in zip(config.algorithms, params):
        if alg in ("cbboost", "gbcbboost", "adaboost", "cqboost"):
            assert config.max_iter[0] <= p["max_iter"] <= config.max_iter[1]
            assert frame.loc[config.algorithms.index(alg), "n_voters"] <= p["max_iter"]
        if alg in ("cqboost", "mincq"):
            assert config.mu[0] <= p["mu"] <= config.mu[1]
    fig3 = EXPERIMENTS["fig3"]
    row, = fig3.compute(fig3.quick, {"dataset": "ionosphere", "noise": 0.5, "split": 1,
                                     "algorithm": "cbboost"})
    assert list(row) == list(fig3.columns) and row["noise"] == 0.5 and row["split"] == 1


def test_an_algorithm_that_refuses_the_pool_gives_a_noted_row(monkeypatch):
    """MinCq refuses a program that would not fit in the memory available (here: a machine
    that reports 1 MiB free); the experiment notes it and goes on."""
    from cbviz.algorithms.mincq import _mincq as mincq
    monkeypatch.setattr(mincq, "available_memory", lambda: 2 ** 20)
    row = search_fit(preset("table2", thresholds=40), "digits/4 vs 9", "mincq", 0)
    assert np.isnan(row["test_error"]) and row["note"].startswith("not fitted: MinCq")
    assert "MiB" in row["note"]


def test_progress_line():
    stream = io.StringIO()
    bar = ProgressLine("demo", stream=stream, width=4)
    for done in (1, 2, 4):
        bar(done, 4)
    text = stream.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n")
    assert "demo: 2/4 units [##..]" in text and "left" in text and "4/4 units [####]" in text


def test_fig5_unit_mincq_is_below_cbboost():
    """MinCq(CB-Boost) optimizes the C-bound over the same voters: never above CB-Boost's."""
    fig5 = EXPERIMENTS["fig5"]
    config = preset("fig5", max_iter=12, every=5)
    frame = pd.DataFrame(fig5.compute(config, {"dataset": "digits/4 vs 9", "split": 0}))
    assert list(frame.columns) == list(fig5.columns)
    assert frame["iteration"].tolist() == [5, 10, 12]
    assert (frame["mincq_c_bound"] <= frame["cbboost_c_bound"] + 1e-9).all()
    assert frame[["cbboost_test_error", "mincq_test_error"]].stack().between(0, 1).all()


def test_fig1_units_reproduce_the_bench_sweeps(tmp_path):
    """The units give bench.fig1's rows (times aside) on the quick configuration."""
    results = run_experiment("fig1", out=tmp_path)
    direct = bench.fig1(bench.QUICK_FIG1)
    keys = ["sweep", "algorithm", "n_voters", "m", "T", "iterations"]
    for sweep in ("n", "m", "T"):
        assert list(results.tables[sweep].columns) == bench.FIG1_COLUMNS
        pd.testing.assert_frame_equal(results.tables[sweep][keys], direct[sweep][keys])
    summary = bench.fig1_summary(direct)
    for name in ("ratios", "claims"):
        assert list(results.tables[name].columns) == list(summary[name].columns)
    assert set(results.tables["ratios"]["algorithm"]) == {"MinCq", "CqBoost", "GB-CB-Boost",
                                                          "AdaBoost"}
    assert list(results.tables["claims"]["claim"]) == list(summary["claims"]["claim"])
    assert sorted(p.name for p in results.files) == ["T.csv", "claims.csv", "m.csv", "n.csv",
                                                     "ratios.csv", "units.csv"]


def test_resume_computes_no_unit_twice_and_gives_the_straight_table(tmp_path, counted):
    finished, state = counted
    config = preset("table2", **TINY)
    straight = run_experiment("table2", config=config, out=tmp_path / "straight")
    assert straight.complete and straight.computed == 8 and len(finished) == 8
    finished.clear()

    out = tmp_path / "resumed"
    stop = run_experiment("table2", config=config, out=out, cancel=lambda: len(finished) >= 3)
    assert (stop.cancelled, stop.done, stop.computed, stop.files) == (True, 3, 3, [])
    partial = load_results("table2", out)
    assert partial.done == 3 and len(partial.tables["units"]) == 3
    state["fail_at"] = state["calls"] + 2          # the second unit of the next run raises
    with pytest.raises(RuntimeError, match="injected"):
        run_experiment("table2", config=config, out=out)
    assert load_results("table2", out).done == 4
    final = run_experiment("table2", config=config, out=out)
    assert (final.computed, final.done, final.complete) == (4, 8, True)
    assert len(finished) == 8 and len(set(finished)) == 8      # each unit once
    pd.testing.assert_frame_equal(final.tables["table"], straight.tables["table"])
    pd.testing.assert_frame_equal(_no_times(final.tables["units"]),
                                  _no_times(straight.tables["units"]))
    again = run_experiment("table2", config=config, out=out)
    assert again.computed == 0 and len(finished) == 8
    loaded = load_results("table2", out)
    pd.testing.assert_frame_equal(loaded.tables["wide"], straight.tables["wide"])
    on_disk = pd.read_csv(out / "table2" / "table.csv", float_precision="round_trip")
    np.testing.assert_array_equal(on_disk["test_error_mean"], straight.tables["table"]
                                  ["test_error_mean"])


def test_dask_and_joblib_processes_give_the_local_table(tmp_path):
    from distributed import LocalCluster
    config = preset("table2", **TINY)
    local = run_experiment("table2", config=config, out=tmp_path / "local")
    two = run_experiment("table2", config=config, out=tmp_path / "two", n_jobs=2)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster:
        seen = []
        dask = run_experiment("table2", config=config, out=tmp_path / "dask",
                              scheduler=cluster.scheduler_address,
                              progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 8) and seen[-1] == (8, 8) and len(seen) == 9
    for other in (two, dask):
        assert other.computed == 8
        pd.testing.assert_frame_equal(other.tables["table"], local.tables["table"])
        pd.testing.assert_frame_equal(_no_times(other.tables["units"]),
                                      _no_times(local.tables["units"]))


def test_unit_names_ignore_grid_fields_only():
    table2 = EXPERIMENTS["table2"]
    unit = {"dataset": "ionosphere", "split": 0, "algorithm": "cbboost"}
    name = unit_file_name(table2, preset("table2"), unit)
    assert name == unit_file_name(table2, preset("table2", splits=7, datasets=("sonar",)), unit)
    assert name != unit_file_name(table2, preset("table2", draws=4), unit)
    assert name != unit_file_name(table2, preset("table2", quick=False), unit)


def test_fig3_differences_and_heatmap_from_known_losses():
    """Means, sample stds and the equivalence rule |diff| <= std_CB + std_Ada by hand."""
    fig3 = EXPERIMENTS["fig3"]
    config = preset("fig3", datasets=("a", "b"), noise_levels=(0.0, 0.5), splits=2)
    losses = {("a", 0.0): ([0.10, 0.12], [0.10, 0.14]), ("a", 0.5): ([0.30, 0.32], [0.20, 0.22]),
              ("b", 0.0): ([0.05, 0.05], [0.25, 0.27])}    # ("b", 0.5) not computed
    rows = [dict.fromkeys(fig3.columns) | {"dataset": d, "noise": s, "split": i,
                                           "algorithm": alg, "test_error": e}
            for (d, s), pair in losses.items()
            for alg, errs in zip(("CB-Boost", "AdaBoost"), pair) for i, e in enumerate(errs)]
    diff = fig3.assemble(config, pd.DataFrame(rows, columns=fig3.columns))["differences"]
    assert diff[["dataset", "noise"]].values.tolist() == [["a", 0.0], ["a", 0.5], ["b", 0.0]]
    np.testing.assert_allclose(diff["adaboost_std"], [np.std(p[1], ddof=1)
                                                      for p in losses.values()])
    np.testing.assert_allclose(diff["cbboost_mean"], [np.mean(p[0]) for p in losses.values()])
    np.testing.assert_allclose(diff["difference"], [0.11 - 0.12, 0.31 - 0.21, 0.05 - 0.26])
    assert diff["better"].tolist() == ["equivalent", "AdaBoost", "CB-Boost"]
    heat = fig3_heatmap(diff).data[0]
    assert [list(r) for r in heat.z] == [[1, 2], [0, None]]
    assert list(heat.text[0]) == ["-1.0", "+10.0"] and list(heat.y) == ["a", "b"]


def test_cli_runs_a_shrunk_quick_preset(tmp_path, capsys, monkeypatch):
    """--out, then the default folder: the app's, in $CBVIZ_DATA_DIR (the same one here)."""
    monkeypatch.setenv("CBVIZ_DATA_DIR", str(tmp_path))
    out = tmp_path / "experiment-results"
    code = main(["fig5", "--quick", "--out", str(out), "--set", "max_iter=6",
                 "--set", "datasets=ionosphere", "--set", "every=3"])
    assert code == 0
    curves = pd.read_csv(out / "fig5" / "curves.csv")
    assert curves["iteration"].tolist() == [3, 6]
    loaded = load_results("fig5")
    assert loaded.config.max_iter == 6 and loaded.complete
    assert "units: 1 computed, 0 loaded" in capsys.readouterr().out
    assert main(["fig5", "--quick", "--set", "max_iter=6",
                 "--set", "datasets=ionosphere", "--set", "every=3"]) == 0
    assert "units: 0 computed, 1 loaded" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["table2", "--quick", "--set", "bogus=1"])
    with pytest.raises(SystemExit):
        main(["table2", "--quick", "--set", "draws=0"])


def test_cli_prints_fig1_ratios_and_the_paper_claims(tmp_path, capsys):
    assert main(["fig1", "--quick", "--out", str(tmp_path), "--set", "T_grid=3,6"]) == 0
    out = capsys.readouterr().out
    ratios, claims = out.index("fit time / CB-Boost's vs n"), out.index(
        "Paper (Sect. 5.1) vs ours")
    assert out.index("fit time (s) vs iterations T") < ratios < claims
    assert out.count(" agrees: paper: ") + out.count(" disagrees: paper: ") == 6
    assert (tmp_path / "fig1" / "claims.csv").exists()


def test_results_go_to_the_per_user_data_folder_or_cbviz_data_dir(tmp_path, monkeypatch):
    import platformdirs
    monkeypatch.setenv("CBVIZ_DATA_DIR", str(tmp_path))
    assert results_dir() == tmp_path / "experiment-results"
    monkeypatch.delenv("CBVIZ_DATA_DIR")
    assert results_dir() == platformdirs.user_data_path("cbviz") / "experiment-results"
    assert results_dir().is_absolute()  # never the folder the app was started from
