"""The step page's single-key shortcuts can be turned off (WCAG 2.1.4), and an emptied number
field keeps its value instead of becoming Streamlit's default (issue 30, item 4).

Streamlit's number field commits an empty field as its proto's default when it loses focus;
a widget filled from session state had its ``min_value`` as default ("Max iterations" 100
became 1).  :func:`cbviz.ui.controls.number_field` draws it without a default, so an emptied
field arrives as None, which the app refuses: the stored value comes back, with a warning.
The browser half (letters typed into every field) is tests/app/test_browser_keyboard_typing.py.
"""
import pytest
from test_pages import GRADIENT, STEP, app

SHORTCUTS = {"step_once": "s", "step_ten": "t", "step_play": "p"}


def shortcuts(at):
    return {key: at.button(key=key).proto.shortcut for key in SHORTCUTS}


def history(at):
    return at.session_state["run_step"]["run"].history


def test_the_shortcuts_are_on_until_the_switch_turns_them_off_for_the_session():
    at = app()
    at.switch_page(STEP).run()
    switch = at.toggle(key="step_shortcuts")
    assert switch.value is True and "**S** step" in switch.label
    assert shortcuts(at) == SHORTCUTS
    switch.set_value(False).run()
    assert shortcuts(at) == dict.fromkeys(SHORTCUTS, "")   # no shortcut at all
    at.button(key="step_once").click().run()                 # the buttons still work
    assert len(history(at)) == 1 and shortcuts(at) == dict.fromkeys(SHORTCUTS, "")
    at.switch_page(GRADIENT).run()                           # kept across a page change
    at.switch_page(STEP).run()
    assert not at.exception, at.exception
    assert at.toggle(key="step_shortcuts").value is False
    assert shortcuts(at) == dict.fromkeys(SHORTCUTS, "")
    at.toggle(key="step_shortcuts").set_value(True).run()
    assert shortcuts(at) == SHORTCUTS


SIDEBAR = [("s_n_samples", "n_samples", "Points", {}),
           ("s_data_seed", "data_seed", "Seed", {}),
           ("s_split_seed", "split_seed", "Split seed", {}),
           ("s_feature_noise", "feature_noise", "Feature noise σ", {}),
           ("s_n_pool", "n_pool", "Voters in the pool", {"pool": "hyperplanes"}),
           ("s_delta", "delta", "δ (confidence", {})]


@pytest.mark.parametrize(("key", "field", "label", "link"), SIDEBAR,
                         ids=[s[0] for s in SIDEBAR])
def test_an_emptied_sidebar_number_keeps_its_value_and_says_so(key, field, label, link):
    at = app(STEP, **link)
    at.button(key="step_ten").click().run()
    before = dict(at.session_state["settings_store"])
    assert not at.number_input(key=key).proto.HasField("default")  # empty arrives as None
    at.number_input(key=key).set_value(None).run()                 # what a blur sends
    assert not at.exception, at.exception
    assert at.number_input(key=key).value == before[field]         # back in the field
    assert dict(at.session_state["settings_store"]) == before      # no setting changed
    assert len(history(at)) == 10                                  # the run kept (no reset)
    said = [w.value for w in at.warning if "needs a number" in w.value]
    assert len(said) == 1 and label in said[0] and "it stays at" in said[0]
    assert not any("were reset" in i.value for i in at.info)
    at.run()                                                       # said once
    assert not any("needs a number" in w.value for w in at.warning)


def test_a_typed_sidebar_number_still_applies():
    at = app(STEP)
    at.button(key="step_once").click().run()
    at.number_input(key="s_n_samples").set_value(200).run()
    assert at.session_state["settings_store"]["n_samples"] == 200
    assert at.query_params["n_samples"] == "200"
    assert any("were reset" in i.value for i in at.info)
    assert not any("needs a number" in w.value for w in at.warning)


def test_an_emptied_hyperparameter_keeps_its_value_and_a_typed_one_applies():
    at = app(STEP, algorithm="mincq")
    assert at.number_input(key="hp_mincq_mu").value == pytest.approx(0.05)
    at.number_input(key="hp_mincq_mu").set_value(None).run()
    assert not at.exception, at.exception
    assert at.number_input(key="hp_mincq_mu").value == pytest.approx(0.05)
    assert at.session_state["hp_store"]["mincq.mu"] == pytest.approx(0.05)
    said = [w.value for w in at.warning if "needs a number" in w.value]
    assert said == ["**μ (first moment of the margin)** needs a number: it stays at 5.00e-02."]
    at.number_input(key="hp_mincq_mu").set_value(0.1).run()
    assert at.session_state["hp_store"]["mincq.mu"] == pytest.approx(0.1)
    assert not any("needs a number" in w.value for w in at.warning)
