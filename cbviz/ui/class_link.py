"""Who this session is in a live class, and the app's handle on the class store.

A student's session holds ``{"code", "token"}`` (their own link's ``class`` and ``me``); a
teacher's holds ``{"code", "key"}`` (the private teacher link's ``class`` and ``key``).
Everything the class shares (pacing, votes, runs) is read from the database on each run,
never kept in this process: a reload, or a worker restarted under a student, rebuilds the same
view from the link and the database.
"""
from __future__ import annotations

import streamlit as st

from ..classroom import normalize_code, open_database

MEMBER = "class_member"
TEACHER = "class_teacher"
PROJECTOR = "class_projector"   # the teacher's projector view: large, no names, no key in the URL


@st.cache_resource(show_spinner=False)
def database():
    """The class store of this server (``CBVIZ_DATABASE``, else the per-user SQLite file): an
    engine and its connection pool, read-only for the sessions."""
    return open_database()


def member():
    """This session's ``{"code", "token", ...}`` as a student of a class, or None."""
    return st.session_state.get(MEMBER)


def teacher():
    """This session's ``{"code", "key"}`` as the teacher of a class, or None."""
    return st.session_state.get(TEACHER)


def link():
    """The link's class keys, read on the session's first run: ``(code, me, key, join)``
    (None where absent)."""
    values = st.session_state.get("link")   # the sidebar's copy of the first run's URL
    if values is None:
        values = st.query_params.to_dict()
    code = values.get("class")
    return (normalize_code(code) if code else None, values.get("me") or None,
            values.get("key") or None,
            normalize_code(values["join"]) if values.get("join") else None)


def link_value():
    """The class entries of this session's links: a student's own ``class`` and ``me``, or
    the teacher's ``class`` and ``key`` (only ever in the teacher's own session)."""
    if member():
        return {"class": member()["code"], "me": member()["token"]}
    if teacher():
        shown = {"class": teacher()["code"]}
        if not st.session_state.get(PROJECTOR):
            shown["key"] = teacher()["key"]
        return shown
    return {}


# A page's run ends with :func:`run_finished`.  A fragment's timer (the pacing poll, the
# dashboard's refresh) can cut a full run short (the browser sends it while the run goes on,
# and Streamlit then runs the fragment alone): the page keeps half its elements, a locked
# guess not shown.  The next poll sees the unfinished run and reruns the page.
_FINISHED = "class_run_finished"


def run_started():
    st.session_state[_FINISHED] = False


def run_finished():
    st.session_state[_FINISHED] = True


def interrupted():
    """Whether the page's last full run was cut short (called from a fragment's own run)."""
    return st.session_state.get(_FINISHED) is False


def leave():
    """Forget the class in this session (its data stays in the database)."""
    for key in (MEMBER, TEACHER):
        st.session_state.pop(key, None)
    for key in ("class", "me", "key", "join"):
        st.query_params.pop(key, None)


__all__ = ["database", "member", "teacher", "link", "link_value", "leave", "run_started",
           "run_finished", "interrupted", "MEMBER", "TEACHER",
           "PROJECTOR"]
