"""cbviz.ui.tasks in AppTest: the bar and Cancel of a long task, the notice after a stop, and
the step and compare pages' long steps (MinCq on every midpoint of a real set)."""
import numpy as np
import pandas as pd
import pytest
from helpers import figure_specs, status_lines
from streamlit.testing.v1 import AppTest

from cbviz.algorithms.mincq import mincq_on_history
from cbviz.app import PAGES


def script(after=0.0, stop_at=2):
    """A page whose task reports five times and is stopped (as a click stops a run) at
    report ``stop_at`` on its first run; later runs only show the notice."""
    import streamlit as st

    from cbviz import progress
    from cbviz.ui import tasks

    tasks.collect()
    st.session_state["notice"] = tasks.stopped_notice("demo")
    if st.session_state.setdefault("first", True):
        st.session_state["first"] = False
        with tasks.running("demo", "Counting", name="count", after=after):
            for k in range(5):
                progress.report(k / 5, f"report {k}")
                if k == stop_at:
                    st.stop()
        st.write("finished")


def start(**kwargs):
    at = AppTest.from_function(script, kwargs=kwargs, default_timeout=30)
    at.run()
    assert not at.exception
    return at


def test_a_long_task_shows_a_bar_and_a_cancel_button():
    at = start()
    bar = at.get("progress")
    assert len(bar) == 1 and bar[0].proto.text.replace("\\", "") == "Counting: report 0"
    assert at.button(key="demo_task_cancel").label == "Cancel"


def test_a_cancelled_task_says_where_it_stopped_once():
    at = start()
    at.button(key="demo_task_cancel").click().run()
    assert not at.exception
    assert [i.value for i in at.info] == [
        "**Cancelled:** Counting, at report 2. Everything finished before it is kept."]
    assert at.session_state["notice"] == "count"
    at.run()
    assert not at.info and at.session_state["notice"] is None


def test_a_task_stopped_by_another_click_says_so():
    at = start()
    at.run()
    assert [i.value for i in at.info] == [
        "**Stopped by another click:** Counting, at report 2. Everything finished before "
        "it is kept."]


def test_a_short_or_finished_task_draws_nothing_and_leaves_no_notice():
    at = start(after=60.0, stop_at=None)
    assert not at.get("progress") and not at.button
    assert [m.value for m in at.markdown] == ["finished"]
    at.run()
    assert not at.info and at.session_state["notice"] is None


def test_a_notice_belongs_to_its_page():
    at = start()
    at.session_state["task_stopped"] = None
    at.session_state["task_running"] = {"page": "elsewhere", "label": "X", "name": "x",
                                        "reached": ""}
    at.run()
    assert not at.info


@pytest.fixture(scope="module")
def mincq_pima():
    """The step page on pima with every midpoint (2,130 voters), MinCq chosen."""
    at = AppTest.from_file(str(PAGES / "step_through.py"), default_timeout=120)
    for k, v in dict(source="real", real="pima", n_thresholds="all",
                     algorithm="mincq").items():
        at.query_params[k] = v
    at.run()
    assert not at.exception
    return at


def test_step_page_solves_mincq_on_every_midpoint_in_a_whole_page_run(mincq_pima):
    at = mincq_pima
    assert "2130 voters" in at.caption[0].value
    at.button(key="step_once").click().run()
    assert not at.exception
    assert at.session_state["run_step"]["run"].history[0].extra["solver"] == "gram_free"
    assert any(m.startswith("**Iteration 1** of 1") for m in status_lines(at))
    assert "task_pending" not in at.session_state or not at.session_state["task_pending"]


def test_step_page_notice_turns_off_the_chart_whose_work_was_cancelled():
    at = AppTest.from_file(str(PAGES / "step_through.py"), default_timeout=60)
    at.run()
    at.button(key="step_ten").click().run()
    at.toggle(key="step_mincq_beside").set_value(True).run()
    assert not at.exception
    names = [t.get("name") for spec in figure_specs(at) for t in spec["data"]]
    assert "MinCq(CB-Boost): optimal C-bound on the same voters" in names
    # the table grown program by program (10, then one more step) is the one-go table
    at.button(key="step_once").click().run()
    run = at.session_state["run_step"]["run"]
    grown = pd.concat(at.session_state["step_mincq_cache"]["rows"], ignore_index=True)
    assert len(run.history) == 11 and grown["iteration"].tolist() == list(range(1, 12))
    np.testing.assert_allclose(grown["c_bound"], mincq_on_history(run)["c_bound"], rtol=1e-9)
    at.session_state["task_running"] = {"page": "step", "label": "MinCq on CB-Boost's voters",
                                        "name": "mincq_beside", "reached": "3 of 10"}
    at.session_state["task_cancelled"] = True
    at.run()
    assert not at.exception
    assert at.info[0].value.replace("\\", "").startswith(
        "**Cancelled:** MinCq on CB-Boost's voters, at 3 of 10.")
    assert at.toggle(key="step_mincq_beside").value is False


