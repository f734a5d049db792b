"""A teacher's side of a live class: start one from the Lessons page, then pace it and watch it
on the dashboard page (``/class?class=CODE&key=TOKEN``, the private teacher link).

Every teacher action is a database write authorised by the teacher's token
(:meth:`cbviz.classroom.Database.pace` and the like): a student's session, which never holds
that token, cannot make one.
"""
from __future__ import annotations

from datetime import datetime, timezone
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from ..classroom import ClassError
from ..lessons import LESSONS
from ..markdown import md
from . import class_link, lesson_state
from .class_address import page_class_base

CREATED = "class_created"   # the class this session just started: {"code", "key"}
DASHBOARD = "class"         # the dashboard page's URL path
PROJECTOR = class_link.PROJECTOR


def page_url(base, path, query):
    """``base`` (a page's URL) with its last path segment replaced by ``path``, and ``query``."""
    parts = urlsplit(base)
    head = parts.path.rstrip("/").rsplit("/", 1)[0]
    return urlunsplit((parts.scheme, parts.netloc, f"{head}/{path}", urlencode(query), ""))


def links(base, code, key):
    """``(student link, teacher link)`` of class ``code`` for a server whose Lessons page is at
    ``base``."""
    return (page_url(base, "lessons", {"join": code}),
            page_url(base, DASHBOARD, {"class": code, "key": key}))


def _start(lesson_key, mode_key, hold_key, own_key):
    try:
        pacing, key = class_link.database().create_class(
            st.session_state[lesson_key], mode="follow" if st.session_state[mode_key] else "free",
            hold_reveals=st.session_state[hold_key], own_samples=st.session_state[own_key])
    except ClassError as exc:
        st.session_state["class_start_error"] = str(exc)
        return
    st.session_state[CREATED] = {"code": pacing.code, "key": key}


def start_panel():
    """The Lessons page's "A live class" panel: start a class, then its code, links and QR."""
    with st.expander("For teachers: a live class", icon=":material/co_present:",
                     expanded=CREATED in st.session_state):
        created = st.session_state.get(CREATED)
        if created is None:
            _start_form()
        else:
            _created(created)


def _start_form():
    st.markdown("Start a class on one lesson: students join with a code or a link, and your "
                "dashboard shows who joined, what the class predicted before each reveal and "
                "the class's own runs. No accounts; the class and its answers are deleted "
                "after 30 days, or when you end it.")
    c1, c2 = st.columns(2)
    c1.selectbox("Lesson", range(1, len(LESSONS) + 1), key="class_lesson",
                 format_func=lambda i: f"{i}. {LESSONS[i - 1].title}")
    c2.toggle("Students follow my stages", key="class_follow",
              help="off: each student moves at their own pace; on: the class is held on the "
                   "stages you open, and every page follows yours within a few seconds")
    c1.toggle("Hold the reveals until I release them", key="class_hold",
              help="for a discussion (and a second vote) before the class sees the answer")
    c2.toggle("Every student their own sample", key="class_own",
              help="each student's run draws its own data and split (its own seed), so the "
                   "class's runs show how the bounds behave over many samples")
    st.button("Start the class", key="class_start", type="primary", icon=":material/play_arrow:",
              on_click=_start, args=("class_lesson", "class_follow", "class_hold", "class_own"))
    error = st.session_state.pop("class_start_error", None)
    if error:
        st.error(f"**The class could not start.** {md(error)}", icon=":material/error:")


def _created(created):
    base, warning = page_class_base()
    student, teacher = links(base, created["code"], created["key"])
    if warning:
        st.warning(warning, icon=":material/wifi_off:")
    c_qr, c_text = st.columns([1, 2])
    c_qr.image(lesson_state.qr_png(student), width=260, caption="Students scan to join")
    c_text.markdown(f"Class code: **{created['code']}** · students type it on the Lessons page, "
                    "or open the link:")
    c_text.code(student, language=None, wrap_lines=True)
    c_text.markdown("**Your teacher link** (private: it lets whoever has it pace the class and "
                    "read every answer; keep it off the projector):")
    c_text.code(teacher, language=None, wrap_lines=True)
    c_text.link_button("Open the dashboard", teacher, type="primary",
                       icon=":material/dashboard:")
    if c_text.button("Start another class", key="class_another"):
        st.session_state.pop(CREATED, None)
        st.rerun()


# --------------------------------------------------------------------------- the dashboard

def signed_in():
    """The teacher's class from the session or, on its first run, the teacher link; the
    pacing (None, with a message, when the link is not a teacher's)."""
    t = class_link.teacher()
    if t is None:
        code, _, key, _ = class_link.link()
        if not (code and key):
            st.info("This is a teacher's page: open it with the teacher link you got when you "
                    "started the class (Lessons page, \"For teachers: a live class\").",
                    icon=":material/lock:")
            return None
        t = {"code": code, "key": key}
    try:
        pacing = class_link.database().teacher(t["code"], t["key"])
    except ClassError as exc:
        class_link.leave()
        st.error(f"**This teacher link cannot be used.** {md(exc)}", icon=":material/lock:")
        return None
    st.session_state[class_link.TEACHER] = t
    return pacing


