"""What a lesson is made of: stages with a question asked before an action and a reveal after.

A :class:`Lesson` names the settings it opens (the same keys as a link), the run it starts and
its stages.  A :class:`Stage` says what to do (its :class:`Action`), asks a :class:`Question`
before the student acts, and computes a :class:`Reveal` afterwards from a :class:`Lab`: the
live problem, run, explorer point and computed results of the session (or of a test).  No
number of a reveal is written in its text: each is read from the lab.  No Streamlit here.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable

from ..algorithms.registry import make_algorithm
from ..problem import Settings, build_problem

__all__ = ["Question", "Reveal", "Stage", "Lesson", "Lab", "Look", "Step", "Move", "Compute",
           "fmt", "stopped_because", "LessonError"]


class LessonError(ValueError):
    """A lesson, stage or guess that does not exist or cannot be read."""


def fmt(value, digits=3, sign=False):
    """A number as the reveals print it (and as the tests look for it in their text); ``sign``:
    with its sign (+0.076, -0.056), a value that rounds to zero as 0.000."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                  and abs(value) >= 10):
        return f"{int(value):,}"
    text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
    if not text.strip("+-0."):   # no "-0.000"
        text = text.lstrip("+-")
    return text


def stopped_because(run):
    """Why ``run`` stopped, in a student's words: its iteration limit, or the first clause of
    its stop reason (the rest names the Python options that would go on)."""
    if run.max_iter is not None and len(run.history) >= run.max_iter:
        return f"it reached its limit of {run.max_iter} iterations"
    return (run.stop_reason or "").split(";")[0]


# a sentence ends at ". " before a capital, a bold mark or a digit, except after these
_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\bFig)(?<!\bSect)(?<!\bEq)(?<!\be\.g)(?<!\bi\.e)"
                           r"(?<!\bvs)[.!?](?=\s+(?:\*\*|[A-Z0-9(]))")


@dataclass(frozen=True)
class Question:
    """Asked before the student acts: multiple choice (``choices``) or a number in
    [``low``, ``high``] (no choices), counted right within ``tolerance`` of the answer."""

    text: str
    choices: tuple = ()
    low: float = 0.0
    high: float = 1.0
    step: float = 0.01
    tolerance: float = 0.0

    @property
    def numeric(self):
        return not self.choices

    def read(self, guess):
        """The guess as the question takes it (a choice or a float); LessonError otherwise."""
        if self.numeric:
            try:
                value = float(guess)
            except (TypeError, ValueError):
                raise LessonError(f"a number in [{self.low:g}, {self.high:g}] is expected; "
                                  f"got {str(guess)[:40]!r}") from None
            if not (math.isfinite(value) and self.low <= value <= self.high):
                raise LessonError(f"a number in [{self.low:g}, {self.high:g}] is expected; "
                                  f"got {value:g}")
            return int(value) if float(self.step).is_integer() and value.is_integer() else value
        if guess not in self.choices:
            raise LessonError(f"one of {', '.join(self.choices)} is expected; got "
                              f"{str(guess)[:40]!r}")
        return guess


@dataclass(frozen=True)
class Reveal:
    """The answer computed from the lab, the numbers it quotes (``facts``) and the why.

    ``answer`` is a choice of the question or a number; ``text`` (markdown) quotes the facts
    with :func:`fmt`; ``source`` names the paper, theorem or equation behind the why.
    """

    answer: object
    text: str
    facts: dict
    source: str

    @property
    def headline(self):
        """The text's first sentence: what the run measured, read in a few seconds."""
        match = _SENTENCE_END.search(self.text)
        return self.text if match is None else self.text[:match.end()]

    @property
    def why(self):
        """The rest of the text after :attr:`headline` ("" when the text is one sentence)."""
        return self.text[len(self.headline):].strip()

    def right(self, question, guess):
        """Whether ``guess`` (already read by ``question.read``) is right."""
        if question.numeric:
            return abs(float(guess) - float(self.answer)) <= question.tolerance + 1e-12
        return guess == self.answer


# ---------------------------------------------------------------------------------- actions

@dataclass(frozen=True)
class Look:
    """Nothing to do but read what is on screen: done as soon as the guess is in."""

    label: str = ""

    def done(self, lab):
        return True

    def perform(self, lab):
        return None


@dataclass(frozen=True)
class Step:
    """Step the lesson's run until it has ``target`` iterations (or it stops)."""

    target: int

    def done(self, lab):
        return len(lab.run.history) >= self.target or lab.run.done

    def perform(self, lab):
        while not self.done(lab) and lab.run.step() is not None:
            pass


@dataclass(frozen=True)
class Move:
    """Set the explorer coordinate ``field`` to ``target`` (within ``tolerance``) with a slider
    on [low, high]."""

    field: str
    target: float
    label: str
    low: float
    high: float
    step: float
    tolerance: float = 0.0

    def done(self, lab):
        return abs(lab.explorer[self.field] - self.target) <= self.tolerance + 1e-9

    def hint(self, lab):
        """What to do while the slider is off its target (plain words, arrow keys)."""
        now = lab.explorer[self.field]
        where = (f"about {self.target:g} (anything from {self.target - self.tolerance:g} to "
                 f"{self.target + self.tolerance:g} will do)" if self.tolerance else
                 f"{self.target:g}" + (", the right end of the slider" if self.target == self.high
                                       else ""))
        return (f"Move {self.label.lower()} to {where}; it is at {now:g} now. Drag the handle, "
                f"or click it and press the arrow keys (steps of {self.step:g}).")

    def perform(self, lab):
        lab.explorer[self.field] = self.target


