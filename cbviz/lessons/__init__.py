"""Lessons: guided paths through the C-bound, each a few stages with a question asked before
an action and a reveal computed from the student's own run afterwards.

:data:`LESSONS` lists them in order (numbered from 1 in links: ``?lesson=N&stage=K``).
"""
from .label_noise import LESSON as NOISE
from .margins import LESSON as MARGINS
from .one_step import LESSON as ONE_STEP
from .pac_bounds import LESSON as PAC_BOUNDS
from .prior import LESSON as PRIOR
from .rules import LESSON as RULES
from .sparsity import LESSON as SPARSITY
from .stages import (Compute, Lab, Lesson, LessonError, Look, Move, Question, Reveal, Stage,
                     Step, fmt, stopped_because)

__all__ = ["LESSONS", "lesson", "link_preset", "Lab", "Lesson", "LessonError", "Stage", "Question", "Reveal",
           "Look", "Step", "Move", "Compute", "fmt", "stopped_because"]

LESSONS = (MARGINS, ONE_STEP, RULES, PAC_BOUNDS, SPARSITY, NOISE, PRIOR)


def link_preset(values):
    """The preset settings of the lesson a link names (``lesson=N``); None when it names none
    (or no lesson that exists): a lesson link's missing settings are its lesson's."""
    try:
        return lesson(int(values["lesson"])).preset()
    except (KeyError, TypeError, ValueError):   # LessonError is a ValueError
        return None


def lesson(number):
    """Lesson ``number`` (from 1); LessonError naming the range otherwise."""
    if isinstance(number, bool) or not isinstance(number, int) or \
            not 1 <= number <= len(LESSONS):
        raise LessonError(f"lesson must be an integer in [1, {len(LESSONS)}]; got {number!r}")
    return LESSONS[number - 1]
