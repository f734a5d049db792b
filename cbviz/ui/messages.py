"""Package messages reworded for the app: the app's controls, not the Python API."""
from __future__ import annotations

import re

from ..algorithms.registry import ALGORITHMS



def _controls():
    """Hyper-parameter name -> the label of its control on the step page (the registry's;
    the first algorithm's where several share a name)."""
    labels = {}
    for spec in ALGORITHMS.values():
        for param in spec.params:
            labels.setdefault(param.name, param.label)
    return labels


_CONTROLS = _controls()

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
    (re.compile(r"\b(?:max_iter|n_estimators) reached \((\d+)\)"),
     lambda m: f"the iteration limit ({m.group(1)}) was reached"),
    (re.compile(rf"\b({'|'.join(_CONTROLS)})=(True|False|'[^']*')"),
     lambda m: setting(m.group(1), {"True": True, "False": False}.get(m.group(2),
                                                                       m.group(2)[1:-1]))),
)


def setting(name, value):
    """Hyper-parameter ``name`` at ``value`` in the words of its control: "Re-use voters on",
    "Eligible voters set to all"."""
    label = _CONTROLS.get(name, name)
    if isinstance(value, bool):
        return f"{label} {'on' if value else 'off'}"
    return f"{label} set to {value}"


def _bare(text):
    """A class label as typed in the Class pair box (no quotes)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


def for_app(message):
    """``message`` (an error, a run's stop reason) with the package's keyword arguments and
    limits replaced by the app's controls."""
    for pattern, replace in _REWORDINGS:
        message = pattern.sub(replace, message)
    return message
