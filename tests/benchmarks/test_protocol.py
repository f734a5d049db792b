"""``benchmarks.protocol``: a tab that speaks Streamlit's websocket protocol, on the real app.

The fast tests drive the protocol client alone.  The browser tests (marked ``browser``) make
the same clicks in Chromium, capture the ``BackMsg`` frames it sends (Playwright's
``framesent``) and its websocket handshake (the DevTools protocol), and compare them field by
field with what the tab sent, then check both reached the same page.

What is allowed to differ, and why:

* the order of ``widget_states.widgets``: the frontend lists them in the order React mounted
  the widgets; they are compared by widget id;
* the order of ``cached_message_hashes``: insertion order of the frontend's cache, compared as
  a set;
* the handshake's second subprotocol entry, the XSRF token: each client gets its own cookie
  from its own page load (compared as "the value of that client's ``_streamlit_xsrf``
  cookie"); ``Sec-WebSocket-Key``, ``User-Agent`` and the session id the server assigns are
  per connection and not compared.

Chromium runs with the tab's context (locale en-US, time zone UTC, light colour scheme), so
``context_info`` is compared whole, its ``url`` included.
"""
import asyncio

import pytest

from benchmarks.browser import CHROMIUM, DRAWN, FLAGS
from benchmarks.protocol import Tab, TabClosed, WidgetError, normalized, plain
from benchmarks.students import STATUS
from cbviz.app.streamlit_server import serve

STEP = "step_through_cbboost"
LINK = "source=toy&toy=moons&n_samples=300&toy_noise=0.25&pool=stumps&n_thresholds=10"
HOME_TITLE = "cbviz: learn the C-bound by watching it fall"
TIMEOUT = 120  # s: a busy 2-core machine; every wait is on a message or on page state


server_pid = {}  # url -> process id of the module's server


@pytest.fixture(scope="module")
def server():
    with serve() as running:   # results in the tests' data folder (conftest)
        server_pid[running.url] = running.pid
        yield running.url


def run(coroutine):
    return asyncio.run(coroutine)


# --- the tab alone ----------------------------------------------------------------------------

def test_the_home_page_and_the_lessons_page_show_their_titles(server):
    async def scenario():
        async with Tab(server, timeout=TIMEOUT) as tab:
            home = await tab.open()
            titles = [tab.headings()[0]]
            lessons = await tab.open("lessons")
            titles.append(tab.headings()[0])
            return home, lessons, titles, tab
    home, lessons, titles, tab = run(scenario())
    assert titles == [HOME_TITLE, "Lessons"]
    assert tab.url_path == "lessons" and tab.pages["lessons"] == tab.page_script_hash
    for action in (home, lessons):
        assert action.done and not action.errors
        assert action.bytes > 1000 and action.messages > 10
        assert 0 < action.connect < action.latency
    assert tab.exceptions() == [] and tab.errors == []


def test_a_click_runs_the_script_and_follows_the_page_it_switches_to(server):
    async def scenario():
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open()
            click = await tab.click("Start on the two-moons toy set")
            return click, tab
    click, tab = run(scenario())
    assert click.done and not click.errors and click.latency > 0
    assert tab.url_path == STEP and tab.page_script_hash == tab.pages[STEP]
    assert "Step through CB-Boost" in tab.headings()
    assert HOME_TITLE not in tab.headings()  # the home page's elements are gone
    assert "source=toy" in tab.query_string and "toy=moons" in tab.query_string
    sent = tab.sent[-1].rerun_script
    assert [w.trigger_value for w in sent.widget_states.widgets if w.id.endswith("home_start")] \
        == [True]


