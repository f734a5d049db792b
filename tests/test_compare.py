"""The comparison: same data and pool for all, lockstep, final table; and its page."""

import numpy as np
import pytest
from helpers import figure_specs
from streamlit.testing.v1 import AppTest

from cbviz.algorithms import CBBoost
from cbviz.app import PAGES
from cbviz.compare import Comparison
from cbviz.problem import Settings, build_problem

PAGE = str(PAGES / "compare_algorithms.py")


@pytest.fixture(scope="module")
def problem():
    return build_problem(Settings())


def test_lockstep_matches_lone_runs_and_the_table(problem):
    cmp = Comparison(problem, [("cbboost", {"direction": "exhaustive"}),
                               ("cbboost", {"direction": "gradient"}), ("adaboost", {})],
                     ["adaboost"], max_iter=12)
    cmp.step(5)
    assert all(len(r.history) == 5 for r in cmp.runs.values())  # in lockstep
    assert not cmp.baselines  # fitted once the runs are done
    while not cmp.done:
        cmp.step(3)
    lone = CBBoost(max_iter=12).start(problem.H_train, problem.split.y_train,
                                      problem.H_test, problem.split.y_test).run()
    ours = cmp.runs["CB-Boost"]
    assert [r.index for r in ours.history] == [r.index for r in lone.history]
    table = cmp.final_table().set_index("algorithm")
    assert table.loc["CB-Boost", "C-bound"] == lone.history[-1].c_bound
    assert table.loc["CB-Boost", "test error"] == lone.history[-1].test_error
    assert table.loc["CB-Boost", "voters with weight"] == lone.history[-1].n_voters
    sk = table.loc["AdaBoost (decision stumps) (scikit-learn)"]
    assert sk["iterations"] == 12 and np.isnan(sk["C-bound"])
    assert set(cmp.frames()) == {"CB-Boost", "CB-Boost (gradient)", "AdaBoost",
                                 "AdaBoost (decision stumps)"}
    panel = cmp.final_panel()
    assert set(panel["quantity"]) >= {"empirical C-bound", "test error",
                                      "PAC-Bayes C-bound (Roy et al. 2016, Thm 2)"}


def test_a_refused_algorithm_is_left_out_with_its_message(problem):
    cmp = Comparison(problem, [("mincq", {"mu": 1.0, "form": "simplex"}), ("adaboost", {})],
                     max_iter=3)
    assert "lower mu" in cmp.failed["MinCq (simplex)"]
    cmp.step(3)
    assert list(cmp.frames()) == ["AdaBoost"]


def _charts(at):
    return [spec["layout"]["title"]["text"].split("<br>")[0] for spec in figure_specs(at)]


def test_page_runs_all_and_shows_curves_regions_and_table():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception and "Run all" in at.info[0].value
    at.number_input(key="cmp_T").set_value(15).run()
    at.button(key="cmp_run").click().run()
    assert not at.exception
    titles = _charts(at)
    for t in ("Empirical C-bound", "Test error", "Training error", "KL(Q‖P) to the uniform prior",
              "Test error against sparsity", "Time per iteration",
              "Bounds and errors at each algorithm's last iteration"):
        assert t in titles, titles
    for name in ("CB-Boost", "CB-Boost (gradient)", "CqBoost", "AdaBoost"):  # one per algorithm
        assert name in titles
    table = at.dataframe[0].value
    assert list(table["algorithm"])[:2] == ["CB-Boost", "CB-Boost (gradient)"]
    assert (table["iterations"] <= 15).all()
    reasons = " ".join(table["stop reason"])   # in the app's words, not the package's
    assert "the iteration limit (15) was reached" in reasons
    assert "max_iter" not in reasons and "n_estimators" not in reasons


def test_page_keeps_choices_and_warns_for_a_refused_algorithm():
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    at.multiselect(key="cmp_entries").set_value(["mincq", "adaboost"]).run()
    at.radio(key="hp_cmp_mincq_form").set_value("simplex").run()
    at.number_input(key="hp_cmp_mincq_mu").set_value(1.0).run()
    assert not at.exception
    assert "MinCq" in at.warning[0].value and "lower mu" in at.warning[0].value


def test_a_comparison_on_fitted_trees_runs_those_that_take_them():
    """AdaBoost, VEB-Boost and GB-CB-Boost each fit their own trees; the algorithms that need
    a finite pool are left out with their reason; the table says why there is no bound."""
    trees = build_problem(Settings(pool="trees", tree_depth=2))
    cmp = Comparison(trees, [("adaboost", {}), ("vebboost", {}), ("mincq", {}),
                             ("cbboost", {"direction": "gradient", "eligible": "all"})],
                     max_iter=6)
    while not cmp.done:
        cmp.step(3)
    assert set(cmp.failed) == {"MinCq"} and "finite pool" in cmp.failed["MinCq"]
    pools = [run.H.pool for run in cmp.runs.values()]
    assert len({id(p) for p in pools}) == 3 and trees.pool.trees_ == []
    table = cmp.final_table().set_index("algorithm")
    assert (table["which bound"] == "none (voters fitted to the sample)").all()
    assert table["PAC-Bayes bound (Roy et al. 2016)"].isna().all()
    assert (table["iterations"] == 6).all()
