"""The ``cbviz`` command: one entry point for the app and the package's tools.

``cbviz COMMAND [OPTIONS]`` (or ``python -m cbviz COMMAND [OPTIONS]``); ``cbviz COMMAND --help``
prints the options of each.  Every command hands its options, untouched, to the module that
implements it, so ``cbviz bench fig1 --quick`` is ``python -m cbviz.bench fig1 --quick``.

A command is one function registered with :func:`command`: it receives the arguments after
its name and returns an exit code.  Each imports what it runs only when called, so
``cbviz --help`` and ``cbviz app`` do not load the tools' dependencies.
"""
from __future__ import annotations

import argparse
import os
import sys

__all__ = ["COMMANDS", "command", "find_app", "take_option", "main"]

#: name -> (one-line help, function(argv) -> exit code), in the order ``--help`` lists them
COMMANDS = {}


def command(name, help):
    """Register the decorated function ``f(argv) -> int`` as ``cbviz NAME``."""
    def register(function):
        COMMANDS[name] = (help, function)
        return function
    return register


def find_app():
    """The app's entry script, installed with the package (:data:`cbviz.app.ENTRY`); None if
    the installation lost it."""
    from .app import ENTRY
    return ENTRY if ENTRY.is_file() else None


_APP_HELP = """usage: cbviz app [--public-url URL] [--database PATH_OR_URL] [STREAMLIT OPTIONS]

Start the cbviz app: `streamlit run` on the app's entry script, installed with the package
(cbviz/app/streamlit_app.py), in that folder (so that the app's .streamlit/config.toml
applies), with every other option passed through to `streamlit run`.  The app's modules and
compiled kernels are loaded before it answers, so that no student's click waits for them.

  --public-url URL   the address students open (http:// or https://, e.g. behind a proxy);
                     the teacher's class link and QR code use it.  Passed to the app as
                     CBVIZ_PUBLIC_URL.  Without it the link uses this machine's network
                     address, or warns when the app only listens on this computer.
  --database WHERE   where live classes, their answers and pacing are kept: a SQLite file
                     (PATH) or a server (postgresql://user:password@host/name).  Default:
                     CBVIZ_DATABASE, else classes.sqlite3 in this user's data folder.  Its
                     schema version is checked before the app starts.

examples:
  cbviz app                                   # http://localhost:8501
  cbviz app --server.port 8600 --server.headless true
  cbviz app --server.address 0.0.0.0          # reachable from the class's machines
  cbviz app --public-url https://cbviz.school.example

Developing: the app's config turns Streamlit's file watcher off (it costs every page load a
scan of the loaded modules); `cbviz app --server.fileWatcherType auto --server.runOnSave true`
reruns the page when a source file is saved.

`streamlit run --help` lists every option.  The app is part of the installed package:
`cbviz app` works from any folder, with or without the source checkout.
"""


@command("app", "start the app (options go to `streamlit run`)")
def _app(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(_APP_HELP, end="")
        return 0
    try:
        argv, public_url = _public_url_option(argv)
    except ValueError as exc:
        print(f"cbviz app: --public-url: {exc}", file=sys.stderr)
        return 2
    argv, database = take_option(argv, "--database")
    from .app.streamlit_server import check_database, warm_up
    problem = check_database(database)
    if problem:
        print(f"cbviz app: --database: {problem}", file=sys.stderr)
        return 2
    script = find_app()
    if script is None:
        print("cbviz app: the app's entry script is missing from the installed package; "
              "reinstall cbviz", file=sys.stderr)
        return 2
    if public_url:
        from .ui.class_address import PUBLIC_URL_ENV
        os.environ[PUBLIC_URL_ENV] = public_url
    os.chdir(script.parent)
    print("cbviz app: loading the app's modules and compiled kernels (the first time after an "
          "install numba compiles them: about a minute)", flush=True)
    warm_up()
    from streamlit.web import cli as streamlit_cli
    sys.argv = ["streamlit", "run", str(script), *argv]
    try:
        return streamlit_cli.main(prog_name="streamlit")
    except SystemExit as done:
        return done.code or 0


def take_option(argv, name):
    """``argv`` without ``NAME VALUE`` (or ``NAME=VALUE``), and that value (None if absent)."""
    rest, value = [], None
    items = iter(argv)
    for item in items:
        if item == name:
            value = next(items, "")
        elif item.startswith(name + "="):
            value = item.split("=", 1)[1]
        else:
            rest.append(item)
    return rest, value


def _public_url_option(argv):
    """``argv`` without ``--public-url URL`` (or ``--public-url=URL``), and that URL checked
    (None if absent); ValueError says what is wrong."""
    from .ui.class_address import public_url_problem
    rest, url = take_option(argv, "--public-url")
    if url is None:
        return rest, None
    problem = public_url_problem(url)
    if problem:
        raise ValueError(problem)
    return rest, url.rstrip("/")


@command("bench", "speed benchmark; the paper's Fig. 1 protocol")
def _bench(argv):
    from . import bench
    return bench.main(argv, prog="cbviz bench")


@command("experiments", "the CB-Boost paper's experiments, resumable")
def _experiments(argv):
    from .experiments.__main__ import main as experiments_main
    return experiments_main(argv, prog="cbviz experiments")


@command("serve", "a class: app workers behind Debian's nginx (needs nginx)")
def _serve(argv):
    from .app import serve
    return serve.main(argv)


def _parser():
    ap = argparse.ArgumentParser(
        prog="cbviz", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Learn, teach and compare PAC-Bayesian majority-vote algorithms.",
        epilog="`cbviz COMMAND --help` prints a command's options.")
    ap.add_argument("--version", action="version", version=_version())
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, (text, _) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    return ap


def _version():
    from . import __version__
    return f"cbviz {__version__}"


def main(argv=None):
    """Run ``cbviz`` with ``argv`` (default: the process's arguments); returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = _parser()
    if not argv or argv[0] not in COMMANDS:
        parser.parse_args(argv[:1] or ["--help"])   # prints help / version / the error
        return 2
    code = COMMANDS[argv[0]][1](argv[1:])
    return code if isinstance(code, int) else 0
