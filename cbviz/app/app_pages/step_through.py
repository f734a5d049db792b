"""Step through an algorithm: one iteration at a time, every quantity of the papers on screen."""
import functools
import time

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from cbviz import bounds, plots
from cbviz.algorithms.base import ParameterError
from cbviz.algorithms.registry import ALGORITHMS
from cbviz.export import table_csv
from cbviz.plots.style import fixed
from cbviz.ui import address, hide, runs, state, tasks
from cbviz.ui import step_beside as beside
from cbviz.ui import step_texts as texts
from cbviz.ui.controls import number_field, param_widget, shortcuts_on, stored_params
from cbviz.ui.figures import export_charts
from cbviz.ui.live_chart import content_key, live_chart
from cbviz.ui.live_status import status_line
from cbviz.ui.messages import for_app
from cbviz.ui.page import document_title, lazy_expander
from cbviz.ui.sidebar import apply_settings, require_problem
from cbviz.markdown import md

STORE = runs.VIEW_STORE
settings, problem = require_problem()
# what the plane's figure is drawn from, besides the weights (a key of figures shared by the
# sessions of one process: the students of a class link step through the same runs)
PROBLEM = content_key(problem.pool, problem.split.X_train, problem.split.y_train,
                      problem.split.X_test, problem.split.y_test, problem.split.feature_names)
page = state.store(STORE, {"algorithm": "cbboost", "max_iter": 100, "speed": 0.5,
                           # each chart costs time per step; the plane is drawn for 2-D data
                           "charts": ["Risk bounds"] if problem.split.X_train.shape[1] == 2
                           else ["Risk bounds", "0-1 error"]})
if not st.session_state.get("step_link_loaded"):  # a shared link opens on the same picture
    st.session_state["step_link_loaded"] = True
    config, ignored = runs.read_link(st.session_state.get("link", {}))
    if ignored:
        st.warning("Ignored from the link (the other settings apply): " + md("; ".join(ignored)),
                   icon=":material/link_off:")
    page.update({k: config[k] for k in ("algorithm", "max_iter", "speed") if k in config})
    state.store("hp_store").update({f"{config['algorithm']}.{k}": v
                                    for k, v in config["params"].items()})
    if config.get("steps"):
        st.session_state["step_replay"] = config["steps"]
        st.session_state["step_view_wanted"] = config.get("view")
pending = st.session_state.pop("step_pending_config", None)
if pending is not None:  # from a reloaded JSON: set before the widgets are drawn
    page.update(algorithm=pending["algorithm"], max_iter=max(1, pending["max_iter"]))
    state.store("hp_store").update({f"{pending['algorithm']}.{k}": v
                                    for k, v in pending["params"].items()})

# ---- algorithm and hyper-parameters ---------------------------------------------------------
spec = ALGORITHMS[page["algorithm"]]  # the selector below writes here before a rerun
st.title(f"Step through {spec.name}")
document_title(f"Step through {spec.name}")
st.caption(f"{md(problem.dataset.description)} · {problem.split.X_train.shape[0]} train / "
           f"{problem.split.X_test.shape[0]} test examples · {problem.voters_text}")
stopped = tasks.stopped_notice("step")
if stopped in beside.TOGGLES:  # its chart stays off until asked (it would restart at once)
    st.session_state[beside.TOGGLES[stopped]] = False
if hide.hidden("algorithm"):  # a class link chose them: the stored values, no controls
    algorithm, max_iter, speed = page["algorithm"], page["max_iter"], page["speed"]
    max_iter, speed = (max_iter, speed) if spec.iterative else (1, None)
    params = stored_params(spec, algorithm)
else:
    c_algo, c_iter, c_speed = st.columns([2, 1, 2])
    algorithm = c_algo.selectbox("Algorithm", list(ALGORITHMS),
                                 format_func=lambda k: ALGORITHMS[k].name,
                                 **state.bind(STORE, "algorithm", "step_algorithm"))
    if spec.iterative:
        max_iter = number_field(c_iter, "Max iterations", 1, 5000, STORE, "max_iter",
                                "step_max_iter", notice=st)
        speed = c_speed.select_slider("Play speed (seconds per step)", runs.SPEEDS,
                                      **state.bind(STORE, "speed", "step_speed"))
    else:
        max_iter, speed = 1, None
st.markdown(f"**{spec.name}** ({spec.paper}) {spec.description}. It minimizes: "
            f"*{spec.objective}*.")