def test_an_unknown_label_is_a_clear_error_and_a_widget_is_found_by_its_key(server):
    async def scenario():
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open(STEP, LINK)
            with pytest.raises(WidgetError) as unknown:
                await tab.click("No such button")
            with pytest.raises(WidgetError) as wrong_kind:
                await tab.click("Algorithm")
            with pytest.raises(WidgetError) as bad_option:
                await tab.set("Algorithm", "No such algorithm")
            return unknown.value, wrong_kind.value, bad_option.value, tab
    unknown, wrong_kind, bad_option, tab = run(scenario())
    assert "no widget 'No such button' on page /step_through_cbboost" in str(unknown)
    assert "'Step' (button, key step_once)" in str(unknown)  # what the page has instead
    assert "'Algorithm' is a selectbox, not a button" in str(wrong_kind)
    assert "no option 'No such algorithm'" in str(bad_option) and "CqBoost" in str(bad_option)
    assert len(tab.sent) == 1  # nothing was sent for the refused actions
    assert tab.widget("Step").key == "step_once" and tab.widget("step_once").label == "Step"


def test_a_selectbox_changed_by_option_or_by_index(server):
    async def scenario():
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open(STEP, LINK)
            options = tab.widget("Algorithm").options
            await tab.set("Algorithm", "CqBoost")
            by_name = tab.headings()[0], tab.widget("Algorithm").value
            await tab.set("Algorithm", options.index("CB-Boost"))
            by_index = tab.headings()[0], tab.widget("Algorithm").value
            return by_name, by_index, tab
    by_name, by_index, tab = run(scenario())
    assert by_name == ("Step through CqBoost", "CqBoost")
    assert by_index == ("Step through CB-Boost", "CB-Boost")
    assert "algorithm=cqboost" in normalized(tab.sent[2])["query_string"]  # the link followed
    assert not tab.errors


def test_a_forms_values_wait_for_its_submit_button(server):
    async def scenario():
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open("lessons")
            await tab.click("Start", key="lesson_start_1")
            before = len(tab.sent)
            kept = await tab.set("Your guess", 0.5)  # in a form: nothing sent yet
            held = len(tab.sent) - before, tab.widget("Your guess").value
            submitted = await tab.submit("Lock in my guess")
            return kept, held, submitted, tab
    kept, held, submitted, tab = run(scenario())
    assert kept is None and held == (0, 0.5)
    states = normalized(tab.sent[-1])["widget_states"]
    guess = [v for k, v in states.items() if k.endswith("lesson_q_1_1")]
    lock = [v for k, v in states.items() if k.endswith("lesson_lock_1_1")]
    assert guess == [("double_value", 0.5)] and lock == [("trigger_value", True)]
    assert submitted.done and not submitted.errors
    assert tab.search(r"Your guess: 0\.5\b") is not None
    assert "guess=0.5" in tab.query_string


def test_a_socket_the_server_closes_is_an_error_not_a_hang():
    """A websocket server that takes the handshake, reads the first BackMsg and closes."""
    from websockets.asyncio.server import serve as ws_serve

    async def handler(ws):
        await ws.recv()
        await ws.close(1011, "gone")

    async def scenario():
        async with ws_serve(handler, "127.0.0.1", 0, subprotocols=["streamlit"]) as fake:
            port = fake.sockets[0].getsockname()[1]
            tab = Tab(f"http://127.0.0.1:{port}", timeout=TIMEOUT, http=False)
            with pytest.raises(TabClosed) as closed:
                await tab.open()
            await tab.close()
            return closed.value, tab
    closed, tab = run(scenario())
    assert "1011: gone" in str(closed)
    assert tab.actions[0].errors == ["websocket closed (1011: gone)"] and not tab.actions[0].done
    assert tab.handshake["subprotocols"] == ["streamlit", "PLACEHOLDER_AUTH_TOKEN"]


TICKS = """
import streamlit as st

st.title("Ticks")
if st.toggle("Fast", key="fast"):
    st.caption("fast on")


@st.fragment(run_every=0.3)
def ticks():
    st.session_state.n = st.session_state.get("n", 0) + 1
    st.markdown(f"tick **{st.session_state.n}**")


ticks()
"""


