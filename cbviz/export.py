"""Figures as files: standalone HTML always, PNG when a Chromium is present (kaleido)."""
from __future__ import annotations

import os
import shutil

__all__ = ["ExportUnavailable", "chromium_path", "figure_html", "figure_png", "table_csv"]

_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


class ExportUnavailable(RuntimeError):
    """This machine cannot make the file (e.g. PNG without a Chromium); the text says why."""


def chromium_path():
    """The Chromium kaleido will drive: ``BROWSER_PATH`` if set, else a system one, else None."""
    path = os.environ.get("BROWSER_PATH")
    if path and os.path.exists(path):
        return path
    found = next((p for p in _CANDIDATES if os.path.exists(p)), None)
    return found or shutil.which("chromium") or shutil.which("google-chrome")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def table_csv(frame):
    """``frame`` as CSV text that a spreadsheet opens as data: a text cell that starts like a
    formula (``= + - @``, tab, carriage return; e.g. a voter named after a column ``=cmd()``)
    gets a leading ``'``, so it is shown, never run.  Numbers are written as they are."""
    out = frame.copy()
    for column in out.columns[out.dtypes == object]:
        out[column] = out[column].map(
            lambda v: "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v)
    out.columns = [f"'{c}" if isinstance(c, str) and c.startswith(_FORMULA_START) else c
                   for c in out.columns]
    return out.to_csv(index=False)


def figure_html(fig):
    """A standalone HTML page of ``fig`` (plotly.js included: it opens offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True)


def figure_png(fig, scale=2):
    """PNG bytes of ``fig`` through kaleido and a local Chromium.

    Raises :class:`ExportUnavailable` when no Chromium is found (install one, or set
    ``BROWSER_PATH``): HTML export needs none.
    """
    path = chromium_path()
    if path is None:
        raise ExportUnavailable("PNG export needs a Chromium browser on the server (install "
                                "Debian's chromium or set BROWSER_PATH); HTML export works "
                                "without one")
    os.environ.setdefault("BROWSER_PATH", path)
    try:
        return fig.to_image(format="png", scale=scale)
    except Exception as exc:  # kaleido reports a browser it cannot start in many ways
        raise ExportUnavailable(f"PNG export failed ({type(exc).__name__}: {exc}); HTML export "
                                "still works") from None
