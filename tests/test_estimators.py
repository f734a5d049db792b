"""The scikit-learn estimator: the peer suite, pipelines, grid search, staged replay."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from cbviz.algorithms import MuLimitError, ParameterError
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
         CqBoostClassifier(pool=StumpPool(5)),   # to Algorithm 1's rule (the default)
         QuadBoostClassifier(max_iter=20, regularization="l1"),
         KLBoostClassifier(pool=StumpPool(5)),   # to convergence (the default)
         VEBBoostClassifier(max_iter=20),
         AdaBoostClassifier(max_iter=20),
         # trees fitted each round (issue 32)
         AdaBoostClassifier(max_iter=15, weak_learner="tree", max_depth=3),
         VEBBoostClassifier(max_iter=15, weak_learner="tree", max_depth=1),
         CBBoostClassifier(max_iter=15, weak_learner="tree", direction="gradient",
                           eligible="all")]


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


def test_class_labels_in_messages_are_plain_values():
    X, _ = make_moons(60, noise=0.2, random_state=0)
    with pytest.raises(ValueError) as caught:
        CBBoostClassifier().fit(X, np.arange(60) % 3)
    assert "y has 3 classes (0, 1, 2). Pick two classes" in str(caught.value)
    with pytest.raises(ValueError) as caught:
        CBBoostClassifier().fit(X, np.array(["a", "b", "c"])[np.arange(60) % 3])
    assert "y has 3 classes ('a', 'b', 'c')." in str(caught.value)
    with pytest.raises(ValueError) as caught:
        CBBoostClassifier().fit(X, (np.arange(60) % 9).astype(float))
    assert "9 classes (0.0, 1.0, 2.0, 3.0, 4.0, 5.0 and 3 more)" in str(caught.value)
    with pytest.raises(ValueError) as caught:
        CBBoostClassifier().fit(X, np.full(60, 7))
    assert str(caught.value).startswith("y has only one class (7);")
    assert "np." not in str(caught.value)


def test_cqboost_by_default_runs_past_the_old_cap_to_the_epsilon_rule(cancer):
    X, y = cancer
    clf = CqBoostClassifier().fit(X, y)
    assert clf.n_iter_ > 100 and not clf.capped_   # 100 columns was the old default's cap
    assert clf.stop_reason_.startswith("no column violates the dual constraint by more than "
                                       "epsilon")
    capped = CqBoostClassifier(max_iter=20).fit(X, y)
    assert capped.n_iter_ == 20 and capped.capped_
    assert capped.stop_reason_.startswith("max_iter reached (20) before the paper's stopping "
                                          "rule: a cap cut the run short")
    assert not CBBoostClassifier(max_iter=20).fit(X, y).capped_   # T is CB-Boost's rule


def test_mu_above_the_data_limit_is_refused_with_the_numbers(cancer):
    X, y = cancer
    with pytest.raises(MuLimitError) as caught:
        CqBoostClassifier(mu=0.95).fit(X, y)
    err = caught.value
    assert isinstance(err, ValueError) and err.mu == 0.95 and 0 < err.limit < 0.95
    assert f"above its upper limit on these data, {err.limit:.10g}" in str(err)
    assert "best single voter" in str(err)


@pytest.mark.parametrize("estimator", [CBBoostClassifier(max_iter=15), MinCqClassifier(),
                                       AdaBoostClassifier(max_iter=15)],
                         ids=lambda e: type(e).__name__)
def test_predict_proba_is_sklearn_adaboosts_score(estimator, cancer):
    X, y = cancer
    names = np.where(y == 1, "benign", "malignant")   # classes_[1] = "malignant"
    clf = estimator.fit(X, names)
    f = clf.decision_function(X)
    p = clf.predict_proba(X)
    assert p.shape == (y.size, 2)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.array_equal(clf.classes_[p.argmax(axis=1)], clf.predict(X))
    # scikit-learn's AdaBoostClassifier (two classes): softmax of (-f/2, f/2), column 1 for
    # classes_[1], the side a positive vote predicts
    e = np.exp(np.column_stack([-f, f]) / 2)
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-12)
    assert np.all((p > 0.26) & (p < 0.74))           # f in [-1, 1]: a score, not calibrated
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(p))
    staged = list(clf.staged_predict_proba(X))
    assert len(staged) == clf.n_iter_
    np.testing.assert_allclose(staged[-1], p, rtol=0, atol=1e-12)


def test_predict_proba_ties_and_round_off_follow_predict():
    from cbviz._vote_classifier import vote_proba
    f = np.array([0.0, 1e-18, -1e-18, 3e-17, 0.5])
    p = vote_proba(f)
    assert np.array_equal(p.argmax(axis=1), (f > 0).astype(int))   # predict's rule
    assert p[0, 0] == p[0, 1] == 0.5 and np.all(p[:, 1] >= 0.5 - 1e-16)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=0, atol=1e-16)


def test_scikit_learn_tooling_uses_predict_proba(cancer):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import cross_val_score
    X, y = cancer
    clf = CBBoostClassifier(pool=StumpPool(5), max_iter=20)
    auc = cross_val_score(clf, X, y, cv=3, scoring="roc_auc")
    assert auc.min() > 0.9
    loss = cross_val_score(clf, X, y, cv=3, scoring="neg_log_loss")   # needs predict_proba
    calibrated = CalibratedClassifierCV(clf, cv=3).fit(X, y)
    p = calibrated.predict_proba(X)
    assert p.max() > 0.9 and np.all(np.isfinite(loss))   # calibration spreads the scores


def test_trees_fitted_each_round_are_the_models_voters(cancer):
    """weak_learner="tree": pool_ holds the run's trees (and, pickled, not the training
    inputs); a grid search can tune the depth; a pool beside it, or another learner, is
    refused with the reason."""
    import pickle
    X, y = cancer
    clf = AdaBoostClassifier(max_iter=10, weak_learner="tree", max_depth=2).fit(X, y)
    assert len(clf.pool_.trees_) == 10 and clf.pool_.max_depth == 2
    assert all("?" in clf.pool_.describe(k) or " " in clf.pool_.describe(k) for k in range(10))
    F = clf.pool_.transform(X) @ clf.weights_[:10] / clf.weights_.sum()
    np.testing.assert_allclose(clf.decision_function(X), F, atol=1e-12)
    assert np.isnan(clf.history_[-1].pac_bound) and np.isnan(clf.history_[-1].kl)
    again = pickle.loads(pickle.dumps(clf))
    assert again.pool_.X_fit_ is None
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    search = GridSearchCV(VEBBoostClassifier(max_iter=5, weak_learner="tree"),
                          {"max_depth": [1, 3]}, cv=3).fit(X, y)
    assert search.best_params_["max_depth"] in (1, 3)
    with pytest.raises(ValueError, match="leave pool=None"):
        AdaBoostClassifier(pool=StumpPool(3), weak_learner="tree").fit(X, y)
    with pytest.raises(ParameterError, match="'weak_learner' parameter of AdaBoostClassifier must be one of"):
        AdaBoostClassifier(weak_learner="forest").fit(X, y)
    with pytest.raises(ParameterError, match="gradient rule"):
        CBBoostClassifier(weak_learner="tree").fit(X, y)
