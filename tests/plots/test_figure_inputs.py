"""Figure builders take what a user holds: run.history, an estimator's history_, or a frame."""
import numpy as np
import pandas as pd
from helpers import check_valid

from cbviz.algorithms import CBBoost
from cbviz.data import make_toy, prepare
from cbviz.estimators import CBBoostClassifier
from cbviz.plots import (alpha_figure, bounds_figure, compare_figure, error_figure,
                         history_frame, kl_figure, mincq_on_voters_figure, series_figure)
from cbviz.voters import StumpPool


def _run():
    split = prepare(make_toy("moons", 120, 0.2, 0), 0.7, 0)
    pool = StumpPool(n_thresholds=5).fit(split.X_train)
    return CBBoost(max_iter=6).start(pool.operator(split.X_train), split.y_train,
                                     describe=pool.describe).run(), pool


def _traces(fig):
    return [(t.name, np.asarray(t.y, dtype=float).round(12).tolist()) for t in fig.data]


def test_history_frame_of_records_is_to_frame():
    run, _ = _run()
    pd.testing.assert_frame_equal(history_frame(run.history), run.to_frame())
    frame = run.to_frame()
    assert history_frame(frame) is frame and history_frame(None) is None


def test_every_history_figure_is_the_same_from_records_and_from_the_frame():
    run, pool = _run()
    frame = run.to_frame()
    for build in (bounds_figure, error_figure, alpha_figure,
                  lambda h: kl_figure(h, pool.n_voters_),
                  lambda h: series_figure(h, {"objective": "C"}, title="t", y_title="y"),
                  lambda h: mincq_on_voters_figure(h, h),
                  lambda h: compare_figure({"a": h}, "c_bound", title="t", y_title="y")):
        assert _traces(build(run.history)) == _traces(build(frame))
        check_valid(build(frame))


def test_an_estimators_history_draws_directly():
    X, y = make_toy("moons", 120, 0.2, 0).X, make_toy("moons", 120, 0.2, 0).y
    clf = CBBoostClassifier(pool=StumpPool(n_thresholds=5), max_iter=5).fit(X, y)
    fig = bounds_figure(clf.history_)
    c_bound = next(t for t in fig.data if t.name == "empirical C-bound")
    assert np.allclose(c_bound.y, [r.c_bound for r in clf.history_])
