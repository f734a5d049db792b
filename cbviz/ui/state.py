"""Widget values that survive runs in which the widget is not drawn.

Streamlit forgets the state of a widget that a run does not draw (a hidden sidebar section,
another algorithm's controls).  Values kept here live in a plain session-state dict: the widget
is filled from it just before it is drawn and writes back to it when the user changes it.
"""
from __future__ import annotations

import streamlit as st


def store(name, defaults=None):
    """The session's dict ``name``; ``defaults`` fill the fields it does not have yet."""
    if name not in st.session_state:
        st.session_state[name] = {}
    values = st.session_state[name]
    for field, value in (defaults or {}).items():
        values.setdefault(field, value)
    return values


def _write_back(name, field, key):
    st.session_state[name][field] = st.session_state[key]


def bind(name, field, key, default=None):
    """Widget keyword arguments tying widget ``key`` to ``store(name)[field]``.

    Call it in the widget call itself (``st.slider(..., **bind(...))``): it fills the widget's
    state from the store, so a widget that was hidden comes back with the user's value.
    """
    values = store(name)
    values.setdefault(field, default)
    st.session_state[key] = values[field]
    return {"key": key, "on_change": _write_back, "args": (name, field, key)}
