"""A student's own class link (``class`` and ``me``) stays in the page's address from the first
run of a session: a reload, or a worker that died, opens that link on a new session, and the
address it leaves is the one the next reload opens.

The data sidebar writes the address before the Lessons page knows the student; a first run that
ends without another run (a link that names its lesson and stage, as the app's own links do)
must still leave the class keys in it, else a second reload drops the student out of the class
(found by the kill drill, tests/app/test_class_kill_drill.py).
"""
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from cbviz.app import FOLDER
from cbviz.classroom import DATABASE_ENV, open_database

LESSON = 4


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv(DATABASE_ENV, str(tmp_path / "classes.sqlite3"))
    st.cache_resource.clear()
    yield open_database(str(tmp_path / "classes.sqlite3"))
    st.cache_resource.clear()


def address(at):
    return {k: (v[0] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}


@pytest.mark.parametrize("stage", [None, 1])
def test_a_students_own_link_keeps_its_class_keys_after_the_first_run(store, stage):
    pacing, _ = store.create_class(LESSON)
    _, token = store.join(pacing.code, "Kept")
    at = AppTest.from_file(str(FOLDER / "app_pages/lessons.py"), default_timeout=180)
    link = {"class": pacing.code, "me": token}
    if stage is not None:
        link.update(lesson=LESSON, stage=stage)   # the app's own link: lesson and stage
    for k, v in link.items():
        at.query_params[k] = str(v)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert "you are **Kept**" in "\n".join(c.value for c in at.caption)
    kept = address(at)
    assert kept.get("class") == pacing.code and kept.get("me") == token, kept
