"""The ``cbviz`` command: help of every command, and ``cbviz app`` serving the app."""
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cbviz.app import ENTRY
from cbviz.app.streamlit_server import free_port
from cbviz.cli import COMMANDS, find_app, main

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ["app", "bench", "experiments", "serve"]


def _cbviz():
    """The installed console script, else ``python -m cbviz`` (the same entry point)."""
    script = shutil.which("cbviz", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "cbviz"]


def test_every_command_is_registered_in_order():
    assert list(COMMANDS) == EXPECTED


def test_top_level_help_lists_every_command():
    out = subprocess.run([*_cbviz(), "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    for name in EXPECTED:
        assert f"\n    {name}" in out.stdout


@pytest.mark.parametrize("name", EXPECTED)
def test_each_command_has_help(name):
    out = subprocess.run([*_cbviz(), name, "--help"], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    # the usage line names the command the user typed, not the module that implements it
    assert out.stdout.startswith(f"usage: cbviz {name} "), out.stdout[:200]
    assert "python -m" not in out.stdout.splitlines()[0]


@pytest.mark.parametrize("argv, usage", [
    (["bench", "fig1", "--help"], "usage: cbviz bench fig1 "),
    (["bench", "algorithms", "--help"], "usage: cbviz bench algorithms "),
])
def test_a_subcommand_s_usage_line_is_under_cbviz(argv, usage, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(usage)


def test_an_error_names_the_cbviz_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["experiments", "nope"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: cbviz experiments ")
    assert "cbviz experiments: error: argument name: invalid choice" in err


def test_python_dash_m_is_the_same_command():
    out = subprocess.run([sys.executable, "-m", "cbviz", "experiments", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "--quick" in out.stdout
    assert out.stdout.startswith("usage: cbviz experiments ")


@pytest.mark.parametrize("module", ["cbviz.bench", "cbviz.experiments"])
def test_a_tool_run_as_a_module_names_itself_so(module):
    out = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith(f"usage: python -m {module} ")


def test_unknown_command_is_an_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["nope"])
    assert exc.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


def test_help_does_not_import_the_tools_or_the_app():
    code = ("import sys; from cbviz.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('streamlit', 'playwright', 'distributed', 'numba')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.strip().endswith("[]"), out.stdout + out.stderr


def test_app_help_says_how_a_developer_turns_the_file_watcher_on(capsys):
    assert main(["app", "--help"]) == 0
    assert "cbviz app --server.fileWatcherType auto" in capsys.readouterr().out


def test_app_script_is_found():
    assert find_app() == ENTRY


def test_cbviz_app_serves_the_app_and_answers_health():
    port = free_port()
    proc = subprocess.Popen(
        [*_cbviz(), "app", "--server.port", str(port), "--server.headless", "true",
         "--server.fileWatcherType", "none"],
        cwd="/", stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    assert r.read().strip() == b"ok"
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()[-2000:]
                assert time.time() < deadline, "no health answer within 90 s"
                time.sleep(0.3)
        with urllib.request.urlopen(url + "/", timeout=10) as r:
            assert r.status == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_cbviz_app_checks_the_class_store_before_it_starts(tmp_path):
    """A database of another schema version stops `cbviz app` with a message, before
    Streamlit starts; a fresh path is created with the current schema."""
    from sqlalchemy import create_engine, text

    from cbviz.classroom import SCHEMA_VERSION, open_database
    old = tmp_path / "old.sqlite3"
    open_database(str(old))
    with create_engine(f"sqlite:///{old}").begin() as conn:
        conn.execute(text("UPDATE cbviz_schema SET version = :v"), {"v": SCHEMA_VERSION + 1})
    out = subprocess.run([*_cbviz(), "app", "--database", str(old), "--server.headless",
                          "true"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "--database" in out.stderr and str(SCHEMA_VERSION + 1) in out.stderr
    out = subprocess.run([*_cbviz(), "serve", "--database",
                          "postgresql://nobody@127.0.0.1:1/none"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "cbviz serve: --database:" in out.stderr
