"""What a Step sends (issue #29), read by a protocol-level tab on the real app: a size, not a
time.  Two moons, 10 thresholds, CB-Boost, the step page's default charts (the plane and the
risk bounds)."""
import asyncio
import json
from urllib.parse import parse_qs

from helpers import step_figures

from benchmarks.protocol import Tab
from cbviz.algorithms.registry import make_algorithm
from cbviz.app.streamlit_server import serve
from cbviz.problem import Settings, build_problem

LINK = {"source": "toy", "toy": "moons", "n_samples": "300", "toy_noise": "0.25",
        "pool": "stumps", "n_thresholds": "10"}
BUDGET = 10_000  # bytes of ForwardMsgs a Step may send (issue #29)


def test_a_step_sends_at_most_10_kB_and_the_figures_the_package_draws():
    settings = Settings.from_link(LINK)[0]
    problem = build_problem(settings)
    run = problem.start(make_algorithm("cbboost", 100, settings.delta))

    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("step_through_cbboost", "&".join(f"{k}={v}" for k, v in LINK.items()))
            sizes = []
            for t in range(1, 7):
                action = await tab.click("Step")
                sizes.append(action.bytes)
                run.step()
                assert tab.search(rf"Iteration {t} of {t}")
                # the figures the page drew from the parts it was sent, this Step's and earlier
                expected = [json.loads(f.to_json()) for f in step_figures(problem, run, t)]
                assert tab.charts() == expected
            return sizes

    with serve() as server:
        sizes = asyncio.run(scenario(server.url))
    # the first Step draws the risk bounds' chart for the first time (its layout, its traces)
    assert all(size <= BUDGET for size in sizes[1:]), sizes


def test_a_lesson_step_sends_the_stage_only():
    """Lesson 2, stage 3 (Step to 12 voters): a Step redraws the stage, not the page around
    it (the sidebar's glossary, the teacher's tools): at most 10 kB, the vote one voter
    larger and the link following it; Next, once revealed, redraws the whole page."""
    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("lessons", "lesson=2&stage=3")
            await tab.set("Your guess", 0)
            await tab.submit("Lock in my guess")
            sizes = []
            start = int(tab.search(r"The vote has (\d+) voters").group(1))
            for i in range(1, 4):
                action = await tab.click("Step")
                sizes.append(action.bytes)
                assert not action.errors
                assert tab.search(rf"The vote has {start + i} voters")
                assert f"steps={start + i}" in tab.query_string
            await tab.click(tab.widget("Step to 12 voters").label)
            assert tab.search(r"The vote has 12 voters")
            await tab.click("Next stage")
            assert "stage=4" in tab.query_string and tab.search(r"^Answer first")
            return sizes

    with serve() as server:
        sizes = asyncio.run(scenario(server.url))
    assert all(size <= BUDGET for size in sizes), sizes


def test_a_lesson_slider_redraws_its_stage_with_the_new_point():
    """Lesson 1, stage 2 (drag d to 0.40): the slider redraws the stage alone, and that redraw
    reads the point just set (the verdict comes at once, the link carries it)."""
    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("lessons", "lesson=1&stage=2")
            await tab.set("Your guess", "the C-bound falls")
            await tab.submit("Lock in my guess")
            assert not tab.search(r"^Your guess: the C-bound falls\. Right\.")
            action = await tab.set("Disagreement d", 0.4)
            assert not action.errors and action.bytes <= BUDGET
            assert tab.search(r"^Your guess: the C-bound falls\. Right\.")
            assert "d=0.4" in tab.query_string

    with serve() as server:
        asyncio.run(scenario(server.url))


def test_a_reset_redraws_the_steps_part_only():
    """Reset (a class that reaches the end together resets together): the run starts again
    in the part that a Step redraws, not in the whole page, and the link follows."""
    async def scenario(url):
        async with Tab(url, timeout=120) as tab:
            await tab.open("step_through_cbboost", "&".join(f"{k}={v}" for k, v in LINK.items()))
            await tab.click("To the end")
            assert tab.search(r"^Stopped after \d+ iterations")
            action = await tab.click("Reset")
            assert not action.errors and action.bytes <= BUDGET, action
            assert tab.search(r"^Press Step to take the first iteration")
            assert not tab.search(r"^Stopped after")
            link = parse_qs(tab.query_string)
            assert link["steps"] == ["0"] and "view" not in link
            await tab.click("Step")
            link = parse_qs(tab.query_string)
            assert tab.search(r"Iteration 1 of 1") and link["steps"] == link["view"] == ["1"]

    with serve() as server:
        asyncio.run(scenario(server.url))
