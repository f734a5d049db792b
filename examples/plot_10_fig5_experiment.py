"""
The CB-Boost paper's Fig. 5 from the experiments runner
=======================================================

Fig. 5 of the CB-Boost paper puts, after every iteration, CB-Boost's C-bound beside the
lowest C-bound that any weights on the voters CB-Boost has chosen so far can reach
(MinCq(CB-Boost)).  :func:`cbviz.experiments.run_experiment` runs it headless, saving one file
per unit so an interrupted run resumes; from a shell, ``cbviz experiments fig5 --quick`` does
the same.  :func:`cbviz.experiments.fig5_frames` turns one run's curves into the two frames
:func:`cbviz.plots.mincq_on_voters_figure` draws.
"""
import tempfile

import numpy as np

from cbviz.experiments import fig5_frames, preset, run_experiment
from cbviz.plots import mincq_on_voters_figure

config = preset("fig5", quick=True, datasets=("ionosphere",), max_iter=30, every=2)
with tempfile.TemporaryDirectory() as out:
    results = run_experiment("fig5", config=config, out=out)
print(f"{results.done} unit(s) in {results.seconds:.1f} s")
summary = results.tables["summary"]
print(summary.drop(columns="stop_reason").round(4).to_string(index=False))
print("CB-Boost stopped:", summary["stop_reason"].iloc[0])
cbboost, mincq = fig5_frames(results.tables["curves"], "ionosphere")

# %%
# What the figure shows: the green dashed curve (MinCq on CB-Boost's voters) is never above
# the blue one, since CB-Boost's own weights are among those MinCq optimizes over.  The gap
# between them is what CB-Boost's greedy weights leave on the table, and the two test
# errors (dotted) show whether the better C-bound buys a better vote.
merged = cbboost.merge(mincq, on="iteration", suffixes=("_cbboost", "_mincq"))
print("MinCq(CB-Boost) <= CB-Boost at every compared iteration:",
      bool(np.all(merged["c_bound_mincq"] <= merged["c_bound_cbboost"] + 1e-9)))
print(f"largest gap: {(merged['c_bound_cbboost'] - merged['c_bound_mincq']).max():.4f}")
fig = mincq_on_voters_figure(cbboost, mincq)
fig.show()
