"""A student's place in the lessons, kept in the session and in the link.

One function opens a stage, :func:`open_stage`, from link-like values (``stage``, ``steps``,
the explorer point ``r``/``d``, ``guess``, ``computed``, ``stopped``): a hand-typed
``?lesson=N&stage=K``, the Start button, the teacher's link, Next, Previous and a reload all
go through it, so each reaches the same data, run, question and reveal.  The settings come
through the sidebar's link mechanism, whose base for a lesson link is the lesson's preset;
the run is the step page's (replayed to ``steps``).  Leaving a stage keeps its values (a
snapshot), and coming back restores them: its own point, run length and guess.
"""
from __future__ import annotations

import functools
import io
import itertools

import streamlit as st

from ..algorithms.registry import ALGORITHMS
from ..lessons import LESSONS, Compute, Lab, LessonError, Move, Step
from . import runs, state
from .controls import HP_STORE
from .sidebar import apply_settings

KEY = "lesson_progress"
RESULTS = "lesson_results"


def progress():
    """The session's progress dict (``n``, ``stage``, ``guesses``, ``explorer``,
    ``snapshots``) or None."""
    return st.session_state.get(KEY)


def full_params(lesson):
    """The lesson's hyper-parameters with the algorithm's defaults for the others (the step
    page's run has them all, so the same run continues there)."""
    values = {}
    for p in ALGORITHMS[lesson.algorithm].params:
        if p.active(values):
            values[p.name] = lesson.params.get(p.name, p.default)
    return values


def start(n):
    """The Start button: lesson ``n`` at stage 1 on its preset settings."""
    open_stage(n, {}, preset=True)


def open_stage(n, values, *, preset=False, overrides=None, guesses=None, snapshots=None):
    """Open lesson ``n`` at the stage ``values`` names (link-like: strings or numbers), with
    its run length, point, guess and computed results; ``preset``: on the lesson's own
    settings, with ``overrides`` over them (a class's sample per student), else on the
    session's (which a link's sidebar pass has set).  Returns what was ignored, in words."""
    lesson = LESSONS[n - 1]
    ignored = []
    k = _int(values, "stage", 1, len(lesson.stages), 1, ignored)
    steps = _int(values, "steps", 0, lesson.max_iter, 0, ignored)
    if steps > lesson.steps_at(k):
        ignored.append(f"steps: stage {k} works on the run at {lesson.steps_at(k)} iterations, "
                       f"not {steps}")
        steps = lesson.steps_at(k)
    explorer = _explorer(lesson, k, values, ignored)
    guess = None
    if values.get("guess") not in (None, ""):
        try:
            guess = lesson.stage(k).question.read(values["guess"])
        except LessonError as exc:
            ignored.append(f"guess: {exc}")
    if preset:
        apply_settings({**lesson.settings, **(overrides or {})})
    held = runs.held()
    if preset or held is None or len(held.history) != steps or held.done != (
            str(values.get("stopped")) == "1"):
        runs.reset()
        st.session_state["step_replay"] = steps
    state.store(runs.VIEW_STORE).update(algorithm=lesson.algorithm, max_iter=lesson.max_iter)
    state.store(HP_STORE).update({f"{lesson.algorithm}.{key}": v
                                  for key, v in full_params(lesson).items()})
    guesses = dict(guesses or {})
    guesses.pop(k, None)
    if guess is not None:
        guesses[k] = guess
    st.session_state[KEY] = {"n": n, "stage": k, "guesses": guesses, "explorer": explorer,
                             "snapshots": dict(snapshots or {})}
    st.session_state["lesson_stopped"] = str(values.get("stopped")) == "1"
    computed = [c for c in str(values.get("computed", "")).split(",") if c]
    st.session_state["lesson_compute"] = [c for c in computed if c in lesson.computations]
    return ignored


