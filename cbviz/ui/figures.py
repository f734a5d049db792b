"""Download any chart of a page: standalone HTML always, PNG when the server has a Chromium."""
from __future__ import annotations

import re

import streamlit as st

from . import hide
from ..export import ExportUnavailable, chromium_path, figure_html, figure_png


def _file_name(name):
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "chart"


def _png(build):
    try:
        return figure_png(build())
    except ExportUnavailable as exc:  # a text file that says why, rather than a broken image
        return f"No PNG: {exc}".encode()


def export_charts(builders, key):
    """A chart chooser and its download buttons; ``builders``: chart name -> figure builder.

    Figures are built when a button is clicked, so drawing this costs nothing per step.
    """
    if not builders or hide.hidden("export"):
        return
    c1, c2, c3 = st.columns([2, 1, 1], vertical_alignment="bottom")
    name = c1.selectbox("Chart to download", list(builders), key=f"{key}_chart")
    build = builders[name]
    c2.download_button("HTML", lambda: figure_html(build()), f"{_file_name(name)}.html",
                       "text/html", key=f"{key}_html", on_click="ignore",
                       icon=":material/download:", width="stretch",
                       help="a standalone page (plotly.js included): opens offline, zoomable")
    if chromium_path():
        c3.download_button("PNG", lambda: _png(build), f"{_file_name(name)}.png", "image/png",
                           key=f"{key}_png", on_click="ignore", icon=":material/image:",
                           width="stretch")
    else:
        c3.caption("PNG needs a Chromium on the server (kaleido drives it); HTML works without.")
