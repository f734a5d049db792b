"""The live part of the teacher's dashboard, redrawn every :data:`REFRESH` seconds with no click:
who joined and on which stage, what the class predicted on the stage (first and second vote,
the right answer once revealed), the share right, and the class's runs."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ..classroom import ClassError
from ..lessons import LESSONS
from ..plots.classroom import class_runs_figure, votes_figure
from . import class_link
from .live_chart import live_chart
from .class_student import held_text
from .class_teacher import PROJECTOR, ago

REFRESH = 1.0   # seconds: the dashboard shows a vote within 2 s of its lock


def is_right(question, value, answer):
    """Whether ``value`` answers ``question`` right when the student's run says ``answer``
    (the same rule as the reveal's verdict, :meth:`cbviz.lessons.Reveal.right`)."""
    if answer is None:
        return None
    if question.numeric:
        return abs(float(value) - float(answer)) <= question.tolerance + 1e-12
    return value == answer


def tally(question, votes, answers):
    """``{round: (right, counted, n)}`` and the number who changed their answer between the
    first and the second vote (``answers``: student -> their run's answer)."""
    rounds = {}
    for r in (1, 2):
        these = [v for v in votes if v.round == r]
        marks = [is_right(question, v.value, answers.get(v.student)) for v in these]
        marks = [m for m in marks if m is not None]
        rounds[r] = (sum(marks), len(marks), len(these))
    first = {v.student: v.value for v in votes if v.round == 1}
    changed = sum(1 for v in votes if v.round == 2 and first.get(v.student) != v.value)
    return rounds, changed


def _share(right, counted):
    return f"{right} of {counted} ({100 * right / counted:.0f} %)" if counted else "—"


@st.fragment(run_every=REFRESH)
def live(code):
    """The dashboard's live views for the class's current stage."""
    t = class_link.teacher()
    db = class_link.database()
    try:
        pacing = db.teacher(t["code"], t["key"])
        roster = db.roster(t["code"], t["key"])
        votes = db.votes(t["code"], t["key"], pacing.stage)
        results = db.results(t["code"], t["key"], pacing.stage)
    except ClassError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    if pacing.version != st.session_state.get("class_version", pacing.version) or \
            class_link.interrupted():   # another tab of the teacher changed the pacing, or
        st.session_state["class_version"] = pacing.version   # this refresh cut a run short
        st.rerun()
    st.session_state["class_version"] = pacing.version
    large = st.session_state.get(PROJECTOR, False)
    stage = LESSONS[pacing.lesson - 1].stage(pacing.stage)
    q = stage.question
    answers = {r.student: r.answer for r in results}
    shown = not pacing.hold_reveals or pacing.stage in pacing.released
    marked = sorted({(float(a) if q.numeric else a) for a in answers.values() if a is not None})
    rounds, changed = tally(q, votes, answers)
    first = [v.value for v in votes if v.round == 1]
    second = [v.value for v in votes if v.round == 2]
    figure = votes_figure(q, first, second, marked if shown else (), large=large)
    if large:
        st.markdown(f"## {q.text}")
        c = st.columns(3)
        c[0].metric("Joined", len(roster))
        c[1].metric(f"Voted on stage {pacing.stage}", len(first))
        c[2].metric("Right, first vote" if second else "Right",
                    _share(*rounds[1][:2]) if shown else "held")
        if second and shown:
            st.markdown(f"### Right, second vote: {_share(*rounds[2][:2])} · {changed} of "
                        f"{len(second)} changed their answer")
        live_chart(figure, key="class_votes")
    else:
        left, right = st.columns([3, 2])
        left.markdown(f"**Question.** {q.text}")
        with left:
            live_chart(figure, key="class_votes")
        with right:
            _numbers(pacing, roster, first, second, rounds, changed, shown)
            _roster(roster, votes, pacing.stage)
    if pacing.own_samples and results and shown:
        live_chart(class_runs_figure([r.values for r in results], large=large),
                   key="class_runs_live")
        st.markdown(held_text(results, _delta(pacing)))


def _numbers(pacing, roster, first, second, rounds, changed, shown):
    here = sum(s.stage == pacing.stage for s in roster)
    st.markdown(f"**{len(roster)}** joined · **{len(first)}** of {len(roster)} voted on stage "
                f"{pacing.stage} · **{here}** on it now")
    if shown:
        st.markdown(f"Right, first vote: **{_share(*rounds[1][:2])}**")
        if second:
            st.markdown(f"Right, second vote: **{_share(*rounds[2][:2])}** · "
                        f"{changed} of {len(second)} changed their answer")
    else:
        st.markdown("Answers held: the right answer and the share right show once you "
                    "release them.")


def _delta(pacing):
    """The lesson's δ (the class runs on its preset)."""
    return LESSONS[pacing.lesson - 1].preset().delta


def _roster(roster, votes, stage):
    voted = {(v.student, v.round) for v in votes}
    frame = pd.DataFrame([{"student": s.name, "stage": s.stage,
                           "voted": ("1st, 2nd" if (s.number, 2) in voted else
                                     "1st" if (s.number, 1) in voted else ""),
                           "last seen": ago(s.seen)} for s in roster],
                         columns=["student", "stage", "voted", "last seen"])
    st.dataframe(frame, hide_index=True, height=min(400, 38 + 35 * max(1, len(frame))),
                 key="class_roster")


__all__ = ["live", "tally", "is_right", "REFRESH"]
