"""A line of text that a screen reader reads out when it changes (WCAG 2.1, 4.1.3 Status
Messages): "Iteration 5 of 10: ..." after a Step, where each run of Compare is, a locked
guess and its verdict.

The line is a paragraph with ``role="status"`` (a polite live region).  Drawn in the same place by every
run of its page or fragment, it stays the same element of the page (Streamlit updates its
text in place), so assistive technology reads each new text once.
"""
from __future__ import annotations

import html
import re

import streamlit as st

__all__ = ["status_line", "markdown_of", "OPEN"]

OPEN = "<p role=status>"   # how a status line's Markdown starts (the role implies "polite")


def _html(parts):
    return OPEN + "".join(f"<b>{html.escape(p[0])}</b>" if isinstance(p, tuple)
                          else html.escape(str(p)) for p in parts) + "</p>"


def status_line(*parts):
    """Draw the status line; ``parts``: strings, a part in a 1-tuple ``("Iteration 5",)`` in
    bold.  Text only: nothing in it is read as Markdown or HTML."""
    st.markdown(_html(parts), unsafe_allow_html=True)


def markdown_of(body):
    """The text a status line's Markdown ``body`` shows, bold parts as Markdown writes them
    (``**Iteration 5** of 10``), or None for other Markdown: for tests and protocol-level
    clients."""
    if not body.startswith(OPEN):
        return None
    inner = re.sub(r"</?b>", "**", body[len(OPEN):-len("</p>")])
    return html.unescape(inner)
