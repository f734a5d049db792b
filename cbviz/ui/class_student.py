"""A student's side of a live class on the Lessons page: join, follow the teacher's pacing,
vote (twice when the teacher asks), and see the class's runs beside one's own.

Each run reads the class's pacing from the database; a fragment polls its version every
:data:`POLL` seconds and reruns the page when the teacher changed something, so a student's page
follows within a few seconds with no click.
"""
from __future__ import annotations

import math

import streamlit as st

from ..bounds import PAC_BOUNDS
from ..classroom import (AnswerRefused, ClassClosed, ClassError, NicknameRefused, NotAllowed,
                         RateLimited, normalize_code)
from ..lessons import LESSONS
from ..markdown import md
from ..plots.classroom import class_runs_figure
from .live_chart import live_chart
from . import class_link, hide, lesson_state

POLL = 2.0   # seconds between two looks at the class's pacing
SEED_KEYS = ("data_seed", "split_seed")
# what a student of a class does not need (one button shows them again, as on a class link)
HIDDEN = ("navigation", "advanced", "export", "teacher")
_PROBLEM = "class_problem"
_JOIN_ERROR = "class_join_error"


def load():
    """On a session's first run: the student's own link (``class`` and ``me``: a reload, a
    restarted worker) makes this session that student again; ``join`` opens the join form."""
    if st.session_state.get("class_link_loaded"):
        return
    st.session_state["class_link_loaded"] = True
    code, me, key, join = class_link.link()
    if code and me and not key:
        try:
            student = class_link.database().student(code, me)
        except ClassError as exc:
            st.session_state[_PROBLEM] = str(exc)
            return
        st.session_state[class_link.MEMBER] = _member(code, me, student)
    elif join:
        st.session_state["class_join"] = join


def _member(code, token, student):
    return {"code": code, "token": token, "number": student.number, "name": student.name,
            "followed": None, "synced": False, "posted": set()}


def sample(pacing, number):
    """The settings of a student's own sample (the class's seed plus the student's number), or
    {} when the class shares one sample."""
    if not pacing.own_samples:
        return {}
    return {k: pacing.seed + number for k in SEED_KEYS}


def _open_lesson(pacing, m, stage):
    votes = class_link.database().my_votes(m["code"], m["token"])
    lesson_state.open_stage(pacing.lesson, {"stage": stage}, preset=True,
                            overrides=sample(pacing, m["number"]),
                            guesses={k: v for (k, r), v in votes.items() if r == 1})


def join(code_key, nickname_key):
    """The Join button: a student of the class whose code is typed in ``code_key``, with the
    nickname typed in ``nickname_key``."""
    st.session_state.pop(_JOIN_ERROR, None)
    db = class_link.database()
    try:
        code = normalize_code(st.session_state.get(code_key) or "")
        pacing = db.pacing(code)
        student, token = db.join(code, st.session_state.get(nickname_key) or None)
    except (ClassError, NicknameRefused) as exc:
        st.session_state[_JOIN_ERROR] = str(exc)
        return
    st.session_state.pop("class_join", None)
    st.query_params.pop("join", None)
    m = _member(code, token, student)
    st.session_state[class_link.MEMBER] = m
    st.session_state[hide.KEY] = list(dict.fromkeys([*hide.hidden_parts(), *HIDDEN]))
    _open_lesson(pacing, m, pacing.stage if pacing.mode == "follow" else 1)
    m["followed"] = pacing.stage


def join_form(code=None):
    """Join a class by its code (pre-filled from a ``join`` link), with an optional nickname."""
    error = st.session_state.pop(_JOIN_ERROR, None)
    with st.container(border=True):
        st.markdown("**Join a class.** Type the code your teacher shows, or open their link. "
                    "A nickname is optional: without one you are \"Student N\" on the "
                    "teacher's screen. No account, nothing else is asked.")
        c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
        c1.text_input("Class code", value=code or "", key="class_code_typed",
                              max_chars=12, placeholder="e.g. K4TM7Q")
        c2.text_input("Nickname (optional)", key="class_nickname", max_chars=24)
        c3.button("Join", key="class_join_button", type="primary", width="stretch",
                  icon=":material/login:", on_click=join,
                  args=("class_code_typed", "class_nickname"))
        if error:
            st.error(f"**Could not join.** {md(error)}", icon=":material/error:")


