"""Paper experiments: the CB-Boost paper's Table 2, Fig. 1, Fig. 3 and Fig. 5, and the VEB-Boost
paper's Table 1, reproduced."""
import streamlit as st

from cbviz import plots, progress
from cbviz.experiments import (
    EXPERIMENTS,
    fig3_heatmap,
    fig5_frames,
    load_results,
    preset,
    results_dir,
    run_experiment,
    wide,
)
from cbviz.export import table_csv
from cbviz.ui import state, tasks
from cbviz.ui.figures import export_charts
from cbviz.ui.live_chart import live_chart
from cbviz.ui.notation import CB_BOOST_PAPER
from cbviz.markdown import md

STORE = "exp_store"
OUT = results_dir()  # where the units are saved: cbviz's per-user data folder
WHAT = {
    "table2": "Test 0-1 loss of each algorithm after a seeded randomized search of its "
              "hyper-parameters with 5-fold cross-validation, mean ± std over repeated splits.",
    "fig1": "Fit time versus the number of voters n, of examples m and of iterations T, on the "
            "same seeded data and stump pools for every algorithm.",
    "fig3": "CB-Boost's mean test loss minus AdaBoost's under increasing Gaussian feature noise "
            "(σ × each feature's training std; our protocol, the paper's Appendix F.1 is not "
            "reproduced).",
    "fig5": "CB-Boost's C-bound and errors per iteration beside MinCq(CB-Boost)'s: the lowest "
            "C-bound any weights on the voters CB-Boost chose so far reach.",
    "veb_table1": "The VEB-Boost paper's Table 1: AdaBoost and VEB-Boost with decision stumps "
                  "and with CART trees fitted each round, test error in % (mean ± std over "
                  "repeated splits, T and λ chosen on a validation part) beside the paper's "
                  "printed values; what the paper leaves open is in the protocol table.",
}

AXES = {"n": "n_voters", "m": "m", "T": "T"}
VERDICTS = {"agrees": ":material/check_circle:", "disagrees": ":material/cancel:"}


def ratio_table(ratios):
    """One row per point of the sweeps ("n = 1568"), one column per algorithm."""
    point = [f"{r.sweep} = {getattr(r, AXES[r.sweep])}" for r in ratios.itertuples()]
    wide = ratios.assign(point=point).pivot(index="point", columns="algorithm", values="ratio")
    return wide.loc[list(dict.fromkeys(point))].round(2)


def claim_line(claim):
    """A claim of the paper and this run's verdict, as one list item."""
    why = f" *Why:* {md(claim.reason)}" if isinstance(claim.reason, str) and claim.reason else ""
    return (f"- {VERDICTS.get(claim.verdict, ':material/help:')} **{claim.claim} "
            f"{claim.verdict}.** *Paper:* {md(claim.paper)}. *Ours:* {md(claim.measured)}.{why}")


st.title("Paper experiments")
st.markdown(f"The experiments of {CB_BOOST_PAPER}, Sect. 5, and Table 1 of Shivaswamy & "
            "Jebara's VEB-Boost paper (Sect. 3), on the data sets that work offline. "
            "Every unit of work (a data set, a split, an algorithm) is saved as soon as it is "
            "done, so a stopped run, a closed tab or a page reload loses nothing: the next run "
            "starts where the last one stopped. The same runs from a terminal: "
            "`python -m cbviz.experiments NAME --quick`.")

cfg = state.store(STORE, {"name": "table2", "quick": True})
c1, c2 = st.columns([3, 2])
name = c1.selectbox("Experiment", list(EXPERIMENTS), format_func=lambda n: EXPERIMENTS[n].title,
                    **state.bind(STORE, "name", "exp_name"))
quick = c2.toggle("Quick preset (under a minute on 2 cores)",
                  **state.bind(STORE, "quick", "exp_quick"),
                  help="off: the full preset, the paper's sizes where it states them (hours "
                       "for Table 2; use the terminal runner and its Dask option)")
st.caption(WHAT[name])
st.caption(f"Results are saved in {md(str(OUT))}")   # as text: a code span is 3.0:1 here
config = preset(name, quick)
with st.expander("Configuration"):
    st.json({k: v for k, v in vars(config).items()}, expanded=False)

