"""Widgets built from the algorithm registry's hyper-parameter descriptions."""
from __future__ import annotations

import streamlit as st

from . import state

HP_STORE = "hp_store"


def param_widget(param, algorithm):
    """Draw the control of one :class:`~cbviz.algorithms.registry.Param`; return its value.

    The value survives switching to another algorithm and back (kept per algorithm).
    """
    bound = state.bind(HP_STORE, f"{algorithm}.{param.name}", f"hp_{algorithm}_{param.name}",
                       default=param.default)
    value = _draw(param, bound)
    st.caption(param.help)
    return value


def stored_params(spec, algorithm):
    """The hyper-parameters of ``algorithm`` as kept in the session (defaults where none),
    for a page whose controls a class link hid."""
    values, kept = {}, state.store(HP_STORE)
    for p in spec.params:
        if p.active(values):
            values[p.name] = kept.get(f"{algorithm}.{p.name}", p.default)
    return values


def _draw(param, bound):
    if param.kind == "choice":
        return st.radio(param.label, param.choices, horizontal=True,
                        format_func=lambda v: "none" if v is None else str(v), **bound)
    if param.kind == "bool":
        return st.toggle(param.label, **bound)
    # the widget's range (Param.low/high), widened to a value a link or file brought in
    # (the declared range may be wider than the one shown)
    value, cast = st.session_state[bound["key"]], int if param.kind == "int" else float
    low = None if param.low is None else cast(min(param.low, value))
    high = None if param.high is None else cast(max(param.high, value))
    if param.kind == "int":
        return int(st.number_input(param.label, low, high, step=1, **bound))
    fmt = "%.2e" if param.log else "%.3f"
    step = None if param.log or None in (low, high) else (high - low) / 100
    return float(st.number_input(param.label, low, high, step=step, format=fmt, **bound))
