"""
QuadBoost's four regularizations
================================

QuadBoost (Fortier-Dubois et al.) adds, at each iteration, the voter most correlated with the
residual ``y - F`` and gives it the weight that minimizes the quadratic risk
``mean((y - F)**2)`` plus a regularizer, in closed form: none (eq. 6), L1 soft-thresholding
(eq. 7), L2 shrinkage (eq. 8) or weights clipped at ``alpha_max`` (eq. 9).
:func:`cbviz.plots.compare_figure` draws the quadratic risk of the four variants on one
data set.
"""
from cbviz.algorithms import QuadBoost
from cbviz.data import load_dataset, prepare
from cbviz.plots import compare_figure
from cbviz.voters import StumpPool

split = prepare(load_dataset("breast_cancer"), train_ratio=0.7, seed=0)
pool = StumpPool(n_thresholds=10).fit(split.X_train)
H_train, H_test = pool.operator(split.X_train), pool.operator(split.X_test)

variants = {"no regularizer": {}, "L1, λ = 0.01": {"regularization": "l1", "lam": 0.01},
            "L2, λ = 0.01": {"regularization": "l2", "lam": 0.01},
            "Linf, α_max = 0.05": {"regularization": "linf", "alpha_max": 0.05}}
frames = {}
for name, params in variants.items():
    run = QuadBoost(max_iter=60, **params).start(H_train, split.y_train, H_test, split.y_test)
    frames[name] = run.run().to_frame()
    last = frames[name].iloc[-1]
    print(f"{name:20s} {len(frames[name]):3d} iterations  quadratic risk "
          f"{last['quadratic_risk']:.4f}  test error {last['test_error']:.4f}")

# %%
# What the figure shows: the three variants that solve for the best weight at each step
# (none, L1, L2) give the first voter most of the weight and then add much smaller
# corrections; their risk falls fast at first and then slowly, and their vote keeps the
# first voter's decisions (the same test error at every iteration, printed above).  The
# Linf variant may give no voter more than ``alpha_max``: it starts far higher, takes many
# small steps, and after 60 iterations its quadratic risk is the lowest of the four.
for name, frame in frames.items():
    print(f"{name:20s} largest |weight| {frame['alpha'].abs().max():.3f}, distinct test "
          f"errors over the run: {frame['test_error'].nunique()}")
fig = compare_figure(frames, "quadratic_risk", title="QuadBoost: quadratic risk",
                     y_title="mean((y − F)²)")
fig.show()
