"""AppTest checks of the Lessons page: every lesson walked answering right and wrong, links that
land on a stage with parts hidden, the hide flags of the step page, a reload, the teacher's
class link, bad links.

The right answer of each stage is computed here from the package alone (the lesson's preset
lab, walked as a student would): the page must agree with it, to the reveal's text.
"""
from functools import lru_cache
from urllib.parse import parse_qsl, urlsplit

import pytest
from helpers import status_lines
from streamlit.testing.v1 import AppTest

from cbviz.app import FOLDER
from cbviz.lessons import LESSONS, Compute, Lab, Move, Step
from cbviz.ui import hide, lesson_state
from cbviz.markdown import md

APP = FOLDER   # the page paths below are relative to the app's folder, as the app names them
LESSONS_PAGE = "app_pages/lessons.py"
STEP = "app_pages/step_through.py"
TIMEOUT = 180
SIDEBAR_KEYS = {"s_source", "s_pool", "s_delta", "s_train_ratio"}  # drawn whatever the data
TEACHER = "For teachers: a class link"
WHY = "Why, with the numbers of your run and the paper"
PAGES = {"step": "step_through_cbboost", "explorer": "cbound_explorer",
         "gradient": "gradient_vs_exhaustive", "compare": "compare_algorithms"}


# ------------------------------------------------------------------------------------ helpers

