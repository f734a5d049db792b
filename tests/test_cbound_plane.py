"""Checks of cbviz.cbound_plane, cbviz.toy_vote and cbviz.sample_size (the C-bound explorer's
mathematics) and their figures.

Reference values are recomputed from the definitions in the tests (closed forms written out
here, counts done by hand, pairwise disagreements counted voter pair by voter pair) and
compared with what the module gets through cbviz.bounds.  Tolerances: 1e-12 where both sides
are the same closed form in floating point; the m -> infinity limits are checked against
Pinsker's inequality kl(q||p) >= 2 (p - q)**2, which bounds kl_sup(q, eps) - q by sqrt(eps/2).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from helpers import check_valid
from sklearn.datasets import make_moons

from cbviz import bounds
from cbviz import cbound_plane, sample_size, toy_vote
from cbviz.algorithms.cbboost import CBBoost
from cbviz.plots.cbound import (
    c_bound_map_figure,
    c_bound_slice_figure,
    pac_bounds_figure,
    toy_bars_figure,
    toy_grid_figure,
)
from cbviz.voters import StumpPool

TOL = 1e-12


def hand_c_bound(r, d):
    return 1.0 - (1.0 - 2.0 * r) ** 2 / (1.0 - 2.0 * d)


# ---------------------------------------------------------------- the plane

def test_risk_grid_c_bound_equals_the_bounds_module_and_the_formula():
    g = cbound_plane.c_bound_grid("risks", n=101)
    R, D = np.meshgrid(g.x, g.y)
    v = g.valid
    assert g.c_bound.shape == (101, 101) and v.any() and (~v).any()
    np.testing.assert_array_equal(g.c_bound[v], bounds.c_bound_from_risks(R[v], D[v]))
    np.testing.assert_allclose(g.c_bound[v], hand_c_bound(R[v], D[v]), rtol=0, atol=TOL)
    np.testing.assert_allclose(g.first_order[v], 2 * R[v], rtol=0, atol=0)
    assert np.isnan(g.c_bound[~v]).all() and np.isnan(g.first_order[~v]).all()


def test_moment_grid_c_bound_equals_the_bounds_module_and_the_formula():
    g = cbound_plane.c_bound_grid("moments", n=101)
    M1, M2 = np.meshgrid(g.x, g.y)
    v = g.valid
    np.testing.assert_array_equal(g.c_bound[v], bounds.c_bound(M1[v], M2[v]))
    np.testing.assert_allclose(g.c_bound[v], 1 - M1[v] ** 2 / M2[v], rtol=0, atol=TOL)
    np.testing.assert_allclose(g.first_order[v], 1 - M1[v], rtol=0, atol=TOL)
    np.testing.assert_array_equal(v, (M1 > 0) & (M2 >= M1**2))


def test_invalid_region_is_exactly_above_the_parabola():
    g = cbound_plane.c_bound_grid("risks", n=201)
    R, D = np.meshgrid(g.x, g.y)
    np.testing.assert_array_equal(g.valid, (R < 0.5) & (D <= 2 * R * (1 - R)))
    # above it the second moment would be below the squared first one (a negative variance):
    # mu2 - mu1^2 = -2 (d - 2r(1 - r))
    mu1, mu2 = 1 - 2 * R, 1 - 2 * D
    gap = D - 2 * R * (1 - R)
    np.testing.assert_allclose(mu2 - mu1**2, -2 * gap, atol=TOL)
    above = (R < 0.5) & ~g.valid
    assert (gap[above] > 0).all()
    # every valid point is reached by a margin distribution on [-1, 1]: mu1 with probability
    # 1 - lam, +-1 with mean mu1 otherwise, lam = (mu2 - mu1^2) / (1 - mu1^2)
    r, d = R[g.valid], D[g.valid]
    m1, m2 = 1 - 2 * r, 1 - 2 * d
    lam = np.where(m1 < 1, (m2 - m1**2) / np.where(m1 < 1, 1 - m1**2, 1), 0.0)
    assert ((lam >= -TOL) & (lam <= 1 + TOL)).all()
    values = np.stack([m1, np.ones_like(m1), -np.ones_like(m1)])
    probs = np.stack([1 - lam, lam * (1 + m1) / 2, lam * (1 - m1) / 2])
    np.testing.assert_allclose((probs * (1 - values) / 2).sum(0), r, atol=TOL)
    np.testing.assert_allclose((1 - (probs * values**2).sum(0)) / 2, d, atol=TOL)
    # and on that distribution the C-bound bounds the vote's error P(M <= 0) (Theorem 1)
    error = probs[2] + np.where(m1 <= 0, probs[0], 0.0)
    assert (error <= g.c_bound[g.valid] + TOL).all()


def test_c_bound_beats_2r_exactly_when_d_exceeds_r():
    g = cbound_plane.c_bound_grid("risks", n=201)
    R, D = np.meshgrid(g.x, g.y)
    v = g.valid & (D < 0.5)
    r, d, c = R[v], D[v], g.c_bound[v]
    np.testing.assert_allclose(c - 2 * r, 2 * (1 - 2 * r) * (r - d) / (1 - 2 * d), atol=TOL)
    clear = np.abs(d - r) > 1e-9
    assert (np.sign(2 * r - c)[clear] == np.sign(d - r)[clear]).all()


def test_slices_follow_the_grid_formula_and_fall_with_disagreement():
    s = cbound_plane.c_bound_slice("risks", 0.3)
    np.testing.assert_allclose(s["y"].iloc[[0, -1]], [0.0, 2 * 0.3 * 0.7], atol=TOL)
    np.testing.assert_allclose(s["c_bound"], hand_c_bound(0.3, s["y"]), atol=TOL)
    assert s["c_bound"].iloc[0] == pytest.approx(4 * 0.3 * 0.7, abs=TOL)  # d = 0: C = 4r(1 - r)
    assert s["c_bound"].iloc[-1] == pytest.approx(0.0, abs=TOL)  # on the boundary
    assert (np.diff(s["c_bound"]) < 0).all() and (s["first_order"] == 0.6).all()
    t = cbound_plane.c_bound_slice("moments", 0.4)
    np.testing.assert_allclose(t["y"].iloc[[0, -1]], [0.16, 1.0], atol=TOL)
    np.testing.assert_allclose(t["c_bound"], 1 - 0.16 / t["y"], atol=TOL)
    # the same line in both coordinates: mu1 = 0.4 is r = 0.3, mu2 is d = (1 - mu2) / 2
    np.testing.assert_allclose(t["c_bound"], hand_c_bound(0.3, (1 - t["y"]) / 2), atol=TOL)
    with pytest.raises(ValueError, match="r must be in"):
        cbound_plane.c_bound_slice("risks", 0.5)


def test_conversions_and_validity():
    mu1, mu2 = cbound_plane.moments_from_risks(0.3, 0.35)
    assert (mu1, mu2) == pytest.approx((0.4, 0.3))
    assert cbound_plane.risks_from_moments(mu1, mu2) == pytest.approx((0.3, 0.35))
    assert cbound_plane.is_valid(0.3, 0.42) and not cbound_plane.is_valid(0.3, 0.4201) and not cbound_plane.is_valid(0.5, 0.1)
    with pytest.raises(ValueError, match="μ₂ ≥ μ₁²"):
        cbound_plane.check_point(0.3, 0.45)
    with pytest.raises(ValueError, match="axes"):
        cbound_plane.c_bound_grid("polar")


def test_describe_point_says_what_the_numbers_say():
    text = cbound_plane.describe_point(0.3, 0.35)
    assert "C-bound **0.467**" in text and "2r = **0.600**" in text and "by 0.133" in text
    assert f"{hand_c_bound(0.3, 0.35):.3f}" == "0.467"
    assert "2r is the tighter one, by 0.133" in cbound_plane.describe_point(0.3, 0.2)
    assert hand_c_bound(0.3, 0.2) - 0.6 == pytest.approx(0.1333, abs=1e-4)
    assert "equal" in cbound_plane.describe_point(0.2, 0.2)
    assert "not reachable" in cbound_plane.describe_point(0.3, 0.45)
    assert "not defined" in cbound_plane.describe_point(0.5, 0.2)
    assert "C = 0" in cbound_plane.describe_point(0.3, 0.42)


def test_trajectory_of_a_real_run_lies_in_the_valid_region():
    X, y = make_moons(80, noise=0.2, random_state=0)
    y = 2 * y - 1
    pool = StumpPool(10).fit(X)
    run = CBBoost(12).start(pool.operator(X), y).run()
    frame = cbound_plane.trajectory(run.history)
    assert list(frame["iteration"]) == [rec.iteration for rec in run.history]
    np.testing.assert_array_equal(frame["gibbs_risk"], [rec.gibbs_risk for rec in run.history])
    np.testing.assert_array_equal(frame["mu2"], [rec.mu2 for rec in run.history])
    assert cbound_plane.is_valid(frame["gibbs_risk"], frame["disagreement"]).all()
    np.testing.assert_allclose(frame["c_bound"],
                               hand_c_bound(frame["gibbs_risk"], frame["disagreement"]),
                               atol=1e-10)
    fig = c_bound_map_figure(cbound_plane.c_bound_grid("moments", 51), (0.4, 0.3), {"run": frame})
    traj = next(t for t in fig.data if t.name == "run")
    np.testing.assert_array_equal(traj.x, frame["mu1"])
    np.testing.assert_array_equal(traj.y, frame["mu2"])


# ---------------------------------------------------------------- three voters

def test_toy_summary_equals_counts_by_hand():
    wrong = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]], bool)
    s = toy_vote.toy_summary(wrong)
    np.testing.assert_allclose(s.voter_errors, [0.5, 0.5, 0.25])
    np.testing.assert_array_equal(s.wrong_count, [1, 2, 1, 1])
    np.testing.assert_array_equal(s.majority_wrong, [False, True, False, False])
    assert s.majority_error == 0.25
    assert s.gibbs_risk == pytest.approx(5 / 12, abs=TOL)  # 5 errors out of 3 x 4
    # disagreement: ordered pairs of voters (a voter with itself included), per example
    pairs = (wrong[:, None, :] != wrong[None, :, :]).mean(axis=(0, 1))
    assert s.disagreement == pytest.approx(pairs.mean(), abs=TOL)
    assert s.disagreement == pytest.approx(4 / 9, abs=TOL)
    both = (wrong[:, None, :] & wrong[None, :, :]).mean(axis=(0, 1))
    assert s.joint_error == pytest.approx(both.mean(), abs=TOL)
    assert s.joint_error == pytest.approx(7 / 36, abs=TOL)
    assert s.c_bound == pytest.approx(0.75, abs=TOL)  # 1 - (1/6)^2 / (1/9)
    assert s.first_order == pytest.approx(10 / 12, abs=TOL)


def test_presets_give_the_stated_numbers():
    diff = toy_vote.toy_summary(toy_vote.toy_wrong(toy_vote.toy_preset("different"), 10))
    np.testing.assert_allclose(diff.voter_errors, 0.3)
    assert diff.majority_error == 0.0 < diff.voter_errors.min()  # beats every voter
    assert (diff.gibbs_risk, diff.disagreement) == pytest.approx((0.3, 0.4), abs=TOL)
    assert diff.c_bound == pytest.approx(0.2, abs=TOL)  # 1 - 0.4^2 / 0.2
    same = toy_vote.toy_summary(toy_vote.toy_wrong(toy_vote.toy_preset("same"), 10))
    assert same.majority_error == pytest.approx(0.3) == same.voter_errors.min()  # no gain
    assert (same.gibbs_risk, same.disagreement) == pytest.approx((0.3, 0.0), abs=TOL)
    assert same.c_bound == pytest.approx(0.84, abs=TOL)  # 1 - 0.4^2
    a, b = toy_vote.toy_preset("random", seed=1), toy_vote.toy_preset("random", seed=2)
    assert a == toy_vote.toy_preset("random", seed=1) and a != b
    assert all(len(v) == 3 and len(set(v)) == 3 for v in a)


def test_random_toys_majority_and_bounds():
    rng = np.random.default_rng(0)
    for _ in range(200):
        wrong = rng.random((3, 10)) < rng.uniform(0.05, 0.6)
        s = toy_vote.toy_summary(wrong)
        assert s.majority_error == (wrong.sum(0) >= 2).mean()  # at least 2 of the 3 err
        assert s.gibbs_risk == pytest.approx(wrong.mean(), abs=TOL)
        assert s.majority_error <= s.first_order + TOL
        if s.mu1 > 0:
            assert s.majority_error <= s.c_bound + TOL


def test_toy_story_matches_the_numbers():
    diff = toy_vote.toy_story(toy_vote.toy_summary(toy_vote.toy_wrong(toy_vote.toy_preset("different"), 10)))
    assert "nowhere" in diff and "beats every voter" in diff
    assert "9 of the voters' 9 errors" in diff and "C-bound 0.200" in diff
    assert "d = 0.400 > r = 0.300, so C < 2r" in diff
    same = toy_vote.toy_story(toy_vote.toy_summary(toy_vote.toy_wrong(toy_vote.toy_preset("same"), 10)))
    assert "examples 1, 2, 3 (3 of 10)" in same and "No gain" in same and "d = 0" in same
    assert "C-bound 0.840" in same and "C > 2r" in same
    # voter 1 errs once, voters 2 and 3 err together twice: the vote loses to voter 1
    worse = toy_vote.toy_story(toy_vote.toy_summary(toy_vote.toy_wrong([[0], [1, 2], [1, 2]], 10)))
    assert "worse than the best voter** (voter 1, 10%)" in worse
    assert "on examples 2, 3 that voter is right but outvoted" in worse
    lost = toy_vote.toy_summary(toy_vote.toy_wrong([range(6)] * 3, 10))
    assert lost.mu1 < 0 and "says nothing" in toy_vote.toy_story(lost)


# ---------------------------------------------------------------- PAC-Bayes bounds against m

R, D, KL, DELTA = 0.1, 0.15, 1.0, 0.05


@pytest.fixture(scope="module")
def table():
    return sample_size.bounds_vs_m(R, D, KL, DELTA, np.arange(1, 1501))


def test_pac_bound_value_is_the_bounds_module_with_mu_and_e():
    mu1, mu2, e = 1 - 2 * R, 1 - 2 * D, R - D / 2
    m = 300
    assert sample_size.pac_bound_value("pac_bound", R, D, KL, m, DELTA) == \
        bounds.cqboost_c_bound(mu1, mu2, KL, m, DELTA)
    assert sample_size.pac_bound_value("first_order_bound", R, D, KL, m, DELTA) == \
        bounds.first_order_bound(R, KL, m, DELTA)
    assert sample_size.pac_bound_value("pac_bound_1", R, D, KL, m, DELTA) == \
        bounds.pac_bound_1(R, D, KL, m, DELTA)
    assert sample_size.pac_bound_value("tandem_bound", R, D, KL, m, DELTA) == \
        bounds.tandem_bound(e, KL, m, DELTA)
    with pytest.raises(ValueError, match="bound must be one of"):
        sample_size.pac_bound_value("seeger", R, D, KL, m, DELTA)
    with pytest.raises(ValueError, match="δ"):
        sample_size.pac_bound_value("pac_bound", R, D, KL, m, 0.0)


def test_bounds_vs_m_rows_and_monotone_in_m(table):
    assert list(table.columns) == ["m", *bounds.PAC_BOUNDS]
    for key in bounds.PAC_BOUNDS:
        assert table[key].iloc[299] == sample_size.pac_bound_value(key, R, D, KL, 300, DELTA)
        assert (np.diff(table[key]) <= 0).all(), key
    # a larger KL or a smaller delta never helps
    for key in bounds.PAC_BOUNDS:
        base = sample_size.pac_bound_value(key, R, D, KL, 500, DELTA)
        assert sample_size.pac_bound_value(key, R, D, KL + 2, 500, DELTA) >= base
        assert sample_size.pac_bound_value(key, R, D, KL, 500, DELTA / 10) >= base


def test_examples_needed_is_the_smallest_m_where_the_bound_holds(table):
    ms = table["m"].to_numpy()
    for key in bounds.PAC_BOUNDS:
        for at in (40, 333, 1200):
            target = float(table[key].iloc[at - 1])
            if target >= 1.0:
                continue
            brute = int(ms[np.flatnonzero(table[key].to_numpy() <= target)[0]])
            found = sample_size.examples_needed(key, R, D, KL, DELTA, target)
            assert found == brute <= at, (key, at)
            assert sample_size.examples_needed(key, R, D, KL, DELTA, target, m_max=brute - 1) is None
            assert sample_size.examples_needed(key, R, D, KL, DELTA, target, m_max=brute) == brute
    assert sample_size.examples_needed("pac_bound", R, D, KL, DELTA, 1.0) == 1
    # a larger KL costs examples
    key, target = "tandem_bound", 0.3
    assert sample_size.examples_needed(key, R, D, 5.0, DELTA, target) > \
        sample_size.examples_needed(key, R, D, 0.0, DELTA, target)


def test_limits_as_m_grows(table):
    lim = {k: sample_size.bound_limit(k, R, D) for k in bounds.PAC_BOUNDS}
    assert lim["first_order_bound"] == pytest.approx(2 * R)
    assert lim["pac_bound_1"] == pytest.approx(hand_c_bound(R, D)) == lim["pac_bound"]
    assert lim["tandem_bound"] == pytest.approx(4 * (R - D / 2))
    for key in bounds.PAC_BOUNDS:  # every bound stays above its limit
        assert (table[key] >= lim[key] - TOL).all(), key
        assert sample_size.examples_needed(key, R, D, KL, DELTA, lim[key] - 1e-3) is None
    # ... and comes within Pinsker's margin of it: kl_sup(q, eps) <= q + sqrt(eps / 2)
    for m in (1000, 100_000):
        eps = (KL + bounds.log_xi(m) - np.log(DELTA)) / m
        first = sample_size.pac_bound_value("first_order_bound", R, D, KL, m, DELTA)
        assert 2 * R <= first <= 2 * (R + np.sqrt(eps / 2)) + TOL
        log_term = np.log(2) + bounds.log_xi(m) - np.log(DELTA)
        high = hand_c_bound(R + np.sqrt((KL + log_term) / m / 2),
                            D - np.sqrt((2 * KL + log_term) / m / 2))
        assert lim["pac_bound_1"] <= sample_size.pac_bound_value("pac_bound_1", R, D, KL, m, DELTA) <= high
    for key in ("pac_bound", "tandem_bound"):  # closed forms: any m is cheap
        assert sample_size.pac_bound_value(key, R, D, KL, 10**12, DELTA) == pytest.approx(lim[key],
                                                                                abs=1e-4)


def test_limits_order_c_below_4e_below_2r_when_d_exceeds_r():
    rng = np.random.default_rng(1)
    r = rng.uniform(0, 0.5, 2000)
    d = rng.uniform(0, 1, 2000) * 2 * r * (1 - r)
    c, e = hand_c_bound(r, d), r - d / 2
    np.testing.assert_allclose(4 * e - c, 4 * (r - d) ** 2 / (1 - 2 * d), atol=TOL)
    assert (c <= 4 * e + TOL).all()
    assert (4 * e[d > r] < 2 * r[d > r]).all()


# ---------------------------------------------------------------- figures

def _names(fig):
    return [t.name for t in fig.data]


def test_figures_carry_titles_axes_hover_and_serialize():
    toy = toy_vote.toy_summary(toy_vote.toy_wrong(toy_vote.toy_preset("different"), 10))
    frame = cbound_plane.trajectory([SimpleNamespace(iteration=i, gibbs_risk=0.4 - 0.01 * i,
                                          disagreement=0.4, mu1=0.2 + 0.02 * i, mu2=0.2,
                                          c_bound=0.5) for i in range(1, 4)])
    table = sample_size.bounds_vs_m(0.3, 0.35, 2.0, 0.05, sample_size.m_grid(10, 1000, 9))
    figs = {
        "map": c_bound_map_figure(cbound_plane.c_bound_grid("risks", 41), (0.3, 0.35), {"run": frame}),
        "slice": c_bound_slice_figure(cbound_plane.c_bound_slice("risks", 0.3), "risks", 0.3, 0.35),
        "grid": toy_grid_figure(toy),
        "bars": toy_bars_figure(toy),
        "pac": pac_bounds_figure(table, kl=2.0, delta=0.05, chosen="pac_bound", target=0.9,
                                 needed=400, limit=0.467, m_run=300),
    }
    for name, fig in figs.items():
        layout = fig.layout
        assert layout.title.text and layout.xaxis.title.text is not None, name
        assert layout.uirevision, name
        check_valid(fig)
        for t in fig.data:
            if t.hoverinfo != "skip" and t.x is not None and t.x[0] is not None:
                assert t.hovertemplate, (name, t.name)
    assert {"unreachable: μ₂ < μ₁², i.e. d > 2r(1 − r)", "run",
            "chosen point (r = 0.300, d = 0.350)"} <= set(_names(figs["map"]))
    assert set(bounds.PAC_BOUNDS.values()) <= set(_names(figs["pac"]))
    assert "m of the step page's run (300)" in _names(figs["pac"])
    bars = {x: y for t in figs["bars"].data for x, y in zip(t.x, t.y)}
    assert bars == pytest.approx({"voter 1": 0.3, "voter 2": 0.3, "voter 3": 0.3, "vote": 0.0,
                                  "r": 0.3, "d": 0.4, "C": 0.2, "2r": 0.6})
    z = np.asarray(figs["grid"].data[0].z)
    np.testing.assert_array_equal(z[-1], toy.majority_wrong)
