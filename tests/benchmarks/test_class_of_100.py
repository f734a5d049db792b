"""``benchmarks.class_of_100`` in a quick run (``--quick``: a few tabs and seconds; the full run
is ``python -m benchmarks.class_of_100``).

Its report must have every row, with sane counts, bytes and no error.  Nothing is timed: a
latency or a CPU figure is only checked to be there.  Scenarios 2 and 3 (behind nginx) need
Debian's nginx (``.ci/run`` installs it; CBVIZ_REQUIRE_BROWSER=1 makes its absence a failure).
"""
import asyncio
import os
from collections import Counter
from pathlib import Path

import pytest

from benchmarks._class_of_100_run import FLOOR, LESSON, RESET, STEP, STEP_PAGE, Student
from benchmarks._class_of_100_serve import REPO, served
from benchmarks.class_of_100 import PRESETS, main
from cbviz.app.serve import NGINX

QUICK = PRESETS["quick"]
HAS_NGINX = Path(NGINX).exists()
if not HAS_NGINX and os.environ.get("CBVIZ_REQUIRE_BROWSER"):
    raise RuntimeError(f"the serving tests are required but nginx was not found ({NGINX})")
needs_nginx = pytest.mark.skipif(not HAS_NGINX, reason=f"no nginx ({NGINX})")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "class_of_100.md"
    scenarios = ["1", "2", "3", "4"] if HAS_NGINX else ["1", "4"]
    result = main(["--quick", "--scenarios", *scenarios, "--out", str(out)])
    return result, out.read_text()


def test_the_report_names_the_machine_the_code_and_every_scenario(quick):
    result, text = quick
    assert text == result.markdown() + "\n"
    for line in ("- **Command**: `python -m benchmarks.class_of_100 --quick", "- **Date**: ",
                 "- **Machine**: ", " cores (", "Streamlit 1.", "nginx",
                 f"- **Served code**: `{REPO}` at `"):
        assert line in text, line
    for number in result.sections:
        assert f"\n## {number}. " in text
    assert text.count("Load average at the start: ") == len(result.sections)


def test_scenario_1_measures_every_open_and_step_of_the_pages_and_the_floor(quick):
    result, text = quick
    pages = result.sections[1]["pages"]
    assert [c.page for c in pages] == [STEP_PAGE, LESSON, FLOOR]
    for c in pages:
        assert c.errors() == []
        assert len(c.opens) == QUICK["opens"] and len(c.steps) == QUICK["steps"]
        for m in [c.warm, *c.opens, *c.steps]:
            assert m.action.done and m.action.bytes > 0 and m.action.messages > 0
            assert m.cpu > 0 and m.wall > 0
        rows = ["page load, the worker's first", "page load (3 after the warm-up)",
                "Step, all", "Step: the page's first on this worker", "Step: the others"]
        if c.page != FLOOR:
            # the step page's run stops after ~15 Steps, the lesson stage's after 10: a new
            # series (the floor's Step never stops)
            assert c.firsts[0] == 0 and len(c.firsts) >= 2 and c.uncounted >= 1
            rows.append("Step: first of each later series")
        for what in rows:
            row = f"| {c.page.name}: {what}"
            assert row in text, row
        assert f"`{c.page.link}`" in text
    assert "nan" not in text.split("## 1.")[1].split("\n## ")[0]


def test_the_floor_draws_as_many_elements_per_step_as_the_step_page(quick):
    """Streamlit's floor stands for the step page: its Step sends the same number of
    ForwardMsgs (its elements, one each, and the run's own messages)."""
    step, _, floor = quick[0].sections[1]["pages"]
    counts = [Counter(m.action.messages for i, m in enumerate(c.steps) if i not in c.firsts)
              for c in (step, floor)]
    # the step page's last Step before its run stops adds the "Stopped after" notice
    assert counts[0].most_common(1)[0][0] == counts[1].most_common(1)[0][0], counts


def _check_crowd(crowd, students, steps):
    assert crowd.errors() == []
    opens = crowd.actions("open")
    assert len(opens) == students and all(a.done and a.bytes > 0 for a in opens)
    clicks = crowd.actions("click")
    assert len(clicks) >= steps and all(a.done and a.bytes > 0 for a in clicks)
    assert crowd.cpu["open"] > 0


@needs_nginx
def test_scenario_2_every_student_steps_on_a_worker_of_the_class(quick):
    result, text = quick
    crowd = result.sections[2]["crowd"]
    _check_crowd(crowd, QUICK["students"], QUICK["students"])
    split = crowd.split()
    assert "unknown" not in split and sum(split.values()) == QUICK["students"]
    assert set(split) == set(crowd.pids) - {"nginx"}
    assert f"| {QUICK['students']} × 2 | {len(crowd.actions('click'))} / " in text


@needs_nginx
def test_scenario_3_every_student_opens_the_class_link(quick):
    result, text = quick
    crowd = result.sections[3]["crowd"]
    _check_crowd(crowd, QUICK["students"], 0)
    assert crowd.actions("click") == [] and "unknown" not in crowd.split()
    assert "?lesson=2&stage=1&hide=navigation,sidebar" in text
    assert f"| {QUICK['students']} of {QUICK['students']} | 0 |" in text


def test_scenario_4_measures_each_number_of_students_on_one_worker(quick):
    result, text = quick
    crowds = result.sections[4]["crowds"]
    assert [n for n, _ in crowds] == QUICK["ns"]
    for n, crowd in crowds:
        _check_crowd(crowd, n, n)
        assert f"\n| {n} | " in text
    assert "**Step p95 passes 1 s first at N = " in text or \
        f"**Step p95 does not pass 1 s up to N = {QUICK['ns'][-1]}**" in text


def test_a_student_whose_run_stopped_resets_it_and_the_reset_is_no_step():
    async def scenario(url):
        tab = Student(url, timeout=180)
        try:
            await tab.open(STEP_PAGE.path, STEP_PAGE.query)
            for _ in range(40):   # until the run stops (~15 Steps)
                if tab.widget(STEP).disabled:
                    break
                await tab.click(STEP)
            await tab.click(STEP)   # on the stopped run: Reset, then the Step
            return tab
        finally:
            await tab.close()
    with served(REPO) as server:
        tab = asyncio.run(scenario(server.url))
    kinds = [a.kind for a in tab.actions]
    assert kinds[-2:] == ["reset", "click"] and kinds.count("reset") == 1, kinds
    assert [a.target for a in tab.actions[-2:]] == [RESET, STEP]
    assert tab.errors == [] and tab.search(r"Iteration 1 of 1") is not None
