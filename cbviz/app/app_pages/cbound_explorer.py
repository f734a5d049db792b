"""C-bound explorer: the C-bound over the (r, d) plane, three voters, PAC-Bayes bounds against m."""
import pandas as pd
import streamlit as st

from cbviz import bounds, cbound_plane, sample_size, toy_vote
from cbviz.algorithms.registry import ALGORITHMS
from cbviz.plots.cbound import (
    c_bound_map_figure,
    c_bound_slice_figure,
    pac_bounds_figure,
    toy_bars_figure,
    toy_grid_figure,
)
from cbviz.plots.style import fixed
from cbviz.ui import state
from cbviz.ui.controls import number_field
from cbviz.ui.figures import export_charts
from cbviz.ui.live_chart import live_chart
from cbviz.ui.notation import CB_BOOST_PAPER
from cbviz.ui.sidebar import RUN_PREFIX

STORE = "cbx_store"
M_TOY, N_TOY = 10, 3
page = state.store(STORE, {
    "moments": False, "r": 0.3, "d": 0.35, "mu1": 0.4, "mu2": 0.3,
    # the examples (numbered from 1) each voter gets wrong
    **{f"voter_{j}": [i + 1 for i in wrong]
       for j, wrong in enumerate(toy_vote.toy_preset("different", M_TOY, N_TOY))},
    "draws": 0,
    "pac_r": 0.3, "pac_d": 0.35, "kl": 2.0, "delta": 0.05, "bound": "pac_bound", "target": 0.6,
})

st.title("C-bound explorer")
st.markdown(
    f"""
The **C-bound** (Lacasse et al. 2006; Theorem 1 of {CB_BOOST_PAPER}) bounds the error of a
majority vote by the first two moments of its margin: when μ₁ > 0, error ≤ C = 1 − μ₁²/μ₂.
For voters with outputs ±1, μ₁ = 1 − 2r and μ₂ = 1 − 2d: the **Gibbs risk** r is the
probability that a voter drawn from Q errs on an example, the **disagreement** d the probability
that two voters drawn independently from Q disagree on it. Measured on the training sample the
C-bound bounds the training error (Corollary 1 there); measured on the data distribution, the
true risk (Theorem 1). The **first-order bound** error ≤ 2r uses r alone: a vote errs only where
at least half of the weight of Q errs (Germain et al. 2009, NIPS).
"""
)

# ---- 1. the plane -----------------------------------------------------------------------------
st.subheader("The C-bound over the plane", divider="gray")


def _coordinate(field, key):
    """``state.bind`` for a coordinate slider; the other pair of coordinates follows it."""
    kw = state.bind(STORE, field, key)

    def changed():
        page[field] = st.session_state[key]
        if field in ("mu1", "mu2"):
            r, d = cbound_plane.risks_from_moments(page["mu1"], page["mu2"])
            page["r"], page["d"] = round(float(r), 6), round(float(d), 6)
        else:
            mu1, mu2 = cbound_plane.moments_from_risks(page["r"], page["d"])
            page["mu1"], page["mu2"] = round(float(mu1), 6), round(float(mu2), 6)

    kw.update(on_change=changed, args=())
    return kw


c_axes, c_x, c_y = st.columns([1, 2, 2], vertical_alignment="bottom")
moments = c_axes.toggle("Axes μ₁, μ₂", **state.bind(STORE, "moments", "cbx_moments"),
                        help="draw the plane in the moments of the margin instead of r and d")
if moments:
    c_x.slider("First moment μ₁ = 1 − 2r", 0.0, 1.0, step=0.01, **_coordinate("mu1", "cbx_mu1"))
    c_y.slider("Second moment μ₂ = 1 − 2d", 0.0, 1.0, step=0.01, **_coordinate("mu2", "cbx_mu2"))
else:
    c_x.slider("Gibbs risk r", 0.0, 0.5, step=0.005, **_coordinate("r", "cbx_r"))
    c_y.slider("Disagreement d", 0.0, 0.5, step=0.005, **_coordinate("d", "cbx_d"))
axes = "moments" if moments else "risks"
r, d = page["r"], page["d"]
st.markdown(cbound_plane.describe_point(r, d))


