"""The server settings a class depends on (the app's .streamlit/config.toml)."""
import tomllib

from cbviz.app import CONFIG


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
