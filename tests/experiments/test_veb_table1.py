"""The VEB-Boost paper's Table 1 preset (cbviz.experiments.veb_table1): the quick preset, the
paper's values beside ours, resuming, and every number traced back to a run of its own."""
import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from cbviz.algorithms import AdaBoost, ParameterError, VEBBoost
from cbviz.app import PAGES
from cbviz.experiments import EXPERIMENTS, load_results, preset, run_experiment
from cbviz.experiments.__main__ import main
from cbviz.experiments.veb_table1 import load_table1_data, sizes
from cbviz.voters.trees import TreePool

# Table 1 as printed (Shivaswamy & Jebara, Sect. 3): stumps AdaBoost, stumps VEB-Boost,
# CART AdaBoost, CART VEB-Boost, test error in %
PRINTED = {"ringnorm": ["15.05 ± 3.10", "12.65 ± 2.80", "7.65 ± 2.40", "7.35 ± 2.40"],
           "splice": ["10.57 ± 1.10", "10.71 ± 0.90", "5.10 ± 0.80", "4.43 ± 0.60"],
           "twonorm": ["4.30 ± 0.40", "4.08 ± 0.40", "4.08 ± 0.50", "3.86 ± 0.40"]}
COLUMNS = ["Decision stumps · AdaBoost", "Decision stumps · VEB-Boost",
           "CART (depth 3) · AdaBoost", "CART (depth 3) · VEB-Boost"]
LEARNER_KEYS = {"Decision stumps": "stumps", "CART (depth 3)": "cart"}
SMALL = {"datasets": ("twonorm",), "splits": 2, "max_iter": 12, "lams": (0.0, 1.0)}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("veb")
    return out, run_experiment("veb_table1", out=out / "experiment-results")


def _no_seconds(frame):
    return frame.drop(columns="seconds").reset_index(drop=True)


def test_the_quick_preset_runs_every_unit(quick):
    _, results = quick
    config = EXPERIMENTS["veb_table1"].quick
    assert results.complete and results.total == 3 * config.splits * 2 * 2
    units = results.tables["units"]
    assert list(units.columns) == list(EXPERIMENTS["veb_table1"].columns)
    assert units[["test_error", "validation_error", "train_error"]].stack().between(0, 1).all()
    assert units["T"].between(1, config.max_iter).all() and (units["T"] <= units["rounds"]).all()
    veb = units["algorithm"] == "VEB-Boost"
    assert units.loc[veb, "lam"].isin(config.lams).all() and units.loc[~veb, "lam"].isna().all()
    assert (units[["m_train", "m_validation", "m_test"]] == [150, 150, 600]).all().all()
    assert sorted(p.name for p in results.files) == ["protocol.csv", "table.csv", "units.csv",
                                                     "wide.csv"]


def test_the_table_puts_the_papers_values_beside_ours(quick):
    _, results = quick
    wide, table = results.tables["wide"], results.tables["table"]
    assert list(wide.columns) == ["dataset", "source", *COLUMNS]
    assert wide[["dataset", "source"]].values.tolist() == [
        [d, s] for d in ("ringnorm", "splice", "twonorm") for s in ("paper", "ours")]
    for dataset, cells in PRINTED.items():
        paper = wide[(wide["dataset"] == dataset) & (wide["source"] == "paper")]
        assert paper[COLUMNS].values.tolist() == [cells]
    # ours: the mean and the std (ddof 1) in % of the units' test errors
    units = results.tables["units"]
    for row in table.itertuples():
        errors = 100 * units[(units["dataset"] == row.dataset) & (units["algorithm"] ==
                             row.algorithm) & (units["learner"] == LEARNER_KEYS[row.learner])
                             ]["test_error"]
        assert row.splits == len(errors) == 2
        assert row.test_error_mean == pytest.approx(errors.mean())
        assert row.test_error_std == pytest.approx(errors.std(ddof=1))
        ours = wide[(wide["dataset"] == row.dataset) & (wide["source"] == "ours")]
        assert ours[f"{row.learner} · {row.algorithm}"].item() == \
            f"{errors.mean():.2f} ± {errors.std(ddof=1):.2f}"
    protocol = results.tables["protocol"]
    assert protocol["aspect"].tolist() == ["data sets", "splits", "weak learners", "rounds T",
                                           "VEB-Boost's lambda", "reported"]
    assert "ringnorm 150/150/600" in protocol.loc[1, "ours"]


