"""Letters typed into the app's fields change the field and nothing else; the step page's
single-key shortcuts (S, T, P) never fire while typing and can be turned off (issue 30, item 4;
WCAG 2.1.4).

The cause this guards against, seen in Chromium: a Tab into an ``<input type=number>`` selects
its text, a letter the field refuses (any but "e") still deletes the selection, and an "e"
leaves text that is no number: either way the field is empty.  Streamlit commits an empty
field on blur as the widget's default, ``min_value`` for a widget filled from session state,
so "Max iterations" 100 became 1 and the run was cut to one iteration.  Fields drawn by
:func:`cbviz.ui.controls.number_field` put their value back and say so.

Every wait is on the page's state (a value, a message, Streamlit's script state), never a
sleep.  A shortcut that fired would send its click before the field's own commit; each test
ends with one click on Step and checks the run advanced by exactly one iteration.
"""
from urllib.parse import parse_qsl, urlsplit

import pytest
from helpers import require_chromium, settle

from cbviz.app.streamlit_server import serve

require_chromium()

pytestmark = pytest.mark.browser

LETTERS = ["s", "t", "p", "S", "T", "P", "a", "x", "k", "e"]  # the shortcuts, then others
# every text and number field on the page (Streamlit key -> value), choice boxes aside
FIELDS = """() => Object.fromEntries([...document.querySelectorAll(
  "input[type=number], input[type=text]:not([role=combobox]), textarea")]
  .map(i => [(i.closest('[class*=st-key-]')?.className.match(/st-key-(\\S+)/) || [])[1], i.value])
  .filter(([k]) => k))"""
ITERATION = ("() => { const m = document.body.innerText.match(/Iteration (\\d+) of (\\d+)/);"
             " return m ? Number(m[2]) : 0; }")
NOTICE = """label => [...document.querySelectorAll("[data-testid='stAlertContainer']")]
  .some(a => a.innerText.split('\\n').some(l => l.startsWith(label + ' needs a number')))"""
REFILLED = "key => document.querySelector(`.st-key-${key} input`).value !== ''"
@pytest.fixture(scope="module")
def server():
    with serve() as running:   # results in the tests' data folder (conftest)
        yield running.url


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(120_000)   # a busy machine: waits on state, never a sleep
    yield page
    page.close()


def fields(page):
    return page.evaluate(FIELDS)


def query_of(page):
    """The page's URL parameters (the app mirrors its settings and the run there)."""
    return dict(parse_qsl(urlsplit(page.url).query, keep_blank_values=True))


def iteration(page):
    return page.evaluate(ITERATION)


def wait_iteration(page, n):
    page.wait_for_function(f"() => ({ITERATION})() === {n}")
    settle(page)


def open_page(page, url, ready):
    page.goto(url)
    page.locator(ready).first.wait_for(state="attached")
    settle(page)


def type_letters(page, key):
    """Select the field's text (as a Tab into it does), type the letters, Tab away; check
    that only that field changed while typing and that, once committed, nothing did."""
    before, query, shown = fields(page), query_of(page), iteration(page)
    field = page.locator(f".st-key-{key} input, .st-key-{key} textarea").first
    number = field.get_attribute("type") == "number"
    closed = page.locator(f"details:not([open]):has(.st-key-{key}) > summary")
    if closed.count():   # in a collapsed section: open it (on the page only)
        closed.first.click()
    field.wait_for()
    field.focus()
    assert page.evaluate("k => !!document.activeElement.closest(`.st-key-${k}`)", key)
    page.keyboard.press("Control+a")
    for letter in LETTERS:
        page.keyboard.type(letter)
    typed = field.input_value()
    # the cause: a refused letter drops the selected number; a text field takes them all
    assert typed == ("" if number else "".join(LETTERS))
    assert fields(page) == {**before, key: typed}
    if not number:   # back to the text it had: committing new text is a change on purpose
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        if before[key]:
            page.keyboard.type(before[key])
    page.keyboard.press("Tab")
    if number and before[key] != "":   # the commit's run: the field shows a number again
        page.wait_for_function(REFILLED, arg=key)
    settle(page)
    assert field.is_visible()   # its section stayed open (no element moved above it)
    assert fields(page) == before
    assert iteration(page) == shown and query_of(page) == query
    assert page.locator("[data-testid='stException']").count() == 0
    return field.get_attribute("aria-label")


def step_once_more(page):
    """The sync at a test's end: one click on Step adds exactly one iteration (a shortcut
    fired by the typing would have added its own before), and nothing is playing."""
    n = iteration(page)
    page.locator(".st-key-step_once button").click()
    wait_iteration(page, n + 1)
    assert iteration(page) == n + 1
    assert page.locator(".st-key-step_play button", has_text="Play").count() == 1


STEP = "/step_through_cbboost?source=toy&toy=moons&pool=hyperplanes&algorithm=cqboost"