def test_compare_page_runs_every_algorithm_on_every_midpoint():
    at = AppTest.from_file(str(PAGES / "compare_algorithms.py"), default_timeout=180)
    for k, v in dict(source="real", real="pima", n_thresholds="all").items():
        at.query_params[k] = v
    at.run()
    entries = ["cbboost", "gbcbboost", "mincq", "cqboost", "quadboost", "klboost",
               "vebboost", "adaboost"]
    at.multiselect(key="cmp_entries").set_value(entries).run()
    at.number_input(key="cmp_T").set_value(5).run()
    at.button(key="cmp_run").click().run()
    assert not at.exception and not at.warning
    table = at.dataframe[0].value
    assert len(table) == len(entries) + 1            # and scikit-learn's AdaBoost
    assert table["iterations"].tolist()[:len(entries)] == [5, 5, 1, 5, 5, 5, 5, 5]
    assert at.button(key="cmp_run").disabled


def test_which_steps_leave_the_fragment():
    """A step page button runs in its fragment only when it should take under 0.5 s."""
    from types import SimpleNamespace as NS

    from cbviz.ui.runs import should_take_long

    def run(seconds, max_iter=100):
        return NS(history=[NS(seconds=s) for s in seconds], max_iter=max_iter)

    assert not should_take_long(run([]), 1)                 # a first step: no measure yet
    assert should_take_long(run([]), 10)
    assert should_take_long(run([], max_iter=1), 1)         # MinCq: one long solve
    assert not should_take_long(run([0.002] * 3), 100)     # CB-Boost: 0.2 s for 100
    assert should_take_long(run([0.25] * 8), 10)           # KL on 213k voters: 2.5 s
    assert should_take_long(run([0.01, 0.01, 0.01, 0.01, 0.01, 0.6]), 1) is False
    assert should_take_long(run([0.01, 0.01, 0.01, 0.01, 0.6, 0.6]), 3)  # mean of the last 5


def test_gradient_page_stays_where_a_cancel_left_its_runs():
    at = AppTest.from_file(str(PAGES / "gradient_vs_exhaustive.py"),
                           default_timeout=60)
    at.run()
    assert not at.exception and "gx_go_on" not in [b.key for b in at.button]
    # as if Cancel had stopped the runs to 60 iterations before their first step
    at.session_state["task_running"] = {"page": "gx", "label": "Running both rules",
                                        "name": "lockstep", "reached": "iteration 1"}
    at.session_state["task_cancelled"] = True
    at.number_input(key="gx_max_iter").set_value(60)
    at.run()
    assert not at.exception and not at.warning
    assert at.info[0].value.startswith("**Cancelled:** Running both rules")
    runs = at.session_state["run_lockstep"]["runs"]
    assert all(len(r.history) == 0 for r in runs)
    assert at.button(key="gx_go_on").label == "Go on to iteration 60"
    at.button(key="gx_go_on").click().run()
    assert not at.exception and not at.info
    assert all(r.done for r in runs) and len(runs[0].history) >= 2
    assert len(at.session_state["run_lockstep"]["table"]) == max(len(r.history) for r in runs)


def test_run_in_turn_reports_and_a_cancel_leaves_whole_iterations():
    from cbviz import progress
    from cbviz.algorithms import lockstep, lockstep_start, lockstep_table, run_in_turn
    from cbviz.problem import Settings, build_problem

    p = build_problem(Settings(source="real", real="breast_cancer"))
    args = (p.H_train, p.split.y_train, 12, p.H_test, p.split.y_test)
    runs = lockstep_start(*args)
    seen = []
    with pytest.raises(progress.Cancelled):
        with progress.reporting(lambda f, t: seen.append(f) or len(seen) > 7):
            run_in_turn(runs)
    assert [len(r.history) for r in runs] == [4, 3]   # the 8th report cancels the 8th step
    assert seen == sorted(seen) and seen[0] == 0.0
    run_in_turn(runs)
    ex, gr, table = lockstep(*args)
    pd.testing.assert_frame_equal(lockstep_table(*runs), table)


def test_step_page_warns_when_a_solver_stopped_short(mincq_pima):
    at = mincq_pima
    if not at.session_state["run_step"]["run"].history:
        at.button(key="step_once").click().run()
    assert at.success[0].value.startswith("Stopped after 1 iteration: MinCq solved")
    record = at.session_state["run_step"]["run"].history[0]
    record.extra["solver_status"] = "max products"      # as a solve out of budget
    at.run()
    assert not at.success
    assert at.warning[0].value.startswith("Stopped after 1 iteration")
