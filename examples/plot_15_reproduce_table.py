"""
Reproduce a published table
===========================

Table 1 of the CqBoost paper (Roy, Marchand & Laviolette, "A Column Generation Bound
Minimization Approach with PAC-Bayesian Generalization Guarantees", AISTATS 2016) gives the
test risk of CqBoost, MinCq and AdaBoost on 23 UCI data sets.  This script re-runs the three
estimators of :mod:`cbviz.estimators` with the protocol of the paper's Sect. 7 on three of
those data sets, and prints the mean and standard deviation of the test risk over 5 random
splits beside the paper's value.

The protocol, as the paper states it: 10 pairs of decision stumps per attribute (a stump and
its complement, :class:`cbviz.voters.StumpPool` with ``n_thresholds=10``), features scaled by
a hyperbolic tangent (:class:`cbviz.data.TanhNormalizer`, fitted on the training part), half
of the examples for training but at most 500, the rest for testing, and each
hyper-parameter chosen by 5-fold cross-validation on the training part (scikit-learn's
``GridSearchCV``).  The grids are smaller than the paper's, to keep the script to a few
minutes; the differences are printed below the table.
"""
import re
import time
import warnings

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from cbviz.data import load_dataset, prepare
from cbviz.estimators import AdaBoostClassifier, CqBoostClassifier, MinCqClassifier
from cbviz.plots import BLUE, ORANGE
from cbviz.voters import StumpPool

# Table 1 of the paper: test risk of CqBoost, MinCq and AdaBoost
PAPER = {"ionosphere": {"CqBoost": 0.091, "MinCq": 0.109, "AdaBoost": 0.114},
         "heart": {"CqBoost": 0.185, "MinCq": 0.170, "AdaBoost": 0.215},
         "pima": {"CqBoost": 0.237, "MinCq": 0.242, "AdaBoost": 0.273}}
SPLITS = 5
N_JOBS = 2  # grid points and folds run on two processes

# the paper: mu among 15 values from 10^-2 to 10^-0.5 (log scale), T among 15 from 10^2 to
# 10^6; here 6 values over the same range of mu, and the paper's first 3 values of T
MU_GRID = np.logspace(-2, -0.5, 6)
T_GRID = [round(t) for t in np.logspace(2, 6, 15)[:3]]
pool = StumpPool(n_thresholds=10, complements=True, constant=False)
MODELS = {
    # max_iter=None: no cap, Algorithm 1's epsilon rule stops every run, as in the paper
    "CqBoost": (CqBoostClassifier(pool=pool, epsilon=1e-6, max_iter=None), "mu", MU_GRID),
    "MinCq": (MinCqClassifier(pool=pool, form="quasi_uniform"), "mu", MU_GRID),
    "AdaBoost": (AdaBoostClassifier(pool=pool), "max_iter", T_GRID),
}

# %%
# The three data sets
# -------------------
# The rows, attributes and classes of the UCI sets the paper used; the notes say where the
# package's copy (from KEEL) differs.  Heart's tenfold oldpeak does not matter here: the tanh
# scaling standardizes each attribute first.
for name in PAPER:
    ds = load_dataset(name)
    counts = {int(c): int(np.sum(ds.y == c)) for c in (-1, 1)}
    print(f"{name}: {ds.m} rows, {ds.d} attributes, classes -1/+1: "
          f"{counts[-1]}/{counts[1]}, pool of {20 * ds.d} stumps")
    for note in ds.notes:
        print(f"    note: {note}")

# %%
# Cross-validation and test risk
# ------------------------------
# Split ``s`` (0 to 4) is :func:`cbviz.data.prepare` with seed ``s`` (stratified), and its
# 5 folds are shuffled with the same seed.  A ``mu`` above the largest first moment of the
# margin that the votes reach on a training fold has no solution: ``fit`` raises, and
# ``error_score=np.nan`` makes that grid point lose the selection instead of stopping it.
# Every failed fit is checked to be of that kind.


def failure_kinds(caught):
    """The exception lines of the fits that failed in a grid search (from its warnings),
    cut to the exception's name and whether it says that ``mu`` is above its limit."""
    kinds = set()
    for w in caught:
        if issubclass(w.category, FitFailedWarning):
            for line in re.findall(r"^[\w.]+Error: .*$", str(w.message), re.M):
                name = line.split(":")[0].rsplit(".", 1)[-1]
                kinds.add(name + (" (mu above its upper limit)"
                                  if "above its upper limit" in line else ""))
    return kinds


rows, failures, failed_kinds = [], {}, set()
start = time.perf_counter()
for name in PAPER:
    ds = load_dataset(name)
    for split in range(SPLITS):
        data = prepare(ds, train_ratio=min(0.5, 500 / ds.m), seed=split, normalize=True)
        folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=split)
        for algorithm, (estimator, param, grid) in MODELS.items():
            search = GridSearchCV(estimator, {param: grid}, cv=folds, n_jobs=N_JOBS,
                                  error_score=np.nan)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                search.fit(data.X_train, data.y_train)
            failed_kinds |= failure_kinds(caught)
            failed = np.isnan(search.cv_results_["mean_test_score"])
            failures[name, algorithm] = failures.get((name, algorithm), 0) + int(failed.sum())
            rows.append({"data set": name, "algorithm": algorithm, "split": split,
                         "test risk": 1 - search.score(data.X_test, data.y_test),
                         "chosen": search.best_params_[param],
                         "capped": search.best_estimator_.capped_,
                         "m_train": data.y_train.size, "m_test": data.y_test.size})
