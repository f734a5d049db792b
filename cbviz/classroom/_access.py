"""Who may do what: a class found by its code (open, ended or expired), the teacher's and the
students' tokens checked against it, and the per-student rate limit, all read and written in
the caller's transaction."""
from datetime import datetime, timedelta, timezone

from sqlalchemy import case, literal, select, update

from ..constraints import short_repr
from ._errors import ClassClosed, NotAllowed, RateLimited
from ._records import pacing_of
from ._schema import UTCDateTime, class_stages, classes, students
from ._tokens import CODE_ALPHABET, CODE_LENGTH, hash_matches, normalize_code, token_hash

__all__ = ["RATE_LIMIT", "WRITE_OPTION", "Store", "utc_now", "find_class", "teacher_class",
           "student_rows", "read_pacing", "count_write", "bump_version"]

RATE_LIMIT = (20, 10)   # at most 20 writes per student in a window of 10 s
WRITE_OPTION = "cbviz_write"   # execution option of a writing transaction (BEGIN IMMEDIATE)


class Store:
    """The engine, and a writer (the same engine, its transactions taking SQLite's write lock
    at BEGIN, so that concurrent writers queue instead of failing)."""

    def __init__(self, engine):
        self.engine = engine
        self.writer = engine.execution_options(**{WRITE_OPTION: True})


def utc_now():
    return datetime.now(timezone.utc)


def find_class(conn, code, *, ended_ok=False):
    """The ``classes`` row of ``code``; ClassClosed when no class has it, it expired or (unless
    ``ended_ok``) it ended."""
    code = normalize_code(code)
    row = None
    if len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET):
        row = conn.execute(select(classes).where(classes.c.code == code)).one_or_none()
    if row is None:
        raise ClassClosed(f"No class has the code {short_repr(code, 12)}: check it with "
                          "your teacher.")
    if row.expires <= utc_now():
        raise ClassClosed(f"This class expired on {row.expires:%Y-%m-%d %H:%M} UTC.")
    if row.ended and not ended_ok:
        raise ClassClosed("This class ended.")
    return row


def teacher_class(conn, code, token, *, writing=False):
    """The class of ``code`` when ``token`` is its teacher's (NotAllowed otherwise); an ended
    class can be read, not changed (ClassClosed when ``writing``)."""
    row = find_class(conn, code, ended_ok=not writing)
    if not hash_matches(token, row.teacher_hash):
        raise NotAllowed("Only the class's teacher can do this (the teacher's link is "
                         "needed).")
    return row


def student_rows(conn, code, token):
    """``(class row, student row)`` of the student whose token is ``token`` in the open class
    of ``code``; NotAllowed for a missing token or one of another class."""
    klass = find_class(conn, code)
    student = None
    if isinstance(token, str) and token:
        student = conn.execute(select(students).where(
            students.c.class_id == klass.id,
            students.c.token_hash == token_hash(token))).one_or_none()
    if student is None:
        raise NotAllowed("This session is not a student of this class: join it first.")
    return klass, student


def read_pacing(conn, row):
    """The :class:`Pacing` of a ``classes`` row."""
    stages = conn.execute(select(class_stages).where(class_stages.c.class_id == row.id)).all()
    return pacing_of(row, stages)


def count_write(conn, student_id):
    """Count one write of the student (its window restarts :data:`RATE_LIMIT` seconds after
    it began) and update ``seen``; RateLimited past the limit.  The update locks the student's
    row, so one student's writes queue behind each other until their transactions end."""
    limit, seconds = RATE_LIMIT
    now = utc_now()
    fresh = students.c.window_start > now - timedelta(seconds=seconds)
    count = conn.execute(
        update(students).where(students.c.id == student_id).values(
            window_count=case((fresh, students.c.window_count + 1), else_=1),
            window_start=case((fresh, students.c.window_start),
                              else_=literal(now, UTCDateTime())),
            seen=now).returning(students.c.window_count)).scalar_one()
    if count > limit:
        raise RateLimited(f"Too many answers at once: at most {limit} every {seconds} s. "
                          "Wait a few seconds.")


def bump_version(conn, class_id, **changes):
    """Apply ``changes`` to the class row and bump its version (every teacher action does)."""
    conn.execute(update(classes).where(classes.c.id == class_id)
                 .values(version=classes.c.version + 1, **changes))
