"""What every page shares: its document title and the stylesheet Streamlit's theme cannot set
(``assets/css/app.css``: focus rings, the text only a screen reader reads)."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = ["document_title", "add_style", "lazy_expander", "APP"]

CSS = Path(__file__).parent / "assets" / "css" / "app.css"
APP = "cbviz"


def document_title(*parts):
    """Name the browser tab after what the page shows (WCAG 2.1, 2.4.2 Page Titled): ``parts``
    from the most to the least specific, then the app's name, joined by " · "."""
    st.set_page_config(page_title=" · ".join((*parts, APP)))


def add_style():
    """The app's stylesheet, on every run (Streamlit keeps only what a run draws)."""
    st.html(CSS)


def lazy_expander(label, key, draw, where=st, **options):
    """An expander (in ``where``: the page, the sidebar) whose content, ``draw()`` called in
    it, is made only while it is open: opening or closing it reruns the page, or the fragment
    it is in, so the runs between do not send what nobody opened."""
    box = where.expander(label, key=key, on_change="rerun", **options)
    if box.open:
        with box:
            draw()
