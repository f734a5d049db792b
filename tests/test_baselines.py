"""Checks of the scikit-learn baselines (cbviz.baselines).

Reference values are recomputed outside the module:

* AdaBoost: the fitted model's ``staged_predict``, and the vote from its definition,
  ``sign(sum_{k <= t} w_k h_k(x))`` with the stumps' own predictions (ties to -1,
  scikit-learn's ``classes_[0]``);
* gradient boosting: the fitted model's ``staged_predict``; its ``objective`` against the
  log-loss of ``staged_predict_proba`` (binomial deviance = 2 x mean log-loss);
* random forest / bagging: the ``predict`` of a copy of the fitted ensemble cut to its first
  t members (scikit-learn's own rule on t members), for every t;
* final points: ``estimator.predict``.

Errors and predictions are compared exactly (they are counts of the same label arrays);
the objective with rtol 1e-12 (the same log-loss summed in two orders); the ``seconds``
column sums to ``fit_seconds`` with rtol 1e-12.  Every warning fails a test (the installed
scikit-learn must not emit deprecation warnings through these calls).  Data and seeds are
fixed.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_moons
from sklearn.ensemble import AdaBoostClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

from cbviz.algorithms.base import ParameterError
from cbviz.baselines import BASELINES, _mean_proba_stages, fit_baseline

pytestmark = pytest.mark.filterwarnings("error")

COLUMNS = ["iteration", "n_voters", "train_error", "test_error", "seconds"]
EXTRA = {"adaboost": ["alpha", "weighted_error"], "random_forest": [], "bagging": [],
         "gradient_boosting": ["objective"]}
SMALL = {"adaboost": {"n_estimators": 15}, "random_forest": {"n_estimators": 8},
         "bagging": {"n_estimators": 8, "max_depth": 3},
         "gradient_boosting": {"n_estimators": 10, "max_depth": 2}}


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y == 1, 1, -1)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(240, noise=0.3, random_state=1)
    return train_test_split(X, 2 * y - 1, test_size=0.5, random_state=0)


@pytest.fixture(scope="module")
def fits(cancer):
    Xa, Xb, ya, yb = cancer
    return {name: fit_baseline(name, Xa, ya, Xb, yb, random_state=0, **SMALL[name])
            for name in BASELINES}


def err(pred, y):
    return np.mean(np.asarray(pred) != y)


def without_seconds(frame):
    return frame.drop(columns="seconds")


# --------------------------------------------------------------------------- catalogue

@pytest.mark.parametrize("name", sorted(BASELINES))
def test_spec_defaults_in_range_and_built_estimator(name):
    spec = BASELINES[name]
    assert spec.resolve({}) == spec.defaults
    assert all(p.description and p.name in spec.defaults for p in spec.params)
    est = spec.build(spec.defaults, 0, 100)
    assert type(est) is spec.estimator_class
    got = est.get_params()
    # bagging: max_depth lives on its trees, max_samples becomes a count (tested below)
    shared = set(spec.defaults) & set(got) - {"max_samples"}
    assert shared and all(got[key] == spec.defaults[key] for key in shared)
    assert got["random_state"] == 0


def test_adaboost_runs_on_stumps_and_bagging_on_limited_trees(fits):
    ada = fits["adaboost"].estimator
    assert isinstance(ada, AdaBoostClassifier)
    assert all(stump.get_depth() == 1 for stump in ada.estimators_)
    assert all(tree.get_depth() <= 3 for tree in fits["bagging"].estimator.estimators_)


# --------------------------------------------------------------------------- staged curves

@pytest.mark.parametrize("name", sorted(BASELINES))
def test_columns_final_point_and_seconds(name, fits, cancer):
    _, Xb, _, yb = cancer
    res = fits[name]
    frame, est = res.frame, res.estimator
    assert list(frame.columns) == COLUMNS + EXTRA[name]
    T = SMALL[name]["n_estimators"]
    assert res.staged and len(frame) == T
    assert frame["iteration"].tolist() == list(range(1, T + 1))
    assert res.test_error == err(est.predict(Xb), yb) == frame["test_error"].iloc[-1]
    assert res.train_error == frame["train_error"].iloc[-1]
    assert res.stop_reason == f"n_estimators reached ({T})"
    seconds = frame["seconds"].to_numpy()
    assert np.all(seconds == seconds[0])
    np.testing.assert_allclose(seconds.sum(), res.fit_seconds, rtol=1e-12)
    assert res.fit_seconds > 0


@pytest.mark.parametrize("name", ["adaboost", "gradient_boosting"])
def test_boosting_errors_match_staged_predict(name, fits, cancer):
    Xa, Xb, ya, yb = cancer
    res = fits[name]
    est = res.estimator
    for X, y, col in ((Xa, ya, "train_error"), (Xb, yb, "test_error")):
        want = [err(p, y) for p in est.staged_predict(X)]
        assert res.frame[col].tolist() == want


def test_adaboost_vote_from_definition(fits, cancer):
    """The staged vote is sign(sum_{k<=t} w_k h_k): recomputed from the stumps themselves."""
    Xa, Xb, ya, yb = cancer
    res = fits["adaboost"]
    est = res.estimator
    w = est.estimator_weights_[:len(est.estimators_)]
    for X, y, col in ((Xa, ya, "train_error"), (Xb, yb, "test_error")):
        H = np.array([stump.predict(X) for stump in est.estimators_])  # labels -1 / +1
        F = np.cumsum(w[:, None] * H, axis=0)
        assert res.frame[col].tolist() == [err(np.where(f > 0, 1, -1), y) for f in F]
    np.testing.assert_array_equal(res.frame["alpha"], w)
    np.testing.assert_array_equal(res.frame["weighted_error"],
                                  est.estimator_errors_[:len(est.estimators_)])


def test_gradient_boosting_objective_is_the_deviance(fits, cancer):
    Xa, _, ya, _ = cancer
    res = fits["gradient_boosting"]
    deviance = [2 * log_loss(ya, p, labels=res.estimator.classes_)
                for p in res.estimator.staged_predict_proba(Xa)]
    np.testing.assert_allclose(res.frame["objective"], deviance, rtol=1e-12)
    assert np.all(np.diff(res.frame["objective"]) < 0)  # full-sample trees descend the loss


def truncated(est, t):
    """A copy of a fitted forest / bagging ensemble keeping its first t members."""
    sub = copy.copy(est)
    sub.estimators_ = est.estimators_[:t]
    sub.n_estimators = t
    if hasattr(est, "estimators_features_"):
        sub.estimators_features_ = est.estimators_features_[:t]
    return sub


@pytest.mark.parametrize("name", ["random_forest", "bagging"])
def test_mean_proba_stages_are_the_ensembles_of_the_first_t_members(name, fits, cancer):
    Xa, Xb, ya, yb = cancer
    res = fits[name]
    est = res.estimator
    for X, y, col in ((Xa, ya, "train_error"), (Xb, yb, "test_error")):
        stages = list(_mean_proba_stages(est, X))
        assert len(stages) == len(est.estimators_)
        for t, pred in enumerate(stages, start=1):
            np.testing.assert_array_equal(pred, truncated(est, t).predict(X))
        np.testing.assert_array_equal(stages[-1], est.predict(X))  # t = all: exactly predict
        assert res.frame[col].tolist() == [err(p, y) for p in stages]


def test_bagging_fraction_is_sklearns_draw_count(moons):
    """max_samples is a fraction; the estimator gets the count its float form would draw."""
    Xa, _, ya, _ = moons
    res = fit_baseline("bagging", Xa, ya, n_estimators=3, max_samples=0.03)
    assert res.estimator.max_samples == int(0.03 * len(ya)) == 3


# --------------------------------------------------------------------------- n_voters

@pytest.mark.parametrize("name", sorted(BASELINES))
def test_n_voters_counts_members_with_nonzero_weight(name, fits):
    res = fits[name]
    est = res.estimator
    if name == "adaboost":
        weights = est.estimator_weights_[:len(est.estimators_)]
        want = [np.count_nonzero(weights[:t]) for t in range(1, len(weights) + 1)]
    else:  # every tree has weight 1/t in the mean
        want = list(range(1, len(est.estimators_) + 1))
    assert res.frame["n_voters"].tolist() == want


def test_adaboost_early_stop_on_a_perfect_stump(moons):
    Xa, Xb, ya, yb = moons
    X = np.column_stack([Xa, ya])  # the label itself is a feature: one stump is perfect
    res = fit_baseline("adaboost", X, ya, np.column_stack([Xb, yb]), yb, n_estimators=10)
    assert len(res.frame) == 1 and res.frame["n_voters"].tolist() == [1]
    assert res.train_error == 0.0 and res.test_error == 0.0
    assert res.frame["alpha"].tolist() == [1.0] and res.frame["weighted_error"].tolist() == [0.0]
    assert "perfectly" in res.stop_reason and "1 of 10" in res.stop_reason


# --------------------------------------------------------------------------- options, labels

@pytest.mark.parametrize("name", sorted(BASELINES))
def test_unstaged_is_the_last_staged_row(name, moons):
    Xa, Xb, ya, yb = moons
    staged = fit_baseline(name, Xa, ya, Xb, yb, random_state=2, **SMALL[name])
    final = fit_baseline(name, Xa, ya, Xb, yb, random_state=2, staged=False, **SMALL[name])
    assert not final.staged and len(final.frame) == 1
    assert (without_seconds(final.frame).iloc[0].to_dict()
            == without_seconds(staged.frame).iloc[-1].to_dict())
    np.testing.assert_allclose(final.frame["seconds"].iloc[0] * SMALL[name]["n_estimators"],
                               final.fit_seconds, rtol=1e-12)


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_any_two_labels_same_errors(name, moons):
    """-1/+1, 0/1 and strings in the same order give the same records."""
    Xa, Xb, ya, yb = moons
    ref = fit_baseline(name, Xa, ya, Xb, yb, **SMALL[name])
    for a, b in ((0, 1), ("no", "yes")):
        lab = np.array([a, b])
        res = fit_baseline(name, Xa, lab[(ya + 1) // 2], Xb, lab[(yb + 1) // 2], **SMALL[name])
        assert without_seconds(res.frame).equals(without_seconds(ref.frame))
        assert set(res.estimator.predict(Xb)) <= {a, b}


def test_no_test_data_gives_nan_test_error(moons):
    Xa, _, ya, _ = moons
    res = fit_baseline("random_forest", Xa, ya, n_estimators=4)
    assert res.test_error is None and res.frame["test_error"].isna().all()


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_fixed_random_state_reproduces(name, moons):
    Xa, Xb, ya, yb = moons
    runs = [fit_baseline(name, Xa, ya, Xb, yb, random_state=7, **SMALL[name]) for _ in range(2)]
    assert without_seconds(runs[0].frame).equals(without_seconds(runs[1].frame))
    np.testing.assert_array_equal(runs[0].estimator.predict_proba(Xb),
                                  runs[1].estimator.predict_proba(Xb))


def test_seed_reaches_the_forest(moons):
    Xa, Xb, ya, _ = moons
    p = [fit_baseline("random_forest", Xa, ya, n_estimators=4, random_state=s)
         .estimator.predict_proba(Xb) for s in (0, 1)]
    assert not np.array_equal(p[0], p[1])


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("name, params, match", [
    ("adaboost", {"n_estimators": 0},
     r"^The 'n_estimators' parameter of AdaBoost \(decision stumps\) must be an int in "
     r"\[1, 1000\]\. Got 0 instead\.$"),
    ("adaboost", {"n_estimators": 1001}, r"'n_estimators' .* an int in \[1, 1000\]\. Got 1001 "),
    ("adaboost", {"n_estimators": 2.0}, r"'n_estimators' .* an int in .* Got 2\.0 instead"),
    ("adaboost", {"n_estimators": True}, r"'n_estimators' .* an int in .* Got True instead"),
    ("adaboost", {"learning_rate": 0.0},
     r"^The 'learning_rate' parameter of AdaBoost \(decision stumps\) must be a float in "
     r"\(0, 10\]\. Got 0\.0 instead\.$"),
    ("adaboost", {"learning_rate": float("nan")}, r"learning_rate"),
    ("adaboost", {"learning_rate": "1"}, r"learning_rate"),
    ("adaboost", {"max_depth": 2}, r"AdaBoost .*no parameter 'max_depth'"),
    ("gradient_boosting", {"max_depth": None},
     r"^The 'max_depth' parameter of Gradient boosting \(log-loss trees\) must be an int in "
     r"\[1, 16\]\. Got None instead\.$"),
    ("gradient_boosting", {"subsample": 1.5}, r"'subsample' .* a float in \(0, 1\]\. Got 1\.5 "),
    ("random_forest", {"max_depth": 0}, r"'max_depth' .* an int in \[1, 64\] or None\. Got 0 "),
    ("random_forest", {"min_samples_leaf": -1}, r"min_samples_leaf"),
    ("bagging", {"max_samples": 0.0}, r"'max_samples' .* a float in \(0, 1\]\. Got 0\.0 "),
    ("svm", {}, r"unknown baseline 'svm'"),
])
def test_bad_parameters(name, params, match, moons):
    Xa, _, ya, _ = moons
    with pytest.raises(ParameterError, match=match):
        fit_baseline(name, Xa, ya, **params)


@pytest.mark.parametrize("seed", [-1, 1.5, 2**32, True])
def test_bad_random_state(seed, moons):
    Xa, _, ya, _ = moons
    with pytest.raises(ParameterError, match="random_state"):
        fit_baseline("adaboost", Xa, ya, random_state=seed)


def test_bad_data(moons):
    Xa, Xb, ya, yb = moons
    bad = [
        ({"y_train": np.ones_like(ya)}, r"1 class\(es\) \[1\]; .*exactly two"),
        ({"y_train": np.arange(ya.size) % 3}, r"3 class\(es\)"),
        ({"y_train": ya[:, None]}, r"y_train must be one-dimensional"),
        ({"y_train": ya[:-1]}, r"X_train, y_train"),
        ({"X_train": np.where(Xa > 2, np.nan, Xa)}, r"X_train, y_train: .*NaN"),
        ({"X_test": Xb}, r"both X_test and y_test"),
        ({"X_test": Xb[:, :1], "y_test": yb}, r"X_test has 1 features, X_train has 2"),
        ({"X_test": Xb, "y_test": np.where(yb > 0, 2, -1)}, r"y_test has labels \[2\]"),
    ]
    for change, match in bad:
        args = {"X_train": Xa, "y_train": ya, "X_test": None, "y_test": None} | change
        with pytest.raises(ParameterError, match=match):
            fit_baseline("adaboost", **args)


def test_adaboost_chance_level_first_stump_is_a_parameter_error():
    """Balanced labels and one constant feature: the first stump errs 1/2, sklearn refuses."""
    X = np.zeros((10, 1))
    y = np.repeat([-1, 1], 5)
    with pytest.raises(ParameterError, match="could not be fit: .*worse than random"):
        fit_baseline("adaboost", X, y)
