"""AppTest checks of a live class (issue #28): a teacher starts one on the Lessons page, students
join by link or code, the dashboard shows their votes, the teacher paces the class (follow,
pause, held reveals, second vote), a sample per student, a student's link kept in the
address, and links that are not what they claim.

Every session is a separate AppTest (a separate Streamlit session), all on one SQLite class
store in a temporary folder, as the workers of `cbviz serve` share one.
"""
import pytest
import streamlit as st
from helpers import status_lines
from streamlit.testing.v1 import AppTest

from cbviz.app import FOLDER
from cbviz.classroom import DATABASE_ENV, open_database
from cbviz.lessons import LESSONS, Lab
from cbviz.markdown import md

TIMEOUT = 180
LESSON = 4   # the PAC-Bayes bounds: each stage a choice, then Steps (stage 3: a look)


@pytest.fixture(autouse=True)
def store(tmp_path, monkeypatch):
    """A fresh class store for each test (the app's cached handle is dropped)."""
    monkeypatch.setenv(DATABASE_ENV, str(tmp_path / "classes.sqlite3"))
    st.cache_resource.clear()
    yield open_database(str(tmp_path / "classes.sqlite3"))
    st.cache_resource.clear()


def run(at):
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def page(path, **params):
    at = AppTest.from_file(str(FOLDER / path), default_timeout=TIMEOUT)
    for k, v in params.items():
        at.query_params[k] = str(v)
    return run(at)


def lessons(**params):
    return page("app_pages/lessons.py", **params)


def dashboard(**params):
    return page("app_pages/class_dashboard.py", **params)


def click(at, key):
    at.button(key=key).click()
    return run(at)


