"""Step through CB-Boost: one voter at a time, every quantity of the paper on screen."""
import numpy as np
import streamlit as st

from cbviz import bounds, plots
from cbviz.ui import runs
from cbviz.ui.sidebar import apply_settings, require_problem

settings, problem = require_problem()
pending = st.session_state.pop("cb_pending_config", None)
if pending is not None:  # from a reloaded JSON: set before the widgets are drawn
    st.session_state["cb_direction"] = pending["direction"]
    st.session_state["cb_max_iter"] = max(1, pending["max_iter"])
st.title("Step through CB-Boost")
st.caption(f"{problem.dataset.description} · {problem.split.X_train.shape[0]} train / "
           f"{problem.split.X_test.shape[0]} test examples · {problem.n_voters} voters")

# ---- run configuration and controls --------------------------------------------------------
c_rule, c_iter, c_speed = st.columns([2, 1, 2])
direction = c_rule.radio("Direction rule", ["exhaustive", "gradient"], horizontal=True,
                         key="cb_direction",
                         help="exhaustive: largest exact C-bound decrease (CB-Boost); "
                              "gradient: steepest descent direction (GB-CB-Boost)")
max_iter = c_iter.number_input("Max iterations", 1, 5000, 100, key="cb_max_iter")
speed = c_speed.select_slider("Play speed (seconds per step)", [0.25, 0.5, 1.0, 2.0], value=0.5,
                              key="cb_speed")
run = runs.cbboost_run(problem, settings, direction, max_iter)

b = st.columns(6)
b[0].button("Step", on_click=runs.step, args=(1,), disabled=run.done, key="cb_step",
            width="stretch")
b[1].button("Step ×10", on_click=runs.step, args=(10,), disabled=run.done, key="cb_step10",
            width="stretch")
run_to_end = b[2].button("Run to end", disabled=run.done, key="cb_run_end", width="stretch")
playing = st.session_state.get("cb_playing", False)
if b[3].button("⏸ Pause" if playing else "▶ Play", disabled=run.done and not playing,
               key="cb_play", width="stretch"):
    st.session_state["cb_playing"] = not playing
    st.rerun()
b[4].button("Reset", on_click=runs.reset, key="cb_reset", width="stretch")

if run_to_end:
    bar = st.progress(0.0, text="running CB-Boost...")
    while not run.done:
        run.step()
        bar.progress(len(run.history) / run.max_iter,
                     text=f"iteration {len(run.history)} of at most {run.max_iter}")
    bar.empty()
    st.session_state["cb_view"] = max(1, len(run.history))


def vote_state(run, t):
    """Weights, training margins and the record of iteration ``t``."""
    w = run.weights_at(t)
    F = run.F if t == len(run.history) else run.H.matvec(w)  # the latest vote is kept by the run
    M = bounds.margins(F, run.y, w.sum())
    return w, M, run.history[t - 1]


