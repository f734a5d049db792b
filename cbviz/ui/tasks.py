"""Long computations on a page: a progress bar and a Cancel button once they pass a second.

How a Cancel works: Streamlit stops a script run when a click reaches the server while the
run is going (the next element the run draws raises Streamlit's rerun exception), so the
computation stops at its next :mod:`cbviz.progress` report, which redraws the bar.  Only a
click outside every fragment does that: a click inside a fragment waits for the run to end.
So long work runs in a page's main body (:func:`running`), and a fragment that needs some
leaves a request (:func:`request`) and asks for a whole-page run.

A run stopped that way leaves its task's entry in the session; the next run takes it
(:func:`collect`, called once per run by the sidebar) and its page shows what stopped and
where (:func:`stopped_notice`; another page drops it).  The computations report only
before they change anything, so a stopped step is not taken and the steps before it stay.
"""
from __future__ import annotations

import time
from contextlib import contextmanager

import streamlit as st

from .. import progress
from ..markdown import md

RUNNING, CANCELLED, PENDING = "task_running", "task_cancelled", "task_pending"
STOPPED = "task_stopped"
SHOW_AFTER = 1.0   # seconds before the bar and the Cancel button appear
REDRAW_EVERY = 0.1  # seconds between two redraws of the bar


def request(page, name, **details):
    """Ask for ``name`` to run in ``page``'s main body at its next whole-page run."""
    st.session_state.setdefault(PENDING, {})[(page, name)] = details


def take(page, name):
    """The details of a pending request of ``page`` (removed), or None."""
    return st.session_state.get(PENDING, {}).pop((page, name), None)


def _cancel():
    st.session_state[CANCELLED] = True


@contextmanager
def running(page, label, name="", after=None):
    """Run the body with its :mod:`cbviz.progress` reports on a bar and a Cancel button,
    drawn here once the body has run ``after`` seconds (default :data:`SHOW_AFTER`; a
    shorter task draws nothing).

    ``label`` says what runs ("Solving MinCq's quadratic program"), the bar's text adds the
    latest report's; ``name`` identifies the task for :func:`stopped_notice`.  The listener
    never cancels by itself: Cancel stops the script run (module docstring).
    """
    slot = st.empty()
    entry = {"page": page, "label": label, "name": name, "reached": ""}
    st.session_state[RUNNING] = entry
    st.session_state.pop(CANCELLED, None)
    after = SHOW_AFTER if after is None else after
    start = time.monotonic()
    drawn = {}

    def listener(fraction, text):
        entry["reached"] = text
        now = time.monotonic()
        if now - start < after or now - drawn.get("at", -1.0) < REDRAW_EVERY:
            return False
        caption = md(f"{label}: {text}" if text else label)
        if "bar" not in drawn:
            with slot.container():
                left, right = st.columns([5, 1], vertical_alignment="center")
                drawn["bar"] = left.progress(fraction, text=caption)
                right.button("Cancel", key=f"{page}_task_cancel", on_click=_cancel,
                             icon=":material/cancel:", width="stretch",
                             help="stop here; what was computed before stays")
        else:
            drawn["bar"].progress(fraction, text=caption)
        drawn["at"] = now
        return False

    try:
        with progress.reporting(listener):
            yield
    except Exception:
        st.session_state.pop(RUNNING, None)
        raise
    st.session_state.pop(RUNNING, None)
    slot.empty()


def collect():
    """Move the entry of a task the last run left unfinished to where :func:`stopped_notice`
    looks (once per whole-page run, before the page)."""
    entry = st.session_state.pop(RUNNING, None)
    if entry is not None:
        entry["cancelled"] = st.session_state.pop(CANCELLED, False)
    st.session_state[STOPPED] = entry


def stopped_notice(page):
    """Show that a task of ``page`` was cancelled (or stopped by another click) in the last
    run.  Returns the stopped task's name, or None."""
    entry = st.session_state.pop(STOPPED, None)
    if entry is None or entry["page"] != page:
        return None
    where = f", at {md(entry['reached'])}" if entry["reached"] else ""
    if entry["cancelled"]:
        st.info(f"**Cancelled:** {md(entry['label'])}{where}. Everything finished before it "
                "is kept.", icon=":material/cancel:")
    else:
        st.info(f"**Stopped by another click:** {md(entry['label'])}{where}. Everything "
                "finished before it is kept.", icon=":material/pause_circle:")
    return entry["name"]
