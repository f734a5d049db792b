"""Widgets built from the algorithm registry's hyper-parameter descriptions, the number fields
of the app that never take a value the user did not type, and the keyboard-shortcut switch."""
from __future__ import annotations

import streamlit as st

from . import state

HP_STORE = "hp_store"
PREFS = "ui_prefs"          # the session's interface preferences (state.store)
EMPTIED = "number_emptied"  # session-state set: keys of number fields emptied in this run


def param_widget(param, algorithm):
    """Draw the control of one :class:`~cbviz.algorithms.registry.Param`; return its value.

    The value survives switching to another algorithm and back (kept per algorithm).
    """
    field, key = f"{algorithm}.{param.name}", f"hp_{algorithm}_{param.name}"
    if param.kind in ("int", "float"):
        value = _number(param, field, key)
    else:
        bound = state.bind(HP_STORE, field, key, default=param.default)
        value = (st.toggle(param.label, **bound) if param.kind == "bool" else
                 st.radio(param.label, param.choices, horizontal=True,
                          format_func=lambda v: "none" if v is None else str(v), **bound))
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


def _number(param, field, key):
    # the widget's range (Param.low/high), widened to a value a link or file brought in
    # (the declared range may be wider than the one shown)
    value = state.store(HP_STORE).setdefault(field, param.default)
    cast = int if param.kind == "int" else float
    low = None if param.low is None else cast(min(param.low, value))
    high = None if param.high is None else cast(max(param.high, value))
    if param.kind == "int":
        return int(number_field(st, param.label, low, high, HP_STORE, field, key, step=1))
    fmt = "%.2e" if param.log else "%.3f"
    step = None if param.log or None in (low, high) else (high - low) / 100
    return float(number_field(st, param.label, low, high, HP_STORE, field, key, step=step,
                              format=fmt))


def number_field(where, label, low, high, store, field, key, default=None, notice=None,
                 **options):
    """``where.number_input(label, low, high, **options)`` tied to ``state.store(store)[field]``
    (as :func:`cbviz.ui.state.bind` ties it) that never takes a value the user did not type.

    An ``<input type=number>`` can be emptied by a keystroke: Chromium drops the selected text
    (all of it after a Tab into the field) for a letter it refuses, and an "e" leaves text that
    is not a number.  Streamlit commits an empty field as the widget's default when it loses
    focus, and the default of a widget filled from session state is its ``min_value``: "Max
    iterations" 100 became 1.  Drawn here with ``value=None``, an emptied field is committed
    as None; the write-back keeps the stored value, puts it back in the field and a warning
    says so, in ``notice`` (default: ``where``; a narrow column's field may want its parent).
    The app's stylesheet hides its "Clear value" button.  Returns the stored value.
    """
    bound = state.bind(store, field, key, default=default)
    bound.update(value=None, on_change=_keep_or_write, args=(store, field, key))
    value = where.number_input(label, low, high, **bound, **options)
    # drawn every run, empty but for the run after an emptying: what follows keeps its place
    # (a new element would move it, and a moved expander is drawn anew, closed)
    slot = (notice or where).empty()
    if key in st.session_state.get(EMPTIED, set()):
        st.session_state[EMPTIED].discard(key)
        kept, fmt = state.store(store)[field], options.get("format")
        slot.warning(f"**{label}** needs a number: it stays at {fmt % kept if fmt else kept}.",
                     icon=":material/undo:")
    return state.store(store)[field] if value is None else value


def _keep_or_write(store, field, key):
    """``on_change`` of :func:`number_field`: store the new value, or put the stored one back
    in an emptied field."""
    value = st.session_state[key]
    if value is None:
        st.session_state[key] = state.store(store)[field]
        st.session_state.setdefault(EMPTIED, set()).add(key)
    else:
        state.store(store)[field] = value


def shortcuts_on(keys_text, key="shortcuts_on"):
    """The switch of the single-key shortcuts (on until turned off, for the whole session);
    returns whether they are on.

    Streamlit never fires them while a text, number or choice field has the focus, but a key
    without a modifier is easy to hit by accident (or by speech input): WCAG 2.1.4 asks that
    it can be turned off.
    """
    return st.toggle(f"Keyboard shortcuts: {keys_text}",
                     **state.bind(PREFS, "shortcuts", key, default=True),
                     help="single keys, without Ctrl or Alt; they do nothing while you type "
                          "in a field. Turn them off if they get in the way (speech input, "
                          "a screen reader's keys).")