def gate():
    """Before the lesson is drawn: the join form, a closed class, the pause screen; else the
    class's pacing applied to this student's progress.  Returns the pacing (None outside a
    class); stops the page where nothing else may be drawn."""
    problem = st.session_state.pop(_PROBLEM, None)
    if problem:
        st.error(f"**This class link cannot be used.** {md(problem)} Ask your teacher for "
                 "the class code and join again.", icon=":material/link_off:")
    m = class_link.member()
    if m is None:
        if st.session_state.get("class_join"):
            st.title("Lessons")
            join_form(st.session_state["class_join"])
            st.stop()
        return None
    db = class_link.database()
    try:
        pacing = db.pacing(m["code"])
        student = db.student(m["code"], m["token"])
    except ClassError as exc:
        class_link.leave()
        st.error(f"**You left the class.** {md(exc)}", icon=":material/event_busy:")
        st.stop()
    _apply(pacing, m, student)
    if pacing.paused:
        st.title(f"Lesson {pacing.lesson}: {LESSONS[pacing.lesson - 1].title}")
        st.info("## Eyes on the teacher\nYour teacher paused the class. Your page comes back "
                "by itself when the class goes on.", icon=":material/visibility:")
        class_link.run_finished()
        watch(pacing)
        st.stop()
    return pacing


def _apply(pacing, m, student):
    """The class's lesson, the teacher's stage in "follow" mode, the guesses stored for this
    student, and this student's stage written back."""
    p = lesson_state.progress()
    if p is None or p["n"] != pacing.lesson:
        _open_lesson(pacing, m, pacing.stage if pacing.mode == "follow" else student.stage)
        m["followed"] = pacing.stage
        st.rerun()   # the lesson's settings apply to the sidebar of the next run
    if not m["synced"]:
        votes = class_link.database().my_votes(m["code"], m["token"])
        p["guesses"].update({k: v for (k, r), v in votes.items() if r == 1})
        m["synced"] = True
    if pacing.mode == "follow" and (m["followed"] != pacing.stage or p["stage"] > pacing.stage):
        m["followed"] = pacing.stage
        if p["stage"] != pacing.stage:
            lesson_state.go(pacing.stage)
    if p["stage"] != student.stage:
        try:
            class_link.database().move(m["code"], m["token"], p["stage"])
        except (RateLimited, AnswerRefused):
            pass   # the dashboard shows the last stage written; the next move writes again


@st.cache_data(ttl=1.0, show_spinner=False, max_entries=1000)
def _version(code):
    """The class's pacing version, read once a second per class and process: the polls of a
    class of 100 are 50 a second; the store answers one of them (None: the class is over)."""
    try:
        return class_link.database().pacing(code).version
    except ClassError:
        return None


@st.fragment(run_every=POLL)
def _watch(code, version):
    if _version(code) != version or class_link.interrupted():
        st.rerun()


def watch(pacing):
    """Rerun the page when the teacher changes the class (polls every :data:`POLL` s)."""
    if pacing is not None:
        _watch(pacing.code, pacing.version)


def caption(pacing):
    """Who this student is in which class (under the lesson's title)."""
    m = class_link.member()
    own = (f" · your own sample (seed {pacing.seed + m['number']})" if pacing.own_samples
           else "")
    mode = "your teacher leads the stages" if pacing.mode == "follow" else "move at your pace"
    st.caption(f"Class **{pacing.code}** · you are **{md(m['name'])}** · {mode}{own}")


def next_allowed(pacing, k):
    """Whether Next may open stage ``k + 1`` (in "follow" mode: once the teacher opened it)."""
    return pacing is None or pacing.mode != "follow" or k < pacing.stage


def reveal_allowed(pacing, k):
    """Whether stage ``k``'s reveal may be shown (the teacher may hold it for a discussion)."""
    return pacing is None or not pacing.hold_reveals or k in pacing.released


def lock(k, value):
    """Store a first vote; returns the vote the class store holds for stage ``k`` (None, with
    an error on the page, when there is none).  A vote already locked (a page that missed its
    own lock, another tab) is taken as it is stored."""
    m = class_link.member()
    db = class_link.database()
    try:
        return db.answer(m["code"], m["token"], k, value, round=1)
    except AnswerRefused as exc:
        stored = db.my_votes(m["code"], m["token"]).get((k, 1))
        if stored is not None:
            return stored
        st.error(f"**Your guess was not stored.** {md(exc)}", icon=":material/error:")
    except (RateLimited, NotAllowed) as exc:
        st.error(f"**Your guess was not stored.** {md(exc)}", icon=":material/error:")
    except ClassClosed as exc:
        st.error(f"**The class is over.** {md(exc)}", icon=":material/event_busy:")
    return None


