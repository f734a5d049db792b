"""Checks of the built HTML: it reads offline, and no reST markup is left over as text.

Two kinds of problem are reported, one line each, ``page:line: message``:

* literal double backquotes in the visible text of a page: reST inline literal markup that
  did not render (numpydoc reads a free paragraph inside ``Parameters`` as a parameter name and
  sets it in bold, where markup does not nest; an inline literal that does not start after a
  space; an autosummary summary cut inside a literal).  Text inside ``<pre>``, ``<code>``,
  ``<kbd>``, ``<samp>``, ``<script>``, ``<style>`` and ``<textarea>`` is not looked at: a code
  example there may show double backquotes on purpose.  The attributes a reader is shown
  (``title`` and ``alt``, and ``tooltip``, which sphinx-gallery's thumbnails show on hover,
  taken from an example's first paragraph with its reST markup) are text too.
* anything a page or a stylesheet of the site would load from the network: ``<script src>``,
  ``<link href>`` of a stylesheet, preload, icon or manifest, ``src`` of images, frames and
  media, ``data`` of objects, ``@import`` and ``url(...)`` in ``<style>`` blocks (and a tag's
  ``href`` or ``src`` written inside one), ``style`` attributes and the site's ``.css`` files,
  and an external address quoted in an inline ``<script>`` (a MathJax configuration whose
  paths or fonts point at a CDN, a script that adds a ``<script>`` of its own); an address is
  external when it starts with ``http://``, ``https://`` or ``//``.  Links a reader follows
  (``<a href>``) are not loads.  A script or stylesheet of the site's own must be there: a
  page whose MathJax was not copied into ``_static`` shows raw TeX.

``docs/conf.py`` runs :func:`check` at the end of every HTML build (``build-finished``) and
reports each problem as a warning, so ``sphinx-build -W`` fails.  From the command line::

    python docs/offline_check.py BUILD_DIR     # exit status 1 when a problem is found
"""
from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

# elements whose text is shown as written (code) or is not text at all
_VERBATIM = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea"})
_EXTERNAL = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
# what a stylesheet loads: @import "x", @import url(x), url(x)
_CSS_LOADS = re.compile(r"""@import\s+(?:url\(\s*)?['"]?([^'")\s;]+)|url\(\s*['"]?([^'")\s]+)""",
                        re.IGNORECASE)
# a tag written inside a <style> block (sphinx-gallery's computation-time pages put their
# DataTables <link>s there): a browser ignores it, but it says the page means to load it
_TAG_ADDRESS = re.compile(r"""\b(?:href|src)\s*=\s*['"]?([^'"\s>]+)""", re.IGNORECASE)
# a quoted address in a script's text: "https://...", '//...', `http://...`
_QUOTED_ADDRESS = re.compile(r"""["'`]((?:https?:)?//[^"'`\s]+)""", re.IGNORECASE)
# types of a <script> whose text runs (MathJax 2 read its configuration from the last)
_SCRIPT_TYPES = frozenset({"", "text/javascript", "application/javascript", "module",
                           "text/x-mathjax-config"})
_LOADING_RELS = frozenset({"stylesheet", "preload", "modulepreload", "icon", "apple-touch-icon",
                           "manifest", "prefetch"})
# attributes whose value a reader sees (on hover, or in place of an image)
_SHOWN_ATTRIBUTES = ("title", "alt", "tooltip")
_SRC_TAGS = frozenset({"script", "img", "iframe", "frame", "embed", "source", "track", "audio",
                       "video", "input"})


def _css_problems(text):
    """The external addresses a stylesheet's text loads."""
    return [a or b for a, b in _CSS_LOADS.findall(text) if _EXTERNAL.match(a or b)]


def _runs_inline(attrs):
    """Whether a ``<script>`` tag's own text is code a browser runs (not a data block such as
    JSON, whose addresses are not loads)."""
    kind = (attrs.get("type") or "").lower().split(";")[0].strip()
    return not attrs.get("src") and kind in _SCRIPT_TYPES


