"""Gradient vs exhaustive: why CB-Boost's exact rule and the gradient rule choose differently."""
import streamlit as st

from cbviz import plots
from cbviz.algorithms import lockstep
from cbviz.ui.sidebar import RUN_PREFIX, require_problem

settings, problem = require_problem()
st.title("Gradient vs exhaustive")
st.markdown(
    """
From the same vote F, both rules add one voter h with the same closed-form weight (Theorem 3).
The **gradient rule** (GB-CB-Boost) takes the voter along which the C-bound falls fastest at
α = 0, the largest γ(h)ν(F) − γ(F)τ(F,h). The **exhaustive rule** (CB-Boost) takes the largest
*exact* decrease after the optimal step (Property 1),
(γ(h)ν(F) − γ(F)τ(F,h))² / (ν(F)(ν(F)ν(h) − τ(F,h)²)).
The two differ by the factor 1 / (ν(F)ν(h) − τ(F,h)²), which grows as h becomes
**uncorrelated with the current vote**: a voter that agrees with F only adds weight to what the
vote already says, so its steep start is soon exhausted, while a voter that disagrees with F on
the examples it gets wrong corrects the vote and keeps lowering the C-bound for longer.
"""
)

max_iter = st.number_input("Iterations for both rules", 2, 1000, 40, key="gx_max_iter")
key = (RUN_PREFIX + "lockstep", int(max_iter), settings.delta)
held = st.session_state.get(RUN_PREFIX + "lockstep")
if held is None or held["key"] != key:
    with st.spinner("Running both rules in lockstep..."):
        ex, gr, table = lockstep(problem.H_train, problem.split.y_train, int(max_iter),
                                 problem.H_test, problem.split.y_test,
                                 describe=problem.pool.describe, delta=settings.delta)
    held = {"key": key, "ex": ex, "gr": gr, "table": table}
    st.session_state[RUN_PREFIX + "lockstep"] = held
ex, gr, table = held["ex"], held["gr"], held["table"]

if not ex.history:
    st.warning(f"No rule can start: {ex.stop_reason}.", icon="⚠️")
    st.stop()

st.subheader("Every candidate at one iteration")
n = len(ex.history)
if n > 1:
    t = st.slider("Vote of the exhaustive run after iteration", 1, n, 1, key="gx_view",
                  help="the candidates are scored as the next voter to add to this vote")
else:
    t = 1
cands = ex.candidates(t)
if cands.valid.any():
    st.plotly_chart(plots.landscape_figure(cands, problem.pool.describe), key="gx_fig_landscape",
                    width="stretch")
    g, e = cands.gradient_pick, cands.exhaustive_pick
    if g == e:
        st.markdown(f"Both rules add **{problem.pool.describe(e)}** to this vote.")
    else:
        st.markdown(
            f"The gradient rule would add **{problem.pool.describe(g)}** (C-bound decrease "
            f"{cands.decrease[g]:.5f}); the exhaustive rule adds **{problem.pool.describe(e)}** "
            f"(decrease {cands.decrease[e]:.5f}, {cands.decrease[e] / cands.decrease[g]:.2f}× "
            "larger).")
else:
    st.info(f"No voter improves the C-bound of this vote ({ex.stop_reason}).", icon="ℹ️")

st.subheader("Both rules side by side")
agree = table["agree"].mean()
st.plotly_chart(plots.lockstep_figure(table), key="gx_fig_lockstep", width="stretch")
same_state = table.dropna(subset=["gradient_from_exhaustive_state"])
same = (same_state["gradient_from_exhaustive_state"] == same_state["exhaustive_index"]).mean() \
    if len(same_state) else float("nan")
c1, c2, c3 = st.columns(3)
c1.metric("Same voter at the same iteration", f"{agree:.0%}")
c2.metric("Same pick from the same vote", "n/a" if same != same else f"{same:.0%}",
          help="from the exhaustive run's vote, how often the gradient rule would pick the same voter")
c3.metric("Final C-bound: exhaustive / gradient",
          f"{ex.history[-1].c_bound:.4f} / {gr.history[-1].c_bound:.4f}")
st.caption(f"Exhaustive run: {ex.stop_reason}. Gradient run: {gr.stop_reason}.")
with st.expander("Choices per iteration"):
    st.dataframe(table, hide_index=True, width="stretch")
