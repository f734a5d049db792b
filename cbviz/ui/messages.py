"""Package messages reworded for the app: the app's controls, not the Python API."""
from __future__ import annotations

import re

_REWORDINGS = (
    (re.compile(r"pair=\(([^,()]+), ([^()]+)\)"),
     lambda m: f"Class pair \"{_bare(m.group(1))} vs {_bare(m.group(2))}\""),
    (re.compile(r"one_vs_rest=([^\s,;)]+)"),
     lambda m: f"Class pair \"{_bare(m.group(1))} vs rest\""),
    (re.compile(r"pass drop_nan=True to drop those rows"),
     lambda m: "switch on \"Drop rows with missing values\" under the file"),
    (re.compile(r"\(or choose the label column with label=\.\.\.\)"),
     lambda m: "(or choose another Label column)"),
    (re.compile(r"label=\.\.\."), lambda m: "the Label column box"),
)


def _bare(text):
    """A class label as typed in the Class pair box (no quotes)."""
    return text.strip().strip("'\"")


def for_app(message):
    """``message`` with the package's keyword arguments replaced by the app's controls."""
    for pattern, replace in _REWORDINGS:
        message = pattern.sub(replace, message)
    return message
