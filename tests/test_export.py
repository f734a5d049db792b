"""Figure files: HTML always; PNG through kaleido when a Chromium exists, a clear error if not."""
import pytest

from cbviz import export
from cbviz.plots import error_figure


def _fig():
    import pandas as pd
    return error_figure(pd.DataFrame({"iteration": [1, 2], "train_error": [0.3, 0.2],
                                      "test_error": [0.35, 0.3]}))


def test_html_is_standalone():
    html = export.figure_html(_fig())
    assert "Plotly.newPlot" in html and len(html) > 1_000_000  # plotly.js inline
    assert "<script src=" not in html  # nothing fetched from the network


def test_png_without_chromium_says_why(monkeypatch):
    monkeypatch.setattr(export, "chromium_path", lambda: None)
    with pytest.raises(export.ExportUnavailable, match="needs a Chromium"):
        export.figure_png(_fig())


@pytest.mark.skipif(export.chromium_path() is None, reason="no Chromium for kaleido")
def test_png_with_chromium():
    png = export.figure_png(_fig(), scale=1)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_table_csv_keeps_formula_like_text_from_running_in_a_spreadsheet():
    """Cells and column names that start like a formula get a leading quote; numbers (also
    negative ones) and ordinary text are written as they are."""
    import io

    import pandas as pd

    from cbviz.export import table_csv

    frame = pd.DataFrame({"label": ["=cmd()", "+1", "-x", "@SUM(A1)", "\tx", "x1 > 0.5", None],
                          "alpha": [-0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                          "=evil": [1, 2, 3, 4, 5, 6, 7]})
    back = pd.read_csv(io.StringIO(table_csv(frame)), keep_default_na=False)
    assert list(back.columns) == ["label", "alpha", "'=evil"]
    assert list(back["label"]) == ["'=cmd()", "'+1", "'-x", "'@SUM(A1)", "'\tx", "x1 > 0.5", ""]
    assert list(back["alpha"]) == [-0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
