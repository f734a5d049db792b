"""The step page's elements with nothing computed: what Streamlit itself costs a Step on a page
like cbviz's (issue #29), the floor under the work cbviz adds (``benchmarks.class_of_100``,
scenario 1).

The same widgets as the step page on two moons (the sidebar's 15, the page's 7, the Step part's
5 buttons, slider, pills and 2 toggles, the export's 5), the same texts, and its two live
charts: one fixed figure each (the plane and the risk bounds after 5 CB-Boost steps, made once
per process), so a Step here sends their parts by name only.  Step and Reset count clicks;
nothing else runs.
"""
import streamlit as st

from cbviz import plots
from cbviz.algorithms.registry import make_algorithm
from cbviz.problem import Settings, build_problem
from cbviz.ui.live_chart import live_chart
from cbviz.ui.live_status import status_line
from cbviz.ui.page import lazy_expander

LINK = {"source": "toy", "toy": "moons", "n_samples": "300", "toy_noise": "0.25",
        "pool": "stumps", "n_thresholds": "10"}


@st.cache_resource
def figures():
    """The plane and the risk bounds of a CB-Boost run after 5 steps, as dicts."""
    settings = Settings.from_link(LINK)[0]
    problem = build_problem(settings)
    run = problem.start(make_algorithm("cbboost", 100, settings.delta))
    for _ in range(5):
        run.step()
    s = problem.split
    xe, ye, Z = problem.vote_grid(run.weights_at(5), n=80, pool=problem.pool)
    plane = plots.decision_figure(xe, ye, Z, s.X_train, s.y_train, s.X_test, s.y_test,
                                  feature_names=s.feature_names, height=560, show_scale=False,
                                  spec=True)
    return plane, plots.bounds_figure(run.to_frame(), current=5, spec=True)


def sidebar():
    """The shared sidebar's 15 data and voter widgets."""
    bar = st.sidebar
    bar.selectbox("Data", ["toy", "real", "csv"], key="s_source")
    bar.selectbox("Toy set", ["moons", "circles", "xor"], key="s_toy")
    bar.number_input("Points", 20, 5000, 300, key="s_n_samples")
    bar.number_input("Seed", 0, 10**6, 0, key="s_data_seed")
    bar.slider("Spread (Gaussian jitter of the points)", 0.0, 1.0, 0.25, key="s_toy_noise")
    bar.slider("Train ratio", 0.1, 0.9, 0.7, key="s_train_ratio")
    bar.number_input("Split seed", 0, 10**6, 0, key="s_split_seed")
    bar.slider("Feature noise σ", 0.0, 2.0, 0.0, key="s_feature_noise")
    bar.slider("Label noise (training labels flipped)", 0.0, 0.5, 0.0, key="s_label_noise")
    bar.slider("Prior part (builds the voters only)", 0.0, 0.8, 0.0, key="s_prior_fraction")
    bar.toggle("tanh normalization", key="s_normalize")
    bar.selectbox("Voters", ["stumps", "rbf", "trees"], key="s_pool")
    bar.number_input("Thresholds per feature", 1, 100, 10, key="s_n_thresholds")
    bar.toggle("Constant voter (bias)", key="s_constant_voter")
    bar.select_slider("δ (confidence of the PAC-Bayes bounds)", [0.01, 0.05, 0.1],
                      value=0.05, key="s_delta")


