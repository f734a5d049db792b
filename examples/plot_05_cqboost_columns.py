"""
CqBoost's column generation
===========================

CqBoost (Roy, Marchand & Laviolette, 2016) solves the C-bound program restricted to the
voters chosen so far, reads the example weights off the program's duals, and adds the voter
(column) with the largest edge ``sum_i alpha_i y_i h(x_i)`` under those weights.  It stops
when no edge exceeds the dual variable ``nu`` of the constraint ``sum(w) = 1`` by more than
``epsilon``.  :func:`cbviz.plots.series_figure` draws any record columns of a run: here the
added column's edge, ``nu`` and their difference.
"""
import numpy as np

from cbviz.algorithms import CqBoost
from cbviz.data import load_dataset, prepare
from cbviz.plots import series_figure
from cbviz.voters import StumpPool

split = prepare(load_dataset("breast_cancer"), train_ratio=0.7, seed=0)
pool = StumpPool(n_thresholds=10).fit(split.X_train)
run = CqBoost(mu=0.05, epsilon=1e-6, max_iter=60).start(
    pool.operator(split.X_train), split.y_train, pool.operator(split.X_test), split.y_test,
    describe=pool.describe).run()
frame = run.to_frame()
print(f"{len(frame)} columns added; stop reason: {run.stop_reason}")
# ``nu`` ends at zero up to the solver's round-off (a few 1e-18 either side), which rounding
# would print as -0.0; adding 0.0 leaves every number as it is but a negative zero, which
# becomes 0.0
table = frame[["iteration", "label", "edge", "nu", "violation", "c_bound"]].tail(5).round(5)
floats = table.select_dtypes("float").columns
table[floats] = table[floats] + 0.0
print(table.to_string(index=False))

# %%
# What the figure shows: each added column's edge against ``nu`` of the program just solved.
# The gap ``edge - nu`` of the previous program (green) is how much the added column
# violated the dual constraint; CqBoost stops once no column violates it by more than
# ``epsilon``, or at ``max_iter``.  Meanwhile the restricted program's optimum, the second
# moment of the margin at ``mu1 = mu``, goes down as columns are added:
mu2 = frame["objective"].to_numpy()
print("objective never increases:", bool(np.all(np.diff(mu2) <= 1e-9)))
fig = series_figure(frame, {"edge": "edge of the added column", "nu": "ν after re-solving",
                            "violation": "edge − ν of the previous program"},
                    title="CqBoost's column generation", y_title="edge / ν")
fig.show()