if not hide.hidden("algorithm"):
    params = {}
    cols = st.columns(min(4, len(spec.params))) if spec.params else []
    for i, p in enumerate(spec.params):
        with cols[i % len(cols)]:
            if p.active(params):
                params[p.name] = param_widget(p, algorithm)
try:
    run = runs.held_run(problem, settings, algorithm, params, max_iter)
except ParameterError as exc:
    st.error(f"**{spec.name} cannot start with these settings.** {md(exc)}",
             icon=":material/error:")
    st.stop()
note = st.session_state.pop("step_replay_note", None)
if note:
    st.warning(md(note), icon=":material/history:")
wanted = st.session_state.pop("step_view_wanted", None)
if wanted:
    runs.show_iteration(min(wanted, max(1, len(run.history))))


def controls():
    """Step, Step ×10, Run to end, Play/Pause, Reset (with keyboard shortcuts, a switch turns
    them off)."""
    playing = st.session_state.get("step_playing", False)
    row = st.container(horizontal=True)   # one block: five columns cost a Step five more messages
    b = [row] * 5
    s, t, p = ("s", "t", "p") if shortcuts else (None, None, None)
    ask = {"on_click": tasks.request, "args": ("step", "advance"), "width": "stretch"}
    b[0].button("Solve" if not spec.iterative else "Step", kwargs={"n": 1},
                disabled=run.done, key="step_once", shortcut=s, **ask)
    b[1].button("Step ×10", kwargs={"n": 10}, disabled=run.done or not spec.iterative,
                key="step_ten", shortcut=t, **ask)
    b[2].button("To the end", kwargs={"n": run.max_iter},
                disabled=run.done or not spec.iterative, key="step_run_end",
                help="run until it stops", **ask)
    b[3].button("Pause" if playing else "Play",
                icon=":material/pause:" if playing else ":material/play_arrow:",
                disabled=(run.done or not spec.iterative) and not playing, key="step_play",
                width="stretch", shortcut=p, on_click=toggle_play)
    # the run is dropped before the redraw, which starts a new one (panel): only this part
    # redraws, as for a Step (a class that finishes together resets together)
    b[4].button("Reset", key="step_reset", width="stretch", on_click=runs.reset)


def advance(in_fragment):
    """The steps a button asked for.  In the fragment, only those that should take under half
    a second; longer ones in a whole-page run, with a progress bar and a Cancel (a click in a
    fragment cannot stop a run: cbviz.ui.tasks)."""
    asked = tasks.take("step", "advance")
    if asked is None or run.done:
        return
    n = min(asked["n"], run.max_iter - len(run.history))
    if in_fragment:
        if runs.should_take_long(run, n):
            tasks.request("step", "advance", **asked)
            st.rerun()
        runs.step(n, run)
        return
    what = (f"Solving {spec.name}'s quadratic program" if not spec.iterative else
            f"{n} iteration{'s' * (n > 1)} of {spec.name}")
    with tasks.running("step", what, name="advance"):
        runs.step(n, run)

def toggle_play():
    """Play / Pause, before anything else runs: a Pause takes effect before the next step."""
    st.session_state["step_playing"] = not st.session_state.get("step_playing", False)
    st.session_state.pop("step_play_due", None)


def panel():
    """Controls and everything that depends on the run's progress: a Step, Play and the
    iteration slider redraw this part only.

    While playing, each redraw takes one step, then waits what is left of ``speed`` and
    redraws itself: the next step never starts before this one is on screen, so Pause (a
    click, handled before the next redraw) stops at the next step.
    """
    global run  # after a Reset, the new run: every part of the page reads this one
    run = runs.held_run(problem, settings, algorithm, params, max_iter)
    playing = st.session_state.get("step_playing", False) and not run.done
    st.session_state["step_playing"] = playing
    advance(in_fragment=True)
    controls()
    if playing:
        runs.step(1, run)
    view = show()
    if problem.split.X_train.shape[1] != 2 and view:  # before a step, show() draws the data
        lazy_expander("The data", "step_data", data_overview)
    # after a Reset, view is None: link_values leaves it out, so the link loses it
    address.write("page", runs.link_values(algorithm, params, max_iter, speed, run, view))
    if playing:  # the next step is due one period after this one was (the clock, not the draw)
        now = time.monotonic()
        due = st.session_state.get("step_play_due", now)
        due = now if due < now - speed else due  # fell behind (slow redraws): restart the clock
        st.session_state["step_play_due"] = due + speed
        # at least a fifth of a second: the browser draws this step before the next one comes
        time.sleep(max(0.2, due + speed - now))
        try:
            st.rerun(scope="fragment")
        except StreamlitAPIException:  # this redraw is part of a whole-page run
            st.rerun()


