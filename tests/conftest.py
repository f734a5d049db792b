"""Shared by every test: cbviz's per-user data folder (the experiments' results) is a
temporary one, never the real one; app servers started by the tests inherit it."""
import pytest


@pytest.fixture(autouse=True, scope="session")
def data_dir(tmp_path_factory):
    """``$CBVIZ_DATA_DIR`` for the whole session (a test may set its own)."""
    with pytest.MonkeyPatch.context() as patch:
        path = tmp_path_factory.mktemp("cbviz-data")
        patch.setenv("CBVIZ_DATA_DIR", str(path))
        yield path
