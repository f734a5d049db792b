"""axe-core's WCAG 2.0/2.1 A and AA audit of the real app in headless Chromium (issue #30).

One test per state of :data:`benchmarks.accessibility.STATES` (every page as opened from the
navigation, lesson 2's first stage before and after its reveal, the step page after 5 Steps,
Compare after a run, Paper experiments with Fig. 5's results), each in a fresh tab, the window
1280 px wide and as tall as the content (Streamlit scrolls inside its own boxes and axe rates
only on-screen text).  A test fails on any serious or critical node of the project's content
and prints each (rule, selector, html, what axe measured).

Allowed: the nodes of :data:`KNOWN`, Streamlit's own widget internals that the project can
neither style nor label, each entry a rule, a pattern of the node's selector or html, and the
reason (the list is :data:`benchmarks.accessibility.KNOWN`, shared with the report
``python -m benchmarks.accessibility`` writes).  Everything the project draws (markdown,
captions, charts, its own chart component, the colours its theme sets) counts.

Every wait is on the page's state (the script idle, a text shown), never a sleep; each may
take up to 3 minutes on a busy machine.
"""
import pytest
from helpers import require_chromium

from benchmarks import accessibility
from cbviz.app.streamlit_server import serve

require_chromium()

pytestmark = pytest.mark.browser

#: Streamlit's own widget nodes allowed, each with its reason (empty: none is needed so far)
KNOWN = accessibility.KNOWN


@pytest.fixture(scope="module")
def server():
    with serve() as running:   # results and class store in the tests' data folder (conftest)
        yield running.url


def describe(violation, node):
    return (f"{violation.rule} ({node.impact}, {', '.join(violation.tags)}): {violation.help}\n"
            f"    selector: {node.target}\n    html: {node.html[:300]}\n"
            + (f"    text: {node.text[:160]}\n" if node.text else "")
            + f"    {node.detail}")


@pytest.mark.parametrize("name", list(accessibility.STATES))
def test_no_serious_violation_in_project_content(server, browser, name):
    state = accessibility.visit(browser, server, name, known=KNOWN)
    print(f"\n{name}: {len(state.nodes())} violating nodes, viewport 1280x{state.height}, "
          f"{state.seconds:.0f} s")
    for violation, node in state.nodes():   # all of them, for the record
        print(f"  [{node.origin}{': ' + node.known if node.known else ''}] "
              + describe(violation, node).replace("\n", "\n  "))
    assert not state.error, state.error
    assert state.height >= 800
    serious = accessibility.blocking(state)
    assert not serious, (f"{len(serious)} serious or critical nodes of project content in "
                         f"{name!r}:\n" + "\n".join(describe(v, n) for v, n in serious))


def test_only_a_known_entry_makes_a_node_streamlits():
    """The classification itself (no browser): a node is the project's unless an entry of the
    known list names its rule and matches its selector or html."""
    entry = accessibility.Known("color-contrast", r'data-testid="stWidget"', "a test entry")
    node = accessibility.Node('div[data-testid="stWidget"]', "<p>x</p>", "serious", "3:1")
    assert entry.matches("color-contrast", node.target, node.html)
    assert not entry.matches("link-name", node.target, node.html)
    assert not entry.matches("color-contrast", "p.caption", "<p>x</p>")
    known = accessibility.Node("t", "<p>", "critical", "", known=entry.reason)
    minor = accessibility.Node("t", "<p>", "minor", "")
    violation = accessibility.Violation("color-contrast", "serious", ["wcag2aa"], "", "",
                                        [node, known, minor])
    state = accessibility.State("s", violations=[violation])
    assert accessibility.blocking(state) == [(violation, node)]
    assert state.counts()["serious"] == [1, 0] and state.counts()["critical"] == [0, 1]
    assert (node.origin, known.origin) == ("project content", "Streamlit's own widget")
