"""
Margins and the C-bound
=======================

The C-bound is a function of two moments of the vote's margins: with ``M_i = y_i F(x_i)``
normalized by the total weight, ``mu1 = mean(M)`` and ``mu2 = mean(M**2)`` give
``C = 1 - mu1**2 / mu2``.  It is small when margins are large on average and concentrated.
:func:`cbviz.plots.margin_figure` draws the histogram of the margins of a CB-Boost vote with
both moments.
"""
import numpy as np

from cbviz import bounds
from cbviz.algorithms import CBBoost
from cbviz.data import make_toy, prepare
from cbviz.plots import margin_figure
from cbviz.voters import StumpPool

split = prepare(make_toy("moons", n_samples=400, noise=0.25, seed=0), train_ratio=0.7, seed=0)
pool = StumpPool(n_thresholds=20).fit(split.X_train)
H = pool.operator(split.X_train)
run = CBBoost(max_iter=25).start(H, split.y_train, describe=pool.describe).run()

# %%
# The margins of the last vote, from its weights; the C-bound recomputed from them is the
# one the run recorded.
a = run.weights_at()                         # non-negative weights of the last vote
M = bounds.margins(H.matvec(a), split.y_train, total=a.sum())
mu1, mu2 = bounds.moments(M)
print(f"mu1 = {mu1:.3f}, mu2 = {mu2:.3f}, C-bound = {bounds.c_bound(mu1, mu2):.4f} "
      f"(recorded {run.history[-1].c_bound:.4f})")
print(f"share of negative margins = {np.mean(M < 0):.3f} = train error "
      f"{run.history[-1].train_error:.3f}")

# %%
# The bars in the shaded half (negative margins) are the training examples the vote gets
# wrong; their share is the training error, which the C-bound bounds from above.
fig = margin_figure(M, mu1, mu2)
fig.show()
