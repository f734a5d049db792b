"""
In a notebook: an estimator's history
=====================================

Every algorithm is also a scikit-learn classifier (:mod:`cbviz.estimators`): ``fit`` runs the
stepper to the end and keeps its records in ``history_``.  Every figure builder of
:mod:`cbviz.plots` takes that list as it is (or ``run.history``, or ``run.to_frame()``), so a
notebook needs no conversion.  In Jupyter, a figure left as the last expression of a cell is
drawn under it; ``fig.show()`` does the same anywhere.  This page's download links at the
bottom include a notebook of this script.
"""
from sklearn.model_selection import train_test_split

from cbviz.data import load_dataset
from cbviz.estimators import CBBoostClassifier
from cbviz.plots import error_figure, history_frame
from cbviz.voters import StumpPool

ds = load_dataset("ionosphere")
X_train, X_test, y_train, y_test = train_test_split(ds.X, ds.y, test_size=0.3, random_state=0,
                                                    stratify=ds.y)
clf = CBBoostClassifier(pool=StumpPool(n_thresholds=10), max_iter=40).fit(X_train, y_train)
print(f"{len(clf.history_)} records; test accuracy {clf.score(X_test, y_test):.3f}")

# %%
# ``history_`` holds the training errors; the test error per iteration comes from
# ``staged_predict``, which replays the vote after each iteration, as scikit-learn's AdaBoost
# does.  The frame the figure reads is :func:`cbviz.plots.history_frame` of the records with
# that column added.
frame = history_frame(clf.history_)
frame["test_error"] = [float((pred != y_test).mean()) for pred in clf.staged_predict(X_test)]
print(frame[["iteration", "train_error", "test_error"]].tail(3).round(4).to_string(index=False))

# %%
# What the figure shows: the training error of the vote after each iteration and, dashed, its
# test error.  Both end lower than where the first voter alone starts, and the test error
# ends above the training error (printed below).
print(f"train error {frame['train_error'].iloc[0]:.4f} -> {frame['train_error'].iloc[-1]:.4f}, "
      f"test error {frame['test_error'].iloc[0]:.4f} -> {frame['test_error'].iloc[-1]:.4f}")
fig = error_figure(frame)
fig.show()                                   # in Jupyter, `fig` alone at the end of the cell
