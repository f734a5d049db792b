"""The address bar is whole at every moment of a run (:mod:`cbviz.ui.address`).

Streamlit sends the address to the browser at each write, while the run goes on; a reload at
that moment opens what the bar holds.  A protocol tab on the real app records every address
the server sends: each one, from the first run of a session (a reload, a restarted worker) to
the last, carries the page's own keys (a class link's student, a lesson's stage, the step
page's run) beside the settings.  Before, the sidebar wrote the settings alone first, and a
kill drill's student who reloaded then landed on the lesson list, no longer in the class.
"""
import asyncio
from urllib.parse import parse_qs, urlencode

from benchmarks.protocol import Tab
from cbviz.app.streamlit_server import serve
from cbviz.classroom import DATABASE_ENV, open_database
from cbviz.lessons import LESSONS

LESSON = 4
CHOICES = LESSONS[LESSON - 1].stage(1).question.choices


def asks(tab, n, k):
    """Whether the tab shows lesson ``n``'s stage ``k`` (its question)."""
    return any(LESSONS[n - 1].stage(k).question.text in text for text in tab.texts())
MOONS = {"source": "toy", "toy": "moons", "n_samples": "300", "toy_noise": "0.25",
         "pool": "stumps", "n_thresholds": "10"}


def keys(address):
    return {k: v[-1] for k, v in parse_qs(address, keep_blank_values=True).items()}


def assert_every_address_has(addresses, expected):
    assert addresses, "the server sent no address"
    for i, address in enumerate(addresses):
        have = keys(address)
        assert expected.items() <= have.items(), (i, address)
        assert "toy" in have and "pool" in have, (i, address)   # the settings, too


def test_a_class_link_keeps_the_student_and_the_stage_in_every_address(tmp_path):
    store = str(tmp_path / "classes.sqlite3")
    db = open_database(store)
    pacing, _ = db.create_class(LESSON)
    _, token = db.join(pacing.code, "Ada")
    link = {"class": pacing.code, "me": token, "lesson": str(LESSON), "stage": "1"}

    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("lessons", urlencode(link))
            assert tab.search("you are Ada") and asks(tab, LESSON, 1)
            assert_every_address_has(tab.addresses, link)
            opened = len(tab.addresses)
            await tab.set("Your guess", CHOICES[0])
            await tab.submit("Lock in my guess")
            assert tab.search(f"Your guess: {CHOICES[0]}")
            assert len(tab.addresses) > opened   # the lock's runs wrote the address again
            assert_every_address_has(tab.addresses, link)
            assert keys(tab.addresses[-1])["guess"] == CHOICES[0]

    with serve(env={DATABASE_ENV: store}) as server:
        asyncio.run(scenario(server.url))


def test_the_step_page_keeps_its_run_in_every_address_and_the_lesson_list_drops_a_stage():
    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("step_through_cbboost", urlencode({**MOONS, "algorithm": "cbboost", "steps": "3"}))
            assert tab.search("Iteration 3 of 3")
            assert_every_address_has(tab.addresses, {"algorithm": "cbboost", "steps": "3"})
            opened = len(tab.addresses)
            await tab.click("Step")
            assert tab.search("Iteration 4 of 4")
            assert_every_address_has(tab.addresses[:opened], {"steps": "3"})
            assert_every_address_has(tab.addresses[opened:], {"algorithm": "cbboost",
                                                              "steps": "4"})

            await tab.open("lessons", urlencode({"lesson": "2", "stage": "3"}))
            assert asks(tab, 2, 3)
            assert_every_address_has(tab.addresses, {"lesson": "2", "stage": "3"})
            await tab.click("All lessons")
            assert tab.search("Seven guided lessons")
            after = keys(tab.addresses[-1])   # the list: no lesson in its link
            assert "lesson" not in after and "stage" not in after and "toy" in after

    with serve() as server:
        asyncio.run(scenario(server.url))