def act(method, *args, **kwargs):
    """A teacher action (a :class:`~cbviz.classroom.Database` method taking code and token)."""
    t = class_link.teacher()
    try:
        getattr(class_link.database(), method)(t["code"], t["key"], *args, **kwargs)
    except ClassError as exc:
        st.session_state["class_action_error"] = str(exc)


def controls(pacing):
    """Pacing: the stage the class is on, follow or free, pause, held reveals, second vote."""
    lesson = LESSONS[pacing.lesson - 1]
    k, last = pacing.stage, len(lesson.stages)
    c = st.columns([3, 4, 3], vertical_alignment="center")
    c[0].button("Previous stage", key="class_prev", disabled=k == 1, width="stretch",
                icon=":material/arrow_back:", on_click=act, args=("pace",),
                kwargs={"stage": k - 1}, help="open the previous stage for the class")
    c[1].markdown(f"**Stage {k} of {last}: {lesson.stage(k).title}**")
    c[2].button("Next stage", key="class_next", disabled=k == last, width="stretch",
                type="primary", icon=":material/arrow_forward:", on_click=act, args=("pace",),
                kwargs={"stage": k + 1}, help="open the next stage for the class")
    c = st.columns(2)
    _toggle(c[0], "Students follow me", pacing.mode == "follow", "class_t_follow",
            lambda on: act("pace", mode="follow" if on else "free"))
    _toggle(c[1], "Pause: eyes on me", pacing.paused, "class_t_pause",
            lambda on: act("pace", paused=on))
    _toggle(c[0], "Hold the reveals", pacing.hold_reveals, "class_t_hold",
            lambda on: act("pace", hold_reveals=on))
    c[1].toggle("Projector view", key=PROJECTOR,
                help="large, no names: safe to show the class")
    c = st.columns(2)
    if pacing.hold_reveals:
        released = k in pacing.released
        c[0].button("Hide the answer again" if released else f"Release the answer of stage {k}",
                    key="class_release", width="stretch", icon=":material/visibility:",
                    on_click=act, args=("release", k), kwargs={"released": not released})
    opened = k in pacing.second_vote
    c[1].button("Close the second vote" if opened else "Open a second vote on this stage",
                key="class_second", width="stretch", icon=":material/how_to_vote:",
                on_click=act, args=("open_second_vote", k), kwargs={"opened": not opened})
    error = st.session_state.pop("class_action_error", None)
    if error:
        st.error(md(error), icon=":material/error:")


def _toggle(column, label, value, key, change):
    """A toggle that shows the database's value and writes a change through ``change``."""
    st.session_state[key] = value
    column.toggle(label, key=key, on_change=lambda: change(st.session_state[key]))


def ago(moment, now=None):
    """``moment`` as "12 s ago" / "3 min ago"."""
    seconds = ((now or datetime.now(timezone.utc)) - moment).total_seconds()
    return f"{max(0, int(seconds))} s ago" if seconds < 120 else f"{int(seconds // 60)} min ago"


def export_and_end(pacing):
    """The links again, the answers as CSV, and ending the class (its data deleted)."""
    t = class_link.teacher()
    db = class_link.database()
    with st.expander("Class links, answers (CSV) and ending the class",
                     icon=":material/settings:"):
        base, _ = page_class_base()
        student, _ = links(base, pacing.code, t["key"])
        c_qr, c_text = st.columns([1, 2])
        c_qr.image(lesson_state.qr_png(student), width=200, caption=f"Join: {pacing.code}")
        c_text.code(student, language=None, wrap_lines=True)
        c_text.caption(f"Started {pacing.created:%Y-%m-%d %H:%M} UTC; its data is deleted on "
                       f"{pacing.expires:%Y-%m-%d} (UTC) unless you end it before.")
        c_text.download_button("Answers as CSV", db.answers_csv(t["code"], t["key"]),
                               file_name=f"class-{pacing.code}-answers.csv", mime="text/csv",
                               icon=":material/download:", key="class_csv")
        sure = c_text.checkbox("I want to end this class and delete its answers",
                               key="class_end_sure")
        if c_text.button("End the class and delete its data", key="class_end",
                         disabled=not sure, icon=":material/delete:"):
            db.end_class(t["code"], t["key"], delete=True)
            class_link.leave()
            st.rerun()


__all__ = ["start_panel", "links", "page_url", "signed_in", "controls", "act", "ago",
           "export_and_end", "CREATED", "DASHBOARD", "PROJECTOR"]
