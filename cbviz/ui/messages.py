"""Package messages reworded for the app: the app's controls, not the Python API."""
from __future__ import annotations

import re

# a class label as the package prints it: a quoted Python string (any characters, quotes
# escaped) or a bare number / word
_LABEL = r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s,()'"][^,()]*?"""

_REWORDINGS = (
    (re.compile(rf"pair=\(({_LABEL}), ({_LABEL})\)"),
     lambda m: f"Class pair \"{_bare(m.group(1))} vs {_bare(m.group(2))}\""),
    (re.compile(rf"one_vs_rest=({_LABEL})(?=[\s,;)]|$)"),
     lambda m: f"Class pair \"{_bare(m.group(1))} vs rest\""),
    (re.compile(r"pass drop_nan=True to drop those rows"),
     lambda m: "switch on \"Drop rows with missing values\" under the file"),
    (re.compile(r"\(or choose the label column with label=\.\.\.\)"),
     lambda m: "(or choose another Label column)"),
    (re.compile(r"label=\.\.\."), lambda m: "the Label column box"),
)


def _bare(text):
    """A class label as typed in the Class pair box (no quotes)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


def for_app(message):
    """``message`` with the package's keyword arguments replaced by the app's controls."""
    for pattern, replace in _REWORDINGS:
        message = pattern.sub(replace, message)
    return message
