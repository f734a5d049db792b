"""Join codes and tokens (cbviz.classroom._tokens): codes from the unambiguous alphabet and
unique, tokens stored only as their SHA-256.  On SQLite and PostgreSQL."""
import hashlib
from pathlib import Path

import pytest
from sqlalchemy import MetaData, select

from cbviz.classroom import CODE_ALPHABET, normalize_code


def test_the_alphabet_has_no_character_that_reads_as_another():
    assert len(CODE_ALPHABET) == len(set(CODE_ALPHABET)) == 25
    assert not set("0O1IL2Z5S8B") & set(CODE_ALPHABET)


@pytest.mark.parametrize("typed, code", [("acd-efg", "ACDEFG"), (" AC DE FG ", "ACDEFG"),
                                         ("a-c-d-e-f-g", "ACDEFG"), (None, ""), (7, "")])
def test_a_code_is_read_as_typed(typed, code):
    assert normalize_code(typed) == code


def test_codes_are_from_the_alphabet_and_unique(db, monkeypatch):
    codes = [db.create_class(1)[0].code for _ in range(30)]
    assert len(set(codes)) == 30
    assert all(len(c) == 6 and set(c) <= set(CODE_ALPHABET) for c in codes)
    drawn = iter(["ACDEFG", "ACDEFG", "ACDEFG", "HJKMNP"])   # a code taken: another is drawn
    monkeypatch.setattr("cbviz.classroom._teacher.new_code", lambda: next(drawn))
    assert db.create_class(1)[0].code == "ACDEFG"
    assert db.create_class(1)[0].code == "HJKMNP"


def test_tokens_are_stored_only_as_their_hashes(db):
    pacing, teacher = db.create_class(1)
    _, student = db.join(pacing.code, "Ada")
    tables = MetaData()
    tables.reflect(db.engine)
    with db.engine.connect() as conn:
        cells = [str(cell) for table in tables.sorted_tables
                 for row in conn.execute(select(table)) for cell in row]
    assert hashlib.sha256(teacher.encode()).hexdigest() in cells
    assert hashlib.sha256(student.encode()).hexdigest() in cells
    assert not any(teacher in cell or student in cell for cell in cells)
    if db.dialect == "sqlite":   # nor anywhere in the file or its write-ahead log
        db.engine.dispose()
        database = Path(db.engine.url.database)
        for path in (database, database.with_name(database.name + "-wal")):
            if path.exists():
                data = path.read_bytes()
                assert teacher.encode() not in data and student.encode() not in data
