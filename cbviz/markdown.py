"""User text (column and file names, link values, voter labels) shown literally in markdown.

A plain text helper at the bottom of the layers (no Streamlit): the lessons write markdown with
it as the pages do (the pages import it from here)."""
from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~:])")


def md(text):
    """``text`` with every markdown, HTML and KaTeX trigger escaped (a backslash each)."""
    return _MARKDOWN.sub(r"\\\1", str(text))