@dataclass(frozen=True)
class Compute:
    """Press a button that computes the lesson's result ``key`` (e.g. a second run)."""

    key: str
    label: str

    def done(self, lab):
        return self.key in lab.results

    def perform(self, lab):
        lab.result(self.key)


# ---------------------------------------------------------------------------------- lessons

@dataclass(frozen=True)
class Stage:
    """One stage: ``do`` (what to do, markdown), the question asked before, the action, the
    reveal computed after (``reveal(lab) -> Reveal``), the glossary ``symbols`` it uses
    (keys of :data:`cbviz.glossary.GLOSSARY`), the figure to look at
    (``figure(lab) -> plotly Figure or None``; with ``figure_first=False`` only after the guess,
    when it shows the answer) and the formula behind the reveal (KaTeX)."""

    title: str
    do: str
    question: Question
    action: object
    reveal: Callable
    symbols: tuple = ()
    figure: Callable | None = None
    formula: str = ""   # the stage's formula (KaTeX), shown with the reveal
    figure_first: bool = True  # False: the figure answers the question; shown after the guess


@dataclass(frozen=True)
class Lesson:
    """A lesson: the settings it opens (link keys: data, pool, algorithm, hyper-parameters),
    its stages, the results it can compute (``computations``: key -> function of the lab), the
    claims its text makes (``claims(lab) -> [(claim, holds)]``, checked by the tests on the
    preset after the last stage) and where to go on from it (``leave``: markdown)."""

    slug: str
    title: str
    minutes: int
    summary: str
    settings: dict
    algorithm: str
    params: dict
    max_iter: int
    stages: tuple
    leave: str
    next_page: str = "step"
    explorer: dict = field(default_factory=dict)
    computations: dict = field(default_factory=dict)
    claims: Callable | None = None

    def __post_init__(self):   # shared by every session: read-only mappings
        for name in ("settings", "params", "explorer", "computations"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def stage(self, k):
        """Stage ``k`` (numbered from 1)."""
        if not 1 <= k <= len(self.stages):
            raise LessonError(f"stage must be in [1, {len(self.stages)}]; got {k}")
        return self.stages[k - 1]

    def preset(self):
        """The lesson's own :class:`~cbviz.problem.Settings`: the defaults, :attr:`settings`
        over them (what the Start button and a link that names no setting open)."""
        settings, ignored = Settings.from_link(self.settings)
        if ignored:
            raise LessonError("; ".join(ignored))
        return settings

    def departures(self, settings):
        """``[(field, value, preset value)]`` where ``settings`` differ from :meth:`preset`."""
        mine, theirs = self.preset().to_dict(), settings.to_dict()
        return [(k, theirs[k], v) for k, v in mine.items() if theirs[k] != v]

    def steps_at(self, k):
        """The length of the run stage ``k`` reads: the largest :class:`Step` target of
        stages 1..k (0 when none steps)."""
        return max([s.action.target for s in self.stages[:k] if isinstance(s.action, Step)],
                   default=0)

    def link(self):
        """The query parameters of the lesson's settings and run (the link's own keys)."""
        values = {**self.settings, "algorithm": self.algorithm, "max_iter": self.max_iter,
                  **self.params}
        return {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in values.items()}

    def make_run(self, problem, delta):
        """A fresh run of the lesson's algorithm on ``problem``."""
        return problem.start(make_algorithm(self.algorithm, self.max_iter, delta,
                                            **self.params))


class Lab:
    """The live state a lesson reads: settings, problem, the main run, the explorer point
    and the results computed so far (the app keeps them in the session; tests build their own).
    """

    def __init__(self, lesson, settings, problem, run, explorer=None, results=None):
        self.lesson, self.settings, self.problem, self.run = lesson, settings, problem, run
        self.explorer = {**lesson.explorer, **(explorer or {})}
        self.results = {} if results is None else results

    @classmethod
    def preset(cls, lesson, **overrides):
        """The lab of the lesson's own settings (``overrides``: other setting values, e.g. a
        seed), with a fresh run: what a student sees on opening the lesson."""
        settings, ignored = Settings.from_link({**lesson.settings, **overrides})
        if ignored:
            raise LessonError("; ".join(ignored))
        problem = build_problem(settings)
        return cls(lesson, settings, problem, lesson.make_run(problem, settings.delta))

    def result(self, key):
        """The lesson's computation ``key`` on this lab (computed once)."""
        if key not in self.results:
            self.results[key] = self.lesson.computations[key](self)
        return self.results[key]

    def frame(self):
        return self.run.to_frame()

    def walk(self, upto=None):
        """Perform the actions of stages 1..``upto`` (default: all), as a student would."""
        for stage in self.lesson.stages[:upto]:
            stage.action.perform(self)
        return self
