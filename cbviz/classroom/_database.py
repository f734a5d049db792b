"""Opening the class store: a SQLite file (the default, in cbviz's per-user data folder) or a
PostgreSQL database, one SQLAlchemy engine per URL in a process, the schema created in an empty
database and its version checked in any other."""
import functools
import os
from pathlib import Path

import platformdirs
from sqlalchemy import create_engine, event, func, inspect, insert, select
from sqlalchemy.engine import URL, make_url

from ._access import WRITE_OPTION
from ._errors import SchemaError
from ._schema import SCHEMA_VERSION, metadata, schema
from ._student import StudentActions
from ._teacher import TeacherActions

__all__ = ["DATABASE_ENV", "Database", "default_database_path", "open_database"]

DATABASE_ENV = "CBVIZ_DATABASE"
_POSTGRES_DRIVER = "postgresql+psycopg"
_SCHEMA_LOCK = 0x63627669   # PostgreSQL advisory lock held while the schema is checked
# SQLite: concurrent readers beside one writer (WAL); a writer waits up to 10 s for another
_SQLITE_PRAGMAS = ("PRAGMA busy_timeout = 10000", "PRAGMA journal_mode = WAL",
                   "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON")


def default_database_path():
    """``classes.sqlite3`` in cbviz's per-user data folder: ``$CBVIZ_DATA_DIR`` when set, else
    ``platformdirs.user_data_path`` of "cbviz"."""
    base = os.environ.get("CBVIZ_DATA_DIR")
    return (Path(base) if base else platformdirs.user_data_path("cbviz")) / "classes.sqlite3"


def database_url(where=None):
    """The SQLAlchemy URL of ``where`` (see :func:`open_database`); a SQLite file's folder is
    created."""
    if where is None:
        where = os.environ.get(DATABASE_ENV) or default_database_path()
    where = os.fspath(where)
    if "://" not in where:
        url = URL.create("sqlite", database=str(Path(where).expanduser().resolve()))
    else:
        url = make_url(where)
    if url.drivername == "postgresql":
        url = url.set(drivername=_POSTGRES_DRIVER)
    if url.drivername not in ("sqlite", _POSTGRES_DRIVER):
        raise ValueError(f"The class database is a SQLite file or a PostgreSQL URL; got "
                         f"{url.render_as_string(hide_password=True)}.")
    if url.drivername == "sqlite" and url.database not in (None, "", ":memory:"):
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    return url


@functools.cache
def _engine(url):
    """The process's engine of ``url`` (its pool; no state of a class is kept here)."""
    if url.drivername != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    engine = create_engine(url)

    @event.listens_for(engine, "connect")
    def _connect(connection, _record):
        connection.isolation_level = None   # transactions begun below, not by the driver
        cursor = connection.cursor()
        for pragma in _SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):   # a writer takes the write lock at once: no deadlock on upgrading
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(
            WRITE_OPTION) else "BEGIN")

    return engine


class Database(TeacherActions, StudentActions):
    """The class store: classes, their students, votes and runs (see the package's doc)."""

    @property
    def url(self):
        """The database's URL, its password masked."""
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def dialect(self):
        """"sqlite" or "postgresql"."""
        return self.engine.dialect.name

    def __repr__(self):
        return f"Database({self.url!r})"

    def check_schema(self):
        """Create the tables in a database that has none of them; else SchemaError unless the
        database's schema version is :data:`SCHEMA_VERSION`."""
        with self.writer.begin() as conn:
            if self.dialect == "postgresql":   # workers starting together create it once
                conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
            present = set(inspect(conn).get_table_names()) & set(metadata.tables)
            if not present:
                metadata.create_all(conn)
                conn.execute(insert(schema).values(version=SCHEMA_VERSION))
                return
            found = conn.execute(select(schema.c.version)).scalars().all() \
                if schema.name in present else []
        if found != [SCHEMA_VERSION]:
            raise SchemaError(
                f"The class database {self.url} has schema version "
                f"{found[0] if len(found) == 1 else 'unknown'}; this cbviz expects version "
                f"{SCHEMA_VERSION}. Point cbviz at another database (--database or "
                f"${DATABASE_ENV}), or end its classes and delete it to start afresh.")


def open_database(where=None):
    """The class store at ``where``: None for ``$CBVIZ_DATABASE`` or else
    :func:`default_database_path`; a path (a SQLite file, its folders created); or a
    ``sqlite:///`` or ``postgresql://`` URL.  Creates the tables in an empty database, checks
    the schema version of any other (:class:`SchemaError`) and purges the expired classes."""
    database = Database(_engine(database_url(where)))
    database.check_schema()
    database.purge_expired()
    return database