def test_a_fragment_with_run_every_is_rerun_on_its_schedule(tmp_path):
    """The frontend reruns a ``run_every`` fragment on a timer (``auto_rerun``); so does the
    tab, and a change of another widget meanwhile goes as usual."""
    script = tmp_path / "ticks.py"
    script.write_text(TICKS)

    def ticked(n):
        return lambda tab: (m := tab.search(r"tick (\d+)")) is not None and int(m[1]) >= n

    async def scenario(url):
        async with Tab(url, timeout=TIMEOUT) as tab:
            await tab.open()
            await tab.wait_for(ticked(3))
            await tab.set("Fast", True)
            await tab.wait_for(ticked(5))
            return tab
    with serve(script) as running:
        tab = run(scenario(running.url))
    auto = [m.rerun_script for m in tab.sent if m.rerun_script.is_auto_rerun]
    assert len(auto) >= 3 and all(c.fragment_id for c in auto)
    assert "fast on" in tab.texts() and not tab.errors
    assert not tab._timers  # closing the tab stopped them


# --- the tab against Chromium -----------------------------------------------------------------

ITERATION_JS = ("() => { const m = document.body.innerText.match(/Iteration (\\d+) of (\\d+)/);"
                " return m ? Number(m[2]) : 0; }")


async def _chromium(url, address, clicks):
    """Open ``url/address`` in Chromium, make ``clicks`` (async functions of the page), and
    return the BackMsg frames it sent, its websocket handshake's subprotocols, its XSRF
    cookie, the page's text and query string."""
    from playwright.async_api import async_playwright
    frames, handshakes = [], []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = await browser.new_context(locale="en-US", timezone_id="UTC",
                                            color_scheme="light",
                                            viewport={"width": 1280, "height": 800})
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT * 1000)
        cdp = await context.new_cdp_session(page)
        await cdp.send("Network.enable")
        cdp.on("Network.webSocketWillSendHandshakeRequest",
               lambda e: handshakes.append(e["request"]["headers"]))
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(payload)))
        await page.goto(f"{url}/{address}")
        await page.wait_for_selector("[data-testid='stAppViewContainer']")
        await page.wait_for_function(DRAWN)  # a person clicks a page once it is drawn
        for click in clicks:
            await click(page)
            await page.wait_for_function(DRAWN)
        cookies = {c["name"]: c["value"] for c in await context.cookies()}
        text = await page.evaluate("() => document.body.innerText")
        search = await page.evaluate("() => window.location.search")
        iteration = await page.evaluate(ITERATION_JS)
        await browser.close()
    protocols = [v for h in handshakes for k, v in h.items()
                 if k.lower() == "sec-websocket-protocol"]
    return frames, protocols, cookies.get("_streamlit_xsrf"), text, search, iteration


def compare(chromium_frames, tab):
    """Every difference between Chromium's BackMsgs and the tab's, field by field."""
    theirs = [normalized(bytes(f) if isinstance(f, (bytes, bytearray)) else f.encode())
              for f in chromium_frames]
    ours = [normalized(m) for m in tab.sent]
    out = []
    if len(theirs) != len(ours):
        out.append(f"Chromium sent {len(theirs)} BackMsgs, the tab {len(ours)}")
    for i, (a, b) in enumerate(zip(theirs, ours)):
        for name in sorted(set(a) | set(b)):
            if name == "widget_states":
                sa, sb = a.get(name, {}), b.get(name, {})
                for wid in sorted(set(sa) | set(sb)):
                    if sa.get(wid, "absent") != sb.get(wid, "absent"):
                        out.append(f"message {i} widget {wid}: Chromium "
                                   f"{sa.get(wid, 'absent')}, tab {sb.get(wid, 'absent')}")
            elif a.get(name) != b.get(name):
                out.append(f"message {i} {name}: Chromium {a.get(name)!r}, tab "
                           f"{b.get(name)!r}")
    return out


def check_handshake(protocols, cookie, tab):
    assert len(protocols) == 1  # one websocket
    assert [p.strip() for p in protocols[0].split(",")] == ["streamlit", cookie]
    assert tab.handshake["subprotocols"] == ["streamlit", tab.handshake["cookie"]]
    assert tab.handshake["cookie"] and tab.handshake["cookie"] != cookie  # each its own


