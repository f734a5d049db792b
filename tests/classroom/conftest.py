"""The class store's tests run on both backends: a SQLite file of the test's own, and a real
PostgreSQL server, a throwaway cluster started once for the session from Debian's server
binaries (or the server at ``$CBVIZ_TEST_POSTGRES``, a URL of a database the tests may empty).
Without the binaries the PostgreSQL half is skipped, unless ``CBVIZ_REQUIRE_POSTGRES=1``."""
import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine
from sqlalchemy.pool import NullPool

from cbviz.classroom import open_database


def _postgres_binaries():
    """The folder of the newest PostgreSQL server binaries here, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).resolve().parent if pg_ctl else None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _cluster(binaries):
    """A PostgreSQL cluster in a temporary folder on a free local port (run by the "postgres"
    user, or "nobody", when the tests run as root): the URL of its database "cbviz_test"."""
    root = Path(tempfile.mkdtemp(prefix="cbviz-pg-"))
    prefix = []
    if os.geteuid() == 0:   # the server refuses to run as root
        user = "postgres" if "postgres" in {p.pw_name for p in pwd.getpwall()} else "nobody"
        account = pwd.getpwnam(user)
        os.chown(root, account.pw_uid, account.pw_gid)
        prefix = ["runuser", "-u", user, "--"]
    port, data = _free_port(), root / "data"

    def run(*args):
        subprocess.run(prefix + [str(a) for a in args], cwd=root, check=True,
                       capture_output=True, env=dict(os.environ, LC_ALL="C"), timeout=120)

    run(binaries / "initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
        "--no-sync")
    run(binaries / "pg_ctl", "-D", data, "-l", root / "server.log", "-w", "-t", "60", "-o",
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=200 "
        "-c fsync=off -c full_page_writes=off -c synchronous_commit=off", "start")
    try:
        url = f"postgresql://postgres@127.0.0.1:{port}"
        with create_engine(f"{url}/postgres", isolation_level="AUTOCOMMIT",
                           poolclass=NullPool).connect() as conn:
            conn.exec_driver_sql("CREATE DATABASE cbviz_test")
        yield f"{url}/cbviz_test"
    finally:
        run(binaries / "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url():
    """The URL of the session's PostgreSQL database."""
    if os.environ.get("CBVIZ_TEST_POSTGRES"):
        yield os.environ["CBVIZ_TEST_POSTGRES"]
        return
    binaries = _postgres_binaries()
    if binaries is None:
        message = "no PostgreSQL server binaries (Debian's postgresql package)"
        if os.environ.get("CBVIZ_REQUIRE_POSTGRES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    with _cluster(binaries) as url:
        yield url


def _engine(url):
    """A plain engine of ``url`` (a SQLite path or a PostgreSQL URL), no connection kept."""
    if "://" not in url:
        url = f"sqlite:///{url}"
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1),
                         poolclass=NullPool)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    """An empty database: a new SQLite file, or the PostgreSQL database emptied."""
    if request.param == "sqlite":
        return str(tmp_path / "classes.sqlite3")
    url = request.getfixturevalue("postgres_url")
    with _engine(url).begin() as conn:
        tables = MetaData()
        tables.reflect(conn)
        tables.drop_all(conn)
    return url


@pytest.fixture
def raw_engine(url):
    """An engine of the test's database, beside the class store's."""
    return _engine(url)


@pytest.fixture
def db(url):
    """The class store in an empty database (its connections closed after the test)."""
    database = open_database(url)
    yield database
    database.engine.dispose()


@pytest.fixture
def klass(db):
    """A class on lesson 1: ``(pacing, teacher token)``."""
    return db.create_class(1)
