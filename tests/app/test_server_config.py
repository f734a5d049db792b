"""The server settings a class depends on (the app's .streamlit/config.toml)."""
import ast
import tomllib

from cbviz.app import CONFIG, ENTRY, PAGES


def test_no_full_garbage_collection_after_each_run():
    """Streamlit's post-run gc.collect(2) holds the GIL ~120 ms per run with cbviz's imports:
    under a class it stalled the server's event loop (README, Serving a class)."""
    assert tomllib.loads(CONFIG.read_text())["runner"]["postScriptGC"] is False


def test_no_usage_statistics_no_developer_toolbar_and_a_stated_upload_cap():
    config = tomllib.loads(CONFIG.read_text())
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["toolbarMode"] == "viewer"
    assert config["server"]["maxUploadSize"] == 50


def test_no_file_watcher_for_users():
    """The watcher scans every loaded module for each new session (~0.3 s of CPU per page
    load under a class); a developer turns it on with an option, as `cbviz app --help` says."""
    assert tomllib.loads(CONFIG.read_text())["server"]["fileWatcherType"] == "none"


def _shown_by_magic(tree):
    """The line numbers of the statements magic would write to the page: bare expressions
    other than calls and docstrings."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for i, statement in enumerate(body if isinstance(body, list) else ()):
            if not isinstance(statement, ast.Expr) or isinstance(
                    statement.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)):
                continue
            if i == 0 and isinstance(statement.value, ast.Constant) and isinstance(
                    statement.value.value, str):
                continue   # a docstring
            yield statement.lineno


def test_no_magic_and_no_script_that_needs_it():
    """Magic writes a script's bare expressions to the page; it is off (it costs every compile
    of a script), so no script of the app may hold one."""
    assert tomllib.loads(CONFIG.read_text())["runner"]["magicEnabled"] is False
    for script in (ENTRY, *PAGES.glob("*.py")):
        assert not list(_shown_by_magic(ast.parse(script.read_text()))), script.name
    assert list(_shown_by_magic(ast.parse('"""doc"""\nx = 1\nx\nst.write(x)\n'))) == [3]
