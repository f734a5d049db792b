"""Parts of the interface a teacher's link hides (``?hide=sidebar,algorithm,...``).

The flags are read from the link on a session's first run and kept in the session; every page
asks :func:`hidden` before it draws a part, so a hidden part is not drawn at all.  One button
(:func:`show_control`) brings them all back.  The flags stay in the link of every page.
"""
from __future__ import annotations

import streamlit as st

KEY = "hidden_parts"
PARTS = {
    "navigation": "the list of pages",
    "sidebar": "the data and voters sidebar",
    "advanced": "split, noise, normalization, pool and δ settings; the step page's chart "
                "picker and comparisons",
    "algorithm": "the algorithm, iteration limit and hyper-parameter controls of the step page",
    "export": "downloads and reloads (CSV, JSON, HTML/PNG)",
    "glossary": "the notation panel of the sidebar",
    "teacher": "the class-link panel of the Lessons page",
}


def parse(text):
    """``(parts, unknown)`` of a ``hide`` value: comma-separated names of :data:`PARTS`."""
    names = [p.strip().lower() for p in str(text).split(",") if p.strip()]
    return ([p for p in PARTS if p in names],
            [p[:30] for p in names if p not in PARTS][:5])


def load():
    """Read the link's ``hide`` once per session (before the navigation is built)."""
    if KEY in st.session_state:
        return
    parts, unknown = parse(st.query_params.get("hide", ""))
    st.session_state[KEY] = parts
    if unknown:
        st.session_state["hide_unknown"] = unknown


def hidden(part):
    """Whether ``part`` (a key of :data:`PARTS`) is hidden in this session."""
    return part in st.session_state.get(KEY, ())


def hidden_parts():
    """The parts hidden in this session."""
    return list(st.session_state.get(KEY, ()))


def link_value():
    """The ``hide`` entry of the links of this session ({} when nothing is hidden)."""
    parts = st.session_state.get(KEY, ())
    return {"hide": ",".join(parts)} if parts else {}


def _show_all():
    st.session_state[KEY] = []
    st.query_params.pop("hide", None)


def show_control():
    """One clearly labelled button that shows every hidden part again (nothing when none)."""
    unknown = st.session_state.pop("hide_unknown", None)
    if unknown:
        st.warning(f"Unknown parts to hide in the link (ignored): {', '.join(unknown)}. "
                   f"Known: {', '.join(PARTS)}.", icon=":material/link_off:")
    parts = st.session_state.get(KEY, ())
    if not parts:
        return
    st.button(f"Show the hidden controls ({', '.join(parts)})", key="show_hidden",
              icon=":material/visibility:", on_click=_show_all,
              help="this class link hid them: " + "; ".join(PARTS[p] for p in parts))