def other_runs():
    """Trajectory of each run the other pages hold (name -> frame), and what to say about them."""
    found, notes = {}, []
    held = st.session_state.get(RUN_PREFIX + "step")
    if held is None:
        notes.append("No run on the step page yet (*Step through an algorithm*): take a few "
                      "steps there and its trajectory appears on this map.")
    elif not held["run"].history:
        notes.append("The step page's run has no iteration yet.")
    else:
        config = held.get("config")
        name = ALGORITHMS[config[0]].name if config else type(held["run"]).__name__
        found[f"step page: {name}"] = cbound_plane.trajectory(held["run"].history)
    lock = st.session_state.get(RUN_PREFIX + "lockstep")
    if lock is not None:
        for rule, run in (("exhaustive", lock["ex"]), ("gradient", lock["gr"])):
            if run.history:
                found[f"gradient page: {rule} rule"] = cbound_plane.trajectory(run.history)
    for name, frame in found.items():
        outside = int((frame["gibbs_risk"] >= 0.5).sum())
        notes.append(f"**{name}**: {len(frame)} iterations, one point each (the last one larger), "
                     f"at its training r and d; C-bound {fixed(frame['c_bound'].iloc[0])} at the "
                     f"first, {fixed(frame['c_bound'].iloc[-1])} at the last."
                     + (f" {outside} of them have r ≥ 1/2 (μ₁ ≤ 0) and lie off the map."
                        if outside else ""))
    settings = st.session_state.get("settings")
    if found and settings is not None and settings.pool == "rbf":
        notes.append("These runs use real-valued RBF voters: their r and d are (1 − μ₁)/2 and "
                     "(1 − μ₂)/2, not probabilities of errors.")
    return found, notes


trajectories, run_notes = other_runs()
grid = cbound_plane.c_bound_grid(axes)
point = (page["mu1"], page["mu2"]) if moments else (r, d)
x_now = point[0]
slice_ok = 0.0 <= r < 0.5


def map_figure():
    return c_bound_map_figure(grid, point, trajectories)


def slice_figure():
    return c_bound_slice_figure(cbound_plane.c_bound_slice(axes, x_now), axes, x_now, point[1])


# one chart per row: side by side they would be 220-330 px wide in a 1024 px window
live_chart(map_figure(), key="cbx_fig_map")
if slice_ok:
    live_chart(slice_figure(), key="cbx_fig_slice")
else:
    st.info("At r = 1/2 (μ₁ = 0) the C-bound is not defined: there is no line to draw.",
               icon=":material/block:")
st.caption(
    "Shaded: no vote lands there. μ₂ − μ₁² is the variance of the margin, so every vote has "
    "μ₂ ≥ μ₁², which is d ≤ 2r(1 − r). On that boundary every example has the same margin; "
    "with μ₁ > 0 the vote is then right on every example and C = 0. Along the dashed line "
    "d = r the C-bound equals 2r, since C − 2r = 2(1 − 2r)(r − d)/(1 − 2d). r and d are "
    "probabilities only for ±1 voters (stumps, hyperplanes); for real-valued voters (RBF) they "
    "are defined as (1 − μ₁)/2 and (1 − μ₂)/2, with the same plane and the same C-bound.")
for note in run_notes:
    st.markdown(note)

# ---- 2. three voters --------------------------------------------------------------------------
st.subheader("Three voters, ten examples", divider="gray")
st.markdown(
    "Choose which of the ten examples each voter gets wrong. The vote gives the three voters "
    "equal weight (Q uniform), so it errs exactly where at least two of them err. An error is "
    "outvoted when the other two voters are right on that example; for a given number of "
    "errors, the disagreement d (how often two voters drawn at random differ on an example) is "
    "largest when the errors fall on different examples.")


def preset(name):
    if name == "random":
        page["draws"] += 1
    for j, wrong in enumerate(toy_vote.toy_preset(name, M_TOY, N_TOY, seed=page["draws"])):
        page[f"voter_{j}"] = [i + 1 for i in wrong]


with st.container(horizontal=True):  # buttons as wide as their labels, wrapped when narrow
    for name, label in toy_vote.TOY_PRESETS.items():
        st.button(label.capitalize(), key=f"cbx_preset_{name}", on_click=preset, args=(name,),
                  icon=":material/casino:" if name == "random" else None,
                  help="each voter wrong on 3 examples drawn at random" if name == "random"
                  else None)


