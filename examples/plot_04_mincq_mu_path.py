"""
MinCq's μ path
==============

MinCq (Laviolette et al., 2011; Germain et al., 2015) solves one quadratic program: the vote
with the lowest second margin moment among those whose first moment is fixed to ``mu``,
hence the lowest C-bound at that ``mu``.  ``mu`` is its only hyper-parameter.  Each MinCq
run below is one program; :func:`cbviz.plots.compare_figure` draws the C-bound and both
errors against ``mu``.
"""
import numpy as np
import pandas as pd

from cbviz.algorithms import MinCq, ParameterError
from cbviz.data import load_dataset, prepare
from cbviz.plots import compare_figure
from cbviz.voters import StumpPool

split = prepare(load_dataset("breast_cancer"), train_ratio=0.7, seed=0)
pool = StumpPool(n_thresholds=5).fit(split.X_train)
H_train, H_test = pool.operator(split.X_train), pool.operator(split.X_test)

rows = []
for mu in np.geomspace(0.005, 0.5, 12):
    try:
        record = MinCq(mu=mu).start(H_train, split.y_train, H_test, split.y_test).run().history[-1]
    except ParameterError as exc:          # a mu no vote of this pool reaches
        print(f"mu = {mu:.3g}: {exc}")
        continue
    rows.append({"mu": mu, "c_bound": record.c_bound, "train_error": record.train_error,
                 "test_error": record.test_error})
path = pd.DataFrame(rows)
print(path.round(4).to_string(index=False))

# %%
# What the figure shows: the empirical C-bound is lowest for the smallest ``mu`` and stays
# almost flat over the first few hundredths; then it rises steeply, as ``mu`` asks the margins
# for more than the quasi-uniform weights (each between 0 and 1/n) can give without
# distorting the vote.  Past the largest reachable first moment, printed above, the program
# has no solution.  The test error (dashed) is not lowest where the C-bound is: MinCq's
# authors choose ``mu`` by cross-validation.
best = path.loc[path["c_bound"].idxmin()]
print(f"lowest C-bound {best.c_bound:.4f} at mu = {best.mu:.3g}; "
      f"lowest test error {path['test_error'].min():.4f} at mu = "
      f"{path.loc[path['test_error'].idxmin(), 'mu']:.3g}")
curves = {name: path.rename(columns={column: "value"}) for name, column in
          (("empirical C-bound", "c_bound"), ("train error", "train_error"),
           ("test error", "test_error"))}
fig = compare_figure(curves, "value", x_column="mu", x_title="μ (first moment imposed)",
                     y_title="C-bound / error", title="MinCq along μ", log_y=False)
fig.update_xaxes(type="log")
fig.show()
