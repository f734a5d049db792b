"""Trees fitted to example weights (:class:`cbviz.voters.TreePool`): the weighted error they
reach, their outputs through every operator, their names, pickles and refusals."""
import pickle

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from cbviz import data
from cbviz.voters import StumpPool, TreePool


def _data(kind="moons", m=240, seed=0):
    ds = data.make_toy(kind, m, 0.3, seed)
    return ds.X, ds.y


def _weights(m, seed):
    w = np.random.default_rng(seed).exponential(size=m)
    return w / w.sum()


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
@pytest.mark.parametrize("kind", ["moons", "xor"])
def test_a_trees_weighted_error_is_that_of_its_predictions(kind, depth):
    X, y = _data(kind)
    pool = TreePool(depth, max_trees=10).fit(X)
    op = pool.operator(X)
    for seed in range(3):
        w = _weights(y.size, seed)
        k = op.fit_voter(y, w)
        h = op.column(k)
        assert set(np.unique(h)) <= {-1.0, 1.0}
        error = float(w @ (h != y))                      # recomputed from the predictions
        edge = float(w @ (y * h))
        assert error == pytest.approx((1 - edge) / 2, abs=1e-12)
        if depth == 1:   # the exact search: no stump of every midpoint does better
            H = StumpPool("all").fit(X).transform(X)
            assert error <= float(np.min(w @ (H != y[:, None]))) + 1e-12
        else:            # scikit-learn's CART on the same weights predicts the same
            cart = DecisionTreeClassifier(max_depth=depth, random_state=0)
            cart.fit(X, y, sample_weight=w)
            np.testing.assert_array_equal(cart.predict(X), h)


def test_every_operator_sees_the_same_trees():
    X, y = _data()
    Xt, _ = _data(seed=1)
    pool = TreePool(2, max_trees=6).fit(X)
    train, test = pool.operator(X), pool.operator(Xt)
    assert train.trains and not test.trains and train.shape == (240, 6)
    for seed in range(4):
        train.fit_voter(y, _weights(y.size, seed))
    expected = np.column_stack([t.predict(Xt) for t in pool.trees_])
    np.testing.assert_array_equal(test.columns(np.arange(4)), expected)
    np.testing.assert_array_equal(pool.transform(Xt), expected)
    a = np.array([0.5, 0.0, 2.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(test.matvec(a), expected @ a[:4])
    v = np.random.default_rng(0).standard_normal(Xt.shape[0])
    np.testing.assert_allclose(test.rmatvec(v), np.r_[expected.T @ v, 0.0, 0.0])
    assert np.all(test.column(5) == 0)                  # not fitted yet: no vote
    with pytest.raises(ValueError, match="only the operator of the training inputs"):
        test.fit_voter(y, _weights(y.size, 0))


def test_a_tree_is_named_by_its_splits():
    X, y = _data()
    pool = TreePool(2).fit(X, feature_names=["a", "b"])
    k = pool.operator(X).fit_voter(y, np.full(y.size, 1 / y.size))
    text = pool.describe(k)
    tree = pool.trees_[k].tree.tree_
    assert text.startswith(f"{'ab'[tree.feature[0]]} <= {tree.threshold[0]:.4g} ? ")
    assert 1 <= text.count("?") <= int(np.sum(tree.children_left >= 0))   # alike sides merged
    assert "+1 : +1" not in text and "-1 : -1" not in text
    stumps = TreePool(1).fit(X, feature_names=["a", "b"])
    k = stumps.operator(X).fit_voter(y, np.full(y.size, 1 / y.size))
    assert stumps.describe(k) in {StumpPool("all").fit(X, feature_names=["a", "b"]).describe(j)
                                  for j in range(StumpPool("all").fit(X).n_voters_)}


def test_a_pickled_pool_keeps_its_trees_not_the_inputs():
    X, y = _data()
    pool = TreePool(3).fit(X)
    pool.operator(X).fit_voter(y, np.full(y.size, 1 / y.size))
    again = pickle.loads(pickle.dumps(pool))
    assert again.X_fit_ is None and len(again.trees_) == 1
    np.testing.assert_array_equal(again.transform(X), pool.transform(X))
    with pytest.raises(ValueError, match="fit it again"):
        again.fit_tree(y, np.full(y.size, 1 / y.size))


@pytest.mark.parametrize("params, message", [
    ({"max_depth": 0}, r"'max_depth' parameter of TreePool must be an int in \[1, 10\]"),
    ({"max_depth": 11}, r"'max_depth' parameter of TreePool must be an int in \[1, 10\]"),
    ({"max_depth": 2.5}, r"'max_depth' parameter of TreePool must be an int in \[1, 10\]"),
    ({"max_trees": 0}, r"'max_trees' parameter of TreePool must be an int in \[1, inf\)"),
    ({"random_state": -1}, "random_state must be None or an integer"),
])
def test_bad_parameters_are_refused(params, message):
    X, _ = _data()
    with pytest.raises(ValueError, match=message):
        TreePool(**params).fit(X)


def test_a_full_pool_refuses_another_tree():
    X, y = _data()
    pool = TreePool(1, max_trees=1).fit(X)
    pool.fit_tree(y, np.full(y.size, 1 / y.size))
    with pytest.raises(ValueError, match="max_trees=1"):
        pool.fit_tree(y, np.full(y.size, 1 / y.size))


def test_pickling_leaves_the_pool_itself_whole():
    X, y = _data()
    pool = TreePool(2).fit(X)
    pickle.dumps(pool)
    assert pool.X_fit_ is X or np.array_equal(pool.X_fit_, X)
    assert pool.operator(X).trains