def part():
    """The Step part: what a Step redraws on the step page, here with fixed contents."""
    n = st.session_state.setdefault("floor_steps", 0)
    row = st.container(horizontal=True)
    row.button("Step", key="step_once", width="stretch", shortcut="s",
               on_click=lambda: st.session_state.update(floor_steps=n + 1))
    row.button("Step ×10", key="step_ten", width="stretch", shortcut="t")
    row.button("To the end", key="step_run_end", width="stretch", help="run until it stops")
    row.button("Play", key="step_play", width="stretch", shortcut="p",
               icon=":material/play_arrow:")
    row.button("Reset", key="step_reset", width="stretch",
               on_click=lambda: st.session_state.update(floor_steps=0))
    if n > 1:
        st.slider("Show iteration", 1, n, n, key="step_view",
                  help="every plot below shows the vote as it was at this iteration")
    status_line((f"Iteration {n}",), f" of {n}: C-bound 0.3142, train error 0.1429, test "
                "error 0.1556; tightest PAC-Bayes bound: PAC-Bayes C-bound = 0.9502 "
                "(δ = 0.05); KL 2.913")
    plane, risks = figures()
    live_chart(lambda: plane, key="step_fig_regions", shared="floor plane")
    st.caption("Value of the normalized vote Σ Qₖ hₖ(x) over the plane (red: vote for +1, "
               "blue: vote for −1) with the training and test points; the dashed line is the "
               "voter chosen at this iteration.")
    st.pills("Charts", ["Risk bounds", "0-1 error", "Objective", "Gibbs risk & disagreement",
                        "KL", "Margins", "Weights α", "Theorem 3 curve", "Voters table"],
             selection_mode="multi", default=["Risk bounds"], key="step_charts",
             help="only the charts chosen here are drawn (each costs time per step)")
    live_chart(lambda: risks, key="step_fig_bounds", shared="floor bounds")
    st.caption("The voters were built from the whole training part, as the papers do: the "
               "bounds are computed as if the prior P were data-independent (Germain et al. "
               "2015 and the CB-Boost paper do the same).")
    lazy_expander("What is this?", "step_why_bounds", lambda: st.markdown("(closed)"))
    st.toggle("Compare with Eligible voters set to all", key="step_other_rule")
    st.toggle("Compare with MinCq on CB-Boost's voters (Fig. 5)", key="step_mincq_beside")
    st.query_params.update({"source": "toy", "toy": "moons", "algorithm": "cbboost",
                            "max_iter": "100", "speed": "0.5", "steps": str(n),
                            "view": str(n), "direction": "exhaustive", "eligible": "theorem3",
                            "reuse_voters": "false"})


sidebar()
st.title("Step through CB-Boost")
st.caption("two moons · 210 training and 90 test examples · 40 stumps")
a, b, c = st.columns([2, 1, 2])
a.selectbox("Algorithm", ["CB-Boost", "MinCq", "AdaBoost"], key="step_algorithm")
b.number_input("Max iterations", 1, 5000, 100, key="step_max_iter")
c.select_slider("Play speed (seconds per step)", [0.1, 0.25, 0.5, 1.0, 2.0], value=0.5,
                key="step_speed")
st.markdown("**CB-Boost** (Bauvin et al. 2020) adds one voter per iteration. It minimizes: "
            "*the empirical C-bound*.")
d, e, f = st.columns(3)
d.radio("Direction rule", ["exhaustive", "gradient"], key="hp_cbboost_direction")
e.radio("Eligible voters", ["theorem3", "all"], key="hp_cbboost_eligible")
f.toggle("Re-use voters", key="hp_cbboost_reuse_voter")
st.toggle("Keyboard shortcuts: **S** step · **T** ten steps · **P** play / pause",
          value=True, key="step_shortcuts")
st.fragment(part)()
st.subheader("Export")
g, h, i = st.columns(3)
g.download_button("Records (CSV)", "iteration\n", "records.csv", key="step_dl_csv",
                  on_click="ignore")
h.download_button("Settings (JSON)", "{}", "settings.json", key="step_dl_json",
                  on_click="ignore")
i.file_uploader("Reload settings (JSON)", type=["json"], key="step_up_json")
j, k, m = st.columns([2, 1, 1])
j.selectbox("Chart to download", ["Majority vote on the input plane", "Risk bounds"],
            key="step_export_chart")
k.download_button("HTML", "<html></html>", "chart.html", key="step_export_html",
                  on_click="ignore")
m.download_button("PNG", b"", "chart.png", key="step_export_png", on_click="ignore")
