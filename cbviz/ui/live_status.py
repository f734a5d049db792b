"""A line of text that a screen reader reads out when it changes (WCAG 2.1, 4.1.3 Status
Messages): "Iteration 5 of 10: ..." after a Step, a run's end, a locked guess.

``st.markdown`` would draw a new element whose change nothing announces; this line is one
element (``role="status"``, polite) kept on the page under its key, its text replaced in
place, so assistive technology reads each new text once.
"""
from __future__ import annotations

import json

from streamlit.components import v2

__all__ = ["status_line", "markdown_of", "NAME"]

NAME = "cbviz_status"  # the component's name, in the page's messages

_JS = """export default ({data, parentElement}) => {
  let line = parentElement.querySelector("p.cbviz-status");
  if (!line) {
    line = document.createElement("p");
    line.className = "cbviz-status";
    line.setAttribute("role", "status");
    line.setAttribute("aria-live", "polite");
    line.style.margin = "0";
    parentElement.appendChild(line);
  }
  const text = new TextDecoder().decode(data);
  if (line.dataset.text === text) return;
  line.dataset.text = text;
  line.replaceChildren(...JSON.parse(text).map(([part, bold]) => {
    if (!bold) return document.createTextNode(part);
    const b = document.createElement("strong");
    b.textContent = part;
    return b;
  }));
};"""
_line = v2.component(NAME, isolate_styles=False, js=_JS)


def status_line(key, *parts):
    """Draw (or update) the status line ``key``; ``parts``: strings, a part in a 1-tuple
    ``("Iteration 5",)`` is bold.  Text only: nothing in it is read as markup."""
    segments = [[p[0], True] if isinstance(p, tuple) else [str(p), False] for p in parts]
    _line(key=key, data=json.dumps(segments, ensure_ascii=False).encode())


def markdown_of(data):
    """The text a status line's message ``data`` shows, bold parts as Markdown writes them:
    for tests and protocol-level clients."""
    return "".join(f"**{part}**" if bold else part for part, bold in json.loads(data))
