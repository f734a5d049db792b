"""The teacher's side of the class store (cbviz.classroom._teacher), on SQLite and PostgreSQL."""
import csv
import io
from datetime import datetime, timedelta, timezone

import pytest

from cbviz.classroom import (AnswerRefused, ClassClosed, CSV_COLUMNS, Pacing, RESULT_FIELDS,
                             open_database)
from cbviz.lessons import LESSONS


def test_a_class_starts_on_its_lesson_with_its_settings(db):
    before = datetime.now(timezone.utc)
    pacing, token = db.create_class(3, mode="follow", hold_reveals=True, own_samples=True,
                                    days=2, seed=42)
    assert isinstance(pacing, Pacing) and len(token) >= 43
    assert (pacing.lesson, pacing.mode, pacing.stage, pacing.seed) == (3, "follow", 1, 42)
    assert pacing.hold_reveals and pacing.own_samples and not pacing.paused
    assert not pacing.released and not pacing.second_vote and not pacing.ended
    assert pacing.created.tzinfo is not None and before <= pacing.created
    assert pacing.expires - pacing.created == timedelta(days=2)
    assert db.teacher(pacing.code, token) == pacing == db.pacing(pacing.code)
    assert 0 <= db.create_class(1)[0].seed <= 10 ** 5


def test_a_class_on_settings_out_of_range_is_refused(db):
    for settings in (dict(lesson=0), dict(lesson=len(LESSONS) + 1), dict(lesson="1"),
                     dict(lesson=True), dict(lesson=1, mode="chaos"), dict(lesson=1, days=0),
                     dict(lesson=1, days=366), dict(lesson=1, days=1.5),
                     dict(lesson=1, seed=-1), dict(lesson=1, seed="7")):
        with pytest.raises(AnswerRefused):
            db.create_class(settings.pop("lesson"), **settings)
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM classes").scalar() == 0


def test_pacing_changes_bump_the_version(db, klass):
    pacing, token = klass
    paced = db.pace(pacing.code, token, mode="follow", stage=3, paused=True)
    assert (paced.mode, paced.stage, paced.paused, paced.version) == ("follow", 3, True, 2)
    paced = db.pace(pacing.code, token, hold_reveals=True)
    assert (paced.mode, paced.stage, paced.hold_reveals, paced.version) == ("follow", 3, True, 3)
    assert db.pacing(pacing.code) == paced
    for bad in (dict(stage=0), dict(stage=len(LESSONS[0].stages) + 1), dict(mode="x")):
        with pytest.raises(AnswerRefused):
            db.pace(pacing.code, token, **bad)
    assert db.pacing(pacing.code).version == 3


def test_release_and_second_vote_per_stage(db, klass):
    pacing, token = klass
    assert db.release(pacing.code, token, 2).released == {2}
    assert db.open_second_vote(pacing.code, token, 1).second_vote == {1}
    assert db.release(pacing.code, token, 3).released == {2, 3}
    paced = db.release(pacing.code, token, 2, released=False)
    assert paced.released == {3} and paced.second_vote == {1} and paced.version == 5
    assert db.open_second_vote(pacing.code, token, 1, opened=False).second_vote == set()
    with pytest.raises(AnswerRefused):
        db.release(pacing.code, token, 9)


def test_roster_votes_results_and_csv(db, klass):
    pacing, token = klass
    code = pacing.code
    ada, ada_token = db.join(code, "Ada")
    anon, anon_token = db.join(code)
    assert [s.name for s in db.roster(code, token)] == ["Ada", "Student 2"]
    assert (ada.number, anon.number, anon.nickname) == (1, 2, None)
    db.answer(code, ada_token, 1, 0.25)
    db.answer(code, anon_token, 1, "0.5")
    db.answer(code, ada_token, 2, "the C-bound falls")
    db.open_second_vote(code, token, 1)
    db.answer(code, ada_token, 1, 0.3, round=2)
    db.record(code, ada_token, 1, {"test_error": 0.2, "c_bound": float("nan"), "seed": 7,
                                   "m": 100}, answer="0.3")
    votes = db.votes(code, token, 1)
    assert [(v.student, v.nickname, v.round, v.value, v.right) for v in votes] == [
        (1, "Ada", 1, 0.25, True), (1, "Ada", 2, 0.3, True), (2, None, 1, 0.5, None)]
    assert all(v.at.tzinfo is not None for v in votes)
    [run] = db.results(code, token, 1)
    assert (run.student, run.seed, run.m, run.answer) == (1, 7, 100, "0.3")
    assert run.values == dict.fromkeys(RESULT_FIELDS) | {"test_error": 0.2}
    rows = list(csv.reader(io.StringIO(db.answers_csv(code, token))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r[:6] for r in rows[1:]] == [
        ["1", "Ada", "1", "1", "0.25", "true"], ["1", "Ada", "1", "2", "0.3", "true"],
        ["1", "Ada", "2", "1", "the C-bound falls", ""], ["2", "", "1", "1", "0.5", ""]]
    assert all(datetime.fromisoformat(r[6]).utcoffset() == timedelta(0) for r in rows[1:])


def test_ending_a_class_keeps_or_deletes_its_rows(db):
    kept, kept_token = db.create_class(1)
    gone, gone_token = db.create_class(1)
    for pacing in (kept, gone):
        _, student = db.join(pacing.code, "Ada")
        db.answer(pacing.code, student, 1, 0.5)
    db.end_class(kept.code, kept_token, delete=False)
    with pytest.raises(ClassClosed, match="ended"):
        db.pacing(kept.code)
    with pytest.raises(ClassClosed, match="ended"):
        db.join(kept.code)
    with pytest.raises(ClassClosed):
        db.pace(kept.code, kept_token, stage=2)
    assert db.teacher(kept.code, kept_token).ended
    assert len(db.votes(kept.code, kept_token, 1)) == 1
    db.end_class(gone.code, gone_token)
    with pytest.raises(ClassClosed, match="No class has the code"):
        db.teacher(gone.code, gone_token)
    with db.engine.connect() as conn:
        counts = {t: conn.exec_driver_sql(f"SELECT count(*) FROM {t}").scalar()
                  for t in ("classes", "class_stages", "students", "votes", "runs")}
    assert counts == {"classes": 1, "class_stages": len(LESSONS[0].stages), "students": 1,
                      "votes": 1, "runs": 0}


def test_expired_classes_are_refused_then_purged(db, klass):
    pacing, token = klass
    _, student = db.join(pacing.code)
    db.answer(pacing.code, student, 1, 0.5)
    assert db.purge_expired() == 0
    later = pacing.expires + timedelta(seconds=1)
    assert db.purge_expired(now=later) == 1
    with pytest.raises(ClassClosed):
        db.teacher(pacing.code, token)
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM votes").scalar() == 0


def test_a_class_past_its_expiry_is_closed_before_the_purge(db):
    pacing, token = db.create_class(1, days=1)
    with db.writer.begin() as conn:
        conn.exec_driver_sql("UPDATE classes SET expires = created")
    with pytest.raises(ClassClosed, match="expired on"):
        db.pacing(pacing.code)
    with pytest.raises(ClassClosed, match="expired on"):
        db.teacher(pacing.code, token)


def test_opening_the_database_purges_what_expired(url):
    db = open_database(url)
    pacing, _ = db.create_class(1, days=1)
    with db.writer.begin() as conn:
        conn.exec_driver_sql("UPDATE classes SET expires = created")
    open_database(url)
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM classes").scalar() == 0
    db.engine.dispose()