for j, column in enumerate(st.columns(N_TOY)):
    column.multiselect(f"Voter {j + 1} is wrong on examples", list(range(1, M_TOY + 1)),
                       **state.bind(STORE, f"voter_{j}", f"cbx_voter_{j}"))
toy = toy_vote.toy_summary(toy_vote.toy_wrong(
    [[i - 1 for i in page[f"voter_{j}"]] for j in range(N_TOY)], M_TOY))
live_chart(toy_grid_figure(toy), key="cbx_fig_toy_grid")
live_chart(toy_bars_figure(toy), key="cbx_fig_toy_bars")
st.markdown(toy_vote.toy_story(toy))

# ---- 3. PAC-Bayes bounds against m ------------------------------------------------------------
st.subheader("From the sample to the true risk: PAC-Bayes bounds against m", divider="gray")
st.markdown(
    "The C-bound of the sample bounds the training error only. A PAC-Bayes theorem bounds the "
    "true risk from the empirical r and d on m examples, at a price that grows with KL(Q‖P) "
    "(in nats) and with ln(1/δ) and shrinks with m. Each bound below holds with probability at "
    "least 1 − δ over the draw of the m examples (independent, from the data distribution), for "
    "every posterior Q at once, provided the prior P was chosen before seeing them. The formulas "
    "take r, d and e = r − d/2, which for ±1 voters are the empirical Gibbs risk, disagreement "
    "and joint error (both of two voters drawn from Q wrong).")


def use_map_point():
    page["pac_r"], page["pac_d"] = page["r"], page["d"]


def step_record():
    held = st.session_state.get(RUN_PREFIX + "step")
    return held["run"] if held is not None and held["run"].history else None


def use_run():
    rec = step_record().history[-1]
    settings = st.session_state.get("settings")
    page["pac_r"] = float(rec.gibbs_risk)
    page["pac_d"] = float(min(rec.disagreement, cbound_plane.max_disagreement(rec.gibbs_risk)))
    page["kl"] = float(rec.kl)
    if settings is not None:
        page["delta"] = float(settings.delta)


q = st.columns(4)
pr = number_field(q[0], "Empirical Gibbs risk r", 0.0, 0.5, STORE, "pac_r", "cbx_pac_r",
                  notice=st, step=0.005, format="%.4f")
pd_ = number_field(q[1], "Empirical disagreement d", 0.0, 0.5, STORE, "pac_d", "cbx_pac_d",
                   notice=st, step=0.005, format="%.4f")
kl = number_field(q[2], "KL(Q‖P) in nats", 0.0, 200.0, STORE, "kl", "cbx_kl", notice=st,
                  step=0.5, format="%.2f", help="with the uniform prior over n voters "
                  "KL(Q‖P) ≤ ln n (ln 100 ≈ 4.6, ln 10 000 ≈ 9.2)")
delta = number_field(q[3], "δ", 0.001, 1.0, STORE, "delta", "cbx_delta", notice=st,
                     step=0.01, format="%.3f", help="each bound fails with probability at most δ")
q = st.columns([3, 1], vertical_alignment="bottom")
key = q[0].selectbox("Bound", list(bounds.PAC_BOUNDS), format_func=bounds.PAC_BOUNDS.get,
                     **state.bind(STORE, "bound", "cbx_bound"))
target = number_field(q[1], "Target", 0.01, 1.0, STORE, "target", "cbx_target", notice=st,
                      step=0.05, format="%.3f",
                      help="the largest bound on the true risk you would accept")
u = st.columns(2)  # on a row of their own: they fit a 1024 px window
u[0].button("From the map", key="cbx_use_point", on_click=use_map_point,
            icon=":material/my_location:", width="stretch",
            help=f"the point chosen on the map above: r = {page['r']:.3f}, d = {page['d']:.3f}")
run = step_record()
fitted = run is not None and not run.fixed   # trees fitted to the sample: no KL term
u[1].button("From the step page", key="cbx_use_run", on_click=use_run,
            disabled=run is None or fitted, icon=":material/footprint:", width="stretch",
            help="no iteration on the step page yet" if run is None else
            "the step page's run fits trees to the sample: it has no KL term and no bound"
            if fitted else
            "r, d and KL of the last iteration of the step page's run, δ of the sidebar")


