"""Runs kept in ``st.session_state``: create, replay on a configuration change, step, export."""
from __future__ import annotations

import json

import streamlit as st

from ..algorithms import CBBoost
from .sidebar import RUN_PREFIX

CB_KEY = RUN_PREFIX + "cbboost"


def cbboost_run(problem, settings, direction, max_iter):
    """The page's CB-Boost run; rebuilt (and replayed to the same length) when its config changes."""
    config = (direction, int(max_iter), settings.delta)
    held = st.session_state.get(CB_KEY)
    if held is not None and held["config"] == config:
        return held["run"]
    replay = st.session_state.pop("cb_replay", None)
    target = replay if replay is not None else (len(held["run"].history) if held else 0)
    run = CBBoost(max_iter=int(max_iter), direction=direction, delta=settings.delta,
                  keep_candidates=False).start(
        problem.H_train, problem.split.y_train, problem.H_test, problem.split.y_test,
        describe=problem.pool.describe)
    while len(run.history) < target and run.step() is not None:
        pass
    st.session_state[CB_KEY] = {"config": config, "run": run}
    st.session_state["cb_view"] = max(1, len(run.history))
    return run


def step(n, run=None):
    """Take up to ``n`` steps of ``run`` (default: the held run); show the newest iteration."""
    if run is None:
        held = st.session_state.get(CB_KEY)
        if held is None:
            return
        run = held["run"]
    for _ in range(n):
        if run.step() is None:
            break
    st.session_state["cb_view"] = max(1, len(run.history))


def reset():
    st.session_state.pop(CB_KEY, None)
    st.session_state["cb_playing"] = False


def export_json(settings, run):
    """Settings + run configuration as JSON; loading it back replays the same run."""
    return json.dumps({"cbviz": "step-through", "settings": settings.to_dict(),
                       "run": {"direction": run.direction, "max_iter": run.max_iter,
                               "iterations": len(run.history)}}, indent=2)


def read_json(raw):
    """Parse an exported JSON; returns ``(settings dict, run dict)`` or raises ValueError."""
    try:
        payload = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON file ({exc})") from None
    if not isinstance(payload, dict) or "settings" not in payload or "run" not in payload:
        raise ValueError("this JSON was not exported by cbviz (no 'settings' and 'run' sections)")
    run = payload["run"]
    if run.get("direction") not in ("exhaustive", "gradient"):
        raise ValueError(f"unknown direction {run.get('direction')!r}")
    for key in ("max_iter", "iterations"):
        if not isinstance(run.get(key), int) or run[key] < 0:
            raise ValueError(f"'{key}' must be a non-negative integer")
    return payload["settings"], run