@pytest.mark.browser
def test_three_steps_send_what_chromium_sends_and_reach_the_same_iteration(server):
    from helpers import require_chromium
    require_chromium()

    def step(i):
        async def click(page):
            await page.locator(".st-key-step_once button").click()
            # the chart picker (pills) appears with the first Step, loaded on demand: the wait
            # on DRAWN after each click lets it give its state before the next one
            await page.get_by_text(f"Iteration {i} of {i}").first.wait_for()
        return click

    async def scenario():
        chromium = await _chromium(server, f"{STEP}?{LINK}", [step(i) for i in (1, 2, 3)])
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open(STEP, LINK)
            for _ in range(3):
                await tab.click("Step")
        return chromium, tab

    (frames, protocols, cookie, text, search, iteration), tab = run(scenario())
    assert compare(frames, tab) == []
    assert len(tab.sent) == 4 and tab.sent[1].rerun_script.fragment_id  # Step: in a fragment
    check_handshake(protocols, cookie, tab)
    # the same page: the iteration, the status line, the link
    assert iteration == 3
    assert int(tab.search(r"Iteration (\d+) of (\d+)").group(2)) == 3
    status = tab.search(STATUS.pattern).group(0)
    assert STATUS.search(text).group(0) == status
    assert search == "?" + tab.query_string
    assert all(a.done and not a.errors for a in tab.actions) and not tab.errors


@pytest.mark.browser
def test_a_lesson_form_sends_what_chromium_sends(server):
    """Start lesson 1 (a button on another page: the app switches page), type a guess in the
    form's number input and lock it in (the form's submit button)."""
    from helpers import require_chromium
    require_chromium()

    async def start(page):
        await page.locator(".st-key-lesson_start_1 button").click()
        await page.get_by_text("Lesson 1:").first.wait_for()

    async def guess(page):
        await page.wait_for_function(DRAWN)
        await page.get_by_label("Your guess").fill("0.5")
        await page.get_by_role("button", name="Lock in my guess").click()
        await page.get_by_text("Your run says").first.wait_for()

    async def scenario():
        chromium = await _chromium(server, "lessons", [start, guess])
        async with Tab(server, timeout=TIMEOUT) as tab:
            await tab.open("lessons")
            await tab.click("Start", key="lesson_start_1")
            await tab.set("Your guess", 0.5)
            await tab.submit("Lock in my guess")
        return chromium, tab

    (frames, protocols, cookie, text, search, _), tab = run(scenario())
    assert compare(frames, tab) == []
    check_handshake(protocols, cookie, tab)
    verdict = plain(next(t for t in tab.texts() if "Your run says" in t))
    assert " ".join(verdict.split()) in " ".join(text.split())
    assert search == "?" + tab.query_string
    assert all(a.done and not a.errors for a in tab.actions) and not tab.errors


# --- many tabs: the command line ----------------------------------------------------------------

def test_the_command_line_opens_tabs_clicks_and_reports(server, capsys):
    from benchmarks._protocol_load import percentile
    from benchmarks.protocol import main
    pid = int(server_pid[server])
    result = main(["--url", server, "--page", STEP, "--query", LINK, "--tabs", "2",
                   "--click", "Step", "--every", "1", "--duration", "2", "--server-pid",
                   str(pid), "--timeout", str(TIMEOUT)])
    out = capsys.readouterr().out
    assert out.startswith(f"2 tabs on {server}/{STEP}?{LINK}, clicking 'Step' every 1 s")
    assert "page load: 2 of 2 finished" in out and "errors: 0" in out
    clicks = result.actions("click")
    assert len(clicks) >= 2 and all(a.done and a.bytes > 0 for a in clicks)
    assert f"action: {len(clicks)} of {len(clicks)} finished" in out
    assert result.cpu["open"] > 0 and result.cpu["click"] > 0 and result.health
    assert all(t._ws is None for t in result.tabs)  # every tab closed
    assert percentile([3, 1, 2, 4], 50) == 2 and percentile([3, 1, 2, 4], 95) == 4