def vote_state(run, t):
    """Weights, training margins and the record of iteration ``t``."""
    w = run.weights_at(t)
    F = run.F if t == len(run.history) else run.H.matvec(w)  # the latest vote is kept by the run
    M = bounds.margins(F, run.y, w.sum())
    return w, M, run.history[t - 1]


def show():
    """The run at the iteration chosen on the slider; returns that iteration (None: no step)."""
    if not run.history:
        if run.done:
            st.warning(f"{spec.name} stopped before choosing a voter: "
                       f"{for_app(run.stop_reason)}.",
                       icon=":material/warning:")
        else:
            first = ("Press **Solve** to solve the quadratic program" if not spec.iterative
                     else "Press **Step** to take the first iteration")
            st.info(f"{first}.", icon=":material/footprint:")
        data_overview()
        return None
    n = len(run.history)
    if n > 1:
        page["view"] = min(page.get("view", n), n)
        t = st.slider("Show iteration", 1, n, **state.bind(STORE, "view", "step_view"),
                      help="every plot below shows the vote as it was at this iteration")
    else:
        t = 1
    w, M, rec = vote_state(run, t)
    status = f" of {n}: C-bound {fixed(rec.c_bound, 4)}, train error {fixed(rec.train_error, 4)}"
    if rec.test_error is not None:
        status += f", test error {fixed(rec.test_error, 4)}"
    status += (f"; {bounds.tightest_phrase(rec)} (δ = {settings.delta:g}); KL {fixed(rec.kl)}"
               if problem.fixed else "; no PAC-Bayes bound or KL term: the trees were fitted to "
               "this sample, and the bounds need voters fixed before it")
    status_line((f"Iteration {t}",), status)  # read out at each Step
    if run.done:  # a run cut short of its optimum or its paper's rule: a warning, not a success
        solved = (run.history[-1].extra.get("solver_status", "optimal") == "optimal"
                  and not run.capped)
        (st.success if solved else st.warning)(
            f"Stopped after {n} iteration{'s' * (n > 1)}: {for_app(run.stop_reason)}.",
            icon=":material/flag:" if solved else ":material/warning:")
    frame = functools.cache(run.to_frame)   # the records as a table, made if a chart needs it
    if problem.split.X_train.shape[1] == 2:
        # a run's trees follow from the problem, the algorithm and its parameters
        trees = () if problem.fixed else (algorithm, tuple(sorted(params.items())))
        live_chart(lambda: decision_regions(w, rec, spec=True), key="step_fig_regions",
                   shared=content_key("regions", PROBLEM, trees, w, rec.index, rec.label))
        st.caption("Value of the normalized vote Σ Qₖ hₖ(x) over the plane (red: vote for +1, "
                   "blue: vote for −1) with the training and test points; the dashed line"
                   + (" is the voter" if problem.fixed else "s are the splits of the tree")
                   + " chosen at this iteration.")
    charts = available_charts(frame, t, w, M)
    if hide.hidden("advanced"):
        chosen = page["charts"]
    else:
        chosen = st.pills("Charts", list(charts), selection_mode="multi",
                          **state.bind(STORE, "charts", "step_charts"),
                          help="only the charts chosen here are drawn (each costs time per step)")
    chosen = [c for c in charts if c in (chosen or [])]
    if "Risk bounds" in chosen:
        drawn_from = np.array([[getattr(r, c) for c in plots.BOUNDS_COLUMNS]
                               for r in run.history], dtype=float)
        live_chart(lambda: plots.bounds_figure(frame(), current=t, spec=True),
                   key="step_fig_bounds", shared=content_key("bounds", drawn_from, t))
        st.caption(texts.prior_note(problem) if problem.fixed else texts.TREES_NOTE)
        if problem.fixed:
            what_is_this("step_why_bounds",
                         lambda: texts.explain_bounds(frame(), t, settings.delta))
    for name in chosen:  # one per row: side by side they would be 270 px wide at 1024 px
        build, text = charts[name]
        if build is not None:
            live_chart(build(), key=f"step_fig_{name}")
            what_is_this(f"step_why_{name}", text)
    if algorithm == "cbboost" and problem.fixed and not hide.hidden("advanced"):
        beside.other_rule(run, params, start_twin, frame, t)
        beside.mincq_beside(run, frame, t)
    if "Voters table" in chosen:
        st.markdown(f"**Voters in the vote** ({rec.n_voters})")
        st.dataframe(plots.weights_table(rec, problem.pool_of(run).describe, run.history[:t]),
                     hide_index=True, width="stretch", height=min(400, 38 + 35 * rec.n_voters))
    return t


