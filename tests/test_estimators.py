"""The scikit-learn estimator: the peer suite, pipelines, grid search, staged replay."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from cbviz.algorithms import ParameterError
from cbviz.estimators import (AdaBoostClassifier, CBBoostClassifier, CqBoostClassifier,
                              KLBoostClassifier, MinCqClassifier, QuadBoostClassifier,
                              VEBBoostClassifier)
from cbviz.voters import HyperplanePool, RBFPool, StumpPool

# one of each family, small enough for the peer suite (about 40 checks each)
PEERS = [CBBoostClassifier(max_iter=20),
         CBBoostClassifier(pool=HyperplanePool(20), direction="gradient", eligible="all"),
         CBBoostClassifier(pool=RBFPool(20), max_iter=15, reuse_voters=True),
         MinCqClassifier(pool=StumpPool(5), mu=0.05),
         MinCqClassifier(pool=StumpPool(5), form="simplex"),
         CqBoostClassifier(pool=StumpPool(5), max_iter=10),
         QuadBoostClassifier(max_iter=20, regularization="l1"),
         KLBoostClassifier(pool=StumpPool(5), max_iter=5),
         VEBBoostClassifier(max_iter=20),
         AdaBoostClassifier(max_iter=20)]


@parametrize_with_checks(PEERS)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", PEERS[3:], ids=lambda e: type(e).__name__)
def test_every_family_in_a_pipeline_with_staged_replay(estimator, cancer):
    X, y = cancer
    pipe = make_pipeline(StandardScaler(), estimator).fit(X, y)
    clf = pipe[-1]
    assert pipe.score(X, y) > 0.85
    staged = list(clf.staged_decision_function(pipe[0].transform(X)))
    assert len(staged) == clf.n_iter_ >= 1
    np.testing.assert_allclose(staged[-1], clf.decision_function(pipe[0].transform(X)),
                               atol=1e-12)
    assert clf.stop_reason_


@pytest.mark.parametrize("estimator, grid", [
    (MinCqClassifier(pool=StumpPool(5)), {"mu": [0.01, 0.1]}),
    (CqBoostClassifier(pool=StumpPool(5), max_iter=15), {"mu": [0.01, 0.1]}),
    (QuadBoostClassifier(max_iter=30), {"regularization": [None, "l1", "l2"]}),
    (KLBoostClassifier(pool=StumpPool(5), max_iter=5), {"C": [0.1, 10.0]}),
    (VEBBoostClassifier(max_iter=30), {"lam": [0.0, 1.0]}),
    (AdaBoostClassifier(), {"max_iter": [5, 30]}),
], ids=lambda v: type(v).__name__ if not isinstance(v, dict) else "")
def test_grid_search_over_each_family(estimator, grid, cancer):
    X, y = cancer
    search = GridSearchCV(estimator, grid, cv=3).fit(X, y)
    assert search.best_score_ > 0.85
    assert set(search.best_params_) == set(grid)


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_string_labels_map_back_and_forth(cancer):
    X, y = cancer
    names = np.where(y == 1, "benign", "malignant")
    clf = CBBoostClassifier(max_iter=30).fit(X, names)
    assert list(clf.classes_) == ["benign", "malignant"]
    assert set(clf.predict(X)) <= {"benign", "malignant"}
    # classes_[1] ("malignant") is the +1 side of the vote
    f = clf.decision_function(X)
    assert np.array_equal(clf.predict(X) == "malignant", f > 0)
    assert clf.score(X, names) > 0.9


def test_staged_replay_matches_the_run(cancer):
    X, y = cancer
    clf = CBBoostClassifier(max_iter=25).fit(X, y)
    staged = list(clf.staged_decision_function(X))
    assert len(staged) == clf.n_iter_ == len(clf.history_)
    np.testing.assert_allclose(staged[-1], clf.decision_function(X), atol=1e-12)
    for rec, f in zip(clf.history_, staged):
        err = np.mean(np.where(f > 0, 1, 0) != y)
        assert err == pytest.approx(rec.train_error, abs=1e-12)
    for pred, f in zip(clf.staged_predict(X), staged):
        assert np.array_equal(pred, clf.classes_[(f > 0).astype(int)])


def test_pipeline_and_grid_search(cancer):
    X, y = cancer
    pipe = make_pipeline(StandardScaler(), CBBoostClassifier(pool=StumpPool(5)))
    grid = GridSearchCV(pipe, {"cbboostclassifier__max_iter": [5, 40],
                               "cbboostclassifier__direction": ["exhaustive", "gradient"]}, cv=3)
    grid.fit(X, y)
    assert grid.best_score_ > 0.9
    assert grid.best_params_["cbboostclassifier__max_iter"] in (5, 40)


def test_two_d_toy_accuracy_and_bad_parameters():
    X, y = make_moons(300, noise=0.2, random_state=0)
    clf = CBBoostClassifier(max_iter=60).fit(X, y)
    first, last = clf.history_[0], clf.history_[-1]
    assert 1 - clf.score(X, y) == pytest.approx(last.train_error, abs=1e-12)
    assert last.train_error <= last.c_bound < first.c_bound  # Corollary 1, and progress
    with pytest.raises(ParameterError, match="direction"):
        CBBoostClassifier(direction="sideways").fit(X, y)
    with pytest.raises(ParameterError, match="max_iter"):
        CBBoostClassifier(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="Only binary"):
        CBBoostClassifier().fit(X, np.arange(300) % 3)


def test_a_pickled_model_holds_the_model_not_the_training_data(cancer):
    import pickle
    X, y = cancer
    clf = CBBoostClassifier(max_iter=20).fit(X, y)
    blob = pickle.dumps(clf)
    assert len(blob) < 200_000, len(blob)  # 20 voters, a 600-stump pool: no copy of X
    assert X.nbytes > 100_000
    again = pickle.loads(blob)
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    assert [list(f) for f in again.staged_decision_function(X[:5])] == \
        [list(f) for f in clf.staged_decision_function(X[:5])]
