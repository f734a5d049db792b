"""The scikit-learn estimator: the peer suite, pipelines, grid search, staged replay."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from cbviz.algorithms import ParameterError
from cbviz.estimators import CBBoostClassifier
from cbviz.voters import HyperplanePool, RBFPool, StumpPool


@parametrize_with_checks([CBBoostClassifier(max_iter=20),
                          CBBoostClassifier(pool=HyperplanePool(20), direction="gradient"),
                          CBBoostClassifier(pool=RBFPool(20), max_iter=15)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


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
    assert len(staged) == clf.n_iter_ == len(clf.run_.history)
    np.testing.assert_allclose(staged[-1], clf.decision_function(X), atol=1e-12)
    for rec, f in zip(clf.run_.history, staged):
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
    first, last = clf.run_.history[0], clf.run_.history[-1]
    assert 1 - clf.score(X, y) == pytest.approx(last.train_error, abs=1e-12)
    assert last.train_error <= last.c_bound < first.c_bound  # Corollary 1, and progress
    with pytest.raises(ParameterError, match="direction"):
        CBBoostClassifier(direction="sideways").fit(X, y)
    with pytest.raises(ParameterError, match="max_iter"):
        CBBoostClassifier(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="Only binary"):
        CBBoostClassifier().fit(X, np.arange(300) % 3)
