"""A class on one machine: several Streamlit workers of the app behind Debian's nginx.

``cbviz serve --workers N --port P`` (``python -m cbviz.app.serve``) starts N workers on free
local ports (all with one cookie secret, so a session that moves keeps valid upload tokens),
writes the packaged ``nginx.conf.template`` (:data:`cbviz.app.NGINX_TEMPLATE`) with their
addresses into a private folder and runs nginx on port P in front of them; the template's
header says how it works:

* WebSockets proxied;
* a new browser goes to the worker with the fewest new browsers' requests in flight, in turn
  when they tie (a class arriving together splits evenly), and stays there: every response
  sets the cookie ``cbviz_worker`` to the value that routes to the worker that answered
  (:func:`route_values`, :attr:`Worker.route`);
* a dead worker's students each go to one other worker (the same for all of a student's
  requests), and the cookie follows;
* component files requested with a version (``?v=``) are cached by nginx and by browsers for a
  year.

The workers are told where students reach the class (``--public-url``, and nginx's
address), for the teacher's class link.  Every 2 s the workers' health endpoints are asked and
a change is printed.  Ctrl-C (or SIGTERM) stops nginx and every worker.  Nothing here needs the
source checkout: the app and the template are package data.
"""
from __future__ import annotations

import argparse
import itertools
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..ui.class_address import LISTEN_ENV, PUBLIC_URL_ENV, public_url_problem
from . import ENTRY, NGINX_TEMPLATE
from ..classroom import DATABASE_ENV
from .streamlit_server import check_database, free_port, healthy, serve, wait_healthy

TEMPLATE = NGINX_TEMPLATE
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MAX_BODY = "60m"  # the app's maxUploadSize (50 MB) and headroom


class ServeError(RuntimeError):
    """The proxy or a worker could not start (the message says which and why)."""


@dataclass
class Worker:
    """One Streamlit process of the app: its local URL, process id and the value of nginx's
    sticky cookie (``cbviz_worker``) that routes a browser to it."""

    url: str
    pid: int
    route: str

    @property
    def address(self):
        return self.url.split("//", 1)[1]

    def healthy(self, timeout=2.0):
        return healthy(self.url, timeout)

    def kill(self):
        """End the worker at once (SIGKILL), as a crash would."""
        os.kill(self.pid, signal.SIGKILL)


@dataclass
class Class:
    """A running class: the public URL (nginx), the workers and nginx's process."""

    url: str
    workers: list
    nginx: subprocess.Popen
    folder: Path

    def worker_of(self, address):
        """The worker whose local address (host:port) is ``address``, or None."""
        return next((w for w in self.workers if w.address == address), None)


def route_values(count):
    """The sticky cookie's value for each of ``count`` workers: ``w<i>``, or ``w<i>-<n>`` with
    the first ``n`` that makes nginx's ``hash`` (``((crc32(value) >> 16) & 0x7fff) % count``
    for servers of weight 1, all up) pick server ``i`` of the upstream group."""
    def server(value):
        return ((zlib.crc32(value.encode()) >> 16) & 0x7fff) % count
    return [next(v for v in (f"w{i}-{n}" if n else f"w{i}" for n in itertools.count())
                 if server(v) == i) for i in range(count)]


def nginx_config(addresses, port, folder, host="0.0.0.0"):
    """The text of the nginx configuration for workers at ``addresses`` (host:port)."""
    servers = "\n".join(f"        server {a} max_fails=1 fail_timeout=10s;" for a in addresses)
    routes = "\n".join(f'        "~(^| ){re.escape(a)}$" {v};'
                       for a, v in zip(addresses, route_values(len(addresses))))
    fields = {"servers": servers, "routes": routes, "listen": f"{host}:{port}",
              "prefix": str(folder), "max_body": MAX_BODY}
    lines = []
    for line in TEMPLATE.read_text().splitlines():   # ${name} fields outside the comments;
        if not line.lstrip().startswith("#"):        # nginx's own $variables stay as they are
            for name, value in fields.items():
                line = line.replace("${" + name + "}", value)
        lines.append(line)
    return "\n".join(lines) + "\n"


@contextmanager
def proxy(addresses, port, folder, host="127.0.0.1"):
    """nginx on ``host``:``port`` in front of the workers at ``addresses`` (host:port), its
    configuration and files in ``folder``; stopped on exit."""
    nginx = _start_nginx(nginx_config(addresses, port, folder, host), folder)
    try:
        yield nginx
    finally:
        _stop(nginx)