def run_values(lab):
    """The quantities of the run's current vote the class compares (finite ones only)."""
    if not lab.run.history:
        return {}
    rec = lab.run.history[-1]
    values = {key: getattr(rec, key) for key in ("test_error", "train_error", "c_bound",
                                                 *PAC_BOUNDS)}
    return {key: float(v) for key, v in values.items() if v is not None and math.isfinite(v)}


def post(lab, k, rv, question):
    """Once per stage and session: this student's run at stage ``k`` (its answer, which marks
    the student's votes right or wrong, test error, C-bound and PAC-Bayes bounds), for the
    class's views."""
    m = class_link.member()
    if k in m["posted"]:
        return
    values = run_values(lab)
    answer = str(rv.answer) if not question.numeric else repr(float(rv.answer))
    values.update(seed=lab.settings.split_seed, m=int(lab.run.y.size))
    try:
        class_link.database().record(m["code"], m["token"], k, values, answer=answer)
    except (RateLimited, ClassError):
        return   # tried again on the next run
    m["posted"].add(k)


def second_vote(pacing, stage, k):
    """The second vote the teacher opened on stage ``k``: its form until it is cast; returns
    the second vote (None when there is none)."""
    if pacing is None or k not in pacing.second_vote:
        return None
    m = class_link.member()
    db = class_link.database()
    votes = db.my_votes(m["code"], m["token"])
    if (k, 1) not in votes or (k, 2) in votes:
        if (k, 2) in votes:
            st.markdown(f"Your second vote: **{md(votes[(k, 2)])}**")
        return votes.get((k, 2))
    q = stage.question
    with st.form(f"class_second_{k}", border=True):
        st.markdown("**Second vote.** Talk it over with your neighbour, then vote again: "
                    "the same question, your answer now.")
        value = lesson_state.answer_widget(q, "Your second vote", f"class_second_q_{k}")
        sent = st.form_submit_button("Lock in my second vote", type="primary",
                                     icon=":material/how_to_vote:")
    if sent and value is None:
        st.warning("Choose an answer first, then lock it in.", icon=":material/edit:")
    elif sent:
        try:
            db.answer(m["code"], m["token"], k, value, round=2)
        except (AnswerRefused, RateLimited, ClassError) as exc:
            st.error(f"**Your second vote was not stored.** {md(exc)}", icon=":material/error:")
            return None
        st.rerun()
    return None


def held_counts(results):
    """Per PAC-Bayes bound: ``(name, held, n)`` over the class's runs, where a bound held on a
    sample when the run's test error (the estimate of its true risk) is at most the bound."""
    rows = []
    for key, name in PAC_BOUNDS.items():
        pairs = [(r.values.get("test_error"), r.values.get(key)) for r in results]
        pairs = [(e, b) for e, b in pairs if e is not None and b is not None]
        if pairs:
            rows.append((name, sum(e <= b for e, b in pairs), len(pairs)))
    return rows


def held_text(results, delta):
    """The class's runs in words: on how many samples each bound held, and what δ allows."""
    rows = held_counts(results)
    if not rows:
        return ""
    n = rows[0][2]
    lines = [f"- {name}: held on **{held} of {total}** samples" for name, held, total in rows]
    return ("Each PAC-Bayes bound holds with probability at least 1 − δ over the draw of the "
            f"sample: with δ = {delta:g}, it may fail on about δ × {n} = {delta * n:.2g} of "
            f"the class's {n} samples. A bound *held* on a sample when that run's test error "
            "(its estimate of the true risk, on the held-out part) is at most the bound.\n"
            + "\n".join(lines))


def class_runs(pacing, lab, k):
    """The reveal's "your run beside the class's runs" (classes with a sample per student)."""
    if pacing is None or not pacing.own_samples:
        return
    m = class_link.member()
    try:
        results = class_link.database().class_results(m["code"], m["token"], k)
    except ClassError:
        return
    if not results:
        return
    mine = run_values(lab)
    with st.expander(f"Your run beside the class's runs ({len(results)} samples)",
                     expanded=True, icon=":material/groups:"):
        live_chart(class_runs_figure([r.values for r in results], mine), key=f"class_runs_{k}")
        st.markdown(held_text(results, lab.settings.delta))


__all__ = ["load", "gate", "join", "join_form", "watch", "caption", "sample", "next_allowed",
           "reveal_allowed", "lock", "run_values", "post", "second_vote", "held_counts", "held_text",
           "class_runs", "POLL"]
