"""Who may do what (cbviz.classroom._access): tokens checked against the class of the code,
and the per-student rate limit kept in the database; on SQLite and PostgreSQL."""
import secrets
import time

import pytest

from cbviz.classroom import RATE_LIMIT, AnswerRefused, NotAllowed, RateLimited

def teacher_actions(db, code, token):
    """Each teacher action, called with ``token`` on class ``code``."""
    return [
        lambda: db.teacher(code, token), lambda: db.roster(code, token),
        lambda: db.votes(code, token, 1), lambda: db.results(code, token, 1),
        lambda: db.answers_csv(code, token), lambda: db.pace(code, token, stage=2),
        lambda: db.pace(code, token, mode="follow"), lambda: db.release(code, token, 1),
        lambda: db.open_second_vote(code, token, 1), lambda: db.end_class(code, token)]


def student_actions(db, code, token):
    return [
        lambda: db.student(code, token), lambda: db.move(code, token, 2),
        lambda: db.answer(code, token, 1, 0.5),
        lambda: db.my_votes(code, token), lambda: db.record(code, token, 1, {"m": 5}),
        lambda: db.class_results(code, token, 1), lambda: db.class_votes(code, token, 1)]


def test_the_teacher_actions_refuse_every_other_token(db):
    a, a_token = db.create_class(1)
    b, b_token = db.create_class(1)
    _, student = db.join(a.code)
    guesses = [None, "", secrets.token_urlsafe(32), a_token[:-1], a_token + "x", student,
               b_token, a_token.upper(), 12345, b"bytes", "\ud800"]
    for guess in guesses:
        for action in teacher_actions(db, a.code, guess):
            with pytest.raises(NotAllowed):
                action()
    for action in teacher_actions(db, b.code, a_token):
        with pytest.raises(NotAllowed):
            action()
    assert db.teacher(a.code, a_token) == a   # nothing changed the pacing
    assert db.teacher(b.code, b_token) == b


def test_a_student_acts_only_in_their_own_class(db):
    a, a_teacher = db.create_class(1)
    b, _ = db.create_class(1)
    _, a_student = db.join(a.code)
    _, b_student = db.join(b.code)
    db.release(a.code, a_teacher, 1)
    for code, token in [(b.code, a_student), (a.code, b_student), (a.code, None),
                        (a.code, ""), (a.code, a_teacher), (a.code, secrets.token_urlsafe(16))]:
        for action in student_actions(db, code, token):
            with pytest.raises(NotAllowed):
                action()
    assert db.my_votes(a.code, a_student) == {} == db.my_votes(b.code, b_student)


def test_a_flood_from_one_student_is_limited_and_the_others_are_all_stored(db, klass):
    pacing, teacher = klass
    code = pacing.code
    _, flooder = db.join(code)
    others = [db.join(code)[1] for _ in range(5)]
    limit, window = RATE_LIMIT
    start = time.monotonic()
    outcomes = []
    for i in range(1000):
        try:
            db.move(code, flooder, 1 + i % 4)
            outcomes.append("stored")
        except RateLimited:
            outcomes.append("limited")
    assert outcomes == ["stored"] * limit + ["limited"] * (1000 - limit)
    with pytest.raises(RateLimited):
        db.answer(code, flooder, 1, 0.5)
    for i, token in enumerate(others):   # in the same window: all stored
        for stage, value in ((1, 0.1 * i), (3, 0.5)):
            db.answer(code, token, stage, value)
        db.move(code, token, 2)
    assert time.monotonic() - start < window, "the loop outlasted the window"
    stored = db.votes(code, teacher, 1) + db.votes(code, teacher, 3)
    assert len(stored) == 2 * len(others)
    assert all(v.student != 1 for v in stored)
    assert db.pacing(code).version == 1


def test_the_limit_counts_refused_writes_and_ends_with_its_window(db, klass):
    pacing, _ = klass
    code = pacing.code
    _, token = db.join(code)
    db.answer(code, token, 1, 0.5)
    for _ in range(RATE_LIMIT[0] - 1):   # the same vote again: refused, but counted
        with pytest.raises(AnswerRefused, match="already locked"):
            db.answer(code, token, 1, 0.5)
    with pytest.raises(RateLimited):
        db.move(code, token, 2)
    with db.writer.begin() as conn:   # the window began RATE_LIMIT[1] s ago
        conn.exec_driver_sql("UPDATE students SET window_start = joined - interval '1 hour'"
                             if db.dialect == "postgresql" else
                             "UPDATE students SET window_start = '2000-01-01 00:00:00.000000'")
    assert db.move(code, token, 2).stage == 2