def show():
    """Everything that depends on the run's progress (re-drawn alone while playing)."""
    if st.session_state.get("cb_playing"):
        if run.done:
            st.session_state["cb_playing"] = False
            st.rerun()
        runs.step(1, run)
    if not run.history:
        if run.done:
            st.warning(f"CB-Boost stopped before choosing a voter: {run.stop_reason}.", icon="⚠️")
        else:
            st.info("Press **Step** to start the vote with the voter of best margin.", icon="👣")
        return
    n = len(run.history)
    if n > 1:
        t = st.slider("Show iteration", 1, n, key="cb_view",
                      help="every plot below shows the vote as it was at this iteration")
    else:
        t = 1
    w, M, rec = vote_state(run, t)
    status = f"**Iteration {t}** of {n}: C-bound {rec.c_bound:.4f}, train error {rec.train_error:.4f}"
    if rec.test_error is not None:
        status += f", test error {rec.test_error:.4f}"
    status += f", PAC-Bayes bound {rec.pac_bound:.4f}, KL {rec.kl:.3f}"
    st.markdown(status)
    if run.done:
        st.success(f"Stopped after {n} voters: {run.stop_reason}.", icon="🏁")
    frame = run.to_frame()

    st.plotly_chart(plots.bounds_figure(frame, current=t), key="cb_fig_bounds", width="stretch")
    with st.expander("What is this?"):
        st.markdown("The empirical C-bound 1 − μ₁²/μ₂ (CB-Boost paper, Definition 7) upper-bounds "
                    "the training error (Corollary 1); the PAC-Bayes bounds (Roy et al. 2016, "
                    "Theorem 2; Germain et al. 2015, PAC-Bounds 0 and 1; Masegosa et al. 2020, "
                    "tandem bound) bound the true risk with probability at least "
                    f"1 − δ = {1 - settings.delta:.3f}.")
    pairs = [
        (plots.error_figure(frame, current=t), "cb_fig_errors",
         "0-1 error of the majority vote sign(Σ aₖ hₖ(x)) on the training and the held-out test "
         "examples."),
        (plots.kl_figure(frame, problem.n_voters, current=t), "cb_fig_kl",
         "KL(Q‖P) = ln n + Σ Qₖ ln Qₖ to the uniform prior over the n voters. It never exceeds "
         "ln n (all the weight on one voter) and enters every PAC-Bayes bound."),
        (plots.alpha_figure(frame, current=t), "cb_fig_alpha",
         "The weight α of the voter added at each iteration: the closed-form optimum of Theorem 3, "
         "α* = (γ(h)ν(F) − γ(F)τ(F,h)) / (γ(F)ν(h) − γ(h)τ(F,h))."),
        (plots.margin_figure(M, rec.mu1, rec.mu2), "cb_fig_margins",
         "Margins y Σ Qₖ hₖ(x) of the training examples. The C-bound is small when their mean μ₁ "
         "is large compared with √μ₂: it is Cantelli's inequality applied to this distribution."),
    ]
    if t >= 2:
        pairs.append((plots.direction_curve_figure(run.direction_curve(t)), "cb_fig_curve",
                      "The C-bound of F + α h as a function of the new voter's weight α, all other "
                      "weights fixed. Theorem 3 gives its minimum in closed form; Property 1 the "
                      "decrease."))
    for i in range(0, len(pairs), 2):
        for column, (fig, key, text) in zip(st.columns(2), pairs[i:i + 2]):
            with column:
                st.plotly_chart(fig, key=key, width="stretch")
                with st.expander("What is this?"):
                    st.markdown(text)
    if t < 2:
        st.info("The one-direction curve of Theorem 3 appears from iteration 2: iteration 1 only "
                "starts the vote with the best-margin voter (weight 1).", icon="ℹ️")
    if problem.split.X_train.shape[1] == 2:
        st.plotly_chart(decision_regions(w, rec), key="cb_fig_regions", width="stretch")
        st.caption("Value of the normalized vote Σ Qₖ hₖ(x) over the plane (red: vote for +1, "
                   "blue: vote for −1) with the training and test points; the dashed line is "
                   "the voter added at this iteration.")
    added = {r.index: r.iteration for r in run.history[:t]}
    st.subheader("Voters in the vote")
    st.dataframe(plots.weights_table(rec, problem.pool.describe, added), hide_index=True,
                 width="stretch", height=min(400, 38 + 35 * rec.n_voters))


def decision_regions(w, rec):
    X = np.vstack([problem.split.X_train, problem.split.X_test])
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.05 * (hi - lo + 1e-12)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], 120)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], 120)
    xx, yy = np.meshgrid(xs, ys)
    Z = problem.vote_on(np.column_stack([xx.ravel(), yy.ravel()]), w).reshape(xx.shape)
    stump = None
    pool = problem.pool
    if hasattr(pool, "threshold_") and rec.index is not None:
        stump = {"feature": int(pool.feature_[rec.index]),
                 "threshold": float(pool.threshold_[rec.index]), "label": rec.label}
    s = problem.split
    return plots.decision_figure(xs, ys, Z, s.X_train, s.y_train, s.X_test, s.y_test, stump=stump,
                                 feature_names=s.feature_names)


st.fragment(show, run_every=speed if st.session_state.get("cb_playing") else None)()

# ---- export and reload ----------------------------------------------------------------------
st.subheader("Export")
e1, e2, e3 = st.columns(3)
e1.download_button("Records (CSV)", run.to_frame().to_csv(index=False), "cbboost_records.csv",
                   "text/csv", disabled=not run.history, key="cb_dl_csv")
e2.download_button("Settings (JSON)", runs.export_json(settings, run), "cbboost_settings.json",
                   "application/json", key="cb_dl_json")
upload = e3.file_uploader("Reload settings (JSON)", type=["json"], key="cb_up_json")
if upload is not None and st.session_state.get("cb_loaded_file") != upload.file_id:
    st.session_state["cb_loaded_file"] = upload.file_id
    try:
        loaded, config = runs.read_json(upload.getvalue())
    except ValueError as exc:
        st.error(f"Could not load this file: {exc}", icon="⚠️")
    else:
        apply_settings(loaded)
        runs.reset()
        st.session_state["cb_replay"] = config["iterations"]
        st.session_state["cb_pending_config"] = config
        st.rerun()