def app(page=LESSONS_PAGE, **params):
    """A fresh session of ``page`` (a page script alone, or the entry script) opened with
    ``params`` as its link."""
    at = AppTest.from_file(str(APP / page), default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = str(v)
    return rerun(at)


def in_app(**params):
    """A fresh session of the whole app (the entry script: navigation, shared sidebar, the
    button that shows hidden parts) switched to the Lessons page: its end links to the other pages,
    which only exist in the app's navigation."""
    at = app("streamlit_app.py", **params)
    at.switch_page(LESSONS_PAGE)
    return rerun(at)


def rerun(at):
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def click(at, key):
    at.button(key=key).click()
    return rerun(at)


def elements(at):
    """Every element of the page (main area and sidebar, nested ones included)."""
    return [*at.main, *at.sidebar]


def keys(at):
    """The keys of every widget drawn."""
    return {e.key for e in elements(at) if getattr(e, "key", None)}


def expanders(at):
    return [e.label for e in elements(at) if e.type == "expander"]


def markdown(at):
    """The page's markdown and its status lines (their bold parts as Markdown writes them)."""
    return [m.value for m in at.markdown] + status_lines(at)


def progress(at):
    return at.session_state["lesson_progress"]


def the_run(at):
    return at.session_state["run_step"]["run"]


def assert_on_stage(at, n, k):
    lesson = LESSONS[n - 1]
    assert [t.value for t in at.title] == [f"Lesson {n}: {lesson.title}"]
    (bar,) = at.get("progress")
    assert bar.proto.text.startswith(f"Stage {k} of {len(lesson.stages)}: "), bar.proto.text
    assert (progress(at)["n"], progress(at)["stage"]) == (n, k)


def link_of(url):
    """The query of a URL, as a dict."""
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


@lru_cache(maxsize=None)
def walked(n):
    """Lesson ``n``'s preset lab walked stage by stage, and the reveal of every stage."""
    lesson = LESSONS[n - 1]
    lab = Lab.preset(lesson)
    reveals = []
    for stage in lesson.stages:
        stage.action.perform(lab)
        reveals.append(stage.reveal(lab))
    return lab, tuple(reveals)


def preset(n):
    return walked(n)[1]


def guess_for(question, reveal, right):
    """A guess the question accepts: the reveal's answer, or one that is not (another choice,
    or the end of the range farthest from the answer)."""
    if question.numeric:
        integer = float(question.step).is_integer()
        value = reveal.answer if right else max((question.low, question.high),
                                                key=lambda v: abs(v - reveal.answer))
        guess = int(round(value)) if integer else float(value)
    else:
        guess = reveal.answer if right else next(c for c in question.choices
                                                 if c != reveal.answer)
    assert reveal.right(question, question.read(guess)) == right, (question.text, guess)
    return guess


def answer(at, n, k, question, guess):
    """Enter ``guess`` in stage ``k``'s widget and lock it in."""
    widget = (at.number_input if question.numeric else at.radio)(key=f"lesson_q_{n}_{k}")
    assert widget.value is None  # nothing chosen before the student does
    widget.set_value(guess)
    return click(at, f"lesson_lock_{n}_{k}")  # one click locks it (a form)


def act(at, n, k, action):
    """Do what the stage asks with its own controls."""
    if isinstance(action, Step):
        one, rest = f"lesson_step_{n}_{k}", f"lesson_steps_{n}_{k}"
        if one in keys(at):
            click(at, one)   # once, then the rest (the second button is there while > 1 left)
        if rest in keys(at):
            click(at, rest)
        if one in keys(at):
            assert rest not in keys(at)   # one step left: Step alone, no "Step to N voters"
            click(at, one)
        run = the_run(at)
        assert len(run.history) >= action.target or run.done
        assert not {f"lesson_step_{n}_{k}", f"lesson_steps_{n}_{k}"} & keys(at)
    elif isinstance(action, Move):
        at.slider(key=f"lesson_move_{n}_{k}").set_value(action.target)
        rerun(at)
        assert progress(at)["explorer"][action.field] == pytest.approx(action.target)
    elif isinstance(action, Compute):
        click(at, f"lesson_compute_{n}_{k}")
        assert f"lesson_compute_{n}_{k}" not in keys(at)  # done: the button is gone
    return at


def assert_revealed(at, question, reveal, right):
    """The verdict, the page run's answer (the preset's) and the reveal's text are shown."""
    shown = "**Right.**" if right else "**Not this time.**"
    other = "**Not this time.**" if right else "**Right.**"
    verdicts = [m.value for m in [*at.success, *at.warning]]
    (verdict,) = [v for v in verdicts if v.startswith(shown)]
    assert not [v for v in verdicts if v.startswith(other)]
    expected = f"{reveal.answer:.3g}" if question.numeric else reveal.answer
    assert f"Your run says: {md(expected)}." in verdict, verdict
    assert verdict.endswith(reveal.headline), verdict   # the run's first sentence, in the box
    assert not reveal.why or reveal.why in markdown(at)  # the rest, folded under it
    assert WHY in expanders(at)
    assert any(c.value == f"Source: {reveal.source}" for c in at.caption)


def walk(n, right, upto=None):
    """Open lesson ``n`` from the catalogue and walk its stages (to ``upto``), every guess
    right or every guess wrong; returns the session."""
    lesson = LESSONS[n - 1]
    at = click(in_app(), f"lesson_start_{n}")
    stages = list(enumerate(zip(lesson.stages, preset(n)), start=1))[:upto]
    for k, (stage, reveal) in stages:
        assert_on_stage(at, n, k)
        if k < len(lesson.stages):
            assert at.button(key="lesson_next").disabled  # not before the reveal
        guess = guess_for(stage.question, reveal, right)
        answer(at, n, k, stage.question, guess)
        assert progress(at)["guesses"][k] == guess
        act(at, n, k, stage.action)
        assert_revealed(at, stage.question, reveal, right)
        if k < len(lesson.stages):
            click(at, "lesson_next")
    return at


# ------------------------------------------------------------------------------- the lessons

@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
@pytest.mark.parametrize("n", range(1, len(LESSONS) + 1))
def test_every_lesson_walks_to_its_end(n, right):
    at = walk(n, right)
    assert any(s.value.startswith(f"**End of lesson {n}.**") for s in at.success)
    assert [link.proto.page for link in at.get("page_link")] == [
        PAGES[LESSONS[n - 1].next_page]]
    assert "lesson_next" not in keys(at)
    lab = walked(n)[0]  # the page's run is the preset's, step for step
    assert [r.c_bound for r in the_run(at).history] == [r.c_bound for r in lab.run.history]
    assert progress(at)["explorer"] == lab.explorer
    assert set(at.session_state["lesson_results"]["results"]) == set(lab.results)
    k = len(LESSONS[n - 1].stages)
    click(at, "lesson_prev")  # back one stage: its guess and its reveal are kept
    assert_on_stage(at, n, k - 1)
    assert k - 1 in progress(at)["guesses"] and not at.button(key="lesson_next").disabled
    click(at, "lesson_all")  # the catalogue again
    assert "lesson_progress" not in at.session_state
    assert [t.value for t in at.title] == ["Lessons"]


# ------------------------------------------------------------------- one state, every path

def shown(at, n, k):
    """What stage ``k`` shows before the answer: settings (data set, split, pool...), the
    question, the run's length and the explorer point."""
    stage = LESSONS[n - 1].stage(k)
    texts = markdown(at)
    assert any(f"**Question.** {stage.question.text}" in t for t in texts), texts
    return {"settings": at.session_state["settings"], "question": stage.question.text,
            "steps": len(the_run(at).history), "explorer": dict(progress(at)["explorer"])}


def answer_and_act(at, n, k):
    stage, reveal = LESSONS[n - 1].stage(k), preset(n)[k - 1]
    answer(at, n, k, stage.question, guess_for(stage.question, reveal, right=True))
    act(at, n, k, stage.action)
    assert_revealed(at, stage.question, reveal, right=True)
    return at


@pytest.mark.parametrize("n", range(1, len(LESSONS) + 1))
def test_every_stage_is_the_same_by_link_by_next_and_after_previous(n):
    """Every stage reached three ways: Start and Next; a hand-typed short link
    ``?lesson=N&stage=K`` (the lesson's preset, nothing else in the link); Previous and Next
    back to it.  Each shows the same settings, question, run and point, and after the same
    answer the same reveal (the preset's, recomputed by the package)."""
    lesson = LESSONS[n - 1]
    at = click(in_app(), f"lesson_start_{n}")
    seen = {}
    for k in range(1, len(lesson.stages) + 1):
        assert_on_stage(at, n, k)
        seen[k] = shown(at, n, k)
        assert seen[k]["settings"] == lesson.preset()
        answer_and_act(at, n, k)
        if k > 1:   # back one stage: as it was left, its own point, run and reveal
            click(at, "lesson_prev")
            assert_on_stage(at, n, k - 1)
            assert_revealed(at, lesson.stage(k - 1).question, preset(n)[k - 2], right=True)
            click(at, "lesson_next")   # and forward again: this stage as it was left
            assert_on_stage(at, n, k)
            assert_revealed(at, lesson.stage(k).question, preset(n)[k - 1], right=True)
        if k < len(lesson.stages):
            click(at, "lesson_next")
    for k in range(1, len(lesson.stages) + 1):
        typed = app(lesson=n, stage=k)
        assert_on_stage(typed, n, k)
        assert shown(typed, n, k) == seen[k]
        assert not typed.warning and not typed.info   # nothing ignored, nothing changed
        answer_and_act(typed, n, k)


def test_previous_restores_the_stage_s_own_point():
    """Lesson 1: back at stage 1 after moving d to the edge, the map's point, the question and
    the reveal are stage 1's (d = 0.10), not the current 0.42."""
    at = walk(1, right=True, upto=3)   # stages 1-3 answered, now on stage 4
    assert progress(at)["explorer"]["d"] == pytest.approx(0.42)
    for _ in range(3):
        click(at, "lesson_prev")
    assert_on_stage(at, 1, 1)
    assert progress(at)["explorer"] == dict(LESSONS[0].explorer)
    assert_revealed(at, LESSONS[0].stage(1).question, preset(1)[0], right=True)


def test_a_link_that_changes_a_preset_setting_is_applied_and_said():
    at = app(lesson=6, stage=1)   # the lesson's own label noise, with nothing in the link
    assert at.session_state["settings"].label_noise == 0.2 and not at.info
    at = app(lesson=6, stage=1, label_noise=0.1)
    assert at.session_state["settings"].label_noise == 0.1
    (notice,) = [i.value for i in at.info]
    assert md("label noise 0.1 (the lesson's: 0.2)") in notice
    click(at, "lesson_preset")
    assert_on_stage(at, 6, 1)
    assert at.session_state["settings"] == LESSONS[5].preset() and not at.info
    at = app(lesson=4, stage=1)
    assert at.session_state["settings"].real == "breast_cancer"
    assert at.session_state["settings"].source == "real"


def test_a_slider_stage_says_what_to_do_until_the_point_is_near_enough():
    at = walk(1, right=True, upto=1)   # now on stage 2
    stage = LESSONS[0].stage(2)
    answer(at, 1, 2, stage.question, stage.question.choices[0])
    at.slider(key="lesson_move_1_2").set_value(0.35)
    rerun(at)
    assert any("about 0.4" in i.value for i in at.info)
    assert at.button(key="lesson_next").disabled and not at.success
    at.slider(key="lesson_move_1_2").set_value(0.39)   # within the stated 0.02
    rerun(at)
    assert not at.button(key="lesson_next").disabled
    assert any(v.value.startswith("**Right.**") for v in at.success)


@pytest.mark.parametrize("n, k", [(1, 1), (2, 1)])
def test_locking_without_an_answer_says_so(n, k):
    at = app(lesson=n, stage=k)
    click(at, f"lesson_lock_{n}_{k}")
    assert any(w.value.endswith("first, then lock it in.") for w in at.warning)
    assert progress(at)["guesses"] == {}


# ------------------------------------------------------------------------------------- links

def expected_steps(n, k, steps):
    """The iterations a link to lesson ``n``, stage ``k`` with ``steps`` must open with: the
    link's, at most the run length stage ``k`` reads, at least what the stages before did."""
    lesson = LESSONS[n - 1]
    lab = Lab.preset(lesson)
    while len(lab.run.history) < min(steps, lesson.steps_at(k)) and lab.run.step() is not None:
        pass
    return len(lab.walk(k - 1).run.history)


@pytest.mark.parametrize("n, k, steps", [(2, 3, 0), (2, 3, 5), (4, 3, 0), (4, 2, 30),
                                         (1, 4, 0)])
def test_link_lands_on_the_stage_with_parts_hidden(n, k, steps):
    lesson = LESSONS[n - 1]
    at = app(**lesson.link(), lesson=n, stage=k, steps=steps, hide="sidebar,glossary,teacher")
    assert_on_stage(at, n, k)
    assert len(the_run(at).history) == expected_steps(n, k, steps)
    if steps > lesson.steps_at(k):   # more than the stage reads: said, not run
        assert any(f"stage {k} works on the run at {lesson.steps_at(k)} iterations" in w.value
                   for w in at.warning)
    assert not SIDEBAR_KEYS & keys(at)
    assert "Notation" not in expanders(at) and TEACHER not in expanders(at)
    assert f"lesson_q_{n}_{k}" in keys(at)  # the stage asks its question
    assert at.query_params["hide"] == "sidebar,glossary,teacher"  # kept in the page's link
    assert at.query_params["stage"] == str(k)


def test_show_hidden_brings_the_parts_back():
    link = {**LESSONS[1].link(), "lesson": 2, "stage": 2,
            "hide": "navigation,sidebar,advanced,glossary,teacher"}
    at = in_app(**link)
    assert_on_stage(at, 2, 2)
    assert not SIDEBAR_KEYS & keys(at)
    assert "Notation" not in expanders(at) and TEACHER not in expanders(at)
    (button,) = [b for b in at.button if b.key == "show_hidden"]
    assert "Show the hidden controls" in button.label and "sidebar" in button.label
    click(at, "show_hidden")
    assert_on_stage(at, 2, 2)  # the same stage, now with everything
    assert SIDEBAR_KEYS <= keys(at)
    assert "Notation" in expanders(at) and TEACHER in expanders(at)
    assert "show_hidden" not in keys(at) and "hide" not in at.query_params


def test_reload_opens_the_same_stage_with_the_same_run():
    at = walk(2, right=True, upto=2)
    stage = LESSONS[1].stage(3)
    guess = guess_for(stage.question, preset(2)[2], right=False)
    answer(at, 2, 3, stage.question, guess)
    act(at, 2, 3, stage.action)
    run = the_run(at)
    link = dict(at.query_params)
    assert (link["lesson"], link["stage"], link["guess"]) == ("2", "3", guess)

    again = app(**link)
    assert_on_stage(again, 2, 3)
    reopened = the_run(again)
    assert len(reopened.history) == len(run.history) == stage.action.target
    assert reopened.history[-1].c_bound == run.history[-1].c_bound
    assert progress(again)["guesses"] == {3: guess}
    assert f"Your guess: **{guess}**. Not this time." in markdown(again)
    assert_revealed(again, stage.question, preset(2)[2], right=False)


@pytest.mark.parametrize("n, k", [(3, 1), (7, 2)])
def test_reload_of_a_computed_stage_and_a_typed_link_naming_it(n, k):
    """A stage whose button computed a result: its own link (a reload) and a hand-typed one
    that names only the result (``computed``, no ``steps``) show the same reveal."""
    lesson, reveal = LESSONS[n - 1], preset(n)[k - 1]
    stage = lesson.stage(k)
    at = walk(n, right=True, upto=k - 1) if k > 1 else click(in_app(), f"lesson_start_{n}")
    answer_and_act(at, n, k)
    guess = guess_for(stage.question, reveal, right=True)
    for link in (dict(at.query_params), {"lesson": n, "stage": k, "guess": guess,
                                         "computed": stage.action.key}):
        again = app(**link)
        assert_on_stage(again, n, k)
        assert_revealed(again, stage.question, reveal, right=True)


# ------------------------------------------------------------------------------ teacher panel

def test_teacher_panel_link_and_qr_code_reopen_the_lesson():
    at = app()
    assert TEACHER in expanders(at)
    at.selectbox(key="teacher_lesson").set_value(4)
    rerun(at)
    at.number_input(key="teacher_stage_4").set_value(2)
    rerun(at)
    (code,) = at.code
    url = code.value
    assert urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc
    link = link_of(url)
    assert (link["lesson"], link["stage"]) == ("4", "2")
    assert set(link["hide"].split(",")) == set(at.multiselect(key="teacher_hide").value)
    assert url == lesson_state.class_link(url, 4, 2, link["hide"].split(","))
    assert at.get("image")  # the QR code
    assert lesson_state.qr_png(url).startswith(b"\x89PNG")

    student = app(**link)
    assert_on_stage(student, 4, 2)
    assert hide.parse(link["hide"]) == (student.session_state[hide.KEY], [])
    assert TEACHER not in expanders(student)  # the default hides the panel itself
    assert "Split, noise, normalization" not in expanders(student)  # and "advanced"
    assert student.session_state["settings"].real == LESSONS[3].settings["real"]


def test_teacher_panel_lists_every_hideable_part():
    at = app()
    text = " ".join(markdown(at))
    assert all(f"**{part}**" in text for part in hide.PARTS)
    assert set(at.multiselect(key="teacher_hide").options) == set(hide.PARTS)


# --------------------------------------------------------------------------------- bad links

@pytest.mark.parametrize("link, bad", [({"lesson": "99"}, "'99'"),
                                       ({"lesson": "2", "stage": "abc"}, "'abc'"),
                                       ({"lesson": "2", "guess": "xyz"}, "'xyz'"),
                                       ({"lesson": "1", "guess": "xyz"}, "'xyz'"),
                                       ({"lesson": "2", "steps": "-3"}, "'-3'")])
def test_bad_link_values_are_named_and_ignored(link, bad):
    at = app(**link)
    warnings = " ".join(w.value for w in at.warning)
    assert md(bad) in warnings, warnings
    if link["lesson"] == "99":
        assert [t.value for t in at.title] == ["Lessons"]
    else:
        assert_on_stage(at, int(link["lesson"]), 1)
        assert progress(at)["guesses"] == {}


# -------------------------------------------------------------------------- step page: hide

def step_page(**params):
    at = app(STEP, **params)
    click(at, "step_once")
    assert len(the_run(at).history) == 1
    return at


def test_step_page_draws_every_part_without_hide():
    found = keys(step_page())
    assert {"step_algorithm", "step_max_iter", "step_charts", "step_once", "s_train_ratio",
            "s_split_seed", "step_other_rule", "step_mincq_beside", "step_dl_csv",
            "step_dl_json", "step_up_json", "step_export_chart"} <= found
    assert any(k.startswith("hp_") for k in found)


def test_step_page_hide_algorithm_keeps_the_link_s_algorithm():
    at = step_page(algorithm="cbboost", direction="gradient", max_iter=7, hide="algorithm")
    found = keys(at)
    assert not {"step_algorithm", "step_max_iter"} & found
    assert not [k for k in found if k.startswith("hp_")]
    click(at, "step_ten")
    run = the_run(at)
    assert len(run.history) == 7 and run.done  # the link's max_iter
    algorithm, params, max_iter, _ = at.session_state["run_step"]["config"]
    assert (algorithm, dict(params)["direction"], max_iter) == ("cbboost", "gradient", 7)
    assert at.query_params["direction"] == "gradient"
    assert {"step_charts", "step_dl_csv", "s_train_ratio"} <= found


@pytest.mark.parametrize("part, absent", [
    ("advanced", {"step_charts", "s_train_ratio", "s_split_seed", "step_other_rule"}),
    ("export", {"step_dl_csv", "step_dl_json", "step_up_json", "step_export_chart"})])
def test_step_page_hides_one_part_only(part, absent):
    at = step_page(hide=part)
    found = keys(at)
    assert not absent & found
    assert {"step_algorithm", "step_once", "s_source"} <= found
    assert bool(at.get("download_button")) == (part != "export")


def test_unknown_part_to_hide_is_named_and_the_others_apply():
    at = app("streamlit_app.py", hide="sidebar,bogus")  # named on the first page the link opens
    assert any("bogus" in w.value for w in at.warning)
    assert at.session_state[hide.KEY] == ["sidebar"]
    assert not SIDEBAR_KEYS & keys(at) and "show_hidden" in keys(at)
