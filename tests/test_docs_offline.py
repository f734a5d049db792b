"""docs/offline_check.py, the check the documentation build runs on its HTML (docs/conf.py):
literal double backquotes in a page's text, and anything loaded from the network."""
import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "docs" / "offline_check.py"
_spec = importlib.util.spec_from_file_location("offline_check", _PATH)
offline_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(offline_check)

_HEAD = ('<link rel="stylesheet" href="_static/styles/theme.css">'
         '<script defer src="_static/mathjax/tex-chtml.js"></script>')


def _site(tmp_path, body, head=_HEAD, css=None):
    (tmp_path / "page.html").write_text(
        f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>")
    if css is not None:
        (tmp_path / "_static").mkdir()
        (tmp_path / "_static" / "site.css").write_text(css)
    return [(path.name, message) for path, _, message in offline_check.check(tmp_path)]


def test_a_clean_page_passes(tmp_path):
    body = ('<p>The margin <code class="literal">mu</code> and a link to '
            '<a href="https://example.org/paper.pdf">the paper</a>.</p>'
            '<div class="math">\\[C_Q = 1 - \\frac{\\mu_1^2}{\\mu_2}\\]</div>')
    assert _site(tmp_path, body, css="@import url(other.css); a { background: url(x.png) }") == []


@pytest.mark.parametrize("body", [
    "<p>Each step adds one column (``index``) and re-solves.</p>",
    "<dl><dt><strong>classes_, ``pool_``</strong></dt><dd>x</dd></dl>",
    "<p>cut <span class='problematic'>``</span>sign(w .</p>",
])
def test_literal_double_backquotes_in_the_text_fail(tmp_path, body):
    problems = _site(tmp_path, body)
    assert len(problems) == 1 and "literal double backquotes" in problems[0][1]


@pytest.mark.parametrize("body", [
    "<pre>Write ``mu`` for an inline literal</pre>",
    '<div class="highlight"><pre><span>x = "``"</span></pre></div>',
    '<p>reST: <code class="literal">``mu``</code></p>',
    "<script>var fence = '``';</script>",
])
def test_double_backquotes_shown_as_code_pass(tmp_path, body):
    assert _site(tmp_path, body) == []


@pytest.mark.parametrize("head", [
    '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"></script>',
    '<script src="//code.jquery.com/jquery.js"></script>',
    '<link rel="stylesheet" href="HTTP://cdn.example.org/a.css">',
    '<link href="https://cdn.example.org/a.css" rel="preload stylesheet" />',
    '<link rel="icon" href="https://example.org/favicon.ico">',
    "<style>@import url('https://fonts.example.org/css');</style>",
    '<style scoped><link href="https://cdn.example.org/b.css" rel="stylesheet" /></style>',
])
def test_a_load_from_the_network_fails(tmp_path, head):
    problems = _site(tmp_path, "<p>text</p>", head=head)
    assert len(problems) == 1 and "from the network" in problems[0][1]


@pytest.mark.parametrize("css", ['@import "https://fonts.example.org/css";',
                                 "@font-face { src: url(//fonts.example.org/f.woff2) }"])
def test_a_stylesheet_that_loads_from_the_network_fails(tmp_path, css):
    problems = _site(tmp_path, "<p>text</p>", css=css)
    assert [name for name, _ in problems] == ["site.css"]


def test_the_command_line_exit_status(tmp_path, capsys):
    _site(tmp_path, "<p>``x``</p>")
    assert offline_check.main([str(tmp_path)]) == 1
    assert "page.html:1: literal double backquotes" in capsys.readouterr().out
    (tmp_path / "page.html").write_text("<p><code>x</code></p>")
    assert offline_check.main([str(tmp_path)]) == 0
