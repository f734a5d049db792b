"""The step page's run, kept in ``st.session_state``: create, replay on a change, step, export."""
from __future__ import annotations

import copy
import json

import streamlit as st

from .. import progress
from ..algorithms.base import ParameterError
from ..constraints import Interval, Options, refusal, short_repr
from ..algorithms.registry import ALGORITHMS, make_algorithm
from . import tasks
from .messages import for_app
from .sidebar import RUN_PREFIX

RUN_KEY = RUN_PREFIX + "step"
VIEW_STORE = "step_store"  # the step page's store (cbviz.ui.state) holds the iteration shown
MAX_JSON_BYTES = 20_000
# allowed values of the run part of a link or settings file (max_iter: the page's widget,
# within the algorithm's own range, checked first)
STEP_PAGE = "the step page"
RUN_LIMITS = {"max_iter": Interval(int, 1, 5000), "steps": Interval(int, 0, 5000),
              "view": Interval(int, 1, 5000)}


def held_run(problem, settings, algorithm, params, max_iter):
    """The page's run; rebuilt (and replayed to the same length) when its configuration changes.

    Raises :class:`ParameterError` when the hyper-parameters are refused.
    """
    config = (algorithm, tuple(sorted(params.items())), int(max_iter), settings.delta)
    held = st.session_state.get(RUN_KEY)
    if held is not None and held["config"] == config:
        return held["run"]
    replay = st.session_state.pop("step_replay", None)
    target = replay if replay is not None else (len(held["run"].history) if held else 0)
    st.session_state.pop("step_replay_note", None)
    run = problem.start(make_algorithm(algorithm, int(max_iter), settings.delta, **params))
    # held before the replay: a cancelled replay keeps the iterations it took
    st.session_state[RUN_KEY] = {"config": config, "run": run}
    if target:
        with tasks.running("step", f"Replaying {ALGORITHMS[algorithm].name} to iteration "
                                   f"{target}", name="replay"):
            step(target, run)
    if replay and run.done and len(run.history) < replay:  # never replay another run silently
        st.session_state["step_replay_note"] = (
            f"The link or file asked for {replay} iterations; this run stopped after "
            f"{len(run.history)}: {for_app(run.stop_reason)}.")
    show_iteration(len(run.history))
    return run


def shared_replay(problem, settings, steps):
    """The held run; one that has taken no step yet is first replaced by its configuration's
    run after up to ``steps`` steps, replayed once per process for every session on the same
    settings (a class on one link).  Each session gets its own copy (sharing only the
    problem's arrays and voters, which nothing changes); an upload's data are replayed per
    session (the settings do not name them)."""
    entry = st.session_state[RUN_KEY]
    run = entry["run"]
    if steps and not run.history and not run.done and settings.source != "csv":
        master = _replayed(entry["config"], settings, steps, problem)
        split = problem.split
        shared = (problem, problem.pool, problem.H_train, problem.H_test, split, split.X_train,
                  split.y_train, split.X_test, split.y_test)
        run = entry["run"] = copy.deepcopy(master, {id(x): x for x in shared})
    return run


@st.cache_resource(show_spinner=False, max_entries=32, ttl="1h")
def _replayed(config, settings, steps, _problem):
    """A run of ``config`` after up to ``steps`` steps: never handed out, only copied."""
    algorithm, params, max_iter, delta = config
    run = _problem.start(make_algorithm(algorithm, max_iter, delta, **dict(params)))
    take_steps(run, steps)
    return run


def held():
    """The run of the page, or None."""
    entry = st.session_state.get(RUN_KEY)
    return None if entry is None else entry["run"]


def show_iteration(t):
    """Make iteration ``t`` the one the step page shows (kept in the page's store, which
    survives a visit to another page, where Streamlit resets the slider's own state)."""
    st.session_state.setdefault(VIEW_STORE, {})["view"] = max(1, int(t))


def step(n, run=None):
    """Take up to ``n`` steps of ``run`` (default: the held run); show the newest iteration.

    Each step is reported to :mod:`cbviz.progress` as its share of the ``n``; the steps
    taken before a cancelled one stay (and are shown).
    """
    run = held() if run is None else run
    if run is None:
        return
    try:
        take_steps(run, n)
    finally:
        show_iteration(len(run.history))


def take_steps(run, n):
    """Up to ``n`` steps of ``run``, each reported to :mod:`cbviz.progress` as its share
    (and, for more than one, by its iteration number)."""
    for k in range(n):
        with progress.part(k / n, (k + 1) / n,
                           f"iteration {len(run.history) + 1}" if n > 1 else ""):
            if run.step() is None:
                break


def should_take_long(run, n, budget=0.5):
    """Whether ``n`` more steps of ``run`` may take over ``budget`` seconds: its last steps'
    mean time times ``n``; a run without a step yet, only for more than one step or an
    algorithm of one long step (MinCq's program)."""
    if not run.history:
        return n > 1 or run.max_iter == 1
    recent = [r.seconds for r in run.history[-5:]]
    return n * sum(recent) / len(recent) > budget


def reset():
    st.session_state.pop(RUN_KEY, None)
    st.session_state["step_playing"] = False


