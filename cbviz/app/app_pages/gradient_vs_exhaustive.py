"""Gradient vs exhaustive: why CB-Boost's exact rule and the gradient rule choose differently."""
import pandas as pd
import streamlit as st

from cbviz import plots
from cbviz.algorithms import lockstep_start, lockstep_table, pick_correlations, run_in_turn
from cbviz.plots.style import fixed
from cbviz.ui import state, tasks
from cbviz.ui.controls import number_field
from cbviz.ui.figures import export_charts
from cbviz.ui.notation import CB_BOOST_PAPER
from cbviz.ui.messages import for_app
from cbviz.ui.live_chart import live_chart
from cbviz.ui.sidebar import RUN_PREFIX, require_problem
from cbviz.markdown import md

STORE = "gx_store"
RUN_KEY = RUN_PREFIX + "lockstep"
settings, problem = require_problem()
st.title("Gradient vs exhaustive")
stopped = tasks.stopped_notice("gx")
st.markdown(
    f"""
In {CB_BOOST_PAPER}, both rules add to the same vote F one voter h, with the same
closed-form weight (its Theorem 3). The **gradient rule** (GB-CB-Boost, its Appendix B) takes
the voter along which the C-bound falls fastest at α = 0: the largest
γ(h)ν(F) − γ(F)τ(F,h). The **exhaustive rule** (CB-Boost) takes the largest *exact* decrease
after the optimal step (its Property 1), (γ(h)ν(F) − γ(F)τ(F,h))² / (ν(F)(ν(F)ν(h) − τ(F,h)²)).

Up to the square, the two scores differ by the factor 1 / (ν(F)ν(h) − τ(F,h)²) =
1 / (ν(F)ν(h)(1 − ρ²)), where ρ = τ(F,h)/√(ν(F)ν(h)) is the correlation of h with the vote on
the training sample. The factor **grows as h becomes correlated with the vote**: among voters
whose slope at α = 0 is fair, the exhaustive rule prefers those that point almost along F, whose
optimal step is long before the C-bound turns back up; the gradient rule sees only the slope.
The measured correlations of both picks are below.
"""
)

if not problem.fixed:
    st.info("This page compares both rules on a finite pool: the exhaustive rule scores every "
            "voter of it, and fitted trees are not a pool. Choose stumps, hyperplanes or RBF "
            "voters in the sidebar; GB-CB-Boost with trees runs on the step page.",
            icon=":material/park:")
    st.stop()
gx = state.store(STORE, {"max_iter": 40, "compare_all": False})
c1, c2 = st.columns([1, 2])
max_iter = number_field(c1, "Iterations for both rules", 2, 1000, STORE, "max_iter",
                        "gx_max_iter", notice=st)
compare_all = c2.toggle("Also run both rules with every voter eligible (not only those with "
                        "γ(h) > 0)", **state.bind(STORE, "compare_all", "gx_compare_all"),
                        help="Theorem 3 assumes γ(h) > 0; voters with γ(h) ≤ 0 can still lower "
                             "the C-bound. The dotted curves show what that restriction costs.")
key = (int(max_iter), settings.delta, bool(compare_all))
held = st.session_state.get(RUN_KEY)
if held is None or held["key"] != key:
    args = (problem.H_train, problem.split.y_train, int(max_iter), problem.H_test,
            problem.split.y_test)
    runs = lockstep_start(*args, describe=problem.pool.describe, delta=settings.delta)
    if compare_all:
        runs += lockstep_start(*args, delta=settings.delta, eligible="all")
    held = {"key": key, "runs": runs, "paused": False}
    st.session_state[RUN_KEY] = held
if stopped == "lockstep":  # stay where the Cancel left the runs until asked to go on
    held["paused"] = True
runs = held["runs"]
if not all(r.done for r in runs):
    if held["paused"]:   # what the runs reached is shown below
        st.button(f"Go on to iteration {int(max_iter)}", key="gx_go_on", type="primary",
                  on_click=held.update, kwargs={"paused": False},
                  help="runs both rules on from where they were stopped")
    else:
        with tasks.running("gx", f"Running both rules to iteration {int(max_iter)}",
                           name="lockstep"):
            run_in_turn(runs)
if "table" not in held:
    ex, gr = runs[:2]
    table = lockstep_table(ex, gr)
    if compare_all:
        table_all = lockstep_table(*runs[2:])
        for rule in ("exhaustive", "gradient"):
            table[f"{rule}_all_c_bound"] = table_all[f"{rule}_c_bound"].reindex(table.index)
    found = {"table": table, "picks": pick_correlations(ex)}
    if all(r.done for r in runs):   # kept once the runs are whole
        held.update(found)
else:
    found = held
ex, gr = runs[:2]
table, picks = found["table"], found["picks"]

if not ex.history:
    if ex.done:
        st.warning(f"No rule can start: {for_app(ex.stop_reason)}.", icon=":material/warning:")
    st.stop()   # else stopped before the first iteration: only the button to go on

