"""The live class's store (issue #28): classes, their students, votes and runs, in SQLite (the
default: one file shared by every worker on a machine) or PostgreSQL (workers on several
machines), through one SQLAlchemy Core code path.  No Streamlit here.

A teacher starts a class (:meth:`Database.create_class`) and gets a private token; students
join with the class's code and get a token of their own.  Only the tokens' SHA-256 are stored;
every action checks the token against the class of the code it names, so nobody acts on a
class, or for a student, not their own.  What a student writes is validated and rate limited
per student (:data:`RATE_LIMIT`) in the database; a class expires after its ``days``::

    db = open_database()                          # $CBVIZ_DATABASE, or the per-user file
    pacing, teacher_token = db.create_class(1)    # lesson 1
    student, token = db.join(pacing.code, "Ada")
    db.answer(pacing.code, token, 1, 0.3)         # stage 1, round 1
    db.votes(pacing.code, teacher_token, 1)       # [Vote(student=1, nickname='Ada', ...)]
"""
from ._access import RATE_LIMIT
from ._database import DATABASE_ENV, Database, default_database_path, open_database
from ._errors import (AnswerRefused, ClassClosed, ClassError, NicknameRefused, NotAllowed,
                      RateLimited, SchemaError)
from ._inputs import TEXT_LENGTH
from ._records import Pacing, RunResult, Student, Vote
from ._schema import NICKNAME_LENGTH, RESULT_FIELDS, SCHEMA_VERSION
from ._teacher import CSV_COLUMNS
from ._tokens import CODE_ALPHABET, normalize_code

__all__ = ["open_database", "Database", "default_database_path", "DATABASE_ENV",
           "SCHEMA_VERSION", "RESULT_FIELDS", "RATE_LIMIT", "CODE_ALPHABET", "CSV_COLUMNS",
           "NICKNAME_LENGTH", "TEXT_LENGTH", "normalize_code", "Pacing", "Student", "Vote",
           "RunResult", "ClassError", "ClassClosed", "NotAllowed", "AnswerRefused",
           "RateLimited", "NicknameRefused", "SchemaError"]
