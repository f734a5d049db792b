"""One vocabulary for the allowed values of a parameter, and one message when a value is refused.

Each algorithm factory declares its hyper-parameters once, in a class attribute
``_parameter_constraints`` (a dict: parameter name -> constraint), as scikit-learn's
estimators do.  The same constraint object checks a Python value (:meth:`Constraint.check`),
reads the text of a link or file (:meth:`Constraint.parse`), says what it allows in words
(:meth:`Constraint.describe`) and gives a widget its ``low``/``high``/``choices``.  Every
refusal is a :class:`ParameterError` worded the same way::

    The 'mu' parameter of MinCq must be a float in (0, 1]. Got 2.0 instead.

where the owner is the algorithm's class name, a baseline's name or, e.g., "the data settings".

This module imports nothing from cbviz (only NumPy, for its bools): every layer may use it.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = ["ParameterError", "Constraint", "Interval", "Options", "Boolean", "refusal",
           "short_repr", "validate"]

_NONE_TEXT = "none"


class ParameterError(ValueError):
    """A hyper-parameter or an input of an algorithm is out of range."""


def short_repr(value, limit=60):
    """A user value for a message: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def refusal(name, owner, allowed, value, error=ParameterError):
    """The one refusal, a :class:`ParameterError` (or ``error``) that reads
    ``The 'name' parameter of owner must be <allowed>.`` then ``Got <value> instead.``"""
    return error(f"The {name!r} parameter of {owner} must be {allowed}. "
                 f"Got {short_repr(value)} instead.")


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _number(x):
    """An end of an interval in words: 1000000 rather than 1e+06, 0.0001, 1e-10, inf."""
    if x is None or math.isinf(x):
        return "-inf" if x is not None and x < 0 else "inf"
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}"


class Constraint:
    """What a parameter allows.  Subclasses define :meth:`allows`, :meth:`describe` and
    :meth:`_read` (text to a Python value, or raise ValueError)."""

    low = None      # widgets: the smallest / largest allowed number (None: unbounded or
    high = None     # not a number) ...
    choices = ()    # ... and the allowed values of a choice

    def allows(self, value):
        raise NotImplementedError

    def describe(self):
        """The allowed values in words, e.g. "a float in (0, 1]"."""
        raise NotImplementedError

    def _convert(self, value):
        return value

    def _read(self, text):
        raise NotImplementedError

    def check(self, value, name, owner):
        """``value`` (as the declared type: an int, a float, a bool) if allowed, else the one
        :class:`ParameterError` naming ``name``, ``owner`` and the allowed values."""
        if not self.allows(value):
            raise refusal(name, owner, self.describe(), value)
        return self._convert(value)

    def parse(self, text, name, owner):
        """The value written as ``text`` (a link's or a file's entry) if allowed, else the
        same :class:`ParameterError` as :meth:`check` (naming the text)."""
        try:
            value = self._read(str(text))
        except (TypeError, ValueError, OverflowError):
            raise refusal(name, owner, self.describe(), str(text)) from None
        return self.check(value, name, owner)

    def __repr__(self):
        return f"<{type(self).__name__}: {self.describe()}>"


class Interval(Constraint):
    """Numbers of ``kind`` (``int`` or ``float``) between ``low`` and ``high``.

    ``None`` for an end means unbounded on that side; ``closed`` ("both", "left", "right" or
    "neither") says which finite ends are allowed values.  NaN and infinities are refused;
    bools are not numbers here.  An ``int`` interval refuses floats, a ``float`` one accepts
    every real number (NumPy's included) and returns it as a float.  ``none=True`` also
    allows ``None`` (written "none" in a link).
    """

    def __init__(self, kind, low, high, *, closed="both", none=False):
        if kind not in (int, float):
            raise TypeError(f"kind must be int or float, not {kind!r}")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', not {closed!r}")
        self.kind, self.closed, self.none = kind, closed, none
        self.low = None if low is None else kind(low)
        self.high = None if high is None else kind(high)

    def allows(self, value):
        if value is None:
            return self.none
        typed = numbers.Integral if self.kind is int else numbers.Real
        if _is_bool(value) or not isinstance(value, typed) or not math.isfinite(value):
            return False
        if self.low is not None and not (value >= self.low if self.closed in ("both", "left")
                                         else value > self.low):
            return False
        return self.high is None or (value <= self.high if self.closed in ("both", "right")
                                     else value < self.high)

    def _convert(self, value):
        return None if value is None else self.kind(value)

    def _read(self, text):
        if self.none and text.strip().lower() == _NONE_TEXT:
            return None
        return self.kind(text)

    def describe(self):
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        text = (f"{'an int' if self.kind is int else 'a float'} in "
                f"{left}{_number(self.low) if self.low is not None else '-inf'}, "
                f"{_number(self.high)}{right}")
        return text + " or None" if self.none else text


class Options(Constraint):
    """One of a few values: strings, or None (written "none" in a link)."""

    def __init__(self, values):
        self.choices = tuple(values)
        if not all(v is None or isinstance(v, str) for v in self.choices):
            raise TypeError(f"options are strings or None, not {self.choices!r}")

    def allows(self, value):
        return any(value is c or (isinstance(value, str) and isinstance(c, str) and value == c)
                   for c in self.choices)

    def _convert(self, value):
        return None if value is None else str(value)

    def _read(self, text):
        if None in self.choices and text.strip().lower() == _NONE_TEXT:
            return None
        return text

    def describe(self):
        return "one of " + ", ".join(repr(c) for c in self.choices)


class Boolean(Constraint):
    """True or False (NumPy's bools too; not 0 or 1); "true"/"false" in a link."""

    choices = (False, True)

    def allows(self, value):
        return _is_bool(value)

    def _convert(self, value):
        return bool(value)

    def _read(self, text):
        word = text.strip().lower()
        if word not in ("true", "false"):
            raise ValueError(text)
        return word == "true"

    def describe(self):
        return "a bool"


def validate(constraints, values, owner):
    """``values`` (a dict of the parameters in ``constraints``), each checked and converted."""
    return {name: constraints[name].check(value, name, owner) for name, value in values.items()}
