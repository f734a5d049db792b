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
    # the range is the factory's (None: unbounded); an open end's value is refused with
    # the parameter's message when the run is made
    if param.kind == "int":
        return int(st.number_input(param.label, param.low, param.high, step=1, **bound))
    fmt = "%.2e" if param.log else "%.3f"
    step = None if param.log or param.high is None else (param.high - param.low) / 100
    return float(st.number_input(param.label, param.low, param.high, step=step,
                                 format=fmt, **bound))