def test_letters_in_the_step_pages_sidebar_and_hyperparameters_change_nothing_else(server,
                                                                                    page):
    open_page(page, server + STEP, ".st-key-step_once button")
    page.locator(".st-key-step_once button").click()
    wait_iteration(page, 1)
    for key in ("s_n_samples", "s_data_seed", "s_split_seed", "s_feature_noise", "s_n_pool",
                "s_delta", "hp_cqboost_mu", "hp_cqboost_epsilon"):
        label = type_letters(page, key)
        page.wait_for_function(NOTICE, arg=label)   # the emptied field says it kept its value
    step_once_more(page)


def test_letters_in_the_csv_class_pair_change_nothing_else(server, page):
    from cbviz.ui.sidebar import EXAMPLE_CSV

    open_page(page, server + "/step_through_cbboost?source=csv", "input[type='file']")
    page.locator("input[type='file']").first.set_input_files(str(EXAMPLE_CSV))
    page.locator(".st-key-step_once button").wait_for()
    settle(page)
    page.locator(".st-key-step_once button").click()
    wait_iteration(page, 1)
    type_letters(page, "s_pair")
    step_once_more(page)


OTHER_PAGES = [  # (page, a selector drawn once it is ready, its fields)
    ("/compare_algorithms", ".st-key-cmp_run button",
     ("hp_cmp_cqboost_mu", "hp_cmp_cqboost_epsilon")),          # controls.param_widget
    ("/lessons?lesson=1", ".st-key-lesson_q_1_1 input", ("lesson_q_1_1",)),  # a form's answer
    ("/lessons", ".st-key-class_nickname input", ("class_code_typed", "class_nickname")),
]


@pytest.mark.parametrize(("path", "ready", "keys"), OTHER_PAGES)
def test_letters_in_another_pages_fields_change_nothing_else(server, page, path, ready, keys):
    open_page(page, server + path, ready)
    for key in keys:
        label = type_letters(page, key)
        if key.startswith("hp_"):
            page.wait_for_function(NOTICE, arg=label)
    if path == "/compare_algorithms":   # no run started
        assert page.get_by_text("At the last iteration").count() == 0


@pytest.mark.parametrize(("path", "ready", "keys"), [
    (STEP, ".st-key-step_once button", ("step_max_iter",)),
    ("/compare_algorithms", ".st-key-cmp_run button", ("cmp_T",)),
    ("/gradient_vs_exhaustive", ".st-key-gx_max_iter input", ("gx_max_iter",)),
    ("/cbound_explorer", ".st-key-cbx_target input",
     ("cbx_pac_r", "cbx_pac_d", "cbx_kl", "cbx_delta", "cbx_target"))])
def test_letters_in_a_number_field_its_page_draws_change_nothing_else(server, page, path,
                                                                     ready, keys):
    open_page(page, server + path, ready)
    for key in keys:
        type_letters(page, key)
        # the field keeps its value: no "Clear value" button offers to empty it (app.css)
        assert page.evaluate(CLEAR_BUTTONS_SHOWN, key) == 0, key


# the "Clear value" buttons drawn (not display: none) in the field of Streamlit key k
CLEAR_BUTTONS_SHOWN = """k => [...document.querySelectorAll(
  `.st-key-${k} [data-testid='stNumberInputClearButton']`)]
  .filter(b => getComputedStyle(b).display !== 'none').length"""


def test_shortcuts_fire_on_the_page_and_a_switch_turns_them_off(server, page):
    open_page(page, server + "/step_through_cbboost?source=toy&toy=moons",
              ".st-key-step_once button")
    body = page.locator("h1").first
    badges = "[data-testid='stButton'] [data-has-shortcut='true']"
    assert page.locator(badges).count() == 3            # S, T and P on their buttons
    body.click()
    page.keyboard.press("s")                            # on: S steps
    wait_iteration(page, 1)
    page.keyboard.press("t")                            # T: ten steps
    wait_iteration(page, 11)
    switch = page.locator(".st-key-step_shortcuts")
    switch.get_by_text("Keyboard shortcuts").click()    # off
    page.wait_for_function(f"() => !document.querySelector(\"{badges}\")")
    settle(page)
    assert not switch.locator("input").is_checked()
    body.click()
    for key in ("s", "t", "p"):
        page.keyboard.press(key)
    step_once_more(page)                                # 12: none of them fired
    # kept for the session across pages
    page.get_by_role("link", name="Gradient vs exhaustive").click()
    page.locator(".st-key-gx_max_iter input").wait_for()
    settle(page)
    page.get_by_role("link", name="Step through an algorithm").click()
    page.locator(".st-key-step_once button").wait_for()
    settle(page)
    assert not page.locator(".st-key-step_shortcuts input").is_checked()
    assert page.locator(badges).count() == 0
    n = iteration(page)
    page.locator("h1").first.click()
    page.keyboard.press("s")
    step_once_more(page)
    assert iteration(page) == n + 1
    page.locator(".st-key-step_shortcuts").get_by_text("Keyboard shortcuts").click()  # on again
    page.locator(badges).first.wait_for()
    settle(page)
    page.locator("h1").first.click()
    page.keyboard.press("s")
    wait_iteration(page, n + 2)