# ---- the claim, measured ----------------------------------------------------------------------
st.subheader("Where the rules differ, from the same vote")
differ = picks[picks["differ"]] if len(picks) else picks
c = st.columns(3)
c[0].metric("Steps with different picks",
            f"{len(differ)} of {len(picks)}",
            help="from the exhaustive run's vote at each iteration: the voter it took vs. the "
                 "voter the gradient rule would have taken from the same vote")
if len(differ):
    c[1].metric("ρ of the exhaustive pick",
                fixed(differ["exhaustive_correlation"].mean(), 2),
                help="its correlation with the vote, mean over the steps where the rules differ")
    c[2].metric("ρ of the gradient pick",
                fixed(differ["gradient_correlation"].mean(), 2),
                help="its correlation with the vote, mean over the steps where the rules differ")
    higher = int((differ["exhaustive_correlation"] > differ["gradient_correlation"]).sum())
    st.caption(f"In {higher} of these {len(differ)} steps the exhaustive pick is the more "
               "correlated with the vote.")
else:
    st.caption("On this data set both rules take the same voter from every vote of the run.")

# ---- one iteration ----------------------------------------------------------------------------
st.subheader("Every candidate at one iteration")
n = len(ex.history)
t = st.slider("Vote of the exhaustive run after iteration", 1, n, 1, key="gx_view",
              help="the candidates are scored as the next voter to add to this vote") if n > 1 else 1
cands = ex.candidates(t)
g, e = cands.gradient_pick, cands.exhaustive_pick
live_chart(plots.landscape_figure(cands, problem.pool.describe), key="gx_fig_landscape")
if e < 0 and g < 0:
    why = f" {for_app(ex.stop_reason)}." if ex.stop_reason else ""
    st.info(f"No eligible voter improves the C-bound of this vote.{why}", icon=":material/info:")
elif g == e:
    st.markdown(f"Both rules add **{md(problem.pool.describe(e))}** to this vote.")
else:
    st.markdown(
        f"The gradient rule would add **{md(problem.pool.describe(g))}** (C-bound decrease "
        f"{cands.decrease[g]:.5f}); the exhaustive rule adds **{md(problem.pool.describe(e))}** "
        f"(decrease {cands.decrease[e]:.5f}, {cands.decrease[e] / cands.decrease[g]:.2f}× larger).")
def plane():
    """The exhaustive run's vote after iteration t and both rules' next voter."""
    xe, ye, Z = problem.vote_grid(ex.weights_at(t), n=100)
    pool = problem.pool
    stumps = [] if not hasattr(pool, "threshold_") else [
        {"feature": int(pool.feature_[k]), "threshold": float(pool.threshold_[k]),
         "label": pool.describe(k), "name": f"{rule} pick: {{label}}", "color": color}
        for k, rule, color in ((e, "exhaustive", plots.VERMILION), (g, "gradient", plots.ORANGE))
        if k >= 0]
    s = problem.split
    return plots.decision_figure(
        xe, ye, Z, s.X_train, s.y_train, s.X_test, s.y_test, stump=stumps,
        feature_names=s.feature_names, uirevision="gx_regions", height=480,
        subtitle=f"the vote after iteration {t} and both rules' next voter")


if problem.split.X_train.shape[1] == 2:
    live_chart(plane(), key="gx_fig_regions")

# ---- both runs --------------------------------------------------------------------------------
st.subheader("Both rules run side by side")
live_chart(plots.lockstep_figure(table), key="gx_fig_lockstep")
diverge = table.index[~table["agree"].astype(bool)]
c1, c2 = st.columns(2)
c1.metric("First iteration where the runs differ",
          "none" if not len(diverge) else int(table["iteration"][diverge[0]]),
          help="after it, the two runs hold different votes: compare their C-bounds, not their "
               "picks")
c2.metric("Final C-bound: exhaustive / gradient",
          f"{fixed(ex.history[-1].c_bound, 4)} / {fixed(gr.history[-1].c_bound, 4)}")
if ex.done and gr.done:
    st.caption(f"Exhaustive run: {for_app(ex.stop_reason)}. "
               f"Gradient run: {for_app(gr.stop_reason)}.")
with st.expander("Choices per iteration"):
    shown = pd.DataFrame({
        "iteration": table["iteration"],
        "exhaustive rule added": table["exhaustive_label"].fillna("— (stopped)"),
        "gradient rule added": table["gradient_label"].fillna("— (stopped)"),
        "same voter": table["agree"].map({True: "yes", False: "no"}),
        "C-bound, exhaustive": table["exhaustive_c_bound"],
        "C-bound, gradient": table["gradient_c_bound"],
    })
    st.dataframe(shown, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4f")
                                for c in ("C-bound, exhaustive", "C-bound, gradient")})

st.subheader("Download a chart")
builders = {"Which voter next?": lambda: plots.landscape_figure(cands, problem.pool.describe),
            "Exhaustive vs. gradient rule": lambda: plots.lockstep_figure(table)}
if problem.split.X_train.shape[1] == 2:
    builders["Majority vote on the input plane"] = plane
export_charts(builders, "gx_export")
