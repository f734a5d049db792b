"""One headless Streamlit process on a free local port, and the health check of a server.

``cbviz serve`` starts its workers with :func:`serve`; the tests and the checkout's benchmarks
(``benchmarks/``) start the app the same way.  The process runs in the app's folder
(:data:`cbviz.app.FOLDER`), so the app's ``.streamlit/config.toml`` applies to every script it
serves, installed from a wheel or not.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass

from ..classroom import DATABASE_ENV, ClassError, SchemaError, open_database
from . import ENTRY, FOLDER

__all__ = ["Server", "free_port", "healthy", "serve", "wait_healthy", "check_database"]


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class Server:
    """A running server: its URL and process id."""

    url: str
    pid: int


def healthy(url, timeout=2.0):
    """Whether the app (or the proxy in front of it) at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout) as r:
            return r.read().strip() == b"ok"
    except OSError:
        return False


def wait_healthy(url, proc, seconds):
    """Wait until ``url`` is healthy; False when process ``proc`` ended or ``seconds`` ran out."""
    deadline = time.time() + seconds
    while not healthy(url):
        if proc.poll() is not None or time.time() > deadline:
            return False
        time.sleep(0.2)
    return True


@contextmanager
def serve(script=ENTRY, *options, env=None):
    """A headless Streamlit server for ``script`` (default: the app; extra ``--server.x value``
    options may be given); yields a :class:`Server` once its health endpoint answers."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", *options],
        cwd=FOLDER, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env})
    url = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(url, proc, 90):
            raise RuntimeError(f"streamlit did not start for {script}")
        yield Server(url, proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def check_database(where):
    """Open the class store ``where`` (None: the default) once, creating it or checking its
    schema version, and export it to the app's processes (``CBVIZ_DATABASE``); what is wrong
    with it, or None."""
    try:
        open_database(where)
    except (ClassError, SchemaError, OSError) as exc:
        return str(exc)
    except Exception as exc:   # the driver's own errors: a server that does not answer
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    if where:
        os.environ[DATABASE_ENV] = where
    return None
