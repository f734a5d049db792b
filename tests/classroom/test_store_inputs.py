"""Hostile nicknames, answers and run values (cbviz.classroom._inputs): refused with the store's
typed exceptions or stored verbatim as plain text, the tables intact; CSV cells a spreadsheet
would run as formulas prefixed.  On SQLite and PostgreSQL."""
import csv
import io

import numpy as np
import pytest
from sqlalchemy import inspect

from cbviz.classroom import AnswerRefused, NicknameRefused

TABLES = {"cbviz_schema", "classes", "class_stages", "students", "votes", "runs"}
MARKUP = "<script>alert(1)</script>"
SQL = ("'; DROP TABLE votes; --", "1 OR 1=1", "x'); DROP TABLE runs;--")


def tables_intact(db):
    assert TABLES <= set(inspect(db.engine).get_table_names())
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version FROM cbviz_schema").scalar() == 1


STORED_NICKNAMES = ["<b>Ada</b>", "**bold**", "[link](javascript:x)", *SQL, "Zoë 🦉",
                    "{{7*7}}", "x" * 24]
REFUSED_NICKNAMES = [MARKUP, "x" * 25, "x" * 10_000, "a\x00b", "a\nb", "tab\there",
                     "\x1b[31mred", "rtl\u202eevil", "zero\u200bwidth", 42, 1.5, b"bytes",
                     ["list"], float("nan")]
# lesson 1, stage 1 asks a number in [0, 1]; stage 2 a choice
REFUSED_NUMBERS = [MARKUP, "**bold**", "x" * 10_000, "x" * 201, *SQL, float("nan"), "nan",
                   float("inf"), "-inf", -float("inf"), None, 1.5, -0.1, "2", 10 ** 400, True,
                   b"0.5", [0.5], {"v": 0.5}, np.float64("nan"), "0x1p-2", "1e999"]
REFUSED_CHOICES = [MARKUP, "**bold**", "x" * 10_000, *SQL, float("nan"), None, 1,
                   "the C-bound Falls", "the C-bound falls "]
REFUSED_STAGES = [0, 5, -1, "1", 1.0, None, True, "1 OR 1=1"]
REFUSED_RUNS = [{"test_error": "0.5"}, {"test_error": True}, {"seed": 2 ** 63},
                {"m": 10 ** 400}, {"'; DROP TABLE runs; --": 1.0}, {"test_error": [0.5]},
                {"m": 2.5}, [("m", 1)]]


def test_hostile_nicknames_that_fit_are_stored_verbatim_the_others_refused(db, klass):
    pacing, teacher = klass
    for nickname in STORED_NICKNAMES:
        student, token = db.join(pacing.code, nickname)
        assert student.nickname == nickname == db.student(pacing.code, token).name
    for nickname in REFUSED_NICKNAMES:
        with pytest.raises(NicknameRefused):
            db.join(pacing.code, nickname)
    assert [s.nickname for s in db.roster(pacing.code, teacher)] == STORED_NICKNAMES
    tables_intact(db)


def test_hostile_answers_are_refused(db, klass):
    pacing, teacher = klass
    code = pacing.code
    for stage, values in ((1, REFUSED_NUMBERS), (2, REFUSED_CHOICES)):
        for value in values:
            _, token = db.join(code)   # a student each, clear of the rate limit
            with pytest.raises(AnswerRefused):
                db.answer(code, token, stage, value)
    for stage in REFUSED_STAGES:
        _, token = db.join(code)
        with pytest.raises(AnswerRefused):
            db.answer(code, token, stage, 0.5)
    assert db.votes(code, teacher, 1) == db.votes(code, teacher, 2) == []
    assert db.answers_csv(code, teacher).count("\n") == 1
    tables_intact(db)


def test_hostile_run_values_are_refused(db, klass):
    pacing, teacher = klass
    _, token = db.join(pacing.code)
    for values in REFUSED_RUNS:
        with pytest.raises(AnswerRefused):
            db.record(pacing.code, token, 1, values)
    with pytest.raises(AnswerRefused):
        db.record(pacing.code, token, 1, {"m": 10}, answer="x" * 201)
    assert db.results(pacing.code, teacher, 1) == []
    tables_intact(db)


def test_the_csv_prefixes_cells_a_spreadsheet_would_run(db, klass):
    pacing, teacher = klass
    for nickname in ("=1+1", "+SUM(A1)", "-2+3", "@cmd", "=HYPERLINK(\"x\")", "Ada, \"A\""):
        _, token = db.join(pacing.code, nickname)
        db.answer(pacing.code, token, 1, 0.5)
    rows = list(csv.reader(io.StringIO(db.answers_csv(pacing.code, teacher))))[1:]
    assert [row[1] for row in rows] == ["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd",
                                        "'=HYPERLINK(\"x\")", "Ada, \"A\""]
    assert {row[4] for row in rows} == {"0.5"}
