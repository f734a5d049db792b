"""Helpers shared by the tests: references recomputed from records, threads, Plotly arrays, the
browser tests' waits and workers."""
import threading

import numpy as np

WAIT = 120_000   # ms: a browser test's wait on a busy machine; each ends once its state holds


def replay(records, n, upto=None):
    """Weights rebuilt from the records' (index, alpha) pairs only (signed for signed runs)."""
    a = np.zeros(n)
    for rec in records[:upto]:
        a[rec.index] += rec.alpha
    return a


def values(v):
    """A Plotly JSON array (a list, or a typed array ``{"dtype", "bdata"}``) as floats."""
    if isinstance(v, dict):
        import base64
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"]).astype(float)
    return np.asarray(v, dtype=float)


def figure_specs(at):
    """The Plotly figures (dicts) an AppTest page shows: those of ``st.plotly_chart``, then
    those of :func:`cbviz.ui.live_chart.live_chart`, each kind in page order."""
    import json

    from cbviz.ui.live_chart import NAME, STORE, figure_of
    out = []
    for element in [*at.get("plotly_chart"), *at.get("bidi_component")]:
        proto = element.proto
        if hasattr(proto, "spec"):
            out.append(json.loads(proto.spec))
        elif proto.component_name == NAME:   # parts sent before: the session's store
            sent = at.session_state[STORE] if STORE in at.session_state else {}
            out.append(figure_of(proto.bytes, sent))
    return out


def status_lines(at):
    """The status lines (:func:`cbviz.ui.live_status.status_line`) of an AppTest page, in page
    order, their bold parts as Markdown writes them ("**Iteration 3** of 11: ...")."""
    from cbviz.ui.live_status import markdown_of
    return [t for t in (markdown_of(m.value) for m in at.markdown) if t is not None]


def check_valid(fig):
    """``fig``, built by :mod:`cbviz.plots` without Plotly's checks, is the figure Plotly's
    checks make of it (a wrong property raises; a value they would coerce, such as a named
    colorscale or a None, differs), and uses only what the cut template keeps."""
    import json

    import plotly.graph_objects as go

    from cbviz.plots.style import TRACE_TYPES
    spec = fig.to_dict()
    checked = go.Figure(spec)
    assert json.loads(checked.to_json()) == json.loads(fig.to_json())
    assert {t["type"] for t in spec["data"]} <= set(TRACE_TYPES)
    assert not {"geo", "polar", "scene", "ternary"} & set(spec["layout"])


def step_figures(problem, run, t):
    """The step page's two charts at iteration ``t`` of ``run`` (as the page draws them)."""
    from cbviz import plots
    s, rec = problem.split, run.history[t - 1]
    xe, ye, Z = problem.vote_grid(run.weights_at(t), n=80)
    stump = {"feature": int(problem.pool.feature_[rec.index]),
             "threshold": float(problem.pool.threshold_[rec.index]), "label": rec.label}
    regions = plots.decision_figure(xe, ye, Z, s.X_train, s.y_train, s.X_test, s.y_test,
                                    stump=stump, feature_names=s.feature_names, height=560,
                                    show_scale=False)
    return regions, plots.bounds_figure(run.to_frame(), current=t)


def lone_and_threaded(work, n_threads=6):
    """``work(i)`` once alone, then on ``n_threads`` threads released together:
    ``(lone results, threaded results, errors raised in the threads)``."""
    expected = [work(i) for i in range(n_threads)]
    results, errors = [None] * n_threads, []
    barrier = threading.Barrier(n_threads)

    def target(i):
        try:
            barrier.wait()
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - every failure is reported by the caller
            errors.append(repr(exc))

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return expected, results, errors


def require_chromium():
    """Skip the calling test module without a Chromium (:func:`cbviz.export.chromium_path`:
    BROWSER_PATH or a system one), or fail when CI requires the browser tests
    (CBVIZ_REQUIRE_BROWSER=1, set by ``.ci/run``)."""
    import os

    import pytest

    from benchmarks.browser import CHROMIUM

    if CHROMIUM is None or not os.path.exists(CHROMIUM):
        if os.environ.get("CBVIZ_REQUIRE_BROWSER"):
            raise RuntimeError(f"browser tests required but no Chromium was found ({CHROMIUM})")
        pytest.skip(f"no Chromium found ({CHROMIUM}; apt-get install chromium or set "
                    "BROWSER_PATH)", allow_module_level=True)


def chromium():
    """Debian's headless Chromium driven by Playwright, closed on exit (a context manager)."""
    from contextlib import contextmanager

    from playwright.sync_api import sync_playwright

    from benchmarks.browser import CHROMIUM, FLAGS

    @contextmanager
    def launched():
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            try:
                yield browser
            finally:
                browser.close()
    return launched()


def settle(page, timeout=WAIT):
    """Wait until the app is drawn and its script is idle (on the page's state, never a sleep)."""
    from benchmarks.browser import IDLE

    page.wait_for_selector("[data-testid='stAppViewContainer']", timeout=timeout)
    page.wait_for_function(IDLE, timeout=timeout)


def wait_text(page, text, timeout=WAIT):
    """Wait until ``text`` is on the page, then until the script is idle; when it does not
    come, say what the page shows instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.get_by_text(text, exact=False).first.wait_for(timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{text!r} not shown within {timeout} ms; {shown(page)}") from None
    settle(page, timeout)


def shown(page, chars=1500):
    """What a page shows, for a failure's message: its address, its connection and script
    states, and the start of its text (each read bounded: a page may be hung)."""
    from playwright.sync_api import Error as PlaywrightError

    from benchmarks.browser import STATES_JS

    try:
        states = page.locator("body").evaluate(STATES_JS, timeout=5000)
        text = page.locator("body").inner_text(timeout=5000)
    except PlaywrightError as exc:
        return f"the page at {page.url} could not be read ({exc.message.splitlines()[0]})"
    return (f"the page at {page.url} (connection, script: {states}) shows: "
            f"{text.replace(chr(10), ' / ')[:chars]!r}")


def worker_of(context, url):
    """The worker nginx sends this browser context's requests to (its cookie decides)."""
    response = context.request.get(url + "/_stcore/health")
    assert response.ok
    return response.headers["x-cbviz-worker"].split(",")[-1].strip()


def contexts_per_worker(browser, cls, per_worker):
    """Browser contexts (own cookies: own students) until each worker of the class server
    ``cls`` serves ``per_worker`` of them, the others closed: ``{address: [context, ...]}``."""
    kept = {w.address: [] for w in cls.workers}
    for _ in range(40):
        if all(len(v) >= per_worker for v in kept.values()):
            break
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        worker = worker_of(context, cls.url)
        if len(kept[worker]) < per_worker:
            kept[worker].append(context)
        else:
            context.close()
    assert all(len(v) == per_worker for v in kept.values()), "the cookie hash never spread"
    return kept
