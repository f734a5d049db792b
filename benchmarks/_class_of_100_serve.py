"""The servers of :mod:`benchmarks.class_of_100`, started from any source tree by that tree's own
code: one worker (``cbviz.app.streamlit_server.serve``) or workers behind nginx
(``cbviz.app.serve.serve_class``).  Private to :mod:`benchmarks.class_of_100`.

:func:`served` runs ``python -m benchmarks._class_of_100_serve TREE WORKERS`` (this module, from
this checkout) with ``TREE`` first on its path and in the workers' ``PYTHONPATH``, so that
``cbviz``, the entry script, its ``.streamlit/config.toml`` and the nginx template all come
from ``TREE``, e.g. a ``git worktree`` at an older commit.  That process prints the servers'
addresses and process ids as one JSON line and stops them when its standard input closes
(the tool ends, or dies) or on SIGTERM; the class store is a SQLite file in a temporary folder.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Served:
    """Running servers: the URL students open (nginx's, or the lone worker's), each worker's
    address and process id, and nginx's (None for a lone worker)."""

    url: str
    workers: dict       # "host:port" -> pid
    nginx: int | None

    @property
    def pids(self):
        """The server's processes by name (their descendants count with them)."""
        return {**self.workers, **({"nginx": self.nginx} if self.nginx else {})}

    @property
    def worker_urls(self):
        return [f"http://{address}" for address in self.workers]


@contextmanager
def served(tree, workers=0):
    """Serve the app of source tree ``tree`` (a folder holding ``cbviz/``): ``workers`` = 0 for
    one worker alone, else that many behind nginx.  Yields a :class:`Served`; stops all on exit."""
    tree = str(Path(tree).resolve())
    host = subprocess.Popen(
        [sys.executable, "-m", "benchmarks._class_of_100_serve", tree, str(workers)],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    try:
        line = host.stdout.readline()
        if not line:
            raise RuntimeError(f"the servers of {tree} did not start (exit {host.wait()})")
        info = json.loads(line)
        yield Served(info["url"], info["workers"], info.get("nginx"))
    finally:
        host.stdin.close()   # the host stops its servers and ends
        try:
            host.wait(timeout=60)
        except subprocess.TimeoutExpired:
            host.terminate()
            host.wait(timeout=30)


def _host(tree, workers):
    """Start the servers with ``tree``'s code, print them, wait for stdin to close."""
    sys.path.insert(0, tree)
    os.environ["PYTHONPATH"] = tree          # the workers import cbviz from the tree too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="cbviz-class-of-100-"))
        store = os.path.join(folder, "classes.sqlite3")
        os.environ["CBVIZ_DATABASE"] = store    # the app's class store: not the user's
        if workers:
            from cbviz.app.serve import serve_class
            cls = stack.enter_context(serve_class(workers, database=store))
            info = {"url": cls.url, "workers": {w.address: w.pid for w in cls.workers},
                    "nginx": cls.nginx.pid}
        else:
            from cbviz.app.streamlit_server import serve
            one = stack.enter_context(serve())
            info = {"url": one.url, "workers": {one.url.split("//", 1)[1]: one.pid}}
        print(json.dumps(info), flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    _host(sys.argv[1], int(sys.argv[2]))
