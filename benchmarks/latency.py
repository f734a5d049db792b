"""Click-to-idle latency of the app in headless Chromium, beside a bare one-button app.

``python -m benchmarks.latency [--steps 15] [--play-steps 12]`` starts the real app and
``benchmarks/bare_app.py`` on free local ports, drives both in one headless Chromium
(:mod:`benchmarks.browser`, through Playwright) and prints, in milliseconds:

* bare rerun: click on the bare app's button until its counter shows the new value and the
  script is idle, twice: with Streamlit's default settings (a full garbage collection after
  every run) and with the app's ``cbviz/app/.streamlit/config.toml`` (without it);
* Step on the step page (two-moons toy set, breast cancer): click on Step until the status line
  shows the new iteration, the script is idle and every chart has drawn its new figure (each
  :func:`cbviz.ui.live_chart.live_chart` counts its redraws);
* Play at 0.25 s per step (a run that does not stop early: eligible='all' with re-used
  voters): wall time per iteration on screen while playing, the interval between redraws,
  then Pause: click until the Play button is back, and how many steps were taken after it.

Every wait is on the page's state (a text, the script-state attribute), never a fixed sleep.
The ratio Step / bare rerun is the project's target (<= 3); it is printed against both bare
apps.
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import time
from pathlib import Path

from cbviz.app import ENTRY
from cbviz.app.streamlit_server import serve

from .browser import CHROMIUM, FLAGS, IDLE

SHOWN = ("n => { const m = document.body.innerText.match(/Iteration (\\d+) of (\\d+)/);"
         " return m && Number(m[2]) >= n; }")
BARE_DEFAULT = "bare rerun, Streamlit defaults"
BARE_TUNED = "bare rerun, cbviz settings"
MARK = ("() => document.querySelectorAll('.cbviz-live-chart')"
        ".forEach(d => { d.dataset.before = d.dataset.draws || '0'; })")
REDRAWN = ("() => [...document.querySelectorAll('.cbviz-live-chart')]"
           ".every(d => Number(d.dataset.draws || 0) > Number(d.dataset.before || 0))")
LAST = ("() => { const m = document.body.innerText.match(/Iteration \\d+ of (\\d+)/);"
        " return m ? Number(m[1]) : 0; }")


def _open(page, url):
    page.goto(url)
    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)


def bare_reruns(page, url, n):
    """Milliseconds from a click on the bare app's button to its new counter, idle."""
    _open(page, url)
    out = []
    for k in range(1, n + 1):
        t0 = time.perf_counter()
        page.get_by_role("button", name="Click").click()
        page.get_by_text(f"clicks: {k}", exact=True).wait_for(timeout=60_000)
        page.wait_for_function(IDLE, timeout=60_000)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def steps(page, url, n):
    """Milliseconds from a click on Step to the next iteration on screen, idle, charts drawn."""
    _open(page, url)
    out = []
    for k in range(1, n + 1):
        page.evaluate(MARK)  # a chart mounted by the step has no mark: its first draw counts
        t0 = time.perf_counter()
        page.locator(".st-key-step_once button").click()
        page.wait_for_function(SHOWN, arg=k, timeout=60_000)
        page.wait_for_function(IDLE, timeout=60_000)
        page.wait_for_function(REDRAWN, timeout=60_000)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def play(page, url, n):
    """Seconds per step while playing (iterations on screen over wall time, ms), the redraw
    intervals (ms), Pause latency (ms) and the steps taken after the Pause click."""
    _open(page, url)
    page.locator(".st-key-step_play button").click()
    seen, stamps, shown = 0, [], []
    while len(stamps) <= n:
        page.wait_for_function(SHOWN, arg=seen + 1, timeout=60_000)
        stamps.append(time.perf_counter())
        seen = page.evaluate(LAST)
        shown.append(seen)
    t0 = time.perf_counter()
    at_pause = page.evaluate(LAST)
    # the button is redrawn at every step while playing: click it whatever its redraw state
    page.locator(".st-key-step_play button").click(force=True)
    page.locator(".st-key-step_play button", has_text="Play").wait_for(timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)
    pause_ms = (time.perf_counter() - t0) * 1e3
    extra = page.evaluate(LAST) - at_pause
    intervals = [(b - a) * 1e3 for a, b in itertools.pairwise(stamps)]
    per_step = (stamps[-1] - stamps[0]) * 1e3 / max(1, shown[-1] - shown[0])
    return per_step, intervals, pause_ms, extra


def _summary(name, values):
    return (f"{name:34s} median {statistics.median(values):7.0f}  "
            f"min {min(values):7.0f}  max {max(values):7.0f}  (n={len(values)})")


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=15, help="clicks per measurement")
    ap.add_argument("--play-steps", type=int, default=12, help="iterations timed while playing")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    bare_app = Path(__file__).with_name("bare_app.py")
    with (serve(bare_app, "--runner.postScriptGC", "true") as default_server,
          serve(bare_app) as tuned_server,
          serve(ENTRY) as app_server, sync_playwright() as p):
        bares = {BARE_DEFAULT: default_server.url, BARE_TUNED: tuned_server.url}
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        rows = {name: bare_reruns(page, url, args.steps) for name, url in bares.items()}
        step_page = app_server.url + "/step_through_cbboost?"
        rows["Step, moons"] = steps(page, step_page + "source=toy&toy=moons", args.steps)
        rows["Step, breast cancer"] = steps(page, step_page + "source=real&real=breast_cancer",
                                            args.steps)
        for name, url in bares.items():  # again: the machine may have drifted
            rows[name] += bare_reruns(page, url, args.steps)
        plays = {speed: play(page, step_page + f"source=toy&toy=moons&speed={speed}&max_iter=2000"
                                  "&eligible=all&reuse_voters=true", args.play_steps)
                 for speed in (0.25, 0.5)}
        browser.close()
    print("Click-to-idle latency in headless Chromium (ms)")
    for name, values in rows.items():
        print(_summary(name, values))
    for speed, (per_step, intervals, pause_ms, extra) in plays.items():
        print(f"{f'Play at {speed} s/step: time per step':34s} {per_step:7.0f} ms "
              f"({per_step / (1000 * speed):.2f} x the setting; target 0.8-1.2)")
        print(_summary(f"Play at {speed} s: between redraws", intervals))
        print(f"{f'Pause at {speed} s: click to Play back':34s} {pause_ms:7.0f} ms, "
              f"{extra} step(s) taken after the click")
    for bare in bares:
        for name in ("Step, moons", "Step, breast cancer"):
            ratio = statistics.median(rows[name]) / statistics.median(rows[bare])
            print(f"{name} / {bare} = {ratio:.2f} (target <= 3)")


if __name__ == "__main__":
    main()
