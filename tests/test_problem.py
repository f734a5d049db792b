"""The data-independent prior option: the pool sees only the prior part; bounds count the rest."""
import numpy as np
import pytest

from cbviz import bounds
from cbviz.algorithms import CBBoost
from cbviz.data import DataError
from cbviz.voters import StumpPool
from cbviz.problem import Settings, build_problem, split_prior


def test_pool_is_built_from_the_prior_part_only():
    base = build_problem(Settings(source="real", real="breast_cancer"))
    held = build_problem(Settings(source="real", real="breast_cancer", prior_fraction=0.3))
    m_all = base.split.X_train.shape[0]
    m_prior, m_rest = held.X_prior.shape[0], held.split.X_train.shape[0]
    assert m_prior + m_rest == m_all and m_prior == pytest.approx(0.3 * m_all, abs=1)
    # the thresholds are those of the prior part, not of the whole training part
    np.testing.assert_array_equal(held.pool.threshold_,
                                  StumpPool(10).fit(held.X_prior).threshold_)
    assert not np.array_equal(held.pool.threshold_, base.pool.threshold_)
    # and they do not move when the rest changes (only the prior part defines them)
    X_p, y_p, rest = split_prior(base.split, 0.3, 0)
    shifted = rest.X_train * 3.0 + 1.0
    assert np.array_equal(StumpPool(10).fit(X_p).threshold_, held.pool.threshold_)
    assert not np.array_equal(StumpPool(10).fit(shifted).threshold_, held.pool.threshold_)
    # the test part is untouched
    np.testing.assert_array_equal(held.split.X_test, base.split.X_test)


def test_bounds_count_only_the_rest():
    held = build_problem(Settings(source="real", real="breast_cancer", prior_fraction=0.4))
    y = held.split.y_train
    run = CBBoost(max_iter=10).start(held.H_train, y).run()
    rec = run.history[-1]
    m = held.split.X_train.shape[0]
    F = held.H_train.matvec(run.weights)
    M = y * F / run.weights.sum()
    panel = bounds.bound_panel(M, rec.kl, 0.05)
    assert M.size == m
    for key in bounds.PAC_BOUNDS:
        assert getattr(rec, key) == pytest.approx(panel[key], abs=1e-12)
    # the same margins counted as a larger sample would give a smaller (different) bound
    assert bounds.first_order_bound(rec.gibbs_risk, rec.kl, m + 200) < rec.first_order_bound


@pytest.mark.parametrize("fraction", [-0.1, 0.9])
def test_prior_fraction_out_of_range_is_refused(fraction):
    with pytest.raises(DataError, match=rf"^The 'prior_fraction' parameter of the data settings "
                                        rf"must be a float in \[0, 0\.8\]\. Got {fraction} instead\.$"):
        Settings(prior_fraction=fraction)


@pytest.mark.parametrize("pool, n_thresholds", [("stumps", "10"), ("stumps", "all"),
                                                ("hyperplanes", "10")])
def test_vote_grid_gives_the_vote_on_each_cell(pool, n_thresholds):
    """Z[i, j] is the vote at any point of its cell: checked at 5 random points per cell for a
    12-step CB-Boost vote.  Stump votes are constant on the cells cut at their thresholds
    (exact, to 1e-12); for other pools Z is the vote at the centre of n x n equal cells."""
    problem = build_problem(Settings(toy="moons", pool=pool, n_thresholds=n_thresholds))
    run = CBBoost(max_iter=12).start(problem.H_train, problem.split.y_train)
    run.run()
    w = run.weights_at(len(run.history))
    xe, ye, Z = problem.vote_grid(w, n=40)
    assert Z.shape == (ye.size - 1, xe.size - 1)
    assert np.all(np.diff(xe) > 0) and np.all(np.diff(ye) > 0)
    X = np.vstack([problem.split.X_train, problem.split.X_test])
    assert xe[0] < X[:, 0].min() and xe[-1] > X[:, 0].max()
    rng = np.random.default_rng(0)
    if pool == "stumps":
        used = w > 0
        for j, edges in ((0, xe), (1, ye)):  # a cut at every threshold in the vote, no other
            t = np.unique(problem.pool.threshold_[used & (problem.pool.feature_ == j)])
            np.testing.assert_array_equal(edges[1:-1], t)
        u, v = rng.random((2, 5, *Z.shape))
    else:
        assert Z.shape == (40, 40)
        u = v = np.full((1, *Z.shape), 0.5)
    px = xe[:-1][None, None, :] + u * np.diff(xe)[None, None, :]
    py = ye[:-1][None, :, None] + v * np.diff(ye)[None, :, None]
    for a, b in zip(px, py):
        inside = problem.vote_on(np.column_stack([a.ravel(), b.ravel()]), w).reshape(Z.shape)
        np.testing.assert_allclose(inside, Z, rtol=0, atol=1e-12)


def test_vote_grid_before_any_step_is_one_cell_of_zero_vote():
    problem = build_problem(Settings(toy="moons"))
    xe, ye, Z = problem.vote_grid(np.zeros(problem.n_voters))
    assert xe.size == ye.size == 2 and Z.shape == (1, 1) and Z[0, 0] == 0


def test_start_runs_on_the_training_part_and_scores_the_test_part():
    problem = build_problem(Settings(toy="moons", n_samples=200))
    run = problem.start(CBBoost(max_iter=3))
    run.step()
    rec = run.history[-1]
    vote = np.sign(problem.H_test.matvec(run.weights_at(1)))
    assert rec.test_error == pytest.approx(np.mean(vote != problem.split.y_test), abs=1e-12)
    assert rec.label == problem.pool.describe(rec.index)