def export_json(settings, algorithm, params, run):
    """Settings + algorithm + hyper-parameters + steps taken as JSON; loading it replays the run."""
    return json.dumps({"cbviz": "step-through", "settings": settings.to_dict(),
                       "run": {"algorithm": algorithm, "params": dict(params),
                               "max_iter": run.max_iter, "iterations": len(run.history)}},
                      indent=2)


def read_json(raw):
    """Parse an exported JSON; returns ``(settings dict, run dict)`` or raises ValueError.

    The run part is checked here (algorithm, hyper-parameters, ``max_iter`` and
    ``iterations`` in the ranges of :data:`RUN_LIMITS`); the settings part is checked value
    by value when it is applied (:meth:`~cbviz.problem.Settings.from_link`).  Files written
    before algorithms other than CB-Boost existed (a ``direction`` and no ``algorithm``) are
    read as CB-Boost runs.
    """
    if len(raw) > MAX_JSON_BYTES:
        raise ValueError(f"the file is {len(raw):,} bytes; a cbviz settings file is a few "
                         f"hundred (at most {MAX_JSON_BYTES:,} are read)")
    try:
        payload = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON file ({str(exc)[:80]})") from None
    except RecursionError:
        raise ValueError("not a cbviz settings file (nested too deeply)") from None
    if not isinstance(payload, dict) or "settings" not in payload or "run" not in payload:
        raise ValueError("this JSON was not exported by cbviz (no 'settings' and 'run' sections)")
    run = payload["run"]
    if not isinstance(run, dict) or not isinstance(payload["settings"], dict):
        raise ValueError("'settings' and 'run' must be JSON objects")
    algorithm = run.get("algorithm", "cbboost")
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {short_repr(algorithm)}; known: "
                         f"{', '.join(ALGORITHMS)}")
    params = run.get("params", {"direction": run.get("direction", "exhaustive")}
                     if algorithm == "cbboost" else {})
    if not isinstance(params, dict):
        raise ValueError("'params' must be a JSON object")
    spec = ALGORITHMS[algorithm]
    known = {p.name: p for p in spec.params}
    for name, value in params.items():
        if name not in known:
            raise ValueError(f"{spec.name} has no hyper-parameter {short_repr(name, 40)}")
    try:   # JSON values: the same checks as the factory's, raised as the file's ValueError
        for name, value in params.items():
            known[name].check(value)
        _run_number(spec, "max_iter", run.get("max_iter"), "max_iter", Interval.check)
        _run_number(spec, "iterations", run.get("iterations"), "steps", Interval.check)
    except ParameterError as exc:
        raise ValueError(str(exc)) from None
    return payload["settings"], {"algorithm": algorithm, "params": params,
                                 "max_iter": run["max_iter"], "iterations": run["iterations"]}


def _run_number(spec, key, value, limit, read):
    """``value`` of the run's ``key`` read (``read``: :meth:`Interval.check` for a file's
    value, :meth:`Interval.parse` for a link's text) by the algorithm's declaration where it
    has one (``max_iter``), then by the page's :data:`RUN_LIMITS` ``limit``; else
    :class:`ParameterError`."""
    declared = spec.factory._parameter_constraints
    if key in declared:
        value = read(declared[key], value, key, spec.factory.__name__)
    return read(RUN_LIMITS[limit], value, key, STEP_PAGE)


SPEEDS = (0.25, 0.5, 1.0, 2.0)
PAGE_KEYS = ("algorithm", "max_iter", "speed", "steps", "view")


def link_values(algorithm, params, max_iter, speed, run, view):
    """What a link must carry to reopen the step page on the same picture."""
    values = {"algorithm": algorithm, "max_iter": max_iter, "speed": speed,
              "steps": len(run.history), "view": view}
    values.update({k: "none" if v is None else str(v).lower() if isinstance(v, bool) else v
                   for k, v in params.items()})
    return {k: str(v) for k, v in values.items() if v is not None}


def read_link(query):
    """The step page's part of a link: ``(config, ignored)``; bad values are left out, named."""
    ignored, config = [], {}
    algorithm = "cbboost"
    try:
        algorithm = Options(tuple(ALGORITHMS)).parse(query.get("algorithm", algorithm),
                                                      "algorithm", STEP_PAGE)
    except ParameterError as exc:
        ignored.append(str(exc))
    config["algorithm"] = algorithm
    spec = ALGORITHMS[algorithm]
    for key in RUN_LIMITS:
        if key in query:
            try:
                config[key] = _run_number(spec, key, query[key], key, Interval.parse)
            except ParameterError as exc:
                ignored.append(str(exc))
    if "speed" in query:
        try:
            if float(query["speed"]) not in SPEEDS:
                raise ValueError
            config["speed"] = float(query["speed"])
        except (TypeError, ValueError):
            ignored.append(str(refusal("speed", STEP_PAGE, "one of " + ", ".join(map(str, SPEEDS)),
                                       str(query["speed"]))))
    params = {}
    for p in ALGORITHMS[algorithm].params:
        if p.name in query:
            try:
                params[p.name] = p.parse(query[p.name])
            except ParameterError as exc:
                ignored.append(str(exc))
    config["params"] = params
    return config, ignored
