"""
The C-bound map and a run's path
================================

For votes of +-1 voters the C-bound is a function of two numbers: the Gibbs risk ``r`` (the
average error of a voter drawn from ``Q``) and the expected disagreement ``d`` of two voters
drawn from ``Q``: ``C = 1 - (1 - 2r)**2 / (1 - 2d)`` (Lacasse et al., 2006).
:func:`cbviz.plots.cbound.c_bound_map_figure` colours that plane, shades the pairs no
vote can have, and draws where a run goes, one point per iteration.
"""
from cbviz.algorithms import CBBoost
from cbviz.cbound_plane import c_bound_grid, trajectory
from cbviz.data import load_dataset, prepare
from cbviz.plots.cbound import c_bound_map_figure
from cbviz.voters import StumpPool

split = prepare(load_dataset("breast_cancer"), train_ratio=0.7, seed=0)
pool = StumpPool(n_thresholds=10).fit(split.X_train)
run = CBBoost(max_iter=30).start(pool.operator(split.X_train), split.y_train).run()
path = trajectory(run.history)
print(path[["iteration", "gibbs_risk", "disagreement", "c_bound"]].iloc[[0, 1, 5, -1]]
      .round(4).to_string(index=False))

# %%
# What the figure shows: the run starts with one voter (no disagreement, ``d = 0``, and the
# Gibbs risk is that voter's error).  Adding voters raises the Gibbs risk, since the new
# voters are worse than the first one, but raises the disagreement more, and the C-bound
# falls: a good vote is made of voters that err on different examples.
first, last = path.iloc[0], path.iloc[-1]
print(f"Gibbs risk {first.gibbs_risk:.3f} -> {last.gibbs_risk:.3f}, disagreement "
      f"{first.disagreement:.3f} -> {last.disagreement:.3f}, C-bound {first.c_bound:.3f} -> "
      f"{last.c_bound:.3f}")
fig = c_bound_map_figure(c_bound_grid("risks"), trajectories={"CB-Boost": path})
fig.show()
