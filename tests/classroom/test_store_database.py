"""Opening the class store (cbviz.classroom._database): files and URLs, SQLite's settings, the
schema created once and its version checked, and several worker processes sharing one database
(SQLite file and PostgreSQL)."""
import multiprocessing
import traceback

import pytest

from cbviz.classroom import (DATABASE_ENV, SCHEMA_VERSION, SchemaError, default_database_path,
                             open_database)

WORKERS, JOINS = 2, 40


def test_a_path_opens_a_sqlite_file_in_new_folders(tmp_path):
    path = tmp_path / "a" / "b" / "classes.sqlite3"
    db = open_database(path)
    assert (db.dialect, db.url) == ("sqlite", f"sqlite:///{path}")
    assert path.exists()
    with db.engine.connect() as conn:
        pragmas = {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                   for name in ("journal_mode", "busy_timeout", "foreign_keys", "synchronous")}
    assert pragmas == {"journal_mode": "wal", "busy_timeout": 10000, "foreign_keys": 1,
                       "synchronous": 1}
    assert open_database(f"sqlite:///{path}").engine is db.engine   # one engine per URL
    db.engine.dispose()


def test_the_default_is_the_environment_then_the_data_folder(tmp_path, monkeypatch, data_dir):
    assert default_database_path() == data_dir / "classes.sqlite3"
    monkeypatch.setenv(DATABASE_ENV, str(tmp_path / "env.sqlite3"))
    assert open_database().url == f"sqlite:///{tmp_path / 'env.sqlite3'}"
    monkeypatch.delenv(DATABASE_ENV)
    assert open_database().url == f"sqlite:///{data_dir / 'classes.sqlite3'}"


def test_a_url_of_another_database_is_refused():
    with pytest.raises(ValueError, match="SQLite file or a PostgreSQL URL"):
        open_database("mysql://user:secret@host/db")


def test_a_postgresql_url_takes_psycopg_and_masks_its_password(postgres_url):
    url = postgres_url.replace("postgres@", "postgres:secret@", 1)
    db = open_database(url)
    assert db.dialect == "postgresql" and "secret" not in db.url
    assert db.url.startswith("postgresql+psycopg://postgres:***@")
    db.engine.dispose()


def test_the_schema_is_created_once_then_reopened(url):
    db = open_database(url)
    pacing, teacher = db.create_class(2)
    db.engine.dispose()
    again = open_database(url)
    assert again.teacher(pacing.code, teacher) == pacing
    with again.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version FROM cbviz_schema").scalars().all() == \
            [SCHEMA_VERSION]
    again.engine.dispose()


def test_another_schema_version_is_refused(url):
    db = open_database(url)
    with db.writer.begin() as conn:
        conn.exec_driver_sql(f"UPDATE cbviz_schema SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaError, match=f"has schema version {SCHEMA_VERSION + 1}; this "
                                          f"cbviz expects version {SCHEMA_VERSION}"):
        open_database(url)
    with db.writer.begin() as conn:
        conn.exec_driver_sql("DROP TABLE cbviz_schema")
    with pytest.raises(SchemaError, match="version unknown.*--database"):
        open_database(url)
    db.engine.dispose()


def test_a_database_with_other_tables_gets_the_schema_beside_them(url, raw_engine):
    with raw_engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE notes (text TEXT)")
    db = open_database(url)
    assert db.create_class(1)[0].lesson == 1
    db.engine.dispose()


def _worker(url, code, pet, barrier, results):
    """Join JOINS students to class ``code`` and vote for each: their numbers, and the votes of
    the parent's student ``pet`` as this worker reads them."""
    try:
        db = open_database(url)
        barrier.wait(timeout=120)
        numbers = []
        for i in range(JOINS):
            student, token = db.join(code)
            db.answer(code, token, 1, i / JOINS)
            numbers.append(student.number)
        results.put((numbers, db.my_votes(code, pet)))
    except BaseException:
        results.put(traceback.format_exc())


def test_workers_join_one_class_together_and_see_each_others_answers(url):
    db = open_database(url)
    pacing, teacher = db.create_class(1)
    _, pet = db.join(pacing.code, "pet")
    db.answer(pacing.code, pet, 1, 0.75)
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(WORKERS), spawn.Queue()
    workers = [spawn.Process(target=_worker, args=(url, pacing.code, pet, barrier, results))
               for _ in range(WORKERS)]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=180) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    failures = [o for o in outcomes if isinstance(o, str)]
    assert not failures, failures[0]
    numbers = sorted(n for joined, _ in outcomes for n in joined)
    assert numbers == list(range(2, 2 + WORKERS * JOINS))   # the pet is number 1
    assert [seen for _, seen in outcomes] == [{(1, 1): 0.75}] * WORKERS
    roster = db.roster(pacing.code, teacher)
    assert [s.number for s in roster] == list(range(1, 2 + WORKERS * JOINS))
    assert len(db.votes(pacing.code, teacher, 1)) == 1 + WORKERS * JOINS
    db.engine.dispose()