@pytest.mark.parametrize("pick", [("twonorm", 1, "cart", "VEB-Boost"),
                                  ("splice", 0, "stumps", "AdaBoost"),
                                  ("ringnorm", 0, "cart", "AdaBoost")])
def test_a_cell_is_the_test_error_of_a_direct_run(quick, pick):
    """Rebuild the split from the documented protocol, run the chosen (lambda, T) directly,
    and check the choice: no lambda of the grid and no round has a lower validation error,
    and no earlier round of the chosen lambda ties it."""
    _, results = quick
    config = results.config
    units = results.tables["units"]
    dataset, split, learner, algorithm = pick
    row = units[(units["dataset"] == dataset) & (units["split"] == split) &
                (units["learner"] == learner) & (units["algorithm"] == algorithm)].iloc[0]
    X, y = load_table1_data(dataset)
    order = np.random.default_rng(config.seed + split).permutation(y.size)
    tr, va, te = order[:150], order[150:300], order[300:900]
    depth = 1 if learner == "stumps" else config.max_depth

    def direct(lam, T):
        pool = TreePool(depth, max_trees=config.max_iter, random_state=config.seed + split)
        pool.fit(X[tr])
        algo = AdaBoost(max_iter=T) if np.isnan(lam) else VEBBoost(lam=lam, max_iter=T)
        run = algo.start(pool.operator(X[tr]), y[tr], H_test=pool.operator(X[te]),
                         y_test=y[te]).run()
        votes = run.H.pool.transform(X[va])   # the trees this run fitted
        val = [np.mean(np.where(votes[:, r.support] @ r.weights > 0, 1, -1) != y[va])
               for r in run.history]
        return run, np.array(val)

    run, val = direct(row["lam"], int(row["T"]))
    assert run.history[-1].test_error == row["test_error"]
    assert run.history[-1].train_error == row["train_error"]
    assert val[-1] == pytest.approx(row["validation_error"], abs=1e-12)
    assert (val[:-1] > val[-1]).all()     # fewest rounds among ties
    lams = config.lams if algorithm == "VEB-Boost" else (np.nan,)
    for lam in lams:
        assert direct(lam, config.max_iter)[1].min() >= row["validation_error"] - 1e-12


def test_units_resume_and_give_the_straight_table(tmp_path):
    config = preset("veb_table1", **SMALL)
    straight = run_experiment("veb_table1", config=config, out=tmp_path / "straight")
    assert straight.complete and straight.computed == 8
    out = tmp_path / "resumed"
    seen = []
    stopped = run_experiment("veb_table1", config=config, out=out,
                             progress=lambda done, total: seen.append(done),
                             cancel=lambda: len(seen) > 3)
    assert stopped.cancelled and stopped.done == 3 and stopped.files == []
    assert load_results("veb_table1", out).done == 3
    final = run_experiment("veb_table1", config=config, out=out)
    assert (final.computed, final.done, final.complete) == (5, 8, True)
    pd.testing.assert_frame_equal(final.tables["wide"], straight.tables["wide"])
    pd.testing.assert_frame_equal(final.tables["table"], straight.tables["table"])
    pd.testing.assert_frame_equal(_no_seconds(final.tables["units"]),
                                  _no_seconds(straight.tables["units"]))
    assert run_experiment("veb_table1", config=config, out=out).computed == 0
    # more splits reuse the saved ones; another T range does not
    grown = run_experiment("veb_table1", config=preset("veb_table1", **{**SMALL, "splits": 3}),
                           out=out)
    assert grown.computed == 4 and grown.done == 12
    other = run_experiment("veb_table1", config=preset("veb_table1", **{**SMALL, "max_iter": 8}),
                           out=out, cancel=lambda: True)
    assert other.done == 0


