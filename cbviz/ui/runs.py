"""The step page's run, kept in ``st.session_state``: create, replay on a change, step, export."""
from __future__ import annotations

import json

import streamlit as st

from .. import progress
from ..algorithms.base import ParameterError
from ..algorithms.registry import ALGORITHMS, make_algorithm
from ..data._common import short_repr
from . import tasks
from .messages import for_app
from .sidebar import RUN_PREFIX

RUN_KEY = RUN_PREFIX + "step"
VIEW_STORE = "step_store"  # the step page's store (cbviz.ui.state) holds the iteration shown
MAX_JSON_BYTES = 20_000
# allowed values of the run part of a link or settings file (max_iter: the page's widget)
RUN_LIMITS = {"max_iter": (1, 5000), "steps": (0, 5000), "view": (1, 5000)}


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
    run = make_algorithm(algorithm, int(max_iter), settings.delta, **params).start(
        problem.H_train, problem.split.y_train, problem.H_test, problem.split.y_test,
        describe=problem.pool.describe)
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
    by value when it is applied (:meth:`~cbviz.workbench.Settings.from_link`).  Files written
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
        _check_param(known[name], value)
    for key, limit in (("max_iter", "max_iter"), ("iterations", "steps")):
        low, high = RUN_LIMITS[limit]
        value = run.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{key} must be an integer in [{low}, {high}]; got {short_repr(value)}")
    return payload["settings"], {"algorithm": algorithm, "params": params,
                                 "max_iter": run["max_iter"], "iterations": run["iterations"]}


def _check_param(param, value):
    """ValueError naming ``param`` and its allowed values unless ``value`` (from JSON) is one."""
    if param.kind == "choice":
        if not any(type(value) is type(c) and value == c for c in param.choices):
            allowed = ", ".join("null" if c is None else str(c) for c in param.choices)
            raise ValueError(f"{param.name} must be one of {allowed}; got {short_repr(value)}")
    elif param.kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{param.name} must be true or false; got {short_repr(value)}")
    elif isinstance(value, bool) or not isinstance(value, int if param.kind == "int"
                                                  else (int, float)):
        kind = "an integer" if param.kind == "int" else "a number"
        raise ValueError(f"{param.name} must be in [{param.low}, {param.high}]; cannot read "
                         f"{short_repr(value)} as {kind}")
    elif not param.low <= value <= param.high:
        raise ValueError(f"{param.name} must be in [{param.low}, {param.high}]; got "
                         f"{short_repr(value)}")


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
    algorithm = query.get("algorithm", "cbboost")
    if algorithm not in ALGORITHMS:
        ignored.append(f"algorithm must be one of {', '.join(ALGORITHMS)}; got "
                       f"{str(algorithm)[:40]!r}")
        algorithm = "cbboost"
    config["algorithm"] = algorithm
    for key, (low, high) in RUN_LIMITS.items():
        if key in query:
            try:
                value = int(query[key])
                if not low <= value <= high:
                    raise ValueError
                config[key] = value
            except (TypeError, ValueError, OverflowError):
                ignored.append(f"{key} must be an integer in [{low}, {high}]; got "
                               f"{str(query[key])[:40]!r}")
    if "speed" in query:
        try:
            if float(query["speed"]) not in SPEEDS:
                raise ValueError
            config["speed"] = float(query["speed"])
        except (TypeError, ValueError):
            ignored.append(f"speed must be one of {', '.join(map(str, SPEEDS))}; got "
                           f"{str(query['speed'])[:40]!r}")
    params = {}
    for p in ALGORITHMS[algorithm].params:
        if p.name in query:
            try:
                params[p.name] = p.parse(query[p.name])
            except ParameterError as exc:
                ignored.append(str(exc))
    config["params"] = params
    return config, ignored
