"""Compare algorithms: the same data, split and voters for all, run together."""
import streamlit as st

from cbviz import plots
from cbviz.algorithms.registry import ALGORITHMS
from cbviz.baselines import BASELINES
from cbviz.compare import Comparison
from cbviz.export import table_csv
from cbviz.ui import state, tasks
from cbviz.ui.controls import number_field, param_widget
from cbviz.ui.figures import export_charts
from cbviz.ui.live_chart import live_chart
from cbviz.ui.live_status import status_line
from cbviz.ui.messages import for_app
from cbviz.ui.sidebar import RUN_PREFIX, require_problem
from cbviz.markdown import md

STORE = "cmp_store"
RUN_KEY = RUN_PREFIX + "compare"
# the entries offered: registered algorithms, and GB-CB-Boost as CB-Boost's gradient rule
ENTRIES = {"cbboost": ("cbboost", {"direction": "exhaustive"}),
           "gbcbboost": ("cbboost", {"direction": "gradient"}),
           **{k: (k, {}) for k in ALGORITHMS if k != "cbboost"}}
NAMES = {"gbcbboost": "GB-CB-Boost", **{k: ALGORITHMS[k].name for k in ALGORITHMS}}

settings, problem = require_problem()
st.title("Compare algorithms")
tasks.stopped_notice("cmp")
st.caption(f"{md(problem.dataset.description)} · {problem.split.X_train.shape[0]} train / "
           f"{problem.split.X_test.shape[0]} test examples · {problem.voters_text}")
st.markdown("Every algorithm below learns from the same training examples with the same voter "
            "pool (the sidebar's), and is scored on the same test examples. The scikit-learn "
            "baselines learn their own trees from the raw features, with as many members as "
            "the algorithms have iterations and their other hyper-parameters at scikit-learn's "
            "defaults; they have no C-bound or PAC-Bayes bound.")

cfg = state.store(STORE, {"entries": ["cbboost", "gbcbboost", "cqboost", "adaboost"],
                          "baselines": ["adaboost"], "T": 50})
c1, c2, c3 = st.columns([3, 2, 1])
entries = c1.multiselect("Algorithms", list(ENTRIES), format_func=NAMES.get,
                         **state.bind(STORE, "entries", "cmp_entries"))
baselines = c2.multiselect("scikit-learn baselines", list(BASELINES),
                           format_func=lambda k: BASELINES[k].display_name,
                           **state.bind(STORE, "baselines", "cmp_baselines"))
T = int(number_field(c3, "Iterations T", 1, 2000, STORE, "T", "cmp_T", notice=st))

chosen = []
for entry in entries:
    key, fixed = ENTRIES[entry]
    params = dict(fixed)
    free = [p for p in ALGORITHMS[key].params if p.name not in fixed]
    if free:
        with st.expander(f"Hyper-parameters of {NAMES[entry]}"):
            cols = st.columns(min(4, len(free)))
            for i, p in enumerate(free):
                with cols[i % len(cols)]:
                    if p.active(params):
                        params[p.name] = param_widget(p, f"cmp_{entry}")
    chosen.append((key, params))

config = (tuple((k, tuple(sorted(p.items()))) for k, p in chosen), tuple(baselines), T,
          settings.delta, settings.split_seed)
held = st.session_state.get(RUN_KEY)
if held is None or held["config"] != config:
    held = {"config": config, "cmp": Comparison(problem, chosen, baselines, T, settings.delta,
                                                 settings.split_seed)}
    st.session_state[RUN_KEY] = held
cmp = held["cmp"]
for name, message in cmp.failed.items():
    st.warning(f"**{md(name)}** left out: {md(message)}", icon=":material/warning:")

asked = tasks.take("cmp", "step")
if asked is not None and not cmp.done:
    n = asked["n"]
    what = ("every algorithm to its end" if n is None else
            f"{n} more iteration{'s' * (n > 1)} of every algorithm")
    with tasks.running("cmp", f"Running {what}"):
        cmp.step(n)
