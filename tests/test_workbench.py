"""The data-independent prior option: the pool sees only the prior part; bounds count the rest."""
import numpy as np
import pytest

from cbviz import bounds
from cbviz.algorithms import CBBoost
from cbviz.data import DataError
from cbviz.voters import StumpPool
from cbviz.workbench import Settings, build_problem, split_prior


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
    with pytest.raises(DataError, match="prior part"):
        Settings(prior_fraction=fraction)