def test_splice_is_the_benchmarks_binary_task():
    """3175 rows (none with an ambiguous nucleotide), N (+1) against EI and IE (-1), one
    feature per position coded A, C, G, T = 1..4: the one-hot columns decoded."""
    X, y = load_table1_data("splice")
    onehot, y1 = load_table1_data("splice", "onehot")
    assert X.shape == (3175, 60) and onehot.shape == (3175, 240)
    assert np.array_equal(y, y1) and (y == 1).sum() == 1648 and (y == -1).sum() == 1527
    assert set(np.unique(X)) == {1.0, 2.0, 3.0, 4.0}
    assert np.array_equal(onehot.reshape(3175, 60, 4) @ np.arange(1.0, 5.0), X)
    assert not X.flags.writeable
    config = preset("veb_table1", quick=False)
    assert [sizes(config, d) for d in config.datasets] == [(400, 400, 6600), (1000, 1000, 1175),
                                                           (400, 400, 6600)]


@pytest.mark.parametrize("change", [{"datasets": ("image",)}, {"learners": ("forest",)},
                                    {"max_depth": 1}, {"lams": (0.5, 1.5)}, {"lams": ()},
                                    {"splits": 0}, {"splice_code": "binary"}])
def test_bad_configurations_are_refused(change):
    with pytest.raises(ParameterError):
        preset("veb_table1", **change)


def test_sizes_beyond_the_data_are_refused():
    with pytest.raises(ParameterError, match="splice has 3175 rows"):
        sizes(preset("veb_table1", quick=False, m_train=2000), "splice")


def test_cli_prints_the_table_beside_the_papers(tmp_path, capsys):
    assert main(["veb_table1", "--quick", "--out", str(tmp_path), "--set", "splits=1",
                 "--set", "datasets=ringnorm", "--set", "max_iter=6",
                 "--set", "lams=0.5"]) == 0
    out = capsys.readouterr().out
    assert out.index("Table 1, test error in %") < out.index("protocol") < out.index("table\n")
    assert "ringnorm  paper" in out and "15.05 ± 3.10" in out and "0.5 (1)" in out
    assert (tmp_path / "veb_table1" / "wide.csv").exists()


def test_the_page_runs_the_quick_preset_and_shows_its_table(quick, tmp_path, monkeypatch):
    """Run from the page into an empty folder: the same table as the runner's; a reload
    shows it again from the saved units."""
    _, results = quick
    monkeypatch.setenv("CBVIZ_DATA_DIR", str(tmp_path))
    page = str(PAGES / "paper_experiments.py")
    at = AppTest.from_file(page, default_timeout=300)
    at.run()
    at.selectbox(key="exp_name").set_value("veb_table1").run()
    assert any("VEB-Boost paper's Table 1" in c.value for c in at.caption)
    assert "No unit of this experiment is saved yet" in at.info[0].value
    at.button(key="exp_run").click().run()
    assert not at.exception
    assert (tmp_path / "experiment-results" / "veb_table1" / "units").is_dir()
    for shown in (at, AppTest.from_file(page, default_timeout=120)):
        if shown is not at:   # a reload
            shown.session_state["exp_store"] = {"name": "veb_table1", "quick": True}
            shown.run()
            assert not shown.exception and not shown.info
            assert shown.button(key="exp_run").label == "All saved"
        assert any("Table 1: test error in %" in h.value for h in shown.subheader)
        frames = [d.value for d in shown.dataframe]
        pd.testing.assert_frame_equal(frames[0].reset_index(drop=True), results.tables["wide"])
        assert frames[0].iloc[0, 2:].tolist() == PRINTED["ringnorm"]
        assert frames[1]["aspect"].tolist() == results.tables["protocol"]["aspect"].tolist()
