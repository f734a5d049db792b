"""The class store's tables (SQLAlchemy Core) and the version of their layout.

A database holds :data:`SCHEMA_VERSION` in its one-row table ``cbviz_schema``; a change of the
tables below changes the version, and a database of another version is refused at opening.
Timestamps are UTC: ``timestamptz`` on PostgreSQL, naive UTC text on SQLite, timezone-aware in
Python from both.
"""
from datetime import timezone

from sqlalchemy import (BigInteger, Boolean, Column, DateTime, Float, ForeignKey, Integer,
                        MetaData, PrimaryKeyConstraint, String, Table, Text, TypeDecorator,
                        UniqueConstraint)

from ._tokens import CODE_LENGTH

__all__ = ["SCHEMA_VERSION", "RESULT_FIELDS", "NICKNAME_LENGTH", "metadata", "schema",
           "classes", "class_stages", "students", "votes", "runs", "UTCDateTime"]

SCHEMA_VERSION = 1
NICKNAME_LENGTH = 24     # characters, after stripping

# the measured results of a student's run that the class store keeps (columns of ``runs``)
RESULT_FIELDS = ("test_error", "train_error", "c_bound", "pac_bound", "first_order_bound",
                 "pac_bound_1", "tandem_bound")


class UTCDateTime(TypeDecorator):
    """A UTC timestamp: naive UTC in SQLite, ``timestamptz`` elsewhere; aware in Python."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        value = value.astimezone(timezone.utc) if value.tzinfo else \
            value.replace(tzinfo=timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else \
            value.astimezone(timezone.utc)


metadata = MetaData()


def _class_id():
    return Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"),
                  nullable=False)


def _student_id():
    return Column("student_id", Integer, ForeignKey("students.id", ondelete="CASCADE"),
                  nullable=False)


schema = Table("cbviz_schema", metadata, Column("version", Integer, nullable=False))

classes = Table(
    "classes", metadata,
    Column("id", Integer, primary_key=True),
    Column("code", String(CODE_LENGTH), nullable=False, unique=True),
    Column("lesson", Integer, nullable=False),
    Column("teacher_hash", String(64), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("stage", Integer, nullable=False),
    Column("paused", Boolean, nullable=False),
    Column("hold_reveals", Boolean, nullable=False),
    Column("own_samples", Boolean, nullable=False),
    Column("seed", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created", UTCDateTime, nullable=False),
    Column("expires", UTCDateTime, nullable=False),
    Column("ended", Boolean, nullable=False),
    # the number the last student who joined got (incremented by each join, under the row lock)
    Column("last_number", Integer, nullable=False),
)

class_stages = Table(
    "class_stages", metadata,
    _class_id(),
    Column("stage", Integer, nullable=False),
    Column("released", Boolean, nullable=False),
    Column("second_vote", Boolean, nullable=False),
    PrimaryKeyConstraint("class_id", "stage"),
)

students = Table(
    "students", metadata,
    Column("id", Integer, primary_key=True),
    _class_id(),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("number", Integer, nullable=False),
    Column("nickname", String(NICKNAME_LENGTH)),
    Column("stage", Integer, nullable=False),
    Column("joined", UTCDateTime, nullable=False),
    Column("seen", UTCDateTime, nullable=False),
    Column("window_start", UTCDateTime, nullable=False),
    Column("window_count", Integer, nullable=False),
    UniqueConstraint("class_id", "number"),
)

votes = Table(
    "votes", metadata,
    Column("id", Integer, primary_key=True),
    _class_id(),
    _student_id(),
    Column("stage", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("value", Text, nullable=False),
    Column("number_value", Float),
    Column("right", Boolean),
    Column("answered_at", UTCDateTime, nullable=False),
    UniqueConstraint("student_id", "stage", "round"),
)

runs = Table(
    "runs", metadata,
    _class_id(),
    _student_id(),
    Column("stage", Integer, nullable=False),
    Column("seed", BigInteger),
    Column("m", BigInteger),
    Column("answer", Text),
    *(Column(name, Float) for name in RESULT_FIELDS),
    Column("recorded_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("student_id", "stage"),
)
