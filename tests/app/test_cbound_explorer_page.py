"""AppTest checks of the C-bound explorer page, run on its own (it needs no data set).

Figures are read back from their JSON (``chart.proto.spec``); the numbers the page states are
compared with values recomputed here from their definitions.
"""
from __future__ import annotations


import numpy as np
import pytest
from helpers import figure_specs, values
from sklearn.datasets import make_moons
from streamlit.testing.v1 import AppTest

from cbviz import bounds
from cbviz.algorithms.cbboost import CBBoost
from cbviz.app import PAGES
from cbviz.sample_size import examples_needed
from cbviz.voters import StumpPool

PAGE = str(PAGES / "cbound_explorer.py")
MAP = "The C-bound over the plane"


def page(**session):
    at = AppTest.from_file(PAGE, default_timeout=60)
    for k, v in session.items():
        at.session_state[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def figures(at):
    """Figure title (before any subtitle) -> {trace name: trace} of every chart on the page."""
    out = {}
    for spec in figure_specs(at):
        title = spec["layout"]["title"]["text"].partition("<br>")[0]
        out[title] = {t.get("name"): t for t in spec["data"]}
    return out


def text(at):
    return "\n".join(m.value for m in at.markdown)


def bars(at):
    """The toy's bar chart as {bar label: height}."""
    fig = figures(at)["Errors, r, d and the bounds"]
    return {x: y for t in fig.values() for x, y in zip(t["x"], values(t["y"]))}


@pytest.fixture(scope="module")
def step_run():
    X, y = make_moons(120, noise=0.25, random_state=3)
    pool = StumpPool(10).fit(X)
    return CBBoost(8).start(pool.operator(X), 2 * y - 1).run()


def test_loads_with_defaults_and_draws_every_figure():
    at = page()
    figs = figures(at)
    assert {MAP, "C-bound and 2r along r = 0.300", "Who errs where",
            "Errors, r, d and the bounds", "PAC-Bayes bounds against the sample size"} <= set(figs)
    assert {"C-bound", "unreachable: μ₂ < μ₁², i.e. d > 2r(1 − r)",
            "C = 0: every margin equal (μ₂ = μ₁²)", "d = r: C = 2r (C < 2r above the line)",
            "chosen point (r = 0.300, d = 0.350)"} <= set(figs[MAP])
    assert {"C-bound", "first-order bound 2r = 0.600", "chosen point"} <= \
        set(figs["C-bound and 2r along r = 0.300"])
    assert set(bounds.PAC_BOUNDS.values()) <= set(figs["PAC-Bayes bounds against the sample size"])
    c = 1 - 0.4**2 / 0.3
    assert f"C-bound **{c:.3f}**, first-order bound 2r = **0.600**" in text(at)
    assert "No run on the step page yet" in text(at)
    assert at.button(key="cbx_use_run").disabled


def test_presets_give_the_stated_numbers():
    at = page()
    assert bars(at) == pytest.approx({"voter 1": 0.3, "voter 2": 0.3, "voter 3": 0.3,
                                      "vote": 0.0, "r": 0.3, "d": 0.4, "C": 0.2, "2r": 0.6})
    assert "beats every voter" in text(at)
    at.button(key="cbx_preset_same").click().run()
    assert not at.exception
    assert at.multiselect(key="cbx_voter_2").value == [1, 2, 3]
    assert bars(at) == pytest.approx({"voter 1": 0.3, "voter 2": 0.3, "voter 3": 0.3,
                                      "vote": 0.3, "r": 0.3, "d": 0.0, "C": 0.84, "2r": 0.6})
    assert "No gain" in text(at)
    at.button(key="cbx_preset_random").click().run()
    wrong = np.zeros((3, 10), bool)
    for j in range(3):
        wrong[j, np.asarray(at.multiselect(key=f"cbx_voter_{j}").value) - 1] = True
    got = bars(at)
    assert got["vote"] == pytest.approx((wrong.sum(0) >= 2).mean())  # 2 of 3 wrong
    assert got["r"] == pytest.approx(wrong.mean())
    pairs = (wrong[:, None, :] != wrong[None, :, :]).mean()
    assert got["d"] == pytest.approx(pairs)


def test_editing_a_voter_updates_the_vote():
    at = page()
    at.multiselect(key="cbx_voter_1").set_value([1, 2]).run()  # voter 2 now errs with voter 1
    assert not at.exception
    got = bars(at)
    assert got["voter 2"] == pytest.approx(0.2) and got["vote"] == pytest.approx(0.2)
    assert "examples 1, 2 (2 of 10)" in text(at)


def test_a_run_in_session_state_is_drawn_as_a_trajectory(step_run):
    at = page(run_step={"config": ("cbboost", (), 8, 0.05), "run": step_run})
    trace = figures(at)[MAP]["step page: CB-Boost"]
    hist = step_run.history
    np.testing.assert_array_equal(values(trace["x"]), [rec.gibbs_risk for rec in hist])
    np.testing.assert_array_equal(values(trace["y"]), [rec.disagreement for rec in hist])
    assert f"**step page: CB-Boost**: {len(hist)} iterations" in text(at)
    at.toggle(key="cbx_moments").set_value(True).run()
    trace = figures(at)[MAP]["step page: CB-Boost"]
    np.testing.assert_array_equal(values(trace["x"]), [rec.mu1 for rec in hist])
    # the run's last record feeds the PAC-Bayes section, its m is marked
    at.button(key="cbx_use_run").click().run()
    assert at.number_input(key="cbx_pac_r").value == pytest.approx(hist[-1].gibbs_risk)
    assert at.number_input(key="cbx_kl").value == pytest.approx(hist[-1].kl)
    pac = figures(at)["PAC-Bayes bounds against the sample size"]
    assert "m of the step page's run (120)" in pac


def test_axes_toggle_keeps_the_point_and_invalid_points_are_explained():
    at = page()
    at.toggle(key="cbx_moments").set_value(True).run()
    assert at.slider(key="cbx_mu1").value == pytest.approx(0.4)
    at.slider(key="cbx_mu1").set_value(0.5).run()
    at.toggle(key="cbx_moments").set_value(False).run()
    assert at.slider(key="cbx_r").value == pytest.approx(0.25)
    at.slider(key="cbx_d").set_value(0.45).run()  # above 2r(1 - r) = 0.375
    assert not at.exception
    assert "This point is not reachable" in text(at)
    at.number_input(key="cbx_pac_d").set_value(0.45).run()
    assert not at.exception and "No bound for this r and d" in at.error[0].value
    assert "PAC-Bayes bounds against the sample size" not in figures(at)


def test_examples_needed_sentence_matches_the_search():
    at = page()
    at.selectbox(key="cbx_bound").set_value("tandem_bound").run()
    at.number_input(key="cbx_target").set_value(0.55).run()
    n = examples_needed("tandem_bound", 0.3, 0.35, 2.0, 0.05, 0.55)
    n0 = examples_needed("tandem_bound", 0.3, 0.35, 0.0, 0.05, 0.55)
    assert f"from **m = {n:,}** examples on" in text(at)
    assert f"these 2 nats cost {n - n0:,} examples" in text(at)
    pac = figures(at)["PAC-Bayes bounds against the sample size"]
    assert values(pac[f"smallest m: {n:,}"]["x"])[0] == n
    at.number_input(key="cbx_target").set_value(0.45).run()  # below 4e = 0.5
    assert "never gets down to 0.450" in text(at)
