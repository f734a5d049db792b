"""docs/offline_check.py, the check the documentation build runs on its HTML (docs/conf.py):
literal double backquotes in a page's text, anything loaded from the network, and a script or
stylesheet of the site's own that is not there."""
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
    """A site of one page with the files its head names; its problems as (file, message)."""
    (tmp_path / "page.html").write_text(
        f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>")
    for name in ("_static/styles/theme.css", "_static/mathjax/tex-chtml.js"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    if css is not None:
        (tmp_path / "_static" / "site.css").write_text(css)
    return [(path.name, message) for path, _, message in offline_check.check(tmp_path)]


def test_a_clean_page_passes(tmp_path):
    body = ('<p>The margin <code class="literal">mu</code> and a link to '
            '<a href="https://example.org/paper.pdf">the paper</a>.</p>'
            '<div class="math">\\[C_Q = 1 - \\frac{\\mu_1^2}{\\mu_2}\\]</div>'
            # a data block is not code: its addresses are not loads
            '<script type="application/json">{"paper": "https://example.org/p.pdf"}</script>'
            '<script>var site = "_static/mathjax/"; // see https://docs.mathjax.org</script>')
    assert _site(tmp_path, body, css="@import url(other.css); a { background: url(x.png) }") == []


@pytest.mark.parametrize("body", [
    "<p>Each step adds one column (``index``) and re-solves.</p>",
    "<dl><dt><strong>classes_, ``pool_``</strong></dt><dd>x</dd></dl>",
    "<p>cut <span class='problematic'>``</span>sign(w .</p>",
    # attributes a reader is shown: sphinx-gallery's thumbnail shows its tooltip on hover, and
    # keeps a literal that does not follow a space as it is in the example's docstring
    '<div class="sphx-glr-thumbcontainer" tooltip="resumes (``cbviz experiments fig5``)"></div>',
    '<img src="_images/a.png" alt="the ``mu`` path">',
    '<a href="#x" title="``classes_``">x</a>',
])
def test_literal_double_backquotes_shown_to_the_reader_fail(tmp_path, body):
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
    # MathJax from the site, configured to fetch its fonts or components from a CDN
    "<script>window.MathJax = {chtml: {fontURL: 'https://cdn.example.org/mathjax/woff'}};"
    "</script>",
    '<script type="text/x-mathjax-config">MathJax.Ajax.config.path["a"] = "//cdn.example.org";'
    "</script>",
    "<script>var s = document.createElement('script'); s.src = `https://cdn.example.org/x.js`;"
    "</script>",
])
def test_a_load_from_the_network_fails(tmp_path, head):
    problems = _site(tmp_path, "<p>text</p>", head=head)
    assert len(problems) == 1 and "from the network" in problems[0][1]


@pytest.mark.parametrize("css", ['@import "https://fonts.example.org/css";',
                                 "@font-face { src: url(//fonts.example.org/f.woff2) }"])
def test_a_stylesheet_that_loads_from_the_network_fails(tmp_path, css):
    problems = _site(tmp_path, "<p>text</p>", css=css)
    assert [name for name, _ in problems] == ["site.css"]


@pytest.mark.parametrize("head, missing", [
    # MathJax named but not copied (the copying extension missing): raw TeX offline
    ('<script defer src="_static/mathjax/tex-svg.js"></script>', "_static/mathjax/tex-svg.js"),
    ('<link rel="stylesheet" href="_static/sg_gallery.css?v=1">', "_static/sg_gallery.css?v=1"),
])
def test_a_script_or_stylesheet_the_site_does_not_hold_fails(tmp_path, head, missing):
    problems = _site(tmp_path, "<p>text</p>", head=_HEAD + head)
    assert problems == [("page.html", f"<{head[1:head.index(' ')]}> loads {missing}, which the "
                                      "site does not hold")]


def test_a_page_in_a_folder_loads_from_the_site_s_root(tmp_path):
    _site(tmp_path, "<p>text</p>")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "mod.html").write_text(
        '<head><script src="../_static/mathjax/tex-chtml.js"></script>'
        '<script src="_static/mathjax/tex-chtml.js"></script></head>')
    problems = [(path.relative_to(tmp_path).as_posix(), message)
                for path, _, message in offline_check.check(tmp_path)]
    assert problems == [("api/mod.html", "<script> loads _static/mathjax/tex-chtml.js, which the "
                                         "site does not hold")]


def test_the_theme_s_templates_among_the_static_files_are_not_pages(tmp_path):
    _site(tmp_path, "<p>text</p>")
    (tmp_path / "_static" / "webpack-macros.html").write_text(
        "<script src=\"{{ pathto('_static/x.js', 1) }}\"></script><p>``x``</p>")
    assert offline_check.check(tmp_path) == []


def test_the_command_line_exit_status(tmp_path, capsys):
    _site(tmp_path, "<p>``x``</p>")
    assert offline_check.main([str(tmp_path)]) == 1
    assert "page.html:1: literal double backquotes" in capsys.readouterr().out
    (tmp_path / "page.html").write_text("<p><code>x</code></p>")
    assert offline_check.main([str(tmp_path)]) == 0
