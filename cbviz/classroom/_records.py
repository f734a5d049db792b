"""What the class store returns: frozen records read from its rows."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ._schema import RESULT_FIELDS

__all__ = ["Pacing", "Student", "Vote", "RunResult", "pacing_of", "student_of", "vote_value",
           "vote_of", "run_of"]


@dataclass(frozen=True)
class Pacing:
    """What every student's page polls: the class's lesson and the teacher's pacing (no names,
    no answers).  ``version`` changes with every teacher action."""

    code: str
    lesson: int
    mode: str            # "free" | "follow"
    stage: int           # the stage the teacher has open (from 1)
    paused: bool
    hold_reveals: bool
    own_samples: bool
    seed: int
    released: frozenset      # stages whose reveal the teacher released
    second_vote: frozenset   # stages on which the teacher opened the second vote
    version: int
    created: datetime
    expires: datetime
    ended: bool


@dataclass(frozen=True)
class Student:
    """A student of a class: ``number`` counts the joins from 1; ``name`` is the nickname or
    "Student <number>"."""

    id: int
    number: int
    nickname: str | None
    name: str
    stage: int
    joined: datetime
    seen: datetime


@dataclass(frozen=True)
class Vote:
    """One vote (``round`` 1, or 2 after discussion); ``value`` a float for a numeric question,
    else the choice; ``student`` and ``nickname`` None where the class sees it anonymously."""

    student: int | None
    nickname: str | None
    stage: int
    round: int
    value: object
    right: bool | None
    at: datetime


@dataclass(frozen=True)
class RunResult:
    """A student's run at a stage: its seed, size ``m``, answer and :data:`RESULT_FIELDS`
    (None where not finite or not recorded); ``student`` None where anonymous."""

    student: int | None
    stage: int
    seed: int | None
    m: int | None
    answer: str | None
    values: dict


def pacing_of(row, stages):
    """The :class:`Pacing` of a ``classes`` row and its ``class_stages`` rows."""
    return Pacing(code=row.code, lesson=row.lesson, mode=row.mode, stage=row.stage,
                  paused=row.paused, hold_reveals=row.hold_reveals, own_samples=row.own_samples,
                  seed=row.seed, released=frozenset(s.stage for s in stages if s.released),
                  second_vote=frozenset(s.stage for s in stages if s.second_vote),
                  version=row.version, created=row.created, expires=row.expires,
                  ended=row.ended)


def student_of(row):
    return Student(id=row.id, number=row.number, nickname=row.nickname,
                   name=row.nickname or f"Student {row.number}", stage=row.stage,
                   joined=row.joined, seen=row.seen)


def vote_value(row):
    """A stored vote as the question read it: a float for a numeric question, else the text."""
    return row.value if row.number_value is None else row.number_value


def vote_of(row, anonymous=False):
    """A ``votes`` row (joined with the student's number and nickname unless ``anonymous``)."""
    return Vote(student=None if anonymous else row.number,
                nickname=None if anonymous else row.nickname, stage=row.stage,
                round=row.round, value=vote_value(row), right=row.right, at=row.answered_at)


def run_of(row, anonymous=False):
    """A ``runs`` row (joined with the student's number unless ``anonymous``)."""
    return RunResult(student=None if anonymous else row.number, stage=row.stage, seed=row.seed,
                     m=row.m, answer=row.answer,
                     values={name: getattr(row, name) for name in RESULT_FIELDS})