def address(at):
    """The page's query string as ``{key: value}``."""
    return {k: (v[0] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}


def text(at):
    """Everything the page says, as one string (markdown, alerts, captions, titles, code,
    status lines)."""
    parts = [e.value for kind in ("markdown", "caption", "title", "success", "warning",
                                  "error", "info", "code", "header", "subheader")
             for e in getattr(at, kind)] + status_lines(at)
    return "\n".join(str(p) for p in parts)


def start_class(store, follow=False, hold=False, own=False, lesson=LESSON):
    """A teacher's Lessons page: the panel's Start button; returns (code, teacher key, page)."""
    at = lessons()
    at.selectbox(key="class_lesson").set_value(lesson)
    at.toggle(key="class_follow").set_value(follow)
    at.toggle(key="class_hold").set_value(hold)
    at.toggle(key="class_own").set_value(own)
    click(at, "class_start")
    created = at.session_state["class_created"]
    return created["code"], created["key"], at


def join(code, nickname=""):
    at = lessons(join=code)
    at.text_input(key="class_nickname").set_value(nickname)
    click(at, "class_join_button")
    return run(at)   # the lesson's settings apply on the run after the join


def stage_of(at):
    return at.session_state["lesson_progress"]["stage"]


def lock(at, k, value):
    widget = (at.radio if not isinstance(value, (int, float)) else at.number_input)(
        key=f"lesson_q_{LESSON}_{k}")
    widget.set_value(value)
    return click(at, f"lesson_lock_{LESSON}_{k}")


def act(at, k):
    """Take the stage's Steps (the buttons that appear once the guess is in)."""
    for key in (f"lesson_steps_{LESSON}_{k}", f"lesson_step_{LESSON}_{k}"):
        while any(b.key == key for b in at.button):
            click(at, key)
    return at


def vote(at, k, value):
    """Lock ``value`` on stage ``k`` and do the stage's action: the reveal is computed."""
    return act(lock(at, k, value), k)


def reveal(k, lesson=LESSON):
    lab = Lab.preset(LESSONS[lesson - 1])
    for stage in lab.lesson.stages[:k]:
        stage.action.perform(lab)
    return lab.lesson.stage(k).reveal(lab)


# ------------------------------------------------------------------------------------ tests

def test_a_teacher_starts_a_class_and_gets_a_code_a_student_link_and_a_private_link(store):
    code, key, at = start_class(store)
    shown = text(at)
    assert code in shown and f"join={code}" in shown
    assert f"key={key}" in shown   # the teacher's own page shows the teacher link
    assert len(key) >= 40
    assert store.teacher(code, key).lesson == LESSON


def test_students_join_by_link_and_by_code_and_their_votes_reach_the_dashboard(store):
    code, key, _ = start_class(store)
    ada = join(code, "Ada")
    assert "you are **Ada**" in text(ada) and stage_of(ada) == 1
    by_code = lessons()
    by_code.text_input(key="class_code_typed").set_value(code.lower())
    click(by_code, "class_join_button")
    run(by_code)
    assert "you are **Student 2**" in text(by_code)
    choices = LESSONS[LESSON - 1].stage(1).question.choices
    lock(ada, 1, choices[0])
    lock(by_code, 1, choices[1])
    board = dashboard(**{"class": code, "key": key})
    shown = text(board)
    assert "**2** of 2 voted on stage 1" in shown
    names = set(board.dataframe[0].value["student"])
    assert names == {"Ada", "Student 2"}
    votes = {v.value for v in store.votes(code, key, 1)}
    assert votes == {choices[0], choices[1]}


def test_follow_mode_moves_every_student_to_the_teachers_stage(store):
    code, key, _ = start_class(store, follow=True)
    student = join(code)
    board = dashboard(**{"class": code, "key": key})
    assert student.button(key="lesson_next").disabled
    click(board, "class_next")
    assert store.pacing(code).stage == 2
    run(student)   # what the page's poll does when the pacing's version changes
    assert stage_of(student) == 2
    assert store.roster(code, key)[0].stage == 2


def test_pause_shows_eyes_on_the_teacher_and_nothing_else(store):
    code, key, _ = start_class(store)
    student = join(code)
    board = dashboard(**{"class": code, "key": key})
    board.toggle(key="class_t_pause").set_value(True)
    run(board)
    assert store.pacing(code).paused
    run(student)
    assert "Eyes on the teacher" in text(student)
    assert not [b for b in student.button if b.key and b.key.startswith("lesson_")]


def test_held_reveal_waits_for_the_teacher_then_shows_with_the_class_share(store):
    code, key, _ = start_class(store, hold=True)
    student = join(code)
    rv = reveal(1)
    vote(student, 1, rv.answer)
    assert "Your guess is locked" in text(student)
    assert "**Right.**" not in text(student)
    board = dashboard(**{"class": code, "key": key})
    assert "Answers held" in text(board)
    click(board, "class_release")
    run(student)
    assert "**Right.**" in text(student)
    run(board)
    assert "Right, first vote: **1 of 1 (100 %)**" in text(board)


def test_a_second_vote_is_stored_and_the_shift_is_on_the_dashboard(store):
    code, key, _ = start_class(store, hold=True)
    student = join(code)
    rv = reveal(1)
    wrong = next(c for c in LESSONS[LESSON - 1].stage(1).question.choices if c != rv.answer)
    vote(student, 1, wrong)
    board = dashboard(**{"class": code, "key": key})
    click(board, "class_second")
    run(student)
    student.radio(key="class_second_q_1").set_value(rv.answer)
    student.button[[b.label for b in student.button].index("Lock in my second vote")].click()
    run(student)
    assert store.votes(code, key, 1)[-1].value == rv.answer
    click(board, "class_release")
    run(student)
    assert f"Your second vote: {md(rv.answer)}, right." in text(student)
    run(board)
    shown = text(board)
    assert "Right, first vote: **0 of 1 (0 %)**" in shown
    assert "Right, second vote: **1 of 1 (100 %)** · 1 of 1 changed their answer" in shown


def test_own_samples_give_each_student_a_seed_and_the_class_runs(store):
    code, key, _ = start_class(store, own=True)
    a, b = join(code), join(code)
    seeds = {at.session_state["settings"].split_seed for at in (a, b)}
    assert len(seeds) == 2
    for at in (a, b):
        vote(at, 1, LESSONS[LESSON - 1].stage(1).question.choices[0])
    run(a)
    results = store.results(code, key, 1)
    assert len(results) == 2 and {r.seed for r in results} == seeds
    assert "Your run beside the class's runs (2 samples)" in [e.label for e in a.expander]
    assert "samples" in text(a) and "δ × 2" in text(a)


def test_a_reload_of_a_students_link_comes_back_on_the_stage_with_the_guess(store):
    code, key, _ = start_class(store)
    student = join(code, "Bo")
    choice = LESSONS[LESSON - 1].stage(1).question.choices[0]
    lock(student, 1, choice)
    link = address(student)
    assert link["class"] == code
    again = lessons(**link)
    assert "you are **Bo**" in text(again)
    assert again.session_state["lesson_progress"]["guesses"][1] == choice
    assert "key" not in link and key not in str(link)


@pytest.mark.parametrize("stage", [None, 1])
def test_a_students_own_link_keeps_its_class_keys_after_the_first_run(store, stage):
    """The first run of a student's own link, even one that ends without another run (a link
    naming its lesson and stage, as the app's own do), leaves ``class`` and ``me`` in the
    address: the one a reload, or a worker that died, opens next (found by the kill drill)."""
    pacing, _ = store.create_class(LESSON)
    _, token = store.join(pacing.code, "Kept")
    link = {"class": pacing.code, "me": token}
    if stage is not None:
        link.update(lesson=LESSON, stage=stage)   # the app's own link: lesson and stage
    at = lessons(**link)
    assert "you are **Kept**" in "\n".join(c.value for c in at.caption)
    kept = address(at)
    assert kept.get("class") == pacing.code and kept.get("me") == token, kept


def test_a_wrong_student_token_or_teacher_key_shows_nothing_of_the_class(store):
    code, key, _ = start_class(store)
    ada = join(code, "Ada")
    lock(ada, 1, LESSONS[LESSON - 1].stage(1).question.choices[0])
    forged = lessons(**{"class": code, "me": "x" * 22, "lesson": LESSON, "stage": 1})
    assert "This class link cannot be used" in text(forged)
    assert "Ada" not in text(forged)
    for bad in ("guess" * 9, key[:-1] + ("A" if key[-1] != "A" else "B")):
        board = dashboard(**{"class": code, "key": bad})
        assert "cannot be used" in text(board) and "Ada" not in text(board)
        assert not board.dataframe
    other_code, other_key, _ = start_class(store)
    board = dashboard(**{"class": code, "key": other_key})
    assert "cannot be used" in text(board)


def test_a_students_page_never_holds_the_teacher_key(store):
    code, key, _ = start_class(store, follow=True, hold=True)
    student = join(code)
    lock(student, 1, LESSONS[LESSON - 1].stage(1).question.choices[0])
    everything = text(student) + str(dict(student.query_params)) + str(
        {k: student.session_state[k] for k in student.session_state
         if not str(k).startswith("$$")})
    assert key not in everything


def test_a_hostile_nickname_is_refused_or_shown_as_plain_text(store):
    code, key, _ = start_class(store)
    at = lessons(join=code)
    at.text_input(key="class_nickname").set_value("<b>x</b>' OR 1=1; --")
    click(at, "class_join_button")
    run(at)
    board = dashboard(**{"class": code, "key": key})
    assert list(board.dataframe[0].value["student"]) == ["<b>x</b>' OR 1=1; --"]
    assert "you are **\\<b\\>x\\</b\\>" in text(at)   # escaped: shown as typed, not bold
    bidi = lessons(join=code)
    bidi.text_input(key="class_nickname").set_value("ab\u202ecd")   # a right-to-left override
    click(bidi, "class_join_button")
    assert "Could not join" in text(bidi)


def test_a_vote_already_locked_elsewhere_is_taken_as_stored(store):
    """A page that missed its own lock (or a second tab) locks again: the stored vote is
    shown, not an error, and nothing is stored twice."""
    code, key, _ = start_class(store)
    student = join(code)
    choices = LESSONS[LESSON - 1].stage(1).question.choices
    token = student.session_state["class_member"]["token"]
    store.answer(code, token, 1, choices[1])            # locked by another tab
    lock(student, 1, choices[0])
    assert f"Your guess: **{choices[1]}**" in text(student)
    assert "not stored" not in text(student)
    assert [v.value for v in store.votes(code, key, 1)] == [choices[1]]