def what_is_this(key, text):
    """A "What is this?" expander under a chart; its text (or the function that writes it)
    is drawn only while it is open, so a Step does not send it to those who never open it."""
    lazy_expander("What is this?", key, lambda: st.markdown(text() if callable(text) else text))


def available_charts(frame, t, w, M):
    """Chart name -> (figure builder, explanation), for the algorithm on the page; ``frame()``
    gives the run's records as a table."""
    rec = run.history[t - 1]
    charts = {
        "Risk bounds": (None, None),
        "0-1 error": (lambda: plots.error_figure(frame(), current=t, spec=True),
                      "0-1 error of the majority vote sign(Σ aₖ hₖ(x)) on the training and the "
                      "held-out test examples."),
        "Objective": (lambda: plots.series_figure(
            frame(), {"objective": spec.objective}, current=t, uirevision="objective",
            title=f"What {spec.name} minimizes<br><sup>{spec.objective}</sup>",
            y_title=spec.objective),
            f"The quantity {spec.name} minimizes, after each iteration ({spec.paper})."),
        "Gibbs risk & disagreement": (lambda: plots.series_figure(
            frame(), {"gibbs_risk": "Gibbs risk r", "disagreement": "disagreement d"}, current=t,
            uirevision="risks", y_title="fraction of examples",
            title="Gibbs risk and disagreement<br><sup>C = 1 − (1 − 2r)² / (1 − 2d) for ±1 "
                  "voters</sup>"),
            "r: the error of one voter drawn from Q, averaged over the examples; d: how often two "
            "voters drawn from Q disagree. The C-bound is small when the voters are accurate "
            "(small r) and still disagree (large d). For real-valued voters (RBF) they are "
            "defined from the margins: r = (1 − μ₁)/2 and d = (1 − μ₂)/2."),
        "KL": (lambda: plots.kl_figure(frame(), problem.n_voters, current=t),
               "KL(Q‖P) = ln n + Σ Qₖ ln Qₖ to the uniform prior over the n voters. It never "
               "exceeds ln n (all the weight on one voter) and enters every PAC-Bayes bound."),
        "Margins": (lambda: plots.margin_figure(M, rec.mu1, rec.mu2),
                    "Margins y Σ Qₖ hₖ(x) of the training examples. The C-bound is small when their "
                    "mean μ₁ is large compared with √μ₂: it is Cantelli's inequality applied to "
                    "this distribution."),
    }
    if np.isfinite(np.array([r.alpha for r in run.history], dtype=float)).any():
        charts["Weights α"] = (lambda: plots.alpha_figure(frame(), current=t),
                               "The weight given at each iteration to the voter chosen at that "
                               "iteration (unnormalized).")
    for title, y_title, columns, text in spec.extra_plots:
        charts[title.partition("<br>")[0]] = (
            lambda title=title, y_title=y_title, columns=columns: plots.series_figure(
                frame(), columns, current=t, title=title, y_title=y_title,
                uirevision=title[:20]), text)
    if not problem.fixed:   # no prior over fitted trees
        del charts["KL"]
    if algorithm == "cbboost" and t >= 2 and problem.fixed:
        charts["Theorem 3 curve"] = (
            lambda: plots.direction_curve_figure(run.direction_curve(t)),
            "The C-bound of F + α h as a function of the new voter's weight α, all other weights "
            "fixed. Theorem 3 gives its minimum in closed form; Property 1 the decrease.")
    charts["Voters table"] = (None, None)
    return charts


def data_overview():
    """What the data are before any vote: the plane (2-D) or sizes, balance and a projection."""
    s = problem.split
    if s.X_train.shape[1] == 2:
        w = np.zeros(problem.n_voters)
        live_chart(lambda: decision_regions(w, None, spec=True), key="step_fig_regions",
                   shared=content_key("regions", PROBLEM, w))
        st.caption("The training (filled) and test (open) points; the vote colors the plane "
                   "from the first step on.")
        return
    c = st.columns(4)
    c[0].metric("Training examples m", s.X_train.shape[0])
    c[1].metric("Test examples", s.X_test.shape[0])
    c[2].metric("Features d", s.X_train.shape[1])
    c[3].metric("Class +1 (train)", f"{np.mean(s.y_train > 0):.0%}")
    live_chart(plots.projection_figure(s.X_train, s.y_train, s.X_test, s.y_test),
               key="step_fig_projection")