b = st.columns(4)
for col, n, label, key, kw in (
        (b[0], None, "Run all to the end", "cmp_run", {
            "type": "primary", "help": "one iteration of every algorithm in turn until each "
            "one stops; Cancel (or any other click) stops it, and what was computed stays"}),
        (b[1], 1, "Step all", "cmp_step", {}), (b[2], 10, "Step all ×10", "cmp_step10", {})):
    col.button(label, disabled=cmp.done, key=key, on_click=tasks.request,
               args=("cmp", "step"), kwargs={"n": n}, **kw)
if b[3].button("Reset", key="cmp_reset"):
    st.session_state.pop(RUN_KEY, None)
    st.rerun()

frames = cmp.frames()
if not frames:
    st.info("Press **Run all to the end** or **Step all** to start every algorithm.",
            icon=":material/play_arrow:")
    st.stop()
status_line(", ".join(f"{name} at iteration {len(frame)}"  # read out at each run
                                    for name, frame in frames.items()),
            "; every run has stopped." if cmp.done else ".")

# ---- curves ---------------------------------------------------------------------------------
curves = [
    ("c_bound", "Empirical C-bound", "C-bound (training)", {}),
    ("test_error", "Test error", "0-1 error on the test part", {}),
    ("train_error", "Training error", "0-1 error on the training part", {}),
    ("kl", "KL(Q‖P) to the uniform prior", "KL (nats)", {}),
    ("test_error", "Test error against sparsity", "0-1 error on the test part",
     {"x_column": "n_voters", "x_title": "voters with a non-zero weight"}),
    ("seconds", "Time per iteration", "seconds (log scale)", {"log_y": True}),
]
figures = {}
for column, title, y_title, kw in curves:
    figures[title] = (lambda c=column, t=title, y=y_title, kw=kw: plots.compare_figure(
        frames, c, title=t, y_title=y, uirevision=f"cmp_{t}", **kw))
for k, (column, title, _, _) in enumerate(curves):  # one per row: side by side, 270 px at 1024
    live_chart(figures[title](), key=f"cmp_fig_{k}_{column}")
panel = cmp.final_panel()
if len(panel):
    figures["Bounds at the last iteration"] = lambda: plots.bound_panel_figure(panel)
    live_chart(figures["Bounds at the last iteration"](), key="cmp_fig_panel")

# ---- decision regions -----------------------------------------------------------------------
if problem.split.X_train.shape[1] == 2 and cmp.runs:
    st.subheader("Decision regions at the same iteration")
    longest = max(len(r.history) for r in cmp.runs.values())
    st.caption("Red: the vote says +1, blue: −1 (the color is the normalized vote Σ Qₖ hₖ(x)); "
               "filled points train, open points test.")
    t = st.slider("Iteration", 1, max(longest, 2), min(longest, 10) if longest > 1 else 1,
                  key="cmp_regions_t", disabled=longest < 2,
                  help="each algorithm's vote after this iteration (or its last one if it "
                       "stopped before)") if longest else 1
    s = problem.split
    runs = [(n, r) for n, r in cmp.runs.items() if r.history]
    for i in range(0, len(runs), 2):  # two a row: about 270 px each in a 1024 px window
        for col, (name, run) in zip(st.columns(2), runs[i:i + 2]):
            k = min(t, len(run.history))
            xe, ye, Z = problem.vote_grid(run.weights_at(k), n=60, pool=problem.pool_of(run))
            fig = plots.decision_figure(xe, ye, Z, s.X_train, s.y_train, s.X_test, s.y_test,
                                        feature_names=s.feature_names, height=300, title=name,
                                        uirevision=f"cmp_regions_{name}", show_scale=False,
                                        subtitle=f"iteration {k}")
            fig.update_layout(showlegend=False)
            with col:
                live_chart(fig, key=f"cmp_regions_{name}")

# ---- the final table ------------------------------------------------------------------------
st.subheader("At the last iteration")
table = cmp.final_table()
table["stop reason"] = table["stop reason"].map(for_app)
st.dataframe(table, hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(format="%.4f") for c in
                            ("test error", "train error", "C-bound",
                             "PAC-Bayes bound (Roy et al. 2016)", "tightest PAC-Bayes bound")})
d1, _ = st.columns([1, 3])
d1.download_button("Table (CSV)", lambda: table_csv(table),
                   "comparison.csv", "text/csv", key="cmp_csv", on_click="ignore",
                   icon=":material/download:")
export_charts(figures, "cmp_export")