def _explorer(lesson, k, values, ignored):
    """The explorer point of stage ``k``: the lesson's, with the earlier stages' moves made;
    a link's value applies to a coordinate that stage ``k`` or an earlier one moves."""
    point = dict(lesson.explorer)
    movable = set()
    for j, stage in enumerate(lesson.stages[:k], start=1):
        if isinstance(stage.action, Move):
            movable.add(stage.action.field)
            if j < k:
                point[stage.action.field] = stage.action.target
    for name in lesson.explorer:
        if values.get(name) in (None, ""):
            continue
        if name not in movable:
            if abs(_float(values[name], point[name]) - point[name]) > 1e-9:
                ignored.append(f"{name}: stage {k} uses the lesson's own point "
                               f"({name} = {point[name]:g})")
            continue
        try:
            point[name] = min(0.5, max(0.0, float(values[name])))
        except (TypeError, ValueError):
            ignored.append(f"{name} must be a number in [0, 0.5]")
    return point


def _float(text, default):
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def leave():
    st.session_state.pop(KEY, None)
    st.session_state.pop(RESULTS, None)


def stage_values():
    """The values that reopen the current stage as it is now (a link's, a snapshot's)."""
    p = progress()
    run = runs.held()
    values = {"lesson": p["n"], "stage": p["stage"],
              "steps": len(run.history) if run is not None else 0,
              **{k: f"{v:g}" for k, v in p["explorer"].items()}}
    if run is not None and run.done:
        values["stopped"] = 1
    held = st.session_state.get(RESULTS)
    if held and held["results"]:
        values["computed"] = ",".join(sorted(held["results"]))
    if p["stage"] in p["guesses"]:
        values["guess"] = p["guesses"][p["stage"]]
    return {k: str(v) for k, v in values.items()}


def go(k):
    """Next or Previous: keep the current stage's values, then open stage ``k`` as it was
    left (its snapshot) or, the first time, from the current state."""
    p = progress()
    snapshots = {**p["snapshots"], p["stage"]: stage_values()}
    if k in snapshots:
        open_stage(p["n"], snapshots[k], guesses=p["guesses"], snapshots=snapshots)
    else:
        p.update(stage=k, snapshots=snapshots)


def back_to_preset(overrides=None):
    """Reopen the current stage on the lesson's own settings (``overrides`` over them)."""
    p = progress()
    open_stage(p["n"], {**stage_values(), "guess": ""}, preset=True, overrides=overrides,
               guesses=p["guesses"])


def read_link():
    """Open the lesson a link names, once per session; returns what was ignored."""
    if st.session_state.get("lesson_link_loaded"):
        return []
    st.session_state["lesson_link_loaded"] = True
    link = st.session_state.get("link", {})
    if "lesson" not in link:
        return []
    try:
        n = int(link["lesson"])
        if not 1 <= n <= len(LESSONS):
            raise ValueError
    except (TypeError, ValueError):
        return [f"lesson must be an integer in [1, {len(LESSONS)}]; got "
                f"{str(link['lesson'])[:40]!r}"]
    lesson = LESSONS[n - 1]
    own = {"algorithm": lesson.algorithm, "max_iter": str(lesson.max_iter),
           **{k: str(v) for k, v in full_params(lesson).items()}}
    other = [k for k, v in own.items() if k in link and str(link[k]).lower() != str(v).lower()]
    ignored = open_stage(n, link)
    if other:
        ignored.append(f"{', '.join(other)}: lesson {n} runs its own algorithm "
                       f"({ALGORITHMS[lesson.algorithm].name}, {lesson.max_iter} iterations at "
                       "most)")
    return ignored


def _int(values, key, low, high, default, ignored):
    if values.get(key) in (None, ""):
        return default
    try:
        value = int(values[key])
        if not low <= value <= high:
            raise ValueError
        return value
    except (TypeError, ValueError):
        ignored.append(f"{key} must be an integer in [{low}, {high}]; got "
                       f"{str(values[key])[:40]!r}")
        return default


def results(settings):
    """The session's computed results of this lesson on these settings (kept while the run
    is rebuilt to another length: they depend on the data, not on the page's run object)."""
    key = (progress()["n"], settings)
    held = st.session_state.get(RESULTS)
    if held is None or held["key"] != key:
        held = {"key": key, "results": {}}
        st.session_state[RESULTS] = held
    return held["results"]


def lab(settings, problem, run):
    p = progress()
    return Lab(LESSONS[p["n"] - 1], settings, problem, run, explorer=p["explorer"],
               results=results(settings))


