"""One headless Streamlit process on a free local port, the health check of a server, and
the work a server does once before its first student (:func:`warm_up`).

``cbviz serve`` starts its workers with :func:`serve`; the tests and the checkout's benchmarks
(``benchmarks/``) start the app the same way.  The process runs in the app's folder
(:data:`cbviz.app.FOLDER`), so the app's ``.streamlit/config.toml`` applies to every script it
serves, installed from a wheel or not.
"""
from __future__ import annotations

import ast
import gc
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass

from ..classroom import DATABASE_ENV, ClassError, SchemaError, open_database
from . import ENTRY, FOLDER, PAGES

__all__ = ["Server", "free_port", "healthy", "serve", "wait_healthy", "check_database",
           "warm_up"]


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


def _command(script):
    """``cbviz app`` for the app (it answers once its modules and kernels are loaded: the
    first student's page waits for neither), ``streamlit run`` for another script."""
    if os.path.realpath(script) == str(ENTRY):
        return [sys.executable, "-m", "cbviz", "app"]
    return [sys.executable, "-m", "streamlit", "run", str(script)]


@contextmanager
def serve(script=ENTRY, *options, env=None):
    """A headless Streamlit server for ``script`` (default: the app; extra ``--server.x value``
    options may be given); yields a :class:`Server` once its health endpoint answers."""
    port = free_port()
    proc = subprocess.Popen(
        [*_command(script), "--server.headless", "true",
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


_WARM_LOCK = threading.Lock()
_warmed = []


def warm_up():
    """Make this process ready for students, once (later calls return at once): import every
    module the app's scripts import, then take two steps of every algorithm, in every mode, on
    tiny problems of every voter pool (stump codes of one and two bytes), so that numba's
    kernels are loaded from its disk cache (compiled, the first time) and no click pays an
    import or a compilation; then move every object made so far out of the garbage
    collector's reach (``gc.freeze``)."""
    with _WARM_LOCK:
        if _warmed:
            return
        for module, names in _app_imports():
            __import__(module, fromlist=names)   # as `from module import names` does
        _step_everything()
        # what start-up made lives as long as the process: no later full collection scans it
        # again (the pause it makes every session wait measured 0.2 s, 0.07-0.1 s after)
        gc.collect()
        gc.freeze()
        _warmed.append(True)


def _app_imports():
    """The absolute imports of the entry script and the pages: ``(module, names)`` for
    ``import module`` (no names) and ``from module import names``, sorted."""
    imports = set()
    for script in (ENTRY, *PAGES.glob("*.py")):
        for node in ast.walk(ast.parse(script.read_text())):
            if isinstance(node, ast.Import):
                imports.update((alias.name, ()) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imports.add((node.module, tuple(alias.name for alias in node.names)))
    return sorted(imports)


def _step_everything():
    from ..algorithms.base import ParameterError
    from ..algorithms.registry import ALGORITHMS, make_algorithm
    from ..problem import POOLS, Settings, build_problem
    tiny = [(Settings(n_samples=40, pool=pool, n_thresholds="2", n_pool=4), False)
            for pool in POOLS]
    # over 255 bins a feature: stump codes of two bytes, for the iterative algorithms (MinCq's
    # one program on its 1,116 voters would take seconds)
    tiny.append((Settings(n_samples=400, n_thresholds="all"), True))
    for settings, iterative_only in tiny:
        problem = build_problem(settings)
        for key, spec in ALGORITHMS.items():
            if iterative_only and not spec.iterative:
                continue
            for params in _modes(spec):
                try:
                    run = problem.start(make_algorithm(key, 2, settings.delta, **params))
                except ParameterError:   # fitted trees and an algorithm that needs a pool
                    continue
                run.step()
                run.step()


def _modes(spec):
    """The algorithm's defaults, then each choice or switch of one parameter changed."""
    defaults = spec.defaults()
    yield defaults
    for p in spec.params:
        values = p.choices if p.kind == "choice" else (True, False) if p.kind == "bool" else ()
        for value in values:
            if value != p.default:
                yield {**defaults, p.name: value}
