"""Work the sessions of a class share (read-only) instead of redoing it for each page load:
a lesson's computations on the same data and run, the replay of a class link's run, the
teacher's QR code."""
import dataclasses

from streamlit.testing.v1 import AppTest

from cbviz.app import PAGES
from cbviz.lessons import LESSONS, rules
from cbviz.lessons.stages import Lab
from cbviz.ui import lesson_state, runs

RULES = LESSONS[2]   # lesson 3: both rules side by side, one computation ("rules")


def _counted(monkeypatch):
    calls = []
    lockstep = rules.lockstep

    def counting(*args, **kwargs):
        calls.append(1)
        return lockstep(*args, **kwargs)
    monkeypatch.setattr(rules, "lockstep", counting)
    lesson_state._computed.clear()
    return calls


def test_a_computation_runs_once_for_all_sessions_each_getting_its_own_copy(monkeypatch):
    calls = _counted(monkeypatch)
    first, second = Lab.preset(RULES), Lab.preset(RULES)   # two students on one class link
    mine, theirs = lesson_state.compute(first, "rules"), lesson_state.compute(second, "rules")
    assert len(calls) == 1
    assert theirs is not mine and theirs["ex"] is not mine["ex"]   # nothing shared to change
    assert [r.c_bound for r in theirs["ex"].history] == [r.c_bound for r in mine["ex"].history]
    assert second.results["rules"] is theirs   # what the stage's reveal and figure read


def test_a_computation_on_another_run_length_or_an_uploaded_file_is_its_own(monkeypatch):
    calls = _counted(monkeypatch)
    lesson_state.compute(Lab.preset(RULES), "rules")
    longer = Lab.preset(RULES)
    longer.run.step()
    lesson_state.compute(longer, "rules")   # a computation may read the main run
    csv = Lab.preset(RULES)   # the settings of an upload do not name its data
    csv.settings = dataclasses.replace(csv.settings, source="csv")
    lesson_state.compute(csv, "rules")
    lesson_state.compute(csv, "rules")   # kept in that session's results
    assert len(calls) == 3


def test_the_qr_code_of_a_link_is_made_once():
    url = "http://192.0.2.7:8501/lessons?lesson=2&stage=1"
    assert lesson_state.qr_png(url) is lesson_state.qr_png(url)   # bytes: nothing to change
    assert lesson_state.qr_png(url).startswith(b"\x89PNG")


def _student(**link):
    at = AppTest.from_file(str(PAGES / "lessons.py"), default_timeout=180)
    for k, v in link.items():
        at.query_params[k] = str(v)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at.session_state[runs.RUN_KEY]["run"]


def test_a_class_link_replays_its_run_once_each_student_getting_a_copy(monkeypatch):
    replays = []
    take_steps = runs.take_steps
    monkeypatch.setattr(runs, "take_steps", lambda run, n: (replays.append(n),
                                                           take_steps(run, n)))
    runs._replayed.clear()
    link = {"lesson": 4, "stage": 3, "hide": "navigation,sidebar,teacher"}   # after Step(20)
    first, second = _student(**link), _student(**link)
    assert replays == [20]
    assert second is not first and second.H is first.H   # its own run on the shared voters
    assert [r.c_bound for r in second.history] == [r.c_bound for r in first.history]
    assert len(first.history) == 20
    first.step()   # one student steps on: the other's run and the next copy stay at 20
    assert len(second.history) == 20 and len(_student(**link).history) == 20
