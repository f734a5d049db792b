"""The step page's two comparisons beside a CB-Boost run, each drawn on request (a toggle):
the same run with the other eligibility rule, and MinCq on the voters it chose (CB-Boost
paper, Fig. 5).

Each is kept in the session between steps and brought up to the run's iteration: in the
page's fragment when that is short, else in a whole-page run with a progress bar and a
Cancel (:mod:`cbviz.ui.tasks`); a cancelled catch-up turns its toggle off (:data:`TOGGLES`).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from .. import plots, progress
from ..algorithms.mincq import mincq_on_history
from ..algorithms.registry import make_algorithm
from . import runs, tasks
from .live_chart import live_chart
from .messages import setting

# the long computations behind the two toggles: task name -> the toggle's key
TOGGLES = {"other_rule": "step_other_rule", "mincq_beside": "step_mincq_beside"}


def _other(params):
    return "all" if params["eligible"] == "theorem3" else "theorem3"


def other_rule(run, params, start, frame, t):
    """The run beside the same CB-Boost run with the other eligibility rule, on request.

    ``start(**params)`` starts a CB-Boost run on the page's data (see :func:`extend_other_rule`);
    ``frame()``: the run's records as a table.
    """
    other = _other(params)
    if not st.toggle(f"Compare with {setting('eligible', other)}", key=TOGGLES["other_rule"],
                     help="runs CB-Boost again with the other eligibility rule, as far as this "
                          "run, and draws both C-bounds"):
        return
    twin = _catch_up("other_rule", lambda: extend_other_rule(run, params, start, True))
    both = frame()[["iteration", "c_bound"]].merge(
        twin.to_frame()[["iteration", "c_bound"]], on="iteration", how="outer",
        suffixes=("", "_other"))
    live_chart(plots.series_figure(
        both, {"c_bound": f"{setting('eligible', params['eligible'])} (this run)",
               "c_bound_other": setting("eligible", other)}, current=t, uirevision="other_rule",
        title="Which voters may enter<br><sup>theorem3: γ(h) > 0 only (Theorem 3's hypothesis); "
              "all: every voter, by its exact decrease</sup>", y_title="empirical C-bound"),
        key="step_fig_other_rule")


def mincq_beside(run, frame, t):
    """MinCq on the voters CB-Boost chose so far (CB-Boost paper, Fig. 5), on request
    (``frame()``: the run's records as a table)."""
    if not st.toggle("Compare with MinCq on CB-Boost's voters (Fig. 5)",
                     key=TOGGLES["mincq_beside"],
                     help="at each iteration, the lowest C-bound that any non-negative weights "
                          "on the voters chosen so far reach (one quadratic program each)"):
        return
    table = _catch_up("mincq_beside", lambda: extend_mincq_beside(run, True))
    live_chart(plots.mincq_on_voters_figure(frame(), table, current=t), key="step_fig_mincq")


def _catch_up(name, extend):
    """``extend()`` (None when it would take long: then a whole-page run does it)."""
    result = extend()
    if result is None:
        tasks.request("step", name)
        st.rerun()
    return result


def extend_other_rule(run, params, start, in_fragment=False):
    """The twin run (the other eligibility rule, started by ``start(**params)``) stepped to
    the run's iteration.  In the fragment: None instead of a catch-up that may take over half
    a second; in the page's main body: only when a fragment asked for it (else None)."""
    if not in_fragment and tasks.take("step", "other_rule") is None:
        return None
    other = _other(params)
    cached = st.session_state.get("step_other_cache")
    if cached is None or cached["run"] is not run or cached["other"] != other:
        cached = {"run": run, "other": other, "twin": start(**{**params, "eligible": other})}
        st.session_state["step_other_cache"] = cached
    twin = cached["twin"]
    missing = 0 if twin.done else len(run.history) - len(twin.history)
    if missing <= 0:
        return twin
    if in_fragment:
        if runs.should_take_long(run, missing):
            return None
        runs.take_steps(twin, missing)
        return twin
    with tasks.running("step", f"CB-Boost with {setting('eligible', other)} to iteration "
                               f"{len(run.history)}", name="other_rule"):
        runs.take_steps(twin, missing)
    return twin


def extend_mincq_beside(run, in_fragment=False):
    """MinCq(CB-Boost) at every iteration of the run, one program per iteration kept between
    steps.  In the fragment: None instead of more than two programs; in the page's main
    body: only when a fragment asked for it (else None)."""
    if not in_fragment and tasks.take("step", "mincq_beside") is None:
        return None
    cached = st.session_state.get("step_mincq_cache")
    if cached is None or cached["run"] is not run:
        cached = {"run": run, "rows": []}
        st.session_state["step_mincq_cache"] = cached
    todo = range(len(cached["rows"]) + 1, len(run.history) + 1)
    if in_fragment and len(todo) > 2:
        return None

    def solve():
        # row by row: a cancel keeps the programs solved
        for k, it in enumerate(todo):
            with progress.part(k / len(todo), (k + 1) / len(todo)):
                cached["rows"].append(mincq_on_history(run, [it]))

    if todo and in_fragment:
        solve()
    elif todo:
        with tasks.running("step", f"MinCq on CB-Boost's voters at iterations {todo.start} to "
                                   f"{todo.stop - 1}", name="mincq_beside"):
            solve()
    return pd.concat(cached["rows"], ignore_index=True) if cached["rows"] else \
        mincq_on_history(run, [])


def twin_starter(problem, max_iter, delta):
    """``start(**params)``: a CB-Boost run on ``problem``'s data (for the twin rule)."""
    def start(**params):
        return problem.start(make_algorithm("cbboost", max_iter, delta, **params))
    return start