@st.cache_data(show_spinner=False, max_entries=64)
def needed(key, r, d, kl, delta, target):
    return sample_size.examples_needed(key, r, d, kl, delta, target)


@st.cache_data(show_spinner=False, max_entries=16)
def table_vs_m(r, d, kl, delta, m_max):
    return sample_size.bounds_vs_m(r, d, kl, delta, sample_size.m_grid(10, m_max))


def pac_section():
    """The bounds against m for the inputs above; returns the figure's builder (None: no r, d)."""
    try:
        cbound_plane.check_point(pr, pd_)
    except ValueError as exc:
        st.error(f"**No bound for this r and d:** {exc}.", icon=":material/error:")
        return None
    limits = {k: sample_size.bound_limit(k, pr, pd_) for k in bounds.PAC_BOUNDS}
    with st.spinner("Searching the smallest m..."):
        costs = {k: (needed(k, pr, pd_, kl, delta, target),
                     needed(k, pr, pd_, 0.0, delta, target)) for k in bounds.PAC_BOUNDS}
    n_key, n_zero = costs[key]
    m_run = int(run.y.size) if run is not None else None
    m_top = min(1_000_000, max([100_000] + [2 * v for v in (n_key, m_run) if v]))
    table = table_vs_m(pr, pd_, kl, delta, m_top)

    def figure():
        return pac_bounds_figure(table, kl=kl, delta=delta, chosen=key, target=target,
                                 needed=n_key, limit=limits[key], m_run=m_run)

    live_chart(figure(), key="cbx_fig_pac")
    name = bounds.PAC_BOUNDS[key]
    if n_key is not None:
        text = (f"**{name}** is at most {target:.3f} from **m = {n_key:,}** examples on, with "
                f"KL = {kl:g} nats and δ = {delta:g}.")
        if n_zero is not None and kl > 0:
            text += (f" With KL = 0 it would take m = {n_zero:,}: these {kl:g} nats cost "
                     f"{n_key - n_zero:,} examples.")
    elif limits[key] >= target:
        text = (f"**{name}** never gets down to {target:.3f}: as m grows it tends to "
                f"{fixed(limits[key])}, its value without deviation terms.")
    else:
        text = (f"**{name}** stays above {target:.3f} for every m up to 1,000,000 (it tends "
                f"to {fixed(limits[key])} as m grows).")
    st.markdown(text)
    e = pr - pd_ / 2
    st.markdown(
        f"As m grows the bounds tend to 2r = {fixed(limits['first_order_bound'])} (first-order), "
        f"the C-bound C(r, d) = {fixed(limits['pac_bound'])} (PAC-Bound 1 and Roy et al.'s "
        f"Theorem 2) and 4e = {fixed(4 * e)} (tandem; e = {fixed(e, 4)}), each clipped at 1. Always "
        "C ≤ 4e, since 4e − C = 4(r − d)²/(1 − 2d); when d > r, also 4e < 2r "
        "(4e − 2r = 2(r − d)).")
    def count(n):
        return "not by 1,000,000" if n is None else f"{n:,}"

    st.dataframe(pd.DataFrame({
        "bound": list(bounds.PAC_BOUNDS.values()),
        "as m → ∞": [limits[k] for k in bounds.PAC_BOUNDS],
        f"smallest m for ≤ {target:.3f} (KL = {kl:g})": [count(costs[k][0])
                                                        for k in bounds.PAC_BOUNDS],
        "same with KL = 0": [count(costs[k][1]) for k in bounds.PAC_BOUNDS],
    }), hide_index=True, width="stretch",
        column_config={"as m → ∞": st.column_config.NumberColumn(format="%.4f")})
    st.caption("The smallest m is found by doubling and bisection on the integers, each bound "
               "being non-increasing in m; the search stops at m = 1,000,000.")
    return figure


pac_figure = pac_section()

st.subheader("Download a chart", divider="gray")
builders = {"The C-bound over the plane": map_figure}
if slice_ok:
    builders["C-bound and 2r along a line"] = slice_figure
builders.update({"Who errs where": lambda: toy_grid_figure(toy),
                 "Errors, r, d and the bounds": lambda: toy_bars_figure(toy)})
if pac_figure is not None:
    builders["PAC-Bayes bounds against m"] = pac_figure
export_charts(builders, "cbx_export")