def catch_up(lab, stage):
    """Perform what the stages before ``stage`` did (a link that lands on a later stage), and
    the computations the link names."""
    if st.session_state.pop("lesson_stopped", False) and not lab.run.done:
        lab.run.step()   # the run had stopped there: the step it refused marks it done again
    earlier = lab.lesson.stages[:stage - 1]
    for i, done in enumerate(earlier):
        if isinstance(done.action, Compute):
            compute(lab, done.action.key)
        elif isinstance(done.action, Step):   # a fresh run: the class's shared replay
            ahead = itertools.takewhile(lambda s: not isinstance(s.action, Compute), earlier[i:])
            lab.run = runs.shared_replay(lab.problem, lab.settings, max(
                s.action.target for s in ahead if isinstance(s.action, Step)))
            done.action.perform(lab)
    for k in st.session_state.pop("lesson_compute", []):   # on the run the stage reads
        compute(lab, k)
    runs.show_iteration(len(lab.run.history))


def compute(lab, key):
    """The lesson's computation ``key`` on this lab, kept in its results.  Computed once per
    process for the same lesson, settings and run length (a class on one link): each session
    gets its own copy of the cached result; an uploaded file's data are computed per session
    (the settings do not name them)."""
    if key not in lab.results and lab.settings.source != "csv":
        lab.results[key] = _computed(lab.lesson.slug, key, lab.settings, len(lab.run.history),
                                     lab.run.done, lab)
    return lab.result(key)


@st.cache_data(show_spinner=False, max_entries=64, ttl="1h")
def _computed(slug, key, settings, steps, done, _lab):
    """The computation, keyed by what it reads (``_lab``: that lesson, problem and run)."""
    return _lab.lesson.computations[key](_lab)


def class_link(base, n, stage, parts):
    """The URL that opens lesson ``n`` at ``stage`` with ``parts`` hidden."""
    from urllib.parse import urlencode
    query = {"lesson": n, "stage": stage}   # the rest is the lesson's preset: a short link,
    if parts:                               # a QR code a projector shows legibly
        query["hide"] = ",".join(parts)
    return f"{base.split('?')[0]}?{urlencode({k: str(v) for k, v in query.items()})}"


@functools.lru_cache(maxsize=64)
def qr_png(url):
    """A QR code of ``url`` as PNG bytes (segno), large enough for a projector; made once per
    URL and process (the teacher panel draws it on every run of the Lessons page)."""
    import segno
    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=8, border=2)
    return buffer.getvalue()


def answer_widget(question, label, key):
    """The widget a question is answered with (a number box, or radio buttons with nothing
    chosen); returns its value, None until the student answers.  Its name, for a screen
    reader, is ``label`` and the question ("Your guess: Does the C-bound ..."); the page shows
    the question above it."""
    name = {"label": f"{label}: {question.text}", "key": key, "label_visibility": "collapsed"}
    if question.numeric:
        cast = int if float(question.step).is_integer() else float
        return st.number_input(value=None, min_value=cast(question.low),
                               max_value=cast(question.high), step=cast(question.step),
                               placeholder=f"{label}: a number from {question.low:g} to "
                                           f"{question.high:g}", **name)
    return st.radio(options=question.choices, index=None, **name)


def move_widget(action, explorer, key):
    """The slider of a :class:`~cbviz.lessons.Move` stage, tied to the lesson's explorer."""
    def changed():
        explorer[action.field] = round(float(st.session_state[key]), 6)
    st.session_state[key] = float(explorer[action.field])
    return st.slider(action.label, action.low, action.high, step=action.step, key=key,
                     on_change=changed)


def departures(lesson, settings, own=()):
    """The settings where this session leaves the lesson's preset, in words ("" if none);
    ``own``: settings this session sets on purpose (a class's sample per student)."""
    return "; ".join(f"{name.replace('_', ' ')} {value} (the lesson's: {preset})"
                     for name, value, preset in lesson.departures(settings) if name not in own)


__all__ = ["progress", "start", "open_stage", "leave", "go", "back_to_preset", "read_link",
           "lab", "catch_up", "compute", "stage_values", "class_link", "qr_png",
           "answer_widget", "move_widget", "full_params", "departures"]
