"""The app with fitted trees (sidebar "Voters: fitted trees"): the step page, its plane, table
and bounds, links and exports, the pages that need a finite pool, and the shared problem."""
import numpy as np
import pytest
from helpers import figure_specs, values
from test_pages import GRADIENT, STEP, app, status

TREES = {"pool": "trees", "tree_depth": "2"}


def run_of(at):
    return at.session_state["run_step"]["run"]


@pytest.mark.parametrize("algorithm, params", [("adaboost", {}), ("vebboost", {}),
                                               ("cbboost", {"direction": "gradient"})])
def test_a_step_fits_a_tree_and_the_page_says_what_holds(algorithm, params):
    at = app(STEP, algorithm=algorithm, **params, **TREES)
    assert "trees of depth 2 fitted each round" in at.caption[0].value
    at.button(key="step_ten").click().run()
    assert not at.exception and not at.error
    run = run_of(at)
    assert len(run.history) >= 3 and run.H.pool.max_depth == 2
    assert "no PAC-Bayes bound or KL term: the trees were fitted to this sample" in status(at)
    assert "KL" not in at.button_group(key="step_charts").options
    specs = {s["layout"]["title"]["text"].split("<br>")[0]: s for s in figure_specs(at)}
    bounds = specs["Risk bounds and train error"]
    names = [t.get("name") for t in bounds["data"]]
    assert "empirical C-bound" in names and not any("PAC" in (n or "") for n in names)
    assert "no PAC-Bayes bound" in bounds["layout"]["title"]["text"]
    # the plane: the vote of the run's own trees, the newest tree's splits dashed
    plane = specs["Majority vote on the input plane"]
    tree = next(t for t in plane["data"] if (t.get("name") or "").startswith("new voter:"))
    rec = run.history[-1]
    assert tree["name"] == "new voter: " + rec.label.replace("<", "&lt;")   # shown literally
    x = values(tree["x"])
    assert np.isfinite(x).sum() >= 2          # at least one split drawn


def test_the_export_offers_the_charts_that_apply_to_trees():
    from cbviz.export import figure_html
    at = app(STEP, algorithm="cbboost", direction="gradient", eligible="all", **TREES)
    at.button(key="step_ten").click().run()
    options = at.selectbox(key="step_export_chart").options
    assert "Majority vote on the input plane" in options and "Risk bounds" in options
    assert "KL" not in options and "Theorem 3 curve" not in options
    from cbviz import plots
    html = figure_html(plots.bounds_figure(run_of(at).to_frame()))
    assert html.startswith("<!doctype html>") and "no PAC-Bayes bound" in html


def test_the_voters_table_names_trees_by_their_splits():
    at = app(STEP, algorithm="adaboost", **TREES)
    at.button(key="step_ten").click().run()
    group = at.button_group(key="step_charts")
    group.set_value(list(group.options)).run()
    table = at.dataframe[0].value
    run = run_of(at)
    labels = {run.H.pool.describe(k) for k in range(len(run.H.pool.trees_))}
    shown = set(table["voter"])
    assert len(table) == run.history[-1].n_voters and shown <= labels
    assert any("?" in s for s in shown)


def test_a_link_and_a_settings_file_bring_the_same_trees_back():
    from cbviz.ui import runs
    at = app(STEP, algorithm="vebboost", **TREES)
    at.button(key="step_ten").click().run()
    first = [r.label for r in run_of(at).history]
    link = {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else
            at.query_params[k] for k in at.query_params}
    assert link["pool"] == "trees" and link["tree_depth"] == "2" and link["steps"] == "10"
    fresh = app(STEP, **link)
    assert [r.label for r in run_of(fresh).history] == first
    payload = runs.export_json(at.session_state["settings"], "vebboost", {"lam": 0.5},
                               run_of(at))
    loaded, config = runs.read_json(payload.encode())
    assert loaded["pool"] == "trees" and loaded["tree_depth"] == 2


def test_the_shared_problem_keeps_no_tree_of_any_run():
    """Sessions on the same settings share one problem (a class): each run fits trees into a
    pool of its own, so one student's Steps never change another's voters."""
    from cbviz.problem import Settings
    from cbviz.ui import sidebar
    a = app(STEP, algorithm="adaboost", **TREES)
    a.button(key="step_ten").click().run()
    b = app(STEP, algorithm="vebboost", **TREES)
    b.button(key="step_once").click().run()
    settings = Settings(pool="trees", tree_depth=2)
    problem = sidebar._problem(settings.to_json(), "", settings, None)
    assert problem.pool.trees_ == []
    assert run_of(a).H.pool is not run_of(b).H.pool
    assert len(run_of(b).H.pool.trees_) == 1


@pytest.mark.parametrize("algorithm", ["mincq", "cqboost", "quadboost", "klboost", "cbboost"])
def test_algorithms_that_need_a_finite_pool_say_so(algorithm):
    at = app(STEP, algorithm=algorithm, **TREES)
    assert at.error and "finite pool" in at.error[0].value


def test_the_gradient_page_asks_for_a_finite_pool():
    at = app(GRADIENT, **TREES)
    assert "needs" not in at.info[0].value and "finite pool" in at.info[0].value
    assert not at.button


def test_a_lesson_on_trees_says_why_and_brings_its_own_voters_back():
    """The lessons run CB-Boost's exhaustive rule on the lesson's stumps: trees chosen in the
    sidebar during a lesson get a message and the way back, never a traceback."""
    at = app("app_pages/lessons.py")
    at.button(key="lesson_start_1").click().run()
    at.radio(key="s_pool").set_value("trees").run()
    assert not at.exception
    assert "Lesson 1 cannot run on these voters" in at.error[0].value
    at.button(key="lesson_preset").click().run()
    assert not at.exception and not at.error
    assert at.radio(key="s_pool").value == "stumps"
    assert at.button(key="lesson_lock_1_1")


def test_the_explorer_takes_no_kl_from_a_run_on_trees():
    from streamlit.testing.v1 import AppTest

    from cbviz.algorithms import AdaBoost
    from cbviz.app import FOLDER
    from cbviz.problem import Settings, build_problem
    problem = build_problem(Settings(pool="trees", tree_depth=2))
    run = AdaBoost(max_iter=5).start(problem.H_train, problem.split.y_train)
    run.step()
    at = AppTest.from_file(str(FOLDER / "app_pages/cbound_explorer.py"), default_timeout=120)
    at.session_state["run_step"] = {"run": run, "config": ("adaboost", (), 5, 0.05)}
    at.run()
    assert not at.exception
    button = at.button(key="cbx_use_run")
    assert button.disabled and "no KL term" in button.help