seconds = time.perf_counter() - start
results = pd.DataFrame(rows)
print(f"{len(results)} grid searches in {seconds:.0f} s; training/test sizes:",
      ", ".join(f"{n} {g.m_train.iloc[0]}/{g.m_test.iloc[0]}"
                for n, g in results.groupby("data set", sort=False)))

# %%
# The table
# ---------
# ``cbviz`` is the mean ± standard deviation (ddof=1) of the test risk over the 5 splits,
# ``difference`` is cbviz's mean minus the paper's value, and ``chosen`` lists the
# cross-validated ``mu`` (CqBoost, MinCq) or number of rounds T (AdaBoost) of each split.


def signed(x):
    """``x`` with a sign and 3 decimals, never ``-0.000``."""
    return f"{round(x, 3) + 0.0:+.3f}"


table = []
for (name, algorithm), group in results.groupby(["data set", "algorithm"], sort=False):
    risk = group["test risk"]
    chosen = ", ".join(f"{v:.2g}" if algorithm != "AdaBoost" else f"{v:.0f}"
                       for v in group["chosen"])
    table.append({"data set": name, "algorithm": algorithm,
                  "paper": f"{PAPER[name][algorithm]:.3f}",
                  "cbviz (5 splits)": f"{risk.mean():.3f} ± {risk.std():.3f}",
                  "difference": signed(risk.mean() - PAPER[name][algorithm]),
                  "chosen": ("mu " if algorithm != "AdaBoost" else "T ") + chosen})
table = pd.DataFrame(table)
print(table.to_string(index=False))

# %%
# What differs from the paper's protocol
# --------------------------------------
print(f"- mu: {len(MU_GRID)} values from 10^-2 to 10^-0.5 (the paper: 15): "
      + ", ".join(f"{v:.3g}" for v in MU_GRID))
print(f"- AdaBoost's T: {', '.join(map(str, T_GRID))}, the first 3 of the paper's 15 values "
      "from 10^2 to 10^6")
print("- splits stratified by class (the paper: random); pools refitted on each fold")
print("- (mu, split) pairs left out of the selection, a fold having no solution at that mu:")
for (name, algorithm), n in failures.items():
    if algorithm != "AdaBoost":
        print(f"    {name:<10} {algorithm:<8} {n} of {SPLITS * len(MU_GRID)}")
print("- kinds of failed fits:", ", ".join(sorted(failed_kinds)) or "none")
print("- runs stopped by a cap instead of the paper's rule:",
      int(results["capped"].sum()))

# %%
# What matches and what differs
# -----------------------------
# On heart and pima, CqBoost's and MinCq's risks are within 0.015 of the paper's, less than
# one standard deviation of the 5 splits (the paper prints no deviation).  AdaBoost's are
# 0.02 to 0.03 lower than the paper's; cross-validation chose T = 100, the smallest value of
# both grids, in most splits.
#
# On ionosphere all three are higher than the paper's, by 0.03 to 0.05, about three standard
# deviations.  The data differ there: the paper's MinCq vote has 680 voters (the "Cols."
# column of Table 1), 20 stumps on each of 34 attributes, so its pool held 20 stumps on UCI's
# second attribute, which is 0 on every row and which this copy leaves out.  A stump on an
# attribute that never varies is a constant voter, +1 or -1 on every example: a bias term
# that the pools here do not have.  ``StumpPool(constant=True)`` adds one pair.  Run
# separately with this protocol on ionosphere, it lowers CqBoost's and AdaBoost's risks to
# about 0.11, within about one standard deviation of the paper's, and barely moves MinCq's,
# whose quasi-uniform program gives each voter a weight of at most 1/n (the paper's pool had
# 10 constant pairs, this one has 1).
#
# The figure draws the paper's value (diamond) beside cbviz's mean and standard deviation.
labels = [f"{n}<br>{a}" for n, a in zip(table["data set"], table["algorithm"])]
summary = results.groupby(["data set", "algorithm"], sort=False)["test risk"]
fig = go.Figure([
    go.Scatter(x=labels, y=summary.mean().to_numpy(), mode="markers", name="cbviz (5 splits)",
               marker=dict(color=BLUE, size=10),
               error_y=dict(type="data", array=summary.std().to_numpy(), color=BLUE)),
    go.Scatter(x=labels, y=[PAPER[n][a] for n, a in zip(table["data set"], table["algorithm"])],
               mode="markers", name="paper (Table 1)",
               marker=dict(color=ORANGE, size=11, symbol="diamond")),
])
fig.update_layout(title="Test risk: the CqBoost paper's Table 1 and cbviz",
                  yaxis_title="test risk", template="plotly_white",
                  xaxis=dict(showgrid=False), legend=dict(orientation="h", y=-0.25))
fig.show()