def _start_nginx(config_text, folder):
    if not Path(NGINX).exists():
        raise ServeError(f"nginx not found ({NGINX}); install it: apt-get install nginx")
    conf = folder / "nginx.conf"
    conf.write_text(config_text)
    check = subprocess.run([NGINX, "-t", "-q", "-c", str(conf), "-p", str(folder)],
                           capture_output=True, text=True)
    if check.returncode:
        raise ServeError(f"nginx refused the configuration: {check.stderr.strip()[:500]}")
    return subprocess.Popen([NGINX, "-c", str(conf), "-p", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def worker_env(secret, host, public_url=None, database=None):
    """The environment every worker gets: the shared cookie secret, for the class link the
    address nginx listens on and the public URL (if given), and the class store they share."""
    env = {"STREAMLIT_SERVER_COOKIE_SECRET": secret,   # not settable on the command line
           LISTEN_ENV: host}
    if public_url:
        env[PUBLIC_URL_ENV] = public_url
    if database:
        env[DATABASE_ENV] = str(database)
    return env


@contextmanager
def serve_class(workers=2, port=None, host="127.0.0.1", script=ENTRY, options=(),
                public_url=None, database=None):
    """Start ``workers`` app processes and nginx on ``host``:``port`` (default: a free port);
    yield the :class:`Class`; stop everything on exit.  ``public_url``: the address students
    open, for the class link; ``database``: the class store every worker shares (default:
    ``CBVIZ_DATABASE`` or the per-user SQLite file)."""
    if workers < 1:
        raise ServeError(f"--workers must be at least 1; got {workers}")
    port = port or free_port()
    secret = secrets.token_hex(32)
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cbviz-nginx-")))
        folder.chmod(0o755)   # nginx's workers (another user when it runs as root) write here
        env = worker_env(secret, host, public_url, database)
        running = [stack.enter_context(serve(script, "--server.address", "127.0.0.1", *options,
                                             env=env))
                   for _ in range(workers)]
        pool = [Worker(s.url, s.pid, r) for s, r in zip(running, route_values(workers))]
        nginx = stack.enter_context(proxy([w.address for w in pool], port, folder, host))
        url = f"http://127.0.0.1:{port}"
        if not wait_healthy(url, nginx, 30):
            raise ServeError(f"nginx did not answer on {url} (see {folder / 'error.log'})")
        yield Class(url, pool, nginx, folder)


def _stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGQUIT)   # nginx: graceful stop
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def supervise(cls, period=2.0, log=print):
    """Print each worker's health when it changes, until interrupted."""
    state = {w.pid: True for w in cls.workers}
    while cls.nginx.poll() is None:
        for w in cls.workers:
            up = w.healthy()
            if up != state[w.pid]:
                state[w.pid] = up
                log(f"worker {w.address} (pid {w.pid}) is {'back' if up else 'down'}: "
                    + ("" if up else "its students are passed to the other workers"))
        time.sleep(period)
    log("nginx stopped")


def _parser():
    p = argparse.ArgumentParser(prog="cbviz serve", description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                   help="app processes (default: one per core but one, left to nginx and the "
                        "system)")
    p.add_argument("--port", type=int, default=8501, help="public port of nginx")
    p.add_argument("--host", default="0.0.0.0",
                   help="address nginx listens on (0.0.0.0: every interface)")
    p.add_argument("--public-url", type=_public_url, metavar="URL",
                   help="the address students open, e.g. https://cbviz.school.example (behind "
                        "another proxy or a DNS name); the teacher's class link and QR code "
                        "use it.  Passed to the workers as CBVIZ_PUBLIC_URL.  Default: this "
                        "machine's network address when --host is 0.0.0.0")
    p.add_argument("--database", metavar="WHERE",
                   help="the class store every worker shares: a SQLite file on this machine "
                        "(default: CBVIZ_DATABASE, else classes.sqlite3 in this user's data "
                        "folder) or, for workers on several machines, a PostgreSQL server "
                        "(postgresql://user:password@host/name)")
    return p


def _public_url(text):
    problem = public_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text.rstrip("/")


def main(argv=None):
    args = _parser().parse_args(argv)
    problem = check_database(args.database)
    if problem:
        print(f"cbviz serve: --database: {problem}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    try:
        with serve_class(args.workers, args.port, args.host, public_url=args.public_url,
                         database=args.database) as cls:
            print(f"cbviz: {len(cls.workers)} workers behind nginx on "
                  f"http://{args.host}:{args.port} (Ctrl-C stops everything)", flush=True)
            for w in cls.workers:
                print(f"  worker {w.address} pid {w.pid}", flush=True)
            supervise(cls)
    except KeyboardInterrupt:
        print("stopped", flush=True)
    except ServeError as exc:
        print(f"cbviz serve: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    main()