def decision_regions(w, rec, spec=False):
    """The vote of weights ``w`` on the plane, the chosen voter of record ``rec`` dashed
    (``spec``: as a dict, for a live chart)."""
    pool = problem.pool_of(run)
    xe, ye, Z = problem.vote_grid(w, n=80, pool=pool)
    stump = None
    if rec is not None and rec.index is not None and hasattr(pool, "segments"):
        stump = {"segments": pool.segments(rec.index, ((xe[0], xe[-1]), (ye[0], ye[-1]))),
                 "label": rec.label}
    elif hasattr(pool, "threshold_") and rec is not None and rec.index is not None:
        stump = {"feature": int(pool.feature_[rec.index]),
                 "threshold": float(pool.threshold_[rec.index]), "label": rec.label}
    s = problem.split
    return plots.decision_figure(
        xe, ye, Z, s.X_train, s.y_train, s.X_test, s.y_test, stump=stump,
        feature_names=s.feature_names, height=560, show_scale=False,
        subtitle=None if rec is not None else "no voter yet: the vote is 0 everywhere",
        spec=spec)


def chart_builders():
    """Every chart of the page, at the run's latest iteration when a button is clicked."""

    def chart(name):
        if not run.history:
            return plots.placeholder_figure(name, "no iteration yet: take a step first")
        t = len(run.history)
        w = run.weights_at(t)
        if name == "Majority vote on the input plane":
            return decision_regions(w, run.history[-1])
        frame = functools.cache(run.to_frame)
        if name == "Risk bounds":
            return plots.bounds_figure(frame(), current=t)
        build = available_charts(frame, t, w, bounds.margins(run.F, run.y, w.sum())).get(name)
        if build is None or build[0] is None:
            return plots.placeholder_figure(name, "not drawn at this iteration")
        figure = build[0]()
        return go.Figure(figure) if isinstance(figure, dict) else figure  # a live chart's dict

    names = ["Risk bounds", "0-1 error", "Objective", "Gibbs risk & disagreement", "KL",
             "Margins", "Weights α"] + [title.partition("<br>")[0]
                                        for title, *_ in spec.extra_plots]
    if algorithm == "cbboost" and problem.fixed:
        names.append("Theorem 3 curve")
    if not problem.fixed:   # no prior over fitted trees: no KL chart
        names.remove("KL")
    if problem.split.X_train.shape[1] == 2:
        names.insert(0, "Majority vote on the input plane")
    return {n: (lambda n=n: chart(n)) for n in names}


def export():
    """Records as CSV, settings as JSON, and a JSON to reload (the run replays to its length).

    The files are made when a button is clicked (the run may have moved since the page was
    drawn), so a Step never pays for them.
    """
    st.subheader("Export")
    e1, e2, e3 = st.columns(3)
    e1.download_button("Records (CSV)", lambda: table_csv(run.to_frame()),
                       f"{algorithm}_records.csv", "text/csv", key="step_dl_csv",
                       on_click="ignore")
    e2.download_button("Settings (JSON)",
                       lambda: runs.export_json(settings, algorithm, params, run),
                       f"{algorithm}_settings.json", "application/json", key="step_dl_json",
                       on_click="ignore")
    upload = e3.file_uploader("Reload settings (JSON)", type=["json"], key="step_up_json")
    export_charts(chart_builders(), "step_export")
    if upload is not None and st.session_state.get("step_loaded_file") != upload.file_id:
        st.session_state["step_loaded_file"] = upload.file_id
        try:
            loaded, config = runs.read_json(upload.getvalue())
        except ValueError as exc:
            st.error(f"Could not load this file: {md(exc)}", icon=":material/error:")
        else:
            apply_settings(loaded)
            runs.reset()
            st.session_state["step_replay"] = config["iterations"]
            st.session_state["step_pending_config"] = config
            st.rerun()


start_twin = beside.twin_starter(problem, run.max_iter, settings.delta)
advance(in_fragment=False)
beside.extend_other_rule(run, params, start_twin)
beside.extend_mincq_beside(run)
# above the buttons, outside their fragment: a Step does not send it again
shortcuts = shortcuts_on("**S** step · **T** ten steps · **P** play / pause", "step_shortcuts")
st.fragment(panel)()
if not hide.hidden("export"):
    export()