found = load_results(name, OUT, config)
done = found.done if found else 0
total = found.total if found else len(EXPERIMENTS[name].units(config))
b1, b2 = st.columns([1, 3])
start = b1.button("Run" if done == 0 else ("All saved" if done == total else "Resume"),
                  type="primary", disabled=done == total, key="exp_run",
                  help="every unit is saved: nothing left to run" if done == total else
                  "Cancel (or any other click) stops the run; the finished units stay saved")
b2.progress(done / max(total, 1), text=f"{done} of {total} units saved")
tasks.stopped_notice("exp")
if start:
    with tasks.running("exp", f"Running {EXPERIMENTS[name].title}"):
        found = run_experiment(name, quick, config=config, out=OUT, progress=lambda k, n:
                               progress.report(k / max(n, 1), f"{k} of {n} units saved"))
    st.rerun()

if not found or not found.done:
    st.info("No unit of this experiment is saved yet: press **Run**.", icon=":material/science:")
    st.stop()

tables = found.tables
figures = {}
if name == "table2":
    st.subheader("Table 2: test 0-1 loss (mean ± std over the splits)")
    st.dataframe(wide(tables["table"]), hide_index=True, width="stretch")
elif name == "veb_table1":
    st.subheader("Table 1: test error in % (mean ± std over the splits), the paper's row above "
                 "ours")
    st.dataframe(tables["wide"], hide_index=True, width="stretch")
    st.markdown("**Protocol**: what the paper states and what this run chose")
    st.dataframe(tables["protocol"], hide_index=True, width="stretch")
elif name == "fig1":
    for sweep, axis, label in (("n", "n_voters", "number of voters n"),
                               ("m", "m", "number of training examples m"),
                               ("T", "T", "number of iterations T")):
        frame = tables.get(sweep)
        if frame is None or frame.empty:
            continue
        frames = {a: f.rename(columns={axis: "x"}) for a, f in frame.groupby("algorithm")}
        title = f"Fit time versus {label}"
        figures[title] = (lambda frames=frames, title=title, label=label: plots.compare_figure(
            frames, "fit_s", title=title, y_title="fit time (s, log scale)", x_column="x",
            x_title=label, log_y=True, uirevision=f"fig1_{title}"))
        live_chart(figures[title](), key=f"exp_fig1_{sweep}")
    if "ratios" in tables and not tables["ratios"].empty:
        st.markdown("**Fit time relative to CB-Boost's** at every point of this run (above 1: "
                    "slower than CB-Boost; MinCq solves one program, so it has no T sweep)")
        st.dataframe(ratio_table(tables["ratios"]), width="stretch",
                     column_config={"_index": st.column_config.TextColumn("point")})
    if "claims" in tables and not tables["claims"].empty:
        st.markdown("**Paper (Sect. 5.1) vs ours**: each claim of the paper checked on this "
                    "run's times (a verdict needs every sweep it compares)")
        st.markdown("\n".join(claim_line(c) for c in tables["claims"].itertuples()))
elif name == "fig3":
    figures["Fig. 3 heatmap"] = lambda: fig3_heatmap(tables["differences"])
    live_chart(figures["Fig. 3 heatmap"](), key="exp_fig3")
else:
    curves = tables["curves"]
    for (dataset, split), _ in curves.groupby(["dataset", "split"], sort=False):
        if split != 0:
            continue
        cb, mq = fig5_frames(curves, dataset, split)
        title = f"Fig. 5 on {dataset}"
        figures[title] = (lambda cb=cb, mq=mq: plots.mincq_on_voters_figure(cb, mq))
        st.markdown(f"**{dataset}** (split 0)")
        live_chart(figures[title](), key=f"exp_fig5_{dataset}")

st.subheader("Tables")
for table_name, table in tables.items():
    with st.expander(f"{table_name} ({len(table)} rows)"):
        st.dataframe(table, hide_index=True, width="stretch")
        st.download_button(f"{table_name} (CSV)", table_csv(table),
                           f"{name}_{table_name}.csv", "text/csv", key=f"exp_csv_{table_name}",
                           on_click="ignore", icon=":material/download:")
export_charts(figures, "exp_export")
