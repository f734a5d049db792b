"""User text (column and file names, link values, voter labels) shown literally in markdown."""
from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~:])")


def md(text):
    """``text`` with every markdown, HTML and KaTeX trigger escaped (a backslash each)."""
    return _MARKDOWN.sub(r"\\\1", str(text))
