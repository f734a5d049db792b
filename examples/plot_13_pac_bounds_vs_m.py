"""
Four PAC-Bayesian bounds against the sample size
================================================

The app's bound panel shows four bounds on the true risk of the majority vote, each holding
with probability at least ``1 - delta`` over the draw of the ``m`` training examples: the
first-order bound (twice a bound on the Gibbs risk), PAC-Bound 1 (a kl-inverted C-bound), the CqBoost
paper's Theorem 2 and the tandem bound.  All pay for ``KL(Q || P)`` and shrink as ``m``
grows.  :func:`cbviz.sample_size.bounds_vs_m` computes them for fixed empirical values and
:func:`cbviz.plots.cbound.pac_bounds_figure` draws them.
"""
from cbviz import bounds
from cbviz.plots.cbound import pac_bounds_figure
from cbviz.sample_size import bounds_vs_m, m_grid

r, d, kl, delta = 0.3, 0.35, 2.0, 0.05           # Gibbs risk, disagreement, KL(Q||P), delta
print(f"empirical C-bound: {bounds.c_bound_from_risks(r, d):.4f}")
table = bounds_vs_m(r, d, kl, delta, m_grid(50, 100_000, n=40))
print(table.iloc[[0, len(table) // 2, -1]].round(4).to_string(index=False))

# %%
# What the figure shows: with little data every bound is vacuous (at 1); each falls with
# ``m``.  Which is tightest depends on ``r`` and ``d``: here the voters disagree a lot
# (``d = 0.35``), the empirical C-bound (0.467) is below ``2 r = 0.6``, and the three bounds
# that use the disagreement (PAC-Bound 1 and Theorem 2 through the C-bound, the tandem bound
# through the joint error ``e = r - d/2``) end below the first-order bound, which ignores it.
last = table.iloc[-1].drop("m")
print(f"at m = {int(table['m'].iloc[-1])}: tightest is {last.idxmin()} ({last.min():.4f})")
fig = pac_bounds_figure(table, kl=kl, delta=delta)
fig.show()