def _snippet(text):
    """Forty characters either side of the first double backquote, on one line."""
    at = text.index("``")
    return "..." + " ".join(text[max(0, at - 40):at + 40].split()) + "..."


class _PageScan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.verbatim = 0          # depth of open verbatim elements
        self.in_style = False
        self.in_inline_script = False
        self.problems = []         # (line, message)
        self.local_loads = []      # (line, tag, address) of the site's scripts and stylesheets

    def _report(self, message):
        self.problems.append((self.getpos()[0], message))

    def handle_starttag(self, tag, attrs):
        self._element(tag, attrs)
        if tag in _VERBATIM:
            self.verbatim += 1
        self.in_style = tag == "style"
        self.in_inline_script = tag == "script" and _runs_inline(dict(attrs))

    def handle_startendtag(self, tag, attrs):
        self._element(tag, attrs)

    def handle_endtag(self, tag):
        if tag in _VERBATIM:
            self.verbatim = max(0, self.verbatim - 1)
        if tag == "style":
            self.in_style = False
        if tag == "script":
            self.in_inline_script = False

    def _element(self, tag, attrs):
        attrs = {name: value or "" for name, value in attrs}
        loads = []
        if tag in _SRC_TAGS and attrs.get("src"):
            loads.append(attrs["src"])
        if tag == "link" and _LOADING_RELS & set(attrs.get("rel", "").lower().split()):
            loads.append(attrs.get("href", ""))
        if tag == "object" and attrs.get("data"):
            loads.append(attrs["data"])
        for url in loads:
            if _EXTERNAL.match(url):
                self._report(f"<{tag}> loads {url} from the network")
            elif tag in ("script", "link") and not url.lower().startswith(("data:", "blob:")):
                self.local_loads.append((self.getpos()[0], tag, url))
        for url in _css_problems(attrs.get("style", "")):
            self._report(f"a style attribute loads {url} from the network")
        for name in _SHOWN_ATTRIBUTES:
            if "``" in attrs.get(name, ""):
                self._report(f"literal double backquotes in <{tag}>'s {name}: "
                             + _snippet(attrs[name]))

    def handle_data(self, data):
        if self.in_style:
            urls = _css_problems(data) + [u for u in _TAG_ADDRESS.findall(data)
                                          if _EXTERNAL.match(u)]
            for url in urls:
                self._report(f"a <style> block loads {url} from the network")
        elif self.in_inline_script:
            for url in _QUOTED_ADDRESS.findall(data):
                self._report(f"an inline <script> names {url}, a load from the network")
        elif not self.verbatim and "``" in data:
            self._report("literal double backquotes in the text: " + _snippet(data))


def _pages(outdir):
    """The site's pages: its ``.html`` files but the reST sources (``_sources``) and the
    theme's Jinja templates copied with the static files (``_static``)."""
    return [page for page in sorted(outdir.rglob("*.html"))
            if not {"_sources", "_static"} & set(page.relative_to(outdir).parts)]


def check(outdir):
    """Every problem of the HTML site in ``outdir``: a list of ``(path, line, message)``."""
    outdir = Path(outdir)
    problems = []
    for page in _pages(outdir):
        scan = _PageScan()
        scan.feed(page.read_text(encoding="utf-8", errors="replace"))
        scan.close()
        problems += [(page, line, message) for line, message in scan.problems]
        for line, tag, url in scan.local_loads:
            target = unquote(url.split("#")[0].split("?")[0])
            if target and not (page.parent / target).is_file():
                problems.append((page, line, f"<{tag}> loads {url}, which the site does not "
                                             "hold"))
    for sheet in sorted(outdir.rglob("*.css")):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        for url in _css_problems(text):
            line = text.count("\n", 0, text.find(url)) + 1
            problems.append((sheet, line, f"stylesheet loads {url} from the network"))
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    problems = check(outdir)
    for path, line, message in problems:
        print(f"{path.relative_to(outdir)}:{line}: {message}")
    print(f"offline check: {len(problems)} problem(s) in {len(_pages(outdir))} pages of "
          f"{outdir}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
