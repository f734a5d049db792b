"""AppTest checks of the Paper experiments page: defaults load, quick runs complete, tables."""

import pytest
from helpers import figure_specs
from streamlit.testing.v1 import AppTest

from cbviz.app import PAGES
from cbviz.markdown import md

PAGE = str(PAGES / "paper_experiments.py")


@pytest.fixture
def page(tmp_path, monkeypatch):
    monkeypatch.setenv("CBVIZ_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(PAGE, default_timeout=300)
    at.run()
    assert not at.exception
    return at


def _titles(at):
    return [spec["layout"]["title"]["text"].split("<br>")[0] for spec in figure_specs(at)]


@pytest.mark.parametrize("name, title", [
    ("fig5", "CB-Boost vs. the best vote on its voters"),
    ("fig3", "CB-Boost vs AdaBoost under Gaussian feature noise"),
    ("fig1", "Fit time versus number of voters n"),
    ("table2", None),
])
def test_a_quick_run_completes_and_shows_its_tables(page, name, title, tmp_path):
    page.selectbox(key="exp_name").set_value(name).run()
    folder = tmp_path / "experiment-results"
    assert f"Results are saved in {md(str(folder))}" in [c.value for c in page.caption]
    assert "No unit of this experiment is saved yet" in page.info[0].value
    page.button(key="exp_run").click().run()
    assert not page.exception
    if title:
        assert title in _titles(page)
    assert page.dataframe  # the tables
    assert (folder / name / "units").is_dir()  # every unit saved
    again = AppTest.from_file(PAGE, default_timeout=300)  # a reload loses nothing
    again.session_state["exp_store"] = {"name": name, "quick": True}
    again.run()
    assert not again.info and again.dataframe
    assert again.button(key="exp_run").label == "All saved"
